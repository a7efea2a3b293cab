/* bench_gpt2.c: how fast --model is (`make bench-gpt2 MODEL=DIR`; not part of
 * make check). DIR is a GPT-2 directory, e.g. random weights of gpt2's size
 * from tools/make-random-gpt2.py. Times with CLOCK_MONOTONIC:
 *   - av_gpt2_load (mmap, header checks, the tokenizer; no weight is read):
 *     the best of 5 loads;
 *   - av_gpt2_forward over 32 tokens (ids i * 997 mod 50257, the same as
 *     tools/bench-gpt2-torch.py uses): the median of 7 runs after one
 *     warm-up, reusing one run (as PyTorch reuses its allocator's blocks);
 *     and the same into a fresh run each time, as the screen's worker does
 *     (the arrays of the run freed last are taken again: gpt2.c's spare);
 * and prints the top next token, so the torch script's can be compared, and
 * the process's memory from /proc/self/smaps_rollup: Rss counts the mapped
 * file's pages, which every student on a server shares; Private_Dirty is
 * what each extra student costs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/gpt2.h"

#define TOKENS 32

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rss and Private_Dirty of this process in kB (Linux), or -1. */
static void memory(long *rss, long *private_dirty)
{
	*rss = *private_dirty = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Rss: %ld kB", rss);
		sscanf(line, "Private_Dirty: %ld kB", private_dirty);
	}
	fclose(f);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bench_gpt2 MODEL_DIR\n");
		return 2;
	}
	struct av_gpt2 m;
	char *cause = NULL;
	double best = 1e9;
	for (int i = 0; i < 5; i++) {
		double t0 = now();
		if (!av_gpt2_load(&m, argv[1], &cause)) {
			fprintf(stderr, "bench_gpt2: %s\n", cause);
			return 2;
		}
		double dt = now() - t0;
		best = dt < best ? dt : best;
		if (i < 4)
			av_gpt2_free(&m);
	}
	printf("load %s (%d layers, width %d): %.3f s (best of 5)\n", argv[1], m.cfg.n_layer,
	       m.cfg.n_embd, best);
	int ids[TOKENS];
	for (int i = 0; i < TOKENS; i++)
		ids[i] = (i * 997) % m.cfg.n_vocab;
	struct av_gpt2_run r = { 0 };
	double times[7];
	av_gpt2_forward(&m, ids, TOKENS, &r, &cause);   /* warm-up: pages in */
	for (int i = 0; i < 7; i++) {
		double t0 = now();
		av_gpt2_forward(&m, ids, TOKENS, &r, &cause);
		times[i] = now() - t0;
	}
	qsort(times, 7, sizeof(times[0]), by_value);
	int top;
	double p;
	av_gpt2_top_k(&r, TOKENS - 1, 1, &top, &p);
	printf("forward of %d tokens: %.3f s (median of 7); next token %d (p %.4f)\n", TOKENS,
	       times[3], top, p);
	long rss, dirty;
	memory(&rss, &dirty);
	printf("memory after the forward: Rss %ld MB (the mapped file's pages, shared), "
	       "Private_Dirty %ld MB (each process's own)\n", rss / 1024, dirty / 1024);
	for (int i = 0; i < 7; i++) {
		struct av_gpt2_run fresh = { 0 };
		double t0 = now();
		av_gpt2_forward(&m, ids, TOKENS, &fresh, &cause);
		times[i] = now() - t0;
		av_gpt2_run_free(&fresh);
	}
	qsort(times, 7, sizeof(times[0]), by_value);
	printf("forward of %d tokens into a fresh run: %.3f s (median of 7)\n", TOKENS, times[3]);
	memory(&rss, &dirty);
	printf("memory with a run and the spare freed run (the screen between edits): "
	       "Private_Dirty %ld MB\n", dirty / 1024);
	av_gpt2_run_free(&r);
	av_gpt2_free(&m);
	return 0;
}
