/* panels.c: snapshots drawn as heatmaps, arranged on the screen (see
 * panels.h). */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/widgets/draw.h"
#include "ui/layout.h"
#include "ui/widgets/panels.h"
#include "utf8.h"
#include "util.h"

#define PANEL_GAP 2        /* columns between panels side by side */
#define MIN_CELL 6         /* the heatmap's narrowest numbered cell */
#define LABEL_MAX 14       /* as heatmap.c: "12 kangaroo" */
#define ROW_SUMS_W 9
#define MIN_PANEL_W 30     /* a page of a wide matrix: label and a few cells */
#define MIN_PANEL_H 6      /* name, column labels, 3 rows, the rows note */

static const char *axis_token(const struct av_trace *t, enum av_axis axis, int i)
{
	const struct av_tokens *tk = axis == AV_AXIS_KEY && t->cfg.mode == AV_MODE_CROSS
				     ? &t->source_tokens : &t->tokens;
	return i < tk->n ? tk->text[i] : "";
}

void av_panel_snapshot_part(struct av_snapshot *s, const struct av_trace *t,
			    const struct av_part *p, const char *what, int head)
{
	av_snapshot_alloc(s, p->rows, p->cols);
	av_snapshot_fill(s, p->data, p->stride, p->maskable ? t->mask : NULL, t->m);
	s->weights = p->kind == AV_PART_WEIGHTS;
	s->hidden_as_inf = p->masked_as_inf;
	s->rows_are_dims = p->row_axis == AV_AXIS_DIM;
	s->cols_are_dims = p->col_axis == AV_AXIS_DIM;
	s->cfg = t->cfg;
	s->head = head;
	snprintf(s->what, sizeof(s->what), "%s", what);
	char num[16];
	for (int i = 0; i < p->rows; i++) {
		snprintf(num, sizeof(num), "%d", i);
		av_snapshot_label(s, true, i, s->rows_are_dims ? num : axis_token(t, p->row_axis, i));
	}
	for (int j = 0; j < p->cols; j++) {
		snprintf(num, sizeof(num), "%d", j);
		av_snapshot_label(s, false, j, s->cols_are_dims ? num
				  : axis_token(t, p->col_axis, j));
	}
}

static bool any_hidden(const struct av_snapshot *s)
{
	for (size_t k = 0; k < (size_t)s->rows * s->cols; k++)
		if (!s->mask[k])
			return true;
	return false;
}

static bool same_labels(const struct av_snapshot *s)
{
	if (s->rows != s->cols || s->rows_are_dims != s->cols_are_dims)
		return false;
	for (int i = 0; i < s->rows; i++)
		if (strcmp(s->row_labels[i], s->col_labels[i]) != 0)
			return false;
	return true;
}

/* A trace that only carries a snapshot's labels and hidden cells, for
 * av_heatmap_draw (it reads labels and the mask from a trace). Its
 * pointers are the snapshot's; nothing is allocated. */
static void shell_trace(struct av_trace *t, const struct av_snapshot *s)
{
	memset(t, 0, sizeof(*t));
	t->cfg = s->cfg;
	t->n = s->rows;
	t->m = s->cols;
	t->mask = s->mask;
	/* keys are told apart from queries by the cross mode's source line */
	bool cross = !s->cols_are_dims && !same_labels(s);
	t->cfg.mode = cross ? AV_MODE_CROSS : AV_MODE_SELF;
	if (!s->rows_are_dims) {
		t->tokens.n = s->rows < AV_MAX_TOKENS ? s->rows : AV_MAX_TOKENS;
		for (int i = 0; i < t->tokens.n; i++)
			t->tokens.text[i] = s->row_labels[i];
	}
	if (!s->cols_are_dims) {
		struct av_tokens *tk = cross ? &t->source_tokens : &t->tokens;
		if (cross || s->rows_are_dims) {
			tk->n = s->cols < AV_MAX_TOKENS ? s->cols : AV_MAX_TOKENS;
			for (int j = 0; j < tk->n; j++)
				tk->text[j] = s->col_labels[j];
		}
	}
}

static struct av_part part_of(const struct av_panel *pn)
{
	const struct av_snapshot *s = &pn->snap;
	struct av_part p = av_ui_part(pn->name, s->weights ? AV_T_WEIGHTS : AV_T_SCORES, s->values,
				      s->rows, s->cols, s->cols,
				      s->rows_are_dims ? AV_AXIS_DIM : AV_AXIS_QUERY,
				      s->cols_are_dims ? AV_AXIS_DIM : AV_AXIS_KEY);
	p.kind = s->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED;
	p.maskable = any_hidden(s);
	p.masked_as_inf = s->hidden_as_inf;
	p.row_sums = pn->row_sums;
	return p;
}

static int label_width(const struct av_snapshot *s)
{
	int w = 3;
	for (int i = 0; i < s->rows; i++) {
		char buf[160];
		if (s->rows_are_dims)
			snprintf(buf, sizeof(buf), "%d", i);
		else
			snprintf(buf, sizeof(buf), "%d %s", i, s->row_labels[i]);
		int tw = av_text_width(buf);
		if (tw > w)
			w = tw;
	}
	return w > LABEL_MAX ? LABEL_MAX : w;
}

void av_panel_need(const struct av_snapshot *s, bool compact, bool row_sums, int *w, int *h)
{
	int cell = compact ? 2 : MIN_CELL;
	*w = label_width(s) + 1 + s->cols * cell + (row_sums ? ROW_SUMS_W : 1);
	*h = s->rows + 2;
}

static bool sums_possible(const struct av_panel *p)
{
	return p->snap.weights && !p->snap.cols_are_dims && !p->mask01;
}

/* All n panels whole, per_row side by side: true and the places if the
 * area allows. */
static bool arrange_whole(struct av_panel *panels, int n, bool compact, int width, int height,
			  int per_row, bool sums, int vgap, struct av_panel_place *place)
{
	int col_w = (width - (per_row - 1) * PANEL_GAP) / per_row;
	int y = 0;
	for (int first = 0; first < n; first += per_row) {
		int row_h = 0;
		for (int i = first; i < n && i < first + per_row; i++) {
			int w, h;
			av_panel_need(&panels[i].snap, compact, sums && sums_possible(&panels[i]),
				      &w, &h);
			if (w > col_w)
				return false;
			if (h > row_h)
				row_h = h;
		}
		if (first > 0)
			y += vgap;
		for (int i = first; i < n && i < first + per_row; i++) {
			place[i].y = y;
			place[i].x = (i - first) * (col_w + PANEL_GAP);
			place[i].w = col_w;
			place[i].h = row_h;
		}
		y += row_h;
		if (y > height)
			return false;
	}
	for (int i = 0; i < n; i++)
		panels[i].row_sums = sums && sums_possible(&panels[i]);
	return true;
}

/* Whole panels, but not all at once: as many across as fit whole, and the
 * rows of them that fit from the one with the focus. 0 when even one
 * panel does not fit whole. */
static int page_whole(struct av_panel *panels, int n, bool compact, int width, int height,
		      int focus, struct av_panel_place *place)
{
	int per_row = n;
	for (; per_row >= 1; per_row--) {
		int col_w = (width - (per_row - 1) * PANEL_GAP) / per_row;
		bool ok = true;
		for (int i = 0; i < n; i++) {
			int w, h;
			av_panel_need(&panels[i].snap, compact, false, &w, &h);
			ok &= w <= col_w && h <= height;
		}
		if (ok)
			break;
	}
	if (per_row < 1)
		return 0;
	int col_w = (width - (per_row - 1) * PANEL_GAP) / per_row;
	int focus_group = (focus >= 0 && focus < n ? focus : 0) / per_row;
	int groups = (n + per_row - 1) / per_row;
	/* from the focus's row of panels on, then back while they fit */
	int first = focus_group, last = focus_group, used = 0;
	int group_h[AV_PANELS_MAX] = { 0 };
	for (int g = 0; g < groups; g++)
		for (int i = g * per_row; i < n && i < (g + 1) * per_row; i++) {
			int w, h;
			av_panel_need(&panels[i].snap, compact, false, &w, &h);
			if (h > group_h[g])
				group_h[g] = h;
		}
	used = group_h[focus_group];
	while (last + 1 < groups && used + group_h[last + 1] <= height)
		used += group_h[++last];
	while (first > 0 && used + group_h[first - 1] <= height)
		used += group_h[--first];
	int y = 0, placed = 0;
	for (int g = first; g <= last; g++) {
		for (int i = g * per_row; i < n && i < (g + 1) * per_row; i++) {
			place[i].y = y;
			place[i].x = (i - g * per_row) * (col_w + PANEL_GAP);
			place[i].w = col_w;
			place[i].h = group_h[g];
			placed++;
		}
		y += group_h[g];
	}
	for (int i = 0; i < n; i++)
		panels[i].row_sums = false;
	return placed;
}

int av_panels_arrange(struct av_panel *panels, int n, bool compact, int width, int height,
		      int focus, struct av_panel_place *place)
{
	memset(place, 0, sizeof(*place) * (size_t)n);
	if (n <= 0 || width <= 0 || height <= 0)
		return 0;
	/* side by side before row sums: the matrices are what is compared */
	for (int per_row = n; per_row >= 1; per_row--) {
		/* 2 + 2 rather than 3 + 1: fewer across when the rows stay as
		 * many */
		int rows = (n + per_row - 1) / per_row;
		if (per_row > 1 && rows == (n + per_row - 2) / (per_row - 1))
			continue;
		for (int vgap = 1; vgap >= 0; vgap--)
			for (int sums = 1; sums >= 0; sums--)
				if (arrange_whole(panels, n, compact, width, height, per_row, sums,
						  vgap, place))
					return n;
	}
	/* a failed arrange_whole may have placed its first row: those places
	 * would draw panels that are not on this page (a stray column of the
	 * self panel beside the cross one) */
	memset(place, 0, sizeof(*place) * (size_t)n);
	int placed = page_whole(panels, n, compact, width, height, focus, place);
	if (placed > 0)
		return placed;
	/* a page: as many panels across as keep MIN_PANEL_W each (or the
	 * whole panel when narrower), as many rows as keep MIN_PANEL_H */
	memset(place, 0, sizeof(*place) * (size_t)n);
	for (int i = 0; i < n; i++)
		panels[i].row_sums = false;
	int per_row = n;
	while (per_row > 1) {
		int col_w = (width - (per_row - 1) * PANEL_GAP) / per_row;
		bool ok = true;
		for (int i = 0; i < n; i++) {
			int w, h;
			av_panel_need(&panels[i].snap, compact, false, &w, &h);
			if (col_w < (w < MIN_PANEL_W ? w : MIN_PANEL_W))
				ok = false;
		}
		if (ok)
			break;
		per_row--;
	}
	int groups = (n + per_row - 1) / per_row;
	int fit = (height + 1) / (MIN_PANEL_H + 1);
	if (fit < 1)
		fit = 1;
	if (fit > groups)
		fit = groups;
	int focus_group = (focus >= 0 && focus < n ? focus : 0) / per_row;
	int first_group = focus_group - fit + 1 > 0 ? focus_group - fit + 1 : 0;
	int col_w = (width - (per_row - 1) * PANEL_GAP) / per_row;
	int row_h = (height - (fit - 1)) / fit;
	placed = 0;
	for (int g = first_group; g < first_group + fit; g++) {
		for (int i = g * per_row; i < n && i < (g + 1) * per_row; i++) {
			int w, h;
			av_panel_need(&panels[i].snap, compact, false, &w, &h);
			place[i].y = (g - first_group) * (row_h + 1);
			place[i].x = (i - g * per_row) * (col_w + PANEL_GAP);
			place[i].w = col_w;
			place[i].h = h < row_h ? h : row_h;
			placed++;
		}
	}
	return placed;
}

/* The heatmap that draws p: p->hm pointed at t and part, which it fills
 * from p's snapshot (shell_trace, part_of); measuring and drawing agree. */
static struct av_heatmap bind_heatmap(const struct av_panel *p, struct av_trace *t,
				      struct av_part *part, bool compact)
{
	shell_trace(t, &p->snap);
	*part = part_of(p);
	struct av_heatmap hm = p->hm;
	hm.t = t;
	hm.parts = part;
	hm.n_parts = 1;
	hm.compact = compact;
	return hm;
}

void av_panels_share_format(struct av_panel *panels, int n,
			    const struct av_panel_place *place, bool compact)
{
	int cell_w = 0;
	double range = 0;
	bool neg = false;
	for (int i = 0; i < n; i++) {
		struct av_trace t;
		struct av_part part;
		struct av_heatmap hm = bind_heatmap(&panels[i], &t, &part, compact);
		bool part_neg;
		double r = av_part_number_range(&t, &part, &part_neg);
		range = r > range ? r : range;
		neg = neg || part_neg;
		if (place[i].h <= 0 || place[i].w <= 0)
			continue;
		hm.share_cell_w = 0;   /* its own width, not the last draw's */
		int w = av_heatmap_cell_width(&hm, place[i].w);
		if (cell_w == 0 || w < cell_w)
			cell_w = w;
	}
	for (int i = 0; i < n; i++) {
		panels[i].hm.share_cell_w = cell_w;
		panels[i].hm.share_range = range;
		panels[i].hm.share_neg = neg;
	}
}

void av_panel_draw(WINDOW *w, struct av_colors *c, struct av_panel *p,
		   const struct av_panel_place *place, int row, int col, bool compact,
		   bool focused)
{
	if (place->h <= 0 || place->w <= 0)
		return;
	int rows_room = place->h;
	bool note = p->snap.rows + 2 > place->h && place->h >= 4;
	if (note)
		rows_room--;
	WINDOW *sub = derwin(w, rows_room, place->w, place->y, place->x);
	if (!sub)
		return;
	struct av_trace t;
	struct av_part part;
	p->hm = bind_heatmap(p, &t, &part, compact);
	char name[80];
	snprintf(name, sizeof(name), "%s%s", focused ? (av_draw_utf8() ? "▸ " : "> ") : "",
		 p->name);
	part.name = name;
	p->hm.cur_row = row;
	p->hm.cur_col = col;
	p->hm.integers = p->mask01;
	p->hm.rows_noted = note;
	av_heatmap_draw(sub, c, &p->hm);
	/* the axes, in the corner over the row labels when no scroll
	 * indicator is there: queries down, keys across */
	int label_w = label_width(&p->snap);
	bool whole_rows = p->hm.first_row == 0 && p->hm.last_row == p->snap.rows - 1;
	if (whole_rows && !p->snap.rows_are_dims && label_w >= 5)
		av_put(sub, 1, 0, p->snap.cols_are_dims ? "q↓ d→" : "q↓ k→", label_w,
		       av_colors_el(c, AV_EL_DIM));
	/* else the heatmap's "▼ rows a-b of N" does not fit a narrow label
	 * column: arrows there, the rows in the note below */
	if (!whole_rows && note) {
		char arrows[16];
		snprintf(arrows, sizeof(arrows), "%s%s", p->hm.first_row > 0 ?
			 (av_draw_utf8() ? "▲" : "^") : "", p->hm.last_row < p->snap.rows - 1 ?
			 (av_draw_utf8() ? "▼" : "v") : "");
		av_put_pad(sub, 1, 0, arrows, label_w, av_colors_el(c, AV_EL_DIM));
	}
	p->hm.parts = NULL;
	p->hm.t = NULL;
	delwin(sub);
	if (note) {
		char text[64];
		snprintf(text, sizeof(text), _("%s rows %d-%d of %d (j/k)"),
			 av_draw_utf8() ? "▼" : "v", p->hm.first_row, p->hm.last_row,
			 p->snap.rows);
		av_put_pad(w, place->y + rows_room, place->x, text, place->w,
			   av_colors_el(c, AV_EL_DIM));
	}
}

void av_panel_free(struct av_panel *p)
{
	av_snapshot_free(&p->snap);
	memset(p, 0, sizeof(*p));
}

void av_shown_free(struct av_shown *s)
{
	for (int i = 0; i < s->n; i++)
		av_panel_free(&s->panels[i]);
	s->n = 0;
}

/* Whether s[0..len) ends in a "…" or an operator of its own: a "…" after
 * it reads twice ("= ……") or leaves the operator hanging ("b_q[0] =…"). */
static bool ends_in_ellipsis_or_operator(const char *s, size_t len)
{
	return av_last_word_is_ellipsis(s, len) || av_last_word_is_operator(s, len);
}

/* Whether s[0..len) has a digit. */
static bool has_digit(const char *s, size_t len)
{
	return strcspn(s, "0123456789") < len;
}

/* Whether s[0..len) has a bracket: part of a formula ("max) = 3"). */
static bool has_bracket(const char *s, size_t len)
{
	return strcspn(s, "()[]") < len;
}

/* Where the "= result" that s ends with starts ("= 8.08e-05",
 * "= −0.208 (rounded)", "= 0.004（已舍入）"), or NULL: after the last " = ",
 * one word with a digit in it, and at most a note in brackets after it.
 * A name before the "=" goes with it ("Σ = 1.2609": "… = 1.2609" did not
 * say what it was); a number there is a step of the sum. */
static const char *final_result(const char *s)
{
	const char *eq = NULL;
	for (const char *q = strstr(s, " = "); q; q = strstr(q + 1, " = "))
		eq = q + 1;
	if (!eq)
		return NULL;
	const char *word = eq + 2, *end = strchr(word, ' ');
	size_t word_len = end ? (size_t)(end - word) : strlen(word);
	if (!has_digit(word, word_len))
		return NULL;
	/* " (rounded)": one note, nothing after it */
	if (end && (strncmp(end, " (", 2) != 0 || end[strlen(end) - 1] != ')' ||
		    strchr(end + 2, '(')))
		return NULL;
	size_t name_end = (size_t)(eq - 1 - s);   /* at the space before "=" */
	const char *name = s + av_last_word_start(s, name_end);
	size_t name_len = (size_t)(s + name_end - name);
	if (name > s && name_len > 0 && name_len <= 8 && !has_digit(name, name_len) &&
	    !ends_in_ellipsis_or_operator(name, name_len) && !has_bracket(name, name_len))
		return name;
	return eq;
}

/* Whether s[len] is inside a word of ASCII characters (no break there). */
static bool inside_ascii_word(const char *s, size_t len)
{
	unsigned char before = (unsigned char)s[len - 1], after = (unsigned char)s[len];
	return before > ' ' && before < 0x80 && after > ' ' && after < 0x80;
}

/* The last row of text p cut to width columns: its whole words, then the
 * "= result" the text ends with after " … " when it has one (the words
 * before it left out: the sum's result is what the line is for, and
 * "= 0.0001019…" hid it, reading as another number), else "…" after
 * them, never right after a number or another "…". A new string. */
static char *cut_last_row(const char *p, int width)
{
	const char *next;
	const char *result = final_result(p);
	int result_w = result ? av_text_width(result) : 0, more_w = av_text_width("…");
	if (result && result_w + more_w + 3 <= width) {
		/* the words before the result that fit beside " … " and it */
		size_t before = (size_t)(result - p);
		while (before > 0 && p[before - 1] == ' ')
			before--;
		char *head = av_strndup(p, before);
		size_t len = av_wrap_line(head, width - result_w - more_w - 2, av_text_width, &next);
		bool whole = *next == '\0';
		/* a word cut inside ("exp(0.15") reads as another: whole ones */
		while (!whole && len > 0 && inside_ascii_word(head, len))
			len--;
		while (len > 0 && head[len - 1] == ' ')
			len--;
		/* "+ … (+3 terms) … =" and "/ … =": the one "…", no operator
		 * before it */
		while (!whole && len > 0 && ends_in_ellipsis_or_operator(head, len))
			len = av_without_last_word(head, len);
		char *row = av_printf("%.*s%s%s%s", (int)len, head, len > 0 ? " " : "",
				      whole ? "" : "… ", result);
		free(head);
		return row;
	}
	const char *more = av_draw_utf8() ? "…" : ">";
	size_t len = av_wrap_line(p, width - 1, av_text_width, &next);
	if (next == p)   /* nothing whole fits: as much as fits */
		return av_strdup(p);
	/* a row keeps its own ending ("exp:…"): no separators; len 0 is a
	 * text that starts with spaces and a word too wide: "…" alone */
	size_t keep = av_keep_before_ellipsis(p, len, "");
	if (keep > 0 || len == 0)
		return av_printf("%.*s%s", (int)keep, p, more);
	/* nothing but numbers: the "…" apart from them */
	len = av_wrap_line(p, width - 2, av_text_width, &next);
	return av_printf("%.*s %s", (int)len, p, more);
}

int av_put_wrapped(WINDOW *w, int y, int x, const char *text, int width, int max_lines,
		   attr_t attr)
{
	int lines = 0;
	const char *p = text;
	while (*p && lines < max_lines && width > 0) {
		const char *next;
		size_t len = av_wrap_line(p, width, av_text_width, &next);
		if (lines == max_lines - 1 && *next) {
			/* the last row, and text left */
			char *row = cut_last_row(p, width);
			av_put(w, y + lines, x, row, width, attr);
			free(row);
			return lines + 1;
		}
		if (next == p) {   /* nothing whole fits: as much as fits */
			len = strlen(p);
			next = p + len;
		}
		char *line = av_strndup(p, len);
		av_put(w, y + lines, x, line, width, attr);
		free(line);
		lines++;
		p = next;
	}
	return lines;
}

int av_wrapped_lines(const char *text, int width)
{
	int lines = 0;
	const char *p = text;
	while (*p && width > 0) {
		const char *next;
		av_wrap_line(p, width, av_text_width, &next);
		lines++;
		if (next == p)
			break;
		p = next;
	}
	return lines;
}
