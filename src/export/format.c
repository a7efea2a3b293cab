/* format.c: the export formats' names, and the two JSON documents (see
 * export.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "number.h"
#include "trace_json.h"
#include "util.h"

const char *const av_export_format_names[] = {
#define AV_EXPORT_NAME(name, word, ext, key, help) word,
	AV_EXPORT_FORMATS(AV_EXPORT_NAME)
#undef AV_EXPORT_NAME
	NULL
};

const char *const av_export_extensions[] = {
#define AV_EXPORT_EXT(name, word, ext, key, help) ext,
	AV_EXPORT_FORMATS(AV_EXPORT_EXT)
#undef AV_EXPORT_EXT
	NULL
};

const char *const av_export_helps[] = {
#define AV_EXPORT_HELP(name, word, ext, key, help) help,
	AV_EXPORT_FORMATS(AV_EXPORT_HELP)
#undef AV_EXPORT_HELP
	NULL
};

const char av_export_keys[] = {
#define AV_EXPORT_KEY(name, word, ext, key, help) key,
	AV_EXPORT_FORMATS(AV_EXPORT_KEY)
#undef AV_EXPORT_KEY
	'\0'
};

/* ASCII case only: "a.SVG" is an SVG (cameras and Windows hands write upper
 * case), while strcasecmp would follow the locale and let a Turkish "I" differ. */
static bool ends_with_ascii_nocase(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	if (n <= k)
		return false;
	for (size_t i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[n - k + i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)tail[i])
			return false;
	}
	return true;
}

bool av_export_format_for_path(const char *path, enum av_export_format *fmt)
{
	static const struct { const char *ext; enum av_export_format fmt; } by_ext[] = {
		{ ".json", AV_EXPORT_TRACE }, { ".csv", AV_EXPORT_CSV },
		{ ".txt", AV_EXPORT_TEXT }, { ".ans", AV_EXPORT_ANSI },
		{ ".ansi", AV_EXPORT_ANSI }, { ".svg", AV_EXPORT_SVG },
	};
	for (size_t i = 0; i < sizeof(by_ext) / sizeof(by_ext[0]); i++) {
		if (ends_with_ascii_nocase(path, by_ext[i].ext)) {
			*fmt = by_ext[i].fmt;
			return true;
		}
	}
	return false;
}

/* A document as text with a final newline, the document freed. */
static char *print_doc(cJSON *doc)
{
	char *text = av_json_print(doc);
	cJSON_Delete(doc);
	size_t len = strlen(text);
	text = av_realloc(text, len + 2, 1);
	memcpy(text + len, "\n", 2);
	return text;
}

/* The JSON writers print numbers with printf: in the C locale, so a
 * German locale does not write 0,5 (which is not JSON). */
char *av_export_trace_json(const struct av_trace *t, const struct av_params *p,
			   const struct av_training_record *training)
{
	locale_t saved = av_numeric_c_begin();
	char *text = print_doc(av_trace_to_json(t, p, training));
	av_numeric_c_end(saved);
	return text;
}

char *av_export_weights_json(const struct av_config *cfg, const struct av_params *p,
			     const struct av_training_record *training)
{
	locale_t saved = av_numeric_c_begin();
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "format", "attnview-weights");
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddItemToObject(doc, "config", av_config_to_json(cfg));
	cJSON_AddItemToObject(doc, "params", av_params_to_json(p));
	if (training)
		cJSON_AddItemToObject(doc, "training", av_training_to_json(training));
	char *text = print_doc(doc);
	av_numeric_c_end(saved);
	return text;
}
