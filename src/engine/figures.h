/* figures.h: the numbers behind the tutorials' figures that the stepper
 * does not compute for the session: seed 000's tril mask as a 0/1 matrix,
 * and the same sentence run through the three attention kinds (§3 and
 * §4.2), each in a trace of its own so the session's trace is untouched;
 * and the list of figures that the screen and lessons name. No curses. */
#ifndef AV_FIGURES_H
#define AV_FIGURES_H

#include <stdbool.h>
#include "attention.h"
#include "i18n.h"

/* The figures, in the order the figures view (F) shows them and lesson
 * files number them ("figure": 1 is TRIL). */
#define AV_FIGURES(X) \
	X(TRIL, N_("tril mask")) \
	X(MASKING, N_("scaled|mask|masked")) \
	X(KINDS, N_("three kinds")) \
	X(WEIGHTS, "W_q W_k W_v W_o")

enum av_figure_kind {
#define AV_FIGURE_ENUM(name, brief) AV_FIG_##name,
	AV_FIGURES(AV_FIGURE_ENUM)
#undef AV_FIGURE_ENUM
	AV_FIG_COUNT
};


/* out (n, n) = torch.tril(torch.ones(n, n)): 1 on and below the diagonal
 * (query i sees keys 0..i), 0 above. */
void av_tril_ones(float *out, int n);

/* Seed 000's three kinds for one sentence, with the same parameters:
 * encoder self-attention, decoder masked (causal) self-attention, and
 * encoder-decoder (cross) attention, whose queries come from the sentence
 * and keys and values from a source. */
struct av_attention_kinds {
	struct av_trace self, causal, cross;
	bool source_is_sentence;   /* no source: the sentence is its own source */
};

/* Runs the three with a copy of p (unknown words add rows to the copy, not
 * to p) under cfg (its mode is ignored). source may be NULL or empty: then
 * the sentence is its own source. key_hidden (may be NULL) is the padding
 * mask over the sentence's keys, applied to self and causal. k must be
 * zeroed or used before; on failure *cause says why. */
bool av_attention_kinds_run(struct av_attention_kinds *k, const struct av_params *p,
			    const struct av_config *cfg, const char *sentence,
			    const char *source, const bool *key_hidden, char **cause);

void av_attention_kinds_free(struct av_attention_kinds *k);

#endif
