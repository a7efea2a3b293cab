/*
 * matmul_plain.h: the dot product of the plain kernel (matmul.c), shared
 * with the fused passes of small layers (attention.c's forward_small,
 * backward.c's backward_small), which compute such products themselves and
 * must get the very bits the kernel gives (av_matmul_is_plain says which
 * products those are), and with the trainer's tracked pair (train.c).
 */
#ifndef AV_MATMUL_PLAIN_H
#define AV_MATMUL_PLAIN_H

#include <stddef.h>

/* sum_p a[p] * b[p * stride] in double: four chains over the first k - k % 4
 * terms, the rest added to the first chain in order, then (s0 + s1) +
 * (s2 + s3). The tail is a switch rather than a loop: at china-panda's
 * k = 3 the loop's control was most of a product's time. */
__attribute__((always_inline))
static inline double av_dot_in_chains(const float *a, const float *b, size_t stride, int k)
{
	double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	int p = 0;
	for (; p + 4 <= k; p += 4) {
		s0 += (double)a[p] * b[p * stride];
		s1 += (double)a[p + 1] * b[(p + 1) * stride];
		s2 += (double)a[p + 2] * b[(p + 2) * stride];
		s3 += (double)a[p + 3] * b[(p + 3) * stride];
	}
	switch (k - p) {
	case 3: s0 += (double)a[p] * b[p * stride]; p++; /* fall through */
	case 2: s0 += (double)a[p] * b[p * stride]; p++; /* fall through */
	case 1: s0 += (double)a[p] * b[p * stride]; /* fall through */
	default: break;
	}
	return (s0 + s1) + (s2 + s3);
}

/* out (m) = a (k) . b^T + bias, b (m, k) and bias (m, or NULL): a row of
 * av_matmul's product by an nn.Linear weight on the plain kernel, the bias
 * added to each sum in double before the rounding, as the kernel adds it
 * to the bias rows it starts from. */
__attribute__((always_inline))
static inline void av_plain_row_nt(float *out, const float *a, const float *b,
				   const float *bias, int m, int k)
{
	_Pragma("GCC unroll 4")   /* china-panda's m = 3 whole */
	for (int j = 0; j < m; j++) {
		double s = av_dot_in_chains(a, b + (size_t)j * k, 1, k);
		out[j] = (float)(bias ? s + bias[j] : s);
	}
}

#endif
