/* The glTF writer (blender_bridge/gltf*.c) on scene v2: corpus
 * files written to GLB in memory and read back here (JSON with cJSON, PNG
 * with libspng, buffers by hand), and synthetic scenes made with the public
 * builder: the axis change, instances, two skins, lights, extras, dense and
 * sparse morph targets, static models, refused scenes, file writing.
 *
 * With GSIO_GLTF_DUMP_DIR set, the synthetic scenes are also written there as
 * .glb files, for the validator and Blender (tests/e2e/gltf.cmake). */
#include "test_util.h"

#include "gsio_gltf.h"
#include "json_float.h"
#include "gsioi_internal.h"
#include "wmp_internal.h"
#include "gsioi_png.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

static const uint8_t *view_bytes_strided(const glb *g, int view, size_t *size, size_t *stride)
{
	const cJSON *v = cJSON_GetArrayItem(arr(g->doc, "bufferViews"), view);
	assert_non_null(v);
	assert_int_equal(num(v, "buffer", -1), 0);
	size_t off = (size_t)num(v, "byteOffset", 0), len = (size_t)num(v, "byteLength", 0);
	*stride = (size_t)num(v, "byteStride", 0);
	assert_true(off + len <= g->bin_size);
	assert_int_equal(off % 4, 0);
	*size = len;
	return g->bin + off;
}

static const uint8_t *view_bytes(const glb *g, int view, size_t *size)
{
	size_t stride;
	const uint8_t *p = view_bytes_strided(g, view, size, &stride);
	assert_int_equal(stride, 0); // tightly packed (only COMPACT output has strides)
	return p;
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
		size_t size, stride;
		const uint8_t *p0 = view_bytes_strided(g, view, &size, &stride);
		size_t cs = ct == 5126 || ct == 5125 ? 4 : ct == 5123 || ct == 5122 ? 2 : 1;
		size_t elem = cs * (size_t)*ncomp;
		if (stride)
			assert_true(stride >= elem && stride % 4 == 0); // KHR_mesh_quantization: elements 4-byte aligned
		else
			stride = elem;
		assert_true(*count == 0 || (*count - 1) * stride + elem <= size);
		const cJSON *nj = cJSON_GetObjectItemCaseSensitive(a, "normalized");
		bool normalized = nj && cJSON_IsTrue(nj);
		for (size_t i = 0; i < n; i++) {
			const uint8_t *p = p0 + (i / (size_t)*ncomp) * stride + (i % (size_t)*ncomp) * cs;
			if (ct == 5126) {
				float f;
				memcpy(&f, p, 4);
				out[i] = f;
			} else if (ct == 5125) {
				out[i] = rd32(p);
			} else if (ct == 5123) {
				out[i] = (double)(p[0] | p[1] << 8);
				if (normalized) out[i] /= 65535.0;
			} else if (ct == 5122) {
				out[i] = (double)(int16_t)(uint16_t)(p[0] | p[1] << 8);
				if (normalized) out[i] = fmax(out[i] / 32767.0, -1.0);
			} else if (ct == 5120) {
				out[i] = (double)(int8_t)p[0];
				if (normalized) out[i] = fmax(out[i] / 127.0, -1.0);
			} else {
				out[i] = p[0];
				if (normalized) out[i] /= 255.0;
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
/** A PNG decoded by libspng (an independent reader) to RGBA8, malloc'd. */
static uint8_t *decode_png(const uint8_t *p, size_t size, uint32_t *w, uint32_t *h)
{
	spng_ctx *ctx = spng_ctx_new(0);
	assert_non_null(ctx);
	assert_int_equal(spng_set_png_buffer(ctx, p, size), 0);
	struct spng_ihdr ihdr;
	assert_int_equal(spng_get_ihdr(ctx, &ihdr), 0);
	size_t len;
	assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &len), 0);
	uint8_t *px = malloc(len);
	assert_non_null(px);
	// As a viewer shows it: a palette PNG's tRNS alpha applied.
	assert_int_equal(spng_decode_image(ctx, px, len, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS), 0);
	spng_ctx_free(ctx);
	*w = ihdr.width;
	*h = ihdr.height;
	return px;
}

static uint8_t *decode_image(const glb *g, int image, uint32_t *w, uint32_t *h)
{
	const cJSON *im = cJSON_GetArrayItem(arr(g->doc, "images"), image);
	assert_non_null(im);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(im, "mimeType")->valuestring, "image/png");
	size_t size;
	const uint8_t *p = view_bytes(g, num(im, "bufferView", -1), &size);
	return decode_png(p, size, w, h);
}

/** Whether the PNG has a chunk of this type (walks the chunk list). */
static bool png_has_chunk(const uint8_t *p, size_t size, const char type[4])
{
	for (size_t at = 8; at + 12 <= size;) {
		size_t len = (size_t)p[at] << 24 | (size_t)p[at + 1] << 16 | (size_t)p[at + 2] << 8 | p[at + 3];
		if (!memcmp(p + at + 4, type, 4)) return true;
		at += 12 + len;
	}
	return false;
}

/** The PNG decodes (libspng) to w x h pixels equal to rgba. */
static void assert_png_pixels(const uint8_t *png, size_t size, const uint8_t *rgba, uint32_t w,
                              uint32_t h)
{
	uint32_t w2, h2;
	uint8_t *px = decode_png(png, size, &w2, &h2);
	assert_int_equal(w2, w);
	assert_int_equal(h2, h);
	assert_memory_equal(px, rgba, (size_t)w * h * 4);
	free(px);
}

/** Encodes rgba with gsioi_png_encode, checks the colour type chosen and that
 *  the PNG decodes to the same pixels. */
static void png_round_trip(const uint8_t *rgba, uint32_t w, uint32_t h, int colour_type)
{
	uint8_t *png;
	size_t size;
	gsio_error err;
	if (gsioi_png_encode(rgba, w, h, &png, &size, &err)) fail_msg("%s", err.message);
	assert_int_equal(png[25], colour_type);
	assert_png_pixels(png, size, rgba, w, h);
	free(png);
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

static const cJSON *item(const cJSON *doc, const char *key, int i)
{
	const cJSON *a = arr(doc, key);
	assert_non_null(a);
	const cJSON *x = cJSON_GetArrayItem(a, i);
	assert_non_null(x);
	return x;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

// -- Corpus: every file the importers read

static void check_corpus_scene(const char *path, const gsio_scene *s)
{
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")) >= (int)s->nodes_count, 1);
	size_t written = 0;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		const gsio_mesh *m = &s->meshes[mi];
		if (!m->vertex_count || !m->index_count) continue;
		const cJSON *prim = primitive(&g, (int)written++);
		// Positions: the axis-changed scene positions (glTF x,y,z = scene y,z,x).
		int pa = attribute(prim, "POSITION");
		size_t count;
		int nc;
		double *pos = read_accessor(&g, pa, &count, &nc);
		assert_int_equal(count, m->vertex_count);
		for (size_t v = 0; v < count; v++) {
			assert_true(pos[3 * v + 0] == m->positions[3 * v + 1]);
			assert_true(pos[3 * v + 1] == m->positions[3 * v + 2]);
			assert_true(pos[3 * v + 2] == m->positions[3 * v + 0]);
		}
		free(pos);
		check_min_max(&g, pa, NULL, NULL);
		// Targets: none for a static mesh, else one dense target per frame.
		const cJSON *targets = cJSON_GetObjectItemCaseSensitive(prim, "targets");
		if (m->frames_count < 2) {
			assert_null(targets);
		} else {
			assert_int_equal(cJSON_GetArraySize(targets), (int)m->frames_count);
			const cJSON *t;
			cJSON_ArrayForEach(t, targets)
			{
				const cJSON *a = item(g.doc, "accessors", num(t, "POSITION", -1));
				assert_true(num(a, "bufferView", -1) >= 0);
				assert_null(cJSON_GetObjectItemCaseSensitive(a, "sparse"));
			}
		}
	}
	// Material and image names carry the stem ("model" here).
	const cJSON *mat;
	cJSON_ArrayForEach(mat, arr(g.doc, "materials")) assert_true(!strncmp(str(mat, "name"), "model_", 6));
	const cJSON *anims = arr(g.doc, "animations");
	print_message("%s: %zu nodes, %zu meshes, %d animations -> %zu bytes\n", path, s->nodes_count,
	              s->meshes_count, anims ? cJSON_GetArraySize(anims) : 0, g.out.files[0].size);
	glb_free(&g);
}

static void test_corpus(void **state)
{
	(void)state;
	char **list;
	size_t n = t_corpus_files(t_model_dirs, 3, &list), done = 0, refused = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_error err;
		gsio_scene *s = gsio_load_file(list[i], NULL, &err);
		if (!s) {
			refused++;
		} else {
			check_corpus_scene(list[i], s);
			gsio_scene_free(s);
			done++;
		}
	}
	t_free_list(list, n);
	print_message("%zu corpus files written and read back, %zu not loaded\n", done, refused);
	assert_true(done >= 9);
}

// -- Synthetic scenes (public builder)

static gsio_scene *new_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	return s;
}

/** A triangle mesh (a known point (1,2,3), up normals, uvs) with one
 *  material and a 2x1 image; no node. Returns the mesh index. */
static int32_t add_triangle(gsio_scene *s, const char *name, int32_t material)
{
	gsio_error err;
	int32_t mi = gsio_scene_add_mesh(s, name, 3, 3, GSIO_MESH_NORMALS | GSIO_MESH_UVS, material, &err);
	assert_true(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	static const float pos[9] = {1, 2, 3, 4, 0, 0, 0, 5, 0};
	static const float nrm[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
	static const float uv[6] = {0, 0, 1, 0, 0, 1};
	memcpy(m->positions, pos, sizeof(pos));
	memcpy(m->normals, nrm, sizeof(nrm));
	memcpy(m->uvs, uv, sizeof(uv));
	for (uint32_t i = 0; i < 3; i++) m->indices[i] = i;
	return mi;
}

static gsio_scene *triangle_scene(void)
{
	gsio_scene *s = new_scene();
	gsio_error err;
	int32_t im = gsio_scene_add_image(s, "skin0", 2, 1, NULL, &err);
	assert_true(im >= 0);
	static const uint8_t px[8] = {255, 0, 0, 255, 0, 0, 255, 128}; // red, half-transparent blue
	memcpy(s->images[im].rgba, px, 8);
	int32_t mat = gsio_scene_add_material(s, "skin0", &err);
	s->materials[mat].base_color_texture.image = im;
	int32_t mi = add_triangle(s, "tri", mat);
	int32_t n = gsio_scene_add_node(s, "tri", -1, &err);
	s->nodes[n].mesh = mi;
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
		double *n = read_accessor(&g, attribute(prim, "NORMAL"), &count, &nc);
		if (cases[c].flags & GSIO_GLTF_KEEP_AXES)
			assert_true(n[2] == 1.0);
		else
			assert_true(n[1] == 1.0);
		free(n);
		glb_free(&g);
	}
	gsio_scene_free(s);
}

static void test_png_and_names(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	glb g;
	gsio_gltf_opts o = {0};
	o.name = "golem";
	gsio_error err;
	assert_int_equal(gsio_gltf_write(s, &o, &g.out, &err), 0);
	glb_parse(&g, g.out.files[0].data, g.out.files[0].size);
	uint32_t w, h;
	uint8_t *px = decode_image(&g, 0, &w, &h);
	assert_int_equal(w, 2);
	assert_int_equal(h, 1);
	assert_memory_equal(px, s->images[0].rgba, 8); // alpha kept: RGBA PNG
	free(px);
	// Names unique per model: two models in one Godot project do not share
	// "skin0".
	assert_string_equal(str(item(g.doc, "materials", 0), "name"), "golem_skin0");
	assert_string_equal(str(item(g.doc, "images", 0), "name"), "golem_skin0");
	// Static: no targets, no animations.
	assert_null(cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets"));
	assert_null(arr(g.doc, "animations"));
	glb_free(&g);
	uint8_t op[16] = {1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255};
	uint8_t *png;
	size_t size;
	assert_int_not_equal(gsioi_png_encode(op, 0, 2, &png, &size, &err), 0);
	gsio_scene_free(s);
}

/** The forms gsioi_png_encode picks, each decoding to the same pixels: a
 *  palette up to 256 distinct colours (tRNS only with alpha), truecolour
 *  from the 257th, with alpha when one pixel is not opaque. */
static void test_png_forms(void **state)
{
	(void)state;
	enum { W = 37, H = 29 }; // 1073 pixels, odd sizes
	uint8_t *rgba = malloc((size_t)W * H * 4);
	assert_non_null(rgba);
	for (uint32_t colours = 1; colours <= 257; colours += colours < 250 ? 85 : 1) {
		for (size_t i = 0; i < (size_t)W * H; i++) {
			uint32_t c = (uint32_t)((i * 7) % colours); // every colour (7 is prime to each count)
			rgba[4 * i] = (uint8_t)c, rgba[4 * i + 1] = (uint8_t)(c >> 8);
			rgba[4 * i + 2] = (uint8_t)(c * 3), rgba[4 * i + 3] = 255;
		}
		png_round_trip(rgba, W, H, colours <= 256 ? 3 : 2);
		uint8_t *png;
		size_t size;
		gsio_error err;
		assert_int_equal(gsioi_png_encode(rgba, W, H, &png, &size, &err), 0);
		assert_false(png_has_chunk(png, size, "tRNS")); // opaque: no tRNS
		free(png);
		rgba[4 * 100 + 3] = 128; // one translucent pixel: one more colour
		png_round_trip(rgba, W, H, colours < 256 ? 3 : 6);
		assert_int_equal(gsioi_png_encode(rgba, W, H, &png, &size, &err), 0);
		assert_int_equal(png_has_chunk(png, size, "tRNS"), colours < 256);
		free(png);
	}
	free(rgba);
}

/** Images compressed a strip of rows at a time: many strips, a last strip
 *  that is short, rows longer than a strip, incompressible pixels (the
 *  output outgrows every estimate from the compressible case) and flat
 *  ones; each decodes (libspng: CRCs and the zlib stream checked) to the
 *  same pixels. */
static void test_png_strips(void **state)
{
	(void)state;
	static const struct { uint32_t w, h; bool alpha, noise; } cases[] = {
	    {301, 707, false, true},  // RGB, ~13 strips of 64 KiB, the last short
	    {300, 701, true, true},   // RGBA
	    {17000, 3, true, true},   // one row is more than a strip (68 001 bytes)
	    {16385, 2, false, false}, // RGB row just over 48 KiB, flat (a palette)
	    {1024, 1024, false, false},
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const uint32_t w = cases[k].w, h = cases[k].h;
		uint8_t *rgba = malloc((size_t)w * h * 4);
		assert_non_null(rgba);
		for (size_t i = 0; i < (size_t)w * h; i++) {
			for (int c = 0; c < 4; c++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				rgba[4 * i + c] = cases[k].noise ? (uint8_t)x : (uint8_t)((i / w + c * 40) & 0xff);
			}
			if (!cases[k].alpha) rgba[4 * i + 3] = 255;
		}
		png_round_trip(rgba, w, h, !cases[k].noise ? 3 : cases[k].alpha ? 6 : 2);
		free(rgba);
	}
}

/* -- A PNG made in parts (gsioi_png_begin*, gsioi_png_part, gsioi_png_finish) */

typedef struct parts_run {
	gsioi_png_work *w;
	size_t from; // the bands this thread makes: from, from + 2, ...
	int rc;
} parts_run;

static void *make_every_other_part(void *arg)
{
	parts_run *r = arg;
	gsio_error err;
	for (size_t i = r->from; i < gsioi_png_parts(r->w); i += 2) r->rc |= gsioi_png_part(r->w, i, &err);
	return NULL;
}

/** The work's PNG made three ways: its bands in order (what the encoder
 *  does), last band first, and the bands on two threads at once (the even
 *  ones on a new thread, the odd ones here); each must be `want`, byte for
 *  byte. Returns the band count. */
static size_t expect_parts_same(gsioi_png_work *(*begin)(const void *src), const void *src, const uint8_t *want,
                                size_t want_size, const char *what)
{
	size_t parts = 0;
	for (int way = 0; way < 3; way++) {
		gsioi_png_work *w = begin(src);
		parts = gsioi_png_parts(w);
		gsio_error err;
		gsio_error_clear(&err);
		if (way == 0) {
			// None made: gsioi_png_finish makes them.
		} else if (way == 1) {
			for (size_t i = parts; i-- > 0;)
				if (gsioi_png_part(w, i, &err)) fail_msg("%s: band %zu: %s", what, i, err.message);
		} else {
			parts_run even = {w, 0, 0}, odd = {w, 1, 0};
			pthread_t t;
			assert_int_equal(pthread_create(&t, NULL, make_every_other_part, &even), 0);
			make_every_other_part(&odd);
			assert_int_equal(pthread_join(t, NULL), 0);
			assert_int_equal(even.rc | odd.rc, 0);
		}
		uint8_t *png;
		size_t size;
		if (gsioi_png_finish(w, &png, &size, &err)) fail_msg("%s: %s", what, err.message);
		if (size != want_size || memcmp(png, want, size))
			fail_msg("%s, %zu bands made %s: %zu bytes, not the encoder's %zu", what, parts,
			         way == 0 ? "by finish" : way == 1 ? "last first" : "on two threads", size, want_size);
		free(png);
	}
	return parts;
}

typedef struct rgba_src {
	const uint8_t *rgba;
	uint32_t w, h;
} rgba_src;

static gsioi_png_work *begin_rgba(const void *src)
{
	const rgba_src *r = src;
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin(r->rgba, r->w, r->h, &w, &err)) fail_msg("gsioi_png_begin: %s", err.message);
	return w;
}

static gsioi_png_work *begin_indexed(const void *src)
{
	const rgba_src *r = src; // rgba: w * h indices, then a 256-entry palette
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin_indexed(r->rgba, r->w, r->h, r->rgba + (size_t)r->w * r->h, 256, &w, &err))
		fail_msg("gsioi_png_begin_indexed: %s", err.message);
	return w;
}

static gsioi_png_work *begin_stored565(const void *src)
{
	const rgba_src *r = src; // rgba: w * h RGB565 pixels
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin_stored(GSIO_PIXEL_RGB565, r->rgba, r->w, r->h, NULL, &w, &err))
		fail_msg("gsioi_png_begin_stored: %s", err.message);
	return w;
}

/** Images of 128 K pixels and more are deflated in bands (2 to 4, by size
 *  alone); made in any order or on two threads, the bands give the bytes
 *  the encoder gives, which decode (libspng: the joined stream and its
 *  Adler-32 checked) to the pixels: truecolour with and without alpha, a
 *  palette found in the pixels, indices, stored RGB565 of many colours
 *  and of few (a palette whose rows each band looks up from its own
 *  decoded rows); heights that are not a multiple of the bands or of 4. */
static void test_png_parts(void **state)
{
	(void)state;
	static const struct { uint32_t w, h; size_t parts; } sizes[] = {
	    {362, 362, 1}, {363, 363, 1}, {512, 512, 2}, {700, 601, 3}, {1030, 1023, 4}, {4000, 70, 2}, {100000, 6, 2},
	};
	uint64_t x = 0x2545F4914F6CDD1Du;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const uint32_t w = sizes[k].w, h = sizes[k].h;
		const size_t n = (size_t)w * h;
		uint8_t *rgba = malloc(n * 4 + 1024);
		assert_non_null(rgba);
		for (int form = 0; form < 6; form++) {
			// 0 RGB noise over smooth rows, 1 RGBA, 2 few colours (a palette
			// from the pixels), 3 indices, 4 stored RGB565, 5 stored RGB565
			// of few colours (a palette from the decoded rows).
			for (size_t i = 0; i < n * 4 + 1024; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				size_t y = i / 4 / w;
				rgba[i] = form == 2   ? (uint8_t)((i / 4 / 333) * 7 % 200)
				          : form == 5 ? (uint8_t)((i / 2 / 333) * 7 % 200)
				                      : (uint8_t)((x & 15) + y);
				if ((form == 0 || form == 2) && i % 4 == 3) rgba[i] = 255;
			}
			char what[96];
			snprintf(what, sizeof(what), "%ux%u form %d", w, h, form);
			rgba_src src = {rgba, w, h};
			uint8_t *want;
			size_t want_size;
			gsio_error err;
			int rc = form == 3   ? gsioi_png_encode_indexed(rgba, w, h, rgba + n, 256, &want, &want_size, &err)
			         : form >= 4 ? gsioi_png_encode_stored(GSIO_PIXEL_RGB565, rgba, w, h, NULL, &want, &want_size, &err)
			                     : gsioi_png_encode(rgba, w, h, &want, &want_size, &err);
			if (rc) fail_msg("%s: %s", what, err.message);
			size_t parts = expect_parts_same(form == 3 ? begin_indexed : form >= 4 ? begin_stored565 : begin_rgba,
			                                 &src, want, want_size, what);
			if (parts != sizes[k].parts) fail_msg("%s: %zu bands, %zu expected", what, parts, sizes[k].parts);
			if (form <= 2) {
				assert_int_equal(want[25], form == 0 ? 2 : form == 1 ? 6 : 3);
				assert_png_pixels(want, want_size, rgba, w, h);
			} else {
				assert_int_equal(want[25], form == 4 ? 2 : 3);
				uint32_t dw, dh;
				uint8_t *px = decode_png(want, want_size, &dw, &dh);
				uint8_t *ref = malloc(n * 4);
				assert_non_null(ref);
				if (form == 3) {
					for (size_t i = 0; i < n; i++) memcpy(ref + 4 * i, rgba + n + 4 * (size_t)rgba[i], 4);
				} else {
					assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, rgba, n, NULL, ref), 0);
				}
				assert_int_equal(dw, w);
				assert_int_equal(dh, h);
				assert_memory_equal(px, ref, n * 4);
				free(px);
				free(ref);
			}
			free(want);
		}
		free(rgba);
	}
	// A band that does not exist, no work, no output.
	uint8_t px[4] = {1, 2, 3, 255};
	gsioi_png_work *w;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsioi_png_begin(px, 1, 1, &w, &err), 0);
	assert_int_equal(gsioi_png_parts(w), 1);
	assert_int_not_equal(gsioi_png_part(w, 1, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	gsio_error_clear(&err);
	assert_int_equal(gsioi_png_part(w, 0, &err), 0);
	assert_int_not_equal(gsioi_png_part(w, 0, &err), 0); // once only: the first band kept
	assert_non_null(strstr(err.message, "made already"));
	uint8_t *png = (uint8_t *)1;
	size_t size = 1;
	assert_int_not_equal(gsioi_png_finish(w, NULL, &size, &err), 0); // frees the work
	assert_int_not_equal(gsioi_png_finish(NULL, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_begin(px, 1, 1, NULL, &err), 0);
	assert_int_not_equal(gsioi_png_begin(px, 0, 1, &w, &err), 0);
	assert_null(w);
	assert_int_equal(gsioi_png_parts(NULL), 0);
	gsioi_png_work_free(NULL);
}

/** gsioi_png_encode_stored: for every stored format, the PNG gsioi_png_encode
 *  writes from the decoded pixels, byte for byte: many colours (truecolour
 *  rows decoded one at a time, opaque or not), few colours (a palette). */
static void test_png_stored(void **state)
{
	(void)state;
	static const gsio_pixel_format fmts[] = {GSIO_PIXEL_PAL8,     GSIO_PIXEL_RGB565,
	                                         GSIO_PIXEL_ARGB4444, GSIO_PIXEL_BGR888,
	                                         GSIO_PIXEL_BGRA8888, GSIO_PIXEL_RGBA8888};
	enum { W = 301, H = 203 };
	uint8_t pal[768];
	for (int i = 0; i < 768; i++) pal[i] = (uint8_t)(i * 37 + 11);
	uint64_t x = 88172645463325252u;
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		size_t ps = gsio_pixel_size(fmts[f]);
		uint8_t *src = malloc((size_t)W * H * ps), *rgba = malloc((size_t)W * H * 4);
		assert_non_null(src);
		assert_non_null(rgba);
		// Modes: noise, noise made opaque, few colours, few colours on the
		// pixels the palette probe samples (every 15th) and noise between
		// (the probe passes, the whole-image scan gives up at the 257th).
		for (int mode = 0; mode < 4; mode++) {
			for (size_t i = 0; i < (size_t)W * H * ps; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				bool few = mode == 2 || (mode == 3 && (i / ps) % 15 == 0);
				src[i] = few ? (uint8_t)((i / ps / 97) * 5) : (uint8_t)x;
			}
			if (mode == 1 && fmts[f] == GSIO_PIXEL_ARGB4444)
				for (size_t i = 0; i < (size_t)W * H; i++) src[2 * i + 1] |= 0xF0;
			if (mode == 1 && ps == 4)
				for (size_t i = 0; i < (size_t)W * H; i++) src[4 * i + 3] = 255;
			const uint8_t *p = fmts[f] == GSIO_PIXEL_PAL8 ? pal : NULL;
			assert_int_equal(gsio_decode_pixels(fmts[f], src, (size_t)W * H, p, rgba), 0);
			uint8_t *want, *got;
			size_t want_size, got_size;
			gsio_error err;
			gsio_error_clear(&err);
			if (gsioi_png_encode(rgba, W, H, &want, &want_size, &err)) fail_msg("%s", err.message);
			if (gsioi_png_encode_stored(fmts[f], src, W, H, p, &got, &got_size, &err))
				fail_msg("%s", err.message);
			if (got_size != want_size || memcmp(got, want, want_size))
				fail_msg("format %d, mode %d: the PNGs differ", (int)fmts[f], mode);
			if (mode == 2) assert_int_equal(got[25], 3);
			if (mode == 1 && fmts[f] != GSIO_PIXEL_PAL8) assert_int_equal(got[25], 2);
			free(want);
			free(got);
		}
		free(src);
		free(rgba);
	}
	uint8_t *png = (uint8_t *)1;
	size_t size = 1;
	gsio_error err;
	gsio_error_clear(&err);
	uint8_t one[4] = {0};
	assert_int_not_equal(gsioi_png_encode_stored((gsio_pixel_format)7, one, 1, 1, NULL, &png, &size, &err), 0);
	assert_null(png);
	assert_int_equal(size, 0);
	assert_int_not_equal(gsioi_png_encode_stored(GSIO_PIXEL_RGB565, one, 0, 1, NULL, &png, &size, &err), 0);
}

/** The same pixels give the same PNG bytes wherever the encoder's memory
 *  lies: igzip's levels 1 and 2 (ISA-L 2.30) chose other matches for the
 *  same input at other addresses (seen under ASan, whose allocator moves
 *  blocks more than glibc's, on about 1 in 100 encodings of the image
 *  below), so the encoder uses level 0. The heap is stirred between runs. */
static void test_png_deterministic(void **state)
{
	(void)state;
	// A 5x6 image of 6 colours (a palette PNG), from a DDS the fuzzer built.
	static const uint8_t idx[30] = {0, 1, 2, 3, 1, 0, 1, 2, 3, 1, 0, 1, 2, 3, 1,
	                                0, 1, 2, 3, 1, 4, 4, 4, 5, 5, 4, 4, 4, 5, 5};
	uint8_t rgba[30 * 4];
	for (int i = 0; i < 30; i++) {
		rgba[4 * i] = (uint8_t)(idx[i] * 50), rgba[4 * i + 1] = (uint8_t)(255 - idx[i] * 40);
		rgba[4 * i + 2] = 7, rgba[4 * i + 3] = 255;
	}
	uint8_t *first = NULL;
	size_t first_size = 0;
	for (int run = 0; run < 400; run++) {
		void *junk = malloc(1000 + (size_t)run * 37);
		assert_non_null(junk);
		memset(junk, run, 1000 + (size_t)run * 37);
		uint8_t *png;
		size_t size;
		gsio_error err;
		gsio_error_clear(&err);
		if (gsioi_png_encode(rgba, 5, 6, &png, &size, &err)) fail_msg("%s", err.message);
		free(junk);
		if (!first) {
			first = png;
			first_size = size;
			continue;
		}
		if (size != first_size || memcmp(png, first, size))
			fail_msg("run %d: other PNG bytes (%zu, first %zu)", run, size, first_size);
		free(png);
	}
	free(first);
}

/** The same PNG bytes whatever igzip's block held before: deflate_band
 *  takes its 103 KB uncleared (the inits set what igzip reads, the
 *  stateless one after the state's head fields are zeroed; the histogram,
 *  made in the state's window, clears its own hash table; only the symbol
 *  counts are zeroed there), so blocks of that size left dirty with four
 *  patterns of 16-bit words and freed (glibc hands that memory back to the
 *  encoder's requests) must give the bytes an undisturbed encoding gives:
 *  a truecolour image of several 64 KiB strips (the histogram and codes
 *  made once), a few-colour (palette) one of one strip (a stateless call),
 *  and one of more than one band (gsioi_png_begin's parts,
 *  each with a block of its own). */
static void test_png_dirty_state(void **state)
{
	(void)state;
	const size_t block = gsioi_png_state_size();
	assert_true(block > 64 * 1024);
	static const uint32_t dims[3][2] = {{300, 200}, {64, 40}, {512, 512}};
	for (int im = 0; im < 3; im++) {
		const uint32_t w = dims[im][0], h = dims[im][1];
		uint8_t *rgba = malloc((size_t)w * h * 4);
		assert_non_null(rgba);
		uint32_t x32 = 12345;
		for (size_t i = 0; i < (size_t)w * h; i++) {
			x32 = x32 * 1103515245u + 12345u;
			uint8_t noise = (uint8_t)(x32 >> 24);
			size_t x = i % w, y = i / w;
			if (im == 1) // four colours: a palette PNG
				rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = (uint8_t)(((x / 8 + y / 8) % 4) * 60);
			else
				rgba[4 * i] = (uint8_t)(x + (noise & 7)), rgba[4 * i + 1] = (uint8_t)(y * 3),
				rgba[4 * i + 2] = (uint8_t)(noise & 0x3f);
			rgba[4 * i + 3] = 255;
		}
		gsio_error err;
		gsio_error_clear(&err);
		uint8_t *want = NULL, *got = NULL;
		size_t want_size = 0, got_size = 0;
		if (gsioi_png_encode(rgba, w, h, &want, &want_size, &err)) fail_msg("%s", err.message);
		// Filled with 16-bit words. 0x0002: where igzip reads its 16-bit
		// hist_bits, a history of 4 bytes (1..15 shorten it; a field its
		// stateful init sets and its stateless one leaves alone).
		static const uint16_t patterns[4] = {0x0000, 0xffff, 0xa5a5, 0x0002};
		for (int p = 0; p < 4; p++) {
			// Four dirty blocks held apart from the heap's top by a guard, so
			// that freed they stay one dirty free block (not trimmed) in which
			// the encoder's blocks (its output buffer first) and its state
			// are all taken.
			uint8_t *dirty[4], *guard;
			for (int k = 0; k < 4; k++) assert_non_null(dirty[k] = malloc(block));
			assert_non_null(guard = malloc(64));
			for (int k = 0; k < 4; k++) {
				for (size_t b = 0; b + 2 <= block; b += 2) memcpy(dirty[k] + b, &patterns[p], 2);
				__asm__ volatile("" ::"r"(dirty[k]) : "memory");
				free(dirty[k]);
			}
			int rc = gsioi_png_encode(rgba, w, h, &got, &got_size, &err);
			free(guard);
			if (rc) fail_msg("%s", err.message);
			if (got_size != want_size || memcmp(got, want, want_size))
				fail_msg("image %d, block filled with 0x%04x: other PNG bytes (%zu, undisturbed %zu)", im,
				         patterns[p], got_size, want_size);
			assert_png_pixels(got, got_size, rgba, w, h);
			free(got);
		}
		free(want);
		free(rgba);
	}
}

/** gsioi_png_shrink: the same pixels and chunks, fewer bytes (or a copy
 *  when there is nothing to gain); PNGs it cannot take are refused. */
static void test_png_shrink(void **state)
{
	(void)state;
	enum { W = 256, H = 200 };
	uint8_t *rgba = malloc((size_t)W * H * 4);
	assert_non_null(rgba);
	for (int kind = 0; kind < 3; kind++) { // smooth RGB, smooth RGBA, few colours
		for (size_t i = 0; i < (size_t)W * H; i++) {
			size_t x = i % W, y = i / W;
			rgba[4 * i] = (uint8_t)(kind == 2 ? (x / 32) * 30 : (x * y) >> 6);
			rgba[4 * i + 1] = (uint8_t)(kind == 2 ? (y / 50) * 60 : x + y);
			rgba[4 * i + 2] = (uint8_t)(kind == 2 ? 0 : (x ^ y));
			rgba[4 * i + 3] = (uint8_t)(kind == 1 ? (x + 2 * y) : 255);
		}
		uint8_t *png, *small;
		size_t size, small_size;
		gsio_error err;
		gsio_error_clear(&err);
		if (gsioi_png_encode(rgba, W, H, &png, &size, &err)) fail_msg("%s", err.message);
		if (gsioi_png_shrink(png, size, &small, &small_size, &err)) fail_msg("%s", err.message);
		print_message("kind %d: %zu -> %zu bytes\n", kind, size, small_size);
		assert_true(small_size <= size);
		if (kind < 2) assert_true(small_size < size); // smooth images: zlib -9 does better
		assert_memory_equal(small, png, 33); // signature and IHDR as they were
		assert_int_equal(png_has_chunk(small, small_size, "PLTE"), png_has_chunk(png, size, "PLTE"));
		assert_png_pixels(small, small_size, rgba, W, H);
		// A PNG already as small: a copy. Shrinking twice gives it back.
		uint8_t *again;
		size_t again_size;
		if (gsioi_png_shrink(small, small_size, &again, &again_size, &err)) fail_msg("%s", err.message);
		assert_int_equal(again_size, small_size);
		assert_memory_equal(again, small, small_size);
		free(again);
		// Refusals: not a PNG; cut short; image data that does not inflate.
		uint8_t *none = (uint8_t *)1;
		size_t none_size = 1;
		gsio_error_clear(&err);
		assert_int_not_equal(gsioi_png_shrink(png + 1, size - 1, &none, &none_size, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
		assert_null(none);
		assert_int_equal(none_size, 0);
		gsio_error_clear(&err);
		assert_int_not_equal(gsioi_png_shrink(png, size - 20, &none, &none_size, &err), 0);
		png[size - 30] ^= 0x55; // inside the last IDAT's data
		gsio_error_clear(&err);
		assert_int_not_equal(gsioi_png_shrink(png, size, &none, &none_size, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_CORRUPT);
		free(png);
		free(small);
	}
	free(rgba);
}

/** gsioi_png_encode_indexed: the palette as given (up to the highest index
 *  used), tRNS only for a translucent entry, indices outside refused. */
static void test_png_indexed(void **state)
{
	(void)state;
	enum { W = 5, H = 3 };
	const uint8_t pal[4 * 4] = {10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 0, 1, 2, 3, 255};
	uint8_t idx[W * H], expect[W * H * 4];
	uint8_t *png, *px;
	size_t size;
	uint32_t w, h;
	gsio_error err;
	for (int alpha = 0; alpha < 2; alpha++) {
		for (size_t i = 0; i < W * H; i++) {
			idx[i] = (uint8_t)(i % (alpha ? 3 : 2)); // entry 2 (alpha 0) only with alpha
			memcpy(expect + 4 * i, pal + 4 * idx[i], 4);
		}
		if (gsioi_png_encode_indexed(idx, W, H, pal, 4, &png, &size, &err)) fail_msg("%s", err.message);
		assert_int_equal(png[25], 3);
		assert_true(png_has_chunk(png, size, "PLTE"));
		assert_int_equal(png_has_chunk(png, size, "tRNS"), alpha);
		// PLTE right after IHDR: length 3 x (highest index + 1)
		assert_int_equal(png[33 + 3], alpha ? 9 : 6);
		px = decode_png(png, size, &w, &h);
		assert_int_equal(w, W);
		assert_int_equal(h, H);
		assert_memory_equal(px, expect, sizeof(expect));
		free(px);
		free(png);
	}
	idx[7] = 4; // outside a 4-entry palette
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 4, &png, &size, &err), 0);
	assert_null(png);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 0, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 257, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, 0, H, pal, 4, &png, &size, &err), 0);
}

/** Checks every decoded image of a scene: its PNG (indexed when the scene
 *  kept the palette) decodes to its rgba. Returns the indexed ones. */
static size_t check_scene_pngs(const char *path, const gsio_scene *s)
{
	size_t indexed = 0;
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		if (!im->rgba) continue;
		uint8_t *png;
		size_t size;
		gsio_error err;
		int rc = im->indices ? gsioi_png_encode_indexed(im->indices, im->width, im->height,
		                                               im->palette, im->palette_count, &png,
		                                               &size, &err)
		                     : gsioi_png_encode(im->rgba, im->width, im->height, &png, &size, &err);
		if (rc) fail_msg("%s image %zu: %s", path, i, err.message);
		if (im->indices) assert_int_equal(png[25], 3);
		indexed += im->indices != NULL;
		uint32_t w, h;
		uint8_t *px = decode_png(png, size, &w, &h);
		assert_int_equal(w, im->width);
		assert_int_equal(h, im->height);
		if (memcmp(px, im->rgba, (size_t)w * h * 4))
			fail_msg("%s image %zu (colour type %d): decoded pixels differ", path, i, png[25]);
		free(px);
		free(png);
	}
	return indexed;
}

/** Every corpus skin and texture, and the 8-bit sample: the PNG the glTF
 *  writer makes is the same picture as rgba. The palettised ones (8-bit WAD
 *  lumps; skin type 0 in the sample) keep their indices. */
static void test_png_pixels_corpus(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = t_load_ok(GSIO_SOURCE_DIR "/samples/pal8.mdl", NULL);
	assert_non_null(s->images[0].indices);
	assert_int_equal(s->images[0].palette_count, 256);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	assert_int_equal(check_scene_pngs("pal8.mdl", s), 1);
	// The validator catches an index that disagrees with rgba.
	s->images[0].indices[5] ^= 1;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);

	static const char *const dirs[][2] = {
	    {"mdl", ".mdl"}, {"hmp", ".hmp"}, {"wmp", ".wmp"}, {"lottershock/Game/Assets", ".mdl"},
	    {"lottershock/Game/Level", ".mdl"}, {"lottershock/Game/Level", ".wmp"}};
	char **list;
	size_t n = t_corpus_files(dirs, sizeof(dirs) / sizeof(dirs[0]), &list), images = 0;
	for (size_t i = 0; i < n; i++) {
		s = gsio_load_file(list[i], NULL, &err);
		if (s) {
			assert_int_equal(gsio_scene_validate(s, &err), 0);
			check_scene_pngs(list[i], s);
			images += s->images_count;
			gsio_scene_free(s);
		}
	}
	t_free_list(list, n);
	// The WAD's 8-bit lumps, kept indexed as a level that uses them would.
	size_t wad_size, pal8 = 0;
	uint8_t *wad_bytes = t_read_file(t_corpus_path("lottershock/Game/Level/Texturset.wad"), &wad_size);
	assert_non_null(wad_bytes);
	gsio_wad_file *wad = gsio_wad_decode(wad_bytes, wad_size, "Texturset.wad", NULL, &err);
	if (!wad) fail_msg("%s", err.message);
	s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	for (size_t l = 0; l < wad->lumps_count; l++) {
		const uint8_t *src, *rgb;
		gsio_pixel_format fmt;
		if (!wad->lumps[l].width) continue;
		if (!gsioi_wad_lump_stored(wad, l, NULL, &fmt, &src, &rgb, &err)) fail_msg("%s", err.message);
		const uint8_t *indices = fmt == GSIO_PIXEL_PAL8 ? src : NULL;
		int32_t k = gsio_scene_add_image(s, wad->lumps[l].name, wad->lumps[l].width,
		                                 wad->lumps[l].height, NULL, &err);
		assert_true(k >= 0);
		gsio_image *im = &s->images[k];
		assert_true(gsioi_wad_lump_rgba(wad, l, NULL, im->rgba, &err));
		if (indices) assert_true(gsioi_image_keep_indices(s->arena, im, indices, rgb, &err));
		pal8 += indices != NULL;
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	assert_int_equal(check_scene_pngs("Texturset.wad", s), pal8);
	print_message("%zu corpus images and %zu 8-bit WAD lumps decode to their rgba\n", images, pal8);
	assert_true(pal8 >= 1);
	assert_true(images >= 20);
	gsio_scene_free(s);
	gsio_wad_file_free(wad);
	free(wad_bytes);
}

/** Two nodes placing one mesh: one glTF mesh, both nodes refer to it. */
static void test_instances(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	int32_t n2 = gsio_scene_add_node(s, "tri2", -1, &err);
	s->nodes[n2].mesh = 0;
	s->nodes[n2].translation[0] = 10; // scene +X -> glTF +Z
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "instances.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 1);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), 2);
	assert_int_equal(num(item(g.doc, "nodes", 0), "mesh", -1), 0);
	assert_int_equal(num(item(g.doc, "nodes", 1), "mesh", -1), 0);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", 1), "translation");
	assert_true(cJSON_GetArrayItem(t, 2)->valuedouble == 10);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "nodes")), 2);
	glb_free(&g);
	gsio_scene_free(s);
}

/** Materials sharing images: one glTF texture per image and wrap pair, in
 *  order of first use, a sampler per wrap pair; every material points at
 *  the texture of its own image and wraps. */
static void test_textures_shared(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene(); // image 0, material 0 (repeat, repeat)
	gsio_error err;
	int32_t b = gsio_scene_add_image(s, "other", 1, 1, NULL, &err);
	assert_true(b >= 0);
	static const struct {
		int32_t image;
		gsio_wrap u, v;
	} use[] = {{0, GSIO_WRAP_CLAMP, GSIO_WRAP_REPEAT}, {0, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT},
	           {1, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT}, {0, GSIO_WRAP_CLAMP, GSIO_WRAP_REPEAT},
	           {1, GSIO_WRAP_MIRROR, GSIO_WRAP_CLAMP}, {1, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT},
	           {0, GSIO_WRAP_CLAMP, GSIO_WRAP_CLAMP}};
	const int want_texture[] = {0, 1, 0, 2, 1, 3, 2, 4}; // material 0, then use[]
	for (size_t i = 0; i < sizeof(use) / sizeof(use[0]); i++) {
		char name[16];
		snprintf(name, sizeof(name), "m%zu", i + 1);
		int32_t m = gsio_scene_add_material(s, name, &err);
		assert_true(m >= 0);
		s->materials[m].base_color_texture.image = use[i].image;
		s->materials[m].base_color_texture.wrap_u = use[i].u;
		s->materials[m].base_color_texture.wrap_v = use[i].v;
		int32_t n = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[n].mesh = add_triangle(s, name, m);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	const cJSON *mats = arr(g.doc, "materials"), *texs = arr(g.doc, "textures");
	assert_int_equal(cJSON_GetArraySize(mats), 8);
	assert_int_equal(cJSON_GetArraySize(texs), 5);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "samplers")), 4);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	for (int i = 0; i < 8; i++) {
		const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", i),
		                                                     "pbrMetallicRoughness");
		int t = num(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"), "index", -1);
		assert_int_equal(t, want_texture[i]);
		const cJSON *tex = item(g.doc, "textures", t), *smp = item(g.doc, "samplers", num(tex, "sampler", -1));
		int32_t image = i ? use[i - 1].image : 0;
		gsio_wrap u = i ? use[i - 1].u : GSIO_WRAP_REPEAT, v = i ? use[i - 1].v : GSIO_WRAP_REPEAT;
		assert_int_equal(num(tex, "source", -1), image);
		const int code[] = {10497, 33071, 33648}; // REPEAT, CLAMP_TO_EDGE, MIRRORED_REPEAT
		assert_int_equal(num(smp, "wrapS", -1), code[u]);
		assert_int_equal(num(smp, "wrapT", -1), code[v]);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** A node tree written as it is: each node's children in order, the roots
 *  in the scene (children found by grouping the parents, not by a scan). */
static void test_node_tree(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	const int32_t parent[] = {-1, 0, 1, 0, 2, -1, 5, 1, 0};
	const size_t nn = sizeof(parent) / sizeof(parent[0]);
	for (size_t i = 0; i < nn; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%zu", i);
		assert_int_equal(gsio_scene_add_node(s, name, parent[i], &err), (int32_t)i);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), (int)nn);
	for (size_t i = 0; i < nn; i++) {
		const cJSON *kids = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", (int)i), "children");
		int want[8], nw = 0;
		for (size_t k = 0; k < nn; k++)
			if (parent[k] == (int32_t)i) want[nw++] = (int)k;
		assert_int_equal(cJSON_GetArraySize(kids), nw); // 0 when absent
		for (int k = 0; k < nw; k++) assert_int_equal(cJSON_GetArrayItem(kids, k)->valueint, want[k]);
	}
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "nodes");
	assert_int_equal(cJSON_GetArraySize(roots), 2);
	assert_int_equal(cJSON_GetArrayItem(roots, 0)->valueint, 0);
	assert_int_equal(cJSON_GetArrayItem(roots, 1)->valueint, 5);
	glb_free(&g);
	gsio_scene_free(s);
}

/* Weights for a triangle mesh (add_triangle): each vertex wholly on joint
 * v % joints of its skin. */
static void weigh_triangle(gsio_scene *s, gsio_mesh *m, uint32_t joints)
{
	gsio_error err;
	m->weights.offsets = gsio_scene_alloc(s, 4, sizeof(uint32_t), &err);
	m->weights.joints = gsio_scene_alloc(s, 3, sizeof(uint32_t), &err);
	m->weights.values = gsio_scene_alloc(s, 3, sizeof(float), &err);
	assert_true(m->weights.offsets && m->weights.joints && m->weights.values);
	m->weights.count = 3;
	for (uint32_t v = 0; v < 3; v++) {
		m->weights.offsets[v + 1] = v + 1;
		m->weights.joints[v] = v % joints;
		m->weights.values[v] = 1;
	}
}

/** Two skeletons, each with a skinned mesh: two glTF skins. */
static void test_two_skins(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	for (int k = 0; k < 2; k++) {
		char name[32];
		snprintf(name, sizeof(name), "body%d", k);
		int32_t mi = add_triangle(s, name, -1);
		snprintf(name, sizeof(name), "root%d", k);
		int32_t root = gsio_scene_add_node(s, name, -1, &err);
		snprintf(name, sizeof(name), "bone%d", k);
		int32_t bone = gsio_scene_add_node(s, name, root, &err);
		s->nodes[bone].translation[2] = 1;
		snprintf(name, sizeof(name), "mesh%d", k);
		int32_t mn = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[mn].mesh = mi;
		snprintf(name, sizeof(name), "skel%d", k);
		int32_t sk = gsio_scene_add_skin(s, name, 2, &err);
		assert_true(sk >= 0);
		s->skins[sk].joints[0] = root;
		s->skins[sk].joints[1] = bone;
		s->skins[sk].inverse_bind[16 + 14] = -1; // bone at z = 1
		s->skins[sk].skeleton = root;
		gsio_mesh *m = &s->meshes[mi];
		m->skin = sk;
		weigh_triangle(s, m, 2);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "two_skins.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "skins")), 2);
	for (int k = 0; k < 2; k++) {
		const cJSON *sk = item(g.doc, "skins", k);
		const cJSON *joints = cJSON_GetObjectItemCaseSensitive(sk, "joints");
		assert_int_equal(cJSON_GetArrayItem(joints, 0)->valueint, 3 * k);
		assert_int_equal(cJSON_GetArrayItem(joints, 1)->valueint, 3 * k + 1);
		assert_int_equal(num(item(g.doc, "nodes", 3 * k + 2), "skin", -1), k);
		// IBM of the bone: translation -1 along scene Z = glTF Y.
		size_t count;
		int nc;
		double *ibm = read_accessor(&g, num(sk, "inverseBindMatrices", -1), &count, &nc);
		assert_int_equal(count, 2);
		assert_true(ibm[16 + 13] == -1);
		assert_true(ibm[16 + 15] == 1);
		free(ibm);
		assert_true(attribute(primitive(&g, k), "JOINTS_0") >= 0);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** Two skinned mesh records sharing their arrays (a level's instances of
 *  one skinned model), each with its own skin: one glTF mesh, two skins, each
 *  node its own; a record with its own arrays stays its own mesh. */
static void test_shared_skinned_mesh(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	int32_t first = -1;
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "root%d", k);
		int32_t root = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[root].translation[0] = (float)(10 * k);
		snprintf(name, sizeof(name), "skel%d", k);
		int32_t sk = gsio_scene_add_skin(s, name, 1, &err);
		assert_true(sk >= 0);
		s->skins[sk].joints[0] = root;
		snprintf(name, sizeof(name), "body%d", k);
		int32_t mi = add_triangle(s, name, -1);
		gsio_mesh *m = &s->meshes[mi];
		if (k == 1) { // the instance: the first one's arrays
			const char *keep = m->name;
			*m = s->meshes[first];
			m->name = keep;
		} else {
			weigh_triangle(s, m, 1);
			if (k == 0) first = mi;
		}
		m->skin = sk;
		snprintf(name, sizeof(name), "mesh%d", k);
		int32_t mn = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[mn].mesh = mi;
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "shared_skinned.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 2);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "skins")), 3);
	for (int k = 0; k < 3; k++) {
		const cJSON *n = item(g.doc, "nodes", 2 * k + 1);
		assert_int_equal(num(n, "mesh", -1), k < 2 ? 0 : 1);
		assert_int_equal(num(n, "skin", -1), k);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** Rotates v by glTF node rotation r (x,y,z,w). */
static void rot(const cJSON *r, const double v[3], double o[3])
{
	double q[4] = {0, 0, 0, 1};
	for (int k = 0; r && k < 4; k++) q[k] = cJSON_GetArrayItem(r, k)->valuedouble;
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
	o[0] = v[0] + w * tx + (y * tz - z * ty);
	o[1] = v[1] + w * ty + (z * tx - x * tz);
	o[2] = v[2] + w * tz + (x * ty - y * tx);
}

/** A point, a spot and a directional light: KHR_lights_punctual, and the
 *  lights shine along glTF +Z (scene +X) from nodes with no rotation. */
static void test_lights(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	static const gsio_light_type types[3] = {GSIO_LIGHT_POINT, GSIO_LIGHT_SPOT, GSIO_LIGHT_DIRECTIONAL};
	for (int k = 0; k < 3; k++) {
		char name[16];
		snprintf(name, sizeof(name), "light%d", k);
		int32_t l = gsio_scene_add_light(s, name, types[k], &err);
		assert_true(l >= 0);
		s->lights[l].range = types[k] == GSIO_LIGHT_DIRECTIONAL ? 0 : 50;
		if (types[k] == GSIO_LIGHT_SPOT) {
			s->lights[l].inner_cone = 0.2f;
			s->lights[l].outer_cone = 0.5f;
		}
		int32_t n = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[n].light = l;
		s->nodes[n].translation[2] = (float)k;
	}
	assert_int_equal(gsio_extras_set_float(s, &s->lights[0].extras, "gsio:falloff", 2.5, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "lights.glb");
	const cJSON *lights = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g.doc, "extensions"), "KHR_lights_punctual"),
	    "lights");
	assert_int_equal(cJSON_GetArraySize(lights), 3);
	assert_string_equal(str(cJSON_GetArrayItem(lights, 0), "type"), "point");
	assert_string_equal(str(cJSON_GetArrayItem(lights, 1), "type"), "spot");
	assert_string_equal(str(cJSON_GetArrayItem(lights, 2), "type"), "directional");
	const cJSON *spot = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 1), "spot");
	assert_true(fabs(dnum(spot, "outerConeAngle") - 0.5) < 1e-6);
	assert_true(fabs(dnum(cJSON_GetArrayItem(lights, 0), "range") - 50) < 1e-6);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 2), "range"));
	assert_true(fabs(dnum(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 0), "extras"),
	                      "gsio:falloff") - 2.5) < 1e-9);
	for (int k = 0; k < 3; k++) {
		const cJSON *n = item(g.doc, "nodes", k);
		const cJSON *ext = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(n, "extensions"), "KHR_lights_punctual");
		assert_int_equal(num(ext, "light", -1), k);
		double fwd[3] = {0, 0, -1}, d[3];
		rot(cJSON_GetObjectItemCaseSensitive(n, "rotation"), fwd, d);
		assert_true(fabs(d[0]) < 1e-6 && fabs(d[1]) < 1e-6 && fabs(d[2] - 1) < 1e-6);
	}
	const cJSON *used = arr(g.doc, "extensionsUsed");
	bool found = false;
	const cJSON *u;
	cJSON_ArrayForEach(u, used) found = found || !strcmp(u->valuestring, "KHR_lights_punctual");
	assert_true(found);
	glb_free(&g);
	gsio_scene_free(s);
}

/** Extras of the scene, nodes, meshes, materials: ints, floats, strings,
 *  float arrays. */
static void test_extras(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	const float rgb[3] = {0.25f, 0.5f, 1};
	assert_int_equal(gsio_extras_set_int(s, &s->nodes[0].extras, "gsio:flags", 7, &err), 0);
	assert_int_equal(gsio_extras_set_string(s, &s->nodes[0].extras, "gsio:action", "door", &err), 0);
	assert_int_equal(gsio_extras_set_floats(s, &s->nodes[0].extras, "gsio:skills", rgb, 3, &err), 0);
	assert_int_equal(gsio_extras_set_float(s, &s->meshes[0].extras, "gsio:scale", 0.5, &err), 0);
	assert_int_equal(gsio_extras_set_int(s, &s->materials[0].extras, "gsio:skin_type", 4, &err), 0);
	assert_int_equal(gsio_extras_set_floats(s, &s->extras, "gsio:fog", rgb, 3, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "extras.glb");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", 0), "extras");
	assert_int_equal(num(x, "gsio:flags", -1), 7);
	assert_string_equal(str(x, "gsio:action"), "door");
	const cJSON *sk = cJSON_GetObjectItemCaseSensitive(x, "gsio:skills");
	assert_int_equal(cJSON_GetArraySize(sk), 3);
	assert_true(cJSON_GetArrayItem(sk, 0)->valuedouble == 0.25);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "meshes", 0), "extras");
	assert_true(dnum(x, "gsio:scale") == 0.5);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", 0), "extras");
	assert_int_equal(num(x, "gsio:skin_type", -1), 4);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "extras");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "gsio:fog")), 3);
	glb_free(&g);
	gsio_scene_free(s);
}

/** A triangle with `frames` morph frames (vertex 0 moves up by f in frame f)
 *  and, with frames >= 1, an animation whose MORPH channel plays them. */
static gsio_scene *morph_scene(size_t frames)
{
	gsio_scene *s = triangle_scene();
	gsio_error err;
	gsio_mesh *m = &s->meshes[0];
	if (frames) {
		m->frames = gsio_scene_alloc(s, frames, sizeof(gsio_morph_frame), &err);
		m->frames_count = frames;
		for (size_t f = 0; f < frames; f++) {
			gsio_morph_frame *fr = &m->frames[f];
			char name[32];
			snprintf(name, sizeof(name), "walk%zu", f);
			fr->name = gsio_scene_strdup(s, name, &err);
			fr->positions = gsio_scene_alloc(s, 9, sizeof(float), &err);
			fr->normals = gsio_scene_alloc(s, 9, sizeof(float), &err);
			memcpy(fr->positions, m->positions, 9 * sizeof(float));
			memcpy(fr->normals, m->normals, 9 * sizeof(float));
			fr->positions[2] += (float)f;
		}
		int32_t a = gsio_scene_add_animation(s, "walk", 10, frames, 1, &err);
		assert_true(a >= 0);
		gsio_channel *ch = &s->animations[a].channels[0];
		ch->node = 0;
		ch->path = GSIO_PATH_MORPH;
		ch->frames = gsio_scene_alloc(s, frames, sizeof(uint32_t), &err);
		for (size_t f = 0; f < frames; f++) ch->frames[f] = (uint32_t)f;
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	return s;
}

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

/** An invalid scene is refused with the validator's own message. */
static void test_invalid_scene(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err, verr;
	s->nodes[0].parent = 0; // not less than its own index
	assert_int_not_equal(gsio_scene_validate(s, &verr), 0);
	gsio_gltf_output out;
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_string_equal(err.message, verr.message);
	assert_int_equal(out.files_count, 0);
	gsio_scene_free(s);
}

/** An image that is only a reference: a uri beside a .gltf; embedded in a
 *  GLB when the file is a PNG; left out with a warning when it is missing. */
static void test_uri_image(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	char png_path[4200];
	snprintf(png_path, sizeof(png_path), "%s/test_gltf_ref.png", GSIO_BINARY_DIR);
	uint8_t *png;
	size_t png_size;
	assert_int_equal(gsioi_png_encode(s->images[0].rgba, 2, 1, &png, &png_size, &err), 0);
	t_write_file(png_path, png, png_size);
	free(png);
	int32_t ref = gsio_scene_add_image(s, "wall.png", 0, 0, "textures/wall.png", &err);
	assert_true(ref >= 0);
	s->materials[0].base_color_texture.image = ref;
	// .gltf: the uri as given.
	gsio_gltf_output out;
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_SEPARATE;
	int rc = gsio_gltf_write(s, &o, &out, &err);
	if (rc) fail_msg("gsio_gltf_write: %s", err.message);
	cJSON *doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_string_equal(str(item(doc, "images", 1), "uri"), "textures/wall.png");
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	// GLB, file missing: left out with a warning, the material has no texture.
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 1);
	assert_true(g.out.warnings_count >= 1);
	const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", 0), "pbrMetallicRoughness");
	assert_null(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"));
	glb_free(&g);
	// GLB, file present (source_path): embedded as image/png.
	s->images[ref].source_path = png_path;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	assert_string_equal(str(item(g.doc, "images", 1), "mimeType"), "image/png");
	uint32_t w, h;
	uint8_t *px = decode_image(&g, 1, &w, &h);
	assert_int_equal(w, 2);
	assert_memory_equal(px, s->images[0].rgba, 8);
	free(px);
	glb_free(&g);
	remove(png_path);
	gsio_scene_free(s);
}

// -- Files

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

/* Images decoded from a PNG or JPEG file keep the file (gsio_image.file_data)
 * and the writer embeds it as it is: on the corpus's Bob (five PNG textures
 * beside the .md5mesh) every embedded image equals its file byte for byte,
 * less the chunks glTF does not take (test_png_chunks);
 * a built scene's file bytes are embedded unless they are no PNG/JPEG (then
 * the pixels are encoded); the validator refuses file data without pixels
 * or a size without data. */
static void test_image_files_passed_through(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	uint8_t *png;
	size_t png_size;
	const uint8_t other[8] = {0, 0, 255, 255, 255, 0, 0, 255}; // not the scene's pixels
	assert_int_equal(gsioi_png_encode(other, 2, 1, &png, &png_size, &err), 0);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	glb g = {0};
	glb_write(&g, s, 0, 1);
	size_t n;
	const uint8_t *v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_int_equal(n, png_size);
	assert_memory_equal(v, png, png_size);
	assert_string_equal(str(item(g.doc, "images", 0), "mimeType"), "image/png");
	glb_free(&g);
	// Bytes that are no PNG or JPEG: the pixels are encoded instead.
	const uint8_t bmp[4] = {'B', 'M', 0, 0};
	s->images[0].file_data = bmp;
	s->images[0].file_size = sizeof(bmp);
	glb_write(&g, s, 0, 1);
	v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_true(n > 8 && memcmp(v, bmp, 2));
	glb_free(&g);
	// The validator: a size without data; data without pixels is an
	// undecoded file (GSIO_OPT_NO_PIXELS), valid only with its size, and
	// written as it is.
	s->images[0].file_data = NULL;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	uint8_t *rgba = s->images[0].rgba;
	s->images[0].rgba = NULL;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	glb_write(&g, s, 0, 1);
	v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_int_equal(n, png_size);
	assert_memory_equal(v, png, png_size);
	glb_free(&g);
	s->images[0].width = 0;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	s->images[0].width = 2;
	// Undecoded bytes that are no PNG or JPEG: left out with a warning.
	s->images[0].file_data = bmp;
	s->images[0].file_size = sizeof(bmp);
	gsio_gltf_output out = {0};
	assert_int_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	bool warned = false;
	for (size_t i = 0; i < out.warnings_count; i++)
		warned = warned || strstr(out.warnings[i], "not a PNG, JPEG or DDS and was not decoded");
	assert_true(warned);
	gsio_gltf_output_free(&out);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	s->images[0].rgba = rgba;
	s->images[0].file_data = NULL;
	s->images[0].file_size = 0;
	free(png);
	gsio_scene_free(s);

	T_REQUIRE_CORPUS();
	const char *bob = t_corpus_path("md5/bob/Bob.md5mesh");
	gsio_scene *b = t_load_ok(bob, NULL);
	glb_write(&g, b, 0, 1);
	size_t passed = 0;
	for (size_t i = 0; i < b->images_count; i++) {
		const gsio_image *im = &b->images[i];
		assert_non_null(im->source_path);
		size_t fn;
		uint8_t *file = t_read_file(im->source_path, &fn);
		assert_non_null(im->file_data);
		assert_int_equal(im->file_size, fn);
		assert_memory_equal(im->file_data, file, fn);
		// As it is, less the chunks glTF does not take (Bob's have sRGB).
		uint8_t *clean;
		size_t cn;
		int rc = gsioi_png_drop_chunks(file, fn, &clean, &cn);
		assert_true(rc >= 0);
		const uint8_t *want = rc ? clean : file;
		size_t wn = rc ? cn : fn;
		const uint8_t *e = view_bytes(&g, num(item(g.doc, "images", (int)i), "bufferView", -1), &n);
		assert_int_equal(n, wn);
		assert_memory_equal(e, want, wn);
		free(clean);
		free(file);
		passed++;
	}
	print_message("Bob: %zu texture files embedded byte for byte\n", passed);
	assert_true(passed >= 4);
	glb_free(&g);
	gsio_scene_free(b);
}

/* Images that point to the very same file bytes (a level's placeholders)
 * are stored once: in a GLB each keeps its own image, name and extras, and
 * all name one buffer view; beside a .gltf all name one PNG file. Equal
 * bytes at another address are stored again (only the same file is known
 * to be one). On the corpus's block.wmp (four placeholders) the four
 * images name one view of 98 bytes. */
static void test_shared_image_files(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	const uint8_t px[8] = {10, 20, 30, 255, 40, 50, 60, 255};
	uint8_t *png, *copy;
	size_t png_size;
	assert_int_equal(gsioi_png_encode(px, 2, 1, &png, &png_size, &err), 0);
	copy = malloc(png_size);
	assert_non_null(copy);
	memcpy(copy, png, png_size);
	for (int k = 1; k <= 3; k++) {
		char name[16];
		snprintf(name, sizeof(name), "other%d", k);
		int32_t im = gsio_scene_add_image(s, name, 2, 1, NULL, &err);
		assert_true(im >= 0);
		memcpy(s->images[im].rgba, px, 8);
	}
	for (size_t i = 0; i < 4; i++) {
		s->images[i].file_data = i == 2 ? copy : png;
		s->images[i].file_size = png_size;
	}
	glb g = {0};
	glb_write(&g, s, 0, 1);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 4);
	int v0 = num(item(g.doc, "images", 0), "bufferView", -1);
	assert_true(v0 >= 0);
	assert_int_equal(num(item(g.doc, "images", 1), "bufferView", -1), v0);
	assert_int_equal(num(item(g.doc, "images", 3), "bufferView", -1), v0);
	int v2 = num(item(g.doc, "images", 2), "bufferView", -1);
	assert_true(v2 >= 0 && v2 != v0);
	size_t n;
	assert_memory_equal(view_bytes(&g, v0, &n), png, png_size);
	assert_int_equal(n, png_size);
	assert_memory_equal(view_bytes(&g, v2, &n), png, png_size);
	assert_non_null(strstr(str(item(g.doc, "images", 1), "name"), "_other1"));
	glb_free(&g);

	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_SEPARATE;
	gsio_gltf_output out = {0};
	assert_int_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	cJSON *doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_non_null(doc);
	const char *u0 = str(item(doc, "images", 0), "uri");
	assert_string_equal(str(item(doc, "images", 1), "uri"), u0);
	assert_string_equal(str(item(doc, "images", 3), "uri"), u0);
	assert_string_not_equal(str(item(doc, "images", 2), "uri"), u0);
	size_t pngs = 0;
	for (size_t f = 1; f < out.files_count; f++) {
		if (!strstr(out.files[f].name, ".png")) continue;
		pngs++;
		assert_int_equal(out.files[f].size, png_size);
		assert_memory_equal(out.files[f].data, png, png_size);
	}
	assert_int_equal(pngs, 2);
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	for (size_t i = 0; i < 4; i++) s->images[i].file_data = NULL, s->images[i].file_size = 0;
	free(png);
	free(copy);
	gsio_scene_free(s);

	T_REQUIRE_CORPUS();
	gsio_opts lo = {0};
	lo.flags = GSIO_OPT_NO_PIXELS;
	gsio_scene *b = t_load_corpus("wmp/block.wmp", &lo);
	glb_write(&g, b, 0, 1);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 4);
	int v = num(item(g.doc, "images", 0), "bufferView", -1);
	for (int i = 1; i < 4; i++) assert_int_equal(num(item(g.doc, "images", i), "bufferView", -1), v);
	view_bytes(&g, v, &n);
	assert_int_equal(n, 98);
	print_message("block.wmp: 4 placeholders in one view of %zu bytes\n", n);
	glb_free(&g);
	gsio_scene_free(b);
}

/* GLBs of 1 024 vertices and 60, 87, 116 and 128 morph frames (a BIN of
 * about 1.5, 2.1, 2.9 and 3.1 MB) written to a file in a child process,
 * where THP is in "madvise" mode (Debian 12's default): the BIN's first 2
 * MiB block is a huge page when the BIN fills it (a handful of page
 * faults, not 512) and not when it does not (the writer grows by about the
 * BIN, not a 2 MiB page); a later block is one when the BIN fills a
 * quarter of it and leaves at most a third of the BIN's size unused (3.1
 * MB: few faults), and not below a quarter (2.1 MB: its last 100 KiB in 4
 * KiB pages, no second huge page) nor past a third (2.9 MB: 0.75 MiB in 4
 * KiB pages, where a huge page would leave 1.25 MiB unused). Fails with
 * every block advised, with none, with the first advised before it is
 * full, and without the rule of a third. */
static size_t glb_written_in_child(gsio_scene *s, const char *path, long got[3])
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long r[3] = {-1, -1, -1};
		long size_pages = 0, pages = 0;
		FILE *sf = fopen("/proc/self/statm", "r");
		if (sf && fscanf(sf, "%ld %ld", &size_pages, &pages) == 2) {
			struct rusage r0, r1;
			getrusage(RUSAGE_SELF, &r0);
			gsio_gltf_opts o = {0};
			gsio_error e;
			if (gsio_gltf_write_file(s, path, &o, NULL, &e) == 0) {
				getrusage(RUSAGE_SELF, &r1);
				r[0] = r1.ru_maxrss - pages * (sysconf(_SC_PAGESIZE) / 1024); // KB grown
				r[1] = r1.ru_minflt - r0.ru_minflt;
			}
		}
		if (sf) fclose(sf);
		struct stat st;
		r[2] = stat(path, &st) == 0 ? (long)st.st_size : -1;
		if (write(fds[1], r, sizeof(r)) != (ssize_t)sizeof(r)) _exit(2);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], got, 3 * sizeof(long)), (ssize_t)(3 * sizeof(long)));
	close(fds[0]);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return (size_t)got[2];
}

static void test_glb_huge_page_tail(void **state)
{
	(void)state;
	char mode[128];
	// In "madvise" mode only the advice makes huge pages ("always" makes
	// them whatever the writer decides; "never" makes none).
	bool thp = t_thp_on(mode, sizeof(mode)) && strstr(mode, "[madvise]");
	static const size_t frame_counts[4] = {60, 87, 116, 128};
	for (int t = 0; t < 4; t++) {
		gsio_error err;
		gsio_scene *s = new_scene();
		enum { NV = 1024 };
		const size_t nf = frame_counts[t];
		int32_t mi = gsio_scene_add_mesh(s, "grid", NV, 3, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, &err);
		assert_true(mi >= 0);
		gsio_mesh *m = &s->meshes[mi];
		for (size_t v = 0; v < NV; v++) {
			float p[3] = {(float)(v % 32), (float)(v / 32), 0}, n[3] = {0, 0, 1}, uv[2] = {0, 0};
			memcpy(m->positions + 3 * v, p, sizeof(p));
			memcpy(m->normals + 3 * v, n, sizeof(n));
			memcpy(m->uvs + 2 * v, uv, sizeof(uv));
		}
		for (uint32_t i = 0; i < 3; i++) m->indices[i] = i;
		m->frames = gsio_scene_alloc(s, nf, sizeof(gsio_morph_frame), &err);
		assert_non_null(m->frames);
		m->frames_count = nf;
		for (size_t f = 0; f < nf; f++) {
			gsio_morph_frame *fr = &m->frames[f];
			fr->positions = gsio_scene_alloc(s, 3 * NV, sizeof(float), &err);
			fr->normals = m->normals;
			assert_non_null(fr->positions);
			memcpy(fr->positions, m->positions, 3 * NV * sizeof(float));
			for (size_t v = 0; v < NV; v++) fr->positions[3 * v + 2] = (float)f * 0.01f + (float)v * 1e-4f;
		}
		int32_t n = gsio_scene_add_node(s, "grid", -1, &err);
		s->nodes[n].mesh = mi;
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		char path[4200];
		snprintf(path, sizeof(path), "%s/test_gltf_files", GSIO_BINARY_DIR);
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/test_gltf_files/tail.glb", GSIO_BINARY_DIR);
		remove(path);
		long got[3] = {-1, -1, -1};
		size_t bytes = glb_written_in_child(s, path, got);
		print_message("GLB of %zu bytes: the writer grew by %ld KB with %ld page faults (THP %s)\n", bytes,
		              got[0], got[1], thp ? "madvise: checked" : "not madvise: not checked");
		assert_true(got[0] >= 0 && got[1] >= 0);
		const long kb = (long)(bytes / 1024);
		(void)kb;
		switch (t) {
		case 0: assert_true(bytes > 1400000 && bytes < 2000000); break;
		case 1: assert_true(bytes > (2 << 20) + 65536 && bytes < (2 << 20) + 300000); break;
		case 2: assert_true(bytes > (2 << 20) + 600000 && bytes < (3 << 20) - 100000); break;
		default: assert_true(bytes > (3 << 20) - 100000 && bytes < (4 << 20) - 600000); break;
		}
#ifndef T_SANITIZED
		// Page faults tell 4 KiB pages (one each) from a huge page (one for
		// 2 MiB); the writer's own allocations add 100-450 KB and some 60
		// faults, depending on the heap the test process has made before.
		if (thp && t == 0) assert_true(got[1] > 300); // 1.5 MB in 4 KiB pages: no huge page for a block not filled
		if (thp && t == 1) assert_true(got[0] < kb + 1400 && got[1] < 300); // one huge page, not two (+2 MB)
		if (thp && t == 2) assert_true(got[1] > 180); // the second block in 4 KiB pages: 1.25 MiB unused is past a third
		if (thp && t == 3) assert_true(got[1] < 180); // two: the second filled past a quarter, 1 MiB unused
#endif
		remove(path);
		gsio_scene_free(s);
	}
}

static void test_write_file(void **state)
{
	(void)state;
	char dir[4096], path[4200], bin[4200], png[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_files", GSIO_BINARY_DIR);
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/m.gltf", dir);
	snprintf(bin, sizeof(bin), "%s/m.bin", dir);
	snprintf(png, sizeof(png), "%s/m_skin0.png", dir);
	remove(path);
	remove(bin);
	remove(png);
	gsio_scene *s = morph_scene(3);
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
	// A second write without replacing fails, names the file, says nothing
	// about command-line options, and leaves the bytes as they were.
	t_write_file(bin, (const uint8_t *)"old", 3);
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "exists"));
	assert_null(strstr(err.message, "--force"));
	assert_non_null(strstr(err.file, "test_gltf_files/m."));
	size_t size;
	uint8_t *data = t_read_file(bin, &size);
	assert_int_equal(size, 3);
	assert_memory_equal(data, "old", 3);
	free(data);
	o.flags = 0;
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(bin, &size);
	assert_true(size > 3);
	free(data);
	assert_int_equal(count_tmp_files(dir), 0);
	snprintf(path, sizeof(path), "%s/m.glb", dir);
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(path, &size);
	assert_memory_equal(data, "glTF", 4);
	free(data);
	// A path whose parent is a file: an I/O error naming the final path.
	char bad[4300];
	snprintf(bad, sizeof(bad), "%s/m.bin/x.glb", dir);
	assert_int_not_equal(gsio_gltf_write_file(s, bad, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_string_equal(err.file, bad);
	assert_null(strstr(err.message, ".tmp"));
	assert_int_equal(count_tmp_files(dir), 0);
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

static void test_deterministic(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene(3);
	glb a, b;
	glb_write(&a, s, 0, 0);
	glb_write(&b, s, 0, 0);
	assert_int_equal(a.out.files[0].size, b.out.files[0].size);
	assert_memory_equal(a.out.files[0].data, b.out.files[0].data, a.out.files[0].size);
	glb_free(&a);
	glb_free(&b);
	gsio_scene_free(s);
}

/* A GLB's big arrays are kept as text and its JSON printed into a buffer of
 * about its size (the texts and 64 KiB); a .gltf's JSON is a cJSON tree
 * printed formatted. Both must say the same: a scene of meshes, nodes (one a
 * child) and a material, with scene extras short (the buffer is enough) and
 * of 100 000 characters (past it: cJSON's own print). */
static void test_glb_json_as_gltf(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		gsio_scene *s = new_scene();
		gsio_error err;
		int32_t mat = gsio_scene_add_material(s, "paint", &err);
		assert_true(mat >= 0);
		int32_t parent = -1;
		for (int i = 0; i < 5; i++) {
			char name[16];
			snprintf(name, sizeof(name), "tri%d", i);
			int32_t mi = add_triangle(s, name, i % 2 ? mat : -1);
			int32_t n = gsio_scene_add_node(s, name, i == 3 ? parent : -1, &err);
			assert_true(n >= 0);
			s->nodes[n].mesh = mi;
			s->nodes[n].translation[0] = (float)i;
			if (i == 2) parent = n;
		}
		size_t len = big ? 100000 : 10;
		char *text = malloc(len + 1);
		assert_non_null(text);
		for (size_t i = 0; i < len; i++) text[i] = (char)('a' + i % 26);
		text[len] = 0;
		assert_int_equal(gsio_extras_set_string(s, &s->extras, "note", text, &err), 0);
		glb g;
		glb_write(&g, s, 0, 1);
		gsio_gltf_opts o = {0};
		o.flags = GSIO_GLTF_SEPARATE;
		gsio_gltf_output sep;
		assert_int_equal(gsio_gltf_write(s, &o, &sep, &err), 0);
		cJSON *doc = cJSON_ParseWithLength((const char *)sep.files[0].data, sep.files[0].size);
		assert_non_null(doc);
		// Where the two differ by design: the buffer's uri.
		cJSON_DeleteItemFromObject(doc, "buffers");
		cJSON_DeleteItemFromObject(g.doc, "buffers");
		assert_true(cJSON_Compare(g.doc, doc, true));
		assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 5);
		assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), 5);
		const cJSON *sc = cJSON_GetArrayItem(arr(g.doc, "scenes"), 0);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sc, "nodes")), 4);
		const cJSON *note = cJSON_GetObjectItem(cJSON_GetObjectItem(sc, "extras"), "note");
		assert_true(cJSON_IsString(note) && !strcmp(note->valuestring, text));
		cJSON_Delete(doc);
		gsio_gltf_output_free(&sep);
		glb_free(&g);
		free(text);
		gsio_scene_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_axes),
	    cmocka_unit_test(test_textures_shared),
	    cmocka_unit_test(test_node_tree),
	    cmocka_unit_test(test_png_and_names),
	    cmocka_unit_test(test_png_forms),
	    cmocka_unit_test(test_png_indexed),
	    cmocka_unit_test(test_png_strips),
	    cmocka_unit_test(test_png_parts),
	    cmocka_unit_test(test_png_stored),
	    cmocka_unit_test(test_png_deterministic),
	    cmocka_unit_test(test_png_dirty_state),
	    cmocka_unit_test(test_png_shrink),
	    cmocka_unit_test(test_png_pixels_corpus),
	    cmocka_unit_test(test_instances),
	    cmocka_unit_test(test_two_skins),
	    cmocka_unit_test(test_shared_skinned_mesh),
	    cmocka_unit_test(test_lights),
	    cmocka_unit_test(test_extras),
	    cmocka_unit_test(test_morph_dense_sparse),
	    cmocka_unit_test(test_compact),
	    cmocka_unit_test(test_static_model),
	    cmocka_unit_test(test_invalid_scene),
	    cmocka_unit_test(test_uri_image),
	    cmocka_unit_test(test_image_files_passed_through),
	    cmocka_unit_test(test_shared_image_files),
	    cmocka_unit_test(test_write_file),
	    cmocka_unit_test(test_glb_huge_page_tail),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_json_float),
	    cmocka_unit_test(test_frame_normal_indices),
	    cmocka_unit_test(test_morph_packed_vs_float),
	    cmocka_unit_test(test_morph_shared_base_differs),
	    cmocka_unit_test(test_morph_shared_last_vertex),
	    cmocka_unit_test(test_morph_shared_signed_zero),
	    cmocka_unit_test(test_glb_json_as_gltf),
	    cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
