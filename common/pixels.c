/* Skin pixel formats <-> RGBA8. */
#include "gsioi_internal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#ifdef GSIOI_HAVE_SSSE3
#include <stdatomic.h>
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h> // glibc 2.33+
#define GSIOI_GLIBC_CPU_FEATURES 1
#endif
#endif
#ifndef GSIOI_GLIBC_CPU_FEATURES
#include <cpuid.h>
#endif

/* SSSE3, asked the first time it is needed and kept: from glibc's own
 * reading of the processor (made when every program starts; glibc 2.33+),
 * else from CPUID leaf 1 (ECX bit 9). Not CPUID where glibc has the answer,
 * and not __builtin_cpu_supports(): CPUID traps to the hypervisor on a
 * virtual machine (__get_cpuid, two CPUIDs: 17-23 us on the 2-vCPU machine
 * the benchmarks run on, against 0.01-0.02 us for glibc's answer; about 1%
 * of converting a small textured model there), and libgcc's constructor,
 * which __builtin_cpu_supports() links, asks CPUID a dozen times when every
 * program using the library starts. */
bool gsioi_has_ssse3(void)
{
	static atomic_int known; // 0: not asked yet, 1: no, 2: yes
	int k = atomic_load_explicit(&known, memory_order_relaxed);
	if (!k) {
#ifdef GSIOI_GLIBC_CPU_FEATURES
		k = CPU_FEATURE_ACTIVE(SSSE3) ? 2 : 1;
#else
		unsigned a, b, c, d;
		k = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) ? 2 : 1;
#endif
		atomic_store_explicit(&known, k, memory_order_relaxed);
	}
	return k == 2;
}
#endif

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
// (5 and 6 bits: written out in the RGB565 case; unused helpers break clang -Werror).
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
	case GSIO_PIXEL_RGB565: {
		// Bit replication (r5 << 3 | r5 >> 2, g6 << 2 | g6 >> 4, ...), eight
		// texels at a time with SSE2 (the x86-64 baseline; 565 is most
		// skins, and a row decoder for PNG rows calls this per row).
		size_t i = 0;
#ifdef __SSE2__
		const __m128i m63 = _mm_set1_epi16(63), m31 = _mm_set1_epi16(31);
		const __m128i alpha = _mm_set1_epi16((short)0xFF00);
		for (; i + 8 <= count; i += 8) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + 2 * i));
			__m128i r5 = _mm_srli_epi16(v, 11);
			__m128i g6 = _mm_and_si128(_mm_srli_epi16(v, 5), m63);
			__m128i b5 = _mm_and_si128(v, m31);
			__m128i r8 = _mm_or_si128(_mm_slli_epi16(r5, 3), _mm_srli_epi16(r5, 2));
			__m128i g8 = _mm_or_si128(_mm_slli_epi16(g6, 2), _mm_srli_epi16(g6, 4));
			__m128i b8 = _mm_or_si128(_mm_slli_epi16(b5, 3), _mm_srli_epi16(b5, 2));
			__m128i rg = _mm_or_si128(r8, _mm_slli_epi16(g8, 8)); // bytes r, g
			__m128i ba = _mm_or_si128(b8, alpha);                 // bytes b, 255
			_mm_storeu_si128((__m128i *)(void *)(dst + 4 * i), _mm_unpacklo_epi16(rg, ba));
			_mm_storeu_si128((__m128i *)(void *)(dst + 4 * i + 16), _mm_unpackhi_epi16(rg, ba));
		}
#endif
		for (; i < count; i++) {
			unsigned v = (unsigned)src[2 * i] | (unsigned)src[2 * i + 1] << 8;
			unsigned r = v >> 11, g = (v >> 5) & 63u, b = v & 31u;
			put_rgba(dst + 4 * i, r << 3 | r >> 2, g << 2 | g >> 4, b << 3 | b >> 2, 255);
		}
		return 0;
	}
	case GSIO_PIXEL_ARGB4444: {
		// Every 8-bit channel of a 4444 texel is a nibble of one byte
		// widened by replication: two 256-entry tables of RGBA bytes, built
		// per call (thread-safe, 512 entries), decode a texel with two loads
		// and an OR (high byte a4 r4, low byte g4 b4).
		uint8_t lo_t[256][4], hi_t[256][4];
		for (unsigned x = 0; x < 256; x++) {
			hi_t[x][0] = expand4(x & 15u);
			hi_t[x][1] = 0;
			hi_t[x][2] = 0;
			hi_t[x][3] = expand4(x >> 4);
			lo_t[x][0] = 0;
			lo_t[x][1] = expand4(x >> 4);
			lo_t[x][2] = expand4(x & 15u);
			lo_t[x][3] = 0;
		}
		for (size_t i = 0; i < count; i++) {
			uint32_t a, b;
			memcpy(&a, lo_t[src[2 * i]], 4);
			memcpy(&b, hi_t[src[2 * i + 1]], 4);
			a |= b; // bytewise OR: the same on any byte order
			memcpy(dst + 4 * i, &a, 4);
		}
		return 0;
	}
	case GSIO_PIXEL_BGR888: {
		size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		// B G R read as one word with the next texel's B on top: swapped,
		// that is (B, G, R) in the high three bytes read as R G B from the
		// bottom; the top byte becomes alpha. The last texel is read alone.
		for (; i + 1 < count; i++) {
			uint32_t v;
			memcpy(&v, src + 3 * i, 4);
			v = (__builtin_bswap32(v) >> 8) | 0xFF000000u;
			memcpy(dst + 4 * i, &v, 4);
		}
#endif
		for (; i < count; i++) put_rgba(dst + 4 * i, src[3 * i + 2], src[3 * i + 1], src[3 * i], 255);
		return 0;
	}
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

// -- Indexed form

bool gsioi_image_set_palette(gsio_arena *arena, gsio_image *im, uint8_t *indices,
                             const uint8_t *palette, gsio_error *err)
{
	uint8_t *pal = gsioi_arena_alloc_uninit(arena, 256 * 4, err);
	if (!pal) return false;
	// The palette through the decoder itself: the two forms cannot disagree.
	uint8_t all[256];
	for (unsigned k = 0; k < 256; k++) all[k] = (uint8_t)k;
	if (gsio_decode_pixels(GSIO_PIXEL_PAL8, all, 256, palette, pal)) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, NULL, -1, "palette decoding failed");
		return false;
	}
	im->indices = indices;
	im->palette = pal;
	im->palette_count = 256;
	return true;
}

bool gsioi_image_keep_indices(gsio_arena *arena, gsio_image *im, const uint8_t *src,
                              const uint8_t *palette, gsio_error *err)
{
	const size_t texels = (size_t)im->width * im->height;
	uint8_t *idx = gsioi_arena_alloc_uninit(arena, texels, err);
	if (!idx) return false;
	memcpy(idx, src, texels);
	return gsioi_image_set_palette(arena, im, idx, palette, err);
}

// -- Skins

/** im->stored set to a copy, in the arena, of the width * height pixels of
 *  its source format at src; false when memory ran out (err set). */
static bool keep_stored_copy(gsio_arena *arena, gsio_image *im, const uint8_t *src, gsio_error *err)
{
	const size_t texels = (size_t)im->width * im->height, ps = gsio_pixel_size(im->source_format);
	uint8_t *copy = gsioi_arena_array_uninit(arena, texels, ps, err);
	if (!copy) return false;
	memcpy(copy, src, texels * ps);
	im->stored = copy;
	return true;
}

bool gsioi_images_unlend(gsio_scene *s, const uint8_t *lend, size_t lend_size, gsio_error *err)
{
	for (size_t i = 0; lend && i < s->images_count; i++) {
		gsio_image *im = &s->images[i];
		const uint8_t *p = im->stored;
		if (p && p >= lend && (size_t)(p - lend) < lend_size && !keep_stored_copy(s->arena, im, p, err))
			return false;
	}
	return true;
}

int gsioi_skin_pixels(gsio_arena *arena, gsio_image *im, const uint8_t *src, const uint8_t *palette,
                      bool no_pixels, const uint8_t *lend, size_t lend_size, gsio_error *err)
{
	const size_t texels = (size_t)im->width * im->height, ps = gsio_pixel_size(im->source_format);
	if (!ps) return 1;
	if (no_pixels) { // as stored: indices + palette, or the raw pixels
		if (im->source_format == GSIO_PIXEL_PAL8)
			return gsioi_image_keep_indices(arena, im, src, palette, err) ? 0 : -1;
		// Inside bytes the caller lends (GSIO_OPT_BORROW): pointed at, not copied.
		if (lend && src >= lend && (size_t)(src - lend) <= lend_size &&
		    texels * ps <= lend_size - (size_t)(src - lend)) {
			im->stored = src;
			return 0;
		}
		return keep_stored_copy(arena, im, src, err) ? 0 : -1;
	}
	if (!(im->rgba = gsioi_arena_array_uninit(arena, texels, 4, err))) return -1;
	if (gsio_decode_pixels(im->source_format, src, texels, palette, im->rgba)) return 1;
	if (im->source_format == GSIO_PIXEL_PAL8 && !gsioi_image_keep_indices(arena, im, src, palette, err))
		return -1;
	return 0;
}
