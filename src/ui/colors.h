/* colors.h: the theme turned into curses attributes. Element styles become
 * colour pairs (RGB mapped to the nearest of 256 or 8 colours by theme.h's
 * functions), heatmap values become background colours along the theme's
 * palettes, and without colour (NO_COLOR, TERM=vt100, --theme mono, or a
 * terminal without colours) the styles fall back to the mono theme's
 * attributes and values are shown by shading glyphs.
 *
 * Pairs are allocated lazily from a small cache and never beyond
 * COLOR_PAIRS; when they run out, cells fall back to glyphs. */
#ifndef AV_UI_COLORS_H
#define AV_UI_COLORS_H

#include <stdbool.h>
#include "theme.h"
#include "ui/curses.h"
#include "ui/stages.h"

#define AV_HEAT_LEVELS 17    /* odd: the diverging palette has a middle */
#define AV_PAIR_CACHE 256

struct av_colors {
	bool color;               /* colour pairs are in use */
	bool utf8;                /* the locale can show UTF-8 glyphs */
	int depth;                /* 256 or 8 when color */
	const char *why_mono;     /* why there is no colour, or NULL */
	struct av_theme theme;    /* the current theme (owned) */
	struct av_theme mono;     /* the monochrome styles (owned) */
	attr_t element[AV_EL_COUNT];
	attr_t heat[2][AV_HEAT_LEVELS];   /* [diverging?][level], 0 = not yet */
	bool heat_done[2][AV_HEAT_LEVELS];
	int n_pairs, max_pairs;
	short pair_fg[AV_PAIR_CACHE], pair_bg[AV_PAIR_CACHE];
};

/* Pure decisions, tested without a terminal. */

/* Whether to use colour, and if not, why (a short phrase for the status
 * line): NO_COLOR set and non-empty, a monochrome theme, a terminal without
 * colours (has_colors false or fewer than 8). */
bool av_colors_wanted(const char *no_color, bool theme_mono, bool has_colors, int colors,
		      const char **why);

/* Position in [0, 1] along a palette for value v: weights map 0..1 as is
 * (clamped); signed values map -range..+range with 0 at the middle. */
double av_heat_position(double v, enum av_part_kind kind, double range);

/* Level 0..AV_HEAT_LEVELS-1 of a position; the middle level is exactly 0.5. */
int av_heat_level(double pos);


/* The locale's codeset is UTF-8 (nl_langinfo). */
bool av_locale_is_utf8(void);

/* Curses side (after initscr/newterm). theme is moved into c. */
void av_colors_setup(struct av_colors *c, struct av_theme *theme, bool allow_color,
		     bool utf8);
void av_colors_free(struct av_colors *c);

attr_t av_colors_el(const struct av_colors *c, enum av_element el);

/* The attribute of a heat cell at position pos; 0 without colour. */
attr_t av_colors_heat(struct av_colors *c, bool diverging, double pos);

/* The shading glyph for pos (UTF-8 or ASCII ramp). */
const char *av_colors_shade(const struct av_colors *c, double pos);

#endif
