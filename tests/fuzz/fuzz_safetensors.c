/* fuzz_safetensors.c: any bytes as a .safetensors file (av_st_parse, what
 * --model DIR maps). A refusal: false and a cause; an acceptance: every
 * tensor's span lies inside the data and matches its shape, no two spans
 * share a byte, the spans cover the data exactly, and every float of every
 * computable tensor can be read (ASan checks that nothing is read outside
 * the input), twice. */
#include "config.h"

#include "fuzz_common.h"
#include "model/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private copy of exactly size bytes, so a read past it is caught */
	unsigned char *bytes = malloc(size ? size : 1);
	if (!bytes)
		abort();
	memcpy(bytes, data, size);
	struct av_safetensors st;
	char *cause = NULL;
	if (av_st_parse(&st, bytes, size, "fuzz.safetensors", &cause)) {
		size_t covered = 0;
		for (int i = 0; i < st.n; i++) {
			struct av_st_tensor *t = &st.tensors[i];
			covered += t->end - t->begin;
			FUZZ_CHECK(t->begin <= t->end && t->end <= st.data_len, "span %zu..%zu of %zu",
				   t->begin, t->end, st.data_len);
			for (int j = 0; j < st.n; j++) {
				const struct av_st_tensor *u = &st.tensors[j];
				FUZZ_CHECK(i == j || t->begin == t->end || u->begin == u->end ||
					   t->end <= u->begin || u->end <= t->begin,
					   "tensors %d and %d overlap", i, j);
			}
			const float *v = NULL;
			char *why = NULL;
			if (av_st_floats(&st, t, &v, &why)) {
				volatile float sink = 0;
				for (size_t k = 0; k < t->count; k++)
					sink += v[k];
				(void)sink;
				/* asked again (the model binds a tensor once per use):
				 * the same floats, in place or the copy kept */
				const float *again = NULL;
				FUZZ_CHECK(av_st_floats(&st, t, &again, &why) && again == v,
					   "tensor %d read twice gives other floats", i);
			} else {
				FUZZ_CHECK(why && *why, "a refused dtype without a cause");
			}
			free(why);
		}
		/* no two share a byte, so this is every byte of the data */
		FUZZ_CHECK(covered == st.data_len, "tensors cover %zu of %zu bytes", covered,
			   st.data_len);
		av_st_close(&st);
	} else {
		FUZZ_CHECK(cause && *cause, "failure without a cause");
	}
	free(cause);
	free(bytes);
	return 0;
}
