/* The glTF writer's quantised attributes (GSIO_GLTF_COMPACT,
 * KHR_mesh_quantization): normals as normalized bytes, uvs as normalized
 * shorts, positions and their morph targets as normalized shorts and bytes
 * in units of a per-mesh scale, which the placing nodes take back
 * (plan_quant decides for which meshes they can). Relies on gltf_buffer.c
 * for the views and float accessors. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>

/** A quantised vertex attribute over its own view: `count` elements of
 *  `ncomp` components of `csize` bytes (1: BYTE/UNSIGNED_BYTE, 2: SHORT/
 *  UNSIGNED_SHORT), each element padded to `stride` bytes (the extension
 *  wants every element 4-byte aligned). `q` holds the integer values,
 *  count * ncomp; min/max (of the stored integers, which is what the spec
 *  asks even for normalized accessors) when asked. Returns the accessor or -1. */
static int quant_accessor(gltf_ctx *c, const int32_t *q, size_t count, int ncomp, int ctype,
                          bool with_min_max)
{
	int csize = ctype == GLTF_BYTE || ctype == GLTF_UNSIGNED_BYTE ? 1 : 2;
	int stride = (ncomp * csize + 3) / 4 * 4;
	size_t bytes;
	if (!gsioi_gltf_mul_size(count, (size_t)stride, &bytes)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF accessor size overflows");
		return -1;
	}
	uint8_t *b = calloc(bytes ? bytes : 1, 1);
	if (!b) return gsioi_gltf_fail_nomem(c, "a quantised accessor"), -1;
	int32_t mn[4] = {0}, mx[4] = {0};
	for (size_t i = 0; i < count; i++)
		for (int k = 0; k < ncomp; k++) {
			int32_t v = q[i * (size_t)ncomp + (size_t)k];
			if (i == 0 || v < mn[k]) mn[k] = v;
			if (i == 0 || v > mx[k]) mx[k] = v;
			uint8_t *d = b + i * (size_t)stride + (size_t)(k * csize);
			if (csize == 1) {
				d[0] = (uint8_t)(v & 0xff);
			} else {
				uint16_t u = (uint16_t)(v & 0xffff); // little endian, as GLB is
				d[0] = (uint8_t)(u & 0xff);
				d[1] = (uint8_t)(u >> 8);
			}
		}
	int view = gsioi_gltf_add_view_strided(c, b, bytes, GLTF_ARRAY_BUFFER, stride);
	free(b);
	if (view < 0) return -1;
	cJSON *a = gsioi_gltf_jobj(c);
	gsioi_gltf_jnum(c, a, "bufferView", view);
	gsioi_gltf_jnum(c, a, "componentType", ctype);
	cJSON_AddBoolToObject(a, "normalized", 1);
	gsioi_gltf_jnum(c, a, "count", (double)count);
	gsioi_gltf_jstr(c, a, "type", gsioi_gltf_type_name(ncomp));
	if (with_min_max) {
		cJSON *jmn = gsioi_gltf_jarr(c), *jmx = gsioi_gltf_jarr(c);
		for (int k = 0; k < ncomp; k++) {
			gsioi_gltf_jpush_num(c, jmn, mn[k]);
			gsioi_gltf_jpush_num(c, jmx, mx[k]);
		}
		gsioi_gltf_jset(c, a, "min", jmn);
		gsioi_gltf_jset(c, a, "max", jmx);
	}
	c->used_quant = true;
	return gsioi_gltf_jpush(c, c->accessors, a);
}

/* x in units of 1 / lim, rounded half up, clamped to [-lim, lim]: the
 * floor taken by truncation (floor() is a libm call without SSE4.1, and
 * this runs for every vertex of every frame). */
static int32_t quant(double x, int32_t lim)
{
	double y = x * lim + 0.5;
	if (y < -lim) return -lim;
	if (y >= lim) return lim;
	if (y != y) return 0; // not reached: positions are finite
	int32_t t = (int32_t)y;
	return (double)t > y ? t - 1 : t;
}

/** Normals (unit, output axes) as normalized BYTE VEC3. */
int gsioi_gltf_normal_accessor_q(gltf_ctx *c, const float *nrm, size_t nv)
{
	int32_t *q = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(int32_t));
	if (!q) return -1;
	for (size_t i = 0; i < 3 * nv; i++) q[i] = quant(nrm[i], 127);
	int a = quant_accessor(c, q, nv, 3, GLTF_BYTE, false);
	free(q);
	return a;
}

/** UVs as normalized UNSIGNED_SHORT when all lie in 0..1, else float. */
int gsioi_gltf_uv_accessor_q(gltf_ctx *c, const float *uv, size_t nv)
{
	for (size_t i = 0; i < 2 * nv; i++)
		if (!(uv[i] >= 0 && uv[i] <= 1)) return gsioi_gltf_float_accessor(c, uv, nv, 2, false, GLTF_ARRAY_BUFFER);
	int32_t *q = gsioi_gltf_xmalloc_array(c, nv, 2 * sizeof(int32_t));
	if (!q) return -1;
	for (size_t i = 0; i < 2 * nv; i++) q[i] = (int32_t)floor((double)uv[i] * 65535 + 0.5);
	int a = quant_accessor(c, q, nv, 2, GLTF_UNSIGNED_SHORT, false);
	free(q);
	return a;
}

/** Which meshes may have quantised positions: the dequantisation goes into
 *  the placing nodes' translation and scale, so every placing node must be
 *  a leaf (children would inherit the scale) without a TRS channel (the
 *  animation would overwrite it), and the mesh must not be skinned (a skin
 *  ignores the node's transform). */
void gsioi_gltf_plan_quant(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		const gsio_mesh *m = &s->meshes[mi];
		bool ok = c->compact && !(m->weights.count && m->skin >= 0);
		bool placed = false;
		for (size_t i = 0; ok && i < s->nodes_count; i++) {
			if (s->nodes[i].mesh != (int32_t)mi) continue;
			placed = true;
			for (size_t k = 0; ok && k < s->nodes_count; k++) ok = s->nodes[k].parent != (int32_t)i;
			for (size_t a = 0; ok && a < s->animations_count; a++)
				for (size_t ch = 0; ok && ch < s->animations[a].channels_count; ch++) {
					const gsio_channel *h = &s->animations[a].channels[ch];
					ok = !(h->node == (int32_t)i && h->path <= GSIO_PATH_SCALE);
				}
		}
		c->q_ok[mi] = ok && placed;
	}
}

/** Compact positions of mesh mi (pos: base pose, output axes): the base as
 *  normalized SHORT around the centre of its box, the morph targets'
 *  POSITION deltas as normalized BYTE, all in units of one scale s (at
 *  least the base's half extent and the largest delta), so that a frame is
 *  (q0 / 32767 + qd / 127) * s + offset. Deltas are taken from the
 *  quantised base, so a frame's error is one delta step at most. Sets
 *  c->q_off/q_scale; returns the POSITION accessor (-1 on failure) and the
 *  targets in *targets (NULL when the mesh has none). */
int gsioi_gltf_write_positions_q(gltf_ctx *c, size_t mi, const float *pos, cJSON *names, cJSON **targets)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	size_t nv = m->vertex_count;
	bool morph = c->animate && m->frames_count >= 2;
	*targets = NULL;
	float mn[3], mx[3];
	gsioi_gltf_min_max(pos, nv, 3, mn, mx);
	double off[3], sc = 0;
	for (int k = 0; k < 3; k++) {
		off[k] = ((double)mn[k] + mx[k]) / 2;
		if ((double)mx[k] - off[k] > sc) sc = (double)mx[k] - off[k];
	}
	float *fp = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float));
	float *raw = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(float)); // one frame, scene axes
	int32_t *q0 = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(int32_t));
	int32_t *qd = gsioi_gltf_xmalloc_array(c, nv, 3 * sizeof(int32_t));
	if (!fp || !raw || !q0 || !qd) {
		free(fp), free(raw), free(q0), free(qd);
		return -1;
	}
	for (size_t f = 0; morph && f < m->frames_count; f++) {
		if (gsio_mesh_frame_get(m, f, raw, NULL) < 0) continue; // validated: cannot happen
		for (size_t v = 0; v < nv; v++) {
			xf_pos(c, raw + 3 * v, fp + 3 * v);
			for (int k = 0; k < 3; k++) { // a compare, not fmax(): a libm call a component
				double d = fabs((double)fp[3 * v + k] - pos[3 * v + k]);
				if (d > sc) sc = d;
			}
		}
	}
	if (!(sc > 0) || !isfinite(sc)) sc = 1;
	sc *= 1.0001; // rounding of the base must not push a delta past 127
	for (size_t i = 0; i < 3 * nv; i++) q0[i] = quant(((double)pos[i] - off[i % 3]) / sc, 32767);
	int pa = quant_accessor(c, q0, nv, 3, GLTF_SHORT, true);
	bool ok = pa >= 0;
	if (ok && morph) {
		*targets = gsioi_gltf_jarr(c);
		for (size_t f = 0; ok && f < m->frames_count; f++) {
			const gsio_morph_frame *fr = &m->frames[f];
			ok = gsio_mesh_frame_get(m, f, raw, NULL) >= 0;
			for (size_t v = 0; ok && v < nv; v++) {
				xf_pos(c, raw + 3 * v, fp + 3 * v);
				for (int k = 0; k < 3; k++) {
					size_t i = 3 * v + (size_t)k;
					double d = ((double)fp[i] - off[k]) / sc - q0[i] / 32767.0;
					qd[i] = quant(d, 127);
				}
			}
			if (!ok) break;
			cJSON *t = gsioi_gltf_jobj(c);
			int a = quant_accessor(c, qd, nv, 3, GLTF_BYTE, true);
			ok = a >= 0;
			gsioi_gltf_jnum(c, t, "POSITION", a);
			gsioi_gltf_jadd(c, *targets, t);
			char fallback[32];
			snprintf(fallback, sizeof(fallback), "frame%zu", f);
			gsioi_gltf_jadd(c, names, cJSON_CreateString(gsioi_gltf_or_default(fr->name, fallback)));
		}
	}
	free(fp), free(raw), free(q0), free(qd);
	for (int k = 0; k < 3; k++) c->q_off[3 * mi + (size_t)k] = (float)off[k];
	c->q_scale[mi] = (float)sc;
	if (!ok) {
		cJSON_Delete(*targets);
		*targets = NULL;
		return -1;
	}
	return pa;
}
