/* json_same.h: whether a parse with rows read aside (json_rows.h) is the
 * tree cJSON's own parse of the same text gives: test_loaders and the
 * weights fuzz target check it. */
#ifndef AV_JSON_SAME_H
#define AV_JSON_SAME_H

#include <stdbool.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "json_rows.h"

/* The same tree, where a row read aside holds the bits of the numbers of
 * the list it stands for. */
static inline bool json_same_tree(const cJSON *plain, const cJSON *aside)
{
	int n;
	const double *row = av_json_row_aside(aside, &n);
	if (row) {
		if (!cJSON_IsArray(plain) || cJSON_GetArraySize(plain) != n)
			return false;
		int i = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, plain) {
			if (!cJSON_IsNumber(x) ||
			    memcmp(&x->valuedouble, &row[i++], sizeof(double)) != 0)
				return false;
		}
		return true;
	}
	if (plain->type != aside->type || !plain->string != !aside->string ||
	    (plain->string && strcmp(plain->string, aside->string)))
		return false;
	if (cJSON_IsString(plain))
		return strcmp(plain->valuestring, aside->valuestring) == 0;
	if (cJSON_IsNumber(plain))
		return memcmp(&plain->valuedouble, &aside->valuedouble, sizeof(double)) == 0;
	const cJSON *a = aside->child;
	for (const cJSON *p = plain->child; p; p = p->next, a = a->next)
		if (!a || !json_same_tree(p, a))
			return false;
	return a == NULL;
}

#endif
