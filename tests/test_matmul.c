/* test_matmul.c: attnview's own kernels (src/engine/matmul_avx2.c and
 * matmul_avx512.c) against a double-precision product, over every tail of
 * their register blocks and cache blocks. Each test runs once per kernel
 * set the CPU has (skipped where it has neither).
 *
 * Each operand lives in a strided buffer whose padding (past k or m in
 * each row) holds NaN, so a kernel that multiplies anything outside the
 * matrix gets NaN; the padding of c holds a sentinel that must survive. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "matmul.h"
#include "matmul_avx2.h"
#include "matmul_avx512.h"

typedef void product_fn(float *c, int ldc, const float *a, int lda, const float *b, int ldb,
			int n, int m, int k, bool accumulate);
struct kernels {
	const char *name;
	bool (*usable)(void);
	product_fn *nt, *nn;
};
static const struct kernels kernel_sets[] = {
	{ "avx2", av_avx2_usable, av_avx2_gemm_nt, av_avx2_gemm_nn },
	{ "avx512", av_avx512_usable, av_avx512_gemm_nt, av_avx512_gemm_nn },
};
#define N_SETS (sizeof(kernel_sets) / sizeof(kernel_sets[0]))
static const struct kernels *kernels; /* the set under test */

#define SENTINEL 12345.0f

/* a deterministic pseudo-random float in [-1, 1) */
static float next_value(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

/* rows x cols in a buffer of rows x ld; the rest NaN */
static float *strided(int rows, int cols, int ld, uint32_t *state)
{
	float *m = malloc((size_t)rows * ld * sizeof(float));
	assert_non_null(m);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < ld; c++)
			m[(size_t)r * ld + c] = c < cols ? next_value(state) : NAN;
	return m;
}

/* checks c (n, m) against c0 (when accumulate) + a . op(b), summed in double */
static void check_product(bool transposed, const float *c, const float *c0, int ldc,
			  const float *a, int lda, const float *b, int ldb, int n, int m, int k,
			  bool accumulate)
{
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < m; j++) {
			double sum = 0, magnitude = 0;
			for (int p = 0; p < k; p++) {
				double bv = transposed ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j];
				sum += (double)a[(size_t)i * lda + p] * bv;
				magnitude += fabs((double)a[(size_t)i * lda + p] * bv);
			}
			if (accumulate) {
				sum += c0[(size_t)i * ldc + j];
				magnitude += fabs(c0[(size_t)i * ldc + j]);
			}
			double got = c[(size_t)i * ldc + j];
			if (!(fabs(got - sum) <= 1e-6 * (magnitude + 1) * (k + 1)))
				fail_msg("%s %s n=%d m=%d k=%d acc=%d: c[%d][%d] = %.9g, want %.9g",
					 kernels ? kernels->name : "av_matmul", transposed ? "nt" : "nn",
					 n, m, k, accumulate, i, j, got, sum);
		}
		for (int j = m; j < ldc; j++)
			if (c[(size_t)i * ldc + j] != SENTINEL)
				fail_msg("%s %s n=%d m=%d k=%d: wrote past column %d of row %d",
					 kernels ? kernels->name : "av_matmul", transposed ? "nt" : "nn",
					 n, m, k, m, i);
	}
}

static void one_case(bool transposed, int n, int m, int k, bool accumulate, uint32_t *state)
{
	int lda = k + 3, ldb = transposed ? k + 5 : m + 5, ldc = m + 2;
	float *a = strided(n, k, lda, state);
	float *b = transposed ? strided(m, k, ldb, state) : strided(k, m, ldb, state);
	float *c = strided(n, m, ldc, state), *c0 = malloc((size_t)n * ldc * sizeof(float));
	assert_non_null(c0);
	for (size_t i = 0; i < (size_t)n * ldc; i++)
		if (isnan(c[i]))
			c[i] = SENTINEL;
	memcpy(c0, c, (size_t)n * ldc * sizeof(float));
	(transposed ? kernels->nt : kernels->nn)(c, ldc, a, lda, b, ldb, n, m, k, accumulate);
	check_product(transposed, c, c0, ldc, a, lda, b, ldb, n, m, k, accumulate);
	free(a);
	free(b);
	free(c);
	free(c0);
}

/* runs each_set(seed) for every kernel set the CPU has; skips if none */
static void for_each_set(void (*each_set)(uint32_t *seed), uint32_t seed)
{
	int ran = 0;
	for (size_t i = 0; i < N_SETS; i++) {
		if (!kernel_sets[i].usable())
			continue;
		kernels = &kernel_sets[i];
		each_set(&seed);
		ran++;
	}
	kernels = NULL;
	if (!ran)
		skip();
}

static void every_tail(uint32_t *seed)
{
	static const int ks[] = { 1, 2, 7, 8, 9, 15, 16, 17, 31, 33 };
	for (int t = 0; t < 2; t++)
		for (int n = 1; n <= 19; n++)
			for (int m = 1; m <= 35; m++)
				for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
					one_case(t == 1, n, m, ks[ki], (n + m) % 2 == 0, seed);
}

/* every row and column tail of the blocks (AVX2: 4 x 3 dot products and
 * 6 x 16 columns, 8 per vector; AVX-512: 4 x 4, 8 x 32, 16 per vector,
 * b^T packed from 17 rows on), k around multiples of 8 and 16 */
static void test_every_tail(void **state)
{
	(void)state;
	for_each_set(every_tail, 1);
}

/* past the cache blocks: nn packs b when it has more than 6 rows, in blocks
 * of 128 rows by 256 columns; nt takes b in chunks of about 96 KiB */
static void past_the_cache_blocks(uint32_t *seed)
{
	static const int shapes[][3] = {
		{ 5, 300, 260 }, { 20, 300, 260 }, { 7, 513, 129 }, { 33, 257, 128 },
		{ 64, 70, 700 }, { 96, 40, 1030 }, { 2, 1000, 33 }, { 40, 290, 300 },
	};
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (int t = 0; t < 2; t++)
			for (int acc = 0; acc < 2; acc++)
				one_case(t == 1, shapes[s][0], shapes[s][1], shapes[s][2], acc,
					 seed);
}

static void test_past_the_cache_blocks(void **state)
{
	(void)state;
	for_each_set(past_the_cache_blocks, 7);
}

/* a weight whose rows lie a multiple of 4 KiB apart (GPT-2's c_fc), the
 * case the packing is for */
static void rows_4k_apart(uint32_t *seed)
{
	one_case(false, 12, 1024 - 5, 70, false, seed); /* ldb = 1024 */
	one_case(true, 40, 70, 1024 - 5, false, seed);
}

static void test_rows_4k_apart(void **state)
{
	(void)state;
	for_each_set(rows_4k_apart, 3);
}

/* av_matmul chooses a kernel by shape; every choice gives the product */
static void test_av_matmul_every_route(void **state)
{
	(void)state;
	uint32_t seed = 11;
	static const int shapes[][3] = { { 1, 4, 3 }, { 5, 64, 64 }, { 20, 100, 50 },
					 { 64, 128, 96 }, { 130, 40, 30 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = shapes[s][0], out = shapes[s][1], in = shapes[s][2];
		float *x = strided(n, in, in, &seed), *w = strided(out, in, in, &seed);
		float *bias = strided(1, out, out, &seed), *y = malloc((size_t)n * out * 4);
		float *with_bias = malloc((size_t)n * out * 4);
		assert_non_null(y);
		assert_non_null(with_bias);
		for (int i = 0; i < n; i++)
			memcpy(with_bias + (size_t)i * out, bias, (size_t)out * 4);
		av_matmul(y, x, w, bias, n, in, out, AV_W_OUT_IN);
		check_product(true, y, with_bias, out, x, in, w, in, n, out, in, true);
		free(x);
		free(w);
		free(bias);
		free(y);
		free(with_bias);
	}
}

/* av_matmul_kept gives av_matmul's bits, with the copy of W^T kept
 * between products while the stamp stays (shapes past 16 rows, where the
 * AVX-512 kernel copies it; a width off its strips and past a cache
 * block), made anew for a new stamp, and never kept for stamp 0. */
static void test_matmul_kept(void **state)
{
	(void)state;
	uint32_t seed = 23;
	static const int shapes[][3] = { { 5, 64, 64 }, { 17, 300, 130 }, { 64, 96, 512 },
					 { 40, 270, 260 } };
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		int n = shapes[s][0], out = shapes[s][1], in = shapes[s][2];
		size_t cells = (size_t)n * out;
		float *x = strided(n, in, in, &seed), *w = strided(out, in, in, &seed);
		float *bias = strided(1, out, out, &seed);
		float *want = malloc(cells * 4), *got = malloc(cells * 4);
		assert_non_null(want);
		assert_non_null(got);
		struct av_packed pk = { 0 };
		for (int round = 0; round < 3; round++) {
			/* round 1: the same values again; round 2: W changed in
			 * place, and so its stamp */
			if (round == 2)
				for (size_t c = 0; c < (size_t)out * in; c += 7)
					w[c] = -w[c];
			uint64_t stamp = round < 2 ? 5 : 6;
			av_matmul(want, x, w, bias, n, in, out, AV_W_OUT_IN);
			av_matmul_kept(got, x, w, bias, n, in, out, &pk, stamp);
			assert_memory_equal(got, want, cells * 4);
			if (pk.data)
				assert_int_equal(pk.stamp, stamp);
#if HAVE_BLAS
			/* what the AVX-512 route copies is kept */
			if (av_avx512_usable() && n > 16)
				assert_non_null(pk.data);
#endif
		}
		av_packed_free(&pk);
		av_matmul_kept(got, x, w, NULL, n, in, out, &pk, 0);
		av_matmul(want, x, w, NULL, n, in, out, AV_W_OUT_IN);
		assert_memory_equal(got, want, cells * 4);
		assert_null(pk.data);
		free(x);
		free(w);
		free(bias);
		free(want);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_tail),
		cmocka_unit_test(test_past_the_cache_blocks),
		cmocka_unit_test(test_rows_4k_apart),
		cmocka_unit_test(test_av_matmul_every_route),
		cmocka_unit_test(test_matmul_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
