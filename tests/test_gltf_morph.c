/* Vertex data in the glTF writer's GLB: morph targets (dense and sparse,
 * packed frames against float frames, deltas shared between vertices that
 * show one file vertex), the accessors' min/max text, a packed frame's normal
 * indices, the quantised (GSIO_GLTF_COMPACT) form, static models.
 *
 * With GSIO_GLTF_DUMP_DIR set, the scenes are also written there as .glb
 * files, for the validator and Blender (tests/e2e/gltf.cmake). */
#include "test_util.h"
#include "gltf_test_util.h"

#include "gsio_gltf.h"
#include "json_float.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_morph_dense_sparse(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene(3);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "morph_dense.glb");
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets");
	assert_int_equal(cJSON_GetArraySize(targets), 3);
	const cJSON *t;
	size_t f = 0;
	cJSON_ArrayForEach(t, targets)
	{
		// Every target: POSITION and NORMAL, each with a view, none sparse
		// (frame 0 moves nothing and still has a view: Godot 3.2.3).
		for (int k = 0; k < 2; k++) {
			int ai = num(t, k ? "NORMAL" : "POSITION", -1);
			assert_true(ai >= 0);
			const cJSON *a = item(g.doc, "accessors", ai);
			assert_true(num(a, "bufferView", -1) >= 0);
			assert_null(cJSON_GetObjectItemCaseSensitive(a, "sparse"));
		}
		size_t count;
		int nc;
		double *d = read_accessor(&g, num(t, "POSITION", -1), &count, &nc);
		assert_true(d[1] == (double)f); // scene z -> glTF y
		free(d);
		f++;
	}
	// The animation: one-hot weights.
	const cJSON *an = item(g.doc, "animations", 0);
	assert_string_equal(str(an, "name"), "walk");
	const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(an, "samplers"), 0);
	size_t nw;
	int nc;
	double *w = read_accessor(&g, num(smp, "output", -1), &nw, &nc);
	assert_int_equal(nw, 9);
	for (size_t k = 0; k < 9; k++) assert_true(w[k] == (k % 4 == 0 ? 1.0 : 0.0));
	free(w);
	glb_free(&g);
	// Sparse on request: frame 0 (no movement) has no view, frame 1 is sparse
	// or dense, whichever is smaller.
	glb_write(&g, s, GSIO_GLTF_SPARSE_MORPH, 0);
	dump(&g, "morph_sparse.glb");
	targets = cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets");
	const cJSON *a0 = item(g.doc, "accessors", num(cJSON_GetArrayItem(targets, 0), "POSITION", -1));
	assert_int_equal(num(a0, "bufferView", -1), -1);
	glb_free(&g);
	gsio_scene_free(s);
}

/** A weights channel of more than 1024 targets is sparse (keys x targets
 *  weights would grow with the square of the frames), one non-zero weight
 *  a key, a cut's extra key included, and reads back as the dense one-hot
 *  weights; one of 1024 targets stays dense (what Godot 3.2.3 reads). */
static void test_weights_sparse_past_1024_targets(void **state)
{
	(void)state;
	for (size_t frames = 1024; frames <= 1100; frames += 76) {
		gsio_scene *s = morph_scene(frames);
		gsio_error err;
		gsio_animation *an = &s->animations[0];
		an->cuts = gsio_scene_alloc(s, 1, sizeof(uint32_t), &err);
		an->cuts[0] = 500;
		an->cuts_count = 1;
		glb g;
		glb_write(&g, s, 0, 0);
		if (frames > 1024) dump(&g, "weights_sparse.glb");
		const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(g.doc, "animations", 0), "samplers"), 0);
		int out = num(smp, "output", -1);
		const cJSON *a = item(g.doc, "accessors", out);
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
		size_t keys = frames + 1;
		if (frames == 1024) {
			assert_null(sp);
			assert_true(num(a, "bufferView", -1) >= 0);
		} else {
			assert_non_null(sp);
			assert_int_equal(num(a, "bufferView", -1), -1);
			assert_int_equal(num(sp, "count", 0), (int)keys);
			assert_int_equal(num(cJSON_GetObjectItemCaseSensitive(sp, "indices"), "componentType", 0), 5125);
		}
		size_t nw;
		int nc;
		double *w = read_accessor(&g, out, &nw, &nc);
		assert_int_equal(nw, keys * frames);
		size_t ones = 0;
		for (size_t k = 0; k < keys; k++) {
			size_t f = k <= 500 ? (k == 500 ? 499 : k) : k - 1; // key 500: frame 499's, just before the cut
			for (size_t t = 0; t < frames; t++) {
				if (w[k * frames + t] != (t == f ? 1.0 : 0.0)) fail_msg("%zu frames: key %zu target %zu weighs %g", frames, k, t, w[k * frames + t]);
				ones += w[k * frames + t] != 0;
			}
		}
		assert_int_equal(ones, keys);
		free(w);
		glb_free(&g);
		gsio_scene_free(s);
	}
}

/** Sparse weights of clips name one view of zeros (readers such as Godot
 *  3.2.3 take an accessor without a view from view 0): 1100 frames in 11
 *  clips of 100, every clip's weights sparse over the same view, as long as
 *  the largest clip's, all zeros, and the weights read back one-hot. */
static void test_weights_sparse_share_a_view_of_zeros(void **state)
{
	(void)state;
	enum { FRAMES = 1100, CLIP = 100 };
	gsio_scene *s = morph_scene(FRAMES);
	gsio_error err;
	s->animations[0].frames_count = CLIP;
	for (int k = 1; k < FRAMES / CLIP; k++) {
		char name[16];
		snprintf(name, sizeof(name), "clip%d", k);
		int32_t a = gsio_scene_add_animation(s, name, 10, CLIP, 1, &err);
		assert_true(a >= 0);
		gsio_channel *ch = &s->animations[a].channels[0];
		ch->node = 0;
		ch->path = GSIO_PATH_MORPH;
		ch->frames = gsio_scene_alloc(s, CLIP, sizeof(uint32_t), &err);
		for (int f = 0; f < CLIP; f++) ch->frames[f] = (uint32_t)(k * CLIP + f);
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "weights_sparse_clips.glb");
	int base = -1;
	for (int k = 0; k < FRAMES / CLIP; k++) {
		const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(g.doc, "animations", k), "samplers"), 0);
		int out = num(smp, "output", -1);
		const cJSON *a = item(g.doc, "accessors", out);
		assert_non_null(cJSON_GetObjectItemCaseSensitive(a, "sparse"));
		int v = num(a, "bufferView", -1);
		assert_true(v >= 0);
		if (k == 0) base = v;
		assert_int_equal(v, base);
		size_t nw;
		int nc;
		double *w = read_accessor(&g, out, &nw, &nc); // checks the view holds count floats
		assert_int_equal(nw, (size_t)CLIP * FRAMES);
		for (size_t key = 0; key < CLIP; key++)
			for (size_t t = 0; t < FRAMES; t++)
				if (w[key * FRAMES + t] != (t == (size_t)k * CLIP + key ? 1.0 : 0.0))
					fail_msg("clip %d key %zu target %zu weighs %g", k, key, t, w[key * FRAMES + t]);
		free(w);
	}
	size_t size;
	const uint8_t *zeros = view_bytes(&g, base, &size);
	assert_int_equal(size, (size_t)CLIP * FRAMES * 4);
	for (size_t i = 0; i < size; i++) assert_int_equal(zeros[i], 0);
	glb_free(&g);
	gsio_scene_free(s);
}

/** GSIO_GLTF_COMPACT: KHR_mesh_quantization used and required; positions
 *  (normalized SHORT) through the node's translation and scale, morph deltas
 *  (normalized BYTE), normals (BYTE), UVs (UNSIGNED_SHORT) and weights
 *  (UNSIGNED_BYTE) read back within one quantisation step of the float
 *  output. */
static void test_compact(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene(3);
	glb gf, gc;
	glb_write(&gf, s, 0, 0);
	glb_write(&gc, s, GSIO_GLTF_COMPACT, 0);
	dump(&gc, "compact.glb");
	const char *lists[] = {"extensionsUsed", "extensionsRequired"};
	for (int k = 0; k < 2; k++) {
		const cJSON *l = arr(gc.doc, lists[k]);
		bool found = false;
		const cJSON *e;
		cJSON_ArrayForEach(e, l) found = found || !strcmp(e->valuestring, "KHR_mesh_quantization");
		assert_true(found);
	}
	assert_null(cJSON_GetObjectItemCaseSensitive(gf.doc, "extensionsRequired"));
	const cJSON *node = item(gc.doc, "nodes", 0);
	const cJSON *jt = cJSON_GetObjectItemCaseSensitive(node, "translation");
	const cJSON *js = cJSON_GetObjectItemCaseSensitive(node, "scale");
	assert_non_null(js);
	double t[3] = {0, 0, 0}, sc = cJSON_GetArrayItem(js, 0)->valuedouble;
	for (int k = 0; k < 3 && jt; k++) t[k] = cJSON_GetArrayItem(jt, k)->valuedouble;
	assert_true(cJSON_GetArrayItem(js, 1)->valuedouble == sc && cJSON_GetArrayItem(js, 2)->valuedouble == sc);
	const cJSON *pf = primitive(&gf, 0), *pc = primitive(&gc, 0);
	static const struct { const char *name; int ctype; double tol; } at[] = {
	    {"POSITION", 5122, 0}, {"NORMAL", 5120, 1.0 / 127}, {"TEXCOORD_0", 5123, 1.0 / 65535}};
	size_t nf, nc;
	int cf, cc;
	double *bf = NULL, *bc = NULL;
	for (int k = 0; k < 3; k++) {
		int ac = attribute(pc, at[k].name);
		assert_int_equal(num(item(gc.doc, "accessors", ac), "componentType", 0), at[k].ctype);
		double *vf = read_accessor(&gf, attribute(pf, at[k].name), &nf, &cf);
		double *vc = read_accessor(&gc, ac, &nc, &cc);
		assert_int_equal(nf, nc);
		assert_int_equal(cf, cc);
		for (size_t i = 0; i < nf * (size_t)cf; i++) {
			double x = vc[i], tol = at[k].tol;
			if (k == 0) {
				x = x * sc + t[i % 3];
				tol = sc / 32767;
			}
			if (fabs(x - vf[i]) > tol) fail_msg("%s[%zu]: %g, float %g", at[k].name, i, x, vf[i]);
		}
		if (k == 0) {
			bf = vf;
			bc = vc;
		} else {
			free(vf);
			free(vc);
		}
	}
	// Morph targets: POSITION deltas only, each frame within one delta step.
	const cJSON *tf = cJSON_GetObjectItemCaseSensitive(pf, "targets");
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(pc, "targets");
	assert_int_equal(cJSON_GetArraySize(tc), 3);
	for (int f = 0; f < 3; f++) {
		const cJSON *a = cJSON_GetArrayItem(tc, f);
		assert_int_equal(num(a, "NORMAL", -1), -1);
		assert_int_equal(num(item(gc.doc, "accessors", num(a, "POSITION", -1)), "componentType", 0), 5120);
		double *df = read_accessor(&gf, num(cJSON_GetArrayItem(tf, f), "POSITION", -1), &nf, &cf);
		double *dc = read_accessor(&gc, num(a, "POSITION", -1), &nc, &cc);
		for (size_t i = 0; i < 3 * nf; i++) {
			double x = (bc[i] + dc[i]) * sc + t[i % 3], want = bf[i] + df[i];
			if (fabs(x - want) > sc / 127) fail_msg("frame %d [%zu]: %g, float %g", f, i, x, want);
		}
		free(df);
		free(dc);
	}
	free(bf);
	free(bc);
	// Weights: one-hot as normalized UNSIGNED_BYTE.
	const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(gc.doc, "animations", 0), "samplers"), 0);
	assert_int_equal(num(item(gc.doc, "accessors", num(smp, "output", -1)), "componentType", 0), 5121);
	double *w = read_accessor(&gc, num(smp, "output", -1), &nc, &cc);
	assert_int_equal(nc, 9);
	for (size_t k = 0; k < 9; k++) assert_true(w[k] == (k % 4 == 0 ? 1.0 : 0.0));
	free(w);
	assert_true(gc.bin_size < gf.bin_size);
	glb_free(&gf);
	glb_free(&gc);
	gsio_scene_free(s);
}

/** A mesh with 1 frame (and a MORPH channel on it) is a plain mesh. */
static void test_static_model(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene(1);
	glb g;
	glb_write(&g, s, 0, 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets"));
	assert_null(cJSON_GetObjectItemCaseSensitive(item(g.doc, "meshes", 0), "weights"));
	assert_null(arr(g.doc, "animations"));
	glb_free(&g);
	gsio_scene_free(s);
}

// -- Morph targets from packed and float frames

/** gsioi_gltf_json_float() (accessor min/max text) gives printf's "%.17g" text:
 *  around every power of ten and the ends of its fast path, on values whose
 *  18th digit is a tie (m / 2^17 for odd m), zeros, subnormals, extremes and
 *  pseudo-random bit patterns; non-finite floats as 0. */
static void check_json_float(float f, size_t *checked)
{
	char got[GLTF_JSON_FLOAT_MAX], want[64];
	size_t n = gsioi_gltf_json_float(f, got);
	if (isfinite(f))
		snprintf(want, sizeof(want), "%.17g", (double)f);
	else
		snprintf(want, sizeof(want), "0");
	if (strcmp(got, want) || n != strlen(want))
		fail_msg("float %a: \"%s\" (%zu), printf \"%s\"", (double)f, got, n, want);
	++*checked;
}

static void test_json_float(void **state)
{
	(void)state;
	size_t checked = 0;
	const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX,
	                         1e-45f, 1e-4f, 1e15f, 1, -1, 0.5f, 0.1f, 1.0f / 3, 123456789.0f};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) check_json_float(special[i], &checked);
	for (int e = -6; e <= 17; e++) {
		float p = 1;
		for (int i = 0; i < (e < 0 ? -e : e); i++) p = e < 0 ? p / 10 : p * 10;
		uint32_t b;
		memcpy(&b, &p, 4);
		for (int d = -3000; d <= 3000; d++) {
			uint32_t x = (uint32_t)((int64_t)b + d);
			float f, g;
			memcpy(&f, &x, 4);
			g = -f;
			check_json_float(f, &checked);
			check_json_float(g, &checked);
		}
	}
	for (uint32_t m = (1u << 17) + 1; m < 10u << 17; m += 2 * 37) // ties at the 18th digit
		check_json_float((float)m / (float)(1u << 17), &checked);
	uint32_t x = 88172645u;
	for (int i = 0; i < 300000; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		float f;
		memcpy(&f, &x, 4);
		check_json_float(f, &checked);
	}
	print_message("%zu floats printed as printf prints them\n", checked);
}

/** gsio_mesh_frame_normal_indices(): a packed frame's normals as indices
 *  into the format's table (out-of-table indices as 0) and its positions
 *  (when asked), equal to what gsio_mesh_frame_get() gives; float frames, frames without normals and
 *  frames out of range say so. */
static void test_frame_normal_indices(void **state)
{
	(void)state;
	const uint32_t nv = 50;
	gsio_scene *s = t_morph_scene(nv, 4, true, true);
	const gsio_mesh *m = &s->meshes[0];
	uint8_t idx[50];
	float nrm[150], pos[150], want_pos[150];
	const float *table = NULL;
	size_t count = 0;
	size_t out_of_table = 0;
	for (size_t f = 1; f < 4; f++) {
		memset(idx, 0xEE, sizeof(idx));
		assert_int_equal(gsio_mesh_frame_normal_indices(m, f, f == 2 ? NULL : pos, idx, &table, &count), 1);
		assert_ptr_equal(table, &t_morph_normals[0][0]);
		assert_int_equal(count, 6);
		assert_int_equal(gsio_mesh_frame_get(m, f, want_pos, nrm), 1);
		if (f != 2) assert_memory_equal(pos, want_pos, sizeof(pos)); // frame 2: indices alone
		for (uint32_t v = 0; v < nv; v++) {
			uint8_t raw = m->frames[f].packed[4 * (size_t)m->source_vertex[v] + 3];
			assert_int_equal(idx[v], raw < 6 ? raw : 0);
			out_of_table += raw >= 6;
			assert_memory_equal(table + 3 * idx[v], nrm + 3 * v, 3 * sizeof(float));
		}
	}
	assert_true(out_of_table > 0); // the case is exercised
	// Frame 0 is floats (as the MDL loader keeps it): read with frame_get.
	memset(idx, 0xEE, sizeof(idx));
	table = NULL;
	assert_int_equal(gsio_mesh_frame_normal_indices(m, 0, pos, idx, &table, &count), 0);
	assert_null(table);
	assert_int_equal(idx[0], 0xEE);
	assert_int_equal(gsio_mesh_frame_normal_indices(m, 4, pos, idx, &table, &count), -1);
	gsio_scene_free(s);
	s = t_morph_scene(nv, 3, true, false); // no normal table
	assert_int_equal(gsio_mesh_frame_normal_indices(&s->meshes[0], 1, pos, idx, &table, &count), 0);
	gsio_scene_free(s);
	s = t_morph_scene(nv, 3, false, true); // float frames
	assert_int_equal(gsio_mesh_frame_normal_indices(&s->meshes[0], 1, pos, idx, &table, &count), 0);
	gsio_scene_free(s);
	assert_int_equal(gsio_mesh_frame_normal_indices(NULL, 0, pos, idx, &table, &count), -1);
}

/** The writer's normal the way write_mesh makes it: output axes, unit
 *  (divided by the length in double), up when the length is 0. */
static void expected_normal(const float in[3], bool keep_axes, float out[3], bool *bad)
{
	float n[3] = {keep_axes ? in[0] : in[1], keep_axes ? in[1] : in[2], keep_axes ? in[2] : in[0]};
	double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	*bad = !(l > 1e-12);
	for (int k = 0; k < 3; k++)
		out[k] = *bad ? (keep_axes ? (k == 2 ? 1.0f : 0.0f) : (k == 1 ? 1.0f : 0.0f)) : (float)(n[k] / l);
}

/** One mesh's morph targets, packed frames against float frames with the
 *  same values: the same GLB bytes and warnings in every output mode, and
 *  (dense, both axis modes) every delta and its min/max as computed here,
 *  including zero normals (replaced by up and counted in a warning) and
 *  out-of-table normal indices (read as normal 0). Vertex counts 1 and 2
 *  take the writer's scalar path only. */
/* The packed frames of a t_morph_scene() rewritten as MDL's word records
 * (16-bit coordinates, the normal index at byte 6 and a bone at byte 7):
 * the same raw values, so the same positions. */
static void widen_records(gsio_scene *s)
{
	gsio_error err;
	gsio_mesh *m = &s->meshes[0];
	gsio_packed_format *pf = gsio_scene_alloc(s, 1, sizeof(*pf), &err);
	assert_non_null(pf);
	*pf = *m->packed;
	pf->coord_size = 2;
	pf->vertex_stride = 8;
	pf->normal_offset = 6;
	for (size_t f = 0; f < m->frames_count; f++) {
		gsio_morph_frame *fr = &m->frames[f];
		uint8_t *w = gsio_scene_alloc(s, pf->source_count, 8, &err);
		assert_non_null(w);
		for (size_t i = 0; i < pf->source_count; i++) {
			const uint8_t *r = fr->packed + 4 * i;
			for (int k = 0; k < 3; k++) w[8 * i + 2 * (size_t)k] = r[k], w[8 * i + 2 * (size_t)k + 1] = 0;
			w[8 * i + 6] = r[3];
			w[8 * i + 7] = 0x5A;
		}
		fr->packed = w;
		fr->packed_size = pf->source_count * 8;
	}
	m->packed = pf;
}

/* The float frames of a t_morph_scene(..., false, ...) past the first kept
 * as MDL7 keeps them: float records per source vertex (coord_size 4, the
 * normal as 3 floats when the mesh has normals), shown through
 * source_vertex; the same values, so the same positions and normals. */
static void float_records(gsio_scene *s)
{
	gsio_error err;
	gsio_mesh *m = &s->meshes[0];
	size_t ns = 0;
	for (size_t v = 0; v < m->vertex_count; v++)
		if (m->source_vertex[v] >= ns) ns = (size_t)m->source_vertex[v] + 1;
	gsio_packed_format *pf = gsio_scene_alloc(s, 1, sizeof(*pf), &err);
	assert_non_null(pf);
	memset(pf, 0, sizeof(*pf));
	pf->coord_size = 4;
	pf->vertex_stride = 24;
	pf->normal_offset = 12;
	pf->normal_floats = m->normals != NULL;
	pf->source_count = ns;
	for (int k = 0; k < 3; k++) pf->scale[k] = 1;
	for (size_t f = 1; f < m->frames_count; f++) {
		gsio_morph_frame *fr = &m->frames[f];
		float *rec = gsio_scene_alloc(s, 6 * ns, sizeof(float), &err);
		assert_non_null(rec);
		memset(rec, 0, 6 * ns * sizeof(float));
		for (size_t v = 0; v < m->vertex_count; v++) {
			memcpy(rec + 6 * (size_t)m->source_vertex[v], fr->positions + 3 * v, 12);
			if (fr->normals) memcpy(rec + 6 * (size_t)m->source_vertex[v] + 3, fr->normals + 3 * v, 12);
		}
		fr->positions = fr->normals = NULL;
		fr->packed = (const uint8_t *)rec;
		fr->packed_size = 24 * ns;
	}
	m->packed = pf;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
}

static void test_morph_packed_vs_float(void **state)
{
	(void)state;
	const struct {
		uint32_t nv, frames;
		bool normals;
	} cases[] = {{1, 3, true}, {2, 3, true}, {37, 9, true}, {37, 9, false}, {700, 4, true}};
	const struct {
		uint32_t flags;
		float scale;
	} modes[] = {{0, 0}, {GSIO_GLTF_KEEP_AXES, 0.0254f}, {GSIO_GLTF_SPARSE_MORPH, 0}, {GSIO_GLTF_COMPACT, 0}};
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		uint32_t nv = cases[ci].nv, nf = cases[ci].frames;
		bool normals = cases[ci].normals;
		gsio_scene *sp = t_morph_scene(nv, nf, true, normals);
		gsio_scene *sf = t_morph_scene(nv, nf, false, normals);
		gsio_scene *sw = t_morph_scene(nv, nf, true, normals);
		widen_records(sw);
		gsio_scene *sr = t_morph_scene(nv, nf, false, normals);
		float_records(sr);
		for (size_t mo = 0; mo < sizeof(modes) / sizeof(modes[0]); mo++) {
			glb a, b, wide, fl;
			glb_write(&a, sp, modes[mo].flags, modes[mo].scale);
			glb_write(&b, sf, modes[mo].flags, modes[mo].scale);
			glb_write(&wide, sw, modes[mo].flags, modes[mo].scale);
			glb_write(&fl, sr, modes[mo].flags, modes[mo].scale);
			if (fl.out.files[0].size != b.out.files[0].size ||
			    memcmp(fl.out.files[0].data, b.out.files[0].data, fl.out.files[0].size))
				fail_msg("%u vertices, %u frames, mode %zu: float records and float frames give different GLBs", nv, nf, mo);
			assert_int_equal(fl.out.warnings_count, b.out.warnings_count);
			for (size_t w = 0; w < fl.out.warnings_count; w++)
				assert_string_equal(fl.out.warnings[w], b.out.warnings[w]);
			glb_free(&fl);
			if (a.out.files[0].size != b.out.files[0].size ||
			    memcmp(a.out.files[0].data, b.out.files[0].data, a.out.files[0].size))
				fail_msg("%u vertices, %u frames, mode %zu: packed and float frames give different GLBs", nv, nf, mo);
			if (wide.out.files[0].size != b.out.files[0].size ||
			    memcmp(wide.out.files[0].data, b.out.files[0].data, wide.out.files[0].size))
				fail_msg("%u vertices, %u frames, mode %zu: word records and float frames give different GLBs", nv, nf, mo);
			glb_free(&wide);
			assert_int_equal(a.out.warnings_count, b.out.warnings_count);
			for (size_t w = 0; w < a.out.warnings_count; w++)
				assert_string_equal(a.out.warnings[w], b.out.warnings[w]);
			if (modes[mo].flags == GSIO_GLTF_SPARSE_MORPH || modes[mo].flags == GSIO_GLTF_COMPACT) {
				glb_free(&a);
				glb_free(&b);
				continue;
			}
			// Dense: every delta as computed here from the float frames.
			bool keep = modes[mo].flags & GSIO_GLTF_KEEP_AXES;
			float sc = modes[mo].scale ? modes[mo].scale : 1;
			const gsio_mesh *m = &sf->meshes[0];
			size_t bad = 0;
			float base_n[3], tn[3];
			bool bd;
			for (uint32_t v = 0; normals && v < nv; v++) {
				expected_normal(m->normals + 3 * v, keep, base_n, &bd);
				bad += bd;
			}
			const cJSON *targets = cJSON_GetObjectItemCaseSensitive(primitive(&a, 0), "targets");
			assert_int_equal(cJSON_GetArraySize(targets), (int)nf);
			for (uint32_t f = 0; f < nf; f++) {
				const cJSON *t = cJSON_GetArrayItem(targets, (int)f);
				size_t count;
				int nc;
				int pa = num(t, "POSITION", -1);
				double *d = read_accessor(&a, pa, &count, &nc);
				assert_int_equal(count, nv);
				check_min_max(&a, pa, NULL, NULL);
				const float *fp = m->frames[f].positions;
				for (uint32_t v = 0; v < nv; v++)
					for (int k = 0; k < 3; k++) {
						int src = keep ? k : (k + 1) % 3;
						float want = fp[3 * v + src] * sc - m->positions[3 * v + src] * sc;
						if (d[3 * v + k] != (double)want)
							fail_msg("frame %u vertex %u [%d]: %.9g, want %.9g", f, v, k, d[3 * v + k], (double)want);
					}
				free(d);
				if (!normals) {
					assert_int_equal(num(t, "NORMAL", -1), -1);
					continue;
				}
				int na = num(t, "NORMAL", -1);
				d = read_accessor(&a, na, &count, &nc);
				check_min_max(&a, na, NULL, NULL);
				for (uint32_t v = 0; v < nv; v++) {
					expected_normal(m->normals + 3 * v, keep, base_n, &bd);
					expected_normal(m->frames[f].normals + 3 * v, keep, tn, &bd);
					bad += bd;
					for (int k = 0; k < 3; k++) assert_true(d[3 * v + k] == (double)(tn[k] - base_n[k]));
				}
				free(d);
			}
			char want[128];
			snprintf(want, sizeof(want), "mesh 0: %zu zero or non-finite normals replaced by up", bad);
			bool found = false;
			for (size_t w = 0; w < a.out.warnings_count; w++) found = found || strstr(a.out.warnings[w], want);
			if (bad && !found) fail_msg("no warning \"%s\"", want);
			assert_true(bad > 0 || !normals || nv < 3);
			glb_free(&a);
			glb_free(&b);
		}
		gsio_scene_free(sp);
		gsio_scene_free(sf);
		gsio_scene_free(sw);
		gsio_scene_free(sr);
	}
}

/** Vertices that show one file vertex share their deltas only where their
 *  bases are the same floats: with one such vertex's base position, then
 *  its base normal, moved off the others' (as a normal made per vertex
 *  would be), packed frames still give the GLB of float frames. */
static void test_morph_shared_base_differs(void **state)
{
	(void)state;
	const uint32_t nv = 40, nf = 4;
	for (int what = 0; what < 2; what++) {
		gsio_scene *sp = t_morph_scene(nv, nf, true, true);
		gsio_scene *sf = t_morph_scene(nv, nf, false, true);
		// The last vertex shows the file vertex of an earlier one (7v mod 30).
		const gsio_mesh *m = &sp->meshes[0];
		uint32_t last = nv - 1, other = 0;
		while (other < last && m->source_vertex[other] != m->source_vertex[last]) other++;
		assert_true(other < last);
		gsio_scene *both[2] = {sp, sf};
		for (int k = 0; k < 2; k++) {
			gsio_mesh *mm = &both[k]->meshes[0];
			float *b = what == 0 ? mm->positions : mm->normals;
			b[3 * last] += what == 0 ? 0.5f : 0.25f;
			float *f0 = what == 0 ? mm->frames[0].positions : mm->frames[0].normals;
			if (f0) memcpy(f0 + 3 * last, b + 3 * last, 3 * sizeof(float));
			if (what == 0)
				for (int j = 0; j < 3; j++) {
					if (b[3 * last + j] < mm->bbox_min[j]) mm->bbox_min[j] = b[3 * last + j];
					if (b[3 * last + j] > mm->bbox_max[j]) mm->bbox_max[j] = b[3 * last + j];
				}
		}
		glb a, f;
		glb_write(&a, sp, 0, 0);
		glb_write(&f, sf, 0, 0);
		if (a.out.files[0].size != f.out.files[0].size ||
		    memcmp(a.out.files[0].data, f.out.files[0].data, a.out.files[0].size))
			fail_msg("base %s moved: packed and float frames give different GLBs",
			         what == 0 ? "position" : "normal");
		glb_free(&a);
		glb_free(&f);
		gsio_scene_free(sp);
		gsio_scene_free(sf);
	}
}

/* The vertices of a t_morph_scene() that show the last vertex's file vertex,
 * except the last, moved to show the vertex before them's (taking its
 * values in every array): the last vertex is then the first (and only) one
 * showing its file vertex. */
static void last_vertex_alone(gsio_scene *s)
{
	gsio_mesh *m = &s->meshes[0];
	uint32_t *sv = m->source_vertex;
	const size_t last = m->vertex_count - 1;
	for (size_t v = 1; v < last; v++) {
		if (sv[v] != sv[last]) continue;
		sv[v] = sv[v - 1];
		float *arrays[2] = {m->positions, m->normals};
		for (int a = 0; a < 2; a++)
			if (arrays[a]) memcpy(arrays[a] + 3 * v, arrays[a] + 3 * (v - 1), 12);
		for (size_t f = 0; f < m->frames_count; f++) {
			float *fa[2] = {m->frames[f].positions, m->frames[f].normals};
			for (int a = 0; a < 2; a++)
				if (fa[a] && fa[a] != arrays[a]) memcpy(fa[a] + 3 * v, fa[a] + 3 * (v - 1), 12);
		}
	}
	gsio_error err;
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
}

/** Shared deltas when the last vertex is the first to show its file vertex:
 *  its base is read as 4 floats like every other (one past its 3), which
 *  the writer's base arrays must hold (an ASan build reports the read
 *  otherwise). Packed frames and float records against float frames: the
 *  same GLB. */
static void test_morph_shared_last_vertex(void **state)
{
	(void)state;
	const uint32_t nv = 40, nf = 4;
	gsio_scene *sp = t_morph_scene(nv, nf, true, true), *sf = t_morph_scene(nv, nf, false, true);
	gsio_scene *sr = t_morph_scene(nv, nf, false, true);
	float_records(sr);
	gsio_scene *all[3] = {sp, sf, sr};
	for (int k = 0; k < 3; k++) last_vertex_alone(all[k]);
	const gsio_mesh *m = &sf->meshes[0];
	size_t shown_by_last = 0;
	for (size_t v = 0; v < nv; v++) shown_by_last += m->source_vertex[v] == m->source_vertex[nv - 1];
	assert_int_equal(shown_by_last, 1);
	for (int keep = 0; keep < 2; keep++) {
		glb a, b, r;
		uint32_t flags = keep ? GSIO_GLTF_KEEP_AXES : 0;
		glb_write(&a, sp, flags, 0);
		glb_write(&b, sf, flags, 0);
		glb_write(&r, sr, flags, 0);
		if (a.out.files[0].size != b.out.files[0].size ||
		    memcmp(a.out.files[0].data, b.out.files[0].data, a.out.files[0].size))
			fail_msg("last vertex alone: packed and float frames give different GLBs");
		if (r.out.files[0].size != b.out.files[0].size ||
		    memcmp(r.out.files[0].data, b.out.files[0].data, r.out.files[0].size))
			fail_msg("last vertex alone: float records and float frames give different GLBs");
		glb_free(&a);
		glb_free(&b);
		glb_free(&r);
	}
	for (int k = 0; k < 3; k++) gsio_scene_free(all[k]);
}

/** Shared deltas take their min/max over the file vertices in the order
 *  they are first shown, which must give the min/max over the vertices:
 *  with a normal table whose rows hold -0 and 0 in one place, normal
 *  deltas of -0 and 0 tie, and which one a min/max keeps is the first in
 *  its order. Packed frames (shared) against float frames (the vertices in
 *  order): the same GLB, and the ties are there (a "-0" in some min/max). */
static void test_morph_shared_signed_zero(void **state)
{
	(void)state;
	// Every row's x is 0, -0 or positive; the base (frame 0) takes row 0
	// everywhere, so each frame's NORMAL x deltas are 0, -0 or positive
	// and their min is a tie of 0 and -0 (x is the output's third).
	static const float rows[6][3] = {{0, 0, 1},    {-0.0f, 0, 1},    {0, 1, 0},
	                                 {0.5f, 0, 1}, {-0.0f, 1, 0}, {0.25f, 1, 0}};
	const uint32_t nv = 60, nf = 6;
	gsio_scene *sp = t_morph_scene(nv, nf, true, true), *sf = t_morph_scene(nv, nf, false, true);
	gsio_mesh *mp = &sp->meshes[0], *mf = &sf->meshes[0];
	((gsio_packed_format *)mp->packed)->normal_table = rows;
	uint8_t *rec0 = (uint8_t *)mp->frames[0].packed;
	for (size_t i = 0; i < mp->packed->source_count; i++) rec0[4 * i + 3] = 0;
	for (uint32_t f = 0; f < nf; f++)
		for (uint32_t v = 0; v < nv; v++) {
			uint8_t i = mp->frames[f].packed[4 * (size_t)mp->source_vertex[v] + 3];
			const float *row = rows[i < 6 ? i : 0];
			memcpy(mf->frames[f].normals + 3 * v, row, 12);
			if (f) continue;
			memcpy(mp->frames[0].normals + 3 * v, row, 12);
			memcpy(mp->normals + 3 * v, row, 12);
			memcpy(mf->normals + 3 * v, row, 12);
		}
	gsio_error err;
	if (gsio_scene_validate(sp, &err) || gsio_scene_validate(sf, &err)) fail_msg("%s", err.message);
	glb a, b;
	glb_write(&a, sp, 0, 0);
	glb_write(&b, sf, 0, 0);
	if (a.out.files[0].size != b.out.files[0].size ||
	    memcmp(a.out.files[0].data, b.out.files[0].data, a.out.files[0].size))
		fail_msg("shared deltas and float frames give different GLBs");
	// The JSON chunk as written (cJSON prints -0 as 0).
	const uint8_t *g = a.out.files[0].data;
	size_t jl = (size_t)rd32(g + 12);
	char *json = malloc(jl + 1);
	assert_non_null(json);
	memcpy(json, g + 20, jl);
	json[jl] = 0;
	if (!strstr(json, "-0,") && !strstr(json, "-0]")) fail_msg("no -0 in any min/max: no ties to check");
	free(json);
	glb_free(&a);
	glb_free(&b);
	gsio_scene_free(sp);
	gsio_scene_free(sf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_morph_dense_sparse),
	    cmocka_unit_test(test_weights_sparse_past_1024_targets),
	    cmocka_unit_test(test_weights_sparse_share_a_view_of_zeros),
	    cmocka_unit_test(test_compact),
	    cmocka_unit_test(test_static_model),
	    cmocka_unit_test(test_json_float),
	    cmocka_unit_test(test_frame_normal_indices),
	    cmocka_unit_test(test_morph_packed_vs_float),
	    cmocka_unit_test(test_morph_shared_base_differs),
	    cmocka_unit_test(test_morph_shared_last_vertex),
	    cmocka_unit_test(test_morph_shared_signed_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
