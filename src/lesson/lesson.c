/* lesson.c: reading and checking lesson files (the format is in lesson.h).
 *
 * Every step is resolved to a complete state and checked at load against
 * the layer and the step's own sentence, so a broken lesson fails on the
 * command line with its step number, never in front of a class. Strings
 * that come from the file are escaped before they go into a message (a
 * lesson may come from anywhere, and a message goes to a terminal). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "i18n.h"
#include "json_read.h"
#include "lesson.h"
#include "rng.h"
#include "stage_list.h"
#include "tokenizer.h"
#include "trace_json.h"
#include "train.h"
#include "utf8.h"
#include "util.h"
#include "weights.h"

const char *const av_lang_names[] = { "en", "zh_CN", NULL };
const char *const av_lesson_view_names[] = {
	"stepper", "heads", "bars", "figures", "training", NULL
};
const char *const av_ask_names[] = { "argmax_key", "argmin_key", "argmax_query", NULL };

static const char *const stage_names[] = {
#define AV_LESSON_STAGE_NAME(name, title, purpose) title,
	AV_STAGES(AV_LESSON_STAGE_NAME)
#undef AV_LESSON_STAGE_NAME
	NULL
};
static const int figure_count = AV_FIG_COUNT;

static const char *const lesson_keys[] = {
	"name", "title", "sample", "weights", "steps", "comment", NULL
};
static const char *const step_keys[] = {
	"title", "caption", "set", "train", "highlight", "question", "comment", NULL
};
static const char *const set_keys[] = {
	"sentence", "source", "mode", "stage", "view", "figure", "head", "cursor",
	"hidden", "scale", "temperature", "seed", "init", NULL
};
static const char *const train_keys[] = {
	"epochs", "steps", "target", "optimizer", "lr", NULL
};
static const char *const question_keys[] = {
	"ask", "head", "stage", "query", "key", "word", NULL
};

/* --- messages */

/* Unknown keys named with escaping, then av_json_check_keys for repeats. */
static bool check_keys(const cJSON *obj, const char *where, const char *const allowed[],
		       char **cause)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, obj) {
		int idx;
		if (av_enum_parse(allowed, item->string ? item->string : "", &idx))
			continue;
		char *k = av_escape(item->string ? item->string : "");
		char *list = av_enum_list(allowed);
		if (where)
			av_fail(cause, _("\"%s\": unknown key \"%s\" (allowed: %s)"), where, k, list);
		else
			av_fail(cause, _("unknown key \"%s\" (allowed: %s)"), k, list);
		free(k);
		free(list);
		return false;
	}
	return av_json_check_keys(obj, where, allowed, cause);
}

/* An enum given by name, the bad value escaped. */
static bool get_enum(const cJSON *obj, const char *where, const char *key,
		     const char *const names[], int *out, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!item)
		return true;
	char *allowed = av_enum_list(names);
	bool ok = false;
	if (!cJSON_IsString(item)) {
		av_fail(cause, _("\"%s\".\"%s\": expected one of %s, got %s"), where, key,
			allowed, av_json_type_name(item));
	} else if (!av_enum_parse(names, item->valuestring, out)) {
		char *v = av_escape(item->valuestring);
		av_fail(cause, _("\"%s\".\"%s\": unknown value \"%s\" (allowed: %s)"), where,
			key, v, allowed);
		free(v);
	} else {
		ok = true;
	}
	free(allowed);
	return ok;
}

static bool get_int(const cJSON *obj, const char *where, const char *key,
		    long long min, long long max, int *out, char **cause)
{
	long long v = *out;
	if (!av_json_get_int(obj, where, key, false, min, max, &v, cause))
		return false;
	*out = (int)v;
	return true;
}

/* --- texts */

/* A title, a name or (paragraph) a caption's paragraph: one line of
 * UTF-8, at most max_width columns. A line break in a paragraph is what a
 * teacher writes who wants a new paragraph: the message says how (strict
 * JSON has just told them to write \n, which lands here). */
static bool check_text(const char *s, const char *path, int max_width, bool paragraph,
		       char **cause)
{
	size_t bad;
	if (!av_utf8_valid(s, strlen(s), &bad))
		return av_fail(cause, _("%s: invalid UTF-8 at byte %zu"), path, bad);
	if (!*s)
		return av_fail(cause, _("%s: must not be empty"), path);
	for (const char *c = s; *c; c++) {
		if (paragraph && (*c == '\n' || *c == '\r'))
			return av_fail(cause, _("%s: a line break at byte %td: a paragraph is "
				       "one line, which the pane wraps; a new paragraph is the "
				       "next string of the list"), path, c - s);
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return av_fail(cause, _("%s: control character at byte %td (a "
				       "paragraph is one line; wrapping is the pane's)"),
				       path, c - s);
	}
	int w = av_utf8_width(s);
	if (w > max_width)
		return av_fail(cause, _("%s: %d columns long, at most %d fit"), path, w,
			       max_width);
	return true;
}

/* {"en": "...", "zh_CN": "..."}: both languages are required. */
static bool get_titles(const cJSON *obj, const char *where, const char *key,
		       char *out[AV_LANG_COUNT], char **cause)
{
	const cJSON *t;
	if (!av_json_get_object(obj, where, key, true, &t, cause))
		return false;
	char *path = where ? av_printf("%s\".\"%s", where, key) : av_strdup(key);
	bool ok = check_keys(t, path, av_lang_names, cause);
	for (int lang = 0; ok && lang < AV_LANG_COUNT; lang++) {
		const char *s = NULL;
		char *p = av_printf("\"%s\".\"%s\"", path, av_lang_names[lang]);
		ok = av_json_get_string(t, path, av_lang_names[lang], true, &s, cause)
			&& check_text(s, p, AV_LESSON_MAX_TITLE_WIDTH, false, cause);
		free(p);
		if (ok)
			out[lang] = av_strdup(s);
	}
	free(path);
	return ok;
}

static bool get_paragraphs(const cJSON *item, const char *path, struct av_lesson_text *text,
			   char **cause)
{
	if (!cJSON_IsArray(item))
		return av_fail(cause, _("%s: expected a list of paragraphs (strings), got %s"),
			       path, av_json_type_name(item));
	int n = cJSON_GetArraySize(item);
	if (n < 1 || n > AV_LESSON_MAX_PARAGRAPHS)
		return av_fail(cause, _("%s: expected 1 to %d paragraphs, got %d"), path,
			       AV_LESSON_MAX_PARAGRAPHS, n);
	text->paragraphs = av_calloc((size_t)n, sizeof *text->paragraphs);
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		char *p = av_printf(_("%s, paragraph %d"), path, text->n_paragraphs + 1);
		bool ok = cJSON_IsString(e)
			? check_text(e->valuestring, p, AV_LESSON_MAX_PARAGRAPH_WIDTH, true, cause)
			: av_fail(cause, _("%s: expected a string, got %s"), p,
				  av_json_type_name(e));
		free(p);
		if (!ok)
			return false;
		text->paragraphs[text->n_paragraphs++] = av_strdup(e->valuestring);
	}
	return true;
}

static bool get_caption(const cJSON *step, struct av_lesson_step *st, char **cause)
{
	const cJSON *c;
	if (!av_json_get_object(step, NULL, "caption", true, &c, cause)
	    || !check_keys(c, "caption", av_lang_names, cause))
		return false;
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		const cJSON *item = cJSON_GetObjectItemCaseSensitive(c, av_lang_names[lang]);
		char *path = av_printf("\"caption\".\"%s\"", av_lang_names[lang]);
		bool ok = item ? get_paragraphs(item, path, &st->text[lang], cause)
			: av_fail(cause, _("missing %s"), path);
		free(path);
		if (!ok)
			return false;
	}
	return true;
}

/* --- the state */

/* Token counts of the state's sentences: n queries, m keys. */
static bool count_tokens(const struct av_lesson_state *s, int *n, int *m, char **cause)
{
	struct av_tokens t = { 0 };
	/* its causes say "the sentence" (UTF-8 was checked where it was read):
	 * a prefix would say it twice */
	if (!av_tokenize(s->sentence, &t, cause))
		return false;
	*n = t.n;
	av_tokens_free(&t);
	*m = *n;
	if (s->mode != AV_MODE_CROSS)
		return true;
	if (!s->source)
		return av_fail(cause, _("cross mode needs a \"source\" sentence"));
	if (!av_tokenize_source(s->source, &t, cause))
		return false;
	*m = t.n;
	av_tokens_free(&t);
	return true;
}

static bool get_sentence(const cJSON *set, const char *key, char **field, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(set, key);
	if (!item)
		return true;
	if (cJSON_IsNull(item) && strcmp(key, "source") == 0) {
		free(*field);
		*field = NULL;
		return true;
	}
	const char *s = NULL;
	if (!av_json_get_string(set, "set", key, true, &s, cause))
		return false;
	struct av_tokens t = { 0 };
	bool source = strcmp(key, "source") == 0;
	if (!(source ? av_tokenize_source : av_tokenize)(s, &t, cause)) {
		av_cause_prefix(cause, _("\"set\".\"%s\""), key);
		return false;
	}
	av_tokens_free(&t);
	free(*field);
	*field = av_strdup(s);
	return true;
}

/* A list of n whole numbers in 0..max-1 (for the message, what they are). */
static bool get_positions(const cJSON *item, const char *path, int n_want, int *out,
			  int *n_out, int max_n, char **cause)
{
	if (!cJSON_IsArray(item))
		return av_fail(cause, _("%s: expected a list of positions, got %s"), path,
			       av_json_type_name(item));
	int n = cJSON_GetArraySize(item);
	if ((n_want >= 0 && n != n_want) || n > max_n)
		return n_want >= 0
			? av_fail(cause, _("%s: expected %d positions, got %d"), path, n_want, n)
			: av_fail(cause, _("%s: at most %d positions, got %d"), path, max_n, n);
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		double v = cJSON_IsNumber(e) ? e->valuedouble : -1;
		if (!cJSON_IsNumber(e) || v != floor(v) || v < 0 || v >= AV_MAX_TOKENS)
			return av_fail(cause, _("%s, item %d: expected a position from 0 to %d"),
				       path, i + 1, AV_MAX_TOKENS - 1);
		out[i++] = (int)v;
	}
	if (n_out)
		*n_out = n;
	return true;
}

static void reset_cell(struct av_lesson_state *s)
{
	s->query = s->key = 0;
	memset(s->hidden, 0, sizeof s->hidden);
}

static bool read_set_text(const cJSON *set, struct av_lesson_state *s, char **cause)
{
	int mode = (int)s->mode;
	bool changed = cJSON_GetObjectItemCaseSensitive(set, "sentence")
		|| cJSON_GetObjectItemCaseSensitive(set, "source")
		|| cJSON_GetObjectItemCaseSensitive(set, "mode");
	if (!get_sentence(set, "sentence", &s->sentence, cause)
	    || !get_sentence(set, "source", &s->source, cause)
	    || !get_enum(set, "set", "mode", av_mode_names, &mode, cause))
		return false;
	s->mode = (enum av_mode)mode;
	if (changed)
		reset_cell(s);
	return true;
}

static bool read_set_numbers(const cJSON *set, struct av_lesson_state *s, char **cause)
{
	int view = (int)s->view, scale = (int)s->scale, init = (int)s->init;
	int figure = s->figure + 1;
	uint64_t seed = s->seed;
	bool ok = get_enum(set, "set", "stage", stage_names, &s->stage, cause)
		&& get_enum(set, "set", "view", av_lesson_view_names, &view, cause)
		&& get_int(set, "set", "figure", 1, figure_count, &figure, cause)
		&& get_int(set, "set", "head", 0, AV_MAX_D_MODEL - 1, &s->head, cause)
		&& get_enum(set, "set", "scale", av_scale_names, &scale, cause)
		&& av_json_get_double(set, "set", "temperature", false, &s->temperature, cause)
		&& get_enum(set, "set", "init", av_init_names, &init, cause);
	if (!ok)
		return false;
	long long sv = (long long)s->seed;
	if (!av_json_get_int(set, "set", "seed", false, 0, (long long)AV_MAX_SEED, &sv, cause))
		return false;
	seed = (uint64_t)sv;
	if (s->temperature < AV_MIN_TEMPERATURE || s->temperature > AV_MAX_TEMPERATURE)
		return av_fail(cause, _("\"set\".\"temperature\": expected a number from %g "
			       "to %g, got %g"), AV_MIN_TEMPERATURE, AV_MAX_TEMPERATURE,
			       s->temperature);
	bool new_weights = seed != s->seed || init != (int)s->init;
	s->view = (enum av_lesson_view)view;
	s->figure = figure - 1;
	s->scale = (enum av_scale)scale;
	s->init = (enum av_init)init;
	s->seed = seed;
	if (new_weights)
		s->train.epochs = s->train.steps = 0;
	return true;
}

static bool read_set_cells(const cJSON *set, struct av_lesson_state *s, char **cause)
{
	const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(set, "cursor");
	const cJSON *hidden = cJSON_GetObjectItemCaseSensitive(set, "hidden");
	if (cursor) {
		int cell[2];
		if (!get_positions(cursor, "\"set\".\"cursor\"", 2, cell, NULL, 2, cause))
			return false;
		s->query = cell[0];
		s->key = cell[1];
	}
	if (hidden) {
		int keys[AV_MAX_TOKENS], n;
		if (!get_positions(hidden, "\"set\".\"hidden\"", -1, keys, &n, AV_MAX_TOKENS,
				   cause))
			return false;
		memset(s->hidden, 0, sizeof s->hidden);
		for (int i = 0; i < n; i++)
			s->hidden[keys[i]] = true;
	}
	return true;
}

static bool read_set(const cJSON *step, struct av_lesson_state *s, char **cause)
{
	const cJSON *set;
	if (!av_json_get_object(step, NULL, "set", false, &set, cause))
		return false;
	if (!set)
		return true;
	return check_keys(set, "set", set_keys, cause)
		&& read_set_text(set, s, cause)
		&& read_set_numbers(set, s, cause)
		&& read_set_cells(set, s, cause);
}

/* The training runs under the settings of the step that declares it (its
 * "set" is read first), and the steps after it keep those weights whatever
 * they set: a caption that says "scaling off, compare" compares the same
 * weights scaled two ways. */
static void record_training_settings(struct av_lesson_state *s)
{
	struct av_lesson_train *t = &s->train;
	t->mode = s->mode;
	t->scale = s->scale;
	t->temperature = s->temperature;
	free(t->source);
	t->source = s->source ? av_strdup(s->source) : NULL;
}

/* A lesson's trained weights, written with W w, must read back (weights.c
 * refuses more epochs than a run trains). */
_Static_assert(AV_LESSON_MAX_EPOCHS <= AV_TRAIN_MAX_EPOCHS,
	       "a lesson's run is no longer than a run can be");

static bool read_train(const cJSON *step, struct av_lesson_state *s, char **cause)
{
	const cJSON *tr;
	if (!av_json_get_object(step, NULL, "train", false, &tr, cause))
		return false;
	if (!tr)
		return true;
	struct av_lesson_train *t = &s->train;
	int target = (int)t->target, optimizer = (int)t->optimizer;
	t->epochs = t->steps = 0;
	if (!check_keys(tr, "train", train_keys, cause)
	    || !get_int(tr, "train", "epochs", 0, AV_LESSON_MAX_EPOCHS, &t->epochs, cause)
	    || !get_int(tr, "train", "steps", 0, AV_LESSON_MAX_EPOCHS, &t->steps, cause)
	    || !get_enum(tr, "train", "target", av_target_names, &target, cause)
	    || !get_enum(tr, "train", "optimizer", av_optimizer_names, &optimizer, cause)
	    || !av_json_get_double(tr, "train", "lr", false, &t->lr, cause))
		return false;
	if (!(t->lr > 0))
		return av_fail(cause, _("\"train\".\"lr\": expected a positive number, got %g"),
			       t->lr);
	t->target = (enum av_target)target;
	t->optimizer = (enum av_optimizer)optimizer;
	record_training_settings(s);
	return true;
}

/* --- checking a state against the layer and its sentence */

static bool check_cell(const char *path, int q, int k, int n, int m, char **cause)
{
	if (q >= n || k >= m)
		return av_fail(cause, _("%s: cell (%d, %d) is off the %dx%d matrix (queries "
			       "0 to %d, keys 0 to %d)"), path, q, k, n, m, n - 1, m - 1);
	return true;
}

static bool same_source(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* The training view trains under the screen's settings, so a step that
 * shows it must have the settings its training ran under: otherwise the
 * view would show another run than the weights the next steps keep. */
static bool check_training_view(const struct av_lesson_state *s, char **cause)
{
	const struct av_lesson_train *t = &s->train;
	if (s->view != AV_LVIEW_TRAINING || t->epochs + t->steps == 0)
		return true;
	if (s->mode != t->mode || s->scale != t->scale || s->temperature != t->temperature
	    || (s->mode == AV_MODE_CROSS && !same_source(s->source, t->source)))
		return av_fail(cause, _("\"set\".\"view\": training shows the training run, "
			       "which ran under another mode, scale, temperature or source "
			       "than this step's; train again in this step"));
	return true;
}

static bool check_state(const struct av_lesson *l, const struct av_lesson_state *s,
			char **cause)
{
	int n, m;
	if (!count_tokens(s, &n, &m, cause))
		return false;
	if (l->cfg.positional == AV_POS_LEARNED && n > l->cfg.max_positions)
		return av_fail(cause, _("the sentence has %d tokens, the learned positions "
			       "only %d"), n, l->cfg.max_positions);
	if (s->head >= l->cfg.heads)
		return av_fail(cause, _("\"set\".\"head\": head %d, but the layer has %d "
			       "(0 to %d)"), s->head, l->cfg.heads, l->cfg.heads - 1);
	if (!check_cell("\"set\".\"cursor\"", s->query, s->key, n, m, cause))
		return false;
	for (int j = m; j < AV_MAX_TOKENS; j++) {
		if (s->hidden[j])
			return av_fail(cause, _("\"set\".\"hidden\": key %d, but the keys are "
				       "0 to %d"), j, m - 1);
	}
	if (s->train.target == AV_TARGET_PAIRS && s->train.epochs + s->train.steps > 0
	    && l->sample.training.n_pairs == 0)
		return av_fail(cause, _("\"train\".\"target\": pairs, but the sample has no "
			       "\"training\".\"pairs\""));
	return check_training_view(s, cause);
}

static bool read_highlight(const cJSON *step, const struct av_lesson *l,
			   struct av_lesson_step *st, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(step, "highlight");
	if (!item)
		return true;
	if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) > AV_LESSON_MAX_HIGHLIGHTS)
		return av_fail(cause, _("\"highlight\": expected a list of at most %d cells "
			       "[query, key], got %s"), AV_LESSON_MAX_HIGHLIGHTS,
			       cJSON_IsArray(item) ? _("more") : av_json_type_name(item));
	int n, m;
	if (!count_tokens(&st->state, &n, &m, cause))
		return false;
	(void)l;
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		char *path = av_printf(_("\"highlight\", item %d"), st->n_highlight + 1);
		int *cell = st->highlight[st->n_highlight];
		bool ok = get_positions(e, path, 2, cell, NULL, 2, cause)
			&& check_cell(path, cell[0], cell[1], n, m, cause);
		free(path);
		if (!ok)
			return false;
		st->n_highlight++;
	}
	return true;
}

/* The position of word among tokens (lower-cased as the tokenizer does), or -1. */
static int find_word(const char *sentence, const char *word)
{
	struct av_tokens t = { 0 }, w = { 0 };
	if (!av_tokenize(sentence, &t, NULL))
		return -1;
	int pos = -1;
	if (av_tokenize(word, &w, NULL) && w.n == 1) {
		for (int i = 0; i < t.n && pos < 0; i++) {
			if (strcmp(t.text[i], w.text[0]) == 0)
				pos = i;
		}
	}
	av_tokens_free(&t);
	av_tokens_free(&w);
	return pos;
}

/* Whether the step's own state leaves a cell of the asked line to pick:
 * the row of query fixed (or the column of key fixed for argmax_query)
 * with every key hidden, or masked by the causal mask, could never be
 * answered, and the student would only ever read "every cell of that row
 * is hidden now". Said at load, as the mask the engine builds. */
static bool line_has_visible_cell(const struct av_lesson_state *s, bool by_key, int fixed,
				  int n, int m)
{
	int count = by_key ? n : m;
	for (int i = 0; i < count; i++) {
		int query = by_key ? i : fixed, key = by_key ? fixed : i;
		if (!s->hidden[key] && !(s->mode == AV_MODE_CAUSAL && key > query))
			return true;
	}
	return false;
}

static bool check_answerable(const struct av_lesson_state *s, bool by_key, int fixed,
			     int n, int m, char **cause)
{
	if (line_has_visible_cell(s, by_key, fixed, n, m))
		return true;
	return av_fail(cause, by_key
		       ? _("\"question\": every cell of column %d is hidden in this step "
			   "(\"hidden\", the mask), so no answer can be right")
		       : _("\"question\": every key of row %d is hidden in this step "
			   "(\"hidden\", the mask), so no answer can be right"), fixed);
}

static bool question_where(const cJSON *qo, const struct av_lesson_state *s,
			   struct av_lesson_question *q, char **cause)
{
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	const char *pos_key = by_key ? "key" : "query";
	const char *other = by_key ? "query" : "key";
	if (cJSON_GetObjectItemCaseSensitive(qo, other))
		return av_fail(cause, _("\"question\".\"%s\": not used by %s (give \"%s\" "
			       "or \"word\")"), other, av_ask_names[q->ask], pos_key);
	const cJSON *word = cJSON_GetObjectItemCaseSensitive(qo, "word");
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(qo, pos_key);
	if (!!word == !!pos)
		return av_fail(cause, _("\"question\": give either \"%s\" (a position) or "
			       "\"word\""), pos_key);
	int n, m;
	if (!count_tokens(s, &n, &m, cause))
		return false;
	if (pos) {
		if (!get_int(qo, "question", pos_key, 0, (by_key ? m : n) - 1, &q->pos, cause))
			return false;
		return check_answerable(s, by_key, q->pos, n, m, cause);
	}
	const char *w = NULL;
	if (!av_json_get_string(qo, "question", "word", true, &w, cause))
		return false;
	const char *sentence = by_key && s->mode == AV_MODE_CROSS ? s->source : s->sentence;
	int first = find_word(sentence, w);
	if (first < 0) {
		char *e = av_escape(w);
		av_fail(cause, _("\"question\".\"word\": \"%s\" is not a word of the step's "
			"%s"), e, by_key && s->mode == AV_MODE_CROSS ? _("source") : _("sentence"));
		free(e);
		return false;
	}
	q->word = av_strdup(w);
	/* the live answer is the word's first line (av_lesson_answer) */
	return check_answerable(s, by_key, first, n, m, cause);
}

static bool read_question(const cJSON *step, const struct av_lesson *l,
			  struct av_lesson_step *st, char **cause)
{
	const cJSON *qo;
	if (!av_json_get_object(step, NULL, "question", false, &qo, cause))
		return false;
	if (!qo)
		return true;
	struct av_lesson_question *q = &st->question;
	int ask = -1;
	q->head = st->state.head;
	q->stage = AV_STAGE_SOFTMAX;
	q->pos = -1;
	if (!check_keys(qo, "question", question_keys, cause)
	    || !av_json_get_string(qo, "question", "ask", true, &(const char *){ NULL }, cause)
	    || !get_enum(qo, "question", "ask", av_ask_names, &ask, cause)
	    || !get_enum(qo, "question", "stage", stage_names, &q->stage, cause)
	    || !get_int(qo, "question", "head", 0, AV_MAX_D_MODEL - 1, &q->head, cause))
		return false;
	q->ask = (enum av_ask)ask;
	if (q->stage < AV_STAGE_SCORES || q->stage > AV_STAGE_SOFTMAX)
		return av_fail(cause, _("\"question\".\"stage\": a question asks about "
			       "scores, scaled, masked or softmax, not %s"),
			       stage_names[q->stage]);
	if (q->head >= l->cfg.heads)
		return av_fail(cause, _("\"question\".\"head\": head %d, but the layer has %d "
			       "(0 to %d)"), q->head, l->cfg.heads, l->cfg.heads - 1);
	st->has_question = true;
	return question_where(qo, &st->state, q, cause);
}

/* --- steps */

static void state_copy(struct av_lesson_state *dst, const struct av_lesson_state *src)
{
	*dst = *src;
	dst->sentence = av_strdup(src->sentence);
	dst->source = src->source ? av_strdup(src->source) : NULL;
	dst->train.source = src->train.source ? av_strdup(src->train.source) : NULL;
}

static void state_free(struct av_lesson_state *s)
{
	free(s->sentence);
	free(s->source);
	free(s->train.source);
}

/* The state before the first step: the sample's, as attnview starts. */
static void first_state(const struct av_lesson *l, struct av_lesson_state *s)
{
	memset(s, 0, sizeof *s);
	s->sentence = av_strdup(l->sample.sentence);
	s->source = l->sample.source ? av_strdup(l->sample.source) : NULL;
	s->mode = l->cfg.mode;
	s->stage = AV_STAGE_TOKENS;
	s->view = AV_LVIEW_STEPPER;
	s->scale = l->cfg.scale;
	s->temperature = l->cfg.temperature;
	s->seed = l->cfg.seed;
	s->init = l->cfg.init;
	s->train.lr = l->sample.training.lr;
	s->train.optimizer = l->sample.training.optimizer;
	s->train.target = l->sample.training.target;
	record_training_settings(s);
}

static bool read_step(const cJSON *step, const struct av_lesson *l,
		      struct av_lesson_step *st, char **cause)
{
	if (!cJSON_IsObject(step))
		return av_fail(cause, _("expected an object, got %s"), av_json_type_name(step));
	char *title[AV_LANG_COUNT] = { NULL };
	bool ok = check_keys(step, NULL, step_keys, cause)
		&& get_titles(step, NULL, "title", title, cause);
	for (int lang = 0; lang < AV_LANG_COUNT; lang++)
		st->text[lang].title = title[lang];
	return ok && get_caption(step, st, cause)
		&& read_set(step, &st->state, cause)
		&& read_train(step, &st->state, cause)
		&& check_state(l, &st->state, cause)
		&& read_highlight(step, l, st, cause)
		&& read_question(step, l, st, cause);
}

static bool read_steps(const cJSON *root, struct av_lesson *l, char **cause)
{
	const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
	if (!steps)
		return av_fail(cause, _("missing \"steps\""));
	if (!cJSON_IsArray(steps))
		return av_fail(cause, _("\"steps\": expected a list, got %s"),
			       av_json_type_name(steps));
	int n = cJSON_GetArraySize(steps);
	if (n < 1 || n > AV_LESSON_MAX_STEPS)
		return av_fail(cause, _("\"steps\": expected 1 to %d steps, got %d"),
			       AV_LESSON_MAX_STEPS, n);
	l->steps = av_calloc((size_t)n, sizeof *l->steps);
	struct av_lesson_state prev;
	first_state(l, &prev);
	const cJSON *step;
	bool ok = true;
	cJSON_ArrayForEach(step, steps) {
		struct av_lesson_step *st = &l->steps[l->n_steps++];
		state_copy(&st->state, &prev);
		if (!read_step(step, l, st, cause)) {
			av_cause_prefix(cause, _("step %d"), l->n_steps);
			ok = false;
			break;
		}
		state_free(&prev);
		state_copy(&prev, &st->state);
	}
	state_free(&prev);
	return ok;
}

/* --- the lesson */

/* The folder of path with a trailing '/', or "" (malloc'd). */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? av_strndup(path, (size_t)(slash - path + 1)) : av_strdup("");
}

/* Whether s is a path rather than a name, as av_data_find tells them. */
static bool names_a_file(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') != NULL || (n >= 5 && strcmp(s + n - 5, ".json") == 0);
}

/* path as the lesson names it: absolute, or in the lesson's folder
 * (malloc'd). */
static char *beside_lesson(const struct av_lesson *l, const char *path)
{
	if (path[0] == '/')
		return av_strdup(path);
	char *dir = folder_of(l->path);
	char *full = av_printf("%s%s", dir, path);
	free(dir);
	return full;
}

static bool read_layer(const cJSON *root, struct av_lesson *l, char **cause)
{
	const char *sample = NULL, *weights = NULL;
	if (!av_json_get_string(root, NULL, "sample", true, &sample, cause)
	    || !av_json_get_string(root, NULL, "weights", false, &weights, cause))
		return false;
	/* a sample's path is in the lesson's folder, as the weights' is: a
	 * lesson beside its sample loaded only when run from that folder */
	char *where = names_a_file(sample) ? beside_lesson(l, sample) : av_strdup(sample);
	bool ok = av_sample_load(where, &l->sample, cause);
	free(where);
	if (!ok) {
		av_cause_prefix(cause, _("\"sample\""));
		return false;
	}
	l->cfg = l->sample.cfg;
	if (!weights)
		return true;
	l->weights = beside_lesson(l, weights);
	struct av_params p = { 0 };
	if (!av_weights_load(l->weights, &l->cfg, NULL, &p, cause)) {
		av_cause_prefix(cause, _("\"weights\""));
		return false;
	}
	av_params_free(&p);
	return true;
}

static bool read_lesson(const cJSON *root, struct av_lesson *l, char **cause)
{
	const char *name = NULL;
	if (!check_keys(root, NULL, lesson_keys, cause)
	    || !av_json_get_string(root, NULL, "name", true, &name, cause))
		return false;
	if (!check_text(name, "\"name\"", AV_LESSON_MAX_TITLE_WIDTH, false, cause))
		return false;
	/* students of --follow look the lesson up by it, as lessons/NAME.json;
	 * "My lesson" ran for its teacher and no student could ever find it */
	if (!av_data_valid_name(name)) {
		char *e = av_escape(name);
		av_fail(cause, _("\"name\": \"%s\" is not a lesson name (only a-z, 0-9, _ and "
			"-; the file is lessons/NAME.json)"), e);
		free(e);
		return false;
	}
	l->name = av_strdup(name);
	return get_titles(root, NULL, "title", l->title, cause)
		&& read_layer(root, l, cause)
		&& read_steps(root, l, cause);
}

bool av_lesson_parse(const char *text, const char *label, struct av_lesson *l,
		     char **cause)
{
	memset(l, 0, sizeof *l);
	if (strlen(text) > AV_LESSON_MAX_BYTES)
		return av_fail(cause, _("%s: larger than %d bytes (a lesson is text)"), label,
			       AV_LESSON_MAX_BYTES);
	cJSON *root = av_json_parse(text, label, AV_JSON_MAX_VALUES(AV_LESSON_MAX_BYTES),
				   _("lessons"), cause);
	if (!root)
		return false;
	l->path = av_strdup(label);
	bool ok = read_lesson(root, l, cause);
	cJSON_Delete(root);
	if (!ok) {
		av_cause_prefix(cause, "%s", label);
		av_lesson_free(l);
	}
	return ok;
}

bool av_lesson_load_file(const char *path, struct av_lesson *l, char **cause)
{
	char *text = NULL;
	memset(l, 0, sizeof *l);
	/* bounded: a huge or endless file is refused without reading it all;
	 * a device or directory is refused as for samples and themes */
	if (!av_read_file_limit(path, AV_LESSON_MAX_BYTES, _("lessons"), &text, NULL, cause))
		return false;
	bool ok = av_lesson_parse(text, path, l, cause);
	if (ok)
		l->text_hash = av_fnv1a_bytes(text, strlen(text), AV_FNV_BASIS);
	free(text);
	return ok;
}

bool av_lesson_load(const char *name_or_path, struct av_lesson *l, char **cause)
{
	char *path;
	memset(l, 0, sizeof *l);
	if (!av_data_find("lessons", _("lesson"), name_or_path, &path, cause))
		return false;
	if (!path)
		return av_data_not_found("lessons", _("lesson"), name_or_path, NULL, cause);
	bool ok = av_lesson_load_file(path, l, cause);
	/* students of --follow look the teacher's lesson up by its "name":
	 * lessons/mine.json named "my-lesson" ran for the teacher, and no
	 * student could find it */
	bool by_name = strcmp(path, name_or_path) != 0;
	if (ok && by_name && strcmp(l->name, name_or_path) != 0) {
		char *e = av_escape(l->name);
		av_fail(cause, _("%s: \"name\" is \"%s\", but the file is found as %s: "
			"make them the same (students look a lesson up by its name)"), path, e,
			name_or_path);
		free(e);
		av_lesson_free(l);
		ok = false;
	}
	free(path);
	return ok;
}

char **av_lesson_list(void)
{
	return av_data_list("lessons", NULL);
}

void av_lesson_free(struct av_lesson *l)
{
	for (int i = 0; l->steps && i < l->n_steps; i++) {
		struct av_lesson_step *st = &l->steps[i];
		for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
			free(st->text[lang].title);
			for (int p = 0; p < st->text[lang].n_paragraphs; p++)
				free(st->text[lang].paragraphs[p]);
			free(st->text[lang].paragraphs);
		}
		state_free(&st->state);
		free(st->question.word);
	}
	free(l->steps);
	for (int lang = 0; lang < AV_LANG_COUNT; lang++)
		free(l->title[lang]);
	free(l->path);
	free(l->name);
	free(l->weights);
	av_sample_free(&l->sample);
	memset(l, 0, sizeof *l);
}

/* --- a step's state in a session */

bool av_lesson_session_new(const struct av_lesson *l, struct av_session *s, char **cause)
{
	memset(s, 0, sizeof *s);
	if (!av_sample_load_file(l->sample.path, &s->sample, cause))
		return false;
	s->cfg = s->sample.cfg;
	if (l->weights) {
		if (!av_weights_load(l->weights, &s->cfg, NULL, &s->params, cause))
			return false;
		s->from_weights = true;
	} else {
		av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
			       s->sample.n_vocab);
	}
	av_session_start(s);
	s->sentence = av_strdup(s->sample.sentence);
	s->source = s->sample.source ? av_strdup(s->sample.source) : NULL;
	return av_session_run(s, cause);
}

/* The untrained weights of st's seed and init: the lesson's weights file
 * when they are the file's, else drawn afresh (as av_session_reinit). */
static bool fresh_params(const struct av_lesson *l, const struct av_lesson_state *st,
			 struct av_session *s, char **cause)
{
	struct av_params p = { 0 };
	struct av_config cfg = s->cfg;
	if (l->weights && st->seed == l->cfg.seed && st->init == l->cfg.init) {
		if (!av_weights_load(l->weights, &cfg, NULL, &p, cause))
			return false;
	} else {
		av_params_init(&p, &s->cfg, (const char *const *)s->sample.vocab,
			       s->sample.n_vocab);
	}
	av_params_free(&s->params);
	s->params = p;
	s->from_weights = l->weights && st->seed == l->cfg.seed && st->init == l->cfg.init;
	av_session_start(s);
	return true;
}

/* Trains s's fresh weights as st->train says, under the settings recorded
 * with it (not st's own: a later step may show them scaled otherwise). */
static bool train_params(const struct av_lesson_state *st, struct av_session *s, char **cause)
{
	const struct av_lesson_train *t = &st->train;
	if (t->epochs + t->steps == 0)
		return true;
	struct av_train_settings set = {
		.lr = t->lr, .optimizer = t->optimizer, .target = t->target,
		.params = AV_TRAIN_QKV,
	};
	/* the trainer only reads the session it starts from: a copy with the
	 * training's settings, the session itself left as it is */
	struct av_session as_trained = *s;
	as_trained.cfg.mode = t->mode;
	as_trained.cfg.scale = t->scale;
	as_trained.cfg.temperature = t->temperature;
	as_trained.source = t->source;
	struct av_trainer *tr = av_trainer_new(&as_trained, &set, cause);
	if (!tr)
		return false;
	for (int e = 0; e < t->epochs; e++)
		av_trainer_epoch(tr);
	for (int i = 0; i < t->steps; i++)
		av_trainer_step(tr);
	av_params_free(&s->params);
	av_params_copy(&s->params, &tr->params);
	av_trainer_free(tr);
	return true;
}

bool av_lesson_apply(const struct av_lesson *l, const struct av_lesson_state *st,
		     struct av_session *s, char **cause)
{
	s->cfg.mode = st->mode;
	s->cfg.scale = st->scale;
	s->cfg.temperature = st->temperature;
	s->cfg.seed = st->seed;
	s->cfg.init = st->init;
	free(s->sentence);
	s->sentence = av_strdup(st->sentence);
	free(s->source);
	s->source = st->source ? av_strdup(st->source) : NULL;
	memcpy(s->key_hidden, st->hidden, sizeof s->key_hidden);
	/* the trainer starts from the session's weights (fresh ones of the
	 * step's seed and init, so those come first) under the training's
	 * own settings; the trace is then run with the step's */
	return fresh_params(l, st, s, cause)
		&& train_params(st, s, cause)
		&& av_session_run(s, cause);
}

bool av_lesson_training_record(const struct av_lesson_state *st, struct av_training_record *r)
{
	const struct av_lesson_train *t = &st->train;
	if (t->epochs + t->steps == 0)
		return false;
	*r = av_training_record_of(t->epochs, t->steps, t->lr, (int)t->optimizer, (int)t->target);
	return true;
}

/* --- questions against the live numbers */

/* The (n, m) block of stage st for head h. */
static const float *stage_block(const struct av_trace *t, int st, int h)
{
	const float *base = st == AV_STAGE_SCORES ? t->scores
		: st == AV_STAGE_SCALED ? t->scaled
		: st == AV_STAGE_MASKED ? t->masked : t->weights;
	return base + (size_t)h * (size_t)t->n * (size_t)t->m;
}

static int live_position(const struct av_lesson_question *q, const struct av_tokens *tokens,
			 int count, char **explain)
{
	if (q->word) {
		for (int i = 0; i < tokens->n; i++) {
			if (strcmp(tokens->text[i], q->word) == 0)
				return i;
		}
		char *e = av_escape(q->word);
		av_fail(explain, _("\"%s\" is not in the sentence now"), e);
		free(e);
		return -1;
	}
	if (q->pos >= count) {
		av_fail(explain, _("the sentence has no position %d now"), q->pos);
		return -1;
	}
	return q->pos;
}

/* The tokens along the asked line: the query's row (argmax_key, argmin_key)
 * or the key's column (argmax_query: the source's in cross mode). */
static const struct av_tokens *asked_tokens(const struct av_lesson_question *q,
					    const struct av_trace *t)
{
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	return by_key && t->source_tokens.n > 0 ? &t->source_tokens : &t->tokens;
}

/* The best key of row fixed (or query of column fixed) among visible
 * cells, or -1 and *explain when every cell of it is hidden. */
static int line_answer(const struct av_lesson_question *q, const struct av_trace *t, int fixed,
		       char **explain)
{
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	const float *block = stage_block(t, q->stage, q->head);
	int count = by_key ? t->n : t->m, best = -1;
	for (int i = 0; i < count; i++) {
		int r = by_key ? i : fixed, c = by_key ? fixed : i;
		if (!t->mask[(size_t)r * (size_t)t->m + (size_t)c])
			continue;
		float v = block[(size_t)r * (size_t)t->m + (size_t)c];
		float b = best < 0 ? 0 : (by_key ? block[(size_t)best * (size_t)t->m + (size_t)c]
					  : block[(size_t)r * (size_t)t->m + (size_t)best]);
		if (best < 0 || (q->ask == AV_ASK_ARGMIN_KEY ? v < b : v > b))
			best = i;
	}
	if (best < 0)
		av_fail(explain, "%s", by_key ? _("every cell of that column is hidden now")
			: _("every cell of that row is hidden now"));
	return best;
}

int av_lesson_answer(const struct av_lesson_question *q, const struct av_trace *t,
		     char **explain)
{
	if (q->head >= t->heads) {
		av_fail(explain, _("the layer has no head %d now"), q->head);
		return -1;
	}
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	int fixed = live_position(q, asked_tokens(q, t), by_key ? t->m : t->n, explain);
	return fixed < 0 ? -1 : line_answer(q, t, fixed, explain);
}

/* The value the student picked equals the best one: ties are right too. */
static bool same_value(const struct av_lesson_question *q, const struct av_trace *t,
		       int fixed, int a, int b)
{
	const float *block = stage_block(t, q->stage, q->head);
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	size_t ia = by_key ? (size_t)a * (size_t)t->m + (size_t)fixed
		: (size_t)fixed * (size_t)t->m + (size_t)a;
	size_t ib = by_key ? (size_t)b * (size_t)t->m + (size_t)fixed
		: (size_t)fixed * (size_t)t->m + (size_t)b;
	return t->mask[ia] && block[ia] == block[ib];
}

/* Whether line i (a row or a column) is one the question asks about: the
 * asked position, or any position of the asked word, since a student who
 * repeats the word in the sentence sees the same word on each of them. */
static bool asked_line(const struct av_lesson_question *q, const struct av_tokens *tokens,
		       int fixed, int i)
{
	if (!q->word)
		return i == fixed;
	return i >= 0 && i < tokens->n && strcmp(tokens->text[i], q->word) == 0;
}

/* "2, 5": the positions of the asked word; returns how many there are. */
static int word_lines(const struct av_lesson_question *q, const struct av_tokens *tokens,
		      char *buf, size_t size)
{
	int count = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < tokens->n; i++) {
		if (!asked_line(q, tokens, -1, i))
			continue;
		int k = snprintf(buf + used, size - used, count ? ", %d" : "%d", i);
		if (k > 0 && (size_t)k < size - used)
			used += (size_t)k;
		count++;
	}
	return count;
}

/* The question is about one row (argmax_key, argmin_key: the query's) or
 * one column (argmax_query: the key's), or those of its word, and a cursor
 * on another line points at another word's numbers: the same column on the
 * wrong row must not count as the answer. The message names the word and
 * every line it is on. */
static bool cursor_on_asked_line(const struct av_lesson_question *q, const struct av_trace *t,
				 int fixed, int query, int key, char **explain)
{
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	const struct av_tokens *tokens = asked_tokens(q, t);
	if (asked_line(q, tokens, fixed, by_key ? key : query))
		return true;
	char lines[128];
	int count = q->word ? word_lines(q, tokens, lines, sizeof(lines)) : 1;
	char *w = av_escape(tokens->text[fixed]);
	/* short: a message row is 80 columns at the smallest usual screen */
	if (count > 1)
		av_fail(explain, by_key
			? _("the question is about the columns of \"%s\" (%s): move to one, "
			    "then Enter")
			: _("the question is about the rows of \"%s\" (%s): move to one, then "
			    "Enter"), w, lines);
	else
		av_fail(explain, by_key
			? _("the question is about column %d (\"%s\"): move there, then Enter")
			: _("the question is about row %d (\"%s\"): move there, then Enter"),
			fixed, w);
	free(w);
	return false;
}

enum av_answer av_lesson_check(const struct av_lesson_question *q, const struct av_trace *t,
			       int head, int query, int key, char **explain)
{
	int best = av_lesson_answer(q, t, explain);
	if (best < 0)
		return AV_ANSWER_NOT_NOW;
	/* another head's numbers are on the screen: its largest is no answer */
	if (head != q->head) {
		av_fail(explain, _("the question is about head %d: Tab to it, then Enter"),
			q->head);
		return AV_ANSWER_CURSOR_ELSEWHERE;
	}
	bool by_key = q->ask == AV_ASK_ARGMAX_QUERY;
	int fixed = live_position(q, asked_tokens(q, t), by_key ? t->m : t->n, NULL);
	if (!cursor_on_asked_line(q, t, fixed, query, key, explain))
		return AV_ANSWER_CURSOR_ELSEWHERE;
	/* the word again, further on: the line under the cursor is the asked one */
	int line = by_key ? key : query;
	if (line != fixed && (best = line_answer(q, t, line, explain)) < 0)
		return AV_ANSWER_NOT_NOW;
	fixed = line;
	int picked = by_key ? query : key;
	int limit = by_key ? t->n : t->m;
	if (picked >= 0 && picked < limit && (picked == best || same_value(q, t, fixed, picked, best)))
		return AV_ANSWER_RIGHT;
	const struct av_tokens *answer_side = by_key ? &t->tokens
		: (t->source_tokens.n > 0 ? &t->source_tokens : &t->tokens);
	char *w = av_escape(answer_side->text[best]);
	av_fail(explain, by_key ? _("the answer is query %d (\"%s\")")
		: _("the answer is key %d (\"%s\")"), best, w);
	free(w);
	return AV_ANSWER_WRONG;
}
