/* chart.h: small charts for a terminal, as pure arithmetic (no curses, so
 * the tests can check every dot): a line plot on a braille canvas (the
 * training view's loss curve), a one-row sparkline of block characters
 * (the tracked pair's score), and vertical bars with eighth-block tops (the
 * histogram of scores). Each has an ASCII stand-in for locales without
 * UTF-8.
 *
 * Braille cells (U+2800..U+28FF) hold 2 x 4 dots; dot (dx, dy), dy counted
 * from the top, is bit
 *
 *     dx=0  dx=1
 *     0x01  0x08    dy=0
 *     0x02  0x10    dy=1
 *     0x04  0x20    dy=2
 *     0x40  0x80    dy=3
 *
 * so a canvas of cols x rows cells is a grid of 2 cols x 4 rows dots. */
#ifndef AV_UI_CHART_H
#define AV_UI_CHART_H

#include <stdbool.h>
#include <stddef.h>

#define AV_BRAILLE_BLANK 0x2800

/* The bit of dot (dx, dy) in a braille cell; 0 outside 0..1 x 0..3. */
unsigned av_braille_bit(int dx, int dy);

/* The smallest and largest finite values of v[0..n); false (and 0, 0) when
 * there are none. NaN entries (epochs before a pair was tracked) are
 * skipped. */
bool av_chart_range(const double *v, int n, double *lo, double *hi);

/* v's level among levels steps of [lo, hi]: 0 for lo, levels - 1 for hi,
 * rounded to the nearest; the middle level when hi <= lo; clamped; -1 for
 * NaN. */
int av_chart_level(double v, double lo, double hi, int levels);

/* How n values share out over slots columns: while they fit, value i has
 * column i and the rest are empty (the chart grows from the left as values
 * arrive); past that, column c covers values [*first, *last] (every value
 * in exactly one column, in order). False for an empty column. */
bool av_chart_bucket(int n, int slots, int c, int *first, int *last);

/* The column holding value i of n over slots columns (av_chart_bucket's);
 * for i >= n, the column value n would take (the chart's next), within
 * 0..slots-1. */
int av_chart_column(int n, int slots, int i);

/* A canvas of braille dots. */
struct av_canvas {
	int cols, rows;            /* cells */
	unsigned char *bits;       /* cols * rows, row-major */
};

void av_canvas_init(struct av_canvas *c, int cols, int rows);
void av_canvas_free(struct av_canvas *c);
void av_canvas_clear(struct av_canvas *c);
/* Sets dot (x, y), 0 <= x < 2 cols, 0 <= y < 4 rows (top down); outside
 * is ignored. */
void av_canvas_set(struct av_canvas *c, int x, int y);
bool av_canvas_get(const struct av_canvas *c, int x, int y);

/* Plots v[0..n) over [lo, hi] (hi at the top dot row, lo at the bottom):
 * one dot column per value from the left while they fit, else each dot
 * column the lowest to the highest value of its bucket (av_chart_bucket), and
 * neighbouring columns joined by a vertical run so the line has no gaps.
 * NaN values are left out. */
void av_canvas_plot(struct av_canvas *c, const double *v, int n, double lo, double hi);

/* av_canvas_plot with the line broken before each value breaks[k] (0 <
 * breaks[k] < n, in any order; others are ignored): the column holding it
 * starts a new line, not joined to the column before, and plots only the
 * values from it on (from the last break it holds). The training view's
 * loss curve breaks where the target changed: the losses before and after
 * measure different things. */
void av_canvas_plot_breaks(struct av_canvas *c, const double *v, int n, double lo, double hi,
			   const int *breaks, int n_breaks);

/* The text of cell (col, row), NUL-terminated in out (at least 4 bytes):
 * the braille character in UTF-8, or an ASCII stand-in: ' ' empty, '.' dots
 * in the lower half only, '\'' upper half only, '|' a run over three or more
 * dot rows, '-' otherwise. */
void av_canvas_cell(const struct av_canvas *c, int col, int row, bool utf8, char *out);

/* A sparkline: levels[col] in 0..7 (or -1 for no value) for width columns
 * over v[0..n), each column the mean of its bucket's finite values, scaled
 * over [lo, hi]. */
void av_sparkline(const double *v, int n, int width, double lo, double hi, int *levels);

/* The glyph of a sparkline level: "▁".."█", or ASCII "_.-:=+*#"; " " for
 * -1. */
const char *av_spark_glyph(int level, bool utf8);

/* A bar's height in eighths of a row, for count out of max over rows rows:
 * rounded, and at least 1 for a non-zero count so a bin with values never
 * looks empty. */
int av_bar_eighths(int count, int max, int rows);

/* The glyph of a bar of height eighths in the row that is row_from_bottom
 * rows above the bottom (0 = the bottom row): full block "█", a partial
 * block "▁".."▇" for the top, " " above. ASCII: "#" for a full row or a top
 * of 4/8 or more, "." for a lower top. */
const char *av_bar_glyph(int eighths, int row_from_bottom, bool utf8);

/* A number in at most width characters for an axis label: %.*g with as
 * many digits as fit ("0.0312", "-2.5", "1e+03"). */
void av_chart_number(char *buf, size_t size, double v, int width);

#endif
