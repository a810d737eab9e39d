/* Welding triangle corners into output vertices by (vertex, uv) pairs: see
 * gsioi_scene_util.h. One implementation for the MDL2-5 and MDL7 importers
 * (each had its own copy of the same counting sort and stamps). */
#include "gsioi_scene_util.h"

#include <string.h>

#if defined(__GNUC__)
#define WELD_INLINE inline __attribute__((always_inline))
#else
#define WELD_INLINE inline
#endif

/* Triangle t's corner c key (c < 3), `size` bytes (a constant where
 * weld() is made for one layout). */
static WELD_INLINE uint32_t corner_key(const gsioi_corner_keys *k, unsigned size, size_t t, size_t c)
{
	const uint8_t *p = (const uint8_t *)k->base + t * k->stride + c * size;
	if (size == 2) {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* The welding for keys of vsize and usize bytes: made once for each
 * layout the importers use (these constants there), so that the key reads
 * in the per-corner loops are plain loads (with the sizes read at run
 * time, and the uv keys checked in the first pass, the scene of the
 * synthetic MDL5 of 20 000 vertices took 9.6 million instructions against
 * 7.3 with each importer's own welding; 8.3 now). */
static WELD_INLINE bool weld(const gsioi_corner_keys *vk, const gsioi_corner_keys *uk, unsigned vsize,
                             unsigned usize, size_t corners, size_t vertices, size_t uvs,
                             uint32_t *indices, size_t *count, gsio_arena *tmp, gsio_error *err)
{
	const size_t nt = corners / 3;
	// Only the bucket counts start zeroed: every other table is written
	// before it is read (order: once per corner; stamp_vertex: set to
	// UINT32_MAX below; stamp_group: where stamp_vertex matches), and
	// zeroing them was a tenth of a large model's load. A group's output
	// vertex goes to order's room once order is read: no other
	// corner-sized table.
	uint32_t *start = GSIO_NEW_ARRAY(tmp, uint32_t, vertices + 1, err);
	uint32_t *fill = GSIO_NEW_ARRAY_UNINIT(tmp, uint32_t, vertices + 1, err);
	uint32_t *order = GSIO_NEW_ARRAY_UNINIT(tmp, uint32_t, corners ? corners : 1, err);
	uint32_t *stamp_vertex = GSIO_NEW_ARRAY_UNINIT(tmp, uint32_t, uvs ? uvs : 1, err);
	uint32_t *stamp_group = GSIO_NEW_ARRAY_UNINIT(tmp, uint32_t, uvs ? uvs : 1, err);
	GSIO_CHECK(start && fill && order && stamp_vertex && stamp_group);
	// Corner c is corner c % 3 of triangle c / 3, walked as such (no
	// divisions).
	for (size_t t = 0; t < nt; t++)
		for (size_t k = 0; k < 3; k++) {
			uint32_t x = corner_key(vk, vsize, t, k);
			if (x >= vertices) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1, "triangle %zu: vertex %u is out of range", t,
				          (unsigned)x);
				return false;
			}
			start[x + 1]++;
		}
	for (size_t x = 0; x < vertices; x++) start[x + 1] += start[x];
	memcpy(fill, start, vertices * sizeof(*fill));
	for (size_t t = 0; t < nt; t++)
		for (size_t k = 0; k < 3; k++) order[fill[corner_key(vk, vsize, t, k)]++] = (uint32_t)(3 * t + k);
	for (size_t i = 0; i < uvs; i++) stamp_vertex[i] = UINT32_MAX;
	// Each corner's group, numbered in bucket order, into the indices.
	size_t groups = 0;
	for (size_t x = 0; x < vertices; x++)
		for (uint32_t i = start[x]; i < start[x + 1]; i++) {
			uint32_t c = order[i], uv = corner_key(uk, usize, c / 3, c % 3);
			if (uv >= uvs) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1,
				          "triangle %u: texture coordinate %u is out of range", (unsigned)(c / 3),
				          (unsigned)uv);
				return false;
			}
			if (stamp_vertex[uv] != (uint32_t)x) {
				stamp_vertex[uv] = (uint32_t)x;
				stamp_group[uv] = (uint32_t)groups++;
			}
			indices[c] = stamp_group[uv];
		}
	// One output vertex a group, numbered in corner order (a group's first
	// corner first).
	uint32_t *group_out = order;
	memset(group_out, 0xff, groups * sizeof(*group_out));
	uint32_t made = 0;
	for (size_t c = 0; c < corners; c++) {
		uint32_t *o = &group_out[indices[c]];
		if (*o == UINT32_MAX) *o = made++;
		indices[c] = *o;
	}
	*count = made;
	return true;
}

bool gsioi_weld(gsioi_corner_keys vk, gsioi_corner_keys uk, size_t corners, size_t vertices,
                size_t uvs, uint32_t *indices, size_t *count, gsio_arena *tmp, gsio_error *err)
{
	*count = 0;
	if (corners % 3 || corners > UINT32_MAX || vertices >= UINT32_MAX || uvs >= UINT32_MAX ||
	    (vk.size != 2 && vk.size != 4) || (uk.size != 2 && uk.size != 4)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "welding: bad corner layout or counts");
		return false;
	}
	// The tables are freed before the welding returns: the caller goes on
	// to make frames and fold faces in its own scratch (PhosphoricAcid_MDl5's
	// data peak 268-276 -> 264-268 KB, mdl5-earth 2048 -> 2024, gate-101
	// 2668 -> 2648).
	gsio_arena *own = gsioi_arena_like(tmp, "welding", err);
	if (!own) return false;
	bool ok;
	if (vk.size == 2 && uk.size == 2) // MDL2-5's triangle records
		ok = weld(&vk, &uk, 2, 2, corners, vertices, uvs, indices, count, own, err);
	else if (vk.size == 4 && uk.size == 4) // MDL7's corner arrays
		ok = weld(&vk, &uk, 4, 4, corners, vertices, uvs, indices, count, own, err);
	else
		ok = weld(&vk, &uk, vk.size, uk.size, corners, vertices, uvs, indices, count, own, err);
	gsioi_arena_destroy(own);
	return ok;
}
