/* test_export.c: the writers of src/export (what W and :write save): CSV
 * reads back to the same numbers, the SVG is well-formed XML with every
 * label escaped, the text forms, and the JSON documents load back as
 * weights. Also the shared limits of typed values (seed, temperature, lr)
 * and numbers in a locale whose decimal point is a comma. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/export.h"
#include "model.h"
#include "number.h"
#include "session.h"
#include "train.h"
#include "utf8.h"
#include "util.h"
#include "weights.h"

/* --- a figure to write ---------------------------------------------------- */

static char row0[] = "china", row1[] = "a,b \"q\"", row2[] = "熊猫";
static char col0[] = "<k>", col1[] = "a&b", col2[] = "x\x01y";
static char *rows[] = { row0, row1, row2 };
static char *cols[] = { col0, col1, col2 };
static const float signed_data[] = { 0.25f, -1.5f, 3.0f, 1e-7f, -0.0f, 123.456f,
				      7.0f, -2.25f, 0.1f };
static const float weight_data[] = { 1.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f,
				     0.2f, 0.3f, 0.5f };
static const bool upper_hidden[] = { false, true, true, false, false, true,
				     false, false, false };

static struct av_theme theme;

static struct av_figure figure(void)
{
	struct av_figure f = {
		.title = "softmax · head 0 of 2 <&>",
		.subtitle = "weights = softmax(scaled)",
		.settings = "mode causal · scale dk · T 1",
		.n = 2,
		.theme = &theme,
	};
	f.m[0] = (struct av_fig_matrix){ .name = "scores_h", .data = signed_data, .rows = 3,
					 .cols = 3, .stride = 3, .row_labels = rows,
					 .col_labels = cols, .hidden = upper_hidden,
					 .hidden_as_inf = true };
	f.m[1] = (struct av_fig_matrix){ .name = "weights_h", .data = weight_data, .rows = 3,
					 .cols = 3, .stride = 3, .row_labels = rows,
					 .col_labels = NULL, .hidden = upper_hidden,
					 .weights = true };
	return f;
}

/* --- a CSV reader (RFC 4180) ---------------------------------------------- */

/* The fields of the record at *p (which moves past its line end). */
static int csv_record(const char **p, char fields[][64], int max)
{
	int n = 0;
	const char *s = *p;
	for (;;) {
		char *out = fields[n];
		size_t k = 0;
		if (*s == '"') {
			s++;
			while (*s && !(*s == '"' && s[1] != '"')) {
				if (*s == '"')
					s++;
				out[k++] = *s++;
			}
			assert_int_equal(*s, '"');
			s++;
		} else {
			while (*s && *s != ',' && *s != '\r' && *s != '\n')
				out[k++] = *s++;
		}
		out[k] = '\0';
		n++;
		assert_true(n <= max);
		if (*s == ',') {
			s++;
			continue;
		}
		break;
	}
	assert_true(s[0] == '\r' && s[1] == '\n');
	*p = s + 2;
	return n;
}

static void check_csv_matrix(const char **p, const struct av_fig_matrix *m)
{
	char f[8][64];
	int n = csv_record(p, f, 8);
	assert_int_equal(n, m->cols + 1);
	assert_string_equal(f[0], m->name);
	for (int c = 0; c < m->cols; c++) {
		char idx[16];
		snprintf(idx, sizeof(idx), "%d", c);
		assert_string_equal(f[c + 1], m->col_labels ? m->col_labels[c] : idx);
	}
	for (int r = 0; r < m->rows; r++) {
		n = csv_record(p, f, 8);
		assert_int_equal(n, m->cols + 1);
		assert_string_equal(f[0], m->row_labels[r]);
		for (int c = 0; c < m->cols; c++) {
			double v = -INFINITY;   /* a hidden cell of the masked stage */
			assert_true(strcmp(f[c + 1], "-inf") == 0 || av_number_parse(f[c + 1], &v));
			bool inf = m->hidden_as_inf && m->hidden[r * m->cols + c];
			if (inf)
				assert_true(isinf(v) && v < 0);
			else
				assert_true((float)v == m->data[r * m->stride + c]);
		}
	}
}

static void test_csv_reads_back(void **state)
{
	(void)state;
	struct av_figure f = figure();
	char *csv = av_figure_csv(&f);
	const char *p = csv;
	check_csv_matrix(&p, &f.m[0]);
	assert_true(p[0] == '\r' && p[1] == '\n');   /* the empty line between */
	p += 2;
	check_csv_matrix(&p, &f.m[1]);
	assert_int_equal(*p, '\0');
	free(csv);
}

/* Labels a spreadsheet would run as formulas are written as text ('...,
 * quoted); others, and the numbers (-1.5 is no label), are left alone. */
static void test_csv_formula_labels_are_text(void **state)
{
	(void)state;
	static char f0[] = "=HYPERLINK(\"x\")", f1[] = "+1", f2[] = "-x", f3[] = "@a",
		    f4[] = "\tb", plain[] = "a=b";
	static char *labels[] = { f0, f1, f2, f3, f4, plain };
	static const char *const want[] = { "'=HYPERLINK(\"x\")", "'+1", "'-x", "'@a", "'\tb",
					    "a=b" };
	static const float data[6] = { -1.5f, 0, 0, 0, 0, 0 };
	struct av_figure f = { .n = 1, .theme = &theme };
	f.m[0] = (struct av_fig_matrix){ .name = "w", .data = data, .rows = 1, .cols = 6,
					 .stride = 6, .row_labels = labels + 2,
					 .col_labels = labels };
	char *csv = av_figure_csv(&f);
	assert_non_null(strstr(csv, "\"'=HYPERLINK(\"\"x\"\")\""));   /* quoted, ' first */
	const char *p = csv;
	char fields[8][64];
	assert_int_equal(csv_record(&p, fields, 8), 7);
	for (int c = 0; c < 6; c++)
		assert_string_equal(fields[c + 1], want[c]);
	assert_int_equal(csv_record(&p, fields, 8), 7);
	assert_string_equal(fields[0], "'-x");
	assert_string_equal(fields[1], "-1.5");
	free(csv);
}

/* In a locale with a decimal comma, the file still says 0.25. */
static void test_csv_decimal_point_in_any_locale(void **state)
{
	(void)state;
	const char *names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "ru_RU.UTF-8" };
	const char *found = NULL;
	for (size_t i = 0; i < 4 && !found; i++)
		if (setlocale(LC_ALL, names[i]))
			found = names[i];
	if (!found) {
		setlocale(LC_ALL, "C");
		skip();
	}
	char probe[16];
	snprintf(probe, sizeof(probe), "%.2f", 0.25);
	struct av_figure f = figure();
	char *csv = av_figure_csv(&f);
	char *text = av_figure_text(&f, false);
	double v = 0;
	bool parsed = av_number_parse("0.5", &v);
	setlocale(LC_ALL, "C");
	assert_string_equal(probe, "0,25");   /* the locale really has a comma */
	assert_non_null(strstr(csv, ",0.25,"));
	assert_non_null(strstr(text, "0.250"));
	assert_true(parsed && v == 0.5);
	free(csv);
	free(text);
}

/* --- a small XML well-formedness check ------------------------------------ */

static const char *entity_end(const char *s)
{
	static const char *const names[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	for (size_t i = 0; i < 5; i++)
		if (strncmp(s, names[i], strlen(names[i])) == 0)
			return s + strlen(names[i]);
	if (s[1] == '#') {
		const char *e = s + 2;
		while ((*e >= '0' && *e <= '9') || *e == 'x' || (*e >= 'a' && *e <= 'f'))
			e++;
		if (*e == ';' && e > s + 2)
			return e + 1;
	}
	return NULL;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

/* Checks doc is well-formed: valid UTF-8, no forbidden control characters,
 * tags nest and close, attributes quoted, & only in entities, one root. */
static bool xml_well_formed(const char *doc, char *why, size_t size)
{
#define BAD(...) do { snprintf(why, size, __VA_ARGS__); return false; } while (0)
	if (!av_utf8_valid(doc, strlen(doc), NULL))
		BAD("invalid UTF-8");
	char stack[64][32];
	int depth = 0, roots = 0;
	const char *p = doc;
	if (strncmp(p, "<?xml ", 6) == 0) {
		p = strstr(p, "?>");
		if (!p)
			BAD("unclosed prolog");
		p += 2;
	}
	while (*p) {
		unsigned char ch = (unsigned char)*p;
		if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
			BAD("control character 0x%02x at %ld", ch, (long)(p - doc));
		if (*p == '&') {
			const char *e = entity_end(p);
			if (!e)
				BAD("bare & at %ld", (long)(p - doc));
			p = e;
			continue;
		}
		if (*p != '<') {
			if (depth == 0 && ch > ' ')
				BAD("text outside the root at %ld", (long)(p - doc));
			p++;
			continue;
		}
		bool closing = p[1] == '/';
		p += closing ? 2 : 1;
		char name[32];
		size_t k = 0;
		while (name_char(*p) && k < sizeof(name) - 1)
			name[k++] = *p++;
		name[k] = '\0';
		if (k == 0)
			BAD("tag without a name at %ld", (long)(p - doc));
		if (closing) {
			if (depth == 0 || strcmp(stack[depth - 1], name) != 0)
				BAD("</%s> closes %s", name, depth ? stack[depth - 1] : "nothing");
			depth--;
			while (*p == ' ' || *p == '\n')
				p++;
			if (*p++ != '>')
				BAD("bad closing tag %s", name);
			continue;
		}
		/* attributes */
		for (;;) {
			while (*p == ' ' || *p == '\n' || *p == '\t')
				p++;
			if (*p == '>' || (p[0] == '/' && p[1] == '>'))
				break;
			const char *a = p;
			while (name_char(*p))
				p++;
			if (p == a || *p++ != '=' || (*p != '"' && *p != '\''))
				BAD("bad attribute in <%s> at %ld", name, (long)(p - doc));
			char q = *p++;
			while (*p && *p != q) {
				if (*p == '<')
					BAD("< in an attribute of <%s>", name);
				if (*p == '&') {
					const char *e = entity_end(p);
					if (!e)
						BAD("bare & in an attribute of <%s>", name);
					p = e;
					continue;
				}
				p++;
			}
			if (*p++ != q)
				BAD("unclosed attribute in <%s>", name);
		}
		if (depth == 0)
			roots++;
		if (*p == '/') {
			p += 2;
			continue;
		}
		p++;
		if (depth == 64)
			BAD("too deep");
		snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
	}
	if (depth != 0)
		BAD("<%s> is not closed", stack[depth - 1]);
	if (roots != 1)
		BAD("%d root elements", roots);
	return true;
#undef BAD
}

static void test_xml_checker_catches_faults(void **state)
{
	(void)state;
	char why[128];
	assert_true(xml_well_formed("<a x=\"1\"><b/>t &amp; u</a>", why, sizeof(why)));
	assert_false(xml_well_formed("<a><b></a>", why, sizeof(why)));
	assert_false(xml_well_formed("<a>x & y</a>", why, sizeof(why)));
	assert_false(xml_well_formed("<a x=1></a>", why, sizeof(why)));
	assert_false(xml_well_formed("<a>\x01</a>", why, sizeof(why)));
	assert_false(xml_well_formed("<a></a><b></b>", why, sizeof(why)));
}

static void test_xml_escape(void **state)
{
	(void)state;
	char *e = av_xml_escape("a<b>&\"c'\x01\x7f\xff熊");
	assert_string_equal(e, "a&lt;b&gt;&amp;&quot;c&apos;\xEF\xBF\xBD\xEF\xBF\xBD"
			       "\xEF\xBF\xBD熊");
	free(e);
}

static void test_svg_well_formed(void **state)
{
	(void)state;
	struct av_figure f = figure();
	char *svg = av_figure_svg(&f);
	char why[128] = "";
	if (!xml_well_formed(svg, why, sizeof(why)))
		fail_msg("%s\n%s", why, svg);
	assert_non_null(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(svg, ">&lt;k&gt;</text>"));
	assert_non_null(strstr(svg, ">a&amp;b</text>"));
	assert_non_null(strstr(svg, ">1 a,b &quot;q&quot;</text>"));
	assert_non_null(strstr(svg, ">2 熊猫</text>"));
	assert_non_null(strstr(svg, "softmax · head 0 of 2 &lt;&amp;&gt;"));
	assert_non_null(strstr(svg, ">−2.250</text>"));   /* the numbers, minus sign */
	assert_non_null(strstr(svg, ">╳ −∞</text>"));     /* a hidden score */
	assert_non_null(strstr(svg, "linearGradient"));    /* the colour bar */
	assert_null(strchr(svg, '\x01'));
	free(svg);
}

static void test_text_plain_and_ansi(void **state)
{
	(void)state;
	struct av_figure f = figure();
	char *plain = av_figure_text(&f, false), *ansi = av_figure_text(&f, true);
	assert_null(strchr(plain, '\033'));
	assert_non_null(strstr(plain, "scores_h  (3 × 3)"));
	assert_non_null(strstr(plain, "2 熊猫"));
	assert_non_null(strstr(plain, "-2.250"));
	assert_non_null(strstr(plain, "╳ -inf"));
	assert_non_null(strstr(plain, "╳ 0"));
	assert_non_null(strstr(ansi, "\033[48;5;"));
	assert_non_null(strstr(ansi, "\033[0m"));
	free(plain);
	free(ansi);
}

/* A token's control and bidi characters are escaped in the text files as
 * --print escapes them: written raw, U+202E reordered the rest of its row
 * and \x01 reached the terminal when the file was cat. The columns still
 * line up, the escape counted at its width (the head, cut at 10 columns,
 * keeps it whole). */
static void test_text_escapes_controls(void **state)
{
	(void)state;
	static char bidi[] = "ab\xe2\x80\xae" "cd", plain_row[] = "ef";
	static char *labels[] = { bidi, plain_row };
	static const float data[] = { 0.5f, 0.25f, 0.125f, 1.0f };
	struct av_figure f = { .title = "t\x1b]0;x\x07", .settings = "s\xe2\x80\xaeq",
			       .n = 1, .theme = &theme };
	f.m[0] = (struct av_fig_matrix){ .name = "m", .data = data, .rows = 2, .cols = 2,
					 .stride = 2, .row_labels = labels,
					 .col_labels = labels };
	for (int ansi = 0; ansi <= 1; ansi++) {
		char *text = av_figure_text(&f, ansi);
		assert_null(strstr(text, "\xe2\x80\xae"));
		assert_null(strchr(text, '\x07'));
		assert_non_null(strstr(text, "t\\x1b]0;x\\x07\n"));
		assert_non_null(strstr(text, "s\\u202eq\n"));
		if (!ansi) {
			assert_non_null(strstr(text, "\n0 ab\\u202ecd      0.500      0.250\n"));
			assert_non_null(strstr(text, "\n1 ef              0.125      1.000\n"));
		}
		free(text);
	}
	struct av_figure g = figure();
	char *text = av_figure_text(&g, false);
	assert_null(strchr(text, '\x01'));
	assert_non_null(strstr(text, "x\\x01y"));
	free(text);
}

/* The figure files show a cell as the screen does: a value that rounds to
 * zero without a sign (the comparison's Δ of −3.3e-09 read 0.000 on screen
 * and -0.000 in the files), a hidden weight "╳ 0" (the text file had "╳"
 * alone); the CSV is data and keeps every digit and sign. */
static void test_cells_read_as_on_screen(void **state)
{
	(void)state;
	static const float delta[] = { -3.3e-09f, 0.5f, -0.25f, 0.0f };
	static const bool hidden[] = { false, false, false, true };
	struct av_figure f = { .title = "compare", .n = 1, .theme = &theme };
	f.m[0] = (struct av_fig_matrix){ .name = "Δ", .data = delta, .rows = 2, .cols = 2,
					 .stride = 2, .hidden = hidden, .weights = true };
	char *plain = av_figure_text(&f, false), *svg = av_figure_svg(&f);
	char *csv = av_figure_csv(&f);
	assert_null(strstr(plain, "-0.000"));
	assert_non_null(strstr(plain, " 0.000"));
	assert_non_null(strstr(plain, "-0.250"));
	assert_non_null(strstr(plain, "╳ 0\n"));
	assert_null(strstr(svg, "−0.000"));
	assert_non_null(strstr(svg, ">0.000</text>"));
	assert_non_null(strstr(svg, ">╳ 0</text>"));
	assert_non_null(strstr(csv, "-3.30000005e-09,0.5\r\n"));
	free(plain);
	free(svg);
	free(csv);
}

/* --- JSON ------------------------------------------------------------------ */

static void load_session(struct av_session *s)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup("china panda");
	assert_true(av_session_run(s, &cause));
}

static void same_params(const struct av_params *a, const struct av_params *b)
{
	assert_int_equal(a->vocab_size, b->vocab_size);
	for (int id = 0; id < AV_N_PARAMS; id++) {
		size_t na, nb;
		const float *pa = av_param_tensor(a, id, &na), *pb = av_param_tensor(b, id, &nb);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++)
			assert_true(pa[i] == pb[i]);
	}
}

/* Both documents load as weights files with the session's parameters;
 * frees them. */
static void check_loads_back(char *docs[2], const struct av_session *s)
{
	for (int i = 0; i < 2; i++) {
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		char *cause = NULL;
		if (!av_weights_parse(docs[i], "export", &cfg, NULL, &p, &cause))
			fail_msg("%s", cause);
		assert_int_equal(cfg.d_model, s->cfg.d_model);
		assert_true(cfg.seed == s->cfg.seed);
		same_params(&p, &s->params);
		av_params_free(&p);
		free(docs[i]);
	}
}

static void test_weights_and_trace_load_back(void **state)
{
	(void)state;
	struct av_session s;
	load_session(&s);
	char *docs[2] = { av_export_weights_json(&s.cfg, &s.params, NULL),
			  av_export_trace_json(&s.trace, &s.params, NULL) };
	check_loads_back(docs, &s);
	av_session_free(&s);
}

/* A training record (how the screen's weights were trained) is written as
 * --train --dump writes it, "steps" when an epoch was begun and "loss"
 * only when kept; both documents still load as weights. */
static void test_training_record_written_and_loads_back(void **state)
{
	(void)state;
	struct av_session s;
	load_session(&s);
	const double loss[2] = { 0.5, 0.25 };
	const struct av_training_record run = { 2, 0.01, "adam", "self", loss, 1, 0 };
	const struct av_training_record replayed = { 3, 0.5, "sgd", "pairs", NULL, 0, 0 };
	char *docs[2] = { av_export_weights_json(&s.cfg, &s.params, &run),
			  av_export_trace_json(&s.trace, &s.params, &run) };
	for (int i = 0; i < 2; i++) {
		const char *t = strstr(docs[i], "\"training\":\t{");
		assert_non_null(t);
		assert_non_null(strstr(t, "\"epochs\":\t2,\n\t\t\"steps\":\t1,\n\t\t\"lr\":\t0.01,"));
		assert_non_null(strstr(t, "\"optimizer\":\t\"adam\",\n\t\t\"target\":\t\"self\""));
		assert_non_null(strstr(t, "\"loss\":\t[0.5, 0.25]"));
	}
	check_loads_back(docs, &s);
	/* a run on from a trained file's weights says how many they had */
	const struct av_training_record on = { 3, 0.01, "adam", "self", NULL, 0, 200 };
	docs[0] = av_export_weights_json(&s.cfg, &s.params, &on);
	docs[1] = av_export_trace_json(&s.trace, &s.params, &on);
	for (int i = 0; i < 2; i++) {
		const char *t = strstr(docs[i], "\"training\":\t{");
		assert_non_null(t);
		assert_non_null(strstr(t, "\"epochs\":\t3,\n\t\t\"epochs_before\":\t200,"));
	}
	check_loads_back(docs, &s);
	docs[0] = av_export_weights_json(&s.cfg, &s.params, &replayed);
	docs[1] = av_export_trace_json(&s.trace, &s.params, &replayed);
	for (int i = 0; i < 2; i++) {
		const char *t = strstr(docs[i], "\"training\":\t{");
		assert_non_null(t);
		assert_non_null(strstr(t, "\"epochs\":\t3,\n\t\t\"lr\":\t0.5,"));
		assert_null(strstr(t, "\"steps\""));
		assert_null(strstr(t, "\"loss\""));
	}
	check_loads_back(docs, &s);
	av_session_free(&s);
}

/* In a locale with a decimal comma the documents are still JSON. */
static void test_json_in_any_locale(void **state)
{
	(void)state;
	struct av_session s;
	load_session(&s);
	if (!setlocale(LC_ALL, "de_DE.UTF-8") && !setlocale(LC_ALL, "de_DE.utf8")) {
		av_session_free(&s);
		skip();
	}
	char *docs[2] = { av_export_weights_json(&s.cfg, &s.params, NULL),
			  av_export_trace_json(&s.trace, &s.params, NULL) };
	setlocale(LC_ALL, "C");
	check_loads_back(docs, &s);
	av_session_free(&s);
}

static void test_format_for_path(void **state)
{
	(void)state;
	enum av_export_format fmt;
	assert_true(av_export_format_for_path("a/b.svg", &fmt) && fmt == AV_EXPORT_SVG);
	assert_true(av_export_format_for_path("x.csv", &fmt) && fmt == AV_EXPORT_CSV);
	assert_true(av_export_format_for_path("x.json", &fmt) && fmt == AV_EXPORT_TRACE);
	assert_true(av_export_format_for_path("x.ans", &fmt) && fmt == AV_EXPORT_ANSI);
	assert_false(av_export_format_for_path("x.png", &fmt));
	assert_false(av_export_format_for_path(".svg", &fmt));
	/* the extension's case does not matter (ASCII only) */
	assert_true(av_export_format_for_path("a.SVG", &fmt) && fmt == AV_EXPORT_SVG);
	assert_true(av_export_format_for_path("x.Json", &fmt) && fmt == AV_EXPORT_TRACE);
	assert_true(av_export_format_for_path("x.CSV", &fmt) && fmt == AV_EXPORT_CSV);
	assert_true(av_export_format_for_path("x.AnSi", &fmt) && fmt == AV_EXPORT_ANSI);
	assert_false(av_export_format_for_path(".SVG", &fmt));
	/* a dotless I (U+0131) is not an i: "x.ansı" is no format */
	assert_false(av_export_format_for_path("x.ans\xc4\xb1", &fmt));
}

/* --- typed values: the limits the command line and the screen share ------ */

static void test_typed_values(void **state)
{
	(void)state;
	double v;
	uint64_t seed;
	char *cause = NULL;
	assert_false(av_parse_temperature("abc", &v, &cause));
	assert_string_equal(cause, "expected a number between 0.01 and 100, got \"abc\"");
	free(cause);
	cause = NULL;
	assert_false(av_parse_temperature("0.001", &v, &cause));
	free(cause);
	cause = NULL;
	assert_false(av_parse_temperature("nan", &v, &cause));
	free(cause);
	cause = NULL;
	assert_true(av_parse_temperature("0.5", &v, &cause) && v == 0.5);
	assert_true(av_parse_temperature("100", &v, &cause) && v == 100);
	assert_true(av_parse_seed("9007199254740991", &seed, &cause));
	assert_false(av_parse_seed("9007199254740992", &seed, &cause));
	assert_string_equal(cause, "9007199254740992 is out of range (0 to 9007199254740991)");
	free(cause);
	cause = NULL;
	assert_false(av_parse_seed("1.5", &seed, &cause));
	free(cause);
	cause = NULL;
	assert_false(av_parse_lr("0", &v, &cause));
	assert_string_equal(cause, "expected a positive finite number, got \"0\"");
	free(cause);
	cause = NULL;
	assert_true(av_parse_lr("1e-3", &v, &cause) && v == 1e-3);
	assert_false(av_number_parse(" 1", &v));
	assert_false(av_number_parse("1 ", &v));
	assert_false(av_number_parse("", &v));
	/* decimal only: strtod took "0x10" as 16, so :temp 0x0 reset T */
	assert_false(av_number_parse("0x10", &v));
	assert_false(av_number_parse("0x0", &v));
	assert_false(av_number_parse("inf", &v));
	assert_false(av_number_parse("nan", &v));
	assert_true(av_number_parse("-2.5e-3", &v) && v == -2.5e-3);
	/* whole numbers as strict as the others: strtoll skipped " 7" */
	long long n;
	assert_false(av_integer_parse(" 7", &n));
	assert_false(av_integer_parse("\t7", &n));
	assert_false(av_integer_parse("7 ", &n));
	assert_false(av_integer_parse("", &n));
	assert_false(av_integer_parse("99999999999999999999", &n));
	assert_true(av_integer_parse("-12", &n) && n == -12);
	assert_false(av_parse_seed(" 7", &seed, &cause));
	assert_string_equal(cause, "expected a whole number from 0 to 9007199254740991, got \" 7\"");
	free(cause);
	cause = NULL;
}

int main(void)
{
	setenv("ATTNVIEW_DATA_DIR", AV_SRCDIR, 0);
	if (!av_theme_builtin("light", &theme))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_reads_back),
		cmocka_unit_test(test_csv_formula_labels_are_text),
		cmocka_unit_test(test_csv_decimal_point_in_any_locale),
		cmocka_unit_test(test_xml_checker_catches_faults),
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_svg_well_formed),
		cmocka_unit_test(test_text_plain_and_ansi),
		cmocka_unit_test(test_text_escapes_controls),
		cmocka_unit_test(test_weights_and_trace_load_back),
		cmocka_unit_test(test_training_record_written_and_loads_back),
		cmocka_unit_test(test_cells_read_as_on_screen),
		cmocka_unit_test(test_json_in_any_locale),
		cmocka_unit_test(test_format_for_path),
		cmocka_unit_test(test_typed_values),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	av_theme_free(&theme);
	return failed;
}
