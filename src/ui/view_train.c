/* view_train.c: the training view (issue 4, seed 001's china-panda lesson):
 * W_q, W_k and W_v trained toward a target pattern while the learner
 * watches, everything on one screen:
 *
 *   info      epoch, loss, running or paused, speed; lr, optimiser, target,
 *             init and the trained tensors, each with its key
 *   loss      the epoch losses as a braille line that grows as epochs pass
 *   track     the tracked pair's raw score (china->panda) as a sparkline, and
 *             seed 001's table of epochs 0, 50, 150 and now
 *   map       the attention weights of a corpus sentence (j/k pick it), the
 *             target cells marked; or (v) the vocabulary's scores
 *             q(a).k(b)/sqrt(dh) for every pair of words
 *   hist      every score of the corpus in 20 bins (seed 001's plt.hist)
 *   grad      the norm of each trained tensor's gradient, with seed 001's
 *             remedies when it vanishes or explodes (print(Wq.grad))
 *
 * Training runs in slices: while running, the main loop ticks every
 * TICK_MS and each tick trains the speed's epochs, one optimiser step at a
 * time, stopping early when the tick's time budget is spent (an epoch of
 * the D=512 sample takes ~10 ms), so keys are read at least 25 times a
 * second. Paused, the view asks for no ticks and the loop blocks on the
 * keyboard.
 *
 * The view keeps windows of its own, one per panel, laid out from the
 * terminal's size (two columns from 56 columns on; one, without the heatmap
 * and histogram, below that). A tick marks the panels it changed; ncurses
 * sends only the cells that differ. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "train.h"
#include "ui/app.h"
#include "ui/chart.h"
#include "ui/draw.h"
#include "ui/heatmap.h"
#include "utf8.h"
#include "util.h"

#define TICK_MS 40            /* 25 ticks a second */
#define BUDGET_US 25000       /* training work per tick at most */
#define HIST_BINS 20          /* plt.hist(..., bins=20) */
#define TWO_COLUMNS 56        /* columns for the heatmap and histogram */
#define LR_MIN 1e-6
#define LR_MAX 100.0

/* P_BACK covers the whole region under the others (the gaps between them). */
/* P_MAP2, on tall terminals, shows the map P_MAP does not (the vocabulary
 * under the sentences, or the sentences under the vocabulary). */
enum panel { P_BACK, P_INFO, P_LOSS, P_TRACK, P_MAP, P_MAP2, P_HIST, P_GRAD, P_HINT, P_COUNT };
#define D_ALL ((1u << P_COUNT) - 1)
#define D_TRAINED (D_ALL & ~(1u << P_HINT) & ~(1u << P_BACK))   /* what a step changes */
#define BIT(p) (1u << (p))

/* Speeds: `epochs` every `every` ticks. */
static const struct speed {
	int epochs, every;
	const char *label;
} speeds[] = {
	{ 1, 8, "3 epochs/s" }, { 1, 2, "12 epochs/s" }, { 1, 1, "25 epochs/s" },
	{ 2, 1, "50 epochs/s" }, { 5, 1, "125 epochs/s" }, { 10, 1, "250 epochs/s" },
	{ 20, 1, "500 epochs/s" }, { 50, 1, "1250 epochs/s" },
};
#define N_SPEEDS ((int)(sizeof(speeds) / sizeof(speeds[0])))
#define DEFAULT_SPEED 2

struct av_train_view {
	struct av_trainer *tr;
	bool running;
	int speed;
	unsigned ticks;
	int goal;                  /* the sample's epochs: training pauses there once */
	bool goal_seen;
	int capped;                /* epochs the last tick managed when its budget ran out */
	double step_us;            /* the last tick's time per optimiser step */

	int sentence;              /* the corpus sentence on the map */
	bool vocab;                /* the map shows the vocabulary's scores */
	int vrow, vcol;            /* the vocabulary cursor */

	/* computed from the trainer when stale (after steps and changes) */
	bool stale;
	int bins;
	int hist[HIST_BINS];
	int hist_n;
	double hist_lo, hist_hi;
	double loss_now;           /* the corpus loss at the current weights */
	float *vscores;            /* (H, V, V) */
	size_t vscores_size;

	WINDOW *w[P_COUNT];
	unsigned dirty;            /* panels to redraw; 0 = all */
};

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static attr_t el(const struct av_app *a, enum av_element e)
{
	return av_colors_el(&a->colors, e);
}

static int head_of(const struct av_app *a)
{
	const struct av_trainer *tr = a->train->tr;
	return a->head >= 0 && a->head < tr->cfg.heads ? a->head : 0;
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
	double loss = 0;
	for (int i = 0; i < tr->n_items; i++) {
		const struct av_train_item *it = &tr->items[i];
		const struct av_trace *t = &it->trace;
		loss += av_attention_loss(t->weights, it->target, t->heads, t->n, t->m, NULL);
	}
	tv->loss_now = loss;
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

struct plan {
	struct av_rect r[P_COUNT];
};

/* Rows a map wants: title, column labels, its rows, the legend. */
static int map_rows(const struct av_app *a, bool vocab)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	if (vocab)
		return tr->params.vocab_size + 3;
	int rows = 2;
	for (int i = 0; i < tr->n_items; i++)
		rows += tr->items[i].trace.n + 1;
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
	return 1 + (two_per_line ? (n + 1) / 2 : n) + 1;
}

static struct av_rect rect(int y, int x, int h, int w)
{
	struct av_rect r = { y, x, h > 0 ? h : 0, w > 0 ? w : 0 };
	return r;
}

static void plan_layout(const struct av_app *a, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	const struct av_trainer *tr = a->train->tr;
	bool vocab = a->train->vocab;
	int y0 = a->layout.header.y + a->layout.header.h;
	int y1 = a->layout.status.y;
	int W = a->layout.cols, H = y1 - y0;
	p->r[P_BACK] = rect(y0, 0, H, W);
	p->r[P_INFO] = rect(y0, 0, 2, W);
	int by = y0 + 2, bh = H - 2;
	if (bh < 3)
		return;
	if (W >= TWO_COLUMNS) {
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
		/* left: loss, tracked pair, gradients */
		bool two = lw < 36 || bh < 16;
		int gh = grad_rows(tr, lw, two);
		int th = bh >= 32 ? 10 : bh >= 20 ? 7 : bh >= 12 ? 4 : 2;
		if (gh > bh / 3 && !two) {
			two = true;
			gh = grad_rows(tr, lw, two);
		}
		if (bh - th - gh < 4)
			gh = bh - th - 4 >= 2 ? bh - th - 4 : 0;
		int lh = bh - th - gh;
		p->r[P_LOSS] = rect(by, 0, lh, lw);
		p->r[P_TRACK] = rect(by + lh, 0, th, lw);
		p->r[P_GRAD] = rect(by + lh + th, 0, gh, lw);
		/* right: the map, (the other map,) the histogram */
		int mh = map_rows(a, vocab);
		int hist_min = bh >= 16 ? 7 : 5;
		if (mh > bh - hist_min)
			mh = bh - hist_min >= 5 ? bh - hist_min : bh;
		int hh = bh - mh;
		if (hh < 4) {
			mh = bh;
			hh = 0;
		}
		int m2 = map_rows(a, !vocab);
		if (hh - m2 < 8)
			m2 = 0;
		hh -= m2;
		p->r[P_MAP] = rect(by, rx, mh, rw);
		p->r[P_MAP2] = rect(by + mh, rx, m2, rw);
		p->r[P_HIST] = rect(by + mh + m2, rx, hh, rw);
	} else {
		/* one column: the curves and gradients, and a hint */
		int gh = grad_rows(tr, W, true);
		int th = bh >= 14 ? 4 : 2;
		int hint = 1;
		if (bh - th - gh - hint < 4)
			gh = 0;
		int lh = bh - th - gh - hint;
		p->r[P_LOSS] = rect(by, 0, lh, W);
		p->r[P_TRACK] = rect(by + lh, 0, th, W);
		p->r[P_GRAD] = rect(by + lh + th, 0, gh, W);
		p->r[P_HINT] = rect(by + lh + th + gh, 0, hint, W);
	}
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
	attr_t normal = el(a, AV_EL_NORMAL);
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
	struct plan p;
	plan_layout(a, &p);
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
	tv->dirty = 0;
	a->dirty |= AV_DIRTY_ALL;
}

/* --- small drawing helpers ------------------------------------------------ */

static const char *arrow(void)
{
	return av_draw_utf8() ? "→" : "->";
}

/* A panel title: the name in the title style, a dim remark after it. */
static void title(struct av_app *a, WINDOW *w, const char *name, const char *remark)
{
	int width = getmaxx(w);
	int x = av_put(w, 0, 0, name, width, el(a, AV_EL_TITLE));
	if (remark && *remark && x + 3 < width) {
		x += av_put(w, 0, x, "  ", width - x, A_NORMAL);
		av_put(w, 0, x, remark, width - x, el(a, AV_EL_DIM));
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

static const char *short_name(int id)
{
	static const char *const names[AV_N_PARAMS] = {
		"emb", "pos", "W_q", "b_q", "W_k", "b_k", "W_v", "b_v", "W_o", "b_o"
	};
	return names[id];
}

static const char *trained_text(const struct av_trainer *tr)
{
	return tr->set.params == AV_TRAIN_ALL ? "all tensors" :
	       tr->cfg.bias ? "W_q W_k W_v + biases" : "W_q W_k W_v";
}

/* --- the header ----------------------------------------------------------- */

static void train_header(struct av_app *a)
{
	WINDOW *w = a->w_header;
	if (!w || !a->train || !a->train->tr)
		return;
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w);
	char piece[7][64];
	snprintf(piece[0], sizeof(piece[0]), "attnview");
	snprintf(piece[1], sizeof(piece[1]), "%s", a->s->sample.name ? a->s->sample.name : "?");
	snprintf(piece[2], sizeof(piece[2]), "%s", av_mode_names[tr->cfg.mode]);
	snprintf(piece[3], sizeof(piece[3]), "D=%d H=%d dh=%d", tr->cfg.d_model, tr->cfg.heads,
		 av_config_head_dim(&tr->cfg));
	snprintf(piece[4], sizeof(piece[4]), "scale=%s", av_scale_names[tr->cfg.scale]);
	snprintf(piece[5], sizeof(piece[5]), "T=%.3g", tr->cfg.temperature);
	snprintf(piece[6], sizeof(piece[6]), "seed=%llu", (unsigned long long)tr->cfg.seed);
	const char *right = "training view";
	int rw = av_text_width(right);
	/* drop the name, the sample and the seed, in that order, until it fits */
	static const int drop[] = { 0, 1, 6 };
	bool gone[7] = { false };
	for (int level = 0;; level++) {
		int total = 0, shown = 0;
		for (int i = 0; i < 7; i++)
			if (!gone[i]) {
				total += av_text_width(piece[i]) + (shown ? 2 : 0);
				shown++;
			}
		if (total + 2 + rw <= width || level == 3)
			break;
		gone[drop[level]] = true;
	}
	char left[512] = "";
	for (int i = 0; i < 7; i++) {
		if (gone[i])
			continue;
		if (left[0])
			strcat(left, "  ");
		strcat(left, piece[i]);
	}
	attr_t at = el(a, AV_EL_HEADER);
	if (width < rw + 12) {
		right = "training";
		rw = av_text_width(right);
	}
	av_fill(w, 0, 0, width, at);
	av_put(w, 0, 0, left, width - rw - 2, at);
	if (width > rw + 1)
		av_put(w, 0, width - rw, right, rw, at | A_BOLD);
}

/* --- info: epoch, loss, state and settings -------------------------------- */

static void draw_info(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w);
	char buf[160], num[32];
	int x = 0;
	if (tv->goal > 0 && tr->epoch <= tv->goal)
		snprintf(buf, sizeof(buf), "epoch %d / %d", tr->epoch, tv->goal);
	else
		snprintf(buf, sizeof(buf), "epoch %d", tr->epoch);
	if (tr->next_item > 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " +%d/%d sentences",
			 tr->next_item, tr->n_items);
	x += av_put(w, 0, x, buf, width - x, el(a, AV_EL_TITLE));
	x += av_put(w, 0, x, "   ", width - x, A_NORMAL);
	double loss = tr->epoch > 0 ? tr->loss[tr->epoch - 1] : tv->loss_now;
	fmt_loss(num, sizeof(num), loss);
	snprintf(buf, sizeof(buf), "loss %s", num);
	x += av_put(w, 0, x, buf, width - x,
		    isfinite(loss) ? el(a, AV_EL_LABEL) : el(a, AV_EL_ERROR));
	if (tr->epoch == 0)
		snprintf(buf, sizeof(buf), " (before training)");
	else
		snprintf(buf, sizeof(buf), " (epoch 1: %.4g)", tr->loss[0]);
	/* the state at the right */
	char state[96];
	if (tv->running && tv->capped)
		snprintf(state, sizeof(state), "%s running %d epochs/tick (%.1f ms a step)",
			 av_draw_utf8() ? "▶" : ">", tv->capped, tv->step_us / 1000);
	else if (tv->running)
		snprintf(state, sizeof(state), "%s running %s", av_draw_utf8() ? "▶" : ">",
			 speeds[tv->speed].label);
	else
		snprintf(state, sizeof(state), "|| paused (%s)", speeds[tv->speed].label);
	int sw = av_text_width(state);
	if (x + av_text_width(buf) + 2 + sw <= width)
		x += av_put(w, 0, x, buf, width - x, el(a, AV_EL_DIM));
	if (x + 2 + sw <= width)
		av_put(w, 0, width - sw, state, sw,
		       tv->running ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
	else if (x + 10 <= width)
		av_put(w, 0, x + 2, tv->running ? "running" : "paused", width - x - 2,
		       el(a, AV_EL_DIM));

	/* settings, each with its key */
	char lr[32];
	snprintf(lr, sizeof(lr), "%g", tr->set.lr);
	const char *items[][3] = {
		{ "lr ", lr, "[]" },
		{ "", av_optimizer_names[tr->set.optimizer], "o" },
		{ "target ", av_target_names[tr->set.target], "w" },
		{ "init ", av_init_names[tr->cfg.init], "i" },
		{ "trains ", trained_text(tr), "P" },
	};
	int n_items = (int)(sizeof(items) / sizeof(items[0]));
	/* with the keys if they fit, else without */
	bool keys = true;
	int need = 0;
	for (int i = 0; i < n_items; i++)
		need += av_text_width(items[i][0]) + av_text_width(items[i][1]) +
			av_text_width(items[i][2]) + 3;
	if (need > width)
		keys = false;
	x = 0;
	for (int i = 0; i < n_items && x < width; i++) {
		if (i)
			x += av_put(w, 1, x, keys ? "  " : " · ", width - x, el(a, AV_EL_DIM));
		if (keys) {
			x += av_put(w, 1, x, items[i][2], width - x, el(a, AV_EL_HIGHLIGHT));
			x += av_put(w, 1, x, " ", width - x, A_NORMAL);
		}
		x += av_put(w, 1, x, items[i][0], width - x, el(a, AV_EL_DIM));
		x += av_put(w, 1, x, items[i][1], width - x, el(a, AV_EL_NORMAL));
	}
}

/* --- the loss curve ------------------------------------------------------- */

/* A braille (or ASCII) plot of v[0..n) in w's rows y0..y0+rows-1 from column
 * x0, cols wide, in attr. */
static void plot(WINDOW *w, int y0, int x0, int rows, int cols, const double *v, int n,
		 double lo, double hi, attr_t attr)
{
	struct av_canvas c;
	av_canvas_init(&c, cols, rows);
	av_canvas_plot(&c, v, n, lo, hi);
	bool utf8 = av_draw_utf8();
	for (int r = 0; r < rows; r++) {
		for (int col = 0; col < cols; col++) {
			char cell[8];
			av_canvas_cell(&c, col, r, utf8, cell);
			if (strcmp(cell, " ") != 0)
				av_put(w, y0 + r, x0 + col, cell, 1, attr);
		}
	}
	av_canvas_free(&c);
}

static void draw_loss(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	char remark[96];
	snprintf(remark, sizeof(remark), "total_loss, %d sentence%s", tr->n_items,
		 tr->n_items == 1 ? "" : "s");
	title(a, w, "loss", remark);
	int rows = height - 2;
	if (rows < 1)
		return;
	const int lab = 7;
	int cols = width - lab - 1;
	if (cols < 4)
		return;
	attr_t dim = el(a, AV_EL_DIM);
	if (tr->epoch == 0) {
		av_put(w, 1 + rows / 2, lab + 1, "no epoch yet: Space runs, s takes one", cols, dim);
		return;
	}
	double lo, hi;
	av_chart_range(tr->loss, tr->epoch, &lo, &hi);
	char num[32];
	av_chart_number(num, sizeof(num), hi, lab - 1);
	av_put_right(w, 1, 0, num, lab - 1, dim);
	av_chart_number(num, sizeof(num), lo, lab - 1);
	av_put_right(w, rows, 0, num, lab - 1, dim);
	for (int r = 1; r <= rows; r++)
		av_put(w, r, lab, av_draw_utf8() ? "│" : "|", 1, dim);
	plot(w, 1, lab + 1, rows, cols, tr->loss, tr->epoch, lo, hi, el(a, AV_EL_LABEL));
	/* the epoch axis: 0 at the left, the right edge's epoch at the right */
	int capacity = 2 * cols > tr->epoch ? 2 * cols : tr->epoch;
	av_put(w, height - 1, lab + 1, "1", cols, dim);
	snprintf(num, sizeof(num), "epoch %d", capacity);
	int nw = av_text_width(num);
	if (nw + 3 <= cols)
		av_put(w, height - 1, lab + 1 + cols - nw, num, nw, dim);
}

/* --- the tracked pair ----------------------------------------------------- */

static void fmt_score(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.4f", v);
}

static void draw_track(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	int h = head_of(a), H = tr->cfg.heads;
	attr_t dim = el(a, AV_EL_DIM);
	if (tr->track[0] < 0) {
		title(a, w, "tracked pair", "none");
		if (height > 1)
			av_put(w, 1, 0, "v, a cell, Enter: track that pair", width, dim);
		return;
	}
	char name[160], remark[64];
	snprintf(name, sizeof(name), "%s%s%s", tr->params.vocab[tr->track[0]], arrow(),
		 tr->params.vocab[tr->track[1]]);
	snprintf(remark, sizeof(remark), "raw score q%sk%s%s", av_draw_utf8() ? "·" : ".",
		 H > 1 ? ", head " : "", "");
	if (H > 1)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark), "%d", h);
	title(a, w, name, remark);
	if (height < 2)
		return;
	/* the sparkline over every epoch so far */
	int n = tr->epoch + 1;
	double *series = av_malloc((size_t)n * sizeof(double));
	for (int e = 0; e < n; e++)
		series[e] = tr->track_history[(size_t)e * H + h];
	double lo, hi;
	av_chart_range(series, n, &lo, &hi);
	char lo_s[32], hi_s[32];
	av_chart_number(lo_s, sizeof(lo_s), lo, 7);
	av_chart_number(hi_s, sizeof(hi_s), hi, 7);
	int x = av_put(w, 1, 0, lo_s, width, dim);
	x += av_put(w, 1, x, " ", width - x, A_NORMAL);
	int sw = width - x - av_text_width(hi_s) - 1;
	if (sw > 0) {
		int *levels = av_malloc((size_t)sw * sizeof(int));
		av_sparkline(series, n, sw, lo, hi, levels);
		int used = 0;
		for (int c = 0; c < sw; c++) {
			if (levels[c] < 0)
				break;
			av_put(w, 1, x + c, av_spark_glyph(levels[c], av_draw_utf8()), 1,
			       el(a, AV_EL_FORMULA));
			used = c + 1;
		}
		free(levels);
		x += used + 1;
		av_put(w, 1, x, hi_s, width - x, dim);
	}
	free(series);
	if (height < 3)
		return;
	/* seed 001's table: epochs 0, 50, 150 (more when there is room) and now */
	static const int few[] = { 0, 50, 150 };
	static const int more[] = { 0, 10, 50, 100, 150, 200 };
	const int *epochs = height >= 10 ? more : few;
	int n_epochs = height >= 10 ? 6 : 3;
	char cur[32];
	fmt_score(cur, sizeof(cur), av_trainer_track_score(tr, h));
	if (height < 7) {
		/* compact: "0: 0.1523  50: 2.3410  150: ·" then "now (37): 1.2345" */
		char line[160] = "";
		for (int i = 0; i < n_epochs; i++) {
			char v[32];
			if (epochs[i] <= tr->epoch)
				fmt_score(v, sizeof(v), tr->track_history[(size_t)epochs[i] * H + h]);
			else
				snprintf(v, sizeof(v), "%s", av_draw_utf8() ? "·" : ".");
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%d: %s",
				 i ? "  " : "", epochs[i], v);
		}
		av_put(w, 2, 0, line, width, el(a, AV_EL_NORMAL));
		if (height > 3) {
			snprintf(line, sizeof(line), "now (epoch %d): %s", tr->epoch, cur);
			av_put(w, 3, 0, line, width, el(a, AV_EL_LABEL));
		}
		return;
	}
	char line[96];
	snprintf(line, sizeof(line), "%9s  %10s", "epoch", "score");
	av_put(w, 2, 0, line, width, dim);
	int y = 3;
	for (int i = 0; i < n_epochs && y < height - 1; i++, y++) {
		char v[32];
		if (epochs[i] <= tr->epoch)
			fmt_score(v, sizeof(v), tr->track_history[(size_t)epochs[i] * H + h]);
		else
			snprintf(v, sizeof(v), "%s", av_draw_utf8() ? "·" : ".");
		snprintf(line, sizeof(line), "%9d  %10s", epochs[i], v);
		av_put(w, y, 0, line, width, el(a, AV_EL_NORMAL));
	}
	snprintf(line, sizeof(line), "now %5d  %10s", tr->epoch, cur);
	av_put(w, y, 0, line, width, el(a, AV_EL_LABEL));
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
};

/* Row-label and cell widths for matrices of up to cols columns with labels
 * of up to label_w columns in width: the widest cells that fit (7 to 5, with
 * numbers), then shorter labels (6), then narrower cells without numbers. */
static void choose_cells(int width, int label_w, int cols, int *lw_out, int *cw_out)
{
	int lw = label_w < 3 ? 3 : label_w > 12 ? 12 : label_w;
	int cw = 0;
	for (int pass = 0; pass < 2 && !cw; pass++) {
		int l = pass ? (lw < 6 ? lw : 6) : lw;
		for (int t = 7; t >= (pass ? 2 : 5) && !cw; t--)
			if (l + 1 + cols * t <= width) {
				cw = t;
				lw = l;
			}
	}
	if (!cw) {
		lw = lw < 6 ? lw : 6;
		cw = 2;
	}
	*lw_out = lw;
	*cw_out = cw;
}

static void weight_text(char *buf, size_t size, double v, int width)
{
	snprintf(buf, size, "%.2f", v);
	if ((int)strlen(buf) > width && buf[0] == '0')
		memmove(buf, buf + 1, strlen(buf));      /* ".93" */
	if ((int)strlen(buf) > width)
		snprintf(buf, size, "%.1f", v);
}

/* Draws m in rows y.. of w (a row of column labels, then the matrix),
 * scrolled to keep the cursor in view; returns the rows used. */
static int draw_matrix(struct av_app *a, WINDOW *w, int y, int height, const struct matrix *m)
{
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	bool utf8 = av_draw_utf8();
	if (height < 2 || m->rows == 0 || m->cols == 0)
		return 0;
	int lw = m->label_w, cw = m->cell_w;
	if (!lw || !cw) {
		int widest = 3;
		for (int i = 0; i < m->rows; i++) {
			int tw = av_text_width(m->row_label[i]);
			widest = tw > widest ? tw : widest;
		}
		choose_cells(width, widest, m->cols, &lw, &cw);
	}
	int vis_cols = (width - lw - 1) / cw, vis_rows = height - 1;
	if (vis_cols < 1)
		return 0;
	int first_col = 0, first_row = 0;
	if (m->cur_col >= vis_cols)
		first_col = m->cur_col - vis_cols + 1;
	if (m->cur_row >= vis_rows)
		first_row = m->cur_row - vis_rows + 1;
	bool numbers = cw >= 5;
	int decimals = 0;
	bool neg = false;
	for (int i = 0; i < m->rows * m->cols && !m->weights; i++)
		neg |= m->v[i] < 0;
	if (numbers && !m->weights)
		decimals = av_cell_decimals(m->range, neg, cw - 2);
	/* column labels */
	for (int j = first_col; j < m->cols && j < first_col + vis_cols; j++) {
		int x = lw + 1 + (j - first_col) * cw;
		attr_t at = j == m->hl_col ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (j == m->cur_col)
			at = el(a, AV_EL_CURSOR);
		char label[64];
		if (cw >= 4)
			snprintf(label, sizeof(label), "%s", m->col_label[j]);
		else
			snprintf(label, sizeof(label), "%d", j);
		av_put_right(w, y, x, label, cw - 1, at);
	}
	if (first_col + vis_cols < m->cols)
		av_put(w, y, width - 1, utf8 ? "▶" : ">", 1, el(a, AV_EL_DIM));
	if (first_col > 0)
		av_put(w, y, 0, utf8 ? "◀" : "<", 1, el(a, AV_EL_DIM));
	/* rows */
	int used = 1;
	for (int i = first_row; i < m->rows && used < height; i++, used++) {
		int yy = y + used;
		attr_t la = i == m->hl_row ? el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_LABEL);
		if (i == m->cur_row)
			la = el(a, AV_EL_CURSOR);
		av_put_pad(w, yy, 0, m->row_label[i], lw, la);
		for (int j = first_col; j < m->cols && j < first_col + vis_cols; j++) {
			int x = lw + 1 + (j - first_col) * cw;
			double v = m->v[(size_t)i * m->cols + j];
			bool hidden = m->hidden && m->hidden[(size_t)i * m->cols + j];
			bool marked = m->mark && m->mark[(size_t)i * m->cols + j];
			double pos = av_heat_position(v, m->weights ? AV_PART_WEIGHTS : AV_PART_SIGNED,
						      m->range);
			attr_t heat = hidden ? el(a, AV_EL_MASKED) : av_colors_heat(c, !m->weights, pos);
			bool shade = !c->color || (!hidden && heat == A_NORMAL);
			double spos = m->weights ? pos : fabs(2 * pos - 1);
			if (i == m->cur_row && j == m->cur_col)
				heat = el(a, AV_EL_CURSOR);
			char text[48] = "";
			const char *lead = marked ? (utf8 ? "•" : "*")
				       : hidden ? (utf8 ? "╳" : "x")
				       : shade ? av_colors_shade(c, spos) : " ";
			if (numbers && !hidden) {
				if (m->weights)
					weight_text(text, sizeof(text), v, cw - 2);
				else
					av_cell_format(text, sizeof(text), v, decimals, cw - 2);
				av_put(w, yy, x, lead, 1, heat);
				av_put_right(w, yy, x + 1, text, cw - 2, heat);
			} else {
				/* colour (or glyphs) only */
				av_put(w, yy, x, lead, 1, heat);
				for (int k = 1; k < cw - 1; k++)
					av_put(w, yy, x + k, hidden ? " " : shade ?
					       av_colors_shade(c, spos) : " ", 1, heat);
			}
		}
	}
	if (first_row + vis_rows < m->rows)
		av_put(w, y, 0, utf8 ? "▼" : "v", 1, el(a, AV_EL_DIM));
	return used;
}

/* "0 ░▒▓█ 1" or "−2.3 ... +2.3" and what the marks mean, in row y. */
static void draw_map_legend(struct av_app *a, WINDOW *w, int y, bool weights, double range,
			    const char *marks)
{
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	attr_t dim = el(a, AV_EL_DIM), label = el(a, AV_EL_LABEL);
	char lo[32], hi[32], r[24];
	av_chart_number(r, sizeof(r), range, 6);
	if (weights) {
		snprintf(lo, sizeof(lo), "0");
		snprintf(hi, sizeof(hi), "1");
	} else {
		snprintf(lo, sizeof(lo), "%s%s", av_draw_utf8() ? "−" : "-", r);
		snprintf(hi, sizeof(hi), "+%s", r);
	}
	int x = av_put(w, y, 0, lo, width, label);
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	for (int i = 0; i < 9 && x < width; i++, x++) {
		double pos = i / 8.0;
		attr_t at = av_colors_heat(c, !weights, pos);
		if (!c->color || at == A_NORMAL)
			av_put(w, y, x, av_colors_shade(c, weights ? pos : fabs(2 * pos - 1)), 1,
			       A_NORMAL);
		else
			av_fill(w, y, x, 1, at);
	}
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	x += av_put(w, y, x, hi, width - x, label);
	if (marks && x + 4 < width) {
		x += av_put(w, y, x, "  ", width - x, A_NORMAL);
		av_put(w, y, x, marks, width - x, dim);
	}
}

/* The first sentence the map shows: all of them when they fit, else from
 * the selected one. */
static int first_shown(const struct av_app *a, int rows)
{
	const struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int need = 0;
	for (int i = 0; i < tr->n_items; i++)
		need += tr->items[i].trace.n + 1;
	return need <= rows ? 0 : tv->sentence;
}

/* The attention weights of the corpus sentences, stacked (one head): each
 * a row of key labels, then its rows; the target cells marked. */
static void draw_sentence_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int width = getmaxx(w), height = getmaxy(w);
	int h = head_of(a);
	int rows = height - 2;     /* between the title and the legend */
	int first = first_shown(a, rows);
	/* the sentences that fit, and one size of cells for all of them */
	int last = first, widest = 3, cols = 1, used = 0;
	for (int i = first; i < tr->n_items; i++) {
		const struct av_trace *t = &tr->items[i].trace;
		if (i > first && used + t->n + 1 > rows)
			break;
		used += t->n + 1;
		last = i;
		for (int r = 0; r < t->n; r++) {
			int tw = av_text_width(t->tokens.text[r]);
			widest = tw > widest ? tw : widest;
		}
		cols = t->m > cols ? t->m : cols;
	}
	int lw, cw;
	choose_cells(width, widest, cols, &lw, &cw);

	char remark[160] = "";
	bool all = first == 0 && last == tr->n_items - 1;
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), "head %d (Tab)", h);
	if (!all && first == last)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 "%s#%d of %d (j/k)", remark[0] ? "  " : "", first + 1, tr->n_items);
	else if (!all)
		snprintf(remark + strlen(remark), sizeof(remark) - strlen(remark),
			 "%s#%d-%d of %d (j/k)", remark[0] ? "  " : "", first + 1, last + 1,
			 tr->n_items);
	const char *name = all ? "attention weights" : "attention";
	title(a, w, name, remark);

	bool cross = tr->cfg.mode == AV_MODE_CROSS;
	int y = 1;
	for (int i = first; i <= last && y < height - 1; i++) {
		const struct av_train_item *it = &tr->items[i];
		const struct av_trace *t = &it->trace;
		size_t cells = (size_t)t->n * t->m;
		unsigned char *mark_cells = av_calloc(cells ? cells : 1, 1);
		unsigned char *hidden = av_calloc(cells ? cells : 1, 1);
		for (size_t k = 0; k < cells; k++) {
			mark_cells[k] = it->target[k] > 0.5;
			hidden[k] = !t->mask[k];
		}
		struct matrix m = {
			.rows = t->n, .cols = t->m,
			.v = t->weights + (size_t)h * cells,
			.row_label = t->tokens.text,
			.col_label = cross ? t->source_tokens.text : t->tokens.text,
			.weights = true, .range = 1,
			.mark = mark_cells, .hidden = hidden,
			.cur_row = -1, .cur_col = -1, .hl_row = -1, .hl_col = -1,
			.label_w = lw, .cell_w = cw,
		};
		int got = draw_matrix(a, w, y, height - 1 - y, &m);
		/* the sentence's number before its key labels */
		char num[16];
		snprintf(num, sizeof(num), "#%d", i + 1);
		if (got > 0 && av_text_width(num) < lw)
			av_put(w, y, 0, num, lw, i == tv->sentence && tr->n_items > 1 ?
			       el(a, AV_EL_HIGHLIGHT) : el(a, AV_EL_DIM));
		free(mark_cells);
		free(hidden);
		y += got;
	}
	if (y < height) {
		char marks[96];
		snprintf(marks, sizeof(marks), "%s target (%s)", av_draw_utf8() ? "•" : "*",
			 av_target_names[tr->set.target]);
		draw_map_legend(a, w, y, true, 1, marks);
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

static const char *divisor_text(const struct av_trainer *tr)
{
	bool utf8 = av_draw_utf8();
	bool t = tr->cfg.temperature != 1;
	switch (tr->cfg.scale) {
	case AV_SCALE_DK: return t ? (utf8 ? "/(√dh·T)" : "/(sqrt(dh)*T)") : (utf8 ? "/√dh" : "/sqrt(dh)");
	case AV_SCALE_DMODEL: return t ? (utf8 ? "/(√D·T)" : "/(sqrt(D)*T)") : (utf8 ? "/√D" : "/sqrt(D)");
	case AV_SCALE_NONE: return t ? "/T" : "";
	}
	return "";
}

static void draw_vocab_map(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	const struct av_trainer *tr = tv->tr;
	int height = getmaxy(w);
	int V = tr->params.vocab_size, h = head_of(a);
	char name[96], remark[64];
	snprintf(name, sizeof(name), "vocabulary: q(a)%sk(b)%s", av_draw_utf8() ? "·" : ".",
		 divisor_text(tr));
	const char *keys = tv->vocab ? "Enter: track" : "v: pick a pair";
	if (tr->cfg.heads > 1)
		snprintf(remark, sizeof(remark), "head %d  %s", h, keys);
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
		.hl_row = tr->track[0], .hl_col = tr->track[1],
	};
	int used = draw_matrix(a, w, 1, height - 2, &m);
	free(mark);
	if (used + 1 < height)
		draw_map_legend(a, w, 1 + used, false, range,
				tr->n_pairs ? (av_draw_utf8() ? "• a pair of the sample"
					       : "* a pair of the sample") : NULL);
}

/* --- the histogram -------------------------------------------------------- */

static void draw_hist(struct av_app *a, WINDOW *w)
{
	struct av_train_view *tv = a->train;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM);
	char remark[96];
	int bins = tv->bins;
	int max = 0;
	for (int b = 0; b < bins; b++)
		max = tv->hist[b] > max ? tv->hist[b] : max;
	bool alike = tv->hist_n > 1 && tv->hist_hi - tv->hist_lo < 0.1;
	if (alike) {
		title(a, w, "scores all alike", NULL);
		int x = av_text_width("scores all alike") + 2;
		av_put(w, 0, x, "try init xavier (i) or lr x2 (])", width - x, el(a, AV_EL_ERROR));
	} else {
		snprintf(remark, sizeof(remark), "%d scores, %d bins, tallest %d", tv->hist_n, bins,
			 max);
		title(a, w, "all scores", remark);
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
	av_chart_number(lo, sizeof(lo), tv->hist_lo, 7);
	av_chart_number(hi, sizeof(hi), tv->hist_hi, 7);
	int span = bw * bins;
	int lw = av_text_width(lo), hw = av_text_width(hi);
	av_put(w, height - 1, x0, lo, width - x0, dim);
	if (lw + hw + 1 <= span)
		av_put(w, height - 1, x0 + span - hw, hi, hw, dim);
	if (tv->hist_lo < 0 && tv->hist_hi > 0) {
		int zx = x0 + (int)(-tv->hist_lo / (tv->hist_hi - tv->hist_lo) * span);
		if (zx > x0 + lw && zx + 1 < x0 + span - hw)
			av_put(w, height - 1, zx, utf8 ? "↑0" : "^0", 2, dim);
	}
}

/* --- gradients ------------------------------------------------------------ */

static void draw_grad(struct av_app *a, WINDOW *w)
{
	const struct av_trainer *tr = a->train->tr;
	int width = getmaxx(w), height = getmaxy(w);
	attr_t dim = el(a, AV_EL_DIM), err = el(a, AV_EL_ERROR);
	int ids[AV_N_PARAMS], n = 0;
	bool vanishing = false, exploding = false;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		if (!tr->trained[id])
			continue;
		ids[n++] = id;
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		vanishing |= g == AV_GRAD_VANISHING;
		exploding |= g == AV_GRAD_EXPLODING;
	}
	title(a, w, "gradient norms", tr->steps ? "print(W_q.grad)" : "after a step");
	int lines = height - 1;
	if (lines < 1)
		return;
	bool advice = vanishing || exploding;
	int room = advice && lines >= 2 ? lines - 1 : lines;
	int per_line = n <= room ? 1 : 2;
	int colw = per_line == 1 ? width : width / 2;
	for (int k = 0; k < n; k++) {
		int row = 1 + k / per_line, x = (k % per_line) * colw;
		if (row > room)
			break;
		int id = ids[k];
		enum av_grad_health g = av_trainer_grad_health(tr, id);
		char norm[32];
		double v = tr->grad_norm[id];
		if (isnan(v) || tr->steps == 0)
			snprintf(norm, sizeof(norm), "%s", av_draw_utf8() ? "—" : "-");
		else
			snprintf(norm, sizeof(norm), "%.2e", v);
		const char *word = g == AV_GRAD_VANISHING ? "vanishing!"
				   : g == AV_GRAD_EXPLODING ? "exploding!"
				   : g == AV_GRAD_UNUSED ? (per_line == 1 ? "no effect on the loss" : "unused")
				   : tr->steps ? "ok" : "";
		attr_t wa = g == AV_GRAD_VANISHING || g == AV_GRAD_EXPLODING ? err
			    : g == AV_GRAD_UNUSED ? dim : el(a, AV_EL_NORMAL);
		char cell[96];
		if (per_line == 2 && colw < 22) {
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
		/* a gradient near 0 once the loss is near 0 is no illness */
		bool learned = tr->epoch > 0 && tr->loss[tr->epoch - 1] < 1e-3 * tr->loss[0];
		const char *text = exploding ? "exploding: lr down ([) or xavier init (i)"
				   : learned ? "vanishing: the loss is ≈ 0, learned"
				   : "vanishing: xavier init (i) or lr up (])";
		av_put(w, lines >= 2 ? height - 1 : 0, 0, text, width, err);
	}
}

static void draw_hint(struct av_app *a, WINDOW *w)
{
	char buf[96];
	snprintf(buf, sizeof(buf), "%d+ columns show the heatmap and the histogram",
		 TWO_COLUMNS);
	av_put(w, 0, 0, buf, getmaxx(w), el(a, AV_EL_DIM));
}

/* --- the view ------------------------------------------------------------- */

static void train_draw(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv || !tv->tr)
		return;
	refresh_data(a);
	unsigned d = tv->dirty ? tv->dirty : D_ALL;
	if (d == D_ALL)
		set_backgrounds(a);
	for (int p = 0; p < P_COUNT; p++) {
		WINDOW *w = tv->w[p];
		if (!w || !(d & BIT(p)))
			continue;
		werase(w);
		switch (p) {
		case P_INFO: draw_info(a, w); break;
		case P_LOSS: draw_loss(a, w); break;
		case P_TRACK: draw_track(a, w); break;
		case P_MAP:
		case P_MAP2:
			if (tv->vocab == (p == P_MAP))
				draw_vocab_map(a, w);
			else
				draw_sentence_map(a, w);
			break;
		case P_HIST: draw_hist(a, w); break;
		case P_GRAD: draw_grad(a, w); break;
		case P_HINT: draw_hint(a, w); break;
		}
	}
	tv->dirty = 0;
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

/* Trains up to epochs epochs, stopping early after budget_us (0: none);
 * pauses at the goal and when the loss stops being a number. */
static void run_epochs(struct av_app *a, int epochs, long long budget_us)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	long long t0 = now_us();
	int done = 0, steps = 0;
	while (done < epochs) {
		bool end = av_trainer_step(tr);
		steps++;
		if (end) {
			done++;
			double loss = tr->loss[tr->epoch - 1];
			if (!isfinite(loss)) {
				pause_training(a);
				av_app_message(a, true, "the loss is %s: the weights exploded. r resets; "
					       "[ lowers the learning rate", isnan(loss) ? "nan" : "inf");
				break;
			}
			if (tv->goal > 0 && tr->epoch == tv->goal && !tv->goal_seen) {
				tv->goal_seen = true;
				if (tv->running) {
					pause_training(a);
					av_app_message(a, false, "epoch %d, as long as the sample's "
						       "training: paused (Space trains on, t shows the "
						       "new attention)", tr->epoch);
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

static void train_tick(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv || !tv->running)
		return;
	const struct speed *sp = &speeds[tv->speed];
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
		av_app_message(a, true, "%s", cause ? cause : "cannot change the target");
		free(cause);
		return;
	}
	char text[200];
	switch (next) {
	case AV_TARGET_SELF:
		snprintf(text, sizeof(text), "each word should attend to itself (seed 001's "
			 "torch.eye): china%spanda is pushed down", arrow());
		break;
	case AV_TARGET_PREVIOUS:
		snprintf(text, sizeof(text), "each word should attend to the word before it");
		break;
	case AV_TARGET_PAIRS:
		snprintf(text, sizeof(text), "each word should attend to its partner from the "
			 "sample's pairs: china%spanda should rise", arrow());
		break;
	}
	av_app_message(a, false, "target %s: %s%s", av_target_names[next], text,
		       tr->n_pairs == 0 && next == AV_TARGET_SELF ? " (no pairs in this sample)" : "");
	changed(a);
}

static void cycle_init(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	enum av_init next = (enum av_init)((tr->cfg.init + 1) % 3);
	av_trainer_set_init(tr, next);
	tv->goal_seen = false;
	pause_training(a);
	static const char *const how[] = {
		"N(0,1) like torch.randn (seed 001)",
		"Glorot uniform: seed 001's remedy for scores that all look alike",
		"nn.Linear's default uniform",
	};
	av_app_message(a, false, "init %s: the trained weights drawn again, %s; back to epoch 0",
		       av_init_names[next], how[next]);
	changed(a);
}

static void change_lr(struct av_app *a, double factor)
{
	struct av_trainer *tr = a->train->tr;
	double lr = tr->set.lr * factor;
	if (lr < LR_MIN || lr > LR_MAX) {
		av_app_message(a, false, "the learning rate stays between %g and %g", LR_MIN, LR_MAX);
		return;
	}
	char *cause = NULL;
	if (!av_trainer_set_lr(tr, lr, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : "bad learning rate");
		free(cause);
		return;
	}
	av_app_message(a, false, "learning rate %g%s", lr,
		       factor > 1 ? " (larger: seed 001's remedy for scores that stay alike)" : "");
	mark(a, BIT(P_INFO));
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
	av_app_message(a, false, "%s%s%s (Enter tracks this pair)", voc[tv->vrow], arrow(),
		       voc[tv->vcol]);
	mark(a, BIT(P_MAP) | BIT(P_MAP2));
}

static void track_pair(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	if (!tv->vocab) {
		av_app_message(a, false, "Enter tracks a pair in the vocabulary view: v, move, "
			       "Enter");
		return;
	}
	char *cause = NULL;
	if (!av_trainer_set_track(tr, tv->vrow, tv->vcol, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : "cannot track that pair");
		free(cause);
		return;
	}
	av_app_message(a, false, "tracking %s%s%s from epoch %d (r resets for its whole history)",
		       tr->params.vocab[tv->vrow], arrow(), tr->params.vocab[tv->vcol], tr->epoch);
	mark(a, BIT(P_TRACK) | BIT(P_MAP) | BIT(P_MAP2));
}

static void set_sentence(struct av_app *a, int delta)
{
	struct av_train_view *tv = a->train;
	int n = tv->tr->n_items;
	if (n <= 1) {
		av_app_message(a, false, "the sample has one training sentence");
		return;
	}
	tv->sentence = ((tv->sentence + delta) % n + n) % n;
	mark(a, BIT(P_MAP) | BIT(P_MAP2));
	av_app_message(a, false, "sentence %d: \"%s\"%s%s", tv->sentence + 1,
		       tv->tr->items[tv->sentence].query,
		       tv->tr->items[tv->sentence].source ? " ||| " : "",
		       tv->tr->items[tv->sentence].source ? tv->tr->items[tv->sentence].source : "");
}

static bool train_key(struct av_app *a, int key, enum av_action act)
{
	struct av_train_view *tv = a->train;
	struct av_trainer *tr = tv->tr;
	enum av_train_action ta = av_train_action_for_key(key);
	switch (ta) {
	case AV_TRAIN_NONE:
		break;
	case AV_TRAIN_RUN:
		if (tv->running) {
			pause_training(a);
		} else {
			tv->running = true;
			tv->ticks = 0;
			mark(a, BIT(P_INFO));
		}
		return true;
	case AV_TRAIN_STEP:
		pause_training(a);
		run_epochs(a, 1, 0);
		return true;
	case AV_TRAIN_FASTER:
	case AV_TRAIN_SLOWER: {
		int s = tv->speed + (ta == AV_TRAIN_FASTER ? 1 : -1);
		if (s < 0 || s >= N_SPEEDS) {
			av_app_message(a, false, "already the %s speed",
				       s < 0 ? "slowest" : "fastest");
			return true;
		}
		tv->speed = s;
		tv->capped = 0;
		av_app_message(a, false, "speed %s (%d epoch%s every %d tick%s of %d ms)",
			       speeds[s].label, speeds[s].epochs, speeds[s].epochs > 1 ? "s" : "",
			       speeds[s].every, speeds[s].every > 1 ? "s" : "", TICK_MS);
		mark(a, BIT(P_INFO));
		return true;
	}
	case AV_TRAIN_RESET:
		av_trainer_reset(tr);
		tv->goal_seen = false;
		pause_training(a);
		av_app_message(a, false, "back to the first weights, epoch 0 (settings kept)");
		changed(a);
		return true;
	case AV_TRAIN_LR_UP: change_lr(a, 2); return true;
	case AV_TRAIN_LR_DOWN: change_lr(a, 0.5); return true;
	case AV_TRAIN_TARGET: cycle_target(a); return true;
	case AV_TRAIN_OPTIMIZER: {
		enum av_optimizer o = tr->set.optimizer == AV_OPT_ADAM ? AV_OPT_SGD : AV_OPT_ADAM;
		av_trainer_set_optimizer(tr, o);
		av_app_message(a, false, "optimiser %s (a fresh one: its state starts at zero)%s",
			       av_optimizer_names[o], o == AV_OPT_SGD ?
			       "; plain SGD may want a larger lr (])" : "");
		changed(a);
		return true;
	}
	case AV_TRAIN_INIT: cycle_init(a); return true;
	case AV_TRAIN_PARAMS: {
		enum av_train_set s = tr->set.params == AV_TRAIN_QKV ? AV_TRAIN_ALL : AV_TRAIN_QKV;
		av_trainer_set_params(tr, s);
		av_app_message(a, false, "training %s", s == AV_TRAIN_ALL ?
			       "every tensor: embeddings, positions, W_q, W_k, W_v, W_o" :
			       "W_q, W_k and W_v, as seed 001 does");
		changed(a);
		make_windows(a);
		return true;
	}
	case AV_TRAIN_VOCAB:
		tv->vocab = !tv->vocab;
		tv->stale = true;
		make_windows(a);
		av_app_message(a, false, tv->vocab ?
			       "vocabulary: the score of every word pair; arrows move, Enter tracks "
			       "a pair, v goes back" : "the attention of a training sentence");
		return true;
	case AV_TRAIN_UP:
		if (tv->vocab)
			move_vocab(a, -1, 0);
		else
			set_sentence(a, -1);
		return true;
	case AV_TRAIN_DOWN:
		if (tv->vocab)
			move_vocab(a, 1, 0);
		else
			set_sentence(a, 1);
		return true;
	case AV_TRAIN_LEFT:
	case AV_TRAIN_RIGHT:
		if (tv->vocab)
			move_vocab(a, 0, ta == AV_TRAIN_LEFT ? -1 : 1);
		else
			av_app_message(a, false, "left and right move in the vocabulary view (v)");
		return true;
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
		av_app_message(a, false, "%s is a key of the stepper: t goes back to it, ? lists "
			       "the training keys", name);
		return true;
	}
	return false;
}

const struct av_view av_view_train = {
	.name = "training",
	.draw = train_draw,
	.key = train_key,
	.resize = train_resize,
	.tick_period = train_timeout,
	.tick = train_tick,
	.refresh_own = train_refresh,
	.header = train_header,
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

static void touch_shared(struct av_app *a)
{
	WINDOW *ws[] = { a->w_header, a->w_tokens, a->w_title, a->w_panel, a->w_legend,
			 a->w_insp, a->w_status };
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (ws[i])
			touchwin(ws[i]);
}

bool av_train_view_open(struct av_app *a)
{
	struct av_session *s = a->s;
	struct av_train_view *tv = a->train;
	if (!tv) {
		tv = a->train = av_calloc(1, sizeof(*tv));
		tv->speed = DEFAULT_SPEED;
	}
	const char *note = "";
	if (tv->tr && !same_layer(tv->tr, s)) {
		av_trainer_free(tv->tr);
		tv->tr = NULL;
		note = "the layer changed since the last visit (weights, mode or scale): training "
		       "starts afresh from the stepper's weights";
	}
	if (!tv->tr) {
		struct av_train_settings set;
		av_train_settings_from_sample(&set, &s->sample.training);
		if (set.target == AV_TARGET_PAIRS && s->sample.training.n_pairs == 0)
			set.target = AV_TARGET_SELF;
		char *cause = NULL;
		tv->tr = av_trainer_new(s, &set, &cause);
		if (!tv->tr) {
			av_app_message(a, true, "cannot train: %s", cause ? cause : "?");
			free(cause);
			return false;
		}
		tv->goal = s->sample.training.epochs;
		tv->goal_seen = false;
		tv->sentence = 0;
		tv->vrow = tv->tr->track[0] >= 0 ? tv->tr->track[0] : 0;
		tv->vcol = tv->tr->track[1] >= 0 ? tv->tr->track[1] : 0;
	}
	tv->running = false;
	tv->capped = 0;
	tv->stale = true;
	a->view = &av_view_train;
	make_windows(a);
	a->dirty = AV_DIRTY_ALL;
	if (*note)
		av_app_message(a, false, "%s", note);
	else
		av_app_message(a, false, "training view: Space runs, s takes one epoch, ? lists the "
			       "keys, t goes back with the trained weights");
	return true;
}

void av_train_view_leave(struct av_app *a)
{
	struct av_train_view *tv = a->train;
	if (!tv)
		return;
	tv->running = false;
	delete_windows(tv);
	a->view = &av_view_stage;
	if (a->head >= tv->tr->cfg.heads)
		a->head = 0;
	char *cause = NULL;
	bool ok = av_trainer_apply(tv->tr, a->s, &cause);
	touch_shared(a);
	a->dirty = AV_DIRTY_ALL;
	if (!ok) {
		av_app_message(a, true, "the trained weights do not run: %s", cause ? cause : "?");
		free(cause);
		return;
	}
	if (tv->tr->epoch == 0)
		av_app_message(a, false, "back to the stepper (nothing trained yet)");
	else
		av_app_message(a, false, "the stepper now uses the weights after %d epoch%s (loss "
			       "%.4g): step through the new attention; t trains on",
			       tv->tr->epoch, tv->tr->epoch == 1 ? "" : "s",
			       tv->tr->loss[tv->tr->epoch - 1]);
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

const struct av_trainer *av_train_view_trainer(const struct av_app *a)
{
	return a->train ? a->train->tr : NULL;
}
