/* model.c: parameters of one attention layer, their documented
 * initialisation, and the vocabulary lookup (see model.h). */
#include "config.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "strset.h"
#include "rng.h"
#include "tokenizer.h"
#include "util.h"

static float *alloc_floats(size_t count)
{
	return av_calloc(count, sizeof(float));
}

static float *dup_floats(const float *src, size_t count)
{
	if (!src)
		return NULL;
	float *dst = alloc_floats(count);
	memcpy(dst, src, count * sizeof(float));
	return dst;
}

/* Stamps are only ever compared for equality, so each thread takes a block
 * of them at a time: the trainer takes one per step, and a locked add each
 * time was a fortieth of a china-panda step (issue 11). */
#define STAMP_BLOCK 4096

uint64_t av_params_new_stamp(void)
{
	static atomic_uint_fast64_t taken;
	static _Thread_local uint64_t next, end;
	if (next == end) {
		next = (uint64_t)atomic_fetch_add(&taken, STAMP_BLOCK) + 1;
		end = next + STAMP_BLOCK;
	}
	return next++;
}

void av_params_changed(struct av_params *p)
{
	p->stamp = av_params_new_stamp();
}

void av_params_alloc(struct av_params *p, const struct av_config *cfg)
{
	size_t D = (size_t)cfg->d_model;
	memset(p, 0, sizeof(*p));
	p->d_model = cfg->d_model;
	p->max_positions = cfg->max_positions;
	p->bias = cfg->bias;
	if (cfg->positional == AV_POS_LEARNED)
		p->position_embedding = alloc_floats((size_t)cfg->max_positions * D);
	float **weights[] = { &p->w_q, &p->w_k, &p->w_v, &p->w_o };
	float **biases[] = { &p->b_q, &p->b_k, &p->b_v, &p->b_o };
	for (int i = 0; i < 4; i++) {
		*weights[i] = alloc_floats(D * D);
		*biases[i] = cfg->bias ? alloc_floats(D) : NULL;
	}
	av_params_changed(p);
}

void av_params_free(struct av_params *p)
{
	for (int i = 0; i < p->vocab_size; i++)
		free(p->vocab[i]);
	free(p->vocab);
	free(p->token_embedding);
	free(p->position_embedding);
	free(p->w_q); free(p->w_k); free(p->w_v); free(p->w_o);
	free(p->b_q); free(p->b_k); free(p->b_v); free(p->b_o);
	memset(p, 0, sizeof(*p));
}

void av_params_copy(struct av_params *dst, const struct av_params *src)
{
	size_t D = (size_t)src->d_model;
	*dst = *src;
	dst->vocab_cap = src->vocab_size;
	dst->vocab = av_calloc((size_t)src->vocab_size + 1, sizeof(char *));
	for (int i = 0; i < src->vocab_size; i++)
		dst->vocab[i] = av_strdup(src->vocab[i]);
	dst->token_embedding = dup_floats(src->token_embedding, (size_t)src->vocab_size * D);
	dst->position_embedding = dup_floats(src->position_embedding,
					     (size_t)src->max_positions * D);
	dst->w_q = dup_floats(src->w_q, D * D);
	dst->w_k = dup_floats(src->w_k, D * D);
	dst->w_v = dup_floats(src->w_v, D * D);
	dst->w_o = dup_floats(src->w_o, D * D);
	dst->b_q = dup_floats(src->b_q, D);
	dst->b_k = dup_floats(src->b_k, D);
	dst->b_v = dup_floats(src->b_v, D);
	dst->b_o = dup_floats(src->b_o, D);
	av_params_changed(dst);   /* dst's matrices are other memory */
}

bool av_tensor_same(const float *a, const float *b, size_t count)
{
	return a && b && memcmp(a, b, count * sizeof(float)) == 0;
}

int av_params_find(const struct av_params *p, const char *word)
{
	for (int i = 0; i < p->vocab_size; i++)
		if (strcmp(p->vocab[i], word) == 0)
			return i;
	return -1;
}

int av_params_add_word(struct av_params *p, const char *word, const float *row)
{
	size_t D = (size_t)p->d_model;
	if (p->vocab_size == p->vocab_cap) {
		p->vocab_cap = p->vocab_cap ? p->vocab_cap * 2 : 16;
		p->vocab = av_realloc(p->vocab, (size_t)p->vocab_cap, sizeof(char *));
		p->token_embedding = av_realloc(p->token_embedding,
						(size_t)p->vocab_cap * D, sizeof(float));
	}
	int id = p->vocab_size++;
	p->vocab[id] = av_strdup(word);
	memcpy(p->token_embedding + (size_t)id * D, row, D * sizeof(float));
	return id;
}

void av_params_truncate_vocab(struct av_params *p, int n)
{
	for (int i = n; i < p->vocab_size; i++)
		free(p->vocab[i]);
	if (n < p->vocab_size)
		p->vocab_size = n;
}

/* Fills count floats from the generator named `name` under seed. */
static void draw_normal(float *out, size_t count, uint64_t seed, const char *name)
{
	struct av_rng rng;
	av_rng_seed(&rng, seed, av_fnv1a(name, AV_FNV_BASIS));
	for (size_t i = 0; i < count; i++)
		out[i] = (float)av_rng_normal(&rng);
}

static void draw_uniform(float *out, size_t count, uint64_t seed, const char *name,
			 double bound)
{
	struct av_rng rng;
	av_rng_seed(&rng, seed, av_fnv1a(name, AV_FNV_BASIS));
	for (size_t i = 0; i < count; i++)
		out[i] = (float)av_rng_range(&rng, -bound, bound);
}

void av_word_embedding(uint64_t seed, const char *word, int d_model, float *row)
{
	struct av_rng rng;
	av_rng_seed(&rng, seed, av_fnv1a(word, av_fnv1a("token:", AV_FNV_BASIS)));
	for (int i = 0; i < d_model; i++)
		row[i] = (float)av_rng_normal(&rng);
}

/* One weight matrix (out x in = D x D) and its bias, by the init scheme:
 *   normal: W ~ N(0,1) (torch.randn, seed 001), b = 0
 *   xavier: W ~ U(-a, a), a = sqrt(6 / (in + out)) (Glorot uniform), b = 0
 *   torch:  W, b ~ U(-1/sqrt(in), 1/sqrt(in)) (nn.Linear's default) */
static void init_linear(float *w, float *b, int D, enum av_init init, uint64_t seed,
			const char *w_name, const char *b_name)
{
	size_t n = (size_t)D * (size_t)D;
	switch (init) {
	case AV_INIT_NORMAL:
		draw_normal(w, n, seed, w_name);
		break;
	case AV_INIT_XAVIER:
		draw_uniform(w, n, seed, w_name, sqrt(6.0 / (2.0 * D)));
		break;
	case AV_INIT_TORCH:
		draw_uniform(w, n, seed, w_name, 1.0 / sqrt((double)D));
		break;
	}
	if (!b)
		return;
	if (init == AV_INIT_TORCH)
		draw_uniform(b, (size_t)D, seed, b_name, 1.0 / sqrt((double)D));
	else
		memset(b, 0, (size_t)D * sizeof(float));
}

void av_params_reinit_linear(struct av_params *p, const struct av_config *cfg)
{
	int D = p->d_model;
	init_linear(p->w_q, p->b_q, D, cfg->init, cfg->seed, "w_q", "b_q");
	init_linear(p->w_k, p->b_k, D, cfg->init, cfg->seed, "w_k", "b_k");
	init_linear(p->w_v, p->b_v, D, cfg->init, cfg->seed, "w_v", "b_v");
	init_linear(p->w_o, p->b_o, D, cfg->init, cfg->seed, "w_o", "b_o");
	av_params_changed(p);
}

void av_params_init(struct av_params *p, const struct av_config *cfg,
		    const char *const *vocab, int vocab_size)
{
	av_params_alloc(p, cfg);
	float *row = alloc_floats((size_t)cfg->d_model);
	struct av_strset added = { 0 };   /* repeats skipped in O(1) each */
	for (int i = 0; i < vocab_size; i++) {
		if (av_strset_add(&added, vocab[i], i) >= 0)
			continue;
		av_word_embedding(cfg->seed, vocab[i], cfg->d_model, row);
		av_params_add_word(p, vocab[i], row);
	}
	av_strset_free(&added);
	free(row);
	if (p->position_embedding)
		draw_normal(p->position_embedding,
			    (size_t)cfg->max_positions * (size_t)cfg->d_model,
			    cfg->seed, "position_embedding");
	av_params_reinit_linear(p, cfg);
}

/* The rows av_word_embedding drew for unknown words, kept across runs:
 * each keystroke in the editor runs the sentence again, and the session
 * drops the unknown words' rows before each run (av_params_truncate_vocab).
 * At D=512 a sentence of 64 unknown words drew 32 768 normals again, some
 * 5 M instructions, a third of a typed character's work (issue 11). A row
 * depends only on (seed, word, D), so a kept row is the same bits as a new
 * one. At most UNKNOWN_ROWS rows (a sentence and a source of
 * AV_MAX_TOKENS words each; 256 KiB at D=512), the oldest replaced first.
 * Single-threaded, as the engine is. */
#define UNKNOWN_ROWS (2 * AV_MAX_TOKENS)

struct unknown_row {
	uint64_t seed, hash;
	int d_model;
	char *word;
	float *row;   /* d_model floats */
};

static const float *unknown_word_row(uint64_t seed, const char *word, int D)
{
	static struct unknown_row rows[UNKNOWN_ROWS];
	static int next;   /* the slot the next new row takes */
	uint64_t hash = av_fnv1a(word, AV_FNV_BASIS);
	for (int i = 0; i < UNKNOWN_ROWS; i++) {
		const struct unknown_row *r = &rows[i];
		if (r->word && r->hash == hash && r->seed == seed && r->d_model == D &&
		    strcmp(r->word, word) == 0)
			return r->row;
	}
	struct unknown_row *r = &rows[next];
	next = (next + 1) % UNKNOWN_ROWS;
	free(r->word);
	if (r->d_model != D) {
		free(r->row);
		r->row = alloc_floats((size_t)D);
	}
	*r = (struct unknown_row){ seed, hash, D, av_strdup(word), r->row };
	av_word_embedding(seed, word, D, r->row);
	return r->row;
}

int av_params_token_id(struct av_params *p, uint64_t seed, const char *word, bool *oov)
{
	int id = av_params_find(p, word);
	*oov = id < 0;
	if (id >= 0)
		return id;
	int unk = av_params_find(p, AV_UNK);
	if (unk >= 0)
		return unk;
	return av_params_add_word(p, word, unknown_word_row(seed, word, p->d_model));
}

/* PE[pos, c] computed as the documentation says (see model.h). */
static float sinusoid(int pos, int c, int D)
{
	int two_i = c - (c % 2);
	double angle = pos / pow(10000.0, (double)two_i / D);
	return (float)(c % 2 == 0 ? sin(angle) : cos(angle));
}

/* The sinusoidal rows 0..AV_MAX_TOKENS-1 for one D, computed once: every
 * forward pass needs them, and n * D sines, cosines and powers cost more
 * than the rest of a small pass. The values are those of sinusoid(). The
 * engine is single-threaded; the table is made anew when D changes. */
static const float *sinusoid_table(int D)
{
	static float *table;
	static int table_d;
	if (table_d != D) {
		free(table);
		table = av_malloc((size_t)AV_MAX_TOKENS * D * sizeof(float));
		for (int pos = 0; pos < AV_MAX_TOKENS; pos++)
			for (int c = 0; c < D; c++)
				table[(size_t)pos * D + c] = sinusoid(pos, c, D);
		table_d = D;
	}
	return table;
}

const float *av_position_row_at(const struct av_params *p, enum av_positional kind, int pos,
				float *scratch)
{
	int D = p->d_model;
	switch (kind) {
	case AV_POS_LEARNED:
		return p->position_embedding + (size_t)pos * (size_t)D;
	case AV_POS_SINUSOIDAL:
		if (pos >= 0 && pos < AV_MAX_TOKENS)
			return sinusoid_table(D) + (size_t)pos * D;
		for (int c = 0; c < D; c++)
			scratch[c] = sinusoid(pos, c, D);
		return scratch;
	case AV_POS_NONE:
		break;
	}
	memset(scratch, 0, (size_t)D * sizeof(float));
	return scratch;
}

void av_position_row(const struct av_params *p, enum av_positional kind, int pos, float *row)
{
	const float *at = av_position_row_at(p, kind, pos, row);
	if (at != row)
		memcpy(row, at, (size_t)p->d_model * sizeof(float));
}

uint64_t av_params_print(const struct av_params *p)
{
	size_t dd = (size_t)p->d_model * (size_t)p->d_model, count = dd < 64 ? dd : 64;
	uint64_t h = av_fnv1a_bytes(&p->d_model, sizeof(p->d_model), AV_FNV_BASIS);
	if (p->w_q != NULL && p->w_k != NULL) {
		h = av_fnv1a_bytes(p->w_q, count * sizeof(float), h);
		h = av_fnv1a_bytes(p->w_k, count * sizeof(float), h);
	}
	return h;
}
