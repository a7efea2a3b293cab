/* sync.h: between a session and a snapshot (issue 10), curses-free. The
 * leader captures its session's text, config and mask into a snapshot; a
 * follower applies one to its own session — same sample, so the same
 * vocabulary and drawn parameters — and, the engine being deterministic,
 * gets the leader's numbers bit for bit, training included (the recipe
 * replayed for the same number of epochs).
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

/* The training run of a trainer, as a recipe and the epochs done. */
void av_state_capture_training(struct av_state *snap, const struct av_train_settings *set,
				  int epochs_done);

/* Makes s the snapshot's state and re-runs it. The parameters are rebuilt
 * (drawn again, or the loaded weights restored, then the training replayed)
 * only when something they depend on changed since prev, the snapshot
 * applied last (NULL: always): identity, config or training. Refuses a
 * snapshot of another sample ("the teacher's sample is X, this attnview has
 * Y"). On failure s keeps a consistent state (possibly the new text with
 * the old trace: av_session_run's rule) and *cause says why. */
bool av_state_apply(struct av_session *s, const struct av_state *prev,
		       const struct av_state *snap, char **cause);

/* True when a and b give the same numbers: they differ at most in where
 * the leader looks (seq, stage, view, head, cursor), so a follower that
 * applied a has nothing to recompute for b. */
bool av_state_same_numbers(const struct av_state *a, const struct av_state *b);

/* True when applying snap after prev needs new parameters. */
bool av_state_needs_params(const struct av_state *prev, const struct av_state *snap);

#endif
