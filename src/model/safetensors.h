/* safetensors.h: a Hugging Face .safetensors file, mapped read-only.
 *
 * Layout: an unsigned 64-bit little-endian header length N, N bytes of JSON
 *   {"NAME": {"dtype": "F32", "shape": [d0, d1, ...], "data_offsets": [b, e]},
 *    ..., "__metadata__": {"k": "v", ...}}
 * and then the data, where tensor NAME is bytes [b, e) counted from the end
 * of the header.
 *
 * Nothing in the file is trusted: the header length is bounded
 * (AV_ST_MAX_HEADER) and must fit in the file, its JSON values are counted
 * (AV_ST_MAX_VALUES) before cJSON builds them; every shape's product times
 * the dtype's size must equal its offsets' span, every span must lie inside
 * the data, the spans must cover the data exactly, one after another (no
 * overlap, no gap, nothing after the last: what Hugging Face's library
 * requires), names must be unique, and there are at most AV_ST_MAX_TENSORS
 * of them; every refusal names the file and the tensor (or the bytes).
 *
 * The file is mmap'd read-only and shared, so many students on one server
 * use one copy in the page cache. F32 tensors are used in place when 4-byte
 * aligned; an unaligned one is copied once. F16 and BF16 tensors are
 * converted to float32 copies on first use: that costs private memory, twice
 * the tensor's bytes in the file, for every process (the shared page cache
 * helps only F32 files). Other dtypes are refused when used. */
#ifndef AV_SAFETENSORS_H
#define AV_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strset.h"

#define AV_ST_MAX_DIMS 8
/* GPT-2 XL has 582 tensors and the largest files on the Hub a few thousand;
 * a header of 100 000 is no model, and refusing it bounds the work. */
#define AV_ST_MAX_TENSORS 100000
/* The header is JSON, which cJSON builds whole before a tensor is counted:
 * Hugging Face's limit of 100 MiB let a header of "0,0,0..." take 4.2 GB.
 * So the bounds come from what a tensor's entry can need instead. Its
 * values are at most 14 (its object, "dtype", "shape" and 8 dimensions,
 * "data_offsets" and its 2 numbers); its text, with 8 dimensions and
 * offsets of 16 digits, 230 bytes besides the name, so 512 bytes leave
 * the name 280 (GPT-2 XL's whole header is about 60 KB). __metadata__ may
 * take the values of one more entry, or those the tensors leave. */
#define AV_ST_ENTRY_VALUES 14
#define AV_ST_ENTRY_BYTES 512
#define AV_ST_MAX_HEADER ((uint64_t)AV_ST_MAX_TENSORS * AV_ST_ENTRY_BYTES)
#define AV_ST_MAX_VALUES ((size_t)(AV_ST_MAX_TENSORS + 1) * AV_ST_ENTRY_VALUES)

enum av_st_dtype { AV_ST_F32, AV_ST_F16, AV_ST_BF16, AV_ST_OTHER };

struct av_st_tensor {
	char *name;
	enum av_st_dtype dtype;
	char dtype_name[8];            /* as the file spells it ("F64", ...) */
	int ndim;
	int64_t shape[AV_ST_MAX_DIMS];
	size_t count;                  /* product of the shape */
	size_t begin, end;             /* byte span within the data */
	float *copy;                   /* converted / aligned copy, or NULL */
};

struct av_safetensors {
	char *path;                    /* for messages */
	void *map;                     /* the whole file (NULL when parsed from memory) */
	size_t map_len;
	const unsigned char *data;     /* start of the data section */
	size_t data_len;
	int n;
	struct av_st_tensor *tensors;  /* in file order of the header */
	struct av_strset by_name;      /* name -> index in tensors: repeats and
					* look-ups in O(1), not O(n) each */
	char *metadata_format;         /* __metadata__.format, or NULL */
};

/* Maps path read-only and checks its header. st is overwritten. Errors:
 * "FILE: ..." naming the tensor where there is one. */
bool av_st_open(struct av_safetensors *st, const char *path, char **cause);

/* Checks the header of a whole file already in memory (bytes, len) without
 * copying it: bytes must outlive st. name is used in messages. For the tests
 * and the fuzz target; av_st_open uses it on the mapping. */
bool av_st_parse(struct av_safetensors *st, const unsigned char *bytes, size_t len,
		 const char *name, char **cause);

/* The tensor called name, or NULL. */
struct av_st_tensor *av_st_find(const struct av_safetensors *st, const char *name);

/* The tensor's values as float32: a pointer into the mapping for an aligned
 * F32 tensor (on a little-endian machine), else a copy owned by st (made
 * once). Errors: an unsupported dtype ("FILE: tensor \"x\": dtype I64 is not
 * supported (F32, F16 or BF16)"). */
bool av_st_floats(struct av_safetensors *st, struct av_st_tensor *t, const float **out,
		  char **cause);

/* Unmaps and frees; harmless on a zeroed or closed st. */
void av_st_close(struct av_safetensors *st);

/* IEEE half and bfloat16 to float (exposed for the tests). */
float av_half_to_float(uint16_t h);
float av_bf16_to_float(uint16_t b);

#endif
