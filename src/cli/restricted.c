/* restricted.c: --restricted (see restricted.h). */
#include "config.h"

#include "i18n.h"
#include "restricted.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "i18n.h"
#include "json_read.h"
#include "util.h"

/* True when an argument names a file rather than an installed sample or
 * theme: av_data_find treats these as paths. */
static bool is_path(const char *name_or_path)
{
	size_t len = strlen(name_or_path);

	return strchr(name_or_path, '/') != NULL ||
	       (len >= 5 && strcmp(name_or_path + len - 5, ".json") == 0);
}

static bool in_group(gid_t gid)
{
	gid_t groups[256];
	int n = getgroups(256, groups);

	if (gid == getgid() || gid == getegid())
		return true;
	for (int i = 0; i < n; i++)
		if (groups[i] == gid)
			return true;
	return n < 0;    /* cannot tell: count as a member (fail closed) */
}

/* The teacher named by "teacher NAME" (a user name or a uid), or -1. */
static uid_t teacher_uid = (uid_t)-1;

static bool set_teacher(const char *name)
{
	struct passwd *pw = getpwnam(name);
	char *end;
	unsigned long uid;

	if (pw != NULL) {
		teacher_uid = pw->pw_uid;
		return true;
	}
	uid = strtoul(name, &end, 10);
	if (*name == '\0' || *end != '\0' || uid >= (unsigned long)(uid_t)-1)
		return false;
	teacher_uid = (uid_t)uid;
	return true;
}

uid_t av_restricted_teacher(void)
{
	return teacher_uid;
}

/* One line of the config file: blank, a # comment, "group NAME" or
 * "teacher NAME". Sets *any_group when it names a group, *member when we
 * are in it. False for anything else (and for a teacher who does not
 * exist). */
static bool config_line(char *line, bool *any_group, bool *member)
{
	char *word = strtok(line, " \t\r"), *name, *extra;
	struct group *g;

	if (word == NULL || word[0] == '#')
		return true;
	name = strtok(NULL, " \t\r");
	extra = strtok(NULL, " \t\r");
	if (name == NULL || (extra != NULL && extra[0] != '#'))
		return false;
	if (strcmp(word, "teacher") == 0)
		return set_teacher(name);
	if (strcmp(word, "group") != 0)
		return false;
	*any_group = true;
	g = getgrnam(name);
	if (g == NULL || in_group(g->gr_gid))
		*member = true;    /* an unknown group restricts everyone */
	return true;
}

/* Says on stderr why a config file restricts everyone (the teacher, who
 * then cannot --lead, has to know what to fix). */
static bool forced_for_everyone(const char *path, const char *why)
{
	fprintf(stderr, _("attnview: %s: %s; restricted mode for every user until it is"
			  " fixed (see attnview(1), FILES)\n"), path, why);
	return true;
}

/* Who may own the config file and its directory: root, and for the file a
 * test names in $ATTNVIEW_RESTRICTED_CONF also ourselves (that file can only
 * add restrictions, never lift them). */
static bool trusted_owner(uid_t uid, bool system)
{
	return uid == 0 || (!system && uid == geteuid());
}

/* The file and its directory are safe from the people it restricts: a
 * regular file (not a symbolic link) of at most 64 KiB, owned by root,
 * writable by no group or other, in a directory of root's that no one else
 * can add to or rename in (unless it is sticky, as /tmp is). A student who
 * could edit or replace the file could lift the mode. */
static bool safe_file(const char *path, const struct stat *st, bool system)
{
	char *dir = av_strdup(path), *slash = strrchr(dir, '/');
	struct stat dst;
	bool ok = true;

	if (slash == dir)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	if (!S_ISREG(st->st_mode))
		ok = !forced_for_everyone(path, _("not a regular file"));
	else if (st->st_size > 65536)
		ok = !forced_for_everyone(path, _("larger than 64 KiB"));
	else if (!trusted_owner(st->st_uid, system))
		ok = !forced_for_everyone(path, _("not owned by root"));
	else if (st->st_mode & (S_IWGRP | S_IWOTH))
		ok = !forced_for_everyone(path, _("writable by its group or others"));
	else if (stat(slash != NULL ? dir : ".", &dst) != 0 ||
		 !trusted_owner(dst.st_uid, system) ||
		 ((dst.st_mode & (S_IWGRP | S_IWOTH)) && !(dst.st_mode & S_ISVTX)))
		ok = !forced_for_everyone(path, _("in a directory that is not root's alone"));
	free(dir);
	return ok;
}

/* Whether the config file at path makes this user restricted: yes when it
 * exists and names no group, or names one of ours. A file that cannot be
 * read or parsed, or that a student could change (safe_file), restricts
 * everyone: a typo or a chmod must not lift the mode. */
static bool forced_by(const char *path, bool system)
{
	char *text, *line, *save = NULL;
	size_t len;
	bool any_group = false, member = false, ok = true;
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno != ENOENT && forced_for_everyone(path, strerror(errno));
	if (!safe_file(path, &st, system))
		return true;
	if (!av_read_file(path, &text, &len, NULL))
		return forced_for_everyone(path, _("unreadable"));
	for (line = strtok_r(text, "\n", &save); line != NULL && ok;
	     line = strtok_r(NULL, "\n", &save))
		ok = config_line(line, &any_group, &member);
	free(text);
	if (!ok)
		return forced_for_everyone(path, _("a line that is not \"group NAME\","
						   " \"teacher NAME\" or a comment, or a teacher"
						   " who does not exist"));
	return !any_group || member;
}

static bool forced_by_file(void)
{
	const char *env = getenv("ATTNVIEW_RESTRICTED_CONF");

	return forced_by(AV_RESTRICTED_CONF, true) ||
	       (env != NULL && env[0] != '\0' && forced_by(env, false));
}

static bool is_regular_file(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

static bool apply(char **cause)
{
	const struct rlimit none = { 0, 0 };

	/* with the size limit a write to a file fails: output or messages sent
	 * to one would be lost ("2>err" gave an empty err and exit 2), so that
	 * is said now, while it can still be written */
	if (is_regular_file(STDOUT_FILENO))
		return av_fail(cause, _("restricted mode writes no files, but standard output goes to "
			       "one: send it to the terminal or a pipe (| less)"));
	if (is_regular_file(STDERR_FILENO))
		return av_fail(cause, _("restricted mode writes no files, but standard error goes to "
			       "one: send it to the terminal or a pipe"));
	if (setrlimit(RLIMIT_FSIZE, &none) != 0 || setrlimit(RLIMIT_CORE, &none) != 0)
		return av_fail(cause, _("restricted mode: cannot set the file size limits"));
	/* a write to a file then fails (EFBIG) and is reported, rather than
	 * killing the program */
	signal(SIGXFSZ, SIG_IGN);
	unsetenv("TERMINFO");
	unsetenv("TERMINFO_DIRS");
	unsetenv("TERMCAP");
	unsetenv("ATTNVIEW_DATA_DIR");
	/* nor the build tree's data: its compiled-in path may not exist here,
	 * and anyone could create it */
	av_data_installed_only();
	return true;
}

bool av_restricted_prepare(int *argc, char **argv, bool *restricted, char **cause)
{
	int out = 1;
	bool operands = false;

	*restricted = false;
	for (int i = 1; i < *argc; i++) {
		if (!operands && strcmp(argv[i], "--") == 0)
			operands = true;
		if (!operands && strncmp(argv[i], "--restricted", 12) == 0 &&
		    (argv[i][12] == '\0' || argv[i][12] == '=')) {
			if (argv[i][12] == '=')
				return av_fail(cause, _("--restricted takes no value"));
			*restricted = true;
			continue;
		}
		argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
	if (forced_by_file())
		*restricted = true;
	return !*restricted || apply(cause);
}

static bool refuse(char **cause, const char *what)
{
	return av_fail(cause, _("%s is not allowed in restricted mode (a student account on a"
		       " class server: nothing is written, only the installed data is read)"), what);
}

bool av_restricted_check_options(const struct av_options *o, char **cause)
{
	/* --train needs --dump, refused below: said here, or the message
	 * would be "--train needs --dump" and then "--dump is not allowed" */
	if (o->train_epochs > 0)
		return av_fail(cause, _("restricted mode: --train writes its weights with --dump, "
			       "which is not allowed; t trains on the screen (up to %d epochs)"),
			       AV_RESTRICTED_MAX_EPOCHS);
	if (o->weights != NULL)
		return refuse(cause, _("--weights"));
	if (o->dump != NULL)
		return refuse(cause, _("--dump"));
	if (o->sample != NULL && is_path(o->sample))
		return refuse(cause, _("--sample with a file (give an installed sample's name)"));
	if (o->theme != NULL && is_path(o->theme))
		return refuse(cause, _("--theme with a file (give dark, light or mono)"));
	if (o->lesson != NULL && is_path(o->lesson))
		return refuse(cause, _("--lesson with a file (give an installed lesson's name)"));
	if (o->sentence != NULL && strlen(o->sentence) > AV_RESTRICTED_MAX_SENTENCE_BYTES)
		return av_fail(cause, _("restricted mode: the sentence is longer than %d bytes"),
			       AV_RESTRICTED_MAX_SENTENCE_BYTES);
	if (o->source != NULL && strlen(o->source) > AV_RESTRICTED_MAX_SENTENCE_BYTES)
		return av_fail(cause, _("restricted mode: --source is longer than %d bytes"),
			       AV_RESTRICTED_MAX_SENTENCE_BYTES);
	/* before the forward pass runs: a D=4096 refused afterwards would
	 * already have cost the CPU the limit is there to save */
	if ((o->cfg_given & AV_CFG_D_MODEL) && o->cfg.d_model > AV_RESTRICTED_MAX_D_MODEL)
		return av_fail(cause, _("restricted mode: --d-model %d is more than %d"),
			       o->cfg.d_model, AV_RESTRICTED_MAX_D_MODEL);
	if ((o->cfg_given & AV_CFG_HEADS) && o->cfg.heads > AV_RESTRICTED_MAX_HEADS)
		return av_fail(cause, _("restricted mode: --heads %d is more than %d"),
			       o->cfg.heads, AV_RESTRICTED_MAX_HEADS);
	return true;
}

bool av_restricted_check_session(const struct av_session *s, char **cause)
{
	if (s->cfg.d_model > AV_RESTRICTED_MAX_D_MODEL)
		return av_fail(cause, _("restricted mode: D=%d is more than %d"), s->cfg.d_model,
			       AV_RESTRICTED_MAX_D_MODEL);
	if (s->cfg.heads > AV_RESTRICTED_MAX_HEADS)
		return av_fail(cause, _("restricted mode: H=%d is more than %d heads"), s->cfg.heads,
			       AV_RESTRICTED_MAX_HEADS);
	return true;
}
