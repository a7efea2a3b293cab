/* fuzz_keyboard.c: any bytes as what a terminal sends, read by
 * av_keyboard_read (ui/keyboard.c: attnview's own UTF-8 decoding, Alt keys,
 * escape sequences, mouse and focus reports) through ncurses from a pipe,
 * as from a terminal (xterm's key descriptions), with the keys the screen
 * defines (the paste marks, the mouse reports). Checks that every key is
 * one the screen knows how to take: a Unicode scalar value, a function
 * key, Alt with one of those, AV_KEY_NOT_UTF8 or AV_KEY_UNKNOWN_SEQUENCE;
 * and that the keys are no more than the bytes (none is made from
 * nothing). The same bytes up to a NUL, as ESCDELAY, must give a wait
 * from 0 to 10000 ms (av_keyboard_escape_delay). */
#include "config.h"

#include <unistd.h>

#include "fuzz_common.h"
#include "ui/actions.h"
#include "ui/keyboard.h"

/* A pipe holds 64 KiB; more than a burst of keys needs. */
#define MAX_INPUT 4096

static bool plain_key(int k)
{
	if (k >= AV_FKEY(0))
		return k <= AV_FKEY(KEY_MAX + 4096);   /* ncurses's codes, extended ones too */
	return k >= 0 && k <= 0x10FFFF && !(k >= 0xD800 && k <= 0xDFFF);
}

static bool known_key(int k)
{
	if (k == AV_KEY_NOT_UTF8 || k == AV_KEY_UNKNOWN_SEQUENCE)
		return true;
	if (k > 0 && (k & AV_ALT_BIT))
		return plain_key(k & ~AV_ALT_BIT);
	return plain_key(k);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		size = MAX_INPUT;
	char *setting = fuzz_text(data, size);
	int delay = av_keyboard_escape_delay(setting);
	FUZZ_CHECK(delay >= 0 && delay <= 10000, "ESCDELAY \"%s\" gives %d ms", setting, delay);
	free(setting);
	int fds[2];
	FUZZ_CHECK(pipe(fds) == 0, "pipe");
	FUZZ_CHECK(write(fds[1], data, size) == (ssize_t)size, "write");
	close(fds[1]);   /* the end of the input reads as ERR, at once */
	FILE *in = fdopen(fds[0], "r"), *out = fopen("/dev/null", "w");
	FUZZ_CHECK(in && out, "streams");
	SCREEN *screen = newterm("xterm", out, in);
	FUZZ_CHECK(screen, "newterm");
	set_term(screen);
	keypad(stdscr, TRUE);
	meta(stdscr, TRUE);   /* eight bits, as ncurses finds a real terminal */
	set_escdelay(25);
	/* the bracketed paste marks, as av_keyboard_bracketed_paste defines
	 * them (without sending the mode to the fuzzer's output) */
	define_key("\033[200~", KEY_MAX + 1);
	define_key("\033[201~", KEY_MAX + 2);
	av_keyboard_define_mouse_reports();   /* as av_app_init, after keypad() */
	wtimeout(stdscr, 0);
	size_t keys = 0;
	int key;
	while (av_keyboard_read(stdscr, &key) != ERR) {
		FUZZ_CHECK(known_key(key), "key %#x", (unsigned)key);
		keys++;
		FUZZ_CHECK(keys <= size, "%zu keys from %zu bytes", keys, size);
	}
	endwin();
	delscreen(screen);
	fclose(in);
	fclose(out);
	return 0;
}
