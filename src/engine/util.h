/* util.h: allocation that never returns NULL, and the error-string pattern.
 *
 * Engine functions that can fail because of user input return bool and, on
 * failure, set *cause to a malloc'd message (tmux's `char **cause` pattern).
 * The caller decides how to report it; the engine never prints. */
#ifndef AV_UTIL_H
#define AV_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

void *av_malloc(size_t size);
void *av_calloc(size_t count, size_t size);
void *av_realloc(void *ptr, size_t count, size_t size);
char *av_strdup(const char *s);
char *av_strndup(const char *s, size_t n);

/* A malloc'd printf. */
char *av_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *av_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Sets *cause (when cause is not NULL) to a formatted message and returns
 * false, so that error paths read `return av_fail(cause, "...", ...);`. */
bool av_fail(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes an existing *cause with "prefix: ", keeping ownership right. */
void av_cause_prefix(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads a whole file into a NUL-terminated malloc'd buffer. */
bool av_read_file(const char *path, char **text, size_t *len, char **cause);

/* Writes text to path atomically: a temporary file in the same directory,
 * fsync'd and renamed over path only when everything was written. "-" writes
 * to standard output. Nothing partial is ever left at path. */
bool av_write_file_atomic(const char *path, const char *text, size_t len, char **cause);

#endif
