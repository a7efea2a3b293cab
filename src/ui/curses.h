/* curses.h: the one place attnview includes curses (as htop's
 * ProvideCurses.h). ncursesw, with the wide-character functions. Include it
 * as "ui/curses.h"; the engine never does. */
#ifndef AV_UI_CURSES_H
#define AV_UI_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#include <curses.h>

/* A string capability of the terminal's terminfo entry (tigetstr), or NULL
 * when the entry lacks it, cancels it or leaves it empty. */
static inline const char *av_terminfo_string(const char *name)
{
	const char *s = tigetstr(name);
	return s && s != (const char *)-1 && *s ? s : NULL;
}

#endif
