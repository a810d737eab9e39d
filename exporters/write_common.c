/* Shared by the MDL5 and HMP5 writers: warnings, skins from images (pixel
 * type, dithering, mip levels), the normal table, quantisation, placing the
 * output file. */
#include "write_internal.h"
#include "gsioi_place.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Warnings

void gsioi_wwarn(const gsioi_warner *w, const char *fmt, ...)
{
	if (!w || !w->fn) return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsioi_text_sanitize(buf, sizeof(buf));
	w->fn(w->user, buf);
}

// -- Skins

static gsio_pixel_format format_of(gsio_skin_encoding e)
{
	switch (e) {
	case GSIO_SKIN_PAL8: return GSIO_PIXEL_PAL8;
	case GSIO_SKIN_RGB565: return GSIO_PIXEL_RGB565;
	case GSIO_SKIN_ARGB4444: return GSIO_PIXEL_ARGB4444;
	case GSIO_SKIN_BGR888: return GSIO_PIXEL_BGR888;
	case GSIO_SKIN_BGRA8888:
	case GSIO_SKIN_AUTO: break;
	}
	return GSIO_PIXEL_BGRA8888;
}

/* AUTO keeps the layout the image came in (so an MDL -> scene -> MDL5 trip
 * is pixel-exact), and otherwise the smallest lossless one. */
static gsio_pixel_format pick_format(const gsio_image *im, const gsioi_skin_opts *o)
{
	if (o->encoding != GSIO_SKIN_AUTO) return format_of(o->encoding);
	if (im->source_type >= 0 && im->source_type != GSIO_MDL_SKIN_DDS) {
		switch (im->source_format) {
		case GSIO_PIXEL_PAL8:
		case GSIO_PIXEL_RGB565:
		case GSIO_PIXEL_ARGB4444:
		case GSIO_PIXEL_BGR888:
		case GSIO_PIXEL_BGRA8888: return im->source_format;
		case GSIO_PIXEL_RGBA8888: break;
		}
	}
	size_t n = (size_t)im->width * im->height;
	for (size_t i = 0; i < n; i++)
		if (im->rgba[4 * i + 3] != 255) return GSIO_PIXEL_BGRA8888;
	return GSIO_PIXEL_BGR888;
}

/* Mip levels need sizes that halve exactly three times: the stored byte
 * count, (w*h)>>2 + (w*h)>>4 + (w*h)>>6 pixels, only matches the levels'
 * real sizes then. */
static bool mips_fit(uint32_t w, uint32_t h)
{
	return w % 8 == 0 && h % 8 == 0;
}

int32_t gsioi_skin_type(const gsio_image *im, const gsioi_skin_opts *o)
{
	int32_t t = (int32_t)pick_format(im, o);
	if (o->mipmaps && mips_fit(im->width, im->height)) t |= GSIO_MDL_SKIN_MIPS;
	return t;
}

/* Floyd-Steinberg: each pixel is encoded, decoded back, and its error spread
 * to the right and below (7, 3, 5, 1 sixteenths). Rows of float errors
 * live in the arena. */
static bool encode_dithered(gsio_arena *a, gsio_pixel_format fmt, const uint8_t *rgba, uint32_t w,
                            uint32_t h, const uint8_t *palette, uint8_t *dst, gsio_error *err)
{
	size_t bpp = gsio_pixel_size(fmt);
	float *cur = GSIO_NEW_ARRAY(a, float, ((size_t)w + 2) * 4, err);
	float *next = GSIO_NEW_ARRAY(a, float, ((size_t)w + 2) * 4, err);
	GSIO_CHECK(cur && next);
	for (uint32_t y = 0; y < h; y++) {
		memset(next, 0, ((size_t)w + 2) * 4 * sizeof(float));
		for (uint32_t x = 0; x < w; x++) {
			const uint8_t *src = rgba + 4 * ((size_t)y * w + x);
			uint8_t want[4], back[4];
			float *e = cur + 4 * ((size_t)x + 1);
			for (int k = 0; k < 4; k++) {
				float v = (float)src[k] + e[k];
				want[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lrintf(v));
			}
			uint8_t *d = dst + bpp * ((size_t)y * w + x);
			if (gsio_encode_pixels(fmt, want, 1, palette, d) ||
			    gsio_decode_pixels(fmt, d, 1, palette, back))
				return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "pixel format %d", (int)fmt);
			for (int k = 0; k < 4; k++) {
				float q = (float)src[k] + e[k] - (float)back[k];
				cur[4 * ((size_t)x + 2) + (size_t)k] += q * 7.0f / 16.0f;
				next[4 * (size_t)x + (size_t)k] += q * 3.0f / 16.0f;
				next[4 * ((size_t)x + 1) + (size_t)k] += q * 5.0f / 16.0f;
				next[4 * ((size_t)x + 2) + (size_t)k] += q * 1.0f / 16.0f;
			}
		}
		float *t = cur;
		cur = next;
		next = t;
	}
	return true;
}

/* One level of pixels, dithered or not. */
static bool encode_level(gsio_arena *a, gsio_pixel_format fmt, const uint8_t *rgba, uint32_t w,
                         uint32_t h, const gsioi_skin_opts *o, uint8_t *dst, gsio_error *err)
{
	const uint8_t *pal = o->palette ? o->palette : gsio_default_palette();
	// 888 and 8888 hold every colour: dithering would change nothing.
	bool lossy = fmt == GSIO_PIXEL_PAL8 || fmt == GSIO_PIXEL_RGB565 || fmt == GSIO_PIXEL_ARGB4444;
	if (o->dither && lossy) return encode_dithered(a, fmt, rgba, w, h, pal, dst, err);
	if (gsio_encode_pixels(fmt, rgba, (size_t)w * h, pal, dst))
		return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "pixel format %d", (int)fmt);
	return true;
}

/* The next mip level: each pixel the mean of a 2x2 block. */
static uint8_t *half_size(gsio_arena *a, const uint8_t *src, uint32_t w, uint32_t h,
                          gsio_error *err)
{
	uint32_t hw = w / 2, hh = h / 2;
	uint8_t *d = gsioi_arena_array_uninit(a, (size_t)hw * hh, 4, err);
	if (!d) return NULL;
	for (uint32_t y = 0; y < hh; y++)
		for (uint32_t x = 0; x < hw; x++)
			for (int k = 0; k < 4; k++) {
				unsigned s = 0;
				for (uint32_t dy = 0; dy < 2; dy++)
					for (uint32_t dx = 0; dx < 2; dx++)
						s += src[4 * ((size_t)(2 * y + dy) * w + 2 * x + dx) + (size_t)k];
				d[4 * ((size_t)y * hw + x) + (size_t)k] = (uint8_t)((s + 2) / 4);
			}
	return d;
}

bool gsioi_skin_encode(gsio_arena *a, const gsio_image *im, const gsioi_skin_opts *o,
                       const gsioi_warner *w, gsio_mdl_skin *out, gsio_error *err)
{
	const char *name = im->name ? im->name : "";
	uint32_t max = o->max_size ? o->max_size : GSIOI_MAX_SKIN_SIZE;
	if (!im->rgba || !im->width || !im->height)
		return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		                 "image '%s' has no pixels (a reference to '%s'): cannot be a skin", name,
		                 im->uri ? im->uri : "");
	if (im->width > max || im->height > max)
		return GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1,
		                 "image '%s' is %u x %u pixels: a skin is at most %u x %u", name,
		                 im->width, im->height, max, max);
	if (o->mipmaps && !mips_fit(im->width, im->height))
		gsioi_wwarn(w, "image '%s' is %u x %u, not a multiple of 8 both ways: stored without mip levels",
		            name, im->width, im->height);
	int32_t type = gsioi_skin_type(im, o);
	gsio_pixel_format fmt = (gsio_pixel_format)(type & 7);
	size_t size = gsio_mdl_skin_size(type, (int32_t)im->width, (int32_t)im->height, err);
	GSIO_CHECK(size);
	uint8_t *px = gsioi_arena_alloc_uninit(a, size, err);
	GSIO_CHECK(px);
	size_t bpp = gsio_pixel_size(fmt);
	GSIO_CHECK(encode_level(a, fmt, im->rgba, im->width, im->height, o, px, err));
	if (type & GSIO_MDL_SKIN_MIPS) {
		const uint8_t *level = im->rgba;
		uint32_t lw = im->width, lh = im->height;
		size_t at = (size_t)lw * lh * bpp;
		for (int k = 0; k < 3; k++) {
			uint8_t *next = half_size(a, level, lw, lh, err);
			GSIO_CHECK(next);
			lw /= 2, lh /= 2;
			GSIO_CHECK(encode_level(a, fmt, next, lw, lh, o, px + at, err));
			at += (size_t)lw * lh * bpp;
			level = next;
		}
	}
	out->type = type;
	out->width = (int32_t)im->width;
	out->height = (int32_t)im->height;
	out->pixels = px;
	out->pixels_size = size;
	return true;
}

// -- Normals, quantisation

uint8_t gsioi_normal_index(const float n[3])
{
	// The table points inward: the best entry is the one most opposite n.
	float best = INFINITY;
	int bi = 0;
	for (int i = 0; i < GSIO_NORMAL_COUNT; i++) {
		float d = n[0] * gsio_anorms[i][0] + n[1] * gsio_anorms[i][1] + n[2] * gsio_anorms[i][2];
		if (d < best) best = d, bi = i;
	}
	return (uint8_t)bi;
}

void gsioi_quant_fit(double lo, double hi, unsigned qmax, float *scale, float *offset)
{
	*offset = (float)lo;
	double range = hi - (double)*offset; // from the offset as stored
	// A flat axis: any scale decodes raw 0 to the offset; 1 keeps it finite.
	*scale = range > 0 ? (float)(range / qmax) : 1.0f;
	if (!(*scale > 0) || !isfinite(*scale)) *scale = 1.0f;
}

unsigned gsioi_quant(float x, float scale, float offset, unsigned qmax)
{
	double r = ((double)x - (double)offset) / (double)scale;
	if (!(r > 0)) return 0;
	if (r >= qmax) return qmax;
	// Of the two neighbours, the one that decodes nearest in float.
	unsigned a = (unsigned)r, b = a + 1 > qmax ? qmax : a + 1;
	float da = fabsf(scale * (float)a + offset - x), db = fabsf(scale * (float)b + offset - x);
	return db < da ? b : a;
}

// -- Posing

const gsio_channel *gsioi_morph_channel(const gsio_animation *an, int32_t node)
{
	for (size_t i = 0; i < an->channels_count; i++)
		if (an->channels[i].path == GSIO_PATH_MORPH && an->channels[i].node == node)
			return &an->channels[i];
	return NULL;
}

bool gsioi_has_node_channel(const gsio_animation *an)
{
	for (size_t i = 0; i < an->channels_count; i++)
		if (an->channels[i].path <= GSIO_PATH_SCALE) return true;
	return false;
}

void gsioi_name_field(char *field, size_t size, const char *name)
{
	char buf[257];
	gsioi_text_cp1252(buf, size < sizeof(buf) ? size + 1 : sizeof(buf), name ? name : "");
	memset(field, 0, size);
	memcpy(field, buf, strlen(buf));
}

void gsioi_clip_frame_name(char out[17], const char *stem, size_t index)
{
	char num[24];
	snprintf(num, sizeof(num), "%zu", index);
	size_t ln = strlen(num);
	if (ln > 16) ln = 16;
	gsioi_text_cp1252(out, 17 - ln, stem ? stem : ""); // as the engine reads names
	size_t ls = strlen(out);
	memcpy(out + ls, num, ln);
	out[ls + ln] = 0;
}

static void sample(const gsio_animation *an, const gsio_channel *ch, size_t width, double x,
                   float *out)
{
	size_t last = an->frames_count - 1;
	size_t i0 = x <= 0 ? 0 : (size_t)x;
	if (i0 > last) i0 = last;
	size_t i1 = i0 < last ? i0 + 1 : last;
	float u = (float)(x - (double)i0);
	if (u < 0) u = 0;
	if (u > 1) u = 1;
	for (size_t k = 0; k < an->cuts_count; k++)
		if (an->cuts[k] == i1) u = 0; // a cut jumps: hold the frame before
	const float *a = ch->values + i0 * width, *b = ch->values + i1 * width;
	float sign = 1;
	if (width == 4 && a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0) sign = -1;
	for (size_t k = 0; k < width; k++) out[k] = a[k] + (sign * b[k] - a[k]) * u;
	if (width == 4) gsioi_quat_normalize(out);
}

void gsioi_pose_nodes(const gsio_scene *s, int32_t anim, double key, float *local, float *world)
{
	for (size_t i = 0; i < s->nodes_count; i++) {
		float *l = local + 10 * i;
		memcpy(l, s->nodes[i].translation, 3 * sizeof(float));
		memcpy(l + 3, s->nodes[i].rotation, 4 * sizeof(float));
		memcpy(l + 7, s->nodes[i].scale, 3 * sizeof(float));
	}
	if (anim >= 0) {
		const gsio_animation *an = &s->animations[anim];
		for (size_t i = 0; i < an->channels_count; i++) {
			const gsio_channel *ch = &an->channels[i];
			if (ch->node < 0 || !ch->values) continue;
			float *l = local + 10 * (size_t)ch->node;
			if (ch->path == GSIO_PATH_TRANSLATION) sample(an, ch, 3, key, l);
			else if (ch->path == GSIO_PATH_ROTATION) sample(an, ch, 4, key, l + 3);
			else if (ch->path == GSIO_PATH_SCALE) sample(an, ch, 3, key, l + 7);
		}
	}
	for (size_t i = 0; i < s->nodes_count; i++) {
		float m[16];
		const float *l = local + 10 * i;
		gsioi_mat4_from_trs(l, l + 3, l + 7, m);
		int32_t p = s->nodes[i].parent;
		if (p >= 0) gsioi_mat4_mul(world + 16 * (size_t)p, m, world + 16 * i);
		else memcpy(world + 16 * i, m, sizeof(m));
	}
}

void gsioi_xform_point(const float m[16], const float p[3], float out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

/* Normals go through the inverse transpose (exact for non-uniform scale). */
void gsioi_normal_matrix(const float m[16], float out[9])
{
	float inv[16];
	if (gsioi_mat4_invert(m, inv)) {
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++) out[3 * r + k] = m[4 * k + r];
		return;
	}
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++) out[3 * r + k] = inv[4 * r + k]; // (inv^T)[r][k]
}

void gsioi_xform_normal(const float nm[9], const float n[3], float out[3])
{
	for (int r = 0; r < 3; r++) out[r] = nm[3 * r] * n[0] + nm[3 * r + 1] * n[1] + nm[3 * r + 2] * n[2];
	float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
	if (len > 0) out[0] /= len, out[1] /= len, out[2] /= len;
}

/* Normals from the faces when the mesh has none (area-weighted; the scene's
 * counter-clockwise front faces make them point outward). */
void gsioi_face_normals(const gsio_mesh *m, const float *pos, float *nrm)
{
	memset(nrm, 0, m->vertex_count * 3 * sizeof(float));
	for (size_t t = 0; t + 2 < m->index_count; t += 3) {
		const float *a = pos + 3 * m->indices[t], *b = pos + 3 * m->indices[t + 1],
		            *d = pos + 3 * m->indices[t + 2];
		float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
		float e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
		float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
		               e1[0] * e2[1] - e1[1] * e2[0]};
		for (int k = 0; k < 3; k++) {
			nrm[3 * m->indices[t] + (size_t)k] += cr[k];
			nrm[3 * m->indices[t + 1] + (size_t)k] += cr[k];
			nrm[3 * m->indices[t + 2] + (size_t)k] += cr[k];
		}
	}
	for (size_t v = 0; v < m->vertex_count; v++) {
		float *n = nrm + 3 * v;
		float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
		else n[2] = 1;
	}
}

void gsioi_morph_blend(const gsio_mesh *m, const float *w, float *scratch, float *tp, float *tn)
{
	size_t nv = m->vertex_count, n3 = nv * 3;
	float *f0p = scratch, *f0n = f0p + n3, *fjp = f0n + n3, *fjn = fjp + n3;
	bool nrm = gsio_mesh_frame_get(m, 0, f0p, f0n) == 1;
	memcpy(tp, f0p, n3 * sizeof(float));
	if (nrm) memcpy(tn, f0n, n3 * sizeof(float));
	for (size_t j = 1; j < m->frames_count; j++) {
		if (w[j] == 0) continue;
		bool jn = gsio_mesh_frame_get(m, j, fjp, fjn) == 1;
		for (size_t i = 0; i < n3; i++) tp[i] += w[j] * (fjp[i] - f0p[i]);
		if (nrm && jn)
			for (size_t i = 0; i < n3; i++) tn[i] += w[j] * (fjn[i] - f0n[i]);
		else nrm = false;
	}
	if (!nrm) {
		gsioi_face_normals(m, tp, tn);
	} else {
		for (size_t v = 0; v < nv; v++) {
			float *n = tn + 3 * v;
			float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
			if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
			else n[2] = 1;
		}
	}
}

void gsioi_stored_frame_name(char out[17], const gsio_mesh *m, size_t f, const char *stem)
{
	const char *n = f < m->frames_count ? m->frames[f].name : NULL;
	if (!n || !*n) {
		gsioi_clip_frame_name(out, stem, f);
		return;
	}
	gsioi_text_cp1252(out, 17, n);
}

bool gsioi_part_double_sided(const gsio_scene *s, const gsio_mesh_part *pt)
{
	return pt->material >= 0 && (size_t)pt->material < s->materials_count &&
	       s->materials[pt->material].double_sided;
}

// -- Output

gsio_arena *gsioi_write_arena(const gsio_allocator *allocator, size_t limit, gsio_error *err)
{
	gsio_arena *a = gsioi_arena_create(allocator, limit);
	if (!a) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
	return a;
}

int gsioi_write_start(const gsio_scene *scene, uint8_t **out, size_t *out_size, gsio_error *err)
{
	gsio_error_clear(err);
	if (!out || !out_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no output pointer");
		return -1;
	}
	*out = NULL;
	*out_size = 0;
	if (!scene) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no scene");
		return -1;
	}
	return gsio_scene_validate(scene, err) ? -1 : 0;
}

int gsioi_write_finish(int write_rc, const char *path, uint8_t *data, size_t size, bool no_replace,
                       const gsio_allocator *allocator, gsio_error *err)
{
	if (write_rc) {
		if (path && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
		return -1;
	}
	int rc;
	if (!path || !*path) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no output path");
		rc = -1;
	} else {
		gsioi_file_data fd = {path, data, size};
		rc = gsioi_place_files(&fd, 1, no_replace, err) ? -1 : 0;
	}
	gsio_write_free(allocator, data);
	return rc;
}

void gsio_write_free(const gsio_allocator *allocator, void *data)
{
	if (!data) return;
	if (allocator && allocator->alloc) {
		if (allocator->free) allocator->free(allocator->user, data);
		return;
	}
	free(data);
}
