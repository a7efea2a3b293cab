/* softmax_avx2.c: a softmax row in float32 by AVX2 and FMA (see
 * softmax_avx2.h). Compiled for AVX2+FMA by the target attribute alone (the
 * build assumes plain x86-64); run only where the CPU has them. */
#include "config.h"

#include "softmax_avx2.h"
#include "matmul_avx2.h"

#if defined(__x86_64__) && defined(__GNUC__)

#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define TARGET __attribute__((target("avx2,fma")))

/* lanes [0, count) on, for count in 0..8 */
TARGET static inline __m256i first_lanes(int count)
{
	static const int32_t ones_then_zeros[16] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - count));
}

/* e^x for x <= 0 (what a softmax meets after subtracting the max); 0 below
 * ln(FLT_MIN), where e^x would be subnormal. Cephes' expf: x = n ln2 + r,
 * |r| <= ln2 / 2 (ln2 in two parts, so r is exact), e^r by its degree-7
 * polynomial, times 2^n put straight into the exponent bits. */
TARGET static inline __m256 exp_nonpositive(__m256 x)
{
	const __m256 lowest = _mm256_set1_ps(-87.33654475f);
	__m256 in_range = _mm256_cmp_ps(x, lowest, _CMP_GE_OQ);
	x = _mm256_max_ps(x, lowest);
	__m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
				   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
	__m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
	__m256 p = _mm256_set1_ps(1.9875691500e-4f);
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
	p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
	__m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n),
							  _mm256_set1_epi32(127)), 23);
	return _mm256_and_ps(_mm256_mul_ps(p, _mm256_castsi256_ps(bits)), in_range);
}

/* two floats at p, in lanes 0 and 1 (the 64-bit load is declared for
 * any alignment and type; a double * would claim 8-byte alignment) */
TARGET static inline __m128 load_two(const float *p)
{
	return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)p));
}

TARGET static inline void store_two(float *p, __m128 v)
{
	_mm_storel_epi64((__m128i *)p, _mm_castps_si128(v));
}

/* p[0, count) in lanes [0, count), 0 in the others, for count in 1..7, by
 * plain loads of 4, 2 and 1 floats: AMD's CPUs take tens of cycles over a
 * masked store, and a 2-wide row's softmax is little more than that */
TARGET static inline __m128 load_few(const float *p, int count)
{
	switch (count) {
	case 1: return _mm_load_ss(p);
	case 2: return load_two(p);
	case 3: return _mm_movelh_ps(load_two(p), _mm_load_ss(p + 2));
	default: return _mm_setzero_ps();
	}
}

TARGET static inline __m256 load_first(const float *p, int count)
{
	if (count < 4)
		return _mm256_zextps128_ps256(load_few(p, count));
	return _mm256_set_m128(load_few(p + 4, count - 4), _mm_loadu_ps(p));
}

TARGET static inline void store_few(float *p, __m128 v, int count)
{
	switch (count) {
	case 1: _mm_store_ss(p, v); break;
	case 2: store_two(p, v); break;
	case 3: store_two(p, v); _mm_store_ss(p + 2, _mm_movehl_ps(v, v)); break;
	default: break;
	}
}

/* lanes [0, count) of v to p, count in 1..7 */
TARGET static inline void store_first(float *p, __m256 v, int count)
{
	if (count < 4) {
		store_few(p, _mm256_castps256_ps128(v), count);
		return;
	}
	_mm_storeu_ps(p, _mm256_castps256_ps128(v));
	store_few(p + 4, _mm256_extractf128_ps(v, 1), count - 4);
}

TARGET static inline float lane_sum(__m256 v)
{
	__m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
	s = _mm_add_ps(s, _mm_movehl_ps(s, s));
	s = _mm_add_ss(s, _mm_movehdup_ps(s));
	return _mm_cvtss_f32(s);
}

TARGET static bool softmax_row(float *out, const float *row, int cols)
{
	float max = -INFINITY;
	for (int j = 0; j < cols; j++) {
		if (isnan(row[j]) || row[j] == INFINITY)
			return false;
		if (row[j] > max)
			max = row[j];
	}
	if (max == -INFINITY)
		return false;
	__m256 vmax = _mm256_set1_ps(max), vsum = _mm256_setzero_ps();
	int j = 0;
	for (; j + 8 <= cols; j += 8) {
		__m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(row + j), vmax));
		_mm256_storeu_ps(out + j, e);
		vsum = _mm256_add_ps(vsum, e);
	}
	/* the last partial block stays in a register until it is scaled
	 * (reloading what was just stored in pieces waits for the stores) */
	int left = cols - j;
	__m256 tail = _mm256_setzero_ps();
	if (left) {
		tail = exp_nonpositive(_mm256_sub_ps(load_first(row + j, left), vmax));
		tail = _mm256_and_ps(tail, _mm256_castsi256_ps(first_lanes(left)));
		vsum = _mm256_add_ps(vsum, tail);
	}
	__m256 scale = _mm256_set1_ps(1.0f / lane_sum(vsum));
	for (j = 0; j + 8 <= cols; j += 8)
		_mm256_storeu_ps(out + j, _mm256_mul_ps(_mm256_loadu_ps(out + j), scale));
	if (left)
		store_first(out + j, _mm256_mul_ps(tail, scale), left);
	return true;
}

bool av_softmax_row_avx2(float *out, const float *row, int cols)
{
	return cols > 0 && av_avx2_usable() && softmax_row(out, row, cols);
}

#else

bool av_softmax_row_avx2(float *out, const float *row, int cols)
{
	(void)out, (void)row, (void)cols;
	return false;
}

#endif
