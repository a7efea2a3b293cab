/* test_compare.c: the engine side of the figures and of pin and compare:
 * the tril matrix against the causal trace's mask, the three attention
 * kinds against the session's own runs (and leaving its parameters alone),
 * and snapshots: copies, differences, max |delta|, shape mismatch refused. */
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

#include "compare.h"
#include "figures.h"
#include "session.h"
#include "util.h"

static void setup_session(struct av_session *s, const char *sentence, enum av_mode mode)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	s->cfg.mode = mode;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(sentence);
	assert_true(av_session_run(s, &cause));
}

/* torch.tril(torch.ones(n, n)) is exactly the causal trace's mask. */
static void test_tril_is_causal_mask(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s, "china panda japan cherry australia", AV_MODE_CAUSAL);
	int n = s.trace.n;
	float tril[25];
	av_tril_ones(tril, n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			assert_true(tril[i * n + j] == (float)s.trace.mask[i * n + j]);
	assert_true(tril[0 * n + 1] == 0.0f);
	assert_true(tril[4 * n + 0] == 1.0f);
	av_session_free(&s);
}

static void assert_floats_equal(const float *a, const float *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_true(a[i] == b[i]);
}

/* Each kind equals the session run in that mode, the session's parameters
 * do not grow for an unknown word, and without a source the sentence is
 * its own source. */
static void test_kinds_match_session(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s, "china koala panda", AV_MODE_SELF);
	int vocab = s.params.vocab_size;
	struct av_attention_kinds k;
	memset(&k, 0, sizeof(k));
	char *cause = NULL;
	assert_true(av_attention_kinds_run(&k, &s.params, &s.cfg, s.sentence, NULL, NULL,
					   &cause));
	assert_true(k.source_is_sentence);
	assert_int_equal(s.params.vocab_size, vocab);
	size_t cells = (size_t)s.trace.heads * s.trace.n * s.trace.m;
	assert_floats_equal(k.self.weights, s.trace.weights, cells);
	assert_int_equal(k.cross.m, s.trace.n);

	s.cfg.mode = AV_MODE_CAUSAL;
	assert_true(av_session_run(&s, &cause));
	assert_floats_equal(k.causal.weights, s.trace.weights, cells);
	assert_floats_equal(k.causal.masked, s.trace.masked, cells);

	s.cfg.mode = AV_MODE_CROSS;
	s.source = av_strdup("japan cherry");
	assert_true(av_session_run(&s, &cause));
	assert_true(av_attention_kinds_run(&k, &s.params, &s.cfg, s.sentence, s.source, NULL,
					   &cause));
	assert_false(k.source_is_sentence);
	assert_int_equal(k.cross.m, 2);
	assert_floats_equal(k.cross.weights, s.trace.weights,
			    (size_t)s.trace.heads * s.trace.n * s.trace.m);
	/* the cross trace never sees the padding mask, self does */
	bool hidden[AV_MAX_TOKENS] = { false };
	hidden[2] = true;
	assert_true(av_attention_kinds_run(&k, &s.params, &s.cfg, s.sentence, s.source, hidden,
					   &cause));
	assert_int_equal(k.self.mask[2], 0);
	assert_int_equal(k.cross.mask[1], 1);
	av_attention_kinds_free(&k);
	av_session_free(&s);
}

static void test_kinds_error(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s, "china panda", AV_MODE_SELF);
	struct av_attention_kinds k;
	memset(&k, 0, sizeof(k));
	char *cause = NULL;
	assert_false(av_attention_kinds_run(&k, &s.params, &s.cfg, "\xff", NULL, NULL, &cause));
	assert_non_null(strstr(cause, "UTF-8"));
	free(cause);
	av_attention_kinds_free(&k);
	av_session_free(&s);
}

/* A snapshot of head h's (n, n) block of a trace tensor. */
static void snap(struct av_snapshot *sn, const struct av_trace *t, const float *tensor,
		 bool inf)
{
	av_snapshot_alloc(sn, t->n, t->m);
	av_snapshot_fill(sn, tensor, t->m, t->mask, t->m);
	sn->hidden_as_inf = inf;
	sn->cfg = t->cfg;
	for (int i = 0; i < t->n; i++)
		av_snapshot_label(sn, true, i, t->tokens.text[i]);
	for (int j = 0; j < t->m; j++)
		av_snapshot_label(sn, false, j, t->tokens.text[j]);
	snprintf(sn->what, sizeof(sn->what), "masked head 0");
}

/* Mask off, pin; mask on: the masked stage differs exactly in the cells
 * the causal mask hides (and those are left out of max |delta|), the
 * weights differ in every row but the last, hidden weights by -pinned. */
static void test_diff_mask_on_off(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s, "china panda japan cherry", AV_MODE_SELF);
	struct av_snapshot pin_masked, pin_w, live;
	snap(&pin_masked, &s.trace, s.trace.masked, true);
	snap(&pin_w, &s.trace, s.trace.weights, false);
	char *cause = NULL;
	s.cfg.mode = AV_MODE_CAUSAL;
	assert_true(av_session_reattend(&s, &cause));
	snap(&live, &s.trace, s.trace.masked, true);
	struct av_diff d;
	assert_true(av_snapshot_diff(&d, &live, &pin_masked, &cause));
	int n = s.trace.n;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			int st = d.state[i * n + j];
			if (j > i) {
				assert_int_equal(st, AV_DIFF_HIDDEN_LIVE);
				assert_true(d.delta[i * n + j] < -1e19f);
			} else {
				assert_int_equal(st, AV_DIFF_BOTH);
				assert_true(d.delta[i * n + j] == 0.0f);
			}
		}
	}
	assert_int_equal(d.visibility_changed, n * (n - 1) / 2);
	assert_int_equal(d.changed, n * (n - 1) / 2);
	assert_true(d.max_abs == 0.0);
	assert_int_equal(d.max_row, -1);
	assert_false(d.labels_differ);
	av_diff_free(&d);
	av_snapshot_free(&live);

	snap(&live, &s.trace, s.trace.weights, false);
	assert_true(av_snapshot_diff(&d, &live, &pin_w, &cause));
	double max = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			double want = (double)s.trace.weights[i * n + j] - pin_w.values[i * n + j];
			assert_true(d.delta[i * n + j] == (float)want);
			if (j > i)
				assert_true(d.delta[i * n + j] == -pin_w.values[i * n + j]);
			if (i == n - 1)
				assert_true(d.delta[i * n + j] == 0.0f);
			if (fabs(want) > max)
				max = fabs(want);
		}
	}
	assert_true(fabs(d.max_abs - max) < 1e-7);
	assert_true(d.max_row >= 0 && d.max_row < n - 1);
	av_diff_free(&d);
	av_snapshot_free(&live);
	av_snapshot_free(&pin_masked);
	av_snapshot_free(&pin_w);
	av_session_free(&s);
}

/* Different shapes are refused with both shapes in the message. */
static void test_diff_shape_mismatch(void **state)
{
	(void)state;
	struct av_snapshot a, b;
	av_snapshot_alloc(&a, 4, 4);
	av_snapshot_alloc(&b, 4, 5);
	struct av_diff d;
	char *cause = NULL;
	assert_false(av_snapshot_diff(&d, &b, &a, &cause));
	assert_non_null(strstr(cause, "pinned 4×4, live 4×5"));
	assert_null(d.delta);
	free(cause);
	av_snapshot_free(&a);
	av_snapshot_free(&b);
}

/* A copy owns its numbers and labels; max |delta| finds the cell; other
 * labels on the same shape are noticed; the description names the
 * settings. */
static void test_copy_max_labels_describe(void **state)
{
	(void)state;
	struct av_snapshot a, b;
	av_snapshot_alloc(&a, 2, 3);
	const float v[6] = { 1, 2, 3, 4, 5, 6 };
	av_snapshot_fill(&a, v, 3, NULL, 0);
	av_snapshot_label(&a, true, 0, "china");
	snprintf(a.what, sizeof(a.what), "softmax head 0");
	a.cfg.mode = AV_MODE_CAUSAL;
	a.cfg.scale = AV_SCALE_DK;
	a.cfg.temperature = 1;
	av_snapshot_copy(&b, &a);
	b.values[4] = 2.5f;        /* (1, 1): delta 2.5 - 5 */
	b.values[1] = 2.25f;
	av_snapshot_label(&a, true, 0, "japan");
	assert_string_equal(b.row_labels[0], "china");
	struct av_diff d;
	char *cause = NULL;
	assert_true(av_snapshot_diff(&d, &b, &a, &cause));
	assert_true(fabs(d.max_abs - 2.5) < 1e-9);
	assert_int_equal(d.max_row, 1);
	assert_int_equal(d.max_col, 1);
	assert_true(d.delta[4] == -2.5f);
	assert_int_equal(d.changed, 2);
	assert_true(d.labels_differ);
	av_diff_free(&d);
	char text[128];
	av_snapshot_describe(&a, text, sizeof(text));
	assert_string_equal(text, "softmax head 0, causal, dk, T=1");
	a.epochs = 50;
	a.cfg.temperature = 1.25;
	av_snapshot_describe(&a, text, sizeof(text));
	assert_string_equal(text, "softmax head 0, causal, dk, T=1.25, trained 50 epochs");
	av_snapshot_free(&a);
	av_snapshot_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tril_is_causal_mask),
		cmocka_unit_test(test_kinds_match_session),
		cmocka_unit_test(test_kinds_error),
		cmocka_unit_test(test_diff_mask_on_off),
		cmocka_unit_test(test_diff_shape_mismatch),
		cmocka_unit_test(test_copy_max_labels_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
