/* session.h: everything one attnview run works on — the sample, the layer's
 * config and parameters, the sentences, the padding mask — and the trace
 * computed from them. The command line builds one; the screen changes it
 * (edit the sentence, toggle the mask, cycle the mode) and re-runs it. */
#ifndef AV_SESSION_H
#define AV_SESSION_H

#include <stdbool.h>
#include "attention.h"
#include "sample.h"
#include "weights.h"

struct av_session {
	struct av_sample sample;
	struct av_config cfg;
	struct av_params params;        /* current parameters (trained or not) */
	struct av_params initial;       /* as loaded, for reset: only when from_weights
					 * (drawn ones are drawn again from the seed) */
	bool from_weights;              /* params came from --weights */
	struct av_loaded_training loaded_training;  /* that file's "training" */
	int base_vocab;                 /* words before any run added unknown ones */
	char *sentence;
	char *source;                   /* NULL when there is none */
	bool key_hidden[AV_MAX_TOKENS]; /* padding mask by key position */
	struct av_trace trace;          /* valid after a successful av_session_run */
	unsigned long forward_runs;     /* full forward passes tried (av_session_run):
					   what a burst of typed keys costs */
	bool keeps_copies;              /* keep the copies of W^T between runs
					   (trace.keeps_packed): set by the
					   screen, which runs again at each key
					   with the same weights; not by a batch
					   run (one pass: a kept copy would only
					   add to its peak) nor by a classroom's
					   follower (one of 300 on a server:
					   4 MB each at D=512, 17 tokens) */
};

/* Call once the sample, cfg and params are in place: keeps a copy of the
 * parameters for resets and records the vocabulary as it is before any run. */
void av_session_start(struct av_session *s);

/* The "training" record of the weights file the parameters came from, while
 * they are still its (W_q and W_k as loaded: training, r or :seed change
 * them), into *r (its loss, when the file had one, is the session's and
 * valid until av_session_free); false otherwise. */
bool av_session_loaded_training(const struct av_session *s, struct av_training_record *r);

/* Runs the forward pass for the session's current settings. On failure the
 * previous trace is kept and *cause says why. Rows added for unknown words by
 * an earlier run are dropped first (they come back identically: model.c
 * keeps the rows it drew), so the trace flags every unknown word and typing
 * does not grow the vocabulary. */
bool av_session_run(struct av_session *s, char **cause);

/* The trace the session's sentence, source, mask and config give under
 * parameters p instead of its own, leaving the session as it is: the
 * training view's W t writes the trainer's weights as t back to the
 * stepper would run them. *t (zeroed here) and *used (a copy of p, with
 * the rows of unknown words that run added) are the caller's to free with
 * av_trace_free and av_params_free; on failure nothing is left to free and
 * *cause says why. */
bool av_session_run_params(const struct av_session *s, const struct av_params *p,
			   struct av_trace *t, struct av_params *used, char **cause);

/* The same after a change that leaves Q, K and V as they are: the mode
 * between self and causal, key_hidden, heads, scale or temperature. Falls
 * back to av_session_run when more changed. */
bool av_session_reattend(struct av_session *s, char **cause);
/* The same, leaving the output projection for av_trace_finish (see
 * av_trace_reattend_weights). */
bool av_session_reattend_weights(struct av_session *s, char **cause);
/* The run and the reattend up to the attention weights, leaving V's
 * weighted sums and the output (and after a run V itself) for
 * av_trace_finish (av_trace_run_attention, av_trace_reattend_attention). */
bool av_session_run_attention(struct av_session *s, char **cause);
bool av_session_reattend_attention(struct av_session *s, char **cause);

/* Replaces the sentence (or the source) and re-runs; on failure the old text
 * and trace stay. Key positions past the new length are unmasked. */
bool av_session_set_sentence(struct av_session *s, const char *sentence, char **cause);
bool av_session_set_source(struct av_session *s, const char *source, char **cause);
/* Either of them (source true: the source); attention_only: the run stops
 * at the weights (av_session_run_attention), for the screen's editor
 * before the context stage. */
bool av_session_set_text(struct av_session *s, bool source, const char *text,
			 bool attention_only, char **cause);

/* Re-draws parameters for the current config (a new seed or init); the
 * vocabulary is kept. Loaded weights are replaced too. */
void av_session_reinit(struct av_session *s);

void av_session_free(struct av_session *s);

#endif
