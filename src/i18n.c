/* i18n.c: where the program finds its message catalogues (see i18n.h). */
#include "config.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"

#if defined(ENABLE_NLS) && ENABLE_NLS
/* True when the running program is a file inside the build tree (src/attnview,
 * src/ui/attnview-keys, tests/...): it was not installed, so its catalogues
 * are the build tree's locale/ folder. Decided from the program's own path
 * (/proc/self/exe), never from the environment, so --restricted cannot be
 * pointed at other files. Elsewhere (installed; no /proc) it is false. */
static bool running_from_build_tree(char *dir, size_t size)
{
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !realpath(AV_BUILDDIR, build))
		return false;
	exe[n] = '\0';
	size_t len = strlen(build);
	if (strncmp(exe, build, len) != 0 || exe[len] != '/')
		return false;
	struct stat st;
	int k = snprintf(dir, size, "%s/locale", build);
	return k > 0 && (size_t)k < size && stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}
#endif

const char *av_i18n_init(void)
{
#if defined(ENABLE_NLS) && ENABLE_NLS
	static char build_dir[PATH_MAX + 16];
	const char *dir = running_from_build_tree(build_dir, sizeof build_dir) ? build_dir
		: LOCALEDIR;
	bindtextdomain(PACKAGE, dir);
	bind_textdomain_codeset(PACKAGE, "UTF-8");
	textdomain(PACKAGE);
	return dir;
#else
	return NULL;
#endif
}
