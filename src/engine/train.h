/* train.h: training the attention layer so its weights move toward a target
 * pattern, as seed 001's china-panda loop does, in slices a screen can
 * drive between keystrokes.
 *
 * The loop (seed 001, section 5):
 *
 *     for epoch: total = 0
 *       for sentence in corpus order:
 *         forward; loss = mean((weights - target)^2); backward; optimiser step
 *         total += loss
 *
 * Loss: the mean squared error between the attention weights of every head
 * and the target, averaged over heads and cells: sum over h, i, j of
 * (weights[h][i][j] - target[i][j])^2 / (H n m). Hidden cells count too (their
 * weight is 0), so a target the mask hides cannot be reached; the loss of an
 * epoch is the sum of its sentences' losses (seed 001's total_loss).
 *
 * Targets, for a sentence of n query words and m key words (m = n unless
 * cross), one 1 per row and 0 elsewhere:
 *   self      query i attends to key i (seed 001's torch.eye(n)); in cross
 *             mode to key min(i, m - 1).
 *   previous  query i attends to key i - 1, the first query to key 0 (itself);
 *             in cross mode the key is min(max(i - 1, 0), m - 1).
 *   pairs     query i attends to a key holding a partner of its word from the
 *             sample's "pairs" (either order: ["china", "panda"] makes panda
 *             china's partner and china panda's); among several such keys the
 *             one nearest position i, the earlier on a tie. A word with no
 *             partner among the keys attends to itself (cross: key min(i, m-1)).
 *             In cross mode the keys are the source sentence's words.
 *
 * Optimisers, one step per sentence, over the trained tensors:
 *   adam  torch.optim.Adam(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0):
 *         m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
 *         p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 *   sgd   torch.optim.SGD(lr): p -= lr g
 * The parameters and Adam's moments are float32 and each step is computed
 * in float32, in the order of torch.optim's single-tensor path for float32
 * parameters; the gradient comes from the backward pass in double (see
 * backward.h) and is rounded to float32 for the step, as a float32 .grad.
 * Tensors the loss cannot reach (see AV_GRAD_UNUSED) get a gradient of 0,
 * which moves neither Adam nor SGD, as PyTorch skips a parameter whose
 * .grad is None; they get no moments either.
 *
 * What is trained: "qkv" (default; seed 001 trains exactly W_q, W_k, W_v) is
 * w_q, w_k, w_v and, with bias, b_q, b_k, b_v; "all" adds the token
 * embeddings, the learned position table, w_o and b_o.
 *
 * The corpus is the sample's "sentences", in order. In cross mode an entry is
 * "TARGET ||| SOURCE" (the decoder's sentence, whose words are the queries,
 * then the encoder's, whose words are the keys and values); an entry without
 * "|||" is paired with the session's source sentence. Outside cross mode only
 * the part before "|||" is used. No padding mask is applied to the corpus
 * (the session's padding mask belongs to the sentence on screen); the causal
 * mask of causal mode is.
 *
 * Using it from a screen:
 *
 *     tr = av_trainer_new(session, &settings, &cause);
 *     each frame: av_trainer_step(tr) a few times (one sentence each) or
 *                 av_trainer_epoch(tr) (one epoch); then read tr->epoch,
 *                 tr->loss[], tr->grad_norm[], tr->track_history[],
 *                 av_trainer_vocab_scores(), av_trainer_score_histogram();
 *                 av_trainer_apply(tr, session) puts the current weights in
 *                 the session and re-runs its trace (the live heatmap);
 *     keys:       av_trainer_reset, av_trainer_set_lr / _optimizer / _target /
 *                 _params / _init / _track;
 *     leaving:    av_trainer_apply(tr, session); then av_trainer_sleep(tr,
 *                 session) to keep the training for a later visit in little
 *                 memory (av_trainer_wake brings it back), or
 *                 av_trainer_free(tr).
 * Everything is read from the struct below, which callers must not write. */
#ifndef AV_TRAIN_H
#define AV_TRAIN_H

#include <stdbool.h>
#include <stdint.h>
#include "attention.h"
#include "backward.h"
#include "sample.h"
#include "session.h"
#include "trace_json.h"

/* Which tensors the optimiser moves. */
enum av_train_set { AV_TRAIN_QKV, AV_TRAIN_ALL };
extern const char *const av_train_set_names[];   /* "qkv", "all", NULL */

/* The separator of a cross-mode corpus entry, "TARGET ||| SOURCE". */

/* Gradient warnings (seed 001's print(Wq.grad), "梯度消失/爆炸"): the L2 norm
 * of a tensor's gradient at the last step. */
#define AV_GRAD_VANISHING_BELOW 1e-6
#define AV_GRAD_EXPLODING_ABOVE 1e3
enum av_grad_health {
	AV_GRAD_OK,
	AV_GRAD_VANISHING,   /* norm < AV_GRAD_VANISHING_BELOW */
	AV_GRAD_EXPLODING,   /* norm > AV_GRAD_EXPLODING_ABOVE, or not finite */
	AV_GRAD_UNUSED,      /* the loss cannot depend on it, whatever the
				weights: w_v, b_v, w_o, b_o (the loss looks at the
				attention weights only) and b_k (q.b_k adds the same
				amount to every score of a row, which the softmax
				ignores); its gradient is 0 (b_k: ~1e-17) */
	AV_GRAD_NOT_TRAINED  /* not in the trained set */
};

struct av_train_settings {
	double lr;                    /* > 0 and finite */
	enum av_optimizer optimizer;
	enum av_target target;
	enum av_train_set params;
};

/* A learning rate typed as text (--lr, the screen's prompt): a positive
 * finite number; *cause "expected a positive finite number, got \"x\""
 * (no prefix: the caller names the option or command). */
bool av_parse_lr(const char *text, double *out, char **cause);

/* beta^t carried from step to step: hi + lo (a double-double); t 0 means
 * not started (hi is then taken as 1). */
struct av_running_power {
	double hi, lo;
	long t;
};

/* beta^t, from *p (which holds beta^(p->t), or is zeroed) by multiplying
 * on, one step at a time (a zeroed *p or a smaller t starts from beta^0).
 * For Adam's bias corrections 1 - beta^t: torch computes them with Python's
 * beta ** t (C's pow), which was 6 % of a china-panda step; this product
 * keeps beta^t in two doubles (hi + lo, about 106 bits), so hi is the double
 * nearest the exact power, and 1 - hi is bit-identical to 1 - pow(beta, t)
 * for Adam's betas at every t (tests/test_train.c checks every t to 50 000;
 * past about 37 000 both powers are below 2^-54 and 1 - beta^t is exactly 1
 * either way). */
double av_running_power(struct av_running_power *p, double beta, long t);

/* lr, optimizer and target from the sample's "training"; params qkv. */
void av_train_settings_from_sample(struct av_train_settings *set,
				   const struct av_training_config *tc);

/* A change of target made during a run (av_trainer_set_target once a step
 * was taken): the losses recorded before it were measured against another
 * target, so a curve must not join them to the ones after, nor a reader
 * take the jump for training. */
struct av_target_change {
	int epoch;                   /* epochs completed then: loss[0..epoch) are
					the earlier target's */
	int item;                    /* and sentences of the next (whose total then
					mixes both targets) */
	enum av_target was;          /* the target the steps before trained toward */
	double loss;                 /* the corpus loss against the new target at
					that moment's weights */
};
#define AV_TRAIN_TARGET_CHANGES 16   /* the newest kept */

/* One corpus entry, tokenized once. */
struct av_train_item {
	char *query;                 /* the sentence (the target side in cross mode) */
	char *source;                /* cross mode: the source sentence, else NULL */
	struct av_trace trace;       /* tokens and ids; stages of its last forward pass */
	double *target;              /* (n, m) */
};

struct av_trainer {
	/* settings: change them with the setters */
	struct av_config cfg;
	struct av_train_settings set;
	int n_pairs;
	char *(*pairs)[2];           /* copies of the sample's pairs */
	char *source;                /* the session's source when made, or NULL:
					cross mode's corpus entries without their
					own source read it */

	/* the corpus */
	int n_items;
	struct av_train_item *items;
	unsigned long *forwarded;    /* forwarded[i]: params_version of item i's
					trace stages, 0 when they are stale */
	unsigned long params_version;   /* changes whenever params change */

	/* parameters */
	struct av_params start;      /* what av_trainer_reset returns to */
	struct av_params params;     /* current (float32, what the forward pass uses) */
	bool trained[AV_N_PARAMS];   /* tensors the optimiser moves (and that exist) */
	unsigned trained_ids;        /* the same as bits (1u << id), for the step */
	unsigned zeroed_grads;       /* gradients the step zeroes before the
					backward pass adds to them */
	struct av_grads grad;        /* gradient of the last step (trained tensors) */
	float *adam_m[AV_N_PARAMS], *adam_v[AV_N_PARAMS];   /* Adam's exp_avg and
					exp_avg_sq (float32) of the trained
					tensors the loss reaches, else NULL */
	bool still_nonfinite[AV_N_PARAMS];   /* a trained tensor no step moves
					holds inf/nan (found at reset) */
	float largest[AV_N_PARAMS];  /* largest finite |value| of each trained
					tensor now (kept by the steps) */
	float largest_start;         /* the same over the trained tensors of start */
	long steps;                  /* optimiser steps since the state was reset (Adam's t) */
	struct av_running_power beta1_t, beta2_t;   /* Adam's beta1^steps, beta2^steps */

	/* progress */
	int epochs_before;           /* epochs start had had before this trainer: a
					trained file's, loaded (its "epochs_before" +
					"epochs"); 0 for drawn weights */
	int epoch;                   /* epochs completed since the last reset */
	int next_item;               /* the sentence the next step trains on */
	double epoch_loss;           /* sum over the sentences of the epoch in progress */
	double last_loss;            /* loss of the last step (NAN before the first) */
	double *loss;                /* loss[e]: total loss of epoch e + 1, e < epoch */
	int loss_cap;
	struct av_target_change target_changes[AV_TRAIN_TARGET_CHANGES];   /* oldest
					first; cleared by a reset */
	int n_target_changes;
	double grad_norm[AV_N_PARAMS];  /* L2 norm of the last step's gradient, NAN
					   for tensors not trained or before a step */
	double *d_weights;           /* the step's dL/dweights, kept between steps */
	size_t d_weights_count;

	/* the tracked pair (seed 001's china -> panda score) */
	int track[2];                /* vocabulary ids (query word, key word), or -1 */
	double *track_history;       /* (epoch + 1, H): the pair's word-only score
					(av_trainer_vocab_scores: no positions) per
					head, before training and after each epoch;
					NAN for epochs before the pair was chosen */
	int track_cap;               /* rows allocated in the histories */
	/* The pair inside a training sentence: what the loss actually moves.
	 * track_item is the first corpus sentence with the query word among its
	 * queries and the key word among its visible keys (-1: none); the query
	 * position is the word's first, the key position the nearest to it (the
	 * earlier on a tie), as the pairs target picks. */
	int track_item, track_pos[2];
	double *track_cell_history;  /* (epoch + 1, H, 2): that cell's scaled score
					(the stepper's "scaled" stage, positions
					included) and its attention weight, per
					head, like track_history; NAN without a cell */

	float *scratch;              /* 4 D floats: the tracked pair's rows */

	/* asleep (av_trainer_sleep): what stands in for the freed matrices */
	bool asleep;
	bool restart_on_wake;        /* Adam's moments were freed: a fresh optimiser */
	struct av_sleeping_tensor {
		enum { AV_SLEEP_KEPT, AV_SLEEP_SESSION, AV_SLEEP_PARAMS, AV_SLEEP_FRESH } from;
		size_t count;
		uint64_t hash;       /* of the freed floats' bytes */
	} sleep_params[AV_N_PARAMS], sleep_start[AV_N_PARAMS];

	/* what happened, for av_trainer_diagnose */
	int last_item;               /* the sentence of the last step, -1 before */
	int nonfinite;               /* a trained tensor holding inf/nan after the
					last step, else -1 */
	double lr_start, lr_peak;    /* lr when the optimiser state was last reset;
					the largest lr a step used since then */
};

/* A trainer for the session's corpus (s->sample.sentences), config and
 * current parameters (s->params: the sample's, or --weights'). The session
 * is not changed and may be freed before the trainer. Words of the corpus
 * missing from the vocabulary get rows as in av_trace_run. Fails on a bad
 * setting (lr, target pairs without pairs), an empty corpus or an entry that
 * cannot be run (too long, cross mode without a source: "sentences, item 2:
 * ..."). The tracked pair is the sample's "track", else its first pair, else
 * none. */
struct av_trainer *av_trainer_new(const struct av_session *s,
				  const struct av_train_settings *set, char **cause);
void av_trainer_free(struct av_trainer *tr);

/* One optimiser step on the next sentence. Returns true when it completed an
 * epoch (the epoch's loss is then tr->loss[tr->epoch - 1]). */
bool av_trainer_step(struct av_trainer *tr);

/* Steps to the end of the epoch in progress (a whole epoch at a boundary);
 * returns the epoch's loss. */
double av_trainer_epoch(struct av_trainer *tr);

/* The most sentences a run trains on: the sample's "sentences", each a
 * JSON value of a sample file of at most AV_MAX_TEXT_FILE bytes, which
 * holds at most AV_JSON_MAX_VALUES of them (json_read.h): 174762. A
 * corpus sentence's index (the training view's sentence on the map) is
 * below it. */
#define AV_TRAIN_MAX_SENTENCES ((int)(((size_t)1 << 20) / 6))

/* The most steps a run takes into an epoch, what a training record's
 * "steps" counts (the screen's "trained 2 ep+1"): one per training sentence
 * done, so fewer than the corpus's sentences: 174761. */
#define AV_TRAIN_MAX_STEPS (AV_TRAIN_MAX_SENTENCES - 1)

/* The histories kept per epoch (the loss, the tracked pair's score and cell
 * per head: 8 + 24 H bytes) stay within this: a run left going (a class's
 * screen overnight) took 5 MB a minute at D=512, H=8. */
#define AV_TRAIN_HISTORY_BYTES ((size_t)64 << 20)
#define AV_TRAIN_EPOCH_HISTORY_BYTES(heads) (sizeof(double) * (1 + 3 * (size_t)(heads)))

/* The most epochs a run of tr's model keeps within AV_TRAIN_HISTORY_BYTES
 * (2 097 152 at H=1, 335 544 at H=8); the training view stops there and
 * --train refuses more. */
int av_trainer_max_epochs(const struct av_trainer *tr);

/* The most epochs any one run trains: av_trainer_max_epochs of a model of
 * one head, 2 097 152. What a training record's "epochs" counts (the
 * epochs before it add up over runs, to at most INT_MAX: av_epochs_sum). */
#define AV_TRAIN_MAX_EPOCHS ((int)(AV_TRAIN_HISTORY_BYTES / AV_TRAIN_EPOCH_HISTORY_BYTES(1)))

/* before + epochs, at most INT_MAX: an epoch count that goes on from
 * another ("trained 200+3 ep"), whatever a file claimed. Both >= 0. */
int av_epochs_sum(int before, int epochs);

/* Whether the loss or a trained weight stopped being a number: a run that
 * cannot go on (the training view stops; r resets). */
bool av_trainer_diverged(const struct av_trainer *tr);

/* Back to the starting parameters: optimiser state, epoch, loss history and
 * tracked history cleared; settings kept. */
void av_trainer_reset(struct av_trainer *tr);

/* Setters; each takes effect at the next step.
 *   lr:        keeps the optimiser state (like changing param_groups' lr).
 *   optimizer: resets the optimiser state (a fresh torch optimiser).
 *   target:    recomputes the targets; progress and history continue, so the
 *              loss curve shows the change, which is noted in
 *              tr->target_changes once a step was taken (changes with no step
 *              between them are one; one back to the target the steps trained
 *              toward is none). Fails for pairs without pairs.
 *   params:    which tensors are trained; resets the optimiser state.
 *   init:      re-draws the trained weight matrices and biases as
 *              av_params_reinit_linear does for cfg.seed and this init
 *              (normal = N(0,1) as torch.randn, xavier = Glorot uniform,
 *              torch = nn.Linear's default); untrained tensors keep their
 *              values; the result becomes the new start and the trainer is
 *              reset (seed 001's remedy "use Xavier initialisation").
 *   track:     vocabulary ids a, b (-1, -1 for none); the history restarts at
 *              the current epoch (earlier entries NAN).
 * Setters return false (and change nothing) on a bad value. */
bool av_trainer_set_lr(struct av_trainer *tr, double lr, char **cause);
void av_trainer_set_optimizer(struct av_trainer *tr, enum av_optimizer optimizer);
bool av_trainer_set_target(struct av_trainer *tr, enum av_target target, char **cause);
void av_trainer_set_params(struct av_trainer *tr, enum av_train_set params);
void av_trainer_set_init(struct av_trainer *tr, enum av_init init);
bool av_trainer_set_track(struct av_trainer *tr, int a, int b, char **cause);

/* The corpus loss at the current parameters against the current target:
 * the sum of the sentences' losses (an epoch's total_loss, were its steps
 * taken without moving the weights). Runs the sentences forward as needed. */
double av_trainer_corpus_loss(struct av_trainer *tr);

/* The newest target change, or NULL. */
const struct av_target_change *av_trainer_target_change(const struct av_trainer *tr);

/* Whether the corpus learned the current target: the last epoch that trained
 * toward it (wholly or partly) has below 1/1000 of the loss the target
 * started from (epoch 1's, or the corpus loss at the target's change). */
bool av_trainer_corpus_learned(const struct av_trainer *tr);

/* The vocabulary score matrix, out (H, V, V) with V = tr->params.vocab_size:
 *   out[h][a][b] = q_h(a) . k_h(b) / (s T)
 * with q(a) = x(a) W_q^T + b_q, k(b) = x(b) W_k^T + b_k, h's columns, s T
 * the divisor of the scaled stage (sqrt(dh) by default), and x(a) the word's
 * token embedding alone (at_position_0 false: seed 001's china_q =
 * project(china_embed, Wq), no position) or plus the position-0 encoding
 * (true: both words as if first in a sentence). This is the score of the
 * "scaled" stage that a (query a, key b) cell would get. */
void av_trainer_vocab_scores(const struct av_trainer *tr, bool at_position_0, float *out);

/* The tracked pair's word-only score for head h now (NAN without a pair). */
double av_trainer_track_score(const struct av_trainer *tr, int h);

/* Whether the tracked pair has no cell only because the mask hides it:
 * some training sentence holds both words, but every such cell is hidden
 * (china -> panda under the causal mask, china coming first). */
bool av_trainer_track_hidden(const struct av_trainer *tr);

/* The tracked pair's cell in its training sentence for head h at the
 * current parameters (runs that sentence forward): *scaled is the scaled
 * stage's score (q.k / (s T), positions included, what the stepper shows
 * for that sentence), *weight its attention weight. False (NAN, NAN)
 * without a cell (tr->track_item < 0). */
bool av_trainer_track_cell(struct av_trainer *tr, int h, double *scaled, double *weight);

/* Every visible score of the "scaled" stage (what seed 001's plt.hist draws:
 * its scores are already divided by the scale), for every head of every
 * corpus sentence at the current parameters: a malloc'd array, *count
 * values. Runs the forward pass over the corpus. */
float *av_trainer_scores(struct av_trainer *tr, int *count);

/* Counts values into bins equal bins over [*lo, *hi] = [min, max] of the
 * finite values (the last bin includes max; when all are equal, or none is
 * finite, they go to the middle bin and lo = hi, 0 when none is finite).
 * Overflowed values still count where they belong: -inf in the first bin,
 * +inf in the last; NaN in none (so the counts may sum to less than n). */
void av_histogram(const float *values, int n, int bins, int *counts, double *lo, double *hi);

/* av_trainer_scores binned with av_histogram; returns the number of values. */
int av_trainer_score_histogram(struct av_trainer *tr, int bins, int *counts,
			       double *lo, double *hi);

/* Classifies the last step's gradient of tensor id (see enum av_grad_health). */
enum av_grad_health av_trainer_grad_health(const struct av_trainer *tr, int id);

/* What went wrong, if anything, and why (the training view's advice). */
enum av_train_trouble {
	AV_TROUBLE_NONE,
	AV_TROUBLE_LEARNED,     /* gradients ~0 because the loss is ~0: the last
				   step's below AV_LEARNED_BELOW, or
				   av_trainer_corpus_learned */
	AV_TROUBLE_NONFINITE,   /* the loss or a trained tensor is inf or nan */
	AV_TROUBLE_SATURATED,   /* the softmax is saturated: half the rows or
				   more one-hot while the loss is not ~0, and
				   the gradients vanish or some |score| is
				   above AV_SATURATED_SCORE; a larger lr
				   cannot help */
	AV_TROUBLE_EXPLODING,   /* a gradient norm above AV_GRAD_EXPLODING_ABOVE */
	AV_TROUBLE_VANISHING,   /* gradients ~0 while the rows are not one-hot
				   (scores alike: seed 001's xavier / lr up) */
};
enum av_train_cause {
	AV_CAUSE_UNKNOWN,
	AV_CAUSE_LR,            /* the lr was raised (x4 or more since the optimiser
				   started), or is large (adam > 0.5, sgd > 10);
				   for VANISHING: small (adam < 1e-4, sgd < 1e-2) */
	AV_CAUSE_TEMPERATURE,   /* T < 0.2 (sharp: saturates, overflows) or, for
				   VANISHING, T > 5 (flat) */
	AV_CAUSE_WEIGHTS,       /* the trained weights are large (max |w| > 10) or,
				   for VANISHING, the init */
};
struct av_train_diagnosis {
	enum av_train_trouble trouble;
	enum av_train_cause cause;
	double max_score;       /* largest finite |scaled score| of the corpus */
	double one_hot;         /* share of the visible rows (every head) whose
				   largest weight is above 0.999 */
	double max_param;       /* largest finite |value| of the trained tensors,
				   now or at the start (r's weights) */
	int param;              /* NONFINITE: the tensor, -1 when only the loss */
};
#define AV_ONE_HOT_ABOVE 0.999
#define AV_LEARNED_BELOW 1e-4
#define AV_SATURATED_SCORE 50.0
#define AV_TEMPERATURE_SHARP 0.2
#define AV_TEMPERATURE_FLAT 5.0
#define AV_LARGE_WEIGHT 10.0

/* Looks at the last step and the corpus traces as they are (run them first,
 * e.g. with av_trainer_scores) and fills d. */
void av_trainer_diagnose(const struct av_trainer *tr, struct av_train_diagnosis *d);

/* Copies the current parameters into s->params and re-runs its trace. */
bool av_trainer_apply(const struct av_trainer *tr, struct av_session *s, char **cause);

/* Sleeping: what the training view does not need while the person is
 * elsewhere, freed. Call after av_trainer_apply(tr, s), with s holding the
 * trainer's weights. Freed: dL/dweights, the corpus's traces (their stages and tokens; the sentences and targets
 * stay), the weight matrices of the current parameters (s holds them) and
 * of the starting ones (s holds them too when untrained, else they are
 * drawn again as av_session_reinit does, or kept when neither gives them
 * back), and Adam's moments with the gradients and the backward's scratch
 * when the moments take AV_TRAIN_KEEP_MOMENTS_BELOW bytes or more: the
 * optimiser then restarts (tr->steps is 0 from here, as after
 * av_trainer_set_optimizer). Settings, progress and histories stay;
 * while asleep, read only those (epoch, next_item, steps, set, cfg, loss,
 * track histories), av_trainer_tensor_is and av_trainer_record. Returns
 * whether the optimiser restarts. */
#define AV_TRAIN_KEEP_MOMENTS_BELOW ((size_t)256 * 1024)
bool av_trainer_sleep(struct av_trainer *tr, const struct av_session *s);

/* Back from sleep: the matrices from s (which must hold the same weights
 * and config as when tr fell asleep: checked by their hashes) and from a
 * fresh draw, the traces run again and, after a restart, a fresh optimiser
 * (its gradients and moments) allocated. False + *cause when s no longer gives the
 * trainer's weights back: tr is then unusable, free it. */
bool av_trainer_wake(struct av_trainer *tr, const struct av_session *s, char **cause);

/* Whether tensor id of the current parameters holds exactly x (count
 * floats); asleep, a freed matrix is compared by its hash. */
bool av_trainer_tensor_is(const struct av_trainer *tr, int id, const float *x, size_t count);

/* The "training" object of a trace: tr->epoch epochs, its settings, tr->loss
 * (valid while tr is unchanged), and tr->epochs_before. */
void av_trainer_record(const struct av_trainer *tr, struct av_training_record *r);

/* The pieces, exposed for the tests. */

/* Fills target (n, m) for query words q and key words k (see above). */
void av_attention_target(double *target, enum av_target kind, bool cross,
			 char *const *q, int n, char *const *k, int m,
			 char *const (*pairs)[2], int n_pairs);

/* mean over h, i, j of (weights - target)^2 (weights (H, n, m), target
 * (n, m)); d_weights (H, n, m), if not NULL, is set to its gradient. */
double av_attention_loss(const float *weights, const double *target, int H, int n, int m,
			 double *d_weights);

#endif
