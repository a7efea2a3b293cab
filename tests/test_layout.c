/* test_layout.c: the screen's arithmetic at several sizes (80x24, 60x18,
 * 200x60, too small), the header fitted to a width, the key table (no key
 * bound twice, every action documented) and the colour ramps and their
 * fallbacks. No terminal needed. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "theme.h"
#include "ui/actions.h"
#include "ui/colors.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/layout.h"
#include "utf8.h"

/* The regions tile the screen from top to bottom without overlap. */
static void check_tiling(const struct av_layout *l)
{
	const struct av_rect *r[] = { &l->header, &l->tokens, &l->title, &l->panel,
				      &l->legend, &l->inspector, &l->status };
	int y = 0;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		assert_int_equal(r[i]->y, y);
		assert_true(r[i]->h >= 0);
		if (r[i]->h > 0) {
			assert_int_equal(r[i]->x, 0);
			assert_int_equal(r[i]->w, l->cols);
		}
		y += r[i]->h;
	}
	assert_int_equal(y, l->lines);
}

static void test_80x24(void **state)
{
	(void)state;
	struct av_layout l;
	av_layout_compute(&l, 80, 24, 1);
	assert_false(l.too_small);
	check_tiling(&l);
	assert_int_equal(l.header.h, 1);
	assert_int_equal(l.tokens.h, 1);
	assert_int_equal(l.title.h, 2);
	assert_int_equal(l.inspector.h, 4);
	assert_int_equal(l.legend.h, 1);
	assert_int_equal(l.status.y, 23);
	assert_int_equal(l.panel.h, 14);
	/* cross mode: a second token row, the panel pays for it */
	av_layout_compute(&l, 80, 24, 2);
	check_tiling(&l);
	assert_int_equal(l.tokens.h, 2);
	assert_int_equal(l.panel.h, 13);
}

static void test_60x18(void **state)
{
	(void)state;
	struct av_layout l;
	av_layout_compute(&l, 60, 18, 1);
	assert_false(l.too_small);
	check_tiling(&l);
	assert_int_equal(l.inspector.h, 3);
	assert_true(l.panel.h >= 8);
}

static void test_200x60(void **state)
{
	(void)state;
	struct av_layout l;
	av_layout_compute(&l, 200, 60, 2);
	assert_false(l.too_small);
	check_tiling(&l);
	assert_int_equal(l.inspector.h, 7);
	assert_int_equal(l.panel.w, 200);
	assert_true(l.panel.h >= 40);
}

static void test_smallest_and_too_small(void **state)
{
	(void)state;
	struct av_layout l;
	av_layout_compute(&l, AV_MIN_COLS, AV_MIN_LINES, 1);
	assert_false(l.too_small);
	check_tiling(&l);
	assert_true(l.panel.h >= 4);   /* labels + a few rows */
	av_layout_compute(&l, AV_MIN_COLS - 1, 24, 1);
	assert_true(l.too_small);
	av_layout_compute(&l, 80, AV_MIN_LINES - 1, 1);
	assert_true(l.too_small);
	/* cross mode fits the smallest size too: its second row of tokens
	 * takes the title's second row (it needed one more line, and c at
	 * 40x12 left only "too small" on the screen: QA) */
	av_layout_compute(&l, AV_MIN_COLS, AV_MIN_LINES, 2);
	assert_false(l.too_small);
	check_tiling(&l);
	assert_int_equal(l.title.h, 1);
	assert_int_equal(l.tokens.h, 2);
	assert_true(l.panel.h >= 4);
	av_layout_compute(&l, AV_MIN_COLS, AV_MIN_LINES + 1, 2);
	assert_int_equal(l.title.h, 2);
	av_layout_compute(&l, 80, AV_MIN_LINES - 1, 2);
	assert_true(l.too_small);
	av_layout_compute(&l, 0, 0, 1);
	assert_true(l.too_small);
	char *s = av_layout_too_small_text(30, 10, 1);
	assert_string_equal(s, "terminal too small: 30×10, needs at least 40×12");
	free(s);
	/* every size in between tiles */
	for (int w = AV_MIN_COLS; w < 120; w += 7) {
		for (int h = AV_MIN_LINES; h < 50; h++) {
			av_layout_compute(&l, w, h, 1);
			assert_false(l.too_small);
			check_tiling(&l);
			assert_true(l.panel.h >= 4);
		}
	}
}

static struct av_header_info header(const char *sample, int D)
{
	struct av_header_info h = {
		.sample = sample, .mode = "causal", .d_model = D, .heads = 8,
		.head_dim = D / 8, .scale = "dmodel", .temperature = 1.25, .seed = 12345,
		.stage = 3, .n_stages = 9, .stage_name = "scores", .view = NULL,
	};
	return h;
}

/* A student's header at the tokens stage (the widest stage's room kept)
 * in room (NULL: in none): qkv-walkthrough (D=512 H=8, dmodel) or
 * china-panda (D=3 H=1, dk), in self mode at T=1 from seed 0. */
static struct av_header_info student_header(const char *sample, const char *room)
{
	bool small = strcmp(sample, "china-panda") == 0;
	struct av_header_info h = header(sample, small ? 3 : 512);
	h.mode = "self";
	h.temperature = 1;
	h.seed = 0;
	h.stage = 0;
	h.stage_name = "tokens";
	h.stage_reserve = av_utf8_width("3/9 projection");   /* the widest stage */
	if (small) {
		h.heads = 1;
		h.head_dim = 3;
		h.scale = "dk";
	}
	h.classroom = room;
	return h;
}

static void test_header(void **state)
{
	(void)state;
	struct av_header_info h = header("qkv-walkthrough", 512);
	char *s = av_layout_header(&h, 200);
	assert_int_equal(av_utf8_width(s), 200);
	assert_non_null(strstr(s, "attnview  qkv-walkthrough  causal  D=512 H=8 dk=64  "
			       "scale=dmodel  T=1.25  seed=12345"));
	assert_non_null(strstr(s, "4/9 scores"));
	free(s);
	/* 80 columns: the program name goes first, then the long forms of the
	 * settings, before the seed; the stage stays */
	s = av_layout_header(&h, 80);
	assert_true(av_utf8_width(s) <= 80);
	assert_null(strstr(s, "attnview "));
	assert_non_null(strstr(s, "D512 H8 dk64"));
	assert_non_null(strstr(s, "T=1.25"));
	assert_non_null(strstr(s, "seed=12345"));
	assert_non_null(strstr(s, "4/9 scores"));
	free(s);
	/* 40 columns: the essentials, shortened */
	s = av_layout_header(&h, 40);
	assert_true(av_utf8_width(s) <= 40);
	assert_non_null(strstr(s, "causal"));
	assert_non_null(strstr(s, "D512 H8 dk64"));
	assert_non_null(strstr(s, "4/9 scores"));
	free(s);
	h.view = "all heads";
	s = av_layout_header(&h, 100);
	assert_non_null(strstr(s, "all heads · 4/9 scores"));
	free(s);
}

/* Weights drawn otherwise than the sample says say how, beside the seed
 * they come from: china-panda's step 15 (the tutorial's remedy, xavier)
 * showed nothing a learner could check (QA). It goes with the seed when
 * room runs out. */
static void test_header_names_the_init(void **state)
{
	(void)state;
	struct av_header_info h = header("china-panda", 3);
	char *s = av_layout_header(&h, 120);
	assert_null(strstr(s, "init"));   /* the sample's own is not said */
	free(s);
	h.init = "xavier";
	s = av_layout_header(&h, 120);
	assert_non_null(strstr(s, "seed=12345  init=xavier"));
	free(s);
	s = av_layout_header(&h, 64);
	assert_non_null(strstr(s, "s12345  xavier"));
	assert_non_null(strstr(s, "4/9 scores"));
	free(s);
	s = av_layout_header(&h, 40);
	assert_null(strstr(s, "xavier"));
	assert_non_null(strstr(s, "4/9 scores"));
	free(s);
}

/* A cut header never ends inside a number: "trained 20…" of 200 epochs
 * read as 20. */
static void test_header_cut_not_in_number(void **state)
{
	(void)state;
	struct av_header_info h = header("qkv-walkthrough", 512);
	h.weights = "trained 200 ep";
	h.classroom = "3 following";
	h.temperature = 0.64;
	for (int width = 30; width <= 120; width++) {
		char *s = av_layout_header(&h, width);
		const char *t = strstr(s, "trained ");
		if (t && t[8] >= '0' && t[8] <= '9' && strncmp(t + 8, "200", 3) != 0)
			fail_msg("width %d: \"%s\"", width, s);
		/* nor after one: "T=0…" of 0.64, "trained 12…" of "12 ep" */
		const char *cut = strstr(s, "…");
		if (cut && cut > s && cut[-1] >= '0' && cut[-1] <= '9')
			fail_msg("width %d: \"%s\"", width, s);
		const char *d = strstr(s, "dk");
		if (d && strncmp(d, "dk64", 4) != 0 && strncmp(d, "dk=64", 5) != 0 &&
		    strncmp(d, "dk…", 5) != 0 && strncmp(d, "dk=…", 6) != 0)
			fail_msg("width %d: \"%s\"", width, s);
		free(s);
	}
}

/* A piece cut to make room before anything went is whole again when what
 * went since left the room: at 80 and 90 columns the header read
 * "seed=12345 trained 200 …" beside seven and eight blank columns. */
static void test_header_cut_piece_whole_again(void **state)
{
	(void)state;
	struct av_header_info h = header("china-panda", 3);
	h.seed = 12345;
	h.weights = "trained 200 ep";
	for (int width = 60; width <= 140; width++) {
		char *s = av_layout_header(&h, width);
		/* cut, the piece is one column short of whole ("…" for "ep"):
		 * the stage may then stand only its two columns away */
		const char *cut = strstr(s, "trained 200 …"), *stage = strstr(s, "4/9 scores");
		int blank = 0;
		while (stage && stage - blank > s && stage[-blank - 1] == ' ')
			blank++;
		if (cut && stage && blank > 2)
			fail_msg("width %d: \"%s\"", width, s);
		free(s);
	}
}

/* A name longer than a piece holds is cut after a whole character, with
 * "…": a cut in the middle of 中 would reach the terminal as "??". */
static void test_header_long_name(void **state)
{
	(void)state;
	char name[400] = "";
	for (int i = 0; i < 40; i++)
		strcat(name, "中文");
	struct av_header_info h = header(name, 512);
	for (int width = 20; width <= 400; width += 7) {
		char *s = av_layout_header(&h, width);
		assert_true(av_utf8_valid(s, strlen(s), NULL));
		assert_true(av_utf8_width(s) <= width);
		assert_non_null(strstr(s, "4/9 scores"));
		if (width >= 300)
			assert_non_null(strstr(s, "…  causal"));
		free(s);
	}
	/* squeezed, a long name is cut before the seed is dropped for it (a
	 * 120-column name took the seed and itself with 70 columns to spare) */
	char ascii[130];
	memset(ascii, 'n', 120);
	ascii[120] = '\0';
	h = header(ascii, 512);
	char *s = av_layout_header(&h, 120);
	assert_non_null(strstr(s, "nnn…  causal"));
	assert_non_null(strstr(s, "seed=12345"));
	free(s);
}

/* At 80 columns qkv-walkthrough's header left out seed=0, and china-panda's
 * with a class following left out seed=7, though the short forms of the
 * sizes and the scale made room: a class told "use seed 7" must see it. */
static void test_header_keeps_seed(void **state)
{
	(void)state;
	struct av_header_info h = student_header("qkv-walkthrough", NULL);
	char *s = av_layout_header(&h, 80);
	assert_non_null(strstr(s, "qkv-walkthrough"));
	assert_non_null(strstr(s, "seed=0"));
	free(s);

	h = student_header("china-panda", "0 following");
	h.seed = 7;
	s = av_layout_header(&h, 80);
	assert_non_null(strstr(s, "china-panda"));
	assert_non_null(strstr(s, "seed=7"));
	free(s);
}

/* A student's header at 80 columns read "cannot follow  self  D512 H8 dk64
 * dmodel  T=1  seed=0": whose sample it could not follow went first. In a
 * class the sample's name stays, at 80 columns and at 60, and the scale, a
 * temperature of 1, the seed's long form and the sizes go before it. */
static void test_header_class_keeps_sample(void **state)
{
	(void)state;
	static const char *const rooms[] = {
		"cannot follow", "following", "exploring", "no teacher", "3 following",
		"无法跟随",
	};
	for (size_t r = 0; r < sizeof(rooms) / sizeof(rooms[0]); r++)
		for (int width = 60; width <= 80; width++) {
			struct av_header_info h = student_header("qkv-walkthrough", rooms[r]);
			char *s = av_layout_header(&h, width);
			char want[64];
			snprintf(want, sizeof(want), "qkv-walkthrough  %s  self  ", rooms[r]);
			if (!strstr(s, want))
				fail_msg("width %d: \"%s\" lost \"%s\"", width, s, want);
			assert_true(av_utf8_width(s) <= width);
			free(s);
		}
	struct av_header_info h = student_header("qkv-walkthrough", "cannot follow");
	char *s = av_layout_header(&h, 80);
	assert_non_null(strstr(s, "qkv-walkthrough  cannot follow  self  D512 H8 dk64  seed=0  "));
	free(s);
	/* at 60 the sizes go (the name says them) and the seed stays, short */
	h = student_header("china-panda", "cannot follow");
	h.seed = 1;
	s = av_layout_header(&h, 60);
	assert_non_null(strstr(s, "china-panda  cannot follow  self  s1  "));
	free(s);
	/* a temperature of the teacher's own is not one of the extras */
	h.temperature = 0.5;
	s = av_layout_header(&h, 60);
	assert_non_null(strstr(s, "china-panda  cannot follow  self  T=0.5  s1  "));
	free(s);
}

/* At every width the seed is the last piece to go: by then the program's
 * name, the sample's and the long forms of the sizes and scale are gone. */
static void test_header_seed_goes_last(void **state)
{
	(void)state;
	struct av_header_info h = header("qkv-walkthrough", 512);
	for (int width = 20; width <= 200; width++) {
		char *s = av_layout_header(&h, width);
		if (!strstr(s, "seed=12345") &&
		    (strstr(s, "attnview") || strstr(s, "qkv-walk") || strstr(s, "D=") ||
		     strstr(s, "scale=")))
			fail_msg("width %d: the seed went first: \"%s\"", width, s);
		free(s);
	}
}

/* Whether word (up to its end, "…" or a comma or colon after it) is one
 * of the space-separated words of list. */
static bool word_in(const char *word, size_t len, const char *list)
{
	for (const char *w = list; *w;) {
		size_t n = strcspn(w, " ");
		size_t m = n;
		while (m > 0 && (w[m - 1] == ',' || w[m - 1] == ':'))
			m--;
		if (m == len && strncmp(w, word, len) == 0)
			return true;
		w += n;
		w += strspn(w, " ");
	}
	return false;
}

/* Each word of the header is a whole word of the wide header or of the
 * short forms: none is cut inside ("causa…", "dmode…", "H…"). */
static void assert_whole_words(const char *s, const char *wide, const char *shorts, int width)
{
	for (const char *w = s; *w;) {
		size_t n = strcspn(w, " ");
		size_t m = n;
		if (m >= strlen("…") && strncmp(w + m - strlen("…"), "…", strlen("…")) == 0)
			m -= strlen("…");
		while (m > 0 && (w[m - 1] == ',' || w[m - 1] == ':'))
			m--;
		if (m > 0 && !word_in(w, m, wide) && !word_in(w, m, shorts))
			fail_msg("width %d: \"%.*s\" is cut inside: \"%s\"", width, (int)n, w, s);
		w += n;
		w += strspn(w, " ");
	}
}

/* A student following a teacher who had trained the weights read, at 80
 * columns, "following  causal  T=1.25  s0 trained 268 ep   all heads · 8/9
 * context": the seed (in the trained weights' piece) and the temperature
 * outlasted the sample's name, which a class keeps longest of the
 * settings. */
static void test_header_class_name_outlasts_trained_seed(void **state)
{
	(void)state;
	/* all heads' label and the stage leave the name no room at 60 */
	static const char *const views[] = { NULL, "training view", "all heads" };
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++)
		for (int width = v == 2 ? 70 : 60; width <= 80; width++) {
			struct av_header_info h = header("qkv-walkthrough", 512);
			h.seed = 0;
			h.weights = "trained 268 ep";
			h.classroom = "following";
			h.stage = 7;
			h.stage_name = "context";
			h.stage_reserve = av_utf8_width("3/9 projection");
			h.view = views[v];
			if (v == 1) {   /* the training view: its name, no stage */
				h.n_stages = 0;
				h.stage_reserve = 0;
			}
			char *s = av_layout_header(&h, width);
			if (!strstr(s, "qkv-walkthrough  following  causal"))
				fail_msg("width %d: \"%s\" lost the sample's name", width, s);
			assert_true(av_utf8_width(s) <= width);
			free(s);
		}
}

/* A student following a teacher who had pinned the softmax read, at 80
 * columns, "following  causal   pinned: softmax head 1, causal, dmodel,
 * T=1.25 · 7/9 softmax": the pin's details outlasted the sample's name,
 * which a class keeps longest of the settings. */
static void test_header_class_name_outlasts_pin(void **state)
{
	(void)state;
	struct av_header_info h = header("qkv-walkthrough", 512);
	h.seed = 0;
	h.stage = 6;
	h.stage_name = "softmax";
	h.view = "pinned: softmax head 1, causal, dmodel, T=1.25";
	h.classroom = "following";
	for (int width = 60; width <= 100; width++) {
		char *s = av_layout_header(&h, width);
		if (!strstr(s, "qkv-walkthrough  following  causal  "))
			fail_msg("width %d: \"%s\" lost the sample's name", width, s);
		assert_true(av_utf8_width(s) <= width);
		assert_non_null(strstr(s, "pinned"));
		free(s);
	}
	char *s = av_layout_header(&h, 80);
	assert_string_equal(s, "qkv-walkthrough  following  causal  T=1.25   "
			    "pinned: softmax head… · 7/9 softmax");
	free(s);
}

/* At 40 columns the header read "3 following  causal  D3 H1 …" and
 * "causal  D512 H…   all heads": settings are now dropped whole, the
 * least telling first, a view's details after a word, and the mode and
 * the class stay longest. */
static void test_header_drops_whole_words(void **state)
{
	(void)state;
	static const char *const views[] = {
		NULL, "all heads", "pinned: softmax head 0, causal, dmodel, T=1.25",
		"training view",
	};
	const char *shorts = "D512 H8 dk64 dmodel s12345 pinned";
	for (int with = 0; with < 4; with++)
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			struct av_header_info h = header("qkv-walkthrough", 512);
			h.stage_reserve = av_utf8_width("3/9 projection");
			h.weights = with & 1 ? "trained 200 ep" : NULL;
			h.classroom = with & 2 ? "3 following" : NULL;
			h.view = views[v];
			if (v == 3) {   /* the training view: its name, no stage */
				h.n_stages = 0;
				h.stage_reserve = 0;
			}
			char *wide = av_layout_header(&h, 400);
			for (int width = 40; width <= 140; width++) {
				char *s = av_layout_header(&h, width);
				assert_whole_words(s, wide, shorts, width);
				assert_true(av_utf8_width(s) <= width);
				/* the class last (where the stepper's stage
				 * leaves room for both, the mode with it) */
				if (h.classroom)
					assert_non_null(strstr(s, "3 following"));
				if (!h.view)
					assert_non_null(strstr(s, "causal"));
				free(s);
			}
			free(wide);
		}
	/* trained and followed at 40: the mode and the class, whole */
	struct av_header_info h = header("china-panda", 3);
	h.heads = 1;
	h.head_dim = 3;
	h.weights = "trained 200 ep";
	h.classroom = "3 following";
	h.stage_reserve = av_utf8_width("3/9 projection");
	char *s = av_layout_header(&h, 40);
	assert_non_null(strstr(s, "3 following  causal  "));
	assert_null(strstr(s, "…"));
	free(s);
	/* a pin's details go word by word, before the mode and the class
	 * (and in a class before the sample's name) */
	h.view = "pinned: softmax head 0, causal, dk, T=1";
	s = av_layout_header(&h, 90);
	assert_non_null(strstr(s, "china-panda  3 following  causal  "));
	assert_non_null(strstr(s, "pinned: softmax head 0, causal, dk, T=1 · 4/9 scores"));
	free(s);
	s = av_layout_header(&h, 80);
	assert_non_null(strstr(s, "china-panda  3 following  causal  "));
	assert_non_null(strstr(s, "  pinned: softmax head… · 4/9 scores"));
	free(s);
	s = av_layout_header(&h, 60);
	assert_non_null(strstr(s, "china-panda  3 following  causal  "));
	assert_non_null(strstr(s, "  pinned · 4/9 scores"));
	free(s);
	s = av_layout_header(&h, 44);
	assert_non_null(strstr(s, "3 following  causal  "));
	assert_non_null(strstr(s, "  pinned · 4/9 scores"));
	free(s);
	s = av_layout_header(&h, 40);
	assert_non_null(strstr(s, "3 following  "));
	assert_non_null(strstr(s, "  pinned · 4/9 scores"));
	assert_null(strstr(s, "causal"));
	free(s);
}

/* --- the key table ------------------------------------------------------- */

static void test_no_key_twice(void **state)
{
	(void)state;
	for (int a = 1; a < AV_ACTION_COUNT; a++) {
		assert_true(av_actions[a].n_keys >= 1);
		for (int k = 0; k < av_actions[a].n_keys; k++) {
			int key = av_actions[a].keys[k];
			for (int b = 1; b < AV_ACTION_COUNT; b++)
				for (int j = 0; j < av_actions[b].n_keys; j++)
					if (a != b || k != j)
						if (av_actions[b].keys[j] == key) {
							fprintf(stderr, "key %d bound to %s and %s\n",
								key, av_actions[a].name,
								av_actions[b].name);
							fail();
						}
			assert_int_equal(av_action_for_key(key), a);
		}
	}
	for (int a = 1; a < AV_EDIT_COUNT; a++) {
		for (int k = 0; k < av_edit_actions[a].n_keys; k++) {
			int key = av_edit_actions[a].keys[k];
			assert_int_equal(av_edit_action_for_key(key), a);
			/* a printable key would never reach the text */
			assert_false(key >= 0x20 && key < 0x7f);
		}
	}
	/* 't' opens the training view, whose own keymap has no key twice */
	assert_int_equal(av_action_for_key('t'), AV_ACTION_TRAIN);
	for (int a = 1; a < AV_TRAIN_COUNT; a++)
		for (int k = 0; k < av_train_actions[a].n_keys; k++)
			assert_int_equal(av_train_action_for_key(av_train_actions[a].keys[k]), a);
}

/* Messages name an action by its first key: "p" for the stage before,
 * and ( and ) for the matrices, wherever they are said. */
static void test_action_key_names(void **state)
{
	(void)state;
	char name[32];
	av_action_key_name(AV_ACTION_PREV_STAGE, name, sizeof(name));
	assert_string_equal(name, "p");
	av_action_key_name(AV_ACTION_HELP, name, sizeof(name));
	assert_string_equal(name, "?");
	struct av_matrix_keys keys = av_matrix_keys();
	assert_string_equal(keys.back, "(");
	assert_string_equal(keys.on, ")");
}

static void test_keys_documented(void **state)
{
	(void)state;
	for (int a = 1; a < AV_ACTION_COUNT; a++) {
		const char *help = av_actions[a].help;
		assert_true(strlen(help) > 3);
		/* short enough for the two-column help overlay at 80x24 */
		assert_true(av_utf8_width(help) <= 25);
		char *keys = av_action_keys_text((enum av_action)a, true);
		assert_true(av_utf8_width(keys) <= 12);
		free(keys);
	}
	for (int a = 1; a < AV_TRAIN_COUNT; a++) {
		assert_true(av_utf8_width(av_train_actions[a].help) <= 25);
		char *keys = av_keys_text(&av_train_actions[a], true, " ");
		assert_true(av_utf8_width(keys) <= 12);
		free(keys);
	}
	char *keys = av_action_keys_text(AV_ACTION_PREV_STAGE, false);
	assert_string_equal(keys, "p Backspace PgUp");
	free(keys);
	keys = av_action_keys_text(AV_ACTION_PREV_HEAD, true);
	assert_string_equal(keys, "S-Tab");
	free(keys);
	keys = av_action_keys_text(AV_ACTION_REPAINT, false);
	assert_string_equal(keys, "Ctrl-L");
	free(keys);
	/* the documentation dump lists every action */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	av_actions_write(f, true);
	fclose(f);
	assert_non_null(strstr(buf, ".SS Cursor\n"));
	assert_non_null(strstr(buf, ".TP\n.B n Space PgDn\nnext stage\n"));
	assert_non_null(strstr(buf, "seed + 1"));
	assert_non_null(strstr(buf, ".B Ctrl\\-U\n"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	av_actions_write(f, false);
	fclose(f);
	for (int a = 1; a < AV_ACTION_COUNT; a++)
		assert_non_null(strstr(buf, av_actions[a].help));
	for (int a = 1; a < AV_EDIT_COUNT; a++)
		assert_non_null(strstr(buf, av_edit_actions[a].help));
	for (int a = 1; a < AV_TRAIN_COUNT; a++)
		assert_non_null(strstr(buf, av_train_actions[a].help));
	free(buf);
}

/* --- colour ramps and fallbacks ------------------------------------------ */

static void test_colour_decisions(void **state)
{
	(void)state;
	const char *why = NULL;
	assert_true(av_colors_wanted(NULL, false, true, 256, &why));
	assert_null(why);
	assert_true(av_colors_wanted("", false, true, 8, &why));
	assert_false(av_colors_wanted("1", false, true, 256, &why));
	assert_string_equal(why, "NO_COLOR is set");
	assert_false(av_colors_wanted(NULL, true, true, 256, &why));
	assert_string_equal(why, "monochrome theme");
	assert_false(av_colors_wanted(NULL, false, false, 0, &why));
	assert_string_equal(why, "the terminal has no colours");
	assert_false(av_colors_wanted(NULL, false, true, 2, &why));
}

static void test_ramps(void **state)
{
	(void)state;
	/* weights: 0..1 as is */
	assert_true(av_heat_position(0.25, AV_PART_WEIGHTS, 0) == 0.25);
	assert_true(av_heat_position(-1, AV_PART_WEIGHTS, 0) == 0);
	assert_true(av_heat_position(2, AV_PART_WEIGHTS, 0) == 1);
	/* signed: centred on zero */
	assert_true(av_heat_position(0, AV_PART_SIGNED, 3) == 0.5);
	assert_true(av_heat_position(-3, AV_PART_SIGNED, 3) == 0);
	assert_true(av_heat_position(3, AV_PART_SIGNED, 3) == 1);
	assert_true(av_heat_position(1.5, AV_PART_SIGNED, 3) == 0.75);
	assert_true(av_heat_position(5, AV_PART_SIGNED, 0) == 0.5);
	assert_true(av_heat_position(-1e20, AV_PART_SIGNED, 3) == 0);
	/* levels: the middle one is exactly zero */
	assert_int_equal(av_heat_level(0), 0);
	assert_int_equal(av_heat_level(1), AV_HEAT_LEVELS - 1);
	assert_int_equal(av_heat_level(0.5), AV_HEAT_LEVELS / 2);
	assert_int_equal(av_heat_level(-3), 0);
	/* the built-in palettes at 256 and 8 colours; black text on light cells */
	struct av_theme t;
	assert_true(av_theme_builtin("dark", &t));
	assert_true(t.n_sequential >= 2 && t.n_diverging >= 3);
	for (int i = 0; i < AV_HEAT_LEVELS; i++) {
		struct av_rgb c = av_palette_at(t.sequential, t.n_sequential,
						(double)i / (AV_HEAT_LEVELS - 1));
		int c256 = av_rgb_to_256(c), c8 = av_rgb_to_8(c);
		assert_true(c256 >= 16 && c256 <= 255);
		assert_true(c8 >= 0 && c8 <= 7);
	}
	av_theme_free(&t);
	assert_true(av_rgb_is_light((struct av_rgb){ 255, 255, 255 }));
	assert_false(av_rgb_is_light((struct av_rgb){ 0, 0, 80 }));
	/* shading glyphs: UTF-8 blocks, or the ASCII ramp */
	assert_string_equal(av_shade_glyph(1, true), "█");
	assert_string_equal(av_shade_glyph(1, false), "@");
	assert_string_equal(av_shade_glyph(0, false), " ");
}

static void test_cell_numbers(void **state)
{
	(void)state;
	char b[32];
	assert_int_equal(av_cell_decimals(0.5, false, 6), 3);
	assert_int_equal(av_cell_decimals(2.5, true, 6), 3);     /* -2.500 */
	assert_int_equal(av_cell_decimals(12.5, true, 6), 2);    /* -12.50 */
	assert_int_equal(av_cell_decimals(9.9996, false, 5), 2); /* 10.00, not 10.000 */
	assert_int_equal(av_cell_decimals(123456, true, 6), -1);
	av_cell_format(b, sizeof(b), -0.0001, 3, 6);
	assert_string_equal(b, "0.000");   /* no "-0.000" */
	av_cell_format(b, sizeof(b), 1.23456, 2, 6);
	assert_string_equal(b, "1.23");
	av_cell_format(b, sizeof(b), -123456, -1, 6);
	assert_string_equal(b, "-1e+05");
	av_cell_format(b, sizeof(b), -1.5, 3, 6);
	assert_string_equal(b, "-1.500");
	av_cell_format(b, sizeof(b), (double)NAN, 3, 6);
	assert_string_equal(b, "nan");
	av_cell_format(b, sizeof(b), -(double)INFINITY, 3, 6);
	assert_string_equal(b, "-inf");
	av_cell_format(b, sizeof(b), -1234567, -1, 4);
	assert_string_equal(b, "####");
	/* what reads 0 in a cell: the compare view's counts */
	assert_true(av_cell_reads_zero(0.0004, 3));
	assert_true(av_cell_reads_zero(-1e-9, 3));
	assert_false(av_cell_reads_zero(0.0006, 3));
	assert_true(av_cell_reads_zero(0.04, 1));
	assert_false(av_cell_reads_zero(0.06, 1));
	assert_true(av_cell_reads_zero(0, -1));
	assert_false(av_cell_reads_zero(1e-9, -1));   /* "1e-09" */
	assert_false(av_cell_reads_zero(-1e20, 3));
	assert_false(av_cell_reads_zero((double)NAN, 3));
}

/* The cell formatter before its fast path (issue 11): printf's "%.*f",
 * then no "-0.000", then "#" when too wide. */
static void printf_cell(char *buf, size_t size, double v, int decimals, int width)
{
	snprintf(buf, size, "%.*f", decimals, v);
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
	if ((int)strlen(buf) > width) {
		int n = width < (int)size - 1 ? width : (int)size - 1;
		memset(buf, '#', (size_t)n);
		buf[n] = '\0';
	}
}

static void check_cell(double v, int decimals, int width)
{
	char want[64], got[64];
	printf_cell(want, sizeof(want), v, decimals, width);
	av_cell_format(got, sizeof(got), v, decimals, width);
	if (strcmp(want, got) != 0)
		fail_msg("%.17g with %d decimals in %d: printf \"%s\", cell \"%s\"", v, decimals,
			 width, want, got);
}

/* The cells' own number formatting writes exactly what printf does: its
 * rounding (ties by the exact binary value, half to even), zeros, signs
 * and "-0.000" shown as 0, over halves, their neighbours, and a million
 * random floats and doubles of every size. */
static void test_cell_format_is_printf(void **state)
{
	(void)state;
	static const double edges[] = {
		0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.125, 0.0005, 0.00049999,
		-0.0005, -0.0004, 0.9995, 0.99949999, 9.9995, 99.9995, 1e14 + 0.5,
		999999999999999.0, 1e15, 1e16, 123456789.123456789, 1e-300, -1e-300,
		4503599627370495.5, 0.1, 0.7, 1.005, 2.675, 1.0 / 3, -2.0 / 3,
	};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (int d = 0; d <= 7; d++)
			for (int w = 3; w <= 24; w += 21)
				check_cell(edges[i], d, w);
	/* every half and its neighbours, k/10^d +- half a unit */
	for (int d = 0; d <= 6; d++) {
		double unit = pow(10, -d);
		for (int k = -2000; k <= 2000; k++) {
			double half = (k + 0.5) * unit;
			check_cell(half, d, 24);
			check_cell(nextafter(half, INFINITY), d, 24);
			check_cell(nextafter(half, -INFINITY), d, 24);
			check_cell((float)half, d, 24);
		}
	}
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		if (i % 2) {   /* any double of a sensible size */
			double mant = (double)(x >> 11) / 9007199254740992.0;
			v = (x & 1 ? -1 : 1) * mant * pow(10, (int)((x >> 1) % 20) - 8);
		} else {       /* a float, as the matrices hold */
			uint32_t bits = (uint32_t)(x >> 32);
			float f;
			memcpy(&f, &bits, sizeof(f));
			if (!isfinite(f))
				continue;
			v = f;
		}
		check_cell(v, (int)(x % 7), 24);
	}
}

static int ascii_width(const char *s)
{
	return av_utf8_width(s);
}

/* Defect 12: the status line keeps whole "key what" groups and drops the
 * ones that do not fit from the end, never cutting a word. */
/* av_cut_words(s, cols) is want. */
static void check_cut(const char *s, int cols, const char *want)
{
	char *got = av_cut_words(s, cols);
	if (strcmp(got, want) != 0)
		fail_msg("\"%s\" in %d columns: \"%s\", want \"%s\"", s, cols, got, want);
	assert_true(av_utf8_width(got) <= cols);
	free(got);
}

/* A title cut after whole words: never inside a number ("scores / 1.7…"
 * at 45x35 read as another number), nor after an operator, a bracket left
 * open, a name whose "=" went, or a piece's first word alone. */
static void test_cut_words(void **state)
{
	(void)state;
	const char *scaled = "scaled = scores / √dk = scores / 1.732";
	check_cut(scaled, 60, scaled);
	check_cut(scaled, 38, scaled);
	check_cut(scaled, 37, "scaled = scores / √dk = scores…");
	check_cut(scaled, 35, "scaled = scores / √dk = scores…");
	check_cut(scaled, 30, "scaled = scores / √dk…");
	check_cut("scores_h (4, 4) / 1.732 → scaled_h (4, 4);  head 0 of 1", 44,
		  "scores_h (4, 4) / 1.732 → scaled_h (4, 4)…");
	check_cut("scores_h (4, 4) / 1.732 → scaled_h (4, 4);  head 0 of 1", 22,
		  "scores_h (4, 4)…");
	check_cut("scores_h = Q_h · K_hᵀ   (Q_h = Q[:, 0..2])", 36, "scores_h = Q_h · K_hᵀ…");
	check_cut("Q = X·W_qᵀ  K = X·W_kᵀ  V = X·W_vᵀ;  head 0 = cols 0..2", 34,
		  "Q = X·W_qᵀ  K = X·W_kᵀ…");
	check_cut("weights = softmax(masked) per row", 20, "");
	check_cut("Q = X·W_qᵀ  K = X·W_kᵀ  V = X·W_vᵀ;  head 0 = cols 0..2", 44,
		  "Q = X·W_qᵀ  K = X·W_kᵀ  V = X·W_vᵀ…");
	check_cut("weights_h (4, 4), each row sums to 1 (Σ column);  head 0 of 1", 40,
		  "weights_h (4, 4), each row sums to…");
	check_cut("one heatmap per head: queries down, keys across; z: colour only", 52,
		  "one heatmap per head: queries down, keys across…");
	check_cut("trained 200 epochs", 12, "trained…");
	check_cut("the projection weights, D = 3", 26, "the projection weights…");
	/* a first word wider than the room: nothing, not a piece of it */
	check_cut("token_embedding[id] + pos", 10, "");
	check_cut("abc", 1, "");
	/* Chinese breaks beside its characters; a clause's mark goes */
	check_cut("weights_h (4, 4)，每行和为 1（Σ 列）；  头 0/1", 42,
		  "weights_h (4, 4)，每行和为 1（Σ 列）…");
	check_cut("mask (4, 4)：0/16 个单元格被隐藏 → masked_h (4, 4)", 40,
		  "mask (4, 4)：0/16 个单元格被隐藏…");
	check_cut("柱状图：每个头中该查询的 softmax 行；最高的柱就是它最关注的键", 40,
		  "柱状图：每个头中该查询的 softmax 行…");
	check_cut("每个头一幅热力图：纵向词元，横向维度；z：只显示颜色；a：柱状图", 57,
		  "每个头一幅热力图：纵向词元，横向维度；z：只显示颜色…");
	check_cut("每个头一幅热力图：纵向查询，横向键；z：数值", 26, "每个头一幅热力图…");
	check_cut("Q = X·W_qᵀ  K = X·W_kᵀ  V = X·W_vᵀ；  头 0 = 第 0..2 列", 50,
		  "Q = X·W_qᵀ  K = X·W_kᵀ  V = X·W_vᵀ…");
}

static void test_hints_fit_whole(void **state)
{
	(void)state;
	const char *hints = "? help  n/p stage  arrows cell  Tab head  a heads  m mask  "
			    "e edit  t train  q quit";
	char *s = av_layout_hints(hints, 80, ascii_width);
	assert_string_equal(s, "? help  n/p stage  arrows cell  Tab head  a heads  m mask  "
			       "e edit  t train");
	free(s);
	s = av_layout_hints(hints, 200, ascii_width);
	assert_string_equal(s, hints);
	free(s);
	s = av_layout_hints(hints, 19, ascii_width);
	assert_string_equal(s, "? help  n/p stage");
	free(s);
	s = av_layout_hints(hints, 5, ascii_width);
	assert_string_equal(s, "");
	free(s);
	/* every width: a prefix of whole groups, never wider than the line */
	for (int w = 0; w < 100; w++) {
		s = av_layout_hints(hints, w, ascii_width);
		assert_true(av_utf8_width(s) <= w);
		assert_int_equal(strncmp(s, hints, strlen(s)), 0);
		char next = hints[strlen(s)];
		assert_true(!*s || next == '\0' || next == ' ');
		free(s);
	}
}

/* Word wrap by columns: whole words, CJK counted as two columns and split
 * between characters, never inside one. */
static void test_wrap(void **state)
{
	(void)state;
	const char *text = "each row turned into weights that sum to 1";
	const char *next;
	/* Chinese: no line starts with "，" (the break moves back a character)
	 * or ends with "（" */
	size_t cut = av_wrap_line("这是一个很长的句子，然后继续", 18, av_utf8_width, &next);
	assert_int_equal(cut, strlen("这是一个很长的句"));
	assert_string_equal(next, "子，然后继续");
	cut = av_wrap_line("这是一个很长的（句子）然后继续", 16, av_utf8_width, &next);
	assert_string_equal(next, "（句子）然后继续");
	assert_false(av_line_may_break(0x4E2D, 0x3002));   /* 中。 */
	assert_false(av_line_may_break(0xFF08, 0x4E2D));   /* （中 */
	assert_true(av_line_may_break(0x3002, 0x4E2D));    /* 。中 */
	size_t len = av_wrap_line(text, 19, ascii_width, &next);
	assert_int_equal(len, strlen("each row turned"));
	assert_string_equal(next, "into weights that sum to 1");
	len = av_wrap_line(next, 80, ascii_width, &next);
	assert_int_equal(len, strlen("into weights that sum to 1"));
	assert_string_equal(next, "");
	/* a line does not end in an operator: "= 1.596" moves on together */
	len = av_wrap_line("a×b + c×d = 1.596", 14, ascii_width, &next);
	assert_int_equal(len, strlen("a×b + c×d"));
	assert_string_equal(next, "= 1.596");
	/* 我爱熊猫 is 8 columns: 5 columns hold two characters */
	const char *cjk = "我爱熊猫 ok";
	len = av_wrap_line(cjk, 5, ascii_width, &next);
	assert_int_equal(len, 6);
	assert_string_equal(next, "熊猫 ok");
	/* a word wider than any line starts where it is and fills the line */
	len = av_wrap_line("write: /tmp/zz/aaaaaaaaaaaaaaaaaaaaaaaa.json: cause", 20,
			   ascii_width, &next);
	assert_int_equal(len, 20);
	assert_string_equal(next, "aaaaaaaaaaaaaaaaaaa.json: cause");
	/* one that fits a line of its own still goes there whole */
	len = av_wrap_line("write: /tmp/zz/a.json: cause", 20, ascii_width, &next);
	assert_int_equal(len, strlen("write:"));
	/* a line never gets wider than asked, and every byte is used once */
	const char *long_text = "scaled = scores / (√dk·T) = 1.234 / (1.732 × 1) = 0.712 "
				"dividing by √dk keeps 熊猫熊猫熊猫熊猫熊猫 words";
	for (int w = 2; w < 40; w++) {
		size_t total = 0;
		for (const char *p = long_text; *p;) {
			len = av_wrap_line(p, w, ascii_width, &next);
			assert_true(len > 0);
			char line[256];
			memcpy(line, p, len);
			line[len] = '\0';
			assert_true(av_utf8_width(line) <= w);
			total += len + (size_t)(next - p - (long)len);
			p = next;
		}
		assert_int_equal(total, strlen(long_text));
	}
}

/* Chinese lines are filled: a break beside a CJK character is taken
 * rather than a space that leaves "第 2" alone on a line, and a number or a
 * Latin word is never cut while such a break fits ("12" / "×4" at 12x4). */
static void test_wrap_chinese_fills(void **state)
{
	(void)state;
	const char *next;
	size_t len = av_wrap_line("终端太小：12×4", 12, av_utf8_width, &next);
	assert_int_equal(len, strlen("终端太小："));
	assert_string_equal(next, "12×4");
	const char *row = "问题问的是第 2 行（“japan”）：移到那里，再按 Enter";
	len = av_wrap_line(row, 40, av_utf8_width, &next);
	assert_int_equal(len, strlen("问题问的是第 2 行（“japan”）：移到那里，"));
	assert_string_equal(next, "再按 Enter");
	/* "japan" stays whole: the break goes before its opening quote's mark */
	len = av_wrap_line(row, 22, av_utf8_width, &next);
	assert_int_equal(len, strlen("问题问的是第 2 行"));
	assert_string_equal(next, "（“japan”）：移到那里，再按 Enter");
	/* no CJK break fits: the word is still cut where it must be */
	len = av_wrap_line("12345678901234", 6, av_utf8_width, &next);
	assert_int_equal(len, 6);
	/* English has no CJK break: unchanged, at spaces */
	len = av_wrap_line("move there, then Enter", 12, av_utf8_width, &next);
	assert_int_equal(len, strlen("move there,"));
	/* a long word that breaks beside a CJK character further on goes to
	 * the next line whole, rather than be cut in its Latin part: not
	 * "…panda_k" / ")：只用…", nor "q·k" / "/√dk…" */
	const char *formula = "即 attention_score(china_q, panda_k)：只用词向量，不加位置向量。";
	len = av_wrap_line(formula, 32, av_utf8_width, &next);
	assert_int_equal(len, strlen("即 attention_score(china_q,"));
	assert_string_equal(next, "panda_k)：只用词向量，不加位置向量。");
	len = av_wrap_line("上面的“缩放后 q·k/√dk”才是句子里的那个格子", 20, av_utf8_width, &next);
	assert_int_equal(len, strlen("上面的“缩放后"));
	assert_string_equal(next, "q·k/√dk”才是句子里的那个格子");
}

/* A number and the CJK character after it (its measure word, "8 个",
 * "3 位") read as one: no line ends between them, at a space or not. The
 * compare view's summary at 80 columns ended "另有 8" / "个相差不到…". */
static void test_wrap_keeps_number_with_measure_word(void **state)
{
	(void)state;
	const char *next;
	assert_false(av_line_may_break('8', 0x4E2A));     /* 8个 */
	assert_true(av_line_may_break(0x6709, '8'));      /* 有8 */
	assert_true(av_line_may_break('8', 'c'));         /* 8c: not CJK */
	const char *summary = "最大 |Δ| = 0.997，在 [0 china → 0 china]；4/16 个单元在 3 "
			      "位小数上不同，另有 8 个相差不到 0.0005（显示为 0.000）；6 个只在一边隐藏";
	size_t len = av_wrap_line(summary, 80, av_utf8_width, &next);
	assert_int_equal(len, strlen("最大 |Δ| = 0.997，在 [0 china → 0 china]；4/16 个单元在 3 "
				     "位小数上不同，另有"));
	assert_string_equal(next, "8 个相差不到 0.0005（显示为 0.000）；6 个只在一边隐藏");
	/* nor at two spaces */
	len = av_wrap_line("另有 8  个相差不到", 9, av_utf8_width, &next);
	assert_int_equal(len, strlen("另有"));
	assert_string_equal(next, "8  个相差不到");
	/* without the space, the CJK break beside 个 is not taken either */
	len = av_wrap_line("一共有很多单元，其中12个不同", 22, av_utf8_width, &next);
	assert_int_equal(len, strlen("一共有很多单元，其中"));
	assert_string_equal(next, "12个不同");
	/* at every width where "4/16 个" fits a line, no line ends in a digit
	 * that a CJK character follows */
	for (int w = 7; w < 90; w++) {
		for (const char *p = summary; *p;) {
			len = av_wrap_line(p, w, av_utf8_width, &next);
			assert_true(len > 0);
			uint32_t after;
			if (*next && p[len - 1] >= '0' && p[len - 1] <= '9' &&
			    av_utf8_decode(next, strlen(next), &after) > 0 && after >= 0x2E80)
				fail_msg("width %d: a line ends \"%.*s\", the next starts \"%s\"", w,
					 (int)len, p, next);
			p = next;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_80x24),
		cmocka_unit_test(test_60x18),
		cmocka_unit_test(test_200x60),
		cmocka_unit_test(test_smallest_and_too_small),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_header_long_name),
		cmocka_unit_test(test_header_names_the_init),
		cmocka_unit_test(test_header_cut_not_in_number),
		cmocka_unit_test(test_header_cut_piece_whole_again),
		cmocka_unit_test(test_header_keeps_seed),
		cmocka_unit_test(test_header_class_keeps_sample),
		cmocka_unit_test(test_header_class_name_outlasts_trained_seed),
		cmocka_unit_test(test_header_class_name_outlasts_pin),
		cmocka_unit_test(test_header_seed_goes_last),
		cmocka_unit_test(test_header_drops_whole_words),
		cmocka_unit_test(test_no_key_twice),
		cmocka_unit_test(test_keys_documented),
		cmocka_unit_test(test_action_key_names),
		cmocka_unit_test(test_colour_decisions),
		cmocka_unit_test(test_ramps),
		cmocka_unit_test(test_cell_numbers),
		cmocka_unit_test(test_cell_format_is_printf),
		cmocka_unit_test(test_hints_fit_whole),
		cmocka_unit_test(test_cut_words),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_wrap_chinese_fills),
		cmocka_unit_test(test_wrap_keeps_number_with_measure_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
