/* The glTF writer (blender_bridge/gltf.c): every corpus MDL written to GLB in
 * memory and read back here (JSON with cJSON, PNG with libspng, buffers by
 * hand), the axis change, synthetic skinned / camera / multi-skin scenes,
 * SEPARATE mode, file writing with and without replacing, bad scenes.
 *
 * With GSIO_GLTF_DUMP_DIR set, the synthetic scenes are also written there as
 * .glb files, for the validator and Blender (tests/e2e/gltf.cmake). */
#include "test_util.h"

#include "gsio_gltf.h"
#include "gsio_internal.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T_PI 3.14159265358979323846

// -- Reading a GLB back

typedef struct glb {
	gsio_gltf_output out;
	cJSON *doc;
	const uint8_t *bin;
	size_t bin_size;
} glb;

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/** Parses a GLB held in data: header, JSON chunk, optional BIN chunk. */
static void glb_parse(glb *g, const uint8_t *d, size_t n)
{
	assert_true(n >= 20);
	assert_int_equal(rd32(d), 0x46546C67u);
	assert_int_equal(rd32(d + 4), 2);
	assert_int_equal(rd32(d + 8), n);
	uint32_t jl = rd32(d + 12);
	assert_int_equal(rd32(d + 16), 0x4E4F534Au);
	assert_int_equal(jl % 4, 0);
	assert_true(20 + (size_t)jl <= n);
	g->doc = cJSON_ParseWithLength((const char *)d + 20, jl);
	assert_non_null(g->doc);
	size_t off = 20 + jl;
	g->bin = NULL;
	g->bin_size = 0;
	if (off < n) {
		assert_true(off + 8 <= n);
		uint32_t bl = rd32(d + off);
		assert_int_equal(rd32(d + off + 4), 0x004E4942u);
		assert_int_equal(off + 8 + bl, n);
		g->bin = d + off + 8;
		g->bin_size = bl;
	}
}

static void glb_write(glb *g, const gsio_scene *s, uint32_t flags, float scale)
{
	gsio_gltf_opts o = {0};
	o.flags = flags;
	o.scale = scale;
	gsio_error err;
	int rc = gsio_gltf_write(s, &o, &g->out, &err);
	if (rc) fail_msg("gsio_gltf_write: %s", err.message);
	assert_int_equal(g->out.files_count, 1);
	glb_parse(g, g->out.files[0].data, g->out.files[0].size);
}

static void glb_free(glb *g)
{
	cJSON_Delete(g->doc);
	gsio_gltf_output_free(&g->out);
}

static cJSON *arr(const cJSON *doc, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(doc, key);
}

static int num(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valueint : dflt;
}

static double dnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static int ncomp_of(const char *type)
{
	if (!strcmp(type, "SCALAR")) return 1;
	if (!strcmp(type, "VEC2")) return 2;
	if (!strcmp(type, "VEC3")) return 3;
	if (!strcmp(type, "VEC4")) return 4;
	if (!strcmp(type, "MAT4")) return 16;
	fail_msg("accessor type %s", type);
	return 0;
}

static const uint8_t *view_bytes(const glb *g, int view, size_t *size)
{
	const cJSON *v = cJSON_GetArrayItem(arr(g->doc, "bufferViews"), view);
	assert_non_null(v);
	assert_int_equal(num(v, "buffer", -1), 0);
	size_t off = (size_t)num(v, "byteOffset", 0), len = (size_t)num(v, "byteLength", 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(v, "byteStride")); // always tightly packed
	assert_true(off + len <= g->bin_size);
	assert_int_equal(off % 4, 0);
	*size = len;
	return g->bin + off;
}

/** Reads any accessor (dense, sparse or all-zero) as doubles; returns count
 *  and fills *ncomp. Caller frees. */
static double *read_accessor(const glb *g, int index, size_t *count, int *ncomp)
{
	const cJSON *a = cJSON_GetArrayItem(arr(g->doc, "accessors"), index);
	assert_non_null(a);
	*count = (size_t)num(a, "count", 0);
	*ncomp = ncomp_of(cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring);
	int ct = num(a, "componentType", 0);
	size_t n = *count * (size_t)*ncomp;
	double *out = calloc(n ? n : 1, sizeof(double));
	assert_non_null(out);
	int view = num(a, "bufferView", -1);
	if (view >= 0) {
		size_t size;
		const uint8_t *p = view_bytes(g, view, &size);
		size_t cs = ct == 5126 || ct == 5125 ? 4 : ct == 5123 ? 2 : 1;
		assert_true(n * cs <= size);
		for (size_t i = 0; i < n; i++) {
			if (ct == 5126) {
				float f;
				memcpy(&f, p + 4 * i, 4);
				out[i] = f;
			} else if (ct == 5125) {
				out[i] = rd32(p + 4 * i);
			} else if (ct == 5123) {
				out[i] = (double)(p[2 * i] | p[2 * i + 1] << 8);
			} else {
				out[i] = p[i];
			}
		}
	}
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
	if (sp) {
		size_t k = (size_t)num(sp, "count", 0), isz, vsz;
		const cJSON *si = cJSON_GetObjectItemCaseSensitive(sp, "indices");
		const cJSON *sv = cJSON_GetObjectItemCaseSensitive(sp, "values");
		const uint8_t *ip = view_bytes(g, num(si, "bufferView", -1), &isz);
		const uint8_t *vp = view_bytes(g, num(sv, "bufferView", -1), &vsz);
		int ict = num(si, "componentType", 0);
		assert_int_equal(ct, 5126);
		assert_true(vsz >= k * (size_t)*ncomp * 4);
		size_t prev = 0;
		for (size_t i = 0; i < k; i++) {
			size_t idx = ict == 5123 ? (size_t)(ip[2 * i] | ip[2 * i + 1] << 8) : rd32(ip + 4 * i);
			assert_true(idx < *count);
			if (i) assert_true(idx > prev); // strictly increasing, as the spec requires
			prev = idx;
			for (int c = 0; c < *ncomp; c++) {
				float f;
				memcpy(&f, vp + 4 * (i * (size_t)*ncomp + (size_t)c), 4);
				out[idx * (size_t)*ncomp + (size_t)c] = f;
			}
		}
	}
	return out;
}

/** Checks the accessor's min/max equal the data's exactly (the validator's
 *  rule) and returns them. */
static void check_min_max(const glb *g, int index, double *mn, double *mx)
{
	size_t count;
	int nc;
	double *v = read_accessor(g, index, &count, &nc);
	const cJSON *a = cJSON_GetArrayItem(arr(g->doc, "accessors"), index);
	const cJSON *jmin = cJSON_GetObjectItemCaseSensitive(a, "min");
	const cJSON *jmax = cJSON_GetObjectItemCaseSensitive(a, "max");
	assert_non_null(jmin);
	assert_non_null(jmax);
	assert_int_equal(cJSON_GetArraySize(jmin), nc);
	for (int c = 0; c < nc; c++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < count; i++) {
			double x = v[i * (size_t)nc + (size_t)c];
			if (x < lo) lo = x;
			if (x > hi) hi = x;
		}
		if (cJSON_GetArrayItem(jmin, c)->valuedouble != lo || cJSON_GetArrayItem(jmax, c)->valuedouble != hi)
			fail_msg("accessor %d component %d: min/max %.17g %.17g, data %.17g %.17g", index, c,
			         cJSON_GetArrayItem(jmin, c)->valuedouble, cJSON_GetArrayItem(jmax, c)->valuedouble, lo, hi);
		if (mn) mn[c] = lo;
		if (mx) mx[c] = hi;
	}
	free(v);
}

static const cJSON *primitive(const glb *g, int mesh)
{
	const cJSON *m = cJSON_GetArrayItem(arr(g->doc, "meshes"), mesh);
	assert_non_null(m);
	const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "primitives"), 0);
	assert_non_null(p);
	return p;
}

static int attribute(const cJSON *prim, const char *name)
{
	return num(cJSON_GetObjectItemCaseSensitive(prim, "attributes"), name, -1);
}

/** Decodes a PNG held in an image (bufferView) to RGBA8. */
static uint8_t *decode_image(const glb *g, int image, uint32_t *w, uint32_t *h)
{
	const cJSON *im = cJSON_GetArrayItem(arr(g->doc, "images"), image);
	assert_non_null(im);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(im, "mimeType")->valuestring, "image/png");
	size_t size;
	const uint8_t *p = view_bytes(g, num(im, "bufferView", -1), &size);
	spng_ctx *ctx = spng_ctx_new(0);
	assert_non_null(ctx);
	assert_int_equal(spng_set_png_buffer(ctx, p, size), 0);
	struct spng_ihdr ihdr;
	assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
	size_t len;
	assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &len), 0);
	uint8_t *px = malloc(len);
	assert_non_null(px);
	assert_int_equal(spng_decode_image(ctx, px, len, SPNG_FMT_RGBA8, 0), 0);
	spng_ctx_free(ctx);
	*w = ihdr.width;
	*h = ihdr.height;
	return px;
}

// -- Corpus: every MDL3/4/5 file

static void check_corpus_scene(const char *path, const gsio_scene *s)
{
	glb g;
	glb_write(&g, s, 0, 0);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), (int)s->meshes_count);
	const cJSON *prim = primitive(&g, 0);

	// Positions: count, exact min/max, and every value is the axis-changed
	// scene position (glTF x,y,z = scene y,z,x).
	int pa = attribute(prim, "POSITION");
	size_t count;
	int nc;
	double *pos = read_accessor(&g, pa, &count, &nc);
	assert_int_equal(count, m->vertex_count);
	assert_int_equal(nc, 3);
	for (size_t v = 0; v < count; v++) {
		assert_true(pos[3 * v + 0] == m->positions[3 * v + 1]);
		assert_true(pos[3 * v + 1] == m->positions[3 * v + 2]);
		assert_true(pos[3 * v + 2] == m->positions[3 * v + 0]);
	}
	free(pos);
	check_min_max(&g, pa, NULL, NULL);

	// Normals unit length, indices in range and equal to the scene's.
	double *nrm = read_accessor(&g, attribute(prim, "NORMAL"), &count, &nc);
	assert_int_equal(count, m->vertex_count);
	for (size_t v = 0; v < count; v++) {
		double l = sqrt(nrm[3 * v] * nrm[3 * v] + nrm[3 * v + 1] * nrm[3 * v + 1] +
		                nrm[3 * v + 2] * nrm[3 * v + 2]);
		assert_true(fabs(l - 1) < 1e-6);
	}
	free(nrm);
	double *idx = read_accessor(&g, num(prim, "indices", -1), &count, &nc);
	assert_int_equal(count, m->index_count);
	for (size_t i = 0; i < count; i++) assert_true(idx[i] == m->indices[i]);
	free(idx);
	if (m->uvs) {
		double *uv = read_accessor(&g, attribute(prim, "TEXCOORD_0"), &count, &nc);
		assert_int_equal(count, m->vertex_count);
		for (size_t i = 0; i < 2 * count; i++) assert_true(uv[i] == m->uvs[i]);
		free(uv);
	} else {
		assert_int_equal(attribute(prim, "TEXCOORD_0"), -1);
	}

	// Morph targets: one per frame, named like the frames; base + delta
	// gives each frame's positions back (to float rounding).
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(prim, "targets");
	assert_int_equal(cJSON_GetArraySize(targets), (int)m->frames_count);
	const cJSON *mj = cJSON_GetArrayItem(arr(g.doc, "meshes"), 0);
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(mj, "extras"), "targetNames");
	assert_int_equal(cJSON_GetArraySize(names), (int)m->frames_count);
	for (size_t f = 0; f < m->frames_count; f++) {
		assert_string_equal(cJSON_GetArrayItem(names, (int)f)->valuestring, m->frames[f].name);
		int ta = num(cJSON_GetArrayItem(targets, (int)f), "POSITION", -1);
		double *d = read_accessor(&g, ta, &count, &nc);
		assert_int_equal(count, m->vertex_count);
		check_min_max(&g, ta, NULL, NULL);
		for (size_t v = 0; v < count; v++)
			for (int k = 0; k < 3; k++) {
				double want = m->frames[f].positions[3 * v + (size_t)((k + 1) % 3)];
				double base = m->positions[3 * v + (size_t)((k + 1) % 3)];
				assert_true(fabs(base + d[3 * v + (size_t)k] - want) <= 1e-5 * (1 + fabs(want)));
			}
		free(d);
	}

	// Animations: one per clip, weights of (targets x keys) values, target
	// first+k at 1 on key k.
	const cJSON *anims = arr(g.doc, "animations");
	assert_int_equal(cJSON_GetArraySize(anims), (int)s->clips_count);
	for (size_t c = 0; c < s->clips_count; c++) {
		const gsio_clip *clip = &s->clips[c];
		const cJSON *a = cJSON_GetArrayItem(anims, (int)c);
		assert_string_equal(cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring, clip->name);
		const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "channels"), 0);
		const cJSON *tg = cJSON_GetObjectItemCaseSensitive(ch, "target");
		assert_string_equal(cJSON_GetObjectItemCaseSensitive(tg, "path")->valuestring, "weights");
		const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(a, "samplers"),
		                                      num(ch, "sampler", -1));
		size_t nk, nv;
		double *times = read_accessor(&g, num(smp, "input", -1), &nk, &nc);
		double *w = read_accessor(&g, num(smp, "output", -1), &nv, &nc);
		check_min_max(&g, num(smp, "input", -1), NULL, NULL);
		assert_int_equal(nk, clip->frame_count);
		assert_int_equal(nv, nk * m->frames_count);
		for (size_t k = 0; k < nk; k++) {
			assert_true(fabs(times[k] - (double)k / clip->fps) < 1e-6);
			for (size_t t = 0; t < m->frames_count; t++)
				assert_true(w[k * m->frames_count + t] == (t == clip->first_frame + k ? 1.0 : 0.0));
		}
		free(times);
		free(w);
	}

	// Images: every skin, decoded back to the same pixels.
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), (int)s->images_count);
	for (size_t i = 0; i < s->images_count; i++) {
		uint32_t w, h;
		uint8_t *px = decode_image(&g, (int)i, &w, &h);
		assert_int_equal(w, s->images[i].width);
		assert_int_equal(h, s->images[i].height);
		assert_memory_equal(px, s->images[i].rgba, (size_t)w * h * 4);
		free(px);
	}
	// Materials: all of them; extra skins as KHR_materials_variants.
	int nmat = cJSON_GetArraySize(arr(g.doc, "materials"));
	assert_int_equal(nmat, (int)s->materials_count);
	if (s->materials_count > 1) {
		const cJSON *ext = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(g.doc, "extensions"), "KHR_materials_variants");
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ext, "variants")),
		                 (int)s->materials_count);
		const cJSON *maps = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(prim, "extensions"),
		                                     "KHR_materials_variants"),
		    "mappings");
		assert_int_equal(cJSON_GetArraySize(maps), (int)s->materials_count);
	}
	print_message("%s: %zu vertices, %zu frames, %zu clips, %zu images -> %zu bytes\n",
	              gsioi_path_base(path), m->vertex_count, m->frames_count, s->clips_count,
	              s->images_count, g.out.files[0].size);
	glb_free(&g);
}

static void test_corpus_mdl(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char **list;
	size_t n = t_list_files(t_corpus_path("mdl"), ".mdl", &list), done = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_error err;
		gsio_scene *s = gsio_load_file(list[i], NULL, &err);
		if (!s) {
			// MDL2 / MDL7: refused by the importer, nothing to write.
			assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
			free(list[i]);
			continue;
		}
		check_corpus_scene(list[i], s);
		gsio_scene_free(s);
		free(list[i]);
		done++;
	}
	free(list);
	print_message("%zu corpus MDL files written and read back\n", done);
	assert_true(done >= 9);
}

/** The earth's two skins: both images, both materials, two variants. */
static void test_corpus_two_skins(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_error err;
	gsio_scene *s = gsio_load_file(t_corpus_path("mdl/mdl5-earth.mdl"), NULL, &err);
	assert_non_null(s);
	assert_int_equal(s->images_count, 2);
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "textures")), 2);
	const cJSON *used = arr(g.doc, "extensionsUsed");
	assert_string_equal(cJSON_GetArrayItem(used, 0)->valuestring, "KHR_materials_variants");
	assert_null(arr(g.doc, "extensionsRequired")); // viewers without it still show skin0
	glb_free(&g);
	gsio_scene_free(s);
}

// -- Synthetic scenes

static gsio_scene *new_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsioi_scene_create(NULL, &err);
	assert_non_null(s);
	s->format = "TEST";
	return s;
}

/** One triangle with a known point (1,2,3) and a 2x1 image. */
static gsio_scene *triangle_scene(void)
{
	gsio_scene *s = new_scene();
	gsio_error err;
	gsio_mesh *m = s->meshes = GSIO_NEW_ARRAY(s->arena, gsio_mesh, 1, &err);
	s->meshes_count = 1;
	m->name = "tri";
	m->vertex_count = 3;
	static float pos[9] = {1, 2, 3, 4, 0, 0, 0, 5, 0};
	static float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
	static float uv[6] = {0, 0, 1, 0, 0, 1};
	static uint32_t idx[3] = {0, 1, 2};
	m->positions = pos;
	m->normals = nrm;
	m->uvs = uv;
	m->indices = idx;
	m->index_count = 3;
	m->material = 0;
	s->images = GSIO_NEW_ARRAY(s->arena, gsio_image, 1, &err);
	s->images_count = 1;
	s->images[0].name = "skin0";
	s->images[0].width = 2;
	s->images[0].height = 1;
	static uint8_t px[8] = {255, 0, 0, 255, 0, 0, 255, 128}; // red, half-transparent blue
	s->images[0].rgba = px;
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, 1, &err);
	s->materials_count = 1;
	s->materials[0].name = "m";
	s->materials[0].base_color_image = 0;
	s->materials[0].detail_image = -1;
	for (int k = 0; k < 4; k++) s->materials[0].base_color[k] = 1;
	return s;
}

static void test_axes(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	struct {
		uint32_t flags;
		float scale;
		double want[3];
	} cases[] = {
	    {0, 0, {2, 3, 1}},                    // (y, z, x)
	    {GSIO_GLTF_KEEP_AXES, 0, {1, 2, 3}},  // as stored
	    {0, 2.0f, {4, 6, 2}},                 // scaled after the change
	    {GSIO_GLTF_KEEP_AXES, 0.5f, {0.5, 1, 1.5}},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		glb g;
		glb_write(&g, s, cases[c].flags, cases[c].scale);
		const cJSON *prim = primitive(&g, 0);
		size_t count;
		int nc;
		double *p = read_accessor(&g, attribute(prim, "POSITION"), &count, &nc);
		for (int k = 0; k < 3; k++) assert_true(p[k] == cases[c].want[k]);
		free(p);
		// The up normal (scene +Z) becomes glTF +Y, or stays +Z.
		double *n = read_accessor(&g, attribute(prim, "NORMAL"), &count, &nc);
		if (cases[c].flags & GSIO_GLTF_KEEP_AXES)
			assert_true(n[2] == 1.0);
		else
			assert_true(n[1] == 1.0);
		free(n);
		// The change is a rotation: the triangle's winding-normal stays
		// aligned with its vertex normals (no mirror).
		double *q = read_accessor(&g, attribute(prim, "POSITION"), &count, &nc);
		double e1[3], e2[3], cr[3];
		for (int k = 0; k < 3; k++) {
			e1[k] = q[3 + k] - q[k];
			e2[k] = q[6 + k] - q[k];
		}
		cr[0] = e1[1] * e2[2] - e1[2] * e2[1];
		cr[1] = e1[2] * e2[0] - e1[0] * e2[2];
		cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
		double scene_cross_z = (4 - 1) * (5 - 2) - (0 - 2) * (0 - 1); // scene-space z of cross
		double out_up = (cases[c].flags & GSIO_GLTF_KEEP_AXES) ? cr[2] : cr[1];
		assert_true((scene_cross_z > 0) == (out_up > 0));
		free(q);
		glb_free(&g);
	}
	gsio_scene_free(s);
}

static void test_png_alpha(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	glb g;
	glb_write(&g, s, GSIO_GLTF_NO_ANIMATION, 0);
	uint32_t w, h;
	uint8_t *px = decode_image(&g, 0, &w, &h);
	assert_int_equal(w, 2);
	assert_int_equal(h, 1);
	assert_memory_equal(px, s->images[0].rgba, 8); // alpha kept: RGBA PNG
	free(px);
	// No frames, no animation: no targets, no animations array at all.
	assert_null(cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets"));
	assert_null(arr(g.doc, "animations"));
	glb_free(&g);
	// Opaque pixels: an RGB PNG, same pixels.
	uint8_t op[16] = {1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255};
	uint8_t *png;
	size_t size;
	gsio_error err;
	assert_int_equal(gsio_png_encode(op, 2, 2, &png, &size, &err), 0);
	assert_int_equal(png[25], 2); // IHDR colour type: truecolour
	free(png);
	assert_int_equal(gsio_png_encode(s->images[0].rgba, 2, 1, &png, &size, &err), 0);
	assert_int_equal(png[25], 6); // truecolour + alpha
	free(png);
	assert_int_not_equal(gsio_png_encode(op, 0, 2, &png, &size, &err), 0);
	gsio_scene_free(s);
}

// A skeleton of 3 joints (a chain with rotations), a mesh of 4 vertices
// whose vertex 0 has 5 influences (joint 1 twice), vertex 3 none; a
// 4-frame animation; a 3-frame camera.
static void quat_axis(float q[4], float ax, float ay, float az, float deg)
{
	float l = sqrtf(ax * ax + ay * ay + az * az), h = deg * (float)T_PI / 360.0f;
	q[0] = ax / l * sinf(h);
	q[1] = ay / l * sinf(h);
	q[2] = az / l * sinf(h);
	q[3] = cosf(h);
}

static void qmul(const float a[4], const float b[4], float o[4])
{
	o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
	o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
	o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
	o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static void qrot(const float q[4], const float v[3], float o[3])
{
	float p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
	qmul(q, p, t);
	qmul(t, c, r);
	o[0] = r[0];
	o[1] = r[1];
	o[2] = r[2];
}

static gsio_scene *skinned_scene(void)
{
	gsio_scene *s = new_scene();
	gsio_error err;
	gsio_arena *a = s->arena;
	s->joints_count = 3;
	s->joints = GSIO_NEW_ARRAY(a, gsio_joint, 3, &err);
	const char *names[3] = {"origin", "spine", "head"};
	float t[3][3] = {{0, 0, 0}, {0, 0, 10}, {2, 0, 8}};
	float axes[3][4] = {{0, 0, 1, 30}, {1, 0, 0, 45}, {0, 1, 1, -60}};
	for (int j = 0; j < 3; j++) {
		gsio_joint *jt = &s->joints[j];
		jt->name = names[j];
		jt->parent = j - 1;
		memcpy(jt->translation, t[j], sizeof(t[j]));
		quat_axis(jt->rotation, axes[j][0], axes[j][1], axes[j][2], axes[j][3]);
		if (j == 0) {
			memcpy(jt->world_translation, jt->translation, 12);
			memcpy(jt->world_rotation, jt->rotation, 16);
		} else {
			const gsio_joint *p = &s->joints[j - 1];
			float r[3];
			qrot(p->world_rotation, jt->translation, r);
			for (int k = 0; k < 3; k++) jt->world_translation[k] = p->world_translation[k] + r[k];
			qmul(p->world_rotation, jt->rotation, jt->world_rotation);
		}
	}
	gsio_mesh *m = s->meshes = GSIO_NEW_ARRAY(a, gsio_mesh, 1, &err);
	s->meshes_count = 1;
	m->name = "body";
	m->vertex_count = 4;
	static float pos[12] = {0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 20};
	static float nrm[12] = {0, 0, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
	static uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	m->positions = pos;
	m->normals = nrm;
	m->indices = idx;
	m->index_count = 6;
	m->material = -1;
	static uint32_t off[5] = {0, 5, 6, 8, 8};
	static uint32_t wj[8] = {0, 1, 2, 1, 2, 2, 0, 1};
	static float wv[8] = {0.1f, 0.2f, 0.3f, 0.25f, 0.15f, 3.0f, 1.0f, 1.0f}; // not normalised
	m->weights.offsets = off;
	m->weights.joints = wj;
	m->weights.values = wv;
	m->weights.count = 8;

	s->animations_count = 1;
	gsio_skel_anim *an = s->animations = GSIO_NEW_ARRAY(a, gsio_skel_anim, 1, &err);
	an->name = "wave";
	an->fps = 24;
	an->frames_count = 4;
	an->joints_count = 3;
	an->translations = GSIO_NEW_ARRAY(a, float, 4 * 3 * 3, &err);
	an->rotations = GSIO_NEW_ARRAY(a, float, 4 * 3 * 4, &err);
	for (int f = 0; f < 4; f++)
		for (int j = 0; j < 3; j++) {
			float *tt = an->translations + 3 * (f * 3 + j), *rr = an->rotations + 4 * (f * 3 + j);
			memcpy(tt, s->joints[j].translation, 12);
			tt[0] += (float)f;
			quat_axis(rr, axes[j][0], axes[j][1], axes[j][2], axes[j][3] + 20.0f * (float)f);
			if (f == 2) for (int k = 0; k < 4; k++) rr[k] = -rr[k]; // same rotation, other sign
		}

	s->cameras_count = 1;
	gsio_camera *c = s->cameras = GSIO_NEW_ARRAY(a, gsio_camera, 1, &err);
	c->name = "cam";
	c->fps = 30;
	c->frames_count = 3;
	c->positions = GSIO_NEW_ARRAY(a, float, 9, &err);
	c->rotations = GSIO_NEW_ARRAY(a, float, 12, &err);
	c->fov = GSIO_NEW_ARRAY(a, float, 3, &err);
	for (int f = 0; f < 3; f++) {
		c->positions[3 * f] = -100.0f + (float)f;
		c->positions[3 * f + 2] = 30;
		quat_axis(c->rotations + 4 * f, 0, 0, 1, 10.0f * (float)f); // pan
		c->fov[f] = 90.0f;
	}
	static uint32_t cuts[1] = {2};
	c->cuts = cuts;
	c->cuts_count = 1;
	return s;
}

typedef struct m4 {
	double m[16]; // column-major
} m4;

static m4 m4_trs(const cJSON *node)
{
	double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1};
	const cJSON *jt = cJSON_GetObjectItemCaseSensitive(node, "translation");
	const cJSON *jr = cJSON_GetObjectItemCaseSensitive(node, "rotation");
	for (int k = 0; jt && k < 3; k++) t[k] = cJSON_GetArrayItem(jt, k)->valuedouble;
	for (int k = 0; jr && k < 4; k++) q[k] = cJSON_GetArrayItem(jr, k)->valuedouble;
	assert_null(cJSON_GetObjectItemCaseSensitive(node, "matrix"));
	double x = q[0], y = q[1], z = q[2], w = q[3];
	m4 r = {{1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
	         2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
	         2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
	         t[0], t[1], t[2], 1}};
	return r;
}

static m4 m4_mul(const m4 *a, const m4 *b)
{
	m4 o;
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			double v = 0;
			for (int k = 0; k < 4; k++) v += a->m[k * 4 + r] * b->m[c * 4 + k];
			o.m[c * 4 + r] = v;
		}
	return o;
}

/** World matrix of a node, composed from the TRS of its ancestors. */
static m4 world_of(const cJSON *nodes, int n)
{
	m4 w = m4_trs(cJSON_GetArrayItem(nodes, n));
	for (;;) {
		int parent = -1;
		for (int i = 0; i < cJSON_GetArraySize(nodes) && parent < 0; i++) {
			const cJSON *ch = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, i), "children");
			for (int k = 0; k < cJSON_GetArraySize(ch); k++)
				if (cJSON_GetArrayItem(ch, k)->valueint == n) parent = i;
		}
		if (parent < 0) return w;
		m4 p = m4_trs(cJSON_GetArrayItem(nodes, parent));
		w = m4_mul(&p, &w);
		n = parent;
	}
}

static void dump(const glb *g, const char *name)
{
	const char *dir = getenv("GSIO_GLTF_DUMP_DIR");
	if (!dir || !dir[0]) return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t_write_file(path, g->out.files[0].data, g->out.files[0].size);
	print_message("wrote %s\n", path);
}

static void test_skinned(void **state)
{
	(void)state;
	gsio_scene *s = skinned_scene();
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "synthetic_skinned.glb");
	const cJSON *nodes = arr(g.doc, "nodes");
	const cJSON *skin = cJSON_GetArrayItem(arr(g.doc, "skins"), 0);
	assert_non_null(skin);
	const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
	assert_int_equal(cJSON_GetArraySize(joints), 3);

	// IBM * world(bind) = identity, world composed from the node tree.
	size_t count;
	int nc;
	double *ibm = read_accessor(&g, num(skin, "inverseBindMatrices", -1), &count, &nc);
	assert_int_equal(count, 3);
	assert_int_equal(nc, 16);
	double worst = 0;
	for (int j = 0; j < 3; j++) {
		const cJSON *jn = cJSON_GetArrayItem(nodes, cJSON_GetArrayItem(joints, j)->valueint);
		assert_string_equal(cJSON_GetObjectItemCaseSensitive(jn, "name")->valuestring,
		                    s->joints[j].name);
		m4 w = world_of(nodes, cJSON_GetArrayItem(joints, j)->valueint), inv;
		memcpy(inv.m, ibm + 16 * j, sizeof(inv.m));
		assert_true(inv.m[3] == 0 && inv.m[7] == 0 && inv.m[11] == 0 && inv.m[15] == 1);
		m4 id = m4_mul(&inv, &w);
		for (int k = 0; k < 16; k++) {
			double e = fabs(id.m[k] - (k % 5 == 0 ? 1.0 : 0.0));
			if (e > worst) worst = e;
		}
		// World translation = axis-changed scene world translation.
		const float *wt = s->joints[j].world_translation;
		assert_true(fabs(w.m[12] - wt[1]) < 1e-4 && fabs(w.m[13] - wt[2]) < 1e-4 &&
		            fabs(w.m[14] - wt[0]) < 1e-4);
	}
	free(ibm);
	print_message("|IBM * world - I| = %.3g\n", worst);
	assert_true(worst < 1e-5);

	// Weights: 5 influences (4 distinct joints after merging) -> 1 set;
	// every vertex sums to 1; unused slots are joint 0 with weight 0; the
	// vertex without weights is bound to joint 0.
	const cJSON *prim = primitive(&g, 0);
	assert_true(attribute(prim, "JOINTS_0") >= 0);
	assert_int_equal(attribute(prim, "JOINTS_1"), -1); // joint 1 twice: merged, 3 distinct
	double *jv = read_accessor(&g, attribute(prim, "JOINTS_0"), &count, &nc);
	double *wv = read_accessor(&g, attribute(prim, "WEIGHTS_0"), &count, &nc);
	assert_int_equal(count, 4);
	for (size_t v = 0; v < 4; v++) {
		float sum = 0;
		for (int k = 0; k < 4; k++) {
			sum += (float)wv[4 * v + (size_t)k];
			if (wv[4 * v + (size_t)k] == 0) assert_true(jv[4 * v + (size_t)k] == 0);
		}
		assert_true(fabsf(sum - 1.0f) < 1e-6f);
	}
	// Vertex 0: joint 1 = 0.2 + 0.25 = 0.45, joint 2 = 0.45, joint 0 = 0.1 (of 1.0).
	// (0.3f + 0.15f is a hair above 0.2f + 0.25f: joint 2 sorts first.)
	assert_true(fabs(wv[0] - 0.45) < 1e-6 && fabs(wv[1] - 0.45) < 1e-6 && fabs(wv[2] - 0.1) < 1e-6);
	assert_true(jv[0] == 2 && jv[1] == 1 && jv[2] == 0 && wv[3] == 0);
	assert_true(wv[4] == 1 && jv[4] == 2);                     // 3.0 normalised
	assert_true(wv[8] == 0.5 && wv[9] == 0.5);                 // 1 + 1
	assert_true(wv[12] == 1 && jv[12] == 0);                   // unweighted
	free(jv);
	free(wv);
	assert_int_equal(g.out.warnings_count, 1); // "1 vertices have no weight"

	// Animations: the skeletal one (2 channels per joint, 4 keys at 24 fps,
	// rotations kept in one hemisphere) and the camera's.
	const cJSON *anims = arr(g.doc, "animations");
	assert_int_equal(cJSON_GetArraySize(anims), 2);
	const cJSON *wave = cJSON_GetArrayItem(anims, 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(wave, "name")->valuestring, "wave");
	const cJSON *chs = cJSON_GetObjectItemCaseSensitive(wave, "channels");
	assert_int_equal(cJSON_GetArraySize(chs), 6);
	for (int i = 0; i < 6; i++) {
		const cJSON *ch = cJSON_GetArrayItem(chs, i);
		const cJSON *smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(wave, "samplers"),
		                                      num(ch, "sampler", -1));
		double *tm = read_accessor(&g, num(smp, "input", -1), &count, &nc);
		assert_int_equal(count, 4);
		assert_true(fabs(tm[3] - 3.0 / 24.0) < 1e-7);
		free(tm);
		const char *path = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(ch, "target"), "path")->valuestring;
		if (!strcmp(path, "rotation")) {
			double *q = read_accessor(&g, num(smp, "output", -1), &count, &nc);
			for (size_t k = 1; k < count; k++) {
				double d = 0;
				for (int c = 0; c < 4; c++) d += q[4 * k + (size_t)c] * q[4 * (k - 1) + (size_t)c];
				assert_true(d > 0);
			}
			free(q);
		}
	}

	// Camera: yfov from 90 degrees horizontal at 4:3; the scene camera looks
	// along its +X: with pan 0 that is scene +X = glTF +Z, so the node's
	// local -Z must map to +Z.
	const cJSON *cam = cJSON_GetArrayItem(arr(g.doc, "cameras"), 0);
	const cJSON *persp = cJSON_GetObjectItemCaseSensitive(cam, "perspective");
	assert_true(fabs(dnum(persp, "yfov") - 2 * atan(tan(T_PI / 4) * 0.75)) < 1e-9);
	assert_true(fabs(dnum(persp, "aspectRatio") - 4.0 / 3.0) < 1e-9);
	int cam_node = -1;
	for (int i = 0; i < cJSON_GetArraySize(nodes); i++)
		if (num(cJSON_GetArrayItem(nodes, i), "camera", -1) == 0) cam_node = i;
	assert_true(cam_node >= 0);
	m4 cw = world_of(nodes, cam_node);
	assert_true(fabs(-cw.m[8] - 0) < 1e-6 && fabs(-cw.m[9] - 0) < 1e-6 && fabs(-cw.m[10] - 1) < 1e-6);
	assert_true(fabs(cw.m[5] - 1) < 1e-6); // local +Y = up = glTF +Y
	assert_true(cw.m[12] == 0 && cw.m[13] == 30 && cw.m[14] == -100);

	// The cut at frame 2 is a jump: 3 frames give 4 keys, the extra one just
	// before frame 2's time holding frame 1's position, so nothing sweeps
	// from shot to shot.
	const cJSON *cam_anim = cJSON_GetArrayItem(anims, 1);
	const cJSON *cam_ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cam_anim, "channels"), 0);
	const cJSON *cam_smp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cam_anim, "samplers"),
	                                          num(cam_ch, "sampler", -1));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(
	                        cJSON_GetObjectItemCaseSensitive(cam_ch, "target"), "path")->valuestring,
	                    "translation");
	double *ct = read_accessor(&g, num(cam_smp, "input", -1), &count, &nc);
	double *cp = read_accessor(&g, num(cam_smp, "output", -1), &count, &nc);
	assert_int_equal(count, 4);
	assert_true(ct[1] < ct[2] && ct[2] < ct[3] && ct[3] - ct[2] < 0.02 / 30.0);
	assert_true(fabs(ct[3] - 2.0 / 30.0) < 1e-7);
	assert_true(cp[3 * 2 + 2] == cp[3 * 1 + 2]);      // held: frame 1's position (glTF z = scene x)
	assert_true(cp[3 * 3 + 2] == cp[3 * 1 + 2] + 1.0); // then frame 2's
	free(ct);
	free(cp);
	glb_free(&g);

	// Source axes kept: the camera's -Z maps to scene +X, up to +Z.
	glb_write(&g, s, GSIO_GLTF_KEEP_AXES, 0);
	nodes = arr(g.doc, "nodes");
	cw = world_of(nodes, cam_node);
	assert_true(fabs(-cw.m[8] - 1) < 1e-6 && fabs(cw.m[6] - 1) < 1e-6);
	glb_free(&g);
	gsio_scene_free(s);
}

static void test_two_roots(void **state)
{
	(void)state;
	gsio_scene *s = skinned_scene();
	s->joints[1].parent = -1; // a second root: the writer adds a common parent
	memcpy(s->joints[1].world_translation, s->joints[1].translation, 12);
	memcpy(s->joints[1].world_rotation, s->joints[1].rotation, 16);
	const gsio_joint *p = &s->joints[1];
	gsio_joint *c = &s->joints[2];
	float r[3];
	qrot(p->world_rotation, c->translation, r);
	for (int k = 0; k < 3; k++) c->world_translation[k] = p->world_translation[k] + r[k];
	qmul(p->world_rotation, c->rotation, c->world_rotation);
	s->cameras_count = 0;
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "synthetic_two_roots.glb");
	const cJSON *skin = cJSON_GetArrayItem(arr(g.doc, "skins"), 0);
	const cJSON *root = cJSON_GetArrayItem(arr(g.doc, "nodes"), num(skin, "skeleton", -1));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "children")), 2);
	glb_free(&g);
	gsio_scene_free(s);
}

/** 9 influences on one vertex: 3 sets of JOINTS/WEIGHTS. */
static void test_many_influences(void **state)
{
	(void)state;
	gsio_scene *s = skinned_scene();
	gsio_error err;
	gsio_mesh *m = &s->meshes[0];
	uint32_t *off = GSIO_NEW_ARRAY(s->arena, uint32_t, 5, &err);
	uint32_t *wj = GSIO_NEW_ARRAY(s->arena, uint32_t, 12, &err);
	float *wv = GSIO_NEW_ARRAY(s->arena, float, 12, &err);
	// 9 influences need 9 distinct joints: grow the skeleton to 9 (a chain of
	// identity joints below "head").
	gsio_joint *j = GSIO_NEW_ARRAY(s->arena, gsio_joint, 9, &err);
	memcpy(j, s->joints, 3 * sizeof(*j));
	for (int i = 3; i < 9; i++) {
		j[i] = j[2];
		j[i].name = "extra";
		j[i].parent = i - 1;
		memset(j[i].translation, 0, 12);
		j[i].rotation[0] = j[i].rotation[1] = j[i].rotation[2] = 0;
		j[i].rotation[3] = 1;
	}
	s->joints = j;
	s->joints_count = 9;
	s->animations_count = 0;
	s->cameras_count = 0;
	for (uint32_t i = 0; i < 9; i++) {
		wj[i] = i;
		wv[i] = (float)(i + 1);
	}
	off[0] = 0;
	off[1] = 9;
	off[2] = 10;
	off[3] = 11;
	off[4] = 12;
	wj[9] = 1, wv[9] = 1;
	wj[10] = 2, wv[10] = 1;
	wj[11] = 3, wv[11] = 1;
	m->weights.offsets = off;
	m->weights.joints = wj;
	m->weights.values = wv;
	m->weights.count = 12;
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "synthetic_9_weights.glb");
	const cJSON *prim = primitive(&g, 0);
	assert_true(attribute(prim, "JOINTS_2") >= 0 && attribute(prim, "WEIGHTS_2") >= 0);
	assert_int_equal(attribute(prim, "JOINTS_3"), -1);
	size_t count;
	int nc;
	float sum = 0;
	for (int set = 0; set < 3; set++) {
		char key[16];
		snprintf(key, sizeof(key), "WEIGHTS_%d", set);
		double *w = read_accessor(&g, attribute(prim, key), &count, &nc);
		for (int k = 0; k < 4; k++) sum += (float)w[k];
		if (set == 0) assert_true(fabs(w[0] - 9.0 / 45) < 1e-6); // largest first
		free(w);
	}
	assert_true(fabsf(sum - 1) < 1e-6f);
	glb_free(&g);
	gsio_scene_free(s);
}

/** A clip animation of a 3-frame mesh, checked end to end. */
static gsio_scene *morph_scene(void)
{
	gsio_scene *s = triangle_scene();
	gsio_error err;
	gsio_mesh *m = &s->meshes[0];
	m->frames_count = 3;
	m->frames = GSIO_NEW_ARRAY(s->arena, gsio_morph_frame, 3, &err);
	const char *names[3] = {"walk0", "walk1", "run0"};
	for (int f = 0; f < 3; f++) {
		m->frames[f].name = names[f];
		m->frames[f].positions = GSIO_NEW_ARRAY(s->arena, float, 9, &err);
		m->frames[f].normals = m->normals;
		memcpy(m->frames[f].positions, m->positions, 9 * sizeof(float));
		m->frames[f].positions[2] += (float)f; // vertex 0 rises
	}
	s->clips_count = 2;
	s->clips = GSIO_NEW_ARRAY(s->arena, gsio_clip, 2, &err);
	s->clips[0] = (gsio_clip){"walk", 0, 2, 10};
	s->clips[1] = (gsio_clip){"run", 2, 1, 10};
	return s;
}

static void test_morph(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene();
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "synthetic_morph.glb");
	const cJSON *prim = primitive(&g, 0);
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(prim, "targets");
	assert_int_equal(cJSON_GetArraySize(targets), 3);
	// Frame 0 = base: an accessor without data (zeros by the spec).
	const cJSON *a0 = cJSON_GetArrayItem(arr(g.doc, "accessors"),
	                                     num(cJSON_GetArrayItem(targets, 0), "POSITION", -1));
	assert_null(cJSON_GetObjectItemCaseSensitive(a0, "bufferView"));
	// Frame 2: vertex 0 moves by 2 along scene z = glTF y.
	size_t count;
	int nc;
	double *d = read_accessor(&g, num(cJSON_GetArrayItem(targets, 2), "POSITION", -1), &count, &nc);
	assert_true(d[1] == 2 && d[0] == 0 && d[2] == 0 && d[4] == 0);
	free(d);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "animations")), 2);
	glb_free(&g);
	gsio_scene_free(s);
}

// -- SEPARATE mode and files

static void test_separate(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene();
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_SEPARATE;
	o.name = "my model";
	gsio_gltf_output out;
	gsio_error err;
	assert_int_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	assert_int_equal(out.files_count, 3);
	assert_string_equal(out.files[0].name, "my model.gltf");
	assert_string_equal(out.files[1].name, "my model.bin");
	assert_string_equal(out.files[2].name, "my model_skin0.png");
	cJSON *doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_non_null(doc);
	const cJSON *b = cJSON_GetArrayItem(arr(doc, "buffers"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(b, "uri")->valuestring, "my%20model.bin");
	assert_int_equal(num(b, "byteLength", 0), out.files[1].size);
	const cJSON *im = cJSON_GetArrayItem(arr(doc, "images"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(im, "uri")->valuestring,
	                    "my%20model_skin0.png");
	assert_memory_equal(out.files[2].data, "\x89PNG", 4);
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	// An image named after its texture file (MD5: "guard1_body.png") is
	// written without a doubled extension; the glTF name keeps the original.
	s->images[0].name = "skin0.TGA";
	assert_int_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	assert_int_equal(out.files_count, 3);
	assert_string_equal(out.files[2].name, "my model_skin0.png");
	doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_non_null(doc);
	im = cJSON_GetArrayItem(arr(doc, "images"), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(im, "name")->valuestring, "skin0.TGA");
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	gsio_scene_free(s);
}

static size_t count_tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp")) n++;
	closedir(d);
	return n;
}

static void test_write_file(void **state)
{
	(void)state;
	char dir[4096], path[4200], bin[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_files", GSIO_BINARY_DIR);
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/m.gltf", dir);
	snprintf(bin, sizeof(bin), "%s/m.bin", dir);
	remove(path);
	remove(bin);
	char png[4200];
	snprintf(png, sizeof(png), "%s/m_skin0.png", dir);
	remove(png);
	gsio_scene *s = morph_scene();
	gsio_error err;
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_NO_REPLACE;
	gsio_gltf_output w;
	int rc = gsio_gltf_write_file(s, path, &o, &w, &err); // .gltf: separate
	if (rc) print_error("write_file %s: %s (%s)\n", path, err.message, err.file);
	assert_int_equal(rc, 0);
	gsio_gltf_output_free(&w);
	struct stat st;
	assert_int_equal(stat(bin, &st), 0);
	assert_int_equal(stat(png, &st), 0);
	// A second write without replacing fails and leaves the bytes as they were.
	t_write_file(bin, (const uint8_t *)"old", 3);
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	size_t size;
	uint8_t *data = t_read_file(bin, &size);
	assert_int_equal(size, 3);
	assert_memory_equal(data, "old", 3);
	free(data);
	// Replacing is allowed without the flag.
	o.flags = 0;
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(bin, &size);
	assert_true(size > 3);
	free(data);
	assert_int_equal(count_tmp_files(dir), 0);
	// A .glb path is one file.
	snprintf(path, sizeof(path), "%s/m.glb", dir);
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(path, &size);
	assert_memory_equal(data, "glTF", 4);
	free(data);
	// A directory that does not exist: an I/O error naming the path.
	snprintf(path, sizeof(path), "%s/missing/m.glb", dir);
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	gsio_scene_free(s);
}

// -- Bad scenes

static void test_bad_scenes(void **state)
{
	(void)state;
	gsio_gltf_output out;
	gsio_error err;
	gsio_scene *s = triangle_scene();
	static uint32_t bad_idx[3] = {0, 1, 3};
	s->meshes[0].indices = bad_idx;
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_int_equal(out.files_count, 0);
	gsio_scene_free(s);

	s = triangle_scene();
	static float nan_pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	nan_pos[4] = NAN;
	s->meshes[0].positions = nan_pos;
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);

	s = triangle_scene();
	gsio_gltf_opts o = {0};
	o.scale = -1;
	assert_int_not_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	s->materials[0].base_color_image = 5;
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	gsio_scene_free(s);

	s = skinned_scene();
	s->joints[2].parent = 2; // not lower than itself
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	s->joints[2].parent = 1;
	s->meshes[0].weights.joints[0] = 7; // no such joint
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	s->meshes[0].weights.joints[0] = 0;
	s->animations[0].joints_count = 2; // animation for another skeleton
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_MISMATCH);
	gsio_scene_free(s);

	// An empty scene is a valid (if empty) glTF.
	s = new_scene();
	glb g;
	glb_write(&g, s, 0, 0);
	assert_null(g.bin);
	assert_null(arr(g.doc, "buffers"));
	glb_free(&g);
	gsio_scene_free(s);
}

/** The same scene always gives the same bytes. */
static void test_deterministic(void **state)
{
	(void)state;
	gsio_scene *s = skinned_scene();
	gsio_gltf_output a, b;
	gsio_error err;
	assert_int_equal(gsio_gltf_write(s, NULL, &a, &err), 0);
	assert_int_equal(gsio_gltf_write(s, NULL, &b, &err), 0);
	assert_int_equal(a.files[0].size, b.files[0].size);
	assert_memory_equal(a.files[0].data, b.files[0].data, a.files[0].size);
	gsio_gltf_output_free(&a);
	gsio_gltf_output_free(&b);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_mdl),
	    cmocka_unit_test(test_corpus_two_skins),
	    cmocka_unit_test(test_axes),
	    cmocka_unit_test(test_png_alpha),
	    cmocka_unit_test(test_skinned),
	    cmocka_unit_test(test_two_roots),
	    cmocka_unit_test(test_many_influences),
	    cmocka_unit_test(test_morph),
	    cmocka_unit_test(test_separate),
	    cmocka_unit_test(test_write_file),
	    cmocka_unit_test(test_bad_scenes),
	    cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
