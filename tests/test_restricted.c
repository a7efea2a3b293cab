/* test_restricted.c: what av_restricted_prepare does to the process in
 * --restricted (issue 10): the file size and core limits are 0, TERMINFO,
 * TERMINFO_DIRS, TERMCAP and ATTNVIEW_DATA_DIR are gone before curses or
 * the loaders could read them, samples are looked for in PKGDATADIR alone,
 * and "--restricted" is taken out of argv (but not after "--"). Each case
 * runs in a child process, which reports through a pipe (a regular file
 * could not grow in it); the same calls without --restricted leave all of it
 * alone. Output sent to a regular file is refused before the limit is set,
 * with a message that can still be written. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/restricted.h"
#include "util.h"

/* What the child saw after av_restricted_prepare, one flag each. */
enum {
	SAW_RESTRICTED = 1 << 0,
	SAW_FSIZE_ZERO = 1 << 1,
	SAW_CORE_ZERO = 1 << 2,
	SAW_TERMINFO = 1 << 3,
	SAW_TERMINFO_DIRS = 1 << 4,
	SAW_TERMCAP = 1 << 5,
	SAW_DATA_DIR = 1 << 6,
	SAW_ONLY_PKGDATADIR = 1 << 7,     /* "not found" names PKGDATADIR alone */
	SAW_ARGV_CLEAN = 1 << 8,          /* --restricted out, the one after -- kept */
	SAW_PREPARED = 1 << 9,
	SAW_FILE_REFUSED = 1 << 10        /* "standard output goes to one" */
};

static bool limit_is_zero(int resource)
{
	struct rlimit r;
	return getrlimit(resource, &r) == 0 && r.rlim_cur == 0 && r.rlim_max == 0;
}

/* The "not found" message of a sample that exists only in the build tree's
 * samples folder (qkv-walkthrough when not installed) names PKGDATADIR
 * alone: neither $ATTNVIEW_DATA_DIR nor the build tree are searched. */
static bool searches_pkgdatadir_only(void)
{
	char *cause = NULL;
	av_data_not_found("samples", "sample", "attnview-no-such-sample", NULL, &cause);
	bool only = cause != NULL && strstr(cause, "looked in " PKGDATADIR "/samples;") != NULL;
	free(cause);
	return only;
}

/* Standard output and error: /dev/null (a terminal or a pipe for the
 * mode), or a regular file for output when to_file. */
static void outputs(bool to_file)
{
	int null = open("/dev/null", O_WRONLY);
	char name[] = "/tmp/attnview-restricted-XXXXXX";
	int file = to_file ? mkstemp(name) : -1;
	if (file >= 0)
		unlink(name);
	dup2(file >= 0 ? file : null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
}

static unsigned child(bool restricted, bool to_file)
{
	char a0[] = "attnview", a1[] = "--restricted", a1_off[] = "--print", a2[] = "weights",
	     a3[] = "--", a4[] = "--restricted";
	char *argv[] = { a0, restricted ? a1 : a1_off, a2, a3, a4, NULL };
	int argc = 5;
	bool is = false;
	char *cause = NULL;
	unsigned saw = 0;

	setenv("TERMINFO", "/tmp/attnview-terminfo", 1);
	setenv("TERMINFO_DIRS", "/tmp/attnview-terminfo", 1);
	setenv("TERMCAP", "xx|attnview:co#80:li#24:", 1);
	setenv("ATTNVIEW_DATA_DIR", "/tmp/attnview-data", 1);
	setenv("ATTNVIEW_RESTRICTED_CONF", "/nonexistent/attnview-restricted", 1);
	outputs(to_file);
	if (av_restricted_prepare(&argc, argv, &is, &cause))
		saw |= SAW_PREPARED;
	else if (cause && strstr(cause, "standard output goes to one"))
		saw |= SAW_FILE_REFUSED;
	free(cause);
	saw |= is ? SAW_RESTRICTED : 0;
	saw |= limit_is_zero(RLIMIT_FSIZE) ? SAW_FSIZE_ZERO : 0;
	saw |= limit_is_zero(RLIMIT_CORE) ? SAW_CORE_ZERO : 0;
	saw |= getenv("TERMINFO") ? SAW_TERMINFO : 0;
	saw |= getenv("TERMINFO_DIRS") ? SAW_TERMINFO_DIRS : 0;
	saw |= getenv("TERMCAP") ? SAW_TERMCAP : 0;
	saw |= getenv("ATTNVIEW_DATA_DIR") ? SAW_DATA_DIR : 0;
	saw |= searches_pkgdatadir_only() ? SAW_ONLY_PKGDATADIR : 0;
	if (restricted && argc == 4 && strcmp(argv[1], "weights") == 0 &&
	    strcmp(argv[3], "--restricted") == 0 && argv[4] == NULL)
		saw |= SAW_ARGV_CLEAN;
	return saw;
}

/* Runs child(restricted, to_file) in a new process; its flags. */
static unsigned prepared(bool restricted, bool to_file)
{
	int fds[2];
	unsigned saw = 0;
	int status;

	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		saw = child(restricted, to_file);
		_exit(write(fds[1], &saw, sizeof saw) == (ssize_t)sizeof saw ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &saw, sizeof saw), (ssize_t)sizeof saw);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return saw;
}

static void test_restricted_process(void **state)
{
	(void)state;
	unsigned saw = prepared(true, false);
	assert_true(saw & SAW_PREPARED);
	assert_true(saw & SAW_RESTRICTED);
	assert_true(saw & SAW_FSIZE_ZERO);
	assert_true(saw & SAW_CORE_ZERO);
	assert_false(saw & SAW_TERMINFO);
	assert_false(saw & SAW_TERMINFO_DIRS);
	assert_false(saw & SAW_TERMCAP);
	assert_false(saw & SAW_DATA_DIR);
	assert_true(saw & SAW_ONLY_PKGDATADIR);
	assert_true(saw & SAW_ARGV_CLEAN);
}

/* the control: without --restricted (and no config file) nothing changes,
 * so the flags above are the mode's doing */
static void test_unrestricted_process(void **state)
{
	(void)state;
	if (access(AV_RESTRICTED_CONF, F_OK) == 0)
		skip();    /* this machine's config file may restrict us */
	unsigned saw = prepared(false, false);
	assert_true(saw & SAW_PREPARED);
	assert_false(saw & SAW_RESTRICTED);
	assert_true(saw & SAW_TERMINFO);
	assert_true(saw & SAW_TERMINFO_DIRS);
	assert_true(saw & SAW_TERMCAP);
	assert_true(saw & SAW_DATA_DIR);
	assert_false(saw & SAW_ONLY_PKGDATADIR);
}

/* Output sent to a regular file is refused before the size limit is set,
 * with a message that can still be written (it used to vanish: exit 2 and
 * an empty file). */
static void test_restricted_output_to_a_file(void **state)
{
	(void)state;
	unsigned saw = prepared(true, true);
	assert_false(saw & SAW_PREPARED);
	assert_true(saw & SAW_FILE_REFUSED);
	assert_false(saw & SAW_FSIZE_ZERO);
	assert_true(prepared(false, true) & SAW_PREPARED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restricted_process),
		cmocka_unit_test(test_unrestricted_process),
		cmocka_unit_test(test_restricted_output_to_a_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
