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

/* The key for input that is not UTF-8: above Unicode, below AV_FKEY. */
#define AV_KEY_NOT_UTF8 0x1FFFFF

/* Reads one key from w with w's timeout: a Unicode code point, AV_FKEY(k)
 * for a function key, or AV_KEY_NOT_UTF8. Returns OK, or ERR (no key: the
 * timeout ran out, a signal, or the terminal is gone; errno as wgetch left
 * it). The rest of a character's bytes are waited for a little (they come
 * in one write from a terminal, but an SSH link may split them). */
int av_keyboard_read(WINDOW *w, int *key);

/* What the screen says for AV_KEY_NOT_UTF8 (translated). */
const char *av_keyboard_not_utf8_text(void);

#endif
