/* heatmap.c: labelled matrices, the legend and cell numbers (see heatmap.h). */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "number.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/inspector.h"
#include "util.h"

#define LABEL_MAX 14      /* row label columns at most ("12 kangaroo") */
#define PART_GAP 2
#define ROW_SUM_W 8       /* " Σ 1.000" */

int av_heatmap_total_cols(const struct av_part *parts, int n_parts)
{
	int total = 0;
	for (int i = 0; i < n_parts; i++)
		total += parts[i].cols;
	return total;
}

void av_heatmap_locate(const struct av_part *parts, int n_parts, int vcol, int *part, int *col)
{
	for (int i = 0; i < n_parts; i++) {
		if (vcol < parts[i].cols || i == n_parts - 1) {
			*part = i;
			*col = vcol < parts[i].cols ? vcol : parts[i].cols - 1;
			return;
		}
		vcol -= parts[i].cols;
	}
	*part = 0;
	*col = 0;
}

/* --- numbers ------------------------------------------------------------- */

static int int_digits(double a)
{
	int d = 1;
	while (a >= 10 && d < 40) {
		a /= 10;
		d++;
	}
	return d;
}

int av_cell_decimals(double maxabs, bool neg, int width)
{
	return av_cell_decimals_max(maxabs, neg, width, 3);
}

int av_cell_decimals_max(double maxabs, bool neg, int width, int most)
{
	for (int d = most; d >= 0; d--) {
		/* rounding may add a digit: 9.9996 -> 10.000 */
		double rounded = maxabs + 0.5 * pow(10, -d);
		int len = (neg ? 1 : 0) + int_digits(rounded) + (d ? d + 1 : 0);
		if (len <= width)
			return d;
	}
	return -1;
}

/* snprintf(buf, size, "%.*f", decimals, v) for a finite v, without
 * printf's slow path (a repaint at 200x60 formats a thousand cells; issue
 * 11). |v| 10^decimals is computed with one rounding, so it is within
 * 2^-52 of the exact product: rounded to the nearest integer it gives
 * printf's digits unless the exact product may lie on a half, where printf
 * breaks the tie by the exact binary value (round half to even). Those
 * few, and numbers too large for the integer, go to snprintf. */
static void format_fixed(char *buf, size_t size, double v, int decimals)
{
	static const double ten_to[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
	double scaled = fabs(v) * (decimals >= 0 && decimals <= 6 ? ten_to[decimals] : 0);
	double whole = floor(scaled), frac = scaled - whole;
	if (decimals < 0 || decimals > 6 || !(scaled < 1e15) ||
	    fabs(frac - 0.5) <= 1e-15 * (scaled > 1 ? scaled : 1) || size < 24) {
		snprintf(buf, size, "%.*f", decimals, v);
		return;
	}
	unsigned long long n = (unsigned long long)whole + (frac > 0.5);
	char digits[24];
	int len = 0;
	do {   /* at least decimals + 1 digits: "0.016", not ".016" */
		digits[len++] = (char)('0' + n % 10);
		n /= 10;
	} while (n > 0 || len <= decimals);
	char *out = buf;
	if (signbit(v))
		*out++ = '-';
	for (int i = len - 1; i >= 0; i--) {
		*out++ = digits[i];
		if (i == decimals && i > 0)
			*out++ = '.';
	}
	*out = '\0';
}

void av_cell_format(char *buf, size_t size, double v, int decimals, int width)
{
	if (isnan(v))
		snprintf(buf, size, "nan");
	else if (isinf(v))
		snprintf(buf, size, "%sinf", v < 0 ? "-" : "");
	else if (decimals >= 0)
		format_fixed(buf, size, v, decimals);
	else
		snprintf(buf, size, "%.0e", v);
	av_number_unsigned_zero(buf);
	if ((int)strlen(buf) > width) {
		int n = width < (int)size - 1 ? width : (int)size - 1;
		memset(buf, '#', (size_t)(n > 0 ? n : 0));
		buf[n > 0 ? n : 0] = '\0';
	}
}

bool av_cell_reads_zero(double v, int decimals)
{
	char buf[400];   /* "%.3f" of 1e300 */
	av_cell_format(buf, sizeof(buf), v, decimals, (int)sizeof(buf) - 1);
	/* the digits before an exponent's "e" */
	size_t mantissa = strcspn(buf, "e");
	return isfinite(v) && strcspn(buf, "123456789") >= mantissa;
}

void av_cell_minus(char *buf, size_t size)
{
	if (buf[0] != '-' || strlen(buf) + 3 > size)
		return;
	memmove(buf + 3, buf + 1, strlen(buf));
	memcpy(buf, "\xe2\x88\x92", 3);
}

double av_part_range(const struct av_trace *t, const struct av_part *p, bool *neg)
{
	double m = 0;
	bool any_neg = false;
	for (int r = 0; r < p->rows; r++) {
		for (int c = 0; c < p->cols; c++) {
			if (av_part_hidden(t, p, r, c))
				continue;
			double v = av_part_at(p, r, c);
			if (!isfinite(v))
				continue;
			if (v < 0)
				any_neg = true;
			if (fabs(v) > m)
				m = fabs(v);
		}
	}
	if (neg)
		*neg = any_neg;
	return m;
}

/* av_part_number_range of a part whose av_part_range is range. */
static double number_range(const struct av_part *p, double range)
{
	return p->kind == AV_PART_WEIGHTS ? 1.0 : range;
}

double av_part_number_range(const struct av_trace *t, const struct av_part *p, bool *neg)
{
	return number_range(p, av_part_range(t, p, neg));
}

/* --- labels -------------------------------------------------------------- */

static bool cross(const struct av_trace *t)
{
	return t->cfg.mode == AV_MODE_CROSS;
}

static const char *token_of(const struct av_trace *t, enum av_axis axis, int i)
{
	const struct av_tokens *tk = axis == AV_AXIS_KEY && cross(t) ? &t->source_tokens
								      : &t->tokens;
	return i >= 0 && i < tk->n ? tk->text[i] : "";
}

static bool oov_of(const struct av_trace *t, enum av_axis axis, int i)
{
	if (i < 0 || i >= AV_MAX_TOKENS || axis == AV_AXIS_DIM)
		return false;
	return axis == AV_AXIS_KEY && cross(t) ? t->source_oov[i] : t->oov[i];
}

void av_row_label(const struct av_trace *t, enum av_axis axis, int i, char *buf, size_t size)
{
	/* rows over dimensions (a weight matrix's, K_hᵀ's) have no token */
	if (axis == AV_AXIS_DIM)
		snprintf(buf, size, "%d", i);
	else
		snprintf(buf, size, "%d %s", i, token_of(t, axis, i));
}

static int label_width(const struct av_trace *t, enum av_axis axis, int rows)
{
	int w = 3;
	for (int i = 0; i < rows; i++) {
		char buf[128];
		av_row_label(t, axis, i, buf, sizeof(buf));
		int tw = av_text_width(buf);
		if (tw > w)
			w = tw;
	}
	return w > LABEL_MAX ? LABEL_MAX : w;
}

/* --- the column plan ----------------------------------------------------- */

struct slot {
	int vcol, part, col, x;
	int label_x;       /* a label column starts at label_x before this cell, or -1 */
	int op_x;          /* the part's operator ("·", "=") is drawn at op_x, or -1 */
};

/* Which key columns carry their index before the word, as the rows do
 * ("0 the"): all of them when every "12 kangaroo" fits a cell, else those
 * whose word another key has too ("the quick … the lazy" read "the … the"),
 * cut to the cell if need be. */
enum key_index { KEY_INDEX_NONE, KEY_INDEX_REPEATED, KEY_INDEX_ALL };

struct plan {
	struct slot *slots;
	int n;
	int label_w;       /* width of row labels (the widest of the parts' axes) */
	int cell_w;
	int row_h;         /* screen rows per matrix row (taller cells when there is room) */
	int gap;           /* columns between two parts */
	int x0;            /* where the first label starts (centred figures) */
	bool labels_each;  /* every part has its own row labels */
	int right_reserve;
	int max_rows;      /* the most rows of any part */
	bool sums;         /* some part shows its row sums */
	enum key_index key_index;   /* which key columns show their index */
};

/* Whether a part needs its own row labels after the part before it:
 * always on a projector, else when the rows are different things (the
 * source's keys in cross mode; the dimensions of K_hᵀ). */
static bool labels_differ(const struct av_trace *t, const struct plan *pl, enum av_axis a,
			  enum av_axis b)
{
	if (pl->labels_each)
		return true;
	if (a == AV_AXIS_DIM || b == AV_AXIS_DIM)
		return a != b;
	return cross(t) && a != b;
}

static void make_plan(const struct av_heatmap *hm, int width, int first, struct plan *pl)
{
	int total = av_heatmap_total_cols(hm->parts, hm->n_parts);
	pl->n = 0;
	int part, col;
	av_heatmap_locate(hm->parts, hm->n_parts, first, &part, &col);
	int x = pl->x0 + pl->label_w + 1;
	int prev_part = part;
	for (int v = first; v < total; v++) {
		av_heatmap_locate(hm->parts, hm->n_parts, v, &part, &col);
		int label_x = -1, op_x = -1;
		if (part != prev_part) {
			op_x = x + (pl->gap - 1) / 2;
			x += pl->gap;
			if (labels_differ(hm->t, pl, hm->parts[prev_part].row_axis,
					  hm->parts[part].row_axis)) {
				label_x = x;
				x += pl->label_w + 1;
			}
			prev_part = part;
		}
		if (x + pl->cell_w > width - pl->right_reserve)
			break;
		pl->slots[pl->n].vcol = v;
		pl->slots[pl->n].part = part;
		pl->slots[pl->n].col = col;
		pl->slots[pl->n].x = x;
		pl->slots[pl->n].label_x = label_x;
		pl->slots[pl->n].op_x = op_x;
		pl->n++;
		x += pl->cell_w;
	}
}

static bool plan_has(const struct plan *pl, int vcol)
{
	return pl->n > 0 && vcol >= pl->slots[0].vcol && vcol <= pl->slots[pl->n - 1].vcol;
}

/* Columns the whole figure takes with these sizes (labels, gaps, cells). */
static int figure_width(const struct av_heatmap *hm, const struct plan *pl)
{
	int w = pl->label_w + 1;
	for (int i = 0; i < hm->n_parts; i++) {
		w += hm->parts[i].cols * pl->cell_w;
		if (i > 0) {
			w += pl->gap;
			if (labels_differ(hm->t, pl, hm->parts[i - 1].row_axis,
					  hm->parts[i].row_axis))
				w += pl->label_w + 1;
		}
	}
	return w;
}

/* --- drawing ------------------------------------------------------------- */

struct part_info {
	double range;
	bool neg;
	int decimals;
};

static void draw_row_label(WINDOW *w, struct av_colors *c, const struct av_trace *t,
			   enum av_axis axis, int y, int x, int width, int r, bool current)
{
	char buf[128];
	av_row_label(t, axis, r, buf, sizeof(buf));
	attr_t a = av_colors_el(c, AV_EL_LABEL);
	if (oov_of(t, axis, r))
		a = av_colors_el(c, AV_EL_OOV);
	if (axis == AV_AXIS_KEY && r < AV_MAX_TOKENS && t->key_hidden[r])
		a = av_colors_el(c, AV_EL_MASKED);
	if (current)
		a = av_colors_el(c, AV_EL_HIGHLIGHT);
	if (axis == AV_AXIS_DIM)
		av_put_right(w, y, x, buf, width, a);
	else
		av_put_pad(w, y, x, buf, width, a);
}

static int key_count(const struct av_trace *t)
{
	return cross(t) ? t->source_tokens.n : t->tokens.n;
}

static bool word_repeats(const struct av_trace *t, int key)
{
	const char *word = token_of(t, AV_AXIS_KEY, key);
	for (int j = 0; j < key_count(t); j++)
		if (j != key && strcmp(token_of(t, AV_AXIS_KEY, j), word) == 0)
			return true;
	return false;
}

static enum key_index key_index_of(const struct av_heatmap *hm, const struct plan *pl)
{
	bool keys = false;
	for (int i = 0; i < hm->n_parts; i++)
		keys |= hm->parts[i].col_axis == AV_AXIS_KEY;
	if (!keys || hm->compact)
		return KEY_INDEX_NONE;
	bool all_fit = true, repeats = false;
	for (int j = 0; j < key_count(hm->t); j++) {
		char buf[160];
		snprintf(buf, sizeof(buf), "%d %s", j, token_of(hm->t, AV_AXIS_KEY, j));
		all_fit &= av_text_width(buf) <= pl->cell_w - 1;
		repeats |= word_repeats(hm->t, j);
	}
	return all_fit ? KEY_INDEX_ALL : repeats ? KEY_INDEX_REPEATED : KEY_INDEX_NONE;
}

static void draw_col_label(WINDOW *w, struct av_colors *c, const struct av_heatmap *hm,
			   const struct plan *pl, const struct slot *s, int y, bool current)
{
	const struct av_part *p = &hm->parts[s->part];
	const struct av_trace *t = hm->t;
	char buf[64];
	attr_t a = av_colors_el(c, AV_EL_LABEL);
	bool in_head = p->hl_len > 0 && s->col >= p->hl_start && s->col < p->hl_start + p->hl_len;
	int width = getmaxx(w);
	if (p->col_axis == AV_AXIS_KEY) {
		const char *word = token_of(t, AV_AXIS_KEY, s->col);
		if (hm->compact)
			snprintf(buf, sizeof(buf), "%d", s->col);
		else if (pl->key_index == KEY_INDEX_ALL ||
			 (pl->key_index == KEY_INDEX_REPEATED && word_repeats(t, s->col)))
			snprintf(buf, sizeof(buf), "%d %s", s->col, word);
		else
			snprintf(buf, sizeof(buf), "%s", word);
		if (oov_of(t, AV_AXIS_KEY, s->col))
			a = av_colors_el(c, AV_EL_OOV);
		if (s->col < AV_MAX_TOKENS && t->key_hidden[s->col])
			a = av_colors_el(c, AV_EL_MASKED);
	} else {
		if (hm->compact && s->col % 8 != 0 && !current)
			return;
		snprintf(buf, sizeof(buf), "%d", s->col);
		if (in_head)
			a = av_colors_el(c, AV_EL_HIGHLIGHT);
	}
	if (current)
		a = av_colors_el(c, AV_EL_CURSOR);
	int cw = pl->cell_w - (hm->compact ? 0 : 1);
	if (hm->compact) {
		int room = width - s->x;
		av_put(w, y, s->x, buf, current ? room : (room < 16 ? room : 16), a);
	} else {
		av_put_right(w, y, s->x, buf, cw, a);
	}
}

/* The part names row: "Q (cols 64-71 of 512)", a line over the selected
 * head's columns with its name, and the scroll indicators. */
static void draw_part_header(WINDOW *w, struct av_colors *c, const struct av_heatmap *hm,
			     const struct plan *pl, int total)
{
	int width = getmaxx(w);
	attr_t title = av_colors_el(c, AV_EL_TITLE), dim = av_colors_el(c, AV_EL_DIM);
	attr_t hl = av_colors_el(c, AV_EL_HIGHLIGHT);
	const bool utf8 = av_draw_utf8();
	int wcell = pl->cell_w - (hm->compact ? 0 : 1);
	int right_limit = width - 1;
	/* the parts that are (partly) off to the right */
	if (pl->n > 0 && pl->slots[pl->n - 1].vcol < total - 1) {
		char more[64] = "";
		int last_part = pl->slots[pl->n - 1].part;
		/* the parts wholly off to the right; a cut one says "cols a-b" */
		for (int i = last_part + 1; i < hm->n_parts; i++) {
			strncat(more, hm->parts[i].name, sizeof(more) - strlen(more) - 1);
			strncat(more, " ", sizeof(more) - strlen(more) - 1);
		}
		strncat(more, utf8 ? "▶" : ">", sizeof(more) - strlen(more) - 1);
		int mw = av_text_width(more);
		/* the names of the parts off to the right only where they leave
		 * the last part shown its own name: over its columns they read
		 * as its name ("residual" over output's column 0 at 40x12) */
		int first_of_last = pl->n - 1;
		while (first_of_last > 0 && pl->slots[first_of_last - 1].part == last_part)
			first_of_last--;
		int name_end = pl->slots[first_of_last].x +
			       av_text_width(hm->parts[last_part].name) + 2;
		if (width - mw < name_end) {
			snprintf(more, sizeof(more), "%s", utf8 ? "▶" : ">");
			mw = 1;
		}
		if (mw < width / 3) {
			av_put(w, 0, width - mw, more, mw, dim);
			right_limit = width - mw - 1;
		}
		av_put(w, 1, width - 1, utf8 ? "▶" : ">", 1, dim);
	}
	for (int i = 0; i < pl->n; i++) {
		const struct slot *s = &pl->slots[i];
		if (i > 0 && s->part == pl->slots[i - 1].part)
			continue;
		const struct av_part *p = &hm->parts[s->part];
		int last = i;
		while (last + 1 < pl->n && pl->slots[last + 1].part == s->part)
			last++;
		/* the head's columns: a line over them, then the head's name */
		int hx0 = -1, hx1 = -1;
		for (int k = i; k <= last && p->hl_len > 0; k++) {
			int col = pl->slots[k].col;
			if (col >= p->hl_start && col < p->hl_start + p->hl_len) {
				if (hx0 < 0)
					hx0 = pl->slots[k].x;
				hx1 = pl->slots[k].x + wcell - 1;
			}
		}
		if (hx1 > right_limit)
			hx1 = right_limit;
		for (int x = hx0; hx0 >= 0 && x <= hx1; x++)
			av_put(w, 0, x, utf8 ? "─" : "-", 1, hl);
		char name[160], cols[64] = "", rows[64] = "";
		if (s->col != 0 || pl->slots[last].col != p->cols - 1)
			snprintf(cols, sizeof(cols), _("cols %d-%d of %d"), s->col,
				 pl->slots[last].col, p->cols);
		/* the rows shown, once, after the first matrix's name: the
		 * label column's corner has no room for them */
		if (i == 0 && !hm->rows_noted &&
		    (hm->first_row > 0 || hm->last_row < hm->total_rows - 1))
			snprintf(rows, sizeof(rows), _("rows %d-%d of %d"), hm->first_row,
				 hm->last_row, hm->total_rows);
		/* up to the next matrix's name; what does not fit there is left
		 * out: the rows before the cols (the row labels always carry
		 * their index and the corner says "▼ more"; a long sentence's
		 * column labels drop theirs, and "scores_h rows 0-4 of 13" at
		 * 40x12 did not say which of the 13 columns were shown), then
		 * the cols (one column of pos_enc left of X) */
		int limit = right_limit;
		if (last + 1 < pl->n && pl->slots[last + 1].x - 1 < limit)
			limit = pl->slots[last + 1].x - 1;
		/* "scores_h cols 0-9 of 40, rows 12-23 of 40 " */
		snprintf(name, sizeof(name), "%s %s%s%s%s", p->name, cols,
			 cols[0] && rows[0] ? ", " : "", rows, cols[0] || rows[0] ? " " : "");
		if (cols[0] && rows[0] && av_text_width(name) > limit - s->x)
			snprintf(name, sizeof(name), "%s %s ", p->name, cols);
		if (rows[0] && av_text_width(name) > limit - s->x)
			snprintf(name, sizeof(name), "%s %s ", p->name, rows);
		if (av_text_width(name) > limit - s->x)
			snprintf(name, sizeof(name), "%s ", p->name);
		/* the space after the name is a gap, not worth cutting it for */
		size_t len = strlen(name);
		if (av_text_width(name) > limit - s->x && len > 0 && name[len - 1] == ' ')
			name[len - 1] = '\0';
		int used = av_put(w, 0, s->x, name, limit - s->x, title);
		if (hx0 >= 0) {
			char head[32];
			snprintf(head, sizeof(head), _(" head %d "), p->hl_start / p->hl_len);
			int x = hx0 > s->x + used ? hx0 : s->x + used;
			if (x + av_text_width(head) <= hx1 + 1)
				av_put(w, 0, x, head, hx1 + 1 - x, hl);
		}
	}
	if (pl->n > 0 && pl->slots[0].vcol > 0) {
		av_put(w, 0, pl->x0, utf8 ? _("◀ more") : _("< more"), pl->label_w, dim);
		av_put(w, 1, pl->x0 + pl->label_w, utf8 ? "◀" : "<", 1, dim);
	}
}

bool av_heatmap_marked(const struct av_part *p, const int (*marks)[2], int n_marks, int r,
		       int c)
{
	if (p->row_axis != AV_AXIS_QUERY || p->col_axis != AV_AXIS_KEY)
		return false;
	for (int i = 0; i < n_marks; i++)
		if (marks[i][0] == r && marks[i][1] == c)
			return true;
	return false;
}

void av_heatmap_mark_cell(WINDOW *w, int y, int x, int cw, int lo, int hi)
{
	if (!w || y < 0 || y >= getmaxy(w))
		return;
	if (hi > getmaxx(w))
		hi = getmaxx(w);
	if (lo < 0)
		lo = 0;
	/* bold and underlined, keeping each column's character and colour */
	for (int i = 0; i < cw; i++) {
		cchar_t cc;
		wchar_t wch[CCHARW_MAX + 1];
		attr_t attrs;
		short pair;
		if (x + i < lo || x + i >= hi || mvwin_wch(w, y, x + i, &cc) == ERR ||
		    getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
			continue;
		setcchar(&cc, wch, attrs | A_BOLD | A_UNDERLINE, pair, NULL);
		mvwadd_wch(w, y, x + i, &cc);
	}
	/* two marked cells side by side share the gap between them: "|"
	 * there, so a marked row reads "[ 0.1| 0.7| 0.2]" */
	if (x - 1 >= lo && x - 1 < hi) {
		bool after_mark = (mvwinch(w, y, x - 1) & A_CHARTEXT) == ']';
		mvwaddch(w, y, x - 1, (after_mark ? '|' : '[') | A_BOLD);
	}
	if (x + cw >= lo && x + cw < hi)
		mvwaddch(w, y, x + cw, ']' | A_BOLD);
}

/* Without colour a glyph's density shows the size of a value: signed
 * values by their magnitude (the sign is in the number), weights as is. */
static double shade_pos(const struct av_part *p, double pos)
{
	return p->kind == AV_PART_SIGNED ? fabs(2 * pos - 1) : pos;
}

/* Draws one screen row of a cell: the number when text, else the cell's
 * colour (or glyphs) only (the rows of a tall cell above and below). */
static void draw_cell(WINDOW *w, struct av_colors *c, const struct av_heatmap *hm,
		      const struct plan *pl, const struct slot *s, const struct part_info *info,
		      int y, int r, bool current, bool text_row)
{
	const struct av_part *p = &hm->parts[s->part];
	const struct av_trace *t = hm->t;
	int cw = hm->compact ? pl->cell_w : pl->cell_w - 1;
	const bool utf8 = av_draw_utf8();
	if (r >= p->rows) {
		av_fill(w, y, s->x, cw, A_NORMAL);
		return;
	}
	float v = av_part_at(p, r, s->col);
	bool hidden = av_part_hidden(t, p, r, s->col);
	double pos = av_heat_position(v, p->kind, info->range);
	attr_t heat = hidden ? av_colors_el(c, AV_EL_MASKED)
		      : isnan(v) ? av_colors_el(c, AV_EL_ERROR)
			     : av_colors_heat(c, p->kind == AV_PART_SIGNED, pos);
	bool shade = av_colors_glyphs(c) || (!hidden && heat == A_NORMAL);
	attr_t a = current ? av_colors_el(c, AV_EL_CURSOR) : heat;
	const char *glyph = hidden ? (utf8 ? "╳" : "x") : av_colors_shade(c, shade_pos(p, pos));
	bool marked = av_heatmap_marked(p, hm->marks, hm->n_marks, r, s->col);

	if (!hm->compact && !text_row) {
		/* the rows of a tall cell around its number: the cell's colour,
		 * and where glyphs carry the level, the glyph in the column the
		 * number row has it (in the cell's colour, as that row) */
		av_fill(w, y, s->x, cw, a);
		if (shade && !hidden && !current)
			av_put(w, y, s->x, glyph, 1, a);
		return;
	}
	if (hm->compact) {
		/* no gap for brackets: a marked cell is "<>" (the cursor's "[]"
		 * wins) */
		const char *mark = current ? "[]" : marked ? "<>" : NULL;
		if (shade || hidden) {
			const char *sign = hidden ? NULL
					   : av_colors_sign_mark(c, heat, p->kind == AV_PART_SIGNED, pos);
			char two[16];
			snprintf(two, sizeof(two), "%s%s", glyph, sign ? sign : glyph);
			av_put(w, y, s->x, mark ? mark : two, cw, a);
		} else {
			av_put_pad(w, y, s->x, mark ? mark : "", cw, a);
		}
		if (marked)
			av_heatmap_mark_cell(w, y, s->x, cw, s->x, s->x + cw);
		return;
	}
	char text[48];
	if (hidden) {
		/* the glyph and −∞ (masked stage) or the weight 0 it gets */
		const char *what = !p->masked_as_inf ? "0" : v > 0 ? (utf8 ? "+∞" : "+inf")
				   : (utf8 ? "−∞" : "-inf");
		size_t glyph_len = strlen(glyph);   /* both a few bytes: text holds them */
		memcpy(text, glyph, glyph_len);
		text[glyph_len] = ' ';
		memcpy(text + glyph_len + 1, what, strlen(what) + 1);
		av_put_right(w, y, s->x, text, cw, a);
		if (marked)
			av_heatmap_mark_cell(w, y, s->x, cw, pl->x0, getmaxx(w));
		return;
	}
	av_cell_format(text, sizeof(text), v, info->decimals, shade ? cw - 1 : cw);
	av_cell_minus(text, sizeof(text));
	if (shade) {
		/* the glyph shows the value, the number follows */
		av_put(w, y, s->x, glyph, 1, a);
		av_put_right(w, y, s->x + 1, text, cw - 1, a);
	} else {
		av_put_right(w, y, s->x, text, cw, a);
	}
	if (marked)
		av_heatmap_mark_cell(w, y, s->x, cw, pl->x0, getmaxx(w));
}

static void draw_row_sum(WINDOW *w, struct av_colors *c, const struct av_part *p, int y, int x,
			 int r)
{
	char num[32];
	if (r >= p->rows)
		return;
	av_cell_format(num, sizeof(num), av_insp_row_sum(p, r), 3, ROW_SUM_W);
	av_put(w, y, x, num, getmaxx(w) - x, av_colors_el(c, AV_EL_DIM));
}

/* The widest cell the terminal's size allows: 8 columns at 80 (the
 * density of an 80x24 screen), growing with the width on a projector. */
static int max_cell_width(int cols, bool projector)
{
	if (cols < 120 || !projector)
		return 8;
	int cw = 10 + (cols - 120) / 20;
	return cw > 14 ? 14 : cw;
}

static int choose_cell_width(const struct av_heatmap *hm, struct plan *pl, int width)
{
	if (hm->compact)
		return 2;
	int most = max_cell_width(width, hm->projector);
	if (hm->share_cell_w > 0 && hm->share_cell_w < most)
		most = hm->share_cell_w;
	for (int cw = most; cw >= 6; cw--) {
		pl->cell_w = cw;
		if (figure_width(hm, pl) <= width - pl->right_reserve)
			return cw;
	}
	/* too wide for any: it scrolls (in the shared width when narrower) */
	return most < 7 ? most : 7;
}

/* Screen rows per matrix row: 1 at 80x24; 2 to 4 on a tall screen when
 * every row still fits with room for the caption under the figure. */
static int choose_row_height(const struct av_heatmap *hm, int height, int max_rows)
{
	if (hm->compact || !hm->projector || hm->lines < 36)
		return 1;
	int room = height - 2 - 4;
	for (int rh = hm->lines >= 54 ? 4 : hm->lines >= 44 ? 3 : 2; rh > 1; rh--)
		if (max_rows * rh <= room)
			return rh;
	return 1;
}

/* The widths and heights of the figure in a window of width x height: the
 * labels, the cells (wider on a projector), the gaps, where it starts. */
static void plan_sizes(const struct av_heatmap *hm, struct plan *pl, int width, int height)
{
	const struct av_trace *t = hm->t;
	memset(pl, 0, sizeof(*pl));
	pl->label_w = 3;
	for (int i = 0; i < hm->n_parts; i++) {
		int lw = label_width(t, hm->parts[i].row_axis, hm->parts[i].rows);
		if (lw > pl->label_w)
			pl->label_w = lw;
		if (hm->parts[i].rows > pl->max_rows)
			pl->max_rows = hm->parts[i].rows;
		pl->sums |= hm->parts[i].row_sums;
	}
	pl->right_reserve = pl->sums ? ROW_SUM_W + 1 : 1;
	bool projector = hm->projector && !hm->compact && width >= 120;
	pl->gap = projector ? 4 : PART_GAP;
	pl->labels_each = projector;
	pl->cell_w = choose_cell_width(hm, pl, width);
	if (projector && (pl->cell_w < 8 || figure_width(hm, pl) > width - pl->right_reserve)) {
		/* labels on every part would cost the cells their width: only
		 * where the rows are different things */
		pl->labels_each = false;
		pl->cell_w = choose_cell_width(hm, pl, width);
	}
	if (projector && pl->cell_w < 8) {
		pl->gap = PART_GAP;
		pl->cell_w = choose_cell_width(hm, pl, width);
	}
	pl->row_h = choose_row_height(hm, height, pl->max_rows);
	int fig_w = figure_width(hm, pl) + (pl->sums ? ROW_SUM_W + 1 : 0);
	if (projector && fig_w < width)
		pl->x0 = (width - fig_w) / 2;
	pl->slots = av_calloc((size_t)width + 1, sizeof(struct slot));
}

int av_heatmap_cell_width(const struct av_heatmap *hm, int width)
{
	struct plan pl;
	plan_sizes(hm, &pl, width, 3);
	free(pl.slots);
	return pl.cell_w;
}

/* Clamps the cursor's column to the figure and scrolls sideways so that
 * it is in view, using the room on the right; pl's slots are then the
 * columns shown. */
static void scroll_columns(struct av_heatmap *hm, struct plan *pl, int width, int total)
{
	if (hm->cur_col >= total)
		hm->cur_col = total - 1;
	if (hm->cur_col < 0)
		hm->cur_col = 0;
	if (hm->scroll_col > hm->cur_col)
		hm->scroll_col = hm->cur_col;
	if (hm->scroll_col < 0 || hm->scroll_col >= total)
		hm->scroll_col = 0;
	make_plan(hm, width, hm->scroll_col, pl);
	if (!plan_has(pl, hm->cur_col)) {
		/* off to the right: show the cursor's matrix from its first
		 * column if the cursor is then in view (the embedding stage
		 * opens on X's column 0, not on pos_enc's last columns) */
		int cursor_part, cursor_col;
		av_heatmap_locate(hm->parts, hm->n_parts, hm->cur_col, &cursor_part, &cursor_col);
		int part_start = hm->cur_col - cursor_col;
		if (part_start > hm->scroll_col) {
			make_plan(hm, width, part_start, pl);
			if (plan_has(pl, hm->cur_col))
				hm->scroll_col = part_start;
			else
				make_plan(hm, width, hm->scroll_col, pl);
		}
	}
	while (!plan_has(pl, hm->cur_col) && hm->scroll_col < hm->cur_col) {
		hm->scroll_col++;
		make_plan(hm, width, hm->scroll_col, pl);
	}
	/* use the room on the right: scroll back while the view stays full */
	while (hm->scroll_col > 0) {
		struct plan probe = *pl;
		probe.slots = av_calloc((size_t)width + 1, sizeof(struct slot));
		make_plan(hm, width, hm->scroll_col - 1, &probe);
		bool ok = plan_has(&probe, hm->cur_col) &&
			  probe.slots[probe.n - 1].vcol == total - 1;
		free(probe.slots);
		if (!ok)
			break;
		hm->scroll_col--;
		make_plan(hm, width, hm->scroll_col, pl);
	}
}

/* Clamps the cursor's row to its part and scrolls so that it is among the
 * data_rows shown. */
static void scroll_rows(struct av_heatmap *hm, int data_rows, int max_rows)
{
	int part, col;
	av_heatmap_locate(hm->parts, hm->n_parts, hm->cur_col, &part, &col);
	const struct av_part *cur_part = &hm->parts[part];
	if (hm->cur_row >= cur_part->rows)
		hm->cur_row = cur_part->rows - 1;
	if (hm->cur_row < 0)
		hm->cur_row = 0;
	if (hm->scroll_row > hm->cur_row)
		hm->scroll_row = hm->cur_row;
	if (hm->cur_row >= hm->scroll_row + data_rows)
		hm->scroll_row = hm->cur_row - data_rows + 1;
	if (hm->scroll_row > max_rows - data_rows)
		hm->scroll_row = max_rows - data_rows > 0 ? max_rows - data_rows : 0;
	if (hm->scroll_row < 0)
		hm->scroll_row = 0;
}

/* Whether the cursor marks row r, and column vcol: neither when it is on
 * no cell of the figure (no_cursor), where the clamped one is another. */
static bool cursor_row(const struct av_heatmap *hm, int r)
{
	return !hm->no_cursor && r == hm->cur_row;
}

static bool cursor_col(const struct av_heatmap *hm, int vcol)
{
	return !hm->no_cursor && vcol == hm->cur_col;
}

/* Whether some column of a part with row sums is off the screen. */
static bool sums_paged(const struct av_heatmap *hm, const struct plan *pl)
{
	int first = 0;
	for (int i = 0; i < hm->n_parts; i++) {
		const struct av_part *p = &hm->parts[i];
		if (p->row_sums && (!plan_has(pl, first) || !plan_has(pl, first + p->cols - 1)))
			return true;
		first += p->cols;
	}
	return false;
}

/* The headers: the parts' names and the column labels, and "Σ row" above
 * the sums at sum_x. The sums stand right after the last column shown:
 * when columns are off the screen, "Σ all 16" says they add up all of
 * them, not the cells beside them (which then seemed to sum to 1). */
static void draw_headers(WINDOW *w, struct av_colors *c, struct av_heatmap *hm,
			 struct plan *pl, int total, int sum_x)
{
	draw_part_header(w, c, hm, pl, total);
	pl->key_index = key_index_of(hm, pl);
	for (int i = 0; i < pl->n; i++)
		draw_col_label(w, c, hm, pl, &pl->slots[i], 1, cursor_col(hm, pl->slots[i].vcol));
	if (!pl->sums)
		return;
	char label[32];
	int cols = 0;
	for (int i = 0; i < hm->n_parts; i++)
		if (hm->parts[i].row_sums && hm->parts[i].cols > cols)
			cols = hm->parts[i].cols;
	bool paged = sums_paged(hm, pl);
	if (!paged)
		snprintf(label, sizeof(label), "%s", av_draw_utf8() ? _("Σ row") : _("sum"));
	else if (av_draw_utf8())
		/* TRANSLATORS: the header of the row sums when the matrix is
		 * paged: the sum of all %d columns, 8 columns at most */
		snprintf(label, sizeof(label), _("Σ all %d"), cols);
	else
		/* TRANSLATORS: as "Σ all %d" without Unicode, 8 columns at most */
		snprintf(label, sizeof(label), "%s", _("sum all"));
	/* a column to the left where the last label leaves one: "Σ all 16"
	 * then ends a space before the "▶" of the columns off to the right */
	int x = sum_x;
	if (paged && pl->n > 0 && sum_x - 1 >= pl->slots[pl->n - 1].x + pl->cell_w)
		x = sum_x - 1;
	av_put(w, 1, x, label, ROW_SUM_W, av_colors_el(c, AV_EL_DIM));
}

/* The matrix rows from hm->scroll_row down while they fit; returns how
 * many were drawn, *y the window row below them. */
static int draw_rows(WINDOW *w, struct av_colors *c, struct av_heatmap *hm,
		     const struct plan *pl, const struct part_info *info, int sum_x, int *y)
{
	int height = getmaxy(w), shown = 0;
	const struct av_part *fp = &hm->parts[pl->n ? pl->slots[0].part : 0];
	*y = 2;
	for (int r = hm->scroll_row; *y + pl->row_h <= height && r < pl->max_rows; r++, shown++) {
		for (int k = 0; k < pl->row_h; k++, (*y)++) {
			bool text_row = k == pl->row_h / 2;
			if (text_row && r < fp->rows)
				draw_row_label(w, c, hm->t, fp->row_axis, *y, pl->x0, pl->label_w, r,
					       cursor_row(hm, r));
			for (int i = 0; i < pl->n; i++) {
				const struct slot *s = &pl->slots[i];
				const struct av_part *p = &hm->parts[s->part];
				if (text_row && s->label_x >= 0 && r < p->rows)
					draw_row_label(w, c, hm->t, p->row_axis, *y, s->label_x,
						       pl->label_w, r, cursor_row(hm, r));
				draw_cell(w, c, hm, pl, s, &info[s->part], *y, r,
					  cursor_row(hm, r) && cursor_col(hm, s->vcol), text_row);
			}
			for (int i = 0; i < hm->n_parts && pl->sums && text_row; i++)
				if (hm->parts[i].row_sums)
					draw_row_sum(w, c, &hm->parts[i], *y, sum_x, r);
		}
	}
	return shown;
}

/* The operators between the parts ("·", "="), half way down the shown
 * rows, and the vertical scroll marks in the label column. */
static void draw_margins(WINDOW *w, struct av_colors *c, const struct av_heatmap *hm,
			 const struct plan *pl, int shown, int data_rows)
{
	int height = getmaxy(w), width = getmaxx(w);
	int op_y = 2 + (shown * pl->row_h - 1) / 2;
	for (int i = 0; i < pl->n && shown > 0; i++) {
		const struct slot *s = &pl->slots[i];
		const char *op = hm->parts[s->part].op;
		if (s->op_x >= 0 && op && op_y < height && s->op_x < width)
			av_put(w, op_y, s->op_x, op, 1, av_colors_el(c, AV_EL_TITLE));
	}
	/* which way more rows are (the first matrix's title says which rows
	 * are shown: "rows 12-23 of 40" was cut here to "▼ row…") */
	const bool utf8 = av_draw_utf8();
	bool up = hm->scroll_row > 0, down = hm->scroll_row + data_rows < pl->max_rows;
	const char *more = up && down ? (utf8 ? "▲▼" : "^v")
			   : up ? (utf8 ? _("▲ more") : _("^ more"))
			   : down ? (utf8 ? _("▼ more") : _("v more")) : NULL;
	if (more)
		av_put(w, 1, pl->x0, more, pl->label_w, av_colors_el(c, AV_EL_DIM));
}

/* The sizes, the scroll and what they show (first_col to total_rows) in a
 * window of width x height, as a draw lays them out; false (nothing
 * changed, pl not made) when there is no figure to draw. */
static bool place(struct av_heatmap *hm, int width, int height, struct plan *pl,
		  int *data_rows)
{
	int total = av_heatmap_total_cols(hm->parts, hm->n_parts);
	if (hm->n_parts == 0 || total == 0 || height < 3)
		return false;
	plan_sizes(hm, pl, width, height);
	scroll_columns(hm, pl, width, total);
	*data_rows = (height - 2) / pl->row_h;
	scroll_rows(hm, *data_rows, pl->max_rows);
	hm->first_col = pl->n ? pl->slots[0].vcol : 0;
	hm->last_col = pl->n ? pl->slots[pl->n - 1].vcol : 0;
	hm->first_row = hm->scroll_row;
	hm->last_row = hm->scroll_row + *data_rows - 1 < pl->max_rows - 1 ?
		       hm->scroll_row + *data_rows - 1 : pl->max_rows - 1;
	hm->total_rows = pl->max_rows;
	return true;
}

void av_heatmap_place(WINDOW *w, struct av_heatmap *hm)
{
	struct plan pl;
	int data_rows;

	if (place(hm, getmaxx(w), getmaxy(w), &pl, &data_rows))
		free(pl.slots);
}

void av_heatmap_draw(WINDOW *w, struct av_colors *c, struct av_heatmap *hm)
{
	werase(w);
	int height = getmaxy(w), width = getmaxx(w);
	hm->used_rows = 0;
	hm->decimals = AV_HEATMAP_NO_NUMBERS;
	struct plan pl;
	int data_rows;
	if (!place(hm, width, height, &pl, &data_rows))
		return;
	int total = av_heatmap_total_cols(hm->parts, hm->n_parts);

	/* each part's range of values and the decimals that fit a cell; the
	 * signed parts of a stage share the fewest, so their columns read
	 * alike (output −3.44 beside residual −10.52, not −3.444: the sum
	 * X + output = residual is checked by eye) */
	struct part_info info[AV_MAX_PARTS + 2];
	int n_info = hm->n_parts < AV_MAX_PARTS + 2 ? hm->n_parts : AV_MAX_PARTS + 2;
	int signed_decimals = INT_MAX;
	for (int i = 0; i < n_info; i++) {
		info[i].range = av_part_range(hm->t, &hm->parts[i], &info[i].neg);
		int avail = pl.cell_w - 1 - (av_colors_glyphs(c) ? 1 : 0);
		bool weights = hm->parts[i].kind == AV_PART_WEIGHTS;
		/* fitting the figures it shares a format with too */
		double fit = number_range(&hm->parts[i], info[i].range);
		if (hm->share_range > fit)
			fit = hm->share_range;
		int most = hm->integers ? 0 : pl.cell_w >= 11 ? 4 : 3;
		info[i].decimals = av_cell_decimals_max(fit, info[i].neg || hm->share_neg, avail,
							most);
		bool shares = !weights && !hm->parts[i].own_decimals;
		if (shares && info[i].decimals >= 0 && info[i].decimals < signed_decimals)
			signed_decimals = info[i].decimals;
	}
	/* (a part too large for fixed decimals, -1, keeps its exponents alone) */
	for (int i = 0; i < n_info; i++)
		if (hm->parts[i].kind != AV_PART_WEIGHTS && !hm->parts[i].own_decimals &&
		    info[i].decimals >= 0)
			info[i].decimals = signed_decimals;
	if (!hm->compact && n_info > 0)
		hm->decimals = info[0].decimals;

	int sum_x = pl.n ? pl.slots[pl.n - 1].x + pl.cell_w + 1 : width - ROW_SUM_W - 1;
	if (sum_x > width - ROW_SUM_W - 1)
		sum_x = width - ROW_SUM_W - 1;
	draw_headers(w, c, hm, &pl, total, sum_x);
	int y;
	int shown = draw_rows(w, c, hm, &pl, info, sum_x, &y);
	draw_margins(w, c, hm, &pl, shown, data_rows);
	hm->used_rows = y;
	free(pl.slots);
}

/* --- the legend ---------------------------------------------------------- */

int av_legend_draw(WINDOW *w, int y, struct av_colors *c, enum av_part_kind kind,
		   const char *name, double range, bool masked_entry, bool as_inf)
{
	int width = getmaxx(w);
	const bool utf8 = av_draw_utf8();
	attr_t dim = av_colors_el(c, AV_EL_DIM), label = av_colors_el(c, AV_EL_LABEL);
	char lo[32], hi[32];
	if (kind == AV_PART_WEIGHTS) {
		snprintf(lo, sizeof(lo), "0");
		snprintf(hi, sizeof(hi), "1");
	} else {
		char r[24];
		av_insp_number(r, sizeof(r), range);
		snprintf(lo, sizeof(lo), "%s%s", range > 0 ? (utf8 ? "−" : "-") : "", r);
		snprintf(hi, sizeof(hi), "+%s", r);
	}
	int x = 0;
	if (name) {
		x += av_put(w, y, x, name, width - x, dim);
		x += av_put(w, y, x, " ", width - x, dim);
	} else {
		x += av_put(w, y, x, kind == AV_PART_WEIGHTS ? _("weight ") : _("value "),
			    width - x, dim);
	}
	x += av_put(w, y, x, lo, width - x, label);
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	int cell = width >= 70 && !masked_entry ? 2 : 1;
	/* the swatches leave room for " +32.319": at 40 columns they took it
	 * and the end of the scale read "+32…" or "…"; fewer swatches still
	 * run from one end of the colours to the other */
	int room = (width - x - 1 - av_text_width(hi)) / cell;
	int steps = room < AV_HEAT_LEVELS ? room : AV_HEAT_LEVELS;
	if (steps < AV_HEAT_LEVELS && steps % 2 == 0)
		steps--;   /* odd, as AV_HEAT_LEVELS: the diverging scale keeps its middle */
	for (int i = 0; i < steps; i++) {
		double pos = steps > 1 ? (double)i / (steps - 1) : 0.5;
		bool signed_ = kind == AV_PART_SIGNED;
		av_colors_swatch(w, y, x, cell, c, signed_, pos);
		/* without colour the negative half as such cells read: "▓−" */
		const char *sign = cell > 1 ? av_colors_sign_mark(c, av_colors_heat(c, signed_, pos),
								  signed_, pos)
					    : NULL;
		if (sign)
			av_put(w, y, x + cell - 1, sign, 1, A_NORMAL);
		x += cell;
	}
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	x += av_put(w, y, x, hi, width - x, label);
	const char *middle = _("  (0 = middle)");   /* whole or not at all */
	if (kind == AV_PART_SIGNED && !masked_entry && x + av_text_width(middle) <= width)
		x += av_put(w, y, x, middle, width - x, dim);
	if (masked_entry && x + 12 < width) {
		x += av_put(w, y, x, "   ", width - x, A_NORMAL);
		x += av_put(w, y, x, utf8 ? "╳" : "x", 1, av_colors_el(c, AV_EL_MASKED));
		const char *what = as_inf ? (utf8 ? _(" −∞ = hidden key") : _(" -inf = hidden key"))
				   : _(" hidden key (weight 0)");
		/* after a whole word: "隐藏的键（…" at 60 columns in Chinese */
		x += av_put(w, y, x, " ", width - x, dim);
		x += av_put_words(w, y, x, what + strspn(what, " "), width - x, dim);
	}
	return x;
}
