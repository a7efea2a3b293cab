/* fuzz_weights.c: any bytes as a weights file or trace (av_weights_parse,
 * what --weights FILE reads). A bad file: false, a cause, and the config
 * untouched; a good one: a config that av_config_check accepts or refuses
 * with a cause, and tensors of the shapes the config says. The JSON parse
 * with rows read aside (json_rows.h) gives cJSON's tree or message. */
#include "config.h"

#include "fuzz_common.h"
#include "json_read.h"
#include "json_same.h"
#include "model.h"
#include "weights.h"

static bool same_config(const struct av_config *x, const struct av_config *y)
{
	return x->d_model == y->d_model && x->heads == y->heads && x->mode == y->mode &&
	       x->scale == y->scale && x->temperature == y->temperature &&
	       x->positional == y->positional && x->bias == y->bias && x->seed == y->seed &&
	       x->init == y->init && x->max_positions == y->max_positions;
}

/* The parse with rows read aside (json_rows.h, what the loader uses) is
 * cJSON's own: both succeed with the same tree, or fail with one message. */
static void check_rows_aside(const char *text)
{
	char *c1 = NULL, *c2 = NULL;
	cJSON *plain = av_json_parse(text, "fuzz.json", 1000000, "fuzz", &c1);
	cJSON *aside = av_json_parse_rows(text, "fuzz.json", 1000000, "fuzz", &c2);
	FUZZ_CHECK(!plain == !aside, "cJSON's parse %s, the one with rows aside %s",
		   plain ? "succeeds" : "fails", aside ? "succeeds" : "fails");
	if (plain)
		FUZZ_CHECK(json_same_tree(plain, aside), "the trees differ");
	else
		FUZZ_CHECK(strcmp(c1, c2) == 0, "\"%s\" and \"%s\"", c1, c2);
	cJSON_Delete(plain);
	cJSON_Delete(aside);
	free(c1);
	free(c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	check_rows_aside(text);
	struct av_config cfg, before;
	av_config_default(&cfg);
	before = cfg;
	struct av_params p;
	memset(&p, 0, sizeof(p));
	unsigned given = 0;
	char *cause = NULL;
	if (av_weights_parse(text, "fuzz.json", &cfg, &given, &p, &cause)) {
		FUZZ_CHECK(p.d_model == cfg.d_model, "params D=%d, config D=%d", p.d_model,
			   cfg.d_model);
		FUZZ_CHECK(p.vocab_size >= 0 && p.token_embedding, "vocab %d", p.vocab_size);
		FUZZ_CHECK(p.w_q && p.w_k && p.w_v && p.w_o, "a missing matrix");
		FUZZ_CHECK(!cfg.bias == !p.b_q, "bias %d but b_q %p", cfg.bias, (void *)p.b_q);
		/* the last element of every tensor is there (ASan checks the size) */
		size_t D = (size_t)p.d_model;
		if (D > 0) {
			volatile float sink = p.w_q[D * D - 1] + p.w_o[D * D - 1];
			if (p.vocab_size > 0)
				sink += p.token_embedding[(size_t)p.vocab_size * D - 1];
			if (p.position_embedding && p.max_positions > 0)
				sink += p.position_embedding[(size_t)p.max_positions * D - 1];
			(void)sink;
		}
		char *check = NULL;
		if (!av_config_check(&cfg, &check))
			FUZZ_CHECK(check && *check, "a refused config without a cause");
		free(check);
		av_params_free(&p);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
		FUZZ_CHECK(same_config(&cfg, &before), "a failed load changed the config");
	}
	free(cause);
	free(text);
	return 0;
}
