/* explore.c: following and exploring (see explore.h). */
#include "config.h"

#include "explore.h"

#include <stdio.h>
#include <string.h>
#include "i18n.h"
#include "utf8.h"

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

void av_explore_teacher_pin(struct av_explore *e, const struct av_state *pin)
{
	e->have_teacher_pin = pin != NULL;
	if (pin)
		e->teacher_pin = *pin;
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
		av_state_where_compared(&e->teacher, e->have_teacher_pin ? &e->teacher_pin : NULL,
					where, sizeof where);
		if (e->teacher_here)
			snprintf(out, size, _("teacher: %s — f to follow"), where);
		else
			snprintf(out, size, _("teacher (gone): %s — f to follow"), where);
	}
	av_utf8_drop_cut_character(out, size);
}
