/* A packed frame record's coordinates, as stored and widened to floats: the
 * one place that says how. Header-only (static inline, no symbol), so that
 * libgsio's frame unpacking (common/frames.c) and the glTF writer, which is
 * built on libgsio's public API only (blender_bridge/gltf_morph.c), make the same
 * floats with the same code. Internal; not installed. */
#ifndef GSIOI_PACKED_RECORD_H
#define GSIOI_PACKED_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/** Coordinate k of a record, 1-byte (`bytes`) or little-endian 2-byte, as
 *  stored: the scalar form of gsioi_record_coords() below. */
static inline unsigned gsioi_record_coord(const uint8_t *r, bool bytes, int k)
{
	return bytes ? r[k] : (unsigned)(r[2 * k] | r[2 * k + 1] << 8);
}

#ifdef __SSE2__
#include <emmintrin.h>

/** The first 4 coordinates of a record (x, y, z and the one after), 1-byte
 *  (`bytes`) or little-endian 2-byte, as 4 floats. The record holds 4
 *  coordinates (MDL's: the 4th is the normal index, and for 2-byte
 *  records a bone in its high byte). */
static inline __m128 gsioi_record_coords(const uint8_t *r, bool bytes)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i w;
	if (bytes) {
		int32_t b4;
		memcpy(&b4, r, 4);
		w = _mm_unpacklo_epi8(_mm_cvtsi32_si128(b4), zero);
	} else {
		w = _mm_loadl_epi64((const __m128i *)(const void *)r);
	}
	return _mm_cvtepi32_ps(_mm_unpacklo_epi16(w, zero));
}
#endif

#endif
