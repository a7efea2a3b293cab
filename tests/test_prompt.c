/* test_prompt.c: the prompt on a virtual screen (ncurses on /dev/null):
 * the ':' commands with their errors (the prompt stays open to correct a
 * value), Tab completion, 0, W writing every format into a temporary
 * directory, the overwrite question, and cross mode for a sample without
 * a source (issue 7, defect 5). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "train.h"
#include "ui_harness.h"
#include "weights.h"

#define OPEN(h, cols, lines, sample, sentence, mode) \
	assert_true(harness_open((h), "xterm-256color", (cols), (lines), (sample), \
				 (sentence), (mode), NULL))

#define ESC "\x1b"
#define CTRL_U "\x15"

static char dir[64];
/* whether the screen draws UTF-8 (the locale the harness set up) */
static bool utf8;

static char *slurp(const char *name)
{
	char *text = NULL, *cause = NULL;
	size_t len;
	if (!av_read_file(name, &text, &len, &cause))
		fail_msg("%s", cause);
	return text;
}

static bool file_exists(const char *name)
{
	struct stat st;
	return stat(name, &st) == 0;
}

/* The status line: the last row. */
static const char *status_line(void)
{
	return harness_line(LINES - 1);
}

static void expect_status(const char *text)
{
	if (!harness_status_has(LINES - 1, text)) {
		fprintf(stderr, "not on the status line: \"%s\"\n", text);
		harness_dump();
		fail();
	}
}

/* --- defect 5: cross mode for a sample without a source ------------------ */

/* c on the way to cross with no source: the source editor opens, and Enter
 * goes to cross mode with what was typed (it used to say "no source
 * sentence (--source)" and go back to self). */
static void test_c_types_the_missing_source(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "cc");
	expect_status("source>");
	assert_non_null(strstr(harness_line(0), "causal"));
	harness_keys(&h, "la mer\r");
	assert_non_null(strstr(harness_line(0), "cross"));
	assert_non_null(strstr(harness_line(2), "source 0 la*  1 mer*"));
	assert_int_equal(h.s.trace.m, 2);
	harness_close(&h);
}

/* An empty source does not run: the editor stays open with the reason. */
static void test_c_empty_source_stays_open(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "cc\r");
	expect_status("source>");
	assert_non_null(strstr(harness_line(0), "causal"));
	harness_keys(&h, ESC);
	expect_status("edit cancelled");
	assert_null(h.s.source);
	harness_close(&h);
}

/* E outside cross mode: the source editor (it used to say "used in cross
 * mode"), then the switch is offered. */
static void test_E_outside_cross_offers_the_switch(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "E");
	expect_status("source>");
	harness_keys(&h, "la mer\r");
	expect_status("switch to cross mode");
	harness_keys(&h, "n");
	assert_non_null(strstr(harness_line(0), "self"));
	expect_status("source kept");
	assert_string_equal(h.s.source, "la mer");
	harness_keys(&h, "E" CTRL_U "le chat\ry");
	assert_non_null(strstr(harness_line(0), "cross"));
	assert_non_null(strstr(harness_line(2), "source 0 le"));
	harness_close(&h);
}

/* --- the command prompt --------------------------------------------------- */

static void test_command_values(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":");
	expect_status(":");
	expect_status("Tab completes");
	harness_keys(&h, "temp 0.5\r");
	assert_non_null(strstr(harness_line(0), "T=0.5"));
	/* a bad value: the prompt stays open with a precise error */
	harness_keys(&h, ":temp abc\r");
	expect_status(":temp abc");
	expect_status("temp: expected a number between 0.01 and 100, got \"abc\"");
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, CTRL_U "temperature 1000\r");
	expect_status("temperature: expected a number between 0.01 and 100, got \"1000\"");
	harness_keys(&h, CTRL_U "temperature 2\r");
	assert_non_null(strstr(harness_line(0), "T=2"));
	assert_null(h.a.overlay);
	harness_keys(&h, "0");
	assert_non_null(strstr(harness_line(0), "T=1 "));
	harness_keys(&h, ":seed 7\r");
	assert_non_null(strstr(harness_line(0), "seed=7"));
	expect_status("new weights from seed 7");
	harness_keys(&h, ":seed -3\r");
	expect_status("seed: -3 is out of range (0 to 9007199254740991)");
	harness_keys(&h, ESC);
	assert_null(h.a.overlay);
	harness_keys(&h, ":sentence panda japan china\r");
	assert_non_null(strstr(harness_line(1), "0 panda  1 japan  2 china"));
	harness_keys(&h, ":frobnicate\r");
	expect_status("unknown command \"frobnicate\"");
	harness_keys(&h, ESC ":help\r");
	expect_status("seed N · temp X · lr X");
	harness_close(&h);
}

/* :temp 0 puts the temperature back to 1, as the 0 key does and the man
 * page says (it was refused: "expected a number between 0.01 and 100");
 * other values below 0.01 are still refused. */
static void test_command_temp_zero_resets(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":temp 0.5\r");
	assert_non_null(strstr(harness_line(0), "T=0.5"));
	harness_keys(&h, ":temp 0\r");
	assert_null(h.a.overlay);
	assert_true(h.s.cfg.temperature == 1.0);
	assert_non_null(strstr(harness_line(0), "T=1 "));
	expect_status("temperature 1: softmax is plain (T = 1)");
	harness_keys(&h, ":temperature 0.0\r");
	assert_null(h.a.overlay);
	assert_true(h.s.cfg.temperature == 1.0);
	harness_keys(&h, ":temp 0.001\r");
	expect_status("temp: expected a number between 0.01 and 100, got \"0.001\"");
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, CTRL_U "temp -1\r");
	expect_status("temp: expected a number between 0.01 and 100, got \"-1\"");
	harness_keys(&h, ESC);
	assert_true(h.s.cfg.temperature == 1.0);
	harness_close(&h);
}

/* lr sets what the training view starts with, or its trainer's rate. */
static void test_command_lr(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":lr 0\r");
	expect_status("lr: expected a positive finite number, got \"0\"");
	harness_keys(&h, CTRL_U "lr 0.25\r");
	expect_status("learning rate 0.25 (the training view, t, starts with it)");
	harness_keys(&h, "t");
	assert_non_null(av_train_view_trainer(&h.a));
	assert_true(av_train_view_trainer(&h.a)->set.lr == 0.25);
	harness_keys(&h, "t:lr 0.5\r");
	assert_true(av_train_view_trainer(&h.a)->set.lr == 0.5);
	/* in the training view itself */
	harness_keys(&h, "t");
	assert_true(h.a.view == &av_view_train);
	harness_keys(&h, ":lr 0.125\r");
	assert_true(av_train_view_trainer(&h.a)->set.lr == 0.125);
	harness_keys(&h, ":seed 3\r");
	expect_status("seed: a setting of the stepper");
	harness_keys(&h, "\x1b");
	harness_close(&h);
}

/* :quit and :q end the screen as q does: after unsaved training, only once
 * the question is answered y; a value is refused. */
static void test_command_quit(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":quit now\r");
	expect_status("quit: takes no value, got \"now\"");
	assert_false(h.a.quit);
	harness_keys(&h, ESC ":q\r");
	assert_true(h.a.quit);
	h.a.quit = false;
	harness_keys(&h, "tss:quit\r");
	assert_false(h.a.quit);
	expect_status("discard 2 epochs of training? y/n");
	harness_keys(&h, "n");
	assert_false(h.a.quit);
	harness_keys(&h, ":q\ry");
	assert_true(h.a.quit);
	harness_close(&h);
}

/* :seed N draws new weights as r does: after unsaved training, only once
 * the question is answered y (it drew them at once, the training lost);
 * n keeps the trained weights and the seed. */
static void test_command_seed_asks_before_discarding(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	uint64_t seed = h.a.s->cfg.seed;
	harness_keys(&h, "tsst");
	assert_non_null(strstr(harness_line(0), "trained 2 ep"));
	uint64_t trained = av_params_print(&h.a.s->params);
	harness_keys(&h, ":seed 5\r");
	expect_status("discard 2 epochs of training? y/n");
	assert_true(h.a.s->cfg.seed == seed);
	assert_true(av_params_print(&h.a.s->params) == trained);
	harness_keys(&h, "n");
	expect_status("kept: the training is still here (t shows it)");
	assert_true(h.a.s->cfg.seed == seed);
	assert_true(av_params_print(&h.a.s->params) == trained);
	assert_non_null(strstr(harness_line(0), "trained 2 ep"));
	harness_keys(&h, ":seed 5\ry");
	expect_status("new weights from seed 5");
	assert_true(h.a.s->cfg.seed == 5);
	assert_true(av_params_print(&h.a.s->params) != trained);
	assert_null(strstr(harness_line(0), "trained"));
	/* the training is gone: new weights are drawn at once, q quits at once
	 * (it asked again about the run left behind) */
	harness_keys(&h, ":seed 6\r");
	expect_status("new weights from seed 6");
	harness_keys(&h, "q");
	assert_true(h.a.quit);
	harness_close(&h);
}

/* r in the stepper, answered y: the training is gone, q does not ask
 * about it again, and asks about the next run. */
static void test_reseed_discards_once(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "tsstr");
	expect_status("discard 2 epochs of training? y/n");
	harness_keys(&h, "y");
	expect_status("new weights from seed ");
	harness_keys(&h, "q");
	assert_true(h.a.quit);
	/* a new run of as many steps is asked about (the given-up run's count
	 * of steps made it look saved) */
	h.a.quit = false;
	harness_keys(&h, "tsstq");
	expect_status("discard 2 epochs of training? y/n");
	assert_false(h.a.quit);
	harness_close(&h);
}

/* The training view writes its trainer's weights (trained, not the
 * stepper's), and no figure; once they are written, q quits without asking
 * to discard the training. */
static void test_write_trained_weights(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "tsss");
	const struct av_trainer *tr = av_train_view_trainer(&h.a);
	assert_int_equal(tr->epoch, 3);
	assert_true(av_train_view_unsaved(&h.a));
	harness_keys(&h, "Wc");
	expect_status("the figures are the stepper's");
	harness_keys(&h, ESC "Ww");
	expect_status("write weights to: attnview-weights-epoch3.json");
	harness_keys(&h, "\r");
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	char *cause = NULL;
	if (!av_weights_load("attnview-weights-epoch3.json", &cfg, NULL, &p, &cause))
		fail_msg("%s", cause);
	size_t n;
	const float *trained = av_param_tensor(&tr->params, AV_P_W_Q, &n);
	const float *loaded = av_param_tensor(&p, AV_P_W_Q, &n);
	const float *stepper = av_param_tensor(&h.s.params, AV_P_W_Q, &n);
	assert_memory_equal(trained, loaded, n * sizeof(float));
	assert_memory_not_equal(stepper, loaded, n * sizeof(float));
	av_params_free(&p);
	unlink("attnview-weights-epoch3.json");
	assert_false(av_train_view_unsaved(&h.a));
	harness_keys(&h, "qq");   /* back to the stepper, then quit */
	assert_true(h.a.quit);
	harness_close(&h);
}

/* W t in the training view writes the trace of the trained weights, with
 * the training record: byte for byte the file t back to the stepper and W t
 * write, and the same params as W w (it wrote the untrained weights the
 * training started from, without a record). The trace holds the trained
 * weights, so q no longer asks. */
static void test_write_trained_trace(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "tss");
	assert_true(av_train_view_unsaved(&h.a));
	harness_keys(&h, "Wt" CTRL_U "in-view.json\r");
	expect_status("/in-view.json");
	bool unsaved_after_trace = av_train_view_unsaved(&h.a);
	harness_keys(&h, "Ww" CTRL_U "weights.json\r");
	harness_keys(&h, "tWt" CTRL_U "stepper.json\r");
	expect_status("/stepper.json");
	char *in_view = slurp("in-view.json"), *stepper = slurp("stepper.json");
	assert_non_null(strstr(in_view, "\"training\""));
	assert_string_equal(in_view, stepper);
	struct av_config cfg;
	struct av_params from_trace, from_weights;
	char *cause = NULL;
	av_config_default(&cfg);
	if (!av_weights_load("in-view.json", &cfg, NULL, &from_trace, &cause) ||
	    !av_weights_load("weights.json", &cfg, NULL, &from_weights, &cause))
		fail_msg("%s", cause);
	assert_true(av_params_print(&from_trace) == av_params_print(&from_weights));
	av_params_free(&from_trace);
	av_params_free(&from_weights);
	free(in_view);
	free(stepper);
	unlink("in-view.json");
	unlink("stepper.json");
	unlink("weights.json");
	assert_false(unsaved_after_trace);
	harness_close(&h);
}

static void test_command_source(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":source la mer\r");
	expect_status("switch to cross mode");
	harness_keys(&h, "y");
	assert_non_null(strstr(harness_line(0), "cross"));
	harness_keys(&h, ":source le chat noir\r");
	assert_int_equal(h.s.trace.m, 3);
	harness_close(&h);
}

/* :sentence with the text on screen says so (it said "sentence: 4 tokens",
 * which after a first :sentence left the message line as it was). */
static void test_command_same_sentence_said(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":sentence china panda japan cherry\r");
	assert_null(h.a.overlay);
	expect_status("sentence already on screen (4 tokens)");
	harness_keys(&h, ":sentence panda japan\r");
	expect_status("sentence: 2 tokens");
	harness_keys(&h, ":sentence panda japan\r");
	expect_status("sentence already on screen (2 tokens)");
	harness_close(&h);
}

/* Enter in the e editor on the text it opened with says, as :sentence
 * does, that the sentence was already on screen: it said "sentence: 4
 * tokens" as if it had changed. A changed text still says its count. */
static void test_editor_same_sentence_said(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "e\r");
	assert_null(h.a.overlay);
	expect_status("sentence already on screen (4 tokens)");
	harness_keys(&h, "e");
	harness_key(&h, KEY_BACKSPACE);
	harness_keys(&h, "\r");
	expect_status("sentence: 4 tokens");
	/* the source of cross mode likewise, by E and by :source */
	harness_keys(&h, "cc");
	harness_keys(&h, "la mer\r");
	assert_non_null(strstr(harness_line(0), "cross"));
	harness_keys(&h, "E\r");
	expect_status("source already on screen (2 tokens)");
	harness_keys(&h, ":source la mer\r");
	expect_status("source already on screen (2 tokens)");
	harness_keys(&h, ":source le chat noir\r");
	expect_status("source: 3 tokens");
	harness_close(&h);
}

/* A sentence's or a source's error names its text once: the command's name
 * before it read "source: the source has more than 64 tokens". */
static void test_command_text_errors_said_once(void **state)
{
	(void)state;
	struct harness h;
	char words[512];
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_words(words, sizeof(words), "w", 65);
	harness_keys(&h, ":source ");
	harness_keys(&h, words);
	harness_keys(&h, "\r");
	expect_status("the source has more than 64 tokens");
	assert_false(harness_status_has(LINES - 1, "source: the source"));
	harness_keys(&h, ESC ":sentence\r");
	expect_status("the sentence is empty");
	assert_false(harness_status_has(LINES - 1, "sentence: the sentence"));
	harness_keys(&h, ESC "cc");   /* to cross mode, where the source runs */
	harness_keys(&h, "la mer\r");
	assert_non_null(strstr(harness_line(0), "cross"));
	harness_keys(&h, ":source ");
	harness_keys(&h, words);
	harness_keys(&h, "\r");
	expect_status("the source has more than 64 tokens");
	assert_false(harness_status_has(LINES - 1, "source: the source"));
	/* a source of spaces: what is wrong with it, not a pointer to the
	 * command line's --source (helper-59) */
	harness_keys(&h, ESC ":source    \r");
	expect_status("the source is empty");
	assert_false(harness_status_has(LINES - 1, "--source"));
	harness_close(&h);
}

static void test_tab_completes(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":he\t");
	expect_status(":help ");
	harness_keys(&h, CTRL_U "s\t");
	expect_status("seed, source, sentence");
	harness_keys(&h, "o\t");
	expect_status(":source ");
	harness_keys(&h, CTRL_U "te\t");
	expect_status(":temp");
	expect_status("temp, temperature");
	harness_keys(&h, CTRL_U "x\t");
	expect_status("no command starts so");
	harness_close(&h);
}

/* --- W: writing files ----------------------------------------------------- */

static void go_to_softmax(struct harness *h)
{
	while (h->a.stage != AV_STAGE_SOFTMAX)
		harness_keys(h, "n");
}

static void test_write_every_format(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, AV_MODE_CAUSAL);
	go_to_softmax(&h);
	harness_keys(&h, "W");
	expect_status("write: t trace  w weights  c csv  p text  a ansi  s svg");
	harness_keys(&h, "s");
	expect_status("write svg to: attnview-softmax-h0.svg");
	harness_keys(&h, "\r");
	expect_status("wrote ");
	expect_status("/attnview-softmax-h0.svg");
	char *svg = slurp("attnview-softmax-h0.svg");
	assert_int_equal(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44), 0);
	assert_non_null(strstr(svg, "softmax · head 0 of 1 · causal"));
	assert_non_null(strstr(svg, ">panda</text>"));
	assert_non_null(strstr(svg, "hidden key"));    /* causal: the upper triangle */
	free(svg);

	harness_keys(&h, "Wc\r");
	char *csv = slurp("attnview-softmax-h0.csv");
	assert_int_equal(strncmp(csv, "weights_h,china,panda,japan,cherry\r\nchina,1,0,0,0\r\n",
				 50), 0);
	free(csv);
	harness_keys(&h, "Wp\r");
	char *text = slurp("attnview-softmax-h0.txt");
	assert_non_null(strstr(text, "weights_h  (4 × 4)"));
	assert_null(strchr(text, '\033'));
	free(text);
	harness_keys(&h, "Wa\r");
	text = slurp("attnview-softmax-h0.ans");
	assert_non_null(strstr(text, "\033[48;5;"));
	free(text);

	harness_keys(&h, "Wt\r");
	/* weights as drawn: no epochs to name them by */
	harness_keys(&h, "Ww");
	expect_status("write weights to: attnview-weights.json");
	harness_keys(&h, "\r");
	const char *json[] = { "attnview-trace.json", "attnview-weights.json" };
	for (int i = 0; i < 2; i++) {
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		char *cause = NULL;
		if (!av_weights_load(json[i], &cfg, NULL, &p, &cause))
			fail_msg("%s: %s", json[i], cause);
		assert_true(cfg.seed == h.s.cfg.seed);
		av_params_free(&p);
	}
	/* an edited name */
	harness_keys(&h, "Wc" CTRL_U "mine.csv\r");
	assert_true(file_exists("mine.csv"));
	harness_close(&h);
}

/* W in the figures view writes the figure on screen, all its panels (it
 * wrote the stepper's stage, which the view does not show). */
/* W a writes the figure in the colours the screen shows: its theme was
 * loaded again by name, and with the --theme file gone since the start
 * (or no longer loading) the ANSI file had the light theme's colours,
 * with nothing said. */
static void test_write_ansi_keeps_the_screens_theme(void **state)
{
	(void)state;
	char *theme = slurp(AV_SRCDIR "/themes/dark.json"), *cause = NULL;
	if (!av_write_file_atomic("my-theme.json", theme, strlen(theme), &cause))
		fail_msg("%s", cause);
	free(theme);
	unlink("attnview-softmax-h0.ans");   /* an earlier test's */
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", 80, 24, "", NULL, -1, "my-theme.json"));
	go_to_softmax(&h);
	harness_keys(&h, "Wa\r");
	char *shown = slurp("attnview-softmax-h0.ans");
	assert_non_null(strstr(shown, "\033[48;5;"));
	assert_int_equal(unlink("my-theme.json"), 0);
	assert_int_equal(unlink("attnview-softmax-h0.ans"), 0);
	harness_keys(&h, "Wa\r");
	expect_status("wrote ");
	char *later = slurp("attnview-softmax-h0.ans");
	assert_string_equal(later, shown);
	free(shown);
	free(later);
	unlink("attnview-softmax-h0.ans");
	harness_close(&h);
}

static void test_write_figures_view(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, AV_MODE_CAUSAL);
	harness_keys(&h, "Fn");
	harness_keys(&h, "Ws");
	expect_status("write svg to: attnview-figure2.svg");
	harness_keys(&h, "\r");
	char *svg = slurp("attnview-figure2.svg");
	assert_non_null(strstr(svg, "figure 2: scaled | mask | masked, head 0"));
	assert_non_null(strstr(svg, "mask (1 = visible)"));
	free(svg);
	harness_keys(&h, "Wc\r");
	char *csv = slurp("attnview-figure2.csv");
	assert_int_equal(strncmp(csv, "scaled_h,china,panda,japan,cherry\r\n", 35), 0);
	assert_non_null(strstr(csv, "\r\n\r\nmask (1 = visible),china,"));
	assert_non_null(strstr(csv, "\r\n\r\nmasked_h,china,"));
	assert_null(strstr(csv, "weights_h"));
	free(csv);
	/* figure 4: dimensions, numbered, not tokens */
	harness_keys(&h, "FFWp\r");
	char *text = slurp("attnview-figure4.txt");
	assert_non_null(strstr(text, "figure 4: the projection weights"));
	assert_non_null(strstr(text, "W_q (out × in)"));
	assert_non_null(strstr(text, "W_o (out × in)"));
	assert_null(strstr(text, "0 china"));
	free(text);
	harness_close(&h);
}

/* W in the comparison writes its panels: pinned, live (and Δ with D). */
static void test_write_compare_view(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, AV_MODE_CAUSAL);
	go_to_softmax(&h);
	harness_keys(&h, "ymDWc");
	expect_status("write csv to: attnview-compare.csv");
	harness_keys(&h, "\r");
	char *csv = slurp("attnview-compare.csv");
	assert_non_null(strstr(csv, "pinned: softmax head 0,china,"));
	assert_non_null(strstr(csv, "live: softmax head 0,china,"));
	assert_non_null(strstr(csv, "Δ = live − pinned,china,"));
	free(csv);
	harness_close(&h);
}

/* The heads view shows every head; a figure file holds one: the message
 * says so rather than let the file surprise. */
static void test_write_heads_view_says_what(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 100, 30, "", NULL, AV_MODE_CAUSAL);
	go_to_softmax(&h);
	harness_keys(&h, "aWc\r");
	expect_status("/attnview-softmax-h0.csv");
	expect_status("not this view's every head");
	harness_keys(&h, "Wt\r");
	expect_status("/attnview-trace.json");
	assert_false(harness_status_has(LINES - 1, "every head"));
	harness_close(&h);
}

/* W's menu offers only the formats the screen can write now, and a
 * format it cannot write keeps the menu open with the reason: it closed the
 * menu, and the file name typed next ran as commands (m switched to causal,
 * r reset the training). */
static void test_write_menu_offers_what_works(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "W");   /* the tokens stage: no figure */
	expect_status("write: t trace  w weights  Esc cancels");
	harness_keys(&h, "c");
	expect_status("the tokens stage has no matrix");
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, "mine");
	assert_true(h.s.cfg.mode == AV_MODE_SELF);
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, ESC "n" "W");
	expect_status("write: t trace  w weights  c csv  p text  a ansi  s svg");
	harness_keys(&h, ESC "tss" "W");   /* the training view: no figure */
	expect_status("write: t trace  w weights  Esc cancels");
	harness_keys(&h, "p");
	expect_status("the figures are the stepper's");
	harness_keys(&h, "rm");
	assert_int_equal(av_train_view_trainer(&h.a)->epoch, 2);
	assert_true(h.a.overlay == &av_view_prompt);
	/* :export refuses the same way, and its line stays to be corrected */
	harness_keys(&h, ESC ":export svg\r");
	expect_status("export: the figures are the stepper's");
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, ESC);
	harness_close(&h);
}

/* A view of panels (the figures) whose shown(), what W's menu asks to
 * know whether a figure can be written, counts its calls: each call builds
 * the view's panels. */
static int shown_calls;

static bool counting_shown(struct av_app *a, struct av_shown *out, char **cause)
{
	shown_calls++;
	return av_view_figures.shown(a, out, cause);
}

/* W's menu asks what it can offer once, when it opens. It asked on every
 * frame it was drawn, and four times a frame while it showed an error (the
 * message box's prepare and draw, the prompt's long-text check, the menu
 * itself), each time building the figure's or the comparison's panels. */
static void test_write_menu_asks_once(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "F");
	assert_ptr_equal(h.a.view, &av_view_figures);
	struct av_view counting = av_view_figures;
	counting.shown = counting_shown;
	h.a.view = &counting;
	shown_calls = 0;
	harness_keys(&h, "W");
	expect_status("write: t trace  w weights  c csv  p text  a ansi  s svg");
	assert_int_equal(shown_calls, 1);
	harness_keys(&h, "z");   /* no format: the menu stays, with an error */
	expect_status("not one of these (Esc)");
	for (int i = 0; i < 3; i++) {
		h.a.dirty = AV_DIRTY_ALL;
		av_app_draw(&h.a);
	}
	expect_status("write: t trace  w weights  c csv  p text  a ansi  s svg");
	assert_int_equal(shown_calls, 1);
	/* a narrow screen: the error goes above the line, the menu brief */
	harness_resize(&h, 40, 12);
	expect_status("write: t w c p a s");
	assert_int_equal(shown_calls, 1);
	/* a format chosen is checked then (and names the file), whatever was
	 * offered */
	harness_keys(&h, "c");
	assert_true(shown_calls > 1);
	expect_status("write csv to:");
	h.a.view = &av_view_figures;
	harness_keys(&h, ESC);
	harness_close(&h);
}

static void unlink_exports(void)
{
	const char *names[] = { "attnview-softmax-h0.svg", "attnview-softmax-h0.csv",
				"attnview-softmax-h0.txt", "attnview-softmax-h0.ans",
				"attnview-trace.json", "attnview-weights.json",
				"attnview-weights-epoch2.json" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(names[i]);
}

/* Trained weights, back in the stepper: the text and SVG figures say
 * "trained 2 ep+1" as the header does, and the trace and weights say how
 * ("training": epochs, steps, lr, optimizer, target, loss); they said
 * "seed 1" alone, numbers --seed does not give. The trace still loads
 * as weights. Untrained weights say nothing of training. */
static void test_write_trained_says_so(void **state)
{
	(void)state;
	struct harness h;
	unlink_exports();
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "tssSt");
	assert_non_null(strstr(harness_line(0), "trained 2 ep+1"));
	go_to_softmax(&h);
	char settings[64];
	snprintf(settings, sizeof(settings), " · seed %llu · trained 2 ep+1",
		 (unsigned long long)h.s.cfg.seed);
	harness_keys(&h, "Wp\r");
	char *text = slurp("attnview-softmax-h0.txt");
	char *at = strstr(text, settings);
	assert_non_null(at);
	assert_int_equal(at[strlen(settings)], '\n');
	free(text);
	harness_keys(&h, "Ws\r");
	text = slurp("attnview-softmax-h0.svg");
	assert_non_null(at = strstr(text, settings));
	assert_int_equal(strncmp(at + strlen(settings), "</text>", 7), 0);
	free(text);
	harness_keys(&h, "Wt\r");
	/* named by their whole epochs, as the training view names them */
	harness_keys(&h, "Ww");
	expect_status("write weights to: attnview-weights-epoch2.json");
	harness_keys(&h, "\r");
	const char *json[] = { "attnview-trace.json", "attnview-weights-epoch2.json" };
	for (int i = 0; i < 2; i++) {
		text = slurp(json[i]);
		const char *training = strstr(text, "\"training\":\t{");
		if (!training)
			fail_msg("%s: no training record", json[i]);
		assert_non_null(strstr(training, "\"epochs\":\t2,"));
		assert_non_null(strstr(training, "\"steps\":\t1,"));
		assert_non_null(strstr(training, "\"lr\":\t0.01,"));
		assert_non_null(strstr(training, "\"optimizer\":\t\"adam\""));
		assert_non_null(strstr(training, "\"target\":\t\"self\""));
		assert_non_null(strstr(training, "\"loss\":\t["));
		free(text);
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		char *cause = NULL;
		if (!av_weights_load(json[i], &cfg, NULL, &p, &cause))
			fail_msg("%s: %s", json[i], cause);
		av_params_free(&p);
	}
	/* new weights: no word of training (w saved the trained ones: r asks
	 * nothing, and a y here would pin) */
	harness_keys(&h, "r");
	unlink_exports();
	harness_keys(&h, "Wp\r");
	text = slurp("attnview-softmax-h0.txt");
	assert_null(strstr(text, "trained"));
	free(text);
	harness_keys(&h, "Wt\r");
	text = slurp("attnview-trace.json");
	assert_null(strstr(text, "\"training\""));
	free(text);
	unlink_exports();
	harness_close(&h);
}

static void test_overwrite_asks(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	go_to_softmax(&h);
	FILE *f = fopen("attnview-softmax-h0.svg", "w");
	fputs("old", f);
	fclose(f);
	harness_keys(&h, "Ws\r");
	expect_status("file exists: overwrite attnview-softmax-h0.svg? y/n");
	harness_keys(&h, "x");
	expect_status("file exists");   /* only y or n answer */
	harness_keys(&h, "n");
	expect_status("write svg to: attnview-softmax-h0.svg");
	expect_status("not overwritten");
	harness_keys(&h, ESC);
	expect_status("nothing written");
	char *text = slurp("attnview-softmax-h0.svg");
	assert_string_equal(text, "old");
	free(text);
	harness_keys(&h, "Ws\ry");
	expect_status("wrote ");
	text = slurp("attnview-softmax-h0.svg");
	assert_int_equal(strncmp(text, "<?xml", 5), 0);
	free(text);
	/* the same through :write */
	harness_keys(&h, ":write attnview-softmax-h0.svg\r");
	expect_status("file exists: overwrite");
	harness_keys(&h, "n");
	expect_status("not written");
	harness_close(&h);
}

/* A name edited to another format's extension is asked about, not
 * written in silence: W p with "fig.csv" wrote plain text into a .csv. */
static void test_write_name_of_another_format(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	go_to_softmax(&h);
	harness_keys(&h, "Wp" CTRL_U "fig.csv\r");
	expect_status("fig.csv: the name says csv, but this writes text: write text? y/n");
	assert_false(file_exists("fig.csv"));
	harness_keys(&h, "n");
	expect_status("write text to: fig.csv");
	expect_status("not written: edit the name, or Esc and W c for csv");
	assert_false(file_exists("fig.csv"));
	harness_keys(&h, "\r");
	expect_status("write text? y/n");
	harness_keys(&h, "y");
	expect_status("wrote ");
	char *text = slurp("fig.csv");
	assert_non_null(strstr(text, "weights_h"));
	assert_null(strstr(text, "weights_h,"));   /* the text, as asked */
	free(text);
	/* a name that agrees, or says nothing, is written at once; a .json
	 * is either JSON document */
	harness_keys(&h, "Ww" CTRL_U "mine.json\r");
	expect_status("wrote ");
	harness_keys(&h, "Wc" CTRL_U "mine\r");
	expect_status("wrote ");
	harness_keys(&h, "Ws" CTRL_U "mine.SVG\r");
	expect_status("wrote ");
	unlink("fig.csv");
	unlink("mine.json");
	unlink("mine");
	unlink("mine.SVG");
	harness_close(&h);
}

static void test_write_errors(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	/* the tokens stage has no matrix; the JSON documents still work */
	harness_keys(&h, "Wc");
	expect_status("the tokens stage has no matrix");
	harness_keys(&h, "q");
	expect_status("not one of these (Esc)");
	harness_keys(&h, ESC);
	assert_null(h.a.overlay);
	harness_keys(&h, "n:write fig.png\r");
	expect_status("write: no format for \"fig.png\" (.json .csv .txt .ans .svg)");
	harness_keys(&h, CTRL_U "write no/such/dir/fig.svg\r");
	expect_status("write: no/such/dir/fig.svg: ");
	assert_true(h.a.overlay == &av_view_prompt);
	harness_keys(&h, CTRL_U "export csv fig.csv\r");
	assert_true(file_exists("fig.csv"));
	expect_status("wrote ");
	harness_keys(&h, ":export png\r");
	expect_status("export: no format \"png\" (trace, weights, csv, text, ansi, svg)");
	/* bare, it says what it takes */
	harness_keys(&h, CTRL_U "export\r");
	expect_status("export: expected a format (trace, weights, csv, text, ansi, svg)");
	harness_keys(&h, CTRL_U "export svg\r");
	expect_status("write svg to: attnview-embedding.svg");
	/* an extension names its format, as :write reads it: txt is text */
	harness_keys(&h, ESC ":export txt\r");
	expect_status("write text to: attnview-embedding.txt");
	harness_keys(&h, ESC ":export ANS\r");
	expect_status("write ansi to: attnview-embedding.ans");
	harness_keys(&h, ESC "W");
	harness_keys(&h, "s" CTRL_U ".\r");
	expect_status(". is a directory");
	harness_keys(&h, ESC ":export svg .\r");
	expect_status("export: . is a directory");
	/* ~/ is the home folder */
	setenv("HOME", dir, 1);
	harness_keys(&h, CTRL_U "write ~/home.csv\r");
	assert_true(file_exists("home.csv"));
	unlink("home.csv");
	/* a device is written in place; its error names it once */
	if (access("/dev/full", W_OK) == 0) {
		harness_keys(&h, "Wt" CTRL_U "/dev/full\r");
		expect_status("file exists: overwrite /dev/full? y/n");
		harness_keys(&h, "y");
		expect_status("/dev/full: No space left on device");
		assert_null(strstr(status_line(), "/dev/full: /dev/full"));
	}
	harness_close(&h);
}

/* The prompt fits the status line at 80 columns and at the smallest size. */
static void test_prompt_fits(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":temp abc\r");
	assert_true(av_utf8_width(status_line()) <= 80);
	harness_resize(&h, 40, 14);
	expect_status(":temp abc");
	harness_keys(&h, "\x1bnW");   /* past the tokens stage: every format */
	expect_status("write: t w c p a s Esc");
	harness_keys(&h, "t");
	expect_status("write trace to: attnview-trace.json");
	assert_true(av_utf8_width(status_line()) <= 40);
	harness_close(&h);
}

/* Deleting at the end of a sentence wider than the field scrolls the field
 * back: it showed "sentence>…" and nothing else after 25 Ctrl-W. */
static void test_editor_scrolls_back(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	char keys[600] = "e" CTRL_U;
	for (int i = 1; i <= 60; i++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "w%d ", i);
	harness_keys(&h, keys);
	expect_status("w60");
	for (int i = 0; i < 25; i++)
		harness_keys(&h, "\x17");                /* Ctrl-W: a word back */
	expect_status("w35");
	expect_status("w20");                          /* the field is full again */
	harness_keys(&h, CTRL_U);
	expect_status("sentence>");
	assert_null(strstr(status_line(), "…"));
	harness_close(&h);
}

/* A scrolled : prompt keeps its ":" (helper-68: the "…" of the hidden text
 * stood on it, "…own fox jumps"); the editor's "sentence> " gives its
 * space, as before. */
static void test_scrolled_prompt_keeps_its_colon(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 60, 20, "", NULL, -1);
	harness_keys(&h, ":sentence the quick brown fox jumps over the lazy dog and more words");
	const char *l = status_line();
	const char *marker = utf8 ? ":…" : ":<";
	if (strncmp(l, marker, strlen(marker)) != 0)
		fail_msg("the scrolled prompt reads \"%s\"", l);
	assert_non_null(strstr(l, "more words"));
	harness_keys(&h, "\x1b" "e" CTRL_U);
	char keys[400] = "";
	for (int i = 1; i <= 30; i++)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "w%d ", i);
	harness_keys(&h, keys);
	l = status_line();
	marker = utf8 ? "sentence>…" : "sentence><";
	if (strncmp(l, marker, strlen(marker)) != 0)
		fail_msg("the scrolled editor reads \"%s\"", l);
	harness_close(&h);
}

/* While text is typed, the terminal's cursor is where the next character
 * goes: an input method shows what it composes there (a Chinese sentence
 * in the editor). It stood at the hint's first column ("Enter apply"),
 * where the composed characters covered the hint, not the text. */
static void test_cursor_at_the_typed_text(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, ":sentence ab");
	harness_key(&h, AV_FKEY(KEY_LEFT));
	/* read before the line: harness_line moves curscr's cursor */
	int y = getcury(curscr), x = getcurx(curscr);
	const char *b = strstr(status_line(), "ab");
	assert_non_null(b);
	assert_int_equal(y, LINES - 1);
	assert_int_equal(x, (int)(b - status_line()) + 1);   /* on the b */
	harness_keys(&h, "\x1b" "exy");
	x = getcurx(curscr);
	const char *xy = strstr(status_line(), "xy");
	assert_non_null(xy);
	assert_int_equal(x, (int)(xy - status_line()) + 2);   /* after it */
	harness_close(&h);
}

/* A text too long for the status line at 80 columns is shown whole in the
 * rows above it, and the next key gives those rows back to the view: a
 * write error's cause (it was cut after the path), an overwrite question's
 * "y/n", a message of the training view. */
static void test_long_texts_shown_whole(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	int insp = harness_find("embedding row:");
	assert_true(insp > 0 && insp < LINES - 1);
	char name[200];
	snprintf(name, sizeof(name), "no-such-folder/%0100d.json", 7);
	char keys[256];
	snprintf(keys, sizeof(keys), ":write %s\r", name);
	harness_keys(&h, keys);
	expect_status(": the folder no-such-folder does not exist");
	expect_status(name);
	assert_non_null(strstr(status_line(), ".json"));   /* the input stays below */
	assert_null(strstr(harness_line(insp), "embedding row:"));
	harness_keys(&h, "\x7f");
	assert_non_null(strstr(harness_line(insp), "embedding row:"));
	assert_false(harness_status_has(LINES - 1, "does not exist"));
	/* the question names the whole file and ends in y/n */
	snprintf(name, sizeof(name), "%090d.json", 8);
	FILE *f = fopen(name, "w");
	fputs("old", f);
	fclose(f);
	harness_keys(&h, ESC);
	snprintf(keys, sizeof(keys), "Wt" CTRL_U "%s\r", name);
	harness_keys(&h, keys);
	char question[256];
	snprintf(question, sizeof(question), "overwrite %s? y/n", name);
	expect_status(question);
	harness_keys(&h, "n");
	harness_keys(&h, ESC);
	unlink(name);
	/* a message (no overlay): it takes the status line too */
	harness_keys(&h, "t:seed 3\r");
	expect_status("seed: a setting of the stepper (t goes back to it); here: lr, write, "
		      "export");
	harness_resize(&h, 60, 20);   /* laid out anew at the new width */
	expect_status("here: lr, write, export");
	harness_keys(&h, "t");
	assert_false(harness_status_has(LINES - 1, "a setting of the stepper"));
	harness_close(&h);
}

static int in_temp_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/attnview-prompt-XXXXXX");
	if (!mkdtemp(dir) || chdir(dir) != 0)
		return -1;
	return 0;
}

static int remove_temp_dir(void **state)
{
	(void)state;
	const char *names[] = { "attnview-softmax-h0.svg", "attnview-softmax-h0.csv",
				"attnview-softmax-h0.txt", "attnview-softmax-h0.ans",
				"attnview-trace.json", "attnview-weights.json", "mine.csv",
				"fig.csv", "attnview-figure2.svg", "attnview-figure2.csv",
				"attnview-figure4.txt", "attnview-compare.csv" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(names[i]);
	if (chdir("/") != 0 || rmdir(dir) != 0)
		return -1;
	return 0;
}

int main(void)
{
	utf8 = harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_types_the_missing_source),
		cmocka_unit_test(test_c_empty_source_stays_open),
		cmocka_unit_test(test_E_outside_cross_offers_the_switch),
		cmocka_unit_test(test_command_values),
		cmocka_unit_test(test_command_temp_zero_resets),
		cmocka_unit_test(test_command_lr),
		cmocka_unit_test(test_command_quit),
		cmocka_unit_test(test_command_seed_asks_before_discarding),
		cmocka_unit_test(test_reseed_discards_once),
		cmocka_unit_test(test_command_source),
		cmocka_unit_test(test_command_text_errors_said_once),
		cmocka_unit_test(test_command_same_sentence_said),
		cmocka_unit_test(test_editor_same_sentence_said),
		cmocka_unit_test(test_write_trained_weights),
		cmocka_unit_test(test_write_trained_trace),
		cmocka_unit_test(test_tab_completes),
		cmocka_unit_test(test_write_every_format),
		cmocka_unit_test(test_write_ansi_keeps_the_screens_theme),
		cmocka_unit_test(test_write_trained_says_so),
		cmocka_unit_test(test_write_figures_view),
		cmocka_unit_test(test_write_compare_view),
		cmocka_unit_test(test_write_heads_view_says_what),
		cmocka_unit_test(test_write_menu_offers_what_works),
		cmocka_unit_test(test_write_menu_asks_once),
		cmocka_unit_test(test_overwrite_asks),
		cmocka_unit_test(test_write_name_of_another_format),
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_prompt_fits),
		cmocka_unit_test(test_editor_scrolls_back),
		cmocka_unit_test(test_scrolled_prompt_keeps_its_colon),
		cmocka_unit_test(test_long_texts_shown_whole),
		cmocka_unit_test(test_cursor_at_the_typed_text),
	};
	return cmocka_run_group_tests(tests, in_temp_dir, remove_temp_dir);
}
