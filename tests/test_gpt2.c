/* test_gpt2.c: the GPT-2 forward against PyTorch on tiny random models
 * (tests/make_gpt2_fixtures.py wrote them and their reference.json): every
 * layer's Q, K, V, scores and weights, the traced layer's ln_1 output,
 * attention output and residual, and the logits agree to 1e-5 (relative to
 * the value where it is above 1: float32 sums in another order); the loader
 * refuses bad models naming file and tensor. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "json_read.h"
#include "model/gpt2.h"
#include "util.h"

#define FIXTURES TESTS_SRCDIR "/fixtures/"
#define TOLERANCE 1e-5

/* Largest |got - want| / max(1, |want|) over count values of the
 * reference list key. */
static double max_diff(const cJSON *obj, const char *key, const float *got, size_t count)
{
	const cJSON *list = cJSON_GetObjectItem(obj, key);
	assert_non_null(list);
	assert_int_equal((size_t)cJSON_GetArraySize(list), count);
	double worst = 0;
	size_t i = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, list) {
		double scale = fabs(v->valuedouble) > 1 ? fabs(v->valuedouble) : 1;
		double d = fabs((double)got[i++] - v->valuedouble) / scale;
		if (!(d <= worst))
			worst = d;
	}
	return worst;
}

static void check(const cJSON *obj, const char *key, const float *got, size_t count,
		  const char *where)
{
	double d = max_diff(obj, key, got, count);
	print_message("%s %s: largest difference %.3g\n", where, key, d);
	if (!(d <= TOLERANCE))
		fail_msg("%s %s: differs from PyTorch by %g", where, key, d);
}

static void check_model(const char *dir)
{
	struct av_gpt2 m;
	char *cause = NULL;
	if (!av_gpt2_load(&m, dir, &cause))
		fail_msg("%s", cause);
	char *ref_path = av_printf("%s/reference.json", dir);
	cJSON *ref = av_json_load_file(ref_path, &cause);
	assert_non_null(ref);
	int L = cJSON_GetObjectItem(ref, "n_layer")->valueint;
	int H = cJSON_GetObjectItem(ref, "n_head")->valueint;
	int C = cJSON_GetObjectItem(ref, "n_embd")->valueint;
	assert_int_equal(m.cfg.n_layer, L);
	assert_int_equal(m.cfg.n_head, H);
	assert_int_equal(m.cfg.n_embd, C);
	const char *text = cJSON_GetObjectItem(ref, "text")->valuestring;

	struct av_gpt2_run r = { 0 };
	assert_true(av_gpt2_run_text(&m, text, &r, &cause));
	const cJSON *want_ids = cJSON_GetObjectItem(ref, "ids");
	assert_int_equal(r.n, cJSON_GetArraySize(want_ids));
	for (int i = 0; i < r.n; i++)
		assert_int_equal(r.ids[i], cJSON_GetArrayItem(want_ids, i)->valueint);

	int n = r.n;
	size_t NC = (size_t)n * C, NN = (size_t)n * n;
	float *part = av_malloc(NC * sizeof(float));
	struct av_trace t = { 0 };
	for (int l = 0; l < L; l++) {
		const cJSON *layer = cJSON_GetArrayItem(cJSON_GetObjectItem(ref, "layers"), l);
		char where[64];
		snprintf(where, sizeof(where), "%s layer %d", strrchr(dir, '/') + 1, l);
		for (int which = 0; which < 3; which++) {   /* Q, K, V out of qkv */
			for (int i = 0; i < n; i++)
				memcpy(part + (size_t)i * C, r.qkv + (size_t)l * NC * 3 + (size_t)i * 3 * C +
				       (size_t)which * C, (size_t)C * sizeof(float));
			check(layer, which == 0 ? "q" : which == 1 ? "k" : "v", part, NC, where);
		}
		check(layer, "scores", r.scores + (size_t)l * H * NN, (size_t)H * NN, where);
		check(layer, "weights", r.weights + (size_t)l * H * NN, (size_t)H * NN, where);
		/* the same layer as a trace: the stages the stepper shows */
		av_gpt2_trace_layer(&m, &r, l, text, &t);
		assert_int_equal(t.n, n);
		assert_int_equal(t.heads, H);
		assert_int_equal(t.cfg.mode, AV_MODE_CAUSAL);
		assert_true(fabs(t.divisor - sqrt((double)C / H)) < 1e-12);
		check(layer, "ln_1", t.embedding, NC, where);
		check(layer, "q", t.q, NC, where);
		check(layer, "v", t.v, NC, where);
		/* the trace keeps the hidden half of the scores, q . k for every
		 * pair (the stepper's scores stage; the masked stage hides it); the
		 * reference and the forward hold 0 there */
		float *lower = av_malloc((size_t)H * NN * sizeof(float));
		memcpy(lower, t.scores, (size_t)H * NN * sizeof(float));
		int above = 0;
		for (int h = 0; h < H; h++)
			for (int i = 0; i < n; i++)
				for (int j = i + 1; j < n; j++) {
					size_t cell = (size_t)h * NN + (size_t)i * n + j;
					above += lower[cell] != 0.0f;
					lower[cell] = 0.0f;
				}
		assert_true(n < 2 || above > 0);
		check(layer, "scores", lower, (size_t)H * NN, where);
		free(lower);
		check(layer, "weights", t.weights, (size_t)H * NN, where);
		check(layer, "output", t.output, NC, where);
		check(layer, "residual", t.residual, NC, where);
		for (int i = 0; i < n; i++)   /* hidden cells, as the engine writes them */
			for (int j = i + 1; j < n; j++)
				assert_true(t.masked[(size_t)i * n + j] == AV_MASKED_VALUE &&
					    !t.mask[(size_t)i * n + j]);
	}
	check(ref, "logits", r.logits, (size_t)n * m.cfg.n_vocab, "logits");

	/* the next token: the argmax of the last row, probabilities summing to
	 * at most 1 and falling */
	int ids[5];
	double probs[5];
	assert_int_equal(av_gpt2_top_k(&r, n - 1, 5, ids, probs), 5);
	const float *last = r.logits + (size_t)(n - 1) * m.cfg.n_vocab;
	for (int i = 0; i < m.cfg.n_vocab; i++)
		assert_true(last[i] <= last[ids[0]]);
	for (int i = 1; i < 5; i++)
		assert_true(probs[i] <= probs[i - 1] && last[ids[i]] <= last[ids[i - 1]]);
	assert_true(probs[0] > 0 && probs[0] + probs[1] + probs[2] + probs[3] + probs[4] <= 1.0 + 1e-9);

	/* a second run reuses the buffers */
	assert_true(av_gpt2_run_text(&m, "the mat", &r, &cause));
	assert_int_equal(r.n, 3);   /* "t" "he" " mat" */
	av_trace_free(&t);
	av_gpt2_run_free(&r);
	free(part);
	free(ref_path);
	cJSON_Delete(ref);
	av_gpt2_free(&m);
}

static void test_tiny(void **state)
{
	(void)state;
	check_model(FIXTURES "gpt2-tiny");
}

/* "transformer." names, mask buffers to skip, no config.json */
static void test_prefix_inferred(void **state)
{
	(void)state;
	check_model(FIXTURES "gpt2-prefix");
}

/* GELU's tanh form, as PyTorch's GELU(approximate='tanh') defines it, in
 * double with libm: x / (1 + exp(-2u)) is 0.5 x (1 + tanh(u)) without the
 * cancellation of 1 + tanh(u) for negative x. u is rounded to float as the
 * float32 forward (PyTorch's and attnview's) rounds it: that rounding,
 * amplified by 2|u| for negative x (up to 1.3e-5 relative near x = -9,
 * about 1e-36 absolute), is the formula's and no kernel's. */
static double gelu_libm(float x)
{
	float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
	return (double)x / (1.0 + exp(-2.0 * (double)u));
}

/* The largest error of av_gpt2_gelu against gelu_libm over count finite
 * floats (the rest are checked one by one): relative, or absolute against
 * 2^-100 for smaller results (x < -7.6), where exp(2u) is a subnormal
 * float with fewer bits (and PyTorch's formula gives 0). */
static double gelu_worst(const float *xs, size_t count, float *at)
{
	float *got = av_malloc(count * sizeof(float));
	memcpy(got, xs, count * sizeof(float));
	av_gpt2_gelu(got, count);
	double worst = 0, tiny = ldexp(1, -100);
	for (size_t i = 0; i < count; i++) {
		double want = gelu_libm(xs[i]);
		double e = fabs((double)got[i] - want) / (fabs(want) > tiny ? fabs(want) : tiny);
		if (!(e <= worst)) {   /* a NaN is the worst */
			worst = e;
			*at = xs[i];
		}
	}
	free(got);
	return worst;
}

/* The vectorised GELU (its own exp) against libm: every 65521st float bit
 * pattern (all magnitudes, both signs: 65,000 values), and [-12, 12], where
 * the curve bends, every 2^-13. Measured on every finite float (4.3e9,
 * by hand, 3 minutes): 2.4e-7 relative (4 ulp) at worst; libm's tanhf in
 * the same formula loses everything to cancellation below x = -5 (-0 for
 * gelu(-10) = -1.2e-37). And the special values, one by one. */
static void test_gelu(void **state)
{
	(void)state;
	size_t count = 0, cap = 300000;
	float *xs = av_malloc(cap * sizeof(float));
	for (uint64_t bits = 0; bits < (1ull << 32); bits += 65521) {
		uint32_t b = (uint32_t)bits;
		float x;
		memcpy(&x, &b, sizeof(x));
		if (isfinite(x))
			xs[count++] = x;
	}
	for (int i = -12 * 8192; i <= 12 * 8192; i++)
		xs[count++] = (float)i / 8192;
	assert_true(count <= cap);
	float at = 0;
	double worst = gelu_worst(xs, count, &at);
	print_message("gelu: %zu values, largest relative error %.3g (x = %.9g)\n", count, worst,
		      (double)at);
	if (!(worst <= 4e-7))
		fail_msg("gelu(%.9g): relative error %g against libm", (double)at, worst);
	free(xs);

	/* +-0 keep their sign; tiny x -> x / 2; the tails: x and -0; infinities
	 * and NaN as 0.5 x (1 + tanh(u)) gives them */
	float v[] = { 0.0f, -0.0f, 1e-30f, -1e-30f, 10.0f, -10.0f, -20.0f, FLT_MAX, -FLT_MAX,
		      INFINITY, -INFINITY, NAN };
	av_gpt2_gelu(v, sizeof(v) / sizeof(v[0]));
	assert_true(v[0] == 0 && !signbit(v[0]));
	assert_true(v[1] == 0 && signbit(v[1]));
	assert_true(v[2] == 5e-31f && v[3] == -5e-31f);
	assert_true(v[4] == 10.0f);
	assert_true(fabs(v[5] / gelu_libm(-10.0f) - 1) < 1e-6);   /* -1.2e-37, not -0 */
	assert_true(v[6] == 0 && signbit(v[6]));   /* -20 e^-1277... */
	assert_true(v[7] == FLT_MAX);
	assert_true(v[8] == 0 && signbit(v[8]));
	assert_true(v[9] == INFINITY);
	assert_true(isnan(v[10]) && isnan(v[11]));
}

/* Every array of two runs of n tokens the same, bit for bit. */
static void assert_same_run(const struct av_gpt2_run *a, const struct av_gpt2_run *b)
{
	assert_int_equal(a->n, b->n);
	size_t n = (size_t)a->n, L = (size_t)a->n_layer, C = (size_t)a->n_embd;
	size_t HNN = (size_t)a->n_head * n * n;
	assert_memory_equal(a->ids, b->ids, n * sizeof(int));
	assert_memory_equal(a->stream, b->stream, (L + 1) * n * C * sizeof(float));
	assert_memory_equal(a->qkv, b->qkv, L * n * 3 * C * sizeof(float));
	assert_memory_equal(a->scores, b->scores, L * HNN * sizeof(float));
	assert_memory_equal(a->weights, b->weights, L * HNN * sizeof(float));
	assert_memory_equal(a->logits, b->logits, n * (size_t)a->n_vocab * sizeof(float));
}

/* Arrays are reused: a run's own after a longer sentence, and those of the
 * run freed last (gpt2.c's spare) for a fresh run. What the longer sentence
 * left in them (scores above the diagonal, rows past n) changes nothing. */
static void test_reused_arrays(void **state)
{
	(void)state;
	struct av_gpt2 m;
	char *cause = NULL;
	if (!av_gpt2_load(&m, FIXTURES "gpt2-tiny", &cause))
		fail_msg("%s", cause);
	struct av_gpt2_run used = { 0 }, fresh = { 0 }, spare = { 0 };
	assert_true(av_gpt2_run_text(&m, "the cat sat on the mat, the cat", &used, &cause));
	assert_true(used.n > 8);
	const float *kept = used.logits;
	assert_true(av_gpt2_run_text(&m, "the mat", &used, &cause));
	assert_ptr_equal(used.logits, kept);   /* its own arrays again */
	assert_true(av_gpt2_run_text(&m, "the mat", &fresh, &cause));   /* new ones */
	assert_true(fresh.logits != used.logits);
	assert_same_run(&used, &fresh);
	uintptr_t freed = (uintptr_t)used.logits;
	av_gpt2_run_free(&used);
	assert_null(used.logits);
	assert_true(av_gpt2_run_text(&m, "the mat", &spare, &cause));
	assert_true((uintptr_t)spare.logits == freed);   /* the spare's */
	assert_same_run(&spare, &fresh);
	av_gpt2_run_free(&spare);
	av_gpt2_run_free(&fresh);
	av_gpt2_free(&m);
}

static void test_forward_refusals(void **state)
{
	(void)state;
	struct av_gpt2 m;
	char *cause = NULL;
	assert_true(av_gpt2_load(&m, FIXTURES "gpt2-tiny", &cause));
	struct av_gpt2_run r = { 0 };
	int ids[40] = { 0 };
	assert_false(av_gpt2_forward(&m, ids, 33, &r, &cause));
	assert_string_equal(cause, "33 tokens: the model takes 1 to 32");
	free(cause);
	cause = NULL;
	ids[1] = 268;
	assert_false(av_gpt2_forward(&m, ids, 2, &r, &cause));
	assert_string_equal(cause, "token id 268 is outside the vocabulary (0 to 267)");
	free(cause);
	cause = NULL;
	assert_false(av_gpt2_run_text(&m, "", &r, &cause));
	assert_string_equal(cause, "the sentence is empty");
	free(cause);
	av_gpt2_free(&m);
}

/* "the" and n - 1 times " the": n + 1 tokens ("t" "he" " the"...), malloc'd */
static char *the_times(int n)
{
	char *s = malloc((size_t)n * 4 + 1);
	assert_non_null(s);
	strcpy(s, "the");
	for (int i = 1; i < n; i++)
		strcat(s, " the");
	return s;
}

/* A text of too many tokens is refused with its count and the model's own
 * limit, however many it has: 220 tokens said "more than 64 tokens" (the
 * tokenizer's buffer) to a model of 32 positions. */
static void test_too_many_tokens(void **state)
{
	(void)state;
	struct av_gpt2 m;
	char *cause = NULL;
	assert_true(av_gpt2_load(&m, FIXTURES "gpt2-tiny", &cause));
	assert_int_equal(av_gpt2_max_tokens(&m), 32);
	static const int counts[] = { 33, 37, 64, 65, 220 };
	int ids[AV_GPT2_MAX_TOKENS];
	struct av_gpt2_run r = { 0 };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		char *text = the_times(counts[i] - 1);
		char *want = av_printf("%d tokens: the model takes 1 to 32", counts[i]);
		assert_int_equal(av_gpt2_tokenize(&m, text, ids, &cause), -1);
		assert_string_equal(cause, want);
		free(cause);
		cause = NULL;
		assert_false(av_gpt2_run_text(&m, text, &r, &cause));
		assert_string_equal(cause, want);
		free(cause);
		cause = NULL;
		free(want);
		free(text);
	}
	char *text = the_times(31);   /* 32 tokens: the most it takes */
	assert_int_equal(av_gpt2_tokenize(&m, text, ids, &cause), 32);
	assert_int_equal(ids[31], 258);   /* " the" */
	free(text);
	/* a model of more positions than a trace holds: attnview's limit,
	 * and the model's */
	m.cfg.n_ctx = 1024;
	text = the_times(219);
	assert_int_equal(av_gpt2_tokenize(&m, text, ids, &cause), -1);
	assert_string_equal(cause, "220 tokens: attnview shows 1 to 64 (the model takes up to 1024)");
	free(cause);
	free(text);
	av_gpt2_free(&m);
}

/* --- bad models, written by the test */

#define TEMP_DIR_TEMPLATE "/tmp/attnview-gpt2-XXXXXX"
#include "temp_dir.h"

struct fake { const char *name; int d0, d1; float fill; };

/* A safetensors file of the given tensors, each filled with one value. */
static char *write_model(const char *file, const struct fake *f, int count)
{
	char header[4096];
	size_t o = 0, offset = 0;
	o += (size_t)snprintf(header + o, sizeof(header) - o, "{");
	for (int i = 0; i < count; i++) {
		size_t bytes = (size_t)f[i].d0 * (f[i].d1 ? f[i].d1 : 1) * 4;
		if (f[i].d1)
			o += (size_t)snprintf(header + o, sizeof(header) - o,
					      "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d],\"data_offsets\":[%zu,%zu]}",
					      i ? "," : "", f[i].name, f[i].d0, f[i].d1, offset, offset + bytes);
		else
			o += (size_t)snprintf(header + o, sizeof(header) - o,
					      "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[%zu,%zu]}",
					      i ? "," : "", f[i].name, f[i].d0, offset, offset + bytes);
		offset += bytes;
	}
	o += (size_t)snprintf(header + o, sizeof(header) - o, "}");
	while (o % 8)
		header[o++] = ' ';
	char *path = av_printf("%s/%s", dir, file);
	FILE *out = fopen(path, "wb");
	assert_non_null(out);
	uint64_t len = o;
	unsigned char lenb[8];
	for (int i = 0; i < 8; i++)
		lenb[i] = (unsigned char)(len >> (8 * i));
	fwrite(lenb, 1, 8, out);
	fwrite(header, 1, o, out);
	for (int i = 0; i < count; i++)
		for (int k = 0; k < f[i].d0 * (f[i].d1 ? f[i].d1 : 1); k++)
			fwrite(&f[i].fill, 4, 1, out);
	fclose(out);
	return path;
}

/* A whole 1-layer model of width 4 (vocabulary 5, 8 positions), with one
 * tensor changed by the caller. */
static struct fake good[] = {
	{ "wte.weight", 5, 4, 0.1f }, { "wpe.weight", 8, 4, 0.1f },
	{ "h.0.ln_1.weight", 4, 0, 1 }, { "h.0.ln_1.bias", 4, 0, 0 },
	{ "h.0.attn.c_attn.weight", 4, 12, 0.1f }, { "h.0.attn.c_attn.bias", 12, 0, 0 },
	{ "h.0.attn.c_proj.weight", 4, 4, 0.1f }, { "h.0.attn.c_proj.bias", 4, 0, 0 },
	{ "h.0.ln_2.weight", 4, 0, 1 }, { "h.0.ln_2.bias", 4, 0, 0 },
	{ "h.0.mlp.c_fc.weight", 4, 16, 0.1f }, { "h.0.mlp.c_fc.bias", 16, 0, 0 },
	{ "h.0.mlp.c_proj.weight", 16, 4, 0.1f }, { "h.0.mlp.c_proj.bias", 4, 0, 0 },
	{ "ln_f.weight", 4, 0, 1 }, { "ln_f.bias", 4, 0, 0 },
};
#define N_GOOD ((int)(sizeof(good) / sizeof(good[0])))

static void expect_bad(const char *file, const struct fake *f, int count, const char *config,
		       const char *want)
{
	char *path = write_model(file, f, count);
	char *cfg = NULL;
	if (config) {
		cfg = av_printf("%s/config.json", dir);
		FILE *c = fopen(cfg, "w");
		fputs(config, c);
		fclose(c);
	}
	struct av_gpt2 m;
	char *cause = NULL;
	bool ok = av_gpt2_load_weights(&m, path, cfg, &cause);
	if (ok || !cause || !strstr(cause, want) || !strstr(cause, file))
		fail_msg("%s: got %s", file, ok ? "success" : cause);
	free(cause);
	free(cfg);
	free(path);
}

static void test_bad_models(void **state)
{
	(void)state;
	struct fake f[N_GOOD];
	/* the good one loads (4 is not a multiple of 64: heads from config) */
	char *path = write_model("good.safetensors", good, N_GOOD);
	struct av_gpt2 m;
	char *cause = NULL;
	assert_false(av_gpt2_load_weights(&m, path, NULL, &cause));
	assert_non_null(strstr(cause, "cannot tell the number of heads"));
	free(cause);
	cause = NULL;
	char *cfg = av_printf("%s/ok.json", dir);
	FILE *c = fopen(cfg, "w");
	fputs("{\"n_head\": 2}", c);
	fclose(c);
	assert_true(av_gpt2_load_weights(&m, path, cfg, &cause));
	assert_int_equal(m.cfg.n_head, 2);
	assert_int_equal(m.cfg.n_vocab, 5);
	av_gpt2_free(&m);
	/* a repeated key is refused, not read from its first copy */
	c = fopen(cfg, "w");
	fputs("{\"n_head\": 4, \"n_head\": 2}", c);
	fclose(c);
	assert_false(av_gpt2_load_weights(&m, path, cfg, &cause));
	assert_non_null(strstr(cause, "ok.json: \"n_head\": given twice"));
	free(cause);
	cause = NULL;
	free(cfg);
	free(path);

	memcpy(f, good, sizeof(good));
	f[5].d0 = 13;
	expect_bad("shape.safetensors", f, N_GOOD, "{\"n_head\": 2}",
		   "tensor \"h.0.attn.c_attn.bias\": expected shape (12), got (13)");
	memcpy(f, good, sizeof(good));
	f[4].d1 = 4;
	expect_bad("shape2.safetensors", f, N_GOOD, "{\"n_head\": 2}",
		   "tensor \"h.0.attn.c_attn.weight\": expected shape (4, 12), got (4, 4)");
	expect_bad("missing.safetensors", good, N_GOOD - 1, "{\"n_head\": 2}",
		   "no tensor \"ln_f.bias\"");
	expect_bad("no-wte.safetensors", good + 1, N_GOOD - 1, "{\"n_head\": 2}",
		   "no 2-D tensors \"transformer.wte.weight\"");
	expect_bad("config.safetensors", good, N_GOOD, "{\"n_head\": 2, \"n_embd\": 8}",
		   "config.json says layers 0, width 8");
	expect_bad("heads.safetensors", good, N_GOOD, "{\"n_head\": 3}",
		   "width 4 is not divisible by 3 heads");
}

/* An output layer of its own (lm_head.weight) is taken only when it is
 * wte's copy: attnview's next tokens come from wte, as GPT-2's do. */
static void test_untied_output_layer(void **state)
{
	(void)state;
	struct fake f[N_GOOD + 1];
	memcpy(f, good, sizeof(good));
	f[N_GOOD] = (struct fake){ "lm_head.weight", 5, 4, 0.1f };   /* wte's fill */
	char *path = write_model("tied.safetensors", f, N_GOOD + 1);
	char *cfg = av_printf("%s/tied.json", dir);
	FILE *c = fopen(cfg, "w");
	fputs("{\"n_head\": 2}", c);
	fclose(c);
	struct av_gpt2 m;
	char *cause = NULL;
	assert_true(av_gpt2_load_weights(&m, path, cfg, &cause));
	av_gpt2_free(&m);
	free(path);
	free(cfg);
	f[N_GOOD].fill = 0.2f;
	expect_bad("untied.safetensors", f, N_GOOD + 1, "{\"n_head\": 2}",
		   "\"lm_head.weight\" differs from the token embedding");
	f[N_GOOD].d0 = 6;
	expect_bad("head-shape.safetensors", f, N_GOOD + 1, "{\"n_head\": 2}",
		   "tensor \"lm_head.weight\": expected shape (5, 4), got (6, 4)");
}

/* A NaN weight loads (the header is all that is read) but the forward
 * pass names it. */
static void test_nan_weight(void **state)
{
	(void)state;
	struct fake f[N_GOOD];
	memcpy(f, good, sizeof(good));
	f[10].fill = NAN;
	char *path = write_model("nan.safetensors", f, N_GOOD);
	char *cfg = av_printf("%s/nan.json", dir);
	FILE *c = fopen(cfg, "w");
	fputs("{\"n_head\": 2}", c);
	fclose(c);
	struct av_gpt2 m;
	char *cause = NULL;
	assert_true(av_gpt2_load_weights(&m, path, cfg, &cause));
	struct av_gpt2_run r = { 0 };
	int ids[2] = { 1, 2 };
	assert_false(av_gpt2_forward(&m, ids, 2, &r, &cause));
	assert_non_null(strstr(cause, "nan.safetensors: tensor \"h.0.mlp.c_fc.weight\": holds a NaN or infinite value"));
	assert_null(r.logits);
	free(cause);
	cause = NULL;
	assert_false(av_gpt2_check_finite(&m, &cause));
	free(cause);
	av_gpt2_free(&m);
	free(cfg);
	free(path);
}

static void test_bad_config(void **state)
{
	(void)state;
	char *path = write_model("cfg.safetensors", good, N_GOOD);
	char *cfg = av_printf("%s/bad.json", dir);
	FILE *c = fopen(cfg, "w");
	fputs("{\"n_head\": 2.5}", c);
	fclose(c);
	struct av_gpt2 m;
	char *cause = NULL;
	assert_false(av_gpt2_load_weights(&m, path, cfg, &cause));
	assert_non_null(strstr(cause, "bad.json: \"n_head\": expected a whole number from 1 to"));
	free(cause);
	free(cfg);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_prefix_inferred),
		cmocka_unit_test(test_gelu),
		cmocka_unit_test(test_reused_arrays),
		cmocka_unit_test(test_forward_refusals),
		cmocka_unit_test(test_too_many_tokens),
		cmocka_unit_test(test_bad_models),
		cmocka_unit_test(test_untied_output_layer),
		cmocka_unit_test(test_nan_weight),
		cmocka_unit_test(test_bad_config),
	};
	return cmocka_run_group_tests(tests, temp_dir_setup, temp_dir_teardown);
}
