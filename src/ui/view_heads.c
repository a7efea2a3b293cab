/* view_heads.c: every head at once (seed 000's 2x4 grid of heads). Two
 * faces, cycled with 'a': a small heatmap per head of the current per-head
 * stage (the weights when the stage is not per head), then, for the query
 * under the cursor, a bar chart per head of its weights over the keys
 * (seed 000's per-head plot of token 0). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/draw.h"
#include "ui/heatmap.h"
#include "ui/inspector.h"
#include "util.h"

/* The stage the tiles show. */
static enum av_ui_stage shown_stage(const struct av_app *a)
{
	if (a->heads_bars)
		return AV_STAGE_SOFTMAX;
	switch (a->stage) {
	case AV_STAGE_SCORES: case AV_STAGE_SCALED: case AV_STAGE_MASKED: case AV_STAGE_SOFTMAX:
		return a->stage;
	default:
		return AV_STAGE_SOFTMAX;
	}
}

static void part_of(const struct av_app *a, int head, struct av_part *out)
{
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&a->s->trace, shown_stage(a), head, parts);
	*out = parts[0];
}

static void clamp(struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	if (a->row >= t->n)
		a->row = t->n - 1;
	if (a->row < 0)
		a->row = 0;
	if (a->col >= t->m)
		a->col = t->m - 1;
	if (a->col < 0)
		a->col = 0;
	a->sel_query = a->row;
	a->sel_key = a->col;
}

struct grid {
	int tile_w, tile_h, body;   /* body: data rows of a tile */
	int cell;                   /* columns of a heatmap cell */
	int per_row, rows, first_row, visible_rows;
	int label_w;
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

static void plan_grid(const struct av_app *a, int width, int height, struct grid *g)
{
	const struct av_trace *t = &a->s->trace;
	int H = t->heads, m = t->m, n = t->n;
	g->label_w = digits(n - 1) + 1;
	int cell = a->heads_bars ? 3 : 2;
	g->tile_w = g->label_w + cell * m + 2;
	if (g->tile_w < 14)
		g->tile_w = 14;
	g->per_row = width / g->tile_w;
	if (g->per_row < 1)
		g->per_row = 1;
	if (g->per_row > H)
		g->per_row = H;
	g->rows = (H + g->per_row - 1) / g->per_row;
	/* balance the rows: 8 heads in 2 rows of 4, not 5 + 3 */
	g->per_row = (H + g->rows - 1) / g->rows;
	/* share out the room: wider cells (numbers from 5 columns on) */
	g->cell = cell;
	if (!a->heads_bars && m > 0) {
		int wide = (width / g->per_row - g->label_w - 2) / m;
		g->cell = wide < 2 ? 2 : wide > 7 ? 7 : wide;
		g->tile_w = g->label_w + g->cell * m + 2;
		if (g->tile_w < 14)
			g->tile_w = 14;
	}
	int extra = a->heads_bars ? 2 : 1;    /* title (+ key labels for bars) */
	int want = a->heads_bars ? 6 : n;
	int fit = height / g->rows - extra;
	g->body = want <= fit ? want : fit;
	if (g->body < 3)
		g->body = height - extra < 3 ? height - extra : 3;
	if (g->body < 1)
		g->body = 1;
	g->tile_h = g->body + extra;
	g->visible_rows = height / g->tile_h;
	if (g->visible_rows < 1)
		g->visible_rows = 1;
	int sel_row = a->head / g->per_row;
	g->first_row = 0;
	if (sel_row >= g->visible_rows)
		g->first_row = sel_row - g->visible_rows + 1;
}

static void tile_title(struct av_app *a, WINDOW *w, int y, int x, int width, int h,
		       const char *extra)
{
	char buf[96];
	snprintf(buf, sizeof(buf), "%shead %d%s", h == a->head ? "▶" : " ", h, extra);
	attr_t at = h == a->head ? av_colors_el(&a->colors, AV_EL_HIGHLIGHT)
				 : av_colors_el(&a->colors, AV_EL_TITLE);
	av_put(w, y, x, buf, width, at);
}

static void draw_heatmap_tile(struct av_app *a, WINDOW *w, int y, int x, const struct grid *g,
			      int h, double range)
{
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	struct av_part p;
	part_of(a, h, &p);
	tile_title(a, w, y, x, g->tile_w - 1, h, "");
	/* rows around the cursor when the tile cannot hold them all */
	int first = 0;
	if (a->row >= g->body)
		first = a->row - g->body + 1;
	const bool utf8 = av_draw_utf8();
	int cw = g->cell;
	bool numbers = cw >= 5;
	bool neg = false;
	av_part_range(t, &p, &neg);
	int decimals = av_cell_decimals(p.kind == AV_PART_WEIGHTS ? 1.0 : range, neg, cw - 1);
	for (int k = 0; k < g->body && first + k < t->n; k++) {
		int r = first + k, yy = y + 1 + k;
		char lab[16];
		snprintf(lab, sizeof(lab), "%d", r);
		av_put_right(w, yy, x, lab, g->label_w - 1,
			     r == a->row ? av_colors_el(c, AV_EL_HIGHLIGHT)
					 : av_colors_el(c, AV_EL_LABEL));
		for (int j = 0; j < t->m; j++) {
			int cx = x + g->label_w + cw * j;
			float v = av_part_at(&p, r, j);
			bool hidden = av_part_hidden(t, &p, r, j);
			double pos = av_heat_position(v, p.kind, range);
			bool cur = h == a->head && r == a->row && j == a->col;
			attr_t at = hidden ? av_colors_el(c, AV_EL_MASKED)
					   : av_colors_heat(c, p.kind == AV_PART_SIGNED, pos);
			bool shade = !hidden && (av_colors_glyphs(c) || at == A_NORMAL);
			if (cur)
				at = av_colors_el(c, AV_EL_CURSOR);
			char text[32] = "";
			if (numbers && hidden)
				snprintf(text, sizeof(text), "%s", utf8 ? "╳" : "x");
			else if (numbers)
				av_cell_format(text, sizeof(text), v, decimals, cw - 1 - shade);
			else if (cur)
				snprintf(text, sizeof(text), "[]");
			else if (hidden)
				snprintf(text, sizeof(text), "%s", utf8 ? "╳╳" : "xx");
			int tw = numbers ? cw - 1 : 2;
			if (shade && !cur) {
				const char *gl = av_colors_shade(c, p.kind == AV_PART_SIGNED ?
								 fabs(2 * pos - 1) : pos);
				av_put(w, yy, cx, gl, 1, at);
				if (numbers)
					av_put_right(w, yy, cx + 1, text, tw - 1, at);
				else
					av_put(w, yy, cx + 1, gl, 1, at);
			} else {
				av_put_right(w, yy, cx, text, tw, at);
			}
		}
	}
}

/* A vertical bar of height v (0..1) over body rows, in eighths. */
static const char *bar_glyph(double v, int body, int level_from_bottom, bool utf8)
{
	static const char *const eighths[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	double units = v * body * 8;
	int in_cell = (int)lround(units - 8.0 * level_from_bottom);
	if (in_cell < 0)
		in_cell = 0;
	if (in_cell > 8)
		in_cell = 8;
	if (utf8)
		return eighths[in_cell];
	return in_cell >= 6 ? "#" : in_cell >= 3 ? "=" : in_cell >= 1 ? "_" : " ";
}

static void draw_bars_tile(struct av_app *a, WINDOW *w, int y, int x, const struct grid *g, int h)
{
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	struct av_part p;
	part_of(a, h, &p);
	int i = a->row;
	/* the key this head attends to most */
	int best = 0;
	for (int j = 1; j < t->m; j++)
		if (av_part_at(&p, i, j) > av_part_at(&p, i, best))
			best = j;
	char extra[48];
	snprintf(extra, sizeof(extra), " max %d %.2f", best, av_part_at(&p, i, best));
	tile_title(a, w, y, x, g->tile_w - 1, h, extra);
	const bool utf8 = av_draw_utf8();
	for (int j = 0; j < t->m; j++) {
		int cx = x + g->label_w + 3 * j;
		double v = av_part_at(&p, i, j);
		bool hidden = av_part_hidden(t, &p, i, j);
		bool cur = j == a->col;
		attr_t at = cur && h == a->head ? av_colors_el(c, AV_EL_CURSOR)
			    : h == a->head ? av_colors_el(c, AV_EL_HIGHLIGHT)
			    : av_colors_el(c, AV_EL_NORMAL);
		for (int k = 0; k < g->body; k++) {
			int yy = y + g->body - k;   /* from the bottom */
			const char *gl = hidden ? (k == 0 ? (utf8 ? "╳" : "x") : " ")
						: bar_glyph(v, g->body, k, utf8);
			attr_t ga = hidden ? av_colors_el(c, AV_EL_MASKED) : at;
			av_put(w, yy, cx, gl, 1, ga);
			av_put(w, yy, cx + 1, gl, 1, ga);
		}
		char lab[16];
		snprintf(lab, sizeof(lab), "%d", j);
		av_put(w, y + g->body + 1, cx, lab, 2,
		       cur ? av_colors_el(c, AV_EL_HIGHLIGHT) : av_colors_el(c, AV_EL_LABEL));
	}
	/* the y axis: 1 at the top, 0 at the bottom */
	av_put(w, y + 1, x, "1", 1, av_colors_el(c, AV_EL_DIM));
	av_put(w, y + g->body, x, "0", 1, av_colors_el(c, AV_EL_DIM));
}

static void heads_draw(struct av_app *a)
{
	clamp(a);
	struct av_colors *c = &a->colors;
	const struct av_trace *t = &a->s->trace;
	enum av_ui_stage st = shown_stage(a);
	/* title */
	if (a->w_title) {
		WINDOW *w = a->w_title;
		int width = getmaxx(w);
		werase(w);
		char buf[256];
		if (a->heads_bars)
			snprintf(buf, sizeof(buf), "all heads: weights of query %d '%s' over the keys",
				 a->row, t->tokens.text[a->row]);
		else
			snprintf(buf, sizeof(buf), "all heads: %s", av_ui_stage_titles[st]);
		int x = av_put(w, 0, 0, buf, width, av_colors_el(c, AV_EL_TITLE));
		char *formula = av_insp_formula(t, st, a->head);
		x += av_put(w, 0, x, "  ", width - x, A_NORMAL);
		av_put(w, 0, x, formula, width - x, av_colors_el(c, AV_EL_FORMULA));
		free(formula);
		if (getmaxy(w) > 1)
			av_put(w, 1, 0, a->heads_bars ?
			       "bar height = weight (0..1), one bar per key; up/down picks the query; a: back" :
			       "one small heatmap per head (rows: queries, columns: keys); a: bars",
			       width, av_colors_el(c, AV_EL_DIM));
	}
	/* the grid */
	WINDOW *w = a->w_panel;
	double range = 0;
	struct av_part p0;
	part_of(a, 0, &p0);
	for (int h = 0; h < t->heads; h++) {
		struct av_part p;
		part_of(a, h, &p);
		double r = av_part_range(t, &p, NULL);
		if (r > range)
			range = r;
	}
	if (w) {
		werase(w);
		struct grid g;
		plan_grid(a, getmaxx(w), getmaxy(w), &g);
		for (int h = 0; h < t->heads; h++) {
			int gr = h / g.per_row, gc = h % g.per_row;
			if (gr < g.first_row || gr >= g.first_row + g.visible_rows)
				continue;
			int y = (gr - g.first_row) * g.tile_h, x = gc * g.tile_w;
			if (a->heads_bars)
				draw_bars_tile(a, w, y, x, &g, h);
			else
				draw_heatmap_tile(a, w, y, x, &g, h, range);
		}
		if (g.first_row > 0 || g.first_row + g.visible_rows < g.rows) {
			char more[64];
			snprintf(more, sizeof(more), "heads %d-%d of %d (Tab)",
				 g.first_row * g.per_row,
				 (g.first_row + g.visible_rows) * g.per_row - 1 < t->heads - 1 ?
				 (g.first_row + g.visible_rows) * g.per_row - 1 : t->heads - 1,
				 t->heads);
			int mw = av_text_width(more);
			av_put(w, getmaxy(w) - 1, getmaxx(w) - mw - 1, more, mw,
			       av_colors_el(c, AV_EL_DIM));
		}
	}
	/* legend */
	if (a->w_legend) {
		werase(a->w_legend);
		bool any_hidden = false;
		for (size_t k = 0; k < (size_t)t->n * t->m && !any_hidden; k++)
			any_hidden = t->mask[k] == 0;
		if (a->heads_bars)
			av_put(a->w_legend, 0, 0, "bars: the query's softmax row in each head; "
			       "the tallest bar is the key it attends to most",
			       getmaxx(a->w_legend), av_colors_el(c, AV_EL_DIM));
		else
			av_legend_draw(a->w_legend, 0, c, p0.kind, range, p0.maskable && any_hidden,
				       p0.masked_as_inf);
	}
	/* inspector: the selected head's cell */
	if (a->w_insp) {
		struct av_part p;
		part_of(a, a->head, &p);
		struct av_insp in;
		av_insp_cell(&in, t, &a->s->params, &p, a->head, a->row, a->col,
			     getmaxx(a->w_insp));
		av_app_draw_inspector(a, &in);
		av_insp_free(&in);
	}
}

static bool heads_key(struct av_app *a, int key, enum av_action act)
{
	switch (act) {
	case AV_ACTION_LEFT: a->col--; break;
	case AV_ACTION_RIGHT: a->col++; break;
	case AV_ACTION_UP: a->row--; break;
	case AV_ACTION_DOWN: a->row++; break;
	case AV_ACTION_PAGE_LEFT: case AV_ACTION_PAGE_RIGHT:
		return true;
	case AV_ACTION_MASK_KEY:
		clamp(a);
		av_app_toggle_key(a, a->col);
		return true;
	default:
		return false;
	}
	clamp(a);
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_TOKENS;
	(void)key;
	return true;
}

const struct av_view av_view_heads = {
	.name = "heads",
	.draw = heads_draw,
	.key = heads_key,
	.resize = NULL,
};
