/* actions.c: the key table (see actions.h). No curses calls: only the
 * KEY_ constants, so the documentation dump needs no terminal. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "ui/actions.h"
#include "util.h"

#define AV_ACTION_KEYS(name, group, help, ...) \
	static const int keys_##name[] = { __VA_ARGS__ };
AV_ACTIONS(AV_ACTION_KEYS)
#undef AV_ACTION_KEYS

const struct av_action_info av_actions[AV_ACTION_COUNT] = {
	[AV_ACTION_NONE] = { "NONE", NULL, AV_GROUP_OTHER, "", NULL, 0 },
#define AV_ACTION_INFO(name, group, help, ...) \
	[AV_ACTION_##name] = { #name, NULL, AV_GROUP_##group, help, keys_##name, \
			       (int)(sizeof(keys_##name) / sizeof(keys_##name[0])) },
	AV_ACTIONS(AV_ACTION_INFO)
#undef AV_ACTION_INFO
};

#define AV_EDIT_KEYS(name, brief, help, ...) \
	static const int edit_keys_##name[] = { __VA_ARGS__ };
AV_EDIT_ACTIONS(AV_EDIT_KEYS)
#undef AV_EDIT_KEYS

const struct av_action_info av_edit_actions[AV_EDIT_COUNT] = {
	[AV_EDIT_NONE] = { "NONE", NULL, AV_GROUP_OTHER, "", NULL, 0 },
#define AV_EDIT_INFO(name, brief, help, ...) \
	[AV_EDIT_##name] = { #name, brief, AV_GROUP_OTHER, help, edit_keys_##name, \
			     (int)(sizeof(edit_keys_##name) / sizeof(edit_keys_##name[0])) },
	AV_EDIT_ACTIONS(AV_EDIT_INFO)
#undef AV_EDIT_INFO
};

#define AV_TRAIN_KEYS(name, brief, help, ...) \
	static const int train_keys_##name[] = { __VA_ARGS__ };
AV_TRAIN_ACTIONS(AV_TRAIN_KEYS)
#undef AV_TRAIN_KEYS

const struct av_action_info av_train_actions[AV_TRAIN_COUNT] = {
	[AV_TRAIN_NONE] = { "NONE", NULL, AV_GROUP_OTHER, "", NULL, 0 },
#define AV_TRAIN_INFO(name, brief, help, ...) \
	[AV_TRAIN_##name] = { #name, brief, AV_GROUP_OTHER, help, train_keys_##name, \
			      (int)(sizeof(train_keys_##name) / sizeof(train_keys_##name[0])) },
	AV_TRAIN_ACTIONS(AV_TRAIN_INFO)
#undef AV_TRAIN_INFO
};

const char *const av_action_group_titles[] = {
#define AV_GROUP_TITLE(name, title) title,
	AV_ACTION_GROUPS(AV_GROUP_TITLE)
#undef AV_GROUP_TITLE
	NULL
};

enum av_action av_action_for_key(int key)
{
	for (int a = 1; a < AV_ACTION_COUNT; a++)
		for (int k = 0; k < av_actions[a].n_keys; k++)
			if (av_actions[a].keys[k] == key)
				return (enum av_action)a;
	return AV_ACTION_NONE;
}

enum av_edit_action av_edit_action_for_key(int key)
{
	for (int a = 1; a < AV_EDIT_COUNT; a++)
		for (int k = 0; k < av_edit_actions[a].n_keys; k++)
			if (av_edit_actions[a].keys[k] == key)
				return (enum av_edit_action)a;
	return AV_EDIT_NONE;
}

enum av_train_action av_train_action_for_key(int key)
{
	for (int a = 1; a < AV_TRAIN_COUNT; a++)
		for (int k = 0; k < av_train_actions[a].n_keys; k++)
			if (av_train_actions[a].keys[k] == key)
				return (enum av_train_action)a;
	return AV_TRAIN_NONE;
}

bool av_action_in_train_view(enum av_action a)
{
	switch (a) {
	case AV_ACTION_NEXT_HEAD: case AV_ACTION_PREV_HEAD: case AV_ACTION_CYCLE_THEME:
	case AV_ACTION_HELP: case AV_ACTION_REPAINT:
	case AV_ACTION_COMMAND: case AV_ACTION_WRITE:   /* lr, and the trained weights */
	case AV_ACTION_LESSON_NEXT: case AV_ACTION_LESSON_PREV: case AV_ACTION_LESSON_RESTORE:
	case AV_ACTION_FOLLOW:   /* a student back to the teacher (--follow) */
	case AV_ACTION_LESSON_CAPTION_DOWN: case AV_ACTION_LESSON_CAPTION_UP:
		return true;
	default:
		return false;
	}
}

/* A curses function key the table below does not name, as a person calls
 * it: Insert, the shifted keys curses has codes for, F13 and on, and the
 * modified keys of xterm-like terminals (terminfo's kLFT5 is Ctrl-Left):
 * they were said as "key 2097705". false when curses has no name for it. */
static bool curses_key_name(int code, char *buf, size_t size)
{
	static const struct {
		int key;
		const char *name;
	} named[] = {
		{ KEY_IC, "Insert" }, { KEY_SLEFT, "Shift-Left" }, { KEY_SRIGHT, "Shift-Right" },
		{ KEY_SR, "Shift-Up" }, { KEY_SF, "Shift-Down" }, { KEY_SHOME, "Shift-Home" },
		{ KEY_SEND, "Shift-End" }, { KEY_SDC, "Shift-Delete" }, { KEY_SIC, "Shift-Insert" },
		{ KEY_SNEXT, "Shift-PgDn" }, { KEY_SPREVIOUS, "Shift-PgUp" }, { KEY_B2, "Center" },
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (named[i].key == code) {
			snprintf(buf, size, "%s", named[i].name);
			return true;
		}
	}
	if (code >= KEY_F(13) && code <= KEY_F(63)) {
		snprintf(buf, size, "F%d", code - KEY_F0);
		return true;
	}
	/* terminfo's extended names: k, the key, the xterm modifier 2..8 */
	static const struct {
		const char *cap, *name;
	} keys[] = {
		{ "LFT", "Left" }, { "RIT", "Right" }, { "UP", "Up" }, { "DN", "Down" },
		{ "HOM", "Home" }, { "END", "End" }, { "IC", "Insert" }, { "DC", "Delete" },
		{ "NXT", "PgDn" }, { "PRV", "PgUp" },
	};
	static const char *const mods[] = {
		"Shift-", "Alt-", "Shift-Alt-", "Ctrl-", "Ctrl-Shift-", "Ctrl-Alt-",
		"Ctrl-Shift-Alt-",
	};
	const char *kn = code > KEY_MAX ? keyname(code) : NULL;
	if (!kn || kn[0] != 'k')
		return false;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t len = strlen(keys[i].cap);
		if (strncmp(kn + 1, keys[i].cap, len) != 0)
			continue;
		const char *digit = kn + 1 + len;
		if (digit[0] >= '2' && digit[0] <= '8' && digit[1] == '\0') {
			snprintf(buf, size, "%s%s", mods[digit[0] - '2'], keys[i].name);
			return true;
		}
	}
	return false;
}

void av_key_name(int key, char *buf, size_t size, bool brief)
{
	if (key > 0 && (key & AV_ALT_BIT)) {
		char base[24];
		av_key_name(key & ~AV_ALT_BIT, base, sizeof(base), brief);
		snprintf(buf, size, brief ? "M-%s" : "Alt-%s", base);
		return;
	}
	static const struct {
		int key;
		const char *name;
	} names[] = {
		{ ' ', "Space" }, { '\t', "Tab" }, { 127, "Backspace" }, { 8, "Backspace" },
		{ '\n', "Enter" }, { '\r', "Enter" }, { AV_KEY_ESC, "Esc" },
		{ AV_FKEY(KEY_BACKSPACE), "Backspace" }, { AV_FKEY(KEY_NPAGE), "PgDn" },
		{ AV_FKEY(KEY_PPAGE), "PgUp" }, { AV_FKEY(KEY_HOME), "Home" },
		{ AV_FKEY(KEY_END), "End" }, { AV_FKEY(KEY_LEFT), "Left" },
		{ AV_FKEY(KEY_RIGHT), "Right" }, { AV_FKEY(KEY_UP), "Up" },
		{ AV_FKEY(KEY_DOWN), "Down" }, { AV_FKEY(KEY_BTAB), "Shift-Tab" },
		{ AV_FKEY(KEY_ENTER), "Enter" }, { AV_FKEY(KEY_DC), "Delete" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].key == key) {
			const char *name = names[i].name;
			if (brief && strcmp(name, "Backspace") == 0)
				name = "Bksp";
			else if (brief && strcmp(name, "Shift-Tab") == 0)
				name = "S-Tab";
			snprintf(buf, size, "%s", name);
			return;
		}
	}
	if (key >= AV_FKEY(KEY_F(1)) && key <= AV_FKEY(KEY_F(12)))
		snprintf(buf, size, "F%d", key - AV_FKEY(KEY_F0));
	else if (key == 0)   /* NUL: what Ctrl-Space (and Ctrl-@) send */
		snprintf(buf, size, "%s", brief ? "^@" : "Ctrl-Space");
	else if (key > 0 && key < 32)
		snprintf(buf, size, brief ? "^%c" : "Ctrl-%c", key + '@');
	else if (key > 32 && key < 127)
		snprintf(buf, size, "%c", key);
	else if (key >= 0x80 && key <= 0x10FFFF)   /* by number: no bidi or control */
		snprintf(buf, size, "U+%04X", (unsigned)key);
	else if (key >= AV_FKEY(0) && key < AV_ALT_BIT &&
		 curses_key_name(key - AV_FKEY(0), buf, size))
		return;
	else
		snprintf(buf, size, "key %d", key);
}

void av_action_key_name(enum av_action act, char *buf, size_t size)
{
	av_key_name(av_actions[act].keys[0], buf, size, false);
}

struct av_matrix_keys av_matrix_keys(void)
{
	struct av_matrix_keys k;
	av_action_key_name(AV_ACTION_PREV_MATRIX, k.back, sizeof(k.back));
	av_action_key_name(AV_ACTION_NEXT_MATRIX, k.on, sizeof(k.on));
	return k;
}

char *av_action_keys_text(enum av_action a, bool brief)
{
	return av_keys_text(&av_actions[a], brief, " ");
}

char *av_keys_text(const struct av_action_info *info, bool brief, const char *sep)
{
	char out[160] = "";
	for (int k = 0; k < info->n_keys; k++) {
		char name[32];
		av_key_name(info->keys[k], name, sizeof(name), brief);
		/* once per name: Backspace has three codes */
		bool seen = false;
		for (int j = 0; j < k && !seen; j++) {
			char other[32];
			av_key_name(info->keys[j], other, sizeof(other), brief);
			seen = strcmp(other, name) == 0;
		}
		if (seen)
			continue;
		if (out[0])
			strncat(out, sep, sizeof(out) - strlen(out) - 1);
		strncat(out, name, sizeof(out) - strlen(out) - 1);
	}
	return av_strdup(out);
}

/* man(7) needs backslashes and leading dots escaped, and "-" as "\-". */
static void man_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

/* A keymap of its own (the editor's, the training view's) under a title
 * (translated). */
static void write_keymap(FILE *out, bool man, const char *title,
			 const struct av_action_info *table, int count)
{
	if (man) {
		fputs(".SS ", out);
		man_escape(out, title);
		fputc('\n', out);
	} else {
		fprintf(out, "\n%s\n", title);
	}
	for (int a = 1; a < count; a++) {
		char *keys = av_keys_text(&table[a], false, " ");
		if (man) {
			fputs(".TP\n.B ", out);
			man_escape(out, keys);
			fputc('\n', out);
			man_escape(out, _(table[a].help));
			fputc('\n', out);
		} else {
			fprintf(out, "  %-22s %s\n", keys, _(table[a].help));
		}
		free(keys);
	}
}

void av_actions_write(FILE *out, bool man)
{
	for (int g = 0; g < AV_GROUP_COUNT; g++) {
		if (man)
			fprintf(out, ".SS %s\n", _(av_action_group_titles[g]));
		else
			fprintf(out, "%s%s\n", g ? "\n" : "", _(av_action_group_titles[g]));
		for (int a = 1; a < AV_ACTION_COUNT; a++) {
			if (av_actions[a].group != (enum av_action_group)g)
				continue;
			char *keys = av_action_keys_text((enum av_action)a, false);
			if (man) {
				fputs(".TP\n.B ", out);
				man_escape(out, keys);
				fputc('\n', out);
				man_escape(out, _(av_actions[a].help));
				fputc('\n', out);
			} else {
				fprintf(out, "  %-22s %s\n", keys, _(av_actions[a].help));
			}
			free(keys);
		}
	}
	write_keymap(out, man, _("Editing a sentence (e, E) or a prompt (:, W); other keys "
		     "insert themselves"),
		     av_edit_actions, AV_EDIT_COUNT);
	/* the main keys that work in the training view too, from the table
	 * (the title named six by hand, and not the lesson keys or f) */
	char also[256] = "";
	for (int a = 1; a < AV_ACTION_COUNT; a++) {
		if (!av_action_in_train_view((enum av_action)a))
			continue;
		char *keys = av_keys_text(&av_actions[a], false, ", ");
		if (also[0])
			strncat(also, ", ", sizeof(also) - strlen(also) - 1);
		strncat(also, keys, sizeof(also) - strlen(also) - 1);
		free(keys);
	}
	char *title = av_printf(_("The training view (t); %s work there too"), also);
	write_keymap(out, man, title, av_train_actions, AV_TRAIN_COUNT);
	free(title);
}
