/* test_keyboard.c: av_keyboard_read on a real terminal device (a pty that
 * ncurses reads, bytes written to its other end): UTF-8 of every length,
 * function keys, and bytes that are not UTF-8, which become one
 * AV_KEY_NOT_UTF8 each without losing the keys behind them (ncurses's
 * wget_wch dropped those); Esc with a key (Alt) and escape sequences
 * the terminfo entry lacks. Runs in the C locale, as a student whose locale
 * the server lacks would. */
#include "config.h"

#include <fcntl.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

#include "ui/actions.h"
#include "ui/keyboard.h"

static int master = -1;
static FILE *terminal_in, *terminal_out;
static SCREEN *screen;

static int open_terminal(void **state)
{
	(void)state;
	int slave;
	if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
		return -1;
	/* ncurses sets the modes of its output (here /dev/null): the pty is
	 * made raw here, as raw() would make a terminal */
	struct termios raw_mode;
	if (tcgetattr(slave, &raw_mode) != 0)
		return -1;
	cfmakeraw(&raw_mode);
	if (tcsetattr(slave, TCSANOW, &raw_mode) != 0)
		return -1;
	terminal_in = fdopen(slave, "r");
	terminal_out = fopen("/dev/null", "w");
	setenv("TERM", "xterm", 1);
	screen = terminal_in && terminal_out ? newterm("xterm", terminal_out, terminal_in) : NULL;
	if (!screen)
		return -1;
	set_term(screen);
	raw();
	noecho();
	keypad(stdscr, TRUE);
	/* eight bits, as ncurses finds a real terminal (its output's modes) */
	meta(stdscr, TRUE);
	set_escdelay(25);   /* as app.c */
	av_keyboard_define_mouse_reports();   /* as app.c */
	return 0;
}

static int close_terminal(void **state)
{
	(void)state;
	endwin();
	delscreen(screen);
	fclose(terminal_in);
	fclose(terminal_out);
	close(master);
	return 0;
}

/* The keys bytes make, read until none comes within 300 ms. */
static int keys_of(const char *bytes, int *keys, int max)
{
	size_t len = strlen(bytes);
	assert_int_equal(write(master, bytes, len), (ssize_t)len);
	wtimeout(stdscr, 300);
	int n = 0, key;
	while (n < max && av_keyboard_read(stdscr, &key) != ERR)
		keys[n++] = key;
	return n;
}

#define EXPECT_KEYS(bytes, ...) do { \
		const int want[] = { __VA_ARGS__ }; \
		int got[16]; \
		int n = keys_of((bytes), got, 16); \
		assert_int_equal(n, (int)(sizeof(want) / sizeof(want[0]))); \
		for (int i_ = 0; i_ < n; i_++) \
			assert_int_equal(got[i_], want[i_]); \
	} while (0)

static void test_utf8_keys(void **state)
{
	(void)state;
	EXPECT_KEYS("a", 'a');
	EXPECT_KEYS("\xC3\xA9", 0xE9);                 /* é */
	EXPECT_KEYS("\xE4\xB8\xAD\xE6\x96\x87", 0x4E2D, 0x6587);   /* 中文 */
	EXPECT_KEYS("\xF0\x9F\x98\x80!", 0x1F600, '!');
	EXPECT_KEYS("e\xCC\x81", 'e', 0x301);          /* e and a combining accent */
}

/* xterm's terminfo: kcub1 (Left) is \EOD, knp (PgDn) \E[6~ */
static void test_function_keys(void **state)
{
	(void)state;
	EXPECT_KEYS("\x1bOD", AV_FKEY(KEY_LEFT));
	EXPECT_KEYS("x\x1b[6~y", 'x', AV_FKEY(KEY_NPAGE), 'y');
}

/* Terminfo entries in the VT220's line (vt220, xterm-mono) name \E[1~
 * and \E[4~ Find and Select, the keys where a PC's Home and End are; tmux
 * and screen send them for Home and End. They were "key 2097514 does
 * nothing here" (QA, TERM=xterm-mono inside tmux). */
static void test_find_select_are_home_end(void **state)
{
	(void)state;
	define_key("\x1b[1~", KEY_FIND);
	define_key("\x1b[4~", KEY_SELECT);
	EXPECT_KEYS("\x1b[1~x\x1b[4~", AV_FKEY(KEY_HOME), 'x', AV_FKEY(KEY_END));
	define_key("\x1b[1~", 0);
	define_key("\x1b[4~", 0);
}

/* Bracketed paste: the two marks around the pasted bytes are keys of
 * their own, and what is between them comes as typed. */
static void test_paste_marks(void **state)
{
	(void)state;
	av_keyboard_bracketed_paste(true);
	EXPECT_KEYS("\x1b[200~ab\nc\x1b[201~x", AV_KEY_PASTE_BEGIN, 'a', 'b', '\n', 'c',
		    AV_KEY_PASTE_END, 'x');
	av_keyboard_bracketed_paste(false);
}

/* Latin-1 "café au": the é is one byte 0xE9 followed by a space */
static void test_not_utf8_keeps_the_rest(void **state)
{
	(void)state;
	EXPECT_KEYS("caf\xE9 au", 'c', 'a', 'f', AV_KEY_NOT_UTF8, ' ', 'a', 'u');
	EXPECT_KEYS("x\xC3 y", 'x', AV_KEY_NOT_UTF8, ' ', 'y');
	/* a lead byte a function key interrupts: the key still comes */
	EXPECT_KEYS("\xE4\xB8\x1bOD", AV_KEY_NOT_UTF8, AV_FKEY(KEY_LEFT));
	EXPECT_KEYS("\xFF\xFE" "b", AV_KEY_NOT_UTF8, AV_KEY_NOT_UTF8, 'b');
	EXPECT_KEYS("\x80z", AV_KEY_NOT_UTF8, 'z');     /* a stray continuation byte */
}

/* well-formed bytes that UTF-8 forbids: one key for the whole sequence */
static void test_forbidden_forms(void **state)
{
	(void)state;
	EXPECT_KEYS("\xED\xA0\x80q", AV_KEY_NOT_UTF8, 'q');   /* a surrogate */
	EXPECT_KEYS("\xE0\x80\xAFq", AV_KEY_NOT_UTF8, 'q');   /* overlong '/' */
	EXPECT_KEYS("\xF4\x90\x80\x80q", AV_KEY_NOT_UTF8, 'q');   /* above U+10FFFF */
	EXPECT_KEYS("\xC0\xAF", AV_KEY_NOT_UTF8, AV_KEY_NOT_UTF8);   /* no lead */
}

/* the rest of a character that never comes: the lead byte alone, in time */
static void test_cut_short(void **state)
{
	(void)state;
	EXPECT_KEYS("\xE4\xB8", AV_KEY_NOT_UTF8);
	EXPECT_KEYS("ok", 'o', 'k');   /* and the terminal goes on */
}

/* Esc and a key in one burst (what a terminal sends for Alt-key) is one
 * key, so the editor's Esc does not cancel before the b of Alt-b */
static void test_alt_keys(void **state)
{
	(void)state;
	EXPECT_KEYS("\x1b" "b", AV_ALT('b'));
	/* Alt-Backspace: xterm's kbs is ^?, which ncurses gives as KEY_BACKSPACE */
	EXPECT_KEYS("\x1b\x7f", AV_ALT(AV_FKEY(KEY_BACKSPACE)));
	EXPECT_KEYS("\x1b\xC3\xA9", AV_ALT(0xE9));             /* Alt-é */
	EXPECT_KEYS("\x1b\xE9x", AV_KEY_NOT_UTF8, 'x');
	EXPECT_KEYS("\x1b\x1b", AV_ALT(AV_KEY_ESC));
	EXPECT_KEYS("\x1b[", AV_ALT('['));
}

static void test_escape_alone(void **state)
{
	(void)state;
	EXPECT_KEYS("\x1b", AV_KEY_ESC);
	EXPECT_KEYS("a\x1b", 'a', AV_KEY_ESC);
}

/* sequences xterm's terminfo does not describe: one key each, none of
 * their bytes typed as text */
static void test_unknown_sequences(void **state)
{
	(void)state;
	EXPECT_KEYS("\x1b[99~x", AV_KEY_UNKNOWN_SEQUENCE, 'x');
	EXPECT_KEYS("\x1b[1;9Zx", AV_KEY_UNKNOWN_SEQUENCE, 'x');
	EXPECT_KEYS("\x1bOzx", AV_KEY_UNKNOWN_SEQUENCE, 'x');
	/* a CSI cut by a byte that cannot be in it: that byte is a key */
	EXPECT_KEYS("\x1b[12\x01", AV_KEY_UNKNOWN_SEQUENCE, AV_CTRL('A'));
	/* no end: 32 bytes after the [ are taken, the rest are keys */
	EXPECT_KEYS("\x1b[0000000000000000000000000000000000000", AV_KEY_UNKNOWN_SEQUENCE,
		    '0', '0', '0', '0', '0');
}

/* Mouse reports from a terminal still in a mouse mode a program that died
 * on it left on (the SSH link dropped under vim or htop): attnview asks for
 * no mouse, so each report is one AV_KEY_TERMINAL_REPORT, which the screen
 * ignores. Their bytes were keys: a button's release (ESC [ < 0;10;5m)
 * toggled the causal mask, an X10 report's space went to the next stage,
 * and in the editor they were typed into the sentence. */
static void test_stray_mouse_reports(void **state)
{
	(void)state;
	const int mouse = AV_KEY_TERMINAL_REPORT;
	/* xterm's terminfo: kmous is ESC [ <, SGR reports (mode 1006) */
	EXPECT_KEYS("\x1b[<0;10;5Mx", mouse, 'x');
	EXPECT_KEYS("\x1b[<0;10;5m\x1b[<64;120;40Mx", mouse, mouse, 'x');
	/* X10 reports (ESC [ M and three bytes), which this entry lacks */
	EXPECT_KEYS("\x1b[M !!x", mouse, 'x');
	/* a report cut by a key: the key still comes */
	EXPECT_KEYS("\x1b[<0;1\x1bOD", mouse, AV_FKEY(KEY_LEFT));
	/* screen's and tmux's entries: kmous is ESC [ M */
	define_key("\x1b[<", 0);
	define_key("\x1b[M", KEY_MOUSE);
	av_keyboard_define_mouse_reports();
	EXPECT_KEYS("\x1b[M`!!x", mouse, 'x');
	EXPECT_KEYS("\x1b[<0;10;5mx", mouse, 'x');
}

/* Focus reports (mode 1004, which vim and tmux turn on) when the window
 * gains and loses the focus: ignored, not "a key TERM does not describe" */
static void test_focus_reports(void **state)
{
	(void)state;
	const int report = AV_KEY_TERMINAL_REPORT;
	EXPECT_KEYS("\x1b[Ix\x1b[Oy", report, 'x', report, 'y');
	/* with parameters it is another sequence */
	EXPECT_KEYS("\x1b[2Ix", AV_KEY_UNKNOWN_SEQUENCE, 'x');
}

/* ESCDELAY, as ncurses reads it, for a slow link; attnview's 25 ms when
 * unset or not a whole number of ms it can use */
static void test_escape_delay_setting(void **state)
{
	(void)state;
	assert_int_equal(av_keyboard_escape_delay(NULL), 25);
	assert_int_equal(av_keyboard_escape_delay(""), 25);
	assert_int_equal(av_keyboard_escape_delay("300"), 300);
	assert_int_equal(av_keyboard_escape_delay("0"), 0);
	assert_int_equal(av_keyboard_escape_delay("10000"), 10000);
	assert_int_equal(av_keyboard_escape_delay("10001"), 25);
	assert_int_equal(av_keyboard_escape_delay("-5"), 25);
	assert_int_equal(av_keyboard_escape_delay("200ms"), 25);
	assert_int_equal(av_keyboard_escape_delay("99999999999999999999"), 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_keys),
		cmocka_unit_test(test_function_keys),
		cmocka_unit_test(test_find_select_are_home_end),
		cmocka_unit_test(test_paste_marks),
		cmocka_unit_test(test_not_utf8_keeps_the_rest),
		cmocka_unit_test(test_forbidden_forms),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_alt_keys),
		cmocka_unit_test(test_escape_alone),
		cmocka_unit_test(test_unknown_sequences),
		cmocka_unit_test(test_stray_mouse_reports),
		cmocka_unit_test(test_escape_delay_setting),
		cmocka_unit_test(test_focus_reports),
	};
	return cmocka_run_group_tests(tests, open_terminal, close_terminal);
}
