/* model_worker.c: the forward pass off the UI thread (model_worker.h).
 *
 * One mutex guards everything below "shared"; the worker holds it only to
 * take a job and to hand in a result, never while it computes, so the UI
 * thread's calls return at once. The ids are copied in and the run is
 * moved out: the two threads never share a run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "i18n.h"
#include "ui/views/model_worker.h"
#include "util.h"

struct av_model_worker {
	const struct av_gpt2 *m;
	pthread_t thread;
	int pipe_fd[2];                 /* [0] the main loop polls, [1] the worker writes */
	pthread_mutex_t lock;
	pthread_cond_t work;            /* a post, a release of hold, or stop */
	pthread_cond_t idle;            /* a job ended (wait_idle) */
	/* shared */
	unsigned long gen;              /* bumped by every post and cancel */
	bool want;                      /* a post waits */
	int want_ids[AV_GPT2_MAX_TOKENS];
	int want_n;
	char *want_text;
	bool computing, hold, stop;
	unsigned long computing_gen;    /* the gen of the job computing */
	bool done, done_ok;             /* a finished run waits to be taken */
	struct av_gpt2_run done_run;
	char *done_text, *done_cause;
	int forwards;
};

static void drop_done(struct av_model_worker *w)
{
	if (w->done) {
		av_gpt2_run_free(&w->done_run);
		free(w->done_text);
		free(w->done_cause);
		w->done_text = w->done_cause = NULL;
	}
	w->done = false;
}

/* Called with the lock held; the run and text are the worker's. */
static void hand_in(struct av_model_worker *w, unsigned long job_gen, bool ok,
		    struct av_gpt2_run *run, char *text, char *cause)
{
	w->computing = false;
	w->forwards++;
	if (job_gen != w->gen || w->stop) {   /* superseded or cancelled */
		av_gpt2_run_free(run);
		free(text);
		free(cause);
	} else {
		drop_done(w);
		w->done = true;
		w->done_ok = ok;
		w->done_run = *run;
		w->done_text = text;
		w->done_cause = cause;
		char byte = 1;
		/* a full pipe already says "look": EAGAIN is fine */
		if (write(w->pipe_fd[1], &byte, 1) < 0 && errno != EAGAIN)
			(void)0;
	}
	pthread_cond_broadcast(&w->idle);
}

static void *worker_main(void *arg)
{
	struct av_model_worker *w = arg;
	int ids[AV_GPT2_MAX_TOKENS];
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		if (!w->want) {
			pthread_cond_wait(&w->work, &w->lock);
			continue;
		}
		int n = w->want_n;
		memcpy(ids, w->want_ids, sizeof(int) * (size_t)n);
		char *text = w->want_text;
		w->want_text = NULL;
		w->want = false;
		unsigned long job_gen = w->gen;
		w->computing = true;
		w->computing_gen = job_gen;
		pthread_cond_broadcast(&w->idle);   /* taken: wait_idle under hold */
		while (w->hold && !w->stop)   /* the tests' gate */
			pthread_cond_wait(&w->work, &w->lock);
		pthread_mutex_unlock(&w->lock);

		struct av_gpt2_run run;
		char *cause = NULL;
		memset(&run, 0, sizeof(run));
		bool ok = av_gpt2_forward(w->m, ids, n, &run, &cause);

		pthread_mutex_lock(&w->lock);
		hand_in(w, job_gen, ok, &run, text, cause);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct av_model_worker *av_model_worker_new(const struct av_gpt2 *m, char **cause)
{
	struct av_model_worker *w = av_calloc(1, sizeof(*w));
	w->m = m;
	if (pipe(w->pipe_fd) != 0) {
		free(w);
		av_fail(cause, _("cannot make a pipe: %s"), strerror(errno));
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(w->pipe_fd[i], F_SETFL, fcntl(w->pipe_fd[i], F_GETFL) | O_NONBLOCK);
		fcntl(w->pipe_fd[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->idle, NULL);
	int err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err != 0) {
		close(w->pipe_fd[0]);
		close(w->pipe_fd[1]);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->work);
		pthread_cond_destroy(&w->idle);
		free(w);
		av_fail(cause, _("cannot start a thread: %s"), strerror(err));
		return NULL;
	}
	return w;
}

void av_model_worker_free(struct av_model_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	w->want = false;
	w->hold = false;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	drop_done(w);
	free(w->want_text);
	close(w->pipe_fd[0]);
	close(w->pipe_fd[1]);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->idle);
	free(w);
}

void av_model_worker_post(struct av_model_worker *w, const int *ids, int n, const char *text)
{
	pthread_mutex_lock(&w->lock);
	w->gen++;
	drop_done(w);   /* newest wins: an older result not taken yet is stale */
	memcpy(w->want_ids, ids, sizeof(int) * (size_t)n);
	w->want_n = n;
	free(w->want_text);
	w->want_text = av_strdup(text);
	w->want = true;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
}

void av_model_worker_cancel(struct av_model_worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->gen++;
	w->want = false;
	free(w->want_text);
	w->want_text = NULL;
	drop_done(w);
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
}

bool av_model_worker_busy(struct av_model_worker *w)
{
	pthread_mutex_lock(&w->lock);
	/* a computing job that is stale no longer counts */
	bool busy = w->want || w->done || (w->computing && w->computing_gen == w->gen);
	pthread_mutex_unlock(&w->lock);
	return busy;
}

int av_model_worker_fd(const struct av_model_worker *w)
{
	return w->pipe_fd[0];
}

int av_model_worker_take(struct av_model_worker *w, struct av_gpt2_run *r, char **text,
			 char **cause)
{
	char bytes[16];
	while (read(w->pipe_fd[0], bytes, sizeof(bytes)) > 0)
		;
	pthread_mutex_lock(&w->lock);
	int got = -1;
	if (w->done) {
		got = w->done_ok ? 1 : 0;
		*r = w->done_run;
		*text = w->done_text;
		*cause = w->done_cause;
		w->done_text = w->done_cause = NULL;
		memset(&w->done_run, 0, sizeof(w->done_run));
		w->done = false;
	}
	pthread_mutex_unlock(&w->lock);
	return got;
}

void av_model_worker_hold(struct av_model_worker *w, bool hold)
{
	pthread_mutex_lock(&w->lock);
	w->hold = hold;
	pthread_cond_broadcast(&w->work);
	pthread_mutex_unlock(&w->lock);
}

void av_model_worker_wait_idle(struct av_model_worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->want || (w->computing && !w->hold))
		pthread_cond_wait(&w->idle, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

int av_model_worker_forwards(struct av_model_worker *w)
{
	pthread_mutex_lock(&w->lock);
	int n = w->forwards;
	pthread_mutex_unlock(&w->lock);
	return n;
}
