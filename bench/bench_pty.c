/* bench_pty.c: how the screen feels (`make bench-pty`; not part of make
 * check). Runs attnview on a pseudo-terminal, as a person's terminal would,
 * and measures from outside:
 *   - for each key class (stage step n/p, causal mask m on the softmax
 *     stage, head Tab, temperature +/-, scale s, cursor l/h, a typed
 *     character and Backspace in the sentence editor), at 80x24 and 200x60,
 *     with the qkv-walkthrough sample (D=512, H=8) and a 5- and a 64-token
 *     sentence: the time from writing the key to the last byte of the
 *     repaint, and the bytes the repaint sent;
 *   - the CPU the screen uses idle, and with the training view running at
 *     80x24 (utime + stime from /proc/PID/stat over a few seconds), for the
 *     china-panda and the qkv-walkthrough samples;
 *   - the screen's resident memory: its peak, after the training view was
 *     opened, run and left, and back in it (VmHWM and VmRSS of
 *     /proc/PID/status);
 *   - the peak resident memory of --dump (wait4's ru_maxrss), and of
 *     --weights of what it wrote, with its time;
 *   - the bytes a second the training view sends while it trains (25
 *     epochs/s), at 80x24 and 200x60, for china-panda and qkv-walkthrough,
 *     and those a follower's screen sends while its teacher trains: what a
 *     slow SSH link has to carry ("bytes" alone runs only these). Frames
 *     are counted by the sgr0 (ESC ( B ESC [ m) ncurses ends each with.
 * Where issue 11 set a goal for a figure (a key within 3 ms, the training
 * view within 8 % of a core, the screen within 12 MB after it, --dump
 * within 20 MB), the line says whether this run met it, and the last line
 * counts them.
 * The repaint is over when the terminal has been quiet for QUIET_MS after
 * its first byte: a key is sent only once the previous repaint is over
 * (every key here changes the screen, so each has a repaint). Each key runs ROUNDS times;
 * the median and the smallest latency are printed.
 *
 * usage: bench_pty PATH-TO-ATTNVIEW [COLSxROWS TOKENS [CLASS...] | memory | bytes]
 * (ATTNVIEW_DATA_DIR as for the program); with a size and a sentence length,
 * the keys of that case only, and with CLASS words ("mask", "typed"), only
 * the key classes whose label starts with one of them; with "memory", the
 * CPU and memory only; with "bytes", the bytes while training only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QUIET_MS 60      /* no output for this long: the repaint is over */
#define FIRST_MS 3000    /* a key's repaint starts within this */
#define SETTLE_MS 400    /* after start and after changing views */
#define ROUNDS 15
#define CPU_SECONDS 5
#define BYTES_SECONDS 5

struct screen {
	pid_t pid;
	int fd;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Reads everything the screen sends until it has been quiet for quiet_ms
 * after its first byte (which may take up to first_ms); the bytes read, and
 * in *last the time of the last one (start when none). */
static long drain_after(const struct screen *s, int first_ms, int quiet_ms, double start,
			double *last)
{
	char buf[65536];
	long total = 0;
	*last = start;
	for (;;) {
		struct pollfd p = { s->fd, POLLIN, 0 };
		int r = poll(&p, 1, total ? quiet_ms : first_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return total;
		ssize_t n = read(s->fd, buf, sizeof(buf));
		if (n <= 0)
			return total;   /* EIO: the program has gone */
		*last = now_ms();
		total += n;
	}
}

static long drain(const struct screen *s, int quiet_ms, double start, double *last)
{
	return drain_after(s, quiet_ms, quiet_ms, start, last);
}

/* Waits until the screen has been quiet for SETTLE_MS (at most 5 s: a view
 * that never goes quiet is reported). */
static void settle(const struct screen *s)
{
	double start = now_ms(), last;
	char buf[65536];
	for (;;) {
		struct pollfd p = { s->fd, POLLIN, 0 };
		int r = poll(&p, 1, SETTLE_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || read(s->fd, buf, sizeof(buf)) <= 0)
			return;
		last = now_ms();
		if (last - start > 5000) {
			fprintf(stderr, "bench_pty: the screen does not go quiet\n");
			return;
		}
	}
}

static void send_keys(const struct screen *s, const char *keys)
{
	size_t len = strlen(keys);
	if (write(s->fd, keys, len) != (ssize_t)len)
		die("write to the pty");
}

/* In a child: execs args (NULL-terminated, the program first, at most 15),
 * or exits 127. */
static void exec_args(const char *const args[])
{
	char *copy[16];   /* execv's arguments are not const */
	int n = 0;
	for (; args[n] && n < 15; n++)
		copy[n] = strdup(args[n]);
	copy[n] = NULL;
	execv(copy[0], copy);
	_exit(127);
}

/* Starts prog on a new pty of cols x rows with argv (NULL-terminated,
 * prog first), without waiting for its screen. */
static void spawn(struct screen *s, int cols, int rows, const char *const args[])
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	s->pid = forkpty(&s->fd, NULL, NULL, &ws);
	if (s->pid < 0)
		die("forkpty");
	if (s->pid == 0) {
		setenv("TERM", "xterm-256color", 1);
		unsetenv("NO_COLOR");
		exec_args(args);
	}
}

static void start(struct screen *s, const char *prog, int cols, int rows, const char *sample,
		  const char *sentence)
{
	const char *const args[] = { prog, "--sample", sample, sentence, NULL };
	spawn(s, cols, rows, args);   /* no sentence: the args end at it */
	settle(s);
}

static void stop(struct screen *s)
{
	send_keys(s, "q");
	double last;
	drain(s, 200, now_ms(), &last);
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	close(s->fd);
}

/* The key classes to run (label prefixes), or none for all. */
/* issue 11's goals met and missed in this run */
static int goals_met, goals_missed;

/* " goal <= LIMIT UNIT: met" (or "not met") after a figure, and counted */
static void print_goal(double value, double limit, const char *unit)
{
	bool met = value <= limit;
	(met ? &goals_met : &goals_missed)[0]++;
	printf("   goal <= %g %s: %s", limit, unit, met ? "met" : "NOT MET");
}

static char *const *only_classes;
static int n_only_classes;

static bool class_wanted(const char *label)
{
	for (int i = 0; i < n_only_classes; i++)
		if (strncmp(label, only_classes[i], strlen(only_classes[i])) == 0)
			return true;
	return n_only_classes == 0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Sends each of keys[] in turn (ROUNDS keys in all; pairs like "+" "-"
 * undo each other) and prints the latency and bytes of the repaints, and
 * the median against goal_ms where there is one (not 0). */
static void key_class(const struct screen *s, const char *label, const char *const *keys,
		      int n_keys, double goal_ms)
{
	double ms[ROUNDS];
	long bytes = 0;
	if (!class_wanted(label))
		return;
	for (int i = 0; i < ROUNDS; i++) {
		double t0 = now_ms(), last;
		send_keys(s, keys[i % n_keys]);
		bytes += drain_after(s, FIRST_MS, QUIET_MS, t0, &last);
		ms[i] = last - t0;
	}
	qsort(ms, ROUNDS, sizeof(ms[0]), cmp_double);
	printf("  %-28s %8.2f ms median %8.2f ms min %8ld bytes/key", label, ms[ROUNDS / 2],
	       ms[0], bytes / ROUNDS);
	if (goal_ms > 0)
		print_goal(ms[ROUNDS / 2], goal_ms, "ms");
	printf("\n");
	fflush(stdout);
}

static void go_to_stage(const struct screen *s, int stage)
{
	send_keys(s, "g");
	for (int i = 0; i < stage; i++)
		send_keys(s, "n");
	settle(s);
}

/* A sentence of n different words: the sample's own five, then numbered
 * ("the2", "cat2", ...), as a student's sentence has mostly different
 * words; past the five of qkv-walkthrough's vocabulary (its corpus's
 * words) each is unknown to it, so each has its embedding row drawn (five
 * words repeated hid that cost). */
static char *words(int n)
{
	static const char *const w[] = { "the", "cat", "sat", "on", "mats" };
	char *text = malloc((size_t)n * 16 + 1);
	if (!text)
		die("malloc");
	text[0] = '\0';
	for (int i = 0; i < n; i++) {
		char word[16];
		if (i < 5)
			snprintf(word, sizeof(word), "%s", w[i]);
		else
			snprintf(word, sizeof(word), "%s%d", w[i % 5], i / 5 + 1);
		if (i)
			strcat(text, " ");
		strcat(text, word);
	}
	return text;
}

static void keys_at(const char *prog, int cols, int rows, int n)
{
	char *sentence = words(n);
	struct screen s;
	start(&s, prog, cols, rows, "qkv-walkthrough", sentence);
	printf("%dx%d, n=%d (qkv-walkthrough, D=512, H=8)\n", cols, rows, n);
	static const char *const step[] = { "n", "p" }, *const mask[] = { "m" },
		*const head[] = { "\t" }, *const temp[] = { "+", "-" }, *const scale[] = { "s" },
		*const cursor[] = { "l", "h" }, *const typed[] = { "x", "\177" };
	/* issue 11: m on the softmax stage at 200x60 and a typed character,
	 * both with 64 tokens, within 3 ms to the last byte */
	double mask_goal = n == 64 && cols == 200 && rows == 60 ? 3 : 0;
	double typed_goal = n == 64 ? 3 : 0;
	go_to_stage(&s, 3);
	key_class(&s, "stage step (n/p)", step, 2, 0);
	go_to_stage(&s, 6);
	key_class(&s, "mask m (softmax)", mask, 1, mask_goal);
	key_class(&s, "head Tab (softmax)", head, 1, 0);
	key_class(&s, "temperature +/- (softmax)", temp, 2, 0);
	key_class(&s, "scale s (softmax)", scale, 1, 0);
	key_class(&s, "cursor l/h (softmax)", cursor, 2, 0);
	/* the editor: e, the cursor at the start (Ctrl-A), then a letter and
	 * Backspace: the first word changes, so every row of the matrix does
	 * (with the causal mask on too; a letter at the end changed only the
	 * last row, off screen at n=64, and timed the echo alone) */
	send_keys(&s, "e\001");
	settle(&s);
	key_class(&s, "typed character (editor)", typed, 2, typed_goal);
	send_keys(&s, "\033");
	settle(&s);
	stop(&s);
	free(sentence);
}

/* utime + stime of a process, in clock ticks. */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the fields after the command name, which ends at the last ')' */
	char *p = strrchr(buf, ')');
	long utime = 0, stime = 0;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld",
			 &utime, &stime) != 2)
		return -1;
	return utime + stime;
}

/* Percent of one core over CPU_SECONDS, reading the screen's output all
 * the while (a terminal would). */
static double cpu_percent(const struct screen *s)
{
	char buf[65536];
	long t0 = cpu_ticks(s->pid);
	double start = now_ms(), end = start + CPU_SECONDS * 1e3, now;
	while ((now = now_ms()) < end) {
		struct pollfd p = { s->fd, POLLIN, 0 };
		if (poll(&p, 1, (int)(end - now) + 1) > 0 && read(s->fd, buf, sizeof(buf)) <= 0)
			break;
	}
	long t1 = cpu_ticks(s->pid);
	double seconds = (now_ms() - start) / 1e3;
	return 100.0 * (double)(t1 - t0) / (double)sysconf(_SC_CLK_TCK) / seconds;
}

/* A line of /proc/PID/status ("VmRSS", "VmHWM") in kB. */
static long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kb = -1;
	size_t len = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, len) == 0 && line[len] == ':')
			kb = atol(line + len + 1);
	if (f)
		fclose(f);
	return kb;
}

/* Idle CPU, the training view's CPU while it trains and the memory around
 * a visit to the training view. Training pauses once at the sample's epochs
 * (200 for china-panda, which outlast the measurement; 50 for
 * qkv-walkthrough, reached after goal_seconds, then Space trains on). */
static void cpu_and_memory(const char *prog, const char *sample, int goal_seconds,
			   bool goals)
{
	struct screen s;
	start(&s, prog, 80, 24, sample, NULL);
	printf("the screen, 80x24, %s\n", sample);
	printf("  %-40s %6.1f %% of a core\n", "idle", cpu_percent(&s));
	printf("  %-40s %6ld kB\n", "RSS before the training view", status_kb(s.pid, "VmRSS"));
	send_keys(&s, "t");
	settle(&s);
	send_keys(&s, " ");
	if (goal_seconds > 0) {
		/* training pauses at the sample's epochs once: Space trains on */
		double last;
		drain(&s, goal_seconds * 1000, now_ms(), &last);
		send_keys(&s, " ");
	}
	double training = cpu_percent(&s);
	printf("  %-40s %6.1f %% of a core", "training view running (25 epochs/s)", training);
	if (goals)
		print_goal(training, 8, "%");
	printf("\n");
	send_keys(&s, "t");   /* back to the stepper: training stops */
	settle(&s);
	usleep(1000000);      /* a loaded machine may still be on its way */
	settle(&s);
	long after = status_kb(s.pid, "VmRSS");
	printf("  %-40s %6ld kB", "RSS after the training view", after);
	if (goals)
		print_goal(after, 12 * 1024, "kB");
	printf("\n");
	printf("  %-40s %6ld kB\n", "peak RSS (VmHWM)", status_kb(s.pid, "VmHWM"));
	printf("  %-40s %6.1f %% of a core\n", "idle after the training view", cpu_percent(&s));
	/* back: the trainer wakes (its matrices and traces come back) */
	send_keys(&s, "t");
	settle(&s);
	printf("  %-40s %6ld kB\n", "RSS back in the training view", status_kb(s.pid, "VmRSS"));
	send_keys(&s, "t");
	settle(&s);
	fflush(stdout);
	/* q asks about the unsaved training: y */
	send_keys(&s, "q");
	settle(&s);
	send_keys(&s, "y");
	settle(&s);
	kill(s.pid, SIGTERM);
	waitpid(s.pid, NULL, 0);
	close(s.fd);
}

/* Runs prog with args (NULL-terminated, prog first) to its end, its
 * output to /dev/null; its peak RSS and exit status, and the wall time. */
static long run_measured(const char *const args[], int *exit_status, double *ms)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		exec_args(args);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4");
	*ms = now_ms() - t0;
	*exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return ru.ru_maxrss;
}

/* The peak memory of --dump of qkv-walkthrough, and of --weights of that
 * dump (15.7 MB of JSON: its rows are read beside cJSON, json_rows.h). */
static void dump_memory(const char *prog)
{
	char out[] = "/tmp/bench-pty-dump-XXXXXX";
	int fd = mkstemp(out);
	if (fd < 0)
		die("mkstemp");
	close(fd);
	int status;
	double ms;
	const char *dump[] = { prog, "--sample", "qkv-walkthrough", "--dump", out, NULL };
	long rss = run_measured(dump, &status, &ms);
	printf("--dump of qkv-walkthrough: peak RSS %ld kB (exit %d)", rss, status);
	print_goal(rss, 20 * 1024, "kB");
	printf("\n");
	const char *load[] = { prog, "--sample", "qkv-walkthrough", "--weights", out,
			       "--print", "tokens", NULL };
	rss = run_measured(load, &status, &ms);
	printf("--weights of that dump: peak RSS %ld kB, %.0f ms (exit %d)\n", rss, ms, status);
	unlink(out);
}

/* Reads the screen's output for ms milliseconds (a terminal would); the
 * bytes, and in *frames the frames among them. */
static long read_for(const struct screen *s, int ms, long *frames)
{
	static const char frame_end[] = "\033(B\033[m";
	const size_t end_len = sizeof(frame_end) - 1;
	char buf[65536 + sizeof(frame_end)];
	size_t carried = 0;   /* a frame's end split between two reads */
	long total = 0;
	*frames = 0;
	double end = now_ms() + ms, now;
	while ((now = now_ms()) < end) {
		struct pollfd p = { s->fd, POLLIN, 0 };
		if (poll(&p, 1, (int)(end - now) + 1) <= 0)
			continue;
		ssize_t n = read(s->fd, buf + carried, 65536);
		if (n <= 0)
			break;
		total += n;
		size_t len = carried + (size_t)n;
		for (char *q = buf; (q = memmem(q, len - (size_t)(q - buf), frame_end, end_len));
		     q += end_len)
			(*frames)++;
		carried = len < end_len - 1 ? len : end_len - 1;
		memmove(buf, buf + len - carried, carried);
	}
	return total;
}

static void print_bytes(const char *what, long bytes, long frames)
{
	printf("  %-44s %8.0f bytes/s %6.1f frames/s %6ld bytes/frame\n", what,
	       bytes * 1e3 / (BYTES_SECONDS * 1e3), frames / (double)BYTES_SECONDS,
	       frames ? bytes / frames : 0);
}

static void quit_training(struct screen *s)
{
	send_keys(s, " ");
	settle(s);
	send_keys(s, "q");
	settle(s);
	send_keys(s, "y");
	settle(s);
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
	close(s->fd);
}

/* The bytes a second the training view sends at cols x rows while it
 * trains, and a follower's screen of the same size meanwhile. */
static void bytes_training(const char *prog, const char *sample, int cols, int rows,
			   int goal_ms)
{
	char room_base[] = "/tmp/bench-pty-rooms-XXXXXX";
	if (!mkdtemp(room_base))
		die("mkdtemp");
	setenv("ATTNVIEW_ROOM_DIR", room_base, 1);
	const char *lead[] = { prog, "--sample", sample, "--lead", "bench", NULL };
	const char *follow[] = { prog, "--follow", "bench", NULL };
	struct screen leader, follower;
	spawn(&leader, cols, rows, lead);
	settle(&leader);
	spawn(&follower, cols, rows, follow);
	settle(&follower);
	printf("%dx%d, %s, training (25 epochs/s)\n", cols, rows, sample);
	/* the follower's output is read while the leader's is, lest its pty
	 * fill and hold it back */
	send_keys(&leader, "t");
	settle(&leader);
	settle(&follower);
	send_keys(&leader, " ");
	long frames, fframes, bytes = 0, fbytes = 0;
	double until = now_ms() + (goal_ms > 0 ? goal_ms : 1000);
	while (now_ms() < until) {
		read_for(&leader, 50, &frames);
		read_for(&follower, 50, &frames);
	}
	if (goal_ms > 0)
		send_keys(&leader, " ");
	frames = fframes = 0;
	for (int i = 0; i < BYTES_SECONDS * 10; i++) {
		long f;
		bytes += read_for(&leader, 50, &f);
		frames += f;
		fbytes += read_for(&follower, 50, &f);
		fframes += f;
	}
	print_bytes("the teacher's screen", bytes, frames);
	print_bytes("a follower's screen", fbytes, fframes);
	fflush(stdout);
	kill(follower.pid, SIGTERM);
	waitpid(follower.pid, NULL, 0);
	close(follower.fd);
	quit_training(&leader);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", room_base);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_pty: %s left\n", room_base);
	unsetenv("ATTNVIEW_ROOM_DIR");
}

static void bytes_all(const char *prog)
{
	const int sizes[][2] = { { 80, 24 }, { 200, 60 } };
	for (int z = 0; z < 2; z++) {
		bytes_training(prog, "china-panda", sizes[z][0], sizes[z][1], 0);
		bytes_training(prog, "qkv-walkthrough", sizes[z][0], sizes[z][1], 3000);
	}
}

static void print_goal_count(void)
{
	printf("issue 11's goals in this run: %d met, %d not met\n", goals_met, goals_missed);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int cols, rows, n;
	if (argc >= 4 && sscanf(argv[2], "%dx%d", &cols, &rows) == 2 &&
	    sscanf(argv[3], "%d", &n) == 1) {
		/* one case only (for a profiler wrapped around the program) */
		only_classes = argv + 4;
		n_only_classes = argc - 4;
		keys_at(argv[1], cols, rows, n);
		print_goal_count();
		return 0;
	}
	if (argc == 3 && strcmp(argv[2], "memory") == 0) {
		cpu_and_memory(argv[1], "china-panda", 0, false);
		cpu_and_memory(argv[1], "qkv-walkthrough", 3, true);
		dump_memory(argv[1]);
		print_goal_count();
		return 0;
	}
	if (argc == 3 && strcmp(argv[2], "bytes") == 0) {
		bytes_all(argv[1]);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: bench_pty PATH-TO-ATTNVIEW "
			"[COLSxROWS TOKENS [CLASS...] | memory | bytes]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	const int sizes[][2] = { { 80, 24 }, { 200, 60 } };
	const int lengths[] = { 5, 64 };
	for (int z = 0; z < 2; z++)
		for (int l = 0; l < 2; l++)
			keys_at(argv[1], sizes[z][0], sizes[z][1], lengths[l]);
	cpu_and_memory(argv[1], "china-panda", 0, false);
	cpu_and_memory(argv[1], "qkv-walkthrough", 3, true);
	dump_memory(argv[1]);
	bytes_all(argv[1]);
	print_goal_count();
	return 0;
}
