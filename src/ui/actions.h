/* actions.h: every key of the screen, listed once (tig's request.h), with
 * its help text. The key lookup, the help overlay (view_help.c) and the
 * man page's key list (av_actions_write, src/ui/keys_main.c) all read this
 * one table, so they never disagree.
 *
 * Keys are ints: a character is its code point; a curses function key is
 * AV_FKEY(KEY_...), moved above Unicode so the two never collide.
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
#include "ui/curses.h"

#define AV_FKEY(k) ((k) + 0x200000)
#define AV_CTRL(c) ((c) & 0x1f)
#define AV_KEY_ESC 27

#define AV_ACTION_GROUPS(X) \
	X(STEP, "Stepping through the stages") \
	X(MOVE, "Cursor") \
	X(VIEW, "Heads and views") \
	X(CHANGE, "Changing the input and the layer") \
	X(LESSON, "Guided lessons (--lesson)") \
	X(OTHER, "Other")

enum av_action_group {
#define AV_GROUP_ENUM(name, title) AV_GROUP_##name,
	AV_ACTION_GROUPS(AV_GROUP_ENUM)
#undef AV_GROUP_ENUM
	AV_GROUP_COUNT
};

/* X(NAME, group, help text, keys...). Help texts stay short (25 columns)
 * so the help overlay fits in two columns at 80x24. */
#define AV_ACTIONS(X) \
	X(NEXT_STAGE, STEP, "next stage", 'n', ' ', AV_FKEY(KEY_NPAGE)) \
	X(PREV_STAGE, STEP, "previous stage", 'p', AV_FKEY(KEY_BACKSPACE), 127, 8, \
	  AV_FKEY(KEY_PPAGE)) \
	X(FIRST_STAGE, STEP, "first stage (tokens)", AV_FKEY(KEY_HOME), 'g') \
	X(LAST_STAGE, STEP, "last stage (output)", AV_FKEY(KEY_END), 'G') \
	X(LEFT, MOVE, "cursor left", AV_FKEY(KEY_LEFT), 'h') \
	X(RIGHT, MOVE, "cursor right", AV_FKEY(KEY_RIGHT), 'l') \
	X(UP, MOVE, "cursor up (query before)", AV_FKEY(KEY_UP), 'k') \
	X(DOWN, MOVE, "cursor down (next query)", AV_FKEY(KEY_DOWN), 'j') \
	X(PAGE_LEFT, MOVE, "page left (wide matrices)", '<', ',') \
	X(PAGE_RIGHT, MOVE, "page right", '>', '.') \
	X(NEXT_HEAD, VIEW, "next head", '\t') \
	X(PREV_HEAD, VIEW, "previous head", AV_FKEY(KEY_BTAB)) \
	X(ALL_HEADS, VIEW, "all heads: grid/bars/off", 'a') \
	X(ZOOM, VIEW, "compact cells / numbers", 'z') \
	X(TRAIN, VIEW, "training view (t: back)", 't') \
	X(FIGURES, VIEW, "figures of the tutorials", 'F') \
	X(PIN, VIEW, "pin the matrix / unpin", 'y') \
	X(UNPIN, VIEW, "clear the pinned matrix", 'Y') \
	X(COMPARE, VIEW, "pinned|live|difference", 'D') \
	X(PREV_LAYER, VIEW, "previous layer (--model)", '[') \
	X(NEXT_LAYER, VIEW, "next layer (--model)", ']') \
	X(MODEL_VIEW, VIEW, "layers x heads (--model)", 'M') \
	X(EDIT_SENTENCE, CHANGE, "edit the sentence", 'e') \
	X(EDIT_SOURCE, CHANGE, "edit the source (cross)", 'E') \
	X(TOGGLE_CAUSAL, CHANGE, "causal mask on/off", 'm') \
	X(MASK_KEY, CHANGE, "hide/show key (padding)", 'x') \
	X(CYCLE_MODE, CHANGE, "mode self/causal/cross", 'c') \
	X(TEMP_UP, CHANGE, "T x1.25: flatter softmax", '+', '=') \
	X(TEMP_DOWN, CHANGE, "T /1.25: sharper softmax", '-', '_') \
	X(TEMP_RESET, CHANGE, "temperature back to 1", '0') \
	X(CYCLE_SCALE, CHANGE, "scale: √dk, √D or none", 's', 'S') \
	X(RESEED, CHANGE, "new weights (seed + 1)", 'r') \
	X(COMMAND, CHANGE, "type seed, temp, lr, ...", ':') \
	X(LESSON_NEXT, LESSON, "next step of the lesson", '}') \
	X(LESSON_PREV, LESSON, "previous step", '{') \
	X(LESSON_RESTORE, LESSON, "back to the step's state", 'R') \
	X(LESSON_ANSWER, LESSON, "answer: the cursor's cell", '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(CYCLE_THEME, OTHER, "theme dark/light/mono", 'T') \
	X(WRITE, OTHER, "write figure or JSON", 'W') \
	X(HELP, OTHER, "this help", '?', AV_FKEY(KEY_F(1))) \
	X(REPAINT, OTHER, "repaint the screen", AV_CTRL('L')) \
	X(QUIT, OTHER, "quit", 'q')

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
	X(APPLY, "apply", "apply the text and close", '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(CANCEL, "cancel", "cancel: back to the old text", AV_KEY_ESC) \
	X(LEFT, "left", "character left", AV_FKEY(KEY_LEFT), AV_CTRL('B')) \
	X(RIGHT, "right", "character right", AV_FKEY(KEY_RIGHT), AV_CTRL('F')) \
	X(HOME, "start", "start of the text", AV_FKEY(KEY_HOME), AV_CTRL('A')) \
	X(END, "end", "end of the text", AV_FKEY(KEY_END), AV_CTRL('E')) \
	X(BACKSPACE, "delete back", "delete the character before", AV_FKEY(KEY_BACKSPACE), \
	  127, 8) \
	X(DELETE, "delete", "delete the character under", AV_FKEY(KEY_DC), AV_CTRL('D')) \
	X(KILL_START, "cut to start", "delete back to the start", AV_CTRL('U')) \
	X(KILL_END, "cut to end", "delete to the end", AV_CTRL('K')) \
	X(KILL_WORD, "cut word", "delete the word before", AV_CTRL('W')) \
	X(COMPLETE, "complete", "complete (: prompt)", '\t')

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
	X(RUN, "run/pause", "run / pause training", ' ') \
	X(STEP, "step", "one epoch, then pause", 's', '.') \
	X(SENTENCE_STEP, "sentence", "one sentence (one step)", 'S') \
	X(FASTER, "faster", "faster (more epochs/s)", '+', '=') \
	X(SLOWER, "slower", "slower", '-', '_') \
	X(RESET, "reset", "reset: the first weights", 'r') \
	X(LR_UP, "lr x2", "learning rate x2", ']') \
	X(LR_DOWN, "lr /2", "learning rate /2", '[') \
	X(TARGET, "target", "target self/prev/pairs", 'w') \
	X(OPTIMIZER, "optimiser", "optimiser adam/sgd", 'o') \
	X(INIT, "init", "init normal/xavier/torch", 'i') \
	X(PARAMS, "trained", "train W_q,W_k,W_v / all", 'P') \
	X(VOCAB, "vocabulary", "vocabulary scores view", 'v') \
	X(SCORES, "scores", "map: scores / weights", 'd') \
	X(MATRICES, "matrices", "W, dW matrices: g cycles", 'g') \
	X(UP, "up", "previous sentence / row", AV_FKEY(KEY_UP), 'k') \
	X(DOWN, "down", "next sentence / row", AV_FKEY(KEY_DOWN), 'j') \
	X(LEFT, "left", "vocabulary: column left", AV_FKEY(KEY_LEFT), 'h') \
	X(RIGHT, "right", "vocabulary: column right", AV_FKEY(KEY_RIGHT), 'l') \
	X(TRACK, "track", "track the pair (vocab.)", '\n', '\r', AV_FKEY(KEY_ENTER)) \
	X(LEAVE, "back", "back to the stepper", 't', 'q', AV_KEY_ESC)

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

/* The key read by wget_wch (ret is its return value) as an av key int. */
int av_key_from_wch(int ret, unsigned wch);

/* A readable name: "n", "Space", "PgDn", "Shift-Tab", "Ctrl-L", "Left";
 * brief names are shorter ("Bksp", "S-Tab", "^L") for the help overlay. */
void av_key_name(int key, char *buf, size_t size, bool brief);

/* "n Space PgDn": the names of an action's keys, each name once. malloc'd. */
char *av_action_keys_text(enum av_action a, bool brief);
char *av_keys_text(const struct av_action_info *info, bool brief, const char *sep);

/* The whole table for the documentation: plain text (KEYS  help, grouped)
 * or, when man is true, man(7) .TP paragraphs for attnview.1. */
void av_actions_write(FILE *out, bool man);

#endif
