/* classroom.c: the screen's side of --lead and --follow (see classroom.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "follow/room.h"
#include "follow/snapshot.h"
#include "follow/sync.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/ui.h"
#include "util.h"

/* The snapshot names stages by src/follow's table, the screen by its own:
 * they must be the same list (snapshot.c's av_snap_stage_names is in the
 * order of AV_UI_STAGES; classroom.test steps through them). */
_Static_assert(AV_SNAP_STAGE_COUNT == AV_STAGE_COUNT,
	       "src/follow/snapshot.h and src/ui/stages.h disagree on the stages");

struct av_classroom {
	struct av_leader *leader;
	struct av_follower *follower;
	struct av_state identity;   /* sample, origin, weights, hash */
	struct av_state last;       /* published or applied last */
	bool have_last;
	uint64_t seq;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_note(void *ctx, const char *line)
{
	av_app_message(ctx, false, "%s", line);
}

bool av_classroom_open(struct av_app *a, const struct av_ui_config *cfg, char **cause)
{
	struct av_classroom *c;

	if (cfg->lead_dir == NULL && cfg->follow_dir == NULL)
		return true;
	c = av_calloc(1, sizeof *c);
	av_state_init(&c->identity);
	snprintf(c->identity.sample, sizeof c->identity.sample, "%s",
		 a->s->sample.name ? a->s->sample.name : "");
	c->identity.content_hash = cfg->content_hash;
	if (cfg->weights_name != NULL) {
		c->identity.origin = AV_SNAP_FROM_WEIGHTS;
		snprintf(c->identity.weights, sizeof c->identity.weights, "%s", cfg->weights_name);
	}
	if (cfg->lead_dir != NULL) {
		c->leader = av_leader_open(cfg->lead_dir, on_note, a, cause);
		if (c->leader == NULL) {
			free(c);
			return false;
		}
	} else {
		c->follower = av_follower_new(cfg->follow_dir, cfg->teacher_uid, on_note, a);
	}
	a->classroom = c;
	av_classroom_after_key(a);
	return true;
}

void av_classroom_free(struct av_app *a)
{
	struct av_classroom *c = a->classroom;

	if (c == NULL)
		return;
	av_leader_close(c->leader);
	av_follower_free(c->follower);
	free(c);
	a->classroom = NULL;
}

/* The leader's state as a snapshot. */
static bool capture(struct av_app *a, struct av_state *snap, char **cause)
{
	const struct av_trace *t = &a->s->trace;

	*snap = a->classroom->identity;
	if (!av_state_capture(snap, a->s, cause))
		return false;
	snap->stage = (int)a->stage;
	snap->view = a->view == &av_view_heads ? AV_SNAP_VIEW_HEADS
		     : a->view == &av_view_train ? AV_SNAP_VIEW_TRAIN
		     : a->view == &av_view_figures ? AV_SNAP_VIEW_FIGURES : AV_SNAP_VIEW_STAGE;
	snap->head = a->head < snap->heads ? a->head : 0;
	snap->query = a->sel_query >= 0 && a->sel_query < t->n ? a->sel_query : -1;
	snap->key = a->sel_key >= 0 && a->sel_key < t->m ? a->sel_key : -1;
	return true;
}

void av_classroom_after_key(struct av_app *a)
{
	struct av_classroom *c = a->classroom;
	struct av_state snap;
	char *cause = NULL;

	if (c == NULL || c->leader == NULL)
		return;
	if (!capture(a, &snap, &cause) ||
	    (c->have_last && av_state_same(&snap, &c->last))) {
		free(cause);
		return;
	}
	snap.seq = ++c->seq;
	if (!av_leader_publish(c->leader, &snap, &cause)) {
		av_app_message(a, true, _("not sent to the class: %s"), cause);
		free(cause);
		return;
	}
	c->last = snap;
	c->have_last = true;
}

/* A snapshot from the teacher: the state, then the screen's part. */
static void follow(struct av_app *a, const struct av_state *snap)
{
	struct av_classroom *c = a->classroom;
	char *cause = NULL;

	if (snap->content_hash != c->identity.content_hash ||
	    strcmp(snap->sample, c->identity.sample) != 0) {
		av_app_message(a, true, _("the teacher uses %s%s; start attnview with the same"
			       " --sample"), snap->sample,
			       strcmp(snap->sample, c->identity.sample) == 0
			       ? _(" (another copy of it)") : "");
		return;
	}
	if (!av_state_apply(a->s, c->have_last ? &c->last : NULL, snap, &cause)) {
		av_app_message(a, true, _("cannot follow: %s"), cause);
		free(cause);
		c->have_last = false;
		return;
	}
	c->last = *snap;
	c->have_last = true;
	av_app_rerun_all(a);
	a->stage = (enum av_ui_stage)snap->stage;
	a->head = snap->head < a->s->trace.heads ? snap->head : 0;
	if (snap->view == AV_SNAP_VIEW_HEADS && a->view == &av_view_stage)
		a->view = &av_view_heads;
	else if (snap->view == AV_SNAP_VIEW_STAGE && a->view == &av_view_heads)
		a->view = &av_view_stage;
	a->dirty = AV_DIRTY_ALL;
}

int av_classroom_wait(struct av_app *a, int wait_ms)
{
	struct av_classroom *c = a->classroom;
	struct pollfd fds[2 + AV_ROOM_MAX_FOLLOWERS];
	int n = 1, room_wait = -1, ready;

	fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
	if (c->leader != NULL) {
		n += av_leader_pollfds(c->leader, fds + 1, AV_ROOM_MAX_FOLLOWERS + 1);
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
		av_leader_service(c->leader, fds + 1, n - 1);
	} else if (n > 1 ? fds[1].revents != 0 : room_wait >= 0) {
		struct av_state snap;
		if (av_follower_step(c->follower, now_ms(), &snap) & AV_FOLLOW_SNAPSHOT)
			follow(a, &snap);
	}
	if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL))
		return -1;
	return (fds[0].revents & POLLIN) ? 1 : 0;
}
