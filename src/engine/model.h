/* model.h: the parameters of one attention layer and their initialisation.
 *
 * Layouts follow PyTorch: nn.Embedding tables are (rows, D); nn.Linear
 * weights are (out, in) = (D, D) and are applied as x . W^T + b.
 *
 * Initialisation (documented so that "seed 7" means the same numbers for
 * every student, see attnview(1)): every tensor has its own PCG32 generator,
 * av_rng_seed(seed, stream) with stream = FNV-1a of the tensor's name
 * ("position_embedding", "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o",
 * "b_o"), and the values are drawn in row-major order. Each token-embedding
 * row is drawn from its own generator, stream = FNV-1a of "token:" + word,
 * so a word has the same vector whatever else is in the vocabulary, and an
 * out-of-vocabulary word gets its row the same way. */
#ifndef AV_MODEL_H
#define AV_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "model_config.h"

#define AV_UNK "<unk>"

struct av_params {
	int d_model;                 /* D */
	int vocab_size;              /* V */
	int vocab_cap;
	char **vocab;                /* V words */
	float *token_embedding;      /* (V, D) */
	int max_positions;           /* L */
	float *position_embedding;   /* (L, D), learned positions only, else NULL */
	bool bias;
	float *w_q, *w_k, *w_v, *w_o;  /* (D, D), out x in */
	float *b_q, *b_k, *b_v, *b_o;  /* (D), or NULL without bias */
	uint64_t stamp;    /* names these values of W_q, W_k, W_v and W_o: a
			      number never given before, each time they are made
			      (init, alloc, copy, a weights file) or changed in
			      place (av_params_changed); 0 names nothing. A
			      trace keeps the copies of W^T its products need
			      while the stamp stays (matmul.h, struct av_packed) */
};

/* A stamp no parameters had before (thread-safe). */
uint64_t av_params_new_stamp(void);

/* W_q, W_k, W_v or W_o of p were written in place (a training step, a
 * tensor woken): copies of them made for the old values are stale. */
void av_params_changed(struct av_params *p);

/* Fresh parameters for cfg over the given vocabulary (may be empty). */
void av_params_init(struct av_params *p, const struct av_config *cfg,
		    const char *const *vocab, int vocab_size);

/* Empty parameters of the right sizes (all zero), vocabulary empty. */
void av_params_alloc(struct av_params *p, const struct av_config *cfg);

void av_params_free(struct av_params *p);
void av_params_copy(struct av_params *dst, const struct av_params *src);

/* Whether tensors a and b (count floats each) are both there and hold the
 * same bits. */
bool av_tensor_same(const float *a, const float *b, size_t count);

/* A fingerprint of W_q and W_k (their first 64 values) and D: enough to
 * tell whether the weights are still the ones a run left (any training
 * step or fresh draw changes them), at the cost of hashing 512 bytes.
 * Tensors not there (a trainer's put to sleep) hash as absent. */
uint64_t av_params_print(const struct av_params *p);

/* Index of word in the vocabulary, or -1. */
int av_params_find(const struct av_params *p, const char *word);

/* Appends word with the given row (D floats); returns its index. */
int av_params_add_word(struct av_params *p, const char *word, const float *row);

/* Drops the words past the first n (the rows that av_params_token_id added
 * for unknown words), so a vocabulary does not grow with every sentence. */
void av_params_truncate_vocab(struct av_params *p, int n);

/* The deterministic embedding row of a word: N(0,1) values from the
 * generator seeded with (seed, FNV-1a("token:" + word)). */
void av_word_embedding(uint64_t seed, const char *word, int d_model, float *row);

/* The id of a token: its vocabulary index; else the index of <unk> if the
 * vocabulary has one; else a new row from av_word_embedding is appended.
 * *oov is set when the word was not in the vocabulary. */
int av_params_token_id(struct av_params *p, uint64_t seed, const char *word, bool *oov);

/* Redraws the weights and biases (not the embeddings) for cfg: the "reseed"
 * of the screen and the remedies of training. */
void av_params_reinit_linear(struct av_params *p, const struct av_config *cfg);

/* Positional encoding of position pos into row (D floats): learned rows,
 * sinusoidal PE[pos,2i] = sin(pos/10000^(2i/D)), PE[pos,2i+1] = cos(...),
 * or zeros for none. */
void av_position_row(const struct av_params *p, enum av_positional kind, int pos, float *row);

/* The same row, read where it is kept (the learned table, the sinusoid
 * table) or else written into scratch (D floats): for the forward pass,
 * which would only copy it again. */
const float *av_position_row_at(const struct av_params *p, enum av_positional kind, int pos,
				float *scratch);

#endif
