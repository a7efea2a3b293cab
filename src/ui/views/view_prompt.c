/* view_prompt.c: the one-line prompt, an overlay on the status line (see
 * prompt.h): the ':' command line, W's menu of formats and its file name,
 * and y/n questions (an existing file, the switch to cross mode). The
 * text is edited with the sentence editor's keys (line_edit.c). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/keyboard.h"
#include "ui/prompt.h"
#include "util.h"

#define PATH_BYTES 1024     /* a file name typed at the prompt, at most */

enum prompt_kind { PK_COMMAND, PK_MENU, PK_FILE, PK_CONFIRM };

struct av_prompt {
	enum prompt_kind kind;
	struct av_line line;
	char *error;                       /* shown on the right until the next key */
	enum av_export_format fmt;         /* PK_FILE (and its overwrite question) */
	char *question;                    /* PK_CONFIRM */
	void (*answer)(struct av_app *a, bool yes);
	bool overwrite;                    /* the question is "overwrite?": n goes back */
	enum av_export_format named;       /* the format a disagreeing name says */
	char *path;                        /* the file the question is about */
	bool offered[AV_EXPORT_COUNT];     /* PK_MENU: its formats (export_menu) */
};

static struct av_prompt *state(struct av_app *a)
{
	if (!a->prompt)
		a->prompt = av_calloc(1, sizeof(*a->prompt));
	return a->prompt;
}

static void set_error(struct av_prompt *p, char *error)
{
	free(p->error);
	p->error = error;
}

static void open_kind(struct av_app *a, enum prompt_kind kind, const char *text, size_t limit)
{
	struct av_prompt *p = state(a);
	set_error(p, NULL);
	p->kind = kind;
	av_line_set(&p->line, text, limit);
	a->overlay = &av_view_prompt;
	a->dirty |= AV_DIRTY_STATUS;
}

static void close_prompt(struct av_app *a)
{
	if (a->overlay == &av_view_prompt)
		a->overlay = NULL;
	set_error(state(a), NULL);
	a->dirty |= AV_DIRTY_ALL;
}

void av_prompt_free(struct av_app *a)
{
	struct av_prompt *p = a->prompt;
	if (!p)
		return;
	free(p->error);
	free(p->question);
	free(p->path);
	free(p);
	a->prompt = NULL;
}

bool av_prompt_takes_text(const struct av_app *a)
{
	const struct av_prompt *p = a->prompt;
	return p && (p->kind == PK_COMMAND || p->kind == PK_FILE);
}

void av_prompt_command(struct av_app *a)
{
	open_kind(a, PK_COMMAND, "", AV_LINE_BYTES - 1);
}

/* --restricted: W and ":export FORMAT" say at once that nothing is
 * written, rather than after a format and a name were chosen. */
static bool refused_at_once(struct av_app *a)
{
	if (a->restricted)
		av_app_message(a, true, "%s", _("restricted: no files are written"));
	return a->restricted;
}

/* The formats are asked for once, here: a view of panels builds its
 * panels to answer (the comparison recomputes its live matrix and Δ), and
 * the menu asked on every frame, four times a frame while it showed an
 * error (the message box's prepare and draw, the long-text check, the menu
 * itself). Nothing the answer depends on (the view, its stage or panels)
 * changes while the menu has the keys, and the key that picks a format is
 * checked again then (menu_key). */
void av_prompt_export_menu(struct av_app *a)
{
	if (refused_at_once(a))
		return;
	av_export_offered(a, state(a)->offered);
	open_kind(a, PK_MENU, "", 0);
}

void av_prompt_export(struct av_app *a, enum av_export_format fmt)
{
	if (refused_at_once(a))
		return;
	char *name = av_export_default_name(a, fmt);
	open_kind(a, PK_FILE, name, PATH_BYTES);
	free(name);
	state(a)->fmt = fmt;
}

void av_prompt_ask(struct av_app *a, const char *question,
		   void (*answer)(struct av_app *a, bool yes))
{
	struct av_prompt *p = state(a);
	free(p->question);
	p->question = av_strdup(question);
	p->answer = answer;
	p->overwrite = false;
	open_kind(a, PK_CONFIRM, "", 0);
}

/* --- writing ------------------------------------------------------------- */

/* The full path of a written file, for the message. */
static char *full_path(const char *path)
{
	char *real = realpath(path, NULL);
	return real ? real : av_strdup(path);
}

/* --restricted: every write of the screen (W, :write, :export, the
 * training view's save) is refused here, before the name is even looked up
 * (nothing outside the installed data is read, not even whether a file
 * exists). True + *error and the message when refused. */
static bool refuse_write(struct av_app *a, const char *path, char **error)
{
	if (!a->restricted)
		return false;
	*error = av_printf(_("restricted: no files are written (%s)"), path);
	av_app_message(a, true, "%s", *error);
	return true;
}

/* Why a figure written from this view is not what it shows (the heads
 * view's every head), or NULL: said with "wrote", not left to surprise. */
static const char *figure_note(const struct av_app *a, enum av_export_format fmt)
{
	return av_export_is_figure(fmt) && a->view->export_note ? _(a->view->export_note) : NULL;
}

/* Whether a file of format fmt holds the trained weights, which are then
 * safe (q no longer asks): the weights, or a trace of them (a trace is a
 * weights file), from the training view or from the stepper showing them. */
static bool saves_training(const struct av_app *a, enum av_export_format fmt)
{
	int epochs, steps;
	if (fmt == AV_EXPORT_WEIGHTS)
		return true;
	return fmt == AV_EXPORT_TRACE && (a->view == &av_view_train ||
					  av_train_view_weights_trained(a, &epochs, &steps));
}

static bool write_now(struct av_app *a, enum av_export_format fmt, const char *path,
		      char **error)
{
	char *text = NULL, *cause = NULL;
	if (refuse_write(a, path, error))
		return false;
	char *failed = NULL;
	if (!av_export_render(a, fmt, &text, &cause)) {
		failed = av_printf("%s: %s", path, cause ? cause : _("cannot write"));
		free(cause);
	} else if (!av_write_file_atomic_now(path, text, strlen(text), &cause)) {
		/* the writer's causes name the file */
		failed = cause ? cause : av_printf("%s: %s", path, _("cannot write"));
	}
	if (failed) {
		free(text);
		av_app_message(a, true, "%s", failed);
		*error = failed;
		return false;
	}
	size_t bytes = strlen(text);
	free(text);
	if (saves_training(a, fmt))
		av_train_view_mark_saved(a);
	char *full = full_path(path);
	char *wrote = av_printf(P_("wrote %s (%zu byte)", "wrote %s (%zu bytes)", bytes), full,
				bytes);
	const char *note = figure_note(a, fmt);
	/* a trace or weights file is read back by --weights, up to its limit */
	if (!note && (fmt == AV_EXPORT_TRACE || fmt == AV_EXPORT_WEIGHTS) &&
	    bytes > AV_MAX_WEIGHTS_FILE)
		note = _("more than the 64 MiB --weights reads: attnview cannot load it back");
	if (note)
		av_app_message(a, false, _("%s: %s"), wrote, note);
	else
		av_app_message(a, false, "%s", wrote);
	free(wrote);
	free(full);
	return true;
}

static void overwrite_answer(struct av_app *a, bool yes)
{
	struct av_prompt *p = state(a);
	char *path = p->path;
	p->path = NULL;
	if (yes) {
		char *error = NULL;
		write_now(a, p->fmt, path, &error);
		free(error);
	} else if (p->overwrite) {
		/* back to the name, to change it */
		open_kind(a, PK_FILE, path, PATH_BYTES);
		set_error(p, av_strdup(_("not overwritten: edit the name")));
	} else {
		av_app_message(a, false, _("%s not written"), path);
	}
	free(path);
}

static bool ask_overwrite(struct av_app *a, enum av_export_format fmt, const char *path,
			  bool back_to_name)
{
	struct av_prompt *p = state(a);
	char *question = av_printf(_("file exists: overwrite %s? y/n"), path);
	av_prompt_ask(a, question, overwrite_answer);
	free(question);
	p->overwrite = back_to_name;
	p->fmt = fmt;
	free(p->path);
	p->path = av_strdup(path);
	return true;
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* The file a typed name means (a leading ~/ is the home folder), malloc'd;
 * NULL + *error for no name or a folder. */
static char *target_path(const char *typed, char **error)
{
	const char *home = getenv("HOME");
	if (!*typed) {
		*error = av_strdup(_("type a file name"));
		return NULL;
	}
	char *path = strncmp(typed, "~/", 2) == 0 && home && *home
		     ? av_printf("%s/%s", home, typed + 2) : av_strdup(typed);
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		*error = av_printf(_("%s is a directory: add a file name"), typed);
		free(path);
		return NULL;
	}
	return path;
}

bool av_prompt_write(struct av_app *a, enum av_export_format fmt, const char *typed,
		     char **error)
{
	char *cause = NULL;
	/* a restricted account writes nothing, whatever the stage: that is
	 * said first (the stage's reason sent a student to step on, to be
	 * refused there) */
	if (refuse_write(a, typed, error))
		return false;
	/* a figure at the tokens stage: say so before asking anything */
	if (!av_export_available(a, fmt, &cause)) {
		*error = cause ? cause : av_strdup(_("nothing to write"));
		return false;
	}
	char *path = target_path(typed, error);
	if (!path)
		return false;
	bool ok;
	if (exists(path)) {
		ok = ask_overwrite(a, fmt, path, false);
	} else {
		close_prompt(a);
		ok = write_now(a, fmt, path, error);
	}
	free(path);
	return ok;
}

/* --- keys ---------------------------------------------------------------- */

static void command_key(struct av_app *a, struct av_prompt *p, int key)
{
	switch (av_line_key(&p->line, key)) {
	case AV_LINE_APPLY: {
		char *line = av_strdup(p->line.buf), *error = NULL;
		close_prompt(a);
		if (!av_command_run(a, line, &error)) {
			/* stay open with the text, to correct it */
			open_kind(a, PK_COMMAND, line, AV_LINE_BYTES - 1);
			set_error(p, error);
		}
		free(line);
		return;
	}
	case AV_LINE_CANCEL:
		close_prompt(a);
		return;
	case AV_LINE_UNUSED:
		if (av_edit_action_for_key(key) == AV_EDIT_COMPLETE) {
			char *choices = NULL;
			int n = av_command_complete(a, p->line.buf, p->line.limit + 1,
							    &choices);
			p->line.len = p->line.cur = strlen(p->line.buf);
			set_error(p, n == 0 ? av_strdup(_("no command starts so (help lists them)"))
				  : n > 1 ? choices : NULL);
			if (n <= 1)
				free(choices);
		}
		return;
	case AV_LINE_FULL:
		set_error(p, av_strdup(_("the line is at its length limit")));
		return;
	case AV_LINE_CHANGED: case AV_LINE_MOVED:
		set_error(p, NULL);
		return;
	}
}

static void menu_key(struct av_app *a, struct av_prompt *p, int key)
{
	if (key == AV_KEY_ESC) {
		close_prompt(a);
		return;
	}
	const char *hit = key > 0 && key < 128 ? strchr(av_export_keys, key) : NULL;
	if (!hit || !*hit) {
		set_error(p, av_strdup(_("not one of these (Esc)")));
		return;
	}
	enum av_export_format fmt = (enum av_export_format)(hit - av_export_keys);
	char *cause = NULL;
	if (!av_export_available(a, fmt, &cause)) {
		/* the menu stays open with the reason: closed, it let the keys
		 * of a file name typed next run as commands */
		set_error(p, cause ? cause : av_strdup(_("nothing to write")));
		return;
	}
	av_prompt_export(a, fmt);
}

/* The format a file name's extension names, when it is not fmt: W c with
 * the name edited to "fig.svg" would write CSV into it (a .json is either
 * JSON document). False when the name says nothing or agrees. */
static bool name_disagrees(const char *path, enum av_export_format fmt,
			   enum av_export_format *named)
{
	if (!av_export_format_for_path(path, named) || *named == fmt)
		return false;
	return !(*named == AV_EXPORT_TRACE && fmt == AV_EXPORT_WEIGHTS);
}

/* The name prompt's file: the overwrite question when it exists, else
 * written now (on an error the name prompt is open with it). */
static void write_named(struct av_app *a, struct av_prompt *p, const char *path)
{
	char *error = NULL;
	if (exists(path)) {
		ask_overwrite(a, p->fmt, path, true);
	} else if (!write_now(a, p->fmt, path, &error)) {
		/* open (again, after a question): another name may do */
		if (a->overlay != &av_view_prompt)
			open_kind(a, PK_FILE, path, PATH_BYTES);
		set_error(p, error);
	} else {
		close_prompt(a);
	}
}

static void extension_answer(struct av_app *a, bool yes)
{
	struct av_prompt *p = state(a);
	char *path = p->path;
	p->path = NULL;
	if (yes) {
		write_named(a, p, path);
	} else {
		open_kind(a, PK_FILE, path, PATH_BYTES);
		set_error(p, av_printf(_("not written: edit the name, or Esc and W %c for %s"),
				       av_export_keys[p->named], av_export_format_names[p->named]));
	}
	free(path);
}

static void file_key(struct av_app *a, struct av_prompt *p, int key)
{
	switch (av_line_key(&p->line, key)) {
	case AV_LINE_APPLY: {
		char *error = NULL, *copy = NULL;
		if (!refuse_write(a, p->line.buf, &error))
			copy = target_path(p->line.buf, &error);
		if (!copy) {
			set_error(p, error);
			return;
		}
		enum av_export_format named;
		if (name_disagrees(copy, p->fmt, &named)) {
			/* asked, not written in silence into a name that says
			 * another format */
			char *question = av_printf(_("%s: the name says %s, but this writes "
						     "%s: write %s? y/n"), copy,
						   av_export_format_names[named],
						   av_export_format_names[p->fmt],
						   av_export_format_names[p->fmt]);
			enum av_export_format fmt = p->fmt;
			av_prompt_ask(a, question, extension_answer);
			free(question);
			p->fmt = fmt;
			p->named = named;
			free(p->path);
			p->path = copy;
			return;
		}
		write_named(a, p, copy);
		free(copy);
		return;
	}
	case AV_LINE_CANCEL:
		close_prompt(a);
		av_app_message(a, false, _("nothing written"));
		return;
	case AV_LINE_FULL:
		set_error(p, av_strdup(_("the name is at its length limit")));
		return;
	case AV_LINE_CHANGED: case AV_LINE_MOVED: case AV_LINE_UNUSED:
		set_error(p, NULL);
		return;
	}
}

static void confirm_key(struct av_app *a, struct av_prompt *p, int key)
{
	bool yes = key == 'y' || key == 'Y';
	if (!yes && key != 'n' && key != 'N' && key != AV_KEY_ESC) {
		set_error(p, av_strdup(_("y or n")));
		return;
	}
	void (*answer)(struct av_app *, bool) = p->answer;
	close_prompt(a);
	if (answer)
		answer(a, yes);
}

static bool prompt_key(struct av_app *a, int key, enum av_action act)
{
	(void)act;
	struct av_prompt *p = state(a);
	if (key == AV_KEY_NOT_UTF8 && p->kind != PK_CONFIRM) {   /* confirm: "y or n" */
		set_error(p, av_strdup(av_keyboard_not_utf8_text()));
		a->dirty |= AV_DIRTY_STATUS;
		return true;
	}
	switch (p->kind) {
	case PK_COMMAND: command_key(a, p, key); break;
	case PK_MENU: menu_key(a, p, key); break;
	case PK_FILE: file_key(a, p, key); break;
	case PK_CONFIRM: confirm_key(a, p, key); break;
	}
	a->dirty |= AV_DIRTY_STATUS;
	return true;
}

/* --- drawing ------------------------------------------------------------- */

/* Columns of W's menu before its tail: "write: t trace  w weights  ...",
 * or the keys alone ("write: t w c p a s") when brief. */
static int menu_width(const bool offered[AV_EXPORT_COUNT], bool brief)
{
	int x = av_text_width(_("write: "));
	for (int f = 0; f < AV_EXPORT_COUNT; f++)
		if (offered[f])
			x += brief ? 2 : 4 + av_text_width(av_export_format_names[f]);
	return x;
}

static bool menu_is_brief(const bool offered[AV_EXPORT_COUNT], int width)
{
	return menu_width(offered, false) > width;
}

static void file_label(const struct av_prompt *p, char *label, size_t size)
{
	snprintf(label, size, _("write %s to: "), av_export_format_names[p->fmt]);
}

/* The prompt's text its status line cannot show whole: an error, or a
 * question about a long file name (its "y/n" was cut); the app shows it
 * above the line. */
static const char *prompt_long_text(struct av_app *a, int width, bool *error)
{
	struct av_prompt *p = state(a);
	*error = true;
	char label[64];
	switch (p->kind) {
	case PK_COMMAND:
		return p->error && !av_line_error_fits(":", p->error, width) ? p->error : NULL;
	case PK_FILE:
		file_label(p, label, sizeof(label));
		return p->error && !av_line_error_fits(label, p->error, width) ? p->error : NULL;
	case PK_MENU: {
		if (!p->error)
			return NULL;
		int x = menu_width(p->offered, menu_is_brief(p->offered, width));
		return x + av_text_width(p->error) > width ? p->error : NULL;
	}
	case PK_CONFIRM:
		*error = p->error != NULL;
		return p->question && av_text_width(p->question) > width ? p->question : NULL;
	}
	return NULL;
}

static void draw_menu(struct av_app *a, struct av_prompt *p, bool error_above)
{
	WINDOW *w = a->w_status;
	const struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	werase(w);
	const bool *offered = p->offered;
	bool brief = menu_is_brief(offered, width);
	int x = av_put(w, 0, 0, _("write: "), width, av_colors_el(c, AV_EL_TITLE));
	for (int f = 0; f < AV_EXPORT_COUNT; f++) {
		if (!offered[f])
			continue;
		char key[2] = { av_export_keys[f], '\0' };
		char word[32];
		snprintf(word, sizeof(word), brief ? " " : " %s  ", av_export_format_names[f]);
		x += av_put(w, 0, x, key, width - x, av_colors_el(c, AV_EL_HIGHLIGHT));
		x += av_put(w, 0, x, word, width - x, av_colors_el(c, AV_EL_NORMAL));
	}
	bool error = p->error && !error_above;
	const char *tail = error ? p->error : brief ? _("Esc") : _("Esc cancels");
	if (x + av_text_width(tail) <= width)
		av_put(w, 0, x, tail, width - x, av_colors_el(c, error ? AV_EL_ERROR : AV_EL_DIM));
}

static void prompt_draw(struct av_app *a)
{
	struct av_prompt *p = state(a);
	WINDOW *w = a->w_status;
	if (!w)
		return;
	bool error_style;
	/* a text shown above the line is not cut here as well */
	bool above = prompt_long_text(a, getmaxx(w), &error_style) != NULL;
	const char *error = above ? NULL : p->error;
	switch (p->kind) {
	case PK_COMMAND:
		av_line_draw(w, &a->colors, ":", &p->line,
			     error ? error : above ? "" : _("Tab completes  Enter  Esc"), error != NULL);
		break;
	case PK_FILE: {
		char label[64];
		file_label(p, label, sizeof(label));
		av_line_draw(w, &a->colors, label, &p->line,
			     error ? error : above ? "" : _("Enter writes  Esc"), error != NULL);
		break;
	}
	case PK_MENU:
		draw_menu(a, p, above);
		break;
	case PK_CONFIRM:
		werase(w);
		av_put_pad(w, 0, 0, above ? "y/n" : p->question ? p->question : "y/n", getmaxx(w),
			   av_colors_el(&a->colors, p->error ? AV_EL_ERROR : AV_EL_TITLE));
		break;
	}
}

static void prompt_resize(struct av_app *a)
{
	if (a->prompt)
		a->prompt->line.scroll = 0;
}

const struct av_view av_view_prompt = {
	.name = "prompt",
	.owns_status = true,
	.long_text = prompt_long_text,
	.draw = prompt_draw,
	.key = prompt_key,
	.resize = prompt_resize,
};
