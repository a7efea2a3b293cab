/* bench.c: how fast the engine is (`make bench`; not part of make check).
 *
 * Times, with clock_gettime(CLOCK_MONOTONIC), each case repeated until it
 * has run for at least MIN_SECONDS:
 *   - the forward pass (av_trace_forward) at the china-panda sample's size
 *     (D=3, H=1, its 4-token sentence) and at the qkv-walkthrough's (D=512,
 *     H=8, with biases) for its 5-token sentence and for 64 tokens;
 *   - one training epoch (av_trainer_epoch: forward, loss, backward and
 *     Adam for each corpus sentence) of china-panda, and 200 of them from the
 *     start as the lesson runs them;
 *   - one training epoch of qkv-walkthrough (one 5-token sentence, D=512).
 * Prints the time per iteration. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attention.h"
#include "sample.h"
#include "session.h"
#include "train.h"
#include "util.h"

#define MIN_SECONDS 0.3

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void report(const char *what, double seconds, long iterations)
{
	double per = seconds / (double)iterations;
	const char *unit = "s";
	double scaled = per;
	if (per < 1e-3) {
		scaled = per * 1e6;
		unit = "us";
	} else if (per < 1) {
		scaled = per * 1e3;
		unit = "ms";
	}
	printf("%-52s %10.3f %-2s per iteration (%ld iterations)\n", what, scaled, unit,
	       iterations);
	fflush(stdout);
}

static void die(const char *what, char *cause)
{
	fprintf(stderr, "bench: %s: %s\n", what, cause ? cause : "error");
	free(cause);
	exit(1);
}

/* The session of a sample (its config, fresh parameters, its sentence). */
static void load_session(struct av_session *s, const char *name, const char *sentence)
{
	char *cause = NULL;
	memset(s, 0, sizeof(*s));
	bool ok = strcmp(name, "china-panda") == 0 ? av_sample_load_builtin(&s->sample, &cause)
						   : av_sample_load(name, &s->sample, &cause);
	if (!ok)
		die(name, cause);
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(sentence ? sentence : s->sample.sentence);
	s->source = s->sample.source ? av_strdup(s->sample.source) : NULL;
	if (!av_session_run(s, &cause))
		die(name, cause);
}

static void bench_forward(const char *what, struct av_session *s)
{
	long iterations = 0;
	double start = now(), elapsed;
	do {
		av_trace_forward(&s->trace, &s->params, &s->cfg);
		iterations++;
	} while ((elapsed = now() - start) < MIN_SECONDS);
	report(what, elapsed, iterations);
}

/* What the screen does on m: the causal mask toggled, only the stages from
 * the mask on recomputed (av_session_reattend). */
static void bench_mask_toggle(const char *what, struct av_session *s)
{
	long iterations = 0;
	double start = now(), elapsed;
	char *cause = NULL;
	do {
		s->cfg.mode = s->cfg.mode == AV_MODE_SELF ? AV_MODE_CAUSAL : AV_MODE_SELF;
		if (!av_session_reattend(s, &cause))
			die("reattend", cause);
		iterations++;
	} while ((elapsed = now() - start) < MIN_SECONDS);
	report(what, elapsed, iterations);
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

static void bench_epoch(const char *what, const struct av_session *s)
{
	struct av_trainer *tr = trainer(s);
	long iterations = 0;
	double start = now(), elapsed;
	do {
		av_trainer_epoch(tr);
		iterations++;
	} while ((elapsed = now() - start) < MIN_SECONDS);
	report(what, elapsed, iterations);
	av_trainer_free(tr);
}

static void bench_lesson(const char *what, const struct av_session *s, int epochs)
{
	struct av_trainer *tr = trainer(s);
	long iterations = 0;
	double start = now(), elapsed;
	do {
		av_trainer_reset(tr);
		for (int e = 0; e < epochs; e++)
			av_trainer_epoch(tr);
		iterations++;
	} while ((elapsed = now() - start) < MIN_SECONDS);
	report(what, elapsed, iterations);
	printf("%-52s %10.3f us per epoch (loss %.4g -> %.4g)\n", "", elapsed / iterations /
	       epochs * 1e6, tr->loss[0], tr->loss[epochs - 1]);
	av_trainer_free(tr);
}

int main(void)
{
	struct av_session cp, qkv, qkv64;
	char words[64 * 8] = "";
	for (int i = 0; i < 64; i++) {
		char w[8];
		snprintf(w, sizeof(w), "%sw%d", i ? " " : "", i);
		strcat(words, w);
	}
	load_session(&cp, "china-panda", NULL);
	load_session(&qkv, "qkv-walkthrough", NULL);
	load_session(&qkv64, "qkv-walkthrough", words);

	printf("attnview engine benchmark (%g s or more per case)\n", MIN_SECONDS);
	bench_forward("forward, china-panda (D=3, H=1, n=4)", &cp);
	bench_forward("forward, qkv-walkthrough (D=512, H=8, n=5)", &qkv);
	bench_forward("forward, qkv-walkthrough (D=512, H=8, n=64)", &qkv64);
	bench_mask_toggle("mask toggle (reattend), D=512, H=8, n=5", &qkv);
	bench_mask_toggle("mask toggle (reattend), D=512, H=8, n=64", &qkv64);
	bench_epoch("training epoch, china-panda (3 sentences, Adam)", &cp);
	bench_lesson("200 epochs of china-panda from the start", &cp, 200);
	bench_epoch("training epoch, qkv-walkthrough (1 sentence, D=512)", &qkv);

	av_session_free(&cp);
	av_session_free(&qkv);
	av_session_free(&qkv64);
	return 0;
}
