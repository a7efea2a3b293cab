/* fuzz_tokenizer.c: any bytes as a sentence (av_tokenize: the editor, the
 * command line and every sample's sentences go through it). Checks what
 * the views assume: at most AV_MAX_TOKENS tokens, each non-empty valid
 * UTF-8 whose offset lies inside the sentence, offsets increasing. */
#include "config.h"

#include "fuzz_common.h"
#include "tokenizer.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	size_t len = strlen(text);
	struct av_tokens tk;
	memset(&tk, 0, sizeof(tk));
	char *cause = NULL;
	if (av_tokenize(text, &tk, &cause)) {
		FUZZ_CHECK(tk.n >= 0 && tk.n <= AV_MAX_TOKENS, "%d tokens", tk.n);
		for (int i = 0; i < tk.n; i++) {
			FUZZ_CHECK(tk.text[i] && tk.text[i][0], "token %d is empty", i);
			FUZZ_CHECK(av_utf8_valid(tk.text[i], strlen(tk.text[i]), NULL),
				   "token %d is not UTF-8", i);
			FUZZ_CHECK(tk.offset[i] >= 0 && (size_t)tk.offset[i] < len,
				   "token %d at %d of %zu bytes", i, tk.offset[i], len);
			FUZZ_CHECK(i == 0 || tk.offset[i] > tk.offset[i - 1], "offsets go back at %d",
				   i);
			(void)av_utf8_width(tk.text[i]);
		}
		/* the copy the editor makes */
		struct av_tokens copy;
		memset(&copy, 0, sizeof(copy));
		av_tokens_copy(&copy, &tk);
		FUZZ_CHECK(copy.n == tk.n, "copy has %d of %d", copy.n, tk.n);
		av_tokens_free(&copy);
		av_tokens_free(&tk);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(text);
	return 0;
}
