/* view_train.c: the training view (issue 4, seed 001's china-panda lesson):
 * W_q, W_k and W_v trained toward a target pattern while the learner
 * watches, everything on one screen (the panels are drawn in
 * train_panels.c):
 *
 *   info      epoch, loss, running, paused or stopped (not finite), speed;
 *             lr, optimiser, target, init and the trained tensors, each
 *             followed by its key in parentheses ("lr 0.01 ([ ])")
 *   loss      the epoch losses as a braille line that grows as epochs pass,
 *             epochs on the x axis with ticks
 *   track     the tracked pair where the loss moves it: its cell in a
 *             training sentence (scaled score and weight, positions
 *             included: the stepper's numbers), then its word-only score;
 *             sparklines when tall, seed 001's table of epochs 0, 50, 150
 *             and now for all three
 *   map       the attention weights (d: the scaled scores) of the corpus
 *             sentences (j/k pick one), the target cells marked; or (v) the
 *             vocabulary's word-only scores q(a).k(b)/sqrt(dk), no positions
 *   hist      every score of the corpus in 20 bins (seed 001's plt.hist)
 *   grad      the norm of each trained tensor's gradient, with advice from
 *             av_trainer_diagnose: what went wrong (saturated, exploding,
 *             vanishing, not finite) and why (lr, T, weights)
 *   mats      (g; a column of its own on a projector, 150x32 and more) W_q,
 *             W_k, W_v (W_o when trained) live and their last gradients
 *
 * S takes one optimiser step on one sentence (seed 001's inner loop). A
 * loss or weight that stops being a number stops the run. Leaving puts the
 * weights in the stepper (whose header then says "trained N ep"); quitting
 * with unsaved training asks first (av_train_view_ask_discard), as do r and
 * i here (reset, weights drawn again) and r in the stepper (new weights).
 *
 * Training runs in slices: while running, the main loop ticks every
 * TICK_MS and each tick trains the speed's epochs, one optimiser step at a
 * time, stopping early when the tick's time budget is spent (an epoch of
 * the D=512 sample takes ~10 ms), so keys are read at least 25 times a
 * second. Paused, the view asks for no ticks and the loop blocks on the
 * keyboard.
 *
 * The view keeps windows of its own, one per panel, laid out from the
 * terminal's size (three columns from 150x32, the maps' cells two rows tall
 * when they fit; two columns from 56 columns on; one, without the heatmap
 * and histogram, below that). A tick marks the panels it changed; ncurses
 * sends only the cells that differ. */
#include "config.h"

#include <math.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "i18n.h"
#include "restricted_limits.h"
#include "train.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/heatmap.h"
#include "ui/prompt.h"
#include "ui/views/view_train_internal.h"
#include "util.h"

#define TICK_MS 40            /* 25 ticks a second */
#define BUDGET_US 25000       /* training work per tick at most */

#define D_ALL ((1u << P_COUNT) - 1)
#define D_TRAINED (D_ALL & ~(1u << P_HINT) & ~(1u << P_BACK))   /* what a step changes */
#define BIT(p) (1u << (p))

/* Speeds: `epochs` every `every` ticks. */
const struct av_train_speed av_train_speeds[] = {
	{ 1, 8, N_("3 epochs/s") }, { 1, 2, N_("12 epochs/s") }, { 1, 1, N_("25 epochs/s") },
	{ 2, 1, N_("50 epochs/s") }, { 5, 1, N_("125 epochs/s") }, { 10, 1, N_("250 epochs/s") },
	{ 20, 1, N_("500 epochs/s") }, { 50, 1, N_("1250 epochs/s") },
};
#define N_SPEEDS ((int)(sizeof(av_train_speeds) / sizeof(av_train_speeds[0])))
#define DEFAULT_SPEED 2

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void mark(struct av_app *a, unsigned panels)
{
	struct av_train_view *tv = a->train;
	tv->dirty |= panels;
	a->dirty |= AV_DIRTY_MAIN;
}

/* --- derived numbers ------------------------------------------------------ */

/* The histogram, the corpus loss and (when shown) the vocabulary's scores at
 * the current weights. av_trainer_score_histogram also re-runs the corpus
 * sentences, so the map's weights are the current ones. */
static void refresh_data(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	if (!tv->stale)
		return;
	tv->stale = false;
	int bins = tv->bins > 0 && tv->bins <= HIST_BINS ? tv->bins : HIST_BINS;
	memset(tv->hist, 0, sizeof(tv->hist));
	tv->hist_n = av_trainer_score_histogram(tr, bins, tv->hist, &tv->hist_lo, &tv->hist_hi);
	tv->loss_now = av_trainer_corpus_loss(tr);
	av_trainer_diagnose(tr, &tv->diag);
	if (tv->vocab || tv->w[P_MAP2]) {
		int V = tr->params.vocab_size, H = tr->cfg.heads;
		size_t need = (size_t)H * V * V;
		if (need > tv->vscores_size) {
			free(tv->vscores);
			tv->vscores = av_malloc((need ? need : 1) * sizeof(float));
			tv->vscores_size = need;
		}
		av_trainer_vocab_scores(tr, false, tv->vscores);
	}
}

/* --- layout --------------------------------------------------------------- */

/* Where the panels go for the screen and the trainer, and what the view
 * keeps of it when it makes its windows (make_windows): a pure result, as
 * train_windows_placed plans on every draw only to compare. */
struct plan {
	struct av_rect r[P_COUNT];
	bool wide;    /* the projector layout: P_MATS has a column of its own */
	int row_h;    /* screen rows per matrix row in the maps (1, 2); 1
		       * where no map is shown */
};

/* Rows a map wants: title, column labels, its rows (rh screen rows each),
 * the legend. */
static int map_rows_at(const struct av_app *a, bool vocab, int rh)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	if (vocab)
		return tr->params.vocab_size * rh + 3;
	int rows = 2;
	for (int i = 0; i < tr->n_items; i++)
		rows += tr->items[i].trace.n * rh + 1;
	return rows;
}

/* Columns a map would like: labels and cells of 6. */
static int map_cols(const struct av_app *a, bool vocab)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int lw = 3, cols;
	if (vocab) {
		cols = tr->params.vocab_size;
		for (int i = 0; i < cols; i++) {
			int w = av_text_width(tr->params.vocab[i]);
			lw = w > lw ? w : lw;
		}
	} else {
		cols = 1;
		for (int k = 0; k < tr->n_items; k++) {
			const struct av_trace *t = &tr->items[k].trace;
			cols = t->m > cols ? t->m : cols;
			for (int i = 0; i < t->n; i++) {
				int w = av_text_width(t->tokens.text[i]);
				lw = w > lw ? w : lw;
			}
		}
	}
	if (lw > 12)
		lw = 12;
	return lw + 1 + cols * 6;
}

/* Rows the gradient panel wants at width w: a title, one line per trained
 * tensor (two per line when narrow), a line of advice. */
static int grad_rows(const struct av_trainer *tr, int w, bool two_per_line)
{
	int n = 0;
	for (int id = 0; id < AV_N_PARAMS; id++)
		n += tr->trained[id];
	(void)w;
	return 1 + (two_per_line ? (n + 1) / 2 : n) + 2;   /* advice: two rows */
}

static struct av_rect rect(int y, int x, int h, int w)
{
	struct av_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
	return r;
}

/* The curves column: loss, tracked pair, gradient norms, from row by. */
static void plan_curves(const struct av_trainer *tr, struct plan *p, int by, int bh, int x, int w)
{
	bool two = w < 36 || bh < 16;
	int gh = grad_rows(tr, w, two);
	int th = bh >= 32 ? 13 : bh >= 20 ? 8 : bh >= 12 ? 4 : 2;
	if (gh > bh / 3 && !two) {
		two = true;
		gh = grad_rows(tr, w, two);
	}
	if (bh - th - gh < 4)
		gh = bh - th - 4 >= 2 ? bh - th - 4 : 0;
	int lh = bh - th - gh;
	p->r[P_LOSS] = rect(by, x, lh, w);
	p->r[P_TRACK] = rect(by + lh, x, th, w);
	p->r[P_GRAD] = rect(by + lh + th, x, gh, w);
}

/* The maps column: the map, (the other map,) the histogram. */
static void plan_maps(const struct av_app *a, struct plan *p, int by, int bh, int x, int w)
{
	const struct av_train_view *tv = a->train;
	bool vocab = tv->vocab;
	/* a projector: cells two rows tall when both maps still fit with a
	 * histogram */
	p->row_h = 1;
	if (p->wide && map_rows_at(a, vocab, 2) + map_rows_at(a, !vocab, 2) + 12 <= bh)
		p->row_h = 2;
	bool mats = tv->mats != AV_MATS_OFF && !p->wide;
	int mh = mats ? bh : map_rows_at(a, vocab, p->row_h);
	int hist_min = bh >= 16 ? 7 : 5;
	if (mh > bh - hist_min && !mats)
		mh = bh - hist_min >= 5 ? bh - hist_min : bh;
	int hh = bh - mh;
	if (hh < 4) {
		mh = bh;
		hh = 0;
	}
	int m2 = map_rows_at(a, !vocab, p->row_h);
	if (hh - m2 < 8 || mats)
		m2 = 0;
	hh -= m2;
	p->r[P_MAP] = rect(by, x, mh, w);
	p->r[P_MAP2] = rect(by + mh, x, m2, w);
	p->r[P_HIST] = rect(by + mh + m2, x, hh, w);
}

/* Columns for the projector layout: the weight and gradient matrices get
 * a column of their own. */
#define WIDE_COLUMNS 150
#define WIDE_ROWS 28   /* the body less the info lines at 150x32 */

/* The plan for this screen and trainer; it writes nothing, so that
 * train_windows_placed can compare with it on every draw. */
static struct plan plan_layout(const struct av_app *a)
{
	struct plan p = { .row_h = 1 };
	const struct av_trainer *tr = a->train->tr;
	bool vocab = a->train->vocab;
	int y0 = a->layout.header.y + a->layout.header.h;
	int y1 = a->layout.status.y;
	int W = a->layout.cols, H = y1 - y0;
	p.r[P_BACK] = rect(y0, 0, H, W);
	p.r[P_INFO] = rect(y0, 0, 2, W);
	int by = y0 + 2, bh = H - 2;
	if (bh < 3)
		return p;
	if (W >= WIDE_COLUMNS && bh >= WIDE_ROWS) {
		/* three columns: curves | maps | matrices */
		p.wide = true;
		int lw = W * 30 / 100, rw = W * 34 / 100;
		int mw = W - lw - rw - 2;
		plan_curves(tr, &p, by, bh, 0, lw);
		plan_maps(a, &p, by, bh, lw + 1, mw);
		p.r[P_MATS] = rect(by, lw + mw + 2, bh, rw);
	} else if (W >= TWO_COLUMNS) {
		/* the right column fits the map, within limits */
		int rw = map_cols(a, vocab);
		int rw2 = map_cols(a, !vocab);
		if (bh >= 30 && rw2 > rw)
			rw = rw2;
		if (rw < W * 45 / 100)
			rw = W * 45 / 100;
		if (rw > W - 26)
			rw = W - 26;
		int lw = W - rw - 1, rx = lw + 1;
		plan_curves(tr, &p, by, bh, 0, lw);
		plan_maps(a, &p, by, bh, rx, rw);
	} else {
		/* one column: the curves and gradients, and a hint */
		int gh = grad_rows(tr, W, true);
		int th = bh >= 14 ? 4 : 2;
		int hint = av_train_hint_rows(W);
		if (bh - th - gh - hint < 4)
			gh = 0;
		int lh = bh - th - gh - hint;
		p.r[P_LOSS] = rect(by, 0, lh, W);
		p.r[P_TRACK] = rect(by + lh, 0, th, W);
		p.r[P_GRAD] = rect(by + lh + th, 0, gh, W);
		p.r[P_HINT] = rect(by + lh + th + gh, 0, hint, W);
	}
	return p;
}

static void delete_windows(struct av_train_view *tv)
{
	for (int i = 0; i < P_COUNT; i++) {
		if (tv->w[i])
			delwin(tv->w[i]);
		tv->w[i] = NULL;
	}
}

static void set_backgrounds(struct av_app *a)
{
	attr_t normal = av_colors_el(&a->colors, AV_EL_NORMAL);
	chtype bg = ' ' | (normal & ~A_COLOR & ~A_REVERSE & ~A_BOLD & ~A_UNDERLINE) |
		    COLOR_PAIR(PAIR_NUMBER(normal));
	for (int i = 0; i < P_COUNT; i++)
		if (a->train->w[i])
			wbkgd(a->train->w[i], bg);
}

static void make_windows(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	delete_windows(tv);
	if (a->layout.too_small)
		return;
	struct plan p = plan_layout(a);
	tv->wide = p.wide;
	tv->row_h = p.row_h;
	for (int i = 0; i < P_COUNT; i++) {
		const struct av_rect *r = &p.r[i];
		if (r->h > 0 && r->w > 0)
			tv->w[i] = newwin(r->h, r->w, r->y, r->x);
	}
	set_backgrounds(a);
	/* the histogram's bins follow its width */
	int bins = HIST_BINS;
	if (tv->w[P_HIST]) {
		int w = getmaxx(tv->w[P_HIST]);
		while (bins > 4 && bins > w)
			bins /= 2;
	}
	tv->bins = bins;
	tv->stale = true;
	/* every panel, named: a key that marks a panel after laying them out
	 * (d from the vocabulary) left the others blank when 0 meant all */
	tv->dirty = D_ALL;
	a->dirty |= AV_DIRTY_ALL;
}

/* --- the view ------------------------------------------------------------- */

static void train_draw(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv || !tv->tr)
		return;
	refresh_data(a);
	/* the whole screen to draw (a message box gone from over the panels,
	 * as the first key after t closes it): every panel, not only those a
	 * step changed, or the hint under the box stayed blank */
	unsigned d = tv->dirty && a->dirty != AV_DIRTY_ALL ? tv->dirty : D_ALL;
	if (d == D_ALL)
		set_backgrounds(a);
	for (int p = 0; p < P_COUNT; p++) {
		WINDOW *w = tv->w[p];
		if (!w || !(d & BIT(p)))
			continue;
		werase(w);
		switch (p) {
		case P_INFO: av_train_panel_info(a, w); break;
		case P_LOSS: av_train_panel_loss(a, w); break;
		case P_TRACK: av_train_panel_track(a, w); break;
		case P_MATS: av_train_panel_mats(a, w); break;
		case P_MAP:
			if (tv->mats != AV_MATS_OFF && !tv->wide) {
				av_train_panel_mats(a, w);
				break;
			}
			/* fall through */
		case P_MAP2:
			if (tv->vocab == (p == P_MAP))
				av_train_panel_vocab_map(a, w);
			else
				av_train_panel_sentence_map(a, w);
			break;
		case P_HIST: av_train_panel_hist(a, w); break;
		case P_GRAD: av_train_panel_grad(a, w); break;
		case P_HINT: av_train_panel_hint(a, w); break;
		}
	}
	tv->dirty = 0;
}

static bool train_windows_placed(const struct av_app *a)
{
	if (!a->train)
		return true;
	struct plan p = plan_layout(a);
	for (int i = 0; i < P_COUNT; i++)
		if (!av_window_at(a->train->w[i], &p.r[i]))
			return false;
	return true;
}

static void train_refresh(struct av_app *a)
{
	if (!a->train)
		return;
	for (int p = 0; p < P_COUNT; p++)
		if (a->train->w[p])
			wnoutrefresh(a->train->w[p]);
}

static void train_resize(struct av_app *a)
{
	if (a->train)
		make_windows(a);
}

static int train_timeout(struct av_app *a)
{
	return a->train && a->train->running ? TICK_MS : -1;
}

static void pause_training(struct av_app *a)
{
	a->train->running = false;
	a->train->capped = 0;
	mark(a, BIT(P_INFO));
}

/* Stops the run and says what is not finite, and the remedy for what
 * caused it (av_trainer_diagnose). */
static void stop_diverged(struct av_app *a)
{
	struct av_trainer *tr = a->train->tr;
	pause_training(a);
	struct av_train_diagnosis d;
	av_trainer_diagnose(tr, &d);
	char what[64], cause[96];
	if (d.param >= 0)
		snprintf(what, sizeof(what), isfinite(tr->last_loss) ? _("%s holds inf/nan")
			 : _("%s holds inf/nan, the loss is nan"), av_train_panel_param_name(d.param));
	else
		snprintf(what, sizeof(what), _("the loss is %s"), isnan(tr->last_loss) ? "nan" : "inf");
	av_train_panel_cause(tr, &d, cause, sizeof(cause));
	av_app_message(a, true, _("stopped at epoch %d: %s (%s): %s"), tr->epoch, what, cause,
		       av_train_panel_fix(&d));
}

/* A run ends at av_trainer_max_epochs (its histories bounded), and with
 * --restricted at AV_RESTRICTED_MAX_EPOCHS epochs (r starts again from 0),
 * so a student's training never runs unattended. True, with the run paused
 * and the reason shown, when the trainer is there. */
static bool at_epoch_limit(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	int most = av_trainer_max_epochs(tv->tr);
	if (tv->tr->epoch >= most) {   /* the charts keep every epoch: bounded */
		pause_training(a);
		av_app_message(a, true, _("training stops at %d epochs, the most whose history "
					  "this model's charts keep (r starts again from epoch 0)"),
			       most);
		return true;
	}
	if (!a->restricted || tv->tr->epoch < AV_RESTRICTED_MAX_EPOCHS)
		return false;
	pause_training(a);
	av_app_message(a, true, _("restricted mode: training stops at %d epochs"
				  " (r starts again from epoch 0)"), AV_RESTRICTED_MAX_EPOCHS);
	return true;
}

/* Trains up to epochs epochs, stopping early after budget_us (0: none);
 * pauses at the goal and stops when the loss or a weight stops being a
 * number, or at the epoch limit of --restricted. */
static void run_epochs(struct av_app *a, int epochs, long long budget_us)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	long long t0 = now_us();
	int done = 0, steps = 0;
	while (done < epochs && !at_epoch_limit(a)) {
		bool end = av_trainer_step(tr);
		steps++;
		tv->steps_done++;
		if (av_trainer_diverged(tr)) {
			stop_diverged(a);
			break;
		}
		if (end) {
			done++;
			if (tv->goal > 0 && tr->epoch == tv->goal && !tv->goal_seen) {
				tv->goal_seen = true;
				if (tv->running) {
					pause_training(a);
					av_app_message(a, false, _("epoch %d, as long as the sample's "
						       "training: paused (Space trains on, t shows the "
						       "new attention)"), tr->epoch);
				}
				break;
			}
		}
		if (budget_us > 0 && now_us() - t0 > budget_us)
			break;
	}
	tv->step_us = steps ? (double)(now_us() - t0) / steps : 0;
	tv->capped = tv->running && done < epochs && budget_us > 0 ? done : 0;
	tv->stale = true;
	mark(a, D_TRAINED);
}

/* Refuses to train on weights that are not numbers, or past the epoch
 * limit of --restricted. */
static bool can_train(struct av_app *a)
{
	if (at_epoch_limit(a))
		return false;
	if (!av_trainer_diverged(a->train->tr))
		return true;
	stop_diverged(a);
	return false;
}

/* S: one optimiser step on the next sentence (the tutorial's inner loop),
 * and which sentence it was. */
static void sentence_step(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	pause_training(a);
	if (!can_train(a))
		return;
	av_trainer_step(tr);
	tv->steps_done++;
	tv->stale = true;
	mark(a, D_TRAINED);
	if (av_trainer_diverged(tr)) {
		stop_diverged(a);
		return;
	}
	int it = tr->last_item;
	tv->sentence = it;
	char loss[32];
	snprintf(loss, sizeof(loss), "%.6f", tr->last_loss);
	if (tr->next_item == 0)
		av_app_message(a, false, _("step on sentence #%d \"%s\": loss %s; that ends epoch %d "
			       "(total %.6f)"), it + 1, tr->items[it].query, loss, tr->epoch,
			       tr->loss[tr->epoch - 1]);
	else
		av_app_message(a, false, _("step on sentence #%d \"%s\": loss %s (sentence %d of %d "
			       "in epoch %d; g shows its gradients)"), it + 1, tr->items[it].query,
			       loss, it + 1, tr->n_items, tr->epoch + 1);
}

static void train_tick(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv || !tv->running)
		return;
	const struct av_train_speed *sp = &av_train_speeds[tv->speed];
	if (++tv->ticks % (unsigned)sp->every != 0)
		return;
	run_epochs(a, sp->epochs, BUDGET_US);
}

/* --- keys ----------------------------------------------------------------- */

static void changed(struct av_app *a)
{
	a->train->stale = true;
	mark(a, D_TRAINED);
}

static void cycle_target(struct av_app *a)
{
	struct av_trainer *tr = a->train->tr;
	enum av_target next = (enum av_target)((tr->set.target + 1) % 3);
	if (next == AV_TARGET_PAIRS && tr->n_pairs == 0)
		next = AV_TARGET_SELF;
	char *cause = NULL;
	if (!av_trainer_set_target(tr, next, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : _("cannot change the target"));
		free(cause);
		return;
	}
	/* the tracked pair ("china→panda"), as the training view names it;
	 * none: the effect on it is not said */
	char pair[160] = "";
	if (tr->track[0] >= 0 && tr->track[1] >= 0)
		snprintf(pair, sizeof(pair), "%s%s%s", tr->params.vocab[tr->track[0]],
			 av_train_panel_arrow(), tr->params.vocab[tr->track[1]]);
	char text[400];
	switch (next) {
	case AV_TARGET_SELF:
		if (pair[0])
			snprintf(text, sizeof(text), _("each word should attend to itself (the "
				 "china–panda tutorial's torch.eye): %s is pushed down"), pair);
		else
			snprintf(text, sizeof(text), "%s", _("each word should attend to itself "
				 "(the china–panda tutorial's torch.eye)"));
		break;
	case AV_TARGET_PREVIOUS:
		snprintf(text, sizeof(text), "%s", _("each word should attend to the word before it"));
		break;
	case AV_TARGET_PAIRS:
		if (pair[0])
			snprintf(text, sizeof(text), _("each word should attend to its partner from "
				 "the sample's pairs: %s should rise"), pair);
		else
			snprintf(text, sizeof(text), "%s", _("each word should attend to its partner "
				 "from the sample's pairs"));
		break;
	}
	av_app_message(a, false, _("target %s: %s%s"), av_target_names[next], text,
		       tr->n_pairs == 0 && next == AV_TARGET_SELF ? _(" (no pairs in this sample)") : "");
	changed(a);
}

static void cycle_init(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	enum av_init next = (enum av_init)((tr->cfg.init + 1) % 3);
	av_trainer_set_init(tr, next);   /* also forgets a loaded file's epochs */
	tv->goal_seen = false;
	pause_training(a);
	static const char *const how[] = {
		N_("N(0,1) like torch.randn (the china–panda tutorial)"),
		N_("Glorot uniform: the china–panda tutorial's remedy for scores that all look "
		   "alike"),
		N_("nn.Linear's default uniform"),
	};
	av_app_message(a, false, _("init %s: the trained weights drawn again, %s; back to epoch 0"),
		       av_init_names[next], _(how[next]));
	changed(a);
}

bool av_train_lr_allowed(double lr, char **cause)
{
	if (lr >= AV_TRAIN_LR_MIN && lr <= AV_TRAIN_LR_MAX)
		return true;
	return av_fail(cause, _("the learning rate stays between %g and %g"), AV_TRAIN_LR_MIN,
		       AV_TRAIN_LR_MAX);
}

static void change_lr(struct av_app *a, double factor)
{
	struct av_trainer *tr = a->train->tr;
	double lr = tr->set.lr * factor;
	/* [ and ] keep to the range :lr keeps to, but a rate set outside it
	 * (a sample's, a lesson's, a teacher's) is brought back in one press:
	 * the divergence advice says "lr down ([)", which used to be refused
	 * there */
	if (lr > AV_TRAIN_LR_MAX && factor < 1)
		lr = AV_TRAIN_LR_MAX;
	else if (lr < AV_TRAIN_LR_MIN && factor > 1)
		lr = AV_TRAIN_LR_MIN;
	char *cause = NULL;
	if (!av_train_lr_allowed(lr, &cause) || !av_trainer_set_lr(tr, lr, &cause)) {
		av_app_message(a, false, "%s", cause ? cause : _("bad learning rate"));
		free(cause);
		return;
	}
	av_app_message(a, false, factor > 1
		       ? _("learning rate %g (larger: the china–panda tutorial's remedy for "
			 "scores that stay alike)")
		       : _("learning rate %g"), lr);
	mark(a, BIT(P_INFO));
}

/* Whether the screen has the column the maps and matrices panels take
 * (plan_layout: one column below TWO_COLUMNS, curves only). Where it
 * has not, v, g, d and the vocabulary's arrows and Enter would change
 * what no panel shows: "tracking panda→australia" answered a pair the
 * student never saw (QA at 40x30). They say so instead (maps_hidden). */
static bool maps_shown(const struct av_app *a)
{
	return a->layout.cols >= TWO_COLUMNS;
}

/* Says what needs the maps' column, when the screen has none; true then. */
static bool maps_hidden(struct av_app *a, const char *what)
{
	if (maps_shown(a))
		return false;
	/* TRANSLATORS: "v (the vocabulary view) needs 56+ columns; this
	 * screen has 40" */
	av_app_message(a, false, _("%s needs %d+ columns; this screen has %d"), what,
		       TWO_COLUMNS, a->layout.cols);
	return true;
}

static void move_vocab(struct av_app *a, int dr, int dc)
{
	struct av_train_view *tv = a->train;
	int V = tv->tr->params.vocab_size;
	tv->vrow += dr;
	tv->vcol += dc;
	if (tv->vrow < 0)
		tv->vrow = 0;
	if (tv->vcol < 0)
		tv->vcol = 0;
	if (tv->vrow >= V)
		tv->vrow = V - 1;
	if (tv->vcol >= V)
		tv->vcol = V - 1;
	const char *const *voc = (const char *const *)tv->tr->params.vocab;
	/* the cell's score in full: narrow cells round it */
	int h = a->head >= 0 && a->head < tv->tr->cfg.heads ? a->head : 0;
	char score[32] = "?";
	refresh_data(a);   /* the scores at the weights now (a step may precede) */
	if (tv->vscores) {
		snprintf(score, sizeof(score), "%.3f",
			 tv->vscores[((size_t)h * V + tv->vrow) * V + tv->vcol]);
		av_cell_minus(score, sizeof(score));
	}
	av_app_message(a, false, _("%s%s%s: %s (Enter tracks this pair)"), voc[tv->vrow],
		       av_train_panel_arrow(), voc[tv->vcol], score);
	mark(a, BIT(P_MAP) | BIT(P_MAP2));
}

static void track_pair(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	if (maps_hidden(a, _("the vocabulary view")))
		return;
	if (!tv->vocab) {
		av_app_message(a, false, _("Enter tracks a pair in the vocabulary view: v, move, "
			       "Enter"));
		return;
	}
	char *cause = NULL;
	if (!av_trainer_set_track(tr, tv->vrow, tv->vcol, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : _("cannot track that pair"));
		free(cause);
		return;
	}
	av_app_message(a, false, _("tracking %s%s%s from epoch %d (r resets for its whole history)"),
		       tr->params.vocab[tv->vrow], av_train_panel_arrow(), tr->params.vocab[tv->vcol],
		       tr->epoch);
	mark(a, BIT(P_TRACK) | BIT(P_MAP) | BIT(P_MAP2));
}

static void set_sentence(struct av_app *a, int delta)
{
	struct av_train_view *tv = a->train;
	int n = tv->tr->n_items;
	if (n <= 1) {
		av_app_message(a, false, _("the sample has one training sentence"));
		return;
	}
	tv->sentence = ((tv->sentence + delta) % n + n) % n;
	mark(a, BIT(P_MAP) | BIT(P_MAP2));
	av_app_message(a, false, _("sentence %d: \"%s\"%s%s"), tv->sentence + 1,
		       tv->tr->items[tv->sentence].query,
		       tv->tr->items[tv->sentence].source ? " ||| " : "",
		       tv->tr->items[tv->sentence].source ? tv->tr->items[tv->sentence].source : "");
}

/* g: the matrices panel shows the gradients, the weights, both (or, where
 * it takes the map's place, the attention map again). */
static void cycle_matrices(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (maps_hidden(a, _("g (the matrices)")))
		return;
	static const int narrow[] = { AV_MATS_GRAD, AV_MATS_WEIGHTS, AV_MATS_BOTH, AV_MATS_OFF };
	static const int wide[] = { AV_MATS_GRAD, AV_MATS_WEIGHTS, AV_MATS_BOTH, AV_MATS_GRAD };
	int cur = tv->mats;
	if (tv->wide && cur == AV_MATS_OFF)
		cur = AV_MATS_BOTH;
	tv->mats = tv->wide ? wide[cur] : narrow[cur];
	if (!tv->wide)
		tv->vocab = false;
	make_windows(a);
	static const char *const what[] = {
		N_("the attention map again"),
		N_("the gradients dW of the last step (the china–panda tutorial's print(Wq.grad))"),
		N_("the weight matrices W, live (q = x W_q^T: rows are outputs)"),
		N_("the weights W beside their gradients dW"),
	};
	av_app_message(a, false, "g: %s", _(what[tv->mats]));
}

/* r: back to the first weights (after the discard question, if asked). */
static void reset_training(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	av_trainer_reset(tv->tr);
	tv->steps_done = 0;
	tv->saved_at = -1;   /* these weights were never saved */
	tv->goal_seen = false;
	pause_training(a);
	av_app_message(a, false, _("back to the first weights, epoch 0 (settings kept)"));
	changed(a);
}

/* Space: run, or pause a run. */
static void toggle_running(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (tv->running) {
		pause_training(a);
	} else if (can_train(a)) {
		tv->running = true;
		tv->ticks = 0;
		mark(a, BIT(P_INFO));
	}
}

/* d: the map shows the scaled scores or the weights. */
static void toggle_scores(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (maps_hidden(a, _("d (the map's scores)")))
		return;
	tv->scores = !tv->scores;
	if (tv->vocab || (tv->mats != AV_MATS_OFF && !tv->wide)) {
		tv->vocab = false;
		tv->mats = AV_MATS_OFF;
		make_windows(a);
	}
	mark(a, BIT(P_MAP) | BIT(P_MAP2));
	av_app_message(a, false, "%s", tv->scores ? _("map: the scaled scores, the softmax's "
		       "input (the china–panda tutorial's plot_attention(scores))") :
		       _("map: the attention weights (d: the scores)"));
}

/* + and -: one speed faster (step 1) or slower (-1), said with its rate. */
static void change_speed(struct av_app *a, int step)
{
	struct av_train_view *tv = a->train;
	int s = tv->speed + step;
	if (s < 0 || s >= N_SPEEDS) {
		av_app_message(a, false, "%s", s < 0 ? _("already the slowest speed")
			       : _("already the fastest speed"));
		return;
	}
	tv->speed = s;
	tv->capped = 0;
	char epochs[48], ticks[48];
	snprintf(epochs, sizeof(epochs), P_("%d epoch", "%d epochs",
					    av_train_speeds[s].epochs), av_train_speeds[s].epochs);
	snprintf(ticks, sizeof(ticks), P_("%d tick", "%d ticks", av_train_speeds[s].every),
		 av_train_speeds[s].every);
	/* TRANSLATORS: "speed 25 epochs/s (1 epoch every 1 tick of 40 ms)" */
	av_app_message(a, false, _("speed %s (%s every %s of %d ms)"),
		       _(av_train_speeds[s].label), epochs, ticks, TICK_MS);
	mark(a, BIT(P_INFO));
}

/* o: Adam or SGD, a fresh optimiser either way. */
static void toggle_optimizer(struct av_app *a)
{
	struct av_trainer *tr = a->train->tr;
	enum av_optimizer o = tr->set.optimizer == AV_OPT_ADAM ? AV_OPT_SGD : AV_OPT_ADAM;
	av_trainer_set_optimizer(tr, o);
	av_app_message(a, false, _("optimiser %s (a fresh one: its state starts at zero)%s"),
		       av_optimizer_names[o], o == AV_OPT_SGD ?
		       _("; plain SGD may want a larger lr (])") : "");
	changed(a);
}

/* P: W_q, W_k and W_v only, or every tensor. */
static void toggle_params(struct av_app *a)
{
	struct av_trainer *tr = a->train->tr;
	enum av_train_set s = tr->set.params == AV_TRAIN_QKV ? AV_TRAIN_ALL : AV_TRAIN_QKV;
	av_trainer_set_params(tr, s);
	av_app_message(a, false, "%s", s == AV_TRAIN_ALL ?
		       _("training every tensor: embeddings, positions, W_q, W_k, W_v, W_o") :
		       _("training W_q, W_k and W_v, as the china–panda tutorial does"));
	changed(a);
	make_windows(a);
}

/* v: the vocabulary's scores, or a training sentence's attention. */
static void toggle_vocab(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (maps_hidden(a, _("v (the vocabulary view)")))
		return;
	tv->vocab = !tv->vocab;
	if (!tv->wide)
		tv->mats = AV_MATS_OFF;
	tv->stale = true;
	make_windows(a);
	av_app_message(a, false, "%s", tv->vocab ?
		       _("vocabulary: the score of every word pair; arrows move, Enter tracks "
		       "a pair, v goes back") : _("the attention of a training sentence"));
}

/* The arrows: a cell of the vocabulary view, or (up and down) the
 * sentence shown. */
static void move_cursor(struct av_app *a, int rows, int cols)
{
	if (a->train->vocab && maps_hidden(a, _("the vocabulary view")))
		return;
	if (a->train->vocab)
		move_vocab(a, rows, cols);
	else if (rows)
		set_sentence(a, rows);
	else
		av_app_message(a, false, _("left and right move in the vocabulary view (v)"));
}

/* The training view's own keys (av_train_action_for_key); a key of the
 * stepper's table that the view also takes goes on to the app, any other
 * is explained. */
static bool train_key(struct av_app *a, int key, enum av_action act)
{
	struct av_train_view *tv = a->train;
	switch (av_train_action_for_key(key)) {
	case AV_TRAIN_NONE: break;
	case AV_TRAIN_RUN: toggle_running(a); return true;
	case AV_TRAIN_STEP:
		pause_training(a);
		if (can_train(a))
			run_epochs(a, 1, 0);
		return true;
	case AV_TRAIN_SENTENCE_STEP: sentence_step(a); return true;
	case AV_TRAIN_SCORES: toggle_scores(a); return true;
	case AV_TRAIN_MATRICES: cycle_matrices(a); return true;
	case AV_TRAIN_FASTER: change_speed(a, 1); return true;
	case AV_TRAIN_SLOWER: change_speed(a, -1); return true;
	case AV_TRAIN_RESET:
		if (!av_train_view_ask_discard(a, reset_training))
			reset_training(a);
		return true;
	case AV_TRAIN_LR_UP: change_lr(a, 2); return true;
	case AV_TRAIN_LR_DOWN: change_lr(a, 0.5); return true;
	case AV_TRAIN_TARGET: cycle_target(a); return true;
	case AV_TRAIN_OPTIMIZER: toggle_optimizer(a); return true;
	case AV_TRAIN_INIT:   /* weights drawn anew: the training is lost, as with r */
		if (!av_train_view_ask_discard(a, cycle_init))
			cycle_init(a);
		return true;
	case AV_TRAIN_PARAMS: toggle_params(a); return true;
	case AV_TRAIN_VOCAB: toggle_vocab(a); return true;
	case AV_TRAIN_UP: move_cursor(a, -1, 0); return true;
	case AV_TRAIN_DOWN: move_cursor(a, 1, 0); return true;
	case AV_TRAIN_LEFT: move_cursor(a, 0, -1); return true;
	case AV_TRAIN_RIGHT: move_cursor(a, 0, 1); return true;
	case AV_TRAIN_TRACK: track_pair(a); return true;
	case AV_TRAIN_LEAVE: av_train_view_leave(a); return true;
	case AV_TRAIN_COUNT: break;
	}
	if (act != AV_ACTION_NONE && av_action_in_train_view(act)) {
		tv->dirty = 0;   /* whatever it changes, everything is redrawn */
		return false;
	}
	if (act != AV_ACTION_NONE) {
		char name[32];
		av_key_name(key, name, sizeof(name), false);
		av_app_message(a, false, _("%s is a key of the stepper: t goes back to it, ? lists "
			       "the training keys"), name);
		return true;
	}
	return false;
}

const struct av_view av_view_train = {
	.name = "training",
	.hints = N_("? help  Space run/pause  s step  t back  S sentence  g matrices  d scores  "
		 "v vocabulary  +/- speed  r reset"),
	.draw = train_draw,
	.key = train_key,
	.resize = train_resize,
	.tick_period = train_timeout,
	.tick = train_tick,
	.refresh_own = train_refresh,
	.windows_placed = train_windows_placed,
	.header = av_train_panel_header,
};

/* --- opening and leaving -------------------------------------------------- */

static bool same_floats(const float *x, const float *y, size_t n)
{
	if (!x || !y)
		return x == y;
	return memcmp(x, y, n * sizeof(float)) == 0;
}

/* Whether the trainer was made for the layer the session has now (the
 * stepper may have changed the mode, the scale or the weights since). */
static bool same_layer(const struct av_trainer *tr, const struct av_session *s)
{
	const struct av_config *x = &tr->cfg, *y = &s->cfg;
	if (x->d_model != y->d_model || x->heads != y->heads || x->mode != y->mode ||
	    x->scale != y->scale || x->temperature != y->temperature ||
	    x->positional != y->positional || x->bias != y->bias || x->seed != y->seed ||
	    x->max_positions != y->max_positions)
		return false;
	const struct av_params *p = &tr->params, *q = &s->params;
	int V = s->base_vocab;
	if (p->vocab_size < V || q->vocab_size < V || p->d_model != q->d_model)
		return false;
	size_t D = (size_t)p->d_model;
	if (!same_floats(p->token_embedding, q->token_embedding, (size_t)V * D))
		return false;
	for (int id = AV_P_POSITION_EMBEDDING; id < AV_N_PARAMS; id++) {
		size_t n1, n2;
		const float *t1 = av_param_tensor(p, id, &n1), *t2 = av_param_tensor(q, id, &n2);
		if (n1 != n2 || !same_floats(t1, t2, n1))
			return false;
	}
	return true;
}

/* The epochs the stepper's weights have had when they are the present
 * trainer's, which a new trainer (the layer changed since) goes on from:
 * its header then says "trained 5+3 ep", and a file written "epochs_before"
 * 5, as for a trained file's weights. 0 when the run stopped inside an
 * epoch (the count would be a fraction, as for a file's "steps"). */
static int epochs_to_carry(const struct av_app *a)
{
	int epochs, steps;
	if (!av_train_view_weights_trained(a, &epochs, &steps) || steps != 0)
		return 0;
	return av_epochs_sum(a->train->tr->epochs_before, epochs);
}

bool av_train_view_open(struct av_app *a)
{
	struct av_session *s = a->s;
	struct av_train_view *tv = a->train;
	if (!tv) {
		tv = a->train = av_calloc(1, sizeof(*tv));
		tv->speed = DEFAULT_SPEED;
		tv->saved_at = -1;
	}
	const char *note = "";
	char *cause = NULL;
	int carried = epochs_to_carry(a);
	/* the epochs a new trainer's discard would lose besides its own */
	int unsaved_carried = carried > 0 && av_train_view_unsaved(a)
			      ? tv->unsaved_before + tv->tr->epoch : 0;
	bool woken = tv->tr && av_trainer_wake(tv->tr, s, &cause);
	free(cause);
	cause = NULL;
	if (tv->tr && (!woken || !same_layer(tv->tr, s))) {
		av_trainer_free(tv->tr);
		tv->tr = NULL;
		tv->adam_restarted = false;
		note = _("the layer changed since the last visit (weights, mode, scale or "
		       "temperature): training starts afresh from the stepper's weights");
	}
	if (!tv->tr) {
		struct av_train_settings set;
		av_train_settings_from_sample(&set, &s->sample.training);
		if (set.target == AV_TARGET_PAIRS && s->sample.training.n_pairs == 0)
			set.target = AV_TARGET_SELF;
		static unsigned long trainers_made;
		tv->tr = av_trainer_new(s, &set, &cause);
		tv->serial = ++trainers_made;
		if (!tv->tr) {
			av_app_message(a, true, _("cannot train: %s"), cause ? cause : "?");
			free(cause);
			return false;
		}
		if (carried > 0)   /* the session's weights are the last trainer's */
			tv->tr->epochs_before = carried;
		tv->unsaved_before = unsaved_carried;
		tv->goal = s->sample.training.epochs;
		tv->goal_seen = false;
		tv->steps_done = 0;
		tv->saved_at = -1;   /* the last trainer's save is not this one's */
		tv->sentence = 0;
		tv->vrow = tv->tr->track[0] >= 0 ? tv->tr->track[0] : 0;
		tv->vcol = tv->tr->track[1] >= 0 ? tv->tr->track[1] : 0;
	}
	tv->running = false;
	tv->capped = 0;
	tv->stale = true;
	if (a->view != &av_view_train)
		tv->back = av_app_matrices_view(a);
	a->view = &av_view_train;
	make_windows(a);
	a->dirty = AV_DIRTY_ALL;
	if (*note)
		av_app_message(a, false, "%s", note);
	else if (tv->adam_restarted)
		av_app_message(a, false, "%s", _("Adam starts afresh: its moments were freed when "
			       "you left (Space trains on)"));
	else if (maps_shown(a))
		av_app_message(a, false, _("training: Space runs, s one epoch, S one sentence, "
			       "g matrices, ? keys, t back"));
	else   /* g would say it needs the columns: not offered */
		av_app_message(a, false, _("training: Space runs, s one epoch, S one sentence, "
			       "? keys, t back"));
	tv->adam_restarted = false;
	return true;
}

/* What the training view no longer needs once the person leaves it goes
 * back to the system: the trainer's gradients, traces, matrices (the
 * session holds them) and large optimiser state (av_trainer_sleep), and the
 * vocabulary's scores. glibc keeps freed memory for reuse; malloc_trim
 * returns the free pages (issue 11: 38 MB after training qkv-walkthrough,
 * 11 MB before). */
static void release_memory(struct av_train_view *tv, const struct av_session *s)
{
	if (av_trainer_sleep(tv->tr, s))
		tv->adam_restarted = true;
	free(tv->vscores);
	tv->vscores = NULL;
	tv->vscores_size = 0;
#if defined(__GLIBC__)
	malloc_trim(0);
#endif
}

void av_train_view_leave(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv)
		return;
	tv->running = false;
	delete_windows(tv);
	av_app_return_to(a, tv->back);
	if (a->head >= tv->tr->cfg.heads)
		a->head = 0;
	char *cause = NULL;
	bool ok = av_trainer_apply(tv->tr, a->s, &cause);
	/* the loss the info line showed: against a target changed since the
	 * last epoch, the corpus's at these weights (before they sleep) */
	const struct av_target_change *ch = av_trainer_target_change(tv->tr);
	double loss = ch && ch->epoch == tv->tr->epoch ? av_trainer_corpus_loss(tv->tr)
		      : tv->tr->epoch > 0 ? tv->tr->loss[tv->tr->epoch - 1] : NAN;
	av_app_touch_shared(a);
	a->dirty = AV_DIRTY_ALL;
	if (!ok) {
		av_app_message(a, true, _("the trained weights do not run: %s"), cause ? cause : "?");
		free(cause);
		return;
	}
	release_memory(tv, a->s);
	bool heads = a->view == &av_view_heads;
	/* TRANSLATORS: the view training returns to, before "the weights
	 * after 2 epochs" */
	const char *where = heads ? _("all heads") : _("stepper");
	if (tv->tr->epoch == 0 && tv->tr->next_item == 0)
		av_app_message(a, false, "%s", heads ? _("back to all heads (nothing trained yet)")
			       : _("back to the stepper (nothing trained yet)"));
	else if (tv->tr->epoch == 0)   /* S: sentences of the first epoch */
		av_app_message(a, false, P_("%s: the weights after %d step of the first epoch",
					    "%s: the weights after %d steps of the first epoch",
					    tv->tr->next_item), where, tv->tr->next_item);
	else
		av_app_message(a, false, P_("%s: the weights after %d epoch (%s, %s lr %g, "
					    "loss %.4g)", "%s: the weights after %d epochs (%s, "
					    "%s lr %g, loss %.4g)", tv->tr->epoch), where,
			       tv->tr->epoch,
			       av_target_names[tv->tr->set.target],
			       av_optimizer_names[tv->tr->set.optimizer], tv->tr->set.lr, loss);
}

bool av_train_view_open_trained(struct av_app *a, const struct av_train_settings *set,
				int epochs, int steps)
{
	av_train_view_free(a);
	if (!av_train_view_open(a))
		return false;
	struct av_trainer *tr = a->train->tr;
	char *cause = NULL;
	if (!av_trainer_set_lr(tr, set->lr, &cause)
	    || !av_trainer_set_target(tr, set->target, &cause)) {
		av_app_message(a, true, _("cannot train: %s"), cause ? cause : "?");
		free(cause);
		return false;
	}
	av_trainer_set_optimizer(tr, set->optimizer);
	for (int e = 0; e < epochs; e++)
		av_trainer_epoch(tr);
	for (int i = 0; i < steps; i++)
		av_trainer_step(tr);
	/* the lesson's step can always run it again: nothing to lose on q */
	av_train_view_mark_saved(a);
	a->train->stale = true;
	a->dirty = AV_DIRTY_ALL;
	return true;
}

void av_train_view_free(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv)
		return;
	delete_windows(tv);
	av_trainer_free(tv->tr);
	free(tv->vscores);
	free(tv);
	a->train = NULL;
}

/* --- leaving the program with unsaved training ---------------------------- */

bool av_train_view_unsaved(const struct av_app *a)
{
	const struct av_train_view *tv = a->train;
	if (!tv || !tv->tr)
		return false;
	bool progress = tv->tr->epoch > 0 || tv->tr->next_item > 0;
	return tv->unsaved_before > 0 || (progress && tv->steps_done != tv->saved_at);
}

void av_train_view_mark_saved(struct av_app *a)
{
	if (a->train) {
		a->train->saved_at = a->train->steps_done;
		a->train->unsaved_before = 0;   /* the file holds those epochs too */
	}
}

/* The answer to the discard question (asked through the prompt's y/n). */
static void discard_answer(struct av_app *a, bool yes)
{
	void (*then)(struct av_app *) = a->train ? a->train->after_discard : NULL;
	if (a->train)
		a->train->after_discard = NULL;
	if (yes && then)
		then(a);
	else if (!yes)
		av_app_message(a, false, "%s", a->view == &av_view_train
			       ? _("kept: the training is still here")
			       : _("kept: the training is still here (t shows it)"));
}

char *av_discard_question(int lost, int steps)
{
	if (lost > 0 && steps > 0) {
		char e[48], s[48];
		snprintf(e, sizeof(e), P_("%d epoch", "%d epochs", lost), lost);
		snprintf(s, sizeof(s), P_("%d step", "%d steps", steps), steps);
		/* TRANSLATORS: "discard 2 epochs and 1 step of training? y/n" */
		return av_printf(_("discard %s and %s of training? y/n"), e, s);
	}
	if (lost > 0)
		return av_printf(P_("discard %d epoch of training? y/n",
				    "discard %d epochs of training? y/n", lost), lost);
	return av_printf(P_("discard %d step of training? y/n",
			    "discard %d steps of training? y/n", steps), steps);
}

bool av_train_view_ask_discard(struct av_app *a, void (*then)(struct av_app *a))
{
	if (!av_train_view_unsaved(a) || a->layout.too_small)
		return false;
	a->train->after_discard = then;
	const struct av_trainer *tr = a->train->tr;
	/* with the earlier trainers' unsaved epochs this one went on from */
	char *question = av_discard_question(av_epochs_sum(a->train->unsaved_before, tr->epoch),
					     tr->next_item);
	av_prompt_ask(a, question, discard_answer);
	free(question);
	return true;
}

bool av_train_view_weights_trained(const struct av_app *a, int *epochs, int *steps)
{
	const struct av_train_view *tv = a->train;
	if (!tv || !tv->tr || a->view == &av_view_train)
		return false;
	const struct av_trainer *tr = tv->tr;
	const struct av_params *p = &tr->params, *q = &a->s->params;
	size_t dd = (size_t)p->d_model * p->d_model;
	if ((tr->epoch == 0 && tr->next_item == 0) || p->d_model != q->d_model ||
	    !av_trainer_tensor_is(tr, AV_P_W_Q, q->w_q, dd) ||
	    !av_trainer_tensor_is(tr, AV_P_W_K, q->w_k, dd))
		return false;
	*epochs = tr->epoch;
	*steps = tr->next_item;
	return true;
}

void av_trained_text(char *buf, size_t size, int before, int epochs, int steps)
{
	if (before > 0 && steps > 0)
		snprintf(buf, size, _("trained %d+%d ep+%d"), before, epochs, steps);
	else if (before > 0)
		snprintf(buf, size, _("trained %d+%d ep"), before, epochs);
	else if (steps > 0)
		snprintf(buf, size, _("trained %d ep+%d"), epochs, steps);
	else
		snprintf(buf, size, _("trained %d ep"), epochs);
}

int av_train_view_epochs_before(const struct av_app *a)
{
	return a->train && a->train->tr ? a->train->tr->epochs_before : 0;
}

void av_train_view_look(const struct av_app *a, struct av_train_look *look)
{
	const struct av_train_view *tv = a->train;
	memset(look, 0, sizeof *look);
	if (!tv || !tv->tr)
		return;
	*look = (struct av_train_look){ tv->vocab, tv->scores, tv->mats, tv->sentence };
}

void av_train_view_set_look(struct av_app *a, const struct av_train_look *look)
{
	struct av_train_view *tv = a->train;
	if (!tv || !tv->tr)
		return;
	if (tv->vocab == look->vocab && tv->scores == look->scores && tv->mats == look->mats &&
	    tv->sentence == look->sentence)
		return;   /* no new windows for the same panels */
	tv->vocab = look->vocab;
	tv->scores = look->scores;
	tv->mats = look->mats >= AV_MATS_OFF && look->mats <= AV_MATS_BOTH ? look->mats
		   : AV_MATS_OFF;
	if (tv->mats != AV_MATS_OFF && !tv->wide)
		tv->vocab = false;   /* the matrices take the map's place here */
	tv->sentence = look->sentence >= 0 && look->sentence < tv->tr->n_items ? look->sentence : 0;
	tv->stale = true;
	if (a->view == &av_view_train)
		make_windows(a);
}

unsigned long av_train_view_serial(const struct av_app *a)
{
	return a->train && a->train->tr ? a->train->serial : 0;
}

const struct av_trainer *av_train_view_trainer(const struct av_app *a)
{
	return a->train ? a->train->tr : NULL;
}
