/*
 * softmax_avx2.h: a softmax row in float32 by AVX2 and FMA (x86-64).
 *
 * The forward pass's softmax is most of what a D=512 forward does besides
 * the matrix products (8 heads x 64 x 64 exps at 64 tokens); libm's exp in
 * double took 0.3 of its 1.6 ms. This is PyTorch's CPU softmax, done the
 * same way: the row's max subtracted, exp in float32 by a polynomial
 * (Cephes' expf, within 2 ulp of the exact value), the sum in float32
 * across 8 lanes, and each term times 1 / sum. The backward pass does not
 * use it: it recomputes its rows in double (backward.h).
 */
#ifndef AV_SOFTMAX_AVX2_H
#define AV_SOFTMAX_AVX2_H

#include <stdbool.h>

/* out (cols) = softmax(row (cols)); false, with out untouched, when the CPU
 * lacks AVX2+FMA or the row holds a NaN or +inf (the caller's double path
 * then gives what libm gives). Entries of -1e20 (masked) come out 0. */
bool av_softmax_row_avx2(float *out, const float *row, int cols);

#endif
