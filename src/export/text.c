/* text.c: a figure as text, plain or with ANSI colours (see export.h): the
 * titles, then each matrix as the stepper draws it, labels left and above,
 * numbers right-aligned in columns wide enough for every value. */
#include "config.h"

#include <string.h>

#include "export/figure.h"
#include "export/strbuf.h"
#include "utf8.h"

#define LABEL_MAX 14   /* columns of a row label at most */
#define HEAD_MAX 10    /* columns of a column label at most */

static void pad(struct av_strbuf *b, int n)
{
	for (int i = 0; i < n; i++)
		av_sb_add(b, " ");
}

/* s cut to width columns, then padded (left or right) to exactly width. */
static void put(struct av_strbuf *b, const char *s, int width, bool right)
{
	char cut[256];
	int used = av_fig_fit(s, width, cut, sizeof(cut));
	if (right)
		pad(b, width - used);
	av_sb_add(b, cut);
	if (!right)
		pad(b, width - used);
}

struct layout {
	int label_w, cell_w, decimals;
	double range;
};

static struct layout measure(const struct av_fig_matrix *m)
{
	struct layout l = { 1, 1, 0, av_fig_range(m) };
	l.decimals = av_fig_decimals(l.range);
	char buf[256];
	for (int r = 0; r < m->rows; r++) {
		av_fig_row_label(m, r, buf, sizeof(buf));
		int w = av_utf8_width(buf);
		l.label_w = w > l.label_w ? (w < LABEL_MAX ? w : LABEL_MAX) : l.label_w;
		for (int c = 0; c < m->cols; c++) {
			av_fig_cell_text(m, r, c, l.decimals, true, buf, sizeof(buf));
			w = av_utf8_width(buf);
			l.cell_w = w > l.cell_w ? w : l.cell_w;
		}
	}
	for (int c = 0; c < m->cols; c++) {
		av_fig_col_label(m, c, buf, sizeof(buf));
		int w = av_utf8_width(buf);
		w = w < HEAD_MAX ? w : HEAD_MAX;
		l.cell_w = w > l.cell_w ? w : l.cell_w;
	}
	return l;
}

static void cell(struct av_strbuf *b, const struct av_figure *f, const struct av_fig_matrix *m,
		 const struct layout *l, int r, int c, bool ansi)
{
	char text[64];
	av_fig_cell_text(m, r, c, l->decimals, true, text, sizeof(text));
	if (!ansi) {
		pad(b, 1);
		put(b, text, l->cell_w, true);
		return;
	}
	bool hidden = av_fig_hidden(m, r, c);
	struct av_rgb bg = hidden ? av_fig_hidden_grey
				  : av_fig_colour(f, m, av_fig_at(m, r, c), l->range);
	av_sb_printf(b, "\033[48;5;%dm\033[38;5;%dm ", av_rgb_to_256(bg),
		     av_rgb_is_light(bg) ? 16 : 255);
	put(b, text, l->cell_w, true);
	av_sb_add(b, "\033[0m");
}

static void matrix(struct av_strbuf *b, const struct av_figure *f, const struct av_fig_matrix *m,
		   bool ansi)
{
	struct layout l = measure(m);
	av_sb_printf(b, "%s  (%d × %d)\n", m->name, m->rows, m->cols);
	pad(b, l.label_w);
	char buf[256];
	for (int c = 0; c < m->cols; c++) {
		av_fig_col_label(m, c, buf, sizeof(buf));
		pad(b, 1);
		put(b, buf, l.cell_w, true);
	}
	av_sb_add(b, "\n");
	for (int r = 0; r < m->rows; r++) {
		av_fig_row_label(m, r, buf, sizeof(buf));
		put(b, buf, l.label_w, false);
		for (int c = 0; c < m->cols; c++)
			cell(b, f, m, &l, r, c, ansi);
		av_sb_add(b, "\n");
	}
}

char *av_figure_text(const struct av_figure *f, bool ansi)
{
	struct av_strbuf b = { 0 };
	bool any_hidden = false;
	av_sb_printf(&b, "%s\n", f->title);
	if (f->subtitle)
		av_sb_printf(&b, "%s\n", f->subtitle);
	if (f->settings)
		av_sb_printf(&b, "%s\n", f->settings);
	for (int i = 0; i < f->n; i++) {
		av_sb_add(&b, "\n");
		matrix(&b, f, &f->m[i], ansi);
		any_hidden |= f->m[i].hidden != NULL && !f->m[i].hidden_as_inf;
	}
	if (any_hidden)
		av_sb_add(&b, "\n╳ = a hidden key (masked)\n");
	return av_sb_take(&b);
}
