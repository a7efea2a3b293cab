/* classroom.h: --lead ROOM and --follow ROOM on the command line (issue
 * 10). Like --restricted they are taken out of argv before the option
 * parser runs (src/cli/options.c is left to the options it has). */
#ifndef AV_CLI_CLASSROOM_H
#define AV_CLI_CLASSROOM_H

#include <stdbool.h>
#include "options.h"
#include "session.h"
#include "ui/ui.h"

struct av_classroom_args {
	char *lead_dir, *follow_dir;   /* the room's directory (malloc'd), or NULL */
};

/* Takes --lead ROOM, --lead=ROOM, --follow ROOM and --follow=ROOM (before a
 * "--") out of argv. One of the two at most; --lead is refused in
 * restricted mode (a student follows). */
bool av_classroom_args(int *argc, char **argv, bool restricted, struct av_classroom_args *c,
		       char **cause);

/* Fills ui's classroom fields: the rooms, and the identity of the data (a
 * hash of the sample's file, or of the built-in sample, or of --weights). */
bool av_classroom_ui(const struct av_classroom_args *c, const struct av_options *o,
		     const struct av_session *s, struct av_ui_config *ui, char **cause);

void av_classroom_args_free(struct av_classroom_args *c);

#endif
