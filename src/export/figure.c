/* figure.c: the helpers the text and SVG writers share (see figure.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export/figure.h"
#include "number.h"
#include "utf8.h"

const struct av_rgb av_fig_hidden_grey = { 88, 88, 88 };

double av_fig_range(const struct av_fig_matrix *m)
{
	double range = 0;
	for (int r = 0; r < m->rows; r++)
		for (int c = 0; c < m->cols; c++)
			if (!av_fig_hidden(m, r, c) && isfinite(av_fig_at(m, r, c)))
				range = fmax(range, fabs(av_fig_at(m, r, c)));
	return range;
}

struct av_rgb av_fig_colour(const struct av_figure *f, const struct av_fig_matrix *m,
			    double v, double range)
{
	const struct av_theme *t = f->theme;
	if (m->weights)
		return av_palette_at(t->sequential, t->n_sequential, v);
	double pos = range > 0 ? 0.5 + 0.5 * v / range : 0.5;
	return av_palette_at(t->diverging, t->n_diverging, pos);
}

int av_fig_decimals(double range)
{
	return range < 10 ? 3 : range < 100 ? 2 : range < 1000 ? 1 : 0;
}

/* A hidden cell as the stepper draws it: the glyph, then the masked stage's
 * infinity or the weight 0 the cell gets ("╳ -inf", "╳ 0"; '-' as the
 * numbers of a file have it). */
static void hidden_text(const struct av_fig_matrix *m, float v, bool utf8, char *buf,
			size_t size)
{
	const char *what = !m->hidden_as_inf ? "0" : v > 0 ? "+inf" : "-inf";
	snprintf(buf, size, "%s %s", utf8 ? "╳" : "x", what);
}

void av_fig_cell_text(const struct av_fig_matrix *m, int r, int c, int decimals, bool utf8,
		      char *buf, size_t size)
{
	double v = av_fig_at(m, r, c);
	if (av_fig_hidden(m, r, c)) {
		hidden_text(m, (float)v, utf8, buf, size);
		return;
	}
	if (fabs(v) >= 1e6 || !isfinite(v))
		av_number_format(buf, size, v, 3);
	else
		av_number_fixed(buf, size, v, decimals);
	/* as the screen shows it: a value that rounds to zero has no sign */
	av_number_unsigned_zero(buf);
}

void av_fig_row_label(const struct av_fig_matrix *m, int i, char *buf, size_t size)
{
	if (m->row_labels)
		snprintf(buf, size, "%d %s", i, m->row_labels[i]);
	else
		snprintf(buf, size, "%d", i);
}

void av_fig_col_label(const struct av_fig_matrix *m, int i, char *buf, size_t size)
{
	if (m->col_labels)
		snprintf(buf, size, "%s", m->col_labels[i]);
	else
		snprintf(buf, size, "%d", i);
}

int av_fig_fit(const char *s, int width, char *buf, size_t size)
{
	size_t len = 0, total = strlen(s);
	int used = 0;
	while (len < total) {
		uint32_t cp;
		int k = av_utf8_decode(s + len, total - len, &cp);
		if (k < 0)
			break;
		int w = av_cp_width(cp);
		if (used + w > width || len + (size_t)k >= size)
			break;
		len += (size_t)k;
		used += w;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	return used;
}
