/* fuzz_sample.c: any bytes as a sample file (av_sample_parse, what
 * --sample FILE reads). A bad file must give false and a cause, never a
 * crash; a good one must come back with the fields the screen relies on. */
#include "config.h"

#include "fuzz_common.h"
#include "sample.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct av_sample s;
	memset(&s, 0, sizeof(s));
	char *cause = NULL;
	if (av_sample_parse(text, "fuzz.json", &s, &cause)) {
		FUZZ_CHECK(!cause, "a cause after success: %s", cause);
		FUZZ_CHECK(s.name && s.sentence, "a sample without a name or sentence");
		FUZZ_CHECK(s.n_vocab >= 0 && (s.n_vocab == 0 || s.vocab), "vocab %d", s.n_vocab);
		av_sample_free(&s);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
