/* gpt2.h: a GPT-2 model (gpt2, distilgpt2, gpt2-medium, ...) as Hugging Face
 * publishes it, and its forward pass keeping what a viewer shows.
 *
 * Shapes: n tokens, C = n_embd, H = n_head, dh = C / H, V = n_vocab,
 * L = n_layer. Weights are GPT-2's Conv1D layout (in, out), used where they
 * lie in the mapped file (matmul.h's AV_W_IN_OUT), never transposed.
 *
 * The forward (llm.c's train_gpt2.c, and Hugging Face's GPT2Model):
 *   x = wte[ids] + wpe[0..n)
 *   per layer: a = ln_1(x); qkv = a . c_attn; per head
 *              scores = Q_h . K_h^T; weights = softmax(causal(scores / sqrt(dh)));
 *              x += (weights . V_h, heads side by side) . c_proj;
 *              x += c_proj(gelu_tanh(ln_2(x) . c_fc))
 *   logits = ln_f(x) . wte^T  (the output layer is tied to wte) */
#ifndef AV_GPT2_H
#define AV_GPT2_H

#include <stdbool.h>
#include "attention.h"
#include "bpe.h"
#include "safetensors.h"

/* The run keeps its tokens in an av_trace, whose arrays hold AV_MAX_TOKENS. */
#define AV_GPT2_MAX_TOKENS AV_MAX_TOKENS
#define AV_GPT2_MAX_LAYERS 256

struct av_gpt2_config {
	int n_layer, n_head, n_embd, n_vocab, n_ctx;
	float ln_eps;             /* layer_norm_epsilon, 1e-5 */
};

struct av_gpt2_layer {
	const float *ln_1_w, *ln_1_b;            /* (C) */
	const float *attn_w, *attn_b;            /* c_attn (C, 3C), (3C) */
	const float *attn_proj_w, *attn_proj_b;  /* attn.c_proj (C, C), (C) */
	const float *ln_2_w, *ln_2_b;            /* (C) */
	const float *fc_w, *fc_b;                /* mlp.c_fc (C, 4C), (4C) */
	const float *mlp_proj_w, *mlp_proj_b;    /* mlp.c_proj (4C, C), (C) */
};

struct av_gpt2 {
	struct av_gpt2_config cfg;
	struct av_safetensors st;    /* the mapped file the weights point into */
	struct av_bpe bpe;           /* the tokenizer (n_vocab == 0 without one) */
	const float *wte;            /* (V, C) */
	const float *wpe;            /* (n_ctx, C) */
	struct av_gpt2_layer *layers;  /* L */
	const float *ln_f_w, *ln_f_b;  /* (C) */
};

/* Loads a model directory: model.safetensors, vocab.json, merges.txt and
 * config.json when present (else n_layer, n_embd, n_vocab and n_ctx come
 * from the tensors and n_head = n_embd / 64, as in every GPT-2 size).
 * m is overwritten. Errors name the file and tensor ("DIR/model.safetensors:
 * tensor \"h.3.attn.c_attn.weight\": expected shape (768, 2304), got (768,
 * 768)"). Only the header is read: the weights stay in the page cache
 * until the forward pass touches them (a NaN weight is found then). */
bool av_gpt2_load(struct av_gpt2 *m, const char *dir, char **cause);

/* The weights alone (no tokenizer): a .safetensors file and an optional
 * config.json (NULL: inferred as above). */
bool av_gpt2_load_weights(struct av_gpt2 *m, const char *safetensors_path,
			  const char *config_path, char **cause);

void av_gpt2_free(struct av_gpt2 *m);

/* Scans every weight (touching the whole file): false, naming the first
 * tensor that holds a NaN or an infinity. av_gpt2_forward calls it when
 * its result is not finite. */
bool av_gpt2_check_finite(const struct av_gpt2 *m, char **cause);

/* One forward pass over n tokens, keeping every layer's attention. */
struct av_gpt2_run {
	int n, n_layer, n_head, n_embd, n_vocab;
	int ids[AV_GPT2_MAX_TOKENS];
	float *stream;     /* (L + 1, n, C): stream[l] is layer l's input x, stream[L] the last */
	float *qkv;        /* (L, n, 3C): per layer Q | K | V, each (n, C) by columns */
	float *scores;     /* (L, H, n, n): Q_h . K_h^T, unscaled; 0 above the diagonal */
	float *weights;    /* (L, H, n, n): softmax of the scaled, causally masked scores */
	float *logits;     /* (n, V): the next token's logits after each position */
	/* the forward's scratch, (n, AV_GPT2_WORK C), and how many tokens the
	 * arrays have room for: a run is reused by the next forward */
	float *work;
	int capacity;
};
#define AV_GPT2_WORK 7

/* Runs ids (n in 1 .. min(AV_GPT2_MAX_TOKENS, n_ctx), each < n_vocab)
 * through m into r (zeroed or used before; it is reused). m is only read:
 * the forward may run in a worker thread while the screen reads m and
 * another run. A result that is not finite is an error naming the weight
 * to blame, or the layer that overflowed; r is then freed. */
bool av_gpt2_forward(const struct av_gpt2 *m, const int *ids, int n, struct av_gpt2_run *r,
		     char **cause);

/* The most tokens a run of m takes: its positions (n_ctx), at most
 * AV_GPT2_MAX_TOKENS. */
int av_gpt2_max_tokens(const struct av_gpt2 *m);

/* text -> BPE ids (ids holds AV_GPT2_MAX_TOKENS): their count, or -1 with
 * *cause: no tokenizer, a text longer than AV_MAX_SENTENCE_BYTES, the
 * tokenizer's errors, an empty text, more tokens than av_gpt2_max_tokens
 * (said with their count, however many, and the model's limit). */
int av_gpt2_tokenize(const struct av_gpt2 *m, const char *text, int *ids, char **cause);

/* text -> av_gpt2_tokenize -> av_gpt2_forward. */
bool av_gpt2_run_text(const struct av_gpt2 *m, const char *text, struct av_gpt2_run *r,
		      char **cause);

/* Zeroes r; its arrays are kept (one run's at most, the last freed) for
 * the next forward into an empty run, until av_gpt2_free. */
void av_gpt2_run_free(struct av_gpt2_run *r);

/* A run's layer (0 .. L-1) as the single-layer trace the stepper, the
 * inspector and --dump/--print know. t is freed and refilled. Fields:
 *   tokens          the BPE pieces as av_bpe_display shows them (offsets
 *                   into the text when text is not NULL, else 0)
 *   ids             BPE ids; oov all false; cfg causal, dk scale, T = 1,
 *                   learned positions, bias, d_model C, heads H
 *   token_part, position_part   wte[ids] and wpe[0..n), the model's input
 *   layer_input     x, the stream entering this layer (layer 0: wte + wpe)
 *   embedding       ln_1(x) of this layer: what Q, K and V are made from
 *                   (for layer 0 it is NOT token_part + position_part)
 *   q, k, v ... context, concat, output   the layer's attention
 *   residual        x + output: the stream after the attention block (x is
 *                   the layer's input, r->stream[layer], before ln_1)
 * The trace must not be given to av_trace_forward / av_trace_reattend,
 * which compute a layer from av_params. */
void av_gpt2_trace_layer(const struct av_gpt2 *m, const struct av_gpt2_run *r, int layer,
			 const char *text, struct av_trace *t);

/* The k most likely next tokens after position pos (0 .. n-1), most likely
 * first: ids and probabilities (softmax over the whole vocabulary). Returns
 * the count written (min(k, V)). */
int av_gpt2_top_k(const struct av_gpt2_run *r, int pos, int k, int *ids, double *probs);

/* Kernels, exposed for the tests. */
/* out (n, C) = (x - mean) / sqrt(var + eps) * w + b, per row */
void av_gpt2_layernorm(float *out, const float *x, const float *w, const float *b, int n, int C,
		       float eps);
/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in place over count */
void av_gpt2_gelu(float *x, size_t count);

#endif
