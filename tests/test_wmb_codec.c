/* The WMB codec on the corpus's compiled levels: the counts of every list
 * against the table of the format notes (what an independent reader found
 * in the same files), the byte-identical round trip, and bad input:
 * truncation at every byte of the small files, corrupted counts and
 * offsets, allocation failure at every index. */
#include "test_util.h"
#include "gsio_wmb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct wmb_expect {
	const char *rel;
	uint32_t version;
	uint32_t blocks;     /* WMB7 blocks, WMB6 faces */
	uint32_t vertices, triangles, textures, lightmaps;
	uint32_t entities, lights, paths, positions;
} wmb_expect;

/* The table of the format notes (their section 13) for the corpus's files:
 * blocks/vertices/triangles are WMB7 blocks or WMB6 faces, vertices and fan
 * triangles. */
static const wmb_expect expected[] = {
    {"wmb/wmb6-test.wmb", 6, 6, 8, 12, 1, 0, 0, 0, 0, 0},
    {"wmb/wmb6-mapentity.wmb", 6, 31, 38, 72, 2, 0, 0, 0, 0, 0},
    {"wmp/block.wmb", 6, 4, 4, 4, 4, 0, 0, 0, 0, 0},
    {"wmp/empty.wmb", 6, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"wmp/prefab.wmb", 6, 386, 498, 1054, 6, 0, 0, 0, 0, 0},
    {"wmb/block-centered.wmb", 6, 6, 8, 12, 1, 0, 0, 0, 0, 0},
    {"wmb/block-doubled.wmb", 6, 12, 16, 24, 1, 0, 0, 0, 0, 0},
    {"wmb/block-moved-x.wmb", 6, 6, 8, 12, 1, 0, 0, 0, 0, 0},
    {"wmb/block-moved-y.wmb", 6, 6, 8, 12, 1, 0, 0, 0, 0, 0},
    {"wmb/block-moved-z.wmb", 6, 6, 8, 12, 1, 0, 0, 0, 0, 0},
    {"lottershock/Game/Level/assettest.wmb", 7, 0, 0, 0, 0, 1, 4, 0, 0, 0},
    {"lottershock/Game/Level/bestiary.wmb", 7, 0, 0, 0, 0, 0, 44, 0, 0, 0},
    {"lottershock/Game/Level/menue.wmb", 7, 6, 24, 12, 2, 2, 13, 1, 0, 1},
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static void check_counts(const gsio_wmb_file *f, const wmb_expect *e)
{
	uint32_t blocks, vertices = 0, triangles = 0;
	if (f->version == 7) {
		blocks = f->blocks_count;
		for (uint32_t b = 0; b < f->blocks_count; b++) {
			vertices += f->blocks[b].vertices_count;
			triangles += f->blocks[b].triangles_count;
		}
	} else {
		blocks = f->faces_count;
		vertices = f->vertices_count;
		for (uint32_t i = 0; i < f->faces_count; i++)
			if (f->faces[i].edges_count >= 3) triangles += f->faces[i].edges_count - 2u;
	}
	uint32_t by_type[9] = {0};
	for (uint32_t i = 0; i < f->objects_count; i++)
		if (f->objects[i].type < 9) by_type[f->objects[i].type]++;
	print_message("%s: WMB%u (%u entries), %u blocks/faces, %u vertices, %u triangles, %u textures, "
	              "%u lightmaps of %u, %u entities, %u lights, %u paths, %u positions, %zu gaps\n",
	              e->rel, f->version, f->lists_count, blocks, vertices, triangles, f->textures_count,
	              f->lightmaps_count, f->lightmap_side, by_type[3] + by_type[7], by_type[2],
	              by_type[6], by_type[1], f->gaps_count);
	assert_int_equal(f->version, e->version);
	assert_int_equal(blocks, e->blocks);
	assert_int_equal(vertices, e->vertices);
	assert_int_equal(triangles, e->triangles);
	assert_int_equal(f->textures_count, e->textures);
	assert_int_equal(f->lightmaps_count, e->lightmaps);
	assert_int_equal(by_type[3] + by_type[7], e->entities);
	assert_int_equal(by_type[2], e->lights);
	assert_int_equal(by_type[6], e->paths);
	assert_int_equal(by_type[1], e->positions);
	assert_non_null(f->info); // INFO is in every sample
	assert_int_equal(f->objects[0].type, GSIO_WMB_INFO);
}

/* Counts as the format notes give them, and the byte-identical encode. */
static void test_corpus_counts_and_round_trip(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (size_t i = 0; i < N_EXPECTED; i++) {
		size_t size;
		uint8_t *d = t_read_corpus(expected[i].rel, &size);
		gsio_error err;
		gsio_wmb_file *f = gsio_wmb_decode(d, size, expected[i].rel, NULL, &err);
		if (!f) fail_msg("%s: %s", expected[i].rel, err.message);
		check_counts(f, &expected[i]);
		uint8_t *out;
		size_t out_size;
		assert_int_equal(gsio_wmb_encode(f, &out, &out_size, &err), 0);
		assert_int_equal(out_size, size);
		assert_memory_equal(out, d, size);
		// A field changed is written changed (the encode writes the
		// structures, not the bytes it read).
		if (f->objects_count) {
			f->objects[0].info.azimuth = 123.5f;
			free(out);
			assert_int_equal(gsio_wmb_encode(f, &out, &out_size, &err), 0);
			size_t at = f->lists[GSIO_WMB_OBJECTS].offset + f->objects[0].offset + 16;
			float az;
			memcpy(&az, out + at, 4);
			assert_true(az == 123.5f);
			assert_memory_not_equal(out, d, size);
		}
		free(out);
		gsio_wmb_file_free(f);
		free(d);
	}
}

/* Every field the notes give for menue.wmb's objects and lists. */
static void test_menue_fields(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t size;
	uint8_t *d = t_read_corpus("lottershock/Game/Level/menue.wmb", &size);
	gsio_error err;
	gsio_wmb_file *f = gsio_wmb_decode(d, size, "menue.wmb", NULL, &err);
	assert_non_null(f);
	assert_int_equal(f->lists_count, 20);
	assert_true(f->has_palette);
	// The Quake palette's entry 254/255 (the notes' section 3).
	assert_int_equal(f->palette[3 * 254], 0xff);
	assert_int_equal(f->palette[3 * 255 + 1], 0x5b);
	for (uint32_t i = 0; i < f->textures_count; i++) {
		assert_int_equal(f->textures[i].type, 0x0A);
		assert_int_equal(f->textures[i].format, 2);
		uint32_t w = f->textures[i].width, h = f->textures[i].height;
		assert_int_equal(f->textures[i].mip_offsets[0], 40 + 2 * w * h);
	}
	for (uint32_t b = 0; b < f->blocks_count; b++) {
		assert_int_equal(f->blocks[b].skins_count, 1);
		assert_int_equal(f->blocks[b].content, -128);
	}
	const gsio_wmb_object *light = NULL;
	for (uint32_t i = 0; i < f->objects_count; i++)
		if (f->objects[i].type == GSIO_WMB_LIGHT) light = &f->objects[i];
	assert_non_null(light);
	// The notes' light: 40.8 %, 56.9 %, 11.8 %.
	assert_true(light->color[0] > 40.7f && light->color[0] < 40.9f);
	assert_true(light->color[2] > 11.7f && light->color[2] < 11.9f);
	gsio_wmb_file_free(f);
	free(d);
}

// -- Bad input

/* f encodes back to the n bytes at d. */
static void assert_encodes_to(const gsio_wmb_file *f, const uint8_t *d, size_t n)
{
	uint8_t *out;
	size_t out_size;
	gsio_error err;
	assert_int_equal(gsio_wmb_encode(f, &out, &out_size, &err), 0);
	assert_int_equal(out_size, n);
	assert_memory_equal(out, d, n);
	free(out);
}

/* Every prefix of a small file: refused with an error (never a crash)
 * while it cuts a list, and from the end of its last list on (the rest is
 * padding or stale bytes) decoded and encoded back to itself. */
static void test_truncated_at_every_byte(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t size;
	uint8_t *d = t_read_corpus("wmb/wmb6-test.wmb", &size);
	gsio_opts o = {.flags = GSIO_OPT_BORROW};
	gsio_wmb_file *whole = gsio_wmb_decode(d, size, "whole.wmb", &o, NULL);
	assert_non_null(whole);
	size_t lists_end = 0;
	for (uint32_t i = 0; i < whole->lists_count; i++)
		if (whole->lists[i].length && whole->lists[i].offset + (size_t)whole->lists[i].length > lists_end)
			lists_end = whole->lists[i].offset + (size_t)whole->lists[i].length;
	gsio_wmb_file_free(whole);
	size_t refused = 0;
	for (size_t n = 0; n < size; n++) {
		uint8_t *p = t_prefix_copy(d, n);
		gsio_error err;
		gsio_wmb_file *f = gsio_wmb_decode(p, n, "cut.wmb", &o, &err);
		assert_true((f == NULL) == (n < lists_end));
		if (!f) {
			assert_true(err.code == GSIO_ERR_TRUNCATED || err.code == GSIO_ERR_CORRUPT ||
			            err.code == GSIO_ERR_BAD_MAGIC);
			refused++;
		} else {
			assert_encodes_to(f, p, n);
			gsio_wmb_file_free(f);
		}
		free(p);
	}
	print_message("wmb6-test.wmb: %zu of %zu prefixes refused (its lists end at %zu)\n", refused,
	              size, lists_end);
	assert_int_equal(refused, lists_end);
	free(d);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
	for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* Decodes a damaged copy: an error, or a file that encodes back to the
 * damaged bytes and builds a valid scene. Returns whether it was refused. */
static bool damaged(const uint8_t *d, size_t size)
{
	gsio_error err;
	gsio_opts o = {.flags = GSIO_OPT_BORROW};
	gsio_wmb_file *f = gsio_wmb_decode(d, size, "bad.wmb", &o, &err);
	if (!f) {
		assert_int_not_equal(err.code, GSIO_OK);
		assert_true(err.message[0] != 0);
		return true;
	}
	assert_encodes_to(f, d, size);
	gsio_opts so = {.flags = GSIO_OPT_NO_PIXELS};
	gsio_scene *s = gsio_wmb_to_scene(f, NULL, &so, &err);
	if (s) {
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsio_scene_free(s);
	}
	gsio_wmb_file_free(f);
	return false;
}

/* Whether the directory entry or list count at byte `at` of f must refuse
 * a value past every limit: an entry's offset or length of a list that is
 * there, or the count of textures, blocks or objects. */
static bool must_refuse(const gsio_wmb_file *f, size_t at)
{
	for (uint32_t i = 0; i < f->lists_count; i++) {
		if (!f->lists[i].length) continue;
		if (at == 4 + 8 * (size_t)i || at == 8 + 8 * (size_t)i) return true;
		if ((i == GSIO_WMB_TEXTURES || i == GSIO_WMB_BLOCKS || i == GSIO_WMB_OBJECTS) &&
		    at == f->lists[i].offset)
			return true;
	}
	return false;
}

/* The words that are counts and offsets: the directory, the first words of
 * every list (counts and offset tables) and every block header's counts,
 * set to values past every limit and to small ones. */
static void test_corrupted_counts_and_offsets(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const char *const files[] = {"lottershock/Game/Level/menue.wmb", "wmb/wmb6-test.wmb",
	                                    "lottershock/Game/Level/bestiary.wmb"};
	static const uint32_t bad[] = {0xFFFFFFFF, 0x7FFFFFFF, 0, 1, 3, 0x10000, 164};
	size_t refused = 0, tried = 0;
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		size_t size;
		uint8_t *d = t_read_corpus(files[fi], &size);
		gsio_wmb_file *f = gsio_wmb_decode(d, size, files[fi], NULL, NULL);
		assert_non_null(f);
		size_t *at = calloc(4096, sizeof(size_t));
		size_t n = 0;
		for (uint32_t i = 0; i < 2 * f->lists_count; i++) at[n++] = 4 + 4 * (size_t)i;
		for (uint32_t i = 0; i < f->lists_count; i++)
			for (uint32_t k = 0; f->lists[i].length && k < 16 && 4 * k < f->lists[i].length; k++)
				at[n++] = f->lists[i].offset + 4 * (size_t)k;
		size_t b_at = f->lists[GSIO_WMB_BLOCKS].offset + 4;
		for (uint32_t b = 0; b < f->blocks_count && n + 4 < 4096; b++) {
			for (int k = 0; k < 4; k++) at[n++] = b_at + 24 + 4 * (size_t)k;
			const gsio_wmb_block *k = &f->blocks[b];
			b_at += 40 + 28 * (size_t)k->vertices_count + 12 * (size_t)k->triangles_count +
			        20 * (size_t)k->skins_count;
		}
		for (uint32_t i = 0; i < f->objects_count && n < 4096; i++)
			at[n++] = f->lists[GSIO_WMB_OBJECTS].offset + 4 + 4 * (size_t)i;
		uint8_t *c = malloc(size);
		memcpy(c, d, size);
		for (size_t i = 0; i < n; i++) {
			for (size_t v = 0; v < sizeof(bad) / sizeof(bad[0]); v++) {
				if (at[i] + 4 > size || rd32(d + at[i]) == bad[v]) continue;
				wr32(c + at[i], bad[v]);
				bool r = damaged(c, size);
				if (v < 2 && must_refuse(f, at[i]) && !r)
					fail_msg("%s: %u at byte %zu was taken", files[fi], bad[v], at[i]);
				refused += r;
				tried++;
				memcpy(c + at[i], d + at[i], 4);
			}
		}
		gsio_wmb_file_free(f);
		free(c);
		free(at);
		free(d);
	}
	print_message("%zu damaged copies, %zu refused\n", tried, refused);
	assert_true(refused > 0 && refused < tried);
}

typedef struct decode_ctx {
	const uint8_t *data;
	size_t size;
} decode_ctx;

static int try_decode_scene(void *ctx, gsio_allocator *al, gsio_error *err)
{
	decode_ctx *dc = ctx;
	gsio_opts o = {.allocator = al};
	gsio_wmb_file *f = gsio_wmb_decode(dc->data, dc->size, "alloc.wmb", &o, err);
	if (!f) return -1;
	gsio_scene *s = gsio_wmb_to_scene(f, NULL, &o, err);
	gsio_wmb_file_free(f);
	if (!s) return -1;
	gsio_scene_free(s);
	return 0;
}

static void test_allocation_failure_at_every_index(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const char *const files[] = {"lottershock/Game/Level/menue.wmb", "wmb/wmb6-test.wmb"};
	for (size_t i = 0; i < 2; i++) {
		decode_ctx dc;
		uint8_t *d = t_read_corpus(files[i], &dc.size);
		dc.data = d;
		t_alloc_run r = t_each_alloc_fails(files[i], try_decode_scene, &dc, T_NOMEM_OR_LIMIT, 1);
		print_message("%s: %zu allocation failures, %zu calls\n", files[i], r.failures, r.calls);
		assert_true(r.failures > 10);
		free(d);
	}
}

/* The magics of WMB4-7 and nothing else. */
static void test_magic_and_directory(void **state)
{
	(void)state;
	uint8_t d[240] = "WMB3";
	gsio_error err;
	assert_null(gsio_wmb_decode(d, sizeof(d), "x.wmb", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	memcpy(d, "MDL7", 4);
	assert_null(gsio_wmb_decode(d, sizeof(d), "x.wmb", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_BAD_MAGIC);
	memcpy(d, "WMB7", 4);
	// A directory whose first list starts inside it.
	wr32(d + 4, 8);
	wr32(d + 8, 4);
	assert_null(gsio_wmb_decode(d, sizeof(d), "x.wmb", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_non_null(strstr(err.message, "inside"));
	// Nothing but an empty directory: not a level.
	memset(d + 4, 0, sizeof(d) - 4);
	assert_null(gsio_wmb_decode(d, sizeof(d), "x.wmb", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_non_null(strstr(err.message, "empty"));
	// An objects list of one INFO object alone (what a map exporter that
	// writes entities only makes): a level.
	wr32(d + 4 + 8 * 15, 164);
	wr32(d + 8 + 8 * 15, 8 + 60);
	wr32(d + 164, 1);
	wr32(d + 168, 8);
	wr32(d + 172, GSIO_WMB_INFO);
	gsio_wmb_file *f = gsio_wmb_decode(d, 164 + 68, "x.wmb", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	assert_int_equal(f->objects_count, 1);
	assert_non_null(f->info);
	gsio_scene *s = gsio_wmb_to_scene(f, "x.wmb", NULL, &err);
	assert_non_null(s);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
	gsio_wmb_file_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_counts_and_round_trip),
	    cmocka_unit_test(test_menue_fields),
	    cmocka_unit_test(test_truncated_at_every_byte),
	    cmocka_unit_test(test_corrupted_counts_and_offsets),
	    cmocka_unit_test(test_allocation_failure_at_every_index),
	    cmocka_unit_test(test_magic_and_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
