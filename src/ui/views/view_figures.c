/* view_figures.c: the tutorials' figures that the stepper does not draw,
 * one at a time (F cycles them, Esc closes):
 *
 *   1 seed 000 §3.2   torch.tril(torch.ones(n, n)), the causal mask as 0/1
 *   2 seed 000 §4.1   scaled | mask | masked side by side for the head
 *   3 seed 000 §4.2   encoder self, decoder masked and encoder-decoder
 *                     weights of one sentence side by side
 *   4 seed 001 §2     W_q, W_k, W_v (and W_o) as heatmaps
 *
 * Every number comes from the engine: figures 1-3 from av_attention_kinds_run
 * (three traces of their own, so the session's trace is not disturbed),
 * figure 2 from the session's trace when its mask hides anything, figure 4
 * from the session's parameters (trained or not). The matrices are
 * snapshots drawn by panels.c, which arranges them side by side, stacked or
 * a page at a time; one cursor moves through all of them, so the same cell
 * is marked in each. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "figures.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/views/figview.h"
#include "ui/layout.h"
#include "ui/widgets/inspector.h"
#include "ui/widgets/panels.h"
#include "util.h"

static const char *const figure_briefs[] = {
#define AV_FIGURE_BRIEF(name, brief) brief,
	AV_FIGURES(AV_FIGURE_BRIEF)
#undef AV_FIGURE_BRIEF
};

/* One figure, computed from the session as it stands. */
struct fig_data {
	struct av_panel panels[AV_PANELS_MAX];
	int n;
	char title[160];
	char formula[200];
	char caption[320];       /* what it is and which tutorial section */
	char note[320];          /* what this session's figure shows, or "" */
};

struct av_figures {
	enum av_figure_kind fig;
	int focus;               /* the panel y pins and the inspector reads */
	int row, col;            /* one cursor for every panel */
	struct fig_data data;
	struct av_heatmap hm[AV_PANELS_MAX];   /* scroll state between draws */
	char *error;             /* the figure cannot be computed now: why */
	const struct av_view *back;   /* where Esc returns: the stepper or all heads */
};

static bool any_hidden(const struct av_trace *t)
{
	for (size_t k = 0; k < (size_t)t->n * t->m; k++)
		if (!t->mask[k])
			return true;
	return false;
}

static void part_panel(struct av_panel *pn, const struct av_trace *t, enum av_stage st,
		       int head, const char *name, const char *what)
{
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(t, st, head, parts);
	av_panel_snapshot_part(&pn->snap, t, &parts[0], what, head);
	snprintf(pn->name, sizeof(pn->name), "%s", name);
}

/* A 0/1 matrix with the token labels of t (queries down, keys across). */
static void mask_panel(struct av_panel *pn, const struct av_trace *t, const float *values,
		       const char *name, const char *what)
{
	/* 0: not one of the trace's tensors */
	struct av_part p = av_ui_part(NULL, 0, values, t->n, t->m, t->m, AV_AXIS_QUERY,
				      AV_AXIS_KEY);
	p.kind = AV_PART_WEIGHTS;   /* 0..1: the weights' colours */
	av_panel_snapshot_part(&pn->snap, t, &p, what, 0);
	snprintf(pn->name, sizeof(pn->name), "%s", name);
	pn->mask01 = true;
}

static void weight_panel(struct av_panel *pn, const struct av_session *s, const float *w,
			 const char *name)
{
	int D = s->params.d_model;
	struct av_part p = av_ui_part(NULL, 0, w, D, D, D, AV_AXIS_DIM, AV_AXIS_DIM);
	av_panel_snapshot_part(&pn->snap, &s->trace, &p, name, 0);
	snprintf(pn->name, sizeof(pn->name), _("%s (out × in)"), name);
}

static void fig_tril(struct fig_data *d, const struct av_attention_kinds *k)
{
	const struct av_trace *t = &k->causal;
	float *tril = av_calloc((size_t)t->n * t->n, sizeof(float));
	av_tril_ones(tril, t->n);
	mask_panel(&d->panels[d->n++], t, tril, _("mask = tril(ones(n, n))"), _("tril mask"));
	free(tril);
	snprintf(d->title, sizeof(d->title), _("the causal mask as a matrix, n = %d"), t->n);
	snprintf(d->formula, sizeof(d->formula),
		 _("mask[i, j] = 1 if j ≤ i else 0: query i may look at keys 0..i"));
	snprintf(d->caption, sizeof(d->caption),
		 _("QKV tutorial §3.2: mask = torch.tril(torch.ones(seq_length, seq_length)); the "
		 "0s above the diagonal are the future the decoder must not see"));
}

static void fig_masking(struct fig_data *d, const struct av_session *s,
			const struct av_attention_kinds *k, int head)
{
	/* the session's trace when its mask hides anything, else the causal
	 * one (seed 000's decoder): an all-ones mask shows nothing */
	const struct av_trace *t = any_hidden(&s->trace) ? &s->trace : &k->causal;
	char what[64];
	snprintf(what, sizeof(what), _("scaled head %d"), head);
	part_panel(&d->panels[d->n++], t, AV_STAGE_SCALED, head, "scaled_h", what);
	float *mask = av_calloc((size_t)t->n * t->m, sizeof(float));
	for (size_t i = 0; i < (size_t)t->n * t->m; i++)
		mask[i] = t->mask[i];
	mask_panel(&d->panels[d->n++], t, mask, _("mask (1 = visible)"), _("mask"));
	free(mask);
	snprintf(what, sizeof(what), _("masked head %d"), head);
	part_panel(&d->panels[d->n++], t, AV_STAGE_MASKED, head, "masked_h", what);
	snprintf(d->title, sizeof(d->title), _("scaled | mask | masked, head %d (%s)"), head,
		 av_mode_names[t->cfg.mode]);
	snprintf(d->formula, sizeof(d->formula),
		 _("masked = scaled.masked_fill(mask == 0, −1e20)"));
	snprintf(d->caption, sizeof(d->caption),
		 _("QKV tutorial §4.1: a hidden cell (╳) holds −1e20 in the engine, as its "
		 "masked_fill(mask == 0, float(\"-1e20\")); shown −∞; softmax gives it weight 0"));
	if (t != &s->trace)
		snprintf(d->note, sizeof(d->note),
			 _("the session hides nothing (%s): shown causal, as the QKV tutorial's "
			 "decoder"),
			 av_mode_names[s->trace.cfg.mode]);
}

static void fig_kinds(struct fig_data *d, const struct av_session *s,
		      const struct av_attention_kinds *k, int head)
{
	char what[64];
	snprintf(what, sizeof(what), _("encoder self head %d"), head);
	part_panel(&d->panels[d->n++], &k->self, AV_STAGE_SOFTMAX, head,
		   _("encoder self"), what);
	snprintf(what, sizeof(what), _("decoder masked head %d"), head);
	part_panel(&d->panels[d->n++], &k->causal, AV_STAGE_SOFTMAX, head,
		   _("decoder masked self"), what);
	snprintf(what, sizeof(what), _("enc-dec cross head %d"), head);
	part_panel(&d->panels[d->n++], &k->cross, AV_STAGE_SOFTMAX, head,
		   _("encoder–decoder (cross)"), what);
	snprintf(d->title, sizeof(d->title), _("three attention kinds, weights of head %d"), head);
	snprintf(d->formula, sizeof(d->formula),
		 _("softmax(Q·Kᵀ/s): self | causal (tril mask) | cross (K, V from the source)"));
	snprintf(d->caption, sizeof(d->caption),
		 _("QKV tutorial §3.1-3.3 and §4.2: its three plot_attention figures (weights[0, "
		 "h]: queries down, keys across), one layer's weights for all three"));
	if (k->source_is_sentence)
		snprintf(d->note, sizeof(d->note),
			 _("no source sentence: cross uses the sentence as its own source (E sets one)"));
	else
		snprintf(d->note, sizeof(d->note), _("cross: keys and values from the source \"%s\""),
			 s->source ? s->source : s->sample.source);
}

static void fig_weights(struct fig_data *d, const struct av_session *s)
{
	const struct av_params *p = &s->params;
	weight_panel(&d->panels[d->n++], s, p->w_q, "W_q");
	weight_panel(&d->panels[d->n++], s, p->w_k, "W_k");
	weight_panel(&d->panels[d->n++], s, p->w_v, "W_v");
	weight_panel(&d->panels[d->n++], s, p->w_o, "W_o");
	snprintf(d->title, sizeof(d->title), _("the projection weights, D = %d"), p->d_model);
	snprintf(d->formula, sizeof(d->formula),
		 _("Q = X·W_qᵀ, K = X·W_kᵀ, V = X·W_vᵀ, output = concat·W_oᵀ (+ biases)"));
	snprintf(d->caption, sizeof(d->caption),
		 _("china–panda tutorial §2: Wq, Wk, Wv (W_o is the QKV tutorial's fc_out); stored "
		 "(out, in) like nn.Linear.weight, so the tutorial's Wq in x @ Wq is this one "
		 "transposed"));
}

static void fig_data_free(struct fig_data *d)
{
	for (int i = 0; i < d->n; i++)
		av_snapshot_free(&d->panels[i].snap);
	memset(d, 0, sizeof(*d));
}

/* Figure fig of the session as it stands, into d (freed first). */
static bool fig_build(struct fig_data *d, const struct av_app *a, enum av_figure_kind fig,
		      char **cause)
{
	const struct av_session *s = a->s;
	fig_data_free(d);
	int head = a->head < s->trace.heads ? a->head : 0;
	if (fig == AV_FIG_WEIGHTS) {
		fig_weights(d, s);
		return true;
	}
	struct av_attention_kinds k;
	memset(&k, 0, sizeof(k));
	const char *source = s->source ? s->source : s->sample.source;
	bool cross = s->trace.cfg.mode == AV_MODE_CROSS;
	if (!av_attention_kinds_run(&k, &s->params, &s->trace.cfg, s->sentence, source,
				    cross ? NULL : s->key_hidden, cause)) {
		av_attention_kinds_free(&k);
		return false;
	}
	switch (fig) {
	case AV_FIG_TRIL: fig_tril(d, &k); break;
	case AV_FIG_MASKING: fig_masking(d, s, &k, head); break;
	case AV_FIG_KINDS: fig_kinds(d, s, &k, head); break;
	case AV_FIG_WEIGHTS: case AV_FIG_COUNT: break;
	}
	av_attention_kinds_free(&k);
	return true;
}

bool av_figures_snapshot(struct av_app *a, enum av_figure_kind fig, int panel,
			 struct av_snapshot *out, char **cause)
{
	struct fig_data d;
	memset(&d, 0, sizeof(d));
	if (!fig_build(&d, a, fig, cause))
		return false;
	if (panel < 0 || panel >= d.n) {
		fig_data_free(&d);
		return av_fail(cause, _("figure %d has no panel %d"), (int)fig + 1, panel + 1);
	}
	av_snapshot_copy(out, &d.panels[panel].snap);
	snprintf(out->what, sizeof(out->what), _("figure %d %s"), (int)fig + 1,
		 d.panels[panel].snap.what);
	fig_data_free(&d);
	return true;
}

/* For W: the figure on screen, its panels moved out of a fresh build. */
static bool figures_shown(struct av_app *a, struct av_shown *out, char **cause)
{
	enum av_figure_kind fig = a->figures->fig;
	struct fig_data d;
	memset(&d, 0, sizeof(d));
	if (!fig_build(&d, a, fig, cause))
		return false;
	snprintf(out->title, sizeof(out->title), _("figure %d: %s"), (int)fig + 1, d.title);
	snprintf(out->formula, sizeof(out->formula), "%s", d.formula);
	snprintf(out->stem, sizeof(out->stem), "figure%d", (int)fig + 1);
	memcpy(out->panels, d.panels, sizeof(d.panels));
	out->n = d.n;
	return true;
}

/* --- drawing ------------------------------------------------------------- */

static int max_rows(const struct fig_data *d)
{
	int m = 1;
	for (int i = 0; i < d->n; i++)
		if (d->panels[i].snap.rows > m)
			m = d->panels[i].snap.rows;
	return m;
}

static int max_cols(const struct fig_data *d)
{
	int m = 1;
	for (int i = 0; i < d->n; i++)
		if (d->panels[i].snap.cols > m)
			m = d->panels[i].snap.cols;
	return m;
}

static void draw_title(struct av_app *a, struct av_figures *f, int placed)
{
	WINDOW *w = a->w_title;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	/* "figure 3/4" and the page's panels whole, the title between them
	 * cut after a whole word ("three attention kinds, weig…" at 40
	 * columns, and the panels' "1 of …" at 60) */
	char number[32];
	snprintf(number, sizeof(number), _("figure %d/%d"), (int)f->fig + 1, AV_FIG_COUNT);
	const char *name = f->error ? _(figure_briefs[f->fig]) : f->data.title;
	char more[96] = "";
	if (!f->error && placed < f->data.n) {
		snprintf(more, sizeof(more), _("  panels on this page: %d of %d (< > for the rest)"),
			 placed, f->data.n);
		if (av_text_width(number) + 2 + av_text_width(name) + av_text_width(more) > width)
			snprintf(more, sizeof(more), _("  %d of %d panels (< >)"), placed,
				 f->data.n);
	}
	char *title = av_cut_words(name, width - av_text_width(number) - av_text_width(more) - 2);
	char *head = *title ? av_printf("%s  %s", number, title) : av_strdup(number);
	int x = av_put(w, 0, 0, head, width, av_colors_el(c, AV_EL_TITLE));
	av_put(w, 0, x, more, width - x, av_colors_el(c, AV_EL_DIM));
	free(head);
	free(title);
	if (getmaxy(w) > 1 && !f->error)
		av_put_words(w, 1, 0, f->data.formula, width, av_colors_el(c, AV_EL_FORMULA));
}

/* "W_q[2, 1] = 0.123" or "weights[0 china → 1 panda] = 0.412": the
 * focused panel's cell under the cursor, with the number the engine holds. */
static void cell_line(char *buf, size_t size, const struct av_panel *pn, int r, int c)
{
	const struct av_snapshot *s = &pn->snap;
	char name[64];
	snprintf(name, sizeof(name), "%s", pn->name);
	char *paren = strstr(name, " (");
	if (paren)
		*paren = '\0';
	if (r >= s->rows)
		r = s->rows - 1;
	if (c >= s->cols)
		c = s->cols - 1;
	char num[32];
	float v = s->values[(size_t)r * s->cols + c];
	av_insp_number(num, sizeof(num), v);
	bool hidden = !s->mask[(size_t)r * s->cols + c];
	if (s->rows_are_dims)
		snprintf(buf, size, _("%s[%d, %d] = %s  (row %d: output dimension, column %d: input "
			 "dimension)"), name, r, c, num, r, c);
	else
		snprintf(buf, size, _("%s: query %d %s → key %d %s = %s%s"), name, r,
			 s->row_labels[r], c, s->col_labels[c], num,
			 hidden ? (s->hidden_as_inf ? _("  (hidden: −1e20, shown −∞)")
				   : _("  (hidden key: weight 0)")) : "");
}

/* The colour legend of panel pn in row y of w: its own window, or a row
 * under the panels when the text under it needs the legend's row
 * (draw_notes). */
static void draw_legend_at(struct av_app *a, WINDOW *w, int y, const struct av_panel *pn)
{
	const struct av_snapshot *s = &pn->snap;
	if (pn->mask01) {
		av_put_words(w, y, 0, _("mask: 1 = the query may look at the key; 0 = hidden (−1e20 "
			     "after masked_fill)"), getmaxx(w), av_colors_el(&a->colors, AV_EL_DIM));
		return;
	}
	double range = 0;
	bool hidden = false;
	for (size_t k = 0; k < (size_t)s->rows * s->cols; k++) {
		if (!s->mask[k]) {
			hidden = true;
			continue;
		}
		double v = s->values[k] < 0 ? -s->values[k] : s->values[k];
		if (v > range)
			range = v;
	}
	av_legend_draw(w, y, &a->colors, s->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED, NULL,
		       range, hidden, s->hidden_as_inf);
}

static void draw_legend(struct av_app *a, const struct av_panel *pn)
{
	WINDOW *w = a->w_legend;
	if (!w)
		return;
	werase(w);
	draw_legend_at(a, w, 0, pn);
}

/* The rows from the panels' free ones down to the inspector's last, one
 * under another on the screen: the panel window's rows from panel_y on,
 * then the legend's row, then the inspector's. */
struct text_rows {
	WINDOW *win[3];
	int first[3], count[3];
};

/* Row k of them as a window and its row; false past the last. */
static bool text_row(const struct text_rows *tr, int k, WINDOW **w, int *y)
{
	for (int i = 0; i < 3; i++) {
		if (k < tr->count[i]) {
			*w = tr->win[i];
			*y = tr->first[i] + k;
			return true;
		}
		k -= tr->count[i];
	}
	return false;
}

/* text word-wrapped into rows k.. (at most `rows`, the last ending in "…"
 * when text is left) across the windows; returns the rows used. */
static int put_text_rows(const struct text_rows *tr, int k, const char *text, int rows,
			 attr_t attr)
{
	int used = 0;
	WINDOW *w;
	int y;
	for (const char *p = text; *p && used < rows && text_row(tr, k + used, &w, &y); used++) {
		if (used == rows - 1) {
			av_put_wrapped(w, y, 0, p, getmaxx(w), 1, attr);
			return used + 1;
		}
		const char *next;
		size_t len = av_wrap_line(p, getmaxx(w), av_text_width, &next);
		char *line = av_strndup(p, len);
		av_put(w, y, 0, line, getmaxx(w), attr);
		free(line);
		if (next == p)
			break;
		p = next;
	}
	return used;
}

/* The cell under the cursor, the figure's note and its caption, wrapped
 * into the inspector's rows. When they need more, the colour legend goes
 * up into the rows the panels left free (panel_free rows from panel_y) and
 * the text follows it down through the legend's row into the inspector's,
 * in the same order: the caption was cut to one row with "…" while two
 * rows under the panels stood empty. */
static void draw_notes(struct av_app *a, struct av_figures *f, int panel_y, int panel_free)
{
	WINDOW *w = a->w_insp;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w), height = getmaxy(w);
	struct av_colors *c = &a->colors;
	if (f->error) {
		av_put_wrapped(w, 0, 0, f->error, width, height, av_colors_el(c, AV_EL_ERROR));
		return;
	}
	const struct fig_data *d = &f->data;
	char line[400];
	cell_line(line, sizeof(line), &d->panels[f->focus], f->row, f->col);
	int note_lines = d->note[0] ? av_wrapped_lines(d->note, width) : 0;
	int cap_lines = av_wrapped_lines(d->caption, width);
	int need = 1 + note_lines + cap_lines;
	struct text_rows tr = { .win = { a->w_panel, a->w_legend, w },
				.first = { panel_y, 0, 0 }, .count = { 0, 0, height } };
	int k = 0;
	if (need > height && a->w_panel && a->w_legend && panel_free > 0) {
		/* the legend and the text after it end in the inspector's last
		 * row, starting no higher than the first free row */
		tr.count[0] = panel_free;
		tr.count[1] = 1;
		int legend_row = panel_free + 1 + height - 1 - need;
		if (legend_row < 0)
			legend_row = 0;
		WINDOW *lw;
		int ly;
		werase(a->w_legend);
		if (text_row(&tr, legend_row, &lw, &ly))
			draw_legend_at(a, lw, ly, &d->panels[f->focus]);
		k = legend_row + 1;
	}
	int last = tr.count[0] + tr.count[1] + tr.count[2];
	k += put_text_rows(&tr, k, line, 1, av_colors_el(c, AV_EL_LABEL));
	/* the caption keeps at least one row */
	if (note_lines && k < last - 1)
		k += put_text_rows(&tr, k, d->note, last - k - 1 < note_lines ? last - k - 1
									: note_lines,
				   av_colors_el(c, AV_EL_NORMAL));
	if (k < last)
		put_text_rows(&tr, k, d->caption, last - k, av_colors_el(c, AV_EL_DIM));
}

/* The token strip follows the figure's cursor, not the stepper's: the
 * query row it is on when the focused panel's rows are the sentence's
 * tokens, else none (the strip from its start). It stayed scrolled to the
 * stepper's query 16 while the figure showed rows 0-10. */
static void select_tokens(struct av_app *a, const struct av_figures *f)
{
	const struct fig_data *d = &f->data;
	a->sel_query = a->sel_key = -1;
	if (f->error || f->focus >= d->n)
		return;
	const struct av_snapshot *s = &d->panels[f->focus].snap;
	if (!s->rows_are_dims && f->row < a->s->trace.tokens.n)
		a->sel_query = f->row;
}

static void figures_draw(struct av_app *a)
{
	struct av_figures *f = a->figures;
	if (!f)
		return;
	free(f->error);
	f->error = NULL;
	char *cause = NULL;
	if (!fig_build(&f->data, a, f->fig, &cause)) {
		f->error = av_printf(_("figure %d cannot be drawn for this sentence: %s"),
				     (int)f->fig + 1, cause ? cause : "?");
		free(cause);
	}
	struct fig_data *d = &f->data;
	if (f->focus >= d->n)
		f->focus = d->n > 0 ? d->n - 1 : 0;
	if (f->row >= max_rows(d))
		f->row = max_rows(d) - 1;
	if (f->col >= max_cols(d))
		f->col = max_cols(d) - 1;
	select_tokens(a, f);
	int placed = 0, used_h = 0;
	WINDOW *w = a->w_panel;
	if (w)
		werase(w);
	if (w && !f->error && d->n > 0) {
		struct av_panel_place place[AV_PANELS_MAX];
		placed = av_panels_arrange(d->panels, d->n, a->compact, getmaxx(w), getmaxy(w),
					   f->focus, place);
		for (int i = 0; i < d->n; i++) {
			if (place[i].h > 0 && place[i].y + place[i].h > used_h)
				used_h = place[i].y + place[i].h;
			d->panels[i].hm = f->hm[i];
			av_panel_draw(w, &a->colors, &d->panels[i], &place[i], f->row, f->col,
				      a->compact, i == f->focus && d->n > 1);
			f->hm[i] = d->panels[i].hm;
		}
	}
	draw_title(a, f, placed);
	if (!f->error && d->n > 0)
		draw_legend(a, &d->panels[f->focus]);
	else if (a->w_legend)
		werase(a->w_legend);
	/* rows the panels leave free (draw_notes keeps a blank one under the
	 * panels when the text leaves room for it) */
	draw_notes(a, f, used_h, w ? getmaxy(w) - used_h : 0);
}

static void figures_header(struct av_app *a)
{
	struct av_figures *f = a->figures;
	if (f)
		av_app_draw_header(a, N_("figure"), (int)f->fig, AV_FIG_COUNT, figure_briefs[f->fig],
				   NULL);
}

/* --- keys ---------------------------------------------------------------- */

static void show_figure(struct av_app *a, int fig)
{
	struct av_figures *f = a->figures;
	f->fig = (enum av_figure_kind)((fig % AV_FIG_COUNT + AV_FIG_COUNT) % AV_FIG_COUNT);
	f->focus = 0;
	f->row = f->col = 0;
	memset(f->hm, 0, sizeof(f->hm));
	a->dirty = AV_DIRTY_ALL;
}

static void close_figures(struct av_app *a)
{
	av_app_return_to(a, a->figures->back);
	av_app_message(a, false, _("figures closed (F opens them again)"));
}

static bool figures_key(struct av_app *a, int key, enum av_action act)
{
	struct av_figures *f = a->figures;
	const struct fig_data *d = &f->data;
	if (key == AV_KEY_ESC) {
		close_figures(a);
		return true;
	}
	switch (act) {
	case AV_ACTION_FIGURES:
		if (f->fig + 1 >= AV_FIG_COUNT)
			close_figures(a);
		else
			show_figure(a, (int)f->fig + 1);
		return true;
	case AV_ACTION_NEXT_STAGE: show_figure(a, (int)f->fig + 1); return true;
	case AV_ACTION_PREV_STAGE: show_figure(a, (int)f->fig - 1); return true;
	case AV_ACTION_FIRST_STAGE: show_figure(a, 0); return true;
	case AV_ACTION_LAST_STAGE: show_figure(a, AV_FIG_COUNT - 1); return true;
	case AV_ACTION_LEFT: f->col = f->col > 0 ? f->col - 1 : 0; break;
	case AV_ACTION_RIGHT: f->col++; break;
	case AV_ACTION_UP: f->row = f->row > 0 ? f->row - 1 : 0; break;
	case AV_ACTION_DOWN: f->row++; break;
	case AV_ACTION_PAGE_LEFT:
	case AV_ACTION_PREV_MATRIX:
	case AV_ACTION_PAGE_RIGHT:
	case AV_ACTION_NEXT_MATRIX:
		/* the tril mask alone: < and > did nothing and said nothing */
		if (d->n <= 1) {
			av_app_message(a, false, _("this figure has one panel: < > mark one of "
						   "several"));
			return true;
		}
		if (act == AV_ACTION_PAGE_LEFT || act == AV_ACTION_PREV_MATRIX)
			f->focus = (f->focus + d->n - 1) % d->n;
		else
			f->focus = (f->focus + 1) % d->n;
		break;
	case AV_ACTION_NEXT_HEAD:
	case AV_ACTION_PREV_HEAD:
		/* the head changes (the stepper shows it), but the mask and the
		 * weights are the same for every head: the figure does not */
		if (a->s->trace.heads > 1 && (f->fig == AV_FIG_TRIL || f->fig == AV_FIG_WEIGHTS)) {
			int H = a->s->trace.heads;
			int next = ((a->head + (act == AV_ACTION_NEXT_HEAD ? 1 : -1)) % H + H) % H;
			av_app_message(a, false, _("head %d of %d: this figure is the same for "
						   "every head"), next, H);
		}
		return false;
	case AV_ACTION_PIN:
		if (f->error) {
			av_app_message(a, true, _("nothing to pin: %s"), f->error);
			return true;
		}
		av_pin_figure(a, f->fig, f->focus);
		return true;
	case AV_ACTION_ALL_HEADS:
	case AV_ACTION_COMPARE:
	case AV_ACTION_UNPIN:
	case AV_ACTION_MASK_KEY:
		av_app_message(a, false, "%s", act == AV_ACTION_ALL_HEADS || act == AV_ACTION_MASK_KEY
			       ? _("Esc closes the figures first (this key is the stepper's)")
			       : _("nothing is pinned: y pins the figure's marked panel"));
		return true;
	default:
		return false;
	}
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_TOKENS;   /* the strip follows the cursor */
	return true;
}

static void figures_resize(struct av_app *a)
{
	if (a->figures)
		memset(a->figures->hm, 0, sizeof(a->figures->hm));
}

void av_figures_open(struct av_app *a)
{
	if (!a->figures)
		a->figures = av_calloc(1, sizeof(*a->figures));
	if (a->view != &av_view_figures)
		a->figures->back = av_app_matrices_view(a);
	a->view = &av_view_figures;
	show_figure(a, 0);
	av_app_message(a, false, _("figures: F or n/p for the next one, < > mark a panel, y pins "
		       "it, Esc closes"));
}

void av_figures_show(struct av_app *a, enum av_figure_kind fig)
{
	if (!a->figures)
		a->figures = av_calloc(1, sizeof(*a->figures));
	if (a->view != &av_view_figures)
		a->figures->back = av_app_matrices_view(a);
	a->view = &av_view_figures;
	show_figure(a, (int)fig);
}

int av_figures_current(const struct av_app *a)
{
	return a->figures ? (int)a->figures->fig : 0;
}

int av_figures_panel(const struct av_app *a)
{
	return a->figures ? a->figures->focus : 0;
}

void av_figures_focus(struct av_app *a, int panel)
{
	if (a->figures && panel >= 0 && panel < AV_PANELS_MAX)
		a->figures->focus = panel;
}

void av_figures_free(struct av_app *a)
{
	struct av_figures *f = a->figures;
	if (!f)
		return;
	fig_data_free(&f->data);
	free(f->error);
	free(f);
	a->figures = NULL;
}

static const struct av_view_key figures_keys[] = {
	{ AV_ACTION_FIGURES, NULL, N_("next figure (last: back)") },
	{ AV_ACTION_NEXT_STAGE, NULL, N_("next figure") },
	{ AV_ACTION_PREV_STAGE, NULL, N_("previous figure") },
	{ AV_ACTION_FIRST_STAGE, NULL, N_("first figure") },
	{ AV_ACTION_LAST_STAGE, NULL, N_("last figure") },
	{ AV_ACTION_PAGE_LEFT, "< , (", N_("mark the panel before") },
	{ AV_ACTION_PAGE_RIGHT, "> . )", N_("mark the next panel") },
	{ AV_ACTION_PIN, NULL, N_("pin the marked panel") },
	{ AV_ACTION_NONE, "Esc", N_("back to where F opened") },
	{ AV_ACTION_NONE, NULL, NULL }
};

const struct av_view av_view_figures = {
	.name = "figures",
	.help_title = N_("In the figures (F)"),
	.help_keys = figures_keys,
	.label = N_("figure"),
	.hints = N_("F next  n/p figure  < > panel  arrows cell  y pin  Tab head  m mask  Esc close"),
	.draw = figures_draw,
	.key = figures_key,
	.resize = figures_resize,
	.header = figures_header,
	.shown = figures_shown,
};
