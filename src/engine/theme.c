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

#include "i18n.h"
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
static const char *const palette_keys[] = { "diverging", "sequential", "interpolate", NULL };
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
		return av_fail(cause, _("missing \"palettes\".\"%s\""), key);
	if (!cJSON_IsArray(list))
		return av_fail(cause, _("\"palettes\".\"%s\": expected a list of colours, got %s"),
			       key, av_json_type_name(list));
	int count = cJSON_GetArraySize(list);
	if (count < 2 || count > AV_MAX_STOPS)
		return av_fail(cause, _("\"palettes\".\"%s\": expected 2 to %d colours, got %d"),
			       key, AV_MAX_STOPS, count);
	int i = 0;
	const cJSON *item;
	cJSON_ArrayForEach(item, list) {
		if (!cJSON_IsString(item) || !av_parse_rgb(item->valuestring, &stops[i])) {
			char *got = got_text(item);
			av_fail(cause, _("\"palettes\".\"%s\"[%d]: expected a colour like "
				"\"#rrggbb\", got %s"), key, i + 1, got);
			free(got);
			return false;
		}
		i++;
	}
	*n = count;
	return true;
}

/* "interpolate": "oklab" (the default) or "rgb". */
static bool read_interpolation(const cJSON *palettes, struct av_theme *t, char **cause)
{
	static const char *const ways[] = { "oklab", "rgb", NULL };
	int way = 0;
	if (!av_json_get_enum(palettes, "palettes", "interpolate", false, ways, &way, cause))
		return false;
	t->rgb_mix = way == 1;
	return true;
}

static bool read_palettes(const cJSON *palettes, struct av_theme *t, char **cause)
{
	return av_json_check_keys(palettes, "palettes", palette_keys, cause)
		&& read_palette(palettes, "diverging", t->diverging, &t->n_diverging, cause)
		&& read_palette(palettes, "sequential", t->sequential, &t->n_sequential, cause)
		&& read_interpolation(palettes, t, cause);
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
	av_fail(cause, _("\"%s\".\"%s\": expected a colour like \"#rrggbb\" or \"default\", "
		"got %s"), where, key, got);
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
		ok = av_fail(cause, _("\"%s\": a monochrome theme has no colours (use bold, "
			     "reverse and underline)"), where);
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
		return av_fail(cause, _("\"name\": must not be empty"));
	t->name = av_strdup(name);
	t->description = av_strdup(description);
	return read_palettes(palettes, t, cause) && read_elements(elements, t, cause);
}

bool av_theme_parse(const char *text, const char *label, struct av_theme *t, char **cause)
{
	memset(t, 0, sizeof *t);
	cJSON *root = av_json_parse(text, label, AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE), _("themes"),
				   cause);
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
	if (!av_read_file_limit(path, AV_MAX_TEXT_FILE, _("themes"), &text, NULL, cause))
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
	if (!av_data_find("themes", _("theme"), name_or_path, &path, cause))
		return false;
	if (path) {
		bool ok = load_file(path, t, cause);
		free(path);
		return ok;
	}
	/* A file wins so it can be edited; without one, the compiled-in twin. */
	if (av_theme_builtin(name_or_path, t))
		return true;
	return av_data_not_found("themes", _("theme"), name_or_path, builtin_names, cause);
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

/* Where t (0..1) falls along n stops: stop i and the fraction f towards
 * stop i + 1; false when t is at (or past) the last stop, *i then n - 1. */
static bool palette_segment(int n, double t, int *i, double *f)
{
	double pos = clamp01(t) * (n - 1);
	*i = (int)pos;
	if (*i >= n - 1) {
		*i = n - 1;
		return false;
	}
	*f = pos - *i;
	return true;
}

struct av_rgb av_palette_at(const struct av_rgb *stops, int n, double t)
{
	if (n <= 0)
		return (struct av_rgb){ 0, 0, 0 };
	int i;
	double f;
	if (!palette_segment(n, t, &i, &f))
		return stops[i];
	return (struct av_rgb){ mix(stops[i].r, stops[i + 1].r, f),
				mix(stops[i].g, stops[i + 1].g, f),
				mix(stops[i].b, stops[i + 1].b, f) };
}

/* --- OKLab (https://bottosson.github.io/posts/oklab/) */

static double to_linear(unsigned char v)
{
	double c = v / 255.0;
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static unsigned char from_linear(double c)
{
	double v = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1 / 2.4) - 0.055;
	v = v * 255;
	return (unsigned char)(v <= 0 ? 0 : v >= 255 ? 255 : lround(v));
}

struct av_lab av_oklab(struct av_rgb c)
{
	double r = to_linear(c.r), g = to_linear(c.g), b = to_linear(c.b);
	double l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
	double m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
	double s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
	return (struct av_lab){ 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
				1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
				0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s };
}

struct av_rgb av_oklab_to_rgb(struct av_lab c)
{
	double l = c.L + 0.3963377774 * c.a + 0.2158037573 * c.b;
	double m = c.L - 0.1055613458 * c.a - 0.0638541728 * c.b;
	double s = c.L - 0.0894841775 * c.a - 1.2914855480 * c.b;
	l = l * l * l;
	m = m * m * m;
	s = s * s * s;
	return (struct av_rgb){
		from_linear(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
		from_linear(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
		from_linear(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s) };
}

static double lab_distance(struct av_lab x, struct av_lab y)
{
	return sqrt((x.L - y.L) * (x.L - y.L) + (x.a - y.a) * (x.a - y.a)
		    + (x.b - y.b) * (x.b - y.b));
}

double av_colour_distance(struct av_rgb x, struct av_rgb y)
{
	return lab_distance(av_oklab(x), av_oklab(y));
}

struct av_rgb av_palette_lab(const struct av_rgb *stops, int n, double t)
{
	if (n <= 0)
		return (struct av_rgb){ 0, 0, 0 };
	int i;
	double f;
	if (!palette_segment(n, t, &i, &f))
		return stops[i];
	if (f == 0)
		return stops[i];
	struct av_lab a = av_oklab(stops[i]), b = av_oklab(stops[i + 1]);
	return av_oklab_to_rgb((struct av_lab){ a.L + (b.L - a.L) * f, a.a + (b.a - a.a) * f,
						a.b + (b.b - a.b) * f });
}

struct av_rgb av_theme_colour(const struct av_theme *t, bool diverging, double pos)
{
	const struct av_rgb *stops = diverging ? t->diverging : t->sequential;
	int n = diverging ? t->n_diverging : t->n_sequential;
	return t->rgb_mix ? av_palette_at(stops, n, pos) : av_palette_lab(stops, n, pos);
}

/* --- xterm's 256 colours */

/* The levels of xterm's 6x6x6 cube (indices 16..231). */
static const int cube_levels[6] = { 0, 95, 135, 175, 215, 255 };

/* xterm's first 16 (its defaults; terminals differ, so never chosen). */
static const struct av_rgb xterm16[16] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 }
};

struct av_rgb av_xterm_rgb(int index)
{
	if (index < 0 || index > 255)
		return (struct av_rgb){ 0, 0, 0 };
	if (index < 16)
		return xterm16[index];
	if (index >= 232) {
		unsigned char v = (unsigned char)(8 + 10 * (index - 232));
		return (struct av_rgb){ v, v, v };
	}
	int i = index - 16;
	return (struct av_rgb){ (unsigned char)cube_levels[i / 36],
				(unsigned char)cube_levels[i / 6 % 6],
				(unsigned char)cube_levels[i % 6] };
}

/* OKLab of indices 16..255, worked out once. */
static const struct av_lab *xterm_labs(void)
{
	static struct av_lab labs[256];
	static bool done;
	if (!done) {
		for (int i = 16; i < 256; i++)
			labs[i] = av_oklab(av_xterm_rgb(i));
		done = true;
	}
	return labs;
}

int av_rgb_to_256(struct av_rgb c)
{
	/* Like tmux's colour_find_rgb, the cube and the grey ramp only (the
	 * first 16 are whatever the user's terminal makes them), but by
	 * OKLab distance: squared RGB distance treats a step in blue like one
	 * in green and puts a dark blue and a dark purple level together. */
	const struct av_lab *labs = xterm_labs();
	struct av_lab want = av_oklab(c);
	int best = 16;
	double best_d = lab_distance(want, labs[16]);
	for (int i = 17; i < 256; i++) {
		double d = lab_distance(want, labs[i]);
		if (d < best_d) {   /* a tie keeps the lower index: the cube */
			best = i;
			best_d = d;
		}
	}
	return best;
}

/* --- 256-colour indices for a ramp
 *
 * Each level takes one of the few indices nearest its colour, chosen for
 * the whole ramp at once (dynamic programming over the levels) to keep
 * the total squared OKLab miss small, where a level that repeats its
 * neighbour's index costs DUP_COST more (a step the reader cannot see).
 * The chosen indices must run along the ramp: each index has a place on
 * it (where the ramp passes nearest), and the places never go back, so
 * an index shows one run of values and the ramp never returns to an
 * earlier colour (A B A would show 0.10 like 0.20 but unlike 0.15). So
 * neighbours differ wherever an index within about DUP_COST's root of the
 * level's colour lies between them, and share one where the 256 colours
 * have nothing there. */
#define CANDIDATES 12
#define DUP_COST (0.07 * 0.07)
#define PLACE_STEPS 8   /* places are found to an eighth of a level */

struct ramp_dp {
	int index[AV_LEVELS_MAX][CANDIDATES];
	double miss[AV_LEVELS_MAX][CANDIDATES];    /* squared distance */
	double total[AV_LEVELS_MAX][CANDIDATES];   /* best cost of levels 0..i */
	signed char from[AV_LEVELS_MAX][CANDIDATES];
	double place[256];                         /* < 0: not yet known */
	struct av_lab lab[AV_LEVELS_MAX];          /* the levels' colours */
};

/* The CANDIDATES indices nearest c, nearest first. */
static void nearest_indices(struct av_rgb c, int *index, double *miss)
{
	const struct av_lab *labs = xterm_labs();
	struct av_lab want = av_oklab(c);
	int n = 0;
	for (int k = 16; k < 256; k++) {
		double d = lab_distance(want, labs[k]);
		d *= d;
		if (n == CANDIDATES && d >= miss[n - 1])
			continue;
		int at = n < CANDIDATES ? n++ : n - 1;
		while (at > 0 && miss[at - 1] > d) {   /* a tie keeps the lower index */
			miss[at] = miss[at - 1];
			index[at] = index[at - 1];
			at--;
		}
		miss[at] = d;
		index[at] = k;
	}
}

/* Where along the ramp (in levels) index k lies nearest. */
static double place_of(const struct av_ramp *r, struct ramp_dp *dp, int k)
{
	if (dp->place[k] >= 0)
		return dp->place[k];
	struct av_lab x = xterm_labs()[k];
	double best = INFINITY, at = 0;
	for (int i = 0; i + 1 < r->levels; i++) {
		struct av_lab a = dp->lab[i], b = dp->lab[i + 1];
		for (int s = 0; s <= PLACE_STEPS; s++) {
			double f = (double)s / PLACE_STEPS;
			struct av_lab p = { a.L + (b.L - a.L) * f, a.a + (b.a - a.a) * f,
					    a.b + (b.b - a.b) * f };
			double d = lab_distance(x, p);
			if (d < best) {
				best = d;
				at = i + f;
			}
		}
	}
	dp->place[k] = at;
	return at;
}

static void ramp_indices(struct av_ramp *r)
{
	int n = r->levels;
	struct ramp_dp *dp = av_malloc(sizeof(*dp));
	for (int k = 0; k < 256; k++)
		dp->place[k] = -1;
	for (int i = 0; i < n; i++) {
		nearest_indices(r->rgb[i], dp->index[i], dp->miss[i]);
		dp->lab[i] = av_oklab(r->rgb[i]);
	}
	for (int b = 0; b < CANDIDATES; b++)
		dp->total[0][b] = dp->miss[0][b];
	for (int i = 1; i < n; i++) {
		for (int b = 0; b < CANDIDATES; b++) {
			int x = dp->index[i][b];
			double best = INFINITY;
			int arg = 0;
			for (int a = 0; a < CANDIDATES; a++) {
				int y = dp->index[i - 1][a];
				double t = dp->total[i - 1][a] + (x == y ? DUP_COST : 0);
				if (x != y && place_of(r, dp, y) >= place_of(r, dp, x))
					continue;   /* would run back */
				if (t < best) {
					best = t;
					arg = a;
				}
			}
			dp->total[i][b] = best + dp->miss[i][b];
			dp->from[i][b] = (signed char)arg;
		}
	}
	int b = 0;
	for (int x = 1; x < CANDIDATES; x++)
		if (dp->total[n - 1][x] < dp->total[n - 1][b])
			b = x;
	if (isinf(dp->total[n - 1][b])) {   /* no path along the ramp: the nearest each */
		for (int i = 0; i < n; i++)
			r->xterm[i] = dp->index[i][0];
	} else {
		for (int i = n - 1; i >= 0; i--) {
			r->xterm[i] = dp->index[i][b];
			b = i > 0 ? dp->from[i][b] : 0;
		}
	}
	free(dp);
}

int av_ramp_level(int levels, double pos)
{
	if (levels <= 1)
		return 0;
	int level = (int)lround(clamp01(pos) * (levels - 1));
	return level >= levels ? levels - 1 : level;
}

void av_ramp_build(struct av_ramp *r, const struct av_theme *t, bool diverging, int levels)
{
	if (levels < 1)
		levels = 1;
	if (levels > AV_LEVELS_MAX)
		levels = AV_LEVELS_MAX;
	r->levels = levels;
	for (int i = 0; i < levels; i++)
		r->rgb[i] = av_theme_colour(t, diverging, levels > 1 ? (double)i / (levels - 1) : 0);
	/* from the middle out for a diverging ramp: zero gets its nearest
	 * colour and each sign's levels are chosen the same way */
	ramp_indices(r);
}

static int dist_sq(struct av_rgb c, int r, int g, int b)
{
	return (c.r - r) * (c.r - r) + (c.g - g) * (c.g - g) + (c.b - b) * (c.b - b);
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

#define SHADE_EPSILON 1e-9

static const char *const shade_utf8[] = { " ", "░", "▒", "▓", "█" };
/* Outside UTF-8: as many levels as the blocks, and none that reads as part
 * of the number beside it (the classic " .:-=+*#%@" made "- 11.55" read as
 * minus 11.55 and "+ 16.19 = 13.86" as a sum) */
static const char *const shade_ascii[] = { " ", ":", "%", "#", "@" };

bool av_rgb_is_light(struct av_rgb c)
{
	/* relative luminance, Rec. 709 weights on the 0..255 values */
	double y = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
	return y > 140;
}

int av_shade_count(bool utf8)
{
	return utf8 ? (int)(sizeof(shade_utf8) / sizeof(shade_utf8[0]))
		    : (int)(sizeof(shade_ascii) / sizeof(shade_ascii[0]));
}

const char *av_shade_glyph(double t, bool utf8)
{
	const char *const *ramp = utf8 ? shade_utf8 : shade_ascii;
	int n = av_shade_count(utf8);
	/* Each glyph covers an equal share of [0,1]; 1 itself is the last. A
	 * boundary counts as the share above it even when 2p - 1 rounds it a
	 * hair below (0.3 and 0.7 get the same glyph). */
	int i = (int)(clamp01(t) * n + SHADE_EPSILON);
	return ramp[i < n ? i : n - 1];
}

/* --- 8 colours */

/* The basic colour (1..6) nearest a palette end, or fallback if that is
 * black or white, which could not show a sign. */
static int end_hue(const struct av_rgb *stops, int n, bool last, int fallback)
{
	if (n <= 0)
		return fallback;
	int c = av_rgb_to_8(stops[last ? n - 1 : 0]);
	return c == 0 || c == 7 ? fallback : c;
}

struct av_look8 av_look8_at(const struct av_theme *t, bool diverging, double pos)
{
	pos = clamp01(pos);
	double magnitude = diverging ? fabs(2 * pos - 1) : pos;
	int band = (int)(magnitude * AV_BANDS + SHADE_EPSILON);
	if (band >= AV_BANDS)
		band = AV_BANDS - 1;
	int hue;
	if (diverging) {
		int neg = end_hue(t->diverging, t->n_diverging, false, 4);
		int plus = end_hue(t->diverging, t->n_diverging, true, 3);
		if (neg == plus) {   /* the sign must show: blue and yellow */
			neg = 4;
			plus = 3;
		}
		hue = pos < 0.5 ? neg : plus;
	} else {
		hue = end_hue(t->sequential, t->n_sequential, true, 4);
	}
	struct av_look8 look = { -1, -1, false, false, band };
	switch (band) {
	case 0:   /* about zero: plain and dim */
		look.dim = true;
		break;
	case 1:
		look.fg = hue;
		look.dim = true;
		break;
	case 2:
		look.fg = hue;
		break;
	case 3:
		look.fg = hue;
		look.bold = true;
		break;
	default:   /* the cell in the colour; text that reads on it */
		look.bg = hue;
		look.fg = hue == 2 || hue == 3 || hue == 6 ? 0 : 7;
		look.bold = look.fg == 7;   /* bold black turns grey on many terminals */
		break;
	}
	return look;
}
