/* stages.c: which matrices each stage of the stepper shows (see stages.h). */
#include "config.h"

#include <string.h>

#include "stages.h"

const char *const av_ui_stage_titles[] = {
#define AV_UI_STAGE_TITLE(name, title, purpose) title,
	AV_STAGES(AV_UI_STAGE_TITLE)
#undef AV_UI_STAGE_TITLE
	NULL
};

const char *const av_ui_stage_purposes[] = {
#define AV_UI_STAGE_PURPOSE(name, title, purpose) purpose,
	AV_STAGES(AV_UI_STAGE_PURPOSE)
#undef AV_UI_STAGE_PURPOSE
	NULL
};

/* Each in two rows of 80 columns at most: they stand in rows the figure,
 * the caption and the inspector leave free. The embedding's without
 * positions and the projection's in cross mode are av_ui_meaning_*. */
const char *const av_ui_stage_meanings[] = {
	[AV_STAGE_TOKENS] = NULL,
	[AV_STAGE_EMBEDDING] = N_("Each token becomes a row of D numbers: its word's row of a "
				  "table plus a vector for its position, so one word at two "
				  "places gets two rows."),
	[AV_STAGE_PROJECTION] = N_("Three matrices turn each row of X into a query (what the "
				   "token looks for), a key (what it is found by) and a value "
				   "(what it passes on)."),
	[AV_STAGE_SCORES] = N_("Cell (i, j) is the dot product of query i and key j: large "
			       "when the two vectors point the same way."),
	[AV_STAGE_SCALED] = N_("A dot product of dk numbers tends to grow with dk; dividing "
			       "keeps the scores small enough for softmax to share weight "
			       "between keys."),
	[AV_STAGE_MASKED] = N_("Softmax will give a hidden cell weight 0. The causal mask (m) "
			       "hides the keys after each query, so no token sees ahead; x "
			       "hides one key."),
	[AV_STAGE_SOFTMAX] = N_("exp makes each score positive, keeping their order; "
				"divided by the row's sum, they say how much query i "
				"attends to each key."),
	[AV_STAGE_CONTEXT] = N_("Row i is a weighted average of V's rows, with row i's "
				"weights: what token i gathers from the tokens it "
				"attends to."),
	[AV_STAGE_OUTPUT] = N_("W_o mixes the heads' results; adding X back (the residual) "
			       "keeps what each token was and adds what it gathered."),
	NULL
};

const char *const av_ui_meaning_cross_projection =
	N_("W_q turns each row of X into a query (what the token looks for); W_k and W_v "
	   "turn each source row into a key (what it is found by) and a value.");

const char *const av_ui_meaning_no_positions =
	N_("Each token becomes a row of D numbers, its word's row of a table; without "
	   "positions one word gives the same row wherever it stands.");

bool av_ui_stage_per_head(enum av_stage st)
{
	return st == AV_STAGE_SCORES || st == AV_STAGE_SCALED || st == AV_STAGE_MASKED ||
	       st == AV_STAGE_SOFTMAX || st == AV_STAGE_CONTEXT;
}

struct av_part av_ui_part(const char *name, enum av_tensor tensor, const float *data,
			  int rows, int cols, int stride, enum av_axis row_axis,
			  enum av_axis col_axis)
{
	struct av_part p;
	memset(&p, 0, sizeof(p));
	p.name = name;
	p.tensor = tensor;
	p.data = data;
	p.rows = rows;
	p.cols = cols;
	p.stride = stride;
	p.row_axis = row_axis;
	p.col_axis = col_axis;
	p.kind = AV_PART_SIGNED;
	return p;
}

/* X (token_emb + pos_enc, or a model's x → X), and cross mode's X_src */
static int embedding_parts(const struct av_trace *t, struct av_part out[AV_MAX_PARTS])
{
	int n = t->n, m = t->m, D = t->d_model, count = 0;
	if (av_trace_is_model_layer(t)) {
		/* a model's layer: X = ln_1(x), x the stream coming in */
		out[count++] = av_ui_part("x", AV_T_LAYER_INPUT, t->layer_input, n, D, D,
					  AV_AXIS_QUERY, AV_AXIS_DIM);
	} else {
		out[count++] = av_ui_part("token_emb", AV_T_TOKEN_PART, t->token_part, n, D, D,
					  AV_AXIS_QUERY, AV_AXIS_DIM);
		out[count] = av_ui_part("pos_enc", AV_T_POSITION_PART, t->position_part, n, D, D,
					AV_AXIS_QUERY, AV_AXIS_DIM);
		out[count++].op = "+";
	}
	out[count] = av_ui_part("X", AV_T_EMBEDDING, t->embedding, n, D, D, AV_AXIS_QUERY,
				AV_AXIS_DIM);
	out[count].op = av_trace_is_model_layer(t) ? "→" : "=";
	/* ln_1's output is of order 1 while GPT-2's stream x reaches hundreds:
	 * with x's decimals (none) X[0,0] = −0.243 read "0" */
	out[count].own_decimals = av_trace_is_model_layer(t);
	out[count++].own = true;
	if (t->source_embedding)
		out[count++] = av_ui_part("X_src", AV_T_SOURCE_EMBEDDING, t->source_embedding, m,
					  D, D, AV_AXIS_KEY, AV_AXIS_DIM);
	return count;
}

/* Q, K and V, the head's columns highlighted when there are heads */
static int projection_parts(const struct av_trace *t, int head,
			    struct av_part out[AV_MAX_PARTS])
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim, count = 0;
	out[count++] = av_ui_part("Q", AV_T_Q, t->q, n, D, D, AV_AXIS_QUERY, AV_AXIS_DIM);
	out[count++] = av_ui_part("K", AV_T_K, t->k, m, D, D, AV_AXIS_KEY, AV_AXIS_DIM);
	out[count++] = av_ui_part("V", AV_T_V, t->v, m, D, D, AV_AXIS_KEY, AV_AXIS_DIM);
	for (int i = 0; i < count; i++) {
		out[i].hl_start = head * dh;
		out[i].hl_len = t->heads > 1 ? dh : 0;
		out[i].own = true;
	}
	return count;
}

/* One head's (n, m) matrix of the scores, scaled, masked or softmax stage */
static struct av_part head_matrix_part(const struct av_trace *t, enum av_stage st, int head)
{
	size_t off = (size_t)head * t->n * t->m;
	struct av_part p;
	switch (st) {
	case AV_STAGE_SCALED:
		p = av_ui_part("scaled_h", AV_T_SCALED, t->scaled + off, t->n, t->m, t->m,
			       AV_AXIS_QUERY, AV_AXIS_KEY);
		break;
	case AV_STAGE_MASKED:
		p = av_ui_part("masked_h", AV_T_MASKED, t->masked + off, t->n, t->m, t->m,
			       AV_AXIS_QUERY, AV_AXIS_KEY);
		p.maskable = true;
		p.masked_as_inf = true;
		break;
	case AV_STAGE_SOFTMAX:
		p = av_ui_part("weights_h", AV_T_WEIGHTS, t->weights + off, t->n, t->m, t->m,
			       AV_AXIS_QUERY, AV_AXIS_KEY);
		p.kind = AV_PART_WEIGHTS;
		p.maskable = true;
		p.row_sums = true;
		break;
	default:
		p = av_ui_part("scores_h", AV_T_SCORES, t->scores + off, t->n, t->m, t->m,
			       AV_AXIS_QUERY, AV_AXIS_KEY);
		break;
	}
	p.own = true;
	return p;
}

/* the weights next to what they produce; V_h (the rows being weighted)
 * last, as it may be wide */
static int context_parts(const struct av_trace *t, int head, struct av_part out[AV_MAX_PARTS])
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim, count = 0;
	out[count] = av_ui_part("weights_h", AV_T_WEIGHTS, t->weights + (size_t)head * n * m, n,
				m, m, AV_AXIS_QUERY, AV_AXIS_KEY);
	out[count].kind = AV_PART_WEIGHTS;
	out[count++].maskable = true;
	out[count] = av_ui_part("context_h", AV_T_CONTEXT, t->context + (size_t)head * n * dh, n,
				dh, dh, AV_AXIS_QUERY, AV_AXIS_DIM);
	out[count++].own = true;
	out[count++] = av_ui_part("V_h", AV_T_V_HEAD, t->v + (size_t)head * dh, m, dh, D,
				  AV_AXIS_KEY, AV_AXIS_DIM);
	return count;
}

/* concat (the head's columns highlighted), output, residual */
static int output_parts(const struct av_trace *t, int head, struct av_part out[AV_MAX_PARTS])
{
	int n = t->n, D = t->d_model, dh = t->head_dim, count = 0;
	out[count] = av_ui_part("concat", AV_T_CONCAT, t->concat, n, D, D, AV_AXIS_QUERY,
				AV_AXIS_DIM);
	out[count].hl_start = head * dh;
	out[count++].hl_len = t->heads > 1 ? dh : 0;
	out[count] = av_ui_part("output", AV_T_OUTPUT, t->output, n, D, D, AV_AXIS_QUERY,
				AV_AXIS_DIM);
	out[count++].own = true;
	out[count++] = av_ui_part("residual", AV_T_RESIDUAL, t->residual, n, D, D,
				  AV_AXIS_QUERY, AV_AXIS_DIM);
	return count;
}

int av_ui_stage_parts(const struct av_trace *t, enum av_stage st, int head,
		      struct av_part out[AV_MAX_PARTS])
{
	if (head < 0 || head >= t->heads)
		head = 0;
	switch (st) {
	case AV_STAGE_TOKENS:
	case AV_STAGE_COUNT:
		return 0;
	case AV_STAGE_EMBEDDING:
		return embedding_parts(t, out);
	case AV_STAGE_PROJECTION:
		return projection_parts(t, head, out);
	case AV_STAGE_SCORES:
	case AV_STAGE_SCALED:
	case AV_STAGE_MASKED:
	case AV_STAGE_SOFTMAX:
		out[0] = head_matrix_part(t, st, head);
		return 1;
	case AV_STAGE_CONTEXT:
		return context_parts(t, head, out);
	case AV_STAGE_OUTPUT:
		return output_parts(t, head, out);
	}
	return 0;
}

int av_ui_score_factors(const struct av_trace *t, int head, struct av_part out[2])
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim;
	if (head < 0 || head >= t->heads)
		head = 0;
	/* Q_h[i, c] = Q[i, head*dh + c]; K_hᵀ[c, j] = K[j, head*dh + c] */
	out[0] = av_ui_part("Q_h", AV_T_Q_HEAD, t->q + (size_t)head * dh, n, dh, D,
		      AV_AXIS_QUERY, AV_AXIS_DIM);
	out[1] = av_ui_part("K_hᵀ", AV_T_K_HEAD_T, t->k + (size_t)head * dh, dh, m, 1,
		      AV_AXIS_DIM, AV_AXIS_KEY);
	out[1].col_stride = D;
	out[1].op = "·";
	return 2;
}

bool av_part_hidden(const struct av_trace *t, const struct av_part *p, int r, int c)
{
	if (!p->maskable || !t->mask || r < 0 || r >= t->n || c < 0 || c >= t->m)
		return false;
	return t->mask[(size_t)r * t->m + c] == 0;
}
