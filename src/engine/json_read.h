/* json_read.h: reading JSON files with messages a person can act on.
 *
 * Every error names the file, and where it can the line and column
 * ("samples/x.json:3:14: ...") or the key ("samples/x.json: \"config\":
 * \"heads\": expected a whole number, got \"two\""). */
#ifndef AV_JSON_READ_H
#define AV_JSON_READ_H

#include <stdbool.h>
#include <cjson/cJSON.h>
#include "model_config.h"

/* Parses text; on a syntax error the message is "LABEL:LINE:COLUMN: ..." */
cJSON *av_json_parse(const char *text, const char *label, char **cause);

/* Reads and parses a file (the label is the path). */
cJSON *av_json_load_file(const char *path, char **cause);

/* Typed getters. `where` names the object for messages (e.g. "config").
 * A missing key is an error when required, else the out value is kept.
 * Numbers must be finite (NaN or infinity are rejected). */
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

/* A (rows, cols) matrix of finite numbers as a list of lists (cols may be
 * given as -1 to accept any column count, returned in *cols_out). The
 * shape error says "expected 6x3, got 6x4". *out is malloc'd. */
bool av_json_get_matrix(const cJSON *obj, const char *where, const char *key,
			bool required, int rows, int cols, float **out, char **cause);
/* A vector of len finite numbers. */
bool av_json_get_vector(const cJSON *obj, const char *where, const char *key,
			bool required, int len, float **out, char **cause);

/* Reads the "config" object into cfg (keys that are absent keep cfg's value);
 * unknown keys are an error naming the allowed keys. Also marks in *given
 * which keys were present (bit AV_CFG_* below). */
enum {
	AV_CFG_D_MODEL = 1 << 0, AV_CFG_HEADS = 1 << 1, AV_CFG_MODE = 1 << 2,
	AV_CFG_SCALE = 1 << 3, AV_CFG_TEMPERATURE = 1 << 4, AV_CFG_POSITIONAL = 1 << 5,
	AV_CFG_BIAS = 1 << 6, AV_CFG_SEED = 1 << 7, AV_CFG_INIT = 1 << 8,
	AV_CFG_MAX_POSITIONS = 1 << 9
};
bool av_json_get_config(const cJSON *obj, const char *where, struct av_config *cfg,
			unsigned *given, char **cause);

#endif
