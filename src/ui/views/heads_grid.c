/* heads_grid.c: one small heatmap per head, all heads at once (seed 000's
 * 2x4 grid). Each tile: the head's name, a row of key (or dimension)
 * labels, then the rows with their query labels. The plan tries every
 * arrangement of the heads (1 row of 8, 2 of 4, ...) and keeps the one
 * that shows the most: all heads, then the whole matrix, then numbers in
 * the cells, then the most cells, then the biggest cells (wider and taller
 * at projector sizes). What does not fit pages with the cursor. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/views/view_heads_internal.h"

#define CELL_MIN 3        /* colour cells: 2 columns of colour and a gap */
#define CELL_COLOUR_MAX 6
#define CELL_MAX 10
#define ROW_H_MAX 3       /* screen rows per matrix row at big sizes */
#define LABEL_MAX 12      /* "12 kangaroo" */

struct grid_info {
	int heads;
	int n_parts, total_cols, total_rows;
	struct av_part parts[AV_MAX_PARTS];     /* head 0's: the sizes */
	double range[AV_MAX_PARTS];             /* the largest |value| in any head */
	bool neg[AV_MAX_PARTS];
	int num_cell;                           /* columns a number cell needs */
	int full_label_w, index_label_w;
};

struct grid_plan {
	struct av_heads_arrangement ar;
	int label_w;
	bool label_words;
	int cell_w, row_h;
	int vis_cols, vis_rows;
	int first_col, first_row;
	bool numbers, numbers_fit;
};

static int digits(int v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

/* The narrowest number cell that shows every value: weights as ".42"
 * (3 columns; av_heads_weight_text), the rest with 1 decimal; the gap
 * included. */
static int number_cell(const struct grid_info *gi, bool shade)
{
	int need = 3;
	for (int i = 0; i < gi->n_parts; i++) {
		if (gi->parts[i].kind == AV_PART_WEIGHTS)
			continue;
		int w = 2;
		while (w < 12 && av_cell_decimals(gi->range[i], gi->neg[i], w) < 1)
			w++;
		if (w > need)
			need = w;
	}
	/* without colour: the density glyph and a space before the number */
	return need + 1 + (shade ? 2 : 0);
}

static void grid_info(const struct av_app *a, struct grid_info *gi)
{
	const struct av_trace *t = &a->s->trace;
	memset(gi, 0, sizeof(*gi));
	gi->heads = t->heads;
	bool sub;
	enum av_stage st = av_heads_grid_stage(a->stage, &sub);
	struct av_part full[AV_MAX_PARTS];
	int col0[AV_MAX_PARTS];
	gi->n_parts = av_heads_parts(t, st, 0, gi->parts, full, col0);
	for (int i = 0; i < gi->n_parts; i++) {
		gi->total_cols += gi->parts[i].cols;
		if (gi->parts[i].rows > gi->total_rows)
			gi->total_rows = gi->parts[i].rows;
	}
	for (int h = 0; h < t->heads; h++) {
		struct av_part p[AV_MAX_PARTS];
		av_heads_parts(t, st, h, p, full, col0);
		for (int i = 0; i < gi->n_parts; i++) {
			bool neg = false;
			double r = av_part_range(t, &p[i], &neg);
			if (r > gi->range[i])
				gi->range[i] = r;
			gi->neg[i] |= neg;
		}
	}
	gi->num_cell = number_cell(gi, !a->colors.color);
	gi->index_label_w = digits(gi->total_rows - 1);
	gi->full_label_w = gi->index_label_w;
	for (int r = 0; r < gi->total_rows; r++) {
		char buf[160];
		snprintf(buf, sizeof(buf), "%*d %s", gi->index_label_w, r,
			 av_heads_token(t, gi->parts[0].row_axis, r));
		int w = av_text_width(buf);
		if (w > gi->full_label_w)
			gi->full_label_w = w;
	}
	if (gi->full_label_w > LABEL_MAX)
		gi->full_label_w = LABEL_MAX;
}

/* Cells of width between lo and hi in the room left of a label: the
 * widest that shows every column, or lo (paging). Prefers word labels. */
static void fit_cells(const struct grid_info *gi, int content, int lo, int hi,
		      struct grid_plan *p)
{
	int C = gi->total_cols > 0 ? gi->total_cols : 1;
	/* the labels take what the narrowest cells leave: the whole "3 on",
	 * a cut one, or the index alone */
	int budget = content - 1 - C * lo;
	p->label_words = budget >= gi->index_label_w + 3;
	p->label_w = !p->label_words ? gi->index_label_w
		     : budget < gi->full_label_w ? budget : gi->full_label_w;
	int avail = content - p->label_w - 1;
	int cw = avail / C;
	p->cell_w = cw < lo ? lo : cw > hi ? hi : cw;
	p->vis_cols = avail / p->cell_w;
	if (p->vis_cols > C)
		p->vis_cols = C;
	if (p->vis_cols < 1)
		p->vis_cols = 1;
}

static void plan_rows(const struct grid_info *gi, struct grid_plan *p)
{
	int area = p->ar.tile_h - 2;
	if (area < 1)
		area = 1;
	int R = gi->total_rows;
	p->row_h = area / (R > 0 ? R : 1);
	if (p->row_h < 1)
		p->row_h = 1;
	if (p->row_h > ROW_H_MAX)
		p->row_h = ROW_H_MAX;
	p->vis_rows = area / p->row_h;
	if (p->vis_rows > R)
		p->vis_rows = R;
}

/* One arrangement's best cells in the given mode. */
static void plan_one(const struct grid_info *gi, int mode, struct grid_plan *p)
{
	int content = p->ar.tile_w - 1;
	plan_rows(gi, p);
	struct grid_plan num = *p, col = *p;
	fit_cells(gi, content, gi->num_cell, CELL_MAX, &num);
	num.numbers = true;
	fit_cells(gi, content, CELL_MIN, CELL_COLOUR_MAX, &col);
	if (col.vis_cols < gi->total_cols) {
		/* one column of colour and a gap, if then the whole matrix fits */
		struct grid_plan tight = *p;
		fit_cells(gi, content, 2, 2, &tight);
		if (tight.vis_cols == gi->total_cols)
			col = tight;
	}
	col.numbers = false;
	bool fits = num.vis_cols == gi->total_cols;
	if (mode == AV_HEADS_CELLS_NUMBERS || (mode == AV_HEADS_CELLS_AUTO && fits))
		*p = num;
	else
		*p = col;
	p->numbers_fit = fits;
}

/* Lexicographic: all heads, everything, every row when the columns are
 * dimensions (Q_h, context_h: the tokens are what a reader follows, the
 * 64 dimensions page anyway), the most cells of all the heads on the
 * screen, numbers, the biggest cells, 2 x 4 over 4 x 2. */
#define N_SCORE 7
static void score(const struct grid_info *gi, const struct grid_plan *p, long s[N_SCORE])
{
	s[0] = p->ar.visible_grid_rows == p->ar.grid_rows;
	s[1] = p->vis_cols == gi->total_cols && p->vis_rows == gi->total_rows;
	s[2] = gi->parts[0].col_axis == AV_AXIS_DIM && p->vis_rows == gi->total_rows;
	s[3] = (long)av_heads_visible(&p->ar, gi->heads) * p->vis_cols * p->vis_rows;
	s[4] = p->numbers;
	s[5] = (long)p->cell_w * p->row_h;
	s[6] = -labs((long)p->ar.per_row - 2L * p->ar.grid_rows);
}

static void plan_grid(const struct av_app *a, const struct grid_info *gi, int width, int height,
		      struct grid_plan *best)
{
	int H = a->s->trace.heads;
	long best_s[N_SCORE] = { -1, -1, -1, -1, -1, -1, -1000 };
	memset(best, 0, sizeof(*best));
	/* every number of rows of heads; all of them on the screen, or fewer
	 * and taller (many heads: Tab pages them) */
	for (int g = 1; g <= H; g++) {
		for (int shown = g; shown >= 1; shown--) {
			if (shown < g && shown * 3 > height)
				continue;
			struct grid_plan p;
			memset(&p, 0, sizeof(p));
			av_heads_arrange(H, g, shown, width, height, 3, a->head, &p.ar);
			plan_one(gi, a->heads_cells, &p);
			long s[N_SCORE];
			score(gi, &p, s);
			if (av_heads_score_better(s, best_s, N_SCORE)) {
				memcpy(best_s, s, sizeof(s));
				*best = p;
			}
		}
	}
}

/* Where the cursor's page starts. */
static void place(const struct av_app *a, struct grid_plan *p)
{
	p->first_col = av_heads_page_start(a->col, p->vis_cols);
	p->first_row = av_heads_page_start(a->row, p->vis_rows);
}

static void fill_page(const struct av_app *a, const struct grid_info *gi,
		      const struct grid_plan *p, struct av_heads_page *pg)
{
	int H = a->s->trace.heads;
	memset(pg, 0, sizeof(*pg));
	pg->total_cols = gi->total_cols;
	pg->first_col = p->first_col;
	pg->last_col = p->first_col + p->vis_cols - 1;
	if (pg->last_col > gi->total_cols - 1)
		pg->last_col = gi->total_cols - 1;
	pg->total_rows = gi->total_rows;
	pg->first_row = p->first_row;
	pg->last_row = p->first_row + p->vis_rows - 1;
	if (pg->last_row > gi->total_rows - 1)
		pg->last_row = gi->total_rows - 1;
	pg->first_head = p->ar.first_grid_row * p->ar.per_row;
	pg->last_head = (p->ar.first_grid_row + p->ar.visible_grid_rows) * p->ar.per_row - 1;
	if (pg->last_head > H - 1)
		pg->last_head = H - 1;
	pg->numbers = p->numbers;
	pg->numbers_fit = p->numbers_fit;
}

void av_heads_grid_plan_page(const struct av_app *a, int width, int height,
			     struct av_heads_page *pg)
{
	struct grid_info gi;
	grid_info(a, &gi);
	struct grid_plan p;
	plan_grid(a, &gi, width, height, &p);
	place(a, &p);
	fill_page(a, &gi, &p, pg);
}

/* --- drawing ------------------------------------------------------------- */

/* A column's label: a key's in the grid's form (av_heads_key_form), a
 * dimension's index. */
static void col_label(const struct av_trace *t, const struct av_part *p, int c, bool first_of_part,
		      enum av_heads_key_form key_form, int width, char *out, size_t size)
{
	char raw[160];
	if (width == 1)   /* a ruler: 0123456789012... */
		snprintf(raw, sizeof(raw), "%d", c % 10);
	else if (p->col_axis == AV_AXIS_KEY) {
		av_heads_key_label(t, c, key_form, width, out, size);
		return;
	} else if (first_of_part)
		snprintf(raw, sizeof(raw), "%.1s%d", p->name, c);   /* "K0": K_h starts */
	else
		snprintf(raw, sizeof(raw), "%d", c);
	av_heads_fit(out, size, raw, width);
}

struct tile_ctx {
	struct av_app *a;
	WINDOW *w;
	const struct grid_info *gi;
	const struct grid_plan *p;
	int decimals[AV_MAX_PARTS];
	enum av_heads_key_form key_form;   /* how the keys are labelled */
	const int (*marks)[2];        /* the lesson step's cells (av_lesson_ui_marks) */
	int n_marks;
};

static void draw_cell(const struct tile_ctx *tc, const struct av_part *part, int pi, int y, int x,
		      int r, int c, bool cursor, int tile_x0)
{
	struct av_colors *col = &tc->a->colors;
	const struct av_trace *t = &tc->a->s->trace;
	const struct grid_plan *p = tc->p;
	int cw = p->cell_w - 1;   /* one column of gap */
	const bool utf8 = av_draw_utf8();
	if (r >= part->rows)   /* K_h, V_h in cross mode: fewer rows than Q_h */
		return;
	float v = av_part_at(part, r, c);
	bool hidden = av_part_hidden(t, part, r, c);
	double pos = av_heat_position(v, part->kind, tc->gi->range[pi]);
	attr_t heat = hidden ? av_colors_el(col, AV_EL_MASKED)
			     : av_colors_heat(col, part->kind == AV_PART_SIGNED, pos);
	bool shade = !hidden && (av_colors_glyphs(col) || heat == A_NORMAL);
	attr_t at = cursor ? av_colors_el(col, AV_EL_CURSOR) : heat;
	const char *glyph = hidden ? (utf8 ? "╳" : "x")
			    : av_colors_shade(col, part->kind == AV_PART_SIGNED ?
					      fabs(2 * pos - 1) : pos);
	int mid = p->row_h / 2;
	for (int k = 0; k < p->row_h; k++) {
		char text[48] = "";
		if (k == mid) {
			/* without colour the glyph and a space come first */
			int room = shade ? cw - 2 : cw;
			const char *what = part->masked_as_inf ? (utf8 ? "−∞" : "-inf") : "0";
			if (p->numbers && hidden) {
				snprintf(text, sizeof(text), "%s %s", glyph, what);
				if (av_text_width(text) > cw)
					snprintf(text, sizeof(text), "%s%s", glyph, what);
			} else if (p->numbers && part->kind == AV_PART_WEIGHTS) {
				av_heads_weight_text(text, sizeof(text), v, room);
			} else if (p->numbers) {
				av_cell_format(text, sizeof(text), v, tc->decimals[pi], room);
				av_cell_minus(text, sizeof(text));
			} else if (cursor) {
				snprintf(text, sizeof(text), "[]");
			}
		}
		if (av_text_width(text) > cw)
			snprintf(text, sizeof(text), "%s", glyph);
		if (hidden && k != mid && !cursor) {
			/* a hidden cell: its colour, the glyph only once */
			av_heads_fill(tc->w, y + k, x, cw, at);
			continue;
		}
		if (shade && !cursor) {
			/* no colour, or 8 colours' bands: the glyph's density is the value,
			 * then the number (in the band's attribute) */
			int gw = *text ? 1 : cw;
			/* no number beside it: the sign after the glyph */
			const char *sign = *text || k != mid ? NULL
					   : av_colors_sign_mark(col, heat,
								 part->kind == AV_PART_SIGNED, pos);
			for (int g = 0; g < gw; g++)
				av_heads_put(tc->w, y + k, x + g,
					     sign && g == gw - 1 && gw > 1 ? sign : glyph, 1, heat);
			if (*text) {
				int tw = av_text_width(text);
				av_heads_fill(tc->w, y + k, x + 1, cw - 1 - tw, heat);
				av_heads_put(tc->w, y + k, x + cw - tw, text, tw, heat);
			}
		} else if (hidden && !*text && !cursor) {
			for (int g = 0; g < cw; g++)
				av_heads_put(tc->w, y + k, x + g, glyph, 1, at);
		} else {
			int tw = av_text_width(text);
			av_heads_fill(tc->w, y + k, x, cw - tw, at);
			av_heads_put(tc->w, y + k, x + cw - tw, text, tw, at);
		}
	}
	/* a lesson step's cell: in brackets on its number's row, inside the tile */
	if (av_heatmap_marked(part, tc->marks, tc->n_marks, r, c))
		av_heatmap_mark_cell(tc->w, y + mid, x, cw, tile_x0, tile_x0 + p->ar.tile_w);
}

static void draw_tile(const struct tile_ctx *tc, int h, int y0, int x0)
{
	struct av_app *a = tc->a;
	const struct av_trace *t = &a->s->trace;
	struct av_colors *col = &a->colors;
	const struct grid_plan *p = tc->p;
	const struct grid_info *gi = tc->gi;
	int content = p->ar.tile_w - 1;
	bool sel = h == a->head;
	bool sub;
	struct av_part parts[AV_MAX_PARTS], full[AV_MAX_PARTS];
	int col0[AV_MAX_PARTS];
	int np = av_heads_parts(t, av_heads_grid_stage(a->stage, &sub), h, parts, full, col0);

	char title[64];
	snprintf(title, sizeof(title), _("%shead %d"), sel ? (av_draw_utf8() ? _("▶") : ">") : " ", h);
	if (av_text_width(title) > content)   /* narrow tiles: "▶h7" */
		snprintf(title, sizeof(title), "%sh%d", sel ? (av_draw_utf8() ? "▶" : ">") : " ", h);
	av_heads_put(tc->w, y0, x0, title, content,
		     av_colors_el(col, sel ? AV_EL_HIGHLIGHT : AV_EL_TITLE));

	int cx0 = x0 + p->label_w + 1;
	for (int k = 0; k < p->vis_cols; k++) {
		int vc = p->first_col + k;
		if (vc >= gi->total_cols)
			break;
		int pi, c;
		av_heatmap_locate(parts, np, vc, &pi, &c);
		char lab[64];
		col_label(t, &parts[pi], c, c == 0 && np > 1, tc->key_form, p->cell_w - 1, lab,
			  sizeof(lab));
		attr_t at = av_colors_el(col, AV_EL_LABEL);
		if (parts[pi].col_axis == AV_AXIS_KEY && t->key_hidden[c])
			at = av_colors_el(col, AV_EL_MASKED);
		if (vc == a->col)
			at = av_colors_el(col, sel ? AV_EL_CURSOR : AV_EL_HIGHLIGHT);
		av_heads_put(tc->w, y0 + 1, cx0 + k * p->cell_w, lab, p->cell_w - 1, at);
	}
	for (int k = 0; k < p->vis_rows; k++) {
		int r = p->first_row + k, y = y0 + 2 + k * p->row_h;
		if (r >= gi->total_rows)
			break;
		if (p->label_w > 0) {
			int ly = y + p->row_h / 2;   /* beside the numbers */
			char raw[160], lab[160];
			int pi, c;
			av_heatmap_locate(parts, np, p->first_col, &pi, &c);
			/* "3 on" under "12 kangaroo": indices right-aligned, words left */
			if (p->label_words)
				snprintf(raw, sizeof(raw), "%*d %s", gi->index_label_w, r,
					 av_heads_token(t, parts[pi].row_axis, r));
			else
				snprintf(raw, sizeof(raw), "%*d", gi->index_label_w, r);
			av_heads_fit(lab, sizeof(lab), raw, p->label_w);
			attr_t at = av_colors_el(col, r == a->row ? AV_EL_HIGHLIGHT : AV_EL_LABEL);
			av_heads_put(tc->w, ly, x0, lab, p->label_w, at);
		}
		for (int j = 0; j < p->vis_cols; j++) {
			int vc = p->first_col + j;
			if (vc >= gi->total_cols)
				break;
			int pi, c;
			av_heatmap_locate(parts, np, vc, &pi, &c);
			draw_cell(tc, &parts[pi], pi, y, cx0 + j * p->cell_w, r, c,
				  sel && r == a->row && vc == a->col, x0);
		}
	}
}

void av_heads_grid_draw(struct av_app *a, WINDOW *w, struct av_heads_page *pg)
{
	struct grid_info gi;
	grid_info(a, &gi);
	struct grid_plan p;
	plan_grid(a, &gi, getmaxx(w), getmaxy(w), &p);
	place(a, &p);
	fill_page(a, &gi, &p, pg);
	struct tile_ctx tc = { .a = a, .w = w, .gi = &gi, .p = &p };
	tc.n_marks = av_lesson_ui_marks(a, &tc.marks);
	tc.key_form = av_heads_key_form(&a->s->trace, p.cell_w - 1);
	for (int i = 0; i < gi.n_parts; i++) {
		int room = p.cell_w - 1 - (a->colors.color ? 0 : 2);
		tc.decimals[i] = av_cell_decimals(gi.parts[i].kind == AV_PART_WEIGHTS ? 1.0
						  : gi.range[i], gi.neg[i], room);
	}
	int H = a->s->trace.heads;
	for (int h = 0; h < H; h++) {
		int gr = h / p.ar.per_row, gc = h % p.ar.per_row;
		if (gr < p.ar.first_grid_row || gr >= p.ar.first_grid_row + p.ar.visible_grid_rows)
			continue;
		draw_tile(&tc, h, (gr - p.ar.first_grid_row) * p.ar.tile_h, gc * p.ar.tile_w);
	}
}
