/* heads_bars.c: seed 000's §5.2 plot: for the query under the cursor, one
 * small bar chart per head of its softmax weights over the keys
 * (attention[0, :, i, :], plt.subplot(2, 4, h + 1)), so the heads can be
 * told apart. Each tile: the head and the key it weights most, bars on a y
 * axis from 0 to the largest weight of this query in any head (one scale
 * for all heads, so equal heights mean equal weights), the values under
 * the bars when they fit, and the key words. Bars grow with the terminal;
 * keys that do not fit page with the cursor (< >). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/draw.h"
#include "ui/heatmap.h"
#include "ui/view_heads_internal.h"

#define SLOT_MAX 8        /* a bar of 7 columns and a gap */
#define BODY_MAX 20       /* rows of bars at most */
#define AXIS_W 4          /* ".42│" */

struct bars_plan {
	struct av_heads_arrangement ar;
	int axis_w;        /* the y axis: labels and line, or 0 */
	int slot;          /* columns per key: the bar and a gap */
	int body;          /* rows of bars */
	bool values, values_fit;
	int vis_keys, first_key;
};

/* One arrangement in the given mode (AV_HEADS_CELLS_*). */
static void plan_one(int m, int mode, struct bars_plan *p)
{
	int content = p->ar.tile_w - 1;
	int show = m < 3 ? m : 3;
	p->axis_w = content >= AXIS_W + 2 * show ? AXIS_W : 0;
	int room = content - p->axis_w;
	int per = room / (m > 0 ? m : 1);
	p->values_fit = per >= 4 && p->ar.tile_h >= 6;
	p->values = mode == AV_HEADS_CELLS_NUMBERS ? p->ar.tile_h >= 5
		    : mode == AV_HEADS_CELLS_AUTO && p->values_fit;
	int lo = p->values ? 4 : 2;
	p->slot = per < lo ? lo : per > SLOT_MAX ? SLOT_MAX : per;
	p->vis_keys = room / p->slot;
	if (p->vis_keys > m)
		p->vis_keys = m;
	if (p->vis_keys < 1)
		p->vis_keys = 1;
	p->body = p->ar.tile_h - 2 - (p->values ? 1 : 0);
	if (p->body > BODY_MAX)
		p->body = BODY_MAX;
	if (p->body < 1)
		p->body = 1;
}

/* Lexicographic: all heads, the values when z asked for them, all keys,
 * bars at least 4 rows tall, the most keys of all the heads on the screen,
 * values, taller bars, wider bars, 2 x 4 over 4 x 2. */
#define N_SCORE 9
static void score(int m, int heads, int mode, const struct bars_plan *p, long s[N_SCORE])
{
	s[0] = p->ar.visible_grid_rows == p->ar.grid_rows;
	s[1] = mode == AV_HEADS_CELLS_NUMBERS && p->values;
	s[2] = p->vis_keys == m;
	s[3] = p->body < 4 ? p->body : 4;
	s[4] = (long)av_heads_visible(&p->ar, heads) * p->vis_keys;
	s[5] = p->values;
	s[6] = p->body;
	s[7] = p->slot;
	s[8] = -labs((long)p->ar.per_row - 2L * p->ar.grid_rows);
}

static void plan_bars(const struct av_app *a, int width, int height, struct bars_plan *best)
{
	const struct av_trace *t = &a->s->trace;
	int H = t->heads, m = t->m;
	long best_s[N_SCORE];
	for (int i = 0; i < N_SCORE; i++)
		best_s[i] = -1000;
	memset(best, 0, sizeof(*best));
	/* every number of rows of heads; all of them on the screen, or fewer
	 * and taller (many heads: Tab pages them) */
	for (int g = 1; g <= H; g++) {
		for (int shown = g; shown >= 1; shown--) {
			if (shown < g && shown * 4 > height)
				continue;
			struct bars_plan p;
			memset(&p, 0, sizeof(p));
			av_heads_arrange(H, g, shown, width, height, 4, a->head, &p.ar);
			plan_one(m, a->heads_cells, &p);
			long s[N_SCORE];
			score(m, H, a->heads_cells, &p, s);
			bool win = false;
			for (int i = 0; i < N_SCORE && !win; i++) {
				if (s[i] != best_s[i]) {
					win = s[i] > best_s[i];
					break;
				}
			}
			if (win) {
				memcpy(best_s, s, sizeof(s));
				*best = p;
			}
		}
	}
	best->first_key = av_heads_page_start(a->col, best->vis_keys);
}

static void fill_page(const struct av_app *a, const struct bars_plan *p, struct av_heads_page *pg)
{
	const struct av_trace *t = &a->s->trace;
	memset(pg, 0, sizeof(*pg));
	pg->total_cols = t->m;
	pg->first_col = p->first_key;
	pg->last_col = p->first_key + p->vis_keys - 1;
	if (pg->last_col > t->m - 1)
		pg->last_col = t->m - 1;
	pg->total_rows = t->n;
	pg->first_row = pg->last_row = a->row;
	pg->first_head = p->ar.first_grid_row * p->ar.per_row;
	pg->last_head = (p->ar.first_grid_row + p->ar.visible_grid_rows) * p->ar.per_row - 1;
	if (pg->last_head > t->heads - 1)
		pg->last_head = t->heads - 1;
	pg->numbers = p->values;
	pg->numbers_fit = p->values_fit;
}

void av_heads_bars_plan_page(const struct av_app *a, int width, int height,
			     struct av_heads_page *pg)
{
	struct bars_plan p;
	plan_bars(a, width, height, &p);
	fill_page(a, &p, pg);
}

/* --- drawing ------------------------------------------------------------- */

/* The softmax weights of head h (rows: queries, columns: keys). */
static struct av_part weights_of(const struct av_trace *t, int h)
{
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(t, AV_STAGE_SOFTMAX, h, parts);
	return parts[0];
}

/* The piece of a bar of height units (in eighths of a row) at row level
 * (0 = the bottom row). */
static const char *bar_glyph(double units, int level, bool utf8)
{
	static const char *const eighths[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	int in_cell = (int)lround(units - 8.0 * level);
	if (in_cell < 0)
		in_cell = 0;
	if (in_cell > 8)
		in_cell = 8;
	if (utf8)
		return eighths[in_cell];
	return in_cell >= 6 ? "#" : in_cell >= 3 ? "=" : in_cell >= 1 ? "_" : " ";
}

/* The y axis's top label: the largest weight, short. */
static void axis_label(char *buf, size_t size, double ymax)
{
	if (ymax >= 0.995)
		snprintf(buf, size, "1");
	else
		snprintf(buf, size, ".%02d", (int)lround(ymax * 100));
}

static void key_label(const struct av_trace *t, int j, int width, char *out, size_t size)
{
	char raw[160];
	if (width >= 2)
		snprintf(raw, sizeof(raw), "%s", av_heads_token(t, AV_AXIS_KEY, j));
	else   /* a ruler: 0123456789012... */
		snprintf(raw, sizeof(raw), "%d", j % 10);
	av_heads_fit(out, size, raw, width);
	if (!*out) {
		snprintf(raw, sizeof(raw), "%d", j);
		av_heads_fit(out, size, raw, width);
	}
}

struct bars_ctx {
	struct av_app *a;
	WINDOW *w;
	const struct bars_plan *p;
	double ymax;
};

static void draw_axis(const struct bars_ctx *bc, int y0, int x0)
{
	const struct bars_plan *p = bc->p;
	if (p->axis_w == 0)
		return;
	attr_t dim = av_colors_el(&bc->a->colors, AV_EL_DIM);
	const bool utf8 = av_draw_utf8();
	char top[16];
	axis_label(top, sizeof(top), bc->ymax);
	for (int k = 0; k < p->body; k++) {
		int y = y0 + 1 + k;
		const char *lab = k == 0 ? top : k == p->body - 1 ? "0" : "";
		int lw = av_text_width(lab);
		av_heads_put(bc->w, y, x0 + p->axis_w - 1 - lw, lab, lw, dim);
		av_heads_put(bc->w, y, x0 + p->axis_w - 1, utf8 ? "│" : "|", 1, dim);
	}
}

static void draw_tile(const struct bars_ctx *bc, int h, int y0, int x0)
{
	struct av_app *a = bc->a;
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	const struct bars_plan *p = bc->p;
	const bool utf8 = av_draw_utf8();
	int content = p->ar.tile_w - 1, i = a->row;
	bool sel = h == a->head;
	struct av_part wp = weights_of(t, h);

	/* the title: the head and the key it weights most */
	int best = 0;
	for (int j = 1; j < t->m; j++)
		if (av_part_at(&wp, i, j) > av_part_at(&wp, i, best))
			best = j;
	/* as much of "▶head 0 → 2 sat 0.42" as fits */
	const char *mark = sel ? (utf8 ? "▶" : ">") : " ", *arrow = utf8 ? "→" : "->";
	const char *word = av_heads_token(t, AV_AXIS_KEY, best);
	double top = av_part_at(&wp, i, best);
	char title[5][192];
	snprintf(title[0], sizeof(title[0]), "%shead %d %s %d %s %.2f", mark, h, arrow, best,
		 word, top);
	snprintf(title[1], sizeof(title[1]), "%shead %d %s %s %.2f", mark, h, arrow, word, top);
	snprintf(title[2], sizeof(title[2]), "%shead %d %s %s", mark, h, arrow, word);
	snprintf(title[3], sizeof(title[3]), "%shead %d", mark, h);
	snprintf(title[4], sizeof(title[4]), "%sh%d", mark, h);
	int pick = 0;
	while (pick < 4 && av_text_width(title[pick]) > content)
		pick++;
	av_heads_put(bc->w, y0, x0, title[pick], content,
		     av_colors_el(c, sel ? AV_EL_HIGHLIGHT : AV_EL_TITLE));
	draw_axis(bc, y0, x0);

	int bw = p->slot - 1, bx0 = x0 + p->axis_w;
	int y_values = y0 + 1 + p->body, y_keys = y_values + (p->values ? 1 : 0);
	for (int k = 0; k < p->vis_keys; k++) {
		int j = p->first_key + k, x = bx0 + k * p->slot;
		if (j >= t->m)
			break;
		double v = av_part_at(&wp, i, j);
		bool hidden = av_part_hidden(t, &wp, i, j);
		bool cur = j == a->col;
		attr_t at = av_colors_el(c, cur ? AV_EL_HIGHLIGHT : AV_EL_NORMAL);
		double units = bc->ymax > 0 ? v / bc->ymax * p->body * 8 : 0;
		for (int lv = 0; lv < p->body; lv++) {
			int y = y0 + p->body - lv;
			const char *g = hidden ? (lv == 0 ? (utf8 ? "╳" : "x") : " ")
					       : bar_glyph(units, lv, utf8);
			for (int g2 = 0; g2 < bw; g2++)
				av_heads_put(bc->w, y, x + g2, g, 1,
					     hidden ? av_colors_el(c, AV_EL_MASKED) : at);
		}
		if (p->values) {
			char val[16];
			if (hidden)
				snprintf(val, sizeof(val), "%s", utf8 ? "╳" : "x");
			else
				av_heads_weight_text(val, sizeof(val), v, bw);
			int vw = av_text_width(val);
			av_heads_put(bc->w, y_values, x + bw - vw, val, vw,
				     av_colors_el(c, AV_EL_DIM));
		}
		char lab[64];
		key_label(t, j, bw, lab, sizeof(lab));
		attr_t la = av_colors_el(c, AV_EL_LABEL);
		if (t->key_hidden[j])
			la = av_colors_el(c, AV_EL_MASKED);
		if (cur)
			la = av_colors_el(c, sel ? AV_EL_CURSOR : AV_EL_HIGHLIGHT);
		av_heads_put(bc->w, y_keys, x, lab, bw, la);
	}
}

/* The y axis's top: the query's largest weight in any head (hidden keys
 * left out). */
double av_heads_bars_ymax(const struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	double ymax = 0;
	for (int h = 0; h < t->heads; h++) {
		struct av_part wp = weights_of(t, h);
		for (int j = 0; j < t->m; j++)
			if (!av_part_hidden(t, &wp, a->row, j) && av_part_at(&wp, a->row, j) > ymax)
				ymax = av_part_at(&wp, a->row, j);
	}
	return ymax;
}

void av_heads_bars_draw(struct av_app *a, WINDOW *w, struct av_heads_page *pg)
{
	const struct av_trace *t = &a->s->trace;
	struct bars_plan p;
	plan_bars(a, getmaxx(w), getmaxy(w), &p);
	fill_page(a, &p, pg);
	/* one scale for every head: the query's largest weight anywhere */
	double ymax = av_heads_bars_ymax(a);
	struct bars_ctx bc = { .a = a, .w = w, .p = &p, .ymax = ymax > 0 ? ymax : 1 };
	for (int h = 0; h < t->heads; h++) {
		int gr = h / p.ar.per_row, gc = h % p.ar.per_row;
		if (gr < p.ar.first_grid_row || gr >= p.ar.first_grid_row + p.ar.visible_grid_rows)
			continue;
		draw_tile(&bc, h, (gr - p.ar.first_grid_row) * p.ar.tile_h, gc * p.ar.tile_w);
	}
}

