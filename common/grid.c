/* Height-field terrains as triangle meshes: the one place that turns a
 * gsio_terrain's grid into vertices (positions, normals, uvs) and triangles.
 * The HMP importer expands its meshes with it, and the accessors of grid
 * meshes (GSIO_OPT_GRID) read through it, so the two forms cannot differ. */
#include <math.h>
#include <string.h>

#include "gsioi_internal.h"

// -- Vertices and triangles

void gsioi_hmp7_normal(int8_t nx, int8_t ny, float n[3])
{
	float x = (float)nx, y = (float)ny;
	float zz = 127.0f * 127.0f - x * x - y * y;
	float z = zz > 0 ? sqrtf(zz) : 0.0f;
	float len = sqrtf(x * x + y * y + z * z);
	if (len == 0) { // (0, 0) cannot reach here: then z = 127
		n[0] = n[1] = 0, n[2] = 1;
		return;
	}
	n[0] = -x / len;
	n[1] = -y / len;
	n[2] = z / len;
}

int gsioi_grid_vertices(const gsio_terrain *t, size_t first, size_t count, float *pos, float *nrm,
                        float *uv)
{
	const size_t cols = t->columns, rows = t->rows;
	const float x0 = t->origin[0], dx = t->cell_x, y0 = t->origin[1], dy = t->cell_y;
	const float zs = t->height_scale, z0 = t->height_offset;
	const uint16_t *hz = t->raw_heights;
	const uint8_t *ni = t->normal_indices;
	const int8_t *nxy = t->normal_xy;
	if (!nxy && !ni) nrm = NULL;
	size_t r = first / cols, c = first % cols, end = first + count;
	for (size_t v = first; v < end; r++, c = 0) {
		// One row (or the part of it in range) at a time.
		size_t stop = v + (cols - c) < end ? v + (cols - c) : end;
		const float y = y0 + (float)(rows - 1 - r) * dy;
		const float vv = (float)r / (float)(rows - 1);
		for (; v < stop; v++, c++) {
			if (pos) {
				pos[0] = x0 + (float)c * dx;
				pos[1] = y;
				pos[2] = zs * (float)hz[v] + z0;
				pos += 3;
			}
			if (uv) {
				uv[0] = (float)c / (float)(cols - 1), uv[1] = vv;
				uv += 2;
			}
			if (!nrm) continue;
			if (nxy) {
				gsioi_hmp7_normal(nxy[2 * v], nxy[2 * v + 1], nrm);
			} else {
				// The table normals point down into the terrain (docs/FORMATS.md §2.2):
				// negate. An index past the table reads as normal 0.
				unsigned k = ni[v] < GSIO_NORMAL_COUNT ? ni[v] : 0;
				nrm[0] = -gsio_anorms[k][0];
				nrm[1] = -gsio_anorms[k][1];
				nrm[2] = -gsio_anorms[k][2];
			}
			nrm += 3;
		}
	}
	return nrm ? 1 : 0;
}

void gsioi_grid_triangles(size_t cols, size_t first, size_t count, uint32_t *ix)
{
	// Seen from +z, row r lies above row r + 1 (row 0 is the +y edge), so for a cell
	// with corners tl = (r, c), tr = (r, c+1), bl = (r+1, c), br = (r+1, c+1) the
	// triangles bl-br-tr and bl-tr-tl are counter-clockwise, as front faces must be.
	size_t cells_x = cols - 1, end = first + count;
	size_t t = first;
	if (t < end && t % 2) { // the second triangle of a cell
		size_t cell = t / 2, r = cell / cells_x, c = cell % cells_x;
		uint32_t tl = (uint32_t)(r * cols + c), bl = (uint32_t)((r + 1) * cols + c);
		*ix++ = bl, *ix++ = tl + 1, *ix++ = tl;
		t++;
	}
	size_t cell = t / 2, r = cell / cells_x, c = cell % cells_x;
	for (; t + 2 <= end; t += 2) {
		uint32_t tl = (uint32_t)(r * cols + c), tr = tl + 1;
		uint32_t bl = (uint32_t)((r + 1) * cols + c), br = bl + 1;
		*ix++ = bl, *ix++ = br, *ix++ = tr;
		*ix++ = bl, *ix++ = tr, *ix++ = tl;
		if (++c == cells_x) c = 0, r++;
	}
	if (t < end) { // the first triangle of a cell
		uint32_t tl = (uint32_t)(r * cols + c), bl = (uint32_t)((r + 1) * cols + c);
		*ix++ = bl, *ix++ = bl + 1, *ix++ = tl + 1;
	}
}

bool gsioi_grid_bounds(const gsio_terrain *t, uint16_t zlo, uint16_t zhi, float mn[3], float mx[3])
{
	// x depends on the column, y on the row, z on the height only, each
	// through a monotonic float function (offset + value * step, rounded to
	// nearest), so the extremes and their finiteness come from the first and
	// last column, row and the lowest and highest stored height instead of a
	// pass over every vertex.
	const float x0 = t->origin[0], dx = t->cell_x, y0 = t->origin[1], dy = t->cell_y;
	const float zs = t->height_scale, z0 = t->height_offset;
	const float ends[3][2] = {{x0 + 0.0f * dx, x0 + (float)(t->columns - 1) * dx},
	                          {y0 + 0.0f * dy, y0 + (float)(t->rows - 1) * dy},
	                          {zs * (float)zlo + z0, zs * (float)zhi + z0}};
	for (int k = 0; k < 3; k++) {
		if (!isfinite(ends[k][0]) || !isfinite(ends[k][1])) return false;
		mn[k] = ends[k][0] < ends[k][1] ? ends[k][0] : ends[k][1];
		mx[k] = ends[k][0] < ends[k][1] ? ends[k][1] : ends[k][0];
	}
	return true;
}

// -- Public accessors

int gsio_mesh_grid_get(const gsio_mesh *m, size_t first_vertex, size_t count, float *positions,
                       float *normals, float *uvs)
{
	if (!m || !m->grid || first_vertex > m->vertex_count || count > m->vertex_count - first_vertex)
		return -1;
	return gsioi_grid_vertices(m->grid, first_vertex, count, positions, normals, uvs);
}

int gsio_mesh_grid_indices(const gsio_mesh *m, size_t first_triangle, size_t count,
                           uint32_t *indices)
{
	size_t tris = m ? m->index_count / 3 : 0;
	if (!m || !m->grid || first_triangle > tris || count > tris - first_triangle) return -1;
	gsioi_grid_triangles(m->grid->columns, first_triangle, count, indices);
	return 0;
}

// -- Expanded copies

bool gsioi_mesh_expand_grid(const gsio_mesh *m, gsio_arena *a, gsio_mesh *out, gsio_error *err)
{
	*out = *m;
	if (!m->grid) return true;
	size_t nv = m->vertex_count;
	out->positions = gsioi_arena_array_uninit(a, nv, 3 * sizeof(float), err);
	out->normals = gsioi_arena_array_uninit(a, nv, 3 * sizeof(float), err);
	out->uvs = gsioi_arena_array_uninit(a, nv, 2 * sizeof(float), err);
	out->indices = gsioi_arena_array_uninit(a, m->index_count, sizeof(uint32_t), err);
	out->frames = GSIO_NEW_ARRAY(a, gsio_morph_frame, m->frames_count, err);
	GSIO_CHECK(out->positions && out->normals && out->uvs && out->indices && out->frames);
	if (gsioi_grid_vertices(m->grid, 0, nv, out->positions, out->normals, out->uvs) != 1)
		out->normals = NULL;
	gsioi_grid_triangles(m->grid->columns, 0, m->index_count / 3, out->indices);
	memcpy(out->frames, m->frames, m->frames_count * sizeof(gsio_morph_frame));
	if (m->frames_count) { // validated: a grid mesh has one frame, the mesh's floats
		out->frames[0].positions = out->positions;
		out->frames[0].normals = out->normals;
	}
	out->grid = NULL;
	return true;
}

bool gsioi_scene_expand_grids(const gsio_scene *s, gsio_arena *a, gsio_scene *copy,
                              const gsio_scene **out, gsio_error *err)
{
	*out = s;
	size_t grids = 0;
	for (size_t i = 0; i < s->meshes_count; i++) grids += s->meshes[i].grid != NULL;
	if (!grids) return true;
	*copy = *s;
	copy->meshes = GSIO_NEW_ARRAY(a, gsio_mesh, s->meshes_count, err);
	GSIO_CHECK(copy->meshes);
	for (size_t i = 0; i < s->meshes_count; i++)
		GSIO_CHECK(gsioi_mesh_expand_grid(&s->meshes[i], a, &copy->meshes[i], err));
	*out = copy;
	return true;
}
