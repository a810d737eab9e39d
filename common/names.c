/* Names to numbers in constant time: an open-addressing hash table over the
 * caller's strings, in an arena. For the importers that look a name up once
 * per element of a file (a level's textures, its WAD lumps, the names a
 * scene already holds), where a scan of the names so far made a file of n
 * names cost n * n: a 900 KB level of 8 000 textures took 3 s.
 *
 * Hand-written (50 lines) because the table lives in gsio's arenas, whose
 * memory goes with the load, and needs ASCII case folding as the engine
 * compares texture names; no library that gsio already uses has one. */
#include "gsio_internal.h"

#include <string.h>

static inline unsigned char fold(unsigned char ch, bool fold_case)
{
	return fold_case && ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch + ('a' - 'A')) : ch;
}

// FNV-1a over the (folded) bytes.
static size_t hash(const char *s, bool fold_case)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ fold(*p, fold_case)) * 16777619u;
	return h;
}

static bool same(const char *a, const char *b, bool fold_case)
{
	if (!fold_case) return strcmp(a, b) == 0;
	for (;; a++, b++) {
		if (fold((unsigned char)*a, true) != fold((unsigned char)*b, true)) return false;
		if (!*a) return true;
	}
}

void gsioi_names_init(gsioi_names *n, gsio_arena *arena, bool fold_case)
{
	memset(n, 0, sizeof(*n));
	n->arena = arena;
	n->fold_case = fold_case;
}

/* The slot of key, or of the empty slot where it would go (cap > 0). */
static size_t slot_of(const gsioi_names *n, const char *key)
{
	size_t mask = n->cap - 1, i = hash(key, n->fold_case) & mask;
	while (n->keys[i] && !same(n->keys[i], key, n->fold_case)) i = (i + 1) & mask;
	return i;
}

int64_t gsioi_names_find(const gsioi_names *n, const char *key)
{
	if (!n->count) return -1;
	size_t i = slot_of(n, key);
	return n->keys[i] ? (int64_t)n->values[i] : -1;
}

static void put(gsioi_names *n, const char *key, uint32_t value)
{
	size_t mask = n->cap - 1, i = hash(key, n->fold_case) & mask;
	while (n->keys[i]) i = (i + 1) & mask;
	n->keys[i] = key;
	n->values[i] = value;
	n->count++;
}

bool gsioi_names_set(gsioi_names *n, const char *key, uint32_t value, gsio_error *err)
{
	if (n->count) {
		size_t i = slot_of(n, key);
		if (n->keys[i]) return n->values[i] = value, true;
	}
	return gsioi_names_add(n, key, value, err);
}

bool gsioi_names_add(gsioi_names *n, const char *key, uint32_t value, gsio_error *err)
{
	if (gsioi_names_find(n, key) >= 0) return true;
	if (2 * (n->count + 1) > n->cap) { // at most half full: short probes
		size_t cap = n->cap ? 2 * n->cap : 64;
		const char **keys = GSIO_NEW_ARRAY(n->arena, const char *, cap, err);
		uint32_t *values = keys ? GSIO_NEW_ARRAY(n->arena, uint32_t, cap, err) : NULL;
		if (!values) return false;
		gsioi_names old = *n;
		n->keys = keys, n->values = values, n->cap = cap, n->count = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i]) put(n, old.keys[i], old.values[i]);
	}
	put(n, key, value);
	return true;
}
