/* matmul_avx2.c: products for few rows by AVX2 and FMA (see matmul_avx2.h).
 *
 * The build assumes plain x86-64, so these functions alone are compiled for
 * AVX2+FMA (the target attribute) and run only after the CPU has said it
 * has them (av_avx2_usable). Each product is cut into register blocks: a
 * block keeps its sums in up to 12 of the 16 ymm registers for the whole of
 * k and writes each element of c once. The tails (rows, columns and k that
 * are not multiples of the block) run the same code with fewer registers,
 * and use masked loads and stores past the last multiple of 8, so nothing
 * is read or written outside the operands. */
#include "config.h"

#include "matmul_avx2.h"
#include "matmul_blocks.h"

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>
#include <stdint.h>

#define TARGET __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline))
/* the loops over a block's rows and columns, unrolled so that its sums live
 * in registers (R, C and V are constants in each instantiation) */
#define UNROLL _Pragma("GCC unroll 8")

bool av_avx2_usable(void)
{
	static int usable = -1;
	if (usable < 0) {
		__builtin_cpu_init();
		usable = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
	}
	return usable;
}

/* lanes [0, count) on, for count in 0..8 */
TARGET INLINE __m256i first_lanes(int count)
{
	static const int32_t ones_then_zeros[16] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - count));
}

/* the sums of the lanes of a, b, c and d, in that order */
TARGET INLINE __m128 sum_lanes4(__m256 a, __m256 b, __m256 c, __m256 d)
{
	__m256 ab = _mm256_hadd_ps(a, b);
	__m256 cd = _mm256_hadd_ps(c, d);
	__m256 abcd = _mm256_hadd_ps(ab, cd);
	return _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1));
}

/* --- c = a . b^T: R rows of a against C rows of b ------------------------
 * Per 8 floats of k: R + C loads and R * C FMAs into R * C sums of 8 lanes,
 * which are added across at the end. 4 x 3: 12 sums + 3 of b + 1 of a fill
 * the 16 registers. */
#define NT_ROWS 4
#define NT_COLS 3

TARGET INLINE void nt_block(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			    int k, bool accumulate, const int R, const int C)
{
	__m256 s[NT_ROWS][NT_COLS];
	UNROLL
	for (int r = 0; r < R; r++)
		UNROLL
		for (int j = 0; j < C; j++)
			s[r][j] = _mm256_setzero_ps();
	int p = 0;
	for (; p + 8 <= k; p += 8) {
		__m256 bv[NT_COLS];
		UNROLL
		for (int j = 0; j < C; j++)
			bv[j] = _mm256_loadu_ps(b + (size_t)j * ldb + p);
		UNROLL
		for (int r = 0; r < R; r++) {
			__m256 av = _mm256_loadu_ps(a + (size_t)r * lda + p);
			UNROLL
			for (int j = 0; j < C; j++)
				s[r][j] = _mm256_fmadd_ps(av, bv[j], s[r][j]);
		}
	}
	if (p < k) {
		__m256i mask = first_lanes(k - p);
		__m256 bv[NT_COLS];
		UNROLL
		for (int j = 0; j < C; j++)
			bv[j] = _mm256_maskload_ps(b + (size_t)j * ldb + p, mask);
		UNROLL
		for (int r = 0; r < R; r++) {
			__m256 av = _mm256_maskload_ps(a + (size_t)r * lda + p, mask);
			UNROLL
			for (int j = 0; j < C; j++)
				s[r][j] = _mm256_fmadd_ps(av, bv[j], s[r][j]);
		}
	}
	__m256 zero = _mm256_setzero_ps();
	UNROLL
	for (int r = 0; r < R; r++) {
		float sums[4];
		_mm_storeu_ps(sums, sum_lanes4(s[r][0], C > 1 ? s[r][1] : zero,
					       C > 2 ? s[r][2] : zero, zero));
		float *cr = c + (size_t)r * ldc;
		UNROLL
		for (int j = 0; j < C; j++)
			cr[j] = accumulate ? cr[j] + sums[j] : sums[j];
	}
}

#define NT_BLOCK(R, C)                                                                      \
	TARGET static void nt_block_##R##_##C(float *c, int ldc, const float *a, int lda,  \
					      const float *b, int ldb, int k, bool acc)   \
	{                                                                                   \
		nt_block(c, ldc, a, lda, b, ldb, k, acc, R, C);                             \
	}
NT_BLOCK(1, 1) NT_BLOCK(1, 2) NT_BLOCK(1, 3)
NT_BLOCK(2, 1) NT_BLOCK(2, 2) NT_BLOCK(2, 3)
NT_BLOCK(3, 1) NT_BLOCK(3, 2) NT_BLOCK(3, 3)
NT_BLOCK(4, 1) NT_BLOCK(4, 2) NT_BLOCK(4, 3)

static av_dot_block_fn *const nt_blocks[NT_ROWS * NT_COLS] = {
	nt_block_1_1, nt_block_1_2, nt_block_1_3,
	nt_block_2_1, nt_block_2_2, nt_block_2_3,
	nt_block_3_1, nt_block_3_2, nt_block_3_3,
	nt_block_4_1, nt_block_4_2, nt_block_4_3,
};

void av_avx2_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate)
{
	av_dot_blocks(nt_blocks, NT_ROWS, NT_COLS, c, ldc, a, lda, b, ldb, n, m, k, accumulate);
}

/* --- c = a . b: R rows of a against 16 columns of b ----------------------
 * Per row p of b: 2 loads of b, R broadcasts of a[r][p] and 2R FMAs. 6 x 16:
 * 12 sums + 2 of b + 1 broadcast. Only width of the 16 columns are real:
 * b is either padded to 16 with zeros (the packed strips) or read through
 * masks past width; c is written through masks past width. */
#define NN_ROWS 6
#define NN_WIDTH 16

TARGET INLINE void nn_block(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			    int k, bool accumulate, const int R, const int width, const bool padded)
{
	const int V = padded || width > 8 ? 2 : 1; /* vectors of 8 columns */
	__m256i mask[2] = { first_lanes(width < 8 ? width : 8),
			    first_lanes(width > 8 ? width - 8 : 0) };
	__m256 s[NN_ROWS][2];
	UNROLL
	for (int r = 0; r < R; r++)
		UNROLL
		for (int v = 0; v < V; v++)
			s[r][v] = _mm256_setzero_ps();
	for (int p = 0; p < k; p++) {
		const float *bp = b + (size_t)p * ldb;
		__m256 bv[2] = { _mm256_setzero_ps(), _mm256_setzero_ps() };
		UNROLL
		for (int v = 0; v < V; v++)
			bv[v] = padded || width >= 8 * (v + 1) ? _mm256_loadu_ps(bp + 8 * v)
							       : _mm256_maskload_ps(bp + 8 * v, mask[v]);
		UNROLL
		for (int r = 0; r < R; r++) {
			__m256 av = _mm256_broadcast_ss(a + (size_t)r * lda + p);
			UNROLL
			for (int v = 0; v < V; v++)
				s[r][v] = _mm256_fmadd_ps(av, bv[v], s[r][v]);
		}
	}
	UNROLL
	for (int r = 0; r < R; r++) {
		float *cr = c + (size_t)r * ldc;
		UNROLL
		for (int v = 0; v < V; v++) {
			if (width <= 8 * v)
				continue;
			bool whole = width >= 8 * (v + 1);
			if (accumulate)
				s[r][v] = _mm256_add_ps(s[r][v], whole ? _mm256_loadu_ps(cr + 8 * v)
								     : _mm256_maskload_ps(cr + 8 * v, mask[v]));
			if (whole)
				_mm256_storeu_ps(cr + 8 * v, s[r][v]);
			else
				_mm256_maskstore_ps(cr + 8 * v, mask[v], s[r][v]);
		}
	}
}

/* packed or in place; all 16 columns real (width a constant) or fewer */
#define NN_BLOCK(R)                                                                            \
	TARGET static void nn_block_##R(float *c, int ldc, const float *a, int lda,           \
					const float *b, int ldb, int k, bool acc, int width,   \
					bool packed)                                           \
	{                                                                                      \
		if (packed && width == NN_WIDTH)                                               \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, NN_WIDTH, true);           \
		else if (packed)                                                               \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, width, true);              \
		else if (width == NN_WIDTH)                                                    \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, NN_WIDTH, false);          \
		else                                                                           \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, width, false);             \
	}
NN_BLOCK(1) NN_BLOCK(2) NN_BLOCK(3) NN_BLOCK(4) NN_BLOCK(5) NN_BLOCK(6)

static av_strip_block_fn *const nn_blocks[NN_ROWS] = {
	nn_block_1, nn_block_2, nn_block_3, nn_block_4, nn_block_5, nn_block_6,
};

TARGET static void pack_strips(float *packed, const float *b, int ldb, int kc, int columns)
{
	for (int j = 0; j < columns; j += NN_WIDTH) {
		int width = columns - j < NN_WIDTH ? columns - j : NN_WIDTH;
		__m256i lo = first_lanes(width < 8 ? width : 8);
		__m256i hi = first_lanes(width > 8 ? width - 8 : 0);
		float *strip = packed + (size_t)j * kc;
		for (int p = 0; p < kc; p++) {
			const float *row = b + (size_t)p * ldb + j;
			_mm256_storeu_ps(strip + p * NN_WIDTH, _mm256_maskload_ps(row, lo));
			_mm256_storeu_ps(strip + p * NN_WIDTH + 8, _mm256_maskload_ps(row + 8, hi));
		}
	}
}

static const struct av_strip_kernel nn_kernel = { nn_blocks, NN_ROWS, NN_WIDTH, pack_strips,
						  NULL };

void av_avx2_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate)
{
	_Alignas(32) float packed[AV_BLOCK_KC * AV_BLOCK_NC];
	av_strip_product(&nn_kernel, packed, c, ldc, a, lda, b, ldb, false, n, m, k, accumulate,
			 NULL, false);
}

#else /* not x86-64: OpenBLAS or the reference kernel does everything */

#include <stdlib.h>

bool av_avx2_usable(void)
{
	return false;
}

void av_avx2_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb;
	(void)n, (void)m, (void)k, (void)accumulate;
	abort();
}

void av_avx2_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		     int n, int m, int k, bool accumulate)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb;
	(void)n, (void)m, (void)k, (void)accumulate;
	abort();
}

#endif
