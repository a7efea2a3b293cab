/* number.h: numbers read and written with '.' as the decimal point whatever
 * LC_NUMERIC says (main() calls setlocale(LC_ALL, "")): a prompt on the
 * screen reads "0.5" in a German locale, and an exported CSV file says 0.5,
 * never 0,5. */
#ifndef AV_NUMBER_H
#define AV_NUMBER_H

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>

/* The whole of text as a decimal number in the C locale ("2", "-0.5",
 * "1e-3"); false for an empty text, hexadecimal ("0x10"), "inf", "nan",
 * trailing characters or an out-of-range value. Leading and trailing
 * spaces are not allowed either. */
bool av_number_parse(const char *text, double *out);

/* The whole of text as a decimal whole number ("7", "-1"); false for an
 * empty text, leading or trailing white space (strtoll skips the leading
 * kind, so " 7" was a seed but " 1" no temperature), other characters or
 * a value beyond long long. */
bool av_integer_parse(const char *text, long long *out);

/* snprintf(buf, size, "%.*g", precision, v) in the C locale. */
void av_number_format(char *buf, size_t size, double v, int precision);

/* snprintf(buf, size, "%.*f", decimals, v) in the C locale. */
void av_number_fixed(char *buf, size_t size, double v, int decimals);

/* Drops the minus sign of a number written as zero ("-0.000": a tiny
 * negative value, or -0), which reads as a sign error. The screen's cells
 * and the figure files (W) both show such a value as "0.000". */
void av_number_unsigned_zero(char *buf);

/* The C locale's LC_NUMERIC for the calling thread, until
 * av_numeric_c_end(saved): around code that prints numbers with printf
 * itself (the JSON writers). Nests. */
locale_t av_numeric_c_begin(void);
void av_numeric_c_end(locale_t saved);

#endif
