/* trace_json.c: the trace document of --dump. Every float goes out as
 * "%.9g", enough digits to read back the same float32. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_json.h"
#include "number.h"
#include "sample.h"
#include "utf8.h"
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
	if (t->layer_input)
		cJSON_AddItemToObject(s, "layer_input", matrix(t->layer_input, n, D));
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

struct av_training_record av_training_record_of(int epochs, int steps, double lr,
						int optimizer, int target)
{
	return (struct av_training_record){
		.epochs = epochs, .steps = steps, .lr = lr, .loss = NULL,
		.optimizer = optimizer >= 0 ? av_optimizer_names[optimizer] : NULL,
		.target = target >= 0 ? av_target_names[target] : NULL,
	};
}

cJSON *av_training_to_json(const struct av_training_record *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "epochs", r->epochs);
	if (r->steps > 0)
		cJSON_AddNumberToObject(o, "steps", r->steps);
	if (r->epochs_before > 0)
		cJSON_AddNumberToObject(o, "epochs_before", r->epochs_before);
	if (!isnan(r->lr))
		cJSON_AddItemToObject(o, "lr", number(r->lr));
	if (r->optimizer)
		cJSON_AddStringToObject(o, "optimizer", r->optimizer);
	if (r->target)
		cJSON_AddStringToObject(o, "target", r->target);
	if (r->loss == NULL)
		return o;
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
		cJSON_AddItemToObject(doc, "training", av_training_to_json(training));
	return doc;
}

/* cp as JSON's escape: \u202e, or a UTF-16 surrogate pair past U+FFFF. */
static size_t json_escape(uint32_t cp, char out[static 13])
{
	if (cp < 0x10000)
		return (size_t)snprintf(out, 13, "\\u%04x", (unsigned)cp);
	cp -= 0x10000;
	return (size_t)snprintf(out, 13, "\\u%04x\\u%04x", (unsigned)(0xd800 + (cp >> 10)),
				(unsigned)(0xdc00 + (cp & 0x3ff)));
}

/* Whether the JSON escape replaces the character cp (k bytes decoded, or
 * k < 0 for a byte that is not UTF-8). ASCII below DEL is left alone:
 * cJSON escapes the controls in strings, and the tabs and newlines outside
 * them are its layout. With ascii every other character is escaped too. */
static bool json_escapes(uint32_t cp, int k, bool ascii)
{
	if (k < 0)
		return ascii;
	return cp >= 0x7f && (ascii || av_cp_invisible(cp));
}

/* text (len bytes) with its invisible characters (with ascii: every
 * character past ASCII) escaped, into out when not NULL; returns the
 * length either way (counted first, then written: an export is megabytes,
 * and a bound of 6 times its size would waste them). A byte that is not
 * UTF-8 is copied as it is, or with ascii written as U+FFFD: no JSON
 * escape spells a byte, and raw it would be a C1 control. */
static size_t escape_json_text(const char *text, size_t len, bool ascii, char *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp = 0;
		int k = (unsigned char)text[i] < 0x7f ? 1 : av_utf8_decode(text + i, len - i, &cp);
		char esc[13];
		const char *from = text + i;
		size_t m = k > 0 ? (size_t)k : 1;
		size_t took = m;
		if (json_escapes(cp, k, ascii)) {
			m = json_escape(k > 0 ? cp : 0xfffd, esc);
			from = esc;
		}
		if (out)
			memcpy(out + n, from, m);
		n += m;
		i += took;
	}
	return n;
}

static char *escape_json(const char *text, bool ascii)
{
	size_t len = strlen(text), n = escape_json_text(text, len, ascii, NULL);
	char *out = av_malloc(n + 1);
	escape_json_text(text, len, ascii, out);
	out[n] = '\0';
	return out;
}

char *av_json_escape_invisible(const char *text)
{
	return escape_json(text, false);
}

char *av_json_escape_ascii(const char *text)
{
	return escape_json(text, true);
}

char *av_json_print(const cJSON *doc)
{
	char *text = cJSON_Print(doc);
	if (!text) {
		fputs("attnview: out of memory\n", stderr);
		abort();
	}
	char *safe = av_json_escape_invisible(text);
	cJSON_free(text);
	return safe;
}

/* --- the same document, streamed ------------------------------------------
 * --dump of a D=512 trace is a 15 MB text; its cJSON tree held 145 MB at the
 * peak (issue 11). The writer below sends the same bytes to a file
 * descriptor through a 64 KB buffer, so the memory no longer grows with the
 * trace. It spells the document exactly as cJSON_Print does (tests compare
 * the two byte for byte): an object is "{", then each member on its own
 * line, indented by one tab per level of nesting, as "\"key\":\tvalue" with
 * ",\n" between members and "\n" before the closing "}" (indented one tab
 * less); an array is "[a, b, c]" on one line, but it counts as a level of
 * nesting for the objects inside it. Leaves (strings, plain numbers, bools)
 * are printed by cJSON itself and escaped by av_json_escape_invisible, as
 * av_json_print does, so their escaping cannot drift apart. */

enum { JW_BUFFER = 64 * 1024 };

struct json_writer {
	int fd;
	int depth;      /* levels of nesting, as cJSON counts them */
	bool ascii;     /* every non-ASCII character escaped (av_fd_wants_ascii) */
	bool ok;        /* false after a failed write; later writes are skipped */
	int err;        /* errno of that failure */
	size_t used;
	char buf[JW_BUFFER];
};

static void jw_flush(struct json_writer *w)
{
	if (w->ok && !av_write_all(w->fd, w->buf, w->used)) {
		w->ok = false;
		w->err = errno;
	}
	w->used = 0;
}

static void jw_put(struct json_writer *w, const char *s, size_t len)
{
	while (len > 0) {
		if (w->used == JW_BUFFER)
			jw_flush(w);
		size_t room = JW_BUFFER - w->used, take = len < room ? len : room;
		memcpy(w->buf + w->used, s, take);
		w->used += take;
		s += take;
		len -= take;
	}
}

static void jw_text(struct json_writer *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

static void jw_indent(struct json_writer *w, int depth)
{
	for (int i = 0; i < depth; i++)
		jw_put(w, "\t", 1);
}

/* A leaf item (string, number, bool, null, raw) as av_json_print prints
 * it; takes the item. */
static void jw_leaf(struct json_writer *w, cJSON *item)
{
	char *text = cJSON_PrintUnformatted(item);
	cJSON_Delete(item);
	if (!text) {
		fputs("attnview: out of memory\n", stderr);
		abort();
	}
	char *safe = escape_json(text, w->ascii);
	cJSON_free(text);
	jw_text(w, safe);
	free(safe);
}

static void jw_object_open(struct json_writer *w)
{
	jw_put(w, "{\n", 2);
	w->depth++;
}

/* *first: no member of this object was written yet. */
static void jw_key(struct json_writer *w, bool *first, const char *key)
{
	if (!*first)
		jw_put(w, ",\n", 2);
	*first = false;
	jw_indent(w, w->depth);
	jw_leaf(w, cJSON_CreateString(key));
	jw_put(w, ":\t", 2);
}

static void jw_object_close(struct json_writer *w, bool first)
{
	if (!first)
		jw_put(w, "\n", 1);
	w->depth--;
	jw_indent(w, w->depth);
	jw_put(w, "}", 1);
}

static void jw_array_open(struct json_writer *w)
{
	jw_put(w, "[", 1);
	w->depth++;
}

static void jw_array_next(struct json_writer *w, int index)
{
	if (index > 0)
		jw_put(w, ", ", 2);
}

static void jw_array_close(struct json_writer *w)
{
	w->depth--;
	jw_put(w, "]", 1);
}

/* A whole (small) tree, as cJSON_Print would print it at this depth. */
static void jw_tree(struct json_writer *w, const cJSON *item)
{
	const cJSON *child;
	int i = 0;
	bool first = true;
	if (cJSON_IsObject(item)) {
		jw_object_open(w);
		cJSON_ArrayForEach(child, item) {
			jw_key(w, &first, child->string);
			jw_tree(w, child);
		}
		jw_object_close(w, first);
	} else if (cJSON_IsArray(item)) {
		jw_array_open(w);
		cJSON_ArrayForEach(child, item) {
			jw_array_next(w, i++);
			jw_tree(w, child);
		}
		jw_array_close(w);
	} else if (cJSON_IsRaw(item)) {
		jw_text(w, item->valuestring);
	} else {
		jw_leaf(w, cJSON_Duplicate(item, false));
	}
}

/* number() and vector() above, without the nodes: "%.9g" or null. The
 * caller holds the C locale. */
static void jw_float(struct json_writer *w, double value)
{
	char buf[40];
	if (isfinite(value))
		snprintf(buf, sizeof(buf), "%.9g", value);
	else
		memcpy(buf, "null", 5);
	jw_text(w, buf);
}

static void jw_vector(struct json_writer *w, const float *v, int len)
{
	jw_put(w, "[", 1);
	for (int i = 0; i < len; i++) {
		if (i > 0)
			jw_put(w, ", ", 2);
		jw_float(w, v[i]);
	}
	jw_put(w, "]", 1);
}

/* A (rows, cols) matrix stored with row stride `stride` floats. */
static void jw_matrix_strided(struct json_writer *w, const float *m, int rows, int cols,
			      int stride)
{
	jw_array_open(w);
	for (int i = 0; i < rows; i++) {
		jw_array_next(w, i);
		jw_vector(w, m + (size_t)i * stride, cols);
	}
	jw_array_close(w);
}

static void jw_matrix(struct json_writer *w, const float *m, int rows, int cols)
{
	jw_matrix_strided(w, m, rows, cols, cols);
}

static void jw_strings(struct json_writer *w, char *const *s, int n)
{
	jw_array_open(w);
	for (int i = 0; i < n; i++) {
		jw_array_next(w, i);
		jw_leaf(w, cJSON_CreateString(s[i]));
	}
	jw_array_close(w);
}

static void jw_matrix_member(struct json_writer *w, bool *first, const char *key,
			     const float *m, int rows, int cols)
{
	jw_key(w, first, key);
	jw_matrix(w, m, rows, cols);
}

static void jw_params(struct json_writer *w, const struct av_params *p)
{
	int D = p->d_model;
	bool first = true;
	jw_object_open(w);
	jw_key(w, &first, "vocab");
	jw_strings(w, p->vocab, p->vocab_size);
	jw_matrix_member(w, &first, "token_embedding", p->token_embedding, p->vocab_size, D);
	if (p->position_embedding)
		jw_matrix_member(w, &first, "position_embedding", p->position_embedding,
				 p->max_positions, D);
	const char *names[] = { "w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o" };
	const float *wt[] = { p->w_q, p->w_k, p->w_v, p->w_o };
	const float *b[] = { p->b_q, p->b_k, p->b_v, p->b_o };
	for (int i = 0; i < 4; i++) {
		jw_matrix_member(w, &first, names[2 * i], wt[i], D, D);
		if (b[i]) {
			jw_key(w, &first, names[2 * i + 1]);
			jw_vector(w, b[i], D);
		}
	}
	jw_object_close(w, first);
}

static void jw_int(struct json_writer *w, int value)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%d", value);
	jw_text(w, buf);
}

static void jw_mask(struct json_writer *w, const struct av_trace *t)
{
	jw_array_open(w);
	for (int i = 0; i < t->n; i++) {
		jw_array_next(w, i);
		jw_array_open(w);
		for (int j = 0; j < t->m; j++) {
			jw_array_next(w, j);
			jw_int(w, t->mask[(size_t)i * t->m + j]);
		}
		jw_array_close(w);
	}
	jw_array_close(w);
}

static void jw_heads(struct json_writer *w, const struct av_trace *t)
{
	int n = t->n, m = t->m, dh = t->head_dim;
	jw_array_open(w);
	for (int h = 0; h < t->heads; h++) {
		size_t off = (size_t)h * n * m;
		bool first = true;
		jw_array_next(w, h);
		jw_object_open(w);
		jw_matrix_member(w, &first, "scores", t->scores + off, n, m);
		jw_matrix_member(w, &first, "scaled", t->scaled + off, n, m);
		jw_matrix_member(w, &first, "masked", t->masked + off, n, m);
		jw_matrix_member(w, &first, "weights", t->weights + off, n, m);
		jw_matrix_member(w, &first, "context", t->context + (size_t)h * n * dh, n, dh);
		jw_object_close(w, first);
	}
	jw_array_close(w);
}

static void jw_stages(struct json_writer *w, const struct av_trace *t)
{
	int n = t->n, m = t->m, D = t->d_model;
	bool first = true;
	jw_object_open(w);
	if (t->layer_input)
		jw_matrix_member(w, &first, "layer_input", t->layer_input, n, D);
	jw_matrix_member(w, &first, "embedding", t->embedding, n, D);
	if (t->source_embedding)
		jw_matrix_member(w, &first, "source_embedding", t->source_embedding, m, D);
	jw_matrix_member(w, &first, "q", t->q, n, D);
	jw_matrix_member(w, &first, "k", t->k, m, D);
	jw_matrix_member(w, &first, "v", t->v, m, D);
	jw_key(w, &first, "mask");
	jw_mask(w, t);
	jw_key(w, &first, "heads");
	jw_heads(w, t);
	jw_matrix_member(w, &first, "concat", t->concat, n, D);
	jw_matrix_member(w, &first, "output", t->output, n, D);
	jw_matrix_member(w, &first, "residual", t->residual, n, D);
	jw_object_close(w, first);
}

static void jw_training(struct json_writer *w, const struct av_training_record *r)
{
	bool first = true;
	jw_object_open(w);
	jw_key(w, &first, "epochs");
	jw_leaf(w, cJSON_CreateNumber(r->epochs));
	if (r->steps > 0) {
		jw_key(w, &first, "steps");
		jw_leaf(w, cJSON_CreateNumber(r->steps));
	}
	if (r->epochs_before > 0) {
		jw_key(w, &first, "epochs_before");
		jw_leaf(w, cJSON_CreateNumber(r->epochs_before));
	}
	if (!isnan(r->lr)) {
		jw_key(w, &first, "lr");
		jw_float(w, r->lr);
	}
	if (r->optimizer) {
		jw_key(w, &first, "optimizer");
		jw_leaf(w, cJSON_CreateString(r->optimizer));
	}
	if (r->target) {
		jw_key(w, &first, "target");
		jw_leaf(w, cJSON_CreateString(r->target));
	}
	if (r->loss != NULL) {
		jw_key(w, &first, "loss");
		jw_array_open(w);
		for (int i = 0; i < r->epochs; i++) {
			jw_array_next(w, i);
			jw_float(w, r->loss[i]);
		}
		jw_array_close(w);
	}
	jw_object_close(w, first);
}

static void jw_trace(struct json_writer *w, const struct av_trace *t, const struct av_params *p,
		     const struct av_training_record *training)
{
	bool first = true;
	jw_object_open(w);
	jw_key(w, &first, "format");
	jw_leaf(w, cJSON_CreateString("attnview-trace"));
	jw_key(w, &first, "version");
	jw_int(w, 1);
	/* the config and the oov list are small: their trees are reused */
	cJSON *small = av_config_to_json(&t->cfg);
	jw_key(w, &first, "config");
	jw_tree(w, small);
	cJSON_Delete(small);
	jw_key(w, &first, "tokens");
	jw_strings(w, t->tokens.text, t->tokens.n);
	if (t->cfg.mode == AV_MODE_CROSS) {
		jw_key(w, &first, "source_tokens");
		jw_strings(w, t->source_tokens.text, t->source_tokens.n);
	}
	small = oov_list(t);
	jw_key(w, &first, "oov");
	jw_tree(w, small);
	cJSON_Delete(small);
	jw_key(w, &first, "mask_keys");
	jw_array_open(w);
	for (int j = 0, k = 0; j < t->m; j++) {
		if (!t->key_hidden[j])
			continue;
		jw_array_next(w, k++);
		jw_int(w, j);
	}
	jw_array_close(w);
	jw_key(w, &first, "params");
	jw_params(w, p);
	jw_key(w, &first, "stages");
	jw_stages(w, t);
	if (training) {
		jw_key(w, &first, "training");
		jw_training(w, training);
	}
	jw_object_close(w, first);
}

bool av_trace_json_write(int fd, const struct av_trace *t, const struct av_params *p,
			 const struct av_training_record *training, int *err)
{
	struct json_writer *w = av_malloc(sizeof(*w));
	w->fd = fd;
	w->ascii = av_fd_wants_ascii(fd);
	w->depth = 0;
	w->ok = true;
	w->err = 0;
	w->used = 0;
	locale_t previous = av_numeric_c_begin();
	jw_trace(w, t, p, training);
	av_numeric_c_end(previous);
	jw_put(w, "\n", 1);
	jw_flush(w);
	bool ok = w->ok;
	if (err)
		*err = w->err;
	free(w);
	return ok;
}
