/* utf8.c: a strict UTF-8 decoder and fixed character tables.
 *
 * Nothing here asks the C library about characters (no <ctype.h>, <wctype.h>
 * or wcwidth): those answers depend on the locale and the libc version, and
 * the tokens and column widths must be the same on every machine. The wide
 * table below is taken from Unicode 14.0's EastAsianWidth.txt (unassigned
 * code points inside a range are folded into it); the others are generated
 * from Python's unicodedata into unicode_tables.c. */
#include "config.h"

#include <string.h>

#include "unicode_tables.h"
#include "utf8.h"

#define N_RANGES(t) (sizeof(t) / sizeof((t)[0]))

/* East_Asian_Width W or F. Unassigned code points in the CJK planes and in
 * the emoji blocks are included, as EastAsianWidth.txt does by default, so a
 * newer emoji is still two columns wide. */
static const struct av_cp_range wide[] = {
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
	{0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
	{0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
	{0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
	{0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
	{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E},
	{0x3041, 0x3247}, {0x3250, 0x4DBF}, {0x4E00, 0xA4CF}, {0xA960, 0xA97F},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
	{0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x1B2FF},
	{0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E},
	{0x1F191, 0x1F19A}, {0x1F200, 0x1F320}, {0x1F32D, 0x1F335},
	{0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
	{0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4},
	{0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC},
	{0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567},
	{0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
	{0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
	{0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6DF}, {0x1F6EB, 0x1F6EC},
	{0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7F0}, {0x1F90C, 0x1F93A},
	{0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF},
	{0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

static bool in_table(const struct av_cp_range *t, size_t n, uint32_t cp)
{
	if (n == 0 || cp < t[0].lo || cp > t[n - 1].hi)
		return false;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp > t[mid].hi)
			lo = mid + 1;
		else if (cp < t[mid].lo)
			hi = mid;
		else
			return true;
	}
	return false;
}

int av_utf8_sequence_length(unsigned char lead)
{
	/* 0xC0, 0xC1 and 0xF5..0xFF can only start overlong or out-of-range
	 * forms; 0x80..0xBF are continuation bytes. */
	if (lead < 0x80)
		return 1;
	if (lead >= 0xC2 && lead <= 0xDF)
		return 2;
	if (lead >= 0xE0 && lead <= 0xEF)
		return 3;
	if (lead >= 0xF0 && lead <= 0xF4)
		return 4;
	return 0;
}

bool av_utf8_is_continuation(unsigned char byte)
{
	return (byte & 0xC0) == 0x80;
}

size_t av_utf8_previous(const char *s, size_t at)
{
	if (at == 0)
		return 0;
	size_t start = at - 1;
	while (start > 0 && at - start < 4 && av_utf8_is_continuation((unsigned char)s[start]))
		start--;
	size_t need = (size_t)av_utf8_sequence_length((unsigned char)s[start]);
	return need >= at - start ? start : at - 1;
}

int av_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
	static const uint32_t lead_bits[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	static const uint32_t smallest[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	const unsigned char *p = (const unsigned char *)s;
	if (len == 0)
		return -1;
	size_t n = (size_t)av_utf8_sequence_length(p[0]);
	if (n == 0 || len < n)
		return -1;
	uint32_t c = p[0] & lead_bits[n];
	for (size_t i = 1; i < n; i++) {
		if (!av_utf8_is_continuation(p[i]))
			return -1;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if (c < smallest[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return -1;
	*cp = c;
	return (int)n;
}

int av_utf8_encode(uint32_t cp, char out[4])
{
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

bool av_utf8_valid(const char *s, size_t len, size_t *bad)
{
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		int n = av_utf8_decode(s + i, len - i, &cp);
		if (n < 0) {
			if (bad)
				*bad = i;
			return false;
		}
		i += (size_t)n;
	}
	return true;
}

void av_utf8_drop_cut_character(char *s, size_t size)
{
	size_t len = strnlen(s, size);
	if (len + 1 < size || len == 0)
		return;
	size_t start = av_utf8_previous(s, len);
	int need = av_utf8_sequence_length((unsigned char)s[start]);
	if (need > 1 && len - start < (size_t)need)
		s[start] = '\0';
}

bool av_cp_is_wide(uint32_t cp)
{
	return in_table(wide, N_RANGES(wide), cp);
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

bool av_cp_is_bidi_control(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

int av_cp_width(uint32_t cp)
{
	/* Zero width is checked first: a few combining marks (U+302A..U+302D,
	 * U+3099, U+309A) sit inside wide blocks. */
	if (is_control(cp) || in_table(av_zero_width_ranges, (size_t)av_zero_width_count, cp))
		return 0;
	return av_cp_is_wide(cp) ? 2 : 1;
}

int av_utf8_width(const char *s)
{
	size_t len = strlen(s), i = 0;
	int width = 0;
	while (i < len) {
		uint32_t cp;
		int n = av_utf8_decode(s + i, len - i, &cp);
		if (n < 0) {
			/* The screen shows a replacement character for a bad byte;
			 * count it rather than stop. */
			width++;
			i++;
			continue;
		}
		width += av_cp_width(cp);
		i += (size_t)n;
	}
	return width;
}

/* The run of av_lower_runs that holds cp, or NULL. */
static const struct av_lower_run *lower_run(uint32_t cp)
{
	int lo = 0, hi = av_lower_run_count - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		const struct av_lower_run *r = &av_lower_runs[mid];
		if (cp < r->first)
			hi = mid - 1;
		else if (cp > r->last)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

uint32_t av_cp_lower(uint32_t cp)
{
	if (cp < 0x80)
		return cp >= 'A' && cp <= 'Z' ? cp + 0x20 : cp;
	const struct av_lower_run *r = lower_run(cp);
	if (!r || (cp - r->first) % (uint32_t)r->stride != 0)
		return cp;
	return (uint32_t)((int64_t)cp + r->delta);
}

/* The first code point from byte i of s (len bytes) on, going forward
 * (step 1) or back (step -1, i just past it), that is not case-ignorable:
 * cased or not. false at either end of s. */
static bool next_cased(const char *s, size_t len, size_t i, int step)
{
	while (step > 0 ? i < len : i > 0) {
		size_t start = step < 0 ? av_utf8_previous(s, i) : i;
		uint32_t cp;
		int k = av_utf8_decode(s + start, len - start, &cp);
		if (k <= 0)
			return false;
		if (!in_table(av_case_ignorable_ranges, (size_t)av_case_ignorable_count, cp))
			return in_table(av_cased_ranges, (size_t)av_cased_count, cp);
		i = step > 0 ? start + (size_t)k : start;
	}
	return false;
}

bool av_lower_sigma_is_final(const char *s, size_t len, size_t at)
{
	/* capital sigma is two bytes, CE A3 */
	return next_cased(s, len, at, -1) && !next_cased(s, len, at + 2, 1);
}

bool av_cp_is_word(uint32_t cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
		       (cp >= '0' && cp <= '9') || cp == '\'';
	if (cp == 0x2019)
		return true;
	if (is_control(cp) || av_cp_is_space(cp))
		return false;
	/* Combining marks are word characters so that they continue a word;
	 * wide ones (U+3099...) must not be caught by the wide test. */
	if (in_table(av_zero_width_ranges, (size_t)av_zero_width_count, cp))
		return true;
	return !av_cp_is_wide(cp) && !in_table(av_punct_ranges, (size_t)av_punct_count, cp);
}

bool av_cp_is_pictographic(uint32_t cp)
{
	return in_table(av_pictographic_ranges, (size_t)av_pictographic_count, cp);
}

bool av_cp_is_grapheme_extend(uint32_t cp)
{
	return in_table(av_grapheme_extend_ranges, (size_t)av_grapheme_extend_count, cp);
}

bool av_cp_is_spacing_mark(uint32_t cp)
{
	return in_table(av_spacing_mark_ranges, (size_t)av_spacing_mark_count, cp);
}

bool av_cp_is_prepend(uint32_t cp)
{
	return in_table(av_prepend_ranges, (size_t)av_prepend_count, cp);
}

bool av_cp_is_regional_indicator(uint32_t cp)
{
	return cp >= 0x1F1E6 && cp <= 0x1F1FF;
}

bool av_cp_is_space(uint32_t cp)
{
	return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || cp == 0x85 ||
	       cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200B) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
	       cp == 0x3000;
}

/* --- words, and what a "…" may follow ------------------------------------- */

size_t av_last_word_start(const char *s, size_t len)
{
	while (len > 0 && s[len - 1] != ' ')
		len--;
	return len;
}

size_t av_without_last_word(const char *s, size_t len)
{
	len = av_last_word_start(s, len);
	while (len > 0 && s[len - 1] == ' ')
		len--;
	return len;
}

bool av_span_is_one_of(const char *s, size_t len, const char *const *words, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (len == strlen(words[k]) && !strncmp(s, words[k], len))
			return true;
	return false;
}

/* Whether the last word of s[0..len) is one of words (n of them). */
static bool last_word_is_one_of(const char *s, size_t len, const char *const *words, size_t n)
{
	size_t start = av_last_word_start(s, len);
	return av_span_is_one_of(s + start, len - start, words, n);
}

bool av_last_word_is_operator(const char *s, size_t len)
{
	static const char *const operators[] = { "=", "+", "\xe2\x88\x92", "-", "\xc3\x97",
						 "\xc2\xb7", "/" };
	return last_word_is_one_of(s, len, operators, sizeof(operators) / sizeof(operators[0]));
}

bool av_last_word_is_ellipsis(const char *s, size_t len)
{
	static const char *const ellipses[] = { "\xe2\x80\xa6", "..." };
	return last_word_is_one_of(s, len, ellipses, sizeof(ellipses) / sizeof(ellipses[0]));
}

/* Whether a "…" right after s[0..len) (len > 0) would read wrong: as more
 * digits of a number, as a second "…", or after an operator with nothing
 * to work on. */
static bool reads_wrong_before_ellipsis(const char *s, size_t len)
{
	char last = s[len - 1];
	return (last >= '0' && last <= '9') || last == '.' || av_last_word_is_ellipsis(s, len) ||
	       av_last_word_is_operator(s, len);
}

/* len without the characters of separators that end s[0..len). */
static size_t without_trailing(const char *s, size_t len, const char *separators)
{
	while (len > 0 && s[len - 1] != '\0' && strchr(separators, s[len - 1]))
		len--;
	return len;
}

size_t av_keep_before_ellipsis(const char *s, size_t len, const char *separators)
{
	len = without_trailing(s, len, separators);
	while (len > 0 && reads_wrong_before_ellipsis(s, len))
		len = without_trailing(s, av_without_last_word(s, len), separators);
	return len;
}
