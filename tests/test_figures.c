/* test_figures.c: the figures view (F) and pin and compare (y, Y, D) on a
 * virtual screen: each figure at 80x24 and 200x60 with its labels, its
 * panels whole (or a page note), its explanations not cut, and numbers
 * equal to the engine's; pinning, the difference of mask on and off
 * (exactly the masked cells), T, training, a figure's panel, shapes that
 * differ (each side's cells named by its own tokens, numbers in one
 * format for both), and unpinning. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "figures.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/inspector.h"
#include "ui_harness.h"

#define OPEN(h, cols, lines, sample, sentence, mode) \
	assert_true(harness_open((h), "xterm-256color", (cols), (lines), (sample), \
				 (sentence), (mode), NULL))

static bool utf8;

/* Occurrences of text on the whole screen. */
static int count_on_screen(const char *text)
{
	int n = 0;
	for (int y = 0; y < LINES; y++)
		for (const char *p = harness_line(y); (p = strstr(p, text)); p += strlen(text))
			n++;
	return n;
}

/* Occurrences of text on row y. */
static int count_in_line(int y, const char *text)
{
	int n = 0;
	for (const char *p = harness_line(y); (p = strstr(p, text)); p += strlen(text))
		n++;
	return n;
}

/* The first row that starts with text (a matrix row's label), or -1. */
static int find_row(const char *text)
{
	for (int y = 0; y < LINES; y++)
		if (strncmp(harness_line(y), text, strlen(text)) == 0)
			return y;
	return -1;
}

/* Hidden cells shown −∞ (not the legend's "╳ −∞ = hidden key"). */
static int count_minus_inf_cells(void)
{
	return count_on_screen("╳ −∞") - count_on_screen("╳ −∞ = hidden");
}

/* The explanations (title, inspector rows) are never cut with "…". */
static void expect_explanations_whole(struct harness *h)
{
	const struct av_rect *r = &h->a.layout.inspector;
	for (int y = r->y; y < r->y + r->h; y++) {
		if (strstr(harness_line(y), "…")) {
			fprintf(stderr, "explanation cut on row %d\n", y);
			harness_dump();
			fail();
		}
	}
}

/* At 200 columns there is room for everything: nothing is cut. */
static void expect_whole_at_200(int cols)
{
	if (cols >= 200)
		expect_not("…");
}

/* The inspector line of the figure's cell: "name: ... = <number>". */
static void expect_number(const char *prefix, double v)
{
	char num[32], text[160];
	av_insp_number(num, sizeof(num), v);
	snprintf(text, sizeof(text), "%s = %s", prefix, num);
	expect(text);
}

static void run_kinds(struct harness *h, struct av_attention_kinds *k)
{
	memset(k, 0, sizeof(*k));
	char *cause = NULL;
	const char *source = h->s.source ? h->s.source : h->s.sample.source;
	assert_true(av_attention_kinds_run(k, &h->s.params, &h->s.trace.cfg, h->s.sentence,
					   source, NULL, &cause));
}

/* How many of the space-separated words of text are word. */
static int count_words(const char *text, const char *word)
{
	int n = 0;
	size_t len = strlen(word);
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t k = strcspn(p, " ");
		n += k == len && strncmp(p, word, len) == 0;
		p += k;
	}
	return n;
}

/* Figure 1: tril(ones(n, n)) labelled with tokens, the 1s on and below the
 * diagonal, row by row. */
static void check_tril(int cols, int lines)
{
	struct harness h;
	OPEN(&h, cols, lines, "", NULL, -1);
	harness_keys(&h, "F");
	assert_non_null(strstr(harness_line(0), "figure · 1/4 tril mask"));
	expect("mask = tril(ones(n, n))");
	expect("QKV tutorial §3.2");
	const struct av_trace *t = &h.s.trace;
	float tril[64];
	av_tril_ones(tril, t->n);
	for (int i = 0; i < t->n; i++) {
		char label[64];
		snprintf(label, sizeof(label), "%d %s", i, t->tokens.text[i]);
		int y = find_row(label);
		assert_true(y >= 0);
		/* query i sees keys 0..i: i + 1 ones, whatever av_tril_ones says */
		int ones = i + 1;
		for (int j = 0; j < t->n; j++)
			assert_true(tril[i * t->n + j] == (j <= i ? 1.0f : 0.0f));
		/* whole numbers, as torch prints the mask: "1", not "1.000" */
		const char *cells = strstr(harness_line(y), label) + strlen(label);
		assert_int_equal(count_words(cells, "1"), ones);
		assert_int_equal(count_words(cells, "0"), t->n - ones);
		assert_int_equal(count_in_line(y, "."), 0);
	}
	expect_explanations_whole(&h);
	expect_whole_at_200(cols);
	harness_key(&h, AV_KEY_ESC);
	assert_non_null(strstr(harness_line(0), "1/9 tokens"));
	harness_close(&h);
}

static void test_tril(void **state)
{
	(void)state;
	check_tril(80, 24);
	check_tril(200, 60);
}

/* Figure 2: scaled | mask | masked; in self mode the causal stand-in (and
 * says so), hidden cells −∞ exactly above the diagonal, the numbers of the
 * causal trace in the inspector. */
static void check_masking(int cols, int lines)
{
	struct harness h;
	OPEN(&h, cols, lines, "", NULL, -1);
	harness_keys(&h, "FF");
	assert_non_null(strstr(harness_line(0), "figure · 2/4"));
	expect("scaled_h");
	expect("mask (1 = visible)");
	expect("masked_h");
	expect("masked = scaled.masked_fill(mask == 0, −1e20)");
	expect("shown causal, as the QKV tutorial's decoder");
	expect("−1e20 in the engine");
	int n = h.s.trace.n;
	assert_int_equal(count_minus_inf_cells(), n * (n - 1) / 2);
	struct av_attention_kinds k;
	run_kinds(&h, &k);
	harness_keys(&h, "l");       /* query 0, key 1: hidden in the causal mask */
	expect_number("scaled_h: query 0 china → key 1 panda", k.causal.scaled[1]);
	harness_keys(&h, ">>");
	expect("masked_h: query 0 china → key 1 panda = −1e+20  (hidden: −1e20, shown −∞)");
	expect_explanations_whole(&h);
	expect_whole_at_200(cols);
	/* the session's own causal trace once its mask hides anything */
	harness_keys(&h, "m");
	expect_not("shown causal, as the QKV tutorial's decoder");
	assert_int_equal(count_minus_inf_cells(), n * (n - 1) / 2);
	av_attention_kinds_free(&k);
	harness_close(&h);
}

/* Keys that did nothing in the figures and said nothing (a key sweep at
 * 80x24): < and > on the tril mask, the one panel; Tab where the figure is
 * the same for every head (the head still changes, for the stepper). */
static void test_silent_keys_say_why(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "F>");
	expect("this figure has one panel: < > mark one of several");
	harness_keys(&h, "\t");
	assert_int_equal(h.a.head, 1);
	expect("head 1 of 8: this figure is the same for every head");
	harness_keys(&h, "F\t");   /* scaled | mask | masked: a head's own */
	assert_int_equal(h.a.head, 2);
	expect_not("the same for every head");
	harness_close(&h);
}

static void test_masking(void **state)
{
	(void)state;
	check_masking(80, 24);
	check_masking(200, 60);
}

/* QA at 80x24 in a lesson (9 rows for the panels and what follows them,
 * as at 80x17): the figure's caption was cut to one row ("…, as its…")
 * with two rows free under the panels. The legend goes up into them and
 * the caption follows the cell's line whole. */
static void test_caption_not_cut_beside_free_rows(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 17, "qkv-walkthrough", NULL, AV_MODE_CAUSAL);
	harness_keys(&h, "FF");
	assert_non_null(strstr(harness_line(0), "figure · 2/4"));
	expect("softmax gives it weight 0");
	expect_not("as its…");
	/* in order: the legend, the cell, the caption */
	int legend = harness_find("value ");
	int cell = harness_find("scaled_h: query 0");
	int caption = harness_find("QKV tutorial §4.1");
	assert_true(legend >= 0 && legend < cell && cell < caption);
	harness_close(&h);
}

/* Figure 3: the three kinds; each panel's row of the last query holds the
 * engine's weights; cross keys are the source's words (or, without a
 * source, the sentence's, and the note says so). */
static void check_kinds(int cols, int lines, const char *sample)
{
	struct harness h;
	OPEN(&h, cols, lines, sample, NULL, -1);
	harness_keys(&h, "FFF");
	assert_non_null(strstr(harness_line(0), "figure · 3/4 three kinds"));
	expect("encoder self");
	expect("decoder masked self");
	expect("encoder–decoder (cross)");
	expect("QKV tutorial §3.1-3.3 and §4.2");
	struct av_attention_kinds k;
	run_kinds(&h, &k);
	if (k.source_is_sentence)
		expect("the sentence as its own source");
	else
		expect("cross: keys and values from the source");
	const struct av_trace *ts[3] = { &k.self, &k.causal, &k.cross };
	for (int p = 0; p < 3; p++) {
		const struct av_trace *t = ts[p];
		int last = t->n - 1;
		char label[64];
		snprintf(label, sizeof(label), "%d %s", last, t->tokens.text[last]);
		/* the rows of panel p: the p-th line with the label (panels
		 * side by side share a line, so look at each line's count) */
		int found = 0;
		for (int y = 0; y < LINES && !found; y++) {
			const char *line = harness_line(y);
			if (!strstr(line, label))
				continue;
			bool all = true;
			for (int j = 0; j < t->m; j++) {
				char num[16];
				float v = t->weights[(size_t)last * t->m + j];
				if (p == 1 && j > last)
					continue;
				snprintf(num, sizeof(num), "%.3f", v);
				all &= strstr(line, num) != NULL;
			}
			found = all;
		}
		if (!found) {
			fprintf(stderr, "panel %d's last row is not on the screen\n", p);
			harness_dump();
			fail();
		}
	}
	for (int j = 0; j < k.cross.m; j++)
		expect(k.cross.source_tokens.text[j]);
	expect("q↓ k→");
	expect_explanations_whole(&h);
	expect_whole_at_200(cols);
	av_attention_kinds_free(&k);
	harness_close(&h);
}

static void test_kinds(void **state)
{
	(void)state;
	check_kinds(80, 24, "");
	check_kinds(200, 60, "");
	check_kinds(80, 24, "qkv-walkthrough");
	check_kinds(200, 60, "qkv-walkthrough");
}

/* A page of panels holds only its own: at 80x18 figure 3's cross panel
 * stood beside a stray column, the self panel's last (key 4 'mats'), left
 * placed by a layout tried and given up. */
static void test_page_has_only_its_panels(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 18, "qkv-walkthrough", NULL, AV_MODE_CAUSAL);
	harness_keys(&h, "Fnn");   /* drawn: the panels are known */
	harness_keys(&h, ">");
	harness_keys(&h, ">");
	expect("encoder–decoder (cross)");
	/* the page's count is whole (it was cut: "panels on this page: 2 of…") */
	assert_non_null(strstr(harness_line(2), " of 3 panels (< >)"));
	int row = harness_find("0 the  0.197");   /* the cross panel's first row */
	assert_true(row > 0);
	if (strstr(harness_line(row), "0.239")) {
		harness_dump();
		fail_msg("the self panel's column beside the cross panel: %s", harness_line(row));
	}
	harness_close(&h);
}

/* A narrow figure title cut inside a word ("figure 3/4  three attention
 * kinds, weig…" at 40x30) or lost its page's count ("… head 0 (causal)  1
 * of …" at 60x20, QA): "figure k/4" and the count stay whole, the title
 * between them is cut after a whole word. */
static void test_narrow_title_whole_words(void **state)
{
	(void)state;
	if (!utf8)
		skip();   /* the "…" */
	struct harness h;
	OPEN(&h, 60, 20, "", NULL, -1);
	harness_keys(&h, "FF");
	const char *row = harness_line(2);
	if (strncmp(row, "figure 2/4  scaled | mask | masked", 34) != 0 ||
	    !strstr(row, "1 of 3 panels (< >)")) {
		harness_dump();
		fail_msg("figure 2's title at 60x20");
	}
	harness_close(&h);
	/* the titles whole at 200 columns, then cut after a word at 40 */
	char whole[4][4096 + 8];
	OPEN(&h, 200, 60, "", NULL, -1);
	for (int fig = 0; fig < 4; fig++) {
		harness_keys(&h, "F");
		snprintf(whole[fig], sizeof(whole[fig]), "%s", harness_line(2));
	}
	harness_close(&h);
	OPEN(&h, 40, 30, "", NULL, -1);
	for (int fig = 0; fig < 4; fig++) {
		harness_keys(&h, "F");
		row = harness_line(2);
		const char *more = strstr(row, "…");
		size_t len = more ? (size_t)(more - row) : 0;
		if (strncmp(row, whole[fig], 12) != 0 ||
		    (more && (strncmp(row, whole[fig], len) != 0 ||
			      !strchr(" ,", whole[fig][len])))) {
			harness_dump();
			fail_msg("figure %d's title at 40x30, whole: %s", fig + 1, whole[fig]);
		}
	}
	harness_close(&h);
}

/* The compare view's count of panels was cut at 60x20: "compare: pinned |
 * live   1 of 2 on this page (< > for the r…" (QA). Its short form fits. */
static void test_pin_title_count_whole(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 60, 20, "qkv-walkthrough", NULL, AV_MODE_CAUSAL);
	harness_keys(&h, "nnnnnny");
	assert_non_null(strstr(harness_line(2), "compare: pinned | live"));
	if (!strstr(harness_line(2), "1 of 2 panels (< >)")) {
		harness_dump();
		fail_msg("the compare view's count at 60x20");
	}
	harness_close(&h);
}

/* Figure 4: the four weight matrices, the cell under the cursor equal to
 * the parameters; at D = 512 a page of rows with "rows a-b of 512". */
static void check_weights(int cols, int lines, const char *sample)
{
	struct harness h;
	OPEN(&h, cols, lines, sample, NULL, -1);
	harness_keys(&h, "FFFF");
	assert_non_null(strstr(harness_line(0), "figure · 4/4 W_q W_k W_v W_o"));
	const char *names[] = { "W_q (out × in)", "W_k (out × in)", "W_v (out × in)",
				"W_o (out × in)" };
	for (int i = 0; i < 4; i++)
		expect(names[i]);
	expect("china–panda tutorial §2");
	int D = h.s.params.d_model;
	if (D > 100)
		expect("of 512 (j/k)");
	harness_keys(&h, "jjl");
	expect_number("W_q[2, 1]", h.s.params.w_q[2 * D + 1]);
	harness_keys(&h, ">>>");
	expect_number("W_o[2, 1]", h.s.params.w_o[2 * D + 1]);
	if (D > 100) {
		for (int i = 0; i < 40; i++)
			harness_keys(&h, "j");
		expect_number("W_o[42, 1]", h.s.params.w_o[42 * D + 1]);
		expect("42 ");
	}
	expect_explanations_whole(&h);
	expect_whole_at_200(cols);
	harness_close(&h);
}

static void test_weights(void **state)
{
	(void)state;
	check_weights(80, 24, "");
	check_weights(200, 60, "");
	check_weights(80, 24, "qkv-walkthrough");
	check_weights(200, 60, "qkv-walkthrough");
}

/* F after the last figure closes; n/p move between figures. */
static void test_figure_keys(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "Fn");
	assert_non_null(strstr(harness_line(0), "2/4"));
	harness_keys(&h, "pp");
	assert_non_null(strstr(harness_line(0), "figure · 4/4"));
	harness_keys(&h, "F");
	assert_non_null(strstr(harness_line(0), "1/9 tokens"));
	expect("figures closed");
	harness_close(&h);
}

/* The token strip shows the figure's tokens: it stayed scrolled to the
 * stepper's cursor (query 16, "tokens … 8 sat ...") while the figure showed
 * rows 0-10. It starts at token 0, follows the figure's cursor down, and
 * is the stepper's again after Esc. */
static void test_token_strip_follows_the_figure(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough",
	     "the cat sat on the mats the dog sat on a cat the cat and the dog sat", -1);
	harness_keys(&h, "nnnnnnjjjjjjjjjjjjjjjj");
	assert_non_null(strstr(harness_line(1), "16 dog"));
	assert_null(strstr(harness_line(1), "0 the  1 cat"));
	harness_keys(&h, "F");
	assert_non_null(strstr(harness_line(1), "tokens 0 the  1 cat"));
	harness_keys(&h, "jjjjjjjjjjjjjjjj");
	assert_non_null(strstr(harness_line(1), "16 dog"));
	harness_keys(&h, "G");   /* W_q ...: no tokens of its own */
	assert_non_null(strstr(harness_line(1), "tokens 0 the  1 cat"));
	harness_key(&h, AV_KEY_ESC);
	assert_non_null(strstr(harness_line(1), "16 dog"));
	harness_close(&h);
}

/* The masked stage, pinned with the mask off, against the mask on: the
 * difference is exactly the masked cells (−∞, hidden now) and 0 elsewhere;
 * the header names the pin and its settings; y unpins. */
static void test_pin_mask_on_off(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "", NULL, -1);
	harness_keys(&h, "nnnnn");
	assert_non_null(strstr(harness_line(0), "6/9 masked"));
	harness_keys(&h, "y");
	assert_non_null(strstr(harness_line(0), "pinned: masked head 0, self, dk, T=1"));
	expect("pinned: masked head 0");
	expect("live: masked head 0");
	harness_keys(&h, "m");
	expect("live: masked head 0, causal, dk, T=1");
	int n = h.s.trace.n;
	/* pinned | live: only the live side hides */
	assert_int_equal(count_minus_inf_cells(), n * (n - 1) / 2);
	harness_keys(&h, "DD");
	expect("Δ = live − pinned");
	expect_not("pinned: masked head 0 ");
	assert_int_equal(count_minus_inf_cells(), n * (n - 1) / 2);
	for (int i = 0; i < n; i++) {
		char label[64];
		snprintf(label, sizeof(label), "%d %s", i, h.s.trace.tokens.text[i]);
		int y = find_row(label);
		assert_true(y >= 0);
		assert_int_equal(count_in_line(y, "╳ −∞"), n - 1 - i);
		assert_int_equal(count_in_line(y, "0.000"), i + 1);
	}
	expect("max |Δ| = 0;");
	expect("6 hidden in one of them only");
	harness_keys(&h, "y");
	assert_null(strstr(harness_line(0), "pinned"));
	assert_non_null(strstr(harness_line(0), "6/9 masked"));
	expect("unpinned");
	harness_close(&h);
}

/* A pin at one stage, then n: the live side is the new stage's own result,
 * where the stepper opens it (it took the pinned part's index there: X
 * pinned at the embedding, then V at the projection, not Q). */
static void test_pin_then_next_stage(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 100, 30, "", NULL, -1);
	harness_keys(&h, "n");
	harness_keys(&h, "y");
	expect("pinned: embedding X");
	harness_keys(&h, "n");
	expect("live: projection Q");
	expect_not("live: projection V");
	harness_keys(&h, "p");   /* back at the pinned stage: its part again */
	expect("live: embedding X");
	harness_close(&h);
}

/* The softmax stage against a higher T: max |Δ| is the engine's. */
static void test_pin_temperature(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "nnnnnn");
	size_t cells = (size_t)h.s.trace.n * h.s.trace.m;
	float before[64 * 64];
	memcpy(before, h.s.trace.weights, cells * sizeof(float));
	harness_keys(&h, "y+D");
	assert_non_null(strstr(harness_line(0), "pinned: softmax head 0, self, dk, T=1"));
	expect("live: softmax head 0, self, dk, T=1.25");
	double max = 0;
	for (size_t k = 0; k < cells; k++) {
		double d = fabs((double)h.s.trace.weights[k] - (double)before[k]);
		if (d > max)
			max = d;
	}
	assert_true(max > 0.01);
	char num[32], text[64];
	av_insp_number(num, sizeof(num), max);
	snprintf(text, sizeof(text), "max |Δ| = %s at", num);
	expect(text);
	harness_close(&h);
}

/* text in the inspector's rows, maybe wrapped over some of them. */
static void expect_in_inspector(struct harness *h, const char *text)
{
	const struct av_rect *r = &h->a.layout.inspector;
	for (int y = r->y; y < r->y + r->h; y++)
		if (harness_status_has(y, text))
			return;
	fprintf(stderr, "not in the inspector: \"%s\"\n", text);
	harness_dump();
	fail();
}

/* Whether the inspector's "max |Δ| = … at [r, c]" names the cell by its
 * position (no "→" between tokens after it). */
static bool max_delta_named_by_position(struct harness *h)
{
	const struct av_rect *r = &h->a.layout.inspector;
	for (int y = r->y; y < r->y + r->h; y++) {
		const char *at = strstr(harness_line(y), "max |Δ| = ");
		if (at)
			return strstr(at, " at [") && !strstr(at, "→");
	}
	return false;
}

/* Whether v reads as a non-zero number at 3 decimals ("0.000" is zero). */
static bool nonzero_at_3(double v)
{
	char buf[48];
	snprintf(buf, sizeof(buf), "%.3f", v);
	return strpbrk(buf, "123456789") != NULL;
}

/* The softmax stage against T = 0.8: every weight moves, most by less
 * than the Δ panel's 3 decimals show. The summary counts the two apart
 * (it said "16 of 16 cells differ" over a panel of 0.000s), and its first
 * count is the Δ cells that do not read 0.000. The legend names the panel
 * whose colours it gives, and follows the focus (< >) round. */
static void test_pin_below_precision(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "nnnnnn");
	int n = h.s.trace.n, m = h.s.trace.m;
	size_t cells = (size_t)n * m;
	float before[64 * 64];
	memcpy(before, h.s.trace.weights, cells * sizeof(float));
	harness_keys(&h, "y-D");
	expect("live: softmax head 0, self, dk, T=0.8");
	int changed = 0, shown = 0;
	for (size_t k = 0; k < cells; k++) {
		double d = (double)h.s.trace.weights[k] - (double)before[k];
		changed += d != 0;
		shown += nonzero_at_3(d);
	}
	assert_true(shown > 0 && shown < changed);
	char text[160];
	snprintf(text, sizeof(text), "%d of %d cells differ at 3 decimals, %d more by under "
		 "0.0005 (shown as 0.000)", shown, (int)cells, changed - shown);
	expect_in_inspector(&h, text);
	/* the Δ panel's rows: as many 0.000 as the summary says are not seen */
	int title = -1;
	for (int y = 0; y < LINES && title < 0; y++)
		if (strstr(harness_line(y), "Δ = live − pinned") &&
		    !strstr(harness_line(y), "compare:"))
			title = y;
	assert_true(title >= 0);
	int zeros = 0;
	for (int y = title + 2; y < title + 2 + n; y++)
		zeros += count_in_line(y, "0.000");
	assert_int_equal(zeros, (int)cells - shown);
	/* the legend is the focused panel's, and says so */
	int ly = h.a.layout.legend.y;
	assert_non_null(strstr(harness_line(ly), "pinned"));
	harness_keys(&h, ">");
	assert_non_null(strstr(harness_line(ly), "live"));
	assert_null(strstr(harness_line(ly), "pinned"));
	harness_keys(&h, ">");
	assert_non_null(strstr(harness_line(ly), "Δ"));
	harness_keys(&h, ">");
	assert_non_null(strstr(harness_line(ly), "pinned"));
	/* Δ alone: its legend, its range */
	harness_keys(&h, "D");
	expect("compare: Δ = live − pinned");
	assert_non_null(strstr(harness_line(ly), "Δ"));
	expect_in_inspector(&h, text);
	harness_close(&h);
}

/* Pin, train (t, two epochs, t back): the comparison is back, the live
 * side says it is trained, the pin is the untrained matrix. */
static void test_pin_training(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "", NULL, -1);
	harness_keys(&h, "nnnnnny");
	float w0 = h.s.trace.weights[1];
	harness_keys(&h, "t");
	expect("training view");
	harness_keys(&h, "sst");
	assert_non_null(strstr(harness_line(0), "pinned: softmax head 0, self, dk, T=1 "));
	expect("live: softmax head 0, self, dk, T=1, trained 2 epochs");
	assert_true(h.s.trace.weights[1] != w0);
	harness_keys(&h, "D");
	expect("max |Δ| = ");
	harness_keys(&h, "Y");
	assert_null(strstr(harness_line(0), "pinned"));
	harness_close(&h);
}

/* A part named as its stage is named once: the output stage's output was
 * "output output" (QA); its other parts keep their names. */
static void test_pin_names_a_part_once(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "G");   /* the stage opens on its own part, output */
	harness_keys(&h, "y");
	expect("pinned: output, self");
	expect_not("output output");
	harness_keys(&h, "Yhhhy");   /* concat keeps its name */
	expect("pinned: output concat, self");
	harness_close(&h);
}

/* A matrix named after its stage is named alone: context_h, pinned at the
 * context stage, read "pinned: context context_h head 0" in the header and
 * the panel's title ("context" twice, stage then matrix); the stage's
 * other matrices keep the stage in front. At 80 columns. */
static void test_pin_names_the_stage_once(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "Gp");   /* the context stage opens on context_h */
	harness_keys(&h, "y");
	assert_non_null(strstr(harness_line(0), "pinned: context_h head 0, self, dk, T=1"));
	expect("pinned: context_h head 0");
	expect_not("context context_h");
	harness_keys(&h, "Yhhhhy");   /* weights_h, left of it */
	expect("pinned: context weights_h head 0, self");
	harness_close(&h);
}

/* Q pinned at the projection stage against the scores: shapes differ,
 * and the screen says so instead of a difference. */
static void test_pin_shapes_differ(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "nny");
	assert_non_null(strstr(harness_line(0), "pinned: projection Q"));
	harness_keys(&h, "nD");
	expect("shapes differ: pinned 4×3, live 4×4");
	expect_not("Δ = live − pinned  ");
	/* said once: where the difference would be, not again in the notes */
	int said = 0;
	for (int y = 0; y < LINES; y++)
		said += harness_count(harness_line(y), "shapes differ");
	assert_int_equal(said, 1);
	/* the title says what is shown, not the Δ chosen (D twice) */
	expect("compare: pinned | live");
	expect_not("compare: pinned | live | Δ");
	harness_keys(&h, "D");
	expect("compare: pinned | live");
	expect_not("compare: Δ");
	harness_close(&h);
}

/* The cursor on a cell the live matrix no longer has: a 4x4 pinned
 * from its last cell, then a sentence of 2 tokens (the live 2x2). The
 * notes read the live matrix at the cursor's cell: out of bounds, and a
 * crash. */
static void test_pin_cursor_outside_live(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "nnnjjjlll");   /* scores, cell [3, 3] */
	harness_keys(&h, "y");
	harness_keys(&h, "e\x15" "china panda\r");
	expect("shapes differ: pinned 4×4, live 2×2");
	harness_keys(&h, "D");
	harness_keys(&h, "D");
	harness_keys(&h, "k>j");
	harness_close(&h);
}

/* Screen cells drawn in the cursor's colour pair in columns x0 to x1
 * (excluded) of rows top to bottom (excluded): where a panel marks the
 * cursor's cell and its column's label. */
static int cursor_cells(struct harness *h, int top, int bottom, int x0, int x1)
{
	int cursor = PAIR_NUMBER(av_colors_el(&h->a.colors, AV_EL_CURSOR));
	int n = 0;
	for (int y = top; y < bottom; y++) {
		for (int x = x0; x < x1; x++) {
			cchar_t cc;
			wchar_t wch[CCHARW_MAX + 1];
			attr_t attrs;
			short pair_short;
			int pair = 0;
			if (mvwin_wch(curscr, y, x, &cc) != ERR &&
			    getcchar(&cc, wch, &attrs, &pair_short, &pair) != ERR && pair == cursor)
				n++;
		}
	}
	return n;
}

/* The inspector's text for cell (r, c) of a trace's weights: "[3 cherry →
 * 3 cherry] 1.000", the way the compare notes name one side's cell. */
static void weight_cell(char *buf, size_t size, const struct av_trace *t, int r, int c)
{
	char v[48];
	av_insp_number(v, sizeof(v), t->weights[r * t->m + c]);
	snprintf(buf, size, "[%d %s → %d %s] %s", r, t->tokens.text[r], c, t->tokens.text[c], v);
}

/* Another sentence since the pin: each side's cell is named by its own
 * tokens (the pinned [3, 3] was named by the live sentence's [0 x → 0 x]),
 * and a side the cursor is outside says it has no such cell. Both ways
 * round: a 4x4 pin against a live 2x2, and a 2x2 pin against a live 4x4;
 * then the same shape with other tokens. */
static void test_pin_cells_named_by_own_tokens(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "nnnnnnjjjlll");   /* softmax, cell [3, 3] */
	char pin33[160], pin11[160], want[400];
	weight_cell(pin33, sizeof(pin33), &h.s.trace, 3, 3);
	weight_cell(pin11, sizeof(pin11), &h.s.trace, 1, 1);
	assert_non_null(strstr(pin33, "[3 cherry → 3 cherry]"));
	harness_keys(&h, "y");
	harness_keys(&h, "e\x15" "x y\r");
	expect("shapes differ: pinned 4×4, live 2×2");
	snprintf(want, sizeof(want), "pinned %s  live (no cell [3, 3] in its 2×2)", pin33);
	expect_in_inspector(&h, want);
	expect_not("[0 x → 0 x]");
	/* and the live 2x2 marks no cell: its [1, 1] is not the cursor's */
	int top = harness_find("live: softmax head 0");
	char before[256];   /* the row up to the live panel's title: its columns */
	snprintf(before, sizeof(before), "%.*s", (int)(strstr(harness_line(top), "live: softmax")
		 - harness_line(top)), harness_line(top));
	int split = av_text_width(before);
	int bottom = h.a.layout.legend.y;
	assert_true(cursor_cells(&h, top, bottom, 0, split) > 0);
	assert_int_equal(cursor_cells(&h, top, bottom, split, COLS), 0);
	harness_keys(&h, "kkhh");   /* [1, 1]: in both, named apart */
	assert_true(cursor_cells(&h, top, bottom, split, COLS) > 0);
	char live11[160];
	weight_cell(live11, sizeof(live11), &h.s.trace, 1, 1);
	snprintf(want, sizeof(want), "pinned %s  live %s", pin11, live11);
	expect_in_inspector(&h, want);
	/* the other way round: the pin is the smaller one */
	harness_keys(&h, "yy");   /* unpin, pin the live 2x2 */
	harness_keys(&h, "e\x15" "china panda japan cherry\r");
	harness_keys(&h, "kkkhhhjjjlll");   /* [3, 3] of the live 4x4 */
	char live33[160];
	weight_cell(live33, sizeof(live33), &h.s.trace, 3, 3);
	snprintf(want, sizeof(want), "pinned (no cell [3, 3] in its 2×2)  live %s", live33);
	expect_in_inspector(&h, want);
	/* the same shape, other tokens: a Δ, each side named */
	harness_keys(&h, "yy");   /* unpin, pin the 4x4 */
	harness_keys(&h, "e\x15" "a b c d\r");
	harness_keys(&h, "kkkhhhjl");
	weight_cell(live11, sizeof(live11), &h.s.trace, 1, 1);
	assert_non_null(strstr(live11, "[1 b → 1 b]"));
	snprintf(want, sizeof(want), "pinned %s  live %s  Δ", pin11, live11);
	expect_in_inspector(&h, want);
	/* where Δ is largest: by position, neither side's tokens naming both */
	expect_in_inspector(&h, "the tokens differ (same shape)");
	assert_true(max_delta_named_by_position(&h));
	/* the same tokens again: the cell named once */
	harness_keys(&h, "e\x15" "china panda japan cherry\r");
	expect_in_inspector(&h, "[1 panda → 1 panda]  pinned ");
	harness_close(&h);
}

/* The numbers of row y as drawn: each one's decimals and the column just
 * after it, up to max of them (the row label's index is not a number:
 * numbers here have a point). Returns how many. */
static int numbers_in_row(int y, int *decimals, int *end_col, int max)
{
	const char *line = harness_line(y);
	int n = 0;
	for (const char *p = line; *p && n < max;) {
		if (*p != '.' || p == line || !strchr("0123456789", p[-1])) {
			p++;
			continue;
		}
		const char *q = p + 1;
		while (*q >= '0' && *q <= '9')
			q++;
		char before[4096];
		snprintf(before, sizeof(before), "%.*s", (int)(q - line), line);
		decimals[n] = (int)(q - p - 1);
		end_col[n++] = av_text_width(before);
		p = q;
	}
	return n;
}

/* The scores pinned on four tokens, then a sentence of two: the two
 * panels write their numbers alike, in one format chosen for both
 * ranges. The pin showed 1.60 −23.83 in its narrower cells beside the live
 * 1.596 −23.825 (QA: "the same number, two values"). At 80 columns, side
 * by side, and at 200, where both fit 3 decimals. */
static void test_pin_one_number_format(void **state)
{
	(void)state;
	const int sizes[][2] = { { 80, 24 }, { 200, 60 } };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct harness h;
		OPEN(&h, sizes[k][0], sizes[k][1], "", NULL, -1);
		harness_keys(&h, "nnny");
		assert_non_null(strstr(harness_line(0), "pinned: scores head 0"));
		harness_keys(&h, "e\x15" "china panda\r");
		expect("shapes differ: pinned 4×4, live 2×2");
		int y = find_row("0 china");
		assert_true(y >= 0);
		int decimals[8], end[8];
		/* the pinned row's 4 numbers, then the live row's 2 */
		assert_int_equal(numbers_in_row(y, decimals, end, 8), 6);
		for (int i = 1; i < 6; i++)
			assert_int_equal(decimals[i], decimals[0]);
		int cell = end[1] - end[0];
		assert_int_equal(end[2] - end[1], cell);
		assert_int_equal(end[3] - end[2], cell);
		assert_int_equal(end[5] - end[4], cell);
		/* the pin's own format at 80 (the fewer decimals of the two),
		 * and nothing too wide for its cell ("#") */
		expect(k == 0 ? "0 china    1.60 " : "0 china    1.596 ");
		expect_not("###");
		harness_close(&h);
	}
}

/* A figure's panel pinned: the header names the figure; with nothing
 * changed the difference is 0, with the mask on it is the masked cells'
 * weights. Also y with nothing under the cursor says why. */
static void test_pin_figure(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "", NULL, -1);
	harness_keys(&h, "y");
	expect("shows no matrix to pin");
	harness_keys(&h, "FFF");
	harness_keys(&h, "y");
	assert_non_null(strstr(harness_line(0), "pinned: figure 3 encoder self head 0"));
	harness_keys(&h, "D");
	expect("max |Δ| = 0; 0 of 16 cells differ");
	harness_keys(&h, "y");
	assert_non_null(strstr(harness_line(0), "figure · 3/4"));
	harness_close(&h);
}

/* Without colour and in ASCII the figures still draw their labels. */
static void test_mono_ascii(void **state)
{
	(void)state;
	struct harness h;
	setenv("NO_COLOR", "1", 1);
	assert_true(harness_open(&h, "vt100", 80, 24, "", NULL, -1, NULL));
	harness_keys(&h, "FF");
	expect("masked_h");
	expect(utf8 ? "╳ −∞" : "x -inf");
	harness_keys(&h, "nnyD");
	expect("pinned:");
	harness_close(&h);
	unsetenv("NO_COLOR");
}

int main(void)
{
	utf8 = harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tril),
		cmocka_unit_test(test_silent_keys_say_why),
		cmocka_unit_test(test_masking),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_page_has_only_its_panels),
		cmocka_unit_test(test_narrow_title_whole_words),
		cmocka_unit_test(test_pin_title_count_whole),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_figure_keys),
		cmocka_unit_test(test_token_strip_follows_the_figure),
		cmocka_unit_test(test_pin_mask_on_off),
		cmocka_unit_test(test_pin_then_next_stage),
		cmocka_unit_test(test_pin_temperature),
		cmocka_unit_test(test_pin_below_precision),
		cmocka_unit_test(test_pin_training),
		cmocka_unit_test(test_pin_shapes_differ),
		cmocka_unit_test(test_pin_names_a_part_once),
		cmocka_unit_test(test_pin_names_the_stage_once),
		cmocka_unit_test(test_pin_cursor_outside_live),
		cmocka_unit_test(test_pin_cells_named_by_own_tokens),
		cmocka_unit_test(test_pin_one_number_format),
		cmocka_unit_test(test_pin_figure),
		cmocka_unit_test(test_mono_ascii),
		cmocka_unit_test(test_caption_not_cut_beside_free_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
