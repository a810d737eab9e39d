/* MDL2 (GameStudio A3): the MDL3 header and skins around Quake 1's skin
 * vertex and triangle records. The corpus's one MDL2 file (mdl2-tree.mdl)
 * read, re-encoded byte for byte and turned into a scene with Quake's seam
 * rule; a hand-made file checks the rule without the corpus; bad input
 * (truncation, corrupted counts and indices, allocation failures) fails
 * cleanly. */
#include "test_util.h"

#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Helpers

static gsio_mdl_file *decode_ok(const uint8_t *data, size_t size, const char *name)
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, name, NULL, &err);
	if (!f) fail_msg("%s does not decode: %s", name, err.message);
	return f;
}

static gsio_scene *scene_ok(const gsio_mdl_file *f, const char *name)
{
	gsio_error err;
	gsio_scene *s = gsio_mdl_to_scene(f, name, NULL, &err);
	if (!s) fail_msg("%s: no scene: %s", name, err.message);
	if (gsio_scene_validate(s, &err)) fail_msg("%s: scene fails validation: %s", name, err.message);
	return s;
}

static uint8_t *read_tree(size_t *size)
{
	return t_read_corpus("mdl/mdl2-tree.mdl", size);
}

static void put_i32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}

// Offsets in mdl2-tree.mdl (84-byte header, one 128 x 128 565 skin).
#define TREE_UVS (84 + 4 + 128 * 128 * 2)
#define TREE_TRIS (TREE_UVS + 73 * 12)
#define TREE_FRAMES (TREE_TRIS + 132 * 16)

// -- The corpus file

static void test_tree_decode(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	gsio_mdl_file *f = decode_ok(data, size, "mdl2-tree.mdl");
	const gsio_mdl_header *h = &f->header;
	assert_int_equal(f->version, 2);
	assert_memory_equal(h->version, "MDL2", 4);
	assert_int_equal(h->numverts, 73);
	assert_int_equal(h->numtris, 132);
	assert_int_equal(h->numframes, 1);
	assert_int_equal(h->numskinverts, 0); // Quake's synctype slot: not a count here
	assert_int_equal(f->skins_count, 1);
	assert_int_equal(f->skins[0].type, 2); // RGB565, the header's 128 x 128
	assert_int_equal(f->skins[0].width, 128);
	assert_int_equal(f->skins[0].height, 128);
	assert_int_equal(f->mdl2_uvs_count, 73);
	assert_int_equal(f->mdl2_triangles_count, 132);
	assert_int_equal(f->uvs_count, 0);
	assert_int_equal(f->triangles_count, 0);
	// The parts add up to the file: 84 + skin + 73*12 + 132*16 + one frame.
	assert_int_equal(TREE_FRAMES + 28 + 73 * 4, size);
	assert_int_equal(f->trailing_size, 0);
	size_t seam = 0, back = 0;
	for (size_t i = 0; i < f->mdl2_uvs_count; i++) {
		assert_true(f->mdl2_uvs[i].onseam == 0 || f->mdl2_uvs[i].onseam == 1);
		seam += f->mdl2_uvs[i].onseam != 0;
		assert_in_range(f->mdl2_uvs[i].s, 0, 127);
		assert_in_range(f->mdl2_uvs[i].t, 0, 127);
	}
	for (size_t i = 0; i < f->mdl2_triangles_count; i++) back += !f->mdl2_triangles[i].facesfront;
	assert_int_equal(seam, 13);
	assert_int_equal(back, 66);
	assert_int_equal(f->frames[0].type, GSIO_MDL_FRAME_BYTE);
	assert_string_equal(f->frames[0].name, "sphere2");
	print_message("mdl2-tree.mdl: %d verts (%zu on the seam), %d tris (%zu back faces)\n",
	              (int)h->numverts, seam, (int)h->numtris, back);
	gsio_mdl_file_free(f);
	free(data);
}

static void test_tree_roundtrip(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	gsio_mdl_file *f = decode_ok(data, size, "mdl2-tree.mdl");
	T_ASSERT_ENCODES_TO(gsio_mdl_encode, f, data, size, "mdl2-tree.mdl");
	uint8_t *out;
	size_t out_size;
	gsio_error err;
	// Counts that disagree with the MDL2 arrays are refused.
	f->mdl2_uvs_count--;
	assert_int_not_equal(gsio_mdl_encode(f, &out, &out_size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_null(out);
	f->mdl2_uvs_count++;
	f->mdl2_triangles_count--;
	assert_int_not_equal(gsio_mdl_encode(f, &out, &out_size, &err), 0);
	f->mdl2_triangles_count++;
	gsio_mdl_file_free(f);
	free(data);
}

/* The scene's UVs and the seam rule: a back face's seam corner samples
 * s + skinwidth / 2. With the rule no triangle of the tree spans more than 31
 * texels across; without it 16 triangles stretch over 64 and more. */
static void test_tree_scene(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	gsio_mdl_file *f = decode_ok(data, size, "mdl2-tree.mdl");
	gsio_scene *s = scene_ok(f, "mdl2-tree");
	assert_string_equal(s->format, "MDL2");
	assert_int_equal(s->format_version, 2);
	assert_int_equal(s->source.vertices, 73);
	assert_int_equal(s->source.triangles, 132);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 128);
	assert_int_equal(s->meshes_count, 1);
	const gsio_mesh *m = &s->meshes[0];
	// 73 positions + 13 seam copies, all used by back faces: 86 (counted by hand).
	assert_int_equal(m->vertex_count, 86);
	assert_int_equal(m->index_count, 132 * 3);
	assert_int_equal(m->frames_count, 1);
	assert_non_null(m->uvs);
	float max_span = 0;
	for (size_t t = 0; t < 132; t++) {
		const gsio_mdl2_triangle *q = &f->mdl2_triangles[t];
		float lo = 2, hi = -1;
		for (int k = 0; k < 3; k++) {
			// Corners are reversed to counter-clockwise: scene corner k is file corner (3-k)%3.
			uint32_t v = m->indices[3 * t + (size_t)((3 - k) % 3)];
			int32_t x = q->xyz[k];
			assert_int_equal(m->source_vertex[v], x);
			const gsio_mdl2_uv *u = &f->mdl2_uvs[x];
			int32_t texel = u->s + (!q->facesfront && u->onseam ? 64 : 0);
			assert_float_equal(m->uvs[2 * v], ((float)texel + 0.5f) / 128.0f, 1e-6);
			assert_float_equal(m->uvs[2 * v + 1], ((float)u->t + 0.5f) / 128.0f, 1e-6);
			for (int c = 0; c < 3; c++) {
				const gsio_mdl_vertex *pv = &f->frames[0].verts[x];
				float want = f->header.scale[c] * (float)pv->pos[c] + f->header.offset[c];
				assert_float_equal(m->positions[3 * v + (size_t)c], want, 1e-5);
			}
			lo = fminf(lo, m->uvs[2 * v]);
			hi = fmaxf(hi, m->uvs[2 * v]);
		}
		max_span = fmaxf(max_span, hi - lo);
	}
	assert_true(max_span <= 31.5f / 128.0f);
	print_message("mdl2-tree: %zu vertices, widest triangle %.0f texels across\n",
	              m->vertex_count, (double)(max_span * 128));
	gsio_scene_free(s);
	gsio_mdl_file_free(f);
	// The registry reads it too (gsio info, mdl2gltf).
	gsio_error err;
	s = gsio_load_memory(data, size, "mdl2-tree.mdl", NULL, &err);
	if (!s) fail_msg("gsio_load_memory: %s", err.message);
	assert_string_equal(s->format, "MDL2");
	gsio_scene_free(s);
	free(data);
}

// -- A hand-made file: the seam rule with known numbers

/* Two triangles over the same three vertices, one front, one back; vertex 1
 * is on the seam. Skin 8 x 4 (8-bit). */
static uint8_t *make_small(size_t *size)
{
	uint8_t pixels[32] = {0};
	gsio_mdl2_uv uvs[3] = {{0, 1, 0}, {1, 0, 2}, {0, 2, 3}};
	gsio_mdl2_triangle tris[2] = {{1, {0, 1, 2}}, {0, {0, 1, 2}}};
	gsio_mdl_vertex verts[3] = {{{0, 0, 0}, 0, 0}, {{10, 0, 0}, 0, 0}, {{0, 10, 0}, 0, 0}};
	gsio_mdl_skin skin = {0, 8, 4, pixels, sizeof(pixels)};
	gsio_mdl_frame frame = {0};
	frame.type = GSIO_MDL_FRAME_BYTE;
	frame.bbox_max = verts[1];
	memcpy(frame.name, "pose", 5);
	frame.verts = verts;
	gsio_mdl_file f = {0};
	f.version = 2;
	memcpy(f.header.version, "MDL2", 4);
	for (int k = 0; k < 3; k++) f.header.scale[k] = 0.5f;
	f.header.numskins = 1;
	f.header.skinwidth = 8;
	f.header.skinheight = 4;
	f.header.numverts = 3;
	f.header.numtris = 2;
	f.header.numframes = 1;
	f.skins = &skin;
	f.skins_count = 1;
	f.mdl2_uvs = uvs;
	f.mdl2_uvs_count = 3;
	f.mdl2_triangles = tris;
	f.mdl2_triangles_count = 2;
	f.frames = &frame;
	f.frames_count = 1;
	uint8_t *out;
	gsio_error err;
	if (gsio_mdl_encode(&f, &out, size, &err)) fail_msg("encode: %s", err.message);
	assert_int_equal(*size, 84 + 4 + 32 + 3 * 12 + 2 * 16 + 28 + 3 * 4);
	return out;
}

static void test_small_seam(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_small(&size);
	gsio_mdl_file *f = decode_ok(data, size, "small.mdl");
	T_ASSERT_ENCODES_TO(gsio_mdl_encode, f, data, size, "small.mdl");
	gsio_scene *s = scene_ok(f, "small");
	const gsio_mesh *m = &s->meshes[0];
	// Vertices: 0, 1, 2 of the front face and the seam copy of 1 of the back one.
	assert_int_equal(m->vertex_count, 4);
	const uint32_t *ix = m->indices;
	// The back face (file order 0, 1, 2 -> scene 0, 2, 1): its corner for vertex 1.
	uint32_t seam = ix[3 + 2], plain = ix[2];
	assert_int_equal(m->source_vertex[seam], 1);
	assert_int_equal(m->source_vertex[plain], 1);
	assert_float_equal(m->uvs[2 * plain], 0.5f / 8.0f, 1e-6);        // s = 0
	assert_float_equal(m->uvs[2 * seam], (4 + 0.5f) / 8.0f, 1e-6);   // s + 8/2
	assert_float_equal(m->uvs[2 * seam + 1], (2 + 0.5f) / 4.0f, 1e-6);
	// Vertex 0 (not on the seam) is shared by both faces.
	assert_int_equal(ix[0], ix[3]);
	assert_float_equal(m->positions[3 * plain], 5.0f, 1e-6);
	gsio_scene_free(s);
	gsio_mdl_file_free(f);
	free(data);
}

// -- Bad input

static void expect_failure(const uint8_t *data, size_t size, const char *what,
                           gsio_error_code want)
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, "bad.mdl", NULL, &err);
	if (f) fail_msg("%s: decoding succeeded", what);
	if (want != GSIO_OK && err.code != want)
		fail_msg("%s: %s, expected %s (%s)", what, gsio_error_code_name(err.code),
		         gsio_error_code_name(want), err.message);
	if (err.offset < 0 || (size_t)err.offset > size)
		fail_msg("%s: error offset %lld outside the data", what, (long long)err.offset);
}

static void test_truncation(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	for (size_t cut = 0; cut < size; cut++) {
		uint8_t *part = t_prefix_copy(data, cut);
		expect_failure(part, cut, "truncated", cut < 4 ? GSIO_ERR_TRUNCATED : GSIO_OK);
		free(part);
	}
	size_t small_size;
	uint8_t *small = make_small(&small_size);
	for (size_t cut = 0; cut < small_size; cut++) expect_failure(small, cut, "small cut", GSIO_OK);
	free(small);
	print_message("mdl2-tree.mdl: %zu truncation points, each a clean error\n", size);
	free(data);
}

static void test_corruption(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	uint8_t *bad = malloc(size);
	assert_non_null(bad);
	struct {
		size_t at;
		int32_t value;
		gsio_error_code want;
		const char *what;
	} cases[] = {
	    {60, 100000, GSIO_ERR_CORRUPT, "numverts past the MDL2 limit"},
	    {60, 16384, GSIO_ERR_TRUNCATED, "numverts larger than the file"},
	    {60, -1, GSIO_ERR_CORRUPT, "negative numverts"},
	    {64, 0x7fffffff, GSIO_ERR_TRUNCATED, "numtris larger than the file"},
	    {68, 1000, GSIO_ERR_CORRUPT, "numframes larger than the file"},
	    {TREE_TRIS + 4, 73, GSIO_ERR_CORRUPT, "a vertex index past numverts"},
	    {TREE_TRIS + 16 * 131 + 12, -1, GSIO_ERR_CORRUPT, "a negative vertex index"},
	    {TREE_FRAMES, 1, GSIO_ERR_UNSUPPORTED, "a Quake frame group"},
	    {TREE_FRAMES, 2, GSIO_ERR_UNSUPPORTED, "a word-packed frame"},
	    {84, 6, GSIO_ERR_CORRUPT, "a DDS skin"},
	    {84, 7, GSIO_ERR_UNSUPPORTED, "an unknown skin type"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bad, data, size);
		put_i32(bad + cases[i].at, cases[i].value);
		expect_failure(bad, size, cases[i].what, cases[i].want);
	}
	// A skin vertex whose seam copy leaves the int16 range: the codec keeps
	// it (byte-exact), the scene refuses it.
	memcpy(bad, data, size);
	put_i32(bad + TREE_UVS + 4, 40000);
	gsio_mdl_file *f = decode_ok(bad, size, "bad.mdl");
	gsio_error err;
	assert_null(gsio_mdl_to_scene(f, "bad", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_non_null(strstr(err.message, "skin vertex 0"));
	gsio_mdl_file_free(f);
	// onseam and facesfront take any value: nonzero means "yes", as in Quake.
	memcpy(bad, data, size);
	put_i32(bad + TREE_UVS, 0x20);   // Quake's ALIAS_ONSEAM
	put_i32(bad + TREE_TRIS, 12345); // a front face
	f = decode_ok(bad, size, "quake-flags.mdl");
	gsio_scene *s = scene_ok(f, "quake-flags");
	gsio_scene_free(s);
	gsio_mdl_file_free(f);
	free(bad);
	free(data);
}

static size_t alloc_failure_loop(const uint8_t *data, size_t size, int via_registry)
{
	t_load_input in = {data, size, "mdl2-tree.mdl", NULL, NULL};
	return t_each_alloc_fails(in.name, via_registry ? t_try_load : t_try_mdl_decode, &in, T_NOMEM_OR_LIMIT, 1)
	    .calls;
}

static void test_allocation_failures(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_tree(&size);
	size_t k = alloc_failure_loop(data, size, 0), k2 = alloc_failure_loop(data, size, 1);
	print_message("mdl2-tree.mdl: allocations 1..%zu (decode + scene) and 1..%zu (registry) "
	              "each failed cleanly\n",
	              k, k2);
	assert_true(k > 1);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_decode),
	    cmocka_unit_test(test_tree_roundtrip),
	    cmocka_unit_test(test_tree_scene),
	    cmocka_unit_test(test_small_seam),
	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_corruption),
	    cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
