/* sync.c: a session into a snapshot and back (see sync.h). */
#include "config.h"

#include "i18n.h"
#include "sync.h"

#include <stdlib.h>
#include <string.h>
#include "model_config.h"
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

/* The trainer's settings as a recipe entry at step at. */
static struct av_snap_recipe recipe_of(const struct av_trainer *tr, long at, bool reset)
{
	return (struct av_snap_recipe){
		.at = at, .target = tr->set.target, .optimizer = tr->set.optimizer,
		.params = tr->set.params, .lr = tr->set.lr, .reset = reset,
	};
}

static long run_position(const struct av_trainer *tr)
{
	return (long)tr->epoch * tr->n_items + tr->next_item;
}

/* Whether the run t trained under tr's settings. */
static bool run_under_is(const struct av_snap_training *t, const struct av_trainer *tr)
{
	return t->mode == tr->cfg.mode && t->scale == tr->cfg.scale &&
	       t->temperature == tr->cfg.temperature && t->has_source == (tr->source != NULL) &&
	       (tr->source == NULL || strcmp(t->source, tr->source) == 0);
}

/* The trainer's tracked pair as words, from step at ("" "" for none, and
 * for a word too long to send). */
static struct av_snap_track track_of(const struct av_trainer *tr, long at)
{
	struct av_snap_track k = { .at = at };
	const char *a = tr->track[0] >= 0 ? tr->params.vocab[tr->track[0]] : "";
	const char *b = tr->track[1] >= 0 ? tr->params.vocab[tr->track[1]] : "";

	if (strlen(a) <= AV_SNAP_NAME_MAX && strlen(b) <= AV_SNAP_NAME_MAX && *a && *b) {
		memcpy(k.pair[0], a, strlen(a) + 1);
		memcpy(k.pair[1], b, strlen(b) + 1);
	}
	return k;
}

static bool same_pair(const struct av_snap_track *x, const struct av_snap_track *y)
{
	return strcmp(x->pair[0], y->pair[0]) == 0 && strcmp(x->pair[1], y->pair[1]) == 0;
}

/* A tracked pair chosen since the last call becomes an entry at the
 * trainer's step; false when the run has no room for it. */
static bool track_pair(struct av_snap_training *t, const struct av_trainer *tr, long pos)
{
	struct av_snap_track now = track_of(tr, pos), *last = &t->tracks[t->n_tracks - 1];

	if (same_pair(&now, last))
		return true;
	if (last->at != pos) {
		if (t->n_tracks == AV_SNAP_MAX_TRACKS)
			return false;
		t->tracks[t->n_tracks++] = now;
	} else if (t->n_tracks > 1 && same_pair(&now, last - 1)) {
		t->n_tracks--;    /* back to the pair before, at the same step */
	} else {
		now.at = last->at;
		*last = now;
	}
	return true;
}

bool av_state_track_training(struct av_snap_training *t, const struct av_trainer *tr)
{
	long pos = run_position(tr);
	struct av_snap_recipe *last = t->n_recipe > 0 ? &t->recipe[t->n_recipe - 1] : NULL;
	bool fresh = tr->steps == 0 && pos > 0;    /* the optimiser's state was reset */
	bool ok = true;

	if (!t->active || last == NULL || t->n_tracks < 1 || tr->cfg.init != t->init ||
	    !run_under_is(t, tr) ||
	    pos < last->at || tr->epoch < t->epochs ||
	    (tr->epoch == t->epochs && tr->next_item < t->steps)) {
		/* a new run: the first, or after r or i (back to step 0) */
		t->active = true;
		t->init = tr->cfg.init;
		av_snap_set_under(t, tr->cfg.mode, tr->cfg.scale, tr->cfg.temperature, tr->source);
		t->n_recipe = 1;
		t->recipe[0] = recipe_of(tr, 0, true);
		t->n_tracks = 1;
		t->tracks[0] = track_of(tr, 0);
	} else if (tr->set.target != last->target || tr->set.optimizer != last->optimizer ||
		   tr->set.params != last->params || tr->set.lr != last->lr ||
		   (fresh && !(last->at == pos && last->reset))) {
		if (last->at == pos)
			*last = recipe_of(tr, pos, last->reset || fresh || pos == 0);
		else if (t->n_recipe < AV_SNAP_MAX_RECIPE)
			t->recipe[t->n_recipe++] = recipe_of(tr, pos, fresh);
		else
			ok = false;
	}
	if (!track_pair(t, tr, pos))
		ok = false;
	t->epochs = tr->epoch;
	t->steps = tr->next_item;
	return ok;
}

bool av_state_needs_params(const struct av_state *prev, const struct av_state *snap)
{
	const struct av_snap_training *a, *b;

	if (prev == NULL)
		return true;
	a = &prev->training;
	b = &snap->training;
	/* what the parameters are drawn from, and the runs that trained them
	 * (each with the mask, scale, temperature and source it trained under:
	 * the config shown may change afterwards without new parameters) */
	if (strcmp(prev->sample, snap->sample) != 0 || prev->origin != snap->origin ||
	    strcmp(prev->weights, snap->weights) != 0 || prev->content_hash != snap->content_hash ||
	    prev->seed != snap->seed || prev->init != snap->init ||
	    prev->d_model != snap->d_model || prev->heads != snap->heads ||
	    !av_state_same_runs_before(prev, snap) || a->active != b->active)
		return true;
	return !av_state_same_training(a, b);
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

/* Puts the trainer's settings to r's; the optimiser's state starts afresh
 * when r says so (the setters of the optimiser and the trained tensors do
 * that themselves, as on the teacher's screen). */
static bool set_recipe(struct av_trainer *tr, const struct av_snap_recipe *r, char **cause)
{
	if (!av_trainer_set_lr(tr, r->lr, cause) || !av_trainer_set_target(tr, r->target, cause))
		return false;
	if (r->optimizer != tr->set.optimizer || r->reset)
		av_trainer_set_optimizer(tr, r->optimizer);
	if (r->params != tr->set.params)
		av_trainer_set_params(tr, r->params);
	return true;
}

/* Tracks the pair of entry k (by its words: none when this vocabulary
 * lacks one), unless it is tracked already (choosing it again would clear
 * its history). */
static void set_track(struct av_trainer *tr, const struct av_snap_track *k)
{
	int a = -1, b = -1;

	if (k->pair[0][0] != '\0') {
		a = av_params_find(&tr->params, k->pair[0]);
		b = av_params_find(&tr->params, k->pair[1]);
		if (a < 0 || b < 0)
			a = b = -1;
	}
	if (a != tr->track[0] || b != tr->track[1])
		av_trainer_set_track(tr, a, b, NULL);
}

static bool (*replay_interrupted)(void);

void av_state_set_interrupt(bool (*interrupted)(void))
{
	replay_interrupted = interrupted;
}

bool av_state_replay(struct av_trainer *tr, const struct av_snap_training *done,
		     const struct av_snap_training *t, char **cause)
{
	long end = (long)t->epochs * tr->n_items + t->steps;
	int k = 0, kt = 0;

	if (t->steps >= tr->n_items && t->steps > 0)
		return av_fail(cause, _("the teacher's run is at sentence %d of an epoch; this"
			       " sample has %d"), t->steps + 1, tr->n_items);
	if (t->recipe[t->n_recipe - 1].at > end || t->tracks[t->n_tracks - 1].at > end)
		return av_fail(cause, _("the teacher's run changes its settings after its end"));
	if (done != NULL && av_state_recipe_continues(done, t) &&
	    run_position(tr) == (long)done->epochs * tr->n_items + done->steps) {
		k = done->n_recipe;    /* go on from where the last replay stopped */
		kt = done->n_tracks;
	} else {
		if (tr->cfg.init != t->init)
			av_trainer_set_init(tr, t->init);
		else
			av_trainer_reset(tr);
		if (!set_recipe(tr, &t->recipe[0], cause))
			return false;
		set_track(tr, &t->tracks[0]);
		k = kt = 1;
	}
	for (long pos = run_position(tr);; pos++) {
		for (; k < t->n_recipe && t->recipe[k].at <= pos; k++)
			if (!set_recipe(tr, &t->recipe[k], cause))
				return false;
		for (; kt < t->n_tracks && t->tracks[kt].at <= pos; kt++)
			set_track(tr, &t->tracks[kt]);
		if (pos >= end)
			return true;
		if (pos % tr->n_items == 0 && replay_interrupted && replay_interrupted())
			return av_fail(cause, _("interrupted"));
		av_trainer_step(tr);
	}
}

/* Replays run t on the session's parameters: a trainer made from them,
 * with the settings t trained under (a shallow copy of the session: the
 * trainer copies what it reads), whose weights become the session's. */
static bool replay_run(struct av_session *s, const struct av_snap_training *t,
		       int *epochs_before, char **cause)
{
	const struct av_snap_recipe *r0 = &t->recipe[0];
	struct av_train_settings set = {
		.lr = r0->lr, .optimizer = r0->optimizer, .target = r0->target, .params = r0->params,
	};
	struct av_session under = *s;
	struct av_trainer *tr;
	bool ok;

	under.cfg.mode = t->mode;
	under.cfg.scale = t->scale;
	under.cfg.temperature = t->temperature;
	under.source = t->has_source ? av_strdup(t->source) : NULL;
	tr = av_trainer_new(&under, &set, cause);
	free(under.source);
	if (tr == NULL) {
		av_cause_prefix(cause, _("cannot replay the teacher's training"));
		return false;
	}
	ok = av_state_replay(tr, NULL, t, cause);
	if (ok) {
		av_params_free(&s->params);
		av_params_copy(&s->params, &tr->params);
		*epochs_before = tr->epochs_before;
	}
	av_trainer_free(tr);
	return ok;
}

int av_state_epochs_after(int epochs_before, const struct av_snap_training *run)
{
	if (run->steps != 0)
		return 0;   /* inside an epoch: the count would be a fraction */
	return av_epochs_sum(epochs_before, run->epochs);
}

/* The runs of snap, in order, on fresh parameters; *epochs_before: the
 * epochs the last one went on from (0 without a run). The first run's
 * trainer knows a loaded file's; each later one goes on from the weights
 * the one before left (the teacher's new trainer counts them the same
 * way: "trained 5+3 ep"). */
static bool replay_training(struct av_session *s, const struct av_state *snap,
			    int *epochs_before, char **cause)
{
	int n = snap->n_before + (snap->training.active ? 1 : 0);
	*epochs_before = 0;
	for (int i = 0; i < n; i++) {
		const struct av_snap_training *run = i < snap->n_before ? &snap->before[i]
						     : &snap->training;
		int own;
		if (!replay_run(s, run, &own, cause))
			return false;
		*epochs_before = i == 0 ? own
				 : av_state_epochs_after(*epochs_before, &snap->before[i - 1]);
	}
	return true;
}

static void set_text(char **field, bool present, const char *text)
{
	char *old = *field;

	*field = present ? av_strdup(text) : NULL;
	free(old);
}

bool av_state_apply(struct av_session *s, const struct av_state *prev,
		       const struct av_state *snap, int *epochs_before, char **cause)
{
	bool params, same_inputs;

	if (!av_state_validate(snap, cause))
		return false;
	if (s->sample.name == NULL || strcmp(s->sample.name, snap->sample) != 0)
		return av_fail(cause, _("the teacher's sample is %s, this attnview has %s"),
			       snap->sample, s->sample.name ? s->sample.name : "none");
	if (snap->origin == AV_SNAP_FROM_WEIGHTS && !s->from_weights)
		return av_fail(cause, _("the teacher uses the weights %s, this attnview has none"),
			       snap->weights);
	/* the teacher's D is checked as a local --d-model on the screen is:
	 * within the memory budget for training, which the screen can start
	 * (a follower took D=4096, which --d-model 4096 is refused) */
	struct av_config want = s->cfg;
	want.d_model = snap->d_model;
	want.heads = snap->heads;
	if (!av_check_memory(&want, s->sample.n_vocab, AV_WORK_TRAIN, cause))
		return false;
	params = av_state_needs_params(prev, snap);
	/* the parameters, the text and the source stay as the session's last
	 * run had them: only the mask, the heads, the scale or the temperature
	 * can differ, and the stages from the mask on are enough (four times
	 * less work at D=512, for every student at once) */
	same_inputs = !params && prev != NULL && s->sentence != NULL &&
		      strcmp(s->sentence, snap->sentence) == 0 &&
		      (s->source != NULL) == snap->has_source &&
		      (!snap->has_source || strcmp(s->source, snap->source) == 0);
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
		int before;
		fresh_params(s, snap);
		if (!replay_training(s, snap, &before, cause))
			return false;
		if (epochs_before != NULL)
			*epochs_before = before;
	}
	return same_inputs ? av_session_reattend(s, cause) : av_session_run(s, cause);
}

bool av_state_same_numbers(const struct av_state *a, const struct av_state *b)
{
	struct av_state where = *b;

	/* b with a's screen fields: equal to a when nothing else differs */
	where.stage = a->stage;
	where.view = a->view;
	where.head = a->head;
	where.query = a->query;
	where.key = a->key;
	where.row = a->row;
	where.col = a->col;
	where.first_row = a->first_row;
	where.first_col = a->first_col;
	return av_state_same(&where, a);
}

bool av_state_sample_hash(const struct av_sample *sample, uint64_t *hash, char **cause)
{
	char *text;
	size_t len;

	if (sample->path == NULL || strcmp(sample->path, "(built-in)") == 0) {
		*hash = av_state_hash(av_builtin_sample_json, strlen(av_builtin_sample_json));
		return true;
	}
	if (!av_read_file(sample->path, &text, &len, cause))
		return false;
	*hash = av_state_hash(text, len);
	free(text);
	return true;
}

bool av_state_sample_named(const char *name)
{
	struct av_sample loaded;
	bool named;

	if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
		return false;
	/* a file of that name that does not load is still what students find */
	named = av_sample_load(name, &loaded, NULL) || loaded.name != NULL;
	av_sample_free(&loaded);
	if (named)
		return true;
	named = av_sample_load_builtin(&loaded, NULL) && loaded.name != NULL &&
		strcmp(loaded.name, name) == 0;
	av_sample_free(&loaded);
	return named;
}

bool av_state_find_sample(const char *name, uint64_t hash, struct av_sample *out, char **cause)
{
	struct av_sample loaded;
	uint64_t have = 0;

	if (strchr(name, '/') != NULL || strstr(name, ".json") != NULL)
		return av_fail(cause, _("the teacher's sample %s is a file, not an installed sample;"
				       " start attnview with --sample and a copy of it"), name);
	/* the installed file of that name, else the built-in sample when it
	 * is that one (a teacher who gave no --sample) */
	if (!av_sample_load(name, &loaded, cause) || !av_state_sample_hash(&loaded, &have, NULL) ||
	    have != hash) {
		av_sample_free(&loaded);
		if (!av_sample_load_builtin(&loaded, NULL) || loaded.name == NULL ||
		    strcmp(loaded.name, name) != 0 || !av_state_sample_hash(&loaded, &have, NULL) ||
		    have != hash) {
			av_sample_free(&loaded);
			if (cause != NULL) {
				free(*cause);
				*cause = NULL;
			}
			/* named here, installed or built in: another version */
			return av_fail(cause, av_state_sample_named(name)
					      ? _("this attnview's sample %s is not the teacher's"
						  " (another version of it)")
					      : _("the teacher's sample %s is not installed here"),
				       name);
		}
	}
	*out = loaded;
	return true;
}

bool av_state_load_sample(struct av_session *s, const char *name, uint64_t hash, char **cause)
{
	struct av_sample loaded;

	if (!av_state_find_sample(name, hash, &loaded, cause))
		return false;
	av_sample_free(&s->sample);
	s->sample = loaded;
	s->cfg = loaded.cfg;
	av_params_free(&s->params);
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	s->from_weights = false;
	av_session_start(s);
	return true;
}
