/* utf8.h: UTF-8 decoding and the character classes the tokenizer and the
 * screen agree on. Locale-independent, so tokens and display widths are the
 * same on every machine. */
#ifndef AV_UTF8_H
#define AV_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes one code point from s (at most len bytes). Returns the number of
 * bytes used (1..4), or -1 (and *cp untouched) for invalid UTF-8 (overlong
 * forms, surrogates, values above U+10FFFF, truncated or stray continuation
 * bytes) and for len 0. */
int av_utf8_decode(const char *s, size_t len, uint32_t *cp);

/* The length (1..4) of the UTF-8 sequence a byte starts, or 0 for a byte
 * that cannot start one (a continuation byte, 0xC0, 0xC1, 0xF5..0xFF). */
int av_utf8_sequence_length(unsigned char lead);

/* Whether byte continues a UTF-8 sequence (10xxxxxx) rather than starts
 * one. */
bool av_utf8_is_continuation(unsigned char byte);

/* Where the character that ends at byte offset at of s starts (0 when at
 * is 0): back over at most three continuation bytes to the byte that
 * leads them, when its sequence reaches at (one cut short there included,
 * as av_utf8_drop_cut_character needs). A byte that no such lead byte
 * leads (a stray continuation byte, one at the start of s, a fourth one in
 * a row) is a character of its own, at at - 1, as av_utf8_width counts
 * it. */
size_t av_utf8_previous(const char *s, size_t at);

/* Encodes cp into out (no NUL); returns the byte count (1..4). A surrogate
 * or a value above U+10FFFF is encoded as U+FFFD. */
int av_utf8_encode(uint32_t cp, char out[4]);

/* True when all of s is valid UTF-8; otherwise *bad (when bad is not NULL)
 * is the offset of the byte that starts the first invalid sequence. */
bool av_utf8_valid(const char *s, size_t len, size_t *bad);

/* After snprintf filled s (size bytes) and cut it short: drops a last
 * character whose bytes were cut off, so s stays valid UTF-8. Does nothing
 * when s is shorter than size - 1 bytes (it was not cut). */
void av_utf8_drop_cut_character(char *s, size_t size);

/* East Asian Wide and Fullwidth characters (CJK ideographs, kana, Hangul,
 * fullwidth forms, most emoji): each one is a token of its own and takes two
 * terminal columns. */
bool av_cp_is_wide(uint32_t cp);

/* Whether cp is one of Unicode's bidirectional controls (U+061C, U+200E,
 * U+200F, U+202A..U+202E, U+2066..U+2069): invisible, but a terminal that
 * lays out right-to-left text reorders what follows them, so a sentence
 * could make the numbers after it read in another order. The screen does
 * not send them. */
bool av_cp_is_bidi_control(uint32_t cp);

/* Terminal columns of one code point: 0 for combining marks, zero-width and
 * format characters (joiners, variation selectors, bidi marks) and controls,
 * 2 for wide characters, 1 otherwise. */
int av_cp_width(uint32_t cp);

/* Terminal columns of a UTF-8 string (an invalid byte counts as one). */
int av_utf8_width(const char *s);

/* The lower case of cp as Python's str.lower() gives it (unicode_tables.c,
 * generated from it), except that U+0130 (İ), whose lower case is i and a
 * combining dot, is plain i; cp itself when it has none. Capital sigma is
 * σ here; av_lower_sigma_is_final says where str.lower() makes it ς. */
uint32_t av_cp_lower(uint32_t cp);

/* Whether the capital sigma at byte offset at of s (len bytes, valid
 * UTF-8) is final as str.lower() decides it: a cased letter before it and
 * none after it, skipping case-ignorable characters either way. */
bool av_lower_sigma_is_final(const char *s, size_t len, size_t at);

/* A word character: letter, digit or apostrophe (' and U+2019). Non-ASCII
 * code points count as letters unless they are punctuation, symbols,
 * spaces, controls or wide characters; combining marks are word characters. */
bool av_cp_is_word(uint32_t cp);

/* Extended_Pictographic (UAX #29's ExtPict: emoji and the symbols emoji
 * are made from, ©, ™, ❤): a ZWJ between two of them joins them into one
 * character as a reader sees it, 👩‍💻. */
bool av_cp_is_pictographic(uint32_t cp);

/* Grapheme_Cluster_Break Extend (a mark, a variation selector, a skin
 * tone) or SpacingMark (a vowel sign that takes a column): it belongs to
 * the character before it, whatever that is. */
bool av_cp_is_grapheme_extend(uint32_t cp);
bool av_cp_is_spacing_mark(uint32_t cp);

/* Grapheme_Cluster_Break Prepend (U+0600 ARABIC NUMBER SIGN, ...): it
 * belongs to the character after it. */
bool av_cp_is_prepend(uint32_t cp);

/* The regional indicator letters U+1F1E6..U+1F1FF: two of them, paired from
 * the first, are one flag (🇨🇳 is C then N). */
bool av_cp_is_regional_indicator(uint32_t cp);

/* White space: ASCII space, tab, newlines, vertical tab, form feed, U+0085,
 * U+00A0, U+1680, U+2000..U+200B, U+2028, U+2029, U+202F, U+205F, U+3000. */
bool av_cp_is_space(uint32_t cp);

/* --- words, and what a "…" may follow ------------------------------------
 * A text cut short on the screen (the header, the teacher's line, a
 * wrapped text's last row) ends in "…" after a whole word. A word here
 * is a run of bytes without an ASCII space. */

/* Where the last word of s[0..len) starts: just after its last space, or
 * 0. */
size_t av_last_word_start(const char *s, size_t len);

/* len without the last word of s[0..len) and the spaces before it. */
size_t av_without_last_word(const char *s, size_t len);

/* Whether s[0..len) is exactly one of words (n of them). */
bool av_span_is_one_of(const char *s, size_t len, const char *const *words, size_t n);

/* Whether the last word of s[0..len) is an operator of a formula: =, +,
 * − (U+2212), -, ×, · or /. */
bool av_last_word_is_operator(const char *s, size_t len);

/* Whether the last word of s[0..len) is an ellipsis of its own: "…" or
 * "...". */
bool av_last_word_is_ellipsis(const char *s, size_t len);

/* How much of s[0..len), a text cut after a whole word, to keep before the
 * "…" that ends it: without what reads wrong right before a "…", again
 * until nothing does. That is a last word that ends in a digit or a "."
 * (the "…" would read as more digits: "trained 12…" of "12 ep",
 * "= 0.0001019…"), or that is an ellipsis ("= ……") or an operator
 * ("b_q[0] =…"), each with the spaces before it; and the characters of
 * separators that end what is left, which led into what was cut off
 * (" ,:;": "dk, …"; "": a wrapped row keeps its "exp:…"). 0 when nothing
 * is left: the caller says what stands then. */
size_t av_keep_before_ellipsis(const char *s, size_t len, const char *separators);

#endif
