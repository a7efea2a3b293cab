/* test_theme.c: theme files, the built-in themes and the colour arithmetic
 * (nearest xterm colours, palettes, shading glyphs). */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "theme.h"
#include "util.h"

#define THEMES_DIR TESTS_SRCDIR "/../themes"
#define BAD_DIR TESTS_SRCDIR "/bad"

static struct av_rgb rgb(const char *s)
{
	struct av_rgb c = { 0, 0, 0 };
	if (!av_parse_rgb(s, &c))
		fail_msg("bad colour in the test: %s", s);
	return c;
}

static void assert_rgb(struct av_rgb got, int r, int g, int b)
{
	if (got.r != r || got.g != g || got.b != b)
		fail_msg("got %d,%d,%d, wanted %d,%d,%d", got.r, got.g, got.b, r, g, b);
}

/* --- colours */

static void test_parse_rgb(void **state)
{
	(void)state;
	struct av_rgb c;
	assert_true(av_parse_rgb("#5f87AF", &c));
	assert_rgb(c, 0x5f, 0x87, 0xaf);
	const char *bad[] = { "", "#", "5f87af", "#5f87a", "#5f87af0", "#5g87af", "blue",
			      "#5f 7af", NULL };
	for (int i = 0; bad[i]; i++) {
		if (av_parse_rgb(bad[i], &c))
			fail_msg("\"%s\" was accepted", bad[i]);
	}
	assert_false(av_parse_rgb(NULL, &c));
}

static void expect_256(const char *colour, int want)
{
	int got = av_rgb_to_256(rgb(colour));
	if (got != want)
		fail_msg("av_rgb_to_256(%s) = %d, wanted %d", colour, got, want);
}

/* Each expected index worked out by hand by squared RGB distance: the cube
 * levels are 0, 95, 135, 175, 215, 255 (index 16 + 36r + 6g + b), the
 * greys 8 + 10i (232 + i). OKLab, used now, agrees on every one of them;
 * test_nearest_256_perceptual has cases where the two differ. */
static void test_rgb_to_256(void **state)
{
	(void)state;
	expect_256("#ff0000", 196);   /* cube (5,0,0) */
	expect_256("#00ff00", 46);    /* cube (0,5,0) */
	expect_256("#0000ff", 21);    /* cube (0,0,5) */
	expect_256("#000000", 16);    /* exact in the cube; grey 8 is further */
	expect_256("#ffffff", 231);   /* cube (5,5,5); grey 238 is further */
	expect_256("#5f87af", 67);    /* exact cube (1,2,3) */
	expect_256("#808080", 244);   /* 128 = 8 + 10*12: exact grey; cube 135 is 3*7^2 off */
	expect_256("#767676", 243);   /* 118 = 8 + 10*11 */
	expect_256("#080808", 232);   /* first grey */
	expect_256("#eeeeee", 255);   /* last grey, 238 */
	expect_256("#fafafa", 231);   /* 250: cube 255 is 3*25 off, grey 238 is 3*144 */
	expect_256("#ff8000", 208);   /* 128 -> 135: cube (5,2,0) */
	expect_256("#2166ac", 25);    /* 33->0, 102->95, 172->175: cube (0,1,3) */
	expect_256("#f7f7f7", 231);   /* 247: cube 255 (3*64) beats grey 238 (3*81) */
	expect_256("#121212", 233);   /* 18 = grey 1; cube 0 is 3*324 off */
	expect_256("#303030", 236);   /* 48: grey 48 exact; cube 0 or 95 far */
	expect_256("#440154", 53);    /* 68->95, 1->0, 84->95: cube (1,0,1) */
	expect_256("#fde725", 220);   /* 253->255, 231->215, 37->0: cube (5,4,0) */
}

static void test_rgb_to_8(void **state)
{
	(void)state;
	assert_int_equal(av_rgb_to_8(rgb("#000000")), 0);
	assert_int_equal(av_rgb_to_8(rgb("#ff0000")), 1);
	assert_int_equal(av_rgb_to_8(rgb("#00ff00")), 2);
	assert_int_equal(av_rgb_to_8(rgb("#ffff00")), 3);
	assert_int_equal(av_rgb_to_8(rgb("#0000ff")), 4);
	assert_int_equal(av_rgb_to_8(rgb("#ff00ff")), 5);
	assert_int_equal(av_rgb_to_8(rgb("#00ffff")), 6);
	assert_int_equal(av_rgb_to_8(rgb("#ffffff")), 7);
	/* Greys go to black or white (the levels are 0 and 205), never a hue. */
	assert_int_equal(av_rgb_to_8(rgb("#808080")), 7);
	assert_int_equal(av_rgb_to_8(rgb("#404040")), 0);
	assert_int_equal(av_rgb_to_8(rgb("#2166ac")), 4);
	assert_int_equal(av_rgb_to_8(rgb("#b2182b")), 1);
}

/* --- palettes and shading */

static void test_palette_at(void **state)
{
	(void)state;
	const struct av_rgb bw[2] = { { 0, 0, 0 }, { 255, 255, 255 } };
	assert_rgb(av_palette_at(bw, 2, 0.0), 0, 0, 0);
	assert_rgb(av_palette_at(bw, 2, 1.0), 255, 255, 255);
	assert_rgb(av_palette_at(bw, 2, 0.5), 128, 128, 128);   /* 127.5 rounds up */
	assert_rgb(av_palette_at(bw, 2, 0.25), 64, 64, 64);     /* 63.75 */
	/* Out of range and NaN are clamped. */
	assert_rgb(av_palette_at(bw, 2, -3.0), 0, 0, 0);
	assert_rgb(av_palette_at(bw, 2, 7.0), 255, 255, 255);
	assert_rgb(av_palette_at(bw, 2, NAN), 0, 0, 0);
	assert_rgb(av_palette_at(bw, 2, INFINITY), 255, 255, 255);

	const struct av_rgb rdbu[3] = { { 0x21, 0x66, 0xac }, { 0xf7, 0xf7, 0xf7 },
					{ 0xb2, 0x18, 0x2b } };
	assert_rgb(av_palette_at(rdbu, 3, 0.0), 0x21, 0x66, 0xac);
	assert_rgb(av_palette_at(rdbu, 3, 0.5), 0xf7, 0xf7, 0xf7);
	assert_rgb(av_palette_at(rdbu, 3, 1.0), 0xb2, 0x18, 0x2b);
	/* A quarter is half way between the first two stops:
	 * (33+247)/2 = 140, (102+247)/2 = 174.5 -> 175, (172+247)/2 = 209.5 -> 210. */
	assert_rgb(av_palette_at(rdbu, 3, 0.25), 140, 175, 210);
	assert_rgb(av_palette_at(rdbu, 3, -0.5), 0x21, 0x66, 0xac);
	assert_rgb(av_palette_at(rdbu, 3, 1.5), 0xb2, 0x18, 0x2b);

	assert_rgb(av_palette_at(rdbu, 1, 0.7), 0x21, 0x66, 0xac);
	assert_rgb(av_palette_at(rdbu, 0, 0.7), 0, 0, 0);
}

static void test_shade_glyph(void **state)
{
	(void)state;
	assert_string_equal(av_shade_glyph(0.0, true), " ");
	assert_string_equal(av_shade_glyph(0.5, true), "▒");
	assert_string_equal(av_shade_glyph(1.0, true), "█");
	assert_string_equal(av_shade_glyph(0.3, true), "░");    /* 1.5 -> 1 */
	assert_string_equal(av_shade_glyph(0.79, true), "▓");   /* 3.95 -> 3 */
	assert_string_equal(av_shade_glyph(-1.0, true), " ");
	assert_string_equal(av_shade_glyph(2.0, true), "█");
	assert_string_equal(av_shade_glyph(NAN, true), " ");

	assert_string_equal(av_shade_glyph(0.0, false), " ");
	assert_string_equal(av_shade_glyph(0.5, false), "%");
	assert_string_equal(av_shade_glyph(1.0, false), "@");
	assert_string_equal(av_shade_glyph(0.19, false), " ");
	assert_string_equal(av_shade_glyph(0.2, false), ":");
	assert_string_equal(av_shade_glyph(0.95, false), "@");
	assert_string_equal(av_shade_glyph(-0.1, false), " ");
	assert_string_equal(av_shade_glyph(1.5, false), "@");
}

/* Without UTF-8 a cell is its shade glyph then its number ("#-23.83"):
 * a glyph that reads as a sign, an operator or a digit makes the number
 * read otherwise ("- 11.55" as minus 11.55, "+ 16.19 = 13.86" as a sum,
 * ".26" as a decimal). Each level is its own glyph. */
static void test_ascii_shades_read_as_no_sign(void **state)
{
	(void)state;
	int n = av_shade_count(false);
	assert_true(n >= 4);
	const char *last = NULL;
	for (int i = 0; i < n; i++) {
		const char *g = av_shade_glyph((i + 0.5) / n, false);
		assert_int_equal(strlen(g), 1);
		if (strchr("+-=.,*/<>0123456789eE", g[0]))
			fail_msg("ASCII shade %d is '%s', which reads as part of a number", i, g);
		if (last)
			assert_string_not_equal(g, last);
		last = g;
	}
}

/* --- the shipped themes */

/* --- perceptual colour and the heat ramps */

static void test_oklab(void **state)
{
	(void)state;
	struct av_lab white = av_oklab(rgb("#ffffff")), black = av_oklab(rgb("#000000"));
	assert_true(fabs(white.L - 1) < 1e-3 && fabs(white.a) < 1e-3 && fabs(white.b) < 1e-3);
	assert_true(fabs(black.L) < 1e-9);
	/* Ottosson's published value for sRGB red: L 0.628, a 0.225, b 0.126 */
	struct av_lab red = av_oklab(rgb("#ff0000"));
	assert_true(fabs(red.L - 0.628) < 1e-3 && fabs(red.a - 0.225) < 1e-3
		    && fabs(red.b - 0.126) < 1e-3);
	/* there and back is exact for every 256-colour value */
	for (int i = 0; i < 256; i++) {
		struct av_rgb c = av_xterm_rgb(i);
		struct av_rgb back = av_oklab_to_rgb(av_oklab(c));
		assert_rgb(back, c.r, c.g, c.b);
	}
	/* the middle of black and white in OKLab is L 0.5, sRGB 99, not 128 */
	const struct av_rgb bw[2] = { { 0, 0, 0 }, { 255, 255, 255 } };
	assert_rgb(av_palette_lab(bw, 2, 0.5), 99, 99, 99);
	assert_rgb(av_palette_lab(bw, 2, 0.0), 0, 0, 0);
	assert_rgb(av_palette_lab(bw, 2, NAN), 0, 0, 0);
	assert_rgb(av_palette_lab(bw, 2, 2.0), 255, 255, 255);
	assert_true(av_colour_distance(rgb("#123456"), rgb("#123456")) == 0);
}

/* The 256 colours: every exact colour maps to itself, and the metric is
 * perceptual where squared RGB is not. */
static void test_nearest_256_perceptual(void **state)
{
	(void)state;
	for (int i = 16; i < 256; i++) {
		int got = av_rgb_to_256(av_xterm_rgb(i));
		if (got != i)
			fail_msg("xterm colour %d came back as %d", i, got);
	}
	assert_rgb(av_xterm_rgb(16), 0, 0, 0);
	assert_rgb(av_xterm_rgb(67), 0x5f, 0x87, 0xaf);
	assert_rgb(av_xterm_rgb(244), 128, 128, 128);
	assert_rgb(av_xterm_rgb(1), 205, 0, 0);
	/* viridis at 7/8, a strong yellow-green: squared RGB prefers the
	 * washed-out #afd75f (149; 2238 against 2333), OKLab sees it is 0.040
	 * off against 0.015 for #afd700 (148) */
	expect_256("#addc30", 148);
	assert_true(av_colour_distance(rgb("#addc30"), av_xterm_rgb(148))
		    < av_colour_distance(rgb("#addc30"), av_xterm_rgb(149)));
	/* viridis at 1/4, blue: #005f87 (24), not the grey-purple #5f5f87 (60) */
	expect_256("#3b528b", 24);
}

/* Value -> level -> colour -> 256 index for the shipped themes' weights:
 * between 0.16 and 0.34 (where attention spreads over a few keys, as in
 * the qkv-walkthrough sample's 8 heads) each level has its own colour. The
 * ramps before OKLab, 21 levels and this index choice drew all of it as
 * one colour (60 in the dark theme). */
static void test_weights_range_distinct(void **state)
{
	(void)state;
	const char *names[] = { "dark", "light" };
	for (int k = 0; k < 2; k++) {
		struct av_theme t;
		assert_true(av_theme_builtin(names[k], &t));
		struct av_ramp r;
		av_ramp_build(&r, &t, false, AV_LEVELS_256);
		int lo = av_ramp_level(r.levels, 0.16), hi = av_ramp_level(r.levels, 0.34);
		assert_true(hi - lo >= 4);
		for (int i = lo + 1; i <= hi; i++) {
			if (r.xterm[i] == r.xterm[i - 1])
				fail_msg("%s: weights %.3f and %.3f are both colour %d", names[k],
					 (double)(i - 1) / (r.levels - 1), (double)i / (r.levels - 1),
					 r.xterm[i]);
		}
		av_theme_free(&t);
	}
}

/* Every ramp of the shipped themes runs on: an index shows one run of
 * levels, never again after another (A B A would show 0.10 like 0.20 but
 * unlike 0.15), and at most 3 neighbours share one where the cube has
 * nothing between them. */
static void test_ramps_ordered(void **state)
{
	(void)state;
	const char *names[] = { "dark", "light" };
	for (int k = 0; k < 2; k++) {
		struct av_theme t;
		assert_true(av_theme_builtin(names[k], &t));
		for (int d = 0; d < 2; d++) {
			struct av_ramp r;
			av_ramp_build(&r, &t, d == 1, AV_LEVELS_256);
			assert_int_equal(r.levels, AV_LEVELS_256);
			int shared = 0;
			for (int i = 1; i < r.levels; i++) {
				if (r.xterm[i] == r.xterm[i - 1]) {
					shared++;
					continue;
				}
				for (int j = 0; j < i - 1; j++)
					if (r.xterm[j] == r.xterm[i])
						fail_msg("%s %s: level %d returns to level %d's "
							 "colour %d", names[k],
							 d ? "diverging" : "sequential", i, j,
							 r.xterm[i]);
			}
			if (shared > 3)
				fail_msg("%s %s: %d neighbours share a colour", names[k],
					 d ? "diverging" : "sequential", shared);
			/* each level near its colour (OKLab 0.12: the cube's
			 * coarsest gaps) */
			for (int i = 0; i < r.levels; i++)
				assert_true(av_colour_distance(r.rgb[i],
							       av_xterm_rgb(r.xterm[i])) < 0.12);
			/* a direct-colour ramp is the palette itself */
			av_ramp_build(&r, &t, d == 1, AV_LEVELS_DIRECT);
			for (int i = 0; i < r.levels; i++) {
				struct av_rgb want = av_theme_colour(&t, d == 1,
								     (double)i / (r.levels - 1));
				assert_rgb(r.rgb[i], want.r, want.g, want.b);
			}
		}
		av_theme_free(&t);
	}
}

/* The diverging palettes are symmetric: level i and its mirror are as
 * light as each other, zero is a neutral grey, the two signs are blue
 * (OKLab b < 0) and orange (b > 0), and the further from zero, the
 * further the lightness from zero's (so size reads without hue, as a
 * colour-blind reader or a grey projector sees it). */
static void test_diverging_symmetric(void **state)
{
	(void)state;
	const char *names[] = { "dark", "light" };
	for (int k = 0; k < 2; k++) {
		struct av_theme t;
		assert_true(av_theme_builtin(names[k], &t));
		struct av_ramp r;
		av_ramp_build(&r, &t, true, AV_LEVELS_DIRECT);
		int mid = r.levels / 2;
		struct av_lab zero = av_oklab(r.rgb[mid]);
		assert_true(hypot(zero.a, zero.b) < 0.01);
		double before = 0;
		for (int i = 1; i <= mid; i++) {
			struct av_lab neg = av_oklab(r.rgb[mid - i]), pos = av_oklab(r.rgb[mid + i]);
			if (fabs(neg.L - pos.L) > 0.02)
				fail_msg("%s: level ±%d lightness %.3f vs %.3f", names[k], i,
					 neg.L, pos.L);
			assert_true(neg.b < 0 && pos.b > 0);
			double away = fabs(pos.L - zero.L);
			assert_true(away > before);
			before = away;
		}
		/* the levels map symmetrically too: position p and 1 - p */
		assert_int_equal(av_ramp_level(r.levels, 0.5), mid);
		assert_int_equal(av_ramp_level(r.levels, 0.3) + av_ramp_level(r.levels, 0.7),
				 r.levels - 1);
		av_theme_free(&t);
	}
}

static bool same_look(struct av_look8 x, struct av_look8 y)
{
	return x.fg == y.fg && x.bg == y.bg && x.bold == y.bold && x.dim == y.dim;
}

/* 8 colours: every band of a sign looks different from the others and
 * from zero, the signs differ, and the bands follow the shading glyphs. */
static void test_look8_levels(void **state)
{
	(void)state;
	const char *names[] = { "dark", "light" };
	for (int k = 0; k < 2; k++) {
		struct av_theme t;
		assert_true(av_theme_builtin(names[k], &t));
		struct av_look8 seen[3][AV_BANDS];
		for (int band = 0; band < AV_BANDS; band++) {
			double m = (band + 0.5) / AV_BANDS;
			seen[0][band] = av_look8_at(&t, true, 0.5 - m / 2);
			seen[1][band] = av_look8_at(&t, true, 0.5 + m / 2);
			seen[2][band] = av_look8_at(&t, false, m);
			for (int s = 0; s < 3; s++) {
				assert_int_equal(seen[s][band].band, band);
				/* the band is the glyph's: " ░▒▓█" */
				static const char *const glyphs[] = { " ", "░", "▒", "▓", "█" };
				assert_string_equal(av_shade_glyph(m, true), glyphs[band]);
			}
		}
		for (int s = 0; s < 3; s++)
			for (int i = 0; i < AV_BANDS; i++)
				for (int j = 0; j < i; j++)
					if (same_look(seen[s][i], seen[s][j]))
						fail_msg("%s: bands %d and %d look alike", names[k],
							 i, j);
		for (int band = 1; band < AV_BANDS; band++)
			assert_false(same_look(seen[0][band], seen[1][band]));
		/* zero is zero whichever side */
		assert_true(same_look(seen[0][0], seen[1][0]));
		/* a value and its negative fall in the same band, boundaries too
		 * (the legend's 21 steps put 0.3 and 0.7 on one) */
		for (int i = 0; i <= 40; i++) {
			double x = i / 80.0;
			assert_int_equal(av_look8_at(&t, true, 0.5 - x).band,
					 av_look8_at(&t, true, 0.5 + x).band);
			assert_string_equal(av_shade_glyph(fabs(2 * (0.5 - x) - 1), true),
					    av_shade_glyph(fabs(2 * (0.5 + x) - 1), true));
		}
		for (int i = 0; i <= 20; i++) {
			double p = i / 20.0;
			assert_int_equal(av_look8_at(&t, true, p).band,
					 av_look8_at(&t, true, 1 - p).band);
		}
		av_theme_free(&t);
	}
}

/* A theme with black-to-white palettes and `extra` inside "palettes". */
static char *two_stop_theme(const char *extra)
{
	char *elements = av_strdup("");
	for (int i = 0; av_element_keys[i]; i++) {
		char *more = av_printf("%s%s\"%s\": {}", elements, i ? ", " : "",
				       av_element_keys[i]);
		free(elements);
		elements = more;
	}
	char *text = av_printf("{\"name\": \"t\", \"palettes\": {\"diverging\": [\"#000000\", "
			       "\"#ffffff\"], \"sequential\": [\"#000000\", \"#ffffff\"]%s}, "
			       "\"elements\": {%s}}", extra, elements);
	free(elements);
	return text;
}

/* "interpolate" chooses how stops mix; anything else is an error. */
static void test_interpolate_field(void **state)
{
	(void)state;
	struct av_theme t;
	char *cause = NULL;
	char *text = two_stop_theme("");
	assert_true(av_theme_parse(text, "t.json", &t, &cause));
	assert_false(t.rgb_mix);
	assert_rgb(av_theme_colour(&t, false, 0.5), 99, 99, 99);
	av_theme_free(&t);
	free(text);
	text = two_stop_theme(", \"interpolate\": \"rgb\"");
	assert_true(av_theme_parse(text, "t.json", &t, &cause));
	assert_true(t.rgb_mix);
	assert_rgb(av_theme_colour(&t, false, 0.5), 128, 128, 128);
	av_theme_free(&t);
	free(text);
	text = two_stop_theme(", \"interpolate\": \"hsv\"");
	assert_false(av_theme_parse(text, "t.json", &t, &cause));
	assert_non_null(strstr(cause, "interpolate"));
	assert_non_null(strstr(cause, "oklab"));
	free(cause);
	free(text);
}

static void test_element_keys(void **state)
{
	(void)state;
	int n = 0;
	while (av_element_keys[n])
		n++;
	assert_int_equal(n, AV_EL_COUNT);
	assert_string_equal(av_element_keys[AV_EL_NORMAL], "normal");
	assert_string_equal(av_element_keys[AV_EL_CURSOR], "cursor");
	assert_string_equal(av_element_keys[AV_EL_MASKED], "masked");
	assert_string_equal(av_element_keys[AV_EL_DIM], "dim");
}

static void assert_stops_equal(const struct av_rgb *a, const struct av_rgb *b, int n)
{
	for (int i = 0; i < n; i++)
		assert_rgb(a[i], b[i].r, b[i].g, b[i].b);
}

static void assert_style_equal(const struct av_style *a, const struct av_style *b,
			       const char *key)
{
	if (a->has_fg != b->has_fg || a->has_bg != b->has_bg || a->bold != b->bold
	    || a->reverse != b->reverse || a->underline != b->underline
	    || (a->has_fg && memcmp(&a->fg, &b->fg, sizeof a->fg) != 0)
	    || (a->has_bg && memcmp(&a->bg, &b->bg, sizeof a->bg) != 0))
		fail_msg("element \"%s\" differs", key);
}

static void assert_theme_equal(const struct av_theme *a, const struct av_theme *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->description, b->description);
	assert_int_equal(a->monochrome, b->monochrome);
	assert_int_equal(a->n_diverging, b->n_diverging);
	assert_int_equal(a->n_sequential, b->n_sequential);
	assert_stops_equal(a->diverging, b->diverging, a->n_diverging);
	assert_stops_equal(a->sequential, b->sequential, a->n_sequential);
	for (int i = 0; i < AV_EL_COUNT; i++)
		assert_style_equal(&a->elements[i], &b->elements[i], av_element_keys[i]);
}

/* The smallest squared distance from c to any colour of a palette (sampled
 * finely, as the theme mixes them: the colours between the stops too). */
static int palette_distance(struct av_rgb c, const struct av_theme *t, bool diverging)
{
	int best = 3 * 255 * 255;
	for (int i = 0; i <= 200; i++) {
		struct av_rgb p = av_theme_colour(t, diverging, i / 200.0);
		int d = (c.r - p.r) * (c.r - p.r) + (c.g - p.g) * (c.g - p.g)
			+ (c.b - p.b) * (c.b - p.b);
		if (d < best)
			best = d;
	}
	return best;
}

/* A masked cell or the cursor must not look like any value: their
 * backgrounds stay at least 40 per channel (RMS) from both palettes. */
static void assert_unmistakable(const struct av_theme *t, enum av_element el)
{
	const struct av_style *st = &t->elements[el];
	if (!st->has_bg)
		fail_msg("%s: \"%s\" has no background", t->name, av_element_keys[el]);
	int d = palette_distance(st->bg, t, true);
	int s = palette_distance(st->bg, t, false);
	if (d < 3 * 40 * 40 || s < 3 * 40 * 40)
		fail_msg("%s: \"%s\" is too close to a palette colour (%d, %d)", t->name,
			 av_element_keys[el], d, s);
}

static void check_shipped(const char *name)
{
	char *path = av_printf("%s/%s.json", THEMES_DIR, name);
	struct av_theme file, builtin;
	char *cause = NULL;
	if (!av_theme_load(path, &file, &cause))
		fail_msg("%s", cause);
	assert_true(av_theme_builtin(name, &builtin));
	assert_string_equal(file.name, name);
	assert_theme_equal(&file, &builtin);
	assert_true(file.n_diverging >= 3);
	assert_true(file.n_sequential >= 2);
	/* The masked and cursor cells must stand out from normal text. */
	assert_true(memcmp(&file.elements[AV_EL_MASKED], &file.elements[AV_EL_NORMAL],
			   sizeof file.elements[0]) != 0);
	assert_true(memcmp(&file.elements[AV_EL_CURSOR], &file.elements[AV_EL_NORMAL],
			   sizeof file.elements[0]) != 0);
	if (file.monochrome) {
		for (int i = 0; i < AV_EL_COUNT; i++)
			assert_false(file.elements[i].has_fg || file.elements[i].has_bg);
		assert_true(file.elements[AV_EL_CURSOR].reverse);
	} else {
		assert_unmistakable(&file, AV_EL_MASKED);
		assert_unmistakable(&file, AV_EL_CURSOR);
	}
	av_theme_free(&file);
	av_theme_free(&builtin);
	assert_null(file.name);
	free(path);
}

static void test_shipped_dark(void **state)
{
	(void)state;
	check_shipped("dark");
	struct av_theme t;
	assert_true(av_theme_builtin("dark", &t));
	assert_false(t.monochrome);
	/* The seeds' matplotlib plots use viridis (its colours at 0, 1/8, ..., 1). */
	assert_int_equal(t.n_sequential, 9);
	assert_rgb(t.sequential[0], 0x44, 0x01, 0x54);
	assert_rgb(t.sequential[4], 0x21, 0x91, 0x8c);
	assert_rgb(t.sequential[8], 0xfd, 0xe7, 0x25);
	assert_false(t.rgb_mix);
	av_theme_free(&t);
}

static void test_shipped_light(void **state)
{
	(void)state;
	check_shipped("light");
	struct av_theme t;
	assert_true(av_theme_builtin("light", &t));
	assert_false(t.monochrome);
	/* blue, white in the middle, brown-orange */
	assert_rgb(av_theme_colour(&t, true, 0.0), 0x1a, 0x60, 0x9e);
	assert_rgb(av_theme_colour(&t, true, 0.5), 0xf5, 0xf5, 0xf5);
	assert_rgb(av_theme_colour(&t, true, 1.0), 0x90, 0x46, 0x07);
	assert_true(t.elements[AV_EL_NORMAL].has_bg);
	assert_rgb(t.elements[AV_EL_NORMAL].bg, 255, 255, 255);
	av_theme_free(&t);
}

static void test_shipped_mono(void **state)
{
	(void)state;
	check_shipped("mono");
	struct av_theme t;
	assert_true(av_theme_builtin("mono", &t));
	assert_true(t.monochrome);
	av_theme_free(&t);
}

/* --- finding themes */

static void test_load_by_name(void **state)
{
	(void)state;
	struct av_theme t;
	char *cause = NULL;
	assert_true(av_theme_load("light", &t, &cause));
	assert_null(cause);
	assert_string_equal(t.name, "light");
	av_theme_free(&t);
}

static void test_load_errors(void **state)
{
	(void)state;
	struct av_theme t;
	char *cause = NULL;
	assert_false(av_theme_load("Dark!", &t, &cause));
	assert_string_equal(cause, "invalid theme name \"Dark!\" (a name has only a-z, 0-9, "
			    "_ and -; a path contains / or ends in .json)");
	assert_null(t.name);

	assert_false(av_theme_load("nope", &t, &cause));
	const char *head = "no theme named \"nope\" (looked in ";
	const char *tail = "; available: dark, light, mono)";
	assert_int_equal(strncmp(cause, head, strlen(head)), 0);
	assert_true(strlen(cause) > strlen(tail));
	assert_string_equal(cause + strlen(cause) - strlen(tail), tail);

	assert_false(av_theme_load(BAD_DIR "/no-such-theme.json", &t, &cause));
	assert_string_equal(cause, BAD_DIR "/no-such-theme.json: No such file or directory");
	free(cause);

	assert_false(av_theme_builtin("nope", &t));
	assert_null(t.name);
}

/* One file per way a theme can be wrong, with the whole message after the
 * path. */
static const struct {
	const char *file, *message;
} bad_files[] = {
	/* Column 39 is the second string, where the comma is missing (the tab
	 * counts as one column). */
	{ "theme-syntax.json",
	  ":3:39: expected ',' or ']' after item 1 of the list, found '\"'" },
	{ "theme-colour.json", ": \"palettes\".\"diverging\"[2]: expected a colour like "
	  "\"#rrggbb\", got \"blue\"" },
	{ "theme-fg-colour.json", ": \"elements\".\"normal\".\"fg\": expected a colour "
	  "like \"#rrggbb\" or \"default\", got \"#12345\"" },
	{ "theme-element-unknown.json", ": \"elements\": unknown key \"cursr\" (allowed: "
	  "normal, header, title, label, formula, cursor, masked, oov, highlight, status, "
	  "error, help or dim)" },
	{ "theme-element-missing.json", ": missing \"elements\".\"header\"" },
	{ "theme-style-key.json", ": \"elements\".\"normal\": unknown key \"colour\" "
	  "(allowed: fg, bg, bold, reverse or underline)" },
	{ "theme-top-key.json", ": unknown key \"colours\" (allowed: name, description, "
	  "monochrome, palettes, elements or comment)" },
	{ "theme-stops-many.json", ": \"palettes\".\"sequential\": expected 2 to 16 "
	  "colours, got 17" },
	{ "theme-palette-empty.json", ": \"palettes\".\"diverging\": expected 2 to 16 "
	  "colours, got 0" },
	{ "theme-bold-type.json", ": \"elements\".\"normal\".\"bold\": expected true or "
	  "false, got a string" },
	{ "theme-no-palettes.json", ": missing \"palettes\"" },
	{ "theme-mono-colour.json", ": \"elements\".\"normal\": a monochrome theme has no "
	  "colours (use bold, reverse and underline)" },
};

static void test_bad_files(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
		char *path = av_printf("%s/%s", BAD_DIR, bad_files[i].file);
		char *want = av_printf("%s%s", path, bad_files[i].message);
		struct av_theme t;
		char *cause = NULL;
		if (av_theme_load(path, &t, &cause))
			fail_msg("%s was accepted", path);
		assert_non_null(cause);
		if (strcmp(cause, want) != 0)
			fail_msg("%s:\n got  %s\n want %s", bad_files[i].file, cause, want);
		/* A failed load leaves nothing to free. */
		assert_null(t.name);
		assert_null(t.description);
		assert_int_equal(t.n_diverging, 0);
		free(cause);
		free(want);
		free(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rgb),
		cmocka_unit_test(test_rgb_to_256),
		cmocka_unit_test(test_rgb_to_8),
		cmocka_unit_test(test_palette_at),
		cmocka_unit_test(test_shade_glyph),
		cmocka_unit_test(test_ascii_shades_read_as_no_sign),
		cmocka_unit_test(test_oklab),
		cmocka_unit_test(test_nearest_256_perceptual),
		cmocka_unit_test(test_weights_range_distinct),
		cmocka_unit_test(test_ramps_ordered),
		cmocka_unit_test(test_diverging_symmetric),
		cmocka_unit_test(test_look8_levels),
		cmocka_unit_test(test_interpolate_field),
		cmocka_unit_test(test_element_keys),
		cmocka_unit_test(test_shipped_dark),
		cmocka_unit_test(test_shipped_light),
		cmocka_unit_test(test_shipped_mono),
		cmocka_unit_test(test_load_by_name),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
