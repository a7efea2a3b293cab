/* main.c: attnview's entry point: parse the options, build the session, then
 * either run a batch mode (--dump, --print) or open the screen. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "batch.h"
#include "lesson/lesson.h"
#include "options.h"
#include "theme.h"
#include "ui/ui.h"
#include "util.h"

#define EXIT_USAGE 2

static int fail(char *cause)
{
	fprintf(stderr, "attnview: %s\n", cause ? cause : "unknown error");
	free(cause);
	return EXIT_USAGE;
}

/* A bad --theme is reported in every mode, not only when the screen opens. */
static bool check_theme(const char *name, char **cause)
{
	struct av_theme theme = { 0 };
	if (!av_theme_load(name, &theme, cause))
		return false;
	av_theme_free(&theme);
	return true;
}

static bool run(const struct av_options *o, struct av_session *s,
		const struct av_lesson *lesson, char **cause)
{
	if (o->theme && !check_theme(o->theme, cause))
		return false;
	if (o->train_epochs)
		return av_batch_train(o, s, cause);
	if (o->dump)
		return av_batch_dump(o, s, cause);
	if (o->print)
		return av_batch_print(o, s, cause);
	/* no terminal (a pipe, a file): the weights as a table instead */
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return av_batch_print(&(struct av_options){ .print = "weights", .color = o->color },
				      s, cause);
	struct av_ui_config ui = {
		.theme = o->theme,
		.head = o->head,
		.no_color = o->color == AV_COLOR_NEVER,
		.lesson = lesson,
	};
	return av_ui_run(s, &ui, cause);
}

/* --lesson: the whole lesson is checked before anything opens (a broken
 * step fails here, not in front of a class); its sample and weights become
 * the session's. The lesson names its layer, so --sample and --weights would
 * contradict it. */
static bool use_lesson(struct av_options *o, struct av_lesson *l, char **cause)
{
	if (o->sample || o->weights)
		return av_fail(cause, "--lesson names its own sample and weights; "
			       "leave out --sample and --weights");
	if (!av_lesson_load(o->lesson, l, cause))
		return false;
	o->sample = l->sample.path;
	o->weights = l->weights;
	return true;
}

int main(int argc, char **argv)
{
	/* a locale the system lacks (LANG=zh_CN.UTF-8 on a server without it)
	 * fails as a whole; the characters' category alone may still work */
	if (!setlocale(LC_ALL, ""))
		setlocale(LC_CTYPE, "");
	struct av_options o;
	char *cause = NULL;
	switch (av_options_parse(&o, argc, argv, &cause)) {
	case AV_PARSE_EXIT_OK:
		av_options_free(&o);
		return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	case AV_PARSE_ERROR:
		av_options_free(&o);
		return fail(cause);
	case AV_PARSE_RUN:
		break;
	}
	if (o.list_samples || o.list_lessons) {
		bool ok = o.list_samples ? av_batch_list_samples(&cause)
			: av_batch_list_lessons(&cause);
		av_options_free(&o);
		return ok ? EXIT_SUCCESS : fail(cause);
	}
	struct av_lesson lesson = { 0 };
	if (o.lesson && !use_lesson(&o, &lesson, &cause)) {
		av_options_free(&o);
		return fail(cause);
	}
	struct av_session s;
	bool ok = av_options_setup(&o, &s, &cause) && run(&o, &s, o.lesson ? &lesson : NULL, &cause);
	av_session_free(&s);
	av_lesson_free(&lesson);
	av_options_free(&o);
	return ok ? EXIT_SUCCESS : fail(cause);
}
