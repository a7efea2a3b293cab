/* inspector.c: the text that explains a cell, a stage's formula and its
 * shapes (see inspector.h). No curses here. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "inspector.h"
#include "utf8.h"
#include "util.h"

/* --- a small string builder ---------------------------------------------- */

struct sb {
	char *s;
	size_t len, cap;
};

static void sb_addv(struct sb *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void sb_addv(struct sb *b, const char *fmt, va_list ap)
{
	char *piece = av_vprintf(fmt, ap);
	size_t k = strlen(piece);
	if (b->len + k + 1 > b->cap) {
		b->cap = (b->len + k + 1) * 2;
		b->s = av_realloc(b->s, b->cap, 1);
	}
	memcpy(b->s + b->len, piece, k + 1);
	b->len += k;
	free(piece);
}

static void sb_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_addv(b, fmt, ap);
	va_end(ap);
}

static char *sb_take(struct sb *b)
{
	char *s = b->s ? b->s : av_strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

static int width_of(const struct sb *b)
{
	return b->s ? av_utf8_width(b->s) : 0;
}

static void add_line(struct av_insp *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_line(struct av_insp *out, const char *fmt, ...)
{
	if (out->n == AV_INSP_MAX_LINES)
		return;
	va_list ap;
	va_start(ap, fmt);
	out->line[out->n++] = av_vprintf(fmt, ap);
	va_end(ap);
}

static void add_taken(struct av_insp *out, struct sb *b)
{
	char *s = sb_take(b);
	if (out->n == AV_INSP_MAX_LINES) {
		free(s);
		return;
	}
	out->line[out->n++] = s;
}

/* The minus sign: U+2212 everywhere in the inspector's text (the screen
 * writes '-' for it when the locale is not UTF-8), so a number and an
 * operator never use two different signs. */
#define MINUS "\xe2\x88\x92"

void av_insp_number(char *buf, size_t size, double v)
{
	double a = fabs(v);
	if (isnan(v))
		snprintf(buf, size, _("nan"));
	else if (isinf(v))
		snprintf(buf, size, _("%sinf"), v < 0 ? MINUS : "");
	else if (v == 0)
		snprintf(buf, size, "0");
	else if (a >= 1e5 || a < 1e-3)
		snprintf(buf, size, "%s%.3g", v < 0 ? MINUS : "", a);
	else
		snprintf(buf, size, "%s%.3f", v < 0 ? MINUS : "", a);
}

/* " + v" or " − |v|": adding v to an expression, one sign only
 * ("x − max" with max = −1.045 reads "x + 1.045", not "x − -1.045"). */
static void plus_term(char *buf, size_t size, double v)
{
	char tmp[32];
	av_insp_number(tmp, sizeof(tmp), fabs(v));
	if (isnan(v))
		snprintf(buf, size, _(" + nan"));
	else
		snprintf(buf, size, " %s %s", v < 0 ? MINUS : "+", tmp);
}

#define NUM(name, v) char name[32]; av_insp_number(name, sizeof(name), (v))

/* --- numbers a reader can redo by hand ----------------------------------- */

/* The room a number of fixed_number takes, and a term of fixed_plus_term */
#define FIXED_SIZE 40
#define FIXED_TERM_SIZE (FIXED_SIZE + 8)

/* v with d decimals ("−1.0172"; no minus on a 0 it rounds to; 1e15 and
 * more as av_insp_number writes them). Returns the number as written: the
 * checks below redo a line from what the reader sees, not from the exact
 * values. */
static double fixed_number(char buf[FIXED_SIZE], double v, int d)
{
	if (!isfinite(v)) {
		av_insp_number(buf, FIXED_SIZE, v);
		return v;
	}
	char digits[FIXED_SIZE - 4];
	if (fabs(v) < 1e15)
		snprintf(digits, sizeof(digits), "%.*f", d, fabs(v));
	else
		snprintf(digits, sizeof(digits), "%.3g", fabs(v));
	double shown = strtod(digits, NULL);
	bool minus = v < 0 && shown != 0;
	snprintf(buf, FIXED_SIZE, "%s%s", minus ? MINUS : "", digits);
	return minus ? -shown : shown;
}

/* A writer of v with d digits (fixed_number, term_number): returns v as
 * written. */
typedef double number_writer(char buf[FIXED_SIZE], double v, int d);

/* plus_term with |v| as number writes it ("0" or a value rounding to 0
 * takes "+"); returns v as written */
static double plus_term_as(number_writer *number, char buf[FIXED_TERM_SIZE], double v, int d)
{
	char tmp[FIXED_SIZE];
	double shown = number(tmp, fabs(v), d);
	bool minus = v < 0 && shown != 0;
	snprintf(buf, FIXED_TERM_SIZE, " %s %s", minus ? MINUS : "+", tmp);
	return minus ? -shown : shown;
}

/* plus_term with d decimals; returns v as written */
static double fixed_plus_term(char buf[FIXED_TERM_SIZE], double v, int d)
{
	return plus_term_as(fixed_number, buf, v, d);
}

/* After a result whose inputs, as the line writes them, do not give it to
 * the digits shown (too many carries, or float32's own rounding). */
#define ROUNDED_NOTE _(" (rounded)")

void av_insp_free(struct av_insp *in)
{
	for (int i = 0; i < in->n; i++)
		free(in->line[i]);
	free(in->heading_short);
	memset(in, 0, sizeof(*in));
}

void av_insp_fit_heading(struct av_insp *in, int width)
{
	if (in->n == 0 || !in->heading_short || av_utf8_width(in->line[0]) <= width ||
	    av_utf8_width(in->heading_short) > width)
		return;
	free(in->line[0]);
	in->line[0] = in->heading_short;
	in->heading_short = NULL;
}

/* --- sums of products, shortened to fit ---------------------------------- */

/* count products a[k*sa] * b[k*sb] */
struct terms {
	const float *a, *b;
	long sa, sb;
	int count;
};

static double terms_sum(const struct terms *t)
{
	double s = 0;
	for (int k = 0; k < t->count; k++)
		s += (double)t->a[k * t->sa] * t->b[k * t->sb];
	return s;
}

/* A number of a sum of products with d digits: d decimals from 0.001 up,
 * d significant digits below ("3.76e-06", as av_insp_number writes 3),
 * and a 0 as "0". Returns the number as written. */
static double term_number(char buf[FIXED_SIZE], double v, int d)
{
	if (v == 0) {
		snprintf(buf, FIXED_SIZE, "0");
		return 0;
	}
	if (fabs(v) >= 1e-3 || !isfinite(v))
		return fixed_number(buf, v, d);
	char digits[FIXED_SIZE - 4];
	snprintf(digits, sizeof(digits), "%.*g", d, fabs(v));
	snprintf(buf, FIXED_SIZE, "%s%s", v < 0 ? MINUS : "", digits);
	return copysign(strtod(digits, NULL), v);
}

/* A factor: term_number, in parentheses when negative (0.5×(−0.2)) */
static double factor_number(char buf[FIXED_TERM_SIZE], double v, int d)
{
	char digits[FIXED_SIZE];
	double shown = term_number(digits, v, d);
	snprintf(buf, FIXED_TERM_SIZE, shown < 0 ? "(%s)" : "%s", digits);
	return shown;
}

/* One try at a sum of products: its factors (and bias) with d digits. */
struct sum_try {
	struct sb b;        /* the line so far, then with the sum */
	int left;           /* terms left out: 0, the sum is whole */
	bool adds_up;       /* whole, and the terms as written give total */
};

/* prefix + "a0×b0 + a1×b1 + … (+k terms)" + bias + " = " + total, within
 * width columns ("… (512 terms)" when not even one term fits), each
 * factor and the bias with d digits (factor_number's), total as the
 * screen writes the cell. */
static void sum_try_at(struct sum_try *st, const char *prefix, const struct terms *t,
		       const float *bias, const char *total, int width, int d)
{
	memset(st, 0, sizeof(*st));
	sb_add(&st->b, "%s", prefix);
	char suffix[FIXED_TERM_SIZE + 64] = "";
	double s = 0;
	if (bias)   /* " + 0.25" or " − 0.25": one sign only */
		s = plus_term_as(term_number, suffix, *bias, d);
	snprintf(suffix + strlen(suffix), sizeof(suffix) - strlen(suffix), " = %s", total);
	int budget = width - width_of(&st->b) - av_utf8_width(suffix);
	for (int k = 0; k < t->count; k++) {
		char x[FIXED_TERM_SIZE], y[FIXED_TERM_SIZE], term[2 * FIXED_TERM_SIZE + 8];
		s += factor_number(x, t->a[k * t->sa], d) * factor_number(y, t->b[k * t->sb], d);
		snprintf(term, sizeof(term), "%s%s×%s", k ? " + " : "", x, y);
		int left = t->count - k - 1;
		char rest[40] = "";
		if (left > 0)
			snprintf(rest, sizeof(rest), P_(" + … (+%d term)", " + … (+%d terms)", left), left);
		/* room for this term and, unless it is the last, the "more" note */
		int need = av_utf8_width(term) + (left > 0 ? av_utf8_width(rest) : 0);
		if (need > budget) {
			char more[40];
			if (k == 0)
				snprintf(more, sizeof(more), _("… (%d terms)"), t->count);
			else
				snprintf(more, sizeof(more), P_(" + … (+%d term)", " + … (+%d terms)",
								t->count - k), t->count - k);
			sb_add(&st->b, "%s%s", more, suffix);
			st->left = t->count - k;
			return;
		}
		sb_add(&st->b, "%s", term);
		budget -= av_utf8_width(term);
	}
	sb_add(&st->b, "%s", suffix);
	char redone[32];
	av_insp_number(redone, sizeof(redone), s);
	/* a sum with inf or nan already says so: nothing to redo */
	st->adds_up = !isfinite(s) || strcmp(redone, total) == 0;
}

/* A sum of products after prefix, to out's next line: when every term is
 * written, a reader can redo it, so its factors (and bias) take the
 * fewest decimals, 3 up to 8, with which they give total as written (the
 * screen's cell; 3 decimals made "2.602×(−1.246) + … = −2.959" that a
 * calculator makes −2.960); a sum no count redoes keeps 3 and says
 * "(rounded)". A sum cut short ("… (+N terms)") cannot be redone: 3, and
 * the total the whole sum gives. Returns how many terms it left out. */
static int add_terms(struct av_insp *out, const char *prefix, const struct terms *t,
		     const float *bias, double total, int width)
{
	NUM(written, total);
	struct sum_try st;
	for (int d = 3; d <= 8; d++) {
		sum_try_at(&st, prefix, t, bias, written, width, d);
		if (st.left == 0 && st.adds_up) {
			add_taken(out, &st.b);
			return 0;
		}
		free(st.b.s);
		if (st.left > 0)   /* more decimals only take more room */
			break;
	}
	sum_try_at(&st, prefix, t, bias, written, width, 3);
	if (st.left == 0)
		sb_add(&st.b, "%s", ROUNDED_NOTE);
	add_taken(out, &st.b);
	return st.left;
}

/* --- labels -------------------------------------------------------------- */

static const char *query_text(const struct av_trace *t, int i)
{
	return i >= 0 && i < t->tokens.n ? t->tokens.text[i] : "?";
}

static const char *key_text(const struct av_trace *t, int j)
{
	if (t->cfg.mode == AV_MODE_CROSS)
		return j >= 0 && j < t->source_tokens.n ? t->source_tokens.text[j] : "?";
	return query_text(t, j);
}

static void describe_index(struct sb *b, const struct av_trace *t, enum av_axis a, int idx)
{
	if (a == AV_AXIS_QUERY)
		sb_add(b, _("query %d '%s'"), idx, query_text(t, idx));
	else if (a == AV_AXIS_KEY)
		sb_add(b, _("key %d '%s'"), idx, key_text(t, idx));
	else
		sb_add(b, _("dim %d"), idx);
}

/* "scores_h[1,2] = 1.234   query 1 'panda', key 2 'japan', head 0" */
static void heading(struct av_insp *out, const struct av_trace *t, const struct av_part *part,
		    int head, int r, int c, const char *value)
{
	struct sb b = { 0 };
	sb_add(&b, "%s[%d,%d] = %s   ", part->name, r, c, value);
	describe_index(&b, t, part->row_axis, r);
	/* TRANSLATORS: between the row and the column of the inspector's
	 * heading ("query 1 'panda', key 2 'japan'"): the comma the
	 * translation of ", head %d of %d" after it uses */
	sb_add(&b, "%s", C_("inspector heading", ", "));
	describe_index(&b, t, part->col_axis, c);
	bool per_head = part->tensor == AV_T_SCORES || part->tensor == AV_T_SCALED ||
			part->tensor == AV_T_MASKED || part->tensor == AV_T_WEIGHTS ||
			part->tensor == AV_T_CONTEXT || part->tensor == AV_T_V_HEAD ||
			part->tensor == AV_T_Q_HEAD || part->tensor == AV_T_K_HEAD_T;
	if (per_head && t->heads > 1) {
		/* the short form, for a row too narrow for the long one */
		out->heading_short = av_printf(_("%s, head %d/%d"), b.s, head, t->heads);
		sb_add(&b, _(", head %d of %d"), head, t->heads);
	} else if (part->col_axis == AV_AXIS_DIM && part->hl_len > 0) {
		sb_add(&b, _(" (head %d's column %d)"), c / t->head_dim, c % t->head_dim);
	}
	add_taken(out, &b);
}

static const char *scale_symbol(enum av_scale s)
{
	return s == AV_SCALE_DK ? "√dk" : s == AV_SCALE_DMODEL ? "√D" : "1";
}

static double scale_value(const struct av_trace *t)
{
	switch (t->cfg.scale) {
	case AV_SCALE_DK: return sqrt((double)t->head_dim);
	case AV_SCALE_DMODEL: return sqrt((double)t->d_model);
	case AV_SCALE_NONE: return 1.0;
	}
	return 1.0;
}

/* --- the stages ---------------------------------------------------------- */

static void explain_scores(struct av_insp *out, const struct av_trace *t, int head,
			   int i, int j, int width)
{
	int D = t->d_model, dh = t->head_dim;
	struct terms tm = {
		.a = t->q + (size_t)i * D + (size_t)head * dh, .sa = 1,
		.b = t->k + (size_t)j * D + (size_t)head * dh, .sb = 1,
		.count = dh,
	};
	double sum = terms_sum(&tm);
	out->derived = sum;
	out->derived_ok = true;
	char prefix[96];
	snprintf(prefix, sizeof(prefix), "q_%d·k_%d = Σ_c q_%d[c]·k_%d[c] = ", i, j, i, j);
	out->terms_left += add_terms(out, prefix, &tm, NULL, sum, width);
	if (t->heads > 1)
		add_line(out, _("q_%d, k_%d: head %d's columns %d..%d of Q and K (dk = %d)"),
			 i, j, head, head * dh, head * dh + dh - 1, dh);
	else
		add_line(out, _("q_%d, k_%d: rows %d and %d of Q and K, %d numbers each"), i, j,
			 i, j, dh);
}

/* The scaled line's numbers with d decimals: the score, the scale, the
 * divisor (scale × T) and the cell; whether a reader gets the divisor
 * from the scale and T written (tv), and the cell from the score and the
 * divisor, to the digits shown. */
struct scaled_text {
	char score[FIXED_SIZE], scale[FIXED_SIZE], div[FIXED_SIZE], res[32];
	bool ok;
};

static void scaled_text_at(struct scaled_text *st, double score, double s, double div,
			   double res, const char *tv, int d)
{
	double ss = fixed_number(st->score, score, d);
	double dv = fixed_number(st->div, div, d);
	av_insp_number(st->res, sizeof(st->res), res);
	/* the scale with up to 4 decimals more: T multiplies its rounding
	 * (√8 × 7: 2.828 × 7 = 19.796, not 19.799) */
	char again[FIXED_SIZE];
	st->ok = !tv[0];
	for (int ds = d; ds <= d + 4 && !st->ok; ds++) {
		double sv = fixed_number(st->scale, s, ds);
		fixed_number(again, sv * strtod(tv, NULL), d);
		st->ok = strcmp(again, st->div) == 0;
	}
	if (!st->ok || !tv[0])
		fixed_number(st->scale, s, d);
	av_insp_number(again, sizeof(again), ss / dv);
	st->ok = st->ok && strcmp(again, st->res) == 0;
}

/* 3 decimals as elsewhere, more (up to 8) until the line redoes by hand,
 * else 3 and said to be rounded. tv is T as written, "" where the line
 * names no T (a model's). */
static void scaled_text(struct scaled_text *st, double score, double s, double div,
			double res, const char *tv)
{
	for (int d = 3; d <= 8; d++) {
		scaled_text_at(st, score, s, div, res, tv, d);
		if (st->ok)
			return;
	}
	scaled_text_at(st, score, s, div, res, tv, 3);
}

static void explain_scaled(struct av_insp *out, const struct av_trace *t, int head,
			   int i, int j)
{
	float score = t->scores[(size_t)head * t->n * t->m + (size_t)i * t->m + j];
	double s = scale_value(t), T = t->cfg.temperature;
	out->derived = score / t->divisor;
	out->derived_ok = true;
	char tv[32] = "";
	if (!av_trace_is_model_layer(t))
		snprintf(tv, sizeof(tv), "%g", T);
	struct scaled_text st;
	scaled_text(&st, score, s, t->divisor, out->derived, tv);
	const char *note = st.ok ? "" : ROUNDED_NOTE;
	if (av_trace_is_model_layer(t)) {   /* T = 1, which no key changes */
		add_line(out, _("scaled = scores / %s = %s / %s = %s%s"),
			 scale_symbol(t->cfg.scale), st.score, st.div, st.res, note);
		add_line(out, _("dividing by %s keeps scores of wide heads from saturating "
			 "softmax; the model runs at T = 1, as trained"),
			 scale_symbol(t->cfg.scale));
		return;
	}
	add_line(out, _("scaled = scores / (%s·T) = %s / (%s × %s) = %s / %s = %s%s"),
		 scale_symbol(t->cfg.scale), st.score, st.scale, tv, st.score, st.div, st.res,
		 note);
	if (t->cfg.scale == AV_SCALE_NONE)
		add_line(out, _("scale none: only the temperature T = %s divides"), tv);
	else
		add_line(out, _("dividing by %s keeps scores of wide heads from saturating softmax; "
			 "T > 1 flattens, T < 1 sharpens"), scale_symbol(t->cfg.scale));
}

/* Why key j is hidden from query i (or that it is visible). */
static void explain_hidden(struct av_insp *out, const struct av_trace *t, int i, int j)
{
	bool causal = t->cfg.mode == AV_MODE_CAUSAL && j > i;
	bool padding = t->key_hidden[j];
	if (causal)
		add_line(out, _("hidden: key %d comes after query %d (causal mask, j > i): "
			 "the decoder may not look ahead"), j, i);
	if (padding)
		add_line(out, _("hidden: key %d '%s' is masked out (padding mask; x toggles it)"),
			 j, key_text(t, j));
}

static void explain_masked(struct av_insp *out, const struct av_trace *t, int head,
			   int i, int j)
{
	float scaled = t->scaled[(size_t)head * t->n * t->m + (size_t)i * t->m + j];
	bool visible = t->mask[(size_t)i * t->m + j] != 0;
	out->derived = visible ? scaled : AV_MASKED_VALUE;
	out->derived_ok = true;
	if (visible) {
		NUM(v, scaled);
		add_line(out, _("key %d is visible to query %d, so masked = scaled = %s"), j, i, v);
		if (t->cfg.mode == AV_MODE_CAUSAL)
			add_line(out, _("causal: query %d sees keys 0..%d; later keys are −∞"), i, i);
		return;
	}
	explain_hidden(out, t, i, j);
	add_line(out, _("masked = −∞ (the trace stores −1e20, as masked_fill), so softmax "
		 "gives it weight exp(−∞) = 0"));
}

/* Query i sees no key at all (every key hidden): what attnview shows and
 * what PyTorch would give. The engine's softmax (av_softmax_rows) reports
 * zeros for such a row; masked_fill(mask == 0, -1e20) then softmax, as the
 * tutorials do, makes every entry equal, so each weight is 1/m; with -inf
 * every exp(x − max) is exp(−inf + inf) = NaN. */
static void explain_hidden_row(struct av_insp *out, const struct av_trace *t, int i)
{
	char share[32];
	av_insp_number(share, sizeof(share), 1.0 / t->m);
	add_line(out, _("every key of query %d is hidden: attnview gives this row 0s (sum 0, "
		 "not 1)"), i);
	add_line(out, _("PyTorch: masked_fill(%s1e20) gives 1/%d = %s each; masked_fill(%sinf) "
		 "gives NaN"), MINUS, t->m, share, MINUS);
}

/* The weight w = e / Σ as the trace holds it in float32, when that reads
 * otherwise than w worked out in double above: exp(x − max) underflowed
 * (float32 ends at 1.4e-45, and its softmax takes exp below 1.2e-38 as 0),
 * or float32 rounded it. */
static void explain_stored_weight(struct av_insp *out, double w, double e, float stored)
{
	char worked[32], kept[32], limit[32];
	av_insp_number(worked, sizeof(worked), w);
	av_insp_number(kept, sizeof(kept), stored);
	if (!isfinite(w) || !isfinite(stored) || strcmp(worked, kept) == 0)
		return;
	/* short enough for the all-heads view, which cuts at 80 columns */
	if (stored == 0 && (float)w == 0) {
		av_insp_number(limit, sizeof(limit), FLT_TRUE_MIN);
		add_line(out, _("float32 stores 0: %s is below its smallest, %s (underflow)"),
			 worked, limit);
	} else if (stored == 0 && e < FLT_MIN) {
		av_insp_number(limit, sizeof(limit), FLT_MIN);
		add_line(out, _("float32 stores 0: its softmax's exp gives 0 below %s "
			 "(underflow)"), limit);
	} else {
		add_line(out, _("float32 stores %s (rounded; the line above is in double)"), kept);
	}
}

/* exp(x − max), in (0, 1], as a softmax line writes it with d digits:
 * d decimals from 0.001 up, d significant digits below ("1.346e-09", as
 * av_insp_number writes 3). Returns the number as written. */
static double exp_number(char buf[FIXED_SIZE], double e, int d)
{
	if (e == 0 || e >= 1e-3 || !isfinite(e))
		return fixed_number(buf, e, d);
	snprintf(buf, FIXED_SIZE, "%.*g", d, e);
	return strtod(buf, NULL);
}

/* The softmax line of one cell and the row of its exponentials, written
 * with d digits (exp_number's; x, max and Σ with d decimals), and whether
 * each step comes out of the numbers written, to the digits shown. */
struct softmax_text {
	char x[FIXED_SIZE], less_max[FIXED_TERM_SIZE], e[FIXED_SIZE], sum[FIXED_SIZE];
	char res[32];
	char *row;           /* "exp(row i − max): … [e] …" (without its Σ) */
	bool line_ok;        /* exp(x − max) gives e, and e / Σ gives w */
	bool row_whole;      /* every term of the row is written */
	bool row_ok;         /* and they add up to Σ */
};

struct softmax_cell {
	const float *row;            /* the masked row of query i */
	const unsigned char *mrow;   /* its visible keys */
	int m, i, j;
	double max, sum, w;
};

static void softmax_text_at(struct softmax_text *st, const struct softmax_cell *c, int d,
			    int width)
{
	double xs = fixed_number(st->x, c->row[c->j], d);
	double less_max = fixed_plus_term(st->less_max, -c->max, d);
	double es = exp_number(st->e, exp((double)c->row[c->j] - c->max), d);
	double ss = fixed_number(st->sum, c->sum, d);
	av_insp_number(st->res, sizeof(st->res), c->w);
	char again[FIXED_SIZE];
	exp_number(again, exp(xs + less_max), d);
	st->line_ok = strcmp(again, st->e) == 0;
	av_insp_number(again, sizeof(again), es / ss);
	st->line_ok = st->line_ok && strcmp(again, st->res) == 0;

	/* the exponentials of the row, the cursor's in brackets */
	struct sb b = { 0 };
	sb_add(&b, _("exp(row %d − max):"), c->i);
	double written = 0;
	st->row_whole = true;
	for (int k = 0; k < c->m; k++) {
		char item[FIXED_SIZE + 8], v[FIXED_SIZE];
		if (c->mrow[k])
			written += exp_number(v, exp((double)c->row[k] - c->max), d);
		snprintf(item, sizeof(item), k == c->j ? " [%s]" : " %s", c->mrow[k] ? v : "0");
		int tail = 16 + (int)strlen(st->sum);
		if (width_of(&b) + av_utf8_width(item) + tail > width && k > 0) {
			sb_add(&b, " … (+%d)", c->m - k);
			st->row_whole = false;
			break;
		}
		sb_add(&b, "%s", item);
	}
	st->row = sb_take(&b);
	fixed_number(again, written, d);
	st->row_ok = st->row_whole && strcmp(again, st->sum) == 0;
}

/* The digits of a softmax line: 3 as elsewhere, more (up to 8) until a
 * reader redoing exp(x − max) and e / Σ by hand gets the numbers written,
 * and up to two more where that lets the row's terms add up to its Σ too
 * (more made lines of 7 decimals for the row's sake); 3, said to be
 * rounded, when no count redoes the line. */
static void softmax_text(struct softmax_text *st, const struct softmax_cell *c, int width)
{
	int d = 3;
	for (; d <= 8; d++) {
		softmax_text_at(st, c, d, width);
		if (st->line_ok)
			break;
		free(st->row);
	}
	if (d > 8) {
		softmax_text_at(st, c, 3, width);
		return;
	}
	for (int more = d + 1; more <= d + 2 && st->row_whole && !st->row_ok; more++) {
		struct softmax_text again;
		softmax_text_at(&again, c, more, width);
		if (again.line_ok && again.row_ok) {
			free(st->row);
			*st = again;
		} else {
			free(again.row);
		}
	}
}

static void explain_weights(struct av_insp *out, const struct av_trace *t, int head,
			    int i, int j, int width)
{
	int m = t->m;
	const float *row = t->masked + (size_t)head * t->n * m + (size_t)i * m;
	const unsigned char *mrow = t->mask + (size_t)i * m;
	if (t->row_hidden[i]) {
		out->derived = 0;
		out->derived_ok = true;
		explain_hidden_row(out, t, i);
		return;
	}
	double max = -INFINITY;
	for (int k = 0; k < m; k++)
		if (row[k] > max)
			max = row[k];
	double sum = 0;
	for (int k = 0; k < m; k++)
		sum += exp((double)row[k] - max);
	double e = exp((double)row[j] - max);
	out->derived = e / sum;
	out->derived_ok = true;

	const struct softmax_cell cell = { row, mrow, m, i, j, max, sum, out->derived };
	struct softmax_text st;
	softmax_text(&st, &cell, width);
	if (!mrow[j]) {
		explain_hidden(out, t, i, j);
		add_line(out, _("w = exp(%s∞%s) / %s = 0 / %s = 0"), MINUS, st.less_max, st.sum,
			 st.sum);
	} else {
		add_line(out, _("w = exp(x − max) / Σ = exp(%s%s) / %s = %s / %s = %s%s"),
			 st.x, st.less_max, st.sum, st.e, st.sum, st.res,
			 st.line_ok ? "" : ROUNDED_NOTE);
		explain_stored_weight(out, out->derived, e,
				      t->weights[(size_t)head * t->n * m + (size_t)i * m + j]);
	}
	add_line(out, "%s  Σ = %s%s", st.row, st.sum,
		 st.row_ok || !st.row_whole ? "" : ROUNDED_NOTE);
	free(st.row);
}

static void explain_context(struct av_insp *out, const struct av_trace *t, int head,
			    int i, int c, int width)
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim;
	struct terms tm = {
		.a = t->weights + (size_t)head * n * m + (size_t)i * m, .sa = 1,
		.b = t->v + (size_t)head * dh + c, .sb = D,
		.count = m,
	};
	double sum = terms_sum(&tm);
	out->derived = sum;
	out->derived_ok = true;
	char *prefix = av_printf(_("context = Σ_j w_%d,j · V_h[j,%d] = "), i, c);
	out->terms_left += add_terms(out, prefix, &tm, NULL, sum, width);
	free(prefix);
	add_line(out, _("value rows weighted by query %d's softmax row (how much it attends "
		 "to each key)"), i);
}

static void explain_v_head(struct av_insp *out, const struct av_trace *t, int head, int j, int c)
{
	int col = head * t->head_dim + c;
	out->derived = t->v[(size_t)j * t->d_model + col];
	out->derived_ok = true;
	add_line(out, _("V_h[%d,%d] = V[%d,%d]: head %d's slice of the value of key %d '%s'"),
		 j, c, j, col, head, j, key_text(t, j));
}

/* Q/K/V or the output projection, nn.Linear's way: res[r,c] = x[r,:] ·
 * W[c,:] + b[c], i.e. column c of Wᵀ (the title's "X·W_qᵀ"). w_name is
 * "W_q" ..., b_name "b_q" ... */
static void explain_linear(struct av_insp *out, const struct av_trace *t,
			   const char *res_name, const char *in_name, const char *w_name,
			   const char *b_name, const float *x, const struct av_insp_linear *lin,
			   int r, int c, int width)
{
	int D = t->d_model;
	if (!lin->w) {
		add_line(out, "%s = %s · %sᵀ", res_name, in_name, w_name);
		return;
	}
	const float *bias = lin->b;
	struct terms tm = {
		.a = x + (size_t)r * D, .sa = 1,
		.b = lin->w + (size_t)c * lin->out_stride, .sb = (long)lin->in_stride,
		.count = D,
	};
	double sum = terms_sum(&tm) + (bias ? bias[c] : 0.0);
	out->derived = sum;
	out->derived_ok = true;
	if (bias)
		add_line(out, _("%s[%d,%d] = %s[%d,:] · %sᵀ[:,%d] + %s[%d]   (%sᵀ[:,%d] = row %d "
			 "of %s)"), res_name, r, c, in_name, r, w_name, c, b_name, c, w_name, c,
			 c, w_name);
	else
		add_line(out, _("%s[%d,%d] = %s[%d,:] · %sᵀ[:,%d]   (%sᵀ[:,%d] = row %d of %s)"),
			 res_name, r, c, in_name, r, w_name, c, w_name, c, c, w_name);
	struct sb b = { 0 };
	sb_add(&b, "= Σ_k %s[%d,k]·%s[%d,k]", in_name, r, w_name, c);
	if (bias)
		sb_add(&b, " + %s[%d]", b_name, c);
	sb_add(&b, " = ");
	char *prefix = sb_take(&b);
	out->terms_left += add_terms(out, prefix, &tm, bias ? &bias[c] : NULL, sum, width);
	free(prefix);
}

static void explain_position(struct av_insp *out, const struct av_trace *t, int i, int c)
{
	int D = t->d_model;
	float stored = t->position_part[(size_t)i * D + c];
	switch (t->cfg.positional) {
	case AV_POS_SINUSOIDAL: {
		int two_i = c - c % 2;
		double angle = i / pow(10000.0, (double)two_i / D);
		out->derived = c % 2 == 0 ? sin(angle) : cos(angle);
		out->derived_ok = true;
		NUM(a, angle);
		NUM(v, out->derived);
		add_line(out, _("PE(pos %d, %d) = %s(%d / 10000^(%d/%d)) = %s(%s) = %s"), i, c,
			 c % 2 ? "cos" : "sin", i, two_i, D, c % 2 ? "cos" : "sin", a, v);
		add_line(out, _("sinusoidal: even dims use sin, odd dims cos, each pair at a "
			 "lower frequency"));
		break;
	}
	case AV_POS_LEARNED: {
		NUM(v, stored);
		out->derived = stored;
		out->derived_ok = true;
		add_line(out, _("position_embedding[%d][%d] = %s (a learned row per position)"),
			 i, c, v);
		break;
	}
	case AV_POS_NONE:
		out->derived = 0;
		out->derived_ok = true;
		add_line(out, _("no positional encoding: every position adds 0 (word order "
			 "is invisible to attention)"));
		break;
	}
}

/* --- numbers that are not finite ---------------------------------------- */

static bool all_finite(const float *x, size_t count)
{
	for (size_t k = 0; x && k < count; k++)
		if (!isfinite(x[k]))
			return false;
	return true;
}

/* The trace's buffers in the order the forward pass fills them. */
enum { BAD_NONE, BAD_INPUT, BAD_PROJECTION, BAD_SCORES, BAD_SCALED, BAD_SOFTMAX, BAD_LATER };

static int first_nonfinite(const struct av_trace *t)
{
	size_t n = (size_t)t->n, m = (size_t)t->m, D = (size_t)t->d_model;
	size_t cells = (size_t)t->heads * n * m;
	if (!all_finite(t->embedding, n * D) ||
	    (t->source_embedding && !all_finite(t->source_embedding, m * D)))
		return BAD_INPUT;
	if (!all_finite(t->q, n * D) || !all_finite(t->k, m * D) || !all_finite(t->v, m * D))
		return BAD_PROJECTION;
	if (!all_finite(t->scores, cells))
		return BAD_SCORES;
	if (!all_finite(t->scaled, cells))
		return BAD_SCALED;
	if (!all_finite(t->weights, cells))
		return BAD_SOFTMAX;
	if (!all_finite(t->context, n * D) || !all_finite(t->output, n * D) ||
	    !all_finite(t->residual, n * D))
		return BAD_LATER;
	return BAD_NONE;
}

/* What made a value inf or NaN: the first stage that overflowed, and why
 * (float32 ends at ±3.4e38; exp(inf − inf) is NaN), then how it spread. */
static void explain_nonfinite(struct av_insp *out, const struct av_trace *t,
			      enum av_tensor tensor, double value)
{
	bool after_softmax = tensor == AV_T_WEIGHTS || tensor == AV_T_CONTEXT ||
			     tensor == AV_T_CONCAT || tensor == AV_T_OUTPUT ||
			     tensor == AV_T_RESIDUAL;
	char T[32], div[32];
	snprintf(T, sizeof(T), "%g", t->cfg.temperature);
	av_insp_number(div, sizeof(div), t->divisor);
	const char *what = isnan(value) ? _("NaN (not a number)") : _("infinite");
	switch (first_nonfinite(t)) {
	case BAD_NONE:
		break;
	case BAD_INPUT:
		add_line(out, _("%s: the embedding already holds inf or NaN (the loaded or "
			 "trained weights are not finite numbers)"), what);
		break;
	case BAD_PROJECTION:
		add_line(out, _("%s: X·Wᵀ overflowed float32 (largest ±3.4e38): the weights "
			 "are too large"), what);
		break;
	case BAD_SCORES:
		add_line(out, _("%s: q·k overflowed float32 (largest ±3.4e38): Q and K hold huge "
			 "numbers (huge weights)"), what);
		break;
	case BAD_SCALED: {
		char why[96] = "";
		if (t->cfg.temperature < 1e-6)
			snprintf(why, sizeof(why), _(": T=%s makes every score huge"), T);
		else if (t->cfg.temperature < 1)
			snprintf(why, sizeof(why), _(": T=%s makes every score %g times larger"), T,
				 1 / t->cfg.temperature);
		if (after_softmax)
			add_line(out, _("exp overflowed%s (±inf), exp(inf−inf) = NaN"), why);
		else
			add_line(out, _("%s: scores / %s (%s·T) overflowed float32 (±3.4e38)%s"),
				 what, div, scale_symbol(t->cfg.scale), why);
		break;
	}
	case BAD_SOFTMAX:
		add_line(out, _("%s: exp overflowed in softmax (exp(inf − inf) = NaN)"), what);
		break;
	case BAD_LATER:
		add_line(out, _("%s: a sum of the later stages overflowed float32 (largest "
			 "±3.4e38)"), what);
		break;
	}
	add_line(out, _("inf and NaN spread: every number computed from them is inf or NaN"));
}

/* One cell of ln_1: its inputs, z and the value the trace holds. */
struct ln_cell {
	double x, mean, var, eps, z, gamma, beta;
	float stored;
};

/* The cell as its lines write it: x, μ, σ², γ and β with k decimals, z
 * with k − 1 (more than X's, which are the screen's); whether z and X come
 * out of the numbers written, to the digits shown. */
struct ln_text {
	char x[FIXED_SIZE], less_mean[FIXED_TERM_SIZE], var[FIXED_SIZE], z[FIXED_SIZE];
	char z_factor[FIXED_SIZE + 2], gamma[FIXED_SIZE], beta[FIXED_TERM_SIZE], res[32];
	bool z_ok, res_ok;
};

static void ln_text_at(struct ln_text *lt, const struct ln_cell *in, int k)
{
	double xs = fixed_number(lt->x, in->x, k);
	double less_mean = fixed_plus_term(lt->less_mean, -in->mean, k);
	double vs = fixed_number(lt->var, in->var, k);
	double zs = fixed_number(lt->z, in->z, k - 1);
	snprintf(lt->z_factor, sizeof(lt->z_factor), zs < 0 ? "(%s)" : "%s", lt->z);
	double gs = fixed_number(lt->gamma, in->gamma, k);
	double bs = fixed_plus_term(lt->beta, in->beta, k);
	av_insp_number(lt->res, sizeof(lt->res), in->stored);
	char eps[32], again[FIXED_SIZE];
	snprintf(eps, sizeof(eps), "%g", in->eps);   /* as the line writes it */
	fixed_number(again, (xs + less_mean) / sqrt(vs + strtod(eps, NULL)), k - 1);
	lt->z_ok = strcmp(again, lt->z) == 0;
	av_insp_number(again, sizeof(again), gs * zs + bs);
	lt->res_ok = strcmp(again, lt->res) == 0;
}

/* What ln_1 does, in words: after the sums, which a short inspector keeps
 * first (at 80x24 with 12 rows of tokens the words took the two rows of
 * the last step, X = γ·z + β). */
static void say_layer_norm(struct av_insp *out, int r, int c)
{
	add_line(out, _("X = ln_1(x): row %d of x less its mean, over its spread, then ln_1's "
		 "learned γ[%d]·z + β[%d]"), r, c, c);
}

/* X[r, c] of a model's layer: ln_1 of row r of its input x, with the row's
 * mean and variance (double) and the trace's epsilon; with ln_1's γ and β
 * (the model's, not in the trace) the last step too, with the fewest
 * decimals that let a reader redo both steps to the digits shown. */
static void explain_layer_norm(struct av_insp *out, const struct av_trace *t,
			       const struct av_insp_weights *wts, int r, int c)
{
	int D = t->d_model;
	const float *x = t->layer_input + (size_t)r * D;
	float stored = t->embedding[(size_t)r * D + c];
	double mean = 0, var = 0;
	for (int k = 0; k < D; k++)
		mean += x[k];
	mean /= D;
	for (int k = 0; k < D; k++)
		var += (x[k] - mean) * (x[k] - mean);
	var /= D;
	double z = (x[c] - mean) / sqrt(var + t->layer_norm_eps);
	if (!wts || !wts->ln_gamma || !wts->ln_beta) {
		NUM(xs, x[c]);
		NUM(vs, var);
		NUM(zs, z);
		NUM(out_s, stored);
		char less_mean[40];
		plus_term(less_mean, sizeof(less_mean), -mean);
		add_line(out, _("z = (x − μ) / √(σ² + ε) = (%s%s) / √(%s + %g) = %s;  "
			 "X = γ·z + β = %s"), xs, less_mean, vs, t->layer_norm_eps, zs, out_s);
		say_layer_norm(out, r, c);
		return;
	}
	const struct ln_cell in = { x[c], mean, var, t->layer_norm_eps, z, wts->ln_gamma[c],
				    wts->ln_beta[c], stored };
	out->derived = in.gamma * z + in.beta;
	out->derived_ok = true;
	struct ln_text lt;
	int k = 4;
	for (; k <= 8; k++) {
		ln_text_at(&lt, &in, k);
		if (lt.z_ok && lt.res_ok)
			break;
	}
	if (k > 8)   /* the shortest, said to be rounded where it is */
		ln_text_at(&lt, &in, 5);
	add_line(out, _("z = (x − μ) / √(σ² + ε) = (%s%s) / √(%s + %g) = %s%s"), lt.x,
		 lt.less_mean, lt.var, t->layer_norm_eps, lt.z, lt.z_ok ? "" : ROUNDED_NOTE);
	add_line(out, _("X = γ[%d]·z + β[%d] = %s × %s%s = %s%s"), c, c, lt.gamma, lt.z_factor,
		 lt.beta, lt.res, lt.res_ok ? "" : ROUNDED_NOTE);
	say_layer_norm(out, r, c);
}

/* a + b, the float sums of the embedding and the residual: the derived
 * value, and the three numbers as the line shows them ("−1.2", " + 0.3"),
 * the sum with its "(rounded)" when the terms as written do not add up to
 * it */
struct sum_text {
	char a[FIXED_SIZE], b[FIXED_TERM_SIZE], sum[FIXED_SIZE + 24];
};

/* Whether a + b = sum holds digit for digit with d decimals (each below
 * 2^53 in units of the last digit, so the check is exact). */
static bool sum_text_at(struct sum_text *st, float a, float b, float sum, int d)
{
	double scale = pow(10, d);
	double as = fixed_number(st->a, a, d) * scale;
	double bs = fixed_plus_term(st->b, b, d) * scale;
	double ss = fixed_number(st->sum, sum, d) * scale;
	if (fmax(fabs(as), fmax(fabs(bs), fabs(ss))) >= 0x1p53)
		return false;
	return llround(as) + llround(bs) == llround(ss);
}

/* The decimals: 3 as elsewhere, more for a number under 0.001 (its first
 * 3 digits), and more again (up to 4 more) until the terms, added by
 * hand, give the sum shown; as av_insp_number writes them, and said to be
 * rounded, when no count does. */
static void sum_of_two(struct av_insp *out, float a, float b, struct sum_text *st)
{
	out->derived = (double)a + b;
	out->derived_ok = true;
	float sum = (float)out->derived;
	int first = 3;
	const float v[3] = { a, b, sum };
	for (int k = 0; k < 3; k++) {
		int digits = v[k] != 0 && isfinite(v[k]) ? 2 - (int)floor(log10(fabs(v[k]))) : 0;
		if (digits > first)
			first = digits;
	}
	bool finite = isfinite(a) && isfinite(b) && isfinite(sum);
	for (int d = first; finite && d <= first + 4 && d <= 12; d++)
		if (sum_text_at(st, a, b, sum, d))
			return;
	av_insp_number(st->a, sizeof(st->a), a);
	plus_term(st->b, sizeof(st->b), b);
	av_insp_number(st->sum, sizeof(st->sum), sum);
	if (finite && a != 0 && b != 0)
		snprintf(st->sum + strlen(st->sum), sizeof(st->sum) - strlen(st->sum), "%s",
			 ROUNDED_NOTE);
}

/* X[r, c] = token_emb + pos_enc, or a model's ln_1 of its input x */
static void explain_embedding(struct av_insp *out, const struct av_trace *t,
			      const struct av_insp_weights *wts, int r, int c)
{
	if (av_trace_is_model_layer(t)) {
		explain_layer_norm(out, t, wts, r, c);
		return;
	}
	int D = t->d_model;
	struct sum_text st;
	sum_of_two(out, t->token_part[(size_t)r * D + c], t->position_part[(size_t)r * D + c],
		   &st);
	add_line(out, _("X = token_emb + pos_enc = %s%s = %s"), st.a, st.b, st.sum);
}

/* the token embedding's row of the word at r, column c (value: as stored) */
static void explain_token_part(struct av_insp *out, const struct av_trace *t,
			       const struct av_params *p, double value, int r, int c)
{
	int id = t->ids[r];
	out->derived = p && id < p->vocab_size ? p->token_embedding[(size_t)id * t->d_model + c]
		: value;
	out->derived_ok = p != NULL;
	add_line(out, _("token_embedding[%d '%s'][%d]%s"), id, query_text(t, r), c,
		 t->oov[r] ? _(": not in the vocabulary, its row comes from the seed "
		 "and the word") : ": the word's learned row");
}

static void explain_q_head(struct av_insp *out, const struct av_trace *t, int head, int r,
			   int c)
{
	int col = head * t->head_dim + c;
	out->derived = t->q[(size_t)r * t->d_model + col];
	out->derived_ok = true;
	add_line(out, _("Q_h[%d,%d] = Q[%d,%d]: head %d's slice of the query of '%s'"), r, c,
		 r, col, head, query_text(t, r));
	add_line(out, _("scores_h[%d,j] = Q_h[%d,:] · K_hᵀ[:,j]: row %d of Q_h times each "
		 "column of K_hᵀ"), r, r, r);
}

static void explain_k_head_t(struct av_insp *out, const struct av_trace *t, int head, int r,
			     int c)
{
	int col = head * t->head_dim + r;
	out->derived = t->k[(size_t)c * t->d_model + col];
	out->derived_ok = true;
	add_line(out, _("K_hᵀ[%d,%d] = K[%d,%d]: column %d of K_hᵀ is head %d's key of '%s'"),
		 r, c, c, col, c, head, key_text(t, c));
	add_line(out, _("scores_h[i,%d] = Q_h[i,:] · K_hᵀ[:,%d]: each row of Q_h times "
		 "column %d"), c, c, c);
}

static void explain_concat(struct av_insp *out, const struct av_trace *t, int r, int c)
{
	int h = c / t->head_dim, cc = c % t->head_dim;
	out->derived = t->context[(size_t)h * t->n * t->head_dim + (size_t)r * t->head_dim + cc];
	out->derived_ok = true;
	add_line(out, _("concat[%d,%d] = context of head %d, column %d: the heads' "
		 "outputs side by side"), r, c, h, cc);
}

/* residual = output + the skip: X, or a model's x (not ln_1(x)) */
static void explain_residual(struct av_insp *out, const struct av_trace *t, int r, int c)
{
	int D = t->d_model;
	const float *skip = t->layer_input ? t->layer_input : t->embedding;
	struct sum_text st;
	sum_of_two(out, t->output[(size_t)r * D + c], skip[(size_t)r * D + c], &st);
	if (av_trace_is_model_layer(t))
		add_line(out, _("residual = output + x = %s%s = %s (the skip connection "
			 "takes x, not ln_1(x))"), st.a, st.b, st.sum);
	else
		add_line(out, _("residual = output + X = %s%s = %s (the skip connection)"),
			 st.a, st.b, st.sum);
}

void av_insp_weights_of(struct av_insp_weights *out, const struct av_params *p)
{
	memset(out, 0, sizeof(*out));
	if (!p)
		return;
	size_t D = (size_t)p->d_model;
	out->q = (struct av_insp_linear){ p->w_q, p->b_q, D, 1 };
	out->k = (struct av_insp_linear){ p->w_k, p->b_k, D, 1 };
	out->v = (struct av_insp_linear){ p->w_v, p->b_v, D, 1 };
	out->o = (struct av_insp_linear){ p->w_o, p->b_o, D, 1 };
}

void av_insp_cell(struct av_insp *out, const struct av_trace *t, const struct av_params *p,
		  const struct av_part *part, int head, int r, int c, int width)
{
	struct av_insp_weights wts;
	av_insp_weights_of(&wts, p);
	av_insp_cell_weights(out, t, p, &wts, part, head, r, c, width);
}

/* The lines that say how the cell (r, c) of tensor (value as stored) was
 * computed, one explain_ function per tensor. */
static void explain_tensor(struct av_insp *out, const struct av_trace *t,
			   const struct av_params *p, const struct av_insp_weights *wts,
			   enum av_tensor tensor, double value, int head, int r, int c, int width)
{
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	const float *xs = cross ? t->source_embedding : t->embedding;

	switch (tensor) {
	case AV_T_TOKEN_PART:
		explain_token_part(out, t, p, value, r, c);
		break;
	case AV_T_POSITION_PART:
		explain_position(out, t, r, c);
		break;
	case AV_T_LAYER_INPUT:
		out->derived = value;
		out->derived_ok = true;
		add_line(out, _("x[%d,%d]: the residual stream into this layer at '%s' (layer 0: "
			 "wte[id] + wpe[pos]; later: the layer before's x + attention + MLP)"),
			 r, c, query_text(t, r));
		break;
	case AV_T_EMBEDDING:
		explain_embedding(out, t, wts, r, c);
		break;
	case AV_T_SOURCE_EMBEDDING:
		add_line(out, _("X_src: the source sentence's embedding (token + position): "
			 "cross attention's keys and values come from it"));
		break;
	case AV_T_Q:
		explain_linear(out, t, "Q", "X", "W_q", "b_q", t->embedding, &wts->q, r, c, width);
		break;
	case AV_T_K:
		explain_linear(out, t, "K", cross ? "X_src" : "X", "W_k", "b_k", xs, &wts->k, r, c,
			       width);
		break;
	case AV_T_V:
		explain_linear(out, t, "V", cross ? "X_src" : "X", "W_v", "b_v", xs, &wts->v, r, c,
			       width);
		break;
	case AV_T_SCORES:
		explain_scores(out, t, head, r, c, width);
		break;
	case AV_T_SCALED:
		explain_scaled(out, t, head, r, c);
		break;
	case AV_T_MASKED:
		explain_masked(out, t, head, r, c);
		break;
	case AV_T_WEIGHTS:
		explain_weights(out, t, head, r, c, width);
		break;
	case AV_T_CONTEXT:
		explain_context(out, t, head, r, c, width);
		break;
	case AV_T_V_HEAD:
		explain_v_head(out, t, head, r, c);
		break;
	case AV_T_Q_HEAD:
		explain_q_head(out, t, head, r, c);
		break;
	case AV_T_K_HEAD_T:
		explain_k_head_t(out, t, head, r, c);
		break;
	case AV_T_CONCAT:
		explain_concat(out, t, r, c);
		break;
	case AV_T_OUTPUT:
		explain_linear(out, t, "output", "concat", "W_o", "b_o", t->concat, &wts->o, r, c,
			       width);
		break;
	case AV_T_RESIDUAL:
		explain_residual(out, t, r, c);
		break;
	}
}

void av_insp_cell_weights(struct av_insp *out, const struct av_trace *t,
			  const struct av_params *p, const struct av_insp_weights *wts,
			  const struct av_part *part, int head, int r, int c, int width)
{
	memset(out, 0, sizeof(*out));
	if (width < 20)
		width = 20;
	if (r < 0 || r >= part->rows || c < 0 || c >= part->cols)
		return;
	double value = av_part_at(part, r, c);
	out->stored = value;
	bool hidden = av_part_hidden(t, part, r, c);
	char vbuf[32];
	if (hidden && part->masked_as_inf)
		snprintf(vbuf, sizeof(vbuf), "−∞");
	else
		av_insp_number(vbuf, sizeof(vbuf), value);
	heading(out, t, part, head, r, c, vbuf);
	if (!hidden && !isfinite(value))
		explain_nonfinite(out, t, part->tensor, value);
	explain_tensor(out, t, p, wts, part->tensor, value, head, r, c, width);
}

/* " U+732B" after b's text; " …" and false instead when it would pass
 * width (the first always goes in). */
static bool add_code_point(struct sb *b, uint32_t cp, bool first, int width)
{
	if (!first && width_of(b) + 12 > width) {
		sb_add(b, " …");
		return false;
	}
	sb_add(b, " U+%04X", (unsigned)cp);
	return true;
}

void av_insp_token(struct av_insp *out, const struct av_trace *t, const struct av_params *p,
		   bool source, int i, int width)
{
	memset(out, 0, sizeof(*out));
	const struct av_tokens *tk = source ? &t->source_tokens : &t->tokens;
	if (i < 0 || i >= tk->n)
		return;
	const char *text = tk->text[i];
	int id = source ? t->source_ids[i] : t->ids[i];
	bool oov = source ? t->source_oov[i] : t->oov[i];
	struct sb b = { 0 };
	sb_add(&b, source ? _("source token %d '%s': ") : _("sentence token %d '%s': "), i, text);
	if (oov)
		sb_add(&b, _("not in the vocabulary; row %d added from the seed and the word"), id);
	else if (p && p->vocab_size)
		sb_add(&b, _("vocabulary row %d of %d"), id, p->vocab_size);
	else   /* --model: the vocabulary is the model's, not the session's */
		sb_add(&b, _("vocabulary row %d"), id);
	add_taken(out, &b);

	/* the characters: code points, bytes, columns */
	/* TRANSLATORS: "3 bytes, 2 columns:", a word's size in UTF-8 and on
	   screen, in two pieces (each has its own plural) */
	sb_add(&b, P_("%zu byte, ", "%zu bytes, ", strlen(text)), strlen(text));
	sb_add(&b, P_("%d column:", "%d columns:", av_utf8_width(text)), av_utf8_width(text));
	size_t len = strlen(text), off = 0;
	int shown = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(text + off, len - off, &cp);
		if (k < 0 || !add_code_point(&b, cp, shown == 0, width))
			break;
		off += (size_t)k;
		shown++;
	}
	add_taken(out, &b);

	if (p && id >= 0 && id < p->vocab_size) {
		int D = p->d_model;
		sb_add(&b, _("embedding row:"));
		for (int c = 0; c < D; c++) {
			char v[32];
			av_insp_number(v, sizeof(v), p->token_embedding[(size_t)id * D + c]);
			if (width_of(&b) + (int)strlen(v) + 14 > width && c > 0) {
				sb_add(&b, " … (+%d)", D - c);
				break;
			}
			sb_add(&b, " %s", v);
		}
		add_taken(out, &b);
	}
	out->stored = out->derived = id;
	out->derived_ok = true;
}

/* --- a model's token, by its bytes --------------------------------------- */

/* " e7 8c ab" after b's text: bytes[from..to) in hex, " …" past width. */
static void add_hex(struct sb *b, const unsigned char *bytes, int from, int to, int width)
{
	for (int k = from; k < to; k++) {
		if (k > from && width_of(b) + 5 > width) {
			sb_add(b, " …");
			return;
		}
		sb_add(b, " %02x", bytes[k]);
	}
}

/* The token that holds byte pos. */
static int token_of_byte(const struct av_insp_bytes *raw, int pos)
{
	int i = 0;
	while (i + 1 < raw->n && raw->start[i + 1] <= pos)
		i++;
	return i;
}

/* Bytes from..to of the character at [cs, ce) in the tokens' text, which
 * token i holds only part of: "e7: a piece of a character, byte 1 of 3 of
 * '猫' U+732B (tokens 0 to 2)". */
static void add_piece(struct av_insp *out, const struct av_insp_bytes *raw, int cs, int ce,
		      uint32_t cp, int from, int to, int width)
{
	struct sb b = { 0 };
	add_hex(&b, raw->bytes, from, to, width);
	char *hex = sb_take(&b);
	char ch[8];
	snprintf(ch, sizeof(ch), "%.*s", ce - cs, (const char *)raw->bytes + cs);
	int first = token_of_byte(raw, cs), last = token_of_byte(raw, ce - 1);
	if (to - from == 1)
		add_line(out, _("%s: a piece of a character, byte %d of %d of '%s' U+%04X "
				"(tokens %d to %d)"), hex + 1, from - cs + 1, ce - cs, ch,
			 (unsigned)cp, first, last);
	else
		add_line(out, _("%s: a piece of a character, bytes %d to %d of %d of '%s' U+%04X "
				"(tokens %d to %d)"), hex + 1, from - cs + 1, to - cs, ce - cs, ch,
			 (unsigned)cp, first, last);
	free(hex);
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0);
}

/* Bytes [from, to) of token i that are not a whole character in it: part
 * of the character [cs, ce) (code point cp), or, not utf8, of none. */
struct piece {
	int from, to, cs, ce;
	uint32_t cp;
	bool utf8;
};

/* The whole characters of bytes [s, e) into cps (room for e - s) and
 * their columns, the other bytes into pieces (at most max); returns the
 * characters' count; whether every byte is a space (*spaces) and some
 * character a control (*controls). */
static int scan_chars(const struct av_insp_bytes *raw, int s, int e, uint32_t *cps, int *cols,
		      struct piece *pieces, int max, int *n_pieces, bool *spaces, bool *controls)
{
	const unsigned char *text = raw->bytes;
	int len = raw->start[raw->n], whole = 0;
	*cols = *n_pieces = 0;
	*spaces = e > s;
	*controls = false;
	/* from the start of the character byte s is in */
	int pos = (int)av_utf8_previous((const char *)text, (size_t)s + 1);
	while (pos < e) {
		uint32_t cp;
		int k = av_utf8_decode((const char *)text + pos, (size_t)(len - pos), &cp);
		struct piece *last = *n_pieces ? &pieces[*n_pieces - 1] : NULL;
		if (k < 0) {   /* a byte of no character (never in a run of a text) */
			if (pos >= s && last && !last->utf8 && last->to == pos)
				last->to++;
			else if (pos >= s && *n_pieces < max)
				pieces[(*n_pieces)++] = (struct piece){ pos, pos + 1, 0, 0, 0, false };
			*spaces = false;
			pos++;
			continue;
		}
		int cs = pos, ce = pos + k;
		pos = ce;
		if (ce <= s)   /* a whole character before the token ("a" of "a" 8c) */
			continue;
		*spaces &= cp == ' ' && cs >= s && ce <= e;
		if (cs < s || ce > e) {
			if (*n_pieces < max)
				pieces[(*n_pieces)++] = (struct piece){ cs > s ? cs : s, ce < e ? ce : e,
									cs, ce, cp, true };
			continue;
		}
		cps[whole++] = cp;
		*cols += av_cp_width(cp);
		*controls |= is_control(cp);
	}
	return whole;
}

void av_insp_piece(struct av_insp *out, const struct av_trace *t, const struct av_insp_bytes *raw,
		   int i, int width)
{
	memset(out, 0, sizeof(*out));
	if (i < 0 || i >= t->tokens.n || i >= raw->n)
		return;
	const unsigned char *text = raw->bytes;
	int s = raw->start[i], e = raw->start[i + 1];
	const char *label = t->tokens.text[i];
	struct sb b = { 0 };
	/* the label is what the screen shows: said as such when it is not
	 * the token's text ("<e7>" is one byte, "␣" a space) */
	if (strlen(label) == (size_t)(e - s) && memcmp(label, text + s, (size_t)(e - s)) == 0)
		sb_add(&b, _("sentence token %d '%s': "), i, label);
	else
		sb_add(&b, _("sentence token %d, shown as '%s': "), i, label);
	sb_add(&b, _("vocabulary row %d"), t->ids[i]);
	add_taken(out, &b);

	sb_add(&b, P_("%d byte:", "%d bytes:", e - s), e - s);
	add_hex(&b, text, s, e, width);
	add_taken(out, &b);

	uint32_t *cps = av_malloc((size_t)(e - s + 1) * sizeof(uint32_t));
	struct piece pieces[4];
	int cols, n_pieces;
	bool spaces, controls;
	int whole = scan_chars(raw, s, e, cps, &cols, pieces, 4, &n_pieces, &spaces, &controls);
	if (whole > 0) {
		/* TRANSLATORS: "2 characters, 2 columns:", then their code points */
		sb_add(&b, P_("%d character, ", "%d characters, ", whole), whole);
		sb_add(&b, P_("%d column:", "%d columns:", cols), cols);
		for (int k = 0; k < whole; k++)
			if (!add_code_point(&b, cps[k], k == 0, width))
				break;
		add_taken(out, &b);
	}
	free(cps);
	for (int k = 0; k < n_pieces; k++) {
		const struct piece *pc = &pieces[k];
		if (pc->utf8) {
			add_piece(out, raw, pc->cs, pc->ce, pc->cp, pc->from, pc->to, width);
			continue;
		}
		add_hex(&b, text, pc->from, pc->to, width);
		char *hex = sb_take(&b);
		add_line(out, _("%s: not UTF-8, no character"), hex + 1);
		free(hex);
	}
	if (spaces)
		add_line(out, "%s", _("the label shows each space as ␣, so that it is seen"));
	else if (controls)
		add_line(out, "%s", _("the label writes a control character as \\n, \\t, \\r or "
				      "\\xNN"));
	out->stored = out->derived = t->ids[i];
	out->derived_ok = true;
}

double av_insp_row_sum(const struct av_part *part, int r)
{
	double s = 0;
	for (int c = 0; c < part->cols; c++)
		s += av_part_at(part, r, c);
	return s;
}

/* --- formulas and shapes ------------------------------------------------- */

char *av_insp_formula(const struct av_trace *t, enum av_stage st, int head)
{
	int dh = t->head_dim;
	char div[32];
	av_insp_number(div, sizeof(div), t->divisor);
	switch (st) {
	case AV_STAGE_TOKENS:
		if (av_trace_is_model_layer(t))
			return av_printf(_("tokens = BPE(sentence): the model's byte-pair pieces, "
					 "a space joined to the word after it; n = %d"), t->n);
		return av_printf(_("tokens = split(sentence): words, punctuation, each CJK "
				 "character; n = %d"), t->n);
	case AV_STAGE_EMBEDDING:
		if (av_trace_is_model_layer(t))
			return av_printf(_("X = ln_1(x)   (x: the stream into this layer; layer 0's "
					 "is wte[id] + wpe[pos])"));
		return av_printf(_("X = token_embedding[id] + %s"),
				 t->cfg.positional == AV_POS_SINUSOIDAL ?
				 "PE(pos)  (sin/cos)" : t->cfg.positional == AV_POS_LEARNED ?
				 "position_embedding[pos]" : _("0  (no positions)"));
	case AV_STAGE_PROJECTION:
		return av_printf(_("Q = X·W_qᵀ  K = %s·W_kᵀ  V = %s·W_vᵀ%s;  head %d = cols %d..%d"),
				 t->cfg.mode == AV_MODE_CROSS ? "X_src" : "X",
				 t->cfg.mode == AV_MODE_CROSS ? "X_src" : "X",
				 t->cfg.bias ? " (+b)" : "", head, head * dh, head * dh + dh - 1);
	case AV_STAGE_SCORES:
		return av_printf(_("scores_h = Q_h · K_hᵀ   (Q_h = Q[:, %d..%d])"), head * dh,
				 head * dh + dh - 1);
	case AV_STAGE_SCALED: {
		char T[32];
		snprintf(T, sizeof(T), "%g", t->cfg.temperature);
		if (t->cfg.scale == AV_SCALE_NONE)
			return av_printf(_("scaled = scores / T = scores / %s   (scale none)"), div);
		if (t->cfg.temperature == 1.0)
			return av_printf(_("scaled = scores / %s = scores / %s"),
					 scale_symbol(t->cfg.scale), div);
		return av_printf(_("scaled = scores / (%s · T) = scores / (%s × %s) = scores / %s"),
				 scale_symbol(t->cfg.scale),
				 t->cfg.scale == AV_SCALE_DK ? "√dk" : "√D", T, div);
	}
	case AV_STAGE_MASKED: {
		int padded = 0;
		for (int j = 0; j < t->m; j++)
			padded += t->key_hidden[j];
		const char *pad = padded ? _(" and in the hidden key columns (x)") : "";
		if (t->cfg.mode == AV_MODE_CAUSAL)
			return av_printf(_("masked = scaled, −∞ where key j > query i (causal)%s"), pad);
		if (padded)
			return av_printf(_("masked = scaled, −∞ in the hidden key columns (padding)"));
		return av_printf(_("masked = scaled   (no mask: m adds the causal mask, x hides "
				 "a key)"));
	}
	case AV_STAGE_SOFTMAX:
		return av_printf(_("weights = softmax(masked) per row: exp(x − max) / Σ exp(x − max)"));
	case AV_STAGE_CONTEXT:
		return av_printf(_("context_h = weights_h · V_h   (each row: a weighted sum of "
				 "value rows)"));
	case AV_STAGE_OUTPUT:
		if (av_trace_is_model_layer(t))
			return av_printf(_("output = concat(heads) · W_oᵀ%s;  residual = output + x "
					 "(x before ln_1)"), t->cfg.bias ? " + b_o" : "");
		return av_printf(_("output = concat(heads) · W_oᵀ%s;  residual = output + X"),
				 t->cfg.bias ? " + b_o" : "");
	case AV_STAGE_COUNT:
		break;
	}
	return av_strdup("");
}

/* The most tokens a sentence may have here: the tokenizer's limit, or a
 * learned position table's rows when fewer (a GPT-2 fixture's n_ctx 32). */
static int max_tokens(const struct av_trace *t)
{
	if (t->cfg.positional == AV_POS_LEARNED && t->cfg.max_positions < AV_MAX_TOKENS)
		return t->cfg.max_positions;
	return AV_MAX_TOKENS;
}

char *av_insp_shapes(const struct av_trace *t, enum av_stage st, int head)
{
	int n = t->n, m = t->m, D = t->d_model, dh = t->head_dim, H = t->heads;
	switch (st) {
	case AV_STAGE_TOKENS:
		if (t->cfg.mode == AV_MODE_CROSS)
			return av_printf(_("n = %d query tokens, m = %d source tokens (max %d)"), n, m,
					 max_tokens(t));
		return av_printf(_("n = %d tokens (max %d)"), n, max_tokens(t));
	case AV_STAGE_EMBEDDING:
		if (av_trace_is_model_layer(t))
			return av_printf(_("x (%d, %d) → layer norm per row → X (%d, %d)  float32"),
					 n, D, n, D);
		if (t->source_embedding)
			return av_printf(_("token_emb (%d, %d) + pos_enc (%d, %d) = X (%d, %d);  "
					 "X_src (%d, %d)"), n, D, n, D, n, D, m, D);
		return av_printf(_("token_emb (%d, %d) + pos_enc (%d, %d) = X (%d, %d)  float32"),
				 n, D, n, D, n, D);
	case AV_STAGE_PROJECTION:
		return av_printf(P_("Q (%d, %d)  K (%d, %d)  V (%d, %d);  W (%d, %d);  "
				    "H = %d head of dk = %d",
				    "Q (%d, %d)  K (%d, %d)  V (%d, %d);  W (%d, %d);  "
				    "H = %d heads of dk = %d", H),
				 n, D, m, D, m, D, D, D, H, dh);
	case AV_STAGE_SCORES:
		return av_printf(_("Q_h (%d, %d) · K_hᵀ (%d, %d) → scores_h (%d, %d);  head %d of %d"),
				 n, dh, dh, m, n, m, head, H);
	case AV_STAGE_SCALED: {
		char div[32];
		av_insp_number(div, sizeof(div), t->divisor);
		return av_printf(_("scores_h (%d, %d) / %s → scaled_h (%d, %d);  head %d of %d"),
				 n, m, div, n, m, head, H);
	}
	case AV_STAGE_MASKED: {
		int hidden = 0;
		for (size_t c = 0; c < (size_t)n * m; c++)
			hidden += t->mask[c] == 0;
		return av_printf(_("mask (%d, %d): %d of %d cells hidden → masked_h (%d, %d);  "
				 "head %d of %d"), n, m, hidden, n * m, n, m, head, H);
	}
	case AV_STAGE_SOFTMAX: {
		int empty = 0;
		for (int i = 0; i < n; i++)
			empty += t->row_hidden[i];
		if (empty)
			return av_printf(_("weights_h (%d, %d), rows sum to 1 (Σ; 0 if every key "
					 "hidden);  head %d of %d"), n, m, head, H);
		return av_printf(_("weights_h (%d, %d), each row sums to 1 (Σ column);  head %d of %d"),
				 n, m, head, H);
	}
	case AV_STAGE_CONTEXT:
		return av_printf(_("weights_h (%d, %d) · V_h (%d, %d) → context_h (%d, %d);  "
				 "head %d of %d"), n, m, m, dh, n, dh, head, H);
	case AV_STAGE_OUTPUT:
		if (av_trace_is_model_layer(t))
			return av_printf(_("concat (%d, %d) · W_oᵀ (%d, %d) → output (%d, %d);  "
					 "+ x → residual (%d, %d)"), n, D, D, D, n, D, n, D);
		return av_printf(_("concat (%d, %d) · W_oᵀ (%d, %d) → output (%d, %d);  "
				 "+ X → residual (%d, %d)"), n, D, D, D, n, D, n, D);
	case AV_STAGE_COUNT:
		break;
	}
	return av_strdup("");
}
