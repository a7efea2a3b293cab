/* keyboard.c: keys from the terminal (see keyboard.h). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "i18n.h"
#include "ui/keyboard.h"
#include "ui/actions.h"
#include "utf8.h"

/* How long the rest of a character may take after its first byte. */
#define REST_OF_CHARACTER_MS 100

/* wgetch waiting at most ms (0: only a key already there), then w's own
 * timeout again. */
static int key_within(WINDOW *w, int ms)
{
	int delay = wgetdelay(w);
	wtimeout(w, ms);
	int c = wgetch(w);
	wtimeout(w, delay);
	return c;
}

/* The next byte of a character: ERR when none came in time; a byte that
 * cannot continue one (a new key, a function key) is given back to be
 * read as the next key. */
static int continuation_byte(WINDOW *w)
{
	int c = key_within(w, REST_OF_CHARACTER_MS);
	if (c == ERR)
		return ERR;
	if (c > 0xFF || !av_utf8_is_continuation((unsigned char)c)) {
		ungetch(c);
		return ERR;
	}
	return c;
}

/* A key already waiting: sent in the same burst as the one before it. */
static int waiting_key(WINDOW *w)
{
	return key_within(w, 0);
}

/* A function key as the actions know it: the VT220's Find and Select sit
 * where a PC's Home and End are, and their sequences (\E[1~, \E[4~) are
 * what tmux and screen send for Home and End; terminfo entries in the
 * VT220's line (vt220, xterm-mono) name them kfnd and kslt. */
static int function_key(int c)
{
	switch (c) {
	case KEY_FIND: return AV_FKEY(KEY_HOME);
	case KEY_SELECT: return AV_FKEY(KEY_END);
	default: return AV_FKEY(c);
	}
}

/* The starts of the two forms of mouse report, as curses gives them (codes
 * past the paste marks): SGR's (mode 1006) ESC [ < and X10's ESC [ M. */
#define MOUSE_SGR_START (KEY_MAX + 3)
#define MOUSE_X10_START (KEY_MAX + 4)

/* Longest SGR report taken: ESC [ < and "64;65535;65535M" with room */
#define SGR_REPORT_MAX 24

/* The next byte of a mouse report: the terminal writes a report whole,
 * but a link may split it (tmux does, between the start and the rest). */
static int report_byte(WINDOW *w)
{
	return key_within(w, REST_OF_CHARACTER_MS);
}

/* The rest of an SGR report: "button;column;row" and M (press) or m
 * (release); a byte that cannot be in it is given back. */
static int rest_of_sgr_report(WINDOW *w)
{
	for (int taken = 0; taken < SGR_REPORT_MAX; taken++) {
		int c = report_byte(w);
		if (c == ERR || c == 'M' || c == 'm')
			break;
		if ((c < '0' || c > '9') && c != ';') {
			ungetch(c);
			break;
		}
	}
	return AV_KEY_TERMINAL_REPORT;
}

/* The rest of an X10 report: three bytes, the button, the column and the
 * row, each from 32 up (never the Esc of a key after it). */
static int rest_of_x10_report(WINDOW *w)
{
	for (int taken = 0; taken < 3; taken++) {
		int c = report_byte(w);
		if (c == ERR)
			break;
		if (c < ' ' || c > 0xFF) {
			ungetch(c);
			break;
		}
	}
	return AV_KEY_TERMINAL_REPORT;
}

void av_keyboard_define_mouse_reports(void)
{
	static const struct {
		const char *start;
		int code;
	} forms[] = { { "\033[<", MOUSE_SGR_START }, { "\033[M", MOUSE_X10_START } };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		/* kmous (ncurses leaves the rest of its report unread when no
		 * mouse was asked for) or nothing; a function key a terminal
		 * sends as ESC [ M (SCO's F1) stays that key */
		int now = key_defined(forms[i].start);
		if (now == 0 || now == KEY_MOUSE)
			define_key(forms[i].start, forms[i].code);
	}
}

/* One key from its first byte c: a code point, AV_FKEY, AV_KEY_NOT_UTF8. */
static int decode(WINDOW *w, int c)
{
	if (c == MOUSE_SGR_START)
		return rest_of_sgr_report(w);
	if (c == MOUSE_X10_START)
		return rest_of_x10_report(w);
	if (c > 0xFF)               /* KEY_LEFT, KEY_RESIZE, ... */
		return function_key(c);
	char bytes[4] = { (char)c };
	int need = av_utf8_sequence_length((unsigned char)c);
	int have = 1;
	while (have < need) {
		int next = continuation_byte(w);
		if (next == ERR)
			break;
		bytes[have++] = (char)next;
	}
	uint32_t cp;
	return need > 0 && av_utf8_decode(bytes, (size_t)have, &cp) == need ? (int)cp
									    : AV_KEY_NOT_UTF8;
}

/* The rest of an escape sequence ncurses did not know (the terminal and
 * TERM disagree): ESC [ parameters, intermediates, a final byte, or ESC O
 * and a final byte, taken whole so none of it is typed as text. A byte
 * that cannot belong to it is given back. ESC [ I and ESC [ O are the
 * terminal's focus reports. */
static int unknown_sequence(WINDOW *w, int introducer)
{
	for (int taken = 0; taken < 32; taken++) {
		int c = waiting_key(w);
		if (c == ERR)
			break;
		bool focus_report = introducer == '[' && taken == 0 && (c == 'I' || c == 'O');
		if (focus_report)
			return AV_KEY_TERMINAL_REPORT;
		if (c >= 0x40 && c <= 0x7E)
			break;              /* the final byte */
		if (introducer == '[' && c >= 0x20 && c <= 0x3F)
			continue;           /* parameters and intermediates */
		ungetch(c);
		break;
	}
	return AV_KEY_UNKNOWN_SEQUENCE;
}

/* After an Esc ncurses gave alone (no known sequence began with it within
 * ESCDELAY): a key that came with it makes Alt-key, or an unknown sequence;
 * none, the Esc key itself. */
static int after_escape(WINDOW *w)
{
	int c = waiting_key(w);
	if (c == ERR)
		return AV_KEY_ESC;
	if (c == '[' || c == 'O') {
		int next = waiting_key(w);
		if (next != ERR) {
			ungetch(next);
			return unknown_sequence(w, c);
		}
	}
	int k = decode(w, c);
	return k == AV_KEY_NOT_UTF8 ? k : AV_ALT(k);
}

/* attnview's own wait for the rest of an escape sequence: short, so Esc
 * feels at once on a good link */
#define ESCAPE_DELAY_MS 25
#define ESCAPE_DELAY_MAX_MS 10000

int av_keyboard_escape_delay(const char *setting)
{
	if (!setting || !*setting)
		return ESCAPE_DELAY_MS;
	char *end;
	errno = 0;
	long ms = strtol(setting, &end, 10);
	if (errno || *end || ms < 0 || ms > ESCAPE_DELAY_MAX_MS)
		return ESCAPE_DELAY_MS;
	return (int)ms;
}

int av_keyboard_read(WINDOW *w, int *key)
{
	int c = wgetch(w);
	if (c == ERR)
		return ERR;
	*key = c == AV_KEY_ESC ? after_escape(w) : decode(w, c);
	return OK;
}

/* xterm's private mode 2004, which tmux, screen, VTE, kitty, iTerm2 and the
 * Linux console's successors know and other terminals ignore (bash's
 * readline turns it on for every terminal); the terminfo entry's own
 * strings where it has them (tmux's "screen" has not) */
static const char *paste_mode(bool on)
{
	const char *mode = av_terminfo_string(on ? "BE" : "BD");
	return mode ? mode : on ? "\033[?2004h" : "\033[?2004l";
}

const char *av_keyboard_paste_off(void)
{
	return paste_mode(false);
}

const char *av_keyboard_paste_on(void)
{
	return paste_mode(true);
}

void av_keyboard_bracketed_paste(bool on)
{
	if (on) {
		const char *begin = av_terminfo_string("PS"), *end = av_terminfo_string("PE");
		define_key(begin ? begin : "\033[200~", KEY_MAX + 1);
		define_key(end ? end : "\033[201~", KEY_MAX + 2);
	}
	putp(paste_mode(on));
	/* putp writes through stdio: out now, not when the program ends */
	fflush(stdout);
}

const char *av_keyboard_not_utf8_text(void)
{
	return _("ignored a byte that is not UTF-8: set the terminal to UTF-8");
}

const char *av_keyboard_unknown_sequence_text(void)
{
	return _("ignored a key the terminal type (TERM) does not describe");
}
