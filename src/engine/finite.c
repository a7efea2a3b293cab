/* finite.c: the first value of a trace that is not a finite number, and
 * what caused it. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backward.h"
#include "i18n.h"
#include "finite.h"
#include "util.h"

/* One stage as a (rows, cols) matrix per head. */
struct stage_view {
	const char *name;
	const float *values;   /* NULL: the stage does not exist (not cross) */
	bool per_head;         /* one (rows, cols) block per head */
	int rows, cols;
	bool key_rows;         /* rows are key tokens (k, v, source_embedding) */
	bool key_cols;         /* columns are key tokens (per-head n x m stages) */
};

/* The stages in the order they are computed; returns how many. */
static int stage_views(const struct av_trace *t, struct stage_view v[13])
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim;
	struct stage_view list[] = {
		{ "embedding", t->embedding, false, n, D, false, false },
		{ "source_embedding", t->source_embedding, false, m, D, true, false },
		{ "q", t->q, false, n, D, false, false },
		{ "k", t->k, false, m, D, true, false },
		{ "v", t->v, false, m, D, true, false },
		{ "scores", t->scores, true, n, m, false, true },
		{ "scaled", t->scaled, true, n, m, false, true },
		{ "masked", t->masked, true, n, m, false, true },
		{ "weights", t->weights, true, n, m, false, true },
		{ "context", t->context, true, n, dh, false, false },
		{ "concat", t->concat, false, n, D, false, false },
		{ "output", t->output, false, n, D, false, false },
		{ "residual", t->residual, false, n, D, false, false },
	};
	int count = 0;
	for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
		if (list[i].values)
			v[count++] = list[i];
	return count;
}

bool av_trace_first_nonfinite(const struct av_trace *t, struct av_nonfinite *where)
{
	struct stage_view v[13];
	int count = stage_views(t, v);
	for (int s = 0; s < count; s++) {
		size_t cells = (size_t)v[s].rows * (size_t)v[s].cols;
		int heads = v[s].per_head ? t->heads : 1;
		for (int h = 0; h < heads; h++) {
			const float *x = v[s].values + (size_t)h * cells;
			for (size_t c = 0; c < cells; c++) {
				if (isfinite(x[c]))
					continue;
				*where = (struct av_nonfinite){
					.stage = v[s].name,
					.head = v[s].per_head ? h : -1,
					.row = (int)(c / (size_t)v[s].cols),
					.col = (int)(c % (size_t)v[s].cols),
					.value = x[c],
				};
				return true;
			}
		}
	}
	return false;
}

const char *av_nonfinite_name(double v)
{
	if (isnan(v))
		return "nan";
	if (isinf(v))
		return v > 0 ? "inf" : "-inf";
	return NULL;
}

static const struct stage_view *find_view(const struct stage_view *v, int count,
					  const char *stage)
{
	for (int i = 0; i < count; i++)
		if (v[i].name == stage || strcmp(v[i].name, stage) == 0)
			return &v[i];
	return NULL;
}

/* "row 0 \"china\"" or "column 2" (label NULL) */
static char *cell_part(const char *what, int index, const char *label)
{
	if (!label)
		return av_printf("%s %d", what, index);
	char *safe = av_escape(label);
	char *s = av_printf("%s %d \"%s\"", what, index, safe);
	free(safe);
	return s;
}

/* The most likely cause for the stage that went first. */
static char *cause_of(const struct av_trace *t, const char *stage)
{
	if (strcmp(stage, "scaled") == 0 || strcmp(stage, "masked") == 0)
		return av_printf(_("the scores divided by s*T = %g overflow a 32-bit float "
				 "(the weights are too large for the temperature %g)"), t->divisor,
				 t->cfg.temperature);
	if (strcmp(stage, "weights") == 0)
		return av_strdup(_("the softmax of the scores overflowed"));
	return av_strdup(_("a value overflows a 32-bit float (beyond 3.4e38); "
			 "the weights are too large"));
}

char *av_nonfinite_explain(const struct av_trace *t, const struct av_nonfinite *w)
{
	struct stage_view v[13];
	const struct stage_view *sv = find_view(v, stage_views(t, v), w->stage);
	char *const *keys = t->source_tokens.n ? t->source_tokens.text : t->tokens.text;
	const char *row_label = NULL, *col_label = NULL;
	if (sv && w->row < (sv->key_rows ? t->m : t->n))
		row_label = sv->key_rows ? keys[w->row] : t->tokens.text[w->row];
	if (sv && sv->key_cols && w->col < t->m)
		col_label = keys[w->col];
	char *row = cell_part(_("row"), w->row, row_label);
	char *col = cell_part(_("column"), w->col, col_label);
	char *head = w->head >= 0 ? av_printf(_("head %d, "), w->head) : av_strdup("");
	char *why = cause_of(t, w->stage);
	char *text = av_printf(_("the %s stage is not finite (%s%s, %s: %s): %s"), w->stage, head,
			       row, col, av_nonfinite_name(w->value), why);
	free(row);
	free(col);
	free(head);
	free(why);
	return text;
}

bool av_trace_check_finite(const struct av_trace *t, char **cause)
{
	struct av_nonfinite where;
	if (!av_trace_first_nonfinite(t, &where))
		return true;
	char *why = av_nonfinite_explain(t, &where);
	av_fail(cause, _("%s (nothing was written: a trace holds finite numbers only)"), why);
	free(why);
	return false;
}

int av_params_first_nonfinite(const struct av_params *p)
{
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t count;
		const float *x = av_param_tensor(p, id, &count);
		for (size_t i = 0; x && i < count; i++)
			if (!isfinite(x[i]))
				return id;
	}
	return -1;
}
