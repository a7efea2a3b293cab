/* classroom.c: --lead and --follow (see classroom.h). */
#include "config.h"

#include "i18n.h"
#include "classroom.h"

#include <stdlib.h>
#include <string.h>
#include "follow/room.h"
#include "follow/snapshot.h"
#include "restricted.h"
#include "sample.h"
#include "util.h"

/* "--NAME ROOM" or "--NAME=ROOM" at argv[*i]: *room and true (and *i moved
 * past the value). */
static bool take(const char *name, int argc, char **argv, int *i, const char **room,
		 char **cause)
{
	size_t len = strlen(name);
	const char *arg = argv[*i];

	if (strncmp(arg, name, len) != 0 || (arg[len] != '\0' && arg[len] != '='))
		return false;
	if (arg[len] == '=') {
		*room = arg + len + 1;
	} else if (*i + 1 < argc) {
		*room = argv[++*i];
	} else {
		av_fail(cause, _("%s needs a room name"), name);
		*room = NULL;
	}
	return true;
}

bool av_classroom_args(int *argc, char **argv, bool restricted, struct av_classroom_args *c,
		       char **cause)
{
	const char *lead = NULL, *follow = NULL;
	int out = 1;
	bool operands = false;

	memset(c, 0, sizeof *c);
	for (int i = 1; i < *argc; i++) {
		const char *room;

		if (!operands && strcmp(argv[i], "--") == 0)
			operands = true;
		if (!operands && take("--lead", *argc, argv, &i, &room, cause)) {
			if ((lead = room) == NULL)
				return false;
			continue;
		}
		if (!operands && take("--follow", *argc, argv, &i, &room, cause)) {
			if ((follow = room) == NULL)
				return false;
			continue;
		}
		argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
	if (lead != NULL && follow != NULL)
		return av_fail(cause, _("--lead and --follow: one or the other"));
	if (lead != NULL && restricted)
		return av_fail(cause, _("--lead is not allowed in restricted mode (students follow)"));
	if (lead != NULL && !av_room_dir(lead, NULL, &c->lead_dir, cause))
		return false;
	if (follow != NULL && !av_room_dir(follow, NULL, &c->follow_dir, cause))
		return false;
	return true;
}

static bool hash_file(const char *path, uint64_t *hash, char **cause)
{
	char *text;
	size_t len;

	if (!av_read_file(path, &text, &len, cause))
		return false;
	*hash = av_state_hash(text, len);
	free(text);
	return true;
}

bool av_classroom_ui(const struct av_classroom_args *c, const struct av_options *o,
		     const struct av_session *s, struct av_ui_config *ui, char **cause)
{
	ui->lead_dir = c->lead_dir;
	ui->follow_dir = c->follow_dir;
	ui->teacher_uid = av_restricted_teacher();
	if (c->lead_dir == NULL && c->follow_dir == NULL)
		return true;
	if (o->weights != NULL) {
		const char *slash = strrchr(o->weights, '/');
		ui->weights_name = slash ? slash + 1 : o->weights;
		return hash_file(o->weights, &ui->content_hash, cause);
	}
	if (s->sample.path == NULL || strcmp(s->sample.path, "(built-in)") == 0) {
		ui->content_hash = av_state_hash(av_builtin_sample_json,
						    strlen(av_builtin_sample_json));
		return true;
	}
	return hash_file(s->sample.path, &ui->content_hash, cause);
}

void av_classroom_args_free(struct av_classroom_args *c)
{
	free(c->lead_dir);
	free(c->follow_dir);
	memset(c, 0, sizeof *c);
}
