/* keys_main.c: prints the screen's key table (actions.h) for the
 * documentation: plain text, or man(7) paragraphs with -m, e.g.
 *   src/ui/attnview-keys -m > doc/keys.man.inc */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ui/actions.h"

int main(int argc, char **argv)
{
	bool man = argc > 1 && strcmp(argv[1], "-m") == 0;
	if (argc > 1 && !man) {
		fprintf(stderr, "usage: attnview-keys [-m]\n");
		return 2;
	}
	av_actions_write(stdout, man);
	return fflush(stdout) == 0 ? 0 : 1;
}
