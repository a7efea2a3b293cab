/* weights.c: parameters from a weights file or a trace (--dump).
 *
 * The shapes follow the config (the file's own over the caller's), so a
 * file that disagrees with itself is refused with both numbers named rather
 * than run with a table of the wrong size. Nothing the caller passed is
 * touched unless the whole file is good. */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "json_read.h"
#include "strset.h"
#include "tokenizer.h"
#include "train.h"
#include "util.h"
#include "weights.h"

static const char *const format_names[] = { "attnview-trace", "attnview-weights", NULL };
enum { FORMAT_TRACE, FORMAT_WEIGHTS };

/* A weights file's keys, the ones a trace writes beside them (a trace is
 * a weights file; its other keys are only for reading) and "reference", the
 * PyTorch results the test fixtures carry (tests/make_fixtures.py). */
static const char *const top_keys[] = {
	"format", "version", "config", "params",
	"sentence", "source", "tokens", "source_tokens", "stages", "training",
	"reference", NULL
};
static const char *const params_keys[] = {
	"vocab", "token_embedding", "position_embedding",
	"w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o", NULL
};
static const char *const bias_keys[] = { "b_q", "b_k", "b_v", "b_o" };

/* A key that is there and not null (a writer may spell "none" as null). */
static bool present(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return item && !cJSON_IsNull(item);
}

static bool read_header(const cJSON *root, char **cause)
{
	int format = FORMAT_WEIGHTS;
	long long version = 1;
	if (!av_json_get_enum(root, NULL, "format", false, format_names, &format, cause)
	    || !av_json_get_int(root, NULL, "version", false, 0, 1000000, &version, cause))
		return false;
	if (version != 1)
		return av_fail(cause, _("\"version\": %lld is not supported (this attnview "
			       "reads version 1)"), version);
	/* A trace carries whatever its writer recorded; a weights file written
	 * by hand is held to the documented keys so typos show. Either way a
	 * repeated key is refused: only its first copy would be read. */
	if (format == FORMAT_TRACE)
		return av_json_check_unique_keys(root, NULL, cause);
	return av_json_check_keys(root, NULL, top_keys, cause);
}

static bool read_vocab(const cJSON *params, struct av_params *q, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(params, "vocab");
	if (!item)
		return av_fail(cause, _("missing \"params\".\"vocab\""));
	if (!cJSON_IsArray(item))
		return av_fail(cause, _("\"params\".\"vocab\": expected a list of strings, got %s"),
			       av_json_type_name(item));
	int n = cJSON_GetArraySize(item);
	q->vocab = av_calloc((size_t)n, sizeof *q->vocab);
	q->vocab_cap = n;
	struct av_strset seen = { 0 };   /* O(n) repeat check; keys are cJSON's */
	bool ok = true;
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		int i = q->vocab_size;
		if (!cJSON_IsString(e)) {
			ok = av_fail(cause, _("\"params\".\"vocab\", item %d: expected a string, "
				     "got %s"), i + 1, av_json_type_name(e));
			break;
		}
		if (!av_token_is_word(e->valuestring, cause)) {
			av_cause_prefix(cause, _("\"params\".\"vocab\", item %d"), i + 1);
			ok = false;
			break;
		}
		int j = av_strset_add(&seen, e->valuestring, i);
		if (j >= 0) {
			char *word = av_escape(e->valuestring);
			ok = av_fail(cause, _("\"params\".\"vocab\": \"%s\" is given twice "
				     "(items %d and %d)"), word, j + 1, i + 1);
			free(word);
			break;
		}
		q->vocab[q->vocab_size++] = av_strdup(e->valuestring);
	}
	av_strset_free(&seen);
	return ok;
}

/* The learned table decides L; a config that states another L is wrong. */
static bool read_positions(const cJSON *params, struct av_config *c, unsigned given,
			   struct av_params *q, char **cause)
{
	bool learned = c->positional == AV_POS_LEARNED;
	bool has = present(params, "position_embedding");
	if (!learned && has)
		return av_fail(cause, _("\"params\".\"position_embedding\" is given but "
			       "\"config\".\"positional\" is %s (only learned positions have a table)"),
			       av_positional_names[c->positional]);
	q->max_positions = c->max_positions;
	if (!learned)
		return true;
	if (!has)
		return av_fail(cause, _("missing \"params\".\"position_embedding\" "
			       "(\"config\".\"positional\" is learned)"));
	int rows = -1, cols = c->d_model;
	if (!av_json_get_matrix_dims(params, "params", "position_embedding", true,
				     &rows, &cols, &q->position_embedding, cause))
		return false;
	if (rows < 1 || rows > AV_MAX_POSITIONS)
		return av_fail(cause, _("\"params\".\"position_embedding\": expected 1 to %d rows, "
			       "got %d"), AV_MAX_POSITIONS, rows);
	if ((given & AV_CFG_MAX_POSITIONS) && c->max_positions != rows)
		return av_fail(cause, _("\"params\".\"position_embedding\" has %d rows but "
			       "\"config\".\"max_positions\" is %d"), rows, c->max_positions);
	c->max_positions = rows;
	q->max_positions = rows;
	return true;
}

static bool read_linear(const cJSON *params, int d, struct av_params *q, char **cause)
{
	return av_json_get_matrix(params, "params", "w_q", true, d, d, &q->w_q, cause)
		&& av_json_get_matrix(params, "params", "w_k", true, d, d, &q->w_k, cause)
		&& av_json_get_matrix(params, "params", "w_v", true, d, d, &q->w_v, cause)
		&& av_json_get_matrix(params, "params", "w_o", true, d, d, &q->w_o, cause);
}

/* "b_q and b_k" of the biases whose presence is want (malloc'd). */
static char *bias_names(const cJSON *params, bool want)
{
	char *out = av_strdup("");
	for (int i = 0; i < 4; i++) {
		if (present(params, bias_keys[i]) != want)
			continue;
		char *next = av_printf("%s%s%s", out, *out ? ", " : "", bias_keys[i]);
		free(out);
		out = next;
	}
	return out;
}

static bool partial_biases(const cJSON *params, char **cause)
{
	char *have = bias_names(params, true), *lack = bias_names(params, false);
	av_fail(cause, _("\"params\": %s given but %s missing (give all four biases or none)"),
		have, lack);
	free(have);
	free(lack);
	return false;
}

/* All four biases or none; their presence is the truth about "bias". */
static bool read_biases(const cJSON *params, struct av_config *c, unsigned given,
			struct av_params *q, char **cause)
{
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += present(params, bias_keys[i]);
	if (n != 0 && n != 4)
		return partial_biases(params, cause);
	bool bias = n == 4;
	if ((given & AV_CFG_BIAS) && c->bias != bias)
		return av_fail(cause, _("\"config\".\"bias\" is %s but \"params\" has %s"),
			       c->bias ? "true" : "false",
			       bias ? _("biases b_q, b_k, b_v and b_o") : _("no biases"));
	c->bias = bias;
	q->bias = bias;
	if (!bias)
		return true;
	int d = c->d_model;
	return av_json_get_vector(params, "params", "b_q", true, d, &q->b_q, cause)
		&& av_json_get_vector(params, "params", "b_k", true, d, &q->b_k, cause)
		&& av_json_get_vector(params, "params", "b_v", true, d, &q->b_v, cause)
		&& av_json_get_vector(params, "params", "b_o", true, d, &q->b_o, cause);
}

static bool read_weights(const cJSON *root, struct av_config *c, unsigned *given,
			 struct av_params *q, char **cause)
{
	const cJSON *conf, *params;
	if (!read_header(root, cause))
		return false;
	/* a --model trace has the layer's numbers but not its weights, which
	 * stay in the model's files: "missing \"params\"" left a user, told
	 * that every trace is a weights file, guessing why */
	if (!cJSON_GetObjectItemCaseSensitive(root, "params") &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "model")))
		return av_fail(cause, _("a trace of a real model's layer holds no weights to load "
					"(--model DIR reads them from the model's folder)"));
	if (!av_json_get_object(root, NULL, "config", false, &conf, cause)
	    || !av_json_get_config(conf, "config", c, given, cause)
	    || !av_json_get_object(root, NULL, "params", true, &params, cause)
	    || !av_json_check_keys(params, "params", params_keys, cause)
	    || !read_vocab(params, q, cause))
		return false;
	q->d_model = c->d_model;
	if (!av_json_get_matrix(params, "params", "token_embedding", true, q->vocab_size,
				c->d_model, &q->token_embedding, cause)
	    || !read_positions(params, c, *given, q, cause)
	    || !read_linear(params, c->d_model, q, cause)
	    || !read_biases(params, c, *given, q, cause))
		return false;
	return av_config_check(c, cause);
}

/* "loss": one finite number per epoch, or none (*loss NULL); no longer
 * than a run's epochs can be (AV_TRAIN_MAX_EPOCHS), which bounds what is
 * allocated here. */
static bool read_loss(const cJSON *o, int epochs, double **loss, char **cause)
{
	int n = 0;
	*loss = NULL;
	if (!cJSON_GetObjectItemCaseSensitive(o, "loss"))
		return true;
	if (!av_json_get_doubles(o, "training", "loss", true, AV_TRAIN_MAX_EPOCHS, loss, &n,
				 cause))
		return false;
	if (n == epochs)
		return true;
	free(*loss);
	*loss = NULL;
	return av_fail(cause, _("\"training\".\"loss\": expected %d numbers (one per epoch, "
		       "\"epochs\" is %d), got %d"), epochs, epochs, n);
}

_Static_assert(AV_TRAIN_MAX_SENTENCES == (int)AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE),
	       "a run's corpus is a sample's sentences, each one of its values");

/* "steps" no run can have taken: it read "trained 1 ep+2147483647". */
static bool steps_possible(long long steps, char **cause)
{
	if (steps <= AV_TRAIN_MAX_STEPS)
		return true;
	return av_fail(cause, _("\"training\".\"steps\": %lld is more than a run takes into "
				"an epoch (one step per training sentence: at most %d)"), steps,
		       AV_TRAIN_MAX_STEPS);
}

/* "epochs" no run can have trained: each stops when its history is full,
 * the longest at one head. The epochs before a run ("epochs_before") add
 * up over any number of runs, each from the weights the one before wrote,
 * to at most INT_MAX (av_epochs_sum). */
static bool epochs_possible(long long epochs, char **cause)
{
	if (epochs <= AV_TRAIN_MAX_EPOCHS)
		return true;
	return av_fail(cause, _("\"training\".\"epochs\": %lld is more than one run trains (a run "
				"stops when its history is full: at most %d epochs)"), epochs,
		       AV_TRAIN_MAX_EPOCHS);
}

/* The "training" record: the header of trained weights says so, and a
 * dump or export of them carries it on, its loss list too. */
static bool read_training(const cJSON *root, struct av_loaded_training *out, char **cause)
{
	const cJSON *o = NULL;
	long long epochs = 0, steps = 0, before = 0;
	int optimizer = -1, target = -1;
	double lr = NAN, *loss = NULL;
	if (!av_json_get_object(root, NULL, "training", false, &o, cause))
		return false;
	if (!o)
		return true;
	static const char *const keys[] = {
		"epochs", "steps", "epochs_before", "lr", "optimizer", "target", "loss", NULL
	};
	if (!av_json_check_keys(o, "training", keys, cause)
	    || !av_json_get_int(o, "training", "epochs", true, 0, INT_MAX, &epochs, cause)
	    || !epochs_possible(epochs, cause)
	    || !av_json_get_int(o, "training", "steps", false, 0, INT_MAX, &steps, cause)
	    || !steps_possible(steps, cause)
	    || !av_json_get_int(o, "training", "epochs_before", false, 0, INT_MAX, &before,
				cause)
	    || !av_json_get_double(o, "training", "lr", false, &lr, cause)
	    || !av_json_get_enum(o, "training", "optimizer", false, av_optimizer_names,
				 &optimizer, cause)
	    || !av_json_get_enum(o, "training", "target", false, av_target_names, &target, cause))
		return false;
	if (!isnan(lr) && !(lr > 0))
		return av_fail(cause, _("\"training\".\"lr\": expected a positive number, got %g"),
			       lr);
	if (!read_loss(o, (int)epochs, &loss, cause))
		return false;
	/* 0 epochs and 0 steps, none before: weights as drawn, nothing to say
	 * ("trained 0 ep") */
	*out = (struct av_loaded_training){
		.present = epochs + steps + before > 0,
		.record = av_training_record_of((int)epochs, (int)steps, lr, optimizer, target),
		.loss = loss,
	};
	out->record.epochs_before = (int)before;
	out->record.loss = loss;
	return true;
}

void av_loaded_training_free(struct av_loaded_training *t)
{
	free(t->loss);
	memset(t, 0, sizeof *t);
}

bool av_weights_parse(const char *text, const char *label, struct av_config *cfg,
		      unsigned *given, struct av_params *p, char **cause)
{
	return av_weights_parse_trained(text, label, cfg, given, p, NULL, cause);
}

bool av_weights_parse_trained(const char *text, const char *label, struct av_config *cfg,
			      unsigned *given, struct av_params *p,
			      struct av_loaded_training *training, char **cause)
{
	cJSON *root = av_json_parse_rows(text, label, AV_JSON_MAX_VALUES(AV_MAX_WEIGHTS_FILE),
					_("weights files"), cause);
	if (!root)
		return false;
	struct av_config c = *cfg;
	unsigned g = 0;
	struct av_params q;
	memset(&q, 0, sizeof q);
	struct av_loaded_training t = { 0 };
	bool ok = read_weights(root, &c, &g, &q, cause) && read_training(root, &t, cause);
	cJSON_Delete(root);
	if (!ok) {
		av_params_free(&q);
		av_loaded_training_free(&t);
		av_cause_prefix(cause, "%s", label);
		return false;
	}
	*cfg = c;
	if (given)
		*given = g;
	av_params_changed(&q);
	*p = q;
	if (training)
		*training = t;
	else
		av_loaded_training_free(&t);
	return true;
}

bool av_weights_load(const char *path, struct av_config *cfg, unsigned *given,
		     struct av_params *p, char **cause)
{
	return av_weights_load_trained(path, cfg, given, p, NULL, cause);
}

bool av_weights_load_trained(const char *path, struct av_config *cfg, unsigned *given,
			     struct av_params *p, struct av_loaded_training *training,
			     char **cause)
{
	char *text;
	if (!av_read_file(path, &text, NULL, cause))
		return false;
	bool ok = av_weights_parse_trained(text, path, cfg, given, p, training, cause);
	free(text);
	return ok;
}
