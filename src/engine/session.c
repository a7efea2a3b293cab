/* session.c: one run's settings and its trace (see session.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "session.h"
#include "trace_json.h"
#include "util.h"

/* A copy of the parameters to go back to is kept only when they came from
 * a file: drawn ones are drawn again from the seed (av_session_reinit), and
 * at D=512 the copy is 4 MB for each of a class's 300 followers. */
void av_session_start(struct av_session *s)
{
	av_params_free(&s->initial);
	if (s->from_weights)
		av_params_copy(&s->initial, &s->params);
	s->base_vocab = s->params.vocab_size;
}

bool av_session_loaded_training(const struct av_session *s, struct av_training_record *r)
{
	const struct av_loaded_training *t = &s->loaded_training;
	size_t dd = (size_t)s->params.d_model * s->params.d_model;
	if (!s->from_weights || !t->present || s->params.d_model != s->initial.d_model ||
	    !av_tensor_same(s->params.w_q, s->initial.w_q, dd) ||
	    !av_tensor_same(s->params.w_k, s->initial.w_k, dd))
		return false;
	*r = t->record;
	return true;
}

/* Adds back the rows of the unknown words of trace t, in the order its run
 * added them, so its ids point at the same rows again. */
static void restore_unknown_rows(struct av_session *s, const struct av_trace *t)
{
	bool oov;
	for (int i = 0; i < t->tokens.n; i++)
		av_params_token_id(&s->params, s->cfg.seed, t->tokens.text[i], &oov);
	for (int j = 0; j < t->source_tokens.n; j++)
		av_params_token_id(&s->params, s->cfg.seed, t->source_tokens.text[j], &oov);
}

/* The key positions the padding mask hides, into hidden; returns their count. */
static int hidden_keys(const struct av_session *s, int hidden[AV_MAX_TOKENS])
{
	int n_hidden = 0;
	for (int j = 0; j < AV_MAX_TOKENS; j++)
		if (s->key_hidden[j])
			hidden[n_hidden++] = j;
	return n_hidden;
}

static bool run(struct av_session *s, bool attention_only, char **cause)
{
	int hidden[AV_MAX_TOKENS];
	int n_hidden = hidden_keys(s, hidden);
	s->forward_runs++;
	s->trace.keeps_packed = s->keeps_copies;
	av_params_truncate_vocab(&s->params, s->base_vocab);
	/* into the trace in place: av_trace_run fails before it touches the
	 * trace, and reusing its buffers spares each keystroke of the editor
	 * a dozen allocations of up to 128 KiB (n=64, D=512) and their first
	 * touches */
	if (!(attention_only ? av_trace_run_attention : av_trace_run)(&s->trace, &s->params,
			&s->cfg, s->sentence, s->source, hidden, n_hidden, cause)) {
		av_params_truncate_vocab(&s->params, s->base_vocab);
		restore_unknown_rows(s, &s->trace);
		return false;
	}
	return true;
}

bool av_session_run_params(const struct av_session *s, const struct av_params *p,
			   struct av_trace *t, struct av_params *used, char **cause)
{
	int hidden[AV_MAX_TOKENS];
	int n_hidden = hidden_keys(s, hidden);
	/* as run() once p were the session's: the rows of an earlier run's
	 * unknown words dropped, so the ids and the vocabulary come out the
	 * same as in the trace the stepper would show */
	av_params_copy(used, p);
	av_params_truncate_vocab(used, s->base_vocab);
	memset(t, 0, sizeof(*t));
	if (av_trace_run(t, used, &s->cfg, s->sentence, s->source, hidden, n_hidden, cause))
		return true;
	av_trace_free(t);
	av_params_free(used);
	return false;
}

bool av_session_run(struct av_session *s, char **cause)
{
	return run(s, false, cause);
}

bool av_session_run_attention(struct av_session *s, char **cause)
{
	return run(s, true, cause);
}

/* How far a reattend goes: everything, up to concat, up to the weights. */
enum reattend_reach { ALL, TO_CONCAT, TO_WEIGHTS };

static bool reattend(struct av_session *s, enum reattend_reach reach, char **cause)
{
	const struct av_trace *t = &s->trace;
	bool same_inputs = t->q && t->d_model == s->cfg.d_model &&
			   t->cfg.positional == s->cfg.positional &&
			   (t->cfg.mode == AV_MODE_CROSS) == (s->cfg.mode == AV_MODE_CROSS);
	if (!same_inputs)
		return run(s, reach == TO_WEIGHTS, cause);
	if (!av_config_check(&s->cfg, cause))
		return false;
	for (int j = 0; j < t->m; j++)
		s->trace.key_hidden[j] = s->key_hidden[j];
	switch (reach) {
	case TO_WEIGHTS:
		return av_trace_reattend_attention(&s->trace, &s->params, &s->cfg, cause);
	case TO_CONCAT:
		return av_trace_reattend_weights(&s->trace, &s->params, &s->cfg, cause);
	case ALL:
		break;
	}
	return av_trace_reattend(&s->trace, &s->params, &s->cfg, cause);
}

bool av_session_reattend(struct av_session *s, char **cause)
{
	return reattend(s, ALL, cause);
}

bool av_session_reattend_weights(struct av_session *s, char **cause)
{
	return reattend(s, TO_CONCAT, cause);
}

bool av_session_reattend_attention(struct av_session *s, char **cause)
{
	return reattend(s, TO_WEIGHTS, cause);
}

/* Swaps *slot for text, runs, and swaps back on failure. */
static bool replace_and_run(struct av_session *s, char **slot, const char *text,
			    bool attention_only, char **cause)
{
	char *old = *slot;
	bool old_hidden[AV_MAX_TOKENS];
	memcpy(old_hidden, s->key_hidden, sizeof(old_hidden));
	*slot = av_strdup(text);
	struct av_tokens probe = { 0 };
	if (av_tokenize(text, &probe, NULL)) {
		/* keys past the new end cannot stay hidden */
		bool keys_side = slot == &s->source || s->cfg.mode != AV_MODE_CROSS;
		for (int j = probe.n; keys_side && j < AV_MAX_TOKENS; j++)
			s->key_hidden[j] = false;
		av_tokens_free(&probe);
	}
	if (run(s, attention_only, cause)) {
		free(old);
		return true;
	}
	free(*slot);
	*slot = old;
	memcpy(s->key_hidden, old_hidden, sizeof(old_hidden));
	return false;
}

bool av_session_set_sentence(struct av_session *s, const char *sentence, char **cause)
{
	return replace_and_run(s, &s->sentence, sentence, false, cause);
}

bool av_session_set_source(struct av_session *s, const char *source, char **cause)
{
	return replace_and_run(s, &s->source, source, false, cause);
}

bool av_session_set_text(struct av_session *s, bool source, const char *text,
			 bool attention_only, char **cause)
{
	return replace_and_run(s, source ? &s->source : &s->sentence, text, attention_only,
			       cause);
}

void av_session_reinit(struct av_session *s)
{
	struct av_params fresh;
	av_params_init(&fresh, &s->cfg, (const char *const *)s->params.vocab, s->base_vocab);
	av_params_free(&s->params);
	s->params = fresh;
	s->from_weights = false;
	av_session_start(s);
}

void av_session_free(struct av_session *s)
{
	av_trace_free(&s->trace);
	av_params_free(&s->params);
	av_params_free(&s->initial);
	av_loaded_training_free(&s->loaded_training);
	av_sample_free(&s->sample);
	free(s->sentence);
	free(s->source);
	memset(s, 0, sizeof(*s));
}
