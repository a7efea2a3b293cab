/* wire.h: the classroom's message format (issue 10), curses-free.
 *
 * A message is a 12-byte header and a body:
 *
 *   offset 0  4 bytes  magic "AVFL" (0x41 0x56 0x46 0x4c)
 *   offset 4  u16 LE   version (AV_WIRE_VERSION; anything else is refused)
 *   offset 6  u16 LE   type (AV_WIRE_SNAPSHOT)
 *   offset 8  u32 LE   body length in bytes, 2..AV_WIRE_MAX_BODY
 *   offset 12 body     UTF-8 JSON, one object (see doc/teaching.md and
 *                      wire.c's encoder for the keys)
 *
 * Why JSON and not a compact binary: a snapshot is well under 1 KiB in
 * practice (the sentence dominates) and is sent once per key the teacher
 * presses, so size and speed do not matter; JSON is what the project already
 * parses carefully (cJSON, json_read.c's checks), can be read with socat
 * when a class goes wrong, and names every field, so a field added in a
 * later version is an error that says which key, not a silent shift of
 * bytes. Within one version the key set is fixed: a missing or unknown key
 * is refused (a new field means a new version).
 *
 * Everything the decoder reads is untrusted (a leader is another user's
 * process): the length is checked before anything is allocated, every
 * string and number is bounded, and the result passes
 * av_state_validate. */
#ifndef AV_FOLLOW_WIRE_H
#define AV_FOLLOW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "snapshot.h"

#define AV_WIRE_MAGIC "AVFL"
#define AV_WIRE_HEADER_SIZE 12
#define AV_WIRE_VERSION 5
#define AV_WIRE_MAX_BODY 131072

enum av_wire_type { AV_WIRE_SNAPSHOT = 1 };

struct av_wire_header {
	uint16_t version;
	uint16_t type;
	uint32_t length;
};

/* What a reader does after a header. */
enum av_wire_verdict {
	AV_WIRE_READ,     /* read length bytes and decode them */
	AV_WIRE_SKIP,     /* skip length bytes unread (unknown version or type,
			     or longer than AV_WIRE_MAX_BODY): the stream is
			     still in step; *cause says why */
	AV_WIRE_DESYNC    /* not our magic: the stream cannot be trusted any more;
			     close it. *cause says why */
};

/* Parses the AV_WIRE_HEADER_SIZE bytes at hdr. */
enum av_wire_verdict av_wire_parse_header(const unsigned char *hdr,
					  struct av_wire_header *h, char **cause);

/* Decodes a body of len bytes (len == h->length, h from a READ verdict).
 * false + *cause for anything malformed; *out is then unspecified. */
bool av_wire_decode_body(const unsigned char *body, size_t len, struct av_state *out,
			 char **cause);

/* The same, with the state the teacher pinned (see av_wire_encode_pinned)
 * into *pin and *has_pin saying whether the message had one. */
bool av_wire_decode_body_pinned(const unsigned char *body, size_t len, struct av_state *out,
				struct av_state *pin, bool *has_pin, char **cause);

/* A whole message (header and body, exactly len bytes): for tests and the
 * fuzzer. false + *cause for a skipped, desynchronised or malformed one. */
bool av_wire_decode(const unsigned char *msg, size_t len, struct av_state *out,
		    char **cause);

/* Encodes s (which must pass av_state_validate) into a malloc'd message
 * *msg of *len bytes. */
bool av_wire_encode(const struct av_state *s, unsigned char **msg, size_t *len,
		    char **cause);

/* The same with pin, the state whose matrix the teacher pinned for the
 * comparison (NULL: none), so that a student who was not there when it was
 * pinned can compute it. Too large with it, the message goes without. */
bool av_wire_encode_pinned(const struct av_state *s, const struct av_state *pin,
			   unsigned char **msg, size_t *len, char **cause);

#endif
