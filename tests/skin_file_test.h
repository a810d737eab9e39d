/* What test_tga and test_bmp check alike on the skin files gsio reads by
 * hand: an arena and an image to decode into, and the PNG the writer makes
 * from the file's own rows (in bands) against the PNG of its decoded
 * pixels. Include it once, in the test's one source file, after cmocka. */
#ifndef GSIO_TEST_SKIN_FILE_TEST_H
#define GSIO_TEST_SKIN_FILE_TEST_H

#include "gsioi_image_file.h"
#include "gsioi_png.h"

#include <stdlib.h>
#include <string.h>

/* Pseudo-random bytes for the files' pixels: the same on every run. */
static uint32_t skin_file_seed = 7;

static uint8_t next_byte(void)
{
	skin_file_seed = skin_file_seed * 1103515245u + 12345u;
	return (uint8_t)(skin_file_seed >> 16);
}

/* A new arena (no limit but the default), im and err cleared. */
static gsio_arena *fresh(gsio_image *im, gsio_error *err)
{
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	memset(im, 0, sizeof(*im));
	gsio_error_clear(err);
	return a;
}

/* The file's PNG made from its rows by `begin` (gsioi_png_begin_tga,
 * gsioi_png_begin_bmp), its bands in reverse order as two threads may make
 * them, is byte for byte the PNG of the pixels gsioi_image_file_decode
 * gives. */
static void assert_rows_png_is_pixels_png(const uint8_t *d, size_t size, const char *name,
                                          int (*begin)(const uint8_t *, size_t, gsioi_png_work **, gsio_error *))
{
	gsio_image im;
	gsio_error err;
	gsio_arena *a = fresh(&im, &err);
	assert_true(gsioi_image_file_decode(d, size, name, a, &im, &err));
	uint8_t *want, *got;
	size_t want_size, got_size;
	assert_int_equal(gsioi_png_encode(im.rgba, im.width, im.height, &want, &want_size, &err), 0);
	gsioi_png_work *w;
	assert_int_equal(begin(d, size, &w, &err), 0);
	for (size_t p = gsioi_png_parts(w); p-- > 0;) assert_int_equal(gsioi_png_part(w, p, &err), 0);
	assert_int_equal(gsioi_png_finish(w, &got, &got_size, &err), 0);
	assert_int_equal(got_size, want_size);
	assert_memory_equal(got, want, want_size);
	free(want);
	free(got);
	gsioi_arena_destroy(a);
}

/* A 5 x 4 file loaded with GSIO_OPT_NO_PIXELS: kept as a copy (mode 0),
 * kept as the caller's block itself, handed over (mode 1: the arena frees
 * it, so d is not freed here; ASan would report a leak or a double free),
 * or, for a layout the hand-written reader leaves to stb_image (mode 2),
 * decoded with its block left to the caller. Frees d unless the arena took
 * it. */
static void assert_kept_or_decoded(uint8_t *d, size_t size, const char *name, int mode)
{
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = GSIO_OPT_NO_PIXELS;
	gsio_image im;
	gsio_error err;
	gsio_arena *a = fresh(&im, &err);
	bool taken = true;
	assert_true(gsioi_image_file_load(d, size, name, &o, a, &im, mode ? &taken : NULL, &err));
	assert_int_equal(im.width, 5);
	assert_int_equal(im.height, 4);
	if (mode == 2) {
		assert_non_null(im.rgba);
		assert_null(im.file_data);
		assert_false(taken);
	} else {
		assert_null(im.rgba);
		assert_int_equal(im.file_size, size);
		assert_memory_equal(im.file_data, d, size);
		if (mode == 1) {
			assert_true(taken);
			assert_ptr_equal(im.file_data, d);
		} else {
			assert_ptr_not_equal(im.file_data, d);
		}
	}
	gsioi_arena_destroy(a);
	if (mode != 1) free(d);
}

#endif
