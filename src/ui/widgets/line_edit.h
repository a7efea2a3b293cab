/* line_edit.h: one line of UTF-8 text being typed, shared by the sentence
 * editor (view_edit.c) and the prompt (view_prompt.c): the cursor moves by
 * whole characters (combining marks stay with their base, CJK takes two
 * columns), the editing keys of AV_EDIT_ACTIONS (actions.h), and the status
 * line drawn as "label text  hint", the text scrolled to keep the cursor in
 * view and the hint (or an error) on the right. */
#ifndef AV_UI_LINE_EDIT_H
#define AV_UI_LINE_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include "tokenizer.h"
#include "ui/colors.h"
#include "ui/curses.h"

/* Room for a whole sentence after a command word ("sentence ...") */
#define AV_LINE_BYTES (AV_MAX_SENTENCE_BYTES + 64)

struct av_line {
	char buf[AV_LINE_BYTES];
	size_t len, cur;       /* bytes; cur is a byte offset */
	size_t limit;          /* the most bytes the text may have */
	int scroll;            /* first column shown */
};

/* What a key did to the line. */
enum av_line_result {
	AV_LINE_UNUSED,        /* not an editing key (Tab, function keys) */
	AV_LINE_MOVED,         /* the cursor moved */
	AV_LINE_CHANGED,       /* the text changed */
	AV_LINE_FULL,          /* a character did not fit (limit) */
	AV_LINE_APPLY,         /* Enter */
	AV_LINE_CANCEL         /* Esc */
};

/* The text (cut to limit, at a character boundary), the cursor at its end. */
void av_line_set(struct av_line *l, const char *text, size_t limit);

/* Replaces the bytes [from, to) with text (the cursor after it); false if
 * the result would pass the limit. */
bool av_line_replace(struct av_line *l, size_t from, size_t to, const char *text);

enum av_line_result av_line_key(struct av_line *l, int key);

/* Draws the status line w: label, the text with its cursor, and hint on the
 * right in the dim style (or in the error style when error). */
/* Whether av_line_draw shows error whole beside label on a line of width
 * columns (it leaves the text at least a few columns); an error that does
 * not fit is shown above the line instead (the overlays' long_text). */
bool av_line_error_fits(const char *label, const char *error, int width);

void av_line_draw(WINDOW *w, const struct av_colors *c, const char *label,
		  struct av_line *l, const char *hint, bool error);

#endif
