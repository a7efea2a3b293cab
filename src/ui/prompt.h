/* prompt.h: the one-line prompt on the status line (view_prompt.c) and what
 * it runs: the ':' commands (commands.c) and the files W writes
 * (export_screen.c).
 *
 *   :          a command: seed N, temp X, lr X, source TEXT, sentence TEXT,
 *              write FILE, export FORMAT [FILE], help (Tab completes);
 *              with --model sentence TEXT, help and quit
 *   W          a menu of formats, then the file name (a default shown,
 *              editable); an existing file is only replaced after y
 *
 * A bad value keeps the prompt open with the error on the right of the
 * line, so it can be corrected; Esc cancels. */
#ifndef AV_UI_PROMPT_H
#define AV_UI_PROMPT_H

#include <stdbool.h>
#include "export/export.h"

struct av_app;

/* ':' (with --model too: its commands are sentence, help and quit; the
 * others are refused on Enter with the reason their key gives) */
void av_prompt_command(struct av_app *a);
/* 'W': the format menu. */
void av_prompt_export_menu(struct av_app *a);
/* The file name prompt for one format (the menu's second step; also for
 * the training view, which saves its trained weights with
 * AV_EXPORT_WEIGHTS). */
void av_prompt_export(struct av_app *a, enum av_export_format fmt);
/* A y/n question; answer gets true for y, false for n or Esc. */
void av_prompt_ask(struct av_app *a, const char *question,
		   void (*answer)(struct av_app *a, bool yes));
/* Writes fmt to path, asking first when path exists; false + *error when
 * it cannot (the message is also shown). */
bool av_prompt_write(struct av_app *a, enum av_export_format fmt, const char *path,
		     char **error);
void av_prompt_free(struct av_app *a);

/* Whether the open prompt is a line of text (a command, a file name), which
 * pasted text may go into; not W's menu or a y/n question. */
bool av_prompt_takes_text(const struct av_app *a);

/* commands.c: runs one command line; false + *error (malloc'd, starting
 * with the command's name) when it is bad. */
bool av_command_run(struct av_app *a, const char *line, char **error);
/* Completes the command name at the start of buf (size bytes): returns the
 * number of commands that match (with --model, of those that run on a
 * model); a single match is completed with a space after it, several are
 * completed as far as they agree and listed in *choices (malloc'd, "seed,
 * sentence"). */
int av_command_complete(const struct av_app *a, char *buf, size_t size, char **choices);

/* export_screen.c: the default file name for fmt ("attnview-softmax-h0.svg",
 * "attnview-figure2.svg"), malloc'd; and the file's text for the app's
 * current state (what a view of panels shows, the figures or the
 * comparison, else the stepper's stage and head; the trainer's weights
 * while the training view is open), or false + *cause (the tokens stage
 * has no matrix). */
char *av_export_default_name(struct av_app *a, enum av_export_format fmt);
/* Whether fmt can be written from the screen as it is now, without making
 * the file: the trace and the weights always; a figure not from the
 * training view, nor at the tokens stage, nor from a view of panels that
 * shows none. false + *cause (malloc'd) says why. W's menu offers only the
 * formats that can; :write and :export refuse the others with the cause. */
bool av_export_available(struct av_app *a, enum av_export_format fmt, char **cause);
/* Whether fmt is a figure format (CSV, text, ANSI, SVG: the matrices on
 * screen), not the trace or the weights. */
bool av_export_is_figure(enum av_export_format fmt);
/* offered[f]: av_export_available for every format, the figure formats
 * asked once (a view of panels builds them to answer): W's menu. */
void av_export_offered(struct av_app *a, bool offered[AV_EXPORT_COUNT]);
bool av_export_render(struct av_app *a, enum av_export_format fmt, char **text,
		      char **cause);

#endif
