/* tokenizer.h: sentence -> tokens.
 *
 * The sentence is lower-cased as Python's str.lower() does it (utf8.h's
 * av_cp_lower, final sigma included); a token is a run of word characters (letters,
 * digits, apostrophes); any other non-space character is a token of its own,
 * and so is every wide (CJK) character: "中国有熊猫" is five tokens.
 * A token never ends inside a character as a reader sees it (a grapheme
 * cluster, UAX #29): combining marks, joiners, variation selectors, skin
 * tones and vowel signs stay with the character before them, a prepended
 * mark with the one after, and a flag (🇨🇳, two regional indicators), an
 * emoji ZWJ sequence (👩‍💻) or a jamo cluster is one token, as one word
 * is. Invisible format characters (U+200E, U+2060) stay with the
 * character before them too. Control characters separate tokens like
 * spaces do. */
#ifndef AV_TOKENIZER_H
#define AV_TOKENIZER_H

#include <stdbool.h>

#define AV_MAX_TOKENS 64
#define AV_MAX_SENTENCE_BYTES 4096

struct av_tokens {
	int n;
	char *text[AV_MAX_TOKENS];   /* malloc'd, lower-cased UTF-8 */
	int offset[AV_MAX_TOKENS];   /* byte offset of the token in the sentence */
};

/* Splits sentence into out (which is overwritten, not freed). Errors: invalid
 * UTF-8 (with the byte offset), an empty sentence, more than AV_MAX_TOKENS
 * tokens, a sentence longer than AV_MAX_SENTENCE_BYTES. On error out->n is 0
 * and out holds nothing to free. */
bool av_tokenize(const char *sentence, struct av_tokens *out, char **cause);

/* av_tokenize for a source sentence (cross mode's keys and values): the
 * same tokens, its errors say "the source". */
bool av_tokenize_source(const char *source, struct av_tokens *out, char **cause);

/* Whether word is a word of a vocabulary: one token, as av_tokenize gives
 * it (lower-cased). Otherwise false and *cause says what it would become
 * ("\"Tokyo\" is never a token: a sentence's \"Tokyo\" is \"tokyo\""), the
 * word escaped; a vocabulary entry that is not would take an embedding row
 * that no sentence can reach. A word of no token at all is "empty word", or
 * for one of spaces and the like "\" \" is no word: a sentence drops all of
 * it (...)", never the sentence's "the sentence is empty". */
bool av_token_is_word(const char *word, char **cause);

/* Frees the texts and sets n to 0; calling it again is harmless. */
void av_tokens_free(struct av_tokens *t);

/* Deep copy; dst is overwritten, not freed. */
void av_tokens_copy(struct av_tokens *dst, const struct av_tokens *src);

#endif
