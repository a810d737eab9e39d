/* WMP levels (all three dialects) and WAD textures: codec conformance over
 * the corpus (element counts, byte-identical re-encoding of B and C), the
 * A4 manual's example block, the scene (nodes, block meshes, UVs against the
 * compiled WMB, textures, placed models, angles against the compiled
 * entities), and bad input (truncation, corruption, allocation failure). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "gsio_internal.h"
#include "wmp_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEED_A4 GSIO_SOURCE_DIR "/tests/data/seed_a4.wmp"

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

static void roundtrip(const char *path)
{
	uint8_t *data;
	size_t size;
	gsio_wmp_file *f = decode_path(path, &data, &size);
	uint8_t *out;
	size_t out_size;
	gsio_error err;
	if (gsio_wmp_encode(f, f->dialect, &out, &out_size, &err)) fail_msg("%s: %s", path, err.message);
	if (out_size != size || memcmp(out, data, size)) {
		size_t i = 0;
		while (i < size && i < out_size && out[i] == data[i]) i++;
		fail_msg("%s: re-encoding differs at byte %zu (sizes %zu vs %zu)", path, i, out_size, size);
	}
	free(out);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_corpus),
	    cmocka_unit_test(test_binary_corpus),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_seed_cube),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
