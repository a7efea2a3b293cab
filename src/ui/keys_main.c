/* keys_main.c: prints the screen's key table (actions.h) for the
 * documentation: plain text, or man(7) paragraphs with -m, e.g.
 *   src/ui/attnview-keys -m > doc/keys.man.inc
 * in the language of LC_MESSAGES (LANG=zh_CN.UTF-8 gives the Chinese man
 * page's key list, tools/update-man-keys.sh). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "i18n.h"
#include "ui/actions.h"

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	setlocale(LC_MESSAGES, "");
	av_i18n_init();
	bool man = argc > 1 && strcmp(argv[1], "-m") == 0;
	if (argc > 1 && !man) {
		fprintf(stderr, "%s", _("usage: attnview-keys [-m]\n"));
		return 2;
	}
	av_actions_write(stdout, man);
	return fflush(stdout) == 0 ? 0 : 1;
}
