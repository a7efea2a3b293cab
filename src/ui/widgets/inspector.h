/* inspector.h: how a number on the screen was computed, as text. No curses:
 * these are pure functions of the trace (and the parameters), so the tests
 * can check them, and the screen only prints what they return.
 *
 * The inspector re-derives the cell's value from the stage's inputs (the
 * dot product term by term, the division, the exponentials of the row, the
 * weighted sum of value rows) and reports both that value and the one the
 * trace holds: the unit tests check that the two agree, which keeps the
 * "no maths in the UI" rule honest. */
#ifndef AV_UI_INSPECTOR_H
#define AV_UI_INSPECTOR_H

#include <stdbool.h>
#include "attention.h"
#include "ui/stages.h"

#define AV_INSP_MAX_LINES 12

struct av_insp {
	int n;
	char *line[AV_INSP_MAX_LINES];  /* malloc'd UTF-8, most important first */
	bool derived_ok;                /* the value was re-derived ... */
	double derived;                 /* ... as this */
	double stored;                  /* the value the trace holds */
	char *heading_short;            /* line[0] with "head 0/2" for "head 0 of
					 * 2", or NULL: av_insp_fit_heading */
	int terms_left;                 /* terms its sums left out ("… (+2
					 * terms)"); 0: every sum whole */
};

/* A projection's weights as the inspector reads them: output o's weight
 * for input k is w[o * out_stride + k * in_stride] (nn.Linear's (out, in)
 * matrix: D and 1; a block of GPT-2's Conv1D (in, out) matrix: 1 and its
 * row length), its bias b[o] (b NULL: none). w NULL: not known, the
 * formula alone is shown. */
struct av_insp_linear {
	const float *w, *b;
	size_t out_stride, in_stride;
};

/* The four projections of a layer: Q, K, V and the output; a model's
 * layer also its ln_1 weight γ and bias β, (D) each, so that X = ln_1(x)
 * can be checked by hand (NULL: not known, γ·z + β is named only). */
struct av_insp_weights {
	struct av_insp_linear q, k, v, o;
	const float *ln_gamma, *ln_beta;
};

/* Those of attnview's own layer, from p (may be NULL: none known). */
void av_insp_weights_of(struct av_insp_weights *out, const struct av_params *p);

/* Explains cell (r, c) of part (one of av_ui_stage_parts(t, ..., head)).
 * p gives the weights for the projections (may be NULL: then only the
 * value is shown). width is the line width the text should fit: long sums
 * are shortened to "… (+56 terms)". */
void av_insp_cell(struct av_insp *out, const struct av_trace *t, const struct av_params *p,
		  const struct av_part *part, int head, int r, int c, int width);

/* av_insp_cell with the projections' weights given apart from p (a model's
 * layer, --model, whose weights are not an av_params). */
void av_insp_cell_weights(struct av_insp *out, const struct av_trace *t,
			  const struct av_params *p, const struct av_insp_weights *wts,
			  const struct av_part *part, int head, int r, int c, int width);

/* Explains token i of the sentence (or of the source, in cross mode). */
void av_insp_token(struct av_insp *out, const struct av_trace *t, const struct av_params *p,
		   bool source, int i, int width);

/* The bytes of a model's tokens (--model), whose labels in t->tokens are
 * for the eye (av_bpe_display: "<e7>", "␣"): token i stands for
 * bytes[start[i] .. start[i + 1]), all n one after another, so that a
 * character split across tokens is found whole. */
struct av_insp_bytes {
	const unsigned char *bytes;
	const int *start;   /* n + 1 offsets */
	int n;
};

/* Explains token i of a model's sentence by its bytes, not its label: the
 * label and the vocabulary row; how many bytes and which (hex); the whole
 * characters they make (code points, columns); each piece of a character
 * split across tokens (which bytes of which character, the tokens that
 * share it); how the label shows spaces and control characters. */
void av_insp_piece(struct av_insp *out, const struct av_trace *t, const struct av_insp_bytes *raw,
		   int i, int width);

void av_insp_free(struct av_insp *in);

/* The heading (line 0) in one row of width columns when its shorter form
 * fits there and it does not: "head 0 of 2" wrapped as "head 0 of" / "2"
 * at 60 columns. Otherwise it stays, to be word-wrapped. */
void av_insp_fit_heading(struct av_insp *in, int width);

/* The one-line formula of a stage, with the numbers of this trace, e.g.
 * "scaled = scores / √dk = scores / 2.000". malloc'd. */
char *av_insp_formula(const struct av_trace *t, enum av_stage st, int head);

/* The shapes of what the stage shows (seed 000's print_tensor_info), e.g.
 * "Q_h (4, 4) · K_hᵀ (4, 4) → scores_h (4, 4)". malloc'd. */
char *av_insp_shapes(const struct av_trace *t, enum av_stage st, int head);

/* The sum of row r of a part (the softmax stage shows it next to the row). */
double av_insp_row_sum(const struct av_part *part, int r);

/* A number the way the inspector writes it: "0.123", "−12.500", "1.2e+20",
 * "inf", "nan", with U+2212 for its minus as every number on the screen
 * (the screen shows '-' for it in ASCII locales). Screen text only: files
 * keep '-'. */
void av_insp_number(char *buf, size_t size, double v);

#endif
