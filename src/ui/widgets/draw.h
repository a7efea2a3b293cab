/* draw.h: writing UTF-8 text into curses windows by terminal columns:
 * clipped to a width, padded, wide (CJK) characters counted as two columns,
 * and with an ASCII stand-in for every symbol when the locale is not UTF-8. */
#ifndef AV_UI_DRAW_H
#define AV_UI_DRAW_H

#include <stdbool.h>
#include "ui/curses.h"

/* Set once the locale is known: false writes ASCII stand-ins. */
void av_draw_set_utf8(bool utf8);
bool av_draw_utf8(void);

/* Columns s takes on screen (in the current mode). */
int av_text_width(const char *s);

/* Writes s at (y, x) in at most maxw columns with attr; a cut string ends
 * in "…" (or "~") and takes exactly maxw columns: a wide character that
 * does not fit before the "…" is replaced by a space, never split. Returns
 * the columns written. */
int av_put(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr);

/* As av_put, then pads with spaces (in attr) to exactly width columns. */
void av_put_pad(WINDOW *w, int y, int x, const char *s, int width, attr_t attr);

/* As av_put, right-aligned in width columns (padded on the left). */
void av_put_right(WINDOW *w, int y, int x, const char *s, int width, attr_t attr);

/* s cut to its first whole words that fit cols columns with "…" after
 * them (a new string): never inside a word or a number, nor after a
 * number, an operator, a "…" or a bracket left open (a cut number reads
 * as another: "scores / 1.7…" of 1.732 is "scores…"), a clause's comma or
 * semicolon dropped before the "…". "" when not even a first word fits
 * that way; s itself when it fits. Titles and captions whose rest is said
 * elsewhere (or not needed) use it; a sum's "= result" is panels.c's. */
char *av_cut_words(const char *s, int cols);

/* av_put of av_cut_words(s, maxw): s whole, or cut after a whole word, or
 * nothing. Returns the columns written. */
int av_put_words(WINDOW *w, int y, int x, const char *s, int maxw, attr_t attr);

/* n spaces in attr. */
void av_fill(WINDOW *w, int y, int x, int n, attr_t attr);

/* Fills the whole window with spaces in attr (werase without clearok). */
void av_clear(WINDOW *w, attr_t attr);

/* The ASCII stand-in of a code point that has none in the current mode
 * ("·" -> ".", "−∞" pieces, arrows, blocks), or NULL to use '?'. */
const char *av_ascii_for(unsigned cp);

/* How many writes so far went past a window's right or bottom edge (they
 * wrap onto the next line on screen); the size sweep of the tests checks
 * that it stays 0. */
long av_draw_overflows(void);

#endif
