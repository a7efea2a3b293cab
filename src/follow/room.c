/* room.c: the leader's listening socket and followers, the follower's
 * connection, framing and reconnects (see room.h). */
#include "config.h"

#include "i18n.h"
#include "room.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "i18n.h"
#include "util.h"
#include "wire.h"

static void note(av_room_note_fn fn, void *ctx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void note(av_room_note_fn fn, void *ctx, const char *fmt, ...)
{
	va_list ap;
	char *line;

	if (fn == NULL)
		return;
	va_start(ap, fmt);
	line = av_vprintf(fmt, ap);
	va_end(ap);
	fn(ctx, line);
	free(line);
}

/* --- where */

static bool room_name_ok(const char *room)
{
	size_t len = strlen(room);

	if (len == 0 || len > AV_ROOM_NAME_MAX || room[0] == '.')
		return false;
	return strspn(room, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789._-") == len;
}

static char *default_base(void)
{
	const char *env = getenv("ATTNVIEW_ROOM_DIR");
	struct group *g;

	if (env != NULL && env[0] != '\0')
		return av_strdup(env);
	env = getenv("XDG_RUNTIME_DIR");
	if (env != NULL && env[0] == '/')
		return av_printf("%s/attnview", env);
	g = getgrgid(getegid());
	if (g != NULL && room_name_ok(g->gr_name))
		return av_printf("/tmp/attnview-%s", g->gr_name);
	return av_printf("/tmp/attnview-%lu", (unsigned long)getegid());
}

bool av_room_dir(const char *room, const char *base_option, char **dir, char **cause)
{
	struct sockaddr_un sun;
	char *base;

	if (!room_name_ok(room))
		return av_fail(cause, _("invalid room name \"%.80s\" (1 to %d of A-Z, a-z, 0-9,"
			       " '.', '_' and '-', not starting with '.')"), room, AV_ROOM_NAME_MAX);
	base = base_option != NULL ? av_strdup(base_option) : default_base();
	*dir = av_printf("%s/%s", base, room);
	free(base);
	if (strlen(*dir) + strlen("/socket") >= sizeof sun.sun_path) {
		av_fail(cause, _("room path %s is too long for a socket (at most %zu bytes)"),
			*dir, sizeof sun.sun_path - 1 - strlen("/socket"));
		free(*dir);
		*dir = NULL;
		return false;
	}
	return true;
}

static char *socket_path(const char *dir)
{
	return av_printf("%s/socket", dir);
}

static bool fill_address(struct sockaddr_un *sun, const char *path, char **cause)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun->sun_path)
		return av_fail(cause, _("socket path %s is too long"), path);
	strcpy(sun->sun_path, path);
	return true;
}

/* --- messages shared by every follower's queue */

struct room_msg {
	int refs;
	size_t len;
	unsigned char *data;
};

static struct room_msg *msg_ref(struct room_msg *m)
{
	if (m != NULL)
		m->refs++;
	return m;
}

static void msg_unref(struct room_msg *m)
{
	if (m != NULL && --m->refs == 0) {
		free(m->data);
		free(m);
	}
}

/* --- the leader */

struct peer {
	int fd;
	uid_t uid;
	char user[33];              /* the uid's login name, or "?" */
	struct room_msg *sending;   /* being written, from byte sent on */
	size_t sent;
	struct room_msg *next;      /* the newest snapshot, waiting its turn */
	int stalls;                 /* publishes in a row without progress */
};

struct av_leader {
	char *dir, *path;
	int listen_fd;
	int lock_fd;                /* DIR/lock, held (flock) while leading */
	struct peer *peers;
	int n_peers;
	struct room_msg *current;
	av_room_note_fn note;
	void *ctx;
};

/* Makes dir ours and 0750: the group (the class) can reach the socket and
 * connect (that needs write permission on the socket, not on the folder)
 * but can put nothing in the room. It was 01770, and any student could
 * plant a socket of their own there while no leader ran ("room ...
 * already has a leader": the teacher could not teach), or a log. Created
 * if missing, refused if it is a link, not a directory, or someone else's.
 * Checked and changed through one descriptor opened without following
 * links, so a directory swapped for a link between the check and the chmod
 * changes nothing of someone else's.
 * *gid: the directory's group, the class's (from a setgid base), which the
 * socket is given. */
static bool own_directory(const char *dir, gid_t *gid, char **cause)
{
	struct stat st;
	int fd;
	bool ok = true;

	if (mkdir(dir, 0750) != 0 && errno != EEXIST)
		return av_fail(cause, _("cannot create %s: %s"), dir, strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return av_fail(cause, _("%s: %s (a link or a file is refused)"), dir,
			       strerror(errno));
	if (fstat(fd, &st) != 0)
		ok = av_fail(cause, "%s: %s", dir, strerror(errno));
	else if (st.st_uid != geteuid())
		ok = av_fail(cause, _("%s belongs to uid %lu, not to this user"), dir,
			     (unsigned long)st.st_uid);
	else if (fchmod(fd, 0750) != 0)
		ok = av_fail(cause, _("cannot set %s to mode 0750: %s"), dir, strerror(errno));
	else
		*gid = st.st_gid;
	close(fd);
	return ok;
}

/* The parent of dir (the base of all rooms): created 0770 when missing; an
 * existing one (an administrator's, setgid to the class group) is left as
 * it is. */
static bool make_parent(const char *dir, char **cause)
{
	char *parent = av_strdup(dir);
	char *slash = strrchr(parent, '/');
	bool ok = true;

	if (slash != NULL && slash != parent) {
		*slash = '\0';
		if (mkdir(parent, 0770) != 0 && errno != EEXIST)
			ok = av_fail(cause, _("cannot create %s: %s"), parent, strerror(errno));
	}
	free(parent);
	return ok;
}

void av_room_remove_foreign(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid()))
		unlink(path);
}

/* A socket already at path: refused when a leader answers on it, removed
 * when it is a dead leader's. Anything there of another user's (planted
 * while the room was open to the class, before it was 0750) is no leader
 * of this room, which is ours: removed. */
static bool clear_old_socket(const char *path, char **cause)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;
	bool live;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? true : av_fail(cause, "%s: %s", path, strerror(errno));
	if (st.st_uid != geteuid() && unlink(path) == 0)
		return true;
	if (!S_ISSOCK(st.st_mode))
		return av_fail(cause, _("%s exists and is not a socket"), path);
	if (!fill_address(&sun, path, cause))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return av_fail(cause, _("socket: %s"), strerror(errno));
	live = connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0 || errno == EAGAIN;
	close(fd);
	if (live)
		return av_fail(cause, _("room %s already has a teacher"), path);
	if (unlink(path) != 0)
		return av_fail(cause, _("cannot remove the old socket %s: %s"), path, strerror(errno));
	return true;
}

/* Listens on path, a socket of mode 0660 in the group gid: the room's.
 * Created with the leader's own group (the chmod of the room drops the
 * setgid bit it had from a base set up as in doc/teaching.md), the
 * socket let only the teacher's group connect, and every student of the
 * class was told "Permission denied". A group the leader is not in stays
 * the leader's own. */
static int listen_on(const char *path, gid_t gid, char **cause)
{
	struct sockaddr_un sun;
	int fd;

	if (!fill_address(&sun, path, cause))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		av_fail(cause, _("socket: %s"), strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    (gid != getegid() && lchown(path, (uid_t)-1, gid) != 0 && errno != EPERM) ||
	    chmod(path, 0660) != 0 || listen(fd, 128) != 0) {
		av_fail(cause, _("cannot listen on %s: %s"), path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* The room's lock, DIR/lock (0600, the teacher's: no student can open it
 * to hold it), taken for as long as the leader leads; -1 with *cause when
 * another leader holds it. Without it, two teachers' attnviews started
 * together both led: the second found the first's socket bound but not
 * yet listening, took it for a dead leader's and replaced it, and the
 * first led a room no student could reach (22 of 30 tries of four at
 * once on a new room, 3 of 30 on a dead leader's socket). A file of
 * another user's there (from when the room was 1770) is replaced. */
static int lock_room(const char *dir, const char *path, char **cause)
{
	char *lock = av_printf("%s/lock", dir);
	int fd;

	av_room_remove_foreign(lock);
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		av_fail(cause, _("cannot create %s: %s"), lock, strerror(errno));
	else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			av_fail(cause, _("room %s already has a teacher"), path);
		else
			av_fail(cause, "%s: %s", lock, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(lock);
	return fd;
}

struct av_leader *av_leader_open(const char *dir, av_room_note_fn note_fn, void *ctx,
				 char **cause)
{
	struct av_leader *l;
	char *path;
	int fd, lock_fd;
	gid_t gid = getegid();

	if (!make_parent(dir, cause) || !own_directory(dir, &gid, cause))
		return NULL;
	path = socket_path(dir);
	if ((lock_fd = lock_room(dir, path, cause)) < 0) {
		free(path);
		return NULL;
	}
	if (!clear_old_socket(path, cause) || (fd = listen_on(path, gid, cause)) < 0) {
		close(lock_fd);
		free(path);
		return NULL;
	}
	l = av_calloc(1, sizeof *l);
	l->dir = av_strdup(dir);
	l->path = path;
	l->listen_fd = fd;
	l->lock_fd = lock_fd;
	l->peers = av_calloc(AV_ROOM_MAX_FOLLOWERS, sizeof *l->peers);
	l->note = note_fn;
	l->ctx = ctx;
	note(note_fn, ctx, _("leading room %s"), dir);
	return l;
}

static void drop_peer(struct av_leader *l, int i, const char *why)
{
	struct peer *p = &l->peers[i];

	note(l->note, l->ctx, _("follower uid %lu (%s) %s (%d following)"), (unsigned long)p->uid,
	     p->user, why, l->n_peers - 1);
	close(p->fd);
	msg_unref(p->sending);
	msg_unref(p->next);
	l->peers[i] = l->peers[--l->n_peers];
}

/* Writes what the socket takes. Returns the bytes written, or -1 when the
 * follower is gone (the peer must be dropped). */
static long flush_peer(struct peer *p)
{
	long written = 0;

	while (p->sending != NULL) {
		ssize_t n = send(p->fd, p->sending->data + p->sent, p->sending->len - p->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -1;
		}
		written += n;
		p->sent += (size_t)n;
		if (p->sent == p->sending->len) {
			msg_unref(p->sending);
			p->sending = p->next;
			p->next = NULL;
			p->sent = 0;
		}
	}
	return written;
}

/* Queues m for p: newest wins, and a message already started is finished
 * first (cutting it would put the stream out of step). */
static void queue_peer(struct peer *p, struct room_msg *m)
{
	if (p->sending == NULL) {
		p->sending = msg_ref(m);
		p->sent = 0;
	} else {
		msg_unref(p->next);
		p->next = msg_ref(m);
	}
}

/* The login name of uid for the log, printable ASCII only (it is the
 * system's, but the log is read in a terminal). */
static void user_name(uid_t uid, char *out, size_t size)
{
	struct passwd *pw = uid == (uid_t)-1 ? NULL : getpwuid(uid);
	size_t n = 0;

	for (const char *c = pw ? pw->pw_name : "?"; *c != '\0' && n + 1 < size; c++)
		out[n++] = *c > 0x20 && *c < 0x7f ? *c : '?';
	out[n] = '\0';
	if (n == 0)
		snprintf(out, size, "?");
}

static void accept_followers(struct av_leader *l)
{
	for (;;) {
		struct ucred cred;
		socklen_t cred_len = sizeof cred;
		int fd = accept4(l->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct peer *p;

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return;    /* EAGAIN: no more; anything else: try next poll */
		}
		if (l->n_peers == AV_ROOM_MAX_FOLLOWERS) {
			note(l->note, l->ctx, _("room full (%d followers): refused one"),
			     AV_ROOM_MAX_FOLLOWERS);
			close(fd);
			continue;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0)
			cred.uid = (uid_t)-1;
		p = &l->peers[l->n_peers++];
		memset(p, 0, sizeof *p);
		p->fd = fd;
		p->uid = cred.uid;
		user_name(p->uid, p->user, sizeof p->user);
		note(l->note, l->ctx, _("follower uid %lu (%s) joined (%d following)"),
		     (unsigned long)p->uid, p->user, l->n_peers);
		if (l->current != NULL) {
			queue_peer(p, l->current);
			if (flush_peer(p) < 0)
				drop_peer(l, l->n_peers - 1, C_("follower", "left"));
		}
	}
}

void av_leader_close(struct av_leader *l)
{
	if (l == NULL)
		return;
	for (int i = 0; i < l->n_peers; i++) {
		close(l->peers[i].fd);
		msg_unref(l->peers[i].sending);
		msg_unref(l->peers[i].next);
	}
	close(l->listen_fd);
	unlink(l->path);
	close(l->lock_fd);    /* after the unlink: the next leader finds no socket */
	msg_unref(l->current);
	free(l->peers);
	free(l->path);
	free(l->dir);
	free(l);
}

int av_leader_pollfds(const struct av_leader *l, struct pollfd *fds, int max)
{
	int n = 0;

	if (max < 1)
		return 0;
	fds[n++] = (struct pollfd){ .fd = l->listen_fd, .events = POLLIN };
	for (int i = 0; i < l->n_peers && n < max; i++)
		fds[n++] = (struct pollfd){
			.fd = l->peers[i].fd,
			.events = (short)(POLLIN | (l->peers[i].sending ? POLLOUT : 0)),
		};
	return n;
}

static int find_peer(const struct av_leader *l, int fd)
{
	for (int i = 0; i < l->n_peers; i++)
		if (l->peers[i].fd == fd)
			return i;
	return -1;
}

/* A follower never sends anything: bytes from it are read and ignored (a
 * bounded amount per call); the end of its stream means it left. */
static bool peer_still_there(struct peer *p)
{
	char junk[256];

	for (int reads = 0; reads < 16; reads++) {
		ssize_t n = recv(p->fd, junk, sizeof junk, MSG_DONTWAIT);
		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	}
	return true;
}

void av_leader_service(struct av_leader *l, const struct pollfd *fds, int n)
{
	bool accept_ready = false;

	for (int k = 0; k < n; k++) {
		int i;

		if (fds[k].fd == l->listen_fd) {
			accept_ready = fds[k].revents & POLLIN;
			continue;
		}
		if (fds[k].revents == 0 || (i = find_peer(l, fds[k].fd)) < 0)
			continue;
		if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) && !peer_still_there(&l->peers[i]))
			drop_peer(l, i, C_("follower", "left"));
		else if ((fds[k].revents & POLLOUT) && flush_peer(&l->peers[i]) < 0)
			drop_peer(l, i, C_("follower", "left"));
		else if (fds[k].revents & (POLLHUP | POLLERR))
			drop_peer(l, i, C_("follower", "hung up"));
	}
	if (accept_ready)
		accept_followers(l);
}

bool av_leader_publish(struct av_leader *l, const struct av_state *s, char **cause)
{
	return av_leader_publish_pinned(l, s, NULL, cause);
}

bool av_leader_publish_pinned(struct av_leader *l, const struct av_state *s,
			      const struct av_state *pin, char **cause)
{
	struct room_msg *m = av_calloc(1, sizeof *m);

	if (!av_wire_encode_pinned(s, pin, &m->data, &m->len, cause)) {
		free(m);
		return false;
	}
	m->refs = 1;
	msg_unref(l->current);
	l->current = m;
	for (int i = l->n_peers - 1; i >= 0; i--) {
		struct peer *p = &l->peers[i];
		bool was_behind = p->sending != NULL;
		long written;

		queue_peer(p, m);
		written = flush_peer(p);
		if (written < 0) {
			drop_peer(l, i, C_("follower", "left"));
			continue;
		}
		p->stalls = was_behind && written == 0 ? p->stalls + 1 : 0;
		if (p->stalls > AV_ROOM_STALL_LIMIT)
			drop_peer(l, i, _("dropped: it read nothing for too long"));
	}
	return true;
}

int av_leader_followers(const struct av_leader *l)
{
	return l->n_peers;
}

/* --- the follower */

enum read_state { WANT_HEADER, WANT_BODY, SKIPPING };

struct av_follower {
	char *dir, *path;
	uid_t teacher_uid;
	int fd;
	long long next_try;      /* when to connect again */
	int backoff;             /* ms; doubles after each failed try */
	bool told_waiting;       /* "waiting for the leader" noted once per outage */
	bool told_following;     /* "following" noted for this connection */
	uid_t leader_uid;        /* who listens on it */
	enum read_state state;
	struct av_wire_header header;
	size_t have;             /* bytes of the header or body read so far */
	size_t skip_left;
	unsigned char buf[AV_WIRE_HEADER_SIZE + AV_WIRE_MAX_BODY];
	struct av_state decoded;
	struct av_state decoded_pin;   /* with it, when has_pin */
	bool has_pin;
	av_room_note_fn note;
	void *ctx;
};

struct av_follower *av_follower_new(const char *dir, uid_t teacher_uid, av_room_note_fn note_fn,
				    void *ctx)
{
	struct av_follower *f = av_calloc(1, sizeof *f);

	f->dir = av_strdup(dir);
	f->path = socket_path(dir);
	f->teacher_uid = teacher_uid;
	f->fd = -1;
	f->backoff = AV_ROOM_BACKOFF_MIN_MS;
	f->note = note_fn;
	f->ctx = ctx;
	return f;
}

static void disconnect(struct av_follower *f, long long now)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->state = WANT_HEADER;
	f->have = 0;
	f->next_try = now + f->backoff;
	f->backoff = f->backoff * 2 > AV_ROOM_BACKOFF_MAX_MS ? AV_ROOM_BACKOFF_MAX_MS
							     : f->backoff * 2;
}

void av_follower_free(struct av_follower *f)
{
	if (f == NULL)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->dir);
	free(f->path);
	free(f);
}

int av_follower_fd(const struct av_follower *f)
{
	return f->fd;
}

bool av_follower_connected(const struct av_follower *f)
{
	return f->fd >= 0;
}

int av_follower_timeout(const struct av_follower *f, long long now_ms)
{
	if (f->fd >= 0)
		return -1;
	if (f->next_try <= now_ms)
		return 0;
	return f->next_try - now_ms > AV_ROOM_BACKOFF_MAX_MS ? AV_ROOM_BACKOFF_MAX_MS
							      : (int)(f->next_try - now_ms);
}

/* Connects and checks who listens: our own uid or the teacher's. */
static unsigned try_connect(struct av_follower *f, long long now)
{
	struct sockaddr_un sun;
	struct ucred cred;
	socklen_t cred_len = sizeof cred;
	int fd;

	if (!fill_address(&sun, f->path, NULL))
		return 0;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		if (!f->told_waiting)
			note(f->note, f->ctx, _("waiting for a teacher in %s (%s)"), f->dir,
			     strerror(errno));
		f->told_waiting = true;
		if (fd >= 0)
			close(fd);
		disconnect(f, now);
		return 0;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0 ||
	    (cred.uid != getuid() && cred.uid != f->teacher_uid)) {
		note(f->note, f->ctx, _("not following %s: it is led by uid %ld, not by the teacher"),
		     f->dir, cred_len == sizeof cred ? (long)cred.uid : -1L);
		close(fd);
		disconnect(f, now);
		return 0;
	}
	f->fd = fd;
	f->state = WANT_HEADER;
	f->have = 0;
	f->backoff = AV_ROOM_BACKOFF_MIN_MS;
	f->told_waiting = false;
	/* connected is not following: a program that is not attnview answers
	 * too, and the line keeps why the last try failed until a message
	 * comes (advance) */
	f->told_following = false;
	f->leader_uid = cred.uid;
	return AV_FOLLOW_CONNECTED;
}

/* What the stream needs next and where it goes. */
static size_t wanted(struct av_follower *f, unsigned char **into)
{
	static unsigned char skip_buf[4096];

	switch (f->state) {
	case WANT_HEADER:
		*into = f->buf + f->have;
		return AV_WIRE_HEADER_SIZE - f->have;
	case WANT_BODY:
		*into = f->buf + AV_WIRE_HEADER_SIZE + f->have;
		return f->header.length - f->have;
	default:
		*into = skip_buf;
		return f->skip_left < sizeof skip_buf ? f->skip_left : sizeof skip_buf;
	}
}

/* A complete header or body is in: moves the state on. False when the
 * stream is out of step and must be closed. */
static bool advance(struct av_follower *f, unsigned *events, struct av_state *out)
{
	char *cause = NULL;

	if (f->state == WANT_HEADER) {
		enum av_wire_verdict v = av_wire_parse_header(f->buf, &f->header, &cause);
		f->have = 0;
		if (v == AV_WIRE_DESYNC) {
			note(f->note, f->ctx, _("left the room: the teacher's side sent %s"), cause);
			free(cause);
			return false;
		}
		if (v == AV_WIRE_SKIP) {
			note(f->note, f->ctx, _("dropped a message from the teacher: %s"), cause);
			*events |= AV_FOLLOW_DROPPED;
			free(cause);
			f->skip_left = f->header.length;
			f->state = f->skip_left > 0 ? SKIPPING : WANT_HEADER;
			return true;
		}
		f->state = f->header.length > 0 ? WANT_BODY : WANT_HEADER;
		if (f->header.length > 0)
			return true;
	}
	if (f->state == WANT_BODY || f->header.length == 0) {
		/* decoded in place: both are read only after a snapshot, which
		 * a failed message is not */
		f->has_pin = false;
		if (av_wire_decode_body_pinned(f->buf + AV_WIRE_HEADER_SIZE, f->header.length,
					       &f->decoded, &f->decoded_pin, &f->has_pin, &cause)) {
			*out = f->decoded;
			*events |= AV_FOLLOW_SNAPSHOT;
			if (!f->told_following)
				note(f->note, f->ctx, _("following %s (teacher uid %lu)"), f->dir,
				     (unsigned long)f->leader_uid);
			f->told_following = true;
		} else {
			note(f->note, f->ctx, _("dropped a message from the teacher: %s"), cause);
			free(cause);
			*events |= AV_FOLLOW_DROPPED;
		}
	}
	f->state = WANT_HEADER;
	f->have = 0;
	return true;
}

/* Part of a message came and not the rest: the leader did not leave
 * between messages, as a teacher who quits does. */
static bool mid_message(const struct av_follower *f)
{
	return f->state != WANT_HEADER || f->have > 0;
}

unsigned av_follower_step(struct av_follower *f, long long now_ms, struct av_state *out)
{
	unsigned events = 0;

	if (f->fd < 0) {
		if (now_ms < f->next_try)
			return 0;
		events = try_connect(f, now_ms);
		if (f->fd < 0)
			return events;
	}
	/* bounded, so a leader that floods cannot keep the screen from drawing */
	for (int reads = 0; reads < 256; reads++) {
		unsigned char *into;
		size_t want = wanted(f, &into);
		ssize_t n = recv(f->fd, into, want, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			if (n == 0 && mid_message(f))
				note(f->note, f->ctx, _("the connection closed in the middle of a "
							"message from the teacher (their attnview quit "
							"or failed); waiting for them to come back"));
			else if (n == 0)
				note(f->note, f->ctx, _("the teacher left; waiting for them to come back"));
			else
				note(f->note, f->ctx, _("the teacher's connection failed: %s"),
				     strerror(errno));
			f->backoff = AV_ROOM_BACKOFF_MIN_MS;
			f->told_waiting = true;    /* "the teacher left" says it */
			disconnect(f, now_ms);
			return events | AV_FOLLOW_GONE;
		}
		if (f->state == SKIPPING) {
			f->skip_left -= (size_t)n;
			if (f->skip_left == 0)
				f->state = WANT_HEADER;
			continue;
		}
		f->have += (size_t)n;
		if ((size_t)n == want && !advance(f, &events, out)) {
			disconnect(f, now_ms);
			return events | AV_FOLLOW_GONE;
		}
	}
	return events;
}

bool av_follower_pin(const struct av_follower *f, struct av_state *pin)
{
	if (!f->has_pin)
		return false;
	*pin = f->decoded_pin;
	return true;
}
