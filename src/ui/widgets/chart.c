/* chart.c: braille line plots, sparklines and bars (see chart.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/widgets/chart.h"
#include "utf8.h"
#include "util.h"

unsigned av_braille_bit(int dx, int dy)
{
	static const unsigned char bits[2][4] = {
		{ 0x01, 0x02, 0x04, 0x40 },
		{ 0x08, 0x10, 0x20, 0x80 },
	};
	if (dx < 0 || dx > 1 || dy < 0 || dy > 3)
		return 0;
	return bits[dx][dy];
}

bool av_chart_range(const double *v, int n, double *lo, double *hi)
{
	double mn = INFINITY, mx = -INFINITY;
	for (int i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (v[i] < mn)
			mn = v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	if (mn > mx) {
		*lo = *hi = 0;
		return false;
	}
	*lo = mn;
	*hi = mx;
	return true;
}

int av_chart_level(double v, double lo, double hi, int levels)
{
	if (isnan(v) || levels <= 0)
		return -1;
	if (!(hi > lo))
		return (levels - 1) / 2;
	double pos = (v - lo) / (hi - lo) * (levels - 1);
	if (!(pos > 0))
		return 0;
	if (pos > levels - 1)
		return levels - 1;
	return (int)lround(pos);
}

bool av_chart_bucket(int n, int slots, int c, int *first, int *last)
{
	if (c < 0 || c >= slots || n <= 0)
		return false;
	if (n <= slots) {
		if (c >= n)
			return false;
		*first = *last = c;
		return true;
	}
	*first = (int)((long long)c * n / slots);
	*last = (int)((long long)(c + 1) * n / slots) - 1;
	return true;
}

int av_chart_column(int n, int slots, int i)
{
	if (slots <= 0 || n <= 0 || i <= 0)
		return 0;
	int c = n <= slots ? i : (int)(((long long)(i + 1) * slots - 1) / n);
	return c < slots ? c : slots - 1;
}

/* --- the braille canvas -------------------------------------------------- */

void av_canvas_init(struct av_canvas *c, int cols, int rows)
{
	c->cols = cols > 0 ? cols : 0;
	c->rows = rows > 0 ? rows : 0;
	size_t size = (size_t)c->cols * c->rows;
	c->bits = av_calloc(size ? size : 1, 1);
}

void av_canvas_free(struct av_canvas *c)
{
	free(c->bits);
	memset(c, 0, sizeof(*c));
}

void av_canvas_clear(struct av_canvas *c)
{
	memset(c->bits, 0, (size_t)c->cols * c->rows);
}

void av_canvas_set(struct av_canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
		return;
	c->bits[(size_t)(y / 4) * c->cols + x / 2] |= (unsigned char)av_braille_bit(x % 2, y % 4);
}

bool av_canvas_get(const struct av_canvas *c, int x, int y)
{
	if (x < 0 || y < 0 || x >= 2 * c->cols || y >= 4 * c->rows)
		return false;
	return (c->bits[(size_t)(y / 4) * c->cols + x / 2] & av_braille_bit(x % 2, y % 4)) != 0;
}

void av_canvas_plot(struct av_canvas *c, const double *v, int n, double lo, double hi)
{
	av_canvas_plot_breaks(c, v, n, lo, hi, NULL, 0);
}

void av_canvas_plot_breaks(struct av_canvas *c, const double *v, int n, double lo, double hi,
			   const int *breaks, int n_breaks)
{
	int W = 2 * c->cols, H = 4 * c->rows;
	bool have_prev = false;
	int prev_top = 0, prev_bottom = 0;
	for (int x = 0; x < W; x++) {
		int first, last;
		if (!av_chart_bucket(n, W, x, &first, &last))
			break;
		/* a new line from the last break in this column */
		int start = first;
		for (int k = 0; k < n_breaks; k++)
			if (breaks[k] > 0 && breaks[k] >= first && breaks[k] <= last) {
				start = breaks[k] > start ? breaks[k] : start;
				have_prev = false;
			}
		first = start;
		/* the bucket's lowest and highest dots (y grows downwards) */
		int top = H, bottom = -1;
		for (int i = first; i <= last; i++) {
			int level = av_chart_level(v[i], lo, hi, H);
			if (level < 0)
				continue;
			int y = H - 1 - level;
			if (y < top)
				top = y;
			if (y > bottom)
				bottom = y;
		}
		if (bottom < 0) {
			have_prev = false;   /* a gap: no value in this column */
			continue;
		}
		/* join with the previous column: run up or down to meet it */
		int from = top, to = bottom;
		if (have_prev) {
			if (top > prev_bottom + 1)
				from = prev_bottom + 1;
			if (bottom < prev_top - 1)
				to = prev_top - 1;
		}
		for (int y = from; y <= to; y++)
			av_canvas_set(c, x, y);
		have_prev = true;
		prev_top = top;
		prev_bottom = bottom;
	}
}

void av_canvas_cell(const struct av_canvas *c, int col, int row, bool utf8, char *out)
{
	unsigned bits = 0;
	if (col >= 0 && row >= 0 && col < c->cols && row < c->rows)
		bits = c->bits[(size_t)row * c->cols + col];
	if (utf8) {
		int k = av_utf8_encode(AV_BRAILLE_BLANK + bits, out);
		out[k] = '\0';
		return;
	}
	int first = -1, last = -1;
	for (int dy = 0; dy < 4; dy++) {
		if (bits & (av_braille_bit(0, dy) | av_braille_bit(1, dy))) {
			if (first < 0)
				first = dy;
			last = dy;
		}
	}
	char ch = ' ';
	if (first >= 0) {
		if (last - first >= 2)
			ch = '|';
		else if (first >= 2)
			ch = '.';
		else if (last <= 1)
			ch = '\'';
		else
			ch = '-';
	}
	out[0] = ch;
	out[1] = '\0';
}

/* --- sparklines and bars ------------------------------------------------- */

void av_sparkline(const double *v, int n, int width, double lo, double hi, int *levels)
{
	for (int col = 0; col < width; col++) {
		levels[col] = -1;
		int first, last;
		if (!av_chart_bucket(n, width, col, &first, &last))
			continue;
		double sum = 0;
		int count = 0;
		for (int i = first; i <= last; i++) {
			if (isfinite(v[i])) {
				sum += v[i];
				count++;
			}
		}
		if (count)
			levels[col] = av_chart_level(sum / count, lo, hi, 8);
	}
}

const char *av_spark_glyph(int level, bool utf8)
{
	static const char *const blocks[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const ascii[8] = { "_", ".", "-", ":", "=", "+", "*", "#" };
	if (level < 0 || level > 7)
		return " ";
	return utf8 ? blocks[level] : ascii[level];
}

int av_bar_eighths(int count, int max, int rows)
{
	if (count <= 0 || max <= 0 || rows <= 0)
		return 0;
	int e = (int)lround((double)count / max * rows * 8);
	if (e < 1)
		e = 1;
	if (e > rows * 8)
		e = rows * 8;
	return e;
}

const char *av_bar_glyph(int eighths, int row_from_bottom, bool utf8)
{
	static const char *const part[7] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇" };
	int e = eighths - row_from_bottom * 8;
	if (e <= 0)
		return " ";
	if (e >= 8)
		return utf8 ? "█" : "#";
	if (utf8)
		return part[e - 1];
	return e >= 4 ? "#" : ".";
}

void av_chart_number(char *buf, size_t size, double v, int width)
{
	if (v == 0 || fabs(v) < 1e-300) {
		snprintf(buf, size, "0");
		return;
	}
	for (int digits = 4; digits >= 1; digits--) {
		snprintf(buf, size, "%.*g", digits, v);
		if ((int)strlen(buf) <= width)
			return;
	}
	snprintf(buf, size, "%.0e", v);
	if ((int)strlen(buf) > width && width > 0 && (size_t)width < size) {
		memset(buf, '#', (size_t)width);
		buf[width] = '\0';
	}
}
