/* test_locale.c: numbers in files and tables never depend on the locale.
 *
 * In a comma-decimal locale (de_DE.UTF-8) printf writes 1,5 and strtod
 * stops at "1.5"'s point; a trace written there used to hold different
 * numbers ("-1,04247248" splits into two list items), silently. Every test
 * here runs with LC_ALL set to de_DE.UTF-8 and is skipped, saying so, when
 * the machine cannot make that locale (tools/install-deps.sh generates it). */
#include "config.h"

#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "i18n.h"
#include "json_read.h"
#include "model_config.h"
#include "print_table.h"
#include "session.h"
#include "trace_json.h"
#include "util.h"
#include "weights.h"

#define COMMA_LOCALE "de_DE.UTF-8"

static int enter_comma_locale(void **state)
{
	(void)state;
	setlocale(LC_ALL, COMMA_LOCALE);   /* if it fails, each test skips */
	return 0;
}

static int leave_locale(void **state)
{
	(void)state;
	setlocale(LC_ALL, "C");
	return 0;
}

/* Skips the test (visibly) unless the comma locale is in force. */
static void need_comma_locale(void)
{
	const char *now = setlocale(LC_NUMERIC, NULL);
	char buf[16];
	snprintf(buf, sizeof buf, "%.1f", 1.5);
	if (strcmp(buf, "1,5") != 0) {
		print_message("skipped: the locale %s is not available here (now %s); "
			      "run tools/install-deps.sh to generate it\n", COMMA_LOCALE,
			      now ? now : "?");
		skip();
	}
}

static void setup_session(struct av_session *s, double temperature)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	s->cfg.temperature = temperature;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup("china panda");
	assert_true(av_session_run(s, &cause));
}

static void assert_floats_equal(const float *a, const float *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			fail_msg("value %zu: %.9g != %.9g", i, (double)a[i], (double)b[i]);
}

/* A trace written and read back in a comma locale gives the same numbers,
 * bit for bit, and its text has the point. */
static void test_trace_round_trip(void **state)
{
	(void)state;
	need_comma_locale();
	struct av_session s;
	setup_session(&s, 0.75);
	cJSON *doc = av_trace_to_json(&s.trace, &s.params, NULL);
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	assert_non_null(strstr(text, "\"temperature\":\t0.75"));
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	char *cause = NULL;
	if (!av_weights_parse(text, "trace.json", &cfg, NULL, &p, &cause))
		fail_msg("%s", cause);
	assert_true(cfg.temperature == 0.75);
	int D = s.params.d_model;
	assert_int_equal(p.d_model, D);
	assert_int_equal(p.vocab_size, s.params.vocab_size);
	assert_floats_equal(p.token_embedding, s.params.token_embedding,
			    (size_t)p.vocab_size * (size_t)D);
	assert_floats_equal(p.w_q, s.params.w_q, (size_t)D * D);
	assert_floats_equal(p.w_k, s.params.w_k, (size_t)D * D);
	assert_floats_equal(p.w_v, s.params.w_v, (size_t)D * D);
	assert_floats_equal(p.w_o, s.params.w_o, (size_t)D * D);
	av_params_free(&p);
	free(text);
	av_session_free(&s);
}

/* cJSON's own numbers (written with cJSON_CreateNumber, read by the
 * getters) keep the point too. */
static void test_json_numbers(void **state)
{
	(void)state;
	need_comma_locale();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "x", 2.5);
	char *text = av_json_print(o);
	cJSON_Delete(o);
	assert_non_null(strstr(text, "2.5"));
	char *cause = NULL;
	cJSON *back = av_json_parse(text, "x.json", AV_JSON_MAX_VALUES(AV_MAX_WEIGHTS_FILE),
				    "tests", &cause);
	assert_non_null(back);
	double x = 0;
	assert_true(av_json_get_double(back, NULL, "x", true, &x, &cause));
	assert_true(x == 2.5);
	long long n;
	assert_false(av_json_get_int(back, NULL, "x", true, 0, 10, &n, &cause));
	assert_string_equal(cause, "\"x\": expected a whole number, got 2.5");
	cJSON_Delete(back);
	free(text);
	free(cause);
}

/* --print tables use the point whatever the locale. */
static void test_print_table(void **state)
{
	(void)state;
	need_comma_locale();
	struct av_session s;
	setup_session(&s, 1.0);
	char *buf = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&buf, &size);
	assert_non_null(out);
	char *cause = NULL;
	assert_true(av_print_stage(out, &s.trace, "weights", 0, false, &cause));
	assert_int_equal(fclose(out), 0);
	assert_non_null(strstr(buf, "1.0000"));
	assert_null(strstr(buf, "0,"));
	assert_null(strstr(buf, "1,"));
	free(buf);
	av_session_free(&s);
}

/* Messages with numbers, too ("temperature must be ... not 0.5"). */
static void test_messages(void **state)
{
	(void)state;
	need_comma_locale();
	char *m = av_printf("%g", 0.5);
	assert_string_equal(m, "0.5");
	free(m);
}

/* Chinese messages under a comma-decimal locale (LC_ALL=de_DE.UTF-8,
 * LANGUAGE=zh_CN, as main binds the catalogue): the message is the
 * translation, its numbers keep the point. Skipped without NLS or without
 * the build tree's catalogue. */
static void test_chinese_message_keeps_the_point(void **state)
{
	(void)state;
	need_comma_locale();
#if defined(ENABLE_NLS) && ENABLE_NLS
	setenv("LANGUAGE", "zh_CN", 1);
	av_i18n_init();   /* textdomain() again: gettext sees the new LANGUAGE */
	if (strcmp(_("next stage"), "next stage") == 0) {
		unsetenv("LANGUAGE");
		av_i18n_init();
		print_message("skipped: no Chinese catalogue in the build tree\n");
		skip();
	}
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.temperature = 1000.5;
	char *cause = NULL;
	assert_false(av_config_check(&cfg, &cause));
	unsetenv("LANGUAGE");
	av_i18n_init();
	assert_non_null(cause);
	assert_non_null(strstr(cause, "必须在 0.01 到 100 之间"));
	assert_non_null(strstr(cause, "1000.5"));
	free(cause);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_round_trip),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_print_table),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_chinese_message_keeps_the_point),
	};
	return cmocka_run_group_tests(tests, enter_comma_locale, leave_locale);
}
