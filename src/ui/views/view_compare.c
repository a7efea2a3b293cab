/* view_compare.c: a pinned matrix beside the live one (y pins, y again or
 * Y unpins). The pin is a snapshot (engine compare.h) of the stepper's
 * matrix under the cursor, or of a figure's marked panel, with the
 * settings it was made under; the live one is the same place (stage, head,
 * part, or figure and panel) recomputed now. So: pin, then change the
 * mask, the scale, T, the mode, the head, or train (t, train, t back), and
 * see the two side by side. D cycles the display:
 *
 *   pinned | live          the two, one cursor marking the same cell
 *   pinned | live | Δ      and their difference, live − pinned
 *   Δ                      the difference alone, as large as it goes
 *
 * The difference uses the diverging colours with max |Δ| stated; shapes
 * that differ (a cross pin against a self one, another sentence) are said
 * to differ instead. Pinned and live write their numbers alike (one cell
 * width, one number of decimals) and each names its cells by its own
 * tokens. Keys this view does not use go on to the stepper's actions,
 * which change the live side. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "train.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/widgets/draw.h"
#include "ui/views/figview.h"
#include "ui/widgets/inspector.h"
#include "ui/views/model_ui.h"
#include "ui/widgets/panels.h"
#include "util.h"

enum pin_display { SHOW_BESIDE, SHOW_ALL, SHOW_DIFF, SHOW_COUNT };

static const char *const figure_briefs[] = {
#define AV_FIGURE_BRIEF(name, brief) brief,
	AV_FIGURES(AV_FIGURE_BRIEF)
#undef AV_FIGURE_BRIEF
};

static const char *const display_names[] = {
	N_("pinned | live"), N_("pinned | live | Δ"), N_("Δ = live − pinned")
};

struct av_pin {
	struct av_snapshot pinned;
	bool from_figure;
	enum av_figure_kind fig;      /* a figure's panel ... */
	int panel;
	int part;                /* ... or the stepper's part (index in its stage) */
	enum av_stage stage;     /* ... at this stage */
	const struct av_view *under;   /* the view y went from, back on unpin */
	enum pin_display display;
	int row, col;            /* one cursor for every panel */
	int focus;
	struct av_heatmap hm[3];
	/* filled on each draw */
	struct av_snapshot live;
	bool have_live;
	char *live_error;        /* no live matrix: why */
	struct av_diff diff;
	bool have_diff;
	char *diff_error;        /* shapes differ */
	bool diff_error_shown;   /* ... said in the panels' area already */
	int n_panels, placed;    /* panels of the display, and on this page */
	int decimals;            /* the cells' numbers are read at (read_at) */
};

static int trained_epochs(const struct av_app *a)
{
	int epochs, steps;
	return av_app_weights_trained(a, &epochs, &steps) ? epochs : 0;
}

/* Whether a matrix's name is its stage's with a suffix: "context_h" at
 * the context stage. */
static bool stage_with_suffix(const char *part, const char *stage)
{
	size_t len = strlen(stage);
	return strncmp(part, stage, len) == 0 && part[len] == '_';
}

/* "softmax head 0", "projection K", "context V_h head 1"; with --model,
 * "softmax head 0 layer 11" (the layer is what [ ] changes). The stage's
 * name as the header gives it (translated), and a part whose name says
 * its stage alone: "output", not "output output"; "context_h head 3", not
 * "context context_h head 3" (上下文 context_h in Chinese). */
static void part_what(const struct av_app *a, char *buf, size_t size, enum av_stage st,
		      int head, const struct av_part *parts, int n, int i)
{
	const char *stage = av_ui_stage_titles[st], *name = parts[i].name;
	int len;
	if (n == 1 || strcmp(name, stage) == 0)
		len = snprintf(buf, size, "%s", _(stage));
	else if (stage_with_suffix(name, stage))
		len = snprintf(buf, size, "%s", name);   /* the matrix's name, as drawn */
	else
		len = snprintf(buf, size, "%s %s", _(stage), name);
	if (av_ui_stage_per_head(st) && len >= 0 && (size_t)len < size)
		len += snprintf(buf + len, size - (size_t)len, _(" head %d"), head);
	if (a->model && len >= 0 && (size_t)len < size)
		snprintf(buf + len, size - (size_t)len, _(" layer %d"), av_model_ui_layer(a));
}

/* The live matrix at the pin's place, into p->live. */
static bool live_snapshot(struct av_app *a, struct av_pin *p, char **cause)
{
	if (p->from_figure)
		return av_figures_snapshot(a, p->fig, p->panel, &p->live, cause);
	struct av_part parts[AV_MAX_PARTS];
	int n = av_app_parts(a, parts);
	if (n == 0)
		return av_fail(cause, _("the %s stage shows no matrix: n steps to one"),
			       av_ui_stage_titles[a->stage]);
	/* at the pinned stage its part; at another (n, p) the stage's own
	 * result, where the stepper opens it: the pinned index there was
	 * another matrix (an embedding's X pinned, then V at the projection,
	 * while the cursor was on Q) */
	int i = p->part < n ? p->part : n - 1;
	if (a->stage != p->stage)
		for (i = 0; i < n - 1 && !parts[i].own; i++)
			;
	char what[64];
	part_what(a, what, sizeof(what), a->stage, a->head, parts, n, i);
	av_panel_snapshot_part(&p->live, &a->s->trace, &parts[i], what, a->head);
	return true;
}

static void clear_live(struct av_pin *p)
{
	if (p->have_live)
		av_snapshot_free(&p->live);
	if (p->have_diff)
		av_diff_free(&p->diff);
	p->have_live = p->have_diff = false;
	free(p->live_error);
	free(p->diff_error);
	p->live_error = p->diff_error = NULL;
}

static void start(struct av_app *a, struct av_pin *p)
{
	p->pinned.epochs = trained_epochs(a);
	p->under = a->view == &av_view_compare ? &av_view_stage : a->view;
	av_pin_free(a);
	a->pin = p;
	a->view = &av_view_compare;
	a->dirty = AV_DIRTY_ALL;
	char text[160];
	av_snapshot_describe(&p->pinned, text, sizeof(text));
	if (a->model)   /* a published model's mask, scale, T and weights are its own */
		av_app_message(a, false, _("pinned %s: now change the head (Tab), the layer ([ ]) "
			       "or the sentence (e); D cycles the display, y unpins"), text);
	else
		av_app_message(a, false, _("pinned %s: now change the mask, scale, T, mode or "
			       "head, or train (t); D cycles the display, y unpins"), text);
}

void av_pin_stepper(struct av_app *a)
{
	struct av_part parts[AV_MAX_PARTS];
	int n = av_app_parts(a, parts);
	if (n == 0) {
		av_app_message(a, false, _("the %s stage shows no matrix to pin: n steps to one"),
			       av_ui_stage_titles[a->stage]);
		return;
	}
	int i = 0, col = 0;
	av_heatmap_locate(parts, n, a->col, &i, &col);
	av_pin_stepper_part(a, i, a->row, col);
}

void av_pin_stepper_part(struct av_app *a, int part, int row, int col)
{
	struct av_part parts[AV_MAX_PARTS];
	int n = av_app_parts(a, parts);
	if (part < 0 || part >= n)
		return;
	av_classroom_pinned(a);
	struct av_pin *p = av_calloc(1, sizeof(*p));
	p->part = part;
	p->stage = a->stage;
	char what[64];
	part_what(a, what, sizeof(what), a->stage, a->head, parts, n, part);
	av_panel_snapshot_part(&p->pinned, &a->s->trace, &parts[part], what, a->head);
	p->row = row;
	p->col = col;
	start(a, p);
}

void av_pin_figure(struct av_app *a, enum av_figure_kind fig, int panel)
{
	av_classroom_pinned(a);
	struct av_pin *p = av_calloc(1, sizeof(*p));
	char *cause = NULL;
	if (!av_figures_snapshot(a, fig, panel, &p->pinned, &cause)) {
		av_app_message(a, true, _("cannot pin: %s"), cause ? cause : "?");
		free(cause);
		free(p);
		return;
	}
	p->from_figure = true;
	p->fig = fig;
	p->panel = panel;
	start(a, p);
}

void av_pin_describe(const struct av_app *a, char *buf, size_t size)
{
	if (size > 0)
		buf[0] = '\0';
	if (a->pin)
		av_snapshot_describe(&a->pin->pinned, buf, size);
}

int av_pin_display(const struct av_app *a)
{
	return a->pin ? (int)a->pin->display : 0;
}

void av_pin_set_display(struct av_app *a, int display)
{
	struct av_pin *p = a->pin;
	if (!p || display < 0 || display >= SHOW_COUNT || (int)p->display == display)
		return;
	p->display = (enum pin_display)display;
	p->focus = 0;
	a->dirty = AV_DIRTY_ALL;
}

void av_pin_free(struct av_app *a)
{
	struct av_pin *p = a->pin;
	if (!p)
		return;
	clear_live(p);
	av_snapshot_free(&p->pinned);
	free(p);
	a->pin = NULL;
}

static void unpin(struct av_app *a)
{
	const struct av_view *back = a->pin ? a->pin->under : &av_view_stage;
	if (back == &av_view_figures && !a->figures)
		back = &av_view_stage;
	av_pin_free(a);
	a->view = back ? back : &av_view_stage;
	a->dirty = AV_DIRTY_ALL;
	av_app_message(a, false, _("unpinned"));
}

/* --- drawing ------------------------------------------------------------- */

/* The difference as a snapshot to draw: Δ where it is a number; where a
 * cell is -1e20 in one of them (hidden, as -inf) it is marked hidden and
 * shown ±∞; hidden in both is hidden. */
static void diff_snapshot(struct av_snapshot *out, const struct av_pin *p)
{
	const struct av_diff *d = &p->diff;
	av_snapshot_copy(out, &p->live);
	bool inf = p->live.hidden_as_inf || p->pinned.hidden_as_inf;
	out->weights = false;
	out->hidden_as_inf = inf;
	for (size_t k = 0; k < (size_t)d->rows * d->cols; k++) {
		out->values[k] = d->delta[k];
		bool both = d->state[k] == AV_DIFF_BOTH;
		out->mask[k] = both || (!inf && d->state[k] != AV_DIFF_HIDDEN_BOTH);
	}
	snprintf(out->what, sizeof(out->what), "%s", _("difference"));
}

static void fill(struct av_app *a, struct av_pin *p)
{
	clear_live(p);
	char *cause = NULL;
	p->have_live = live_snapshot(a, p, &cause);
	if (!p->have_live) {
		p->live_error = cause ? cause : av_strdup(_("no live matrix"));
		return;
	}
	p->live.epochs = trained_epochs(a);
	cause = NULL;
	p->have_diff = av_snapshot_diff(&p->diff, &p->live, &p->pinned, &cause);
	if (!p->have_diff)
		p->diff_error = cause ? cause : av_strdup(_("shapes differ"));
}

/* What the display shows: the one chosen, but pinned | live when there is
 * no Δ (shapes that differ, said under the panels): the title and a
 * written figure name what is there. */
static enum pin_display shown_display(const struct av_pin *p)
{
	return p->have_diff ? p->display : SHOW_BESIDE;
}

/* The panels of the display: pinned, live, Δ (some of them). Returns the
 * count; kinds[i] says which each is (0 pinned, 1 live, 2 Δ). */
static int make_panels(struct av_pin *p, struct av_panel *panels, int *kinds)
{
	int n = 0;
	if (p->display != SHOW_DIFF || !p->have_diff) {
		av_snapshot_copy(&panels[n].snap, &p->pinned);
		snprintf(panels[n].name, sizeof(panels[n].name), _("pinned: %s"), p->pinned.what);
		kinds[n++] = 0;
		if (p->have_live) {
			av_snapshot_copy(&panels[n].snap, &p->live);
			snprintf(panels[n].name, sizeof(panels[n].name), _("live: %s"), p->live.what);
			kinds[n++] = 1;
		}
	}
	if (p->display != SHOW_BESIDE && p->have_diff) {
		diff_snapshot(&panels[n].snap, p);
		snprintf(panels[n].name, sizeof(panels[n].name), _("Δ = live − pinned"));
		kinds[n++] = 2;
	}
	return n;
}

static void label_of(char *buf, size_t size, const struct av_snapshot *s, int r, int c)
{
	if (s->rows_are_dims)
		snprintf(buf, size, "[%d, %d]", r, c);
	else if (s->cols_are_dims)
		snprintf(buf, size, _("[%d %s, dim %d]"), r, s->row_labels[r], c);
	else
		snprintf(buf, size, "[%d %s → %d %s]", r, s->row_labels[r], c, s->col_labels[c]);
}

static bool inside(const struct av_snapshot *s, int r, int c)
{
	return r < s->rows && c < s->cols;
}

static void value_text(char *buf, size_t size, const struct av_snapshot *s, int r, int c)
{
	size_t k = (size_t)r * s->cols + c;
	if (!s->mask[k] && s->hidden_as_inf)
		snprintf(buf, size, _("−1e20 (hidden)"));
	else
		av_insp_number(buf, size, s->values[k]);
}

/* One panel's side of the cursor line: its cell named by its own labels
 * (the pin keeps the tokens it was made with; the live side has the
 * sentence of now) and the value there, "[3 cherry → 3 cherry] 1.000";
 * where the cursor is outside this matrix (the other one is larger), that
 * it has no such cell: the nearest one would be a wrong name. */
static void side_text(char *buf, size_t size, const struct av_snapshot *s, int r, int c)
{
	if (!inside(s, r, c)) {
		snprintf(buf, size, _("(no cell [%d, %d] in its %d×%d)"), r, c, s->rows, s->cols);
		return;
	}
	char at[160], v[48];
	label_of(at, sizeof(at), s, r, c);
	value_text(v, sizeof(v), s, r, c);
	snprintf(buf, size, "%s %s", at, v);
}

/* The decimals the numbers on the page are read at, for the summary's
 * counts: the Δ panel's when it is on the page with numbers; else the
 * fewest of the panels shown (a Δ is read across two of them); else (z's
 * colour-only cells) AV_HEATMAP_NO_NUMBERS: no number reads 0.000 there. */
static int read_at(const struct av_pin *p, const struct av_panel_place *place,
		   const int *kinds, int n)
{
	int fewest = AV_HEATMAP_NO_NUMBERS;
	for (int i = 0; i < n; i++) {
		int d = p->hm[kinds[i]].decimals;
		if (place[i].h <= 0 || d == AV_HEATMAP_NO_NUMBERS)
			continue;
		if (kinds[i] == 2)
			return d;
		if (fewest == AV_HEATMAP_NO_NUMBERS || d < fewest)
			fewest = d;
	}
	return fewest;
}

/* "; 12 of 16 cells differ", and when some of them differ by less than
 * the cells show (0.000 in the Δ panel beside "12 of 16", which reads as a
 * contradiction): how many differ at the decimals shown and how many only
 * below them. Cells in the exponent form (decimals -1) or with no numbers
 * show every difference, or none: the plain count. Returns snprintf's
 * length. */
static int describe_changed(char *buf, size_t size, const struct av_pin *p)
{
	const struct av_diff *d = &p->diff;
	int total = d->rows * d->cols, seen = 0;
	for (int k = 0; k < total; k++)
		seen += d->delta[k] != 0 && !av_cell_reads_zero(d->delta[k], p->decimals);
	int below = d->changed - seen;
	if (below == 0 || p->decimals < 0)
		return snprintf(buf, size, _("; %d of %d cells differ"), d->changed, total);
	/* "0.000" and half its last place, "0.0005" */
	char zero[16], half[24];
	av_cell_format(zero, sizeof(zero), 0, p->decimals, (int)sizeof(zero) - 1);
	snprintf(half, sizeof(half), "%.*f", p->decimals + 1, 0.5 * pow(10, -p->decimals));
	if (seen == 0)
		return snprintf(buf, size, _("; no cell differs at %d decimals, %d of %d by under %s "
				"(shown as %s)"), p->decimals, below, total, half, zero);
	return snprintf(buf, size, _("; %d of %d cells differ at %d decimals, %d more by under %s "
			"(shown as %s)"), seen, total, p->decimals, below, half, zero);
}

/* The Δ at the cursor: a number, or which side hides the cell. */
static void delta_text(char *buf, size_t size, const struct av_pin *p)
{
	size_t k = (size_t)p->row * p->diff.cols + p->col;
	if (p->diff.state[k] == AV_DIFF_BOTH || !(p->live.hidden_as_inf || p->pinned.hidden_as_inf))
		av_insp_number(buf, size, p->diff.delta[k]);
	else
		snprintf(buf, size, "%s", p->diff.state[k] == AV_DIFF_HIDDEN_BOTH
			 ? _("— (hidden in both)") : p->diff.state[k] == AV_DIFF_HIDDEN_LIVE
			 ? _("−∞ (hidden now)") : _("+∞ (hidden when pinned)"));
}

/* The cursor's cell: named once when both matrices name it alike
 * ("[3 cherry → 3 cherry]  pinned 1.000  live 0.998  Δ −0.002"), else
 * each side by its own labels, or saying it has no such cell (a pin on
 * four tokens, the live sentence of two). */
static void cursor_line(char *line, size_t size, const struct av_pin *p)
{
	int r = p->row, c = p->col;
	char at[160] = "", live_at[160] = "";
	if (inside(&p->pinned, r, c) && inside(&p->live, r, c)) {
		label_of(at, sizeof(at), &p->pinned, r, c);
		label_of(live_at, sizeof(live_at), &p->live, r, c);
	}
	int len;
	if (at[0] && strcmp(at, live_at) == 0) {
		char pv[48], lv[48];
		value_text(pv, sizeof(pv), &p->pinned, r, c);
		value_text(lv, sizeof(lv), &p->live, r, c);
		len = snprintf(line, size, _("%s  pinned %s  live %s"), at, pv, lv);
	} else {
		char ps[224], ls[224];
		side_text(ps, sizeof(ps), &p->pinned, r, c);
		side_text(ls, sizeof(ls), &p->live, r, c);
		len = snprintf(line, size, _("pinned %s  live %s"), ps, ls);
	}
	if (p->have_diff && r < p->diff.rows && c < p->diff.cols && len > 0 &&
	    (size_t)len < size) {
		char dv[48];
		delta_text(dv, sizeof(dv), p);
		snprintf(line + len, size - (size_t)len, "  Δ %s", dv);
	}
}

static void draw_notes(struct av_app *a, struct av_pin *p)
{
	WINDOW *w = a->w_insp;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w), height = getmaxy(w);
	struct av_colors *c = &a->colors;
	char line[512];
	int y = 0;
	if (p->have_live) {
		/* each side named: two rows when it needs them and the notes
		 * have room (the hint below is the keys bar's again) */
		cursor_line(line, sizeof(line), p);
		y += av_put_wrapped(w, y, 0, line, width, height > 2 ? 2 : 1,
				    av_colors_el(c, AV_EL_LABEL));
	}
	const char *err = p->live_error ? p->live_error
			  : p->diff_error_shown ? NULL : p->diff_error;
	if (err) {
		y += av_put_wrapped(w, y, 0, err, width, height - y > 2 ? 2 : height - y,
				    av_colors_el(c, AV_EL_ERROR));
	} else if (p->have_diff && y < height) {
		char at[160] = "";
		/* by position when the tokens differ: the live ones would
		 * misname the pinned cell */
		if (p->diff.max_row >= 0 && p->diff.labels_differ)
			snprintf(at, sizeof(at), "[%d, %d]", p->diff.max_row, p->diff.max_col);
		else if (p->diff.max_row >= 0)
			label_of(at, sizeof(at), &p->live, p->diff.max_row, p->diff.max_col);
		char mx[32];
		av_insp_number(mx, sizeof(mx), p->diff.max_abs);
		int len = at[0] ? snprintf(line, sizeof(line), _("max |Δ| = %s at %s"), mx, at)
			: snprintf(line, sizeof(line), _("max |Δ| = %s"), mx);
		if (len > 0 && (size_t)len < sizeof(line))
			len += describe_changed(line + len, sizeof(line) - (size_t)len, p);
		if (p->diff.visibility_changed && len > 0 && (size_t)len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					_("; %d hidden in one of them only%s"), p->diff.visibility_changed,
					p->live.hidden_as_inf ? _(" (±∞ in Δ: −1e20 is no number, "
					"left out of max |Δ|)") : "");
		if (p->diff.labels_differ && len > 0 && (size_t)len < sizeof(line))
			snprintf(line + len, sizeof(line) - (size_t)len,
				 _("; the tokens differ (same shape)"));
		y += av_put_wrapped(w, y, 0, line, width, height - y > 2 ? 2 : height - y,
				    av_colors_el(c, AV_EL_NORMAL));
	}
	if (y < height)
		av_put_wrapped(w, y, 0, p->from_figure ?
			       _("live = the figure now: m s + - c Tab t change it; D display; y unpins") :
			       a->model ? _("live = the stepper now: Tab [ ] e change it; D display; "
			       "y unpins") :
			       _("live = the stepper now: m s + - c Tab n/p t change it; D display; "
			       "y unpins"), width, height - y, av_colors_el(c, AV_EL_DIM));
}

static void draw_title(struct av_app *a, struct av_pin *p)
{
	WINDOW *w = a->w_title;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	char text[256];
	snprintf(text, sizeof(text), _("compare: %s"), _(display_names[shown_display(p)]));
	int x = av_put(w, 0, 0, text, width, av_colors_el(c, AV_EL_TITLE));
	if (p->placed < p->n_panels) {
		snprintf(text, sizeof(text), _("   %d of %d on this page (< > for the rest)"),
			 p->placed, p->n_panels);
		/* the count whole ("(< > for the r…" at 60x20), as the figures' */
		if (x + av_text_width(text) > width)
			snprintf(text, sizeof(text), _("  %d of %d panels (< >)"), p->placed,
				 p->n_panels);
		av_put(w, 0, x, text, width - x, av_colors_el(c, AV_EL_DIM));
	}
	if (getmaxy(w) < 2)
		return;
	char pin[160], live[160] = "—";
	av_snapshot_describe(&p->pinned, pin, sizeof(pin));
	if (p->have_live)
		av_snapshot_describe(&p->live, live, sizeof(live));
	snprintf(text, sizeof(text), _("pinned: %s   live: %s"), pin, live);
	/* the header names the pin already: when both do not fit, the live */
	if (av_text_width(text) > width)
		snprintf(text, sizeof(text), _("live: %s"), live);
	av_put_words(w, 1, 0, text, width, av_colors_el(c, AV_EL_FORMULA));
}

/* Whose colours the legend gives: the focused panel's, and the panels'
 * ranges differ (weights 0 to 1 beside a Δ of ±0.05), so it starts with
 * the panel's name, marked ▸ as its title is when there are several (QA
 * read the pinned weights' 0..1 as the range of Δ). */
static const char *const legend_owners[] = { N_("pinned"), N_("live"), N_("Δ") };

static void draw_legend(struct av_app *a, struct av_pin *p, const struct av_panel *pn,
			int kind)
{
	WINDOW *w = a->w_legend;
	if (!w)
		return;
	werase(w);
	char owner[64], label[96];
	snprintf(owner, sizeof(owner), "%s%s", p->n_panels < 2 ? ""
		 : av_draw_utf8() ? "▸ " : "> ", _(legend_owners[kind]));
	snprintf(label, sizeof(label), _("%s colours: "), owner);
	int x = av_put(w, 0, 0, label, getmaxx(w), av_colors_el(&a->colors, AV_EL_LABEL));
	WINDOW *rest = x < getmaxx(w) ? derwin(w, 1, getmaxx(w) - x, 0, x) : NULL;
	if (!rest)
		return;
	const struct av_snapshot *s = &pn->snap;
	double range = 0;
	bool hidden = false;
	for (size_t k = 0; k < (size_t)s->rows * s->cols; k++) {
		if (!s->mask[k]) {
			hidden = true;
			continue;
		}
		if (fabs(s->values[k]) > range)
			range = fabs(s->values[k]);
	}
	if (kind == 2)
		range = p->diff.max_abs;
	av_legend_draw(rest, 0, &a->colors, s->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED, NULL,
		       range, hidden, s->hidden_as_inf);
	delwin(rest);
}

static void compare_draw(struct av_app *a)
{
	struct av_pin *p = a->pin;
	if (!p)
		return;
	fill(a, p);
	struct av_panel panels[3];
	int kinds[3];
	memset(panels, 0, sizeof(panels));
	int n = make_panels(p, panels, kinds);
	p->n_panels = p->placed = n;
	if (p->focus >= n)
		p->focus = n - 1;
	int rows = p->pinned.rows, cols = p->pinned.cols;
	for (int i = 0; i < n; i++) {
		if (panels[i].snap.rows > rows)
			rows = panels[i].snap.rows;
		if (panels[i].snap.cols > cols)
			cols = panels[i].snap.cols;
	}
	if (p->row >= rows)
		p->row = rows - 1;
	if (p->col >= cols)
		p->col = cols - 1;
	WINDOW *w = a->w_panel;
	p->diff_error_shown = false;
	p->decimals = AV_HEATMAP_NO_NUMBERS;
	if (w) {
		werase(w);
		struct av_panel_place place[3];
		int height = getmaxy(w);
		/* shapes that differ: say so where the difference would be */
		bool say = p->display != SHOW_BESIDE && p->diff_error && height > 3;
		p->diff_error_shown = say;
		if (say)
			height -= 2;
		p->placed = av_panels_arrange(panels, n, a->compact, getmaxx(w), height, p->focus,
					      place);
		for (int i = 0; i < n; i++)
			panels[i].hm = p->hm[kinds[i]];
		/* the pinned and live numbers in one format, to be read side
		 * by side; Δ's range is its own (0.002 in 1.60's format is 0.00) */
		int alike = 0;
		while (alike < n && kinds[alike] != 2)
			alike++;
		av_panels_share_format(panels, alike, place, a->compact);
		for (int i = 0; i < n; i++) {
			/* one cursor for all: a matrix it is outside of marks no
			 * cell (its nearest read as the cursor's) */
			panels[i].hm.no_cursor = p->row >= panels[i].snap.rows ||
						 p->col >= panels[i].snap.cols;
			av_panel_draw(w, &a->colors, &panels[i], &place[i], p->row, p->col,
				      a->compact, i == p->focus && n > 1);
			p->hm[kinds[i]] = panels[i].hm;
		}
		p->decimals = read_at(p, place, kinds, n);
		if (say)
			av_put(w, height + 1, 0, p->diff_error, getmaxx(w),
			       av_colors_el(&a->colors, AV_EL_ERROR));
	}
	draw_title(a, p);
	if (n > 0)
		draw_legend(a, p, &panels[p->focus], kinds[p->focus]);
	draw_notes(a, p);
	for (int i = 0; i < n; i++)
		av_panel_free(&panels[i]);
}

/* For W: the panels of the display, titled as on screen. */
static bool compare_shown(struct av_app *a, struct av_shown *out, char **cause)
{
	struct av_pin *p = a->pin;
	if (!p)
		return av_fail(cause, _("nothing is pinned"));
	fill(a, p);
	int kinds[3];
	out->n = make_panels(p, out->panels, kinds);
	snprintf(out->title, sizeof(out->title), _("compare: %s"),
		 _(display_names[shown_display(p)]));
	char pin[160], live[160] = "—";
	av_snapshot_describe(&p->pinned, pin, sizeof(pin));
	if (p->have_live)
		av_snapshot_describe(&p->live, live, sizeof(live));
	snprintf(out->formula, sizeof(out->formula), _("pinned: %s   live: %s"), pin, live);
	snprintf(out->stem, sizeof(out->stem), "compare");
	return true;
}

static void compare_header(struct av_app *a)
{
	struct av_pin *p = a->pin;
	if (!p)
		return;
	char pinned[200], desc[160];
	av_snapshot_describe(&p->pinned, desc, sizeof(desc));
	snprintf(pinned, sizeof(pinned), _("pinned: %s"), desc);
	if (p->from_figure)
		av_app_draw_header(a, pinned, (int)p->fig, AV_FIG_COUNT, figure_briefs[p->fig],
				   NULL);
	else
		av_app_draw_header(a, pinned, (int)a->stage, AV_STAGE_COUNT,
				   av_ui_stage_titles[a->stage], NULL);
}

/* --- keys ---------------------------------------------------------------- */

static bool compare_key(struct av_app *a, int key, enum av_action act)
{
	struct av_pin *p = a->pin;
	if (!p)
		return false;
	if (key == AV_KEY_ESC) {
		unpin(a);
		return true;
	}
	switch (act) {
	case AV_ACTION_PIN:
	case AV_ACTION_UNPIN:
		unpin(a);
		return true;
	case AV_ACTION_COMPARE:
		p->display = (enum pin_display)((p->display + 1) % SHOW_COUNT);
		p->focus = 0;
		a->dirty = AV_DIRTY_ALL;
		av_app_message(a, false, _("display: %s"), _(display_names[p->display]));
		return true;
	case AV_ACTION_LEFT: p->col = p->col > 0 ? p->col - 1 : 0; break;
	case AV_ACTION_RIGHT: p->col++; break;
	case AV_ACTION_UP: p->row = p->row > 0 ? p->row - 1 : 0; break;
	case AV_ACTION_DOWN: p->row++; break;
	/* round the panels there are (with two, > from the last went to a
	 * third that drawing clamped back: the focus never came round) */
	case AV_ACTION_PAGE_LEFT:
	case AV_ACTION_PREV_MATRIX:
		p->focus = p->focus > 0 ? p->focus - 1 : (p->n_panels > 0 ? p->n_panels - 1 : 0);
		break;
	case AV_ACTION_PAGE_RIGHT:
	case AV_ACTION_NEXT_MATRIX:
		p->focus = p->n_panels > 0 ? (p->focus + 1) % p->n_panels : 0;
		break;
	case AV_ACTION_FIGURES:
	case AV_ACTION_ALL_HEADS:
	case AV_ACTION_MASK_KEY:
		av_app_message(a, false, _("a matrix is pinned: y unpins it first"));
		return true;
	default:
		/* the stepper's actions change the live side */
		a->dirty |= AV_DIRTY_ALL;
		return false;
	}
	a->dirty |= AV_DIRTY_MAIN;
	return true;
}

static void compare_resize(struct av_app *a)
{
	if (a->pin)
		memset(a->pin->hm, 0, sizeof(a->pin->hm));
}

static const struct av_view_key compare_keys[] = {
	{ AV_ACTION_PIN, "y Y Esc", N_("unpin: the live alone") },
	{ AV_ACTION_COMPARE, NULL, N_("pinned|live|Δ, Δ alone") },
	{ AV_ACTION_PAGE_LEFT, "< , (", N_("mark the panel before") },
	{ AV_ACTION_PAGE_RIGHT, "> . )", N_("mark the next panel") },
	{ AV_ACTION_NONE, NULL, NULL }
};

const struct av_view av_view_compare = {
	.name = "compare",
	.help_title = N_("With a pinned matrix (y)"),
	.help_keys = compare_keys,
	.label = N_("pinned"),
	.hints = N_("y unpin  D display  arrows cell  < > panel  m s +/- c Tab t: change live"),
	.draw = compare_draw,
	.key = compare_key,
	.resize = compare_resize,
	.header = compare_header,
	.shown = compare_shown,
};
