/*
 * keyboard.h: keys from the terminal, with attnview decoding UTF-8 itself.
 *
 * Why not wget_wch: ncurses (6.4) answers a byte that is not UTF-8 with
 * ERR and drops the keys waiting behind it, so a sentence typed on a
 * Latin-1 terminal ("café au lait", é one byte) arrived as "caf"; and in a
 * locale that is not UTF-8 (a student whose locale the server lacks) it
 * refuses every non-ASCII key. wgetch gives the bytes as they came, and
 * function keys as KEY_* codes; the bytes are decoded here by the engine's
 * own decoder (utf8.h), as UTF-8 whatever the locale, the one encoding
 * attnview's sentences use. A byte that does not make UTF-8 becomes one
 * AV_KEY_NOT_UTF8 key (the screen says so) and the keys after it arrive.
 */
#ifndef AV_UI_KEYBOARD_H
#define AV_UI_KEYBOARD_H

#include "ui/curses.h"

/* Keys for input that makes no key, above Unicode and below AV_FKEY: bytes
 * that are not UTF-8, and an escape sequence TERM's terminfo entry does
 * not describe (a terminal that is not the TERM it claims). */
#define AV_KEY_NOT_UTF8 0x1FFFFF
#define AV_KEY_UNKNOWN_SEQUENCE 0x1FFFFE

/* What a terminal sends on its own, no key pressed, when a program that
 * died on it left a mode on (vim's, tmux's): mouse reports (clicks, the
 * wheel) and focus reports (ESC [ I and ESC [ O when its window gains or
 * loses the focus). One code for all, which the screen ignores: they
 * closed the help and read "ignored a key the terminal type (TERM) does
 * not describe" at each change of window. */
#define AV_KEY_TERMINAL_REPORT AV_FKEY(KEY_MOUSE)

/* Bracketed paste: the start and the end of pasted text, as a terminal in
 * that mode marks them (ESC [ 200 ~ and ESC [ 201 ~), two codes past
 * curses' own keys. */
#define AV_KEY_PASTE_BEGIN AV_FKEY(KEY_MAX + 1)
#define AV_KEY_PASTE_END AV_FKEY(KEY_MAX + 2)

/* Turns the terminal's bracketed paste on (and teaches curses its two
 * marks) or off. Why: a pasted line break is Enter, so pasting "the cat⏎
 * sat on the mat" into the sentence editor applied "the cat" and then ran
 * "sat on the mat" as keys (s, a, t: the scale, the heads view, the
 * training view). */
void av_keyboard_bracketed_paste(bool on);

/* The bytes that turn bracketed paste off and on (for the Ctrl-Z handler
 * to write itself: the terminal is left as it was found while attnview is
 * suspended, and the mode is on again as soon as it is continued). */
const char *av_keyboard_paste_off(void);
const char *av_keyboard_paste_on(void);

/* Teaches curses both forms of mouse report (SGR's and X10's), whole, so
 * that av_keyboard_read gives each as one AV_FKEY(KEY_MOUSE). Why:
 * attnview asks for no mouse, but a terminal left in a mouse mode (the SSH
 * link dropped under vim or htop) sends reports for every click and wheel
 * turn, and curses gave only their start as KEY_MOUSE: the rest came as
 * keys (a release's m toggled the causal mask, and in the editor the
 * report was typed into the sentence). */
void av_keyboard_define_mouse_reports(void);

/* How many ms curses waits for the rest of an escape sequence after its
 * Esc, from setting (the ESCDELAY environment variable, as ncurses names
 * it; NULL when unset): a whole number of ms from 0 to 10000, else 25.
 * Why: on a slow SSH link the rest of an arrow key can come later than
 * 25 ms, and then its Esc cancelled the editor and "[D" ran as keys; a
 * student sets ESCDELAY=200 as for other curses programs, which attnview's
 * own 25 ms used to override. */
int av_keyboard_escape_delay(const char *setting);

/* Reads one key from w with w's timeout: a Unicode code point, AV_FKEY(k)
 * for a function key, AV_ALT(k) for Esc and a key in one burst (what a
 * terminal sends for Alt-b: the editor's word keys, and no Esc that
 * cancels an edit before the b), AV_KEY_NOT_UTF8 or AV_KEY_UNKNOWN_SEQUENCE.
 * Returns OK, or ERR (no key: the timeout ran out, a signal, or the
 * terminal is gone; errno as wgetch left it). The rest of a character's
 * bytes are waited for a little (they come in one write from a terminal,
 * but an SSH link may split them). */
int av_keyboard_read(WINDOW *w, int *key);

/* What the screen says for AV_KEY_NOT_UTF8 and AV_KEY_UNKNOWN_SEQUENCE
 * (translated). */
const char *av_keyboard_not_utf8_text(void);
const char *av_keyboard_unknown_sequence_text(void);

#endif
