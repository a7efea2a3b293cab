/* view_heads.c: every head at once. Two faces, cycled with 'a': the grid,
 * one small heatmap per head (heads_grid.c, seed 000's 2x4 grid), and the
 * bars, one query's weights over the keys per head (heads_bars.c, seed
 * 000's §5.2 plot). This file: which stage the grid shows, the title with
 * the paging state, the legend, the inspector of the selected head's cell,
 * and the keys.
 *
 * The grid shows the per-head quantity of the stepper's stage, so the
 * header's stage and the body agree: Q_h, K_h and V_h at the projection,
 * then the scores, scaled, masked and weights matrices, then context_h.
 * The tokens, embedding and output stages have no per-head data: the grid
 * says so in its title and shows the nearest stage that has (the
 * projection, or the context). The bars are one query's row: of the
 * scores, scaled, masked or weights matrix at those stages, and of the
 * weights (the tutorial's plot), said in the title, at the others, which
 * have no per-head row over the keys. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/inspector.h"
#include "ui/views/figview.h"
#include "ui/views/view_heads_internal.h"
#include "utf8.h"
#include "util.h"

/* --- helpers shared by the two faces ------------------------------------- */

int av_heads_put(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr)
{
	if (!w || y < 0 || y >= getmaxy(w) || x < 0 || x >= getmaxx(w))
		return 0;
	if (maxw > getmaxx(w) - x)
		maxw = getmaxx(w) - x;
	return av_put(w, y, x, s, maxw, attr);
}

void av_heads_fill(WINDOW *w, int y, int x, int n, attr_t attr)
{
	if (!w || y < 0 || y >= getmaxy(w) || x < 0 || x >= getmaxx(w))
		return;
	if (n > getmaxx(w) - x)
		n = getmaxx(w) - x;
	av_fill(w, y, x, n, attr);
}

void av_heads_key_index_if_cut(char *out, size_t size, const char *token, int key, int width)
{
	if (strcmp(out, token) == 0 || (*out && width >= 4))
		return;   /* whole, or cut with "…" saying so */
	char index[16];
	snprintf(index, sizeof(index), "%d", key);
	if (av_text_width(index) <= width)
		snprintf(out, size, "%s", index);
}

bool av_heads_key_falls_back(const struct av_trace *t, int key, int width)
{
	const char *token = av_heads_token(t, AV_AXIS_KEY, key);
	char fitted[160], label[160];
	av_heads_fit(fitted, sizeof(fitted), token, width);
	snprintf(label, sizeof(label), "%s", fitted);
	av_heads_key_index_if_cut(label, sizeof(label), token, key, width);
	return strcmp(label, fitted) != 0;
}

enum av_heads_key_form av_heads_key_form(const struct av_trace *t, int width)
{
	bool numbered = true, words = true;
	for (int j = 0; j < t->m; j++) {
		const char *token = av_heads_token(t, AV_AXIS_KEY, j);
		char label[160], other[160];
		snprintf(label, sizeof(label), "%d %s", j, token);
		numbered &= av_text_width(label) <= width;
		words &= !av_heads_key_falls_back(t, j, width);
		av_heads_fit(label, sizeof(label), token, width);
		for (int k = j + 1; k < t->m && words; k++) {
			const char *next = av_heads_token(t, AV_AXIS_KEY, k);
			av_heads_fit(other, sizeof(other), next, width);
			words = strcmp(label, other) != 0;
		}
	}
	return numbered ? AV_HEADS_KEY_NUMBERED : words ? AV_HEADS_KEY_WORDS : AV_HEADS_KEY_INDICES;
}

void av_heads_key_label(const struct av_trace *t, int key, enum av_heads_key_form form, int width,
			char *out, size_t size)
{
	char raw[160];
	const char *token = av_heads_token(t, AV_AXIS_KEY, key);
	if (form == AV_HEADS_KEY_NUMBERED)
		snprintf(raw, sizeof(raw), "%d %s", key, token);
	else if (form == AV_HEADS_KEY_INDICES)
		snprintf(raw, sizeof(raw), "%d", key);
	else
		snprintf(raw, sizeof(raw), "%s", token);
	av_heads_fit(out, size, raw, width);
	if (form == AV_HEADS_KEY_WORDS)
		av_heads_key_index_if_cut(out, size, raw, key, width);
}

void av_heads_fit(char *out, size_t size, const char *s, int width)
{
	out[0] = '\0';
	if (width <= 0 || size == 0)
		return;
	if (av_text_width(s) <= width) {
		snprintf(out, size, "%s", s);
		return;
	}
	/* keep whole characters that fit in width (or width - 1 and "…") */
	bool ellipsis = width >= 4;
	int limit = ellipsis ? width - 1 : width, used = 0;
	size_t off = 0, len = strlen(s), n = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		if (k <= 0)
			break;
		char one[8];
		memcpy(one, s + off, (size_t)k);
		one[k] = '\0';
		int cw = av_text_width(one);
		if (used + cw > limit || n + (size_t)k + 4 >= size)
			break;
		memcpy(out + n, s + off, (size_t)k);
		n += (size_t)k;
		used += cw;
		off += (size_t)k;
	}
	out[n] = '\0';
	if (ellipsis)
		snprintf(out + n, size - n, "%s", av_draw_utf8() ? "…" : "~");
}

void av_heads_weight_text(char *buf, size_t size, double v, int width)
{
	if (width >= 5)
		snprintf(buf, size, "%.3f", v);
	else if (width == 4)
		snprintf(buf, size, "%.2f", v);
	else if (width == 3 && v < 0.995)
		snprintf(buf, size, ".%02d", (int)lround(v * 100));
	else if (width == 3)
		snprintf(buf, size, "1.0");
	else
		buf[0] = '\0';
	/* "-0.000": a rounding of -0 reads as a sign error */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}

const char *av_heads_token(const struct av_trace *t, enum av_axis axis, int i)
{
	const struct av_tokens *tk = axis == AV_AXIS_KEY && t->cfg.mode == AV_MODE_CROSS ?
				     &t->source_tokens : &t->tokens;
	return i >= 0 && i < tk->n ? tk->text[i] : "";
}

int av_heads_page_start(int cur, int per)
{
	if (per < 1)
		per = 1;
	if (cur < 0)
		cur = 0;
	return cur / per * per;
}

void av_heads_arrange(int heads, int grid_rows, int shown, int width, int height, int min_h,
		      int selected_head, struct av_heads_arrangement *ar)
{
	memset(ar, 0, sizeof(*ar));
	if (heads < 1)
		heads = 1;
	if (grid_rows < 1)
		grid_rows = 1;
	if (shown < 1)
		shown = 1;
	ar->per_row = (heads + grid_rows - 1) / grid_rows;
	/* tiles narrower than this show nothing readable: more rows of heads
	 * (Tab pages them) */
	int most = width / AV_HEADS_TILE_MIN_W;
	if (ar->per_row > most)
		ar->per_row = most > 1 ? most : 1;
	ar->grid_rows = (heads + ar->per_row - 1) / ar->per_row;
	ar->tile_w = width / ar->per_row;
	ar->tile_h = height / (shown < ar->grid_rows ? shown : ar->grid_rows);
	if (ar->tile_h < min_h)
		ar->tile_h = min_h < height ? min_h : height;
	if (ar->tile_h < 1)
		ar->tile_h = 1;
	ar->visible_grid_rows = height / ar->tile_h;
	if (ar->visible_grid_rows > ar->grid_rows)
		ar->visible_grid_rows = ar->grid_rows;
	if (ar->visible_grid_rows < 1)
		ar->visible_grid_rows = 1;
	ar->first_grid_row = av_heads_page_start(selected_head / ar->per_row,
						 ar->visible_grid_rows);
	if (ar->first_grid_row + ar->visible_grid_rows > ar->grid_rows)
		ar->first_grid_row = ar->grid_rows - ar->visible_grid_rows;
}

int av_heads_visible(const struct av_heads_arrangement *ar, int heads)
{
	int n = ar->per_row * ar->visible_grid_rows;
	return n < heads ? n : heads;
}

bool av_heads_score_better(const long *a, const long *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] > b[i];
	return false;
}

/* --- what the grid shows ------------------------------------------------- */

enum av_stage av_heads_grid_stage(enum av_stage st, bool *substituted)
{
	*substituted = false;
	switch (st) {
	case AV_STAGE_PROJECTION: case AV_STAGE_SCORES: case AV_STAGE_SCALED:
	case AV_STAGE_MASKED: case AV_STAGE_SOFTMAX: case AV_STAGE_CONTEXT:
		return st;
	case AV_STAGE_TOKENS: case AV_STAGE_EMBEDDING:
		*substituted = true;
		return AV_STAGE_PROJECTION;
	case AV_STAGE_OUTPUT: case AV_STAGE_COUNT:
		break;
	}
	*substituted = true;
	return AV_STAGE_CONTEXT;
}

int av_heads_parts(const struct av_trace *t, enum av_stage st, int head,
		   struct av_part shown[AV_MAX_PARTS], struct av_part full[AV_MAX_PARTS],
		   int col0[AV_MAX_PARTS])
{
	static const char *const head_names[] = { "Q_h", "K_h", "V_h" };
	struct av_part parts[AV_MAX_PARTS];
	int n = av_ui_stage_parts(t, st, head, parts), count = 0;
	if (head < 0 || head >= t->heads)
		head = 0;
	switch (st) {
	case AV_STAGE_PROJECTION:
		/* the head's columns of Q, K and V: (n or m) x dh each */
		for (int i = 0; i < n && i < 3; i++) {
			full[count] = parts[i];
			shown[count] = parts[i];
			shown[count].name = head_names[i];
			shown[count].data += (size_t)head * t->head_dim;
			shown[count].cols = t->head_dim;
			shown[count].hl_start = shown[count].hl_len = 0;
			col0[count++] = head * t->head_dim;
		}
		return count;
	case AV_STAGE_CONTEXT:
		/* context_h, the head's own output (the stepper shows the
		 * weights and V_h beside it) */
		for (int i = 0; i < n; i++) {
			if (parts[i].tensor == AV_T_CONTEXT) {
				full[0] = shown[0] = parts[i];
				col0[0] = 0;
				return 1;
			}
		}
		return 0;
	default:
		if (n < 1)
			return 0;
		full[0] = shown[0] = parts[0];
		col0[0] = 0;
		return 1;
	}
}

/* The grid's parts for head h at the stage it shows. */
static int grid_parts(const struct av_app *a, int h, struct av_part shown[AV_MAX_PARTS],
		      struct av_part full[AV_MAX_PARTS], int col0[AV_MAX_PARTS])
{
	bool sub;
	return av_heads_parts(&a->s->trace, av_heads_grid_stage(a->stage, &sub), h, shown, full,
			      col0);
}

/* The matrix under the cursor in head h: as drawn, and the stage's whole
 * part with the cursor's column in it (for the inspector). */
struct cursor_cell {
	struct av_part shown, full;
	int col_shown, col_full;
};

static bool cursor_cell(const struct av_app *a, int h, struct cursor_cell *cc)
{
	struct av_part s[AV_MAX_PARTS], f[AV_MAX_PARTS];
	int col0[AV_MAX_PARTS];
	if (a->heads_bars) {
		bool sub;
		av_ui_stage_parts(&a->s->trace, av_heads_bars_stage(a->stage, &sub), h, f);
		cc->shown = cc->full = f[0];
		cc->col_shown = cc->col_full = a->col;
		return true;
	}
	int n = grid_parts(a, h, s, f, col0);
	if (n == 0)
		return false;
	int p, c;
	av_heatmap_locate(s, n, a->col, &p, &c);
	cc->shown = s[p];
	cc->full = f[p];
	cc->col_shown = c;
	cc->col_full = col0[p] + c;
	return true;
}

/* Keeps the cursor on the matrices and notes the tokens under it (for the
 * token strip and x). */
static void clamp(struct av_app *a)
{
	const struct av_trace *t = &a->s->trace;
	int cols = t->m;
	if (!a->heads_bars) {
		struct av_part s[AV_MAX_PARTS], f[AV_MAX_PARTS];
		int col0[AV_MAX_PARTS];
		cols = av_heatmap_total_cols(s, grid_parts(a, a->head, s, f, col0));
	}
	if (a->col >= cols)
		a->col = cols - 1;
	if (a->col < 0)
		a->col = 0;
	struct cursor_cell cc;
	bool any = cursor_cell(a, a->head, &cc);
	int rows = any ? cc.shown.rows : t->n;
	if (a->row >= rows)
		a->row = rows - 1;
	if (a->row < 0)
		a->row = 0;
	a->sel_query = a->sel_key = -1;
	if (!any)
		return;
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	if (cc.shown.row_axis == AV_AXIS_QUERY) {
		a->sel_query = a->row;
		if (!cross)
			a->sel_key = a->row;
	} else if (cc.shown.row_axis == AV_AXIS_KEY) {
		a->sel_key = a->row;
	}
	if (cc.shown.col_axis == AV_AXIS_KEY)
		a->sel_key = cc.col_shown;
}

/* --- drawing ------------------------------------------------------------- */

/* Appends piece to buf (size bytes) when it fits width columns with what
 * buf has: a page's place is said whole or not at all ("heads 0…" read
 * as another head). */
static void add_whole(char *buf, size_t size, const char *piece, int width)
{
	if (av_text_width(buf) + av_text_width(piece) <= width &&
	    strlen(buf) + strlen(piece) < size)
		strcat(buf, piece);
}

/* Which columns, rows and heads the page shows, each whole while it fits
 * width columns, the columns first. */
static void page_text(const struct av_app *a, const struct av_heads_page *pg, char *buf,
		      size_t size, int width)
{
	const struct av_trace *t = &a->s->trace;
	const bool utf8 = av_draw_utf8();
	char piece[128];
	buf[0] = '\0';
	if (pg->first_col > 0 || pg->last_col < pg->total_cols - 1) {
		snprintf(piece, sizeof(piece), a->heads_bars ? _("%skeys %d-%d of %d%s  ")
			 : _("%scols %d-%d of %d%s  "),
			 pg->first_col > 0 ? (utf8 ? "◀ " : "< ") : "",
			 pg->first_col, pg->last_col, pg->total_cols,
			 pg->last_col < pg->total_cols - 1 ? (utf8 ? " ▶" : " >") : "");
		add_whole(buf, size, piece, width);
	}
	if (!a->heads_bars && (pg->first_row > 0 || pg->last_row < pg->total_rows - 1)) {
		snprintf(piece, sizeof(piece), _("rows %d-%d of %d%s%s  "), pg->first_row,
			 pg->last_row, pg->total_rows, pg->first_row > 0 ? (utf8 ? " ▲" : " ^") : "",
			 pg->last_row < pg->total_rows - 1 ? (utf8 ? " ▼" : " v") : "");
		add_whole(buf, size, piece, width);
	}
	if (pg->first_head > 0 || pg->last_head < t->heads - 1) {
		snprintf(piece, sizeof(piece), _("heads %d-%d of %d (Tab)  "), pg->first_head,
			 pg->last_head, t->heads);
		add_whole(buf, size, piece, width);
	}
}

static void draw_title(struct av_app *a, const struct av_heads_page *pg)
{
	WINDOW *w = a->w_title;
	if (!w)
		return;
	struct av_colors *c = &a->colors;
	const struct av_trace *t = &a->s->trace;
	int width = getmaxx(w);
	werase(w);
	char buf[512], keys[128];
	bool sub = false;
	enum av_stage st = a->heads_bars ? av_heads_bars_stage(a->stage, &sub)
				       : av_heads_grid_stage(a->stage, &sub);
	/* the bars: the row's quantity, as the stepper names it */
	const char *what = st == AV_STAGE_SOFTMAX ? _("softmax weights")
			   : _(av_ui_stage_titles[st]);
	if (a->heads_bars && sub)
		snprintf(buf, sizeof(buf), _("all heads: %s of query %d '%s' (no per-head row at %s)"),
			 what, a->row, t->tokens.text[a->row], _(av_ui_stage_titles[a->stage]));
	else if (a->heads_bars) {
		snprintf(buf, sizeof(buf), _("all heads: %s of query %d '%s' over the keys"), what,
			 a->row, t->tokens.text[a->row]);
		/* which query, whole, before what of it ("all heads: softmax
		 * weights of query…" at 40 columns did not say which) */
		if (av_text_width(buf) > width)
			snprintf(buf, sizeof(buf), _("all heads: query %d '%s'"), a->row,
				 t->tokens.text[a->row]);
	}
	/* the projection's per-head matrices are named, the formula after
	 * names only Q, K and V; the context's formula begins with its name
	 * ("all heads: context context_h  context_h = ..." said it thrice) */
	else if (sub && st == AV_STAGE_PROJECTION)
		snprintf(buf, sizeof(buf), _("all heads: %s %s (%s has no per-head data)"),
			 _(av_ui_stage_titles[st]), "Q_h K_h V_h", _(av_ui_stage_titles[a->stage]));
	else if (sub)
		snprintf(buf, sizeof(buf), _("all heads: %s (%s has no per-head data)"),
			 _(av_ui_stage_titles[st]), _(av_ui_stage_titles[a->stage]));
	else
		snprintf(buf, sizeof(buf), _("all heads: %s%s"), _(av_ui_stage_titles[st]),
			 st == AV_STAGE_PROJECTION ? " Q_h K_h V_h" : "");
	/* cut after whole words ("(toke…" of "(tokens has ...)" said
	 * nothing; QA at 40x30), the formula only where some of it fits */
	int x = av_put_words(w, 0, 0, buf, width, av_colors_el(c, AV_EL_TITLE));
	char *formula = av_insp_formula(t, st, a->head);
	if (av_text_width(buf) <= width && x + 8 < width) {
		x += av_heads_put(w, 0, x, "  ", width - x, A_NORMAL);
		av_put_words(w, 0, x, formula, width - x, av_colors_el(c, AV_EL_FORMULA));
	}
	free(formula);
	if (getmaxy(w) < 2)
		return;
	page_text(a, pg, buf, sizeof(buf), width);
	x = av_heads_put(w, 1, 0, buf, width, av_colors_el(c, AV_EL_HIGHLIGHT));
	if (a->heads_bars) {
		double lo, hi;
		av_heads_bars_range(a, &lo, &hi);
		char from[32], to[32];
		snprintf(from, sizeof(from), lo == 0 ? "0" : "%.2f", lo);
		snprintf(to, sizeof(to), "%.2f", hi);
		av_cell_minus(from, sizeof(from));   /* U+2212, as the axis labels */
		av_cell_minus(to, sizeof(to));
		snprintf(buf, sizeof(buf), st == AV_STAGE_SOFTMAX
			 ? _("bar height = weight, axis %s to %s (query %d in every head)")
			 : _("bar height = value, axis %s to %s (query %d in every head)"),
			 from, to, a->row);
		/* the axis whole where the rest does not fit ("axis 0 to…"
		 * at 40 columns did not say where the bars end) */
		if (av_text_width(buf) > width - x)
			snprintf(buf, sizeof(buf), st == AV_STAGE_SOFTMAX
				 ? _("bar height = weight, %s to %s") : _("bar height = value, %s to %s"),
				 from, to);
		/* beside the page's keys */
		if (av_text_width(buf) > width - x)
			snprintf(buf, sizeof(buf), _("bars %s to %s"), from, to);
		snprintf(keys, sizeof(keys), "%s", _("; up/down: query; z: values; a: back"));
	} else {
		snprintf(buf, sizeof(buf), "%s", st == AV_STAGE_PROJECTION
			 ? _("one heatmap per head: tokens down, dimensions across")
			 : st == AV_STAGE_CONTEXT
			 ? _("one heatmap per head: queries down, dimensions across")
			 : _("one heatmap per head: queries down, keys across"));
		/* TRANSLATORS: the %s is "colour only" (or, on a screen without
		 * colour, "shading only") or "numbers": what z shows */
		snprintf(keys, sizeof(keys), _("; z: %s; a: bars"), !pg->numbers ? _("numbers")
			 : c->color ? _("colour only") : _("shading only"));
	}
	/* not its first words alone: "one…" after the page's place said
	 * nothing; cut after a whole word */
	size_t clause = strcspn(buf, ",:;");
	const char *wide_mark[] = { "，", "：", "；" };
	for (int k = 0; k < 3; k++) {
		const char *at = strstr(buf, wide_mark[k]);
		if (at && (size_t)(at - buf) < clause)
			clause = (size_t)(at - buf);
	}
	char *first = av_strndup(buf, clause);
	bool whole = av_text_width(buf) <= width - x;
	if (av_text_width(first) + 1 < width - x)   /* with its mark, or a "…" */
		x += av_put_words(w, 1, x, buf, width - x, av_colors_el(c, AV_EL_DIM));
	free(first);
	/* the keys only whole (the status line names them too): cut, the
	 * row ended "z:…" at 80 columns */
	if (whole && x + av_text_width(keys) <= width)
		av_heads_put(w, 1, x, keys, width - x, av_colors_el(c, AV_EL_DIM));
}

static void draw_legend(struct av_app *a, const struct av_heads_page *pg)
{
	WINDOW *w = a->w_legend;
	if (!w)
		return;
	struct av_colors *c = &a->colors;
	const struct av_trace *t = &a->s->trace;
	werase(w);
	if (a->heads_bars) {
		bool sub;
		enum av_stage st = av_heads_bars_stage(a->stage, &sub);
		/* with keys off the page the tallest bar shown need not be the
		 * largest: the arrow in each tile names it (heads_bars.c) */
		bool paged = pg->first_col > 0 || pg->last_col < pg->total_cols - 1;
		char text[256];
		const char *arrow = av_draw_utf8() ? "→" : "->";
		if (paged)
			snprintf(text, sizeof(text), st == AV_STAGE_SOFTMAX
				 /* TRANSLATORS: %s is the arrow "→" the tiles name it with */
				 ? _("bars: a page of each head's softmax row; %s names the key "
				     "it attends to most")
				 /* TRANSLATORS: %s is the arrow "→" the tiles name it with */
				 : _("bars: a page of each head's row; %s names the key with "
				     "the largest value"), arrow);
		else
			/* within 80 columns: "the key it atten…" lost the point */
			snprintf(text, sizeof(text), "%s", st == AV_STAGE_SOFTMAX ?
				 _("bars: the tallest in each head is the key this query "
				   "attends to most") :
				 _("bars: up from 0 or down; softmax turns the tallest into "
				   "the largest weight"));
		av_put_words(w, 0, 0, text, getmaxx(w), av_colors_el(c, AV_EL_DIM));
		return;
	}
	struct cursor_cell cc;
	if (!cursor_cell(a, a->head, &cc))
		return;
	/* the colours span the largest value of this matrix in any head */
	double range = 0;
	for (int h = 0; h < t->heads; h++) {
		struct cursor_cell ch;
		if (cursor_cell(a, h, &ch)) {
			double r = av_part_range(t, &ch.shown, NULL);
			if (r > range)
				range = r;
		}
	}
	bool any_hidden = false;
	for (size_t k = 0; k < (size_t)t->n * t->m && !any_hidden; k++)
		any_hidden = t->mask[k] == 0;
	av_legend_draw(w, 0, c, cc.shown.kind, NULL, range, cc.shown.maskable && any_hidden,
		       cc.shown.masked_as_inf);
}

/* The cursor's cell explained with its sums built to width columns (an
 * av_insp_builder; ctx is the cell). */
static void build_inspector(struct av_app *a, const void *ctx, int width, struct av_insp *in)
{
	const struct cursor_cell *cc = ctx;
	struct av_insp_weights wts;
	av_app_insp_weights(a, &wts);
	av_insp_cell_weights(in, &a->s->trace, &a->s->params, &wts, &cc->full, a->head, a->row,
			     cc->col_full, width);
	av_insp_fit_heading(in, getmaxx(a->w_insp) - 1);
}

static void draw_inspector(struct av_app *a)
{
	if (!a->w_insp)
		return;
	struct cursor_cell cc;
	if (!cursor_cell(a, a->head, &cc)) {
		werase(a->w_insp);
		return;
	}
	struct av_insp in;
	/* a sum or a row of numbers takes every row the inspector's other
	 * lines leave free, as in the stepper (it wraps at its " + "; less
	 * about a term a wrapped row may leave unused), fewer when the other
	 * lines would not fit: in one row, the context of query 5 of 6 showed
	 * one term above a blank row, and capped at three rows, a context of
	 * 64 keys at 200x60 ended "… (+30 terms)" above two blank rows */
	av_app_build_inspector(a, getmaxy(a->w_insp), 1, 0, build_inspector, &cc, &in);
	av_app_draw_inspector(a, &in);
	av_insp_free(&in);
}

static void heads_draw(struct av_app *a)
{
	clamp(a);
	struct av_heads_page pg;
	memset(&pg, 0, sizeof(pg));
	if (a->w_panel) {
		werase(a->w_panel);
		if (a->heads_bars)
			av_heads_bars_draw(a, a->w_panel, &pg);
		else
			av_heads_grid_draw(a, a->w_panel, &pg);
		a->page_cols = pg.last_col - pg.first_col + 1;
	}
	draw_title(a, &pg);
	draw_legend(a, &pg);
	draw_inspector(a);
}

/* --- keys ---------------------------------------------------------------- */

/* The page the panel shows now, as heads_draw lays it out. */
static void plan_page(struct av_app *a, struct av_heads_page *pg)
{
	memset(pg, 0, sizeof(*pg));
	int width = a->w_panel ? getmaxx(a->w_panel) : 80;
	int height = a->w_panel ? getmaxy(a->w_panel) : 10;
	if (a->heads_bars)
		av_heads_bars_plan_page(a, width, height, pg);
	else
		av_heads_grid_plan_page(a, width, height, pg);
}

/* z: numbers or colour only. The first z flips what the screen shows now
 * (numbers when they fit), so it always changes something. */
static void zoom(struct av_app *a)
{
	struct av_heads_page pg;
	if (a->heads_cells == AV_HEADS_CELLS_AUTO) {
		plan_page(a, &pg);
		a->heads_cells = pg.numbers ? AV_HEADS_CELLS_COMPACT : AV_HEADS_CELLS_NUMBERS;
	} else {
		a->heads_cells = a->heads_cells == AV_HEADS_CELLS_NUMBERS ? AV_HEADS_CELLS_COMPACT
									  : AV_HEADS_CELLS_NUMBERS;
	}
	if (a->heads_cells == AV_HEADS_CELLS_NUMBERS)
		av_app_message(a, false, a->heads_bars ? _("all heads: values under the bars")
			       : _("all heads: numbers in the cells (< > page when they do not fit)"));
	else if (a->heads_bars)
		av_app_message(a, false, _("all heads: bars only (z for values)"));
	else if (a->colors.color)
		av_app_message(a, false, _("all heads: colour only (z for numbers)"));
	else   /* "colour only" without colour: say what the glyphs show */
		/* TRANSLATORS: %s is the minus sign put after a negative
		 * cell's shading glyph ("▓−") */
		av_app_message(a, false, _("all heads: shading only, %s after it if negative (z "
			       "for numbers)"), av_draw_utf8() ? "−" : "-");
}

/* y: the cursor's head's matrix, as the stepper would pin it (the part
 * and cell of the stepper's stage; the grid's column is not the
 * stepper's). Where the grid shows another stage's matrices (context_h
 * at the output stage), there is nothing of this stage to pin. */
static void pin_cursor_cell(struct av_app *a)
{
	bool sub;
	enum av_stage shown = a->heads_bars ? av_heads_bars_stage(a->stage, &sub)
					    : av_heads_grid_stage(a->stage, &sub);
	struct cursor_cell cc;
	clamp(a);
	if (!sub && cursor_cell(a, a->head, &cc)) {
		struct av_part parts[AV_MAX_PARTS];
		int n = av_app_parts(a, parts);
		for (int i = 0; i < n; i++)
			if (parts[i].data == cc.full.data && parts[i].tensor == cc.full.tensor) {
				av_pin_stepper_part(a, i, a->row, cc.col_full);
				return;
			}
	}
	/* TRANSLATORS: "the output stage has no matrix per head: these are
	 * context's (p steps there, y pins one)" */
	av_app_message(a, false, _("the %s stage has no matrix per head: these are %s's "
				   "(p or n steps there, y pins one)"),
		       _(av_ui_stage_titles[a->stage]), _(av_ui_stage_titles[shown]));
}

/* The keys heads_key uses that read the cursor. */
static bool moves_or_zooms(enum av_action act)
{
	switch (act) {
	case AV_ACTION_LEFT: case AV_ACTION_RIGHT: case AV_ACTION_UP: case AV_ACTION_DOWN:
	case AV_ACTION_PAGE_LEFT: case AV_ACTION_PAGE_RIGHT: case AV_ACTION_ZOOM:
		return true;
	default:
		return false;
	}
}

static bool heads_key(struct av_app *a, int key, enum av_action act)
{
	(void)key;
	int page = a->page_cols > 1 ? a->page_cols : 1;
	bool paging = act == AV_ACTION_PAGE_LEFT || act == AV_ACTION_PAGE_RIGHT;
	struct av_heads_page pg;
	/* keys read before the next draw (one burst: a shorter sentence,
	 * Enter, z) find the cursor where the longer one left it: z's plan
	 * read the bars' query row past the matrix. On the matrices first,
	 * as the draw puts it. */
	if (moves_or_zooms(act))
		clamp(a);
	if (paging)
		plan_page(a, &pg);
	int col = a->col;
	switch (act) {
	case AV_ACTION_LEFT: a->col--; break;
	case AV_ACTION_RIGHT: a->col++; break;
	case AV_ACTION_UP: a->row--; break;
	case AV_ACTION_DOWN: a->row++; break;
	case AV_ACTION_PAGE_LEFT: a->col = av_heads_page_start(a->col, page) - page; break;
	case AV_ACTION_PAGE_RIGHT: a->col = av_heads_page_start(a->col, page) + page; break;
	case AV_ACTION_ZOOM: zoom(a); break;
	case AV_ACTION_NEXT_MATRIX:
	case AV_ACTION_PREV_MATRIX:
		/* one matrix per head: the next is the next head's */
		av_app_message(a, false, _("here each head has its matrix: Tab and Shift-Tab go "
			       "from head to head"));
		return true;
	case AV_ACTION_MASK_KEY:
		clamp(a);
		av_app_toggle_key(a, a->sel_key);
		return true;
	case AV_ACTION_PIN:
		pin_cursor_cell(a);
		return true;
	default:
		return false;
	}
	clamp(a);
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_TOKENS;
	/* with every column shown, < and > go to the first and last one; at
	 * that column they did nothing, without a word: said as in the stepper */
	if (paging && a->col == col && pg.first_col == 0 && pg.last_col >= pg.total_cols - 1)
		av_app_message(a, false, _("every column is on the screen: < and > page "
					   "through matrices wider than it"));
	return true;
}

const struct av_view av_view_heads = {
	.name = "heads",
	.label = N_("all heads"),
	.label_in_title = true,   /* draw_title: "all heads: %s" */
	.hints = N_("? help  a bars/back  Tab head  arrows query/key  < > page  z numbers  q quit"),
	.draw = heads_draw,
	.key = heads_key,
	.resize = NULL,
	.place_cursor = clamp,
	.export_note = N_("a figure file holds the stepper's matrices of the selected head, not "
			  "this view's every head"),
};
