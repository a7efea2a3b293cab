/* unicode_classes.h: which code points are letters (\p{L}) and numbers
 * (\p{N}) for GPT-2's pre-tokenisation, and which are White_Space (\s).
 * The ranges are generated (tools/gen-unicode-classes.py) into
 * unicode_classes.c, which names its Unicode version. */
#ifndef AV_UNICODE_CLASSES_H
#define AV_UNICODE_CLASSES_H

#include <stdint.h>

enum av_uc_class { AV_UC_OTHER, AV_UC_LETTER, AV_UC_NUMBER, AV_UC_SPACE };

struct av_uc_range {
	uint32_t lo, hi;
	enum av_uc_class cls;
};

extern const struct av_uc_range av_unicode_class_ranges[];
extern const int av_unicode_class_count;
extern const char av_unicode_classes_version[];

/* The class of cp: AV_UC_SPACE for the Unicode White_Space property (what
 * \s matches in the regex module OpenAI's encoder.py uses), else letter,
 * number or other. */
enum av_uc_class av_unicode_class(uint32_t cp);

#endif
