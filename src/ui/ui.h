/* ui.h: the screen as the command line sees it: one function, and no
 * curses in sight (main.c stays free of curses' macros). */
#ifndef AV_UI_UI_H
#define AV_UI_UI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "session.h"

struct av_gpt2;

/* What the command line hands the screen. */
struct av_ui_config {
	const char *theme;   /* --theme NAME|PATH, or NULL for dark */
	int head;            /* --head */
	bool no_color;       /* colour forbidden (--color=never); NO_COLOR is read too */
	const struct av_lesson *lesson;   /* --lesson, or NULL */
	int lesson_step;     /* --step: the lesson's step to open on, from 1 (0: the first) */
	/* the classroom (issue 10): --lead's or --follow's room directory (at
	 * most one), the sample's or weights' identity, the teacher's uid */
	const char *lead_dir, *follow_dir;
	uint64_t content_hash;       /* FNV-1a 64 of the sample or weights file */
	const char *weights_name;    /* the --weights file's name, or NULL */
	uid_t teacher_uid;           /* a leader to believe besides our own uid, or -1 */
	bool restricted;             /* --restricted: the screen writes no file */
	/* --model (issue 12): a loaded GPT-2 whose layer gpt2_layer the
	 * stepper shows for the session's sentence (view_model.c), or NULL */
	const struct av_gpt2 *gpt2;
	const char *gpt2_name;       /* the model's name for the header */
	int gpt2_layer;
	const char *notice;          /* said on the status line at the start, or NULL */
};

/* The interactive screen on the terminal (stdin/stdout must be one): the
 * loop until q, then the terminal restored. Returns false with *cause for
 * errors found before the screen opens (a bad theme, an unusable TERM). On
 * SIGINT, SIGTERM or SIGHUP it restores the terminal and dies of the
 * signal, as a shell expects. */
bool av_ui_run(struct av_session *s, const struct av_ui_config *cfg, char **cause);

#endif
