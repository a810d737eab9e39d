/* Morph frames as floats, whether the scene keeps them as floats or packed
 * as the file stored them (gsio_packed_format): the one reader every
 * consumer goes through, and the bounds a packed frame's loader fills in. */
#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "gsioi_internal.h"
#include "gsioi_packed_record.h"

// -- One packed frame

/* Coordinate k of a record: 1 byte, or 2 little-endian. */
/* A record's normal index, as the table reads it. */
static inline uint8_t normal_index(const uint8_t *rec, size_t offset, size_t count)
{
	uint8_t i = rec[offset];
	return i < count ? i : 0; // documented: out-of-table reads as 0
}

/* The same expression the float frames were made with (scale * raw + offset,
 * in float), so the floats are bit for bit the old ones. With nidx, the
 * normal indices too, in the same pass over the records. */
static void unpack_positions(const gsio_packed_format *pf, const uint8_t *data,
                             const uint32_t *sv, size_t n, float *pos, uint8_t *nidx)
{
	// Fields in locals: a store through nidx may alias *pf for the compiler.
	const size_t st = pf->vertex_stride, no = pf->normal_offset, nc = pf->normal_count;
	const bool bytes = pf->coord_size == 1;
	const float s0 = pf->scale[0], s1 = pf->scale[1], s2 = pf->scale[2];
	const float o0 = pf->offset[0], o1 = pf->offset[1], o2 = pf->offset[2];
	size_t v = 0;
#ifdef __SSE2__
	// A vertex a vector: the record's first 4 coordinates (x, y, z and the
	// one after, inside the record when the stride is 4 coordinates or more)
	// widened to float, times scale plus offset (mulps then addps: the
	// float operations of the loops below, so the same floats). 4 floats
	// are stored, the 4th overwritten by the next vertex, so the last vertex
	// goes to the loops below. Twice the speed of those on a 231-frame model.
	if (st >= 4 * (size_t)pf->coord_size) {
		const __m128 vs = _mm_setr_ps(s0, s1, s2, 0), vo = _mm_setr_ps(o0, o1, o2, 0);
		for (; v + 1 < n; v++) {
			const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
			__m128 f = gsioi_record_coords(r, bytes);
			_mm_storeu_ps(pos + 3 * v, _mm_add_ps(_mm_mul_ps(f, vs), vo));
			if (nidx) nidx[v] = normal_index(r, no, nc);
		}
	}
#endif
	for (; v < n; v++) {
		const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
		pos[3 * v] = s0 * (float)gsioi_record_coord(r, bytes, 0) + o0;
		pos[3 * v + 1] = s1 * (float)gsioi_record_coord(r, bytes, 1) + o1;
		pos[3 * v + 2] = s2 * (float)gsioi_record_coord(r, bytes, 2) + o2;
		if (nidx) nidx[v] = normal_index(r, no, nc);
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

/* Float records (coord_size 4): the floats themselves, copied. */
static void unpack_floats(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *sv,
                          size_t n, size_t at, float *out)
{
	const size_t st = pf->vertex_stride;
	for (size_t v = 0; v < n; v++, out += 3) memcpy(out, data + (size_t)(sv ? sv[v] : v) * st + at, 12);
}

// -- The accessor

int gsio_mesh_frame_get(const gsio_mesh *m, size_t frame, float *positions, float *normals)
{
	if (!m || !m->frames || frame >= m->frames_count) return -1;
	const gsio_morph_frame *fr = &m->frames[frame];
	size_t n = m->vertex_count;
	// A grid mesh (validated: one frame) has its vertices in the terrain.
	if (m->grid) return gsioi_grid_vertices(m->grid, 0, n, positions, normals, NULL);
	if (fr->positions) {
		if (positions && n) memcpy(positions, fr->positions, n * 3 * sizeof(float));
		if (!fr->normals) return 0;
		if (normals && n) memcpy(normals, fr->normals, n * 3 * sizeof(float));
		return 1;
	}
	const gsio_packed_format *pf = m->packed;
	if (!pf || !fr->packed) return -1;
	if (pf->coord_size == 4) {
		if (positions) unpack_floats(pf, fr->packed, m->source_vertex, n, 0, positions);
		if (!pf->normal_floats && !pf->normal_table) return 0;
		if (normals && pf->normal_floats)
			unpack_floats(pf, fr->packed, m->source_vertex, n, pf->normal_offset, normals);
		else if (normals)
			unpack_normals(pf, fr->packed, m->source_vertex, n, normals);
		return 1;
	}
	if (positions) unpack_positions(pf, fr->packed, m->source_vertex, n, positions, NULL);
	if (!pf->normal_table) return 0;
	if (normals) unpack_normals(pf, fr->packed, m->source_vertex, n, normals);
	return 1;
}

int gsio_mesh_frame_normal_indices(const gsio_mesh *m, size_t frame, float *positions,
                                   uint8_t *indices, const float **table, size_t *table_count)
{
	if (!m || !m->frames || frame >= m->frames_count) return -1;
	const gsio_morph_frame *fr = &m->frames[frame];
	const gsio_packed_format *pf = m->packed;
	if (fr->positions || !fr->packed || !pf || !pf->normal_table) return 0;
	size_t st = pf->vertex_stride, n = m->vertex_count;
	const uint32_t *sv = m->source_vertex;
	if (positions && pf->coord_size == 4) {
		unpack_floats(pf, fr->packed, sv, n, 0, positions);
		positions = NULL; // the indices below
	}
	if (positions) {
		unpack_positions(pf, fr->packed, sv, n, positions, indices);
	} else {
		size_t no = pf->normal_offset, nc = pf->normal_count;
		for (size_t v = 0; v < n; v++) indices[v] = normal_index(fr->packed + (size_t)(sv ? sv[v] : v) * st, no, nc);
	}
	*table = pf->normal_table[0];
	*table_count = pf->normal_count;
	return 1;
}

// -- Bounds at load

/* The extreme raw values of n records laid out as MDL stores them (4
 * coordinate-sized lanes: x, y, z, then the normal index in the low byte),
 * read as blocks of lanes with one min/max per lane: loops the compiler turns
 * into vector min/max (this pass over every frame was most of a packed
 * load). *max_normal gets the largest normal index. With `dst`, the
 * records are copied there in the same pass (a frame copied and then
 * scanned was read twice: 5 MB of the 7.4 MB synthetic MDL5). False for
 * another layout or a big-endian host, having copied nothing (the caller
 * then goes vertex by vertex). */
static bool bounds_lanes(const gsio_packed_format *pf, const uint8_t *data, size_t n, uint8_t *dst,
                         unsigned lo[3], unsigned hi[3], unsigned *max_normal)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (pf->vertex_stride != 4 * pf->coord_size || pf->normal_offset != 3 * pf->coord_size)
		return false;
	if (pf->coord_size == 2) {
		// 8 lanes = 2 records; the normal lane keeps its low byte (the high
		// one is a bone). Lanes are biased to int16 (v ^ 0x8000, order kept):
		// SSE2 has signed 16-bit min/max, not unsigned.
		static const uint16_t mask[8] = {0xFFFF, 0xFFFF, 0xFFFF, 0x00FF,
		                                 0xFFFF, 0xFFFF, 0xFFFF, 0x00FF};
		int16_t l[8], h[8];
		uint16_t w[8];
		for (int j = 0; j < 8; j++) l[j] = INT16_MAX, h[j] = INT16_MIN;
		size_t i = 0;
#ifdef __SSE2__
		// GCC does not vectorise the lane loop below (it keeps the lanes on
		// the stack): the same thing, written with SSE2 (x86-64 baseline).
		const __m128i vmask = _mm_loadu_si128((const __m128i *)(const void *)mask);
		const __m128i bias = _mm_set1_epi16(INT16_MIN);
		__m128i vl = _mm_set1_epi16(INT16_MAX), vh = _mm_set1_epi16(INT16_MIN);
		for (; dst && i + 2 <= n; i += 2) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 8 * i));
			_mm_storeu_si128((__m128i *)(void *)(dst + 8 * i), v);
			v = _mm_xor_si128(_mm_and_si128(v, vmask), bias);
			vl = _mm_min_epi16(vl, v);
			vh = _mm_max_epi16(vh, v);
		}
		for (; i + 2 <= n; i += 2) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 8 * i));
			v = _mm_xor_si128(_mm_and_si128(v, vmask), bias);
			vl = _mm_min_epi16(vl, v);
			vh = _mm_max_epi16(vh, v);
		}
		_mm_storeu_si128((__m128i *)(void *)l, vl);
		_mm_storeu_si128((__m128i *)(void *)h, vh);
#endif
		if (dst) memcpy(dst + 8 * i, data + 8 * i, 8 * (n - i)); // what SSE2 did not copy
		for (; i + 2 <= n; i += 2) {
			memcpy(w, data + 8 * i, 16);
			for (int j = 0; j < 8; j++) {
				int16_t v = (int16_t)((w[j] & mask[j]) ^ 0x8000);
				l[j] = v < l[j] ? v : l[j];
				h[j] = v > h[j] ? v : h[j];
			}
		}
		if (i < n) { // one record left: counts as both halves
			memcpy(w, data + 8 * i, 8);
			memcpy(w + 4, w, 8);
			for (int j = 0; j < 8; j++) {
				int16_t v = (int16_t)((w[j] & mask[j]) ^ 0x8000);
				l[j] = v < l[j] ? v : l[j];
				h[j] = v > h[j] ? v : h[j];
			}
		}
		for (int k = 0; k < 3; k++) {
			lo[k] = (unsigned)((uint16_t)(l[k] < l[k + 4] ? l[k] : l[k + 4]) ^ 0x8000);
			hi[k] = (unsigned)((uint16_t)(h[k] > h[k + 4] ? h[k] : h[k + 4]) ^ 0x8000);
		}
		*max_normal = (unsigned)((uint16_t)(h[3] > h[7] ? h[3] : h[7]) ^ 0x8000);
		return true;
	}
	// 16 lanes = 4 records of x, y, z, normal bytes.
	uint8_t l[16], h[16], b[16];
	for (int j = 0; j < 16; j++) l[j] = 0xFF, h[j] = 0;
	size_t i = 0;
#ifdef __SSE2__
	__m128i vl = _mm_set1_epi8(-1), vh = _mm_setzero_si128();
	for (; dst && i + 4 <= n; i += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 4 * i));
		_mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), v);
		vl = _mm_min_epu8(vl, v);
		vh = _mm_max_epu8(vh, v);
	}
	for (; i + 4 <= n; i += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(data + 4 * i));
		vl = _mm_min_epu8(vl, v);
		vh = _mm_max_epu8(vh, v);
	}
	_mm_storeu_si128((__m128i *)(void *)l, vl);
	_mm_storeu_si128((__m128i *)(void *)h, vh);
#endif
	if (dst) memcpy(dst + 4 * i, data + 4 * i, 4 * (n - i)); // what SSE2 did not copy
	for (; i + 4 <= n; i += 4) {
		memcpy(b, data + 4 * i, 16);
		for (int j = 0; j < 16; j++) {
			l[j] = b[j] < l[j] ? b[j] : l[j];
			h[j] = b[j] > h[j] ? b[j] : h[j];
		}
	}
	for (; i < n; i++) // up to 3 records left, into lanes 0..3
		for (int j = 0; j < 4; j++) {
			uint8_t v = data[4 * i + (size_t)j];
			l[j] = v < l[j] ? v : l[j];
			h[j] = v > h[j] ? v : h[j];
		}
	for (int k = 0; k < 3; k++) {
		lo[k] = hi[k] = 0;
		unsigned a = 0xFF, z = 0;
		for (int r = 0; r < 4; r++) {
			a = l[k + 4 * r] < a ? l[k + 4 * r] : a;
			z = h[k + 4 * r] > z ? h[k + 4 * r] : z;
		}
		lo[k] = a, hi[k] = z;
	}
	unsigned mxn = 0;
	for (int r = 0; r < 4; r++) mxn = h[3 + 4 * r] > mxn ? h[3 + 4 * r] : mxn;
	*max_normal = mxn;
	return true;
#else
	(void)pf, (void)data, (void)n, (void)dst, (void)lo, (void)hi, (void)max_normal;
	return false;
#endif
}

/* Extreme raw values and out-of-table normal indices, record by record. */
static size_t bounds_scalar(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *used,
                            size_t n, unsigned lo[3], unsigned hi[3])
{
	size_t st = pf->vertex_stride, bad = 0;
	const uint8_t *nb = data + pf->normal_offset;
	bool nrm = pf->normal_table != NULL;
	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)(used ? used[i] : i) * st;
		const uint8_t *r = data + at;
		for (int k = 0; k < 3; k++) {
			unsigned c = gsioi_record_coord(r, pf->coord_size == 1, k);
			lo[k] = c < lo[k] ? c : lo[k];
			hi[k] = c > hi[k] ? c : hi[k];
		}
		bad += nrm && nb[at] >= pf->normal_count;
	}
	return bad;
}

/* Float rounding is monotonic, so the box of scale * raw + offset over the
 * vertices is that of the extreme raw values: no float per vertex. */
void gsioi_packed_bounds(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *used,
                         size_t used_count, uint8_t *copy_to, float mn[3], float mx[3],
                         size_t *bad_normals)
{
	unsigned lo[3] = {65535, 65535, 65535}, hi[3] = {0, 0, 0}, max_normal = 0;
	size_t n = used ? used_count : pf->source_count, bad = 0;
	bool lanes = !used && n && bounds_lanes(pf, data, n, copy_to, lo, hi, &max_normal);
	if (copy_to && !lanes) memcpy(copy_to, data, pf->source_count * pf->vertex_stride);
	if (lanes) {
		if (pf->normal_table && max_normal >= pf->normal_count) // rare: count them one by one
			bad = bounds_scalar(pf, data, NULL, n, lo, hi);
	} else {
		bad = bounds_scalar(pf, data, used, n, lo, hi);
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
