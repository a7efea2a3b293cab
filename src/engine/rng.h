/* rng.h: a small, documented, portable random generator.
 *
 * PCG32 (M. E. O'Neill, "PCG: A Family of Simple Fast Space-Efficient
 * Statistically Good Algorithms for Random Number Generation", 2014), the
 * pcg32_srandom_r / pcg32_random_r pair with 64-bit state and a stream
 * selector. Only integer arithmetic, so the stream of 32-bit values is
 * identical on every machine.
 *
 * Floats are derived with exact integer-to-double conversions; the normal
 * distribution uses Box-Muller in double precision and the caller rounds to
 * float (see model.c for the documented draw order). */
#ifndef AV_RNG_H
#define AV_RNG_H

#include <stddef.h>
#include <stdint.h>

struct av_rng {
	uint64_t state;
	uint64_t inc;
	int have_spare;     /* Box-Muller makes two normals at a time */
	double spare;
};

/* Seeds the generator: pcg32_srandom_r(seed, stream). */
void av_rng_seed(struct av_rng *rng, uint64_t seed, uint64_t stream);

/* The next 32 random bits. */
uint32_t av_rng_u32(struct av_rng *rng);

/* Uniform in [0, 1) with 53 random bits (two draws: 27 high, 26 low). */
double av_rng_uniform(struct av_rng *rng);

/* Uniform in [lo, hi). */
double av_rng_range(struct av_rng *rng, double lo, double hi);

/* Standard normal, Box-Muller: u1 in (0,1], u2 in [0,1),
 * r = sqrt(-2 ln u1); returns r cos(2 pi u2), then r sin(2 pi u2). */
double av_rng_normal(struct av_rng *rng);

/* 64-bit FNV-1a of a NUL-terminated string, starting from basis h
 * (use AV_FNV_BASIS for a fresh hash). */
#define AV_FNV_BASIS UINT64_C(0xcbf29ce484222325)
uint64_t av_fnv1a(const char *s, uint64_t h);
/* The same over size bytes of data. */
uint64_t av_fnv1a_bytes(const void *data, size_t size, uint64_t h);

#endif
