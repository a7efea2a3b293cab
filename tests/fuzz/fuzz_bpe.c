/* fuzz_bpe.c: GPT-2's tokenizer on any bytes. The first byte chooses:
 *   even: the rest is text for GPT-2's own vocabulary (tests/fixtures/
 *         gpt2-vocab/): valid UTF-8 is encoded and the ids' bytes must give
 *         the text back; invalid UTF-8 is refused with a cause;
 *   odd:  the rest is "VOCAB.JSON\0MERGES.TXT" for av_bpe_load_text: a
 *         refusal has a cause; an accepted pair encodes a few texts without
 *         failing unless a byte has no entry, and shows every id. */
#include "config.h"

#include "fuzz_common.h"
#include "model/bpe.h"
#include "utf8.h"

#define VOCAB AV_SRCDIR "/tests/fixtures/gpt2-vocab/"

static struct av_bpe gpt2;

static void load_gpt2(void)
{
	if (gpt2.n_vocab)
		return;
	char *cause = NULL;
	if (!av_bpe_load(&gpt2, VOCAB "encoder.json", VOCAB "vocab.bpe", &cause)) {
		fprintf(stderr, "fuzz_bpe: %s\n", cause);
		abort();
	}
}

static void round_trip(const char *text, size_t len)
{
	int ids[4096];
	char *cause = NULL;
	int n = av_bpe_encode(&gpt2, text, ids, 4096, &cause);
	size_t clen = strlen(text);
	if (!av_utf8_valid(text, clen, NULL)) {
		FUZZ_CHECK(n < 0 && cause, "invalid UTF-8 accepted");
	} else if (n >= 0) {
		unsigned char *back = malloc(clen + 1);
		size_t got = 0;
		for (int i = 0; i < n; i++) {
			unsigned char piece[AV_BPE_MAX_TOKEN_BYTES];
			int k = av_bpe_token_bytes(&gpt2, ids[i], piece, (int)sizeof(piece));
			FUZZ_CHECK(k > 0 && got + (size_t)k <= clen, "token %d of %d", i, n);
			memcpy(back + got, piece, (size_t)k);
			got += (size_t)k;
			free(av_bpe_display(&gpt2, ids[i]));
		}
		FUZZ_CHECK(got == clen && !memcmp(back, text, clen), "the text does not come back");
		free(back);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	(void)len;
}

static void load_pair(const char *data, size_t size)
{
	const char *nul = memchr(data, '\0', size);
	size_t vlen = nul ? (size_t)(nul - data) : size;
	char *vocab = strndup(data, vlen);
	const char *merges = nul ? nul + 1 : "";
	size_t mlen = nul ? size - vlen - 1 : 0;
	struct av_bpe b;
	char *cause = NULL;
	if (av_bpe_load_text(&b, vocab, "v.json", merges, mlen, "m.txt", &cause)) {
		static const char *const texts[] = { "hello world", "  a\n\nb 's", "熊猫 😀 123" };
		for (int t = 0; t < 3; t++) {
			int ids[64];
			char *why = NULL;
			int n = av_bpe_encode(&b, texts[t], ids, 64, &why);
			FUZZ_CHECK(n >= 0 || (why && *why), "failure without a cause");
			for (int i = 0; i < n; i++)
				FUZZ_CHECK(ids[i] >= 0 && ids[i] < b.n_vocab, "id %d", ids[i]);
			free(why);
		}
		for (int i = 0; i < b.n_vocab; i++)
			free(av_bpe_display(&b, i));
		av_bpe_free(&b);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(vocab);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	char *text = fuzz_text(data + 1, size - 1);
	if (data[0] % 2 == 0) {
		load_gpt2();
		round_trip(text, size - 1);
	} else {
		load_pair(text, size - 1);
	}
	free(text);
	return 0;
}
