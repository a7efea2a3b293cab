/* test_loaders.c: the sample and weights loaders, on the shipped samples,
 * small good files and one bad file per error path (tests/bad/). The
 * messages are compared whole: they are what a student reads. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "json_diag.h"
#include "json_read.h"
#include "json_rows.h"
#include "json_same.h"
#include "model.h"
#include "number.h"
#include "sample.h"
#include "theme.h"
#include "util.h"
#include "weights.h"

/* av_json_parse as a sample would be parsed */
#define TEXT_VALUES AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE)

#define BAD_DIR TESTS_SRCDIR "/bad/"
#define FIXTURE_DIR TESTS_SRCDIR "/fixtures/"

static void assert_words(char *const *got, int n, const char *const *want, int want_n)
{
	assert_int_equal(n, want_n);
	for (int i = 0; i < n; i++)
		assert_string_equal(got[i], want[i]);
}

/* --- the shipped samples */

static void test_china_panda(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_load("china-panda", &s, &cause));
	assert_null(cause);
	assert_non_null(strstr(s.path, "samples/china-panda.json"));
	assert_string_equal(s.name, "china-panda");
	assert_string_equal(s.sentence, "china panda japan cherry");
	assert_null(s.source);
	const char *vocab[] = { "china", "panda", "australia", "kangaroo", "japan", "cherry" };
	assert_words(s.vocab, s.n_vocab, vocab, 6);
	const char *sentences[] = { "china panda", "australia kangaroo", "japan cherry" };
	assert_words(s.sentences, s.n_sentences, sentences, 3);
	assert_int_equal(s.cfg.d_model, 3);
	assert_int_equal(s.cfg.heads, 1);
	assert_int_equal(s.cfg.mode, AV_MODE_SELF);
	assert_int_equal(s.cfg.scale, AV_SCALE_DK);
	assert_int_equal(s.cfg.positional, AV_POS_LEARNED);
	assert_false(s.cfg.bias);
	assert_int_equal(s.cfg.seed, 1);
	assert_int_equal(s.cfg.init, AV_INIT_NORMAL);
	assert_true(s.cfg_given & AV_CFG_D_MODEL);
	assert_true(s.cfg_given & AV_CFG_POSITIONAL);
	assert_true(s.training.lr == 0.01);
	assert_int_equal(s.training.epochs, 200);
	assert_int_equal(s.training.optimizer, AV_OPT_ADAM);
	assert_int_equal(s.training.target, AV_TARGET_SELF);
	assert_int_equal(s.training.n_pairs, 3);
	assert_string_equal(s.training.pairs[1][0], "australia");
	assert_string_equal(s.training.pairs[1][1], "kangaroo");
	assert_string_equal(s.training.track[0], "china");
	assert_string_equal(s.training.track[1], "panda");
	av_sample_free(&s);
}

static void test_qkv_walkthrough(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_load("qkv-walkthrough", &s, &cause));
	assert_null(cause);
	assert_int_equal(s.cfg.d_model, 512);
	assert_int_equal(s.cfg.heads, 8);
	assert_int_equal(s.cfg.scale, AV_SCALE_DMODEL);
	assert_int_equal(s.cfg.positional, AV_POS_SINUSOIDAL);
	assert_true(s.cfg.bias);
	assert_int_equal(s.cfg.seed, 0);
	assert_int_equal(s.cfg.init, AV_INIT_TORCH);
	assert_string_equal(s.source, "le chat est sur tapis");
	/* No "vocab": the corpus words, then the sentence's, then the source's. */
	const char *vocab[] = { "the", "cat", "sat", "on", "mats",
				"le", "chat", "est", "sur", "tapis" };
	assert_words(s.vocab, s.n_vocab, vocab, 10);
	assert_int_equal(s.training.epochs, 50);
	assert_true(s.training.lr == 0.001);
	assert_int_equal(s.training.target, AV_TARGET_PREVIOUS);
	assert_int_equal(s.training.n_pairs, 0);
	assert_null(s.training.track[0]);
	av_sample_free(&s);
}

static void test_translate_cross(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_load("translate-cross", &s, &cause));
	assert_null(cause);
	assert_int_equal(s.cfg.mode, AV_MODE_CROSS);
	assert_int_equal(s.cfg.d_model, 8);
	assert_int_equal(s.cfg.heads, 2);
	assert_int_equal(s.cfg.init, AV_INIT_XAVIER);
	assert_int_equal(s.cfg.seed, 3);
	assert_string_equal(s.source, "the cat eats the fish");
	const char *vocab[] = { "le", "chat", "mange", "poisson", "the", "cat", "eats", "fish" };
	assert_words(s.vocab, s.n_vocab, vocab, 8);
	assert_int_equal(s.training.epochs, 300);
	assert_true(s.training.lr == 0.05);
	assert_int_equal(s.training.n_pairs, 4);
	assert_string_equal(s.training.pairs[3][0], "poisson");
	assert_string_equal(s.training.pairs[3][1], "fish");
	av_sample_free(&s);
}

static void assert_same_sample(const struct av_sample *a, const struct av_sample *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->title, b->title);
	assert_string_equal(a->description, b->description);
	assert_string_equal(a->sentence, b->sentence);
	assert_true((a->source == NULL) == (b->source == NULL));
	assert_words(a->sentences, a->n_sentences, (const char *const *)b->sentences,
		     b->n_sentences);
	assert_words(a->vocab, a->n_vocab, (const char *const *)b->vocab, b->n_vocab);
	assert_true(av_config_equal(&a->cfg, &b->cfg));
	assert_int_equal(a->cfg_given, b->cfg_given);
	assert_int_equal(a->training.epochs, b->training.epochs);
	assert_true(a->training.lr == b->training.lr);
	assert_int_equal(a->training.optimizer, b->training.optimizer);
	assert_int_equal(a->training.target, b->training.target);
	assert_int_equal(a->training.n_pairs, b->training.n_pairs);
	for (int i = 0; i < a->training.n_pairs; i++) {
		assert_string_equal(a->training.pairs[i][0], b->training.pairs[i][0]);
		assert_string_equal(a->training.pairs[i][1], b->training.pairs[i][1]);
	}
	assert_string_equal(a->training.track[0], b->training.track[0]);
	assert_string_equal(a->training.track[1], b->training.track[1]);
}

static void test_builtin_is_china_panda(void **state)
{
	(void)state;
	struct av_sample a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&a, &cause));
	assert_true(av_sample_load(AV_SRCDIR "/samples/china-panda.json", &b, &cause));
	assert_null(cause);
	assert_string_equal(a.path, "(built-in)");
	assert_string_equal(b.path, AV_SRCDIR "/samples/china-panda.json");
	assert_same_sample(&a, &b);
	av_sample_free(&a);
	av_sample_free(&b);
}

/* --- parsing rules on small texts */

static void test_sample_defaults(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_parse("{\"name\": \"m\", \"sentence\": \"B a b\", "
				    "\"comment\": \"ignored\"}", "t", &s, &cause));
	assert_null(cause);
	assert_string_equal(s.path, "t");
	assert_string_equal(s.title, "");
	assert_string_equal(s.description, "");
	assert_null(s.source);
	const char *sentences[] = { "B a b" };
	assert_words(s.sentences, s.n_sentences, sentences, 1);
	const char *vocab[] = { "b", "a" };
	assert_words(s.vocab, s.n_vocab, vocab, 2);
	struct av_config dflt;
	av_config_default(&dflt);
	assert_true(av_config_equal(&s.cfg, &dflt));
	assert_int_equal(s.cfg_given, 0);
	assert_int_equal(s.training.epochs, 200);
	assert_true(s.training.lr == 0.01);
	assert_int_equal(s.training.optimizer, AV_OPT_ADAM);
	assert_int_equal(s.training.target, AV_TARGET_SELF);
	assert_int_equal(s.training.n_pairs, 0);
	assert_null(s.training.track[0]);
	assert_null(s.training.track[1]);
	av_sample_free(&s);
	/* Freeing leaves the struct zeroed, so a second free is harmless. */
	struct av_sample zero;
	memset(&zero, 0, sizeof zero);
	assert_memory_equal(&s, &zero, sizeof s);
	av_sample_free(&s);
}

/* "TARGET ||| SOURCE" corpus entries give the words of both sides, never
 * the separator. */
static void test_default_vocab_of_sentence_pairs(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_parse("{\"name\": \"m\", \"sentence\": \"le chat\","
				    " \"source\": \"the cat\", \"config\": {\"mode\": \"cross\"},"
				    " \"sentences\": [\"le chien ||| the dog\", \"un chat|||a cat\"]}",
				    "t", &s, &cause));
	assert_null(cause);
	const char *vocab[] = { "le", "chien", "the", "dog", "un", "chat", "a", "cat" };
	assert_words(s.vocab, s.n_vocab, vocab, 8);
	av_sample_free(&s);
}

static void test_default_vocab_order(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_parse("{\"name\": \"m\", \"sentence\": \"w x\", \"source\": \"v x\","
				    " \"sentences\": [\"x y\", \"y z\"],"
				    " \"config\": {\"mode\": \"cross\", \"seed\": 5},"
				    " \"training\": {\"optimizer\": \"sgd\", \"target\": \"pairs\","
				    " \"pairs\": [[\"w\", \"v\"]], \"epochs\": 3, \"lr\": 0.5}}",
				    "t", &s, &cause));
	assert_null(cause);
	const char *vocab[] = { "x", "y", "z", "w", "v" };
	assert_words(s.vocab, s.n_vocab, vocab, 5);
	assert_int_equal(s.cfg_given, AV_CFG_MODE | AV_CFG_SEED);
	assert_int_equal(s.cfg.seed, 5);
	assert_int_equal(s.training.optimizer, AV_OPT_SGD);
	assert_int_equal(s.training.target, AV_TARGET_PAIRS);
	assert_int_equal(s.training.epochs, 3);
	assert_true(s.training.lr == 0.5);
	assert_int_equal(s.training.n_pairs, 1);
	av_sample_free(&s);
}

static void test_json_syntax_positions(void **state)
{
	(void)state;
	char *cause = NULL;
	assert_null(av_json_parse("{\n\t\"a\": [1, 2,]\n}", "x.json",
				  TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:2:13: trailing comma before ']' (JSON allows none)");
	/* Columns count characters: 中 is three bytes but one column. */
	assert_null(av_json_parse("{\"中\": 1 2}", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:9: expected ',' or '}' after the member \"中\", "
			    "found '2'");
	assert_null(av_json_parse("{\"a\": 1", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:8: unexpected end of file: 1 object still open "
			    "(from line 1)");
	assert_null(av_json_parse("{\"a\": NaN}", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:7: 'NaN': JSON has no NaN or Infinity");
	/* a bad escape: cJSON stops at its backslash without saying why */
	assert_null(av_json_parse("{\"a\": \"x\\ud800\"}", "x.json", TEXT_VALUES, "tests",
				  &cause));
	assert_string_equal(cause, "x.json:1:9: \\ud800 is half of a UTF-16 surrogate pair, "
			    "and its other half is missing");
	assert_null(av_json_parse("{\"a\": \"\\uDC00\\ud800\"}", "x.json", TEXT_VALUES, "tests",
				  &cause));
	assert_string_equal(cause, "x.json:1:8: \\uDC00 is half of a UTF-16 surrogate pair, "
			    "and its other half is missing");
	assert_null(av_json_parse("{\"a\": \"\\u12g4\"}", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:8: \\u needs four hexadecimal digits");
	assert_null(av_json_parse("{\"a\": \"\\q\"}", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:8: '\\q' is not a JSON escape (a backslash itself is "
			    "written \\\\)");
	/* a backslash outside a string is no escape (read past the text once) */
	assert_null(av_json_parse("{s\\u", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json:1:2: unquoted key 's': JSON keys need double quotes");
	cJSON *pair = av_json_parse("{\"a\": \"\\ud83d\\udc3c\"}", "x.json", TEXT_VALUES,
				    "tests", &cause);
	assert_non_null(pair);
	cJSON_Delete(pair);
	assert_null(av_json_parse(" \n\t", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json: empty file (expected a JSON object)");
	assert_null(av_json_parse("\"text\"", "x.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "x.json: expected a JSON object at the top, got a string");
	free(cause);
}

/* Each mistake a person makes writing JSON by hand, and what is said of it
 * (json_diag.c): what was found, what was expected, and where. */
static const struct {
	const char *text, *message;
} json_mistakes[] = {
	{ "{\n\t\"name\": \"x\"\n\t\"sentence\": \"y\"\n}",
	  "3:2: expected ',' or '}' after the member \"name\", found '\"'" },
	{ "{\"a\": 1, \"b\": 2,}", "1:17: trailing comma before '}' (JSON allows none)" },
	{ "{\"a\": [1, 2, ]}", "1:14: trailing comma before ']' (JSON allows none)" },
	{ "{\"name\": \"x,\n \"b\": 1}",
	  "1:10: string not closed before the end of the line (JSON strings cannot hold a "
	  "raw newline)" },
	{ "{\"name\": \"x", "1:10: string not closed before the end of the file" },
	{ "{'name': 'x'}", "1:2: single quotes: JSON strings use double quotes" },
	{ "{\"a\": {\"b\": [1,\n 2", "2:3: unexpected end of file: 2 objects and 1 list still "
	  "open (the innermost from line 1)" },
	{ "{\"a\": 1", "1:8: unexpected end of file: 1 object still open (from line 1)" },
	{ "{\n // a note\n \"a\": 1}", "2:2: comments ('//' and '/* */') are not allowed in JSON" },
	{ "{\"a\": 1 /* x */}", "1:9: comments ('//' and '/* */') are not allowed in JSON" },
	{ "\n\xef\xbb\xbf{\"a\": 1}", "2:1: a byte order mark (U+FEFF) is allowed only at the "
	  "very start of the file" },
	{ "{\"a\": NaN}", "1:7: 'NaN': JSON has no NaN or Infinity" },
	{ "{\"a\": -Infinity}", "1:7: '-Infinity': JSON has no NaN or Infinity" },
	{ "{\"a\": \x7f}", "1:7: invisible character '\\x7f' outside a string" },
	{ "{\"a\": \xff}", "1:7: invalid UTF-8 byte '\\xff' (is the file saved as UTF-8?)" },
	{ "{\"a\": 0x1F}", "1:8: hexadecimal numbers are not JSON: write them in decimal" },
	{ "{\"a\": +1}", "1:7: a JSON number cannot start with '+'" },
	{ "{\"a\": .5}", "1:7: a JSON number needs a digit before its '.' (0.5, not .5)" },
	{ "{\"a\": True}", "1:7: 'True': JSON writes true, false and null in lowercase" },
	{ "{\"a\": None}", "1:7: 'None' is Python's: JSON writes null" },
	{ "{\"a\": word}", "1:7: unquoted text 'word': JSON strings need double quotes" },
	{ "{name: 1}", "1:2: unquoted key 'name': JSON keys need double quotes" },
	{ "{\"a\" = 1}", "1:6: expected ':' after the key \"a\", found '='" },
	{ "{\"a\": }", "1:7: expected a value for the key \"a\", found '}'" },
	{ "{\"a\": [1 2]}", "1:10: expected ',' or ']' after item 1 of the list, found '2'" },
	{ "{\"a\": [1, 2}\n", "1:12: '}' does not close the '[' from line 1 (expected ']')" },
	{ "{\"a\": 1}\n}", "2:1: an extra '}' after the end of the object (it closed on line 1)" },
	{ "{\"a\": 1} x", "1:10: text after the end of the object (it closed on line 1), "
	  "found 'x'" },
	{ "{\"a\": \u201cx\u201d}", "1:7: curly quote '\u201c': JSON strings use straight "
	  "double quotes (\")" },
	{ "{\"a\": \"\\x41\"}", "1:8: '\\x' is not a JSON escape (a backslash itself is "
	  "written \\\\)" },
	{ "{\"a\": \"x\" \xc2\x9b}", "1:11: invisible character '\\u009b' outside a string" },
	{ "{\"\x1b]0;x\x07\": 1 2}", "1:14: expected ',' or '}' after the member "
	  "\"\\x1b]0;x\\x07\", found '2'" },
};

static void test_json_mistakes_explained(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof json_mistakes / sizeof json_mistakes[0]; i++) {
		char *cause = NULL;
		cJSON *root = av_json_parse(json_mistakes[i].text, "x.json", TEXT_VALUES,
					    "tests", &cause);
		if (root)
			fail_msg("case %zu was accepted", i);
		char *want = av_printf("x.json:%s", json_mistakes[i].message);
		if (strcmp(cause, want) != 0)
			fail_msg("case %zu:\n got  %s\n want %s", i, cause, want);
		free(want);
		free(cause);
	}
}

/* What cJSON reads and JSON (RFC 8259) does not allow, refused with its
 * place (json_diag.h, av_json_strict_problem), through both readers: the
 * tree and the rows of numbers read aside. */
static const struct {
	const char *text, *message;
} json_lax[] = {
	{ "{\"a\": \"x\ny\"}", "1:9: a line break inside a string: JSON writes it as \\n" },
	{ "{\"a\": \"x\ty\"}", "1:9: a tab inside a string: JSON writes it as \\t" },
	{ "{\"a\": \"x\x01\"}", "1:9: control character '\\x01' inside a string: JSON "
	  "writes it as \\u0001" },
	{ "{\"a\": \"caf\xe9\"}", "1:11: invalid UTF-8 byte '\\xe9' in a string (is the "
	  "file saved as UTF-8?)" },
	{ "{\f\"a\": 1}", "1:2: control character '\\x0c' between values (JSON allows only "
	  "spaces, tabs and line breaks there)" },
	{ "{\"a\": 007}", "1:7: '007': a JSON number cannot start with 0 (write 7, not 07)" },
	{ "{\"a\": [[1, 2, 3, 4, 5, 6, 7, 8],\n [1, 2, -03, 4, 5, 6, 7, 8]]}",
	  "2:9: '-03': a JSON number cannot start with 0 (write 7, not 07)" },
	{ "{\"a\": 1.}", "1:8: a JSON number needs a digit after its '.' (1.0, not 1.)" },
	{ "{\"a\": -.5}", "1:8: a JSON number needs a digit before its '.' (0.5, not .5)" },
	{ "{\"a\": [1.5e3, 2.E2]}", "1:16: a JSON number needs a digit after its '.' (1.0, "
	  "not 1.)" },
};

static void test_json_lax_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof json_lax / sizeof json_lax[0]; i++) {
		char *want = av_printf("x.json:%s", json_lax[i].message);
		for (int aside = 0; aside < 2; aside++) {
			char *cause = NULL;
			cJSON *root = aside ? av_json_parse_rows(json_lax[i].text, "x.json",
								 TEXT_VALUES, "tests", &cause)
					    : av_json_parse(json_lax[i].text, "x.json",
							    TEXT_VALUES, "tests", &cause);
			if (root)
				fail_msg("case %zu was accepted (rows aside: %d)", i, aside);
			if (strcmp(cause, want) != 0)
				fail_msg("case %zu (rows aside: %d):\n got  %s\n want %s", i, aside,
					 cause, want);
			free(cause);
		}
		free(want);
	}
	/* and what JSON does allow stays allowed: the four spaces, escapes,
	 * UTF-8, 0, -0.5, exponents, a byte order mark at the very start */
	char *cause = NULL;
	cJSON *fine = av_json_parse("\xef\xbb\xbf{\"a\":\r\n\t[0, -0.5, 1e-3, 2E+2, 0.0],"
				    " \"b\": \"\\n\\t\\u0001 \xe7\x86\x8a\xe7\x8c\xab\"}",
				    "x.json", TEXT_VALUES, "tests", &cause);
	assert_null(cause);
	assert_non_null(fine);
	cJSON_Delete(fine);
	/* cJSON skips a byte order mark at the start, and so does the diagnosis */
	assert_null(av_json_parse("\xef\xbb\xbf{\"a\": 1,}", "x.json", TEXT_VALUES, "tests",
				  &cause));
	assert_string_equal(cause, "x.json:1:10: trailing comma before '}' (JSON allows none)");
	free(cause);
}

/* The byte offset of 1-based line and column (in characters) in text, or
 * -1 when the text has no such place (the column may be one past a line). */
static long offset_of(const char *text, size_t len, int line, int col)
{
	size_t at = 0;
	for (int l = 1; l < line; l++) {
		const char *nl = memchr(text + at, '\n', len - at);
		if (!nl)
			return -1;
		at = (size_t)(nl - text) + 1;
	}
	for (int c = 1; c < col; c++) {
		if (at >= len || text[at] == '\n')
			return -1;
		for (at++; at < len && ((unsigned char)text[at] & 0xC0) == 0x80; at++)
			;
	}
	return (long)at;
}

/* Truncated at every byte, a sample is refused with a message that says
 * what is wrong (not the bare "JSON syntax error" of a scanner that
 * disagrees with cJSON) at a place inside the text; diagnosed directly, the
 * place is never past the end. */
static void test_json_truncations_explained(void **state)
{
	(void)state;
	char *whole, *cause = NULL;
	size_t len;
	assert_true(av_read_file_limit(AV_SRCDIR "/samples/china-panda.json", AV_MAX_TEXT_FILE,
				       "tests", &whole, &len, &cause));
	size_t closed = (size_t)(strrchr(whole, '}') - whole) + 1;
	for (size_t n = 1; n < closed; n++) {
		char *text = av_malloc(n + 1);
		memcpy(text, whole, n);
		text[n] = '\0';
		if (av_json_parse(text, "x.json", TEXT_VALUES, "tests", &cause))
			fail_msg("a prefix of %zu bytes was accepted", n);
		int line, col, used = 0;
		if (sscanf(cause, "x.json:%d:%d: %n", &line, &col, &used) != 2 || used == 0)
			fail_msg("%zu bytes: no place in \"%s\"", n, cause);
		if (offset_of(text, n, line, col) < 0)
			fail_msg("%zu bytes: %d:%d is outside the text", n, line, col);
		if (strcmp(cause + used, "JSON syntax error") == 0)
			fail_msg("%zu bytes: the scanner and cJSON disagree", n);
		for (size_t stop = 0; stop <= n; stop += 7) {
			size_t at = stop;
			free(av_json_diagnose(text, n, &at));
			assert_true(at <= n);
		}
		free(text);
	}
	free(cause);
	free(whole);
}

/* Loads text as a sample (or weights) that must fail with want after "t.json: ". */
enum parse_as { AS_SAMPLE, AS_WEIGHTS, AS_THEME };

static void expect_parse_error(enum parse_as kind,
			       const char *text, const char *want)
{
	char *cause = NULL;
	bool ok;
	if (kind == AS_SAMPLE) {
		struct av_sample s;
		ok = av_sample_parse(text, "t.json", &s, &cause);
	} else if (kind == AS_THEME) {
		struct av_theme t;
		ok = av_theme_parse(text, "t.json", &t, &cause);
	} else {
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		ok = av_weights_parse(text, "t.json", &cfg, NULL, &p, &cause);
	}
	assert_false(ok);
	char *full = av_printf("t.json: %s", want);
	assert_string_equal(cause, full);
	free(full);
	free(cause);
}

/* The built-in sample's description told a learner that Q/K/V are drawn
 * from N(0,1): they are computed from X, and the weights are drawn. */
static void test_builtin_description_draws_the_weights(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s, &cause));
	assert_null(strstr(s.description, "Q/K/V drawn"));
	assert_non_null(strstr(s.description, "W_q, W_k and W_v drawn from N(0,1)"));
	assert_null(strstr(s.description_zh, "Q/K/V 像"));
	assert_non_null(strstr(s.description_zh, "W_q、W_k、W_v 像 torch.randn"));
	av_sample_free(&s);
}

/* "title" and "description" in one language (a string) or two, as lessons
 * write their captions; English is required, Chinese optional. */
static void test_sample_texts_in_two_languages(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_true(av_sample_parse("{\"name\": \"m\", \"sentence\": \"a\", "
				    "\"title\": {\"en\": \"Hello\", \"zh_CN\": \"你好\"}, "
				    "\"description\": {\"en\": \"Words.\"}}",
				    "t.json", &s, &cause));
	assert_string_equal(s.title, "Hello");
	assert_string_equal(s.title_zh, "你好");
	assert_string_equal(s.description, "Words.");
	assert_null(s.description_zh);
	av_sample_free(&s);
	assert_true(av_sample_parse("{\"name\": \"m\", \"sentence\": \"a\", \"title\": \"T\"}",
				    "t.json", &s, &cause));
	assert_string_equal(s.title, "T");
	assert_null(s.title_zh);
	av_sample_free(&s);
	expect_parse_error(AS_SAMPLE, "{\"name\": \"m\", \"sentence\": \"a\", "
			   "\"title\": {\"zh_CN\": \"你好\"}}", "missing \"title\".\"en\"");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"m\", \"sentence\": \"a\", "
			   "\"title\": {\"en\": \"a\", \"fr\": \"b\"}}", "\"title\": unknown key \"fr\" (allowed: en or zh_CN)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"m\", \"sentence\": \"a\", "
			   "\"description\": {\"en\": \"a\", \"zh_CN\": 3}}", "\"description\".\"zh_CN\": expected a string, got a number");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"m\", \"sentence\": \"a\", "
			   "\"title\": [\"a\"]}", "\"title\": expected a string or {\"en\": text, \"zh_CN\": text}, got a list");
}

/* A file cannot retitle (ESC ] 0;title BEL) or clear (ESC [2J) the terminal
 * through an error message: keys, values and words are escaped and cut. */
/* A vocabulary entry is one token as the tokenizer gives it: "Tokyo" or
 * "new york" would take an embedding row no sentence can reach. */
static void test_vocab_words_are_tokens(void **state)
{
	(void)state;
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"a\", \"Tokyo\"]}",
			   "\"vocab\", item 2: \"Tokyo\" is never a token: a sentence's \"Tokyo\" "
			   "is \"tokyo\" (lower-cased)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"a\", \"new york\"]}",
			   "\"vocab\", item 2: \"new york\" is 2 tokens (the first \"new\"), "
			   "not one word");
	/* "中国" is two tokens: every CJK character is one */
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"a\", \"中国\"]}",
			   "\"vocab\", item 2: \"中国\" is 2 tokens (the first \"中\"), "
			   "not one word");
	expect_parse_error(AS_WEIGHTS, "{\"params\": {\"vocab\": [\"China\"]}}",
			   "\"params\".\"vocab\", item 1: \"China\" is never a token: a sentence's "
			   "\"China\" is \"china\" (lower-cased)");
	/* an entry of no token is said as the entry it is, not as a sentence
	 * ("the sentence is empty"), in a weights file as in a sample */
	expect_parse_error(AS_WEIGHTS, "{\"params\": {\"vocab\": [\"a\", \"\"]}}",
			   "\"params\".\"vocab\", item 2: empty word");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"a\", \"\"]}", "\"vocab\", item 2: empty word");
	expect_parse_error(AS_WEIGHTS, "{\"params\": {\"vocab\": [\"a\", \" \\t\"]}}",
			   "\"params\".\"vocab\", item 2: \" \\x09\" is no word: a sentence drops "
			   "all of it (spaces, control characters, marks with nothing before them)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"\u3000\"]}", "\"vocab\", item 1: \"\u3000\" is no word: a "
			   "sentence drops all of it (spaces, control characters, marks with nothing "
			   "before them)");
	/* what the tokenizer keeps whole is one word */
	struct av_sample smp;
	char *cause = NULL;
	assert_true(av_sample_parse("{\"name\": \"x\", \"sentence\": \"a\", \"vocab\": "
				    "[\"a\", \"it's\", \"熊\", \"2024\", \"café\", \"!\"]}",
				    "t.json", &smp, &cause));
	av_sample_free(&smp);
}

static void test_messages_escape_controls(void **state)
{
	(void)state;
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"\\u001b]0;title\\u0007\": 1}",
			   "unknown key \"\\x1b]0;title\\x07\" (allowed: name, title, description, "
			   "sentence, source, sentences, vocab, config, training or comment)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"\\u001b[2J\": 1, \"\\u001b[2J\": 2}",
			   "unknown key \"\\x1b[2J\" (allowed: name, title, description, "
			   "sentence, source, sentences, vocab, config, training or comment)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"config\": {\"mode\": \"\\u001b[2Jself\\u009b\\u202e\"}}",
			   "\"config\".\"mode\": unknown value \"\\x1b[2Jself\\u009b\\u202e\" "
			   "(allowed: self, causal or cross)");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a\", "
			   "\"vocab\": [\"\\u001b[2J\\\\\\\"\", \"a\", \"\\u001b[2J\\\\\\\"\"]}",
			   "\"vocab\", item 1: \"\\x1b[2J\\\\\\\"\" is 4 tokens (the first \"[\"), "
			   "not one word");
	expect_parse_error(AS_SAMPLE, "{\"name\": \"x\", \"sentence\": \"a b\", "
			   "\"training\": {\"track\": [\"a\", \"\\u001b]0;t\\u0007\"]}}",
			   "\"training\".\"track\": \"\\x1b]0;t\\x07\" is not in the vocabulary");
	/* 60 characters are cut to 40 and "..." */
	expect_parse_error(AS_WEIGHTS, "{\"params\": {\"vocab\": ["
			   "\"\\u001b]0;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", "
			   "\"\\u001b]0;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}}",
			   "\"params\".\"vocab\", item 1: \"\\x1b]0;aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...\" "
			   "is 4 tokens (the first \"]\"), not one word");
	expect_parse_error(AS_THEME, "{\"name\": \"x\", \"palettes\": {\"diverging\": "
			   "[\"#000000\", \"\\u001b[2J\"], \"sequential\": [\"#000000\", \"#ffffff\"]},"
			   " \"elements\": {}}",
			   "\"palettes\".\"diverging\"[2]: expected a colour like \"#rrggbb\", "
			   "got \"\\x1b[2J\"");
	/* a whole message: controls only, nothing cut, escaped text unchanged */
	char *m = av_escape_controls("t.json: \"\\x1b\" \x1b[2J \xc2\x9b \xff");
	assert_string_equal(m, "t.json: \"\\x1b\" \\x1b[2J \\u009b \\xff");
	free(m);
}

/* Text from input printed by --print and the listings: every invisible
 * format character escaped (bidi controls, U+061C, the BOM, the soft hyphen,
 * interlinear annotations, tag characters); accents and CJK kept, except
 * for a terminal whose locale is not UTF-8, where all of it is escaped. */
static void test_output_escapes_invisible(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "a\u202eb\u2066c\u200e\u200f", "a\\u202eb\\u2066c\\u200e\\u200f" },
		{ "\u061c\ufeff\u00ad\ufff9\ufffb", "\\u061c\\ufeff\\u00ad\\ufff9\\ufffb" },
		{ "x\U000E0041\U000E007F", "x\\U000e0041\\U000e007f" },
		{ "\x1b[2J\xc2\x9b\xff", "\\x1b[2J\\u009b\\xff" },
		{ "café 中国 \\ \"", "café 中国 \\ \"" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *shown = av_escape_output(cases[i].in);
		assert_string_equal(shown, cases[i].out);
		free(shown);
	}
	av_output_set_ascii(true);
	char *shown = av_escape_output("café 中\U0001F600\u202e");
	av_output_set_ascii(false);
	assert_string_equal(shown, "caf\\u00e9 \\u4e2d\\U0001f600\\u202e");
	free(shown);
	/* a cut to a width never splits an escape: one character at a time */
	char one[12];
	assert_int_equal(av_escape_output_next("\u202ex", 4, one), 3);
	assert_string_equal(one, "\\u202e");
	/* messages: the same characters escaped (tag characters were not) */
	shown = av_escape_controls("\U000E0041\u061c");
	assert_string_equal(shown, "\\U000e0041\\u061c");
	free(shown);
	/* a message for a terminal without UTF-8: every non-ASCII character */
	shown = av_escape_message("\"caf\u00e9\u202e\" \xc3\x9b", true);
	assert_string_equal(shown, "\"caf\\u00e9\\u202e\" \\u00db");
	free(shown);
	shown = av_escape_message("caf\u00e9\u202e", false);
	assert_string_equal(shown, "caf\u00e9\\u202e");
	free(shown);
}

/* cJSON decodes \u0000 to a NUL byte, which ended the C string early:
 * "china\u0000panda" was the one-word sentence "china", silently. Every
 * file is refused at the escape; an escaped backslash before u0000 is the
 * text \u0000 and reads as such. */
static void test_escaped_nul_refused(void **state)
{
	(void)state;
	char *cause = NULL;
	struct av_sample smp;
	assert_false(av_sample_parse("{\"name\": \"x\",\n \"sentence\": \"china\\u0000panda\"}",
				     "t.json", &smp, &cause));
	assert_string_equal(cause, "t.json:2:20: \"\\u0000\" in a string: text cannot hold a "
			    "NUL character");
	free(cause);
	cause = NULL;
	struct av_theme theme;
	assert_false(av_theme_parse("{\"name\\u0000\": 1}", "t.json", &theme, &cause));
	assert_string_equal(cause, "t.json:1:7: \"\\u0000\" in a string: text cannot hold a "
			    "NUL character");
	free(cause);
	cause = NULL;
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	assert_false(av_weights_parse("{\"params\": {\"vocab\": [\"a\\u0000\"]}}", "t.json",
				      &cfg, NULL, &p, &cause));
	assert_non_null(strstr(cause, "t.json:1:25: \"\\u0000\" in a string"));
	free(cause);
	cause = NULL;
	/* \\u0000 is a backslash and "u0000"; \\\u0000 is one and a NUL */
	assert_true(av_sample_parse("{\"name\": \"x\", \"sentence\": \"a \\\\u0000 b\"}",
				    "t.json", &smp, &cause));
	assert_string_equal(smp.sentence, "a \\u0000 b");
	av_sample_free(&smp);
	assert_false(av_sample_parse("{\"name\": \"x\", \"sentence\": \"a \\\\\\u0000\"}",
				     "t.json", &smp, &cause));
	assert_non_null(strstr(cause, "t.json:1:32: "));
	free(cause);
}

/* cJSON stops at 1000 levels; that is not a syntax error and says so, at
 * the bracket that opens level 1001. Brackets inside strings do not count. */
static void test_json_nesting_limit(void **state)
{
	(void)state;
	char *cause = NULL;
	size_t lists = 1000;   /* with the object, 1001 levels */
	char *text = av_malloc(2 * lists + 64);
	char *w = text + sprintf(text, "{\"s\": \"[[{\",\n \"a\": ");
	for (size_t i = 1; i < lists; i++)
		*w++ = '[';
	for (size_t i = 1; i < lists; i++)
		*w++ = ']';
	strcpy(w, "}");
	/* 1000 levels (the object and 999 lists) are fine */
	cJSON *root = av_json_parse(text, "deep.json", TEXT_VALUES, "tests", &cause);
	assert_non_null(root);
	cJSON_Delete(root);
	w = text + sprintf(text, "{\"s\": \"[[{\",\n \"a\": ");
	for (size_t i = 0; i < lists; i++)
		*w++ = '[';
	for (size_t i = 0; i < lists; i++)
		*w++ = ']';
	strcpy(w, "}");
	assert_null(av_json_parse(text, "deep.json", TEXT_VALUES, "tests", &cause));
	assert_string_equal(cause, "deep.json:2:1006: nested deeper than 1000 levels");
	free(text);
	free(cause);
}

static void test_json_getters(void **state)
{
	(void)state;
	char *cause = NULL;
	cJSON *o = av_json_parse("{\"big\": 1e300, \"n\": -3, \"b\": 1, "
				 "\"m\": [[1, 2], [3, 4], [5, 6]], \"f\": [1e39], \"e\": 5}",
				 "x", TEXT_VALUES, "tests", &cause);
	assert_non_null(o);
	long long v = 99;
	assert_true(av_json_get_int(o, "top", "absent", false, 0, 10, &v, &cause));
	assert_int_equal(v, 99);
	assert_false(av_json_get_int(o, "top", "absent", true, 0, 10, &v, &cause));
	assert_string_equal(cause, "missing \"top\".\"absent\"");
	assert_false(av_json_get_int(o, "top", "big", false, 0, 10, &v, &cause));
	assert_string_equal(cause, "\"top\".\"big\": expected a whole number from 0 to 10, "
			    "got 1e+300");
	assert_true(av_json_get_int(o, NULL, "n", true, -5, 5, &v, &cause));
	assert_int_equal(v, -3);
	bool b = false;
	assert_false(av_json_get_bool(o, NULL, "b", true, &b, &cause));
	assert_string_equal(cause, "\"b\": expected true or false, got a number");
	int e = 0;
	assert_false(av_json_get_enum(o, "config", "e", true, av_mode_names, &e, &cause));
	assert_string_equal(cause, "\"config\".\"e\": expected one of self, causal or cross, "
			    "got a number");
	int rows = -1, cols = -1;
	float *m = NULL;
	assert_true(av_json_get_matrix_dims(o, NULL, "m", true, &rows, &cols, &m, &cause));
	assert_int_equal(rows, 3);
	assert_int_equal(cols, 2);
	assert_true(m[5] == 6.0f);
	free(m);
	assert_false(av_json_get_matrix(o, "p", "m", true, 2, 3, &m, &cause));
	assert_string_equal(cause, "\"p\".\"m\": expected 2x3, got 3x2");
	float *f = NULL;
	assert_false(av_json_get_vector(o, "p", "f", true, 1, &f, &cause));
	assert_string_equal(cause, "\"p\".\"f\": item 1: 1e+39 is too large for a 32-bit float");
	assert_false(av_json_get_vector(o, "p", "m", true, 3, &f, &cause));
	assert_string_equal(cause, "\"p\".\"m\": item 1: expected a number, got a list");
	assert_null(f);
	cJSON_Delete(o);
	free(cause);
}

/* The largest float as attnview's %.9g writes it and as numpy prints it
 * reads back as FLT_MAX: both are a little above FLT_MAX as doubles, and
 * were refused as too large; what rounds to infinity is still refused,
 * with enough digits to tell it from FLT_MAX. */
static void test_float_limit(void **state)
{
	(void)state;
	char *cause = NULL, max[32];
	av_number_format(max, sizeof max, FLT_MAX, 9);
	char *text = av_printf("{\"f\": [%s, -3.4028235e38, 3.4028234e38], "
			       "\"g\": [3.40282357e38]}", max);
	cJSON *o = av_json_parse(text, "x", TEXT_VALUES, "tests", &cause);
	assert_non_null(o);
	float *f = NULL;
	assert_true(av_json_get_vector(o, "p", "f", true, 3, &f, &cause));
	assert_true(f[0] == FLT_MAX);
	assert_true(f[1] == -FLT_MAX);
	assert_true(f[2] == FLT_MAX);
	free(f);
	f = NULL;
	assert_false(av_json_get_vector(o, "p", "g", true, 1, &f, &cause));
	assert_string_equal(cause, "\"p\".\"g\": item 1: 3.40282357e+38 is too large for a "
			    "32-bit float");
	cJSON_Delete(o);
	free(cause);
	free(text);
}

/* Configs compare field by field: the padding of two equal configs may
 * differ, so memcmp said "different" (and read indeterminate bytes). */
static void test_config_equal(void **state)
{
	(void)state;
	struct av_config a, b;
	memset(&a, 0x00, sizeof a);
	memset(&b, 0xff, sizeof b);
	av_config_default(&a);
	av_config_default(&b);
	assert_true(av_config_equal(&a, &b));
	struct av_config c = a;
	c.seed++;
	assert_false(av_config_equal(&a, &c));
	c = a;
	c.temperature = 2;
	assert_false(av_config_equal(&a, &c));
	c = a;
	c.bias = !c.bias;
	assert_false(av_config_equal(&a, &c));
	c = a;
	c.max_positions++;
	assert_false(av_config_equal(&a, &c));
	c = a;
	c.init = AV_INIT_TORCH;
	assert_false(av_config_equal(&a, &c));
}

static void test_config_failure_keeps_cfg(void **state)
{
	(void)state;
	char *cause = NULL;
	cJSON *o = av_json_parse("{\"d_model\": 6, \"heads\": 3, \"seed\": \"18446744073709551615\","
				 " \"mode\": \"cross\", \"scale\": \"none\"}", "x",
				 TEXT_VALUES, "tests", &cause);
	assert_non_null(o);
	struct av_config cfg, before;
	av_config_default(&cfg);
	unsigned given = 12345;
	assert_true(av_json_get_config(o, "config", &cfg, &given, &cause));
	assert_null(cause);
	assert_int_equal(cfg.d_model, 6);
	assert_int_equal(cfg.heads, 3);
	assert_true(cfg.seed == UINT64_MAX);
	assert_int_equal(cfg.mode, AV_MODE_CROSS);
	assert_int_equal(given, AV_CFG_D_MODEL | AV_CFG_HEADS | AV_CFG_SEED | AV_CFG_MODE
			 | AV_CFG_SCALE);
	cJSON_Delete(o);
	/* A value read before the bad one must not leak into cfg. */
	o = av_json_parse("{\"d_model\": 4, \"heads\": 3}", "x", TEXT_VALUES, "tests", &cause);
	before = cfg;
	assert_false(av_json_get_config(o, "config", &cfg, &given, &cause));
	assert_string_equal(cause, "\"config\": d_model 4 is not divisible by heads 3 "
			    "(each head takes d_model/heads columns)");
	assert_true(av_config_equal(&cfg, &before));
	assert_int_equal(given, AV_CFG_D_MODEL | AV_CFG_HEADS | AV_CFG_SEED | AV_CFG_MODE
			 | AV_CFG_SCALE);
	cJSON_Delete(o);
	free(cause);
}

/* --- finding samples */

static char *joined_list(void)
{
	char **names = av_sample_list();
	char *out = av_strdup("");
	for (int i = 0; names[i]; i++) {
		char *next = av_printf("%s%s%s", out, i ? ", " : "", names[i]);
		free(out);
		out = next;
	}
	av_string_list_free(names);
	return out;
}

static void test_not_found_lists_samples(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_false(av_sample_load("no-such-sample", &s, &cause));
	assert_non_null(strstr(cause, "no sample named \"no-such-sample\" (looked in "));
	assert_non_null(strstr(cause, AV_SRCDIR "/samples"));
	assert_non_null(strstr(cause, PKGDATADIR "/samples"));
	char *avail = joined_list();
	char *tail = av_printf("; available: %s)", avail);
	assert_non_null(strstr(avail, "china-panda, qkv-walkthrough, translate-cross"));
	size_t n = strlen(cause), m = strlen(tail);
	assert_true(n > m);
	assert_string_equal(cause + n - m, tail);
	free(tail);
	free(avail);
	free(cause);
}

static void test_bad_sample_name(void **state)
{
	(void)state;
	struct av_sample s;
	char *cause = NULL;
	assert_false(av_sample_load("China!", &s, &cause));
	assert_string_equal(cause, "invalid sample name \"China!\" (a name has only a-z, 0-9, "
			    "_ and -; a path contains / or ends in .json)");
	assert_false(av_sample_load("", &s, &cause));
	assert_non_null(strstr(cause, "invalid sample name \"\""));
	/* Ends in .json: a path, relative to the current directory. */
	assert_false(av_sample_load("no-such-sample.json", &s, &cause));
	char *want = av_printf("no-such-sample.json: %s", strerror(ENOENT));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
}

static void test_missing_file(void **state)
{
	(void)state;
	const char *path = BAD_DIR "does-not-exist.json";
	char *want = av_printf("%s: %s", path, strerror(ENOENT));
	struct av_sample s;
	char *cause = NULL;
	assert_false(av_sample_load(path, &s, &cause));
	assert_string_equal(cause, want);
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	memset(&p, 0, sizeof p);
	assert_false(av_weights_load(path, &cfg, NULL, &p, &cause));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
}

/* A sample of exactly size bytes (padded with spaces) at path. */
static void write_padded_sample(const char *path, size_t size)
{
	const char *json = "{\"name\": \"big\", \"sentence\": \"a b\"}";
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	for (size_t i = strlen(json); i < size; i++)
		fputc(' ', f);
	assert_int_equal(fclose(f), 0);
}

/* Input is bounded: a sample up to 1 MiB loads, one byte more is refused
 * with the limit named; a device is refused before anything is read (an
 * endless one, /dev/zero, used to be read until memory ran out). */
static void test_file_limits(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-limits-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = av_printf("%s/big.json", dir);
	struct av_sample s;
	char *cause = NULL;
	write_padded_sample(path, AV_MAX_TEXT_FILE);
	assert_true(av_sample_load(path, &s, &cause));
	av_sample_free(&s);
	write_padded_sample(path, AV_MAX_TEXT_FILE + 1);
	assert_false(av_sample_load(path, &s, &cause));
	char *want = av_printf("%s: larger than the 1 MiB limit for samples", path);
	assert_string_equal(cause, want);
	free(want);
	struct av_theme t;
	assert_false(av_theme_load(path, &t, &cause));
	want = av_printf("%s: larger than the 1 MiB limit for themes", path);
	assert_string_equal(cause, want);
	free(want);

	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	assert_false(av_weights_load("/dev/null", &cfg, NULL, &p, &cause));
	assert_string_equal(cause, "/dev/null: not a regular file (a character device)");
	assert_false(av_sample_load("/dev/null", &s, &cause));
	assert_string_equal(cause, "/dev/null: not a regular file (a character device)");
	assert_false(av_weights_load(dir, &cfg, NULL, &p, &cause));
	want = av_printf("%s: not a regular file (a directory)", dir);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* --- large vocabularies load in linear time
 * 50,000 words: comparing every pair (as the loaders did) is 1.25e9 string
 * comparisons, seconds to minutes; a hash set makes it instant. No timing
 * is asserted; the size makes a quadratic loader obvious. */
#define MANY_WORDS 50000

/* "\"w0\", \"w1\", ..." with word last repeated as the final item when
 * repeat_first (so the repeat is found only at the very end). */
static char *word_list(int n, bool repeat_first)
{
	char *text = av_malloc((size_t)n * 12 + 32);
	char *w = text;
	for (int i = 0; i < n; i++)
		w += sprintf(w, "%s\"w%d\"", i ? ", " : "", i);
	if (repeat_first)
		strcpy(w, ", \"w0\"");
	return text;
}

static void test_large_vocabulary(void **state)
{
	(void)state;
	char *cause = NULL;
	char *words = word_list(MANY_WORDS, false);
	char *text = av_printf("{\"name\": \"big\", \"sentence\": \"w1 w2\", \"vocab\": [%s],"
			       " \"training\": {\"pairs\": [[\"w49999\", \"w0\"]]}}", words);
	struct av_sample s;
	if (!av_sample_parse(text, "big.json", &s, &cause))
		fail_msg("%s", cause);
	assert_int_equal(s.n_vocab, MANY_WORDS);
	/* the parameters for it, one row per word */
	struct av_params p;
	av_params_init(&p, &s.cfg, (const char *const *)s.vocab, s.n_vocab);
	assert_int_equal(p.vocab_size, MANY_WORDS);
	av_params_free(&p);
	av_sample_free(&s);
	free(text);
	free(words);

	/* a repeat found at the end, with both item numbers */
	words = word_list(MANY_WORDS, true);
	text = av_printf("{\"name\": \"big\", \"sentence\": \"w1\", \"vocab\": [%s]}", words);
	assert_false(av_sample_parse(text, "big.json", &s, &cause));
	assert_string_equal(cause, "big.json: \"vocab\": \"w0\" is given twice "
			    "(items 1 and 50001)");
	free(text);

	/* the same in a weights file (D = 1) */
	char *rows = av_malloc((size_t)MANY_WORDS * 8 + 16);
	char *w = rows;
	for (int i = 0; i <= MANY_WORDS; i++)
		w += sprintf(w, "%s[0.5]", i ? ", " : "");
#define WEIGHTS_FMT "{\"config\": {\"d_model\": 1, \"heads\": 1, \"positional\": \"none\"}," \
		" \"params\": {\"vocab\": [%s], \"token_embedding\": [%s], \"w_q\": [[1]]," \
		" \"w_k\": [[1]], \"w_v\": [[1]], \"w_o\": [[1]]}}"
	text = av_printf(WEIGHTS_FMT, words, rows);
	struct av_config cfg;
	av_config_default(&cfg);
	assert_false(av_weights_parse(text, "big.json", &cfg, NULL, &p, &cause));
	assert_string_equal(cause, "big.json: \"params\".\"vocab\": \"w0\" is given twice "
			    "(items 1 and 50001)");
	free(text);
	free(words);
	words = word_list(MANY_WORDS, false);
	*strrchr(rows, ',') = '\0';   /* one row per word */
	text = av_printf(WEIGHTS_FMT, words, rows);
	if (!av_weights_parse(text, "big.json", &cfg, NULL, &p, &cause))
		fail_msg("%s", cause);
	assert_int_equal(p.vocab_size, MANY_WORDS);
	av_params_free(&p);
	free(text);
	free(words);
	free(rows);

	/* no "vocab": the words of 1000 sentences of 50 new words each */
	size_t cap = (size_t)MANY_WORDS * 12 + 64000;
	char *sentences = av_malloc(cap);
	w = sentences;
	for (int i = 0; i < MANY_WORDS; i++)
		w += sprintf(w, "%sw%d%s", i % 50 == 0 ? (i ? "\", \"" : "\"") : " ", i,
			     i == MANY_WORDS - 1 ? "\"" : "");
	text = av_printf("{\"name\": \"big\", \"sentence\": \"w1 w2\", \"sentences\": [%s]}",
			 sentences);
	if (!av_sample_parse(text, "big.json", &s, &cause))
		fail_msg("%s", cause);
	assert_int_equal(s.n_sentences, MANY_WORDS / 50);
	assert_int_equal(s.n_vocab, MANY_WORDS);
	assert_string_equal(s.vocab[MANY_WORDS - 1], "w49999");
	av_sample_free(&s);
	free(text);
	free(sentences);
	free(cause);
}

static void write_text(const char *path, const char *text)
{
	char *cause = NULL;
	assert_true(av_write_file_atomic(path, text, strlen(text), &cause));
	assert_null(cause);
}

/* $ATTNVIEW_DATA_DIR comes first, and the list has each name once, sorted,
 * without files whose names are not sample names. */
static void test_search_order_and_list(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-test-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *samples = av_printf("%s/samples", dir);
	assert_int_equal(mkdir(samples, 0700), 0);
	char *files[] = { av_printf("%s/china-panda.json", samples),
			  av_printf("%s/a-local.json", samples),
			  av_printf("%s/Bad Name.json", samples),
			  av_printf("%s/notes.txt", samples) };
	write_text(files[0], "{\"name\": \"local\", \"title\": \"mine\", \"sentence\": \"a b\"}");
	write_text(files[1], "{\"name\": \"a\", \"sentence\": \"a\"}");
	write_text(files[2], "{}");
	write_text(files[3], "{}");
	char *old = getenv("ATTNVIEW_DATA_DIR") ? av_strdup(getenv("ATTNVIEW_DATA_DIR")) : NULL;
	assert_int_equal(setenv("ATTNVIEW_DATA_DIR", dir, 1), 0);

	struct av_sample s;
	char *cause = NULL;
	bool ok = av_sample_load("china-panda", &s, &cause);
	char **names = av_sample_list();

	if (old)
		setenv("ATTNVIEW_DATA_DIR", old, 1);
	else
		unsetenv("ATTNVIEW_DATA_DIR");
	free(old);
	for (int i = 0; i < 4; i++) {
		unlink(files[i]);
		free(files[i]);
	}
	rmdir(samples);
	rmdir(dir);
	free(samples);

	assert_true(ok);
	assert_string_equal(s.title, "mine");
	av_sample_free(&s);
	assert_string_equal(names[0], "a-local");
	int panda = 0;
	for (int i = 0; names[i]; i++) {
		if (i > 0)
			assert_true(strcmp(names[i - 1], names[i]) < 0);
		assert_null(strchr(names[i], ' '));
		panda += strcmp(names[i], "china-panda") == 0;
	}
	assert_int_equal(panda, 1);
	av_string_list_free(names);
}

/* --- weights */

static void test_weights_small(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	cfg.temperature = 2.0;
	cfg.mode = AV_MODE_CAUSAL;
	unsigned given = 0;
	struct av_params p;
	memset(&p, 0, sizeof p);
	char *cause = NULL;
	assert_true(av_weights_load(FIXTURE_DIR "weights-small.json", &cfg, &given, &p, &cause));
	assert_null(cause);
	assert_int_equal(given, AV_CFG_D_MODEL | AV_CFG_HEADS | AV_CFG_SCALE
			 | AV_CFG_POSITIONAL | AV_CFG_SEED);
	assert_int_equal(cfg.d_model, 4);
	assert_int_equal(cfg.heads, 2);
	assert_int_equal(cfg.seed, 7);
	assert_int_equal(cfg.positional, AV_POS_LEARNED);
	/* Absent from the file: the caller's values stay. */
	assert_true(cfg.temperature == 2.0);
	assert_int_equal(cfg.mode, AV_MODE_CAUSAL);
	/* Decided by the tables: 5 position rows, biases present. */
	assert_int_equal(cfg.max_positions, 5);
	assert_true(cfg.bias);

	assert_int_equal(p.d_model, 4);
	assert_int_equal(p.max_positions, 5);
	assert_true(p.bias);
	const char *vocab[] = { "alpha", "beta", "gamma" };
	assert_words(p.vocab, p.vocab_size, vocab, 3);
	assert_true(p.vocab_cap >= p.vocab_size);
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 4; j++)
			assert_true(p.token_embedding[i * 4 + j]
				    == (float)((i + 1) + (j + 1) / 10.0));
	}
	for (int i = 0; i < 5; i++) {
		for (int j = 0; j < 4; j++)
			assert_true(p.position_embedding[i * 4 + j] == 0.5f * i - 0.25f * j);
	}
	for (int k = 0; k < 16; k++) {
		int i = k / 4, j = k % 4;
		assert_true(p.w_q[k] == (float)k);
		assert_true(p.w_k[k] == -(float)k);
		assert_true(p.w_v[k] == (i == j ? 2.0f : 0.0f));
		assert_true(p.w_o[k] == (i == j ? 1.0f : 0.5f));
	}
	const double bq[] = { 0.1, 0.2, 0.3, 0.4 }, bo[] = { 0.001, 0.002, 0.003, 0.004 };
	for (int j = 0; j < 4; j++) {
		assert_true(p.b_q[j] == (float)bq[j]);
		assert_true(p.b_k[j] == (float)-(j + 1));
		assert_true(p.b_v[j] == 0.0f);
		assert_true(p.b_o[j] == (float)bo[j]);
	}
	av_params_free(&p);
}

static void test_weights_trace(void **state)
{
	(void)state;
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	memset(&p, 0, sizeof p);
	char *cause = NULL;
	assert_true(av_weights_load(FIXTURE_DIR "trace-small.json", &cfg, NULL, &p, &cause));
	assert_null(cause);
	assert_int_equal(cfg.mode, AV_MODE_CAUSAL);
	assert_int_equal(cfg.scale, AV_SCALE_NONE);
	assert_true(cfg.temperature == 0.5);
	assert_int_equal(cfg.init, AV_INIT_XAVIER);
	assert_true(cfg.seed == UINT64_MAX);
	assert_int_equal(cfg.max_positions, 16);
	assert_false(p.bias);
	assert_null(p.b_q);
	assert_null(p.position_embedding);
	assert_int_equal(p.max_positions, 16);
	assert_true(p.w_k[1] == 1.0f && p.w_k[0] == 0.0f);
	av_params_free(&p);
}

/* The values cJSON made of a document. */
static size_t tree_values(const cJSON *item)
{
	size_t n = 1;
	const cJSON *child;
	cJSON_ArrayForEach(child, item)
		n += tree_values(child);
	return n;
}

static void expect_count(const char *text, size_t want)
{
	size_t got = av_json_count_values(text, strlen(text), SIZE_MAX);
	if (got != want)
		fail_msg("%s: counted %zu values, expected %zu", text, got, want);
	cJSON *doc = cJSON_Parse(text);
	assert_non_null(doc);
	assert_int_equal(tree_values(doc), want);
	cJSON_Delete(doc);
}

/* The count before cJSON is what cJSON builds: brackets, commas and quotes
 * inside strings are text, empty containers hold nothing. */
static void test_json_count_values(void **state)
{
	(void)state;
	expect_count("{}", 1);
	expect_count("{\"a\": 1}", 2);
	expect_count("[1, 2, 3]", 4);
	expect_count("[[], [1], { }, [ [ ] ]]", 7);
	expect_count("{ \"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : null } }", 6);
	expect_count("{\"s,[{\": \"x\\\",[1,2]{\", \"t\": [\"\\\\\", true, false]}", 6);
	expect_count("{\"中文\": \"é\", \"n\": [-1.5e3, 0]}", 5);
	/* every file shipped or used by the tests, as cJSON reads it */
	static const char *const files[] = {
		FIXTURE_DIR "ref-seed000-dmodel-512.json", FIXTURE_DIR "weights-small.json",
		FIXTURE_DIR "trace-small.json", FIXTURE_DIR "bpe-reference.json",
		TESTS_SRCDIR "/../lessons/china-panda.json",
		TESTS_SRCDIR "/../samples/china-panda.json",
		TESTS_SRCDIR "/../themes/dark.json",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *text, *cause = NULL;
		size_t len;
		if (!av_read_file(files[i], &text, &len, &cause))
			fail_msg("%s", cause);
		cJSON *doc = cJSON_Parse(text);
		assert_non_null(doc);
		assert_int_equal(av_json_count_values(text, len, SIZE_MAX), tree_values(doc));
		cJSON_Delete(doc);
		free(text);
	}
}

/* {"c": [0, 0, ...]}: 2 + zeros values. */
static char *zeros_document(size_t zeros)
{
	char *text = av_malloc(2 * zeros + 16), *w = text + sprintf(text, "{\"c\": [");
	for (size_t i = 0; i < zeros; i++) {
		*w++ = '0';
		*w++ = ',';
	}
	strcpy(w - (zeros > 0), "]}");
	return text;
}

/* A file of more values than its kind may hold is refused before cJSON
 * builds them (a sample at its 1 MiB limit took 47 MB, a weights file
 * 2.7 GB); one at the limit gets as far as its keys. */
static void test_json_values_limit(void **state)
{
	(void)state;
	size_t max = AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE);
	char *text = zeros_document(max - 2), *cause = NULL;
	struct av_sample s;
	assert_false(av_sample_parse(text, "x.json", &s, &cause));
	assert_non_null(strstr(cause, "unknown key \"c\""));
	free(cause);
	cause = NULL;
	free(text);
	text = zeros_document(max - 1);
	assert_false(av_sample_parse(text, "x.json", &s, &cause));
	assert_string_equal(cause, "x.json: more than 174762 values (numbers, strings, lists, "
			    "objects): the limit for samples");
	free(cause);
	cause = NULL;
	struct av_theme t;
	assert_false(av_theme_parse(text, "t.json", &t, &cause));
	assert_non_null(strstr(cause, "the limit for themes"));
	free(cause);
	cause = NULL;
	free(text);
	text = zeros_document(AV_JSON_MAX_VALUES(AV_MAX_WEIGHTS_FILE) - 1);
	struct av_config cfg;
	struct av_params p;
	av_config_default(&cfg);
	assert_false(av_weights_parse(text, "w.json", &cfg, NULL, &p, &cause));
	assert_string_equal(cause, "w.json: more than 11184810 values (numbers, strings, lists, "
			    "objects): the limit for weights files");
	free(cause);
	free(text);
}

/* A file's "training" record: read (its loss list too), absent, and refused
 * when a field is wrong, as the rest of the file would be. */
static void test_weights_training_record(void **state)
{
	(void)state;
	const char *head = "{\"config\": {\"d_model\": 1, \"heads\": 1, \"positional\": "
			   "\"none\", \"bias\": false}, \"params\": {\"vocab\": [\"a\"], "
			   "\"token_embedding\": [[1]], \"w_q\": [[1]], \"w_k\": [[1]], "
			   "\"w_v\": [[1]], \"w_o\": [[1]]}";
	static const struct { const char *training, *error; } cases[] = {
		{ "", NULL },
		{ ", \"training\": {\"epochs\": 200, \"steps\": 2, \"lr\": 0.01, \"optimizer\": "
		  "\"sgd\", \"target\": \"pairs\"}", NULL },
		{ ", \"training\": {\"epochs\": -1, \"lr\": 0.01, \"optimizer\": \"adam\", "
		  "\"target\": \"self\"}", "\"training\".\"epochs\"" },
		{ ", \"training\": {\"epochs\": 2, \"lr\": 0, \"optimizer\": \"adam\", "
		  "\"target\": \"self\"}", "\"lr\": expected a positive number" },
		{ ", \"training\": {\"epochs\": 2, \"lr\": 0.1, \"optimizer\": \"rmsprop\", "
		  "\"target\": \"self\"}", "\"optimizer\"" },
		{ ", \"training\": {\"lr\": 0.1, \"optimizer\": \"adam\"}", "\"epochs\"" },
		{ ", \"training\": {\"epochs\": 1, \"loss\": [0.5]}", NULL },
		{ ", \"training\": [1]", "\"training\"" },
		{ ", \"training\": {\"epochs\": 2, \"bogus\": 1}", "unknown key \"bogus\"" },
		{ ", \"training\": {\"epochs\": 0, \"steps\": 0}", NULL },
		{ ", \"training\": {\"epochs\": 3, \"epochs_before\": 200}", NULL },
		{ ", \"training\": {\"epochs\": 0, \"epochs_before\": 200}", NULL },
		{ ", \"training\": {\"epochs\": 3, \"epochs_before\": -200}",
		  "\"training\".\"epochs_before\"" },
		/* the loss: one finite number per epoch */
		{ ", \"training\": {\"epochs\": 3, \"lr\": 0.1, \"loss\": [3, 2.5, 0.125]}", NULL },
		{ ", \"training\": {\"epochs\": 200, \"loss\": [1, 2]}",
		  "\"training\".\"loss\": expected 200 numbers (one per epoch, \"epochs\" is 200), "
		  "got 2" },
		{ ", \"training\": {\"epochs\": 1, \"loss\": [1e999]}",
		  "\"training\".\"loss\": item 1: not a finite number" },
		{ ", \"training\": {\"epochs\": 2, \"loss\": [1, null]}",
		  "\"training\".\"loss\": item 2: expected a number, got null" },
		{ ", \"training\": {\"epochs\": 1, \"loss\": 0.5}",
		  "\"training\".\"loss\": expected a list of numbers, got a number" },
		{ ", \"training\": {\"epochs\": 0, \"loss\": []}", NULL },
		/* steps into an epoch: fewer than a sample's sentences can be */
		{ ", \"training\": {\"epochs\": 1, \"steps\": 174762}",
		  "\"training\".\"steps\": 174762 is more than a run takes into an epoch (one "
		  "step per training sentence: at most 174761)" },
		{ ", \"training\": {\"epochs\": 1, \"steps\": 2147483647}",
		  "\"training\".\"steps\": 2147483647 is more" },
		{ ", \"training\": {\"epochs\": 1, \"steps\": 174761}", NULL },
		/* epochs: no more than the longest run trains, at one head; the
		 * epochs before add up over runs, to INT_MAX at most */
		{ ", \"training\": {\"epochs\": 2097153}",
		  "\"training\".\"epochs\": 2097153 is more than one run trains (a run stops "
		  "when its history is full: at most 2097152 epochs)" },
		{ ", \"training\": {\"epochs\": 2147483647}", "\"epochs\": 2147483647 is more" },
		{ ", \"training\": {\"epochs\": 2097152}", NULL },
		{ ", \"training\": {\"epochs\": 1, \"epochs_before\": 2147483647}", NULL },
		{ ", \"training\": {\"epochs\": 1, \"epochs_before\": 2147483648}",
		  "\"epochs_before\"" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *text = av_printf("%s%s}", head, cases[i].training), *cause = NULL;
		struct av_config cfg;
		struct av_params p;
		struct av_loaded_training t = { .present = true };
		av_config_default(&cfg);
		bool ok = av_weights_parse_trained(text, "w.json", &cfg, NULL, &p, &t, &cause);
		free(text);
		if (cases[i].error) {
			assert_false(ok);
			if (!strstr(cause, cases[i].error))
				fail_msg("case %zu: \"%s\" lacks %s", i, cause, cases[i].error);
			free(cause);
			continue;
		}
		assert_true(ok);
		av_params_free(&p);
		/* 0 epochs and steps: as drawn, no record (cases 9, 18) */
		assert_int_equal(t.present, i > 0 && i != 9 && i != 18);
		assert_ptr_equal(t.record.loss, t.loss);
		if (i == 1) {
			assert_int_equal(t.record.epochs, 200);
			assert_int_equal(t.record.steps, 2);
			assert_true(t.record.lr == 0.01);
			assert_string_equal(t.record.optimizer, "sgd");
			assert_string_equal(t.record.target, "pairs");
			assert_null(t.loss);
		} else if (i == 10 || i == 11) {   /* a run on from trained weights */
			assert_int_equal(t.record.epochs, i == 10 ? 3 : 0);
			assert_int_equal(t.record.epochs_before, 200);
		} else if (i == 6) {   /* what the record leaves out is not made up */
			assert_int_equal(t.record.epochs, 1);
			assert_true(isnan(t.record.lr));
			assert_null(t.record.optimizer);
			assert_null(t.record.target);
			assert_non_null(t.loss);
			assert_true(t.loss[0] == 0.5);
		} else if (i == 13) {   /* the loss, as written */
			assert_int_equal(t.record.epochs, 3);
			assert_true(t.loss[0] == 3 && t.loss[1] == 2.5 && t.loss[2] == 0.125);
		}
		av_loaded_training_free(&t);
	}
}

/* A list of doubles: any length up to the bound the caller gives, refused
 * past it before anything is allocated. */
static void test_json_doubles(void **state)
{
	(void)state;
	cJSON *o = cJSON_Parse("{\"l\": [1, 2.5, 3], \"e\": []}");
	double *v = NULL;
	int n = -1;
	char *cause = NULL;
	assert_true(av_json_get_doubles(o, "t", "l", true, 3, &v, &n, &cause));
	assert_int_equal(n, 3);
	assert_true(v[0] == 1 && v[1] == 2.5 && v[2] == 3);
	free(v);
	v = NULL;
	assert_false(av_json_get_doubles(o, "t", "l", true, 2, &v, &n, &cause));
	assert_string_equal(cause, "\"t\".\"l\": expected at most 2 numbers, got 3");
	assert_null(v);
	free(cause);
	assert_true(av_json_get_doubles(o, "t", "e", true, 2, &v, &n, &cause));
	assert_int_equal(n, 0);
	assert_null(v);
	n = -1;   /* absent and not required: kept */
	assert_true(av_json_get_doubles(o, "t", "x", false, 2, &v, &n, &cause));
	assert_int_equal(n, -1);
	cJSON_Delete(o);
}

/* The rows of a weights file are read beside cJSON (json_rows.h): the same
 * tree and the same messages as cJSON's own parse, in less memory. Texts
 * with anything unusual keep cJSON's parse. */
static void test_rows_read_aside(void **state)
{
	(void)state;
	static const struct { const char *text; int rows_aside; } cases[] = {
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8], [0.1,-2e-3,3E+2,4e5, 5 ,6,7 , 8\n]]}", 2 },
		/* too short, a string, a nested list, a number cJSON reads only
		 * in part ("1e" is 1, then an error), a leading zero cJSON takes */
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, \"8\"]]}", 0 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, [8]]]}", 0 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 1e], [1e999, -1e999, 1, 2, 3, 4, 5, 06]]}", 1 },
		/* a '+' or a '.' first: strtod reads it, cJSON does not */
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, +.5], [1, 2, 3, 4, 5, 6, 7, .5]]}", 0 },
		/* U+0001, the stand-ins' mark, anywhere: cJSON's parse */
		{ "{\"s\": \"a\\u0001b\", \"m\": [[1, 2, 3, 4, 5, 6, 7, 8]]}", 0 },
		{ "{\"s\": \"\\\\u0001\", \"m\": [[1, 2, 3, 4, 5, 6, 7, 8]]}", 1 },
		/* not in a list: a key's own value stays cJSON's */
		{ "{\"v\": [1, 2, 3, 4, 5, 6, 7, 8], \"m\": [[[1, 2, 3, 4, 5, 6, 7, 8]]]}", 1 },
		{ "[[1, 2, 3, 4, 5, 6, 7, 8]]", 1 },
		/* errors after, between and at the end of rows: cJSON's place in
		 * the compact text, found again in the text */
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8]", 1 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8] [1, 2, 3, 4, 5, 6, 7, 8]]}", 2 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8],\n [1, 2, 3, 4, 5, 6, 7, 8], x]}", 2 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8],\n [1, 2, 3, 4, 5, 6, 7, 8]]", 2 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8]], \"s\": \"abc", 1 },
		{ "{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8]]}}", 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *text = cases[i].text;
		char *compact = NULL;
		struct av_json_rows rows;
		bool compacted = av_json_rows_compact(text, strlen(text), AV_JSON_MAX_PARSE_BYTES,
						      &compact, &rows) == AV_JSON_ROWS_COMPACT;
		if (compacted != (cases[i].rows_aside > 0) ||
		    (compacted && rows.n != cases[i].rows_aside))
			fail_msg("case %zu: %d rows read aside, expected %d", i,
				 compacted ? rows.n : 0, cases[i].rows_aside);
		if (compacted) {
			av_json_rows_free(&rows);
			free(compact);
		}
		char *c1 = NULL, *c2 = NULL;
		cJSON *plain = av_json_parse(text, "x.json", 1000, "tests", &c1);
		cJSON *aside = av_json_parse_rows(text, "x.json", 1000, "tests", &c2);
		assert_true(!plain == !aside);
		if (plain && !json_same_tree(plain, aside))
			fail_msg("case %zu: the trees differ", i);
		if (!plain)
			assert_string_equal(c1, c2);
		cJSON_Delete(plain);
		cJSON_Delete(aside);
		free(c1);
		free(c2);
	}
	/* a syntax error after a row: cJSON's own message, line and column */
	char *cause = NULL;
	assert_null(av_json_parse_rows("{\"m\": [[1, 2, 3, 4, 5, 6, 7, 8],\n [1, 2 3]]}", "x.json",
				       1000, "tests", &cause));
	assert_string_equal(cause, "x.json:2:8: expected ',' or ']' after item 2 of the list, "
			    "found '3'");
	free(cause);
}

/* "0,0,0,..." in lists of 7 or rows of 8 (each 2 bytes a number) */
static char *zero_lists(int lists, int numbers)
{
	size_t list = 2 + 2 * (size_t)numbers, size = 32 + (size_t)lists * list;
	char *text = av_malloc(size), *o = text;
	o += sprintf(o, "{\"junk\": [");
	for (int i = 0; i < lists; i++) {
		*o++ = i ? ',' : ' ';
		*o++ = '[';
		for (int k = 0; k < numbers; k++) {
			*o++ = '0';
			*o++ = k + 1 < numbers ? ',' : ']';
		}
	}
	strcpy(o, "]}");
	return text;
}

/* A file under the count of values whose tree would take more than
 * AV_JSON_MAX_PARSE_BYTES is refused before cJSON or the rows take it (a
 * 22 MB file of them took 886 MB): many short lists, all cJSON's, and
 * many rows of 8, read aside until they pass the limit. */
static void test_parse_memory_limit(void **state)
{
	(void)state;
	const char *want = "x.json: reading it would take more than 128 MB of memory, the "
			   "limit for tests (too many small lists or numbers)";
	size_t values = 2 * AV_JSON_MAX_PARSE_BYTES / AV_JSON_NODE_BYTES;
	char *text = zero_lists((int)(values / 8), 7);
	for (int aside = 0; aside < 2; aside++) {
		char *cause = NULL;
		cJSON *root = aside ? av_json_parse_rows(text, "x.json", 2 * values, "tests", &cause)
				    : av_json_parse(text, "x.json", 2 * values, "tests", &cause);
		assert_null(root);
		assert_string_equal(cause, want);
		free(cause);
	}
	free(text);

	/* rows read aside stop at the limit, leaving nothing to free */
	text = zero_lists(3, 8);
	char *compact = NULL;
	struct av_json_rows rows;
	assert_int_equal(av_json_rows_compact(text, strlen(text), AV_JSON_ROW_BYTES(8), &compact,
					      &rows), AV_JSON_ROWS_TOO_BIG);
	assert_null(compact);
	assert_int_equal(rows.n, 0);
	assert_int_equal(av_json_rows_compact(text, strlen(text), 3 * AV_JSON_ROW_BYTES(8),
					      &compact, &rows), AV_JSON_ROWS_COMPACT);
	assert_int_equal(rows.n, 3);
	assert_int_equal(rows.bytes, 3 * AV_JSON_ROW_BYTES(8));
	av_json_rows_free(&rows);
	free(compact);
	free(text);
}

/* What the getters say of rows read aside is what they say of lists. */
static void test_rows_aside_messages(void **state)
{
	(void)state;
	static const struct { const char *key, *value, *error; } cases[] = {
		{ "w_q", "[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8, 9]]",
		  "\"params\".\"w_q\": rows have different lengths (row 1 has 8 numbers, "
		  "row 2 has 9)" },
		{ "w_q", "[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 1e39, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, "
		  "6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, "
		  "6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]]",
		  "\"params\".\"w_q\": row 2, column 3: 1e+39 is too large for a 32-bit float" },
		{ "w_k", "[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, "
		  "7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, "
		  "7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 1e999]]",
		  "\"params\".\"w_k\": row 8, column 8: not a finite number" },
		{ "w_v", "[[1, 2, 3, 4, 5, 6, 7, 8], \"row\"]",
		  "\"params\".\"w_v\": expected a 8x8 matrix (a list of lists of numbers), "
		  "but row 2 is a string" },
		{ "token_embedding", "[[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]]",
		  "\"params\".\"token_embedding\": expected 1x8, got 2x8" },
		{ "b_q", "[[1, 2, 3, 4, 5, 6, 7, 8], 1, 2, 3, 4, 5, 6, 7]",
		  "\"params\".\"b_q\": item 1: expected a number, got a list" },
		{ "vocab", "[[1, 2, 3, 4, 5, 6, 7, 8]]",
		  "\"params\".\"vocab\", item 1: expected a string, got a list" },
	};
	static const char *const keys[] = { "vocab", "token_embedding", "w_q", "w_k", "w_v",
					    "w_o", "b_q", "b_k", "b_v", "b_o" };
	const char *row = "[1, 2, 3, 4, 5, 6, 7, 8]";
	char *matrix = av_printf("[%s, %s, %s, %s, %s, %s, %s, %s]", row, row, row, row, row,
				 row, row, row);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *params = av_strdup("");
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			const char *value = strcmp(keys[k], cases[i].key) == 0 ? cases[i].value
				: k == 0 ? "[\"a\"]" : k == 1 ? "[[1, 2, 3, 4, 5, 6, 7, 8]]"
				: k < 6 ? matrix : row;
			char *more = av_printf("%s%s\"%s\": %s", params, k ? ", " : "", keys[k],
					       value);
			free(params);
			params = more;
		}
		char *text = av_printf(
			"{\"config\": {\"d_model\": 8, \"heads\": 1, \"positional\": \"none\", "
			"\"bias\": true}, \"params\": {%s}}", params);
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		char *cause = NULL;
		assert_false(av_weights_parse(text, "w.json", &cfg, NULL, &p, &cause));
		if (!strstr(cause, cases[i].error))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, cause, cases[i].error);
		free(cause);
		free(text);
		free(params);
	}
	free(matrix);
}

/* The PyTorch reference fixtures are weights files too. */
static void test_reference_fixtures_load(void **state)
{
	(void)state;
	DIR *d = opendir(FIXTURE_DIR);
	assert_non_null(d);
	int loaded = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ref-", 4) != 0)
			continue;
		char *path = av_printf("%s%s", FIXTURE_DIR, e->d_name);
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		char *cause = NULL;
		bool ok = av_weights_load(path, &cfg, NULL, &p, &cause);
		if (!ok)
			print_error("%s\n", cause);
		assert_true(ok);
		assert_int_equal(p.d_model, cfg.d_model);
		av_params_free(&p);
		free(path);
		loaded++;
	}
	closedir(d);
	assert_true(loaded > 0);
}

/* --- one bad file per error path */

enum loader { SAMPLE, WEIGHTS };

struct bad_case {
	const char *file;
	enum loader loader;
	const char *message;   /* what follows the path */
};

static struct bad_case bad_cases[] = {
	{ "sample-syntax.json", SAMPLE,
	  ":3:19: expected ',' or '}' after the member \"sentence\", found '\"'" },
	{ "sample-empty.json", SAMPLE, ": empty file (expected a JSON object)" },
	{ "sample-top-array.json", SAMPLE, ": expected a JSON object at the top, got a list" },
	{ "sample-missing-sentence.json", SAMPLE, ": missing \"sentence\"" },
	{ "sample-missing-name.json", SAMPLE, ": missing \"name\"" },
	{ "sample-sentence-number.json", SAMPLE,
	  ": \"sentence\": expected a string, got a number" },
	{ "sample-duplicate-key.json", SAMPLE, ": \"name\": given twice" },
	{ "sample-unknown-key.json", SAMPLE,
	  ": unknown key \"sentense\" (allowed: name, title, description, sentence, "
	  "source, sentences, vocab, config, training or comment)" },
	{ "sample-heads-string.json", SAMPLE,
	  ": \"config\".\"heads\": expected a whole number, got a string" },
	{ "sample-heads-fraction.json", SAMPLE,
	  ": \"config\".\"heads\": expected a whole number, got 1.5" },
	{ "sample-heads-zero.json", SAMPLE,
	  ": \"config\".\"heads\": expected a whole number from 1 to 4096, got 0" },
	{ "sample-heads-divide.json", SAMPLE,
	  ": \"config\": d_model 6 is not divisible by heads 4 "
	  "(each head takes d_model/heads columns)" },
	{ "sample-mode-unknown.json", SAMPLE,
	  ": \"config\".\"mode\": unknown value \"foo\" (allowed: self, causal or cross)" },
	{ "sample-config-key.json", SAMPLE,
	  ": \"config\": unknown key \"head\" (allowed: d_model, heads, mode, scale, "
	  "temperature, positional, bias, seed, init or max_positions)" },
	{ "sample-config-list.json", SAMPLE, ": \"config\": expected an object, got a list" },
	{ "sample-temperature-inf.json", SAMPLE,
	  ": \"config\".\"temperature\": not a finite number" },
	{ "sample-cross-no-source.json", SAMPLE,
	  ": cross mode needs a \"source\" sentence (the keys and values come from it)" },
	{ "sample-vocab-duplicate.json", SAMPLE,
	  ": \"vocab\": \"china\" is given twice (items 1 and 3)" },
	{ "sample-pairs-vocab.json", SAMPLE,
	  ": \"training\".\"pairs\", item 2: \"koala\" is not in the vocabulary" },
	{ "sample-track-one-word.json", SAMPLE,
	  ": \"training\".\"track\": expected a list of two words such as "
	  "[\"china\", \"panda\"]" },
	{ "sample-target-unknown.json", SAMPLE,
	  ": \"training\".\"target\": unknown value \"next\" (allowed: self, previous or pairs)" },
	{ "sample-target-pairs-none.json", SAMPLE,
	  ": \"training\".\"target\" is \"pairs\" but no \"training\".\"pairs\" are given" },
	{ "sample-epochs-zero.json", SAMPLE,
	  ": \"training\".\"epochs\": expected a whole number from 1 to 1000000, got 0" },
	{ "sample-lr-negative.json", SAMPLE,
	  ": \"training\".\"lr\": expected a positive number, got -0.5" },
	{ "sample-training-key.json", SAMPLE,
	  ": \"training\": unknown key \"epoch\" (allowed: epochs, lr, optimizer, target, "
	  "pairs or track)" },
	{ "weights-not-finite.json", WEIGHTS,
	  ": \"params\".\"w_q\": row 1, column 2: not a finite number" },
	{ "weights-shape.json", WEIGHTS, ": \"params\".\"w_q\": expected 3x3, got 3x4" },
	{ "weights-ragged.json", WEIGHTS,
	  ": \"params\".\"token_embedding\": rows have different lengths "
	  "(row 1 has 2 numbers, row 2 has 1)" },
	{ "weights-not-matrix.json", WEIGHTS,
	  ": \"params\".\"w_k\": expected a 2x2 matrix (a list of lists of numbers), "
	  "but row 1 is a number" },
	{ "weights-bias-length.json", WEIGHTS, ": \"params\".\"b_q\": expected 2 numbers, got 3" },
	{ "weights-partial-bias.json", WEIGHTS,
	  ": \"params\": b_q, b_k given but b_v, b_o missing (give all four biases or none)" },
	{ "weights-bias-config.json", WEIGHTS,
	  ": \"config\".\"bias\" is true but \"params\" has no biases" },
	{ "weights-no-positions.json", WEIGHTS,
	  ": missing \"params\".\"position_embedding\" (\"config\".\"positional\" is learned)" },
	{ "weights-positions-rows.json", WEIGHTS,
	  ": \"params\".\"position_embedding\" has 3 rows but \"config\".\"max_positions\" is 8" },
	{ "weights-positions-unused.json", WEIGHTS,
	  ": \"params\".\"position_embedding\" is given but \"config\".\"positional\" is "
	  "sinusoidal (only learned positions have a table)" },
	{ "weights-vocab-duplicate.json", WEIGHTS,
	  ": \"params\".\"vocab\": \"a\" is given twice (items 1 and 2)" },
	{ "weights-param-key.json", WEIGHTS,
	  ": \"params\": unknown key \"w_x\" (allowed: vocab, token_embedding, "
	  "position_embedding, w_q, b_q, w_k, b_k, w_v, b_v, w_o or b_o)" },
	{ "weights-format.json", WEIGHTS,
	  ": \"format\": unknown value \"attnview-sample\" "
	  "(allowed: attnview-trace or attnview-weights)" },
	{ "weights-version.json", WEIGHTS,
	  ": \"version\": 2 is not supported (this attnview reads version 1)" },
	{ "weights-top-key.json", WEIGHTS,
	  ": unknown key \"weights\" (allowed: format, version, config, params, sentence, "
	  "source, tokens, source_tokens, stages, training or reference)" },
	{ "weights-no-params.json", WEIGHTS, ": missing \"params\"" },
	{ "weights-training-epochs.json", WEIGHTS,
	  ": \"training\".\"epochs\": 2147483647 is more than one run trains (a run stops "
	  "when its history is full: at most 2097152 epochs)" },
	{ "weights-training-steps.json", WEIGHTS,
	  ": \"training\".\"steps\": 2147483647 is more than a run takes into an epoch "
	  "(one step per training sentence: at most 174761)" },
	{ "weights-trace-config-twice.json", WEIGHTS, ": \"config\": given twice" },
	{ "weights-trace-params-twice.json", WEIGHTS, ": \"params\": given twice" },
	{ "weights-trace-format-twice.json", WEIGHTS, ": \"format\": given twice" },
};
#define N_BAD (sizeof bad_cases / sizeof bad_cases[0])

static void check_bad_sample(const char *path, char **cause)
{
	struct av_sample s, zero;
	memset(&zero, 0, sizeof zero);
	assert_false(av_sample_load(path, &s, cause));
	/* A failed load leaves nothing to free. */
	assert_memory_equal(&s, &zero, sizeof s);
}

static void check_bad_weights(const char *path, char **cause)
{
	struct av_config cfg, before;
	av_config_default(&cfg);
	before = cfg;
	unsigned given = 777;
	struct av_params p, zero;
	memset(&p, 0, sizeof p);
	memset(&zero, 0, sizeof zero);
	assert_false(av_weights_load(path, &cfg, &given, &p, cause));
	/* Nothing the caller passed is touched. */
	assert_true(av_config_equal(&cfg, &before));
	assert_int_equal(given, 777);
	assert_memory_equal(&p, &zero, sizeof p);
}

static void test_bad_file(void **state)
{
	const struct bad_case *c = *state;
	char *path = av_printf("%s%s", BAD_DIR, c->file);
	char *want = av_printf("%s%s", path, c->message);
	char *cause = NULL;
	if (c->loader == SAMPLE)
		check_bad_sample(path, &cause);
	else
		check_bad_weights(path, &cause);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
	free(want);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_china_panda),
		cmocka_unit_test(test_default_vocab_of_sentence_pairs),
		cmocka_unit_test(test_qkv_walkthrough),
		cmocka_unit_test(test_translate_cross),
		cmocka_unit_test(test_builtin_is_china_panda),
		cmocka_unit_test(test_sample_defaults),
		cmocka_unit_test(test_default_vocab_order),
		cmocka_unit_test(test_json_syntax_positions),
		cmocka_unit_test(test_json_mistakes_explained),
		cmocka_unit_test(test_json_truncations_explained),
		cmocka_unit_test(test_json_lax_refused),
		cmocka_unit_test(test_json_nesting_limit),
		cmocka_unit_test(test_json_count_values),
		cmocka_unit_test(test_json_values_limit),
		cmocka_unit_test(test_sample_texts_in_two_languages),
		cmocka_unit_test(test_builtin_description_draws_the_weights),
		cmocka_unit_test(test_vocab_words_are_tokens),
		cmocka_unit_test(test_messages_escape_controls),
		cmocka_unit_test(test_output_escapes_invisible),
		cmocka_unit_test(test_escaped_nul_refused),
		cmocka_unit_test(test_file_limits),
		cmocka_unit_test(test_large_vocabulary),
		cmocka_unit_test(test_json_getters),
		cmocka_unit_test(test_float_limit),
		cmocka_unit_test(test_config_equal),
		cmocka_unit_test(test_config_failure_keeps_cfg),
		cmocka_unit_test(test_not_found_lists_samples),
		cmocka_unit_test(test_bad_sample_name),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_search_order_and_list),
		cmocka_unit_test(test_weights_small),
		cmocka_unit_test(test_weights_trace),
		cmocka_unit_test(test_weights_training_record),
		cmocka_unit_test(test_json_doubles),
		cmocka_unit_test(test_rows_read_aside),
		cmocka_unit_test(test_rows_aside_messages),
		cmocka_unit_test(test_parse_memory_limit),
		cmocka_unit_test(test_reference_fixtures_load),
	};
	/* One named test per bad file, so a failure says which. */
	struct CMUnitTest bad[N_BAD];
	for (size_t i = 0; i < N_BAD; i++) {
		bad[i] = (struct CMUnitTest){ bad_cases[i].file, test_bad_file, NULL, NULL,
					      &bad_cases[i] };
	}
	int failed = cmocka_run_group_tests_name("loaders", tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("bad files", bad, NULL, NULL);
	return failed ? 1 : 0;
}
