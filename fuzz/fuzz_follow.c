/* fuzz_follow.c: libFuzzer target for the classroom's message decoder
 * (src/follow/wire.c): whatever bytes a leader sends, the follower refuses
 * them with a reason or gets a snapshot that passes av_state_validate
 * and encodes again. Not built by make (it needs clang's libFuzzer).
 *
 * Build and run from the top of the source tree, after a normal build in
 * build/ (for config.h and the generated built-in sample):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 \
 *     -D_GNU_SOURCE -Ibuild -Isrc -Isrc/engine -DPKGDATADIR='"/nonexistent"' \
 *     -DAV_SRCDIR='"'$PWD'"' fuzz/fuzz_follow.c src/follow/snapshot.c \
 *     src/follow/wire.c src/engine/[a-z]*.c build/src/engine/builtin_*.c \
 *     -lcjson -lm -o build/fuzz_follow
 *   mkdir -p build/fuzz-corpus && build/fuzz_follow -max_len=70000 \
 *     -max_total_time=60 build/fuzz-corpus
 *
 * Seed the corpus with a real message: tests/test_follow writes none, but
 * any 'AVFL' message from a leader works (socat UNIX-CONNECT:ROOM/socket -). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "follow/snapshot.h"
#include "follow/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct av_state s;
	char *cause = NULL;
	unsigned char *again = NULL;
	size_t again_len;

	if (av_wire_decode(data, size, &s, &cause)) {
		if (!av_state_validate(&s, NULL) || !av_wire_encode(&s, &again, &again_len, NULL))
			abort();
		free(again);
	} else if (cause == NULL) {
		abort();    /* every refusal says why */
	}
	free(cause);
	return 0;
}
