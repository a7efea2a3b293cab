/* attention.h: the forward pass of one multi-head attention layer, keeping
 * every stage so the screen can show it and the backward pass can use it.
 *
 * Shapes: n query tokens, m key tokens (m = n unless mode is cross), D model
 * width, H heads, dh = D / H. Per-head tensors are stored head after head:
 * scores[h] is the (n, m) block at scores + h*n*m. */
#ifndef AV_ATTENTION_H
#define AV_ATTENTION_H

#include <stdbool.h>
#include "matmul.h"
#include "model.h"
#include "tokenizer.h"

/* The value written into hidden cells, as seed 000's masked_fill. */
#define AV_MASKED_VALUE (-1e20f)

struct av_trace {
	int n, m, d_model, heads, head_dim;
	struct av_config cfg;            /* the config this trace was made with */
	double divisor;                  /* s * T of the scaled stage */

	struct av_tokens tokens;         /* query side (the sentence) */
	struct av_tokens source_tokens;  /* key side in cross mode, else n = 0 */
	int ids[AV_MAX_TOKENS];          /* vocabulary rows of tokens */
	int source_ids[AV_MAX_TOKENS];
	bool oov[AV_MAX_TOKENS];
	bool source_oov[AV_MAX_TOKENS];
	bool key_hidden[AV_MAX_TOKENS];  /* padding mask over key positions */

	float *token_part;        /* (n, D) token_embedding[ids] */
	float *position_part;     /* (n, D) position(pos) */
	float *embedding;         /* (n, D) X = token_part + position_part */
	float *layer_input;       /* (n, D) a model's layer (--model): its input x,
				     the residual stream before ln_1; embedding
				     is then ln_1(x) and residual x + output.
				     NULL for attnview's own layer */
	double layer_norm_eps;    /* with layer_input: ln_1's epsilon */
	float *source_embedding;  /* (m, D) cross only, else NULL (keys use X) */
	float *q;                 /* (n, D) X . W_q^T + b_q */
	float *k;                 /* (m, D) Xs . W_k^T + b_k */
	float *v;                 /* (m, D) Xs . W_v^T + b_v */
	unsigned char *mask;      /* (n, m) 1 = visible */
	bool row_hidden[AV_MAX_TOKENS];  /* every key of this query is hidden */
	float *scores;            /* (H, n, m) Q_h . K_h^T */
	float *scaled;            /* (H, n, m) scores / (s T) */
	float *masked;            /* (H, n, m) scaled, hidden cells = -1e20 */
	float *weights;           /* (H, n, m) softmax(masked) per row */
	double *kept_softmax;     /* (H, n, m) where m <= AV_KEPT_SOFTMAX_COLS,
				     else NULL: the rows in double, of which
				     weights are the rounding; the backward
				     reads them instead of redoing the exps */
	float *context;           /* (H, n, dh) weights_h . V_h */
	float *concat;            /* (n, D) heads side by side */
	float *output;            /* (n, D) concat . W_o^T + b_o */
	float *residual;          /* (n, D) output + X */
	bool output_pending;      /* output and residual wait for av_trace_finish */
	bool values_pending;      /* so do v, context and concat (and output) */
	bool context_pending;     /* context and concat (and output) wait; v is
				     up to date */
	bool keeps_packed;           /* keep packed[] between runs: set by the
					session, whose trace is run again at
					each key with the same weights; a
					trainer's, whose weights change at every
					step, would only hold the memory */
	struct av_packed packed[4];  /* W_q, W_k, W_v and W_o as their products
					copy them (matmul.h), kept for the next
					run while the weights stay the same */
};

/* A published model's layer (--model), not attnview's own: X is ln_1 of the
 * stream x coming in (layer_input), the skip connection adds x, the tokens
 * are BPE pieces, and the temperature stays at 1, as the model was trained.
 * The screen's words for a stage follow this. */
static inline bool av_trace_is_model_layer(const struct av_trace *t)
{
	return t->layer_input != NULL;
}

/* Tokenizes sentence (and source, in cross mode), looks the tokens up in p
 * (adding deterministic rows for unknown words, see model.h), applies the
 * padding mask hidden_keys (key positions, may be NULL / 0) and runs the
 * forward pass. t must be zeroed or previously used by av_trace_run; it is
 * reused. Errors: tokenizer errors, cross mode without a source, a hidden
 * key position the key sentence does not have, a sentence longer than the
 * learned position table, config errors. */
bool av_trace_run(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
		  const char *sentence, const char *source,
		  const int *hidden_keys, int n_hidden, char **cause);

/* av_trace_run up to the attention weights: v, context, concat, output and
 * residual are left for av_trace_finish. For the screen before its context
 * stage, which shows none of them (a typed character at D=512, n=64: V and
 * the output are two 64 x 512 x 512 products), so they run after the
 * repaint. */
bool av_trace_run_attention(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
			    const char *sentence, const char *source,
			    const int *hidden_keys, int n_hidden, char **cause);

/* Recomputes every stage from the embeddings on, for the tokens, ids and
 * key_hidden already in t (after the screen toggles the mask, for instance).
 * cfg may differ from t->cfg in mode (not cross <-> non-cross), scale,
 * temperature and heads. */
void av_trace_forward(struct av_trace *t, const struct av_params *p, const struct av_config *cfg);

/* av_trace_forward up to the attention weights: v, context, concat, output
 * and residual are left for av_trace_finish (values_pending and
 * output_pending). For the trainer: a loss on the weights never reads the
 * value path, which is half of a D=3 forward (issue 11). A later reattend
 * computes what it left. */
void av_trace_forward_weights(struct av_trace *t, const struct av_params *p,
			      const struct av_config *cfg);

/* n D D and n m dk at most: a small layer, whose products all go to the
 * plain kernel (matmul.h) */
#define AV_FUSED_MOST AV_MATMUL_PLAIN_MOST

/* The fused passes of small layers: av_trace_forward_weights and
 * av_trace_backward take them where they fit (the trainer's layers: every
 * product on the plain kernel, a loss on the weights alone), with the very
 * bits of the staged passes and fewer instructions (issue 11: at D=3 the
 * staged passes' calls, checks and scratch were an eighth of a training
 * step's instructions).
 * on is true; tests turn it off to compare the two, and read the counts to
 * know the fused passes ran. Only the trainer's thread takes them (a
 * published model's layers, the model worker's, never fit). */
struct av_fused_passes {
	bool on;
	unsigned long forwards, backwards;   /* passes taken */
};
extern struct av_fused_passes av_fused;

/* Recomputes only the stages from the mask on (mask, scores ... residual),
 * keeping the embeddings and Q, K, V: for a change of mode between self and
 * causal, of key_hidden, heads, scale or temperature. Four times cheaper at
 * D=512 than av_trace_forward. cfg must keep d_model, positional and
 * whether keys come from a source (cross). */
bool av_trace_reattend(struct av_trace *t, const struct av_params *p,
		       const struct av_config *cfg, char **cause);

/* av_trace_reattend up to concat: output and residual are left for
 * av_trace_finish (output_pending), which must run before anything reads
 * them. For the screen: at D=512 the output projection is half of a mask
 * key's work, and the softmax stage does not show it, so it runs after the
 * repaint (issue 11). */
bool av_trace_reattend_weights(struct av_trace *t, const struct av_params *p,
			       const struct av_config *cfg, char **cause);

/* av_trace_reattend up to the weights: the weighted sums of V (context,
 * concat) and the output wait for av_trace_finish (context_pending), V
 * itself is kept. For the screen before its context stage: a mask key at
 * n=64 and H=8 spares eight 64 x 64 x 64 products until after the
 * repaint. */
bool av_trace_reattend_attention(struct av_trace *t, const struct av_params *p,
				 const struct av_config *cfg, char **cause);

/* Computes what a pass that stopped early left: v, context and concat
 * (av_trace_finish_context), then output and residual (av_trace_finish). */
void av_trace_finish_context(struct av_trace *t, const struct av_params *p);
void av_trace_finish(struct av_trace *t, const struct av_params *p);

void av_trace_free(struct av_trace *t);

/* Kernels, exposed for the tests and the backward pass. */

/* out (n, out_dim) = x (n, in_dim) . w^T (w is out_dim x in_dim) + b (may be NULL) */
void av_linear(float *out, const float *x, const float *w, const float *b,
	       int n, int in_dim, int out_dim);

/* Rows of at most this many columns take their softmax in double and round
 * it (a short row's exps cost less by libm than by the AVX2 polynomial's
 * setup), and a trace keeps the doubles for the backward pass, which needs
 * them (backward.h): at china-panda's rows of two this halves the softmax
 * work of a training step (issue 11). Longer rows are computed in float32
 * by AVX2 where the CPU has it, as PyTorch's CPU softmax is. */
#define AV_KEPT_SOFTMAX_COLS 4

/* Whether a mask row (may be NULL: every key visible) shows any of its
 * cols keys: a softmax row exists only then. */
static inline bool av_mask_row_visible(const unsigned char *mrow, int cols)
{
	for (int j = 0; mrow && j < cols; j++)
		if (mrow[j])
			return true;
	return !mrow;
}

/* Stable softmax of one row of cols values into p (double), max subtracted.
 * Returns false, leaving p untouched, when mrow (may be NULL) hides every
 * key: then no distribution exists. Shared by the forward and backward
 * passes so both see the same probabilities. */
bool av_softmax_row(double *p, const float *row, const unsigned char *mrow, int cols);

/* scores_h (n, m) = Q_h (n, dh) . K_h^T, where Q_h and K_h are columns
 * h*dh .. (h+1)*dh-1 of q (n, D) and k (m, D). */
void av_head_scores(float *scores, const float *q, const float *k,
		    int n, int m, int D, int h, int dh);

/* Row-wise stable softmax of a (rows, cols) matrix; rows whose mask row is
 * all hidden (mask may be NULL) become all zero. */
void av_softmax_rows(float *out, const float *in, const unsigned char *mask, int rows, int cols);

#endif
