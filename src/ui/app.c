/* app.c: the screen's main loop, windows, global actions and the regions
 * every view shares (header, token strip, status line). See app.h. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "ui/app.h"
#include "ui/classroom.h"
#include "ui/widgets/draw.h"
#include "ui/keyboard.h"
#include "ui/views/figview.h"
#include "ui/widgets/inspector.h"
#include "ui/widgets/panels.h"
#include "ui/views/model_ui.h"
#include "ui/prompt.h"
#include "utf8.h"
#include "util.h"

#define TEMP_STEP 1.25

/* --- messages ------------------------------------------------------------ */

void av_app_message(struct av_app *a, bool error, const char *fmt, ...)
{
	free(a->message);
	va_list ap;
	va_start(ap, fmt);
	a->message = av_vprintf(fmt, ap);
	va_end(ap);
	a->message_error = error;
	a->dirty |= AV_DIRTY_STATUS;
}

void av_app_say_sentence(struct av_app *a, bool same)
{
	int n = a->s->trace.tokens.n;
	if (same)
		av_app_message(a, false, P_("sentence already on screen (%d token)",
					       "sentence already on screen (%d tokens)", n), n);
	else
		av_app_message(a, false, P_("sentence: %d token", "sentence: %d tokens", n), n);
}

void av_app_say_source(struct av_app *a, bool same)
{
	int n = a->s->trace.source_tokens.n;
	if (same)
		av_app_message(a, false, P_("source already on screen (%d token)",
					       "source already on screen (%d tokens)", n), n);
	else
		av_app_message(a, false, P_("source: %d token", "source: %d tokens", n), n);
}

void av_app_clear_message(struct av_app *a)
{
	if (!a->message)
		return;
	free(a->message);
	a->message = NULL;
	a->dirty |= AV_DIRTY_STATUS;
}

/* --- windows ------------------------------------------------------------- */

static void del(WINDOW **w)
{
	if (*w)
		delwin(*w);
	*w = NULL;
}

static void destroy_windows(struct av_app *a)
{
	del(&a->w_header);
	del(&a->w_tokens);
	del(&a->w_title);
	del(&a->w_panel);
	del(&a->w_legend);
	del(&a->w_insp);
	del(&a->w_status);
	del(&a->w_overlay);
	del(&a->w_small);
	del(&a->w_lesson);
	del(&a->w_box);
	a->box_rows = 0;
}

void av_app_touch_shared(struct av_app *a)
{
	WINDOW *ws[] = { a->w_header, a->w_tokens, a->w_title, a->w_panel, a->w_legend,
			 a->w_insp, a->w_status, a->w_lesson };
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (ws[i])
			touchwin(ws[i]);
}

static WINDOW *win(const struct av_rect *r)
{
	if (r->h <= 0 || r->w <= 0)
		return NULL;
	return newwin(r->h, r->w, r->y, r->x);
}

static int token_rows(const struct av_app *a)
{
	return a->s->trace.cfg.mode == AV_MODE_CROSS ? 2 : 1;
}

/* Every window takes the theme's normal style as its background, so
 * erased cells and plain text use the theme's colours (a light theme on a
 * dark terminal is light all over). */
static void apply_backgrounds(struct av_app *a)
{
	attr_t normal = av_colors_el(&a->colors, AV_EL_NORMAL);
	chtype bg = ' ' | (normal & ~A_COLOR & ~A_REVERSE & ~A_BOLD & ~A_UNDERLINE) |
		    COLOR_PAIR(PAIR_NUMBER(normal));
	WINDOW *ws[] = { a->w_header, a->w_tokens, a->w_title, a->w_panel, a->w_legend,
			 a->w_insp, a->w_status, a->w_small, a->w_lesson };
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (ws[i])
			wbkgd(ws[i], bg);
}

static void make_windows(struct av_app *a)
{
	destroy_windows(a);
	a->windows_made++;
	/* a lesson's caption pane takes rows at the bottom; everything else is
	 * laid out above it, so the views need not know */
	int pane = av_lesson_ui_rows(a, LINES);
	av_layout_compute(&a->layout, COLS, LINES - pane, token_rows(a));
	if (pane > 0 && !a->layout.too_small)
		a->w_lesson = newwin(pane, COLS, LINES - pane, 0);
	if (a->layout.too_small) {
		a->w_small = newwin(LINES > 0 ? LINES : 1, COLS > 0 ? COLS : 1, 0, 0);
	} else {
		a->w_header = win(&a->layout.header);
		a->w_tokens = win(&a->layout.tokens);
		a->w_title = win(&a->layout.title);
		a->w_panel = win(&a->layout.panel);
		a->w_legend = win(&a->layout.legend);
		a->w_insp = win(&a->layout.inspector);
		a->w_status = win(&a->layout.status);
	}
	apply_backgrounds(a);
	a->dirty = AV_DIRTY_ALL;
	if (a->view && a->view->resize)
		a->view->resize(a);
	if (a->overlay && a->overlay->resize)
		a->overlay->resize(a);
}

bool av_window_at(const WINDOW *w, const struct av_rect *r)
{
	if (r->h <= 0 || r->w <= 0)
		return w == NULL;
	return w && getbegy(w) == r->y && getbegx(w) == r->x && getmaxy(w) == r->h &&
	       getmaxx(w) == r->w;
}

/* Whether the windows are those make_windows made for this screen: ncurses
 * moves and cuts windows at each resize, so two resizes read as one key
 * later (smaller, then back to the size laid out for) leave the size as
 * it was and the windows elsewhere, some off the screen. */
static bool windows_as_laid_out(const struct av_app *a)
{
	const struct av_layout *l = &a->layout;
	/* a lesson's caption pane is below the layout (make_windows) */
	int pane = av_lesson_ui_rows(a, LINES);
	if (l->cols != COLS || l->lines != LINES - pane)
		return false;
	struct av_rect caption = { LINES - pane, 0, pane, COLS };
	if (pane == 0 || l->too_small)
		caption.h = 0;
	if (!av_window_at(a->w_lesson, &caption))
		return false;
	if (l->too_small)
		return a->w_small && getmaxy(a->w_small) == (LINES > 0 ? LINES : 1) &&
		       getmaxx(a->w_small) == (COLS > 0 ? COLS : 1);
	return av_window_at(a->w_header, &l->header) && av_window_at(a->w_tokens, &l->tokens) &&
	       av_window_at(a->w_title, &l->title) && av_window_at(a->w_panel, &l->panel) &&
	       av_window_at(a->w_legend, &l->legend) && av_window_at(a->w_insp, &l->inspector) &&
	       av_window_at(a->w_status, &l->status) &&
	       (!a->view->windows_placed || a->view->windows_placed(a));
}

void av_app_resize(struct av_app *a)
{
	make_windows(a);
}

/* --- themes -------------------------------------------------------------- */

static bool apply_theme(struct av_app *a, const char *name, char **cause)
{
	struct av_theme t;
	memset(&t, 0, sizeof(t));
	if (!av_theme_load(name, &t, cause))
		return false;
	av_colors_setup(&a->colors, &t, a->allow_color, av_draw_utf8());
	av_theme_free(&t);
	return true;
}

/* --- init ---------------------------------------------------------------- */

bool av_app_init(struct av_app *a, struct av_session *s, const struct av_ui_config *cfg,
		 char **cause)
{
	memset(a, 0, sizeof(*a));
	a->s = s;
	s->keeps_copies = true;   /* each key runs again with the same weights */
	a->sel_query = a->sel_key = -1;
	a->restricted = cfg->restricted;
	const char *no_color = getenv("NO_COLOR");
	a->allow_color = !cfg->no_color && !(no_color && *no_color);
	av_draw_set_utf8(av_locale_is_utf8());

	const char *first = cfg->theme ? cfg->theme : "dark";
	a->theme_names[a->n_themes++] = av_strdup(first);
	static const char *const builtins[] = { "dark", "light", "mono" };
	for (size_t i = 0; i < 3; i++)
		if (strcmp(builtins[i], first) != 0)
			a->theme_names[a->n_themes++] = av_strdup(builtins[i]);
	if (a->allow_color && has_colors()) {
		start_color();
		use_default_colors();
	}
	if (!apply_theme(a, first, cause)) {
		av_app_free(a);
		return false;
	}
	if (cfg->gpt2 && !av_model_ui_start(a, cfg, cause)) {
		av_app_free(a);
		return false;
	}
	a->cursor_hidden = curs_set(0) != ERR;
	a->head = cfg->head >= 0 && cfg->head < s->trace.heads ? cfg->head : 0;
	a->stage = AV_STAGE_TOKENS;
	a->view = &av_view_stage;
	a->input = newpad(1, 1);
	if (a->input) {
		keypad(a->input, TRUE);
		nodelay(a->input, FALSE);
		/* after keypad(), where curses learns the terminfo's keys: its
		 * kmous would take the mouse report's start back */
		av_keyboard_define_mouse_reports();
	}
	make_windows(a);
	if (cfg->lesson)
		av_lesson_ui_start(a, cfg->lesson, cfg->lesson_step > 0 ? cfg->lesson_step - 1 : 0);
	if (cfg->notice)
		av_app_message(a, false, "%s", cfg->notice);
	return true;
}

void av_app_free(struct av_app *a)
{
	if (a->s)   /* the session outlives the screen, whole */
		av_app_finish_trace(a);
	av_classroom_free(a);
	av_train_view_free(a);
	av_lesson_ui_free(a);
	av_prompt_free(a);
	av_pin_free(a);
	av_figures_free(a);
	av_model_ui_free(a);
	destroy_windows(a);
	del(&a->input);
	av_colors_free(&a->colors);
	for (int i = 0; i < a->n_themes; i++)
		free(a->theme_names[i]);
	free(a->message);
	free(a->ed.orig);
	free(a->ed.error);
	memset(a, 0, sizeof(*a));
}

/* Whether the next frame shows nothing made by the output projection (the
 * stepper before its output stage, with nothing else on screen that might
 * read the trace): then a re-attend leaves the projection until the frame
 * is out (issue 11). */
static bool frame_without_output(const struct av_app *a)
{
	return a->view == &av_view_stage && a->stage != AV_STAGE_OUTPUT && !a->pin &&
	       !a->lesson && !a->classroom && !a->model &&
	       (!a->overlay || a->overlay == &av_view_edit);
}

/* ... and before the context stage nothing on screen reads V or its
 * weighted sums either: they wait too (a typed character at n=64, D=512
 * spares the V and output projections until the frame is out). */
bool av_app_frame_without_context(const struct av_app *a)
{
	return frame_without_output(a) && a->stage < AV_STAGE_CONTEXT;
}

void av_app_finish_trace(struct av_app *a)
{
	av_trace_finish(&a->s->trace, &a->s->params);
}

static bool rerun(struct av_app *a, bool all)
{
	char *cause = NULL;
	bool was_cross = a->layout.tokens.h == 2;
	bool early = av_app_frame_without_context(a);
	bool ok = all ? (early ? av_session_run_attention(a->s, &cause)
			       : av_session_run(a->s, &cause))
		  : early ? av_session_reattend_attention(a->s, &cause)
		  : frame_without_output(a) ? av_session_reattend_weights(a->s, &cause)
		  : av_session_reattend(a->s, &cause);
	if (!ok) {
		av_app_message(a, true, "%s", cause ? cause : _("cannot run"));
		free(cause);
		return false;
	}
	if (a->head >= a->s->trace.heads)
		a->head = 0;
	if (was_cross != (a->s->trace.cfg.mode == AV_MODE_CROSS))
		make_windows(a);
	a->dirty |= AV_DIRTY_ALL;
	return true;
}

bool av_app_rerun(struct av_app *a)
{
	return rerun(a, false);
}

bool av_app_rerun_all(struct av_app *a)
{
	return rerun(a, true);
}

/* Re-runs after s->cfg was changed; puts *saved back on failure. */
static bool change_config(struct av_app *a, struct av_config *saved)
{
	if (av_app_rerun(a))
		return true;
	a->s->cfg = *saved;
	return false;
}

void av_app_toggle_key(struct av_app *a, int j)
{
	const struct av_trace *t = &a->s->trace;
	if (j < 0 || j >= t->m) {
		av_app_message(a, false, _("move the cursor onto a key (a column of the scores) "
			       "to hide it"));
		return;
	}
	a->s->key_hidden[j] = !a->s->key_hidden[j];
	if (!av_app_rerun(a)) {
		a->s->key_hidden[j] = !a->s->key_hidden[j];
		return;
	}
	const struct av_tokens *tk = t->cfg.mode == AV_MODE_CROSS ? &t->source_tokens : &t->tokens;
	av_app_message(a, false, _("key %d '%s' %s (padding mask)"), j, tk->text[j],
		       a->s->key_hidden[j] ? _("hidden from every query") : _("visible again"));
}

static void clear_padding(struct av_app *a)
{
	bool any = false;
	for (int j = 0; j < AV_MAX_TOKENS; j++) {
		any |= a->s->key_hidden[j];
		a->s->key_hidden[j] = false;
	}
	if (any)
		av_app_message(a, false, _("padding mask cleared (the keys changed)"));
}

bool av_app_set_mode(struct av_app *a, enum av_mode mode)
{
	struct av_session *s = a->s;
	struct av_config saved = s->cfg;
	bool saved_hidden[AV_MAX_TOKENS];
	memcpy(saved_hidden, s->key_hidden, sizeof(saved_hidden));
	if (mode == AV_MODE_CROSS && !s->source) {
		if (s->sample.source) {
			s->source = av_strdup(s->sample.source);
		} else {
			av_app_message(a, true, _("cross mode needs a source sentence: E types one"));
			return false;
		}
	}
	if ((mode == AV_MODE_CROSS) != (s->cfg.mode == AV_MODE_CROSS))
		clear_padding(a);
	s->cfg.mode = mode;
	if (!change_config(a, &saved)) {
		memcpy(s->key_hidden, saved_hidden, sizeof(saved_hidden));
		return false;
	}
	if (!a->message)
		av_app_message(a, false, _("mode %s%s"), av_mode_names[mode],
			       mode == AV_MODE_CAUSAL ? _(": each query sees only itself and "
			       "the keys before it") : mode == AV_MODE_CROSS ?
			       _(": queries from the sentence, keys and values from the source") :
			       _(": every query sees every key"));
	return true;
}

static void cross_answer(struct av_app *a, bool yes)
{
	if (yes)
		av_app_set_mode(a, AV_MODE_CROSS);
	else
		av_app_message(a, false, _("source kept: c cycles the mode to cross, where it is "
			       "used"));
}

void av_app_offer_cross(struct av_app *a)
{
	av_prompt_ask(a, _("source set: switch to cross mode, where it is used? y/n"), cross_answer);
}

static void toggle_causal(struct av_app *a)
{
	enum av_mode mode = a->s->cfg.mode;
	if (mode == AV_MODE_CROSS) {
		av_app_message(a, false, _("cross attention has no causal mask (every query sees "
			       "the whole source); press c to leave cross mode"));
		return;
	}
	av_app_set_mode(a, mode == AV_MODE_CAUSAL ? AV_MODE_SELF : AV_MODE_CAUSAL);
}

static void cycle_mode(struct av_app *a)
{
	enum av_mode next = (enum av_mode)((a->s->cfg.mode + 1) % 3);
	if (next == AV_MODE_CROSS && !a->s->source && !a->s->sample.source) {
		/* cross attention needs a second sentence: type it here */
		av_editor_open(a, true, AV_THEN_CROSS);
		return;
	}
	av_app_set_mode(a, next);
}

bool av_app_set_temperature(struct av_app *a, double T)
{
	struct av_config saved = a->s->cfg;
	if (!(T >= AV_MIN_TEMPERATURE && T <= AV_MAX_TEMPERATURE)) {
		av_app_message(a, false, _("temperature stays between %g and %g"),
			       AV_MIN_TEMPERATURE, AV_MAX_TEMPERATURE);
		return false;
	}
	a->s->cfg.temperature = T;
	if (!change_config(a, &saved))
		return false;
	av_app_message(a, false, _("temperature %.3g: softmax is %s"), T,
		       T == saved.temperature ? _("as it was") : T == 1.0 ? _("plain (T = 1)") :
		       T > saved.temperature ? _("flatter") : _("sharper"));
	return true;
}

static void change_temperature(struct av_app *a, bool up)
{
	double T = a->s->cfg.temperature * (up ? TEMP_STEP : 1.0 / TEMP_STEP);
	if (fabs(T - 1.0) < 1e-9)
		T = 1.0;
	av_app_set_temperature(a, T);
}

/* Why scales from and to divide by the same number in cfg: one head
 * (D = dk), dk = 1 or D = 1. */
static char *same_divisor_reason(const struct av_config *cfg, enum av_scale from,
				 enum av_scale to)
{
	bool dk = from == AV_SCALE_DK || to == AV_SCALE_DK;
	bool dmodel = from == AV_SCALE_DMODEL || to == AV_SCALE_DMODEL;
	if (dk && dmodel)
		return av_printf("D = dk = %d", cfg->d_model);
	return av_strdup(dk ? "dk = 1" : "D = 1");
}

static void cycle_scale(struct av_app *a)
{
	struct av_config saved = a->s->cfg;
	a->s->cfg.scale = (enum av_scale)((saved.scale + 1) % 3);
	if (change_config(a, &saved)) {
		static const char *const what[] = {
			N_("scale sqrt(dk): divide by the square root of the head width"),
			N_("scale sqrt(dmodel): divide by the square root of D (the QKV "
			   "tutorial's code)"),
			N_("scale none: the raw dot products go into softmax"),
		};
		/* with one head √D is √dk: s seemed broken, nothing moved
		 * and nothing said why (QA, first-look's "press s twice") */
		if (av_config_divisor(&saved) == av_config_divisor(&a->s->cfg)) {
			char *why = same_divisor_reason(&saved, saved.scale, a->s->cfg.scale);
			/* TRANSLATORS: "scale dmodel: the same as dk here (D = dk = 3),
			 * so the scores do not change"; dk, dmodel and none are the
			 * header's names of the scales */
			av_app_message(a, false, _("scale %s: the same as %s here (%s), so the "
				       "scores do not change"), av_scale_names[a->s->cfg.scale],
				       av_scale_names[saved.scale], why);
			free(why);
			return;
		}
		av_app_message(a, false, "%s", _(what[a->s->cfg.scale]));
	}
}

bool av_app_set_seed(struct av_app *a, uint64_t seed)
{
	struct av_session *s = a->s;
	bool had_weights = s->from_weights;
	s->cfg.seed = seed;
	av_session_reinit(s);
	/* a run kept for t trained other weights: t starts afresh (saying
	 * why), so there is nothing left to lose and q must not ask again */
	av_train_view_mark_saved(a);
	if (!av_app_rerun_all(a))
		return false;
	av_app_message(a, false, _("new weights from seed %llu%s"), (unsigned long long)s->cfg.seed,
		       had_weights ? _(" (the loaded weights are replaced)") : "");
	return true;
}

static void reseed_now(struct av_app *a)
{
	av_app_set_seed(a, a->s->cfg.seed + 1 <= AV_MAX_SEED ? a->s->cfg.seed + 1 : 0);
}

/* Before new weights: training not yet saved, or a lesson step's shown in
 * the stepper, is asked about first; true when asked. */
static bool ask_discard_weights(struct av_app *a, void (*then)(struct av_app *a))
{
	return av_train_view_ask_discard(a, then) || av_lesson_ui_ask_discard(a, then);
}

/* r: new weights, after the question when there is one */
static void reseed(struct av_app *a)
{
	if (!ask_discard_weights(a, reseed_now))
		reseed_now(a);
}

static void draw_seed_asked(struct av_app *a)
{
	av_app_set_seed(a, a->seed_asked);
}

bool av_app_ask_seed(struct av_app *a, uint64_t seed)
{
	a->seed_asked = seed;
	if (ask_discard_weights(a, draw_seed_asked))
		return true;
	return av_app_set_seed(a, seed);
}

static void quit_now(struct av_app *a)
{
	a->quit = true;
}

/* Weights loaded (--weights) with a "training" record, still as loaded. */
static bool loaded_trained(const struct av_app *a, int *before, int *epochs, int *steps)
{
	struct av_training_record r;
	if (!av_session_loaded_training(a->s, &r))
		return false;
	*before = r.epochs_before;
	*epochs = r.epochs;
	*steps = r.steps;
	return true;
}

/* The sources of av_app_weights_trained, asked once each; *before is the
 * epochs the weights had before the run that *epochs counts (a training
 * view's run from a loaded file's, or a loaded file's own record), else 0. */
static bool weights_trained(const struct av_app *a, int *before, int *epochs, int *steps)
{
	*before = 0;
	if (av_train_view_weights_trained(a, epochs, steps)) {
		*before = av_train_view_epochs_before(a);
		return true;
	}
	return av_classroom_weights_trained(a, before, epochs, steps) ||
	       av_lesson_ui_weights_trained(a, epochs, steps) ||
	       loaded_trained(a, before, epochs, steps);
}

bool av_app_weights_trained(const struct av_app *a, int *epochs, int *steps)
{
	int before;
	return weights_trained(a, &before, epochs, steps);
}

bool av_app_trained_text(const struct av_app *a, char *buf, size_t size)
{
	int before, epochs, steps;
	if (!weights_trained(a, &before, &epochs, &steps))
		return false;
	av_trained_text(buf, size, before, epochs, steps);
	return true;
}

void av_app_quit(struct av_app *a)
{
	if (!av_train_view_ask_discard(a, quit_now))
		quit_now(a);
}

static void cycle_theme(struct av_app *a)
{
	int next = (a->theme_index + 1) % a->n_themes;
	char *cause = NULL;
	if (!apply_theme(a, a->theme_names[next], &cause)) {
		av_app_message(a, true, "%s", cause ? cause : _("bad theme"));
		free(cause);
		return;
	}
	a->theme_index = next;
	apply_backgrounds(a);
	clearok(curscr, TRUE);
	a->dirty = AV_DIRTY_ALL;
	if (a->colors.color)
		av_app_message(a, false, _("theme %s"), a->theme_names[next]);
	else
		av_app_message(a, false, _("theme %s (shown without colour: %s)"),
			       a->theme_names[next],
			       a->colors.why_mono ? a->colors.why_mono : _("no colours"));
}

static void set_stage(struct av_app *a, int stage)
{
	if (stage < 0)
		stage = 0;
	if (stage >= AV_STAGE_COUNT)
		stage = AV_STAGE_COUNT - 1;
	if (stage == (int)a->stage)
		return;
	a->stage = (enum av_stage)stage;
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_HEADER | AV_DIRTY_TOKENS;
}

/* At the last stage (ahead) or the first, a key that would go further
 * says so, naming the key that goes the other way. */
static void say_stage_end(struct av_app *a, bool ahead)
{
	enum av_action back = ahead ? AV_ACTION_PREV_STAGE : AV_ACTION_NEXT_STAGE;
	char key[32];
	av_action_key_name(back, key, sizeof(key));
	if (ahead)
		/* TRANSLATORS: %s is the key of the previous stage, "p" */
		av_app_message(a, false, _("the last stage: %s goes back"), key);
	else
		/* TRANSLATORS: %s is the key of the next stage, "n" */
		av_app_message(a, false, _("the first stage: %s goes on"), key);
}

/* n and p: one stage on or back; at either end they say so (as { and }
 * do at a lesson's ends), where they used to do nothing without a word. */
static void step_stage(struct av_app *a, int delta)
{
	int stage = (int)a->stage + delta;
	if (stage >= 0 && stage < AV_STAGE_COUNT)
		set_stage(a, stage);
	else
		say_stage_end(a, delta > 0);
}

/* g and G (Home, End): to the first or the last stage; already there,
 * they say so as p and n do (they had said nothing). */
static void jump_stage(struct av_app *a, int stage)
{
	if (stage == (int)a->stage)
		say_stage_end(a, stage > 0);
	else
		set_stage(a, stage);
}

static void set_head(struct av_app *a, int delta)
{
	int H = a->s->trace.heads;
	if (H <= 1) {
		av_app_message(a, false, _("this layer has one head (--heads N for more)"));
		return;
	}
	a->head = ((a->head + delta) % H + H) % H;
	a->dirty |= AV_DIRTY_MAIN | AV_DIRTY_HEADER;
}

static void open_editor(struct av_app *a, bool source)
{
	/* outside cross mode the source is typed for later: Enter offers the
	 * switch */
	bool later = source && a->s->cfg.mode != AV_MODE_CROSS;
	av_editor_open(a, source, later ? AV_THEN_ASK_CROSS : AV_THEN_NOTHING);
}

const struct av_view *av_app_matrices_view(const struct av_app *a)
{
	return a->view == &av_view_heads ? &av_view_heads : &av_view_stage;
}

void av_app_return_to(struct av_app *a, const struct av_view *v)
{
	a->view = v ? v : &av_view_stage;
	if (a->lesson)   /* the caption pane is smaller under the grid */
		av_app_resize(a);
	a->dirty = AV_DIRTY_ALL;
}

/* a: the stage's matrices, then every head's grid, then its bars */
static void cycle_heads_view(struct av_app *a)
{
	if (a->view == &av_view_stage) {
		a->view = &av_view_heads;
		a->heads_bars = false;
	} else if (!a->heads_bars) {
		a->heads_bars = true;
	} else {
		a->view = &av_view_stage;
	}
	if (a->lesson)   /* the caption pane is smaller under the grid */
		av_app_resize(a);
	a->dirty = AV_DIRTY_ALL;
}

static void toggle_compact(struct av_app *a)
{
	a->compact = !a->compact;
	a->dirty |= AV_DIRTY_MAIN;
	if (!a->compact)
		av_app_message(a, false, _("numbers in the cells"));
	else if (a->colors.color)
		av_app_message(a, false, _("compact cells: colour only (z for numbers)"));
	else   /* "colour only" without colour: say what the glyphs show */
		/* TRANSLATORS: %s is the minus sign put after a negative
		 * cell's shading glyph ("▓−") */
		av_app_message(a, false, _("compact cells: shading only, %s after it if negative "
			       "(z for numbers)"), av_draw_utf8() ? "−" : "-");
}

static void open_help(struct av_app *a)
{
	a->overlay = &av_view_help;
	a->help_scroll = 0;
	a->help_top = -1;
	if (a->overlay->resize)
		a->overlay->resize(a);
}

static void do_action(struct av_app *a, enum av_action act)
{
	switch (act) {
	case AV_ACTION_NONE:
		break;
	case AV_ACTION_NEXT_STAGE: step_stage(a, 1); break;
	case AV_ACTION_PREV_STAGE: step_stage(a, -1); break;
	case AV_ACTION_FIRST_STAGE: jump_stage(a, 0); break;
	case AV_ACTION_LAST_STAGE: jump_stage(a, AV_STAGE_COUNT - 1); break;
	case AV_ACTION_NEXT_HEAD: set_head(a, 1); break;
	case AV_ACTION_PREV_HEAD: set_head(a, -1); break;
	case AV_ACTION_ALL_HEADS: cycle_heads_view(a); break;
	case AV_ACTION_ZOOM: toggle_compact(a); break;
	case AV_ACTION_TRAIN: av_train_view_open(a); break;
	case AV_ACTION_FIGURES: av_figures_open(a); break;
	case AV_ACTION_PIN: av_pin_stepper(a); break;
	case AV_ACTION_UNPIN:
	case AV_ACTION_COMPARE:
		av_app_message(a, false, _("nothing is pinned: y pins the matrix under the cursor, "
			       "then D compares it with the live one"));
		break;
	case AV_ACTION_EDIT_SENTENCE: open_editor(a, false); break;
	case AV_ACTION_EDIT_SOURCE: open_editor(a, true); break;
	case AV_ACTION_TOGGLE_CAUSAL: toggle_causal(a); break;
	case AV_ACTION_CYCLE_MODE: cycle_mode(a); break;
	case AV_ACTION_TEMP_UP: change_temperature(a, true); break;
	case AV_ACTION_TEMP_DOWN: change_temperature(a, false); break;
	case AV_ACTION_TEMP_RESET: av_app_set_temperature(a, 1.0); break;
	case AV_ACTION_COMMAND: av_prompt_command(a); break;
	case AV_ACTION_WRITE: av_prompt_export_menu(a); break;
	case AV_ACTION_CYCLE_SCALE: cycle_scale(a); break;
	case AV_ACTION_RESEED: reseed(a); break;
	case AV_ACTION_CYCLE_THEME: cycle_theme(a); break;
	case AV_ACTION_FOLLOW: av_classroom_snap_back(a); break;
	case AV_ACTION_LESSON_NEXT: case AV_ACTION_LESSON_PREV:
	case AV_ACTION_LESSON_RESTORE: case AV_ACTION_LESSON_ANSWER:
	case AV_ACTION_LESSON_CAPTION_DOWN: case AV_ACTION_LESSON_CAPTION_UP:
		av_lesson_ui_action(a, act);
		break;
	case AV_ACTION_HELP: open_help(a); break;
	case AV_ACTION_REPAINT:
		clearok(curscr, TRUE);
		a->dirty = AV_DIRTY_ALL;
		break;
	case AV_ACTION_QUIT: av_app_quit(a); break;
	case AV_ACTION_PREV_LAYER: case AV_ACTION_NEXT_LAYER: case AV_ACTION_MODEL_VIEW:
		av_app_message(a, false, _("[, ] and M are for a real model: attnview --model DIR"));
		break;
	case AV_ACTION_MASK_KEY:
		/* the views know which key is under the cursor */
		av_app_toggle_key(a, a->sel_key);
		break;
	case AV_ACTION_LEFT: case AV_ACTION_RIGHT: case AV_ACTION_UP: case AV_ACTION_DOWN:
	case AV_ACTION_PAGE_LEFT: case AV_ACTION_PAGE_RIGHT:
	case AV_ACTION_COUNT:
		break;
	case AV_ACTION_NEXT_MATRIX: case AV_ACTION_PREV_MATRIX: {
		/* the stepper's, and the panels' of the pinned and the figures
		 * (their views take them); elsewhere said, not lost */
		struct av_matrix_keys keys = av_matrix_keys();
		/* TRANSLATORS: %s and %s are the keys ( and ) */
		av_app_message(a, false, _("%s and %s go from matrix to matrix of a stage in the "
			       "stepper"), keys.back, keys.on);
		break;
	}
	case AV_ACTION_PAGE_DOWN: case AV_ACTION_PAGE_UP:
		/* the views with tall lists page them themselves */
		av_app_message(a, false, _("Ctrl-D and Ctrl-U page the rows of the stepper's "
			       "matrices; here Up and Down move"));
		break;
	}
}

/* Bracketed paste (keyboard.h): pasted text is text. In the sentence
 * editor and the prompt's lines a line break or a Tab in it is a space, so
 * the whole paste stays one line; anywhere else its characters would run as
 * keys (a 'q' would quit), so they are dropped and the end of the paste
 * says so. True when *key is used up here; else *key is what the key is. */
static bool pasted_key(struct av_app *a, int *key)
{
	if (*key == AV_KEY_PASTE_BEGIN || *key == AV_KEY_PASTE_END) {
		a->pasting = *key == AV_KEY_PASTE_BEGIN;
		if (!a->pasting && a->paste_dropped > 0)
			av_app_message(a, true, _("pasted text ignored: paste into the sentence "
				       "editor (e) or the : prompt"));
		a->paste_dropped = 0;
		return true;
	}
	if (!a->pasting)
		return false;
	bool line = a->overlay == &av_view_edit ||
		    (a->overlay == &av_view_prompt && av_prompt_takes_text(a));
	if (!line) {
		a->paste_dropped++;
		return true;
	}
	if (*key == '\r' || *key == '\n' || *key == '\t')
		*key = ' ';
	return false;
}

void av_app_key(struct av_app *a, int key)
{
	/* a key may read anything: the last key's output projection first */
	av_app_finish_trace(a);
	if (key == AV_FKEY(KEY_RESIZE)) {
		av_app_resize(a);
		return;
	}
	if (key == AV_KEY_TERMINAL_REPORT)   /* no key: the message and help stay */
		return;
	if (pasted_key(a, &key))
		return;
	/* keyboard.h: said here, or by the line the person is typing in */
	if ((key == AV_KEY_NOT_UTF8 || key == AV_KEY_UNKNOWN_SEQUENCE) &&
	    (!a->overlay || !a->overlay->owns_status)) {
		av_app_message(a, true, "%s", key == AV_KEY_NOT_UTF8
			       ? av_keyboard_not_utf8_text() : av_keyboard_unknown_sequence_text());
		return;
	}
	if (!a->overlay || !a->overlay->owns_status)
		av_app_clear_message(a);
	enum av_action act = av_action_for_key(key);
	if (a->overlay && a->overlay->key(a, key, act))
		return;
	if (a->layout.too_small && act != AV_ACTION_QUIT && act != AV_ACTION_REPAINT)
		return;
	if (a->model && av_model_ui_key(a, key, act))
		return;
	if (a->view->key && a->view->key(a, key, act))
		return;
	if (act == AV_ACTION_NONE) {
		char name[32];
		av_key_name(key, name, sizeof(name), false);
		av_app_message(a, false, _("%s does nothing here: ? lists the keys"), name);
		return;
	}
	do_action(a, act);
}

/* --- the shared regions -------------------------------------------------- */

void av_app_place_cursor(struct av_app *a)
{
	if (a->view->place_cursor != NULL)
		a->view->place_cursor(a);
}

int av_app_parts(const struct av_app *a, struct av_part out[AV_MAX_PARTS])
{
	return av_ui_stage_parts(&a->s->trace, a->stage, a->head, out);
}

void av_app_draw_header(struct av_app *a, const char *view, int index, int count,
			const char *name, const char *const *reserve_names)
{
	WINDOW *w = a->w_header;
	if (!w)
		return;
	const struct av_session *s = a->s;
	const struct av_trace *t = &s->trace;
	struct av_header_info h = {
		.sample = s->sample.name,
		.mode = av_mode_names[t->cfg.mode],
		.d_model = t->d_model,
		.heads = t->heads,
		.head_dim = t->head_dim,
		.scale = av_scale_names[t->cfg.scale],
		.temperature = t->cfg.temperature,
		.seed = t->cfg.seed,
		/* drawn otherwise than the sample says (its name says its own);
		 * weights of --weights were not drawn at all */
		.init = t->cfg.init != s->sample.cfg.init && !s->from_weights
			? av_init_names[t->cfg.init] : NULL,
		.stage = index,
		.n_stages = count,
		/* names and labels come from N_() tables: shown translated */
		.stage_name = name ? _(name) : NULL,
		.view = view ? _(view) : NULL,
		.view_in_title = view && view == a->view->label && a->view->label_in_title,
	};
	char trained[48], layer[48];
	if (av_app_trained_text(a, trained, sizeof(trained)))
		h.weights = trained;
	if (a->model) {   /* a real model: its name and layer, no seed */
		av_model_ui_layer_text(a, layer, sizeof(layer));
		h.model = layer;
		h.sample = av_model_ui_name(a);
		/* the head width's square root, as the stages write it (the
		 * tutorials' d_k; the sizes piece says dk=64) */
		h.scale = av_draw_utf8() ? "√dk" : "sqrt(dk)";
	}
	int width = getmaxx(w);
	for (int i = 0; reserve_names && i < count; i++) {
		char probe[160];
		snprintf(probe, sizeof(probe), "%d/%d %s", i + 1, count, _(reserve_names[i]));
		if (av_text_width(probe) > h.stage_reserve)
			h.stage_reserve = av_text_width(probe);
	}
	/* in a lesson, "lesson 4/17" stands where the sample's name was */
	char *lesson = av_lesson_ui_label(a);
	h.lesson = lesson;
	char room[48];
	if (av_classroom_header(a, room, sizeof(room)))
		h.classroom = room;
	char *text = av_layout_header(&h, width);
	av_put_pad(w, 0, 0, text, width, av_colors_el(&a->colors, AV_EL_HEADER));
	free(text);
	free(lesson);
}

static void draw_header(struct av_app *a)
{
	av_app_draw_header(a, a->view->label, (int)a->stage, AV_STAGE_COUNT,
			   av_ui_stage_titles[a->stage], av_ui_stage_titles);
}

/* One line of tokens: "tokens  0 china  1 panda ...", the selected one
 * highlighted, OOV words and hidden keys marked; scrolled to keep the
 * selected token in view. */
static void draw_token_line(struct av_app *a, int y, const char *title,
			    const struct av_tokens *tk, const bool *oov, bool keys, int selected)
{
	WINDOW *w = a->w_tokens;
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	int x = av_put(w, y, 0, title, width, av_colors_el(c, AV_EL_TITLE));
	x += av_put(w, y, x, " ", width - x, A_NORMAL);
	/* first token to show: keep the selected one visible (itself cut
	 * when it is wider than the line) */
	int first = selected > 0 ? selected : 0;
	if (selected >= 0) {
		int need = 0;
		for (int i = selected; i >= 0; i--) {
			char pos[16];
			snprintf(pos, sizeof(pos), "%d ", i);
			need += av_text_width(pos) + av_text_width(tk->text[i]) + oov[i] + 2;
			if (need > width - x - 2)
				break;
			first = i;
		}
	}
	if (first > 0)
		x += av_put(w, y, x, av_draw_utf8() ? "… " : ".. ", width - x,
			    av_colors_el(c, AV_EL_DIM));
	for (int i = first; i < tk->n; i++) {
		char pos[16];
		snprintf(pos, sizeof(pos), "%d ", i);
		int need = av_text_width(pos) + av_text_width(tk->text[i]) + oov[i];
		/* the last token may take the last column; another leaves it,
		 * after a space, for the "…" that says more follow */
		bool last = i == tk->n - 1;
		/* the first token shown is cut rather than left out: a line of
		 * only "…" would not say which token is there */
		bool cut = x + need > (last ? width : width - 2);
		if (cut && (i > first || x + av_text_width(pos) + 2 > width)) {
			av_put(w, y, width - 1, av_draw_utf8() ? "…" : ">", 1,
			       av_colors_el(c, AV_EL_DIM));
			break;
		}
		attr_t wa = av_colors_el(c, AV_EL_NORMAL);
		if (oov[i])
			wa = av_colors_el(c, AV_EL_OOV);
		if (keys && a->s->trace.key_hidden[i])
			wa = av_colors_el(c, AV_EL_MASKED);
		if (i == selected)
			wa = av_colors_el(c, AV_EL_HIGHLIGHT);
		x += av_put(w, y, x, pos, width - x, av_colors_el(c, AV_EL_DIM));
		x += av_put(w, y, x, tk->text[i], width - x, wa);
		if (cut)
			break;
		if (oov[i])
			x += av_put(w, y, x, "*", width - x, wa);
		if (!last && x + 2 <= width)   /* cut, it would show as "…" */
			x += av_put(w, y, x, "  ", width - x, A_NORMAL);
	}
}

static void draw_tokens(struct av_app *a)
{
	if (!a->w_tokens)
		return;
	const struct av_trace *t = &a->s->trace;
	bool cross = t->cfg.mode == AV_MODE_CROSS;
	werase(a->w_tokens);
	/* in cross mode a key is a source token, marked on the source line;
	 * a selection past the sentence is none (the comparison's cursor is
	 * its own: the stepper's was left on a longer sentence) */
	int selected = a->sel_query >= 0 ? a->sel_query : cross ? -1 : a->sel_key;
	if (selected >= t->tokens.n)
		selected = -1;
	draw_token_line(a, 0, cross ? _("queries") : _("tokens"), &t->tokens, t->oov, !cross,
			selected);
	if (cross && getmaxy(a->w_tokens) > 1) {
		/* the source line: keys and values, scrolled to the selected key */
		int key = a->sel_key < t->source_tokens.n ? a->sel_key : -1;
		draw_token_line(a, 1, C_("tokens line", "source"), &t->source_tokens,
				t->source_oov, true, key);
	}
}

static void draw_status(struct av_app *a)
{
	WINDOW *w = a->w_status;
	if (!w)
		return;
	int width = getmaxx(w);
	struct av_colors *c = &a->colors;
	werase(w);
	if (a->message) {
		av_put_pad(w, 0, 0, a->message, width,
			   av_colors_el(c, a->message_error ? AV_EL_ERROR : AV_EL_STATUS));
		return;
	}
	/* a student exploring: where the teacher is, in place of the hints */
	char teacher[400];
	if (av_classroom_status(a, teacher, sizeof(teacher), width)) {
		av_put_pad(w, 0, 0, teacher, width, av_colors_el(c, AV_EL_LABEL));
		return;
	}
	/* a lesson whose caption has no room: said, not silently gone */
	char *hidden = av_lesson_ui_hidden_text(a, LINES, width);
	if (hidden) {
		av_put_pad(w, 0, 0, hidden, width, av_colors_el(c, AV_EL_LABEL));
		free(hidden);
		return;
	}
	/* whole "key what" groups, as many as fit (never a cut word) */
	const char *view_hints = a->model ? av_model_ui_hints(a) : NULL;
	if (!view_hints)
		view_hints = a->view->hints ? _(a->view->hints) : _("? help  q quit");
	char *hints = av_layout_hints(view_hints, width, av_text_width);
	av_put_pad(w, 0, 0, hints, width, av_colors_el(c, AV_EL_STATUS));
	free(hints);
}

void av_app_insp_weights(const struct av_app *a, struct av_insp_weights *out)
{
	if (a->model)
		av_model_ui_weights(a, out);
	else
		av_insp_weights_of(out, &a->s->params);
}

bool av_app_token_bytes(const struct av_app *a, struct av_insp_bytes *out)
{
	if (!a->model)
		return false;
	av_model_ui_token_bytes(a, out);
	return true;
}

void av_app_draw_inspector(struct av_app *a, const struct av_insp *in)
{
	WINDOW *w = a->w_insp;
	if (!w)
		return;
	werase(w);
	int width = getmaxx(w) - 1, height = getmaxy(w), y = 0;
	struct av_colors *c = &a->colors;
	for (int i = 0; i < in->n && y < height; i++) {
		/* a row kept for each line after it: one too long is cut ("…")
		 * rather than pushing the next ones out */
		int rows = height - y - (in->n - 1 - i);
		y += av_put_wrapped(w, y, 0, in->line[i], width, rows > 1 ? rows : 1,
				    av_colors_el(c, i == 0 ? AV_EL_LABEL : AV_EL_NORMAL));
	}
}

int av_app_inspector_lines(const struct av_app *a)
{
	int rows = a->w_insp ? getmaxy(a->w_insp) : 0;
	return rows >= 7 ? 3 : rows >= 4 ? 2 : 1;
}

int av_app_inspector_width(const struct av_app *a, int lines)
{
	return (a->w_insp ? getmaxx(a->w_insp) - 1 : 0) * lines - 22 * (lines - 1);
}

int av_app_inspector_rows(const struct av_app *a, const struct av_insp *in)
{
	int rows = 0, width = a->w_insp ? getmaxx(a->w_insp) - 1 : 0;
	for (int i = 0; i < in->n; i++)
		rows += av_wrapped_lines(in->line[i], width);
	return rows;
}

void av_app_build_inspector(struct av_app *a, int most, int least, int spare,
			    av_insp_builder *build, const void *ctx, struct av_insp *in)
{
	int rows = (a->w_insp ? getmaxy(a->w_insp) : 0) + spare;
	for (int lines = most > least ? most : least;; lines--) {
		build(a, ctx, av_app_inspector_width(a, lines), in);
		if (lines <= least || av_app_inspector_rows(a, in) <= rows)
			return;
		av_insp_free(in);
	}
}

/* The size message, then what to do, word-wrapped and centred: at 20x6
 * both used to be cut ("terminal too small:…"), losing the size and the q. */
static void draw_too_small(struct av_app *a)
{
	WINDOW *w = a->w_small;
	if (!w)
		return;
	werase(w);
	char *text = av_layout_too_small_text(COLS, LINES, token_rows(a));
	int width = getmaxx(w), height = getmaxy(w);
	/* one column: the last row stays blank. ncurses 6.4 writes the
	 * bottom-right cell of a terminal with automatic margins and no way
	 * to turn them off (TERM=screen, tmux's) by inserting it before the
	 * column left of it, column -1 here: it read before the row's cells
	 * (valgrind) and sent the cursor off the screen. */
	if (width < 2)
		height--;
	/* the size's line breaks after its comma first, then between words */
	const char *paras[3] = { text, NULL, _("enlarge the window, or q to quit") };
	char *comma = strstr(text, ", ");
	size_t comma_len = 2;
	if (!comma) {   /* the Chinese one */
		comma = strstr(text, "，");
		comma_len = strlen("，");
	}
	if (av_text_width(text) > width && comma) {
		paras[1] = comma + comma_len;
		*comma = '\0';
	}
	struct { const char *s; size_t len; bool hint; } rows[24];
	int n = 0;
	for (int i = 0; i < 3; i++)
		for (const char *p = paras[i]; p && *p && n < 24;) {
			const char *next;
			size_t len = av_wrap_line(p, width, av_text_width, &next);
			rows[n].s = p;
			rows[n].len = len;
			rows[n++].hint = i == 2;
			p = next;
		}
	for (int i = 0, y = n < height ? (height - n) / 2 : 0; i < n && y < height; i++, y++) {
		char *line = av_strndup(rows[i].s, rows[i].len);
		int tw = av_text_width(line);
		int x = tw < width ? (width - tw) / 2 : 0;
		av_put(w, y, x, line, width - x,
		       av_colors_el(&a->colors, rows[i].hint ? AV_EL_DIM : AV_EL_ERROR));
		free(line);
	}
	free(text);
	wnoutrefresh(w);
}

static void refresh_all(struct av_app *a)
{
	WINDOW *ws[] = { a->w_header, a->w_tokens, a->w_title, a->w_panel, a->w_legend,
			 a->w_insp, a->w_status };
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (ws[i])
			wnoutrefresh(ws[i]);
}

/* Sends the frame. The cursor is hidden: curses need not move it back to
 * the last window's cursor after the changes (8 bytes, \033[24;80H, in
 * each of the training view's 25 frames a second at 80x24); the last
 * wnoutrefresh() set newscr's leaveok from its window, so it is set here.
 * While text is typed (the editor, the : prompt: they own the status
 * line) the cursor still goes back to that line, where an input method
 * shows the characters it is composing. */
static void send_frame(const struct av_app *a)
{
	bool typing = a->overlay && a->overlay->owns_status;
	if (a->cursor_hidden && !typing)
		leaveok(newscr, TRUE);
	doupdate();
}

/* The text typed in the editor goes out before the pass it starts: at D=512
 * and 64 tokens the forward pass takes milliseconds, and the character
 * should show at once (issue 11); the matrices follow in this frame. */
static void echo_typed_text(struct av_app *a)
{
	if (a->overlay != &av_view_edit || !a->ed.pending || !a->w_status)
		return;
	a->overlay->draw(a);
	wnoutrefresh(a->w_status);
	send_frame(a);
}

void av_app_draw(struct av_app *a)
{
	/* ncurses resizes the screen (and moves and cuts the windows) when it
	 * sees SIGWINCH, inside doupdate() or wgetch(), and queues KEY_RESIZE
	 * behind it; a training tick may draw before that key is read. Windows
	 * laid out for the old size would then reach off the new screen, and
	 * wnoutrefresh() reads outside them (issue 8): so they are laid out
	 * anew first, and every view draws only into windows of this size.
	 * The size alone does not tell: a resize and back moves windows too. */
	if (!windows_as_laid_out(a))
		make_windows(a);
	if (!a->layout.too_small)
		echo_typed_text(a);
	av_editor_settle(a);
	if (a->layout.too_small) {
		draw_too_small(a);
		send_frame(a);
		a->dirty = 0;
		av_app_finish_trace(a);
		return;
	}
	/* a pinned matrix stays on screen: the views that end in the
	 * stepper (training on its way back) end in the comparison instead */
	if (a->pin && a->view == &av_view_stage)
		a->view = &av_view_compare;
	if (!frame_without_output(a))
		av_app_finish_trace(a);
	else if (!av_app_frame_without_context(a))   /* the context stage reads them */
		av_trace_finish_context(&a->s->trace, &a->s->params);
	av_message_box_prepare(a);
	unsigned d = a->dirty;
	if (d & AV_DIRTY_MAIN)
		a->view->draw(a);
	if (d & AV_DIRTY_HEADER) {
		if (a->view->header)
			a->view->header(a);
		else
			draw_header(a);
	}
	if ((d & AV_DIRTY_TOKENS) && !a->view->refresh_own)
		draw_tokens(a);
	if (d & AV_DIRTY_STATUS) {
		if (a->overlay && a->overlay->owns_status)
			a->overlay->draw(a);
		else
			draw_status(a);
	}
	if ((d & (AV_DIRTY_MAIN | AV_DIRTY_HEADER)) || av_lesson_ui_keys_stale(a))
		av_lesson_ui_draw(a);
	if (a->view->refresh_own) {
		/* the view's own windows cover the shared ones in between */
		if (a->w_header)
			wnoutrefresh(a->w_header);
		a->view->refresh_own(a);
		if (a->w_status)
			wnoutrefresh(a->w_status);
	} else {
		refresh_all(a);
	}
	if (a->overlay && !a->overlay->owns_status) {
		/* a window over the others: drawn and refreshed last */
		a->overlay->draw(a);
		if (a->w_overlay) {
			touchwin(a->w_overlay);
			wnoutrefresh(a->w_overlay);
		}
	}
	av_message_box_draw(a);
	send_frame(a);
	a->dirty = 0;
	/* the frame is out: now what it did not need */
	av_app_finish_trace(a);
}

/* --- work between keys ---------------------------------------------------- */

int av_app_timeout(struct av_app *a)
{
	return a->view->tick_period ? a->view->tick_period(a) : -1;
}

void av_app_tick(struct av_app *a)
{
	av_app_finish_trace(a);
	if (a->view->tick)
		a->view->tick(a);
}

/* --- reading the screen back (tests) ------------------------------------- */

void av_app_read_line(int y, char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = '\0';
	int width = getmaxx(curscr);
	for (int x = 0; x < width; x++) {
		cchar_t cc;
		if (mvwin_wch(curscr, y, x, &cc) == ERR)
			break;
		wchar_t wch[CCHARW_MAX + 1];
		attr_t attrs;
		short pair;
		if (getcchar(&cc, wch, &attrs, &pair, NULL) == ERR)
			continue;
		if (attrs & WA_ALTCHARSET)
			wch[0] = '?';
		for (int k = 0; k < CCHARW_MAX && wch[k]; k++) {
			char out[4];
			int n = av_utf8_encode((uint32_t)wch[k], out);
			if (used + (size_t)n + 1 >= size)
				return;
			memcpy(buf + used, out, (size_t)n);
			used += (size_t)n;
			buf[used] = '\0';
		}
		/* a wide character fills the next column too */
		if (wch[0] && av_cp_width((uint32_t)wch[0]) == 2)
			x++;
	}
}

/* --- the program --------------------------------------------------------- */

/* Home, End and friends arrive in different forms from different
 * terminals (and from tmux, screen, rxvt) than terminfo may say: teach
 * ncurses the common ones that are not bound already. */
static void define_extra_keys(void)
{
	static const struct {
		const char *seq;
		int key;
	} extra[] = {
		{ "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME },
		{ "\033OH", KEY_HOME }, { "\033[4~", KEY_END }, { "\033[8~", KEY_END },
		{ "\033[F", KEY_END }, { "\033OF", KEY_END }, { "\033[5~", KEY_PPAGE },
		{ "\033[6~", KEY_NPAGE }, { "\033[Z", KEY_BTAB }, { "\033[3~", KEY_DC },
		{ "\033[A", KEY_UP }, { "\033[B", KEY_DOWN }, { "\033[C", KEY_RIGHT },
		{ "\033[D", KEY_LEFT }, { "\033OA", KEY_UP }, { "\033OB", KEY_DOWN },
		{ "\033OC", KEY_RIGHT }, { "\033OD", KEY_LEFT },
	};
	for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (key_defined(extra[i].seq) == 0)
			define_key(extra[i].seq, extra[i].key);
}

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static volatile sig_atomic_t got_signal;

/* Keys read before a frame is drawn at most: a stream that never ends
 * still gets frames. */
#define MAX_KEYS_A_FRAME 1024

/* The keys that arrived while the last one was handled (typed ahead, or
 * pasted): handled too before the next frame, so the screen computes and
 * draws once for all of them (issue 11: a typed character cost a forward
 * pass and a repaint each). */
static void read_waiting_keys(struct av_app *a)
{
	int key;
	wtimeout(a->input, 0);
	for (int keys = 0; keys < MAX_KEYS_A_FRAME && !a->quit && !got_signal &&
	     av_keyboard_read(a->input, &key) != ERR; keys++)
		av_app_key(a, key);
}

/* While the model computes a sentence in its worker (view_model.c) the
 * keyboard and the worker's pipe are waited on together, so a key is read
 * at once and the finished run is drawn at once; idle, nothing is pending
 * and the plain blocking read below is used. true: this turn is done (the
 * caller goes round to draw). */
static bool wait_with_model(struct av_app *a, int wait)
{
	if (!a->model || !a->input || !av_model_ui_busy(a))
		return false;
	int key;
	wtimeout(a->input, 0);   /* keys ncurses holds already come first */
	if (av_keyboard_read(a->input, &key) != ERR) {
		av_app_key(a, key);
		read_waiting_keys(a);
		return true;
	}
	struct pollfd fds[2] = {
		{ .fd = STDIN_FILENO, .events = POLLIN },
		{ .fd = av_model_ui_fd(a), .events = POLLIN },
	};
	if (poll(fds, 2, wait) > 0 && fds[1].revents)
		av_model_ui_collect(a);
	return true;   /* a key, a signal, a tick: the next turn reads it */
}

/* ncurses (6.4 at least) writes its buffer out after every cursor movement
 * of doupdate() until the screen has once been suspended and resumed: it
 * tells a program still starting up, which may be mixing its own output with
 * curses', by the state endwin() leaves (ewInitial), and only doupdate()'s
 * return from endwin() changes that state. So a repaint of the softmax stage
 * at 200x60, n=64 went out in ~140 write(2)s, each a wake-up of the terminal
 * (issue 11). Leaving curses once before the first frame, with nothing drawn
 * yet, makes the first doupdate() resume it and every later one write its
 * output once. */
static void leave_initial_state(void)
{
	endwin();
}

static void on_signal(int sig)
{
	got_signal = sig;
}

bool av_app_interrupted(void)
{
	return got_signal != 0;
}

/* Back from Ctrl-Z: the shell (bash's readline) turned bracketed paste
 * off while it ran "fg", so it is turned on again. */
static volatile sig_atomic_t got_continue;

static void on_continue(int sig)
{
	(void)sig;
	got_continue = 1;
}

/* Ctrl-Z: curses's own handler leaves the screen as the shell had it, but
 * knows nothing of bracketed paste, so a program run while attnview is
 * stopped (under a shell that does not manage the mode itself, as dash)
 * would read the marks around a paste. The handler turns the mode off with
 * one write(2) (the strings made before, as a handler may not call curses)
 * and then runs curses's handler, which returns once "fg" has continued the
 * process and the screen is repainted: the mode goes on again there. (The
 * SIGCONT flag alone came too late: curses's handler restarts the blocked
 * read, so the loop saw the flag only after the next key, and a paste made
 * before it arrived as keys, q among them.) */
static struct sigaction curses_stop;
static char paste_off[32], paste_on[32];
static size_t paste_off_len, paste_on_len;

static void write_mode(const char *mode, size_t len)
{
	if (len && write(STDOUT_FILENO, mode, len) < 0) {
		/* nothing to do: the terminal is going away or full */
	}
}

static void on_stop(int sig)
{
	int saved = errno;
	write_mode(paste_off, paste_off_len);
	curses_stop.sa_handler(sig);
	write_mode(paste_on, paste_on_len);
	errno = saved;
}

/* Puts on_stop before curses's handler, where curses installed one (it
 * does not when the shell ignores Ctrl-Z, and then neither do we). */
static void chain_stop_handler(struct sigaction *old)
{
	sigaction(SIGTSTP, NULL, old);
	const char *off = av_keyboard_paste_off(), *on = av_keyboard_paste_on();
	if ((old->sa_flags & SA_SIGINFO) || old->sa_handler == SIG_DFL ||
	    old->sa_handler == SIG_IGN || strlen(off) >= sizeof(paste_off) ||
	    strlen(on) >= sizeof(paste_on))
		return;
	curses_stop = *old;
	paste_off_len = strlen(off);
	memcpy(paste_off, off, paste_off_len);
	paste_on_len = strlen(on);
	memcpy(paste_on, on, paste_on_len);
	struct sigaction stop = *old;
	stop.sa_handler = on_stop;
	sigaction(SIGTSTP, &stop, NULL);
}

/* Ctrl-C, Ctrl-\ (SIGQUIT), kill and a hang-up all restore the terminal
 * first (the alternate screen left, the cursor shown); SIGCONT turns
 * bracketed paste on again, Ctrl-Z off (chain_stop_handler). What was
 * installed before is put back when the screen closes. */
static const int exit_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
#define N_EXIT_SIGNALS ((int)(sizeof(exit_signals) / sizeof(exit_signals[0])))

struct signal_handlers {
	struct sigaction exits[N_EXIT_SIGNALS], cont, stop;
};

static void install_signal_handlers(struct signal_handlers *old)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;   /* no SA_RESTART: the blocking read returns */
	got_signal = 0;
	for (int i = 0; i < N_EXIT_SIGNALS; i++)
		sigaction(exit_signals[i], &sa, &old->exits[i]);
	struct sigaction cont = sa;
	cont.sa_handler = on_continue;
	got_continue = 0;
	sigaction(SIGCONT, &cont, &old->cont);
	chain_stop_handler(&old->stop);
}

static void restore_signal_handlers(const struct signal_handlers *old)
{
	for (int i = 0; i < N_EXIT_SIGNALS; i++)
		sigaction(exit_signals[i], &old->exits[i], NULL);
	sigaction(SIGCONT, &old->cont, NULL);
	sigaction(SIGTSTP, &old->stop, NULL);
}

/* Dies of sig, as the shell expects, once the terminal is restored. */
static void die_of_signal(int sig)
{
	if (sig == SIGQUIT) {
		/* SIGQUIT would dump core, but the state is freed by now: a core
		 * file would only be litter */
		struct rlimit none = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Ctrl-S is a key, not XOFF: with the terminal's flow control on (cbreak
 * leaves it on), a student's Ctrl-S froze the screen until Ctrl-Q, and a
 * teacher's stopped the training the whole class follows (the loop blocked
 * writing the frame). Saved as curses's program mode, so a Ctrl-Z and fg keep it;
 * leaving restores the shell's mode, flow control and all. */
static void no_flow_control(void)
{
	struct termios mode;
	if (tcgetattr(STDIN_FILENO, &mode) != 0 || !(mode.c_iflag & IXON))
		return;
	mode.c_iflag &= (tcflag_t)~IXON;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &mode) == 0)
		def_prog_mode();
}

/* The terminal as curses' screen, in the modes the app reads keys in; NULL
 * + *cause when it cannot show one. */
static SCREEN *open_terminal(char **cause)
{
	/* 24-bit colour needs a terminal description that can set it (see
	 * av_colors_direct_term); without one on the system, TERM as is */
	const char *term = getenv("TERM");
	const char *direct = av_colors_direct_term(term, getenv("COLORTERM"));
	SCREEN *screen = direct ? newterm(direct, stdout, stdin) : NULL;
	if (!screen)
		screen = newterm(NULL, stdout, stdin);
	if (!screen) {
		av_fail(cause, _("cannot use the terminal (TERM=%s); --print STAGE and "
			"--dump FILE work without one"), term ? term : _("unset"));
		return NULL;
	}
	set_term(screen);
	/* a terminal that cannot place the cursor (TERM=dumb, as an editor's
	 * shell buffer or an SSH session without TERM has) would show the
	 * screen as a jumble: said before anything is drawn */
	if (!av_terminfo_string("cup")) {   /* cursor_address */
		endwin();
		delscreen(screen);
		av_fail(cause, _("the terminal cannot place the cursor (TERM=%.40s); "
			"--print STAGE and --dump FILE work without one"),
			term ? term : _("unset"));
		return NULL;
	}
	cbreak();
	noecho();
	nonl();
	no_flow_control();
	curs_set(0);
	set_escdelay(av_keyboard_escape_delay(getenv("ESCDELAY")));
	define_extra_keys();
	return screen;
}

/* The main loop's clock for the ticks and its count of reads that failed
 * in a row (a terminal that is gone must not make it spin). */
struct loop {
	long long next_tick;   /* µs, 0: no tick planned */
	bool ticked;           /* the last turn ticked: this one reads keys */
	int errors;
};

/* A view that works between keys (training) ticks every period ms, keys or
 * not, and the keyboard is read between any two ticks (even when a tick
 * overran its period). true: a tick ran (the turn is done); else *wait is
 * the ms to wait for a key, or -1 to block. */
static bool tick_if_due(struct av_app *a, struct loop *l, int *wait)
{
	int period = av_app_timeout(a);
	*wait = -1;
	if (period < 0) {
		l->next_tick = 0;
		l->ticked = false;
		return false;
	}
	long long now = now_us(), step = (long long)period * 1000;
	if (l->next_tick == 0 || l->next_tick - now > step)
		l->next_tick = now + step;
	if (now >= l->next_tick && !l->ticked) {
		av_app_tick(a);
		av_classroom_after_tick(a);
		l->ticked = true;
		l->next_tick += step;
		now = now_us();
		if (l->next_tick < now)
			l->next_tick = now;
		return true;
	}
	long long left = l->next_tick - now;
	/* at least 1 ms, so a timeout is told from EOF in keyboard_turn */
	*wait = left < 1000 ? 1 : (int)((left + 999) / 1000);
	l->ticked = false;
	return false;
}

/* One turn in a classroom: the room and the keyboard waited on together,
 * then the keys ncurses holds. false: the terminal is gone. */
static bool classroom_turn(struct av_app *a, struct loop *l, int wait)
{
	/* the room's poll does not know the model's pipe: while a sentence
	 * computes, look for its run every 20 ms */
	if (a->model && av_model_ui_busy(a)) {
		av_model_ui_collect(a);
		if (wait < 0 || wait > 20)
			wait = 20;
	}
	int ready = av_classroom_wait(a, wait);
	int key, keys = 0;
	wtimeout(a->input, 0);
	/* a follower compares the state before and after the frame's keys:
	 * one that changed it starts exploring */
	if (ready > 0)
		av_classroom_before_key(a);
	while (ready > 0 && !a->quit && keys < MAX_KEYS_A_FRAME &&
	       av_keyboard_read(a->input, &key) != ERR) {
		av_app_key(a, key);
		keys++;
	}
	if (keys > 0) {
		/* the class sees the state the keys led to */
		av_editor_settle(a);
		av_classroom_after_key(a);
		l->errors = 0;
		return true;
	}
	return !(ready < 0 || (ready == 1 && ++l->errors > 20));
}

/* One turn alone: a key (and those already waiting), or the timeout for the
 * next tick. false: the terminal is gone or a signal came. */
static bool keyboard_turn(struct av_app *a, struct loop *l, int wait)
{
	if (a->input)
		wtimeout(a->input, wait);
	int key;
	errno = 0;
	long long asked = now_us();
	if (!a->input || av_keyboard_read(a->input, &key) == ERR) {
		if (got_signal)
			return false;
		/* the timeout ran out: time for a tick */
		if (wait >= 0 && errno != EINTR && now_us() - asked >= (long long)wait * 500) {
			l->errors = 0;
			return true;
		}
		/* EOF on the terminal (a hang-up without SIGHUP) must not spin */
		return errno == EINTR || ++l->errors <= 20;
	}
	l->errors = 0;
	av_app_key(a, key);
	read_waiting_keys(a);
	return true;
}

/* Draws, then waits for a key, a tick or the room, until q or a signal. */
static void run_loop(struct av_app *a)
{
	struct loop l = { 0 };
	while (!a->quit && !got_signal) {
		if (got_continue) {
			got_continue = 0;
			av_keyboard_bracketed_paste(true);
		}
		av_app_draw(a);
		int wait;
		if (tick_if_due(a, &l, &wait))
			continue;
		bool go_on = a->classroom && a->input ? classroom_turn(a, &l, wait)
			     : wait_with_model(a, wait) || keyboard_turn(a, &l, wait);
		if (!go_on)
			break;
	}
}

bool av_ui_run(struct av_session *s, const struct av_ui_config *cfg, char **cause)
{
	/* a bad theme is reported before the screen opens */
	struct av_theme probe;
	memset(&probe, 0, sizeof(probe));
	if (!av_theme_load(cfg->theme ? cfg->theme : "dark", &probe, cause))
		return false;
	av_theme_free(&probe);

	SCREEN *screen = open_terminal(cause);
	if (!screen)
		return false;
	struct av_app a;
	if (!av_app_init(&a, s, cfg, cause)) {
		endwin();
		delscreen(screen);
		return false;
	}
	if (!av_classroom_open(&a, cfg, cause)) {
		av_app_free(&a);
		endwin();
		delscreen(screen);
		return false;
	}
	struct signal_handlers old;
	install_signal_handlers(&old);
	leave_initial_state();
	av_keyboard_bracketed_paste(true);

	run_loop(&a);

	av_keyboard_bracketed_paste(false);
	av_app_free(&a);
	endwin();
	delscreen(screen);
	restore_signal_handlers(&old);
	fflush(stdout);
	if (got_signal)
		die_of_signal(got_signal);
	return true;
}
