/* bench_class.c: a class on this machine (issue 10): one leader and N
 * follower processes of the real program (default 300), each on a
 * pseudo-terminal of its own (mostly 80x24, with 200x60, 120x40 and a 60x20
 * vt100 one with NO_COLOR among them). The leader's terminal gets a key (n:
 * the next stage); the time is taken until every follower's terminal has
 * sent its whole repaint: each follower's output is fed to a small screen
 * model (the escape sequences ncurses sends for vt100 and xterm), the
 * header must show the new stage ("2/9"), and the repaint ends with the
 * last byte before the terminal falls quiet (the quiet time itself is not
 * counted). Memory is the sum over the followers and the leader of RSS and
 * of PSS (/proc/PID/smaps_rollup: pages shared between the processes, the
 * program's text and libraries, count once).
 *
 *   bench/bench_class [-n N] [-r ROUNDS] [-s SAMPLE] [-k n|m] [ATTNVIEW]
 *
 * -k n (the default) steps to the next stage, which changes no number;
 * -k m toggles the causal mask, which makes every follower recompute
 * (the header then shows "causal" or "self").
 *
 * (BENCH_SHOW=1 prints the model's screens of the leader and three
 * followers at the end, to check what was compared.)
 *
 * It checks the limits it needs (open files, processes, pseudo-terminals)
 * and raises the soft open-file limit itself; it says which one is short
 * rather than failing half-way. `make bench-follow` runs it. */
#define _GNU_SOURCE 1
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#define QUIET_MS 150          /* a terminal this long silent has finished its repaint */
#define START_TIMEOUT_S 300   /* for every follower to join and paint */
#define ROUND_TIMEOUT_S 60

/* --- a screen model: enough of vt100/xterm for what ncurses sends ------- */

struct screen {
	int rows, cols;
	uint32_t *cell;          /* rows * cols code points */
	int y, x;
	bool wrap_pending;
	int top, bottom;         /* the scroll region */
	int saved_y, saved_x;
	/* the parser */
	enum { S_TEXT, S_ESC, S_CSI, S_OSC, S_CHARSET } state;
	char params[64];
	size_t n_params;
	uint32_t utf8_cp;
	int utf8_left;
	uint32_t last_char;
};

static void screen_init(struct screen *s, int rows, int cols)
{
	memset(s, 0, sizeof *s);
	s->rows = rows;
	s->cols = cols;
	s->cell = calloc((size_t)rows * (size_t)cols, sizeof *s->cell);
	for (int i = 0; i < rows * cols; i++)
		s->cell[i] = ' ';
	s->bottom = rows - 1;
}

static uint32_t *at(struct screen *s, int y, int x)
{
	return &s->cell[(size_t)y * (size_t)s->cols + (size_t)x];
}

static void clear_cells(struct screen *s, int y, int x0, int x1)
{
	for (int x = x0 < 0 ? 0 : x0; x < x1 && x < s->cols; x++)
		*at(s, y, x) = ' ';
}

static void scroll_up(struct screen *s, int top, int bottom, int n)
{
	for (int k = 0; k < n; k++) {
		for (int y = top; y < bottom; y++)
			memcpy(at(s, y, 0), at(s, y + 1, 0), (size_t)s->cols * sizeof *s->cell);
		clear_cells(s, bottom, 0, s->cols);
	}
}

static void scroll_down(struct screen *s, int top, int bottom, int n)
{
	for (int k = 0; k < n; k++) {
		for (int y = bottom; y > top; y--)
			memcpy(at(s, y, 0), at(s, y - 1, 0), (size_t)s->cols * sizeof *s->cell);
		clear_cells(s, top, 0, s->cols);
	}
}

static void line_feed(struct screen *s)
{
	if (s->y == s->bottom)
		scroll_up(s, s->top, s->bottom, 1);
	else if (s->y < s->rows - 1)
		s->y++;
}

static void put_char(struct screen *s, uint32_t cp)
{
	int w = wcwidth((wchar_t)cp);

	if (w < 0)
		w = 1;
	if (w == 0)
		return;    /* a combining mark stays with its base */
	if (s->wrap_pending) {
		s->x = 0;
		line_feed(s);
		s->wrap_pending = false;
	}
	*at(s, s->y, s->x) = cp;
	if (w == 2 && s->x + 1 < s->cols)
		*at(s, s->y, s->x + 1) = 0;
	s->last_char = cp;
	if (s->x + w >= s->cols)
		s->wrap_pending = true;
	else
		s->x += w;
}

static int param(const struct screen *s, int i, int dflt)
{
	const char *p = s->params;
	if (*p == '?' || *p == '>' || *p == '=')
		p++;
	for (int k = 0; k < i; k++) {
		p = strchr(p, ';');
		if (p == NULL)
			return dflt;
		p++;
	}
	if (*p < '0' || *p > '9')
		return dflt;
	int v = atoi(p);
	return v == 0 ? dflt : v;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void csi(struct screen *s, char final)
{
	int n = param(s, 0, 1);

	if (s->params[0] == '?' || s->params[0] == '>')
		return;    /* modes, keypad: nothing on the screen */
	s->wrap_pending = false;
	switch (final) {
	case 'H': case 'f':
		s->y = clamp(param(s, 0, 1) - 1, 0, s->rows - 1);
		s->x = clamp(param(s, 1, 1) - 1, 0, s->cols - 1);
		break;
	case 'A': s->y = clamp(s->y - n, 0, s->rows - 1); break;
	case 'B': s->y = clamp(s->y + n, 0, s->rows - 1); break;
	case 'C': s->x = clamp(s->x + n, 0, s->cols - 1); break;
	case 'D': s->x = clamp(s->x - n, 0, s->cols - 1); break;
	case 'G': case '`': s->x = clamp(n - 1, 0, s->cols - 1); break;
	case 'd': s->y = clamp(n - 1, 0, s->rows - 1); break;
	case 'K': {
		int mode = param(s, 0, 0);
		clear_cells(s, s->y, mode == 0 ? s->x : 0, mode == 1 ? s->x + 1 : s->cols);
		break;
	}
	case 'J': {
		int mode = param(s, 0, 0);
		if (mode == 0) {
			clear_cells(s, s->y, s->x, s->cols);
			for (int y = s->y + 1; y < s->rows; y++)
				clear_cells(s, y, 0, s->cols);
		} else if (mode == 1) {
			for (int y = 0; y < s->y; y++)
				clear_cells(s, y, 0, s->cols);
			clear_cells(s, s->y, 0, s->x + 1);
		} else {
			for (int y = 0; y < s->rows; y++)
				clear_cells(s, y, 0, s->cols);
		}
		break;
	}
	case 'X': clear_cells(s, s->y, s->x, s->x + n); break;
	case 'b':
		for (int k = 0; k < n && s->last_char; k++)
			put_char(s, s->last_char);
		break;
	case '@': {
		int k = clamp(n, 0, s->cols - s->x);
		memmove(at(s, s->y, s->x + k), at(s, s->y, s->x),
			(size_t)(s->cols - s->x - k) * sizeof *s->cell);
		clear_cells(s, s->y, s->x, s->x + k);
		break;
	}
	case 'P': {
		int k = clamp(n, 0, s->cols - s->x);
		memmove(at(s, s->y, s->x), at(s, s->y, s->x + k),
			(size_t)(s->cols - s->x - k) * sizeof *s->cell);
		clear_cells(s, s->y, s->cols - k, s->cols);
		break;
	}
	case 'L': if (s->y >= s->top && s->y <= s->bottom) scroll_down(s, s->y, s->bottom, n); break;
	case 'M': if (s->y >= s->top && s->y <= s->bottom) scroll_up(s, s->y, s->bottom, n); break;
	case 'S': scroll_up(s, s->top, s->bottom, n); break;
	case 'T': scroll_down(s, s->top, s->bottom, n); break;
	case 'r':
		s->top = clamp(param(s, 0, 1) - 1, 0, s->rows - 1);
		s->bottom = clamp(param(s, 1, s->rows) - 1, s->top, s->rows - 1);
		s->y = s->x = 0;
		break;
	default: break;    /* m (colours), h/l, and the rest: nothing moves */
	}
}

static void feed_byte(struct screen *s, unsigned char c)
{
	switch (s->state) {
	case S_ESC:
		s->state = S_TEXT;
		if (c == '[') {
			s->state = S_CSI;
			s->n_params = 0;
			s->params[0] = '\0';
		} else if (c == ']') {
			s->state = S_OSC;
		} else if (c == '(' || c == ')' || c == '*' || c == '+' || c == '#') {
			s->state = S_CHARSET;
		} else if (c == '7') {
			s->saved_y = s->y;
			s->saved_x = s->x;
		} else if (c == '8') {
			s->y = s->saved_y;
			s->x = s->saved_x;
		} else if (c == 'M') {
			if (s->y == s->top)
				scroll_down(s, s->top, s->bottom, 1);
			else if (s->y > 0)
				s->y--;
		} else if (c == 'D') {
			line_feed(s);
		} else if (c == 'E') {
			s->x = 0;
			line_feed(s);
		}
		return;
	case S_CSI:
		if (c >= 0x40 && c <= 0x7e) {
			s->state = S_TEXT;
			csi(s, (char)c);
		} else if (s->n_params + 1 < sizeof s->params) {
			s->params[s->n_params++] = (char)c;
			s->params[s->n_params] = '\0';
		}
		return;
	case S_OSC:
		if (c == 7 || c == '\\')
			s->state = S_TEXT;
		return;
	case S_CHARSET:
		s->state = S_TEXT;
		return;
	case S_TEXT:
		break;
	}
	if (s->utf8_left > 0 && (c & 0xC0) == 0x80) {
		s->utf8_cp = (s->utf8_cp << 6) | (c & 0x3F);
		if (--s->utf8_left == 0)
			put_char(s, s->utf8_cp);
		return;
	}
	s->utf8_left = 0;
	if (c >= 0xC0 && c < 0xF8) {
		s->utf8_left = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
		s->utf8_cp = c & (c >= 0xF0 ? 0x07 : c >= 0xE0 ? 0x0F : 0x1F);
		return;
	}
	switch (c) {
	case 0x1b: s->state = S_ESC; break;
	case '\r': s->x = 0; s->wrap_pending = false; break;
	case '\n': case 0x0b: case 0x0c: line_feed(s); s->wrap_pending = false; break;
	case '\b': if (s->x > 0) s->x--; s->wrap_pending = false; break;
	case '\t': s->x = clamp((s->x / 8 + 1) * 8, 0, s->cols - 1); break;
	default:
		if (c >= 0x20 && c != 0x7f)
			put_char(s, c);
		break;
	}
}

/* Row y as UTF-8 (into buf). */
static const char *screen_row(const struct screen *s, int y, char *buf, size_t size)
{
	size_t n = 0;
	for (int x = 0; x < s->cols; x++) {
		uint32_t cp = s->cell[(size_t)y * (size_t)s->cols + (size_t)x];
		char enc[8];
		int k;
		if (cp == 0)
			continue;
		k = wctomb(enc, (wchar_t)cp);
		if (k <= 0) {
			enc[0] = '?';
			k = 1;
		}
		if (n + (size_t)k + 1 >= size)
			break;
		memcpy(buf + n, enc, (size_t)k);
		n += (size_t)k;
	}
	buf[n] = '\0';
	return buf;
}

static bool screen_has(const struct screen *s, const char *text)
{
	char buf[4096];
	for (int y = 0; y < s->rows; y++)
		if (strstr(screen_row(s, y, buf, sizeof buf), text))
			return true;
	return false;
}

/* --- the processes ------------------------------------------------------- */

struct term {
	pid_t pid;
	int fd;                  /* the pseudo-terminal's master side */
	int rows, cols;
	struct screen scr;
	double last_byte;        /* when its last bytes were read */
	double header_at;        /* when its header first showed the round's stage */
	bool joined;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "bench_class: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* Starts attnview with args on a new pseudo-terminal of rows x cols. */
static void spawn(struct term *t, int rows, int cols, const char *term, bool no_color,
		  char *const argv[], const char *room_base)
{
	struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	char *slave;

	if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
	    (slave = ptsname(master)) == NULL)
		die("cannot open a pseudo-terminal: %s", strerror(errno));
	ioctl(master, TIOCSWINSZ, &ws);
	t->rows = rows;
	t->cols = cols;
	screen_init(&t->scr, rows, cols);
	t->pid = fork();
	if (t->pid < 0)
		die("fork: %s (the process limit? ulimit -u)", strerror(errno));
	if (t->pid == 0) {
		int fd;
		setsid();
		fd = open(slave, O_RDWR);
		if (fd < 0)
			_exit(127);
		ioctl(fd, TIOCSCTTY, 0);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
		setenv("TERM", term, 1);
		setenv("LANG", "C.UTF-8", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		setenv("ATTNVIEW_ROOM_DIR", room_base, 1);
		if (no_color)
			setenv("NO_COLOR", "1", 1);
		else
			unsetenv("NO_COLOR");
		execv(argv[0], argv);
		_exit(127);
	}
	fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
	t->fd = master;
}

/* Reads what every terminal has sent, for up to wait_ms; returns the
 * number of terminals that sent something. */
static int pump(struct term *t, int n, struct pollfd *fds, int wait_ms)
{
	int ready, active = 0;
	unsigned char buf[65536];

	for (int i = 0; i < n; i++)
		fds[i] = (struct pollfd){ .fd = t[i].fd, .events = POLLIN };
	ready = poll(fds, (nfds_t)n, wait_ms);
	if (ready <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		ssize_t k;
		bool got = false;
		if (!(fds[i].revents & (POLLIN | POLLHUP)))
			continue;
		while ((k = read(t[i].fd, buf, sizeof buf)) > 0) {
			for (ssize_t j = 0; j < k; j++)
				feed_byte(&t[i].scr, buf[j]);
			got = true;
		}
		if (got) {
			t[i].last_byte = now_s();
			active++;
		}
	}
	return active;
}

/* --- the limits ---------------------------------------------------------- */

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;
	if (f != NULL) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void check_limits(int n)
{
	struct rlimit r;
	rlim_t files = (rlim_t)n * 2 + 64, procs = (rlim_t)n + 64;
	long pty_max = read_long("/proc/sys/kernel/pty/max");
	long pty_nr = read_long("/proc/sys/kernel/pty/nr");
	char msg[160];

	getrlimit(RLIMIT_NOFILE, &r);
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < files) {
		if (r.rlim_max != RLIM_INFINITY && r.rlim_max < files) {
			snprintf(msg, sizeof msg, "%lu open files allowed (ulimit -Hn), %lu needed",
				 (unsigned long)r.rlim_max, (unsigned long)files);
			die("%s", msg);
		}
		r.rlim_cur = files;
		if (setrlimit(RLIMIT_NOFILE, &r) != 0)
			die("cannot raise the open-file limit: %s", strerror(errno));
	}
	getrlimit(RLIMIT_NPROC, &r);
	if (r.rlim_cur != RLIM_INFINITY && r.rlim_cur < procs) {
		snprintf(msg, sizeof msg, "%lu processes allowed (ulimit -u), %lu needed",
			 (unsigned long)r.rlim_cur, (unsigned long)procs);
		die("%s", msg);
	}
	if (pty_max > 0 && pty_nr >= 0 && pty_max - pty_nr < n + 1) {
		snprintf(msg, sizeof msg, "%ld pseudo-terminals free (/proc/sys/kernel/pty/max),"
			 " %d needed", pty_max - pty_nr, n + 1);
		die("%s", msg);
	}
}

/* --- memory -------------------------------------------------------------- */

/* "Name:   1234 kB" of a /proc file, in KiB (-1 if absent). */
static long proc_kib(pid_t pid, const char *file, const char *name)
{
	char path[64], line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, file);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			v = atol(line + len + 1);
			break;
		}
	fclose(f);
	return v;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_class [-n FOLLOWERS] [-r ROUNDS] [-s SAMPLE] [-k n|m]"
		" [ATTNVIEW]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int n = 300, rounds = 5, opt;
	char round_key = 'n';
	const char *sample = NULL, *program = "src/attnview";
	char base[] = "/tmp/bench_class.XXXXXX", room_dir[256];
	struct term *t;
	struct pollfd *fds;
	double t0, *lat;
	char *largv[8], *fargv[8];
	int k;

	setlocale(LC_ALL, "C.UTF-8");
	setvbuf(stdout, NULL, _IOLBF, 0);    /* each line as it comes, piped too */
	while ((opt = getopt(argc, argv, "n:r:s:k:")) != -1) {
		switch (opt) {
		case 'k': round_key = optarg[0]; break;
		case 'n': n = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 's': sample = optarg; break;
		default: usage();
		}
	}
	if (optind < argc)
		program = argv[optind];
	if (n < 1 || n > 1000 || rounds < 1 || rounds > 8 || (round_key != 'n' && round_key != 'm'))
		usage();
	if (access(program, X_OK) != 0)
		die("%s: not a program (give the path to attnview)", program);
	check_limits(n);
	signal(SIGPIPE, SIG_IGN);
	if (mkdtemp(base) == NULL)
		die("mkdtemp: %s", strerror(errno));
	snprintf(room_dir, sizeof room_dir, "%s/bench", base);

	k = 0;
	largv[k++] = strdup(program);
	if (sample) {
		largv[k++] = strdup("--sample");
		largv[k++] = strdup(sample);
	}
	memcpy(fargv, largv, sizeof largv);
	largv[k] = strdup("--lead");
	fargv[k] = strdup("--follow");
	largv[k + 1] = fargv[k + 1] = strdup("bench");
	largv[k + 2] = fargv[k + 2] = NULL;

	t = calloc((size_t)n + 1, sizeof *t);
	fds = calloc((size_t)n + 1, sizeof *fds);
	lat = calloc((size_t)n, sizeof *lat);
	/* t[0] is the leader */
	spawn(&t[0], 30, 100, "xterm-256color", false, largv, base);
	for (double end = now_s() + 30; !screen_has(&t[0].scr, "1/9") && now_s() < end;)
		pump(t, 1, fds, 100);
	if (!screen_has(&t[0].scr, "1/9"))
		die("the leader (%s) did not start", program);

	printf("starting %d followers of %s%s%s\n", n, program, sample ? " --sample " : "",
	       sample ? sample : "");
	t0 = now_s();
	for (int i = 1; i <= n; i++) {
		/* a mix of terminals: most 80x24 */
		switch (i % 10) {
		case 1: spawn(&t[i], 60, 200, "xterm-256color", false, fargv, base); break;
		case 2: spawn(&t[i], 20, 60, "vt100", true, fargv, base); break;
		case 3: spawn(&t[i], 40, 120, "xterm-256color", false, fargv, base); break;
		default: spawn(&t[i], 24, 80, "xterm-256color", false, fargv, base); break;
		}
		pump(t, i + 1, fds, 0);
	}
	for (int joined = 0; joined < n && now_s() - t0 < START_TIMEOUT_S;) {
		pump(t, n + 1, fds, 100);
		joined = 0;
		for (int i = 1; i <= n; i++) {
			t[i].joined = t[i].joined || screen_has(&t[i].scr, "following");
			joined += t[i].joined;
		}
	}
	for (int i = 1; i <= n; i++)
		if (!t[i].joined) {
			char row[4096];
			fprintf(stderr, "follower %d did not join; its screen:\n", i);
			for (int y = 0; y < t[i].rows; y++)
				fprintf(stderr, "|%s\n", screen_row(&t[i].scr, y, row, sizeof row));
			die("%s", "not every follower joined");
		}
	printf("%d followers started and joined in %.1f s\n", n, now_s() - t0);
	while (pump(t, n + 1, fds, 1000) > 0)
		;    /* until everyone is idle */

	/* memory, idle and following */
	long rss = 0, pss = 0, leader_rss = proc_kib(t[0].pid, "status", "VmRSS"),
	     leader_pss = proc_kib(t[0].pid, "smaps_rollup", "Pss");
	for (int i = 1; i <= n; i++) {
		rss += proc_kib(t[i].pid, "status", "VmRSS");
		pss += proc_kib(t[i].pid, "smaps_rollup", "Pss");
	}
	printf("memory: followers RSS %.1f MiB (%.0f KiB each), PSS %.1f MiB (%.0f KiB each);"
	       " leader RSS %.1f MiB, PSS %.1f MiB\n", rss / 1024.0, (double)rss / n,
	       pss / 1024.0, (double)pss / n, leader_rss / 1024.0, leader_pss / 1024.0);
	printf("memory, all %d processes: RSS %.2f GiB, PSS %.2f GiB (goal: 3 GB)\n", n + 1,
	       (rss + leader_rss) / 1048576.0, (pss + leader_pss) / 1048576.0);

	double worst_all = 0;
	for (int r = 1; r <= rounds; r++) {
		char want[16];
		int stage = r % 8 + 1;     /* 2/9 .. 9/9, then around */
		int behind = n;
		/* n forwards, from the last stage g goes back to the first */
		char key = round_key == 'm' ? 'm' : stage == 1 ? 'g' : 'n';

		if (key == 'm')
			snprintf(want, sizeof want, "%s", r % 2 ? "causal" : "self ");
		else
			snprintf(want, sizeof want, "%d/9", stage);
		for (int i = 1; i <= n; i++)
			t[i].header_at = 0;
		t0 = now_s();
		if (write(t[0].fd, &key, 1) != 1)
			die("cannot type on the leader's terminal: %s", strerror(errno));
		while (now_s() - t0 < ROUND_TIMEOUT_S) {
			pump(t, n + 1, fds, 20);
			behind = 0;
			double now = now_s();
			for (int i = 1; i <= n; i++) {
				if (t[i].header_at == 0) {
					char row[4096];
					if (strstr(screen_row(&t[i].scr, 0, row, sizeof row), want))
						t[i].header_at = now;
				}
				behind += t[i].header_at == 0 || now - t[i].last_byte < QUIET_MS / 1e3;
			}
			if (behind == 0)
				break;
		}
		if (behind > 0)
			die("%s", "a follower did not repaint within the round's time");
		for (int i = 1; i <= n; i++)
			lat[i - 1] = t[i].last_byte - t0;
		qsort(lat, (size_t)n, sizeof *lat, compare_doubles);
		printf("round %d (%s): key to repaint: median %.0f ms, 90%% %.0f ms,"
		       " last follower %.0f ms\n", r, want, lat[n / 2] * 1e3,
		       lat[(n * 9) / 10] * 1e3, lat[n - 1] * 1e3);
		if (lat[n - 1] > worst_all)
			worst_all = lat[n - 1];
	}
	if (getenv("BENCH_SHOW") != NULL) {    /* the model's screens, to check them */
		for (int i = 0; i <= 3 && i <= n; i++) {
			char row[4096];
			printf("terminal %d (%dx%d):\n", i, t[i].cols, t[i].rows);
			for (int y = 0; y < t[i].rows; y++)
				printf("|%s\n", screen_row(&t[i].scr, y, row, sizeof row));
		}
	}
	printf("%d followers: the leader's key to the last follower's repaint, worst of %d"
	       " rounds: %.0f ms (goal: 500 ms)\n", n, rounds, worst_all * 1e3);

	for (int i = 0; i <= n; i++)
		kill(t[i].pid, SIGTERM);
	for (int i = 0; i <= n; i++) {
		waitpid(t[i].pid, NULL, 0);
		close(t[i].fd);
		free(t[i].scr.cell);
	}
	rmdir(room_dir);
	rmdir(base);
	free(t);
	free(fds);
	free(lat);
	return 0;
}
