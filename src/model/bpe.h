/* bpe.h: GPT-2's byte-level byte-pair encoding, exactly as OpenAI's
 * encoder.py (and Hugging Face's GPT2Tokenizer) does it:
 *
 *   1. pre-tokenisation: the text is cut by the pattern
 *        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *      (matched by hand, unicode_classes.h gives \p{L}, \p{N} and \s);
 *   2. each piece's UTF-8 bytes become printable characters through the
 *      byte-to-unicode table (bytes 33..126, 161..172, 174..255 map to
 *      themselves, the other 68 bytes to U+0100 onwards, so a space is "Ġ");
 *   3. merges.txt's pairs are applied lowest rank first until none applies;
 *   4. vocab.json gives each resulting piece its id.
 *
 * \s is the Unicode White_Space property (as the regex module OpenAI used);
 * the npm gpt-3-encoder (JavaScript's \s) differs only for U+0085 and
 * U+FEFF. Letters and numbers: Unicode as unicode_classes.c says. */
#ifndef AV_BPE_H
#define AV_BPE_H

#include <stdbool.h>
#include <stddef.h>

/* vocab.json and merges.txt of gpt2 are 1 MB and 456 KB */
#define AV_BPE_MAX_VOCAB_FILE ((size_t)32 << 20)
#define AV_BPE_MAX_TOKEN_BYTES 256     /* longest vocabulary entry accepted */
/* The largest vocabularies in use have about 256 000 entries (gpt2's
 * 50 257); a million bounds what cJSON builds of a vocab.json, which at
 * its byte limit could otherwise hold 6 million ("":0,...: 1.3 GB). */
#define AV_BPE_MAX_VOCAB (1 << 20)

struct av_bpe_map;   /* string -> int, private to bpe.c */

struct av_bpe {
	int n_vocab;
	char **tokens;               /* id -> byte-encoded text ("Ġthe"), n_vocab */
	char *token_text;            /* the tokens' text, one after another */
	char *merge_text;            /* merges.txt's lines, each ended by a NUL */
	struct av_bpe_map *vocab;    /* byte-encoded text -> id */
	int n_merges;
	struct av_bpe_map *ranks;    /* "left right" -> rank */
	int byte_id[256];            /* id of each single byte's piece, or -1 */
};

/* Loads vocab.json (an object {"piece": id}, ids 0 .. n-1 each once) and
 * merges.txt ("#version" line optional, then one "left right" per line).
 * Errors name the file and line or entry. b is overwritten. */
bool av_bpe_load(struct av_bpe *b, const char *vocab_path, const char *merges_path,
		 char **cause);

/* The same from text in memory (for the tests and the fuzz target); names
 * are used in messages. */
bool av_bpe_load_text(struct av_bpe *b, const char *vocab_json, const char *vocab_name,
		      const char *merges_txt, size_t merges_len, const char *merges_name,
		      char **cause);

void av_bpe_free(struct av_bpe *b);

/* Pre-tokenisation alone: the byte lengths of the pieces of text (len
 * bytes of valid UTF-8), at most max of them; returns their count, or -1
 * with *cause for invalid UTF-8 or more than max pieces. */
int av_bpe_pretokenize(const char *text, size_t len, size_t *piece_len, int max, char **cause);

/* text (UTF-8) -> ids, at most max_ids; returns the count or -1 with
 * *cause: invalid UTF-8 (with its byte offset), more than max_ids tokens, a
 * piece the vocabulary cannot spell (a vocabulary without every byte). */
int av_bpe_encode(const struct av_bpe *b, const char *text, int *ids, int max_ids,
		  char **cause);

/* The raw bytes of token id (the byte-encoded text mapped back); returns
 * the count written to out (at most cap), or -1 for an unknown id. */
int av_bpe_token_bytes(const struct av_bpe *b, int id, unsigned char *out, int cap);

/* The bytes of a token as a person can read them, malloc'd: valid UTF-8
 * characters as they are, except control characters shown as \n, \t, \r
 * or \xNN; every byte that does not form a whole character (a CJK
 * character or an emoji split across tokens) in one group in angle brackets,
 * "<e6 88>"; a token of spaces only as one "␣" (U+2423) per space, so it is
 * seen. A token id outside the vocabulary gives "<unknown id N>". */
char *av_bpe_display_bytes(const unsigned char *bytes, int n);
char *av_bpe_display(const struct av_bpe *b, int id);

#endif
