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
#include "util.h"

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

/* The captions' language, chosen as gettext chooses the interface's, so the
 * two agree: LC_ALL=de_DE.UTF-8 LANGUAGE=zh_CN gives Chinese messages, so
 * Chinese captions; zh_CN only where the terminal's characters are UTF-8
 * (a Chinese title in another character set is noise). */
bool av_i18n_text_in_chinese(void)
{
	if (!av_locale_is_utf8())
		return false;
	const char *vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	const char *locale = NULL;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !locale; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			locale = v;
	}
	if (!locale || strcmp(locale, "C") == 0 || strcmp(locale, "POSIX") == 0 ||
	    strncmp(locale, "C.", 2) == 0)
		return false;
	const char *language = getenv("LANGUAGE");
	const char *name = language && *language ? language : locale;
	return strncmp(name, "zh", 2) == 0;
}
