/* strbuf.h: a growing string for the export writers (src/export only). */
#ifndef AV_EXPORT_STRBUF_H
#define AV_EXPORT_STRBUF_H

#include <stddef.h>

struct av_strbuf {
	char *s;
	size_t len, cap;
};

void av_sb_add(struct av_strbuf *b, const char *text);
void av_sb_addn(struct av_strbuf *b, const char *text, size_t n);
void av_sb_printf(struct av_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (never NULL), handed over to the caller. */
char *av_sb_take(struct av_strbuf *b);

#endif
