/* test_storm.c: a resize storm and random keys in every view (issue 8),
 * on the virtual terminal of ui_harness.h. For each view (the stepper, the
 * heads grid and bars, the help and editor overlays, the training view
 * running and paused, its vocabulary view) a PCG32 stream with a fixed seed
 * picks thousands of steps: a key the view uses (or, now and then, any
 * key, after which the view is entered again), training ticks, and
 * resizes to sizes from 1x1 to 250x80 (1x50 and 80x24 among them). The
 * figures, the comparison of a pinned matrix and the ':' prompt get their
 * storms too. Keys that write files (Enter in the prompt, W, ':') are left
 * out of the random ones, and the test runs in an empty folder that must
 * stay empty.
 *
 * A resize happens as ncurses does it on SIGWINCH, inside doupdate() or
 * wgetch(): resizeterm() first, KEY_RESIZE queued behind it. Until the
 * program reads that key, a training tick and a redraw may come first;
 * that order drew into windows made for the old size, off the new screen,
 * and wnoutrefresh() read outside them (the crash of issue 8, finding 2).
 * So a resize here is: resizeterm, then up to two ticks and redraws, then
 * KEY_RESIZE. After every redraw each window a view keeps must lie inside
 * the screen: that check fails at once without the fix, and the sanitizer
 * build reports the out-of-bounds reads as well. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <unistd.h>

#include "rng.h"
#include "train.h"
#include "ui/views/view_train_internal.h"
#include "ui_harness.h"

#ifndef STEPS
#define STEPS 1500            /* per view (-DSTEPS=200 for a run under valgrind) */
#endif
#define ESC AV_KEY_ESC
#define F(k) AV_FKEY(k)

enum want { W_STAGE, W_GRID, W_BARS, W_HELP, W_EDIT, W_PROMPT, W_FIGURES, W_COMPARE, W_TRAIN };

struct scenario {
	const char *name;
	enum want want;
	bool running, vocab;       /* W_TRAIN */
	const int *keys;
	size_t n_keys;
	const char *expect;        /* on the screen at 80x24 at the end */
};

#define KEYS(...) (const int[]){ __VA_ARGS__ }, \
	sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int)

/* The stepper's and heads view's keys, except those that leave them. */
#define STEPPER_KEYS 'n', ' ', 'p', 'g', 'G', 'h', 'j', 'k', 'l', '<', '>', ',', '.', '\t', \
	'z', 'm', 'x', '+', '-', 's', 'r', 'T', 'c', AV_CTRL('L'), F(KEY_UP), F(KEY_DOWN), \
	F(KEY_LEFT), F(KEY_RIGHT), F(KEY_NPAGE), F(KEY_PPAGE), F(KEY_HOME), F(KEY_END), \
	F(KEY_BTAB), F(KEY_BACKSPACE), F(KEY_F(5)), F(KEY_MOUSE), 'Q', '#', 0xfc, 0x4e2d
/* The training view's, except t, q, Esc (leave) and v (the other map). */
#define TRAIN_KEYS '+', '-', '=', '_', ']', '[', 'w', 'o', 'P', 'j', 'k', 'h', 'l', '\n', \
	F(KEY_UP), F(KEY_DOWN), F(KEY_LEFT), F(KEY_RIGHT), F(KEY_ENTER), '\t', F(KEY_BTAB), \
	'T', AV_CTRL('L'), 'n', 'e', 'Q', F(KEY_F(5))

static const struct scenario scenarios[] = {
	{ "stepper", W_STAGE, false, false, KEYS(STEPPER_KEYS), "tokens" },
	{ "heads grid", W_GRID, false, false, KEYS(STEPPER_KEYS), "all heads" },
	{ "heads bars", W_BARS, false, false, KEYS(STEPPER_KEYS), "all heads" },
	{ "help", W_HELP, false, false,
	  KEYS(F(KEY_UP), F(KEY_DOWN), 'j', 'k', F(KEY_NPAGE), F(KEY_PPAGE)), NULL },
	{ "editor", W_EDIT, false, false,
	  KEYS('a', 'b', ' ', 'z', '.', ',', '!', 0xe9, 0x4e2d, 0x6587, 0x1f600, 0x200b,
	       F(KEY_LEFT), F(KEY_RIGHT), F(KEY_HOME), F(KEY_END), F(KEY_BACKSPACE),
	       F(KEY_DC), 127, 8, AV_CTRL('A'), AV_CTRL('E'), AV_CTRL('B'), AV_CTRL('F'),
	       AV_CTRL('D'), AV_CTRL('U'), AV_CTRL('K'), AV_CTRL('W'), F(KEY_F(5))), NULL },
	{ "prompt", W_PROMPT, false, false,
	  KEYS('s', 'e', 'd', ' ', '1', '2', 'l', 'r', '.', 0x4e2d, F(KEY_LEFT), F(KEY_RIGHT),
	       F(KEY_HOME), F(KEY_END), F(KEY_BACKSPACE), 127, AV_CTRL('U'), '\t'), NULL },
	{ "figures", W_FIGURES, false, false,
	  KEYS('n', 'p', 'g', 'G', 'h', 'j', 'k', 'l', '<', '>', F(KEY_UP), F(KEY_DOWN),
	       F(KEY_LEFT), F(KEY_RIGHT), F(KEY_NPAGE), F(KEY_PPAGE), 'F', 'z', 'T',
	       AV_CTRL('L'), 'a', 'x', '\t'), NULL },
	{ "compare", W_COMPARE, false, false,
	  KEYS('D', 'h', 'j', 'k', 'l', '<', '>', 'n', 'p', 'm', '+', '-', '\t', 'T', 'F',
	       'a', 'x', F(KEY_UP), F(KEY_DOWN), F(KEY_LEFT), F(KEY_RIGHT), AV_CTRL('L')),
	  NULL },
	{ "training, running", W_TRAIN, true, false, KEYS(TRAIN_KEYS, 's', 'r', 'i', ' '),
	  "epoch" },
	{ "training, paused", W_TRAIN, false, false, KEYS(TRAIN_KEYS, 's', '.', 'r', 'i'),
	  "epoch" },
	{ "vocabulary, running", W_TRAIN, true, true, KEYS(TRAIN_KEYS, 's', ' '), "epoch" },
	{ "vocabulary, paused", W_TRAIN, false, true, KEYS(TRAIN_KEYS, 's', 'r'), "epoch" },
};

static const int sizes[][2] = {
	{ 1, 1 }, { 1, 50 }, { 80, 24 }, { 250, 80 }, { 40, 12 }, { 39, 12 }, { 40, 11 },
	{ 55, 20 }, { 56, 20 }, { 80, 1 }, { 2, 2 }, { 120, 40 }, { 60, 18 },
};

/* Keys of any kind, for the steps that leave the script; not those that
 * could end in writing a file (W, ':' and Enter, which runs a command). */
static int any_key(struct av_rng *rng)
{
	for (;;) {
		uint32_t r = av_rng_u32(rng);
		int k;
		switch (r % 4) {
		case 0: k = 0x20 + (int)(r >> 8) % 0x5f; break;         /* printable ASCII */
		case 1: k = (int)(r >> 8) % 0x20; break;                /* controls */
		case 2: k = AV_FKEY(KEY_MIN + (int)(r >> 8) % (KEY_MAX - KEY_MIN)); break;
		default: k = 0xa0 + (int)(r >> 8) % 0x10000; break;     /* beyond ASCII */
		}
		if (k != 'W' && k != ':' && k != '\n' && k != '\r' && k != AV_FKEY(KEY_ENTER))
			return k;
	}
}

static bool in_view(const struct av_app *a, const struct scenario *sc)
{
	switch (sc->want) {
	case W_STAGE: return a->view == &av_view_stage && !a->overlay;
	case W_GRID: return a->view == &av_view_heads && !a->heads_bars && !a->overlay;
	case W_BARS: return a->view == &av_view_heads && a->heads_bars && !a->overlay;
	case W_HELP: return a->overlay == &av_view_help;
	case W_EDIT: return a->overlay == &av_view_edit;
	case W_PROMPT: return a->overlay == &av_view_prompt;
	case W_FIGURES: return a->view == &av_view_figures && !a->overlay;
	case W_COMPARE: return a->view == &av_view_compare && a->pin && !a->overlay;
	case W_TRAIN:
		return a->view == &av_view_train && !a->overlay && a->train &&
		       a->train->running == sc->running && a->train->vocab == sc->vocab;
	}
	return false;
}

/* Each window a view keeps lies inside the screen: views draw only into
 * windows made for the current size. */
static void check_windows(const struct av_app *a, const char *what, int step)
{
	const WINDOW *shared[] = { a->w_header, a->w_tokens, a->w_title, a->w_panel,
				   a->w_legend, a->w_insp, a->w_status, a->w_overlay,
				   a->w_small };
	const WINDOW *ws[sizeof(shared) / sizeof(shared[0]) + P_COUNT];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		ws[n++] = shared[i];
	if (a->train)
		for (int p = 0; p < P_COUNT; p++)
			ws[n++] = a->train->w[p];
	for (size_t i = 0; i < n; i++) {
		if (!ws[i])
			continue;
		int y = getbegy(ws[i]), x = getbegx(ws[i]);
		int h = getmaxy(ws[i]), w = getmaxx(ws[i]);
		if (y < 0 || x < 0 || y + h > LINES || x + w > COLS)
			fail_msg("%s, step %d: a %dx%d window at (%d,%d) on a %dx%d screen",
				 what, step, w, h, x, y, COLS, LINES);
	}
}

static void draw(struct harness *h, const char *what, int step)
{
	av_app_draw(&h->a);
	check_windows(&h->a, what, step);
}

static void key(struct harness *h, int k, const char *what, int step)
{
	av_app_key(&h->a, k);
	draw(h, what, step);
}

/* Back into the scenario's view from wherever the keys went (at a size
 * too small for the screen the keys may not take; the next step tries
 * again). */
static void enter(struct harness *h, const struct scenario *sc, int step)
{
	struct av_app *a = &h->a;
	for (int tries = 0; tries < 8 && !in_view(a, sc); tries++) {
		if (a->overlay && !(sc->want == W_HELP && a->overlay == &av_view_help) &&
		    !(sc->want == W_EDIT && a->overlay == &av_view_edit) &&
		    !(sc->want == W_PROMPT && a->overlay == &av_view_prompt))
			key(h, ESC, sc->name, step);
		else if (a->view == &av_view_train && sc->want != W_TRAIN)
			key(h, 't', sc->name, step);
		else if (a->view == &av_view_heads && sc->want != W_GRID && sc->want != W_BARS)
			key(h, 'a', sc->name, step);
		else if ((a->view == &av_view_figures && sc->want != W_FIGURES) ||
			 (a->view == &av_view_compare && sc->want != W_COMPARE))
			key(h, ESC, sc->name, step);
		else if (sc->want == W_STAGE)
			break;
		else if (sc->want == W_GRID || sc->want == W_BARS)
			key(h, 'a', sc->name, step);
		else if (sc->want == W_HELP)
			key(h, '?', sc->name, step);
		else if (sc->want == W_EDIT)
			key(h, 'e', sc->name, step);
		else if (sc->want == W_PROMPT)
			key(h, ':', sc->name, step);
		else if (sc->want == W_FIGURES)
			key(h, 'F', sc->name, step);
		else if (sc->want == W_COMPARE)
			key(h, av_app_parts(a, (struct av_part[AV_MAX_PARTS]){ 0 }) ? 'y' : 'n',
			    sc->name, step);   /* pins the matrix of a stage that has one */
		else if (a->view != &av_view_train)
			key(h, 't', sc->name, step);
		else if (a->train->vocab != sc->vocab)
			key(h, 'v', sc->name, step);
		else
			key(h, ' ', sc->name, step);
	}
}

/* SIGWINCH as ncurses handles it: the screen is resized at once and
 * KEY_RESIZE queued; ticks and redraws may come before the key is read. */
static void resize(struct harness *h, struct av_rng *rng, const char *what, int step)
{
	int cols, lines;
	if (av_rng_u32(rng) % 2) {
		const int *s = sizes[av_rng_u32(rng) % (sizeof(sizes) / sizeof(sizes[0]))];
		cols = s[0];
		lines = s[1];
	} else {
		cols = 1 + (int)(av_rng_u32(rng) % 250);
		lines = 1 + (int)(av_rng_u32(rng) % 80);
	}
	resizeterm(lines, cols);
	for (uint32_t k = av_rng_u32(rng) % 3; k > 0; k--) {
		av_app_tick(&h->a);
		draw(h, what, step);
	}
	key(h, AV_FKEY(KEY_RESIZE), what, step);
}

static void storm(const struct scenario *sc, uint64_t seed)
{
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", 80, 24, "", NULL, -1, NULL));
	struct av_rng rng;
	av_rng_seed(&rng, seed, 8);
	enter(&h, sc, 0);
	assert_true(in_view(&h.a, sc));
	for (int step = 1; step <= STEPS; step++) {
		uint32_t r = av_rng_u32(&rng) % 100;
		if (r < 20) {
			resize(&h, &rng, sc->name, step);
		} else if (r < 25) {
			key(&h, any_key(&rng), sc->name, step);
		} else {
			key(&h, sc->keys[av_rng_u32(&rng) % sc->n_keys], sc->name, step);
		}
		if (av_rng_u32(&rng) % 2) {
			av_app_tick(&h.a);
			draw(&h, sc->name, step);
		}
		enter(&h, sc, step);
	}
	/* it still works: back at 80x24, in the view, with its text */
	resizeterm(24, 80);
	key(&h, AV_FKEY(KEY_RESIZE), sc->name, STEPS);
	enter(&h, sc, STEPS);
	if (!in_view(&h.a, sc)) {
		harness_dump();
		fail_msg("%s: not back in the view at 80x24", sc->name);
	}
	if (sc->expect)
		expect(sc->expect);
	if (sc->want == W_TRAIN && sc->running)
		assert_true(av_train_view_trainer(&h.a)->epoch > 0);   /* the ticks trained */
	harness_close(&h);
}

static void test_storm(void **state)
{
	size_t i = (size_t)(uintptr_t)*state;
	storm(&scenarios[i], UINT64_C(0x5eed0008) + i);
}

int main(void)
{
	harness_setup_process();
	/* nothing here writes a file: an empty folder to run in, which must
	 * still be empty at the end */
	char dir[] = "/tmp/attnview-storm.XXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		perror("test_storm: a folder to run in");
		return 1;
	}
	struct CMUnitTest tests[sizeof(scenarios) / sizeof(scenarios[0])];
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++) {
		struct CMUnitTest t = { scenarios[i].name, test_storm, NULL, NULL,
					(void *)(uintptr_t)i };
		tests[i] = t;
	}
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	if (chdir("/") != 0 || rmdir(dir) != 0) {
		fprintf(stderr, "test_storm: files were written in %s\n", dir);
		return 1;
	}
	return failed;
}
