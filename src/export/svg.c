/* svg.c: a figure as an SVG picture for a slide (see export.h): on a white
 * page the title, the formula and the settings, then each matrix as a
 * heatmap with its name, the column labels turned 45 degrees above it, the
 * row labels to its left, the numbers in the cells (matrices up to
 * NUMBERS_MAX columns) and a colour bar under it. Sizes are estimated
 * from terminal columns (a CJK character is two) at FONT_W pixels each.
 * Every piece of text is XML-escaped; coordinates are whole pixels, so no
 * locale can put a comma in them. The words (the legend's) are in the
 * messages' language, as the titles the caller gives. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/figure.h"
#include "export/strbuf.h"
#include "i18n.h"
#include "utf8.h"
#include "util.h"

#define MARGIN 24
#define FONT_W 8            /* pixels a terminal column of 13px text takes */
#define NUMBERS_MAX 24      /* wider matrices are drawn as colour only */
#define SMALL_CELL 14
#define CELL_H 28
#define BAR_W 240
#define BAR_H 14
#define LABEL_COLS 16       /* a label is cut to this many columns */

char *av_xml_escape(const char *s)
{
	struct av_strbuf b = { 0 };
	size_t len = strlen(s);
	for (size_t off = 0; off < len;) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k < 0) {
			av_sb_add(&b, "\xEF\xBF\xBD");   /* U+FFFD */
			off++;
			continue;
		}
		switch (cp) {
		case '&': av_sb_add(&b, "&amp;"); break;
		case '<': av_sb_add(&b, "&lt;"); break;
		case '>': av_sb_add(&b, "&gt;"); break;
		case '"': av_sb_add(&b, "&quot;"); break;
		case '\'': av_sb_add(&b, "&apos;"); break;
		default:
			if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff)
				av_sb_add(&b, "\xEF\xBF\xBD");
			else
				av_sb_addn(&b, s + off, (size_t)k);
		}
		off += (size_t)k;
	}
	return av_sb_take(&b);
}

/* <text ...>escaped s</text>; attrs go inside the tag as they are. */
static void text(struct av_strbuf *b, int x, int y, const char *attrs, const char *s)
{
	char *e = av_xml_escape(s);
	av_sb_printf(b, "<text x=\"%d\" y=\"%d\" %s>%s</text>\n", x, y, attrs, e);
	free(e);
}

static void hex(char out[8], struct av_rgb c)
{
	snprintf(out, 8, "#%02x%02x%02x", c.r, c.g, c.b);
}

/* A cell's text with the screen's typographic minus and infinity, as on a
 * printed page: "−2.250", "╳ −∞" for a hidden score ("╳ -inf" in a text
 * file), "+∞". */
static void number_text(const char *plain, char *buf, size_t size)
{
	size_t len = strlen(plain);
	bool inf = len >= 4 && strcmp(plain + len - 3, "inf") == 0 && strchr("+-", plain[len - 4]);
	if (inf)
		snprintf(buf, size, "%.*s%s∞", (int)(len - 4), plain,
			 plain[len - 4] == '-' ? "−" : "+");
	else if (plain[0] == '-')
		snprintf(buf, size, "−%s", plain + 1);
	else
		snprintf(buf, size, "%s", plain);
}

struct box {
	int label_w, head_h, cell_w, cell_h, decimals;
	bool numbers;
	bool level_heads;      /* the column labels fit their cells unturned */
	double range;
};

static int label_px(const char *s)
{
	char cut[256];
	return av_fig_fit(s, LABEL_COLS, cut, sizeof(cut)) * FONT_W;
}

static struct box measure(const struct av_fig_matrix *m)
{
	struct box x = { 0 };
	x.range = av_fig_range(m);
	x.decimals = av_fig_decimals(x.range);
	x.numbers = m->cols <= NUMBERS_MAX;
	char buf[256];
	int widest = 1;
	for (int r = 0; r < m->rows; r++) {
		av_fig_row_label(m, r, buf, sizeof(buf));
		int w = label_px(buf);
		x.label_w = w > x.label_w ? w : x.label_w;
		for (int c = 0; x.numbers && c < m->cols; c++) {
			av_fig_cell_text(m, r, c, x.decimals, true, buf, sizeof(buf));
			int cw = av_utf8_width(buf);
			widest = cw > widest ? cw : widest;
		}
	}
	x.label_w += 12;
	int head = 0;
	for (int c = 0; c < m->cols; c++) {
		av_fig_col_label(m, c, buf, sizeof(buf));
		int w = label_px(buf);
		head = w > head ? w : head;
	}
	x.cell_w = x.numbers ? (widest + 2) * FONT_W : SMALL_CELL;
	x.cell_w = x.numbers && x.cell_w < 48 ? 48 : x.cell_w;
	x.level_heads = head <= x.cell_w - 6;
	/* turned 45 degrees, a label is about w / sqrt(2) high */
	x.head_h = x.level_heads ? 20 : head * 3 / 4 + 16;
	x.cell_h = x.numbers ? CELL_H : SMALL_CELL;
	return x;
}

static int matrix_width(const struct av_fig_matrix *m, const struct box *x)
{
	int cells = x->label_w + m->cols * x->cell_w + x->head_h;   /* labels lean right */
	return cells > BAR_W + 160 ? cells : BAR_W + 160;
}

static int matrix_height(const struct av_fig_matrix *m, const struct box *x)
{
	return 22 + x->head_h + m->rows * x->cell_h + 16 + BAR_H + 28;
}

static void cell(struct av_strbuf *b, const struct av_figure *f, const struct av_fig_matrix *m,
		 const struct box *x, int r, int c, int px, int py)
{
	bool hidden = av_fig_hidden(m, r, c);
	struct av_rgb bg = hidden ? av_fig_hidden_grey
				  : av_fig_colour(f, m, av_fig_at(m, r, c), x->range);
	char fill[8], ink[8];
	hex(fill, bg);
	hex(ink, av_rgb_is_light(bg) ? (struct av_rgb){ 0, 0, 0 } : (struct av_rgb){ 255, 255, 255 });
	av_sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
		     "stroke=\"#ffffff\" stroke-width=\"1\"/>\n", px, py, x->cell_w, x->cell_h, fill);
	if (!x->numbers)
		return;
	char plain[64], shown[80], attrs[96];
	av_fig_cell_text(m, r, c, x->decimals, true, plain, sizeof(plain));
	number_text(plain, shown, sizeof(shown));
	snprintf(attrs, sizeof(attrs), "font-size=\"13\" text-anchor=\"middle\" fill=\"%s\"", ink);
	text(b, px + x->cell_w / 2, py + x->cell_h / 2 + 5, attrs, shown);
}

/* The colour bar under a matrix: low end, gradient, high end, and the
 * hidden cells' swatch when there are any. */
static void legend(struct av_strbuf *b, const struct av_figure *f, const struct av_fig_matrix *m,
		   const struct box *x, int id, int px, int py)
{
	double lo = m->weights ? 0 : -x->range, hi = m->weights ? 1 : x->range;
	const struct av_theme *t = f->theme;
	const struct av_rgb *stops = m->weights ? t->sequential : t->diverging;
	int n = m->weights ? t->n_sequential : t->n_diverging;
	av_sb_printf(b, "<defs><linearGradient id=\"bar%d\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">\n",
		     id);
	for (int i = 0; i < n; i++) {
		char c[8];
		hex(c, stops[i]);
		av_sb_printf(b, "<stop offset=\"%d%%\" stop-color=\"%s\"/>\n",
			     n > 1 ? 100 * i / (n - 1) : 0, c);
	}
	av_sb_add(b, "</linearGradient></defs>\n");
	char plain[64], shown[80];
	struct av_fig_matrix one = { .data = (const float[]){ (float)lo }, .rows = 1, .cols = 1,
				     .stride = 1 };
	av_fig_cell_text(&one, 0, 0, x->decimals, true, plain, sizeof(plain));
	number_text(plain, shown, sizeof(shown));
	text(b, px + 60, py + BAR_H - 2, "font-size=\"12\" text-anchor=\"end\"", shown);
	av_sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#bar%d)\" "
		     "stroke=\"#808080\"/>\n", px + 66, py, BAR_W, BAR_H, id);
	one.data = (const float[]){ (float)hi };
	av_fig_cell_text(&one, 0, 0, x->decimals, true, plain, sizeof(plain));
	number_text(plain, shown, sizeof(shown));
	text(b, px + 72 + BAR_W, py + BAR_H - 2, "font-size=\"12\"", shown);
	if (!m->hidden)
		return;
	int sx = px + 72 + BAR_W + 70;
	char grey[8];
	hex(grey, av_fig_hidden_grey);
	av_sb_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
		     sx, py, BAR_H, BAR_H, grey);
	text(b, sx + BAR_H + 6, py + BAR_H - 2, "font-size=\"12\"",
	     m->hidden_as_inf ? _("hidden key (−∞)") : _("hidden key (weight 0)"));
}

static void matrix(struct av_strbuf *b, const struct av_figure *f, const struct av_fig_matrix *m,
		   const struct box *x, int id, int py)
{
	char title[160];
	snprintf(title, sizeof(title), "%s  (%d × %d)", m->name, m->rows, m->cols);
	text(b, MARGIN, py + 16, "font-size=\"15\" font-weight=\"bold\"", title);
	int gx = MARGIN + x->label_w, gy = py + 22 + x->head_h;
	char buf[256], cut[256];
	for (int c = 0; c < m->cols; c++) {
		av_fig_col_label(m, c, buf, sizeof(buf));
		av_fig_fit(buf, LABEL_COLS, cut, sizeof(cut));
		int cx = gx + c * x->cell_w + x->cell_w / 2, cy = gy - 6;
		char attrs[96];
		if (x->level_heads)
			snprintf(attrs, sizeof(attrs), "font-size=\"13\" text-anchor=\"middle\"");
		else
			snprintf(attrs, sizeof(attrs), "font-size=\"13\" "
				 "transform=\"rotate(-45 %d %d)\"", cx, cy);
		text(b, cx, cy, attrs, cut);
	}
	for (int r = 0; r < m->rows; r++) {
		av_fig_row_label(m, r, buf, sizeof(buf));
		av_fig_fit(buf, LABEL_COLS, cut, sizeof(cut));
		text(b, gx - 8, gy + r * x->cell_h + x->cell_h / 2 + 5,
		     "font-size=\"13\" text-anchor=\"end\"", cut);
		for (int c = 0; c < m->cols; c++)
			cell(b, f, m, x, r, c, gx + c * x->cell_w, gy + r * x->cell_h);
	}
	legend(b, f, m, x, id, MARGIN, gy + m->rows * x->cell_h + 16);
}

char *av_figure_svg(const struct av_figure *f)
{
	struct box boxes[AV_FIGURE_MAX];
	int width = 640, height = MARGIN + 30;
	int lines = (f->subtitle ? 1 : 0) + (f->settings ? 1 : 0);
	height += lines * 20 + 8;
	for (int i = 0; i < f->n; i++) {
		boxes[i] = measure(&f->m[i]);
		int w = MARGIN * 2 + matrix_width(&f->m[i], &boxes[i]);
		width = w > width ? w : width;
		height += matrix_height(&f->m[i], &boxes[i]);
	}
	height += MARGIN;
	struct av_strbuf b = { 0 };
	char *title = av_xml_escape(f->title);
	av_sb_add(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	av_sb_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		     "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Noto Sans, "
		     "Noto Sans CJK SC, Noto Sans CJK JP, Arial, sans-serif\">\n",
		     width, height, width, height);
	av_sb_printf(&b, "<title>%s</title>\n", title);
	free(title);
	av_sb_add(&b, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	int y = MARGIN + 20;
	text(&b, MARGIN, y, "font-size=\"20\" font-weight=\"bold\"", f->title);
	if (f->subtitle) {
		y += 20;
		text(&b, MARGIN, y, "font-size=\"14\" fill=\"#5f0087\"", f->subtitle);
	}
	if (f->settings) {
		y += 20;
		text(&b, MARGIN, y, "font-size=\"13\" fill=\"#6c6c6c\"", f->settings);
	}
	y += 18;
	for (int i = 0; i < f->n; i++) {
		matrix(&b, f, &f->m[i], &boxes[i], i, y);
		y += matrix_height(&f->m[i], &boxes[i]);
	}
	av_sb_add(&b, "</svg>\n");
	return av_sb_take(&b);
}
