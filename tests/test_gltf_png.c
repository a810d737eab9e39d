/* The PNG encoder behind the glTF writer's images (gsioi_png_*, the
 * encoder's forms, strips, bands made in parts or on two threads, stored
 * pixel formats, indexed images, the compact output's), each PNG decoded by libspng (an
 * independent reader) to the pixels it was made from; and every corpus skin
 * and texture written as the same picture. */
#include "test_util.h"
#include "gltf_test_util.h"

#include "gsioi_internal.h"
#include "wmp_internal.h"
#include "gsioi_png.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Whether the PNG has a chunk of this type (walks the chunk list). */
static bool png_has_chunk(const uint8_t *p, size_t size, const char type[4])
{
	for (size_t at = 8; at + 12 <= size;) {
		size_t len = (size_t)p[at] << 24 | (size_t)p[at + 1] << 16 | (size_t)p[at + 2] << 8 | p[at + 3];
		if (!memcmp(p + at + 4, type, 4)) return true;
		at += 12 + len;
	}
	return false;
}

/** The PNG decodes (libspng) to w x h pixels equal to rgba. */
static void assert_png_pixels(const uint8_t *png, size_t size, const uint8_t *rgba, uint32_t w,
                              uint32_t h)
{
	uint32_t w2, h2;
	uint8_t *px = decode_png(png, size, &w2, &h2);
	assert_int_equal(w2, w);
	assert_int_equal(h2, h);
	assert_memory_equal(px, rgba, (size_t)w * h * 4);
	free(px);
}

/** Encodes rgba with gsioi_png_encode, checks the colour type chosen and that
 *  the PNG decodes to the same pixels. */
static void png_round_trip(const uint8_t *rgba, uint32_t w, uint32_t h, int colour_type)
{
	uint8_t *png;
	size_t size;
	gsio_error err;
	if (gsioi_png_encode(rgba, w, h, &png, &size, &err)) fail_msg("%s", err.message);
	assert_int_equal(png[25], colour_type);
	assert_png_pixels(png, size, rgba, w, h);
	free(png);
}

/** The forms gsioi_png_encode picks, each decoding to the same pixels: a
 *  palette up to 256 distinct colours (tRNS only with alpha), truecolour
 *  from the 257th, with alpha when one pixel is not opaque. */
static void test_png_forms(void **state)
{
	(void)state;
	enum { W = 37, H = 29 }; // 1073 pixels, odd sizes
	uint8_t *rgba = malloc((size_t)W * H * 4);
	assert_non_null(rgba);
	for (uint32_t colours = 1; colours <= 257; colours += colours < 250 ? 85 : 1) {
		for (size_t i = 0; i < (size_t)W * H; i++) {
			uint32_t c = (uint32_t)((i * 7) % colours); // every colour (7 is prime to each count)
			rgba[4 * i] = (uint8_t)c, rgba[4 * i + 1] = (uint8_t)(c >> 8);
			rgba[4 * i + 2] = (uint8_t)(c * 3), rgba[4 * i + 3] = 255;
		}
		png_round_trip(rgba, W, H, colours <= 256 ? 3 : 2);
		uint8_t *png;
		size_t size;
		gsio_error err;
		assert_int_equal(gsioi_png_encode(rgba, W, H, &png, &size, &err), 0);
		assert_false(png_has_chunk(png, size, "tRNS")); // opaque: no tRNS
		free(png);
		rgba[4 * 100 + 3] = 128; // one translucent pixel: one more colour
		png_round_trip(rgba, W, H, colours < 256 ? 3 : 6);
		assert_int_equal(gsioi_png_encode(rgba, W, H, &png, &size, &err), 0);
		assert_int_equal(png_has_chunk(png, size, "tRNS"), colours < 256);
		free(png);
	}
	free(rgba);
}

/** Images compressed a strip of rows at a time: many strips, a last strip
 *  that is short, rows longer than a strip, incompressible pixels (the
 *  output outgrows every estimate from the compressible case) and flat
 *  ones; each decodes (libspng: CRCs and the zlib stream checked) to the
 *  same pixels. */
static void test_png_strips(void **state)
{
	(void)state;
	static const struct { uint32_t w, h; bool alpha, noise; } cases[] = {
	    {301, 707, false, true},  // RGB, ~13 strips of 64 KiB, the last short
	    {300, 701, true, true},   // RGBA
	    {17000, 3, true, true},   // one row is more than a strip (68 001 bytes)
	    {16385, 2, false, false}, // RGB row just over 48 KiB, flat (a palette)
	    {1024, 1024, false, false},
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const uint32_t w = cases[k].w, h = cases[k].h;
		uint8_t *rgba = malloc((size_t)w * h * 4);
		assert_non_null(rgba);
		for (size_t i = 0; i < (size_t)w * h; i++) {
			for (int c = 0; c < 4; c++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				rgba[4 * i + c] = cases[k].noise ? (uint8_t)x : (uint8_t)((i / w + c * 40) & 0xff);
			}
			if (!cases[k].alpha) rgba[4 * i + 3] = 255;
		}
		png_round_trip(rgba, w, h, !cases[k].noise ? 3 : cases[k].alpha ? 6 : 2);
		free(rgba);
	}
}

/* -- A PNG made in parts (gsioi_png_begin*, gsioi_png_part, gsioi_png_finish) */

typedef struct parts_run {
	gsioi_png_work *w;
	size_t from; // the bands this thread makes: from, from + 2, ...
	int rc;
} parts_run;

static void *make_every_other_part(void *arg)
{
	parts_run *r = arg;
	gsio_error err;
	for (size_t i = r->from; i < gsioi_png_parts(r->w); i += 2) r->rc |= gsioi_png_part(r->w, i, &err);
	return NULL;
}

/** The work's bands made on two threads at once: the even ones on a new
 *  thread, the odd ones here. */
static void make_parts_two_threads(gsioi_png_work *w)
{
	parts_run even = {w, 0, 0}, odd = {w, 1, 0};
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, make_every_other_part, &even), 0);
	make_every_other_part(&odd);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(even.rc | odd.rc, 0);
}

/** The work's PNG made three ways: its bands in order (what the encoder
 *  does), last band first, and the bands on two threads at once (the even
 *  ones on a new thread, the odd ones here); each must be `want`, byte for
 *  byte. Returns the band count. */
static size_t expect_parts_same(gsioi_png_work *(*begin)(const void *src), const void *src, const uint8_t *want,
                                size_t want_size, const char *what)
{
	size_t parts = 0;
	for (int way = 0; way < 3; way++) {
		gsioi_png_work *w = begin(src);
		parts = gsioi_png_parts(w);
		gsio_error err;
		gsio_error_clear(&err);
		if (way == 0) {
			// None made: gsioi_png_finish makes them.
		} else if (way == 1) {
			for (size_t i = parts; i-- > 0;)
				if (gsioi_png_part(w, i, &err)) fail_msg("%s: band %zu: %s", what, i, err.message);
		} else {
			make_parts_two_threads(w);
		}
		uint8_t *png;
		size_t size;
		if (gsioi_png_finish(w, &png, &size, &err)) fail_msg("%s: %s", what, err.message);
		if (size != want_size || memcmp(png, want, size))
			fail_msg("%s, %zu bands made %s: %zu bytes, not the encoder's %zu", what, parts,
			         way == 0 ? "by finish" : way == 1 ? "last first" : "on two threads", size, want_size);
		free(png);
	}
	return parts;
}

typedef struct rgba_src {
	const uint8_t *rgba;
	uint32_t w, h;
} rgba_src;

static gsioi_png_work *begin_rgba(const void *src)
{
	const rgba_src *r = src;
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin(r->rgba, r->w, r->h, &w, &err)) fail_msg("gsioi_png_begin: %s", err.message);
	return w;
}

static gsioi_png_work *begin_indexed(const void *src)
{
	const rgba_src *r = src; // rgba: w * h indices, then a 256-entry palette
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin_indexed(r->rgba, r->w, r->h, r->rgba + (size_t)r->w * r->h, 256, &w, &err))
		fail_msg("gsioi_png_begin_indexed: %s", err.message);
	return w;
}

static gsioi_png_work *begin_stored565(const void *src)
{
	const rgba_src *r = src; // rgba: w * h RGB565 pixels
	gsioi_png_work *w;
	gsio_error err;
	if (gsioi_png_begin_stored(GSIO_PIXEL_RGB565, r->rgba, r->w, r->h, NULL, &w, &err))
		fail_msg("gsioi_png_begin_stored: %s", err.message);
	return w;
}

/** Images of 128 K pixels and more are deflated in bands (2 to 4, by size
 *  alone); made in any order or on two threads, the bands give the bytes
 *  the encoder gives, which decode (libspng: the joined stream and its
 *  Adler-32 checked) to the pixels: truecolour with and without alpha, a
 *  palette found in the pixels, indices, stored RGB565 of many colours
 *  and of few (a palette whose rows each band looks up from its own
 *  decoded rows); heights that are not a multiple of the bands or of 4. */
static void test_png_parts(void **state)
{
	(void)state;
	static const struct { uint32_t w, h; size_t parts; } sizes[] = {
	    {362, 362, 1}, {363, 363, 1}, {512, 512, 2}, {700, 601, 3}, {1030, 1023, 4}, {4000, 70, 2}, {100000, 6, 2},
	};
	uint64_t x = 0x2545F4914F6CDD1Du;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const uint32_t w = sizes[k].w, h = sizes[k].h;
		const size_t n = (size_t)w * h;
		uint8_t *rgba = malloc(n * 4 + 1024);
		assert_non_null(rgba);
		for (int form = 0; form < 6; form++) {
			// 0 RGB noise over smooth rows, 1 RGBA, 2 few colours (a palette
			// from the pixels), 3 indices, 4 stored RGB565, 5 stored RGB565
			// of few colours (a palette from the decoded rows).
			for (size_t i = 0; i < n * 4 + 1024; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				size_t y = i / 4 / w;
				rgba[i] = form == 2   ? (uint8_t)((i / 4 / 333) * 7 % 200)
				          : form == 5 ? (uint8_t)((i / 2 / 333) * 7 % 200)
				                      : (uint8_t)((x & 15) + y);
				if ((form == 0 || form == 2) && i % 4 == 3) rgba[i] = 255;
			}
			char what[96];
			snprintf(what, sizeof(what), "%ux%u form %d", w, h, form);
			rgba_src src = {rgba, w, h};
			uint8_t *want;
			size_t want_size;
			gsio_error err;
			int rc = form == 3   ? gsioi_png_encode_indexed(rgba, w, h, rgba + n, 256, &want, &want_size, &err)
			         : form >= 4 ? gsioi_png_encode_stored(GSIO_PIXEL_RGB565, rgba, w, h, NULL, &want, &want_size, &err)
			                     : gsioi_png_encode(rgba, w, h, &want, &want_size, &err);
			if (rc) fail_msg("%s: %s", what, err.message);
			size_t parts = expect_parts_same(form == 3 ? begin_indexed : form >= 4 ? begin_stored565 : begin_rgba,
			                                 &src, want, want_size, what);
			if (parts != sizes[k].parts) fail_msg("%s: %zu bands, %zu expected", what, parts, sizes[k].parts);
			if (form <= 2) {
				assert_int_equal(want[25], form == 0 ? 2 : form == 1 ? 6 : 3);
				assert_png_pixels(want, want_size, rgba, w, h);
			} else {
				assert_int_equal(want[25], form == 4 ? 2 : 3);
				uint32_t dw, dh;
				uint8_t *px = decode_png(want, want_size, &dw, &dh);
				uint8_t *ref = malloc(n * 4);
				assert_non_null(ref);
				if (form == 3) {
					for (size_t i = 0; i < n; i++) memcpy(ref + 4 * i, rgba + n + 4 * (size_t)rgba[i], 4);
				} else {
					assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, rgba, n, NULL, ref), 0);
				}
				assert_int_equal(dw, w);
				assert_int_equal(dh, h);
				assert_memory_equal(px, ref, n * 4);
				free(px);
				free(ref);
			}
			free(want);
		}
		free(rgba);
	}
	// A band that does not exist, no work, no output.
	uint8_t px[4] = {1, 2, 3, 255};
	gsioi_png_work *w;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsioi_png_begin(px, 1, 1, &w, &err), 0);
	assert_int_equal(gsioi_png_parts(w), 1);
	assert_int_not_equal(gsioi_png_part(w, 1, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	gsio_error_clear(&err);
	assert_int_equal(gsioi_png_part(w, 0, &err), 0);
	assert_int_not_equal(gsioi_png_part(w, 0, &err), 0); // once only: the first band kept
	assert_non_null(strstr(err.message, "made already"));
	uint8_t *png = (uint8_t *)1;
	size_t size = 1;
	assert_int_not_equal(gsioi_png_finish(w, NULL, &size, &err), 0); // frees the work
	assert_int_not_equal(gsioi_png_finish(NULL, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_begin(px, 1, 1, NULL, &err), 0);
	assert_int_not_equal(gsioi_png_begin(px, 0, 1, &w, &err), 0);
	assert_null(w);
	assert_int_equal(gsioi_png_parts(NULL), 0);
	gsioi_png_work_free(NULL);
}

/** gsioi_png_encode_stored: for every stored format, the PNG gsioi_png_encode
 *  writes from the decoded pixels, byte for byte: many colours (truecolour
 *  rows decoded one at a time, opaque or not), few colours (a palette). */
static void test_png_stored(void **state)
{
	(void)state;
	static const gsio_pixel_format fmts[] = {GSIO_PIXEL_PAL8,     GSIO_PIXEL_RGB565,
	                                         GSIO_PIXEL_ARGB4444, GSIO_PIXEL_BGR888,
	                                         GSIO_PIXEL_BGRA8888, GSIO_PIXEL_RGBA8888};
	enum { W = 301, H = 203 };
	uint8_t pal[768];
	for (int i = 0; i < 768; i++) pal[i] = (uint8_t)(i * 37 + 11);
	uint64_t x = 88172645463325252u;
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		size_t ps = gsio_pixel_size(fmts[f]);
		uint8_t *src = malloc((size_t)W * H * ps), *rgba = malloc((size_t)W * H * 4);
		assert_non_null(src);
		assert_non_null(rgba);
		// Modes: noise, noise made opaque, few colours, few colours on the
		// pixels the palette probe samples (every 15th) and noise between
		// (the probe passes, the whole-image scan gives up at the 257th).
		for (int mode = 0; mode < 4; mode++) {
			for (size_t i = 0; i < (size_t)W * H * ps; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				bool few = mode == 2 || (mode == 3 && (i / ps) % 15 == 0);
				src[i] = few ? (uint8_t)((i / ps / 97) * 5) : (uint8_t)x;
			}
			if (mode == 1 && fmts[f] == GSIO_PIXEL_ARGB4444)
				for (size_t i = 0; i < (size_t)W * H; i++) src[2 * i + 1] |= 0xF0;
			if (mode == 1 && ps == 4)
				for (size_t i = 0; i < (size_t)W * H; i++) src[4 * i + 3] = 255;
			const uint8_t *p = fmts[f] == GSIO_PIXEL_PAL8 ? pal : NULL;
			assert_int_equal(gsio_decode_pixels(fmts[f], src, (size_t)W * H, p, rgba), 0);
			uint8_t *want, *got;
			size_t want_size, got_size;
			gsio_error err;
			gsio_error_clear(&err);
			if (gsioi_png_encode(rgba, W, H, &want, &want_size, &err)) fail_msg("%s", err.message);
			if (gsioi_png_encode_stored(fmts[f], src, W, H, p, &got, &got_size, &err))
				fail_msg("%s", err.message);
			if (got_size != want_size || memcmp(got, want, want_size))
				fail_msg("format %d, mode %d: the PNGs differ", (int)fmts[f], mode);
			if (mode == 2) assert_int_equal(got[25], 3);
			if (mode == 1 && fmts[f] != GSIO_PIXEL_PAL8) assert_int_equal(got[25], 2);
			free(want);
			free(got);
		}
		free(src);
		free(rgba);
	}
	uint8_t *png = (uint8_t *)1;
	size_t size = 1;
	gsio_error err;
	gsio_error_clear(&err);
	uint8_t one[4] = {0};
	assert_int_not_equal(gsioi_png_encode_stored((gsio_pixel_format)7, one, 1, 1, NULL, &png, &size, &err), 0);
	assert_null(png);
	assert_int_equal(size, 0);
	assert_int_not_equal(gsioi_png_encode_stored(GSIO_PIXEL_RGB565, one, 0, 1, NULL, &png, &size, &err), 0);
}

/** The same pixels give the same PNG bytes wherever the encoder's memory
 *  lies: igzip's levels 1 and 2 (ISA-L 2.30) chose other matches for the
 *  same input at other addresses (seen under ASan, whose allocator moves
 *  blocks more than glibc's, on about 1 in 100 encodings of the image
 *  below), so the encoder uses level 0. The heap is stirred between runs. */
static void test_png_deterministic(void **state)
{
	(void)state;
	// A 5x6 image of 6 colours (a palette PNG), from a DDS the fuzzer built.
	static const uint8_t idx[30] = {0, 1, 2, 3, 1, 0, 1, 2, 3, 1, 0, 1, 2, 3, 1,
	                                0, 1, 2, 3, 1, 4, 4, 4, 5, 5, 4, 4, 4, 5, 5};
	uint8_t rgba[30 * 4];
	for (int i = 0; i < 30; i++) {
		rgba[4 * i] = (uint8_t)(idx[i] * 50), rgba[4 * i + 1] = (uint8_t)(255 - idx[i] * 40);
		rgba[4 * i + 2] = 7, rgba[4 * i + 3] = 255;
	}
	uint8_t *first = NULL;
	size_t first_size = 0;
	for (int run = 0; run < 400; run++) {
		void *junk = malloc(1000 + (size_t)run * 37);
		assert_non_null(junk);
		memset(junk, run, 1000 + (size_t)run * 37);
		uint8_t *png;
		size_t size;
		gsio_error err;
		gsio_error_clear(&err);
		if (gsioi_png_encode(rgba, 5, 6, &png, &size, &err)) fail_msg("%s", err.message);
		free(junk);
		if (!first) {
			first = png;
			first_size = size;
			continue;
		}
		if (size != first_size || memcmp(png, first, size))
			fail_msg("run %d: other PNG bytes (%zu, first %zu)", run, size, first_size);
		free(png);
	}
	free(first);
}

/** The same PNG bytes whatever igzip's block held before: deflate_band
 *  takes its 103 KB uncleared (the inits set what igzip reads, the
 *  stateless one after the state's head fields are zeroed; the histogram,
 *  made in the state's window, clears its own hash table; only the symbol
 *  counts are zeroed there), so blocks of that size left dirty with four
 *  patterns of 16-bit words and freed (glibc hands that memory back to the
 *  encoder's requests) must give the bytes an undisturbed encoding gives:
 *  a truecolour image of several 64 KiB strips (the histogram and codes
 *  made once), a few-colour (palette) one of one strip (a stateless call),
 *  and one of more than one band (gsioi_png_begin's parts,
 *  each with a block of its own). */
static void test_png_dirty_state(void **state)
{
	(void)state;
	const size_t block = gsioi_png_state_size();
	assert_true(block > 64 * 1024);
	static const uint32_t dims[3][2] = {{300, 200}, {64, 40}, {512, 512}};
	for (int im = 0; im < 3; im++) {
		const uint32_t w = dims[im][0], h = dims[im][1];
		uint8_t *rgba = malloc((size_t)w * h * 4);
		assert_non_null(rgba);
		uint32_t x32 = 12345;
		for (size_t i = 0; i < (size_t)w * h; i++) {
			x32 = x32 * 1103515245u + 12345u;
			uint8_t noise = (uint8_t)(x32 >> 24);
			size_t x = i % w, y = i / w;
			if (im == 1) // four colours: a palette PNG
				rgba[4 * i] = rgba[4 * i + 1] = rgba[4 * i + 2] = (uint8_t)(((x / 8 + y / 8) % 4) * 60);
			else
				rgba[4 * i] = (uint8_t)(x + (noise & 7)), rgba[4 * i + 1] = (uint8_t)(y * 3),
				rgba[4 * i + 2] = (uint8_t)(noise & 0x3f);
			rgba[4 * i + 3] = 255;
		}
		gsio_error err;
		gsio_error_clear(&err);
		uint8_t *want = NULL, *got = NULL;
		size_t want_size = 0, got_size = 0;
		if (gsioi_png_encode(rgba, w, h, &want, &want_size, &err)) fail_msg("%s", err.message);
		// Filled with 16-bit words. 0x0002: where igzip reads its 16-bit
		// hist_bits, a history of 4 bytes (1..15 shorten it; a field its
		// stateful init sets and its stateless one leaves alone).
		static const uint16_t patterns[4] = {0x0000, 0xffff, 0xa5a5, 0x0002};
		for (int p = 0; p < 4; p++) {
			// Four dirty blocks held apart from the heap's top by a guard, so
			// that freed they stay one dirty free block (not trimmed) in which
			// the encoder's blocks (its output buffer first) and its state
			// are all taken.
			uint8_t *dirty[4], *guard;
			for (int k = 0; k < 4; k++) assert_non_null(dirty[k] = malloc(block));
			assert_non_null(guard = malloc(64));
			for (int k = 0; k < 4; k++) {
				for (size_t b = 0; b + 2 <= block; b += 2) memcpy(dirty[k] + b, &patterns[p], 2);
				__asm__ volatile("" ::"r"(dirty[k]) : "memory");
				free(dirty[k]);
			}
			int rc = gsioi_png_encode(rgba, w, h, &got, &got_size, &err);
			free(guard);
			if (rc) fail_msg("%s", err.message);
			if (got_size != want_size || memcmp(got, want, want_size))
				fail_msg("image %d, block filled with 0x%04x: other PNG bytes (%zu, undisturbed %zu)", im,
				         patterns[p], got_size, want_size);
			assert_png_pixels(got, got_size, rgba, w, h);
			free(got);
		}
		free(want);
		free(rgba);
	}
}

/** The work's compact PNG (gsioi_png_plan_compact), its bands made in
 *  order or, when it has more than one, the even ones on a new thread and
 *  the odd ones here (two_threads); *parts: its band count. */
static uint8_t *compact_png(gsioi_png_work *w, bool two_threads, size_t *size, size_t *parts)
{
	gsioi_png_plan_compact(w);
	*parts = gsioi_png_parts(w);
	gsio_error err;
	gsio_error_clear(&err);
	if (two_threads && *parts > 1) make_parts_two_threads(w);
	uint8_t *png;
	if (gsioi_png_finish(w, &png, size, &err)) fail_msg("compact: %s", err.message);
	return png;
}

/** The compact output's PNGs: the default's signature and IHDR (the same
 *  form), the same pixels back (libspng), fewer bytes; photographic rows
 *  (noise) in the default's bands, flat ones (smooth gradients, a
 *  palette) in one stream; the same bytes on one thread or two and in
 *  memory left dirty. */
static void test_png_compact(void **state)
{
	(void)state;
	enum { W = 600, H = 601 }; // 360 K pixels: 2 bands
	uint8_t *rgba = malloc((size_t)W * H * 4);
	assert_non_null(rgba);
	uint64_t x = 0x9E3779B97F4A7C15u;
	for (int kind = 0; kind < 4; kind++) { // noise RGB, smooth RGB, smooth RGBA, few colours
		for (size_t i = 0; i < (size_t)W * H; i++) {
			size_t px = i % W, py = i / W;
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			for (int k = 0; k < 3; k++)
				rgba[4 * i + (size_t)k] = kind == 0   ? (uint8_t)(x >> (8 * k))
				                          : kind == 3 ? (uint8_t)((px / 50) * 20 + k)
				                                      : (uint8_t)((px * (size_t)(k + 1) + py) >> 2);
			rgba[4 * i + 3] = (uint8_t)(kind == 2 ? px + py : 255);
		}
		uint8_t *def, *first = NULL;
		size_t def_size, first_size = 0, parts = 0;
		gsio_error err;
		if (gsioi_png_encode(rgba, W, H, &def, &def_size, &err)) fail_msg("%s", err.message);
		for (int run = 0; run < 6; run++) {
			// Runs 1-4 in memory left dirty as test_png_dirty_state leaves it.
			static const uint16_t patterns[4] = {0x0000, 0xffff, 0xa5a5, 0x0002};
			const size_t block = gsioi_png_state_size();
			uint8_t *dirty[4], *guard = NULL;
			for (int k = 0; run >= 1 && run <= 4 && k < 4; k++) {
				assert_non_null(dirty[k] = malloc(block));
				for (size_t b = 0; b + 2 <= block; b += 2) memcpy(dirty[k] + b, &patterns[run - 1], 2);
			}
			if (run >= 1 && run <= 4) {
				assert_non_null(guard = malloc(64));
				for (int k = 0; k < 4; k++) {
					__asm__ volatile("" ::"r"(dirty[k]) : "memory");
					free(dirty[k]);
				}
			}
			gsioi_png_work *w;
			if (gsioi_png_begin(rgba, W, H, &w, &err)) fail_msg("%s", err.message);
			size_t size;
			uint8_t *png = compact_png(w, run % 2, &size, &parts);
			free(guard);
			if (!first) {
				first = png;
				first_size = size;
				continue;
			}
			if (size != first_size || memcmp(png, first, size))
				fail_msg("kind %d, run %d: other bytes (%zu, first %zu)", kind, run, size, first_size);
			free(png);
		}
		print_message("kind %d: %zu bands, default %zu -> compact %zu bytes\n", kind, parts, def_size, first_size);
		assert_int_equal(parts, kind == 0 ? 2 : 1);
		assert_memory_equal(first, def, 33);
		assert_true(first_size < def_size);
		assert_png_pixels(first, first_size, rgba, W, H);
		free(def);
		free(first);
	}
	// A small image (one band, sampled whole) and an indexed one.
	uint8_t px[4 * 6] = {1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 1, 2, 3, 255, 4, 5, 6, 255, 9, 9, 9, 255};
	gsioi_png_work *w;
	gsio_error err;
	size_t size, parts;
	if (gsioi_png_begin(px, 3, 2, &w, &err)) fail_msg("%s", err.message);
	uint8_t *png = compact_png(w, false, &size, &parts);
	assert_png_pixels(png, size, px, 3, 2);
	free(png);
	const uint8_t idx[6] = {0, 1, 2, 0, 1, 2}, pal[3 * 4] = {10, 20, 30, 255, 40, 50, 60, 128, 70, 80, 90, 255};
	if (gsioi_png_begin_indexed(idx, 3, 2, pal, 3, &w, &err)) fail_msg("%s", err.message);
	png = compact_png(w, false, &size, &parts);
	uint32_t dw, dh;
	uint8_t *got = decode_png(png, size, &dw, &dh);
	for (int i = 0; i < 6; i++) assert_memory_equal(got + 4 * i, pal + 4 * idx[i], 4);
	free(got);
	free(png);
	gsioi_png_plan_compact(NULL); // nothing
	free(rgba);
}

/** gsioi_png_encode_indexed: the palette as given (up to the highest index
 *  used), tRNS only for a translucent entry, indices outside refused. */
static void test_png_indexed(void **state)
{
	(void)state;
	enum { W = 5, H = 3 };
	const uint8_t pal[4 * 4] = {10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 0, 1, 2, 3, 255};
	uint8_t idx[W * H], expect[W * H * 4];
	uint8_t *png, *px;
	size_t size;
	uint32_t w, h;
	gsio_error err;
	for (int alpha = 0; alpha < 2; alpha++) {
		for (size_t i = 0; i < W * H; i++) {
			idx[i] = (uint8_t)(i % (alpha ? 3 : 2)); // entry 2 (alpha 0) only with alpha
			memcpy(expect + 4 * i, pal + 4 * idx[i], 4);
		}
		if (gsioi_png_encode_indexed(idx, W, H, pal, 4, &png, &size, &err)) fail_msg("%s", err.message);
		assert_int_equal(png[25], 3);
		assert_true(png_has_chunk(png, size, "PLTE"));
		assert_int_equal(png_has_chunk(png, size, "tRNS"), alpha);
		// PLTE right after IHDR: length 3 x (highest index + 1)
		assert_int_equal(png[33 + 3], alpha ? 9 : 6);
		px = decode_png(png, size, &w, &h);
		assert_int_equal(w, W);
		assert_int_equal(h, H);
		assert_memory_equal(px, expect, sizeof(expect));
		free(px);
		free(png);
	}
	idx[7] = 4; // outside a 4-entry palette
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 4, &png, &size, &err), 0);
	assert_null(png);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 0, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, W, H, pal, 257, &png, &size, &err), 0);
	assert_int_not_equal(gsioi_png_encode_indexed(idx, 0, H, pal, 4, &png, &size, &err), 0);
}

/** Checks every decoded image of a scene: its PNG (indexed when the scene
 *  kept the palette) decodes to its rgba. Returns the indexed ones. */
static size_t check_scene_pngs(const char *path, const gsio_scene *s)
{
	size_t indexed = 0;
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		if (!im->rgba) continue;
		uint8_t *png;
		size_t size;
		gsio_error err;
		int rc = im->indices ? gsioi_png_encode_indexed(im->indices, im->width, im->height,
		                                               im->palette, im->palette_count, &png,
		                                               &size, &err)
		                     : gsioi_png_encode(im->rgba, im->width, im->height, &png, &size, &err);
		if (rc) fail_msg("%s image %zu: %s", path, i, err.message);
		if (im->indices) assert_int_equal(png[25], 3);
		indexed += im->indices != NULL;
		uint32_t w, h;
		uint8_t *px = decode_png(png, size, &w, &h);
		assert_int_equal(w, im->width);
		assert_int_equal(h, im->height);
		if (memcmp(px, im->rgba, (size_t)w * h * 4))
			fail_msg("%s image %zu (colour type %d): decoded pixels differ", path, i, png[25]);
		free(px);
		free(png);
	}
	return indexed;
}

/** Every corpus skin and texture, and the 8-bit sample: the PNG the glTF
 *  writer makes is the same picture as rgba. The palettised ones (8-bit WAD
 *  lumps; skin type 0 in the sample) keep their indices. */
static void test_png_pixels_corpus(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = t_load_ok(GSIO_SOURCE_DIR "/samples/pal8.mdl", NULL);
	assert_non_null(s->images[0].indices);
	assert_int_equal(s->images[0].palette_count, 256);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	assert_int_equal(check_scene_pngs("pal8.mdl", s), 1);
	// The validator catches an index that disagrees with rgba.
	s->images[0].indices[5] ^= 1;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);

	static const char *const dirs[][2] = {
	    {"mdl", ".mdl"}, {"hmp", ".hmp"}, {"wmp", ".wmp"}, {"lottershock/Game/Assets", ".mdl"},
	    {"lottershock/Game/Level", ".mdl"}, {"lottershock/Game/Level", ".wmp"}};
	char **list;
	size_t n = t_corpus_files(dirs, sizeof(dirs) / sizeof(dirs[0]), &list), images = 0;
	for (size_t i = 0; i < n; i++) {
		s = gsio_load_file(list[i], NULL, &err);
		if (s) {
			assert_int_equal(gsio_scene_validate(s, &err), 0);
			check_scene_pngs(list[i], s);
			images += s->images_count;
			gsio_scene_free(s);
		}
	}
	t_free_list(list, n);
	// The WAD's 8-bit lumps, kept indexed as a level that uses them would.
	size_t wad_size, pal8 = 0;
	uint8_t *wad_bytes = t_read_file(t_corpus_path("lottershock/Game/Level/Texturset.wad"), &wad_size);
	assert_non_null(wad_bytes);
	gsio_wad_file *wad = gsio_wad_decode(wad_bytes, wad_size, "Texturset.wad", NULL, &err);
	if (!wad) fail_msg("%s", err.message);
	s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	for (size_t l = 0; l < wad->lumps_count; l++) {
		const uint8_t *src, *rgb;
		gsio_pixel_format fmt;
		if (!wad->lumps[l].width) continue;
		if (!gsioi_wad_lump_stored(wad, l, NULL, &fmt, &src, &rgb, &err)) fail_msg("%s", err.message);
		const uint8_t *indices = fmt == GSIO_PIXEL_PAL8 ? src : NULL;
		int32_t k = gsio_scene_add_image(s, wad->lumps[l].name, wad->lumps[l].width,
		                                 wad->lumps[l].height, NULL, &err);
		assert_true(k >= 0);
		gsio_image *im = &s->images[k];
		assert_true(gsioi_wad_lump_rgba(wad, l, NULL, im->rgba, &err));
		if (indices) assert_true(gsioi_image_keep_indices(s->arena, im, indices, rgb, &err));
		pal8 += indices != NULL;
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	assert_int_equal(check_scene_pngs("Texturset.wad", s), pal8);
	print_message("%zu corpus images and %zu 8-bit WAD lumps decode to their rgba\n", images, pal8);
	assert_true(pal8 >= 1);
	assert_true(images >= 20);
	gsio_scene_free(s);
	gsio_wad_file_free(wad);
	free(wad_bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_png_forms),
	    cmocka_unit_test(test_png_indexed),
	    cmocka_unit_test(test_png_strips),
	    cmocka_unit_test(test_png_parts),
	    cmocka_unit_test(test_png_stored),
	    cmocka_unit_test(test_png_deterministic),
	    cmocka_unit_test(test_png_dirty_state),
	    cmocka_unit_test(test_png_compact),
	    cmocka_unit_test(test_png_pixels_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
