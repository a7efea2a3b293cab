/* sync.c: a session into a snapshot and back (see sync.h). */
#include "config.h"

#include "i18n.h"
#include "sync.h"

#include <stdlib.h>
#include <string.h>
#include "train.h"
#include "util.h"

static bool copy_text(char *dst, const char *src, const char *what, char **cause)
{
	size_t len = strlen(src);

	if (len > AV_SNAP_TEXT_MAX)
		return av_fail(cause, _("the %s is longer than %d bytes"), what, AV_SNAP_TEXT_MAX);
	memcpy(dst, src, len + 1);
	return true;
}

bool av_state_capture(struct av_state *snap, const struct av_session *s, char **cause)
{
	if (!copy_text(snap->sentence, s->sentence ? s->sentence : "", "sentence", cause))
		return false;
	snap->has_source = s->source != NULL;
	snap->source[0] = '\0';
	if (s->source && !copy_text(snap->source, s->source, "source", cause))
		return false;
	snap->mode = s->cfg.mode;
	snap->scale = s->cfg.scale;
	snap->temperature = s->cfg.temperature;
	snap->seed = s->cfg.seed;
	snap->init = s->cfg.init;
	snap->d_model = s->cfg.d_model;
	snap->heads = s->cfg.heads;
	memcpy(snap->key_hidden, s->key_hidden, sizeof snap->key_hidden);
	return true;
}

void av_state_capture_training(struct av_state *snap, const struct av_train_settings *set,
				  int epochs_done)
{
	snap->training.active = true;
	snap->training.target = set->target;
	snap->training.optimizer = set->optimizer;
	snap->training.params = set->params;
	snap->training.lr = set->lr;
	snap->training.epochs = epochs_done;
}

bool av_state_needs_params(const struct av_state *prev, const struct av_state *snap)
{
	const struct av_snap_training *a, *b;

	if (prev == NULL)
		return true;
	a = &prev->training;
	b = &snap->training;
	/* the training replays with the whole config (the loss goes through
	 * the mask, the scale and the temperature), so with a run every config
	 * field counts; without one only what the parameters are drawn from */
	if (strcmp(prev->sample, snap->sample) != 0 || prev->origin != snap->origin ||
	    strcmp(prev->weights, snap->weights) != 0 || prev->content_hash != snap->content_hash ||
	    prev->seed != snap->seed || prev->init != snap->init ||
	    prev->d_model != snap->d_model || prev->heads != snap->heads ||
	    a->active != b->active)
		return true;
	if (!b->active)
		return false;
	return a->target != b->target || a->optimizer != b->optimizer || a->params != b->params ||
	       a->lr != b->lr || a->epochs != b->epochs || prev->mode != snap->mode ||
	       prev->scale != snap->scale || prev->temperature != snap->temperature ||
	       (prev->has_source != snap->has_source) ||
	       (snap->has_source && strcmp(prev->source, snap->source) != 0);
}

/* The parameters before any training: the loaded weights, or drawn again
 * for the (new) config. */
static void fresh_params(struct av_session *s, const struct av_state *snap)
{
	if (snap->origin == AV_SNAP_FROM_WEIGHTS && s->from_weights) {
		av_params_free(&s->params);
		av_params_copy(&s->params, &s->initial);
	} else {
		av_session_reinit(s);
	}
}

static bool replay_training(struct av_session *s, const struct av_state *snap, char **cause)
{
	struct av_train_settings set = {
		.lr = snap->training.lr,
		.optimizer = snap->training.optimizer,
		.target = snap->training.target,
		.params = snap->training.params,
	};
	struct av_trainer *tr = av_trainer_new(s, &set, cause);
	bool ok;

	if (tr == NULL) {
		av_cause_prefix(cause, _("cannot replay the teacher's training"));
		return false;
	}
	for (int e = 0; e < snap->training.epochs; e++)
		av_trainer_epoch(tr);
	ok = av_trainer_apply(tr, s, cause);
	av_trainer_free(tr);
	return ok;
}

static void set_text(char **field, bool present, const char *text)
{
	char *old = *field;

	*field = present ? av_strdup(text) : NULL;
	free(old);
}

bool av_state_apply(struct av_session *s, const struct av_state *prev,
		       const struct av_state *snap, char **cause)
{
	bool params;

	if (!av_state_validate(snap, cause))
		return false;
	if (s->sample.name == NULL || strcmp(s->sample.name, snap->sample) != 0)
		return av_fail(cause, _("the teacher's sample is %s, this attnview has %s"),
			       snap->sample, s->sample.name ? s->sample.name : "none");
	if (snap->origin == AV_SNAP_FROM_WEIGHTS && !s->from_weights)
		return av_fail(cause, _("the teacher uses the weights %s, this attnview has none"),
			       snap->weights);
	params = av_state_needs_params(prev, snap);
	s->cfg.mode = snap->mode;
	s->cfg.scale = snap->scale;
	s->cfg.temperature = snap->temperature;
	s->cfg.seed = snap->seed;
	s->cfg.init = snap->init;
	s->cfg.d_model = snap->d_model;
	s->cfg.heads = snap->heads;
	set_text(&s->sentence, true, snap->sentence);
	set_text(&s->source, snap->has_source, snap->source);
	memcpy(s->key_hidden, snap->key_hidden, sizeof s->key_hidden);
	if (params) {
		fresh_params(s, snap);
		if (snap->training.active && !replay_training(s, snap, cause))
			return false;
	}
	return av_session_run(s, cause);
}
