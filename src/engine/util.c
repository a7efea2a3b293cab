/* util.c: allocation, formatted errors and whole-file I/O. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	va_list copy;
	va_copy(copy, ap);
	int len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len < 0)
		return av_strdup("(unprintable message)");
	char *buf = av_malloc((size_t)len + 1);
	vsnprintf(buf, (size_t)len + 1, fmt, ap);
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

bool av_read_file(const char *path, char **text, size_t *len, char **cause)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return av_fail(cause, "%s: %s", path, strerror(errno));
	size_t cap = 4096, used = 0;
	char *buf = av_malloc(cap);
	for (;;) {
		if (used + 1 >= cap) {
			cap *= 2;
			buf = av_realloc(buf, cap, 1);
		}
		size_t got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
		if (got == 0)
			break;
	}
	bool failed = ferror(f);
	int err = errno;
	fclose(f);
	if (failed) {
		free(buf);
		return av_fail(cause, "%s: %s", path, strerror(err));
	}
	buf[used] = '\0';
	if (memchr(buf, '\0', used)) {
		free(buf);
		return av_fail(cause, "%s: not a text file (it contains a NUL byte)", path);
	}
	*text = buf;
	if (len)
		*len = used;
	return true;
}

static bool write_all(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		text += n;
		len -= (size_t)n;
	}
	return true;
}

bool av_write_file_atomic(const char *path, const char *text, size_t len, char **cause)
{
	if (strcmp(path, "-") == 0) {
		if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
			return av_fail(cause, "standard output: %s", strerror(errno));
		return true;
	}
	char *tmp = av_printf("%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int err = errno;
		free(tmp);
		return av_fail(cause, "%s: cannot create a temporary file beside it: %s",
			       path, strerror(err));
	}
	bool ok = write_all(fd, text, len) && fsync(fd) == 0;
	int err = errno;
	if (close(fd) != 0 && ok) {
		ok = false;
		err = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		unlink(tmp);
		free(tmp);
		return av_fail(cause, "%s: %s (nothing was written)", path, strerror(err));
	}
	free(tmp);
	return true;
}
