/* Uncompressed true-colour TGA files (common/tga.c): decoded in one pass,
 * or (GSIO_OPT_NO_PIXELS) kept as the file and turned into a PNG a row at
 * a time. What must hold: the pixels are stb_image's (compiled into this
 * test as the reference) for 24- and 32-bit files, bottom-up and top-down,
 * with and without an image ID, at odd sizes, stored and run-length
 * encoded (runs and raw packets across rows); files gsio leaves to
 * stb_image (colour-mapped, 16-bit, cut short) decode as it decodes them; the PNG made from the file is byte for byte the
 * PNG of its decoded pixels; the NO_PIXELS load keeps the file (the
 * caller's block itself when it hands it over) and a GLB written from it is
 * the GLB of the normal load. */
#include "test_util.h"

#include "gsio_gltf.h"
#include "gsioi_image_file.h"
#include "gsioi_png.h"
#include "gsioi_tga.h"

// stb_image as the reference decoder.
#define STBI_ONLY_TGA
#include "stb_image_ref.h"
#include "skin_file_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Building TGA files

typedef struct tga_spec {
	uint32_t w, h;
	uint8_t bpp;     // 24 or 32 (16: a form the fast path leaves to stb_image)
	bool top_first;  // descriptor bit 5
	uint8_t id_len;  // bytes of image ID after the header
	bool rle;        // image type 10: every pixel its own raw packet
	bool colour_map; // colour-map type 1 with a 2-entry map, image type 1 (8-bit indices)
	size_t cut;      // bytes taken off the end
} tga_spec;


/* A TGA file of spec's layout with pseudo-random pixels (alpha too, at 32
 * bits, unless opaque); malloc'd, *size set. */
static uint8_t *make_tga(const tga_spec *t, bool opaque, size_t *size)
{
	const size_t comp = t->colour_map ? 1 : t->bpp / 8u;
	const size_t px = (size_t)t->w * t->h;
	size_t n = 18 + t->id_len + (t->colour_map ? 6 : 0) + px * (comp + (t->rle ? 1 : 0));
	uint8_t *d = calloc(1, n);
	assert_non_null(d);
	d[0] = t->id_len;
	d[1] = t->colour_map ? 1 : 0;
	d[2] = t->colour_map ? 1 : t->rle ? 10 : 2;
	if (t->colour_map) {
		d[5] = 2; // map entries
		d[7] = 24; // bits an entry
	}
	d[12] = (uint8_t)t->w, d[13] = (uint8_t)(t->w >> 8);
	d[14] = (uint8_t)t->h, d[15] = (uint8_t)(t->h >> 8);
	d[16] = t->colour_map ? 8 : t->bpp;
	d[17] = (uint8_t)((t->top_first ? 0x20 : 0) | (t->bpp == 32 ? 8 : 0));
	size_t at = 18;
	for (size_t i = 0; i < t->id_len; i++) d[at++] = 'i';
	if (t->colour_map)
		for (int i = 0; i < 6; i++) d[at++] = next_byte();
	if (t->rle) {
		// Pixels in short runs (1-5 alike), then packets of up to 128:
		// runs, and raw packets of the pixels between, across rows.
		uint8_t *raw = malloc(px * comp);
		assert_non_null(raw);
		for (size_t i = 0; i < px;) {
			size_t len = 1 + next_byte() % 5;
			for (size_t c = 0; c < comp; c++) raw[i * comp + c] = comp == 4 && c == 3 && opaque ? 255 : next_byte();
			for (size_t k = 1; k < len && i + k < px; k++) memcpy(raw + (i + k) * comp, raw + i * comp, comp);
			i += len;
		}
		for (size_t i = 0; i < px;) {
			size_t run = 1;
			while (i + run < px && run < 128 && !memcmp(raw + (i + run) * comp, raw + i * comp, comp)) run++;
			if (run > 1) {
				d[at++] = (uint8_t)(128 | (run - 1));
				memcpy(d + at, raw + i * comp, comp);
				at += comp;
				i += run;
				continue;
			}
			size_t k = 1; // raw: up to the next pair of equal pixels
			while (i + k < px && k < 128 &&
			       (i + k + 1 >= px || memcmp(raw + (i + k) * comp, raw + (i + k + 1) * comp, comp)))
				k++;
			d[at++] = (uint8_t)(k - 1);
			memcpy(d + at, raw + i * comp, k * comp);
			at += k * comp;
			i += k;
		}
		free(raw);
		*size = at - t->cut;
		return d;
	}
	for (size_t i = 0; i < px; i++) {
		for (size_t c = 0; c < comp; c++) {
			uint8_t v = next_byte();
			if (t->colour_map) v &= 1;
			if (comp == 4 && c == 3 && opaque) v = 255;
			d[at++] = v;
		}
	}
	assert_int_equal(at, n);
	*size = n - t->cut;
	return d;
}


// -- Decoding

static const tga_spec specs[] = {
	{1, 1, 24, false, 0, false, false, 0},   {1, 1, 32, true, 0, false, false, 0},
	{7, 5, 24, false, 0, false, false, 0},   {7, 5, 24, true, 3, false, false, 0},
	{13, 9, 32, false, 0, false, false, 0},  {13, 9, 32, true, 255, false, false, 0},
	{300, 2, 24, false, 1, false, false, 0}, {2, 300, 32, false, 0, false, false, 0},
	{9, 7, 24, false, 0, true, false, 0},    {9, 7, 32, true, 0, true, false, 0},
	{300, 40, 24, false, 2, true, false, 0}, {37, 29, 32, true, 0, true, false, 0},
	{1, 1, 24, true, 0, true, false, 0},     {37, 29, 32, false, 0, true, false, 5},
	{9, 7, 16, false, 0, false, false, 0},   {9, 7, 24, false, 0, false, true, 0},
	{9, 7, 24, false, 0, false, false, 1},   {9, 7, 32, false, 2, false, false, 30},
};

/* Every layout: gsio's pixels are stb_image's; the fast path takes exactly
 * the uncompressed 24- and 32-bit files that are whole. A cut file that
 * stb_image still decodes (it leaves the missing rows as they were) is
 * not compared: gsio refuses or decodes it, and neither is a picture. */
static void test_tga_pixels_are_stb_images(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		const tga_spec *t = &specs[k];
		size_t size;
		uint8_t *d = make_tga(t, false, &size);
		uint32_t pw, ph;
		bool plain = gsioi_tga_plain(d, size, &pw, &ph), rle = gsioi_tga_rle(d, size, &pw, &ph);
		const bool true_colour = (t->bpp == 24 || t->bpp == 32) && !t->colour_map && !t->cut;
		assert_int_equal(plain, true_colour && !t->rle);
		assert_int_equal(rle, true_colour && t->rle);
		gsio_image im;
		gsio_error err;
		gsio_arena *a = fresh(&im, &err);
		bool ok = gsioi_image_file_decode(d, size, "t.tga", a, &im, &err);
		int sw = 0, sh = 0;
		uint8_t *ref = stb_rgba(d, size, &sw, &sh);
		if (!t->cut) {
			if (!ok) fail_msg("spec %zu: %s", k, err.message);
			assert_non_null(ref);
			assert_int_equal(im.width, (uint32_t)sw);
			assert_int_equal(im.height, (uint32_t)sh);
			assert_memory_equal(im.rgba, ref, (size_t)sw * (size_t)sh * 4);
			assert_null(im.file_data); // only PNG and JPEG files are kept
		}
		stbi_image_free(ref);
		gsioi_arena_destroy(a);
		free(d);
	}
}

/* The PNG made from the file's rows (gsioi_png_begin_tga, in bands) is the
 * PNG of its decoded pixels: opaque and translucent, one band and several
 * (a 600 x 500 image), few colours (a palette PNG) and many. */
static void test_tga_png_is_pixels_png(void **state)
{
	(void)state;
	const tga_spec big[] = {{600, 500, 24, false, 0, false, false, 0}, {600, 500, 32, true, 4, false, false, 0},
	                        {37, 21, 32, false, 0, false, false, 0},   {37, 21, 24, true, 0, false, false, 0}};
	for (size_t k = 0; k < 4 * 2; k++) {
		const tga_spec *t = &big[k % 4];
		const bool opaque = k >= 4;
		size_t size;
		uint8_t *d = make_tga(t, opaque, &size);
		if (k % 4 == 3) // few colours: a palette PNG
			for (size_t i = 18; i < size; i++) d[i] &= 0xC0;
		assert_rows_png_is_pixels_png(d, size, "t.tga", gsioi_png_begin_tga);
		free(d);
	}
	// Not a file it takes: refused.
	const uint8_t junk[18] = {0, 0, 10};
	gsioi_png_work *w;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_png_begin_tga(junk, sizeof(junk), &w, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
}

/* With GSIO_OPT_NO_PIXELS a plain TGA is kept as its file: a copy, or the
 * caller's block itself when handed over (the arena frees it: ASan would
 * report a leak or a double free); an RLE file is decoded as before, and
 * its block left to the caller. */
static void test_tga_kept_undecoded(void **state)
{
	(void)state;
	for (int k = 0; k < 3; k++) {
		tga_spec t = {5, 4, 24, false, 0, k == 2, false, 0}; // 2: run-length encoded
		size_t size;
		uint8_t *d = make_tga(&t, false, &size);
		assert_kept_or_decoded(d, size, "t.tga", k);
	}
}

/* A block the arena keeps counts toward its memory limit as the copy it
 * stands for would: with room for the file it is kept and counted; with a
 * limit below the file's size the load fails with GSIO_ERR_LIMIT and the
 * block stays the caller's (freed here: ASan would report a double free
 * if the arena had taken it). */
static void test_tga_kept_counts_toward_limit(void **state)
{
	(void)state;
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = GSIO_OPT_NO_PIXELS;
	tga_spec t = {64, 64, 32, true, 0, false, false, 0};
	size_t size;
	for (int k = 0; k < 2; k++) {
		uint8_t *d = make_tga(&t, false, &size);
		gsio_image im;
		gsio_error err;
		memset(&im, 0, sizeof(im));
		gsio_error_clear(&err);
		gsio_arena *a = gsioi_arena_create(NULL, k ? size / 2 : size + 4096);
		assert_non_null(a);
		bool taken = false;
		size_t before = gsioi_arena_used(a);
		bool ok = gsioi_image_file_load(d, size, "t.tga", &o, a, &im, &taken, &err);
		if (k == 0) {
			assert_true(ok);
			assert_true(taken);
			assert_true(gsioi_arena_used(a) >= before + size);
		} else {
			assert_false(ok);
			assert_false(taken);
			assert_int_equal(err.code, GSIO_ERR_LIMIT);
			free(d);
		}
		gsioi_arena_destroy(a);
	}
}

/* A scene whose image is the undecoded file writes the GLB the decoded
 * image writes, byte for byte. */
static void test_tga_glb_same_as_decoded(void **state)
{
	(void)state;
	tga_spec t = {640, 480, 32, false, 0, false, false, 0};
	size_t size;
	uint8_t *d = make_tga(&t, false, &size);
	gsio_error err;
	gsio_error_clear(&err);
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	assert_int_equal(gsio_scene_add_image(s, "skin.tga", 1, 1, NULL, &err), 0);
	assert_int_equal(gsio_scene_add_material(s, "m", &err), 0);
	s->materials[0].base_color_texture.image = 0;
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	assert_true(gsioi_image_file_decode(d, size, "skin.tga", a, &s->images[0], &err));
	gsio_gltf_output decoded = {0}, kept = {0};
	assert_int_equal(gsio_gltf_write(s, NULL, &decoded, &err), 0);
	s->images[0].rgba = NULL;
	s->images[0].file_data = d;
	s->images[0].file_size = size;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	assert_int_equal(gsio_gltf_write(s, NULL, &kept, &err), 0);
	assert_int_equal(kept.files[0].size, decoded.files[0].size);
	assert_memory_equal(kept.files[0].data, decoded.files[0].data, decoded.files[0].size);
	s->images[0].file_data = NULL;
	s->images[0].file_size = 0;
	gsio_gltf_output_free(&decoded);
	gsio_gltf_output_free(&kept);
	gsio_scene_free(s);
	gsioi_arena_destroy(a);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tga_pixels_are_stb_images),
		cmocka_unit_test(test_tga_png_is_pixels_png),
		cmocka_unit_test(test_tga_kept_undecoded),
		cmocka_unit_test(test_tga_kept_counts_toward_limit),
		cmocka_unit_test(test_tga_glb_same_as_decoded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
