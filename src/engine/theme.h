/* theme.h: colour themes (themes/NAME.json), and the colour arithmetic the
 * screen needs, with no curses here so it can be tested: palettes as colour
 * stops mixed in OKLab, nearest 256/8-colour index for an RGB value (as
 * tmux's colour_find_rgb, by perceptual distance), heat ramps (value ->
 * level -> colour -> index), the 8-colour bands, and shading glyphs for
 * terminals without colour.
 *
 * Theme file:
 * {"name": "dark", "description": "...",
 *  "palettes": {"diverging": ["#2166ac", "#f7f7f7", "#b2182b"],
 *               "sequential": ["#0d0887", ..., "#f0f921"],
 *               "interpolate": "oklab"},
 *  "elements": {"header": {"fg": "#ffffff", "bg": "#005f87", "bold": true},
 *               "masked": {"fg": "#808080", "bg": "#262626"}, ...}}
 * Colours are "#rrggbb" or "default"; unknown elements or keys are errors.
 * "name", "palettes" (both, 2..AV_MAX_STOPS colours each) and every element
 * are required; "description", "monochrome" and "comment" (free text,
 * ignored) are optional, and so is "palettes"."interpolate": how to mix
 * between stops, "oklab" (perceptually even, the default) or "rgb"
 * (straight lines in sRGB, as themes were drawn before). In an element, "fg"/"bg" absent or "default" mean
 * the terminal's colour; "bold", "reverse", "underline" default to false. A
 * monochrome theme must not give element colours (only the attributes). */
#ifndef AV_THEME_H
#define AV_THEME_H

#include <stdbool.h>

#define AV_MAX_STOPS 16

struct av_rgb {
	unsigned char r, g, b;
};

/* Screen elements, one style each. X-macro: (enum name, JSON key, help). */
#define AV_ELEMENTS(X) \
	X(NORMAL, "normal", "ordinary text") \
	X(HEADER, "header", "the header line") \
	X(TITLE, "title", "panel titles") \
	X(LABEL, "label", "row and column labels") \
	X(FORMULA, "formula", "the formula line of a stage") \
	X(CURSOR, "cursor", "the selected cell") \
	X(MASKED, "masked", "hidden (masked) cells") \
	X(OOV, "oov", "out-of-vocabulary tokens") \
	X(HIGHLIGHT, "highlight", "the selected head's columns, the selected token") \
	X(STATUS, "status", "the status line") \
	X(ERROR, "error", "error messages") \
	X(HELP, "help", "the help overlay") \
	X(DIM, "dim", "secondary text, shapes, scroll indicators")

enum av_element {
#define AV_ELEMENT_ENUM(name, key, help) AV_EL_##name,
	AV_ELEMENTS(AV_ELEMENT_ENUM)
#undef AV_ELEMENT_ENUM
	AV_EL_COUNT
};

extern const char *const av_element_keys[];   /* JSON keys, NULL-terminated */

struct av_style {
	struct av_rgb fg, bg;
	bool has_fg, has_bg;      /* false = the terminal's default colour */
	bool bold, reverse, underline;
};

struct av_theme {
	char *name;
	char *description;
	int n_diverging, n_sequential;
	struct av_rgb diverging[AV_MAX_STOPS];   /* negative .. zero .. positive */
	struct av_rgb sequential[AV_MAX_STOPS];  /* 0 .. 1 */
	struct av_style elements[AV_EL_COUNT];
	bool monochrome;   /* "monochrome": true: never use colour, shade instead */
	bool rgb_mix;      /* "palettes"."interpolate": "rgb" (default "oklab") */
};

/* Parses theme JSON (label names it in messages), with the loaders' style of
 * errors: "themes/x.json:3:14: trailing comma before '}' (JSON allows
 * none)", "themes/x.json:
 * \"palettes\".\"diverging\"[2]: expected a colour like \"#rrggbb\", got
 * \"blue\"" (stops counted from 1, as everywhere in messages). t is
 * overwritten, not freed; on failure it is left zeroed. */
bool av_theme_parse(const char *text, const char *label, struct av_theme *t, char **cause);

/* --theme NAME|PATH: a path (has '/' or ends in .json) as is, else NAME.json
 * in $ATTNVIEW_DATA_DIR/themes, PKGDATADIR/themes, AV_SRCDIR/themes; the
 * names dark, light and mono also work with no files installed (built in).
 * A file found by name wins over the built-in of that name. An unknown name
 * gives "no theme named \"x\" (looked in ...; available: dark, light,
 * mono)"; a bad name "invalid theme name ..."; as av_sample_load. */
bool av_theme_load(const char *name_or_path, struct av_theme *t, char **cause);

/* The built-in themes (same content as themes/dark.json etc., compiled in
 * by tools/embed-json.sh); false for any other name. */
bool av_theme_builtin(const char *name, struct av_theme *t);

void av_theme_free(struct av_theme *t);

/* Colour of t in [0,1] along the stops (linear interpolation in RGB,
 * channels rounded); t is clamped and NaN counts as 0; n = 1 gives the
 * stop, n <= 0 black. */
struct av_rgb av_palette_at(const struct av_rgb *stops, int n, double t);

/* --- perceptual colour ---------------------------------------------------
 *
 * OKLab (Bjorn Ottosson, 2020): L is lightness 0..1, a green-red, b
 * blue-yellow, and equal distances look about equally different (a
 * distance of about 0.02 is just noticeable). Ramps are interpolated here,
 * and the nearest terminal colour is chosen by this distance, so a ramp's
 * steps look even and a step never vanishes into a colour that merely
 * has close RGB numbers. */
struct av_lab {
	double L, a, b;
};

struct av_lab av_oklab(struct av_rgb c);
struct av_rgb av_oklab_to_rgb(struct av_lab c);   /* clipped to sRGB, rounded */
double av_colour_distance(struct av_rgb x, struct av_rgb y);   /* OKLab */

/* As av_palette_at, but interpolated in OKLab between neighbouring stops
 * (the stops themselves come back exactly). */
struct av_rgb av_palette_lab(const struct av_rgb *stops, int n, double t);

/* The theme's colour at t along one of its palettes, interpolated as the
 * theme says ("interpolate": "oklab", the default, or "rgb"). */
struct av_rgb av_theme_colour(const struct av_theme *t, bool diverging, double pos);

/* The RGB value xterm shows for index 0..255 (16..231 the cube, 232..255
 * the greys, 0..15 xterm's defaults); black outside 0..255. */
struct av_rgb av_xterm_rgb(int index);

/* --- heat ramps: value -> level -> RGB -> terminal colour -----------------
 *
 * A heatmap shows a value as one of `levels` evenly spaced colours of a
 * palette (the level of position p in [0,1] is round(p * (levels - 1));
 * levels is odd, so 0.5, a signed value of 0, is a level of its own). How
 * many levels depends on what the terminal can show: */
#define AV_LEVELS_DIRECT 101   /* 24-bit colour: steps of 0.01 in a weight */
#define AV_LEVELS_256 21       /* 256 colours: steps of 0.05, about all the cube holds */
#define AV_LEVELS_MAX 101

struct av_ramp {
	int levels;
	struct av_rgb rgb[AV_LEVELS_MAX];   /* level i is the palette at i/(levels-1) */
	int xterm[AV_LEVELS_MAX];           /* its xterm-256 index (see av_ramp_build) */
};

/* Level of a position (clamped, NaN counts as 0). */
int av_ramp_level(int levels, double pos);

/* Samples the theme's palette at `levels` levels (1..AV_LEVELS_MAX) and
 * picks a 256-colour index for each: near the level's colour (OKLab),
 * different from the neighbouring level's wherever the cube or the grey
 * ramp has a colour between them, and running along the ramp (an index
 * never comes back after another), so the value -> colour map stays
 * ordered. theme.c says how the two wishes are weighed. */
void av_ramp_build(struct av_ramp *r, const struct av_theme *t, bool diverging, int levels);

/* --- 8 colours -----------------------------------------------------------
 *
 * Eight colours cannot make a smooth ramp, so a value is shown in one of 5
 * bands of its magnitude (a signed value's |2p-1|, a weight's p; the bands
 * are av_shade_glyph's " ░▒▓█"), each band its own look: blank, then the
 * sign's colour dim, plain, bold, and finally as the cell's background.
 * The colour is the palette end's nearest basic colour if it is one
 * (blue, yellow, ...), else blue for negative and weights, yellow for
 * positive. With the glyph of the band, 4 levels per sign stay apart even
 * where a terminal ignores dim or bold. */
#define AV_BANDS 5

struct av_look8 {
	int fg, bg;          /* 0..7, or -1: the normal text's colour */
	bool bold, dim;
	int band;            /* 0..AV_BANDS-1: blank .. background */
};

struct av_look8 av_look8_at(const struct av_theme *t, bool diverging, double pos);

/* Nearest xterm-256 index (16..255: the 6x6x6 cube, levels 0, 95, 135,
 * 175, 215, 255, or the grey ramp 232..255 = 8 + 10i, whichever is closer
 * by OKLab distance; a tie goes to the lower index, the cube; the first 16
 * are never chosen, terminals differ there), and nearest of the 8
 * basic ANSI colours (0 black, 1 red, 2 green, 3 yellow, 4 blue, 5 magenta,
 * 6 cyan, 7 white), taken as every channel 0 or 205, so greys go to black
 * or white (the split is at 102/103), never to a hue. */
int av_rgb_to_256(struct av_rgb c);
int av_rgb_to_8(struct av_rgb c);

/* Shading for terminals without colour: a glyph whose density shows t in
 * [0,1]; UTF-8 " ░▒▓█" when utf8, else the ASCII ramp " .:-=+*#%@". Each
 * glyph covers an equal share of [0,1] (0 is blank, 1 the densest); t is
 * clamped, NaN counts as 0. The string is static. */
const char *av_shade_glyph(double t, bool utf8);
/* How many glyphs that ramp has (5 or 10): the glyph for t = i / (n - 1)
 * is the ramp's i-th, so a legend of n swatches shows each glyph once. */
int av_shade_count(bool utf8);

/* Whether black text reads better than white on c (relative luminance). */
bool av_rgb_is_light(struct av_rgb c);

/* Parses "#rrggbb"; false if malformed. */
bool av_parse_rgb(const char *s, struct av_rgb *out);

#endif
