/* finite.h: finding and explaining values of a trace that are not finite
 * numbers (inf, -inf, NaN).
 *
 * They arise from legal settings: huge weights (finite values near 3e38
 * whose products overflow a 32-bit float), or large scores divided by a
 * small s*T. JSON has no inf or NaN, and a
 * table of "-nan" teaches nothing, so --dump refuses such a trace and
 * --print says what happened. The screen and the training view can use the
 * same two calls:
 *
 *     struct av_nonfinite w;
 *     if (av_trace_first_nonfinite(&s->trace, &w)) {
 *             char *why = av_nonfinite_explain(&s->trace, &w);
 *             ... show why ...
 *             free(why);
 *     }
 */
#ifndef AV_FINITE_H
#define AV_FINITE_H

#include <stdbool.h>
#include "attention.h"

/* Where the first value that is not finite is, in the order the stages are
 * computed (embedding, source_embedding, q, k, v, scores, scaled, masked,
 * weights, context, concat, output, residual), then head, row, column. */
struct av_nonfinite {
	const char *stage;   /* a --print STAGE name, e.g. "scaled" */
	int head;            /* for per-head stages (scores ... context), else -1 */
	int row, col;        /* 0-based cell of that stage's matrix */
	float value;         /* inf, -inf or NaN */
};

/* True (filling *where) if some stage of t holds a value that is not
 * finite; false if every value is a finite number. */
bool av_trace_first_nonfinite(const struct av_trace *t, struct av_nonfinite *where);

/* A sentence saying where and why, malloc'd, e.g. "the scaled stage is not
 * finite (head 0, row 0 \"a\", column 0 \"a\": inf): the scores divided by
 * s*T = 0.01 overflow a 32-bit float (the weights are too large for the
 * temperature 0.01)". Tokens are
 * escaped (av_escape). */
char *av_nonfinite_explain(const struct av_trace *t, const struct av_nonfinite *where);

/* A trace cannot be written as JSON (and would not read back) when it
 * holds inf or nan: true when it holds none, else false with *cause saying
 * where and why ("... (nothing was written: a trace holds finite numbers
 * only)"). What --dump, a --model dump and the screen's W t ask. */
bool av_trace_check_finite(const struct av_trace *t, char **cause);

/* The first tensor of p (an AV_P_* id) holding inf or nan, or -1. */
int av_params_first_nonfinite(const struct av_params *p);

/* "inf", "-inf" or "nan" (never "-nan"): how a value that is not finite is
 * written in tables and messages. NULL for a finite value. */
const char *av_nonfinite_name(double v);

#endif
