/* csv.c: a figure as CSV (RFC 4180; see export.h). A spreadsheet or
 * pandas.read_csv reads each block back as a labelled matrix. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "export/export.h"
#include "export/strbuf.h"
#include "number.h"

/* Whether a spreadsheet would read text starting so as a formula (OWASP's
 * list for CSV injection): a sentence "=HYPERLINK(...)" typed by whoever
 * leads the class must open as the words it is. */
static bool reads_as_formula(const char *s)
{
	return s[0] != '\0' && strchr("=+-@\t\r", s[0]);
}

/* A text field, quoted when it holds a comma, a quote or a line break
 * (quotes doubled inside); one a spreadsheet would take for a formula is
 * quoted with a ' first, which spreadsheets show as text (the numbers are
 * not fields: -0.5 stays a number). */
static void field(struct av_strbuf *b, const char *s)
{
	bool formula = reads_as_formula(s);
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		av_sb_add(b, s);
		return;
	}
	av_sb_add(b, formula ? "\"'" : "\"");
	for (const char *p = s; *p; p++) {
		av_sb_addn(b, p, 1);
		if (*p == '"')
			av_sb_add(b, "\"");
	}
	av_sb_add(b, "\"");
}

static void label(struct av_strbuf *b, char *const *labels, int i)
{
	if (labels) {
		field(b, labels[i]);
	} else {
		char idx[16];
		snprintf(idx, sizeof(idx), "%d", i);
		av_sb_add(b, idx);
	}
}

static void matrix(struct av_strbuf *b, const struct av_fig_matrix *m)
{
	field(b, m->name);
	for (int c = 0; c < m->cols; c++) {
		av_sb_add(b, ",");
		label(b, m->col_labels, c);
	}
	av_sb_add(b, "\r\n");
	for (int r = 0; r < m->rows; r++) {
		label(b, m->row_labels, r);
		for (int c = 0; c < m->cols; c++) {
			double v = m->data[(size_t)r * m->stride + c];
			if (m->hidden && m->hidden[(size_t)r * m->cols + c] && m->hidden_as_inf)
				v = -INFINITY;
			char num[40];
			av_number_format(num, sizeof(num), v, 9);
			av_sb_add(b, ",");
			av_sb_add(b, num);
		}
		av_sb_add(b, "\r\n");
	}
}

char *av_figure_csv(const struct av_figure *f)
{
	struct av_strbuf b = { 0 };
	for (int i = 0; i < f->n; i++) {
		if (i > 0)
			av_sb_add(&b, "\r\n");
		matrix(&b, &f->m[i]);
	}
	return av_sb_take(&b);
}
