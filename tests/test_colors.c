/* test_colors.c: the colours on a virtual terminal (ncurses on /dev/null,
 * read back from curscr): the qkv-walkthrough sample's 8 heads in the
 * all-heads softmax view are told apart by colour on 256 colours; the
 * legend's swatches are the colours of the cells; on 8 colours a hidden
 * cell does not look like a weight of 0, and no text is drawn in the
 * colour of its own background. */
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
#include <wchar.h>
#include <cmocka.h>

#include "ui_harness.h"

/* What curscr holds at (y, x): the character, its colours and attributes. */
struct cell {
	wchar_t ch;
	int fg, bg;
	attr_t attrs;
};

static struct cell cell_at(int y, int x)
{
	struct cell c = { L' ', -1, -1, 0 };
	cchar_t cc;
	wchar_t wch[CCHARW_MAX + 1];
	short pair_short;
	int pair = 0;
	if (mvwin_wch(curscr, y, x, &cc) == ERR
	    || getcchar(&cc, wch, &c.attrs, &pair_short, &pair) == ERR)
		return c;
	c.ch = wch[0];
	extended_pair_content(pair, &c.fg, &c.bg);
	c.attrs &= ~(attr_t)A_COLOR;
	return c;
}

/* The column where text starts on row y (text in ASCII), or -1. */
static int column_of(int y, const char *text)
{
	size_t n = strlen(text);
	for (int x = 0; x + (int)n <= COLS; x++) {
		size_t k = 0;
		while (k < n && cell_at(y, x + (int)k).ch == (wchar_t)(unsigned char)text[k])
			k++;
		if (k == n)
			return x;
	}
	return -1;
}

/* The review's complaint: on 256 colours the 8 heads of qkv-walkthrough
 * looked identical in the all-heads view (every weight there lies between
 * 0.1 and 0.3, and nearly all of it was colour 60). Now any two cells of
 * the grid whose weights are 0.1 or more apart (two levels) have different
 * colours. The grid shows numbers at 120x40: each cell is a run of columns
 * in one background colour holding a weight (".36"), whatever the tiles'
 * arrangement. */
static void test_heads_weights_apart_differ_on_256(void **state)
{
	(void)state;
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", 120, 40, "qkv-walkthrough", NULL, -1,
				 NULL));
	harness_keys(&h, "nnnnnna");
	assert_true(harness_find("softmax") >= 0);
	assert_int_equal(h.s.trace.heads, 8);
	enum { MAX = 4096 };
	double weight[MAX];
	int colour[MAX], n = 0;
	for (int y = 0; y < LINES; y++) {
		for (int x = 0; x < COLS;) {
			struct cell c = cell_at(y, x);
			if (c.bg < 0) {
				x++;
				continue;
			}
			char text[32];
			size_t k = 0;
			for (; x < COLS && cell_at(y, x).bg == c.bg; x++)
				if (cell_at(y, x).ch != L' ' && k + 1 < sizeof(text))
					text[k++] = (char)cell_at(y, x).ch;
			text[k] = '\0';
			char *end;
			double v = strtod(text, &end);
			if (k == 0 || *end || text[0] == '-' || strchr(text, '.') == NULL)
				continue;
			if (n == MAX)
				fail_msg("more than %d cells", MAX);
			weight[n] = v;
			colour[n++] = c.bg;
		}
	}
	/* 8 heads of 5 x 5 weights, all with numbers */
	assert_true(n >= 8 * 25);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < i; k++)
			if (fabs(weight[i] - weight[k]) >= 0.1 + 0.01 && colour[i] == colour[k])
				fail_msg("weights %.3f and %.3f are both colour %d", weight[k],
					 weight[i], colour[i]);
	harness_close(&h);
}

/* The legend under the heatmap is the cells' scale: a cell showing weight
 * w has the colour of the legend swatch at w's level (levels are 0.05
 * apart on 256 colours; values within 0.001 of a boundary are skipped, as
 * the 3 shown decimals cannot place them). */
static void test_legend_matches_cells(void **state)
{
	(void)state;
	struct harness h;
	assert_true(harness_open(&h, "xterm-256color", 120, 40, "qkv-walkthrough", NULL, -1,
				 NULL));
	harness_keys(&h, "nnnnnn");
	assert_true(harness_find("softmax") >= 0);
	int ly = harness_find("weight 0 ");
	assert_true(ly >= 0);
	int lx = column_of(ly, "weight 0 ") + 9;
	int cell = 1;   /* swatches are 1 or 2 columns wide */
	if (cell_at(ly, lx + 1).bg == cell_at(ly, lx).bg)
		cell = 2;
	/* the cursor's cell is drawn in its own colour */
	int cursor_fg, cursor_bg;
	extended_pair_content(PAIR_NUMBER(av_colors_el(&h.a.colors, AV_EL_CURSOR)), &cursor_fg,
			      &cursor_bg);
	int checked = 0;
	for (int y = 0; y < ly; y++) {
		for (int x = 0; x < COLS; x++) {
			/* a number in a heat cell: digits on a coloured background */
			struct cell c = cell_at(y, x);
			if (c.ch != L'0' || c.bg < 0 || cell_at(y, x + 1).ch != L'.')
				continue;
			if (c.bg == cursor_bg || y == 0 || y == LINES - 1)
				continue;   /* the cursor, the header and status bars */
			char num[16];
			int k = 0;
			while (k < 15 && (cell_at(y, x + k).ch == L'.'
					  || (cell_at(y, x + k).ch >= L'0' && cell_at(y, x + k).ch <= L'9'))) {
				num[k] = (char)cell_at(y, x + k).ch;
				k++;
			}
			num[k] = '\0';
			double w = atof(num), at = w * (AV_HEAT_LEVELS - 1);
			if (fabs(at - floor(at) - 0.5) < 0.001 * (AV_HEAT_LEVELS - 1))
				continue;
			int level = av_heat_level(w);
			struct cell swatch = cell_at(ly, lx + level * cell);
			if (swatch.bg != c.bg)
				fail_msg("weight %s at row %d is colour %d, its legend swatch %d", num,
					 y, c.bg, swatch.bg);
			checked++;
			x += k;
		}
	}
	assert_true(checked >= 20);
	harness_close(&h);
}

/* On 8 colours the dark theme's hidden cells (grey on near black) and a
 * weight of 0 (viridis' dark purple) both became white on black: only the
 * ╳ told them apart. Their colours must differ. */
static void test_masked_unlike_zero_on_8(void **state)
{
	(void)state;
	struct harness h;
	assert_true(harness_open(&h, "xterm", 80, 24, "", NULL, AV_MODE_CAUSAL, NULL));
	assert_true(h.a.colors.color);
	attr_t masked = av_colors_el(&h.a.colors, AV_EL_MASKED);
	attr_t zero = av_colors_heat(&h.a.colors, false, 0.0);
	int mfg, mbg, zfg, zbg;
	extended_pair_content(PAIR_NUMBER(masked), &mfg, &mbg);
	extended_pair_content(PAIR_NUMBER(zero), &zfg, &zbg);
	if (mfg == zfg && mbg == zbg)
		fail_msg("hidden and zero are both colours %d on %d", mfg, mbg);
	harness_close(&h);
}

/* On 8 colours every element's text stays readable: the light theme's
 * grey "dim" text (#6c6c6c) and its white background both became white,
 * so the row sums were white on white. */
static void test_elements_readable_on_8(void **state)
{
	(void)state;
	const char *themes[] = { "dark", "light" };
	for (int k = 0; k < 2; k++) {
		struct harness h;
		assert_true(harness_open(&h, "xterm", 80, 24, "", NULL, -1, themes[k]));
		for (int el = 0; el < AV_EL_COUNT; el++) {
			attr_t a = av_colors_el(&h.a.colors, (enum av_element)el);
			int fg, bg;
			extended_pair_content(PAIR_NUMBER(a), &fg, &bg);
			if (fg >= 0 && fg == bg)
				fail_msg("%s: \"%s\" is colour %d on itself", themes[k],
					 av_element_keys[el], fg);
		}
		harness_close(&h);
	}
}

/* Which terminal description to open for 24-bit colour, and the depth
 * curses' COLORS gives. */
static void test_direct_term(void **state)
{
	(void)state;
	assert_string_equal(av_colors_direct_term("xterm-256color", "truecolor"), "xterm-direct");
	assert_string_equal(av_colors_direct_term("xterm-256color", "24bit"), "xterm-direct");
	assert_string_equal(av_colors_direct_term("tmux-256color", "truecolor"), "tmux-direct");
	assert_null(av_colors_direct_term("xterm-256color", NULL));
	assert_null(av_colors_direct_term("xterm-256color", "yes"));
	assert_null(av_colors_direct_term("xterm", "truecolor"));   /* 8 colours on purpose */
	assert_null(av_colors_direct_term("xterm-direct", "truecolor"));
	assert_null(av_colors_direct_term("vt100", "truecolor"));
	assert_null(av_colors_direct_term(NULL, "truecolor"));
	assert_int_equal(av_colors_depth(1 << 24), AV_DEPTH_DIRECT);
	assert_int_equal(av_colors_depth(256), 256);
	assert_int_equal(av_colors_depth(8), 8);
}

int main(void)
{
	harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heads_weights_apart_differ_on_256),
		cmocka_unit_test(test_legend_matches_cells),
		cmocka_unit_test(test_masked_unlike_zero_on_8),
		cmocka_unit_test(test_elements_readable_on_8),
		cmocka_unit_test(test_direct_term),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
