/* WMP blocks -> meshes, for the level -> scene conversion (wmp_scene.c);
 * the brush maths (planes -> faces, dialect A) is wmp_brush.c's.
 *
 * - Blocks: one mesh each, block-local positions, faces fanned with the
 *   winding reversed (clockwise -> counter-clockwise), flat outward normals,
 *   one part per texture, UVs by the verified projection: Quake base axes
 *   rotated by the angle, divided by the scale, plus the offset, divided by
 *   the texture size; world positions for unlocked blocks, block-local ones
 *   for texture-locked blocks (flag 0x00010000).
 * - Textures and their sizes come from wmp_textures.c; a face without a
 *   texture gets no material and UVs over the placeholder's size. */
#include "wmp_internal.h"

// -- Blocks

/* In doubles: positions reach +-1e30 (clamped), whose products overflow
 * floats (a fuzzed level made NaN normals). */
static void fan_normal(const float *p0, const float *p1, const float *p2, double n[3])
{
	double a[3], b[3];
	for (int k = 0; k < 3; k++) a[k] = (double)p1[k] - p0[k], b[k] = (double)p2[k] - p0[k];
	n[0] = a[1] * b[2] - a[2] * b[1];
	n[1] = a[2] * b[0] - a[0] * b[2];
	n[2] = a[0] * b[1] - a[1] * b[0];
}

bool gsioi_wmp_build_block(wmp_sctx *c, const gsio_wmp_block *b, int32_t node, const char *name)
{
	gsio_scene *s = c->s;
	size_t nv = 0, ni = 0;
	for (size_t i = 0; i < b->faces_count; i++) {
		size_t k = b->faces[i].indices_count;
		if (k < 3) continue;
		nv += k;
		ni += 3 * (k - 2);
	}
	if (!ni)
		return gsioi_wmp_warn(c, "block %u has no face of 3 or more vertices: no mesh", b->index);
	// Face -> surface, and each surface's material slot.
	int32_t *surf = GSIO_NEW_ARRAY(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(surf);
	for (size_t i = 0; i < b->faces_count; i++) surf[i] = -1;
	for (size_t i = 0; i < b->surfaces_count; i++)
		if (b->surfaces[i].face < b->faces_count && surf[b->surfaces[i].face] < 0)
			surf[b->surfaces[i].face] = (int32_t)i;
	int32_t *slot = GSIO_NEW_ARRAY(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(slot);
	for (size_t i = 0; i < b->faces_count; i++) {
		slot[i] = -1;
		if (surf[i] < 0 || !b->surfaces[surf[i]].texture.s || !b->surfaces[surf[i]].texture.s[0])
			continue;
		size_t t;
		GSIO_CHECK(gsioi_wmp_texture_material(c, b->surfaces[surf[i]].texture.s, &t));
		slot[i] = (int32_t)t;
	}
	int32_t mi = gsio_scene_add_mesh(s, name, nv, ni, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, c->err);
	GSIO_CHECK(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	// World matrix of the block's node, for unlocked projection.
	float world[16];
	gsio_node_world_matrix(s, node, world);
	bool locked = (b->flags & GSIO_WMP_BLOCK_LOCKED) != 0;
	// Parts: faces grouped by material slot, in order of first use, each
	// slot's faces in file order. Counted, then placed (a counting sort):
	// a face is visited twice, where a pass over the faces per part made a
	// block of n textures cost n * n, and a part per texture of the level
	// in every block (the level's textures x its blocks) is one per slot
	// the block uses.
	if (c->part_of_slot_cap < c->tex_count) {
		c->part_of_slot = GSIO_NEW_ARRAY_UNINIT(c->tmp, int32_t, c->tex_cap, c->err);
		GSIO_CHECK(c->part_of_slot);
		for (size_t i = 0; i < c->tex_cap; i++) c->part_of_slot[i] = -1;
		c->part_of_slot_cap = c->tex_cap;
	}
	size_t *face_part = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	size_t *part_end = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	int32_t *part_slot = GSIO_NEW_ARRAY_UNINIT(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(face_part && part_end && part_slot);
	int32_t untextured = -1; // the part of the faces without a texture
	size_t parts_count = 0;
	for (size_t i = 0; i < b->faces_count; i++) {
		if (b->faces[i].indices_count < 3) continue;
		int32_t *part = slot[i] < 0 ? &untextured : &c->part_of_slot[slot[i]];
		if (*part < 0) {
			*part = (int32_t)parts_count;
			part_slot[parts_count] = slot[i];
			part_end[parts_count++] = 0;
		}
		face_part[i] = (size_t)*part;
		part_end[*part]++;
	}
	for (size_t p = 0, at = 0; p < parts_count; p++) {
		if (part_slot[p] >= 0) c->part_of_slot[part_slot[p]] = -1; // clean for the next block
		size_t n = part_end[p];
		part_end[p] = at; // the part's start, until its faces are placed
		at += n;
	}
	size_t *order = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	GSIO_CHECK(order);
	for (size_t i = 0; i < b->faces_count; i++)
		if (b->faces[i].indices_count >= 3) order[part_end[face_part[i]]++] = i;
	gsio_mesh_part *parts = gsio_scene_alloc(s, parts_count, sizeof(*parts), c->err);
	GSIO_CHECK(parts);
	size_t v = 0, ix = 0;
	for (size_t pi = 0, at = 0; pi < parts_count; pi++) {
		int32_t want = part_slot[pi];
		gsio_mesh_part *part = &parts[pi];
		part->first_index = ix;
		part->material = want < 0 ? -1 : c->tex_material[want];
		for (; at < part_end[pi]; at++) {
			size_t i = order[at];
			const gsio_wmp_face *fa = &b->faces[i];
			size_t k = fa->indices_count, first = v;
			const gsio_wmp_surface *su = surf[i] >= 0 ? &b->surfaces[surf[i]] : NULL;
			double cs = su ? cos(su->angle * M_PI / 180) : 1, sn = su ? sin(su->angle * M_PI / 180) : 0;
			double S[3] = {0, 0, 0}, T[3] = {0, 0, 0};
			double sx = su && su->scale[0] != 0 ? su->scale[0] : 1;
			double sy = su && su->scale[1] != 0 ? su->scale[1] : 1;
			for (int q = 0; q < 3 && su; q++) {
				S[q] = (cs * su->u[q] - sn * su->v[q]) / sx;
				T[q] = (sn * su->u[q] + cs * su->v[q]) / sy;
			}
			double tw = want >= 0 ? c->tex_w[want] : WMP_CHECKER_SIZE;
			double th = want >= 0 ? c->tex_h[want] : WMP_CHECKER_SIZE;
			// Reversed: the file's clockwise order read backwards.
			for (size_t j = 0; j < k; j++) {
				const double *p = b->vertices + 3 * fa->indices[k - 1 - j];
				float *o = m->positions + 3 * (v + j);
				for (int q = 0; q < 3; q++) o[q] = gsioi_wmp_clampf(p[q]);
				double pp[3] = {p[0], p[1], p[2]};
				if (!locked)
					for (int q = 0; q < 3; q++)
						pp[q] = world[q] * p[0] + world[4 + q] * p[1] + world[8 + q] * p[2] +
						        world[12 + q];
				double sv = su ? S[0] * pp[0] + S[1] * pp[1] + S[2] * pp[2] + su->offset[0] : 0;
				double tv = su ? T[0] * pp[0] + T[1] * pp[1] + T[2] * pp[2] + su->offset[1] : 0;
				m->uvs[2 * (v + j)] = gsioi_wmp_clampf(sv / tw);
				m->uvs[2 * (v + j) + 1] = gsioi_wmp_clampf(tv / th);
			}
			double n[3] = {0, 0, 0};
			for (size_t j = 1; j + 1 < k; j++) {
				double t[3];
				fan_normal(m->positions + 3 * first, m->positions + 3 * (first + j),
				           m->positions + 3 * (first + j + 1), t);
				for (int q = 0; q < 3; q++) n[q] += t[q];
			}
			double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
			bool ok_n = len > 0 && isfinite(len);
			for (size_t j = 0; j < k; j++)
				for (int q = 0; q < 3; q++)
					m->normals[3 * (v + j) + q] = ok_n ? (float)(n[q] / len) : (q == 2 ? 1.0f : 0.0f);
			for (size_t j = 1; j + 1 < k; j++) {
				m->indices[ix++] = (uint32_t)first;
				m->indices[ix++] = (uint32_t)(first + j);
				m->indices[ix++] = (uint32_t)(first + j + 1);
			}
			v += k;
		}
		part->index_count = ix - part->first_index;
	}
	m->parts = parts;
	m->parts_count = parts_count;
	gsioi_bbox3(m->positions, m->vertex_count, m->bbox_min, m->bbox_max);
	s->source.vertices += b->vertices_count;
	s->source.triangles += ni / 3;
	s->nodes[node].mesh = mi;
	gsio_extras *x = &s->nodes[node].extras;
	GSIO_CHECK(!gsio_extras_set_string(s, x, "wmp:element", "block", c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, x, "wmp:block_flags", b->flags, c->err));
	return true;
}
