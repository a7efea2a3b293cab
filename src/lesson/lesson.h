/* lesson.h: guided lessons (lessons/NAME.json), loaded and checked before
 * the first step is shown. No curses here: the screen (a later view) applies
 * a step's state through the app's own setters, and the tests play lessons
 * headless.
 *
 * File format (every key below; any other key is an error, "comment" is
 * free text and ignored everywhere):
 *
 *   {"name": "china-panda",
 *    "title": {"en": "...", "zh_CN": "..."},
 *    "sample": "china-panda",          a sample name or path (as --sample)
 *    "weights": "w.json",              optional, a path (as --weights);
 *                                      relative to the lesson's folder
 *    "steps": [STEP, ...]}             1 .. AV_LESSON_MAX_STEPS
 *
 *   STEP = {"title":   {"en": "...", "zh_CN": "..."},
 *           "caption": {"en": ["paragraph", ...], "zh_CN": [...]},
 *           "set": {...},              the state (below); optional
 *           "train": {...},            training from fresh weights; optional
 *           "highlight": [[q, k], ...],  cells to mark; optional
 *           "question": {...}}         optional
 *
 * State is cumulative: a step starts from the previous step's state (the
 * first from the sample's) and "set" changes only the keys it names, so
 * every step has a complete state (struct av_lesson_state) and "return to
 * the step" is just applying it again. "set" keys:
 *   sentence, source (strings; source null clears it), mode (self, causal,
 *   cross), stage (tokens .. output, by name), view (stepper, heads, bars,
 *   figures, training), figure (1 .. the figure count; view figures), head
 *   (0-based), cursor ([query, key], 0-based), hidden ([key positions]),
 *   scale (dk, dmodel, none), temperature, seed, init (normal, xavier, torch).
 * Changing sentence, source or mode resets the cursor to (0, 0) and the
 * hidden keys to none unless the same "set" gives them.
 *
 * "train": {"epochs": N, "steps": M, "target", "optimizer", "lr"}: the
 * weights are those of the state's seed and init trained N epochs then M
 * single-sentence steps (target/optimizer/lr default to the sample's
 * "training"), under the step's mode, scale, temperature and source.
 * Deterministic, so it is part of the state and is inherited with those
 * settings (a later "set" of the scale shows the same weights scaled
 * otherwise); {"epochs": 0} goes back to untrained weights, and so does a
 * new seed or init unless the same step trains. A step with view training
 * must have the training's settings: the view trains under the screen's.
 *
 * "question": {"ask": KIND, "head": h, "stage": "softmax", "query": 2 or
 * "word": "japan", "key": 1 or "word": ...}, checked against the live trace
 * (av_lesson_check), so the answer follows the student's sentence:
 *   argmax_key    the key that query attends to most (the cursor's column,
 *                 on the query's row)
 *   argmin_key    the key it attends to least (among visible keys)
 *   argmax_query  the query that attends most to key (the cursor's row, in
 *                 the key's column)
 * "query"/"key" is a position in the step's sentence; "word" names a token
 * instead: every row (or column) of it in the live sentence, so a student
 * who repeats the word may answer on either (av_lesson_answer gives the
 * first's answer). stage is one of scores, scaled, masked, softmax
 * (default softmax).
 *
 * Everything a step sets is checked at load against the lesson's sample
 * (or weights) and the step's sentence: a head the layer does not have, an
 * unknown stage, a cursor or highlight off the matrix, a hidden key the key
 * sentence does not have, a word not in the sentence; the message names the
 * step ("lessons/x.json: step 4: \"set\".\"head\": head 9, but the layer
 * has 8 (0 to 7)"). */
#ifndef AV_LESSON_H
#define AV_LESSON_H

#include <stdbool.h>
#include <stdint.h>
#include "attention.h"
#include "sample.h"
#include "session.h"

#define AV_LESSON_MAX_BYTES (1024 * 1024)   /* a lesson file is text, not data */
#define AV_LESSON_MAX_STEPS 200
#define AV_LESSON_MAX_PARAGRAPHS 8
/* A paragraph must fit a caption pane of 7 lines at 80 columns. */
#define AV_LESSON_MAX_PARAGRAPH_WIDTH (7 * 76)
#define AV_LESSON_MAX_TITLE_WIDTH 60
#define AV_LESSON_MAX_HIGHLIGHTS 16
#define AV_LESSON_MAX_EPOCHS 100000

enum av_lang { AV_LANG_EN, AV_LANG_ZH_CN, AV_LANG_COUNT };
extern const char *const av_lang_names[];     /* "en", "zh_CN", NULL */

enum av_lesson_view {
	AV_LVIEW_STEPPER, AV_LVIEW_HEADS, AV_LVIEW_BARS, AV_LVIEW_FIGURES,
	AV_LVIEW_TRAINING
};
extern const char *const av_lesson_view_names[];

enum av_ask { AV_ASK_ARGMAX_KEY, AV_ASK_ARGMIN_KEY, AV_ASK_ARGMAX_QUERY };
extern const char *const av_ask_names[];

struct av_lesson_train {
	int epochs;                   /* 0: untrained weights */
	int steps;                    /* single-sentence steps after the epochs */
	double lr;
	enum av_optimizer optimizer;
	enum av_target target;
	/* the settings it ran under, those of the step that declared it: a
	 * later step's scale, temperature or mode changes what is shown, not
	 * the weights the steps after it keep */
	enum av_mode mode;
	enum av_scale scale;
	double temperature;
	char *source;                 /* NULL: none */
};

/* The complete state of one step. */
struct av_lesson_state {
	char *sentence;
	char *source;                 /* NULL: none */
	enum av_mode mode;
	int stage;                    /* enum av_stage */
	enum av_lesson_view view;
	int figure;                   /* 0-based (enum av_figure_kind) */
	int head;
	int query, key;               /* the cursor cell */
	bool hidden[AV_MAX_TOKENS];   /* hidden key positions */
	enum av_scale scale;
	double temperature;
	uint64_t seed;
	enum av_init init;
	struct av_lesson_train train;
};

struct av_lesson_question {
	enum av_ask ask;
	int head;
	int stage;                    /* scores, scaled, masked or softmax */
	int pos;                      /* the query (or key) position, or -1 */
	char *word;                   /* ... or its word, or NULL */
};

struct av_lesson_text {
	char *title;
	int n_paragraphs;
	char **paragraphs;
};

struct av_lesson_step {
	struct av_lesson_text text[AV_LANG_COUNT];
	struct av_lesson_state state;
	int n_highlight;
	int highlight[AV_LESSON_MAX_HIGHLIGHTS][2];   /* (query, key) */
	bool has_question;
	struct av_lesson_question question;
};

struct av_lesson {
	char *path;
	char *name;
	uint64_t text_hash;           /* FNV-1a of the file's text (a class's
				       * students check they have the same) */
	char *title[AV_LANG_COUNT];
	char *weights;                /* resolved path, or NULL */
	struct av_sample sample;
	struct av_config cfg;         /* the sample's, or the weights' */
	int n_steps;
	struct av_lesson_step *steps;
};

/* Parses lesson text; label names it in messages and its folder is where a
 * relative "weights" path is looked for. The sample (and weights) are
 * loaded to check the steps. On failure l is left zeroed. */
bool av_lesson_parse(const char *text, const char *label, struct av_lesson *l,
		     char **cause);
bool av_lesson_load_file(const char *path, struct av_lesson *l, char **cause);

/* --lesson NAME|PATH: found like samples, in a lessons/ folder beside
 * samples/ (av_data_find). */
bool av_lesson_load(const char *name_or_path, struct av_lesson *l, char **cause);

/* The names of the lessons on the search path (av_string_list_free). */
char **av_lesson_list(void);

void av_lesson_free(struct av_lesson *l);

/* A session on the lesson's layer, as attnview starts with --lesson (the
 * sample's sentence; the caller then applies step 1). */
bool av_lesson_session_new(const struct av_lesson *l, struct av_session *s, char **cause);

/* Puts step state st into session s: the sentence and source, mode, scale,
 * temperature, hidden keys, and the weights of its seed and init (or the
 * lesson's weights file when those are the file's), trained as st->train
 * says under the settings recorded with it (the declaring step's, not
 * st's own); then runs the trace. The same state always gives the same numbers,
 * which is what "return to the step" relies on. Training, unlike the rest,
 * takes time (the state's epochs over the corpus). What the screen shows
 * (stage, view, head, cursor) is the caller's. On failure *cause says why;
 * the session then has the step's settings but keeps its old trace (the
 * states were checked at load, so only a training error can get here). */
bool av_lesson_apply(const struct av_lesson *l, const struct av_lesson_state *st,
		     struct av_session *s, char **cause);

/* How st's weights were trained, as the "training" record of a dump or a
 * saved weights file says it (a step keeps no loss history: r->loss is
 * NULL); false when st does not train them. The strings are static. */
struct av_training_record;
bool av_lesson_training_record(const struct av_lesson_state *st, struct av_training_record *r);

/* Checks the student's answer (the cursor cell query, key of head) against
 * trace t. The answer counts only on the asked head and line: the query's
 * row (argmax_key, argmin_key) or the key's column (argmax_query), any of
 * the word's when it occurs more than once (each with its own answer);
 * elsewhere the result is AV_ANSWER_CURSOR_ELSEWHERE and *explain names
 * the head or the line (the word and all its lines). AV_ANSWER_NOT_NOW
 * when the question cannot be asked of this trace (its word is not in the
 * sentence, a head or position it does not have, every key of the row
 * hidden); *explain (may be NULL) then says why, or for a wrong answer what
 * the right one is. */
enum av_answer {
	AV_ANSWER_RIGHT, AV_ANSWER_WRONG, AV_ANSWER_CURSOR_ELSEWHERE, AV_ANSWER_NOT_NOW
};
enum av_answer av_lesson_check(const struct av_lesson_question *q, const struct av_trace *t,
			       int head, int query, int key, char **explain);

/* The right answer now: a key (argmax_key, argmin_key) or query position,
 * or -1 (and *explain) when the question cannot be asked of t. */
int av_lesson_answer(const struct av_lesson_question *q, const struct av_trace *t,
		     char **explain);

#endif
