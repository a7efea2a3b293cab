/* test_inspector.c: the inspector re-derives every number on the screen
 * from the stage's inputs (dot products, the division, the exponentials of
 * the row, the weighted sums); here every cell of every stage must come
 * out equal to what the engine stored. This is what keeps the screen from
 * doing maths of its own: it only shows the trace and this text. Also the
 * text itself (terms, shortening, masks) and the formulas and shapes. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "attention.h"
#include "model/gpt2.h"
#include "sample.h"
#include "ui/widgets/inspector.h"
#include "ui/stages.h"
#include "utf8.h"
#include "util.h"

struct fixture {
	struct av_params p;
	struct av_config cfg;
	struct av_trace t;
};

/* A layer with the defaults (D=8, H=2) unless changed. */
static void run(struct fixture *f, int D, int H, enum av_mode mode, const char *sentence,
		const char *source, const int *hidden, int n_hidden)
{
	memset(f, 0, sizeof(*f));
	av_config_default(&f->cfg);
	f->cfg.d_model = D;
	f->cfg.heads = H;
	f->cfg.mode = mode;
	f->cfg.bias = true;
	static const char *const vocab[] = { "china", "panda", "japan", "cherry", "the", "cat" };
	av_params_init(&f->p, &f->cfg, vocab, 6);
	char *cause = NULL;
	if (!av_trace_run(&f->t, &f->p, &f->cfg, sentence, source, hidden, n_hidden, &cause)) {
		fprintf(stderr, "run: %s\n", cause);
		fail();
	}
}

static void done(struct fixture *f)
{
	av_trace_free(&f->t);
	av_params_free(&f->p);
}

static bool close_enough(double a, double b)
{
	return fabs(a - b) <= 1e-5 * fmax(1.0, fabs(b));
}

/* Every cell of every part of every stage and head agrees. */
static int check_all(struct fixture *f)
{
	int checked = 0;
	for (int st = 0; st < AV_STAGE_COUNT; st++) {
		for (int h = 0; h < f->t.heads; h++) {
			struct av_part parts[AV_MAX_PARTS];
			int n = av_ui_stage_parts(&f->t, (enum av_stage)st, h, parts);
			for (int k = 0; k < n; k++) {
				for (int r = 0; r < parts[k].rows; r++) {
					for (int c = 0; c < parts[k].cols; c++) {
						struct av_insp in;
						av_insp_cell(&in, &f->t, &f->p, &parts[k], h, r, c, 100);
						if (parts[k].tensor != AV_T_SOURCE_EMBEDDING) {
							if (!in.derived_ok || !close_enough(in.derived, in.stored))
								fprintf(stderr, "%s %s[%d,%d] head %d: derived %.9g, "
									"stored %.9g\n", av_ui_stage_titles[st],
									parts[k].name, r, c, h, in.derived,
									in.stored);
							assert_true(in.derived_ok);
							assert_true(close_enough(in.derived, in.stored));
						}
						assert_true(in.n >= 2);
						for (int l = 0; l < in.n; l++)
							assert_true(av_utf8_valid(in.line[l], strlen(in.line[l]),
										 NULL));
						av_insp_free(&in);
						checked++;
					}
				}
			}
		}
	}
	return checked;
}

static void test_self_every_cell(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 8, 2, AV_MODE_SELF, "china panda japan cherry", NULL, NULL, 0);
	assert_true(check_all(&f) > 400);
	done(&f);
}

static void test_causal_and_padding_every_cell(void **state)
{
	(void)state;
	struct fixture f;
	const int hidden[] = { 1 };
	run(&f, 8, 2, AV_MODE_CAUSAL, "china panda japan cherry xyz", NULL, hidden, 1);
	check_all(&f);
	done(&f);
}

static void test_cross_every_cell(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 6, 3, AV_MODE_CROSS, "china panda", "the cat sat", NULL, 0);
	check_all(&f);
	done(&f);
}

static const char *find_line(const struct av_insp *in, const char *text)
{
	for (int i = 0; i < in->n; i++)
		if (strstr(in->line[i], text))
			return in->line[i];
	return NULL;
}

/* A row with every key hidden: weights 0, and the text says why. */
static void test_all_hidden_row(void **state)
{
	(void)state;
	struct fixture f;
	const int hidden[] = { 0 };
	run(&f, 4, 1, AV_MODE_CAUSAL, "china panda", NULL, hidden, 1);
	check_all(&f);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 0, parts);
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 0, 100);
	assert_non_null(strstr(in.line[1], "every key of query 0 is hidden"));
	/* defect 3: what attnview shows and what PyTorch would give */
	assert_non_null(find_line(&in, "attnview gives this row 0s (sum 0, not 1)"));
	assert_non_null(find_line(&in, "PyTorch: masked_fill(−1e20) gives 1/2 = 0.500 each; "
				  "masked_fill(−inf) gives NaN"));
	av_insp_free(&in);
	char *shapes = av_insp_shapes(&f.t, AV_STAGE_SOFTMAX, 0);
	assert_non_null(strstr(shapes, "0 if every key hidden"));
	free(shapes);
	done(&f);
}

static void test_scores_text(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 4, 1, AV_MODE_SELF, "china panda", NULL, NULL, 0);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SCORES, 0, parts);
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 1, 200);
	const char *l = find_line(&in, "q_0·k_1 = Σ_c q_0[c]·k_1[c] = ");
	assert_non_null(l);
	/* dh = 4: all four products fit in 200 columns, no shortening */
	assert_null(strstr(l, "…"));
	int products = 0;
	for (const char *p = l; (p = strstr(p, "×")); p++)
		products++;
	assert_int_equal(products, 4);
	assert_non_null(strstr(in.line[0], "scores_h[0,1]"));
	assert_non_null(strstr(in.line[0], "query 0 'china', key 1 'panda'"));
	av_insp_free(&in);
	done(&f);
}

/* D = 512: 64 terms per score, 512 per projection: shortened to fit. */
static void test_long_sums_shortened(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 512, 8, AV_MODE_SELF, "the cat", NULL, NULL, 0);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SCORES, 3, parts);
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 3, 1, 0, 80);
	const char *l = find_line(&in, "Σ_c");
	assert_non_null(l);
	assert_non_null(strstr(l, " + … (+"));
	assert_non_null(strstr(l, " terms) = "));
	assert_true(av_utf8_width(l) <= 80);
	assert_non_null(find_line(&in, "head 3's columns 192..255"));
	av_insp_free(&in);

	av_ui_stage_parts(&f.t, AV_STAGE_PROJECTION, 3, parts);
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 3, 0, 200, 80);
	l = find_line(&in, "Σ_k X[0,k]·W_q[200,k] + b_q[200]");
	assert_non_null(l);
	assert_non_null(strstr(l, " terms) "));
	assert_true(av_utf8_width(l) <= 80);
	assert_non_null(strstr(in.line[0], "head 3's column 8"));
	av_insp_free(&in);
	done(&f);
}

static void test_masked_text(void **state)
{
	(void)state;
	struct fixture f;
	const int hidden[] = { 0 };
	run(&f, 4, 1, AV_MODE_CAUSAL, "china panda japan", NULL, hidden, 1);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_MASKED, 0, parts);
	struct av_insp in;
	/* (1, 2): the causal mask */
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 1, 2, 100);
	assert_non_null(strstr(in.line[0], "= −∞"));
	assert_non_null(find_line(&in, "causal mask, j > i"));
	assert_null(find_line(&in, "padding"));
	assert_true(in.derived == AV_MASKED_VALUE);
	av_insp_free(&in);
	/* (2, 0): the padding mask */
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 2, 0, 100);
	assert_non_null(find_line(&in, "padding mask"));
	av_insp_free(&in);
	/* (2, 1): visible */
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 2, 1, 100);
	assert_non_null(find_line(&in, "is visible to query 2"));
	av_insp_free(&in);
	done(&f);
}

static void test_softmax_and_context_text(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 4, 2, AV_MODE_CAUSAL, "china panda japan", NULL, NULL, 0);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 1, parts);
	assert_true(parts[0].row_sums);
	for (int r = 0; r < 3; r++)
		assert_true(fabs(av_insp_row_sum(&parts[0], r) - 1.0) < 1e-6);
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 1, 2, 1, 120);
	const char *w = find_line(&in, "w = exp(x − max) / Σ = exp(");
	assert_non_null(w);
	assert_true(av_utf8_width(w) <= 80);
	const char *row = find_line(&in, "exp(row 2 − max):");
	assert_non_null(row);
	assert_non_null(strstr(row, "["));   /* the cursor's term */
	assert_non_null(strstr(row, "Σ = "));
	av_insp_free(&in);
	/* a hidden key of the softmax row: weight 0 */
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 1, 0, 2, 120);
	assert_non_null(find_line(&in, "= 0"));
	assert_non_null(find_line(&in, "causal"));
	av_insp_free(&in);

	av_ui_stage_parts(&f.t, AV_STAGE_CONTEXT, 1, parts);
	assert_int_equal(parts[0].tensor, AV_T_WEIGHTS);
	assert_int_equal(parts[1].tensor, AV_T_CONTEXT);
	av_insp_cell(&in, &f.t, &f.p, &parts[1], 1, 2, 0, 200);
	const char *l = find_line(&in, "context = Σ_j w_2,j · V_h[j,0] = ");
	assert_non_null(l);
	assert_null(strstr(l, "…"));
	av_insp_free(&in);
	done(&f);
}

static void test_tokens_text(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 4, 1, AV_MODE_SELF, "china 熊猫", NULL, NULL, 0);
	struct av_insp in;
	av_insp_token(&in, &f.t, &f.p, false, 0, 100);
	assert_non_null(strstr(in.line[0], "vocabulary row 0 of"));
	av_insp_free(&in);
	av_insp_token(&in, &f.t, &f.p, false, 1, 100);
	assert_non_null(strstr(in.line[0], "'熊': not in the vocabulary"));
	assert_non_null(find_line(&in, "3 bytes, 2 columns: U+718A"));
	av_insp_free(&in);
	done(&f);
}

/* Token i's lines, the first n of them, as av_insp_piece gives them. */
static void expect_piece(const struct av_trace *t, const struct av_insp_bytes *raw, int i,
			 const char *const *want, int n)
{
	struct av_insp in;
	av_insp_piece(&in, t, raw, i, 100);
	if (in.n != n)
		fail_msg("token %d: %d lines, expected %d (first: %s)", i, in.n, n,
			 in.n ? in.line[0] : "none");
	for (int k = 0; k < n; k++)
		if (strcmp(in.line[k], want[k]) != 0)
			fail_msg("token %d line %d: \"%s\", expected \"%s\"", i, k, in.line[k],
				 want[k]);
	assert_int_equal((int)in.stored, t->ids[i]);
	av_insp_free(&in);
}

/* A model's token (--model) is explained by its bytes, its label only
 * as the label: "<e7>" was described as 4 bytes U+003C U+0065 U+0037
 * U+003E, and "␣" as 3 bytes U+2423, where each is a single byte. */
static void test_model_piece(void **state)
{
	(void)state;
	/* a猫 b, two spaces, a byte of no character, 我, x */
	static const unsigned char bytes[] = "a\xe7\x8c\xab b  \xff\xe6\x88\x91x";
	static const int start[] = { 0, 2, 3, 6, 8, 9, 11, 12, 13 };
	static const char *const labels[] = {
		"a<e7>", "<8c>", "<ab> b", "␣␣", "<ff>", "<e6 88>", "<91>", "x",
	};
	struct av_trace t;
	memset(&t, 0, sizeof(t));
	t.tokens.n = 8;
	for (int i = 0; i < 8; i++) {
		t.tokens.text[i] = av_strdup(labels[i]);
		t.ids[i] = 100 + i;
	}
	struct av_insp_bytes raw = { bytes, start, 8 };
	expect_piece(&t, &raw, 0, (const char *const[]){
		"sentence token 0, shown as 'a<e7>': vocabulary row 100",
		"2 bytes: 61 e7",
		"1 character, 1 column: U+0061",
		"e7: a piece of a character, byte 1 of 3 of '猫' U+732B (tokens 0 to 2)" }, 4);
	expect_piece(&t, &raw, 1, (const char *const[]){
		"sentence token 1, shown as '<8c>': vocabulary row 101",
		"1 byte: 8c",
		"8c: a piece of a character, byte 2 of 3 of '猫' U+732B (tokens 0 to 2)" }, 3);
	expect_piece(&t, &raw, 2, (const char *const[]){
		"sentence token 2, shown as '<ab> b': vocabulary row 102",
		"3 bytes: ab 20 62",
		"2 characters, 2 columns: U+0020 U+0062",
		"ab: a piece of a character, byte 3 of 3 of '猫' U+732B (tokens 0 to 2)" }, 4);
	expect_piece(&t, &raw, 3, (const char *const[]){
		"sentence token 3, shown as '␣␣': vocabulary row 103",
		"2 bytes: 20 20",
		"2 characters, 2 columns: U+0020 U+0020",
		"the label shows each space as ␣, so that it is seen" }, 4);
	expect_piece(&t, &raw, 4, (const char *const[]){
		"sentence token 4, shown as '<ff>': vocabulary row 104",
		"1 byte: ff",
		"ff: not UTF-8, no character" }, 3);
	expect_piece(&t, &raw, 5, (const char *const[]){
		"sentence token 5, shown as '<e6 88>': vocabulary row 105",
		"2 bytes: e6 88",
		"e6 88: a piece of a character, bytes 1 to 2 of 3 of '我' U+6211 (tokens 5 to 6)" },
		3);
	expect_piece(&t, &raw, 6, (const char *const[]){
		"sentence token 6, shown as '<91>': vocabulary row 106",
		"1 byte: 91",
		"91: a piece of a character, byte 3 of 3 of '我' U+6211 (tokens 5 to 6)" }, 3);
	/* a label that is the token's text is said as the teaching layer's */
	expect_piece(&t, &raw, 7, (const char *const[]){
		"sentence token 7 'x': vocabulary row 107",
		"1 byte: 78",
		"1 character, 1 column: U+0078" }, 3);
	/* a control character: the label's escape said */
	static const unsigned char tab[] = "\t";
	static const int tab_start[] = { 0, 1 };
	av_tokens_free(&t.tokens);
	t.tokens.n = 1;
	t.tokens.text[0] = av_strdup("\\t");
	struct av_insp_bytes raw_tab = { tab, tab_start, 1 };
	expect_piece(&t, &raw_tab, 0, (const char *const[]){
		"sentence token 0, shown as '\\t': vocabulary row 100",
		"1 byte: 09",
		"1 character, 0 columns: U+0009",
		"the label writes a control character as \\n, \\t, \\r or \\xNN" }, 4);
	/* long tokens are cut to the width, never past it */
	static unsigned char many[200];
	memset(many, 'a', sizeof(many));
	static const int many_start[] = { 0, 200 };
	free(t.tokens.text[0]);
	t.tokens.text[0] = av_strdup("aaaa");
	struct av_insp_bytes raw_many = { many, many_start, 1 };
	struct av_insp in;
	av_insp_piece(&in, &t, &raw_many, 0, 60);
	assert_int_equal(in.n, 3);
	assert_non_null(strstr(in.line[1], "200 bytes: 61 61"));
	assert_non_null(strstr(in.line[1], " …"));
	assert_true(av_utf8_width(in.line[1]) <= 60);
	assert_non_null(strstr(in.line[2], "200 characters, 200 columns: U+0061"));
	assert_true(av_utf8_width(in.line[2]) <= 60);
	av_insp_free(&in);
	av_tokens_free(&t.tokens);
}

static void test_formulas(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 8, 2, AV_MODE_SELF, "china panda", NULL, NULL, 0);
	char *s = av_insp_formula(&f.t, AV_STAGE_SCALED, 0);
	assert_string_equal(s, "scaled = scores / √dk = scores / 2.000");
	free(s);
	s = av_insp_formula(&f.t, AV_STAGE_SCORES, 1);
	assert_string_equal(s, "scores_h = Q_h · K_hᵀ   (Q_h = Q[:, 4..7])");
	free(s);
	s = av_insp_shapes(&f.t, AV_STAGE_SCORES, 1);
	assert_string_equal(s, "Q_h (2, 4) · K_hᵀ (4, 2) → scores_h (2, 2);  head 1 of 2");
	free(s);
	s = av_insp_shapes(&f.t, AV_STAGE_PROJECTION, 0);
	assert_non_null(strstr(s, "Q (2, 8)  K (2, 8)  V (2, 8)"));
	assert_non_null(strstr(s, "H = 2 heads of dk = 4"));
	free(s);
	s = av_insp_formula(&f.t, AV_STAGE_MASKED, 0);
	assert_non_null(strstr(s, "no mask"));
	free(s);
	done(&f);

	/* one head is "1 head", not "1 heads" */
	run(&f, 4, 1, AV_MODE_SELF, "china panda", NULL, NULL, 0);
	s = av_insp_shapes(&f.t, AV_STAGE_PROJECTION, 0);
	assert_non_null(strstr(s, "H = 1 head of dk = 4"));
	free(s);
	done(&f);

	run(&f, 8, 2, AV_MODE_CAUSAL, "china panda", NULL, NULL, 0);
	s = av_insp_formula(&f.t, AV_STAGE_MASKED, 0);
	assert_string_equal(s, "masked = scaled, −∞ where key j > query i (causal)");
	free(s);
	s = av_insp_shapes(&f.t, AV_STAGE_MASKED, 0);
	assert_non_null(strstr(s, "1 of 4 cells hidden"));
	free(s);
	done(&f);

	/* temperature and the other scales */
	run(&f, 8, 2, AV_MODE_SELF, "china panda", NULL, NULL, 0);
	f.cfg.temperature = 2;
	av_trace_forward(&f.t, &f.p, &f.cfg);
	s = av_insp_formula(&f.t, AV_STAGE_SCALED, 0);
	assert_string_equal(s, "scaled = scores / (√dk · T) = scores / (√dk × 2) = scores / 4.000");
	free(s);
	f.cfg.scale = AV_SCALE_NONE;
	av_trace_forward(&f.t, &f.p, &f.cfg);
	s = av_insp_formula(&f.t, AV_STAGE_SCALED, 0);
	assert_string_equal(s, "scaled = scores / T = scores / 2.000   (scale none)");
	free(s);
	f.cfg.scale = AV_SCALE_DMODEL;
	f.cfg.temperature = 1;
	av_trace_forward(&f.t, &f.p, &f.cfg);
	s = av_insp_formula(&f.t, AV_STAGE_SCALED, 0);
	assert_string_equal(s, "scaled = scores / √D = scores / 2.828");
	free(s);
	check_all(&f);
	done(&f);
}

static void test_numbers(void **state)
{
	(void)state;
	char b[32];
	av_insp_number(b, sizeof(b), 0);
	assert_string_equal(b, "0");
	av_insp_number(b, sizeof(b), -1.5);
	assert_string_equal(b, "−1.500");   /* U+2212, as every number on the screen */
	av_insp_number(b, sizeof(b), 1e-20);
	assert_string_equal(b, "1e-20");
	av_insp_number(b, sizeof(b), AV_MASKED_VALUE);
	assert_string_equal(b, "−1e+20");
	av_insp_number(b, sizeof(b), (double)NAN);
	assert_string_equal(b, "nan");
	av_insp_number(b, sizeof(b), -(double)INFINITY);
	assert_string_equal(b, "−inf");
}

/* No "−∞ − -1.982" or "−7.406 − -1.045" (defect 8): subtracting a negative
 * max is written as adding it, and every minus is the same character. */
static bool has_double_minus(const char *l)
{
	static const char *const bad[] = { "− -", "- -", "− −", "- −", "−-", "--", "+ −",
					   "+ -" };
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		if (strstr(l, bad[k]))
			return true;
	return strchr(l, '-') && !strstr(l, "e-") && !strstr(l, "e+") ? true : false;
}

static void test_one_minus_sign(void **state)
{
	(void)state;
	struct fixture f;
	/* causal, every head: rows whose max is negative and hidden keys */
	run(&f, 8, 2, AV_MODE_CAUSAL, "china panda japan cherry the cat", NULL, NULL, 0);
	int negative_max = 0;
	for (int st = AV_STAGE_EMBEDDING; st < AV_STAGE_COUNT; st++) {
		for (int h = 0; h < f.t.heads; h++) {
			struct av_part parts[AV_MAX_PARTS];
			int n = av_ui_stage_parts(&f.t, (enum av_stage)st, h, parts);
			for (int k = 0; k < n; k++)
				for (int r = 0; r < parts[k].rows; r++)
					for (int c = 0; c < parts[k].cols; c++) {
						struct av_insp in;
						av_insp_cell(&in, &f.t, &f.p, &parts[k], h, r, c, 400);
						for (int i = 0; i < in.n; i++) {
							if (has_double_minus(in.line[i]))
								fprintf(stderr, "%s\n", in.line[i]);
							assert_false(has_double_minus(in.line[i]));
							negative_max += strstr(in.line[i], "exp(") &&
									strstr(in.line[i], " + ") &&
									parts[k].tensor == AV_T_WEIGHTS;
						}
						av_insp_free(&in);
					}
		}
	}
	/* some row's max was negative, so "x − max" became "x + |max|" */
	assert_true(negative_max > 0);
	done(&f);
}

/* Defect 13: the inspector names the matrix (W_q, W_k, W_v, W_o and their
 * biases), so Q, K, V and the output no longer read the same. */
static void test_projection_names_matrix(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 4, 1, AV_MODE_SELF, "china panda japan", NULL, NULL, 0);
	struct av_part parts[AV_MAX_PARTS];
	struct av_insp in;
	av_ui_stage_parts(&f.t, AV_STAGE_PROJECTION, 0, parts);
	static const char *const want[] = {
		"Q[0,2] = X[0,:] · W_qᵀ[:,2] + b_q[2]", "K[0,2] = X[0,:] · W_kᵀ[:,2] + b_k[2]",
		"V[0,2] = X[0,:] · W_vᵀ[:,2] + b_v[2]",
	};
	for (int k = 0; k < 3; k++) {
		av_insp_cell(&in, &f.t, &f.p, &parts[k], 0, 0, 2, 120);
		assert_non_null(find_line(&in, want[k]));
		assert_null(find_line(&in, "row 0 of X · row 2 of W "));
		av_insp_free(&in);
	}
	av_insp_cell(&in, &f.t, &f.p, &parts[2], 0, 0, 2, 200);
	assert_non_null(find_line(&in, "= Σ_k X[0,k]·W_v[2,k] + b_v[2] = "));
	av_insp_free(&in);
	av_ui_stage_parts(&f.t, AV_STAGE_OUTPUT, 0, parts);
	assert_true(parts[1].own);
	av_insp_cell(&in, &f.t, &f.p, &parts[1], 0, 1, 3, 120);
	assert_non_null(find_line(&in, "output[1,3] = concat[1,:] · W_oᵀ[:,3] + b_o[3]"));
	av_insp_free(&in);
	/* the stage's own part: context_h at context, output at output */
	av_ui_stage_parts(&f.t, AV_STAGE_CONTEXT, 0, parts);
	assert_false(parts[0].own);
	assert_true(parts[1].own);
	done(&f);
}

/* The factors of the scores, Q_h and K_hᵀ: every cell agrees with Q and K,
 * and their product is the score. */
static void test_score_factors(void **state)
{
	(void)state;
	struct fixture f;
	run(&f, 8, 2, AV_MODE_SELF, "china panda japan", NULL, NULL, 0);
	struct av_part fac[2], sc[AV_MAX_PARTS];
	for (int h = 0; h < 2; h++) {
		av_ui_score_factors(&f.t, h, fac);
		av_ui_stage_parts(&f.t, AV_STAGE_SCORES, h, sc);
		assert_int_equal(fac[0].rows, 3);
		assert_int_equal(fac[0].cols, 4);
		assert_int_equal(fac[1].rows, 4);
		assert_int_equal(fac[1].cols, 3);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++) {
				double dot = 0;
				for (int c = 0; c < 4; c++)
					dot += (double)av_part_at(&fac[0], i, c) * av_part_at(&fac[1], c, j);
				assert_true(close_enough(dot, av_part_at(&sc[0], i, j)));
			}
		for (int k = 0; k < 2; k++)
			for (int r = 0; r < fac[k].rows; r++)
				for (int c = 0; c < fac[k].cols; c++) {
					struct av_insp in;
					av_insp_cell(&in, &f.t, &f.p, &fac[k], h, r, c, 100);
					assert_true(in.derived_ok);
					assert_true(close_enough(in.derived, in.stored));
					av_insp_free(&in);
				}
	}
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &fac[1], 1, 2, 1, 100);
	assert_non_null(find_line(&in, "K_hᵀ[2,1] = K[1,6]"));
	av_insp_free(&in);
	done(&f);
}

/* Q and K of size `scale` times the embedding: W_q = W_k = scale · I. */
static void huge_qk(struct av_params *p, double scale)
{
	int D = p->d_model;
	for (int r = 0; r < D; r++)
		for (int c = 0; c < D; c++)
			p->w_q[r * D + c] = p->w_k[r * D + c] = r == c ? (float)scale : 0.0f;
	if (p->b_q)
		memset(p->b_q, 0, (size_t)D * sizeof(float));
	if (p->b_k)
		memset(p->b_k, 0, (size_t)D * sizeof(float));
}

static bool any_nonfinite(const float *x, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (!isfinite(x[k]))
			return true;
	return false;
}

/* Issue 8: a stage with inf or NaN says what happened. Weights large
 * enough that the scores are finite but scores / (√dk·T) with T = 0.01 is
 * not: the scaled stage overflows, softmax's exp(inf − inf) gives NaN. */
static void test_nonfinite_explained(void **state)
{
	(void)state;
	struct fixture f;
	memset(&f, 0, sizeof(f));
	av_config_default(&f.cfg);
	f.cfg.d_model = 4;
	f.cfg.heads = 1;
	f.cfg.temperature = 0.01;
	static const char *const vocab[] = { "china", "panda" };
	av_params_init(&f.p, &f.cfg, vocab, 2);
	char *cause = NULL;
	size_t cells = 4;
	bool found = false;
	for (double scale = 1e17; scale < 1e20 && !found; scale *= 1.5) {
		huge_qk(&f.p, scale);
		av_trace_free(&f.t);
		assert_true(av_trace_run(&f.t, &f.p, &f.cfg, "china panda", NULL, NULL, 0,
					 &cause));
		found = !any_nonfinite(f.t.scores, cells) && any_nonfinite(f.t.scaled, cells);
	}
	assert_true(found);
	struct av_part parts[AV_MAX_PARTS];
	struct av_insp in;
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 0, parts);
	int r = 0;
	while (r < 2 && !isnan(av_part_at(&parts[0], r, 0)))
		r++;
	assert_true(r < 2);
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, r, 0, 100);
	assert_non_null(strstr(in.line[0], "= nan"));
	assert_non_null(find_line(&in, "exp overflowed: T=0.01 makes every score 100 times "
				  "larger (±inf), exp(inf−inf) = NaN"));
	av_insp_free(&in);
	av_ui_stage_parts(&f.t, AV_STAGE_SCALED, 0, parts);
	for (int k = 0; k < 4; k++) {
		if (isfinite(av_part_at(&parts[0], k / 2, k % 2)))
			continue;
		av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, k / 2, k % 2, 100);
		assert_non_null(strstr(in.line[0], "inf"));
		assert_non_null(find_line(&in, "overflowed float32"));
		av_insp_free(&in);
	}
	/* larger still: the scores themselves overflow */
	huge_qk(&f.p, 1e30);
	av_trace_free(&f.t);
	f.cfg.temperature = 1;
	assert_true(av_trace_run(&f.t, &f.p, &f.cfg, "china panda", NULL, NULL, 0, &cause));
	av_ui_stage_parts(&f.t, AV_STAGE_SCORES, 0, parts);
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 0, 100);
	assert_false(isfinite(in.stored));
	assert_non_null(find_line(&in, "q·k overflowed float32"));
	av_insp_free(&in);
	done(&f);
}

/* A layer of a model (--model): X is ln_1 of the layer's input x, not
 * token + position, and the residual adds x. Every cell's explanation
 * that derives a value agrees with the value shown (the embedding and the
 * residual used to claim token + position, and output + ln_1(x)). */
static void test_model_layer_every_cell(void **state)
{
	(void)state;
	struct av_gpt2 m;
	struct av_gpt2_run r = { 0 };
	struct av_trace t = { 0 };
	struct av_params none = { 0 };   /* the screen's params in --model */
	char *cause = NULL;
	if (!av_gpt2_load(&m, AV_SRCDIR "/tests/fixtures/gpt2-tiny", &cause) ||
	    !av_gpt2_run_text(&m, "Hello world", &r, &cause))
		fail_msg("%s", cause);
	av_gpt2_trace_layer(&m, &r, 1, "Hello world", &t);
	assert_non_null(t.layer_input);
	/* the layer's projections as the screen gives them (view_model.c):
	 * blocks of c_attn (C, 3C) and c_proj (C, C), (in, out) */
	const struct av_gpt2_layer *L = &m.layers[1];
	size_t C = (size_t)t.d_model;
	struct av_insp_weights wts = {
		.q = { L->attn_w, L->attn_b, 1, 3 * C },
		.k = { L->attn_w + C, L->attn_b + C, 1, 3 * C },
		.v = { L->attn_w + 2 * C, L->attn_b + 2 * C, 1, 3 * C },
		.o = { L->attn_proj_w, L->attn_proj_b, 1, C },
	};
	int checked = 0, derived = 0, projections = 0;
	for (int st = 0; st < AV_STAGE_COUNT; st++) {
		struct av_part parts[AV_MAX_PARTS];
		int n = av_ui_stage_parts(&t, (enum av_stage)st, 1, parts);
		for (int k = 0; k < n; k++)
			for (int row = 0; row < parts[k].rows; row++)
				for (int c = 0; c < parts[k].cols; c++) {
					struct av_insp in;
					av_insp_cell_weights(&in, &t, &none, &wts, &parts[k], 1, row, c,
							     100);
					enum av_tensor tn = parts[k].tensor;
					if (tn == AV_T_Q || tn == AV_T_K || tn == AV_T_V ||
					    tn == AV_T_OUTPUT) {
						assert_true(in.derived_ok);
						projections++;
					}
					if (in.derived_ok && !close_enough(in.derived, in.stored))
						fail_msg("%s %s[%d,%d]: derived %.9g, shown %.9g",
							 av_ui_stage_titles[st], parts[k].name, row, c,
							 in.derived, in.stored);
					derived += in.derived_ok;
					checked++;
					av_insp_free(&in);
				}
	}
	assert_true(derived > checked / 2);
	assert_int_equal(projections, 4 * r.n * t.d_model);
	/* the embedding stage shows x and X = ln_1(x), said so */
	struct av_part parts[AV_MAX_PARTS];
	assert_int_equal(av_ui_stage_parts(&t, AV_STAGE_EMBEDDING, 0, parts), 2);
	assert_true(parts[0].tensor == AV_T_LAYER_INPUT && parts[1].tensor == AV_T_EMBEDDING);
	char *formula = av_insp_formula(&t, AV_STAGE_EMBEDDING, 0);
	assert_non_null(strstr(formula, "X = ln_1(x)"));
	free(formula);
	formula = av_insp_formula(&t, AV_STAGE_OUTPUT, 0);
	assert_non_null(strstr(formula, "residual = output + x"));
	free(formula);
	struct av_insp in;
	av_insp_cell(&in, &t, &none, &parts[1], 0, 1, 2, 100);
	assert_non_null(find_line(&in, "X = ln_1(x)"));
	assert_non_null(find_line(&in, "z = (x − μ) / √(σ² + ε)"));
	av_insp_free(&in);
	/* z from the line's numbers: gamma z + beta is the value shown */
	const float *x = t.layer_input + 1 * t.d_model;
	double mean = 0, var = 0;
	for (int c = 0; c < t.d_model; c++)
		mean += x[c];
	mean /= t.d_model;
	for (int c = 0; c < t.d_model; c++)
		var += (x[c] - mean) * (x[c] - mean);
	var /= t.d_model;
	double z = (x[2] - mean) / sqrt(var + t.layer_norm_eps);
	assert_true(close_enough(L->ln_1_w[2] * z + L->ln_1_b[2], t.embedding[1 * t.d_model + 2]));
	av_trace_free(&t);
	av_gpt2_run_free(&r);
	av_gpt2_free(&m);
}

/* The numbers of s from its start, as a reader takes them: U+2212 or '-'
 * right before a digit is a sign, " − " before a number negates it (one
 * sign only: "x − 0.3"), other text is skipped. decimals[k]: digits after
 * the point of number k (NULL: not wanted). Returns how many. */
static int numbers_in(const char *s, double *out, int *decimals, int max)
{
	int n = 0;
	bool negate = false;
	while (*s && n < max) {
		bool sign = false;
		size_t skip = 0;
		if (strncmp(s, "−", strlen("−")) == 0)
			skip = strlen("−"), sign = true;
		else if (*s == '-')
			skip = 1, sign = true;
		if (sign && s[skip] == ' ') {   /* an operator: "a − b" */
			negate = true;
			s += skip;
			continue;
		}
		if ((sign && s[skip] >= '0' && s[skip] <= '9') || (*s >= '0' && *s <= '9')) {
			const char *digits = s + skip;
			char *end;
			double v = strtod(digits, &end);
			const char *point = memchr(digits, '.', (size_t)(end - digits));
			const char *exp = memchr(digits, 'e', (size_t)(end - digits));
			if (decimals)
				decimals[n] = point ? (int)((exp ? exp : end) - point - 1) : 0;
			out[n++] = (sign ? -v : v) * (negate ? -1 : 1);
			negate = false;
			s = end;
			continue;
		}
		if (*s == '+' || *s == '=')
			negate = false;
		s++;
	}
	return n;
}

/* |got − shown| within half a unit of shown's last digit */
static bool same_to_digits(double got, double shown, int decimals)
{
	return fabs(got - shown) <= 0.5 * pow(10, -decimals) * (1 + 1e-9);
}

/* Defect 1: a model's X = ln_1(x) shows the γ[c] and β[c] it used, and
 * every number its two steps need, with digits enough that a reader
 * redoing them by hand gets the z and the X shown. */
static void test_model_layer_norm_by_hand(void **state)
{
	(void)state;
	struct av_gpt2 m;
	struct av_gpt2_run r = { 0 };
	struct av_trace t = { 0 };
	struct av_params none = { 0 };
	char *cause = NULL;
	const char *text = "the cat sat on the mat";
	if (!av_gpt2_load(&m, AV_SRCDIR "/tests/fixtures/gpt2-tiny", &cause) ||
	    !av_gpt2_run_text(&m, text, &r, &cause))
		fail_msg("%s", cause);
	int checked = 0;
	for (int layer = 0; layer < m.cfg.n_layer; layer++) {
		av_gpt2_trace_layer(&m, &r, layer, text, &t);
		const struct av_gpt2_layer *L = &m.layers[layer];
		struct av_insp_weights wts = { .ln_gamma = L->ln_1_w, .ln_beta = L->ln_1_b };
		struct av_part parts[AV_MAX_PARTS];
		av_ui_stage_parts(&t, AV_STAGE_EMBEDDING, 0, parts);
		assert_int_equal(parts[1].tensor, AV_T_EMBEDDING);
		for (int row = 0; row < t.n; row++)
			for (int c = 0; c < t.d_model; c++) {
				struct av_insp in;
				av_insp_cell_weights(&in, &t, &none, &wts, &parts[1], 0, row, c, 200);
				char want[64];
				snprintf(want, sizeof(want), "X = γ[%d]·z + β[%d] = ", c, c);
				const char *zl = find_line(&in, "z = (x − μ) / √(σ² + ε) = (");
				const char *xl = find_line(&in, want);
				if (!zl || !xl)
					fail_msg("X[%d,%d] of layer %d: no γ and β line", row, c,
						 layer);
				assert_null(strstr(xl, "rounded"));
				assert_null(strstr(zl, "rounded"));
				/* x, −μ, σ², ε, z: z from the first four */
				double v[8], g[8];
				int dz[8], dx[8];
				assert_int_equal(numbers_in(strstr(zl, "= (") + 2, v, dz, 8), 5);
				assert_true(same_to_digits((v[0] + v[1]) / sqrt(v[2] + v[3]), v[4], dz[4]));
				/* γ, z, β, X: the z is the one above, the X the heading's */
				assert_int_equal(numbers_in(xl + strlen(want), g, dx, 8), 4);
				assert_true(g[1] == v[4]);
				assert_true(same_to_digits(g[0] * g[1] + g[2], g[3], dx[3]));
				assert_true(fabs(g[0] - L->ln_1_w[c]) <= 0.5 * pow(10, -dx[0]));
				assert_true(fabs(g[2] - L->ln_1_b[c]) <= 0.5 * pow(10, -dx[2]));
				char value[32];
				av_insp_number(value, sizeof(value), in.stored);
				assert_non_null(strstr(in.line[0], value));
				assert_non_null(strstr(xl, value));
				assert_true(in.derived_ok);
				assert_true(close_enough(in.derived, in.stored));
				av_insp_free(&in);
				checked++;
			}
		av_trace_free(&t);
	}
	assert_int_equal(checked, m.cfg.n_layer * r.n * m.cfg.n_embd);
	av_gpt2_run_free(&r);
	av_gpt2_free(&m);
}

/* The sum line of cell (r, c) of part: "<prefix>a ± b = s" adds up digit
 * for digit (the three with the same decimals), or says "(rounded)".
 * Returns whether it had to say so. */
static bool sum_adds_up(const struct av_trace *t, const struct av_part *part,
			const struct av_insp_weights *wts, int r, int c, const char *prefix)
{
	struct av_insp in;
	struct av_params none = { 0 };
	av_insp_cell_weights(&in, t, &none, wts, part, 0, r, c, 200);
	const char *l = find_line(&in, prefix);
	if (!l)
		fail_msg("%s[%d,%d]: no line \"%s\"", part->name, r, c, prefix);
	bool rounded = strstr(l, "(rounded)") != NULL;
	double v[3];
	int d[3];
	assert_int_equal(numbers_in(strstr(l, prefix) + strlen(prefix), v, d, 3), 3);
	if (!rounded) {
		if (d[0] != d[1] || d[1] != d[2])
			fail_msg("%s: decimals differ", l);
		double scale = pow(10, d[0]);
		if (llround(v[0] * scale) + llround(v[1] * scale) != llround(v[2] * scale))
			fail_msg("%s: the terms do not add up to the sum", l);
	}
	/* the sum is the value of the cell, to the digits it shows */
	assert_true(same_to_digits(in.stored, v[2], d[2]));
	av_insp_free(&in);
	return rounded;
}

/* Defect 2: the residual's (and the embedding's) two terms, rounded to
 * 3 decimals, did not add up to the sum shown ("3.582 − 1.259 = 2.324"):
 * they now have the decimals it takes, or say they are rounded. */
static void test_sums_add_up(void **state)
{
	(void)state;
	int cells = 0, rounded = 0;
	static const char *const sentences[] = { "china panda japan cherry the cat",
						 "the cat china" };
	struct av_insp_weights none = { 0 };
	for (int seed = 1; seed <= 4; seed++)
		for (int k = 0; k < 2; k++) {
			struct fixture f;
			memset(&f, 0, sizeof(f));
			av_config_default(&f.cfg);
			f.cfg.d_model = 8;
			f.cfg.heads = 2;
			f.cfg.seed = (uint64_t)seed;
			static const char *const vocab[] = { "china", "panda", "japan", "cherry",
							     "the", "cat" };
			av_params_init(&f.p, &f.cfg, vocab, 6);
			char *cause = NULL;
			assert_true(av_trace_run(&f.t, &f.p, &f.cfg, sentences[k], NULL, NULL, 0,
						 &cause));
			struct av_part res[AV_MAX_PARTS], emb[AV_MAX_PARTS];
			int n = av_ui_stage_parts(&f.t, AV_STAGE_OUTPUT, 0, res);
			assert_int_equal(res[n - 1].tensor, AV_T_RESIDUAL);
			av_ui_stage_parts(&f.t, AV_STAGE_EMBEDDING, 0, emb);
			int x = 0;
			while (emb[x].tensor != AV_T_EMBEDDING)
				x++;
			for (int r = 0; r < f.t.n; r++)
				for (int c = 0; c < f.t.d_model; c++) {
					rounded += sum_adds_up(&f.t, &res[n - 1], &none, r, c,
							       "residual = output + X = ");
					rounded += sum_adds_up(&f.t, &emb[x], &none, r, c,
							       "X = token_emb + pos_enc = ");
					cells += 2;
				}
			done(&f);
		}
	/* a model's residual adds x */
	struct av_gpt2 m;
	struct av_gpt2_run run = { 0 };
	struct av_trace t = { 0 };
	char *cause = NULL;
	if (!av_gpt2_load(&m, AV_SRCDIR "/tests/fixtures/gpt2-tiny", &cause) ||
	    !av_gpt2_run_text(&m, "the cat sat on the mat", &run, &cause))
		fail_msg("%s", cause);
	for (int layer = 0; layer < m.cfg.n_layer; layer++) {
		av_gpt2_trace_layer(&m, &run, layer, "the cat sat on the mat", &t);
		struct av_part parts[AV_MAX_PARTS];
		int n = av_ui_stage_parts(&t, AV_STAGE_OUTPUT, 0, parts);
		for (int r = 0; r < t.n; r++)
			for (int c = 0; c < t.d_model; c++) {
				rounded += sum_adds_up(&t, &parts[n - 1], &none, r, c,
						       "residual = output + x = ");
				cells++;
			}
		av_trace_free(&t);
	}
	av_gpt2_run_free(&run);
	av_gpt2_free(&m);
	/* more decimals nearly always do it (5 of 800 here: float32's own
	 * rounding of the sum and carries in every decimal up to it) */
	if (rounded * 100 > cells)
		fail_msg("%d of %d sums only rounded", rounded, cells);
	assert_true(cells > 700);
}

/* The value a line ends with ("... = 9.39e-42"). */
static const char *last_value(const char *l)
{
	const char *eq = strrchr(l, '=');
	return eq ? eq + 2 : l;
}

/* Every visible weight of head 0 whose w line (worked out in double) ends
 * otherwise than the heading (the float32 the trace holds) says why, with
 * the value stored. Returns how many did. */
static int weights_explained(const struct av_trace *t, const struct av_params *p)
{
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(t, AV_STAGE_SOFTMAX, 0, parts);
	int said = 0;
	for (int i = 0; i < t->n; i++)
		for (int j = 0; j < t->m; j++) {
			if (!t->mask[(size_t)i * t->m + j])
				continue;
			struct av_insp in;
			av_insp_cell(&in, t, p, &parts[0], 0, i, j, 200);
			char kept[32];
			av_insp_number(kept, sizeof(kept), in.stored);
			const char *w = find_line(&in, "w = exp(x − max) / Σ = ");
			assert_non_null(w);
			if (strcmp(last_value(w), kept) != 0) {
				char want[64];
				snprintf(want, sizeof(want), "float32 stores %s", kept);
				if (!find_line(&in, want))
					fail_msg("weights_h[%d,%d] = %s, but \"%s\" unexplained", i, j,
						 kept, w);
				said++;
			}
			av_insp_free(&in);
		}
	return said;
}

/* Defect 3: a weight stored as 0 because float32 underflowed was shown
 * beside the formula worked out in double, "... = 2.45e-43", unexplained. */
static void test_underflowed_weight(void **state)
{
	(void)state;
	struct fixture f;
	/* T = 0.01: exp(x − max) of 1e-100 and less, below every float32 */
	run(&f, 4, 1, AV_MODE_SELF, "china panda japan cherry", NULL, NULL, 0);
	f.cfg.temperature = 0.01;
	av_trace_forward(&f.t, &f.p, &f.cfg);
	assert_true(weights_explained(&f.t, &f.p) > 0);
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 0, parts);
	int found = 0;
	for (int c = 0; c < 16 && !found; c++) {
		struct av_insp in;
		av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, c / 4, c % 4, 200);
		const char *l = find_line(&in, "float32 stores 0: ");
		if (l && in.stored == 0) {
			assert_non_null(strstr(l, " is below its smallest, 1.4e-45 (underflow)"));
			found++;
		}
		av_insp_free(&in);
	}
	assert_true(found);
	done(&f);

	/* exp(x − max) = exp(−95) = 5.5e-42, a float32 (subnormal) that the
	 * float32 softmax (AVX2, as PyTorch's) gives as 0, as here */
	run(&f, 4, 1, AV_MODE_SELF, "china panda", NULL, NULL, 0);
	f.t.masked[0] = 0;
	f.t.masked[1] = -95;
	f.t.weights[0] = 1;
	f.t.weights[1] = 0;
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 0, parts);
	struct av_insp in;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 1, 200);
	assert_non_null(strstr(in.line[0], "weights_h[0,1] = 0 "));
	assert_non_null(find_line(&in, "= 5.52e-42"));
	assert_non_null(find_line(&in, "exp(row 0 − max): 1.000 [5.52e-42]"));
	assert_non_null(find_line(&in, "float32 stores 0: its softmax's exp gives 0 below "
				  "1.18e-38 (underflow)"));
	av_insp_free(&in);
	/* the same weight kept as a subnormal (the double softmax): it reads
	 * as worked out, nothing to say */
	f.t.weights[1] = (float)(exp(-95.0) / (1 + exp(-95.0)));
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 1, 200);
	assert_null(find_line(&in, "float32 stores"));
	av_insp_free(&in);
	/* stored apart from the double at the digits shown (0.793 and 0.207
	 * worked out): said, with the stored value */
	f.t.masked[1] = -1.3412f;
	f.t.weights[0] = 0.7936f;
	f.t.weights[1] = 0.2064f;
	av_insp_cell(&in, &f.t, &f.p, &parts[0], 0, 0, 1, 200);
	assert_non_null(find_line(&in, "float32 stores 0.206 (rounded; the line above is in "
				  "double)"));
	av_insp_free(&in);
	assert_int_equal(weights_explained(&f.t, &f.p), 2);
	done(&f);
}

/* The numbers of s as written, up to max: their text with an ASCII minus
 * (U+2212 before a digit, or an operator " − " negating the number after
 * it); brackets and parentheses are not part of a number. */
static int numbers_text(const char *s, char text[][40], int max)
{
	int n = 0;
	bool negate = false;
	while (*s && n < max) {
		size_t minus = strncmp(s, "−", strlen("−")) == 0 ? strlen("−") : *s == '-';
		if (minus && s[minus] == ' ') {
			negate = true;
			s += minus;
			continue;
		}
		if (*s == '+' && s[1] == ' ')
			negate = false;
		const char *digits = s + minus;
		if (*digits >= '0' && *digits <= '9') {
			size_t len = strspn(digits, "0123456789.e-+");
			bool neg = (minus > 0) != negate;
			snprintf(text[n++], 40, "%s%.*s", neg ? "-" : "", (int)len, digits);
			negate = false;
			s = digits + len;
			continue;
		}
		s++;
	}
	return n;
}

/* Whether v, rounded as text is written (its decimals, fixed or with an
 * exponent), reads as text: what a reader redoing the step gets. */
static bool reads_as(double v, const char *text)
{
	const char *e = strchr(text, 'e'), *point = strchr(text, '.');
	int d = point ? (int)((e ? e : text + strlen(text)) - point - 1) : 0;
	char buf[64];
	snprintf(buf, sizeof(buf), e ? "%.*e" : "%.*f", d, v);
	return strtod(buf, NULL) == strtod(text, NULL);
}

/* The w line and the row of exponentials of softmax cell (i, j) redone
 * from the numbers they write; a line that says "(rounded)" is exempt:
 * returns 1 for each of the two that does (the line, then the row, in
 * bits 0 and 1). */
static int softmax_redone(const struct av_trace *t, const struct av_params *p,
			  const struct av_part *part, int head, int i, int j, int width)
{
	struct av_insp in;
	av_insp_cell(&in, t, p, part, head, i, j, width);
	const char *w = find_line(&in, "w = exp(x − max) / Σ = exp(");
	assert_non_null(w);
	int rounded = strstr(w, "(rounded)") != NULL;
	char num[8][40];
	/* x, ∓max, Σ, e, Σ, w */
	assert_int_equal(numbers_text(strstr(w, "Σ = exp(") + strlen("Σ = exp("), num, 8), 6);
	double x = strtod(num[0], NULL), less_max = strtod(num[1], NULL);
	double sum = strtod(num[2], NULL), e = strtod(num[3], NULL);
	if (!rounded && !reads_as(exp(x + less_max), num[3]))
		fail_msg("%s: exp(%s %s) = %.9g does not read as %s", w, num[0], num[1],
			 exp(x + less_max), num[3]);
	if (!rounded && !reads_as(e / sum, num[5]))
		fail_msg("%s: %s / %s = %.9g does not read as %s", w, num[3], num[2], e / sum,
			 num[5]);
	/* the row: its terms add up to its Σ, the line's */
	char head_text[32];
	snprintf(head_text, sizeof(head_text), "exp(row %d − max):", i);
	const char *row = find_line(&in, head_text);
	assert_non_null(row);
	if (!strstr(row, "…")) {
		char terms[AV_MAX_TOKENS + 1][40];
		int k = numbers_text(row + strlen(head_text), terms, AV_MAX_TOKENS + 1);
		assert_int_equal(k, t->m + 1);
		assert_string_equal(terms[k - 1], num[2]);
		double s = 0;
		for (int c = 0; c < k - 1; c++)
			s += strtod(terms[c], NULL);
		if (!strstr(row, "(rounded)") && !reads_as(s, terms[k - 1]))
			fail_msg("%s: the terms add up to %.9g", row, s);
		rounded |= (strstr(row, "(rounded)") != NULL) << 1;
	}
	av_insp_free(&in);
	return rounded;
}

/* A layer of D=8, two heads, on five words: wide enough for sums whose
 * rounding shows, small enough to redo every cell. */
static void small_layer(struct fixture *f, int seed, double temperature, enum av_mode mode,
			enum av_scale scale)
{
	static const char *const vocab[] = { "china", "panda", "japan", "cherry", "the", "cat" };
	memset(f, 0, sizeof(*f));
	av_config_default(&f->cfg);
	f->cfg.d_model = 8;
	f->cfg.heads = 2;
	f->cfg.seed = (uint64_t)seed;
	f->cfg.temperature = temperature;
	f->cfg.mode = mode;
	f->cfg.scale = scale;
	av_params_init(&f->p, &f->cfg, vocab, 6);
	char *cause = NULL;
	assert_true(av_trace_run(&f->t, &f->p, &f->cfg, "china panda japan cherry the", NULL,
				 NULL, 0, &cause));
}

/* QA: the softmax line "exp(−2.390 − 0.220) / 1.353 = 0.074 / 1.353 =
 * 0.054", but 0.074 / 1.353 is 0.0547, 0.055; its row of exponentials,
 * "[0.074] 0.111 0.117 0.052 1.000  Σ = 1.353", adds up to 1.354. The
 * numbers now have the decimals it takes for each step to come out as
 * written (or the line says "(rounded)"), as the layer norm's do. */
static void test_softmax_redone(void **state)
{
	(void)state;
	int cells = 0, lines_rounded = 0, rows_rounded = 0, r;
	static const double temps[] = { 1, 0.5, 3 };
	for (int seed = 1; seed <= 4; seed++)
		for (size_t k = 0; k < sizeof(temps) / sizeof(temps[0]); k++) {
			struct fixture f;
			small_layer(&f, seed, temps[k],
				    seed == 2 ? AV_MODE_CAUSAL : AV_MODE_SELF, AV_SCALE_DK);
			for (int h = 0; h < f.t.heads; h++) {
				struct av_part parts[AV_MAX_PARTS];
				av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, h, parts);
				for (int i = 0; i < f.t.n; i++)
					for (int j = 0; j < f.t.m; j++) {
						if (!f.t.mask[(size_t)i * f.t.m + j])
							continue;
						r = softmax_redone(&f.t, &f.p, &parts[0], h, i, j,
								   200);
						lines_rounded += r & 1;
						rows_rounded += r >> 1;
						cells++;
					}
			}
			done(&f);
		}
	/* the README's: exp(0.153 − 9.345) = 0.000102, and 0.000102 / 1.261
	 * is 8.09e-05, not the 8.08e-05 said */
	struct fixture f;
	memset(&f, 0, sizeof(f));
	av_config_default(&f.cfg);
	f.cfg.d_model = 3;
	f.cfg.heads = 1;
	f.cfg.seed = 1;
	f.cfg.mode = AV_MODE_CAUSAL;
	static const char *const vocab[] = { "china", "panda", "australia", "kangaroo", "japan",
					     "cherry" };
	av_params_init(&f.p, &f.cfg, vocab, 6);
	char *cause = NULL;
	assert_true(av_trace_run(&f.t, &f.p, &f.cfg, "china panda japan cherry", NULL, NULL, 0,
				 &cause));
	struct av_part parts[AV_MAX_PARTS];
	av_ui_stage_parts(&f.t, AV_STAGE_SOFTMAX, 0, parts);
	assert_int_equal(softmax_redone(&f.t, &f.p, &parts[0], 0, 2, 0, 80), 0);
	done(&f);
	/* a few only rounded: float32's own rounding of the row, carries up
	 * to the last digit of a sum of many terms */
	if (lines_rounded * 100 > cells || rows_rounded * 10 > cells)
		fail_msg("%d lines and %d rows of %d only rounded", lines_rounded, rows_rounded,
			 cells);
	assert_true(cells > 300);
}

/* The scaled line of cell (i, j) of part redone from the numbers it
 * writes: the divisor from the scale and T, the cell from the score and
 * the divisor. Returns whether it says "(rounded)" instead. */
static bool scaled_redone(const struct av_trace *t, const struct av_params *p,
			  const struct av_part *part, int head, int i, int j)
{
	struct av_insp in;
	av_insp_cell(&in, t, p, part, head, i, j, 200);
	const char *l = find_line(&in, "scaled = scores / ");
	assert_non_null(l);
	bool rounded = strstr(l, "(rounded)") != NULL;
	char num[8][40];
	/* past the formula's symbols: "(√dk·T) = " or, for a model, "√dk = " */
	const char *from = strstr(strstr(l, "scores / ") + strlen("scores / "), " = ");
	assert_non_null(from);
	int k = numbers_text(from, num, 8);
	const char *score = num[0], *div = num[k == 6 ? 4 : 1], *res = num[k == 6 ? 5 : 2];
	if (k == 6) {   /* score, scale, T, score, divisor, result */
		assert_string_equal(num[0], num[3]);
		if (!rounded && !reads_as(strtod(num[1], NULL) * strtod(num[2], NULL), div))
			fail_msg("%s: %s × %s does not read as %s", l, num[1], num[2], div);
	} else {
		assert_int_equal(k, 3);
	}
	double q = strtod(score, NULL) / strtod(div, NULL);
	if (!rounded && !reads_as(q, res))
		fail_msg("%s: %s / %s = %.9g does not read as %s", l, score, div, q, res);
	av_insp_free(&in);
	return rounded;
}

/* QA: "scaled = scores / (√D·T) = −34.356 / (2.828 × 1) = −34.356 / 2.828 =
 * −12.147": by hand −34.356 / 2.828 is −12.149 (one cell in 4 to 50 did
 * not redo; and at T = 7, 2.828 × 7 is 19.796, not the 19.799 written
 * beside it). The numbers now have the decimals it takes, or the line
 * says it is rounded. */
static void test_scaled_redone(void **state)
{
	(void)state;
	int cells = 0, rounded = 0;
	static const double temps[] = { 1, 0.3, 7 };
	static const enum av_scale scales[] = { AV_SCALE_DK, AV_SCALE_DMODEL, AV_SCALE_NONE };
	for (int seed = 1; seed <= 3; seed++)
		for (size_t k = 0; k < sizeof(temps) / sizeof(temps[0]); k++) {
			struct fixture f;
			small_layer(&f, seed, temps[k], AV_MODE_SELF, scales[(seed + k) % 3]);
			for (int h = 0; h < f.t.heads; h++) {
				struct av_part parts[AV_MAX_PARTS];
				av_ui_stage_parts(&f.t, AV_STAGE_SCALED, h, parts);
				for (int i = 0; i < f.t.n; i++)
					for (int j = 0; j < f.t.m; j++) {
						rounded += scaled_redone(&f.t, &f.p, &parts[0], h, i, j);
						cells++;
					}
			}
			done(&f);
		}
	/* a model's layer: its line names no T */
	struct av_gpt2 m;
	struct av_gpt2_run r = { 0 };
	struct av_trace t = { 0 };
	struct av_params none = { 0 };
	char *cause = NULL;
	if (!av_gpt2_load(&m, AV_SRCDIR "/tests/fixtures/gpt2-tiny", &cause) ||
	    !av_gpt2_run_text(&m, "the cat sat on the mat", &r, &cause))
		fail_msg("%s", cause);
	for (int layer = 0; layer < m.cfg.n_layer; layer++) {
		av_gpt2_trace_layer(&m, &r, layer, "the cat sat on the mat", &t);
		for (int h = 0; h < t.heads; h++) {
			struct av_part parts[AV_MAX_PARTS];
			av_ui_stage_parts(&t, AV_STAGE_SCALED, h, parts);
			for (int i = 0; i < t.n; i++)
				for (int j = 0; j < t.m; j++) {
					rounded += scaled_redone(&t, &none, &parts[0], h, i, j);
					cells++;
				}
		}
		av_trace_free(&t);
	}
	av_gpt2_run_free(&r);
	av_gpt2_free(&m);
	if (rounded * 100 > cells)
		fail_msg("%d of %d scaled lines only rounded", rounded, cells);
	assert_true(cells > 500);
}

/* Redoes a sum of products as its line writes it ("(−1.164)×(−1.721) +
 * … + 0.25 = 3.216", the text after its first " = "): the products of the
 * factors as written, plus a bias as written. Copies the result's text,
 * without a "(rounded)" after it, to total; sets *rounded when it has one. */
static double redo_products(const char *body, bool *rounded, char *total, size_t size)
{
	const char *rel = strstr(body, " = ");
	assert_non_null(rel);
	snprintf(total, size, "%s", rel + strlen(" = "));
	char *note = strstr(total, " (rounded)");
	*rounded = note != NULL;
	if (note)
		*note = '\0';
	/* to ASCII: − to -, × to *, no parentheses */
	char ascii[2048];
	size_t o = 0;
	for (const char *c = body; c < rel && o + 2 < sizeof(ascii);) {
		if (strncmp(c, "−", strlen("−")) == 0) {
			ascii[o++] = '-';
			c += strlen("−");
		} else if (strncmp(c, "×", strlen("×")) == 0) {
			ascii[o++] = '*';
			c += strlen("×");
		} else if (*c == '(' || *c == ')') {
			c++;
		} else {
			ascii[o++] = *c++;
		}
	}
	ascii[o] = '\0';
	double sum = 0, sign = 1;
	char *c = ascii;
	for (;;) {
		char *end;
		double a = strtod(c, &end);
		assert_true(end != c);
		if (*end == '*') {
			c = end + 1;
			a *= strtod(c, &end);
			assert_true(end != c);
		}
		sum += sign * a;
		c = end;
		if (strncmp(c, " + ", 3) != 0 && strncmp(c, " - ", 3) != 0)
			break;
		sign = c[1] == '-' ? -1 : 1;
		c += 3;
	}
	assert_int_equal(*c, '\0');
	return sum;
}

/* What the sums of one layer's inspector came to */
struct sums_seen {
	int whole, rounded;   /* sums written whole, at 250 columns or more */
	int cut, residuals;
};

/* Every sum the inspector writes for cell (r, c) of part, at width,
 * redone from its text alone: a sum of products written whole ("Σ_…")
 * gives its result, or says "(rounded)"; one cut short ("… (+N terms)")
 * is not redone; a residual's two terms add up to its sum. No line says
 * "≈". */
static void sums_redone(const struct av_trace *t, const struct av_params *p,
			const struct av_part *part, int head, int r, int c, int width,
			struct sums_seen *seen)
{
	struct av_insp in;
	av_insp_cell(&in, t, p, part, head, r, c, width);
	for (int k = 0; k < in.n; k++) {
		const char *l = in.line[k];
		if (strstr(l, "≈"))
			fail_msg("%s[%d,%d] at %d columns says ≈: %s", part->name, r, c, width, l);
		const char *sigma = strstr(l, "Σ_");
		if (sigma && !strstr(l, "w = exp(")) {
			/* past the Σ's subscripts: the first " = " after it */
			const char *from = strstr(sigma, " = ");
			assert_non_null(from);
			if (strstr(from, "…")) {
				if (strstr(l, "(rounded)"))
					fail_msg("%s: a sum cut short said rounded", l);
				seen->cut++;
				continue;
			}
			bool rounded;
			char total[64], ascii[1][40];
			double s = redo_products(from + strlen(" = "), &rounded, total,
						 sizeof(total));
			assert_int_equal(numbers_text(total, ascii, 1), 1);
			if (!rounded && !reads_as(s, ascii[0]))
				fail_msg("%s: the terms as written make %.9g", l, s);
			/* and a sum said to be rounded is */
			if (rounded && reads_as(s, ascii[0]))
				fail_msg("%s: redoes, yet said rounded", l);
			/* where only 3 decimals fit whole, a few more are rounded */
			if (width >= 250) {
				seen->whole++;
				seen->rounded += rounded;
			}
		}
		const char *res = strstr(l, "residual = output + ");
		if (res) {   /* "residual = output + X = a ± b = s" */
			char num[4][40];
			assert_int_equal(numbers_text(strstr(res, " = ") + 3, num, 4), 3);
			double s = strtod(num[0], NULL) + strtod(num[1], NULL);
			if (!strstr(l, "(rounded)") && !reads_as(s, num[2]))
				fail_msg("%s: the terms make %.9g", l, s);
			seen->residuals++;
		}
	}
	av_insp_free(&in);
}

/* A sample's layer as the screen runs it, with some settings changed
 * (d_model 0: the sample's). */
static void sample_layer(struct fixture *f, const char *name, int d_model, int heads,
			 bool bias, enum av_mode mode)
{
	struct av_sample s;
	char *cause = NULL;
	if (!av_sample_load(name, &s, &cause))
		fail_msg("%s", cause);
	memset(f, 0, sizeof(*f));
	f->cfg = s.cfg;
	if (d_model) {
		f->cfg.d_model = d_model;
		f->cfg.heads = heads;
		f->cfg.bias = bias;
	}
	f->cfg.mode = mode;
	av_params_init(&f->p, &f->cfg, (const char *const *)s.vocab, s.n_vocab);
	if (!av_trace_run(&f->t, &f->p, &f->cfg, s.sentence, s.source, NULL, 0, &cause))
		fail_msg("%s", cause);
	av_sample_free(&s);
}

/* QA: the context line "1.000×(−6.482) + 3.76e-06×3.055 + 0.0001×(−6.206)
 * + 4.74e-07×(−1.718) ≈ −6.482" and the output line "… + 2.629×(−0.900) +
 * 0 ≈ −12.327" (china-panda, D=8, H=2, --bias) could not be redone: the
 * factors' 3 decimals do not give the result. As the softmax's and the
 * residual's lines do, a sum written whole now has the decimals it takes
 * (or says "(rounded)"); only a sum cut short is not redone. Every cell of
 * the stages with sums, at the widths the inspector is built to at 60x20
 * (59, 96), 80x24 (250, then 193 and 136 when fewer rows are free) and
 * 200x60 (1261). */
static void test_sums_of_products_redone(void **state)
{
	(void)state;
	static const struct {
		const char *sample;
		int d_model, heads;
		bool bias;
		enum av_mode mode;
	} layers[] = {
		{ "china-panda", 0, 0, false, AV_MODE_SELF },
		{ "china-panda", 8, 2, true, AV_MODE_SELF },
		{ "qkv-walkthrough", 8, 2, true, AV_MODE_SELF },
		{ "qkv-walkthrough", 8, 2, true, AV_MODE_CAUSAL },
		{ "china-panda", 6, 3, false, AV_MODE_CAUSAL },
	};
	static const enum av_stage stages[] = { AV_STAGE_PROJECTION, AV_STAGE_SCORES,
						AV_STAGE_CONTEXT, AV_STAGE_OUTPUT };
	static const int widths[] = { 59, 96, 136, 193, 250, 1261 };
	struct sums_seen seen = { 0 };
	for (size_t l = 0; l < sizeof(layers) / sizeof(layers[0]); l++) {
		struct fixture f;
		sample_layer(&f, layers[l].sample, layers[l].d_model, layers[l].heads,
			     layers[l].bias, layers[l].mode);
		for (size_t s = 0; s < sizeof(stages) / sizeof(stages[0]); s++)
			for (int h = 0; h < f.t.heads; h++) {
				struct av_part parts[AV_MAX_PARTS];
				int n = av_ui_stage_parts(&f.t, stages[s], h, parts);
				for (int x = 0; x < n; x++)
					for (int r = 0; r < parts[x].rows; r++)
						for (int c = 0; c < parts[x].cols; c++)
							for (size_t w = 0; w < 6; w++)
								sums_redone(&f.t, &f.p, &parts[x], h,
									    r, c, widths[w], &seen);
			}
		done(&f);
	}
	/* a few only rounded: float32's own rounding of a product or the sum */
	if (seen.rounded * 100 > seen.whole)
		fail_msg("%d of %d sums only rounded", seen.rounded, seen.whole);
	assert_true(seen.whole > 2000);
	assert_true(seen.cut > 100);
	assert_true(seen.residuals > 100);
}

int main(void)
{
	setenv("ATTNVIEW_DATA_DIR", AV_SRCDIR, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_every_cell),
		cmocka_unit_test(test_causal_and_padding_every_cell),
		cmocka_unit_test(test_cross_every_cell),
		cmocka_unit_test(test_all_hidden_row),
		cmocka_unit_test(test_scores_text),
		cmocka_unit_test(test_long_sums_shortened),
		cmocka_unit_test(test_masked_text),
		cmocka_unit_test(test_softmax_and_context_text),
		cmocka_unit_test(test_tokens_text),
		cmocka_unit_test(test_model_piece),
		cmocka_unit_test(test_formulas),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_one_minus_sign),
		cmocka_unit_test(test_projection_names_matrix),
		cmocka_unit_test(test_score_factors),
		cmocka_unit_test(test_nonfinite_explained),
		cmocka_unit_test(test_model_layer_every_cell),
		cmocka_unit_test(test_model_layer_norm_by_hand),
		cmocka_unit_test(test_sums_add_up),
		cmocka_unit_test(test_underflowed_weight),
		cmocka_unit_test(test_softmax_redone),
		cmocka_unit_test(test_scaled_redone),
		cmocka_unit_test(test_sums_of_products_redone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
