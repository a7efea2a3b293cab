/* unicode_lower.h: Python's str.lower() as tables, for the tokenizer
 * (utf8.h's av_cp_lower and av_case_class). Generated into unicode_lower.c
 * by tools/gen-unicode-lower.py, which names its Unicode version. */
#ifndef AV_UNICODE_LOWER_H
#define AV_UNICODE_LOWER_H

#include <stdint.h>

/* Every stride-th code point from first to last lower-cases to itself +
 * delta; sorted, not overlapping. */
struct av_lower_run {
	uint32_t first, last;
	int32_t stride, delta;
};

/* For the final sigma rule: cased letters, and characters that are skipped
 * when looking for one (marks, apostrophes, modifier letters...). */
enum av_case_class { AV_CASE_OTHER, AV_CASED, AV_CASE_IGNORABLE };

struct av_case_range {
	uint32_t lo, hi;
	enum av_case_class cls;
};

extern const struct av_lower_run av_lower_runs[];
extern const int av_lower_run_count;
extern const struct av_case_range av_case_ranges[];
extern const int av_case_range_count;
extern const char av_unicode_lower_version[];

#endif
