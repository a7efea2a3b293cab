/* classroom.c: the screen's side of --lead and --follow (see classroom.h).
 *
 * The leader captures its state after every key (and every half second
 * while training runs) and publishes it when it changed; a tick the half
 * second held back is published when the half second is over, and the
 * tick that ends a run at once, so the class never stays on an older
 * state than the teacher's. A follower
 * follows: each snapshot is applied to its own session and laid out for
 * its own screen. The first key that changes its state makes it explore
 * (src/follow/explore.h): its state before and after each key is compared
 * (the snapshot's fields, the cursor's row and column, the stepper's view
 * paged, the view, an editor or prompt opened), so a key that only changes
 * the look (z, T, ?, Ctrl-L) or a resize does not count, and the key that
 * does count is applied, not lost. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "follow/explore.h"
#include "follow/room.h"
#include "follow/snapshot.h"
#include "follow/sync.h"
#include "i18n.h"
#include "lesson/lesson.h"
#include "restricted_limits.h"
#include "rng.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/views/figview.h"
#include "ui/ui.h"
#include "ui/views/view_train_internal.h"
#include "ui/widgets/draw.h"
#include "util.h"

/* The snapshot names stages by src/follow's table, the screen by its own:
 * they must be the same list (snapshot.c's av_snap_stage_names is in the
 * order of AV_STAGES, engine/stage_list.h; classroom.test steps through
 * them). */
_Static_assert(AV_SNAP_STAGE_COUNT == AV_STAGE_COUNT,
	       "src/follow/snapshot.h and src/engine/stage_list.h disagree on the stages");

/* While training runs the leader publishes at most this often (a follower
 * replays the run, going on from where it was). */
#define TICK_PUBLISH_MS 500

/* What a follower compares before and after a key. */
struct local {
	struct av_state st;
	int row, col;
	int scroll_row, scroll_col;    /* the stepper's scroll as the keys left it */
	unsigned windows_made;         /* a->windows_made: a resize restarts the scroll */
	bool editing;               /* the editor or the prompt is open */
	struct av_snap_training run;   /* the training view's trainer, as a run */
	bool running;                  /* and whether it runs */
};

struct av_classroom {
	struct av_leader *leader;
	struct av_follower *follower;
	struct av_state identity;   /* sample, origin, weights, hash */
	struct av_state last;       /* published or applied last */
	bool have_last;
	uint64_t seq;

	/* the leader */
	struct av_snap_training run;   /* the training run as a recipe */
	bool told_recipe_full;
	unsigned long run_serial;      /* the trainer run tracks (av_train_view_serial) */
	int n_base;                    /* the runs that trained the weights run's */
	struct av_snap_training base[AV_SNAP_MAX_RUNS - 1];   /* trainer started from */
	int n_shown;                   /* the runs of the weights shown at the last */
	struct av_snap_training shown[AV_SNAP_MAX_RUNS];      /* capture, and their */
	uint64_t shown_print;          /* print (av_params_print) */
	bool told_runs_full;
	struct av_state pin_state;     /* the state a comparison's stepper pin was */
	bool have_pin_state;           /* made in, sent while the comparison lasts */
	long long last_publish_ms;
	bool held;                     /* a tick's state not published yet */
	bool refused;                  /* the last snapshot could not be followed */
	int log_fd;                    /* DIR/log, or -1 */
	char *log_path;

	/* a follower */
	struct av_explore ex;
	struct local before;
	bool have_before;
	struct av_snap_training view_run;   /* replayed on the training view's trainer */
	bool have_view_run;
	struct av_lesson lesson;            /* the teacher's lesson, loaded here */
	bool have_lesson;
	struct av_state teacher_pin;        /* the pinned state of the newest snapshot */
	bool have_teacher_pin;
	uint64_t trained_print;             /* av_params_print after the last snapshot */
	int epochs_before;                  /* of the run replayed into the session:
					       a trained file's epochs it started from */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- the leader's log: DIR/log, who came and went (stderr is the screen) */

/* Only a regular file of the teacher's own is the log: the room was
 * writable by the class (01770) before it was 0750, and a FIFO planted as
 * DIR/log made open() wait for a reader for ever, the teacher's screen
 * blank (O_NONBLOCK lets it return; then it is not the log); a file a
 * student left there kept the log off ("no log"), and who followed
 * unsaid. Such a file is removed (the room is the teacher's) and the log
 * made anew. */
static void open_log(struct av_classroom *c, const char *dir)
{
	struct stat st;

	c->log_path = av_printf("%s/log", dir);
	av_room_remove_foreign(c->log_path);
	c->log_fd = open(c->log_path,
			 O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (c->log_fd >= 0 &&
	    (fstat(c->log_fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
		close(c->log_fd);
		c->log_fd = -1;
	}
}

static void log_line(struct av_classroom *c, const char *line)
{
	char stamp[32], *text;
	time_t t = time(NULL);
	struct tm tm;

	if (c->log_fd < 0)
		return;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	text = av_printf("%s %s\n", stamp, line);
	/* a full disk loses a log line, nothing else */
	ssize_t written = write(c->log_fd, text, strlen(text));
	(void)written;
	free(text);
}

static void on_leader_note(void *ctx, const char *line)
{
	struct av_app *a = ctx;

	log_line(a->classroom, line);
	a->dirty |= AV_DIRTY_HEADER;   /* the count of followers */
}

static void on_follower_note(void *ctx, const char *line)
{
	av_app_message(ctx, false, "%s", line);
}

/* --- capturing the state */

static enum av_snap_view view_kind(const struct av_app *a)
{
	if (a->view == &av_view_heads)
		return a->heads_bars ? AV_SNAP_VIEW_BARS : AV_SNAP_VIEW_HEADS;
	if (a->view == &av_view_train)
		return AV_SNAP_VIEW_TRAIN;
	if (a->view == &av_view_figures)
		return AV_SNAP_VIEW_FIGURES;
	if (a->view == &av_view_compare || a->pin)
		return AV_SNAP_VIEW_COMPARE;
	return AV_SNAP_VIEW_STAGE;
}

/* The trainer whose weights the session shows (the training view's, or
 * the one it left its weights from), or NULL. */
static struct av_trainer *shown_trainer(const struct av_app *a)
{
	int epochs, steps;

	if (a->train == NULL || a->train->tr == NULL)
		return NULL;
	if (a->view == &av_view_train || av_train_view_weights_trained(a, &epochs, &steps))
		return a->train->tr;
	return NULL;
}

/* The run a lesson step trained in the stepper: its training from fresh
 * weights under the settings recorded with it (the step that declared the
 * training, which may be an earlier one), as the lesson engine runs it. */
static void lesson_run(const struct av_lesson_state *st, struct av_snap_training *t)
{
	t->active = true;
	t->init = st->init;
	av_snap_set_under(t, st->train.mode, st->train.scale, st->train.temperature,
			  st->train.source);
	t->epochs = st->train.epochs;
	t->steps = st->train.steps;
	t->n_recipe = 1;
	t->recipe[0] = (struct av_snap_recipe){
		.at = 0, .target = st->train.target, .optimizer = st->train.optimizer,
		.params = AV_TRAIN_QKV, .lr = st->train.lr, .reset = true,
	};
	t->n_tracks = 1;   /* no pair: the weights do not depend on it */
	memset(&t->tracks[0], 0, sizeof t->tracks[0]);
}

/* The leader: the runs that trained the weights shown, into snap (before[]
 * and training). A trainer made since the last capture started from the
 * weights then shown (the training view opened on them: its runs come
 * first) or from fresh ones (a lesson step's training view); without a
 * trainer shown, the weights are a lesson step's training, or those of the
 * last capture when unchanged, or fresh ones (new seed, a step). */
static void capture_runs(struct av_app *a, struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	const struct av_trainer *tr = shown_trainer(a);
	const struct av_lesson_state *step;
	/* the weights shown: in the training view its trainer's, for the
	 * session still holds those the view opened on (a lesson's step there
	 * holds fresh ones, and the next step's trainer, started from them,
	 * was taken for a run going on from the shown, trained ones: students
	 * replayed both runs, 400 epochs where the teacher had 200); elsewhere
	 * the session's (a trainer left behind sleeps, its tensors given up) */
	bool in_view = tr != NULL && a->view == &av_view_train;
	uint64_t print = av_params_print(in_view ? &tr->params : &a->s->params);
	int n = 0;

	av_state_run_under(&snap->training, snap);
	snap->training.active = false;
	snap->training.epochs = snap->training.steps = 0;
	if (tr != NULL) {
		if (av_train_view_serial(a) != c->run_serial) {
			bool chained = av_params_print(&tr->start) == c->shown_print;
			c->run_serial = av_train_view_serial(a);
			c->run.active = false;
			c->n_base = chained ? c->n_shown : 0;
			if (c->n_base > AV_SNAP_MAX_RUNS - 1) {
				if (!c->told_runs_full)
					av_app_message(a, true, _("the class replays at most %d runs "
						       "in a row; this one starts from weights it "
						       "cannot: r in the stepper draws fresh ones"),
						       AV_SNAP_MAX_RUNS);
				c->told_runs_full = true;
				c->n_base = AV_SNAP_MAX_RUNS - 1;
			}
			memcpy(c->base, c->shown, (size_t)c->n_base * sizeof c->base[0]);
		}
		if (!av_state_track_training(&c->run, tr) && !c->told_recipe_full) {
			av_app_message(a, true, _("the class replays this run without the latest"
						  " change (more than %d changes: r starts a new"
						  " run)"), AV_SNAP_MAX_RECIPE);
			c->told_recipe_full = true;
		}
		memcpy(c->shown, c->base, (size_t)c->n_base * sizeof c->base[0]);
		c->shown[c->n_base] = c->run;
		n = c->n_base + 1;
	} else {
		/* run_serial stays: the trainer shown again (t back at epoch 0)
		 * is the same run, not one started from its own start */
		if ((step = av_lesson_ui_trained_step(a)) != NULL) {
			lesson_run(step, &c->shown[0]);
			n = 1;
		} else if (print == c->shown_print) {
			n = c->n_shown;
		}
	}
	c->n_shown = n;
	c->shown_print = print;
	if (n > 0) {
		snap->n_before = n - 1;
		memcpy(snap->before, c->shown, (size_t)(n - 1) * sizeof c->shown[0]);
		snap->training = c->shown[n - 1];
	}
}

/* A cursor row or column within the snapshot's bounds. The views with
 * matrices keep the cursor on them (av_app_place_cursor); the others leave
 * it where the last of those placed it, so this only guards the bound. */
static int cell_index(int v)
{
	return v < 0 ? 0 : v > AV_SNAP_MAX_CELL ? AV_SNAP_MAX_CELL : v;
}

/* The state as a snapshot (seq not set). */
static bool capture(struct av_app *a, struct av_state *snap, char **cause)
{
	const struct av_trace *t = &a->s->trace;
	struct av_classroom *c = a->classroom;

	/* the cursor as the screen will show it: a new stage or a lesson's
	 * step moved it, and the screen, drawn after the publish, had not yet
	 * placed it (the class got the cursor of the key before) */
	av_app_place_cursor(a);
	*snap = c->identity;
	if (!av_state_capture(snap, a->s, cause))
		return false;
	snap->stage = (int)a->stage;
	snap->view = view_kind(a);
	snap->figure = a->view == &av_view_figures ? av_figures_current(a) : 0;
	snap->panel = a->view == &av_view_figures ? av_figures_panel(a) : 0;
	snap->compare = a->view == &av_view_compare ? av_pin_display(a) : 0;
	if (a->view == &av_view_train) {
		struct av_train_look look;

		av_train_view_look(a, &look);
		snap->train_vocab = look.vocab;
		snap->train_scores = look.scores;
		snap->train_mats = look.mats;
		snap->train_sentence = look.sentence;
	}
	snap->head = a->head < snap->heads ? a->head : 0;
	snap->query = a->sel_query >= 0 && a->sel_query < t->n ? a->sel_query : -1;
	snap->key = a->sel_key >= 0 && a->sel_key < t->m ? a->sel_key : -1;
	snap->row = cell_index(a->row);
	snap->col = cell_index(a->col);
	/* the view's origin only where it means something elsewhere
	 * (snapshot.h): the stepper's, as the screen drawn after the publish
	 * will place it (a > at the last page asks for more than it keeps) */
	if (snap->view == AV_SNAP_VIEW_STAGE && a->view == &av_view_stage) {
		int first_row, first_col;
		av_stage_view_origin(a, &first_row, &first_col);
		snap->first_row = cell_index(first_row);
		snap->first_col = cell_index(first_col);
	}
	const char *lesson = av_lesson_ui_name(a, &snap->lesson_step);
	if (lesson != NULL && strlen(lesson) <= AV_SNAP_NAME_MAX) {
		snprintf(snap->lesson, sizeof snap->lesson, "%s", lesson);
		snap->lesson_hash = av_lesson_ui_text_hash(a);
	} else {
		snap->lesson_step = 0;
	}
	if (c->leader != NULL)
		capture_runs(a, snap);
	return true;
}

static void publish(struct av_app *a)
{
	struct av_classroom *c = a->classroom;
	struct av_state snap;
	char *cause = NULL;

	c->held = false;
	if (!capture(a, &snap, &cause) ||
	    (c->have_last && av_state_same(&snap, &c->last))) {
		free(cause);
		return;
	}
	if (snap.view != AV_SNAP_VIEW_COMPARE)
		c->have_pin_state = false;
	snap.seq = ++c->seq;
	if (!av_leader_publish_pinned(c->leader, &snap, c->have_pin_state ? &c->pin_state : NULL,
				      &cause)) {
		av_app_message(a, true, _("not sent to the class: %s"), cause);
		free(cause);
		return;
	}
	c->last = snap;
	c->have_last = true;
	c->last_publish_ms = now_ms();
}

void av_classroom_pinned(struct av_app *a)
{
	struct av_classroom *c = a->classroom;
	char *cause = NULL;

	if (c == NULL || c->leader == NULL)
		return;
	c->have_pin_state = capture(a, &c->pin_state, &cause);
	free(cause);
}

/* --- opening and closing */

/* What students have of the teacher's lesson or sample: they load the
 * installed one of its name, and refuse it when its text is not the
 * teacher's. */
enum students_copy {
	STUDENTS_HAVE_IT,
	STUDENTS_HAVE_NONE,      /* nothing of that name is installed */
	STUDENTS_HAVE_ANOTHER,   /* another version of it: an edited copy led */
};

/* A teacher leading a file of their own was told nothing, and learnt it
 * only from the students. */
static enum students_copy students_lesson(const struct av_lesson *lesson)
{
	struct av_lesson installed;
	if (!av_lesson_load(lesson->name, &installed, NULL))
		return STUDENTS_HAVE_NONE;
	bool same = installed.text_hash == lesson->text_hash;
	av_lesson_free(&installed);
	return same ? STUDENTS_HAVE_IT : STUDENTS_HAVE_ANOTHER;
}

/* A file given by path, or installed under another file name, is not what
 * students load (av_state_load_sample). */
static enum students_copy students_sample(const struct av_classroom *c)
{
	struct av_sample found;
	if (c->identity.origin == AV_SNAP_FROM_WEIGHTS)
		return STUDENTS_HAVE_IT;   /* students give the same --weights */
	if (av_state_find_sample(c->identity.sample, c->identity.content_hash, &found, NULL)) {
		av_sample_free(&found);
		return STUDENTS_HAVE_IT;
	}
	return av_state_sample_named(c->identity.sample) ? STUDENTS_HAVE_ANOTHER
							 : STUDENTS_HAVE_NONE;
}

/* The teacher's first status line: where the room is, or why students
 * will not be able to follow (which the teacher would otherwise learn only
 * from the students). An edited copy of an installed sample or lesson
 * said only "install its file": that the students' one of that name is
 * another version, which they would refuse, went unsaid. */
static void lead_message(struct av_app *a, const struct av_ui_config *cfg)
{
	const struct av_classroom *c = a->classroom;
	enum students_copy lesson = cfg->lesson ? students_lesson(cfg->lesson) : STUDENTS_HAVE_IT;
	enum students_copy sample = students_sample(c);
	if (lesson == STUDENTS_HAVE_ANOTHER)
		av_app_message(a, true, _("students cannot follow this lesson: the installed "
					  "lesson %s is another version (other steps or "
					  "numbers); install this file as lessons/%s.json in its "
					  "place, or give it its own \"name\""),
			       cfg->lesson->name, cfg->lesson->name);
	else if (lesson == STUDENTS_HAVE_NONE)
		av_app_message(a, true, _("students cannot follow this lesson: install its file "
					  "as lessons/%s.json first"), cfg->lesson->name);
	else if (sample == STUDENTS_HAVE_ANOTHER)
		av_app_message(a, true, _("students cannot follow this sample: the installed "
					  "sample %s is another version (other numbers); install "
					  "this file as samples/%s.json in its place, or give it "
					  "its own \"name\""),
			       c->identity.sample, c->identity.sample);
	else if (sample == STUDENTS_HAVE_NONE)
		av_app_message(a, true, _("students cannot follow this sample: they load it by "
					  "its name, so install its file as samples/%s.json first"),
			       c->identity.sample);
	else
		av_app_message(a, false, _("leading %s: students start attnview --follow; who "
					   "follows is logged in %s"), cfg->lead_dir,
			       c->log_fd >= 0 ? c->log_path : _("(no log: cannot write it)"));
}

bool av_classroom_open(struct av_app *a, const struct av_ui_config *cfg, char **cause)
{
	struct av_classroom *c;

	if (cfg->lead_dir == NULL && cfg->follow_dir == NULL)
		return true;
	c = av_calloc(1, sizeof *c);
	c->log_fd = -1;
	av_state_init(&c->identity);
	av_state_init(&c->last);
	c->run = c->last.training;
	av_explore_init(&c->ex);
	snprintf(c->identity.sample, sizeof c->identity.sample, "%s",
		 a->s->sample.name ? a->s->sample.name : "");
	c->identity.content_hash = cfg->content_hash;
	if (cfg->weights_name != NULL) {
		c->identity.origin = AV_SNAP_FROM_WEIGHTS;
		snprintf(c->identity.weights, sizeof c->identity.weights, "%s", cfg->weights_name);
	}
	a->classroom = c;
	if (cfg->lead_dir != NULL) {
		c->leader = av_leader_open(cfg->lead_dir, on_leader_note, a, cause);
		if (c->leader == NULL) {
			av_classroom_free(a);
			return false;
		}
		/* in the room's directory, which the leader has just made its own */
		open_log(c, cfg->lead_dir);
		log_line(c, "leading");
		lead_message(a, cfg);
		publish(a);
	} else {
		c->follower = av_follower_new(cfg->follow_dir, cfg->teacher_uid, on_follower_note, a);
		av_state_set_interrupt(av_app_interrupted);
		a->s->keeps_copies = false;   /* one of a class on one server */
	}
	return true;
}

void av_classroom_free(struct av_app *a)
{
	struct av_classroom *c = a->classroom;

	if (c == NULL)
		return;
	if (c->leader != NULL)   /* the log says when the class ended too */
		log_line(c, "stopped leading");
	av_leader_close(c->leader);
	av_follower_free(c->follower);
	if (c->log_fd >= 0)
		close(c->log_fd);
	free(c->log_path);
	if (c->have_lesson) {
		av_lesson_ui_free(a);
		av_lesson_free(&c->lesson);
	}
	free(c);
	a->classroom = NULL;
}

/* --- a follower applies a snapshot */

/* The teacher's sample, when this attnview started with another. */
static bool same_data(struct av_app *a, const struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	char *cause = NULL;

	if (snap->content_hash == c->identity.content_hash &&
	    strcmp(snap->sample, c->identity.sample) == 0 && snap->origin == c->identity.origin)
		return true;
	if (snap->origin == AV_SNAP_FROM_WEIGHTS) {
		av_app_message(a, true, _("the teacher uses the weights %s; start attnview with"
					  " the same --weights to follow"), snap->weights);
		return false;
	}
	if (c->identity.origin == AV_SNAP_FROM_WEIGHTS) {
		av_app_message(a, true, _("the teacher uses no weights file; start attnview"
					  " without --weights to follow"));
		return false;
	}
	if (!av_state_load_sample(a->s, snap->sample, snap->content_hash, &cause)) {
		av_app_message(a, true, _("cannot follow: %s"), cause);
		free(cause);
		return false;
	}
	snprintf(c->identity.sample, sizeof c->identity.sample, "%s", snap->sample);
	c->identity.content_hash = snap->content_hash;
	c->have_last = false;
	av_train_view_free(a);
	av_pin_free(a);
	return true;
}

/* Leaves the views the snapshot does not show (their state is rebuilt). */
static void leave_views(struct av_app *a, enum av_snap_view want)
{
	struct av_classroom *c = a->classroom;
	enum av_snap_view have = view_kind(a);

	/* the comparison keeps its pin: pinned when the teacher pinned, it
	 * stays beside the live matrix as the teacher changes things */
	if (have == want)
		return;
	if (a->pin) {
		av_pin_free(a);
		/* "the teacher pinned ...: watch the live side" stayed under a
		 * screen with no pinned side (a follower presses no key) */
		if (!a->message_error)
			av_app_clear_message(a);
	}
	if (have == AV_SNAP_VIEW_TRAIN && want != AV_SNAP_VIEW_TRAIN) {
		av_train_view_free(a);
		c->have_view_run = false;
		av_app_clear_message(a);   /* the view's key hints stayed */
	}
	if (want != AV_SNAP_VIEW_FIGURES)
		av_figures_free(a);
	a->view = &av_view_stage;
}

/* The engine's part: the session becomes the snapshot's state. In the
 * training view the run is replayed on the view's own trainer (so its
 * charts show it), going on from the last replay when the run went on;
 * else av_state_apply replays it into the session. */
static bool apply_state(struct av_app *a, const struct av_state *snap, char **cause)
{
	struct av_classroom *c = a->classroom;
	const struct av_state *prev = c->have_last ? &c->last : NULL;
	struct av_state plain = *snap, plain_prev;
	bool go_on;

	if (snap->view != AV_SNAP_VIEW_TRAIN || !snap->training.active)
		return av_state_apply(a->s, prev, snap, &c->epochs_before, cause);
	plain.training.active = false;
	plain.training.epochs = plain.training.steps = 0;
	if (prev != NULL) {
		plain_prev = *prev;
		plain_prev.training = plain.training;
	}
	go_on = prev != NULL && a->view == &av_view_train && a->train != NULL &&
		c->have_view_run && av_state_recipe_continues(&c->view_run, &snap->training) &&
		!av_state_needs_params(&plain_prev, &plain);
	/* not going on: the untrained parameters, and a new trainer from them */
	int last_before = 0;
	if (!av_state_apply(a->s, go_on ? &plain_prev : NULL, &plain, &last_before, cause))
		return false;
	if (!go_on) {
		av_train_view_free(a);
		c->have_view_run = false;
		if (!av_train_view_open(a))
			return av_fail(cause, "%s", _("the training view does not open"));
		av_app_clear_message(a);   /* its key hints are for the teacher */
		/* the runs before this one: it goes on from their epochs, as
		 * the teacher's new trainer does */
		if (snap->n_before > 0)
			a->train->tr->epochs_before =
				av_state_epochs_after(last_before, &snap->before[snap->n_before - 1]);
	}
	if (!av_state_replay(a->train->tr, go_on ? &c->view_run : NULL, &snap->training, cause) ||
	    !av_trainer_apply(a->train->tr, a->s, cause)) {
		c->have_view_run = false;
		return false;
	}
	c->view_run = snap->training;
	c->have_view_run = true;
	c->epochs_before = a->train->tr->epochs_before;   /* kept when the view is left */
	av_train_view_mark_saved(a);   /* the teacher's run: nothing to lose on q */
	a->train->stale = true;
	return true;
}

/* Whether the pinned state pin gives snap's numbers: they differ at most
 * in where the teacher looks, the figure and its panel included. */
static bool pin_numbers_are(const struct av_state *pin, const struct av_state *snap)
{
	struct av_state where = *pin;

	where.figure = snap->figure;
	where.panel = snap->panel;
	return av_state_same_numbers(&where, snap);
}

/* The pin's own message tells whoever pinned what to change next; a
 * student is told whose pin it is instead. */
static void said_teachers_pin(struct av_app *a)
{
	char text[160];

	if (a->pin == NULL)
		return;
	av_pin_describe(a, text, sizeof text);
	av_app_message(a, false, _("the teacher pinned %s: watch the live side change as the "
				   "teacher changes things (D: the display)"), text);
}

/* The teacher's cursor cell, as the teacher's view placed it. In the
 * stepper its column counts the stage's matrices side by side, inputs
 * included, so it is taken as it is, not placed again in the stage's own
 * result as a column from another view is (hm.stage -1, which the heads
 * and training views leave behind on the teacher's screen too). */
static void place_teachers_cursor(struct av_app *a, const struct av_state *snap)
{
	a->row = snap->row;
	a->col = snap->col;
	if (snap->view != AV_SNAP_VIEW_STAGE && snap->view != AV_SNAP_VIEW_COMPARE) {
		a->hm.stage = -1;
		a->hm.own_first = 0;
		return;
	}
	if (a->hm.stage != snap->stage) {   /* a new stage opens scrolled to its start */
		a->hm.scroll_col = 0;
		a->hm.on_factor = false;
	}
	a->hm.stage = snap->stage;
}

/* The teacher's view origin for the stepper's next draw: the teacher's
 * first row and column where this screen shows the cursor's cell from
 * there, else the least scroll that does (the heatmap's rule). Only the
 * stepper's: the other views send none (snapshot.h). Called after the
 * windows are made, whose draw may have moved the view for its cursor. */
static void place_teachers_view(struct av_app *a, const struct av_state *snap)
{
	if (snap->view == AV_SNAP_VIEW_STAGE && a->view == &av_view_stage && a->pin == NULL &&
	    (int)a->stage == snap->stage)
		av_stage_view_set_origin(a, snap->first_row, snap->first_col);
}

/* Pins what the teacher pinned in state pin (a figure's panel, or the
 * stepper's matrix at its stage, head and cell), from the session as it
 * is: in that state, or with the same numbers. */
static void pin_the_teachers(struct av_app *a, const struct av_state *pin)
{
	if (pin->view == AV_SNAP_VIEW_FIGURES) {
		enum av_figure_kind fig = (enum av_figure_kind)(pin->figure < AV_FIG_COUNT
								? pin->figure : 0);
		av_figures_show(a, fig);
		av_pin_figure(a, fig, pin->panel);
		said_teachers_pin(a);
		return;
	}
	/* at the pin's stage, head and cell (the teacher may have moved on
	 * since: Tab in the comparison), then back to the live ones */
	enum av_stage stage = a->stage;
	int head = a->head, row = a->row, col = a->col;
	int hm_stage = a->hm.stage;
	a->stage = (enum av_stage)pin->stage;
	a->head = pin->head < a->s->trace.heads ? pin->head : 0;
	place_teachers_cursor(a, pin);
	av_app_draw(a);     /* the cursor's matrix, as the pin reads it */
	av_pin_stepper(a);
	a->stage = stage;
	a->head = head;
	a->row = row;
	a->col = col;
	a->hm.stage = hm_stage;
	said_teachers_pin(a);
}

/* The screen's part: view, stage, head, cursor. pin_live: in a
 * comparison with no pin here, the state whose matrix to pin from the
 * session as it now is (the teacher's pinned state, or snap itself), or
 * NULL: none can be (follow() decides). */
static void apply_screen(struct av_app *a, const struct av_state *snap,
			 const struct av_state *pin_live, bool said_before)
{
	a->stage = (enum av_stage)snap->stage;
	a->head = snap->head < a->s->trace.heads ? snap->head : 0;
	place_teachers_cursor(a, snap);
	switch (snap->view) {
	case AV_SNAP_VIEW_HEADS:
	case AV_SNAP_VIEW_BARS:
		a->view = &av_view_heads;
		a->heads_bars = snap->view == AV_SNAP_VIEW_BARS;
		break;
	case AV_SNAP_VIEW_FIGURES:
		if (a->view != &av_view_figures || av_figures_current(a) != snap->figure)
			av_figures_show(a, (enum av_figure_kind)(snap->figure < AV_FIG_COUNT
								 ? snap->figure : 0));
		av_figures_focus(a, snap->panel);   /* the panel the teacher marked */
		break;
	case AV_SNAP_VIEW_COMPARE:
		if (a->pin) {
			av_pin_set_display(a, snap->compare);   /* the teacher's D */
			break;
		}
		a->view = &av_view_stage;
		if (pin_live != NULL) {
			pin_the_teachers(a, pin_live);
			av_pin_set_display(a, snap->compare);
			break;
		}
		if (!said_before)
			av_app_message(a, false, _("the teacher compares with a matrix pinned "
						   "before you joined; here only the live "
						   "one is shown (y pins your own)"));
		break;
	case AV_SNAP_VIEW_TRAIN:
		if (a->view != &av_view_train && a->train != NULL)
			a->view = &av_view_train;
		av_train_view_set_look(a, &(struct av_train_look){
			snap->train_vocab, snap->train_scores, snap->train_mats, snap->train_sentence });
		break;
	case AV_SNAP_VIEW_STAGE:
		break;
	}
}

/* Whether snap names a lesson other than the one this screen runs. */
static bool lesson_changes(const struct av_app *a, const struct av_state *snap)
{
	int step;
	const char *have = av_lesson_ui_name(a, &step);
	return snap->lesson[0] != '\0' &&
	       (have == NULL || strcmp(have, snap->lesson) != 0 ||
		av_lesson_ui_text_hash(a) != snap->lesson_hash);
}

/* The installed lesson of the teacher's lesson's name into *l, when it is
 * the teacher's (same file, same sample); else false, said on the status
 * line. Checked before the teacher's sample replaces this one: a student
 * who cannot have the lesson kept its own numbers under the teacher's
 * sample's title (another sample's words under "Q, K, V line by line"). */
static bool find_teachers_lesson(struct av_app *a, const struct av_state *snap,
				 struct av_lesson *l)
{
	char *cause = NULL;
	if (strchr(snap->lesson, '/') != NULL || !av_lesson_load(snap->lesson, l, &cause)) {
		av_app_message(a, true, _("the teacher's lesson %s is not installed here%s%s"),
			       snap->lesson, cause ? ": " : "", cause ? cause : "");
		free(cause);
		return false;
	}
	/* a file of the teacher's own with an installed lesson's name:
	 * its captions and steps would be another lesson's here */
	if (l->text_hash != snap->lesson_hash) {
		av_app_message(a, true, _("the teacher's lesson %s is not the one installed "
					  "here (the teacher's file differs)"), snap->lesson);
		av_lesson_free(l);
		return false;
	}
	if (l->sample.name == NULL || strcmp(l->sample.name, snap->sample) != 0) {
		av_app_message(a, true, _("the teacher's lesson %s here is not the teacher's"
					  " (another sample)"), snap->lesson);
		av_lesson_free(l);
		return false;
	}
	return true;
}

/* The teacher's lesson at the teacher's step, its caption in this
 * student's language: the lesson this attnview runs (--lesson), or found,
 * the installed one of that name (find_teachers_lesson), which it takes. */
static bool follow_lesson(struct av_app *a, const struct av_state *snap,
			  struct av_lesson *found)
{
	struct av_classroom *c = a->classroom;
	int step = -1;
	const char *have = av_lesson_ui_name(a, &step);

	if (snap->lesson[0] == '\0') {
		if (have != NULL && c->have_lesson) {   /* only a lesson the teacher started */
			av_lesson_ui_free(a);
			av_lesson_free(&c->lesson);
			c->have_lesson = false;
		}
		return true;
	}
	if (found != NULL) {
		if (c->have_lesson) {
			av_lesson_ui_free(a);
			av_lesson_free(&c->lesson);
		}
		c->lesson = *found;
		c->have_lesson = true;
		av_lesson_ui_start(a, &c->lesson, 0);
		step = 0;
		c->have_last = false;   /* the step changed the session */
	}
	if (step != snap->lesson_step) {
		if (!av_lesson_ui_go(a, snap->lesson_step)) {
			av_app_message(a, true, _("the teacher's lesson %s has no step %d here"),
				       snap->lesson, snap->lesson_step + 1);
			return false;
		}
		c->have_last = false;
		c->have_view_run = false;
		/* a new step: the status line is the step's (at 40x12 its
		 * "no caption below 15 lines"), not the joining notice left there */
		if (!a->message_error)
			av_app_clear_message(a);
	}
	return true;
}

/* Whether the session already holds snap's numbers: the snapshot applied
 * last, with the session's own text, config and mask (a student's keys may
 * have changed those), gives the same numbers as snap, in the same view
 * (a view with state of its own, the training view's trainer, is set up by
 * apply_state). */
static bool shows_numbers_of(struct av_app *a, const struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	struct av_state now;

	if (!c->have_last || snap->view != c->last.view)
		return false;
	now = c->last;
	return av_state_capture(&now, a->s, NULL) && av_state_same_numbers(&now, snap);
}

/* A student who was not there when the teacher pinned (joined later, or
 * explored and came back): the session is put in the pinned state, its
 * matrix pinned as the teacher's was, and the live state applied after
 * (from scratch). When the pinned state does not apply here, nothing is
 * pinned and the comparison shows the live side, saying why. */
static void pin_as_teacher(struct av_app *a, const struct av_state *pin)
{
	struct av_classroom *c = a->classroom;
	char *cause = NULL;

	c->have_last = false;
	if (!av_state_apply(a->s, NULL, pin, NULL, &cause)) {
		free(cause);
		return;
	}
	a->view = &av_view_stage;
	a->hm.stage = -1;
	a->hm.own_first = 0;
	pin_the_teachers(a, pin);
}

/* --restricted: the teacher's state within what this student could set
 * here (restricted_limits.h): D, H and each training run's epochs, which a
 * follower replays on this server. */
static bool within_restricted(const struct av_app *a, const struct av_state *snap,
			      char **cause)
{
	if (!a->restricted)
		return true;
	if (snap->d_model > AV_RESTRICTED_MAX_D_MODEL || snap->heads > AV_RESTRICTED_MAX_HEADS)
		return av_fail(cause, _("the teacher's D=%d H=%d is over this server's limits "
			       "(D %d, H %d)"), snap->d_model, snap->heads,
			       AV_RESTRICTED_MAX_D_MODEL, AV_RESTRICTED_MAX_HEADS);
	for (int i = 0; i <= snap->n_before; i++) {
		const struct av_snap_training *t = i < snap->n_before ? &snap->before[i]
						   : &snap->training;
		if ((i < snap->n_before || t->active) && t->epochs > AV_RESTRICTED_MAX_EPOCHS)
			return av_fail(cause, _("the teacher's run of %d epochs is over this "
				       "server's limit of %d"), t->epochs, AV_RESTRICTED_MAX_EPOCHS);
	}
	return true;
}

static void cannot_follow(struct av_app *a, char *cause)
{
	av_app_message(a, true, _("cannot follow: %s"), cause);
	free(cause);
	a->classroom->have_last = false;
}

/* The snapshot applied to this screen; false (said on the status line)
 * when it cannot be. */
static bool follow_snapshot(struct av_app *a, const struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	char *cause = NULL;

	struct av_lesson found;
	bool finds = lesson_changes(a, snap);
	if (finds && !find_teachers_lesson(a, snap, &found))
		return false;
	if (!same_data(a, snap)) {
		if (finds)
			av_lesson_free(&found);
		return false;
	}
	if (!follow_lesson(a, snap, finds ? &found : NULL))
		return false;
	if (!within_restricted(a, snap, &cause)) {
		cannot_follow(a, cause);
		return false;
	}
	leave_views(a, snap->view);
	/* a comparison with no pin here: the teacher's, from the state it was
	 * pinned in when those numbers are not the live ones, else from the
	 * session once the live state is applied (pin_live: no second run);
	 * without that state, only when this is the snapshot right after the
	 * pin (seq one more than a state outside the comparison), since the
	 * teacher may have changed things since and a pin of the matrix shown
	 * now would show a false "no difference" */
	const struct av_state *pin = c->have_teacher_pin ? &c->teacher_pin : NULL;
	bool pin_live = false;
	if (snap->view == AV_SNAP_VIEW_COMPARE && a->pin == NULL) {
		if (pin != NULL && !pin_numbers_are(pin, snap))
			pin_as_teacher(a, pin);
		else
			pin_live = pin != NULL || (c->have_last && c->last.view != AV_SNAP_VIEW_COMPARE &&
						   snap->seq == c->last.seq + 1);
	}
	/* only where the teacher looks changed (a step, a head, the cursor):
	 * the numbers are those already on the screen, so 300 students do not
	 * all run the forward pass again at once; and when they changed,
	 * apply_state ran it (av_state_apply, av_trainer_apply): a second run
	 * here cost every student as much again */
	if (!shows_numbers_of(a, snap) && !apply_state(a, snap, &cause)) {
		cannot_follow(a, cause);
		return false;
	}
	bool said_before = c->have_last && c->last.view == AV_SNAP_VIEW_COMPARE;
	c->last = *snap;
	c->have_last = true;
	c->trained_print = av_params_print(&a->s->params);
	apply_screen(a, snap, pin_live ? (pin ? pin : snap) : NULL, said_before);
	av_app_resize(a);
	place_teachers_view(a, snap);
	a->dirty = AV_DIRTY_ALL;
	return true;
}

/* The header says so while the teacher's state cannot be followed (it
 * said "following" beside "cannot follow: …"). */
static void follow(struct av_app *a, const struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	bool refused = !follow_snapshot(a, snap);
	if (refused != c->refused) {
		c->refused = refused;
		/* the view too: the training view's state says whether the
		 * teacher's run is followed */
		a->dirty |= AV_DIRTY_HEADER | AV_DIRTY_MAIN;
	}
}

/* --- keys */

static void local_state(struct av_app *a, struct local *l)
{
	char *cause = NULL;

	memset(l, 0, sizeof *l);
	if (!capture(a, &l->st, &cause))
		free(cause);
	l->st.query = l->st.key = -1;   /* the cursor's row and column say it */
	l->row = a->row;
	l->col = a->col;
	/* and the stepper's scroll its origin (view_paged) */
	l->st.first_row = l->st.first_col = 0;
	l->scroll_row = a->hm.scroll_row;
	l->scroll_col = a->hm.scroll_col;
	l->windows_made = a->windows_made;
	l->editing = a->overlay == &av_view_edit || a->overlay == &av_view_prompt;
	/* a student's own training (Space, s, r, [ ], o, ...) is exploring too */
	if (a->train != NULL && a->train->tr != NULL) {
		l->run = a->classroom->last.training;
		av_state_track_training(&l->run, a->train->tr);
		l->running = a->train->running;
	}
}

/* Whether the frame's keys paged the stepper's view with the cursor kept
 * where it was (Ctrl-D when the cursor's matrix is shorter than the
 * figure's tallest, K and V of a long source beside Q): paging on one's
 * own is exploring, as moving the cursor is (> < Ctrl-D Ctrl-U move both,
 * and the cursor says it). Compared as the next draw places the view on
 * this screen from the scroll before and after the keys: a > at the last
 * page asks for a scroll the draw does not keep, and z lays the same
 * scroll out anew, neither of which moves the view. A resize is not the
 * student's move: a smaller screen moves the view as far as the cursor
 * needs, and the teacher's origin is placed again (av_classroom_after_key). */
static bool view_paged(const struct av_app *a, const struct local *before,
		       const struct local *after)
{
	int row0, col0, row1, col1;

	if (a->view != &av_view_stage || a->pin != NULL ||
	    before->windows_made != after->windows_made ||
	    (before->scroll_row == after->scroll_row && before->scroll_col == after->scroll_col))
		return false;
	av_stage_view_origin_from(a, before->scroll_row, before->scroll_col, &row0, &col0);
	av_stage_view_origin_from(a, after->scroll_row, after->scroll_col, &row1, &col1);
	return row0 != row1 || col0 != col1;
}

void av_classroom_before_key(struct av_app *a)
{
	struct av_classroom *c = a->classroom;

	if (c == NULL || c->follower == NULL || c->ex.exploring)
		return;
	local_state(a, &c->before);
	c->have_before = true;
}

void av_classroom_after_key(struct av_app *a)
{
	struct av_classroom *c = a->classroom;
	struct local after;

	if (c == NULL)
		return;
	if (c->leader != NULL) {
		publish(a);
		return;
	}
	if (c->ex.exploring || !c->have_before)
		return;
	c->have_before = false;
	local_state(a, &after);
	if (av_state_same(&after.st, &c->before.st) && after.row == c->before.row &&
	    after.col == c->before.col && !after.editing && after.running == c->before.running &&
	    av_state_same_training(&after.run, &c->before.run) &&
	    !view_paged(a, &c->before, &after)) {
		/* still following: the teacher's first row and column
		 * again, where a resize (windows made anew) moved the
		 * stepper's for its cursor */
		if (c->have_last)
			place_teachers_view(a, &c->last);
		return;
	}
	if (av_explore_start(&c->ex))
		a->dirty |= AV_DIRTY_HEADER | AV_DIRTY_STATUS;
}

/* The ms until the leader may publish a held tick (0: now), or -1 when
 * none is held. */
static int held_wait_ms(const struct av_classroom *c)
{
	long long left = c->last_publish_ms + TICK_PUBLISH_MS - now_ms();

	if (c->leader == NULL || !c->held)
		return -1;
	return left > 0 ? (int)left : 0;
}

void av_classroom_after_tick(struct av_app *a)
{
	struct av_classroom *c = a->classroom;

	if (c == NULL || c->leader == NULL)
		return;
	/* the tick that paused the run (its goal, a nan) is the last one: no
	 * later tick would send it */
	c->held = true;
	if (av_app_timeout(a) < 0 || held_wait_ms(c) == 0)
		publish(a);
}

void av_classroom_snap_back(struct av_app *a)
{
	struct av_classroom *c = a->classroom;
	const struct av_state *snap;
	struct av_state copy;

	if (c == NULL || c->follower == NULL) {
		av_app_message(a, false, _("not following: f snaps back to the teacher when"
					   " attnview runs with --follow ROOM"));
		return;
	}
	/* refused: f tries the teacher's state again and says why it cannot
	 * (it said "already following" under a header of "cannot follow") */
	if (!c->ex.exploring && !c->refused) {
		av_app_message(a, false, _("already following the teacher"));
		return;
	}
	a->overlay = NULL;
	if (!av_explore_snap_back(&c->ex, &snap)) {
		av_app_message(a, false, _("following: the teacher's screen comes when the"
					   " teacher is there"));
		a->dirty = AV_DIRTY_ALL;
		return;
	}
	copy = *snap;
	c->have_last = false;   /* this follower's own changes: everything anew */
	av_train_view_free(a);
	av_pin_free(a);         /* its own pin too: the teacher's, if any, comes back */
	c->have_view_run = false;
	follow(a, &copy);
	if (c->refused) {
		/* follow said why, on the status line; the header said
		 * "exploring" still when it was refused before too (follow
		 * redraws it only when that changes) */
		a->dirty |= AV_DIRTY_HEADER | AV_DIRTY_MAIN;
		return;
	}
	if (av_follower_connected(c->follower))
		av_app_message(a, false, _("following the teacher again"));
	else    /* the header says "no teacher": the state is the last one */
		av_app_message(a, false, _("back to the teacher's last screen; waiting for"
					   " the teacher to come back"));
}

/* --- the header and the status line */

bool av_classroom_header(const struct av_app *a, char *buf, size_t size)
{
	const struct av_classroom *c = a->classroom;

	if (c == NULL)
		return false;
	if (c->leader != NULL) {
		snprintf(buf, size, _("%d following"), av_leader_followers(c->leader));
	} else if (c->ex.exploring) {
		snprintf(buf, size, "%s", _("exploring"));
	} else if (!av_follower_connected(c->follower)) {
		snprintf(buf, size, "%s", _("no teacher"));
	} else if (c->refused) {
		snprintf(buf, size, "%s", _("cannot follow"));
	} else {
		snprintf(buf, size, "%s", _("following"));
	}
	return true;
}

bool av_classroom_weights_trained(const struct av_app *a, int *before, int *epochs, int *steps)
{
	const struct av_classroom *c = a->classroom;
	const struct av_snap_training *run;

	if (c == NULL || c->follower == NULL || !c->have_last || a->view == &av_view_train)
		return false;
	run = &c->last.training;
	if (!run->active || (run->epochs == 0 && run->steps == 0) ||
	    av_params_print(&a->s->params) != c->trained_print)
		return false;
	*before = c->epochs_before;
	*epochs = run->epochs;
	*steps = run->steps;
	return true;
}

bool av_classroom_weights_training(const struct av_app *a, struct av_training_record *r)
{
	const struct av_snap_training *run;
	const struct av_snap_recipe *last;
	int before, epochs, steps;

	if (!av_classroom_weights_trained(a, &before, &epochs, &steps))
		return false;
	run = &a->classroom->last.training;
	last = &run->recipe[run->n_recipe > 0 ? run->n_recipe - 1 : 0];
	*r = av_training_record_of(epochs, steps, last->lr, (int)last->optimizer,
				   (int)last->target);
	r->epochs_before = before;
	return true;
}

bool av_classroom_follows_run(const struct av_app *a, bool *live)
{
	const struct av_classroom *c = a->classroom;

	if (c == NULL || c->follower == NULL || c->ex.exploring)
		return false;
	if (live != NULL)
		*live = av_follower_connected(c->follower) && !c->refused;
	return true;
}

bool av_classroom_status(const struct av_app *a, char *buf, size_t size, int cols)
{
	const struct av_classroom *c = a->classroom;

	if (c == NULL || c->follower == NULL || !c->ex.exploring)
		return false;
	av_explore_line_fit(&c->ex, buf, size, cols, av_text_width);
	return buf[0] != '\0';
}

/* --- waiting for keys and the room */

int av_classroom_wait(struct av_app *a, int wait_ms)
{
	struct av_classroom *c = a->classroom;
	struct pollfd fds[2 + AV_ROOM_MAX_FOLLOWERS];
	int n = 1, room_wait = -1, ready, before;

	fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	if (c->leader != NULL) {
		n += av_leader_pollfds(c->leader, fds + 1, AV_ROOM_MAX_FOLLOWERS + 1);
		room_wait = held_wait_ms(c);   /* it wakes to send a held tick */
	} else if (av_follower_fd(c->follower) >= 0) {
		fds[n++] = (struct pollfd){ .fd = av_follower_fd(c->follower), .events = POLLIN };
	} else {
		room_wait = av_follower_timeout(c->follower, now_ms());
	}
	if (room_wait >= 0 && (wait_ms < 0 || room_wait < wait_ms))
		wait_ms = room_wait;
	ready = poll(fds, (nfds_t)n, wait_ms);
	if (ready < 0)    /* a signal: SIGWINCH's KEY_RESIZE waits in ncurses */
		return errno == EINTR ? 2 : -1;
	if (c->leader != NULL) {
		before = av_leader_followers(c->leader);
		av_leader_service(c->leader, fds + 1, n - 1);
		if (av_leader_followers(c->leader) != before)
			a->dirty |= AV_DIRTY_HEADER;
		if (held_wait_ms(c) == 0)
			publish(a);
	} else if (n > 1 ? fds[1].revents != 0 : room_wait >= 0) {
		struct av_state snap;
		unsigned ev = av_follower_step(c->follower, now_ms(), &snap);

		if (ev & AV_FOLLOW_SNAPSHOT) {
			c->have_teacher_pin = av_follower_pin(c->follower, &c->teacher_pin);
			av_explore_teacher_pin(&c->ex, c->have_teacher_pin ? &c->teacher_pin : NULL);
		}
		/* the header said "following" while every message of a teacher
		 * on another release was dropped; the next one followed says
		 * "following" again (follow()) */
		if ((ev & AV_FOLLOW_DROPPED) && !(ev & AV_FOLLOW_SNAPSHOT) && !c->refused) {
			c->refused = true;
			a->dirty |= AV_DIRTY_HEADER | AV_DIRTY_MAIN;
		}
		/* the view too: the training view waits for a teacher */
		if (ev & (AV_FOLLOW_CONNECTED | AV_FOLLOW_GONE)) {
			av_explore_connected(&c->ex, av_follower_connected(c->follower));
			a->dirty |= AV_DIRTY_HEADER | AV_DIRTY_STATUS | AV_DIRTY_MAIN;
		}
		if (ev & AV_FOLLOW_SNAPSHOT) {
			if (av_explore_teacher(&c->ex, &snap)) {
				follow(a, &snap);
			} else {
				/* the teacher moved: that is the news, so the line
				 * saying where takes the place of a note (not of an
				 * error) left by this student's last key */
				if (a->message && !a->message_error) {
					free(a->message);
					a->message = NULL;
				}
				a->dirty |= AV_DIRTY_STATUS;
			}
		}
	}
	if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		return -1;
	return (fds[0].revents & POLLIN) ? 1 : 0;
}
