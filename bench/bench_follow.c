/* bench_follow.c: the classroom's transport under load (issue 10): one
 * leader and N followers (default 300) in this process, sockets in a
 * temporary directory. Prints the time from a publish to the last follower
 * holding the decoded snapshot, the memory the followers' connections take,
 * and what applying a snapshot costs a follower's session (the forward pass
 * again, or a training replay). One process on one core: the real class
 * runs each follower in its own process, so this is the transport's share,
 * not the whole key-to-repaint time. `make bench-follow` runs it. */
#include "config.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "follow/room.h"
#include "follow/snapshot.h"
#include "follow/sync.h"
#include "util.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f != NULL) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Polls the leader and every follower until each holds seq. */
static int deliver(struct av_leader *l, struct av_follower **f, struct av_state *got, int n,
		   uint64_t seq, long long *clock)
{
	struct pollfd *fds = av_calloc((size_t)(1 + AV_ROOM_MAX_FOLLOWERS), sizeof *fds);
	int rounds = 0, behind = n;

	while (behind > 0 && rounds < 100000) {
		int k = av_leader_pollfds(l, fds, 1 + AV_ROOM_MAX_FOLLOWERS);

		if (poll(fds, (nfds_t)k, 0) > 0)
			av_leader_service(l, fds, k);
		behind = 0;
		for (int i = 0; i < n; i++) {
			if (got[i].seq != seq)
				av_follower_step(f[i], *clock, &got[i]);
			behind += got[i].seq != seq;
		}
		rounds++;
		(*clock)++;
	}
	free(fds);
	return behind;
}

static struct av_session *start_session(void)
{
	struct av_session *s = av_calloc(1, sizeof *s);
	char *cause = NULL;

	if (!av_sample_load_builtin(&s->sample, &cause))
		exit(1);
	s->cfg = s->sample.cfg;
	av_params_init(&s->params, &s->cfg, (const char *const *)s->sample.vocab, s->sample.n_vocab);
	av_session_start(s);
	s->sentence = av_strdup(s->sample.sentence);
	if (!av_session_run(s, &cause))
		exit(1);
	return s;
}

static void bench_apply(void)
{
	struct av_session *s = start_session();
	struct av_state a, b;
	char *cause = NULL;
	double t0;
	int reps = 1000;

	av_state_init(&a);
	strcpy(a.sample, s->sample.name);
	av_state_capture(&a, s, &cause);
	av_state_apply(s, NULL, &a, NULL, &cause);
	b = a;
	t0 = now_s();
	for (int r = 0; r < reps; r++) {
		b.stage = r % AV_SNAP_STAGE_COUNT;
		b.key_hidden[0] = r % 2;
		av_state_apply(s, &a, &b, NULL, &cause);
		a = b;
	}
	printf("apply, a stage or mask change (china-panda): %.1f us\n",
	       (now_s() - t0) / reps * 1e6);
	b.training.active = true;
	b.training.epochs = 200;
	t0 = now_s();
	if (!av_state_apply(s, &a, &b, NULL, &cause))
		printf("apply with training failed: %s\n", cause);
	printf("apply, 200 epochs of training replayed (china-panda): %.1f ms\n",
	       (now_s() - t0) * 1e3);
	av_session_free(s);
	free(s);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	char base[] = "/tmp/bench_follow.XXXXXX";
	char *dir = NULL, *cause = NULL;
	struct av_leader *l;
	struct av_follower **f;
	struct av_state *got, snap;
	long long clock = 0;
	long rss0;
	double worst = 0, total = 0;
	int rounds = 50;

	if (n < 1 || n > AV_ROOM_MAX_FOLLOWERS || mkdtemp(base) == NULL ||
	    !av_room_dir("bench", base, &dir, &cause) ||
	    (l = av_leader_open(dir, NULL, NULL, &cause)) == NULL) {
		fprintf(stderr, "bench_follow: %s\n", cause ? cause : "bad N (1..1024)");
		return 1;
	}
	av_state_init(&snap);
	strcpy(snap.sentence, "china panda japan cherry and a longer sentence of a class");
	av_leader_publish(l, &snap, &cause);
	rss0 = rss_kib();
	f = av_calloc((size_t)n, sizeof *f);
	got = av_calloc((size_t)n, sizeof *got);
	for (int i = 0; i < n; i++) {
		f[i] = av_follower_new(dir, (uid_t)-1, NULL, NULL);
		got[i].seq = UINT64_MAX;
	}
	if (deliver(l, f, got, n, 0, &clock) != 0)
		fprintf(stderr, "bench_follow: not every follower joined\n");
	printf("%d followers joined; their connections take %.1f MiB (%.0f KiB each)\n", n,
	       (double)(rss_kib() - rss0) / 1024, (double)(rss_kib() - rss0) / n);
	for (int r = 1; r <= rounds; r++) {
		double t0 = now_s(), dt;

		snap.seq = (uint64_t)r;
		snap.stage = r % AV_SNAP_STAGE_COUNT;
		av_leader_publish(l, &snap, &cause);
		if (deliver(l, f, got, n, snap.seq, &clock) != 0)
			fprintf(stderr, "bench_follow: round %d not delivered\n", r);
		dt = now_s() - t0;
		total += dt;
		if (dt > worst)
			worst = dt;
	}
	printf("publish to the last of %d followers decoded: mean %.2f ms, worst %.2f ms"
	       " (%d publishes)\n", n, total / rounds * 1e3, worst * 1e3, rounds);
	bench_apply();
	for (int i = 0; i < n; i++)
		av_follower_free(f[i]);
	av_leader_close(l);
	rmdir(dir);
	rmdir(base);
	free(dir);
	free(f);
	free(got);
	return 0;
}
