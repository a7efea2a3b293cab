/* safetensors.c: the header of a .safetensors file, checked against the
 * file's size before any tensor byte is touched (see safetensors.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "i18n.h"
#include "json_read.h"
#include "safetensors.h"
#include "util.h"

/* 2^53: the largest integer a JSON number (a double) holds exactly. */
#define EXACT_INT_MAX 9007199254740992.0

float av_half_to_float(uint16_t h)
{
	int sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
	float v;
	if (exponent == 0)
		v = ldexpf((float)mantissa, -24);               /* zero or subnormal */
	else if (exponent == 31)
		v = mantissa ? NAN : INFINITY;
	else
		v = ldexpf((float)(mantissa | 0x400), exponent - 25);
	return sign ? -v : v;
}

float av_bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;      /* bfloat16 is float32's top half */
	float v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

static int dtype_size(enum av_st_dtype d)
{
	return d == AV_ST_F32 ? 4 : 2;
}

/* Every dtype safetensors defines, with its size, so a tensor of a dtype
 * we do not compute with is still checked against its span. */
static const struct {
	const char *name;
	int size;
} known_dtypes[] = {
	{ "F64", 8 }, { "F32", 4 }, { "F16", 2 }, { "BF16", 2 }, { "I64", 8 }, { "I32", 4 },
	{ "I16", 2 }, { "I8", 1 },  { "U64", 8 }, { "U32", 4 },  { "U16", 2 },  { "U8", 1 },
	{ "BOOL", 1 }, { "F8_E4M3", 1 }, { "F8_E5M2", 1 },
};

static bool parse_dtype(struct av_st_tensor *t, const char *s, int *size)
{
	for (size_t i = 0; i < sizeof(known_dtypes) / sizeof(known_dtypes[0]); i++) {
		if (strcmp(s, known_dtypes[i].name) != 0)
			continue;
		snprintf(t->dtype_name, sizeof(t->dtype_name), "%s", s);
		t->dtype = !strcmp(s, "F32") ? AV_ST_F32 : !strcmp(s, "F16") ? AV_ST_F16
			 : !strcmp(s, "BF16") ? AV_ST_BF16 : AV_ST_OTHER;
		*size = known_dtypes[i].size;
		return true;
	}
	return false;
}

/* A JSON number that is a whole number in [0, 2^53]. */
static bool json_count(const cJSON *item, uint64_t *out)
{
	if (!cJSON_IsNumber(item))
		return false;
	double v = item->valuedouble;
	if (!(v >= 0 && v <= EXACT_INT_MAX) || v != floor(v))
		return false;
	*out = (uint64_t)v;
	return true;
}

/* A JSON number that is a whole number >= 0, however large. */
static bool json_whole(const cJSON *item)
{
	return cJSON_IsNumber(item) && isfinite(item->valuedouble) && item->valuedouble >= 0 &&
	       item->valuedouble == floor(item->valuedouble);
}

/* shape as "[d0, d1, ...]" (malloc'd): whole numbers, at most 8 of them,
 * each written out in full up to 2^64 (at most 20 digits) */
static char *shape_text(const cJSON *shape)
{
	char *text = av_strdup("[");
	const cJSON *dim;
	cJSON_ArrayForEach(dim, shape) {
		double v = dim->valuedouble;
		const char *comma = dim != shape->child ? ", " : "";
		char *longer = v <= 18446744073709551616.0 ? av_printf("%s%s%.0f", text, comma, v)
							   : av_printf("%s%s%.6g", text, comma, v);
		free(text);
		text = longer;
	}
	char *closed = av_printf("%s]", text);
	free(text);
	return closed;
}

/* A shape whose bytes no file can hold, refused as upstream refuses it
 * (ValidationOverflow), rather than as the wrong size for its offsets. */
static bool fail_too_large(char **cause, const struct av_safetensors *st, const char *name,
			   const cJSON *shape)
{
	char *n = av_escape(name), *dims = shape_text(shape);
	av_fail(cause,
		_("%s: tensor \"%s\": its shape %s is too large (a dimension above 2^53, or "
		  "2^64 bytes or more in all)"),
		st->path, n, dims);
	free(n);
	free(dims);
	return false;
}

static bool fail_tensor(char **cause, const struct av_safetensors *st, const char *name,
			const char *what)
{
	char *shown = av_escape(name);
	av_fail(cause, _("%s: tensor \"%s\": %s"), st->path, shown, what);
	free(shown);
	return false;
}

/* One header entry NAME: {dtype, shape, data_offsets} into t. */
static bool parse_entry(struct av_safetensors *st, const cJSON *entry, struct av_st_tensor *t,
			char **cause)
{
	const char *name = entry->string;
	if (!cJSON_IsObject(entry))
		return fail_tensor(cause, st, name, _("expected an object"));
	const cJSON *dtype = NULL, *shape = NULL, *offsets = NULL, *field;
	cJSON_ArrayForEach(field, entry) {
		if (!strcmp(field->string, "dtype") && !dtype)
			dtype = field;
		else if (!strcmp(field->string, "shape") && !shape)
			shape = field;
		else if (!strcmp(field->string, "data_offsets") && !offsets)
			offsets = field;
		else
			return fail_tensor(cause, st, name,
					   _("unknown or repeated key (expected dtype, shape, data_offsets)"));
	}
	if (!cJSON_IsString(dtype))
		return fail_tensor(cause, st, name, _("\"dtype\" missing or not a string"));
	int size = 0;
	if (!parse_dtype(t, dtype->valuestring, &size)) {
		char *shown = av_escape(dtype->valuestring), *n = av_escape(name);
		av_fail(cause, _("%s: tensor \"%s\": unknown dtype \"%s\""), st->path, n, shown);
		free(shown);
		free(n);
		return false;
	}
	if (!cJSON_IsArray(shape) || cJSON_GetArraySize(shape) > AV_ST_MAX_DIMS)
		return fail_tensor(cause, st, name,
				   _("\"shape\" missing, not a list, or more than 8 dimensions"));
	uint64_t count = 1;
	bool overflow = false;
	const cJSON *dim;
	cJSON_ArrayForEach(dim, shape) {
		uint64_t d = 0;
		if (!json_whole(dim))
			return fail_tensor(cause, st, name,
					   _("\"shape\" holds something other than a whole number >= 0"));
		if (!json_count(dim, &d))
			overflow = true;   /* beyond 2^53, where a JSON number stops being exact */
		else if (d != 0 && count > UINT64_MAX / d)
			overflow = true;
		else
			count *= d;
		t->shape[t->ndim++] = (int64_t)d;
	}
	/* overflow at any step, though a later 0 would make it 0 elements,
	 * as upstream's checked product refuses it */
	if (overflow || count > UINT64_MAX / (uint64_t)size)
		return fail_too_large(cause, st, name, shape);
	uint64_t b, e;
	if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
	    !json_count(cJSON_GetArrayItem(offsets, 0), &b) ||
	    !json_count(cJSON_GetArrayItem(offsets, 1), &e) || b > e)
		return fail_tensor(cause, st, name,
				   _("\"data_offsets\" must be two whole numbers [begin, end], begin <= end"));
	if (e > st->data_len) {
		char *n = av_escape(name);
		av_fail(cause,
			_("%s: tensor \"%s\": its data ends at byte %llu but the file has only "
			  "%llu bytes of data (truncated?)"),
			st->path, n, (unsigned long long)e, (unsigned long long)st->data_len);
		free(n);
		return false;
	}
	if (count * (uint64_t)size != e - b) {
		char *n = av_escape(name);
		av_fail(cause,
			_("%s: tensor \"%s\": its shape needs a different size (%s of %d bytes each) "
			  "than its %llu bytes of data"),
			st->path, n, t->dtype_name, size, (unsigned long long)(e - b));
		free(n);
		return false;
	}
	t->count = (size_t)count;
	t->begin = (size_t)b;
	t->end = (size_t)e;
	t->name = av_strdup(name);
	return true;
}

static int by_begin(const void *x, const void *y)
{
	const struct av_st_tensor *a = *(const struct av_st_tensor *const *)x;
	const struct av_st_tensor *b = *(const struct av_st_tensor *const *)y;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static bool fail_overlap(char **cause, const struct av_safetensors *st,
			 const struct av_st_tensor *a, const struct av_st_tensor *b)
{
	char *x = av_escape(a->name), *y = av_escape(b->name);
	av_fail(cause, _("%s: tensors \"%s\" and \"%s\" overlap in the file"), st->path, x, y);
	free(x);
	free(y);
	return false;
}

static bool fail_gap(char **cause, const struct av_safetensors *st, const struct av_st_tensor *t,
		     size_t from)
{
	char *n = av_escape(t->name);
	av_fail(cause,
		_("%s: tensor \"%s\": its data begins at byte %zu, so bytes %zu to %zu "
		  "belong to no tensor (a safetensors file's tensors follow one another)"),
		st->path, n, t->begin, from, t->begin - 1);
	free(n);
	return false;
}

/* The data is the tensors' bytes one after another and nothing else, as
 * Hugging Face's safetensors requires (Metadata::validate, read_metadata):
 * in order of their offsets each tensor, an empty one too, begins where the
 * one before ends, and the last ends where the file does. Bytes in no
 * tensor could hide anything (a file that is also another file), and the
 * library refuses such a file as incomplete. */
static bool check_layout(struct av_safetensors *st, char **cause)
{
	struct av_st_tensor **order = av_calloc((size_t)st->n + 1, sizeof(*order));
	for (int i = 0; i < st->n; i++)
		order[i] = &st->tensors[i];
	qsort(order, (size_t)st->n, sizeof(*order), by_begin);
	bool ok = true;
	size_t end = 0;
	for (int i = 0; i < st->n && ok; i++) {
		if (order[i]->begin < end)
			ok = fail_overlap(cause, st, order[i - 1], order[i]);
		else if (order[i]->begin > end)
			ok = fail_gap(cause, st, order[i], end);
		end = order[i]->end;
	}
	free(order);
	if (ok && end != st->data_len)
		ok = av_fail(cause,
			     _("%s: %zu bytes follow the last tensor (the tensors' data ends at byte "
			       "%zu of %zu; a safetensors file ends where its last tensor does)"),
			     st->path, st->data_len - end, end, st->data_len);
	return ok;
}

static bool parse_metadata(struct av_safetensors *st, const cJSON *meta, char **cause)
{
	if (!cJSON_IsObject(meta))
		return av_fail(cause, _("%s: \"__metadata__\" must be an object of strings"),
			       st->path);
	const cJSON *item;
	cJSON_ArrayForEach(item, meta) {
		if (!cJSON_IsString(item))
			return av_fail(cause, _("%s: \"__metadata__\" must be an object of strings"),
				       st->path);
		if (!strcmp(item->string, "format") && !st->metadata_format)
			st->metadata_format = av_strdup(item->valuestring);
	}
	return true;
}

static bool parse_header(struct av_safetensors *st, const char *json, size_t len, char **cause)
{
	/* "w\u0000x" would be the tensor "w" */
	if (!av_json_check_no_nul(json, len, st->path, cause))
		return false;
	if (av_json_count_values(json, len, AV_ST_MAX_VALUES) > AV_ST_MAX_VALUES)
		return av_fail(cause, _("%s: the header holds more than %zu values (numbers, "
			       "strings, lists, objects): the limit for %d tensors"), st->path,
			       AV_ST_MAX_VALUES, AV_ST_MAX_TENSORS);
	cJSON *doc = cJSON_ParseWithLength(json, len);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return av_fail(cause, _("%s: the header is not a JSON object (not a safetensors file?)"),
			       st->path);
	}
	int n = cJSON_GetArraySize(doc);
	st->tensors = av_calloc((size_t)n + 1, sizeof(*st->tensors));
	bool ok = true, seen_meta = false;
	const cJSON *entry;
	cJSON_ArrayForEach(entry, doc) {
		if (!strcmp(entry->string, "__metadata__") && !seen_meta) {
			seen_meta = true;
			ok = parse_metadata(st, entry, cause);
		} else if (av_st_find(st, entry->string) || !strcmp(entry->string, "__metadata__")) {
			ok = fail_tensor(cause, st, entry->string, _("named twice in the header"));
		} else if (st->n == AV_ST_MAX_TENSORS) {
			ok = av_fail(cause, _("%s: the header lists more than %d tensors"),
				     st->path, AV_ST_MAX_TENSORS);
		} else {
			ok = parse_entry(st, entry, &st->tensors[st->n], cause);
			if (ok) {
				av_strset_add(&st->by_name, st->tensors[st->n].name, st->n);
				st->n++;
			}
		}
		if (!ok)
			break;
	}
	cJSON_Delete(doc);
	return ok && check_layout(st, cause);
}

bool av_st_parse(struct av_safetensors *st, const unsigned char *bytes, size_t len,
		 const char *name, char **cause)
{
	memset(st, 0, sizeof(*st));
	st->path = av_escape_controls(name);
	if (len < 8) {
		av_fail(cause, _("%s: too short for a safetensors file (%zu bytes)"), st->path, len);
		goto fail;
	}
	uint64_t header_len = 0;
	for (int i = 7; i >= 0; i--)
		header_len = header_len << 8 | bytes[i];
	if (header_len > len - 8) {
		av_fail(cause,
			_("%s: the header claims %llu bytes but the file has %zu after the length"),
			st->path, (unsigned long long)header_len, len - 8);
		goto fail;
	}
	if (header_len > AV_ST_MAX_HEADER) {
		av_fail(cause,
			_("%s: the header claims %llu bytes, more than the limit of %llu "
			  "(%d tensors of %d bytes)"), st->path, (unsigned long long)header_len,
			(unsigned long long)AV_ST_MAX_HEADER, AV_ST_MAX_TENSORS, AV_ST_ENTRY_BYTES);
		goto fail;
	}
	st->data = bytes + 8 + header_len;
	st->data_len = len - 8 - (size_t)header_len;
	if (!parse_header(st, (const char *)bytes + 8, (size_t)header_len, cause))
		goto fail;
	return true;
fail:
	av_st_close(st);
	return false;
}

bool av_st_open(struct av_safetensors *st, const char *path, char **cause)
{
	memset(st, 0, sizeof(*st));
	/* O_NONBLOCK: a FIFO in the model's place is refused below, where
	 * open() waited for a writer that never came (the file is mapped, so
	 * it must be a regular file; the flag changes nothing for one) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		char *shown = av_escape_controls(path);
		av_fail(cause, _("%s: %s"), shown, strerror(errno));
		free(shown);
		return false;
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
		close(fd);
		char *shown = av_escape_controls(path);
		av_fail(cause, _("%s: not a regular, non-empty file"), shown);
		free(shown);
		return false;
	}
	size_t len = (size_t)sb.st_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		char *shown = av_escape_controls(path);
		av_fail(cause, _("%s: cannot map the file: %s"), shown, strerror(errno));
		free(shown);
		return false;
	}
	if (!av_st_parse(st, map, len, path, cause)) {
		munmap(map, len);
		return false;
	}
	st->map = map;
	st->map_len = len;
	return true;
}

struct av_st_tensor *av_st_find(const struct av_safetensors *st, const char *name)
{
	int i = av_strset_find(&st->by_name, name);
	return i >= 0 ? &st->tensors[i] : NULL;
}

static bool little_endian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

bool av_st_floats(struct av_safetensors *st, struct av_st_tensor *t, const float **out,
		  char **cause)
{
	if (t->copy) {
		*out = t->copy;
		return true;
	}
	if (t->dtype == AV_ST_OTHER) {
		char *n = av_escape(t->name);
		av_fail(cause, _("%s: tensor \"%s\": dtype %s is not supported (F32, F16 or BF16)"),
			st->path, n, t->dtype_name);
		free(n);
		return false;
	}
	const unsigned char *src = st->data + t->begin;
	bool le = little_endian();
	if (t->dtype == AV_ST_F32 && le && ((uintptr_t)src % _Alignof(float)) == 0) {
		*out = (const float *)(const void *)src;   /* in place: shared, no copy */
		return true;
	}
	/* The file is little-endian, whatever the machine: assemble each value
	 * from its bytes (unaligned or converted data). */
	float *copy = av_malloc(t->count ? t->count * sizeof(float) : 1);
	int size = dtype_size(t->dtype);
	for (size_t i = 0; i < t->count; i++) {
		const unsigned char *p = src + i * (size_t)size;
		if (t->dtype == AV_ST_F32) {
			uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
					(uint32_t)p[3] << 24;
			memcpy(&copy[i], &bits, sizeof(float));
		} else {
			uint16_t bits = (uint16_t)(p[0] | p[1] << 8);
			copy[i] = t->dtype == AV_ST_F16 ? av_half_to_float(bits) : av_bf16_to_float(bits);
		}
	}
	t->copy = copy;
	*out = copy;
	return true;
}

void av_st_close(struct av_safetensors *st)
{
	for (int i = 0; i < st->n; i++) {
		free(st->tensors[i].name);
		free(st->tensors[i].copy);
	}
	/* a tensor whose entry failed half-way may hold a name too */
	if (st->tensors)
		free(st->tensors[st->n].name);
	av_strset_free(&st->by_name);   /* before the names it points to go */
	free(st->tensors);
	free(st->path);
	free(st->metadata_format);
	if (st->map)
		munmap(st->map, st->map_len);
	memset(st, 0, sizeof(*st));
}
