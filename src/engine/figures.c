/* figures.c: the tril mask and the three attention kinds (see figures.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "util.h"

void av_tril_ones(float *out, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			out[(size_t)i * n + j] = j <= i ? 1.0f : 0.0f;
}

static bool run_kind(struct av_trace *t, struct av_params *p, const struct av_config *cfg,
		     enum av_mode mode, const char *sentence, const char *source,
		     const int *hidden, int n_hidden, char **cause)
{
	struct av_config c = *cfg;
	c.mode = mode;
	if (!av_trace_run(t, p, &c, sentence, source, hidden, n_hidden, cause))
		return false;
	return true;
}

bool av_attention_kinds_run(struct av_attention_kinds *k, const struct av_params *p,
			    const struct av_config *cfg, const char *sentence,
			    const char *source, const bool *key_hidden, char **cause)
{
	struct av_params copy;
	av_params_copy(&copy, p);
	int hidden[AV_MAX_TOKENS], n_hidden = 0;
	for (int j = 0; key_hidden && j < AV_MAX_TOKENS; j++)
		if (key_hidden[j])
			hidden[n_hidden++] = j;
	k->source_is_sentence = !source || !*source;
	const char *src = k->source_is_sentence ? sentence : source;
	bool ok = run_kind(&k->self, &copy, cfg, AV_MODE_SELF, sentence, NULL, hidden, n_hidden,
			   cause) &&
		  run_kind(&k->causal, &copy, cfg, AV_MODE_CAUSAL, sentence, NULL, hidden,
			   n_hidden, cause) &&
		  run_kind(&k->cross, &copy, cfg, AV_MODE_CROSS, sentence, src, NULL, 0, cause);
	av_params_free(&copy);
	return ok;
}

void av_attention_kinds_free(struct av_attention_kinds *k)
{
	av_trace_free(&k->self);
	av_trace_free(&k->causal);
	av_trace_free(&k->cross);
	memset(k, 0, sizeof(*k));
}
