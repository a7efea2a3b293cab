/* sample.c: loading lesson settings (samples/NAME.json) and finding them.
 *
 * A sample is read strictly: unknown keys are errors, because a misspelt
 * "temprature" that is silently ignored teaches the wrong lesson. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "json_read.h"
#include "sample.h"
#include "strset.h"
#include "tokenizer.h"
#include "util.h"

const char *const av_target_names[] = { "self", "previous", "pairs", NULL };
const char *const av_optimizer_names[] = { "adam", "sgd", NULL };

/* The documented keys; "comment" is free text for the author and ignored. */
static const char *const sample_keys[] = {
	"name", "title", "description", "sentence", "source", "sentences",
	"vocab", "config", "training", "comment", NULL
};
static const char *const training_keys[] = {
	"epochs", "lr", "optimizer", "target", "pairs", "track", NULL
};

#define AV_MAX_EPOCHS 1000000

/* --- a growable list of malloc'd strings */

/* With an index from word to its first position, so that finding one
 * is O(1) and a vocabulary of n words loads in O(n). */
struct str_list {
	int n, cap;
	char **v;
	struct av_strset first;
};

static int list_find(const struct str_list *l, const char *word)
{
	return av_strset_find(&l->first, word);
}

static void list_add(struct str_list *l, const char *word)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = av_realloc(l->v, (size_t)l->cap, sizeof *l->v);
	}
	l->v[l->n] = av_strdup(word);
	av_strset_add(&l->first, l->v[l->n], l->n);
	l->n++;
}

static void list_free(struct str_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	av_strset_free(&l->first);
	memset(l, 0, sizeof *l);
}

/* --- the texts */

static bool get_text(const cJSON *root, const char *key, bool required,
		     const char *dflt, char **out, char **cause)
{
	const char *v = dflt;
	if (!av_json_get_string(root, NULL, key, required, &v, cause))
		return false;
	*out = v ? av_strdup(v) : NULL;
	return true;
}

/* "title": "text", or {"en": "text", "zh_CN": "text"} as in lessons (the
 * screen shows the Chinese where the interface is Chinese); en required */
static const char *const text_languages[] = { "en", "zh_CN", NULL };

static bool get_text_in_languages(const cJSON *root, const char *key, char **en, char **zh,
				  char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
	if (item && !cJSON_IsObject(item) && !cJSON_IsString(item))
		return av_fail(cause, _("\"%s\": expected a string or {\"en\": text, \"zh_CN\": "
				       "text}, got %s"), key, av_json_type_name(item));
	if (!cJSON_IsObject(item))
		return get_text(root, key, false, "", en, cause);
	const char *e = NULL, *z = NULL;
	if (!av_json_check_keys(item, key, text_languages, cause)
	    || !av_json_get_string(item, key, "en", true, &e, cause)
	    || !av_json_get_string(item, key, "zh_CN", false, &z, cause))
		return false;
	*en = av_strdup(e);
	*zh = z ? av_strdup(z) : NULL;
	return true;
}

static bool read_texts(const cJSON *root, struct av_sample *s, char **cause)
{
	if (!get_text(root, "name", true, NULL, &s->name, cause)
	    || !get_text_in_languages(root, "title", &s->title, &s->title_zh, cause)
	    || !get_text_in_languages(root, "description", &s->description, &s->description_zh,
				      cause)
	    || !get_text(root, "sentence", true, NULL, &s->sentence, cause)
	    || !get_text(root, "source", false, NULL, &s->source, cause))
		return false;
	if (!*s->name)
		return av_fail(cause, _("\"name\": must not be empty"));
	return true;
}

/* A list of strings, one message per way it can be wrong. */
static bool get_string_list(const cJSON *item, const char *path, struct str_list *out,
			    char **cause)
{
	if (!cJSON_IsArray(item))
		return av_fail(cause, _("%s: expected a list of strings, got %s"), path,
			       av_json_type_name(item));
	int i = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		i++;
		if (!cJSON_IsString(e))
			return av_fail(cause, _("%s, item %d: expected a string, got %s"), path, i,
				       av_json_type_name(e));
		list_add(out, e->valuestring);
	}
	return true;
}

static void take_list(struct str_list *l, int *n, char ***v)
{
	*n = l->n;
	*v = l->v;
	if (!*v)
		*v = av_calloc(1, sizeof **v);
	av_strset_free(&l->first);
	memset(l, 0, sizeof *l);
}

static bool read_sentences(const cJSON *root, struct av_sample *s, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "sentences");
	struct str_list l = { 0 };
	if (!item) {
		list_add(&l, s->sentence);
	} else {
		if (!get_string_list(item, "\"sentences\"", &l, cause)) {
			list_free(&l);
			return false;
		}
		if (l.n == 0) {
			list_free(&l);
			return av_fail(cause, _("\"sentences\": expected at least one sentence"));
		}
	}
	take_list(&l, &s->n_sentences, &s->sentences);
	return true;
}

/* --- the vocabulary */

/* Tokenizes text (which checks it: UTF-8, length; a source's errors say
 * so) and adds its new words to vocab when vocab is not NULL. */
static bool add_words(const char *text, bool source, struct str_list *vocab, const char *path,
		      char **cause)
{
	struct av_tokens t;
	memset(&t, 0, sizeof t);
	if (!(source ? av_tokenize_source : av_tokenize)(text, &t, cause)) {
		av_cause_prefix(cause, "%s", path);
		return false;
	}
	for (int i = 0; vocab && i < t.n; i++) {
		if (list_find(vocab, t.text[i]) < 0)
			list_add(vocab, t.text[i]);
	}
	av_tokens_free(&t);
	return true;
}

/* The words of every sentence in order of first appearance (vocab may be
 * NULL to check the sentences only). */
static bool sentence_words(const struct av_sample *s, struct str_list *vocab, char **cause)
{
	for (int i = 0; i < s->n_sentences; i++) {
		char path[64];
		snprintf(path, sizeof path, _("\"sentences\", item %d"), i + 1);
		/* a cross-mode entry "TARGET ||| SOURCE" holds two sentences */
		const char *entry = s->sentences[i];
		const char *sep = strstr(entry, AV_CORPUS_SEPARATOR);
		char *target = av_strndup(entry, sep ? (size_t)(sep - entry) : strlen(entry));
		bool ok = add_words(target, false, vocab, path, cause) &&
			  (!sep || add_words(sep + strlen(AV_CORPUS_SEPARATOR), true, vocab, path,
					     cause));
		free(target);
		if (!ok)
			return false;
	}
	if (!add_words(s->sentence, false, vocab, "\"sentence\"", cause))
		return false;
	return !s->source || add_words(s->source, true, vocab, "\"source\"", cause);
}

/* Every word of l is one token (av_token_is_word) and given once. */
static bool check_vocab_words(const struct str_list *l, const char *path, char **cause)
{
	for (int i = 0; i < l->n; i++) {
		if (!av_token_is_word(l->v[i], cause)) {
			av_cause_prefix(cause, _("%s, item %d"), path, i + 1);
			return false;
		}
		int first = list_find(l, l->v[i]);
		if (first != i) {
			char *word = av_escape(l->v[i]);
			av_fail(cause, _("%s: \"%s\" is given twice (items %d and %d)"),
				path, word, first + 1, i + 1);
			free(word);
			return false;
		}
	}
	return true;
}

static bool read_vocab(const cJSON *root, struct av_sample *s, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "vocab");
	struct str_list l = { 0 };
	bool ok;
	if (item)
		ok = get_string_list(item, "\"vocab\"", &l, cause)
			&& check_vocab_words(&l, "\"vocab\"", cause)
			&& sentence_words(s, NULL, cause);
	else
		ok = sentence_words(s, &l, cause);
	if (!ok) {
		list_free(&l);
		return false;
	}
	take_list(&l, &s->n_vocab, &s->vocab);
	return true;
}

/* --- training */

/* ["china", "panda"]: two words of the vocabulary, copied into out. */
static bool read_pair(const struct av_strset *vocab, const cJSON *item, const char *path,
		      char *out[2], char **cause)
{
	if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2
	    || !cJSON_IsString(cJSON_GetArrayItem(item, 0))
	    || !cJSON_IsString(cJSON_GetArrayItem(item, 1)))
		return av_fail(cause, _("%s: expected a list of two words such as "
			       "[\"china\", \"panda\"]"), path);
	for (int i = 0; i < 2; i++) {
		const char *w = cJSON_GetArrayItem(item, i)->valuestring;
		if (av_strset_find(vocab, w) < 0) {
			char *word = av_escape(w);
			av_fail(cause, _("%s: \"%s\" is not in the vocabulary"), path, word);
			free(word);
			return false;
		}
	}
	for (int i = 0; i < 2; i++)
		out[i] = av_strdup(cJSON_GetArrayItem(item, i)->valuestring);
	return true;
}

static bool read_pairs(const cJSON *obj, struct av_sample *s, const struct av_strset *vocab,
		       char **cause)
{
	struct av_training_config *t = &s->training;
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "pairs");
	if (!item)
		return true;
	if (!cJSON_IsArray(item))
		return av_fail(cause, _("\"training\".\"pairs\": expected a list of word pairs "
			       "such as [[\"china\", \"panda\"]], got %s"), av_json_type_name(item));
	int n = cJSON_GetArraySize(item);
	t->pairs = av_calloc((size_t)n, sizeof *t->pairs);
	const cJSON *e;
	cJSON_ArrayForEach(e, item) {
		char path[64];
		snprintf(path, sizeof path, _("\"training\".\"pairs\", item %d"), t->n_pairs + 1);
		if (!read_pair(vocab, e, path, t->pairs[t->n_pairs], cause))
			return false;
		t->n_pairs++;
	}
	return true;
}

static bool read_training_values(const cJSON *obj, struct av_sample *s, char **cause)
{
	struct av_training_config *t = &s->training;
	long long epochs = t->epochs;
	int optimizer = (int)t->optimizer, target = (int)t->target;
	if (!av_json_get_int(obj, "training", "epochs", false, 1, AV_MAX_EPOCHS, &epochs, cause)
	    || !av_json_get_double(obj, "training", "lr", false, &t->lr, cause)
	    || !av_json_get_enum(obj, "training", "optimizer", false, av_optimizer_names,
				 &optimizer, cause)
	    || !av_json_get_enum(obj, "training", "target", false, av_target_names,
				 &target, cause))
		return false;
	t->epochs = (int)epochs;
	t->optimizer = (enum av_optimizer)optimizer;
	t->target = (enum av_target)target;
	if (t->lr <= 0)
		return av_fail(cause, _("\"training\".\"lr\": expected a positive number, got %g"),
			       t->lr);
	return true;
}

static bool read_training(const cJSON *root, struct av_sample *s, char **cause)
{
	struct av_training_config *t = &s->training;
	t->epochs = 200;
	t->lr = 0.01;
	t->optimizer = AV_OPT_ADAM;
	t->target = AV_TARGET_SELF;
	const cJSON *obj;
	if (!av_json_get_object(root, NULL, "training", false, &obj, cause))
		return false;
	if (!obj)
		return true;
	if (!av_json_check_keys(obj, "training", training_keys, cause)
	    || !read_training_values(obj, s, cause))
		return false;
	struct av_strset vocab = { 0 };
	for (int i = 0; i < s->n_vocab; i++)
		av_strset_add(&vocab, s->vocab[i], i);
	const cJSON *track = cJSON_GetObjectItemCaseSensitive(obj, "track");
	bool ok = read_pairs(obj, s, &vocab, cause)
		&& (!track || read_pair(&vocab, track, "\"training\".\"track\"", t->track, cause));
	av_strset_free(&vocab);
	if (!ok)
		return false;
	if (t->target == AV_TARGET_PAIRS && t->n_pairs == 0)
		return av_fail(cause, _("\"training\".\"target\" is \"pairs\" but no "
			       "\"training\".\"pairs\" are given"));
	return true;
}

/* --- the whole sample */

static bool read_config(const cJSON *root, struct av_sample *s, char **cause)
{
	av_config_default(&s->cfg);
	const cJSON *obj;
	if (!av_json_get_object(root, NULL, "config", false, &obj, cause)
	    || !av_json_get_config(obj, "config", &s->cfg, &s->cfg_given, cause))
		return false;
	if (s->cfg.mode == AV_MODE_CROSS && !s->source)
		return av_fail(cause, _("cross mode needs a \"source\" sentence "
			       "(the keys and values come from it)"));
	return true;
}

static bool read_sample(const cJSON *root, struct av_sample *s, char **cause)
{
	return av_json_check_keys(root, NULL, sample_keys, cause)
		&& read_texts(root, s, cause)
		&& read_sentences(root, s, cause)
		&& read_config(root, s, cause)
		&& read_vocab(root, s, cause)
		&& read_training(root, s, cause);
}

bool av_sample_parse(const char *text, const char *label, struct av_sample *s, char **cause)
{
	memset(s, 0, sizeof *s);
	cJSON *root = av_json_parse(text, label, AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE), _("samples"),
				   cause);
	if (!root)
		return false;
	s->path = av_strdup(label);
	bool ok = read_sample(root, s, cause);
	cJSON_Delete(root);
	if (!ok) {
		av_cause_prefix(cause, "%s", label);
		av_sample_free(s);
	}
	return ok;
}

bool av_sample_load_file(const char *path, struct av_sample *s, char **cause)
{
	char *text;
	memset(s, 0, sizeof *s);
	if (!av_read_file_limit(path, AV_MAX_TEXT_FILE, _("samples"), &text, NULL, cause))
		return false;
	bool ok = av_sample_parse(text, path, s, cause);
	free(text);
	return ok;
}

bool av_sample_load_builtin(struct av_sample *s, char **cause)
{
	return av_sample_parse(av_builtin_sample_json, "(built-in)", s, cause);
}

/* --- finding samples by name (the search is util.c's, shared with themes) */

char **av_sample_list(void)
{
	return av_data_list("samples", NULL);
}

bool av_sample_load(const char *name_or_path, struct av_sample *s, char **cause)
{
	char *path;
	memset(s, 0, sizeof *s);
	if (!av_data_find("samples", _("sample"), name_or_path, &path, cause))
		return false;
	if (!path)
		return av_data_not_found("samples", _("sample"), name_or_path, NULL, cause);
	bool ok = av_sample_load_file(path, s, cause);
	free(path);
	return ok;
}

void av_sample_free(struct av_sample *s)
{
	free(s->path);
	free(s->name);
	free(s->title);
	free(s->description);
	free(s->title_zh);
	free(s->description_zh);
	free(s->sentence);
	free(s->source);
	for (int i = 0; i < s->n_sentences; i++)
		free(s->sentences[i]);
	free(s->sentences);
	for (int i = 0; i < s->n_vocab; i++)
		free(s->vocab[i]);
	free(s->vocab);
	struct av_training_config *t = &s->training;
	for (int i = 0; t->pairs && i < t->n_pairs; i++) {
		free(t->pairs[i][0]);
		free(t->pairs[i][1]);
	}
	free(t->pairs);
	free(t->track[0]);
	free(t->track[1]);
	memset(s, 0, sizeof *s);
}
