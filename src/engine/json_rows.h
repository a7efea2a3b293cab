/* json_rows.h: the rows of numbers of a weights file, read beside cJSON.
 *
 * A weights file is mostly matrix rows, and cJSON spends a node of about
 * 80 bytes on every number: reading qkv-walkthrough's 15.7 MB --dump took
 * 109 MB. So before cJSON runs, every row of at least AV_JSON_ROW_MIN
 * numbers that sits in a list (a matrix row, never a key's own value) is
 * read into a block of doubles, and cJSON gets the text with each such row
 * as a short string. After the parse those strings become cJSON_Raw nodes
 * (which cJSON's parser never makes) that own the doubles: valuestring
 * points at them and valueint counts them. json_read.c's getters and
 * av_json_type_name read such a node as the list of numbers it was.
 *
 * Each number is read as cJSON reads it (its parse_number: the same strtod
 * on the same characters), so the doubles are the bits cJSON gives.
 * Whatever is unusual keeps the text as it is (av_json_rows_compact returns
 * false): a number cJSON would read differently in place, a row with
 * anything but numbers, commas and the four JSON spaces, nesting past
 * AV_JSON_ROW_DEPTH, or a string holding U+0001, which the stand-in strings
 * begin with. */
#ifndef AV_JSON_ROWS_H
#define AV_JSON_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#define AV_JSON_ROW_MIN 8      /* shorter lists stay cJSON's */
#define AV_JSON_ROW_DEPTH 64   /* a weights file nests 4 deep */

/* The memory a row of c numbers read aside takes, about: its block of
 * doubles (8c, and malloc's 16), its entries in struct av_json_rows (56,
 * as the arrays double), and in cJSON's tree its stand-in's node (80) and
 * string (32). Rows of 8 zeros ("[0,0,0,0,0,0,0,0]", 18 bytes) take 14
 * times their text. */
#define AV_JSON_ROW_BYTES(c) (8 * (size_t)(c) + 184)

/* Where a row lies in the text and its stand-in in the compact text, so
 * that a place cJSON names in the one is found in the other. */
struct av_json_row_span {
	size_t text, text_len, compact, compact_len;
};

struct av_json_rows {
	double **values;   /* values[k]: row k's numbers (malloc'd), or NULL once
			      a node owns them */
	int *counts;
	struct av_json_row_span *spans;
	int n, cap;
	size_t bytes;      /* the sum of AV_JSON_ROW_BYTES over the rows */
};

enum av_json_rows_result {
	AV_JSON_ROWS_NONE,      /* the text has to go to cJSON as it is */
	AV_JSON_ROWS_COMPACT,   /* *compact and *rows are made */
	AV_JSON_ROWS_TOO_BIG,   /* the rows would take more than max_bytes */
};

/* The text (len bytes) with every row read aside replaced by a stand-in
 * string, into *compact (malloc'd, NUL-terminated), and the rows in
 * document order into *rows (free with av_json_rows_free). Stops once the
 * rows read take more than max_bytes (rows->bytes), so a file of many
 * short rows cannot take many times its size. Nothing is left to free
 * unless the result is AV_JSON_ROWS_COMPACT. */
enum av_json_rows_result av_json_rows_compact(const char *text, size_t len, size_t max_bytes,
					      char **compact, struct av_json_rows *rows);

/* Turns the stand-in strings of root (the parse of the compact text) into
 * the rows' cJSON_Raw nodes, in document order; false when they do not
 * match the rows one for one (root may then hold some: cJSON_Delete frees
 * them). */
bool av_json_rows_attach(cJSON *root, struct av_json_rows *rows);

/* The offset in the text of what is at `offset` in the compact text (the
 * same character outside the stand-ins; inside one, as far into its row,
 * and its last character is the row's ']'). */
size_t av_json_rows_text_offset(const struct av_json_rows *rows, size_t offset);

void av_json_rows_free(struct av_json_rows *rows);

/* The numbers of a row read aside, and their count; NULL for any other
 * item. */
const double *av_json_row_aside(const cJSON *item, int *count);

#endif
