/* fuzz_trace.c: the trace round trip. Any bytes as a weights file; when it
 * loads and runs (on the built-in sample's sentence, or on the text after
 * the first NUL byte when there is one), the --dump trace of that run must
 * load again (--weights accepts any trace) with the same config, the same
 * parameters, bit for bit, and the same "training" record, and running
 * those must dump the same trace: load -> run -> dump -> load -> run ->
 * dump gives one trace (but for the list of unknown words, which the first
 * dump's vocabulary took in). The dump is written as --dump writes it (the
 * streamed writer, av_trace_json_write), which must spell the cJSON tree's
 * text (av_json_print) byte for byte; its ASCII-only form (for a terminal
 * that is not UTF-8) must read as the same JSON. A run with a value that
 * is not finite is one --dump refuses (with an explanation, checked to
 * exist); it has no round trip. */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include "finite.h"
#include "fuzz_common.h"
#include "session.h"
#include "trace_json.h"
#include "util.h"
#include "weights.h"

static bool same_config(const struct av_config *x, const struct av_config *y)
{
	return x->d_model == y->d_model && x->heads == y->heads && x->mode == y->mode &&
	       x->scale == y->scale && x->temperature == y->temperature &&
	       x->positional == y->positional && x->bias == y->bias && x->seed == y->seed &&
	       x->init == y->init && x->max_positions == y->max_positions;
}

static bool same_floats(const float *x, const float *y, size_t n)
{
	if (!x || !y)
		return x == y;
	return memcmp(x, y, n * sizeof(float)) == 0;
}

static void check_same_params(const struct av_params *p, const struct av_params *q)
{
	FUZZ_CHECK(p->d_model == q->d_model, "D %d, reloaded %d", p->d_model, q->d_model);
	FUZZ_CHECK(p->vocab_size == q->vocab_size, "V %d, reloaded %d", p->vocab_size,
		   q->vocab_size);
	for (int i = 0; i < p->vocab_size; i++)
		FUZZ_CHECK(strcmp(p->vocab[i], q->vocab[i]) == 0, "word %d", i);
	size_t D = (size_t)p->d_model;
	FUZZ_CHECK(same_floats(p->token_embedding, q->token_embedding, p->vocab_size * D),
		   "token_embedding");
	FUZZ_CHECK(p->max_positions == q->max_positions || !p->position_embedding,
		   "positions %d, reloaded %d", p->max_positions, q->max_positions);
	FUZZ_CHECK(same_floats(p->position_embedding, q->position_embedding,
			       (size_t)p->max_positions * D), "position_embedding");
	const float *a[] = { p->w_q, p->w_k, p->w_v, p->w_o, p->b_q, p->b_k, p->b_v, p->b_o };
	const float *b[] = { q->w_q, q->w_k, q->w_v, q->w_o, q->b_q, q->b_k, q->b_v, q->b_o };
	for (int i = 0; i < 8; i++)
		FUZZ_CHECK(same_floats(a[i], b[i], i < 4 ? D * D : D), "tensor %d of w_q..b_o", i);
}

/* A session on the built-in sample with params and cfg taken over. */
static bool run(struct av_session *s, const struct av_sample *sample, struct av_config *cfg,
		struct av_params *params, struct av_loaded_training *training,
		const char *sentence)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	if (!av_sample_load_builtin(&s->sample, &cause)) {
		fprintf(stderr, "built-in sample: %s\n", cause);
		abort();
	}
	s->cfg = *cfg;
	s->params = *params;
	memset(params, 0, sizeof(*params));
	s->loaded_training = *training;
	memset(training, 0, sizeof(*training));
	s->from_weights = true;
	av_session_start(s);
	s->sentence = av_strdup(sentence ? sentence : sample->sentence);
	const char *source = sample->source ? sample->source : sample->sentence;
	s->source = av_strdup(sentence ? sentence : source);
	bool ok = av_session_run(s, &cause);
	free(cause);
	return ok;
}

/* The --dump text of s's trace, as --dump writes it (streamed), checked
 * against the cJSON tree's text. */
static char *dump(const struct av_session *s)
{
	struct av_training_record record;
	const struct av_training_record *trained =
		av_session_loaded_training(s, &record) ? &record : NULL;
	FILE *f = tmpfile();
	FUZZ_CHECK(f != NULL, "tmpfile");
	int err = 0;
	FUZZ_CHECK(av_trace_json_write(fileno(f), &s->trace, &s->params, trained, &err),
		   "the dump's write failed: %s", strerror(err));
	long len = lseek(fileno(f), 0, SEEK_END);
	FUZZ_CHECK(len > 0, "an empty dump");
	char *text = malloc((size_t)len + 1);
	FUZZ_CHECK(text && pread(fileno(f), text, (size_t)len, 0) == len, "reading the dump");
	text[len] = '\0';
	fclose(f);

	cJSON *doc = av_trace_to_json(&s->trace, &s->params, trained);
	FUZZ_CHECK(doc != NULL, "no trace document");
	char *tree = av_json_print(doc);
	cJSON_Delete(doc);
	size_t n = strlen(tree);
	FUZZ_CHECK(n + 1 == (size_t)len && memcmp(text, tree, n) == 0 && text[n] == '\n',
		   "the streamed dump (%ld bytes) is not the tree's text (%zu and a newline)",
		   len, n);
	free(tree);
	return text;
}

/* The dump with every character past ASCII escaped, as written to a
 * terminal that is not UTF-8, is the same JSON. */
static void check_ascii_form(const char *text)
{
	char *ascii = av_json_escape_ascii(text);
	for (const char *c = ascii; *c; c++)
		FUZZ_CHECK((unsigned char)*c < 0x80, "byte %#x in the ASCII dump", (unsigned char)*c);
	cJSON *a = cJSON_Parse(text), *b = cJSON_Parse(ascii);
	FUZZ_CHECK(a && b && cJSON_Compare(a, b, true), "the ASCII dump reads otherwise");
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(ascii);
}

/* x as the dump writes a number of the record (nine digits: a file's lr
 * or loss with more comes back rounded), or "null". */
static bool same_written(double x, double y)
{
	char a[40], b[40];
	snprintf(a, sizeof(a), "%.9g", x);
	snprintf(b, sizeof(b), "%.9g", y);
	return strcmp(a, b) == 0;
}

/* The reloaded record is the one dumped. */
static void check_same_training(const struct av_session *s, const struct av_loaded_training *t)
{
	struct av_training_record r;
	if (!av_session_loaded_training(s, &r)) {
		FUZZ_CHECK(!t->present, "a training record from a dump that had none");
		return;
	}
	const struct av_training_record *q = &t->record;
	FUZZ_CHECK(t->present && r.epochs == q->epochs && r.steps == q->steps &&
		   r.epochs_before == q->epochs_before, "epochs %d+%d (%d before) reloaded as "
		   "%d+%d (%d before)", r.epochs, r.steps, r.epochs_before, q->epochs, q->steps,
		   q->epochs_before);
	FUZZ_CHECK(isnan(r.lr) ? isnan(q->lr) : same_written(r.lr, q->lr),
		   "lr %.17g reloaded as %.17g", r.lr, q->lr);
	FUZZ_CHECK(!r.optimizer == !q->optimizer &&
		   (!r.optimizer || strcmp(r.optimizer, q->optimizer) == 0), "the optimizer");
	FUZZ_CHECK(!r.target == !q->target && (!r.target || strcmp(r.target, q->target) == 0),
		   "the target");
	FUZZ_CHECK(!r.loss == !q->loss, "loss %s, reloaded %s", r.loss ? "kept" : "none",
		   q->loss ? "kept" : "none");
	for (int e = 0; r.loss && e < r.epochs; e++)
		FUZZ_CHECK(same_written(r.loss[e], q->loss[e]),
			   "loss of epoch %d: %.17g, reloaded %.17g", e + 1, r.loss[e], q->loss[e]);
}

/* The second trace is the first: every key and number the same, except
 * that words the first run did not know (its "oov" list) were dumped with
 * the vocabulary, so the second run knows them all. */
static void check_same_trace(const char *first, const char *second)
{
	cJSON *a = cJSON_Parse(first), *b = cJSON_Parse(second);
	FUZZ_CHECK(a && b, "a dump is not JSON");
	const cJSON *oov = cJSON_GetObjectItemCaseSensitive(b, "oov");
	FUZZ_CHECK(cJSON_GetArraySize(oov) == 0, "words unknown after the round trip");
	cJSON_DeleteItemFromObjectCaseSensitive(a, "oov");
	cJSON_DeleteItemFromObjectCaseSensitive(b, "oov");
	FUZZ_CHECK(cJSON_Compare(a, b, true), "a second round trip dumps another trace");
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct av_sample sample;
	static bool loaded;
	if (!loaded) {
		char *cause = NULL;
		if (!av_sample_load_builtin(&sample, &cause))
			abort();
		loaded = true;
	}
	char *text = fuzz_text(data, size);
	const char *sentence = NULL;
	size_t len = strlen(text);
	if (len < size)
		sentence = text + len + 1;   /* the rest, up to the next NUL */

	struct av_config cfg = sample.cfg;
	struct av_params p;
	memset(&p, 0, sizeof(p));
	struct av_loaded_training t1 = { 0 }, t2 = { 0 };
	char *cause = NULL;
	if (!av_weights_parse_trained(text, "fuzz.json", &cfg, NULL, &p, &t1, &cause)) {
		free(cause);
		free(text);
		return 0;
	}
	struct av_session s1, s2;
	if (!run(&s1, &sample, &cfg, &p, &t1, sentence)) {
		av_session_free(&s1);
		free(text);
		return 0;
	}
	/* --dump refuses a trace that is not all finite numbers (weights near
	 * the float limit): it says why and writes nothing, so no round trip */
	struct av_nonfinite where;
	if (av_trace_first_nonfinite(&s1.trace, &where)) {
		char *why = av_nonfinite_explain(&s1.trace, &where);
		FUZZ_CHECK(why && *why, "no explanation of a value that is not finite");
		free(why);
		av_session_free(&s1);
		free(text);
		return 0;
	}
	char *dump1 = dump(&s1);
	check_ascii_form(dump1);
	struct av_config cfg2 = sample.cfg;
	struct av_params p2;
	memset(&p2, 0, sizeof(p2));
	bool back = av_weights_parse_trained(dump1, "dump.json", &cfg2, NULL, &p2, &t2, &cause);
	FUZZ_CHECK(back, "the dump does not load again: %s", cause ? cause : "?");
	FUZZ_CHECK(same_config(&s1.cfg, &cfg2), "the reloaded config differs");
	check_same_params(&s1.params, &p2);
	check_same_training(&s1, &t2);
	bool ran = run(&s2, &sample, &cfg2, &p2, &t2, sentence);
	FUZZ_CHECK(ran, "the reloaded weights do not run");
	char *dump2 = dump(&s2);
	check_same_trace(dump1, dump2);
	free(dump2);
	free(dump1);
	av_session_free(&s2);
	av_session_free(&s1);
	free(text);
	return 0;
}
