/* view_edit.c: the sentence editor, an overlay on the status line. UTF-8
 * text with CJK (two columns a character), cursor keys, Backspace, Delete,
 * Ctrl-U/K/W; Enter applies, Esc cancels. The matrices recompute as the
 * person types, whenever the text runs (an empty text, say, does not: the
 * last good trace stays and the reason is shown). Keys: AV_EDIT_ACTIONS
 * in actions.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ui/actions.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "utf8.h"
#include "util.h"

/* --- the text ------------------------------------------------------------ */

static bool is_cont(char ch)
{
	return ((unsigned char)ch & 0xC0) == 0x80;
}

static uint32_t cp_at(const struct av_editor *ed, size_t off)
{
	uint32_t cp = '?';
	if (av_utf8_decode(ed->buf + off, ed->len - off, &cp) < 0)
		cp = '?';
	return cp;
}

/* The start of the character before off (combining marks stay with it). */
static size_t prev_char(const struct av_editor *ed, size_t off)
{
	while (off > 0) {
		off--;
		while (off > 0 && is_cont(ed->buf[off]))
			off--;
		if (off == 0 || av_cp_width(cp_at(ed, off)) != 0)
			break;
	}
	return off;
}

/* The end of the character at off, with the marks that follow it. */
static size_t next_char(const struct av_editor *ed, size_t off)
{
	if (off >= ed->len)
		return ed->len;
	off++;
	while (off < ed->len && is_cont(ed->buf[off]))
		off++;
	while (off < ed->len && av_cp_width(cp_at(ed, off)) == 0 && cp_at(ed, off) >= 0x20) {
		off++;
		while (off < ed->len && is_cont(ed->buf[off]))
			off++;
	}
	return off;
}

/* Copies the character at off (with its marks) into piece, NUL-terminated
 * and cut to fit; returns where the next one starts. */
static size_t char_piece(const struct av_editor *ed, size_t off, char *piece, size_t size)
{
	size_t next = next_char(ed, off);
	size_t k = next - off < size - 1 ? next - off : size - 1;
	memcpy(piece, ed->buf + off, k);
	piece[k] = '\0';
	return next;
}

static void delete_range(struct av_editor *ed, size_t from, size_t to)
{
	if (to <= from)
		return;
	memmove(ed->buf + from, ed->buf + to, ed->len - to + 1);
	ed->len -= to - from;
	if (ed->cur > to)
		ed->cur -= to - from;
	else if (ed->cur > from)
		ed->cur = from;
}

static bool insert_cp(struct av_editor *ed, uint32_t cp)
{
	char enc[4];
	int k = av_utf8_encode(cp, enc);
	if (ed->len + (size_t)k >= sizeof(ed->buf))
		return false;
	memmove(ed->buf + ed->cur + k, ed->buf + ed->cur, ed->len - ed->cur + 1);
	memcpy(ed->buf + ed->cur, enc, (size_t)k);
	ed->len += (size_t)k;
	ed->cur += (size_t)k;
	return true;
}

/* --- running it ---------------------------------------------------------- */

static void run_text(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	char *cause = NULL;
	bool ok = ed->source ? av_session_set_source(a->s, ed->buf, &cause)
			     : av_session_set_sentence(a->s, ed->buf, &cause);
	free(ed->error);
	ed->error = ok ? NULL : (cause ? cause : av_strdup("cannot run"));
	if (!ok)
		return;
	free(cause);
	a->dirty |= AV_DIRTY_ALL;
}

static void close_editor(struct av_app *a)
{
	a->overlay = NULL;
	free(a->ed.error);
	a->ed.error = NULL;
	a->dirty |= AV_DIRTY_ALL;
}

static void cancel(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	memcpy(a->s->key_hidden, ed->orig_hidden, sizeof(ed->orig_hidden));
	snprintf(ed->buf, sizeof(ed->buf), "%s", ed->orig);
	ed->len = strlen(ed->buf);
	run_text(a);
	close_editor(a);
	av_app_message(a, false, "edit cancelled");
}

static void apply(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	run_text(a);
	if (ed->error) {
		a->dirty |= AV_DIRTY_STATUS;
		return;   /* stay open: the text does not run yet */
	}
	close_editor(a);
	const struct av_trace *t = &a->s->trace;
	int n = ed->source ? t->source_tokens.n : t->tokens.n;
	av_app_message(a, false, "%s: %d token%s", ed->source ? "source" : "sentence", n,
		       n == 1 ? "" : "s");
}

/* --- drawing ------------------------------------------------------------- */

static void edit_draw(struct av_app *a)
{
	WINDOW *w = a->w_status;
	if (!w)
		return;
	struct av_editor *ed = &a->ed;
	struct av_colors *c = &a->colors;
	int width = getmaxx(w);
	werase(w);
	const char *prompt = ed->source ? "source> " : "sentence> ";
	int x = av_put(w, 0, 0, prompt, width, av_colors_el(c, AV_EL_TITLE));
	const char *hint = ed->error ? ed->error : "Enter apply  Esc cancel";
	int hint_w = av_text_width(hint) + 2;
	if (hint_w > width / 3)
		hint_w = width / 3;
	int tw = width - x - hint_w - 1;
	if (tw < 8)
		tw = width - x - 1;

	/* columns before the cursor, and the scroll that keeps it in view */
	int cur_col = 0;
	for (size_t off = 0; off < ed->cur;) {
		char piece[64];
		size_t next = char_piece(ed, off, piece, sizeof(piece));
		cur_col += av_text_width(piece);
		off = next;
	}
	if (cur_col < ed->scroll)
		ed->scroll = cur_col;
	if (cur_col >= ed->scroll + tw)
		ed->scroll = cur_col - tw + 2;
	if (ed->scroll < 0)
		ed->scroll = 0;

	int col = 0;
	attr_t normal = av_colors_el(c, AV_EL_NORMAL), cursor = av_colors_el(c, AV_EL_CURSOR);
	for (size_t off = 0; off < ed->len;) {
		char piece[64];
		size_t next = char_piece(ed, off, piece, sizeof(piece));
		int pw = av_text_width(piece);
		if (col >= ed->scroll) {
			if (col - ed->scroll + pw > tw)
				break;
			av_put(w, 0, x + col - ed->scroll, piece, pw, off == ed->cur ? cursor : normal);
		}
		col += pw;
		off = next;
	}
	if (ed->cur == ed->len && cur_col - ed->scroll < tw)
		av_fill(w, 0, x + cur_col - ed->scroll, 1, cursor);
	if (ed->scroll > 0)
		av_put(w, 0, x - 1, av_draw_utf8() ? "…" : "<", 1, av_colors_el(c, AV_EL_DIM));
	av_put(w, 0, width - hint_w + 1, hint, hint_w - 1,
	       ed->error ? av_colors_el(c, AV_EL_ERROR) : av_colors_el(c, AV_EL_DIM));
}

/* --- keys ---------------------------------------------------------------- */

static bool edit_key(struct av_app *a, int key, enum av_action act)
{
	struct av_editor *ed = &a->ed;
	bool changed = false;
	(void)act;
	switch (av_edit_action_for_key(key)) {
	case AV_EDIT_APPLY: apply(a); return true;
	case AV_EDIT_CANCEL: cancel(a); return true;
	case AV_EDIT_LEFT: ed->cur = prev_char(ed, ed->cur); break;
	case AV_EDIT_RIGHT: ed->cur = next_char(ed, ed->cur); break;
	case AV_EDIT_HOME: ed->cur = 0; break;
	case AV_EDIT_END: ed->cur = ed->len; break;
	case AV_EDIT_BACKSPACE:
		delete_range(ed, prev_char(ed, ed->cur), ed->cur);
		changed = true;
		break;
	case AV_EDIT_DELETE:
		delete_range(ed, ed->cur, next_char(ed, ed->cur));
		changed = true;
		break;
	case AV_EDIT_KILL_START:
		delete_range(ed, 0, ed->cur);
		changed = true;
		break;
	case AV_EDIT_KILL_END:
		delete_range(ed, ed->cur, ed->len);
		changed = true;
		break;
	case AV_EDIT_KILL_WORD: {
		size_t from = ed->cur;
		while (from > 0 && av_cp_is_space(cp_at(ed, prev_char(ed, from))))
			from = prev_char(ed, from);
		while (from > 0 && !av_cp_is_space(cp_at(ed, prev_char(ed, from))))
			from = prev_char(ed, from);
		delete_range(ed, from, ed->cur);
		changed = true;
		break;
	}
	case AV_EDIT_NONE:
	case AV_EDIT_COUNT:
		if (key >= 0x20 && key != 0x7f && key < 0x110000 && !(key >= 0x80 && key < 0xa0)) {
			changed = insert_cp(ed, (uint32_t)key);
			if (!changed)
				av_app_message(a, true, "the text is at its length limit");
		}
		break;
	}
	if (changed)
		run_text(a);
	a->dirty |= AV_DIRTY_STATUS;
	return true;
}

static void edit_resize(struct av_app *a)
{
	a->ed.scroll = 0;
}

const struct av_view av_view_edit = {
	.name = "edit",
	.owns_status = true,
	.draw = edit_draw,
	.key = edit_key,
	.resize = edit_resize,
};
