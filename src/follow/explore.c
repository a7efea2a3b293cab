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

/* The line with where as the teacher's place. */
static void format_line(const struct av_explore *e, const char *where, char *out, size_t size)
{
	if (!e->have_teacher)
		snprintf(out, size, "%s", _("teacher: not connected yet — f to follow"));
	else if (e->teacher_here)
		snprintf(out, size, _("teacher: %s — f to follow"), where);
	else
		snprintf(out, size, _("teacher (gone): %s — f to follow"), where);
	av_utf8_drop_cut_character(out, size);
}

static void teacher_where(const struct av_explore *e, char *where, size_t size)
{
	where[0] = '\0';
	if (e->have_teacher)
		av_state_where_compared(&e->teacher, e->have_teacher_pin ? &e->teacher_pin : NULL,
					where, size);
}

void av_explore_line(const struct av_explore *e, char *out, size_t size)
{
	char where[2 * AV_SNAP_NAME_MAX + 64];

	if (size == 0)
		return;
	out[0] = '\0';
	if (!e->exploring)
		return;
	teacher_where(e, where, sizeof where);
	format_line(e, where, out, size);
}

/* The bytes of where to keep before its "…" when its first len (whole
 * characters) fit: back to the start of the word the cut is in, when a
 * space before it leaves something ("epoch 16…" of "epoch 167" would read
 * as another number; one word, or Chinese: whole characters), then
 * without what may not stand before a "…" (av_keep_before_ellipsis: the
 * ", " that led to the part cut off, and a number: "step 4…" of "step 4:
 * scores" read as step 40-something too). */
static size_t keep_before_ellipsis(const char *where, size_t len)
{
	bool inside_word = where[len] != '\0' && where[len] != ' ';
	size_t word = av_last_word_start(where, len);
	return av_keep_before_ellipsis(where, inside_word && word > 0 ? word : len, " ,:;");
}

void av_explore_line_fit(const struct av_explore *e, char *out, size_t size, int cols,
			 int (*measure)(const char *))
{
	char where[2 * AV_SNAP_NAME_MAX + 64], cut[sizeof where + 4];

	av_explore_line(e, out, size);
	if (out[0] == '\0' || !e->have_teacher || measure(out) <= cols)
		return;
	teacher_where(e, where, sizeof where);
	size_t len = strlen(where);
	while (len > 0) {
		len = av_utf8_previous(where, len);
		size_t keep = keep_before_ellipsis(where, len);
		memcpy(cut, where, keep);
		strcpy(cut + keep, "…");
		format_line(e, cut, out, size);
		if (measure(out) <= cols)
			return;
		len = keep;
	}
	/* not even "teacher: … — f to follow" fits: the line as it was, cut
	 * on the screen */
	av_explore_line(e, out, size);
}
