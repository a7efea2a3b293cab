/* view_edit.c: the sentence editor, an overlay on the status line. UTF-8
 * text with CJK (two columns a character), cursor keys, Backspace, Delete,
 * Ctrl-U/K/W (line_edit.c); Enter applies, Esc cancels. The matrices
 * recompute as the person types, whenever the text runs (an empty text,
 * say, does not: the last good trace stays and the reason is shown): once
 * per frame, however many keys arrived for it (av_editor_settle).
 *
 * The source sentence can be typed outside cross mode too (c with no
 * source, or E in self or causal mode): it is not used there, so it is only
 * checked as it is typed, and Enter then switches to cross mode (c) or asks
 * whether to (E). Keys: AV_EDIT_ACTIONS in actions.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "restricted_limits.h"
#include "ui/actions.h"
#include "ui/app.h"
#include "ui/widgets/draw.h"
#include "ui/keyboard.h"
#include "ui/views/model_ui.h"
#include "ui/prompt.h"
#include "util.h"

/* The source is typed for a mode that does not use it yet. */
static bool for_later(const struct av_app *a)
{
	return a->ed.source && a->s->cfg.mode != AV_MODE_CROSS;
}

/* Outside cross mode: whether the text would make a source (tokenizes). */
static void check_text(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	struct av_tokens probe = { 0 };
	char *cause = NULL;
	free(ed->error);
	ed->error = NULL;
	if (!av_tokenize_source(ed->line.buf, &probe, &cause)) {
		ed->error = cause ? cause : av_strdup(_("not a sentence"));
		return;
	}
	av_tokens_free(&probe);
}

static void run_text(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	ed->pending = false;
	if (for_later(a)) {
		check_text(a);
		return;
	}
	char *cause = NULL;
	bool ok = a->model ? av_model_ui_set_sentence(a, ed->line.buf, &cause)
		  : av_session_set_text(a->s, ed->source, ed->line.buf,
					av_app_frame_without_context(a), &cause);
	free(ed->error);
	ed->error = ok ? NULL : (cause ? cause : av_strdup(_("cannot run")));
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
	if (for_later(a)) {
		/* nothing ran: the old source (or none) stays */
		bool by_c = a->ed.then == AV_THEN_CROSS && !a->s->source;
		close_editor(a);
		/* c asked for it on its way from causal to cross: c again
		 * asks again, so a learner cycling the modes was stuck */
		if (by_c)
			av_app_message(a, false, _("edit cancelled: cross mode needs a source; "
						   "still causal (m for self)"));
		else
			av_app_message(a, false, _("edit cancelled"));
		return;
	}
	memcpy(a->s->key_hidden, ed->orig_hidden, sizeof(ed->orig_hidden));
	av_line_set(&ed->line, ed->orig ? ed->orig : "", ed->line.limit);
	run_text(a);
	close_editor(a);
	av_app_message(a, false, _("edit cancelled"));
}

/* Enter on a source typed outside cross mode: keep it, then switch (c) or
 * ask (E). */
static void apply_for_later(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	struct av_session *s = a->s;
	char *old = s->source;
	s->source = av_strdup(ed->line.buf);
	if (ed->then == AV_THEN_ASK_CROSS) {
		free(old);
		close_editor(a);
		av_app_offer_cross(a);
		return;
	}
	if (!av_app_set_mode(a, AV_MODE_CROSS)) {
		/* it does not run (too long for the positions, say): say why */
		free(s->source);
		s->source = old;
		free(ed->error);
		ed->error = av_strdup(a->message ? a->message : _("cannot run"));
		a->dirty |= AV_DIRTY_STATUS;
		return;
	}
	free(old);
	free(ed->error);
	ed->error = NULL;
	a->overlay = NULL;
	a->dirty |= AV_DIRTY_ALL;
}

static void apply(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	/* Enter on the text the editor opened with changes nothing: said so,
	 * as :sentence does, not "sentence: N tokens" as if it had */
	bool same = ed->orig && strcmp(ed->line.buf, ed->orig) == 0;
	run_text(a);
	if (ed->error) {
		a->dirty |= AV_DIRTY_STATUS;
		return;   /* stay open: the text does not run yet */
	}
	if (for_later(a)) {
		apply_for_later(a);
		return;
	}
	close_editor(a);
	if (a->model && av_model_ui_busy(a)) {
		/* the old run stays on screen until the new one swaps in */
		av_app_message(a, false, _("computing the model on the new sentence…"));
		return;
	}
	if (ed->source)
		av_app_say_source(a, same);
	else
		av_app_say_sentence(a, same);
}

/* --- drawing and keys ---------------------------------------------------- */

static const char *edit_label(const struct av_editor *ed)
{
	return ed->source ? _("source> ") : _("sentence> ");
}

/* Why the text does not run, or that bytes were ignored: NULL if neither. */
static const char *edit_error(const struct av_editor *ed)
{
	return ed->error ? ed->error : ed->not_utf8 ? av_keyboard_not_utf8_text() : NULL;
}

/* An error too long for the line beside the text: shown above it. */
static const char *edit_long_text(struct av_app *a, int width, bool *error)
{
	const char *e = edit_error(&a->ed);
	*error = true;
	return e && !av_line_error_fits(edit_label(&a->ed), e, width) ? e : NULL;
}

static void edit_draw(struct av_app *a)
{
	struct av_editor *ed = &a->ed;
	const char *error = edit_error(ed);
	bool error_style;
	/* an error shown whole above the line is not cut here as well */
	bool above = edit_long_text(a, getmaxx(a->w_status), &error_style) != NULL;
	const char *hint = above ? ""
			 : error ? error
			 : ed->then == AV_THEN_CROSS ? _("the source (keys, values)  Enter: cross mode")
			 : for_later(a) ? _("the source for cross mode  Enter  Esc")
			 : a->model && av_model_ui_busy(a) ? _("computing…")
			 : _("Enter apply  Esc cancel");
	av_line_draw(a->w_status, &a->colors, edit_label(ed), &ed->line, hint, error && !above);
	if (ed->not_utf8)
		ed->not_utf8 = 2;
}

/* Says text (malloc'd, taken) where the hint is, in the error style: the
 * editor owns the status line, so a message would wait until it closes.
 * The next change or Enter clears it. */
static void say_in_hint(struct av_app *a, char *text)
{
	struct av_editor *ed = &a->ed;
	if (ed->pending)
		run_text(a);   /* the frame's earlier keys first: it clears the error */
	free(ed->error);
	ed->error = text;
}

/* A character did not fit. */
static void full(struct av_app *a)
{
	say_in_hint(a, a->restricted
		       ? av_printf(_("restricted mode: a sentence has at most %zu bytes"),
				   a->ed.line.limit)
		       : av_strdup(_("the text is at its length limit")));
}

/* Tab completes the : prompt's commands; here it would do nothing. A
 * pasted Tab is a space and never comes here. */
static void tab(struct av_app *a)
{
	say_in_hint(a, av_strdup(_("Tab completes only in the : prompt")));
}

static bool edit_key(struct av_app *a, int key, enum av_action act)
{
	(void)act;
	/* said until a key after it was seen: text pasted with it does not
	 * hide it in the same frame */
	if (key == AV_KEY_NOT_UTF8) {
		a->ed.not_utf8 = 1;
		a->dirty |= AV_DIRTY_STATUS;
		return true;
	}
	if (a->ed.not_utf8 == 2)
		a->ed.not_utf8 = 0;
	switch (av_line_key(&a->ed.line, key)) {
	case AV_LINE_APPLY: apply(a); return true;
	case AV_LINE_CANCEL: cancel(a); return true;
	case AV_LINE_CHANGED: a->ed.pending = true; break;   /* runs before the frame */
	case AV_LINE_FULL: full(a); break;
	case AV_LINE_UNUSED:
		if (av_edit_action_for_key(key) == AV_EDIT_COMPLETE)
			tab(a);
		break;
	case AV_LINE_MOVED: break;
	}
	a->dirty |= AV_DIRTY_STATUS;
	return true;
}

void av_editor_settle(struct av_app *a)
{
	if (a->overlay != &av_view_edit || !a->ed.pending)
		return;
	run_text(a);
	a->dirty |= AV_DIRTY_STATUS;
}

static void edit_resize(struct av_app *a)
{
	a->ed.line.scroll = 0;
}

/* The most bytes the text may have: with --restricted the limit of a
 * sentence on the command line, or the text's own length when a teacher's
 * sentence (a follower's) is longer, so opening the editor never cuts it. */
static size_t editor_limit(const struct av_app *a, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	if (!a->restricted)
		return AV_MAX_SENTENCE_BYTES;
	return len > AV_RESTRICTED_MAX_SENTENCE_BYTES ? len : AV_RESTRICTED_MAX_SENTENCE_BYTES;
}

void av_editor_open(struct av_app *a, bool source, enum av_edit_then then)
{
	struct av_session *s = a->s;
	struct av_editor *ed = &a->ed;
	free(ed->orig);
	free(ed->error);
	memset(ed, 0, sizeof(*ed));
	ed->source = source;
	ed->then = then;
	const char *text = source ? s->source : s->sentence;
	ed->orig = text ? av_strdup(text) : NULL;
	av_line_set(&ed->line, text ? text : "", editor_limit(a, text));
	memcpy(ed->orig_hidden, s->key_hidden, sizeof(ed->orig_hidden));
	a->overlay = &av_view_edit;
	a->dirty |= AV_DIRTY_STATUS;
	if (for_later(a) && ed->line.len)
		check_text(a);
}

const struct av_view av_view_edit = {
	.name = "edit",
	.owns_status = true,
	.long_text = edit_long_text,
	.draw = edit_draw,
	.key = edit_key,
	.resize = edit_resize,
};
