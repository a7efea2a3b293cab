/*
 * i18n.h: the one place that says how a string is translated.
 *
 *   _("text")   a string shown to a person (screen, --help, error message):
 *               looked up in the message catalogue of LC_MESSAGES;
 *   N_("text")  marks a string in a static table for xgettext without
 *               translating it there; the code that shows it calls _() on it.
 *   P_("%d epoch", "%d epochs", n)  a sentence with a count in it: the
 *               language's plural form for n (ngettext).
 *   C_("follower", "left")  a short word that means something else
 *               elsewhere ("left" as a direction): translated in context.
 *
 * Numbers never pass through here: LC_NUMERIC stays "C" (main sets only
 * LC_CTYPE and LC_MESSAGES), so JSON, CSV and tables keep their '.'.
 * Without NLS (configure --disable-nls) both macros are the identity.
 */
#ifndef AV_I18N_H
#define AV_I18N_H

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>

#if defined(ENABLE_NLS) && ENABLE_NLS
#include <libintl.h>
#define _(text) gettext(text)
#define P_(one, many, n) ngettext(one, many, n)
/* gettext's pgettext: the catalogue keys a message in context as
 * "context\004text" */
static inline const char *av_pgettext(const char *key, const char *text)
{
	const char *t = gettext(key);
	return t == key ? text : t;
}
#define C_(context, text) av_pgettext(context "\004" text, text)
#else
#define _(text) (text)
#define P_(one, many, n) ((n) == 1 ? (one) : (many))
#define C_(context, text) (text)
#endif
#define N_(text) (text)

/* Binds the program's message catalogues (after setlocale): the installed
 * LOCALEDIR, or the build tree's locale/ folder when the program runs
 * uninstalled from its build tree. Returns the folder (NULL without NLS). */
const char *av_i18n_init(void);

/* Whether texts that carry their own Chinese (lesson titles and captions,
 * samples' titles) are shown in it: where gettext would speak Chinese (the
 * messages' locale, LC_ALL, LC_MESSAGES or LANG in POSIX order, then
 * LANGUAGE's first entry before it unless that locale is C or POSIX) and
 * the characters are UTF-8. The screen and --list-lessons agree with the
 * interface's language this way, with or without a catalogue. */
bool av_i18n_text_in_chinese(void);

#endif
