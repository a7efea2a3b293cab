/* test_tokenizer.c: UTF-8 decoding, character classes and the tokenizer. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tokenizer.h"
#include "utf8.h"

/* Tokenizes s, which must succeed, and checks the tokens against the
 * NULL-terminated list that follows. */
static void expect_tokens(const char *s, ...)
{
	struct av_tokens t;
	char *cause = NULL;
	bool ok = av_tokenize(s, &t, &cause);
	if (!ok)
		fail_msg("av_tokenize(\"%s\") failed: %s", s, cause);
	assert_null(cause);
	va_list ap;
	va_start(ap, s);
	int i = 0;
	for (const char *want; (want = va_arg(ap, const char *)) != NULL; i++) {
		if (i >= t.n)
			fail_msg("\"%s\": only %d tokens, wanted \"%s\" next", s, t.n, want);
		assert_string_equal(t.text[i], want);
	}
	va_end(ap);
	assert_int_equal(t.n, i);
	av_tokens_free(&t);
}

/* Tokenizes s, which must fail with a message containing want. */
static void expect_error(const char *s, const char *want)
{
	struct av_tokens t;
	char *cause = NULL;
	assert_false(av_tokenize(s, &t, &cause));
	assert_int_equal(t.n, 0);
	assert_non_null(cause);
	if (!strstr(cause, want))
		fail_msg("cause \"%s\" does not contain \"%s\"", cause, want);
	free(cause);
}

static void test_english_words(void **state)
{
	(void)state;
	expect_tokens("the cat sat on the mat", "the", "cat", "sat", "on", "the",
		      "mat", NULL);
	expect_tokens("  leading and trailing  ", "leading", "and", "trailing", NULL);
}

static void test_punctuation(void **state)
{
	(void)state;
	expect_tokens("I'm here, OK?", "i'm", "here", ",", "ok", "?", NULL);
	expect_tokens("wait...what?!", "wait", ".", ".", ".", "what", "?", "!", NULL);
	expect_tokens("(a+b)=c", "(", "a", "+", "b", ")", "=", "c", NULL);
	expect_tokens("\xC2\xBFQu\xC3\xA9?", "\xC2\xBF", "qu\xC3\xA9", "?", NULL);
	expect_tokens("a\xE2\x80\x94" "b", "a", "\xE2\x80\x94", "b", NULL);  /* em dash */
	expect_tokens("\xE2\x80\x9Chi\xE2\x80\x9D", "\xE2\x80\x9C", "hi",
		      "\xE2\x80\x9D", NULL);                             /* curly quotes */
}

static void test_apostrophes(void **state)
{
	(void)state;
	expect_tokens("don't stop", "don't", "stop", NULL);
	expect_tokens("Don\xE2\x80\x99t stop", "don\xE2\x80\x99t", "stop", NULL);
	expect_tokens("rock 'n' roll", "rock", "'n'", "roll", NULL);
	expect_tokens("the dogs' bone", "the", "dogs'", "bone", NULL);
}

static void test_digits(void **state)
{
	(void)state;
	expect_tokens("in 2024 we had 3 GPUs", "in", "2024", "we", "had", "3", "gpus",
		      NULL);
	expect_tokens("3.14", "3", ".", "14", NULL);
	expect_tokens("gpt4o", "gpt4o", NULL);
}

static void test_lower_case(void **state)
{
	(void)state;
	expect_tokens("HELLO World", "hello", "world", NULL);
	/* É Ä Σ Д and a Latin Extended-A pair Ł -> ł */
	expect_tokens("\xC3\x89T\xC3\x89 \xC3\x84RGER \xCE\xA3\xCE\x9F\xCE\xA6\xCE\x99\xCE\x91 "
		      "\xD0\x94\xD0\x9E\xD0\x9C \xC5\x81\xC3\x93" "D\xC5\xB9",
		      "\xC3\xA9t\xC3\xA9", "\xC3\xa4rger",
		      "\xCF\x83\xCE\xBF\xCF\x86\xCE\xB9\xCE\xB1",
		      "\xD0\xB4\xD0\xBE\xD0\xBC", "\xC5\x82\xC3\xB3" "d\xC5\xBA", NULL);
	expect_tokens("Caf\xC3\xA9 cr\xC3\xA8me", "caf\xC3\xA9", "cr\xC3\xA8me", NULL);
	expect_tokens("stra\xC3\x9F" "e ma\xC3\xB1" "ana", "stra\xC3\x9F" "e",
		      "ma\xC3\xB1" "ana", NULL);
	/* İ (U+0130) lower-cases to a shorter encoding. */
	expect_tokens("\xC4\xB0STANBUL", "istanbul", NULL);
}

static void test_lower_code_points(void **state)
{
	(void)state;
	assert_int_equal(av_cp_lower('A'), 'a');
	assert_int_equal(av_cp_lower('z'), 'z');
	assert_int_equal(av_cp_lower(0x00C9), 0x00E9);   /* É */
	assert_int_equal(av_cp_lower(0x00D7), 0x00D7);   /* × is not a letter */
	assert_int_equal(av_cp_lower(0x00DF), 0x00DF);   /* ß has no single upper case */
	assert_int_equal(av_cp_lower(0x0178), 0x00FF);   /* Ÿ */
	assert_int_equal(av_cp_lower(0x0139), 0x013A);   /* Ĺ (odd/even pair) */
	assert_int_equal(av_cp_lower(0x0386), 0x03AC);   /* Ά */
	assert_int_equal(av_cp_lower(0x03A3), 0x03C3);   /* Σ */
	assert_int_equal(av_cp_lower(0x0401), 0x0451);   /* Ё */
	assert_int_equal(av_cp_lower(0x042F), 0x044F);   /* Я */
	assert_int_equal(av_cp_lower(0x0490), 0x0491);   /* Ґ */
	assert_int_equal(av_cp_lower(0x4E2D), 0x4E2D);   /* 中 */
}

/* Every lower case is Python's str.lower() (tools/gen-unicode-tables.py
 * writes the tables from it): beyond the blocks a hand-written table
 * covered, Latin Extended-B and Additional (Romanian, Vietnamese), the
 * letterlike symbols, fullwidth, Georgian, Cherokee and Deseret. */
static void test_lower_like_python(void **state)
{
	(void)state;
	static const uint32_t pairs[][2] = {
		{ 0x0218, 0x0219 },   /* Ș */
		{ 0x01A0, 0x01A1 },   /* Ơ */
		{ 0x01C4, 0x01C6 },   /* Ǆ */
		{ 0x01C5, 0x01C6 },   /* ǅ, title case */
		{ 0x1EA0, 0x1EA1 },   /* Ạ */
		{ 0x1E9E, 0x00DF },   /* ẞ */
		{ 0x212A, 'k' },      /* the Kelvin sign */
		{ 0x2126, 0x03C9 },   /* the ohm sign */
		{ 0x24B6, 0x24D0 },   /* Ⓐ */
		{ 0xFF21, 0xFF41 },   /* fullwidth A */
		{ 0x10A0, 0x2D00 },   /* Georgian Ⴀ */
		{ 0x13A0, 0xAB70 },   /* Cherokee Ꭰ */
		{ 0x10400, 0x10428 }, /* Deseret 𐐀 */
		{ 0x0130, 'i' },      /* İ: i and U+0307 in Python, plain i here */
		{ 0x00DF, 0x00DF },   /* ß stays */
		{ 0x03C2, 0x03C2 },   /* ς stays */
		{ 0x10FFFF, 0x10FFFF },
	};
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		assert_int_equal(av_cp_lower(pairs[i][0]), pairs[i][1]);
	/* Romanian and Vietnamese words */
	expect_tokens("\xC8\x98TIIN\xC8\x9A\xC4\x82", "\xC8\x99tiin\xC8\x9B\xC4\x83", NULL);
	expect_tokens("TI\xE1\xBA\xBENG VI\xE1\xBB\x86T", "ti\xE1\xBA\xBFng",
		      "vi\xE1\xBB\x87t", NULL);
}

/* str.lower()'s one rule with context: capital sigma is final (ς) after a
 * cased letter and before none, skipping case-ignorable characters (marks,
 * apostrophes, '.', ':'), across the whole sentence, not only the token. */
static void test_final_sigma(void **state)
{
	(void)state;
#define SIGMA "\xCE\xA3"
#define FINAL "\xCF\x82"
#define SMALL "\xCF\x83"
	/* ΟΔΟΣ -> οδος; ΣΟΦΙΑ -> σοφια; Σ alone -> σ */
	expect_tokens("\xCE\x9F\xCE\x94\xCE\x9F" SIGMA, "\xCE\xBF\xCE\xB4\xCE\xBF" FINAL, NULL);
	expect_tokens(SIGMA "\xCE\x9F\xCE\xA6\xCE\x99\xCE\x91",
		      SMALL "\xCE\xBF\xCF\x86\xCE\xB9\xCE\xB1", NULL);
	expect_tokens(SIGMA, SMALL, NULL);
	/* ΑΣ Β: a space is not skipped, so final; ΑΣ.Β: '.' is, and Β follows */
	expect_tokens("\xCE\x91" SIGMA " \xCE\x92", "\xCE\xB1" FINAL, "\xCE\xB2", NULL);
	expect_tokens("\xCE\x91" SIGMA ".\xCE\x92", "\xCE\xB1" SMALL, ".", "\xCE\xB2", NULL);
	/* an apostrophe after it, a digit before it (not cased) */
	expect_tokens("\xCE\x91" SIGMA "'", "\xCE\xB1" FINAL "'", NULL);
	expect_tokens("1" SIGMA, "1" SMALL, NULL);
	/* a combining acute between the letter and sigma is skipped */
	expect_tokens("\xCE\x91\xCC\x81" SIGMA, "\xCE\xB1\xCC\x81" FINAL, NULL);
#undef SIGMA
#undef FINAL
#undef SMALL
}

static void test_cjk(void **state)
{
	(void)state;
	struct av_tokens t;
	char *cause = NULL;
	assert_true(av_tokenize("\xE4\xB8\xAD\xE5\x9B\xBD\xE6\x9C\x89\xE7\x86\x8A\xE7\x8C\xAB",
				&t, &cause));
	assert_int_equal(t.n, 5);
	const char *want[] = { "\xE4\xB8\xAD", "\xE5\x9B\xBD", "\xE6\x9C\x89",
			       "\xE7\x86\x8A", "\xE7\x8C\xAB" };
	for (int i = 0; i < 5; i++) {
		assert_string_equal(t.text[i], want[i]);
		assert_int_equal(t.offset[i], 3 * i);
	}
	av_tokens_free(&t);
	/* Hangul and kana are wide too. */
	expect_tokens("\xED\x95\x9C\xEA\xB5\xAD", "\xED\x95\x9C", "\xEA\xB5\xAD", NULL);
	expect_tokens("\xE3\x81\x82\xE3\x82\xA2", "\xE3\x81\x82", "\xE3\x82\xA2", NULL);
}

static void test_mixed(void **state)
{
	(void)state;
	/* 我爱NLP! */
	expect_tokens("\xE6\x88\x91\xE7\x88\xB1NLP!", "\xE6\x88\x91", "\xE7\x88\xB1",
		      "nlp", "!", NULL);
	/* 你好，世界 (fullwidth comma) */
	expect_tokens("\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x8C\xE4\xB8\x96\xE7\x95\x8C",
		      "\xE4\xBD\xA0", "\xE5\xA5\xBD", "\xEF\xBC\x8C", "\xE4\xB8\x96",
		      "\xE7\x95\x8C", NULL);
	/* ideographic full stop and a fullwidth letter, lower-cased as
	 * str.lower() does (Ａ -> ａ) */
	expect_tokens("\xE5\xA5\xBD\xE3\x80\x82\xEF\xBC\xA1", "\xE5\xA5\xBD",
		      "\xE3\x80\x82", "\xEF\xBD\x81", NULL);
}

static void test_emoji(void **state)
{
	(void)state;
	/* 🐼 and 😀 each a token; ❤️ (with VS16) keeps its selector. */
	expect_tokens("I\xF0\x9F\x98\x80pandas\xF0\x9F\x90\xBC\xF0\x9F\x90\xBC", "i",
		      "\xF0\x9F\x98\x80", "pandas", "\xF0\x9F\x90\xBC", "\xF0\x9F\x90\xBC",
		      NULL);
	expect_tokens("love\xE2\x9D\xA4\xEF\xB8\x8F", "love", "\xE2\x9D\xA4\xEF\xB8\x8F",
		      NULL);
	/* 👍🏽: the skin-tone modifier stays with its emoji */
	expect_tokens("ok \xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", "ok",
		      "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", NULL);
}

/* One character as a reader sees it (a grapheme cluster, UAX #29) is never
 * cut in two: a flag was two tokens (🇨 and 🇳, each shown as a letter in
 * a box) and a ZWJ sequence as many as its emoji (👩‍ then 💻). Each case
 * was checked against Perl's \X. */
static void test_graphemes(void **state)
{
	(void)state;
	/* 🇨🇳: regional indicators C, N; paired from the first */
	expect_tokens("I love \xF0\x9F\x87\xA8\xF0\x9F\x87\xB3 pandas", "i", "love",
		      "\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3", "pandas", NULL);
	/* 🇨🇳🇯🇵🇰: two flags, then a lone indicator */
	expect_tokens("\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3\xF0\x9F\x87\xAF\xF0\x9F\x87\xB5"
		      "\xF0\x9F\x87\xB0", "\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3",
		      "\xF0\x9F\x87\xAF\xF0\x9F\x87\xB5", "\xF0\x9F\x87\xB0", NULL);
	/* 🇨🇳中国: the flag, then each ideograph */
	expect_tokens("\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3\xE4\xB8\xAD\xE5\x9B\xBD",
		      "\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3", "\xE4\xB8\xAD", "\xE5\x9B\xBD",
		      NULL);
	/* 👩‍💻 (woman, ZWJ, laptop), and 👩🏽‍💻 with a skin tone before the ZWJ */
	expect_tokens("\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB codes",
		      "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", "codes", NULL);
	expect_tokens("\xF0\x9F\x91\xA9\xF0\x9F\x8F\xBD\xE2\x80\x8D\xF0\x9F\x92\xBBx",
		      "\xF0\x9F\x91\xA9\xF0\x9F\x8F\xBD\xE2\x80\x8D\xF0\x9F\x92\xBB", "x",
		      NULL);
	/* 👨‍👩‍👧‍👦! : a family of four is one token; ❤️‍🔥 (VS16 before the ZWJ) */
	expect_tokens("\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D"
		      "\xF0\x9F\x91\xA7\xE2\x80\x8D\xF0\x9F\x91\xA6!",
		      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D"
		      "\xF0\x9F\x91\xA7\xE2\x80\x8D\xF0\x9F\x91\xA6", "!", NULL);
	expect_tokens("\xE2\x9D\xA4\xEF\xB8\x8F\xE2\x80\x8D\xF0\x9F\x94\xA5",
		      "\xE2\x9D\xA4\xEF\xB8\x8F\xE2\x80\x8D\xF0\x9F\x94\xA5", NULL);
	/* a ZWJ joins two pictographs only: not after a letter, not before
	 * one, not twice, not after a spacing mark (💻ि‍🏴) */
	expect_tokens("a\xE2\x80\x8D\xF0\x9F\x91\xA9", "a\xE2\x80\x8D",
		      "\xF0\x9F\x91\xA9", NULL);
	expect_tokens("\xF0\x9F\x91\xA9\xE2\x80\x8D" "a", "\xF0\x9F\x91\xA9\xE2\x80\x8D",
		      "a", NULL);
	expect_tokens("\xF0\x9F\x91\xA9\xE2\x80\x8D\xE2\x80\x8D\xF0\x9F\x91\xA9",
		      "\xF0\x9F\x91\xA9\xE2\x80\x8D\xE2\x80\x8D", "\xF0\x9F\x91\xA9", NULL);
	expect_tokens("\xF0\x9F\x92\xBB\xE0\xA4\xBF\xE2\x80\x8D\xF0\x9F\x8F\xB4",
		      "\xF0\x9F\x92\xBB\xE0\xA4\xBF\xE2\x80\x8D", "\xF0\x9F\x8F\xB4", NULL);
	/* the flag of England (black flag and tags) and the keycap 1️⃣ */
	expect_tokens("\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5"
		      "\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF x",
		      "\xF0\x9F\x8F\xB4\xF3\xA0\x81\xA7\xF3\xA0\x81\xA2\xF3\xA0\x81\xA5"
		      "\xF3\xA0\x81\xAE\xF3\xA0\x81\xA7\xF3\xA0\x81\xBF", "x", NULL);
	expect_tokens("1\xEF\xB8\x8F\xE2\x83\xA3 y", "1\xEF\xB8\x8F\xE2\x83\xA3", "y", NULL);
	/* a spacing vowel sign stays with what it follows, as a mark does
	 * ("!" + Devanagari visarga); after a space it is dropped with it */
	expect_tokens("!\xE0\xA4\x83 x", "!\xE0\xA4\x83", "x", NULL);
	expect_tokens("x \xE0\xA4\x83", "x", NULL);
	/* a prepended mark (U+0600 ARABIC NUMBER SIGN) takes what follows;
	 * a word goes on only after a word character */
	expect_tokens("\xD8\x80\xD9\xA1\xD9\xA2", "\xD8\x80\xD9\xA1\xD9\xA2", NULL);
	expect_tokens("\xD8\x80\xF0\x9F\x91\xA9" "abc", "\xD8\x80\xF0\x9F\x91\xA9", "abc",
		      NULL);
	/* a leading jamo takes the next one or a syllable (ᄀᄀ, ᄀ가); the
	 * syllables of 한국 stay two */
	expect_tokens("\xE1\x84\x80\xE1\x84\x80 \xE1\x84\x80\xEA\xB0\x80 \xED\x95\x9C\xEA\xB5\xAD",
		      "\xE1\x84\x80\xE1\x84\x80", "\xE1\x84\x80\xEA\xB0\x80", "\xED\x95\x9C",
		      "\xEA\xB5\xAD", NULL);
	/* a flag is one word: av_token_is_word takes it, and half of one is
	 * never a token */
	char *cause = NULL;
	assert_true(av_token_is_word("\xF0\x9F\x87\xA8\xF0\x9F\x87\xB3", &cause));
	assert_true(av_token_is_word("\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", &cause));
	assert_null(cause);
}

static void test_combining(void **state)
{
	(void)state;
	/* e + U+0301 continues the word; an upper-case base is lowered. */
	expect_tokens("Cafe\xCC\x81 ole\xCC\x81!", "cafe\xCC\x81", "ole\xCC\x81", "!",
		      NULL);
	expect_tokens("E\xCC\x81t\xC3\xA9", "e\xCC\x81t\xC3\xA9", NULL);
	/* a mark with nothing before it is dropped; the offset is the word's */
	struct av_tokens t;
	char *cause = NULL;
	assert_true(av_tokenize(" \xCC\x81word", &t, &cause));
	assert_int_equal(t.n, 1);
	assert_string_equal(t.text[0], "word");
	assert_int_equal(t.offset[0], 3);
	av_tokens_free(&t);
}

static void test_whitespace(void **state)
{
	(void)state;
	expect_tokens("a\tb\nc\r\nd", "a", "b", "c", "d", NULL);
	/* U+3000 ideographic space, U+00A0 no-break space, U+2003 em space */
	expect_tokens("\xE4\xBD\xA0\xE3\x80\x80\xE5\xA5\xBD", "\xE4\xBD\xA0",
		      "\xE5\xA5\xBD", NULL);
	expect_tokens("a\xC2\xA0" "b\xE2\x80\x83" "c", "a", "b", "c", NULL);
	/* U+200B ZERO WIDTH SPACE is a space, though of zero width: it splits
	 * words and is dropped, as the man page says */
	expect_tokens("panda\xE2\x80\x8B" "bear", "panda", "bear", NULL);
	expect_tokens("\xE2\x80\x8B" "x\xE2\x80\x8B", "x", NULL);
	expect_tokens("\xE4\xB8\xAD\xE2\x80\x8B\xE6\x96\x87", "\xE4\xB8\xAD",
		      "\xE6\x96\x87", NULL);
	/* ... while the joiners U+200C and U+200D belong to the character
	 * before: inside a word it goes on, after "!" they stay with it */
	expect_tokens("a\xE2\x80\x8D" "b", "a\xE2\x80\x8D" "b", NULL);
	expect_tokens("!\xE2\x80\x8C?", "!\xE2\x80\x8C", "?", NULL);
	/* other control characters separate and are dropped */
	expect_tokens("a\x1b[31mb", "a", "[", "31mb", NULL);
}

static void test_offsets(void **state)
{
	(void)state;
	struct av_tokens t;
	char *cause = NULL;
	/* "Café, 中国!" */
	assert_true(av_tokenize("Caf\xC3\xA9, \xE4\xB8\xAD\xE5\x9B\xBD!", &t, &cause));
	assert_int_equal(t.n, 5);
	const int want[] = { 0, 5, 7, 10, 13 };
	for (int i = 0; i < 5; i++)
		assert_int_equal(t.offset[i], want[i]);
	av_tokens_free(&t);
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	expect_error("abc\xC0\xAF", "invalid UTF-8 at byte 3");          /* overlong '/' */
	expect_error("ab\xE0\x80\xAF", "invalid UTF-8 at byte 2");       /* overlong 3-byte */
	expect_error("a\xF0\x80\x80\xAF", "invalid UTF-8 at byte 1");    /* overlong 4-byte */
	expect_error("x \xED\xA0\x80", "invalid UTF-8 at byte 2");       /* surrogate D800 */
	expect_error("\xED\xBF\xBF", "invalid UTF-8 at byte 0");         /* surrogate DFFF */
	expect_error("ok \xF4\x90\x80\x80", "invalid UTF-8 at byte 3");  /* U+110000 */
	expect_error("ok\xF5\x80\x80\x80", "invalid UTF-8 at byte 2");   /* F5 lead */
	expect_error("caf\xC3", "invalid UTF-8 at byte 3");              /* truncated */
	expect_error("\xE4\xB8 x", "invalid UTF-8 at byte 0");           /* truncated */
	expect_error("hello \x80", "invalid UTF-8 at byte 6");           /* stray */
	expect_error("\xE4\xB8\xAD\xBF", "invalid UTF-8 at byte 3");     /* extra continuation */
	expect_error("a\xFF", "invalid UTF-8 at byte 1");
	/* the message is exactly this */
	struct av_tokens t;
	char *cause = NULL;
	assert_false(av_tokenize("caf\xC3", &t, &cause));
	assert_string_equal(cause, "invalid UTF-8 at byte 3");
	free(cause);
}

static void test_utf8_valid(void **state)
{
	(void)state;
	size_t bad = 99;
	assert_true(av_utf8_valid("", 0, &bad));
	assert_true(av_utf8_valid("\xF4\x8F\xBF\xBF", 4, &bad));
	assert_int_equal(bad, 99);
	/* a valid sequence cut short by len */
	assert_false(av_utf8_valid("a\xE4\xB8\xAD", 3, &bad));
	assert_int_equal(bad, 1);
	uint32_t cp = 0;
	assert_int_equal(av_utf8_decode("\xC2", 1, &cp), -1);
	assert_int_equal(av_utf8_decode("", 0, &cp), -1);
	assert_int_equal(av_utf8_decode("\xC1\xBF", 2, &cp), -1);
	/* the lengths lead bytes announce (the keyboard reads that many) */
	static const struct { unsigned char lead; int len; } leads[] = {
		{ 0x00, 1 }, { 0x7F, 1 }, { 0x80, 0 }, { 0xBF, 0 }, { 0xC0, 0 }, { 0xC1, 0 },
		{ 0xC2, 2 }, { 0xDF, 2 }, { 0xE0, 3 }, { 0xEF, 3 }, { 0xF0, 4 }, { 0xF4, 4 },
		{ 0xF5, 0 }, { 0xFF, 0 },
	};
	for (size_t i = 0; i < sizeof(leads) / sizeof(leads[0]); i++)
		assert_int_equal(av_utf8_sequence_length(leads[i].lead), leads[i].len);
}

/* What snprintf leaves of src in s[size]: bytes, not characters. */
static void cut_copy(char *s, size_t size, const char *src)
{
	size_t n = strlen(src) < size - 1 ? strlen(src) : size - 1;
	memcpy(s, src, n);
	s[n] = '\0';
}

/* The last character's bytes go whole; an uncut string stays as it is. */
static void test_drop_cut_character(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "ab中文", "ab中" },          /* 2 of 文's 3 bytes */
		{ "abcd中", "abcd中" },        /* 中 fits exactly */
		{ "abcdef😀", "abcdef" },      /* 1 of 4 bytes */
		{ "ab", "ab" },
		{ "abcdefgh", "abcdefg" },
		/* stray continuation bytes are no cut character: left to
		 * the screen, which shows each as one */
		{ "abcde\x80\x80\x80", "abcde\x80\x80" },
		{ "\x80\x80\x80\x80\x80\x80\x80\x80", "\x80\x80\x80\x80\x80\x80\x80" },
		{ "abc\xE4\xB8\x80\x80\x80", "abc\xE4\xB8\x80\x80" },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char s[8];
		cut_copy(s, sizeof(s), cases[k].in);
		av_utf8_drop_cut_character(s, sizeof(s));
		assert_string_equal(s, cases[k].out);
	}
}

/* A byte that continues a sequence, never one that starts one. */
static void test_utf8_is_continuation(void **state)
{
	(void)state;
	for (int byte = 0; byte < 0x100; byte++)
		assert_int_equal(av_utf8_is_continuation((unsigned char)byte),
				 byte >= 0x80 && byte <= 0xBF);
}

/* Stepping back by characters: the start of each whole one, a cut one's
 * lead byte, and a byte of no character alone. */
static void test_utf8_previous(void **state)
{
	(void)state;
	static const struct { const char *s; size_t at, start; } cases[] = {
		{ "", 0, 0 },                            /* nothing before */
		{ "ab", 0, 0 },
		{ "ab", 2, 1 },
		{ "a\xC3\xA9", 3, 1 },                   /* é */
		{ "\xE4\xB8\xAD", 3, 0 },                 /* 中, at the start */
		{ "x\xF0\x9F\x98\x80", 5, 1 },             /* 😀 */
		{ "\xE4\xB8\xAD\xE6\x96\x87", 3, 0 },       /* 中 of 中文 */
		{ "a\xE4\xB8", 3, 1 },                    /* 中 cut short by at */
		{ "\xF0\x9F\x98", 3, 0 },                 /* 😀 cut short */
		{ "\x80", 1, 0 },                          /* a lone continuation byte */
		{ "\x80\x80", 2, 1 },                      /* at the start: each alone */
		{ "a\x80", 2, 1 },                         /* after ASCII */
		{ "\xC3\xA9\x80", 3, 2 },                  /* after a whole é */
		{ "\xE4\x80\x80\x80", 4, 3 },              /* one more than 中's kind has */
		{ "a\x80\x80\x80\x80\x80", 6, 5 },          /* a run: no lead within reach */
		{ "\xC0\x80", 2, 1 },                      /* 0xC0 leads nothing */
		{ "\xFF\x80", 2, 1 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t got = av_utf8_previous(cases[k].s, cases[k].at);
		if (got != cases[k].start)
			fail_msg("case %zu: %zu, wanted %zu", k, got, cases[k].start);
	}
	/* back through valid text: every character's start, as forward */
	const char *text = "Caf\xC3\xA9 \xE4\xB8\xAD\xF0\x9F\x98\x80!";
	size_t starts[16], n = 0, len = strlen(text);
	for (size_t i = 0; i < len; n++) {
		uint32_t cp;
		starts[n] = i;
		i += (size_t)av_utf8_decode(text + i, len - i, &cp);
	}
	for (size_t at = len; n > 0; n--) {
		at = av_utf8_previous(text, at);
		assert_int_equal(at, starts[n - 1]);
	}
}

/* Words for the cuts: the last one's start, and the text without it. */
static void test_last_word(void **state)
{
	(void)state;
	assert_int_equal(av_last_word_start("ab cd", 5), 3);
	assert_int_equal(av_last_word_start("ab cd", 2), 0);      /* of "ab" */
	assert_int_equal(av_last_word_start("abcd", 4), 0);
	assert_int_equal(av_last_word_start("ab ", 3), 3);        /* an empty word */
	assert_int_equal(av_last_word_start("", 0), 0);
	assert_int_equal(av_without_last_word("ab  cd", 6), 2);
	assert_int_equal(av_without_last_word("cd", 2), 0);
	const char *chinese = "中文 第";
	assert_int_equal(av_without_last_word(chinese, strlen(chinese)), strlen("中文"));
	/* operators and ellipses are words of their own */
	static const char *const operators[] = { "a =", "=", "a +", "a \xe2\x88\x92", "a -",
						 "a \xc3\x97", "a \xc2\xb7", "a /" };
	for (size_t k = 0; k < sizeof(operators) / sizeof(operators[0]); k++)
		assert_true(av_last_word_is_operator(operators[k], strlen(operators[k])));
	static const char *const others[] = { "a ==", "a-b", "x=", "a", "", "a \xe2\x80\xa6" };
	for (size_t k = 0; k < sizeof(others) / sizeof(others[0]); k++)
		assert_false(av_last_word_is_operator(others[k], strlen(others[k])));
	assert_true(av_last_word_is_ellipsis("a \xe2\x80\xa6", strlen("a \xe2\x80\xa6")));
	assert_true(av_last_word_is_ellipsis("a ...", 5));
	assert_false(av_last_word_is_ellipsis("a\xe2\x80\xa6", strlen("a\xe2\x80\xa6")));
	assert_false(av_last_word_is_ellipsis("a ....", 6));
	assert_false(av_last_word_is_ellipsis("a =", 3));
}

/* What stays before a cut's "…": never a number it would lengthen, a
 * second "…" or an operator with nothing after it, nor (with separators)
 * the punctuation that led into what was cut off. */
static void test_keep_before_ellipsis(void **state)
{
	(void)state;
	static const struct { const char *s, *separators, *kept; } cases[] = {
		{ "trained 12", " ,:;", "trained" },             /* "12…" read as 120 */
		{ "softmax head 0,", " ,:;", "softmax head" },
		{ "head 0, self, dk,", " ,:;", "head 0, self, dk" },
		{ "step 4:", " ,:;", "step" },
		{ "step 4:", "", "step 4:" },                    /* a row's own ending */
		{ "exp: 1.0000 0.2608", "", "exp:" },
		{ "exp: 1.0000 0.2608", " ,:;", "exp" },
		{ "= 0.0001019", "", "" },                       /* then "=" hangs */
		{ "x = 2.084", "", "x" },
		{ "b_q[0] =", "", "b_q[0]" },
		{ "x \xe2\x88\x92 y \xe2\x88\x92", "", "x \xe2\x88\x92 y" },
		{ "+ \xe2\x80\xa6 (+3 terms) \xe2\x80\xa6", "", "+ \xe2\x80\xa6 (+3 terms)" },
		{ "a ...", "", "a" },
		{ "sum to 1.", "", "sum to" },                   /* "." goes with a number */
		{ "1.0000 0.2608", "", "" },                     /* nothing left: 0 */
		{ "\xe4\xb8\xad\xe6\x96\x87 12", " ,:;", "\xe4\xb8\xad\xe6\x96\x87" },
		{ "panda", " ,:;", "panda" },
		{ "", " ,:;", "" },
		/* no separators: a row that ends at its space keeps it, and
		 * the "…" stands apart from the number */
		{ "x 2.084 ", "", "x 2.084 " },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t keep = av_keep_before_ellipsis(cases[k].s, strlen(cases[k].s),
						      cases[k].separators);
		if (keep != strlen(cases[k].kept) || strncmp(cases[k].s, cases[k].kept, keep) != 0)
			fail_msg("\"%s\": kept \"%.*s\", wanted \"%s\"", cases[k].s, (int)keep,
				 cases[k].s, cases[k].kept);
	}
	/* only the first len bytes count */
	assert_int_equal(av_keep_before_ellipsis("trained 12 ep", 10, " "), strlen("trained"));
}

static void test_empty(void **state)
{
	(void)state;
	struct av_tokens t;
	char *cause = NULL;
	assert_false(av_tokenize("", &t, &cause));
	assert_string_equal(cause, "the sentence is empty");
	free(cause);
	expect_error("   \t\n ", "the sentence is empty");
	expect_error("\xE3\x80\x80\xC2\xA0", "the sentence is empty");
}

/* n tokens "w w w ..." */
static char *words(int n)
{
	char *s = malloc((size_t)n * 2 + 1);
	assert_non_null(s);
	for (int i = 0; i < n; i++) {
		s[2 * i] = 'w';
		s[2 * i + 1] = ' ';
	}
	s[2 * n] = '\0';
	return s;
}

static void test_token_limit(void **state)
{
	(void)state;
	char *s = words(AV_MAX_TOKENS);
	struct av_tokens t;
	char *cause = NULL;
	assert_true(av_tokenize(s, &t, &cause));
	assert_int_equal(t.n, 64);
	assert_string_equal(t.text[63], "w");
	assert_int_equal(t.offset[63], 126);
	av_tokens_free(&t);
	free(s);

	s = words(AV_MAX_TOKENS + 1);
	assert_false(av_tokenize(s, &t, &cause));
	assert_int_equal(t.n, 0);
	assert_string_equal(cause, "the sentence has more than 64 tokens (the limit)");
	free(cause);
	free(s);
	/* 65 punctuation tokens with no spaces between them */
	char bangs[AV_MAX_TOKENS + 2];
	memset(bangs, '!', AV_MAX_TOKENS + 1);
	bangs[AV_MAX_TOKENS + 1] = '\0';
	expect_error(bangs, "more than 64 tokens");
	bangs[AV_MAX_TOKENS] = '\0';
	assert_true(av_tokenize(bangs, &t, &cause));
	assert_int_equal(t.n, 64);
	av_tokens_free(&t);
}

/* A source's errors name the source (the source editor said "the
 * sentence has more than 64 tokens"); its tokens are a sentence's. */
static void test_source_messages(void **state)
{
	(void)state;
	struct av_tokens t;
	char *cause = NULL;
	char *s = words(AV_MAX_TOKENS + 1);
	assert_false(av_tokenize_source(s, &t, &cause));
	assert_string_equal(cause, "the source has more than 64 tokens (the limit)");
	free(cause);
	cause = NULL;
	free(s);
	assert_false(av_tokenize_source(" \t", &t, &cause));
	assert_string_equal(cause, "the source is empty");
	free(cause);
	cause = NULL;
	assert_false(av_tokenize_source(NULL, &t, &cause));
	assert_string_equal(cause, "the source is empty");
	free(cause);
	cause = NULL;
	assert_false(av_tokenize_source("ab\xff", &t, &cause));
	assert_string_equal(cause, "invalid UTF-8 at byte 2 of the source");
	free(cause);
	cause = NULL;
	s = malloc(AV_MAX_SENTENCE_BYTES + 2);
	assert_non_null(s);
	memset(s, 'a', AV_MAX_SENTENCE_BYTES + 1);
	s[AV_MAX_SENTENCE_BYTES + 1] = '\0';
	assert_false(av_tokenize_source(s, &t, &cause));
	assert_string_equal(cause, "the source is longer than 4096 bytes (the limit)");
	free(cause);
	cause = NULL;
	free(s);
	assert_true(av_tokenize_source("Le Chat", &t, &cause));
	assert_int_equal(t.n, 2);
	assert_string_equal(t.text[1], "chat");
	av_tokens_free(&t);
}

static void test_too_long(void **state)
{
	(void)state;
	char *s = malloc(AV_MAX_SENTENCE_BYTES + 2);
	assert_non_null(s);
	memset(s, 'a', AV_MAX_SENTENCE_BYTES + 1);
	s[AV_MAX_SENTENCE_BYTES + 1] = '\0';
	expect_error(s, "longer than 4096 bytes");
	/* exactly at the limit is fine (one long word) */
	s[AV_MAX_SENTENCE_BYTES] = '\0';
	expect_tokens(s, s, NULL);
	free(s);
}

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(av_utf8_width(""), 0);
	assert_int_equal(av_utf8_width("hello"), 5);
	assert_int_equal(av_utf8_width("\xE4\xB8\xAD\xE5\x9B\xBD"), 4);        /* 中国 */
	assert_int_equal(av_utf8_width("\xE6\x88\x91\xE7\x88\xB1NLP!"), 8);   /* 我爱NLP! */
	assert_int_equal(av_utf8_width("cafe\xCC\x81"), 4);                   /* combining */
	assert_int_equal(av_utf8_width("caf\xC3\xA9"), 4);
	assert_int_equal(av_utf8_width("\xF0\x9F\x90\xBC!"), 3);              /* 🐼! */
	assert_int_equal(av_utf8_width("\xEF\xBC\x8C\xEF\xBD\xA1"), 3);      /* ， ｡ */
	assert_int_equal(av_utf8_width("\xED\x95\x9C" "a\xE2\x80\x8B" "b"), 4); /* ZWSP */
	assert_int_equal(av_utf8_width("\xCE\xA3\xD0\x94"), 2);               /* ΣД */
	assert_int_equal(av_cp_width(0x0007), 0);
	assert_int_equal(av_cp_width(0x0085), 0);
	assert_int_equal(av_cp_width(0x3099), 0);   /* combining kana mark in a wide block */
	assert_int_equal(av_cp_width(0x3000), 2);
	assert_int_equal(av_cp_width(0x1F321), 1);  /* thermometer: text presentation */
	assert_int_equal(av_cp_width(0x20000), 2);
	assert_int_equal(av_cp_width(0x10FFFF), 1);
	/* the marks of every script take no column, as wcwidth() says (the
	 * generated table: a hand-picked one left Bengali's and Tamil's out) */
	assert_int_equal(av_cp_width(0x09CD), 0);   /* Bengali virama */
	assert_int_equal(av_cp_width(0x0BCD), 0);   /* Tamil virama */
	assert_int_equal(av_cp_width(0x0BBF), 1);   /* Tamil vowel sign I: spacing (Mc) */
	assert_int_equal(av_cp_width(0x16FE4), 0);  /* a mark inside a wide block */
	assert_int_equal(av_cp_width(0x1160), 0);   /* a conjoining Hangul vowel */
	/* format characters that are drawn: the soft hyphen, an Arabic number sign */
	assert_int_equal(av_cp_width(0x00AD), 1);
	assert_int_equal(av_cp_width(0x0600), 1);
	/* தமிழ் (Tamil): four columns; க்ஷ (Bengali ক্ষ): two */
	assert_int_equal(av_utf8_width("\xE0\xAE\xA4\xE0\xAE\xAE\xE0\xAE\xBF\xE0\xAE\xB4"
				       "\xE0\xAF\x8D"), 4);
	assert_int_equal(av_utf8_width("\xE0\xA6\x95\xE0\xA7\x8D\xE0\xA6\xB7"), 2);
}

static void test_classes(void **state)
{
	(void)state;
	assert_true(av_cp_is_word('a'));
	assert_true(av_cp_is_word('7'));
	assert_true(av_cp_is_word('\''));
	assert_true(av_cp_is_word(0x2019));
	assert_true(av_cp_is_word(0x00DF));     /* ß */
	assert_true(av_cp_is_word(0x0436));     /* ж */
	assert_true(av_cp_is_word(0x0301));     /* combining acute */
	assert_false(av_cp_is_word('-'));
	assert_false(av_cp_is_word(0x00AB));    /* « */
	assert_false(av_cp_is_word(0x2018));    /* ‘ is a quote, not an apostrophe */
	assert_false(av_cp_is_word(0x20AC));    /* € */
	assert_false(av_cp_is_word(0x4E2D));    /* 中 is wide: a token of its own */
	assert_false(av_cp_is_word(0x3000));
	/* punctuation and symbols of every script end a word (General Category
	 * P and S, generated): Tibetan brackets, a Bengali currency sign, the
	 * mathematical bold nabla, Greek's spacing accents */
	assert_false(av_cp_is_word(0x0F3A));
	assert_false(av_cp_is_word(0x09F2));
	assert_false(av_cp_is_word(0x1D6C1));
	assert_false(av_cp_is_word(0x1FBD));
	assert_true(av_cp_is_word(0x0BBF));     /* a spacing mark continues a word */
	assert_true(av_cp_is_word(0xE000));     /* private use: a letter */
	assert_true(av_cp_is_wide(0xAC00));
	assert_true(av_cp_is_wide(0xFF01));
	assert_true(av_cp_is_wide(0x1F600));
	assert_false(av_cp_is_wide(0xFF61));    /* halfwidth ideographic full stop */
	assert_false(av_cp_is_wide('A'));
	/* the grapheme classes (generated from Perl's Unicode 14) */
	assert_true(av_cp_is_pictographic(0x1F469));   /* 👩 */
	assert_true(av_cp_is_pictographic(0x00A9));    /* © */
	assert_false(av_cp_is_pictographic(0x1F3FB));  /* a skin tone: Extend */
	assert_false(av_cp_is_pictographic(0x1F1E8));  /* a regional indicator */
	assert_false(av_cp_is_pictographic('a'));
	assert_true(av_cp_is_regional_indicator(0x1F1E6));
	assert_true(av_cp_is_regional_indicator(0x1F1FF));
	assert_false(av_cp_is_regional_indicator(0x1F200));
	assert_true(av_cp_is_grapheme_extend(0x0301));
	assert_true(av_cp_is_grapheme_extend(0x1F3FD));
	assert_true(av_cp_is_grapheme_extend(0x09BE));  /* Bengali AA: Mc, yet Extend */
	assert_false(av_cp_is_grapheme_extend(0x0903));
	assert_true(av_cp_is_spacing_mark(0x0903));     /* Devanagari visarga */
	assert_true(av_cp_is_spacing_mark(0x0E33));     /* Thai sara am */
	assert_true(av_cp_is_prepend(0x0600));
	assert_false(av_cp_is_prepend(0x0301));
	assert_true(av_cp_is_space(0x3000));
	assert_true(av_cp_is_space('\v'));
	assert_false(av_cp_is_space('_'));
}

static void test_encode_decode(void **state)
{
	(void)state;
	static const struct {
		uint32_t cp;
		int len;
	} cases[] = {
		{0x00, 1}, {0x7F, 1}, {0x80, 2}, {0x7FF, 2}, {0x800, 3}, {0xD7FF, 3},
		{0xE000, 3}, {0xFFFF, 3}, {0x10000, 4}, {0x10FFFF, 4},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[4];
		uint32_t back = 0xDEADBEEF;
		int n = av_utf8_encode(cases[i].cp, buf);
		assert_int_equal(n, cases[i].len);
		assert_int_equal(av_utf8_decode(buf, (size_t)n, &back), n);
		assert_int_equal(back, cases[i].cp);
		/* one byte short is truncated */
		assert_int_equal(av_utf8_decode(buf, (size_t)n - 1, &back), -1);
	}
	char buf[4];
	assert_int_equal(av_utf8_encode(0x10FFFF, buf), 4);
	assert_memory_equal(buf, "\xF4\x8F\xBF\xBF", 4);
	assert_int_equal(av_utf8_encode(0x800, buf), 3);
	assert_memory_equal(buf, "\xE0\xA0\x80", 3);
	/* not a scalar value: U+FFFD */
	assert_int_equal(av_utf8_encode(0xD800, buf), 3);
	assert_memory_equal(buf, "\xEF\xBF\xBD", 3);
	assert_int_equal(av_utf8_encode(0x110000, buf), 3);
	assert_memory_equal(buf, "\xEF\xBF\xBD", 3);
}

static void test_copy_free(void **state)
{
	(void)state;
	struct av_tokens a, b;
	char *cause = NULL;
	assert_true(av_tokenize("Pandas eat bamboo.", &a, &cause));
	av_tokens_copy(&b, &a);
	assert_int_equal(b.n, 4);
	for (int i = 0; i < a.n; i++) {
		assert_string_equal(b.text[i], a.text[i]);
		assert_ptr_not_equal(b.text[i], a.text[i]);
		assert_int_equal(b.offset[i], a.offset[i]);
	}
	av_tokens_free(&a);
	assert_int_equal(a.n, 0);
	/* the copy outlives the original */
	assert_string_equal(b.text[0], "pandas");
	assert_string_equal(b.text[3], ".");
	av_tokens_free(&b);
	av_tokens_free(&b);     /* twice is harmless */
	av_tokens_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_english_words),
		cmocka_unit_test(test_punctuation),
		cmocka_unit_test(test_apostrophes),
		cmocka_unit_test(test_digits),
		cmocka_unit_test(test_lower_case),
		cmocka_unit_test(test_lower_code_points),
		cmocka_unit_test(test_lower_like_python),
		cmocka_unit_test(test_final_sigma),
		cmocka_unit_test(test_cjk),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_emoji),
		cmocka_unit_test(test_graphemes),
		cmocka_unit_test(test_combining),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_offsets),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_utf8_valid),
		cmocka_unit_test(test_drop_cut_character),
		cmocka_unit_test(test_utf8_is_continuation),
		cmocka_unit_test(test_utf8_previous),
		cmocka_unit_test(test_last_word),
		cmocka_unit_test(test_keep_before_ellipsis),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_token_limit),
		cmocka_unit_test(test_source_messages),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_copy_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
