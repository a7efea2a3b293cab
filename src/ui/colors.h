/* colors.h: the theme turned into curses attributes. Element styles become
 * colour pairs (RGB mapped to the nearest of 256 or 8 colours by theme.h's
 * functions, or given as is on a direct-colour terminal), heatmap values
 * become colours along the theme's palettes, and without colour (NO_COLOR,
 * TERM=vt100, --theme mono, or a terminal without colours) the styles fall
 * back to the mono theme's attributes and values are shown by shading
 * glyphs.
 *
 * How a value looks, by what the terminal offers:
 *   direct colour (ncurses COLORS >= 2^24, e.g. TERM=xterm-direct):
 *     AV_LEVELS_DIRECT levels (steps of 0.01), each its own RGB colour;
 *   256 colours: AV_LEVELS_256 levels on the theme's av_ramp, whose
 *     indices differ between neighbours wherever the palette allows;
 *   8 colours: av_look8_at's bands (colour, dim/bold, the cell's
 *     background) with the band's glyph beside the number;
 *   no colour: the glyph alone (" ░▒▓█", or ASCII outside UTF-8).
 * COLORTERM=truecolor alone does not give direct colour: curses draws a
 * colour by the terminal description's setaf/setab, and xterm-256color's
 * take indices 0..255 only (app.c opens the "-direct" twin of TERM when
 * the system has it; see av_colors_direct_term).
 *
 * Pairs are allocated lazily and cached, never beyond COLOR_PAIRS or 255
 * (COLOR_PAIR() holds 8 bits); when they run out, cells fall back to
 * glyphs. The most any theme needs is 2 * AV_LEVELS_DIRECT + elements. */
#ifndef AV_UI_COLORS_H
#define AV_UI_COLORS_H

#include <stdbool.h>
#include "theme.h"
#include "ui/curses.h"
#include "ui/stages.h"

#define AV_HEAT_LEVELS AV_LEVELS_256   /* odd: the diverging palette has a middle */
#define AV_PAIR_CACHE 255
#define AV_DEPTH_DIRECT (1 << 24)

struct av_colors {
	bool color;               /* colour pairs are in use */
	bool utf8;                /* the locale can show UTF-8 glyphs */
	int depth;                /* 8, 256 or AV_DEPTH_DIRECT when color */
	const char *why_mono;     /* why there is no colour, or NULL */
	struct av_theme theme;    /* the current theme (owned) */
	struct av_theme mono;     /* the monochrome styles (owned) */
	attr_t element[AV_EL_COUNT];
	struct av_ramp ramp[2];   /* [diverging?], for the depth */
	attr_t heat[2][AV_LEVELS_MAX];   /* [diverging?][level] */
	bool heat_done[2][AV_LEVELS_MAX];
	int n_pairs, max_pairs;
	int pair_fg[AV_PAIR_CACHE], pair_bg[AV_PAIR_CACHE];
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

/* Level 0..AV_HEAT_LEVELS-1 of a position on a 256-colour terminal; the
 * middle level is exactly 0.5. */
int av_heat_level(double pos);

/* The colour depth to use: AV_DEPTH_DIRECT when curses has direct colour
 * (COLORS >= 2^24), 256, or 8. */
int av_colors_depth(int colors);

/* The terminal description to open for TERM and COLORTERM: "xterm-direct"
 * for TERM=xterm-256color when COLORTERM says truecolor or 24bit,
 * likewise "tmux-direct" for tmux-256color; NULL (use TERM) otherwise:
 * nothing says the terminal takes 24-bit colour, or TERM names one with
 * fewer colours on purpose (TERM=xterm for 8), or one of its own.
 * The caller falls back to TERM when the system has no such entry
 * (Debian keeps them in ncurses-term). */
const char *av_colors_direct_term(const char *term, const char *colorterm);


/* av_locale_is_utf8: util.h (batch output asks it too). */

/* Curses side (after initscr/newterm). theme is moved into c. */
void av_colors_setup(struct av_colors *c, struct av_theme *theme, bool allow_color,
		     bool utf8);
void av_colors_free(struct av_colors *c);

attr_t av_colors_el(const struct av_colors *c, enum av_element el);

/* The attribute of a heat cell at position pos; 0 without colour. */
attr_t av_colors_heat(struct av_colors *c, bool diverging, double pos);

/* Whether heat cells carry a shading glyph beside the number: without
 * colour, and on 8 colours (where the glyph tells the bands apart). */
bool av_colors_glyphs(const struct av_colors *c);

/* The shading glyph for a magnitude (a weight, or a signed value's
 * |2 pos - 1|): the UTF-8 or ASCII ramp; on 8 colours a blank for the top
 * band, whose cell is drawn in the colour itself. */
const char *av_colors_shade(const struct av_colors *c, double magnitude);

/* The sign of a cell drawn without its number (compact cells, the
 * all-heads grid), where no colour shows it: "−" ("-" outside UTF-8) for
 * a signed value below 0 whose glyph is not blank, put after the glyph
 * ("▓−"), when the cell's attribute heat carries no colour; NULL
 * otherwise. Without colour a glyph shows only a magnitude: −23.8 and
 * +16.1 were the same "▓▓". */
const char *av_colors_sign_mark(const struct av_colors *c, attr_t heat, bool diverging,
				double pos);

/* How many swatches a legend shows, the i-th of n at pos i / (n - 1): in
 * colour, want (a smooth ramp); where cells are glyphs, each of the ramp's
 * glyphs once (mirrored about the blank when diverging), so the legend
 * lists exactly the shades the cells use: 9 swatches at i / 8 skipped the
 * ASCII ramp's "=". */
int av_colors_legend_steps(const struct av_colors *c, bool diverging, int want);

/* One legend swatch of width cells for pos, drawn as a cell of that value
 * is: colour, or the glyph (in the band's colour on 8 colours). */
void av_colors_swatch(WINDOW *w, int y, int x, int width, struct av_colors *c,
		      bool diverging, double pos);

#endif
