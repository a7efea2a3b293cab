/* fuzz_model.c: any bytes as a GPT-2 model's files (--model DIR): the bytes
 * before the first NUL as config.json (none when they are empty), the rest
 * as model.safetensors, loaded by av_gpt2_load_weights, which binds every
 * tensor by its name and shape. A refusal: false and a cause. A model that
 * loads runs a few tokens (ids from the input) through every layer: the
 * forward pass gives finite logits or a cause (a weight that is not
 * finite, an overflow), and each layer's trace and
 * the next tokens' list can be made from a good run (ASan watches every
 * tensor read stay inside the file's bytes). The tokenizer's files have
 * their own target (bpe). */
#include "config.h"

#include <math.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "model/gpt2.h"

#define MAX_RUN_TOKENS 4   /* the forward's cost grows with n² */

static char dir[] = "/tmp/fuzz_model.XXXXXX";
static char config_path[64], weights_path[64];

static void remove_dir(void)
{
	rmdir(dir);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "writing %s", path);
}

static void run_model(const struct av_gpt2 *m, const uint8_t *data, size_t size)
{
	int n = av_gpt2_max_tokens(m) < MAX_RUN_TOKENS ? av_gpt2_max_tokens(m) : MAX_RUN_TOKENS;
	int ids[MAX_RUN_TOKENS];
	for (int t = 0; t < n; t++)
		ids[t] = (int)((t < (int)size ? data[t] : 0) % (unsigned)m->cfg.n_vocab);
	struct av_gpt2_run r;
	memset(&r, 0, sizeof(r));
	char *cause = NULL;
	if (!av_gpt2_forward(m, ids, n, &r, &cause)) {
		FUZZ_CHECK(cause && *cause, "a failed forward pass without a cause");
		free(cause);
		return;
	}
	for (size_t i = 0; i < (size_t)n * (size_t)m->cfg.n_vocab; i++)
		FUZZ_CHECK(isfinite(r.logits[i]), "logit %zu is %g after a good run", i, r.logits[i]);
	int layers = m->cfg.n_layer < 3 ? m->cfg.n_layer : 3;
	for (int l = 0; l < layers; l++) {
		struct av_trace t;
		memset(&t, 0, sizeof(t));
		av_gpt2_trace_layer(m, &r, l, NULL, &t);
		FUZZ_CHECK(t.n == n && t.heads == m->cfg.n_head, "layer %d's trace: %d tokens, %d heads",
			   l, t.n, t.heads);
		av_trace_free(&t);
	}
	int top[5];
	double probs[5];
	int k = av_gpt2_top_k(&r, n - 1, 5, top, probs);
	FUZZ_CHECK(k >= 1 && k <= 5, "%d next tokens", k);
	for (int i = 0; i < k; i++)
		FUZZ_CHECK(top[i] >= 0 && top[i] < m->cfg.n_vocab && probs[i] >= 0 && probs[i] <= 1,
			   "next token %d: id %d, p %g", i, top[i], probs[i]);
	av_gpt2_run_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!config_path[0]) {
		FUZZ_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
		atexit(remove_dir);
		snprintf(config_path, sizeof(config_path), "%s/config.json", dir);
		snprintf(weights_path, sizeof(weights_path), "%s/model.safetensors", dir);
	}
	const uint8_t *nul = memchr(data, '\0', size);
	size_t config_len = nul ? (size_t)(nul - data) : 0;
	const uint8_t *weights = nul ? nul + 1 : data;
	size_t weights_len = size - (size_t)(weights - data);
	if (config_len > 0)
		write_file(config_path, data, config_len);
	write_file(weights_path, weights, weights_len);

	struct av_gpt2 m;
	char *cause = NULL;
	if (av_gpt2_load_weights(&m, weights_path, config_len > 0 ? config_path : NULL, &cause)) {
		FUZZ_CHECK(m.cfg.n_layer >= 1 && m.cfg.n_embd >= 1 && m.cfg.n_head >= 1 &&
			   m.cfg.n_embd % m.cfg.n_head == 0 && m.cfg.n_vocab >= 1 && m.cfg.n_ctx >= 1,
			   "layers %d, width %d, heads %d, vocabulary %d, positions %d",
			   m.cfg.n_layer, m.cfg.n_embd, m.cfg.n_head, m.cfg.n_vocab, m.cfg.n_ctx);
		run_model(&m, weights, weights_len);
		av_gpt2_free(&m);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	unlink(config_path);
	unlink(weights_path);
	return 0;
}
