/* matmul_avx512.c: products for few rows by AVX-512 (see matmul_avx2.h for
 * why attnview multiplies by itself at all).
 *
 * The same two kernels as matmul_avx2.c, 16 floats wide in 32 registers.
 * On a CPU with full-width AVX-512 units (this project's CI machine: 209
 * GFLOP/s of zmm FMAs against 112 of ymm, measured with 12 independent
 * chains) that is twice the arithmetic per cycle that OpenBLAS's AVX2
 * kernels (what 0.3.21 picks for it) can reach. Tails use mask registers,
 * so nothing outside the operands is read or written. */
#include "config.h"

#include "matmul.h"
#include "matmul_avx512.h"
#include "matmul_blocks.h"
#include "util.h"

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define TARGET __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 8")

bool av_avx512_usable(void)
{
	static int usable = -1;
	if (usable < 0) {
		__builtin_cpu_init();
		usable = __builtin_cpu_supports("avx512f");
	}
	return usable;
}

/* lanes [0, count) on, count in 0..16 */
static inline __mmask16 first_lanes(int count)
{
	return (__mmask16)((1u << count) - 1u);
}

/* the sums of the lanes of a, b, c and d, in that order */
TARGET INLINE __m128 sum_lanes4(__m512 a, __m512 b, __m512 c, __m512 d)
{
#define HALVES(v) _mm256_add_ps(_mm512_castps512_ps256(v), \
	_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)))
	__m256 ab = _mm256_hadd_ps(HALVES(a), HALVES(b));
	__m256 cd = _mm256_hadd_ps(HALVES(c), HALVES(d));
#undef HALVES
	__m256 abcd = _mm256_hadd_ps(ab, cd);
	return _mm_add_ps(_mm256_castps256_ps128(abcd), _mm256_extractf128_ps(abcd, 1));
}

/* --- c = a . b^T: R rows of a against C rows of b, 4 x 4 -------------- */
#define NT_ROWS 4
#define NT_COLS 4

TARGET INLINE void nt_block(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			    int k, bool accumulate, const int R, const int C)
{
	__m512 s[NT_ROWS][NT_COLS];
	UNROLL
	for (int r = 0; r < R; r++)
		UNROLL
		for (int j = 0; j < C; j++)
			s[r][j] = _mm512_setzero_ps();
	/* whole vectors of k, then the rest through a mask */
	for (int p = 0; p < k; p += 16) {
		bool whole = p + 16 <= k;
		__mmask16 mask = first_lanes(whole ? 16 : k - p);
		__m512 bv[NT_COLS];
		UNROLL
		for (int j = 0; j < C; j++)
			bv[j] = whole ? _mm512_loadu_ps(b + (size_t)j * ldb + p)
				      : _mm512_maskz_loadu_ps(mask, b + (size_t)j * ldb + p);
		UNROLL
		for (int r = 0; r < R; r++) {
			__m512 av = whole ? _mm512_loadu_ps(a + (size_t)r * lda + p)
					  : _mm512_maskz_loadu_ps(mask, a + (size_t)r * lda + p);
			UNROLL
			for (int j = 0; j < C; j++)
				s[r][j] = _mm512_fmadd_ps(av, bv[j], s[r][j]);
		}
	}
	__m512 zero = _mm512_setzero_ps();
	UNROLL
	for (int r = 0; r < R; r++) {
		float sums[4];
		_mm_storeu_ps(sums, sum_lanes4(s[r][0], C > 1 ? s[r][1] : zero,
					       C > 2 ? s[r][2] : zero, C > 3 ? s[r][3] : zero));
		float *cr = c + (size_t)r * ldc;
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
NT_BLOCK(1, 1) NT_BLOCK(1, 2) NT_BLOCK(1, 3) NT_BLOCK(1, 4)
NT_BLOCK(2, 1) NT_BLOCK(2, 2) NT_BLOCK(2, 3) NT_BLOCK(2, 4)
NT_BLOCK(3, 1) NT_BLOCK(3, 2) NT_BLOCK(3, 3) NT_BLOCK(3, 4)
NT_BLOCK(4, 1) NT_BLOCK(4, 2) NT_BLOCK(4, 3) NT_BLOCK(4, 4)

static av_dot_block_fn *const nt_blocks[NT_ROWS * NT_COLS] = {
	nt_block_1_1, nt_block_1_2, nt_block_1_3, nt_block_1_4,
	nt_block_2_1, nt_block_2_2, nt_block_2_3, nt_block_2_4,
	nt_block_3_1, nt_block_3_2, nt_block_3_3, nt_block_3_4,
	nt_block_4_1, nt_block_4_2, nt_block_4_3, nt_block_4_4,
};

/* Few rows (up to NT_DOT_MAX_ROWS): the dot products above. More rows:
 * b^T copied into the strips of the nn kernel below, which runs at 1.5
 * times the dot products' rate once the copy is shared by enough rows. */
#define NT_DOT_MAX_ROWS 16

/* --- c = a . b: R rows of a against 32 columns of b, 8 x 32 ------------
 * Per row p of b: 2 loads, R broadcasts, 2R FMAs into 16 sums. */
#define NN_ROWS 8
#define NN_WIDTH 32

TARGET INLINE void nn_block(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			    int k, bool accumulate, const int R, const int width)
{
	__mmask16 mask[2] = { first_lanes(width < 16 ? width : 16),
			      first_lanes(width > 16 ? width - 16 : 0) };
	__m512 s[NN_ROWS][2];
	UNROLL
	for (int r = 0; r < R; r++)
		s[r][0] = s[r][1] = _mm512_setzero_ps();
	for (int p = 0; p < k; p++) {
		const float *bp = b + (size_t)p * ldb;
		__m512 b0 = _mm512_maskz_loadu_ps(mask[0], bp);
		__m512 b1 = _mm512_maskz_loadu_ps(mask[1], bp + 16);
		UNROLL
		for (int r = 0; r < R; r++) {
			__m512 av = _mm512_set1_ps(a[(size_t)r * lda + p]);
			s[r][0] = _mm512_fmadd_ps(av, b0, s[r][0]);
			s[r][1] = _mm512_fmadd_ps(av, b1, s[r][1]);
		}
	}
	UNROLL
	for (int r = 0; r < R; r++) {
		float *cr = c + (size_t)r * ldc;
		for (int v = 0; v < 2; v++) {
			if (accumulate)
				s[r][v] = _mm512_add_ps(s[r][v],
							_mm512_maskz_loadu_ps(mask[v], cr + 16 * v));
			_mm512_mask_storeu_ps(cr + 16 * v, mask[v], s[r][v]);
		}
	}
}

/* all 32 columns real (width a constant) or fewer; packed strips read
 * through the same masks (zeros past width either way) */
#define NN_BLOCK(R)                                                                          \
	TARGET static void nn_block_##R(float *c, int ldc, const float *a, int lda,         \
					const float *b, int ldb, int k, bool acc, int width, \
					bool packed)                                         \
	{                                                                                    \
		(void)packed;                                                                \
		if (width == NN_WIDTH)                                                       \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, NN_WIDTH);               \
		else                                                                         \
			nn_block(c, ldc, a, lda, b, ldb, k, acc, R, width);                  \
	}
NN_BLOCK(1) NN_BLOCK(2) NN_BLOCK(3) NN_BLOCK(4) NN_BLOCK(5) NN_BLOCK(6) NN_BLOCK(7) NN_BLOCK(8)

static av_strip_block_fn *const nn_blocks[NN_ROWS] = {
	nn_block_1, nn_block_2, nn_block_3, nn_block_4,
	nn_block_5, nn_block_6, nn_block_7, nn_block_8,
};

TARGET static void pack_strips(float *packed, const float *b, int ldb, int kc, int columns)
{
	for (int j = 0; j < columns; j += NN_WIDTH) {
		int width = columns - j < NN_WIDTH ? columns - j : NN_WIDTH;
		__mmask16 lo = first_lanes(width < 16 ? width : 16);
		__mmask16 hi = first_lanes(width > 16 ? width - 16 : 0);
		float *strip = packed + (size_t)j * kc;
		for (int p = 0; p < kc; p++) {
			const float *row = b + (size_t)p * ldb + j;
			_mm512_storeu_ps(strip + p * NN_WIDTH, _mm512_maskz_loadu_ps(lo, row));
			_mm512_storeu_ps(strip + p * NN_WIDTH + 16, _mm512_maskz_loadu_ps(hi, row + 16));
		}
	}
}

/* t (16, 16) = the transpose of r (16, 16), in registers: pairs of floats,
 * then pairs of pairs, then the 4 x 4 blocks of 128-bit lanes */
TARGET INLINE void transpose16(__m512 r[16])
{
	__m512 t[16], u[16];
	UNROLL
	for (int i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
	}
#define PD(x) _mm512_castps_pd(x)
	UNROLL
	for (int i = 0; i < 4; i++) {
		u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(PD(t[4 * i]), PD(t[4 * i + 2])));
		u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(PD(t[4 * i]), PD(t[4 * i + 2])));
		u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(PD(t[4 * i + 1]), PD(t[4 * i + 3])));
		u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(PD(t[4 * i + 1]), PD(t[4 * i + 3])));
	}
#undef PD
	/* u[4i + q], lane L: rows 4i..4i+3 of column 4L + q */
	UNROLL
	for (int q = 0; q < 4; q++) {
		__m512 v0 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0x44);
		__m512 v1 = _mm512_shuffle_f32x4(u[q], u[4 + q], 0xEE);
		__m512 v2 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0x44);
		__m512 v3 = _mm512_shuffle_f32x4(u[8 + q], u[12 + q], 0xEE);
		r[q] = _mm512_shuffle_f32x4(v0, v2, 0x88);
		r[4 + q] = _mm512_shuffle_f32x4(v0, v2, 0xDD);
		r[8 + q] = _mm512_shuffle_f32x4(v1, v3, 0x88);
		r[12 + q] = _mm512_shuffle_f32x4(v1, v3, 0xDD);
	}
}

/* the same strips from b^T: b (columns, kc), rows ldb apart, read 16 x 16
 * at a time and transposed in registers (rows past columns, and k past kc,
 * read as zeros) */
TARGET static void pack_strips_transposed(float *packed, const float *b, int ldb, int kc,
					  int columns)
{
	for (int j = 0; j < columns; j += 16) {
		int rows = columns - j < 16 ? columns - j : 16;
		float *strip = packed + (size_t)(j / NN_WIDTH) * NN_WIDTH * kc + j % NN_WIDTH;
		for (int p = 0; p < kc; p += 16) {
			int depth = kc - p < 16 ? kc - p : 16;
			__m512 tile[16];
			if (rows == 16 && depth == 16) {
				/* a whole tile (nearly all of a D=512 weight): no
				 * masks, and loops the compiler unrolls whole, so the
				 * tile stays in registers */
				_Pragma("GCC unroll 16")
				for (int r = 0; r < 16; r++)
					tile[r] = _mm512_loadu_ps(b + (size_t)(j + r) * ldb + p);
				transpose16(tile);
				_Pragma("GCC unroll 16")
				for (int q = 0; q < 16; q++)
					_mm512_storeu_ps(strip + (size_t)(p + q) * NN_WIDTH, tile[q]);
				continue;
			}
			__mmask16 mask = first_lanes(depth);
			UNROLL
			for (int r = 0; r < 16; r++)
				tile[r] = r < rows ? _mm512_maskz_loadu_ps(mask, b + (size_t)(j + r) * ldb + p)
						   : _mm512_setzero_ps();
			transpose16(tile);
			for (int q = 0; q < depth; q++)
				_mm512_storeu_ps(strip + (size_t)(p + q) * NN_WIDTH, tile[q]);
		}
	}
	/* a strip's second half when columns ends in its first */
	if (columns % NN_WIDTH > 0 && columns % NN_WIDTH <= 16) {
		float *strip = packed + (size_t)(columns / NN_WIDTH) * NN_WIDTH * kc + 16;
		for (int p = 0; p < kc; p++)
			_mm512_storeu_ps(strip + (size_t)p * NN_WIDTH, _mm512_setzero_ps());
	}
}

static const struct av_strip_kernel nn_kernel = { nn_blocks, NN_ROWS, NN_WIDTH, pack_strips,
						  pack_strips_transposed };

void av_avx512_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate)
{
	_Alignas(64) float packed[AV_BLOCK_KC * AV_BLOCK_NC];
	av_strip_product(&nn_kernel, packed, c, ldc, a, lda, b, ldb, false, n, m, k, accumulate,
			 NULL, false);
}

void av_avx512_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate)
{
	_Alignas(64) float packed[AV_BLOCK_KC * AV_BLOCK_NC];
	if (n <= NT_DOT_MAX_ROWS)
		av_dot_blocks(nt_blocks, NT_ROWS, NT_COLS, c, ldc, a, lda, b, ldb, n, m, k,
			      accumulate);
	else
		av_strip_product(&nn_kernel, packed, c, ldc, a, lda, b, ldb, true, n, m, k,
				 accumulate, NULL, false);
}

void av_avx512_gemm_nt_kept(float *c, int ldc, const float *a, int lda, const float *b,
			    int ldb, int n, int m, int k, bool accumulate, struct av_packed *pk,
			    uint64_t stamp)
{
	if (n <= NT_DOT_MAX_ROWS || k <= 0 || stamp == 0) {
		av_avx512_gemm_nt(c, ldc, a, lda, b, ldb, n, m, k, accumulate);
		return;
	}
	size_t floats = av_strip_pack_size(&nn_kernel, m, k);
	bool full = pk->stamp == stamp && pk->floats == floats;
	if (pk->floats != floats) {
		free(pk->data);
		pk->data = av_malloc(floats * sizeof(float));
		pk->floats = floats;
	}
	av_strip_product(&nn_kernel, NULL, c, ldc, a, lda, b, ldb, true, n, m, k, accumulate,
			 pk->data, full);
	pk->stamp = stamp;
}

#else /* not x86-64 */

#include <stdlib.h>

bool av_avx512_usable(void)
{
	return false;
}

void av_avx512_gemm_nt(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb;
	(void)n, (void)m, (void)k, (void)accumulate;
	abort();
}

void av_avx512_gemm_nn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
		       int n, int m, int k, bool accumulate)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb;
	(void)n, (void)m, (void)k, (void)accumulate;
	abort();
}

void av_avx512_gemm_nt_kept(float *c, int ldc, const float *a, int lda, const float *b,
			    int ldb, int n, int m, int k, bool accumulate, struct av_packed *pk,
			    uint64_t stamp)
{
	(void)c, (void)ldc, (void)a, (void)lda, (void)b, (void)ldb;
	(void)n, (void)m, (void)k, (void)accumulate, (void)pk, (void)stamp;
	abort();
}

#endif
