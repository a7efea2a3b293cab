/* tokenizer.c: sentence -> lower-cased tokens, by the rules in tokenizer.h.
 *
 * The sentence is checked whole (length, then UTF-8) before any token is
 * made, so a bad sentence never produces half a result. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "tokenizer.h"
#include "utf8.h"
#include "util.h"

/* The token being built: s[start..end) of the original sentence. */
struct scan {
	const char *s;
	size_t len;     /* of the sentence s */
	struct av_tokens *out;
	size_t start, end;
	bool open;
	bool word;      /* a run of word characters, which the next one extends */
	/* How the open token ends, for what may join it: a token never ends
	 * inside a character as a reader sees it (a grapheme, UAX #29). */
	bool pictograph; /* a pictograph, and only Extend characters after it */
	bool zwj;        /* ... then U+200D: a pictograph joins (GB11, 👩‍💻) */
	bool lone_ri;    /* an odd run of regional indicators: one more is a
			    flag (GB12, GB13: 🇨🇳) */
	bool prepend;    /* a prepended mark: anything joins (GB9b) */
	bool hangul_l;   /* a leading Hangul jamo: another one or a syllable
			    joins (GB6) */
	bool source;    /* the text is a source (cross mode's keys): said so */
};

/* The lower case of the code point cp at byte at of the sentence s (len
 * bytes): av_cp_lower's, but a capital sigma is final (ς) where
 * str.lower() makes it so, which depends on the letters around it in the
 * whole sentence, not only in its token (a '.' after it is skipped). */
static uint32_t lower_at(const char *s, size_t len, size_t at, uint32_t cp)
{
	if (cp == 0x03A3 && av_lower_sigma_is_final(s, len, at))
		return 0x03C2;
	return av_cp_lower(cp);
}

/* Bytes start to end of the sentence s (len bytes, valid UTF-8: av_tokenize
 * checked it), lower-cased. */
static char *lower_copy(const char *s, size_t len, size_t start, size_t end)
{
	/* Measure first: the encoded length of a code point can change when it
	 * is lower-cased (U+0130 İ becomes 'i'). */
	size_t need = 0;
	char buf[4];
	for (size_t i = start; i < end;) {
		uint32_t cp;
		int k = av_utf8_decode(s + i, end - i, &cp);
		need += (size_t)av_utf8_encode(lower_at(s, len, i, cp), buf);
		i += (size_t)k;
	}
	char *text = av_malloc(need + 1), *p = text;
	for (size_t i = start; i < end;) {
		uint32_t cp;
		int k = av_utf8_decode(s + i, end - i, &cp);
		p += av_utf8_encode(lower_at(s, len, i, cp), p);
		i += (size_t)k;
	}
	*p = '\0';
	return text;
}

static bool close_token(struct scan *sc, char **cause)
{
	if (!sc->open)
		return true;
	sc->open = false;
	struct av_tokens *out = sc->out;
	if (out->n == AV_MAX_TOKENS)
		return av_fail(cause, sc->source ? _("the source has more than %d tokens (the limit)")
			       : _("the sentence has more than %d tokens (the limit)"), AV_MAX_TOKENS);
	out->text[out->n] = lower_copy(sc->s, sc->len, sc->start, sc->end);
	out->offset[out->n] = (int)sc->start;
	out->n++;
	return true;
}

/* Separators end a token and are dropped. Control characters are treated
 * as separators so that they never reach the screen inside a token. */
static bool is_separator(uint32_t cp)
{
	return av_cp_is_space(cp) || cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
}

/* Characters that belong to the character before them, whatever it is:
 * what takes no column (combining marks, joiners, variation selectors) and
 * Unicode's grapheme extenders and spacing marks (skin tones, vowel signs).
 * "é" written e + U+0301 stays one word, and "!" + U+0301 stays one token. */
static bool extends(uint32_t cp)
{
	return av_cp_width(cp) == 0 || av_cp_is_grapheme_extend(cp) || av_cp_is_spacing_mark(cp);
}

static bool hangul_l(uint32_t cp)
{
	return (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0xA960 && cp <= 0xA97C);
}

/* Whether cp continues the open token as part of its last character: the
 * pictograph after a pictograph's ZWJ (👩‍💻: woman, ZWJ, laptop), the
 * second regional indicator of a flag (🇨🇳), what follows a prepended
 * mark, the jamo or syllable after a leading jamo. Two tokens there would
 * show a reader half a character: a word-level tokenizer cuts between
 * characters, never inside one. */
static bool joins(const struct scan *sc, uint32_t cp)
{
	if (!sc->open)
		return false;
	return sc->prepend || (sc->zwj && av_cp_is_pictographic(cp)) ||
	       (sc->lone_ri && av_cp_is_regional_indicator(cp)) ||
	       (sc->hangul_l && (hangul_l(cp) || (cp >= 0xAC00 && cp <= 0xD7A3)));
}

/* How the token ends after cp, which extends its last character
 * (extender) or starts one. */
static void note_cp(struct scan *sc, uint32_t cp, bool extender)
{
	sc->prepend = !extender && av_cp_is_prepend(cp);
	sc->hangul_l = !extender && hangul_l(cp);
	if (extender) {
		/* GB11: a pictograph, Extend*, one ZWJ; neither a ZWJ nor a
		 * spacing mark is an Extend */
		sc->zwj = cp == 0x200D && sc->pictograph;
		sc->pictograph = sc->pictograph && cp != 0x200D && !av_cp_is_spacing_mark(cp);
		sc->lone_ri = false;
		return;
	}
	sc->pictograph = av_cp_is_pictographic(cp);
	sc->zwj = false;
	sc->lone_ri = av_cp_is_regional_indicator(cp) && !sc->lone_ri;
}

static bool scan_cp(struct scan *sc, uint32_t cp, size_t at, size_t next, char **cause)
{
	if (is_separator(cp))
		return close_token(sc, cause);
	if (extends(cp)) {
		/* With nothing before it (a mark after a space, a byte-order
		 * mark) there is nothing to extend: drop it. */
		if (sc->open) {
			sc->end = next;
			note_cp(sc, cp, true);
		}
		return true;
	}
	bool word = av_cp_is_word(cp);
	if (joins(sc, cp) || (word && sc->open && sc->word)) {
		/* a word goes on after a word character only: "؀👩" is one
		 * character, and "abc" after it another token */
		sc->word = word;
		sc->end = next;
		note_cp(sc, cp, false);
		return true;
	}
	if (!close_token(sc, cause))
		return false;
	sc->open = true;
	sc->word = word;
	sc->start = at;
	sc->end = next;
	sc->lone_ri = false;
	note_cp(sc, cp, false);
	return true;
}

static bool split(const char *s, size_t len, bool source, struct av_tokens *out,
		  char **cause)
{
	struct scan sc = { .s = s, .len = len, .out = out, .source = source };
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t next = i + (size_t)av_utf8_decode(s + i, len - i, &cp);
		if (!scan_cp(&sc, cp, i, next, cause))
			return false;
		i = next;
	}
	return close_token(&sc, cause);
}

/* av_tokenize, where no token at all is not an error; the messages name
 * the source when source is true (the source editor said "the sentence
 * has more than 64 tokens" of the source). */
static bool tokenize(const char *sentence, bool source, struct av_tokens *out, char **cause)
{
	memset(out, 0, sizeof(*out));
	/* memchr rather than strlen: never read far past the limit. */
	const char *nul = memchr(sentence, '\0', AV_MAX_SENTENCE_BYTES + 1);
	if (!nul)
		return av_fail(cause, source ? _("the source is longer than %d bytes (the limit)")
			       : _("the sentence is longer than %d bytes (the limit)"),
			       AV_MAX_SENTENCE_BYTES);
	size_t len = (size_t)(nul - sentence), bad;
	if (!av_utf8_valid(sentence, len, &bad))
		return av_fail(cause, source ? _("invalid UTF-8 at byte %zu of the source")
			       : _("invalid UTF-8 at byte %zu"), bad);
	if (!split(sentence, len, source, out, cause)) {
		av_tokens_free(out);
		return false;
	}
	return true;
}

static bool tokenize_text(const char *text, bool source, struct av_tokens *out, char **cause)
{
	const char *empty = source ? _("the source is empty") : _("the sentence is empty");
	if (!text) {
		memset(out, 0, sizeof(*out));
		return av_fail(cause, "%s", empty);
	}
	if (!tokenize(text, source, out, cause))
		return false;
	return out->n > 0 || av_fail(cause, "%s", empty);
}

bool av_tokenize(const char *sentence, struct av_tokens *out, char **cause)
{
	return tokenize_text(sentence, false, out, cause);
}

bool av_tokenize_source(const char *source, struct av_tokens *out, char **cause)
{
	return tokenize_text(source, true, out, cause);
}

void av_tokens_free(struct av_tokens *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->n; i++) {
		free(t->text[i]);
		t->text[i] = NULL;
	}
	t->n = 0;
}

void av_tokens_copy(struct av_tokens *dst, const struct av_tokens *src)
{
	memset(dst, 0, sizeof(*dst));
	for (int i = 0; i < src->n; i++) {
		dst->text[i] = av_strdup(src->text[i]);
		dst->offset[i] = src->offset[i];
	}
	dst->n = src->n;
}

bool av_token_is_word(const char *word, char **cause)
{
	struct av_tokens t;
	if (!tokenize(word, false, &t, cause))
		return false;
	if (t.n == 0) {   /* a word, not a sentence: said as one */
		if (!*word)
			return av_fail(cause, "%s", _("empty word"));
		char *w = av_escape(word);
		av_fail(cause, _("\"%s\" is no word: a sentence drops all of it (spaces, control "
			"characters, marks with nothing before them)"), w);
		free(w);
		return false;
	}
	bool ok = t.n == 1 && strcmp(t.text[0], word) == 0;
	if (!ok) {
		char *w = av_escape(word), *first = av_escape(t.text[0]);
		if (t.n == 1)
			av_fail(cause, _("\"%s\" is never a token: a sentence's \"%s\" is \"%s\" "
				"(lower-cased)"), w, w, first);
		else
			av_fail(cause, _("\"%s\" is %d tokens (the first \"%s\"), not one word"), w,
				t.n, first);
		free(w);
		free(first);
	}
	av_tokens_free(&t);
	return ok;
}

