/* fuzz_theme.c: any bytes as a theme file (av_theme_parse, what --theme
 * FILE reads). A bad file: false and a cause; a good one: palettes within
 * bounds, which the colour code indexes without further checks, and the
 * colours the screen takes from them (ui/colors.c): the heat ramps of
 * 256 colours (a level count from the input's length), the 8-colour looks
 * and the RGB and OKLab mixes. */
#include "config.h"

#include "fuzz_common.h"
#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct av_theme t;
	memset(&t, 0, sizeof(t));
	char *cause = NULL;
	if (av_theme_parse(text, "fuzz.json", &t, &cause)) {
		FUZZ_CHECK(t.n_diverging >= 0 && t.n_diverging <= AV_MAX_STOPS, "%d stops",
			   t.n_diverging);
		FUZZ_CHECK(t.n_sequential >= 0 && t.n_sequential <= AV_MAX_STOPS, "%d stops",
			   t.n_sequential);
		/* what the screen does with a palette: look colours up along it */
		for (int i = 0; i <= 8; i++) {
			if (t.n_diverging > 0)
				(void)av_rgb_to_256(av_palette_at(t.diverging, t.n_diverging, i / 8.0));
			if (t.n_sequential > 0)
				(void)av_rgb_to_8(av_palette_at(t.sequential, t.n_sequential, i / 8.0));
			for (int d = 0; d < 2; d++) {
				(void)av_theme_colour(&t, d, i / 8.0);
				struct av_look8 look = av_look8_at(&t, d, i / 8.0);
				FUZZ_CHECK(look.fg >= -1 && look.fg < 8 && look.bg >= -1 && look.bg < 8 &&
					   look.band >= 0 && look.band < AV_BANDS,
					   "look fg %d bg %d band %d", look.fg, look.bg, look.band);
			}
		}
		int levels = (int)(size % AV_LEVELS_MAX) + 1;
		for (int d = 0; d < 2; d++) {
			struct av_ramp r;
			av_ramp_build(&r, &t, d, levels);
			FUZZ_CHECK(r.levels == levels, "%d levels of %d", r.levels, levels);
			for (int i = 0; i < levels; i++)
				FUZZ_CHECK(r.xterm[i] >= 16 && r.xterm[i] <= 255, "level %d: index %d", i,
					   r.xterm[i]);
		}
		av_theme_free(&t);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
