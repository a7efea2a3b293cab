/* wire.c: encoding and decoding the classroom's messages (format in wire.h).
 *
 * The body, version 5 (4 had no view origin, so a student at the teacher's
 * size showed the least scroll round the cursor, not the teacher's page;
 * 3 had no cursor cell, only its tokens, which say no
 * column where the columns are model dimensions; 2 had one run, trained
 * under the config shown; 1 had no figure, no bars or compare view, and
 * one training setting without its changes):
 *   {"seq": N, "sample": NAME, "origin": "sample"|"weights", "weights": NAME,
 *    "hash": "16 hex digits",
 *    "sentence": TEXT, "source": TEXT|null,
 *    "config": {"mode", "scale", "temperature", "seed", "init", "d_model", "heads"},
 *    "view": {"stage": NAME, "kind": NAME, "head", "query", "key", "row", "col",
 *             "first_row", "first_col", "hidden": [J...],
 *             "figure": N, "panel": N,
 *             "train": {"vocab": BOOL, "scores": BOOL, "mats": N, "sentence": N},
 *             "compare": N},
 *    "lesson": {"name": NAME, "step": N, "hash": "16 hex digits"},
 *    "before": [RUN, ...], "training": null | RUN,
 *    "pin": null | {the same keys, "pin": null}}
 * where a RUN is
 *    {"init": NAME, "under": {"mode", "scale", "temperature", "source": TEXT|null},
 *     "epochs": N, "steps": N,
 *     "recipe": [{"at": STEP, "target", "optimizer", "params", "lr", "reset": BOOL}, ...],
 *     "tracks": [{"at": STEP, "pair": [WORD, WORD] | null}, ...]}
 * Enums travel as their names (the tables of model_config.h, sample.h,
 * train.h and snapshot.h), so a reordered enum cannot change a meaning. */
#include "config.h"

#include "i18n.h"
#include "wire.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_diag.h"
#include "json_read.h"
#include "trace_json.h"
#include "util.h"

static uint16_t get_u16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)(v & 0xff);
	p[1] = (unsigned char)(v >> 8);
}

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)((v >> (8 * i)) & 0xff);
}

enum av_wire_verdict av_wire_parse_header(const unsigned char *hdr,
					  struct av_wire_header *h, char **cause)
{
	if (memcmp(hdr, AV_WIRE_MAGIC, 4) != 0) {
		av_fail(cause, _("bytes that are not an attnview message (one begins with "
			"\"AVFL\")"));
		return AV_WIRE_DESYNC;
	}
	h->version = get_u16(hdr + 4);
	h->type = get_u16(hdr + 6);
	h->length = get_u32(hdr + 8);
	if (h->version != AV_WIRE_VERSION) {
		av_fail(cause, _("message version %u, this attnview reads version %d"
			" (teacher and students must run the same release)"),
			(unsigned)h->version, AV_WIRE_VERSION);
		return AV_WIRE_SKIP;
	}
	if (h->type != AV_WIRE_SNAPSHOT) {
		av_fail(cause, _("unknown message type %u"), (unsigned)h->type);
		return AV_WIRE_SKIP;
	}
	if (h->length > AV_WIRE_MAX_BODY) {
		av_fail(cause, _("message of %lu bytes, more than %d"), (unsigned long)h->length,
			AV_WIRE_MAX_BODY);
		return AV_WIRE_SKIP;
	}
	return AV_WIRE_READ;
}

/* --- decoding: each getter names the key in its message */

static const cJSON *get(const cJSON *obj, const char *where, const char *key, char **cause)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (v == NULL)
		av_fail(cause, _("%s: no \"%s\""), where, key);
	return v;
}

/* Every key of obj is one of keys (a NULL-terminated list of at most
 * MAX_KEYS: "view" has 14) and none twice. */
#define MAX_KEYS 24
static bool only_keys(const cJSON *obj, const char *where, const char *const keys[],
		      char **cause)
{
	const cJSON *item;
	int seen[MAX_KEYS] = { 0 };

	cJSON_ArrayForEach(item, obj) {
		int k = 0;

		while (keys[k] != NULL && (item->string == NULL || strcmp(keys[k], item->string) != 0))
			k++;
		if (keys[k] == NULL)
			return av_fail(cause, _("%s: unknown key \"%.40s\""), where,
				       item->string ? item->string : "");
		if (seen[k]++)
			return av_fail(cause, _("%s: \"%s\" twice"), where, keys[k]);
	}
	return true;
}

static bool get_object(const cJSON *obj, const char *where, const char *key,
		       const char *const keys[], const cJSON **out, char **cause)
{
	const cJSON *v = get(obj, where, key, cause);

	if (v == NULL)
		return false;
	if (!cJSON_IsObject(v))
		return av_fail(cause, _("%s: \"%s\" is not an object"), where, key);
	*out = v;
	return only_keys(v, key, keys, cause);
}

/* A string of at most max bytes copied into out (max + 1 bytes). */
static bool get_string(const cJSON *obj, const char *where, const char *key, char *out,
		       size_t max, char **cause)
{
	const cJSON *v = get(obj, where, key, cause);
	size_t len;

	if (v == NULL)
		return false;
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return av_fail(cause, _("%s: \"%s\" is not a string"), where, key);
	len = strlen(v->valuestring);
	if (len > max)
		return av_fail(cause, _("%s: \"%s\" is longer than %zu bytes"), where, key, max);
	memcpy(out, v->valuestring, len + 1);
	return true;
}

/* An integer in lo..hi (exact in a double: |hi| <= 2^53). */
static bool get_integer(const cJSON *obj, const char *where, const char *key, double lo,
			double hi, double *out, char **cause)
{
	const cJSON *v = get(obj, where, key, cause);

	if (v == NULL)
		return false;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble))
		return av_fail(cause, _("%s: \"%s\" is not an integer"), where, key);
	if (v->valuedouble < lo || v->valuedouble > hi)
		return av_fail(cause, _("%s: \"%s\" is not in %.0f..%.0f"), where, key, lo, hi);
	*out = v->valuedouble;
	return true;
}

static bool get_int(const cJSON *obj, const char *where, const char *key, int lo, int hi,
		    int *out, char **cause)
{
	double d;

	if (!get_integer(obj, where, key, lo, hi, &d, cause))
		return false;
	*out = (int)d;
	return true;
}

static bool get_double(const cJSON *obj, const char *where, const char *key, double *out,
		       char **cause)
{
	const cJSON *v = get(obj, where, key, cause);

	if (v == NULL)
		return false;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return av_fail(cause, _("%s: \"%s\" is not a finite number"), where, key);
	*out = v->valuedouble;
	return true;
}

static bool get_bool(const cJSON *obj, const char *where, const char *key, bool *out,
		     char **cause)
{
	const cJSON *v = get(obj, where, key, cause);

	if (v == NULL)
		return false;
	if (!cJSON_IsBool(v))
		return av_fail(cause, _("%s: \"%s\" is not true or false"), where, key);
	*out = cJSON_IsTrue(v);
	return true;
}

static bool get_enum(const cJSON *obj, const char *where, const char *key,
		     const char *const names[], int *out, char **cause)
{
	char name[32];

	if (!get_string(obj, where, key, name, sizeof name - 1, cause))
		return false;
	if (!av_enum_parse(names, name, out))
		return av_fail(cause, _("%s: \"%s\" is not a known %s"), where, name, key);
	return true;
}

/* 16 lower-case hex digits, as the encoder writes a hash */
static bool decode_hash(const char *text, const char *what, uint64_t *out, char **cause)
{
	if (strlen(text) != 16 || strspn(text, "0123456789abcdef") != 16)
		return av_fail(cause, _("message: %s is not 16 lower-case hex digits"), what);
	*out = strtoull(text, NULL, 16);
	return true;
}

static bool decode_identity(const cJSON *root, struct av_state *s, char **cause)
{
	char hash[17];
	double seq;
	int origin;

	if (!get_integer(root, "message", "seq", 0, 9007199254740991.0, &seq, cause) ||
	    !get_string(root, "message", "sample", s->sample, AV_SNAP_NAME_MAX, cause) ||
	    !get_enum(root, "message", "origin", av_snap_origin_names, &origin, cause) ||
	    !get_string(root, "message", "weights", s->weights, AV_SNAP_NAME_MAX, cause) ||
	    !get_string(root, "message", "hash", hash, 16, cause))
		return false;
	s->seq = (uint64_t)seq;
	s->origin = (enum av_snap_origin)origin;
	return decode_hash(hash, "\"hash\"", &s->content_hash, cause);
}

static bool decode_text(const cJSON *root, struct av_state *s, char **cause)
{
	const cJSON *source = get(root, "message", "source", cause);

	if (!get_string(root, "message", "sentence", s->sentence, AV_SNAP_TEXT_MAX, cause) ||
	    source == NULL)
		return false;
	s->has_source = !cJSON_IsNull(source);
	if (s->has_source)
		return get_string(root, "message", "source", s->source, AV_SNAP_TEXT_MAX, cause);
	return true;
}

static bool decode_config(const cJSON *root, struct av_state *s, char **cause)
{
	static const char *const keys[] = { "mode", "scale", "temperature", "seed", "init",
					    "d_model", "heads", NULL };
	const cJSON *c;
	int mode, scale, init;
	double seed;

	if (!get_object(root, "message", "config", keys, &c, cause) ||
	    !get_enum(c, "config", "mode", av_mode_names, &mode, cause) ||
	    !get_enum(c, "config", "scale", av_scale_names, &scale, cause) ||
	    !get_double(c, "config", "temperature", &s->temperature, cause) ||
	    !get_integer(c, "config", "seed", 0, (double)AV_MAX_SEED, &seed, cause) ||
	    !get_enum(c, "config", "init", av_init_names, &init, cause) ||
	    !get_int(c, "config", "d_model", 1, AV_MAX_D_MODEL, &s->d_model, cause) ||
	    !get_int(c, "config", "heads", 1, AV_MAX_D_MODEL, &s->heads, cause))
		return false;
	s->mode = (enum av_mode)mode;
	s->scale = (enum av_scale)scale;
	s->init = (enum av_init)init;
	s->seed = (uint64_t)seed;
	return true;
}

static bool decode_train_look(const cJSON *view, struct av_state *s, char **cause)
{
	static const char *const keys[] = { "vocab", "scores", "mats", "sentence", NULL };
	const cJSON *t;

	return get_object(view, "view", "train", keys, &t, cause) &&
	       get_bool(t, "train", "vocab", &s->train_vocab, cause) &&
	       get_bool(t, "train", "scores", &s->train_scores, cause) &&
	       get_int(t, "train", "mats", 0, 3, &s->train_mats, cause) &&
	       get_int(t, "train", "sentence", 0, AV_TRAIN_MAX_SENTENCES - 1, &s->train_sentence,
		       cause);
}

static bool decode_hidden(const cJSON *view, struct av_state *s, char **cause)
{
	const cJSON *hidden = get(view, "view", "hidden", cause);
	const cJSON *item;

	if (hidden == NULL)
		return false;
	if (!cJSON_IsArray(hidden))
		return av_fail(cause, _("view: \"hidden\" is not a list"));
	if (cJSON_GetArraySize(hidden) > AV_MAX_TOKENS)
		return av_fail(cause, _("view: \"hidden\" has more than %d keys"), AV_MAX_TOKENS);
	cJSON_ArrayForEach(item, hidden) {
		double j = item->valuedouble;

		if (!cJSON_IsNumber(item) || !isfinite(j) || j != floor(j) || j < 0 ||
		    j >= AV_MAX_TOKENS)
			return av_fail(cause, _("view: \"hidden\" holds something that is not a key"
				       " position 0..%d"), AV_MAX_TOKENS - 1);
		if (s->key_hidden[(int)j])
			return av_fail(cause, _("view: \"hidden\" lists key %d twice"), (int)j);
		s->key_hidden[(int)j] = true;
	}
	return true;
}

static bool decode_view(const cJSON *root, struct av_state *s, char **cause)
{
	static const char *const keys[] = { "stage", "kind", "head", "query", "key", "row",
					    "col", "first_row", "first_col", "hidden", "figure",
					    "panel", "train", "compare", NULL };
	const cJSON *v;
	int kind;

	if (!get_object(root, "message", "view", keys, &v, cause) ||
	    !get_enum(v, "view", "stage", av_snap_stage_names, &s->stage, cause) ||
	    !get_enum(v, "view", "kind", av_snap_view_names, &kind, cause) ||
	    !get_int(v, "view", "head", 0, AV_MAX_D_MODEL - 1, &s->head, cause) ||
	    !get_int(v, "view", "query", -1, AV_MAX_TOKENS - 1, &s->query, cause) ||
	    !get_int(v, "view", "key", -1, AV_MAX_TOKENS - 1, &s->key, cause) ||
	    !get_int(v, "view", "row", 0, AV_SNAP_MAX_CELL, &s->row, cause) ||
	    !get_int(v, "view", "col", 0, AV_SNAP_MAX_CELL, &s->col, cause) ||
	    !get_int(v, "view", "first_row", 0, AV_SNAP_MAX_CELL, &s->first_row, cause) ||
	    !get_int(v, "view", "first_col", 0, AV_SNAP_MAX_CELL, &s->first_col, cause) ||
	    !get_int(v, "view", "figure", 0, AV_SNAP_MAX_FIGURE, &s->figure, cause) ||
	    !get_int(v, "view", "panel", 0, AV_SNAP_MAX_PANEL, &s->panel, cause) ||
	    !decode_train_look(v, s, cause) ||
	    !get_int(v, "view", "compare", 0, 2, &s->compare, cause))
		return false;
	s->view = (enum av_snap_view)kind;
	return decode_hidden(v, s, cause);
}

static bool decode_lesson(const cJSON *root, struct av_state *s, char **cause)
{
	static const char *const keys[] = { "name", "step", "hash", NULL };
	const cJSON *l;
	char hash[17];

	return get_object(root, "message", "lesson", keys, &l, cause) &&
	       get_string(l, "lesson", "name", s->lesson, AV_SNAP_NAME_MAX, cause) &&
	       get_int(l, "lesson", "step", 0, AV_SNAP_MAX_LESSON_STEP, &s->lesson_step, cause) &&
	       get_string(l, "lesson", "hash", hash, 16, cause) &&
	       decode_hash(hash, "\"lesson\".\"hash\"", &s->lesson_hash, cause);
}

static bool decode_recipe(const cJSON *item, struct av_snap_recipe *r, char **cause)
{
	static const char *const keys[] = { "at", "target", "optimizer", "params", "lr",
					    "reset", NULL };
	int target, optimizer, params;
	double at;

	if (!cJSON_IsObject(item))
		return av_fail(cause, _("training: \"recipe\" holds something that is not an object"));
	if (!only_keys(item, "recipe", keys, cause) ||
	    !get_integer(item, "recipe", "at", 0, (double)AV_SNAP_MAX_AT, &at, cause) ||
	    !get_enum(item, "recipe", "target", av_target_names, &target, cause) ||
	    !get_enum(item, "recipe", "optimizer", av_optimizer_names, &optimizer, cause) ||
	    !get_enum(item, "recipe", "params", av_train_set_names, &params, cause) ||
	    !get_double(item, "recipe", "lr", &r->lr, cause) ||
	    !get_bool(item, "recipe", "reset", &r->reset, cause))
		return false;
	r->at = (long)at;
	r->target = (enum av_target)target;
	r->optimizer = (enum av_optimizer)optimizer;
	r->params = (enum av_train_set)params;
	return true;
}

static bool decode_under(const cJSON *t, struct av_snap_training *tr, char **cause)
{
	static const char *const keys[] = { "mode", "scale", "temperature", "source", NULL };
	const cJSON *u, *source;
	int mode, scale;

	if (!get_object(t, "training", "under", keys, &u, cause) ||
	    !get_enum(u, "under", "mode", av_mode_names, &mode, cause) ||
	    !get_enum(u, "under", "scale", av_scale_names, &scale, cause) ||
	    !get_double(u, "under", "temperature", &tr->temperature, cause) ||
	    (source = get(u, "under", "source", cause)) == NULL)
		return false;
	tr->mode = (enum av_mode)mode;
	tr->scale = (enum av_scale)scale;
	tr->has_source = !cJSON_IsNull(source);
	tr->source[0] = '\0';
	return !tr->has_source ||
	       get_string(u, "under", "source", tr->source, AV_SNAP_TEXT_MAX, cause);
}

static bool decode_track(const cJSON *item, struct av_snap_track *k, char **cause)
{
	static const char *const keys[] = { "at", "pair", NULL };
	const cJSON *pair;
	double at;

	if (!cJSON_IsObject(item))
		return av_fail(cause, _("training: \"tracks\" holds something that is not an object"));
	if (!only_keys(item, "tracks", keys, cause) ||
	    !get_integer(item, "tracks", "at", 0, (double)AV_SNAP_MAX_AT, &at, cause) ||
	    (pair = get(item, "tracks", "pair", cause)) == NULL)
		return false;
	k->at = (long)at;
	k->pair[0][0] = k->pair[1][0] = '\0';
	if (cJSON_IsNull(pair))
		return true;
	if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2)
		return av_fail(cause, _("tracks: \"pair\" is not two words"));
	for (int i = 0; i < 2; i++) {
		const cJSON *w = cJSON_GetArrayItem(pair, i);
		size_t len;

		if (!cJSON_IsString(w) || w->valuestring == NULL)
			return av_fail(cause, _("tracks: \"pair\" holds something that is not a word"));
		len = strlen(w->valuestring);
		if (len == 0 || len > AV_SNAP_NAME_MAX)
			return av_fail(cause, _("tracks: a word of 1 to %d bytes, not %zu"),
				       AV_SNAP_NAME_MAX, len);
		memcpy(k->pair[i], w->valuestring, len + 1);
	}
	return true;
}

/* A RUN object (t) into tr, active. */
static bool decode_run(const cJSON *t, struct av_snap_training *tr, char **cause)
{
	static const char *const keys[] = { "init", "under", "epochs", "steps", "recipe",
					    "tracks", NULL };
	const cJSON *tracks;
	const cJSON *recipe, *item;
	int init, i = 0;

	if (!cJSON_IsObject(t))
		return av_fail(cause, _("training: a run is not an object"));
	tr->active = true;
	if (!only_keys(t, "training", keys, cause) ||
	    !get_enum(t, "training", "init", av_init_names, &init, cause) ||
	    !decode_under(t, tr, cause) ||
	    !get_int(t, "training", "epochs", 0, AV_TRAIN_MAX_EPOCHS, &tr->epochs, cause) ||
	    !get_int(t, "training", "steps", 0, AV_TRAIN_MAX_STEPS, &tr->steps, cause) ||
	    (recipe = get(t, "training", "recipe", cause)) == NULL)
		return false;
	tr->init = (enum av_init)init;
	if (!cJSON_IsArray(recipe))
		return av_fail(cause, _("training: \"recipe\" is not a list"));
	if (cJSON_GetArraySize(recipe) < 1 || cJSON_GetArraySize(recipe) > AV_SNAP_MAX_RECIPE)
		return av_fail(cause, _("training: \"recipe\" has not 1 to %d settings"),
			       AV_SNAP_MAX_RECIPE);
	cJSON_ArrayForEach(item, recipe)
		if (!decode_recipe(item, &tr->recipe[i++], cause))
			return false;
	tr->n_recipe = i;
	if ((tracks = get(t, "training", "tracks", cause)) == NULL)
		return false;
	if (!cJSON_IsArray(tracks))
		return av_fail(cause, _("training: \"tracks\" is not a list"));
	if (cJSON_GetArraySize(tracks) < 1 || cJSON_GetArraySize(tracks) > AV_SNAP_MAX_TRACKS)
		return av_fail(cause, _("training: \"tracks\" has not 1 to %d pairs"),
			       AV_SNAP_MAX_TRACKS);
	i = 0;
	cJSON_ArrayForEach(item, tracks)
		if (!decode_track(item, &tr->tracks[i++], cause))
			return false;
	tr->n_tracks = i;
	return true;
}

static bool decode_training(const cJSON *root, struct av_state *s, char **cause)
{
	const cJSON *t = get(root, "message", "training", cause);
	const cJSON *before = get(root, "message", "before", cause), *item;

	if (t == NULL || before == NULL)
		return false;
	if (!cJSON_IsArray(before))
		return av_fail(cause, _("message: \"before\" is not a list"));
	if (cJSON_GetArraySize(before) > AV_SNAP_MAX_RUNS - 1)
		return av_fail(cause, _("message: \"before\" has more than %d runs"),
			       AV_SNAP_MAX_RUNS - 1);
	cJSON_ArrayForEach(item, before)
		if (!decode_run(item, &s->before[s->n_before++], cause))
			return false;
	/* an inactive run keeps av_state_init's fields, with the config's
	 * settings (what a run made now would train under) */
	av_state_run_under(&s->training, s);
	return cJSON_IsNull(t) || decode_run(t, &s->training, cause);
}

/* A body's object into out (valid); a pin at the top level into *pin (a
 * state of its own, whose pin is null), when pin is not NULL. */
static bool decode_object(const cJSON *root, struct av_state *out, struct av_state *pin,
			  bool *has_pin, char **cause)
{
	static const char *const keys[] = { "seq", "sample", "origin", "weights", "hash",
					    "sentence", "source", "config", "view", "lesson",
					    "before", "training", "pin", NULL };
	const cJSON *p;

	av_state_init(out);
	if (has_pin)
		*has_pin = false;
	if (!only_keys(root, "message", keys, cause) ||
	    !decode_identity(root, out, cause) || !decode_text(root, out, cause) ||
	    !decode_config(root, out, cause) || !decode_view(root, out, cause) ||
	    !decode_lesson(root, out, cause) || !decode_training(root, out, cause) ||
	    !av_state_validate(out, cause) || (p = get(root, "message", "pin", cause)) == NULL)
		return false;
	if (cJSON_IsNull(p))
		return true;
	if (pin == NULL)
		return av_fail(cause, _("pin: a pinned state inside a pinned state"));
	if (!cJSON_IsObject(p))
		return av_fail(cause, _("message: \"pin\" is not an object"));
	if (!decode_object(p, pin, NULL, NULL, cause)) {
		av_cause_prefix(cause, "pin");
		return false;
	}
	if (has_pin)
		*has_pin = true;
	return true;
}

/* false, with what is wrong with a body cJSON stopped reading at end (a
 * leader's bug, said plainly in the follower's notes): a message whose
 * JSON ends early was cut off, which a student tells apart from one that
 * is garbled */
static bool not_json(const unsigned char *body, size_t len, const char *end, char **cause)
{
	size_t at = end ? (size_t)(end - (const char *)body) : 0;
	bool cut_off;
	char *why = av_json_diagnose_message((const char *)body, len, &at, &cut_off);
	if (cut_off)
		av_fail(cause, _("it was cut off after %zu bytes (%s)"), len, why);
	else
		av_fail(cause, _("it is not valid JSON (at byte %zu: %s)"), at, why);
	free(why);
	return false;
}

bool av_wire_decode_body(const unsigned char *body, size_t len, struct av_state *out,
			 char **cause)
{
	return av_wire_decode_body_pinned(body, len, out, NULL, NULL, cause);
}

bool av_wire_decode_body_pinned(const unsigned char *body, size_t len, struct av_state *out,
				struct av_state *pin, bool *has_pin, char **cause)
{
	struct av_state ignored;
	const char *end = NULL;
	cJSON *root;
	bool ok;

	if (len > AV_WIRE_MAX_BODY)
		return av_fail(cause, _("message of %zu bytes, more than %d"), len, AV_WIRE_MAX_BODY);
	if (memchr(body, '\0', len) != NULL)
		return av_fail(cause, _("message: a NUL byte in the body"));
	/* nor the escape of one: it would cut the sentence short */
	if (!av_json_check_no_nul((const char *)body, len, "message", cause))
		return false;
	root = cJSON_ParseWithLengthOpts((const char *)body, len, &end, false);
	if (root == NULL)
		return not_json(body, len, end, cause);
	while (end < (const char *)body + len && strchr(" \t\r\n", *end) != NULL)
		end++;
	av_state_init(out);
	size_t at = 0;
	char *lax = NULL;
	if (end != (const char *)body + len)
		ok = av_fail(cause, _("message: bytes after the JSON object"));
	else if ((lax = av_json_strict_problem((const char *)body, len, &at)) != NULL)
		ok = av_fail(cause, _("it is not valid JSON (at byte %zu: %s)"), at, lax);
	else if (!cJSON_IsObject(root))
		ok = av_fail(cause, _("message: not a JSON object"));
	else
		ok = decode_object(root, out, pin ? pin : &ignored, has_pin, cause);
	free(lax);
	cJSON_Delete(root);
	return ok;
}

bool av_wire_decode(const unsigned char *msg, size_t len, struct av_state *out,
		    char **cause)
{
	struct av_wire_header h;

	if (len < AV_WIRE_HEADER_SIZE)
		return av_fail(cause, _("message of %zu bytes, shorter than its header"), len);
	if (av_wire_parse_header(msg, &h, cause) != AV_WIRE_READ)
		return false;
	if (len - AV_WIRE_HEADER_SIZE != h.length)
		return av_fail(cause, _("message: the header says %lu bytes, the body has %zu"),
			       (unsigned long)h.length, len - AV_WIRE_HEADER_SIZE);
	return av_wire_decode_body(msg + AV_WIRE_HEADER_SIZE, h.length, out, cause);
}

/* --- encoding */

/* cJSON prints numbers with 15 significant digits, which loses seeds near
 * 2^53 and temperatures like 0.1 + 0.2: these go out exact (the shortest
 * text that reads back the same double), as raw text,
 * in the C locale whatever the screen's LC_NUMERIC is. */
static void add_exact(cJSON *obj, const char *key, double value)
{
	char buf[40];
	locale_t c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c_numeric ? uselocale(c_numeric) : (locale_t)0;

	/* the shortest of 15, 16 and 17 digits that reads back the same */
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof buf, "%.*g", digits, value);
		if (strtod(buf, NULL) == value)
			break;
	}
	if (c_numeric) {
		uselocale(old);
		freelocale(c_numeric);
	}
	cJSON_AddRawToObject(obj, key, buf);
}

static void add_u64(cJSON *obj, const char *key, uint64_t value)
{
	char buf[24];

	snprintf(buf, sizeof buf, "%" PRIu64, value);
	cJSON_AddRawToObject(obj, key, buf);
}

static cJSON *encode_run(const struct av_snap_training *run)
{
	cJSON *t = cJSON_CreateObject(), *u, *recipe, *tracks;

	cJSON_AddStringToObject(t, "init", av_init_names[run->init]);
	u = cJSON_AddObjectToObject(t, "under");
	cJSON_AddStringToObject(u, "mode", av_mode_names[run->mode]);
	cJSON_AddStringToObject(u, "scale", av_scale_names[run->scale]);
	add_exact(u, "temperature", run->temperature);
	if (run->has_source)
		cJSON_AddStringToObject(u, "source", run->source);
	else
		cJSON_AddNullToObject(u, "source");
	cJSON_AddNumberToObject(t, "epochs", run->epochs);
	cJSON_AddNumberToObject(t, "steps", run->steps);
	recipe = cJSON_AddArrayToObject(t, "recipe");
	for (int i = 0; i < run->n_recipe; i++) {
		const struct av_snap_recipe *r = &run->recipe[i];
		cJSON *item = cJSON_CreateObject();

		cJSON_AddNumberToObject(item, "at", (double)r->at);
		cJSON_AddStringToObject(item, "target", av_target_names[r->target]);
		cJSON_AddStringToObject(item, "optimizer", av_optimizer_names[r->optimizer]);
		cJSON_AddStringToObject(item, "params", av_train_set_names[r->params]);
		add_exact(item, "lr", r->lr);
		cJSON_AddBoolToObject(item, "reset", r->reset);
		cJSON_AddItemToArray(recipe, item);
	}
	tracks = cJSON_AddArrayToObject(t, "tracks");
	for (int i = 0; i < run->n_tracks; i++) {
		const struct av_snap_track *k = &run->tracks[i];
		cJSON *item = cJSON_CreateObject();

		cJSON_AddNumberToObject(item, "at", (double)k->at);
		if (k->pair[0][0] != '\0') {
			const char *words[2] = { k->pair[0], k->pair[1] };
			cJSON_AddItemToObject(item, "pair", cJSON_CreateStringArray(words, 2));
		} else {
			cJSON_AddNullToObject(item, "pair");
		}
		cJSON_AddItemToArray(tracks, item);
	}
	return t;
}

static cJSON *encode_json(const struct av_state *s)
{
	cJSON *root = cJSON_CreateObject(), *c, *v, *hidden, *l, *before;
	char hash[17];

	snprintf(hash, sizeof hash, "%016" PRIx64, s->content_hash);
	add_u64(root, "seq", s->seq);
	cJSON_AddStringToObject(root, "sample", s->sample);
	cJSON_AddStringToObject(root, "origin", av_snap_origin_names[s->origin]);
	cJSON_AddStringToObject(root, "weights", s->weights);
	cJSON_AddStringToObject(root, "hash", hash);
	cJSON_AddStringToObject(root, "sentence", s->sentence);
	if (s->has_source)
		cJSON_AddStringToObject(root, "source", s->source);
	else
		cJSON_AddNullToObject(root, "source");

	c = cJSON_AddObjectToObject(root, "config");
	cJSON_AddStringToObject(c, "mode", av_mode_names[s->mode]);
	cJSON_AddStringToObject(c, "scale", av_scale_names[s->scale]);
	add_exact(c, "temperature", s->temperature);
	add_u64(c, "seed", s->seed);
	cJSON_AddStringToObject(c, "init", av_init_names[s->init]);
	cJSON_AddNumberToObject(c, "d_model", s->d_model);
	cJSON_AddNumberToObject(c, "heads", s->heads);

	v = cJSON_AddObjectToObject(root, "view");
	cJSON_AddStringToObject(v, "stage", av_snap_stage_names[s->stage]);
	cJSON_AddStringToObject(v, "kind", av_snap_view_names[s->view]);
	cJSON_AddNumberToObject(v, "head", s->head);
	cJSON_AddNumberToObject(v, "query", s->query);
	cJSON_AddNumberToObject(v, "key", s->key);
	cJSON_AddNumberToObject(v, "row", s->row);
	cJSON_AddNumberToObject(v, "col", s->col);
	cJSON_AddNumberToObject(v, "first_row", s->first_row);
	cJSON_AddNumberToObject(v, "first_col", s->first_col);
	hidden = cJSON_AddArrayToObject(v, "hidden");
	for (int j = 0; j < AV_MAX_TOKENS; j++)
		if (s->key_hidden[j])
			cJSON_AddItemToArray(hidden, cJSON_CreateNumber(j));
	cJSON_AddNumberToObject(v, "figure", s->figure);
	cJSON_AddNumberToObject(v, "panel", s->panel);
	{
		cJSON *t = cJSON_AddObjectToObject(v, "train");

		cJSON_AddBoolToObject(t, "vocab", s->train_vocab);
		cJSON_AddBoolToObject(t, "scores", s->train_scores);
		cJSON_AddNumberToObject(t, "mats", s->train_mats);
		cJSON_AddNumberToObject(t, "sentence", s->train_sentence);
	}
	cJSON_AddNumberToObject(v, "compare", s->compare);

	l = cJSON_AddObjectToObject(root, "lesson");
	cJSON_AddStringToObject(l, "name", s->lesson);
	cJSON_AddNumberToObject(l, "step", s->lesson_step);
	snprintf(hash, sizeof hash, "%016" PRIx64, s->lesson_hash);
	cJSON_AddStringToObject(l, "hash", hash);

	before = cJSON_AddArrayToObject(root, "before");
	for (int i = 0; i < s->n_before; i++)
		cJSON_AddItemToArray(before, encode_run(&s->before[i]));
	if (s->training.active)
		cJSON_AddItemToObject(root, "training", encode_run(&s->training));
	else
		cJSON_AddNullToObject(root, "training");
	cJSON_AddNullToObject(root, "pin");
	return root;
}

/* The body of s (with pin inside, when not NULL), malloc'd; NULL when it
 * is longer than AV_WIRE_MAX_BODY (*body_len says how long). */
static char *encode_body(const struct av_state *s, const struct av_state *pin,
			 size_t *body_len)
{
	cJSON *root = encode_json(s);
	char *body;

	if (pin != NULL)
		cJSON_ReplaceItemInObject(root, "pin", encode_json(pin));
	char *raw = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (raw == NULL)
		return NULL;
	/* a message is a file in the room's folder, which may be cat-ed */
	body = av_json_escape_invisible(raw);
	cJSON_free(raw);
	*body_len = strlen(body);
	if (*body_len > AV_WIRE_MAX_BODY) {
		free(body);
		return NULL;
	}
	return body;
}

bool av_wire_encode(const struct av_state *s, unsigned char **msg, size_t *len,
		    char **cause)
{
	return av_wire_encode_pinned(s, NULL, msg, len, cause);
}

bool av_wire_encode_pinned(const struct av_state *s, const struct av_state *pin,
			   unsigned char **msg, size_t *len, char **cause)
{
	char *body = NULL;
	size_t body_len = 0;

	if (!av_state_validate(s, cause)) {
		av_cause_prefix(cause, _("cannot publish"));
		return false;
	}
	/* a pin that does not validate, or does not fit, is left out: the
	 * comparison is then shown live only, as before there were pins (two
	 * states fit unless both hold four runs with the longest texts, every
	 * change and every tracked pair) */
	if (pin != NULL && av_state_validate(pin, NULL))
		body = encode_body(s, pin, &body_len);
	if (body == NULL)
		body = encode_body(s, NULL, &body_len);
	if (body == NULL)
		return body_len > AV_WIRE_MAX_BODY
		       ? av_fail(cause, _("cannot publish: %zu bytes, more than %d"), body_len,
				 AV_WIRE_MAX_BODY)
		       : av_fail(cause, _("cannot publish: out of memory"));
	*len = AV_WIRE_HEADER_SIZE + body_len;
	*msg = av_malloc(*len);
	memcpy(*msg, AV_WIRE_MAGIC, 4);
	put_u16(*msg + 4, AV_WIRE_VERSION);
	put_u16(*msg + 6, AV_WIRE_SNAPSHOT);
	put_u32(*msg + 8, (uint32_t)body_len);
	memcpy(*msg + AV_WIRE_HEADER_SIZE, body, body_len);
	free(body);
	return true;
}
