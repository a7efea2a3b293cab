/* message_box.c: a message too long for the status line, shown whole in
 * the rows just above it (see app.h).
 *
 * Why: at 80 columns a file's error was cut after its path ("write:
 * /tmp/zz/aaaa…"), so a student never saw why nothing was written; an
 * overwrite question lost its "y/n". The box covers the bottom of the view
 * (the inspector) only while the text is there: the next key clears a
 * message, and the windows under the box are then drawn again. */
#include "config.h"

#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/panels.h"

/* At most this many rows: a cause rarely needs more than two at 80
 * columns, and the matrix above should stay in sight. */
#define BOX_MAX_ROWS 4

/* What the box shows now (NULL: nothing), whether it covers the status
 * line too (a message, which the line would only cut) or sits above it
 * (an overlay's text: the line keeps the input), and its style. */
static const char *box_text(struct av_app *a, int width, bool *on_status, bool *error)
{
	*on_status = false;
	*error = true;
	if (a->layout.too_small || !a->w_status)
		return NULL;
	if (a->overlay && a->overlay->owns_status)
		return a->overlay->long_text ? a->overlay->long_text(a, width, error) : NULL;
	if (!a->message || av_text_width(a->message) <= width)
		return NULL;
	*on_status = true;
	*error = a->message_error;
	return a->message;
}

/* The rows the box takes for text: the whole text wrapped, within the
 * rows between the header and the status line (and the status line). */
static int box_rows(const struct av_app *a, const char *text, bool on_status)
{
	if (!text)
		return 0;
	int rows = av_wrapped_lines(text, a->layout.cols);
	int room = a->layout.status.y - 1 + (on_status ? 1 : 0);
	if (rows > BOX_MAX_ROWS)
		rows = BOX_MAX_ROWS;
	return rows < room ? rows : room > 0 ? room : 0;
}

static void remove_box(struct av_app *a)
{
	if (!a->w_box)
		return;
	/* blanks where it was first: a view with windows of its own (the
	 * training view) leaves gaps between them that no window repaints */
	werase(a->w_box);
	wnoutrefresh(a->w_box);
	delwin(a->w_box);
	a->w_box = NULL;
	/* what was under it (a view with windows of its own draws them all on
	 * AV_DIRTY_ALL) */
	av_app_touch_shared(a);
	a->dirty = AV_DIRTY_ALL;
}

void av_message_box_prepare(struct av_app *a)
{
	bool on_status, error;
	const char *text = box_text(a, a->layout.cols, &on_status, &error);
	int rows = box_rows(a, text, on_status);
	if (rows == a->box_rows && on_status == a->box_on_status)
		return;
	remove_box(a);
	a->box_rows = rows;
	a->box_on_status = on_status;
}

void av_message_box_draw(struct av_app *a)
{
	bool on_status, error;
	int width = a->layout.cols;
	const char *text = box_text(a, width, &on_status, &error);
	if (a->box_rows == 0 || !text || on_status != a->box_on_status)
		return;   /* it came or changed while drawing: the next frame */
	if (!a->w_box) {
		int bottom = a->layout.status.y + (on_status ? 1 : 0);
		a->w_box = newwin(a->box_rows, width, bottom - a->box_rows, 0);
		if (!a->w_box)
			return;
		attr_t normal = av_colors_el(&a->colors, AV_EL_NORMAL);
		wbkgd(a->w_box, ' ' | (normal & ~A_COLOR & ~A_REVERSE & ~A_BOLD & ~A_UNDERLINE) |
				COLOR_PAIR(PAIR_NUMBER(normal)));
	}
	werase(a->w_box);
	av_put_wrapped(a->w_box, 0, 0, text, width, a->box_rows,
		       av_colors_el(&a->colors, error ? AV_EL_ERROR : AV_EL_STATUS));
	/* over windows that may have been drawn under it this frame */
	touchwin(a->w_box);
	wnoutrefresh(a->w_box);
}
