/* test_backward.c: the backward pass against finite differences, for every
 * parameter in every mode.
 *
 * The loss touches every output of the layer:
 *   L = sum_{i,c} C[i][c] residual[i][c] + LAMBDA * mse(weights, target)
 * with fixed pseudo-random coefficients C in [-1, 1] and the training loss
 * of train.h (self target), so every stage from the embeddings to the
 * residual and the attention weights is reached.
 *
 * How the finite differences are made: the forward pass under test is the
 * real float32 one (av_trace_forward; its sums are accumulated in double and
 * each stage is rounded to float32), and L is summed in double from its
 * stages. A float32 stage carries a rounding error of ~6e-8 relative, so L
 * has noise of ~1e-7 and a difference quotient with step h has noise
 * ~1e-7 / h. Rather than shrink h (noise grows) or keep it large (truncation
 * grows as h^2), the test uses the five-point stencil
 *   L'(p) ~ (8 (L(p+h) - L(p-h)) - (L(p+2h) - L(p-2h))) / (12 h),
 * whose truncation error is O(h^4), with h = 0.05 on parameters of size ~1:
 * truncation ~1e-7, noise ~1e-6. The perturbed parameter is a float32, so
 * the step actually taken is (float)(p + h) - p, not h; the stencil is
 * evaluated with the steps actually taken (each pair's difference divided by
 * its own width, then combined with weights 4/3 and -1/3).
 *
 * Pass rule, per tensor: the norm-wise relative error |fd - g| / |g| < 1e-3
 * (2-norms over the tensor) when |g| > 1e-4, else (a gradient that is zero,
 * like b_k's) max |fd - g| < 1e-4, the noise floor of the stencil on the
 * sharpest case (D=8, scores of several units: ~1e-5). The errors measured
 * are 1e-6 to 2e-4 relative; each tensor's is printed. */
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
#include "train.h"
#include "util.h"

#define FD_STEP 0.05
#define REL_TOL 1e-3
#define ABS_TOL 1e-4
#define SMALL_GRAD 1e-4
#define LAMBDA 3.0

struct fd_case {
	const char *name;
	int d_model, heads;
	enum av_mode mode;
	enum av_scale scale;
	double temperature;
	enum av_positional positional;
	bool bias;
	const char *sentence, *source;
	int hidden[4], n_hidden;
};

static const struct fd_case cases[] = {
	{ "self-h2-bias-learned", 4, 2, AV_MODE_SELF, AV_SCALE_DK, 1, AV_POS_LEARNED, true,
	  "a b a c", NULL, { 0 }, 0 },
	{ "self-h1-seed001", 3, 1, AV_MODE_SELF, AV_SCALE_DK, 1, AV_POS_LEARNED, false,
	  "a b", NULL, { 0 }, 0 },
	{ "causal-h2-bias-sinusoidal-t07", 4, 2, AV_MODE_CAUSAL, AV_SCALE_DK, 0.7,
	  AV_POS_SINUSOIDAL, true, "c a b d b", NULL, { 0 }, 0 },
	{ "cross-h2-bias-learned", 4, 2, AV_MODE_CROSS, AV_SCALE_DK, 1, AV_POS_LEARNED, true,
	  "a b c", "d e a d", { 0 }, 0 },
	{ "cross-padding-nobias-sinusoidal", 4, 2, AV_MODE_CROSS, AV_SCALE_DMODEL, 1,
	  AV_POS_SINUSOIDAL, false, "a b c", "d e a", { 1 }, 1 },
	{ "self-padding-bias-learned-dmodel", 4, 2, AV_MODE_SELF, AV_SCALE_DMODEL, 1,
	  AV_POS_LEARNED, true, "a b c d", NULL, { 0, 2 }, 2 },
	{ "causal-padding-hidden-row-none", 4, 1, AV_MODE_CAUSAL, AV_SCALE_NONE, 1,
	  AV_POS_NONE, false, "b a c", NULL, { 0 }, 1 },
	{ "self-h4-d8-bias-t2", 8, 4, AV_MODE_SELF, AV_SCALE_DK, 2.0, AV_POS_LEARNED, true,
	  "e d c b a", NULL, { 0 }, 0 },
	{ "cross-h1-bias-none-t05", 3, 1, AV_MODE_CROSS, AV_SCALE_DK, 0.5, AV_POS_NONE, true,
	  "a a b c", "c b", { 0 }, 0 },
};
#define N_CASES ((int)(sizeof(cases) / sizeof(cases[0])))

struct fixture {
	struct av_config cfg;
	struct av_params p;
	struct av_trace t;
	double *coef;        /* (n, D) */
	double *target;      /* (n, m) */
};

static void setup_case(struct fixture *f, const struct fd_case *c)
{
	static const char *const vocab[] = { "a", "b", "c", "d", "e" };
	memset(f, 0, sizeof(*f));
	av_config_default(&f->cfg);
	f->cfg.d_model = c->d_model;
	f->cfg.heads = c->heads;
	f->cfg.mode = c->mode;
	f->cfg.scale = c->scale;
	f->cfg.temperature = c->temperature;
	f->cfg.positional = c->positional;
	f->cfg.bias = c->bias;
	f->cfg.init = AV_INIT_TORCH;     /* non-zero biases */
	f->cfg.seed = 11;
	f->cfg.max_positions = 6;
	av_params_init(&f->p, &f->cfg, vocab, 5);
	/* Weights of size ~1 (not torch's 1/sqrt(D)) so that no path is tiny. */
	struct av_rng rng;
	av_rng_seed(&rng, 5, 7);
	float *w[] = { f->p.w_q, f->p.w_k, f->p.w_v, f->p.w_o };
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < c->d_model * c->d_model; j++)
			w[i][j] = (float)av_rng_range(&rng, -1, 1);
	char *cause = NULL;
	bool ok = av_trace_run(&f->t, &f->p, &f->cfg, c->sentence, c->source, c->hidden,
			       c->n_hidden, &cause);
	if (!ok)
		fail_msg("%s: %s", c->name, cause);
	f->coef = av_malloc((size_t)f->t.n * c->d_model * sizeof(double));
	for (int i = 0; i < f->t.n * c->d_model; i++)
		f->coef[i] = av_rng_range(&rng, -1, 1);
	f->target = av_calloc((size_t)f->t.n * f->t.m, sizeof(double));
	av_attention_target(f->target, AV_TARGET_SELF, c->mode == AV_MODE_CROSS, f->t.tokens.text,
			    f->t.n, c->mode == AV_MODE_CROSS ? f->t.source_tokens.text : f->t.tokens.text,
			    f->t.m, NULL, 0);
}

static void teardown_case(struct fixture *f)
{
	av_trace_free(&f->t);
	av_params_free(&f->p);
	free(f->coef);
	free(f->target);
}

/* L at the current parameters (re-runs the forward pass); d_residual and
 * d_weights get dL/dresidual and dL/dweights when not NULL. */
static double loss(struct fixture *f, double *d_residual, double *d_weights)
{
	struct av_trace *t = &f->t;
	av_trace_forward(t, &f->p, &f->cfg);
	double sum = 0;
	for (int i = 0; i < t->n * t->d_model; i++) {
		sum += f->coef[i] * t->residual[i];
		if (d_residual)
			d_residual[i] = f->coef[i];
	}
	double mse = av_attention_loss(t->weights, f->target, t->heads, t->n, t->m, d_weights);
	if (d_weights)
		for (int i = 0; i < t->heads * t->n * t->m; i++)
			d_weights[i] *= LAMBDA;
	return sum + LAMBDA * mse;
}

/* dL/dp[i] by the five-point stencil on the float32 parameter. */
static double finite_difference(struct fixture *f, float *p, size_t i)
{
	float saved = p[i];
	double diff[2];
	for (int k = 1; k <= 2; k++) {
		float up = (float)(saved + k * FD_STEP), down = (float)(saved - k * FD_STEP);
		p[i] = up;
		double l_up = loss(f, NULL, NULL);
		p[i] = down;
		double l_down = loss(f, NULL, NULL);
		/* the quotient over the step actually taken */
		diff[k - 1] = (l_up - l_down) / ((double)up - (double)down);
	}
	p[i] = saved;
	return (4.0 * diff[0] - diff[1]) / 3.0;
}

static void test_case(void **state)
{
	const struct fd_case *c = &cases[(uintptr_t)*state];
	struct fixture f;
	setup_case(&f, c);
	double *d_residual = av_malloc((size_t)f.t.n * c->d_model * sizeof(double));
	double *d_weights = av_malloc((size_t)c->heads * f.t.n * f.t.m * sizeof(double));
	loss(&f, d_residual, d_weights);
	struct av_grads g;
	av_grads_init(&g, &f.p, AV_GRADS_ALL);
	av_trace_backward(&f.t, &f.p, d_residual, d_weights, &g);

	char failure[512] = "";
	int checked = 0;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		float *p = av_param_tensor(&f.p, id, &count);
		if (!p) {
			assert_null(g.t[id]);
			continue;
		}
		assert_non_null(g.t[id]);
		assert_int_equal(g.count[id], count);
		double err2 = 0, g2 = 0, max_err = 0;
		for (size_t i = 0; i < count; i++) {
			double fd = finite_difference(&f, p, i), an = g.t[id][i];
			double e = fabs(fd - an);
			err2 += e * e;
			g2 += an * an;
			if (e > max_err)
				max_err = e;
		}
		double norm = sqrt(g2), rel = sqrt(err2) / fmax(norm, 1e-300);
		bool ok = norm > SMALL_GRAD ? rel < REL_TOL : max_err < ABS_TOL;
		printf("%s %s: |grad| %.3g, max |fd - grad| %.3g, relative error %.3g%s\n",
		       c->name, av_param_names[id], norm, max_err, norm > SMALL_GRAD ? rel : 0.0,
		       ok ? "" : "  <-- FAIL");
		if (!ok && !failure[0])
			snprintf(failure, sizeof(failure), "%s %s: relative error %g, max abs %g "
				 "(|grad| %g)", c->name, av_param_names[id], rel, max_err, norm);
		checked++;
	}
	fflush(stdout);
	/* token rows, w_q..b_o (with bias), positions when learned */
	int expected = 1 + 4 * (c->bias ? 2 : 1) + (c->positional == AV_POS_LEARNED);
	assert_int_equal(checked, expected);
	av_grads_free(&g);
	free(d_residual);
	free(d_weights);
	teardown_case(&f);
	if (failure[0])
		fail_msg("%s", failure);
}

/* b_k shifts every score of a row by q.b_k, which the softmax ignores: its
 * gradient must be ~0, not float32 noise (Adam would turn noise into steps
 * of size lr, see backward.h). */
static void test_bias_k_gradient_is_zero(void **state)
{
	(void)state;
	struct fixture f;
	setup_case(&f, &cases[0]);
	double *d_weights = av_malloc((size_t)2 * f.t.n * f.t.m * sizeof(double));
	loss(&f, NULL, d_weights);
	struct av_grads g;
	av_grads_init(&g, &f.p, 1u << AV_P_B_K | 1u << AV_P_W_K);
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &g);
	double wk = 0;
	for (size_t i = 0; i < g.count[AV_P_W_K]; i++)
		wk = fmax(wk, fabs(g.t[AV_P_W_K][i]));
	assert_true(wk > 1e-3);
	for (size_t i = 0; i < g.count[AV_P_B_K]; i++)
		assert_true(fabs(g.t[AV_P_B_K][i]) < 1e-14);
	av_grads_free(&g);
	free(d_weights);
	teardown_case(&f);
}

/* The backward reads a short matrix's softmax rows from the trace
 * (kept_softmax) instead of recomputing them: every gradient is what
 * recomputing gives, bit for bit, in every case whose rows are short
 * (hidden keys, a hidden row, cross mode among them). */
static void test_kept_softmax_same_gradients(void **state)
{
	(void)state;
	int short_cases = 0;
	for (int k = 0; k < N_CASES; k++) {
		struct fixture f;
		setup_case(&f, &cases[k]);
		if (f.t.m > AV_KEPT_SOFTMAX_COLS) {
			assert_null(f.t.kept_softmax);
			teardown_case(&f);
			continue;
		}
		short_cases++;
		assert_non_null(f.t.kept_softmax);
		size_t cells = (size_t)cases[k].heads * f.t.n * f.t.m;
		double *d_residual = av_malloc((size_t)f.t.n * cases[k].d_model * sizeof(double));
		double *d_weights = av_malloc(cells * sizeof(double));
		loss(&f, d_residual, d_weights);
		struct av_grads kept, redone;
		av_grads_init(&kept, &f.p, AV_GRADS_ALL);
		av_grads_init(&redone, &f.p, AV_GRADS_ALL);
		av_trace_backward(&f.t, &f.p, d_residual, d_weights, &kept);
		double *rows = f.t.kept_softmax;
		f.t.kept_softmax = NULL;
		av_trace_backward(&f.t, &f.p, d_residual, d_weights, &redone);
		f.t.kept_softmax = rows;
		for (int id = 0; id < AV_N_PARAMS; id++)
			if (kept.t[id])
				assert_memory_equal(kept.t[id], redone.t[id],
						    kept.count[id] * sizeof(double));
		av_grads_free(&kept);
		av_grads_free(&redone);
		free(d_residual);
		free(d_weights);
		teardown_case(&f);
	}
	assert_true(short_cases >= 4);
}

/* A key hidden from every query gets no gradient at all: in cross mode a
 * source word that appears only at a hidden position keeps a zero row. */
static void test_hidden_key_gets_nothing(void **state)
{
	(void)state;
	struct fixture f;
	setup_case(&f, &cases[4]);   /* source "d e a", key 1 ("e") hidden */
	double *d_residual = av_malloc((size_t)f.t.n * f.t.d_model * sizeof(double));
	double *d_weights = av_malloc((size_t)2 * f.t.n * f.t.m * sizeof(double));
	loss(&f, d_residual, d_weights);
	struct av_grads g;
	av_grads_init(&g, &f.p, AV_GRADS_ALL);
	av_trace_backward(&f.t, &f.p, d_residual, d_weights, &g);
	int e = av_params_find(&f.p, "e"), d = av_params_find(&f.p, "d");
	double d_norm = 0;
	for (int c = 0; c < f.t.d_model; c++) {
		assert_true(g.t[AV_P_TOKEN_EMBEDDING][e * f.t.d_model + c] == 0.0);
		d_norm += fabs(g.t[AV_P_TOKEN_EMBEDDING][d * f.t.d_model + c]);
	}
	assert_true(d_norm > 1e-3);   /* a visible source word does get one */
	av_grads_free(&g);
	free(d_residual);
	free(d_weights);
	teardown_case(&f);
}

/* Gradients nobody asked for are not computed, and the ones asked for do
 * not depend on what else was asked. */
static void test_subset_matches_all(void **state)
{
	(void)state;
	struct fixture f;
	setup_case(&f, &cases[3]);
	size_t cells = (size_t)2 * f.t.n * f.t.m;
	double *d_weights = av_malloc(cells * sizeof(double));
	loss(&f, NULL, d_weights);
	struct av_grads all, some;
	av_grads_init(&all, &f.p, AV_GRADS_ALL);
	av_grads_init(&some, &f.p, 1u << AV_P_W_Q | 1u << AV_P_W_K);
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &all);
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &some);
	assert_null(some.t[AV_P_TOKEN_EMBEDDING]);
	assert_null(some.t[AV_P_W_V]);
	for (size_t i = 0; i < all.count[AV_P_W_Q]; i++) {
		assert_true(all.t[AV_P_W_Q][i] == some.t[AV_P_W_Q][i]);
		assert_true(all.t[AV_P_W_K][i] == some.t[AV_P_W_K][i]);
	}
	/* without d_residual the value path has no gradient */
	for (size_t i = 0; i < all.count[AV_P_W_V]; i++) {
		assert_true(all.t[AV_P_W_V][i] == 0.0);
		assert_true(all.t[AV_P_W_O][i] == 0.0);
	}
	/* backward accumulates: a second call doubles the gradient */
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &some);
	for (size_t i = 0; i < all.count[AV_P_W_Q]; i++)
		assert_float_equal(some.t[AV_P_W_Q][i], 2 * all.t[AV_P_W_Q][i],
				   1e-12 * (1 + fabs(all.t[AV_P_W_Q][i])));
	av_grads_zero(&some);
	assert_true(some.t[AV_P_W_Q][0] == 0.0);
	av_grads_free(&all);
	av_grads_free(&some);
	free(d_weights);
	teardown_case(&f);
}

/* grad.assign: the weight matrices (and their biases) it names are
 * written, not added to, with the bits of zeroing them first; what the
 * pass does not reach (W_v without d_residual) keeps its values. */
static void test_assign_is_zero_then_add(void **state)
{
	(void)state;
	struct fixture f;
	setup_case(&f, &cases[3]);
	size_t cells = (size_t)2 * f.t.n * f.t.m;
	double *d_weights = av_malloc(cells * sizeof(double));
	loss(&f, NULL, d_weights);
	struct av_grads added, assigned;
	av_grads_init(&added, &f.p, AV_GRADS_ALL);
	av_grads_init(&assigned, &f.p, AV_GRADS_ALL);
	for (int id = 0; id < AV_N_PARAMS; id++)
		for (size_t i = 0; i < assigned.count[id]; i++)
			assigned.t[id][i] = 123.25;   /* the last step's, say */
	assigned.assign = 1u << AV_P_W_Q | 1u << AV_P_W_K | 1u << AV_P_W_V;
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &added);
	av_trace_backward(&f.t, &f.p, NULL, d_weights, &assigned);
	const int written[] = { AV_P_W_Q, AV_P_B_Q, AV_P_W_K, AV_P_B_K };
	for (size_t k = 0; k < sizeof(written) / sizeof(written[0]); k++) {
		int id = written[k];
		if (added.t[id])
			assert_memory_equal(assigned.t[id], added.t[id],
					    added.count[id] * sizeof(double));
	}
	assert_true(assigned.t[AV_P_W_V][0] == 123.25);
	av_grads_free(&added);
	av_grads_free(&assigned);
	free(d_weights);
	teardown_case(&f);
}

/* The kernels by hand. */
static void test_kernels_by_hand(void **state)
{
	(void)state;
	/* softmax of [0, 0] is [1/2, 1/2]; d/din of out_0 is [1/4, -1/4] */
	float in[] = { 0, 0, 1, (float)AV_MASKED_VALUE };
	unsigned char mask[] = { 1, 1, 1, 0 };
	double dout[] = { 1, 0, 5, 7 }, din[4] = { 0 };
	av_softmax_rows_backward(din, dout, in, mask, 2, 2);
	assert_float_equal(din[0], 0.25, 1e-15);
	assert_float_equal(din[1], -0.25, 1e-15);
	/* one visible cell: the probability is 1 whatever the score */
	assert_true(din[2] == 0.0 && din[3] == 0.0);

	/* out = x . w^T + b with x (1, 2), w (3, 2) */
	float x[] = { 2, 3 }, w[] = { 1, 0, 0, 1, 1, 1 };
	double d[] = { 1, 10, 100 }, dx[2] = { 0 }, dw[6] = { 0 }, db[3] = { 0 };
	av_linear_backward(dx, dw, db, d, x, w, 1, 2, 3);
	assert_float_equal(dx[0], 1 + 100, 0);
	assert_float_equal(dx[1], 10 + 100, 0);
	const double dw_want[] = { 2, 3, 20, 30, 200, 300 };
	for (int i = 0; i < 6; i++)
		assert_float_equal(dw[i], dw_want[i], 0);
	assert_float_equal(db[2], 100, 0);
}

/* in_dim 3 takes its own loop (weight_backward_3): the same sums, in the
 * same order, as the general loop's, added to what dw and db held; a zero
 * dout term is skipped, not added */
static void test_linear_backward_d3(void **state)
{
	(void)state;
	enum { N = 3, IN = 3, OUT = 4 };
	float x[N * IN], w[OUT * IN];
	double dout[N * OUT], dw[OUT * IN], db[OUT], dx[N * IN] = { 0 };
	for (int i = 0; i < N * IN; i++)
		x[i] = 0.1f * (float)(i * 7 % 11) - 0.4f;
	for (int i = 0; i < OUT * IN; i++)
		w[i] = 0.3f * (float)(i * 5 % 7) - 0.9f, dw[i] = 0.01 * i;
	for (int i = 0; i < N * OUT; i++)
		dout[i] = i == 5 ? 0 : 0.7 * (i % 5) - 1.3;
	for (int o = 0; o < OUT; o++)
		db[o] = -0.5 * o;
	double dw_want[OUT * IN], db_want[OUT];
	for (int o = 0; o < OUT; o++) {
		db_want[o] = db[o];
		for (int c = 0; c < IN; c++)
			dw_want[o * IN + c] = dw[o * IN + c];
		for (int i = 0; i < N; i++) {
			double d = dout[i * OUT + o];
			if (d == 0)
				continue;
			db_want[o] += d;
			for (int c = 0; c < IN; c++)
				dw_want[o * IN + c] += d * x[i * IN + c];
		}
	}
	av_linear_backward(dx, dw, db, dout, x, w, N, IN, OUT);
	for (int i = 0; i < OUT * IN; i++)
		assert_true(dw[i] == dw_want[i]);
	for (int o = 0; o < OUT; o++)
		assert_true(db[o] == db_want[o]);
	/* dx[i][c] = sum_o dout[i][o] w[o][c] */
	for (int i = 0; i < N; i++)
		for (int c = 0; c < IN; c++) {
			double want = 0;
			for (int o = 0; o < OUT; o++)
				want += dout[i * OUT + o] * w[o * IN + c];
			assert_float_equal(dx[i * IN + c], want, 1e-15);
		}
}

static void test_param_tensor(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.bias = false;
	cfg.positional = AV_POS_SINUSOIDAL;
	struct av_params p;
	const char *vocab[] = { "x", "y", "z" };
	av_params_init(&p, &cfg, vocab, 3);
	size_t count;
	assert_ptr_equal(av_param_tensor(&p, AV_P_TOKEN_EMBEDDING, &count), p.token_embedding);
	assert_int_equal(count, 3 * 8);
	assert_null(av_param_tensor(&p, AV_P_POSITION_EMBEDDING, &count));
	assert_int_equal(count, 0);
	assert_null(av_param_tensor(&p, AV_P_B_O, &count));
	assert_ptr_equal(av_param_tensor(&p, AV_P_W_O, &count), p.w_o);
	assert_int_equal(count, 64);
	assert_string_equal(av_param_names[AV_P_B_K], "b_k");
	assert_null(av_param_names[AV_N_PARAMS]);
	av_params_free(&p);
}

int main(void)
{
	struct CMUnitTest tests[N_CASES + 8];
	for (int i = 0; i < N_CASES; i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_case,
						.initial_state = (void *)(uintptr_t)i };
	tests[N_CASES] = (struct CMUnitTest)cmocka_unit_test(test_bias_k_gradient_is_zero);
	tests[N_CASES + 1] = (struct CMUnitTest)cmocka_unit_test(test_hidden_key_gets_nothing);
	tests[N_CASES + 2] = (struct CMUnitTest)cmocka_unit_test(test_subset_matches_all);
	tests[N_CASES + 3] = (struct CMUnitTest)cmocka_unit_test(test_kernels_by_hand);
	tests[N_CASES + 4] = (struct CMUnitTest)cmocka_unit_test(test_param_tensor);
	tests[N_CASES + 5] = (struct CMUnitTest)cmocka_unit_test(test_assign_is_zero_then_add);
	tests[N_CASES + 6] = (struct CMUnitTest)cmocka_unit_test(test_linear_backward_d3);
	tests[N_CASES + 7] = (struct CMUnitTest)cmocka_unit_test(test_kept_softmax_same_gradients);
	return _cmocka_run_group_tests("backward", tests, N_CASES + 7, NULL, NULL);
}
