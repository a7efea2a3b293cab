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
#include <stdint.h>

void *av_malloc(size_t size);
void *av_calloc(size_t count, size_t size);
void *av_realloc(void *ptr, size_t count, size_t size);
char *av_strdup(const char *s);
char *av_strndup(const char *s, size_t n);

/* A malloc'd printf, with the C locale's decimal point whatever the
 * program's (or a test's) setlocale says (number.h), so messages read the
 * same in every locale. */
char *av_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *av_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Sets *cause (when cause is not NULL) to a formatted message and returns
 * false, so that error paths read `return av_fail(cause, "...", ...);`. */
bool av_fail(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Standard output's failures, said the same way in every mode (--help,
 * --print, --dump -, the listings): "standard output: No space left on
 * device", naming errno's cause, or "write error" when err is 0.
 * av_stdout_flush flushes stdout and fails so when it or an earlier write
 * failed. */
bool av_stdout_fail(char **cause, int err);
bool av_stdout_flush(char **cause);

/* Prefixes an existing *cause with "prefix: ", keeping ownership right. */
void av_cause_prefix(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Untrusted text (a key, a value or a word from a file) made safe to show
 * in a message, malloc'd: control characters (C0, DEL, C1), bidi and other
 * invisible format characters, backslash and double quote are escaped as
 * \x1b, \u202e, \\ and \"; an invalid UTF-8 byte as \xff; text longer than
 * AV_ESCAPE_MAX_CHARS characters is cut there and ends in "...". So a file
 * can neither retitle nor clear the terminal through an error message. */
#define AV_ESCAPE_MAX_CHARS 40
char *av_escape(const char *s);

/* The same for a whole message, as the last step before it is shown: only
 * the invisible characters are escaped (not \\ or \"), nothing is cut, so
 * text av_escape already escaped is unchanged. Covers what no loader
 * quoted: a file name or an argument with an escape sequence in it. */
char *av_escape_controls(const char *s);

/* av_escape_controls, and with ascii every non-ASCII character too: a
 * message for a terminal whose locale is not UTF-8 (see av_escape_output
 * for why). */
char *av_escape_message(const char *s, bool ascii);

/* Text from input (a token, a title, a file name) as batch output prints it
 * on standard output (--print, --list-lessons, ...), malloc'd: what
 * av_escape_controls escapes, nothing cut. After av_output_set_ascii(true)
 * every other non-ASCII character is escaped too (\u00e9, \U0001f600): for
 * a terminal whose locale is not UTF-8, where UTF-8's bytes would show as
 * mojibake and those from 0x80 to 0x9f (U+201B is e2 80 9b) act as C1
 * controls: 0x9b is CSI. */
char *av_escape_output(const char *s);

/* The characters the escapes above treat as invisible: C0 and C1 controls
 * and DEL, bidi controls and the other format characters that show nothing
 * (soft hyphen, zero-width ones, line and paragraph separators, word
 * joiners, BOM, interlinear annotation, tags). */
bool av_cp_invisible(uint32_t cp);

/* The first character of s (len > 0 bytes) as av_escape_output shows it,
 * into shown (NUL-ended); returns how many bytes of s it took. For text cut
 * to a width: an escape is never cut in two. */
size_t av_escape_output_next(const char *s, size_t len, char shown[static 12]);

/* The first character of s (len > 0 bytes) as av_escape_controls shows it,
 * whatever av_output_set_ascii said (a file is UTF-8 in every locale); as
 * av_escape_output_next otherwise. */
size_t av_escape_controls_next(const char *s, size_t len, char shown[static 12]);

/* Whether av_escape_output escapes every non-ASCII character. */
void av_output_set_ascii(bool ascii);

/* What av_output_set_ascii last set (false before): batch output picks
 * its cut marker by it ("~" where "…" would be escaped). */
bool av_output_is_ascii(void);

/* The locale's codeset is UTF-8 (nl_langinfo). */
bool av_locale_is_utf8(void);

/* fd is a terminal whose locale is not UTF-8: text from input written to it
 * has every non-ASCII character escaped (--print, messages, JSON), where
 * UTF-8 would be mojibake and its bytes 0x80..0x9f C1 controls. A file or a
 * pipe gets UTF-8 in every locale. */
bool av_fd_wants_ascii(int fd);

/* The largest files attnview reads: input is bounded, so an endless one
 * (/dev/zero, a pipe that never ends) is refused instead of eating memory.
 * The largest shipped file (a reference fixture at d_model 512) is 8 MiB. */
#define AV_MAX_WEIGHTS_FILE ((size_t)64 << 20)   /* weights files and traces */
#define AV_MAX_TEXT_FILE ((size_t)1 << 20)       /* samples and themes */

/* Reads a whole file into a NUL-terminated malloc'd buffer: at most limit
 * bytes ("FILE: larger than the 64 MiB limit for weights files", what being
 * "weights files"). A regular file or a pipe (a FIFO, /dev/stdin, <(...)) is
 * read; a device, directory or socket is refused ("FILE: not a regular file
 * (a character device)"). A NUL byte is an error too (no text file has one). */
bool av_read_file_limit(const char *path, size_t limit, const char *what, char **text,
			size_t *len, char **cause);

/* av_read_file_limit with the weights limit. */
bool av_read_file(const char *path, char **text, size_t *len, char **cause);

/* Writes text to path atomically: a temporary file PATH.tmpXXXXXX in the
 * same directory, fsync'd and renamed over path only when everything was
 * written, so nothing partial is ever left at path; then the folder is
 * fsync'd, so the new name survives a power cut (a file system that
 * refuses fsync on a folder, EINVAL or EBADF, is not an error; another
 * failure there is: "FILE: written, but not safely on disk: ..."). What a
 * person expects of the file is kept, as editors do:
 *   - a new file gets 0666 less the umask; a replaced one keeps its mode
 *     (and its owner and group where allowed);
 *   - a symbolic link stays a link: the file at the end of the chain is
 *     replaced (a dangling link's target is created);
 *   - a file with other hard links is written in place after the whole text
 *     is safely in the temporary file and its room is reserved
 *     (posix_fallocate: a full disk leaves the old text whole), so every
 *     name sees the new text (the one case that is not atomic; on failure,
 *     or a signal, the temporary file is kept and the message names it);
 *   - a device or pipe (/dev/null, a FIFO) is written in place;
 *   - SIGINT, SIGTERM, SIGHUP or SIGXFSZ (main ignores it: a file size
 *     limit is EFBIG) during the write remove the
 *     temporary file before the signal takes its usual effect; when that
 *     is a handler that returns (the screen's), the write fails with
 *     "FILE: interrupted by a signal (Interrupt); nothing was written". A
 *     signal the program ignores (nohup, a background job) stays ignored.
 * "-" writes to standard output. */
bool av_write_file_atomic(const char *path, const char *text, size_t len, char **cause);

/* av_write_file_atomic for the screen, which must never freeze: a FIFO no
 * program is reading is refused at once ("FILE: a pipe no program is
 * reading") where the command line waits for a reader, as cat > FIFO
 * does. */
bool av_write_file_atomic_now(const char *path, const char *text, size_t len, char **cause);

/* All len bytes of text to fd, a write(2) interrupted by a signal tried
 * again; false with errno set when one fails. */
bool av_write_all(int fd, const char *text, size_t len);

/* The same for a text made as it is written (--dump streams its JSON):
 * emit writes the whole text to fd, returning false with *err set to an
 * errno on failure. It may be called twice (a file with other hard links
 * is rewritten in place after the temporary file), so it must write the
 * same text each time. */
typedef bool (*av_file_writer)(int fd, void *ctx, int *err);
bool av_write_file_atomic_with(const char *path, av_file_writer emit, void *ctx, char **cause);

/* --- data files found by name (samples/NAME.json, themes/NAME.json)
 * Shared by --sample and --theme so both search, validate names and report
 * "not found" the same way. kind is the directory ("samples"), what the
 * word for messages ("sample"). */

/* A path (contains '/' or ends in .json) gives *path = a copy of it; a name
 * (only a-z, 0-9, _ and -) is looked for as KIND/NAME.json in
 * $ATTNVIEW_DATA_DIR, the build tree (AV_SRCDIR) and PKGDATADIR, in that
 * order, and *path is the first that exists, or NULL if none does. *path is
 * malloc'd. False only for an invalid name ("invalid sample name ..."), or
 * a path after av_data_installed_only. */
bool av_data_find(const char *kind, const char *what, const char *name_or_path,
		  char **path, char **cause);

/* Whether name is one av_data_find looks up: only a-z, 0-9, _ and -, so
 * a name can never climb out of the directory. */
bool av_data_valid_name(const char *name);

/* From now on a name is looked for in PKGDATADIR only: not in
 * $ATTNVIEW_DATA_DIR, nor in the build tree, whose compiled-in path may not
 * exist on the machine the program runs on and could then be created by
 * anyone (--restricted: only the installed data is read). */
void av_data_installed_only(void);

/* The NAMEs of the KIND/NAME.json files on the search path plus extra
 * (NULL-terminated, may be NULL: names that exist without a file, e.g.
 * built-ins), sorted, without repeats; a malloc'd NULL-terminated list for
 * av_string_list_free. */
char **av_data_list(const char *kind, const char *const extra[]);

/* Sets "no sample named \"x\" (looked in DIRS; available: NAMES)" and
 * returns false; extra as for av_data_list. */
bool av_data_not_found(const char *kind, const char *what, const char *name,
		       const char *const extra[], char **cause);

/* Frees a NULL-terminated list of malloc'd strings (NULL is fine). */
void av_string_list_free(char **list);

#endif
