/* json_rows.c: the rows of numbers of a weights file, read beside cJSON
 * (see json_rows.h). */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_rows.h"
#include "util.h"

/* The four characters JSON allows between tokens (cJSON skips more: a row
 * with any other stays cJSON's). */
static bool json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The characters cJSON copies into a number before it calls strtod. */
static bool number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' ||
	       c == 'E';
}

static size_t skip_space(const char *text, size_t len, size_t i)
{
	while (i < len && json_space(text[i]))
		i++;
	return i;
}

/* The number cJSON reads from text[0..len) (number characters only) when
 * it reads all of it ("1e" is 1 and then a syntax error in place: refused).
 * This is cJSON's parse_value for a number and its parse_number: at most
 * 63 characters, '.' as the locale's decimal point (point), strtod; the
 * same call on the same characters, so the same bits, without the node
 * cJSON would make for it (a quarter of the time). */
static bool read_number(const char *text, size_t len, char point, double *out)
{
	char buf[64];
	/* cJSON reads a number only where a '-' or a digit starts a value
	 * ("+.5" is a syntax error there, though strtod reads it) */
	if (len == 0 || len >= sizeof(buf) ||
	    !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
		return false;
	for (size_t i = 0; i < len; i++)
		buf[i] = text[i] == '.' ? point : text[i];
	buf[len] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (end != buf + len)
		return false;
	*out = v;
	return true;
}

static void add_row(struct av_json_rows *rows, double *values, int count)
{
	if (rows->n == rows->cap) {
		rows->cap = rows->cap ? rows->cap * 2 : 64;
		rows->values = av_realloc(rows->values, (size_t)rows->cap, sizeof(*rows->values));
		rows->counts = av_realloc(rows->counts, (size_t)rows->cap, sizeof(*rows->counts));
		rows->spans = av_realloc(rows->spans, (size_t)rows->cap, sizeof(*rows->spans));
	}
	rows->values[rows->n] = values;
	rows->counts[rows->n] = count;
	rows->n++;
	rows->bytes += AV_JSON_ROW_BYTES(count);
}

/* The list of numbers that opens at text[i] ('['), read into rows when it
 * has AV_JSON_ROW_MIN numbers or more; *end is just past its ']'. */
static bool read_row(const char *text, size_t len, size_t i, char point, size_t *end,
		     struct av_json_rows *rows)
{
	double *values = NULL;
	int count = 0, cap = 0;
	size_t j = skip_space(text, len, i + 1);
	for (;;) {
		size_t start = j;
		while (j < len && number_char(text[j]))
			j++;
		double x;
		if (!read_number(text + start, j - start, point, &x))
			goto not_a_row;
		if (count == cap) {
			cap = cap ? cap * 2 : 16;
			values = av_realloc(values, (size_t)cap, sizeof(*values));
		}
		values[count++] = x;
		j = skip_space(text, len, j);
		if (j < len && text[j] == ',') {
			j = skip_space(text, len, j + 1);
			continue;
		}
		if (j < len && text[j] == ']')
			break;
		goto not_a_row;
	}
	if (count < AV_JSON_ROW_MIN)
		goto not_a_row;
	add_row(rows, av_realloc(values, (size_t)count, sizeof(*values)), count);
	*end = j + 1;
	return true;
not_a_row:
	free(values);
	return false;
}

/* Just past the string that opens at text[i] ('"'), or len when it is not
 * closed (cJSON then refuses the text); false when it holds U+0001, raw or
 * as the escape \u0001 (the stand-ins' mark). */
static bool string_end(const char *text, size_t len, size_t i, size_t *end)
{
	for (size_t j = i + 1; j < len; j++) {
		if (text[j] == '\x01')
			return false;
		if (text[j] == '\\') {
			if (len - j > 5 && memcmp(text + j + 1, "u0001", 5) == 0)
				return false;
			j++;   /* the escaped character, whatever it is */
		} else if (text[j] == '"') {
			*end = j + 1;
			return true;
		}
	}
	*end = len;
	return true;
}

/* The stand-in of row k: a JSON string, U+0001 then k. */
static int stand_in(char *buf, size_t size, int k)
{
	return snprintf(buf, size, "\"\\u0001%d\"", k);
}

enum av_json_rows_result av_json_rows_compact(const char *text, size_t len, size_t max_bytes,
					      char **compact, struct av_json_rows *rows)
{
	enum av_json_rows_result result = AV_JSON_ROWS_NONE;
	memset(rows, 0, sizeof(*rows));
	char *out = av_malloc(len + 1);
	size_t o = 0;
	char open[AV_JSON_ROW_DEPTH];
	int depth = 0;
	char point = *localeconv()->decimal_point;   /* as cJSON's get_decimal_point */
	for (size_t i = 0; i < len;) {
		char c = text[i];
		size_t end;
		if (c == '"') {
			if (!string_end(text, len, i, &end))
				goto keep;
			memcpy(out + o, text + i, end - i);
			o += end - i;
			i = end;
			continue;
		}
		if (c == '[' && depth > 0 && open[depth - 1] == '[' &&
		    read_row(text, len, i, point, &end, rows)) {
			/* a row of 8 numbers takes 17 bytes or more, its stand-in
			 * 8 plus the digits of k: the text only gets shorter */
			char s[32];
			int n = stand_in(s, sizeof(s), rows->n - 1);
			if (n < 0 || (size_t)n > end - i)
				goto keep;
			rows->spans[rows->n - 1] = (struct av_json_row_span){ i, end - i, o,
									      (size_t)n };
			memcpy(out + o, s, (size_t)n);
			o += (size_t)n;
			i = end;
			if (rows->bytes > max_bytes) {
				result = AV_JSON_ROWS_TOO_BIG;
				goto keep;
			}
			continue;
		}
		if (c == '[' || c == '{') {
			if (depth == AV_JSON_ROW_DEPTH)
				goto keep;
			open[depth++] = c;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
		out[o++] = c;
		i++;
	}
	if (rows->n == 0)
		goto keep;
	out[o] = '\0';
	*compact = out;
	return AV_JSON_ROWS_COMPACT;
keep:
	free(out);
	av_json_rows_free(rows);
	return result;
}

/* Whether s is the stand-in of row k (U+0001, then k in digits). */
static bool is_stand_in(const char *s, int k)
{
	char want[16];
	snprintf(want, sizeof(want), "\x01%d", k);
	return strcmp(s, want) == 0;
}

static void become_row(cJSON *item, struct av_json_rows *rows, int k)
{
	cJSON_free(item->valuestring);
	item->valuestring = (char *)rows->values[k];
	rows->values[k] = NULL;
	item->valueint = rows->counts[k];
	item->valuedouble = rows->counts[k];
	item->type = cJSON_Raw;
}

static bool attach_in(cJSON *node, struct av_json_rows *rows, int *next)
{
	for (cJSON *child = node->child; child; child = child->next) {
		const char *s = cJSON_IsString(child) ? child->valuestring : NULL;
		if (s && s[0] == '\x01') {
			if (*next >= rows->n || !is_stand_in(s, *next))
				return false;
			become_row(child, rows, (*next)++);
		} else if ((cJSON_IsArray(child) || cJSON_IsObject(child)) &&
			   !attach_in(child, rows, next)) {
			return false;
		}
	}
	return true;
}

bool av_json_rows_attach(cJSON *root, struct av_json_rows *rows)
{
	int next = 0;
	return attach_in(root, rows, &next) && next == rows->n;
}

size_t av_json_rows_text_offset(const struct av_json_rows *rows, size_t offset)
{
	/* the last stand-in that starts at or before offset */
	int lo = 0, hi = rows->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (rows->spans[mid].compact <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return offset;
	const struct av_json_row_span *r = &rows->spans[lo - 1];
	size_t into = offset - r->compact;
	if (into >= r->compact_len)
		return r->text + r->text_len + (into - r->compact_len);
	return r->text + (into + 1 == r->compact_len ? r->text_len - 1 : into);
}

void av_json_rows_free(struct av_json_rows *rows)
{
	for (int k = 0; k < rows->n; k++)
		free(rows->values[k]);
	free(rows->values);
	free(rows->counts);
	free(rows->spans);
	memset(rows, 0, sizeof(*rows));
}

const double *av_json_row_aside(const cJSON *item, int *count)
{
	if (!cJSON_IsRaw(item))
		return NULL;
	*count = item->valueint;
	return (const double *)(const void *)item->valuestring;
}
