/* test_train.c: training against PyTorch, and the trainer's API.
 *
 * tests/fixtures/train-NAME.json are written by tests/make_train_fixtures.py
 * (run by hand with torch): a weights file holding the initial parameters,
 * plus "reference": a sample (corpus, vocabulary, training settings), which
 * tensors are trained, and what float64 PyTorch computed: the gradient of
 * the first step, the loss of every epoch, the trained tensors, the tracked
 * pair's score after every epoch and the final vocabulary score matrix.
 * train-china-panda is seed 001's own loop (Adam, lr 0.01, 200 epochs).
 *
 * Tolerances, |got - want| <= tol * max(1, |want|) per element ("rel" below
 * is that measure):
 *   first gradient 1e-5  one float32 forward pass (stages rounded to ~6e-8)
 *                        against float64 autograd
 *   loss curve     1e-5  the loss is a sum of squares of float32 weights
 *   parameters     1e-4  after 50 to 200 optimiser steps from float32
 *   track, vocab   1e-4  forward passes (each rounded to float32), hence
 *                        the parameters' drift; 1e-4 is the brief's bound for
 *                        Adam over 200 steps in float32 against float64
 * The largest differences are printed for every fixture. */
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
#include <cjson/cJSON.h>

#include "backward.h"
#include "matmul_avx512.h"
#include "sample.h"
#include "session.h"
#include "train.h"
#include "util.h"
#include "weights.h"

#define TOL_GRAD 1e-5
#define TOL_LOSS 1e-5
#define TOL_PARAM 1e-4
#define TOL_SCORE 1e-4

static const char *const fixture_names[] = {
	"train-china-panda",
	"train-pairs-sgd",
	"train-cross-all",
	"train-causal-previous",
};
#define N_FIXTURES ((int)(sizeof(fixture_names) / sizeof(fixture_names[0])))

/* --- loading ------------------------------------------------------------- */

/* A session from a sample text and, if given, a weights file (else the
 * sample's own parameters). */
static void session_from_sample(struct av_session *s, const char *sample_text,
				const char *weights_path)
{
	char *cause = NULL;
	memset(s, 0, sizeof(*s));
	if (!av_sample_parse(sample_text, "sample", &s->sample, &cause))
		fail_msg("sample: %s", cause);
	s->cfg = s->sample.cfg;
	if (weights_path) {
		av_config_default(&s->cfg);
		if (!av_weights_load(weights_path, &s->cfg, NULL, &s->params, &cause))
			fail_msg("%s", cause);
	} else {
		av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
			       s->sample.n_vocab);
	}
	av_session_start(s);
	s->sentence = av_strdup(s->sample.sentence);
	s->source = s->sample.source ? av_strdup(s->sample.source) : NULL;
}

static void session_from_builtin(struct av_session *s, const char *name)
{
	char *cause = NULL, *text = NULL;
	char *path = av_printf("%s/../samples/%s.json", TESTS_SRCDIR, name);
	if (!av_read_file(path, &text, NULL, &cause))
		fail_msg("%s", cause);
	session_from_sample(s, text, NULL);
	free(text);
	free(path);
	assert_true(av_session_run(s, &cause));
}

/* The session of a training fixture (its initial weights and sample). */
static void session_from_fixture(struct av_session *s, const char *name)
{
	char *path = av_printf("%s/fixtures/%s.json", TESTS_SRCDIR, name), *text = NULL;
	char *cause = NULL;
	if (!av_read_file(path, &text, NULL, &cause))
		fail_msg("%s", cause);
	cJSON *doc = cJSON_Parse(text);
	assert_non_null(doc);
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(doc, "reference");
	char *sample_text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(ref, "sample"));
	session_from_sample(s, sample_text, path);
	free(sample_text);
	cJSON_Delete(doc);
	free(text);
	free(path);
}

static struct av_trainer *new_trainer(const struct av_session *s, enum av_train_set set_params)
{
	struct av_train_settings set;
	char *cause = NULL;
	av_train_settings_from_sample(&set, &s->sample.training);
	set.params = set_params;
	struct av_trainer *tr = av_trainer_new(s, &set, &cause);
	if (!tr)
		fail_msg("av_trainer_new: %s", cause);
	return tr;
}

/* --- comparing ------------------------------------------------------------ */

struct cmp {
	const char *fixture, *what;
	double tol, max_abs, max_rel, got, want;
	long index, count, over;
};

static void cmp_add(struct cmp *c, double got, double want)
{
	double abs_diff = fabs(got - want), rel = abs_diff / fmax(1.0, fabs(want));
	if (isnan(rel))
		rel = INFINITY;
	if (!(rel <= c->tol))
		c->over++;
	if (abs_diff > c->max_abs)
		c->max_abs = abs_diff;
	if (c->count == 0 || rel > c->max_rel) {
		c->max_rel = rel;
		c->index = c->count;
		c->got = got;
		c->want = want;
	}
	c->count++;
}

/* Prints the line; returns false (with a message in err) when over. */
static bool cmp_report(const struct cmp *c, char *err, size_t size)
{
	printf("%s %s: %ld values, max abs diff %.3g, max rel diff %.3g\n", c->fixture, c->what,
	       c->count, c->max_abs, c->max_rel);
	fflush(stdout);
	if (c->over == 0 && c->count > 0)
		return true;
	if (!err[0])
		snprintf(err, size, "%s %s: %ld of %ld over tolerance %g; worst at element %ld: "
			 "attnview %.9g, PyTorch %.17g", c->fixture, c->what, c->over, c->count,
			 c->tol, c->index, c->got, c->want);
	return false;
}

/* The numbers of a nested list, in document order, into out (cap). */
static long flatten(const cJSON *j, double *out, long k, long cap)
{
	if (!cJSON_IsArray(j)) {
		if (k < cap)
			out[k] = cJSON_IsNumber(j) ? j->valuedouble : NAN;
		return k + 1;
	}
	for (const cJSON *x = j->child; x; x = x->next)
		k = flatten(x, out, k, cap);
	return k;
}

/* Adds got (n values, float or double) against the fixture's list. */
static void cmp_json(struct cmp *c, const cJSON *j, const float *gotf, const double *gotd,
		     long n)
{
	double *want = av_malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
	long k = flatten(j, want, 0, n);
	for (long i = 0; i < n && i < k; i++)
		cmp_add(c, gotf ? gotf[i] : gotd[i], want[i]);
	if (k != n) {
		c->over++;
		printf("%s %s: the fixture has %ld values, attnview %ld\n", c->fixture, c->what,
		       k, n);
	}
	free(want);
}

static void cmp_json_floats(struct cmp *c, const cJSON *j, const float *got, long n)
{
	cmp_json(c, j, got, NULL, n);
}

static void cmp_json_doubles(struct cmp *c, const cJSON *j, const double *got, long n)
{
	cmp_json(c, j, NULL, got, n);
}

static const cJSON *get(const cJSON *o, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!x)
		fail_msg("the fixture has no \"%s\"", key);
	return x;
}

/* --- the fixtures --------------------------------------------------------- */

static void test_fixture(void **state)
{
	const char *name = fixture_names[(uintptr_t)*state];
	char *path = av_printf("%s/fixtures/%s.json", TESTS_SRCDIR, name), *text = NULL;
	char *cause = NULL, err[512] = "";
	if (!av_read_file(path, &text, NULL, &cause))
		fail_msg("%s", cause);
	cJSON *doc = cJSON_Parse(text);
	assert_non_null(doc);
	const cJSON *ref = get(doc, "reference");
	char *sample_text = cJSON_PrintUnformatted(get(ref, "sample"));
	struct av_session s;
	session_from_sample(&s, sample_text, path);
	int set_params;
	assert_true(av_enum_parse(av_train_set_names, get(ref, "train_params")->valuestring,
				  &set_params));
	struct av_trainer *tr = new_trainer(&s, (enum av_train_set)set_params);
	int epochs = get(ref, "epochs")->valueint, H = tr->cfg.heads;
	int V = tr->params.vocab_size;
	const cJSON *track_pair = get(ref, "track_pair");
	assert_int_equal(tr->track[0], av_params_find(&tr->params,
						      cJSON_GetArrayItem(track_pair, 0)->valuestring));
	assert_int_equal(tr->track[1], av_params_find(&tr->params,
						      cJSON_GetArrayItem(track_pair, 1)->valuestring));

	/* the gradient of the first step */
	av_trainer_step(tr);
	struct cmp grad = { .fixture = name, .what = "first gradient", .tol = TOL_GRAD };
	const cJSON *g1 = get(ref, "grad_step1");
	int n_trained = 0;
	for (const cJSON *t = g1->child; t; t = t->next) {
		int id;
		assert_true(av_enum_parse(av_param_names, t->string, &id));
		assert_true(tr->trained[id]);
		cmp_json_doubles(&grad, t, tr->grad.t[id], (long)tr->grad.count[id]);
		n_trained++;
	}
	for (int id = 0; id < AV_N_PARAMS; id++)
		n_trained -= tr->trained[id];
	assert_int_equal(n_trained, 0);   /* the same tensors are trained */
	cmp_report(&grad, err, sizeof(err));

	/* from the start again: the loss curve, the trained tensors */
	av_trainer_reset(tr);
	for (int e = 0; e < epochs; e++)
		av_trainer_epoch(tr);
	assert_int_equal(tr->epoch, epochs);
	struct cmp loss = { .fixture = name, .what = "loss per epoch", .tol = TOL_LOSS };
	cmp_json_doubles(&loss, get(ref, "loss"), tr->loss, epochs);
	cmp_report(&loss, err, sizeof(err));
	printf("%s: loss epoch 1 %.6g (PyTorch %.6g), epoch %d %.6g (PyTorch %.6g)\n", name,
	       tr->loss[0], cJSON_GetArrayItem(get(ref, "loss"), 0)->valuedouble, epochs,
	       tr->loss[epochs - 1], cJSON_GetArrayItem(get(ref, "loss"), epochs - 1)->valuedouble);

	struct cmp params = { .fixture = name, .what = "trained parameters", .tol = TOL_PARAM };
	for (const cJSON *t = get(ref, "final")->child; t; t = t->next) {
		int id;
		size_t count;
		assert_true(av_enum_parse(av_param_names, t->string, &id));
		float *p = av_param_tensor(&tr->params, id, &count);
		struct cmp one = { .fixture = name, .what = t->string, .tol = TOL_PARAM };
		cmp_json_floats(&one, t, p, (long)count);
		cmp_json_floats(&params, t, p, (long)count);
		printf("  %s: max abs diff %.3g, max rel diff %.3g\n", t->string, one.max_abs,
		       one.max_rel);
	}
	cmp_report(&params, err, sizeof(err));

	struct cmp track = { .fixture = name, .what = "tracked score per epoch", .tol = TOL_SCORE };
	cmp_json_doubles(&track, get(ref, "track"), tr->track_history, (long)(epochs + 1) * H);
	cmp_report(&track, err, sizeof(err));

	struct cmp vocab = { .fixture = name, .what = "vocabulary scores", .tol = TOL_SCORE };
	float *vs = av_malloc((size_t)H * V * V * sizeof(float));
	av_trainer_vocab_scores(tr, false, vs);
	cmp_json_floats(&vocab, get(ref, "vocab_scores"), vs, (long)H * V * V);
	cmp_report(&vocab, err, sizeof(err));
	free(vs);

	av_trainer_free(tr);
	av_session_free(&s);
	free(sample_text);
	cJSON_Delete(doc);
	free(text);
	free(path);
	if (err[0])
		fail_msg("%s", err);
}

/* --- targets and loss ------------------------------------------------------ */

static void assert_target(const double *t, int n, int m, const int *want)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < m; j++) {
			double expected = want[i] == j ? 1.0 : 0.0;
			if (t[i * m + j] != expected)
				fail_msg("row %d: key %d is %g, expected the 1 at key %d", i, j,
					 t[i * m + j], want[i]);
		}
}

/* Words of text (split at spaces), malloc'd; free with av_string_list_free. */
static char **split(const char *text)
{
	char **out = av_calloc(strlen(text) + 2, sizeof(char *));
	int n = 0;
	for (const char *p = text; *p;) {
		const char *end = strchr(p, ' ');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		out[n++] = av_strndup(p, len);
		p += len + (end != NULL);
	}
	return out;
}

static void check_target(enum av_target kind, bool cross, const char *q, const char *k,
			 const char *pairs, const int *want)
{
	char **qw = split(q), **kw = split(k), **pw = split(pairs);
	int n = 0, m = 0, n_pairs = 0;
	while (qw[n])
		n++;
	while (kw[m])
		m++;
	while (pw[2 * n_pairs])
		n_pairs++;
	char *(*pp)[2] = av_calloc((size_t)n_pairs + 1, sizeof(*pp));
	for (int i = 0; i < n_pairs; i++) {
		pp[i][0] = pw[2 * i];
		pp[i][1] = pw[2 * i + 1];
	}
	double t[64];
	av_attention_target(t, kind, cross, qw, n, kw, m, (char *const (*)[2])pp, n_pairs);
	assert_target(t, n, m, want);
	free(pp);
	av_string_list_free(qw);
	av_string_list_free(kw);
	av_string_list_free(pw);
}

static void test_targets(void **state)
{
	(void)state;
	const char *words = "china panda japan cherry panda";
	const char *pairs = "china panda cherry japan";
	check_target(AV_TARGET_SELF, false, words, words, pairs, (const int[]){ 0, 1, 2, 3, 4 });
	check_target(AV_TARGET_PREVIOUS, false, words, words, pairs,
		     (const int[]){ 0, 0, 1, 2, 3 });
	/* china's nearest panda is at 1; the second panda's china is at 0;
	 * japan/cherry either order */
	check_target(AV_TARGET_PAIRS, false, words, words, pairs, (const int[]){ 1, 0, 3, 2, 0 });
	/* a tie goes to the earlier key; no partner: itself */
	const char *tie = "panda china panda kangaroo";
	check_target(AV_TARGET_PAIRS, false, tie, tie, pairs, (const int[]){ 1, 0, 1, 3 });

	/* cross, n = 4 queries, m = 2 keys */
	const char *q = "le chat le chien", *k = "the cat", *fr = "le the chat cat";
	check_target(AV_TARGET_SELF, true, q, k, fr, (const int[]){ 0, 1, 1, 1 });
	check_target(AV_TARGET_PREVIOUS, true, q, k, fr, (const int[]){ 0, 0, 1, 1 });
	check_target(AV_TARGET_PAIRS, true, q, k, fr, (const int[]){ 0, 1, 0, 1 });
}

static void test_loss_by_hand(void **state)
{
	(void)state;
	/* H = 2, n = m = 2: head 0 = identity (loss 0), head 1 = [[.5,.5],[.5,.5]] */
	const float w[] = { 1, 0, 0, 1, 0.5f, 0.5f, 0.5f, 0.5f };
	const double eye[] = { 1, 0, 0, 1 };
	double d[8];
	double loss = av_attention_loss(w, eye, 2, 2, 2, d);
	assert_float_equal(loss, 4 * 0.25 / 8, 1e-15);
	for (int c = 0; c < 4; c++)
		assert_float_equal(d[c], 0, 0);
	assert_float_equal(d[4], 2 * -0.5 / 8, 1e-15);
	assert_float_equal(d[5], 2 * 0.5 / 8, 1e-15);
	assert_float_equal(av_attention_loss(w, eye, 1, 2, 2, NULL), 0, 0);
}

/* --- optimisers ------------------------------------------------------------- */

/* The first Adam step moves every parameter with a gradient well above eps by
 * lr against its sign (m^ / (sqrt(v^) + eps) = g / (|g| + eps) after bias
 * correction); SGD
 * moves it by lr g. */
static void test_first_steps(void **state)
{
	(void)state;
	for (int opt = 0; opt < 2; opt++) {
		struct av_session s;
		session_from_fixture(&s, "train-china-panda");   /* far from its target */
		struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
		av_trainer_set_optimizer(tr, (enum av_optimizer)opt);
		assert_true(av_trainer_set_lr(tr, 0.01, NULL));
		assert_false(av_trainer_step(tr));   /* 3 sentences: not an epoch yet */
		int moved = 0;
		for (int c = 0; c < 9; c++) {
			double g = tr->grad.t[AV_P_W_Q][c];
			double delta = (double)tr->params.w_q[c] - tr->start.w_q[c];
			/* Adam's first step: lr g / (|g| + eps); the parameter is
			 * then rounded to float32 (half an ulp: 2.4e-7 below 4) */
			double want = opt == AV_OPT_ADAM ? -0.01 * g / (fabs(g) + 1e-8) : -0.01 * g;
			if (opt == AV_OPT_ADAM && fabs(g) < 1e-6)
				continue;
			assert_float_equal(delta, want, 2.5e-7);
			moved++;
		}
		assert_true(moved > 0);
		/* W_v: no gradient reaches it, nothing moves */
		for (int c = 0; c < 9; c++)
			assert_true(tr->params.w_v[c] == tr->start.w_v[c]);
		assert_int_equal(av_trainer_grad_health(tr, AV_P_W_V), AV_GRAD_UNUSED);
		assert_int_equal(av_trainer_grad_health(tr, AV_P_W_O), AV_GRAD_NOT_TRAINED);
		assert_int_equal(av_trainer_grad_health(tr, AV_P_W_Q), AV_GRAD_OK);
		assert_true(tr->grad_norm[AV_P_W_Q] > 0);
		assert_true(isnan(tr->grad_norm[AV_P_W_O]));
		av_trainer_free(tr);
		av_session_free(&s);
	}
}

/* --- slices, reset, setters ---------------------------------------------------- */

static void test_slices_and_reset(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *a = new_trainer(&s, AV_TRAIN_QKV), *b = new_trainer(&s, AV_TRAIN_QKV);
	assert_int_equal(a->n_items, 3);
	assert_int_equal(a->epoch, 0);
	assert_true(isnan(a->last_loss));
	/* 3 single steps = 1 epoch; an epoch call mid-epoch finishes it */
	assert_false(av_trainer_step(a));
	assert_false(av_trainer_step(a));
	assert_true(av_trainer_step(a));
	assert_int_equal(a->epoch, 1);
	assert_int_equal(a->next_item, 0);
	double e1 = av_trainer_epoch(b);
	assert_true(a->loss[0] == e1);
	av_trainer_step(a);
	double e2 = av_trainer_epoch(a);
	assert_true(e2 == av_trainer_epoch(b));
	assert_int_equal(a->epoch, 2);
	assert_memory_equal(a->params.w_q, b->params.w_q, 9 * sizeof(float));

	/* reset: start parameters, empty history, same curve again */
	av_trainer_reset(a);
	assert_int_equal(a->epoch, 0);
	assert_int_equal(a->steps, 0);
	assert_memory_equal(a->params.w_q, s.params.w_q, 9 * sizeof(float));
	assert_true(av_trainer_epoch(a) == e1);
	assert_true(av_trainer_epoch(a) == e2);

	/* the loss goes down over the seed's 200 epochs (target self) */
	for (int e = 2; e < 200; e++)
		av_trainer_epoch(a);
	assert_true(a->loss[199] < 0.1 * a->loss[0]);
	/* track history: epoch + 1 rows, row 0 the start */
	assert_true(a->track_history[0] == b->track_history[0]);
	assert_true(a->track_history[200] == av_trainer_track_score(a, 0));

	/* the record for the trace */
	struct av_training_record r;
	av_trainer_record(a, &r);
	assert_int_equal(r.epochs, 200);
	assert_string_equal(r.optimizer, "adam");
	assert_string_equal(r.target, "self");
	assert_true(r.loss == a->loss);

	av_trainer_free(a);
	av_trainer_free(b);
	av_session_free(&s);
}

static void test_setters(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	session_from_builtin(&s, "qkv-walkthrough");   /* no pairs */
	struct av_train_settings set;
	av_train_settings_from_sample(&set, &s.sample.training);
	assert_int_equal(set.target, AV_TARGET_PREVIOUS);
	set.target = AV_TARGET_PAIRS;
	assert_null(av_trainer_new(&s, &set, &cause));
	assert_non_null(strstr(cause, "pairs"));
	free(cause);
	cause = NULL;
	set.target = AV_TARGET_SELF;
	set.lr = 0;
	assert_null(av_trainer_new(&s, &set, &cause));
	assert_non_null(strstr(cause, "learning rate"));
	free(cause);
	cause = NULL;
	av_session_free(&s);

	session_from_builtin(&s, "china-panda");
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
	assert_false(av_trainer_set_lr(tr, -1, &cause));
	free(cause);
	cause = NULL;
	assert_false(av_trainer_set_lr(tr, NAN, NULL));
	assert_true(tr->set.lr == 0.01);
	assert_true(av_trainer_set_lr(tr, 0.1, NULL));
	assert_true(tr->set.lr == 0.1);

	/* target: the china-panda pairs make china look at panda */
	assert_true(av_trainer_set_target(tr, AV_TARGET_PAIRS, NULL));
	assert_true(tr->items[0].target[1] == 1.0 && tr->items[0].target[0] == 0.0);
	av_trainer_epoch(tr);
	assert_true(av_trainer_set_target(tr, AV_TARGET_PREVIOUS, NULL));
	assert_true(tr->items[0].target[0] == 1.0 && tr->items[0].target[2] == 1.0);
	assert_int_equal(tr->epoch, 1);    /* progress continues */

	/* every parameter: embeddings and positions move too */
	av_trainer_set_params(tr, AV_TRAIN_ALL);
	assert_true(tr->trained[AV_P_TOKEN_EMBEDDING] && tr->trained[AV_P_POSITION_EMBEDDING]);
	assert_false(tr->trained[AV_P_B_Q]);   /* no bias in this sample */
	assert_int_equal(tr->steps, 0);
	float before = tr->params.token_embedding[0];
	av_trainer_epoch(tr);
	assert_true(tr->params.token_embedding[0] != before);

	/* init: new trained matrices, embeddings and w_o kept, a reset */
	av_trainer_set_params(tr, AV_TRAIN_QKV);
	av_trainer_set_init(tr, AV_INIT_XAVIER);
	assert_int_equal(tr->epoch, 0);
	assert_int_equal(tr->cfg.init, AV_INIT_XAVIER);
	assert_memory_not_equal(tr->params.w_q, s.params.w_q, 9 * sizeof(float));
	assert_memory_equal(tr->params.w_o, s.params.w_o, 9 * sizeof(float));
	assert_memory_equal(tr->params.token_embedding, s.params.token_embedding,
			    18 * sizeof(float));
	double bound = sqrt(6.0 / 6.0);
	for (int c = 0; c < 9; c++)
		assert_true(fabs(tr->params.w_q[c]) <= bound);
	float xavier_wq = tr->params.w_q[0];
	av_trainer_epoch(tr);
	av_trainer_reset(tr);
	assert_true(tr->params.w_q[0] == xavier_wq);   /* the new start */

	/* track */
	assert_false(av_trainer_set_track(tr, 0, 99, NULL));
	av_trainer_epoch(tr);
	assert_true(av_trainer_set_track(tr, 2, 3, NULL));
	assert_true(isnan(tr->track_history[0]));
	assert_false(isnan(tr->track_history[1]));
	assert_true(av_trainer_set_track(tr, -1, -1, NULL));
	assert_true(isnan(av_trainer_track_score(tr, 0)));

	av_trainer_free(tr);
	av_session_free(&s);
}

/* A change of target in a run: the losses recorded stay the steps' sums
 * (what PyTorch's loop adds up), and the change is noted with the corpus
 * loss against the new target at that moment, so that a screen need not
 * join the old target's losses to the new one's. w pressed twice is one
 * change; back to the target the steps trained toward is none; a reset
 * forgets them. */
static void test_target_change_noted(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
	struct av_trainer *same = new_trainer(&s, AV_TRAIN_QKV);
	assert_int_equal(tr->set.target, AV_TARGET_SELF);
	/* before a step: no change to note */
	assert_true(av_trainer_set_target(tr, AV_TARGET_PREVIOUS, NULL));
	assert_true(av_trainer_set_target(tr, AV_TARGET_SELF, NULL));
	assert_null(av_trainer_target_change(tr));
	double first = av_trainer_epoch(tr);
	assert_true(first == av_trainer_epoch(same));   /* and nothing else moved */
	assert_true(av_trainer_set_target(tr, AV_TARGET_PREVIOUS, NULL));
	assert_true(av_trainer_set_target(tr, AV_TARGET_PAIRS, NULL));
	const struct av_target_change *ch = av_trainer_target_change(tr);
	assert_non_null(ch);
	assert_int_equal(tr->n_target_changes, 1);
	assert_int_equal(ch->epoch, 1);
	assert_int_equal(ch->item, 0);
	assert_int_equal(ch->was, AV_TARGET_SELF);
	/* the corpus loss against pairs at epoch 1's weights */
	assert_true(av_trainer_set_target(same, AV_TARGET_PAIRS, NULL));
	assert_true(ch->loss == av_trainer_corpus_loss(same));
	assert_true(ch->loss == av_trainer_corpus_loss(tr));
	assert_true(ch->loss != first);
	/* the epoch's loss is its steps' sum, as without the note */
	double second = av_trainer_epoch(tr);
	assert_true(second == av_trainer_epoch(same));
	assert_true(tr->loss[0] == first && tr->loss[1] == second);
	/* back to self at once after a step: another change */
	av_trainer_step(tr);
	assert_true(av_trainer_set_target(tr, AV_TARGET_SELF, NULL));
	assert_int_equal(tr->n_target_changes, 2);
	assert_int_equal(av_trainer_target_change(tr)->item, 1);
	assert_int_equal(av_trainer_target_change(tr)->was, AV_TARGET_PAIRS);
	/* and straight back: none */
	assert_true(av_trainer_set_target(tr, AV_TARGET_PAIRS, NULL));
	assert_int_equal(tr->n_target_changes, 1);
	/* only the newest are kept */
	for (int k = 0; k < AV_TRAIN_TARGET_CHANGES + 3; k++) {
		av_trainer_step(tr);
		assert_true(av_trainer_set_target(tr, k % 2 ? AV_TARGET_PAIRS : AV_TARGET_SELF,
						  NULL));
	}
	assert_int_equal(tr->n_target_changes, AV_TRAIN_TARGET_CHANGES);
	assert_int_equal(av_trainer_target_change(tr)->epoch * tr->n_items +
			 av_trainer_target_change(tr)->item,
			 tr->epoch * tr->n_items + tr->next_item);
	av_trainer_reset(tr);
	assert_null(av_trainer_target_change(tr));
	av_trainer_free(same);
	av_trainer_free(tr);
	av_session_free(&s);
}

/* --- what the screen shows ------------------------------------------------------ */

static void test_vocab_scores(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
	int V = tr->params.vocab_size;
	assert_int_equal(V, 6);
	float *vs = av_malloc((size_t)V * V * sizeof(float));
	float *vp = av_malloc((size_t)V * V * sizeof(float));
	av_trainer_vocab_scores(tr, false, vs);
	av_trainer_vocab_scores(tr, true, vp);
	/* by hand: china (0) -> panda (1), x W_q^T . x W_k^T / sqrt(3) */
	const struct av_params *p = &tr->params;
	double q[3] = { 0 }, k[3] = { 0 }, dot = 0;
	for (int o = 0; o < 3; o++)
		for (int c = 0; c < 3; c++) {
			q[o] += (double)p->token_embedding[c] * p->w_q[o * 3 + c];
			k[o] += (double)p->token_embedding[3 + c] * p->w_k[o * 3 + c];
		}
	for (int o = 0; o < 3; o++)
		dot += q[o] * k[o];
	assert_float_equal(vs[0 * V + 1], dot / sqrt(3.0), 1e-5);
	assert_true(vs[1] == (float)av_trainer_track_score(tr, 0));
	assert_true(vp[1] != vs[1]);   /* learned position 0 added */

	/* the trace's scaled stage is the vocabulary score with positions: in
	 * "china panda", cell (0, 0) is china at 0 looking at china at 0 */
	struct av_session one;
	session_from_builtin(&one, "china-panda");
	assert_true(av_session_set_sentence(&one, "china panda", NULL));
	assert_float_equal(one.trace.scaled[0], vp[0], 1e-5);
	av_session_free(&one);
	free(vs);
	free(vp);
	av_trainer_free(tr);
	av_session_free(&s);
}

static void test_histogram(void **state)
{
	(void)state;
	int counts[4];
	double lo, hi;
	const float v[] = { 0, 1, 2, 3, 4, 4 };
	av_histogram(v, 6, 4, counts, &lo, &hi);
	assert_true(lo == 0 && hi == 4);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 1);
	assert_int_equal(counts[2], 1);
	assert_int_equal(counts[3], 3);
	const float same[] = { 2, 2 };
	av_histogram(same, 2, 4, counts, &lo, &hi);
	assert_int_equal(counts[2], 2);
	assert_true(lo == 2 && hi == 2);
	av_histogram(NULL, 0, 4, counts, &lo, &hi);
	assert_int_equal(counts[0] + counts[1] + counts[2] + counts[3], 0);

	/* Overflowed scores (issue 8): +-inf go to the end bins, NaN to none,
	 * and the range is that of the finite values; no NaN reaches an int
	 * conversion (undefined behaviour; the sanitizer build traps it). */
	const float wild[] = { -INFINITY, 0, 1, INFINITY, NAN, 2 };
	av_histogram(wild, 6, 4, counts, &lo, &hi);
	assert_true(lo == 0 && hi == 2);
	assert_int_equal(counts[0], 2);
	assert_int_equal(counts[1], 0);
	assert_int_equal(counts[2], 1);
	assert_int_equal(counts[3], 2);
	const float only_wild[] = { INFINITY, -INFINITY, NAN };
	av_histogram(only_wild, 3, 4, counts, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	assert_int_equal(counts[0] + counts[1] + counts[2] + counts[3], 2);

	/* causal: only visible cells count */
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	s.cfg.mode = AV_MODE_CAUSAL;
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
	int bins[20], n = av_trainer_score_histogram(tr, 20, bins, &lo, &hi), sum = 0;
	assert_int_equal(n, 3 * 3);   /* 3 sentences x (1 + 2) visible cells */
	for (int i = 0; i < 20; i++)
		sum += bins[i];
	assert_int_equal(sum, n);
	assert_true(lo < hi);
	av_trainer_free(tr);
	av_session_free(&s);
}

/* Saturated softmax: huge scores make every gradient vanish; a huge
 * learning rate with SGD makes them explode. */
static void test_grad_health(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	for (int c = 0; c < 9; c++) {
		s.params.w_q[c] *= 300;
		s.params.w_k[c] *= 300;
	}
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
	av_trainer_step(tr);
	printf("saturated: |grad W_q| = %g\n", tr->grad_norm[AV_P_W_Q]);
	assert_int_equal(av_trainer_grad_health(tr, AV_P_W_Q), AV_GRAD_VANISHING);
	av_trainer_free(tr);
	av_session_free(&s);

	/* huge inputs through tiny weights: scores of ordinary size, but
	 * dscores/dW_q = x k is huge */
	session_from_fixture(&s, "train-china-panda");
	for (int c = 0; c < 18; c++)
		s.params.token_embedding[c] *= 1e5f;
	for (int c = 0; c < 6; c++)
		s.params.position_embedding[c] *= 1e5f;
	for (int c = 0; c < 9; c++) {
		s.params.w_q[c] *= 1e-5f;
		s.params.w_k[c] *= 1e-5f;
	}
	tr = new_trainer(&s, AV_TRAIN_QKV);
	av_trainer_step(tr);
	printf("huge inputs, tiny weights: |grad W_q| = %g\n", tr->grad_norm[AV_P_W_Q]);
	assert_int_equal(av_trainer_grad_health(tr, AV_P_W_Q), AV_GRAD_EXPLODING);
	av_trainer_free(tr);
	av_session_free(&s);
}

/* --- the corpus ----------------------------------------------------------------- */

static const char cross_sample[] =
	"{\"name\": \"x\", \"sentence\": \"le chat\", \"source\": \"the cat eats\","
	" \"sentences\": [\"le chat ||| the cat\", \"le chat mange\"],"
	" \"vocab\": [\"le\", \"chat\", \"mange\", \"the\", \"cat\", \"eats\"],"
	" \"config\": {\"mode\": \"cross\", \"d_model\": 4, \"heads\": 2},"
	" \"training\": {\"target\": \"pairs\", \"pairs\": [[\"le\", \"the\"], [\"cat\", \"chat\"]]}}";

static void test_cross_corpus(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	session_from_sample(&s, cross_sample, NULL);
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_ALL);
	assert_string_equal(tr->items[0].query, "le chat");
	assert_string_equal(tr->items[0].source, "the cat");
	assert_string_equal(tr->items[1].source, "the cat eats");   /* the session's */
	assert_int_equal(tr->items[1].trace.n, 3);
	assert_int_equal(tr->items[1].trace.m, 3);
	assert_target(tr->items[1].target, 3, 3, (const int[]){ 0, 1, 2 });
	assert_int_equal(tr->track[0], 0);   /* the first pair: le -> the */
	assert_int_equal(tr->track[1], 3);
	av_trainer_epoch(tr);
	assert_true(av_trainer_apply(tr, &s, &cause));
	assert_memory_equal(s.params.w_q, tr->params.w_q, 16 * sizeof(float));
	assert_int_equal(s.trace.m, 3);
	av_trainer_free(tr);

	/* no source anywhere: the entry without ||| cannot be used */
	free(s.source);
	s.source = NULL;
	struct av_train_settings set;
	av_train_settings_from_sample(&set, &s.sample.training);
	assert_null(av_trainer_new(&s, &set, &cause));
	assert_non_null(strstr(cause, "training sentence 2"));
	assert_non_null(strstr(cause, "|||"));
	free(cause);
	cause = NULL;

	/* outside cross mode the part before ||| is the sentence */
	s.cfg.mode = AV_MODE_SELF;
	tr = av_trainer_new(&s, &set, &cause);
	assert_non_null(tr);
	assert_int_equal(tr->items[0].trace.n, 2);
	assert_null(tr->items[0].source);
	av_trainer_free(tr);
	av_session_free(&s);
}

/* A sentence of more than 16 tokens goes through the AVX-512 route that
 * can keep each W^T's copy in the trace (matmul.h): every step changes the
 * weights in place, and the trainer's next forward pass must see them, as
 * a fresh trace does, to the bit; so must the session's trace once the
 * trained weights are applied. */
static void test_long_sentence_sees_each_step(void **state)
{
	(void)state;
	static const char sample[] =
		"{\"name\": \"long\", \"sentence\": \"a b c d e f g h i j k l m n o p q r s t\","
		" \"sentences\": [\"a b c d e f g h i j k l m n o p q r s t\"],"
		" \"vocab\": [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\","
		" \"j\", \"k\", \"l\", \"m\", \"n\", \"o\", \"p\", \"q\", \"r\", \"s\", \"t\"],"
		" \"config\": {\"d_model\": 64, \"heads\": 4}}";
	struct av_session s;
	char *cause = NULL;
	session_from_sample(&s, sample, NULL);
	s.keeps_copies = true;   /* as the screen's */
	assert_true(av_session_run(&s, &cause));
#if HAVE_BLAS
	if (av_avx512_usable())
		assert_non_null(s.trace.packed[0].data);   /* W_q^T kept */
#endif
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_ALL);
	assert_int_equal(tr->items[0].trace.n, 20);
	/* a trainer's traces keep nothing (their weights change every step);
	 * made to, they must still see each step */
	tr->items[0].trace.keeps_packed = true;
	for (int e = 0; e < 3; e++) {
		av_trainer_epoch(tr);
		int count;
		free(av_trainer_scores(tr, &count));   /* the forward at the new weights */
		struct av_trace fresh = { 0 };
		assert_true(av_trace_run(&fresh, &tr->params, &tr->cfg, tr->items[0].query, NULL,
					 NULL, 0, &cause));
		const struct av_trace *t = &tr->items[0].trace;
		size_t cells = (size_t)t->heads * t->n * t->m;
		assert_memory_equal(t->q, fresh.q, (size_t)t->n * t->d_model * sizeof(float));
		assert_memory_equal(t->weights, fresh.weights, cells * sizeof(float));
		av_trace_free(&fresh);
	}
	/* the trained weights applied: the session's next run sees them */
	assert_true(av_trainer_apply(tr, &s, &cause));
	assert_true(av_session_run(&s, &cause));
	struct av_trace fresh = { 0 };
	assert_true(av_trace_run(&fresh, &s.params, &s.cfg, s.sentence, NULL, NULL, 0, &cause));
	assert_memory_equal(s.trace.residual, fresh.residual,
			    (size_t)fresh.n * fresh.d_model * sizeof(float));
	av_trace_free(&fresh);
	av_trainer_free(tr);
	av_session_free(&s);
}

static void test_corpus_errors(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	/* a learned table of 2 rows cannot hold a 3-word sentence */
	session_from_sample(&s,
		"{\"name\": \"x\", \"sentence\": \"a b\", \"sentences\": [\"a b\", \"a b c\"],"
		" \"config\": {\"positional\": \"learned\", \"max_positions\": 2}}", NULL);
	struct av_train_settings set;
	av_train_settings_from_sample(&set, &s.sample.training);
	assert_null(av_trainer_new(&s, &set, &cause));
	assert_non_null(strstr(cause, "training sentence 2"));
	assert_non_null(strstr(cause, "max_positions"));
	free(cause);
	av_session_free(&s);
}

/* Every shipped sample trains, and its loss goes down. */
static void test_samples_train(void **state)
{
	(void)state;
	const char *names[] = { "china-panda", "translate-cross", "qkv-walkthrough" };
	const int epochs[] = { 200, 100, 3 };
	for (int i = 0; i < 3; i++) {
		struct av_session s;
		session_from_builtin(&s, names[i]);
		struct av_trainer *tr = new_trainer(&s, AV_TRAIN_QKV);
		for (int e = 0; e < epochs[i]; e++)
			av_trainer_epoch(tr);
		printf("%s: loss %.6g -> %.6g after %d epochs\n", names[i], tr->loss[0],
		       tr->loss[epochs[i] - 1], epochs[i]);
		assert_true(tr->loss[epochs[i] - 1] < tr->loss[0]);
		av_trainer_free(tr);
		av_session_free(&s);
	}
}

/* The largest finite |weight| of the trained tensors, now or at the start
 * (av_trainer_diagnose's max_param, kept by the steps), by a plain scan. */
static double scan_largest(const struct av_trainer *tr, const struct av_params *p)
{
	double big = 0;
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		const float *t = av_param_tensor(p, id, &count);
		for (size_t c = 0; tr->trained[id] && c < count; c++)
			if (isfinite(t[c]) && fabs(t[c]) > big)
				big = fabs(t[c]);
	}
	return big;
}

static void test_diagnosis_largest_weight(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_ALL);
	assert_true(av_trainer_set_lr(tr, 0.5, NULL));   /* the weights grow */
	for (int round = 0; round < 4; round++) {
		for (int e = 0; e < 10; e++)
			av_trainer_epoch(tr);
		av_trainer_step(tr);
		struct av_train_diagnosis d;
		av_trainer_diagnose(tr, &d);
		double now = scan_largest(tr, &tr->params), start = scan_largest(tr, &tr->start);
		assert_true(d.max_param == fmax(now, start));
		if (round == 1)
			av_trainer_set_optimizer(tr, AV_OPT_SGD);
	}
	assert_true(scan_largest(tr, &tr->params) > scan_largest(tr, &tr->start));
	av_trainer_free(tr);
	av_session_free(&s);
}

/* A weight that stops being a number is reported by the Adam step that
 * moves it (four values at a time), and the largest weight stays the
 * largest finite one. Position 10's row is in no sentence: the forward pass
 * never reads it, its gradient is 0, and only the step's own check can see
 * its nan. */
static void test_adam_step_reports_nonfinite(void **state)
{
	(void)state;
	struct av_session s;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *tr = new_trainer(&s, AV_TRAIN_ALL);
	av_trainer_step(tr);
	assert_int_equal(tr->nonfinite, -1);
	int D = tr->params.d_model;
	for (int c = 0; c < D; c++) {
		tr->params.position_embedding[10 * D + c] = c == 1 ? NAN : 1e30f;
		av_trainer_step(tr);
		assert_int_equal(tr->nonfinite, c < 1 ? -1 : AV_P_POSITION_EMBEDDING);
	}
	struct av_train_diagnosis d;
	av_trainer_diagnose(tr, &d);
	assert_true(d.max_param >= 1e30f && isfinite(d.max_param));
	av_trainer_free(tr);
	av_session_free(&s);
}

/* --- sleeping between visits of the training view ------------------------ */

/* china-panda at D=d_model (heads kept), its weights drawn from the seed. */
static void session_at_width(struct av_session *s, int d_model)
{
	char *cause = NULL;
	session_from_builtin(s, "china-panda");
	s->cfg.d_model = d_model;
	av_params_free(&s->params);
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	assert_true(av_session_run(s, &cause));
}

static void assert_same_training(const struct av_trainer *a, const struct av_trainer *b)
{
	size_t dd = (size_t)a->params.d_model * a->params.d_model;
	assert_int_equal(a->epoch, b->epoch);
	assert_int_equal(a->next_item, b->next_item);
	assert_int_equal(a->steps, b->steps);
	assert_memory_equal(a->params.w_q, b->params.w_q, dd * sizeof(float));
	assert_memory_equal(a->params.w_k, b->params.w_k, dd * sizeof(float));
	assert_memory_equal(a->loss, b->loss, (size_t)a->epoch * sizeof(double));
	assert_memory_equal(a->track_history, b->track_history,
			    (size_t)(a->epoch + 1) * a->cfg.heads * sizeof(double));
}

/* Small moments are kept asleep: the training after av_trainer_wake is the
 * one that never slept, bit for bit, and so is r's return to the start. */
static void test_sleep_keeps_small_adam(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	session_from_builtin(&s, "china-panda");
	struct av_trainer *a = new_trainer(&s, AV_TRAIN_QKV), *b = new_trainer(&s, AV_TRAIN_QKV);
	for (int i = 0; i < 7; i++) {
		av_trainer_step(a);
		av_trainer_step(b);
	}
	assert_true(av_trainer_apply(a, &s, &cause));
	assert_false(av_trainer_sleep(a, &s));   /* no restart */
	assert_true(a->asleep);
	assert_null(a->params.w_q);
	assert_non_null(a->grad.t[AV_P_W_Q]);   /* small: the last gradients stay */
	double g0 = a->grad.t[AV_P_W_Q][0];
	assert_null(a->items[0].trace.weights);
	assert_non_null(a->adam_m[AV_P_W_Q]);
	assert_true(av_trainer_tensor_is(a, AV_P_W_Q, s.params.w_q, 9));
	assert_false(av_trainer_tensor_is(a, AV_P_W_Q, s.params.w_k, 9));
	assert_true(av_trainer_set_lr(a, 0.02, NULL));   /* settings change asleep */
	assert_true(av_trainer_set_lr(b, 0.02, NULL));
	assert_true(av_trainer_wake(a, &s, &cause));
	assert_false(a->asleep);
	assert_true(a->grad.t[AV_P_W_Q][0] == b->grad.t[AV_P_W_Q][0]);
	assert_true(a->grad.t[AV_P_W_Q][0] == g0);
	for (int e = 0; e < 5; e++) {
		av_trainer_epoch(a);
		av_trainer_epoch(b);
	}
	assert_same_training(a, b);
	av_trainer_reset(a);
	av_trainer_reset(b);
	assert_same_training(a, b);
	av_trainer_free(a);
	av_trainer_free(b);
	av_session_free(&s);
}

/* Large moments are freed asleep: after av_trainer_wake the training is
 * the one that restarted its optimiser at the same step (o twice), bit for
 * bit; the start, drawn again from the seed, is r's. */
static void test_sleep_restarts_large_adam(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	session_at_width(&s, 256);   /* moments of W_q, W_k: 1 MB */
	struct av_trainer *a = new_trainer(&s, AV_TRAIN_QKV), *b = new_trainer(&s, AV_TRAIN_QKV);
	for (int i = 0; i < 4; i++) {
		av_trainer_step(a);
		av_trainer_step(b);
	}
	assert_true(av_trainer_apply(a, &s, &cause));
	assert_true(av_trainer_sleep(a, &s));   /* Adam restarts */
	assert_int_equal(a->steps, 0);
	for (int id = 0; id < AV_N_PARAMS; id++)
		assert_null(a->adam_m[id]);
	assert_null(a->start.w_q);   /* trained: drawn again on waking */
	assert_null(a->start.w_v);   /* untrained: the current one */
	assert_true(av_trainer_wake(a, &s, &cause));
	av_trainer_set_optimizer(b, AV_OPT_ADAM);   /* a fresh Adam */
	for (int e = 0; e < 2; e++) {
		av_trainer_epoch(a);
		av_trainer_epoch(b);
	}
	assert_same_training(a, b);
	av_trainer_reset(a);
	av_trainer_reset(b);
	assert_same_training(a, b);
	av_trainer_free(a);
	av_trainer_free(b);
	av_session_free(&s);
}

/* A start neither the session nor a fresh draw gives back (i drew xavier)
 * is kept while asleep; weights changed in the session while the trainer
 * slept make av_trainer_wake refuse. */
/* Adam's 1 - beta^t from the running product has pow()'s bits at every t
 * where it is not exactly 1 (past ~37 000 steps both powers are below
 * 2^-54), stepping on and starting again. */
static void test_running_power_matches_pow(void **state)
{
	(void)state;
	const double betas[] = { 0.9, 0.999 };
	for (size_t b = 0; b < 2; b++) {
		struct av_running_power p = { 0 };
		long mismatches = 0, first = 0;
		for (long t = 1; t <= 50000; t++) {
			double want = 1.0 - pow(betas[b], (double)t);
			if (1.0 - av_running_power(&p, betas[b], t) != want && !mismatches++)
				first = t;
		}
		if (mismatches)
			fail_msg("beta %g: %ld steps differ from pow, the first at t = %ld",
				 betas[b], mismatches, first);
		assert_true(1.0 - av_running_power(&p, betas[b], 50000) == 1.0);
		/* a reset optimiser starts from t = 1 again; a jump steps on */
		assert_true(av_running_power(&p, betas[b], 1) == betas[b]);
		assert_true(av_running_power(&p, betas[b], 7) == pow(betas[b], 7.0));
		assert_true(av_running_power(&p, betas[b], 7) == pow(betas[b], 7.0));
	}
	struct av_running_power zero = { 0 };
	assert_true(av_running_power(&zero, 0.9, 0) == 1.0);
}

static void test_sleep_keeps_what_cannot_come_back(void **state)
{
	(void)state;
	struct av_session s;
	char *cause = NULL;
	session_at_width(&s, 16);
	struct av_trainer *a = new_trainer(&s, AV_TRAIN_QKV), *b = new_trainer(&s, AV_TRAIN_QKV);
	av_trainer_set_init(a, AV_INIT_XAVIER);
	av_trainer_set_init(b, AV_INIT_XAVIER);
	av_trainer_epoch(a);
	av_trainer_epoch(b);
	assert_true(av_trainer_apply(a, &s, &cause));
	assert_false(av_trainer_sleep(a, &s));
	assert_non_null(a->start.w_q);
	assert_true(av_trainer_wake(a, &s, &cause));
	av_trainer_epoch(a);
	av_trainer_epoch(b);
	av_trainer_reset(a);
	av_trainer_reset(b);
	assert_same_training(a, b);

	assert_true(av_trainer_apply(a, &s, &cause));
	av_trainer_sleep(a, &s);
	s.params.w_q[3] += 1;
	assert_false(av_trainer_tensor_is(a, AV_P_W_Q, s.params.w_q, 256));
	assert_false(av_trainer_wake(a, &s, &cause));
	assert_non_null(cause);
	free(cause);
	av_trainer_free(a);
	av_trainer_free(b);
	av_session_free(&s);
}


/* The histories a run keeps stay within AV_TRAIN_HISTORY_BYTES: the most
 * epochs fall as the heads grow (a screen left training overnight grew
 * 5 MB a minute at H=8). */
/* Training with the fused passes of small layers (attention.h) gives the
 * bits of training with the staged ones: every trained tensor, loss,
 * gradient norm and tracked score, over epochs of three samples they fit
 * (china-panda; self with bias and SGD; causal with two heads). */
static void test_fused_training_same_bits(void **state)
{
	(void)state;
	const char *names[] = { "train-china-panda", "train-pairs-sgd", "train-causal-previous" };
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct av_session s;
		session_from_fixture(&s, names[k]);
		struct av_trainer *tr[2];
		for (int fused = 0; fused < 2; fused++) {
			unsigned long before = av_fused.backwards;
			av_fused.on = fused;
			tr[fused] = new_trainer(&s, AV_TRAIN_QKV);
			for (int e = 0; e < 40; e++)
				av_trainer_epoch(tr[fused]);
			assert_true(fused ? av_fused.backwards > before : av_fused.backwards == before);
		}
		av_fused.on = true;
		for (int id = 0; id < AV_N_PARAMS; id++) {
			size_t count, other;
			const float *a = av_param_tensor(&tr[0]->params, id, &count);
			const float *b = av_param_tensor(&tr[1]->params, id, &other);
			assert_int_equal(count, other);
			if (count)
				assert_memory_equal(a, b, count * sizeof(float));
		}
		assert_memory_equal(tr[0]->loss, tr[1]->loss, 40 * sizeof(double));
		assert_memory_equal(tr[0]->grad_norm, tr[1]->grad_norm, sizeof(tr[0]->grad_norm));
		assert_memory_equal(tr[0]->track_history, tr[1]->track_history,
				    41 * (size_t)s.cfg.heads * sizeof(double));
		av_trainer_free(tr[0]);
		av_trainer_free(tr[1]);
		av_session_free(&s);
	}
}

static void test_history_is_bounded(void **state)
{
	(void)state;
	struct av_trainer tr;
	memset(&tr, 0, sizeof tr);
	for (int H = 1; H <= 512; H *= 2) {
		tr.cfg.heads = H;
		size_t most = (size_t)av_trainer_max_epochs(&tr);
		assert_true(most * sizeof(double) * (1 + 3 * (size_t)H) <= AV_TRAIN_HISTORY_BYTES);
		assert_true((most + 1) * sizeof(double) * (1 + 3 * (size_t)H) >
			    AV_TRAIN_HISTORY_BYTES);
	}
	tr.cfg.heads = 8;
	assert_int_equal(av_trainer_max_epochs(&tr), 335544);
}

int main(void)
{
	const struct CMUnitTest more[] = {
		cmocka_unit_test(test_history_is_bounded),
		cmocka_unit_test(test_fused_training_same_bits),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_loss_by_hand),
		cmocka_unit_test(test_first_steps),
		cmocka_unit_test(test_slices_and_reset),
		cmocka_unit_test(test_setters),
		cmocka_unit_test(test_target_change_noted),
		cmocka_unit_test(test_vocab_scores),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_grad_health),
		cmocka_unit_test(test_cross_corpus),
		cmocka_unit_test(test_corpus_errors),
		cmocka_unit_test(test_long_sentence_sees_each_step),
		cmocka_unit_test(test_samples_train),
		cmocka_unit_test(test_diagnosis_largest_weight),
		cmocka_unit_test(test_adam_step_reports_nonfinite),
		cmocka_unit_test(test_sleep_keeps_small_adam),
		cmocka_unit_test(test_sleep_restarts_large_adam),
		cmocka_unit_test(test_sleep_keeps_what_cannot_come_back),
		cmocka_unit_test(test_running_power_matches_pow),
	};
	struct CMUnitTest tests[N_FIXTURES + sizeof(more) / sizeof(more[0])];
	int n = 0;
	for (int i = 0; i < N_FIXTURES; i++)
		tests[n++] = (struct CMUnitTest){ .name = fixture_names[i], .test_func = test_fixture,
						  .initial_state = (void *)(uintptr_t)i };
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		tests[n++] = more[i];
	return _cmocka_run_group_tests("train", tests, (size_t)n, NULL, NULL);
}
