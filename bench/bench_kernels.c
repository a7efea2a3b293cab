/* bench_kernels.c: GFLOP/s of each matrix kernel on the shapes attnview
 * multiplies (`make bench` runs it before the engine's cases).
 *
 * For each shape (n rows of a, m columns of c, k), both layouts of b:
 *   nt  c = a . b^T, b (m, k): nn.Linear's weight, Q K^T, GPT-2's logits;
 *   nn  c = a . b,   b (k, m): GPT-2's Conv1D weights, weights . V;
 * by av_matmul_nt/nn as the program calls them (the route matmul.c picks),
 * by the AVX-512 kernels, the AVX2 ones and OpenBLAS alone, where each
 * exists. This is how matmul.c's choose_kernel was made. The same operands are
 * multiplied over and over, so b is warm in the caches as far as it fits:
 * GPT-2's weights (2 to 150 MB) still come from memory. Times are this
 * thread's CPU time, the fastest of ROUNDS rounds. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "matmul.h"
#include "matmul_avx2.h"
#include "matmul_avx512.h"
#if HAVE_BLAS
#include <cblas.h>
#endif

#define ROUNDS 3
#define ROUND_SECONDS 0.05

struct product {
	int n, m, k;
	const float *a, *b;
	float *c;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float *filled(size_t count)
{
	float *m = malloc(count * sizeof(float));
	if (!m) {
		perror("bench_kernels");
		exit(1);
	}
	for (size_t i = 0; i < count; i++)
		m[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
	return m;
}

typedef void kernel_fn(const struct product *p, bool transposed);

static void by_route(const struct product *p, bool t)
{
	if (t)
		av_matmul_nt(p->c, p->m, p->a, p->k, p->b, p->k, p->n, p->m, p->k);
	else
		av_matmul_nn(p->c, p->m, p->a, p->k, p->b, p->m, p->n, p->m, p->k);
}

static void by_avx512(const struct product *p, bool t)
{
	if (t)
		av_avx512_gemm_nt(p->c, p->m, p->a, p->k, p->b, p->k, p->n, p->m, p->k, false);
	else
		av_avx512_gemm_nn(p->c, p->m, p->a, p->k, p->b, p->m, p->n, p->m, p->k, false);
}

static void by_avx2(const struct product *p, bool t)
{
	if (t)
		av_avx2_gemm_nt(p->c, p->m, p->a, p->k, p->b, p->k, p->n, p->m, p->k, false);
	else
		av_avx2_gemm_nn(p->c, p->m, p->a, p->k, p->b, p->m, p->n, p->m, p->k, false);
}

#if HAVE_BLAS
static void by_blas(const struct product *p, bool t)
{
	cblas_sgemm(CblasRowMajor, CblasNoTrans, t ? CblasTrans : CblasNoTrans, p->n, p->m,
		    p->k, 1.0f, p->a, p->k, p->b, t ? p->k : p->m, 0.0f, p->c, p->m);
}
#endif

/* GFLOP/s of the fastest round */
static double gflops(kernel_fn *fn, const struct product *p, bool t)
{
	double best = 0;
	for (int r = 0; r < ROUNDS; r++) {
		long calls = 0;
		double start = now(), elapsed;
		do {
			fn(p, t);
			calls++;
		} while ((elapsed = now() - start) < ROUND_SECONDS);
		double rate = 2.0 * p->n * p->m * p->k * calls / elapsed * 1e-9;
		if (rate > best)
			best = rate;
	}
	return best;
}

int main(void)
{
	static const struct {
		int n, m, k;
		const char *what;
	} shapes[] = {
		{ 5, 512, 512, "qkv-walkthrough's projections, 5 tokens" },
		{ 16, 512, 512, "16 tokens" },
		{ 64, 512, 512, "64 tokens" },
		{ 128, 512, 512, "128 tokens" },
		{ 1024, 2304, 768, "GPT-2 c_attn, 1024 tokens" },
		{ 64, 64, 64, "one head: Q_h K_h^T, weights V_h" },
		{ 32, 2304, 768, "GPT-2 c_attn, 32 tokens" },
		{ 32, 3072, 768, "GPT-2 c_fc" },
		{ 32, 768, 3072, "GPT-2 mlp c_proj" },
		{ 32, 50257, 768, "GPT-2 logits" },
	};
	bool avx2 = av_avx2_usable(), avx512 = av_avx512_usable();
#if HAVE_OPENBLAS_SET_NUM_THREADS
	openblas_set_num_threads(1); /* as matmul.c does; this thread's CPU time counts */
#endif
	printf("matrix kernels, GFLOP/s (fastest of %d rounds); route: what attnview uses "
	       "(%s)\n", ROUNDS, av_matmul_backend());
	printf("%-5s %-5s %-5s  %-6s %6s %6s %6s %6s\n", "n", "m", "k", "layout", "route",
	       "AVX512", "AVX2", "BLAS");
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		struct product p = { shapes[s].n, shapes[s].m, shapes[s].k, NULL, NULL, NULL };
		float *a = filled((size_t)p.n * p.k), *b = filled((size_t)p.m * p.k);
		float *c = filled((size_t)p.n * p.m);
		p.a = a, p.b = b, p.c = c;
		for (int t = 1; t >= 0; t--) {
			printf("%-5d %-5d %-5d  %-6s %6.1f", p.n, p.m, p.k, t ? "nt" : "nn",
			       gflops(by_route, &p, t));
			if (avx512)
				printf(" %6.1f", gflops(by_avx512, &p, t));
			else
				printf(" %6s", "-");
			if (avx2)
				printf(" %6.1f", gflops(by_avx2, &p, t));
			else
				printf(" %6s", "-");
#if HAVE_BLAS
			printf(" %6.1f", gflops(by_blas, &p, t));
#else
			printf(" %6s", "-");
#endif
			printf("  %s\n", t ? shapes[s].what : "");
		}
		free(a);
		free(b);
		free(c);
	}
	return 0;
}
