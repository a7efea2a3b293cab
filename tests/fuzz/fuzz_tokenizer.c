/* fuzz_tokenizer.c: any bytes as a sentence (av_tokenize: the editor, the
 * command line and every sample's sentences go through it). Checks what
 * the views assume: at most AV_MAX_TOKENS tokens, each non-empty valid
 * UTF-8 whose offset lies inside the sentence, offsets increasing; and
 * that no token starts inside a character as a reader sees it (a grapheme
 * cluster), found here by looking back from each token's start, where the
 * tokenizer decides forward as it scans. */
#include "config.h"

#include <stdbool.h>

#include "fuzz_common.h"
#include "tokenizer.h"
#include "utf8.h"

/* The code point that ends at byte at of s (valid UTF-8); its start. */
static size_t before(const char *s, size_t at, uint32_t *cp)
{
	size_t start = at - 1;
	while (start > 0 && ((unsigned char)s[start] & 0xC0) == 0x80)
		start--;
	av_utf8_decode(s + start, at - start, cp);
	return start;
}

/* Separators (spaces, controls: of zero width too) end every character. */
static bool attaches(uint32_t cp)   /* to the character before it */
{
	if (av_cp_is_space(cp) || cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
		return false;
	return av_cp_width(cp) == 0 || av_cp_is_grapheme_extend(cp) || av_cp_is_spacing_mark(cp);
}

static bool hangul_l(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0xA960 && cp <= 0xA97C);
}

/* Whether the character before byte at of s goes on across it (UAX #29's
 * GB9, GB9a, GB9b, GB6, GB11, GB12 and GB13 as tokenizer.h states them). */
static bool inside_grapheme(const char *s, size_t at)
{
	uint32_t c, p;
	av_utf8_decode(s + at, 4, &c);
	if (attaches(c))
		return true;
	if (at == 0)
		return false;
	size_t i = before(s, at, &p);
	if (av_cp_is_prepend(p) || (hangul_l(p) && (hangul_l(c) || (c >= 0xAC00 && c <= 0xD7A3))))
		return true;
	if (av_cp_is_regional_indicator(c)) {
		int run = 0;
		for (size_t k = at; k > 0 && (k = before(s, k, &p), av_cp_is_regional_indicator(p));)
			run++;
		return run % 2 == 1;
	}
	if (!av_cp_is_pictographic(c) || p != 0x200D)
		return false;
	while (i > 0) {   /* pictograph, Extend*, ZWJ */
		i = before(s, i, &p);
		if (av_cp_is_pictographic(p))
			return true;
		if (!attaches(p) || p == 0x200D || av_cp_is_spacing_mark(p))
			return false;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	size_t len = strlen(text);
	struct av_tokens tk;
	memset(&tk, 0, sizeof(tk));
	char *cause = NULL;
	if (av_tokenize(text, &tk, &cause)) {
		FUZZ_CHECK(tk.n >= 0 && tk.n <= AV_MAX_TOKENS, "%d tokens", tk.n);
		for (int i = 0; i < tk.n; i++) {
			FUZZ_CHECK(tk.text[i] && tk.text[i][0], "token %d is empty", i);
			FUZZ_CHECK(av_utf8_valid(tk.text[i], strlen(tk.text[i]), NULL),
				   "token %d is not UTF-8", i);
			FUZZ_CHECK(tk.offset[i] >= 0 && (size_t)tk.offset[i] < len,
				   "token %d at %d of %zu bytes", i, tk.offset[i], len);
			FUZZ_CHECK(i == 0 || tk.offset[i] > tk.offset[i - 1], "offsets go back at %d",
				   i);
			FUZZ_CHECK(!inside_grapheme(text, (size_t)tk.offset[i]),
				   "token %d starts inside a character, at byte %d", i,
				   tk.offset[i]);
			(void)av_utf8_width(tk.text[i]);
		}
		/* the copy the editor makes */
		struct av_tokens copy;
		memset(&copy, 0, sizeof(copy));
		av_tokens_copy(&copy, &tk);
		FUZZ_CHECK(copy.n == tk.n, "copy has %d of %d", copy.n, tk.n);
		av_tokens_free(&copy);
		av_tokens_free(&tk);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
