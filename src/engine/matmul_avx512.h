/*
 * matmul_avx512.h: matrix products for few rows by AVX-512F (x86-64).
 *
 * The kernels of matmul_avx2.h (which says why attnview has its own), 16
 * floats wide: on CPUs with full-width AVX-512 units they do twice the
 * arithmetic per cycle. matmul.c chooses between them, AVX2 and OpenBLAS.
 * accumulate: c += a . op(b); else c =.
 */
#ifndef AV_MATMUL_AVX512_H
#define AV_MATMUL_AVX512_H

#include <stdbool.h>
#include <stdint.h>

/* true when this build has the kernels and the CPU runs them */
bool av_avx512_usable(void);

/* c (n, m) = a (n, k) . b^T, b (m, k) */
void av_avx512_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate);

/* av_avx512_gemm_nt with b^T's strips kept in *pk while b holds the
 * values named by stamp (matmul.h); the same bits */
struct av_packed;
void av_avx512_gemm_nt_kept(float *c, int ldc, const float *a, int lda, const float *b,
			    int ldb, int n, int m, int k, bool accumulate, struct av_packed *pk,
			    uint64_t stamp);

/* c (n, m) = a (n, k) . b, b (k, m) */
void av_avx512_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate);

#endif
