/* model_worker.h: GPT-2's forward pass in one worker thread (issue 12,
 * "the screen responsive while it computes").
 *
 * The UI thread posts token ids; the worker runs av_gpt2_forward (which
 * only reads the model) into a run of its own and writes a byte to a pipe
 * the main loop polls, so idle costs nothing and no thread touches curses.
 * Only the newest post is kept: a post while another waits replaces it,
 * and a post (or a cancel) while one computes makes that one stale, its
 * result thrown away when it ends (a forward cannot be interrupted). The
 * UI thread takes a finished run with av_model_worker_take. */
#ifndef AV_UI_MODEL_WORKER_H
#define AV_UI_MODEL_WORKER_H

#include <stdbool.h>
#include "model/gpt2.h"

struct av_model_worker;

/* NULL (and *cause) when the thread or the pipe cannot be made. */
struct av_model_worker *av_model_worker_new(const struct av_gpt2 *m, char **cause);
/* Waits for the forward in progress, if any (never for a pending one). */
void av_model_worker_free(struct av_model_worker *w);

/* Runs ids[0..n) for text (copied; the run's sentence), superseding any
 * older post. */
void av_model_worker_post(struct av_model_worker *w, const int *ids, int n, const char *text);
/* Forgets the pending post and makes the one computing stale. */
void av_model_worker_cancel(struct av_model_worker *w);
/* A post that has not been taken yet (pending, computing or finished). */
bool av_model_worker_busy(struct av_model_worker *w);
/* The pipe's read end: readable when a run has finished. */
int av_model_worker_fd(const struct av_model_worker *w);

/* The newest finished run: true and *r (the caller frees it), *text (the
 * caller frees it), or false + *cause when its forward failed; -1 when
 * nothing is finished (the pipe is drained either way). */
int av_model_worker_take(struct av_model_worker *w, struct av_gpt2_run *r, char **text,
			 char **cause);

/* For the tests: hold = true makes the worker wait after it takes the
 * next post and before it computes it, until hold = false; wait_idle
 * blocks until no post is pending and none computes (or the one taken is
 * held); forwards counts the forward passes run. */
void av_model_worker_hold(struct av_model_worker *w, bool hold);
void av_model_worker_wait_idle(struct av_model_worker *w);
int av_model_worker_forwards(struct av_model_worker *w);

#endif
