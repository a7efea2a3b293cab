/* explore.h: a follower's two states (issue 10), curses-free. A follower
 * follows: every snapshot from the leader is applied. The first key that
 * changes its own state (a stage, the cursor, a head, the mask, the
 * sentence, ...) makes it explore: from then on the leader's snapshots are
 * kept, not applied, and a line says where the teacher is now; f snaps
 * back to the newest one. The screen decides what counts as a change
 * (src/ui/classroom.c compares its state before and after each key); this
 * file keeps the states and the teacher's newest snapshot, so the headless
 * tests drive it as the screen does. */
#ifndef AV_FOLLOW_EXPLORE_H
#define AV_FOLLOW_EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include "snapshot.h"

struct av_explore {
	bool exploring;
	bool have_teacher;          /* a snapshot came since the start */
	bool teacher_here;          /* the leader is connected */
	struct av_state teacher;    /* the newest snapshot */
	struct av_state teacher_pin;   /* the state its comparison pinned */
	bool have_teacher_pin;
};

void av_explore_init(struct av_explore *e);

/* A snapshot from the leader: kept as the teacher's. true when the
 * follower applies it now (it follows), false while it explores. */
bool av_explore_teacher(struct av_explore *e, const struct av_state *snap);

/* What the teacher's comparison pinned (the state it was pinned in), or
 * NULL: none known; the line names it. */
void av_explore_teacher_pin(struct av_explore *e, const struct av_state *pin);

/* The leader came or went (the follower keeps its state either way). */
void av_explore_connected(struct av_explore *e, bool connected);

/* A key changed the follower's own state: it explores from now on. true
 * when it has just started to (the screen says so once). */
bool av_explore_start(struct av_explore *e);

/* f: back to following. true + *snap (the teacher's newest, to apply) when
 * there is one; false when none came yet (it follows all the same, and
 * the next snapshot is applied). */
bool av_explore_snap_back(struct av_explore *e, const struct av_state **snap);

/* The line an exploring follower shows, "teacher: softmax, head 3 — f to
 * follow" (or "teacher: not connected — f to follow"), in out (size bytes,
 * cut at a character boundary); "" while it follows. */
void av_explore_line(const struct av_explore *e, char *out, size_t size);

/* The same line fitted to cols columns (as measure counts them; on screen
 * av_text_width): when it is wider, the teacher's place is cut after its
 * last whole word that leaves room, and ends in "…", so "— f to follow",
 * the one way back, stays whole on a phone's 40 columns. */
void av_explore_line_fit(const struct av_explore *e, char *out, size_t size, int cols,
			 int (*measure)(const char *));

#endif
