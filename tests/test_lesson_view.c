/* test_lesson_view.c: a lesson on a virtual terminal: the caption pane and
 * "lesson k/N", stepping with } and {, exploring then R back to the step's
 * state, answering a question right and wrong with Enter, a training step,
 * Chinese captions, and sizes from 80x24 down to the minimum. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "i18n.h"
#include "lesson/lesson.h"
#include "train.h"
#include "ui/layout.h"
#include "ui/widgets/draw.h"
#include "utf8.h"
#include "ui_harness.h"

static bool utf8;

struct lesson_screen {
	struct harness h;
	struct av_lesson l;
};

/* The lesson's session on a terminal term of cols x lines, at step 1
 * (without colour when no_color, as NO_COLOR=1). */
static void open_lesson_on(struct lesson_screen *ls, const char *name, const char *term,
			   bool no_color, int cols, int lines)
{
	memset(ls, 0, sizeof *ls);
	char *cause = NULL;
	if (!av_lesson_load(name, &ls->l, &cause) ||
	    !av_lesson_session_new(&ls->l, &ls->h.s, &cause))
		fail_msg("%s", cause);
	harness_screen(&ls->h, term, cols, lines);
	struct av_ui_config cfg = { .head = 0, .lesson = &ls->l, .no_color = no_color };
	assert_true(av_app_init(&ls->h.a, &ls->h.s, &cfg, &cause));
	ls->h.app_open = true;
	av_app_draw(&ls->h.a);
}

/* The lesson's session at step (from 1, as --step; 0: the first). */
static void open_lesson_at(struct lesson_screen *ls, const char *name, int step, int cols,
			   int lines)
{
	memset(ls, 0, sizeof *ls);
	char *cause = NULL;
	if (!av_lesson_load(name, &ls->l, &cause) ||
	    !av_lesson_session_new(&ls->l, &ls->h.s, &cause))
		fail_msg("%s", cause);
	harness_screen(&ls->h, "xterm-256color", cols, lines);
	struct av_ui_config cfg = { .head = 0, .lesson = &ls->l, .lesson_step = step };
	assert_true(av_app_init(&ls->h.a, &ls->h.s, &cfg, &cause));
	ls->h.app_open = true;
	av_app_draw(&ls->h.a);
}

static void open_lesson(struct lesson_screen *ls, const char *name, int cols, int lines)
{
	open_lesson_on(ls, name, "xterm-256color", false, cols, lines);
}

static void close_lesson(struct lesson_screen *ls)
{
	harness_close(&ls->h);
	av_lesson_free(&ls->l);
}

/* No row is wider than the screen (a wide character never straddles). */
static void assert_rows_fit(void)
{
	for (int y = 0; y < LINES; y++)
		if (av_utf8_width(harness_line(y)) > COLS) {
			harness_dump();
			fail_msg("row %d is %d columns wide", y, av_utf8_width(harness_line(y)));
		}
}

static void test_pane_and_steps(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	struct av_app *a = &ls.h.a;
	/* the pane: 7 rows at the bottom, its title line first */
	assert_int_equal(harness_find("lesson 1/17 · Six words, three pairs"), 17);
	assert_true(strstr(harness_line(0), "lesson 1/17") != NULL);
	expect("The tutorial's corpus pairs each country");
	assert_rows_fit();

	harness_keys(&ls.h, "}}}");
	expect("lesson 4/17 · The score of china for panda");
	assert_int_equal(a->stage, AV_STAGE_SCORES);
	assert_int_equal(a->sel_query, 0);
	assert_int_equal(a->sel_key, 1);
	harness_keys(&ls.h, "{");
	expect("lesson 3/17");
	assert_int_equal(a->stage, AV_STAGE_PROJECTION);
	harness_keys(&ls.h, "{{{");
	expect("lesson 1/17");
	expect("the first step: } goes on");
	close_lesson(&ls);
}

/* The inspector reads in order when its rows are too few (a lesson's pane
 * leaves two at 80x24): the cell's line, then its sum, then the row's
 * exponentials; its last lines used to stand above its first. */
static void test_inspector_in_order(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	for (int i = 1; i < 15; i++)
		harness_keys(&ls.h, "}");
	expect("lesson 15/17");
	int cell = harness_find("weights_h[0,0] = "), sum = harness_find("w = exp(x − max)"),
	    row = harness_find("exp(row 0 − max):");
	if (!(cell >= 0 && cell < sum && sum < row)) {
		harness_dump();
		fail_msg("cell %d, sum %d, row %d", cell, sum, row);
	}
	close_lesson(&ls);
}

/* The row of the screen where a digit stands right before "…", or -1. */
static int digit_before_ellipsis(void)
{
	for (int y = 0; y < LINES; y++) {
		const char *line = harness_line(y);
		for (const char *e = strstr(line, "…"); e; e = strstr(e + 1, "…"))
			if (e > line && e[-1] >= '0' && e[-1] <= '9')
				return y;
	}
	return -1;
}

/* QA on a phone (40x30): the softmax line, cut to the inspector's rows,
 * ended "− 9.3446) / 1.2609 = 0.0001019…" at step 2 and "= 4.79e-09 /
 * 1.000…" at step 7: a number that read as another one, and the weight
 * it works out lost. The cut keeps the "= result" whole. */
static void test_inspector_cut_keeps_the_result(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	static const struct { int step; const char *cell, *result; } steps[] = {
		{ 2, "weights_h[2,0] = 8.08e-05", "= 8.08e-05" },
		{ 7, "weights_h[0,0] = 4.79e-09", "= 4.79e-09" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct lesson_screen ls;
		open_lesson_at(&ls, "first-look", steps[i].step, 40, 30);
		int cell = harness_find(steps[i].cell), sum = harness_find("w = exp(x − max)");
		assert_true(cell >= 0 && sum > cell);
		int y = digit_before_ellipsis();
		if (y >= 0) {
			harness_dump();
			fail_msg("step %d, row %d: \"%s\"", steps[i].step, y, harness_line(y));
		}
		/* the sum's last row ends in its result */
		if (!strstr(harness_line(sum + 1), steps[i].result)) {
			harness_dump();
			fail_msg("step %d: \"%s\"", steps[i].step, harness_line(sum + 1));
		}
		close_lesson(&ls);
	}
}

/* A pinned matrix's long label ("pinned: softmax head 0, self, dk, T=1")
 * took the header's "lesson 1/17" with the sample's name it stood for. */
static void test_header_keeps_lesson_when_pinned(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	harness_keys(&ls.h, "nnnnnn");
	assert_true(strstr(harness_line(0), "7/9 softmax") != NULL);
	harness_keys(&ls.h, "y");
	assert_true(strstr(harness_line(0), "pinned: softmax head 0") != NULL);
	assert_true(strstr(harness_line(0), "lesson 1/17") != NULL);
	close_lesson(&ls);
}

/* At 40x30 the all-heads view's "all heads · " took "lesson 1/15" from the
 * header (QA); its title row begins "all heads:", so the label goes first
 * and the lesson's place and the mode stay. */
static void test_heads_header_keeps_lesson_at_40(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "qkv-walkthrough", 40, 30);
	harness_keys(&ls.h, "a");
	assert_ptr_equal(ls.h.a.view, &av_view_heads);
	const char *header = harness_line(0);
	if (!strstr(header, "lesson 1/15") || !strstr(header, "self") ||
	    !strstr(header, "1/9 tokens")) {
		harness_dump();
		fail_msg("the header lost the lesson, the mode or the stage");
	}
	expect("all heads: ");
	close_lesson(&ls);
	/* wide enough for every piece: the label stays */
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	harness_keys(&ls.h, "a");
	assert_non_null(strstr(harness_line(0), "all heads · 1/9 tokens"));
	assert_non_null(strstr(harness_line(0), "lesson 1/15"));
	close_lesson(&ls);
}

/* At 40x30 the pane's title was cut inside a word ("lesson 15/17 ·
 * Remedy: Xavier initialis…", QA): it ends after a whole word of the
 * step's title now, with the step's number whole. */
static void test_pane_title_cut_after_word(void **state)
{
	(void)state;
	static const char *const names[] = { "china-panda", "qkv-walkthrough" };
	for (size_t k = 0; k < 2; k++) {
		struct lesson_screen ls;
		open_lesson(&ls, names[k], 40, 30);
		for (int i = 0; i < ls.l.n_steps; i++) {
			char start[64];
			snprintf(start, sizeof(start), "lesson %d/%d · ", i + 1, ls.l.n_steps);
			const char *title = ls.l.steps[i].text[AV_LANG_EN].title;
			int y = -1;
			for (int r = 0; r < LINES && y < 0; r++)
				if (!strncmp(harness_line(r), start, strlen(start)))
					y = r;
			if (y < 0) {
				harness_dump();
				fail_msg("%s step %d: no \"%s\"", names[k], i + 1, start);
			}
			const char *shown = harness_line(y) + strlen(start);
			const char *more = strstr(shown, "…");
			size_t len = more ? (size_t)(more - shown) : 0;
			if (more && (strncmp(shown, title, len) != 0 ||
				     (title[len] != ' ' && title[len] != ',' && title[len] != ':'))) {
				harness_dump();
				fail_msg("%s step %d: \"%s\" cut inside a word", names[k], i + 1,
					 title);
			}
			harness_keys(&ls.h, "}");
		}
		close_lesson(&ls);
	}
}

/* first-look runs on the china-panda sample, whose title and description
 * stood under its tokens table, cut: "China - panda: ...", "The lesson of
 * the china-panda tutorial: ... Step…" (QA). A lesson shows its own title
 * there, whole. */
static void test_tokens_stage_shows_the_lesson(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "first-look", 80, 24);
	expect("lesson 1/9 · Words that look at each other");
	expect("A first look at attention (ten minutes)");
	expect_not("China - panda");
	expect_not("The lesson of the china-panda tutorial");
	expect_not("…");
	expect_not("attnview --lesson first-look");   /* the free stepper's tip */
	close_lesson(&ls);
	open_lesson(&ls, "china-panda", 80, 24);
	expect(ls.l.title[AV_LANG_EN]);
	expect_not("The lesson of the china-panda tutorial");
	close_lesson(&ls);
}

/* A screen too short for the caption pane says the lesson is there, and
 * its keys still step; the pane comes back when the screen grows. The
 * number is the terminal's height the caption needs, said as that (not
 * "its caption needs 15 lines", which read as the caption's length), and
 * shorter at 40 columns, where the whole sentence would not fit. */
static void test_pane_hidden_is_said(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "first-look", 40, 12);
	assert_non_null(strstr(harness_line(LINES - 1), "lesson 1/9: no caption below 15 lines"));
	assert_rows_fit();
	harness_keys(&ls.h, "}");
	assert_non_null(strstr(harness_line(LINES - 1), "lesson 2/9"));
	harness_resize(&ls.h, 80, 12);
	assert_non_null(strstr(harness_line(LINES - 1),
			       "lesson 2/9: the caption needs a terminal of 15 lines or more"));
	assert_rows_fit();
	harness_resize(&ls.h, 80, 24);
	expect("lesson 2/9 · ");
	expect_not("the caption needs");
	expect_not("no caption below");
	close_lesson(&ls);
}

static void test_explore_then_return(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	struct av_app *a = &ls.h.a;
	harness_keys(&ls.h, "}}}");
	float cell = ls.h.s.trace.scores[1];
	/* explore: another stage, temperature, the causal mask, a new seed */
	harness_keys(&ls.h, "nn++mr");
	assert_int_equal(a->stage, AV_STAGE_MASKED);
	assert_true(ls.h.s.cfg.temperature != 1.0);
	assert_int_equal(ls.h.s.cfg.mode, AV_MODE_CAUSAL);
	assert_true(ls.h.s.cfg.seed != 1);
	harness_keys(&ls.h, "R");
	assert_int_equal(a->stage, AV_STAGE_SCORES);
	assert_true(ls.h.s.cfg.temperature == 1.0);
	assert_int_equal(ls.h.s.cfg.mode, AV_MODE_SELF);
	assert_true(ls.h.s.cfg.seed == 1);
	assert_true(ls.h.s.trace.scores[1] == cell);
	expect("lesson 4/17");
	close_lesson(&ls);
}

/* R at the step's state changed nothing and said nothing (QA): it says so;
 * after exploring it puts the step back without that message. */
static void test_restore_at_the_state_says_so(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	harness_keys(&ls.h, "}}}R");
	expect("nothing to put back: this is the step's state");
	harness_keys(&ls.h, "jR");
	expect_not("nothing to put back");
	assert_int_equal(ls.h.a.row, ls.l.steps[3].state.query);
	harness_keys(&ls.h, "R");
	expect("nothing to put back");
	/* a new seed, then R: the weights come back, said by the screen */
	harness_keys(&ls.h, "rR");
	expect_not("nothing to put back");
	close_lesson(&ls);
}

/* Enter on a step without a question points to the next step, and on the
 * last step (which has none) to q: it said "} next step" there too. */
static void test_enter_without_a_question(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "first-look", 80, 24);
	harness_key(&ls.h, '\r');
	expect("this step asks nothing: } next step");
	for (int i = 1; i < ls.l.n_steps; i++)
		harness_keys(&ls.h, "}");
	harness_key(&ls.h, '\r');
	expect("this step asks nothing, and it is the last: q quits");
	expect_not("} next step");
	close_lesson(&ls);
}

static void test_answer_right_and_wrong(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	struct av_app *a = &ls.h.a;
	harness_keys(&ls.h, "}}}}}");
	expect("lesson 6/17 · Softmax");
	expect("Enter answer");
	const struct av_lesson_question *q = &ls.l.steps[5].question;
	int right = av_lesson_answer(q, &ls.h.s.trace, NULL);
	assert_true(right >= 0);
	/* the cursor starts on key 0: move to a wrong key, then the right one */
	int wrong = right == 0 ? 1 : 0;
	for (int k = 0; k < wrong; k++)
		harness_keys(&ls.h, "l");
	harness_key(&ls.h, '\r');
	expect("not that one");
	for (int k = wrong; k < right; k++)
		harness_keys(&ls.h, "l");
	for (int k = right; k < wrong; k++)
		harness_keys(&ls.h, "h");
	assert_int_equal(a->sel_key, right);
	harness_key(&ls.h, '\r');
	expect("right!");
	/* the same column on panda's row is panda's attention, not china's */
	harness_keys(&ls.h, "j");
	assert_int_equal(a->sel_query, 1);
	harness_key(&ls.h, '\r');
	expect("the question is about row 0 (\"china\"): move there, then Enter");
	expect_not("right!");
	harness_keys(&ls.h, "k");
	/* the student changes the sentence: the question follows "china" */
	char *cause = NULL;
	assert_true(av_session_set_sentence(&ls.h.s, "cherry japan china", &cause));
	assert_true(av_app_rerun_all(a));
	int now = av_lesson_answer(q, &ls.h.s.trace, NULL);
	a->row = 2;
	a->col = now;
	av_app_draw(a);
	harness_key(&ls.h, '\r');
	expect("right!");
	close_lesson(&ls);
}

/* An answer on another stage than the question's read "not that one" with
 * the cursor on the right word (QA: qkv-walkthrough 7, End, Right x4,
 * Enter): the screen says which stage, and how to get there, as it does
 * for another head. */
static void test_answer_on_another_stage(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "qkv-walkthrough", 7, 80, 24);
	struct av_app *a = &ls.h.a;
	const struct av_lesson_question *q = &ls.l.steps[6].question;
	int right = av_lesson_answer(q, &ls.h.s.trace, NULL);
	assert_true(right >= 0);
	harness_key(&ls.h, AV_FKEY(KEY_END));
	assert_int_equal(a->stage, AV_STAGE_OUTPUT);
	for (int k = 0; k < right; k++)
		harness_key(&ls.h, AV_FKEY(KEY_RIGHT));
	harness_key(&ls.h, '\r');
	assert_true(harness_status_has(LINES - 8, "the question is about the softmax stage, "
				       "2 stages back: p to it, then Enter"));
	expect_not("not that one");
	/* one stage on the other side, the same cell: one stage on */
	harness_keys(&ls.h, "ppp");
	assert_int_equal(a->stage, AV_STAGE_MASKED);
	harness_key(&ls.h, '\r');
	assert_true(harness_status_has(LINES - 8, "the question is about the softmax stage, "
				       "1 stage on: n to it, then Enter"));
	harness_keys(&ls.h, "n");
	assert_int_equal(a->sel_key, right);
	harness_key(&ls.h, '\r');
	expect("right!");
	close_lesson(&ls);
}

/* While the sentence editor or the prompt takes the keys, the caption's
 * bar said "Enter answer" and "{ } step", but Enter applied the text and
 * { typed a brace (QA): the bar names the step's keys only while they
 * are the step's. */
static void test_caption_keys_not_while_editing(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "qkv-walkthrough", 7, 80, 24);
	expect("Enter answer");
	harness_keys(&ls.h, "e");
	expect_not("Enter answer");
	expect_not("{ } step");
	harness_key(&ls.h, AV_KEY_ESC);
	expect("Enter answer");
	harness_keys(&ls.h, ":");
	expect_not("Enter answer");
	harness_key(&ls.h, AV_KEY_ESC);
	expect("Enter answer");
	close_lesson(&ls);
}

/* china-panda 3 talks of W_q, W_k and W_v, which the projection stage does
 * not show (QA): its caption sends the student to them with F, then End,
 * and back with Esc; those keys do that. */
static void test_weights_figure_from_step_3(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "china-panda", 3, 80, 24);
	assert_non_null(strstr(ls.l.steps[2].text[AV_LANG_EN].paragraphs[0],
			       "F, then End shows them (Esc comes back)"));
	assert_int_equal(ls.h.a.stage, AV_STAGE_PROJECTION);
	harness_key(&ls.h, 'F');
	harness_key(&ls.h, AV_FKEY(KEY_END));
	assert_true(ls.h.a.view == &av_view_figures);
	expect("W_q (out × in)");
	expect("W_k (out × in)");
	expect("W_v (out × in)");
	harness_key(&ls.h, AV_KEY_ESC);
	assert_true(ls.h.a.view == &av_view_stage);
	assert_int_equal(ls.h.a.stage, AV_STAGE_PROJECTION);
	expect("lesson 3/17 · W_q, W_k, W_v");
	close_lesson(&ls);
}

/* --step N opens the lesson on step N, as } N-1 times would: a training
 * step trains in the training view from epoch 0; { goes back from it. */
static void test_open_at_step(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "china-panda", 9, 80, 24);
	expect("lesson 9/17 · Training with torch.eye");
	assert_true(ls.h.a.view == &av_view_train);
	const struct av_trainer *tr = av_train_view_trainer(&ls.h.a);
	assert_non_null(tr);
	assert_int_equal(tr->epoch, 200);
	expect("epoch 200 / 200");
	harness_keys(&ls.h, "{");
	expect("lesson 8/17");
	close_lesson(&ls);
	open_lesson_at(&ls, "first-look", 1, 80, 24);
	expect("lesson 1/9");
	close_lesson(&ls);
}

/* A lesson's caption tells what a stage means in its own words: the
 * stepper's plain-words meaning (what a free stepper shows in its spare
 * rows) stays out, even where a projector has the rows. */
static void test_no_stage_meaning_in_a_lesson(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "first-look", 4, 200, 60);
	expect("lesson 4/9");
	expect("scores_h");
	expect_not("Cell (i, j) is the dot product");
	close_lesson(&ls);
}

static void test_training_step(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	for (int i = 0; i < 8; i++)
		harness_keys(&ls.h, "}");
	expect("lesson 9/17 · Training with torch.eye");
	assert_true(ls.h.a.view == &av_view_train);
	const struct av_trainer *tr = av_train_view_trainer(&ls.h.a);
	assert_non_null(tr);
	assert_int_equal(tr->epoch, 200);
	assert_int_equal(tr->set.target, AV_TARGET_SELF);
	expect("epoch 200 / 200");
	assert_true(strstr(harness_line(0), "lesson 9/17") != NULL);
	assert_rows_fit();
	/* } leaves the training view for the stepper, with the step's weights */
	harness_keys(&ls.h, "}");
	assert_true(ls.h.a.view == &av_view_stage);
	expect("lesson 10/17");
	close_lesson(&ls);
}

/* A step that trains in the stepper says so in the header, as the
 * training view's weights do, until other weights are drawn (r). */
static void test_stepper_training_step(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "first-look", 100, 30);
	for (int i = 0; i < 7; i++)
		harness_keys(&ls.h, "}");
	assert_true(strstr(harness_line(0), "lesson 8/9") != NULL);
	assert_true(ls.h.a.view == &av_view_stage);
	assert_non_null(av_lesson_ui_trained_step(&ls.h.a));
	assert_true(strstr(harness_line(0), "trained 200 ep") != NULL);
	harness_keys(&ls.h, "ry");         /* y: test_reseed_asks_in_a_lesson */
	assert_null(av_lesson_ui_trained_step(&ls.h.a));
	assert_null(strstr(harness_line(0), "trained"));
	harness_keys(&ls.h, "R");          /* the step's state again */
	assert_true(strstr(harness_line(0), "trained 200 ep") != NULL);
	harness_keys(&ls.h, "{");          /* step 7 trains nothing */
	assert_null(av_lesson_ui_trained_step(&ls.h.a));
	assert_null(strstr(harness_line(0), "trained"));
	close_lesson(&ls);
}

/* r in a lesson dropped the step's 200 trained epochs at once ("new weights
 * from seed 2"), where the free stepper and the man page ask first (QA:
 * first-look 9). r and :seed ask; n keeps them; q does not ask, the lesson
 * has them still. */
static void test_reseed_asks_in_a_lesson(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_at(&ls, "first-look", 9, 80, 24);
	struct av_app *a = &ls.h.a;
	assert_true(strstr(harness_line(0), "trained 200 ep") != NULL);
	harness_keys(&ls.h, "r");
	expect("discard 200 epochs of training? y/n");
	assert_true(ls.h.s.cfg.seed == 1);
	harness_keys(&ls.h, "n");
	expect("kept: the step's trained weights are still here");
	assert_true(ls.h.s.cfg.seed == 1);
	assert_non_null(av_lesson_ui_trained_step(a));
	harness_keys(&ls.h, ":seed 5\r");
	expect("discard 200 epochs of training? y/n");
	harness_keys(&ls.h, "y");
	assert_true(ls.h.s.cfg.seed == 5);
	expect("new weights from seed 5");
	assert_null(av_lesson_ui_trained_step(a));
	/* untrained weights: r draws at once, as in the free stepper */
	harness_keys(&ls.h, "r");
	assert_true(ls.h.s.cfg.seed == 6);
	harness_keys(&ls.h, "R");
	assert_non_null(av_lesson_ui_trained_step(a));
	harness_keys(&ls.h, "q");
	assert_true(a->quit);
	close_lesson(&ls);
}

/* china-panda 16 turns scaling off to compare with step 15's √dk on the same
 * trained weights (s cycles back to √dk); 17's temperature too: the steps
 * keep step 15's training instead of training again under their settings. */
static void test_later_steps_keep_the_training(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	for (int i = 0; i < 14; i++)
		harness_keys(&ls.h, "}");
	expect("lesson 15/17 · Remedy: Xavier initialisation");
	uint64_t trained = av_params_print(&ls.h.s.params);
	float dk_weight = ls.h.s.trace.weights[1];
	harness_keys(&ls.h, "}");
	expect("lesson 16/17");
	assert_int_equal(ls.h.s.cfg.scale, AV_SCALE_NONE);
	assert_true(av_params_print(&ls.h.s.params) == trained);
	harness_keys(&ls.h, "s");
	assert_int_equal(ls.h.s.cfg.scale, AV_SCALE_DK);
	assert_true(ls.h.s.trace.weights[1] == dk_weight);
	harness_keys(&ls.h, "}");
	expect("lesson 17/17");
	assert_true(ls.h.s.cfg.temperature == 2.0);
	assert_true(av_params_print(&ls.h.s.params) == trained);
	close_lesson(&ls);
}

/* The row of the screen that starts (after spaces) with label, or -1. */
static int row_of(const char *label)
{
	for (int y = 1; y < LINES; y++) {
		const char *l = harness_line(y);
		while (*l == ' ')
			l++;
		if (strncmp(l, label, strlen(label)) == 0)
			return y;
	}
	return -1;
}

static int count_char(const char *s, char c)
{
	int n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}

/* Row y has exactly `cells` marked cells side by side: "[", cells - 1 "|",
 * "]", and the column after "[" is underlined (a terminal without colour
 * shows that). */
static void assert_marked_run(int y, int cells)
{
	const char *l = harness_line(y);
	if (count_char(l, '[') != 1 || count_char(l, ']') != 1 ||
	    count_char(l, '|') != cells - 1) {
		fprintf(stderr, "row %d: expected %d marked cells: \"%s\"\n", y, cells, l);
		harness_dump();
		fail();
	}
	int open = -1;
	for (int x = 0; x < COLS && open < 0; x++)
		if ((mvwinch(curscr, y, x) & A_CHARTEXT) == '[')
			open = x;
	assert_true(open >= 0);
	assert_true(mvwinch(curscr, y, open + 1) & A_UNDERLINE);
}

static void assert_unmarked(int y)
{
	const char *l = harness_line(y);
	if (strchr(l, '[') || strchr(l, ']')) {
		fprintf(stderr, "row %d has a mark: \"%s\"\n", y, l);
		harness_dump();
		fail();
	}
}

/* A step's highlighted cells are drawn in brackets (bold, underlined) in
 * the stepper, the heads grid and the bars, with no colour on a vt100;
 * they stay while the student changes the stage, and go with another
 * sentence or another step until R. */
static void test_highlight(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson_on(&ls, "first-look", "vt100", true, 80, 24);
	struct av_app *a = &ls.h.a;
	harness_keys(&ls.h, "}");
	expect("lesson 2/9 · The attention table");
	/* step 2 marks the whole row of japan (query 2) */
	assert_marked_run(row_of("2 japan"), 4);
	assert_unmarked(row_of("1 panda"));
	/* another stage with the attention matrix: still marked */
	harness_keys(&ls.h, "p");
	assert_int_equal(a->stage, AV_STAGE_MASKED);
	assert_marked_run(row_of("2 japan"), 4);
	harness_keys(&ls.h, "n");
	/* the all-heads grid, then the bars (the cursor is on query 2) */
	harness_keys(&ls.h, "a");
	assert_true(a->view == &av_view_heads && !a->heads_bars);
	assert_marked_run(row_of("2 japan"), 4);
	assert_unmarked(row_of("3 cherry"));
	harness_keys(&ls.h, "a");
	assert_true(a->view == &av_view_heads && a->heads_bars);
	expect("[china]");
	expect("[panda]");
	/* the bars of another query have no mark */
	harness_keys(&ls.h, "k");
	expect_not("[china]");
	harness_keys(&ls.h, "a");
	/* another sentence: the positions are other words, the marks go */
	char *cause = NULL;
	assert_true(av_session_set_sentence(&ls.h.s, "cherry japan china panda", &cause));
	assert_true(av_app_rerun_all(a));
	av_app_draw(a);
	assert_true(a->view == &av_view_stage);
	assert_unmarked(row_of("2 china"));
	/* R puts the step back, marks and all */
	harness_keys(&ls.h, "R");
	assert_marked_run(row_of("2 japan"), 4);
	/* the next step marks nothing */
	harness_keys(&ls.h, "}");
	expect("lesson 3/9");
	assert_unmarked(row_of("2 japan"));
	close_lesson(&ls);

	/* china-panda step 4: one cell, china's score for panda */
	open_lesson_on(&ls, "china-panda", "vt100", true, 80, 24);
	harness_keys(&ls.h, "}}}");
	expect("lesson 4/17 · The score of china for panda");
	assert_marked_run(row_of("0 china"), 1);
	close_lesson(&ls);
}

static void test_chinese_captions(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	setenv("LANG", "zh_CN.UTF-8", 1);
	struct lesson_screen ls;
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	expect("lesson 1/15 · 设定：五个词元，512 维");
	expect("教程构造了");
	assert_rows_fit();
	for (int i = 0; i < 14; i++) {
		harness_keys(&ls.h, "}");
		assert_rows_fit();
	}
	expect("lesson 15/15");
	close_lesson(&ls);
	unsetenv("LANG");

	/* as gettext picks the interface's language: LANGUAGE first, unless
	 * the messages' locale is C */
	setenv("LANG", "de_DE.UTF-8", 1);
	setenv("LANGUAGE", "zh_CN", 1);
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	expect("教程构造了");
	close_lesson(&ls);
	setenv("LANG", "C", 1);
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	expect("The setting: five tokens, 512 wide");
	close_lesson(&ls);
	unsetenv("LANGUAGE");
	unsetenv("LANG");

	/* the figures view's header names the step too */
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	harness_keys(&ls.h, "}}}}}}}}");
	assert_true(ls.h.a.view == &av_view_figures);
	assert_true(strstr(harness_line(0), "lesson 9/15") != NULL);
	assert_true(strstr(harness_line(0), "1/4 tril mask") != NULL);
	close_lesson(&ls);

	/* a terminal that cannot show Chinese gets the English captions */
	char *saved = av_strdup(setlocale(LC_CTYPE, NULL));
	setlocale(LC_CTYPE, "C");
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	expect("The setting: five tokens, 512 wide");
	close_lesson(&ls);
	setlocale(LC_CTYPE, saved);
	free(saved);
	unsetenv("LANG");
}

/* s without spaces (wrapping breaks lines at spaces, CJK anywhere). */
static char *squeeze(const char *s)
{
	char *out = av_malloc(strlen(s) + 1), *o = out;
	for (; *s; s++)
		if (*s != ' ')
			*o++ = *s;
	*o = '\0';
	return out;
}

/* A caption row as text: without the scroll marks at its right edge. */
static void caption_row(int y, char *out, size_t size)
{
	snprintf(out, size, "%s", harness_line(y));
	const char *marks[] = { _("▼ more"), "▲" };
	for (size_t i = 0; i < 2; i++) {
		char *m = strstr(out, marks[i]);
		if (m)
			memset(m, ' ', strlen(marks[i]));
	}
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == ' ')
		out[--n] = '\0';
}

/* A caption row breaks where Chinese allows (av_line_may_break): it does
 * not start with "，" or "）", nor end with "（". */
static void assert_row_breaks_well(const char *row)
{
	size_t len = strlen(row), i = 0;
	while (i < len && row[i] == ' ')
		i++;
	uint32_t first = 0, cp = 0, end = 0;
	for (bool at_first = true; i < len; at_first = false) {
		int k = av_utf8_decode(row + i, len - i, &cp);
		if (k < 0)
			break;
		if (at_first)
			first = cp;
		end = cp;
		i += (size_t)k;
	}
	if (!av_line_may_break('a', first) || !av_line_may_break(end, 'a')) {
		harness_dump();
		fail_msg("a caption row breaks badly: \"%s\"", row);
	}
}

/* The whole caption of the step on screen, read through the pane with J
 * until "▼ more" goes (rows seen twice, the one J keeps in view, once). */
static char *read_caption(struct lesson_screen *ls, int pane)
{
	int rows = pane - 1, top = LINES - pane + 1, n = 0;
	char (*seen)[4096] = av_calloc(400, sizeof *seen);
	for (int page = 0; page < 100; page++) {
		char now[32][4096];
		for (int r = 0; r < rows; r++) {
			caption_row(top + r, now[r], sizeof(now[r]));
			assert_row_breaks_well(now[r]);
		}
		/* the most rows the new page shares with the end of the old one */
		int overlap = 0;
		for (int k = rows < n ? rows : n; k > 0 && !overlap; k--) {
			bool same = true;
			for (int r = 0; r < k && same; r++)
				same = strcmp(seen[n - k + r], now[r]) == 0;
			if (same)
				overlap = k;
		}
		if (page > 0 && overlap == rows)
			break;   /* J moved nothing: the end */
		for (int r = overlap; r < rows && n < 400; r++)
			memcpy(seen[n++], now[r], sizeof(now[r]));
		if (harness_find(_("▼ more")) < top)
			break;
		harness_keys(&ls->h, "J");
	}
	size_t len = 1;
	for (int r = 0; r < n; r++)
		len += strlen(seen[r]);
	char *all = av_calloc(len, 1);
	for (int r = 0; r < n; r++)
		strcat(all, seen[r]);
	free(seen);
	char *flat = squeeze(all);
	free(all);
	return flat;
}

/* Every paragraph of step i's caption in lang is on the pane (scrolled
 * through with J, then back to the top with K), under its title. */
static void assert_caption(struct lesson_screen *ls, int i, enum av_lang lang)
{
	const struct av_lesson_text *text = &ls->l.steps[i].text[lang];
	int pane = av_lesson_ui_rows(&ls->h.a, LINES);
	assert_true(pane >= 3);
	/* "lesson 4/17 · ", in the interface's language as the pane says it */
	char *label = av_printf(_("lesson %d/%d"), i + 1, ls->l.n_steps);
	char *title = av_printf("%s · ", label);
	free(label);
	if (!strstr(harness_line(LINES - pane), title)) {
		harness_dump();
		fail_msg("%s step %d (%dx%d): no \"%s\" on the pane's first row", ls->l.name,
			 i + 1, COLS, LINES, title);
	}
	free(title);
	char *shown = read_caption(ls, pane);
	for (int p = 0; p < text->n_paragraphs; p++) {
		char *want = squeeze(text->paragraphs[p]);
		if (!strstr(shown, want)) {
			harness_dump();
			fprintf(stderr, "read: %s\nwant: %s\n", shown, want);
			fail_msg("%s step %d (%s, %dx%d): paragraph %d is not readable in the pane",
				 ls->l.name, i + 1, av_lang_names[lang], COLS, LINES, p + 1);
		}
		free(want);
	}
	free(shown);
	/* K goes back to the top, where a step starts */
	for (int k = 0; k < 100 && harness_find("▲") >= LINES - pane; k++)
		harness_keys(&ls->h, "K");
	assert_true(harness_find("▲") < LINES - pane);
}

/* A caption longer than the pane: "▼ more" on its last row, J shows the
 * rest with "▲" above, K goes back, and a new step starts at its top. */
static void test_caption_scroll(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct lesson_screen ls;
	open_lesson(&ls, "first-look", 40, 16);
	int pane = av_lesson_ui_rows(&ls.h.a, LINES), top = LINES - pane;
	assert_int_equal(pane, 4);
	assert_true(strstr(harness_line(LINES - 1), "▼ more") != NULL);
	assert_true(harness_find("▲") < 0);
	char first[4096];
	snprintf(first, sizeof(first), "%s", harness_line(top + 1));
	harness_keys(&ls.h, "J");
	assert_true(strstr(harness_line(top + 1), "▲") != NULL);
	assert_string_not_equal(harness_line(top + 1), first);
	harness_keys(&ls.h, "K");
	assert_string_equal(harness_line(top + 1), first);
	assert_true(harness_find("▲") < 0);
	/* J as far as it goes: the end, and no "▼ more" */
	for (int k = 0; k < 50; k++)
		harness_keys(&ls.h, "J");
	assert_true(strstr(harness_line(LINES - 1), "▼ more") == NULL);
	assert_true(harness_find("▲") >= top);
	/* the next step starts at the top of its own caption */
	harness_keys(&ls.h, "}");
	expect("lesson 2/9");
	assert_true(harness_find("▲") < 0);
	assert_true(strstr(harness_line(LINES - 1), "▼ more") != NULL);
	close_lesson(&ls);

	/* the all-heads grid gets the height: a pane of 4 rows under it (two
	 * tiles of 8 heads then show 3 of the 5 query rows, not 2), 7 again
	 * under the bars */
	open_lesson(&ls, "qkv-walkthrough", 80, 24);
	for (int i = 0; i < 12; i++)
		harness_keys(&ls.h, "}");
	assert_true(ls.h.a.view == &av_view_heads && !ls.h.a.heads_bars);
	assert_int_equal(av_lesson_ui_rows(&ls.h.a, LINES), 4);
	expect("lesson 13/15 · Eight heads at once");
	expect("rows 0-2 of 5");
	expect("a cycles the grid");   /* its caption fits the 4 rows */
	expect_not("▼ more");
	harness_keys(&ls.h, "a");
	assert_int_equal(av_lesson_ui_rows(&ls.h.a, LINES), 7);
	harness_keys(&ls.h, "aa");
	assert_int_equal(av_lesson_ui_rows(&ls.h.a, LINES), 4);
	expect("rows 0-2 of 5");
	close_lesson(&ls);

	/* at 80x24 the same caption fits: nothing to scroll */
	open_lesson(&ls, "first-look", 80, 24);
	expect_not("▼ more");
	harness_keys(&ls.h, "J");
	expect("the whole caption is shown");
	expect_not("▲");
	close_lesson(&ls);
}

/* The screen and the session hold step i's state. The numbers are those a
 * session gets from the state alone (av_lesson_apply), unless the step
 * opens the training view, which trains them itself from fresh weights. */
static void assert_state(struct lesson_screen *ls, int i, bool numbers)
{
	const struct av_lesson_state *st = &ls->l.steps[i].state;
	const struct av_app *a = &ls->h.a;
	const struct av_session *s = &ls->h.s;
	assert_string_equal(s->sentence, st->sentence);
	assert_true((!s->source && !st->source) ||
		    (s->source && st->source && strcmp(s->source, st->source) == 0));
	assert_int_equal(s->cfg.mode, st->mode);
	assert_int_equal(s->cfg.scale, st->scale);
	assert_true(s->cfg.temperature == st->temperature);
	assert_true(s->cfg.seed == st->seed);
	assert_int_equal(s->cfg.init, st->init);
	for (int k = 0; k < AV_MAX_TOKENS; k++)
		assert_int_equal(s->key_hidden[k], st->hidden[k]);
	assert_int_equal(a->head, st->head);
	switch (st->view) {
	case AV_LVIEW_STEPPER:
	case AV_LVIEW_HEADS:
	case AV_LVIEW_BARS:
		assert_true(a->view == (st->view == AV_LVIEW_STEPPER ? &av_view_stage
					: &av_view_heads));
		if (st->view != AV_LVIEW_STEPPER)
			assert_int_equal(a->heads_bars, st->view == AV_LVIEW_BARS);
		assert_int_equal(a->stage, st->stage);
		assert_int_equal(a->sel_query, st->query);
		assert_int_equal(a->sel_key, st->key);
		break;
	case AV_LVIEW_FIGURES:
		assert_true(a->view == &av_view_figures);
		break;
	case AV_LVIEW_TRAINING: {
		assert_true(a->view == &av_view_train);
		const struct av_trainer *tr = av_train_view_trainer(a);
		assert_non_null(tr);
		assert_int_equal(tr->epoch, st->train.epochs);
		assert_int_equal(tr->set.target, st->train.target);
		assert_int_equal(tr->set.optimizer, st->train.optimizer);
		return;
	}
	}
	if (!numbers)
		return;
	struct av_session ref;
	char *cause = NULL;
	if (!av_lesson_session_new(&ls->l, &ref, &cause) ||
	    !av_lesson_apply(&ls->l, st, &ref, &cause))
		fail_msg("%s", cause);
	const struct av_trace *t = &s->trace, *r = &ref.trace;
	assert_int_equal(t->n, r->n);
	assert_int_equal(t->m, r->m);
	size_t count = (size_t)t->heads * (size_t)t->n * (size_t)t->m;
	for (size_t c = 0; c < count; c++)
		assert_true(t->weights[c] == r->weights[c]);
	av_session_free(&ref);
}

/* Plays every step of a lesson in one language at one size: } from the
 * first to the last, each step's caption readable in the pane, its state
 * on the screen, no row wider than the terminal; then { back once. */
static void play_lesson(const char *name, enum av_lang lang, int cols, int lines, bool numbers)
{
	struct lesson_screen ls;
	open_lesson(&ls, name, cols, lines);
	for (int i = 0; i < ls.l.n_steps; i++) {
		if (i > 0)
			harness_keys(&ls.h, "}");
		assert_rows_fit();
		assert_state(&ls, i, numbers);
		assert_caption(&ls, i, lang);
		assert_rows_fit();
	}
	harness_keys(&ls.h, "}");
	expect("the last step");
	harness_keys(&ls.h, "{");
	assert_state(&ls, ls.l.n_steps - 2, false);
	close_lesson(&ls);
}

/* Every step of every shipped lesson, in both languages, at 80x24 and at
 * the smallest size that keeps a caption pane on every step (40x16: the
 * figure's minimum, 40x13 with cross mode's two token rows, and a pane of
 * a title and two rows). */
static void test_every_step(void **state)
{
	(void)state;
	const char *names[] = { "first-look", "qkv-walkthrough", "china-panda" };
	const int sizes[][2] = { { 80, 24 }, { 40, 16 } };
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		if (lang == AV_LANG_ZH_CN && !utf8)
			break;
		if (lang == AV_LANG_ZH_CN)
			setenv("LANG", "zh_CN.UTF-8", 1);
		for (size_t i = 0; i < 3; i++)
			for (size_t z = 0; z < 2; z++)
				play_lesson(names[i], (enum av_lang)lang, sizes[z][0], sizes[z][1],
					    lang == AV_LANG_EN && z == 0);
		unsetenv("LANG");
	}
}

/* A student alone at 80x24 reads every caption without J: china-panda 9
 * and 12 and qkv-walkthrough 13 hid what to watch or press below the fold
 * (QA). Every shipped step in both languages, the pane with no "▼ more". */
static void test_captions_whole_at_80x24(void **state)
{
	(void)state;
	const char *names[] = { "first-look", "qkv-walkthrough", "china-panda" };
	for (int lang = 0; lang < AV_LANG_COUNT; lang++) {
		if (lang == AV_LANG_ZH_CN && !utf8)
			break;
		if (lang == AV_LANG_ZH_CN)
			setenv("LANG", "zh_CN.UTF-8", 1);
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			struct lesson_screen ls;
			open_lesson(&ls, names[i], 80, 24);
			for (int step = 0; step < ls.l.n_steps; step++) {
				if (step > 0)
					harness_keys(&ls.h, "}");
				int top = LINES - av_lesson_ui_rows(&ls.h.a, LINES);
				if (harness_find(_("▼ more")) >= top) {
					harness_dump();
					fail_msg("%s step %d (%s): the caption needs J at 80x24",
						 names[i], step + 1, av_lang_names[lang]);
				}
			}
			close_lesson(&ls);
		}
		unsetenv("LANG");
	}
}

/* Every step of every shipped lesson without a UTF-8 locale: the English
 * captions' dashes, arrows and × reach the screen as ASCII (test_ui.c's
 * test_ascii_every_view does the same for the views). */
static void test_every_step_ascii(void **state)
{
	(void)state;
	const char *names[] = { "first-look", "qkv-walkthrough", "china-panda" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct lesson_screen ls;
		open_lesson(&ls, names[i], 80, 24);
		av_draw_set_utf8(false);   /* as av_app_init decides in a C locale */
		harness_key(&ls.h, AV_CTRL('L'));
		for (int step = 0; step < ls.l.n_steps; step++) {
			if (step > 0)
				harness_keys(&ls.h, "}");
			char what[64];
			snprintf(what, sizeof what, "%s, step %d", names[i], step + 1);
			expect_ascii(what);
		}
		close_lesson(&ls);
		av_draw_set_utf8(utf8);
	}
}

static void test_sizes(void **state)
{
	(void)state;
	const int sizes[][2] = { { 80, 24 }, { 200, 60 }, { 80, 19 }, { 40, 12 } };
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		struct lesson_screen ls;
		open_lesson(&ls, "first-look", sizes[i][0], sizes[i][1]);
		assert_rows_fit();
		harness_keys(&ls.h, "}");
		assert_rows_fit();
		/* below 19 lines the pane gives way to the minimum layout */
		if (sizes[i][1] >= 19)
			expect("lesson 2/9");
		else
			assert_false(ls.h.a.layout.too_small);
		close_lesson(&ls);
	}
}

/* At step 3 the inspector's two rows sent its first line above the colour
 * legend; it reads after it, as on a taller screen. */
static void test_legend_before_inspector(void **state)
{
	(void)state;
	struct lesson_screen ls;
	open_lesson(&ls, "china-panda", 80, 24);
	harness_keys(&ls.h, "}}");
	expect("lesson 3/17");
	int legend = harness_find("(0 = middle)"), cell = harness_find("Q[0,0] = 2.201");
	if (!(legend >= 0 && legend < cell)) {
		harness_dump();
		fail_msg("legend on row %d, the cell's line on row %d", legend, cell);
	}
	close_lesson(&ls);
}

int main(void)
{
	utf8 = harness_setup_process();
	unsetenv("LANG");
	unsetenv("LC_ALL");
	unsetenv("LC_MESSAGES");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pane_and_steps),
		cmocka_unit_test(test_header_keeps_lesson_when_pinned),
		cmocka_unit_test(test_heads_header_keeps_lesson_at_40),
		cmocka_unit_test(test_pane_title_cut_after_word),
		cmocka_unit_test(test_pane_hidden_is_said),
		cmocka_unit_test(test_tokens_stage_shows_the_lesson),
		cmocka_unit_test(test_explore_then_return),
		cmocka_unit_test(test_restore_at_the_state_says_so),
		cmocka_unit_test(test_enter_without_a_question),
		cmocka_unit_test(test_answer_right_and_wrong),
		cmocka_unit_test(test_answer_on_another_stage),
		cmocka_unit_test(test_caption_keys_not_while_editing),
		cmocka_unit_test(test_training_step),
		cmocka_unit_test(test_stepper_training_step),
		cmocka_unit_test(test_reseed_asks_in_a_lesson),
		cmocka_unit_test(test_highlight),
		cmocka_unit_test(test_chinese_captions),
		cmocka_unit_test(test_inspector_in_order),
		cmocka_unit_test(test_inspector_cut_keeps_the_result),
		cmocka_unit_test(test_caption_scroll),
		cmocka_unit_test(test_later_steps_keep_the_training),
		cmocka_unit_test(test_every_step),
		cmocka_unit_test(test_every_step_ascii),
		cmocka_unit_test(test_captions_whole_at_80x24),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_legend_before_inspector),
		cmocka_unit_test(test_open_at_step),
		cmocka_unit_test(test_no_stage_meaning_in_a_lesson),
		cmocka_unit_test(test_weights_figure_from_step_3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
