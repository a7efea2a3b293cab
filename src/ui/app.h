/* app.h: the screen's state and main loop. The app owns the windows (one
 * per region of layout.h), the cursor, the stage and head, and dispatches
 * keys: first to an open overlay (help, editor), then to the main view,
 * then to the global actions of actions.h.
 *
 * A view is a small table of functions, one view per file (tmux's
 * window_mode, tig's view_ops): view_stage.c (the stepper), view_heads.c
 * (all heads), view_train.c (training, on 't'), view_help.c, view_edit.c
 * and view_prompt.c (overlays; the last two share line_edit.c). app.c never
 * names a view to draw it: the header label, the status line's key hints
 * and how an overlay draws all come from the view's table. Adding a view is a new file with a struct av_view and the action
 * that opens it (actions.h, and its case in app.c's do_action).
 *
 * Work between keys: a view whose tick_period() returns a period (the training
 * view while it runs) gets tick() that often; the main loop then reads keys
 * with that timeout, and otherwise blocks (no CPU while idle).
 *
 * Redraws are by region: a key marks what it changed (AV_DIRTY_*), only
 * those regions are redrawn, and ncurses sends only the cells that differ
 * (wnoutrefresh + doupdate; no clear() except on Ctrl-L). */
#ifndef AV_UI_APP_H
#define AV_UI_APP_H

#include <stdbool.h>
#include "session.h"
#include "train.h"
#include "tokenizer.h"
#include "ui/actions.h"
#include "ui/colors.h"
#include "ui/curses.h"
#include "ui/widgets/heatmap.h"
#include "ui/layout.h"
#include "ui/widgets/line_edit.h"
#include "ui/stages.h"
#include "ui/ui.h"

#define AV_DIRTY_HEADER 1u
#define AV_DIRTY_TOKENS 2u
#define AV_DIRTY_MAIN 4u       /* the view: title, panel, legend, inspector */
#define AV_DIRTY_STATUS 8u
#define AV_DIRTY_ALL 15u

struct av_app;
struct av_shown;         /* panels.h: what a view of panels shows, for W */

/* A key a view gives a meaning of its own, for the help overlay: the
 * action's keys (keys instead when it is no action of the table, "Esc")
 * and what it does there (N_(), at most 25 columns). */
struct av_view_key {
	enum av_action action;
	const char *keys;
	const char *help;
};

struct av_view {
	const char *name;
	/* Optional: the keys whose meaning this view changes, listed first in
	 * the help overlay under help_title (N_()); ended by a help of NULL. */
	const char *help_title;
	const struct av_view_key *help_keys;
	/* Shown in the header before the stage ("all heads"), or NULL. */
	const char *label;
	/* The view's title row begins with its label ("all heads: scores"):
	 * a narrow header leaves the label out before the lesson and mode. */
	bool label_in_title;
	/* The status line's key hints while this view is open (a short line:
	 * at 80 columns the status line shows the hints that fit whole). */
	const char *hints;
	/* Overlays only: true if the overlay draws the status line (the
	 * editor's input line; it then keeps the message too), false if it
	 * draws a window of its own over the others (help), refreshed last. */
	bool owns_status;
	/* Optional, for overlays that own the status line: a text of theirs
	 * (an error, a question) too long for a status line of width columns,
	 * which the app then shows whole in the rows above it (message_box.c),
	 * or NULL; *error: in the error style. */
	const char *(*long_text)(struct av_app *a, int width, bool *error);
	/* Draws the title, panel, legend and inspector windows. */
	void (*draw)(struct av_app *a);
	/* Gets the key first (act is its action, maybe NONE); true = used. */
	bool (*key)(struct av_app *a, int key, enum av_action act);
	/* The windows were made anew (a resize, a layout change). */
	void (*resize)(struct av_app *a);
	/* Optional, for views that run work between keys: the milliseconds
	 * between ticks, or -1 to wait for a key; and the work of one tick.
	 * (Not "timeout" and "refresh": curses defines those as macros.) */
	int (*tick_period)(struct av_app *a);
	void (*tick)(struct av_app *a);
	/* Optional, for a view with windows of its own over the rows between
	 * the header and the status line: refreshes them (wnoutrefresh) in
	 * place of the shared ones, and draws the header line. */
	void (*refresh_own)(struct av_app *a);
	void (*header)(struct av_app *a);
	/* Optional, with refresh_own: whether the view's own windows are still
	 * where its resize put them for this screen. ncurses moves and cuts
	 * windows at every resize, and a resize and back between two draws
	 * leaves the shared windows in place but not always the view's. */
	bool (*windows_placed)(const struct av_app *a);
	/* Optional: the matrices the view shows, for W's figure formats (CSV,
	 * text, ANSI, SVG), into out (zeroed by the caller; av_shown_free);
	 * false + *cause when it shows none now. A view without it shows the
	 * stepper's stage and head, which W writes, unless export_note says
	 * why what it shows is not that (a grid of many heads). */
	bool (*shown)(struct av_app *a, struct av_shown *out, char **cause);
	const char *export_note;
	/* Optional, for a view whose keys move a->row and a->col: keeps the
	 * cursor on the matrices it shows and notes the tokens under it
	 * (sel_query, sel_key), as drawing does. What changes the cursor's
	 * matrices (n, a lesson step) leaves that to the next draw, and the
	 * classroom captures the state before the screen is drawn. */
	void (*place_cursor)(struct av_app *a);
};

extern const struct av_view av_view_stage;   /* view_stage.c */
extern const struct av_view av_view_heads;   /* view_heads.c */
extern const struct av_view av_view_help;    /* view_help.c (overlay) */
extern const struct av_view av_view_edit;    /* view_edit.c (overlay) */
extern const struct av_view av_view_train;   /* view_train.c */
extern const struct av_view av_view_prompt;  /* view_prompt.c (overlay) */
extern const struct av_view av_view_figures; /* view_figures.c (F) */
extern const struct av_view av_view_compare; /* view_compare.c (a pinned matrix, y) */
extern const struct av_view av_view_model;   /* view_model.c (--model: layers x heads, M) */

/* The stepper's view origin (view_stage.c), for the classroom: the first
 * row and column of the stage's matrices its next draw shows, counted as
 * a->row and a->col are (the factors a wide scores stage draws before its
 * matrix are not counted); in the tokens stage the tokens table's first
 * line and column 0. _from: as the next draw would place it from the
 * scroll scroll_row, scroll_col (a->hm's, which a key may have left where
 * the draw will not keep it). Call with the cursor placed
 * (av_app_place_cursor). */
void av_stage_view_origin(const struct av_app *a, int *row, int *col);
void av_stage_view_origin_from(const struct av_app *a, int scroll_row, int scroll_col,
			       int *row, int *col);
/* The next draw starts there, where that keeps the cursor's cell in view
 * (else it scrolls the least that shows it, as after a cursor move). */
void av_stage_view_set_origin(struct av_app *a, int row, int col);

struct av_train_view;                        /* view_train.c's state */
struct av_figures;                           /* view_figures.c's state */
struct av_pin;                               /* view_compare.c's state */
struct av_model_ui;                          /* view_model.c's state */

/* What the editor does once the source is applied outside cross mode. */
enum av_edit_then { AV_THEN_NOTHING, AV_THEN_CROSS, AV_THEN_ASK_CROSS };

struct av_editor {
	bool source;                       /* editing the source sentence */
	struct av_line line;               /* the text (line_edit.h) */
	char *orig;                        /* the text before editing (NULL: none) */
	bool orig_hidden[AV_MAX_TOKENS];
	char *error;                       /* why the text does not run now */
	enum av_edit_then then;            /* after the source is applied */
	bool pending;                      /* the text changed since it last ran */
	int not_utf8;                      /* bytes that were not UTF-8 were ignored:
					      1 to be said, 2 said (the next key
					      clears it) */
};

struct av_app {
	struct av_session *s;
	struct av_colors colors;
	bool allow_color;
	char *theme_names[4];
	int n_themes, theme_index;

	struct av_layout layout;
	WINDOW *w_header, *w_tokens, *w_title, *w_panel, *w_legend, *w_insp, *w_status;
	WINDOW *w_overlay;       /* the help window, or NULL */
	WINDOW *w_small;         /* the "too small" screen, or NULL */
	WINDOW *w_box;           /* a message too long for the status line, or NULL */
	int box_rows;            /* its rows (0: none) */
	bool box_on_status;      /* it covers the status line too (a message) */
	WINDOW *input;           /* a 1x1 pad that reads keys (never refreshed) */

	const struct av_view *view;      /* av_view_stage, av_view_heads or av_view_train */
	const struct av_view *overlay;   /* av_view_help, av_view_edit, av_view_prompt
					    or NULL */

	enum av_stage stage;
	int head;
	int row, col;            /* the cursor: row and (overall) column */
	struct av_heatmap hm;    /* the stepper's scroll state */
	bool compact;            /* colour-only cells */
	bool heads_bars;         /* the heads view shows bars of the query */
	int heads_cells;         /* the heads view's cells: AV_HEADS_CELLS_* (z) */
	int sel_query, sel_key;  /* the tokens under the cursor, or -1 */
	int page_cols;           /* columns of the last heatmap drawn */
	unsigned windows_made;   /* counts the layouts made (a resize): each
				    starts the stepper's scroll over */

	struct av_editor ed;
	struct av_prompt *prompt;        /* view_prompt.c's state, or NULL */
	int help_scroll, help_max_scroll;   /* rows, as the help was last drawn */
	int help_page;   /* the rows of its body: what ^D and ^U scroll */
	int help_top;   /* the line the reader has at the top (view_help.c), kept
			   through resizes; -1: the one help_scroll shows */

	struct av_train_view *train;     /* the training view's state (kept while
					    the stepper shows the trained weights),
					    or NULL before 't' */
	uint64_t seed_asked;             /* :seed's N, drawn when the question to
					    discard the training is answered y */

	struct av_figures *figures;      /* the figures view's state, or NULL */
	struct av_pin *pin;              /* the pinned matrix, or NULL */

	struct av_lesson_ui *lesson;     /* view_lesson.c's state (--lesson), or NULL */
	WINDOW *w_lesson;                /* its caption pane, or NULL */
	struct av_classroom *classroom;  /* --lead or --follow (classroom.c), or NULL */
	bool restricted;                 /* --restricted: W, :write and :export refuse */
	struct av_model_ui *model;       /* view_model.c's state (--model), or NULL */

	char *message;
	bool message_error;
	bool pasting;            /* between a bracketed paste's two marks */
	int paste_dropped;       /* keys of this paste no line took */
	unsigned dirty;
	bool cursor_hidden;      /* curs_set(0) took: where the cursor is left does not show */
	bool quit;
};

/* Sets up a under an already initialised curses screen (newterm): loads
 * the theme, makes the windows. false + *cause for a bad theme. */
bool av_app_init(struct av_app *a, struct av_session *s, const struct av_ui_config *cfg,
		 char **cause);
void av_app_free(struct av_app *a);

/* One key (an av key int: a character, or AV_FKEY(KEY_...)). */
void av_app_key(struct av_app *a, int key);

/* Redraws the dirty regions and updates the terminal. */
void av_app_draw(struct av_app *a);

/* KEY_RESIZE: the layout and windows anew. */
void av_app_resize(struct av_app *a);

/* The view that a view opened from the matrices (figures, training)
 * returns to: the all-heads view when it was open, else the stepper. */
const struct av_view *av_app_matrices_view(const struct av_app *a);

/* Returns to view v (from av_app_matrices_view) and redraws it all. */
void av_app_return_to(struct av_app *a, const struct av_view *v);

/* Whether window w (or its absence) is where rect r puts it. */
bool av_window_at(const WINDOW *w, const struct av_rect *r);

/* Marks every shared window (header ... status, the lesson pane) for
 * comparison at the next refresh: what covered them (help, the message
 * box, the training view's own windows) is gone, and ncurses then sends
 * only the cells that differ. */
void av_app_touch_shared(struct av_app *a);

/* message_box.c: a message or an overlay's text too long for the status
 * line, whole in the rows above it until it goes. prepare, before the
 * views draw, removes a box that no longer fits what is shown (marking the
 * windows under it for drawing again); draw, after every other window,
 * puts it on top. */
void av_message_box_prepare(struct av_app *a);
void av_message_box_draw(struct av_app *a);

/* A message on the status line until the next key (error style or not). */
void av_app_message(struct av_app *a, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Says the sentence's token count once it is applied (e, :sentence), or
 * that it was already on screen when the text applied was the same: the
 * person sees the command was read, and that nothing changed. */
void av_app_say_sentence(struct av_app *a, bool same);
/* The same for the source of cross mode (E, :source). */
void av_app_say_source(struct av_app *a, bool same);

/* Empties the status line's message (a follower's screen: the hints of a
 * view the teacher opened or left are not the student's to follow). */
void av_app_clear_message(struct av_app *a);

/* Re-runs the forward pass after a setting changed; on failure shows the
 * cause and returns false (the previous trace stays). av_app_rerun redoes
 * only the stages from the mask on when Q, K and V cannot have changed (the
 * mask, heads, scale, temperature: four times less work at D=512);
 * av_app_rerun_all redoes everything (new parameters). */
bool av_app_rerun(struct av_app *a);
bool av_app_rerun_all(struct av_app *a);

/* Computes what a re-run left for after the frame (the output projection,
 * see av_trace_reattend_weights): done by every key, tick and frame before
 * anything may read the trace, and after each frame is out. */
void av_app_finish_trace(struct av_app *a);

/* Whether the next frame reads nothing past the attention weights (the
 * stepper before its context stage, nothing else on screen): a run for it
 * may stop there and leave the rest until the frame is out. */
bool av_app_frame_without_context(const struct av_app *a);

/* Switches the mode (cross needs a source) and re-runs; false, with the
 * reason as the message, when it cannot. */
bool av_app_set_mode(struct av_app *a, enum av_mode mode);

/* After a source was typed outside cross mode: asks whether to switch. */
void av_app_offer_cross(struct av_app *a);

/* A new temperature (AV_MIN_TEMPERATURE..AV_MAX_TEMPERATURE) or seed (new
 * parameters drawn), re-run, with a message saying what changed. */
bool av_app_set_temperature(struct av_app *a, double T);
bool av_app_set_seed(struct av_app *a, uint64_t seed);
/* :seed N: av_app_set_seed, after asking when training would be lost (as
 * r and q do; a yes draws them). false, with the reason as the message,
 * only when the weights were drawn and could not run. */
bool av_app_ask_seed(struct av_app *a, uint64_t seed);

/* Whether a signal that ends the screen (SIGHUP, SIGTERM, SIGINT) came and
 * waits to be acted on: long work (a follower's replay of the teacher's
 * training) asks, and stops. */
bool av_app_interrupted(void);

/* q and :quit: ends the screen, after asking when training would be lost. */
void av_app_quit(struct av_app *a);

/* Opens the sentence editor on the sentence or the source; then says what
 * happens once a source typed outside cross mode is applied. */
void av_editor_open(struct av_app *a, bool source, enum av_edit_then then);
/* Runs the text the editor holds if it changed since it last ran: typed
 * keys only mark it, and this runs it once before the next frame (a burst of
 * keys costs one forward pass, issue 11). av_app_draw calls it. */
void av_editor_settle(struct av_app *a);

/* Hides or shows key position j (the padding mask) and re-runs. */
void av_app_toggle_key(struct av_app *a, int j);

/* The cursor where the view will show it (its place_cursor), without
 * drawing: what a leader publishes is what its screen shows after the key. */
void av_app_place_cursor(struct av_app *a);

/* The parts of the current stage for the current head. */
int av_app_parts(const struct av_app *a, struct av_part out[AV_MAX_PARTS]);

/* Draws the header line (every view's): the layer and its settings ("lesson
 * 4/17" in place of the sample's name in a lesson, "trained E ep" when the
 * weights are trained), then "VIEW · INDEX/COUNT NAME" on the right. With
 * reserve_names (all COUNT names), the right part keeps the width of the
 * longest, so it does not jump while stepping. */
void av_app_draw_header(struct av_app *a, const char *view, int index, int count,
			const char *name, const char *const *reserve_names);

/* Draws the inspector window from an av_insp (shared by the views): each
 * line word-wrapped (a sum at its " + ") while rows last, keeping a row for
 * each line after it. */
struct av_insp;
void av_app_draw_inspector(struct av_app *a, const struct av_insp *in);

/* The rows av_app_draw_inspector needs for the whole of in. */
int av_app_inspector_rows(const struct av_app *a, const struct av_insp *in);

/* The lines a sum or a row of numbers may take in the inspector (2 or 3
 * where it has the rows for them, else 1), and the width the inspector
 * builds them to for that many: the window's, less the room a wrapped line
 * may leave unused at its end (about a term) at each break. */
int av_app_inspector_lines(const struct av_app *a);
int av_app_inspector_width(const struct av_app *a, int lines);

/* Builds the inspector into *in with its sums wrapped to as many lines as
 * still let it fit the window's rows and `spare` rows more (that the view
 * can put its first lines in): from most down to least, the first that
 * fits, or least whatever it takes. build makes it for a width
 * (av_app_inspector_width) from ctx, the view's own. The stepper and the
 * all-heads grid both: a sum had ended "… (+1 term)" above blank rows, or
 * pushed the lines after it out. */
typedef void av_insp_builder(struct av_app *a, const void *ctx, int width, struct av_insp *in);
void av_app_build_inspector(struct av_app *a, int most, int least, int spare,
			    av_insp_builder *build, const void *ctx, struct av_insp *in);

/* The projections' weights the inspector explains Q, K, V and the output
 * with: the session's, or the model layer's (--model). */
struct av_insp_weights;
void av_app_insp_weights(const struct av_app *a, struct av_insp_weights *out);

/* The bytes of the sentence's tokens when they are a model's BPE pieces
 * (--model), whose labels are not their text; false for attnview's own
 * words, whose text is the label. */
struct av_insp_bytes;
bool av_app_token_bytes(const struct av_app *a, struct av_insp_bytes *out);

/* The current view's tick period in milliseconds, or -1 (block on keys);
 * and one tick of its work. */
int av_app_timeout(struct av_app *a);
void av_app_tick(struct av_app *a);

/* The training view (view_train.c): opens it (a trainer for the session,
 * or the one kept from the last visit when the layer has not changed);
 * leaves it with the trained weights in the session; frees its state. */
bool av_train_view_open(struct av_app *a);
void av_train_view_leave(struct av_app *a);
void av_train_view_free(struct av_app *a);
/* A fresh training view whose trainer (from the session's weights) is set
 * up as set says and has already run epochs, then steps (a lesson's step:
 * the charts and tables show the whole run), paused. */
bool av_train_view_open_trained(struct av_app *a, const struct av_train_settings *set,
				int epochs, int steps);
/* Training not saved since its last step (epochs that q would lose). */
bool av_train_view_unsaved(const struct av_app *a);
/* The hook for saving: call after the trained weights were written. */
void av_train_view_mark_saved(struct av_app *a);
/* Before an action that loses the training (quit, new weights, reset):
 * with unsaved training, asks "discard N epochs of training? y/n", runs
 * then(a) on y, and returns true; else false (the caller goes on now). */
bool av_train_view_ask_discard(struct av_app *a, void (*then)(struct av_app *a));
/* That question for lost epochs and steps (malloc'd). */
char *av_discard_question(int lost, int steps);
/* The epochs and sentences of the training view's trainer when the
 * stepper runs on its weights; false otherwise. */
bool av_train_view_weights_trained(const struct av_app *a, int *epochs, int *steps);
/* The epochs of the weights file the training view's run started from (its
 * "training" record), or 0: see av_app_trained_text. */
int av_train_view_epochs_before(const struct av_app *a);
/* The epochs and sentences that trained the weights shown, whoever ran
 * them: the training view, the teacher's run a student replayed, a lesson
 * step, a weights file's "training" record; false for weights as drawn or
 * loaded without one. The header and a pin's label say them. */
bool av_app_weights_trained(const struct av_app *a, int *epochs, int *steps);
/* The same in the header's words (av_trained_text), counting a loaded
 * file's epochs before a training view's run from them ("trained 200+5
 * ep"); false, buf untouched, for untrained weights. */
bool av_app_trained_text(const struct av_app *a, char *buf, size_t size);
/* The header's words for a run: "trained 5 ep", or "trained 5 ep+1" with
 * sentences of the next epoch done (the classroom's header says them too);
 * after `before` epochs of a loaded file, "trained 200+5 ep". */
void av_trained_text(char *buf, size_t size, int before, int epochs, int steps);
/* "  #N<: the last step": the training view's map marks the sentence of the
 * last optimiser step "#3<"; its legend says so where it fits, the help at
 * every size. */
const char *av_train_last_step_mark(void);
/* Its trainer, or NULL (for the tests). */
const struct av_trainer *av_train_view_trainer(const struct av_app *a);
/* What the training view's panels show (the classroom sends the
 * teacher's): the vocabulary's map instead of a sentence's, scores
 * instead of weights, the matrices panel (0 off, 1 gradients, 2 weights,
 * 3 both), the corpus sentence on the map. All 0 without the view. */
struct av_train_look {
	bool vocab, scores;
	int mats, sentence;
};
void av_train_view_look(const struct av_app *a, struct av_train_look *look);
/* Shows look's panels (the sentence and the matrices within what this
 * screen has: a narrow one shows the matrices instead of the map). */
void av_train_view_set_look(struct av_app *a, const struct av_train_look *look);
/* Which trainer that is: a number no other trainer made in this process
 * had, or 0 without one (the classroom tells a new run from a restart). */
unsigned long av_train_view_serial(const struct av_app *a);

/* A guided lesson (view_lesson.c): started on step (from 0); the caption pane's
 * rows at a screen of lines (0 without a lesson or room); its keys; the
 * pane drawn; "lesson 4/17" (malloc'd) or NULL. */
struct av_lesson;
bool av_lesson_ui_start(struct av_app *a, const struct av_lesson *l, int step);
void av_lesson_ui_free(struct av_app *a);
int av_lesson_ui_rows(const struct av_app *a, int lines);
void av_lesson_ui_action(struct av_app *a, enum av_action act);
void av_lesson_ui_draw(struct av_app *a);
/* Whether the pane's keys were drawn for another overlay than the one
 * open now (the editor opened: they are not the step's keys meanwhile). */
bool av_lesson_ui_keys_stale(const struct av_app *a);
char *av_lesson_ui_label(const struct av_app *a);
/* The running lesson's own title, in its captions' language; NULL without
 * a lesson. */
const char *av_lesson_ui_title(const struct av_app *a);
/* A lesson runs but a screen of lines has no room for its caption pane:
 * what the status line, cols wide, says instead of the key hints
 * (malloc'd), else NULL. */
char *av_lesson_ui_hidden_text(const struct av_app *a, int lines, int cols);
/* The step's highlighted cells ((query, key) of the attention matrices,
 * *cells) while they mean what the step meant: the student is on that step
 * and the live sentence, source and mode are the step's (the cells are
 * positions in its sentence). Changing the stage, head, temperature or
 * cursor keeps them; editing the sentence or the mode drops them until R.
 * Returns their count, 0 outside a lesson. */
int av_lesson_ui_marks(const struct av_app *a, const int (**cells)[2]);
/* Whether (query, key) is one of them. */
bool av_lesson_ui_marked(const struct av_app *a, int query, int key);
/* For the classroom: the lesson's name and step (NULL without a lesson);
 * going to a step as } and { do (false: no such step). */
const char *av_lesson_ui_name(const struct av_app *a, int *step);
/* The hash of the running lesson's file text (its text_hash), 0 without
 * one: a class's students check theirs is the teacher's. */
uint64_t av_lesson_ui_text_hash(const struct av_app *a);
bool av_lesson_ui_go(struct av_app *a, int step);
/* The step's state when the step trained the weights in the stepper (not
 * in the training view) and they are still the ones it left; else NULL. */
struct av_lesson_state;
const struct av_lesson_state *av_lesson_ui_trained_step(const struct av_app *a);
/* Its epochs and sentences while they are (the header says them). */
bool av_lesson_ui_weights_trained(const struct av_app *a, int *epochs, int *steps);
/* Before r or :seed replaces weights a lesson step trained (those of
 * av_lesson_ui_weights_trained): asks "discard N epochs of training? y/n"
 * as for unsaved training, runs then(a) on y, and returns true; else false
 * (the caller goes on now). */
bool av_lesson_ui_ask_discard(struct av_app *a, void (*then)(struct av_app *a));

/* Reads screen row y back as UTF-8 (from curscr; for the tests). */
void av_app_read_line(int y, char *buf, size_t size);

#endif
