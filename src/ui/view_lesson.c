/* view_lesson.c: a guided lesson on the screen (--lesson). Not a view of its
 * own: the lesson runs over the views, and its caption sits in a pane of
 * rows kept at the bottom of the screen (the other regions are laid out in
 * the rows above, so every view fits unchanged). } and { go to the next and
 * previous step, R puts the step's state back after exploring, Enter answers
 * the step's question with the cell under the cursor. Every other key
 * explores freely.
 *
 * A step's state is applied through the engine (av_lesson_apply: sentence,
 * mode, scale, temperature, weights, training) and then the app's own fields
 * (stage, head, cursor, view). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "lesson/lesson.h"
#include "ui/app.h"
#include "ui/draw.h"
#include "ui/figview.h"
#include "utf8.h"
#include "util.h"

struct av_lesson_ui {
	const struct av_lesson *lesson;
	int step;
	enum av_lang lang;
};

/* zh_CN when the messages' locale is Chinese (LC_ALL, LC_MESSAGES, LANG in
 * POSIX order) and the terminal's characters are UTF-8, else English. */
static enum av_lang lang_from_env(void)
{
	if (!av_locale_is_utf8())
		return AV_LANG_EN;
	const char *vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return strncmp(v, "zh", 2) == 0 ? AV_LANG_ZH_CN : AV_LANG_EN;
	}
	return AV_LANG_EN;
}

int av_lesson_ui_rows(const struct av_app *a, int lines)
{
	if (!a->lesson)
		return 0;
	/* 7 rows at 24 lines (a title and six of text), up to 10 on taller
	 * screens (wide ones wrap less); none when the rest would not fit its
	 * minimum */
	int rows = 7 + (lines > 24 ? (lines - 24) / 4 : 0);
	if (rows > 10)
		rows = 10;
	if (lines - rows < AV_MIN_LINES)
		rows = lines - AV_MIN_LINES;
	return rows >= 3 ? rows : 0;
}

/* --- applying a step */

static void leave_views(struct av_app *a)
{
	/* the step sets the weights: whatever was trained here is dropped */
	av_train_view_free(a);
	av_pin_free(a);
	a->overlay = NULL;
	a->view = &av_view_stage;
}

static void show_view(struct av_app *a, const struct av_lesson_state *st)
{
	switch (st->view) {
	case AV_LVIEW_STEPPER:
		break;
	case AV_LVIEW_HEADS:
	case AV_LVIEW_BARS:
		a->view = &av_view_heads;
		a->heads_bars = st->view == AV_LVIEW_BARS;
		break;
	case AV_LVIEW_FIGURES:
		av_figures_show(a, (enum av_figure_kind)st->figure);
		break;
	case AV_LVIEW_TRAINING: {
		const struct av_lesson_train *t = &st->train;
		struct av_train_settings set = {
			.lr = t->lr, .optimizer = t->optimizer, .target = t->target,
			.params = AV_TRAIN_QKV,
		};
		av_train_view_open_trained(a, &set, t->epochs, t->steps);
		break;
	}
	}
}

static void go_to_step(struct av_app *a, int i)
{
	struct av_lesson_ui *lu = a->lesson;
	const struct av_lesson_state *st = &lu->lesson->steps[i].state;
	lu->step = i;
	leave_views(a);
	/* the training view runs the step's training itself, from the fresh
	 * weights, so its charts show the run from epoch 0 */
	struct av_lesson_state untrained = *st;
	if (st->view == AV_LVIEW_TRAINING)
		untrained.train.epochs = untrained.train.steps = 0;
	char *cause = NULL;
	if (!av_lesson_apply(lu->lesson, &untrained, a->s, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : _("cannot apply the step"));
		free(cause);
	}
	av_app_rerun_all(a);
	a->stage = (enum av_ui_stage)st->stage;
	a->head = st->head < a->s->trace.heads ? st->head : 0;
	a->row = st->query;
	a->col = st->key;
	/* the stepper places a column given this way in the stage's own result
	 * (the key), as when coming back from another view */
	a->hm.stage = -1;
	a->hm.own_first = 0;
	show_view(a, st);
	av_app_resize(a);
	a->dirty = AV_DIRTY_ALL;
}

bool av_lesson_ui_start(struct av_app *a, const struct av_lesson *l)
{
	a->lesson = av_calloc(1, sizeof *a->lesson);
	a->lesson->lesson = l;
	a->lesson->lang = lang_from_env();
	go_to_step(a, 0);
	return true;
}

void av_lesson_ui_free(struct av_app *a)
{
	free(a->lesson);
	a->lesson = NULL;
}

char *av_lesson_ui_label(const struct av_app *a)
{
	if (!a->lesson)
		return NULL;
	return av_printf(_("lesson %d/%d"), a->lesson->step + 1, a->lesson->lesson->n_steps);
}

static void answer(struct av_app *a)
{
	const struct av_lesson_step *st = &a->lesson->lesson->steps[a->lesson->step];
	if (!st->has_question) {
		av_app_message(a, false, _("this step asks nothing: } next step"));
		return;
	}
	if (a->view != &av_view_stage && a->view != &av_view_heads) {
		av_app_message(a, false, _("answer in the stepper: R puts the step back"));
		return;
	}
	char *explain = NULL;
	switch (av_lesson_check(&st->question, &a->s->trace, a->sel_query, a->sel_key,
				&explain)) {
	case AV_ANSWER_RIGHT:
		av_app_message(a, false, _("right!  } next step"));
		break;
	case AV_ANSWER_WRONG:
		av_app_message(a, true, _("not that one: look at the numbers again, then Enter"));
		break;
	case AV_ANSWER_NOT_NOW:
		av_app_message(a, true, _("cannot ask that now: %s (R puts the step back)"),
			       explain ? explain : "?");
		break;
	}
	free(explain);
}

void av_lesson_ui_action(struct av_app *a, enum av_action act)
{
	if (!a->lesson) {
		av_app_message(a, false, _("no lesson: start one with --lesson NAME "
			       "(--list-lessons)"));
		return;
	}
	int n = a->lesson->lesson->n_steps, i = a->lesson->step;
	switch (act) {
	case AV_ACTION_LESSON_NEXT:
		if (i + 1 < n)
			go_to_step(a, i + 1);
		else
			av_app_message(a, false, _("the last step: { goes back, q quits"));
		break;
	case AV_ACTION_LESSON_PREV:
		if (i > 0)
			go_to_step(a, i - 1);
		else
			av_app_message(a, false, _("the first step: } goes on"));
		break;
	case AV_ACTION_LESSON_RESTORE:
		go_to_step(a, i);
		break;
	case AV_ACTION_LESSON_ANSWER:
		answer(a);
		break;
	default:
		break;
	}
}

/* --- the caption pane */

/* Bytes of the longest prefix of s that fits width columns, broken after a
 * space (Latin text) or between two wide characters (CJK), else anywhere;
 * *next is where the following line starts (spaces skipped). */
static size_t wrap_line(const char *s, int width, const char **next)
{
	size_t len = strlen(s), i = 0, brk = 0;
	int cols = 0;
	while (i < len) {
		uint32_t cp;
		int n = av_utf8_decode(s + i, len - i, &cp);
		if (n < 0) {
			cp = '?';
			n = 1;
		}
		int w = av_cp_width(cp);
		if (cols + w > width)
			break;
		cols += w;
		i += (size_t)n;
		if (cp == ' ' || av_cp_is_wide(cp))
			brk = i;
	}
	if (i < len && brk > 0)
		i = brk;
	*next = s + i;
	while (**next == ' ')
		(*next)++;
	return i;
}

/* Rows the paragraphs take wrapped to width. */
static int wrapped_rows(const struct av_lesson_text *text, int width)
{
	int rows = 0;
	for (int p = 0; p < text->n_paragraphs; p++) {
		const char *s = text->paragraphs[p], *next;
		while (*s && wrap_line(s, width, &next) > 0) {
			rows++;
			s = next;
		}
	}
	return rows;
}

void av_lesson_ui_draw(struct av_app *a)
{
	WINDOW *w = a->w_lesson;
	if (!w || !a->lesson)
		return;
	const struct av_lesson_ui *lu = a->lesson;
	const struct av_lesson_step *st = &lu->lesson->steps[lu->step];
	const struct av_lesson_text *text = &st->text[lu->lang];
	struct av_colors *c = &a->colors;
	int width = getmaxx(w), height = getmaxy(w);
	werase(w);
	char *label = av_lesson_ui_label(a);
	char *head = av_printf("%s · %s", label, text->title);
	av_put_pad(w, 0, 0, head, width, av_colors_el(c, AV_EL_TITLE));
	const char *keys = st->has_question ? _("Enter answer  { } step  R back")
		: _("{ } step  R back");
	int kw = av_text_width(keys);
	if (av_text_width(head) + 2 + kw <= width)
		av_put(w, 0, width - kw, keys, kw, av_colors_el(c, AV_EL_DIM));
	free(head);
	free(label);
	/* an empty row between paragraphs when they all fit with it */
	bool gaps = wrapped_rows(text, width - 1) + text->n_paragraphs - 1 <= height - 1;
	int y = 1;
	for (int p = 0; p < text->n_paragraphs && y < height; p++) {
		const char *s = text->paragraphs[p];
		if (p > 0 && gaps)
			y++;
		while (*s && y < height) {
			const char *next;
			size_t n = wrap_line(s, width - 1, &next);
			if (n == 0)
				break;
			char *line = av_strndup(s, n);
			/* the last row, with more to come: end it in "…" (av_put
			 * writes one itself when it has to cut the line) */
			bool cut = y == height - 1 && *next;
			int room = width - 1 - (cut ? 2 : 0);
			av_put(w, y++, 1, line, room, av_colors_el(c, AV_EL_NORMAL));
			if (cut && av_text_width(line) <= room)
				av_put(w, y - 1, width - 2, av_draw_utf8() ? "…" : "~", 2,
				       av_colors_el(c, AV_EL_DIM));
			free(line);
			s = next;
		}
	}
	wnoutrefresh(w);
}
