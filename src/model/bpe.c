/* bpe.c: GPT-2's byte-level BPE (see bpe.h). The pre-tokenisation pattern
 * is matched by hand over code points, one alternative after another in the
 * pattern's order, as a backtracking regex engine would try them. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "bpe.h"
#include "i18n.h"
#include "json_read.h"
#include "rng.h"
#include "unicode_classes.h"
#include "utf8.h"
#include "util.h"

/* --- a string -> int map (open addressing, FNV-1a from rng.h) */

struct av_bpe_map {
	size_t cap;         /* a power of two, at least twice the count */
	const char *text;   /* holds the keys, NUL-terminated (not owned) */
	uint32_t *key_at;   /* a key's offset in text + 1; 0 = empty slot */
	int *values;
};

/* Keys are strings in text (the vocabulary's or merges.txt's one block):
 * 150,000 strings of gpt2 malloc'd one by one cost 5 MB for 1.4 MB of
 * text, in every process. */
static struct av_bpe_map *map_new(size_t expected, const char *text)
{
	struct av_bpe_map *m = av_calloc(1, sizeof(*m));
	m->cap = 16;
	while (m->cap < expected * 2 + 1)
		m->cap *= 2;
	m->text = text;
	m->key_at = av_calloc(m->cap, sizeof(*m->key_at));
	m->values = av_calloc(m->cap, sizeof(*m->values));
	return m;
}

static void map_free(struct av_bpe_map *m)
{
	if (!m)
		return;
	free(m->key_at);
	free(m->values);
	free(m);
}

/* The slot of key (n bytes): where it is, or the empty slot it would take. */
static size_t map_slot(const struct av_bpe_map *m, const char *key, size_t n)
{
	size_t i = (size_t)av_fnv1a_bytes(key, n, AV_FNV_BASIS) & (m->cap - 1);
	while (m->key_at[i]) {
		const char *k = m->text + m->key_at[i] - 1;
		if (strlen(k) == n && memcmp(k, key, n) == 0)
			break;
		i = (i + 1) & (m->cap - 1);
	}
	return i;
}

static int map_get(const struct av_bpe_map *m, const char *key, size_t n)
{
	size_t i = map_slot(m, key, n);
	return m->key_at[i] ? m->values[i] : -1;
}

/* Adds the key at offset at of the map's text (n bytes, then a NUL) ->
 * value; false when the key is already there. The map was sized for every
 * key when made, so it never fills. */
static bool map_put(struct av_bpe_map *m, size_t at, size_t n, int value)
{
	size_t i = map_slot(m, m->text + at, n);
	if (m->key_at[i])
		return false;
	m->key_at[i] = (uint32_t)at + 1;
	m->values[i] = value;
	return true;
}

/* --- the byte-to-unicode table of encoder.py's bytes_to_unicode() */

static bool printable_byte(int b)
{
	return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
}

static uint32_t byte_to_cp(unsigned char b)
{
	if (printable_byte(b))
		return b;
	/* the 68 others, in byte order, from U+0100 */
	int n = 0;
	for (int x = 0; x < b; x++)
		n += !printable_byte(x);
	return 256u + (uint32_t)n;
}

/* The inverse: the byte of a code point of the table, or -1. */
static int cp_to_byte(uint32_t cp)
{
	if (cp < 256)
		return printable_byte((int)cp) ? (int)cp : -1;
	int n = (int)cp - 256;   /* the n-th byte that is not printable */
	for (int b = 0; b < 256; b++)
		if (!printable_byte(b) && n-- == 0)
			return b;
	return -1;
}

/* The byte-encoded text of bytes (n) into out (up to 2 bytes each). */
static size_t encode_bytes(const unsigned char *bytes, size_t n, char *out)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		char u[4];
		int k = av_utf8_encode(byte_to_cp(bytes[i]), u);
		memcpy(out + len, u, (size_t)k);
		len += (size_t)k;
	}
	return len;
}

/* --- loading */

void av_bpe_free(struct av_bpe *b)
{
	free(b->tokens);
	free(b->token_text);
	free(b->merge_text);
	map_free(b->vocab);
	map_free(b->ranks);
	memset(b, 0, sizeof(*b));
}

static bool load_vocab(struct av_bpe *b, const char *json, const char *name, char **cause)
{
	cJSON *doc = av_json_parse(json, name, AV_BPE_MAX_VOCAB + 1, _("vocabulary files"), cause);
	if (!doc)
		return false;
	int n = cJSON_GetArraySize(doc);
	if (n < 1) {
		cJSON_Delete(doc);
		return av_fail(cause, _("%s: the vocabulary is empty"), name);
	}
	/* the entries one after another, each with its NUL: less than twice
	 * the text (av_bpe_load reads at most AV_BPE_MAX_VOCAB_FILE), so map
	 * offsets fit in 32 bits */
	size_t bytes = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, doc)
		bytes += strlen(item->string) + 1;
	b->token_text = av_malloc(bytes);
	b->tokens = av_calloc((size_t)n, sizeof(*b->tokens));
	b->n_vocab = n;
	b->vocab = map_new((size_t)n, b->token_text);
	size_t at = 0;
	cJSON_ArrayForEach(item, doc) {
		double v = cJSON_IsNumber(item) ? item->valuedouble : -1;
		size_t len = strlen(item->string);
		memcpy(b->token_text + at, item->string, len + 1);
		const char *why = NULL;
		if (!(v >= 0 && v < n) || v != (double)(int)v)
			why = _("the id must be a whole number from 0 to the entry count - 1");
		else if (len == 0 || len > AV_BPE_MAX_TOKEN_BYTES)
			why = _("an empty or too long entry");
		else if (b->tokens[(int)v])
			why = _("this id is given twice");
		else if (!map_put(b->vocab, at, len, (int)v))
			why = _("this entry is given twice");
		if (why) {
			char *shown = av_escape(item->string);
			av_fail(cause, _("%s: entry \"%s\": %s"), name, shown, why);
			free(shown);
			cJSON_Delete(doc);
			return false;
		}
		b->tokens[(int)v] = b->token_text + at;
		at += len + 1;
	}
	cJSON_Delete(doc);
	/* the piece of each single byte, so any text can be spelt */
	for (int i = 0; i < 256; i++) {
		char u[4];
		unsigned char byte = (unsigned char)i;
		size_t k = encode_bytes(&byte, 1, u);
		b->byte_id[i] = map_get(b->vocab, u, k);
	}
	return true;
}

/* A merge of the pieces [start, space) and (space, end): both pieces and
 * what they make must be in the vocabulary, as Hugging Face's tokenizer
 * checks at load. Otherwise a sentence that needs the merge fails later,
 * far from the file's mistake ("the vocabulary has no entry for ..."). */
static bool merge_in_vocab(const struct av_bpe *b, const char *start, const char *space,
			   const char *end, const char *name, size_t line, char **cause)
{
	char joined[2 * AV_BPE_MAX_TOKEN_BYTES + 1];
	size_t first = (size_t)(space - start), second = (size_t)(end - space - 1);
	memcpy(joined, start, first);
	memcpy(joined + first, space + 1, second);
	const struct { const char *at; size_t n; } pieces[] = {
		{ start, first }, { space + 1, second }, { joined, first + second },
	};
	for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
		if (map_get(b->vocab, pieces[k].at, pieces[k].n) >= 0)
			continue;
		char *piece = av_strndup(pieces[k].at, pieces[k].n), *shown = av_escape(piece);
		av_fail(cause, _("%s:%zu: \"%s\" is not in the vocabulary (every piece of a merge, "
				 "and what it makes, must have an id)"), name, line, shown);
		free(shown);
		free(piece);
		return false;
	}
	return true;
}

static bool load_merges(struct av_bpe *b, const char *text, size_t len, const char *name,
			char **cause)
{
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	/* the keys: the lines in a copy of the text, each ended by a NUL */
	b->merge_text = av_malloc(len + 1);
	memcpy(b->merge_text, text, len);
	b->merge_text[len] = '\0';
	b->ranks = map_new(lines, b->merge_text);
	size_t pos = 0;
	for (size_t line = 1; pos < len; line++) {
		const char *start = text + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t at = pos, n = nl ? (size_t)(nl - start) : len - pos;
		pos += n + (nl != NULL);
		if (n > 0 && start[n - 1] == '\r')
			n--;
		if (n == 0 || (line == 1 && n >= 8 && !memcmp(start, "#version", 8)))
			continue;
		const char *space = memchr(start, ' ', n);
		const char *why = NULL;
		b->merge_text[at + n] = '\0';
		if (memchr(start, '\0', n))
			why = _("a NUL byte");
		else if (!space || space == start || space == start + n - 1 ||
			 memchr(space + 1, ' ', (size_t)(start + n - space - 1)))
			why = _("expected two pieces separated by one space");
		else if (n > 2 * AV_BPE_MAX_TOKEN_BYTES)
			why = _("too long");
		else if (!map_put(b->ranks, at, n, b->n_merges))
			why = _("this merge is given twice");
		if (why)
			return av_fail(cause, _("%s:%zu: %s"), name, line, why);
		if (!merge_in_vocab(b, start, space, start + n, name, line, cause))
			return false;
		b->n_merges++;
	}
	return true;
}

bool av_bpe_load_text(struct av_bpe *b, const char *vocab_json, const char *vocab_name,
		      const char *merges_txt, size_t merges_len, const char *merges_name,
		      char **cause)
{
	memset(b, 0, sizeof(*b));
	if (!load_vocab(b, vocab_json, vocab_name, cause) ||
	    !load_merges(b, merges_txt, merges_len, merges_name, cause)) {
		av_bpe_free(b);
		return false;
	}
	return true;
}

bool av_bpe_load(struct av_bpe *b, const char *vocab_path, const char *merges_path,
		 char **cause)
{
	char *vocab = NULL, *merges = NULL;
	size_t vlen = 0, mlen = 0;
	bool ok = av_read_file_limit(vocab_path, AV_BPE_MAX_VOCAB_FILE, _("vocabulary files"),
				     &vocab, &vlen, cause) &&
		  av_read_file_limit(merges_path, AV_BPE_MAX_VOCAB_FILE, _("vocabulary files"),
				     &merges, &mlen, cause);
	if (ok) {
		char *vname = av_escape_controls(vocab_path), *mname = av_escape_controls(merges_path);
		ok = av_bpe_load_text(b, vocab, vname, merges, mlen, mname, cause);
		free(vname);
		free(mname);
	} else {
		memset(b, 0, sizeof(*b));
	}
	free(vocab);
	free(merges);
	return ok;
}

/* --- pre-tokenisation */

/* The code points of text with their byte offsets (offs has n + 1). */
static int decode_all(const char *text, size_t len, uint32_t **cps, size_t **offs, char **cause)
{
	*cps = av_malloc((len + 1) * sizeof(**cps));
	*offs = av_malloc((len + 1) * sizeof(**offs));
	int n = 0;
	size_t i = 0;
	while (i < len) {
		int k = av_utf8_decode(text + i, len - i, &(*cps)[n]);
		if (k < 0) {
			free(*cps);
			free(*offs);
			*cps = NULL;
			*offs = NULL;
			return av_fail(cause, _("invalid UTF-8 at byte %zu"), i), -1;
		}
		(*offs)[n++] = i;
		i += (size_t)k;
	}
	(*offs)[n] = len;
	return n;
}

static enum av_uc_class cls_at(const uint32_t *cp, int n, int i)
{
	return i < n ? av_unicode_class(cp[i]) : AV_UC_SPACE;
}

/* 's 't 're 've 'm 'll 'd at i: its length in code points, or 0. */
static int contraction(const uint32_t *cp, int n, int i)
{
	if (cp[i] != '\'' || i + 1 >= n)
		return 0;
	uint32_t a = cp[i + 1], b = i + 2 < n ? cp[i + 2] : 0;
	if (a == 's' || a == 't' || a == 'm' || a == 'd')
		return 2;
	if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
		return 3;
	return 0;
}

/* The length (code points) of the piece that starts at i. */
static int piece_at(const uint32_t *cp, int n, int i)
{
	int k = contraction(cp, n, i);
	if (k)
		return k;
	/* ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space,
	 * then a run of one class */
	int start = cp[i] == ' ' ? i + 1 : i;
	enum av_uc_class c = cls_at(cp, n, start);
	if (c != AV_UC_SPACE) {
		int j = start;
		while (j < n && cls_at(cp, n, j) == c)
			j++;
		return j - i;
	}
	/* here cp[i] is white space: `\s+(?!\S)` takes the run but, when a
	 * non-space follows, leaves its last character (which the next piece
	 * may take as its optional space); a run of one before a non-space
	 * falls to `\s+` */
	int j = i;
	while (j < n && cls_at(cp, n, j) == AV_UC_SPACE)
		j++;
	if (j < n && j - i >= 2)
		return j - 1 - i;
	return j - i;
}

int av_bpe_pretokenize(const char *text, size_t len, size_t *piece_len, int max, char **cause)
{
	uint32_t *cps;
	size_t *offs;
	int n = decode_all(text, len, &cps, &offs, cause);
	if (n < 0)
		return -1;
	int count = 0;
	for (int i = 0; i < n;) {
		int k = piece_at(cps, n, i);
		if (count == max) {
			free(cps);
			free(offs);
			return av_fail(cause, _("more than %d pieces"), max), -1;
		}
		piece_len[count++] = offs[i + k] - offs[i];
		i += k;
	}
	free(cps);
	free(offs);
	return count;
}

/* --- merges */

/* One piece's BPE: word holds n symbols (byte-encoded strings, each a
 * suffix-free slice of buf given by start and length); the pair of lowest
 * rank is merged everywhere, left to right, until no pair has a rank.
 * Returns the new symbol count. */
static int merge_word(const struct av_bpe *b, const char *buf, int *start, int *len, int n)
{
	char key[2 * AV_BPE_MAX_TOKEN_BYTES + 2];
	while (n > 1) {
		int best = -1, best_rank = 0;
		for (int i = 0; i + 1 < n; i++) {
			size_t kl = (size_t)len[i] + 1 + (size_t)len[i + 1];
			if (kl >= sizeof(key))
				continue;
			memcpy(key, buf + start[i], (size_t)len[i]);
			key[len[i]] = ' ';
			memcpy(key + len[i] + 1, buf + start[i + 1], (size_t)len[i + 1]);
			int r = map_get(b->ranks, key, kl);
			if (r >= 0 && (best < 0 || r < best_rank)) {
				best = i;
				best_rank = r;
			}
		}
		if (best < 0)
			break;
		/* merge every occurrence of the best pair, left to right */
		int first_s = start[best], first_l = len[best];
		int second_s = start[best + 1], second_l = len[best + 1];
		int out = 0;
		for (int i = 0; i < n; i++) {
			if (i + 1 < n && len[i] == first_l && len[i + 1] == second_l &&
			    !memcmp(buf + start[i], buf + first_s, (size_t)first_l) &&
			    !memcmp(buf + start[i + 1], buf + second_s, (size_t)second_l)) {
				start[out] = start[i];
				len[out++] = len[i] + len[i + 1];   /* neighbours in buf */
				i++;
			} else {
				start[out] = start[i];
				len[out++] = len[i];
			}
		}
		n = out;
	}
	return n;
}

/* Appends the ids of one piece (bytes, n) to ids; false on overflow or a
 * symbol the vocabulary lacks. */
static bool encode_piece(const struct av_bpe *b, const unsigned char *bytes, size_t n,
			 int *ids, int *count, int max_ids, char **cause)
{
	char *buf = av_malloc(2 * n + 1);
	int *start = av_malloc(n * sizeof(int)), *len = av_malloc(n * sizeof(int));
	size_t pos = 0;
	for (size_t i = 0; i < n; i++) {
		start[i] = (int)pos;
		len[i] = (int)encode_bytes(&bytes[i], 1, buf + pos);
		pos += (size_t)len[i];
	}
	int symbols = merge_word(b, buf, start, len, (int)n);
	bool ok = true;
	for (int i = 0; i < symbols && ok; i++) {
		int id = map_get(b->vocab, buf + start[i], (size_t)len[i]);
		if (id < 0) {
			char *shown = av_strndup(buf + start[i], (size_t)len[i]);
			char *esc = av_escape(shown);
			ok = av_fail(cause, _("the vocabulary has no entry for \"%s\""), esc);
			free(esc);
			free(shown);
		} else if (*count >= max_ids) {
			ok = av_fail(cause, _("more than %d tokens"), max_ids);
		} else {
			ids[(*count)++] = id;
		}
	}
	free(buf);
	free(start);
	free(len);
	return ok;
}

int av_bpe_encode(const struct av_bpe *b, const char *text, int *ids, int max_ids,
		  char **cause)
{
	size_t len = strlen(text);
	size_t *pieces = av_malloc((len + 1) * sizeof(*pieces));
	int n = av_bpe_pretokenize(text, len, pieces, (int)(len + 1), cause);
	int count = 0;
	size_t pos = 0;
	for (int i = 0; i < n; i++) {
		if (!encode_piece(b, (const unsigned char *)text + pos, pieces[i], ids, &count,
				  max_ids, cause)) {
			count = -1;
			break;
		}
		pos += pieces[i];
	}
	free(pieces);
	return n < 0 ? -1 : count;
}

/* --- back to bytes, and shown */

int av_bpe_token_bytes(const struct av_bpe *b, int id, unsigned char *out, int cap)
{
	if (id < 0 || id >= b->n_vocab || !b->tokens[id])
		return -1;
	const char *s = b->tokens[id];
	size_t len = strlen(s), i = 0;
	int n = 0;
	while (i < len && n < cap) {
		uint32_t cp;
		int k = av_utf8_decode(s + i, len - i, &cp);
		int byte = k > 0 ? cp_to_byte(cp) : -1;
		if (byte < 0) {
			/* an entry outside the byte table (a special token such as
			 * <|endoftext|> is plain ASCII and maps to itself) */
			out[n++] = (unsigned char)s[i++];
			continue;
		}
		out[n++] = (unsigned char)byte;
		i += (size_t)k;
	}
	return n;
}

char *av_bpe_display_bytes(const unsigned char *bytes, int n)
{
	/* worst case: every byte as "<xx " */
	char *out = av_malloc((size_t)n * 5 + 3);
	size_t o = 0;
	/* a token of spaces only (" ", "  ") labelled a row and a column with
	 * nothing to see: each space is shown as U+2423 OPEN BOX */
	int spaces = 0;
	while (spaces < n && bytes[spaces] == ' ')
		spaces++;
	if (n > 0 && spaces == n) {
		for (int i = 0; i < n; i++) {
			memcpy(out + o, "\xe2\x90\xa3", 3);
			o += 3;
		}
		out[o] = '\0';
		return out;
	}
	bool in_group = false;
	for (int i = 0; i < n;) {
		uint32_t cp;
		int k = av_utf8_decode((const char *)bytes + i, (size_t)(n - i), &cp);
		if (k < 0) {
			o += (size_t)sprintf(out + o, in_group ? " %02x" : "<%02x", bytes[i]);
			in_group = true;
			i++;
			continue;
		}
		if (in_group) {
			out[o++] = '>';
			in_group = false;
		}
		if (cp == '\n' || cp == '\t' || cp == '\r') {
			out[o++] = '\\';
			out[o++] = cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r';
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			o += (size_t)sprintf(out + o, "\\x%02x", (unsigned)cp);
		} else {
			memcpy(out + o, bytes + i, (size_t)k);
			o += (size_t)k;
		}
		i += k;
	}
	if (in_group)
		out[o++] = '>';
	out[o] = '\0';
	return out;
}

char *av_bpe_display(const struct av_bpe *b, int id)
{
	unsigned char bytes[AV_BPE_MAX_TOKEN_BYTES];
	int n = av_bpe_token_bytes(b, id, bytes, (int)sizeof(bytes));
	if (n < 0)
		return av_printf(_("<unknown id %d>"), id);
	return av_bpe_display_bytes(bytes, n);
}

/* --- classes */

enum av_uc_class av_unicode_class(uint32_t cp)
{
	switch (cp) {   /* White_Space (PropList.txt), stable since Unicode 6.3 */
	case 0x09: case 0x0a: case 0x0b: case 0x0c: case 0x0d: case 0x20: case 0x85: case 0xa0:
	case 0x1680: case 0x2028: case 0x2029: case 0x202f: case 0x205f: case 0x3000:
		return AV_UC_SPACE;
	default:
		if (cp >= 0x2000 && cp <= 0x200a)
			return AV_UC_SPACE;
	}
	int lo = 0, hi = av_unicode_class_count - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct av_uc_range *r = &av_unicode_class_ranges[mid];
		if (cp < r->lo)
			hi = mid - 1;
		else if (cp > r->hi)
			lo = mid + 1;
		else
			return r->cls;
	}
	return AV_UC_OTHER;
}
