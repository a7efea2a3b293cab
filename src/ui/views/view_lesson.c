/* view_lesson.c: a guided lesson on the screen (--lesson). Not a view of its
 * own: the lesson runs over the views, and its caption sits in a pane of
 * rows kept at the bottom of the screen (the other regions are laid out in
 * the rows above, so every view fits unchanged). } and { go to the next and
 * previous step, R puts the step's state back after exploring, Enter answers
 * the step's question with the cell under the cursor, J and K scroll a
 * caption longer than the pane (back to its top on every step). Every
 * other key explores freely.
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
#include "ui/layout.h"
#include "ui/prompt.h"
#include "ui/stages.h"
#include "ui/widgets/draw.h"
#include "ui/views/figview.h"
#include "ui/views/view_heads_internal.h"
#include "utf8.h"
#include "util.h"

struct av_lesson_ui {
	const struct av_lesson *lesson;
	int step;
	enum av_lang lang;
	int scroll;                   /* the caption's first row shown */
	bool trained;                 /* the step trained the weights in the stepper */
	uint64_t trained_print;       /* and left these (av_params_print) */
	void (*after_discard)(struct av_app *a);   /* r or :seed, once asked */
	const struct av_view *drawn_overlay;       /* the overlay the bar's keys
						      were drawn for */
};

/* The pane's fewest rows: a title and two rows to scroll with J/K. */
#define PANE_MIN_ROWS 3

/* The figure's minimum height: cross mode has a second row of tokens. */
static int figure_lines(const struct av_app *a)
{
	return av_layout_min_lines(a->s->trace.cfg.mode == AV_MODE_CROSS ? 2 : 1);
}

bool av_lesson_ui_keys_stale(const struct av_app *a)
{
	return a->lesson && a->lesson->drawn_overlay != a->overlay;
}

int av_lesson_ui_rows(const struct av_app *a, int lines)
{
	if (!a->lesson)
		return 0;
	/* 7 rows at 24 lines (a title and six of text), up to 10 on taller
	 * screens (wide ones wrap less); fewer when the figure would not fit its
	 * minimum, and none below 3 (a title and two rows to scroll with J/K) */
	int rows = 7 + (lines > 24 ? (lines - 24) / 4 : 0);
	if (rows > 10)
		rows = 10;
	/* the all-heads grid needs height most (two rows of tiles, each with
	 * its head's name and key labels): a title and three rows there, the
	 * rest of the caption a J away */
	if (a->view == &av_view_heads && !a->heads_bars && rows > 4)
		rows = 4;
	if (lines - rows < figure_lines(a))
		rows = lines - figure_lines(a);
	return rows >= PANE_MIN_ROWS ? rows : 0;
}

char *av_lesson_ui_hidden_text(const struct av_app *a, int lines, int cols)
{
	if (!a->lesson || av_lesson_ui_rows(a, lines) > 0)
		return NULL;
	int step = a->lesson->step + 1, n = a->lesson->lesson->n_steps;
	int need = figure_lines(a) + PANE_MIN_ROWS;
	/* TRANSLATORS: the status line when the terminal is too short for a
	 * lesson's caption; the last %d is the terminal's height it needs, in
	 * lines (not the caption's length) */
	char *text = av_printf(_("lesson %d/%d: the caption needs a terminal of %d lines or more"),
			       step, n, need);
	if (av_text_width(text) <= cols)
		return text;
	free(text);
	/* TRANSLATORS: the same, short enough for 40 columns: no caption on a
	 * terminal of fewer than %d lines */
	return av_printf(_("lesson %d/%d: no caption below %d lines"), step, n, need);
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
	lu->scroll = 0;
	leave_views(a);
	/* the training view runs the step's training itself, from the fresh
	 * weights, so its charts show the run from epoch 0 */
	struct av_lesson_state untrained = *st;
	if (st->view == AV_LVIEW_TRAINING)
		untrained.train.epochs = untrained.train.steps = 0;
	char *cause = NULL;
	lu->trained = false;
	if (!av_lesson_apply(lu->lesson, &untrained, a->s, &cause)) {
		av_app_message(a, true, "%s", cause ? cause : _("cannot apply the step"));
		free(cause);
	} else if (untrained.train.epochs + untrained.train.steps > 0) {
		lu->trained = true;
		lu->trained_print = av_params_print(&a->s->params);
	}
	av_app_rerun_all(a);
	a->stage = (enum av_stage)st->stage;
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

bool av_lesson_ui_start(struct av_app *a, const struct av_lesson *l, int step)
{
	a->lesson = av_calloc(1, sizeof *a->lesson);
	a->lesson->lesson = l;
	a->lesson->lang = av_i18n_text_in_chinese() ? AV_LANG_ZH_CN : AV_LANG_EN;
	go_to_step(a, step >= 0 && step < l->n_steps ? step : 0);
	return true;
}

void av_lesson_ui_free(struct av_app *a)
{
	free(a->lesson);
	a->lesson = NULL;
}

const char *av_lesson_ui_name(const struct av_app *a, int *step)
{
	if (!a->lesson)
		return NULL;
	*step = a->lesson->step;
	return a->lesson->lesson->name;
}

uint64_t av_lesson_ui_text_hash(const struct av_app *a)
{
	return a->lesson ? a->lesson->lesson->text_hash : 0;
}

const struct av_lesson_state *av_lesson_ui_trained_step(const struct av_app *a)
{
	const struct av_lesson_ui *lu = a->lesson;
	if (!lu || !lu->trained || av_params_print(&a->s->params) != lu->trained_print)
		return NULL;
	return &lu->lesson->steps[lu->step].state;
}

bool av_lesson_ui_weights_trained(const struct av_app *a, int *epochs, int *steps)
{
	const struct av_lesson_state *st = av_lesson_ui_trained_step(a);
	if (!st)
		return false;
	*epochs = st->train.epochs;
	*steps = st->train.steps;
	return true;
}

static void discard_answer(struct av_app *a, bool yes)
{
	void (*then)(struct av_app *) = a->lesson ? a->lesson->after_discard : NULL;
	if (a->lesson)
		a->lesson->after_discard = NULL;
	if (yes && then)
		then(a);
	else if (!yes)
		av_app_message(a, false, _("kept: the step's trained weights are still here"));
}

/* The step's training is no more lost than a run that was saved (R trains
 * it again), but r dropped it without a word where the free stepper asks
 * (QA): a learner who pressed r did not know the caption's weights had
 * gone. q does not ask: the lesson still has them. */
bool av_lesson_ui_ask_discard(struct av_app *a, void (*then)(struct av_app *a))
{
	int epochs, steps;
	if (!av_lesson_ui_weights_trained(a, &epochs, &steps) || a->layout.too_small)
		return false;
	a->lesson->after_discard = then;
	char *question = av_discard_question(epochs, steps);
	av_prompt_ask(a, question, discard_answer);
	free(question);
	return true;
}

bool av_lesson_ui_go(struct av_app *a, int step)
{
	if (!a->lesson || step < 0 || step >= a->lesson->lesson->n_steps)
		return false;
	go_to_step(a, step);
	return true;
}

char *av_lesson_ui_label(const struct av_app *a)
{
	if (!a->lesson)
		return NULL;
	return av_printf(_("lesson %d/%d"), a->lesson->step + 1, a->lesson->lesson->n_steps);
}

const char *av_lesson_ui_title(const struct av_app *a)
{
	return a->lesson ? a->lesson->lesson->title[a->lesson->lang] : NULL;
}

static bool same_text(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

int av_lesson_ui_marks(const struct av_app *a, const int (**cells)[2])
{
	*cells = NULL;
	if (!a->lesson)
		return 0;
	const struct av_lesson_step *st = &a->lesson->lesson->steps[a->lesson->step];
	const struct av_lesson_state *want = &st->state;
	const struct av_session *s = a->s;
	/* the cells are positions in the step's sentence: another sentence (or
	 * source, or cross on or off, which changes the keys) has other tokens
	 * there, so the marks go until R puts the step back */
	if (!same_text(s->sentence, want->sentence) || !same_text(s->source, want->source) ||
	    (s->cfg.mode == AV_MODE_CROSS) != (want->mode == AV_MODE_CROSS))
		return 0;
	*cells = (const int (*)[2])st->highlight;
	return st->n_highlight;
}

bool av_lesson_ui_marked(const struct av_app *a, int query, int key)
{
	const int (*cells)[2];
	int n = av_lesson_ui_marks(a, &cells);
	for (int i = 0; i < n; i++)
		if (cells[i][0] == query && cells[i][1] == key)
			return true;
	return false;
}

/* The question's numbers are those of its stage: on another the cursor's
 * cell is another matrix's (at the output stage not even a key), and a
 * right key there read "not that one" (QA). Says which stage and how far
 * n or p is from it, as for a wrong head; true when it did. */
static bool wrong_stage(struct av_app *a, int want)
{
	bool sub;
	enum av_stage shown = a->view != &av_view_heads ? a->stage
			      : a->heads_bars ? av_heads_bars_stage(a->stage, &sub)
			      : av_heads_grid_stage(a->stage, &sub);
	if ((int)shown == want)
		return false;
	int d = want - (int)a->stage;
	const char *name = _(av_ui_stage_titles[want]);
	if (d > 0)
		av_app_message(a, true, P_("the question is about the %s stage, %d stage on: "
					   "n to it, then Enter",
					   "the question is about the %s stage, %d stages on: "
					   "n to it, then Enter", d), name, d);
	else
		av_app_message(a, true, P_("the question is about the %s stage, %d stage back: "
					   "p to it, then Enter",
					   "the question is about the %s stage, %d stages back: "
					   "p to it, then Enter", -d), name, -d);
	return true;
}

static void answer(struct av_app *a)
{
	const struct av_lesson_step *st = &a->lesson->lesson->steps[a->lesson->step];
	if (!st->has_question) {
		/* the last step has no next one to point to */
		bool last = a->lesson->step + 1 == a->lesson->lesson->n_steps;
		av_app_message(a, false, "%s", last ? _("this step asks nothing, and it is the last:"
							" q quits")
			       : _("this step asks nothing: } next step"));
		return;
	}
	if (a->view != &av_view_stage && a->view != &av_view_heads) {
		av_app_message(a, false, _("answer in the stepper: R puts the step back"));
		return;
	}
	char *explain = NULL;
	enum av_answer got = av_lesson_check(&st->question, &a->s->trace, a->head, a->sel_query,
					     a->sel_key, &explain);
	if (got != AV_ANSWER_NOT_NOW && wrong_stage(a, st->question.stage)) {
		free(explain);
		return;
	}
	switch (got) {
	case AV_ANSWER_RIGHT:
		av_app_message(a, false, _("right!  } next step"));
		break;
	case AV_ANSWER_WRONG:
		av_app_message(a, true, _("not that one: look at the numbers again, then Enter"));
		break;
	case AV_ANSWER_CURSOR_ELSEWHERE:
		/* explain names the row (or column) the question is about */
		av_app_message(a, true, "%s", explain ? explain : "?");
		break;
	case AV_ANSWER_NOT_NOW:
		av_app_message(a, true, _("cannot ask that now: %s (R puts the step back)"),
			       explain ? explain : "?");
		break;
	}
	free(explain);
}

static void scroll_caption(struct av_app *a, int dir);

/* What R puts back, as seen in the stepper or the heads view (the cursor
 * placed as the screen shows it): equal before and after R, R changed
 * nothing and says so rather than stay silent. The training and figures
 * views, a pin and training kept in the stepper always count as changed:
 * R rebuilds them. */
struct step_look {
	bool comparable;
	const struct av_view *view;
	bool heads_bars;
	enum av_stage stage;
	int head, row, col, scroll;
	enum av_mode mode;
	enum av_scale scale;
	double temperature;
	uint64_t params;
	char *sentence, *source;         /* copies */
	bool hidden[AV_MAX_TOKENS];
};

static void look_at(struct av_app *a, struct step_look *l)
{
	const struct av_session *s = a->s;
	l->comparable = !a->overlay && !a->train && !a->pin && !a->figures &&
			(a->view == &av_view_stage || a->view == &av_view_heads);
	l->sentence = l->source = NULL;
	if (!l->comparable)
		return;
	av_app_place_cursor(a);
	l->view = a->view;
	l->heads_bars = a->heads_bars;
	l->stage = a->stage;
	l->head = a->head;
	l->row = a->row;
	l->col = a->col;
	l->scroll = a->lesson->scroll;
	l->mode = s->cfg.mode;
	l->scale = s->cfg.scale;
	l->temperature = s->cfg.temperature;
	l->params = av_params_print(&s->params);
	l->sentence = s->sentence ? av_strdup(s->sentence) : NULL;
	l->source = s->source ? av_strdup(s->source) : NULL;
	memcpy(l->hidden, s->key_hidden, sizeof(l->hidden));
}

static bool same_look(const struct step_look *x, const struct step_look *y)
{
	return x->comparable && y->comparable && x->view == y->view &&
	       x->heads_bars == y->heads_bars && x->stage == y->stage && x->head == y->head &&
	       x->row == y->row && x->col == y->col && x->scroll == y->scroll &&
	       x->mode == y->mode && x->scale == y->scale && x->temperature == y->temperature &&
	       x->params == y->params && same_text(x->sentence, y->sentence) &&
	       same_text(x->source, y->source) &&
	       memcmp(x->hidden, y->hidden, sizeof(x->hidden)) == 0;
}

/* R: the step's state again; "nothing to put back" when it was already. */
static void restore(struct av_app *a)
{
	struct step_look before, after = { .comparable = false };
	look_at(a, &before);
	go_to_step(a, a->lesson->step);
	if (before.comparable && !a->message) {
		look_at(a, &after);
		if (same_look(&before, &after))
			av_app_message(a, false, _("nothing to put back: this is the step's state "
				       "({ } change steps)"));
	}
	free(before.sentence);
	free(before.source);
	free(after.sentence);
	free(after.source);
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
		restore(a);
		break;
	case AV_ACTION_LESSON_ANSWER:
		answer(a);
		break;
	case AV_ACTION_LESSON_CAPTION_DOWN:
		scroll_caption(a, 1);
		break;
	case AV_ACTION_LESSON_CAPTION_UP:
		scroll_caption(a, -1);
		break;
	default:
		break;
	}
}

/* --- the caption pane */

/* The caption wrapped to width: one entry a screen row, a paragraph's
 * line (text, len) or an empty row between paragraphs (text NULL). */
struct caption_line {
	const char *text;
	size_t len;
};

struct caption_lines {
	struct caption_line *v;
	int n, cap;
};

static void add_line(struct caption_lines *cl, const char *text, size_t len)
{
	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? 2 * cl->cap : 16;
		cl->v = av_realloc(cl->v, (size_t)cl->cap, sizeof *cl->v);
	}
	cl->v[cl->n++] = (struct caption_line){ text, len };
}

static void wrap_caption(const struct av_lesson_text *text, int width, bool gaps,
			 struct caption_lines *cl)
{
	cl->n = 0;
	for (int p = 0; p < text->n_paragraphs; p++) {
		if (p > 0 && gaps)
			add_line(cl, NULL, 0);
		const char *s = text->paragraphs[p], *next;
		size_t n;
		while (*s && (n = av_wrap_line(s, width, av_text_width, &next)) > 0) {
			add_line(cl, s, n);
			s = next;
		}
	}
}

/* The caption as the pane shows it, for rows text rows of a pane width
 * columns wide: with empty rows between paragraphs when everything fits
 * with them, else without; when even that does not fit, wrapped narrower
 * to leave the right edge to the scroll marks ("▲", "▼ more"). Returns
 * whether it scrolls. */
#define SCROLL_MARK_W 8   /* "▼ more" (6 columns), a space before it and the edge */
static bool layout_caption(const struct av_lesson_text *text, int width, int rows,
			   struct caption_lines *cl)
{
	wrap_caption(text, width - 1, true, cl);
	if (cl->n <= rows)
		return false;
	wrap_caption(text, width - 1, false, cl);
	if (cl->n <= rows)
		return false;
	wrap_caption(text, width - 1 - SCROLL_MARK_W, true, cl);
	return true;
}

/* Keeps the caption's scroll inside its rows. */
static int clamp_scroll(int scroll, int lines, int rows)
{
	int most = lines > rows ? lines - rows : 0;
	return scroll < 0 ? 0 : scroll > most ? most : scroll;
}

/* J and K: a pane's height less one row a key, so a line read last stays
 * in view. */
static void scroll_caption(struct av_app *a, int dir)
{
	struct av_lesson_ui *lu = a->lesson;
	WINDOW *w = a->w_lesson;
	if (!w) {
		av_app_message(a, false, _("the caption is hidden: the terminal is too small"));
		return;
	}
	const struct av_lesson_text *text = &lu->lesson->steps[lu->step].text[lu->lang];
	int rows = getmaxy(w) - 1;
	struct caption_lines cl = { 0 };
	bool scrolls = layout_caption(text, getmaxx(w), rows, &cl);
	free(cl.v);
	if (!scrolls) {
		av_app_message(a, false, _("the whole caption is shown"));
		return;
	}
	int step = rows > 1 ? rows - 1 : 1;
	lu->scroll = clamp_scroll(lu->scroll + dir * step, cl.n, rows);
	a->dirty |= AV_DIRTY_HEADER;
}

void av_lesson_ui_draw(struct av_app *a)
{
	WINDOW *w = a->w_lesson;
	if (!w || !a->lesson)
		return;
	struct av_lesson_ui *lu = a->lesson;
	const struct av_lesson_step *st = &lu->lesson->steps[lu->step];
	const struct av_lesson_text *text = &st->text[lu->lang];
	struct av_colors *c = &a->colors;
	const bool utf8 = av_draw_utf8();
	int width = getmaxx(w), height = getmaxy(w), rows = height - 1;
	werase(w);
	struct caption_lines cl = { 0 };
	bool scrolls = layout_caption(text, width, rows, &cl);
	lu->scroll = clamp_scroll(lu->scroll, cl.n, rows);

	char *label = av_lesson_ui_label(a);
	/* the title cut after a whole word ("Remedy: Xavier initialis…" at
	 * 40 columns), or left out: the step's number stays whole */
	char *title = av_cut_words(text->title, width - av_text_width(label) - 3);
	char *head = *title ? av_printf("%s · %s", label, title) : av_strdup(label);
	free(title);
	av_put_pad(w, 0, 0, head, width, av_colors_el(c, AV_EL_TITLE));
	/* the keys, as many as fit after the title, the first the most needed;
	 * none while the editor, the prompt or the help takes the keys (Enter
	 * applies the text there, { types a brace) */
	const char *hints[4];
	int nh = 0;
	if (st->has_question && !a->overlay)
		hints[nh++] = _("Enter answer");
	if (scrolls && !a->overlay)
		hints[nh++] = _("J/K caption");
	if (!a->overlay) {
		hints[nh++] = _("{ } step");
		hints[nh++] = _("R back");
	}
	char keys[256] = "";
	for (int i = 0; i < nh; i++) {
		char more[256];
		int len = snprintf(more, sizeof(more), "%s%s%s", keys, *keys ? "  " : "", hints[i]);
		if (len < 0 || (size_t)len >= sizeof(more) ||
		    av_text_width(head) + 2 + av_text_width(more) > width)
			break;
		snprintf(keys, sizeof(keys), "%s", more);
	}
	lu->drawn_overlay = a->overlay;
	int kw = av_text_width(keys);
	if (kw > 0)
		av_put(w, 0, width - kw, keys, kw, av_colors_el(c, AV_EL_DIM));
	free(head);
	free(label);

	for (int r = 0; r < rows && lu->scroll + r < cl.n; r++) {
		const struct caption_line *ln = &cl.v[lu->scroll + r];
		if (!ln->text)
			continue;
		char *line = av_strndup(ln->text, ln->len);
		av_put(w, 1 + r, 1, line, width - 1, av_colors_el(c, AV_EL_NORMAL));
		free(line);
	}
	/* what is above and below the pane, at its right edge */
	attr_t dim = av_colors_el(c, AV_EL_DIM) | A_BOLD;
	if (scrolls && lu->scroll > 0)
		av_put(w, 1, width - 2, utf8 ? "▲" : "^", 1, dim);
	if (scrolls && lu->scroll + rows < cl.n) {
		const char *more = utf8 ? _("▼ more") : _("v more");
		int mw = av_text_width(more);
		av_put(w, height - 1, width - 1 - mw, more, mw, dim);
	}
	free(cl.v);
	wnoutrefresh(w);
}
