/* heads_bars.c: seed 000's §5.2 plot: for the query under the cursor, one
 * small bar chart per head of its softmax weights over the keys
 * (attention[0, :, i, :], plt.subplot(2, 4, h + 1)), so the heads can be
 * told apart. At the scores, scaled and masked stages the bars are that
 * stage's row instead (up from 0 for positive values, down for negative
 * ones), so the body shows the stage the header names; the stages with no
 * per-head row over the keys show the weights and the title says so.
 * Each tile: the head and the key it weights most, bars on one y axis for
 * all heads (equal heights mean equal values) from the row's smallest
 * value (or 0) to its largest, the values under the bars when they fit,
 * and the key words. Bars grow with the terminal; keys that do not fit
 * page with the cursor (< >). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/views/view_heads_internal.h"

#define SLOT_MAX 8        /* a bar of 7 columns and a gap */
#define BODY_MAX 20       /* rows of bars at most */
#define AXIS_LABEL_MAX 5  /* "-12.3" */

struct bars_plan {
	struct av_heads_arrangement ar;
	int axis_w;        /* the y axis: labels and line, or 0 */
	int slot;          /* columns per key: the bar and a gap */
	int body;          /* rows of bars */
	bool values, values_fit;
	int vis_keys, first_key;
	bool argmax_row;   /* a row under the title names the head's largest key
			      ("→ 4 0.32"): keys are off the page and the title
			      has no room for it */
};

/* The columns the heads' titles need to name their largest key, with its
 * value (title_w) and without it (key_w): see make_titles. */
struct title_widths {
	int title_w, key_w;
};

/* One arrangement in the given mode (AV_HEADS_CELLS_*): axis_w is the y
 * axis with its labels (".42│"), val_w the columns a value needs, tw what
 * the titles need to name each head's largest key (and value). */
static void plan_one(int m, int mode, int axis_w, int val_w, const struct title_widths *tw,
		     struct bars_plan *p)
{
	int content = p->ar.tile_w - 1;
	int show = m < 3 ? m : 3;
	p->axis_w = content >= axis_w + 2 * show ? axis_w : 0;
	int room = content - p->axis_w;
	int per = room / (m > 0 ? m : 1);
	p->values_fit = per >= val_w + 1 && p->ar.tile_h >= 6;
	p->values = mode == AV_HEADS_CELLS_NUMBERS ? p->ar.tile_h >= 5
		    : mode == AV_HEADS_CELLS_AUTO && p->values_fit;
	int lo = p->values ? val_w + 1 : 2;
	p->slot = per < lo ? lo : per > SLOT_MAX ? SLOT_MAX : per;
	if (p->slot < lo)
		p->slot = lo;
	p->vis_keys = room / p->slot;
	if (p->vis_keys > m)
		p->vis_keys = m;
	if (p->vis_keys < 1)
		p->vis_keys = 1;
	/* with keys off the page the tallest bar shown may not be the
	 * largest: the largest is named under the title, if not in it */
	p->argmax_row = p->vis_keys < m && content < tw->title_w;
	/* not at the cost of the bars' second row when the title names the
	 * key already: the row would add only its index and value (at 60x16
	 * it left the bars one row tall) */
	int rows_left = p->ar.tile_h - 2 - (p->values ? 1 : 0) - 1;
	if (p->argmax_row && rows_left < 2 && content >= tw->key_w)
		p->argmax_row = false;
	p->body = p->ar.tile_h - 2 - (p->values ? 1 : 0) - (p->argmax_row ? 1 : 0);
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

enum av_stage av_heads_bars_stage(enum av_stage st, bool *substituted)
{
	*substituted = false;
	switch (st) {
	case AV_STAGE_SCORES: case AV_STAGE_SCALED: case AV_STAGE_MASKED: case AV_STAGE_SOFTMAX:
		return st;
	default:
		*substituted = true;
		return AV_STAGE_SOFTMAX;
	}
}

/* The matrix of head h the bars take the query's row from. */
static struct av_part row_part(const struct av_app *a, int h)
{
	bool sub;
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&a->s->trace, av_heads_bars_stage(a->stage, &sub), h, parts);
	return parts[0];
}

void av_heads_bars_range(const struct av_app *a, double *lo, double *hi)
{
	const struct av_trace *t = &a->s->trace;
	*lo = *hi = 0;
	for (int h = 0; h < t->heads; h++) {
		struct av_part p = row_part(a, h);
		for (int j = 0; j < t->m; j++) {
			double v = av_part_at(&p, a->row, j);
			if (av_part_hidden(t, &p, a->row, j) || !isfinite(v))
				continue;
			if (v > *hi)
				*hi = v;
			if (v < *lo)
				*lo = v;
		}
	}
	if (*hi - *lo <= 0)
		*hi = 1;
}

/* An axis label: weights short (".42", "1"), other values in at most
 * AXIS_LABEL_MAX columns. */
static void axis_label(char *buf, size_t size, double v, bool weights)
{
	if (weights && v >= 0.995)
		snprintf(buf, size, "1");
	else if (weights)
		snprintf(buf, size, ".%02d", (int)lround(v * 100));
	else {
		/* 4 columns when they say enough ("9.26", "-10"), else 5 */
		int w = av_cell_decimals(fabs(v), v < 0, 4) >= 0 ? 4 : AXIS_LABEL_MAX;
		av_cell_format(buf, size, v, av_cell_decimals(fabs(v), v < 0, w), w);
		av_cell_minus(buf, size);
	}
}

/* The columns a value under a bar needs. */
static int value_width(bool weights, double lo, double hi)
{
	if (weights)
		return 3;   /* ".42" */
	double maxabs = hi > -lo ? hi : -lo;
	int w = 3;
	while (w < 8 && av_cell_decimals(maxabs, lo < 0, w) < 1)
		w++;
	return w;
}

/* The key of head h's largest value in the query's row (rp), or -1 when
 * every key is hidden. */
static int largest_key(const struct av_app *a, const struct av_part *rp)
{
	const struct av_trace *t = &a->s->trace;
	int i = a->row, best = -1;
	for (int j = 0; j < t->m; j++)
		if (!av_part_hidden(t, rp, i, j) &&
		    (best < 0 || av_part_at(rp, i, j) > av_part_at(rp, i, best)))
			best = j;
	return best;
}

/* The title of head h's tile, richest first: "▶head 0 → 2 sat 0.42",
 * "▶head 0 → sat 0.42", "▶head 0 → sat", "▶head 0", "▶h0". */
#define TITLE_LEVELS 5
static void make_titles(const struct av_app *a, const struct av_part *rp, int h,
			char title[TITLE_LEVELS][192])
{
	const struct av_trace *t = &a->s->trace;
	const bool utf8 = av_draw_utf8();
	int i = a->row, best = largest_key(a, rp);
	const char *mark = h == a->head ? (utf8 ? "▶" : ">") : " ", *arrow = utf8 ? "→" : "->";
	if (best >= 0) {
		const char *word = av_heads_token(t, AV_AXIS_KEY, best);
		/* the minus as every number on the screen writes it (U+2212) */
		char top[32];
		snprintf(top, sizeof(top), "%.2f", av_part_at(rp, i, best));
		av_cell_minus(top, sizeof(top));
		snprintf(title[0], sizeof(title[0]), _("%shead %d %s %d %s %s"), mark, h, arrow,
			 best, word, top);
		snprintf(title[1], sizeof(title[1]), _("%shead %d %s %s %s"), mark, h, arrow, word,
			 top);
		snprintf(title[2], sizeof(title[2]), _("%shead %d %s %s"), mark, h, arrow, word);
	} else {
		for (int k = 0; k < 3; k++)
			snprintf(title[k], sizeof(title[k]), _("%shead %d"), mark, h);
	}
	snprintf(title[3], sizeof(title[3]), _("%shead %d"), mark, h);
	snprintf(title[4], sizeof(title[4]), "%sh%d", mark, h);
}

/* The title's form that names the largest key and its value ("→ sat
 * 0.42"), and the one that names the key alone ("→ sat"): the richer
 * forms name them too. */
#define TITLE_WITH_VALUE 1
#define TITLE_WITH_KEY 2

/* The row under a narrow title naming the largest key, richest first:
 * "→ 2 sat 0.42", "→ sat 0.42", "→ 2 0.42", "→2 .42" (empty when every
 * key is hidden). */
#define ARGMAX_LEVELS 4
static void make_argmax_rows(const struct av_app *a, const struct av_part *rp,
			     char row[ARGMAX_LEVELS][192])
{
	const bool utf8 = av_draw_utf8();
	const char *arrow = utf8 ? "→" : "->";
	int best = largest_key(a, rp);
	for (int k = 0; k < ARGMAX_LEVELS; k++)
		row[k][0] = '\0';
	if (best < 0)
		return;
	const char *word = av_heads_token(&a->s->trace, AV_AXIS_KEY, best);
	double v = av_part_at(rp, a->row, best);
	char top[32], brief[32];
	snprintf(top, sizeof(top), "%.2f", v);
	av_cell_minus(top, sizeof(top));
	if (rp->kind == AV_PART_WEIGHTS) {
		av_heads_weight_text(brief, sizeof(brief), v, 3);
	} else {
		snprintf(brief, sizeof(brief), "%.1f", v);
		av_cell_minus(brief, sizeof(brief));
	}
	snprintf(row[0], sizeof(row[0]), "%s %d %s %s", arrow, best, word, top);
	snprintf(row[1], sizeof(row[1]), "%s %s %s", arrow, word, top);
	snprintf(row[2], sizeof(row[2]), "%s %d %s", arrow, best, top);
	snprintf(row[3], sizeof(row[3]), "%s%d %s", arrow, best, brief);
}

/* The widest of the heads' titles that name their largest key and value
 * (TITLE_WITH_VALUE): tiles narrower than that need the argmax row; and of
 * those that name the key (TITLE_WITH_KEY). */
static void title_widths(const struct av_app *a, struct title_widths *tw)
{
	tw->title_w = tw->key_w = 0;
	for (int h = 0; h < a->s->trace.heads; h++) {
		struct av_part rp = row_part(a, h);
		char title[TITLE_LEVELS][192];
		make_titles(a, &rp, h, title);
		if (av_text_width(title[TITLE_WITH_VALUE]) > tw->title_w)
			tw->title_w = av_text_width(title[TITLE_WITH_VALUE]);
		if (av_text_width(title[TITLE_WITH_KEY]) > tw->key_w)
			tw->key_w = av_text_width(title[TITLE_WITH_KEY]);
	}
}

static void plan_bars(const struct av_app *a, int width, int height, struct bars_plan *best)
{
	const struct av_trace *t = &a->s->trace;
	int H = t->heads, m = t->m;
	long best_s[N_SCORE];
	for (int i = 0; i < N_SCORE; i++)
		best_s[i] = -1000;
	memset(best, 0, sizeof(*best));
	double lo, hi;
	av_heads_bars_range(a, &lo, &hi);
	bool weights = row_part(a, 0).kind == AV_PART_WEIGHTS;
	char top[32], bottom[32];
	axis_label(top, sizeof(top), hi, weights);
	axis_label(bottom, sizeof(bottom), lo, weights);
	int axis_w = 1 + (av_text_width(top) > av_text_width(bottom) ? av_text_width(top)
								       : av_text_width(bottom));
	int val_w = value_width(weights, lo, hi);
	struct title_widths tw;
	title_widths(a, &tw);
	/* every number of rows of heads; all of them on the screen, or fewer
	 * and taller (many heads: Tab pages them) */
	for (int g = 1; g <= H; g++) {
		for (int shown = g; shown >= 1; shown--) {
			if (shown < g && shown * 4 > height)
				continue;
			struct bars_plan p;
			memset(&p, 0, sizeof(p));
			av_heads_arrange(H, g, shown, width, height, 4, a->head, &p.ar);
			plan_one(m, a->heads_cells, axis_w, val_w, &tw, &p);
			long s[N_SCORE];
			score(m, H, a->heads_cells, &p, s);
			if (av_heads_score_better(s, best_s, N_SCORE)) {
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

/* The piece of a bar rising units eighths of a row above the zero line,
 * at row level (0 = the row just above it). */
static const char *up_glyph(double units, int level, bool utf8)
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

/* The piece of a bar hanging units eighths below the zero line, at depth
 * (0 = the row just below it); Unicode has no upper eighths but ▔ and ▀. */
static const char *down_glyph(double units, int depth, bool utf8)
{
	int in_cell = (int)lround(units - 8.0 * depth);
	if (in_cell >= 6)
		return utf8 ? "█" : "#";
	if (in_cell >= 3)
		return utf8 ? "▀" : "=";
	if (in_cell >= 1)
		return utf8 ? "▔" : "-";
	return " ";
}

/* Key j's label in the bars' form (av_heads_key_form). */
static void key_label(const struct av_trace *t, int j, enum av_heads_key_form form, int width,
		      char *out, size_t size)
{
	if (width >= 2) {
		av_heads_key_label(t, j, form, width, out, size);
		return;
	}
	char ruler[8];   /* 0123456789012... */
	snprintf(ruler, sizeof(ruler), "%d", j % 10);
	av_heads_fit(out, size, ruler, width);
}

struct bars_ctx {
	struct av_app *a;
	WINDOW *w;
	const struct bars_plan *p;
	double lo, hi;          /* the y axis */
	int above;              /* rows above the zero line (the rest below) */
	bool weights;
	int decimals;           /* of the values, when not weights */
	enum av_heads_key_form key_form;   /* how the keys are labelled */
	const int (*marks)[2];  /* the lesson step's cells (av_lesson_ui_marks) */
	int n_marks;
	int title_level;        /* the tiles' title form (form_level) */
	int argmax_level;       /* and the form of the row under it */
};

static void draw_axis(const struct bars_ctx *bc, int y0, int x0)
{
	const struct bars_plan *p = bc->p;
	if (p->axis_w == 0)
		return;
	attr_t dim = av_colors_el(&bc->a->colors, AV_EL_DIM);
	const bool utf8 = av_draw_utf8();
	char top[32], bottom[32];
	axis_label(top, sizeof(top), bc->hi, bc->weights);
	axis_label(bottom, sizeof(bottom), bc->lo, bc->weights);
	/* "0" beside the zero line: the row above it, or below at the top */
	int zero_row = bc->above > 0 ? bc->above - 1 : 0;
	for (int k = 0; k < p->body; k++) {
		int y = y0 + 1 + k;
		const char *lab = "";
		if (k == 0)
			lab = bc->above > 0 ? top : "0";
		else if (k == p->body - 1)
			lab = bc->above < p->body ? bottom : "0";
		else if (k == zero_row)
			lab = "0";
		int lw = av_text_width(lab);
		av_heads_put(bc->w, y, x0 + p->axis_w - 1 - lw, lab, lw, dim);
		av_heads_put(bc->w, y, x0 + p->axis_w - 1, utf8 ? "│" : "|", 1, dim);
	}
}

/* The richest form every head's tile has room for, of the titles
 * (TITLE_LEVELS) or, with argmax, of the rows under them (ARGMAX_LEVELS):
 * one form for all (a short word's tile said "head 4 → 3 on 0.23" beside
 * "head 0 → mats 0.24", and "3 on" read as a word). The forms get shorter
 * level by level, so the longest of the heads' own choices fits them all. */
static int form_level(const struct bars_ctx *bc, bool argmax)
{
	int content = bc->p->ar.tile_w - 1, level = 0;
	int levels = argmax ? ARGMAX_LEVELS : TITLE_LEVELS;
	for (int h = 0; h < bc->a->s->trace.heads; h++) {
		struct av_part rp = row_part(bc->a, h);
		char form[TITLE_LEVELS > ARGMAX_LEVELS ? TITLE_LEVELS : ARGMAX_LEVELS][192];
		if (argmax)
			make_argmax_rows(bc->a, &rp, form);
		else
			make_titles(bc->a, &rp, h, form);
		while (level < levels - 1 && av_text_width(form[level]) > content)
			level++;
	}
	return level;
}

/* The title, and under it the row naming the largest key when the plan
 * has one (argmax_row). */
static void draw_title(const struct bars_ctx *bc, const struct av_part *rp, int h, int y0,
		       int x0)
{
	char title[TITLE_LEVELS][192];
	make_titles(bc->a, rp, h, title);
	/* form_level found the form that fits every tile, this one too */
	int content = bc->p->ar.tile_w - 1;
	attr_t at = av_colors_el(&bc->a->colors, h == bc->a->head ? AV_EL_HIGHLIGHT : AV_EL_TITLE);
	av_heads_put(bc->w, y0, x0, title[bc->title_level], content, at);
	if (bc->p->argmax_row) {
		char row[ARGMAX_LEVELS][192];
		make_argmax_rows(bc->a, rp, row);
		av_heads_put(bc->w, y0 + 1, x0, row[bc->argmax_level], content, at);
	}
}

/* One key's bar, its value and its label. */
static void draw_bar(const struct bars_ctx *bc, const struct av_part *rp, int h, int j, int x,
		     int y0)
{
	struct av_app *a = bc->a;
	const struct av_trace *t = &a->s->trace;
	struct av_colors *c = &a->colors;
	const struct bars_plan *p = bc->p;
	const bool utf8 = av_draw_utf8();
	int i = a->row, bw = p->slot - 1, below = p->body - bc->above;
	double v = av_part_at(rp, i, j);
	bool hidden = av_part_hidden(t, rp, i, j) || !isfinite(v);
	bool cur = j == a->col;
	attr_t at = av_colors_el(c, hidden ? AV_EL_MASKED : cur ? AV_EL_HIGHLIGHT : AV_EL_NORMAL);
	double up = !hidden && v > 0 ? v / bc->hi * bc->above * 8 : 0;
	double down = !hidden && v < 0 && bc->lo < 0 ? v / bc->lo * below * 8 : 0;
	/* a hidden key: its glyph on the zero line */
	int hidden_row = bc->above > 0 ? bc->above - 1 : 0;
	for (int k = 0; k < p->body; k++) {
		const char *g = hidden ? (k == hidden_row ? (utf8 ? "╳" : "x") : " ")
			       : k < bc->above ? up_glyph(up, bc->above - 1 - k, utf8)
			       : down_glyph(down, k - bc->above, utf8);
		for (int g2 = 0; g2 < bw; g2++)
			av_heads_put(bc->w, y0 + 1 + k, x + g2, g, 1, at);
	}
	int y = y0 + 1 + p->body;
	if (p->values) {
		char val[32];
		if (hidden && rp->masked_as_inf)
			snprintf(val, sizeof(val), "%s", utf8 ? "−∞" : "-inf");
		else if (hidden)
			snprintf(val, sizeof(val), "%s", utf8 ? "╳" : "x");
		else if (bc->weights)
			av_heads_weight_text(val, sizeof(val), v, bw);
		else
			av_cell_format(val, sizeof(val), v, bc->decimals, bw);
		av_cell_minus(val, sizeof(val));   /* a no-op but for a number */
		if (av_text_width(val) > bw)
			snprintf(val, sizeof(val), "%s", utf8 ? "╳" : "x");
		int vw = av_text_width(val);
		av_heads_put(bc->w, y++, x + bw - vw, val, vw, av_colors_el(c, AV_EL_DIM));
	}
	/* a lesson step's cell (this query, key j): its label in brackets,
	 * bold and underlined, so it shows without colour too */
	bool marked = av_heatmap_marked(rp, bc->marks, bc->n_marks, i, j);
	char lab[64];
	if (marked && bw >= 3) {
		char inner[48];
		key_label(t, j, bc->key_form, bw - 2, inner, sizeof(inner));
		snprintf(lab, sizeof(lab), "[%s]", inner);
	} else {
		key_label(t, j, bc->key_form, bw, lab, sizeof(lab));
	}
	attr_t la = av_colors_el(c, AV_EL_LABEL);
	if (t->key_hidden[j])
		la = av_colors_el(c, AV_EL_MASKED);
	if (cur)
		la = av_colors_el(c, h == a->head ? AV_EL_CURSOR : AV_EL_HIGHLIGHT);
	if (marked)
		la |= A_BOLD | A_UNDERLINE;
	av_heads_put(bc->w, y, x, lab, bw, la);
}

static void draw_tile(const struct bars_ctx *bc, int h, int y0, int x0)
{
	const struct av_trace *t = &bc->a->s->trace;
	const struct bars_plan *p = bc->p;
	struct av_part rp = row_part(bc->a, h);
	draw_title(bc, &rp, h, y0, x0);
	/* the bars start under the title, or under its argmax row */
	int top = p->argmax_row ? y0 + 1 : y0;
	draw_axis(bc, top, x0);
	for (int k = 0; k < p->vis_keys; k++) {
		int j = p->first_key + k;
		if (j >= t->m)
			break;
		draw_bar(bc, &rp, h, j, x0 + p->axis_w + k * p->slot, top);
	}
}

void av_heads_bars_draw(struct av_app *a, WINDOW *w, struct av_heads_page *pg)
{
	const struct av_trace *t = &a->s->trace;
	struct bars_plan p;
	plan_bars(a, getmaxx(w), getmaxy(w), &p);
	fill_page(a, &p, pg);
	/* one scale for every head: the query's row anywhere */
	struct bars_ctx bc = { .a = a, .w = w, .p = &p };
	bc.n_marks = av_lesson_ui_marks(a, &bc.marks);
	av_heads_bars_range(a, &bc.lo, &bc.hi);
	bc.weights = row_part(a, 0).kind == AV_PART_WEIGHTS;
	bc.above = bc.lo < 0 ? (int)lround(p.body * bc.hi / (bc.hi - bc.lo)) : p.body;
	if (bc.above > p.body)
		bc.above = p.body;
	double maxabs = bc.hi > -bc.lo ? bc.hi : -bc.lo;
	bc.decimals = av_cell_decimals(maxabs, bc.lo < 0, p.slot - 1);
	bc.title_level = form_level(&bc, false);
	bc.argmax_level = form_level(&bc, true);
	/* a marked key's word has two columns less, inside its brackets ("0
	 * the" cut there keeps its index) */
	bc.key_form = av_heads_key_form(t, p.slot - 1);
	for (int k = 0; k < bc.n_marks && bc.key_form == AV_HEADS_KEY_WORDS; k++)
		if (bc.marks[k][0] == a->row && bc.marks[k][1] < t->m && p.slot - 1 >= 3 &&
		    av_heads_key_falls_back(t, bc.marks[k][1], p.slot - 3))
			bc.key_form = AV_HEADS_KEY_INDICES;
	for (int h = 0; h < t->heads; h++) {
		int gr = h / p.ar.per_row, gc = h % p.ar.per_row;
		if (gr < p.ar.first_grid_row || gr >= p.ar.first_grid_row + p.ar.visible_grid_rows)
			continue;
		draw_tile(&bc, h, (gr - p.ar.first_grid_row) * p.ar.tile_h, gc * p.ar.tile_w);
	}
}
