/* sync.h: between a session and a snapshot (issue 10), curses-free. The
 * leader captures its session's text, config and mask into a snapshot; a
 * follower applies one to its own session — same sample, so the same
 * vocabulary and drawn parameters — and, the engine being deterministic,
 * gets the leader's numbers bit for bit, training included (the recipe
 * and its changes replayed step for step).
 *
 * The snapshot's identity (sample name, origin, weights name, content hash)
 * and its screen fields (stage, view, head, cursor, lesson) are the
 * caller's: the command line knows the files, the screen its views. */
#ifndef AV_FOLLOW_SYNC_H
#define AV_FOLLOW_SYNC_H

#include <stdbool.h>
#include "session.h"
#include "snapshot.h"

/* Copies the session's sentence, source, config and hidden keys into snap;
 * the other fields are left as they are. false + *cause when the text does
 * not fit a snapshot (a sentence typed on the screen is bounded by the same
 * AV_MAX_SENTENCE_BYTES, so this is a programming error, reported anyway). */
bool av_state_capture(struct av_state *snap, const struct av_session *s, char **cause);

/* The leader, after each key (and now and then while training runs):
 * brings the run t up to date with the trainer tr. A trainer back at an
 * earlier step or with another init (r, i) starts a new run; a setting
 * changed since the last call (lr, target, optimiser, trained tensors) or
 * an optimiser restarted becomes a recipe entry at the trainer's step.
 * false when the recipe is full (AV_SNAP_MAX_RECIPE changes in one run):
 * t then holds the run without the newest change. */
bool av_state_track_training(struct av_snap_training *t, const struct av_trainer *tr);

/* Replays the run t on tr, a trainer of the same session: from where done
 * (the run tr replayed last, or NULL) left it when t goes on from there
 * (av_state_recipe_continues), else from its start (reset, or drawn again
 * with t's init). Step for step with the recipe's changes, so the weights
 * are the teacher's bit for bit. false + *cause when t does not fit this
 * sample's corpus. */
struct av_trainer;
bool av_state_replay(struct av_trainer *tr, const struct av_snap_training *done,
		     const struct av_snap_training *t, char **cause);

/* What a replay asks between epochs: whether to stop (the screen's signal
 * handler saw SIGHUP, SIGTERM or SIGINT: a student's terminal hung up in
 * the middle of a teacher's long run must not leave a process training on
 * the server). A stopped replay fails with "interrupted". NULL: never. */
void av_state_set_interrupt(bool (*interrupted)(void));

/* Makes s the snapshot's state and re-runs it. The parameters are rebuilt
 * (drawn again, or the loaded weights restored, then the training replayed)
 * only when something they depend on changed since prev, the snapshot
 * applied last (NULL: always): identity, config or training. When they are
 * and epochs_before is not NULL, *epochs_before becomes the epochs the
 * weights had before the last run replayed (a trained file's, loaded, when
 * that run started from it: "trained 200+3 ep"; else 0). Refuses a
 * snapshot of another sample ("the teacher's sample is X, this attnview has
 * Y"). On failure s keeps a consistent state (possibly the new text with
 * the old trace: av_session_run's rule) and *cause says why. */
bool av_state_apply(struct av_session *s, const struct av_state *prev,
		       const struct av_state *snap, int *epochs_before, char **cause);

/* True when a and b give the same numbers: they differ at most in where
 * the leader looks (seq, stage, view, head, cursor, view origin), so a
 * follower that applied a has nothing to recompute for b. */
bool av_state_same_numbers(const struct av_state *a, const struct av_state *b);

/* True when applying snap after prev needs new parameters. */
bool av_state_needs_params(const struct av_state *prev, const struct av_state *snap);

/* The epochs weights have had after run, which went on from epochs_before
 * ("trained 5+3 ep": 8); 0 when it stopped inside an epoch. */
int av_state_epochs_after(int epochs_before, const struct av_snap_training *run);

/* The content hash of a sample: its file's bytes, or the built-in one's. */
bool av_state_sample_hash(const struct av_sample *sample, uint64_t *hash, char **cause);

/* A follower started with another sample than the teacher's: loads the
 * installed sample name (no paths: a follower reads only installed data)
 * and makes it the session's, with its config and freshly drawn parameters
 * (the next av_state_apply sets the teacher's config). Refused with a
 * message saying so when it is not installed, is a file, or its content
 * hash is not hash (another version); s is then unchanged. */
bool av_state_load_sample(struct av_session *s, const char *name, uint64_t hash, char **cause);

/* The sample a follower would load for the teacher's name and hash (the
 * check of av_state_load_sample, without making it the session's), into
 * *out; the teacher asks it too, to learn whether students can follow. */
bool av_state_find_sample(const char *name, uint64_t hash, struct av_sample *out, char **cause);

/* Whether a sample goes by name here, installed or built in, whatever its
 * content: the one a follower finds for that name, which refuses the
 * teacher's when it is another version of it. */
bool av_state_sample_named(const char *name);

#endif
