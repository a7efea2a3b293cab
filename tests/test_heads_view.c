/* test_heads_view.c: the all-heads view ('a') drawn without a terminal
 * (ui_harness.h): many tokens page instead of wrapping (issue 7, defect 1),
 * z and numbers in the grid (defect 4), the title naming the stage the
 * header names (defect 11), the projector sizes (2x4 with numbers at
 * 200x60, key and query words on every tile, the bars' axis and values),
 * and no line longer than the screen at any size from 40x12 to 250x80,
 * with CJK words. */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ui/widgets/draw.h"
#include "ui/views/view_heads_internal.h"
#include "ui_harness.h"

static bool utf8;

#define OPEN(h, cols, lines, sample, sentence, mode) \
	assert_true(harness_open((h), "xterm-256color", (cols), (lines), (sample), \
				 (sentence), (mode), NULL))

/* 64 words: the defect's sentence (8 distinct words, 8 times). */
static const char *words64(void)
{
	static char buf[1024];
	if (!buf[0]) {
		static const char *const w[] = { "the", "cat", "sat", "on", "mats", "a", "dog",
						 "ran" };
		for (int i = 0; i < 64; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
				 i ? " " : "", w[i % 8]);
	}
	return buf;
}

/* n words of the same kind. */
static const char *words(int n)
{
	static char buf[1024];
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 i % 2 ? "cat" : "the");
	return buf;
}

/* The panel's rows (the view's body, between the title and the legend). */
static int panel_find(const struct harness *h, const char *text)
{
	const struct av_rect *r = &h->a.layout.panel;
	for (int y = r->y; y < r->y + r->h; y++)
		if (strstr(harness_line(y), text))
			return y;
	return -1;
}

static void expect_panel(const struct harness *h, const char *text, bool present)
{
	if ((panel_find(h, text) >= 0) != present) {
		fprintf(stderr, "%s in the panel: \"%s\"\n", present ? "not" : "unexpected",
			text);
		harness_dump();
		fail();
	}
}

/* No screen line is wider than the screen: a wide character straddling
 * the last column would read back one column too wide (av_app_read_line
 * counts it whole). And nothing wrapped: curses puts what runs past the
 * right edge at the start of the next line, so a tile title glued to cells
 * ("head 1╳╳╳"), a grid row starting with a cell glyph instead of its label,
 * or tile titles off their columns all mean a line ran over. */
static void expect_no_overflow(const struct harness *h, const char *what)
{
	const struct av_rect *panel = &h->a.layout.panel;
	int tile_x[2] = { -1, -1 };    /* where heads 0 and 1 start */
	for (int y = 0; y < LINES; y++) {
		const char *line = harness_line(y);
		const char *why = NULL;
		if (av_text_width(line) > COLS)
			why = "wider than the screen";
		bool in_panel = y >= panel->y && y < panel->y + panel->h;
		if (in_panel && !h->a.heads_bars && !h->a.layout.too_small &&
		    (strncmp(line, "╳", 3) == 0 || strncmp(line, "x", 1) == 0))
			why = "a grid row starts with a cell";
		for (const char *hd = line; in_panel && (hd = strstr(hd, "head ")) != NULL;
		     hd += 5) {
			const char *p = hd + 5;
			int num = 0;
			while (*p >= '0' && *p <= '9')
				num = num * 10 + (*p++ - '0');
			if (p == hd + 5)
				continue;
			if (strncmp(p, "╳", 3) == 0 || strncmp(p, "█", 3) == 0 || *p == 'x')
				why = "a tile title runs into cells";
			/* titles at multiples of one tile width */
			char prefix[4096];
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(hd - line), line);
			int x = av_text_width(prefix);
			if (num < 2 && tile_x[num] < 0)
				tile_x[num] = x;
			if (tile_x[0] >= 0 && tile_x[1] > tile_x[0] &&
			    (x - tile_x[0]) % (tile_x[1] - tile_x[0]) != 0)
				why = "a tile title off its column";
		}
		if (why) {
			fprintf(stderr, "%s: %dx%d line %d: %s\n", what, COLS, LINES, y, why);
			harness_dump();
			fail();
		}
	}
}

static float weight(const struct harness *h, int head, int r, int c)
{
	const struct av_trace *t = &h->s.trace;
	return t->weights[((size_t)head * t->n + (size_t)r) * t->m + (size_t)c];
}

/* Defect 1: 64 tokens at 80x24, causal, softmax: the grid pages (cols and
 * rows marked), < > page, Ctrl-L keeps it; the bars page over the keys. */
static void test_many_tokens_page(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough", words64(), AV_MODE_CAUSAL);
	harness_keys(&h, "nnnnnn");
	harness_keys(&h, "a");
	assert_non_null(strstr(harness_line(0), "all heads · 7/9 softmax"));
	expect_no_overflow(&h, "grid, 64 tokens");
	expect(utf8 ? "of 64 ▶" : "of 64 >");
	expect("cols 0-");
	expect(utf8 ? "rows 0-" : "rows 0-");
	expect(utf8 ? "of 64 ▼" : "of 64 v");
	for (int k = 0; k < 8; k++) {
		char name[24];
		snprintf(name, sizeof(name), "head %d", k);
		expect_panel(&h, name, true);
	}
	/* the page size is what the screen shows: > moves to the next page */
	int first = 0, last = 0;
	int y = harness_find("cols 0-");
	assert_true(y >= 0);
	assert_int_equal(sscanf(strstr(harness_line(y), "cols "), "cols %d-%d", &first, &last), 2);
	assert_true(last > first && last < 63);
	harness_keys(&h, ">");
	char want[64];
	snprintf(want, sizeof(want), "cols %d-%d of 64", last + 1, 2 * last + 1);
	expect(want);
	expect(utf8 ? "◀ cols" : "< cols");
	expect_no_overflow(&h, "grid, 64 tokens, page 2");
	harness_key(&h, AV_CTRL('L'));
	expect(want);
	expect_no_overflow(&h, "grid after Ctrl-L");
	/* the cursor scrolls the rows */
	for (int k = 0; k < 20; k++)
		harness_keys(&h, "j");
	expect(utf8 ? "▲" : "^");
	expect_no_overflow(&h, "grid, rows scrolled");
	/* the bars page over the keys too */
	harness_keys(&h, "a");
	expect("weights of query 20");
	expect("keys ");
	expect(utf8 ? "of 64 ▶" : "of 64 >");
	expect_no_overflow(&h, "bars, 64 tokens");
	harness_keys(&h, ">>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>");
	expect_not(utf8 ? "of 64 ▶" : "of 64 >");
	expect_no_overflow(&h, "bars, last page");
	harness_close(&h);
}

/* Defect 1: rows that do not fit are said, and the cursor scrolls them. */
static void test_rows_marked(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 60, 20, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	expect(utf8 ? "of 5 ▼" : "of 5 v");
	expect("rows 0-");
	harness_keys(&h, "jjjj");
	expect(utf8 ? "▲" : "^");
	expect("of 5");
	expect_panel(&h, "4", true);
	expect_no_overflow(&h, "60x20");
	harness_close(&h);
}

/* Defect 4 and the projector layout: at 200x60 the 8 heads stand 2x4 with
 * numbers; z takes them away and brings them back; at 80x24, z brings
 * numbers (paging). */
static void test_numbers_and_z(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	/* 2 rows of 4 */
	int y0 = panel_find(&h, "head 0");
	assert_true(y0 >= 0);
	assert_non_null(strstr(harness_line(y0), "head 3"));
	assert_null(strstr(harness_line(y0), "head 4"));
	int y4 = panel_find(&h, "head 4");
	assert_true(y4 > y0);
	assert_non_null(strstr(harness_line(y4), "head 7"));
	/* numbers of two heads, as the engine computed them */
	char num[32];
	snprintf(num, sizeof(num), "%.3f", weight(&h, 0, 1, 0));
	expect_panel(&h, num, true);
	snprintf(num, sizeof(num), "%.3f", weight(&h, 7, 4, 4));
	expect_panel(&h, num, true);
	/* key and query words on every tile */
	assert_non_null(strstr(harness_line(y0 + 1), "mats"));
	expect_panel(&h, "4 mats", true);
	harness_keys(&h, "z");
	expect("colour only");
	expect_panel(&h, num, false);
	harness_keys(&h, "z");
	expect_panel(&h, num, true);
	expect_no_overflow(&h, "200x60 grid");
	harness_close(&h);

	OPEN(&h, 80, 24, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	/* ".19": narrow cells drop the leading 0 of a weight */
	snprintf(num, sizeof(num), "%.2f", weight(&h, 0, 0, 0));
	memmove(num, num + 1, strlen(num));
	expect_panel(&h, num, false);
	harness_keys(&h, "z");
	expect("numbers in the cells");
	expect_panel(&h, num, true);
	expect_no_overflow(&h, "80x24 numbers");
	/* the bars keep z's choice: values, though the keys then page */
	harness_keys(&h, "a");
	expect_panel(&h, num, true);
	expect(utf8 ? "of 5 ▶" : "of 5 >");
	expect_no_overflow(&h, "80x24 bars with values");
	harness_keys(&h, "z");
	expect("bars only");
	expect_panel(&h, num, false);
	harness_keys(&h, "z");
	expect("values under the bars");
	expect_panel(&h, num, true);
	harness_close(&h);
}

/* Defect 11: the title names the stage the header names, or says that
 * stage has no per-head data and which one it shows. */
static void test_title_matches_header(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 100, 30, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "a");
	for (int st = 0; st < AV_STAGE_COUNT; st++) {
		char head[64];
		snprintf(head, sizeof(head), "%d/%d %s", st + 1, AV_STAGE_COUNT,
			 av_ui_stage_titles[st]);
		assert_non_null(strstr(harness_line(0), head));
		const char *title = harness_line(h.a.layout.title.y);
		char want[96];
		bool per_head = st >= AV_STAGE_PROJECTION && st <= AV_STAGE_CONTEXT;
		if (per_head)
			snprintf(want, sizeof(want), "all heads: %s", av_ui_stage_titles[st]);
		else
			snprintf(want, sizeof(want), "(%s has no per-head data)",
				 av_ui_stage_titles[st]);
		if (!strstr(title, want)) {
			fprintf(stderr, "stage %s: title lacks \"%s\"\n", av_ui_stage_titles[st],
				want);
			harness_dump();
			fail();
		}
		harness_keys(&h, "n");
	}
	/* the bars: the row of the scores, scaled, masked or weights matrix;
	 * the weights, said, at the other stages */
	harness_keys(&h, "ga");
	for (int st = 0; st < AV_STAGE_COUNT; st++) {
		const char *title = harness_line(h.a.layout.title.y);
		char want[96];
		if (st >= AV_STAGE_SCORES && st <= AV_STAGE_MASKED)
			snprintf(want, sizeof(want), "all heads: %s of query 0",
				 av_ui_stage_titles[st]);
		else if (st == AV_STAGE_SOFTMAX)
			snprintf(want, sizeof(want), "all heads: softmax weights of query 0");
		else
			snprintf(want, sizeof(want), "(no per-head row at %s)",
				 av_ui_stage_titles[st]);
		if (!strstr(title, want)) {
			fprintf(stderr, "bars at %s: title lacks \"%s\"\n",
				av_ui_stage_titles[st], want);
			harness_dump();
			fail();
		}
		harness_keys(&h, "n");
	}
	harness_keys(&h, "a");   /* back to the stepper */
	harness_keys(&h, "a");   /* the grid again */
	/* the projection shows each head's Q, K and V columns: 3 x 64 */
	harness_keys(&h, "gnn");
	expect("all heads: projection Q_h K_h V_h");
	expect("of 192");
	expect_panel(&h, "Q0", true);
	harness_close(&h);
}

/* The bars (seed 000 §5.2): an axis from 0 to the query's largest weight,
 * key words, values when they fit, Up/Down the query, the inspector on the
 * selected head's cell. */
static void test_bars(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnnaa");
	expect("weights of query 0 'the'");
	harness_keys(&h, "j");
	expect("weights of query 1 'cat'");
	double ymax = 0;
	for (int hd = 0; hd < 8; hd++)
		for (int c = 0; c < 5; c++)
			if (weight(&h, hd, 1, c) > ymax)
				ymax = weight(&h, hd, 1, c);
	char axis[32];
	snprintf(axis, sizeof(axis), "axis 0 to %.2f", ymax);
	expect(axis);
	snprintf(axis, sizeof(axis), ".%02d%s", (int)(ymax * 100 + 0.5), utf8 ? "│" : "|");
	expect_panel(&h, axis, true);
	char num[32];
	snprintf(num, sizeof(num), "%.3f", weight(&h, 5, 1, 3));
	expect_panel(&h, num, true);
	expect_panel(&h, "sat", true);
	expect_panel(&h, "mats", true);
	/* Tab, Right: the inspector explains head 1's weight of query 1, key 2 */
	harness_keys(&h, "\tll");
	expect("weights_h[1,2]");
	expect("head 1 of 8");
	harness_keys(&h, "z");
	snprintf(num, sizeof(num), "%.3f", weight(&h, 5, 1, 3));
	expect_panel(&h, num, false);
	expect_no_overflow(&h, "200x60 bars");
	harness_close(&h);
	/* at 80x24 the tiles' titles take one form: none "→ 3 on" (a position
	 * where a short word left room) beside "→ mats" */
	OPEN(&h, 80, 24, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnnaa");
	const char *arrow = utf8 ? "→" : "->";
	char text[64];
	snprintf(text, sizeof(text), "head 0 %s mats 0.24", arrow);
	expect(text);
	snprintf(text, sizeof(text), "head 4 %s on 0.23", arrow);
	expect(text);
	snprintf(text, sizeof(text), "%s 3 on", arrow);
	expect_not(text);
	harness_close(&h);
}

/* QA at 80x24 (a lesson's pane leaves 9 rows, as 80x17 does): the bars
 * with their values page the keys ("keys 0-1 of 5"), the tiles' titles had
 * no room for "→ mats 0.32", and the legend said the tallest bar is the
 * key the head attends to most while head 0's largest weight was off the
 * page. Each tile then names its largest key and weight under its title,
 * and the legend points to that. */
static void test_bars_paged_name_the_largest(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 17, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnnaaz");
	expect("keys 0-1 of 5");
	const struct av_trace *t = &h.s.trace;
	const char *arrow = utf8 ? "→" : "->";
	for (int hd = 0; hd < t->heads; hd++) {
		int best = 0;
		for (int c = 1; c < t->m; c++)
			if (weight(&h, hd, 0, c) > weight(&h, hd, 0, best))
				best = c;
		char want[64];
		snprintf(want, sizeof(want), "%s %d %.2f", arrow, best, weight(&h, hd, 0, best));
		expect_panel(&h, want, true);
	}
	expect_not("the tallest bar");
	char want_legend[96];
	snprintf(want_legend, sizeof(want_legend), "%s names the key it attends to most", arrow);
	expect(want_legend);
	expect_no_overflow(&h, "paged bars 80x17");
	/* every key on the screen: the tallest bar is the largest again */
	harness_resize(&h, 200, 60);
	expect_not("keys 0-");
	expect("the tallest in each head is the key this query attends to most");
	harness_close(&h);
}

/* The rows of text about the grid and the bars, at 80x24 in English: the
 * legend read "the tallest bar is the key it atten…", the bars' title
 * "...; up/down: query; z:…" and the grid's (under a lesson's pane too,
 * where "rows 0-2 of 5 ▼" leads it) "...; a…". The point whole, the keys
 * (which the status line names too) only when they fit whole. */
static void expect_no_cut_row(const char *start)
{
	int y = harness_find(start);
	if (y < 0) {
		fprintf(stderr, "no row with \"%s\"\n", start);
		harness_dump();
		fail();
	}
	if (strstr(harness_line(y), utf8 ? "…" : "~")) {
		fprintf(stderr, "row %d cut: %s\n", y, harness_line(y));
		harness_dump();
		fail();
	}
}

static void test_hints_whole_at_80(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	expect_no_cut_row("one heatmap per head");
	harness_keys(&h, "j");   /* rows 0-2 of 5 lead the row */
	expect_no_cut_row("one heatmap per head");
	harness_keys(&h, "a");
	expect_no_cut_row("bar height = weight");
	expect_no_cut_row("bars: the tallest in each head is the key this query attends to most");
	harness_keys(&h, "pp");   /* the scaled stage: signed bars */
	expect_no_cut_row("bar height = value");
	expect_no_cut_row("bars: up from 0 or down");
	harness_resize(&h, 200, 60);
	expect("; up/down: query; z: values; a: back");
	harness_close(&h);
}

/* At 60x16 the bars of 14 keys page and each tile is four rows: a row
 * under the title naming the largest key ("→ 5 mats 0.09") left the bars
 * one row tall, though the title named that key already ("head 0 → mats").
 * The bars keep their two rows. */
static void test_bars_keep_their_rows_at_60x16(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 60, 16, "qkv-walkthrough", "the cat sat on the mats the dog sat on a cat the cat",
	     -1);
	harness_keys(&h, "nnnnnnaa");
	expect("keys 0-4 of 14");
	expect(utf8 ? "head 0 → mats" : "head 0 -> mats");
	int bar_rows = 0;
	for (int y = 0; y < LINES; y++)
		bar_rows += strstr(harness_line(y), utf8 ? "│" : "|") != NULL;
	assert_int_equal(bar_rows, 4);   /* two rows of tiles, two rows of bars */
	harness_close(&h);
}

/* Keys read before the next draw, in one burst (typed ahead): the bars on
 * the last query, a shorter sentence, Enter, then z. z planned the page
 * from the bars' query row, still the longer sentence's: a read past the
 * weights (ASan: heap-buffer-overflow in av_heads_bars_range). The keys
 * place the cursor first, as the draw does; z then says what it did. */
static void test_bars_burst_shorter_sentence(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "", NULL, -1);
	harness_keys(&h, "aa");
	harness_keys(&h, "jjj");
	assert_int_equal(h.a.row, 3);
	harness_keys(&h, "e\x15" "china panda\rz");
	assert_int_equal(h.s.trace.n, 2);
	assert_int_equal(h.a.row, 1);
	expect("weights of query 1 'panda'");
	expect("all heads: bars only (z for values)");
	/* a move in the same burst starts from the placed cursor */
	harness_keys(&h, "e\x15" "china panda japan cherry\r" "jjj" "e\x15" "china\rk");
	assert_int_equal(h.a.row, 0);
	harness_close(&h);
}

/* Bars of a signed stage: up and down from 0 on one axis, −∞ for the
 * keys the causal mask hides, the values as the engine computed them. */
static void test_bars_signed(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "qkv-walkthrough", NULL, AV_MODE_CAUSAL);
	harness_keys(&h, "nnnnnaajj");   /* masked, query 2 */
	expect("all heads: masked of query 2 'sat'");
	const struct av_trace *t = &h.s.trace;
	double lo = 0, hi = 0;
	for (int hd = 0; hd < t->heads; hd++)
		for (int c = 0; c <= 2; c++) {
			double v = t->masked[((size_t)hd * t->n + 2) * t->m + (size_t)c];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	char want[96], from[32];
	/* the minus as on every number of the screen: U+2212, not '-' */
	snprintf(from, sizeof(from), "%.2f", lo);
	if (utf8)
		av_cell_minus(from, sizeof(from));
	snprintf(want, sizeof(want), "axis %s to %.2f", from, hi);
	expect(want);
	expect_panel(&h, utf8 ? "−∞" : "-inf", true);
	harness_cell_text(want, sizeof(want), 3, t->masked[((size_t)1 * t->n + 2) * t->m + 2]);
	expect_panel(&h, want, true);
	/* a bar below the zero line */
	expect_panel(&h, utf8 ? "▀" : "=", true);
	expect_no_overflow(&h, "masked bars");
	harness_resize(&h, 80, 24);
	expect_no_overflow(&h, "masked bars 80x24");
	harness_close(&h);
}

/* A head whose largest score is below 0 (seed 000, query 0, head 6:
 * "on" at -1.83) writes its minus in the title as every number on the
 * screen does, U+2212; the title said "-1.83" beside the axis's "−8.7". */
static void test_bars_title_minus(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "qkv-walkthrough", NULL, AV_MODE_SELF);
	harness_keys(&h, "nnnaa");   /* scores, bars of query 0 */
	const struct av_trace *t = &h.s.trace;
	int best = 0;
	for (int c = 1; c < t->m; c++)
		if (t->scores[((size_t)6 * t->n) * t->m + (size_t)c] >
		    t->scores[((size_t)6 * t->n) * t->m + (size_t)best])
			best = c;
	double top = t->scores[((size_t)6 * t->n) * t->m + (size_t)best];
	assert_true(top < 0);
	char value[32], want[96];
	snprintf(value, sizeof(value), "%.2f", top);
	if (utf8)
		av_cell_minus(value, sizeof(value));
	snprintf(want, sizeof(want), "head 6 %s %d %s %s", utf8 ? "→" : "->", best,
		 t->tokens.text[best], value);
	expect(want);
	harness_close(&h);
}

/* The grid's inspector follows the selected head and cell. */
static void test_grid_inspector(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 120, 40, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna\t\tjjl");
	expect("weights_h[2,1]");
	expect("head 2 of 8");
	harness_keys(&h, "<");
	expect("weights_h[2,0]");
	harness_close(&h);
}

/* The grid's inspector wraps its sum into the rows it has, as the stepper's
 * does: at 80x24 the context cell of query 5 showed one term of six
 * ("0.171x0.375 + ... (+5 terms)") above a blank row, the stepper all six
 * over two rows, so a learner could not check the cell in the grid. */
static void test_grid_inspector_wraps(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough", "the cat sat on the mat", -1);
	harness_keys(&h, "nnnnnnnjjjjj");
	expect("context_h[5,0]");
	expect_not("terms)");
	harness_keys(&h, "a");
	expect("context_h[5,0]");
	expect_not("terms)");
	/* the softmax row's exponentials too, each with its sum */
	harness_keys(&h, "p");
	expect("weights_h[5,0]");
	expect_not("(+");
	harness_close(&h);
}

/* The grid's inspector gives a sum every row its other lines leave free,
 * as the stepper does: at 200x60 the context of query 0 over 64 keys took
 * five rows in the stepper, but three in the grid, "... (+30 terms)" above
 * two blank rows. At 80x24 the inspector's four rows are full either way;
 * at both sizes its last line ends it, the legend and the key line stay. */
static void test_grid_inspector_uses_the_free_rows(void **state)
{
	(void)state;
	struct harness h;
	char sentence[1024];
	harness_words(sentence, sizeof(sentence), "w", 64);
	OPEN(&h, 200, 60, "qkv-walkthrough", sentence, -1);
	harness_keys(&h, "nnnnnnn");
	expect("context_h[0,0]");
	expect_not("terms)");
	harness_keys(&h, "a");
	expect("context_h[0,0]");
	expect_not("terms)");
	int sizes[][2] = { { 200, 60 }, { 80, 24 } };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		harness_resize(&h, sizes[i][0], sizes[i][1]);
		expect_no_overflow(&h, "grid inspector");
		expect("context_h[0,0]");
		int last = harness_find("value rows weighted by query 0");
		/* the inspector's last row, no blank ones above the key line */
		assert_int_equal(last, h.a.layout.inspector.y + h.a.layout.inspector.h - 1);
		assert_int_equal(harness_find("(0 = middle)"), h.a.layout.legend.y);
		assert_int_equal(harness_find("a bars/back"), LINES - 1);
	}
	harness_close(&h);
}

/* Nothing ever wraps: every size from the minimum to 250x80, both faces,
 * the per-head stages, 5, 27, 40 and 64 tokens and CJK words. */
static void test_every_size(void **state)
{
	(void)state;
	static const int cols[] = { 40, 41, 57, 60, 80, 99, 120, 161, 200, 250 };
	static const int lines[] = { 12, 13, 17, 20, 24, 33, 40, 60, 80 };
	struct {
		const char *sample, *sentence;
		int mode;
	} cases[] = {
		{ "qkv-walkthrough", NULL, AV_MODE_CAUSAL },
		{ "qkv-walkthrough", NULL, AV_MODE_CROSS },
		{ "qkv-walkthrough", words64(), AV_MODE_CAUSAL },
		{ "", "熊猫 中国 日本 樱花 东京都 panda", -1 },
	};
	char w27[1024], w40[1024];
	snprintf(w27, sizeof(w27), "%s", words(27));
	snprintf(w40, sizeof(w40), "%s", words(40));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]) + 2; k++) {
		struct harness h;
		if (k < sizeof(cases) / sizeof(cases[0]))
			OPEN(&h, 80, 24, cases[k].sample, cases[k].sentence, cases[k].mode);
		else
			OPEN(&h, 80, 24, "qkv-walkthrough", k == 4 ? w27 : w40, AV_MODE_CAUSAL);
		harness_keys(&h, k == 1 ? "nnna" : "nnnnnna");
		for (int face = 0; face < 2; face++) {
			for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
				for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
					harness_resize(&h, cols[c], lines[l]);
					char what[64];
					snprintf(what, sizeof(what), "case %zu face %d", k, face);
					expect_no_overflow(&h, what);
					if (c % 3 == 0 && l % 3 == 0) {
						harness_keys(&h, "nl>jz");
						expect_no_overflow(&h, what);
						harness_keys(&h, "p");
					}
				}
			}
			harness_keys(&h, "a");
		}
		harness_close(&h);
	}
}

/* The qkv sample with H heads (as --heads H) on a cols x lines screen. */
static void open_heads(struct harness *h, int heads, int cols, int lines)
{
	memset(h, 0, sizeof(*h));
	char *cause = NULL;
	struct av_session *s = &h->s;
	assert_true(av_sample_load("qkv-walkthrough", &s->sample, &cause));
	s->cfg = s->sample.cfg;
	s->cfg.heads = heads;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(s->sample.sentence);
	assert_true(av_session_run(s, &cause));
	harness_screen(h, "xterm-256color", cols, lines);
	struct av_ui_config cfg = { .theme = NULL, .head = 0, .no_color = false };
	assert_true(av_app_init(&h->a, s, &cfg, &cause));
	h->app_open = true;
	av_app_draw(&h->a);
}

/* More heads than fit (64 at 80x24): readable tiles, Tab pages the heads. */
static void test_many_heads(void **state)
{
	(void)state;
	struct harness h;
	open_heads(&h, 64, 80, 24);
	harness_keys(&h, "nnnnnna");
	int y = harness_find("heads 0-");
	assert_true(y >= 0);
	int last = 0;
	assert_int_equal(sscanf(strstr(harness_line(y), "heads 0-"), "heads 0-%d of 64 (Tab)",
				&last), 1);
	assert_true(last >= 3 && last < 63);
	char name[64];
	snprintf(name, sizeof(name), "head %d", last);
	expect_panel(&h, name, true);
	/* every tile has all 5 keys and 5 queries: nothing pages but heads */
	expect_not("of 5");
	for (int k = 0; k <= last; k++)
		harness_keys(&h, "\t");
	snprintf(name, sizeof(name), "heads %d-", last + 1);
	expect(name);
	snprintf(name, sizeof(name), "%shead %d", utf8 ? "▶" : ">", last + 1);
	expect_panel(&h, name, true);
	expect_no_overflow(&h, "64 heads");
	harness_keys(&h, "a");
	expect("of 64 (Tab)");
	expect_no_overflow(&h, "64 heads, bars");
	for (int c = 40; c <= 250; c += 35) {
		harness_resize(&h, c, 12 + c / 5);
		expect_no_overflow(&h, "64 heads, resized");
	}
	harness_close(&h);
}

/* The clipping helpers every tile writes through: a CJK word at the right
 * edge is cut before the character that would straddle it (nothing on the
 * next line), and labels cut by columns keep whole characters. */
static void test_clip_helpers(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 40, 12, "", NULL, -1);
	WINDOW *w = newwin(3, 40, 0, 0);
	werase(w);
	/* 3 columns left: "熊…"; 2: " …" (the 熊 that would straddle is a
	 * space); 1: "…" */
	assert_int_equal(av_heads_put(w, 0, 37, "熊猫熊猫", 10, A_NORMAL), 3);
	assert_int_equal(av_heads_put(w, 0, 38, "熊猫", 10, A_NORMAL), 2);
	assert_int_equal(av_heads_put(w, 0, 39, "熊猫", 10, A_NORMAL), 1);
	assert_int_equal(av_heads_put(w, 0, 40, "x", 10, A_NORMAL), 0);
	assert_int_equal(av_heads_put(w, 3, 0, "x", 10, A_NORMAL), 0);
	av_heads_fill(w, 1, 35, 20, A_NORMAL);
	wnoutrefresh(w);
	doupdate();
	assert_true(av_text_width(harness_line(0)) <= 40);
	/* the next line is untouched: nothing wrapped onto it */
	assert_int_equal(strspn(harness_line(1), " "), strlen(harness_line(1)));
	delwin(w);
	char out[64];
	av_heads_fit(out, sizeof(out), "熊猫", 3);
	assert_string_equal(out, "熊");
	av_heads_fit(out, sizeof(out), "熊猫", 1);
	assert_string_equal(out, "");
	av_heads_fit(out, sizeof(out), "kangaroo", 3);
	assert_string_equal(out, "kan");
	av_heads_fit(out, sizeof(out), "kangaroo", 5);
	assert_string_equal(out, utf8 ? "kang…" : "kang~");
	av_heads_fit(out, sizeof(out), "熊猫熊猫", 6);
	assert_string_equal(out, utf8 ? "熊猫…" : "熊猫~");
	char num[16];
	av_heads_weight_text(num, sizeof(num), 0.4231, 3);
	assert_string_equal(num, ".42");
	av_heads_weight_text(num, sizeof(num), 0.9999, 3);
	assert_string_equal(num, "1.0");
	av_heads_weight_text(num, sizeof(num), 0.4231, 5);
	assert_string_equal(num, "0.423");
	harness_close(&h);
}

/* The figures and the training view opened from all heads return to all
 * heads (Esc, F past the last figure, t), as they return to the stepper
 * from the stepper; in the bars too. */
static void test_views_return_to_all_heads(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 100, 30, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "aF");
	assert_ptr_equal(h.a.view, &av_view_figures);
	harness_key(&h, AV_KEY_ESC);
	assert_ptr_equal(h.a.view, &av_view_heads);
	expect("all heads · 1/9 tokens");
	harness_keys(&h, "FFFFF");   /* past the last figure */
	assert_ptr_equal(h.a.view, &av_view_heads);
	harness_keys(&h, "t");
	assert_ptr_equal(h.a.view, &av_view_train);
	harness_keys(&h, "t");
	assert_ptr_equal(h.a.view, &av_view_heads);
	expect("back to all heads (nothing trained yet)");
	harness_keys(&h, "atst");   /* the bars: one epoch, and back */
	assert_ptr_equal(h.a.view, &av_view_heads);
	assert_true(h.a.heads_bars);
	expect("all heads: the weights after 1 epoch");
	harness_keys(&h, "aF");   /* from the stepper: back to it, as before */
	assert_ptr_equal(h.a.view, &av_view_figures);
	harness_key(&h, AV_KEY_ESC);
	assert_ptr_equal(h.a.view, &av_view_stage);
	harness_keys(&h, "tst");
	assert_ptr_equal(h.a.view, &av_view_stage);
	expect("stepper: the weights after 2 epochs");
	harness_close(&h);
}

/* y in the grid pins the cursor's head's matrix as the stepper would: the
 * grid's column 7 of head 3's Q_h is Q's dimension 3·64+7 (it pinned Q's
 * dimension 7, the grid's column read as the stepper's). At the output
 * stage the grid shows context_h: nothing of the output stage to pin. */
static void test_pin_from_grid(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 100, 30, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "ann\t\t\tlllllll");
	harness_keys(&h, "y");
	assert_ptr_equal(h.a.view, &av_view_compare);
	expect("pinned: projection Q");
	expect("[0 the, dim 199]");
	harness_keys(&h, "yG");
	assert_ptr_equal(h.a.view, &av_view_heads);
	harness_keys(&h, "y");
	assert_null(h.a.pin);
	expect("the output stage has no matrix per head: these are context's");
	harness_keys(&h, "py");   /* context: head 3's context_h */
	expect("pinned: context_h head 3");
	harness_close(&h);
}

/* The grid's title named the context three times, "all heads: context
 * context_h  context_h = weights_h · V_h", at the context and the output
 * stage: the stage, then the formula, which names the matrix. */
static void test_grid_title_names_context_once(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 120, 40, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "aG");
	expect("all heads: context (output has no per-head data)");
	expect_not("context context_h");
	harness_keys(&h, "p");
	expect("all heads: context  context_h = weights_h");
	harness_close(&h);
}

/* Key labels cut to two columns with no room for "…" read alike (s10,
 * s11, ... all "s1"): the key's index is shown instead where it fits. */
static void test_cut_key_labels_are_indices(void **state)
{
	(void)state;
	struct harness h;
	char words[24 * 5];
	harness_words(words, sizeof(words), "s", 24);
	OPEN(&h, 100, 30, "qkv-walkthrough", words, -1);
	harness_keys(&h, "annnnnn");
	harness_keys(&h, ">");
	harness_keys(&h, ">");
	expect("   14 15 16 17 18 19 20 ");
	expect_not(" s1 s1 ");
	/* and so are those of the words that fit, on every page (QA: a grid
	 * read "0  1  2  on 4") */
	harness_keys(&h, "<<");
	harness_keys(&h, "<");
	expect("    0  1  2  3  4  5  6 ");
	expect_not(" s0 s1 ");
	harness_close(&h);
}

/* QA at 80x24: the grid's key labels mixed indices with the one word that
 * fitted ("0  1  2  on 4": "mats" needs 4 columns of 2); the bars' values
 * page showed "the cat" where a later page showed "4". One kind per
 * figure: indices when any word does not fit, else words. */
static void test_key_labels_one_kind(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 80, 24, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	expect_panel(&h, "  0  1  2  3  4", true);
	expect_panel(&h, " on ", false);
	harness_keys(&h, "az");   /* the bars with their values: keys page */
	expect("keys 0-");
	expect_panel(&h, "the cat", false);
	expect_panel(&h, "    0   1", true);
	harness_close(&h);
	/* every word fits, with its index: "0 the" everywhere */
	OPEN(&h, 200, 60, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnna");
	expect_panel(&h, "0 the   1 cat   2 sat   3 on    4 mats", true);
	harness_close(&h);
}

/* A repeated word is no column label ("the … the"; the rows read "0 the"
 * and "6 the"): its index goes with it where the cells have room for
 * every "i word", else the keys are indices, as when a word does not fit. */
static void test_repeated_key_words(void **state)
{
	(void)state;
	struct harness h;
	OPEN(&h, 200, 60, "qkv-walkthrough", "the quick brown fox jumps over the lazy dog", -1);
	harness_keys(&h, "nnnnnna");
	expect_panel(&h, "0 the     1 quick", true);
	expect_panel(&h, "5 over    6 the     7 lazy", true);
	harness_close(&h);
	/* one-letter words all fit, but "a" and "a" would head two columns */
	OPEN(&h, 80, 24, "qkv-walkthrough", "a b c a b c d e f g h", -1);
	harness_keys(&h, "nnnnnna");
	expect_panel(&h, "  0  1  2  3  4", true);
	expect_panel(&h, " a  b  c  a ", false);
	harness_close(&h);
}

/* QA on a phone (40x30), qkv-walkthrough's Q in the all-heads view: the
 * inspector's sum, its terms left out, was cut to "+ b_q[0] = ……". */
static void test_grid_inspector_one_ellipsis(void **state)
{
	(void)state;
	if (!utf8)
		skip();
	struct harness h;
	OPEN(&h, 40, 30, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nna");
	expect("Q[0,0] = ");
	expect_not("……");
	expect_not("=…");
	harness_close(&h);
}

/* At 40x30 the bars' title read "all heads: softmax weights of query…"
 * (which query went with the cut), the row under it "bar height = weight,
 * axis 0 to…" and the legend "bars: the query's softmax row in each h…"
 * (QA): the query and the axis are said whole in shorter forms, and the
 * legend is cut after a whole word. Wider, the long forms stay. */
static void test_narrow_bars_say_query_and_axis(void **state)
{
	(void)state;
	if (!utf8)
		skip();   /* the "…" */
	struct harness h;
	OPEN(&h, 40, 30, "", NULL, -1);
	harness_keys(&h, "nnnnnnaa");
	assert_true(h.a.heads_bars);
	expect("all heads: query 0 'china'");
	expect("bar height = weight, 0 to 1.00");
	expect_not("each h…");
	expect_not("query…");
	harness_close(&h);
	/* beside a page of keys, the axis in fewest words */
	OPEN(&h, 40, 18, "qkv-walkthrough", NULL, -1);
	harness_keys(&h, "nnnnnnaa");
	expect("keys 0-3 of 5");
	expect("  bars 0 to 0.");
	expect_not("weight…");
	harness_close(&h);
	OPEN(&h, 120, 30, "", NULL, -1);
	harness_keys(&h, "nnnnnnaa");
	expect("all heads: softmax weights of query 0 'china' over the keys");
	expect("bar height = weight, axis 0 to 1.00 (query 0 in every head)");
	harness_close(&h);
}

int main(void)
{
	utf8 = harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_tokens_page),
		cmocka_unit_test(test_rows_marked),
		cmocka_unit_test(test_numbers_and_z),
		cmocka_unit_test(test_title_matches_header),
		cmocka_unit_test(test_bars),
		cmocka_unit_test(test_bars_paged_name_the_largest),
		cmocka_unit_test(test_hints_whole_at_80),
		cmocka_unit_test(test_bars_keep_their_rows_at_60x16),
		cmocka_unit_test(test_bars_burst_shorter_sentence),
		cmocka_unit_test(test_bars_signed),
		cmocka_unit_test(test_bars_title_minus),
		cmocka_unit_test(test_grid_inspector),
		cmocka_unit_test(test_grid_inspector_wraps),
		cmocka_unit_test(test_grid_inspector_uses_the_free_rows),
		cmocka_unit_test(test_every_size),
		cmocka_unit_test(test_many_heads),
		cmocka_unit_test(test_clip_helpers),
		cmocka_unit_test(test_views_return_to_all_heads),
		cmocka_unit_test(test_pin_from_grid),
		cmocka_unit_test(test_grid_title_names_context_once),
		cmocka_unit_test(test_cut_key_labels_are_indices),
		cmocka_unit_test(test_key_labels_one_kind),
		cmocka_unit_test(test_repeated_key_words),
		cmocka_unit_test(test_grid_inspector_one_ellipsis),
		cmocka_unit_test(test_narrow_bars_say_query_and_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
