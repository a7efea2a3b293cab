/* colors.c: themes as curses attributes (see colors.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "i18n.h"
#include "ui/colors.h"
#include "ui/widgets/draw.h"

bool av_colors_wanted(const char *no_color, bool theme_mono, bool has_colors, int colors,
		      const char **why)
{
	const char *reason = NULL;
	if (no_color && *no_color)
		reason = _("NO_COLOR is set");
	else if (theme_mono)
		reason = _("monochrome theme");
	else if (!has_colors || colors < 8)
		reason = _("the terminal has no colours");
	if (why)
		*why = reason;
	return reason == NULL;
}

double av_heat_position(double v, enum av_part_kind kind, double range)
{
	if (!isfinite(v))
		return v > 0 ? 1.0 : 0.0;
	if (kind == AV_PART_WEIGHTS)
		return v < 0 ? 0.0 : v > 1 ? 1.0 : v;
	if (!(range > 0))
		return 0.5;
	double pos = 0.5 + 0.5 * v / range;
	return pos < 0 ? 0.0 : pos > 1 ? 1.0 : pos;
}

int av_heat_level(double pos)
{
	return av_ramp_level(AV_HEAT_LEVELS, pos);
}

int av_colors_depth(int colors)
{
	if (colors >= AV_DEPTH_DIRECT)
		return AV_DEPTH_DIRECT;
	return colors >= 256 ? 256 : 8;
}

const char *av_colors_direct_term(const char *term, const char *colorterm)
{
	if (!term || !colorterm
	    || (strcmp(colorterm, "truecolor") != 0 && strcmp(colorterm, "24bit") != 0))
		return NULL;
	/* only the 256-colour entries whose twin differs in colour alone; a
	 * TERM=xterm (8 colours) is taken as meant */
	if (strcmp(term, "xterm-256color") == 0)
		return "xterm-direct";
	if (strcmp(term, "tmux-256color") == 0)
		return "tmux-direct";
	return NULL;
}

/* --- curses -------------------------------------------------------------- */

/* The colour number for rgb at c's depth: packed RGB on a direct-colour
 * terminal (where numbers below 8 mean the basic colours, so near-black
 * blues are drawn black), else the nearest index. */
static int colour_index(const struct av_colors *c, struct av_rgb rgb)
{
	if (c->depth == AV_DEPTH_DIRECT) {
		int packed = rgb.r << 16 | rgb.g << 8 | rgb.b;
		return packed < 8 ? 0 : packed;
	}
	return c->depth >= 256 ? av_rgb_to_256(rgb) : av_rgb_to_8(rgb);
}

/* A pair for (fg, bg), from the cache or newly made; 0 when none is left. */
static int pair_for(struct av_colors *c, int fg, int bg)
{
	for (int i = 0; i < c->n_pairs; i++)
		if (c->pair_fg[i] == fg && c->pair_bg[i] == bg)
			return i + 1;
	if (c->n_pairs >= c->max_pairs)
		return 0;
	int pair = c->n_pairs + 1;
#if defined(NCURSES_EXT_COLORS) && NCURSES_EXT_COLORS
	if (init_extended_pair(pair, fg, bg) == ERR)
		return 0;
#else   /* no direct colour without ncurses' extended colours */
	if (fg > 255 || bg > 255 || init_pair((short)pair, (short)fg, (short)bg) == ERR)
		return 0;
#endif
	c->pair_fg[c->n_pairs] = fg;
	c->pair_bg[c->n_pairs] = bg;
	c->n_pairs++;
	return pair;
}

static attr_t style_attrs(const struct av_style *s)
{
	attr_t a = A_NORMAL;
	if (s->bold)
		a |= A_BOLD;
	if (s->reverse)
		a |= A_REVERSE;
	if (s->underline)
		a |= A_UNDERLINE;
	return a;
}

/* Elements that must stay visible whatever a theme says. */
static attr_t ensure_visible(enum av_element el, const struct av_style *s, attr_t a,
			     bool colour)
{
	bool plain = !s->reverse && !(colour && (s->has_bg || s->has_fg));
	if (plain && (el == AV_EL_CURSOR || el == AV_EL_HEADER || el == AV_EL_HELP))
		a |= A_REVERSE;
	if (el == AV_EL_CURSOR)
		a |= A_BOLD;
	if (plain && (el == AV_EL_MASKED || el == AV_EL_DIM))
		a |= A_DIM;
	if (plain && el == AV_EL_OOV)
		a |= A_UNDERLINE;
	if (plain && (el == AV_EL_TITLE || el == AV_EL_ERROR))
		a |= A_BOLD;
	return a;
}

/* On 8 colours a theme's masked cells (dark grey on near black) become
 * white on black, like a weight of 0 there; hidden must not read as zero,
 * so the text turns magenta, a colour no band uses. */
static int masked_fg8(const struct av_colors *c, int fg, int bg)
{
	const struct av_style *normal = &c->theme.elements[AV_EL_NORMAL];
	int zero_bg = normal->has_bg ? av_rgb_to_8(normal->bg) : COLOR_BLACK;
	if ((bg < 0 ? zero_bg : bg) == zero_bg || bg == COLOR_BLACK)
		return COLOR_MAGENTA;
	return fg;
}

static void compute_elements(struct av_colors *c)
{
	/* an element without a colour takes the normal text's (so a light
	 * theme's labels sit on its light background, not the terminal's) */
	const struct av_style *normal = &c->theme.elements[AV_EL_NORMAL];
	for (int el = 0; el < AV_EL_COUNT; el++) {
		const struct av_style *s = c->color ? &c->theme.elements[el] : &c->mono.elements[el];
		attr_t a = style_attrs(s);
		/* the normal text (the windows' background, so every blank)
		 * gets a pair even in the terminal's own colours: curses sends
		 * a change to pair 0 as op and sgr0 ("\e[39;49m\e(B\e[m"),
		 * a change to a default-coloured pair as op alone, and a
		 * heatmap changes between a cell and its blank gap some
		 * thousand times a repaint (issue 11) */
		bool blank_pair = c->color && el == AV_EL_NORMAL;
		if (c->color && (s->has_fg || s->has_bg || normal->has_fg || normal->has_bg ||
				 blank_pair)) {
			int fg = s->has_fg ? colour_index(c, s->fg)
					   : normal->has_fg ? colour_index(c, normal->fg) : -1;
			int bg = s->has_bg ? colour_index(c, s->bg)
					   : normal->has_bg ? colour_index(c, normal->bg) : -1;
			if (c->depth == 8 && fg >= 0 && fg == bg)   /* greys collapse on 8 */
				fg = bg == COLOR_WHITE || bg == COLOR_YELLOW || bg == COLOR_CYAN
				     || bg == COLOR_GREEN ? COLOR_BLACK : COLOR_WHITE;
			if (el == AV_EL_MASKED && c->depth == 8)
				fg = masked_fg8(c, fg, bg);
			a |= COLOR_PAIR(pair_for(c, fg, bg));
		}
		c->element[el] = ensure_visible((enum av_element)el, s, a, c->color);
	}
}

void av_colors_setup(struct av_colors *c, struct av_theme *theme, bool allow_color, bool utf8)
{
	struct av_theme keep = *theme;
	memset(theme, 0, sizeof(*theme));
	av_colors_free(c);
	c->theme = keep;
	c->utf8 = utf8;
	if (!av_theme_builtin("mono", &c->mono))
		memset(&c->mono, 0, sizeof(c->mono));
	c->color = allow_color && av_colors_wanted(NULL, c->theme.monochrome, has_colors(),
						   COLORS, &c->why_mono);
	if (!allow_color && !c->why_mono)
		c->why_mono = _("no colours");
	if (c->color) {
		start_color();
		use_default_colors();
		c->depth = av_colors_depth(COLORS);
		c->max_pairs = COLOR_PAIRS - 1;
		if (c->max_pairs > AV_PAIR_CACHE)
			c->max_pairs = AV_PAIR_CACHE;
		int levels = c->depth == AV_DEPTH_DIRECT ? AV_LEVELS_DIRECT : AV_LEVELS_256;
		for (int d = 0; d < 2; d++)
			av_ramp_build(&c->ramp[d], &c->theme, d == 1, levels);
	}
	compute_elements(c);
}

void av_colors_free(struct av_colors *c)
{
	av_theme_free(&c->theme);
	av_theme_free(&c->mono);
	memset(c, 0, sizeof(*c));
}

attr_t av_colors_el(const struct av_colors *c, enum av_element el)
{
	return c->element[el];
}

/* The pair and attributes of a band on 8 colours. */
static attr_t heat8(struct av_colors *c, bool diverging, double pos)
{
	struct av_look8 look = av_look8_at(&c->theme, diverging, pos);
	const struct av_style *normal = &c->theme.elements[AV_EL_NORMAL];
	int fg = look.fg >= 0 ? look.fg : normal->has_fg ? av_rgb_to_8(normal->fg) : -1;
	int bg = look.bg >= 0 ? look.bg : normal->has_bg ? av_rgb_to_8(normal->bg) : -1;
	int pair = pair_for(c, fg, bg);
	if (!pair && (fg >= 0 || bg >= 0))
		return A_NORMAL;
	return COLOR_PAIR(pair) | (look.bold ? A_BOLD : 0) | (look.dim ? A_DIM : 0);
}

/* The pair of a level's colour, with black or white text on it. */
static attr_t heat_rgb(struct av_colors *c, bool diverging, int level)
{
	const struct av_ramp *r = &c->ramp[diverging];
	struct av_rgb shown = c->depth == AV_DEPTH_DIRECT ? r->rgb[level]
							  : av_xterm_rgb(r->xterm[level]);
	int bg = c->depth == AV_DEPTH_DIRECT ? colour_index(c, shown) : r->xterm[level];
	int fg;
	if (c->depth == AV_DEPTH_DIRECT)
		fg = av_rgb_is_light(shown) ? 0 : 0xffffff;
	else
		fg = av_rgb_is_light(shown) ? 16 : 231;
	int pair = pair_for(c, fg, bg);
	return pair ? COLOR_PAIR(pair) : A_NORMAL;
}

attr_t av_colors_heat(struct av_colors *c, bool diverging, double pos)
{
	if (!c->color)
		return A_NORMAL;
	int d = diverging ? 1 : 0;
	if (c->depth == 8)   /* bands are few: no cache needed */
		return heat8(c, diverging, pos);
	int level = av_ramp_level(c->ramp[d].levels, pos);
	if (!c->heat_done[d][level]) {
		c->heat[d][level] = c->ramp[d].levels > 0 ? heat_rgb(c, diverging, level) : A_NORMAL;
		c->heat_done[d][level] = true;
	}
	return c->heat[d][level];
}

bool av_colors_glyphs(const struct av_colors *c)
{
	return !c->color || c->depth == 8;
}

const char *av_colors_shade(const struct av_colors *c, double magnitude)
{
	if (c->color && c->depth == 8 && magnitude >= (double)(AV_BANDS - 1) / AV_BANDS)
		return " ";
	return av_shade_glyph(magnitude, c->utf8);
}

const char *av_colors_sign_mark(const struct av_colors *c, attr_t heat, bool diverging,
				double pos)
{
	if (heat != A_NORMAL || !diverging || pos >= 0.5 ||
	    strcmp(av_colors_shade(c, fabs(2 * pos - 1)), " ") == 0)
		return NULL;
	return c->utf8 ? "−" : "-";
}

int av_colors_legend_steps(const struct av_colors *c, bool diverging, int want)
{
	if (!av_colors_glyphs(c))
		return want;
	int n = av_shade_count(c->utf8);
	return diverging ? 2 * n - 1 : n;
}

void av_colors_swatch(WINDOW *w, int y, int x, int width, struct av_colors *c,
		      bool diverging, double pos)
{
	attr_t a = av_colors_heat(c, diverging, pos);
	if (!av_colors_glyphs(c) && a != A_NORMAL) {
		av_fill(w, y, x, width, a);
		return;
	}
	const char *g = av_colors_shade(c, diverging ? fabs(2 * pos - 1) : pos);
	for (int k = 0; k < width; k++)
		av_put(w, y, x + k, g, 1, a);
}
