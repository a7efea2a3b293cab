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

#include "lesson/lesson.h"
#include "train.h"
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

/* Every caption of every shipped lesson fits the pane at 80x24, in both
 * languages: the pane's last row never ends in the "more" mark. */
static void assert_captions_fit(const char *name)
{
	struct lesson_screen ls;
	open_lesson(&ls, name, 80, 24);
	for (int i = 0; i < ls.l.n_steps; i++) {
		if (i > 0)
			harness_keys(&ls.h, "}");
		const char *last = harness_line(LINES - 1);
		size_t n = strlen(last);
		while (n > 0 && last[n - 1] == ' ')
			n--;
		if (n >= 3 && strncmp(last + n - 3, "…", 3) == 0) {
			harness_dump();
			fail_msg("%s step %d: the caption is cut", name, i + 1);
		}
		assert_rows_fit();
	}
	close_lesson(&ls);
}

static void test_captions_fit(void **state)
{
	(void)state;
	const char *names[] = { "first-look", "qkv-walkthrough", "china-panda" };
	for (int lang = 0; lang < 2; lang++) {
		if (lang == 1 && !utf8)
			break;
		if (lang == 1)
			setenv("LANG", "zh_CN.UTF-8", 1);
		for (size_t i = 0; i < 3; i++)
			assert_captions_fit(names[i]);
		unsetenv("LANG");
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

int main(void)
{
	utf8 = harness_setup_process();
	unsetenv("LANG");
	unsetenv("LC_ALL");
	unsetenv("LC_MESSAGES");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pane_and_steps),
		cmocka_unit_test(test_explore_then_return),
		cmocka_unit_test(test_answer_right_and_wrong),
		cmocka_unit_test(test_training_step),
		cmocka_unit_test(test_highlight),
		cmocka_unit_test(test_chinese_captions),
		cmocka_unit_test(test_captions_fit),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
