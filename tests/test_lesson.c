/* test_lesson.c: the lesson loader (src/lesson/): a good lesson resolves
 * every step to a complete state; every way a file or a step can be wrong is
 * refused with the file, the step and the key; questions are checked against
 * the live trace, so they follow the sentence; every shipped lesson loads
 * and every step of it runs on its sample. Messages are compared whole where
 * they are what an author reads. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <cmocka.h>

#include "attention.h"
#include "lesson/lesson.h"
#include "ui/stages.h"   /* the stage names only (no screen code is linked) */
#include "model.h"
#include "session.h"
#include "train.h"
#include "util.h"
#include "weights.h"

/* One step of china-panda (one head, "china panda japan cherry"). */
#define STEP_TEXT \
	"\"title\": {\"en\": \"Scores\", \"zh_CN\": \"得分\"}, " \
	"\"caption\": {\"en\": [\"One.\", \"Two.\"], \"zh_CN\": [\"一。\"]}"

/* A lesson of the china-panda sample whose steps are given (JSON text). */
static char *lesson_text(const char *steps)
{
	return av_printf("{\"name\": \"t\", \"title\": {\"en\": \"T\", \"zh_CN\": \"测\"},\n"
			 " \"sample\": \"china-panda\",\n \"steps\": [%s]}", steps);
}

static char *one_step(const char *extra)
{
	char *step = av_printf("{" STEP_TEXT "%s%s}", *extra ? ", " : "", extra);
	char *text = lesson_text(step);
	free(step);
	return text;
}

/* Parses a lesson of one step with extra keys; expects the message want. */
static void assert_step_rejected(const char *extra, const char *want)
{
	char *text = one_step(extra);
	struct av_lesson l;
	char *cause = NULL;
	bool ok = av_lesson_parse(text, "x.json", &l, &cause);
	if (ok || !cause || strcmp(cause, want) != 0)
		print_error("step %s\n  want: %s\n  got:  %s\n", extra, want,
			    cause ? cause : "(accepted)");
	assert_false(ok);
	assert_string_equal(cause, want);
	free(cause);
	free(text);
}

static void assert_lesson_rejected(const char *text, const char *want)
{
	struct av_lesson l;
	char *cause = NULL;
	bool ok = av_lesson_parse(text, "x.json", &l, &cause);
	if (ok || !cause || strcmp(cause, want) != 0)
		print_error("want: %s\n  got:  %s\n", want, cause ? cause : "(accepted)");
	assert_false(ok);
	assert_string_equal(cause, want);
	free(cause);
}

/* --- a good lesson */

static void test_good_lesson_resolves_states(void **state)
{
	(void)state;
	char *text = lesson_text(
		"{" STEP_TEXT "},\n"
		"{" STEP_TEXT ", \"set\": {\"stage\": \"softmax\", \"cursor\": [2, 3], "
		"\"temperature\": 2, \"hidden\": [1]}, \"highlight\": [[0, 1], [2, 3]]},\n"
		"{" STEP_TEXT ", \"set\": {\"sentence\": \"japan cherry\", \"view\": \"figures\", "
		"\"figure\": 3}, \"train\": {\"epochs\": 200, \"target\": \"pairs\"}, "
		"\"question\": {\"ask\": \"argmax_key\", \"word\": \"japan\"}},\n"
		"{" STEP_TEXT ", \"set\": {\"seed\": 7}}");
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	assert_null(cause);
	assert_string_equal(l.name, "t");
	assert_string_equal(l.title[AV_LANG_ZH_CN], "测");
	assert_int_equal(l.n_steps, 4);
	assert_int_equal(l.cfg.heads, 1);

	/* the first step is the sample's state */
	const struct av_lesson_state *s0 = &l.steps[0].state;
	assert_string_equal(s0->sentence, "china panda japan cherry");
	assert_int_equal(s0->stage, AV_STAGE_TOKENS);
	assert_int_equal(s0->view, AV_LVIEW_STEPPER);
	assert_int_equal(s0->seed, 1);
	assert_true(s0->temperature == 1.0);
	assert_int_equal(s0->train.epochs, 0);
	assert_int_equal(l.steps[0].text[AV_LANG_EN].n_paragraphs, 2);
	assert_string_equal(l.steps[0].text[AV_LANG_EN].paragraphs[1], "Two.");
	assert_string_equal(l.steps[0].text[AV_LANG_ZH_CN].title, "得分");

	const struct av_lesson_step *st1 = &l.steps[1];
	assert_int_equal(st1->state.stage, AV_STAGE_SOFTMAX);
	assert_int_equal(st1->state.query, 2);
	assert_int_equal(st1->state.key, 3);
	assert_true(st1->state.hidden[1]);
	assert_false(st1->state.hidden[0]);
	assert_true(st1->state.temperature == 2.0);
	assert_int_equal(st1->n_highlight, 2);
	assert_int_equal(st1->highlight[1][1], 3);
	assert_false(st1->has_question);

	/* a new sentence resets the cursor and the hidden keys; the rest is kept */
	const struct av_lesson_step *st2 = &l.steps[2];
	assert_string_equal(st2->state.sentence, "japan cherry");
	assert_int_equal(st2->state.stage, AV_STAGE_SOFTMAX);
	assert_int_equal(st2->state.query, 0);
	assert_false(st2->state.hidden[1]);
	assert_true(st2->state.temperature == 2.0);
	assert_int_equal(st2->state.view, AV_LVIEW_FIGURES);
	assert_int_equal(st2->state.figure, 2);
	assert_int_equal(st2->state.train.epochs, 200);
	assert_int_equal(st2->state.train.target, AV_TARGET_PAIRS);
	assert_true(st2->state.train.lr == 0.01);   /* the sample's */
	assert_true(st2->has_question);
	assert_int_equal(st2->question.ask, AV_ASK_ARGMAX_KEY);
	assert_int_equal(st2->question.stage, AV_STAGE_SOFTMAX);
	assert_string_equal(st2->question.word, "japan");

	/* a new seed means fresh weights: the training is not inherited */
	assert_int_equal(l.steps[3].state.seed, 7);
	assert_int_equal(l.steps[3].state.train.epochs, 0);
	av_lesson_free(&l);
	free(text);
}

/* --- rejections: the file */

static void test_rejects_file_errors(void **state)
{
	(void)state;
	assert_lesson_rejected("{\"name\": \"t\",\n  \"steps\": [}",
			       "x.json:2:13: '}' does not close the '[' from line 2 "
			       "(expected ']')");
	assert_lesson_rejected("[1]", "x.json: expected a JSON object at the top, got a list");
	assert_lesson_rejected("{\"name\": \"t\", \"title\": {\"en\": \"T\", \"zh_CN\": \"测\"}, "
			       "\"sample\": \"china-panda\"}", "x.json: missing \"steps\"");
	assert_lesson_rejected("{\"name\": \"t\", \"title\": {\"en\": \"T\", \"zh_CN\": \"测\"}, "
			       "\"sample\": \"china-panda\", \"steps\": []}",
			       "x.json: \"steps\": expected 1 to 200 steps, got 0");
	assert_lesson_rejected("{\"name\": \"t\", \"title\": {\"en\": \"T\"}, "
			       "\"sample\": \"china-panda\", \"steps\": []}",
			       "x.json: missing \"title\".\"zh_CN\"");
	assert_lesson_rejected("{\"name\": \"t\", \"lesson\": 1}",
			       "x.json: unknown key \"lesson\" (allowed: name, title, sample, "
			       "weights, steps or comment)");
	/* a bad key from the file is escaped before it reaches a terminal */
	assert_lesson_rejected("{\"name\": \"t\", \"\\u001b[2J\\\"\": 1}",
			       "x.json: unknown key \"\\x1b[2J\\\"\" (allowed: name, title, "
			       "sample, weights, steps or comment)");
	/* ... and so is a bidi override, which would reorder the message */
	assert_lesson_rejected("{\"name\": \"t\", \"a\u202eb\": 1}",
			       "x.json: unknown key \"a\\u202eb\" (allowed: name, title, "
			       "sample, weights, steps or comment)");
	/* students of --follow look the lesson up by its name, as a file's */
	assert_lesson_rejected("{\"name\": \"My lesson\", \"steps\": []}",
			       "x.json: \"name\": \"My lesson\" is not a lesson name (only a-z, "
			       "0-9, _ and -; the file is lessons/NAME.json)");
	char *text = lesson_text("{" STEP_TEXT "}");
	char *bad = av_printf("%s", text);
	char *at = strstr(bad, "china-panda");
	memcpy(at, "china-pandx", 11);
	struct av_lesson l;
	char *cause = NULL;
	assert_false(av_lesson_parse(bad, "x.json", &l, &cause));
	assert_non_null(strstr(cause, "x.json: \"sample\": no sample named \"china-pandx\""));
	free(cause);
	free(bad);
	free(text);
}

static void test_rejects_huge_file(void **state)
{
	(void)state;
	char path[] = "/tmp/test_lesson_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	for (int i = 0; i <= AV_LESSON_MAX_BYTES / 64; i++)
		fputs("                                                               \n", f);
	fclose(f);
	struct av_lesson l;
	char *cause = NULL;
	assert_false(av_lesson_load_file(path, &l, &cause));
	char *want = av_printf("%s: larger than the 1 MiB limit for lessons", path);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	unlink(path);
	/* a device is refused as for samples, not read up to the limit */
	assert_false(av_lesson_load_file("/dev/zero", &l, &cause));
	assert_string_equal(cause, "/dev/zero: not a regular file (a character device)");
	free(cause);
	cause = NULL;
	assert_false(av_lesson_load_file("/tmp", &l, &cause));
	assert_string_equal(cause, "/tmp: not a regular file (a directory)");
	free(cause);
}

/* --- rejections: a step (every message names the step) */

static void test_rejects_bad_texts(void **state)
{
	(void)state;
	char *text = lesson_text("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}}");
	assert_lesson_rejected(text, "x.json: step 1: missing \"caption\"");
	free(text);
	text = lesson_text("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}, "
				 "\"caption\": {\"en\": [\"x\"]}}");
	assert_lesson_rejected(text, "x.json: step 1: missing \"caption\".\"zh_CN\"");
	free(text);
	text = lesson_text("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}, "
			   "\"caption\": {\"en\": [\"x\", 3], \"zh_CN\": [\"y\"]}}");
	assert_lesson_rejected(text, "x.json: step 1: \"caption\".\"en\", paragraph 2: "
			       "expected a string, got a number");
	free(text);
	text = lesson_text("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}, "
			   "\"caption\": {\"en\": [\"x\\ny\"], \"zh_CN\": [\"y\"]}}");
	assert_lesson_rejected(text, "x.json: step 1: \"caption\".\"en\", paragraph 1: "
			       "a line break at byte 1: a paragraph is one line, which the pane "
			       "wraps; a new paragraph is the next string of the list");
	free(text);
	text = lesson_text("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}, "
			   "\"caption\": {\"en\": [\"x\\ty\"], \"zh_CN\": [\"y\"]}}");
	assert_lesson_rejected(text, "x.json: step 1: \"caption\".\"en\", paragraph 1: "
			       "control character at byte 1 (a paragraph is one line; "
			       "wrapping is the pane's)");
	free(text);
	/* a paragraph wider than the pane: 300 CJK characters are 600 columns */
	char para[3 * 300 + 1] = "";
	for (int i = 0; i < 300; i++)
		strcat(para, "注");
	char *step = av_printf("{\"title\": {\"en\": \"A\", \"zh_CN\": \"B\"}, "
			       "\"caption\": {\"en\": [\"x\"], \"zh_CN\": [\"%s\"]}}", para);
	text = lesson_text(step);
	assert_lesson_rejected(text, "x.json: step 1: \"caption\".\"zh_CN\", paragraph 1: "
			       "600 columns long, at most 532 fit");
	free(text);
	free(step);
}

static void test_rejects_impossible_states(void **state)
{
	(void)state;
	assert_step_rejected("\"set\": {\"head\": 9}",
			     "x.json: step 1: \"set\".\"head\": head 9, but the layer has 1 (0 to 0)");
	assert_step_rejected("\"set\": {\"stage\": \"attention\"}",
			     "x.json: step 1: \"set\".\"stage\": unknown value \"attention\" "
			     "(allowed: tokens, embedding, projection, scores, scaled, masked, "
			     "softmax, context or output)");
	assert_step_rejected("\"set\": {\"stage\": \"x\\u0007\"}",
			     "x.json: step 1: \"set\".\"stage\": unknown value \"x\\x07\" "
			     "(allowed: tokens, embedding, projection, scores, scaled, masked, "
			     "softmax, context or output)");
	assert_step_rejected("\"set\": {\"cursor\": [4, 0]}",
			     "x.json: step 1: \"set\".\"cursor\": cell (4, 0) is off the 4x4 "
			     "matrix (queries 0 to 3, keys 0 to 3)");
	assert_step_rejected("\"set\": {\"cursor\": [1]}",
			     "x.json: step 1: \"set\".\"cursor\": expected 2 positions, got 1");
	assert_step_rejected("\"set\": {\"hidden\": [1, 4]}",
			     "x.json: step 1: \"set\".\"hidden\": key 4, but the keys are 0 to 3");
	assert_step_rejected("\"set\": {\"hidden\": [-1]}",
			     "x.json: step 1: \"set\".\"hidden\", item 1: expected a position "
			     "from 0 to 63");
	assert_step_rejected("\"highlight\": [[0, 0], [1, 9]]",
			     "x.json: step 1: \"highlight\", item 2: cell (1, 9) is off the 4x4 "
			     "matrix (queries 0 to 3, keys 0 to 3)");
	assert_step_rejected("\"set\": {\"mode\": \"cross\"}",
			     "x.json: step 1: cross mode needs a \"source\" sentence");
	assert_step_rejected("\"set\": {\"view\": \"figures\", \"figure\": 9}",
			     "x.json: step 1: \"set\".\"figure\": expected a whole number from "
			     "1 to 4, got 9");
	assert_step_rejected("\"set\": {\"temperature\": 0}",
			     "x.json: step 1: \"set\".\"temperature\": expected a number from "
			     "0.01 to 100, got 0");
	assert_step_rejected("\"set\": {\"sentence\": \"\"}",
			     "x.json: step 1: \"set\".\"sentence\": the sentence is empty");
	assert_step_rejected("\"set\": {\"heads\": 2}",
			     "x.json: step 1: \"set\": unknown key \"heads\" (allowed: sentence, "
			     "source, mode, stage, view, figure, head, cursor, hidden, scale, "
			     "temperature, seed or init)");
	assert_step_rejected("\"train\": {\"epochs\": -1}",
			     "x.json: step 1: \"train\".\"epochs\": expected a whole number "
			     "from 0 to 100000, got -1");
	assert_step_rejected("\"train\": {\"epochs\": 5, \"lr\": 0}",
			     "x.json: step 1: \"train\".\"lr\": expected a positive number, got 0");
	assert_step_rejected("\"train\": {\"optimizer\": \"rmsprop\"}",
			     "x.json: step 1: \"train\".\"optimizer\": unknown value \"rmsprop\" "
			     "(allowed: adam or sgd)");
}

/* The step number is the failing one, and a later step sees the earlier
 * sentence: a cursor valid for four words is off a two-word sentence. */
static void test_step_number_and_inherited_sentence(void **state)
{
	(void)state;
	char *text = lesson_text(
		"{" STEP_TEXT "},\n"
		"{" STEP_TEXT ", \"set\": {\"sentence\": \"china panda\"}},\n"
		"{" STEP_TEXT ", \"set\": {\"cursor\": [3, 0]}}");
	assert_lesson_rejected(text, "x.json: step 3: \"set\".\"cursor\": cell (3, 0) is off "
			       "the 2x2 matrix (queries 0 to 1, keys 0 to 1)");
	free(text);
}

static void test_rejects_bad_questions(void **state)
{
	(void)state;
	assert_step_rejected("\"question\": {\"ask\": \"biggest\", \"query\": 0}",
			     "x.json: step 1: \"question\".\"ask\": unknown value \"biggest\" "
			     "(allowed: argmax_key, argmin_key or argmax_query)");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_key\", \"query\": 4}",
			     "x.json: step 1: \"question\".\"query\": expected a whole number "
			     "from 0 to 3, got 4");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_key\", \"word\": \"koala\"}",
			     "x.json: step 1: \"question\".\"word\": \"koala\" is not a word of "
			     "the step's sentence");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_key\"}",
			     "x.json: step 1: \"question\": give either \"query\" (a position) "
			     "or \"word\"");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_query\", \"query\": 1}",
			     "x.json: step 1: \"question\".\"query\": not used by argmax_query "
			     "(give \"key\" or \"word\")");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_key\", \"query\": 0, "
			     "\"head\": 1}",
			     "x.json: step 1: \"question\".\"head\": head 1, but the layer has 1 "
			     "(0 to 0)");
	assert_step_rejected("\"question\": {\"ask\": \"argmax_key\", \"query\": 0, "
			     "\"stage\": \"context\"}",
			     "x.json: step 1: \"question\".\"stage\": a question asks about "
			     "scores, scaled, masked or softmax, not context");
}

/* A question whose row (or column) the step itself hides whole could never
 * be answered: the student would only read "every cell of that row is
 * hidden now". Refused at load; a row with one visible key is fine. */
static void test_rejects_questions_no_answer_can_be_right(void **state)
{
	(void)state;
	assert_step_rejected("\"set\": {\"hidden\": [0, 1, 2, 3]}, "
			     "\"question\": {\"ask\": \"argmax_key\", \"query\": 1}",
			     "x.json: step 1: \"question\": every key of row 1 is hidden in this "
			     "step (\"hidden\", the mask), so no answer can be right");
	assert_step_rejected("\"set\": {\"hidden\": [2]}, "
			     "\"question\": {\"ask\": \"argmax_query\", \"word\": \"japan\"}",
			     "x.json: step 1: \"question\": every cell of column 2 is hidden in "
			     "this step (\"hidden\", the mask), so no answer can be right");
	/* china's row under the causal mask has key 0 only, and it is hidden */
	assert_step_rejected("\"set\": {\"mode\": \"causal\", \"hidden\": [0]}, "
			     "\"question\": {\"ask\": \"argmax_key\", \"word\": \"china\"}",
			     "x.json: step 1: \"question\": every key of row 0 is hidden in this "
			     "step (\"hidden\", the mask), so no answer can be right");
	char *text = one_step("\"set\": {\"mode\": \"causal\", \"hidden\": [0]}, "
			      "\"question\": {\"ask\": \"argmax_key\", \"query\": 1}");
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	assert_null(cause);
	av_lesson_free(&l);
	free(text);
}

/* --- questions against the live numbers */

/* A trace of the china-panda sample for sentence (with hidden keys). */
static void run_trace(struct av_trace *t, struct av_params *p, const struct av_lesson *l,
		      const char *sentence, const int *hidden, int n_hidden)
{
	av_params_init(p, &l->cfg, (const char *const *)l->sample.vocab, l->sample.n_vocab);
	char *cause = NULL;
	memset(t, 0, sizeof *t);
	assert_true(av_trace_run(t, p, &l->cfg, sentence, NULL, hidden, n_hidden, &cause));
}

/* The largest and smallest visible weight of row q, found here by hand. */
static int row_extreme(const struct av_trace *t, int q, bool largest)
{
	int best = -1;
	for (int k = 0; k < t->m; k++) {
		if (!t->mask[q * t->m + k])
			continue;
		float v = t->weights[q * t->m + k];
		if (best < 0 || (largest ? v > t->weights[q * t->m + best]
				 : v < t->weights[q * t->m + best]))
			best = k;
	}
	return best;
}

static void test_questions_follow_the_sentence(void **state)
{
	(void)state;
	char *text = one_step("\"question\": {\"ask\": \"argmax_key\", \"word\": \"japan\"}");
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	const struct av_lesson_question *q = &l.steps[0].question;

	struct av_trace t;
	struct av_params p;
	run_trace(&t, &p, &l, "china panda japan cherry", NULL, 0);
	int best = row_extreme(&t, 2, true);
	assert_int_equal(av_lesson_answer(q, &t, NULL), best);
	assert_int_equal(av_lesson_check(q, &t, q->head, 2, best, NULL), AV_ANSWER_RIGHT);
	/* the right column on another row is another word's attention: the
	 * student is told which row the question is about */
	assert_int_equal(av_lesson_check(q, &t, q->head, 0, best, &cause), AV_ANSWER_CURSOR_ELSEWHERE);
	assert_string_equal(cause, "the question is about row 2 (\"japan\"): move there, "
			    "then Enter");
	free(cause);
	cause = NULL;
	/* the right cell of another head: that head's numbers are on the screen
	 * (qkv-walkthrough step 7 graded head 1's smallest as right) */
	assert_int_equal(av_lesson_check(q, &t, q->head + 1, 2, best, &cause),
			 AV_ANSWER_CURSOR_ELSEWHERE);
	char *about = av_printf("the question is about head %d: Tab to it, then Enter", q->head);
	assert_string_equal(cause, about);
	free(about);
	free(cause);
	cause = NULL;
	int wrong = (best + 1) % 4;
	assert_int_equal(av_lesson_check(q, &t, q->head, 2, wrong, &cause), AV_ANSWER_WRONG);
	char *want = av_printf("the answer is key %d (\"%s\")", best, t.tokens.text[best]);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	av_trace_free(&t);
	av_params_free(&p);

	/* the student moved japan to the front: the question follows the word */
	run_trace(&t, &p, &l, "japan cherry china", NULL, 0);
	assert_int_equal(av_lesson_answer(q, &t, NULL), row_extreme(&t, 0, true));
	av_trace_free(&t);
	av_params_free(&p);

	/* hiding the best key changes the answer to the best visible one */
	run_trace(&t, &p, &l, "china panda japan cherry", NULL, 0);
	int first = row_extreme(&t, 2, true);
	av_trace_free(&t);
	av_params_free(&p);
	run_trace(&t, &p, &l, "china panda japan cherry", &first, 1);
	int second = av_lesson_answer(q, &t, NULL);
	assert_true(second != first && second >= 0);
	assert_int_equal(second, row_extreme(&t, 2, true));
	assert_int_equal(av_lesson_check(q, &t, q->head, 2, first, NULL), AV_ANSWER_WRONG);
	av_trace_free(&t);
	av_params_free(&p);

	/* without japan the question cannot be asked, and says why */
	run_trace(&t, &p, &l, "china panda", NULL, 0);
	assert_int_equal(av_lesson_check(q, &t, q->head, 0, 0, &cause), AV_ANSWER_NOT_NOW);
	assert_string_equal(cause, "\"japan\" is not in the sentence now");
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);
	av_lesson_free(&l);
	free(text);
}

/* The student typed the asked word twice ("japan china japan cherry"):
 * each row of japan is the question's, with its own answer (the second
 * was told "the question is about row 0"), and a cursor elsewhere is told
 * the word and both rows. */
static void test_question_word_repeated(void **state)
{
	(void)state;
	char *text = one_step("\"question\": {\"ask\": \"argmax_key\", \"word\": \"japan\"}");
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	const struct av_lesson_question *q = &l.steps[0].question;
	struct av_trace t;
	struct av_params p;
	run_trace(&t, &p, &l, "japan china japan cherry", NULL, 0);
	int best0 = row_extreme(&t, 0, true), best2 = row_extreme(&t, 2, true);
	assert_int_equal(av_lesson_check(q, &t, q->head, 0, best0, NULL), AV_ANSWER_RIGHT);
	assert_int_equal(av_lesson_check(q, &t, q->head, 2, best2, NULL), AV_ANSWER_RIGHT);
	/* the second row's wrong answer names the second row's right one */
	int worst2 = row_extreme(&t, 2, false);
	assert_int_equal(av_lesson_check(q, &t, q->head, 2, worst2, &cause), AV_ANSWER_WRONG);
	char *want = av_printf("the answer is key %d (\"%s\")", best2, t.tokens.text[best2]);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	assert_int_equal(av_lesson_check(q, &t, q->head, 1, best2, &cause),
			 AV_ANSWER_CURSOR_ELSEWHERE);
	assert_string_equal(cause, "the question is about the rows of \"japan\" (0, 2): move to "
			    "one, then Enter");
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);
	av_lesson_free(&l);
	free(text);
}

static void test_question_kinds(void **state)
{
	(void)state;
	char *text = lesson_text(
		"{" STEP_TEXT ", \"question\": {\"ask\": \"argmin_key\", \"query\": 1}},\n"
		"{" STEP_TEXT ", \"question\": {\"ask\": \"argmax_query\", \"word\": \"panda\", "
		"\"stage\": \"scores\"}}");
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	struct av_trace t;
	struct av_params p;
	run_trace(&t, &p, &l, "china panda japan cherry", NULL, 0);

	const struct av_lesson_question *min_q = &l.steps[0].question;
	int least = row_extreme(&t, 1, false);
	assert_int_equal(av_lesson_answer(min_q, &t, NULL), least);
	assert_int_equal(av_lesson_check(min_q, &t, min_q->head, 1, least, NULL), AV_ANSWER_RIGHT);
	assert_int_equal(av_lesson_check(min_q, &t, min_q->head, 1, row_extreme(&t, 1, true), NULL),
			 AV_ANSWER_WRONG);
	assert_int_equal(av_lesson_check(min_q, &t, min_q->head, 0, least, NULL), AV_ANSWER_CURSOR_ELSEWHERE);

	/* the query whose score for key "panda" (column 1) is largest */
	const struct av_lesson_question *col_q = &l.steps[1].question;
	int best = 0;
	for (int r = 1; r < t.n; r++)
		if (t.scores[r * t.m + 1] > t.scores[best * t.m + 1])
			best = r;
	assert_int_equal(av_lesson_answer(col_q, &t, NULL), best);
	assert_int_equal(av_lesson_check(col_q, &t, col_q->head, best, 1, NULL), AV_ANSWER_RIGHT);
	assert_int_equal(av_lesson_check(col_q, &t, col_q->head, (best + 1) % 4, 1, NULL), AV_ANSWER_WRONG);
	/* the right row in another column is not the answer either */
	assert_int_equal(av_lesson_check(col_q, &t, col_q->head, best, 0, &cause), AV_ANSWER_CURSOR_ELSEWHERE);
	assert_string_equal(cause, "the question is about column 1 (\"panda\"): move there, "
			    "then Enter");
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);
	av_lesson_free(&l);
	free(text);
}

/* --- a lesson with a weights file (found beside the lesson) */

static void test_weights_lesson(void **state)
{
	(void)state;
	const char *label = TESTS_SRCDIR "/fixtures/lesson.json";
	char *text = av_printf(
		"{\"name\": \"w\", \"title\": {\"en\": \"W\", \"zh_CN\": \"W\"},\n"
		" \"sample\": \"china-panda\", \"weights\": \"weights-small.json\",\n"
		" \"steps\": [{" STEP_TEXT ", \"set\": {\"sentence\": \"alpha beta gamma\", "
		"\"head\": 1, \"stage\": \"softmax\"}, \"question\": {\"ask\": \"argmax_key\", "
		"\"word\": \"beta\"}}]}");
	struct av_lesson l;
	char *cause = NULL;
	if (!av_lesson_parse(text, label, &l, &cause))
		fail_msg("%s", cause);
	assert_int_equal(l.cfg.heads, 2);
	assert_int_equal(l.cfg.d_model, 4);
	assert_string_equal(l.weights, TESTS_SRCDIR "/fixtures/weights-small.json");
	assert_int_equal(l.steps[0].question.head, 1);

	struct av_session s;
	assert_true(av_lesson_session_new(&l, &s, &cause));
	assert_true(s.from_weights);
	assert_true(av_lesson_apply(&l, &l.steps[0].state, &s, &cause));
	assert_int_equal(s.trace.heads, 2);
	assert_false(s.trace.oov[0]);
	assert_true(s.trace.token_part[0] == 1.1f);   /* alpha's row of the file */
	assert_true(av_lesson_answer(&l.steps[0].question, &s.trace, NULL) >= 0);
	av_session_free(&s);
	av_lesson_free(&l);
	free(text);

	/* the file's 5 learned positions: a 6-token step is refused at load */
	text = av_printf(
		"{\"name\": \"w\", \"title\": {\"en\": \"W\", \"zh_CN\": \"W\"},\n"
		" \"sample\": \"china-panda\", \"weights\": \"weights-small.json\",\n"
		" \"steps\": [{" STEP_TEXT "}, {" STEP_TEXT ", \"set\": {\"sentence\": "
		"\"alpha beta gamma alpha beta gamma\"}}]}");
	assert_false(av_lesson_parse(text, label, &l, &cause));
	char *want = av_printf("%s: step 2: the sentence has 6 tokens, the learned positions "
			       "only 5", label);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	free(text);
}

/* --- finding lessons, and the shipped ones */

static void test_list_and_not_found(void **state)
{
	(void)state;
	char **names = av_lesson_list();
	const char *want[] = { "china-panda", "first-look", "qkv-walkthrough" };
	for (size_t i = 0; i < 3; i++) {
		bool found = false;
		for (char **n = names; *n; n++)
			found |= strcmp(*n, want[i]) == 0;
		assert_true(found);
	}
	av_string_list_free(names);
	struct av_lesson l;
	char *cause = NULL;
	assert_false(av_lesson_load("no-such-lesson", &l, &cause));
	assert_non_null(strstr(cause, "no lesson named \"no-such-lesson\""));
	free(cause);
	cause = NULL;
	assert_false(av_lesson_load("Bad Name", &l, &cause));
	assert_non_null(strstr(cause, "invalid lesson name"));
	free(cause);
}

/* Whether text writes the head width "dh" as a word of its own ("√dh"),
 * where the screen says dk (the tutorials' d_k). */
static bool names_dh(const char *text)
{
	for (const char *p = text; (p = strstr(p, "dh")); p += 2) {
		bool before = p > text && ((p[-1] >= 'a' && p[-1] <= 'z') ||
					   (p[-1] >= 'A' && p[-1] <= 'Z'));
		if (!before && !(p[2] >= 'a' && p[2] <= 'z'))
			return true;
	}
	return false;
}

/* Every step of every shipped lesson: its state runs on the lesson's layer
 * (sentence, source, mode, scale, temperature, seed, init, hidden keys), its
 * cursor and highlights are on the matrix, and its question has an answer. */
static void play_lesson(const char *name, int min_steps)
{
	struct av_lesson l;
	char *cause = NULL;
	if (!av_lesson_load(name, &l, &cause))
		fail_msg("%s", cause);
	assert_string_equal(l.name, name);
	assert_true(l.n_steps >= min_steps);
	for (int i = 0; i < l.n_steps; i++) {
		const struct av_lesson_step *st = &l.steps[i];
		const struct av_lesson_state *s = &st->state;
		for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
			assert_true(*st->text[lang].title);
			assert_true(st->text[lang].n_paragraphs >= 1);
			for (int k = 0; k < st->text[lang].n_paragraphs; k++)
				if (names_dh(st->text[lang].paragraphs[k]))
					fail_msg("%s step %d (%s) says dh, the screen dk: %s", name,
						 i + 1, av_lang_names[lang], st->text[lang].paragraphs[k]);
		}
		struct av_config cfg = l.cfg;
		cfg.mode = s->mode;
		cfg.scale = s->scale;
		cfg.temperature = s->temperature;
		cfg.seed = s->seed;
		cfg.init = s->init;
		struct av_params p;
		av_params_init(&p, &cfg, (const char *const *)l.sample.vocab, l.sample.n_vocab);
		int hidden[AV_MAX_TOKENS], n_hidden = 0;
		for (int j = 0; j < AV_MAX_TOKENS; j++)
			if (s->hidden[j])
				hidden[n_hidden++] = j;
		struct av_trace t = { 0 };
		if (!av_trace_run(&t, &p, &cfg, s->sentence, s->source, hidden, n_hidden, &cause))
			fail_msg("%s step %d: %s", name, i + 1, cause);
		assert_true(s->query < t.n && s->key < t.m);
		assert_true(s->head < t.heads);
		for (int h = 0; h < st->n_highlight; h++)
			assert_true(st->highlight[h][0] < t.n && st->highlight[h][1] < t.m);
		if (st->has_question && av_lesson_answer(&st->question, &t, &cause) < 0)
			fail_msg("%s step %d: %s", name, i + 1, cause);
		av_trace_free(&t);
		av_params_free(&p);
	}
	av_lesson_free(&l);
}

/* --- playing lessons headless: a session through every step */

static int find_step(const struct av_lesson *l, const char *title)
{
	for (int i = 0; i < l->n_steps; i++)
		if (strcmp(l->steps[i].text[AV_LANG_EN].title, title) == 0)
			return i;
	fail_msg("no step \"%s\"", title);
	return -1;
}

static void apply_step(const struct av_lesson *l, int i, struct av_session *s)
{
	char *cause = NULL;
	if (!av_lesson_apply(l, &l->steps[i].state, s, &cause))
		fail_msg("%s step %d: %s", l->name, i + 1, cause);
}

/* Each step's settings are the session's after applying it, in order and
 * back again (the same state gives the same numbers). */
static void play_headless(const char *name)
{
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_load(name, &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));
	float first_weight = NAN;
	for (int i = 0; i < l.n_steps; i++) {
		const struct av_lesson_state *st = &l.steps[i].state;
		apply_step(&l, i, &s);
		const struct av_trace *t = &s.trace;
		assert_string_equal(s.sentence, st->sentence);
		assert_int_equal(t->cfg.mode, st->mode);
		assert_int_equal(t->cfg.scale, st->scale);
		assert_true(t->cfg.temperature == st->temperature);
		assert_true(t->cfg.seed == st->seed);
		for (int j = 0; j < t->m; j++)
			assert_int_equal(t->key_hidden[j], st->hidden[j]);
		if (l.steps[i].has_question)
			assert_true(av_lesson_answer(&l.steps[i].question, t, NULL) >= 0);
		if (i == 0)
			first_weight = t->weights[0];
	}
	/* back to step 1 after everything: the same numbers as the first time */
	apply_step(&l, 0, &s);
	assert_true(s.trace.weights[0] == first_weight);
	av_session_free(&s);
	av_lesson_free(&l);
}

static void test_play_every_step(void **state)
{
	(void)state;
	play_headless("first-look");
	play_headless("qkv-walkthrough");
	play_headless("china-panda");
}

/* What the china-panda captions say about the numbers: with torch.eye the
 * marked china->panda cell falls; with the pairs target china attends to
 * panda. */
static void test_china_panda_captions_hold(void **state)
{
	(void)state;
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));

	int fell = find_step(&l, "china→panda fell");
	assert_int_equal(l.steps[fell].state.train.target, AV_TARGET_SELF);
	assert_int_equal(l.steps[fell].state.train.epochs, 200);
	struct av_lesson_state untrained = l.steps[fell].state;
	untrained.train.epochs = 0;
	assert_true(av_lesson_apply(&l, &untrained, &s, &cause));
	float before = s.trace.scaled[0 * s.trace.m + 1];
	apply_step(&l, fell, &s);
	float after = s.trace.scaled[0 * s.trace.m + 1];
	assert_true(after < before);

	int pairs = find_step(&l, "A target that pairs the words");
	apply_step(&l, pairs, &s);
	assert_string_equal(s.trace.tokens.text[1], "panda");
	assert_int_equal(av_lesson_answer(&l.steps[pairs].question, &s.trace, NULL), 1);
	assert_true(s.trace.weights[0 * s.trace.m + 1] > 0.9f);
	assert_true(s.trace.scaled[0 * s.trace.m + 1] > before);
	av_session_free(&s);
	av_lesson_free(&l);
}

/* The tracked pair as the training view shows it for step state st (its
 * settings, from untrained weights): the cell china@0->panda@1 ("scaled")
 * and the word-only score, at epoch 0 and after st's epochs, and the
 * cell's weight then. */
struct tracked {
	double cell0, word0, cell, word, weight;
};

static struct tracked track_pair_from(const struct av_lesson *l,
				      const struct av_lesson_state *st, const char *weights)
{
	struct av_session s;
	char *cause = NULL;
	struct av_lesson_state untrained = *st;
	untrained.train.epochs = untrained.train.steps = 0;
	if (!av_lesson_session_new(l, &s, &cause) || !av_lesson_apply(l, &untrained, &s, &cause))
		fail_msg("%s", cause);
	if (weights) {
		av_params_free(&s.params);
		if (!av_weights_load(weights, &s.cfg, NULL, &s.params, &cause)
		    || !av_session_run(&s, &cause))
			fail_msg("%s", cause);
	}
	struct av_train_settings set = {
		.lr = st->train.lr, .optimizer = st->train.optimizer,
		.target = st->train.target, .params = AV_TRAIN_QKV,
	};
	struct av_trainer *tr = av_trainer_new(&s, &set, &cause);
	if (!tr)
		fail_msg("%s", cause);
	struct tracked t;
	double w;
	assert_true(av_trainer_track_cell(tr, 0, &t.cell0, &w));
	t.word0 = av_trainer_track_score(tr, 0);
	for (int e = 0; e < st->train.epochs; e++)
		av_trainer_epoch(tr);
	assert_true(av_trainer_track_cell(tr, 0, &t.cell, &t.weight));
	t.word = av_trainer_track_score(tr, 0);
	av_trainer_free(tr);
	av_session_free(&s);
	return t;
}

static struct tracked track_pair(const struct av_lesson *l, const struct av_lesson_state *st)
{
	return track_pair_from(l, st, NULL);
}

/* v as a caption writes it ("−13.76": decimals, U+2212) is in step i's
 * caption in both languages. */
static void assert_says(const struct av_lesson *l, int i, double v, int decimals)
{
	char num[64];
	snprintf(num, sizeof(num), "%s%.*f", v < 0 ? "−" : "", decimals, fabs(v));
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		const struct av_lesson_text *text = &l->steps[i].text[lang];
		bool found = false;
		for (int p = 0; p < text->n_paragraphs && !found; p++)
			found = strstr(text->paragraphs[p], num) != NULL;
		if (!found)
			fail_msg("%s step %d (%s) should say %s, what the screen shows",
				 l->name, i + 1, av_lang_names[lang], num);
	}
}

/* The numbers the china-panda captions quote are the ones the training
 * view shows for their steps, in both languages: under torch.eye the cell
 * falls while the word-only score rises; under the pairs target the cell
 * rises to a weight near 1 while the word-only score ends where it began. */
static void test_china_panda_numbers_are_the_screens(void **state)
{
	(void)state;
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	int eye = find_step(&l, "Training with torch.eye");
	int fell = find_step(&l, "china→panda fell");
	int table = find_step(&l, "The 0 / 50 / 150 table");
	assert_int_equal(l.steps[eye].state.train.target, AV_TARGET_SELF);
	assert_int_equal(l.steps[table].state.train.target, AV_TARGET_PAIRS);
	struct tracked e = track_pair(&l, &l.steps[eye].state);
	struct tracked p = track_pair(&l, &l.steps[table].state);
	assert_true(e.cell < e.cell0 && e.word > e.word0);
	assert_true(p.cell > p.cell0 && p.weight > 0.99);
	assert_says(&l, eye, e.cell0, 2);
	assert_says(&l, eye, e.cell, 2);
	assert_says(&l, fell, e.cell, 2);
	assert_says(&l, table, p.cell0, 2);
	assert_says(&l, table, p.cell, 2);
	assert_says(&l, table, p.weight, 3);
	assert_says(&l, table, p.word0, 2);
	assert_says(&l, table, p.word, 2);
	assert_says(&l, table, e.word, 2);
	av_lesson_free(&l);
}

/* text is in step i's caption (title or a paragraph) in language lang. */
static bool step_says(const struct av_lesson *l, int i, int lang, const char *text)
{
	const struct av_lesson_text *t = &l->steps[i].text[lang];
	bool found = strstr(t->title, text) != NULL;
	for (int p = 0; p < t->n_paragraphs && !found; p++)
		found = strstr(t->paragraphs[p], text) != NULL;
	return found;
}

/* text[lang] is in step i's caption in each language. */
static void assert_says_text(const struct av_lesson *l, int i, const char *const text[])
{
	for (int lang = 0; lang < AV_LANG_COUNT; lang++)
		if (!step_says(l, i, lang, text[lang]))
			fail_msg("%s step %d (%s) should say \"%s\"", l->name, i + 1,
				 av_lang_names[lang], text[lang]);
}

/* "From PyTorch's random start, the tutorial's code pushes this cell down
 * too: 0.25 to -7.18": the cell china@0->panda@1 of "china panda" when
 * this engine trains from tests/fixtures/train-china-panda.json, the
 * tutorial's own parameters under torch.manual_seed(1), which PyTorch
 * trained to the same weights (test_train.c checks them to 1e-4). */
static void test_china_panda_pytorch_start(void **state)
{
	(void)state;
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	int eye = find_step(&l, "Training with torch.eye");
	int fell = find_step(&l, "china→panda fell");
	struct tracked torch = track_pair_from(&l, &l.steps[eye].state,
					       TESTS_SRCDIR "/fixtures/train-china-panda.json");
	struct tracked ours = track_pair(&l, &l.steps[eye].state);
	assert_true(torch.cell0 != ours.cell0);   /* another start indeed */
	assert_true(torch.cell < torch.cell0);
	assert_says(&l, fell, torch.cell0, 2);
	assert_says(&l, fell, torch.cell, 2);
	av_lesson_free(&l);
}

/* The divisors the captions write are the scaled stage's (the screen's
 * "scores / 22.627"): china-panda's √3 ≈ 1.73; qkv-walkthrough's √512 ≈
 * 22.6 against √64 = 8, and √dk = 8 for dk = 64 a step later. */
static void test_captions_say_the_divisor(void **state)
{
	(void)state;
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	char say[64];
	const char *const text[AV_LANG_COUNT] = { say, say };

	assert_true(av_lesson_load("china-panda", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));
	int scaled = find_step(&l, "Divided by √3");
	apply_step(&l, scaled, &s);
	assert_int_equal(s.trace.cfg.scale, AV_SCALE_DK);
	int dk = s.trace.cfg.d_model / s.trace.cfg.heads;
	assert_true(fabs(s.trace.divisor - sqrt(dk)) < 1e-12);
	snprintf(say, sizeof(say), "√%d ≈ %.2f", dk, s.trace.divisor);
	assert_says_text(&l, scaled, text);
	av_session_free(&s);
	av_lesson_free(&l);

	assert_true(av_lesson_load("qkv-walkthrough", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));
	int code = find_step(&l, "Scaled by √512, as the code does");
	apply_step(&l, code, &s);
	assert_int_equal(s.trace.cfg.scale, AV_SCALE_DMODEL);
	int d = s.trace.cfg.d_model;
	dk = d / s.trace.cfg.heads;
	assert_true(fabs(s.trace.divisor - sqrt(d)) < 1e-12);
	snprintf(say, sizeof(say), "√%d ≈ %.1f", d, s.trace.divisor);
	assert_says_text(&l, code, text);
	snprintf(say, sizeof(say), "√%d = %g", dk, sqrt(dk));
	assert_says_text(&l, code, text);
	int paper = find_step(&l, "√dk, and why");
	apply_step(&l, paper, &s);
	assert_int_equal(s.trace.cfg.scale, AV_SCALE_DK);
	assert_true(fabs(s.trace.divisor - sqrt(dk)) < 1e-12);
	snprintf(say, sizeof(say), "dk = %d", dk);
	assert_says_text(&l, paper, text);
	snprintf(say, sizeof(say), "√dk = %g", s.trace.divisor);
	assert_says_text(&l, paper, text);
	av_session_free(&s);
	av_lesson_free(&l);
}

/* A caption's "step N" is the step it means (a step inserted before it
 * would leave the number behind). */
static void test_china_panda_step_references(void **state)
{
	(void)state;
	static const char *const refs[][2] = {
		{ "The score of china for panda", "The 0 / 50 / 150 table" },
		{ "Training with torch.eye", "Divided by √3" },
		{ "The 0 / 50 / 150 table", "Training with torch.eye" },
	};
	struct av_lesson l;
	char *cause = NULL;
	char say[2][64];
	const char *const text[AV_LANG_COUNT] = { say[0], say[1] };
	assert_true(av_lesson_load("china-panda", &l, &cause));
	for (size_t r = 0; r < sizeof(refs) / sizeof(refs[0]); r++) {
		int from = find_step(&l, refs[r][0]), to = find_step(&l, refs[r][1]);
		snprintf(say[0], sizeof(say[0]), "step %d", to + 1);
		snprintf(say[1], sizeof(say[1]), "第 %d 步", to + 1);
		assert_says_text(&l, from, text);
	}
	av_lesson_free(&l);
}

/* The first step of l whose caption in lang quotes text, or -1. */
static int step_quoting(const struct av_lesson *l, int lang, const char *text)
{
	for (int i = 0; i < l->n_steps; i++)
		for (int p = 0; p < l->steps[i].text[lang].n_paragraphs; p++)
			if (strstr(l->steps[i].text[lang].paragraphs[p], text))
				return i;
	return -1;
}

/* The china-panda tutorial's debugging section checks the gradients
 * (print(Wq.grad)) first and the histogram of scores (plt.hist) second;
 * the lesson called the histogram "the tutorial's first diagnosis" and
 * the gradients "the second". Its steps follow the tutorial's order. */
static void test_china_panda_diagnoses_in_order(void **state)
{
	(void)state;
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		int grad = step_quoting(&l, lang, "print(Wq.grad)");
		int hist = step_quoting(&l, lang, "plt.hist(");
		assert_true(grad >= 0 && hist >= 0);
		if (grad > hist)
			fail_msg("china-panda (%s): plt.hist at step %d before print(Wq.grad) at "
				 "step %d; the tutorial checks the gradients first",
				 av_lang_names[lang], hist + 1, grad + 1);
	}
	av_lesson_free(&l);
}

/* The tutorial's china-panda score "初始可能是0.15" (and 2.34, 7.89 in its
 * table) is china_q · panda_k / scale from the word vectors alone: the
 * training view's "word-only" line, not the stepper's cell, which has the
 * positions in it. Step 4 said of the unscaled cell "its text says this
 * starts near 0.15". Every paragraph quoting 0.15 names the word-only
 * score, in both languages. */
static void test_china_panda_015_is_word_only(void **state)
{
	(void)state;
	static const char *const word_only[AV_LANG_COUNT] = { "word-only", "仅词" };
	struct av_lesson l;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	assert_true(AV_LANG_COUNT == 2);
	int quoted = 0;
	for (int i = 0; i < l.n_steps; i++)
		for (int lang = 0; lang < AV_LANG_COUNT; lang++)
			for (int p = 0; p < l.steps[i].text[lang].n_paragraphs; p++) {
				const char *text = l.steps[i].text[lang].paragraphs[p];
				if (!strstr(text, "0.15"))
					continue;
				quoted++;
				if (!strstr(text, word_only[lang]))
					fail_msg("china-panda step %d (%s) quotes the tutorial's 0.15 "
						 "without saying it is the word-only score: %s", i + 1,
						 av_lang_names[lang], text);
			}
	assert_true(quoted >= 2);
	av_lesson_free(&l);
}

/* The tutorial's optimizer is Adam([Wq, Wk, Wv]): its position table,
 * nn.Embedding(2, 3), is looked up but never trained, and no china-panda
 * step trains this layer's either. Step 2 said the tutorial's code
 * "learns them, and so does this layer". The caption quoting the table
 * says only Wq, Wk and Wv are trained, and every training step leaves the
 * table as it was. */
static void test_china_panda_positions_never_trained(void **state)
{
	(void)state;
	static const char *const only_qkv[AV_LANG_COUNT] = { "only Wq, Wk and Wv are trained",
							     "只训练 Wq、Wk 和 Wv" };
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_load("china-panda", &l, &cause));
	assert_true(AV_LANG_COUNT == 2);
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		int table = step_quoting(&l, lang, "nn.Embedding(2, 3)");
		assert_true(table >= 0);
		if (step_quoting(&l, lang, only_qkv[lang]) != table)
			fail_msg("china-panda step %d (%s) quotes nn.Embedding(2, 3) without \"%s\"",
				 table + 1, av_lang_names[lang], only_qkv[lang]);
	}
	assert_true(av_lesson_session_new(&l, &s, &cause));
	apply_step(&l, 0, &s);
	assert_non_null(s.params.position_embedding);
	size_t size = (size_t)s.params.max_positions * (size_t)s.params.d_model;
	float *untrained = av_malloc(size * sizeof(float));
	memcpy(untrained, s.params.position_embedding, size * sizeof(float));
	int trained = 0;
	for (int i = 0; i < l.n_steps; i++) {
		apply_step(&l, i, &s);
		if (l.steps[i].state.train.epochs == 0)
			continue;
		trained++;
		if (memcmp(untrained, s.params.position_embedding, size * sizeof(float)) != 0)
			fail_msg("china-panda step %d trained the position table", i + 1);
	}
	assert_true(trained >= 3);
	free(untrained);
	av_session_free(&s);
	av_lesson_free(&l);
}

/* qkv-walkthrough's three kinds: the figure's self and causal panels come
 * from one layer and one sentence, so the last query (which sees every
 * key) has the same row in both, the number the caption quotes. The
 * caption had said "Each panel here runs on its own inputs". */
static void test_qkv_three_kinds_share_one_layer(void **state)
{
	(void)state;
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_load("qkv-walkthrough", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));
	int kinds = find_step(&l, "The three attention kinds");
	apply_step(&l, kinds, &s);
	const struct av_trace *causal = &s.trace;
	assert_int_equal(causal->cfg.mode, AV_MODE_CAUSAL);
	struct av_config cfg = causal->cfg;
	cfg.mode = AV_MODE_SELF;
	struct av_trace self = { 0 };
	if (!av_trace_run(&self, &s.params, &cfg, s.sentence, NULL, NULL, 0, &cause))
		fail_msg("%s", cause);
	int n = causal->n, m = causal->m;
	assert_int_equal(self.n, n);
	const float *last_causal = causal->weights + (size_t)(n - 1) * m;
	const float *last_self = self.weights + (size_t)(n - 1) * m;
	for (int j = 0; j < m; j++)
		assert_true(fabsf(last_causal[j] - last_self[j]) < 1e-6f);
	assert_string_equal(causal->tokens.text[n - 1], "mats");
	assert_string_equal(causal->tokens.text[1], "cat");
	assert_says(&l, kinds, last_self[1], 3);
	av_trace_free(&self);
	av_session_free(&s);
	av_lesson_free(&l);
}

static bool ascii_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		|| c == '_' || c == '.';
}

/* The first place text says the English word en as a word of its own (any
 * case; code such as query_len or self.keys is not the word), other than
 * in parentheses right after zh, the Chinese term: "查询（Query". NULL if
 * none. */
static const char *english_term(const char *text, const char *en, const char *zh)
{
	size_t n = strlen(en);
	char glossed[64];
	snprintf(glossed, sizeof(glossed), "%s（", zh);
	size_t g = strlen(glossed);
	for (const char *p = text; *p; p++) {
		if (strncasecmp(p, en, n) != 0 || ascii_word_char(p[n]))
			continue;
		if (p > text && ascii_word_char(p[-1]))
			continue;
		if ((size_t)(p - text) >= g && strncmp(p - g, glossed, g) == 0)
			continue;
		return p;
	}
	return NULL;
}

/* A lesson's Chinese says a term the way the screen and po/zh_CN.po do:
 * 分数 for scores (the stage's name; the captions said 得分), 单元格 for
 * a cell (they said 格子), 上下文 for the context, a stage by its Chinese
 * name ("output 阶段" named a stage the zh screen calls 输出), and 查询,
 * 键 and 值 for query, key and value (the inspector's "查询 2 'japan'，键
 * 1 'panda'"; the captions said "china 的 query"). The English word stays
 * only in parentheses after the Chinese one, as the china-panda tutorial
 * glosses QKV（Query-Key-Value）. */
static void assert_screen_terms(const char *name, int step, const char *text)
{
	static const char *const terms[][2] = {
		{ "query", "查询" }, { "key", "键" }, { "value", "值" },
		{ "queries", "查询" }, { "keys", "键" }, { "values", "值" },
	};
	for (size_t k = 0; k < sizeof(terms) / sizeof(terms[0]); k++)
		if (english_term(text, terms[k][0], terms[k][1]))
			fail_msg("%s step %d (zh_CN) says %s, not %s: %s", name, step,
				 terms[k][0], terms[k][1], text);
	static const char *const not_the_screens[] = { "得分", "格子", "context" };
	static const char *const stages[] = { "tokens", "embedding", "projection", "scores",
					      "scaled", "masked", "softmax", "context", "output" };
	for (size_t k = 0; k < sizeof(not_the_screens) / sizeof(not_the_screens[0]); k++)
		if (strstr(text, not_the_screens[k]))
			fail_msg("%s step %d (zh_CN) says %s: %s", name, step,
				 not_the_screens[k], text);
	for (size_t k = 0; k < sizeof(stages) / sizeof(stages[0]); k++) {
		char english[32];
		snprintf(english, sizeof(english), "%s 阶段", stages[k]);
		if (strstr(text, english))
			fail_msg("%s step %d (zh_CN) names the stage in English, \"%s\": %s",
				 name, step, english, text);
	}
}

static void test_zh_captions_use_the_screens_terms(void **state)
{
	(void)state;
	static const char *const lessons[] = { "first-look", "qkv-walkthrough", "china-panda" };
	for (size_t i = 0; i < sizeof(lessons) / sizeof(lessons[0]); i++) {
		struct av_lesson l;
		char *cause = NULL;
		if (!av_lesson_load(lessons[i], &l, &cause))
			fail_msg("%s", cause);
		assert_string_equal(av_lang_names[AV_LANG_ZH_CN], "zh_CN");
		assert_screen_terms(l.name, 0, l.title[AV_LANG_ZH_CN]);
		for (int s = 0; s < l.n_steps; s++) {
			const struct av_lesson_text *zh = &l.steps[s].text[AV_LANG_ZH_CN];
			assert_screen_terms(l.name, s + 1, zh->title);
			for (int p = 0; p < zh->n_paragraphs; p++)
				assert_screen_terms(l.name, s + 1, zh->paragraphs[p]);
		}
		av_lesson_free(&l);
	}
}

/* What the first-look captions say is on the screen: step 6 shows the
 * masked stage (its -inf cells) and sends the student on to softmax with
 * n, where china's row is 1.000 for china and 0 for the hidden keys; the
 * numbers steps 4, 5 and 7 quote are the step's. */
static void test_first_look_captions_hold(void **state)
{
	(void)state;
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_load("first-look", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));

	int mask = find_step(&l, "No peeking at the future");
	assert_int_equal(l.steps[mask].state.stage, AV_STAGE_MASKED);
	assert_int_equal(l.steps[mask].state.mode, AV_MODE_CAUSAL);
	apply_step(&l, mask, &s);
	const struct av_trace *t = &s.trace;
	assert_true(fabsf(t->weights[0] - 1.0f) < 5e-4f);
	for (int j = 1; j < t->m; j++) {
		assert_int_equal(t->mask[j], 0);
		assert_true(t->weights[j] == 0.0f);
	}
	assert_says(&l, mask, t->weights[0], 3);

	/* step 4 quotes japan's row: panda's and japan's scores, and the
	 * weights softmax makes of them; step 7 panda's weight at T = 1 (step
	 * 4's) and at its own T = 0.3 */
	int scores = find_step(&l, "Where the numbers come from");
	int temp = find_step(&l, "Sharper or flatter: the temperature");
	apply_step(&l, scores, &s);
	t = &s.trace;
	assert_string_equal(t->tokens.text[1], "panda");
	assert_string_equal(t->tokens.text[2], "japan");
	assert_true(t->cfg.temperature == 1.0);
	float panda_at_1 = t->weights[2 * t->m + 1];
	assert_says(&l, scores, t->scores[2 * t->m + 1], 2);
	assert_says(&l, scores, t->scores[2 * t->m + 2], 2);
	assert_says(&l, scores, panda_at_1, 2);
	assert_says(&l, scores, t->weights[2 * t->m + 2], 2);
	assert_says(&l, temp, panda_at_1, 3);
	apply_step(&l, temp, &s);
	t = &s.trace;
	assert_true(t->cfg.temperature == 0.3);
	assert_says(&l, temp, t->weights[2 * t->m + 1], 3);

	/* step 5: s twice, √D then none: √D changes nothing (one head), none
	 * gives japan's panda the share the caption quotes */
	int scaled = find_step(&l, "Scaled, then shared out");
	apply_step(&l, scaled, &s);
	assert_int_equal(s.trace.cfg.scale, AV_SCALE_DK);
	assert_int_equal(s.trace.cfg.heads, 1);
	struct av_config cfg = s.trace.cfg;
	struct av_trace other = { 0 };
	cfg.scale = AV_SCALE_DMODEL;
	if (!av_trace_run(&other, &s.params, &cfg, s.sentence, NULL, NULL, 0, &cause))
		fail_msg("%s", cause);
	assert_true(other.weights[2 * other.m + 1] == panda_at_1);
	av_trace_free(&other);
	cfg.scale = AV_SCALE_NONE;
	if (!av_trace_run(&other, &s.params, &cfg, s.sentence, NULL, NULL, 0, &cause))
		fail_msg("%s", cause);
	assert_says(&l, scaled, panda_at_1, 3);
	assert_says(&l, scaled, other.weights[2 * other.m + 1], 3);
	av_trace_free(&other);

	av_session_free(&s);
	av_lesson_free(&l);
}

/* The weights s has after applying step i of l (a copy). */
static void weights_after(const struct av_lesson *l, int i, struct av_session *s,
			  struct av_params *out)
{
	apply_step(l, i, s);
	av_params_copy(out, &s->params);
}

static bool same_qkv(const struct av_params *x, const struct av_params *y)
{
	size_t n = (size_t)x->d_model * (size_t)x->d_model * sizeof(float);
	return x->d_model == y->d_model && memcmp(x->w_q, y->w_q, n) == 0
		&& memcmp(x->w_k, y->w_k, n) == 0 && memcmp(x->w_v, y->w_v, n) == 0;
}

/* Training runs under the settings of the step that declares it: a later
 * step that turns scaling off or the temperature up shows the same trained
 * weights under its own settings (china-panda 16: "press s to cycle back to
 * √dk and compare"), not weights trained again under them. */
static void test_training_keeps_its_settings(void **state)
{
	(void)state;
	char *text = lesson_text(
		"{" STEP_TEXT ", \"train\": {\"epochs\": 30, \"target\": \"pairs\"}},\n"
		"{" STEP_TEXT ", \"set\": {\"scale\": \"none\", \"temperature\": 3}},\n"
		"{" STEP_TEXT ", \"set\": {\"scale\": \"none\", \"temperature\": 3}, "
		"\"train\": {\"epochs\": 30, \"target\": \"pairs\"}}");
	struct av_lesson l;
	struct av_session s;
	char *cause = NULL;
	assert_true(av_lesson_parse(text, "x.json", &l, &cause));
	assert_int_equal(l.steps[1].state.train.scale, AV_SCALE_DK);
	assert_true(l.steps[1].state.train.temperature == 1.0);
	assert_true(av_lesson_session_new(&l, &s, &cause));
	struct av_params trained, later, retrained;
	weights_after(&l, 0, &s, &trained);
	weights_after(&l, 1, &s, &later);
	assert_int_equal(s.trace.cfg.scale, AV_SCALE_NONE);
	assert_true(s.trace.cfg.temperature == 3.0);
	assert_true(same_qkv(&trained, &later));
	/* a step that trains under those settings gets other weights: the
	 * settings matter, so the test above can fail */
	weights_after(&l, 2, &s, &retrained);
	assert_false(same_qkv(&trained, &retrained));
	av_params_free(&trained);
	av_params_free(&later);
	av_params_free(&retrained);
	av_session_free(&s);
	av_lesson_free(&l);
	free(text);

	/* the shipped lesson: steps 16 (scale none) and 17 (T = 2) keep step
	 * 15's Xavier training */
	assert_true(av_lesson_load("china-panda", &l, &cause));
	assert_true(av_lesson_session_new(&l, &s, &cause));
	int xavier = find_step(&l, "Remedy: Xavier initialisation");
	assert_true(xavier + 2 < l.n_steps);
	weights_after(&l, xavier, &s, &trained);
	for (int i = xavier + 1; i <= xavier + 2; i++) {
		weights_after(&l, i, &s, &later);
		if (!same_qkv(&trained, &later))
			fail_msg("china-panda step %d re-trained step %d's weights", i + 1, xavier + 1);
		av_params_free(&later);
	}
	av_params_free(&trained);
	av_session_free(&s);
	av_lesson_free(&l);
}

/* The training view trains under the screen's settings: it cannot show a
 * training inherited from a step with other ones. */
static void test_training_view_needs_the_training_settings(void **state)
{
	(void)state;
	char *text = lesson_text(
		"{" STEP_TEXT ", \"train\": {\"epochs\": 3}},\n"
		"{" STEP_TEXT ", \"set\": {\"scale\": \"none\", \"view\": \"training\"}}");
	assert_lesson_rejected(text, "x.json: step 2: \"set\".\"view\": training shows the "
			       "training run, which ran under another mode, scale, temperature "
			       "or source than this step's; train again in this step");
	free(text);
}

static void test_shipped_first_look(void **state)
{
	(void)state;
	play_lesson("first-look", 6);
}

static void test_shipped_qkv_walkthrough(void **state)
{
	(void)state;
	play_lesson("qkv-walkthrough", 10);
}

static void test_shipped_china_panda(void **state)
{
	(void)state;
	play_lesson("china-panda", 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_lesson_resolves_states),
		cmocka_unit_test(test_rejects_file_errors),
		cmocka_unit_test(test_rejects_huge_file),
		cmocka_unit_test(test_rejects_bad_texts),
		cmocka_unit_test(test_rejects_impossible_states),
		cmocka_unit_test(test_step_number_and_inherited_sentence),
		cmocka_unit_test(test_rejects_bad_questions),
		cmocka_unit_test(test_rejects_questions_no_answer_can_be_right),
		cmocka_unit_test(test_questions_follow_the_sentence),
		cmocka_unit_test(test_question_word_repeated),
		cmocka_unit_test(test_question_kinds),
		cmocka_unit_test(test_weights_lesson),
		cmocka_unit_test(test_list_and_not_found),
		cmocka_unit_test(test_shipped_first_look),
		cmocka_unit_test(test_shipped_qkv_walkthrough),
		cmocka_unit_test(test_shipped_china_panda),
		cmocka_unit_test(test_china_panda_diagnoses_in_order),
		cmocka_unit_test(test_china_panda_015_is_word_only),
		cmocka_unit_test(test_qkv_three_kinds_share_one_layer),
		cmocka_unit_test(test_zh_captions_use_the_screens_terms),
		cmocka_unit_test(test_china_panda_positions_never_trained),
		cmocka_unit_test(test_play_every_step),
		cmocka_unit_test(test_china_panda_captions_hold),
		cmocka_unit_test(test_first_look_captions_hold),
		cmocka_unit_test(test_china_panda_numbers_are_the_screens),
		cmocka_unit_test(test_china_panda_pytorch_start),
		cmocka_unit_test(test_captions_say_the_divisor),
		cmocka_unit_test(test_china_panda_step_references),
		cmocka_unit_test(test_training_keeps_its_settings),
		cmocka_unit_test(test_training_view_needs_the_training_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
