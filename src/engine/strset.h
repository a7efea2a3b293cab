/* strset.h: a hash table from strings to indices, so loading a vocabulary
 * of n words checks repeats in O(n) instead of comparing every pair (40k
 * words took seconds, a 9.6M-word file hours). The keys are not copied: they
 * must outlive the set. */
#ifndef AV_STRSET_H
#define AV_STRSET_H

#include <stddef.h>

struct av_strset {
	size_t cap;            /* slots, a power of two (0 before the first add) */
	size_t n;
	const char **keys;     /* NULL: empty slot */
	int *values;
};

/* The value stored for key, or -1. */
int av_strset_find(const struct av_strset *set, const char *key);

/* Adds key with value unless it is there; returns the value it already had,
 * or -1 when it was added. */
int av_strset_add(struct av_strset *set, const char *key, int value);

void av_strset_free(struct av_strset *set);

#endif
