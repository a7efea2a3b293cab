/* fuzz_common.h: what the libFuzzer targets of tests/fuzz/ share: the input
 * as a NUL-terminated string (the loaders parse text), and a loud failure
 * that libFuzzer reports as a crash with its input saved. */
#ifndef AV_FUZZ_COMMON_H
#define AV_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* data as a C string; bytes after an embedded NUL are ignored by the
 * parsers, as they would be when read from a file. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

/* An invariant was broken: report it and abort (libFuzzer keeps the input). */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "fuzz check failed: %s (%s:%d): ", #cond, __FILE__, \
				__LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

#endif
