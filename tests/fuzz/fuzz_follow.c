/* fuzz_follow.c: libFuzzer target for the classroom's message decoder
 * (src/follow/wire.c): whatever bytes a leader sends, the follower refuses
 * them with a reason or gets a snapshot that passes av_state_validate
 * and encodes again. Built and run by tools/fuzz.sh (make fuzz); seeds are
 * the messages tests/fuzz/follow-seeds/ holds (written by test_follow's
 * encoder), and any 'AVFL' message from a leader works as one too. */
#include "config.h"

#include <stdbool.h>
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
		struct av_state pin;
		bool has_pin = false;

		if (!av_state_validate(&s, NULL) || !av_wire_encode(&s, &again, &again_len, NULL))
			abort();
		free(again);
		/* the pinned state too, when there is one (the same body) */
		if (!av_wire_decode_body_pinned(data + AV_WIRE_HEADER_SIZE, size - AV_WIRE_HEADER_SIZE,
						&s, &pin, &has_pin, &cause))
			abort();
		if (has_pin && (!av_state_validate(&pin, NULL) ||
				!av_wire_encode_pinned(&s, &pin, &again, &again_len, NULL)))
			abort();
		if (has_pin)
			free(again);
	} else if (cause == NULL) {
		abort();    /* every refusal says why */
	}
	free(cause);
	return 0;
}
