/* commands.c: the ':' prompt's commands (see prompt.h). Each value is
 * checked by the engine's parser for the matching command-line option, so
 * the screen and the command line accept the same values and explain a bad
 * one the same way, prefixed here with the command's name:
 *   temp: expected a number between 0.01 and 100, got "abc"
 * except a sentence's or a source's, which name their text already. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "number.h"
#include "restricted_limits.h"
#include "train.h"
#include "ui/app.h"
#include "ui/prompt.h"
#include "ui/views/model_ui.h"
#include "ui/views/view_train_internal.h"
#include "util.h"

struct command {
	const char *name;
	const char *args;      /* for help and messages */
	bool in_training;      /* also while the training view is open */
	bool (*run)(struct av_app *a, const char *name, const char *arg, char **error);
	/* the key that does the same: with --model the command is refused
	 * for the reason that key is (av_model_ui_refusal) */
	enum av_action like;
};

static bool fail_as(char **error, const char *name, char *cause)
{
	*error = av_printf("%s: %s", name, cause ? cause : _("bad value"));
	free(cause);
	return false;
}

/* The sentence's and the source's causes name their text already ("the
 * source is empty"), as the editor and the command line show them: the
 * command's name before them would say it twice. */
static bool fail_naming_text(char **error, char *cause)
{
	*error = cause ? cause : av_strdup(_("bad value"));
	return false;
}

static bool run_seed(struct av_app *a, const char *name, const char *arg, char **error)
{
	uint64_t seed;
	char *cause = NULL;
	if (!av_parse_seed(arg, &seed, &cause))
		return fail_as(error, name, cause);
	/* new weights: trained ones not saved are asked about first, as r does */
	if (!av_app_ask_seed(a, seed))
		return fail_as(error, name, av_strdup(a->message ? a->message : _("cannot run")));
	return true;
}

static bool run_temp(struct av_app *a, const char *name, const char *arg, char **error)
{
	double T;
	char *cause = NULL;
	/* 0 (no temperature: it would divide by zero) puts it back to 1, as
	 * the 0 key does */
	if (av_number_parse(arg, &T) && T == 0)
		T = 1.0;
	else if (!av_parse_temperature(arg, &T, &cause))
		return fail_as(error, name, cause);
	if (!av_app_set_temperature(a, T))
		return fail_as(error, name, av_strdup(a->message ? a->message : _("cannot run")));
	return true;
}

/* The training view's learning rate: its trainer's when it has one (kept
 * between visits), else the sample's, which a new trainer starts from. */
static bool run_lr(struct av_app *a, const char *name, const char *arg, char **error)
{
	double lr;
	char *cause = NULL;
	/* the range [ and ] keep to, refused in their words */
	if (!av_parse_lr(arg, &lr, &cause) || !av_train_lr_allowed(lr, &cause))
		return fail_as(error, name, cause);
	struct av_trainer *tr = a->train ? a->train->tr : NULL;
	if (tr && !av_trainer_set_lr(tr, lr, &cause))
		return fail_as(error, name, cause);
	a->s->sample.training.lr = lr;
	if (a->view == &av_view_train)
		a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_HEADER;
	av_app_message(a, false, tr ? _("learning rate %g")
		       : _("learning rate %g (the training view, t, starts with it)"), lr);
	return true;
}

/* --restricted: a sentence or source typed here is bounded as one given on
 * the command line is. True + *error when arg is too long. */
static bool too_long(const struct av_app *a, const char *name, const char *arg, char **error)
{
	size_t len = strlen(arg);
	if (!a->restricted || len <= AV_RESTRICTED_MAX_SENTENCE_BYTES)
		return false;
	*error = av_printf(_("%s: restricted mode: at most %d bytes (this text has %zu)"), name,
			   AV_RESTRICTED_MAX_SENTENCE_BYTES, len);
	return true;
}

static bool run_source(struct av_app *a, const char *name, const char *arg, char **error)
{
	struct av_session *s = a->s;
	char *cause = NULL;
	if (too_long(a, name, arg, error))
		return false;
	if (s->cfg.mode == AV_MODE_CROSS) {
		bool same = s->source && strcmp(arg, s->source) == 0;
		if (!av_session_set_source(s, arg, &cause))
			return fail_naming_text(error, cause);
		a->dirty |= AV_DIRTY_ALL;
		av_app_say_source(a, same);
		return true;
	}
	/* not used outside cross mode: checked, kept, and the switch offered */
	struct av_tokens probe = { 0 };
	if (!av_tokenize_source(arg, &probe, &cause))
		return fail_naming_text(error, cause);
	av_tokens_free(&probe);
	free(s->source);
	s->source = av_strdup(arg);
	av_app_offer_cross(a);
	return true;
}

static bool run_sentence(struct av_app *a, const char *name, const char *arg, char **error)
{
	char *cause = NULL;
	if (too_long(a, name, arg, error))
		return false;
	/* the text on screen changes nothing there: said, so that the
	 * command is seen to be read (with --model, a forward under way for
	 * another text is dropped, as Esc in the editor does) */
	bool same = a->s->sentence && strcmp(arg, a->s->sentence) == 0;
	if (a->model) {   /* the model runs on it, as after e (in its worker) */
		if (!av_model_ui_set_sentence(a, arg, &cause))
			return fail_naming_text(error, cause);
		if (av_model_ui_busy(a))
			return true;   /* its end says "sentence: N tokens" */
	} else if (!av_session_set_sentence(a->s, arg, &cause)) {
		return fail_naming_text(error, cause);
	}
	a->dirty |= AV_DIRTY_ALL;
	av_app_say_sentence(a, same);
	return true;
}

static bool run_write(struct av_app *a, const char *name, const char *arg, char **error)
{
	enum av_export_format fmt;
	if (!*arg)
		return fail_as(error, name, av_strdup(_("expected a file name (.json .csv .txt .ans "
						      ".svg)")));
	if (!av_export_format_for_path(arg, &fmt))
		return fail_as(error, name, av_printf(_("no format for \"%s\" (.json .csv .txt "
						      ".ans .svg)"), arg));
	char *cause = NULL;
	if (!av_prompt_write(a, fmt, arg, &cause))
		return fail_as(error, name, cause);
	return true;
}

/* :export's FORMAT: a format's name, or a file extension that names one
 * (:write's rule, so that txt is text, ans ansi and json the trace). */
static bool export_format_named(const char *word, int *fmt)
{
	if (av_enum_parse(av_export_format_names, word, fmt))
		return true;
	char name[48];
	enum av_export_format by_ext;
	snprintf(name, sizeof(name), "x.%s", word);
	if (!av_export_format_for_path(name, &by_ext))
		return false;
	*fmt = (int)by_ext;
	return true;
}

static bool run_export(struct av_app *a, const char *name, const char *arg, char **error)
{
	char word[32];
	size_t k = strcspn(arg, " ");
	snprintf(word, sizeof(word), "%.*s", (int)(k < sizeof(word) ? k : sizeof(word) - 1), arg);
	int fmt;
	/* a bare :export is a question: its usage, not `no format ""` */
	if (!*word)
		return fail_as(error, name, av_strdup(_("expected a format (trace, weights, csv, "
						      "text, ansi, svg)")));
	if (!export_format_named(word, &fmt)) {
		return fail_as(error, name, av_printf(_("no format \"%s\" (trace, weights, csv, text, "
						      "ansi, svg)"), word));
	}
	const char *file = arg + k;
	while (*file == ' ')
		file++;
	if (!*file) {
		/* the name prompt, with the default name to edit */
		char *cause = NULL;
		/* restricted: av_prompt_export says so first, whatever the stage */
		if (!a->restricted && !av_export_available(a, (enum av_export_format)fmt, &cause))
			return fail_as(error, name, cause);
		av_prompt_export(a, (enum av_export_format)fmt);
		return true;
	}
	char *cause = NULL;
	if (!av_prompt_write(a, (enum av_export_format)fmt, file, &cause))
		return fail_as(error, name, cause);
	return true;
}

/* :quit and :q, for hands that type vim's (tig and less take it too): the
 * q key's way out, asking first when training would be lost. */
static bool run_quit(struct av_app *a, const char *name, const char *arg, char **error)
{
	if (*arg)
		return fail_as(error, name, av_printf(_("takes no value, got \"%.40s\""), arg));
	av_app_quit(a);
	return true;
}

static bool run_help(struct av_app *a, const char *name, const char *arg, char **error);

static const struct command commands[] = {
	{ "seed", "N", false, run_seed, AV_ACTION_RESEED },
	{ "temp", "X", false, run_temp, AV_ACTION_TEMP_RESET },
	{ "temperature", "X", false, run_temp, AV_ACTION_TEMP_RESET },
	{ "lr", "X", true, run_lr, AV_ACTION_TRAIN },
	{ "source", "TEXT", false, run_source, AV_ACTION_EDIT_SOURCE },
	{ "sentence", "TEXT", false, run_sentence, AV_ACTION_EDIT_SENTENCE },
	{ "write", "FILE", true, run_write, AV_ACTION_WRITE },
	{ "export", "FORMAT [FILE]", true, run_export, AV_ACTION_WRITE },
	{ "help", "", true, run_help, AV_ACTION_HELP },
	{ "quit", "", true, run_quit, AV_ACTION_QUIT },
	{ "q", "", true, run_quit, AV_ACTION_QUIT },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static bool run_help(struct av_app *a, const char *name, const char *arg, char **error)
{
	(void)name;
	(void)arg;
	(void)error;
	if (a->model)
		av_app_message(a, false, _("with --model: sentence S · quit ([ ] change the layer, "
					   "e edits the sentence)"));
	else
		av_app_message(a, false, _("seed N · temp X · lr X · source S · sentence S · "
					   "write FILE · export FORMAT [FILE] · quit"));
	return true;
}

/* The command's reason not to run on a published model (--model), or
 * NULL: it runs. */
static const char *model_refusal(const struct av_app *a, const struct command *c)
{
	return a->model ? av_model_ui_refusal(c->like) : NULL;
}

bool av_command_run(struct av_app *a, const char *line, char **error)
{
	while (*line == ' ')
		line++;
	size_t k = strcspn(line, " ");
	if (k == 0) {
		*error = av_strdup(_("type a command (help lists them)"));
		return false;
	}
	const char *arg = line + k;
	while (*arg == ' ')
		arg++;
	/* trailing spaces are not part of a value */
	char *value = av_strdup(arg);
	for (size_t n = strlen(value); n > 0 && value[n - 1] == ' '; n--)
		value[n - 1] = '\0';
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strlen(commands[i].name) != k || strncmp(commands[i].name, line, k) != 0)
			continue;
		const char *why = model_refusal(a, &commands[i]);
		if (why) {
			/* as its key: said, and nothing changes (":seed 3" was
			 * refused at ':', and "seed 3" then ran as keys) */
			*error = av_printf(_("%s: %s; with --model: sentence, help, quit"),
					   commands[i].name, why);
			free(value);
			return false;
		}
		if (a->view == &av_view_train && !commands[i].in_training) {
			/* the trainer works on the layer as it was opened */
			*error = av_printf(_("%s: a setting of the stepper (t goes back to it); here: "
					   "lr, write, export"), commands[i].name);
			free(value);
			return false;
		}
		bool ok = commands[i].run(a, commands[i].name, value, error);
		free(value);
		return ok;
	}
	free(value);
	*error = av_printf(_("unknown command \"%.*s\" (help lists them)"), (int)(k < 40 ? k : 40),
			   line);
	return false;
}

int av_command_complete(const struct av_app *a, char *buf, size_t size, char **choices)
{
	*choices = NULL;
	size_t typed = strlen(buf);
	if (strchr(buf, ' '))
		return 1;   /* past the name: nothing to complete */
	const char *first = NULL;
	size_t common = 0;
	int n = 0;
	char list[256] = "";
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const char *name = commands[i].name;
		if (strncmp(name, buf, typed) != 0 || model_refusal(a, &commands[i]))
			continue;
		if (!first) {
			first = name;
			common = strlen(name);
		} else {
			size_t c = 0;
			while (c < common && name[c] == first[c])
				c++;
			common = c;
		}
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", n ? ", " : "",
			 name);
		n++;
	}
	if (n == 0)
		return 0;
	if (common + 2 > size)
		return n;
	memcpy(buf, first, common);
	buf[common] = '\0';
	if (n == 1 && common + 2 <= size)
		strcat(buf, " ");
	if (n > 1)
		*choices = av_strdup(list);
	return n;
}
