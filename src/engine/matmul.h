/*
 * matmul.h: the one matrix product every layer goes through.
 *
 * Both layouts the project meets are served, so weights are used where they
 * lie (a GPT-2 file is mapped read-only and shared, never transposed):
 *   AV_W_OUT_IN  w (out_dim, in_dim), PyTorch's nn.Linear.weight;
 *   AV_W_IN_OUT  w (in_dim, out_dim), GPT-2's Conv1D.weight.
 *
 * matmul.c is the plain reference kernel; a faster backend (issue 11)
 * replaces the body, never this contract.
 */
#ifndef AV_MATMUL_H
#define AV_MATMUL_H

enum av_weight_layout { AV_W_OUT_IN, AV_W_IN_OUT };

/* out (n, out_dim) = x (n, in_dim) . W + b, where W is w read in the given
 * layout as an (in_dim, out_dim) matrix and b (out_dim) may be NULL. */
void av_matmul(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim, enum av_weight_layout layout);

#endif
