/* Morph frames as floats, whether the scene keeps them as floats or packed
 * as the file stored them (gsio_packed_format): the one reader every
 * consumer goes through, and the bounds a packed frame's loader fills in. */
#include <math.h>
#include <string.h>

#include "gsio_internal.h"

// -- One packed frame

/* Coordinate k of a record: 1 byte, or 2 little-endian. */
static inline unsigned coord(const uint8_t *rec, uint32_t size, int k)
{
	return size == 1 ? rec[k] : gsioi_le16(rec + 2 * k);
}

/* The same expression the float frames were made with (scale * raw + offset,
 * in float), so the floats are bit for bit the old ones. */
static void unpack_positions(const gsio_packed_format *pf, const uint8_t *data,
                             const uint32_t *sv, size_t n, float *pos)
{
	size_t st = pf->vertex_stride;
	float s0 = pf->scale[0], s1 = pf->scale[1], s2 = pf->scale[2];
	float o0 = pf->offset[0], o1 = pf->offset[1], o2 = pf->offset[2];
	if (pf->coord_size == 1) {
		for (size_t v = 0; v < n; v++, pos += 3) {
			const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
			pos[0] = s0 * (float)r[0] + o0;
			pos[1] = s1 * (float)r[1] + o1;
			pos[2] = s2 * (float)r[2] + o2;
		}
	} else {
		for (size_t v = 0; v < n; v++, pos += 3) {
			const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
			pos[0] = s0 * (float)gsioi_le16(r) + o0;
			pos[1] = s1 * (float)gsioi_le16(r + 2) + o1;
			pos[2] = s2 * (float)gsioi_le16(r + 4) + o2;
		}
	}
}

static void unpack_normals(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *sv,
                           size_t n, float *nrm)
{
	size_t st = pf->vertex_stride;
	const uint8_t *idx = data + pf->normal_offset;
	for (size_t v = 0; v < n; v++, nrm += 3) {
		size_t i = idx[(size_t)(sv ? sv[v] : v) * st];
		if (i >= pf->normal_count) i = 0; // documented: out-of-table reads as 0
		memcpy(nrm, pf->normal_table[i], 3 * sizeof(float));
	}
}

// -- The accessor

int gsio_mesh_frame_get(const gsio_mesh *m, size_t frame, float *positions, float *normals)
{
	if (!m || !m->frames || frame >= m->frames_count) return -1;
	const gsio_morph_frame *fr = &m->frames[frame];
	size_t n = m->vertex_count;
	if (fr->positions) {
		if (positions && n) memcpy(positions, fr->positions, n * 3 * sizeof(float));
		if (!fr->normals) return 0;
		if (normals && n) memcpy(normals, fr->normals, n * 3 * sizeof(float));
		return 1;
	}
	const gsio_packed_format *pf = m->packed;
	if (!pf || !fr->packed) return -1;
	if (positions) unpack_positions(pf, fr->packed, m->source_vertex, n, positions);
	if (!pf->normal_table) return 0;
	if (normals) unpack_normals(pf, fr->packed, m->source_vertex, n, normals);
	return 1;
}

// -- Bounds at load

/* Float rounding is monotonic, so the box of scale * raw + offset over the
 * vertices is that of the extreme raw values: no float per vertex. */
void gsioi_packed_bounds(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *used,
                         size_t used_count, float mn[3], float mx[3], size_t *bad_normals)
{
	unsigned lo[3] = {65535, 65535, 65535}, hi[3] = {0, 0, 0};
	size_t st = pf->vertex_stride, bad = 0, n = used ? used_count : pf->source_count;
	const uint8_t *nb = data + pf->normal_offset;
	bool nrm = pf->normal_table != NULL;
	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)(used ? used[i] : i) * st;
		const uint8_t *r = data + at;
		for (int k = 0; k < 3; k++) {
			unsigned c = coord(r, pf->coord_size, k);
			lo[k] = c < lo[k] ? c : lo[k];
			hi[k] = c > hi[k] ? c : hi[k];
		}
		bad += nrm && nb[at] >= pf->normal_count;
	}
	for (int k = 0; k < 3; k++) {
		if (!n) {
			mn[k] = mx[k] = 0;
			continue;
		}
		float a = pf->scale[k] * (float)lo[k] + pf->offset[k];
		float b = pf->scale[k] * (float)hi[k] + pf->offset[k];
		mn[k] = a < b ? a : b;
		mx[k] = a < b ? b : a;
	}
	*bad_normals += bad;
}
