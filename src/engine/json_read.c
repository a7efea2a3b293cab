/* json_read.c: typed, checked access to parsed JSON.
 *
 * The messages name keys as a path, "config"."heads", so a person can find
 * the spot in the file; the caller prefixes the file name. List items and
 * matrix rows are counted from 1, as a person counts them. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "json_diag.h"
#include "json_read.h"
#include "json_rows.h"
#include "number.h"
#include "strset.h"
#include "utf8.h"
#include "util.h"

/* --- parsing */

static bool all_space(const char *s)
{
	for (; *s; s++) {
		if (!strchr(" \t\r\n", *s))
			return false;
	}
	return true;
}

/* 1-based line and column of pos in text; the column counts UTF-8
 * characters, not bytes, so it matches what an editor shows. */
static void text_position(const char *text, const char *pos, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (const char *c = text; c < pos && *c; c++) {
		if (*c == '\n') {
			(*line)++;
			*col = 1;
		} else if (!av_utf8_is_continuation((unsigned char)*c)) {
			(*col)++;
		}
	}
}

const char *av_json_type_name(const cJSON *item)
{
	if (cJSON_IsString(item))
		return _("a string");
	if (cJSON_IsNumber(item))
		return _("a number");
	if (cJSON_IsBool(item))
		return cJSON_IsTrue(item) ? "true" : "false";
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item) || av_json_row_aside(item, &(int){ 0 }))
		return _("a list");   /* a row read aside is one (json_rows.h) */
	if (cJSON_IsObject(item))
		return _("an object");
	return _("something else");
}

/* How many lists and objects are open at pos (brackets inside strings do
 * not count). */
static int open_levels(const char *text, const char *pos)
{
	int depth = 0;
	bool in_string = false;
	for (const char *c = text; c < pos && *c; c++) {
		if (in_string) {
			if (*c == '\\' && c[1])
				c++;
			else if (*c == '"')
				in_string = false;
		} else if (*c == '"') {
			in_string = true;
		} else if (*c == '[' || *c == '{') {
			depth++;
		} else if (*c == ']' || *c == '}') {
			depth--;
		}
	}
	return depth;
}

/* cJSON gives up at CJSON_NESTING_LIMIT levels at the bracket that would
 * open one more; that is a limit, not a mistake in the syntax. */
static bool too_deep(const char *text, const char *pos)
{
	return (*pos == '[' || *pos == '{') && open_levels(text, pos) >= CJSON_NESTING_LIMIT;
}

/* A \u escape at esc without its four hex digits: cJSON decodes it as
 * \u0000 ("chi\uzzzzna" was the word "chi"). */
static bool short_u_escape(const char *esc, size_t left)
{
	if (esc[1] != 'u')
		return false;
	if (left < 6)
		return true;
	for (int k = 2; k < 6; k++)   /* not strspn: the text may not end in a NUL */
		if (!isxdigit((unsigned char)esc[k]))
			return true;
	return false;
}

/* Where text (len bytes) holds the escape \u0000 inside a string, or a \u
 * that cJSON would read as one, or NULL. A backslash escaped (\\u0000) is
 * text, not an escape: escapes are read in pairs from the string's start. */
static const char *escaped_nul(const char *text, size_t len)
{
	bool in_string = false;
	for (size_t i = 0; i < len; i++) {
		if (!in_string) {
			in_string = text[i] == '"';
		} else if (text[i] == '"') {
			in_string = false;
		} else if (text[i] == '\\') {
			if (len - i > 5 && memcmp(text + i + 1, "u0000", 5) == 0)
				return text + i;
			if (len - i > 1 && short_u_escape(text + i, len - i))
				return text + i;
			i++;   /* the escaped character, whatever it is */
		}
	}
	return NULL;
}

bool av_json_check_no_nul(const char *text, size_t len, const char *label, char **cause)
{
	const char *at = escaped_nul(text, len);
	if (!at)
		return true;
	int line, col;
	text_position(text, at, &line, &col);
	if (short_u_escape(at, len - (size_t)(at - text)))
		return av_fail(cause, _("%s:%d:%d: \\u needs four hexadecimal digits"), label,
			       line, col);
	return av_fail(cause, _("%s:%d:%d: \"\\u0000\" in a string: text cannot hold a NUL "
			       "character"), label, line, col);
}

/* Outside strings, a container's first value opens it (the next
 * character that is not a space is not its closing bracket) and every
 * later one follows a comma: the values are the top one, the non-empty
 * containers and the commas. */
size_t av_json_count_values(const char *text, size_t len, size_t stop)
{
	size_t values = 1;
	bool in_string = false, opened = false;
	for (size_t i = 0; i < len && values <= stop; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;   /* the escaped character, whatever it is */
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (opened && c != ']' && c != '}')
			values++;
		opened = c == '[' || c == '{';
		in_string = c == '"';
		values += c == ',';
	}
	return values;
}

/* The values of text (len bytes), counted up to max_values; false past it. */
static bool check_values(const char *text, size_t len, size_t max_values, const char *label,
			 const char *what, size_t *values, char **cause)
{
	*values = av_json_count_values(text, len, max_values);
	if (*values <= max_values)
		return true;
	return av_fail(cause, _("%s: more than %zu values (numbers, strings, lists, objects): "
			       "the limit for %s"), label, max_values, what);
}

/* false, with the message: reading the text would take more than
 * AV_JSON_MAX_PARSE_BYTES */
static bool too_much_memory(const char *label, const char *what, char **cause)
{
	return av_fail(cause, _("%s: reading it would take more than %zu MB of memory, the "
			       "limit for %s (too many small lists or numbers)"),
		       label, AV_JSON_MAX_PARSE_BYTES >> 20, what);
}

/* false, with the message, when a tree of `values` values and `rows` bytes
 * of rows read aside would take more than AV_JSON_MAX_PARSE_BYTES */
static bool check_memory(size_t values, size_t rows, const char *label, const char *what,
			 char **cause)
{
	size_t nodes = AV_JSON_MAX_PARSE_BYTES / AV_JSON_NODE_BYTES;
	if (rows <= AV_JSON_MAX_PARSE_BYTES && values <= nodes &&
	    values * AV_JSON_NODE_BYTES <= AV_JSON_MAX_PARSE_BYTES - rows)
		return true;
	return too_much_memory(label, what, cause);
}

/* The message of a parse that failed at pos in text: the nesting limit
 * there, or what is wrong (json_diag.h), with its line and column. */
static void syntax_error(const char *text, const char *pos, const char *label, char **cause)
{
	int line, col;
	if (too_deep(text, pos)) {
		text_position(text, pos, &line, &col);
		av_fail(cause, _("%s:%d:%d: nested deeper than %d levels"), label, line, col,
			CJSON_NESTING_LIMIT);
		return;
	}
	size_t at = (size_t)(pos - text);
	char *why = av_json_diagnose(text, strlen(text), &at);
	text_position(text, text + at, &line, &col);
	av_fail(cause, "%s:%d:%d: %s", label, line, col, why);
	free(why);
}

/* root, which cJSON read from text, when text is JSON as RFC 8259 has
 * it (json_diag.h: what cJSON lets through, such as a raw newline in a
 * string, is refused with its line and column); else NULL, root freed. */
static cJSON *strict_only(cJSON *root, const char *text, const char *label, char **cause)
{
	size_t at = 0;
	char *why = av_json_strict_problem(text, strlen(text), &at);
	if (!why)
		return root;
	int line, col;
	text_position(text, text + at, &line, &col);
	av_fail(cause, "%s:%d:%d: %s", label, line, col, why);
	free(why);
	cJSON_Delete(root);
	return NULL;
}

/* Every attnview file is an object; saying so here beats a confusing
 * "missing key" later. Frees a root that is not. NULL stays NULL. */
static cJSON *object_only(cJSON *root, const char *label, char **cause)
{
	if (!root)
		return NULL;
	if (cJSON_IsObject(root))
		return root;
	av_fail(cause, _("%s: expected a JSON object at the top, got %s"), label,
		av_json_type_name(root));
	cJSON_Delete(root);
	return NULL;
}

/* text (len bytes) parsed by cJSON with its rows of numbers read aside
 * (json_rows.h), into *root (NULL and the message in *cause when it is
 * refused); false when the text has to go to cJSON as it is (nothing read
 * aside, or stand-ins cJSON's tree does not hold one for one). cJSON's
 * place of a syntax error in the compact text is the same place in the
 * text: the message is what parsing the text would give, without the
 * memory parsing all of it would take. */
static bool parse_rows_aside(const char *text, size_t len, const char *label,
			     const char *what, cJSON **root, char **cause)
{
	char *compact;
	struct av_json_rows rows;
	*root = NULL;
	switch (av_json_rows_compact(text, len, AV_JSON_MAX_PARSE_BYTES, &compact, &rows)) {
	case AV_JSON_ROWS_NONE:
		return false;
	case AV_JSON_ROWS_TOO_BIG:
		too_much_memory(label, what, cause);
		return true;
	case AV_JSON_ROWS_COMPACT:
		break;
	}
	/* each stand-in's node is counted in rows.bytes */
	size_t clen = strlen(compact);
	size_t values = av_json_count_values(compact, clen, clen);
	values = values > (size_t)rows.n ? values - (size_t)rows.n : 0;
	const char *end = NULL;
	bool done = true;
	if (check_memory(values, rows.bytes, label, what, cause)) {
		*root = cJSON_ParseWithOpts(compact, &end, 1);
		if (!*root) {
			size_t at = end ? (size_t)(end - compact) : 0;
			syntax_error(text, text + av_json_rows_text_offset(&rows, at), label, cause);
		} else if (cJSON_IsObject(*root) && !av_json_rows_attach(*root, &rows)) {
			cJSON_Delete(*root);
			*root = NULL;
			done = false;
		} else {
			*root = object_only(strict_only(*root, text, label, cause), label, cause);
		}
	}
	free(compact);
	av_json_rows_free(&rows);
	return done;
}

static cJSON *parse(const char *text, const char *label, size_t max_values, const char *what,
		    bool rows_aside, char **cause)
{
	if (all_space(text)) {
		av_fail(cause, _("%s: empty file (expected a JSON object)"), label);
		return NULL;
	}
	size_t len = strlen(text);
	/* cJSON decodes \u0000 to a NUL byte and every C string ends there:
	 * "china\u0000panda" would silently be the sentence "china". */
	size_t values;
	if (!av_json_check_no_nul(text, len, label, cause) ||
	    !check_values(text, len, max_values, label, what, &values, cause))
		return NULL;
	cJSON *root;
	if (rows_aside && parse_rows_aside(text, len, label, what, &root, cause))
		return root;
	if (!check_memory(values, 0, label, what, cause))
		return NULL;
	const char *end = NULL;
	root = cJSON_ParseWithOpts(text, &end, 1);
	if (!root) {
		syntax_error(text, end ? end : text, label, cause);
		return NULL;
	}
	return object_only(strict_only(root, text, label, cause), label, cause);
}

cJSON *av_json_parse(const char *text, const char *label, size_t max_values, const char *what,
		     char **cause)
{
	return parse(text, label, max_values, what, false, cause);
}

cJSON *av_json_parse_rows(const char *text, const char *label, size_t max_values,
			  const char *what, char **cause)
{
	return parse(text, label, max_values, what, true, cause);
}

cJSON *av_json_load_file(const char *path, char **cause)
{
	char *text;
	const char *what = _("JSON files");
	if (!av_read_file_limit(path, AV_MAX_TEXT_FILE, what, &text, NULL, cause))
		return NULL;
	cJSON *root = av_json_parse(text, path, AV_JSON_MAX_VALUES(AV_MAX_TEXT_FILE), what, cause);
	free(text);
	return root;
}

/* --- keys */

/* "where"."key", or "key" at the top; malloc'd. */
static char *key_path(const char *where, const char *key)
{
	if (!where || !*where)
		return av_printf("\"%s\"", key);
	return av_printf("\"%s\".\"%s\"", where, key);
}

/* Sets *cause to "PATH: message" and returns false. */
static bool key_fail(char **cause, const char *where, const char *key, const char *msg)
{
	char *path = key_path(where, key);
	av_fail(cause, "%s: %s", path, msg);
	free(path);
	return false;
}

/* Finds key; *item is NULL when it is absent. False (with the message) only
 * when it is absent and required. */
static bool find_key(const cJSON *obj, const char *where, const char *key,
		     bool required, const cJSON **item, char **cause)
{
	*item = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	if (*item || !required)
		return true;
	char *path = key_path(where, key);
	av_fail(cause, _("missing %s"), path);
	free(path);
	return false;
}

static bool wrong_type(char **cause, const char *where, const char *key,
		       const char *expected, const cJSON *item)
{
	char *msg = av_printf(_("expected %s, got %s"), expected, av_json_type_name(item));
	key_fail(cause, where, key, msg);
	free(msg);
	return false;
}

static bool check_finite(char **cause, const char *where, const char *key, double v)
{
	if (isfinite(v))
		return true;
	return key_fail(cause, where, key, _("not a finite number"));
}

bool av_json_get_string(const cJSON *obj, const char *where, const char *key,
			bool required, const char **out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	if (!cJSON_IsString(item))
		return wrong_type(cause, where, key, _("a string"), item);
	*out = item->valuestring;
	return true;
}

/* The shortest %g that reads back as v: "1.5", "1e+300", not 17 digits. */
static void format_number(char *buf, size_t size, double v)
{
	locale_t previous = av_numeric_c_begin();
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	av_numeric_c_end(previous);
}

static bool int_out_of_range(char **cause, const char *where, const char *key,
			     long long min, long long max, const char *got)
{
	char *msg = av_printf(_("expected a whole number from %lld to %lld, got %s"),
			      min, max, got);
	key_fail(cause, where, key, msg);
	free(msg);
	return false;
}

bool av_json_get_int(const cJSON *obj, const char *where, const char *key,
		     bool required, long long min, long long max, long long *out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	if (!cJSON_IsNumber(item))
		return wrong_type(cause, where, key, _("a whole number"), item);
	double v = item->valuedouble;
	if (!check_finite(cause, where, key, v))
		return false;
	char got[32];
	format_number(got, sizeof got, v);
	if (v != floor(v)) {
		char *msg = av_printf(_("expected a whole number, got %s"), got);
		key_fail(cause, where, key, msg);
		free(msg);
		return false;
	}
	/* Compare as doubles first, and keep far from 2^63: converting a
	 * double outside long long's range is undefined. */
	if (v < (double)min || v > (double)max || fabs(v) > 9.2e18
	    || (long long)v < min || (long long)v > max)
		return int_out_of_range(cause, where, key, min, max, got);
	*out = (long long)v;
	return true;
}

bool av_json_get_double(const cJSON *obj, const char *where, const char *key,
			bool required, double *out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	if (!cJSON_IsNumber(item))
		return wrong_type(cause, where, key, _("a number"), item);
	if (!check_finite(cause, where, key, item->valuedouble))
		return false;
	*out = item->valuedouble;
	return true;
}

bool av_json_get_bool(const cJSON *obj, const char *where, const char *key,
		      bool required, bool *out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	if (!cJSON_IsBool(item))
		return wrong_type(cause, where, key, _("true or false"), item);
	*out = cJSON_IsTrue(item);
	return true;
}

bool av_json_get_enum(const cJSON *obj, const char *where, const char *key,
		      bool required, const char *const names[], int *out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	char *allowed = av_enum_list(names);
	char *msg = NULL;
	if (!cJSON_IsString(item))
		msg = av_printf(_("expected one of %s, got %s"), allowed, av_json_type_name(item));
	else if (!av_enum_parse(names, item->valuestring, out)) {
		char *value = av_escape(item->valuestring);
		msg = av_printf(_("unknown value \"%s\" (allowed: %s)"), value, allowed);
		free(value);
	}
	free(allowed);
	if (!msg)
		return true;
	key_fail(cause, where, key, msg);
	free(msg);
	return false;
}

/* --- matrices and vectors */

/* Why the number at row r (-1: a list's item), column or item c is
 * refused: not a number, not finite, or (only a float's limit) too large.
 * The place is put into words here only, for the message. */
static bool number_fail(const cJSON *item, double v, const char *where, const char *key,
			int r, int c, char **cause)
{
	char spot[64];
	if (r >= 0)
		snprintf(spot, sizeof spot, _("row %d, column %d"), r + 1, c + 1);
	else
		snprintf(spot, sizeof spot, _("item %d"), c + 1);
	char *msg;
	if (item && !cJSON_IsNumber(item))
		msg = av_printf(_("%s: expected a number, got %s"), spot, av_json_type_name(item));
	else if (!isfinite(v))
		msg = av_printf(_("%s: not a finite number"), spot);
	else
		msg = av_printf(_("%s: %.9g is too large for a 32-bit float"), spot, v);
	key_fail(cause, where, key, msg);
	free(msg);
	return false;
}

/* One finite number that fits a float: the number at row r, column c of a
 * matrix, or item c of a list when r < 0 (both counted from 0, named from
 * 1 in messages: "row 2, column 3"). The place is put into words only for
 * a message: formatting it for every number (a translated, positional
 * format) took a quarter of the time to read a D=512 weights file. item
 * is the number's node, or NULL for a number of a row read aside (v). */
/* The least magnitude a double rounds up to infinity as a float: FLT_MAX
 * and half its last place. Below it a number rounds to a finite float, so
 * FLT_MAX as %.9g writes it (3.40282347e+38) and as numpy prints it
 * (3.4028235e+38), both a little above FLT_MAX as doubles, read back (they
 * were refused, "3.40282e+38 is too large", FLT_MAX's own %g). */
#define FLOAT_ROUNDS_TO_INF 0x1.ffffffp127

static bool float_at(const cJSON *item, double v, const char *where, const char *key,
		     int r, int c, float *out, char **cause)
{
	if ((!item || cJSON_IsNumber(item)) && isfinite(v) && fabs(v) < FLOAT_ROUNDS_TO_INF) {
		*out = (float)v;
		return true;
	}
	return number_fail(item, v, where, key, r, c, cause);
}

static bool get_float(const cJSON *item, const char *where, const char *key,
		      int r, int c, float *out, char **cause)
{
	return float_at(item, item->valuedouble, where, key, r, c, out, cause);
}

static void shape_text(char *buf, size_t size, int rows, int cols)
{
	if (rows < 0 && cols < 0)
		snprintf(buf, size, "NxM");
	else if (rows < 0)
		snprintf(buf, size, "Nx%d", cols);
	else if (cols < 0)
		snprintf(buf, size, "%dxM", rows);
	else
		snprintf(buf, size, "%dx%d", rows, cols);
}

/* The shape of a list of lists: false with a message if it is not one or
 * its rows differ in length. An empty list is 0 x want_cols. */
static bool matrix_shape(const cJSON *item, const char *where, const char *key,
			 const char *expected, int want_cols, int *rows, int *cols, char **cause)
{
	char *msg = NULL;
	int n_aside;
	if (av_json_row_aside(item, &n_aside)) {   /* a list of numbers */
		msg = av_printf(_("expected a %s matrix (a list of lists of numbers), "
				  "but row %d is %s"), expected, 1, _("a number"));
		goto fail;
	}
	if (!cJSON_IsArray(item)) {
		msg = av_printf(_("expected a %s matrix (a list of lists of numbers), got %s"),
				expected, av_json_type_name(item));
		goto fail;
	}
	*rows = cJSON_GetArraySize(item);
	*cols = want_cols > 0 ? want_cols : 0;   /* what an empty list has */
	int r = 0;
	const cJSON *row;
	cJSON_ArrayForEach(row, item) {
		r++;
		int n;
		if (!av_json_row_aside(row, &n) && !cJSON_IsArray(row)) {
			msg = av_printf(_("expected a %s matrix (a list of lists of numbers), "
					"but row %d is %s"), expected, r, av_json_type_name(row));
			goto fail;
		}
		if (cJSON_IsArray(row))
			n = cJSON_GetArraySize(row);
		if (r == 1) {
			*cols = n;
		} else if (n != *cols) {
			msg = av_printf(_("rows have different lengths (row 1 has %d numbers, "
					"row %d has %d)"), *cols, r, n);
			goto fail;
		}
	}
	return true;
fail:
	key_fail(cause, where, key, msg);
	free(msg);
	return false;
}

bool av_json_get_matrix_dims(const cJSON *obj, const char *where, const char *key,
			     bool required, int *rows, int *cols, float **out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	char expected[48];
	shape_text(expected, sizeof expected, *rows, *cols);
	int got_rows, got_cols;
	if (!matrix_shape(item, where, key, expected, *cols, &got_rows, &got_cols, cause))
		return false;
	if ((*rows >= 0 && got_rows != *rows) || (*cols >= 0 && got_cols != *cols)) {
		char *msg = av_printf(_("expected %s, got %dx%d"), expected, got_rows, got_cols);
		key_fail(cause, where, key, msg);
		free(msg);
		return false;
	}
	float *m = av_calloc((size_t)got_rows * (size_t)(got_cols > 0 ? got_cols : 1),
			     sizeof *m);
	int r = 0;
	const cJSON *row;
	cJSON_ArrayForEach(row, item) {
		float *out_row = m + (size_t)r * (size_t)got_cols;
		int c = 0, n;
		const double *aside = av_json_row_aside(row, &n);
		for (; aside && c < n; c++) {
			if (!float_at(NULL, aside[c], where, key, r, c, &out_row[c], cause)) {
				free(m);
				return false;
			}
		}
		const cJSON *cell;
		cJSON_ArrayForEach(cell, row) {
			if (!get_float(cell, where, key, r, c, &out_row[c], cause)) {
				free(m);
				return false;
			}
			c++;
		}
		r++;
	}
	*rows = got_rows;
	*cols = got_cols;
	*out = m;
	return true;
}

bool av_json_get_matrix(const cJSON *obj, const char *where, const char *key,
			bool required, int rows, int cols, float **out, char **cause)
{
	return av_json_get_matrix_dims(obj, where, key, required, &rows, &cols, out, cause);
}

bool av_json_get_vector(const cJSON *obj, const char *where, const char *key,
			bool required, int len, float **out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	char *expected = av_printf(_("a list of %d numbers"), len);
	bool ok = cJSON_IsArray(item);
	if (!ok)
		wrong_type(cause, where, key, expected, item);
	free(expected);
	if (!ok)
		return false;
	int n = cJSON_GetArraySize(item);
	if (n != len) {
		char *msg = av_printf(_("expected %d numbers, got %d"), len, n);
		key_fail(cause, where, key, msg);
		free(msg);
		return false;
	}
	float *v = av_calloc((size_t)len, sizeof *v);
	int i = 0;
	const cJSON *cell;
	cJSON_ArrayForEach(cell, item) {
		if (!get_float(cell, where, key, -1, i, &v[i], cause)) {
			free(v);
			return false;
		}
		i++;
	}
	*out = v;
	return true;
}

/* Item c (from 0) of a list of any finite numbers, as a double. */
static bool double_at(const cJSON *item, const char *where, const char *key, int c,
		      double *out, char **cause)
{
	if (cJSON_IsNumber(item) && isfinite(item->valuedouble)) {
		*out = item->valuedouble;
		return true;
	}
	return number_fail(item, item->valuedouble, where, key, -1, c, cause);
}

bool av_json_get_doubles(const cJSON *obj, const char *where, const char *key,
			 bool required, int max, double **out, int *len, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (!item)
		return true;
	if (!cJSON_IsArray(item))
		return wrong_type(cause, where, key, _("a list of numbers"), item);
	int n = cJSON_GetArraySize(item);
	if (n > max) {
		char *msg = av_printf(_("expected at most %d numbers, got %d"), max, n);
		key_fail(cause, where, key, msg);
		free(msg);
		return false;
	}
	double *v = n > 0 ? av_calloc((size_t)n, sizeof *v) : NULL;
	int i = 0;
	const cJSON *cell;
	cJSON_ArrayForEach(cell, item) {
		if (!double_at(cell, where, key, i, &v[i], cause)) {
			free(v);
			return false;
		}
		i++;
	}
	*out = v;
	*len = n;
	return true;
}

/* --- objects */

/* cJSON keeps both copies of a repeated key and a lookup finds only the
 * first: say so rather than guess. A hash set, because a trace may hold any
 * number of keys and comparing every pair of a million is hours. */
bool av_json_check_unique_keys(const cJSON *obj, const char *where, char **cause)
{
	struct av_strset seen = { 0 };
	const cJSON *item;
	bool ok = true;
	cJSON_ArrayForEach(item, obj) {
		const char *k = item->string ? item->string : "";
		if (av_strset_add(&seen, k, 0) >= 0) {
			char *key = av_escape(k);
			ok = key_fail(cause, where, key, _("given twice"));
			free(key);
			break;
		}
	}
	av_strset_free(&seen);
	return ok;
}

bool av_json_check_keys(const cJSON *obj, const char *where, const char *const allowed[],
			char **cause)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, obj) {
		const char *k = item->string ? item->string : "";
		int idx;
		if (av_enum_parse(allowed, k, &idx))
			continue;
		char *list = av_enum_list(allowed), *key = av_escape(k);
		char *msg = av_printf(_("unknown key \"%s\" (allowed: %s)"), key, list);
		free(list);
		free(key);
		if (where && *where)
			av_fail(cause, "\"%s\": %s", where, msg);
		else
			av_fail(cause, "%s", msg);
		free(msg);
		return false;
	}
	return av_json_check_unique_keys(obj, where, cause);
}

bool av_json_get_object(const cJSON *obj, const char *where, const char *key,
			bool required, const cJSON **out, char **cause)
{
	const cJSON *item;
	if (!find_key(obj, where, key, required, &item, cause))
		return false;
	if (item && !cJSON_IsObject(item))
		return wrong_type(cause, where, key, _("an object"), item);
	*out = item;
	return true;
}

/* --- the "config" object */

/* In the order of the AV_CFG_* bits: key i sets bit 1 << i. */
static const char *const config_keys[] = {
	"d_model", "heads", "mode", "scale", "temperature", "positional",
	"bias", "seed", "init", "max_positions", NULL
};

/* The largest integer a JSON number (a double) holds exactly. */
#define AV_JSON_MAX_EXACT 9007199254740991LL

/* The seed is a whole number; one beyond 2^53 does not survive a double,
 * so it may also be given as a string of digits. */
static bool get_seed(const cJSON *obj, const char *where, uint64_t *seed, char **cause)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, "seed");
	if (cJSON_IsString(item)) {
		const char *s = item->valuestring;
		char *end;
		if (*s >= '0' && *s <= '9') {
			errno = 0;
			unsigned long long v = strtoull(s, &end, 10);
			if (*end == '\0' && errno == 0) {
				*seed = (uint64_t)v;
				return true;
			}
		}
		return key_fail(cause, where, "seed",
				_("expected a whole number from 0 to 18446744073709551615"));
	}
	long long v = (long long)*seed;
	if (!av_json_get_int(obj, where, "seed", false, 0, AV_JSON_MAX_EXACT, &v, cause))
		return false;
	if (item)
		*seed = (uint64_t)v;
	return true;
}

static bool get_int_field(const cJSON *obj, const char *where, const char *key,
			  long long min, long long max, int *field, char **cause)
{
	long long v = *field;
	if (!av_json_get_int(obj, where, key, false, min, max, &v, cause))
		return false;
	*field = (int)v;
	return true;
}

static bool get_enum_field(const cJSON *obj, const char *where, const char *key,
			   const char *const names[], int *field, char **cause)
{
	return av_json_get_enum(obj, where, key, false, names, field, cause);
}

static bool read_config_values(const cJSON *obj, const char *where, struct av_config *c,
			       char **cause)
{
	int mode = (int)c->mode, scale = (int)c->scale;
	int positional = (int)c->positional, init = (int)c->init;
	bool ok = get_int_field(obj, where, "d_model", 1, AV_MAX_D_MODEL, &c->d_model, cause)
		&& get_int_field(obj, where, "heads", 1, AV_MAX_D_MODEL, &c->heads, cause)
		&& get_enum_field(obj, where, "mode", av_mode_names, &mode, cause)
		&& get_enum_field(obj, where, "scale", av_scale_names, &scale, cause)
		&& av_json_get_double(obj, where, "temperature", false, &c->temperature, cause)
		&& get_enum_field(obj, where, "positional", av_positional_names, &positional, cause)
		&& av_json_get_bool(obj, where, "bias", false, &c->bias, cause)
		&& get_seed(obj, where, &c->seed, cause)
		&& get_enum_field(obj, where, "init", av_init_names, &init, cause)
		&& get_int_field(obj, where, "max_positions", 1, AV_MAX_POSITIONS,
				 &c->max_positions, cause);
	c->mode = (enum av_mode)mode;
	c->scale = (enum av_scale)scale;
	c->positional = (enum av_positional)positional;
	c->init = (enum av_init)init;
	return ok;
}

bool av_json_get_config(const cJSON *obj, const char *where, struct av_config *cfg,
			unsigned *given, char **cause)
{
	if (!where || !*where)
		where = "config";
	if (!obj) {
		if (given)
			*given = 0;
		return true;
	}
	if (!cJSON_IsObject(obj))
		return av_fail(cause, _("\"%s\": expected an object, got %s"), where,
			       av_json_type_name(obj));
	if (!av_json_check_keys(obj, where, config_keys, cause))
		return false;
	/* Work on a copy: a failed read leaves the caller's config alone. */
	struct av_config c = *cfg;
	if (!read_config_values(obj, where, &c, cause))
		return false;
	if (!av_config_check(&c, cause)) {
		av_cause_prefix(cause, "\"%s\"", where);
		return false;
	}
	unsigned bits = 0;
	for (int i = 0; config_keys[i]; i++) {
		if (cJSON_GetObjectItemCaseSensitive(obj, config_keys[i]))
			bits |= 1u << i;
	}
	*cfg = c;
	if (given)
		*given = bits;
	return true;
}
