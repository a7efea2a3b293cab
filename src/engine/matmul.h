/*
 * matmul.h: the one matrix product every layer goes through.
 *
 * Both layouts the project meets are served, so weights are used where they
 * lie (a GPT-2 file is mapped read-only and shared, never transposed):
 *   AV_W_OUT_IN  w (out_dim, in_dim), PyTorch's nn.Linear.weight;
 *   AV_W_IN_OUT  w (in_dim, out_dim), GPT-2's Conv1D.weight.
 *
 * Two backends, chosen by configure (see matmul.c for why):
 *   OpenBLAS (--with-blas, the default when found): cblas_sgemm, float32
 *     accumulation as PyTorch's CPU path, kernels picked at run time for the
 *     CPU, run on one thread; beside it attnview's own AVX2 and AVX-512
 *     kernels for the shapes where they are faster (matmul.c's
 *     choose_kernel; matmul_avx2.h, matmul_avx512.h);
 *   the plain reference kernel (--without-blas): readable loops that
 *     accumulate in double.
 * Within one build and one machine every result is reproducible to the bit
 * (a classroom's followers recompute the teacher's numbers).
 * The product is never written over an operand: out (c) overlaps neither
 * x (a) nor w (b), as cblas_sgemm requires too.
 */
#ifndef AV_MATMUL_H
#define AV_MATMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum av_weight_layout { AV_W_OUT_IN, AV_W_IN_OUT };

/* out (n, out_dim) = x (n, in_dim) . W + b, where W is w read in the given
 * layout as an (in_dim, out_dim) matrix and b (out_dim) may be NULL. */
void av_matmul(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim, enum av_weight_layout layout);

/* The copy of a weight's W^T that the AVX-512 kernel makes, in its strips,
 * for each product of more than 16 rows by an nn.Linear weight: kept
 * between products while the weight's values are those named by `stamp`
 * (struct av_params.stamp, which changes whenever they do). The copy was
 * 15 % of a D=512 forward pass of 64 tokens, done again for every key the
 * screen recomputes. Start zeroed; av_packed_free frees it. */
struct av_packed {
	uint64_t stamp;   /* the values data holds W^T of; 0: none */
	float *data;
	size_t floats;
};
void av_packed_free(struct av_packed *pk);

/* av_matmul(out, x, w, b, n, in_dim, out_dim, AV_W_OUT_IN), the same bits,
 * with W^T's copy taken from *pk when it holds stamp's values and made
 * there when not (stamp 0 or a route that copies nothing: as av_matmul). */
void av_matmul_kept(float *out, const float *x, const float *w, const float *b,
		    int n, int in_dim, int out_dim, struct av_packed *pk, uint64_t stamp);

/* The same product over strided blocks, for the attention heads, whose Q, K
 * and V are column blocks of (tokens, D) matrices. Row r of a matrix starts
 * at its pointer + r * its leading dimension (ld*, in floats).
 *   av_matmul_nt: c (n, m) = a (n, k) . b^T, b (m, k)   [scores = Q_h K_h^T]
 *   av_matmul_nn: c (n, m) = a (n, k) . b,   b (k, m)   [context = P_h V_h] */
void av_matmul_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		  int n, int m, int k);
void av_matmul_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		  int n, int m, int k);

/* Whether a product of n rows by m columns of k terms, in either layout,
 * goes to the plain kernel (without a BLAS every product does; with one,
 * the small ones): its element (i, j) is then (float)av_dot_in_chains(row
 * i of a, column j of op(b), k), plus the bias in double before the
 * rounding (matmul_plain.h), which a fused pass may compute itself. */
bool av_matmul_is_plain(int n, int m, int k);

/* Products of at most this many multiply-adds (n m k) go to the plain
 * kernel on every build: a library call costs more than such a product. */
#define AV_MATMUL_PLAIN_MOST 512

/* The backend's name, for the benchmark and --version: "OpenBLAS <core>"
 * or "reference". */
const char *av_matmul_backend(void);

#endif
