/* json_read.h: reading JSON files with messages a person can act on.
 *
 * Every error names the file, and where it can the line and column
 * ("samples/x.json:3:14: single quotes: JSON strings use double quotes")
 * or the key as a path
 * ("samples/x.json: \"config\".\"heads\": expected a whole number, got a
 * string"). The parsers put the label in front; the getters below do not
 * (their messages start at the key path) and their callers prefix the file.
 * List items and matrix rows are counted from 1 in messages. */
#ifndef AV_JSON_READ_H
#define AV_JSON_READ_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "model_config.h"

/* cJSON builds the whole tree before anyone looks at it, and a value costs
 * it about 80 bytes (its node and the allocator's header) besides a
 * string's copy: a file of "0,0,0..." took 40 times its size, 2.7 GB for a
 * weights file at its 64 MiB limit. So a file may hold one value per
 * AV_JSON_BYTES_PER_VALUE bytes of its kind's size limit, counted before
 * cJSON runs. Real files need fewer: attnview writes 13 bytes a value
 * (%.9g numbers), the PyTorch fixtures 7.6, and samples, themes and
 * lessons 50 or more. */
#define AV_JSON_BYTES_PER_VALUE 6
#define AV_JSON_MAX_VALUES(limit_bytes) ((size_t)(limit_bytes) / AV_JSON_BYTES_PER_VALUE)

/* The count alone still let a weights file of 22 MB ("[0,0,0,0,0,0,0],"
 * repeated: 11 million values, all cJSON's) take 886 MB, and one of rows
 * of 8 zeros 326 MB, before it was refused for what it held. So a parse
 * may also take at most this much memory besides its strings' text (which
 * is at most the file's): about AV_JSON_NODE_BYTES per value cJSON builds,
 * and AV_JSON_ROW_BYTES (json_rows.h) per row read aside, estimated before
 * cJSON runs. attnview's own largest files need a third of it (a 64 MiB
 * weights file of rows, 5 million numbers); no sample, theme or lesson
 * (1 MiB at most) comes near. */
#define AV_JSON_MAX_PARSE_BYTES ((size_t)128 << 20)
#define AV_JSON_NODE_BYTES 80

/* The values (objects, lists, strings, numbers, true, false, null) cJSON
 * would make of text (len bytes), counted without building them: exact for
 * valid JSON, and for broken JSON at least what cJSON builds before it
 * stops. Counting stops once past stop. */
size_t av_json_count_values(const char *text, size_t len, size_t stop);

/* Parses text; on a syntax error the message is "LABEL:LINE:COLUMN: " and
 * what is wrong there (1-based, columns in characters; json_diag.h), or at
 * the bracket that
 * opens level 1001 "LABEL:LINE:COLUMN: nested deeper than 1000 levels"
 * (cJSON's CJSON_NESTING_LIMIT). The top level must be an
 * object (every attnview file is one); empty text is an error too. Text
 * holding more than max_values values is refused before cJSON sees it:
 * "LABEL: more than N values (...): the limit for WHAT" (what as for
 * av_read_file_limit, "weights files"), and so is text whose tree would
 * take more than AV_JSON_MAX_PARSE_BYTES: "LABEL: reading it would take
 * more than 128 MB of memory, the limit for WHAT (...)". */
cJSON *av_json_parse(const char *text, const char *label, size_t max_values, const char *what,
		     char **cause);

/* av_json_parse with the rows of numbers read aside (json_rows.h): the same
 * values and messages in a fraction of the memory, for a file that only
 * the getters below read (a weights file). */
cJSON *av_json_parse_rows(const char *text, const char *label, size_t max_values,
			  const char *what, char **cause);

/* Refuses the escape \u0000 in a string of text (len bytes; av_json_parse
 * does this first): cJSON decodes it to a NUL byte, which would end the C
 * string early. "LABEL:LINE:COLUMN: "\u0000" in a string: ..." An escaped
 * backslash followed by u0000 is the text \u0000 and is accepted. A \u
 * without four hex digits, which cJSON decodes as \u0000 too, is refused as
 * "LABEL:LINE:COLUMN: \u needs four hexadecimal digits". */
bool av_json_check_no_nul(const char *text, size_t len, const char *label, char **cause);

/* Reads and parses a small file (the label is the path): at most
 * AV_MAX_TEXT_FILE bytes, as a sample (a model's config.json, a test's
 * reference). */
cJSON *av_json_load_file(const char *path, char **cause);

/* Typed getters. `where` names the object for messages (e.g. "config", or
 * NULL at the top): "missing \"config\".\"d_model\"". A missing key is an
 * error when required, else the out value is kept. Numbers must be finite
 * (NaN or infinity are rejected); whole numbers must also be integral and
 * in min..max (the message gives the range). The string is cJSON's own. */
bool av_json_get_string(const cJSON *obj, const char *where, const char *key,
			bool required, const char **out, char **cause);
bool av_json_get_int(const cJSON *obj, const char *where, const char *key,
		     bool required, long long min, long long max, long long *out, char **cause);
bool av_json_get_double(const cJSON *obj, const char *where, const char *key,
			bool required, double *out, char **cause);
bool av_json_get_bool(const cJSON *obj, const char *where, const char *key,
		      bool required, bool *out, char **cause);
/* An enum given as a string from names; the error lists the allowed ones. */
bool av_json_get_enum(const cJSON *obj, const char *where, const char *key,
		      bool required, const char *const names[], int *out, char **cause);

/* A (rows, cols) matrix of finite numbers (each fitting a float) as a list
 * of lists, row-major. The shape error says "expected 6x3, got 6x4"; ragged
 * rows and a list that is not of lists are errors too. *out is malloc'd. */
bool av_json_get_matrix(const cJSON *obj, const char *where, const char *key,
			bool required, int rows, int cols, float **out, char **cause);
/* The same where the file decides a size: *rows or *cols given as -1 accept
 * any count and get the count found ("expected Nx3, got 5x4"). */
bool av_json_get_matrix_dims(const cJSON *obj, const char *where, const char *key,
			     bool required, int *rows, int *cols, float **out, char **cause);
/* A vector of len finite numbers. */
bool av_json_get_vector(const cJSON *obj, const char *where, const char *key,
			bool required, int len, float **out, char **cause);

/* A list of at most max finite numbers, as doubles (a loss history): *out
 * malloc'd (NULL for an empty list) and *len its length. */
bool av_json_get_doubles(const cJSON *obj, const char *where, const char *key,
			 bool required, int max, double **out, int *len, char **cause);

/* "a string", "a number", "true", "null", "a list", "an object"...: what
 * an item is, for "expected X, got Y" messages. */
const char *av_json_type_name(const cJSON *item);

/* An object-valued key; *out is NULL when absent and not required. */
bool av_json_get_object(const cJSON *obj, const char *where, const char *key,
			bool required, const cJSON **out, char **cause);

/* Every key of obj must be in allowed (NULL-terminated) and appear once:
 * "\"config\": unknown key \"head\" (allowed: d_model, heads, ...)". Typos
 * must not be silently ignored. */
bool av_json_check_keys(const cJSON *obj, const char *where, const char *const allowed[],
			char **cause);
/* Only the repeat check, for objects whose other keys are free: "\"x\": given
 * twice". */
bool av_json_check_unique_keys(const cJSON *obj, const char *where, char **cause);

/* Reads the "config" object obj (NULL: no keys; where names it, default
 * "config") into cfg (keys that are absent keep cfg's value); unknown keys
 * are an error naming the allowed keys, and the result must pass
 * av_config_check. Also marks in *given (may be NULL) which keys were
 * present (bit AV_CFG_* below). On failure cfg and *given are unchanged.
 * The seed may also be a string of digits (a JSON number is exact only up
 * to 2^53). */
enum {
	AV_CFG_D_MODEL = 1 << 0, AV_CFG_HEADS = 1 << 1, AV_CFG_MODE = 1 << 2,
	AV_CFG_SCALE = 1 << 3, AV_CFG_TEMPERATURE = 1 << 4, AV_CFG_POSITIONAL = 1 << 5,
	AV_CFG_BIAS = 1 << 6, AV_CFG_SEED = 1 << 7, AV_CFG_INIT = 1 << 8,
	AV_CFG_MAX_POSITIONS = 1 << 9
};
bool av_json_get_config(const cJSON *obj, const char *where, struct av_config *cfg,
			unsigned *given, char **cause);

#endif
