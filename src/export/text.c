/* text.c: a figure as text, plain or with ANSI colours (see export.h): the
 * titles, then each matrix as the stepper draws it, labels left and above,
 * numbers right-aligned in columns wide enough for every value. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "export/figure.h"
#include "export/strbuf.h"
#include "i18n.h"
#include "utf8.h"
#include "util.h"

#define LABEL_MAX 14   /* columns of a row label at most */
#define HEAD_MAX 10    /* columns of a column label at most */

static void pad(struct av_strbuf *b, int n)
{
	for (int i = 0; i < n; i++)
		av_sb_add(b, " ");
}

/* s as the file shows it, with control and invisible format characters
 * escaped as --print escapes them (\u202e): written as they were, a bidi
 * override in a token reordered the rest of its line when the file was
 * cat to a terminal. Cut after whole characters and escapes to width
 * columns (and size bytes); returns the columns used. */
static int fit(const char *s, int width, char *buf, size_t size)
{
	size_t len = strlen(s), pos = 0, out = 0;
	int used = 0;
	while (pos < len) {
		char shown[12];
		size_t k = av_escape_controls_next(s + pos, len - pos, shown);
		size_t n = strlen(shown);
		int w = av_utf8_width(shown);
		if (used + w > width || out + n >= size)
			break;
		memcpy(buf + out, shown, n);
		out += n;
		used += w;
		pos += k;
	}
	buf[out] = '\0';
	return used;
}

/* The columns s takes in the file, escapes included. */
static int width_of(const char *s)
{
	char shown[256];
	return fit(s, INT_MAX, shown, sizeof(shown));
}

/* A line of text from the figure (a title, the settings), escaped. */
static void line(struct av_strbuf *b, const char *s)
{
	char *shown = av_escape_controls(s);
	av_sb_printf(b, "%s\n", shown);
	free(shown);
}

/* s cut to width columns, then padded (left or right) to exactly width. */
static void put(struct av_strbuf *b, const char *s, int width, bool right)
{
	char cut[256];
	int used = fit(s, width, cut, sizeof(cut));
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
		int w = width_of(buf);
		l.label_w = w > l.label_w ? (w < LABEL_MAX ? w : LABEL_MAX) : l.label_w;
		for (int c = 0; c < m->cols; c++) {
			av_fig_cell_text(m, r, c, l.decimals, true, buf, sizeof(buf));
			w = av_utf8_width(buf);
			l.cell_w = w > l.cell_w ? w : l.cell_w;
		}
	}
	for (int c = 0; c < m->cols; c++) {
		av_fig_col_label(m, c, buf, sizeof(buf));
		int w = width_of(buf);
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
	char *title = av_printf("%s  (%d × %d)", m->name, m->rows, m->cols);
	line(b, title);
	free(title);
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
	line(&b, f->title);
	if (f->subtitle)
		line(&b, f->subtitle);
	if (f->settings)
		line(&b, f->settings);
	for (int i = 0; i < f->n; i++) {
		av_sb_add(&b, "\n");
		matrix(&b, f, &f->m[i], ansi);
		any_hidden |= f->m[i].hidden != NULL && !f->m[i].hidden_as_inf;
	}
	if (any_hidden)
		av_sb_printf(&b, "\n%s\n", _("╳ = a hidden key (masked)"));
	return av_sb_take(&b);
}
