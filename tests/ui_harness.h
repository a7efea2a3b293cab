/* ui_harness.h: helpers for the screen tests: a curses screen on /dev/null
 * (no terminal needed; the virtual screen is read back from curscr), and
 * sessions built the way the command line builds them. */
#ifndef AV_TEST_UI_HARNESS_H
#define AV_TEST_UI_HARNESS_H

#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session.h"
#include "ui/app.h"
#include "ui/colors.h"
#include "ui/widgets/heatmap.h"
#include "ui/curses.h"
#include "utf8.h"
#include "util.h"

struct harness {
	FILE *out, *in;
	SCREEN *screen;
	struct av_session s;
	struct av_app a;
	bool app_open;
};

/* A session from a sample ("" for the built-in one), with sentence (or the
 * sample's when NULL) and an optional mode override (-1 to keep). */
static inline bool harness_session(struct av_session *s, const char *sample,
				   const char *sentence, int mode, char **cause)
{
	memset(s, 0, sizeof(*s));
	bool ok = sample && *sample ? av_sample_load(sample, &s->sample, cause)
				    : av_sample_load_builtin(&s->sample, cause);
	if (!ok)
		return false;
	s->cfg = s->sample.cfg;
	if (mode >= 0)
		s->cfg.mode = (enum av_mode)mode;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab,
		       s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(sentence ? sentence : s->sample.sentence);
	s->source = s->sample.source ? av_strdup(s->sample.source) : NULL;
	return av_session_run(s, cause);
}

/* Set before harness_open: the terminal's output goes to a temporary file
 * instead of /dev/null, for tests of the bytes a repaint sends
 * (harness_output). */
static bool harness_capture;

/* Opens a screen of cols x lines on /dev/null (TERM as given). */
static inline void harness_screen(struct harness *h, const char *term, int cols, int lines)
{
	setenv("TERM", term, 1);
	h->out = harness_capture ? tmpfile() : fopen("/dev/null", "w");
	h->in = fopen("/dev/null", "r");
	h->screen = newterm(term, h->out, h->in);
	if (!h->screen) {
		fprintf(stderr, "newterm(%s) failed\n", term);
		abort();
	}
	set_term(h->screen);
	resizeterm(lines, cols);
}

static inline bool harness_open(struct harness *h, const char *term, int cols, int lines,
				const char *sample, const char *sentence, int mode,
				const char *theme)
{
	memset(h, 0, sizeof(*h));
	char *cause = NULL;
	if (!harness_session(&h->s, sample, sentence, mode, &cause)) {
		fprintf(stderr, "session: %s\n", cause ? cause : "?");
		free(cause);
		return false;
	}
	harness_screen(h, term, cols, lines);
	struct av_ui_config cfg = { .theme = theme, .head = 0, .no_color = false };
	if (!av_app_init(&h->a, &h->s, &cfg, &cause)) {
		fprintf(stderr, "app: %s\n", cause ? cause : "?");
		free(cause);
		return false;
	}
	h->app_open = true;
	av_app_draw(&h->a);
	return true;
}

static inline void harness_close(struct harness *h)
{
	if (h->app_open)
		av_app_free(&h->a);
	if (h->screen) {
		endwin();
		delscreen(h->screen);
	}
	if (h->out)
		fclose(h->out);
	if (h->in)
		fclose(h->in);
	av_session_free(&h->s);
	memset(h, 0, sizeof(*h));
}

/* "w0 w1 ... w(n-1)" with prefix for w into out (size bytes): a sentence of
 * n distinct words, longer than a screen's rows or columns. */
static inline void harness_words(char *out, size_t size, const char *prefix, int n)
{
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s%d", i ? " " : "", prefix, i);
}

/* Keys as a UTF-8 string (each character one key, as av_keyboard_read gives
 * them), then a redraw. */
static inline void harness_keys(struct harness *h, const char *keys)
{
	size_t len = strlen(keys), off = 0;
	while (off < len) {
		uint32_t cp;
		int k = av_utf8_decode(keys + off, len - off, &cp);
		if (k < 0) {
			cp = (unsigned char)keys[off];
			k = 1;
		}
		av_app_key(&h->a, (int)cp);
		off += (size_t)k;
	}
	av_app_draw(&h->a);
}

static inline void harness_key(struct harness *h, int key)
{
	av_app_key(&h->a, key);
	av_app_draw(&h->a);
}

/* Resizes the virtual terminal as a SIGWINCH would, then KEY_RESIZE. */
static inline void harness_resize(struct harness *h, int cols, int lines)
{
	resizeterm(lines, cols);
	harness_key(h, AV_FKEY(KEY_RESIZE));
}

/* The bytes the terminal was sent from offset *from on (harness_capture),
 * NUL-terminated, to be freed; *from moves past them. */
static inline char *harness_output(struct harness *h, long *from)
{
	fflush(h->out);
	long end = lseek(fileno(h->out), 0, SEEK_END);
	long len = end > *from ? end - *from : 0;
	char *buf = av_malloc((size_t)len + 1);
	ssize_t got = len > 0 ? pread(fileno(h->out), buf, (size_t)len, *from) : 0;
	buf[got > 0 ? got : 0] = '\0';
	*from = end;
	return buf;
}

/* How often needle occurs in haystack. */
static inline int harness_count(const char *haystack, const char *needle)
{
	int count = 0;
	for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle))
		count++;
	return count;
}

/* Row y of the screen as UTF-8. */
static inline const char *harness_line(int y)
{
	static char buf[4096];
	av_app_read_line(y, buf, sizeof(buf));
	return buf;
}

/* The first row of the screen with a byte outside ASCII, or -1 (the
 * screen of a C locale, where av_draw_utf8() is false). */
static inline int harness_non_ascii_row(void)
{
	for (int y = 0; y < LINES; y++)
		for (const unsigned char *c = (const unsigned char *)harness_line(y); *c; c++)
			if (*c >= 0x80)
				return y;
	return -1;
}

/* The row that contains text, or -1. */
static inline int harness_find(const char *text)
{
	for (int y = 0; y < LINES; y++)
		if (strstr(harness_line(y), text))
			return y;
	return -1;
}

/* Whether text is on status row y or in a long message wrapped over the
 * rows just above it (message_box.c: at most 4 rows): the rows joined by a
 * space, and without one for a word cut across rows. */
static inline bool harness_status_has(int y, const char *text)
{
	for (int k = 1; k <= 4 && y - k + 1 >= 0; k++) {
		char spaced[4 * 4096 + 8] = "", tight[4 * 4096 + 8] = "";
		for (int r = y - k + 1; r <= y; r++) {
			char row[4096];
			snprintf(row, sizeof(row), "%s", harness_line(r));
			size_t n = strlen(row);
			while (n > 0 && row[n - 1] == ' ')
				row[--n] = '\0';
			if (r > y - k + 1)
				strcat(spaced, " ");
			strcat(spaced, row);
			strcat(tight, row);
		}
		if (strstr(spaced, text) || strstr(tight, text))
			return true;
	}
	return false;
}

/* v as a cell of the screen shows it with `decimals` decimals: printf's
 * digits with the minus sign U+2212 the cells use (av_cell_minus). */
static inline void harness_cell_text(char *buf, size_t size, int decimals, double v)
{
	snprintf(buf, size, "%.*f", decimals, v);
	av_cell_minus(buf, size);
}

/* The whole screen, for failure messages. */
static inline void harness_dump(void)
{
	for (int y = 0; y < LINES; y++)
		fprintf(stderr, "|%s\n", harness_line(y));
}

/* Once, before the tests: the samples of the source tree, colours allowed,
 * a UTF-8 locale when there is one. Returns whether the locale is UTF-8. */
static inline bool harness_setup_process(void)
{
	setenv("ATTNVIEW_DATA_DIR", AV_SRCDIR, 0);
	unsetenv("NO_COLOR");
	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "");
	return av_locale_is_utf8();
}

/* cmocka checks of the screen (include <cmocka.h> before this header). */
static inline void expect(const char *text)
{
	if (harness_find(text) < 0) {
		fprintf(stderr, "not on the screen: \"%s\"\n", text);
		harness_dump();
		fail();
	}
}

static inline void expect_not(const char *text)
{
	if (harness_find(text) >= 0) {
		fprintf(stderr, "unexpected on the screen: \"%s\"\n", text);
		harness_dump();
		fail();
	}
}

/* The screen is ASCII only (that of a C locale: av_draw_utf8() false),
 * else the screen is shown and the test fails naming what. */
static inline void expect_ascii(const char *what)
{
	int y = harness_non_ascii_row();
	if (y >= 0) {
		fprintf(stderr, "%s: row %d is not ASCII\n", what, y);
		harness_dump();
		fail();
	}
}

/* Presses keys one at a time ('\033' is Esc) and expects an ASCII screen
 * before the first and after each; what names the walk. */
static inline void harness_walk_ascii(struct harness *h, const char *keys, const char *what)
{
	char where[256];
	for (size_t i = 0; i <= strlen(keys); i++) {
		if (i > 0)
			harness_key(h, keys[i - 1] == '\033' ? AV_KEY_ESC
				    : (unsigned char)keys[i - 1]);
		snprintf(where, sizeof where, "%s, after key %zu of \"%s\"", what, i, keys);
		expect_ascii(where);
	}
}

#endif
