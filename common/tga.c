/* Uncompressed true-colour TGA files: gsioi_tga.h says which and why. The
 * header (docs/FORMATS.md §10.3): ID length at 0, colour-map type at 1,
 * image type at 2, width at 12, height at 14 (16-bit little-endian), bits a
 * pixel at 16, descriptor at 17; then the image ID, then the pixels, B G R
 * (A), the bottom row first unless the descriptor's bit 5 is set. */
#include "gsioi_tga.h"

#include <string.h>

#ifdef GSIOI_HAVE_SSSE3
#include <tmmintrin.h>
#endif

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

bool gsioi_tga_plain(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h)
{
	if (!data || size < GSIOI_TGA_HEADER_SIZE || data[1] != 0 || data[2] != 2) return false;
	uint32_t bpp = data[16];
	*w = le16(data + 12);
	*h = le16(data + 14);
	if ((bpp != 24 && bpp != 32) || !*w || !*h) return false;
	// w and h are below 2^16: the pixels' size fits in 64 bits.
	uint64_t need = GSIOI_TGA_HEADER_SIZE + (uint64_t)data[0] + (uint64_t)*w * *h * (bpp / 8);
	return need <= size;
}

bool gsioi_tga_rle(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h)
{
	if (!data || size < GSIOI_TGA_HEADER_SIZE || data[1] != 0 || data[2] != 10) return false;
	const size_t comp = data[16] / 8u;
	*w = le16(data + 12);
	*h = le16(data + 14);
	if ((data[16] != 24 && data[16] != 32) || !*w || !*h) return false;
	// Every packet whole inside the file (stb_image reads zeros past its
	// end: such a file is its to decode).
	size_t at = GSIOI_TGA_HEADER_SIZE + (size_t)data[0];
	uint64_t left = (uint64_t)*w * *h;
	while (left) {
		if (at >= size) return false;
		const uint8_t cmd = data[at++];
		const size_t n = (size_t)(cmd & 127u) + 1, bytes = cmd & 128u ? comp : n * comp;
		if (bytes > size - at) return false;
		at += bytes;
		left = n < left ? left - n : 0;
	}
	return true;
}

void gsioi_tga_rle_decode(const uint8_t *data, uint32_t w, uint32_t h, uint8_t *rgba)
{
	const size_t comp = data[16] / 8u;
	const bool top_first = (data[17] >> 5) & 1u;
	const uint8_t *s = data + GSIOI_TGA_HEADER_SIZE + data[0];
	size_t count = 0; // pixels left in the packet
	bool run = false;
	uint8_t px[4] = {0, 0, 0, 255};
	uint32_t x = 0, y = 0; // file order: y counts rows as stored
	uint8_t *d = rgba + (size_t)(top_first ? 0 : h - 1) * w * 4;
	for (size_t i = 0, n = (size_t)w * h; i < n; i++) {
		if (!count) {
			count = (size_t)(*s & 127u) + 1;
			run = *s++ & 128u;
			if (run) { // the one pixel of the run
				px[0] = s[2], px[1] = s[1], px[2] = s[0], px[3] = comp == 4 ? s[3] : 255;
				s += comp;
			}
		}
		if (!run) {
			px[0] = s[2], px[1] = s[1], px[2] = s[0], px[3] = comp == 4 ? s[3] : 255;
			s += comp;
		}
		count--;
		memcpy(d + (size_t)x * 4, px, 4);
		if (++x == w) {
			x = 0;
			if (++y < h) d = rgba + (size_t)(top_first ? y : h - 1 - y) * w * 4;
		}
	}
}

/* The file's bytes of row y (0: the top). */
static const uint8_t *row_at(const uint8_t *data, uint32_t w, uint32_t h, uint32_t y)
{
	const bool top_first = (data[17] >> 5) & 1u;
	return data + GSIOI_TGA_HEADER_SIZE + data[0] + (size_t)(top_first ? y : h - 1 - y) * w * (data[16] / 8u);
}

#ifdef GSIOI_HAVE_SSSE3
/* Four pixels a byte shuffle, as many as the row holds whole 16-byte loads
 * for (the rest is the scalar loop's); returns the pixels done. A byte at a
 * time, the 24-bit row was 5.5 ns a pixel, an eighth of converting a
 * 2048 x 2048 skin. */
GSIOI_TARGET_SSSE3 static uint32_t row_ssse3(const uint8_t *s, uint8_t *d, uint32_t w, bool bgra)
{
	uint32_t x = 0;
	if (bgra) {
		const __m128i pick = _mm_setr_epi8(2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
		for (; x + 4 <= w; x += 4) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 4 * (size_t)x));
			_mm_storeu_si128((__m128i *)(void *)(d + 4 * (size_t)x), _mm_shuffle_epi8(v, pick));
		}
		return x;
	}
	const __m128i pick = _mm_setr_epi8(2, 1, 0, -1, 5, 4, 3, -1, 8, 7, 6, -1, 11, 10, 9, -1);
	const __m128i opaque = _mm_set1_epi32((int)0xFF000000u); // byte 3 of each pixel
	// 16 bytes read from 3x, 12 used: they stay inside the row while x + 6 <= w.
	for (; x + 6 <= w; x += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 3 * (size_t)x));
		_mm_storeu_si128((__m128i *)(void *)(d + 4 * (size_t)x), _mm_or_si128(_mm_shuffle_epi8(v, pick), opaque));
	}
	return x;
}
#endif

void gsioi_bgr_to_rgba(const uint8_t *s, uint8_t *d, uint32_t w, bool bgra)
{
	uint32_t x0 = 0;
#ifdef GSIOI_HAVE_SSSE3
	if (gsioi_has_ssse3()) x0 = row_ssse3(s, d, w, bgra);
#endif
	const size_t comp = bgra ? 4 : 3;
	s += x0 * comp;
	d += (size_t)x0 * 4;
	if (bgra) {
		for (uint32_t x = x0; x < w; x++, s += 4, d += 4) {
			d[0] = s[2];
			d[1] = s[1];
			d[2] = s[0];
			d[3] = s[3];
		}
	} else {
		for (uint32_t x = x0; x < w; x++, s += 3, d += 4) {
			d[0] = s[2];
			d[1] = s[1];
			d[2] = s[0];
			d[3] = 255;
		}
	}
}

void gsioi_tga_plain_row(const uint8_t *data, uint32_t w, uint32_t h, uint32_t y, uint8_t *rgba)
{
	gsioi_bgr_to_rgba(row_at(data, w, h, y), rgba, w, data[16] == 32);
}

void gsioi_tga_plain_decode(const uint8_t *data, uint32_t w, uint32_t h, uint8_t *rgba)
{
	for (uint32_t y = 0; y < h; y++) gsioi_tga_plain_row(data, w, h, y, rgba + (size_t)y * w * 4);
}

void gsioi_tga_plain_pixel(const uint8_t *data, uint32_t w, uint32_t h, size_t i, uint8_t out[4])
{
	const size_t comp = data[16] / 8u;
	const uint8_t *s = row_at(data, w, h, (uint32_t)(i / w)) + (i % w) * comp;
	out[0] = s[2];
	out[1] = s[1];
	out[2] = s[0];
	out[3] = comp == 4 ? s[3] : 255;
}

bool gsioi_tga_plain_opaque(const uint8_t *data, uint32_t w, uint32_t h)
{
	if (data[16] != 32) return true;
	const uint8_t *p = data + GSIOI_TGA_HEADER_SIZE + data[0];
	const size_t n = (size_t)w * h;
	uint8_t all = 255;
	for (size_t i = 0; i < n; i++) all &= p[4 * i + 3];
	return all == 255;
}
