/* test_restricted_ui.c: --restricted on a virtual screen (issue 10, a
 * student's account): the limits the command line enforces hold for what
 * the screen's own keys change, and each refusal is said on the screen:
 *   - the sentence editor stops at 256 bytes and says why;
 *   - :sentence and :source refuse a longer text;
 *   - a training run stops at 1000 epochs (Space, s and S), r starts again;
 *   - W, :write and :export write nothing, and do not even look at the
 *     name (no "overwrite?" question for a file that exists).
 * Each is checked against the same keys without --restricted, so a test
 * cannot pass because the keys did nothing. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "restricted_limits.h"
#include "train.h"
#include "ui_harness.h"
#include "ui/views/view_train_internal.h"

#define ESC "\x1b"
#define CTRL_U "\x15"
#define LONG_BYTES 300

static char dir[64];

/* The built-in sample at 80x24, restricted or not. */
static void open_app(struct harness *h, bool restricted)
{
	assert_true(harness_open(h, "xterm-256color", 80, 24, "", NULL, -1, NULL));
	h->a.restricted = restricted;
}

static const char *status_line(void)
{
	return harness_line(LINES - 1);
}

static void expect_status(const char *text)
{
	if (!harness_status_has(LINES - 1, text)) {
		fprintf(stderr, "not on the status line: \"%s\"\n", text);
		harness_dump();
		fail();
	}
}

/* LONG_BYTES bytes of one word: the editor takes them one key at a time. */
static const char *long_text(void)
{
	static char text[LONG_BYTES + 1];
	memset(text, 'a', LONG_BYTES);
	text[LONG_BYTES] = '\0';
	return text;
}

/* --- the sentence editor -------------------------------------------------- */

static void test_editor_stops_at_the_limit(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, true);
	harness_keys(&h, "e" CTRL_U);
	harness_keys(&h, long_text());
	assert_int_equal(h.a.ed.line.len, AV_RESTRICTED_MAX_SENTENCE_BYTES);
	expect_status("restricted mode: a sentence has at most 256 bytes");
	harness_keys(&h, ESC);
	harness_close(&h);
}

/* the same keys without --restricted: the text goes past 256 bytes */
static void test_editor_unrestricted_goes_on(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, false);
	harness_keys(&h, "e" CTRL_U);
	harness_keys(&h, long_text());
	assert_int_equal(h.a.ed.line.len, LONG_BYTES);
	expect_not("restricted mode");
	harness_keys(&h, ESC);
	harness_close(&h);
}

/* --- the ':' commands ------------------------------------------------------ */

static void command(struct harness *h, const char *name, const char *text)
{
	harness_keys(h, ":");
	harness_keys(h, name);
	harness_keys(h, " ");
	harness_keys(h, text);
	harness_keys(h, "\r");
}

static void test_commands_refuse_long_text(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, true);
	char *before = av_strdup(h.s.sentence);
	command(&h, "sentence", long_text());
	expect_status("sentence: restricted mode: at most 256 bytes (this text has 300)");
	assert_string_equal(h.s.sentence, before);
	harness_keys(&h, ESC);
	command(&h, "source", long_text());
	expect_status("source: restricted mode: at most 256 bytes (this text has 300)");
	assert_true(h.s.source == NULL || strlen(h.s.source) <= AV_RESTRICTED_MAX_SENTENCE_BYTES);
	harness_keys(&h, ESC);
	/* a short one runs as ever */
	command(&h, "sentence", "china panda");
	assert_string_equal(h.s.sentence, "china panda");
	free(before);
	harness_close(&h);
}

/* without --restricted the same command is checked by the tokenizer only
 * (300 bytes of one word is one token: it runs) */
static void test_commands_unrestricted(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, false);
	command(&h, "sentence", long_text());
	expect_not("restricted mode");
	assert_string_equal(h.s.sentence, long_text());
	harness_close(&h);
}

/* --- training: the epoch limit of a live run -------------------------------- */

static struct av_trainer *open_trainer(struct harness *h, int epochs)
{
	harness_keys(h, "t");
	assert_non_null(h->a.train);
	struct av_trainer *tr = h->a.train->tr;
	for (int e = 0; e < epochs; e++)
		av_trainer_epoch(tr);
	assert_int_equal(tr->epoch, epochs);
	return tr;
}

static void run_until_paused(struct harness *h)
{
	for (int i = 0; i < 100000 && av_app_timeout(&h->a) > 0; i++)
		av_app_tick(&h->a);
	av_app_draw(&h->a);
}

static void test_training_stops_at_the_limit(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, true);
	struct av_trainer *tr = open_trainer(&h, AV_RESTRICTED_MAX_EPOCHS - 3);
	harness_keys(&h, "++++++");    /* the fastest speed: many epochs a tick */
	harness_keys(&h, " ");
	assert_true(av_app_timeout(&h.a) > 0);   /* running */
	run_until_paused(&h);
	assert_int_equal(av_app_timeout(&h.a), -1);
	assert_int_equal(tr->epoch, AV_RESTRICTED_MAX_EPOCHS);
	expect_status("restricted mode: training stops at 1000 epochs");
	/* Space, s and S refuse from here */
	harness_keys(&h, " ");
	assert_int_equal(av_app_timeout(&h.a), -1);
	harness_keys(&h, "sS");
	assert_int_equal(tr->epoch, AV_RESTRICTED_MAX_EPOCHS);
	assert_int_equal(tr->next_item, 0);
	expect_status("restricted mode: training stops at 1000 epochs");
	/* r starts again from epoch 0 (after the discard question) */
	harness_keys(&h, "r");
	if (strstr(status_line(), "y/n"))
		harness_keys(&h, "y");
	assert_int_equal(tr->epoch, 0);
	harness_keys(&h, "s");
	assert_int_equal(tr->epoch, 1);
	harness_close(&h);
}

static void test_training_unrestricted_goes_on(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, false);
	struct av_trainer *tr = open_trainer(&h, AV_RESTRICTED_MAX_EPOCHS);
	harness_keys(&h, "s");
	assert_int_equal(tr->epoch, AV_RESTRICTED_MAX_EPOCHS + 1);
	expect_not("restricted mode");
	harness_close(&h);
}

/* --- no file is written --------------------------------------------------- */

/* How many files the current directory (the test's own) holds. */
static int files_here(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void test_nothing_is_written(void **state)
{
	(void)state;
	struct harness h;
	FILE *f = fopen("exists.json", "w");
	assert_non_null(f);
	fputs("{}\n", f);
	fclose(f);
	open_app(&h, true);
	/* at the tokens stage, which has no matrix for a figure, the
	 * restriction is still what is said (it said "no matrix to write") */
	command(&h, "write", "tokens.svg");
	expect_status("restricted: no files are written (tokens.svg)");
	harness_keys(&h, ESC);
	command(&h, "export", "svg");
	expect_status("restricted: no files are written");
	harness_keys(&h, ESC);
	harness_keys(&h, "nnn");    /* a stage with a matrix, for the figures */
	command(&h, "write", "new.json");
	expect_status("restricted: no files are written (new.json)");
	harness_keys(&h, ESC);
	/* an existing file: refused before anything is asked about it */
	command(&h, "write", "exists.json");
	expect_status("restricted: no files are written (exists.json)");
	expect_not("overwrite");
	harness_keys(&h, ESC);
	command(&h, "export", "csv fig.csv");
	expect_status("restricted: no files are written (fig.csv)");
	harness_keys(&h, ESC);
	/* W: said at once, no menu to choose from first */
	harness_keys(&h, "W");
	expect_status("restricted: no files are written");
	expect_not("write: t trace");
	assert_null(h.a.overlay);
	/* :export with a format alone: no name prompt either */
	command(&h, "export", "csv");
	expect_status("restricted: no files are written");
	expect_not("write csv to:");
	harness_keys(&h, ESC);
	/* the training view's weights */
	harness_keys(&h, "ts");
	harness_keys(&h, "W");
	expect_status("restricted: no files are written");
	assert_null(h.a.overlay);
	assert_int_equal(files_here(), 1);
	char *text = NULL, *cause = NULL;
	assert_true(av_read_file("exists.json", &text, NULL, &cause));
	assert_string_equal(text, "{}\n");
	free(text);
	harness_close(&h);
	unlink("exists.json");
}

/* the same keys without --restricted write the files (so the keys above do
 * reach the writers) */
static void test_unrestricted_writes(void **state)
{
	(void)state;
	struct harness h;
	open_app(&h, false);
	harness_keys(&h, "nnn");
	command(&h, "write", "new.json");
	command(&h, "export", "csv fig.csv");
	harness_keys(&h, "Wc\r");
	assert_int_equal(files_here(), 3);
	harness_close(&h);
}

static int in_temp_dir(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/attnview-restricted-XXXXXX");
	if (!mkdtemp(dir) || chdir(dir) != 0)
		return -1;
	return 0;
}

static int remove_temp_dir(void **state)
{
	(void)state;
	DIR *d = opendir(".");
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(e->d_name);
	if (d != NULL)
		closedir(d);
	if (chdir("/") != 0 || rmdir(dir) != 0)
		return -1;
	return 0;
}

int main(void)
{
	harness_setup_process();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_editor_stops_at_the_limit),
		cmocka_unit_test(test_editor_unrestricted_goes_on),
		cmocka_unit_test(test_commands_refuse_long_text),
		cmocka_unit_test(test_commands_unrestricted),
		cmocka_unit_test(test_training_stops_at_the_limit),
		cmocka_unit_test(test_training_unrestricted_goes_on),
		cmocka_unit_test_setup_teardown(test_nothing_is_written, in_temp_dir,
						remove_temp_dir),
		cmocka_unit_test_setup_teardown(test_unrestricted_writes, in_temp_dir,
						remove_temp_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
