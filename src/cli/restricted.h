/* restricted.h: --restricted, the mode for a student's account on a class
 * server (issue 10), where attnview is the sshd ForceCommand. Nothing is
 * written, nothing is read but the installed data, and one student cannot
 * take the server's CPU. It is forced, whatever the command line says, by
 * the config file AV_RESTRICTED_CONF, or the file $ATTNVIEW_RESTRICTED_CONF
 * names (tests use it; a variable can only add restrictions, never lift
 * them). The file holds lines "group NAME" and "teacher NAME" (blank lines
 * and # comments aside): the mode is forced for members of any group named,
 * or for everyone when the file names none; the teacher (a user name or a
 * uid) is the one leader a --follow believes besides its own user. A file that cannot be read, is not a
 * regular file of at most 64 KiB, has any other line, or names a group that
 * does not exist forces it for everyone: a typo must not lift it.
 *
 * The screen gets av_ui_config.restricted and then writes no file (W,
 * :write, :export: view_prompt.c's write_now). Still to do (next step of
 * issue 10): the limits for what the screen's own keys change (the
 * sentence editor, D, H, training epochs). */
#ifndef AV_CLI_RESTRICTED_H
#define AV_CLI_RESTRICTED_H

#include <stdbool.h>
#include <sys/types.h>
#include "options.h"
#include "restricted_limits.h"
#include "session.h"

#define AV_RESTRICTED_CONF "/etc/attnview/restricted"

/* Run first thing in main: takes every "--restricted" before a "--" out of
 * argv (so the option parser never sees it), looks for the system config
 * file, and when restricted: sets RLIMIT_FSIZE and RLIMIT_CORE to 0 (and
 * ignores SIGXFSZ, so a write to a file fails with a message) and
 * removes TERMINFO, TERMINFO_DIRS, TERMCAP and ATTNVIEW_DATA_DIR from the
 * environment (curses must only read the system's terminfo; samples and
 * themes come only from the installed data). false + *cause when a limit
 * cannot be set (restricted mode does not run half-applied). */
bool av_restricted_prepare(int *argc, char **argv, bool *restricted, char **cause);

/* The uid of the config file's "teacher" line (read by
 * av_restricted_prepare), or (uid_t)-1. */
uid_t av_restricted_teacher(void);

/* After parsing: refuses --weights, --dump, a --sample or --theme that is a
 * path rather than a name, and a sentence, source or --train beyond the
 * limits. *cause names the option and says it is restricted. */
bool av_restricted_check_options(const struct av_options *o, char **cause);

/* After setup: the session's D and H within the limits (a sample's config
 * counts as much as --d-model and --heads). */
bool av_restricted_check_session(const struct av_session *s, char **cause);

#endif
