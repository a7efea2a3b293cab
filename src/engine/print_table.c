/* print_table.c: --print STAGE, one stage as a labelled table in the manner
 * of seed 000's print_tensor_info (name, shape, dtype, then the values),
 * wrapped into column blocks that fit the line width, optionally coloured
 * as an ANSI 256-colour heatmap (24-bit when COLORTERM says truecolor). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "finite.h"
#include "print_table.h"
#include "theme.h"
#include "utf8.h"
#include "number.h"
#include "util.h"

const char *const av_stage_names[] = {
	"tokens", "embedding", "source_embedding", "q", "k", "v", "mask", "scores",
	"scaled", "masked", "weights", "context", "concat", "output", "residual", "layer_input",
	NULL
};

#define CELL_WIDTH 11   /* one value: sign, digits, point, 4 decimals, gap */
#define LABEL_WIDTH 12  /* row labels: a token, cut to fit */

enum palette { PALETTE_DIVERGING, PALETTE_WEIGHTS, PALETTE_MASK };

/* What one table shows: a (rows, cols) block with labels. */
struct table {
	const char *name;
	const float *values;            /* NULL for the 0/1 mask */
	const unsigned char *mask;      /* cells to show as hidden, or NULL */
	const unsigned char *bits;      /* the mask stage itself */
	int rows, cols;
	char *const *row_labels;        /* rows labels, or NULL for indices */
	char *const *col_labels;        /* cols labels, or NULL for indices */
	enum palette palette;
};

static int line_width(void)
{
	const char *env = getenv("COLUMNS");
	int w = env ? atoi(env) : 0;
	return w >= 40 && w <= 1000 ? w : 80;
}

/* Prints s (a token from input: escaped as util.h's av_escape_output says)
 * padded or cut to width columns; a cut keeps whole characters and whole
 * escapes. */
static void print_label(FILE *out, const char *s, int width, bool right)
{
	char buf[128];
	int used = 0;
	size_t len = 0, pos = 0, total = strlen(s);
	while (pos < total) {
		char shown[12];
		size_t took = av_escape_output_next(s + pos, total - pos, shown);
		size_t n = strlen(shown);
		int w = av_utf8_width(shown);
		if (used + w > width - 1 || len + n >= sizeof(buf))
			break;
		memcpy(buf + len, shown, n);
		len += n;
		used += w;
		pos += took;
	}
	buf[len] = '\0';
	int pad = width - used;
	if (right)
		fprintf(out, "%*s%s", pad, "", buf);
	else
		fprintf(out, "%s%*s", buf, pad, "");
}

/* The dark theme's ramps as the screen draws them: 256 colours (the
 * screen's levels and indices), or 24-bit RGB when COLORTERM says the
 * terminal takes it (escapes are written here, no terminal description
 * is involved). */
struct heat {
	struct av_ramp ramp[2];   /* [diverging?] */
	bool direct;
};

/* The level of value v of a table whose largest magnitude is r. */
static int heat_level(const struct heat *h, enum palette palette, double v, double r)
{
	bool diverging = palette != PALETTE_WEIGHTS;
	double t = !diverging ? v : r > 0 ? 0.5 + 0.5 * v / r : 0.5;
	return av_ramp_level(h->ramp[diverging].levels, t);
}

static void print_cell(FILE *out, const struct table *tb, int i, int j, double range,
		       const struct heat *heat)
{
	size_t c = (size_t)i * tb->cols + j;
	bool hidden = tb->mask && !tb->mask[c];
	char text[32];
	if (tb->bits)
		snprintf(text, sizeof(text), "%d", tb->bits[c]);
	else if (!isfinite(tb->values[c]))
		snprintf(text, sizeof(text), "%s", av_nonfinite_name(tb->values[c]));
	else if (fabs(tb->values[c]) >= 1e6)
		snprintf(text, sizeof(text), "%.3g", tb->values[c]);
	else
		snprintf(text, sizeof(text), "%.4f", tb->values[c]);
	if (!heat) {
		fprintf(out, "%*s", CELL_WIDTH, text);
		return;
	}
	struct av_rgb bg = { 48, 48, 48 };   /* hidden: xterm grey 236 */
	int index = 236;
	const struct av_ramp *r = NULL;
	int level = 0;
	if (tb->bits && tb->bits[c] && !hidden) {
		r = &heat->ramp[0];
		level = r->levels - 1;
	} else if (!tb->bits && !hidden && !isnan(tb->values[c])) {
		/* NaN has no place on a scale: grey, as a hidden cell */
		r = &heat->ramp[tb->palette != PALETTE_WEIGHTS];
		level = heat_level(heat, tb->palette, tb->values[c], range);
	}
	if (r) {
		index = r->xterm[level];
		bg = heat->direct ? r->rgb[level] : av_xterm_rgb(index);
	}
	if (heat->direct)
		fprintf(out, " \033[48;2;%d;%d;%dm", bg.r, bg.g, bg.b);
	else
		fprintf(out, " \033[48;5;%dm", index);
	fprintf(out, "\033[38;5;%dm%*s\033[0m", av_rgb_is_light(bg) ? 16 : 255, CELL_WIDTH - 1,
		text);
}

static void print_column_head(FILE *out, const struct table *tb, int j)
{
	char idx[16];
	if (tb->col_labels) {
		fputc(' ', out);
		print_label(out, tb->col_labels[j], CELL_WIDTH - 1, true);
	} else {
		snprintf(idx, sizeof(idx), "%d", j);
		fprintf(out, "%*s", CELL_WIDTH, idx);
	}
}

/* Prints the table; false when it holds a value that is not finite. */
static bool print_table(FILE *out, const struct table *tb, bool color)
{
	struct av_theme theme;
	struct heat heat_storage, *heat = NULL;
	if (color && av_theme_builtin("dark", &theme)) {
		const char *ct = getenv("COLORTERM");
		heat_storage.direct = ct && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0);
		for (int d = 0; d < 2; d++)
			av_ramp_build(&heat_storage.ramp[d], &theme, d == 1,
				      heat_storage.direct ? AV_LEVELS_DIRECT : AV_LEVELS_256);
		av_theme_free(&theme);
		heat = &heat_storage;
	}
	double range = 0;
	bool finite = true;
	for (size_t c = 0; tb->values && c < (size_t)tb->rows * tb->cols; c++) {
		if (!isfinite(tb->values[c]))
			finite = false;
		else if (!tb->mask || tb->mask[c])
			range = fmax(range, fabs(tb->values[c]));
	}
	fprintf(out, "%s: shape=(%d, %d), dtype=%s\n", tb->name, tb->rows, tb->cols,
		tb->bits ? "bool" : "float32");
	int per_block = (line_width() - LABEL_WIDTH) / CELL_WIDTH;
	if (per_block < 1)
		per_block = 1;
	for (int j0 = 0; j0 < tb->cols; j0 += per_block) {
		int j1 = j0 + per_block < tb->cols ? j0 + per_block : tb->cols;
		if (tb->cols > per_block)
			fprintf(out, "%scolumns %d to %d:\n", j0 ? "\n" : "", j0, j1 - 1);
		fprintf(out, "%*s", LABEL_WIDTH, "");
		for (int j = j0; j < j1; j++)
			print_column_head(out, tb, j);
		fputc('\n', out);
		for (int i = 0; i < tb->rows; i++) {
			char idx[16];
			snprintf(idx, sizeof(idx), "%d", i);
			print_label(out, tb->row_labels ? tb->row_labels[i] : idx, LABEL_WIDTH, false);
			for (int j = j0; j < j1; j++)
				print_cell(out, tb, i, j, range, heat);
			fputc('\n', out);
		}
	}
	return finite;
}

static void print_tokens(FILE *out, const struct av_trace *t)
{
	const struct av_tokens *sides[] = { &t->tokens, &t->source_tokens };
	const int *ids[] = { t->ids, t->source_ids };
	const bool *oov[] = { t->oov, t->source_oov };
	const char *titles[] = { "tokens", "source_tokens" };
	for (int s = 0; s < 2; s++) {
		if (sides[s]->n == 0)
			continue;
		fprintf(out, "%s%s: %d\n", s ? "\n" : "", titles[s], sides[s]->n);
		fprintf(out, "%4s  %-*s %6s\n", "pos", LABEL_WIDTH, "token", "row");
		for (int i = 0; i < sides[s]->n; i++) {
			fprintf(out, "%4d  ", i);
			print_label(out, sides[s]->text[i], LABEL_WIDTH, false);
			fprintf(out, " %6d%s\n", ids[s][i], oov[s][i] ? "  (not in vocabulary)" : "");
		}
	}
}

static bool is_head_stage(const char *stage)
{
	const char *per_head[] = { "scores", "scaled", "masked", "weights", "context" };
	for (size_t i = 0; i < sizeof(per_head) / sizeof(per_head[0]); i++)
		if (strcmp(stage, per_head[i]) == 0)
			return true;
	return false;
}

/* Fills tb for a per-head stage of head h. */
static void head_table(struct table *tb, const struct av_trace *t, const char *stage, int h,
		       char *name, size_t name_size)
{
	size_t cells = (size_t)t->n * t->m;
	char *const *keys = t->source_tokens.n ? t->source_tokens.text : t->tokens.text;
	snprintf(name, name_size, "%s[head %d]", stage, h);
	tb->name = name;
	tb->rows = t->n;
	tb->cols = t->m;
	tb->row_labels = t->tokens.text;
	tb->col_labels = keys;
	tb->palette = PALETTE_DIVERGING;
	if (strcmp(stage, "scores") == 0) {
		tb->values = t->scores + h * cells;
	} else if (strcmp(stage, "scaled") == 0) {
		tb->values = t->scaled + h * cells;
	} else if (strcmp(stage, "masked") == 0) {
		tb->values = t->masked + h * cells;
		tb->mask = t->mask;
	} else if (strcmp(stage, "weights") == 0) {
		tb->values = t->weights + h * cells;
		tb->mask = t->mask;
		tb->palette = PALETTE_WEIGHTS;
	} else {
		tb->values = t->context + (size_t)h * t->n * t->head_dim;
		tb->cols = t->head_dim;
		tb->col_labels = NULL;
	}
}

/* Fills tb for a whole-model (n or m, D) stage; false if stage is unknown. */
static bool model_table(struct table *tb, const struct av_trace *t, const char *stage)
{
	bool cross = t->source_tokens.n > 0;
	char *const *keys = cross ? t->source_tokens.text : t->tokens.text;
	const struct { const char *name; const float *values; bool key_side; } list[] = {
		{ "layer_input", t->layer_input, false },
		{ "embedding", t->embedding, false },
		{ "source_embedding", t->source_embedding, true },
		{ "q", t->q, false }, { "k", t->k, true }, { "v", t->v, true },
		{ "concat", t->concat, false }, { "output", t->output, false },
		{ "residual", t->residual, false },
	};
	for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		if (strcmp(stage, list[i].name) != 0 || !list[i].values)
			continue;
		tb->name = list[i].name;
		tb->values = list[i].values;
		tb->rows = list[i].key_side ? t->m : t->n;
		tb->cols = t->d_model;
		tb->row_labels = list[i].key_side ? keys : t->tokens.text;
		tb->palette = PALETTE_DIVERGING;
		return true;
	}
	return false;
}

static bool print_stage(FILE *out, const struct av_trace *t, const char *stage, int head,
			bool color, char **cause)
{
	int index;
	if (!av_enum_parse(av_stage_names, stage, &index)) {
		char *allowed = av_enum_list(av_stage_names);
		av_fail(cause, _("unknown stage \"%s\" (stages: %s)"), stage, allowed);
		free(allowed);
		return false;
	}
	if (strcmp(stage, "tokens") == 0) {
		print_tokens(out, t);
		return true;
	}
	struct table tb = { 0 };
	char name[64];
	if (strcmp(stage, "mask") == 0) {
		tb = (struct table){ .name = "mask", .bits = t->mask, .rows = t->n, .cols = t->m,
				     .row_labels = t->tokens.text,
				     .col_labels = t->source_tokens.n ? t->source_tokens.text
								      : t->tokens.text };
	} else if (is_head_stage(stage)) {
		if (head < 0 || head >= t->heads)
			return av_fail(cause, P_("head %d is out of range (this model has %d head: "
						 "0 to %d)", "head %d is out of range (this model "
						 "has %d heads: 0 to %d)", t->heads), head, t->heads,
				       t->heads - 1);
		head_table(&tb, t, stage, head, name, sizeof(name));
	} else if (!model_table(&tb, t, stage)) {
		if (strcmp(stage, "layer_input") == 0)
			return av_fail(cause, _("stage \"layer_input\" exists only in a real model's "
					       "layer (--model)"));
		return av_fail(cause, _("stage \"%s\" exists only in cross mode"), stage);
	}
	if (print_table(out, &tb, color))
		return true;
	/* The table is out, with inf, -inf or nan where they are; the status
	 * and this message say the numbers are broken and why. */
	struct av_nonfinite first;
	char *why = av_trace_first_nonfinite(t, &first) ? av_nonfinite_explain(t, &first)
							 : av_strdup("?");
	av_fail(cause, _("%s has values that are not finite (shown as inf, -inf or nan): %s"),
		tb.name, why);
	free(why);
	return false;
}

/* Tables use the decimal point in every locale (one rule, documented in
 * attnview(1)): a table is data someone may paste into a script. */
bool av_print_stage(FILE *out, const struct av_trace *t, const char *stage, int head,
		    bool color, char **cause)
{
	locale_t previous = av_numeric_c_begin();
	bool ok = print_stage(out, t, stage, head, color, cause);
	av_numeric_c_end(previous);
	return ok;
}
