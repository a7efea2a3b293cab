/* test_session.c: a session across many runs, as the screen drives it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "session.h"
#include "trace_json.h"
#include "util.h"
#include "weights.h"

static void setup_session(struct av_session *s)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup("china koala");
	assert_true(av_session_run(s, &cause));
}

/* Unknown words are flagged on every run, not only the first, and typing
 * one sentence after another does not grow the vocabulary. */
static void test_unknown_words_every_run(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	assert_true(s.trace.oov[1]);
	assert_true(av_session_run(&s, &cause));
	assert_true(s.trace.oov[1]);
	assert_false(s.trace.oov[0]);
	const char *typed[] = { "k", "ko", "koa", "koal", "koala bear", "china koala" };
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		assert_true(av_session_set_sentence(&s, typed[i], &cause));
	assert_true(s.trace.oov[1]);
	assert_int_equal(s.params.vocab_size, 6 + 1);
	av_session_free(&s);
}

/* A run that fails keeps the previous trace usable: its unknown words still
 * have their rows. */
static void test_failed_run_keeps_rows(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	float koala[3];
	memcpy(koala, s.params.token_embedding + (size_t)s.trace.ids[1] * 3, sizeof(koala));
	assert_false(av_session_set_sentence(&s, "\xff", &cause));
	assert_non_null(strstr(cause, "invalid UTF-8"));
	free(cause);
	assert_string_equal(s.sentence, "china koala");
	assert_true(s.trace.ids[1] < s.params.vocab_size);
	assert_string_equal(s.params.vocab[s.trace.ids[1]], "koala");
	assert_memory_equal(s.params.token_embedding + (size_t)s.trace.ids[1] * 3, koala,
			    sizeof(koala));
	av_session_free(&s);
}

/* Re-attending after a mask change equals a full run. */
static void test_reattend_after_mask_toggle(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	s.cfg.mode = AV_MODE_CAUSAL;
	s.key_hidden[0] = true;
	assert_true(av_session_reattend(&s, &cause));
	float w[4];
	memcpy(w, s.trace.weights, sizeof(w));
	assert_true(av_session_run(&s, &cause));
	assert_memory_equal(w, s.trace.weights, sizeof(w));
	assert_true(s.trace.row_hidden[0]);
	av_session_free(&s);
}

/* A --dump trace loads again whatever the seed: one beyond 2^53 - 1 (which a
 * sample may give as a string of digits) was written as a bare number the
 * loader refuses (found by tests/fuzz/fuzz_trace.c). */
static void test_dump_reloads_any_seed(void **state)
{
	(void)state;
	const uint64_t seeds[] = { 0, UINT64_C(9007199254740991), UINT64_C(9007199254740992),
				   UINT64_MAX };
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct av_session s;
		setup_session(&s);
		s.cfg.seed = seeds[i];
		char *cause = NULL;
		assert_true(av_session_run(&s, &cause));
		cJSON *doc = av_trace_to_json(&s.trace, &s.params, NULL);
		char *text = av_json_print(doc);
		cJSON_Delete(doc);
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		memset(&p, 0, sizeof(p));
		if (!av_weights_parse(text, "dump.json", &cfg, NULL, &p, &cause))
			fail_msg("seed %llu: %s", (unsigned long long)seeds[i], cause);
		assert_true(cfg.seed == seeds[i]);
		av_params_free(&p);
		free(text);
		av_session_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_words_every_run),
		cmocka_unit_test(test_failed_run_keeps_rows),
		cmocka_unit_test(test_reattend_after_mask_toggle),
		cmocka_unit_test(test_dump_reloads_any_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
