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

/* The teaching layer's: an unknown stage is answered with these, as
 * --help lists them (layer_input is a real model's; asked for, it is said
 * so below) */
static const char *const layer_stage_names[] = {
	"tokens", "embedding", "source_embedding", "q", "k", "v", "mask", "scores",
	"scaled", "masked", "weights", "context", "concat", "output", "residual", NULL
};

#define CELL_WIDTH 11   /* one value: sign, digits, point, 4 decimals, gap */
#define LABEL_MIN 11    /* row labels: at least as wide as a cell's text, */
#define LABEL_MAX 24    /* and no wider, or the values would be pushed off */

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

/* $COLUMNS, within 40..1000 (a narrower terminal gets 40-column blocks,
 * not 80: COLUMNS=10 used to print 78 columns); 80 when unset or not a
 * whole number */
static int line_width(void)
{
	const char *env = getenv("COLUMNS");
	if (!env || !*env || env[strspn(env, "0123456789")] != '\0' || strlen(env) > 9)
		return 80;
	int w = atoi(env);
	return w < 40 ? 40 : w > 1000 ? 1000 : w;
}

/* The mark that ends a cut label, as the screen draws one (draw.c): "…",
 * or "~" where "…" would itself be escaped. */
static const char *cut_marker(void)
{
	return av_output_is_ascii() ? "~" : "…";
}

/* s (a token from input: escaped as util.h's av_escape_output says) in at
 * most width columns, malloc'd: whole when it fits, else cut after whole
 * characters and whole escapes and marked, so a cut is never silent and
 * never leaves half an escape. A suffix ("#3", or "") ends the label, after
 * the marker if there is a cut. */
static char *fit_label(const char *s, int width, const char *suffix)
{
	char *whole = av_escape_output(s);
	if (!*suffix && av_utf8_width(whole) <= width)
		return whole;
	free(whole);
	const char *marker = cut_marker();
	int budget = width - av_utf8_width(marker) - av_utf8_width(suffix), used = 0;
	size_t total = strlen(s), pos = 0;
	/* each character is at most 10 bytes escaped; marker and suffix < 32 */
	char *out = av_malloc(total * 10 + 32), *end = out;
	while (pos < total) {
		char shown[12];
		size_t took = av_escape_output_next(s + pos, total - pos, shown);
		int w = av_utf8_width(shown);
		if (used + w > budget)
			break;
		end = stpcpy(end, shown);
		used += w;
		pos += took;
	}
	if (pos < total)
		end = stpcpy(end, marker);
	stpcpy(end, suffix);
	return out;
}

/* Whether label i of shown equals another's while their tokens differ. */
static bool label_is_ambiguous(char *const *tokens, char **shown, int n, int i)
{
	for (int j = 0; j < n; j++)
		if (j != i && strcmp(shown[i], shown[j]) == 0 && strcmp(tokens[i], tokens[j]) != 0)
			return true;
	return false;
}

/* The n tokens as labels of at most width columns, a malloc'd list for
 * free_labels. Two different tokens never get the same label: where two
 * cut ones would ("internati…" twice), those labels end in their position
 * instead ("interna…#0", "interna…#1"). A label with a
 * suffix cannot equal one without: "…#" or "~#" is never in a token, as
 * both are punctuation, tokens of their own. */
static char **fit_labels(char *const *tokens, int n, int width)
{
	char **shown = av_calloc((size_t)n, sizeof(*shown));
	bool *ambiguous = av_calloc((size_t)n, sizeof(*ambiguous));
	for (int i = 0; i < n; i++)
		shown[i] = fit_label(tokens[i], width, "");
	for (int i = 0; i < n; i++)
		ambiguous[i] = label_is_ambiguous(tokens, shown, n, i);
	for (int i = 0; i < n; i++) {
		if (!ambiguous[i])
			continue;
		char suffix[16];
		snprintf(suffix, sizeof(suffix), "#%d", i);
		free(shown[i]);
		shown[i] = fit_label(tokens[i], width, suffix);
	}
	free(ambiguous);
	return shown;
}

static void free_labels(char **shown, int n)
{
	for (int i = 0; shown && i < n; i++)
		free(shown[i]);
	free(shown);
}

/* The columns the widest of the n tokens takes escaped. */
static int widest_label(char *const *tokens, int n)
{
	int widest = 0;
	for (int i = 0; i < n; i++) {
		char *shown = av_escape_output(tokens[i]);
		int w = av_utf8_width(shown);
		free(shown);
		if (w > widest)
			widest = w;
	}
	return widest;
}

/* Prints s (already fitted) padded to width columns. */
static void print_label(FILE *out, const char *s, int width, bool right)
{
	int pad = width - av_utf8_width(s);
	if (pad < 0)
		pad = 0;
	if (right)
		fprintf(out, "%*s%s", pad, "", s);
	else
		fprintf(out, "%s%*s", s, pad, "");
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

/* A table's labels as printed: fitted, and the row labels' width. */
struct labels {
	char **rows, **cols;    /* NULL for indices */
	int row_width;          /* columns, not counting the gap after them */
};

/* Row labels are as wide as the widest token, from LABEL_MIN to LABEL_MAX;
 * column heads take a cell's width, which the values need. */
static void labels_fit(struct labels *l, const struct table *tb)
{
	l->row_width = LABEL_MIN;
	l->rows = l->cols = NULL;
	if (tb->row_labels) {
		int widest = widest_label(tb->row_labels, tb->rows);
		l->row_width = widest < LABEL_MIN ? LABEL_MIN
						  : widest > LABEL_MAX ? LABEL_MAX : widest;
		l->rows = fit_labels(tb->row_labels, tb->rows, l->row_width);
	}
	if (tb->col_labels)
		l->cols = fit_labels(tb->col_labels, tb->cols, CELL_WIDTH - 1);
}

static void labels_free(struct labels *l, const struct table *tb)
{
	free_labels(l->rows, tb->rows);
	free_labels(l->cols, tb->cols);
}

static void print_column_head(FILE *out, const struct labels *l, int j)
{
	char idx[16];
	if (l->cols) {
		fputc(' ', out);
		print_label(out, l->cols[j], CELL_WIDTH - 1, true);
	} else {
		snprintf(idx, sizeof(idx), "%d", j);
		fprintf(out, "%*s", CELL_WIDTH, idx);
	}
}

/* Columns j0 to j1 - 1 of the table, under their heads. */
static void print_block(FILE *out, const struct table *tb, const struct labels *l, int j0,
			int j1, double range, const struct heat *heat)
{
	fprintf(out, "%*s", l->row_width + 1, "");
	for (int j = j0; j < j1; j++)
		print_column_head(out, l, j);
	fputc('\n', out);
	for (int i = 0; i < tb->rows; i++) {
		char idx[16];
		snprintf(idx, sizeof(idx), "%d", i);
		print_label(out, l->rows ? l->rows[i] : idx, l->row_width + 1, false);
		for (int j = j0; j < j1; j++)
			print_cell(out, tb, i, j, range, heat);
		fputc('\n', out);
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
	struct labels l;
	labels_fit(&l, tb);
	int per_block = (line_width() - l.row_width - 1) / CELL_WIDTH;
	if (per_block < 1)
		per_block = 1;
	for (int j0 = 0; j0 < tb->cols; j0 += per_block) {
		int j1 = j0 + per_block < tb->cols ? j0 + per_block : tb->cols;
		if (tb->cols > per_block)
			fprintf(out, "%scolumns %d to %d:\n", j0 ? "\n" : "", j0, j1 - 1);
		print_block(out, tb, &l, j0, j1, range, heat);
	}
	labels_free(&l, tb);
	return finite;
}

/* The token list shows every token whole (it is the place to read one a
 * table's label cut); the column is as wide as the widest. */
static void print_tokens(FILE *out, const struct av_trace *t)
{
	const struct av_tokens *sides[] = { &t->tokens, &t->source_tokens };
	const int *ids[] = { t->ids, t->source_ids };
	const bool *oov[] = { t->oov, t->source_oov };
	const char *titles[] = { "tokens", "source_tokens" };
	for (int s = 0; s < 2; s++) {
		if (sides[s]->n == 0)
			continue;
		int widest = widest_label(sides[s]->text, sides[s]->n);
		int width = (widest > LABEL_MIN ? widest : LABEL_MIN) + 1;
		fprintf(out, "%s%s: %d\n", s ? "\n" : "", titles[s], sides[s]->n);
		fprintf(out, "%4s  %-*s %6s\n", "pos", width, "token", "row");
		for (int i = 0; i < sides[s]->n; i++) {
			char *shown = av_escape_output(sides[s]->text[i]);
			fprintf(out, "%4d  ", i);
			print_label(out, shown, width, false);
			fprintf(out, " %6d%s\n", ids[s][i], oov[s][i] ? "  (not in vocabulary)" : "");
			free(shown);
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

bool av_stage_name_check(const char *const names[], const char *stage, char **cause)
{
	int index;
	if (av_enum_parse(names, stage, &index))
		return true;
	char *allowed = av_enum_list(names);
	av_fail(cause, _("unknown stage \"%s\" (stages: %s)"), stage, allowed);
	free(allowed);
	return false;
}

static bool print_stage(FILE *out, const struct av_trace *t, const char *stage, int head,
			bool color, char **cause)
{
	if (!av_stage_name_check(t->layer_input || strcmp(stage, "layer_input") == 0
				 ? av_stage_names : layer_stage_names, stage, cause))
		return false;
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
