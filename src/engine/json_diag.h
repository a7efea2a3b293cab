/* json_diag.h: what is wrong with JSON that cJSON refused, in words, and
 * what cJSON accepted that JSON does not allow.
 *
 * cJSON says only where it stopped. Teachers write samples, lessons and
 * themes by hand, and "JSON syntax error" at a column sent them hunting for
 * the mistake; this says what was found and what was expected there. */
#ifndef AV_JSON_DIAG_H
#define AV_JSON_DIAG_H

#include <stdbool.h>
#include <stddef.h>

/* The first syntax error of text (len bytes, need not end in a NUL), which
 * cJSON refused at offset *at: a malloc'd message without the position
 * ("expected ',' or '}' after the member \"name\", found '\"'"), never
 * NULL. *at becomes the offset of the mistake (at most len; it may move
 * back to where the mistake began, an unclosed string's quote, since
 * cJSON sometimes stops one character or a string past it). Where this
 * scanner and cJSON disagree, the message is "JSON syntax error" and *at
 * stays. Linear in len; what is shown of the text is escaped (av_escape). */
char *av_json_diagnose(const char *text, size_t len, size_t *at);

/* What cJSON accepted in text (len bytes) that JSON (RFC 8259) does not
 * allow: a control byte between values or raw inside a string, a string
 * byte that is not UTF-8, a number with a leading zero or a bare '.'. A
 * malloc'd message as av_json_diagnose's, with *at its offset, or NULL when
 * the text is JSON. Why refuse what cJSON reads: a file attnview takes must
 * be one that every other JSON tool (python -m json.tool, jq) takes too,
 * and av_json_diagnose's messages already say JSON strings cannot hold a
 * raw newline. Linear in len. */
char *av_json_strict_problem(const char *text, size_t len, size_t *at);

/* The same for a classroom message (a whole body, as its header counted
 * it), which is no file: when its JSON ended early (brackets or a string
 * still open) *cut_off is true and the message says what was open ("1
 * object still open"); otherwise it says what is wrong, and never "end of
 * file". */
char *av_json_diagnose_message(const char *text, size_t len, size_t *at, bool *cut_off);

#endif
