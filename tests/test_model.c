/* test_model.c: parameter initialisation, vocabulary lookup, positions. */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "tokenizer.h"

static struct av_config small_config(enum av_init init, bool bias)
{
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 4;
	cfg.heads = 2;
	cfg.init = init;
	cfg.bias = bias;
	cfg.seed = 7;
	cfg.positional = AV_POS_LEARNED;
	cfg.max_positions = 5;
	return cfg;
}

static const char *words[] = { "china", "panda", "japan" };

static void test_same_seed_same_parameters(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_NORMAL, false);
	struct av_params a, b;
	av_params_init(&a, &cfg, words, 3);
	av_params_init(&b, &cfg, words, 3);
	assert_int_equal(a.vocab_size, 3);
	assert_memory_equal(a.token_embedding, b.token_embedding, 3 * 4 * sizeof(float));
	assert_memory_equal(a.w_q, b.w_q, 16 * sizeof(float));
	assert_memory_equal(a.position_embedding, b.position_embedding, 20 * sizeof(float));
	assert_null(a.b_q);
	/* each tensor has its own stream: w_q and w_k differ */
	assert_memory_not_equal(a.w_q, a.w_k, 16 * sizeof(float));
	cfg.seed = 8;
	struct av_params c;
	av_params_init(&c, &cfg, words, 3);
	assert_memory_not_equal(a.w_q, c.w_q, 16 * sizeof(float));
	av_params_free(&a);
	av_params_free(&b);
	av_params_free(&c);
}

static void test_word_rows_do_not_depend_on_the_vocabulary(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_NORMAL, false);
	struct av_params a, b;
	const char *other[] = { "japan", "kangaroo" };
	av_params_init(&a, &cfg, words, 3);
	av_params_init(&b, &cfg, other, 2);
	/* "japan" is row 2 of a and row 0 of b, with the same vector */
	assert_memory_equal(a.token_embedding + 2 * 4, b.token_embedding, 4 * sizeof(float));
	/* changing the vocabulary does not change the weights */
	assert_memory_equal(a.w_v, b.w_v, 16 * sizeof(float));
	float row[4];
	av_word_embedding(7, "japan", 4, row);
	assert_memory_equal(row, b.token_embedding, sizeof(row));
	av_params_free(&a);
	av_params_free(&b);
}

/* The documented draw: stream FNV-1a("token:" word), Box-Muller normals.
 * Pinning one value catches any change to the documented order. */
static void test_documented_draw_is_pinned(void **state)
{
	(void)state;
	float row[3];
	av_word_embedding(1, "china", 3, row);
	float again[3];
	av_word_embedding(1, "china", 3, again);
	assert_memory_equal(row, again, sizeof(row));
	char buf[64];
	snprintf(buf, sizeof(buf), "%.6f %.6f %.6f", row[0], row[1], row[2]);
	assert_string_equal(buf, "-0.339668 -1.304765 -0.765693");
}

static void test_oov_words_and_unk(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_NORMAL, false);
	struct av_params p;
	av_params_init(&p, &cfg, words, 3);
	bool oov;
	assert_int_equal(av_params_token_id(&p, 7, "panda", &oov), 1);
	assert_false(oov);
	int id = av_params_token_id(&p, 7, "koala", &oov);
	assert_true(oov);
	assert_int_equal(id, 3);
	assert_int_equal(p.vocab_size, 4);
	float row[4];
	av_word_embedding(7, "koala", 4, row);
	assert_memory_equal(p.token_embedding + 3 * 4, row, sizeof(row));
	/* asking again finds the row added the first time */
	assert_int_equal(av_params_token_id(&p, 7, "koala", &oov), 3);
	av_params_free(&p);

	const char *with_unk[] = { "china", AV_UNK };
	av_params_init(&p, &cfg, with_unk, 2);
	assert_int_equal(av_params_token_id(&p, 7, "koala", &oov), 1);
	assert_true(oov);
	assert_int_equal(p.vocab_size, 2);
	av_params_free(&p);
}

/* An unknown word's row is kept from one run to the next (model.c), and a
 * kept row is always the one av_word_embedding draws for this seed and D:
 * after the seed or D changed, after the word was dropped and added again,
 * and after so many other words that the kept rows were replaced. */
static void expect_row_drawn(struct av_params *p, uint64_t seed, const char *word)
{
	int D = p->d_model;
	bool oov;
	int id = av_params_token_id(p, seed, word, &oov);
	assert_true(oov);
	float want[8];
	assert_true(D <= 8);
	av_word_embedding(seed, word, D, want);
	assert_memory_equal(p->token_embedding + (size_t)id * D, want, (size_t)D * sizeof(float));
}

static void test_unknown_rows_kept_across_runs(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_NORMAL, false);
	struct av_params p, wide;
	av_params_init(&p, &cfg, words, 3);
	expect_row_drawn(&p, 7, "koala");
	av_params_truncate_vocab(&p, 3);
	expect_row_drawn(&p, 7, "koala");    /* kept */
	av_params_truncate_vocab(&p, 3);
	expect_row_drawn(&p, 8, "koala");    /* another seed */
	cfg.d_model = 8;
	av_params_init(&wide, &cfg, words, 3);
	expect_row_drawn(&wide, 7, "koala");   /* another D */
	av_params_truncate_vocab(&p, 3);
	expect_row_drawn(&p, 7, "koala");
	/* more unknown words than are kept: the oldest rows are replaced */
	for (int i = 0; i < 3 * AV_MAX_TOKENS; i++) {
		char w[16];
		snprintf(w, sizeof(w), "w%d", i);
		av_params_truncate_vocab(&p, 3);
		expect_row_drawn(&p, (uint64_t)i % 2, w);
	}
	av_params_truncate_vocab(&p, 3);
	expect_row_drawn(&p, 7, "koala");
	expect_row_drawn(&p, 1, "w1");
	av_params_free(&p);
	av_params_free(&wide);
}

static void test_init_schemes_bounds(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_XAVIER, true);
	struct av_params p;
	av_params_init(&p, &cfg, words, 3);
	double a = sqrt(6.0 / 8.0);
	for (int i = 0; i < 16; i++)
		assert_true(fabs(p.w_o[i]) <= a);
	for (int i = 0; i < 4; i++)
		assert_true(p.b_q[i] == 0.0f);
	av_params_free(&p);

	cfg = small_config(AV_INIT_TORCH, true);
	av_params_init(&p, &cfg, words, 3);
	bool nonzero_bias = false;
	for (int i = 0; i < 16; i++)
		assert_true(fabs(p.w_k[i]) <= 0.5);
	for (int i = 0; i < 4; i++) {
		assert_true(fabs(p.b_k[i]) <= 0.5);
		nonzero_bias |= p.b_k[i] != 0.0f;
	}
	assert_true(nonzero_bias);
	av_params_free(&p);

	cfg = small_config(AV_INIT_NORMAL, true);
	av_params_init(&p, &cfg, words, 3);
	double max = 0;
	for (int i = 0; i < 16; i++)
		max = fmax(max, fabs(p.w_q[i]));
	assert_true(max > 0.5);   /* N(0,1), not a small uniform */
	av_params_free(&p);
}

static void test_copy_is_deep(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_TORCH, true);
	struct av_params p, q;
	av_params_init(&p, &cfg, words, 3);
	av_params_copy(&q, &p);
	q.w_q[0] += 1.0f;
	q.b_o[0] += 1.0f;
	assert_true(p.w_q[0] != q.w_q[0]);
	assert_true(p.b_o[0] != q.b_o[0]);
	bool oov;
	av_params_token_id(&q, 7, "new", &oov);
	assert_int_equal(p.vocab_size, 3);
	assert_int_equal(q.vocab_size, 4);
	av_params_free(&p);
	av_params_free(&q);
}

static void test_positions(void **state)
{
	(void)state;
	struct av_config cfg = small_config(AV_INIT_NORMAL, false);
	struct av_params p;
	av_params_init(&p, &cfg, words, 3);
	float row[4];
	av_position_row(&p, AV_POS_SINUSOIDAL, 1, row);
	assert_float_equal(row[0], sin(1.0), 1e-7);
	assert_float_equal(row[1], cos(1.0), 1e-7);
	assert_float_equal(row[2], sin(1.0 / 100.0), 1e-7);
	assert_float_equal(row[3], cos(1.0 / 100.0), 1e-7);
	av_position_row(&p, AV_POS_SINUSOIDAL, 0, row);
	assert_float_equal(row[0], 0.0, 0);
	assert_float_equal(row[1], 1.0, 0);
	av_position_row(&p, AV_POS_LEARNED, 2, row);
	assert_memory_equal(row, p.position_embedding + 8, sizeof(row));
	av_position_row(&p, AV_POS_NONE, 3, row);
	for (int i = 0; i < 4; i++)
		assert_true(row[i] == 0.0f);
	av_params_free(&p);
}

static void test_config_checks(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	char *cause = NULL;
	assert_true(av_config_check(&cfg, &cause));
	cfg.d_model = 6;
	cfg.heads = 4;
	assert_false(av_config_check(&cfg, &cause));
	assert_non_null(strstr(cause, "not divisible by heads 4"));
	cfg.heads = 3;
	cfg.temperature = 0;
	assert_false(av_config_check(&cfg, &cause));
	assert_non_null(strstr(cause, "temperature"));
	cfg.temperature = NAN;
	assert_false(av_config_check(&cfg, &cause));
	free(cause);
	cfg.temperature = 2;
	cfg.scale = AV_SCALE_DK;
	assert_float_equal(av_config_divisor(&cfg), sqrt(2.0) * 2, 1e-12);
	cfg.scale = AV_SCALE_DMODEL;
	assert_float_equal(av_config_divisor(&cfg), sqrt(6.0) * 2, 1e-12);
	cfg.scale = AV_SCALE_NONE;
	assert_float_equal(av_config_divisor(&cfg), 2, 1e-12);
	char *list = av_enum_list(av_mode_names);
	assert_string_equal(list, "self, causal or cross");
	free(list);
}

/* The memory budget: D = 1600 (GPT-2 XL's width) stays possible for every
 * workload; D = 4096 with one head is refused for --dump and training
 * (8.8 GB and 10.6 GB before), with the estimate and the limit said. */
static void test_memory_budget(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.d_model = 1600;
	cfg.heads = 1;
	char *cause = NULL;
	assert_true(av_check_memory(&cfg, 1000, AV_WORK_VIEW, &cause));
	assert_true(av_check_memory(&cfg, 1000, AV_WORK_DUMP, &cause));
	assert_true(av_check_memory(&cfg, 1000, AV_WORK_TRAIN, &cause));
	assert_null(cause);
	cfg.d_model = 4096;
	assert_true(av_config_param_count(&cfg, 0) == 4.0 * 4096 * 4096);
	assert_false(av_check_memory(&cfg, 6, AV_WORK_DUMP, &cause));
	assert_string_equal(cause, "--dump of this model needs about 2.5 GiB (67.7 million "
			    "parameters: d_model 4096, 6 words); the limit is 1 GiB: use a "
			    "smaller d_model or vocabulary");
	assert_false(av_check_memory(&cfg, 6, AV_WORK_TRAIN, &cause));
	/* a large vocabulary counts too: 200,000 words at D = 512 */
	cfg.d_model = 512;
	assert_true(av_check_memory(&cfg, 6, AV_WORK_TRAIN, &cause));
	assert_false(av_check_memory(&cfg, 200000, AV_WORK_VIEW, &cause));
	assert_non_null(strstr(cause, "200000 words"));
	free(cause);
}

/* Stamps name parameter values, so no two may be equal: two threads each
 * taking several of the per-thread blocks (model.c) get none twice and
 * never 0 (which names nothing). */
#define STAMPS_EACH 10000

static void *take_stamps(void *out)
{
	uint64_t *stamps = out;
	for (int i = 0; i < STAMPS_EACH; i++)
		stamps[i] = av_params_new_stamp();
	return NULL;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void test_stamps_are_unique_across_threads(void **state)
{
	(void)state;
	uint64_t *stamps = calloc(3 * STAMPS_EACH, sizeof(uint64_t));
	assert_non_null(stamps);
	pthread_t other;
	assert_int_equal(pthread_create(&other, NULL, take_stamps, stamps), 0);
	take_stamps(stamps + STAMPS_EACH);
	assert_int_equal(pthread_join(other, NULL), 0);
	take_stamps(stamps + 2 * STAMPS_EACH);
	qsort(stamps, 3 * STAMPS_EACH, sizeof(uint64_t), by_value);
	assert_true(stamps[0] != 0);
	for (int i = 1; i < 3 * STAMPS_EACH; i++)
		assert_true(stamps[i] != stamps[i - 1]);
	free(stamps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_budget),
		cmocka_unit_test(test_same_seed_same_parameters),
		cmocka_unit_test(test_word_rows_do_not_depend_on_the_vocabulary),
		cmocka_unit_test(test_documented_draw_is_pinned),
		cmocka_unit_test(test_oov_words_and_unk),
		cmocka_unit_test(test_unknown_rows_kept_across_runs),
		cmocka_unit_test(test_init_schemes_bounds),
		cmocka_unit_test(test_copy_is_deep),
		cmocka_unit_test(test_stamps_are_unique_across_threads),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_config_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
