/* gsio_scene_validate(): every rule of the scene model in one place. Every
 * writer calls it first, so a writer can trust indices, counts and floats;
 * importers' scenes pass it (tests and fuzz_load check that).
 *
 * Messages name the element by its path in the scene ("meshes[2].parts[0]
 * .material 9 is outside 0..3") so the author of a builder finds the bug. */
#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Helpers

typedef struct vctx {
	const gsio_scene *s;
	gsio_error *err;
} vctx;

static bool bad(vctx *v, const char *fmt, ...) GSIO_PRINTF(2, 3);
static bool bad(vctx *v, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	GSIO_FAIL(v->err, GSIO_ERR_ARGUMENT, "scene", -1, "invalid scene: %s", buf);
	return false;
}

#define V_CHECK(cond) \
	do { \
		if (!(cond)) return false; \
	} while (0)

/* index is -1 (when allowed) or inside 0..count-1. */
static bool index_ok(vctx *v, int32_t index, size_t count, bool none_ok, const char *what,
                     size_t i, const char *field)
{
	if (index == -1 && none_ok) return true;
	if (index >= 0 && (size_t)index < count) return true;
	if (count == 0)
		return bad(v, "%s[%zu].%s %d: there are none%s", what, i, field, (int)index,
		           none_ok ? " (use -1)" : "");
	return bad(v, "%s[%zu].%s %d is outside 0..%zu%s", what, i, field, (int)index, count - 1,
	           none_ok ? " (or -1 for none)" : "");
}

/* n floats finite. */
static bool finite_ok(vctx *v, const float *f, size_t n, const char *what, size_t i,
                      const char *field)
{
	if (gsioi_floats_finite(f, n)) return true; // the fast check; then which one
	for (size_t k = 0; k < n; k++)
		if (!isfinite(f[k]))
			return bad(v, "%s[%zu].%s[%zu] is not finite (%g)", what, i, field, k, (double)f[k]);
	return true;
}

static bool array_ok(vctx *v, const void *p, size_t count, const char *what)
{
	if (count && !p) return bad(v, "%s_count is %zu but %s is NULL", what, count, what);
	return true;
}

static bool quat_ok(vctx *v, const float q[4], const char *what, size_t i, const char *field)
{
	V_CHECK(finite_ok(v, q, 4, what, i, field));
	double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
	                  (double)q[3] * q[3]);
	if (fabs(len - 1.0) > 1e-3)
		return bad(v, "%s[%zu].%s is not a unit quaternion (length %g)", what, i, field, len);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names of an element array that must be unique (NULL names are not
 * compared). names_at(i) gives the i-th name. */
static bool unique_ok(vctx *v, const void *base, size_t count, size_t stride, size_t name_off,
                      const char *what)
{
	if (count < 2) return true;
	const char **names = malloc(count * sizeof(*names));
	if (!names) {
		GSIO_FAIL(v->err, GSIO_ERR_NOMEM, "scene", -1, "out of memory checking %s names", what);
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		const char *nm;
		memcpy(&nm, (const uint8_t *)base + i * stride + name_off, sizeof(nm));
		if (nm) names[n++] = nm;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	bool ok = true;
	for (size_t i = 1; i < n && ok; i++)
		if (strcmp(names[i - 1], names[i]) == 0)
			ok = bad(v, "two %s are named \"%s\" (names must be unique)", what, names[i]);
	free(names);
	return ok;
}

static bool extras_ok(vctx *v, const gsio_extras *x, const char *what, size_t i)
{
	V_CHECK(array_ok(v, x->items, x->count, "extras.items"));
	for (size_t k = 0; k < x->count; k++) {
		const gsio_extra *e = &x->items[k];
		if (!e->key || !*e->key) return bad(v, "%s[%zu].extras[%zu] has no key", what, i, k);
		for (size_t j = 0; j < k; j++)
			if (strcmp(x->items[j].key, e->key) == 0)
				return bad(v, "%s[%zu].extras has the key \"%s\" twice", what, i, e->key);
		switch (e->type) {
		case GSIO_EXTRA_INT: break;
		case GSIO_EXTRA_FLOAT:
			if (!isfinite(e->f))
				return bad(v, "%s[%zu].extras \"%s\" is not finite", what, i, e->key);
			break;
		case GSIO_EXTRA_STRING:
			if (!e->s) return bad(v, "%s[%zu].extras \"%s\" is a string without text", what, i, e->key);
			break;
		case GSIO_EXTRA_FLOATS:
			if (e->floats_count && !e->floats)
				return bad(v, "%s[%zu].extras \"%s\" has %zu floats but no array", what, i, e->key,
				           e->floats_count);
			for (size_t f = 0; f < e->floats_count; f++)
				if (!isfinite(e->floats[f]))
					return bad(v, "%s[%zu].extras \"%s\"[%zu] is not finite", what, i, e->key, f);
			break;
		default: return bad(v, "%s[%zu].extras \"%s\" has unknown type %d", what, i, e->key, (int)e->type);
		}
	}
	return true;
}

// -- Elements

static bool nodes_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_node *n = &s->nodes[i];
		if (n->parent != -1 && (n->parent < 0 || (size_t)n->parent >= i))
			return bad(v, "nodes[%zu].parent %d is not less than %zu (parents come before "
			              "their children; -1 for a root)",
			           i, (int)n->parent, i);
		V_CHECK(finite_ok(v, n->translation, 3, "nodes", i, "translation"));
		V_CHECK(quat_ok(v, n->rotation, "nodes", i, "rotation"));
		V_CHECK(finite_ok(v, n->scale, 3, "nodes", i, "scale"));
		for (int k = 0; k < 3; k++)
			if (n->scale[k] == 0) return bad(v, "nodes[%zu].scale[%d] is 0", i, k);
		V_CHECK(index_ok(v, n->mesh, s->meshes_count, true, "nodes", i, "mesh"));
		V_CHECK(index_ok(v, n->camera, s->cameras_count, true, "nodes", i, "camera"));
		V_CHECK(index_ok(v, n->light, s->lights_count, true, "nodes", i, "light"));
		V_CHECK(extras_ok(v, &n->extras, "nodes", i));
	}
	return true;
}

/* A mesh's packed frame layout (gsio_packed_format): record sizes that hold
 * their fields, finite scale, offset and normals, and every scene vertex
 * showing a record that exists. */
static bool packed_format_ok(vctx *v, const gsio_mesh *m, size_t i)
{
	const gsio_packed_format *pf = m->packed;
	if (pf->coord_size != 1 && pf->coord_size != 2 && pf->coord_size != 4)
		return bad(v, "meshes[%zu].packed->coord_size %u is not 1, 2 or 4", i,
		           (unsigned)pf->coord_size);
	if (pf->vertex_stride < 3 * pf->coord_size || pf->vertex_stride > 256)
		return bad(v, "meshes[%zu].packed->vertex_stride %u cannot hold 3 coordinates of %u bytes "
		              "(at most 256)", i, (unsigned)pf->vertex_stride, (unsigned)pf->coord_size);
	if (pf->normal_table && pf->normal_floats)
		return bad(v, "meshes[%zu].packed has both a normal table and float normals", i);
	if (pf->normal_table && (pf->normal_offset >= pf->vertex_stride || !pf->normal_count))
		return bad(v, "meshes[%zu].packed->normal_offset %u is outside the %u-byte record (or the "
		              "normal table is empty)", i, (unsigned)pf->normal_offset,
		           (unsigned)pf->vertex_stride);
	if (pf->normal_floats && (pf->normal_offset > pf->vertex_stride || pf->vertex_stride - pf->normal_offset < 12))
		return bad(v, "meshes[%zu].packed->normal_offset %u leaves no room for 3 floats in the %u-byte "
		              "record", i, (unsigned)pf->normal_offset, (unsigned)pf->vertex_stride);
	if (pf->coord_size == 4)
		for (int k = 0; k < 3; k++)
			if (pf->scale[k] != 1 || pf->offset[k] != 0)
				return bad(v, "meshes[%zu].packed has float coordinates but scale %g and offset %g "
				              "(not 1 and 0)", i, (double)pf->scale[k], (double)pf->offset[k]);
	size_t bytes;
	if (!gsioi_mul_size(pf->source_count, pf->vertex_stride, &bytes))
		return bad(v, "meshes[%zu].packed->source_count %zu overflows", i, pf->source_count);
	if (pf->normal_table)
		V_CHECK(finite_ok(v, &pf->normal_table[0][0], 3 * pf->normal_count, "meshes", i,
		                  "packed->normal_table"));
	if (m->vertex_count) { // no vertex, no position: a file's NaN scale is then harmless
		V_CHECK(finite_ok(v, pf->scale, 3, "meshes", i, "packed->scale"));
		V_CHECK(finite_ok(v, pf->offset, 3, "meshes", i, "packed->offset"));
	}
	// Positions stay finite where the frames' boxes (checked per frame) are:
	// scale * raw + offset is monotonic in raw. A scale that overflows only
	// for raw values no vertex has is fine (files do that).
	if (m->source_vertex) {
		for (size_t x = 0; x < m->vertex_count; x++)
			if (m->source_vertex[x] >= pf->source_count)
				return bad(v, "meshes[%zu].source_vertex[%zu] %u is outside the %zu packed records", i,
				           x, (unsigned)m->source_vertex[x], pf->source_count);
	} else if (m->vertex_count > pf->source_count) {
		return bad(v, "meshes[%zu] has %zu vertices but %zu packed records and no source_vertex", i,
		           m->vertex_count, pf->source_count);
	}
	return true;
}

/* Float records (coord_size 4): every position (and float normal) finite,
 * as a float frame's arrays must be; the box does not tell (a NaN passes
 * a min/max). */
static bool float_records_ok(vctx *v, const gsio_mesh *m, size_t i, size_t f)
{
	const gsio_packed_format *pf = m->packed;
	const uint8_t *r = m->frames[f].packed;
	// Records of floats only (MDL7's: 3 of position, 3 of normal) checked
	// as one array when aligned; else, or to name the one, record by record.
	if (pf->normal_floats && pf->vertex_stride == 24 && pf->normal_offset == 12 &&
	    (uintptr_t)r % sizeof(float) == 0 && gsioi_floats_finite((const float *)(const void *)r, 6 * pf->source_count))
		return true;
	for (size_t x = 0; x < pf->source_count; x++, r += pf->vertex_stride) {
		float q[6];
		memcpy(q, r, 12);
		if (pf->normal_floats) memcpy(q + 3, r + pf->normal_offset, 12);
		for (int k = 0; k < (pf->normal_floats ? 6 : 3); k++)
			if (!isfinite(q[k]))
				return bad(v, "meshes[%zu].frames[%zu] record %zu: %s %d is not finite", i, f, x,
				           k < 3 ? "coordinate" : "normal", k % 3);
	}
	return true;
}

static bool weights_ok(vctx *v, const gsio_mesh *m, size_t i)
{
	const gsio_weights *w = &m->weights;
	if (w->count == 0) {
		if (m->skin >= 0) return bad(v, "meshes[%zu] has a skin but no weights", i);
		return true;
	}
	if (m->skin < 0) return bad(v, "meshes[%zu] has %zu weights but no skin", i, w->count);
	if (!w->offsets || !w->joints || !w->values)
		return bad(v, "meshes[%zu].weights: count %zu with a NULL array", i, w->count);
	if (w->offsets[0] != 0) return bad(v, "meshes[%zu].weights.offsets[0] is not 0", i);
	for (size_t k = 0; k < m->vertex_count; k++)
		if (w->offsets[k + 1] < w->offsets[k])
			return bad(v, "meshes[%zu].weights.offsets decrease at vertex %zu", i, k);
	if (w->offsets[m->vertex_count] != w->count)
		return bad(v, "meshes[%zu].weights.offsets[%zu] is %u, not the weight count %zu", i,
		           m->vertex_count, (unsigned)w->offsets[m->vertex_count], w->count);
	size_t joints = v->s->skins[m->skin].joints_count;
	for (size_t k = 0; k < w->count; k++) {
		if (w->joints[k] >= joints)
			return bad(v, "meshes[%zu].weights.joints[%zu] %u is outside the skin's %zu joints", i,
			           k, (unsigned)w->joints[k], joints);
		if (!isfinite(w->values[k]) || w->values[k] < 0)
			return bad(v, "meshes[%zu].weights.values[%zu] is %g (weights are finite and >= 0)", i,
			           k, (double)w->values[k]);
	}
	return true;
}

/* The parts of a mesh: they cover its indices in order, materials in range. */
static bool parts_ok(vctx *v, const gsio_mesh *m, size_t i)
{
	const gsio_scene *s = v->s;
	if (m->index_count && !m->parts_count)
		return bad(v, "meshes[%zu] has triangles but no parts (one part per material)", i);
	V_CHECK(array_ok(v, m->parts, m->parts_count, "parts"));
	size_t next = 0;
	for (size_t p = 0; p < m->parts_count; p++) {
		const gsio_mesh_part *pt = &m->parts[p];
		if (pt->first_index != next || pt->index_count % 3 || pt->index_count > m->index_count - next)
			return bad(v, "meshes[%zu].parts[%zu] (first %zu, count %zu) does not continue at "
			              "index %zu in whole triangles within %zu indices",
			           i, p, pt->first_index, pt->index_count, next, m->index_count);
		next += pt->index_count;
		char field[64];
		snprintf(field, sizeof(field), "parts[%zu].material", p);
		V_CHECK(index_ok(v, pt->material, s->materials_count, true, "meshes", i, field));
	}
	if (next != m->index_count)
		return bad(v, "meshes[%zu].parts cover %zu of %zu indices", i, next, m->index_count);
	return true;
}

/* A grid mesh (GSIO_OPT_GRID): its terrain gives every vertex and triangle,
 * so the counts must be the terrain's, the arrays absent (one frame without
 * floats: the terrain is one height layer), the terrain's numbers finite
 * and its extreme positions too (positions are monotonic in column, row
 * and raw height: the extremes bound them all), every normal index inside
 * the table. */
static bool grid_ok(vctx *v, const gsio_mesh *m, size_t i)
{
	const gsio_terrain *t = m->grid;
	size_t n, cells, ni;
	if (t->columns < 2 || t->rows < 2 || !gsioi_mul_size(t->columns, t->rows, &n) ||
	    !gsioi_mul_size((size_t)(t->columns - 1), (size_t)(t->rows - 1), &cells) ||
	    !gsioi_mul_size(cells, 6, &ni) || n > UINT32_MAX)
		return bad(v, "meshes[%zu].grid has %ux%u vertices (at least 2x2, at most 2^32)", i,
		           (unsigned)t->columns, (unsigned)t->rows);
	if (m->vertex_count != n || m->index_count != ni)
		return bad(v, "meshes[%zu] has %zu vertices and %zu indices, its %ux%u grid %zu and %zu", i,
		           m->vertex_count, m->index_count, (unsigned)t->columns, (unsigned)t->rows, n, ni);
	if (m->positions || m->normals || m->uvs || m->indices || m->source_vertex || m->source_uv ||
	    m->packed)
		return bad(v, "meshes[%zu] is a grid mesh but has vertex or index arrays of its own", i);
	if (m->frames_count != 1 || !m->frames || m->frames[0].positions || m->frames[0].normals ||
	    m->frames[0].packed)
		return bad(v, "meshes[%zu] is a grid mesh: one frame without arrays, not %zu frames", i,
		           m->frames_count);
	if (m->weights.count || m->skin >= 0) return bad(v, "meshes[%zu] is a grid mesh with weights", i);
	if (!t->raw_heights) return bad(v, "meshes[%zu].grid has no heights", i);
	if (v->s->terrain && v->s->terrain->mesh == (int32_t)i && t != v->s->terrain)
		return bad(v, "meshes[%zu] is the terrain's mesh but its grid is another terrain", i);
	float f[6] = {t->cell_x, t->cell_y, t->origin[0], t->origin[1], t->height_scale,
	              t->height_offset};
	V_CHECK(finite_ok(v, f, 6, "meshes", i, "grid cell/origin/height"));
	uint16_t lo = UINT16_MAX, hi = 0;
	for (size_t k = 0; k < n; k++) {
		lo = t->raw_heights[k] < lo ? t->raw_heights[k] : lo;
		hi = t->raw_heights[k] > hi ? t->raw_heights[k] : hi;
	}
	float mn[3], mx[3];
	if (!gsioi_grid_bounds(t, lo, hi, mn, mx))
		return bad(v, "meshes[%zu].grid gives positions that are not finite", i);
	if (!t->normal_xy && t->normal_indices)
		for (size_t k = 0; k < n; k++)
			if (t->normal_indices[k] >= GSIO_NORMAL_COUNT)
				return bad(v, "meshes[%zu].grid.normal_indices[%zu] %u is outside the %d normals", i,
				           k, (unsigned)t->normal_indices[k], GSIO_NORMAL_COUNT);
	V_CHECK(parts_ok(v, m, i));
	V_CHECK(finite_ok(v, m->frames[0].bbox_min, 3, "meshes", i, "frames[0].bbox_min"));
	V_CHECK(finite_ok(v, m->frames[0].bbox_max, 3, "meshes", i, "frames[0].bbox_max"));
	V_CHECK(finite_ok(v, m->bbox_min, 3, "meshes", i, "bbox_min"));
	V_CHECK(finite_ok(v, m->bbox_max, 3, "meshes", i, "bbox_max"));
	return extras_ok(v, &m->extras, "meshes", i);
}

static bool meshes_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	for (size_t i = 0; i < s->meshes_count; i++) {
		const gsio_mesh *m = &s->meshes[i];
		size_t vc = m->vertex_count, v3, v2;
		if (!gsioi_mul_size(vc, 3, &v3) || !gsioi_mul_size(vc, 2, &v2))
			return bad(v, "meshes[%zu].vertex_count %zu is too large", i, vc);
		if (m->grid) {
			V_CHECK(grid_ok(v, m, i));
			continue;
		}
		if (vc && !m->positions) return bad(v, "meshes[%zu] has %zu vertices but no positions", i, vc);
		V_CHECK(finite_ok(v, m->positions, v3, "meshes", i, "positions"));
		if (m->normals) V_CHECK(finite_ok(v, m->normals, v3, "meshes", i, "normals"));
		if (m->uvs) V_CHECK(finite_ok(v, m->uvs, v2, "meshes", i, "uvs"));
		if (m->lightmap_uvs) V_CHECK(finite_ok(v, m->lightmap_uvs, v2, "meshes", i, "lightmap_uvs"));
		if (m->index_count % 3)
			return bad(v, "meshes[%zu].index_count %zu is not a multiple of 3", i, m->index_count);
		if (m->index_count && !m->indices) return bad(v, "meshes[%zu] has no indices array", i);
		for (size_t k = 0; k < m->index_count; k++)
			if (m->indices[k] >= vc)
				return bad(v, "meshes[%zu].indices[%zu] %u is outside the %zu vertices", i, k,
				           (unsigned)m->indices[k], vc);
		V_CHECK(parts_ok(v, m, i));
		V_CHECK(array_ok(v, m->frames, m->frames_count, "frames"));
		if (m->packed) V_CHECK(packed_format_ok(v, m, i));
		for (size_t f = 0; f < m->frames_count; f++) {
			const gsio_morph_frame *fr = &m->frames[f];
			char field[64];
			if (fr->packed && !m->packed)
				return bad(v, "meshes[%zu].frames[%zu] is packed but the mesh has no packed format", i, f);
			if (fr->packed && !fr->positions) {
				const gsio_packed_format *pf = m->packed;
				size_t need = pf->source_count * pf->vertex_stride; // checked in packed_format_ok
				if (fr->packed_size < need)
					return bad(v, "meshes[%zu].frames[%zu].packed_size %zu is less than %zu records of "
					              "%u bytes", i, f, fr->packed_size, pf->source_count,
					           (unsigned)pf->vertex_stride);
				snprintf(field, sizeof(field), "frames[%zu].bbox_min", f);
				V_CHECK(finite_ok(v, fr->bbox_min, 3, "meshes", i, field));
				snprintf(field, sizeof(field), "frames[%zu].bbox_max", f);
				V_CHECK(finite_ok(v, fr->bbox_max, 3, "meshes", i, field));
				if (pf->coord_size == 4) V_CHECK(float_records_ok(v, m, i, f));
				continue;
			}
			if (vc && !fr->positions)
				return bad(v, "meshes[%zu].frames[%zu] has no positions (one xyz per vertex, %zu)", i,
				           f, vc);
			snprintf(field, sizeof(field), "frames[%zu].positions", f);
			V_CHECK(finite_ok(v, fr->positions, v3, "meshes", i, field));
			if (fr->normals) {
				snprintf(field, sizeof(field), "frames[%zu].normals", f);
				V_CHECK(finite_ok(v, fr->normals, v3, "meshes", i, field));
			}
		}
		V_CHECK(index_ok(v, m->skin, s->skins_count, true, "meshes", i, "skin"));
		V_CHECK(weights_ok(v, m, i));
		V_CHECK(finite_ok(v, m->bbox_min, 3, "meshes", i, "bbox_min"));
		V_CHECK(finite_ok(v, m->bbox_max, 3, "meshes", i, "bbox_max"));
		V_CHECK(extras_ok(v, &m->extras, "meshes", i));
	}
	return true;
}

static bool texture_ok(vctx *v, const gsio_texture *t, size_t i, const char *field)
{
	char f[64];
	snprintf(f, sizeof(f), "%s.image", field);
	V_CHECK(index_ok(v, t->image, v->s->images_count, true, "materials", i, f));
	if ((unsigned)t->wrap_u > GSIO_WRAP_MIRROR || (unsigned)t->wrap_v > GSIO_WRAP_MIRROR)
		return bad(v, "materials[%zu].%s has an unknown wrap mode", i, field);
	if (!isfinite(t->tiling) || t->tiling < 0)
		return bad(v, "materials[%zu].%s.tiling is %g (finite, >= 0)", i, field, (double)t->tiling);
	return true;
}

/* The indexed form (optional): sizes, every index inside the palette, and
 * each pixel's palette entry equal to its rgba (one pass; writers use the
 * indices instead of rgba, so they must be the same picture). */
static bool indexed_ok(vctx *v, const gsio_image *im, size_t i)
{
	if (!im->indices) {
		if (im->palette || im->palette_count)
			return bad(v, "images[%zu] has a palette but no indices", i);
		return true;
	}
	if (!im->rgba && (im->file_data || im->stored || im->uri)) // undecoded: one form only
		return bad(v, "images[%zu] has indices and also %s", i,
		           im->file_data ? "file data" : im->stored ? "stored pixels" : "a uri");
	if (!im->palette || !im->palette_count || im->palette_count > 256)
		return bad(v, "images[%zu] has indices and a palette of %u entries (1..256)", i,
		           (unsigned)im->palette_count);
	const size_t texels = (size_t)im->width * im->height;
	for (size_t k = 0; k < texels; k++) {
		const uint8_t x = im->indices[k];
		if (x >= im->palette_count)
			return bad(v, "images[%zu] pixel %zu: index %u, the palette has %u entries", i, k,
			           (unsigned)x, (unsigned)im->palette_count);
		if (im->rgba && memcmp(im->palette + 4 * (size_t)x, im->rgba + 4 * k, 4))
			return bad(v, "images[%zu] pixel %zu: palette entry %u differs from its rgba", i, k,
			           (unsigned)x);
	}
	return true;
}

static bool materials_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_material *m = &s->materials[i];
		for (int k = 0; k < 4; k++)
			if (!(m->base_color[k] >= 0 && m->base_color[k] <= 1))
				return bad(v, "materials[%zu].base_color[%d] is %g (0..1)", i, k,
				           (double)m->base_color[k]);
		for (int k = 0; k < 3; k++)
			if (!(m->emissive[k] >= 0 && m->emissive[k] <= 1))
				return bad(v, "materials[%zu].emissive[%d] is %g (0..1)", i, k, (double)m->emissive[k]);
#define SLOT_OK(f) V_CHECK(texture_ok(v, &m->f, i, #f));
		GSIOI_MATERIAL_TEXTURES(SLOT_OK)
#undef SLOT_OK
		if ((unsigned)m->alpha_mode > GSIO_ALPHA_BLEND)
			return bad(v, "materials[%zu].alpha_mode %d is unknown", i, (int)m->alpha_mode);
		if (!(m->alpha_cutoff >= 0) || !isfinite(m->alpha_cutoff))
			return bad(v, "materials[%zu].alpha_cutoff is %g (finite, >= 0)", i,
			           (double)m->alpha_cutoff);
		V_CHECK(extras_ok(v, &m->extras, "materials", i));
	}
	V_CHECK(unique_ok(v, s->materials, s->materials_count, sizeof(gsio_material),
	                  offsetof(gsio_material, name), "materials"));
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		if ((im->file_data != NULL) != (im->file_size != 0))
			return bad(v, "images[%zu] has file data of %zu bytes at %p", i, im->file_size,
			           (const void *)im->file_data);
		if (im->rgba) {
			if (im->stored) return bad(v, "images[%zu] has pixels and stored pixels", i);
			if (!im->width || !im->height)
				return bad(v, "images[%zu] has pixels but a size of %ux%u", i, (unsigned)im->width,
				           (unsigned)im->height);
		} else if (im->stored || im->indices) {
			// Undecoded skin pixels (GSIO_OPT_NO_PIXELS): raw in their stored
			// format, or palette indices (checked below).
			if (!im->width || !im->height)
				return bad(v, "images[%zu] has undecoded pixels but a size of %ux%u", i,
				           (unsigned)im->width, (unsigned)im->height);
			if (im->stored && (im->indices || im->file_data || im->uri ||
			                   im->source_format == GSIO_PIXEL_PAL8 || !gsio_pixel_size(im->source_format)))
				return bad(v, "images[%zu] has stored pixels and %s", i,
				           im->indices ? "indices" : im->file_data ? "file data" : im->uri ? "a uri"
				           : "no pixel format of their own");
		} else if (im->file_data) {
			// An undecoded PNG/JPEG/DDS file (GSIO_OPT_NO_PIXELS): its size
			// comes from its header, and it is the picture, not a reference.
			if (!im->width || !im->height)
				return bad(v, "images[%zu] has an undecoded file of %zu bytes but a size of %ux%u", i,
				           im->file_size, (unsigned)im->width, (unsigned)im->height);
			if (im->uri)
				return bad(v, "images[%zu] has an undecoded file and a uri", i);
		} else if (!im->uri || !*im->uri) {
			return bad(v, "images[%zu] has neither pixels nor a file nor a uri", i);
		}
		V_CHECK(indexed_ok(v, im, i));
		V_CHECK(extras_ok(v, &im->extras, "images", i));
	}
	return unique_ok(v, s->images, s->images_count, sizeof(gsio_image), offsetof(gsio_image, name),
	                 "images");
}

static bool skins_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	if (s->skins_count == 0) return true;
	uint32_t *stamp = calloc(s->nodes_count ? s->nodes_count : 1, sizeof(*stamp));
	if (!stamp) {
		GSIO_FAIL(v->err, GSIO_ERR_NOMEM, "scene", -1, "out of memory checking skins");
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < s->skins_count && ok; i++) {
		const gsio_skin *sk = &s->skins[i];
		if (!sk->joints_count) {
			ok = bad(v, "skins[%zu] has no joints", i);
			break;
		}
		if (!sk->joints || !sk->inverse_bind) {
			ok = bad(v, "skins[%zu] has %zu joints but a NULL joints or inverse_bind array", i,
			         sk->joints_count);
			break;
		}
		for (size_t j = 0; j < sk->joints_count && ok; j++) {
			char field[48];
			snprintf(field, sizeof(field), "joints[%zu]", j);
			ok = index_ok(v, sk->joints[j], s->nodes_count, false, "skins", i, field);
			if (ok && stamp[sk->joints[j]] == i + 1)
				ok = bad(v, "skins[%zu] lists node %d twice", i, (int)sk->joints[j]);
			if (ok) stamp[sk->joints[j]] = (uint32_t)(i + 1);
		}
		if (ok) ok = finite_ok(v, sk->inverse_bind, 16 * sk->joints_count, "skins", i, "inverse_bind");
		if (ok) ok = index_ok(v, sk->skeleton, s->nodes_count, true, "skins", i, "skeleton");
	}
	free(stamp);
	return ok;
}

static bool cameras_lights_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	for (size_t i = 0; i < s->cameras_count; i++) {
		const gsio_camera *c = &s->cameras[i];
		if (!(c->fov > 0 && c->fov < 180))
			return bad(v, "cameras[%zu].fov is %g degrees (0 < fov < 180)", i, (double)c->fov);
		if (!(c->aspect >= 0) || !isfinite(c->aspect))
			return bad(v, "cameras[%zu].aspect is %g (finite, >= 0)", i, (double)c->aspect);
		if (!(c->znear >= 0) || !isfinite(c->znear) || !(c->zfar >= 0) || !isfinite(c->zfar) ||
		    (c->zfar > 0 && c->zfar <= c->znear))
			return bad(v, "cameras[%zu] has znear %g and zfar %g (0 <= znear < zfar, or zfar 0)", i,
			           (double)c->znear, (double)c->zfar);
	}
	for (size_t i = 0; i < s->lights_count; i++) {
		const gsio_light *l = &s->lights[i];
		if ((unsigned)l->type > GSIO_LIGHT_DIRECTIONAL)
			return bad(v, "lights[%zu].type %d is unknown", i, (int)l->type);
		for (int k = 0; k < 3; k++)
			if (!(l->color[k] >= 0 && l->color[k] <= 1))
				return bad(v, "lights[%zu].color[%d] is %g (0..1)", i, k, (double)l->color[k]);
		if (!(l->intensity >= 0) || !isfinite(l->intensity))
			return bad(v, "lights[%zu].intensity is %g (finite, >= 0)", i, (double)l->intensity);
		if (!(l->range >= 0) || !isfinite(l->range))
			return bad(v, "lights[%zu].range is %g (finite, >= 0; 0 for infinite)", i, (double)l->range);
		if (l->type == GSIO_LIGHT_SPOT &&
		    !(l->inner_cone >= 0 && l->inner_cone < l->outer_cone && l->outer_cone <= 1.5707964f))
			return bad(v, "lights[%zu] cones are %g and %g (0 <= inner < outer <= pi/2)", i,
			           (double)l->inner_cone, (double)l->outer_cone);
		V_CHECK(extras_ok(v, &l->extras, "lights", i));
	}
	return true;
}

static bool channel_ok(vctx *v, const gsio_animation *a, size_t ai, size_t ci)
{
	const gsio_scene *s = v->s;
	const gsio_channel *c = &a->channels[ci];
	char what[48];
	snprintf(what, sizeof(what), "animations[%zu].channels", ai);
	V_CHECK(index_ok(v, c->node, s->nodes_count, false, what, ci, "node"));
	// One property, one channel.
	for (size_t cj = 0; cj < ci; cj++)
		if (a->channels[cj].node == c->node && a->channels[cj].path == c->path)
			return bad(v, "%s[%zu] and [%zu] animate the same property of nodes[%d]", what, cj, ci,
			           (int)c->node);
	const gsio_node *n = &s->nodes[c->node];
	size_t keys = a->frames_count, width = 0;
	switch (c->path) {
	case GSIO_PATH_TRANSLATION:
	case GSIO_PATH_SCALE: width = 3; break;
	case GSIO_PATH_ROTATION: width = 4; break;
	case GSIO_PATH_FOV:
		if (n->camera < 0)
			return bad(v, "%s[%zu] animates the fov of nodes[%d], which has no camera", what, ci,
			           (int)c->node);
		width = 1;
		break;
	case GSIO_PATH_MORPH: {
		if (n->mesh < 0)
			return bad(v, "%s[%zu] animates the morph frames of nodes[%d], which has no mesh", what,
			           ci, (int)c->node);
		const gsio_mesh *m = &s->meshes[n->mesh];
		if (m->frames_count == 0)
			return bad(v, "%s[%zu] animates the morph frames of meshes[%d], which has none", what,
			           ci, (int)n->mesh);
		if ((c->frames == NULL) == (c->values == NULL))
			return bad(v, "%s[%zu] (morph) needs exactly one of frames and values", what, ci);
		if (c->frames) {
			for (size_t k = 0; k < keys; k++)
				if (c->frames[k] >= m->frames_count)
					return bad(v, "%s[%zu].frames[%zu] %u is outside the mesh's %zu frames", what, ci, k,
					           (unsigned)c->frames[k], m->frames_count);
			return true;
		}
		width = m->frames_count;
		break;
	}
	default: return bad(v, "%s[%zu].path %d is unknown", what, ci, (int)c->path);
	}
	if (c->frames && c->path != GSIO_PATH_MORPH)
		return bad(v, "%s[%zu] has frames but is not a morph channel", what, ci);
	if (!c->values) return bad(v, "%s[%zu] has no values (%zu keys x %zu)", what, ci, keys, width);
	size_t n_values;
	if (!gsioi_mul_size(keys, width, &n_values))
		return bad(v, "%s[%zu]: %zu keys x %zu values is too large", what, ci, keys, width);
	V_CHECK(finite_ok(v, c->values, n_values, what, ci, "values"));
	for (size_t k = 0; k < keys; k++) {
		const float *x = c->values + k * width;
		if (c->path == GSIO_PATH_ROTATION) {
			char field[48];
			snprintf(field, sizeof(field), "values[key %zu]", k);
			V_CHECK(quat_ok(v, x, what, ci, field));
		} else if (c->path == GSIO_PATH_FOV && !(x[0] > 0 && x[0] < 180)) {
			return bad(v, "%s[%zu] fov at key %zu is %g degrees (0 < fov < 180)", what, ci, k,
			           (double)x[0]);
		} else if (c->path == GSIO_PATH_MORPH) {
			for (size_t t = 0; t < width; t++)
				if (x[t] < 0)
					return bad(v, "%s[%zu] morph weight %zu at key %zu is negative", what, ci, t, k);
		}
	}
	return true;
}

static bool animations_ok(vctx *v)
{
	const gsio_scene *s = v->s;
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *a = &s->animations[i];
		if (!(a->fps > 0) || !isfinite(a->fps))
			return bad(v, "animations[%zu].fps is %g (finite, > 0)", i, (double)a->fps);
		if (a->frames_count == 0) return bad(v, "animations[%zu] has no frames", i);
		V_CHECK(array_ok(v, a->channels, a->channels_count, "channels"));
		for (size_t c = 0; c < a->channels_count; c++) V_CHECK(channel_ok(v, a, i, c));
		V_CHECK(array_ok(v, a->cuts, a->cuts_count, "cuts"));
		for (size_t k = 0; k < a->cuts_count; k++) {
			if (a->cuts[k] < 1 || a->cuts[k] >= a->frames_count ||
			    (k && a->cuts[k] <= a->cuts[k - 1]))
				return bad(v, "animations[%zu].cuts[%zu] %u is not ascending within 1..%zu", i, k,
				           (unsigned)a->cuts[k], a->frames_count - 1);
		}
		if (a->bounds) {
			size_t nb;
			if (!gsioi_mul_size(a->frames_count, 6, &nb))
				return bad(v, "animations[%zu] has too many frames", i);
			V_CHECK(finite_ok(v, a->bounds, nb, "animations", i, "bounds"));
		}
		V_CHECK(extras_ok(v, &a->extras, "animations", i));
	}
	return unique_ok(v, s->animations, s->animations_count, sizeof(gsio_animation),
	                 offsetof(gsio_animation, name), "animations");
}

static bool terrain_ok(vctx *v)
{
	const gsio_terrain *t = v->s->terrain;
	if (!t) return true;
	V_CHECK(index_ok(v, t->mesh, v->s->meshes_count, false, "terrain", 0, "mesh"));
	size_t n;
	if (!gsioi_mul_size(t->columns, t->rows, &n) || n == 0 || !t->raw_heights)
		return bad(v, "terrain has %ux%u vertices and %s heights", (unsigned)t->columns,
		           (unsigned)t->rows, t->raw_heights ? "some" : "no");
	float f[6] = {t->cell_x, t->cell_y, t->origin[0], t->origin[1], t->height_scale,
	              t->height_offset};
	return finite_ok(v, f, 6, "terrain", 0, "cell/origin/height");
}

// -- Entry point

int gsio_scene_validate(const gsio_scene *s, gsio_error *err)
{
	gsio_error_clear(err);
	if (!s) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, "scene", -1, "invalid scene: NULL");
		return -1;
	}
	vctx v = {s, err};
	bool ok = array_ok(&v, s->nodes, s->nodes_count, "nodes") &&
	          array_ok(&v, s->meshes, s->meshes_count, "meshes") &&
	          array_ok(&v, s->materials, s->materials_count, "materials") &&
	          array_ok(&v, s->images, s->images_count, "images") &&
	          array_ok(&v, s->skins, s->skins_count, "skins") &&
	          array_ok(&v, s->animations, s->animations_count, "animations") &&
	          array_ok(&v, s->cameras, s->cameras_count, "cameras") &&
	          array_ok(&v, s->lights, s->lights_count, "lights") &&
	          array_ok(&v, s->warnings, s->warnings_count, "warnings") && nodes_ok(&v) &&
	          meshes_ok(&v) && materials_ok(&v) && skins_ok(&v) && cameras_lights_ok(&v) &&
	          animations_ok(&v) && terrain_ok(&v) && extras_ok(&v, &s->extras, "scene", 0);
	return ok ? 0 : -1;
}
