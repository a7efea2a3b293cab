/* train_panels.c: the training view's panels: header, info, loss curve,
 * tracked pair, matrices, histogram, gradients and hint (see view_train.c). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "train.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/widgets/chart.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/widgets/panels.h"
#include "ui/layout.h"
#include "ui/views/view_train_internal.h"
#include "utf8.h"
#include "util.h"

static attr_t el(const struct av_app *a, enum av_element e)
{
	return av_colors_el(&a->colors, e);
}

static int head_of(const struct av_app *a)
{
	const struct av_trainer *tr = a->train->tr;
	return a->head >= 0 && a->head < tr->cfg.heads ? a->head : 0;
}

/* --- small drawing helpers ------------------------------------------------ */

const char *av_train_panel_arrow(void)
{
	return av_draw_utf8() ? "→" : "->";
}

/* A panel title: the name in the title style, a dim remark after it. */
static void title(struct av_app *a, WINDOW *w, const char *name, const char *remark)
{
	int width = getmaxx(w);
	/* a name of words cut after a whole one ("vocabulary: word-only
	 * q(a)·k(b)/√…" at 60x20); one word ("china@0→panda@1") as it fits */
	int x = av_put_words(w, 0, 0, name, width, el(a, AV_EL_TITLE));
	if (x == 0)
		x = av_put(w, 0, 0, name, width, el(a, AV_EL_TITLE));
	if (remark && *remark && x + 3 < width && av_text_width(name) <= width) {
		x += av_put(w, 0, x, "  ", width - x, A_NORMAL);
		/* after a whole word: "total_loss per epoch, 3 s…" at 60x20 */
		av_put_words(w, 0, x, remark, width - x, el(a, AV_EL_DIM));
	}
}

static void fmt_loss(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(buf, size, "%s", isnan(v) ? "nan" : "inf");
	else if (v != 0 && fabs(v) < 1e-4)
		snprintf(buf, size, "%.3e", v);
	else
		snprintf(buf, size, "%.6f", v);
}

/* av_chart_number, with the screen's minus sign (its width counts columns
 * either way). */
static void chart_number(char *buf, size_t size, double v, int width)
{
	av_chart_number(buf, size, v, width);
	av_cell_minus(buf, size);
}

static const char *short_name(int id)
{
	static const char *const names[AV_N_PARAMS] = {
		"emb", "pos", "W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o"
	};
	return names[id];
}

const char *av_train_panel_param_name(int id)
{
	return id >= 0 && id < AV_N_PARAMS ? short_name(id) : "?";
}

static const char *trained_text(const struct av_trainer *tr)
{
	return tr->set.params == AV_TRAIN_ALL ? _("all tensors") :
	       tr->cfg.bias ? _("W_q W_k W_v + biases") : "W_q W_k W_v";
}

/* --- the header ----------------------------------------------------------- */

void av_train_panel_header(struct av_app *a)
{
	WINDOW *w = a->w_header;
	if (!w || !a->train || !a->train->tr)
		return;
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w);
	const char *label = _("training view");
	if (width < av_text_width(label) + 12)
		label = _("training");
	/* the stepper's header and its rules for what goes first, with the
	 * trainer's settings and the view's name in place of the stage */
	char *lesson = av_lesson_ui_label(a);   /* "lesson 4/17" in a lesson */
	char room[48];
	struct av_header_info h = {
		.sample = a->s->sample.name,
		.lesson = lesson,
		.mode = av_mode_names[tr->cfg.mode],
		.d_model = tr->cfg.d_model,
		.heads = tr->cfg.heads,
		.head_dim = av_config_head_dim(&tr->cfg),
		.scale = av_scale_names[tr->cfg.scale],
		.temperature = tr->cfg.temperature,
		.seed = tr->cfg.seed,
		.view = label,
	};
	if (av_classroom_header(a, room, sizeof(room)))
		h.classroom = room;
	char *text = av_layout_header(&h, width);
	attr_t at = el(a, AV_EL_HEADER);
	av_put_pad(w, 0, 0, text, width, at);
	int lw = av_text_width(label);
	if (width > lw + 1)   /* the view's name in bold, where the text put it */
		av_put(w, 0, width - lw, label, lw, at | A_BOLD);
	free(text);
	free(lesson);
}

/* --- info: epoch, loss, state and settings -------------------------------- */

/* What the run is doing, for the right of the first row. */
enum run_kind { RUN_STOPPED, RUN_RUNNING, RUN_PAUSED, RUN_FOLLOWING, RUN_WAITING };

/* The run's state: running (at which speed), paused, or stopped by a
 * number that is not finite; a student who follows the teacher shows the
 * teacher's run as it arrives, which this screen neither runs nor pauses
 * (the snapshot does not say whether the teacher's runs: "paused" was
 * shown while the epochs came in). */
static enum run_kind run_state(const struct av_app *a, char *state, size_t size)
{
	const struct av_train_view *tv = a->train;
	bool live = false;
	if (tv->diag.trouble == AV_TROUBLE_NONFINITE) {
		snprintf(state, size, _("stopped: not finite (r resets)"));
		return RUN_STOPPED;
	}
	if (av_classroom_follows_run(a, &live)) {
		snprintf(state, size, "%s", live ? _("following the teacher's run")
			 : _("waiting for the teacher"));
		return live ? RUN_FOLLOWING : RUN_WAITING;
	}
	if (tv->running && tv->capped)
		snprintf(state, size, _("%s running %d epochs/tick (%.1f ms a step)"),
			 av_draw_utf8() ? "▶" : ">", tv->capped, tv->step_us / 1000);
	else if (tv->running)
		snprintf(state, size, _("%s running %s"), av_draw_utf8() ? _("▶") : ">",
			 _(av_train_speeds[tv->speed].label));
	else
		snprintf(state, size, _("|| paused (%s)"), _(av_train_speeds[tv->speed].label));
	return tv->running ? RUN_RUNNING : RUN_PAUSED;
}

/* The state in a word, where the row has no room for run_state's. */
static const char *run_word(enum run_kind kind)
{
	switch (kind) {
	case RUN_STOPPED: return _("stopped");
	case RUN_RUNNING: return _("running");
	case RUN_PAUSED: return _("paused");
	case RUN_FOLLOWING: return _("following");
	case RUN_WAITING: return _("waiting");
	}
	return "";
}

/* Row 0: "epoch 3 / 200   loss 0.178 (epoch 1: 0.2167)", and the state at
 * the right (shortened when the row is full). Returns the state in a word
 * when not even that fits (info_settings puts it first), else NULL. */
static const char *info_progress(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w);
	char buf[160], num[32];
	int x = 0;
	if (tv->goal > 0 && tr->epoch <= tv->goal)
		snprintf(buf, sizeof(buf), _("epoch %d / %d"), tr->epoch, tv->goal);
	else
		snprintf(buf, sizeof(buf), _("epoch %d"), tr->epoch);
	if (tr->next_item > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), _(" +%d/%d sentences"),
			 tr->next_item, tr->n_items);
	x += av_put(w, 0, x, buf, width - x, el(a, AV_EL_TITLE));
	x += av_put(w, 0, x, "   ", width - x, A_NORMAL);
	/* after a change of target, until an epoch trained toward it, the
	 * last epoch's loss is the earlier target's: the corpus loss against
	 * the new one at these weights instead (the next epoch's was five
	 * times the one shown, as if training had made things worse) */
	const struct av_target_change *ch = av_trainer_target_change(tr);
	bool fresh = ch && ch->epoch == tr->epoch;
	double loss = tr->epoch > 0 && !fresh ? tr->loss[tr->epoch - 1] : tv->loss_now;
	fmt_loss(num, sizeof(num), loss);
	snprintf(buf, sizeof(buf), _("loss %s"), num);
	x += av_put(w, 0, x, buf, width - x,
		    isfinite(loss) ? el(a, AV_EL_LABEL) : el(a, AV_EL_ERROR));
	/* what it compares with, longest first: the first that fits */
	char note[3][160] = { "", "", "" };
	const char *now = av_target_names[tr->set.target];
	if (fresh && ch->epoch > 0)
		snprintf(note[0], sizeof(note[0]), _(" (against target %s now; %.4g against %s)"),
			 now, tr->loss[ch->epoch - 1], av_target_names[ch->was]);
	if (fresh) {
		snprintf(note[1], sizeof(note[1]), _(" (now against target %s)"), now);
		snprintf(note[2], sizeof(note[2]), _(" (now against %s)"), now);
	} else if (ch) {
		snprintf(note[0], sizeof(note[0]), _(" (epoch %d, target %s: %.4g)"), ch->epoch,
			 now, ch->loss);
		snprintf(note[1], sizeof(note[1]), _(" (epoch %d, %s: %.4g)"), ch->epoch, now,
			 ch->loss);
	} else if (tr->epoch == 0) {
		snprintf(note[0], sizeof(note[0]), _(" (before training)"));
	} else {
		snprintf(note[0], sizeof(note[0]), _(" (epoch 1: %.4g)"), tr->loss[0]);
	}
	char state[96];
	enum run_kind kind = run_state(a, state, sizeof(state));
	bool stopped = kind == RUN_STOPPED;
	bool lively = kind == RUN_RUNNING || kind == RUN_FOLLOWING;
	int sw = av_text_width(state), ww = av_text_width(run_word(kind));
	/* a note on the target goes before the state's speed: the state in a
	 * word makes room for it */
	int pick = -1;
	for (int i = 0; i < 3 && pick < 0; i++) {
		int nw = av_text_width(note[i]);
		if (note[i][0] && (x + nw + 2 + sw <= width || (ch && x + nw + 2 + ww <= width)))
			pick = i;
	}
	if (pick >= 0)
		x += av_put(w, 0, x, note[pick], width - x,
			    el(a, fresh ? AV_EL_HIGHLIGHT : AV_EL_DIM));
	if (x + 2 + sw <= width)
		av_put(w, 0, width - sw, state, sw, stopped ? el(a, AV_EL_ERROR) :
		       lively ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
	else if (x + 2 + ww <= width)
		av_put(w, 0, x + 2, run_word(kind), width - x - 2,
		       stopped ? el(a, AV_EL_ERROR) : el(a, AV_EL_DIM));
	else
		return run_word(kind);
	return NULL;
}

/* Row 1: each setting, then its keys in parentheses ("lr 0.01 ([ ])"),
 * without the keys when they do not fit (and then the settings that fit
 * whole, and "…"); after state ("following ·"), when row 0 had no room
 * for it (NULL: none). */
static void info_settings(struct av_app *a, WINDOW *w, const char *state)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w);
	int x = 0;
	if (state) {
		/* a student at 40 columns lost "following the teacher's run" */
		x += av_put(w, 1, x, state, width - x, el(a, AV_EL_HIGHLIGHT));
		x += av_put(w, 1, x, " · ", width - x, el(a, AV_EL_DIM));
	}
	char lr[32];
	snprintf(lr, sizeof(lr), "%g", tr->set.lr);
	const char *items[][3] = {
		{ "lr ", lr, "[ ]" },
		{ "", av_optimizer_names[tr->set.optimizer], "o" },
		{ _("target "), av_target_names[tr->set.target], "w" },
		{ _("init "), av_init_names[tr->cfg.init], "i" },
		{ _("train "), trained_text(tr), "P" },
	};
	int n_items = (int)(sizeof(items) / sizeof(items[0]));
	int need = 0;
	for (int i = 0; i < n_items; i++)
		need += av_text_width(items[i][0]) + av_text_width(items[i][1]) +
			av_text_width(items[i][2]) + 3 + (i ? 1 : 0);
	bool keys = need <= width - x;
	/* two spaces between the settings when they fit, else one */
	const char *sep = need + n_items - 1 <= width - x ? "  " : " ";
	for (int i = 0; i < n_items && x < width; i++) {
		/* without the keys, whole settings while they fit, then "…"
		 * ("init nor…" at 40 columns) */
		int item = av_text_width(items[i][0]) + av_text_width(items[i][1]) + (i ? 3 : 0);
		if (!keys && x + item + (i + 1 < n_items ? 2 : 0) > width) {
			av_put(w, 1, x, " …", width - x, el(a, AV_EL_DIM));
			break;
		}
		if (i)
			x += av_put(w, 1, x, keys ? sep : " · ", width - x, el(a, AV_EL_DIM));
		x += av_put(w, 1, x, items[i][0], width - x, el(a, AV_EL_DIM));
		x += av_put(w, 1, x, items[i][1], width - x, el(a, AV_EL_NORMAL));
		if (keys) {
			x += av_put(w, 1, x, " (", width - x, el(a, AV_EL_DIM));
			x += av_put(w, 1, x, items[i][2], width - x, el(a, AV_EL_HIGHLIGHT));
			x += av_put(w, 1, x, ")", width - x, el(a, AV_EL_DIM));
		}
	}
}

void av_train_panel_info(struct av_app *a, WINDOW *w)
{
	info_settings(a, w, info_progress(a, w));
}

/* Puts text in rows y.. (at most rows of them) of w from column x, broken
 * at spaces; returns the rows used. */
static int put_wrapped_at(WINDOW *w, int y, int x, int width, int rows, const char *text,
			  attr_t at)
{
	/* av_wrap_line: Chinese breaks beside its characters (a run of words
	 * broken at spaces only left a zh_CN line cut with "…") */
	int used = 0;
	const char *p = text;
	while (*p == ' ')
		p++;
	while (*p && used < rows) {
		const char *next;
		size_t len = av_wrap_line(p, width, av_text_width, &next);
		char *line = av_strndup(p, len);
		av_put(w, y + used, x, line, width, at);
		free(line);
		used++;
		p = next;
	}
	return used;
}

static int put_wrapped(WINDOW *w, int y, int rows, const char *text, attr_t at)
{
	return put_wrapped_at(w, y, 0, getmaxx(w), rows, text, at);
}

/* --- the loss curve ------------------------------------------------------- */

/* Where a run's target changed, for the loss curve: the line breaks before
 * value breaks[k] (av_canvas_plot_breaks), and a dim ┆ stands in cell
 * column cols[k]'s blank rows. */
struct curve_breaks {
	int n;
	int breaks[AV_TRAIN_TARGET_CHANGES], cols[AV_TRAIN_TARGET_CHANGES];
};

/* A braille (or ASCII) plot of v[0..n) in w's rows y0..y0+rows-1 from column
 * x0, cols wide, in attr, broken and marked at br (or NULL). */
static void plot(struct av_app *a, WINDOW *w, int y0, int x0, int rows, int cols,
		 const double *v, int n, double lo, double hi, const struct curve_breaks *br,
		 attr_t attr)
{
	struct av_canvas c;
	av_canvas_init(&c, cols, rows);
	av_canvas_plot_breaks(&c, v, n, lo, hi, br ? br->breaks : NULL, br ? br->n : 0);
	bool utf8 = av_draw_utf8();
	for (int r = 0; r < rows; r++) {
		for (int col = 0; col < cols; col++) {
			char cell[8];
			av_canvas_cell(&c, col, r, utf8, cell);
			bool blank = c.bits[(size_t)r * c.cols + col] == 0;
			bool marked = false;
			for (int k = 0; br && k < br->n; k++)
				marked |= br->cols[k] == col;
			if (blank && marked)
				av_put(w, y0 + r, x0 + col, utf8 ? "┆" : ":", 1,
				       el(a, AV_EL_DIM));
			else if (strcmp(cell, " ") != 0)
				av_put(w, y0 + r, x0 + col, cell, 1, attr);
		}
	}
	av_canvas_free(&c);
}

/* The x axis of the loss curve, in row y (the labels) and, when
 * line_row >= 0, an axis line with ticks in that row: epoch k (1-based) is
 * at the dot column av_canvas_plot gives value k - 1, and the ticks fall
 * on round epochs at least 8 columns apart, the unit "epochs" at the
 * right. The right edge's epoch is the axis width, not the epoch reached,
 * so it gets no label of its own. */
static void loss_axis(struct av_app *a, WINDOW *w, int y, int line_row, int x0, int cols, int n)
{
	attr_t dim = el(a, AV_EL_DIM);
	bool utf8 = av_draw_utf8();
	int dots = 2 * cols;
	int capacity = n > dots ? n : dots;          /* epochs across the width */
	static const int steps[] = { 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000,
				     5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000 };
	int step = steps[0];
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		step = steps[i];
		if ((long long)capacity * 8 <= (long long)cols * step)
			break;
	}
	const char *unit = _("epochs");
	int unit_x = x0 + cols - av_text_width(unit);
	if (line_row >= 0)
		for (int c = 0; c < cols; c++)
			av_put(w, line_row, x0 + c, utf8 ? "─" : "-", 1, dim);
	int free_from = x0;
	for (long long e = step; e <= capacity; e += step) {
		long long dot = n > dots ? (e - 1) * dots / n : e - 1;
		int col = x0 + (int)(dot / 2);
		if (col >= x0 + cols)
			break;
		if (line_row >= 0)
			av_put(w, line_row, col, utf8 ? "┴" : "+", 1, dim);
		char num[24];
		snprintf(num, sizeof(num), "%lld", e);
		int nw = (int)strlen(num);
		int lx = col - nw / 2;
		if (lx < free_from || lx + nw >= unit_x)
			continue;
		av_put(w, y, lx, num, nw, dim);
		free_from = lx + nw + 1;
	}
	if (unit_x >= free_from)
		av_put(w, y, unit_x, unit, cols, dim);
}

/* The title's remark on the newest change of target ("┆ target previous
 * after epoch 12"), or "" when the curve marks none. */
static void target_mark_text(const struct av_trainer *tr, char *buf, size_t size)
{
	const struct av_target_change *ch = av_trainer_target_change(tr);
	buf[0] = '\0';
	if (!ch || ch->epoch == 0)
		return;
	int marked = 0;
	for (int k = 0; k < tr->n_target_changes; k++)
		marked += tr->target_changes[k].epoch > 0;
	const char *bar = av_draw_utf8() ? "┆" : ":";
	if (marked > 1)
		snprintf(buf, size, _("%s target changes, %s after epoch %d"), bar,
			 av_target_names[tr->set.target], ch->epoch);
	else
		snprintf(buf, size, _("%s target %s after epoch %d"), bar,
			 av_target_names[tr->set.target], ch->epoch);
}

/* The changes of target on a curve of the run's epochs, cols cells wide:
 * those after an epoch (a change before any has no loss before it). */
static void target_breaks(const struct av_trainer *tr, int cols, struct curve_breaks *br)
{
	br->n = 0;
	for (int k = 0; k < tr->n_target_changes; k++) {
		int b = tr->target_changes[k].epoch;
		if (b == 0)
			continue;
		br->breaks[br->n] = b;
		br->cols[br->n++] = av_chart_column(tr->epoch, 2 * cols, b) / 2;
	}
}

void av_train_panel_loss(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	char remark[224], mark[112];
	snprintf(remark, sizeof(remark), P_("total_loss per epoch, %d sentence",
					    "total_loss per epoch, %d sentences", tr->n_items), tr->n_items);
	/* the newest change of target after the remark, or in its place */
	target_mark_text(tr, mark, sizeof(mark));
	if (mark[0] && av_text_width(_("loss")) + 2 + av_text_width(remark) + 2 +
		       av_text_width(mark) <= width)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark), "  %s", mark);
	else if (mark[0])
		snprintf(remark, sizeof(remark), "%s", mark);
	title(a, w, _("loss"), remark);
	/* an axis line with ticks when two rows of curve are left for the
	 * top and bottom labels (at 120x18 the panel has 5 rows, and the
	 * epochs' numbers stood under the curve without an axis) */
	bool line = height >= 5;
	int rows = height - 2 - line;
	if (rows < 1)
		return;
	const int lab = 7;
	int cols = width - lab - 1;
	if (cols < 4)
		return;
	attr_t dim = el(a, AV_EL_DIM);
	if (tr->epoch == 0) {   /* after a stop Space would not run: r first */
		/* short of the panel's last column, which parts it from the next
		 * panel (Chinese, broken beside any character, filled it and
		 * ran into the weights' "china") */
		const char *text = av_trainer_diverged(tr)
				   ? _("no epoch: the run stopped, not finite (r resets)")
				   : _("no epoch yet: Space runs, s takes one epoch, S one sentence");
		/* in the rows under the title, whole where they hold it: two
		 * rows at 60x20 read "no epoch yet: Space runs, s takes one" */
		int free_rows = height - 1, need = av_wrapped_lines(text, cols - 1);
		int used = need < free_rows ? need : free_rows;
		av_put_wrapped(w, 1 + (free_rows - used) / 2, lab + 1, text, cols - 1, used, dim);
		return;
	}
	double lo, hi;
	av_chart_range(tr->loss, tr->epoch, &lo, &hi);
	char hi_s[32], lo_s[32];
	chart_number(hi_s, sizeof(hi_s), hi, lab - 1);
	chart_number(lo_s, sizeof(lo_s), lo, lab - 1);
	/* one value (one epoch, a flat curve, or two that print alike): one
	 * label, at the middle row where a flat curve is drawn, not the same
	 * number at the top and the bottom as if two losses were equal */
	bool one = strcmp(hi_s, lo_s) == 0;
	int top = one ? 1 + (rows - 1) / 2 : 1, bottom = one ? top : rows;
	av_put_right(w, top, 0, hi_s, lab - 1, dim);
	if (!one)
		av_put_right(w, bottom, 0, lo_s, lab - 1, dim);
	bool utf8 = av_draw_utf8();
	for (int r = 1; r <= rows; r++)
		av_put(w, r, lab, utf8 ? (r == top || r == bottom ? "┤" : "│") : "|", 1, dim);
	struct curve_breaks br;
	target_breaks(tr, cols, &br);
	plot(a, w, 1, lab + 1, rows, cols, tr->loss, tr->epoch, lo, hi, &br, el(a, AV_EL_LABEL));
	if (line)
		av_put(w, height - 2, lab, utf8 ? "└" : "+", 1, dim);
	loss_axis(a, w, height - 1, line ? height - 2 : -1, lab + 1, cols, tr->epoch);
}

/* --- the tracked pair ----------------------------------------------------- */

/* Appends s to line right-aligned in w terminal columns (measured with
 * av_text_width, so a wide character counts two). */
static void rjust_cat(char *line, size_t size, const char *s, int w)
{
	size_t len = strlen(line);
	int pad = w - av_text_width(s);
	if (pad < 1 && len > 0)
		pad = 1;   /* a wider text than its column still stands apart */
	for (; pad > 0 && len + 1 < size; pad--)
		line[len++] = ' ';
	line[len] = '\0';
	snprintf(line + len, size - len, "%s", s);
}

/* Numbers on the screen take the minus sign U+2212, as every matrix cell
 * does (av_cell_minus); the buffers leave room for its two more bytes. */
static void fmt_score(char *buf, size_t size, double v, int decimals)
{
	if (isnan(v))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.*f", decimals, v);
	av_cell_minus(buf, size);
}

/* A weight: 3 decimals, or "3.7e-06" when it would read 0.000 but is not 0
 * (the tracked weight grows from there long before it shows). */
static void fmt_weight(char *buf, size_t size, double v)
{
	if (isfinite(v) && v > 0 && v < 0.0005)
		snprintf(buf, size, "%.1e", v);
	else
		fmt_score(buf, size, v, 3);
}

/* "/√dk", "/(√dk·T)", "/√D", "/T" or "": the scaled stage's divisor. */
static const char *divisor_text(const struct av_trainer *tr)
{
	bool utf8 = av_draw_utf8();
	bool t = tr->cfg.temperature != 1;
	switch (tr->cfg.scale) {
	case AV_SCALE_DK: return t ? (utf8 ? "/(√dk·T)" : "/(sqrt(dk)*T)") : (utf8 ? "/√dk" : "/sqrt(dk)");
	case AV_SCALE_DMODEL: return t ? (utf8 ? "/(√D·T)" : "/(sqrt(D)*T)") : (utf8 ? "/√D" : "/sqrt(D)");
	case AV_SCALE_NONE: return t ? "/T" : "";
	}
	return "";
}

/* "q·k/√dk" (or ASCII). */
static void qk_text(char *buf, size_t size, const struct av_trainer *tr)
{
	snprintf(buf, size, "q%sk%s", av_draw_utf8() ? "·" : ".", divisor_text(tr));
}

/* A sparkline of series[0..n) in row y from column x, width columns, with
 * its lowest and highest value at its ends (its scale: "0 ▁▂▅█ 1.2e-05"). */
static void spark(struct av_app *a, WINDOW *w, int y, int x, int width, const double *series, int n)
{
	double lo, hi;
	av_chart_range(series, n, &lo, &hi);
	char lo_s[32], hi_s[32];
	chart_number(lo_s, sizeof(lo_s), lo, 8);
	chart_number(hi_s, sizeof(hi_s), hi, 8);
	int lw = av_text_width(lo_s) + 1, hw = av_text_width(hi_s) + 1;
	if (width - lw - hw < 4)
		return;
	av_put(w, y, x, lo_s, lw, el(a, AV_EL_DIM));
	x += lw;
	width -= lw + hw;
	int used = 0;
	int *levels = av_malloc((size_t)width * sizeof(int));
	av_sparkline(series, n, width, lo, hi, levels);
	for (int c = 0; c < width; c++)
		if (levels[c] >= 0) {
			av_put(w, y, x + c, av_spark_glyph(levels[c], av_draw_utf8()), 1,
			       el(a, AV_EL_FORMULA));
			used = c + 1;
		}
	free(levels);
	av_put(w, y, x + used + 1, hi_s, hw, el(a, AV_EL_DIM));
}

/* The tracked pair as the loss sees it: its cell in a training sentence
 * (the scaled score and the weight, positions included: the numbers the
 * stepper shows for that sentence), then its word-only score (embeddings
 * alone, no positions: the vocabulary view's number), and seed 001's table
 * of epochs 0, 50, 150 (more when tall) and now for all three. */
/* The tracked pair's title: its words (with their positions when it is a
 * cell of a training sentence), the sentence and the head. */
static void track_title(struct av_app *a, WINDOW *w, int h)
{
	struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), H = tr->cfg.heads;
	const char *arrow = av_train_panel_arrow();
	const char *qw = tr->params.vocab[tr->track[0]], *kw = tr->params.vocab[tr->track[1]];
	bool cell = tr->track_item >= 0;
	char name[200], remark[200];
	if (cell)
		snprintf(name, sizeof(name), "%s@%d%s%s@%d", qw, tr->track_pos[0], arrow, kw,
			 tr->track_pos[1]);
	else
		snprintf(name, sizeof(name), "%s%s%s", qw, arrow, kw);
	if (cell) {
		snprintf(remark, sizeof(remark), _("in #%d \"%s\""), tr->track_item + 1,
			 tr->items[tr->track_item].query);
		if (av_text_width(name) + 2 + av_text_width(remark) + (H > 1 ? 8 : 0) > width)
			snprintf(remark, sizeof(remark), _("in #%d"), tr->track_item + 1);
	} else if (av_trainer_track_hidden(tr))
		/* china -> panda under the causal mask: the sentence holds the
		 * pair, but china, first, may not look at panda */
		snprintf(remark, sizeof(remark), _("hidden by the mask"));
	else
		snprintf(remark, sizeof(remark), _("in no training sentence"));
	if (H > 1)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark), _(", head %d"), h);
	title(a, w, name, remark);
}

/* The pair's numbers now. */
struct track_now {
	double scaled, weight;   /* the cell's (NAN without one) */
	double word;             /* the word-only score */
	bool cell;               /* a cell of a training sentence */
};

/* From row y: the cell's scaled score and weight, then the word-only score
 * (dim when the cell's are there); returns the next row. */
static int track_now_lines(struct av_app *a, WINDOW *w, int y, const struct track_now *now)
{
	int width = getmaxx(w), height = getmaxy(w);
	char line[256], v1[32], v2[32], qk[32];
	qk_text(qk, sizeof(qk), a->train->tr);
	attr_t dim = el(a, AV_EL_DIM), label = el(a, AV_EL_LABEL);
	if (now->cell) {
		fmt_score(v1, sizeof(v1), now->scaled, 3);
		fmt_weight(v2, sizeof(v2), now->weight);
		snprintf(line, sizeof(line), _("scaled %s = %s   weight = %s"), qk, v1, v2);
		if (av_text_width(line) > width)
			snprintf(line, sizeof(line), _("scaled %s  weight %s"), v1, v2);
		/* a number whole or not at all: "weight 4…" of 4.2e-07 read
		 * as 4 (the training view at 60x20) */
		if (av_text_width(line) > width)
			snprintf(line, sizeof(line), "%s%s", _("scaled "), v1);
		if (av_text_width(line) <= width)
			av_put(w, y, 0, line, width, label);
		y++;
	}
	if (y < height) {
		fmt_score(v1, sizeof(v1), now->word, 3);
		snprintf(line, sizeof(line), _("word-only %s, no positions = %s"), qk, v1);
		if (av_text_width(line) > width)
			snprintf(line, sizeof(line), _("word-only, no positions %s"), v1);
		if (av_text_width(line) > width)
			snprintf(line, sizeof(line), _("word-only %s"), v1);
		if (av_text_width(line) <= width)
			av_put(w, y, 0, line, width, now->cell ? dim : label);
		y++;
	}
	return y;
}

/* From row y: sparklines of the cell's scaled score and weight over the
 * epochs; returns the next row. */
static int track_sparks(struct av_app *a, WINDOW *w, int y, int h)
{
	struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w), H = tr->cfg.heads, n = tr->epoch + 1;
	double *series = av_malloc((size_t)n * sizeof(double));
	for (int k = 0; k < 2 && y < height; k++, y++) {
		for (int e = 0; e < n; e++)
			series[e] = tr->track_cell_history[((size_t)e * H + h) * 2 + k];
		int x = av_put(w, y, 0, k ? _("weight ") : _("scaled "), width, el(a, AV_EL_DIM));
		spark(a, w, y, x, width - x, series, n);
	}
	free(series);
	return y;
}

/* The columns of the table: epoch, scaled, weight, word-only (narrower
 * when the panel is). */
struct track_cols {
	int epoch, scaled, weight, word;
};

/* Row of epoch e of the table (now: the current numbers, labelled "now"):
 * its text in row (size bytes). An epoch not reached yet shows dots. */
static void track_table_row(const struct av_trainer *tr, int h, int e, const struct track_now *now,
			    const struct track_cols *cw, char *row, size_t size)
{
	int H = tr->cfg.heads;
	char c1[32], c2[32], c3[32];
	if (now) {
		fmt_score(c1, sizeof(c1), now->scaled, 3);
		fmt_weight(c2, sizeof(c2), now->weight);
		fmt_score(c3, sizeof(c3), now->word, 3);
	} else if (e <= tr->epoch) {
		size_t at = (size_t)e * H + h;
		fmt_score(c1, sizeof(c1), tr->track_cell_history[2 * at], 3);
		fmt_weight(c2, sizeof(c2), tr->track_cell_history[2 * at + 1]);
		fmt_score(c3, sizeof(c3), tr->track_history[at], 3);
	} else {
		const char *dot = av_draw_utf8() ? "·" : ".";
		snprintf(c1, sizeof(c1), "%s", dot);
		snprintf(c2, sizeof(c2), "%s", dot);
		snprintf(c3, sizeof(c3), "%s", dot);
	}
	char ep[48], num[16];
	snprintf(num, sizeof(num), "%d", e);
	ep[0] = '\0';
	if (now) {
		/* TRANSLATORS: the last row of the table: "now   212" */
		snprintf(ep, sizeof(ep), "%s", _("now"));
		rjust_cat(ep, sizeof(ep), num, cw->epoch - av_text_width(ep));
	} else {
		snprintf(ep, sizeof(ep), "%s", num);
	}
	row[0] = '\0';
	rjust_cat(row, size, ep, cw->epoch);
	if (tr->track_item >= 0) {
		rjust_cat(row, size, c1, cw->scaled + 1);
		rjust_cat(row, size, c2, cw->weight + 1);
	}
	rjust_cat(row, size, c3, cw->word + 1);
}

/* From row y: seed 001's table, epochs 0, 50, 150 (more when there is
 * room) and now. */
static void track_table(struct av_app *a, WINDOW *w, int y, int h, const struct track_now *now)
{
	struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	static const int few[] = { 0, 50, 150 };
	static const int more[] = { 0, 10, 50, 100, 150, 200 };
	int rows_left = height - y - 2;           /* the heading and "now" */
	const int *epochs = rows_left >= 6 ? more : few;
	int n_epochs = rows_left >= 6 ? 6 : rows_left >= 3 ? 3 : rows_left;
	bool slim = width < 38;
	/* slim: 33 columns; a score ("−13.756") or a weight ("4.2e-07") and
	 * a space take 8 */
	const struct track_cols cw = { slim ? 7 : 9, slim ? 7 : 9, 7, slim ? 9 : 10 };
	/* the headings are translated, so they are padded by columns (a CJK
	 * character takes two), never by printf's bytes */
	char line[256] = "";
	/* TRANSLATORS: headings of the tracked pair's table, right-aligned in
	   columns of 7-9 ("epoch"), 7-9 ("scaled"), 7 ("weight") and 9-10
	   ("word-only") terminal columns; a Chinese character takes two */
	rjust_cat(line, sizeof(line), _("epoch"), cw.epoch);
	if (now->cell) {
		rjust_cat(line, sizeof(line), _("scaled"), cw.scaled + 1);
		rjust_cat(line, sizeof(line), _("weight"), cw.weight + 1);
	}
	rjust_cat(line, sizeof(line), _("word-only"), cw.word + 1);
	av_put(w, y++, 0, line, width, el(a, AV_EL_DIM));
	for (int i = 0; i <= n_epochs && y < height; i++, y++) {
		bool is_now = i == n_epochs;
		char row[200];
		track_table_row(tr, h, is_now ? tr->epoch : epochs[i], is_now ? now : NULL, &cw, row,
				sizeof(row));
		av_put(w, y, 0, row, width, el(a, is_now ? AV_EL_LABEL : AV_EL_NORMAL));
	}
}

void av_train_panel_track(struct av_app *a, WINDOW *w)
{
	struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w), h = head_of(a);
	if (tr->track[0] < 0) {
		title(a, w, _("tracked pair"), _("none"));
		if (height > 1)
			av_put(w, 1, 0, _("v, a cell, Enter: track that pair"), width,
			       el(a, AV_EL_DIM));
		return;
	}
	track_title(a, w, h);
	if (height < 2)
		return;
	struct track_now now = { NAN, NAN, NAN, tr->track_item >= 0 };
	av_trainer_track_cell(tr, h, &now.scaled, &now.weight);
	now.word = av_trainer_track_score(tr, h);
	int y = track_now_lines(a, w, 1, &now);
	if (now.cell && height >= 12 && width >= 30)
		y = track_sparks(a, w, y, h);
	if (y + 2 <= height)
		track_table(a, w, y, h, &now);
}

/* --- matrices: a sentence's weights, the vocabulary's scores --------------- */

struct matrix {
	int rows, cols;
	const float *v;                 /* (rows, cols) */
	char *const *row_label;
	char *const *col_label;
	bool weights;                   /* 0..1; else signed, over -range..range */
	double range;
	const unsigned char *mark;      /* (rows, cols): a target or pair cell, or NULL */
	const unsigned char *hidden;    /* (rows, cols): a masked cell, or NULL */
	int cur_row, cur_col;           /* the cursor, or -1 */
	int hl_row, hl_col;             /* labels to highlight (the tracked pair), or -1 */
	int label_w, cell_w;            /* fixed sizes (matrices stacked), or 0 */
	int row_h;                      /* screen rows per matrix row (0 = 1) */
};

/* The cell width that shows signed numbers up to range with a decimal
 * ("−2.4": four columns, after a mark and before a space), or 0 when none
 * does. */
static int one_decimal_cells(double range, bool neg)
{
	for (int w = 3; w <= 10; w++)
		if (av_cell_decimals(range, neg, w) >= 1)
			return w + 2;
	return 0;
}

/* Row-label and cell widths for matrices of up to cols columns with labels
 * of up to label_w columns in width: the widest cells that fit (7 to 5, with
 * numbers), then shorter labels (6), then narrower cells without numbers.
 * Signed numbers (want_cw, else 0: one_decimal_cells) keep a decimal while
 * labels of 4 columns or more leave room for it: a score read "0" in the
 * cell of a pair whose tracking line said 0.355. */
static void choose_cells(int width, int label_w, int cols, int want_cw, int *lw_out,
			 int *cw_out)
{
	int lw = label_w < 3 ? 3 : label_w > 12 ? 12 : label_w;
	int cw = 0;
	for (int pass = 0; pass < 2 && !cw; pass++) {
		int l = pass ? (lw < 6 ? lw : 6) : lw;
		for (int t = pass ? 7 : 10; t >= (pass ? 2 : 5) && !cw; t--)
			if (l + 1 + cols * t <= width) {
				cw = t;
				lw = l;
			}
	}
	if (!cw) {
		lw = lw < 6 ? lw : 6;
		cw = 2;
	}
	int short_lw = width - 1 - cols * want_cw;
	if (want_cw > cw && short_lw >= 4) {
		lw = short_lw < lw ? short_lw : lw;
		cw = want_cw;
	}
	*lw_out = lw;
	*cw_out = cw;
}

static void weight_text(char *buf, size_t size, double v, int width)
{
	if (!isfinite(v)) {
		snprintf(buf, size, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	snprintf(buf, size, "%.2f", v);
	if ((int)strlen(buf) > width && buf[0] == '0')
		memmove(buf, buf + 1, strlen(buf));      /* ".93" */
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%.1f", v);
}

/* Where a matrix's cells go in a window: label and cell widths, rows per
 * cell, how many fit, the first shown (so the cursor is on screen), and
 * the numbers' decimals. */
struct matrix_plan {
	int lw, cw, rh;
	int vis_cols, vis_rows, first_col, first_row;
	bool numbers;
	int decimals;
};

/* false: not one column fits */
static bool plan_matrix(struct matrix_plan *pl, int width, int height, const struct matrix *m)
{
	pl->lw = m->label_w;
	pl->cw = m->cell_w;
	bool neg = false;
	for (int i = 0; i < m->rows * m->cols && !m->weights; i++)
		neg |= m->v[i] < 0;
	if (!pl->lw || !pl->cw) {
		int widest = 3;
		for (int i = 0; i < m->rows; i++) {
			int tw = av_text_width(m->row_label[i]);
			widest = tw > widest ? tw : widest;
		}
		int want = m->weights ? 0 : one_decimal_cells(m->range, neg);
		choose_cells(width, widest, m->cols, want, &pl->lw, &pl->cw);
	}
	pl->rh = m->row_h > 1 ? m->row_h : 1;
	pl->vis_cols = (width - pl->lw - 1) / pl->cw;
	pl->vis_rows = (height - 1) / pl->rh;
	if (pl->vis_cols < 1)
		return false;
	pl->first_col = m->cur_col >= pl->vis_cols ? m->cur_col - pl->vis_cols + 1 : 0;
	pl->first_row = m->cur_row >= pl->vis_rows ? m->cur_row - pl->vis_rows + 1 : 0;
	pl->numbers = pl->cw >= 5;
	pl->decimals = 0;
	if (pl->numbers && !m->weights)
		pl->decimals = av_cell_decimals(m->range, neg, pl->cw - 2);
	return true;
}

/* The first cols columns of s, whole characters, into out (size bytes). */
static void first_columns(const char *s, int cols, char *out, size_t size)
{
	size_t len = strlen(s), off = 0;
	int used = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(s + off, len - off, &cp);
		int cw = k < 0 ? 1 : av_cp_width(cp);
		if (k < 0)
			k = 1;
		if (used + cw > cols)
			break;
		used += cw;
		off += (size_t)k;
	}
	snprintf(out, size, "%.*s", (int)off, s);
}

/* s as a label of cols columns: whole, or its first columns and "…". */
static void cut_label(const char *s, int cols, char *out, size_t size)
{
	if (av_text_width(s) <= cols) {
		snprintf(out, size, "%s", s);
		return;
	}
	first_columns(s, cols - av_text_width("…"), out, size);
	if (strlen(out) + strlen("…") < size)
		strcat(out, "…");
}

/* Column j's label in cols columns (cut as av_put_right would cut it),
 * unless the cut reads as another visible column's: "ch…" stood over both
 * china and cherry (the vocabulary at 60x20). Then the label's first cols
 * columns without the "…" ("chi", "che"), and where even those agree the
 * column's index. */
static void column_label(const struct matrix *m, const struct matrix_plan *pl, int j,
			 int cols, char *out, size_t size)
{
	int last = pl->first_col + pl->vis_cols;
	if (last > m->cols)
		last = m->cols;
	cut_label(m->col_label[j], cols, out, size);
	if (av_text_width(m->col_label[j]) <= cols)
		return;
	for (int pass = 0; pass < 2; pass++) {
		bool clash = false;
		for (int k = pl->first_col; k < last && !clash; k++) {
			char other[64];
			if (k == j)
				continue;
			if (pass == 0)
				cut_label(m->col_label[k], cols, other, sizeof(other));
			else
				first_columns(m->col_label[k], cols, other, sizeof(other));
			clash = strcmp(out, other) == 0;
		}
		if (!clash)
			return;
		if (pass == 0)
			first_columns(m->col_label[j], cols, out, size);
		else
			snprintf(out, size, "%d", j);
	}
}

/* The column labels in row y, with ◀ ▶ where columns are cut off. */
static void draw_matrix_columns(struct av_app *a, WINDOW *w, int y, const struct matrix *m,
				const struct matrix_plan *pl)
{
	int width = getmaxx(w);
	bool utf8 = av_draw_utf8();
	for (int j = pl->first_col; j < m->cols && j < pl->first_col + pl->vis_cols; j++) {
		int x = pl->lw + 1 + (j - pl->first_col) * pl->cw;
		attr_t at = j == m->hl_col ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (j == m->cur_col)
			at = el(a, AV_EL_CURSOR);
		char label[64];
		if (pl->cw >= 4)
			column_label(m, pl, j, pl->cw - 1, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "%d", j);
		av_put_right(w, y, x, label, pl->cw - 1, at);
	}
	if (pl->first_col + pl->vis_cols < m->cols)
		av_put(w, y, width - 1, utf8 ? "▶" : ">", 1, el(a, AV_EL_DIM));
	if (pl->first_col > 0)
		av_put(w, y, 0, utf8 ? "◀" : "<", 1, el(a, AV_EL_DIM));
}

/* Cell (i, j) at (yy, x): a mark (•, ╳ for hidden, or a shade), then the
 * number where it fits, else colour or shades only; a taller cell (a
 * projector's) continues its colour below. */
static void draw_matrix_cell(struct av_app *a, WINDOW *w, int yy, int x, const struct matrix *m,
			     const struct matrix_plan *pl, int i, int j)
{
	struct av_colors *c = &a->colors;
	bool utf8 = av_draw_utf8();
	int cw = pl->cw;
	double v = m->v[(size_t)i * m->cols + j];
	bool hidden = m->hidden && m->hidden[(size_t)i * m->cols + j];
	bool marked = m->mark && m->mark[(size_t)i * m->cols + j];
	double pos = av_heat_position(v, m->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED, m->range);
	attr_t heat = hidden ? el(a, AV_EL_MASKED) : av_colors_heat(c, !m->weights, pos);
	bool shade = av_colors_glyphs(c) || (!hidden && heat == A_NORMAL);
	double spos = m->weights ? pos : fabs(2 * pos - 1);
	if (i == m->cur_row && j == m->cur_col)
		heat = el(a, AV_EL_CURSOR);
	char text[48] = "";
	/* in ASCII the mark is "o": "*" is a shade (0.6 to 0.7) without
	 * colour, and a weight of 0.65 read as a target */
	const char *lead = marked ? (utf8 ? "•" : "o")
		       : hidden ? (utf8 ? "╳" : "x")
		       : shade ? av_colors_shade(c, spos) : " ";
	if (pl->numbers && !hidden) {
		if (m->weights) {
			weight_text(text, sizeof(text), v, cw - 2);
		} else {
			av_cell_format(text, sizeof(text), v, pl->decimals, cw - 2);
			av_cell_minus(text, sizeof(text));
		}
		av_put(w, yy, x, lead, 1, heat);
		av_put_right(w, yy, x + 1, text, cw - 2, heat);
	} else {
		av_put(w, yy, x, lead, 1, heat);
		for (int k = 1; k < cw - 1; k++)
			av_put(w, yy, x + k, hidden ? " " : shade ? av_colors_shade(c, spos) : " ",
			       1, heat);
	}
	for (int r = 1; r < pl->rh; r++)
		for (int k = 0; k < cw - 1; k++)
			av_put(w, yy + r, x + k, hidden || !shade ? " " : av_colors_shade(c, spos),
			       1, heat);
}

/* Draws m in rows y.. of w (a row of column labels, then the matrix),
 * scrolled to keep the cursor in view; returns the rows used. */
static int draw_matrix(struct av_app *a, WINDOW *w, int y, int height, const struct matrix *m)
{
	struct matrix_plan pl;
	if (height < 2 || m->rows == 0 || m->cols == 0 || !plan_matrix(&pl, getmaxx(w), height, m))
		return 0;
	draw_matrix_columns(a, w, y, m, &pl);
	int used = 1;
	for (int i = pl.first_row; i < m->rows && used + pl.rh <= height; i++, used += pl.rh) {
		int yy = y + used;
		attr_t la = i == m->hl_row ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (i == m->cur_row)
			la = el(a, AV_EL_CURSOR);
		av_put_pad(w, yy, 0, m->row_label[i], pl.lw, la);
		for (int j = pl.first_col; j < m->cols && j < pl.first_col + pl.vis_cols; j++)
			draw_matrix_cell(a, w, yy, pl.lw + 1 + (j - pl.first_col) * pl.cw, m, &pl, i, j);
	}
	if (pl.first_row + pl.vis_rows < m->rows)
		av_put(w, y, 0, av_draw_utf8() ? "▼" : "v", 1, el(a, AV_EL_DIM));
	return used;
}

/* The legend's range in at most width columns, with its trailing zeros:
 * %.4g drops them (5.238, then 5.24, then 5.2), and each narrower number
 * moved the colour scale and the text after it one column, so a tick
 * resent the whole row (some 200 bytes of colours) for one digit. */
static void legend_number(char *buf, size_t size, double v, int width)
{
	char kept[32];
	snprintf(kept, sizeof(kept), "%#.4g", v);
	size_t len = strlen(kept);
	if (len && kept[len - 1] == '.')   /* 1234. */
		kept[--len] = '\0';
	if (v == 0 || !isfinite(v) || strchr(kept, 'e') || (int)len > width) {
		chart_number(buf, size, v, width);
		return;
	}
	snprintf(buf, size, "%s", kept);
	av_cell_minus(buf, size);
}

/* After column x: two spaces and the first of texts (NULL-ended) that fits
 * within width, drawn in attr when w, else only measured. The column after
 * it (x when none fits). */
static int first_that_fits(WINDOW *w, int y, int x, int width, const char *const *texts,
			   attr_t attr)
{
	for (int i = 0; texts[i] != NULL; i++) {
		int tw = av_text_width(texts[i]);
		if (x + 2 + tw > width)
			continue;
		if (w) {
			av_put(w, y, x, "  ", width - x, A_NORMAL);
			av_put(w, y, x + 2, texts[i], width - x - 2, attr);
		}
		return x + 2 + tw;
	}
	return x;
}

/* After the scale, from column x: that the cells are rounded to whole
 * numbers when they are (rounded), and the first of the marks' texts,
 * longest first, that fits; drawn when w, else only measured. The columns
 * they take. */
static int legend_tail(struct av_app *a, WINDOW *w, int y, int x, int width, bool rounded,
		       const char *const *marks)
{
	const int from = x;
	/* before the marks: a cell's "0" under a tracking line's 0.355 read
	 * as another number */
	const char *const round_texts[] = { _("cells rounded to whole numbers"),
					    _("cells rounded"), NULL };
	if (rounded)
		x = first_that_fits(w, y, x, width, round_texts, el(a, AV_EL_LABEL));
	x = first_that_fits(w, y, x, width, marks, el(a, AV_EL_DIM));
	return x - from;
}

/* The range's text for the legend: with its trailing zeros, so that the
 * scale keeps its columns from tick to tick (legend_number), unless the
 * %.4g form, narrower now, leaves room for more of the texts after it. */
static void legend_range(struct av_app *a, char *buf, size_t size, double range, int steps,
			 int width, bool rounded, const char *const *marks)
{
	char narrow[24];
	legend_number(buf, size, range, 6);
	chart_number(narrow, sizeof(narrow), range, 6);
	/* "−R" + " " + the scale + " " + "+R" */
	int kept_x = 2 * (1 + av_text_width(buf)) + 2 + steps;
	int narrow_x = 2 * (1 + av_text_width(narrow)) + 2 + steps;
	if (legend_tail(a, NULL, 0, narrow_x, width, rounded, marks) >
	    legend_tail(a, NULL, 0, kept_x, width, rounded, marks))
		snprintf(buf, size, "%s", narrow);
}

/* "0 ░▒▓█ 1" or "−2.3 ... +2.3", that the cells are rounded to whole
 * numbers when they are (rounded), and what the marks mean, in row y. */
static void draw_map_legend(struct av_app *a, WINDOW *w, int y, bool weights, double range,
			    bool rounded, const char *const *marks)
{
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	attr_t label = el(a, AV_EL_LABEL);
	char lo[40], hi[40], r[32];
	int steps = av_colors_legend_steps(c, !weights, 9);
	if (weights) {
		snprintf(lo, sizeof(lo), "0");
		snprintf(hi, sizeof(hi), "1");
	} else {
		legend_range(a, r, sizeof(r), range, steps, width, rounded, marks);
		snprintf(lo, sizeof(lo), "%s%s", av_draw_utf8() ? "−" : "-", r);
		snprintf(hi, sizeof(hi), "+%s", r);
	}
	int x = av_put(w, y, 0, lo, width, label);
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	for (int i = 0; i < steps && x < width; i++, x++)
		av_colors_swatch(w, y, x, 1, c, !weights, (double)i / (steps - 1));
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	x += av_put(w, y, x, hi, width - x, label);
	legend_tail(a, w, y, x, width, rounded, marks);
}

const char *av_train_last_step_mark(void)
{
	return _("  #N<: the last step");
}

/* The first sentence the map shows: all of them when they fit, else from
 * the selected one. */
static int first_shown(const struct av_app *a, int rows)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int need = 0;
	int rh = tv->row_h > 1 ? tv->row_h : 1;
	for (int i = 0; i < tr->n_items; i++)
		need += tr->items[i].trace.n * rh + 1;
	return need <= rows ? 0 : tv->sentence;
}

/* The attention weights of the corpus sentences, stacked (one head): each
 * a row of key labels, then its rows; the target cells marked. */
/* The training sentences that fit in rows from first on (at least one),
 * their last; *widest: the widest query label, *cols: the most keys. */
static int fit_sentences(const struct av_trainer *tr, int first, int rows, int rh, int *widest,
			 int *cols)
{
	int last = first, used = 0;
	*widest = 3;
	*cols = 1;
	for (int i = first; i < tr->n_items; i++) {
		const struct av_trace *t = &tr->items[i].trace;
		if (i > first && used + t->n * rh + 1 > rows)
			break;
		used += t->n * rh + 1;
		last = i;
		for (int r = 0; r < t->n; r++) {
			int tw = av_text_width(t->tokens.text[r]);
			*widest = tw > *widest ? tw : *widest;
		}
		*cols = t->m > *cols ? t->m : *cols;
	}
	return last;
}

/* The map's title: what it shows, and the head, which sentences of how
 * many, and d's other map, in whole groups as they fit. */
static void sentence_map_title(struct av_app *a, WINDOW *w, int first, int last, int h)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	char remark[160] = "";
	bool all = first == 0 && last == tr->n_items - 1;
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), _("head %d (Tab)"), h);
	if (!all && first == last)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 _("%s#%d of %d (j/k)"), remark[0] ? "  " : "", first + 1, tr->n_items);
	else if (!all)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 _("%s#%d-%d of %d (j/k)"), remark[0] ? "  " : "", first + 1, last + 1,
			 tr->n_items);
	char name[64], qk[32];
	qk_text(qk, sizeof(qk), tr);
	if (tv->scores)
		snprintf(name, sizeof(name), _("scaled scores %s"), qk);
	else
		snprintf(name, sizeof(name), "%s", all ? _("attention weights") : _("attention"));
	snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark), "%s%s",
		 remark[0] ? "  " : "", tv->scores ? _("d: weights") : _("d: scores"));
	/* whole groups ("d: scores" or nothing, not "d: scor…") */
	char *fit = av_layout_hints(remark, getmaxx(w) - av_text_width(name) - 2, av_text_width);
	title(a, w, name, fit);
	free(fit);
}

/* The largest |scaled score| of head h over the visible cells of
 * sentences first to last: one colour range for every sentence shown;
 * *neg: whether a cell of theirs is negative. */
static double scores_range(const struct av_trainer *tr, int first, int last, int h, bool *neg)
{
	double range = 0;
	*neg = false;
	for (int i = first; i <= last; i++) {
		const struct av_trace *t = &tr->items[i].trace;
		size_t cells = (size_t)t->n * t->m;
		for (size_t k = 0; k < cells; k++) {
			double x = t->scaled[(size_t)h * cells + k];
			*neg |= x < 0;
			if (t->mask[k] && isfinite(x) && fabs(x) > range)
				range = fabs(x);
		}
	}
	return range;
}

/* Sentence i's matrix from row y in at most rows rows, its target cells
 * marked and its number before its key labels; returns the rows used. */
static int draw_sentence(struct av_app *a, WINDOW *w, int i, int y, int rows, int h,
			 double range, int lw, int cw, int rh)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	const struct av_train_item *it = &tr->items[i];
	const struct av_trace *t = &it->trace;
	size_t cells = (size_t)t->n * t->m;
	unsigned char *mark_cells = av_calloc(cells ? cells : 1, 1);
	unsigned char *hidden = av_calloc(cells ? cells : 1, 1);
	for (size_t k = 0; k < cells; k++) {
		mark_cells[k] = it->target[k] > 0.5;
		hidden[k] = !t->mask[k];
	}
	bool cross = tr->cfg.mode == AV_MODE_CROSS;
	struct matrix m = {
		.rows = t->n, .cols = t->m,
		.v = (tv->scores ? t->scaled : t->weights) + (size_t)h * cells,
		.row_label = t->tokens.text,
		.col_label = cross ? t->source_tokens.text : t->tokens.text,
		.weights = !tv->scores, .range = tv->scores ? range : 1,
		.mark = mark_cells, .hidden = hidden,
		.cur_row = -1, .cur_col = -1, .hl_row = -1, .hl_col = -1,
		.label_w = lw, .cell_w = cw, .row_h = rh,
	};
	int got = draw_matrix(a, w, y, rows, &m);
	char num[16];
	snprintf(num, sizeof(num), "#%d%s", i + 1, i == tr->last_item ? "<" : "");
	if (got > 0 && av_text_width(num) < lw)
		av_put(w, y, 0, num, lw, i == tv->sentence && tr->n_items > 1 ?
		       el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
	free(mark_cells);
	free(hidden);
	return got;
}

void av_train_panel_sentence_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w), height = getmaxy(w);
	int h = head_of(a);
	int rows = height - 2;     /* between the title and the legend */
	int first = first_shown(a, rows);
	int rh = tv->row_h > 1 ? tv->row_h : 1;
	/* the sentences that fit, and one size of cells for all of them */
	int widest, cols;
	int last = fit_sentences(tr, first, rows, rh, &widest, &cols);
	bool neg = false;
	double range = tv->scores ? scores_range(tr, first, last, h, &neg) : 0;
	int lw, cw;
	choose_cells(width, widest, cols, tv->scores ? one_decimal_cells(range, neg) : 0, &lw, &cw);
	bool rounded = tv->scores && cw >= 5 && av_cell_decimals(range, neg, cw - 2) == 0;
	sentence_map_title(a, w, first, last, h);
	int y = 1;
	for (int i = first; i <= last && y < height - 1; i++)
		y += draw_sentence(a, w, i, y, height - 1 - y, h, range, lw, cw, rh);
	if (y < height) {
		/* the last step's mark said where it fits (the help says it at
		 * every size); the target's always */
		const char *step_marks[] = { av_train_last_step_mark(), "" };
		int from = tr->last_item >= 0 ? 0 : 1;
		char texts[2][96];
		const char *marks[3] = { NULL };
		for (int i = from; i < 2; i++) {
			snprintf(texts[i], sizeof(texts[i]), _("%s target (%s)%s"),
				 av_draw_utf8() ? _("•") : "o", av_target_names[tr->set.target],
				 step_marks[i]);
			marks[i - from] = texts[i];
		}
		draw_map_legend(a, w, y, !tv->scores, tv->scores ? range : 1, rounded, marks);
	}
}

static bool is_pair(const struct av_trainer *tr, const char *x, const char *y)
{
	for (int i = 0; i < tr->n_pairs; i++)
		if ((strcmp(tr->pairs[i][0], x) == 0 && strcmp(tr->pairs[i][1], y) == 0) ||
		    (strcmp(tr->pairs[i][1], x) == 0 && strcmp(tr->pairs[i][0], y) == 0))
			return true;
	return false;
}

void av_train_panel_vocab_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int height = getmaxy(w);
	int V = tr->params.vocab_size, h = head_of(a);
	char name[96], remark[96];
	snprintf(name, sizeof(name), _("vocabulary: word-only q(a)%sk(b)%s, no positions"),
		 av_draw_utf8() ? "·" : ".", divisor_text(tr));
	const char *keys = tv->vocab ? _("Enter: track") : "v";
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), _("head %d  %s"), h, keys);
	else
		snprintf(remark, sizeof(remark), "%s", keys);
	title(a, w, name, remark);
	if (!tv->vscores || V == 0)
		return;
	const float *v = tv->vscores + (size_t)h * V * V;
	unsigned char *mark = av_calloc((size_t)V * V, 1);
	double range = 0;
	for (int i = 0; i < V; i++)
		for (int j = 0; j < V; j++) {
			double x = v[(size_t)i * V + j];
			if (isfinite(x) && fabs(x) > range)
				range = fabs(x);
			mark[(size_t)i * V + j] = is_pair(tr, tr->params.vocab[i], tr->params.vocab[j]);
		}
	struct matrix m = {
		.rows = V, .cols = V, .v = v,
		.row_label = tr->params.vocab, .col_label = tr->params.vocab,
		.weights = false, .range = range,
		.mark = tr->n_pairs ? mark : NULL,
		.cur_row = tv->vocab ? tv->vrow : -1, .cur_col = tv->vocab ? tv->vcol : -1,
		.hl_row = tr->track[0], .hl_col = tr->track[1], .row_h = tv->row_h,
	};
	int used = draw_matrix(a, w, 1, height - 2, &m);
	free(mark);
	struct matrix_plan pl;
	bool rounded = plan_matrix(&pl, getmaxx(w), height - 2, &m) && pl.numbers &&
		       pl.decimals == 0;
	const char *pairs[] = { av_draw_utf8() ? _("• a pair of the sample")
				: _("o a pair of the sample"), NULL };
	if (used + 1 < height)
		draw_map_legend(a, w, 1 + used, false, range, rounded,
				tr->n_pairs ? pairs : pairs + 1);
}

/* --- the histogram -------------------------------------------------------- */

void av_train_panel_hist(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM);
	char remark[96];
	int bins = tv->bins;
	int max = 0;
	for (int b = 0; b < bins; b++)
		max = tv->hist[b] > max ? tv->hist[b] : max;
	/* not after a stop: the scores are not numbers, and the remedy is r */
	bool alike = tv->hist_n > 1 && isfinite(tv->hist_lo) && isfinite(tv->hist_hi) &&
		     tv->hist_hi - tv->hist_lo < 0.1 && !av_trainer_diverged(tv->tr);
	if (alike) {
		title(a, w, _("scores all alike"), NULL);
		int x = av_text_width(_("scores all alike")) + 2;
		av_put(w, 0, x, _("try init xavier (i) or lr x2 (])"), width - x, el(a, AV_EL_ERROR));
	} else {
		snprintf(remark, sizeof(remark), _("%d scores, %d bins, tallest %d"), tv->hist_n, bins,
			 max);
		if (av_text_width(remark) + 12 > width)
			snprintf(remark, sizeof(remark), _("%d scores, %d bins"), tv->hist_n, bins);
		title(a, w, _("all scores"), remark);
	}
	int rows = height - 2;
	if (rows < 1 || bins < 1)
		return;
	int bw = width / bins;
	if (bw < 1)
		bw = 1;
	if (bw > 3)
		bw = 3;
	int x0 = (width - bw * bins) / 2;
	bool utf8 = av_draw_utf8();
	for (int b = 0; b < bins; b++) {
		int e = av_bar_eighths(tv->hist[b], max, rows);
		for (int r = 0; r < rows; r++) {
			const char *g = av_bar_glyph(e, r, utf8);
			if (strcmp(g, " ") == 0)
				break;
			for (int k = 0; k < bw && (bw == 1 || k < bw - 1); k++)
				av_put(w, rows - r, x0 + b * bw + k, g, 1, el(a, AV_EL_LABEL));
		}
	}
	/* the axis: the lowest and highest score, and 0 between them */
	char lo[32], hi[32];
	chart_number(lo, sizeof(lo), tv->hist_lo, 7);
	chart_number(hi, sizeof(hi), tv->hist_hi, 7);
	int span = bw * bins;
	int lw = av_text_width(lo), hw = av_text_width(hi);
	av_put(w, height - 1, x0, lo, width - x0, dim);
	if (lw + hw + 1 <= span)
		av_put(w, height - 1, x0 + span - hw, hi, hw, dim);
	if (tv->hist_lo < 0 && tv->hist_hi > 0) {
		int zx = x0 + (int)(-tv->hist_lo / (tv->hist_hi - tv->hist_lo) * span);
		/* a blank column from each number (lo ends at x0 + lw - 1, hi
		 * starts at x0 + span - hw), or "↑0" next to "0.797" reads as
		 * the number "00.797" */
		int zero_end = zx + 1;   /* the mark is 2 columns */
		if (zx > x0 + lw && zero_end + 1 < x0 + span - hw)
			av_put(w, height - 1, zx, utf8 ? "↑0" : "^0", 2, dim);
	}
}

/* --- the weight matrices and their gradients ------------------------------ */

/* Labels "0", "1", ... for matrix rows and columns. */
static char *const *index_labels(void)
{
	static char text[AV_MATS_MAX_LABELS][12];   /* room for any int */
	static char *labels[AV_MATS_MAX_LABELS];
	if (!labels[0])
		for (int i = 0; i < AV_MATS_MAX_LABELS; i++) {
			snprintf(text[i], sizeof(text[i]), "%d", i);
			labels[i] = text[i];
		}
	return labels;
}

/* One matrix to show: a weight (float) or its gradient (double). */
struct mat_block {
	char title[64];
	float *v;           /* (rows, cols): the top-left corner, scaled */
	int rows, cols;
	double range;
};

/* The corner of a large matrix that is copied: more than any panel shows
 * (its edges still get the "more" marks), far less than D x D at D=4096. */
#define MAT_CORNER 128

/* Fills b with tensor id of tr (a weight, or its last gradient), scaled
 * by a power of ten so the largest value reads 1..10 when it is tiny or
 * huge (as PyTorch prints "1e-03 *"). */
static void mat_block_fill(const struct av_trainer *tr, int id, bool grad, struct mat_block *b)
{
	size_t count;
	const float *p = av_param_tensor(&tr->params, id, &count);
	int D = tr->params.d_model;
	int n = D < MAT_CORNER ? D : MAT_CORNER;
	b->rows = b->cols = n;
	b->v = av_malloc((size_t)n * n * sizeof(float));
	double big = 0;
	const double *g = grad ? tr->grad.t[id] : NULL;
	for (size_t c = 0; c < count; c++) {
		double x = grad ? (g ? g[c] : 0) : p[c];
		if (isfinite(x) && fabs(x) > big)
			big = fabs(x);
	}
	int e = big > 0 && (big < 0.1 || big >= 1000) ? (int)floor(log10(big)) : 0;
	double f = pow(10, -e);
	for (int r = 0; r < n; r++)
		for (int c = 0; c < n; c++) {
			size_t k = (size_t)r * D + c;
			b->v[(size_t)r * n + c] = (float)((grad ? (g ? g[k] : 0) : p[k]) * f);
		}
	b->range = big * f;
	char scale[24] = "";
	if (e)
		snprintf(scale, sizeof(scale), " x1e%d", e);
	snprintf(b->title, sizeof(b->title), "%s%s %d%s%d%s", grad ? "d" : "", short_name(id), D,
		 av_draw_utf8() ? "×" : "x", D, scale);
}

/* The panel's title, and what the gradients shown come from. */
static void mats_title(struct av_app *a, WINDOW *w, int mode)
{
	const struct av_trainer *tr = a->train->tr;
	bool want_w = mode != AV_MATS_GRAD, want_g = mode != AV_MATS_WEIGHTS;
	char remark[200] = "";
	/* after a fresh optimiser (o, or Adam freed when the view was left)
	 * the gradients are zeros until the next step */
	if (want_g && tr->last_item >= 0 && tr->steps > 0)
		snprintf(remark, sizeof(remark), _("%sstep on #%d \"%s\""), want_w ? _("W live, dW: ") : "",
			 tr->last_item + 1, tr->items[tr->last_item].query);
	else if (want_g)
		snprintf(remark, sizeof(remark), _("%sdW after a step (s, S)"), want_w ? _("W live, ") : "");
	else
		snprintf(remark, sizeof(remark), _("live (q = x W_q%s)"), av_draw_utf8() ? "ᵀ" : "^T");
	title(a, w, mode == AV_MATS_GRAD ? _("gradients") : mode == AV_MATS_WEIGHTS ? _("weights") :
	      _("weights and gradients"), remark);
}

/* One cell size for all blocks of D columns: the widest that lets two sit
 * side by side in width (cells of 9 to 7, wide for a projector), else one
 * a row (7 to 6: 6 keeps a decimal, "-1.2"); lw for the row labels. */
static void mats_cells(int D, int width, int *lw, int *cw)
{
	*lw = D > 100 ? 3 : D > 10 ? 2 : 1;
	*cw = 9;
	while (*cw > 7 && 2 * (*lw + 1 + D * *cw) + 2 > width)
		(*cw)--;
	if (2 * (*lw + 1 + D * *cw) + 2 > width)
		while (*cw > 6 && *lw + 1 + D * *cw > width)
			(*cw)--;
}

/* Where the blocks sit: per_row a row of them, block_w columns and block_h
 * rows each (a title, the column labels, D rows). */
struct mat_grid {
	int block_w, per_row, block_h;
};

static struct mat_grid mat_grid_of(int width, int D, int lw, int cw)
{
	struct mat_grid g = { lw + 1 + D * cw, 1, 2 + D };
	if (g.block_w > width)
		g.block_w = width;
	g.per_row = (width + 2) / (g.block_w + 2);
	if (g.per_row < 1)
		g.per_row = 1;
	return g;
}

/* The blocks that rows 1..rows-1 hold, from row 1 down: a row of blocks
 * goes in while 4 rows are left for it (a title, the labels and two rows;
 * a cut block's ▼ says it has more). */
static int mat_blocks_fitting(const struct mat_grid *g, int n, int rows)
{
	int y = 1, shown = 0;
	for (int k = 0; k < n; k += g->per_row) {
		int room = rows - y;
		if (room < 4)
			break;
		shown += n - k < g->per_row ? n - k : g->per_row;
		y += g->block_h < room ? g->block_h : room;
	}
	return shown;
}

/* The blocks that fit in rows 1..rows-1 of w (mat_blocks_fitting), drawn. */
static void draw_mat_blocks(struct av_app *a, WINDOW *w, const struct mat_block *blocks, int n,
			    const struct mat_grid *g, int rows, int lw, int cw)
{
	int y = 1;
	for (int k = 0; k < n; k += g->per_row) {
		int room = rows - y;
		if (room < 4)
			break;
		int bh = g->block_h < room ? g->block_h : room;
		for (int c = 0; c < g->per_row && k + c < n; c++) {
			const struct mat_block *b = &blocks[k + c];
			WINDOW *sub = derwin(w, bh, g->block_w, y, c * (g->block_w + 2));
			if (!sub)
				continue;
			av_put(sub, 0, 0, b->title, g->block_w, el(a, AV_EL_LABEL));
			struct matrix m = {
				.rows = b->rows, .cols = b->cols, .v = b->v,
				.row_label = index_labels(), .col_label = index_labels(),
				.weights = false, .range = b->range,
				.cur_row = -1, .cur_col = -1, .hl_row = -1, .hl_col = -1,
				.label_w = lw, .cell_w = cw,
			};
			draw_matrix(a, sub, 1, bh - 1, &m);
			delwin(sub);
		}
		y += bh;
	}
}

void av_train_panel_mats(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int mode = a->train->mats ? a->train->mats : AV_MATS_BOTH;
	bool want_w = mode != AV_MATS_GRAD, want_g = mode != AV_MATS_WEIGHTS;
	mats_title(a, w, mode);
	static const int ids[] = { AV_P_W_Q, AV_P_W_K, AV_P_W_V, AV_P_W_O };
	struct mat_block blocks[8];
	int n = 0;
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		int id = ids[i];
		if (!tr->trained[id])
			continue;
		if (want_w)
			mat_block_fill(tr, id, false, &blocks[n++]);
		if (want_g)
			mat_block_fill(tr, id, true, &blocks[n++]);
	}
	int D = tr->params.d_model < MAT_CORNER ? tr->params.d_model : MAT_CORNER, lw, cw;
	int width = getmaxx(w), height = getmaxy(w);
	mats_cells(D, width, &lw, &cw);
	struct mat_grid g = mat_grid_of(width, D, lw, cw);
	/* blocks left out: the last row says so, and no block is drawn in it
	 * (the note was written over a row of numbers, whose end stayed) */
	bool more = mat_blocks_fitting(&g, n, height) < n && height > 1;
	draw_mat_blocks(a, w, blocks, n, &g, more ? height - 1 : height, lw, cw);
	if (more)
		av_put(w, height - 1, 0, _("more below: a taller terminal"), width,
		       el(a, AV_EL_DIM));
	for (int k = 0; k < n; k++)
		free(blocks[k].v);
}

/* --- gradients ------------------------------------------------------------ */

void av_train_panel_grad(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	const struct av_train_diagnosis *d = &a->train->diag;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM), err = el(a, AV_EL_ERROR);
	int ids[AV_N_PARAMS], n = 0;
	for (int id = 0; id < AV_N_PARAMS; id++)
		if (tr->trained[id])
			ids[n++] = id;
	title(a, w, _("gradient norms"), !tr->steps ? _("after a step") : width >= 46 ?
	      _("print(W_q.grad)  g: matrices") : "print(W_q.grad)");
	int lines = height - 1;
	if (lines < 1)
		return;
	bool advice = d->trouble != AV_TROUBLE_NONE;
	char text[240] = "";
	if (advice)
		av_train_panel_remedy(tr, d, text, sizeof(text));
	/* the advice gets up to 3 rows, the norms the rest (two to a row when
	 * that makes room) */
	int want = advice ? (av_text_width(text) + width - 1) / (width > 0 ? width : 1) + 1 : 0;
	if (want > 4)
		want = 4;
	int per_line = 1;
	while (per_line < 3 && (n + per_line - 1) / per_line + want > lines &&
	       width / (per_line + 1) >= 12)
		per_line++;
	int norm_rows = (n + per_line - 1) / per_line;
	int adv_rows = advice ? lines - norm_rows : 0;
	if (advice && adv_rows < 1) {
		adv_rows = 1;
		norm_rows = lines - 1;
	}
	if (adv_rows > want)
		adv_rows = want;
	int colw = width / per_line;
	for (int k = 0; k < n; k++) {
		int row = 1 + k / per_line, x = (k % per_line) * colw;
		if (row > norm_rows)
			break;
		int id = ids[k];
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		char norm[32];
		double v = tr->grad_norm[id];
		if (isnan(v) || tr->steps == 0)
			snprintf(norm, sizeof(norm), "%s", av_draw_utf8() ? "—" : "-");
		else
			snprintf(norm, sizeof(norm), "%.2e", v);
		const char *word = g == AV_GRAD_VANISHING ? _("vanishing!")
				   : g == AV_GRAD_EXPLODING ? _("exploding!")
				   : g == AV_GRAD_UNUSED ? (per_line == 1 ? _("no effect on the loss") : _("unused"))
				   : tr->steps ? _("ok") : "";
		attr_t wa = g == AV_GRAD_VANISHING || g == AV_GRAD_EXPLODING ? err
			    : g == AV_GRAD_UNUSED ? dim : el(a, AV_EL_NORMAL);
		char cell[96];
		if (per_line >= 2 && colw < 22) {
			if (colw < 16 && !isnan(v) && tr->steps)
				snprintf(norm, sizeof(norm), "%.0e", v);
			snprintf(cell, sizeof(cell), "%s %s%s", short_name(id), norm,
				 g == AV_GRAD_VANISHING || g == AV_GRAD_EXPLODING ? "!" : "");
		}
		else
			snprintf(cell, sizeof(cell), "%-4s %9s  %s", short_name(id), norm, word);
		av_put(w, row, x, cell, colw - 1, wa);
	}
	if (advice) {
		attr_t at = d->trouble == AV_TROUBLE_LEARNED ? el(a, AV_EL_LABEL) : err;
		put_wrapped(w, height - adv_rows, adv_rows, text, at);
	}
}

/* "T=0.01" or "lr 81.92" or the weights' size: what the cause is. */
static void cause_text(const struct av_trainer *tr, const struct av_train_diagnosis *d,
		       char *buf, size_t size)
{
	switch (d->cause) {
	case AV_CAUSE_LR:
		if (tr->lr_start > 0 && tr->lr_peak >= 4 * tr->lr_start)
			snprintf(buf, size, _("lr raised %g to %g"), tr->lr_start, tr->lr_peak);
		else
			snprintf(buf, size, _("lr %g"), tr->set.lr);
		return;
	case AV_CAUSE_TEMPERATURE:
		snprintf(buf, size, "T=%.3g", tr->cfg.temperature);
		return;
	case AV_CAUSE_WEIGHTS:
		snprintf(buf, size, _("weights up to |%.3g|"), d->max_param);
		return;
	case AV_CAUSE_UNKNOWN:
		break;
	}
	snprintf(buf, size, _("no clear cause"));
}

/* The fix for each cause, and for each trouble what it is. Short enough
 * for the gradient panel's row at 80 columns (about 40) to start with
 * what matters. */
const char *av_train_panel_fix(const struct av_train_diagnosis *d)
{
	const char *fix = "";
	switch (d->cause) {
	case AV_CAUSE_LR: fix = d->trouble == AV_TROUBLE_VANISHING ? _("lr up (])") : _("r resets, then lr down ([)"); break;
	case AV_CAUSE_TEMPERATURE: fix = d->trouble == AV_TROUBLE_VANISHING ? _("t, then - lowers T") : _("t, then + raises T (restarts)"); break;
	case AV_CAUSE_WEIGHTS: fix = _("xavier init (i)"); break;
	case AV_CAUSE_UNKNOWN:
		/* smaller weights make smaller scores */
		fix = d->trouble == AV_TROUBLE_SATURATED ? _("xavier init (i) for smaller scores") :
		      _("r resets");
		break;
	}
	return fix;
}

void av_train_panel_cause(const struct av_trainer *tr, const struct av_train_diagnosis *d,
			  char *buf, size_t size)
{
	cause_text(tr, d, buf, size);
}

void av_train_panel_remedy(const struct av_trainer *tr, const struct av_train_diagnosis *d,
			   char *buf, size_t size)
{
	char cause[64], top[32];
	cause_text(tr, d, cause, sizeof(cause));
	chart_number(top, sizeof(top), d->max_score, 8);
	const char *fix = av_train_panel_fix(d);
	const char *approx = av_draw_utf8() ? "≈" : "~";
	switch (d->trouble) {
	case AV_TROUBLE_NONE:
		snprintf(buf, size, _("gradients ok"));
		return;
	case AV_TROUBLE_LEARNED:
		snprintf(buf, size, _("vanishing: the loss is %s 0, learned"), approx);
		if (!av_trainer_corpus_learned(tr))
			snprintf(buf, size, _("small: sentence #%d already matches its target "
				 "(step loss %.1e)"), tr->last_item + 1, tr->last_loss);
		return;
	case AV_TROUBLE_NONFINITE:
		snprintf(buf, size, _("not finite, stopped (%s): %s"), cause, fix);
		return;
	case AV_TROUBLE_SATURATED:
		/* the cause and the fix first: they must not be cut */
		snprintf(buf, size, _("saturated softmax, gradients %s 0 (%s): %s. %.0f%% of rows "
			 "one-hot, |score| up to %s: a larger lr cannot help"), approx, cause, fix,
			 100 * d->one_hot, top);
		return;
	case AV_TROUBLE_EXPLODING:
		snprintf(buf, size, _("exploding (%s): %s"), cause, fix);
		return;
	case AV_TROUBLE_VANISHING:
		snprintf(buf, size, _("vanishing, scores alike (%s): %s%s"), cause, fix,
			 d->cause == AV_CAUSE_WEIGHTS ? _(" or lr up (])") : "");
		return;
	}
}

/* The hint in width columns: its shorter form where the sentence needs
 * two rows (at 40x30 the message box over the second read "56+ columns
 * show the heatmap and the"). */
static void hint_text(char *buf, size_t size, int width)
{
	snprintf(buf, size, _("%d+ columns show the heatmap and the histogram"), TWO_COLUMNS);
	if (av_text_width(buf) > width)
		snprintf(buf, size, _("heatmap and histogram at %d+ columns"), TWO_COLUMNS);
}

int av_train_hint_rows(int width)
{
	char buf[160];
	hint_text(buf, sizeof(buf), width);
	return av_wrapped_lines(buf, width) > 1 ? 2 : 1;
}

void av_train_panel_hint(struct av_app *a, WINDOW *w)
{
	char buf[160];
	hint_text(buf, sizeof(buf), getmaxx(w));
	av_put_wrapped(w, 0, 0, buf, getmaxx(w), getmaxy(w), el(a, AV_EL_DIM));
}
