/* The WMP codec (all three dialects): conformance over the corpus (element
 * counts, byte-identical re-encoding of B and C), the A4 manual's example
 * block, bad input (truncation, corruption, crafted files), colours out of
 * order and header counts taken only as hints. */
#include "test_util.h"
#include "wmp_test_util.h"

#include "wmp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gsio_wmp_file *decode_path(const char *path, uint8_t **data, size_t *size)
{
	*data = t_read_file(path, size);
	gsio_error err;
	gsio_wmp_file *f = gsio_wmp_decode(*data, *size, path, NULL, &err);
	if (!f) fail_msg("%s: %s", path, err.message);
	return f;
}

static size_t face_count(const gsio_wmp_file *f, size_t sizes[8], size_t *tris)
{
	size_t n = 0;
	*tris = 0;
	for (size_t i = 0; i < f->blocks_count; i++)
		for (size_t j = 0; j < f->blocks[i].faces_count; j++) {
			size_t k = f->blocks[i].faces[j].indices_count;
			if (sizes) sizes[k < 8 ? k : 7]++;
			*tris += k >= 3 ? k - 2 : 0;
			n++;
		}
	return n;
}

static size_t texture_faces(const gsio_wmp_file *f, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < f->blocks_count; i++)
		for (size_t j = 0; j < f->blocks[i].surfaces_count; j++)
			n += !strcmp(gsioi_wmp_str(&f->blocks[i].surfaces[j].texture), name);
	return n;
}

/* World bbox of all block vertices, with the object translations summed
 * down the tree (every corpus object has angle 0 and scale 1). */
static void world_bbox(const gsio_wmp_file *f, size_t obj, const double *t, double mn[3],
                       double mx[3])
{
	const gsio_wmp_object *o = &f->objects[obj];
	double p[3] = {t[0] + o->position[0], t[1] + o->position[1], t[2] + o->position[2]};
	for (size_t i = 0; i < o->refs_count; i++) {
		if (o->refs[i].kind == GSIO_WMP_OBJECT) world_bbox(f, o->refs[i].index, p, mn, mx);
		if (o->refs[i].kind != GSIO_WMP_BLOCK) continue;
		const gsio_wmp_block *b = &f->blocks[o->refs[i].index];
		for (size_t v = 0; v < b->vertices_count; v++)
			for (int k = 0; k < 3; k++) {
				double x = b->vertices[3 * v + k] + p[k];
				if (x < mn[k]) mn[k] = x;
				if (x > mx[k]) mx[k] = x;
			}
	}
}

/* f encoded in `dialect` is exactly the bytes `want` (`what` names f). */
static void assert_encodes_to(const gsio_wmp_file *f, gsio_wmp_dialect dialect, const uint8_t *want,
                              size_t size, const char *what)
{
	uint8_t *out;
	size_t out_size;
	gsio_error err;
	if (gsio_wmp_encode(f, dialect, &out, &out_size, &err)) fail_msg("%s: %s", what, err.message);
	if (out_size != size || memcmp(out, want, size)) {
		size_t i = 0;
		while (i < size && i < out_size && out[i] == want[i]) i++;
		fail_msg("%s: re-encoding differs at byte %zu (sizes %zu vs %zu)", what, i, out_size, size);
	}
	free(out);
}

static void roundtrip(const char *path)
{
	uint8_t *data;
	size_t size;
	gsio_wmp_file *f = decode_path(path, &data, &size);
	assert_encodes_to(f, f->dialect, data, size, path);
	gsio_wmp_file_free(f);
	free(data);
}

// -- Codec conformance

static void test_text_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	uint8_t *data;
	size_t size, tris, sizes[8] = {0};
	gsio_wmp_file *f = decode_path(t_corpus_path("wmp/block.wmp"), &data, &size);
	assert_int_equal(f->dialect, GSIO_WMP_TEXT_B);
	assert_int_equal(f->blocks_count, 1);
	assert_int_equal(f->objects_count, 2);
	assert_int_equal(f->levels_count, 1);
	assert_int_equal(face_count(f, NULL, &tris), 4);
	assert_int_equal(tris, 4);
	double mn[3] = {1e30, 1e30, 1e30}, mx[3] = {-1e30, -1e30, -1e30}, zero[3] = {0, 0, 0};
	world_bbox(f, 0, zero, mn, mx);
	double emn[3] = {-64, -64, -32}, emx[3] = {64, 64, 48};
	for (int k = 0; k < 3; k++) {
		assert_true(fabs(mn[k] - emn[k]) < 1e-3);
		assert_true(fabs(mx[k] - emx[k]) < 1e-3);
	}
	assert_int_equal(f->wads_count, 1);
	assert_true(f->has_palette);
	gsio_wmp_file_free(f);
	free(data);

	f = decode_path(t_corpus_path("wmp/prefab.wmp"), &data, &size);
	assert_int_equal(f->blocks_count, 34);
	assert_int_equal(f->objects_count, 38);
	assert_int_equal(face_count(f, sizes, &tris), 244);
	assert_int_equal(sizes[3], 44);
	assert_int_equal(sizes[4], 140);
	assert_int_equal(sizes[5], 4);
	assert_int_equal(sizes[6], 48);
	assert_int_equal(sizes[7], 8);
	assert_int_equal(tris, 568);
	assert_int_equal(texture_faces(f, "stonewall"), 196);
	assert_int_equal(texture_faces(f, "wooddark"), 18);
	assert_int_equal(texture_faces(f, "plank"), 12);
	assert_int_equal(texture_faces(f, "grass1"), 6);
	assert_int_equal(texture_faces(f, "tilegrass"), 6);
	assert_int_equal(texture_faces(f, "*water3"), 6);
	assert_string_equal(gsioi_wmp_str(&f->objects[1].name), "BRIDGE06");
	for (int k = 0; k < 3; k++) mn[k] = 1e30, mx[k] = -1e30;
	world_bbox(f, 0, zero, mn, mx);
	double pmn[3] = {-640, -256, -192}, pmx[3] = {640, 256, 128.0001};
	for (int k = 0; k < 3; k++) {
		assert_true(fabs(mn[k] - pmn[k]) < 1e-3);
		assert_true(fabs(mx[k] - pmx[k]) < 1e-3);
	}
	gsio_wmp_file_free(f);
	free(data);

	f = decode_path(t_corpus_path("wmp/empty.wmp"), &data, &size);
	assert_int_equal(f->blocks_count, 0);
	assert_int_equal(f->objects_count, 1);
	assert_int_equal(f->levels_count, 1);
	assert_int_equal(f->objects[0].refs_count, 1);
	assert_int_equal(f->objects[0].refs[0].kind, GSIO_WMP_LEVEL);
	gsio_wmp_file_free(f);
	free(data);
}

static size_t models_of(const gsio_wmp_file *f, uint32_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < f->entities_count; i++) n += f->entities[i].type == type;
	return n;
}

static void test_binary_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	uint8_t *data;
	size_t size;
	gsio_wmp_file *f =
	    decode_path(t_corpus_path("lottershock/Game/Level/bestiary.wmp"), &data, &size);
	assert_int_equal(f->dialect, GSIO_WMP_BINARY);
	assert_int_equal(models_of(f, 0x200), 43);
	assert_int_equal(models_of(f, 0x100), 1);
	size_t groups = 0;
	for (size_t i = 1; i < f->objects_count; i++) groups += f->objects[i].node_kind == 3;
	assert_int_equal(groups, 7);
	// The header counts agree with what the tree holds.
	assert_int_equal(f->counts[0], f->objects_count);
	assert_int_equal(f->counts[1], f->blocks_count);
	gsio_wmp_file_free(f);
	free(data);

	f = decode_path(t_corpus_path("lottershock/Game/Level/menue.wmp"), &data, &size);
	assert_int_equal(f->blocks_count, 6);
	assert_int_equal(models_of(f, 0x200), 12);
	assert_int_equal(models_of(f, 0x100), 1);
	assert_int_equal(f->lights_count, 1);
	assert_int_equal(f->starts_count, 1);
	assert_int_equal(f->counts[2], 1 + f->entities_count + f->lights_count + f->starts_count);
	gsio_wmp_file_free(f);
	free(data);

	f = decode_path(t_corpus_path("lottershock/Game/Level/assettest.wmp"), &data, &size);
	assert_int_equal(f->entities_count, 4);
	assert_int_equal(f->blocks_count, 0);
	gsio_wmp_file_free(f);
	free(data);
}

static void test_roundtrip(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const char *const files[] = {
	    "wmp/block.wmp", "wmp/prefab.wmp", "wmp/empty.wmp",
	    "lottershock/Game/Level/bestiary.wmp", "lottershock/Game/Level/assettest.wmp",
	    "lottershock/Game/Level/menue.wmp",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) roundtrip(t_corpus_path(files[i]));
}

/* The A4 manual's example: six planes of a cube of side 64 around the
 * block's origin. */
static void test_seed_cube(void **state)
{
	(void)state;
	uint8_t *data;
	size_t size;
	gsio_wmp_file *f = decode_path(SEED_A4, &data, &size);
	assert_int_equal(f->dialect, GSIO_WMP_TEXT_A);
	assert_int_equal(f->blocks_count, 1);
	const gsio_wmp_block *b = &f->blocks[0];
	assert_int_equal(b->planes_count, 6);
	assert_int_equal(b->faces_count, 6);
	assert_int_equal(b->vertices_count, 8);
	assert_int_equal(b->surfaces_count, 6);
	for (size_t v = 0; v < 8; v++)
		for (int k = 0; k < 3; k++) assert_true(fabs(fabs(b->vertices[3 * v + k]) - 32) < 1e-9);
	for (size_t i = 0; i < 6; i++) {
		const gsio_wmp_face *fa = &b->faces[i];
		assert_int_equal(fa->indices_count, 4);
		// Clockwise seen from outside: the Newell normal points inward.
		double n[3] = {0, 0, 0}, c[3] = {0, 0, 0};
		for (size_t k = 0; k < 4; k++) {
			const double *p = b->vertices + 3 * fa->indices[k];
			const double *q = b->vertices + 3 * fa->indices[(k + 1) % 4];
			n[0] += (p[1] - q[1]) * (p[2] + q[2]);
			n[1] += (p[2] - q[2]) * (p[0] + q[0]);
			n[2] += (p[0] - q[0]) * (p[1] + q[1]);
			for (int j = 0; j < 3; j++) c[j] += p[j] / 4;
		}
		assert_true(n[0] * c[0] + n[1] * c[1] + n[2] * c[2] < 0);
		assert_string_equal(gsioi_wmp_str(&b->surfaces[i].texture), "wood");
	}
	assert_int_equal(f->levels_count, 1);
	assert_int_equal(f->lights_count, 1);
	assert_true(fabs(f->lights[0].range - 300) < 1e-9);
	assert_int_equal(f->objects_count, 4);
	assert_int_equal(f->objects[3].refs[0].kind, GSIO_WMP_LIGHT);
	assert_int_equal(f->objects[3].refs[0].index, 0);
	assert_true(fabs(f->objects[3].angles[0] - 1.570796) < 1e-9);
	gsio_wmp_file_free(f);
	free(data);
}

// -- Bad input

static void test_truncation_corruption(void **state)
{
	(void)state;
	static const char *const files[] = {"wmp/block.wmp", "lottershock/Game/Level/assettest.wmp",
	                                    "lottershock/Game/Level/menue.wmp"};
	const char *paths[4] = {SEED_A4, NULL, NULL, NULL};
	size_t np = 1;
	char bufs[3][1024];
	if (t_corpus_dir())
		for (size_t i = 0; i < 3; i++) {
			snprintf(bufs[i], sizeof(bufs[i]), "%s", t_corpus_path(files[i]));
			paths[np++] = bufs[i];
		}
	for (size_t f = 0; f < np; f++) {
		size_t size;
		uint8_t *data = t_read_file(paths[f], &size);
		size_t step = size / 400 + 1;
		for (size_t n = 0; n < size; n += step) {
			gsio_error err;
			gsio_wmp_file *w = gsio_wmp_decode(data, n, paths[f], NULL, &err);
			if (w) {
				gsio_scene *s = gsio_wmp_to_scene(w, NULL, NULL, &err);
				if (s && gsio_scene_validate(s, &err)) fail_msg("%s@%zu: %s", paths[f], n, err.message);
				gsio_scene_free(s);
				gsio_wmp_file_free(w);
			} else {
				assert_int_not_equal(err.code, GSIO_OK);
			}
		}
		uint8_t *copy = malloc(size);
		assert_non_null(copy);
		for (size_t i = 0; i < 600; i++) {
			memcpy(copy, data, size);
			size_t at = (i * 7919u) % size;
			copy[at] ^= (uint8_t)(1u << (i % 8));
			if (i % 3 == 0 && at + 4 <= size) memset(copy + at, 0xff, 4); // huge counts
			gsio_error err;
			gsio_wmp_file *w = gsio_wmp_decode(copy, size, paths[f], NULL, &err);
			if (!w) continue;
			gsio_scene *s = gsio_wmp_to_scene(w, NULL, NULL, &err);
			if (s && gsio_scene_validate(s, &err)) fail_msg("%s flip %zu: %s", paths[f], i, err.message);
			gsio_scene_free(s);
			gsio_wmp_file_free(w);
		}
		free(copy);
		free(data);
	}
}

static void test_crafted(void **state)
{
	(void)state;
	gsio_error err;
	// 10^9 vertices claimed in a text block.
	const char *big = "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	                  "block 0 { vertices 1000000000 faces 1 0 0 0 }\n";
	assert_null(gsio_wmp_decode((const uint8_t *)big, strlen(big), "big", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	// A face index out of range.
	const char *bad = "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	                  "block 0 { vertices 3 faces 1 0 0 0 1 0 0 0 1 0 3 0 1 5 : t ( 1 0 0 0 ) ( 0 1 0 0 ) "
	                  "0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\nobject 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n";
	assert_null(gsio_wmp_decode((const uint8_t *)bad, strlen(bad), "bad", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	// A cycle in the object tree: placed once, with a warning.
	const char *cyc = "// WMP2\nversion 710\nblocks 0 entities 0 objects 2\n"
	                  "object 0 { (0 0 0) (0 0 0) (1 1 1) object 1 }\n"
	                  "object 1 { (0 0 0) (0 0 0) (1 1 1) object 0, 1 }\n";
	gsio_wmp_file *f = gsio_wmp_decode((const uint8_t *)cyc, strlen(cyc), "cyc", NULL, &err);
	assert_non_null(f);
	gsio_scene *s = gsio_wmp_to_scene(f, "cyc.wmp", NULL, &err);
	assert_non_null(s);
	assert_int_equal(s->nodes_count, 2);
	assert_true(s->warnings_count >= 1);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
	// A deep binary tree: refused with a limit error, no stack overflow.
	size_t depth = 5000, size = 4 + depth * 16;
	uint8_t *d = calloc(1, size);
	assert_non_null(d);
	memcpy(d, "WMPB", 4);
	for (size_t i = 0; i < depth; i++) {
		uint8_t *c = d + 4 + 16 * i;
		uint32_t n = (uint32_t)(size - 4 - 16 * i);
		c[0] = 1, c[1] = 5, c[2] = 6, c[3] = 0;
		c[4] = (uint8_t)n, c[5] = (uint8_t)(n >> 8), c[6] = (uint8_t)(n >> 16), c[7] = (uint8_t)(n >> 24);
		c[8] = 3, c[10] = 1; // kind 3, one child
	}
	assert_null(gsio_wmp_decode(d, size, "deep", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	// A chunk size pointing past the end.
	d[4 + 4] = 0xff, d[4 + 5] = 0xff, d[4 + 6] = 0xff, d[4 + 7] = 0x7f;
	assert_null(gsio_wmp_decode(d, size, "past", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	free(d);
	// Huge coordinates (clamped to 1e30): normals stay finite (a fuzzed
	// level made NaN normals when the cross products were floats).
	const char *huge = "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	                   "block 0 { vertices 4 faces 1 -429 -436 -8 -429 436 -8 1e200 227 -8 429 1e180 1e247 "
	                   "4 3 2 1 0 : t ( 1 0 0 0 ) ( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n"
	                   "object 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n";
	f = gsio_wmp_decode((const uint8_t *)huge, strlen(huge), "huge", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	s = gsio_wmp_to_scene(f, "/tmp/nonexistent-gsio-dir/huge.wmp", NULL, &err);
	assert_non_null(s);
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
	// Escaping and absolute WAD paths: only the base name is looked up.
	const char *esc = "// WMP2\nversion 710\nblocks 0 entities 0 objects 1\n"
	                  "wed { wad { 0 0 0 0 0 <..\\..\\..\\etc\\passwd> 1 <C:\\x\\..> 1 } }\n"
	                  "object 0 { (0 0 0) (0 0 0) (1 1 1) }\n";
	f = gsio_wmp_decode((const uint8_t *)esc, strlen(esc), "esc", NULL, &err);
	assert_non_null(f);
	s = gsio_wmp_to_scene(f, "/tmp/nonexistent-gsio-dir/esc.wmp", NULL, &err);
	assert_non_null(s);
	assert_int_equal(s->warnings_count, 2); // both WADs missing
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
	// A NUL byte inside a header comment line (fuzz_wmp_a): the comments
	// keep the whole lines before it, and what is written reads back to
	// the same bytes written again.
	static const char nul[] = "// WMP2\n// ACKWED V 6.7~\0\0\0" "1\r\n// Created\r\n\r\nversion 710\n"
	                          "blocks 0 entities 0 objects 1\n"
	                          "object 0 { (0 0 0) (0 0 0) (1 1 1) }\n";
	f = gsio_wmp_decode((const uint8_t *)nul, sizeof(nul) - 1, "nul", NULL, &err);
	assert_non_null(f);
	assert_string_equal(f->comments, "// WMP2\n");
	uint8_t *o1;
	size_t n1;
	assert_int_equal(gsio_wmp_encode(f, GSIO_WMP_TEXT_B, &o1, &n1, &err), 0);
	gsio_wmp_file *g = gsio_wmp_decode(o1, n1, "nul2", NULL, &err);
	assert_non_null(g);
	assert_encodes_to(g, GSIO_WMP_TEXT_B, o1, n1, "nul2");
	assert_non_null(strstr((const char *)o1, "// WMP2\nversion 710\r\n"));
	free(o1);
	gsio_wmp_file_free(g);
	gsio_wmp_file_free(f);
	// Two texture names that differ only in bytes that become '?' (CP1252
	// leaves 0x8F and 0x90 unassigned; fuzz_wmp_a): two materials, told
	// apart by a suffix, a valid scene.
	static const char twin[] = "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	                           "block 0 { vertices 4 faces 2 0 0 0 1 0 0 1 1 0 0 1 0 "
	                           "3 0 1 2 : a\x8f" "b ( 1 0 0 0 ) ( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef "
	                           "3 0 2 3 : a\x90" "b ( 1 0 0 0 ) ( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n"
	                           "object 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n";
	f = gsio_wmp_decode((const uint8_t *)twin, sizeof(twin) - 1, "twin", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	s = gsio_wmp_to_scene(f, "/tmp/nonexistent-gsio-dir/twin.wmp", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	size_t named = 0;
	for (size_t i = 0; i < s->materials_count; i++) named += !strncmp(s->materials[i].name, "a?b", 3);
	assert_int_equal(named, 2);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
	// A coordinate of 1e70 (fuzz_wmp_a): "%f" gives 71 digits, all written,
	// read back as the same double (the text was cut at 63 characters).
	static const char far[] = "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	                          "block 0 { vertices 3 faces 1 1e70 0 0 1 0 0 0 1 0 3 0 1 2 : t ( 1 0 0 0 ) "
	                          "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n"
	                          "object 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n";
	f = gsio_wmp_decode((const uint8_t *)far, sizeof(far) - 1, "far", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	assert_true(f->blocks[0].vertices[0] == 1e70);
	assert_int_equal(gsio_wmp_encode(f, GSIO_WMP_TEXT_B, &o1, &n1, &err), 0);
	g = gsio_wmp_decode(o1, n1, "far2", NULL, &err);
	assert_non_null(g);
	assert_true(g->blocks[0].vertices[0] == 1e70);
	assert_encodes_to(g, GSIO_WMP_TEXT_B, o1, n1, "far2");
	free(o1);
	gsio_wmp_file_free(g);
	gsio_wmp_file_free(f);
}

/* A binary level whose colours leave their order (a sun before the fourth
 * fog, after an unknown chunk): the colours up to the first out of order
 * are taken, the rest kept as they came, so writing it again gives the same
 * bytes. Taking the later fog made the written file change on every round
 * (fuzz_wmp_c). */
static void test_colours_out_of_order(void **state)
{
	(void)state;
	const char *text = "// WMP2\nversion 710\nblocks 0 entities 1 objects 1\n"
	                   "level 0 { <l.$$w> <palette.pcx> 30 0 60 <ndef> 1 2 3 4 5 6 7 8 9 10 11 12 "
	                   "13 14 15 16 17 18 }\nobject 0 { (0 0 0) (0 0 0) (1 1 1) level 0 }\n";
	gsio_error err;
	gsio_wmp_file *f = gsio_wmp_decode((const uint8_t *)text, strlen(text), "l", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	assert_int_equal(f->levels_count, 1);
	gsio_wmp_level *lv = &f->levels[0];
	assert_int_equal(lv->colors_count, 6);
	// Three fogs, then: a string of id 0, a sun, a fog.
	static const uint8_t name[] = "x.pcx", sun[4] = {0, 150, 150, 150}, fog[4] = {3, 10, 20, 30};
	gsio_wmp_chunk extra[3] = {{0, 1, name, sizeof(name)}, {2, 3, sun, 4}, {1, 3, fog, 4}};
	lv->colors_count = 3;
	lv->unknown = extra;
	lv->unknown_count = 3;
	uint8_t *b1;
	size_t n1;
	assert_int_equal(gsio_wmp_encode(f, GSIO_WMP_BINARY, &b1, &n1, &err), 0);
	lv->unknown = NULL; // the file frees its own arrays, not these
	lv->unknown_count = 0;
	gsio_wmp_file_free(f);
	gsio_wmp_file *g = gsio_wmp_decode(b1, n1, "l.wmp", NULL, &err);
	if (!g) fail_msg("%s", err.message);
	assert_int_equal(g->levels[0].colors_count, 3);
	assert_int_equal(g->levels[0].unknown_count, 3);
	assert_encodes_to(g, GSIO_WMP_BINARY, b1, n1, "l.wmp");
	gsio_wmp_file_free(g);
	free(b1);
}

/* The header's counts size the decoded arrays, but only as a hint: a
 * level that claims 2^31 - 1 blocks and objects and has one of each
 * decodes under a 1 MB memory limit, and one that claims none and has
 * three blocks decodes all three into a scene of three meshes. */
static void test_header_counts_are_hints(void **state)
{
	(void)state;
	static const char block[] = "block %d { vertices 3 faces 1 0 0 0 64 0 0 0 64 0 3 0 1 2 : t ( 1 0 0 0 ) "
	                            "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n";
	char text[2048];
	gsio_opts o = {0};
	o.memory_limit = 1 << 20;
	gsio_error err;
	for (int lie = 0; lie < 2; lie++) {
		int n = lie ? 3 : 1;
		size_t len = (size_t)snprintf(text, sizeof(text), "// WMP2\nversion 710\nblocks %s entities 0 objects %s\n",
		                              lie ? "0" : "2147483647", lie ? "0" : "2147483647");
		for (int b = 0; b < n; b++) len += (size_t)snprintf(text + len, sizeof(text) - len, block, b);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "object 0 { (0 0 0) (0 0 0) (1 1 1)");
		for (int b = 0; b < n; b++) len += (size_t)snprintf(text + len, sizeof(text) - len, " block %d", b);
		len += (size_t)snprintf(text + len, sizeof(text) - len, " }\n");
		assert_true(len < sizeof(text));
		gsio_wmp_file *f = gsio_wmp_decode((const uint8_t *)text, len, "hint", &o, &err);
		if (!f) fail_msg("%s", err.message);
		assert_int_equal(f->blocks_count, (size_t)n);
		assert_int_equal(f->objects_count, 1);
		gsio_scene *s = gsio_wmp_to_scene(f, "/tmp/nonexistent-gsio-dir/hint.wmp", &o, &err);
		if (!s) fail_msg("%s", err.message);
		assert_int_equal(s->meshes_count, (size_t)n);
		// One node for the object and one more for each block after its first.
		assert_int_equal(s->nodes_count, (size_t)n);
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsio_scene_free(s);
		gsio_wmp_file_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_corpus),
	    cmocka_unit_test(test_binary_corpus),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_seed_cube),
	    cmocka_unit_test(test_truncation_corruption),
	    cmocka_unit_test(test_crafted),
	    cmocka_unit_test(test_colours_out_of_order),
	    cmocka_unit_test(test_header_counts_are_hints),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
