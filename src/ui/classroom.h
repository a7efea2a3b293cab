/* classroom.h: --lead and --follow on the screen (issue 10), a thin layer
 * over src/follow: the leader publishes its state after every key (and
 * while training runs), a follower applies each snapshot it receives until
 * a key of its own changes its state; then it explores, with a line saying
 * where the teacher is, until f snaps it back. */
#ifndef AV_UI_CLASSROOM_H
#define AV_UI_CLASSROOM_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

struct av_app;
struct av_ui_config;

/* Opens the room of cfg->lead_dir or cfg->follow_dir (neither: nothing to
 * do, true). false + *cause when the leader cannot open the room. */
bool av_classroom_open(struct av_app *a, const struct av_ui_config *cfg, char **cause);
void av_classroom_free(struct av_app *a);

/* Waits up to wait_ms (-1: no limit) for a key on the terminal or for the
 * room, serving the room. 1: the terminal has input; 0: it has not (the
 * room was served or the time ran out); 2: a signal came (a resize: ncurses
 * has a KEY_RESIZE to read); -1: the terminal hung up. */
int av_classroom_wait(struct av_app *a, int wait_ms);

/* Around each key: the leader publishes its state if it changed; a
 * follower that follows starts exploring when the key changed its state. */
void av_classroom_before_key(struct av_app *a);
void av_classroom_after_key(struct av_app *a);

/* After a tick of the training view: the leader publishes the run (at
 * most every half second; a tick held back is sent when the half second
 * is over, from av_classroom_wait, and the tick that ended the run at
 * once). */
void av_classroom_after_tick(struct av_app *a);

/* The leader pins a stepper matrix for a comparison (y): its state now is
 * what the class is sent as the pinned one, so that a student who joins
 * or comes back (f) later can compute the same matrix. */
void av_classroom_pinned(struct av_app *a);

/* f: a follower that explores follows the teacher again (the teacher's
 * newest state applied); elsewhere a message says why not. */
void av_classroom_snap_back(struct av_app *a);

/* The header's piece: "3 following" (the leader), "following",
 * "exploring" or "no teacher" (a follower); false without a room. */
bool av_classroom_header(const struct av_app *a, char *buf, size_t size);

/* The epochs and sentences of the teacher's run whose weights a follower
 * outside the training view shows (its own trainer, freed when the
 * follower left the view, said it before), and *before the epochs of a
 * trained file the run started from (the teacher's --weights, as loaded;
 * else 0); false otherwise. */
bool av_classroom_weights_trained(const struct av_app *a, int *before, int *epochs,
				  int *steps);
/* ... and how that run trained, for the trace a follower writes (W):
 * epochs, steps and the settings of the recipe's last change; no loss (a
 * follower does not keep the teacher's). false as above. */
struct av_training_record;
bool av_classroom_weights_training(const struct av_app *a, struct av_training_record *r);
/* Whether the training view shows the teacher's run: a follower that
 * follows (does not explore); *live (when not NULL) says whether a teacher
 * is there to follow (connected, and its messages followed). false without
 * a room, for the teacher, and for a follower that explores (its own run,
 * which it runs or pauses). */
bool av_classroom_follows_run(const struct av_app *a, bool *live);
/* The status line of a follower that explores: "teacher: softmax, head 3
 * — f to follow", fitted to cols columns (the teacher's place cut, never
 * "f to follow"); false otherwise. */
bool av_classroom_status(const struct av_app *a, char *buf, size_t size, int cols);

#endif
