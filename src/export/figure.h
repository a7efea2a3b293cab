/* figure.h: what the text and SVG writers share (src/export only): a
 * matrix's range and colours, its cells and labels as text. */
#ifndef AV_EXPORT_FIGURE_H
#define AV_EXPORT_FIGURE_H

#include <stdbool.h>
#include <stddef.h>
#include "export/export.h"

static inline float av_fig_at(const struct av_fig_matrix *m, int r, int c)
{
	return m->data[(size_t)r * m->stride + c];
}

static inline bool av_fig_hidden(const struct av_fig_matrix *m, int r, int c)
{
	return m->hidden && m->hidden[(size_t)r * m->cols + c];
}

/* The largest |value| of the cells that are not hidden. */
double av_fig_range(const struct av_fig_matrix *m);

/* A cell's colour: weights along the sequential palette (0..1), signed
 * values along the diverging one (−range .. 0 .. +range). */
struct av_rgb av_fig_colour(const struct av_figure *f, const struct av_fig_matrix *m,
			    double v, double range);

/* The grey of hidden cells. */
extern const struct av_rgb av_fig_hidden_grey;

/* Decimals that show values up to range: 3 below 10, then 2, 1, 0. */
int av_fig_decimals(double range);

/* A cell's text as the screen shows it: the value with decimals (exponent
 * form from 1e6), '.' always, no sign on a value that rounds to zero; a
 * hidden cell "╳ -inf" (hidden_as_inf) or "╳ 0" ("x" for ╳ unless utf8). */
void av_fig_cell_text(const struct av_fig_matrix *m, int r, int c, int decimals, bool utf8,
		      char *buf, size_t size);

/* Label i of the rows ("0 china") or of the columns ("china", or "3" for a
 * dimension). */
void av_fig_row_label(const struct av_fig_matrix *m, int i, char *buf, size_t size);
void av_fig_col_label(const struct av_fig_matrix *m, int i, char *buf, size_t size);

/* Copies s into buf cut to at most width terminal columns (whole
 * characters); returns the columns used. */
int av_fig_fit(const char *s, int width, char *buf, size_t size);

#endif
