/* Unit tests of the core's pixel formats and palettes: pixel sizes, decoding
 * 8-bit, 16-bit and 24/32-bit pixels, 565 and 4444 round trips, the default
 * palette and palette files (raw, malformed, the corpus's PCX). */
#include "test_util.h"

#include "gsioi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Pixel formats

static void test_pixel_sizes(void **state)
{
	(void)state;
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_PAL8), 1);
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_RGB565), 2);
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_ARGB4444), 2);
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_BGR888), 3);
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_BGRA8888), 4);
	assert_int_equal(gsio_pixel_size(GSIO_PIXEL_RGBA8888), 4);
	assert_int_equal(gsio_pixel_size((gsio_pixel_format)1), 0);
	assert_int_equal(gsio_pixel_size((gsio_pixel_format)7), 0);
}

static void test_decode_pal8(void **state)
{
	(void)state;
	const uint8_t idx[4] = {0, 16 + 5 * 36, 16 + 5, 255};
	uint8_t out[16];
	// Built-in palette: 0 black, the cube's pure red and pure blue, the last grey.
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_PAL8, idx, 4, NULL, out), 0);
	t_assert_pixels(out, (const uint8_t[]){0, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255}, 3);
	const uint8_t *def = gsio_default_palette();
	t_assert_px(out + 12, def[765], def[766], def[767], 255);
	// A custom palette is used instead, index 0 stays opaque.
	uint8_t pal[768];
	for (unsigned i = 0; i < 256; i++) {
		pal[3 * i] = (uint8_t)i;
		pal[3 * i + 1] = (uint8_t)(255 - i);
		pal[3 * i + 2] = (uint8_t)(i * 7);
	}
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_PAL8, idx, 4, pal, out), 0);
	t_assert_pixels(out, (const uint8_t[]){0, 255, 0, 255, 196, 59, (196 * 7) & 255, 255,
	                                       21, 234, (21 * 7) & 255, 255,
	                                       255, 0, (255 * 7) & 255, 255}, 4);
	// Encoding with that palette finds the exact index of each of its colours.
	for (unsigned i = 0; i < 256; i++) {
		uint8_t rgba[4] = {pal[3 * i], pal[3 * i + 1], pal[3 * i + 2], 255}, code = 0;
		assert_int_equal(gsio_encode_pixels(GSIO_PIXEL_PAL8, rgba, 1, pal, &code), 0);
		assert_int_equal(code, i);
	}
}

/* n 16-bit pixels stored little-endian, as the files hold them. */
static void put_le16(uint8_t *dst, const uint16_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		dst[2 * i] = (uint8_t)v[i];
		dst[2 * i + 1] = (uint8_t)(v[i] >> 8);
	}
}

static void test_decode_rgb565(void **state)
{
	(void)state;
	// Seed: red is 0xF800. Stored little-endian.
	const uint16_t v[6] = {0xF800, 0x07E0, 0x001F, 0xFFFF, 0x0000, 0x8410};
	uint8_t src[12], out[24];
	put_le16(src, v, 6);
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, src, 6, NULL, out), 0);
	t_assert_pixels(out, (const uint8_t[]){255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
	                                       255, 255, 255, 255, 0, 0, 0, 255}, 5);
	// Bit replication: 5-bit 0x10 -> 0x84 (not 0x80), 6-bit 0x20 -> 0x82.
	t_assert_px(out + 20, 0x84, 0x82, 0x84, 255);
	// 0x1F -> 255 for every 5-bit code position, and 0x3F -> 255 for green.
	const uint8_t one[2] = {0x1F, 0x00};
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, one, 1, NULL, out), 0);
	t_assert_px(out, 0, 0, 255, 255);
}

static void test_decode_argb4444(void **state)
{
	(void)state;
	// Seed: red is 0xFF00: alpha in the top nibble, then red.
	const uint16_t v[5] = {0xFF00, 0x0F00, 0xF0F0, 0x8421, 0xF00F};
	uint8_t src[10], out[20];
	put_le16(src, v, 5);
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_ARGB4444, src, 5, NULL, out), 0);
	t_assert_pixels(out, (const uint8_t[]){255, 0, 0, 255, 255, 0, 0, 0, 0, 255, 0, 255,
	                                       0x44, 0x22, 0x11, 0x88, 0, 0, 255, 255}, 5);
}

static void test_decode_bgr_bgra(void **state)
{
	(void)state;
	const uint8_t bgr[6] = {10, 20, 30, 255, 0, 0};
	uint8_t out[8];
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_BGR888, bgr, 2, NULL, out), 0);
	t_assert_px(out, 30, 20, 10, 255);
	t_assert_px(out + 4, 0, 0, 255, 255); // blue first in the file
	const uint8_t bgra[8] = {10, 20, 30, 40, 0, 0, 255, 128};
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_BGRA8888, bgra, 2, NULL, out), 0);
	t_assert_px(out, 30, 20, 10, 40);
	t_assert_px(out + 4, 255, 0, 0, 128);
	// Encoding goes back to the same bytes.
	uint8_t back[8];
	assert_int_equal(gsio_encode_pixels(GSIO_PIXEL_BGRA8888, out, 2, NULL, back), 0);
	assert_memory_equal(back, bgra, 8);
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_BGR888, bgr, 2, NULL, out), 0);
	assert_int_equal(gsio_encode_pixels(GSIO_PIXEL_BGR888, out, 2, NULL, back), 0);
	assert_memory_equal(back, bgr, 6);
	// Unknown formats are refused both ways.
	assert_int_equal(gsio_decode_pixels((gsio_pixel_format)1, bgr, 1, NULL, out), -1);
	assert_int_equal(gsio_encode_pixels((gsio_pixel_format)7, out, 1, NULL, back), -1);
}

static void roundtrip_16bit(gsio_pixel_format fmt)
{
	uint8_t *src = malloc(65536 * 2), *rgba = malloc(65536 * 4), *back = malloc(65536 * 2);
	assert_non_null(src);
	assert_non_null(rgba);
	assert_non_null(back);
	for (unsigned v = 0; v < 65536; v++) {
		src[2 * v] = (uint8_t)v;
		src[2 * v + 1] = (uint8_t)(v >> 8);
	}
	assert_int_equal(gsio_decode_pixels(fmt, src, 65536, NULL, rgba), 0);
	assert_int_equal(gsio_encode_pixels(fmt, rgba, 65536, NULL, back), 0);
	size_t bad = 0;
	for (unsigned v = 0; v < 65536; v++)
		if (gsioi_le16(back + 2 * v) != v) bad++;
	free(src);
	free(rgba);
	free(back);
	if (bad) fail_msg("%zu of 65536 values of format %d do not survive decode+encode", bad, fmt);
}

/* Every 565 value decodes to the bit-replicated channels and alpha 255,
 * in a long run (the SSE2 path, eight at a time) and one by one and in
 * runs of 1..15 starting anywhere (the scalar tail). */
static void test_565_exact(void **state)
{
	(void)state;
	uint8_t *src = malloc(65536 * 2), *rgba = malloc(65536 * 4);
	assert_non_null(src);
	assert_non_null(rgba);
	for (unsigned v = 0; v < 65536; v++) {
		src[2 * v] = (uint8_t)v;
		src[2 * v + 1] = (uint8_t)(v >> 8);
	}
	for (int pass = 0; pass < 2; pass++) {
		memset(rgba, 0x5a, 65536 * 4);
		if (pass == 0) {
			assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, src, 65536, NULL, rgba), 0);
		} else {
			for (size_t at = 0, n = 1; at < 65536; at += n, n = n % 15 + 1) {
				size_t k = at + n > 65536 ? 65536 - at : n;
				assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, src + 2 * at, k, NULL, rgba + 4 * at), 0);
			}
		}
		for (unsigned v = 0; v < 65536; v++) {
			unsigned r = v >> 11, g = (v >> 5) & 63, b = v & 31;
			const uint8_t want[4] = {(uint8_t)(r << 3 | r >> 2), (uint8_t)(g << 2 | g >> 4),
			                         (uint8_t)(b << 3 | b >> 2), 255};
			if (memcmp(rgba + 4 * v, want, 4))
				fail_msg("565 value 0x%04x, pass %d: %u %u %u %u", v, pass, rgba[4 * v],
				         rgba[4 * v + 1], rgba[4 * v + 2], rgba[4 * v + 3]);
		}
	}
	free(src);
	free(rgba);
}

static void test_roundtrip_565_4444(void **state)
{
	(void)state;
	roundtrip_16bit(GSIO_PIXEL_RGB565);
	roundtrip_16bit(GSIO_PIXEL_ARGB4444);
}

// -- Palettes

static void test_default_palette(void **state)
{
	(void)state;
	const uint8_t *p = gsio_default_palette();
	assert_non_null(p);
	assert_ptr_equal(p, gsio_default_palette());
	assert_int_equal(p[0] | p[1] | p[2], 0); // index 0 is black
	// 16..231: the 6x6x6 cube, red slowest.
	for (unsigned i = 0; i < 216; i++) {
		const uint8_t *c = p + 3 * (16 + i);
		assert_int_equal(c[0], (i / 36) * 51);
		assert_int_equal(c[1], ((i / 6) % 6) * 51);
		assert_int_equal(c[2], (i % 6) * 51);
	}
	// The rest are greys that rise with the index within each ramp.
	for (unsigned i = 1; i < 256; i++) {
		if (i >= 16 && i < 232) continue;
		const uint8_t *c = p + 3 * i;
		assert_true(c[0] == c[1] && c[1] == c[2]);
		if (i != 232) assert_true(c[0] > c[-3]);
	}
	// Every palette colour encodes to an index of the same colour.
	for (unsigned i = 0; i < 256; i++) {
		uint8_t rgba[4] = {p[3 * i], p[3 * i + 1], p[3 * i + 2], 255}, code, out[4];
		assert_int_equal(gsio_encode_pixels(GSIO_PIXEL_PAL8, rgba, 1, NULL, &code), 0);
		assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_PAL8, &code, 1, NULL, out), 0);
		assert_memory_equal(out, rgba, 4);
	}
}

static void test_palette_raw(void **state)
{
	(void)state;
	uint8_t raw[768], out[768];
	for (unsigned i = 0; i < 768; i++) raw[i] = (uint8_t)(i * 31 + 7);
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_from_memory(raw, 768, out, &err), 0);
	assert_memory_equal(out, raw, 768);
	assert_int_equal(err.code, GSIO_OK);
	// Through a file, too.
	char path[256];
	snprintf(path, sizeof(path), "%s/test_core_palette.raw", GSIO_BINARY_DIR);
	t_write_file(path, raw, 768);
	memset(out, 0, sizeof(out));
	assert_int_equal(gsio_palette_load(path, out, &err), 0);
	assert_memory_equal(out, raw, 768);
	remove(path);
}

static void test_palette_malformed(void **state)
{
	(void)state;
	uint8_t junk[1000], out[768];
	memset(junk, 0x55, sizeof(junk));
	gsio_error err;
	// Too short for anything, one byte off a .raw, one byte over.
	const size_t sizes[] = {0, 1, 767, 769, 1000};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		gsio_error_clear(&err);
		assert_int_equal(gsio_palette_from_memory(junk, sizes[i], out, &err), -1);
		assert_int_equal(err.code, GSIO_ERR_BAD_MAGIC);
	}
	// A PCX-looking file without the 0x0C marker is corrupt, at the marker's offset.
	junk[0] = 0x0A;
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_from_memory(junk, sizeof(junk), out, &err), -1);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, 1000 - 769);
	// A missing file is an I/O error naming it.
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_load("/nonexistent/gsio/palette.pcx", out, &err), -1);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.file, "palette.pcx"));
}

static void test_palette_pcx_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *path = t_corpus_path("wmp/palette.pcx");
	size_t size = 0;
	uint8_t *data = t_read_file(path, &size);
	assert_true(size > 769);
	assert_int_equal(data[0], 0x0A);
	assert_int_equal(data[size - 769], 0x0C);
	uint8_t out[768];
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_load(path, out, &err), 0);
	assert_memory_equal(out, data + size - 768, 768);
	// The palette of this file starts with a grey ramp: 00 00 00, 0f 0f 0f, 1f 1f 1f.
	assert_int_equal(out[0], 0);
	assert_int_equal(out[3], 0x0f);
	assert_int_equal(out[6], 0x1f);
	// The marker is what makes it a palette: remove it and it is an error.
	uint8_t *copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, data, size);
	copy[size - 769] = 0x00;
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_from_memory(copy, size, out, &err), -1);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, (int64_t)(size - 769));
	// Cut one byte off the end: the marker is no longer 769 bytes from the end.
	memcpy(copy, data, size);
	gsio_error_clear(&err);
	assert_int_equal(gsio_palette_from_memory(copy, size - 1, out, &err), -1);
	assert_int_not_equal(err.code, GSIO_OK);
	free(copy);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pixel_sizes),
	    cmocka_unit_test(test_decode_pal8),
	    cmocka_unit_test(test_decode_rgb565),
	    cmocka_unit_test(test_decode_argb4444),
	    cmocka_unit_test(test_decode_bgr_bgra),
	    cmocka_unit_test(test_roundtrip_565_4444),
	    cmocka_unit_test(test_565_exact),
	    cmocka_unit_test(test_default_palette),
	    cmocka_unit_test(test_palette_raw),
	    cmocka_unit_test(test_palette_malformed),
	    cmocka_unit_test(test_palette_pcx_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
