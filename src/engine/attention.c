/* attention.c: the forward pass, stage by stage (see attention.h).
 *
 * Kernels are plain loops over float buffers, llm.c style; every product
 * of matrices (the projections, Q_h K_h^T, weights_h V_h) goes through
 * matmul.h, so it runs on OpenBLAS where configure found it and on the
 * double-accumulating reference kernel otherwise. The softmax works in
 * double (see av_softmax_row): it is shared with the backward pass, which
 * needs rows that sum to 1 to 1e-16 (backward.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "attention.h"
#include "matmul.h"
#include "matmul_plain.h"
#include "softmax_avx2.h"
#include "util.h"

void av_linear(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim)
{
	av_matmul(out, x, w, b, n, in_dim, out_dim, AV_W_OUT_IN);
}

/* av_softmax_row, inlined into the forward's short rows (a call per row of
 * two was a third of their cost) */
static inline bool softmax_row(double *p, const float *row, const unsigned char *mrow,
			       int cols)
{
	if (!av_mask_row_visible(mrow, cols))
		return false;
	double max = -INFINITY;
	for (int j = 0; j < cols; j++)
		if (row[j] > max)
			max = row[j];
	double sum = 0;
	for (int j = 0; j < cols; j++) {
		/* e^0 is exactly 1: the row's largest score (one of each row of
		 * two, at D=3) needs no call to exp (inf - inf is nan, not 0) */
		double d = (double)row[j] - max;
		p[j] = d == 0 ? 1.0 : exp(d);
		sum += p[j];
	}
	for (int j = 0; j < cols; j++)
		p[j] /= sum;
	return true;
}

bool av_softmax_row(double *p, const float *row, const unsigned char *mrow, int cols)
{
	return softmax_row(p, row, mrow, cols);
}

/* av_softmax_rows with the caller's scratch p (cols doubles). A row of
 * more than AV_KEPT_SOFTMAX_COLS is computed in float32 by AVX2 where the
 * CPU has it, as PyTorch's CPU softmax does (softmax_avx2.h); a shorter one,
 * or any without AVX2, in double and rounded. kept (rows, cols), or NULL,
 * receives the double rows of a short matrix (zeros for a hidden row). */
static void softmax_rows(float *out, double *kept, const float *in, const unsigned char *mask,
			 int rows, int cols, double *p)
{
	bool short_rows = cols <= AV_KEPT_SOFTMAX_COLS;
	for (int i = 0; i < rows; i++) {
		const unsigned char *mrow = mask ? mask + (size_t)i * cols : NULL;
		float *orow = out + (size_t)i * cols;
		double *prow = kept ? kept + (size_t)i * cols : p;
		bool any_visible = av_mask_row_visible(mrow, cols);
		if (!short_rows && any_visible &&
		    av_softmax_row_avx2(orow, in + (size_t)i * cols, cols))
			continue;
		bool visible = any_visible && softmax_row(prow, in + (size_t)i * cols, NULL, cols);
		/* every key hidden: report zeros */
		for (int j = 0; j < cols; j++) {
			if (!visible)
				prow[j] = 0;
			orow[j] = (float)prow[j];
		}
	}
}

void av_softmax_rows(float *out, const float *in, const unsigned char *mask, int rows, int cols)
{
	double *p = av_malloc((size_t)(cols > 0 ? cols : 1) * sizeof(double));
	softmax_rows(out, NULL, in, mask, rows, cols, p);
	free(p);
}

/* --- the stages ---------------------------------------------------------- */

/* X (n, D) = token_embedding[ids] + position(0..n-1); parts kept if given.
 * One pass over each row (at D=3, two copies of 12 bytes and a copy of the
 * position row were a tenth of a training step's forward pass). */
__attribute__((always_inline))
static inline void embed_dims(float *x, float *token_part, float *position_part,
			      const struct av_params *p, enum av_positional positional,
			      const int *ids, int n, size_t D)
{
	for (int i = 0; i < n; i++) {
		const float *tok = p->token_embedding + (size_t)ids[i] * D;
		float *xi = x + i * D;
		/* xi is the scratch of a position computed on the fly; a
		 * learned row is read in place (the call was a fifth of
		 * china-panda's embedding) */
		const float *pos = positional == AV_POS_LEARNED
				   ? p->position_embedding + i * D
				   : av_position_row_at(p, positional, i, xi);
		float *tp = token_part ? token_part + i * D : NULL;
		float *pp = position_part ? position_part + i * D : NULL;
		for (size_t c = 0; c < D; c++) {
			float pc = pos[c];
			if (pp)
				pp[c] = pc;
			if (tp)
				tp[c] = tok[c];
			xi[c] = tok[c] + pc;
		}
	}
}

static void embed(float *x, float *token_part, float *position_part,
		  const struct av_params *p, enum av_positional positional,
		  const int *ids, int n)
{
	embed_dims(x, token_part, position_part, p, positional, ids, n, (size_t)p->d_model);
}

/* mask (n, m): causal hides keys after the query; key_hidden hides columns */
static void build_mask(struct av_trace *t)
{
	for (int i = 0; i < t->n; i++) {
		bool any = false;
		for (int j = 0; j < t->m; j++) {
			bool visible = !t->key_hidden[j] &&
				       !(t->cfg.mode == AV_MODE_CAUSAL && j > i);
			t->mask[(size_t)i * t->m + j] = visible;
			any |= visible;
		}
		t->row_hidden[i] = !any;
	}
}

void av_head_scores(float *scores, const float *q, const float *k,
		    int n, int m, int D, int h, int dh)
{
	/* Q_h and K_h are dh-wide column blocks of q and k, rows D apart */
	av_matmul_nt(scores, m, q + (size_t)h * dh, D, k + (size_t)h * dh, D, n, m, dh);
}

/* context_h (n, dh) = weights_h (n, m) . V_h (m, dh), V_h the head's
 * columns of v; then placed as the head's columns of concat (n, D) */
static void head_context(struct av_trace *t, int h)
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim;
	const float *weights = t->weights + (size_t)h * n * m;
	float *context = t->context + (size_t)h * n * dh;
	av_matmul_nn(context, dh, weights, m, t->v + (size_t)h * dh, D, n, dh, m);
	for (int i = 0; i < n; i++)
		memcpy(t->concat + (size_t)i * D + (size_t)h * dh,
		       context + (size_t)i * dh, (size_t)dh * sizeof(float));
}

/* Head h from its scores to its weights, and its context when asked. */
static void run_head(struct av_trace *t, int h, double *p, bool context)
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim;
	size_t cells = (size_t)n * m, off = (size_t)h * cells;
	float *scores = t->scores + off, *scaled = t->scaled + off;
	float *masked = t->masked + off, *weights = t->weights + off;

	av_head_scores(scores, t->q, t->k, n, m, D, h, dh);
	for (size_t c = 0; c < cells; c++) {
		scaled[c] = (float)(scores[c] / t->divisor);
		masked[c] = t->mask[c] ? scaled[c] : AV_MASKED_VALUE;
	}
	softmax_rows(weights, t->kept_softmax ? t->kept_softmax + off : NULL, masked, t->mask,
		     n, m, p);
	if (context)
		head_context(t, h);
}

static void free_stages(struct av_trace *t)
{
	float **bufs[] = { &t->token_part, &t->position_part, &t->embedding, &t->layer_input,
			   &t->source_embedding, &t->q, &t->k, &t->v, &t->scores,
			   &t->scaled, &t->masked, &t->weights, &t->context,
			   &t->concat, &t->output, &t->residual };
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++) {
		free(*bufs[i]);
		*bufs[i] = NULL;
	}
	free(t->kept_softmax);
	t->kept_softmax = NULL;
	free(t->mask);
	t->mask = NULL;
}

static float *floats(size_t count)
{
	return av_calloc(count, sizeof(float));
}

/* The sizes a trace's buffers were made for (all 0 before the first run). */
struct shape {
	size_t n, m, D, H;
	bool cross;
};

static struct shape shape_of(const struct av_trace *t)
{
	return (struct shape){ (size_t)t->n, (size_t)t->m, (size_t)t->d_model,
			       (size_t)t->heads, t->source_embedding != NULL };
}

/* *buf holds count floats: kept when it already did (a trace is run again
 * and again at one size: the trainer, the screen's keys), else made anew.
 * Every stage writes all of its buffer, so old values never show. */
static void fit(float **buf, size_t count, size_t had)
{
	if (*buf && count == had)
		return;
	free(*buf);
	*buf = floats(count);
}

/* The buffers from the mask on, whose sizes follow H, n and m. */
static void alloc_attend_stages(struct av_trace *t, struct shape had)
{
	size_t n = (size_t)t->n, m = (size_t)t->m, D = (size_t)t->d_model;
	size_t cells = (size_t)t->heads * n * m, had_cells = had.H * had.n * had.m;
	float **per_head[] = { &t->scores, &t->scaled, &t->masked, &t->weights };
	for (size_t i = 0; i < sizeof(per_head) / sizeof(per_head[0]); i++)
		fit(per_head[i], cells, had_cells);
	if (m > AV_KEPT_SOFTMAX_COLS) {
		free(t->kept_softmax);
		t->kept_softmax = NULL;
	} else if (!t->kept_softmax || cells != had_cells) {
		free(t->kept_softmax);
		t->kept_softmax = av_calloc(cells, sizeof(double));
	}
	if (!t->mask || n * m != had.n * had.m) {
		free(t->mask);
		t->mask = av_calloc(n * m, 1);
	}
	float **per_token[] = { &t->context, &t->concat, &t->output, &t->residual };
	for (size_t i = 0; i < sizeof(per_token) / sizeof(per_token[0]); i++)
		fit(per_token[i], n * D, had.n * had.D);
}

static void alloc_stages(struct av_trace *t, bool cross, struct shape had)
{
	size_t n = (size_t)t->n, m = (size_t)t->m, D = (size_t)t->d_model;
	size_t had_nD = had.n * had.D, had_mD = had.m * had.D;
	fit(&t->token_part, n * D, had_nD);
	fit(&t->position_part, n * D, had_nD);
	fit(&t->embedding, n * D, had_nD);
	if (cross) {
		fit(&t->source_embedding, m * D, had.cross ? had_mD : 0);
	} else {
		free(t->source_embedding);
		t->source_embedding = NULL;
	}
	fit(&t->q, n * D, had_nD);
	fit(&t->k, m * D, had_mD);
	fit(&t->v, m * D, had_mD);
	alloc_attend_stages(t, had);
}

/* out (rows, D) = x . W^T + b for weight i (W_q, W_k, W_v, W_o), with
 * W^T's copy kept in the trace when it keeps them. */
static inline void project(struct av_trace *t, int i, float *out, const float *x,
			   const float *w, const float *b, int rows, uint64_t stamp)
{
	int D = t->d_model;
	if (t->keeps_packed) {
		av_matmul_kept(out, x, w, b, rows, D, D, &t->packed[i], stamp);
		return;
	}
	if (t->packed[i].data)   /* kept before the owner said not to */
		av_packed_free(&t->packed[i]);
	av_matmul(out, x, w, b, rows, D, D, AV_W_OUT_IN);
}

/* output (n, D) = concat . W_o^T + b_o; residual = output + X. */
static void project_output(struct av_trace *t, const struct av_params *p)
{
	int n = t->n, D = t->d_model;
	project(t, 3, t->output, t->concat, p->w_o, p->b_o, n, p->stamp);
	for (size_t c = 0; c < (size_t)n * D; c++)
		t->residual[c] = t->output[c] + t->embedding[c];
	t->output_pending = false;
}

/* V (m, D) = Xs . W_v^T + b_v, Xs the source's embedding in cross mode. */
static void project_values(struct av_trace *t, const struct av_params *p)
{
	const float *xs = t->source_embedding ? t->source_embedding : t->embedding;
	project(t, 2, t->v, xs, p->w_v, p->b_v, t->m, p->stamp);
	t->values_pending = false;
}

/* How far a pass goes: to the end, to concat (the output projection left
 * for av_trace_finish), or to the weights (V and everything after it left). */
enum reach { REACH_RESIDUAL, REACH_CONCAT, REACH_WEIGHTS };

/* From the mask on: what depends on the mode, the padding mask, the heads,
 * the scale and the temperature, but not on the projections. A value path
 * left pending by an earlier pass is computed when this one goes past the
 * weights; one that stops at the weights leaves V as it is (computed or
 * pending: it does not depend on anything here) and the weighted sums
 * pending. */
static void attend(struct av_trace *t, const struct av_params *p, enum reach reach)
{
	bool contexts = reach != REACH_WEIGHTS;
	if (contexts && t->values_pending)
		project_values(t, p);
	t->context_pending = !contexts && !t->values_pending;
	build_mask(t);
	double row[AV_MAX_TOKENS];   /* a softmax row: m <= AV_MAX_TOKENS */
	for (int h = 0; h < t->heads; h++)
		run_head(t, h, row, contexts);
	if (reach == REACH_RESIDUAL)
		project_output(t, p);
	else
		t->output_pending = true;
}

static void set_attention_config(struct av_trace *t, const struct av_config *cfg)
{
	t->cfg = *cfg;
	t->heads = cfg->heads;
	t->head_dim = av_config_head_dim(cfg);
	t->divisor = av_config_divisor(cfg);
}

static void forward(struct av_trace *t, const struct av_params *p, const struct av_config *cfg,
		    enum reach reach)
{
	bool cross = cfg->mode == AV_MODE_CROSS;
	struct shape had = shape_of(t);
	set_attention_config(t, cfg);
	t->d_model = cfg->d_model;
	t->n = t->tokens.n;
	t->m = cross ? t->source_tokens.n : t->n;
	struct shape now = shape_of(t);
	/* the trainer runs each sentence again and again at one size: its
	 * buffers fit already (sixteen checks were 6 % of a D=3 forward) */
	if (!t->q || now.n != had.n || now.m != had.m || now.D != had.D || now.H != had.H ||
	    cross != had.cross)
		alloc_stages(t, cross, had);

	int n = t->n, m = t->m;
	embed(t->embedding, t->token_part, t->position_part, p, cfg->positional, t->ids, n);
	const float *xs = t->embedding;
	if (cross) {
		embed(t->source_embedding, NULL, NULL, p, cfg->positional, t->source_ids, m);
		xs = t->source_embedding;
	}
	project(t, 0, t->q, t->embedding, p->w_q, p->b_q, n, p->stamp);
	project(t, 1, t->k, xs, p->w_k, p->b_k, m, p->stamp);
	t->values_pending = true;   /* a full pass projects V in attend() */
	attend(t, p, reach);
}

void av_trace_forward(struct av_trace *t, const struct av_params *p, const struct av_config *cfg)
{
	forward(t, p, cfg, REACH_RESIDUAL);
}

/* --- the trainer's small layers, fused ------------------------------------ */

struct av_fused_passes av_fused = { .on = true };

/* Whether forward_small computes forward(t, p, cfg, REACH_WEIGHTS): a small
 * layer (AV_FUSED_MOST: its products all go to the plain kernel) outside
 * cross mode, in a trace whose buffers fit it already and keep no copies
 * of W^T (the trainer's, run again and again at one size). */
static bool small_fits(const struct av_trace *t, const struct av_params *p,
		       const struct av_config *cfg)
{
	int n = t->tokens.n, D = cfg->d_model, H = cfg->heads;
	size_t most = AV_FUSED_MOST;
	return av_fused.on && cfg->mode != AV_MODE_CROSS && t->q &&
	       (size_t)n * D * D <= most && (size_t)n * n * (D / H) <= most &&
	       !t->source_embedding && !t->layer_input && !t->keeps_packed &&
	       !t->packed[0].data && !t->packed[1].data && t->n == n && t->m == n &&
	       t->d_model == D && t->heads == H && p->d_model == D;
}

/* q = x . w_q^T + b_q and k = x . w_k^T + b_k (rows, D) as av_matmul's
 * plain kernel computes each (av_plain_row_nt), row by row. */
__attribute__((always_inline))
static inline void project_qk_plain(float *q, float *k, const float *x,
				    const struct av_params *p, int rows, int D)
{
	for (int i = 0; i < rows; i++) {
		const float *xi = x + (size_t)i * D;
		av_plain_row_nt(q + (size_t)i * D, xi, p->w_q, p->b_q, D, D);
		av_plain_row_nt(k + (size_t)i * D, xi, p->w_k, p->b_k, D, D);
	}
}

/* run_head's scores and scaled and masked stages, the product as
 * av_head_scores's plain kernel computes it */
__attribute__((always_inline))
static inline void scores_plain(struct av_trace *t, int h, int dh)
{
	int n = t->n, m = t->m, D = t->d_model;
	size_t off = (size_t)h * n * m;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++) {
			size_t c = (size_t)i * m + j;
			float score = (float)av_dot_in_chains(t->q + (size_t)i * D + (size_t)h * dh,
							      t->k + (size_t)j * D + (size_t)h * dh,
							      1, dh);
			float scaled = (float)(score / t->divisor);
			t->scores[off + c] = score;
			t->scaled[off + c] = scaled;
			t->masked[off + c] = t->mask[c] ? scaled : AV_MASKED_VALUE;
		}
}

/* forward(..., REACH_WEIGHTS) for a layer small_fits: the same stages with
 * the same bits, in one function with the products inlined (at china-
 * panda's D=3 the calls, checks and dispatch of the staged pass were a
 * seventh of its instructions; issue 11). D = dh = 3 gets a copy of the
 * loops with those constants. tests/test_fused.c compares the two. */
__attribute__((always_inline))
static inline void forward_small_dims(struct av_trace *t, const struct av_params *p,
				      const struct av_config *cfg, int D, int dh)
{
	int n = t->n;
	embed_dims(t->embedding, t->token_part, t->position_part, p, cfg->positional, t->ids, n,
		   (size_t)D);
	project_qk_plain(t->q, t->k, t->embedding, p, n, D);
	t->values_pending = true;
	t->context_pending = false;
	build_mask(t);
	double row[AV_MAX_TOKENS];
	for (int h = 0; h < t->heads; h++) {
		size_t off = (size_t)h * n * n;
		scores_plain(t, h, dh);
		softmax_rows(t->weights + off, t->kept_softmax ? t->kept_softmax + off : NULL,
			     t->masked + off, t->mask, n, n, row);
	}
	t->output_pending = true;
}

static void forward_small(struct av_trace *t, const struct av_params *p,
			  const struct av_config *cfg)
{
	set_attention_config(t, cfg);
	if (t->d_model == 3 && t->head_dim == 3)
		forward_small_dims(t, p, cfg, 3, 3);
	else
		forward_small_dims(t, p, cfg, t->d_model, t->head_dim);
}

void av_trace_forward_weights(struct av_trace *t, const struct av_params *p,
			      const struct av_config *cfg)
{
	if (small_fits(t, p, cfg)) {
		forward_small(t, p, cfg);
		av_fused.forwards++;
	} else {
		forward(t, p, cfg, REACH_WEIGHTS);
	}
}

static bool reattend(struct av_trace *t, const struct av_params *p,
		     const struct av_config *cfg, enum reach reach, char **cause)
{
	if (!av_config_check(cfg, cause))
		return false;
	if (!t->q || cfg->d_model != t->d_model || cfg->positional != t->cfg.positional ||
	    (cfg->mode == AV_MODE_CROSS) != (t->cfg.mode == AV_MODE_CROSS))
		return av_fail(cause, _("internal error: reattend needs the same d_model, "
			       "positions and keys as the last full run"));
	struct shape had = shape_of(t);
	set_attention_config(t, cfg);
	alloc_attend_stages(t, had);
	attend(t, p, reach);
	return true;
}

bool av_trace_reattend(struct av_trace *t, const struct av_params *p,
		       const struct av_config *cfg, char **cause)
{
	return reattend(t, p, cfg, REACH_RESIDUAL, cause);
}

bool av_trace_reattend_weights(struct av_trace *t, const struct av_params *p,
			       const struct av_config *cfg, char **cause)
{
	return reattend(t, p, cfg, REACH_CONCAT, cause);
}

bool av_trace_reattend_attention(struct av_trace *t, const struct av_params *p,
				 const struct av_config *cfg, char **cause)
{
	return reattend(t, p, cfg, REACH_WEIGHTS, cause);
}

void av_trace_finish_context(struct av_trace *t, const struct av_params *p)
{
	if (!t->values_pending && !t->context_pending)
		return;
	if (t->values_pending)
		project_values(t, p);
	for (int h = 0; h < t->heads; h++)
		head_context(t, h);
	t->context_pending = false;
}

void av_trace_finish(struct av_trace *t, const struct av_params *p)
{
	av_trace_finish_context(t, p);
	if (t->output_pending)
		project_output(t, p);
}

/* --- preparing the input ------------------------------------------------- */

/* ids and oov flags of tokens. known is the vocabulary size before this
 * run looked up anything: a word whose row this run added (an unknown
 * word's first occurrence adds it, so its later occurrences find it) is
 * still unknown at every occurrence, in the sentence and in the source. */
static bool lookup_tokens(struct av_params *p, const struct av_config *cfg,
			  const struct av_tokens *tokens, int known, int *ids, bool *oov,
			  const char *what, char **cause)
{
	if (cfg->positional == AV_POS_LEARNED && tokens->n > p->max_positions)
		return av_fail(cause, _("the %s has %d tokens but the learned position table "
			       "has only %d rows (max_positions)"), what, tokens->n,
			       p->max_positions);
	for (int i = 0; i < tokens->n; i++) {
		ids[i] = av_params_token_id(p, cfg->seed, tokens->text[i], &oov[i]);
		oov[i] = oov[i] || ids[i] >= known;
	}
	return true;
}

static bool check_params(const struct av_params *p, const struct av_config *cfg, char **cause)
{
	if (p->d_model != cfg->d_model)
		return av_fail(cause, _("the weights have d_model %d but the config asks for %d"),
			       p->d_model, cfg->d_model);
	if (cfg->positional == AV_POS_LEARNED && !p->position_embedding)
		return av_fail(cause, _("learned positions need a position_embedding table"));
	return true;
}

static bool run(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
		const char *sentence, const char *source,
		const int *hidden_keys, int n_hidden, enum reach reach, char **cause)
{
	bool cross = cfg->mode == AV_MODE_CROSS;
	if (!av_config_check(cfg, cause) || !check_params(p, cfg, cause))
		return false;
	/* no source at all; an empty one is the tokenizer's "the source is
	 * empty", which does not send a screen's user to --source */
	if (cross && !source)
		return av_fail(cause, _("cross mode needs a source sentence for the keys and "
			       "values (--source, or the sample's \"source\")"));

	struct av_tokens tokens = { 0 }, source_tokens = { 0 };
	if (!av_tokenize(sentence, &tokens, cause))
		return false;
	if (cross && !av_tokenize_source(source, &source_tokens, cause)) {
		av_tokens_free(&tokens);
		return false;
	}
	int m = cross ? source_tokens.n : tokens.n;
	for (int i = 0; i < n_hidden; i++) {
		if (hidden_keys[i] < 0 || hidden_keys[i] >= m) {
			av_tokens_free(&tokens);
			av_tokens_free(&source_tokens);
			return av_fail(cause, _("cannot mask key position %d: the %s has %d "
				       "tokens (positions 0 to %d)"), hidden_keys[i],
				       cross ? _("source sentence") : _("sentence"), m, m - 1);
		}
	}
	int ids[AV_MAX_TOKENS] = { 0 }, source_ids[AV_MAX_TOKENS] = { 0 };
	bool oov[AV_MAX_TOKENS] = { 0 }, source_oov[AV_MAX_TOKENS] = { 0 };
	int known = p->vocab_size;
	if (!lookup_tokens(p, cfg, &tokens, known, ids, oov, _("sentence"), cause) ||
	    (cross && !lookup_tokens(p, cfg, &source_tokens, known, source_ids, source_oov,
				     _("source sentence"), cause))) {
		av_tokens_free(&tokens);
		av_tokens_free(&source_tokens);
		return false;
	}

	av_tokens_free(&t->tokens);
	av_tokens_free(&t->source_tokens);
	t->tokens = tokens;
	t->source_tokens = source_tokens;
	memcpy(t->ids, ids, sizeof(ids));
	memcpy(t->oov, oov, sizeof(oov));
	memcpy(t->source_ids, source_ids, sizeof(source_ids));
	memcpy(t->source_oov, source_oov, sizeof(source_oov));
	memset(t->key_hidden, 0, sizeof(t->key_hidden));
	for (int i = 0; i < n_hidden; i++)
		t->key_hidden[hidden_keys[i]] = true;
	forward(t, p, cfg, reach);
	return true;
}

bool av_trace_run(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
		  const char *sentence, const char *source,
		  const int *hidden_keys, int n_hidden, char **cause)
{
	return run(t, p, cfg, sentence, source, hidden_keys, n_hidden, REACH_RESIDUAL, cause);
}

bool av_trace_run_attention(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
			    const char *sentence, const char *source,
			    const int *hidden_keys, int n_hidden, char **cause)
{
	return run(t, p, cfg, sentence, source, hidden_keys, n_hidden, REACH_WEIGHTS, cause);
}

void av_trace_free(struct av_trace *t)
{
	free_stages(t);
	for (int i = 0; i < 4; i++)
		av_packed_free(&t->packed[i]);
	av_tokens_free(&t->tokens);
	av_tokens_free(&t->source_tokens);
	memset(t, 0, sizeof(*t));
}
