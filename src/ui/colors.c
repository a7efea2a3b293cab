/* colors.c: themes as curses attributes (see colors.h). */
#include "config.h"

#include <langinfo.h>
#include <math.h>
#include <string.h>

#include "ui/colors.h"

bool av_colors_wanted(const char *no_color, bool theme_mono, bool has_colors, int colors,
		      const char **why)
{
	const char *reason = NULL;
	if (no_color && *no_color)
		reason = "NO_COLOR is set";
	else if (theme_mono)
		reason = "monochrome theme";
	else if (!has_colors || colors < 8)
		reason = "the terminal has no colours";
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
	if (!(pos >= 0))
		pos = 0;
	if (pos > 1)
		pos = 1;
	int level = (int)lround(pos * (AV_HEAT_LEVELS - 1));
	return level < 0 ? 0 : level >= AV_HEAT_LEVELS ? AV_HEAT_LEVELS - 1 : level;
}

bool av_locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

/* --- curses -------------------------------------------------------------- */

static short colour_index(const struct av_colors *c, struct av_rgb rgb)
{
	return (short)(c->depth >= 256 ? av_rgb_to_256(rgb) : av_rgb_to_8(rgb));
}

/* A pair for (fg, bg), from the cache or newly made; 0 when none is left. */
static short pair_for(struct av_colors *c, short fg, short bg)
{
	for (int i = 0; i < c->n_pairs; i++)
		if (c->pair_fg[i] == fg && c->pair_bg[i] == bg)
			return (short)(i + 1);
	if (c->n_pairs >= c->max_pairs)
		return 0;
	short pair = (short)(c->n_pairs + 1);
	if (init_pair(pair, fg, bg) == ERR)
		return 0;
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

static void compute_elements(struct av_colors *c)
{
	/* an element without a colour takes the normal text's (so a light
	 * theme's labels sit on its light background, not the terminal's) */
	const struct av_style *normal = &c->theme.elements[AV_EL_NORMAL];
	for (int el = 0; el < AV_EL_COUNT; el++) {
		const struct av_style *s = c->color ? &c->theme.elements[el] : &c->mono.elements[el];
		attr_t a = style_attrs(s);
		if (c->color && (s->has_fg || s->has_bg || normal->has_fg || normal->has_bg)) {
			short fg = s->has_fg ? colour_index(c, s->fg)
					     : normal->has_fg ? colour_index(c, normal->fg) : -1;
			short bg = s->has_bg ? colour_index(c, s->bg)
					     : normal->has_bg ? colour_index(c, normal->bg) : -1;
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
		c->why_mono = "no colours";
	if (c->color) {
		start_color();
		use_default_colors();
		c->depth = COLORS >= 256 ? 256 : 8;
		c->max_pairs = COLOR_PAIRS - 1;
		if (c->max_pairs > AV_PAIR_CACHE)
			c->max_pairs = AV_PAIR_CACHE;
		if (c->max_pairs > 32767)
			c->max_pairs = 32767;
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

attr_t av_colors_heat(struct av_colors *c, bool diverging, double pos)
{
	if (!c->color)
		return A_NORMAL;
	int level = av_heat_level(pos);
	int d = diverging ? 1 : 0;
	if (c->heat_done[d][level])
		return c->heat[d][level];
	const struct av_rgb *stops = diverging ? c->theme.diverging : c->theme.sequential;
	int n = diverging ? c->theme.n_diverging : c->theme.n_sequential;
	attr_t a = A_NORMAL;
	if (n > 0) {
		struct av_rgb rgb = av_palette_at(stops, n, (double)level / (AV_HEAT_LEVELS - 1));
		short bg = colour_index(c, rgb);
		short fg = av_rgb_is_light(rgb) ? (c->depth >= 256 ? 16 : COLOR_BLACK)
						: (c->depth >= 256 ? 231 : COLOR_WHITE);
		short pair = pair_for(c, fg, bg);
		a = pair ? COLOR_PAIR(pair) : A_NORMAL;
	}
	c->heat[d][level] = a;
	c->heat_done[d][level] = true;
	return a;
}

const char *av_colors_shade(const struct av_colors *c, double pos)
{
	return av_shade_glyph(pos, c->utf8);
}
