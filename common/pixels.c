/* Skin pixel formats <-> RGBA8. */
#include "gsio_internal.h"

size_t gsio_pixel_size(gsio_pixel_format fmt)
{
	switch (fmt) {
	case GSIO_PIXEL_PAL8: return 1;
	case GSIO_PIXEL_RGB565:
	case GSIO_PIXEL_ARGB4444: return 2;
	case GSIO_PIXEL_BGR888: return 3;
	case GSIO_PIXEL_BGRA8888:
	case GSIO_PIXEL_RGBA8888: return 4;
	}
	return 0;
}

// Expanding n bits to 8 by replication maps the top code to 255 and 0 to 0
// (5 and 6 bits: folded into the RGB565 masks below; unused helpers break clang -Werror).
static inline uint8_t expand4(unsigned v) { return (uint8_t)((v << 4) | v); }

static inline void put_rgba(uint8_t *restrict dst, unsigned r, unsigned g, unsigned b, unsigned a)
{
	uint32_t v = (uint32_t)r | ((uint32_t)g << 8) | ((uint32_t)b << 16) | ((uint32_t)a << 24);
	uint8_t bytes[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	memcpy(dst, bytes, 4); // one store; byte order is fixed by the array, not the host
}

int gsio_decode_pixels(gsio_pixel_format fmt, const uint8_t *restrict src, size_t count,
                       const uint8_t *palette, uint8_t *restrict dst)
{
	switch (fmt) {
	case GSIO_PIXEL_PAL8: {
		const uint8_t *pal = palette ? palette : gsio_default_palette();
		for (size_t i = 0; i < count; i++) {
			const uint8_t *c = pal + 3 * src[i];
			dst[4 * i + 0] = c[0];
			dst[4 * i + 1] = c[1];
			dst[4 * i + 2] = c[2];
			dst[4 * i + 3] = 255;
		}
		return 0;
	}
	case GSIO_PIXEL_RGB565:
		for (size_t i = 0; i < count; i++) {
			uint32_t v = (uint32_t)src[2 * i] | ((uint32_t)src[2 * i + 1] << 8);
			// expand5/expand6 folded into masks: r = r5<<3 | r5>>2, etc.
			uint32_t r = ((v >> 8) & 0xF8u) | (v >> 13);
			uint32_t g = ((v >> 3) & 0xFCu) | ((v >> 9) & 3u);
			uint32_t b = ((v << 3) & 0xF8u) | ((v >> 2) & 7u);
			uint32_t px = r | (g << 8) | (b << 16) | 0xFF000000u;
			uint8_t out[4] = {(uint8_t)px, (uint8_t)(px >> 8), (uint8_t)(px >> 16), 255};
			memcpy(dst + 4 * i, out, 4);
		}
		return 0;
	case GSIO_PIXEL_ARGB4444:
		for (size_t i = 0; i < count; i++) {
			unsigned v = (unsigned)src[2 * i] | ((unsigned)src[2 * i + 1] << 8);
			put_rgba(dst + 4 * i, expand4((v >> 8) & 15), expand4((v >> 4) & 15), expand4(v & 15),
			         expand4((v >> 12) & 15));
		}
		return 0;
	case GSIO_PIXEL_BGR888:
		for (size_t i = 0; i < count; i++) {
			put_rgba(dst + 4 * i, src[3 * i + 2], src[3 * i + 1], src[3 * i], 255);
		}
		return 0;
	case GSIO_PIXEL_BGRA8888:
		for (size_t i = 0; i < count; i++) {
			dst[4 * i + 0] = src[4 * i + 2];
			dst[4 * i + 1] = src[4 * i + 1];
			dst[4 * i + 2] = src[4 * i + 0];
			dst[4 * i + 3] = src[4 * i + 3];
		}
		return 0;
	case GSIO_PIXEL_RGBA8888:
		memcpy(dst, src, count * 4);
		return 0;
	}
	return -1;
}

static inline unsigned quant(unsigned v8, unsigned max)
{
	return (v8 * max + 127) / 255; // nearest code
}

static uint8_t nearest_index(const uint8_t *pal, const uint8_t *c)
{
	unsigned best = 0;
	long best_d = -1;
	for (unsigned i = 0; i < 256; i++) {
		long dr = (long)pal[3 * i] - c[0], dg = (long)pal[3 * i + 1] - c[1],
		     db = (long)pal[3 * i + 2] - c[2];
		long d = dr * dr + dg * dg + db * db;
		if (best_d < 0 || d < best_d) {
			best_d = d;
			best = i;
			if (d == 0) break;
		}
	}
	return (uint8_t)best;
}

int gsio_encode_pixels(gsio_pixel_format fmt, const uint8_t *rgba, size_t count,
                       const uint8_t *palette, uint8_t *dst)
{
	switch (fmt) {
	case GSIO_PIXEL_PAL8: {
		const uint8_t *pal = palette ? palette : gsio_default_palette();
		for (size_t i = 0; i < count; i++) dst[i] = nearest_index(pal, rgba + 4 * i);
		return 0;
	}
	case GSIO_PIXEL_RGB565:
		for (size_t i = 0; i < count; i++) {
			const uint8_t *c = rgba + 4 * i;
			unsigned v = (quant(c[0], 31) << 11) | (quant(c[1], 63) << 5) | quant(c[2], 31);
			dst[2 * i] = (uint8_t)v;
			dst[2 * i + 1] = (uint8_t)(v >> 8);
		}
		return 0;
	case GSIO_PIXEL_ARGB4444:
		for (size_t i = 0; i < count; i++) {
			const uint8_t *c = rgba + 4 * i;
			unsigned v = (quant(c[3], 15) << 12) | (quant(c[0], 15) << 8) |
			             (quant(c[1], 15) << 4) | quant(c[2], 15);
			dst[2 * i] = (uint8_t)v;
			dst[2 * i + 1] = (uint8_t)(v >> 8);
		}
		return 0;
	case GSIO_PIXEL_BGR888:
		for (size_t i = 0; i < count; i++) {
			dst[3 * i + 0] = rgba[4 * i + 2];
			dst[3 * i + 1] = rgba[4 * i + 1];
			dst[3 * i + 2] = rgba[4 * i + 0];
		}
		return 0;
	case GSIO_PIXEL_BGRA8888:
		for (size_t i = 0; i < count; i++) {
			dst[4 * i + 0] = rgba[4 * i + 2];
			dst[4 * i + 1] = rgba[4 * i + 1];
			dst[4 * i + 2] = rgba[4 * i + 0];
			dst[4 * i + 3] = rgba[4 * i + 3];
		}
		return 0;
	case GSIO_PIXEL_RGBA8888:
		memcpy(dst, rgba, count * 4);
		return 0;
	}
	return -1;
}
