/* batch.c: --dump, --print, --train and --list-samples. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "i18n.h"
#include "batch.h"
#include "finite.h"
#include "lesson/lesson.h"
#include "print_table.h"
#include "train.h"
#include "trace_json.h"
#include "util.h"

/* A dump is also a weights file (--weights), read up to AV_MAX_WEIGHTS_FILE:
 * a larger one (a wide --d-model) is still written, for other programs, but
 * the person learns now, not at the next run, that attnview cannot read it
 * back. Standard output (-) is not looked at. */
static void note_too_big_to_read(const char *path)
{
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uintmax_t)st.st_size <= AV_MAX_WEIGHTS_FILE)
		return;
	char *note = av_printf(_("note: %s is %.0f MB, more than the %d MiB that --weights "
				 "reads: attnview cannot load it back"),
			       path, (double)st.st_size / 1e6, (int)(AV_MAX_WEIGHTS_FILE >> 20));
	char *safe = av_escape_message(note, av_fd_wants_ascii(STDERR_FILENO));
	fprintf(stderr, "attnview: %s\n", safe);
	free(safe);
	free(note);
}

struct dump_job {
	const struct av_session *s;
	const struct av_training_record *training;
};

static bool write_trace(int fd, void *ctx, int *err)
{
	const struct dump_job *job = ctx;
	return av_trace_json_write(fd, &job->s->trace, &job->s->params, job->training, err);
}

/* Streamed (issue 11: the cJSON tree of a D=512 trace held 145 MB), and
 * still all or nothing: av_write_file_atomic_with fills a temporary file
 * and renames it over the target only when the whole text is in it. */
static bool write_dump(const struct av_options *o, const struct av_session *s,
		       const struct av_training_record *training, char **cause)
{
	if (!av_trace_check_finite(&s->trace, cause))
		return false;
	struct dump_job job = { s, training };
	if (!av_write_file_atomic_with(o->dump, write_trace, &job, cause))
		return false;
	note_too_big_to_read(o->dump);
	return true;
}

bool av_batch_dump(const struct av_options *o, const struct av_session *s,
		   const struct av_training_record *training, char **cause)
{
	return write_dump(o, s, training, cause);
}

/* Training that ran off to infinity cannot be written as JSON, and would
 * teach nothing: say so. */
static bool check_finite(const struct av_trainer *tr, char **cause)
{
	int bad_epoch = 0;
	for (int e = 0; e < tr->epoch && !bad_epoch; e++)
		if (!isfinite(tr->loss[e]))
			bad_epoch = e + 1;
	if (!bad_epoch && av_params_first_nonfinite(&tr->params) >= 0)
		bad_epoch = tr->epoch;
	if (bad_epoch)
		return av_fail(cause, _("training diverged: the loss is not a finite number from "
			       "epoch %d on (the learning rate %g is too large; try a smaller --lr)"),
			       bad_epoch, tr->set.lr);
	return true;
}

bool av_batch_train(const struct av_options *o, struct av_session *s, char **cause)
{
	/* Not finite before any step: the temperature or the weights are to
	 * blame, not the learning rate. */
	if (!av_trace_check_finite(&s->trace, cause)) {
		av_cause_prefix(cause, _("cannot train"));
		return false;
	}
	struct av_train_settings set;
	av_options_train_settings(o, &s->sample, &set);
	struct av_trainer *tr = av_trainer_new(s, &set, cause);
	if (!tr)
		return false;
	if (o->train_epochs > av_trainer_max_epochs(tr)) {
		av_fail(cause, _("--train %d: a run of this model keeps at most %d epochs of "
				 "history (%d heads)"), o->train_epochs, av_trainer_max_epochs(tr),
			tr->cfg.heads);
		av_trainer_free(tr);
		return false;
	}
	for (int e = 0; e < o->train_epochs; e++)
		av_trainer_epoch(tr);
	struct av_training_record record;
	av_trainer_record(tr, &record);
	bool ok = check_finite(tr, cause) && av_trainer_apply(tr, s, cause) &&
		  write_dump(o, s, &record, cause);
	av_trainer_free(tr);
	return ok;
}

bool av_batch_use_color(enum av_color_when when)
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
	if (!av_print_stage(stdout, &s->trace, o->print, o->head, av_batch_use_color(o->color), cause))
		return false;
	return av_stdout_flush(cause);
}

/* One sample a line: its name, or its name, a tab and the reason it does
 * not load, escaped as --list-lessons does. */
bool av_batch_list_samples(char **cause)
{
	char **names = av_sample_list();
	for (char **n = names; n && *n; n++) {
		struct av_sample sample;
		char *why = NULL;
		char *name = av_escape_output(*n);
		/* as --list-lessons: a listing must not hide a broken sample */
		if (av_sample_load(*n, &sample, &why)) {
			printf("%s\n", name);
			av_sample_free(&sample);
		} else {
			char *shown = av_escape_output(why);
			printf(_("%s\t(does not load: %s)\n"), name, shown);
			free(shown);
			free(why);
		}
		free(name);
	}
	av_string_list_free(names);
	return av_stdout_flush(cause);
}

/* One lesson a line: its name, a tab and its title (Chinese where the
 * interface is, as the screen shows it), or the reason it does not load (a
 * listing must not hide a broken lesson); each escaped, as the title is
 * text from a file. */
bool av_batch_list_lessons(char **cause)
{
	char **names = av_lesson_list();
	for (char **n = names; n && *n; n++) {
		struct av_lesson l;
		char *why = NULL;
		char *name = av_escape_output(*n), *shown;
		if (av_lesson_load(*n, &l, &why)) {
			enum av_lang lang = av_i18n_text_in_chinese() ? AV_LANG_ZH_CN : AV_LANG_EN;
			shown = av_escape_output(l.title[lang]);
			printf("%s\t%s\n", name, shown);
			av_lesson_free(&l);
		} else {
			shown = av_escape_output(why);
			printf(_("%s\t(does not load: %s)\n"), name, shown);
			free(why);
		}
		free(shown);
		free(name);
	}
	av_string_list_free(names);
	return av_stdout_flush(cause);
}
