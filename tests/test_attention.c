/* test_attention.c: the forward pass on cases small enough to check by
 * hand, the mask, the all-hidden row, stability and the input errors. The
 * comparison with PyTorch is test_reference.c. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attention.h"
#include "finite.h"
#include "matmul.h"
#include "trace_json.h"

/* D=2, H=1, identity projections, no positions: Q = K = V = X. */
static void identity_layer(struct av_params *p, struct av_config *cfg)
{
	av_config_default(cfg);
	cfg->d_model = 2;
	cfg->heads = 1;
	cfg->positional = AV_POS_NONE;
	cfg->scale = AV_SCALE_NONE;
	av_params_alloc(p, cfg);
	float *w[] = { p->w_q, p->w_k, p->w_v, p->w_o };
	for (int i = 0; i < 4; i++) {
		w[i][0] = 1;
		w[i][3] = 1;
	}
	float a[] = { 1, 0 }, b[] = { 0, 2 }, c[] = { 1, 1 };
	av_params_add_word(p, "a", a);
	av_params_add_word(p, "b", b);
	av_params_add_word(p, "c", c);
}

static void test_scores_by_hand(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	struct av_trace t = { 0 };
	char *cause = NULL;
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, &cause));
	assert_int_equal(t.n, 3);
	assert_int_equal(t.m, 3);
	/* scores = X X^T for X = [[1,0],[0,2],[1,1]] */
	const float expected[] = { 1, 0, 1, 0, 4, 2, 1, 2, 2 };
	for (int i = 0; i < 9; i++)
		assert_float_equal(t.scores[i], expected[i], 0);
	/* softmax of row 0 = [1, 0, 1] */
	double e = exp(1.0), denom = 2 * e + 1;
	assert_float_equal(t.weights[0], e / denom, 1e-7);
	assert_float_equal(t.weights[1], 1 / denom, 1e-7);
	/* context row 0 = weights . V */
	assert_float_equal(t.context[0], (e + e) / denom, 1e-6);
	assert_float_equal(t.context[1], (2 + e) / denom, 1e-6);
	/* output = concat (identity W_o), residual = output + X */
	assert_float_equal(t.residual[0], t.context[0] + 1, 1e-6);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_scale_and_temperature(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	cfg.scale = AV_SCALE_DK;        /* dh = 2 */
	cfg.temperature = 4;
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "b b", NULL, NULL, 0, NULL));
	assert_float_equal(t.scaled[0], 4 / (sqrt(2.0) * 4), 1e-6);
	/* equal scores: uniform weights */
	assert_float_equal(t.weights[0], 0.5, 1e-7);
	cfg.scale = AV_SCALE_DMODEL;
	cfg.temperature = 1;
	av_trace_forward(&t, &p, &cfg);
	assert_float_equal(t.scaled[0], 4 / sqrt(2.0), 1e-6);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_causal_mask_hides_the_future(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	cfg.mode = AV_MODE_CAUSAL;
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, NULL));
	for (int i = 0; i < 3; i++) {
		double sum = 0;
		for (int j = 0; j < 3; j++) {
			int c = i * 3 + j;
			assert_int_equal(t.mask[c], j <= i);
			if (j > i) {
				assert_true(t.masked[c] == AV_MASKED_VALUE);
				assert_true(t.weights[c] == 0.0f);
			} else {
				assert_true(t.masked[c] == t.scaled[c]);
			}
			sum += t.weights[c];
		}
		assert_float_equal(sum, 1.0, 1e-6);
	}
	/* the first token sees only itself */
	assert_float_equal(t.weights[0], 1.0, 0);
	av_trace_free(&t);
	av_params_free(&p);
}

/* Re-attending after a mask, head or temperature change gives exactly what a
 * full run gives. */
static void test_reattend_equals_a_full_run(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 8;
	cfg.heads = 2;
	cfg.bias = true;
	struct av_params p;
	const char *vocab[] = { "x", "y" };
	av_params_init(&p, &cfg, vocab, 2);
	struct av_trace quick = { 0 }, full = { 0 };
	assert_true(av_trace_run(&quick, &p, &cfg, "x y x y", NULL, NULL, 0, NULL));
	cfg.mode = AV_MODE_CAUSAL;
	cfg.heads = 4;
	cfg.temperature = 0.5;
	quick.key_hidden[1] = true;
	char *cause = NULL;
	assert_true(av_trace_reattend(&quick, &p, &cfg, &cause));
	int hide[] = { 1 };
	assert_true(av_trace_run(&full, &p, &cfg, "x y x y", NULL, hide, 1, NULL));
	size_t cells = (size_t)4 * 4 * 4;
	assert_memory_equal(quick.weights, full.weights, cells * sizeof(float));
	assert_memory_equal(quick.masked, full.masked, cells * sizeof(float));
	assert_memory_equal(quick.residual, full.residual, 4 * 8 * sizeof(float));
	assert_memory_equal(quick.mask, full.mask, 16);
	cfg.heads = 3;
	assert_false(av_trace_reattend(&quick, &p, &cfg, &cause));
	assert_non_null(strstr(cause, "not divisible"));
	free(cause);
	av_trace_free(&quick);
	av_trace_free(&full);
	av_params_free(&p);
}

/* A screen's keys one after another (mask, scale, temperature, heads,
 * padding), each re-attended from the last, every other one with the output
 * projection done afterwards (av_trace_reattend_weights, av_trace_finish):
 * every stage is what a full run of that config gives, bit for bit. */
static void test_reattend_sequence_equals_full_runs(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 8;
	cfg.heads = 2;
	cfg.bias = true;
	struct av_params p;
	const char *vocab[] = { "x", "y", "z" };
	av_params_init(&p, &cfg, vocab, 3);
	const char *sentence = "x y z y x";
	struct av_trace quick = { 0 };
	assert_true(av_trace_run(&quick, &p, &cfg, sentence, NULL, NULL, 0, NULL));
	const struct {
		enum av_mode mode;
		int heads, hidden;
		enum av_scale scale;
		double temperature;
	} steps[] = {
		{ AV_MODE_CAUSAL, 2, -1, AV_SCALE_DK, 1 },
		{ AV_MODE_CAUSAL, 2, -1, AV_SCALE_NONE, 1 },
		{ AV_MODE_CAUSAL, 2, -1, AV_SCALE_NONE, 0.5 },
		{ AV_MODE_SELF, 4, -1, AV_SCALE_NONE, 0.5 },
		{ AV_MODE_SELF, 4, 2, AV_SCALE_DMODEL, 2 },
		{ AV_MODE_CAUSAL, 1, 2, AV_SCALE_DK, 1 },
		{ AV_MODE_SELF, 2, -1, AV_SCALE_DK, 1 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		cfg.mode = steps[i].mode;
		cfg.heads = steps[i].heads;
		cfg.scale = steps[i].scale;
		cfg.temperature = steps[i].temperature;
		memset(quick.key_hidden, 0, sizeof(quick.key_hidden));
		if (steps[i].hidden >= 0)
			quick.key_hidden[steps[i].hidden] = true;
		char *cause = NULL;
		if (i % 2) {   /* the screen's way: the output projection after */
			assert_true(av_trace_reattend_weights(&quick, &p, &cfg, &cause));
			assert_true(quick.output_pending);
			av_trace_finish(&quick, &p);
		} else {
			assert_true(av_trace_reattend(&quick, &p, &cfg, &cause));
		}
		assert_false(quick.output_pending);
		struct av_trace full = { 0 };
		int hide[] = { steps[i].hidden };
		assert_true(av_trace_run(&full, &p, &cfg, sentence, NULL, hide,
					 steps[i].hidden >= 0 ? 1 : 0, NULL));
		size_t cells = (size_t)cfg.heads * 5 * 5;
		assert_memory_equal(quick.scores, full.scores, cells * sizeof(float));
		assert_memory_equal(quick.scaled, full.scaled, cells * sizeof(float));
		assert_memory_equal(quick.weights, full.weights, cells * sizeof(float));
		assert_memory_equal(quick.context, full.context, 5 * 8 * sizeof(float));
		assert_memory_equal(quick.residual, full.residual, 5 * 8 * sizeof(float));
		av_trace_free(&full);
	}
	av_trace_free(&quick);
	av_params_free(&p);
}

/* t's kept_softmax holds, for every row, what av_softmax_row gives on its
 * masked scores (zeros for a hidden row), and weights are those rounded. */
static void assert_kept_softmax_right(const struct av_trace *t)
{
	assert_non_null(t->kept_softmax);
	int n = t->n, m = t->m;
	for (int h = 0; h < t->heads; h++)
		for (int i = 0; i < n; i++) {
			size_t row = ((size_t)h * n + i) * m;
			double want[AV_KEPT_SOFTMAX_COLS] = { 0 };
			bool visible = av_softmax_row(want, t->masked + row, t->mask + (size_t)i * m, m);
			assert_int_equal(visible, !t->row_hidden[i]);
			assert_memory_equal(t->kept_softmax + row, want, (size_t)m * sizeof(double));
			for (int j = 0; j < m; j++)
				assert_true(t->weights[row + j] == (float)want[j]);
		}
}

/* A matrix of short rows keeps its softmax in double for the backward pass
 * (attention.h): through every key of the screen (mask, heads, a hidden key
 * and a hidden row, scale, temperature) and a change of sentence length,
 * the kept rows are the weights' own; a long sentence keeps none. */
static void test_short_rows_keep_their_softmax(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 8;
	cfg.heads = 2;
	struct av_params p;
	const char *vocab[] = { "x", "y", "z" };
	av_params_init(&p, &cfg, vocab, 3);
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "x y z", NULL, NULL, 0, NULL));
	assert_kept_softmax_right(&t);
	const struct {
		enum av_mode mode;
		int heads, hidden;
		double temperature;
	} steps[] = {
		{ AV_MODE_CAUSAL, 2, -1, 1 }, { AV_MODE_CAUSAL, 4, 0, 1 },
		{ AV_MODE_SELF, 1, 2, 0.25 }, { AV_MODE_SELF, 8, -1, 3 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		cfg.mode = steps[i].mode;
		cfg.heads = steps[i].heads;
		cfg.temperature = steps[i].temperature;
		memset(t.key_hidden, 0, sizeof(t.key_hidden));
		if (steps[i].hidden >= 0)
			t.key_hidden[steps[i].hidden] = true;
		assert_true(av_trace_reattend_weights(&t, &p, &cfg, NULL));
		assert_kept_softmax_right(&t);
		assert_int_equal(t.row_hidden[0], steps[i].mode == AV_MODE_CAUSAL &&
						  steps[i].hidden == 0);
	}
	assert_true(av_trace_run(&t, &p, &cfg, "x y z y x", NULL, NULL, 0, NULL));
	assert_null(t.kept_softmax);
	assert_true(av_trace_run(&t, &p, &cfg, "z y", NULL, NULL, 0, NULL));
	assert_kept_softmax_right(&t);
	av_trace_free(&t);
	av_params_free(&p);
}

/* A forward to the weights (the trainer's) leaves the value path pending;
 * av_trace_finish, or a reattend that goes past the weights, fills in what
 * a full forward gives, bit for bit; so does a full forward after one to
 * the weights, in self, causal and cross mode. */
static void assert_traces_equal(const struct av_trace *a, const struct av_trace *b)
{
	size_t cells = (size_t)a->heads * a->n * a->m, nD = (size_t)a->n * a->d_model;
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->m, b->m);
	assert_false(a->values_pending || a->output_pending);
	assert_false(b->values_pending || b->output_pending);
	assert_memory_equal(a->q, b->q, nD * sizeof(float));
	assert_memory_equal(a->v, b->v, (size_t)a->m * a->d_model * sizeof(float));
	assert_memory_equal(a->weights, b->weights, cells * sizeof(float));
	assert_memory_equal(a->context, b->context, nD * sizeof(float));
	assert_memory_equal(a->concat, b->concat, nD * sizeof(float));
	assert_memory_equal(a->output, b->output, nD * sizeof(float));
	assert_memory_equal(a->residual, b->residual, nD * sizeof(float));
}

static void test_forward_weights_then_finish_equals_full(void **state)
{
	(void)state;
	const enum av_mode modes[] = { AV_MODE_SELF, AV_MODE_CAUSAL, AV_MODE_CROSS };
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		struct av_config cfg;
		av_config_default(&cfg);
		cfg.d_model = 8;
		cfg.heads = 2;
		cfg.bias = true;
		cfg.mode = modes[k];
		struct av_params p;
		const char *vocab[] = { "x", "y", "z" };
		av_params_init(&p, &cfg, vocab, 3);
		const char *source = modes[k] == AV_MODE_CROSS ? "z y x" : NULL;
		struct av_trace full = { 0 }, quick = { 0 };
		assert_true(av_trace_run(&full, &p, &cfg, "x y z y", source, NULL, 0, NULL));
		assert_true(av_trace_run(&quick, &p, &cfg, "x y z y", source, NULL, 0, NULL));
		/* other weights, so stale values would show */
		p.w_v[0] += 1;
		p.w_o[1] -= 1;
		av_trace_forward(&full, &p, &cfg);

		av_trace_forward_weights(&quick, &p, &cfg);
		assert_true(quick.values_pending);
		assert_true(quick.output_pending);
		size_t cells = (size_t)cfg.heads * quick.n * quick.m;
		assert_memory_equal(quick.weights, full.weights, cells * sizeof(float));
		assert_memory_equal(quick.scaled, full.scaled, cells * sizeof(float));
		av_trace_finish(&quick, &p);
		assert_traces_equal(&quick, &full);

		av_trace_forward_weights(&quick, &p, &cfg);
		assert_true(av_trace_reattend(&quick, &p, &cfg, NULL));
		assert_traces_equal(&quick, &full);

		av_trace_forward_weights(&quick, &p, &cfg);
		assert_true(av_trace_reattend_weights(&quick, &p, &cfg, NULL));
		assert_false(quick.values_pending);
		assert_true(quick.output_pending);
		av_trace_finish(&quick, &p);
		assert_traces_equal(&quick, &full);

		av_trace_forward_weights(&quick, &p, &cfg);
		av_trace_forward(&quick, &p, &cfg);
		assert_traces_equal(&quick, &full);
		av_trace_free(&quick);
		av_trace_free(&full);
		av_params_free(&p);
	}
}

static void test_all_hidden_row_is_zero_not_nan(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	cfg.mode = AV_MODE_CAUSAL;
	int hide[] = { 0 };
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "a b", NULL, hide, 1, NULL));
	/* query 0 sees only key 0, which is hidden */
	assert_true(t.row_hidden[0]);
	assert_false(t.row_hidden[1]);
	assert_true(t.weights[0] == 0.0f && t.weights[1] == 0.0f);
	assert_float_equal(t.weights[3], 1.0, 0);
	for (int c = 0; c < t.n * t.d_model; c++)
		assert_true(isfinite(t.residual[c]));
	assert_float_equal(t.context[0], 0.0, 0);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_softmax_is_stable(void **state)
{
	(void)state;
	const float in[] = { 1000, 999, -1000, 88.8f, 89.0f, 1e-30f };
	float out[6];
	av_softmax_rows(out, in, NULL, 2, 3);
	for (int i = 0; i < 6; i++)
		assert_true(isfinite(out[i]));
	assert_float_equal(out[0], 1 / (1 + exp(-1.0)), 1e-6);
	assert_float_equal(out[2], 0.0, 1e-30);
	assert_float_equal(out[3] + out[4] + out[5], 1.0, 1e-6);
}

/* Every row width through the vector kernel's whole blocks and its last
 * partial one, from an 8-byte boundary and from 4 bytes past one (a row of
 * a matrix starts anywhere: UBSan sees a load typed wider than its
 * alignment): each weight near the double softmax, and nothing written
 * past the row. */
static void test_softmax_every_width(void **state)
{
	(void)state;
	uint32_t x = 12345;
	for (int k = 0; k < 2 * 37; k++) {
		int cols = k / 2 + 1, shift = k % 2;
		_Alignas(8) float in_at[41], out_at[49];
		float *in = in_at + shift, *out = out_at + shift;
		for (int j = 0; j < cols; j++) {
			x = x * 1664525u + 1013904223u;
			in[j] = (float)((x >> 8) % 4000) / 100.0f - 20.0f;   /* -20 .. 20 */
		}
		for (int j = 0; j < 48; j++)
			out[j] = -7.0f;
		av_softmax_rows(out, in, NULL, 1, cols);
		double max = in[0], sum = 0;
		for (int j = 1; j < cols; j++)
			max = in[j] > max ? in[j] : max;
		for (int j = 0; j < cols; j++)
			sum += exp((double)in[j] - max);
		for (int j = 0; j < cols; j++) {
			double want = exp((double)in[j] - max) / sum;
			if (fabs(out[j] - want) > 1e-6 * want + 1e-12)
				fail_msg("cols %d, weight %d: %.9g, want %.9g", cols, j, out[j], want);
		}
		for (int j = cols; j < 48; j++)
			assert_true(out[j] == -7.0f);
	}
}

static void test_heads_are_column_slices(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 4;
	cfg.heads = 2;
	cfg.bias = true;
	cfg.init = AV_INIT_TORCH;
	struct av_params p;
	const char *vocab[] = { "x", "y", "z" };
	av_params_init(&p, &cfg, vocab, 3);
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "x y z x", NULL, NULL, 0, NULL));
	/* head 1's score (i=2, j=0) is the dot product of columns 2..3 */
	double s = t.q[2 * 4 + 2] * t.k[0 * 4 + 2] + t.q[2 * 4 + 3] * t.k[0 * 4 + 3];
	assert_float_equal(t.scores[16 + 2 * 4 + 0], s, 1e-5);
	/* concat holds head 1's context in columns 2..3 */
	assert_float_equal(t.concat[3 * 4 + 3], t.context[1 * 4 * 2 + 3 * 2 + 1], 0);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_cross_mode_shapes(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	cfg.mode = AV_MODE_CROSS;
	struct av_trace t = { 0 };
	char *cause = NULL;
	assert_false(av_trace_run(&t, &p, &cfg, "a b", NULL, NULL, 0, &cause));
	assert_non_null(strstr(cause, "cross mode needs a source sentence"));
	assert_true(av_trace_run(&t, &p, &cfg, "a b", "c c c", NULL, 0, &cause));
	assert_int_equal(t.n, 2);
	assert_int_equal(t.m, 3);
	assert_non_null(t.source_embedding);
	/* keys come from the source: K row 0 is c = [1,1] */
	assert_float_equal(t.k[0], 1, 0);
	assert_float_equal(t.k[1], 1, 0);
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_input_errors(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	struct av_trace t = { 0 };
	char *cause = NULL;
	int far[] = { 5 };
	assert_false(av_trace_run(&t, &p, &cfg, "a b", NULL, far, 1, &cause));
	assert_string_equal(cause, "cannot mask key position 5: the sentence has 2 tokens "
			    "(positions 0 to 1)");
	assert_false(av_trace_run(&t, &p, &cfg, "", NULL, NULL, 0, &cause));
	cfg.heads = 3;
	assert_false(av_trace_run(&t, &p, &cfg, "a", NULL, NULL, 0, &cause));
	assert_non_null(strstr(cause, "not divisible"));
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);

	av_config_default(&cfg);
	cfg.positional = AV_POS_LEARNED;
	cfg.max_positions = 2;
	av_params_init(&p, &cfg, NULL, 0);
	cause = NULL;
	assert_false(av_trace_run(&t, &p, &cfg, "one two three", NULL, NULL, 0, &cause));
	assert_non_null(strstr(cause, "learned position table has only 2 rows"));
	free(cause);
	av_trace_free(&t);
	av_params_free(&p);
}

static void test_oov_tokens_are_flagged(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	struct av_trace t = { 0 };
	assert_true(av_trace_run(&t, &p, &cfg, "a zebra 熊猫", NULL, NULL, 0, NULL));
	assert_int_equal(t.n, 4);
	assert_false(t.oov[0]);
	assert_true(t.oov[1]);
	assert_true(t.oov[2] && t.oov[3]);
	assert_int_equal(p.vocab_size, 6);
	av_trace_free(&t);
	av_params_free(&p);
}

/* Scores that fit a float until divided by a small temperature: the first
 * value that is not finite is in the scaled stage, and the explanation
 * names the divisor. */
static void test_nonfinite_temperature(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	cfg.temperature = 0.01;
	p.w_q[0] = 1e19f;   /* score of (a, a): 1e38, a float; / 0.01 is not */
	p.w_k[0] = 1e19f;
	struct av_trace t = { 0 };
	char *cause = NULL;
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, &cause));
	struct av_nonfinite w;
	assert_true(av_trace_first_nonfinite(&t, &w));
	assert_string_equal(w.stage, "scaled");
	assert_int_equal(w.head, 0);
	assert_int_equal(w.row, 0);
	assert_int_equal(w.col, 0);
	assert_true(isinf(w.value) && w.value > 0);
	char *why = av_nonfinite_explain(&t, &w);
	assert_string_equal(why, "the scaled stage is not finite (head 0, row 0 \"a\", "
			    "column 0 \"a\": inf): the scores divided by s*T = 0.01 overflow "
			    "a 32-bit float (the weights are too large for the temperature 0.01)");
	free(why);
	/* Even so written, the JSON is valid: null where inf would be. */
	cJSON *doc = av_trace_to_json(&t, &p, NULL);
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	cJSON *back = cJSON_Parse(text);
	assert_non_null(back);
	cJSON_Delete(back);
	assert_null(strstr(text, "inf"));
	assert_null(strstr(text, "nan"));
	free(text);
	av_trace_free(&t);
	av_params_free(&p);
}

/* Finite weights near the float limit whose products overflow: the scores
 * are the first stage that is not finite, and the weights are blamed. */
static void test_nonfinite_weights(void **state)
{
	(void)state;
	struct av_params p;
	struct av_config cfg;
	identity_layer(&p, &cfg);
	p.w_q[0] = 3e38f;
	p.w_k[0] = 3e38f;
	struct av_trace t = { 0 };
	char *cause = NULL;
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, &cause));
	struct av_nonfinite w;
	assert_true(av_trace_first_nonfinite(&t, &w));
	assert_string_equal(w.stage, "scores");
	assert_int_equal(w.head, 0);
	assert_int_equal(w.row, 0);
	assert_int_equal(w.col, 0);
	char *why = av_nonfinite_explain(&t, &w);
	assert_string_equal(why, "the scores stage is not finite (head 0, row 0 \"a\", "
			    "column 0 \"a\": inf): a value overflows a 32-bit float "
			    "(beyond 3.4e38); the weights are too large");
	free(why);
	/* an ordinary layer is finite everywhere */
	av_params_free(&p);
	identity_layer(&p, &cfg);
	assert_true(av_trace_run(&t, &p, &cfg, "a b c", NULL, NULL, 0, &cause));
	assert_false(av_trace_first_nonfinite(&t, &w));
	assert_string_equal(av_nonfinite_name(-INFINITY), "-inf");
	assert_string_equal(av_nonfinite_name(-NAN), "nan");
	assert_null(av_nonfinite_name(1.5));
	av_trace_free(&t);
	av_params_free(&p);
}

/* Both weight layouts give the same product: w (out, in) and its transpose
 * (in, out), by hand for a 2x3 input and 3 -> 2 outputs with a bias. */
static void test_matmul_layouts_agree(void **state)
{
	(void)state;
	const float x[6] = { 1, 2, 3, -1, 0.5f, 2 };
	const float w_out_in[6] = { 1, 0, -1, 2, 1, 0.5f };  /* (2, 3) */
	const float w_in_out[6] = { 1, 2, 0, 1, -1, 0.5f };  /* (3, 2) */
	const float b[2] = { 0.25f, -1 };
	const float want[4] = { 1 - 3 + 0.25f, 2 + 2 + 1.5f - 1,
				-1 - 2 + 0.25f, -2 + 0.5f + 1 - 1 };
	float a[4], c[4];
	av_matmul(a, x, w_out_in, b, 2, 3, 2, AV_W_OUT_IN);
	av_matmul(c, x, w_in_out, b, 2, 3, 2, AV_W_IN_OUT);
	for (int i = 0; i < 4; i++) {
		assert_float_equal(a[i], want[i], 1e-6);
		assert_float_equal(c[i], want[i], 1e-6);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matmul_layouts_agree),
		cmocka_unit_test(test_softmax_every_width),
		cmocka_unit_test(test_scores_by_hand),
		cmocka_unit_test(test_scale_and_temperature),
		cmocka_unit_test(test_causal_mask_hides_the_future),
		cmocka_unit_test(test_reattend_equals_a_full_run),
		cmocka_unit_test(test_reattend_sequence_equals_full_runs),
		cmocka_unit_test(test_forward_weights_then_finish_equals_full),
		cmocka_unit_test(test_short_rows_keep_their_softmax),
		cmocka_unit_test(test_all_hidden_row_is_zero_not_nan),
		cmocka_unit_test(test_softmax_is_stable),
		cmocka_unit_test(test_heads_are_column_slices),
		cmocka_unit_test(test_cross_mode_shapes),
		cmocka_unit_test(test_input_errors),
		cmocka_unit_test(test_oov_tokens_are_flagged),
		cmocka_unit_test(test_nonfinite_temperature),
		cmocka_unit_test(test_nonfinite_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
