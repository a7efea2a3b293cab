/* test_safetensors.c: the safetensors reader on files the tests write: good
 * files (F32 in place, unaligned, F16 and BF16 converted) and one bad file
 * per refusal, each message naming the file and the tensor. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "model/safetensors.h"
#include "util.h"

#define TEMP_DIR_TEMPLATE "/tmp/attnview-st-XXXXXX"
#include "temp_dir.h"

/* Writes header (JSON) with its length, then data, as dir/name; returns the
 * malloc'd path. header_len_override, when not 0, is written instead of the
 * real length. */
static char *write_st(const char *name, const char *header, uint64_t header_len_override,
		      const void *data, size_t data_len)
{
	char *path = av_printf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint64_t n = header_len_override ? header_len_override : strlen(header);
	unsigned char len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(n >> (8 * i));
	assert_int_equal(fwrite(len, 1, 8, f), 8);
	assert_int_equal(fwrite(header, 1, strlen(header), f), strlen(header));
	if (data_len)
		assert_int_equal(fwrite(data, 1, data_len, f), data_len);
	fclose(f);
	return path;
}

static const float two_by_three[6] = { 1, 2, 3, 4, 5, -6.5f };

static void test_good_f32(void **state)
{
	(void)state;
	/* padded so the data starts at a multiple of 8, as the real files do */
	const char *h = "{\"__metadata__\":{\"format\":\"pt\"},"
			"\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]}}";
	char header[256];
	size_t hl = strlen(h);
	size_t pad = (8 - (8 + hl) % 8) % 8;
	snprintf(header, sizeof(header), "%s%*s", h, (int)pad, "");
	char *path = write_st("good.safetensors", header, 0, two_by_three, sizeof(two_by_three));
	struct av_safetensors st;
	char *cause = NULL;
	assert_true(av_st_open(&st, path, &cause));
	assert_null(cause);
	assert_int_equal(st.n, 1);
	assert_string_equal(st.metadata_format, "pt");
	struct av_st_tensor *t = av_st_find(&st, "a");
	assert_non_null(t);
	assert_int_equal(t->ndim, 2);
	assert_int_equal(t->shape[0], 2);
	assert_int_equal(t->shape[1], 3);
	const float *v = NULL;
	assert_true(av_st_floats(&st, t, &v, &cause));
	assert_memory_equal(v, two_by_three, sizeof(two_by_three));
	/* aligned F32 is used where it lies: no private copy */
	assert_null(t->copy);
	assert_true((const unsigned char *)v >= (const unsigned char *)st.map);
	assert_null(av_st_find(&st, "b"));
	av_st_close(&st);
	av_st_close(&st);   /* harmless twice */
	free(path);
}

static void test_unaligned_f32(void **state)
{
	(void)state;
	/* a 1-byte pad tensor first puts "a" at an odd address */
	const char *h = "{\"pad\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
			"\"a\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[1,25]}}  ";
	unsigned char data[25] = { 7 };
	memcpy(data + 1, two_by_three, sizeof(two_by_three));
	char *path = write_st("unaligned.safetensors", h, 0, data, sizeof(data));
	struct av_safetensors st;
	char *cause = NULL;
	assert_true(av_st_open(&st, path, &cause));
	struct av_st_tensor *t = av_st_find(&st, "a");
	const float *v = NULL;
	assert_true(av_st_floats(&st, t, &v, &cause));
	assert_memory_equal(v, two_by_three, sizeof(two_by_three));
	assert_true((uintptr_t)v % sizeof(float) == 0);
	/* U8 is checked against its span but not computed with */
	assert_false(av_st_floats(&st, av_st_find(&st, "pad"), &v, &cause));
	assert_non_null(strstr(cause, "tensor \"pad\": dtype U8 is not supported"));
	assert_non_null(strstr(cause, "unaligned.safetensors"));
	free(cause);
	av_st_close(&st);
	free(path);
}

static void test_half_and_bf16(void **state)
{
	(void)state;
	/* F16: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff, smallest subnormal
	 * 0x0001 = 2^-24; BF16: 1.0 = 0x3f80, -3.0 = 0xc040 */
	const uint16_t half[4] = { 0x3c00, 0xc000, 0x7bff, 0x0001 };
	const uint16_t bf[2] = { 0x3f80, 0xc040 };
	unsigned char data[12];
	for (int i = 0; i < 4; i++) {
		data[2 * i] = (unsigned char)(half[i] & 0xff);
		data[2 * i + 1] = (unsigned char)(half[i] >> 8);
	}
	for (int i = 0; i < 2; i++) {
		data[8 + 2 * i] = (unsigned char)(bf[i] & 0xff);
		data[8 + 2 * i + 1] = (unsigned char)(bf[i] >> 8);
	}
	const char *h = "{\"h\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
			"\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[8,12]}}";
	char *path = write_st("half.safetensors", h, 0, data, sizeof(data));
	struct av_safetensors st;
	char *cause = NULL;
	assert_true(av_st_open(&st, path, &cause));
	const float *v;
	assert_true(av_st_floats(&st, av_st_find(&st, "h"), &v, &cause));
	assert_true(v[0] == 1.0f && v[1] == -2.0f && v[2] == 65504.0f);
	assert_true(v[3] == ldexpf(1.0f, -24));
	assert_true(av_st_floats(&st, av_st_find(&st, "b"), &v, &cause));
	assert_true(v[0] == 1.0f && v[1] == -3.0f);
	assert_true(isinf(av_half_to_float(0x7c00)) && isnan(av_half_to_float(0x7e00)));
	av_st_close(&st);
	free(path);
}

/* A bad file: refused, with a message holding every one of the parts. */
static void expect_refusal(const char *name, const char *header, uint64_t len_override,
			   size_t data_len, const char *part1, const char *part2)
{
	unsigned char *data = av_calloc(data_len ? data_len : 1, 1);
	char *path = write_st(name, header, len_override, data, data_len);
	struct av_safetensors st;
	char *cause = NULL;
	bool ok = av_st_open(&st, path, &cause);
	if (ok || !cause || !strstr(cause, name) || !strstr(cause, part1) ||
	    (part2 && !strstr(cause, part2)))
		fail_msg("%s: got %s", name, ok ? "success" : cause ? cause : "no cause");
	free(cause);
	free(data);
	free(path);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_refusal("truncated.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 0, 12,
		       "tensor \"w\"", "truncated");
	expect_refusal("overlap.safetensors",
		       "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 0, 12,
		       "\"a\" and \"b\" overlap", NULL);
	expect_refusal("dtype.safetensors",
		       "{\"w\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0, 4,
		       "tensor \"w\"", "unknown dtype \"F33\"");
	expect_refusal("shape.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[3,3],\"data_offsets\":[0,32]}}", 0, 32,
		       "tensor \"w\"", "different size");
	/* a shape whose bytes overflow said it "needs a different size than its
	 * 0 bytes of data", and one past 2^53 that it "holds something other
	 * than a whole number": it is too large, as upstream says */
	expect_refusal("shape-overflow.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,16],"
		       "\"data_offsets\":[0,0]}}", 0, 0,
		       "tensor \"w\": its shape [4294967296, 4294967296, 16] is too large", NULL);
	/* 2^62 elements fit 64 bits, their 2^64 bytes do not */
	expect_refusal("shape-bytes.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,1073741824],"
		       "\"data_offsets\":[0,0]}}", 0, 0,
		       "tensor \"w\": its shape [4294967296, 1073741824] is too large", NULL);
	expect_refusal("shape-huge.safetensors",
		       "{\"w\":{\"dtype\":\"U8\",\"shape\":[4611686018427387904,1e30],"
		       "\"data_offsets\":[0,0]}}", 0, 0,
		       "tensor \"w\": its shape [4611686018427387904, 1e+30] is too large",
		       "(a dimension above 2^53, or 2^64 bytes or more in all)");
	/* overflowing on the way to 0 elements, as upstream's checked product does */
	expect_refusal("shape-then-zero.safetensors",
		       "{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296,0],"
		       "\"data_offsets\":[0,0]}}", 0, 0, "is too large", NULL);
	expect_refusal("fraction.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 0, 4,
		       "tensor \"w\"", "whole number");
	/* the largest shape that fits 64 bits is the wrong size for its data */
	expect_refusal("shape-fits.safetensors",
		       "{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967295],"
		       "\"data_offsets\":[0,0]}}", 0, 0, "tensor \"w\"", "different size");
	expect_refusal("negative.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 0, 4,
		       "tensor \"w\"", "whole number");
	expect_refusal("offsets.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 0, 4,
		       "tensor \"w\"", "begin <= end");
	/* a 2 GB header claim in a small file; and one past the 100 MB bound */
	expect_refusal("huge-header.safetensors", "{}", (uint64_t)2 << 30, 0,
		       "the header claims 2147483648 bytes", NULL);
	expect_refusal("past-end.safetensors", "{}", 3, 0, "the header claims 3 bytes", NULL);
	expect_refusal("not-json.safetensors", "{\"w\": oops", 0, 0, "not a JSON object", NULL);
	expect_refusal("list.safetensors", "[1,2]", 0, 0, "not a JSON object", NULL);
	expect_refusal("twice.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		       "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0, 8,
		       "tensor \"w\"", "named twice");
	expect_refusal("extra-key.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}",
		       0, 4, "tensor \"w\"", "unknown or repeated key");
	expect_refusal("meta.safetensors", "{\"__metadata__\":{\"format\":1}}", 0, 0,
		       "__metadata__", NULL);
	expect_refusal("dims.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],"
		       "\"data_offsets\":[0,4]}}", 0, 4, "tensor \"w\"", "8 dimensions");
	/* "w\u0000x" would be read as the tensor "w" */
	expect_refusal("nul.safetensors",
		       "{\"w\\u0000x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
		       0, 4, "nul.safetensors:1:4: \"\\u0000\" in a string", NULL);
	/* a name with an escape sequence is shown escaped, never raw */
	expect_refusal("escape.safetensors",
		       "{\"\\u001b[2J\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}",
		       0, 4, "tensor \"\\x1b[2J\"", NULL);
}

/* Hugging Face's library reads a file only when its tensors cover the data
 * exactly, one after another (Metadata::validate; MetadataIncompleteBuffer
 * for bytes after the last): bytes in no tensor were accepted here. */
static void test_data_covered_exactly(void **state)
{
	(void)state;
	expect_refusal("trailing.safetensors",
		       "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 0, 9,
		       "5 bytes follow the last tensor", "ends at byte 4 of 9");
	expect_refusal("no-tensors.safetensors", "{}", 0, 3, "3 bytes follow the last tensor",
		       "ends at byte 0 of 3");
	expect_refusal("gap.safetensors",
		       "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
		       "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}", 0, 12,
		       "tensor \"b\": its data begins at byte 8", "bytes 4 to 7 belong to no tensor");
	expect_refusal("gap-first.safetensors",
		       "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 0, 8,
		       "tensor \"a\"", "bytes 0 to 3 belong to no tensor");
	/* an empty tensor inside another's span: upstream's InvalidOffset too */
	expect_refusal("empty-inside.safetensors",
		       "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
		       "\"e\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[4,4]}}", 0, 8,
		       "\"a\" and \"e\" overlap", NULL);

	/* in any order in the header; empty tensors where one ends and another
	 * begins, and at either end, are in their place */
	const char *h = "{\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[8,8]},"
			"\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
			"\"m\":{\"dtype\":\"U8\",\"shape\":[2,0],\"data_offsets\":[4,4]},"
			"\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
			"\"e\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}";
	char *path = write_st("in-order.safetensors", h, 0, two_by_three, 8);
	struct av_safetensors st;
	char *cause = NULL;
	if (!av_st_open(&st, path, &cause))
		fail_msg("refused: %s", cause);
	assert_int_equal(st.n, 5);
	av_st_close(&st);
	free(path);

	/* the fuzz target's seeds of both kinds */
	static const char *const seeds[][2] = {
		{ "trailing.safetensors", "17 bytes follow the last tensor" },
		{ "gap.safetensors", "bytes 8 to 11 belong to no tensor" },
	};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		path = av_printf("%s/fuzz/safetensors-seeds/%s", TESTS_SRCDIR, seeds[i][0]);
		assert_false(av_st_open(&st, path, &cause));
		if (!strstr(cause, seeds[i][0]) || !strstr(cause, seeds[i][1]))
			fail_msg("%s: %s", seeds[i][0], cause);
		free(cause);
		cause = NULL;
		free(path);
	}
}

static void test_too_short_and_missing(void **state)
{
	(void)state;
	struct av_safetensors st;
	char *cause = NULL;
	const unsigned char few[3] = { 1, 2, 3 };
	assert_false(av_st_parse(&st, few, sizeof(few), "short", &cause));
	assert_string_equal(cause, "short: too short for a safetensors file (3 bytes)");
	free(cause);
	cause = NULL;
	char *path = av_printf("%s/none.safetensors", dir);
	assert_false(av_st_open(&st, path, &cause));
	assert_non_null(strstr(cause, "none.safetensors: No such file"));
	free(cause);
	cause = NULL;
	assert_false(av_st_open(&st, dir, &cause));   /* a directory */
	assert_non_null(strstr(cause, "not a regular"));
	free(cause);
	free(path);
}

/* A header of n empty tensors t0..t(n-1), then "t0" again when repeat. */
static char *many_tensors(int n, bool repeat, size_t *len)
{
	static const char entry[] = "\"t%d\":{\"dtype\":\"U8\",\"shape\":[0],"
				    "\"data_offsets\":[0,0]}";
	size_t cap = 8 + 16 + (size_t)(n + 1) * (sizeof(entry) + 12), used = 8;
	char *bytes = av_calloc(cap, 1);
	used += (size_t)snprintf(bytes + used, cap - used, "{");
	for (int i = 0; i < n + repeat; i++) {
		used += (size_t)snprintf(bytes + used, cap - used, "%s", i ? "," : "");
		used += (size_t)snprintf(bytes + used, cap - used, entry, i < n ? i : 0);
	}
	used += (size_t)snprintf(bytes + used, cap - used, "}");
	for (int i = 0; i < 8; i++)
		bytes[i] = (char)(unsigned char)((used - 8) >> (8 * i));
	*len = used;
	return bytes;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Repeats were found by a linear search per entry: 100 000 entries took 25 s,
 * the 100 MB header limit allowed an hour and a half. Now a hash set: well
 * under a second, so 10 s holds even under sanitizers. */
static void test_many_tensors_fast_and_bounded(void **state)
{
	(void)state;
	size_t len;
	char *bytes = many_tensors(AV_ST_MAX_TENSORS, true, &len);
	struct av_safetensors st;
	char *cause = NULL;
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	assert_false(av_st_parse(&st, (unsigned char *)bytes, len, "many", &cause));
	double took = seconds_since(&start);
	assert_string_equal(cause, "many: tensor \"t0\": named twice in the header");
	if (took > 10)
		fail_msg("%d tensors took %.1f s", AV_ST_MAX_TENSORS, took);
	free(cause);
	cause = NULL;
	free(bytes);

	bytes = many_tensors(AV_ST_MAX_TENSORS, false, &len);   /* the most allowed */
	assert_true(av_st_parse(&st, (unsigned char *)bytes, len, "many", &cause));
	assert_int_equal(st.n, AV_ST_MAX_TENSORS);
	assert_non_null(av_st_find(&st, "t99999"));
	assert_null(av_st_find(&st, "t100000"));
	av_st_close(&st);
	free(bytes);

	bytes = many_tensors(AV_ST_MAX_TENSORS + 1, false, &len);
	assert_false(av_st_parse(&st, (unsigned char *)bytes, len, "many", &cause));
	assert_string_equal(cause, "many: the header lists more than 100000 tensors");
	free(cause);
	free(bytes);
}

/* 8 length bytes, then the header {"a":[0,0,...]} of n zeros (n + 2
 * values), padded with spaces to pad bytes when pad is larger. */
static unsigned char *zeros_header(size_t n, size_t pad, size_t *len)
{
	size_t text = n ? 7 + 2 * n : 8;
	size_t header = text > pad ? text : pad;
	unsigned char *bytes = av_malloc(8 + header + 1);
	char *w = (char *)bytes + 8 + sprintf((char *)bytes + 8, "{\"a\":[");
	for (size_t i = 0; i < n; i++)
		w += sprintf(w, "%s0", i ? "," : "");
	w += sprintf(w, "]}");
	memset(w, ' ', header - text);
	for (int i = 0; i < 8; i++)
		bytes[i] = (unsigned char)(header >> (8 * i));
	*len = 8 + header;
	return bytes;
}

/* cJSON builds a header whole: one of "0,0,..." at Hugging Face's 100 MiB
 * took 4.2 GB. The values are counted first (as many as 100 000 tensors'
 * entries hold) and the bytes bounded by what an entry needs. */
static void test_header_bounded_by_need(void **state)
{
	(void)state;
	struct av_safetensors st;
	char *cause = NULL;
	size_t len;
	unsigned char *bytes = zeros_header(AV_ST_MAX_VALUES - 2, 0, &len);
	assert_false(av_st_parse(&st, bytes, len, "zeros", &cause));
	/* counted, then read */
	assert_string_equal(cause, "zeros: tensor \"a\": expected an object");
	free(cause);
	cause = NULL;
	free(bytes);
	bytes = zeros_header(AV_ST_MAX_VALUES - 1, 0, &len);
	assert_false(av_st_parse(&st, bytes, len, "zeros", &cause));
	assert_string_equal(cause, "zeros: the header holds more than 1400014 values (numbers, "
			    "strings, lists, objects): the limit for 100000 tensors");
	free(cause);
	cause = NULL;
	free(bytes);
	bytes = zeros_header(0, AV_ST_MAX_HEADER + 1, &len);
	assert_false(av_st_parse(&st, bytes, len, "big", &cause));
	assert_string_equal(cause, "big: the header claims 51200001 bytes, more than the limit "
			    "of 51200000 (100000 tensors of 512 bytes)");
	free(cause);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_f32),
		cmocka_unit_test(test_unaligned_f32),
		cmocka_unit_test(test_half_and_bf16),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_data_covered_exactly),
		cmocka_unit_test(test_too_short_and_missing),
		cmocka_unit_test(test_header_bounded_by_need),
		cmocka_unit_test(test_many_tensors_fast_and_bounded),
	};
	return cmocka_run_group_tests(tests, temp_dir_setup, temp_dir_teardown);
}
