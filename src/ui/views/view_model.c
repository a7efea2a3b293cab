/* view_model.c: a real GPT-2 on the screen (--model, issue 12): the hooks
 * of model_ui.h and the model view (M): every layer x head as a small
 * heatmap of its softmax weights, a cursor on one (layer, head) that Enter
 * opens in the stepper, and the next-token prediction after the last
 * position with where each head of the last layer looks for it.
 *
 * The stepper shows one layer through the session's trace; the run (every
 * layer's weights) lives here. The cursor of the model view is the
 * stepper's own layer and head, so moving it changes the trace too (a copy
 * of one layer's arrays, not a forward pass) and Enter only switches view.
 *
 * Tiles: each cell is the largest weight in its block of queries x keys
 * (a sharp head stays visible when the tile is smaller than n x n); where
 * the panel has room a weight is a block of cells instead, its key's
 * columns twice its query's rows (a terminal cell is twice as tall as
 * wide). The size is the one that pages least, then the largest (plan):
 * a fixed size left a tiny model's 3 x 6 tiles in a corner of 200x60. The
 * layers (and, on a narrow screen, the heads) that do not fit are paged,
 * the page always holding the cursor. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "model/gpt2.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/inspector.h"
#include "ui/views/model_ui.h"
#include "ui/views/model_worker.h"
#include "ui/views/view_heads_internal.h"
#include "util.h"

#define TOP_K 10
#define MIN_TILE_W 3
/* The largest block of cells one weight gets: larger shows nothing more,
 * and a one-token sentence would be one block filling the screen. */
#define MAX_BLOCK_W 8
#define MAX_BLOCK_H 4

struct av_model_ui {
	const struct av_gpt2 *m;
	char *name;
	struct av_gpt2_run run;
	int layer;                      /* the stepper's layer (and the cursor's) */
	int n_top;
	int top_ids[TOP_K];
	double top_probs[TOP_K];
	char *top_text[TOP_K];          /* av_bpe_display of each */
	/* the bytes of the run's tokens, one after another: token i is
	 * bytes[start[i] .. start[i + 1]) (the trace's labels are for the
	 * eye: "<e7>" is one byte, "␣" a space) */
	unsigned char bytes[AV_GPT2_MAX_TOKENS * AV_BPE_MAX_TOKEN_BYTES];
	int start[AV_GPT2_MAX_TOKENS + 1];
	const struct av_view *back;     /* the view M came from */
	struct av_model_worker *worker; /* the editor's forwards (NULL: run here) */
};

/* --- the run ------------------------------------------------------------- */

static void free_top(struct av_model_ui *mu)
{
	for (int i = 0; i < TOP_K; i++) {
		free(mu->top_text[i]);
		mu->top_text[i] = NULL;
	}
	mu->n_top = 0;
}

static void fill_trace(struct av_app *a)
{
	struct av_model_ui *mu = a->model;
	av_gpt2_trace_layer(mu->m, &mu->run, mu->layer, a->s->sentence, &a->s->trace);
	a->s->cfg = a->s->trace.cfg;
	mu->start[0] = 0;
	for (int i = 0; i < mu->run.n; i++) {
		int room = (int)sizeof(mu->bytes) - mu->start[i];
		int k = av_bpe_token_bytes(&mu->m->bpe, mu->run.ids[i], mu->bytes + mu->start[i],
					   room);
		mu->start[i + 1] = mu->start[i] + (k > 0 ? k : 0);
	}
	if (a->head >= a->s->trace.heads)
		a->head = 0;
	free_top(mu);
	mu->n_top = av_gpt2_top_k(&mu->run, mu->run.n - 1, TOP_K, mu->top_ids, mu->top_probs);
	for (int i = 0; i < mu->n_top; i++)
		mu->top_text[i] = av_bpe_display(&mu->m->bpe, mu->top_ids[i]);
}

/* Runs text into a fresh run, so a sentence that fails leaves the old one. */
static bool run_text(struct av_model_ui *mu, const char *text, char **cause)
{
	struct av_gpt2_run fresh;
	memset(&fresh, 0, sizeof(fresh));
	if (!av_gpt2_run_text(mu->m, text, &fresh, cause)) {
		av_gpt2_run_free(&fresh);
		return false;
	}
	av_gpt2_run_free(&mu->run);
	mu->run = fresh;
	return true;
}

bool av_model_ui_start(struct av_app *a, const struct av_ui_config *cfg, char **cause)
{
	struct av_model_ui *mu = av_calloc(1, sizeof(*mu));
	mu->m = cfg->gpt2;
	mu->name = av_strdup(cfg->gpt2_name ? cfg->gpt2_name : "gpt2");
	int L = mu->m->cfg.n_layer;
	mu->layer = cfg->gpt2_layer >= 0 && cfg->gpt2_layer < L ? cfg->gpt2_layer : L - 1;
	a->model = mu;
	if (!run_text(mu, a->s->sentence ? a->s->sentence : "", cause)) {
		av_model_ui_free(a);
		return false;
	}
	fill_trace(a);
	/* without a thread the editor runs the model itself, as before */
	char *why = NULL;
	mu->worker = av_model_worker_new(mu->m, &why);
	free(why);
	return true;
}

void av_model_ui_free(struct av_app *a)
{
	struct av_model_ui *mu = a->model;
	if (!mu)
		return;
	av_model_worker_free(mu->worker);   /* waits for the forward in progress only */
	free_top(mu);
	av_gpt2_run_free(&mu->run);
	free(mu->name);
	free(mu);
	a->model = NULL;
}

/* With a worker the text is tokenised here (a text that cannot run is said
 * at once, av_gpt2_tokenize) and computed there: true means
 * posted (or already on screen), and the screen keeps the old run, tokens
 * and numbers together, until av_model_ui_collect swaps the new one in. */
static bool post_text(struct av_app *a, const char *text, char **cause)
{
	struct av_model_ui *mu = a->model;
	int ids[AV_GPT2_MAX_TOKENS];
	if (a->s->sentence && strcmp(text, a->s->sentence) == 0) {
		av_model_worker_cancel(mu->worker);   /* back to what is shown (Esc) */
		a->dirty |= AV_DIRTY_STATUS;
		return true;
	}
	int n = av_gpt2_tokenize(mu->m, text, ids, cause);
	if (n < 0) {
		av_model_worker_cancel(mu->worker);
		return false;
	}
	av_model_worker_post(mu->worker, ids, n, text);
	a->dirty |= AV_DIRTY_STATUS;
	return true;
}

bool av_model_ui_set_sentence(struct av_app *a, const char *text, char **cause)
{
	struct av_model_ui *mu = a->model;
	if (mu->worker)
		return post_text(a, text, cause);
	if (!run_text(mu, text, cause))
		return false;
	char *old = a->s->sentence;
	a->s->sentence = av_strdup(text);
	free(old);
	fill_trace(a);
	a->dirty |= AV_DIRTY_ALL;
	return true;
}

bool av_model_ui_busy(const struct av_app *a)
{
	return a->model && a->model->worker && av_model_worker_busy(a->model->worker);
}

int av_model_ui_fd(const struct av_app *a)
{
	return a->model && a->model->worker ? av_model_worker_fd(a->model->worker) : -1;
}

bool av_model_ui_collect(struct av_app *a)
{
	struct av_model_ui *mu = a->model;
	if (!mu || !mu->worker)
		return false;
	struct av_gpt2_run fresh;
	char *text = NULL, *cause = NULL;
	int got = av_model_worker_take(mu->worker, &fresh, &text, &cause);
	if (got < 0)
		return false;
	a->dirty |= AV_DIRTY_STATUS;
	if (got == 0) {   /* the forward failed: the old run stays */
		if (a->overlay == &av_view_edit) {
			free(a->ed.error);
			a->ed.error = cause ? cause : av_strdup(_("cannot run"));
		} else {
			av_app_message(a, true, "%s", cause ? cause : _("cannot run"));
			free(cause);
		}
		free(text);
		return true;
	}
	av_gpt2_run_free(&mu->run);
	mu->run = fresh;
	free(a->s->sentence);
	a->s->sentence = text;
	fill_trace(a);
	a->dirty |= AV_DIRTY_ALL;
	if (a->overlay != &av_view_edit)   /* Enter came first: say it is done */
		av_app_message(a, false, P_("sentence: %d token", "sentence: %d tokens", mu->run.n),
			       mu->run.n);
	free(cause);
	return true;
}

void av_model_ui_test_hold(struct av_app *a, bool hold)
{
	av_model_worker_hold(a->model->worker, hold);
}

void av_model_ui_test_wait(struct av_app *a)
{
	av_model_worker_wait_idle(a->model->worker);
}

int av_model_ui_test_forwards(const struct av_app *a)
{
	return av_model_worker_forwards(a->model->worker);
}

static void set_layer(struct av_app *a, int layer)
{
	struct av_model_ui *mu = a->model;
	int L = mu->m->cfg.n_layer;
	if (layer < 0 || layer >= L) {
		av_app_message(a, false, _("the model has layers 0 to %d"), L - 1);
		return;
	}
	if (layer == mu->layer)
		return;
	mu->layer = layer;
	fill_trace(a);
	a->dirty |= AV_DIRTY_ALL;
}

/* --- hooks --------------------------------------------------------------- */

void av_model_ui_layer_text(const struct av_app *a, char *buf, size_t size)
{
	snprintf(buf, size, _("layer %d/%d"), a->model->layer, a->model->m->cfg.n_layer);
}

const char *av_model_ui_name(const struct av_app *a)
{
	return a->model->name;
}

const char *av_model_ui_hints(const struct av_app *a)
{
	if (a->view == &av_view_model)
		return _("? help  arrows layer/head  Enter open  n/p page  M back  e edit  q quit");
	if (a->view == &av_view_stage)
		return _("? help  n/p stage  arrows cell  Tab head  [ ] layer  M model  e edit  q quit");
	if (a->view == &av_view_compare)
		return _("y unpin  D display  arrows cell  < > panel  Tab [ ] e: change live  q quit");
	return NULL;
}

void av_model_ui_weights(const struct av_app *a, struct av_insp_weights *out)
{
	const struct av_model_ui *mu = a->model;
	const struct av_gpt2_layer *L = &mu->m->layers[mu->layer];
	size_t C = (size_t)mu->m->cfg.n_embd;
	memset(out, 0, sizeof(*out));
	/* weight of output o for input k: c_attn[k][block + o] */
	out->q = (struct av_insp_linear){ L->attn_w, L->attn_b, 1, 3 * C };
	out->k = (struct av_insp_linear){ L->attn_w + C, L->attn_b + C, 1, 3 * C };
	out->v = (struct av_insp_linear){ L->attn_w + 2 * C, L->attn_b + 2 * C, 1, 3 * C };
	out->o = (struct av_insp_linear){ L->attn_proj_w, L->attn_proj_b, 1, C };
	out->ln_gamma = L->ln_1_w;
	out->ln_beta = L->ln_1_b;
}

void av_model_ui_token_bytes(const struct av_app *a, struct av_insp_bytes *out)
{
	const struct av_model_ui *mu = a->model;
	out->bytes = mu->bytes;
	out->start = mu->start;
	out->n = mu->run.n;
}

int av_model_ui_layer(const struct av_app *a)
{
	return a->model ? a->model->layer : -1;
}

int av_model_ui_top(const struct av_app *a, int k, int *ids, double *probs)
{
	const struct av_model_ui *mu = a->model;
	int n = mu && k < mu->n_top ? k : mu ? mu->n_top : 0;
	for (int i = 0; i < n; i++) {
		ids[i] = mu->top_ids[i];
		probs[i] = mu->top_probs[i];
	}
	return n;
}

const char *av_model_ui_refusal(enum av_action act)
{
	switch (act) {
	case AV_ACTION_TOGGLE_CAUSAL:
		return _("GPT-2 is causal as trained: each query sees only itself and the tokens before it");
	case AV_ACTION_MASK_KEY:
		return _("GPT-2 was trained without a padding mask: hiding a key would show weights the model never computes");
	case AV_ACTION_CYCLE_MODE:
		return _("GPT-2 has causal self-attention only (no cross mode, no bidirectional mode)");
	case AV_ACTION_EDIT_SOURCE:
		return _("GPT-2 has no source sentence (no cross attention): e edits the sentence");
	case AV_ACTION_CYCLE_SCALE:
		return _("GPT-2 divides the scores by the square root of the head width, as trained");
	case AV_ACTION_TEMP_UP: case AV_ACTION_TEMP_DOWN: case AV_ACTION_TEMP_RESET:
		return _("GPT-2's softmax runs at T = 1 as trained: another temperature would show weights the next layers never see");
	case AV_ACTION_RESEED:
		return _("the model's weights are loaded from its file, not drawn from a seed");
	case AV_ACTION_TRAIN:
		return _("training is for the teaching layer; a published model is shown as trained");
	case AV_ACTION_FIGURES:
		return _("the tutorials' figures are drawn for the teaching layer, not for --model");
	case AV_ACTION_WRITE:
		return _("W writes the teaching layer; attnview --model DIR --layer N --dump FILE writes this layer");
	case AV_ACTION_LESSON_NEXT: case AV_ACTION_LESSON_PREV: case AV_ACTION_LESSON_RESTORE:
		return _("lessons (--lesson) run on the teaching layer, not with --model");
	default:
		return NULL;
	}
}

static void toggle_model_view(struct av_app *a)
{
	struct av_model_ui *mu = a->model;
	if (a->view == &av_view_model) {
		a->view = mu->back ? mu->back : &av_view_stage;
	} else {
		mu->back = a->view == &av_view_heads ? &av_view_heads : &av_view_stage;
		a->view = &av_view_model;
	}
	a->dirty = AV_DIRTY_ALL;
}

bool av_model_ui_key(struct av_app *a, int key, enum av_action act)
{
	/* the editor's cancel key (Esc) goes on cancelling after Enter, while
	 * the sentence it started still computes: the docs said so, and Esc
	 * answered "does nothing here" while the run went on and replaced the
	 * sentence */
	if (av_edit_action_for_key(key) == AV_EDIT_CANCEL && av_model_ui_busy(a)) {
		av_model_worker_cancel(a->model->worker);
		av_app_message(a, false, "%s", _("dropped: the sentence shown stays (its run "
						 "was not finished)"));
		return true;
	}
	const char *why = av_model_ui_refusal(act);
	if (why) {
		av_app_message(a, false, "%s", why);
		return true;
	}
	switch (act) {
	case AV_ACTION_PREV_LAYER: set_layer(a, a->model->layer - 1); return true;
	case AV_ACTION_NEXT_LAYER: set_layer(a, a->model->layer + 1); return true;
	case AV_ACTION_MODEL_VIEW: toggle_model_view(a); return true;
	default: return false;
	}
}

/* --- the grid's plan ----------------------------------------------------- */

struct grid {
	int L, H, n;
	int label_w;                 /* "L11 " */
	int tile_w, tile_h, gap_h;
	int heads_per_page, layers_per_page;
	int first_layer, first_head;
	int last_layer, last_head;   /* exclusive */
};

static int digits(int v)
{
	int d = 1;
	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static int min_int(int x, int y)
{
	return x < y ? x : y;
}

static int max_int(int x, int y)
{
	return x > y ? x : y;
}

/* Whether a tile of size cells shows n tokens in even blocks: pooled
 * (size <= n), or each token a whole number of cells. */
static bool even_blocks(int size, int n, int most)
{
	return size <= n || (size % n == 0 && size / n <= most);
}

/* Layers of tile height h a panel of room_h rows holds (a gap between
 * tiles taller than a row). */
static int layers_fit(int h, int room_h)
{
	int gap = h > 1 ? 1 : 0;
	return (room_h + gap) / (h + gap);
}

/* Lexicographic, as the heads view's plans: the fewest pages of layers,
 * then the largest tiles, then the squarest on the screen. */
#define N_SCORE 3
static void score(int L, int w, int h, int room_h, long s[N_SCORE])
{
	int per = min_int(layers_fit(h, room_h), L);
	s[0] = -(long)((L + per - 1) / per);
	s[1] = (long)w * h;
	s[2] = -labs((long)w - 2L * h);
}

/* The arrangement for a panel of width x height (one row of head labels
 * on top), the page holding the cursor. The tile's width is the keys'
 * resolution the width allows (every key a column when the heads fit with
 * n each, else as many as fit); its height from about square (half the
 * width) to one row per query; both grow in whole blocks per weight when
 * every key and query has its column and row already. Among those, score
 * picks: at 80x24 12 heads of 7 tokens stay 5 x 3 (4 pages of 3 layers),
 * the tiny model's 2 x 2 heads of 6 tokens get 12 x 6 (one page). */
static void plan(const struct av_app *a, int width, int height, struct grid *g)
{
	const struct av_model_ui *mu = a->model;
	memset(g, 0, sizeof(*g));
	g->L = mu->m->cfg.n_layer;
	g->H = mu->m->cfg.n_head;
	g->n = max_int(mu->run.n, 1);
	g->label_w = digits(g->L - 1) + 2;
	int room_w = max_int(width - g->label_w, 1);
	int room_h = max_int(height - 1, 1);
	int per_head = room_w / g->H;   /* a tile and its gap */
	int widest;
	if (per_head - 1 >= MIN_TILE_W) {
		g->heads_per_page = g->H;
		widest = per_head - 1;
	} else {
		/* the heads do not all fit: pages of heads with readable tiles */
		widest = min_int(g->n, 4);
		g->heads_per_page = max_int(1, room_w / (widest + 1));
	}
	int narrowest = min_int(g->n, widest);
	long best[N_SCORE] = { LONG_MIN, LONG_MIN, LONG_MIN };
	for (int w = narrowest; w <= widest; w++) {
		if (!even_blocks(w, g->n, MAX_BLOCK_W))
			continue;
		/* from about square to 2:1 tall (n x n at a cell each); keys
		 * in blocks (w >= 2n) get every query its rows, h >= n */
		for (int h = (w + 1) / 2; h <= w && h <= room_h; h++) {
			if (!even_blocks(h, g->n, MAX_BLOCK_H))
				continue;
			long s[N_SCORE];
			score(g->L, w, h, room_h, s);
			if (av_heads_score_better(s, best, N_SCORE)) {
				memcpy(best, s, sizeof(s));
				g->tile_w = w;
				g->tile_h = h;
			}
		}
	}
	if (g->tile_w == 0) {
		/* not even the smallest tile's rows fit: one layer, as tall as
		 * the panel */
		g->tile_w = max_int(narrowest, 1);
		g->tile_h = room_h;
	}
	g->gap_h = g->tile_h > 1 ? 1 : 0;
	g->layers_per_page = min_int(max_int(layers_fit(g->tile_h, room_h), 1), g->L);
	g->first_layer = av_heads_page_start(mu->layer, g->layers_per_page);
	g->first_head = av_heads_page_start(a->head, g->heads_per_page);
	g->last_layer = min_int(g->L, g->first_layer + g->layers_per_page);
	g->last_head = min_int(g->H, g->first_head + g->heads_per_page);
}

/* The largest weight of (layer, head) in queries [q0, q1) x keys [k0, k1). */
static float block_max(const struct av_gpt2_run *r, int layer, int head, int q0, int q1, int k0,
		       int k1)
{
	int n = r->n;
	const float *w = r->weights + ((size_t)layer * r->n_head + (size_t)head) * n * n;
	float best = 0.0f;
	for (int i = q0; i < q1; i++)
		for (int j = k0; j < k1; j++)
			if (w[(size_t)i * n + j] > best)
				best = w[(size_t)i * n + j];
	return best;
}

/* --- drawing ------------------------------------------------------------- */

static void draw_tile(struct av_app *a, WINDOW *w, const struct grid *g, int layer, int head,
		      int y0, int x0)
{
	struct av_colors *c = &a->colors;
	const struct av_gpt2_run *r = &a->model->run;
	bool cursor = layer == a->model->layer && head == a->head;
	attr_t cur = av_colors_el(c, AV_EL_CURSOR);
	for (int ty = 0; ty < g->tile_h; ty++) {
		/* a block of queries, or the one query whose block of rows this
		 * row is in (then q1 == q0 + 1) */
		int q0 = ty * g->n / g->tile_h, q1 = max_int((ty + 1) * g->n / g->tile_h, q0 + 1);
		for (int tx = 0; tx < g->tile_w; tx++) {
			int k0 = tx * g->n / g->tile_w;
			int k1 = max_int((tx + 1) * g->n / g->tile_w, k0 + 1);
			double pos = block_max(r, layer, head, q0, q1, k0, k1);
			attr_t heat = av_colors_heat(c, false, pos);
			/* without colour (NO_COLOR, vt100) the glyph's density is the weight */
			const char *glyph = av_colors_glyphs(c) || heat == A_NORMAL
					    ? av_colors_shade(c, pos) : " ";
			av_heads_put(w, y0 + ty, x0 + tx, glyph, 1, heat);
		}
		if (cursor) {
			av_heads_put(w, y0 + ty, x0 - 1, "[", 1, cur);
			av_heads_put(w, y0 + ty, x0 + g->tile_w, "]", 1, cur);
		}
	}
}

static void draw_grid(struct av_app *a, WINDOW *w, const struct grid *g)
{
	struct av_colors *c = &a->colors;
	attr_t label = av_colors_el(c, AV_EL_LABEL), cur = av_colors_el(c, AV_EL_CURSOR);
	for (int h = g->first_head; h < g->last_head; h++) {
		char text[16], fit[16];
		int x = g->label_w + (h - g->first_head) * (g->tile_w + 1);
		snprintf(text, sizeof(text), g->tile_w >= 3 ? "h%d" : "%d", h);
		av_heads_fit(fit, sizeof(fit), text, g->tile_w);
		av_heads_put(w, 0, x, fit, g->tile_w, h == a->head ? cur : label);
	}
	for (int l = g->first_layer; l < g->last_layer; l++) {
		int y = 1 + (l - g->first_layer) * (g->tile_h + g->gap_h);
		char text[16];
		snprintf(text, sizeof(text), "L%d", l);
		av_heads_put(w, y + g->tile_h / 2, 0, text, g->label_w - 1,
			     l == a->model->layer ? cur : label);
		for (int h = g->first_head; h < g->last_head; h++)
			draw_tile(a, w, g, l, h, y, g->label_w + (h - g->first_head) * (g->tile_w + 1));
	}
}

static int pages(int total, int per)
{
	return per > 0 ? (total + per - 1) / per : 1;
}

static void draw_title(struct av_app *a, const struct grid *g)
{
	WINDOW *w = a->w_title;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	av_put(w, 0, 0, _("every layer x head: softmax weights (rows queries, columns keys)"), width,
	       av_colors_el(c, AV_EL_TITLE));
	if (getmaxy(w) < 2)
		return;
	char line[256];
	int layer_pages = pages(g->L, g->layers_per_page), head_pages = pages(g->H, g->heads_per_page);
	if (head_pages > 1)
		snprintf(line, sizeof(line),
			 _("layers %d-%d, heads %d-%d of %dx%d (page %d/%d)  cursor: layer %d head %d  Enter opens it"),
			 g->first_layer, g->last_layer - 1, g->first_head, g->last_head - 1, g->L, g->H,
			 g->first_layer / g->layers_per_page * head_pages +
			 g->first_head / g->heads_per_page + 1, layer_pages * head_pages,
			 a->model->layer, a->head);
	else
		snprintf(line, sizeof(line),
			 _("layers %d-%d of %d (page %d/%d)  cursor: layer %d head %d  Enter opens it"),
			 g->first_layer, g->last_layer - 1, g->L,
			 g->first_layer / g->layers_per_page + 1, layer_pages, a->model->layer, a->head);
	av_put(w, 1, 0, line, width, av_colors_el(c, AV_EL_DIM));
}

static void draw_legend(struct av_app *a, const struct grid *g)
{
	WINDOW *w = a->w_legend;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	int x = av_put(w, 0, 0, "0 ", width, A_NORMAL);
	int steps = av_colors_legend_steps(c, false, 8);
	for (int i = 0; i < steps && x < width; i++, x++)
		av_colors_swatch(w, 0, x, 1, c, false, (double)i / (steps - 1));
	x += av_put(w, 0, x, " 1  ", width - x, A_NORMAL);
	/* what a cell is: a block of weights pooled, one weight, or one
	 * weight's block of cells where the tiles are magnified */
	char text[160];
	if (g->tile_w < g->n || g->tile_h < g->n)
		snprintf(text, sizeof(text), "%s",
			 _("a cell: the largest weight in its block of queries x keys"));
	else if (g->tile_w == g->n && g->tile_h == g->n)
		snprintf(text, sizeof(text), "%s", _("a cell: one weight (query row, key column)"));
	else
		snprintf(text, sizeof(text), _("a block of %dx%d cells: one weight (query, key)"),
			 g->tile_w / g->n, g->tile_h / g->n);
	av_put(w, 0, x, text, width - x, av_colors_el(c, AV_EL_DIM));
}

/* Appends "text" to the line at *x if it fits whole; false when not. */
static bool put_item(WINDOW *w, int y, int *x, const char *text, attr_t attr)
{
	int width = getmaxx(w), tw = av_text_width(text);
	if (*x + tw > width)
		return false;
	*x += av_put(w, y, *x, text, width - *x, attr);
	return true;
}

/* The argmax key of the last query of (layer, head), and its weight. */
static int most_attended(const struct av_gpt2_run *r, int layer, int head, float *weight)
{
	int n = r->n, best = 0;
	const float *row = r->weights + (((size_t)layer * r->n_head + (size_t)head) * n + (n - 1)) * n;
	for (int j = 1; j < n; j++)
		if (row[j] > row[best])
			best = j;
	*weight = row[best];
	return best;
}

/* Under the grid: the next token, the last layer's heads for it, and the
 * cursor's head at the last position. */
static void draw_prediction(struct av_app *a)
{
	WINDOW *w = a->w_insp;
	if (!w)
		return;
	werase(w);
	const struct av_model_ui *mu = a->model;
	const struct av_trace *t = &a->s->trace;
	const struct av_gpt2_run *r = &mu->run;
	struct av_colors *c = &a->colors;
	attr_t label = av_colors_el(c, AV_EL_LABEL), normal = av_colors_el(c, AV_EL_NORMAL);
	int height = getmaxy(w), y = 0, last = r->n - 1;
	char text[256];
	const char *last_token = t->tokens.text[last];

	int x = 0;
	snprintf(text, sizeof(text), _("next token after \"%s\":"), last_token);
	x += av_put(w, y, 0, text, getmaxx(w), label);
	for (int i = 0; i < mu->n_top; i++) {
		double pct = 100.0 * mu->top_probs[i];
		/* small probabilities keep two digits instead of showing 0.0% */
		if (pct >= 0.1)
			snprintf(text, sizeof(text), _(" \"%s\" %.1f%%"), mu->top_text[i], pct);
		else
			snprintf(text, sizeof(text), _(" \"%s\" %.2g%%"), mu->top_text[i], pct);
		if (!put_item(w, y, &x, text, i == 0 ? av_colors_el(c, AV_EL_HIGHLIGHT) : normal))
			break;
	}
	if (++y >= height)
		return;

	int L = mu->m->cfg.n_layer, H = mu->m->cfg.n_head;
	snprintf(text, sizeof(text), _("last layer %d, from \"%s\":"), L - 1, last_token);
	x = av_put(w, y, 0, text, getmaxx(w), label);
	for (int h = 0; h < H; h++) {
		float wt;
		int j = most_attended(r, L - 1, h, &wt);
		snprintf(text, sizeof(text), _(" h%d \"%s\" %.2f"), h, t->tokens.text[j], wt);
		if (!put_item(w, y, &x, text, h == a->head && mu->layer == L - 1 ? av_colors_el(c, AV_EL_HIGHLIGHT) : normal)) {
			if (++y >= height)
				return;
			x = 0;
			if (!put_item(w, y, &x, text + 1, normal))
				break;
		}
	}
	if (++y >= height)
		return;
	float wt;
	int j = most_attended(r, mu->layer, a->head, &wt);
	snprintf(text, sizeof(text), _("layer %d head %d: \"%s\" attends most to %d \"%s\" (%.2f)"),
		 mu->layer, a->head, last_token, j, t->tokens.text[j], wt);
	av_put(w, y, 0, text, getmaxx(w), normal);
}

static void model_draw(struct av_app *a)
{
	struct grid g;
	WINDOW *w = a->w_panel;
	plan(a, w ? getmaxx(w) : 80, w ? getmaxy(w) : 10, &g);
	if (w) {
		werase(w);
		draw_grid(a, w, &g);
	}
	draw_title(a, &g);
	draw_legend(a, &g);
	draw_prediction(a);
}

static void model_header(struct av_app *a)
{
	av_app_draw_header(a, _("model"), AV_STAGE_SOFTMAX, AV_STAGE_COUNT,
			   av_ui_stage_titles[AV_STAGE_SOFTMAX], NULL);
}

/* --- keys ---------------------------------------------------------------- */

static void move_head(struct av_app *a, int head)
{
	int H = a->s->trace.heads;
	/* past either end (a page key clamped to the head it is on) said
	 * nothing, where the layers' keys say how many there are */
	if (head < 0 || head >= H || head == a->head) {
		av_app_message(a, false, _("the model has heads 0 to %d"), H - 1);
		return;
	}
	a->head = head;
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_HEADER;
}

static void open_in_stepper(struct av_app *a)
{
	a->view = &av_view_stage;
	a->stage = AV_STAGE_SOFTMAX;
	a->row = a->s->trace.n - 1;   /* the last query: the one that predicts */
	a->col = 0;
	a->dirty = AV_DIRTY_ALL;
	av_app_message(a, false, _("layer %d head %d at the softmax: M goes back to every layer"),
		       a->model->layer, a->head);
}

static bool model_key(struct av_app *a, int key, enum av_action act)
{
	struct grid g;
	WINDOW *w = a->w_panel;
	plan(a, w ? getmaxx(w) : 80, w ? getmaxy(w) : 10, &g);
	int layer = a->model->layer;
	if (key == AV_KEY_ESC) {
		toggle_model_view(a);
		return true;
	}
	switch (act) {
	/* past either end set_layer says "the model has layers 0 to N" (a
	 * clamp to the same layer said nothing) */
	case AV_ACTION_UP: set_layer(a, layer - 1); break;
	case AV_ACTION_DOWN: set_layer(a, layer + 1); break;
	case AV_ACTION_LEFT: move_head(a, a->head - 1); break;
	case AV_ACTION_RIGHT: move_head(a, a->head + 1); break;
	case AV_ACTION_NEXT_STAGE:
		set_layer(a, layer == g.L - 1 ? g.L
			  : min_int(g.first_layer + g.layers_per_page, g.L - 1));
		break;
	case AV_ACTION_PREV_STAGE:
		set_layer(a, layer == 0 ? -1 : max_int(g.first_layer - g.layers_per_page, 0));
		break;
	case AV_ACTION_PAGE_RIGHT: move_head(a, min_int(g.first_head + g.heads_per_page, g.H - 1)); break;
	case AV_ACTION_PAGE_LEFT: move_head(a, max_int(g.first_head - g.heads_per_page, 0)); break;
	case AV_ACTION_FIRST_STAGE: set_layer(a, 0); break;
	case AV_ACTION_LAST_STAGE: set_layer(a, g.L - 1); break;
	case AV_ACTION_LESSON_ANSWER: open_in_stepper(a); break;
	case AV_ACTION_ALL_HEADS:
		a->view = &av_view_heads;
		a->heads_bars = false;
		a->dirty = AV_DIRTY_ALL;
		break;
	case AV_ACTION_PIN:
		av_app_message(a, false, _("y pins a matrix of the stepper: Enter opens this head there"));
		break;
	default:
		return false;
	}
	return true;
}

static void model_resize(struct av_app *a)
{
	a->dirty = AV_DIRTY_ALL;
}

static const struct av_view_key model_keys[] = {
	{ AV_ACTION_UP, NULL, N_("layer before") },
	{ AV_ACTION_DOWN, NULL, N_("next layer") },
	{ AV_ACTION_LEFT, NULL, N_("head before") },
	{ AV_ACTION_RIGHT, NULL, N_("next head") },
	{ AV_ACTION_NEXT_STAGE, NULL, N_("next page of layers") },
	{ AV_ACTION_PREV_STAGE, NULL, N_("page of layers before") },
	{ AV_ACTION_PAGE_RIGHT, NULL, N_("next page of heads") },
	{ AV_ACTION_PAGE_LEFT, NULL, N_("page of heads before") },
	{ AV_ACTION_FIRST_STAGE, NULL, N_("first layer") },
	{ AV_ACTION_LAST_STAGE, NULL, N_("last layer") },
	{ AV_ACTION_LESSON_ANSWER, NULL, N_("open it in the stepper") },
	{ AV_ACTION_MODEL_VIEW, "M Esc", N_("back to the stepper") },
	{ AV_ACTION_NONE, NULL, NULL }
};

const struct av_view av_view_model = {
	.name = "model",
	.help_title = N_("In the layers x heads (M)"),
	.help_keys = model_keys,
	.label = N_("model"),
	.hints = N_("? help  arrows layer/head  Enter open  M back  q quit"),
	.draw = model_draw,
	.key = model_key,
	.resize = model_resize,
	.header = model_header,
	/* no export_note: W writes nothing with --model (a --dump does) */
};
