/*
 * matmul_avx2.h: matrix products for few rows, by AVX2 and FMA (x86-64).
 *
 * attnview's products are short and wide: a sentence of 5 to 64 tokens
 * times a (512, 512) weight, or GPT-2's 32 tokens times (768, 3072). A
 * general GEMM packs both operands into its own layout before it multiplies;
 * with so few rows that copy of the weight costs as much as the arithmetic
 * (a third of OpenBLAS's time here). These kernels read the weight where it
 * lies, once, and keep the few rows of the other operand in cache.
 * matmul.c chooses, by shape and CPU, between these, the AVX-512 ones
 * (matmul_avx512.h) and OpenBLAS.
 *
 * Both accumulate in float32, in eight lanes, as OpenBLAS does.
 * accumulate: c += a . op(b) (the bias rows av_matmul put there); else c =.
 */
#ifndef AV_MATMUL_AVX2_H
#define AV_MATMUL_AVX2_H

#include <stdbool.h>

/* true when this build has the kernels and the CPU runs them */
bool av_avx2_usable(void);

/* c (n, m) = a (n, k) . b^T, b (m, k): each element one dot product */
void av_avx2_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate);

/* c (n, m) = a (n, k) . b, b (k, m): rows of b scaled and added */
void av_avx2_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate);

#endif
