/*
 * matmul_avx2.h: matrix products for few rows, by AVX2 and FMA (x86-64).
 *
 * attnview's products are short and wide: a sentence of 5 to 64 tokens
 * times a (512, 512) weight, or GPT-2's 32 tokens times (768, 3072). A
 * general GEMM packs both operands into its own layout before it multiplies;
 * with so few rows that copy of the weight costs as much as the arithmetic
 * (a third of OpenBLAS's time here). These kernels read the weight where it
 * lies, once, and keep the few rows of the other operand in cache. matmul.c
 * sends them the products they are faster at (below) when the CPU has
 * AVX2 and FMA (every x86-64 since 2013/2015), and everything else to
 * OpenBLAS.
 *
 * Both accumulate in float32, in eight lanes, as OpenBLAS does.
 * accumulate: c += a . op(b) (the bias rows av_matmul put there); else c =.
 */
#ifndef AV_MATMUL_AVX2_H
#define AV_MATMUL_AVX2_H

#include <stdbool.h>

/* Whether these kernels take the product (n, k) . (m, k)^T or (n, k) .
 * (k, m): the CPU runs them and the shapes are those where they beat
 * OpenBLAS here (bench/kernels: `make bench-kernels` measures both).
 * nt: up to 96 rows (the dot products read b once; past that OpenBLAS's
 * packing pays for itself). nn: up to 16 rows, or b of at most 16384
 * floats (attention's weights . V); with more rows OpenBLAS's packed
 * kernel is faster than this one. Shapes alone decide (and the CPU), so
 * one server always gives the same bits. */
bool av_avx2_nt_suits(int n, int m, int k);
bool av_avx2_nn_suits(int n, int m, int k);

/* c (n, m) = a (n, k) . b^T, b (m, k): each element one dot product */
void av_avx2_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate);

/* c (n, m) = a (n, k) . b, b (k, m): rows of b scaled and added */
void av_avx2_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate);

#endif
