/* theme.c: colour themes and the colour arithmetic of the screen.
 *
 * A theme is read as strictly as a sample: an unknown element or key is an
 * error, because a misspelt "maskd" quietly drawn as plain text would hide
 * exactly the cells the lesson is about. No curses here: the screen turns
 * these RGB values into colour pairs itself. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "theme.h"
#include "util.h"

/* Compiled in from themes/NAME.json by tools/embed-json.sh (Makefile.am),
 * so --theme dark works with nothing installed. */
extern const char av_builtin_theme_dark_json[];
extern const char av_builtin_theme_light_json[];
extern const char av_builtin_theme_mono_json[];

static const char *const builtin_names[] = { "dark", "light", "mono", NULL };
static const char *const builtin_json[] = {
	av_builtin_theme_dark_json, av_builtin_theme_light_json, av_builtin_theme_mono_json
};

const char *const av_element_keys[] = {
#define AV_ELEMENT_KEY(name, key, help) key,
	AV_ELEMENTS(AV_ELEMENT_KEY)
#undef AV_ELEMENT_KEY
	NULL
};

/* "comment" is free text for the author, as in samples. */
static const char *const theme_keys[] = {
	"name", "description", "monochrome", "palettes", "elements", "comment", NULL
};
static const char *const palette_keys[] = { "diverging", "sequential", NULL };
static const char *const style_keys[] = { "fg", "bg", "bold", "reverse", "underline", NULL };

/* --- colours */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool av_parse_rgb(const char *s, struct av_rgb *out)
{
	if (!s || s[0] != '#' || strlen(s) != 7)
		return false;
	unsigned char v[3];
	for (int i = 0; i < 3; i++) {
		int hi = hex_digit(s[1 + 2 * i]), lo = hex_digit(s[2 + 2 * i]);
		if (hi < 0 || lo < 0)
			return false;
		v[i] = (unsigned char)(hi * 16 + lo);
	}
	out->r = v[0];
	out->g = v[1];
	out->b = v[2];
	return true;
}

/* What the file holds where a colour should be: "\"blue\"" or "a number". */
static char *got_text(const cJSON *item)
{
	if (cJSON_IsString(item)) {
		char *text = av_escape(item->valuestring);
		char *quoted = av_printf("\"%s\"", text);
		free(text);
		return quoted;
	}
	return av_strdup(av_json_type_name(item));
}

/* --- palettes */

/* One palette: 2..AV_MAX_STOPS colours (one stop would be no scale at all). */
static bool read_palette(const cJSON *palettes, const char *key, struct av_rgb *stops,
			 int *n, char **cause)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(palettes, key);
	if (!list)
		return av_fail(cause, "missing \"palettes\".\"%s\"", key);
	if (!cJSON_IsArray(list))
		return av_fail(cause, "\"palettes\".\"%s\": expected a list of colours, got %s",
			       key, av_json_type_name(list));
	int count = cJSON_GetArraySize(list);
	if (count < 2 || count > AV_MAX_STOPS)
		return av_fail(cause, "\"palettes\".\"%s\": expected 2 to %d colours, got %d",
			       key, AV_MAX_STOPS, count);
	int i = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, list) {
		if (!cJSON_IsString(item) || !av_parse_rgb(item->valuestring, &stops[i])) {
			char *got = got_text(item);
			av_fail(cause, "\"palettes\".\"%s\"[%d]: expected a colour like "
				"\"#rrggbb\", got %s", key, i + 1, got);
			free(got);
			return false;
		}
		i++;
	}
	*n = count;
	return true;
}

static bool read_palettes(const cJSON *palettes, struct av_theme *t, char **cause)
{
	return av_json_check_keys(palettes, "palettes", palette_keys, cause)
		&& read_palette(palettes, "diverging", t->diverging, &t->n_diverging, cause)
		&& read_palette(palettes, "sequential", t->sequential, &t->n_sequential, cause);
}

/* --- element styles */

/* "fg" or "bg": absent or "default" leave the terminal's colour. */
static bool read_colour(const cJSON *el, const char *where, const char *key,
			struct av_rgb *c, bool *has, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(el, key);
	*has = false;
	if (!item || (cJSON_IsString(item) && strcmp(item->valuestring, "default") == 0))
		return true;
	if (cJSON_IsString(item) && av_parse_rgb(item->valuestring, c)) {
		*has = true;
		return true;
	}
	char *got = got_text(item);
	av_fail(cause, "\"%s\".\"%s\": expected a colour like \"#rrggbb\" or \"default\", "
		"got %s", where, key, got);
	free(got);
	return false;
}

static bool read_style(const cJSON *elements, int i, bool mono, struct av_style *st,
		       char **cause)
{
	const char *key = av_element_keys[i];
	const cJSON *el;
	if (!av_json_get_object(elements, "elements", key, true, &el, cause))
		return false;
	/* json_read quotes `where` as one key; with the inner quotes its
	 * messages name the path: "elements"."cursor"."bold". */
	char *where = av_printf("elements\".\"%s", key);
	bool ok = av_json_check_keys(el, where, style_keys, cause)
		&& read_colour(el, where, "fg", &st->fg, &st->has_fg, cause)
		&& read_colour(el, where, "bg", &st->bg, &st->has_bg, cause)
		&& av_json_get_bool(el, where, "bold", false, &st->bold, cause)
		&& av_json_get_bool(el, where, "reverse", false, &st->reverse, cause)
		&& av_json_get_bool(el, where, "underline", false, &st->underline, cause);
	/* The screen would ignore them, so they can only mislead the author. */
	if (ok && mono && (st->has_fg || st->has_bg))
		ok = av_fail(cause, "\"%s\": a monochrome theme has no colours (use bold, "
			     "reverse and underline)", where);
	free(where);
	return ok;
}

/* Every element is required: a theme that forgot "masked" must not draw
 * hidden cells like visible ones. */
static bool read_elements(const cJSON *elements, struct av_theme *t, char **cause)
{
	if (!av_json_check_keys(elements, "elements", av_element_keys, cause))
		return false;
	for (int i = 0; i < AV_EL_COUNT; i++) {
		if (!read_style(elements, i, t->monochrome, &t->elements[i], cause))
			return false;
	}
	return true;
}

/* --- whole themes */

static bool read_theme(const cJSON *root, struct av_theme *t, char **cause)
{
	const char *name = NULL, *description = "";
	const cJSON *palettes = NULL, *elements = NULL;
	if (!av_json_check_keys(root, NULL, theme_keys, cause)
	    || !av_json_get_string(root, NULL, "name", true, &name, cause)
	    || !av_json_get_string(root, NULL, "description", false, &description, cause)
	    || !av_json_get_bool(root, NULL, "monochrome", false, &t->monochrome, cause)
	    || !av_json_get_object(root, NULL, "palettes", true, &palettes, cause)
	    || !av_json_get_object(root, NULL, "elements", true, &elements, cause))
		return false;
	if (!*name)
		return av_fail(cause, "\"name\": must not be empty");
	t->name = av_strdup(name);
	t->description = av_strdup(description);
	return read_palettes(palettes, t, cause) && read_elements(elements, t, cause);
}

bool av_theme_parse(const char *text, const char *label, struct av_theme *t, char **cause)
{
	memset(t, 0, sizeof *t);
	cJSON *root = av_json_parse(text, label, cause);
	if (!root)
		return false;
	bool ok = read_theme(root, t, cause);
	cJSON_Delete(root);
	if (!ok) {
		av_theme_free(t);
		av_cause_prefix(cause, "%s", label);
	}
	return ok;
}

static bool load_file(const char *path, struct av_theme *t, char **cause)
{
	char *text;
	if (!av_read_file_limit(path, AV_MAX_TEXT_FILE, "themes", &text, NULL, cause))
		return false;
	bool ok = av_theme_parse(text, path, t, cause);
	free(text);
	return ok;
}

bool av_theme_builtin(const char *name, struct av_theme *t)
{
	memset(t, 0, sizeof *t);
	for (int i = 0; builtin_names[i]; i++) {
		if (strcmp(name, builtin_names[i]) == 0)
			return av_theme_parse(builtin_json[i], "(built-in)", t, NULL);
	}
	return false;
}

bool av_theme_load(const char *name_or_path, struct av_theme *t, char **cause)
{
	char *path;
	memset(t, 0, sizeof *t);
	if (!av_data_find("themes", "theme", name_or_path, &path, cause))
		return false;
	if (path) {
		bool ok = load_file(path, t, cause);
		free(path);
		return ok;
	}
	/* A file wins so it can be edited; without one, the compiled-in twin. */
	if (av_theme_builtin(name_or_path, t))
		return true;
	return av_data_not_found("themes", "theme", name_or_path, builtin_names, cause);
}

void av_theme_free(struct av_theme *t)
{
	free(t->name);
	free(t->description);
	memset(t, 0, sizeof *t);
}

/* --- colour arithmetic */

/* t in [0,1]; NaN counts as 0 so a bad value never indexes out of range. */
static double clamp01(double t)
{
	if (!(t > 0))
		return 0;
	return t > 1 ? 1 : t;
}

static unsigned char mix(unsigned char a, unsigned char b, double f)
{
	return (unsigned char)lround(a + (b - a) * f);
}

struct av_rgb av_palette_at(const struct av_rgb *stops, int n, double t)
{
	if (n <= 0)
		return (struct av_rgb){ 0, 0, 0 };
	double pos = clamp01(t) * (n - 1);
	int i = (int)pos;
	if (i >= n - 1)
		return stops[n - 1];
	double f = pos - i;
	return (struct av_rgb){ mix(stops[i].r, stops[i + 1].r, f),
				mix(stops[i].g, stops[i + 1].g, f),
				mix(stops[i].b, stops[i + 1].b, f) };
}

static int dist_sq(struct av_rgb c, int r, int g, int b)
{
	return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b);
}

/* The levels of xterm's 6x6x6 cube (indices 16..231). */
static const int cube_levels[6] = { 0, 95, 135, 175, 215, 255 };

/* The nearest cube level of one channel; a tie goes to the lower one. */
static int nearest_level(int v)
{
	int best = 0;
	for (int i = 1; i < 6; i++) {
		if (abs(v - cube_levels[i]) < abs(v - cube_levels[best]))
			best = i;
	}
	return best;
}

int av_rgb_to_256(struct av_rgb c)
{
	/* The squared distance is a sum over channels, so the nearest cube
	 * colour is the nearest level in each channel. */
	int qr = nearest_level(c.r), qg = nearest_level(c.g), qb = nearest_level(c.b);
	int cube = dist_sq(c, cube_levels[qr], cube_levels[qg], cube_levels[qb]);
	/* The grey ramp 232..255 is 8, 18, ..., 238. */
	int grey = 0;
	for (int i = 1; i < 24; i++) {
		int v = 8 + 10 * i, best = 8 + 10 * grey;
		if (dist_sq(c, v, v, v) < dist_sq(c, best, best, best))
			grey = i;
	}
	int v = 8 + 10 * grey;
	/* A tie goes to the cube, which holds pure black and white. */
	if (dist_sq(c, v, v, v) < cube)
		return 232 + grey;
	return 16 + 36 * qr + 6 * qg + qb;
}

/* The 8 basic colours as xterm draws them without bold, every channel 0 or
 * 205 (xterm's blue is really 0,0,238 and its white 229,229,229; with one
 * level for all, a grey goes to black or white, never to a hue). Index bit
 * 0 is red, bit 1 green, bit 2 blue, as in ANSI. */
static const struct av_rgb basic8[8] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 205 }, { 205, 0, 205 }, { 0, 205, 205 }, { 205, 205, 205 }
};

int av_rgb_to_8(struct av_rgb c)
{
	int best = 0;
	for (int i = 1; i < 8; i++) {
		if (dist_sq(c, basic8[i].r, basic8[i].g, basic8[i].b)
		    < dist_sq(c, basic8[best].r, basic8[best].g, basic8[best].b))
			best = i;
	}
	return best;
}

static const char *const shade_utf8[] = { " ", "░", "▒", "▓", "█" };
static const char *const shade_ascii[] = { " ", ".", ":", "-", "=", "+", "*", "#", "%", "@" };

bool av_rgb_is_light(struct av_rgb c)
{
	/* relative luminance, Rec. 709 weights on the 0..255 values */
	double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
	return y > 140;
}

const char *av_shade_glyph(double t, bool utf8)
{
	const char *const *ramp = utf8 ? shade_utf8 : shade_ascii;
	int n = utf8 ? 5 : 10;
	/* Each glyph covers an equal share of [0,1]; 1 itself is the last. */
	int i = (int)(clamp01(t) * n);
	return ramp[i < n ? i : n - 1];
}
