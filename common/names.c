/* Names to numbers in constant time: an open-addressing hash table over the
 * caller's strings, in an arena. For the importers that look a name up once
 * per element of a file (a level's textures, its WAD lumps, the names a
 * scene already holds), where a scan of the names so far made a file of n
 * names cost n * n: a 900 KB level of 8 000 textures took 3 s.
 *
 * gsioi_unique_name() builds on it: names made unique by a ".2", ".3"
 * suffix (materials of one shader, skins of one name), where a scan of the
 * names per suffix tried was cubic.
 *
 * Hand-written (50 lines) because the table lives in gsio's arenas, whose
 * memory goes with the load, and needs ASCII case folding as the engine
 * compares texture names; no library that gsio already uses has one. */
#include "gsioi_internal.h"

#include <stdio.h>
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

// -- Unique names

void gsioi_unique_init(gsioi_unique *u, gsio_arena *tmp)
{
	gsioi_names_init(&u->given, tmp, false);
	gsioi_names_init(&u->next, tmp, false);
}

/* The first free of name, name.2, name.3, ...: every suffix below the one
 * remembered for a name was taken when it was tried, and names are never
 * removed, so starting there gives the first free one as a scan from 2
 * would. */
const char *gsioi_unique_name(gsioi_unique *u, gsio_arena *out, const char *name, int keep,
                              gsio_error *err)
{
	char buf[320];
	const char *chosen = name;
	if (gsioi_names_find(&u->given, name) >= 0) {
		int64_t from = gsioi_names_find(&u->next, name);
		unsigned n = from >= 0 ? (unsigned)from : 2;
		if (keep > 300) keep = 300;
		for (;; n++) {
			snprintf(buf, sizeof(buf), "%.*s.%u", keep, name, n);
			if (gsioi_names_find(&u->given, buf) < 0) break;
		}
		const char *key = from >= 0 ? name : gsioi_arena_strdup(u->next.arena, name, err);
		if (!key || !gsioi_names_set(&u->next, key, n + 1, err)) return NULL;
		chosen = buf;
	}
	const char *copy = gsioi_arena_strdup(out, chosen, err);
	if (!copy || !gsioi_names_add(&u->given, copy, 0, err)) return NULL;
	return copy;
}
