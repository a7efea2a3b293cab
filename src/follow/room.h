/* room.h: the classroom's transport (issue 10), curses-free. A room is a
 * directory holding one Unix-domain stream socket, "socket"; the leader (the
 * teacher's attnview) listens on it, followers (the students') connect.
 * Nothing ever listens on a network port: a remote student comes in by SSH.
 *
 * Where: av_room_dir() below. Who: the room directory is mode 0750 (the
 * group can reach the socket but add, remove or replace nothing) and the
 * socket 0660, so only the owner and the directory's group (the class) can
 * connect; the leader logs each follower's uid (SO_PEERCRED) and the
 * follower checks the leader's uid (the same user, or the configured
 * teacher) before it believes a byte.
 *
 * Both sides are made for a poll() loop: ask for the descriptors and events
 * (av_leader_pollfds, av_follower_fd), poll, and hand the results back. No
 * call blocks. Time is passed in (milliseconds on any monotonic clock), so
 * tests drive the follower's reconnect backoff without sleeping.
 *
 * Newest wins: a follower that reads slowly gets the latest snapshot, not a
 * queue of old ones; one that reads nothing is dropped after
 * AV_ROOM_STALL_LIMIT publishes without progress, and the leader never
 * waits for it. */
#ifndef AV_FOLLOW_ROOM_H
#define AV_FOLLOW_ROOM_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "snapshot.h"

#define AV_ROOM_NAME_MAX 64
#define AV_ROOM_MAX_FOLLOWERS 1024
#define AV_ROOM_STALL_LIMIT 64          /* publishes a follower may fall behind */
#define AV_ROOM_BACKOFF_MIN_MS 100
#define AV_ROOM_BACKOFF_MAX_MS 5000

/* Called with one line for the leader's or the follower's log ("follower
 * uid 1003 joined", "dropped a malformed message: ..."). */
typedef void (*av_room_note_fn)(void *ctx, const char *line);

/* The room's directory: base/ROOM with base the first of
 *   base_option (a command-line option), $ATTNVIEW_ROOM_DIR,
 *   $XDG_RUNTIME_DIR/attnview (one user's rooms: a teacher trying it out),
 *   /tmp/attnview-GROUP (GROUP: the name of the effective group);
 * a class server sets ATTNVIEW_ROOM_DIR for every account (doc/teaching.md).
 * ROOM is 1..AV_ROOM_NAME_MAX of A-Z a-z 0-9 . _ - not starting with '.'.
 * *dir is malloc'd; false + *cause for a bad name or a path too long for a
 * socket. */
bool av_room_dir(const char *room, const char *base_option, char **dir, char **cause);

/* Removes path, a file of the room (its lock, its log), unless it is a
 * regular file of this user's: rooms were 01770 before they were 0750, and
 * a student could leave a file, a FIFO or a link there that kept the
 * teacher from taking the lock or writing the log. The room is the
 * teacher's, so it may remove them. */
void av_room_remove_foreign(const char *path);

/* --- the leader */
struct av_leader;

/* Creates dir (and its parent, 0770) if needed, refuses one that is a
 * symbolic link or belongs to another user, sets it to 0750, takes its lock
 * (dir/lock, flock; held while leading), and listens on
 * dir/socket (0660, in dir's group: the class's). A socket left by a leader
 * that died, or another user's, is replaced; one of ours with a live leader
 * behind it is refused ("room ... already has a leader"). */
struct av_leader *av_leader_open(const char *dir, av_room_note_fn note, void *ctx,
				 char **cause);

/* Stops listening, closes every follower (they see the end of the stream)
 * and removes the socket. NULL is harmless. */
void av_leader_close(struct av_leader *l);

/* Fills fds (room for max entries; max >= 1 + AV_ROOM_MAX_FOLLOWERS always
 * suffices) with the listening socket and each follower (POLLOUT when it
 * has bytes waiting); returns the count. */
int av_leader_pollfds(const struct av_leader *l, struct pollfd *fds, int max);

/* After poll: accepts new followers (each gets the current snapshot),
 * sends what is waiting, and drops followers that hung up. fds/n as filled
 * by av_leader_pollfds and returned by poll. */
void av_leader_service(struct av_leader *l, const struct pollfd *fds, int n);

/* The new current snapshot: encoded once, queued for every follower
 * (replacing any older one not yet started), and sent as far as each
 * socket takes without waiting. false + *cause when s does not validate. */
bool av_leader_publish(struct av_leader *l, const struct av_state *s, char **cause);
/* The same with the state the teacher's comparison pinned (or NULL): see
 * av_wire_encode_pinned. */
bool av_leader_publish_pinned(struct av_leader *l, const struct av_state *s,
			      const struct av_state *pin, char **cause);

int av_leader_followers(const struct av_leader *l);

/* --- the follower */
struct av_follower;

/* What av_follower_step saw: a set of these bits (0 for nothing). */
enum av_follow_event {
	AV_FOLLOW_SNAPSHOT = 1,    /* *out holds a new snapshot */
	AV_FOLLOW_CONNECTED = 2,   /* a leader answered (its snapshot follows);
				      "following" is noted at the first
				      snapshot read from it, not here */
	AV_FOLLOW_GONE = 4,        /* the leader left or the stream went bad; the
				      follower keeps its last state and
				      reconnects with backoff */
	AV_FOLLOW_DROPPED = 8      /* a message could not be read (another
				      release's version, too large, malformed):
				      said by a note, and nothing is followed */
};

/* teacher_uid: the leader's uid to accept besides our own, or (uid_t)-1 for
 * our own only. Nothing is connected until the first av_follower_step. */
struct av_follower *av_follower_new(const char *dir, uid_t teacher_uid,
				    av_room_note_fn note, void *ctx);
void av_follower_free(struct av_follower *f);

/* The descriptor to poll for POLLIN, or -1 while disconnected. */
int av_follower_fd(const struct av_follower *f);

/* Milliseconds until the next reconnect attempt (a poll timeout), or -1
 * while connected. */
int av_follower_timeout(const struct av_follower *f, long long now_ms);

/* Call when the descriptor is readable, or when the timeout ran out: reads
 * what is there (bounded), or tries to connect. Returns the av_follow_event
 * bits of what happened; with AV_FOLLOW_SNAPSHOT *out is the newest snapshot
 * read (older ones in the same read are skipped). */
unsigned av_follower_step(struct av_follower *f, long long now_ms, struct av_state *out);

bool av_follower_connected(const struct av_follower *f);

/* The state pinned for the comparison that came with the newest snapshot:
 * true and *pin when it had one. */
bool av_follower_pin(const struct av_follower *f, struct av_state *pin);

#endif
