/* bench.c: how fast the engine is (`make bench`; not part of make check).
 *
 * Each case runs ROUNDS rounds, each repeated until it has run for at least
 * ROUND_SECONDS of this thread's CPU time (clock_gettime(
 * CLOCK_THREAD_CPUTIME_ID): on a shared server the wall clock counts other
 * people's processes too; the matrix products run on this one thread), and
 * reports the fastest round's time per iteration, the time the code needs
 * when nothing else gets in its way. Cases:
 *   - the forward pass (av_trace_forward) at the china-panda sample's size
 *     (D=3, H=1, its 4-token sentence); at the qkv-walkthrough's (D=512,
 *     H=8, with biases) for its 5-token sentence and for 64 tokens; and at
 *     D=64, H=4 for 16 tokens; with GFLOP/s (the four projections'
 *     2 n D^2 each plus the heads' 4 n m D);
 *   - the mask toggle (only the stages from the mask on);
 *   - one training epoch (av_trainer_epoch: forward, loss, backward and
 *     Adam for each corpus sentence) of china-panda, and 200 of them from the
 *     start as the lesson runs them; one epoch of qkv-walkthrough (D=512).
 * Each case also prints a line "#case KEY SECONDS" that
 * bench/torch_compare.py reads to put PyTorch's time beside it.
 *
 *     bench/bench_attention [PREFIX...]
 *
 * runs only the cases whose KEY starts with one of the PREFIXes (e.g.
 * `forward_d512 epoch_qkv`), to profile or compare one case at a time. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdbool.h>

#include "attention.h"
#include "matmul.h"
#include "sample.h"
#include "session.h"
#include "train.h"
#include "util.h"

#define ROUNDS 5
#define ROUND_SECONDS 0.1

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *pretty(double seconds, double *scaled)
{
	if (seconds < 1e-3) {
		*scaled = seconds * 1e6;
		return "us";
	}
	if (seconds < 1) {
		*scaled = seconds * 1e3;
		return "ms";
	}
	*scaled = seconds;
	return "s";
}

/* The case prefixes given on the command line; none: every case. */
static char **selected;
static int n_selected;

static bool wanted(const char *key)
{
	for (int i = 0; i < n_selected; i++)
		if (strncmp(key, selected[i], strlen(selected[i])) == 0)
			return true;
	return n_selected == 0;
}

/* Prints the time per iteration (and GFLOP/s when flops > 0). */
static void report(const char *key, const char *what, double per, double flops)
{
	double scaled;
	const char *unit = pretty(per, &scaled);
	printf("%-50s %9.3f %-2s", what, scaled, unit);
	if (flops > 0)
		printf("  %6.1f GFLOP/s", flops / per * 1e-9);
	printf("\n#case %s %.9g\n", key, per);
	fflush(stdout);
}

/* One case: the fastest of ROUNDS rounds, in seconds per call of fn. */
typedef void case_fn(void *arg);
static double best_time(case_fn *fn, void *arg)
{
	double best = 0;
	for (int r = 0; r < ROUNDS; r++) {
		long iterations = 0;
		double start = now(), elapsed;
		do {
			fn(arg);
			iterations++;
		} while ((elapsed = now() - start) < ROUND_SECONDS);
		double per = elapsed / (double)iterations;
		if (r == 0 || per < best)
			best = per;
	}
	return best;
}

static void die(const char *what, char *cause)
{
	fprintf(stderr, "bench: %s: %s\n", what, cause ? cause : "error");
	free(cause);
	exit(1);
}

/* The session of a sample (its config, fresh parameters, its sentence);
 * d_model and heads other than the sample's when not 0. */
static void load_session(struct av_session *s, const char *name, const char *sentence,
			 int d_model, int heads)
{
	char *cause = NULL;
	memset(s, 0, sizeof(*s));
	bool ok = strcmp(name, "china-panda") == 0 ? av_sample_load_builtin(&s->sample, &cause)
						   : av_sample_load(name, &s->sample, &cause);
	if (!ok)
		die(name, cause);
	s->cfg = s->sample.cfg;
	if (d_model) {
		s->cfg.d_model = d_model;
		s->cfg.heads = heads;
	}
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(sentence ? sentence : s->sample.sentence);
	s->source = s->sample.source ? av_strdup(s->sample.source) : NULL;
	s->keeps_copies = true;   /* as the screen's, run again at each key */
	if (!av_session_run(s, &cause))
		die(name, cause);
}

static void forward_once(void *arg)
{
	struct av_session *s = arg;
	av_trace_forward(&s->trace, &s->params, &s->cfg);
}

static void bench_forward(const char *key, const char *what, struct av_session *s)
{
	if (!wanted(key))
		return;
	double n = s->trace.n, m = s->trace.m, D = s->trace.d_model;
	double flops = 2 * n * D * D * 2 + 2 * m * D * D * 2 + 4 * n * m * D;
	report(key, what, best_time(forward_once, s), flops);
}

/* What the screen does on m: the causal mask toggled, only the stages from
 * the mask on recomputed (av_session_reattend). */
static void toggle_once(void *arg)
{
	struct av_session *s = arg;
	char *cause = NULL;
	s->cfg.mode = s->cfg.mode == AV_MODE_SELF ? AV_MODE_CAUSAL : AV_MODE_SELF;
	if (!av_session_reattend(s, &cause))
		die("reattend", cause);
}

static void bench_mask_toggle(const char *key, const char *what, struct av_session *s)
{
	if (!wanted(key))
		return;
	report(key, what, best_time(toggle_once, s), 0);
}

static struct av_trainer *trainer(const struct av_session *s)
{
	struct av_train_settings set;
	char *cause = NULL;
	av_train_settings_from_sample(&set, &s->sample.training);
	struct av_trainer *tr = av_trainer_new(s, &set, &cause);
	if (!tr)
		die("trainer", cause);
	return tr;
}

static void epoch_once(void *arg)
{
	av_trainer_epoch(arg);
}

static void bench_epoch(const char *key, const char *what, const struct av_session *s)
{
	if (!wanted(key))
		return;
	struct av_trainer *tr = trainer(s);
	report(key, what, best_time(epoch_once, tr), 0);
	av_trainer_free(tr);
}

struct lesson {
	struct av_trainer *tr;
	int epochs;
};

static void lesson_once(void *arg)
{
	struct lesson *l = arg;
	av_trainer_reset(l->tr);
	for (int e = 0; e < l->epochs; e++)
		av_trainer_epoch(l->tr);
}

static void bench_lesson(const char *key, const char *what, const struct av_session *s,
			 int epochs)
{
	if (!wanted(key))
		return;
	struct lesson l = { trainer(s), epochs };
	double per = best_time(lesson_once, &l);
	report(key, what, per, 0);
	double scaled;
	const char *unit = pretty(per / epochs, &scaled);
	printf("%-50s %9.3f %-2s per epoch (loss %.4g -> %.4g)\n", "", scaled, unit,
	       l.tr->loss[0], l.tr->loss[epochs - 1]);
	av_trainer_free(l.tr);
}

/* "w0 w1 ... w(n-1)" */
static void words(char *out, size_t size, int n)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		char w[12];
		snprintf(w, sizeof(w), "%sw%d", i ? " " : "", i);
		strncat(out, w, size - strlen(out) - 1);
	}
}

int main(int argc, char **argv)
{
	selected = argv + 1;
	n_selected = argc - 1;
	struct av_session cp, qkv, qkv64, small16;
	char w64[64 * 8], w16[16 * 8];
	words(w64, sizeof(w64), 64);
	words(w16, sizeof(w16), 16);
	load_session(&cp, "china-panda", NULL, 0, 0);
	load_session(&qkv, "qkv-walkthrough", NULL, 0, 0);
	load_session(&qkv64, "qkv-walkthrough", w64, 0, 0);
	load_session(&small16, "qkv-walkthrough", w16, 64, 4);

	printf("attnview engine benchmark: matrix products by %s; fastest of %d rounds of "
	       "%g s or more\n", av_matmul_backend(), ROUNDS, ROUND_SECONDS);
	bench_forward("forward_d3_n4", "forward, china-panda (D=3, H=1, n=4)", &cp);
	bench_forward("forward_d512_n5", "forward, D=512, H=8, n=5 (qkv-walkthrough)", &qkv);
	bench_forward("forward_d512_n64", "forward, D=512, H=8, n=64", &qkv64);
	bench_forward("forward_d64_n16", "forward, D=64, H=4, n=16", &small16);
	bench_mask_toggle("toggle_d512_n5", "mask toggle (reattend), D=512, H=8, n=5", &qkv);
	bench_mask_toggle("toggle_d512_n64", "mask toggle (reattend), D=512, H=8, n=64", &qkv64);
	bench_epoch("epoch_cp", "training epoch, china-panda (3 sentences, Adam)", &cp);
	bench_lesson("lesson_cp_200", "200 epochs of china-panda from the start", &cp, 200);
	bench_epoch("epoch_qkv", "training epoch, qkv-walkthrough (D=512, n=5)", &qkv);

	av_session_free(&cp);
	av_session_free(&qkv);
	av_session_free(&qkv64);
	av_session_free(&small16);
	return 0;
}
