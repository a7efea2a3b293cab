/* snapshot.c: the follower's state, its defaults and its checks. */
#include "config.h"

#include "i18n.h"
#include "snapshot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include "rng.h"
#include "utf8.h"
#include "util.h"

const char *const av_snap_stage_names[] = {
	"tokens", "embedding", "projection", "scores", "scaled", "masked",
	"softmax", "context", "output", NULL
};
const char *const av_snap_view_names[] = { "stage", "heads", "train", "figures", "bars",
					    "compare", NULL };
const char *const av_snap_origin_names[] = { "sample", "weights", NULL };

void av_state_init(struct av_state *s)
{
	struct av_config cfg;

	memset(s, 0, sizeof *s);
	av_config_default(&cfg);
	strcpy(s->sample, "china-panda");
	strcpy(s->sentence, "a");
	s->origin = AV_SNAP_FROM_SAMPLE;
	s->mode = cfg.mode;
	s->scale = cfg.scale;
	s->temperature = cfg.temperature;
	s->seed = cfg.seed;
	s->init = cfg.init;
	s->d_model = cfg.d_model;
	s->heads = cfg.heads;
	s->stage = 0;
	s->view = AV_SNAP_VIEW_STAGE;
	s->query = -1;
	s->key = -1;
	s->training.init = cfg.init;
	av_state_run_under(&s->training, s);
	s->training.n_tracks = 1;
	s->training.n_recipe = 1;
	s->training.recipe[0] = (struct av_snap_recipe){
		.at = 0, .target = AV_TARGET_SELF, .optimizer = AV_OPT_ADAM,
		.params = AV_TRAIN_QKV, .lr = 0.01, .reset = true,
	};
}

uint64_t av_state_hash(const void *data, size_t len)
{
	return av_fnv1a_bytes(data, len, AV_FNV_BASIS);
}

/* A name: 1..AV_SNAP_NAME_MAX bytes of valid UTF-8 without control
 * characters (it is shown on the follower's screen). NUL-terminated within
 * its array is the caller's guarantee (the decoder copies bounded). */
static bool check_name(const char *field, const char *name, bool may_be_empty,
		       char **cause)
{
	size_t len = strnlen(name, AV_SNAP_NAME_MAX + 1);

	if (len > AV_SNAP_NAME_MAX)
		return av_fail(cause, _("%s: longer than %d bytes"), field, AV_SNAP_NAME_MAX);
	if (len == 0 && !may_be_empty)
		return av_fail(cause, _("%s: empty"), field);
	if (!av_utf8_valid(name, len, NULL))
		return av_fail(cause, _("%s: not valid UTF-8"), field);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return av_fail(cause, _("%s: a control character at byte %zu"), field, i);
	return true;
}

/* The text must tokenize (valid UTF-8, 1..AV_MAX_TOKENS tokens, at most
 * AV_MAX_SENTENCE_BYTES; source: a source's messages); *n is its token
 * count. */
static bool check_text(const char *field, bool source, const char *text, int *n, char **cause)
{
	struct av_tokens t;

	if (strnlen(text, AV_SNAP_TEXT_MAX + 1) > AV_SNAP_TEXT_MAX)
		return av_fail(cause, _("%s: longer than %d bytes"), field, AV_SNAP_TEXT_MAX);
	if (!(source ? av_tokenize_source : av_tokenize)(text, &t, cause)) {
		av_cause_prefix(cause, "%s", field);
		return false;
	}
	*n = t.n;
	av_tokens_free(&t);
	return true;
}

static bool check_enum(const char *field, int value, const char *const names[],
		       char **cause)
{
	int count = 0;

	while (names[count] != NULL)
		count++;
	if (value < 0 || value >= count)
		return av_fail(cause, _("%s: %d is not one of 0..%d"), field, value, count - 1);
	return true;
}

/* The mode, scale and temperature of the config or of a run ("training"
 * before their names). */
static bool check_attention(const char *prefix, enum av_mode mode, enum av_scale scale,
			    double temperature, char **cause)
{
	char mode_field[32], scale_field[32];

	snprintf(mode_field, sizeof mode_field, "%smode", prefix);
	snprintf(scale_field, sizeof scale_field, "%sscale", prefix);
	if (!check_enum(mode_field, (int)mode, av_mode_names, cause) ||
	    !check_enum(scale_field, (int)scale, av_scale_names, cause))
		return false;
	if (!isfinite(temperature) || temperature < AV_MIN_TEMPERATURE ||
	    temperature > AV_MAX_TEMPERATURE)
		return av_fail(cause, *prefix ? _("training temperature: not between %g and %g")
			       : _("temperature: not between %g and %g"),
			       AV_MIN_TEMPERATURE, AV_MAX_TEMPERATURE);
	return true;
}

static bool check_config(const struct av_state *s, char **cause)
{
	if (!check_attention("", s->mode, s->scale, s->temperature, cause) ||
	    !check_enum("init", (int)s->init, av_init_names, cause))
		return false;
	if (s->seed > AV_MAX_SEED)
		return av_fail(cause, _("seed: above %llu"), (unsigned long long)AV_MAX_SEED);
	if (s->d_model < 1 || s->d_model > AV_MAX_D_MODEL)
		return av_fail(cause, _("d_model: %d is not in 1..%d"), s->d_model, AV_MAX_D_MODEL);
	if (s->heads < 1 || s->heads > s->d_model || s->d_model % s->heads != 0)
		return av_fail(cause, _("heads: %d does not divide d_model %d"), s->heads, s->d_model);
	return true;
}

static bool check_view(const struct av_state *s, int queries, int keys, char **cause)
{
	if (s->stage < 0 || s->stage >= AV_SNAP_STAGE_COUNT)
		return av_fail(cause, _("stage: %d is not in 0..%d"), s->stage, AV_SNAP_STAGE_COUNT - 1);
	if (!check_enum("view", (int)s->view, av_snap_view_names, cause))
		return false;
	if (s->head < 0 || s->head >= s->heads)
		return av_fail(cause, _("head: %d is not below heads %d"), s->head, s->heads);
	if (s->query < -1 || s->query >= queries)
		return av_fail(cause, _("query: %d is not a token of the sentence (%d)"), s->query, queries);
	if (s->key < -1 || s->key >= keys)
		return av_fail(cause, _("key: %d is not a key token (%d)"), s->key, keys);
	if (s->row < 0 || s->row > AV_SNAP_MAX_CELL)
		return av_fail(cause, _("row: %d is not in 0..%d"), s->row, AV_SNAP_MAX_CELL);
	if (s->col < 0 || s->col > AV_SNAP_MAX_CELL)
		return av_fail(cause, _("col: %d is not in 0..%d"), s->col, AV_SNAP_MAX_CELL);
	if (s->first_row < 0 || s->first_row > AV_SNAP_MAX_CELL)
		return av_fail(cause, _("first_row: %d is not in 0..%d"), s->first_row,
			       AV_SNAP_MAX_CELL);
	if (s->first_col < 0 || s->first_col > AV_SNAP_MAX_CELL)
		return av_fail(cause, _("first_col: %d is not in 0..%d"), s->first_col,
			       AV_SNAP_MAX_CELL);
	for (int j = keys; j < AV_MAX_TOKENS; j++)
		if (s->key_hidden[j])
			return av_fail(cause, _("hidden key %d: not a key token (%d)"), j, keys);
	return true;
}

/* Entry i (field) of a run's list applies from sentence step at: the first
 * from 0, each after the one before (prev_at). */
static bool check_step(const char *field, int i, long at, long prev_at, char **cause)
{
	if (i == 0 && at != 0)
		return av_fail(cause, _("%s: starts at step %ld, not 0"), field, at);
	if (i > 0 && at <= prev_at)
		return av_fail(cause, _("%s: step %ld does not come after %ld"), field, at, prev_at);
	if ((long long)at > AV_SNAP_MAX_AT)
		return av_fail(cause, _("%s: step %ld is past any a run reaches (%lld)"), field, at,
			       AV_SNAP_MAX_AT);
	return true;
}

static bool check_recipe(const struct av_snap_recipe *r, int i, long prev_at, char **cause)
{
	char field[32];

	snprintf(field, sizeof field, "recipe %d", i);
	if (!check_enum(field, (int)r->target, av_target_names, cause) ||
	    !check_enum(field, (int)r->optimizer, av_optimizer_names, cause) ||
	    !check_enum(field, (int)r->params, av_train_set_names, cause))
		return false;
	if (!isfinite(r->lr) || r->lr <= 0)
		return av_fail(cause, _("%s: lr is not a positive finite number"), field);
	return check_step(field, i, r->at, prev_at, cause);
}

/* The settings a run trained under: the config's own bounds, and a source
 * in cross mode. */
static bool check_run_under(const struct av_snap_training *t, char **cause)
{
	int keys;

	if (!check_attention("training ", t->mode, t->scale, t->temperature, cause))
		return false;
	if (t->mode == AV_MODE_CROSS && !t->has_source)
		return av_fail(cause, _("training source: cross mode needs one"));
	if (t->has_source && !check_text("training source", true, t->source, &keys, cause))
		return false;
	if (!t->has_source && t->source[0] != '\0')
		return av_fail(cause, _("training source: text without a source"));
	return true;
}

static bool check_track(const struct av_snap_track *k, int i, long prev_at, char **cause)
{
	char field[32];

	snprintf(field, sizeof field, "track %d", i);
	if (!check_name(field, k->pair[0], true, cause) || !check_name(field, k->pair[1], true, cause))
		return false;
	if ((k->pair[0][0] == '\0') != (k->pair[1][0] == '\0'))
		return av_fail(cause, _("%s: one word of a pair"), field);
	return check_step(field, i, k->at, prev_at, cause);
}

/* A recipe's or track's step travels as a JSON number (a double), exact
 * to 2^53, and the decoder reads it so (wire.c). */
_Static_assert(AV_SNAP_MAX_AT <= (1LL << 53), "a run's last step is a JSON number exactly");

static bool check_training(const struct av_snap_training *t, char **cause)
{
	if (!check_enum("training init", (int)t->init, av_init_names, cause) ||
	    !check_run_under(t, cause))
		return false;
	/* every run the training view lets a teacher train is sent (a student's
	 * W w writes it as a weights file, which reads back to as many) */
	if (t->epochs < 0 || t->epochs > AV_TRAIN_MAX_EPOCHS)
		return av_fail(cause, _("epochs: %d is not in 0..%d"), t->epochs, AV_TRAIN_MAX_EPOCHS);
	if (t->steps < 0 || t->steps > AV_TRAIN_MAX_STEPS)
		return av_fail(cause, _("steps: %d is not in 0..%d"), t->steps, AV_TRAIN_MAX_STEPS);
	if (!t->active && (t->epochs != 0 || t->steps != 0))
		return av_fail(cause, _("epochs: %d without a training run"), t->epochs);
	if (t->n_recipe < 1 || t->n_recipe > AV_SNAP_MAX_RECIPE)
		return av_fail(cause, _("recipe: %d settings, not 1..%d"), t->n_recipe,
			       AV_SNAP_MAX_RECIPE);
	for (int i = 0; i < t->n_recipe; i++)
		if (!check_recipe(&t->recipe[i], i, i > 0 ? t->recipe[i - 1].at : 0, cause))
			return false;
	if (t->n_tracks < 1 || t->n_tracks > AV_SNAP_MAX_TRACKS)
		return av_fail(cause, _("tracks: %d pairs, not 1..%d"), t->n_tracks,
			       AV_SNAP_MAX_TRACKS);
	for (int i = 0; i < t->n_tracks; i++)
		if (!check_track(&t->tracks[i], i, i > 0 ? t->tracks[i - 1].at : 0, cause))
			return false;
	return true;
}

bool av_state_validate(const struct av_state *s, char **cause)
{
	int queries, keys;

	if (!check_name("sample", s->sample, false, cause) ||
	    !check_enum("origin", (int)s->origin, av_snap_origin_names, cause) ||
	    !check_name("weights", s->weights, s->origin != AV_SNAP_FROM_WEIGHTS, cause))
		return false;
	if (s->origin != AV_SNAP_FROM_WEIGHTS && s->weights[0] != '\0')
		return av_fail(cause, _("weights: named, but the parameters come from the sample"));
	if (!check_config(s, cause))
		return false;
	if (!check_text("sentence", false, s->sentence, &queries, cause))
		return false;
	keys = queries;
	if (s->mode == AV_MODE_CROSS && !s->has_source)
		return av_fail(cause, _("source: cross mode needs one"));
	if (s->has_source && !check_text("source", true, s->source, &keys, cause))
		return false;
	if (s->mode != AV_MODE_CROSS)
		keys = queries;
	if (!check_view(s, queries, keys, cause))
		return false;
	if (s->figure < 0 || s->figure > AV_SNAP_MAX_FIGURE)
		return av_fail(cause, _("figure: %d is not in 0..%d"), s->figure, AV_SNAP_MAX_FIGURE);
	if (s->panel < 0 || s->panel > AV_SNAP_MAX_PANEL)
		return av_fail(cause, _("panel: %d is not in 0..%d"), s->panel, AV_SNAP_MAX_PANEL);
	if (s->compare < 0 || s->compare > 2)
		return av_fail(cause, _("compare: %d is not in 0..2"), s->compare);
	if (s->train_mats < 0 || s->train_mats > 3)
		return av_fail(cause, _("train mats: %d is not in 0..3"), s->train_mats);
	if (s->train_sentence < 0 || s->train_sentence >= AV_TRAIN_MAX_SENTENCES)
		return av_fail(cause, _("train sentence: %d is not in 0..%d"), s->train_sentence,
			       AV_TRAIN_MAX_SENTENCES - 1);
	if (!check_name("lesson", s->lesson, true, cause))
		return false;
	if (s->lesson_step < 0 || s->lesson_step > AV_SNAP_MAX_LESSON_STEP)
		return av_fail(cause, _("lesson_step: %d is not in 0..%d"), s->lesson_step,
			       AV_SNAP_MAX_LESSON_STEP);
	if (s->n_before < 0 || s->n_before > AV_SNAP_MAX_RUNS - 1)
		return av_fail(cause, _("before: %d runs, not 0..%d"), s->n_before,
			       AV_SNAP_MAX_RUNS - 1);
	for (int i = 0; i < s->n_before; i++) {
		if (!s->before[i].active)
			return av_fail(cause, _("before: run %d is no run"), i);
		if (!check_training(&s->before[i], cause)) {
			av_cause_prefix(cause, _("before: run %d"), i);
			return false;
		}
	}
	return check_training(&s->training, cause);
}

void av_snap_set_under(struct av_snap_training *t, enum av_mode mode, enum av_scale scale,
		       double temperature, const char *source)
{
	size_t len = source ? strnlen(source, AV_SNAP_TEXT_MAX + 1) : 0;

	t->mode = mode;
	t->scale = scale;
	t->temperature = temperature;
	t->has_source = source != NULL && len <= AV_SNAP_TEXT_MAX;
	if (!t->has_source)
		len = 0;
	memcpy(t->source, t->has_source ? source : "", len);
	t->source[len] = '\0';
}

void av_state_run_under(struct av_snap_training *t, const struct av_state *s)
{
	av_snap_set_under(t, s->mode, s->scale, s->temperature, s->has_source ? s->source : NULL);
}

/* The same settings trained under (the source's bytes only when there is one). */
static bool same_run_under(const struct av_snap_training *x, const struct av_snap_training *y)
{
	return x->mode == y->mode && x->scale == y->scale && x->temperature == y->temperature &&
	       x->has_source == y->has_source && (!x->has_source || strcmp(x->source, y->source) == 0);
}

static bool same_track(const struct av_snap_track *a, const struct av_snap_track *b)
{
	return a->at == b->at && strcmp(a->pair[0], b->pair[0]) == 0 &&
	       strcmp(a->pair[1], b->pair[1]) == 0;
}

static bool same_recipe(const struct av_snap_recipe *a, const struct av_snap_recipe *b)
{
	return a->at == b->at && a->target == b->target && a->optimizer == b->optimizer &&
	       a->params == b->params && a->lr == b->lr && a->reset == b->reset;
}

bool av_state_same_training(const struct av_snap_training *x, const struct av_snap_training *y)
{
	if (x->active != y->active)
		return false;
	if (!x->active)
		return true;
	if (x->init != y->init || x->epochs != y->epochs || x->steps != y->steps ||
	    x->n_recipe != y->n_recipe || x->n_tracks != y->n_tracks || !same_run_under(x, y))
		return false;
	for (int i = 0; i < x->n_recipe; i++)
		if (!same_recipe(&x->recipe[i], &y->recipe[i]))
			return false;
	for (int i = 0; i < x->n_tracks; i++)
		if (!same_track(&x->tracks[i], &y->tracks[i]))
			return false;
	return true;
}

bool av_state_recipe_continues(const struct av_snap_training *prev,
			       const struct av_snap_training *next)
{
	if (!prev->active || !next->active || prev->init != next->init ||
	    !same_run_under(prev, next) || prev->n_recipe > next->n_recipe ||
	    next->epochs < prev->epochs ||
	    (next->epochs == prev->epochs && next->steps < prev->steps))
		return false;
	for (int i = 0; i < prev->n_recipe; i++)
		if (!same_recipe(&prev->recipe[i], &next->recipe[i]))
			return false;
	if (prev->n_tracks > next->n_tracks)
		return false;
	for (int i = 0; i < prev->n_tracks; i++)
		if (!same_track(&prev->tracks[i], &next->tracks[i]))
			return false;
	return true;
}

bool av_state_same(const struct av_state *a, const struct av_state *b)
{
	return strcmp(a->sample, b->sample) == 0 && a->origin == b->origin &&
	       strcmp(a->weights, b->weights) == 0 && a->content_hash == b->content_hash &&
	       strcmp(a->sentence, b->sentence) == 0 && a->has_source == b->has_source &&
	       (!a->has_source || strcmp(a->source, b->source) == 0) &&
	       a->mode == b->mode && a->scale == b->scale && a->temperature == b->temperature &&
	       a->seed == b->seed && a->init == b->init && a->d_model == b->d_model &&
	       a->heads == b->heads && a->stage == b->stage && a->view == b->view &&
	       a->head == b->head && a->query == b->query && a->key == b->key &&
	       a->row == b->row && a->col == b->col &&
	       a->first_row == b->first_row && a->first_col == b->first_col &&
	       a->figure == b->figure && a->panel == b->panel &&
	       a->train_vocab == b->train_vocab && a->train_scores == b->train_scores &&
	       a->train_mats == b->train_mats && a->train_sentence == b->train_sentence &&
	       a->compare == b->compare &&
	       memcmp(a->key_hidden, b->key_hidden, sizeof a->key_hidden) == 0 &&
	       strcmp(a->lesson, b->lesson) == 0 && a->lesson_step == b->lesson_step &&
	       a->lesson_hash == b->lesson_hash &&
	       av_state_same_runs_before(a, b) &&
	       av_state_same_training(&a->training, &b->training);
}

bool av_state_same_runs_before(const struct av_state *a, const struct av_state *b)
{
	if (a->n_before != b->n_before)
		return false;
	for (int i = 0; i < a->n_before; i++)
		if (!av_state_same_training(&a->before[i], &b->before[i]))
			return false;
	return true;
}

/* av_state_where, and _compared with the state its comparison pinned
 * (pin, or NULL: the snapshot's own stage and head name it) */
static void where(const struct av_state *s, const struct av_state *pin, char *out, size_t size)
{
	const struct av_state *named = pin ? pin : s;
	/* the wire's names are the stage titles' msgids: shown translated, as
	 * the header shows them */
	const char *stage = named->stage >= 0 && named->stage < AV_SNAP_STAGE_COUNT
				    ? _(av_snap_stage_names[named->stage]) : "?";
	char lesson[AV_SNAP_NAME_MAX + 32] = "";

	if (size == 0)
		return;
	if (s->lesson[0] != '\0')
		snprintf(lesson, sizeof lesson, _("%s step %d: "), s->lesson, s->lesson_step + 1);
	switch (s->view) {
	case AV_SNAP_VIEW_HEADS:
	case AV_SNAP_VIEW_BARS:
		snprintf(out, size, _("%sall heads, %s"), lesson, stage);
		break;
	case AV_SNAP_VIEW_COMPARE:
		if (named->view == AV_SNAP_VIEW_FIGURES)
			/* TRANSLATORS: where the teacher is: comparing with a
			 * pinned figure */
			snprintf(out, size, _("%scomparing, figure %d"), lesson, named->figure + 1);
		else
			snprintf(out, size, _("%scomparing, %s, head %d"), lesson, stage,
				 named->head);
		break;
	case AV_SNAP_VIEW_TRAIN:
		snprintf(out, size, _("%straining, epoch %d"), lesson,
			 s->training.active ? s->training.epochs : 0);
		break;
	case AV_SNAP_VIEW_FIGURES:
		/* TRANSLATORS: where the teacher is, e.g. "figures, figure 2" */
		snprintf(out, size, _("%sfigures, figure %d"), lesson, s->figure + 1);
		break;
	default:
		snprintf(out, size, _("%s%s, head %d"), lesson, stage, s->head);
		break;
	}
	av_utf8_drop_cut_character(out, size);
}

void av_state_where(const struct av_state *s, char *out, size_t size)
{
	where(s, NULL, out, size);
}

void av_state_where_compared(const struct av_state *s, const struct av_state *pin, char *out,
			     size_t size)
{
	where(s, s->view == AV_SNAP_VIEW_COMPARE ? pin : NULL, out, size);
}
