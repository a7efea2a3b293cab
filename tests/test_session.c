/* test_session.c: a session across many runs, as the screen drives it. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "session.h"
#include "train.h"
#include "trace_json.h"
#include "util.h"
#include "weights.h"

static void setup_session(struct av_session *s)
{
	memset(s, 0, sizeof(*s));
	char *cause = NULL;
	assert_true(av_sample_load_builtin(&s->sample, &cause));
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup("china koala");
	assert_true(av_session_run(s, &cause));
}

/* Unknown words are flagged on every run, not only the first, and typing
 * one sentence after another does not grow the vocabulary. */
static void test_unknown_words_every_run(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	assert_true(s.trace.oov[1]);
	assert_true(av_session_run(&s, &cause));
	assert_true(s.trace.oov[1]);
	assert_false(s.trace.oov[0]);
	const char *typed[] = { "k", "ko", "koa", "koal", "koala bear", "china koala" };
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++)
		assert_true(av_session_set_sentence(&s, typed[i], &cause));
	assert_true(s.trace.oov[1]);
	assert_int_equal(s.params.vocab_size, 6 + 1);
	av_session_free(&s);
}

/* A run that fails keeps the previous trace usable: its unknown words still
 * have their rows. */
static void test_failed_run_keeps_rows(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	float koala[3];
	memcpy(koala, s.params.token_embedding + (size_t)s.trace.ids[1] * 3, sizeof(koala));
	assert_false(av_session_set_sentence(&s, "\xff", &cause));
	assert_non_null(strstr(cause, "invalid UTF-8"));
	free(cause);
	assert_string_equal(s.sentence, "china koala");
	assert_true(s.trace.ids[1] < s.params.vocab_size);
	assert_string_equal(s.params.vocab[s.trace.ids[1]], "koala");
	assert_memory_equal(s.params.token_embedding + (size_t)s.trace.ids[1] * 3, koala,
			    sizeof(koala));
	av_session_free(&s);
}

/* A run reuses the trace's buffers: after longer and shorter sentences,
 * the trace equals a fresh session's for the same sentence, bit for bit;
 * a failed run leaves it as it was. */
static void expect_same_stages(const struct av_trace *a, const struct av_trace *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->m, b->m);
	size_t nD = (size_t)a->n * a->d_model, cells = (size_t)a->heads * a->n * a->m;
	assert_memory_equal(a->embedding, b->embedding, nD * sizeof(float));
	assert_memory_equal(a->q, b->q, nD * sizeof(float));
	assert_memory_equal(a->v, b->v, nD * sizeof(float));
	assert_memory_equal(a->weights, b->weights, cells * sizeof(float));
	assert_memory_equal(a->residual, b->residual, nD * sizeof(float));
}

static void test_run_in_place_equals_fresh(void **state)
{
	(void)state;
	static const char *const sentences[] = {
		"china panda", "china panda japan cherry australia kangaroo china", "japan", "china panda",
	};
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	for (size_t i = 0; i < sizeof(sentences) / sizeof(sentences[0]); i++) {
		assert_true(av_session_set_sentence(&s, sentences[i], &cause));
		struct av_session fresh;
		setup_session(&fresh);
		assert_true(av_session_set_sentence(&fresh, sentences[i], &cause));
		expect_same_stages(&s.trace, &fresh.trace);
		av_session_free(&fresh);
	}
	struct av_session before;
	setup_session(&before);
	assert_true(av_session_set_sentence(&before, "china panda", &cause));
	assert_false(av_session_set_sentence(&s, "\xff", &cause));
	free(cause);
	expect_same_stages(&s.trace, &before.trace);
	av_session_free(&before);
	av_session_free(&s);
}

/* Re-attending after a mask change equals a full run. */
static void test_reattend_after_mask_toggle(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	s.cfg.mode = AV_MODE_CAUSAL;
	s.key_hidden[0] = true;
	assert_true(av_session_reattend(&s, &cause));
	float w[4];
	memcpy(w, s.trace.weights, sizeof(w));
	assert_true(av_session_run(&s, &cause));
	assert_memory_equal(w, s.trace.weights, sizeof(w));
	assert_true(s.trace.row_hidden[0]);
	av_session_free(&s);
}

/* A --dump trace loads again whatever the seed: one beyond 2^53 - 1 (which a
 * sample may give as a string of digits) was written as a bare number the
 * loader refuses (found by tests/fuzz/fuzz_trace.c). */
static void test_dump_reloads_any_seed(void **state)
{
	(void)state;
	const uint64_t seeds[] = { 0, UINT64_C(9007199254740991), UINT64_C(9007199254740992),
				   UINT64_MAX };
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct av_session s;
		setup_session(&s);
		s.cfg.seed = seeds[i];
		char *cause = NULL;
		assert_true(av_session_run(&s, &cause));
		cJSON *doc = av_trace_to_json(&s.trace, &s.params, NULL);
		char *text = av_json_print(doc);
		cJSON_Delete(doc);
		struct av_config cfg;
		av_config_default(&cfg);
		struct av_params p;
		memset(&p, 0, sizeof(p));
		if (!av_weights_parse(text, "dump.json", &cfg, NULL, &p, &cause))
			fail_msg("seed %llu: %s", (unsigned long long)seeds[i], cause);
		assert_true(cfg.seed == seeds[i]);
		av_params_free(&p);
		free(text);
		av_session_free(&s);
	}
}

/* What av_trace_json_write sends to a file, read back. */
static char *streamed(const struct av_session *s, const struct av_training_record *training)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	int err = -1;
	assert_true(av_trace_json_write(fileno(f), &s->trace, &s->params, training, &err));
	long len = lseek(fileno(f), 0, SEEK_END);
	assert_true(len > 0);
	char *text = av_malloc((size_t)len + 1);
	assert_int_equal(pread(fileno(f), text, (size_t)len, 0), len);
	text[len] = '\0';
	fclose(f);
	return text;
}

/* The tree's text as --dump wrote it before it streamed: printed, plus a
 * newline. */
static char *from_tree(const struct av_session *s, const struct av_training_record *training)
{
	cJSON *doc = av_trace_to_json(&s->trace, &s->params, training);
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	char *line = av_printf("%s\n", text);
	free(text);
	return line;
}

static void assert_stream_equals_tree(const struct av_session *s,
				      const struct av_training_record *training,
				      const char *what)
{
	char *a = streamed(s, training), *b = from_tree(s, training);
	if (strcmp(a, b) != 0) {
		size_t i = 0;
		while (a[i] && a[i] == b[i])
			i++;
		fail_msg("%s: the streamed dump differs from the tree's at byte %zu: "
			 "\"%.40s\" vs \"%.40s\"", what, i, a + i, b + i);
	}
	free(a);
	free(b);
}

/* The streamed --dump is byte for byte the cJSON tree's text (issue 11),
 * in every mode, with a mask, biases, learned positions, several heads,
 * strings that need escaping, numbers that are not finite, a seed beyond
 * 2^53 and a training record. */
static void test_streamed_dump_equals_tree(void **state)
{
	(void)state;
	struct av_session s;
	setup_session(&s);
	char *cause = NULL;
	assert_stream_equals_tree(&s, NULL, "china koala, self");

	s.cfg.mode = AV_MODE_CAUSAL;
	s.key_hidden[1] = true;
	assert_true(av_session_reattend(&s, &cause));
	assert_stream_equals_tree(&s, NULL, "causal, key 1 hidden");

	/* a wider layer with every optional part */
	s.cfg.d_model = 8;
	s.cfg.heads = 2;
	s.cfg.bias = true;
	s.cfg.positional = AV_POS_LEARNED;
	s.cfg.seed = UINT64_C(9007199254740993);
	av_session_reinit(&s);
	s.cfg.mode = AV_MODE_CROSS;
	s.key_hidden[1] = false;
	if (!av_session_set_source(&s, "\"quoted\" back\\slash tab\there \xe4\xb8\xad\xe6\x96\x87 "
				   "\x01", &cause))
		fail_msg("%s", cause);
	assert_stream_equals_tree(&s, NULL, "cross, D=8, H=2, bias, learned positions");

	double loss[3] = { 1.5, 0.25, 1e-7 };
	struct av_training_record record = { 3, 0.05, "adam", "identity", loss, 0, 0 };
	assert_stream_equals_tree(&s, &record, "with a training record");
	/* the screen's: sentences of an epoch begun, no loss kept, on from a
	 * trained file's 200 epochs */
	struct av_training_record screen = { 2, 0.01, "sgd", "self", NULL, 1, 200 };
	assert_stream_equals_tree(&s, &screen, "with steps and no loss");

	/* what the safety net writes where a number is not finite: null */
	s.params.token_embedding[0] = INFINITY;
	s.trace.weights[0] = NAN;
	loss[1] = INFINITY;
	assert_stream_equals_tree(&s, &record, "with inf and NaN");
	av_session_free(&s);
}

/* A write that fails is reported with its errno (a full disk). */
/* Invisible characters become JSON escapes, which read back as the same
 * characters; the layout's tabs and newlines and printable text do not. */
static void test_json_escape_invisible(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "{\n\t\"k\":\t\"a\xe2\x80\xae" "b\"\n}", "{\n\t\"k\":\t\"a\\u202eb\"\n}" },
		{ "[\"caf\xc3\xa9 \xe7\x86\x8a\"]", "[\"caf\xc3\xa9 \xe7\x86\x8a\"]" },
		{ "[\"\x7f\xc2\x9b\xc2\xad\xe2\x80\xa8\xef\xbb\xbf\"]",
		  "[\"\\u007f\\u009b\\u00ad\\u2028\\ufeff\"]" },
		{ "[\"x\xf3\xa0\x81\x81y\"]", "[\"x\\udb40\\udc41y\"]" },   /* U+E0041, a tag */
		{ "[\"\xff\\n\"]", "[\"\xff\\n\"]" },   /* not UTF-8: kept */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = av_json_escape_invisible(cases[i].in);
		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

/* For a terminal whose locale is not UTF-8 every character past ASCII is
 * an escape too (--dump - there wrote é and 中 as raw UTF-8, whose bytes
 * 0x80 to 0x9f are C1 controls to such a terminal); the layout stays. */
static void test_json_escape_ascii(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "{\n\t\"k\":\t\"caf\xc3\xa9 \xe4\xb8\xad\"\n}",
		  "{\n\t\"k\":\t\"caf\\u00e9 \\u4e2d\"\n}" },
		{ "[\"a\xe2\x80\xae" "b\"]", "[\"a\\u202eb\"]" },
		{ "[\"\xf0\x9f\x90\xbc\"]", "[\"\\ud83d\\udc3c\"]" },   /* U+1F43C */
		{ "[\"\xff\\n\"]", "[\"\\ufffd\\n\"]" },   /* not UTF-8: no byte escape */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = av_json_escape_ascii(cases[i].in);
		assert_string_equal(got, cases[i].out);
		free(got);
	}
}

/* A sentence's U+202E reached --dump raw, and a terminal shown the file
 * reversed what followed it. The dump now spells it \u202e, the streamed
 * text and the tree's alike, and reading the dump back gives the same
 * words; é and 熊 stay UTF-8. */
static void test_dump_escapes_invisible(void **state)
{
	(void)state;
	static const char *const words[] = {
		("a\xe2\x80\xae" "b"), "caf\xc3\xa9", "\xe7\x86\x8a", "x\xf3\xa0\x81\x81y"
	};
	struct av_session s;
	setup_session(&s);
	free(s.sentence);
	s.sentence = av_printf("%s %s %s %s", words[0], words[1], words[2], words[3]);
	char *cause = NULL;
	assert_true(av_session_run(&s, &cause));
	assert_stream_equals_tree(&s, NULL, "invisible characters");
	char *text = streamed(&s, NULL);
	assert_null(strstr(text, "\xe2\x80\xae"));
	assert_null(strstr(text, "\xf3\xa0\x81\x81"));
	assert_non_null(strstr(text, "\"tokens\":\t[\"a\\u202eb\", \"caf\xc3\xa9\", "
				     "\"\xe7\x86\x8a\", \"x\\udb40\\udc41y\"]"));
	struct av_config cfg;
	av_config_default(&cfg);
	struct av_params p;
	if (!av_weights_parse(text, "dump.json", &cfg, NULL, &p, &cause))
		fail_msg("%s", cause);
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		assert_string_equal(p.vocab[p.vocab_size - 4 + (int)i], words[i]);
	av_params_free(&p);
	free(text);
	av_session_free(&s);
}

static void test_streamed_dump_reports_a_full_disk(void **state)
{
	(void)state;
	int fd = open("/dev/full", O_WRONLY);
	if (fd < 0)
		skip();
	struct av_session s;
	setup_session(&s);
	int err = 0;
	assert_false(av_trace_json_write(fd, &s.trace, &s.params, NULL, &err));
	assert_int_equal(err, ENOSPC);
	close(fd);
	av_session_free(&s);
}

/* A writer that gives up half way: the file it was to replace keeps its
 * old text and no temporary file stays beside it (--dump's all or
 * nothing, now that the text is made as it is written). */
static bool half_then_fail(int fd, void *ctx, int *err)
{
	(void)ctx;
	if (write(fd, "{\"half\": ", 9) != 9)
		return false;
	*err = ENOSPC;
	return false;
}

/* A file that cannot be made: the error is about its folder (it spoke of
 * "a temporary file beside it"), and nothing is left behind. */
static void test_write_folder_errors(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-folder-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *missing = av_printf("%s/no-such/x.json", dir);
	char *cause = NULL;
	assert_false(av_write_file_atomic(missing, "text\n", 5, &cause));
	char *want = av_printf("%s: the folder %s/no-such does not exist", missing, dir);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	/* a file where a folder should be */
	char *file = av_printf("%s/plain", dir);
	assert_true(av_write_file_atomic(file, "x", 1, &cause));
	char *under = av_printf("%s/x.json", file);
	assert_false(av_write_file_atomic(under, "text\n", 5, &cause));
	want = av_printf("%s: cannot write in the folder %s: %s", under, file, strerror(ENOTDIR));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	/* a dangling link into a missing folder names the link's folder, not "." */
	char *link = av_printf("%s/dangling", dir);
	assert_int_equal(symlink("/nonexistent-attnview/zz", link), 0);
	assert_false(av_write_file_atomic(link, "text\n", 5, &cause));
	want = av_printf("%s: links to /nonexistent-attnview/zz, and the folder "
			 "/nonexistent-attnview does not exist", link);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	/* a name of 255 bytes, the longest a folder takes (no room for the
	 * temporary file's ".tmpXXXXXX" after it): written, nothing left */
	char *longest = av_printf("%s/%0250d.json", dir, 0);
	assert_true(av_write_file_atomic(longest, "long\n", 5, &cause));
	char *text = NULL;
	size_t len = 0;
	assert_true(av_read_file(longest, &text, &len, &cause));
	assert_string_equal(text, "long\n");
	free(text);
	assert_true(av_write_file_atomic(longest, "again\n", 6, &cause));   /* replaced */
	assert_true(av_read_file(longest, &text, &len, &cause));
	assert_string_equal(text, "again\n");
	free(text);
	assert_int_equal(unlink(longest), 0);
	/* one byte more is too long for the folder, and said so */
	char *too_long = av_printf("%s/%0251d.json", dir, 0);
	assert_false(av_write_file_atomic(too_long, "text\n", 5, &cause));
	assert_non_null(strstr(cause, strerror(ENAMETOOLONG)));
	free(cause);
	cause = NULL;
	free(longest);
	free(too_long);
	/* ENOENT from a folder that exists (procfs makes no files) is said as it is */
	assert_false(av_write_file_atomic("/proc/self/status", "text\n", 5, &cause));
	want = av_printf("/proc/self/status: cannot write in the folder /proc/self: %s",
			 strerror(ENOENT));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	unlink(link);
	unlink(file);
	assert_int_equal(rmdir(dir), 0);   /* no temporary file left */
	free(link);
	free(under);
	free(file);
	free(missing);
}

/* fsync, watched (the test is linked with -Wl,--wrap=fsync): how often it
 * was called on a folder and on which, and an errno to fail a folder's
 * with (0: the real fsync). */
static int folder_syncs;
static ino_t folder_synced;
static int folder_sync_error;

int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		folder_syncs++;
		folder_synced = st.st_ino;
		if (folder_sync_error) {
			errno = folder_sync_error;
			return -1;
		}
	}
	return __real_fsync(fd);
}

static void expect_text(const char *path, const char *want)
{
	char *text = NULL, *cause = NULL;
	size_t len = 0;
	if (!av_read_file(path, &text, &len, &cause))
		fail_msg("%s", cause);
	assert_string_equal(text, want);
	free(text);
}

/* A file written by a rename has its folder fsync'd after it, so the new
 * name survives a power cut (only the file was: the name could be lost).
 * A file system that refuses fsync on a folder (EINVAL, EBADF) is normal
 * and the write stands; another failure is said, the file named written.
 * Through a link, the folder synced is the one the file is replaced in.
 * No temporary file is left. */
static void test_write_syncs_the_folder(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-sync-XXXXXX", other[] = "/tmp/attnview-sync-XXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(other));
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	char *path = av_printf("%s/trace.json", dir), *cause = NULL;
	folder_syncs = 0;
	assert_true(av_write_file_atomic(path, "new\n", 4, &cause));
	assert_int_equal(folder_syncs, 1);
	assert_true(folder_synced == st.st_ino);
	expect_text(path, "new\n");
	const int refused[] = { EINVAL, EBADF };
	for (size_t i = 0; i < 2; i++) {
		folder_sync_error = refused[i];
		char text[32];
		snprintf(text, sizeof(text), "refused %zu\n", i);
		assert_true(av_write_file_atomic(path, text, strlen(text), &cause));
		expect_text(path, text);
	}
	folder_sync_error = EIO;
	assert_false(av_write_file_atomic(path, "io\n", 3, &cause));
	folder_sync_error = 0;
	char *want = av_printf("%s: written, but not safely on disk: syncing the folder %s: %s",
			       path, dir, strerror(EIO));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	expect_text(path, "io\n");
	/* a link in the other folder: the file is replaced in dir */
	char *link = av_printf("%s/link.json", other);
	assert_int_equal(symlink(path, link), 0);
	folder_syncs = 0;
	assert_true(av_write_file_atomic(link, "linked\n", 7, &cause));
	assert_int_equal(folder_syncs, 1);
	assert_true(folder_synced == st.st_ino);
	expect_text(path, "linked\n");
	assert_int_equal(unlink(link), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);   /* no temporary file left */
	assert_int_equal(rmdir(other), 0);
	free(link);
	free(path);
}

static volatile sig_atomic_t interrupts;

static void count_interrupt(int sig)
{
	(void)sig;
	interrupts++;
}

/* A writer interrupted half way by SIGINT, as Ctrl-C would. */
static bool half_then_interrupted(int fd, void *ctx, int *err)
{
	(void)ctx;
	(void)err;
	if (write(fd, "{\"half\": ", 9) != 9)
		return false;
	raise(SIGINT);
	return write(fd, "1}\n", 3) == 3;
}

/* The screen's own SIGINT handler returns, so the write goes on after the
 * temporary file was removed: the message said "No such file or directory
 * (nothing was written)" instead of the interruption. An ignored SIGINT (a
 * script's background job) stays ignored and the file is written. */
static void test_interrupted_write(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-sigint-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = av_printf("%s/trace.json", dir);
	char *cause = NULL;
	struct sigaction sa = { .sa_handler = count_interrupt }, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	assert_false(av_write_file_atomic_with(path, half_then_interrupted, NULL, &cause));
	assert_int_equal(interrupts, 1);
	char *want = av_printf("%s: interrupted by a signal (%s); nothing was written", path,
			       strsignal(SIGINT));
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	assert_int_equal(access(path, F_OK), -1);
	signal(SIGINT, SIG_IGN);
	assert_true(av_write_file_atomic_with(path, half_then_interrupted, NULL, &cause));
	char *text = NULL;
	assert_true(av_read_file(path, &text, NULL, &cause));
	assert_string_equal(text, "{\"half\": 1}\n");
	free(text);
	sigaction(SIGINT, &old, NULL);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));)
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);   /* no temporary file left */
	unlink(path);
	rmdir(dir);
	free(path);
}

/* The screen's write to a FIFO nobody reads is refused at once (the
 * command line's waits for a reader, which froze the screen); with a
 * reader it is written in place, the FIFO left a FIFO. */
static void test_screen_write_to_a_fifo(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-fifo-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = av_printf("%s/pipe", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	char *cause = NULL;
	assert_false(av_write_file_atomic_now(path, "text\n", 5, &cause));
	char *want = av_printf("%s: a pipe no program is reading (start the reader first)",
			       path);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	cause = NULL;
	int reader = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);
	assert_true(av_write_file_atomic_now(path, "text\n", 5, &cause));
	char got[16] = "";
	assert_int_equal(read(reader, got, sizeof got - 1), 5);
	assert_string_equal(got, "text\n");
	close(reader);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(path);
	rmdir(dir);
	free(path);
}

static void test_failed_stream_leaves_the_old_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/attnview-stream-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = av_printf("%s/trace.json", dir);
	char *cause = NULL;
	assert_true(av_write_file_atomic(path, "old\n", 4, &cause));
	assert_false(av_write_file_atomic_with(path, half_then_fail, NULL, &cause));
	assert_non_null(strstr(cause, "No space left on device"));
	assert_non_null(strstr(cause, "nothing was written"));
	free(cause);
	char *text = NULL;
	size_t len = 0;
	assert_true(av_read_file(path, &text, &len, &cause));
	assert_string_equal(text, "old\n");
	free(text);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int files = 0;
	for (struct dirent *e; (e = readdir(d));)
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_words_every_run),
		cmocka_unit_test(test_failed_run_keeps_rows),
		cmocka_unit_test(test_run_in_place_equals_fresh),
		cmocka_unit_test(test_reattend_after_mask_toggle),
		cmocka_unit_test(test_dump_reloads_any_seed),
		cmocka_unit_test(test_streamed_dump_equals_tree),
		cmocka_unit_test(test_json_escape_invisible),
		cmocka_unit_test(test_json_escape_ascii),
		cmocka_unit_test(test_dump_escapes_invisible),
		cmocka_unit_test(test_streamed_dump_reports_a_full_disk),
		cmocka_unit_test(test_failed_stream_leaves_the_old_file),
		cmocka_unit_test(test_screen_write_to_a_fifo),
		cmocka_unit_test(test_write_folder_errors),
		cmocka_unit_test(test_write_syncs_the_folder),
		cmocka_unit_test(test_interrupted_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
