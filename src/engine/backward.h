/* backward.h: the backward pass of the attention layer, beside its forward
 * pass (attention.h), llm.c style: one plain function per forward stage,
 * each quoting the forward line it reverses and adding (+=) its gradients.
 *
 * Precision: the gradients are double. The forward pass stores its stages as
 * float32; the backward pass reads them and does all its own arithmetic in
 * double, and the softmax backward recomputes the probabilities in double
 * from the "masked" stage, so each row sums to 1 to 1e-16 and the parts of
 * the gradient that are zero in exact arithmetic (b_k's: the softmax does not
 * change when every score of a row moves by q.b_k) come out as ~1e-17, not
 * as float32 noise that Adam (which divides by sqrt(v) + 1e-8) would blow
 * up into steps of size lr.
 *
 * Masking: cells hidden by the causal or padding mask get no gradient (the
 * forward pass replaced their score with a constant), and a row whose keys
 * are all hidden (its weights are all zero) passes no gradient back. */
#ifndef AV_BACKWARD_H
#define AV_BACKWARD_H

#include <stddef.h>
#include "attention.h"
#include "model.h"

/* The parameter tensors of struct av_params, by number, named as in a
 * weights file. */
enum av_param_id {
	AV_P_TOKEN_EMBEDDING, AV_P_POSITION_EMBEDDING,
	AV_P_W_Q, AV_P_B_Q, AV_P_W_K, AV_P_B_K, AV_P_W_V, AV_P_B_V, AV_P_W_O, AV_P_B_O,
	AV_N_PARAMS
};
extern const char *const av_param_names[];   /* "token_embedding", ..., "b_o", NULL */

/* The tensor id of p and its number of floats (V*D, L*D, D*D or D); NULL
 * (and *count 0) when p has no such tensor (no bias, no learned positions). */
float *av_param_tensor(const struct av_params *p, int id, size_t *count);

/* Gradients with the shapes of a struct av_params, in double. t[id] is NULL
 * for a tensor whose gradient is not wanted (it is then not computed) or
 * that the parameters do not have. */
struct av_grads {
	double *t[AV_N_PARAMS];
	size_t count[AV_N_PARAMS];
	unsigned assign;     /* weight matrices (1u << id: W_q, W_k, W_v, W_o;
				each bit covers the matrix's bias too) whose
				gradient av_trace_backward writes (=) instead of
				adding to it, for a caller that would zero them
				first: each row is zeroed while in the cache
				instead of the whole tensor going through memory
				twice. A matrix the pass does not reach is left
				as it is. 0 by default: every gradient adds. */
	double *work;        /* the backward pass's scratch, kept between passes */
	size_t work_count;   /* doubles in work */
};

/* Allocates zeroed gradients for the tensors of p whose bit (1u << id) is
 * set in wanted (AV_GRADS_ALL for all). */
#define AV_GRADS_ALL ((1u << AV_N_PARAMS) - 1)
void av_grads_init(struct av_grads *g, const struct av_params *p, unsigned wanted);
void av_grads_zero(struct av_grads *g);
void av_grads_free(struct av_grads *g);

/* The backward pass of the trace t (made by av_trace_forward with p, or by
 * av_trace_forward_weights when d_residual is NULL). d_residual (n, D) and d_weights (H, n, m) are the gradients of a loss with
 * respect to the residual and weights stages; either may be NULL (zero).
 * Adds the gradients of the loss with respect to every tensor g holds; the
 * token-embedding rows are those of t->ids (and t->source_ids), the position
 * rows 0..n-1 (and 0..m-1) of a learned table. Work for gradients nobody
 * asked for is skipped: without d_residual the value path (W_v, W_o) is not
 * run, and without embedding gradients dX is not formed. */
void av_trace_backward(const struct av_trace *t, const struct av_params *p,
		       const double *d_residual, const double *d_weights, struct av_grads *g);

/* Kernels, exposed for the tests. */

/* Reverses av_linear, out (n, out_dim) = x (n, in_dim) . w^T + b:
 * dx (n, in_dim) += dout . w, dw (out_dim, in_dim) += dout^T . x,
 * db (out_dim) += column sums of dout. dx, dw and db may be NULL. */
void av_linear_backward(double *dx, double *dw, double *db, const double *dout,
			const float *x, const float *w, int n, int in_dim, int out_dim);

/* Reverses av_softmax_rows(out, in, mask, rows, cols): din += the gradient
 * with respect to in, given dout; the probabilities are recomputed in
 * double from in. Hidden cells and all-hidden rows get nothing. */
void av_softmax_rows_backward(double *din, const double *dout, const float *in,
			      const unsigned char *mask, int rows, int cols);

#endif
