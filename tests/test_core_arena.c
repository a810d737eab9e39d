/* Unit tests of the core's arena and name index: blocks and chunks, huge
 * pages, the memory limit, lists appended in place, allocation failures. */
#include "test_util.h"

#include "gsioi_internal.h"

#include <stdio.h>
#include <string.h>

/* The name index: every key found with its first value, case folded only
 * when asked, absent keys absent, through many growths; out of memory is
 * an error, not a crash. */
static void test_names_index(void **state)
{
	(void)state;
	gsio_error err;
	gsio_error_clear(&err);
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	enum { N = 5000 };
	static char keys[N][16];
	gsioi_names exact, folded;
	gsioi_names_init(&exact, a, false);
	gsioi_names_init(&folded, a, true);
	assert_int_equal(gsioi_names_find(&exact, "Tex0"), -1); // empty
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "Tex%d", i);
		assert_true(gsioi_names_add(&exact, keys[i], (uint32_t)i, &err));
		assert_true(gsioi_names_add(&folded, keys[i], (uint32_t)i, &err));
		// Added again with another value: the first one stays.
		assert_true(gsioi_names_add(&exact, keys[i], 7u, &err));
	}
	assert_int_equal(exact.count, N);
	assert_true(exact.cap >= 2 * exact.count);
	for (int i = 0; i < N; i++) {
		char up[16], other[16];
		snprintf(up, sizeof(up), "TEX%d", i);
		snprintf(other, sizeof(other), "Tex%d", N + i);
		assert_int_equal(gsioi_names_find(&exact, keys[i]), i);
		assert_int_equal(gsioi_names_find(&folded, up), i);
		assert_int_equal(gsioi_names_find(&exact, up), -1);
		assert_int_equal(gsioi_names_find(&folded, other), -1);
	}
	// set: a value replaced (the key kept), a new key added.
	assert_true(gsioi_names_set(&folded, "TEX17", 99u, &err));
	assert_int_equal(gsioi_names_find(&folded, "tex17"), 99);
	assert_int_equal(folded.count, N);
	assert_true(gsioi_names_set(&folded, "fresh", 5u, &err));
	assert_int_equal(gsioi_names_find(&folded, "FRESH"), 5);
	assert_int_equal(folded.count, N + 1);
	// Only ASCII letters fold: bytes over 0x7F and punctuation do not.
	gsioi_names odd;
	gsioi_names_init(&odd, a, true);
	assert_true(gsioi_names_add(&odd, "a\xc4[", 1, &err));
	assert_int_equal(gsioi_names_find(&odd, "A\xc4["), 1);
	assert_int_equal(gsioi_names_find(&odd, "a\xe4["), -1);
	assert_int_equal(gsioi_names_find(&odd, "a\xc4{"), -1);
	assert_int_equal(gsioi_names_find(&odd, "a\xc4"), -1);
	assert_int_equal(gsioi_names_find(&odd, ""), -1);
	gsioi_arena_destroy(a);
	// A limit reached while growing: false with the error, the index as it was.
	a = gsioi_arena_create(NULL, 4096);
	assert_non_null(a);
	gsioi_names small;
	gsioi_names_init(&small, a, false);
	gsio_error_clear(&err);
	bool ok = true;
	int added = 0;
	for (; added < N && ok; added++) ok = gsioi_names_add(&small, keys[added], (uint32_t)added, &err);
	assert_false(ok);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	for (int i = 0; i + 1 < added; i++) assert_int_equal(gsioi_names_find(&small, keys[i]), i);
	gsioi_arena_destroy(a);
}

static void test_arena_basics(void **state)
{
	(void)state;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	uint8_t *z = gsioi_arena_alloc(a, 0, &err);
	assert_non_null(z);
	for (size_t n = 1; n < 300000; n = n * 3 + 1) {
		uint8_t *p = gsioi_arena_alloc(a, n, &err);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n; i++) assert_int_equal(p[i], 0);
		memset(p, 0xab, n);
	}
	assert_true(gsioi_arena_used(a) > 300000);
	char *s = gsioi_arena_strndup(a, "abcdef", 3, &err);
	assert_string_equal(s, "abc");
	assert_string_equal(gsioi_arena_strdup(a, "walk3", &err), "walk3");
	// An overflowing array is a limit error, not a wrapped small block.
	assert_null(gsioi_arena_array(a, SIZE_MAX / 2, 3, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsioi_arena_destroy(a);
	gsioi_arena_destroy(NULL);
}

/* A block that does not fit the head chunk starts a new one; a later block
 * that fits the rest of an earlier chunk goes there instead of into a new
 * chunk (the scene of corridor_02_short_door.mdl: 134 KB of chunks for 68
 * KB without it). Chunks of 4, 8 and 16 KB (a block over half the next
 * chunk's size would get a chunk of its own): 1500, 3000 and 5500 bytes
 * start one each, 10000 fill the third; 2500 then fit only the second. */
static void test_arena_fills_earlier_chunks(void **state)
{
	(void)state;
	t_fail_alloc st = {0}; // counts the blocks the arena obtains, fails none
	gsio_allocator al = t_fail_allocator(&st);
	gsio_arena *a = gsioi_arena_create(&al, 0);
	assert_non_null(a);
	gsio_error err;
	static const size_t sizes[5] = {1500, 3000, 5500, 10000, 2500};
	static const size_t obtained[5] = {2, 3, 4, 4, 4}; // the arena itself, then chunks
	uint8_t *p[5];
	for (int i = 0; i < 5; i++) {
		p[i] = gsioi_arena_alloc_uninit(a, sizes[i], &err);
		assert_non_null(p[i]);
		memset(p[i], 'a' + i, sizes[i]);
		assert_int_equal(st.calls, obtained[i]);
	}
	for (int i = 0; i < 5; i++)
		for (size_t k = 0; k < sizes[i]; k += 499) assert_int_equal(p[i][k], 'a' + i);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
}

/* A big block of the default allocator is advised onto 2 MiB pages where
 * the kernel offers them on request (THP "madvise" or "always"): after
 * touching a 4 MiB block, /proc/self/smaps shows its first 4 MiB in huge
 * pages: the chunk starts on a huge page and is advised before its header
 * is written (malloc's own placement, 16 bytes into a page, gave at most
 * 2 MiB of it). Skipped where the kernel has no THP or it is "never". */
static void test_arena_huge_pages(void **state)
{
	(void)state;
	char mode[128];
	if (!t_thp_on(mode, sizeof(mode))) {
		print_message("skipped: transparent huge pages are off (%s)\n", mode[0] ? mode : "no THP");
		skip();
	}
	FILE *f;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	const size_t n = (size_t)4 << 20;
	uint8_t *p = gsioi_arena_alloc(a, n, &err);
	assert_non_null(p);
	memset(p, 1, n);
	// AnonHugePages of the smaps entries over the block (the advice splits
	// its mapping in three).
	f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	char line[512];
	bool inside = false;
	long huge_kb = 0, kb;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = lo < (uintptr_t)p + n && hi > (uintptr_t)p;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) huge_kb += kb;
	}
	fclose(f);
	gsioi_arena_destroy(a);
	print_message("4 MiB block: %ld kB in huge pages\n", huge_kb);
#ifdef T_SANITIZED
	// AddressSanitizer's malloc writes the block's first 4 KiB before the
	// advice: its first 2 MiB stay in small pages.
	assert_true(huge_kb >= 2048);
#else
	assert_true(huge_kb >= 4096);
#endif
}

static void test_arena_limit(void **state)
{
	(void)state;
	t_fail_alloc st = {0};
	gsio_allocator al = t_fail_allocator(&st);
	gsio_arena *a = gsioi_arena_create(&al, 1000);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	assert_non_null(gsioi_arena_alloc(a, 600, &err));
	assert_int_equal(err.code, GSIO_OK);
	assert_null(gsioi_arena_alloc(a, 600, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	// What fits still fits after a refusal (608 handed out, 16-aligned: 384 more fit).
	gsio_error_clear(&err);
	assert_non_null(gsioi_arena_alloc(a, 384, &err));
	assert_null(gsioi_arena_alloc(a, 1, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	assert_null(gsioi_arena_alloc(a, SIZE_MAX, &err));
	assert_true(gsioi_arena_used(a) <= 1000);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
	// A limit far below a request refuses it at once.
	a = gsioi_arena_create(&al, 16);
	gsio_error_clear(&err);
	assert_null(gsioi_arena_array(a, 100, 100, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
}

/* gsioi_arena_append: one list appended to key after key grows in place
 * (room doubled when full), so n elements cost at most about 2n of room,
 * not n^2 / 2; a list that shares that array but has another count (a copy
 * of the struct taken before an append), or an array made elsewhere, is
 * copied and the first list's elements are never overwritten. Through the
 * public extras calls: 100 keys on the scene-wide list hold under 3 times
 * the elements' bytes (copying each time held 50 times). */
static void test_arena_append(void **state)
{
	(void)state;
	gsio_error err;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	int *xs = NULL;
	size_t n = 0;
	for (int v = 0; v < 100; v++) {
		int *g = gsioi_arena_append(a, xs, n, sizeof(int), &err);
		assert_non_null(g);
		assert_true(g == xs || n == 0 || n == 4 || n == 8 || n == 16 || n == 32 || n == 64);
		xs = g;
		xs[n++] = v;
	}
	for (int v = 0; v < 100; v++) assert_int_equal(xs[v], v);
	assert_true(gsioi_arena_used(a) <= 2 * 128 * sizeof(int) + 64);
	// A copy of the list (same array, same count) appended to first, then
	// the original: the original is copied, the copy's element stays.
	int *copy = xs;
	size_t copy_n = n;
	int *g = gsioi_arena_append(a, copy, copy_n, sizeof(int), &err);
	assert_ptr_equal(g, xs); // 100 of room 128: in place
	g[copy_n++] = 1000;
	int *h = gsioi_arena_append(a, xs, n, sizeof(int), &err);
	assert_non_null(h);
	assert_ptr_not_equal(h, xs);
	h[n++] = 2000;
	assert_int_equal(copy[100], 1000);
	assert_int_equal(h[100], 2000);
	for (int v = 0; v < 100; v++) assert_int_equal(h[v], v);
	// An array made elsewhere is copied.
	int mine[3] = {7, 8, 9};
	int *m = gsioi_arena_append(a, mine, 3, sizeof(int), &err);
	assert_ptr_not_equal(m, mine);
	assert_memory_equal(m, mine, sizeof(mine));
	gsioi_arena_destroy(a);

	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	size_t before = gsioi_arena_used(s->arena);
	char key[32];
	for (int v = 0; v < 100; v++) {
		snprintf(key, sizeof(key), "k%d", v);
		assert_int_equal(gsio_extras_set_int(s, &s->extras, key, v, &err), 0);
	}
	// A key set again changes its value in place.
	assert_int_equal(gsio_extras_set_string(s, &s->extras, "k7", "seven", &err), 0);
	assert_int_equal(s->extras.count, 100);
	for (int v = 0; v < 100; v++) {
		snprintf(key, sizeof(key), "k%d", v);
		const gsio_extra *e = gsio_extras_get(&s->extras, key);
		assert_non_null(e);
		if (v == 7) {
			assert_int_equal(e->type, GSIO_EXTRA_STRING);
			assert_string_equal(e->s, "seven");
		} else {
			assert_int_equal(e->type, GSIO_EXTRA_INT);
			assert_int_equal(e->i, v);
			assert_null(e->s);
		}
	}
	size_t held = gsioi_arena_used(s->arena) - before;
	print_message("100 extras: %zu bytes of arena, %zu of elements\n", held, 100 * sizeof(gsio_extra));
	assert_true(held < 3 * 100 * sizeof(gsio_extra));
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
}

static void test_arena_alloc_failure(void **state)
{
	(void)state;
	// Failing the arena's own block: no arena.
	t_fail_alloc st = {.fail_at = 1};
	gsio_allocator al = t_fail_allocator(&st);
	assert_null(gsioi_arena_create(&al, 0));
	assert_int_equal(st.live, 0);
	// Failing the k-th chunk: GSIO_ERR_NOMEM, and destroy frees the rest.
	for (size_t k = 2; k <= 6; k++) {
		t_fail_alloc s2 = {.fail_at = k};
		gsio_allocator al2 = t_fail_allocator(&s2);
		gsio_arena *a = gsioi_arena_create(&al2, 0);
		assert_non_null(a);
		gsio_error err;
		gsio_error_clear(&err);
		size_t ok = 0;
		void *p;
		// Each 40 KB block needs its own chunk (chunks are 64 KB).
		while ((p = gsioi_arena_alloc(a, 40000, &err)) != NULL) ok++;
		assert_int_equal(err.code, GSIO_ERR_NOMEM);
		assert_int_equal(ok, k - 2);
		assert_true(s2.live > 0);
		gsioi_arena_destroy(a);
		assert_int_equal(s2.live, 0);
	}
	// Scenes come from the same arena: a failed scene_create leaks nothing.
	for (size_t k = 1; k <= 2; k++) {
		t_fail_alloc s3 = {.fail_at = k};
		gsio_allocator al3 = t_fail_allocator(&s3);
		gsio_opts opts = {0};
		opts.allocator = &al3;
		gsio_error err;
		gsio_error_clear(&err);
		assert_null(gsioi_scene_create(&opts, &err));
		assert_int_equal(err.code, GSIO_ERR_NOMEM);
		assert_int_equal(s3.live, 0);
	}
	t_fail_alloc s4 = {0};
	gsio_allocator al4 = t_fail_allocator(&s4);
	gsio_opts opts = {0};
	opts.allocator = &al4;
	gsio_scene *sc = gsioi_scene_create(&opts, NULL);
	assert_non_null(sc);
	assert_true(gsioi_scene_warn(sc, NULL, "warning %d", 1));
	assert_true(gsioi_scene_warn(sc, NULL, "warning %s", "two"));
	assert_int_equal(sc->warnings_count, 2);
	assert_string_equal(sc->warnings[0], "warning 1");
	assert_string_equal(sc->warnings[1], "warning two");
	gsio_scene_free(sc);
	assert_int_equal(s4.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_index),
	    cmocka_unit_test(test_arena_basics),
	    cmocka_unit_test(test_arena_fills_earlier_chunks),
	    cmocka_unit_test(test_arena_huge_pages),
	    cmocka_unit_test(test_arena_limit),
	    cmocka_unit_test(test_arena_append),
	    cmocka_unit_test(test_arena_alloc_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
