/* Unit tests of the core: bounded reader, size math, pixel formats, palettes,
 * arena, error formatting and the normal table. */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Bounded reader

static void test_reader_exact_end(void **state)
{
	(void)state;
	const uint8_t data[11] = {1, 0, 0, 0, 0x00, 0x00, 0x80, 0x3f, 0xfe, 0xff, 0x7f};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), "x.bin", &err);
	int32_t i = 0;
	float f = 0;
	int16_t s = 0;
	uint8_t b = 0;
	assert_true(gsioi_read_i32(&r, &i, "an int"));
	assert_int_equal(i, 1);
	assert_true(gsioi_read_f32(&r, &f, "a float"));
	assert_true(f == 1.0f);
	assert_true(gsioi_read_i16(&r, &s, "a short"));
	assert_int_equal(s, -2);
	assert_int_equal(gsioi_reader_remaining(&r), 1);
	assert_true(gsioi_read_u8(&r, &b, "the last byte"));
	assert_int_equal(b, 0x7f);
	// Exactly at the end: zero more bytes are still available.
	assert_int_equal(gsioi_reader_remaining(&r), 0);
	assert_non_null(gsioi_read_bytes(&r, 0, "nothing"));
	assert_int_equal(err.code, GSIO_OK);
	assert_false(r.failed);
}

static void test_reader_one_past_end(void **state)
{
	(void)state;
	const uint8_t data[6] = {1, 2, 3, 4, 5, 6};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), "y.bin", &err);
	uint32_t u = 0;
	uint16_t w = 0;
	assert_true(gsioi_read_u32(&r, &u, "a word"));
	assert_int_equal(u, 0x04030201u);
	// 2 bytes remain; a 4-byte read fails at offset 4 and consumes nothing.
	assert_false(gsioi_read_u32(&r, &u, "a second word"));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	assert_int_equal(err.offset, 4);
	assert_string_equal(err.file, "y.bin");
	assert_non_null(strstr(err.message, "a second word"));
	assert_int_equal(r.pos, 4);
	// Later reads keep failing, even ones that would fit, and the first error stays.
	assert_false(gsioi_read_u16(&r, &w, "a short that would fit"));
	assert_null(gsioi_read_bytes(&r, 0, "nothing"));
	assert_false(gsioi_reader_need(&r, 0, "nothing"));
	assert_int_equal(err.offset, 4);
	assert_non_null(strstr(err.message, "a second word"));
}

static void test_reader_huge_need(void **state)
{
	(void)state;
	const uint8_t data[3] = {0};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), NULL, &err);
	uint8_t b;
	assert_true(gsioi_read_u8(&r, &b, "a byte"));
	// SIZE_MAX must not wrap around pos + n.
	assert_null(gsioi_read_bytes(&r, SIZE_MAX, "everything"));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	assert_int_equal(err.offset, 1);
	assert_string_equal(err.file, "");
}

static void test_reader_each_width_at_end(void **state)
{
	(void)state;
	// For every read width, a buffer one byte short fails at offset 0.
	const uint8_t data[4] = {0xaa, 0xbb, 0xcc, 0xdd};
	for (size_t n = 1; n <= 4; n++) {
		gsio_error err;
		gsio_error_clear(&err);
		gsioi_reader r = gsioi_reader_make(data, n - 1, "z", &err);
		bool ok;
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		if (n == 1) ok = gsioi_read_u8(&r, &u8, "u8");
		else if (n == 2) ok = gsioi_read_u16(&r, &u16, "u16");
		else if (n == 3) ok = gsioi_read_bytes(&r, 3, "3 bytes") != NULL;
		else ok = gsioi_read_u32(&r, &u32, "u32");
		assert_false(ok);
		assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
		assert_int_equal(err.offset, 0);
	}
}

// -- Size math

static void test_overflow_helpers(void **state)
{
	(void)state;
	size_t out = 0;
	assert_true(gsioi_mul_size(SIZE_MAX, 1, &out));
	assert_true(out == SIZE_MAX);
	assert_true(gsioi_mul_size(0, SIZE_MAX, &out));
	assert_true(out == 0);
	assert_true(gsioi_mul_size(SIZE_MAX, 0, &out));
	assert_true(out == 0);
	assert_false(gsioi_mul_size(SIZE_MAX, 2, &out));
	assert_false(gsioi_mul_size(SIZE_MAX / 2 + 1, 2, &out));
	assert_true(gsioi_mul_size(SIZE_MAX / 2, 2, &out));
	assert_true(out == SIZE_MAX - 1);
	size_t root = (size_t)1 << (sizeof(size_t) * 4);
	assert_false(gsioi_mul_size(root, root, &out));
	assert_true(gsioi_mul_size(root - 1, root + 1, &out));
	assert_true(out == SIZE_MAX);

	assert_true(gsioi_add_size(SIZE_MAX, 0, &out));
	assert_true(out == SIZE_MAX);
	assert_true(gsioi_add_size(SIZE_MAX - 1, 1, &out));
	assert_true(out == SIZE_MAX);
	assert_false(gsioi_add_size(SIZE_MAX, 1, &out));
	assert_false(gsioi_add_size(1, SIZE_MAX, &out));
	assert_false(gsioi_add_size(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, &out));

	assert_true(gsioi_mul3_size(1000, 1000, 1000, &out));
	assert_true(out == 1000000000u);
	assert_false(gsioi_mul3_size(SIZE_MAX / 3 + 1, 1, 3, &out));
	assert_false(gsioi_mul3_size(root, 1, root, &out));
	assert_true(gsioi_mul3_size(root, 0, root, &out));
	assert_true(out == 0);
}

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

// -- Arena

/* gsioi_packed_bounds against a record-by-record reference, for byte and
 * word records, every tail length the vector loops leave, all vertices and a
 * subset, with and without the copy made in the same pass: the box, the count
 * of bad normal indices and every copied byte. */
/* The name index: every key found with its first value, case folded only
 * when asked, absent keys absent, through many growths; out of memory is
 * an error, not a crash. */
static void test_names_index(void **state)
{
	(void)state;
	gsio_error err;
	gsio_error_clear(&err);
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	enum { N = 5000 };
	static char keys[N][16];
	gsioi_names exact, folded;
	gsioi_names_init(&exact, a, false);
	gsioi_names_init(&folded, a, true);
	assert_int_equal(gsioi_names_find(&exact, "Tex0"), -1); // empty
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "Tex%d", i);
		assert_true(gsioi_names_add(&exact, keys[i], (uint32_t)i, &err));
		assert_true(gsioi_names_add(&folded, keys[i], (uint32_t)i, &err));
		// Added again with another value: the first one stays.
		assert_true(gsioi_names_add(&exact, keys[i], 7u, &err));
	}
	assert_int_equal(exact.count, N);
	assert_true(exact.cap >= 2 * exact.count);
	for (int i = 0; i < N; i++) {
		char up[16], other[16];
		snprintf(up, sizeof(up), "TEX%d", i);
		snprintf(other, sizeof(other), "Tex%d", N + i);
		assert_int_equal(gsioi_names_find(&exact, keys[i]), i);
		assert_int_equal(gsioi_names_find(&folded, up), i);
		assert_int_equal(gsioi_names_find(&exact, up), -1);
		assert_int_equal(gsioi_names_find(&folded, other), -1);
	}
	// set: a value replaced (the key kept), a new key added.
	assert_true(gsioi_names_set(&folded, "TEX17", 99u, &err));
	assert_int_equal(gsioi_names_find(&folded, "tex17"), 99);
	assert_int_equal(folded.count, N);
	assert_true(gsioi_names_set(&folded, "fresh", 5u, &err));
	assert_int_equal(gsioi_names_find(&folded, "FRESH"), 5);
	assert_int_equal(folded.count, N + 1);
	// Only ASCII letters fold: bytes over 0x7F and punctuation do not.
	gsioi_names odd;
	gsioi_names_init(&odd, a, true);
	assert_true(gsioi_names_add(&odd, "a\xc4[", 1, &err));
	assert_int_equal(gsioi_names_find(&odd, "A\xc4["), 1);
	assert_int_equal(gsioi_names_find(&odd, "a\xe4["), -1);
	assert_int_equal(gsioi_names_find(&odd, "a\xc4{"), -1);
	assert_int_equal(gsioi_names_find(&odd, "a\xc4"), -1);
	assert_int_equal(gsioi_names_find(&odd, ""), -1);
	gsioi_arena_destroy(a);
	// A limit reached while growing: false with the error, the index as it was.
	a = gsioi_arena_create(NULL, 4096);
	assert_non_null(a);
	gsioi_names small;
	gsioi_names_init(&small, a, false);
	gsio_error_clear(&err);
	bool ok = true;
	int added = 0;
	for (; added < N && ok; added++) ok = gsioi_names_add(&small, keys[added], (uint32_t)added, &err);
	assert_false(ok);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	for (int i = 0; i + 1 < added; i++) assert_int_equal(gsioi_names_find(&small, keys[i]), i);
	gsioi_arena_destroy(a);
}

static void test_packed_bounds_copy(void **state)
{
	(void)state;
	uint32_t seed = 12345;
	for (uint32_t cs = 1; cs <= 2; cs++) {
		gsio_packed_format pf;
		memset(&pf, 0, sizeof(pf));
		pf.coord_size = cs;
		pf.vertex_stride = 4 * cs;
		pf.normal_offset = 3 * cs;
		pf.normal_table = gsio_anorms;
		pf.normal_count = GSIO_NORMAL_COUNT;
		for (int k = 0; k < 3; k++) {
			pf.scale[k] = 0.25f * (float)(k + 1) * (k == 1 ? -1.0f : 1.0f);
			pf.offset[k] = (float)k - 7.5f;
		}
		for (size_t step = 0; step <= 40; step++) {
			size_t n = step < 40 ? step + 1 : 1001;
			pf.source_count = n;
			size_t bytes = n * pf.vertex_stride;
			uint8_t *data = malloc(bytes), *copy = malloc(bytes + 1);
			uint32_t *used = malloc(n * sizeof(*used));
			assert_true(data && copy && used);
			for (size_t i = 0; i < bytes; i++) {
				seed = seed * 1664525u + 1013904223u;
				data[i] = (uint8_t)(seed >> 24);
			}
			for (size_t v = 0; v < n; v++) // mostly valid normals, a few not
				data[v * pf.vertex_stride + pf.normal_offset] %= (v % 7 == 3) ? 255 : GSIO_NORMAL_COUNT;
			size_t nused = 0;
			for (size_t v = 0; v < n; v += 1 + v % 3) used[nused++] = (uint32_t)v;
			for (int subset = 0; subset < 2; subset++) {
				size_t m = subset ? nused : n;
				unsigned lo[3] = {65535, 65535, 65535}, hi[3] = {0, 0, 0};
				size_t want_bad = 0;
				for (size_t i = 0; i < m; i++) {
					const uint8_t *r = data + (subset ? used[i] : i) * pf.vertex_stride;
					for (int k = 0; k < 3; k++) {
						unsigned c = cs == 1 ? r[k] : (unsigned)(r[2 * k] | r[2 * k + 1] << 8);
						lo[k] = c < lo[k] ? c : lo[k];
						hi[k] = c > hi[k] ? c : hi[k];
					}
					want_bad += r[pf.normal_offset] >= GSIO_NORMAL_COUNT;
				}
				for (int with_copy = 0; with_copy < 2; with_copy++) {
					float mn[3], mx[3];
					size_t bad = 0;
					memset(copy, 0xEE, bytes + 1);
					gsioi_packed_bounds(&pf, data, subset ? used : NULL, m, with_copy ? copy : NULL,
					                    mn, mx, &bad);
					assert_int_equal(bad, want_bad);
					for (int k = 0; k < 3; k++) {
						float a = pf.scale[k] * (float)lo[k] + pf.offset[k];
						float b = pf.scale[k] * (float)hi[k] + pf.offset[k];
						assert_true(mn[k] == (a < b ? a : b));
						assert_true(mx[k] == (a < b ? b : a));
					}
					if (with_copy) assert_memory_equal(copy, data, bytes);
					assert_int_equal(copy[bytes], 0xEE); // not one byte past the frame
				}
			}
			free(data);
			free(copy);
			free(used);
		}
	}
}

static void test_arena_basics(void **state)
{
	(void)state;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	uint8_t *z = gsioi_arena_alloc(a, 0, &err);
	assert_non_null(z);
	for (size_t n = 1; n < 300000; n = n * 3 + 1) {
		uint8_t *p = gsioi_arena_alloc(a, n, &err);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (size_t i = 0; i < n; i++) assert_int_equal(p[i], 0);
		memset(p, 0xab, n);
	}
	assert_true(gsioi_arena_used(a) > 300000);
	char *s = gsioi_arena_strndup(a, "abcdef", 3, &err);
	assert_string_equal(s, "abc");
	assert_string_equal(gsioi_arena_strdup(a, "walk3", &err), "walk3");
	// An overflowing array is a limit error, not a wrapped small block.
	assert_null(gsioi_arena_array(a, SIZE_MAX / 2, 3, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsioi_arena_destroy(a);
	gsioi_arena_destroy(NULL);
}

/* A block that does not fit the head chunk starts a new one; a later block
 * that fits the rest of an earlier chunk goes there instead of into a new
 * chunk (the scene of corridor_02_short_door.mdl: 134 KB of chunks for 68
 * KB without it). Chunks of 4, 8 and 16 KB (a block over half the next
 * chunk's size would get a chunk of its own): 1500, 3000 and 5500 bytes
 * start one each, 10000 fill the third; 2500 then fit only the second. */
static void test_arena_fills_earlier_chunks(void **state)
{
	(void)state;
	t_fail_alloc st = {0}; // counts the blocks the arena obtains, fails none
	gsio_allocator al = t_fail_allocator(&st);
	gsio_arena *a = gsioi_arena_create(&al, 0);
	assert_non_null(a);
	gsio_error err;
	static const size_t sizes[5] = {1500, 3000, 5500, 10000, 2500};
	static const size_t obtained[5] = {2, 3, 4, 4, 4}; // the arena itself, then chunks
	uint8_t *p[5];
	for (int i = 0; i < 5; i++) {
		p[i] = gsioi_arena_alloc_uninit(a, sizes[i], &err);
		assert_non_null(p[i]);
		memset(p[i], 'a' + i, sizes[i]);
		assert_int_equal(st.calls, obtained[i]);
	}
	for (int i = 0; i < 5; i++)
		for (size_t k = 0; k < sizes[i]; k += 499) assert_int_equal(p[i][k], 'a' + i);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
}

/* gsioi_weld on two layouts of the same corners (16-bit keys in a record
 * of vertex and uv keys, as MDL2-5 stores them; 32-bit keys in arrays of
 * their own, as MDL7's corners): one output vertex per distinct (vertex,
 * uv) pair, numbered in corner order, against a brute-force welding,
 * leaving nothing in the caller's arena; a key out of range is an error. */
static void test_weld(void **state)
{
	(void)state;
	enum { NT = 300, NC = 3 * NT, NV = 40, NUV = 25 };
	typedef struct rec16 {
		uint16_t v[3], uv[3];
	} rec16;
	rec16 *r = malloc(NT * sizeof(*r));
	uint32_t *cv = malloc(NC * sizeof(*cv)), *cuv = malloc(NC * sizeof(*cuv));
	uint32_t *a = malloc(NC * sizeof(*a)), *b = malloc(NC * sizeof(*b)), *want = malloc(NC * sizeof(*want));
	uint32_t *pv = malloc(NC * sizeof(*pv)), *puv = malloc(NC * sizeof(*puv));
	assert_true(r && cv && cuv && a && b && want && pv && puv);
	uint32_t seed = 7;
	for (size_t c = 0; c < NC; c++) {
		seed = seed * 1103515245u + 12345u;
		cv[c] = (seed >> 8) % NV;
		cuv[c] = (seed >> 20) % (c < NC / 2 ? 3 : NUV); // many repeats, then fewer
		r[c / 3].v[c % 3] = (uint16_t)cv[c];
		r[c / 3].uv[c % 3] = (uint16_t)cuv[c];
	}
	// Brute force: pairs in order of first corner.
	size_t nwant = 0;
	for (size_t c = 0; c < NC; c++) {
		size_t o = 0;
		while (o < nwant && !(pv[o] == cv[c] && puv[o] == cuv[c])) o++;
		if (o == nwant) pv[nwant] = cv[c], puv[nwant] = cuv[c], nwant++;
		want[c] = (uint32_t)o;
	}
	gsio_error err;
	gsio_arena *tmp = gsioi_arena_create(NULL, 0);
	assert_non_null(tmp);
	size_t na = 0, nb = 0;
	gsioi_corner_keys v16 = {r->v, sizeof(*r), 2}, uv16 = {r->uv, sizeof(*r), 2};
	gsioi_corner_keys v32 = {cv, 3 * sizeof(*cv), 4}, uv32 = {cuv, 3 * sizeof(*cuv), 4};
	assert_true(gsioi_weld(v16, uv16, NC, NV, NUV, a, &na, tmp, &err));
	assert_true(gsioi_weld(v32, uv32, NC, NV, NUV, b, &nb, tmp, &err));
	assert_true(nwant > NUV && nwant < NC); // both welded and split corners
	assert_int_equal(na, nwant);
	assert_int_equal(nb, nwant);
	assert_memory_equal(a, want, NC * sizeof(*a));
	assert_memory_equal(b, want, NC * sizeof(*b));
	// Its tables are its own, freed before it returns: nothing is left in
	// the caller's arena.
	assert_int_equal(gsioi_arena_used(tmp), 0);
	// A key out of range (the last corner's uv, then a vertex).
	cuv[NC - 1] = NUV;
	assert_false(gsioi_weld(v32, uv32, NC, NV, NUV, b, &nb, tmp, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	r[5].v[1] = NV;
	assert_false(gsioi_weld(v16, uv16, NC, NV, NUV, a, &na, tmp, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	// No corners: no vertices.
	assert_true(gsioi_weld(v16, uv16, 0, 0, 0, a, &na, tmp, &err));
	assert_int_equal(na, 0);
	gsioi_arena_destroy(tmp);
	free(r);
	free(cv);
	free(cuv);
	free(a);
	free(b);
	free(want);
	free(pv);
	free(puv);
}

/* A big block of the default allocator is advised onto 2 MiB pages where
 * the kernel offers them on request (THP "madvise" or "always"): after
 * touching a 4 MiB block, /proc/self/smaps shows its first 4 MiB in huge
 * pages: the chunk starts on a huge page and is advised before its header
 * is written (malloc's own placement, 16 bytes into a page, gave at most
 * 2 MiB of it). Skipped where the kernel has no THP or it is "never". */
static void test_arena_huge_pages(void **state)
{
	(void)state;
	char mode[128];
	if (!t_thp_on(mode, sizeof(mode))) {
		print_message("skipped: transparent huge pages are off (%s)\n", mode[0] ? mode : "no THP");
		skip();
	}
	FILE *f;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	const size_t n = (size_t)4 << 20;
	uint8_t *p = gsioi_arena_alloc(a, n, &err);
	assert_non_null(p);
	memset(p, 1, n);
	// AnonHugePages of the smaps entries over the block (the advice splits
	// its mapping in three).
	f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	char line[512];
	bool inside = false;
	long huge_kb = 0, kb;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			inside = lo < (uintptr_t)p + n && hi > (uintptr_t)p;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) huge_kb += kb;
	}
	fclose(f);
	gsioi_arena_destroy(a);
	print_message("4 MiB block: %ld kB in huge pages\n", huge_kb);
#ifdef T_SANITIZED
	// AddressSanitizer's malloc writes the block's first 4 KiB before the
	// advice: its first 2 MiB stay in small pages.
	assert_true(huge_kb >= 2048);
#else
	assert_true(huge_kb >= 4096);
#endif
}

static void test_arena_limit(void **state)
{
	(void)state;
	t_fail_alloc st = {0};
	gsio_allocator al = t_fail_allocator(&st);
	gsio_arena *a = gsioi_arena_create(&al, 1000);
	assert_non_null(a);
	gsio_error err;
	gsio_error_clear(&err);
	assert_non_null(gsioi_arena_alloc(a, 600, &err));
	assert_int_equal(err.code, GSIO_OK);
	assert_null(gsioi_arena_alloc(a, 600, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	// What fits still fits after a refusal (608 handed out, 16-aligned: 384 more fit).
	gsio_error_clear(&err);
	assert_non_null(gsioi_arena_alloc(a, 384, &err));
	assert_null(gsioi_arena_alloc(a, 1, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	assert_null(gsioi_arena_alloc(a, SIZE_MAX, &err));
	assert_true(gsioi_arena_used(a) <= 1000);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
	// A limit far below a request refuses it at once.
	a = gsioi_arena_create(&al, 16);
	gsio_error_clear(&err);
	assert_null(gsioi_arena_array(a, 100, 100, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsioi_arena_destroy(a);
	assert_int_equal(st.live, 0);
}

/* gsioi_arena_append: one list appended to key after key grows in place
 * (room doubled when full), so n elements cost at most about 2n of room,
 * not n^2 / 2; a list that shares that array but has another count (a copy
 * of the struct taken before an append), or an array made elsewhere, is
 * copied and the first list's elements are never overwritten. Through the
 * public extras calls: 100 keys on the scene-wide list hold under 3 times
 * the elements' bytes (copying each time held 50 times). */
static void test_arena_append(void **state)
{
	(void)state;
	gsio_error err;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	int *xs = NULL;
	size_t n = 0;
	for (int v = 0; v < 100; v++) {
		int *g = gsioi_arena_append(a, xs, n, sizeof(int), &err);
		assert_non_null(g);
		assert_true(g == xs || n == 0 || n == 4 || n == 8 || n == 16 || n == 32 || n == 64);
		xs = g;
		xs[n++] = v;
	}
	for (int v = 0; v < 100; v++) assert_int_equal(xs[v], v);
	assert_true(gsioi_arena_used(a) <= 2 * 128 * sizeof(int) + 64);
	// A copy of the list (same array, same count) appended to first, then
	// the original: the original is copied, the copy's element stays.
	int *copy = xs;
	size_t copy_n = n;
	int *g = gsioi_arena_append(a, copy, copy_n, sizeof(int), &err);
	assert_ptr_equal(g, xs); // 100 of room 128: in place
	g[copy_n++] = 1000;
	int *h = gsioi_arena_append(a, xs, n, sizeof(int), &err);
	assert_non_null(h);
	assert_ptr_not_equal(h, xs);
	h[n++] = 2000;
	assert_int_equal(copy[100], 1000);
	assert_int_equal(h[100], 2000);
	for (int v = 0; v < 100; v++) assert_int_equal(h[v], v);
	// An array made elsewhere is copied.
	int mine[3] = {7, 8, 9};
	int *m = gsioi_arena_append(a, mine, 3, sizeof(int), &err);
	assert_ptr_not_equal(m, mine);
	assert_memory_equal(m, mine, sizeof(mine));
	gsioi_arena_destroy(a);

	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	size_t before = gsioi_arena_used(s->arena);
	char key[32];
	for (int v = 0; v < 100; v++) {
		snprintf(key, sizeof(key), "k%d", v);
		assert_int_equal(gsio_extras_set_int(s, &s->extras, key, v, &err), 0);
	}
	// A key set again changes its value in place.
	assert_int_equal(gsio_extras_set_string(s, &s->extras, "k7", "seven", &err), 0);
	assert_int_equal(s->extras.count, 100);
	for (int v = 0; v < 100; v++) {
		snprintf(key, sizeof(key), "k%d", v);
		const gsio_extra *e = gsio_extras_get(&s->extras, key);
		assert_non_null(e);
		if (v == 7) {
			assert_int_equal(e->type, GSIO_EXTRA_STRING);
			assert_string_equal(e->s, "seven");
		} else {
			assert_int_equal(e->type, GSIO_EXTRA_INT);
			assert_int_equal(e->i, v);
			assert_null(e->s);
		}
	}
	size_t held = gsioi_arena_used(s->arena) - before;
	print_message("100 extras: %zu bytes of arena, %zu of elements\n", held, 100 * sizeof(gsio_extra));
	assert_true(held < 3 * 100 * sizeof(gsio_extra));
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
}

static void test_arena_alloc_failure(void **state)
{
	(void)state;
	// Failing the arena's own block: no arena.
	t_fail_alloc st = {.fail_at = 1};
	gsio_allocator al = t_fail_allocator(&st);
	assert_null(gsioi_arena_create(&al, 0));
	assert_int_equal(st.live, 0);
	// Failing the k-th chunk: GSIO_ERR_NOMEM, and destroy frees the rest.
	for (size_t k = 2; k <= 6; k++) {
		t_fail_alloc s2 = {.fail_at = k};
		gsio_allocator al2 = t_fail_allocator(&s2);
		gsio_arena *a = gsioi_arena_create(&al2, 0);
		assert_non_null(a);
		gsio_error err;
		gsio_error_clear(&err);
		size_t ok = 0;
		void *p;
		// Each 40 KB block needs its own chunk (chunks are 64 KB).
		while ((p = gsioi_arena_alloc(a, 40000, &err)) != NULL) ok++;
		assert_int_equal(err.code, GSIO_ERR_NOMEM);
		assert_int_equal(ok, k - 2);
		assert_true(s2.live > 0);
		gsioi_arena_destroy(a);
		assert_int_equal(s2.live, 0);
	}
	// Scenes come from the same arena: a failed scene_create leaks nothing.
	for (size_t k = 1; k <= 2; k++) {
		t_fail_alloc s3 = {.fail_at = k};
		gsio_allocator al3 = t_fail_allocator(&s3);
		gsio_opts opts = {0};
		opts.allocator = &al3;
		gsio_error err;
		gsio_error_clear(&err);
		assert_null(gsioi_scene_create(&opts, &err));
		assert_int_equal(err.code, GSIO_ERR_NOMEM);
		assert_int_equal(s3.live, 0);
	}
	t_fail_alloc s4 = {0};
	gsio_allocator al4 = t_fail_allocator(&s4);
	gsio_opts opts = {0};
	opts.allocator = &al4;
	gsio_scene *sc = gsioi_scene_create(&opts, NULL);
	assert_non_null(sc);
	assert_true(gsioi_scene_warn(sc, NULL, "warning %d", 1));
	assert_true(gsioi_scene_warn(sc, NULL, "warning %s", "two"));
	assert_int_equal(sc->warnings_count, 2);
	assert_string_equal(sc->warnings[0], "warning 1");
	assert_string_equal(sc->warnings[1], "warning two");
	gsio_scene_free(sc);
	assert_int_equal(s4.live, 0);
}

// -- Errors

/* An empty scene from the importers' own constructor (gsioi_scene_create). */
static gsio_scene *empty_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsioi_scene_create(NULL, &err);
	assert_non_null(s);
	return s;
}

/* Messages and warnings quote bytes from files: they must come out as
 * UTF-8 without control characters (valid in a terminal and in gsio info
 * --json), bytes that are no UTF-8 read as CP1252. */
static void test_text_sanitized(void **state)
{
	(void)state;
	gsio_error err;
	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_CORRUPT, "f.hmp", 3, "texture '%s'", "a\xff\x01\nb");
	assert_string_equal(err.message, "texture 'a\xc3\xbf??b'");
	gsio_scene *s = empty_scene();
	assert_true(gsioi_scene_warn(s, &err, "name %s", "\xc3\xa9\t"));
	assert_int_equal(s->warnings_count, 1);
	assert_string_equal(s->warnings[0], "name \xc3\xa9?");
	gsio_scene_free(s);
}

/* Clips from frame names: stems without trailing digits and separators; a
 * stem that returns later gets a suffix, a longer name is not a repeat. Each
 * clip is a morph animation on the given node keyed by its frames. */
static void test_build_clips(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = empty_scene();
	static const char *names[] = {"walk0", "walk1", "walking0", "walk_2", "frame 7", "7", "walk3"};
	gsio_morph_frame frames[7];
	memset(frames, 0, sizeof(frames));
	for (int i = 0; i < 7; i++) frames[i].name = names[i];
	gsio_mesh m;
	memset(&m, 0, sizeof(m));
	m.frames = frames;
	m.frames_count = 7;
	assert_true(gsioi_scene_build_clips(s, &m, 3, 12.5f, &err));
	assert_int_equal(s->animations_count, 6);
	static const char *want[] = {"walk", "walking", "walk.2", "frame", "anim", "walk.3"};
	static const size_t first[] = {0, 2, 3, 4, 5, 6}, count[] = {2, 1, 1, 1, 1, 1};
	for (size_t i = 0; i < 6; i++) {
		const gsio_animation *a = &s->animations[i];
		assert_string_equal(a->name, want[i]);
		assert_int_equal(a->frames_count, count[i]);
		assert_true(a->fps == 12.5f);
		assert_int_equal(a->channels_count, 1);
		assert_int_equal(a->channels[0].node, 3);
		assert_int_equal(a->channels[0].path, GSIO_PATH_MORPH);
		assert_null(a->channels[0].values);
		for (size_t k = 0; k < count[i]; k++) assert_int_equal(a->channels[0].frames[k], first[i] + k);
	}
	// One frame is a pose: no animation.
	m.frames_count = 1;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	assert_int_equal(s->animations_count, 6);
	gsio_scene_free(s);
	// A stem that is already the suffixed name of a later one (fuzz_load
	// found a model with clips "Dead.2" and "Dead": both were "Dead.2").
	s = empty_scene();
	static const char *dead[] = {"Dead.2 2", "Dead 0", "Dead 1", "Dead.3 0", "x", "Dead 5"};
	for (int i = 0; i < 6; i++) frames[i].name = dead[i];
	m.frames_count = 6;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	static const char *dead_want[] = {"Dead.2", "Dead.3", "Dead.3.2", "x", "Dead.4"};
	assert_int_equal(s->animations_count, 5);
	for (size_t i = 0; i < 5; i++) assert_string_equal(s->animations[i].name, dead_want[i]);
	gsio_scene_free(s);
	// A stem of the longest kept length (47 characters) that comes back
	// twice: its suffixed names are longer than the stem, and are counted
	// whole like any other (S, S.2, S.3).
	s = empty_scene();
	char longest[48], frame_long[3][52], want_long[3][56];
	memset(longest, 'L', 47);
	longest[47] = 0;
	for (int i = 0; i < 3; i++) snprintf(frame_long[i], sizeof(frame_long[i]), "%s %d", longest, i);
	const char *long_names[5] = {frame_long[0], "x", frame_long[1], "y", frame_long[2]};
	for (int i = 0; i < 5; i++) frames[i].name = long_names[i];
	m.frames_count = 5;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	snprintf(want_long[0], sizeof(want_long[0]), "%s", longest);
	snprintf(want_long[1], sizeof(want_long[1]), "%s.2", longest);
	snprintf(want_long[2], sizeof(want_long[2]), "%s.3", longest);
	assert_int_equal(s->animations_count, 5);
	assert_string_equal(s->animations[0].name, want_long[0]);
	assert_string_equal(s->animations[2].name, want_long[1]);
	assert_string_equal(s->animations[4].name, want_long[2]);
	gsio_scene_free(s);
}

/* The clip names of many frames against the plain rule they follow, a
 * scan of the earlier clips per clip (names equal to the stem, or starting
 * with it and a '.'): stems of letters, dots, separators and digits from a
 * fixed generator, so stems like "a.b" meet "a" and "a.2". */
static void test_build_clips_many(void **state)
{
	(void)state;
	enum { N = 3000 };
	static char names[N][16];
	static gsio_morph_frame frames[N];
	static char want[N][48];
	uint32_t x = 12345;
	for (int i = 0; i < N; i++) {
		const char alphabet[] = "ab.._ 12";
		int len = 1 + (int)((x >> 16) % 5);
		for (int k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			names[i][k] = alphabet[(x >> 16) % (sizeof(alphabet) - 1)];
		}
		names[i][len] = 0;
		x = x * 1103515245u + 12345u;
		frames[i].name = names[i];
	}
	gsio_mesh m;
	memset(&m, 0, sizeof(m));
	m.frames = frames;
	m.frames_count = N;
	gsio_error err;
	gsio_scene *s = empty_scene();
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	// The reference: clips as runs of one stem, each named by the scan.
	size_t c = 0;
	for (size_t i = 0; i < N;) {
		size_t stem = strlen(names[i]);
		while (stem && names[i][stem - 1] >= '0' && names[i][stem - 1] <= '9') stem--;
		while (stem && strchr(" _-", names[i][stem - 1])) stem--;
		size_t run = 1;
		for (; i + run < N; run++) {
			const char *nx = names[i + run];
			size_t ls = strlen(nx);
			while (ls && nx[ls - 1] >= '0' && nx[ls - 1] <= '9') ls--;
			while (ls && strchr(" _-", nx[ls - 1])) ls--;
			if (ls != stem || memcmp(nx, names[i], stem)) break;
		}
		char cname[48];
		if (stem) snprintf(cname, sizeof(cname), "%.*s", (int)stem, names[i]);
		else snprintf(cname, sizeof(cname), "anim");
		unsigned dup = 1;
		size_t cl = strlen(cname);
		for (size_t k = 0; k < c; k++)
			if (!strcmp(want[k], cname) || (!strncmp(want[k], cname, cl) && want[k][cl] == '.')) dup++;
		if (dup > 1) {
			// The next suffix no earlier name is or starts with and a '.'.
			for (bool taken = true; taken; dup += taken) {
				snprintf(cname + cl, sizeof(cname) - cl, ".%u", dup);
				size_t nl = strlen(cname);
				taken = false;
				for (size_t k = 0; k < c && !taken; k++)
					taken = !strcmp(want[k], cname) || (!strncmp(want[k], cname, nl) && want[k][nl] == '.');
			}
		}
		snprintf(want[c++], sizeof(want[0]), "%s", cname);
		i += run;
	}
	assert_int_equal(s->animations_count, c);
	assert_true(c > 500);
	for (size_t i = 0; i < c; i++) // unique (the scene has no nodes to validate it whole)
		for (size_t k = i + 1; k < c; k++)
			if (!strcmp(s->animations[i].name, s->animations[k].name))
				fail_msg("clips %zu and %zu are both named \"%s\"", i, k, s->animations[i].name);
	size_t dotted = 0, suffixed = 0;
	for (size_t i = 0; i < c; i++) {
		assert_string_equal(s->animations[i].name, want[i]);
		const char *dot = strrchr(want[i], '.');
		suffixed += dot && dot[1] >= '2' && dot[1] <= '9';
		dotted += strchr(want[i], '.') && !(dot && dot[1] >= '0' && dot[1] <= '9');
	}
	assert_true(suffixed > 100 && dotted > 100); // both kinds of '.' met
	gsio_scene_free(s);
}

/* The model's root node is named after the file without its extension. */
static void test_model_node(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = empty_scene();
	static const char *paths[] = {"dir/walker.mdl", "a\\b\\Terrain.v2.hmp", ".mdl", NULL, "noext"};
	static const char *want[] = {"walker", "Terrain.v2", ".mdl", "model", "noext"};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(gsioi_scene_add_model_node(s, paths[i], -1, &err), i);
		assert_string_equal(s->nodes[i].name, want[i]);
	}
	assert_int_equal(s->nodes_count, 5);
	const gsio_node *n = &s->nodes[0];
	assert_int_equal(n->parent, -1);
	assert_true(n->rotation[3] == 1.0f && n->scale[0] == 1.0f && n->scale[2] == 1.0f);
	assert_int_equal(n->camera, -1);
	assert_int_equal(n->light, -1);
	gsio_scene_free(s);
}

/* A folded mesh's indices and parts are exactly these. */
static void assert_folded(const gsio_mesh *m, const uint32_t *want, size_t n, const gsio_mesh_part *parts,
                          size_t parts_count)
{
	assert_int_equal(m->index_count, n);
	assert_memory_equal(m->indices, want, n * sizeof(uint32_t));
	assert_int_equal(m->parts_count, parts_count);
	for (size_t p = 0; p < parts_count; p++) {
		assert_int_equal(m->parts[p].first_index, parts[p].first_index);
		assert_int_equal(m->parts[p].index_count, parts[p].index_count);
		assert_int_equal(m->parts[p].material, parts[p].material);
	}
}

/* A fresh scene for a fold test and its scratch arena (*tmp). */
static gsio_scene *fold_scene(gsio_arena **tmp)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	*tmp = gsioi_arena_create(NULL, 0);
	assert_true(s && *tmp);
	return s;
}

/* Mesh m of nv vertices as a fold sees it: the positions, their source
 * vertices, the first nidx indices, every normal +z. */
static void fill_fold_mesh(gsio_mesh *m, const float *pos, const uint32_t *src, size_t nv, const uint32_t *idx,
                           size_t nidx)
{
	memcpy(m->positions, pos, nv * 3 * sizeof(float));
	memcpy(m->source_vertex, src, nv * sizeof(uint32_t));
	memcpy(m->indices, idx, nidx * sizeof(uint32_t));
	for (size_t v = 0; v < nv; v++) m->normals[3 * v + 2] = 1.0f;
}

/* Double-sided faces: a quad stored once each way round on the same four
 * positions (two uv sets for one side) with normals along +z, plus a lone
 * triangle. Each pair folds to the face whose winding agrees with the
 * normals (the up faces), drawn with a double-sided copy of the material in
 * a part of its own after the single faces; a mesh of pairs only keeps one
 * part and its material turns double-sided. */
static void test_fold_double_sided(void **state)
{
	(void)state;
	for (int lone = 1; lone >= 0; lone--) {
		gsio_error err;
		gsio_arena *tmp;
		gsio_scene *s = fold_scene(&tmp);
		int32_t mat = gsio_scene_add_material(s, "skin0", &err);
		assert_int_equal(mat, 0);
		assert_int_equal(gsio_extras_set_int(s, &s->materials[0].extras, "gsio:skin_type", 2, &err), 0);
		static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
		                            5, 5, 0, 6, 5, 0, 5, 6, 0};
		static const uint32_t src[] = {0, 1, 2, 3, 0, 2, 6, 7, 8};
		static const uint32_t idx[] = {
		    4, 3, 5, 2, 1, 0,  // down (clockwise from +z), one on the other uvs
		    0, 1, 2, 0, 2, 3,  // the same two faces up
		    6, 7, 8,           // lone
		};
		size_t ntri = lone ? 5 : 4;
		int32_t mi = gsio_scene_add_mesh(s, "m", 9, 3 * ntri, GSIO_MESH_NORMALS | GSIO_MESH_UVS, mat, &err);
		assert_int_equal(mi, 0);
		gsio_mesh *m = &s->meshes[0];
		m->source_vertex = gsioi_arena_array(s->arena, 9, sizeof(uint32_t), &err);
		assert_non_null(m->source_vertex);
		fill_fold_mesh(m, pos, src, 9, idx, 3 * ntri);
		size_t pairs = 0;
		assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, false, &pairs, &err));
		assert_int_equal(pairs, 2);
		assert_int_equal(m->vertex_count, 9);
		assert_int_equal(gsio_extras_get(&m->extras, "gsio:double_sided_pairs")->i, 2);
		if (lone) {
			// The lone face first, then the two up faces, double-sided.
			static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3};
			static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 1}};
			assert_folded(m, want, 9, wp, 2);
			const gsio_material *dm = &s->materials[m->parts[1].material];
			assert_string_equal(dm->name, "skin0_double_sided");
			assert_true(dm->double_sided);
			assert_false(s->materials[0].double_sided);
			assert_int_equal(gsio_extras_get(&dm->extras, "gsio:skin_type")->i, 2);
			assert_ptr_not_equal(dm->extras.items, s->materials[0].extras.items);
		} else {
			static const uint32_t want[] = {0, 1, 2, 0, 2, 3};
			static const gsio_mesh_part wp[] = {{0, 6, 0}};
			assert_folded(m, want, 6, wp, 1);
			assert_true(s->materials[0].double_sided);
			assert_int_equal(s->materials_count, 1);
		}
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsioi_arena_destroy(tmp);
		gsio_scene_free(s);
	}
}

/* Two parts (materials skin0, skin1): part 0 is the quad pair and the lone
 * face above, part 1 a pair of its own plus the lone face turned round,
 * which pairs with nothing (its twin has another material). Pairs fold
 * inside their part: each part is its single faces, then its folded pairs.
 * With shared materials (MDL7) the pairs get a double-sided copy, one per
 * material for the whole scene (a second mesh reuses it); with the mesh's
 * own materials a part of pairs only turns its material double-sided. */
/* The three ways a part's triangles are searched for a repeat: a fan around
 * one vertex of 8 triangles (its bucket compared pair by pair) and of 40
 * (the bucket sorted), and the 40-fan with its source vertices spread 1000
 * apart (wider than 4 x the keys + 64: the hash table). Each with and
 * without a reversed copy of one fan triangle, which is found as the one
 * pair, the copy (its winding against the normals) dropped. */
static void test_fold_double_sided_paths(void **state)
{
	(void)state;
	static const struct {
		uint32_t ring, spread;
	} cases[] = {{8, 1}, {40, 1}, {40, 1000}};
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		for (int twin = 0; twin < 2; twin++) {
			uint32_t ring = cases[ci].ring, nv = ring + 1;
			size_t ntri = ring - 1 + (size_t)twin;
			gsio_error err;
			gsio_arena *tmp;
			gsio_scene *s = fold_scene(&tmp);
			assert_int_equal(gsio_scene_add_material(s, "skin0", &err), 0);
			int32_t mi = gsio_scene_add_mesh(s, "fan", nv, 3 * ntri, GSIO_MESH_NORMALS, 0, &err);
			assert_int_equal(mi, 0);
			gsio_mesh *m = &s->meshes[0];
			m->source_vertex = gsioi_arena_array(s->arena, nv, sizeof(uint32_t), &err);
			assert_non_null(m->source_vertex);
			for (uint32_t v = 0; v < nv; v++) {
				m->source_vertex[v] = v * cases[ci].spread;
				double t = v ? 6.0 * (v - 1) / ring : 0; // counter-clockwise, under a full turn
				m->positions[3 * v] = v ? (float)cos(t) : 0;
				m->positions[3 * v + 1] = v ? (float)sin(t) : 0;
				m->normals[3 * v + 2] = 1.0f; // +z: the counter-clockwise faces agree
			}
			for (uint32_t i = 1; i < ring; i++) {
				m->indices[3 * (i - 1)] = 0;
				m->indices[3 * (i - 1) + 1] = i;
				m->indices[3 * (i - 1) + 2] = i + 1;
			}
			uint32_t k = ring / 2; // the twin: triangle (0, k, k + 1) the other way round
			if (twin) {
				m->indices[3 * (ntri - 1)] = k + 1;
				m->indices[3 * (ntri - 1) + 1] = k;
				m->indices[3 * (ntri - 1) + 2] = 0;
			}
			size_t pairs = 99;
			assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, false, &pairs, &err));
			assert_int_equal(pairs, (size_t)twin);
			assert_int_equal(m->index_count, 3 * (ntri - (size_t)twin));
			for (size_t x = 0; x < m->index_count; x += 3) // every face left is counter-clockwise
				assert_true(m->indices[x] == 0 && m->indices[x + 2] == m->indices[x + 1] + 1);
			gsioi_arena_destroy(tmp);
			gsio_scene_free(s);
		}
	}
}

static void test_fold_double_sided_parts(void **state)
{
	(void)state;
	static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
	                            5, 5, 0, 6, 5, 0, 5, 6, 0, 10, 0, 0, 11, 0, 0, 10, 1, 0};
	static const uint32_t src[] = {0, 1, 2, 3, 0, 2, 6, 7, 8, 9, 10, 11};
	static const uint32_t idx[] = {
	    4, 3, 5, 2, 1, 0, 0, 1, 2, 0, 2, 3, 6, 7, 8, // part 0: quad down, up, lone
	    9, 10, 11, 9, 11, 10, 6, 8, 7,               // part 1: pair, lone turned round
	};
	for (int shared = 1; shared >= 0; shared--) {
		gsio_error err;
		gsio_arena *tmp;
		gsio_scene *s = fold_scene(&tmp);
		assert_int_equal(gsio_scene_add_material(s, "skin0", &err), 0);
		assert_int_equal(gsio_scene_add_material(s, "skin1", &err), 1);
		// Without shared materials part 1 loses its lone face: all pairs.
		size_t ntri = shared ? 8 : 7;
		for (int mesh = 0; mesh < (shared ? 2 : 1); mesh++) {
			int32_t mi = gsio_scene_add_mesh(s, "m", 12, 3 * ntri, GSIO_MESH_NORMALS, 0, &err);
			assert_int_equal(mi, mesh);
			gsio_mesh *m = &s->meshes[mi];
			m->source_vertex = gsioi_arena_array(s->arena, 12, sizeof(uint32_t), &err);
			m->parts = gsioi_arena_array(s->arena, 2, sizeof(gsio_mesh_part), &err);
			assert_true(m->source_vertex && m->parts);
			m->parts_count = 2;
			m->parts[0] = (gsio_mesh_part){0, 15, 0};
			m->parts[1] = (gsio_mesh_part){15, 3 * ntri - 15, 1};
			fill_fold_mesh(m, pos, src, 12, idx, 3 * ntri);
			size_t pairs = 0;
			assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, shared, &pairs, &err));
			assert_int_equal(pairs, 3);
			assert_int_equal(gsio_extras_get(&m->extras, "gsio:double_sided_pairs")->i, 3);
			if (shared) {
				static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3, 6, 8, 7, 9, 10, 11};
				static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 2}, {9, 3, 1}, {12, 3, 3}};
				assert_folded(m, want, 15, wp, 4);
				// The second mesh found the copies the first one made.
				assert_int_equal(s->materials_count, 4);
				assert_string_equal(s->materials[2].name, "skin0_double_sided");
				assert_string_equal(s->materials[3].name, "skin1_double_sided");
				assert_true(s->materials[2].double_sided && s->materials[3].double_sided);
				assert_int_equal(gsio_extras_get(&s->materials[3].extras, "gsio:double_sided_of")->i, 1);
				assert_false(s->materials[0].double_sided || s->materials[1].double_sided);
			} else {
				static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3, 9, 10, 11};
				static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 2}, {9, 3, 1}};
				assert_folded(m, want, 12, wp, 3);
				assert_int_equal(s->materials_count, 3);
				assert_true(s->materials[1].double_sided);
				assert_false(s->materials[0].double_sided);
			}
		}
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsioi_arena_destroy(tmp);
		gsio_scene_free(s);
	}
}

static void test_error_format(void **state)
{
	(void)state;
	gsio_error err;
	char buf[512];
	gsio_error_clear(&err);
	assert_int_equal(err.code, GSIO_OK);
	assert_int_equal(err.offset, -1);
	GSIO_FAIL(&err, GSIO_ERR_CORRUPT, "models/a.mdl", 0x1a2b, "frame %d: bad type", 3);
	size_t n = gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "models/a.mdl: offset 6699 (0x1a2b): frame 3: bad type");
	assert_int_equal(n, strlen(buf));
	assert_non_null(err.src_file);
	assert_true(err.src_line > 0);
	// The first error is the cause: a second one does not overwrite it.
	GSIO_FAIL(&err, GSIO_ERR_NOMEM, "other", 1, "later");
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_string_equal(err.message, "frame 3: bad type");

	gsio_error_clear(&err);
	GSIO_FAIL_LINE(&err, GSIO_ERR_SYNTAX, "bob.md5mesh", 12, 5, "expected '%s'", "{");
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "bob.md5mesh:12:5: expected '{'");
	assert_int_equal(err.offset, -1);

	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_IO, NULL, -1, "cannot open");
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "<input>: cannot open");

	// snprintf semantics: the wanted length comes back, the text is cut and terminated.
	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_TRUNCATED, "f", 0, "0123456789");
	char small[8];
	n = gsio_error_format(&err, small, sizeof(small));
	assert_int_equal(n, strlen("f: offset 0 (0x0): 0123456789"));
	assert_string_equal(small, "f: offs");

	gsio_error_clear(&err);
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "<input>: ok");
	gsio_error_format(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "(no error)");
	// NULL err: nothing happens, nothing crashes.
	assert_int_equal(GSIO_FAIL(NULL, GSIO_ERR_IO, "x", 0, "y"), 0);
	assert_string_equal(gsio_error_code_name(GSIO_ERR_TRUNCATED), "truncated");
	assert_string_equal(gsio_error_code_name((gsio_error_code)999), "unknown");
}

// -- Normal table

static void test_anorms_match_file(void **state)
{
	(void)state;
	FILE *f = fopen(GSIO_ANORMS_FILE, "r");
	if (!f) {
		print_message("SKIPPED: %s not found\n", GSIO_ANORMS_FILE);
		skip();
	}
	char line[256];
	size_t n = 0;
	double worst = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n') continue;
		double x, y, z;
		// The file is written with '.' decimals; sscanf in the "C" locale reads them.
		if (sscanf(line, "%lf %lf %lf", &x, &y, &z) != 3) fail_msg("bad line: %s", line);
		assert_true(n < GSIO_NORMAL_COUNT);
		const double v[3] = {x, y, z};
		for (int k = 0; k < 3; k++) {
			double d = fabs(v[k] - (double)gsio_anorms[n][k]);
			if (d > worst) worst = d;
		}
		n++;
	}
	fclose(f);
	assert_int_equal(n, GSIO_NORMAL_COUNT);
	if (worst > 1e-6) fail_msg("normal table differs from anorms.txt by %g", worst);
	for (size_t i = 0; i < GSIO_NORMAL_COUNT; i++) {
		const float *a = gsio_anorms[i];
		double len = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
		assert_true(fabs(len - 1.0) < 1e-5);
	}
}

// -- Paths

static void test_paths(void **state)
{
	(void)state;
	char ext[8];
	gsioi_path_ext("dir.x/Model.MDL", ext, sizeof(ext));
	assert_string_equal(ext, "mdl");
	gsioi_path_ext("dir.x/noext", ext, sizeof(ext));
	assert_string_equal(ext, "");
	gsioi_path_ext("a.verylongextension", ext, sizeof(ext));
	assert_string_equal(ext, "verylon");
	assert_string_equal(gsioi_path_base("a/b\\c.md5mesh"), "c.md5mesh");
	assert_string_equal(gsioi_path_base("plain"), "plain");
}

static void test_read_whole_file(void **state)
{
	(void)state;
	gsio_error err;
	uint8_t *data = (uint8_t *)"x";
	size_t size = 1;
	// A directory opens with fopen() on Linux; it must still be a clear error.
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_read_whole_file(GSIO_BINARY_DIR, &data, &size, 0, &err), 0);
	assert_null(data);
	assert_int_equal(size, 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "directory"));
	assert_string_equal(err.file, GSIO_BINARY_DIR);
	// A file over the limit is a LIMIT error; at the limit it is read whole.
	char path[4096];
	snprintf(path, sizeof(path), "%s/test_core_whole.bin", GSIO_BINARY_DIR);
	const uint8_t bytes[5] = {1, 2, 3, 4, 5};
	t_write_file(path, bytes, sizeof(bytes));
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_read_whole_file(path, &data, &size, 4, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsio_error_clear(&err);
	assert_int_equal(gsio_read_whole_file(path, &data, &size, 5, &err), 0);
	assert_int_equal(size, 5);
	assert_memory_equal(data, bytes, 5);
	free(data);
	remove(path);
}

/** gsioi_bbox3() gives the floats of the plain comparison loop (the first
 *  vertex, then v < lo and v > hi), NaN and -0 included, for every count
 *  from 0 to 40 and for 5 000 vertices: bit for bit. */
static void test_bbox3(void **state)
{
	(void)state;
	enum { N = 5000 };
	float *p = malloc(3 * N * sizeof(float));
	assert_non_null(p);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < 3 * N; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (float)((int32_t)x % 2001) / 7.0f;
		if (x % 97 == 0) p[i] = -0.0f;
		if (x % 89 == 0) p[i] = 0.0f;
		if (x % 211 == 0) p[i] = NAN;
	}
	p[0] = 0.0f, p[3] = -0.0f; // -0 after +0: the comparison keeps +0
	size_t checked = 0;
	for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : N) {
		for (size_t off = 0; off < 3 && off * 3 + n <= N; off++) {
			const float *q = p + 3 * off;
			float mn[3], mx[3], wmn[3] = {0, 0, 0}, wmx[3] = {0, 0, 0};
			for (size_t i = 0; i < n; i++)
				for (int k = 0; k < 3; k++) {
					float v = q[3 * i + (size_t)k];
					if (i == 0 || v < wmn[k]) wmn[k] = v;
					if (i == 0 || v > wmx[k]) wmx[k] = v;
				}
			gsioi_bbox3(q, n, mn, mx);
			assert_memory_equal(mn, wmn, sizeof(mn));
			assert_memory_equal(mx, wmx, sizeof(mx));
			checked++;
		}
		if (n == N) break;
	}
	print_message("%zu boxes as the comparison loop makes them\n", checked);

	// gsioi_bbox3_rows(): rows of 6 floats (MDL7's float records) read
	// through a row list in the list's order, which decides the -0 / 0 ties:
	// the box of the rows gathered in that order, for counts 0-40 and 800.
	enum { R = 833 };
	float *g = malloc(3 * R * sizeof(float));
	uint32_t *rows = malloc(R * sizeof(uint32_t));
	assert_true(g && rows);
	size_t row_boxes = 0;
	p[12] = 0.0f, p[18] = -0.0f; // rows 2 and 3 start with +0 and -0
	for (size_t n = 0; n <= 800; n = n < 40 ? n + 1 : 800) {
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			rows[i] = x % R; // repeats and rows no vertex shows
			memcpy(g + 3 * i, p + 6 * (size_t)rows[i], 3 * sizeof(float));
		}
		if (n >= 2) rows[0] = 3, rows[1] = 2; // -0 before +0: the box keeps -0
		if (n >= 2) memcpy(g, p + 18, 12), memcpy(g + 3, p + 12, 12);
		float mn[3], mx[3], wmn[3], wmx[3];
		gsioi_bbox3(g, n, wmn, wmx);
		gsioi_bbox3_rows(p, 6, rows, n, mn, mx);
		assert_memory_equal(mn, wmn, sizeof(mn));
		assert_memory_equal(mx, wmx, sizeof(mx));
		row_boxes++;
		if (n == 800) break;
	}
	print_message("%zu boxes of rows through a list as of the rows gathered\n", row_boxes);
	free(g);
	free(rows);
	free(p);
}

/** gsioi_floats_finite() agrees with isfinite() on every float: for each
 *  length 0-40 and 5 000, all finite (0, -0, subnormals, the largest) and
 *  one infinity or NaN at each place in turn (at every place for short
 *  arrays, the SSE2 blocks' ends for the long one). */
static void test_floats_finite(void **state)
{
	(void)state;
	enum { N = 5000 };
	float *f = malloc(N * sizeof(float));
	assert_non_null(f);
	static const float finite[] = {0.0f, -0.0f, 1e-45f, -1e-40f, FLT_MAX, -FLT_MAX, 1.5f};
	const float odd[] = {INFINITY, -INFINITY, NAN, -NAN};
	size_t checked = 0;
	for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : N) {
		for (size_t i = 0; i < n; i++) f[i] = finite[i % 7];
		assert_true(gsioi_floats_finite(f, n));
		for (size_t at = 0; at < n; at = n < 40 ? at + 1 : at * 2 + 3) {
			for (size_t o = 0; o < 4; o++) {
				f[at] = odd[o];
				assert_false(gsioi_floats_finite(f, n));
				checked++;
			}
			f[at] = finite[at % 7];
		}
		if (n == N) {
			f[N - 1] = NAN; // the scalar tail
			assert_false(gsioi_floats_finite(f, N));
			assert_true(gsioi_floats_finite(f, N - 1));
			f[4095] = INFINITY; // the last of the first 4 096-float block
			assert_false(gsioi_floats_finite(f, 4096));
			break;
		}
	}
	print_message("%zu arrays with one float that is not finite, each found\n", checked);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader_exact_end),
	    cmocka_unit_test(test_reader_one_past_end),
	    cmocka_unit_test(test_reader_huge_need),
	    cmocka_unit_test(test_reader_each_width_at_end),
	    cmocka_unit_test(test_overflow_helpers),
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
	    cmocka_unit_test(test_packed_bounds_copy),
	    cmocka_unit_test(test_names_index),
	    cmocka_unit_test(test_arena_basics),
	    cmocka_unit_test(test_arena_fills_earlier_chunks),
	    cmocka_unit_test(test_arena_huge_pages),
	    cmocka_unit_test(test_weld),
	    cmocka_unit_test(test_arena_limit),
	    cmocka_unit_test(test_arena_append),
	    cmocka_unit_test(test_arena_alloc_failure),
	    cmocka_unit_test(test_error_format),
	    cmocka_unit_test(test_text_sanitized),
	    cmocka_unit_test(test_build_clips),
	    cmocka_unit_test(test_build_clips_many),
	    cmocka_unit_test(test_model_node),
	    cmocka_unit_test(test_fold_double_sided),
	    cmocka_unit_test(test_fold_double_sided_parts),
	    cmocka_unit_test(test_fold_double_sided_paths),
	    cmocka_unit_test(test_anorms_match_file),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_read_whole_file),
	    cmocka_unit_test(test_bbox3),
	    cmocka_unit_test(test_floats_finite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
