/* line_edit.c: the line editing shared by the editor and the prompt (see
 * line_edit.h). */
#include "config.h"

#include <string.h>

#include "ui/actions.h"
#include "ui/widgets/draw.h"
#include "ui/widgets/line_edit.h"
#include "utf8.h"

/* --- the text ------------------------------------------------------------ */

static uint32_t cp_at(const struct av_line *l, size_t off)
{
	uint32_t cp = '?';
	if (av_utf8_decode(l->buf + off, l->len - off, &cp) < 0)
		cp = '?';
	return cp;
}

/* The start of the character before off (combining marks stay with it). */
static size_t prev_char(const struct av_line *l, size_t off)
{
	while (off > 0) {
		off = av_utf8_previous(l->buf, off);
		if (off == 0 || av_cp_width(cp_at(l, off)) != 0)
			break;
	}
	return off;
}

/* The end of the character at off, with the marks that follow it. */
static size_t next_char(const struct av_line *l, size_t off)
{
	if (off >= l->len)
		return l->len;
	off++;
	while (off < l->len && av_utf8_is_continuation((unsigned char)l->buf[off]))
		off++;
	while (off < l->len && av_cp_width(cp_at(l, off)) == 0 && cp_at(l, off) >= 0x20) {
		off++;
		while (off < l->len && av_utf8_is_continuation((unsigned char)l->buf[off]))
			off++;
	}
	return off;
}

/* Copies the character at off (with its marks) into piece, NUL-terminated
 * and cut to fit; returns where the next one starts. */
static size_t char_piece(const struct av_line *l, size_t off, char *piece, size_t size)
{
	size_t next = next_char(l, off);
	size_t k = next - off < size - 1 ? next - off : size - 1;
	memcpy(piece, l->buf + off, k);
	piece[k] = '\0';
	return next;
}

static void delete_range(struct av_line *l, size_t from, size_t to)
{
	if (to <= from)
		return;
	memmove(l->buf + from, l->buf + to, l->len - to + 1);
	l->len -= to - from;
	if (l->cur > to)
		l->cur -= to - from;
	else if (l->cur > from)
		l->cur = from;
}

bool av_line_replace(struct av_line *l, size_t from, size_t to, const char *text)
{
	size_t k = strlen(text);
	if (to > l->len)
		to = l->len;
	if (from > to)
		from = to;
	if (l->len - (to - from) + k > l->limit)
		return false;
	memmove(l->buf + from + k, l->buf + to, l->len - to + 1);
	memcpy(l->buf + from, text, k);
	l->len = l->len - (to - from) + k;
	l->cur = from + k;
	return true;
}

void av_line_set(struct av_line *l, const char *text, size_t limit)
{
	memset(l, 0, sizeof(*l));
	l->limit = limit < sizeof(l->buf) ? limit : sizeof(l->buf) - 1;
	size_t k = strlen(text);
	/* cut at a character boundary */
	while (k > l->limit ||
	       (k > 0 && k < strlen(text) && av_utf8_is_continuation((unsigned char)text[k])))
		k--;
	memcpy(l->buf, text, k);
	l->buf[k] = '\0';
	l->len = l->cur = k;
}

/* A key that types itself: printable, not a C0/C1 control or DEL. */
static bool printable(int key)
{
	return key >= 0x20 && key != 0x7f && key < 0x110000 && !(key >= 0x80 && key < 0xa0) &&
	       !(key >= 0xd800 && key < 0xe000);
}

static bool insert_cp(struct av_line *l, uint32_t cp)
{
	char enc[5];
	int k = av_utf8_encode(cp, enc);
	enc[k] = '\0';
	return av_line_replace(l, l->cur, l->cur, enc);
}

/* Back over the spaces before the cursor, then over the word. */
static size_t word_start(const struct av_line *l)
{
	size_t from = l->cur;
	while (from > 0 && av_cp_is_space(cp_at(l, prev_char(l, from))))
		from = prev_char(l, from);
	while (from > 0 && !av_cp_is_space(cp_at(l, prev_char(l, from))))
		from = prev_char(l, from);
	return from;
}

/* Where the word at or after the cursor ends (Alt-f, as readline). */
static size_t word_end(const struct av_line *l)
{
	size_t to = l->cur;
	while (to < l->len && av_cp_is_space(cp_at(l, to)))
		to = next_char(l, to);
	while (to < l->len && !av_cp_is_space(cp_at(l, to)))
		to = next_char(l, to);
	return to;
}

enum av_line_result av_line_key(struct av_line *l, int key)
{
	switch (av_edit_action_for_key(key)) {
	case AV_EDIT_APPLY: return AV_LINE_APPLY;
	case AV_EDIT_CANCEL: return AV_LINE_CANCEL;
	case AV_EDIT_LEFT: l->cur = prev_char(l, l->cur); return AV_LINE_MOVED;
	case AV_EDIT_RIGHT: l->cur = next_char(l, l->cur); return AV_LINE_MOVED;
	case AV_EDIT_WORD_LEFT: l->cur = word_start(l); return AV_LINE_MOVED;
	case AV_EDIT_WORD_RIGHT: l->cur = word_end(l); return AV_LINE_MOVED;
	case AV_EDIT_HOME: l->cur = 0; return AV_LINE_MOVED;
	case AV_EDIT_END: l->cur = l->len; return AV_LINE_MOVED;
	case AV_EDIT_BACKSPACE: delete_range(l, prev_char(l, l->cur), l->cur); break;
	case AV_EDIT_DELETE: delete_range(l, l->cur, next_char(l, l->cur)); break;
	case AV_EDIT_KILL_START: delete_range(l, 0, l->cur); break;
	case AV_EDIT_KILL_END: delete_range(l, l->cur, l->len); break;
	case AV_EDIT_KILL_WORD: delete_range(l, word_start(l), l->cur); break;
	case AV_EDIT_COMPLETE:
		return AV_LINE_UNUSED;
	case AV_EDIT_NONE:
	case AV_EDIT_COUNT:
		if (!printable(key))
			return AV_LINE_UNUSED;
		if (!insert_cp(l, (uint32_t)key))
			return AV_LINE_FULL;
		break;
	}
	return AV_LINE_CHANGED;
}

/* --- drawing ------------------------------------------------------------- */

#define TEXT_MIN 10

bool av_line_error_fits(const char *label, const char *error, int width)
{
	return av_text_width(label) + TEXT_MIN + av_text_width(error) + 2 <= width;
}

/* Columns of the text before the cursor. */
static int cursor_column(const struct av_line *l)
{
	int col = 0;
	for (size_t off = 0; off < l->cur;) {
		char piece[64];
		size_t next = char_piece(l, off, piece, sizeof(piece));
		col += av_text_width(piece);
		off = next;
	}
	return col;
}

void av_line_draw(WINDOW *w, const struct av_colors *c, const char *label,
		  struct av_line *l, const char *hint, bool error)
{
	if (!w)
		return;
	int width = getmaxx(w);
	werase(w);
	int x = av_put(w, 0, 0, label, width, av_colors_el(c, AV_EL_TITLE));
	/* an error takes what it needs of the right, leaving the text at
	 * least TEXT_MIN columns (it scrolls); a hint only what the whole
	 * text leaves, and none when that is too little to read */
	int hint_w = hint && *hint ? av_text_width(hint) + 2 : 0;
	int room = width - x - (error ? TEXT_MIN : av_text_width(l->buf) + 1);
	if (hint_w > room)
		hint_w = error || room >= 8 ? room : 0;
	if (hint_w < 0)
		hint_w = 0;
	int tw = width - x - hint_w - 1;
	if (tw < 1)
		tw = 1;

	int cur_col = cursor_column(l);
	if (cur_col < l->scroll)
		l->scroll = cur_col;
	if (cur_col >= l->scroll + tw)
		l->scroll = cur_col - tw + 2;
	/* text hidden at the left never leaves blank columns at the right: after
	 * deleting at the end the field scrolls back (the cursor's column at
	 * the end counts, as when typing) */
	int end = av_text_width(l->buf) + 1;
	if (l->scroll > 0 && end - l->scroll < tw - 1)
		l->scroll = end - tw + 1;
	if (l->scroll < 0)
		l->scroll = 0;
	/* the "…" of text hidden at the left stands in the label's last
	 * column when that is a space ("sentence> "); a label that ends in
	 * its sign (the prompt's ":") keeps it, and the marker takes the
	 * text's first column (it read "…own fox" with no ":") */
	size_t label_len = strlen(label);
	if (l->scroll > 0 && label_len > 0 && label[label_len - 1] != ' ' && tw > 2) {
		x++;
		tw--;
		if (cur_col >= l->scroll + tw)
			l->scroll = cur_col - tw + 2;
	}

	int col = 0;
	attr_t normal = av_colors_el(c, AV_EL_NORMAL), cursor = av_colors_el(c, AV_EL_CURSOR);
	for (size_t off = 0; off < l->len;) {
		char piece[64];
		size_t next = char_piece(l, off, piece, sizeof(piece));
		int pw = av_text_width(piece);
		if (col >= l->scroll) {
			if (col - l->scroll + pw > tw)
				break;
			av_put(w, 0, x + col - l->scroll, piece, pw, off == l->cur ? cursor : normal);
		}
		col += pw;
		off = next;
	}
	if (l->cur == l->len && cur_col - l->scroll < tw)
		av_fill(w, 0, x + cur_col - l->scroll, 1, cursor);
	if (l->scroll > 0 && x > 0)
		av_put(w, 0, x - 1, av_draw_utf8() ? "…" : "<", 1, av_colors_el(c, AV_EL_DIM));
	if (hint_w > 1)
		av_put(w, 0, width - hint_w + 1, hint, hint_w - 1,
		       av_colors_el(c, error ? AV_EL_ERROR : AV_EL_DIM));
	/* the terminal's cursor where the next character goes (the frame
	 * takes it back to this window while text is typed): an input
	 * method shows what it composes there, not over the hint */
	if (cur_col - l->scroll < tw)
		wmove(w, 0, x + cur_col - l->scroll);
}
