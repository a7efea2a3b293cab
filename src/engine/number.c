/* number.c: locale-independent number text (see number.h). The C locale is
 * taken for the calling thread only (uselocale), so nothing else changes. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

/* The C locale for LC_NUMERIC, made once; (locale_t)0 if it cannot be. */
static locale_t c_numeric(void)
{
	static locale_t loc;
	static bool tried;
	if (!tried) {
		tried = true;
		loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	}
	return loc;
}

locale_t av_numeric_c_begin(void)
{
	locale_t c = c_numeric();
	return c ? uselocale(c) : (locale_t)0;
}

void av_numeric_c_end(locale_t saved)
{
	if (saved)
		uselocale(saved);
}

bool av_number_parse(const char *text, double *out)
{
	if (!text || !*text || *text == ' ' || *text == '\t')
		return false;
	/* decimal notation only: strtod also takes "0x1p3" (8), "inf" and
	 * "nan", which no one means by a temperature or a learning rate */
	if (text[strspn(text, "+-0123456789.eE")] != '\0')
		return false;
	locale_t c = c_numeric(), old = c ? uselocale(c) : (locale_t)0;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	int err = errno;
	if (c)
		uselocale(old);
	if (*end || err == ERANGE)
		return false;
	*out = v;
	return true;
}

/* printf of one number with the C locale's decimal point. */
static void format_c(char *buf, size_t size, const char *fmt, int digits, double v)
{
	locale_t c = c_numeric(), old = c ? uselocale(c) : (locale_t)0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, size, fmt, digits, v);
#pragma GCC diagnostic pop
	if (c)
		uselocale(old);
}

void av_number_format(char *buf, size_t size, double v, int precision)
{
	format_c(buf, size, "%.*g", precision, v);
}

void av_number_fixed(char *buf, size_t size, double v, int decimals)
{
	format_c(buf, size, "%.*f", decimals, v);
}

void av_number_unsigned_zero(char *buf)
{
	if (buf[0] == '-' && buf[1] != '\0' && strspn(buf + 1, "0.") == strlen(buf + 1))
		memmove(buf, buf + 1, strlen(buf));
}
