/* fuzz_theme.c: any bytes as a theme file (av_theme_parse, what --theme
 * FILE reads). A bad file: false and a cause; a good one: palettes within
 * bounds, which the colour code indexes without further checks. */
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
		}
		av_theme_free(&t);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
