/* rng.c: PCG32 and the distributions built on it (see rng.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rng.h"

#define PCG_MULT UINT64_C(6364136223846793005)

void av_rng_seed(struct av_rng *rng, uint64_t seed, uint64_t stream)
{
	/* pcg32_srandom_r */
	rng->state = 0;
	rng->inc = (stream << 1) | 1u;
	rng->have_spare = 0;
	rng->spare = 0;
	av_rng_u32(rng);
	rng->state += seed;
	av_rng_u32(rng);
}

uint32_t av_rng_u32(struct av_rng *rng)
{
	/* pcg32_random_r: XSH RR output of the previous state */
	uint64_t old = rng->state;
	rng->state = old * PCG_MULT + rng->inc;
	uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
	uint32_t rot = (uint32_t)(old >> 59u);
	return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

double av_rng_uniform(struct av_rng *rng)
{
	uint32_t hi = av_rng_u32(rng) >> 5;   /* 27 bits */
	uint32_t lo = av_rng_u32(rng) >> 6;   /* 26 bits */
	return ((double)hi * 67108864.0 + (double)lo) * (1.0 / 9007199254740992.0);
}

double av_rng_range(struct av_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * av_rng_uniform(rng);
}

double av_rng_normal(struct av_rng *rng)
{
	if (rng->have_spare) {
		rng->have_spare = 0;
		return rng->spare;
	}
	double u1 = 1.0 - av_rng_uniform(rng);   /* (0, 1]: log is finite */
	double u2 = av_rng_uniform(rng);
	double r = sqrt(-2.0 * log(u1));
	double theta = 6.283185307179586 * u2;
	rng->spare = r * sin(theta);
	rng->have_spare = 1;
	return r * cos(theta);
}

uint64_t av_fnv1a(const char *s, uint64_t h)
{
	return av_fnv1a_bytes(s, strlen(s), h);
}

uint64_t av_fnv1a_bytes(const void *data, size_t size, uint64_t h)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < size; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}
