/* trace_json.c: the trace document of --dump. Every float goes out as
 * "%.9g", enough digits to read back the same float32. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_json.h"
#include "number.h"
#include "util.h"

/* In the C locale: "0.5" in every locale (cJSON's own numbers take care
 * of themselves, it swaps in the point). */
static cJSON *number(double value)
{
	/* JSON has no inf or NaN: null, which a reader refuses by name, rather
	 * than a file no JSON parser reads ("--dump" checks first and writes
	 * no such trace; this is the safety net). */
	if (!isfinite(value))
		return cJSON_CreateNull();
	char buf[40];
	locale_t previous = av_numeric_c_begin();
	snprintf(buf, sizeof(buf), "%.9g", value);
	av_numeric_c_end(previous);
	return cJSON_CreateRaw(buf);
}

/* One list of numbers as a single raw item "[a, b, c]", exactly as cJSON
 * prints an array of numbers: one node per row instead of one per number
 * (a node is 64 bytes; a D=1024 dump held 4 million of them, 560 MB). */
static cJSON *vector(const float *v, int len)
{
	size_t cap = (size_t)len * 18 + 3, used = 0;
	char *text = av_malloc(cap);
	text[used++] = '[';
	locale_t previous = av_numeric_c_begin();
	for (int i = 0; i < len; i++) {
		if (i > 0) {
			text[used++] = ',';
			text[used++] = ' ';
		}
		/* "%.9g" of a float is at most 15 characters; ", " adds 2 */
		if (isfinite(v[i]))
			used += (size_t)snprintf(text + used, cap - used, "%.9g", (double)v[i]);
		else
			used += (size_t)snprintf(text + used, cap - used, "null");
	}
	av_numeric_c_end(previous);
	text[used++] = ']';
	text[used] = '\0';
	cJSON *item = cJSON_CreateRaw(text);
	free(text);
	return item;
}

/* A (rows, cols) matrix stored with row stride `stride` floats. */
static cJSON *matrix_strided(const float *m, int rows, int cols, int stride)
{
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < rows; i++)
		cJSON_AddItemToArray(arr, vector(m + (size_t)i * stride, cols));
	return arr;
}

static cJSON *matrix(const float *m, int rows, int cols)
{
	return matrix_strided(m, rows, cols, cols);
}

static cJSON *strings(char *const *s, int n)
{
	cJSON *arr = cJSON_CreateArray();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s[i]));
	return arr;
}

cJSON *av_config_to_json(const struct av_config *cfg)
{
	cJSON *c = cJSON_CreateObject();
	char seed[32];
	cJSON_AddNumberToObject(c, "d_model", cfg->d_model);
	cJSON_AddNumberToObject(c, "heads", cfg->heads);
	cJSON_AddStringToObject(c, "mode", av_mode_names[cfg->mode]);
	cJSON_AddStringToObject(c, "scale", av_scale_names[cfg->scale]);
	cJSON_AddItemToObject(c, "temperature", number(cfg->temperature));
	cJSON_AddStringToObject(c, "positional", av_positional_names[cfg->positional]);
	cJSON_AddBoolToObject(c, "bias", cfg->bias);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)cfg->seed);
	/* a seed beyond 2^53 - 1 does not survive a JSON number (a double): the
	 * loaders take it as a string of digits, so it goes out as one */
	if (cfg->seed > UINT64_C(9007199254740991))
		cJSON_AddStringToObject(c, "seed", seed);
	else
		cJSON_AddRawToObject(c, "seed", seed);
	cJSON_AddStringToObject(c, "init", av_init_names[cfg->init]);
	cJSON_AddNumberToObject(c, "max_positions", cfg->max_positions);
	return c;
}

cJSON *av_params_to_json(const struct av_params *p)
{
	int D = p->d_model;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "vocab", strings(p->vocab, p->vocab_size));
	cJSON_AddItemToObject(o, "token_embedding", matrix(p->token_embedding, p->vocab_size, D));
	if (p->position_embedding)
		cJSON_AddItemToObject(o, "position_embedding",
				      matrix(p->position_embedding, p->max_positions, D));
	const char *names[] = { "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o" };
	const float *w[] = { p->w_q, p->w_k, p->w_v, p->w_o };
	const float *b[] = { p->b_q, p->b_k, p->b_v, p->b_o };
	for (int i = 0; i < 4; i++) {
		cJSON_AddItemToObject(o, names[2 * i], matrix(w[i], D, D));
		if (b[i])
			cJSON_AddItemToObject(o, names[2 * i + 1], vector(b[i], D));
	}
	return o;
}

static cJSON *oov_list(const struct av_trace *t)
{
	cJSON *arr = cJSON_CreateArray();
	const struct av_tokens *sides[] = { &t->tokens, &t->source_tokens };
	const bool *flags[] = { t->oov, t->source_oov };
	for (int s = 0; s < 2; s++) {
		for (int i = 0; i < sides[s]->n; i++) {
			if (!flags[s][i])
				continue;
			bool seen = false;
			cJSON *item;
			cJSON_ArrayForEach(item, arr)
				seen |= strcmp(item->valuestring, sides[s]->text[i]) == 0;
			if (!seen)
				cJSON_AddItemToArray(arr, cJSON_CreateString(sides[s]->text[i]));
		}
	}
	return arr;
}

static cJSON *mask_matrix(const struct av_trace *t)
{
	cJSON *rows = cJSON_CreateArray();
	for (int i = 0; i < t->n; i++) {
		cJSON *row = cJSON_CreateArray();
		for (int j = 0; j < t->m; j++)
			cJSON_AddItemToArray(row, cJSON_CreateNumber(t->mask[(size_t)i * t->m + j]));
		cJSON_AddItemToArray(rows, row);
	}
	return rows;
}

static cJSON *heads_json(const struct av_trace *t)
{
	int n = t->n, m = t->m, dh = t->head_dim;
	cJSON *heads = cJSON_CreateArray();
	for (int h = 0; h < t->heads; h++) {
		size_t off = (size_t)h * n * m;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "scores", matrix(t->scores + off, n, m));
		cJSON_AddItemToObject(o, "scaled", matrix(t->scaled + off, n, m));
		cJSON_AddItemToObject(o, "masked", matrix(t->masked + off, n, m));
		cJSON_AddItemToObject(o, "weights", matrix(t->weights + off, n, m));
		cJSON_AddItemToObject(o, "context", matrix(t->context + (size_t)h * n * dh, n, dh));
		cJSON_AddItemToArray(heads, o);
	}
	return heads;
}

static cJSON *stages_json(const struct av_trace *t)
{
	int n = t->n, m = t->m, D = t->d_model;
	cJSON *s = cJSON_CreateObject();
	cJSON_AddItemToObject(s, "embedding", matrix(t->embedding, n, D));
	if (t->source_embedding)
		cJSON_AddItemToObject(s, "source_embedding", matrix(t->source_embedding, m, D));
	cJSON_AddItemToObject(s, "q", matrix(t->q, n, D));
	cJSON_AddItemToObject(s, "k", matrix(t->k, m, D));
	cJSON_AddItemToObject(s, "v", matrix(t->v, m, D));
	cJSON_AddItemToObject(s, "mask", mask_matrix(t));
	cJSON_AddItemToObject(s, "heads", heads_json(t));
	cJSON_AddItemToObject(s, "concat", matrix(t->concat, n, D));
	cJSON_AddItemToObject(s, "output", matrix(t->output, n, D));
	cJSON_AddItemToObject(s, "residual", matrix(t->residual, n, D));
	return s;
}

static cJSON *training_json(const struct av_training_record *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "epochs", r->epochs);
	cJSON_AddItemToObject(o, "lr", number(r->lr));
	cJSON_AddStringToObject(o, "optimizer", r->optimizer);
	cJSON_AddStringToObject(o, "target", r->target);
	cJSON *loss = cJSON_CreateArray();
	for (int i = 0; i < r->epochs; i++)
		cJSON_AddItemToArray(loss, number(r->loss[i]));
	cJSON_AddItemToObject(o, "loss", loss);
	return o;
}

cJSON *av_trace_to_json(const struct av_trace *t, const struct av_params *p,
			const struct av_training_record *training)
{
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "format", "attnview-trace");
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddItemToObject(doc, "config", av_config_to_json(&t->cfg));
	cJSON_AddItemToObject(doc, "tokens", strings(t->tokens.text, t->tokens.n));
	if (cross)
		cJSON_AddItemToObject(doc, "source_tokens",
				      strings(t->source_tokens.text, t->source_tokens.n));
	cJSON_AddItemToObject(doc, "oov", oov_list(t));
	cJSON *hidden = cJSON_CreateArray();
	for (int j = 0; j < t->m; j++)
		if (t->key_hidden[j])
			cJSON_AddItemToArray(hidden, cJSON_CreateNumber(j));
	cJSON_AddItemToObject(doc, "mask_keys", hidden);
	cJSON_AddItemToObject(doc, "params", av_params_to_json(p));
	cJSON_AddItemToObject(doc, "stages", stages_json(t));
	if (training)
		cJSON_AddItemToObject(doc, "training", training_json(training));
	return doc;
}

char *av_json_print(const cJSON *doc)
{
	char *text = cJSON_Print(doc);
	if (!text) {
		fputs("attnview: out of memory\n", stderr);
		abort();
	}
	return text;
}
