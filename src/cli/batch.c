/* batch.c: --dump, --print and --list-samples. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "print_table.h"
#include "trace_json.h"
#include "util.h"

bool av_batch_dump(const struct av_options *o, const struct av_session *s, char **cause)
{
	cJSON *doc = av_trace_to_json(&s->trace, &s->params, NULL);
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	size_t len = strlen(text);
	text = av_realloc(text, len + 2, 1);
	text[len++] = '\n';
	bool ok = av_write_file_atomic(o->dump, text, len, cause);
	free(text);
	return ok;
}

static bool use_color(enum av_color_when when)
{
	if (when != AV_COLOR_AUTO)
		return when == AV_COLOR_ALWAYS;
	const char *no_color = getenv("NO_COLOR");
	if (no_color && *no_color)
		return false;
	const char *term = getenv("TERM");
	if (term && strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO);
}

bool av_batch_print(const struct av_options *o, const struct av_session *s, char **cause)
{
	if (!av_print_stage(stdout, &s->trace, o->print, o->head, use_color(o->color), cause))
		return false;
	if (fflush(stdout) != 0 || ferror(stdout))
		return av_fail(cause, "standard output: write error");
	return true;
}

bool av_batch_list_samples(char **cause)
{
	char **names = av_sample_list();
	for (char **n = names; n && *n; n++)
		printf("%s\n", *n);
	av_string_list_free(names);
	if (fflush(stdout) != 0)
		return av_fail(cause, "standard output: write error");
	return true;
}
