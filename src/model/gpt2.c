/* gpt2.c: loading a GPT-2 safetensors file and its forward pass (gpt2.h). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "gpt2.h"
#include "i18n.h"
#include "json_read.h"
#include "matmul.h"
#include "util.h"

static void drop_spare(void);

/* --- loading */

struct loader {
	struct av_gpt2 *m;
	const char *prefix;   /* "" or "transformer." */
	char **cause;
};

static char *shape_text(const int64_t *shape, int ndim)
{
	char buf[256];
	size_t o = 0;
	buf[o++] = '(';
	for (int i = 0; i < ndim && o < sizeof(buf) - 32; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, i ? ", %lld" : "%lld",
				      (long long)shape[i]);
	snprintf(buf + o, sizeof(buf) - o, ")");
	return av_strdup(buf);
}

/* Every value finite: a NaN weight would make every number on screen NaN
 * with no hint of where it came from. Scanned as bits (exponent all ones),
 * which the compiler vectorises. Not at load (touching every page of
 * gpt2's 500 MB costs a second on a busy server, the load's budget is
 * 0.2 s): only when a forward pass meets a number that is not finite, to
 * name the tensor to blame. */
static bool all_finite(const float *v, size_t count)
{
	unsigned bad = 0;
	for (size_t i = 0; i < count; i++) {
		uint32_t bits;
		memcpy(&bits, &v[i], sizeof(bits));
		bad |= (bits & 0x7f800000u) == 0x7f800000u;
	}
	return !bad;
}

/* The floats of tensor PREFIX+name, which must have the shape (d0[, d1]). */
static const float *tensor(struct loader *ld, const char *name, int64_t d0, int64_t d1)
{
	if (*ld->cause)
		return NULL;   /* one message: the first problem */
	char *full = av_printf("%s%s", ld->prefix, name);
	struct av_safetensors *st = &ld->m->st;
	struct av_st_tensor *t = av_st_find(st, full);
	const float *v = NULL;
	int64_t want[2] = { d0, d1 };
	int want_dims = d1 ? 2 : 1;
	if (!t) {
		av_fail(ld->cause, _("%s: no tensor \"%s\" (not a GPT-2 model?)"), st->path, full);
	} else if (t->ndim != want_dims || t->shape[0] != d0 || (d1 && t->shape[1] != d1)) {
		char *got = shape_text(t->shape, t->ndim), *expected = shape_text(want, want_dims);
		av_fail(ld->cause, _("%s: tensor \"%s\": expected shape %s, got %s"), st->path, full,
			expected, got);
		free(got);
		free(expected);
	} else {
		av_st_floats(st, t, &v, ld->cause);
	}
	free(full);
	return *ld->cause ? NULL : v;
}

static bool json_int(const cJSON *doc, const char *key, int lo, int hi, int *out,
		     const char *path, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(doc, key);
	if (!item)
		return true;   /* absent: inferred */
	if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) ||
	    item->valuedouble < lo || item->valuedouble > hi)
		return av_fail(cause, _("%s: \"%s\": expected a whole number from %d to %d"), path,
			       key, lo, hi);
	*out = (int)item->valuedouble;
	return true;
}

static bool read_config(struct av_gpt2_config *c, const char *path, char **cause)
{
	cJSON *doc = av_json_load_file(path, cause);
	if (!doc)
		return false;
	char *shown = av_escape_controls(path);
	/* a repeated key would be read from its first copy only */
	bool ok = av_json_check_unique_keys(doc, NULL, cause);
	if (!ok)
		av_cause_prefix(cause, "%s", shown);
	ok = ok && json_int(doc, "n_layer", 1, AV_GPT2_MAX_LAYERS, &c->n_layer, shown, cause) &&
		  json_int(doc, "n_head", 1, AV_MAX_D_MODEL, &c->n_head, shown, cause) &&
		  json_int(doc, "n_embd", 1, AV_MAX_D_MODEL, &c->n_embd, shown, cause) &&
		  json_int(doc, "vocab_size", 1, 1 << 24, &c->n_vocab, shown, cause) &&
		  json_int(doc, "n_positions", 1, 1 << 20, &c->n_ctx, shown, cause);
	const cJSON *eps = cJSON_GetObjectItemCaseSensitive(doc, "layer_norm_epsilon");
	if (ok && eps) {
		if (!cJSON_IsNumber(eps) || !(eps->valuedouble > 0 && eps->valuedouble < 1))
			ok = av_fail(cause, _("%s: \"layer_norm_epsilon\": expected a number between 0 and 1"),
				     shown);
		else
			c->ln_eps = (float)eps->valuedouble;
	}
	free(shown);
	cJSON_Delete(doc);
	return ok;
}

/* n_layer from the tensors: the first N without h.N.ln_1.weight. */
static int count_layers(const struct av_safetensors *st, const char *prefix)
{
	int n = 0;
	for (;; n++) {
		char name[96];
		snprintf(name, sizeof(name), "%sh.%d.ln_1.weight", prefix, n);
		if (!av_st_find(st, name) || n == AV_GPT2_MAX_LAYERS)
			return n;
	}
}

/* The shapes config.json gave agree with the tensors', or fill them in. */
static bool settle_config(struct av_gpt2 *m, const char *prefix, const struct av_gpt2_config *given,
			  char **cause)
{
	struct av_gpt2_config *c = &m->cfg;
	char wte_name[64], wpe_name[64];
	snprintf(wte_name, sizeof(wte_name), "%swte.weight", prefix);
	snprintf(wpe_name, sizeof(wpe_name), "%swpe.weight", prefix);
	const struct av_st_tensor *wte = av_st_find(&m->st, wte_name);
	const struct av_st_tensor *wpe = av_st_find(&m->st, wpe_name);
	if (!wte || !wpe || wte->ndim != 2 || wpe->ndim != 2)
		return av_fail(cause, _("%s: no 2-D tensors \"%s\" and \"%s\" (not a GPT-2 model?)"),
			       m->st.path, wte_name, wpe_name);
	c->n_vocab = (int)(wte->shape[0] < (1 << 24) ? wte->shape[0] : 0);
	c->n_embd = (int)(wte->shape[1] <= AV_MAX_D_MODEL ? wte->shape[1] : 0);
	c->n_ctx = (int)(wpe->shape[0] < (1 << 20) ? wpe->shape[0] : 0);
	c->n_layer = count_layers(&m->st, prefix);
	c->ln_eps = given->ln_eps > 0 ? given->ln_eps : 1e-5f;
	if (c->n_vocab < 1 || c->n_embd < 1 || c->n_ctx < 1 || c->n_layer < 1)
		return av_fail(cause, _("%s: implausible sizes: vocabulary %lld, width %lld, "
				       "positions %lld, layers %d"),
			       m->st.path, (long long)wte->shape[0], (long long)wte->shape[1],
			       (long long)wpe->shape[0], c->n_layer);
	if ((given->n_embd && given->n_embd != c->n_embd) ||
	    (given->n_vocab && given->n_vocab != c->n_vocab) ||
	    (given->n_ctx && given->n_ctx != c->n_ctx) ||
	    (given->n_layer && given->n_layer != c->n_layer))
		return av_fail(cause, _("%s: config.json says layers %d, width %d, vocabulary %d, "
				       "positions %d; the tensors have %d, %d, %d, %d"),
			       m->st.path, given->n_layer, given->n_embd, given->n_vocab, given->n_ctx,
			       c->n_layer, c->n_embd, c->n_vocab, c->n_ctx);
	c->n_head = given->n_head;
	if (!c->n_head) {
		if (c->n_embd % 64)
			return av_fail(cause, _("%s: cannot tell the number of heads (width %d is "
					       "not a multiple of 64); add a config.json with "
					       "\"n_head\""),
				       m->st.path, c->n_embd);
		c->n_head = c->n_embd / 64;
	}
	if (c->n_embd % c->n_head)
		return av_fail(cause, _("%s: width %d is not divisible by %d heads"), m->st.path,
			       c->n_embd, c->n_head);
	return true;
}

/* GPT-2 ties its output layer to the token embedding (logits = h · wteᵀ),
 * and so does attnview's forward pass. A checkpoint may still carry its own
 * "lm_head.weight" (some conversions write the tied copy out): it must
 * then hold wte's numbers, or the next tokens shown would not be this
 * model's, and nothing would say so. */
static bool tied_output_layer(struct av_gpt2 *m, char **cause)
{
	if (!av_st_find(&m->st, "lm_head.weight"))
		return true;
	struct loader top = { m, "", cause };
	size_t count = (size_t)m->cfg.n_vocab * (size_t)m->cfg.n_embd;
	const float *head = tensor(&top, "lm_head.weight", m->cfg.n_vocab, m->cfg.n_embd);
	if (!head)
		return false;
	if (memcmp(head, m->wte, count * sizeof(float)) != 0)
		return av_fail(cause, _("%s: \"lm_head.weight\" differs from the token embedding: "
				       "GPT-2 ties its output layer to wte, as attnview does, so "
				       "this model's next tokens would not be the ones shown"),
			       m->st.path);
	return true;
}

static bool bind_tensors(struct av_gpt2 *m, const char *prefix, char **cause)
{
	struct loader ld = { m, prefix, cause };
	int64_t C = m->cfg.n_embd;
	m->wte = tensor(&ld, "wte.weight", m->cfg.n_vocab, C);
	m->wpe = tensor(&ld, "wpe.weight", m->cfg.n_ctx, C);
	m->layers = av_calloc((size_t)m->cfg.n_layer, sizeof(*m->layers));
	for (int l = 0; l < m->cfg.n_layer && !*cause; l++) {
		struct av_gpt2_layer *L = &m->layers[l];
		char name[96];
#define LAYER_TENSOR(field, suffix, d0, d1) \
	(snprintf(name, sizeof(name), "h.%d.%s", l, suffix), L->field = tensor(&ld, name, d0, d1))
		LAYER_TENSOR(ln_1_w, "ln_1.weight", C, 0);
		LAYER_TENSOR(ln_1_b, "ln_1.bias", C, 0);
		LAYER_TENSOR(attn_w, "attn.c_attn.weight", C, 3 * C);
		LAYER_TENSOR(attn_b, "attn.c_attn.bias", 3 * C, 0);
		LAYER_TENSOR(attn_proj_w, "attn.c_proj.weight", C, C);
		LAYER_TENSOR(attn_proj_b, "attn.c_proj.bias", C, 0);
		LAYER_TENSOR(ln_2_w, "ln_2.weight", C, 0);
		LAYER_TENSOR(ln_2_b, "ln_2.bias", C, 0);
		LAYER_TENSOR(fc_w, "mlp.c_fc.weight", C, 4 * C);
		LAYER_TENSOR(fc_b, "mlp.c_fc.bias", 4 * C, 0);
		LAYER_TENSOR(mlp_proj_w, "mlp.c_proj.weight", 4 * C, C);
		LAYER_TENSOR(mlp_proj_b, "mlp.c_proj.bias", C, 0);
#undef LAYER_TENSOR
	}
	m->ln_f_w = tensor(&ld, "ln_f.weight", C, 0);
	m->ln_f_b = tensor(&ld, "ln_f.bias", C, 0);
	return !*cause && tied_output_layer(m, cause);
}

bool av_gpt2_load_weights(struct av_gpt2 *m, const char *safetensors_path,
			  const char *config_path, char **cause)
{
	memset(m, 0, sizeof(*m));
	struct av_gpt2_config given = { 0 };
	if (config_path && !read_config(&given, config_path, cause))
		return false;
	if (!av_st_open(&m->st, safetensors_path, cause))
		return false;
	const char *prefix = av_st_find(&m->st, "wte.weight") ? "" : "transformer.";
	char *local = NULL;
	bool ok = settle_config(m, prefix, &given, &local) && bind_tensors(m, prefix, &local);
	if (!ok) {
		*cause = local;
		av_gpt2_free(m);
		if (!*cause)
			*cause = av_strdup(_("cannot load the model"));
	}
	return ok;
}

static bool file_exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

bool av_gpt2_load(struct av_gpt2 *m, const char *dir, char **cause)
{
	char *weights = av_printf("%s/model.safetensors", dir);
	char *config = av_printf("%s/config.json", dir);
	char *vocab = av_printf("%s/vocab.json", dir);
	char *merges = av_printf("%s/merges.txt", dir);
	bool ok = av_gpt2_load_weights(m, weights, file_exists(config) ? config : NULL, cause);
	if (ok) {
		ok = av_bpe_load(&m->bpe, vocab, merges, cause);
		if (ok && m->bpe.n_vocab > m->cfg.n_vocab) {
			char *shown = av_escape_controls(vocab);
			ok = av_fail(cause, _("%s: %d entries but the model has only %d token rows"),
				     shown, m->bpe.n_vocab, m->cfg.n_vocab);
			free(shown);
		}
		if (!ok)
			av_gpt2_free(m);
	}
	free(weights);
	free(config);
	free(vocab);
	free(merges);
	return ok;
}

void av_gpt2_free(struct av_gpt2 *m)
{
	drop_spare();
	av_st_close(&m->st);
	av_bpe_free(&m->bpe);
	free(m->layers);
	memset(m, 0, sizeof(*m));
}

/* --- kernels
 *
 * Written so that gcc and clang vectorise them for the build's SSE2 (and
 * whatever target_clones adds): no calls in the loops, no branches but
 * selects, sums kept in explicit lanes (without -ffast-math a compiler may
 * not reorder one running sum). */

/* cond ? a : b without a branch. gcc (12, with its default
 * -ftrapping-math) will not vectorise a loop holding a floating-point
 * "?:", but does this blend of bits; clang does both. */
static inline float pick(int cond, float a, float b)
{
	uint32_t ua, ub, all = 0u - (uint32_t)cond;
	memcpy(&ua, &a, sizeof(ua));
	memcpy(&ub, &b, sizeof(ub));
	uint32_t bits = (ua & all) | (ub & ~all);
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* exp(x) for x <= 0 (what softmax and GELU below need), in loops the
 * compiler vectorises: libm's expf is a call per element, which no loop
 * around it can vectorise (it was 9% of gpt2's forward, inside tanhf).
 * x = k ln2 + r with k whole and |r| <= ln2/2 (ln2 split in two, Cephes'
 * C1 + C2, so k C1 is exact); exp(r) by Cephes' expf polynomial (relative
 * error 4e-9 on that interval); 2^k as two powers of two put in the
 * exponent bits (each stays a normal float down to 2^-150, so subnormal
 * results are right too). Within 2 ulp of expf down to -87.3, gradual below,
 * 0 below -104, NaN for NaN. The clamp comes first so that the conversion
 * to int never sees a NaN or a huge value. */
static inline float exp_approx(float x)
{
	float c = pick(x > -104.0f, x, -104.0f);   /* NaN: -104 */
	c = pick(c < 0.0f, c, 0.0f);
	/* k = round(c / ln2): adding and taking away 1.5 * 2^23 rounds a float
	 * of magnitude below 2^22 to a whole number */
	float k = (c * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
	float r = c - k * 0.693359375f;
	r = r - k * -2.12194440e-4f;
	float p = 1.9875691500e-4f;
	p = p * r + 1.3981999507e-3f;
	p = p * r + 8.3334519073e-3f;
	p = p * r + 4.1665795894e-2f;
	p = p * r + 1.6666665459e-1f;
	p = p * r + 5.0000001201e-1f;
	p = p * (r * r) + r + 1.0f;
	int32_t k_all = (int32_t)k, k_half = k_all / 2;   /* -150 .. 0, -75 .. 0 */
	uint32_t bits_1 = (uint32_t)(k_half + 127) << 23, bits_2 = (uint32_t)(k_all - k_half + 127) << 23;
	float two_1, two_2;
	memcpy(&two_1, &bits_1, sizeof(two_1));
	memcpy(&two_2, &bits_2, sizeof(two_2));
	float y = p * two_1 * two_2;
	y = pick(x < -104.0f, 0.0f, y);
	return pick(x == x, y, x);
}

void av_gpt2_layernorm(float *out, const float *x, const float *w, const float *b, int n, int C,
		       float eps)
{
	enum { LANES = 8 };
	for (int t = 0; t < n; t++) {
		const float *row = x + (size_t)t * C;
		/* mean and biased variance (as nn.LayerNorm), two passes, summed
		 * in double in LANES interleaved sums */
		double lane[LANES] = { 0 }, mean = 0, var = 0;
		int i = 0;
		for (; i + LANES <= C; i += LANES)
			for (int j = 0; j < LANES; j++)
				lane[j] += row[i + j];
		for (; i < C; i++)
			lane[0] += row[i];
		for (int j = 0; j < LANES; j++)
			mean += lane[j];
		mean /= C;
		for (int j = 0; j < LANES; j++)
			lane[j] = 0;
		for (i = 0; i + LANES <= C; i += LANES)
			for (int j = 0; j < LANES; j++)
				lane[j] += (row[i + j] - mean) * (row[i + j] - mean);
		for (; i < C; i++)
			lane[0] += (row[i] - mean) * (row[i] - mean);
		for (int j = 0; j < LANES; j++)
			var += lane[j];
		var /= C;
		double rstd = 1.0 / sqrt(var + eps);
		float *o = out + (size_t)t * C;
		for (i = 0; i < C; i++)
			o[i] = (float)((row[i] - mean) * rstd) * w[i] + b[i];
	}
}

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
/* An AVX2 copy of the function too, picked at load time on a CPU that has
 * it (glibc's ifunc), as OpenBLAS picks its kernels: eight floats an
 * instruction instead of SSE2's four. The same operations (no FMA: C11
 * contracts nothing), so the same bits either way. */
#define AV_ALSO_AVX2 __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef AV_ALSO_AVX2
#define AV_ALSO_AVX2
#endif

/* 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715
 * x^3): the same function as PyTorch's GELU(approximate='tanh'), without
 * tanh's cancellation for negative x (1 + tanh(u) -> 0) and with exp of
 * -|2u| only (for u < 0, x exp(2u) / (1 + exp(2u))), so nothing overflows.
 * Every float: +-0 -> +-0, large negative x -> -0, +inf -> +inf, -inf and
 * NaN -> NaN, as PyTorch's formula gives. tests/test_gpt2.c measures the
 * error against libm in double.
 *
 * gpt2's (32, 3072) MLP activations of 12 layers take 3.4 ms with SSE2,
 * 1.5 ms with AVX2 (libm's tanhf: 20 ms). Static, behind av_gpt2_gelu:
 * clang 14 names the clones' dispatcher of an extern function
 * "av_gpt2_gelu.ifunc", which other files cannot link to. */
static AV_ALSO_AVX2 void gelu_loop(float *x, size_t count)
{
	const float s = 0.7978845608028654f;   /* sqrt(2 / pi) */
	for (size_t i = 0; i < count; i++) {
		float v = x[i];
		float two_u = 2.0f * (s * (v + 0.044715f * v * v * v));
		float e = exp_approx(pick(two_u < 0.0f, two_u, -two_u));   /* exp(-|2u|) */
		x[i] = v * pick(two_u < 0.0f, e, 1.0f) / (1.0f + e);
	}
}

void av_gpt2_gelu(float *x, size_t count)
{
	gelu_loop(x, count);
}

/* --- weights that are not finite */

/* The first tensor of m holding a NaN or an infinity, named in *cause. */
static bool find_nonfinite_tensor(const struct av_gpt2 *m, char **cause)
{
	for (int i = 0; i < m->st.n; i++) {
		const struct av_st_tensor *t = &m->st.tensors[i];
		/* the floats the forward used: a copy (converted or unaligned)
		 * or the mapping; tensors never used (a mask buffer) have neither */
		const unsigned char *at = m->st.data + t->begin;
		const float *v = t->copy ? t->copy
			: t->dtype == AV_ST_F32 && (uintptr_t)at % _Alignof(float) == 0
			? (const float *)(const void *)at : NULL;
		if (v && !all_finite(v, t->count)) {
			char *name = av_escape(t->name);
			av_fail(cause, _("%s: tensor \"%s\": holds a NaN or infinite value"),
				m->st.path, name);
			free(name);
			return true;
		}
	}
	return false;
}

bool av_gpt2_check_finite(const struct av_gpt2 *m, char **cause)
{
	return !find_nonfinite_tensor(m, cause);
}

/* Whether any of count floats is a NaN or an infinity: or-ed into a flag
 * by the loops that write them, so no pass of its own. */
static inline unsigned not_finite(float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	return (bits & 0x7f800000u) == 0x7f800000u;
}

/* A forward pass met a number that is not finite: it comes from a weight
 * (named) or from an overflow (the first layer whose output has one). */
static bool explain_not_finite(const struct av_gpt2 *m, const struct av_gpt2_run *r,
			       char **cause)
{
	size_t NC = (size_t)r->n * r->n_embd;
	if (find_nonfinite_tensor(m, cause))
		return false;
	for (int l = 0; l <= r->n_layer; l++)
		if (!all_finite(r->stream + (size_t)l * NC, NC))
			return av_fail(cause, _("%s: the numbers overflow in layer %d (not finite)"),
				       m->st.path, l - 1);
	return av_fail(cause, _("%s: the logits are not finite"), m->st.path);
}

/* --- the forward pass */

/* softmax(causal(scores / sqrt(dh))) of one row: the t + 1 visible
 * scores (row t of a head) into weights, zeros after them (the product
 * with V runs over the whole row). In float, as PyTorch's softmax, with
 * exp_approx: the exps are a loop of their own so that it vectorises.
 * scaled and masked (NULL in the forward) get the stepper's stages. */
static void softmax_causal_row(const float *scores, float scale, int t, int n, float *weights,
			       float *scaled, float *masked)
{
	float row[AV_GPT2_MAX_TOKENS], max = -INFINITY, sum = 0;
	for (int s = 0; s <= t; s++) {
		row[s] = scores[s] * scale;
		max = row[s] > max ? row[s] : max;
	}
	for (int s = 0; s <= t; s++)
		row[s] = exp_approx(row[s] - max);
	for (int s = 0; s <= t; s++)
		sum += row[s];
	for (int s = 0; s < n; s++)
		weights[s] = s <= t ? row[s] / sum : 0.0f;
	for (int s = 0; scaled && s < n; s++)
		scaled[s] = scores[s] * scale;
	for (int s = 0; masked && s < n; s++)
		masked[s] = s <= t ? scores[s] * scale : AV_MASKED_VALUE;
}

/* One head of a layer, h of H, dh = C / H; Q, K, V are column blocks of
 * qkv (n, 3C), so the products read them in place (leading dimension 3C):
 *   scores (n, n) = Q_h (n, dh) . K_h^T, then 0 above the diagonal;
 *   weights (n, n) = softmax(causal(scores / sqrt(dh)));
 *   ctx columns h*dh .. of (n, C) = weights (n, n) . V_h (n, dh).
 * scaled and masked (n, n) when not NULL: the stepper's stages, whose
 * scores keep the hidden half (q . k for every pair, as PyTorch's before
 * masked_fill and as the inspector explains each cell); the forward's are
 * 0 there. The products are full (n, n): the hidden half costs less than a
 * call per row would. */
static void attend_head(const float *qkv, int n, int C, int dh, int h, float *scores,
			float *scaled, float *masked, float *weights, float *ctx)
{
	const float *q = qkv + h * dh, *k = qkv + C + h * dh, *v = qkv + 2 * C + h * dh;
	float scale = 1.0f / sqrtf((float)dh);
	av_matmul_nt(scores, n, q, 3 * C, k, 3 * C, n, n, dh);
	for (int t = 0; t < n; t++) {
		float *row = scores + (size_t)t * n;
		for (int s = t + 1; !scaled && s < n; s++)
			row[s] = 0.0f;
		softmax_causal_row(row, scale, t, n, weights + (size_t)t * n,
				   scaled ? scaled + (size_t)t * n : NULL,
				   masked ? masked + (size_t)t * n : NULL);
	}
	av_matmul_nn(ctx + h * dh, C, weights, n, v, 3 * C, n, dh, n);
}

static void release_arrays(struct av_gpt2_run *r)
{
	free(r->stream);
	free(r->qkv);
	free(r->scores);
	free(r->weights);
	free(r->logits);
	free(r->work);
	memset(r, 0, sizeof(*r));
}

/* The arrays of the last run freed, for the next forward into an empty
 * run: the screen's worker runs every edit of the sentence into a fresh run
 * and the screen then frees the old one, and fresh pages cost a page fault
 * each (a gpt2 forward of 32 tokens took 0.131 s into a fresh run, 0.100 s
 * into a used one). One run at most, freed with the model (av_gpt2_free). */
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct av_gpt2_run spare;

static void drop_spare(void)
{
	pthread_mutex_lock(&spare_lock);
	struct av_gpt2_run old = spare;
	memset(&spare, 0, sizeof(spare));
	pthread_mutex_unlock(&spare_lock);
	release_arrays(&old);
}

static bool fits(const struct av_gpt2_run *r, const struct av_gpt2_config *c, int n)
{
	return r->stream && r->n_layer == c->n_layer && r->n_head == c->n_head &&
	       r->n_embd == c->n_embd && r->n_vocab == c->n_vocab && n <= r->capacity;
}

/* The run's arrays (gpt2.h) and the forward's scratch: r's own when they
 * fit (the same model, room for n tokens), else the spare's, else new ones
 * with room for n rounded up to 8 tokens (a sentence typed grows a token
 * at a time; 1.4 MB at most for gpt2). */
static void run_alloc(struct av_gpt2_run *r, const struct av_gpt2_config *c, int n)
{
	if (!r->stream) {
		pthread_mutex_lock(&spare_lock);
		if (fits(&spare, c, n)) {
			*r = spare;
			memset(&spare, 0, sizeof(spare));
		}
		pthread_mutex_unlock(&spare_lock);
	}
	if (!fits(r, c, n)) {
		release_arrays(r);
		int max = c->n_ctx < AV_GPT2_MAX_TOKENS ? c->n_ctx : AV_GPT2_MAX_TOKENS;
		int room = (n + 7) / 8 * 8 < max ? (n + 7) / 8 * 8 : max;
		size_t L = (size_t)c->n_layer, C = (size_t)c->n_embd, N = (size_t)room;
		r->stream = av_malloc((L + 1) * N * C * sizeof(float));
		r->qkv = av_malloc(L * N * 3 * C * sizeof(float));
		r->scores = av_malloc(L * (size_t)c->n_head * N * N * sizeof(float));
		r->weights = av_malloc(L * (size_t)c->n_head * N * N * sizeof(float));
		r->logits = av_malloc(N * (size_t)c->n_vocab * sizeof(float));
		r->work = av_malloc(N * C * AV_GPT2_WORK * sizeof(float));
		r->capacity = room;
	}
	r->n = n;
	r->n_layer = c->n_layer;
	r->n_head = c->n_head;
	r->n_embd = c->n_embd;
	r->n_vocab = c->n_vocab;
}

/* out (n, C) = in + add; whether a number is not finite */
static unsigned add_rows(float *out, const float *in, const float *add, size_t count)
{
	unsigned bad = 0;
	for (size_t i = 0; i < count; i++) {
		out[i] = in[i] + add[i];
		bad |= not_finite(out[i]);
	}
	return bad;
}

int av_gpt2_max_tokens(const struct av_gpt2 *m)
{
	return m->cfg.n_ctx < AV_GPT2_MAX_TOKENS ? m->cfg.n_ctx : AV_GPT2_MAX_TOKENS;
}

/* n tokens that do not fit: the model's own limit said (its positions),
 * or attnview's when the model has more positions than a trace holds */
static bool too_many_tokens(const struct av_gpt2_config *c, int n, char **cause)
{
	if (c->n_ctx <= AV_GPT2_MAX_TOKENS)
		return av_fail(cause, _("%d tokens: the model takes 1 to %d"), n, c->n_ctx);
	return av_fail(cause, _("%d tokens: attnview shows 1 to %d (the model takes up to %d)"), n,
		       AV_GPT2_MAX_TOKENS, c->n_ctx);
}

bool av_gpt2_forward(const struct av_gpt2 *m, const int *ids, int n, struct av_gpt2_run *r,
		     char **cause)
{
	const struct av_gpt2_config *c = &m->cfg;
	if (n < 1 || n > av_gpt2_max_tokens(m))
		return too_many_tokens(c, n, cause);
	for (int t = 0; t < n; t++)
		if (ids[t] < 0 || ids[t] >= c->n_vocab)
			return av_fail(cause, _("token id %d is outside the vocabulary (0 to %d)"),
				       ids[t], c->n_vocab - 1);
	run_alloc(r, c, n);
	memcpy(r->ids, ids, (size_t)n * sizeof(int));
	int C = c->n_embd, H = c->n_head, dh = C / H;
	size_t NC = (size_t)n * C, NN = (size_t)n * n;
	unsigned bad = 0;   /* a number in the stream is not finite */
	for (int t = 0; t < n; t++)          /* x = wte[ids] + wpe[0..n) */
		bad |= add_rows(r->stream + (size_t)t * C, m->wte + (size_t)ids[t] * C,
				m->wpe + (size_t)t * C, (size_t)C);
	/* the scratch: a (n, C) a layernorm's output, ctx (n, C) the heads'
	 * context side by side, proj (n, C) a projection, fc (n, 4C) the MLP */
	float *a = r->work, *ctx = a + NC, *proj = ctx + NC, *fc = proj + NC;
	for (int l = 0; l < c->n_layer; l++) {
		const struct av_gpt2_layer *L = &m->layers[l];
		const float *in = r->stream + (size_t)l * NC;
		float *out = r->stream + (size_t)(l + 1) * NC;
		float *qkv = r->qkv + (size_t)l * NC * 3;
		av_gpt2_layernorm(a, in, L->ln_1_w, L->ln_1_b, n, C, c->ln_eps);
		/* qkv (n, 3C) = a (n, C) . c_attn (C, 3C) + b */
		av_matmul(qkv, a, L->attn_w, L->attn_b, n, C, 3 * C, AV_W_IN_OUT);
		for (int h = 0; h < H; h++)
			attend_head(qkv, n, C, dh, h, r->scores + ((size_t)l * H + h) * NN, NULL, NULL,
				    r->weights + ((size_t)l * H + h) * NN, ctx);
		/* out = in + ctx (n, C) . c_proj (C, C) + b */
		av_matmul(proj, ctx, L->attn_proj_w, L->attn_proj_b, n, C, C, AV_W_IN_OUT);
		bad |= add_rows(out, in, proj, NC);
		/* out += gelu(ln_2(out) . c_fc (C, 4C) + b) . c_proj (4C, C) + b */
		av_gpt2_layernorm(a, out, L->ln_2_w, L->ln_2_b, n, C, c->ln_eps);
		av_matmul(fc, a, L->fc_w, L->fc_b, n, C, 4 * C, AV_W_IN_OUT);
		av_gpt2_gelu(fc, NC * 4);
		av_matmul(proj, fc, L->mlp_proj_w, L->mlp_proj_b, n, 4 * C, C, AV_W_IN_OUT);
		bad |= add_rows(out, out, proj, NC);
	}
	/* logits (n, V) = ln_f(x) (n, C) . wte^T, wte (V, C) read as (out, in) */
	av_gpt2_layernorm(a, r->stream + (size_t)c->n_layer * NC, m->ln_f_w, m->ln_f_b, n, C,
			  c->ln_eps);
	av_matmul(r->logits, a, m->wte, NULL, n, C, c->n_vocab, AV_W_OUT_IN);
	if (bad || !all_finite(r->logits, (size_t)n * c->n_vocab)) {
		explain_not_finite(m, r, cause);
		av_gpt2_run_free(r);
		return false;
	}
	return true;
}

int av_gpt2_tokenize(const struct av_gpt2 *m, const char *text, int *ids, char **cause)
{
	if (!m->bpe.n_vocab)
		return av_fail(cause, _("the model has no tokenizer")), -1;
	/* BPE's merges take time quadratic in a word's length: bound the text
	 * before cutting it (64 tokens never need more) */
	size_t len = strlen(text);
	if (len > AV_MAX_SENTENCE_BYTES)
		return av_fail(cause, _("the sentence is longer than %d bytes"),
			       AV_MAX_SENTENCE_BYTES), -1;
	/* every token is at least a byte: room for all of them, so that a
	 * text of too many is refused with its count and the model's limit
	 * (cut at 64, it said "more than 64 tokens" to a model of 32) */
	int *all = av_malloc((len + 1) * sizeof(int));
	int n = av_bpe_encode(&m->bpe, text, all, (int)len + 1, cause);
	if (n == 0)
		av_fail(cause, _("the sentence is empty"));
	else if (n > av_gpt2_max_tokens(m))
		too_many_tokens(&m->cfg, n, cause);
	else if (n > 0)
		memcpy(ids, all, (size_t)n * sizeof(int));
	free(all);
	return n > 0 && n <= av_gpt2_max_tokens(m) ? n : -1;
}

bool av_gpt2_run_text(const struct av_gpt2 *m, const char *text, struct av_gpt2_run *r,
		      char **cause)
{
	int ids[AV_GPT2_MAX_TOKENS];
	int n = av_gpt2_tokenize(m, text, ids, cause);
	return n > 0 && av_gpt2_forward(m, ids, n, r, cause);
}

void av_gpt2_run_free(struct av_gpt2_run *r)
{
	if (!r->stream)
		return;
	pthread_mutex_lock(&spare_lock);
	struct av_gpt2_run old = spare;
	spare = *r;
	pthread_mutex_unlock(&spare_lock);
	release_arrays(&old);
	memset(r, 0, sizeof(*r));
}

/* --- one layer as a trace */

static void trace_tokens(const struct av_gpt2 *m, const struct av_gpt2_run *r, const char *text,
			 struct av_trace *t)
{
	size_t offset = 0;
	t->tokens.n = r->n;
	for (int i = 0; i < r->n; i++) {
		t->tokens.text[i] = m->bpe.n_vocab ? av_bpe_display(&m->bpe, r->ids[i])
						   : av_printf("#%d", r->ids[i]);
		t->tokens.offset[i] = (int)offset;
		if (text && m->bpe.n_vocab) {
			unsigned char bytes[AV_BPE_MAX_TOKEN_BYTES];
			int k = av_bpe_token_bytes(&m->bpe, r->ids[i], bytes, (int)sizeof(bytes));
			offset += k > 0 ? (size_t)k : 0;
		}
		t->ids[i] = r->ids[i];
	}
}

void av_gpt2_trace_layer(const struct av_gpt2 *m, const struct av_gpt2_run *r, int layer,
			 const char *text, struct av_trace *t)
{
	av_trace_free(t);
	const struct av_gpt2_config *c = &m->cfg;
	int n = r->n, C = c->n_embd, H = c->n_head, dh = C / H;
	size_t NC = (size_t)n * C, NN = (size_t)n * n;
	t->n = t->m = n;
	t->d_model = C;
	t->heads = H;
	t->head_dim = dh;
	av_config_default(&t->cfg);
	t->cfg.d_model = C;
	t->cfg.heads = H;
	t->cfg.mode = AV_MODE_CAUSAL;
	t->cfg.scale = AV_SCALE_DK;
	t->cfg.temperature = 1.0;
	t->cfg.positional = AV_POS_LEARNED;
	t->cfg.bias = true;
	t->cfg.seed = 0;
	t->cfg.max_positions = c->n_ctx < AV_MAX_POSITIONS ? c->n_ctx : AV_MAX_POSITIONS;
	t->divisor = av_config_divisor(&t->cfg);
	trace_tokens(m, r, text, t);

	t->token_part = av_malloc(NC * sizeof(float));
	t->position_part = av_malloc(NC * sizeof(float));
	for (int i = 0; i < n; i++) {
		memcpy(t->token_part + (size_t)i * C, m->wte + (size_t)r->ids[i] * C, C * sizeof(float));
		memcpy(t->position_part + (size_t)i * C, m->wpe + (size_t)i * C, C * sizeof(float));
	}
	const struct av_gpt2_layer *L = &m->layers[layer];
	const float *in = r->stream + (size_t)layer * NC;
	const float *qkv = r->qkv + (size_t)layer * NC * 3;
	t->layer_norm_eps = c->ln_eps;
	t->layer_input = av_malloc(NC * sizeof(float));
	memcpy(t->layer_input, in, NC * sizeof(float));
	t->embedding = av_malloc(NC * sizeof(float));
	av_gpt2_layernorm(t->embedding, in, L->ln_1_w, L->ln_1_b, n, C, c->ln_eps);
	t->q = av_malloc(NC * sizeof(float));
	t->k = av_malloc(NC * sizeof(float));
	t->v = av_malloc(NC * sizeof(float));
	for (int i = 0; i < n; i++) {
		const float *row = qkv + (size_t)i * 3 * C;
		memcpy(t->q + (size_t)i * C, row, C * sizeof(float));
		memcpy(t->k + (size_t)i * C, row + C, C * sizeof(float));
		memcpy(t->v + (size_t)i * C, row + 2 * C, C * sizeof(float));
	}
	t->mask = av_malloc(NN);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			t->mask[(size_t)i * n + j] = j <= i;
	size_t HNN = (size_t)H * NN;
	t->scores = av_malloc(HNN * sizeof(float));
	t->scaled = av_malloc(HNN * sizeof(float));
	t->masked = av_malloc(HNN * sizeof(float));
	t->weights = av_malloc(HNN * sizeof(float));
	t->context = av_malloc((size_t)H * n * dh * sizeof(float));
	t->concat = av_malloc(NC * sizeof(float));
	for (int h = 0; h < H; h++)
		attend_head(qkv, n, C, dh, h, t->scores + h * NN, t->scaled + h * NN,
			    t->masked + h * NN, t->weights + h * NN, t->concat);
	for (int h = 0; h < H; h++)   /* context (H, n, dh): the concat's columns per head */
		for (int i = 0; i < n; i++)
			memcpy(t->context + ((size_t)h * n + i) * dh, t->concat + (size_t)i * C + h * dh,
			       (size_t)dh * sizeof(float));
	t->output = av_malloc(NC * sizeof(float));
	av_matmul(t->output, t->concat, L->attn_proj_w, L->attn_proj_b, n, C, C, AV_W_IN_OUT);
	t->residual = av_malloc(NC * sizeof(float));
	for (size_t i = 0; i < NC; i++)
		t->residual[i] = in[i] + t->output[i];
}

/* --- the next token */

int av_gpt2_top_k(const struct av_gpt2_run *r, int pos, int k, int *ids, double *probs)
{
	int V = r->n_vocab;
	const float *z = r->logits + (size_t)pos * V;
	if (k > V)
		k = V;
	if (k <= 0 || pos < 0 || pos >= r->n)
		return 0;
	double max = -INFINITY, sum = 0;
	for (int i = 0; i < V; i++)
		if (z[i] > max)
			max = z[i];
	for (int i = 0; i < V; i++)
		sum += exp((double)z[i] - max);
	/* insertion into a short sorted list: k is small, V is 50257 */
	int count = 0;
	for (int i = 0; i < V; i++) {
		if (count == k && z[i] <= z[ids[k - 1]])
			continue;
		int j = count < k ? count++ : k - 1;
		while (j > 0 && z[ids[j - 1]] < z[i]) {
			ids[j] = ids[j - 1];
			j--;
		}
		ids[j] = i;
	}
	for (int i = 0; i < count; i++)
		probs[i] = exp((double)z[ids[i]] - max) / sum;
	return count;
}
