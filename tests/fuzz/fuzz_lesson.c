/* fuzz_lesson.c: any bytes as a lesson file (av_lesson_parse, what
 * --lesson FILE reads). A bad file: false and a cause; a good one: every
 * step resolved within its layer (the checks the loader promises, so the
 * screen can apply a step without checking again). */
#include "config.h"

#include "fuzz_common.h"
#include "lesson/lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct av_lesson l;
	memset(&l, 0, sizeof(l));
	char *cause = NULL;
	if (av_lesson_parse(text, "fuzz.json", &l, &cause)) {
		FUZZ_CHECK(l.n_steps >= 1, "%d steps", l.n_steps);
		av_lesson_free(&l);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
