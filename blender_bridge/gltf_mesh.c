/* The glTF writer's meshes: each scene mesh as a glTF mesh (indices, base
 * pose, skin attributes, morph targets, a primitive per part), a grid
 * mesh written a strip at a time, and a mesh that shares an earlier one's
 * arrays written once. Relies on gltf_buffer.c for views and accessors,
 * gltf_quant.c for the compact attributes and gltf_morph.c for the morph
 * targets. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Skin attributes and indices

/** JOINTS_n / WEIGHTS_n for a skinned mesh: every vertex's influences with
 *  weight > 0, duplicates merged, sorted by weight (largest first), split in
 *  sets of 4, normalised to sum 1 in float. */
static bool write_skin_attributes(gltf_ctx *c, size_t mi, cJSON *attrs)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	const gsio_weights *w = &m->weights;
	size_t nv = m->vertex_count, nj = c->s->skins[m->skin].joints_count;
	if (!w->offsets || !w->joints || !w->values) {
		FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weights without arrays", mi);
		return false;
	}
	if (w->offsets[0] != 0 || w->offsets[nv] != w->count) {
		FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight offsets do not span the weights", mi);
		return false;
	}
	for (size_t i = 0; i < w->count; i++)
		if (w->joints[i] >= nj) {
			FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight %zu names joint %u of %zu",
			          mi, i, (unsigned)w->joints[i], nj);
			return false;
		}
	// Sets needed: the most distinct joints with a positive weight on one vertex.
	size_t most = 0;
	for (size_t v = 0; v < nv; v++) {
		if (w->offsets[v + 1] < w->offsets[v]) {
			FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight offsets decrease at vertex %zu", mi, v);
			return false;
		}
		size_t n = 0;
		for (uint32_t i = w->offsets[v]; i < w->offsets[v + 1]; i++) {
			if (!(w->values[i] > 0) || !isfinite(w->values[i])) continue;
			bool seen = false;
			for (uint32_t k = w->offsets[v]; k < i && !seen; k++)
				seen = w->joints[k] == w->joints[i] && w->values[k] > 0 && isfinite(w->values[k]);
			if (!seen) n++;
		}
		if (n > most) most = n;
	}
	size_t sets = most ? (most + 3) / 4 : 1;
	size_t slots = sets * 4;
	bool wide = nj > 256;
	size_t jsize = wide ? 2 : 1, nslots;
	if (!gsioi_gltf_mul_size(nv, slots, &nslots)) {
		FAIL(c, GSIO_ERR_LIMIT, "mesh %zu: weight table overflows", mi);
		return false;
	}
	uint8_t *joints = gsioi_gltf_xmalloc_array(c, nslots, jsize);
	float *weights = gsioi_gltf_xmalloc_array(c, nslots, sizeof(float));
	uint32_t *tj = gsioi_gltf_xmalloc_array(c, most ? most : 1, sizeof(uint32_t));
	double *tw = gsioi_gltf_xmalloc_array(c, most ? most : 1, sizeof(double));
	bool ok = joints && weights && tj && tw;
	size_t unweighted = 0, dropped = 0;
	for (size_t v = 0; ok && v < nv; v++) {
		size_t n = 0;
		for (uint32_t i = w->offsets[v]; i < w->offsets[v + 1]; i++) {
			float x = w->values[i];
			if (!(x > 0) || !isfinite(x)) {
				if (x != 0) dropped++;
				continue;
			}
			size_t k = 0;
			while (k < n && tj[k] != w->joints[i]) k++;
			if (k == n) {
				tj[n] = w->joints[i];
				tw[n++] = x;
			} else {
				tw[k] += x;
			}
		}
		// Insertion sort: few influences per vertex. Ties keep the lower joint first.
		for (size_t a = 1; a < n; a++)
			for (size_t b = a; b > 0 && (tw[b] > tw[b - 1] || (tw[b] == tw[b - 1] && tj[b] < tj[b - 1])); b--) {
				double t = tw[b];
				tw[b] = tw[b - 1];
				tw[b - 1] = t;
				uint32_t u = tj[b];
				tj[b] = tj[b - 1];
				tj[b - 1] = u;
			}
		double sum = 0;
		for (size_t k = 0; k < n; k++) sum += tw[k];
		float *wv = weights + v * slots;
		uint8_t *jv = joints + v * slots * jsize;
		memset(wv, 0, slots * sizeof(float));
		memset(jv, 0, slots * jsize);
		if (n == 0) {
			// glTF needs every skinned vertex to have weight 1 in total.
			unweighted++;
			wv[0] = 1.0f;
			continue;
		}
		float rest = 0;
		for (size_t k = 1; k < n; k++) {
			wv[k] = (float)(tw[k] / sum);
			rest += wv[k];
		}
		wv[0] = 1.0f - rest; // the largest absorbs the rounding: the float sum is 1
		for (size_t k = 0; k < n; k++) {
			if (wide) {
				uint16_t j16 = (uint16_t)tj[k];
				memcpy(jv + 2 * k, &j16, 2);
			} else {
				jv[k] = (uint8_t)tj[k];
			}
		}
	}
	if (ok) {
		// Per set: a strided copy of 4 slots. One set is the table itself
		// (a copy of it held 20 bytes a vertex more: corridor_02_short_door's
		// 18 KB).
		const bool one = sets == 1;
		uint8_t *js = one ? joints : gsioi_gltf_xmalloc_array(c, nv, 4 * jsize);
		float *ws = one ? weights : gsioi_gltf_xmalloc_array(c, nv, 4 * sizeof(float));
		ok = js && ws;
		for (size_t set = 0; ok && set < sets; set++) {
			for (size_t v = 0; !one && v < nv; v++) {
				memcpy(js + v * 4 * jsize, joints + (v * slots + set * 4) * jsize, 4 * jsize);
				memcpy(ws + v * 4, weights + v * slots + set * 4, 4 * sizeof(float));
			}
			int view = gsioi_gltf_add_view(c, js, nv * 4 * jsize, GLTF_ARRAY_BUFFER);
			ok = view >= 0;
			if (!ok) break;
			cJSON *a = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, a, "bufferView", view);
			gsioi_gltf_jnum(c, a, "componentType", wide ? GLTF_UNSIGNED_SHORT : GLTF_UNSIGNED_BYTE);
			gsioi_gltf_jnum(c, a, "count", (double)nv);
			gsioi_gltf_jstr(c, a, "type", "VEC4");
			int ja = gsioi_gltf_jpush(c, c->accessors, a);
			int wa = gsioi_gltf_float_accessor(c, ws, nv, 4, false, GLTF_ARRAY_BUFFER);
			ok = ja >= 0 && wa >= 0;
			char key[32];
			snprintf(key, sizeof(key), "JOINTS_%zu", set);
			gsioi_gltf_jset_copy(c, attrs, key, gsioi_gltf_jnumber(ja));
			snprintf(key, sizeof(key), "WEIGHTS_%zu", set);
			gsioi_gltf_jset_copy(c, attrs, key, gsioi_gltf_jnumber(wa));
		}
		if (!one) free(js), free(ws);
	}
	free(joints);
	free(weights);
	free(tj);
	free(tw);
	if (ok && unweighted)
		gsioi_gltf_warn(c, "mesh %zu: %zu vertices have no weight; bound to joint 0", mi, unweighted);
	if (ok && dropped) gsioi_gltf_warn(c, "mesh %zu: %zu negative or non-finite weights dropped", mi, dropped);
	return ok;
}

/** An index accessor over part of the mesh's index view. */
static int index_accessor(gltf_ctx *c, int view, size_t first, size_t count, bool wide)
{
	cJSON *a = gsioi_gltf_jobj(c);
	gsioi_gltf_jnum(c, a, "bufferView", view);
	if (first) gsioi_gltf_jnum(c, a, "byteOffset", (double)(first * (wide ? 4 : 2)));
	gsioi_gltf_jnum(c, a, "componentType", wide ? GLTF_UNSIGNED_INT : GLTF_UNSIGNED_SHORT);
	gsioi_gltf_jnum(c, a, "count", (double)count);
	gsioi_gltf_jstr(c, a, "type", "SCALAR");
	return gsioi_gltf_jpush(c, c->accessors, a);
}

// -- Meshes from arrays

/** Whether meshes a and b are one mesh: the same arrays (not equal values:
 *  the same memory), as a level's instances of a skinned model are, each
 *  with its own skin of as many joints. */
static bool same_mesh(const gsio_scene *s, const gsio_mesh *a, const gsio_mesh *b)
{
	if (a->positions != b->positions || a->normals != b->normals || a->uvs != b->uvs ||
	    a->lightmap_uvs != b->lightmap_uvs ||
	    a->indices != b->indices || a->parts != b->parts || a->frames != b->frames ||
	    a->vertex_count != b->vertex_count || a->index_count != b->index_count ||
	    a->parts_count != b->parts_count || a->frames_count != b->frames_count ||
	    a->weights.offsets != b->weights.offsets || a->weights.joints != b->weights.joints ||
	    a->weights.values != b->weights.values || a->weights.count != b->weights.count ||
	    (a->skin < 0) != (b->skin < 0) || !a->positions)
		return false;
	return a->skin < 0 || s->skins[a->skin].joints_count == s->skins[b->skin].joints_count;
}

/** The rest of a mesh once its attributes (attrs, taken) and index view are
 *  written: one primitive per part with the morph targets (taken), the
 *  glTF mesh with its target names (names, taken) and extras. */
static bool write_primitives(gltf_ctx *c, size_t mi, const gsio_mesh *m, cJSON *attrs,
                             int index_view, bool wide, cJSON *targets, cJSON *names,
                             size_t bad_normals)
{
	if (bad_normals) gsioi_gltf_warn(c, "mesh %zu: %zu zero or non-finite normals replaced by up", mi, bad_normals);

	cJSON *prims = gsioi_gltf_jarr(c);
	for (size_t p = 0; p < m->parts_count; p++) {
		const gsio_mesh_part *part = &m->parts[p];
		if (!part->index_count) continue;
		cJSON *prim = gsioi_gltf_jobj(c);
		gsioi_gltf_jset(c, prim, "attributes", cJSON_Duplicate(attrs, true));
		gsioi_gltf_jnum(c, prim, "indices", index_accessor(c, index_view, part->first_index, part->index_count, wide));
		if (part->material >= 0) {
			gsioi_gltf_jnum(c, prim, "material", part->material);
			if (c->variants_count) {
				cJSON *ext = gsioi_gltf_jobj(c), *var = gsioi_gltf_jobj(c), *maps = gsioi_gltf_jarr(c);
				for (int k = 0; k < c->variants_count; k++) {
					cJSON *mp = gsioi_gltf_jobj(c), *vs = gsioi_gltf_jarr(c);
					gsioi_gltf_jnum(c, mp, "material", k);
					gsioi_gltf_jpush_num(c, vs, k);
					gsioi_gltf_jset(c, mp, "variants", vs);
					gsioi_gltf_jadd(c, maps, mp);
				}
				gsioi_gltf_jset(c, var, "mappings", maps);
				gsioi_gltf_jset(c, ext, "KHR_materials_variants", var);
				gsioi_gltf_jset(c, prim, "extensions", ext);
			}
		}
		gsioi_gltf_jnum(c, prim, "mode", 4);
		if (targets) gsioi_gltf_jset(c, prim, "targets", cJSON_Duplicate(targets, true));
		gsioi_gltf_jadd(c, prims, prim);
	}
	cJSON_Delete(attrs);
	cJSON_Delete(targets);
	cJSON *mesh = gsioi_gltf_jobj(c);
	if (m->name) gsioi_gltf_jstr(c, mesh, "name", m->name);
	gsioi_gltf_jset(c, mesh, "primitives", prims);
	cJSON *extras = NULL;
	if (names) {
		extras = gsioi_gltf_jobj(c);
		gsioi_gltf_jset(c, extras, "targetNames", names);
	}
	extras = gsioi_gltf_extras_json(c, extras, &m->extras);
	if (extras) gsioi_gltf_jset(c, mesh, "extras", extras);
	c->mesh_index[mi] = gsioi_gltf_jpush(c, c->meshes, mesh);
	if (names) c->mesh_targets[mi] = (int)m->frames_count;
	return true;
}

/** Mesh mi (m: its arrays) as a glTF mesh: indices, base pose, morph
 *  targets, then its primitives (write_primitives). */
static bool write_arrays_mesh(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	size_t nv = m->vertex_count, ni = m->index_count;
	cJSON *attrs = gsioi_gltf_jobj(c);
	bool ok = true;

	// Indices: one view, 16-bit when they fit (65535 is the primitive-restart
	// value); each part is an accessor into it.
	bool wide = nv > 65535;
	int index_view;
	if (!wide) {
		uint16_t *i16 = gsioi_gltf_xmalloc_array(c, ni, 2);
		ok = i16 != NULL;
		if (ok)
			for (size_t i = 0; i < ni; i++) i16[i] = (uint16_t)m->indices[i];
		index_view = ok ? gsioi_gltf_add_view(c, i16, ni * 2, GLTF_ELEMENT_ARRAY_BUFFER) : -1;
		free(i16);
	} else {
		index_view = gsioi_gltf_add_view(c, m->indices, ni * 4, GLTF_ELEMENT_ARRAY_BUFFER);
	}
	ok = ok && index_view >= 0;

	// Base pose, in output axes; one float more, so that a vertex can be read
	// as 4 floats (deltas_packed(), deltas_float_records()).
	float *pos = ok ? gsioi_gltf_xmalloc_array(c, 3 * nv + 1, sizeof(float)) : NULL;
	float *nrm = ok ? gsioi_gltf_xmalloc_array(c, 3 * nv + 1, sizeof(float)) : NULL;
	ok = ok && pos && nrm;
	if (ok) pos[3 * nv] = nrm[3 * nv] = 0;
	static const float up[3] = {0, 0, 1};
	float up_out[3];
	xf_dir(c, up, up_out);
	size_t bad_normals = 0;
	for (size_t v = 0; ok && v < nv; v++) {
		xf_pos(c, m->positions + 3 * v, pos + 3 * v);
		if (m->normals) {
			xf_dir(c, m->normals + 3 * v, nrm + 3 * v);
			if (!normalize3(nrm + 3 * v, up_out)) bad_normals++;
		}
	}
	cJSON *targets = NULL, *names = NULL;
	bool qpos = ok && c->q_ok[mi];
	if (ok && qpos) {
		names = gsioi_gltf_jarr(c);
		int pa = gsioi_gltf_write_positions_q(c, mi, pos, names, &targets);
		ok = pa >= 0;
		gsioi_gltf_jnum(c, attrs, "POSITION", pa);
		if (!targets) {
			cJSON_Delete(names);
			names = NULL;
		}
	} else if (ok) {
		gsioi_gltf_jnum(c, attrs, "POSITION", gsioi_gltf_float_accessor(c, pos, nv, 3, true, GLTF_ARRAY_BUFFER));
	}
	if (ok && c->compact) {
		int na = m->normals ? gsioi_gltf_normal_accessor_q(c, nrm, nv) : 0;
		int ua = m->uvs ? gsioi_gltf_uv_accessor_q(c, m->uvs, nv) : 0;
		ok = na >= 0 && ua >= 0;
		if (m->normals) gsioi_gltf_jnum(c, attrs, "NORMAL", na);
		if (m->uvs) gsioi_gltf_jnum(c, attrs, "TEXCOORD_0", ua);
	} else if (ok) {
		if (m->normals) gsioi_gltf_jnum(c, attrs, "NORMAL", gsioi_gltf_float_accessor(c, nrm, nv, 3, false, GLTF_ARRAY_BUFFER));
		if (m->uvs) gsioi_gltf_jnum(c, attrs, "TEXCOORD_0", gsioi_gltf_float_accessor(c, m->uvs, nv, 2, false, GLTF_ARRAY_BUFFER));
	}
	if (ok && m->lightmap_uvs) // a lightmap's, as floats in either mode
		gsioi_gltf_jnum(c, attrs, "TEXCOORD_1",
		                gsioi_gltf_float_accessor(c, m->lightmap_uvs, nv, 2, false, GLTF_ARRAY_BUFFER));
	// The base pose in output axes is needed again only for morph targets:
	// without, it goes before the joint and weight table is made (24 bytes
	// a vertex not held beside its 20; corridor_02_short_door's 22 KB).
	const bool morph = !qpos && c->animate && m->frames_count >= 2;
	if (!morph) {
		free(pos), free(nrm);
		pos = nrm = NULL;
	}
	if (ok && m->weights.count && m->skin >= 0) {
		ok = write_skin_attributes(c, mi, attrs);
		if (ok) c->mesh_skin[mi] = m->skin;
	} else if (ok && m->weights.count) {
		gsioi_gltf_warn(c, "mesh %zu has weights but no skin: weights dropped", mi);
	}

	// Morph targets: a mesh with 0 or 1 frames is a plain mesh.
	if (ok && morph) {
		names = gsioi_gltf_jarr(c);
		targets = gsioi_gltf_write_targets(c, mi, pos, nrm, names, &bad_normals);
		ok = targets != NULL;
	}
	free(pos);
	free(nrm);
	if (!ok) {
		cJSON_Delete(attrs);
		cJSON_Delete(names);
		cJSON_Delete(targets);
		return false;
	}
	return write_primitives(c, mi, m, attrs, index_view, wide, targets, names, bad_normals);
}

// -- Grid meshes

/** Vertices or triangles a strip of a grid mesh holds (a few hundred KB of
 *  floats at a time, not the whole mesh). */
#define GRID_STRIP 16384

/** Mesh mi, a grid mesh (GSIO_OPT_GRID), written from its accessors a strip
 *  at a time straight into the binary buffer: the same views, accessors
 *  and bytes as write_arrays_mesh() writes from the expanded mesh. */
static bool write_grid_mesh(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	size_t nv = m->vertex_count, ntri = m->index_count / 3;
	bool wide = nv > 65535;
	float dummy[3];
	bool has_normals = gsio_mesh_grid_get(m, 0, 0, NULL, dummy, NULL) == 1;
	uint32_t *ix = gsioi_gltf_xmalloc_array(c, GRID_STRIP, 3 * sizeof(uint32_t));
	float *pos = gsioi_gltf_xmalloc_array(c, GRID_STRIP, 3 * sizeof(float));
	float *nrm = gsioi_gltf_xmalloc_array(c, GRID_STRIP, 3 * sizeof(float));
	bool ok = ix && pos && nrm;

	// Indices, 16-bit when they fit, in place of the 32-bit ones.
	int index_view = -1;
	size_t off = c->bin.size;
	ok = ok && gsioi_gltf_buffer_align(c);
	if (ok) off = c->bin.size;
	for (size_t t = 0; ok && t < ntri; t += GRID_STRIP) {
		size_t n = ntri - t < GRID_STRIP ? ntri - t : GRID_STRIP;
		ok = gsio_mesh_grid_indices(m, t, n, ix) == 0;
		if (ok && !wide) {
			uint16_t *i16 = (uint16_t *)(void *)ix;
			for (size_t k = 0; k < 3 * n; k++) i16[k] = (uint16_t)ix[k];
		}
		ok = ok && gsioi_gltf_buf_append(c, ix, 3 * n * (wide ? 4 : 2));
	}
	if (ok) index_view = gsioi_gltf_view_json(c, off, 3 * ntri * (wide ? 4 : 2), 0, GLTF_ELEMENT_ARRAY_BUFFER);
	ok = ok && index_view >= 0;

	// Positions (with min/max as gsioi_gltf_min_max() finds them) and normals in
	// output axes, as write_arrays_mesh() turns them; then the uvs as stored.
	static const float up[3] = {0, 0, 1};
	float up_out[3], mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
	xf_dir(c, up, up_out);
	size_t bad_normals = 0;
	cJSON *attrs = gsioi_gltf_jobj(c);
	for (int pass = 0; ok && pass < (has_normals ? 3 : 2); pass++) {
		int what = pass == 0 ? 0 : has_normals && pass == 1 ? 1 : 2; // position, normal, uv
		int ncomp = what == 2 ? 2 : 3;
		ok = gsioi_gltf_buffer_align(c);
		off = c->bin.size;
		for (size_t v = 0; ok && v < nv; v += GRID_STRIP) {
			size_t n = nv - v < GRID_STRIP ? nv - v : GRID_STRIP;
			ok = gsio_mesh_grid_get(m, v, n, what == 0 ? pos : NULL, what == 1 ? nrm : NULL,
			                        what == 2 ? pos : NULL) >= 0;
			for (size_t k = 0; ok && what == 0 && k < n; k++) {
				float q[3];
				xf_pos(c, pos + 3 * k, q);
				memcpy(pos + 3 * k, q, sizeof(q));
				for (int j = 0; j < 3; j++) {
					if ((v == 0 && k == 0) || q[j] < mn[j]) mn[j] = q[j];
					if ((v == 0 && k == 0) || q[j] > mx[j]) mx[j] = q[j];
				}
			}
			for (size_t k = 0; ok && what == 1 && k < n; k++) {
				xf_dir(c, nrm + 3 * k, pos + 3 * k);
				if (!normalize3(pos + 3 * k, up_out)) bad_normals++;
			}
			ok = ok && gsioi_gltf_buf_append(c, pos, n * (size_t)ncomp * sizeof(float));
		}
		int view = ok ? gsioi_gltf_view_json(c, off, nv * (size_t)ncomp * sizeof(float), 0, GLTF_ARRAY_BUFFER) : -1;
		int acc = view < 0 ? -1
		                   : gsioi_gltf_float_accessor_json(c, view, nv, ncomp, what == 0 ? mn : NULL,
		                                              what == 0 ? mx : NULL);
		ok = acc >= 0;
		gsioi_gltf_jnum(c, attrs, what == 0 ? "POSITION" : what == 1 ? "NORMAL" : "TEXCOORD_0", acc);
	}
	free(ix), free(pos), free(nrm);
	if (!ok) {
		cJSON_Delete(attrs);
		return false;
	}
	return write_primitives(c, mi, m, attrs, index_view, wide, NULL, NULL, bad_normals);
}

/** Mesh mi, a grid mesh, through an expanded copy (for --compact, whose
 *  quantised accessors take whole arrays). */
static bool write_grid_expanded(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	gsio_mesh e = *m;
	float dummy[3];
	bool has_normals = gsio_mesh_grid_get(m, 0, 0, NULL, dummy, NULL) == 1;
	e.positions = gsioi_gltf_xmalloc_array(c, m->vertex_count, 3 * sizeof(float));
	e.normals = has_normals ? gsioi_gltf_xmalloc_array(c, m->vertex_count, 3 * sizeof(float)) : NULL;
	e.uvs = gsioi_gltf_xmalloc_array(c, m->vertex_count, 2 * sizeof(float));
	e.indices = gsioi_gltf_xmalloc_array(c, m->index_count, sizeof(uint32_t));
	bool ok = e.positions && (e.normals || !has_normals) && e.uvs && e.indices &&
	          gsio_mesh_grid_get(m, 0, m->vertex_count, e.positions, e.normals, e.uvs) >= 0 &&
	          gsio_mesh_grid_indices(m, 0, m->index_count / 3, e.indices) == 0;
	e.grid = NULL;
	ok = ok && write_arrays_mesh(c, mi, &e);
	free(e.positions), free(e.normals), free(e.uvs), free(e.indices);
	return ok;
}

// -- Each scene mesh

typedef struct mesh_key {
	uintptr_t positions;
	size_t index;
} mesh_key;

static int mesh_key_cmp(const void *a, const void *b)
{
	const mesh_key *x = a, *y = b;
	if (x->positions != y->positions) return x->positions < y->positions ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/** Groups the meshes by their positions array, the first thing same_mesh()
 *  compares: same_first[i] is the first mesh of i's positions, same_next[i]
 *  the next one (SIZE_MAX: none, or no positions). */
bool gsioi_gltf_plan_shared_meshes(gltf_ctx *c)
{
	size_t n = c->s->meshes_count;
	mesh_key *keys = gsioi_gltf_xmalloc_array(c, n ? n : 1, sizeof(*keys));
	if (!keys) return false;
	for (size_t i = 0; i < n; i++) {
		keys[i].positions = (uintptr_t)c->s->meshes[i].positions;
		keys[i].index = i;
		c->same_first[i] = c->same_next[i] = SIZE_MAX;
	}
	qsort(keys, n, sizeof(*keys), mesh_key_cmp);
	for (size_t at = 0, end; at < n; at = end) {
		for (end = at + 1; end < n && keys[end].positions == keys[at].positions; end++) {}
		if (!keys[at].positions) continue;
		for (size_t j = at; j < end; j++) {
			c->same_first[keys[j].index] = keys[at].index;
			c->same_next[keys[j].index] = j + 1 < end ? keys[j + 1].index : SIZE_MAX;
		}
	}
	free(keys);
	return true;
}

bool gsioi_gltf_write_mesh(gltf_ctx *c, size_t mi)
{
	const gsio_scene *s = c->s;
	const gsio_mesh *m = &s->meshes[mi];
	size_t nv = m->vertex_count, ni = m->index_count;
	c->mesh_index[mi] = -1;
	c->mesh_targets[mi] = 0;
	c->mesh_skin[mi] = -1;
	// A mesh sharing an earlier one's arrays is that glTF mesh; only its
	// skin is its own. Only the meshes of its positions are candidates, in
	// order (gsioi_gltf_plan_shared_meshes()): a scan of all earlier meshes would
	// make a level of 20 000 blocks quadratic.
	for (size_t k = c->same_first[mi]; k < mi; k = c->same_next[k])
		if (c->mesh_index[k] >= 0 && same_mesh(s, m, &s->meshes[k]) &&
		    (c->q_scale[k] == 0 || c->q_ok[mi])) { // quantised: this mesh's nodes must take the fold too
			c->mesh_index[mi] = c->mesh_index[k];
			c->q_scale[mi] = c->q_scale[k];
			memcpy(c->q_off + 3 * mi, c->q_off + 3 * k, 3 * sizeof(float));
			c->mesh_targets[mi] = c->mesh_targets[k];
			c->mesh_skin[mi] = c->mesh_skin[k] >= 0 ? m->skin : -1;
			return true;
		}
	if (!nv || !ni || ((!m->positions || !m->indices) && !m->grid) || !m->parts_count) {
		gsioi_gltf_warn(c, "mesh %zu (%s) has no vertices or triangles: not written", mi, gsioi_gltf_or_default(m->name, ""));
		return true;
	}
	if (nv > UINT32_MAX - 1) {
		FAIL(c, GSIO_ERR_LIMIT, "mesh %zu: %zu vertices", mi, nv);
		return false;
	}
	if (m->grid) return c->compact ? write_grid_expanded(c, mi, m) : write_grid_mesh(c, mi, m);
	return write_arrays_mesh(c, mi, m);
}
