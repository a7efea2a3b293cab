/* util.c: allocation, formatted errors, whole-file I/O and finding data
 * files (samples, themes) by name. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <langinfo.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "number.h"
#include "utf8.h"
#include "util.h"

static void out_of_memory(void)
{
	fputs("attnview: out of memory\n", stderr);
	abort();
}

void *av_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *av_calloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *av_realloc(void *ptr, size_t count, size_t size)
{
	if (size && count > (size_t)-1 / size)
		out_of_memory();
	size_t bytes = count * size;
	void *p = realloc(ptr, bytes ? bytes : 1);
	if (!p)
		out_of_memory();
	return p;
}

char *av_strdup(const char *s)
{
	return av_strndup(s, strlen(s));
}

char *av_strndup(const char *s, size_t n)
{
	char *p = av_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *av_vprintf(const char *fmt, va_list ap)
{
	locale_t previous = av_numeric_c_begin();
	va_list copy;
	va_copy(copy, ap);
	int len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	char *buf;
	if (len < 0) {
		buf = av_strdup("(unprintable message)");
	} else {
		buf = av_malloc((size_t)len + 1);
		vsnprintf(buf, (size_t)len + 1, fmt, ap);
	}
	av_numeric_c_end(previous);
	return buf;
}

char *av_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = av_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

bool av_fail(char **cause, const char *fmt, ...)
{
	if (cause) {
		va_list ap;
		va_start(ap, fmt);
		free(*cause);
		*cause = av_vprintf(fmt, ap);
		va_end(ap);
	}
	return false;
}

void av_cause_prefix(char **cause, const char *fmt, ...)
{
	if (!cause || !*cause)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *prefix = av_vprintf(fmt, ap);
	va_end(ap);
	char *joined = av_printf("%s: %s", prefix, *cause);
	free(prefix);
	free(*cause);
	*cause = joined;
}

/* Characters that change how a terminal shows the text around them but
 * show nothing themselves: controls, the soft hyphen, zero-width and bidi
 * characters (U+061C too), the BOM, the interlinear annotation marks and
 * the tag characters, which can spell hidden text. */
static bool invisible(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xad || av_cp_is_bidi_control(cp)
		|| (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e)
		|| (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff
		|| (cp >= 0xfff9 && cp <= 0xfffb) || (cp >= 0xe0000 && cp <= 0xe007f);
}

bool av_cp_invisible(uint32_t cp)
{
	return invisible(cp);
}

enum escape_set {
	ESCAPE_INVISIBLE = 0,      /* controls, format characters, bad bytes */
	ESCAPE_QUOTES = 1,         /* and \ and \" (text shown in quotes) */
	ESCAPE_NON_ASCII = 2,      /* and every character past ASCII */
};

/* The first character of s (len > 0 bytes) as it is shown, into shown[12];
 * returns how many bytes of s it took. */
static size_t escape_char(const char *s, size_t len, unsigned set, char shown[static 12])
{
	uint32_t cp;
	int k = av_utf8_decode(s, len, &cp);
	if (k < 0) {
		snprintf(shown, 12, "\\x%02x", (unsigned char)s[0]);
		return 1;
	}
	if (cp < 0x80 && invisible(cp))
		snprintf(shown, 12, "\\x%02x", (unsigned)cp);
	else if (cp > 0xffff && (invisible(cp) || (set & ESCAPE_NON_ASCII)))
		snprintf(shown, 12, "\\U%08x", (unsigned)cp);
	else if (invisible(cp) || (cp >= 0x80 && (set & ESCAPE_NON_ASCII)))
		snprintf(shown, 12, "\\u%04x", (unsigned)cp);
	else if ((set & ESCAPE_QUOTES) && (cp == '\\' || cp == '"'))
		snprintf(shown, 12, "\\%c", (char)cp);
	else
		snprintf(shown, 12, "%.*s", k, s);
	return (size_t)k;
}

/* av_escape (quotes, cut at max_chars), av_escape_controls and
 * av_escape_output (neither). */
static char *escape(const char *s, size_t max_chars, unsigned set)
{
	size_t len = strlen(s);
	/* each character takes at most 10 bytes escaped */
	size_t chars_out = len < max_chars ? len : max_chars;
	char *out = av_malloc(chars_out * 10 + 4);
	size_t used = 0, pos = 0;
	for (size_t chars = 0; pos < len; chars++) {
		if (chars == max_chars) {
			memcpy(out + used, "...", 3);
			used += 3;
			break;
		}
		char shown[12];
		pos += escape_char(s + pos, len - pos, set, shown);
		size_t n = strlen(shown);
		memcpy(out + used, shown, n);
		used += n;
	}
	out[used] = '\0';
	return out;
}

char *av_escape(const char *s)
{
	return escape(s, AV_ESCAPE_MAX_CHARS, ESCAPE_QUOTES);
}

char *av_escape_controls(const char *s)
{
	return escape(s, (size_t)-1, ESCAPE_INVISIBLE);
}

char *av_escape_message(const char *s, bool ascii)
{
	return escape(s, (size_t)-1, ascii ? ESCAPE_NON_ASCII : ESCAPE_INVISIBLE);
}

size_t av_escape_controls_next(const char *s, size_t len, char shown[static 12])
{
	return escape_char(s, len, ESCAPE_INVISIBLE, shown);
}

bool av_locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

bool av_fd_wants_ascii(int fd)
{
	return isatty(fd) && !av_locale_is_utf8();
}

/* Set once by main before any output; batch output only. */
static bool output_ascii;

void av_output_set_ascii(bool ascii)
{
	output_ascii = ascii;
}

bool av_output_is_ascii(void)
{
	return output_ascii;
}

char *av_escape_output(const char *s)
{
	return escape(s, (size_t)-1, output_ascii ? ESCAPE_NON_ASCII : ESCAPE_INVISIBLE);
}

size_t av_escape_output_next(const char *s, size_t len, char shown[static 12])
{
	return escape_char(s, len, output_ascii ? ESCAPE_NON_ASCII : ESCAPE_INVISIBLE, shown);
}

/* What a file that cannot be read as text is, for the message. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return _("a directory");
	if (S_ISCHR(mode))
		return _("a character device");
	if (S_ISBLK(mode))
		return _("a block device");
	if (S_ISSOCK(mode))
		return _("a socket");
	return _("not a file");
}

/* "64 MiB", "1 MiB", "512 KiB", "100 bytes" */
static char *size_text(size_t bytes)
{
	if (bytes >= ((size_t)1 << 20) && bytes % ((size_t)1 << 20) == 0)
		return av_printf("%zu MiB", bytes >> 20);
	if (bytes >= 1024 && bytes % 1024 == 0)
		return av_printf("%zu KiB", bytes >> 10);
	return av_printf(P_("%zu byte", "%zu bytes", bytes), bytes);
}

/* Reads fd to its end or past limit (then *too_big); false on a read error. */
static bool read_bounded(int fd, size_t limit, char **out, size_t *used, bool *too_big)
{
	size_t cap = 4096;
	char *buf = av_malloc(cap);
	*used = 0;
	*too_big = false;
	for (;;) {
		if (*used + 1 >= cap) {
			cap *= 2;
			buf = av_realloc(buf, cap, 1);
		}
		ssize_t got = read(fd, buf + *used, cap - *used - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return false;
		}
		if (got == 0)
			break;
		*used += (size_t)got;
		if (*used > limit) {
			*too_big = true;
			break;
		}
	}
	buf[*used] = '\0';
	*out = buf;
	return true;
}

bool av_read_file_limit(const char *path, size_t limit, const char *what, char **text,
			size_t *len, char **cause)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return av_fail(cause, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int err = errno;
		close(fd);
		return av_fail(cause, "%s: %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		close(fd);
		return av_fail(cause, _("%s: not a regular file (%s)"), path, file_kind(st.st_mode));
	}
	char *buf = NULL;
	size_t used = 0;
	bool too_big = S_ISREG(st.st_mode) && (uintmax_t)st.st_size > limit;
	bool ok = too_big || read_bounded(fd, limit, &buf, &used, &too_big);
	int err = errno;
	close(fd);
	if (!ok)
		return av_fail(cause, "%s: %s", path, strerror(err));
	if (too_big) {
		free(buf);
		char *max = size_text(limit);
		av_fail(cause, _("%s: larger than the %s limit for %s"), path, max, what);
		free(max);
		return false;
	}
	if (memchr(buf, '\0', used)) {
		free(buf);
		return av_fail(cause, _("%s: not a text file (it contains a NUL byte)"), path);
	}
	*text = buf;
	if (len)
		*len = used;
	return true;
}

bool av_read_file(const char *path, char **text, size_t *len, char **cause)
{
	return av_read_file_limit(path, AV_MAX_WEIGHTS_FILE, _("weights files"), text, len, cause);
}

bool av_write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;   /* nothing taken: not an endless loop */
			return false;
		}
		text += n;
		len -= (size_t)n;
	}
	return true;
}

/* A device or a pipe (/dev/null, /dev/stdout, a FIFO) is written in place:
 * renaming a file over it would replace the device with a file. Without
 * wait_for_reader a FIFO no program reads is refused at once (open with
 * O_NONBLOCK fails with ENXIO) instead of blocking until one does; once
 * open, the writes block as usual. */
static bool write_special(const char *path, av_file_writer emit, void *ctx,
			  bool wait_for_reader, char **cause)
{
	int fd = open(path, O_WRONLY | (wait_for_reader ? 0 : O_NONBLOCK));
	if (fd < 0 && errno == ENXIO && !wait_for_reader)
		return av_fail(cause, _("%s: a pipe no program is reading (start the reader "
				"first)"), path);
	if (fd < 0)
		return av_fail(cause, "%s: %s", path, strerror(errno));
	if (!wait_for_reader) {
		int flags = fcntl(fd, F_GETFL);
		if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
			int err = errno;
			close(fd);
			return av_fail(cause, "%s: %s", path, strerror(err));
		}
	}
	int err = 0;
	bool ok = emit(fd, ctx, &err);
	if (close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	return ok || av_fail(cause, "%s: %s", path, strerror(err));
}

/* --- replacing a file
 * The temporary file beside the target is removed if a signal ends the
 * program while it exists: the handler may only use async-signal-safe
 * calls, so the path is recorded in a static buffer beforehand. */

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])
static char cleanup_path[4096];
static volatile sig_atomic_t cleanup_armed;
static volatile sig_atomic_t cleanup_caught;   /* the signal, or 0 */
static struct sigaction cleanup_saved[N_CLEANUP_SIGNALS];

static void cleanup_on_signal(int sig)
{
	if (cleanup_armed)
		unlink(cleanup_path);
	cleanup_armed = 0;
	cleanup_caught = sig;   /* if the program goes on (a handler that returns) */
	/* the previous action (default: terminate) runs once we return */
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		if (cleanup_signals[i] == sig)
			sigaction(sig, &cleanup_saved[i], NULL);
	raise(sig);
}

static void cleanup_arm(const char *tmp)
{
	if (strlen(tmp) >= sizeof cleanup_path)
		return;   /* too long to record: an interruption leaves it */
	memcpy(cleanup_path, tmp, strlen(tmp) + 1);
	cleanup_armed = 1;
	cleanup_caught = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cleanup_on_signal;
	sigemptyset(&sa.sa_mask);
	/* An ignored signal (nohup, a script's background job) stays ignored:
	 * the write goes on and must not lose its file. */
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		if (sigaction(cleanup_signals[i], NULL, &cleanup_saved[i]) == 0 &&
		    cleanup_saved[i].sa_handler != SIG_IGN)
			sigaction(cleanup_signals[i], &sa, NULL);
}

static void cleanup_disarm(void)
{
	if (!cleanup_armed)
		return;
	for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
		sigaction(cleanup_signals[i], &cleanup_saved[i], NULL);
	cleanup_armed = 0;
}

/* The descriptor a name stands for (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N, /proc/thread-self/fd/N, /proc/PID/fd/N of this
 * process), or -1. Such a name is the shell's redirection or a <(...):
 * written through the descriptor itself, as "-" is, since the file behind
 * it, replaced, lost what a >> had before (and a pipe's link text, "pipe:
 * [N]", is no file at all). */
static int descriptor_named(const char *path)
{
	if (strcmp(path, "/dev/stdout") == 0)
		return STDOUT_FILENO;
	if (strcmp(path, "/dev/stderr") == 0)
		return STDERR_FILENO;
	char own[32];
	snprintf(own, sizeof own, "/proc/%ld/fd/", (long)getpid());
	const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		size_t len = strlen(dirs[i]);
		const char *digits = path + len;
		if (strncmp(path, dirs[i], len) != 0 || *digits == '\0' ||
		    digits[strspn(digits, "0123456789")] != '\0' || strlen(digits) > 9)
			continue;
		return atoi(digits);
	}
	return -1;
}

/* The file a chain of symbolic links ends at (path itself when it is not a
 * link; the end need not exist), malloc'd; NULL with errno ELOOP for a
 * loop. Relative link text is taken from the link's own directory. A
 * descriptor's name (descriptor_named) ends the chain: /proc's links name
 * what the descriptor was opened on, not where it writes. */
static char *follow_links(const char *path)
{
	char *cur = av_strdup(path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		if (descriptor_named(cur) >= 0 || lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		size_t cap = (size_t)(st.st_size > 0 ? st.st_size : 255) + 1;
		char *link = av_malloc(cap);
		ssize_t n = readlink(cur, link, cap);
		if (n < 0 || (size_t)n >= cap) {
			free(link);
			return cur;   /* changed under us: use it as it is */
		}
		link[n] = '\0';
		char *slash = strrchr(cur, '/');
		char *next = link[0] == '/' || !slash
			? av_strdup(link)
			: av_printf("%.*s/%s", (int)(slash - cur), cur, link);
		free(link);
		free(cur);
		cur = next;
	}
	free(cur);
	errno = ELOOP;
	return NULL;
}

/* The mode a new file gets: 0666 less the umask, as open(2) would give. */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* Gives the temporary file the mode (and where allowed the owner) of the
 * file it replaces, or a new file's mode. */
static void copy_mode(int fd, const struct stat *old)
{
	if (!old) {
		fchmod(fd, new_file_mode());
		return;
	}
	mode_t mode = old->st_mode & 07777;
	if (fchown(fd, old->st_uid, old->st_gid) != 0)
		mode &= 0777;   /* not set-id bits on a file someone else owns */
	fchmod(fd, mode);
}

/* Writes text into a new temporary file beside target; *tmp is its name:
 * target's with ".tmpXXXXXX", or ".attnview-XXXXXX" in target's folder
 * when that is a name too long (a file name of 246 to 255 bytes, which the
 * file system takes, was refused: "cannot write in the folder .: File
 * name too long"). */
static bool write_temporary(const char *target, const struct stat *old, av_file_writer emit,
			    void *ctx, char **tmp, int *err)
{
	*tmp = av_printf("%s.tmpXXXXXX", target);
	int fd = mkstemp(*tmp);
	if (fd < 0 && errno == ENAMETOOLONG) {
		const char *slash = strrchr(target, '/');
		free(*tmp);
		*tmp = av_printf("%.*s.attnview-XXXXXX", slash ? (int)(slash - target + 1) : 0,
				 target);
		fd = mkstemp(*tmp);
	}
	if (fd < 0) {
		*err = errno;
		free(*tmp);
		*tmp = NULL;
		return false;
	}
	cleanup_arm(*tmp);
	copy_mode(fd, old);
	*err = 0;
	bool ok = emit(fd, ctx, err);
	if (ok && fsync(fd) != 0) {
		ok = false;
		*err = errno;
	}
	if (close(fd) != 0 && ok) {
		ok = false;
		*err = errno;
	}
	return ok;
}

/* Room for size bytes in fd before a byte of it changes, so a full disk
 * leaves the old text whole; 0 or an errno. A file system without
 * fallocate goes on without the reservation. */
static int reserve_space(int fd, off_t size)
{
	int err = size > 0 ? posix_fallocate(fd, 0, size) : 0;
	return err == EOPNOTSUPP || err == ENOSYS ? 0 : err;
}

/* Rewrites fd (the target, open for writing) with the text of size bytes;
 * false with *err set on failure, *touched telling whether the file may
 * have changed. Truncated only at the end: new text shorter than the old
 * overwrites it, longer text has its room reserved first. */
static bool rewrite_in_place(int fd, off_t size, av_file_writer emit, void *ctx, int *err,
			     bool *touched)
{
	*touched = false;
	if ((*err = reserve_space(fd, size)) != 0)
		return false;
	*touched = true;
	if (!emit(fd, ctx, err))
		return false;
	if (ftruncate(fd, size) != 0 || fsync(fd) != 0) {
		*err = errno;
		return false;
	}
	return true;
}

/* A file with other hard links is rewritten in place so every name sees
 * the new text; the complete text is in tmp first and the room for it is
 * reserved, so a full disk shows up before the file is touched. */
static bool write_linked(const char *target, const char *tmp, av_file_writer emit, void *ctx,
			 char **cause)
{
	struct stat st;
	int fd = stat(tmp, &st) == 0 ? open(target, O_WRONLY) : -1;
	int err = errno;
	bool touched = false;
	bool ok = fd >= 0 && rewrite_in_place(fd, st.st_size, emit, ctx, &err, &touched);
	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (!ok && !touched)
		return av_fail(cause, _("%s: %s (it has other hard links, so it would be written "
			       "in place; it is unchanged, and the whole trace is in %s)"), target,
			       strerror(err), tmp);
	if (!ok)
		return av_fail(cause, _("%s: %s (it has other hard links, so it is written in place; "
			       "the whole trace is in %s)"), target, strerror(err), tmp);
	unlink(tmp);
	return true;
}

struct text_to_write {
	const char *text;
	size_t len;
};

static bool write_text(int fd, void *ctx, int *err)
{
	const struct text_to_write *t = ctx;
	if (av_write_all(fd, t->text, t->len))
		return true;
	*err = errno;
	return false;
}

static bool write_atomic(const char *path, av_file_writer emit, void *ctx,
			 bool wait_for_reader, char **cause);

bool av_write_file_atomic(const char *path, const char *text, size_t len, char **cause)
{
	struct text_to_write t = { text, len };
	return write_atomic(path, write_text, &t, true, cause);
}

bool av_write_file_atomic_now(const char *path, const char *text, size_t len, char **cause)
{
	struct text_to_write t = { text, len };
	return write_atomic(path, write_text, &t, false, cause);
}

bool av_write_file_atomic_with(const char *path, av_file_writer emit, void *ctx, char **cause)
{
	return write_atomic(path, emit, ctx, true, cause);
}

static bool is_folder(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder a file name is in, malloc'd: "." for a bare name. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return !slash ? av_strdup(".")
	       : slash == path ? av_strdup("/")
	       : av_strndup(path, (size_t)(slash - path));
}

/* No new file could be made beside target (the temporary one), the file
 * path ends at through its links: said of target's folder, which is what a
 * person can fix ("beside it" and the temporary file's name meant nothing
 * to a student who mistyped a folder). ENOENT in a folder that exists
 * (/proc/self) is not a missing folder, and is said as it is. */
static void folder_error(const char *path, const char *target, int err, char **cause)
{
	char *folder = folder_of(target);
	if (err == ENOENT && !is_folder(folder) && strcmp(path, target) != 0)
		av_fail(cause, _("%s: links to %s, and the folder %s does not exist"), path,
			target, folder);
	else if (err == ENOENT && !is_folder(folder))
		av_fail(cause, _("%s: the folder %s does not exist"), path, folder);
	else
		av_fail(cause, _("%s: cannot write in the folder %s: %s"), path, folder,
			strerror(err));
	free(folder);
}

bool av_stdout_fail(char **cause, int err)
{
	return av_fail(cause, _("standard output: %s"), err ? strerror(err) : _("write error"));
}

bool av_stdout_flush(char **cause)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return true;
	/* errno from the failed flush; 0 when only an earlier write failed and
	 * nothing was left to retry */
	return av_stdout_fail(cause, errno);
}

/* Writes to an open descriptor (standard output for "-", or one named by
 * path): what the shell set up, appending or a pipe, is kept. */
static bool write_descriptor(const char *path, int fd, av_file_writer emit, void *ctx,
			     char **cause)
{
	int err = 0;
	errno = 0;
	if ((fd == STDOUT_FILENO && fflush(stdout) != 0) ||
	    (fd == STDERR_FILENO && fflush(stderr) != 0) || !emit(fd, ctx, &err)) {
		err = err ? err : errno ? errno : EIO;
		if (strcmp(path, "-") == 0)
			return av_stdout_fail(cause, err);
		return av_fail(cause, "%s: %s", path, strerror(err));
	}
	return true;
}

/* After a rename into path's folder: the new name is an entry of the
 * folder, on disk only once the folder is synced (the file's own fsync
 * keeps its bytes, not its name), so a power cut could bring the old file,
 * or none, back under the name. Some file systems refuse fsync on a folder
 * (EINVAL, EBADF), and a folder one may write in but not read (a drop box,
 * mode 1733) cannot be opened to sync: normal, nothing more can be done,
 * and the write stands. A failed sync (EIO) is said, the file named as
 * written. */
static bool sync_folder_of(const char *path, const char *target, char **cause)
{
	char *folder = folder_of(target);
	int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = fd >= 0 && fsync(fd) != 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	bool ok = err == 0 || err == EINVAL || err == EBADF;
	if (!ok)
		av_fail(cause, _("%s: written, but not safely on disk: syncing the folder %s: %s"),
			path, folder, strerror(err));
	free(folder);
	return ok;
}

static bool write_atomic(const char *path, av_file_writer emit, void *ctx,
			 bool wait_for_reader, char **cause)
{
	if (strcmp(path, "-") == 0)
		return write_descriptor(path, STDOUT_FILENO, emit, ctx, cause);
	/* A symbolic link stays one: the file it points to is replaced. */
	char *target = follow_links(path);
	if (!target)
		return av_fail(cause, "%s: %s", path, strerror(errno));
	int fd = descriptor_named(target);
	if (fd >= 0) {
		free(target);
		return write_descriptor(path, fd, emit, ctx, cause);
	}
	struct stat st;
	bool exists = stat(target, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		free(target);
		if (S_ISDIR(st.st_mode))
			return av_fail(cause, _("%s: is a directory"), path);
		return write_special(path, emit, ctx, wait_for_reader, cause);
	}
	/* replaced by a rename, which asks only for the folder's permission:
	 * a file the person may not write is refused as open(2) would */
	if (exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0) {
		int err = errno;
		free(target);
		return av_fail(cause, _("%s: %s (nothing was written)"), path, strerror(err));
	}
	char *tmp;
	int err;
	bool ok = write_temporary(target, exists ? &st : NULL, emit, ctx, &tmp, &err);
	bool linked = ok && exists && st.st_nlink > 1;
	if (!tmp) {
		folder_error(path, target, err, cause);
	} else if (linked) {
		/* on failure tmp is kept (and named): it holds the trace, so an
		 * interruption while the target is half rewritten keeps it too */
		cleanup_disarm();
		ok = write_linked(target, tmp, emit, ctx, cause);
	} else if (ok && rename(tmp, target) != 0) {
		ok = false;
		err = errno;
	}
	cleanup_disarm();
	if (!ok && tmp && !linked && cleanup_caught) {
		/* the handler removed tmp, so rename failed with ENOENT; the
		 * program's own handler returned and we are still here */
		av_fail(cause, _("%s: interrupted by a signal (%s); nothing was written"), path,
			strsignal(cleanup_caught));
	} else if (!ok && tmp && !linked) {
		unlink(tmp);
		av_fail(cause, _("%s: %s (nothing was written)"), path, strerror(err));
	} else if (ok && !linked) {
		ok = sync_folder_of(path, target, cause);   /* renamed into it */
	}
	free(tmp);
	free(target);
	return ok;
}

/* --- data files found by name */

/* A growable NULL-terminated list of malloc'd strings without repeats. */
struct names {
	int n, cap;
	char **v;
};

/* Adds s (taking it) unless it is there already. */
static void names_add(struct names *l, char *s)
{
	for (int i = 0; i < l->n; i++) {
		if (strcmp(l->v[i], s) == 0) {
			free(s);
			return;
		}
	}
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = av_realloc(l->v, (size_t)l->cap, sizeof *l->v);
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

/* The list as av_string_list_free takes it (never NULL). */
static char **names_take(struct names *l)
{
	return l->v ? l->v : av_calloc(1, sizeof(char *));
}

void av_string_list_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

bool av_data_valid_name(const char *name)
{
	if (!*name)
		return false;
	for (const char *c = name; *c; c++) {
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')
		      || *c == '_' || *c == '-'))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool installed_only;

void av_data_installed_only(void)
{
	installed_only = true;
}

/* The KIND directories in search order, without repeats (the tests and an
 * uninstalled build point $ATTNVIEW_DATA_DIR at the source tree). The
 * installed data comes before the source tree the binary was built from:
 * an installed attnview uses what `make install` put there (installcheck
 * proves it), and the tree is only the fallback of an uninstalled build. */
static char **search_dirs(const char *kind)
{
	const char *roots[] = { getenv("ATTNVIEW_DATA_DIR"), PKGDATADIR, AV_SRCDIR };
	/* --restricted: PKGDATADIR alone */
	size_t first = installed_only ? 1 : 0, end = installed_only ? 2 : 3;
	struct names dirs = { 0 };
	for (size_t i = first; i < end; i++) {
		if (roots[i] && *roots[i])
			names_add(&dirs, av_printf("%s/%s", roots[i], kind));
	}
	return names_take(&dirs);
}

static void list_dir(const char *dir, struct names *names)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!ends_with(e->d_name, ".json"))
			continue;
		char *name = av_strndup(e->d_name, strlen(e->d_name) - strlen(".json"));
		if (av_data_valid_name(name))
			names_add(names, name);
		else
			free(name);
	}
	closedir(d);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **av_data_list(const char *kind, const char *const extra[])
{
	struct names names = { 0 };
	char **dirs = search_dirs(kind);
	for (char **d = dirs; *d; d++)
		list_dir(*d, &names);
	av_string_list_free(dirs);
	for (int i = 0; extra && extra[i]; i++)
		names_add(&names, av_strdup(extra[i]));
	if (names.n > 0)
		qsort(names.v, (size_t)names.n, sizeof *names.v, compare_names);
	return names_take(&names);
}

/* "a, b, c" of a NULL-terminated list (malloc'd); empty gives dflt. */
static char *join(char *const *v, const char *dflt)
{
	if (!*v)
		return av_strdup(dflt);
	size_t len = 1;
	for (char *const *p = v; *p; p++)
		len += strlen(*p) + 2;
	char *out = av_calloc(len, 1);
	for (char *const *p = v; *p; p++) {
		if (p != v)
			strcat(out, ", ");
		strcat(out, *p);
	}
	return out;
}

bool av_data_not_found(const char *kind, const char *what, const char *name,
		       const char *const extra[], char **cause)
{
	char **dirs = search_dirs(kind);
	char **names = av_data_list(kind, extra);
	char *looked = join(dirs, _("nowhere"));
	char *avail = join(names, _("none"));
	av_fail(cause, _("no %s named \"%s\" (looked in %s; available: %s)"),
		what, name, looked, avail);
	free(looked);
	free(avail);
	av_string_list_free(dirs);
	av_string_list_free(names);
	return false;
}

bool av_data_find(const char *kind, const char *what, const char *name_or_path,
		  char **path, char **cause)
{
	*path = NULL;
	if (strchr(name_or_path, '/') || ends_with(name_or_path, ".json")) {
		if (installed_only)
			return av_fail(cause, _("%s \"%s\": restricted mode reads only the installed"
					       " data: give a name, not a file"), what, name_or_path);
		*path = av_strdup(name_or_path);
		return true;
	}
	if (!av_data_valid_name(name_or_path))
		return av_fail(cause, _("invalid %s name \"%s\" (a name has only a-z, 0-9, "
			       "_ and -; a path contains / or ends in .json)"), what, name_or_path);
	char **dirs = search_dirs(kind);
	/* The first that exists wins, even if it is broken: its error is the
	 * one to show, not "not found". */
	for (char **d = dirs; *d && !*path; d++) {
		char *p = av_printf("%s/%s.json", *d, name_or_path);
		if (access(p, F_OK) == 0)
			*path = p;
		else
			free(p);
	}
	av_string_list_free(dirs);
	return true;
}
