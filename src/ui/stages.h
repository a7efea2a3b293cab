/* stages.h: the matrices ("parts") each stage of the stepper shows (the
 * stages themselves are engine/stage_list.h), as windows into a trace's
 * buffers. No curses and no maths here: a part only points at numbers the
 * engine computed.
 *
 * A part is a (rows, cols) block: cell (r, c) is data[r * stride + c]. Rows
 * are query tokens or key tokens; columns are key tokens or dimensions. */
#ifndef AV_UI_STAGES_H
#define AV_UI_STAGES_H

#include <stdbool.h>
#include "attention.h"
#include "i18n.h"
#include "stage_list.h"

extern const char *const av_ui_stage_titles[];    /* "tokens", ... */
extern const char *const av_ui_stage_purposes[];
/* What each stage means, for someone who knows vectors and matrices but
 * not attention (NULL: the stage has none); untranslated, through _(). */
extern const char *const av_ui_stage_meanings[];
extern const char *const av_ui_meaning_no_positions;   /* --positional none */
extern const char *const av_ui_meaning_cross_projection;

/* Which trace tensor a part shows (the inspector explains each). */
enum av_tensor {
	AV_T_TOKEN_PART, AV_T_POSITION_PART, AV_T_EMBEDDING, AV_T_SOURCE_EMBEDDING,
	AV_T_LAYER_INPUT,                 /* a model layer's x, before ln_1 */
	AV_T_Q, AV_T_K, AV_T_V,
	AV_T_SCORES, AV_T_SCALED, AV_T_MASKED, AV_T_WEIGHTS,
	AV_T_CONTEXT, AV_T_V_HEAD,
	AV_T_CONCAT, AV_T_OUTPUT, AV_T_RESIDUAL,
	AV_T_Q_HEAD, AV_T_K_HEAD_T        /* the factors of the scores (Q_h, K_hᵀ) */
};

enum av_part_kind { AV_PART_SIGNED, AV_PART_WEIGHTS };
enum av_axis { AV_AXIS_QUERY, AV_AXIS_KEY, AV_AXIS_DIM };

#define AV_MAX_PARTS 4

struct av_part {
	const char *name;        /* "Q", "scores_h", ... */
	enum av_tensor tensor;
	const float *data;       /* cell (r, c) = data[r * stride + c] */
	int rows, cols, stride;
	int col_stride;          /* 0 or 1: contiguous rows; else a transpose */
	enum av_axis row_axis, col_axis;
	enum av_part_kind kind;  /* signed values (diverging) or weights 0..1 */
	bool maskable;           /* cells whose mask is 0 are hidden keys */
	bool masked_as_inf;      /* ... and are shown as −∞ (the masked stage) */
	bool row_sums;           /* the sum of each row is shown (softmax) */
	int hl_start, hl_len;    /* highlighted columns (the head's slice), or 0 */
	bool own;                /* the stage's own result (the cursor opens on it);
				    the other parts are its inputs */
	const char *op;          /* drawn between this part and the one before
				    ("·", "="), or NULL */
	bool own_decimals;       /* its cells keep the decimals that fit them,
				    not the fewest of the stage's signed parts
				    (X = ln_1(x): no sum to read across) */
};

/* One part: a rows x cols matrix of data (rows stride floats apart), signed
 * values; everything else off (set the fields the part needs after). */
struct av_part av_ui_part(const char *name, enum av_tensor tensor, const float *data,
			  int rows, int cols, int stride, enum av_axis row_axis,
			  enum av_axis col_axis);

/* The parts of stage st for head h (the tokens stage has none). Returns
 * the count. */
int av_ui_stage_parts(const struct av_trace *t, enum av_stage st, int head,
		      struct av_part out[AV_MAX_PARTS]);

/* The two factors of the scores of head h, Q_h (n, dh) and K_hᵀ (dh, m), as
 * parts to draw before scores_h (the stepper shows them when there is
 * room). Returns 2. */
int av_ui_score_factors(const struct av_trace *t, int head, struct av_part out[2]);

/* True for the stages computed once per head. */
bool av_ui_stage_per_head(enum av_stage st);

/* Cell (r, c) of a part is a hidden key (its mask bit is 0). */
bool av_part_hidden(const struct av_trace *t, const struct av_part *p, int r, int c);

static inline float av_part_at(const struct av_part *p, int r, int c)
{
	return p->data[(long)r * p->stride + (long)c * (p->col_stride ? p->col_stride : 1)];
}

#endif
