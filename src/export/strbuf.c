/* strbuf.c: a growing string (see strbuf.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/strbuf.h"
#include "util.h"

void av_sb_addn(struct av_strbuf *b, const char *text, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = av_realloc(b->s, cap, 1);
		b->cap = cap;
	}
	memcpy(b->s + b->len, text, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void av_sb_add(struct av_strbuf *b, const char *text)
{
	av_sb_addn(b, text, strlen(text));
}

void av_sb_printf(struct av_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = av_vprintf(fmt, ap);
	va_end(ap);
	av_sb_add(b, text);
	free(text);
}

char *av_sb_take(struct av_strbuf *b)
{
	char *s = b->s ? b->s : av_strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}
