/* backward.c: the backward pass, stage by stage, in the reverse order of
 * av_trace_forward (see backward.h). Every kernel quotes the forward line it
 * reverses; gradients are accumulated with += in double. */
#include "config.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backward.h"
#include "util.h"

const char *const av_param_names[] = {
	"token_embedding", "position_embedding", "w_q", "b_q", "w_k", "b_k",
	"w_v", "b_v", "w_o", "b_o", NULL
};

float *av_param_tensor(const struct av_params *p, int id, size_t *count)
{
	size_t D = (size_t)p->d_model, c = D;
	float *t = NULL;
	switch (id) {
	case AV_P_TOKEN_EMBEDDING:
		t = p->token_embedding;
		c = (size_t)p->vocab_size * D;
		break;
	case AV_P_POSITION_EMBEDDING:
		t = p->position_embedding;
		c = (size_t)p->max_positions * D;
		break;
	case AV_P_W_Q: t = p->w_q; c = D * D; break;
	case AV_P_B_Q: t = p->b_q; break;
	case AV_P_W_K: t = p->w_k; c = D * D; break;
	case AV_P_B_K: t = p->b_k; break;
	case AV_P_W_V: t = p->w_v; c = D * D; break;
	case AV_P_B_V: t = p->b_v; break;
	case AV_P_W_O: t = p->w_o; c = D * D; break;
	case AV_P_B_O: t = p->b_o; break;
	}
	if (!t || c == 0) {
		t = NULL;
		c = 0;
	}
	if (count)
		*count = c;
	return t;
}

void av_grads_init(struct av_grads *g, const struct av_params *p, unsigned wanted)
{
	memset(g, 0, sizeof(*g));
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		if (!(wanted & (1u << id)) || !av_param_tensor(p, id, &count))
			continue;
		g->t[id] = av_calloc(count, sizeof(double));
		g->count[id] = count;
	}
}

void av_grads_zero(struct av_grads *g)
{
	for (int id = 0; id < AV_N_PARAMS; id++)
		if (g->t[id])
			memset(g->t[id], 0, g->count[id] * sizeof(double));
}

void av_grads_free(struct av_grads *g)
{
	for (int id = 0; id < AV_N_PARAMS; id++)
		free(g->t[id]);
	free(g->work);
	memset(g, 0, sizeof(*g));
}

/* --- kernels ------------------------------------------------------------- */

/* linear_backward's loops, inlined into copies for given in_dims */
__attribute__((always_inline))
static inline void linear_backward_dims(double *dx, double *dw, double *db, const double *dout,
			    const float *x, const float *w, int n, int in_dim, int out_dim,
			    bool assign)
{
	/* forward: out (n, out_dim) = x (n, in_dim) . w^T (w: out_dim x in_dim) + b
	 *   out[i*out_dim + o] = sum_c x[i*in_dim + c] * w[o*in_dim + c] + b[o] */
	for (int i = 0; dx && i < n; i++) {
		/* dx[i] (in_dim) += sum_o dout[i][o] w[o] */
		const double *di = dout + (size_t)i * out_dim;
		double *dxi = dx + (size_t)i * in_dim;
		for (int o = 0; o < out_dim; o++) {
			double d = di[o];
			if (d == 0)
				continue;
			const float *wo = w + (size_t)o * in_dim;
			for (int c = 0; c < in_dim; c++)
				dxi[c] += d * wo[c];
		}
	}
	if (!dw && !db)
		return;
	/* dw[o] (in_dim) += sum_i dout[i][o] x[i], db[o] += sum_i dout[i][o]:
	 * the tokens inner, so a row of dw is finished while it sits in the
	 * cache and each element goes to memory once (it is still added in
	 * token order, as before). Assigned, the first token's terms are
	 * stored as 0 + term, the bits of zeroing and adding, without the
	 * zeroing: at china-panda's D=3 a reload of a row just cleared by
	 * memset waited on the store (a third of the backward). */
	for (int o = 0; o < out_dim; o++) {
		double *dwo = dw ? dw + (size_t)o * in_dim : NULL;
		bool unwritten = assign;   /* dwo holds nothing of this pass yet */
		if (assign && db)
			db[o] = 0;
		for (int i = 0; i < n; i++) {
			double d = dout[(size_t)i * out_dim + o];
			if (d == 0)
				continue;
			if (db)
				db[o] += d;
			if (!dwo)
				continue;
			const float *xi = x + (size_t)i * in_dim;
			if (unwritten)
				for (int c = 0; c < in_dim; c++)
					dwo[c] = 0.0 + d * xi[c];
			else
				for (int c = 0; c < in_dim; c++)
					dwo[c] += d * xi[c];
			unwritten = false;
		}
		if (dwo && unwritten)
			memset(dwo, 0, (size_t)in_dim * sizeof(double));
	}
}

/* dw and db of linear_backward_dims at in_dim = 3 (china-panda's D), with
 * a row of dw summed in three registers: it starts as 0 (assigned) or as
 * what dw holds, and takes the same terms in the same order as the memory
 * version, so the bits are the same. A third of a D=3 backward was this
 * loop's control and its stores and reloads. */
static void weight_backward_3(double *dw, double *db, const double *dout, const float *x,
			      int n, int out_dim, bool assign)
{
	for (int o = 0; o < out_dim; o++) {
		double *dwo = dw ? dw + (size_t)o * 3 : NULL;
		double w0 = 0, w1 = 0, w2 = 0, b = 0;
		if (dwo && !assign)
			w0 = dwo[0], w1 = dwo[1], w2 = dwo[2];
		if (db && !assign)
			b = db[o];
		for (int i = 0; i < n; i++) {
			double d = dout[(size_t)i * out_dim + o];
			if (d == 0)
				continue;
			const float *xi = x + (size_t)i * 3;
			b += d;
			w0 += d * xi[0];
			w1 += d * xi[1];
			w2 += d * xi[2];
		}
		if (dwo)
			dwo[0] = w0, dwo[1] = w1, dwo[2] = w2;
		if (db)
			db[o] = b;
	}
}

/* av_linear_backward, with dw and db assigned (=) instead of added to when
 * assign. china-panda's D = 3 gets a copy with in_dim the constant 3, which
 * the compiler unrolls (as plain_gemm in matmul.c), and weight_backward_3.
 * The sums are the same, in the same order. */
static void linear_backward(double *dx, double *dw, double *db, const double *dout,
			    const float *x, const float *w, int n, int in_dim, int out_dim,
			    bool assign)
{
	if (in_dim == 3) {
		linear_backward_dims(dx, NULL, NULL, dout, x, w, n, 3, out_dim, assign);
		if (dw || db)
			weight_backward_3(dw, db, dout, x, n, out_dim, assign);
	} else {
		linear_backward_dims(dx, dw, db, dout, x, w, n, in_dim, out_dim, assign);
	}
}

void av_linear_backward(double *dx, double *dw, double *db, const double *dout,
			const float *x, const float *w, int n, int in_dim, int out_dim)
{
	linear_backward(dx, dw, db, dout, x, w, n, in_dim, out_dim, false);
}

/* av_softmax_rows_backward with the caller's scratch p (cols doubles), or
 * with kept (rows, cols): the forward's own double rows (a trace's
 * kept_softmax), which spare recomputing them. */
static void softmax_rows_backward(double *din, const double *dout, const float *in,
				  const double *kept, const unsigned char *mask, int rows,
				  int cols, double *p)
{
	/* forward: orow[j] = (float)p[j], p = av_softmax_row(row), or a row of
	 * zeros when every key is hidden.
	 * din_j += p_j (dout_j - sum_l p_l dout_l). */
	for (int i = 0; i < rows; i++) {
		const unsigned char *mrow = mask ? mask + (size_t)i * cols : NULL;
		const double *drow = dout + (size_t)i * cols;
		double *dirow = din + (size_t)i * cols;
		const double *prow = kept ? kept + (size_t)i * cols : p;
		if (kept ? !av_mask_row_visible(mrow, cols)
			 : !av_softmax_row(p, in + (size_t)i * cols, mrow, cols))
			continue;   /* the zeros depend on nothing */
		double dot = 0;
		for (int j = 0; j < cols; j++)
			dot += prow[j] * drow[j];
		for (int j = 0; j < cols; j++) {
			if (mrow && !mrow[j])
				continue;   /* p_j is exactly 0 here */
			dirow[j] += prow[j] * (drow[j] - dot);
		}
	}
}

void av_softmax_rows_backward(double *din, const double *dout, const float *in,
			      const unsigned char *mask, int rows, int cols)
{
	double *p = av_malloc((size_t)(cols > 0 ? cols : 1) * sizeof(double));
	softmax_rows_backward(din, dout, in, NULL, mask, rows, cols, p);
	free(p);
}

/* --- the stages ---------------------------------------------------------- */

/* The scratch of one backward pass: count doubles from g's workspace,
 * grown when a pass needs more and kept for the next (the trainer's steps
 * then allocate nothing). */
static double *workspace(struct av_grads *g, size_t count)
{
	if (g->work_count < count) {
		free(g->work);
		g->work = av_malloc(count * sizeof(double));
		g->work_count = count;
	}
	return g->work;
}

/* The next count doubles of the workspace, as the last pass left them:
 * for what is written whole before it is read. */
static double *carve(double **cursor, size_t count)
{
	double *p = *cursor;
	*cursor += count;
	return p;
}

/* The next count doubles of the workspace, zeroed: for sums. */
static double *take(double **cursor, size_t count)
{
	return memset(carve(cursor, count), 0, count * sizeof(double));
}

/* Reverses embed(): x[i * D + c] = tok[c] + pos[c], with tok the row ids[i]
 * of the token table and pos the learned row i (sinusoidal and none have no
 * parameters). */
static void embed_backward(struct av_grads *g, const struct av_trace *t, const int *ids,
			   int n, const double *dx)
{
	size_t D = (size_t)t->d_model;
	double *dtok = g->t[AV_P_TOKEN_EMBEDDING];
	double *dpos = t->cfg.positional == AV_POS_LEARNED ? g->t[AV_P_POSITION_EMBEDDING] : NULL;
	for (int i = 0; i < n; i++) {
		const double *dxi = dx + (size_t)i * D;
		if (dtok) {
			/* the gradients were allocated before the word had a row */
			assert((size_t)(ids[i] + 1) * D <= g->count[AV_P_TOKEN_EMBEDDING]);
			double *row = dtok + (size_t)ids[i] * D;
			for (size_t c = 0; c < D; c++)
				row[c] += dxi[c];
		}
		if (dpos) {
			assert((size_t)(i + 1) * D <= g->count[AV_P_POSITION_EMBEDDING]);
			double *row = dpos + (size_t)i * D;
			for (size_t c = 0; c < D; c++)
				row[c] += dxi[c];
		}
	}
}

/* Reverses head_context(): context_h (n, dh) = weights_h (n, m) . V_h (m, dh),
 *   acc[c] += w * vj[c], with w = weights[i * m + j], vj = row j of V_h
 * reading dcontext from the head's columns of dconcat, which reverses
 *   memcpy(t->concat + i * D + h * dh, context + i * dh, dh floats). */
static void head_context_backward(double *dweights, double *dv, const double *dconcat,
				  const float *weights, const float *v,
				  int n, int m, int D, int h, int dh)
{
	for (int i = 0; i < n; i++) {
		const double *dci = dconcat + (size_t)i * D + (size_t)h * dh;
		for (int j = 0; j < m; j++) {
			const float *vj = v + (size_t)j * D + (size_t)h * dh;
			double *dvj = dv + (size_t)j * D + (size_t)h * dh;
			double w = weights[(size_t)i * m + j], dw = 0;
			for (int c = 0; c < dh; c++) {
				dw += dci[c] * vj[c];
				dvj[c] += w * dci[c];
			}
			dweights[(size_t)i * m + j] += dw;
		}
	}
}

/* Reverses av_head_scores(): scores_h (n, m) = Q_h (n, dh) . K_h^T,
 *   sum += (double)qi[c] * kj[c] */
static void head_scores_backward(double *dq, double *dk, const double *dscores,
				 const float *q, const float *k,
				 int n, int m, int D, int h, int dh)
{
	for (int i = 0; i < n; i++) {
		const float *qi = q + (size_t)i * D + (size_t)h * dh;
		double *dqi = dq + (size_t)i * D + (size_t)h * dh;
		for (int j = 0; j < m; j++) {
			double d = dscores[(size_t)i * m + j];
			if (d == 0)
				continue;
			const float *kj = k + (size_t)j * D + (size_t)h * dh;
			double *dkj = dk + (size_t)j * D + (size_t)h * dh;
			for (int c = 0; c < dh; c++) {
				dqi[c] += d * kj[c];
				dkj[c] += d * qi[c];
			}
		}
	}
}

/* --- the trainer's small layers, fused ------------------------------------ */

/* A small layer (AV_FUSED_MOST) has n D <= 512 and D <= 22: its dQ and dK
 * fit on the stack, a row of dW in registers. */
#define SMALL_LAYER AV_FUSED_MOST
#define SMALL_D 22

/* Whether backward_small computes av_trace_backward(t, p, NULL, d_weights,
 * g): a loss on the weights alone outside cross mode, with W_q's and W_k's
 * gradients assigned and no gradient of the embeddings or the output
 * projection wanted (the trainer's "qkv" set; W_v's stays 0 without a value
 * path, as in the staged pass). */
static bool small_fits(const struct av_trace *t, const double *d_residual,
		       const double *d_weights, const struct av_grads *g)
{
	size_t n = (size_t)t->n, D = (size_t)t->d_model, dh = (size_t)t->head_dim;
	unsigned qk = 1u << AV_P_W_Q | 1u << AV_P_W_K;
	return av_fused.on && !d_residual && d_weights && t->cfg.mode != AV_MODE_CROSS &&
	       !t->layer_input && t->m == t->n && (g->assign & qk) == qk &&
	       g->t[AV_P_W_Q] && g->t[AV_P_W_K] && !g->t[AV_P_TOKEN_EMBEDDING] &&
	       !g->t[AV_P_POSITION_EMBEDDING] && !g->t[AV_P_W_O] && !g->t[AV_P_B_O] &&
	       n * D * D <= SMALL_LAYER && n * n * dh <= SMALL_LAYER;
}

/* dw = dout^T . x and db = sum_i dout[i] for out = x . w^T + b, assigned,
 * as linear_backward sums them: each element from 0, in token order, a
 * token whose dout is 0 skipped; here tokens outer, the sums in acc (in
 * registers at D=3, where weight_backward_3's calls and loops were a
 * third of the fused backward). */
__attribute__((always_inline))
static inline void weight_grad_small(double *dw, double *db, const double *dout, const float *x,
				     int n, int D)
{
	double acc[SMALL_D * SMALL_D], b[SMALL_D];
	_Pragma("GCC unroll 4")
	for (int o = 0; o < D; o++) {
		b[o] = 0;
		_Pragma("GCC unroll 4")
		for (int c = 0; c < D; c++)
			acc[o * D + c] = 0;
	}
	for (int i = 0; i < n; i++) {
		const double *di = dout + (size_t)i * D;
		const float *xi = x + (size_t)i * D;
		_Pragma("GCC unroll 4")
		for (int o = 0; o < D; o++) {
			double d = di[o];
			if (d == 0)
				continue;
			b[o] += d;
			_Pragma("GCC unroll 4")
			for (int c = 0; c < D; c++)
				acc[o * D + c] += d * xi[c];
		}
	}
	_Pragma("GCC unroll 4")
	for (int o = 0; o < D; o++) {
		_Pragma("GCC unroll 4")
		for (int c = 0; c < D; c++)
			dw[(size_t)o * D + c] = acc[o * D + c];
		if (db)
			db[o] = b[o];
	}
}

/* av_trace_backward for a layer small_fits, the same sums in the same
 * order in one function: per head and query row, the softmax's backward
 * (its row in double, kept or recomputed, as softmax_rows_backward), the mask and
 * the scale, then that row's terms of dQ and dK (head_scores_backward's
 * order: rows, then keys); then dW_q and dW_k. At china-panda's D=3 the
 * staged pass's calls, scratch and zeroing were a sixth of its
 * instructions (issue 11). tests/test_fused.c compares the two. */
__attribute__((always_inline))
static inline void backward_small_dims(const struct av_trace *t, const double *d_weights,
				       struct av_grads *g, int D, int dh)
{
	int n = t->n, m = t->m;
	double dq[SMALL_LAYER], dk[SMALL_LAYER], scratch[AV_MAX_TOKENS];
	memset(dq, 0, (size_t)n * D * sizeof(double));
	memset(dk, 0, (size_t)m * D * sizeof(double));
	for (int h = 0; h < t->heads; h++) {
		size_t off = (size_t)h * n * m;
		for (int i = 0; i < n; i++) {
			const unsigned char *mrow = t->mask + (size_t)i * m;
			const double *drow = d_weights + off + (size_t)i * m;
			const double *prow = t->kept_softmax ? t->kept_softmax + off + (size_t)i * m
							     : scratch;
			if (t->row_hidden[i] ||
			    (!t->kept_softmax &&
			     !av_softmax_row(scratch, t->masked + off + (size_t)i * m, mrow, m)))
				continue;   /* a row of zeros depends on nothing */
			double dot = 0;
			for (int j = 0; j < m; j++)
				dot += prow[j] * drow[j];
			const float *qi = t->q + (size_t)i * D + (size_t)h * dh;
			double *dqi = dq + (size_t)i * D + (size_t)h * dh;
			for (int j = 0; j < m; j++) {
				if (!mrow[j])
					continue;   /* no gradient reaches a hidden score */
				double d = (0.0 + prow[j] * (drow[j] - dot)) / t->divisor;
				if (d == 0)
					continue;
				const float *kj = t->k + (size_t)j * D + (size_t)h * dh;
				double *dkj = dk + (size_t)j * D + (size_t)h * dh;
				_Pragma("GCC unroll 4")
				for (int c = 0; c < dh; c++) {
					dqi[c] += d * kj[c];
					dkj[c] += d * qi[c];
				}
			}
		}
	}
	weight_grad_small(g->t[AV_P_W_Q], g->t[AV_P_B_Q], dq, t->embedding, n, D);
	weight_grad_small(g->t[AV_P_W_K], g->t[AV_P_B_K], dk, t->embedding, m, D);
}

static void backward_small(const struct av_trace *t, const double *d_weights,
			   struct av_grads *g)
{
	if (t->d_model == 3 && t->head_dim == 3)
		backward_small_dims(t, d_weights, g, 3, 3);
	else
		backward_small_dims(t, d_weights, g, t->d_model, t->head_dim);
}

void av_trace_backward(const struct av_trace *t, const struct av_params *p,
		       const double *d_residual, const double *d_weights, struct av_grads *g)
{
	if (small_fits(t, d_residual, d_weights, g)) {
		backward_small(t, d_weights, g);
		av_fused.backwards++;
		return;
	}
	int n = t->n, m = t->m, D = t->d_model, H = t->heads, dh = t->head_dim;
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	size_t cells = (size_t)n * m;
	bool want_x = g->t[AV_P_TOKEN_EMBEDDING] || g->t[AV_P_POSITION_EMBEDDING];
	size_t nD = (size_t)n * D, mD = (size_t)m * D;
	assert(!d_residual || (!t->values_pending && !t->context_pending));   /* v, concat */
	double *cursor = workspace(g, 3 * nD + 3 * mD + 2 * cells + (size_t)m);
	double *dx = want_x ? take(&cursor, nD) : NULL;             /* dL/dX  (n, D) */
	double *dxs = cross && want_x ? take(&cursor, mD) : dx;      /* dL/dXs (m, D) */
	double *dq = take(&cursor, nD), *dk = take(&cursor, mD);
	double *dv = d_residual ? take(&cursor, mD) : NULL;
	double *dconcat = NULL;
	/* set for each head below */
	double *dweights = carve(&cursor, cells), *dmasked = carve(&cursor, cells);
	double *prow = carve(&cursor, (size_t)m);                    /* a softmax row */

	/* tensor id's gradient is assigned (g->assign) */
#define ASSIGNS(id) ((g->assign >> (id)) & 1u)
	if (d_residual) {
		/* t->residual[c] = t->output[c] + t->embedding[c]; */
		if (dx)
			for (size_t c = 0; c < (size_t)n * D; c++)
				dx[c] += d_residual[c];
		/* av_linear(t->output, t->concat, p->w_o, p->b_o, n, D, D); */
		dconcat = take(&cursor, nD);
		linear_backward(dconcat, g->t[AV_P_W_O], g->t[AV_P_B_O], d_residual,
				t->concat, p->w_o, n, D, D, ASSIGNS(AV_P_W_O));
	}

	for (int h = 0; h < H; h++) {
		size_t off = (size_t)h * cells;
		const float *weights = t->weights + off, *masked = t->masked + off;
		/* dL/dweights: the loss's own (d_weights) plus the value path's */
		const double *dweights_h = d_weights ? d_weights + off : NULL;
		if (dconcat || !d_weights) {
			if (d_weights)
				memcpy(dweights, d_weights + off, cells * sizeof(double));
			else
				memset(dweights, 0, cells * sizeof(double));
			if (dconcat)
				head_context_backward(dweights, dv, dconcat, weights, t->v,
						      n, m, D, h, dh);
			dweights_h = dweights;
		}
		/* av_softmax_rows(weights, masked, t->mask, n, m); */
		memset(dmasked, 0, cells * sizeof(double));
		softmax_rows_backward(dmasked, dweights_h, masked,
				      t->kept_softmax ? t->kept_softmax + off : NULL, t->mask, n,
				      m, prow);
		for (size_t c = 0; c < cells; c++) {
			/* masked[c] = t->mask[c] ? scaled[c] : AV_MASKED_VALUE;
			 *   a hidden cell is a constant: no gradient reaches its score */
			if (!t->mask[c])
				dmasked[c] = 0;
			/* scaled[c] = (float)(scores[c] / t->divisor); */
			dmasked[c] /= t->divisor;
		}
		/* av_head_scores(scores, t->q, t->k, n, m, D, h, dh); */
		head_scores_backward(dq, dk, dmasked, t->q, t->k, n, m, D, h, dh);
	}

	const float *xs = cross ? t->source_embedding : t->embedding;
	/* av_linear(t->q, t->embedding, p->w_q, p->b_q, n, D, D); */
	linear_backward(dx, g->t[AV_P_W_Q], g->t[AV_P_B_Q], dq, t->embedding, p->w_q, n, D, D,
			ASSIGNS(AV_P_W_Q));
	/* av_linear(t->k, xs, p->w_k, p->b_k, m, D, D); */
	linear_backward(dxs, g->t[AV_P_W_K], g->t[AV_P_B_K], dk, xs, p->w_k, m, D, D,
			ASSIGNS(AV_P_W_K));
	/* av_linear(t->v, xs, p->w_v, p->b_v, m, D, D); */
	if (dv)
		linear_backward(dxs, g->t[AV_P_W_V], g->t[AV_P_B_V], dv, xs, p->w_v, m, D, D,
				ASSIGNS(AV_P_W_V));
#undef ASSIGNS
	/* embed(t->embedding, ..., t->ids, n) and, in cross mode,
	 * embed(t->source_embedding, ..., t->source_ids, m) */
	if (dx) {
		embed_backward(g, t, t->ids, n, dx);
		if (cross)
			embed_backward(g, t, t->source_ids, m, dxs);
	}
}
