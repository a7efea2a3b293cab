/* test_rng.c: the generator's fixed values. If one of these changes, every
 * "use seed 7" in every classroom changes with it. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rng.h"

/* pcg32-demo (pcg-c-basic) prints these for pcg32_srandom_r(42, 54) */
static void test_pcg32_reference_stream(void **state)
{
	(void)state;
	const uint32_t expected[] = { 0xa15c02b7, 0x7b47f409, 0xba1d3330,
				      0x83d2f293, 0xbfa4784b, 0xcbed606e };
	struct av_rng rng;
	av_rng_seed(&rng, 42, 54);
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		assert_int_equal(av_rng_u32(&rng), expected[i]);
}

static void test_uniform_and_normal_fixed_values(void **state)
{
	(void)state;
	struct av_rng rng;
	av_rng_seed(&rng, 1, 2);
	assert_true(av_rng_uniform(&rng) == 0.060026864400165469);
	assert_true(fabs(av_rng_normal(&rng) - 1.0247425897964666) < 1e-15);
	assert_true(fabs(av_rng_normal(&rng) - 1.1549827855421815) < 1e-15);
}

static void test_same_seed_same_stream(void **state)
{
	(void)state;
	struct av_rng a, b, c;
	av_rng_seed(&a, 7, 3);
	av_rng_seed(&b, 7, 3);
	av_rng_seed(&c, 7, 4);
	int differs = 0;
	for (int i = 0; i < 100; i++) {
		uint32_t x = av_rng_u32(&a);
		assert_int_equal(x, av_rng_u32(&b));
		differs += x != av_rng_u32(&c);
	}
	assert_true(differs > 90);
}

static void test_uniform_range_and_moments(void **state)
{
	(void)state;
	struct av_rng rng;
	av_rng_seed(&rng, 123, 0);
	double sum = 0, sumsq = 0, nsum = 0, nsumsq = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		double u = av_rng_uniform(&rng);
		assert_true(u >= 0.0 && u < 1.0);
		sum += u;
		sumsq += u * u;
		double z = av_rng_normal(&rng);
		assert_true(isfinite(z));
		nsum += z;
		nsumsq += z * z;
	}
	assert_true(fabs(sum / n - 0.5) < 0.005);
	assert_true(fabs(sumsq / n - 1.0 / 3.0) < 0.005);
	assert_true(fabs(nsum / n) < 0.01);
	assert_true(fabs(nsumsq / n - 1.0) < 0.02);
	for (int i = 0; i < 1000; i++) {
		double r = av_rng_range(&rng, -0.5, 0.25);
		assert_true(r >= -0.5 && r < 0.25);
	}
}

static void test_fnv1a_known_values(void **state)
{
	(void)state;
	/* FNV-1a 64 test vectors */
	assert_true(av_fnv1a("", AV_FNV_BASIS) == UINT64_C(0xcbf29ce484222325));
	assert_true(av_fnv1a("a", AV_FNV_BASIS) == UINT64_C(0xaf63dc4c8601ec8c));
	assert_true(av_fnv1a("foobar", AV_FNV_BASIS) == UINT64_C(0x85944171f73967e8));
	/* chaining equals hashing the concatenation */
	assert_true(av_fnv1a("bar", av_fnv1a("foo", AV_FNV_BASIS)) ==
		    av_fnv1a("foobar", AV_FNV_BASIS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcg32_reference_stream),
		cmocka_unit_test(test_uniform_and_normal_fixed_values),
		cmocka_unit_test(test_same_seed_same_stream),
		cmocka_unit_test(test_uniform_range_and_moments),
		cmocka_unit_test(test_fnv1a_known_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
