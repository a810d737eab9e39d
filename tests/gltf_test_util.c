/* Helpers shared by the glTF writer's tests (gltf_test_util.h). */
#include "gltf_test_util.h"

#include "gsio_gltf.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Reading a GLB back

uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void glb_parse(glb *g, const uint8_t *d, size_t n)
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

void glb_write(glb *g, const gsio_scene *s, uint32_t flags, float scale)
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

void glb_free(glb *g)
{
	cJSON_Delete(g->doc);
	gsio_gltf_output_free(&g->out);
}

cJSON *arr(const cJSON *doc, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(doc, key);
}

int num(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valueint : dflt;
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

const uint8_t *view_bytes(const glb *g, int view, size_t *size)
{
	size_t stride;
	const uint8_t *p = view_bytes_strided(g, view, size, &stride);
	assert_int_equal(stride, 0); // tightly packed (only COMPACT output has strides)
	return p;
}

double *read_accessor(const glb *g, int index, size_t *count, int *ncomp)
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

void check_min_max(const glb *g, int index, double *mn, double *mx)
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

const cJSON *primitive(const glb *g, int mesh)
{
	const cJSON *m = cJSON_GetArrayItem(arr(g->doc, "meshes"), mesh);
	assert_non_null(m);
	const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "primitives"), 0);
	assert_non_null(p);
	return p;
}

int attribute(const cJSON *prim, const char *name)
{
	return num(cJSON_GetObjectItemCaseSensitive(prim, "attributes"), name, -1);
}

uint8_t *decode_png(const uint8_t *p, size_t size, uint32_t *w, uint32_t *h)
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

uint8_t *decode_image(const glb *g, int image, uint32_t *w, uint32_t *h)
{
	const cJSON *im = cJSON_GetArrayItem(arr(g->doc, "images"), image);
	assert_non_null(im);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(im, "mimeType")->valuestring, "image/png");
	size_t size;
	const uint8_t *p = view_bytes(g, num(im, "bufferView", -1), &size);
	return decode_png(p, size, w, h);
}

void dump(const glb *g, const char *name)
{
	const char *dir = getenv("GSIO_GLTF_DUMP_DIR");
	if (!dir || !dir[0]) return;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t_write_file(path, g->out.files[0].data, g->out.files[0].size);
	print_message("wrote %s\n", path);
}

const cJSON *item(const cJSON *doc, const char *key, int i)
{
	const cJSON *a = arr(doc, key);
	assert_non_null(a);
	const cJSON *x = cJSON_GetArrayItem(a, i);
	assert_non_null(x);
	return x;
}

const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

// -- Synthetic scenes (public builder)

gsio_scene *new_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	return s;
}

int32_t add_triangle(gsio_scene *s, const char *name, int32_t material)
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

gsio_scene *triangle_scene(void)
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

gsio_scene *morph_scene(size_t frames)
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
