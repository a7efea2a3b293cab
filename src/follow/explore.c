/* explore.c: following and exploring (see explore.h). */
#include "config.h"

#include "explore.h"

#include <stdio.h>
#include <string.h>
#include "i18n.h"

void av_explore_init(struct av_explore *e)
{
	memset(e, 0, sizeof *e);
	av_state_init(&e->teacher);
}

bool av_explore_teacher(struct av_explore *e, const struct av_state *snap)
{
	e->teacher = *snap;
	e->have_teacher = true;
	e->teacher_here = true;
	return !e->exploring;
}

void av_explore_connected(struct av_explore *e, bool connected)
{
	e->teacher_here = connected;
}

bool av_explore_start(struct av_explore *e)
{
	bool started = !e->exploring;

	e->exploring = true;
	return started;
}

bool av_explore_snap_back(struct av_explore *e, const struct av_state **snap)
{
	e->exploring = false;
	*snap = e->have_teacher ? &e->teacher : NULL;
	return e->have_teacher;
}

/* Cuts out back to a whole UTF-8 character when snprintf cut it short. */
static void whole_characters(char *out, size_t size)
{
	size_t len = strnlen(out, size), start = len;

	if (len + 1 < size || len == 0)
		return;
	while (start > 0 && ((unsigned char)out[start - 1] & 0xc0) == 0x80)
		start--;
	if (start > 0 && (unsigned char)out[start - 1] >= 0xc0) {
		unsigned char lead = (unsigned char)out[start - 1];
		size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
		if (len - (start - 1) < need)
			out[start - 1] = '\0';
	}
}

void av_explore_line(const struct av_explore *e, char *out, size_t size)
{
	char where[2 * AV_SNAP_NAME_MAX + 64];

	if (size == 0)
		return;
	out[0] = '\0';
	if (!e->exploring)
		return;
	if (!e->have_teacher) {
		snprintf(out, size, "%s", _("teacher: not connected yet — f to follow"));
	} else {
		av_state_where(&e->teacher, where, sizeof where);
		if (e->teacher_here)
			snprintf(out, size, _("teacher: %s — f to follow"), where);
		else
			snprintf(out, size, _("teacher (gone): %s — f to follow"), where);
	}
	whole_characters(out, size);
}
