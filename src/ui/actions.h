/* actions.h: every key of the screen, listed once (tig's request.h), with
 * its help text. The key lookup, the help overlay (view_help.c) and the
 * man page's key list (av_actions_write, src/ui/keys_main.c) all read this
 * one table, so they never disagree.
 *
 * Keys are ints: a character is its code point; a curses function key is
 * AV_FKEY(KEY_...), moved above Unicode so the two never collide; Alt with
 * either is AV_ALT(key).
 *
 * The training view ('t', view_train.c) has a keymap of its own
 * (AV_TRAIN_ACTIONS): there Space runs, r resets and +/- change the speed,
 * and only the main actions av_action_in_train_view() names still apply. To
 * add a view: add its action here, its file under src/ui/view_*.c, and a
 * case in app.c's dispatch. */
#ifndef AV_UI_ACTIONS_H
#define AV_UI_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "i18n.h"
#include "ui/curses.h"

#define AV_FKEY(k) ((k) + 0x200000)
#define AV_CTRL(c) ((c) & 0x1f)
#define AV_KEY_ESC 27
/* Alt (Meta) with a key: Esc and the key in one burst (ui/keyboard.c) */
#define AV_ALT_BIT 0x1000000
#define AV_ALT(k) ((k) | AV_ALT_BIT)

#define AV_ACTION_GROUPS(X) \
	X(STEP, N_("Stepping through the stages")) \
	X(MOVE, N_("Cursor")) \
	X(VIEW, N_("Heads and views")) \
	X(CHANGE, N_("Changing the input and the layer")) \
	X(LESSON, N_("Guided lessons (--lesson)")) \
	X(OTHER, N_("Other"))

enum av_action_group {
#define AV_GROUP_ENUM(name, title) AV_GROUP_##name,
	AV_ACTION_GROUPS(AV_GROUP_ENUM)
#undef AV_GROUP_ENUM
	AV_GROUP_COUNT
};

/* X(NAME, group, help text, keys...). Help texts stay short (25 columns)
 * so the help overlay fits in two columns at 80x24 (translations too: they
 * are marked N_() here and shown through _()). */
#define AV_ACTIONS(X) \
	X(NEXT_STAGE, STEP, N_("next stage"), 'n', ' ', AV_FKEY(KEY_NPAGE)) \
	X(PREV_STAGE, STEP, N_("previous stage"), 'p', AV_FKEY(KEY_BACKSPACE), 127, 8, \
	  AV_FKEY(KEY_PPAGE)) \
	X(FIRST_STAGE, STEP, N_("first stage (tokens)"), AV_FKEY(KEY_HOME), 'g') \
	X(LAST_STAGE, STEP, N_("last stage (output)"), AV_FKEY(KEY_END), 'G') \
	X(LEFT, MOVE, N_("cursor left"), AV_FKEY(KEY_LEFT), 'h') \
	X(RIGHT, MOVE, N_("cursor right"), AV_FKEY(KEY_RIGHT), 'l') \
	X(UP, MOVE, N_("cursor up (query before)"), AV_FKEY(KEY_UP), 'k') \
	X(DOWN, MOVE, N_("cursor down (next query)"), AV_FKEY(KEY_DOWN), 'j') \
	X(PAGE_LEFT, MOVE, N_("page left (wide matrices)"), '<', ',') \
	X(PAGE_RIGHT, MOVE, N_("page right"), '>', '.') \
	X(NEXT_MATRIX, MOVE, N_("next matrix of the stage"), ')') \
	X(PREV_MATRIX, MOVE, N_("matrix before"), '(') \
	X(PAGE_DOWN, MOVE, N_("page down (tall matrices)"), AV_CTRL('D'), AV_CTRL('F')) \
	X(PAGE_UP, MOVE, N_("page up"), AV_CTRL('U'), AV_CTRL('B')) \
	X(NEXT_HEAD, VIEW, N_("next head"), '\t') \
	X(PREV_HEAD, VIEW, N_("previous head"), AV_FKEY(KEY_BTAB)) \
	X(ALL_HEADS, VIEW, N_("all heads: grid/bars/off"), 'a') \
	X(ZOOM, VIEW, N_("compact cells / numbers"), 'z') \
	X(TRAIN, VIEW, N_("training view (t: back)"), 't') \
	X(FIGURES, VIEW, N_("figures of the tutorials"), 'F') \
	X(PIN, VIEW, N_("pin the matrix / unpin"), 'y') \
	X(UNPIN, VIEW, N_("clear the pinned matrix"), 'Y') \
	X(COMPARE, VIEW, N_("pinned|live|difference"), 'D') \
	X(PREV_LAYER, VIEW, N_("previous layer (--model)"), '[') \
	X(NEXT_LAYER, VIEW, N_("next layer (--model)"), ']') \
	X(MODEL_VIEW, VIEW, N_("layers x heads (--model)"), 'M') \
	X(EDIT_SENTENCE, CHANGE, N_("edit the sentence"), 'e') \
	X(EDIT_SOURCE, CHANGE, N_("edit the source (cross)"), 'E') \
	X(TOGGLE_CAUSAL, CHANGE, N_("causal mask on/off"), 'm') \
	X(MASK_KEY, CHANGE, N_("hide/show key (padding)"), 'x') \
	X(CYCLE_MODE, CHANGE, N_("mode self/causal/cross"), 'c') \
	X(TEMP_UP, CHANGE, N_("T x1.25: flatter softmax"), '+', '=') \
	X(TEMP_DOWN, CHANGE, N_("T /1.25: sharper softmax"), '-', '_') \
	X(TEMP_RESET, CHANGE, N_("temperature back to 1"), '0') \
	X(CYCLE_SCALE, CHANGE, N_("scale: √dk, √D or none"), 's', 'S') \
	X(RESEED, CHANGE, N_("new weights (seed + 1)"), 'r') \
	X(COMMAND, CHANGE, N_("type seed, temp, lr, ..."), ':') \
	X(LESSON_NEXT, LESSON, N_("next step of the lesson"), '}') \
	X(LESSON_PREV, LESSON, N_("previous step"), '{') \
	X(LESSON_RESTORE, LESSON, N_("back to the step's state"), 'R') \
	X(LESSON_ANSWER, LESSON, N_("answer: the cursor's cell"), '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(LESSON_CAPTION_DOWN, LESSON, N_("scroll the caption down"), 'J') \
	X(LESSON_CAPTION_UP, LESSON, N_("scroll the caption up"), 'K') \
	X(FOLLOW, OTHER, N_("snap back to the teacher"), 'f') \
	X(CYCLE_THEME, OTHER, N_("theme dark/light/mono"), 'T') \
	X(WRITE, OTHER, N_("write figure or JSON"), 'W') \
	X(HELP, OTHER, N_("this help"), '?', AV_FKEY(KEY_F(1))) \
	X(REPAINT, OTHER, N_("repaint the screen"), AV_CTRL('L')) \
	X(QUIT, OTHER, N_("quit"), 'q')

enum av_action {
	AV_ACTION_NONE,
#define AV_ACTION_ENUM(name, group, help, ...) AV_ACTION_##name,
	AV_ACTIONS(AV_ACTION_ENUM)
#undef AV_ACTION_ENUM
	AV_ACTION_COUNT
};

/* The keys of the sentence editor and the prompt (line_edit.c; a keymap of
 * their own: printable characters insert themselves). X(NAME, short text for the help overlay, help text,
 * keys...) */
#define AV_EDIT_ACTIONS(X) \
	X(APPLY, N_("apply"), N_("apply the text and close"), '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(CANCEL, N_("cancel"), N_("cancel: back to the old text"), AV_KEY_ESC) \
	X(LEFT, N_("left"), N_("character left"), AV_FKEY(KEY_LEFT), AV_CTRL('B')) \
	X(RIGHT, N_("right"), N_("character right"), AV_FKEY(KEY_RIGHT), AV_CTRL('F')) \
	X(WORD_LEFT, N_("word left"), N_("to the start of the word"), AV_ALT('b')) \
	X(WORD_RIGHT, N_("word right"), N_("to the end of the word"), AV_ALT('f')) \
	X(HOME, N_("start"), N_("start of the text"), AV_FKEY(KEY_HOME), AV_CTRL('A')) \
	X(END, N_("end"), N_("end of the text"), AV_FKEY(KEY_END), AV_CTRL('E')) \
	X(BACKSPACE, N_("delete back"), N_("delete the character before"), AV_FKEY(KEY_BACKSPACE), \
	  127, 8) \
	X(DELETE, N_("delete"), N_("delete the character under"), AV_FKEY(KEY_DC), AV_CTRL('D')) \
	X(KILL_START, N_("cut to start"), N_("delete back to the start"), AV_CTRL('U')) \
	X(KILL_END, N_("cut to end"), N_("delete to the end"), AV_CTRL('K')) \
	X(KILL_WORD, N_("cut word"), N_("delete the word before"), AV_CTRL('W'), AV_ALT(127), \
	  AV_ALT(8), AV_ALT(AV_FKEY(KEY_BACKSPACE))) \
	X(COMPLETE, N_("complete (: prompt)"), N_("complete (: prompt)"), '\t')

enum av_edit_action {
	AV_EDIT_NONE,
#define AV_EDIT_ENUM(name, brief, help, ...) AV_EDIT_##name,
	AV_EDIT_ACTIONS(AV_EDIT_ENUM)
#undef AV_EDIT_ENUM
	AV_EDIT_COUNT
};

/* The training view's keys (view_train.c), looked up before the main
 * table while that view is open. X(NAME, short text, help text, keys...) */
#define AV_TRAIN_ACTIONS(X) \
	X(RUN, N_("run/pause"), N_("run / pause training"), ' ') \
	X(STEP, N_("step"), N_("one epoch, then pause"), 's', '.') \
	X(SENTENCE_STEP, N_("sentence"), N_("one sentence (one step)"), 'S') \
	X(FASTER, N_("faster"), N_("faster (more epochs/s)"), '+', '=') \
	X(SLOWER, N_("slower"), N_("slower"), '-', '_') \
	X(RESET, N_("reset"), N_("reset: the first weights"), 'r') \
	X(LR_UP, N_("lr x2"), N_("learning rate x2"), ']') \
	X(LR_DOWN, N_("lr /2"), N_("learning rate /2"), '[') \
	X(TARGET, N_("target"), N_("target self/prev/pairs"), 'w') \
	X(OPTIMIZER, N_("optimiser"), N_("optimiser adam/sgd"), 'o') \
	X(INIT, N_("init"), N_("init normal/xavier/torch"), 'i') \
	X(PARAMS, N_("trained"), N_("train W_q,W_k,W_v / all"), 'P') \
	X(VOCAB, N_("vocabulary"), N_("vocabulary scores view"), 'v') \
	X(SCORES, N_("scores"), N_("map: scores / weights"), 'd') \
	X(MATRICES, N_("matrices"), N_("W, dW matrices: g cycles"), 'g') \
	X(UP, N_("up"), N_("previous sentence / row"), AV_FKEY(KEY_UP), 'k') \
	X(DOWN, N_("down"), N_("next sentence / row"), AV_FKEY(KEY_DOWN), 'j') \
	X(LEFT, N_("left"), N_("vocabulary: column left"), AV_FKEY(KEY_LEFT), 'h') \
	X(RIGHT, N_("right"), N_("vocabulary: column right"), AV_FKEY(KEY_RIGHT), 'l') \
	X(TRACK, N_("track"), N_("track the pair (vocab.)"), '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(LEAVE, N_("back"), N_("back (stepper/all heads)"), 't', 'q', AV_KEY_ESC)

enum av_train_action {
	AV_TRAIN_NONE,
#define AV_TRAIN_ENUM(name, brief, help, ...) AV_TRAIN_##name,
	AV_TRAIN_ACTIONS(AV_TRAIN_ENUM)
#undef AV_TRAIN_ENUM
	AV_TRAIN_COUNT
};

struct av_action_info {
	const char *name;            /* "NEXT_STAGE" */
	const char *brief;           /* editor actions: a word or two, else NULL */
	enum av_action_group group;
	const char *help;
	const int *keys;             /* n_keys key codes */
	int n_keys;
};

/* Indexed by enum av_action (entry 0, NONE, has no keys). */
extern const struct av_action_info av_actions[AV_ACTION_COUNT];
extern const char *const av_action_group_titles[];

extern const struct av_action_info av_edit_actions[AV_EDIT_COUNT];
extern const struct av_action_info av_train_actions[AV_TRAIN_COUNT];

/* The action bound to key, or AV_ACTION_NONE. */
enum av_action av_action_for_key(int key);
enum av_edit_action av_edit_action_for_key(int key);
enum av_train_action av_train_action_for_key(int key);

/* The main actions that keep their meaning in the training view (heads,
 * theme, help, repaint, the prompt and writing files); the others are the
 * stepper's. */
bool av_action_in_train_view(enum av_action a);

/* A readable name: "n", "Space", "PgDn", "Shift-Tab", "Ctrl-L", "Left";
 * brief names are shorter ("Bksp", "S-Tab", "^L") for the help overlay. */
void av_key_name(int key, char *buf, size_t size, bool brief);

/* The name of the key bound first to act ("n", "("), for a message that
 * names it. */
void av_action_key_name(enum av_action act, char *buf, size_t size);

/* The names of the keys that go from matrix to matrix of a stage, ( and )
 * (PREV_MATRIX, NEXT_MATRIX), for the messages about them: the stepper's
 * and the one where no view takes them. */
struct av_matrix_keys {
	char back[32], on[32];
};
struct av_matrix_keys av_matrix_keys(void);

/* "n Space PgDn": the names of an action's keys, each name once. malloc'd. */
char *av_action_keys_text(enum av_action a, bool brief);
char *av_keys_text(const struct av_action_info *info, bool brief, const char *sep);

/* The whole table for the documentation: plain text (KEYS  help, grouped)
 * or, when man is true, man(7) .TP paragraphs for attnview.1. */
void av_actions_write(FILE *out, bool man);

#endif
