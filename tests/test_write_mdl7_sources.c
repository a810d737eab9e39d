/* The MDL7 writer on other sources: every corpus MDL5 (vertex frames), MD5
 * Bob (33 joints, 140 frames) and a rig built here (three bones, two
 * animations, vertices with six influences, long bone names): bones and
 * weights kept, the poses of each clip within 1e-4 after reading back; every
 * skin encoding (8-bit, 565, 4444, 888, 8888, with mips; an external name)
 * read back with its type and pixels; bad
 * scenes refused with a clear error and no file left; an allocation failure
 * at every index of one write. */
#define _POSIX_C_SOURCE 200809L
#include "mdl7w_test_util.h"

#include "gsio_mdl7.h"
#include "gsio_write.h"
#include "gsioi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct warnings {
	int count;
	char last[512];
} warnings;

static void note_warning(void *user, const char *msg)
{
	warnings *w = user;
	w->count++;
	snprintf(w->last, sizeof(w->last), "%s", msg);
	print_message("    warning: %s\n", msg);
}

/* Writes s as MDL7 and reads it back (freed by the caller). */
static gsio_scene *through_mdl7(const gsio_scene *s, warnings *w, const char *what)
{
	gsio_mdl7_write_opts wo = {0};
	wo.warn = note_warning;
	wo.warn_user = w;
	uint8_t *out;
	size_t size;
	gsio_error err;
	if (gsio_mdl7_write(s, &wo, &out, &size, &err)) fail_msg("%s: %s", what, err.message);
	gsio_scene *b = gsio_load_memory(out, size, what, NULL, &err);
	if (!b) fail_msg("%s: read back: %s", what, err.message);
	gsio_write_free(NULL, out);
	return b;
}

/* Keys 0, the middle and the last of every animation: every mesh (corner by
 * corner) and every joint of the source within tol of the re-read scene. */
static void assert_clip_poses(const gsio_scene *a, const gsio_scene *b, double tol, const char *what)
{
	assert_int_equal(a->animations_count, b->animations_count);
	for (size_t an = 0; an < a->animations_count; an++) {
		size_t n = a->animations[an].frames_count;
		assert_int_equal(n, b->animations[an].frames_count);
		size_t keys[3] = {0, n / 2, n - 1};
		for (int k = 0; k < 3; k++) {
			for (size_t m = 0; m < a->meshes_count; m++) {
				double g = w7_pose_gap(a, m, (int32_t)an, b, m, (int32_t)an, keys[k]);
				if (g > tol) fail_msg("%s: mesh %zu, animation %zu key %zu: %g apart", what, m, an, keys[k], g);
			}
			for (size_t j = 0; a->skins_count && j < a->skins[0].joints_count; j++) {
				const char *name = a->nodes[a->skins[0].joints[j]].name;
				float pa[3], pb[3];
				assert_true(w7_joint_position(a, name, (int32_t)an, keys[k], pa));
				if (!w7_joint_position(b, name, (int32_t)an, keys[k], pb)) fail_msg("%s: no joint '%s'", what, name);
				for (int c = 0; c < 3; c++)
					if (fabs((double)pa[c] - (double)pb[c]) > tol)
						fail_msg("%s: joint '%s' key %zu: %g vs %g", what, name, keys[k], (double)pa[c], (double)pb[c]);
			}
		}
		print_message("  %s: '%s' (%zu keys) -> '%s': keys 0, %zu, %zu within %g\n", what,
		              a->animations[an].name, n, b->animations[an].name, n / 2, n - 1, tol);
	}
}

// -- MDL5 and MD5

static void test_mdl5_sources(void **state)
{
	(void)state;
	static const char *const names[] = {"mdl/PhosphoricAcid_MDl5.mdl", "mdl/mdl5-earth.mdl",
	                                    "mdl/minigun_mdl5.mdl", "lottershock/Game/Assets/electrical1_5.mdl"};
	T_REQUIRE_CORPUS();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (access(t_corpus_path(names[i]), R_OK)) continue;
		gsio_scene *a = t_load_corpus(names[i], NULL);
		warnings w = {0};
		gsio_scene *b = through_mdl7(a, &w, names[i]);
		assert_int_equal(a->meshes_count, b->meshes_count);
		assert_int_equal(a->meshes[0].index_count, b->meshes[0].index_count);
		// One frame is the static model: MDL7 makes no morph frame of it.
		size_t nf = a->meshes[0].frames_count;
		assert_int_equal(nf > 1 ? nf : 0, b->meshes[0].frames_count);
		assert_true(w7_pose_gap(a, 0, -1, b, 0, -1, 0) <= 1e-4);
		for (size_t f = 0; nf > 1 && f < nf; f++) {
			assert_string_equal(a->meshes[0].frames[f].name, b->meshes[0].frames[f].name);
			assert_true(w7_pose_gap(a, 0, -1, b, 0, -1, f) <= 1e-4);
		}
		assert_clip_poses(a, b, 1e-4, names[i]);
		print_message("  %s: %zu frames, %zu animations kept\n", names[i], a->meshes[0].frames_count,
		              a->animations_count);
		gsio_scene_free(b);
		gsio_scene_free(a);
	}
}

static void test_md5_bob(void **state)
{
	(void)state;
	gsio_scene *a = t_load_corpus("md5/bob/Bob.md5mesh", NULL);
	assert_int_equal(a->skins[0].joints_count, 33);
	assert_int_equal(a->animations[0].frames_count, 140);
	warnings w = {0};
	gsio_scene *b = through_mdl7(a, &w, "Bob");
	w7_assert_same_skeleton(a, b, "Bob");
	assert_int_equal(b->skins[0].joints_count, 33);
	assert_int_equal(b->animations_count, 1);
	assert_int_equal(b->animations[0].frames_count, 140);
	assert_clip_poses(a, b, 1e-4, "Bob");
	gsio_scene_free(b);
	gsio_scene_free(a);
}

// -- A rig built here

static void quat_axis(float q[4], int axis, double angle)
{
	q[0] = q[1] = q[2] = 0;
	q[axis] = (float)sin(angle / 2);
	q[3] = (float)cos(angle / 2);
}

/* Three bones along +z (root at the origin, then 1 and 2 up), long names
 * that collide once cut to 19 bytes unless `short_names`; a strip of 8
 * quads up the bones, each vertex weighted to the bones by its height, and
 * vertex 0 with six influences (three joints twice, as two weights each);
 * animations "bend" (5 keys) and "twist2" (4 keys). */
static gsio_scene *rig(bool short_names)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	const char *names[3] = {"armature_bone_root_long", "armature_bone_root_long_2", "armature_bone_root_long_3"};
	const char *shorts[3] = {"root", "R\303\274cken", "head"}; // "Rücken" in UTF-8
	int32_t j[3];
	for (int i = 0; i < 3; i++) {
		j[i] = gsio_scene_add_node(s, short_names ? shorts[i] : names[i], i ? j[i - 1] : -1, &err);
		assert_true(j[i] >= 0);
		s->nodes[j[i]].translation[2] = i ? 1.0f : 0.0f;
	}
	size_t rows = 9, nv = 2 * rows;
	int32_t mi = gsio_scene_add_mesh(s, "strip", nv, 6 * (rows - 1), GSIO_MESH_NORMALS, -1, &err);
	int32_t node = gsio_scene_add_node(s, "strip", -1, &err);
	s->nodes[node].mesh = mi;
	gsio_mesh *m = &s->meshes[mi];
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < 2; c++) {
			float *p = m->positions + 3 * (2 * r + c);
			p[0] = (float)c * 0.5f - 0.25f;
			p[2] = (float)r * 0.25f;
			m->normals[3 * (2 * r + c) + 1] = -1;
		}
	for (size_t r = 0; r + 1 < rows; r++) {
		uint32_t a = (uint32_t)(2 * r), t[6] = {a, a + 1, a + 3, a, a + 3, a + 2};
		memcpy(m->indices + 6 * r, t, sizeof(t));
	}
	int32_t sk = gsio_scene_add_skin(s, "skin", 3, &err);
	for (int i = 0; i < 3; i++) {
		s->skins[sk].joints[i] = j[i];
		s->skins[sk].inverse_bind[16 * i + 14] = -(float)i;
	}
	m->skin = sk;
	gsio_weights *w = &m->weights;
	w->offsets = gsio_scene_alloc(s, nv + 1, sizeof(uint32_t), &err);
	w->joints = gsio_scene_alloc(s, 3 * nv + 6, sizeof(uint32_t), &err);
	w->values = gsio_scene_alloc(s, 3 * nv + 6, sizeof(float), &err);
	size_t k = 0;
	for (size_t v = 0; v < nv; v++) {
		float z = m->positions[3 * v + 2];
		if (v == 0) { // six influences: 0.3, 0.25, 0.2, 0.1, 0.1, 0.05
			static const uint32_t jj[6] = {0, 1, 2, 0, 1, 2};
			static const float ww[6] = {0.3f, 0.25f, 0.2f, 0.1f, 0.1f, 0.05f};
			for (int i = 0; i < 6; i++) w->joints[k] = jj[i], w->values[k++] = ww[i];
		} else {
			float a = z <= 1 ? 1 - z : 0, c = z >= 1 ? z - 1 : 0, b = 1 - a - c;
			float vals[3] = {a, b, c};
			for (uint32_t i = 0; i < 3; i++)
				if (vals[i] > 0) w->joints[k] = i, w->values[k++] = vals[i];
		}
		w->offsets[v + 1] = (uint32_t)k;
	}
	w->count = k;
	const char *anims[2] = {"bend", "twist2"};
	size_t keys[2] = {5, 4};
	for (int an = 0; an < 2; an++) {
		int32_t ai = gsio_scene_add_animation(s, anims[an], 24, keys[an], 3, &err);
		gsio_animation *A = &s->animations[ai];
		for (int i = 0; i < 3; i++) {
			gsio_channel *ch = &A->channels[i];
			ch->node = j[i];
			ch->path = GSIO_PATH_ROTATION;
			ch->values = gsio_scene_alloc(s, 4 * keys[an], sizeof(float), &err);
			for (size_t kk = 0; kk < keys[an]; kk++)
				quat_axis(ch->values + 4 * kk, an ? 2 : 0, 0.2 * (double)kk * (i + 1));
		}
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	return s;
}

static void test_rig(void **state)
{
	(void)state;
	gsio_scene *a = rig(true);
	warnings w = {0};
	gsio_scene *b = through_mdl7(a, &w, "rig");
	// Vertex 0's six influences: the strongest four kept, renormalised.
	assert_int_equal(w.count, 1);
	assert_non_null(strstr(w.last, "strongest 4"));
	const gsio_mesh *mb = &b->meshes[0];
	float total = 0;
	for (uint32_t k = mb->weights.offsets[0]; k < mb->weights.offsets[1]; k++) total += mb->weights.values[k];
	assert_true(fabsf(total - 1) < 1e-6f);
	// The other vertices as they were: take vertex 0's weights out of both.
	gsio_scene *a1 = rig(true);
	gsio_weights *wa = &a1->meshes[0].weights;
	wa->values[0] = 1;
	for (int i = 1; i < 6; i++) wa->values[i] = 0;
	gsio_scene *b1 = through_mdl7(a1, &w, "rig");
	w7_assert_same_skeleton(a1, b1, "rig");
	assert_int_equal(b1->animations_count, 2);
	assert_string_equal(b1->animations[0].name, "bend");
	assert_string_equal(b1->animations[1].name, "twist2"); // a clip name ending in a digit
	assert_clip_poses(a1, b1, 1e-4, "rig");
	// Names are stored in CP1252, as the engine reads them: "R\xfccken".
	uint8_t *bytes = NULL;
	size_t size = 0;
	gsio_error err;
	if (gsio_mdl7_write(a1, NULL, &bytes, &size, &err)) fail_msg("%s", err.message);
	bool cp1252 = false;
	for (size_t i = 0; i + 7 <= size && !cp1252; i++) cp1252 = !memcmp(bytes + i, "R\xfc" "cken\0", 7);
	assert_true(cp1252);
	free(bytes);
	// Long names that collide once cut: made unique, with a warning.
	gsio_scene *a2 = rig(false);
	warnings w2 = {0};
	gsio_scene *b2 = through_mdl7(a2, &w2, "rig, long names");
	assert_non_null(strstr(w2.last, "collide"));
	const gsio_skin *k2 = &b2->skins[0];
	assert_int_equal(k2->joints_count, 3);
	for (size_t i = 0; i < 3; i++)
		for (size_t o = 0; o < i; o++)
			assert_string_not_equal(b2->nodes[k2->joints[i]].name, b2->nodes[k2->joints[o]].name);
	assert_int_equal(strlen(b2->nodes[k2->joints[0]].name), 19);
	gsio_scene *all[] = {a, b, a1, b1, a2, b2};
	for (size_t i = 0; i < 6; i++) gsio_scene_free(all[i]);
}

// -- Skin types

/* The rig with a 16 x 8 skin of varied pixels (alpha too) written with each
 * encoding, with and without mips, and as an external name: read back with
 * that type; 8888 pixel for pixel, the others as their decoder gives the
 * encoded pixels. */
static void test_skin_types(void **state)
{
	(void)state;
	static const struct {
		gsio_skin_encoding e;
		int code;
	} encodings[] = {{GSIO_SKIN_PAL8, 0}, {GSIO_SKIN_RGB565, 2}, {GSIO_SKIN_ARGB4444, 3},
	                 {GSIO_SKIN_BGR888, 4}, {GSIO_SKIN_BGRA8888, 5}};
	gsio_error err;
	for (int mips = 0; mips < 2; mips++)
		for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
			gsio_scene *s = rig(true);
			int32_t mat = gsio_scene_add_material(s, "skin", &err);
			int32_t im = gsio_scene_add_image(s, "skin", 16, 8, NULL, &err);
			uint8_t *px = s->images[im].rgba;
			for (size_t k = 0; k < 16 * 8 * 4; k++) px[k] = (uint8_t)(k * 37 + k / 4);
			s->materials[mat].base_color_texture.image = im;
			s->meshes[0].parts[0].material = mat;
			gsio_mdl7_write_opts wo = {0};
			wo.skin_encoding = encodings[i].e;
			wo.mipmaps = mips;
			uint8_t *out;
			size_t size;
			if (gsio_mdl7_write(s, &wo, &out, &size, &err)) fail_msg("%s", err.message);
			gsio_scene *b = gsio_load_memory(out, size, "skin.mdl", NULL, &err);
			assert_non_null(b);
			const gsio_extra *t = gsio_extras_get(&b->materials[0].extras, "gsio:skin_type");
			assert_non_null(t);
			assert_int_equal(t->i, encodings[i].code | (mips ? 8 : 0));
			const gsio_image *got = &b->images[b->materials[0].base_color_texture.image];
			assert_int_equal(got->width, 16);
			assert_int_equal(got->height, 8);
			uint8_t enc[16 * 8 * 4], want[16 * 8 * 4];
			assert_int_equal(gsio_encode_pixels((gsio_pixel_format)encodings[i].code, px, 128, NULL, enc), 0);
			assert_int_equal(gsio_decode_pixels((gsio_pixel_format)encodings[i].code, enc, 128, NULL, want), 0);
			t_assert_pixels(got->rgba, want, 128);
			if (encodings[i].code == 5) t_assert_pixels(got->rgba, px, 128);
			gsio_write_free(NULL, out);
			gsio_scene_free(b);
			gsio_scene_free(s);
		}
	// An external name instead of the pixels.
	gsio_scene *s = rig(true);
	int32_t mat = gsio_scene_add_material(s, "skin", &err);
	int32_t im = gsio_scene_add_image(s, "hero_body", 16, 8, NULL, &err);
	s->materials[mat].base_color_texture.image = im;
	s->meshes[0].parts[0].material = mat;
	gsio_mdl7_write_opts wo = {0};
	wo.skin_external = true;
	uint8_t *out;
	size_t size;
	assert_int_equal(gsio_mdl7_write(s, &wo, &out, &size, &err), 0);
	gsio_scene *b = gsio_load_memory(out, size, "/nonexistent/skin.mdl", NULL, &err);
	assert_non_null(b);
	const gsio_extra *x = gsio_extras_get(&b->materials[0].extras, "gsio:external_texture");
	assert_non_null(x);
	assert_string_equal(x->s, "hero_body.png");
	gsio_write_free(NULL, out);
	gsio_scene_free(b);
	gsio_scene_free(s);
}

// -- Bad scenes

/* Refused with a clear error, and nothing left on disk. */
static void expect_refused(const gsio_scene *s, const char *needle, gsio_error_code code)
{
	char dir[] = "/tmp/gsio_mdl7w_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/bad.mdl", dir);
	gsio_error err;
	if (!gsio_mdl7_write_file(s, path, NULL, &err)) fail_msg("a bad scene was written");
	print_message("  refused: %s\n", err.message);
	assert_int_equal(err.code, code);
	if (!strstr(err.message, needle)) fail_msg("'%s' does not say '%s'", err.message, needle);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 0);
	rmdir(dir);
}

static void test_bad_scenes(void **state)
{
	(void)state;
	gsio_error err;
	// NaN in a position: the validator's message.
	gsio_scene *s = rig(true);
	s->meshes[0].positions[4] = NAN;
	expect_refused(s, "meshes[0]", GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);
	// A weight naming a joint the skin does not have.
	s = rig(true);
	s->meshes[0].weights.joints[2] = 7;
	expect_refused(s, "weights", GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);
	// A skin 70000 pixels wide.
	s = rig(true);
	int32_t mat = gsio_scene_add_material(s, "wide", &err);
	int32_t im = gsio_scene_add_image(s, "wide", 70000, 1, NULL, &err);
	s->materials[mat].base_color_texture.image = im;
	s->meshes[0].parts[0].material = mat;
	expect_refused(s, "70000", GSIO_ERR_LIMIT);
	gsio_scene_free(s);
	// 65536 bones (a vertex names its bone in 16 bits, 0xFFFF none).
	s = rig(true);
	size_t nb = GSIO_MDL7_MAX_BONES + 1;
	int32_t sk = gsio_scene_add_skin(s, "many", nb, &err);
	assert_true(sk >= 0);
	int32_t first = -1;
	for (size_t i = 0; i < nb; i++) {
		int32_t n = gsio_scene_add_node(s, "b", first, &err);
		assert_true(n >= 0);
		if (first < 0) first = n;
		s->skins[sk].joints[i] = n;
	}
	s->meshes[0].skin = sk;
	expect_refused(s, "65535", GSIO_ERR_LIMIT);
	gsio_scene_free(s);
	// No mesh.
	s = gsio_scene_new(NULL, &err);
	expect_refused(s, "no mesh", GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);
}

static int try_write(void *ctx, gsio_allocator *al, gsio_error *err)
{
	gsio_mdl7_write_opts wo = {0};
	wo.allocator = al;
	uint8_t *out;
	size_t size;
	int rc = gsio_mdl7_write(ctx, &wo, &out, &size, err);
	if (rc) assert_null(out);
	else gsio_write_free(al, out);
	return rc;
}

/* An allocation failure at every index of one write of the rig, with a
 * skin: NOMEM or LIMIT, never a leak, then success. */
static void test_alloc_failures(void **state)
{
	(void)state;
	gsio_scene *s = rig(true);
	gsio_error err;
	int32_t mat = gsio_scene_add_material(s, "skin", &err);
	int32_t im = gsio_scene_add_image(s, "skin", 16, 8, NULL, &err);
	memset(s->images[im].rgba, 90, 16 * 8 * 4);
	s->materials[mat].base_color_texture.image = im;
	s->meshes[0].parts[0].material = mat;
	size_t k = t_each_alloc_fails("MDL7 write", try_write, s, T_NOMEM_OR_LIMIT, 1).calls;
	print_message("MDL7 write: %zu allocations, each failure handled\n", k);
	assert_true(k > 1);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rig),
	    cmocka_unit_test(test_skin_types),
	    cmocka_unit_test(test_bad_scenes),
	    cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_mdl5_sources),
	    cmocka_unit_test(test_md5_bob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
