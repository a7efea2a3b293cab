/* number.c: locale-independent number text (see number.h). The C locale is
 * taken for the calling thread only (uselocale), so nothing else changes. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "number.h"

/* The program's locale with LC_NUMERIC "C"; (locale_t)0 if it cannot be
 * made. Every other category is the program's (setlocale): a message made
 * while it is in use (a JSON error, a --print error) is in the person's
 * language and character set. (It was made from nothing, all "C", and such
 * messages came out in English under zh_CN.) Made again when LC_CTYPE or
 * LC_MESSAGES changed since (main sets them once; tests switch locales).
 * The old object is not freed at once: a caller between av_numeric_c_begin
 * and av_numeric_c_end may still be using it. It is kept among the last
 * RETIRED_KEPT, and only the oldest of those is freed (no caller holds one
 * across eight changes of locale). A mutex, since the model worker's thread
 * reads JSON too. */
#define RETIRED_KEPT 8
static mtx_t numeric_lock;
static once_flag numeric_once = ONCE_FLAG_INIT;

static void numeric_lock_init(void)
{
	mtx_init(&numeric_lock, mtx_plain);
}

/* Keeps old (the locale replaced) for the callers that may still use it;
 * frees the oldest kept when there is no room. */
static void retire(locale_t old)
{
	static locale_t kept[RETIRED_KEPT];
	static int n_kept;
	if (!old)
		return;
	if (n_kept == RETIRED_KEPT) {
		freelocale(kept[0]);
		memmove(kept, kept + 1, (RETIRED_KEPT - 1) * sizeof kept[0]);
		n_kept--;
	}
	kept[n_kept++] = old;
}

static bool same_name(const char *kept, const char *now)
{
	return kept && now && strcmp(kept, now) == 0;
}

static locale_t c_numeric(void)
{
	static locale_t loc;
	static char *ctype, *messages;   /* the names loc was made under */
	call_once(&numeric_once, numeric_lock_init);
	mtx_lock(&numeric_lock);
	const char *ctype_now = setlocale(LC_CTYPE, NULL);
	const char *messages_now = setlocale(LC_MESSAGES, NULL);
	if (!loc || !same_name(ctype, ctype_now) || !same_name(messages, messages_now)) {
		locale_t base = duplocale(LC_GLOBAL_LOCALE);
		locale_t made = base ? newlocale(LC_NUMERIC_MASK, "C", base) : (locale_t)0;
		if (made) {   /* newlocale took base */
			retire(loc);
			loc = made;
			free(ctype);
			free(messages);
			ctype = ctype_now ? strdup(ctype_now) : NULL;
			messages = messages_now ? strdup(messages_now) : NULL;
		} else if (base) {
			freelocale(base);
		}
	}
	locale_t result = loc;
	mtx_unlock(&numeric_lock);
	return result;
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

bool av_integer_parse(const char *text, long long *out)
{
	if (!text || !*text || isspace((unsigned char)*text))
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (*end || errno == ERANGE)
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
