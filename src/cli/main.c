/* main.c: attnview's entry point: parse the options, build the session, then
 * either run a batch mode (--dump, --print) or open the screen. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "batch.h"
#include "i18n.h"
#include "json_read.h"   /* the AV_CFG_* bits of the options given */
#include "lesson/lesson.h"
#include "model_cli.h"
#include "options.h"
#include "classroom.h"
#include "restricted.h"
#include "theme.h"
#include "trace_json.h"
#include "ui/ui.h"
#include "util.h"

#define EXIT_USAGE 2

/* A message quotes input (a file name, a sentence): on a terminal whose
 * locale is not UTF-8 its non-ASCII characters are escaped, as --print's. */
static int fail(char *cause)
{
	bool ascii = av_fd_wants_ascii(STDERR_FILENO);
	char *safe = av_escape_message(cause ? cause : _("unknown error"), ascii);
	fprintf(stderr, "attnview: %s\n", safe);
	free(safe);
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

/* Whatever went to standard output (--help, --version, --print, --dump -)
 * must have arrived: a full disk or a closed pipe is an error, said on
 * stderr, never a silent exit. A stdout closed (>&-) that nothing was
 * written to is no error (--dump FILE >&-), as for gnulib's close_stdout. */
static bool finish_stdout(char **cause)
{
	bool pending = __fpending(stdout) != 0;
	errno = 0;
	bool ok = fflush(stdout) == 0 && !ferror(stdout);
	int err = errno;
	if (fclose(stdout) != 0 && ok) {
		err = errno;
		ok = !pending && err == EBADF;
	}
	if (ok)
		return true;
	return av_stdout_fail(cause, err);
}

/* A closed descriptor 0, 1 or 2 (a shell's >&-) would be reused by the next
 * file opened, and output meant for stdout would land in it (a --dump's
 * temporary file became descriptor 1). /dev/null takes its place, opened the
 * other way round so that using it still fails with EBADF, as gnulib's
 * stdopen does. */
static void keep_standard_fds_taken(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int got = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
		if (got >= 0 && got != fd)   /* a lower one was closed too: opened next */
			close(got);
	}
}

/* The "training" record of the lesson step --dump writes when the step
 * trained its weights, so the file says how, as --train's and the
 * screen's W do; NULL otherwise. */
static const struct av_training_record *step_training(const struct av_options *o,
						      const struct av_lesson *lesson,
						      struct av_training_record *r)
{
	if (!lesson || !o->lesson_step)
		return NULL;
	return av_lesson_training_record(&lesson->steps[o->lesson_step - 1].state, r) ? r : NULL;
}

static bool run(const struct av_options *o, const struct av_classroom_args *room,
		bool restricted, struct av_session *s, const struct av_lesson *lesson,
		char **cause)
{
	if (o->theme && !check_theme(o->theme, cause))
		return false;
	struct av_training_record record;
	const struct av_training_record *trained = step_training(o, lesson, &record);
	/* on top of a step's own training, --train's record would say 50
	 * epochs of weights that had 250, under other settings */
	if (o->train_epochs && trained)
		return av_fail(cause, _("--train: step %d of the lesson has trained its weights "
			       "already (%d epochs); train from a step before it, or use --sample"),
			       o->lesson_step, record.epochs);
	if (o->train_epochs)
		return av_batch_train(o, s, cause);
	if (!trained && av_session_loaded_training(s, &record))
		trained = &record;   /* --weights of trained weights: said on */
	if (o->dump)
		return av_batch_dump(o, s, trained, cause);
	if (o->print)
		return av_batch_print(o, s, cause);
	/* no terminal (a pipe, a file): the weights as a table instead */
	if ((room->lead_dir || room->follow_dir) &&
	    (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		return av_fail(cause, _("--lead and --follow need a terminal"));
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return av_batch_print(&(struct av_options){ .print = "weights", .color = o->color },
				      s, cause);
	struct av_ui_config ui = {
		.theme = o->theme,
		.head = o->head,
		.no_color = o->color == AV_COLOR_NEVER,
		.lesson = lesson,
		.lesson_step = o->lesson_step,
		.restricted = restricted,
	};
	return av_classroom_ui(room, o, s, &ui, cause) && av_ui_run(s, &ui, cause);
}

/* --source in a run without a screen and outside cross mode would be read
 * by nothing (the screen keeps it for c, cross mode): said rather than
 * ignored, as a forgotten --mode=cross would otherwise print self-attention
 * with no word. Without a terminal (a pipe, a file) the weights' table
 * stands for the screen, and is such a run too (a classroom says that it
 * needs a terminal instead). */
static bool check_source_read(const struct av_options *o, const struct av_classroom_args *room,
			      const struct av_session *s, char **cause)
{
	bool no_screen = !room->lead_dir && !room->follow_dir &&
			 (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO));
	if (!o->source || s->cfg.mode == AV_MODE_CROSS ||
	    !(o->print || o->dump || o->train_epochs || no_screen))
		return true;
	return av_fail(cause, _("--source is the encoder's sentence for cross mode, and the "
			       "mode is %s: add --mode=cross"), av_mode_names[s->cfg.mode]);
}

struct given_option {
	unsigned bit;                 /* AV_CFG_* */
	const char *name;
};

/* The first option of list that o was given, or NULL. */
static const char *first_given(const struct av_options *o, const struct given_option *list,
			       size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (o->cfg_given & list[i].bit)
			return list[i].bit == AV_CFG_BIAS && !o->cfg.bias ? "--no-bias" : list[i].name;
	return NULL;
}

/* What a lesson sets is not also an option. Its steps set the sentence,
 * source, mode, scale, temperature, seed, init and hidden keys, and every
 * step (the screen's first, --step's) replaces them: given, they were lost
 * without a word. Its layer is its sample's (or weights'), which every step
 * was checked against and its captions' numbers come from. Refused rather
 * than applied over the step, which would then no longer be the step its
 * caption describes. */
static bool check_lesson_options(const struct av_options *o, char **cause)
{
	static const struct given_option set_by_steps[] = {
		{ AV_CFG_MODE, "--mode" }, { AV_CFG_SCALE, "--scale" },
		{ AV_CFG_TEMPERATURE, "--temperature" }, { AV_CFG_SEED, "--seed" },
		{ AV_CFG_INIT, "--init" },
	}, layer[] = {
		{ AV_CFG_D_MODEL, "--d-model" }, { AV_CFG_HEADS, "--heads" },
		{ AV_CFG_POSITIONAL, "--positional" }, { AV_CFG_BIAS, "--bias" },
	};
	const char *name = first_given(o, set_by_steps, sizeof set_by_steps / sizeof set_by_steps[0]);
	if (!name)
		name = o->source ? "--source" : o->mask_keys_given ? "--mask-keys" : NULL;
	if (name)
		return av_fail(cause, _("%s is set by the lesson's steps: leave it out with "
			       "--lesson (or use --sample instead of --lesson)"), name);
	if (o->sentence)
		return av_fail(cause, "%s", _("a SENTENCE is set by the lesson's steps: leave it "
			       "out with --lesson (or use --sample instead of --lesson)"));
	name = first_given(o, layer, sizeof layer / sizeof layer[0]);
	if (name)
		return av_fail(cause, _("%s would change the lesson's layer, which its steps "
			       "were checked against: leave it out with --lesson"), name);
	return true;
}

/* --lesson: the whole lesson is checked before anything opens (a broken
 * step fails here, not in front of a class); its sample and weights become
 * the session's. The lesson names its layer, so --sample and --weights would
 * contradict it. */
static bool use_lesson(struct av_options *o, struct av_lesson *l, char **cause)
{
	if (o->sample || o->weights)
		return av_fail(cause, _("--lesson names its own sample and weights; "
			       "leave out --sample and --weights"));
	if (!check_lesson_options(o, cause))
		return false;
	if (!av_lesson_load(o->lesson, l, cause))
		return false;
	if (o->lesson_step > l->n_steps) {
		/* the path says which lesson file was found (installed or not) */
		av_fail(cause, _("%s: --step %d: the lesson has %d steps (1 to %d)"), l->path,
			o->lesson_step, l->n_steps, l->n_steps);
		av_lesson_free(l);
		return false;
	}
	o->sample = l->sample.path;
	o->weights = l->weights;
	/* --print of a step shows the head its screen shows (and its question
	 * asks about), not head 0 */
	if (o->lesson_step && !o->head_given)
		o->head = l->steps[o->lesson_step - 1].state.head;
	return true;
}

/* The teaching layer's session (a lesson's step when one is given), then
 * the screen, --print or --dump on it. */
static bool run_layer(struct av_options *o, const struct av_classroom_args *room,
		      bool restricted, char **cause)
{
	struct av_lesson lesson = { 0 };
	if (o->lesson && !use_lesson(o, &lesson, cause))
		return false;
	struct av_session s;
	/* the screen applies its step itself (and a training step's run in
	 * the training view, from epoch 0) */
	bool batch = o->print || o->dump;
	bool ok = av_options_setup(o, &s, cause) &&
		  (!o->lesson_step || !batch ||
		   av_lesson_apply(&lesson, &lesson.steps[o->lesson_step - 1].state, &s, cause)) &&
		  check_source_read(o, room, &s, cause) &&
		  (!restricted || av_restricted_check_session(&s, cause)) &&
		  run(o, room, restricted, &s, o->lesson ? &lesson : NULL, cause) &&
		  finish_stdout(cause);
	av_session_free(&s);
	av_lesson_free(&lesson);
	return ok;
}

/* What the parsed options ask for: a real model, a listing, or the
 * teaching layer; options read only elsewhere are refused, not ignored.
 * A classroom is a screen: --lead or --follow with a batch option is said
 * first, before what the batch options lack among themselves ("--train
 * needs --dump" would send the teacher to add an option that is refused
 * next) and before any file is read. */
static bool run_options(struct av_options *o, const struct av_classroom_args *room,
			bool restricted, char **cause)
{
	if (restricted && !av_restricted_check_options(o, cause))
		return false;
	if ((room->lead_dir || room->follow_dir) && (o->train_epochs || o->dump || o->print))
		return av_fail(cause, _("--lead and --follow are for the screen, not with --train,"
			       " --dump or --print"));
	if (!av_options_check(o, cause))
		return false;
	if (o->model)   /* a real GPT-2: no teaching layer, no session */
		return room->lead_dir || room->follow_dir
		       ? av_fail(cause, _("--lead and --follow are not available with --model yet"))
		       : av_model_cli_run(o, restricted, av_batch_use_color(o->color), cause) &&
			 finish_stdout(cause);
	if ((o->list_samples || o->list_lessons) && (room->lead_dir || room->follow_dir))
		return av_fail(cause, _("--%s and --%s cannot be used together "
			       "(a listing reads no other option)"),
			       o->list_samples ? "list-samples" : "list-lessons",
			       room->lead_dir ? "lead" : "follow");
	if (o->list_samples || o->list_lessons)
		return (o->list_samples ? av_batch_list_samples(cause)
			: av_batch_list_lessons(cause)) && finish_stdout(cause);
	if (o->lesson_step && !o->lesson)
		return av_fail(cause, "%s", _("--step needs --lesson: it names one of the lesson's "
					     "steps"));
	if (o->layer >= 0)   /* read only by --model: said rather than ignored */
		return av_fail(cause, "%s", _("--layer needs --model: the teaching layer is a "
					     "single layer"));
	/* --print and --dump of a lesson show a step's state, the first unless
	 * --step says which (as the screen opens on step 1), never the
	 * sample's start, which no step shows */
	if (o->lesson && (o->print || o->dump) && !o->lesson_step)
		o->lesson_step = 1;
	return run_layer(o, room, restricted, cause);
}

int main(int argc, char **argv)
{
	/* The character set (UTF-8 for the screen) and the language of the C
	 * library's messages come from the environment; the decimal point never
	 * does: numbers in files and tables are the same in every locale. */
	keep_standard_fds_taken();   /* before anything is opened */
	/* A file size limit (ulimit -f) makes a write fail with EFBIG, said
	 * like a full disk, rather than kill the program with SIGXFSZ: from
	 * the screen that left the terminal in the alternate screen, without
	 * a word. */
	signal(SIGXFSZ, SIG_IGN);
	setlocale(LC_CTYPE, "");
	setlocale(LC_MESSAGES, "");
	av_i18n_init();
	/* UTF-8 to a terminal in another charset would be mojibake, and its
	 * bytes 0x80..0x9f C1 controls: text from input is escaped instead, as
	 * the screen does. A pipe or a file gets UTF-8 in every locale. */
	av_output_set_ascii(av_fd_wants_ascii(STDOUT_FILENO));
	struct av_options o;
	char *cause = NULL;
	bool restricted, ok = false;
	struct av_classroom_args room = { 0 };
	if (!av_restricted_prepare(&argc, argv, &restricted, &cause) ||
	    !av_classroom_args(&argc, argv, restricted, &room, &cause)) {
		av_classroom_args_free(&room);
		return fail(cause);
	}
	switch (av_options_parse(&o, argc, argv, &cause)) {
	case AV_PARSE_EXIT_OK:
		ok = finish_stdout(&cause);
		break;
	case AV_PARSE_ERROR:
		break;
	case AV_PARSE_RUN:
		ok = run_options(&o, &room, restricted, &cause);
		break;
	}
	av_classroom_args_free(&room);
	av_options_free(&o);
	return ok ? EXIT_SUCCESS : fail(cause);
}
