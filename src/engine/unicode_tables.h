/* unicode_tables.h: the character tables behind utf8.h: Python's
 * str.lower() (av_cp_lower, the final sigma), punctuation and symbols (what
 * ends a word), zero-width characters (av_cp_width) and the grapheme
 * cluster classes the tokenizer keeps together. Generated into
 * unicode_tables.c by tools/gen-unicode-tables.py, which names its Unicode
 * version. */
#ifndef AV_UNICODE_TABLES_H
#define AV_UNICODE_TABLES_H

#include <stdint.h>

/* Code points lo to hi; a table of them is sorted and not overlapping. */
struct av_cp_range {
	uint32_t lo, hi;
};

/* General Category P* and S* above ASCII. */
extern const struct av_cp_range av_punct_ranges[];
extern const int av_punct_count;
/* What terminals draw in no column: Mn, Me and Cf but the soft hyphen and
 * the prepended concatenation marks; conjoining Hangul vowels and finals. */
extern const struct av_cp_range av_zero_width_ranges[];
extern const int av_zero_width_count;

/* Every stride-th code point from first to last lower-cases to itself +
 * delta; sorted, not overlapping. */
struct av_lower_run {
	uint32_t first, last;
	int32_t stride, delta;
};

extern const struct av_lower_run av_lower_runs[];
extern const int av_lower_run_count;
/* For the final sigma rule: cased letters, and the characters skipped when
 * looking for one (marks, apostrophes, modifier letters...). */
extern const struct av_cp_range av_cased_ranges[];
extern const int av_cased_count;
extern const struct av_cp_range av_case_ignorable_ranges[];
extern const int av_case_ignorable_count;
/* For grapheme clusters (UAX #29): Extended_Pictographic (emoji-data.txt),
 * what an emoji ZWJ sequence joins; Grapheme_Cluster_Break Extend and
 * SpacingMark, which belong to the character before them; Prepend, which
 * belongs to the one after. */
extern const struct av_cp_range av_pictographic_ranges[];
extern const int av_pictographic_count;
extern const struct av_cp_range av_grapheme_extend_ranges[];
extern const int av_grapheme_extend_count;
extern const struct av_cp_range av_spacing_mark_ranges[];
extern const int av_spacing_mark_count;
extern const struct av_cp_range av_prepend_ranges[];
extern const int av_prepend_count;
extern const char av_unicode_tables_version[];

#endif
