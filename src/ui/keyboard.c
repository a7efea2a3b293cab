/* keyboard.c: keys from the terminal (see keyboard.h). */
#include "config.h"

#include <stdint.h>

#include "i18n.h"
#include "ui/keyboard.h"
#include "ui/actions.h"
#include "utf8.h"

/* How long the rest of a character may take after its first byte. */
#define REST_OF_CHARACTER_MS 100

/* The next byte of a character: ERR when none came in time; a byte that
 * cannot continue one (a new key, a function key) is given back to be
 * read as the next key. */
static int continuation_byte(WINDOW *w)
{
	int delay = wgetdelay(w);
	wtimeout(w, REST_OF_CHARACTER_MS);
	int c = wgetch(w);
	wtimeout(w, delay);
	if (c == ERR)
		return ERR;
	if (c > 0xFF || (c & 0xC0) != 0x80) {
		ungetch(c);
		return ERR;
	}
	return c;
}

int av_keyboard_read(WINDOW *w, int *key)
{
	int c = wgetch(w);
	if (c == ERR)
		return ERR;
	if (c > 0xFF) {             /* KEY_LEFT, KEY_RESIZE, ... */
		*key = AV_FKEY(c);
		return OK;
	}
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
	*key = need > 0 && av_utf8_decode(bytes, (size_t)have, &cp) == need ? (int)cp
									     : AV_KEY_NOT_UTF8;
	return OK;
}

const char *av_keyboard_not_utf8_text(void)
{
	return _("ignored a byte that is not UTF-8: set the terminal to UTF-8");
}
