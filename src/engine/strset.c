/* strset.c: open addressing with linear probing, FNV-1a hashes, grown at
 * half full. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "strset.h"
#include "util.h"

/* The slot holding key, or the empty slot where it would go. */
static size_t slot_of(const struct av_strset *set, const char *key)
{
	size_t mask = set->cap - 1, i = (size_t)av_fnv1a(key, AV_FNV_BASIS) & mask;
	while (set->keys[i] && strcmp(set->keys[i], key) != 0)
		i = (i + 1) & mask;
	return i;
}

int av_strset_find(const struct av_strset *set, const char *key)
{
	if (set->cap == 0)
		return -1;
	size_t i = slot_of(set, key);
	return set->keys[i] ? set->values[i] : -1;
}

static void grow(struct av_strset *set)
{
	struct av_strset bigger = {
		.cap = set->cap ? set->cap * 2 : 64,
		.n = set->n,
	};
	bigger.keys = av_calloc(bigger.cap, sizeof *bigger.keys);
	bigger.values = av_calloc(bigger.cap, sizeof *bigger.values);
	for (size_t i = 0; i < set->cap; i++) {
		if (!set->keys[i])
			continue;
		size_t j = slot_of(&bigger, set->keys[i]);
		bigger.keys[j] = set->keys[i];
		bigger.values[j] = set->values[i];
	}
	av_strset_free(set);
	*set = bigger;
}

int av_strset_add(struct av_strset *set, const char *key, int value)
{
	if (2 * (set->n + 1) > set->cap)
		grow(set);
	size_t i = slot_of(set, key);
	if (set->keys[i])
		return set->values[i];
	set->keys[i] = key;
	set->values[i] = value;
	set->n++;
	return -1;
}

void av_strset_free(struct av_strset *set)
{
	free(set->keys);
	free(set->values);
	memset(set, 0, sizeof *set);
}
