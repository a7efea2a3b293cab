/* test_fused.c: the fused passes of small layers (attention.h, av_fused)
 * give the staged passes' bits.
 *
 * For layers drawn at random (D from 1 to 8, every head count dividing D,
 * 1 to 8 tokens, self and causal, every positional kind, scale and a few
 * temperatures, with and without bias, some keys hidden, weights from tiny
 * to large enough to saturate the softmax, some inf or nan), each layer's
 * trace is run forward to the weights with av_fused.on false (the staged
 * pass) and true (the fused one), and every stage the fused pass writes is
 * compared byte for byte; then the backward pass of a loss on the weights,
 * likewise, gradient by gradient. The counts in av_fused show the fused passes ran
 * (a layer they do not fit would pass vacuously). */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attention.h"
#include "backward.h"
#include "rng.h"
#include "util.h"

#define N_LAYERS 600

static const char *const vocab[] = { "a", "b", "c", "d", "e", "f" };

/* 0 .. count - 1 */
static int below(struct av_rng *rng, int count)
{
	return (int)(av_rng_u32(rng) % (uint32_t)count);
}

/* A random layer within the fused passes' reach: D * D * n <= 512 and
 * n * n * dh <= 512. */
static void draw_config(struct av_rng *rng, struct av_config *cfg, int *n)
{
	static const int widths[] = { 1, 2, 3, 3, 3, 4, 5, 6, 8 };
	av_config_default(cfg);
	cfg->d_model = widths[below(rng, (int)(sizeof(widths) / sizeof(widths[0])))];
	do
		cfg->heads = 1 + below(rng, cfg->d_model);
	while (cfg->d_model % cfg->heads != 0);
	do
		*n = 1 + (int)below(rng, 8);
	while (*n * cfg->d_model * cfg->d_model > 512);
	cfg->mode = below(rng, 2) ? AV_MODE_CAUSAL : AV_MODE_SELF;
	static const enum av_positional kinds[] = { AV_POS_LEARNED, AV_POS_SINUSOIDAL,
						    AV_POS_NONE };
	cfg->positional = kinds[below(rng, 3)];
	static const enum av_scale scales[] = { AV_SCALE_DK, AV_SCALE_DMODEL, AV_SCALE_NONE };
	cfg->scale = scales[below(rng, 3)];
	static const double temperatures[] = { 1, 1, 0.5, 3 };
	cfg->temperature = temperatures[below(rng, 4)];
	cfg->bias = below(rng, 2);
	cfg->init = AV_INIT_TORCH;
	cfg->seed = below(rng, 1000);
	cfg->max_positions = 8;
}

/* Every weight times a size from 1e-3 (flat rows) to 8 (one-hot rows);
 * one layer in ten has an inf or a nan somewhere (a diverged run's). */
static void scale_weights(struct av_rng *rng, struct av_params *p)
{
	static const double sizes[] = { 1e-3, 1, 1, 3, 8 };
	double size = sizes[below(rng, 5)];
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		float *t = av_param_tensor(p, id, &count);
		for (size_t c = 0; c < count; c++)
			t[c] = (float)(size * av_rng_range(rng, -1, 1));
	}
	if (below(rng, 10) == 0) {
		static const float odd[] = { INFINITY, -INFINITY, NAN };
		int id = below(rng, AV_N_PARAMS);
		size_t count;
		float *t = av_param_tensor(p, id, &count);
		if (count)
			t[below(rng, (int)count)] = odd[below(rng, 3)];
	}
	av_params_changed(p);
}

static void words(struct av_rng *rng, char *out, int n)
{
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, vocab[below(rng, 6)]);
	}
}

#define SAME(a, b, field, count) \
	assert_memory_equal((a)->field, (b)->field, (count) * sizeof(*(a)->field))

static void assert_forward_same(const struct av_trace *a, const struct av_trace *b)
{
	size_t nD = (size_t)a->n * a->d_model, cells = (size_t)a->heads * a->n * a->m;
	SAME(a, b, token_part, nD);
	SAME(a, b, position_part, nD);
	SAME(a, b, embedding, nD);
	SAME(a, b, q, nD);
	SAME(a, b, k, nD);
	SAME(a, b, mask, (size_t)a->n * a->m);
	SAME(a, b, scores, cells);
	SAME(a, b, scaled, cells);
	SAME(a, b, masked, cells);
	SAME(a, b, weights, cells);
	assert_memory_equal(a->row_hidden, b->row_hidden, sizeof(a->row_hidden));
	assert_memory_equal(&a->divisor, &b->divisor, sizeof(a->divisor));
	assert_int_equal(a->head_dim, b->head_dim);
	assert_int_equal(a->values_pending, b->values_pending);
	assert_int_equal(a->context_pending, b->context_pending);
	assert_int_equal(a->output_pending, b->output_pending);
}

/* The trainer's gradients of "qkv" (train.h): W_q and W_k assigned. */
static void backward_qkv(const struct av_trace *t, const struct av_params *p,
			 const double *d_weights, struct av_grads *g)
{
	unsigned qkv = 1u << AV_P_W_Q | 1u << AV_P_B_Q | 1u << AV_P_W_K | 1u << AV_P_B_K |
		       1u << AV_P_W_V | 1u << AV_P_B_V;
	av_grads_init(g, p, qkv);
	g->assign = 1u << AV_P_W_Q | 1u << AV_P_W_K;
	/* what a stale gradient would leave if the pass did not assign */
	for (int id = 0; id < AV_N_PARAMS; id++)
		for (size_t c = 0; c < g->count[id]; c++)
			g->t[id][c] = 1e9;
	av_trace_backward(t, p, NULL, d_weights, g);
}

static void assert_grads_same(const struct av_grads *a, const struct av_grads *b)
{
	for (int id = 0; id < AV_N_PARAMS; id++) {
		assert_int_equal(a->count[id], b->count[id]);
		if (a->count[id])
			assert_memory_equal(a->t[id], b->t[id], a->count[id] * sizeof(double));
	}
}

/* One random layer through both passes, forward then backward. */
static void check_layer(struct av_rng *rng)
{
	struct av_config cfg;
	int n;
	draw_config(rng, &cfg, &n);
	struct av_params p;
	av_params_init(&p, &cfg, vocab, 6);
	scale_weights(rng, &p);
	char sentence[8 * 2 + 1];
	words(rng, sentence, n);
	int hidden[1] = { below(rng, n) };
	int n_hidden = n > 1 && below(rng, 3) == 0;
	struct av_trace staged = { 0 }, fused = { 0 };
	char *cause = NULL;
	if (!av_trace_run(&staged, &p, &cfg, sentence, NULL, hidden, n_hidden, &cause) ||
	    !av_trace_run(&fused, &p, &cfg, sentence, NULL, hidden, n_hidden, &cause))
		fail_msg("%s", cause);
	/* other weights since the run, so a stage left as it was would show */
	scale_weights(rng, &p);

	unsigned long forwards = av_fused.forwards, backwards = av_fused.backwards;
	av_fused.on = false;
	av_trace_forward_weights(&staged, &p, &cfg);
	av_fused.on = true;
	av_trace_forward_weights(&fused, &p, &cfg);
	assert_int_equal(av_fused.forwards, forwards + 1);
	assert_forward_same(&staged, &fused);

	size_t cells = (size_t)cfg.heads * n * n;
	double *d_weights = av_malloc(cells * sizeof(double));
	for (size_t c = 0; c < cells; c++)   /* a few exact zeros: terms skipped */
		d_weights[c] = below(rng, 6) ? av_rng_range(rng, -1, 1) : 0;
	struct av_grads g_staged, g_fused;
	av_fused.on = false;
	backward_qkv(&staged, &p, d_weights, &g_staged);
	av_fused.on = true;
	backward_qkv(&fused, &p, d_weights, &g_fused);
	assert_int_equal(av_fused.backwards, backwards + 1);
	assert_grads_same(&g_staged, &g_fused);

	av_grads_free(&g_staged);
	av_grads_free(&g_fused);
	free(d_weights);
	av_trace_free(&staged);
	av_trace_free(&fused);
	av_params_free(&p);
}

static void test_random_layers_same_bits(void **state)
{
	(void)state;
	struct av_rng rng;
	av_rng_seed(&rng, 2026, 12);
	for (int i = 0; i < N_LAYERS; i++)
		check_layer(&rng);
}

/* Where the fused passes do not fit, the staged ones run: cross mode, a
 * layer too wide, a loss on the residual, embeddings trained. */
static void test_staged_where_fused_does_not_fit(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 3;
	cfg.heads = 1;
	struct av_params p;
	av_params_init(&p, &cfg, vocab, 6);
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, NULL));
	double d_weights[9] = { 0.1, -0.2, 0.3, 0, 0.5, -0.1, 0.2, 0.2, -0.4 };
	double d_residual[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

	unsigned long forwards = av_fused.forwards, backwards = av_fused.backwards;
	av_trace_forward_weights(&t, &p, &cfg);
	assert_int_equal(av_fused.forwards, forwards + 1);   /* it fits */
	struct av_grads all;
	av_grads_init(&all, &p, AV_GRADS_ALL);
	av_trace_backward(&t, &p, NULL, d_weights, &all);   /* embeddings wanted */
	av_trace_forward(&t, &p, &cfg);
	av_trace_backward(&t, &p, d_residual, d_weights, &all);   /* the residual's */
	assert_int_equal(av_fused.backwards, backwards);
	av_grads_free(&all);
	av_trace_free(&t);
	av_params_free(&p);

	cfg.d_model = 32;   /* 3 x 32 x 32 products: not all on the plain kernel */
	cfg.heads = 2;
	av_params_init(&p, &cfg, vocab, 6);
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, NULL));
	forwards = av_fused.forwards;
	av_trace_forward_weights(&t, &p, &cfg);
	assert_int_equal(av_fused.forwards, forwards);
	av_trace_free(&t);
	av_params_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_layers_same_bits),
		cmocka_unit_test(test_staged_where_fused_does_not_fit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
