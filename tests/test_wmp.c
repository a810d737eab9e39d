/* WMP levels (all three dialects) and WAD textures: codec conformance over
 * the corpus (element counts, byte-identical re-encoding of B and C), the
 * A4 manual's example block, the scene (nodes, block meshes, UVs against the
 * compiled WMB, textures, placed models, angles against the compiled
 * entities), and bad input (truncation, corruption, allocation failure). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "gsioi_image_file.h"
#include "gsioi_internal.h"
#include "wmp_internal.h"
#include "gsioi_png.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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

// -- Scene

static const char *lottershock(const char *rel)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf), "%s/lottershock/Game/%s", GSIO_CORPUS_DIR, rel);
	return buf;
}

static gsio_scene *load_level(const char *path_in, bool with_assets)
{
	char path[1024], assets[1024];
	snprintf(path, sizeof(path), "%s", path_in);
	snprintf(assets, sizeof(assets), "%s", lottershock("Assets"));
	const char *paths[1] = {assets};
	gsio_opts o = {0};
	if (with_assets) o.search_paths = paths, o.search_paths_count = 1;
	gsio_error err;
	gsio_scene *s = t_load_ok(path, &o);
	if (gsio_scene_validate(s, &err)) fail_msg("%s: scene fails validation: %s", path, err.message);
	return s;
}

static const gsio_extra *node_extra(const gsio_scene *s, size_t i, const char *key)
{
	return gsio_extras_get(&s->nodes[i].extras, key);
}

static size_t nodes_with(const gsio_scene *s, const char *element)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_extra *e = node_extra(s, i, "wmp:element");
		n += e && !strcmp(e->s, element);
	}
	return n;
}

/* Every WMP of the corpus and the A4 example load into valid scenes with one
 * mesh per block. */
static void test_scene_all(void **state)
{
	(void)state;
	gsio_scene *s = load_level(SEED_A4, false);
	assert_int_equal(s->meshes_count, 1);
	assert_int_equal(s->meshes[0].index_count, 6 * 2 * 3);
	for (int k = 0; k < 3; k++) {
		assert_true(fabsf(s->meshes[0].bbox_min[k] + 32) < 1e-4f);
		assert_true(fabsf(s->meshes[0].bbox_max[k] - 32) < 1e-4f);
	}
	assert_int_equal(s->lights_count, 2); // the light and the sun
	gsio_scene_free(s);
	T_REQUIRE_CORPUS();
	s = load_level(t_corpus_path("wmp/prefab.wmp"), false);
	assert_int_equal(s->meshes_count, 34);
	size_t tris = 0;
	for (size_t i = 0; i < s->meshes_count; i++) tris += s->meshes[i].index_count / 3;
	assert_int_equal(tris, 568);
	assert_int_equal(s->nodes_count, 38 + 1); // objects + the sun
	gsio_scene_free(s);
	s = load_level(t_corpus_path("wmp/empty.wmp"), false);
	assert_int_equal(s->meshes_count, 0);
	gsio_scene_free(s);
	s = load_level(lottershock("Level/bestiary.wmp"), true);
	assert_int_equal(nodes_with(s, "model"), 43);
	assert_int_equal(nodes_with(s, "sprite"), 1);
	gsio_scene_free(s);
	s = load_level(lottershock("Level/menue.wmp"), true);
	assert_int_equal(nodes_with(s, "block"), 6);
	assert_int_equal(nodes_with(s, "light"), 1);
	assert_int_equal(nodes_with(s, "start"), 1);
	// Block textures come from Texturset.wad, not placeholders.
	for (size_t i = 0; i < s->meshes_count; i++) {
		if (strncmp(s->meshes[i].name, "block_", 6)) continue;
		for (size_t p = 0; p < s->meshes[i].parts_count; p++) {
			int32_t m = s->meshes[i].parts[p].material;
			assert_true(m >= 0);
			int32_t im = s->materials[m].base_color_texture.image;
			assert_true(im >= 0);
			assert_null(gsio_extras_get(&s->images[im].extras, "gsio:placeholder"));
		}
	}
	// The two models missing from the game's snapshot are warnings.
	size_t missing = 0;
	for (size_t i = 0; i < s->warnings_count; i++)
		missing += strstr(s->warnings[i], "not found") != NULL;
	assert_true(missing >= 2);
	// ... and empty nodes: no mesh, no children, their file in extras.
	size_t empty = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_extra *f = node_extra(s, i, "wmp:file");
		if (!f || (strcasecmp(f->s, "swordmenue.mdl") && strcasecmp(f->s, "shotgunshell.mdl"))) continue;
		assert_int_equal(s->nodes[i].mesh, -1);
		for (size_t k = i + 1; k < s->nodes_count; k++) assert_int_not_equal(s->nodes[k].parent, (int32_t)i);
		empty++;
	}
	assert_true(empty >= 2);
	const gsio_extra *ref = gsio_extras_get(&s->extras, "wmp:file:model:swordmenue.mdl");
	assert_non_null(ref);
	assert_string_equal(ref->s, "");
	gsio_scene_free(s);
}

/* A WMB7 list: offset and length of list i. */
static void wmb_list(const uint8_t *d, size_t size, int i, uint32_t *off, uint32_t *len)
{
	assert_true(size >= 4 + 8 * 20);
	*off = (uint32_t)(d[4 + 8 * i] | d[5 + 8 * i] << 8 | d[6 + 8 * i] << 16 | (uint32_t)d[7 + 8 * i] << 24);
	const uint8_t *q = d + 8 + 8 * i;
	*len = (uint32_t)(q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24);
	assert_true(*off <= size && *len <= size - *off);
}

/* A lottershock .wmb (rel under Game/) read whole, and where its list i
 * lies (wmb_list). */
static uint8_t *read_wmb(const char *rel, int i, uint32_t *off, uint32_t *len)
{
	size_t size;
	uint8_t *d = t_read_file(lottershock(rel), &size);
	wmb_list(d, size, i, off, len);
	return d;
}

/* The mesh node n places when it is a block's (named block_*), else NULL. */
static const gsio_mesh *block_mesh(const gsio_scene *s, size_t n)
{
	if (s->nodes[n].mesh < 0) return NULL;
	const gsio_mesh *m = &s->meshes[s->nodes[n].mesh];
	return strncmp(m->name, "block_", 6) ? NULL : m;
}

/* The corners of triangle t (its first index) of m in world space (w: the
 * placing node's world matrix). */
static void world_triangle(const float w[16], const gsio_mesh *m, size_t t, float q[3][3])
{
	for (int c = 0; c < 3; c++) {
		const float *l = m->positions + 3 * m->indices[t + (size_t)c];
		for (int k = 0; k < 3; k++) q[c][k] = w[k] * l[0] + w[4 + k] * l[1] + w[8 + k] * l[2] + w[12 + k];
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
}

static float lef(const uint8_t *p)
{
	uint32_t u = le32(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* The UV a scene triangle's linear map gives at point x of its plane
 * (barycentric coordinates, extrapolated), and x's distance to the plane. */
static float plane_uv(const float *p0, const float *p1, const float *p2, const float *uv0,
                      const float *uv1, const float *uv2, const float *x, float uv[2])
{
	double e1[3], e2[3], d[3], n[3];
	for (int k = 0; k < 3; k++) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k], d[k] = x[k] - p0[k];
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
	if (nn < 1e-12) return 1e30f;
	double dist = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / sqrt(nn);
	double d11 = 0, d12 = 0, d22 = 0, dd1 = 0, dd2 = 0;
	for (int k = 0; k < 3; k++) {
		d11 += e1[k] * e1[k], d12 += e1[k] * e2[k], d22 += e2[k] * e2[k];
		dd1 += d[k] * e1[k], dd2 += d[k] * e2[k];
	}
	double den = d11 * d22 - d12 * d12;
	double b1 = (d22 * dd1 - d12 * dd2) / den, b2 = (d11 * dd2 - d12 * dd1) / den;
	for (int k = 0; k < 2; k++)
		uv[k] = (float)(uv0[k] + b1 * (uv1[k] - uv0[k]) + b2 * (uv2[k] - uv0[k]));
	return (float)fabs(dist);
}

/* Distance from x to triangle abc (closest point, Ericson's regions). */
static double point_triangle(const float *a, const float *b, const float *c, const float *x)
{
	double ab[3], ac[3], ap[3], p[3];
	for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = x[k] - a[k];
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
	double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
	double bp[3], cp[3];
	for (int k = 0; k < 3; k++) bp[k] = x[k] - b[k], cp[k] = x[k] - c[k];
	double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
#undef DOT
	double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
	if (d1 <= 0 && d2 <= 0) {
		for (int k = 0; k < 3; k++) p[k] = a[k];
	} else if (d3 >= 0 && d4 <= d3) {
		for (int k = 0; k < 3; k++) p[k] = b[k];
	} else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		double v = d1 / (d1 - d3);
		for (int k = 0; k < 3; k++) p[k] = a[k] + v * ab[k];
	} else if (d6 >= 0 && d5 <= d6) {
		for (int k = 0; k < 3; k++) p[k] = c[k];
	} else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		double w = d2 / (d2 - d6);
		for (int k = 0; k < 3; k++) p[k] = a[k] + w * ac[k];
	} else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		for (int k = 0; k < 3; k++) p[k] = b[k] + w * (c[k] - b[k]);
	} else {
		double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
		for (int k = 0; k < 3; k++) p[k] = a[k] + ab[k] * v + ac[k] * w;
	}
	double d = 0;
	for (int k = 0; k < 3; k++) d += (x[k] - p[k]) * (x[k] - p[k]);
	return sqrt(d);
}

/* A lottershock level (Game/Level/<name>.wmp) loaded with the game's
 * assets, beside its compiled <name>.wmb and where the .wmb's list `list`
 * lies (count: its first word). Skips the test without the corpus. */
typedef struct compiled_level {
	gsio_scene *s;
	uint8_t *d;
	uint32_t off, len, count;
} compiled_level;

static compiled_level open_compiled(const char *name, int list)
{
	T_REQUIRE_CORPUS();
	char rel[64];
	compiled_level lvl;
	snprintf(rel, sizeof(rel), "Level/%s.wmp", name);
	lvl.s = load_level(lottershock(rel), true);
	snprintf(rel, sizeof(rel), "Level/%s.wmb", name);
	lvl.d = read_wmb(rel, list, &lvl.off, &lvl.len);
	lvl.count = le32(lvl.d + lvl.off);
	return lvl;
}

static void close_compiled(compiled_level *c)
{
	free(c->d);
	gsio_scene_free(c->s);
}

/* menue.wmb's compiled geometry against the scene's blocks. The compiler
 * drops faces that touch other blocks and clips where walls meet, so the
 * compiled surface is a part of the level's: every compiled triangle (its
 * corners and centroid) lies on one scene block triangle within 1 quant,
 * facing the same way (the file's clockwise order reversed, as the scene's
 * counter-clockwise), and every compiled block's box lies within its scene
 * block's world box, 1 quant out. */
static void test_geometry_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("menue", 17);
	// The scene's block triangles in world space, with their block.
	size_t cap = 0;
	for (size_t n = 0; n < lvl.s->nodes_count; n++)
		if (block_mesh(lvl.s, n)) cap += block_mesh(lvl.s, n)->index_count / 3;
	float(*tri)[3][3] = calloc(cap, sizeof(*tri));
	int *tri_block = calloc(cap, sizeof(int));
	assert_true(tri && tri_block);
	size_t nt_scene = 0;
	float box[16][6];
	int blocks = 0;
	for (size_t n = 0; n < lvl.s->nodes_count; n++) {
		const gsio_mesh *m = block_mesh(lvl.s, n);
		if (!m) continue;
		assert_true(blocks < 16);
		float w[16];
		gsio_node_world_matrix(lvl.s, (int32_t)n, w);
		for (int k = 0; k < 3; k++) box[blocks][k] = 1e30f, box[blocks][3 + k] = -1e30f;
		for (size_t t = 0; t < m->index_count; t += 3, nt_scene++) {
			world_triangle(w, m, t, tri[nt_scene]);
			for (int c = 0; c < 3; c++)
				for (int k = 0; k < 3; k++) {
					float v = tri[nt_scene][c][k];
					if (v < box[blocks][k]) box[blocks][k] = v;
					if (v > box[blocks][3 + k]) box[blocks][3 + k] = v;
				}
			tri_block[nt_scene] = blocks;
		}
		blocks++;
	}
	size_t p = lvl.off + 4, checked = 0;
	double worst = 0;
	for (uint32_t b = 0; b < lvl.count; b++) {
		assert_true(p + 40 <= lvl.off + lvl.len);
		float mins[3] = {lef(lvl.d + p), lef(lvl.d + p + 4), lef(lvl.d + p + 8)};
		float maxs[3] = {lef(lvl.d + p + 12), lef(lvl.d + p + 16), lef(lvl.d + p + 20)};
		uint32_t nv = le32(lvl.d + p + 28), nt = le32(lvl.d + p + 32), ns = le32(lvl.d + p + 36);
		const uint8_t *verts = lvl.d + p + 40, *tris = verts + 28 * (size_t)nv;
		assert_true((size_t)(tris + 12 * (size_t)nt + 20 * (size_t)ns - lvl.d) <= lvl.off + lvl.len);
		int home = -1;
		for (uint32_t t = 0; t < nt; t++) {
			const uint8_t *tr = tris + 12 * (size_t)t;
			float q[4][3];
			for (int c = 0; c < 3; c++) {
				uint32_t vi = (uint32_t)(tr[2 * c] | tr[2 * c + 1] << 8);
				assert_true(vi < nv);
				for (int k = 0; k < 3; k++) q[c][k] = lef(verts + 28 * (size_t)vi + 4 * (size_t)k);
			}
			for (int k = 0; k < 3; k++) q[3][k] = (q[0][k] + q[1][k] + q[2][k]) / 3;
			// The compiled normal, clockwise from outside: reversed.
			double e1[3], e2[3], cn[3];
			for (int k = 0; k < 3; k++) e1[k] = q[1][k] - q[0][k], e2[k] = q[2][k] - q[0][k];
			cn[0] = -(e1[1] * e2[2] - e1[2] * e2[1]);
			cn[1] = -(e1[2] * e2[0] - e1[0] * e2[2]);
			cn[2] = -(e1[0] * e2[1] - e1[1] * e2[0]);
			double best = 1e30;
			int best_block = -1;
			for (size_t k = 0; k < nt_scene; k++) {
				double sn[3], f1[3], f2[3];
				for (int j = 0; j < 3; j++) f1[j] = tri[k][1][j] - tri[k][0][j], f2[j] = tri[k][2][j] - tri[k][0][j];
				sn[0] = f1[1] * f2[2] - f1[2] * f2[1];
				sn[1] = f1[2] * f2[0] - f1[0] * f2[2];
				sn[2] = f1[0] * f2[1] - f1[1] * f2[0];
				double dot = cn[0] * sn[0] + cn[1] * sn[1] + cn[2] * sn[2];
				double ln = sqrt((cn[0] * cn[0] + cn[1] * cn[1] + cn[2] * cn[2]) *
				                 (sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]));
				if (!(ln > 0) || dot / ln < 0.999) continue; // not facing the same way
				double far = 0;
				for (int c = 0; c < 4; c++) {
					double e = point_triangle(tri[k][0], tri[k][1], tri[k][2], q[c]);
					if (e > far) far = e;
				}
				// A corner may sit on a neighbouring triangle of the same
				// face: allow the fan's other triangles (same plane).
				if (far > 1) {
					far = 0;
					for (int c = 0; c < 4 && far <= 1; c++) {
						double e = 1e30;
						for (size_t k2 = 0; k2 < nt_scene; k2++) {
							if (tri_block[k2] != tri_block[k]) continue;
							double pn = point_triangle(tri[k2][0], tri[k2][1], tri[k2][2], q[c]);
							if (pn < e) e = pn;
						}
						if (e > far) far = e;
					}
				}
				if (far < best) best = far, best_block = tri_block[k];
			}
			if (!(best <= 1)) fail_msg("block %u triangle %u: no scene face within 1 quant (%g)", b, t, best);
			if (home < 0) home = best_block;
			if (best_block != home) fail_msg("block %u spans scene blocks %d and %d", b, home, best_block);
			if (best > worst) worst = best;
			checked++;
		}
		for (int k = 0; k < 3 && home >= 0; k++)
			if (mins[k] < box[home][k] - 1 || maxs[k] > box[home][3 + k] + 1)
				fail_msg("block %u box [%g %g] on axis %d outside scene block %d's [%g %g]", b, mins[k],
				         maxs[k], k, home, box[home][k], box[home][3 + k]);
		p += 40 + 28 * (size_t)nv + 12 * (size_t)nt + 20 * (size_t)ns;
	}
	print_message("%zu compiled triangles of %u blocks on the scene's %zu block triangles, worst %g quant\n",
	              checked, lvl.count, nt_scene, worst);
	assert_int_equal(lvl.count, 6);
	assert_true(checked >= 12);
	free(tri);
	free(tri_block);
	close_compiled(&lvl);
}

/* menue.wmb's compiled blocks (world positions, tu/tv per vertex) against
 * the scene's block meshes. The compiler clips walls where they meet, so
 * corners move: each compiled vertex is compared with the UV the scene's
 * texture mapping gives at that point of a face plane within 1 quant. */
static void test_uvs_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("menue", 17);
	size_t p = lvl.off + 4, checked = 0;
	float worst = 0;
	for (uint32_t b = 0; b < lvl.count; b++) {
		assert_true(p + 40 <= lvl.off + lvl.len);
		uint32_t nv = le32(lvl.d + p + 28), nt = le32(lvl.d + p + 32), ns = le32(lvl.d + p + 36);
		p += 40;
		for (uint32_t v = 0; v < nv; v++, p += 28) {
			float x[3] = {lef(lvl.d + p), lef(lvl.d + p + 4), lef(lvl.d + p + 8)};
			float tu = lef(lvl.d + p + 12), tv = lef(lvl.d + p + 16);
			float best = 1e30f;
			for (size_t n = 0; n < lvl.s->nodes_count; n++) {
				const gsio_mesh *m = block_mesh(lvl.s, n);
				if (!m) continue;
				float w[16];
				gsio_node_world_matrix(lvl.s, (int32_t)n, w);
				for (size_t t = 0; t < m->index_count; t += 3) {
					float q[3][3];
					world_triangle(w, m, t, q);
					float uv[2];
					float dist = plane_uv(q[0], q[1], q[2], m->uvs + 2 * m->indices[t],
					                      m->uvs + 2 * m->indices[t + 1], m->uvs + 2 * m->indices[t + 2],
					                      x, uv);
					if (dist > 1) continue;
					float e = fabsf(uv[0] - tu) + fabsf(uv[1] - tv);
					if (e < best) best = e;
				}
			}
			if (!(best < 1e-3f)) fail_msg("block %u vertex %u (%g %g %g): UV off by %g", b, v, x[0], x[1], x[2], best);
			if (best > worst) worst = best;
			checked++;
		}
		p += 12 * (size_t)nt + 20 * (size_t)ns;
	}
	print_message("checked %zu compiled UVs of %u blocks, worst |du|+|dv| %g\n", checked, lvl.count, worst);
	assert_true(checked >= 24);
	close_compiled(&lvl);
}

/* bestiary.wmb's compiled entities (name, position, pan/tilt/roll degrees,
 * scale) against the scene's entity nodes: R = Rz(pan) Ry(-tilt) Rx(roll). */
static void test_entities_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("bestiary", 15);
	size_t matched = 0;
	for (uint32_t i = 0; i < lvl.count; i++) {
		const uint8_t *e = lvl.d + lvl.off + le32(lvl.d + lvl.off + 4 + 4 * i);
		uint32_t type = le32(e);
		if (type != 7 && type != 3) continue;
		float v[9];
		for (int k = 0; k < 9; k++) v[k] = lef(e + 4 + 4 * k);
		char name[34];
		size_t nl = type == 7 ? 33 : 20;
		memcpy(name, e + 40, nl);
		name[nl] = 0;
		// Nodes with this entity name; the nearest one (names repeat).
		float best = 1e30f, w[16] = {0};
		for (size_t k = 0; k < lvl.s->nodes_count; k++) {
			const gsio_extra *x = node_extra(lvl.s, k, "wmp:name");
			if (!x || strcmp(x->s, name)) continue;
			float m[16];
			gsio_node_world_matrix(lvl.s, (int32_t)k, m);
			float dd = fabsf(m[12] - v[0]) + fabsf(m[13] - v[1]) + fabsf(m[14] - v[2]);
			if (dd < best) best = dd, memcpy(w, m, sizeof(w));
		}
		if (!(best <= 0.03f)) fail_msg("entity %s: no node within 0.01 quant (%g)", name, best);
		double pan = v[3] * M_PI / 180, tilt = -v[4] * M_PI / 180, roll = v[5] * M_PI / 180;
		double cz = cos(pan), sz = sin(pan), cy = cos(tilt), sy = sin(tilt), cx = cos(roll), sx = sin(roll);
		// Rz * Ry * Rx, row-major r[row][col].
		double r[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
		                  {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
		                  {-sy, cy * sx, cy * cx}};
		for (int col = 0; col < 3; col++)
			for (int row = 0; row < 3; row++) {
				double want = r[row][col] * v[6 + col], got = w[4 * col + row];
				// 0.01 degree on a unit axis is 1.75e-4; scaled by the entity scale.
				if (fabs(want - got) > 2e-4 * fabs(v[6 + col]) + 1e-5)
					fail_msg("entity %s: matrix[%d][%d] %g, compiled %g", name, row, col, got, want);
			}
		matched++;
	}
	print_message("matched %zu compiled entities\n", matched);
	assert_int_equal(matched, 44);
	close_compiled(&lvl);
}

/* The entity node (wmp:element model) above node n, or -1. */
static int32_t entity_of(const gsio_scene *s, int32_t n)
{
	for (; n >= 0; n = s->nodes[n].parent) {
		const gsio_extra *e = node_extra(s, (size_t)n, "wmp:element");
		if (e && !strcmp(e->s, "model")) return n;
	}
	return -1;
}

/* bestiary with its models: one mesh set per model file (skinned instances
 * are mesh records sharing the first's arrays), every skinned instance its
 * own skin over its own joints under its entity node, placed so that each
 * joint's world matrix times its inverse bind matrix is the entity's world
 * matrix (the bind pose lands where the level puts the model); every clip
 * moves every instance of its file and nothing else. */
static void test_bestiary_instances(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *s = load_level(lottershock("Level/bestiary.wmp"), true);
	for (size_t i = 0; i < s->warnings_count; i++)
		if (strstr(s->warnings[i], "skinned") || strstr(s->warnings[i], "not found beside"))
			if (!strstr(s->warnings[i], "WAD")) fail_msg("warning: %s", s->warnings[i]);
	// Distinct mesh data: block meshes none, sprite 1, model groups once per file.
	size_t distinct = 0, shared = 0;
	for (size_t i = 0; i < s->meshes_count; i++) {
		bool again = false;
		for (size_t k = 0; k < i && !again; k++) again = s->meshes[k].positions == s->meshes[i].positions;
		distinct += !again;
		shared += again;
		if (again) assert_true(s->meshes[i].skin >= 0);
	}
	assert_int_equal(shared, 6); // corridor_02_short_door.mdl: 7 skinned instances
	// 14 skins: one per skinned instance (7 corridor doors + 7 single models).
	assert_int_equal(s->skins_count, 14);
	bool *used = calloc(s->skins_count, 1);
	assert_non_null(used);
	size_t skinned_nodes = 0;
	for (size_t n = 0; n < s->nodes_count; n++) {
		int32_t mi = s->nodes[n].mesh;
		if (mi < 0 || s->meshes[mi].skin < 0) continue;
		skinned_nodes++;
		int32_t k = s->meshes[mi].skin;
		assert_false(used[k]); // no two nodes share a skin
		used[k] = true;
		assert_int_equal(s->nodes[n].parent, -1); // glTF: a skinned mesh's node is a root
		const gsio_skin *sk = &s->skins[k];
		int32_t ent = entity_of(s, sk->joints[0]);
		assert_true(ent >= 0);
		const gsio_extra *x = gsio_extras_get(&s->nodes[n].extras, "wmp:entity");
		assert_non_null(x);
		assert_string_equal(x->s, node_extra(s, (size_t)ent, "wmp:name")->s);
		float ew[16];
		gsio_node_world_matrix(s, ent, ew);
		for (size_t j = 0; j < sk->joints_count; j++) {
			assert_int_equal(entity_of(s, sk->joints[j]), ent);
			float jw[16], m[16];
			gsio_node_world_matrix(s, sk->joints[j], jw);
			gsioi_mat4_mul(jw, sk->inverse_bind + 16 * j, m);
			for (int q = 0; q < 16; q++) {
				float tol = q >= 12 ? 0.05f : 1e-3f * (fabsf(ew[q]) + 1);
				if (fabsf(m[q] - ew[q]) > tol)
					fail_msg("skin %d joint %zu: joint x inverse bind [%d] %g, entity %g", k, j, q, m[q], ew[q]);
			}
		}
	}
	assert_int_equal(skinned_nodes, 14);
	free(used);
	// Clips: every animation moves every instance of its file, only them.
	size_t checked = 0;
	for (size_t a = 0; a < s->animations_count; a++) {
		const gsio_animation *an = &s->animations[a];
		char file[256];
		snprintf(file, sizeof(file), "%s", an->name);
		char *slash = strchr(file, '/');
		assert_non_null(slash);
		*slash = 0;
		size_t want = 0, got = 0;
		for (size_t n = 0; n < s->nodes_count; n++) {
			const gsio_extra *f = node_extra(s, n, "wmp:file"), *e = node_extra(s, n, "wmp:element");
			if (!f || !e || strcmp(e->s, "model") || strcasecmp(f->s, file)) continue;
			want++;
			bool moved = false;
			for (size_t c = 0; c < an->channels_count && !moved; c++) {
				int32_t t = an->channels[c].node;
				// A morph channel's node is a mesh node under the entity or,
				// skinned, a root naming it.
				const gsio_extra *we = gsio_extras_get(&s->nodes[t].extras, "wmp:entity");
				moved = entity_of(s, t) == (int32_t)n ||
				        (we && !strcmp(we->s, node_extra(s, n, "wmp:name")->s) && t >= (int32_t)n);
			}
			got += moved;
		}
		for (size_t c = 0; c < an->channels_count; c++) {
			int32_t t = an->channels[c].node, ent = entity_of(s, t);
			if (ent < 0) continue; // a skinned root mesh node (checked above)
			assert_int_equal(strcasecmp(node_extra(s, (size_t)ent, "wmp:file")->s, file), 0);
		}
		if (want != got) fail_msg("animation %s moves %zu of %zu instances", an->name, got, want);
		assert_true(want >= 1);
		checked++;
	}
	print_message("%zu meshes (%zu distinct), %zu skins, %zu clips each moving all its instances\n",
	              s->meshes_count, distinct, s->skins_count, checked);
	assert_int_equal(checked, 48);
	gsio_scene_free(s);
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

// -- WAD textures stored as DDS

static void put32le(uint8_t *d, size_t at, uint32_t v)
{
	for (int k = 0; k < 4; k++) d[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}

/* A WAD7 with one DDS lump (type `type`): an 8x4 DXT1 file of two blocks,
 * the left one pure red, the right one pure blue (c0 > c1, every index 0).
 * at40: the DDS after the 40-byte lump header (stored width = byte count,
 * height 1, as MDL7 type-6 skins); else the lump is the DDS alone. */
static uint8_t *make_dds_wad(uint32_t type, bool at40, size_t *size)
{
	size_t dds = 128 + 16, lump = dds + (at40 ? 40 : 0);
	*size = 12 + lump + 32;
	uint8_t *d = calloc(1, *size);
	assert_non_null(d);
	memcpy(d, "WAD7", 4);
	put32le(d, 4, 1);
	put32le(d, 8, (uint32_t)(12 + lump));
	uint8_t *l = d + 12, *x = l + (at40 ? 40 : 0);
	if (at40) {
		memcpy(l, "ddstex", 6);
		put32le(l, 16, (uint32_t)dds);
		put32le(l, 20, 1);
		put32le(l, 24, type);
	}
	memcpy(x, "DDS ", 4);
	put32le(x, 4, 124);
	put32le(x, 8, 0x81007);
	put32le(x, 12, 4);  // height
	put32le(x, 16, 8);  // width
	put32le(x, 20, 16); // linear size
	put32le(x, 76, 32);
	put32le(x, 80, 4);
	memcpy(x + 84, "DXT1", 4);
	put32le(x, 108, 0x1000);
	uint8_t *b = x + 128;
	b[0] = 0x00, b[1] = 0xF8, b[2] = 0x00, b[3] = 0x00; // red, black: c0 > c1
	b[8] = 0x1F, b[9] = 0x00, b[10] = 0x00, b[11] = 0x00; // blue, black
	uint8_t *e = d + 12 + lump;
	put32le(e, 0, 12);
	put32le(e, 4, (uint32_t)lump);
	put32le(e, 8, (uint32_t)lump);
	e[12] = (uint8_t)type;
	memcpy(e + 16, "ddstex", 6);
	return d;
}

/** A level textured from an 8-bit WAD7 lump keeps the lump's indices beside
 *  the rgba (gsio_image.indices), and the two agree (the validator). */
/* A level of one block textured `tex` from a WAD: the WAD's bytes written
 * as dir/wad_name, a .wmp naming it `wad_ref` beside it, and the level
 * loaded (its files removed again). */
static gsio_scene *load_level_with_wad_opts(const char *dir_template, const char *wad_name,
                                            const char *wad_ref, const char *tex, const uint8_t *d,
                                            size_t size, const gsio_opts *opts)
{
	char dir[64], wad[128], lvl[128], text[640];
	snprintf(dir, sizeof(dir), "%s", dir_template);
	assert_non_null(mkdtemp(dir));
	snprintf(wad, sizeof(wad), "%s/%s", dir, wad_name);
	snprintf(lvl, sizeof(lvl), "%s/l.wmp", dir);
	t_write_file(wad, d, size);
	snprintf(text, sizeof(text),
	         "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	         "wed { wad { 0 0 0 0 0 <%s> 1 } }\n"
	         "block 0 { vertices 3 faces 1 0 0 0 64 0 0 0 64 0 3 0 1 2 : %s ( 1 0 0 0 ) "
	         "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n"
	         "object 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n",
	         wad_ref, tex);
	t_write_file(lvl, (const uint8_t *)text, strlen(text));
	gsio_scene *s = t_load_ok(lvl, opts);
	remove(wad);
	remove(lvl);
	rmdir(dir);
	return s;
}

static gsio_scene *load_level_with_wad(const char *dir_template, const char *wad_name,
                                       const char *wad_ref, const char *tex, const uint8_t *d,
                                       size_t size)
{
	return load_level_with_wad_opts(dir_template, wad_name, wad_ref, tex, d, size, NULL);
}

/* A WAD7 of one texture lump `name` of w x h pixels of WAD7 type `type`,
 * `bpp` bytes a pixel (i * 37 + 5 + (i / 64) * 11 for byte i), the lump's
 * type byte 0 (8-bit) or `type`. *pixels points at them in the WAD. */
static uint8_t *one_lump_wad(const char *name, uint32_t type, uint32_t w, uint32_t h, size_t bpp,
                             size_t *size, uint8_t **pixels)
{
	size_t lump = 40 + (size_t)w * h * bpp;
	*size = 12 + lump + 32;
	uint8_t *d = calloc(1, *size);
	assert_non_null(d);
	memcpy(d, "WAD7", 4);
	put32le(d, 4, 1);
	put32le(d, 8, (uint32_t)(12 + lump));
	uint8_t *l = d + 12;
	memcpy(l, name, strlen(name));
	put32le(l, 16, w);
	put32le(l, 20, h);
	put32le(l, 24, type);
	for (size_t i = 0; i < (size_t)w * h * bpp; i++) l[40 + i] = (uint8_t)(i * 37 + 5 + (i / 64) * 11);
	uint8_t *e = d + 12 + lump;
	put32le(e, 0, 12);
	put32le(e, 4, (uint32_t)lump);
	put32le(e, 8, (uint32_t)lump);
	e[12] = (uint8_t)type;
	memcpy(e + 16, name, strlen(name));
	*pixels = l + 40;
	return d;
}

static void test_wad_pal8_level(void **state)
{
	(void)state;
	enum { W = 8, H = 4 };
	size_t size;
	uint8_t *px;
	uint8_t *d = one_lump_wad("paltex", 0, W, H, 1, &size, &px);
	gsio_scene *s = load_level_with_wad("/tmp/gsio-wad-pal8-XXXXXX", "pal.wad", "pal.wad", "paltex", d, size);
	gsio_error err;
	assert_int_equal(s->images_count, 1);
	const gsio_image *im = &s->images[0];
	assert_int_equal(im->width, W);
	assert_non_null(im->indices);
	assert_int_equal(im->palette_count, 256);
	assert_memory_equal(im->indices, px, W * H);
	uint8_t expect[W * H * 4];
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_PAL8, px, W * H, NULL, expect), 0);
	assert_memory_equal(im->rgba, expect, sizeof(expect));
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
	free(d);
}

/** With GSIO_OPT_NO_PIXELS a level keeps its WAD textures as stored, as
 *  MDL skins are kept: an 8-bit one as indices + palette, a 16-bit one as
 *  its raw pixels, no RGBA either way; each makes the PNG its decoded
 *  pixels make (the one the glTF writer would write without the flag). */
static void test_wad_level_no_pixels(void **state)
{
	(void)state;
	enum { W = 16, H = 8 };
	for (uint32_t type = 0; type <= 2; type += 2) { // 8-bit, RGB565
		size_t size;
		uint8_t *px;
		uint8_t *d = one_lump_wad("tex", type, W, H, type ? 2 : 1, &size, &px);
		gsio_opts o = {0};
		o.flags = GSIO_OPT_NO_PIXELS;
		gsio_scene *full = load_level_with_wad("/tmp/gsio-wad-np-XXXXXX", "t.wad", "t.wad", "tex", d, size);
		gsio_scene *kept = load_level_with_wad_opts("/tmp/gsio-wad-np-XXXXXX", "t.wad", "t.wad", "tex", d, size, &o);
		gsio_error err;
		assert_int_equal(gsio_scene_validate(kept, &err), 0);
		assert_int_equal(kept->images_count, 1);
		const gsio_image *a = &full->images[0], *b = &kept->images[0];
		assert_non_null(a->rgba);
		assert_null(b->rgba);
		assert_int_equal(b->width, W);
		assert_int_equal(b->height, H);
		assert_int_equal(b->source_format, (gsio_pixel_format)type);
		uint8_t *pa, *pb;
		size_t na, nb;
		if (type == 0) {
			assert_non_null(b->indices);
			assert_memory_equal(b->indices, px, W * H);
			assert_int_equal(gsioi_png_encode_indexed(a->indices, W, H, a->palette, a->palette_count, &pa, &na, &err), 0);
			assert_int_equal(gsioi_png_encode_indexed(b->indices, W, H, b->palette, b->palette_count, &pb, &nb, &err), 0);
		} else {
			assert_non_null(b->stored);
			assert_memory_equal(b->stored, px, W * H * 2);
			assert_int_equal(gsioi_png_encode(a->rgba, W, H, &pa, &na, &err), 0);
			assert_int_equal(gsioi_png_encode_stored(b->source_format, b->stored, W, H, NULL, &pb, &nb, &err), 0);
		}
		assert_int_equal(na, nb);
		assert_memory_equal(pa, pb, na);
		free(pa);
		free(pb);
		gsio_scene_free(full);
		gsio_scene_free(kept);
		free(d);
	}
}

/* An allocator that counts the bytes it holds (a size word before each
 * block) and the most it held. */
typedef struct byte_count {
	size_t live, peak;
} byte_count;

static void *count_alloc(void *user, size_t size)
{
	byte_count *b = user;
	size_t *p = malloc(size + 16);
	if (!p) return NULL;
	p[0] = size;
	b->live += size;
	if (b->live > b->peak) b->peak = b->live;
	return (uint8_t *)p + 16;
}

static void count_free(void *user, void *ptr)
{
	if (!ptr) return;
	byte_count *b = user;
	size_t *p = (size_t *)(void *)((uint8_t *)ptr - 16);
	b->live -= p[0];
	free(p);
}

/** gsio_wad_decode() copies the bytes into the file's arena, or with
 *  GSIO_OPT_BORROW points its lumps into the caller's; a level borrows the
 *  bytes of its WADs, so a WAD of 2 MB (one 2 MB lump the level does not
 *  use) costs the level's arena none of it. */
static void test_wad_borrowed(void **state)
{
	(void)state;
	size_t size;
	uint8_t *d = make_dds_wad(6, true, &size);
	gsio_error err;
	gsio_opts o = {0};
	for (int borrow = 0; borrow < 2; borrow++) {
		o.flags = borrow ? GSIO_OPT_BORROW : 0;
		gsio_wad_file *w = gsio_wad_decode(d, size, "x.wad", &o, &err);
		assert_non_null(w);
		bool inside = w->lumps[0].data >= d && w->lumps[0].data < d + size;
		assert_true(inside == (bool)borrow);
		gsio_wad_file_free(w);
	}
	free(d);

	// The DDS WAD with a second lump of 2 MB added after the first.
	uint8_t *small = make_dds_wad(6, true, &size);
	size_t filler = (size_t)2 << 20, lump = size - 12 - 32, big = size + filler + 32;
	uint8_t *b = calloc(1, big);
	assert_non_null(b);
	memcpy(b, small, 12 + lump);
	put32le(b, 4, 2);
	put32le(b, 8, (uint32_t)(12 + lump + filler));
	uint8_t *e = b + 12 + lump + filler;
	memcpy(e, small + 12 + lump, 32);
	put32le(e, 32, (uint32_t)(12 + lump));
	put32le(e, 36, (uint32_t)filler);
	put32le(e, 40, (uint32_t)filler);
	e[44] = 0x40 + 5;
	memcpy(e + 48, "filler", 6);
	byte_count bc = {0, 0};
	gsio_allocator al = {count_alloc, count_free, &bc};
	o.flags = 0;
	o.allocator = &al;
	gsio_scene *s = load_level_with_wad_opts("/tmp/gsio-wad-borrow-XXXXXX", "big.wad", "big.wad", "ddstex", b,
	                                         big, &o);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 8);
	gsio_scene_free(s);
	assert_int_equal(bc.live, 0);
	print_message("level with a %zu-byte WAD: its allocations peaked at %zu bytes\n", big, bc.peak);
	assert_true(bc.peak < filler);
	free(b);
	free(small);
}

static void test_wad_dds(void **state)
{
	(void)state;
	gsio_error err;
	for (int variant = 0; variant < 2; variant++) {
		size_t size;
		uint8_t *d = make_dds_wad(variant ? 14 : 6, variant == 0, &size);
		gsio_wad_file *w = gsio_wad_decode(d, size, "dds.wad", NULL, &err);
		assert_non_null(w);
		assert_int_equal(w->lumps_count, 1);
		assert_int_equal(w->lumps[0].width, 8);
		assert_int_equal(w->lumps[0].height, 4);
		uint8_t *rgba;
		if (gsio_wad_decode_lump(w, 0, NULL, &rgba, &err)) fail_msg("%s", err.message);
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 8; x++) {
				const uint8_t *p = rgba + 4 * (8 * y + x);
				assert_int_equal(p[0], x < 4 ? 255 : 0);
				assert_int_equal(p[1], 0);
				assert_int_equal(p[2], x < 4 ? 0 : 255);
				assert_int_equal(p[3], 255);
			}
		free(rgba);
		gsio_wad_file_free(w);
		// Cut short: a clean error, no texture.
		w = gsio_wad_decode(d, size, "dds.wad", NULL, &err);
		assert_non_null(w);
		w->lumps[0].size -= 8;
		assert_int_not_equal(gsio_wad_decode_lump(w, 0, NULL, &rgba, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
		gsio_wad_file_free(w);
		free(d);
	}
	// In a level: a block textured from the DDS lump, no placeholder.
	size_t size;
	uint8_t *d = make_dds_wad(6, true, &size);
	// DDS.WAD found case-insensitively from a Windows path
	gsio_scene *s = load_level_with_wad("/tmp/gsio-wad-dds-XXXXXX", "DDS.WAD", "C:\\games\\dds.wad",
	                                    "ddstex", d, size);
	free(d);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("warning: %s\n", s->warnings[i]);
	assert_int_equal(s->warnings_count, 0);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 8);
	assert_int_equal(s->images[0].height, 4);
	assert_null(gsio_extras_get(&s->images[0].extras, "gsio:placeholder"));
	assert_int_equal(s->images[0].rgba[0], 255);
	assert_int_equal(s->images[0].rgba[4 * 7 + 2], 255);
	gsio_scene_free(s);
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

/* A level of many textures and many blocks costs memory in proportion to
 * them: 2 000 textures in one block, then 2 000 blocks of one face each,
 * under a 48 MB limit the level needs 37 MB of (the placeholders: 16 KB a
 * texture). A part per texture of the level in every block (8 MB a block
 * here) or a copy of the warnings per warning went past it. Names match
 * as the engine matches them (any case), and each block's parts are its
 * textures in order of first use, faces in file order. */
enum { MANY_T = 2000, MANY_B = 2000 };

/* The text of that level (malloc'd; its length in *len). */
static char *many_textures_text(size_t *len)
{
	enum { T = MANY_T, B = MANY_B };
	size_t cap = 200 + T * 90 + B * 160 + 64;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = (size_t)snprintf(text, cap, "// WMP2\nversion 710\nblocks %d entities 0 objects 1\n",
	                            B + 1);
	n += (size_t)snprintf(text + n, cap - n,
	                      "block 0 { vertices 4 faces %d 0 0 0 64 0 0 0 64 0 0 0 64\n", T);
	// Faces alternate windings; face i has texture t<i>, face 1 also t0's
	// name in capitals (the same texture), so block 0 has T - 1 parts.
	for (int i = 0; i < T; i++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "3 %s : %s%d ( 1 0 0 0 ) ( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef\n",
		                      i % 2 ? "0 2 1" : "0 1 2", i == 1 ? "T" : "t", i == 1 ? 0 : i);
	n += (size_t)snprintf(text + n, cap - n, "{ 0000 ndef 0 } }\n");
	for (int b = 1; b <= B; b++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "block %d { vertices 3 faces 1 0 0 0 64 0 0 0 64 0 3 0 1 2 : T%d ( 1 0 0 0 ) "
		                      "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n",
		                      b, b % 3);
	n += (size_t)snprintf(text + n, cap - n, "object 0 { (0 0 0) (0 0 0) (1 1 1)");
	for (int b = 0; b <= B; b++) n += (size_t)snprintf(text + n, cap - n, " block %d", b);
	n += (size_t)snprintf(text + n, cap - n, " }\n");
	assert_true(n < cap);
	*len = n;
	return text;
}

/* That level decoded (*f, freed by the caller) and made a scene with flags
 * under a memory limit of limit_mb. */
static gsio_scene *many_textures_scene(gsio_wmp_file **f, uint32_t flags, size_t limit_mb)
{
	size_t n;
	char *text = many_textures_text(&n);
	gsio_error err;
	if (!*f && !(*f = gsio_wmp_decode((const uint8_t *)text, n, "many", NULL, &err))) fail_msg("%s", err.message);
	free(text);
	gsio_opts o = {0};
	o.memory_limit = limit_mb << 20;
	o.flags = flags;
	gsio_scene *s = gsio_wmp_to_scene(*f, "/tmp/nonexistent-gsio-dir/many.wmp", &o, &err);
	if (!s) fail_msg("%s", err.message);
	return s;
}

static void test_many_textures(void **state)
{
	(void)state;
	enum { T = MANY_T, B = MANY_B };
	gsio_wmp_file *f = NULL;
	gsio_scene *s = many_textures_scene(&f, 0, 48);
	gsio_error err;
	// t0 (also as T0), t2 ... t<T-1>, and T1 from the small blocks.
	assert_int_equal(s->materials_count, T);
	assert_int_equal(s->images_count, T);
	assert_int_equal(s->meshes_count, B + 1);
	assert_int_equal(s->warnings_count, T); // a placeholder each
	const gsio_mesh *m0 = &s->meshes[0];
	assert_int_equal(m0->parts_count, T - 1);
	// t0 (faces 0 and 1), then t2, t3, ...: one triangle each but the first.
	assert_string_equal(s->materials[m0->parts[0].material].name, "t0");
	assert_int_equal(m0->parts[0].index_count, 6);
	for (size_t p = 1; p < m0->parts_count; p++) {
		char want[32];
		snprintf(want, sizeof(want), "t%zu", p + 1);
		assert_string_equal(s->materials[m0->parts[p].material].name, want);
		assert_int_equal(m0->parts[p].first_index, 3 * (p + 1));
		assert_int_equal(m0->parts[p].index_count, 3);
	}
	// Faces 0 and 1 in file order: reversed windings (0 2 1, then 0 1 2
	// read backwards from file order 0 1 2 and 0 2 1), different normals.
	assert_true(m0->normals[2] * m0->normals[3 * 3 + 2] < 0);
	for (int b = 1; b <= B; b++) {
		const gsio_mesh *m = &s->meshes[b];
		assert_int_equal(m->parts_count, 1);
		// T0 is t0's texture, T2 t2's; T1 is a texture of its own.
		const char *name = s->materials[m->parts[0].material].name;
		if (b % 3 == 0) assert_string_equal(name, "t0");
		else if (b % 3 == 2) assert_string_equal(name, "t2");
		else assert_string_equal(name, "T1");
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
}

/* Every placeholder points to one PNG file of gsio's own (98 bytes, not in
 * the scene's arena): with GSIO_OPT_NO_PIXELS (as mdl2gltf loads) it is the
 * picture, so the level of 2 000 missing textures above loads under a 4 MB
 * limit (its 2 000 RGBA checkers alone are 32 MB); without, the images have
 * the same file beside their RGBA and indices. The file decodes to the
 * checker: 64 x 64, squares of 8 x 8, the top left one dark, greys 90 and
 * 200, opaque, which is also every normal load's RGBA and indices. */
static void test_placeholders_shared(void **state)
{
	(void)state;
	gsio_wmp_file *f = NULL;
	gsio_scene *s = many_textures_scene(&f, GSIO_OPT_NO_PIXELS, 4);
	gsio_scene *full = many_textures_scene(&f, 0, 48);
	gsio_error err;
	assert_int_equal(s->images_count, MANY_T);
	assert_int_equal(full->images_count, MANY_T);
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_image png;
	memset(&png, 0, sizeof(png));
	if (!gsioi_image_file_decode(s->images[0].file_data, s->images[0].file_size, "placeholder", a, &png, &err))
		fail_msg("%s", err.message);
	assert_int_equal(png.width, 64);
	assert_int_equal(png.height, 64);
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 64; x++) {
			const uint8_t g = ((x / 8) ^ (y / 8)) & 1 ? 200 : 90, want[4] = {g, g, g, 255};
			assert_memory_equal(png.rgba + 4 * ((size_t)y * 64 + x), want, 4);
		}
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i], *fi = &full->images[i];
		assert_non_null(gsio_extras_get(&im->extras, "gsio:placeholder"));
		assert_null(im->rgba);
		assert_null(im->indices);
		assert_ptr_equal(im->file_data, s->images[0].file_data);
		assert_int_equal(im->file_size, 98);
		assert_int_equal(im->width, 64);
		assert_int_equal(im->height, 64);
		assert_string_equal(im->name, fi->name);
		assert_ptr_equal(fi->file_data, im->file_data);
		assert_int_equal(fi->file_size, im->file_size);
		assert_ptr_equal(fi->indices, full->images[0].indices);
		assert_int_equal(fi->palette_count, 2);
		assert_memory_equal(fi->rgba, png.rgba, 64 * 64 * 4);
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	if (gsio_scene_validate(full, &err)) fail_msg("%s", err.message);
	gsioi_arena_destroy(a);
	gsio_scene_free(full);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
}

/* A sprite of `placed` placements of one 64 x 64 TGA in folder dir. */
static gsio_scene *sprites_level(const char *dir, size_t placed)
{
	gsio_wmp_file f;
	memset(&f, 0, sizeof(f));
	f.dialect = GSIO_WMP_BINARY;
	f.version = 710;
	f.objects_count = placed + 1;
	f.entities_count = placed;
	f.objects = calloc(placed + 1, sizeof(*f.objects));
	f.entities = calloc(placed, sizeof(*f.entities));
	gsio_wmp_ref *refs = calloc(2 * placed, sizeof(*refs));
	assert_true(f.objects && f.entities && refs);
	f.objects[0].refs = refs;
	f.objects[0].refs_count = placed;
	for (size_t i = 0; i < placed; i++) {
		f.entities[i].type = 0x100;
		f.entities[i].file.s = "p.tga";
		refs[i].kind = GSIO_WMP_OBJECT;
		refs[i].index = (uint32_t)(i + 1);
		gsio_wmp_object *o = &f.objects[i + 1];
		o->position[0] = 10.0 * (double)i;
		o->scale[0] = o->scale[1] = o->scale[2] = 1;
		o->refs = &refs[placed + i];
		o->refs_count = 1;
		refs[placed + i].kind = GSIO_WMP_ENTITY;
		refs[placed + i].index = (uint32_t)i;
	}
	f.objects[0].scale[0] = f.objects[0].scale[1] = f.objects[0].scale[2] = 1;
	char lvl[128];
	snprintf(lvl, sizeof(lvl), "%s/l.wmp", dir);
	gsio_error err;
	gsio_scene *s = gsio_wmp_to_scene(&f, lvl, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	free(refs);
	free(f.objects);
	free(f.entities);
	return s;
}

/* A level of `objects` empty objects under the root, the root holding a
 * level element when `with_level` (its sun is a node of the scene). */
static gsio_scene *objects_level(size_t objects, bool with_level)
{
	gsio_wmp_file f;
	memset(&f, 0, sizeof(f));
	f.dialect = GSIO_WMP_BINARY;
	f.version = 710;
	f.objects_count = objects + 1;
	f.objects = calloc(objects + 1, sizeof(*f.objects));
	gsio_wmp_ref *refs = calloc(objects + 1, sizeof(*refs));
	gsio_wmp_level level;
	memset(&level, 0, sizeof(level));
	assert_true(f.objects && refs);
	f.objects[0].refs = refs;
	f.objects[0].refs_count = objects + (with_level ? 1 : 0);
	for (size_t i = 0; i < objects; i++) {
		refs[i].kind = GSIO_WMP_OBJECT;
		refs[i].index = (uint32_t)(i + 1);
		f.objects[i + 1].scale[0] = f.objects[i + 1].scale[1] = f.objects[i + 1].scale[2] = 1;
	}
	if (with_level) {
		f.levels = &level;
		f.levels_count = 1;
		refs[objects].kind = GSIO_WMP_LEVEL;
		refs[objects].index = 0;
	}
	f.objects[0].scale[0] = f.objects[0].scale[1] = f.objects[0].scale[2] = 1;
	gsio_error err;
	gsio_scene *s = gsio_wmp_to_scene(&f, "/tmp/nonexistent-gsio-dir/o.wmp", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	free(refs);
	free(f.objects);
	return s;
}

/* The scene's node array is made once at the count the level states: a
 * node an object, one more per element after an object's first, and the
 * sun's under a level element (build_level adds it). A sun left out of the
 * count would double the array of 1 001 nodes into 2 002 (the first array
 * staying in the arena): the level element may cost its sun node and the
 * scene-wide facts only, a few KB. */
static void test_nodes_reserved(void **state)
{
	(void)state;
	enum { N = 1000 };
	gsio_scene *bare = objects_level(N, false), *lit = objects_level(N, true);
	assert_int_equal(bare->nodes_count, N + 1);
	assert_int_equal(lit->nodes_count, N + 2); // and the sun
	size_t suns = 0;
	for (size_t i = 0; i < lit->nodes_count; i++) suns += lit->nodes[i].name && !strcmp(lit->nodes[i].name, "sun");
	assert_int_equal(suns, 1);
	size_t a = gsioi_arena_used(bare->arena), b = gsioi_arena_used(lit->arena);
	print_message("%d objects: %zu bytes of scene, %zu with a level element (a node is %zu)\n", N, a, b,
	              sizeof(gsio_node));
	assert_true(b > a);
	assert_true(b - a < 16 * 1024);
	gsio_scene_free(bare);
	gsio_scene_free(lit);
}

/* One sprite placed 201 times: one image and one material, a quad per
 * placement, and the file read and decoded once: the scene holds about
 * what one placement's does. A decoded copy per placement (16 KB here)
 * would make a level of 1 000 posters 260 MB. */
static void test_sprite_placed_often(void **state)
{
	(void)state;
	char dir[64] = "/tmp/gsio-sprites-XXXXXX", tga[128];
	assert_non_null(mkdtemp(dir));
	snprintf(tga, sizeof(tga), "%s/p.tga", dir);
	size_t size = 18 + 64 * 64 * 4;
	uint8_t *d = calloc(1, size);
	assert_non_null(d);
	d[2] = 2;                         // uncompressed true colour
	d[12] = 64, d[14] = 64, d[16] = 32; // 64 x 64, 32 bits
	d[17] = 8 | 0x20;                 // 8 alpha bits, top-left origin
	for (size_t i = 18; i < size; i++) d[i] = (uint8_t)(i * 7);
	t_write_file(tga, d, size);
	free(d);
	gsio_scene *one = sprites_level(dir, 1), *many = sprites_level(dir, 201);
	remove(tga);
	rmdir(dir);
	assert_int_equal(one->images_count, 1);
	assert_int_equal(many->images_count, 1);
	assert_int_equal(many->materials_count, 1);
	assert_int_equal(many->meshes_count, 201);
	assert_int_equal(many->warnings_count, 0);
	for (size_t i = 0; i < many->meshes_count; i++) {
		const gsio_mesh *m = &many->meshes[i];
		assert_int_equal(m->parts_count, 1);
		assert_int_equal(m->parts[0].material, 0);
		assert_true(m->bbox_max[1] == 32 && m->bbox_max[2] == 32 && m->bbox_min[2] == -32);
	}
	size_t extra = gsioi_arena_used(many->arena) - gsioi_arena_used(one->arena);
	if (extra > 200 * 64 * 64) fail_msg("200 more placements took %zu bytes", extra);
	gsio_error err;
	if (gsio_scene_validate(many, &err)) fail_msg("%s", err.message);
	gsio_scene_free(one);
	gsio_scene_free(many);
}

static void test_alloc_failure(void **state)
{
	(void)state;
	const char *path = SEED_A4;
	if (t_corpus_dir()) path = t_corpus_path("lottershock/Game/Level/menue.wmp");
	char p[1024];
	snprintf(p, sizeof(p), "%s", path);
	t_load_input in = {NULL, 0, p, NULL, NULL};
	print_message("allocation failure: all %zu points handled\n",
	              t_each_alloc_fails(p, t_try_load, &in, T_ANY_ERROR, 1).failures);
	// A level placing skinned models (bestiary with the game's Assets, 582
	// allocations): every 3rd allocation point fails in turn (all of them
	// take too long under ASan); nothing leaks, the error is clean.
	if (!t_corpus_dir()) return;
	snprintf(p, sizeof(p), "%s", lottershock("Level/bestiary.wmp"));
	char assets[1024];
	snprintf(assets, sizeof(assets), "%s", lottershock("Assets"));
	const char *paths[1] = {assets};
	gsio_opts o = {0};
	o.search_paths = paths;
	o.search_paths_count = 1;
	t_load_input level = {NULL, 0, p, &o, NULL};
	t_alloc_run run = t_each_alloc_fails(p, t_try_load, &level, T_ANY_ERROR, 3);
	print_message("bestiary: %zu of %zu allocation points failed in turn, all handled\n", run.failures,
	              run.calls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_corpus),
	    cmocka_unit_test(test_binary_corpus),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_seed_cube),
	    cmocka_unit_test(test_scene_all),
	    cmocka_unit_test(test_uvs_against_wmb),
	    cmocka_unit_test(test_geometry_against_wmb),
	    cmocka_unit_test(test_entities_against_wmb),
	    cmocka_unit_test(test_bestiary_instances),
	    cmocka_unit_test(test_wad_dds),
	    cmocka_unit_test(test_wad_borrowed),
	    cmocka_unit_test(test_wad_level_no_pixels),
	    cmocka_unit_test(test_wad_pal8_level),
	    cmocka_unit_test(test_truncation_corruption),
	    cmocka_unit_test(test_crafted),
	    cmocka_unit_test(test_colours_out_of_order),
	    cmocka_unit_test(test_header_counts_are_hints),
	    cmocka_unit_test(test_many_textures),
	    cmocka_unit_test(test_placeholders_shared),
	    cmocka_unit_test(test_nodes_reserved),
	    cmocka_unit_test(test_sprite_placed_often),
	    cmocka_unit_test(test_alloc_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
