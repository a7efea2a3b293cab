/* model_cli.c: --model (see model_cli.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "finite.h"
#include "i18n.h"
#include "model/gpt2.h"
#include "model_cli.h"
#include "print_table.h"
#include "trace_json.h"
#include "ui/ui.h"
#include "util.h"

#define NEXT_TOKENS 10

/* The sentence when none is given: the indirect-object sentence of the
 * interpretability papers, where GPT-2 small's heads have names. */
static const char default_sentence[] =
	"When Mary and John went to the store, John gave a drink to";

static bool is_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 64)
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '-' || *c == '_' || *c == '.'))
			return false;
	return true;
}

static bool is_dir(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* A directory as given, or an installed model NAME found as models/NAME in
 * $ATTNVIEW_DATA_DIR (unset in restricted mode) or PKGDATADIR. */
static bool find_model(const char *arg, bool restricted, char **dir, char **cause)
{
	if (!restricted && is_dir(arg)) {
		*dir = av_strdup(arg);
		return true;
	}
	if (restricted && !is_name(arg))
		return av_fail(cause, _("--model with a directory is not allowed in restricted mode "
				       "(give an installed model's name)"));
	char *shown = av_escape(arg);
	if (!is_name(arg)) {
		av_fail(cause, _("--model \"%s\": not a directory"), shown);
		free(shown);
		return false;
	}
	const char *env = restricted ? NULL : getenv("ATTNVIEW_DATA_DIR");
	const char *roots[] = { env && *env ? env : NULL, PKGDATADIR };
	for (int i = 0; i < 2; i++) {
		char *path = roots[i] ? av_printf("%s/models/%s", roots[i], arg) : NULL;
		if (path && is_dir(path)) {
			*dir = path;
			free(shown);
			return true;
		}
		free(path);
	}
	av_fail(cause, _("no model named \"%s\" (looked in models/ of the data folders; "
			 "tools/get-gpt2.sh downloads one)"),
		shown);
	free(shown);
	return false;
}

/* The options of the teaching layer mean nothing for a published model. */
static bool check_options(const struct av_options *o, char **cause)
{
	if (o->train_epochs)
		return av_fail(cause, _("--train trains the teaching layer; a real model (--model) "
				       "is shown as published, not trained"));
	if (o->sample || o->weights || o->lesson || o->cfg_given || o->source || o->n_hidden_keys)
		return av_fail(cause, _("--model brings its own layers and tokenizer: leave out "
				       "--sample, --weights, --lesson, --source, --mask-keys and the "
				       "layer settings (--mode, --d-model, --heads, ...)"));
	return true;
}

static cJSON *next_tokens_json(const struct av_gpt2 *m, const struct av_gpt2_run *r)
{
	int ids[NEXT_TOKENS];
	double probs[NEXT_TOKENS];
	int k = av_gpt2_top_k(r, r->n - 1, NEXT_TOKENS, ids, probs);
	cJSON *list = cJSON_CreateArray();
	for (int i = 0; i < k; i++) {
		cJSON *item = cJSON_CreateObject();
		cJSON_AddNumberToObject(item, "id", ids[i]);
		char *shown = av_bpe_display(&m->bpe, ids[i]);
		cJSON_AddStringToObject(item, "token", shown);
		free(shown);
		cJSON_AddNumberToObject(item, "probability", probs[i]);
		cJSON_AddItemToArray(list, item);
	}
	return list;
}

/* Writes the JSON text ctx to fd: spelled in ASCII for a terminal whose
 * locale is not UTF-8, as av_trace_json_write does, byte for byte
 * otherwise (a file's bytes never depend on the terminal). */
static bool write_json(int fd, void *ctx, int *err)
{
	const char *json = ctx;
	char *ascii = av_fd_wants_ascii(fd) ? av_json_escape_ascii(json) : NULL;
	const char *text = ascii ? ascii : json;
	bool ok = av_write_all(fd, text, strlen(text));
	if (!ok)
		*err = errno;
	free(ascii);
	return ok;
}

/* The single-layer trace document, its "params" (the teaching layer's
 * weights) replaced by what names the model: a GPT-2 dump is for reading,
 * not a --weights file. */
static bool dump(const struct av_options *o, const char *dir, const struct av_gpt2 *m,
		 const struct av_gpt2_run *r, const struct av_trace *t, int layer, char **cause)
{
	if (!av_trace_check_finite(t, cause))
		return false;
	struct av_params none = { 0 };
	cJSON *doc = av_trace_to_json(t, &none, NULL);
	cJSON_DeleteItemFromObject(doc, "params");
	cJSON *model = cJSON_CreateObject();
	cJSON_AddStringToObject(model, "path", dir);
	cJSON_AddNumberToObject(model, "n_layer", m->cfg.n_layer);
	cJSON_AddNumberToObject(model, "n_head", m->cfg.n_head);
	cJSON_AddNumberToObject(model, "n_embd", m->cfg.n_embd);
	cJSON_AddNumberToObject(model, "n_vocab", m->cfg.n_vocab);
	cJSON_AddNumberToObject(model, "n_ctx", m->cfg.n_ctx);
	cJSON_AddNumberToObject(model, "layer", layer);
	cJSON_AddItemToObject(doc, "model", model);
	cJSON_AddItemToObject(doc, "token_ids", cJSON_CreateIntArray(r->ids, r->n));
	cJSON_AddItemToObject(doc, "next_tokens", next_tokens_json(m, r));
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	size_t len = strlen(text);
	text = av_realloc(text, len + 2, 1);
	memcpy(text + len, "\n", 2);
	bool ok = av_write_file_atomic_with(o->dump, write_json, text, cause);
	free(text);
	return ok;
}

/* --print next: the likeliest next tokens after the sentence. */
static void print_next(const struct av_gpt2 *m, const struct av_gpt2_run *r)
{
	int ids[NEXT_TOKENS];
	double probs[NEXT_TOKENS];
	int k = av_gpt2_top_k(r, r->n - 1, NEXT_TOKENS, ids, probs);
	printf("%s\n", _("next token after the sentence (id, probability, token):"));
	for (int i = 0; i < k; i++) {
		char *piece = av_bpe_display(&m->bpe, ids[i]);
		char *shown = av_escape_output(piece);   /* vocab.json is input */
		printf("%6d  %.4f  \"%s\"\n", ids[i], probs[i], shown);
		free(shown);
		free(piece);
	}
}

/* --print token_ids: each BPE piece with its id. */
static void print_token_ids(const struct av_gpt2_run *r, const struct av_trace *t)
{
	for (int i = 0; i < r->n; i++) {
		char *shown = av_escape_output(t->tokens.text[i]);
		printf("%3d  %6d  \"%s\"\n", i, r->ids[i], shown);
		free(shown);
	}
}

static bool show(const struct av_options *o, const char *dir, const struct av_gpt2 *m,
		 const struct av_gpt2_run *r, const struct av_trace *t, int layer, bool color,
		 char **cause)
{
	if (o->dump)
		return dump(o, dir, m, r, t, layer, cause);
	const char *stage = o->print ? o->print : "weights";
	/* a real model's own list: its layer has no source (no cross mode),
	 * and token_ids and next are its own (the engine's message listed
	 * source_embedding and left those out) */
	static const char *const model_stages[] = {
		"tokens", "token_ids", "layer_input", "embedding", "q", "k", "v", "mask", "scores",
		"scaled", "masked", "weights", "context", "concat", "output", "residual", "next",
		NULL
	};
	if (!av_stage_name_check(model_stages, stage, cause))
		return false;
	if (!strcmp(stage, "next"))
		print_next(m, r);
	else if (!strcmp(stage, "token_ids"))
		print_token_ids(r, t);
	else if (!av_print_stage(stdout, t, stage, o->head, color, cause))
		return false;
	return av_stdout_flush(cause);
}

/* The model's name for the header: the directory's last part. */
static const char *model_name(const char *dir)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	size_t start = len;
	while (start > 0 && dir[start - 1] != '/')
		start--;
	static char name[80];
	snprintf(name, sizeof(name), "%.*s", (int)(len - start < 79 ? len - start : 79), dir + start);
	return name;
}

/* The screen on the model: a session that holds only the sentence (the
 * screen runs the model and fills the trace, view_model.c). */
static bool open_screen(const struct av_options *o, bool restricted, const char *dir,
			const struct av_gpt2 *m, int layer, const char *sentence,
			const char *notice, char **cause)
{
	struct av_session s;
	memset(&s, 0, sizeof(s));
	s.sentence = av_strdup(sentence);
	s.sample.name = av_strdup(model_name(dir));
	struct av_ui_config ui = {
		.theme = o->theme,
		.head = o->head,
		.no_color = o->color == AV_COLOR_NEVER,
		.restricted = restricted,
		.gpt2 = m,
		.gpt2_name = s.sample.name,
		.gpt2_layer = layer,
		.notice = notice,
	};
	bool ok = av_ui_run(&s, &ui, cause);
	av_session_free(&s);
	return ok;
}

/* The default sentence as model m takes it, malloc'd: whole when its
 * tokens fit the model's positions, else its first words that do (a model
 * of 32 positions, as the tests' gpt2-tiny whose small vocabulary cuts it
 * into 51 tokens, used to be refused: `attnview --model DIR` alone exited
 * 2), else its first bytes (a text of k bytes is at most k tokens). *cut
 * says it was cut. */
static char *default_for(const struct av_gpt2 *m, bool *cut)
{
	int ids[AV_GPT2_MAX_TOKENS];
	*cut = false;
	if (!m->bpe.n_vocab || av_gpt2_tokenize(m, default_sentence, ids, NULL) > 0)
		return av_strdup(default_sentence);   /* whole, or its own error */
	*cut = true;
	char *text = av_strdup(default_sentence);
	for (char *space = strrchr(text, ' '); space; space = strrchr(text, ' ')) {
		*space = '\0';
		if (av_gpt2_tokenize(m, text, ids, NULL) > 0)
			return text;
	}
	/* its first word is too many: as many bytes as the model has positions */
	size_t max = (size_t)av_gpt2_max_tokens(m);
	if (max < strlen(text))
		text[max] = '\0';
	return text;
}

/* The cut default said where the person sees it: the screen's status line
 * (notice) or, for --print and --dump, standard error. */
static char *cut_notice(const struct av_gpt2 *m)
{
	return av_printf(_("the default sentence, cut to the model's %d positions (e edits it)"),
			 av_gpt2_max_tokens(m));
}

static void note_cut(const struct av_gpt2 *m, const char *sentence)
{
	char *note = av_printf(_("note: the default sentence is cut to the model's %d positions: "
				 "\"%s\" (give a SENTENCE for another)"),
			       av_gpt2_max_tokens(m), sentence);
	char *safe = av_escape_message(note, av_fd_wants_ascii(STDERR_FILENO));
	fprintf(stderr, "attnview: %s\n", safe);
	free(safe);
	free(note);
}

bool av_model_cli_run(const struct av_options *o, bool restricted, bool color, char **cause)
{
	if (!check_options(o, cause))
		return false;
	bool screen = !o->dump && !o->print && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	char *dir = NULL;
	if (!find_model(o->model, restricted, &dir, cause))
		return false;
	struct av_gpt2 m;
	if (!av_gpt2_load(&m, dir, cause)) {
		free(dir);
		return false;
	}
	int layer = o->layer < 0 ? m.cfg.n_layer - 1 : o->layer;
	bool ok = true;
	if (layer >= m.cfg.n_layer)
		ok = av_fail(cause, _("--layer %d: the model has layers 0 to %d"), layer,
			     m.cfg.n_layer - 1);
	else if (o->head >= m.cfg.n_head)
		ok = av_fail(cause, _("--head %d: the model has heads 0 to %d"), o->head,
			     m.cfg.n_head - 1);
	else if (o->sentence && !*o->sentence)   /* given empty: not the default */
		ok = av_fail(cause, _("the sentence is empty"));
	struct av_gpt2_run r = { 0 };
	struct av_trace t = { 0 };
	bool own = o->sentence != NULL, cut = false;
	char *fitted = own ? NULL : default_for(&m, &cut);
	const char *sentence = own ? o->sentence : fitted;
	char *notice = cut ? cut_notice(&m) : NULL;
	if (ok && screen) {
		ok = open_screen(o, restricted, dir, &m, layer, sentence, notice, cause);
	} else if (ok) {
		ok = av_gpt2_run_text(&m, sentence, &r, cause);
		if (ok && cut)
			note_cut(&m, sentence);
	}
	if (ok && !screen) {
		av_gpt2_trace_layer(&m, &r, layer, sentence, &t);
		ok = show(o, dir, &m, &r, &t, layer, color, cause);
	}
	av_trace_free(&t);
	av_gpt2_run_free(&r);
	av_gpt2_free(&m);
	free(notice);
	free(fitted);
	free(dir);
	return ok;
}
