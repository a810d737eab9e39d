/* Fuzz target: BMP files through gsio's image decoder (common/bmp.c for
 * uncompressed 1-, 4-, 8-, 24- and 32-bit files, stb_image for the rest),
 * the input being the .bmp file. Its promises: a file gsioi_bmp_parse()
 * takes decodes, to an image of its header's size whose every byte was
 * written (each is read back here, so a hole shows under the sanitizers),
 * alpha 255 below 32 bits a pixel; one it refuses is refused by the decoder
 * and by the GSIO_OPT_NO_PIXELS load with its code; a failure carries a
 * code and a message and leaves no image; for a small accepted file, the
 * PNG made from its rows (gsioi_png_begin_bmp, the glTF writer's way) is
 * byte for byte the PNG of its decoded pixels. libFuzzer target with
 * GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsioi_bmp.h"
#include "gsioi_image_file.h"
#include "gsioi_png.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

/* The PNG of the file's rows is the PNG of its decoded pixels. */
static void check_png(const uint8_t *data, size_t size, const gsio_image *im)
{
	uint8_t *want = NULL, *got = NULL;
	size_t want_size = 0, got_size = 0;
	gsio_error perr;
	gsio_error_clear(&perr);
	if (gsioi_png_encode(im->rgba, im->width, im->height, &want, &want_size, &perr)) abort();
	gsioi_png_work *work;
	if (gsioi_png_begin_bmp(data, size, &work, &perr) || gsioi_png_finish(work, &got, &got_size, &perr)) abort();
	if (got_size != want_size || memcmp(got, want, want_size)) abort();
	free(want);
	free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsioi_bmp info;
	gsio_error perr;
	gsio_error_clear(&perr);
	const gsioi_bmp_status st = gsioi_bmp_parse(data, size, "in.bmp", &info, &perr);
	if (st == GSIOI_BMP_BAD) fuzz_check_failure(&perr);
	// 64 MiB: larger images fail with the arena's limit.
	gsio_arena *arena = gsioi_arena_create(NULL, (size_t)64 << 20);
	if (!arena) return 0;
	gsio_image im = {0};
	gsio_error err;
	gsio_error_clear(&err);
	bool decoded = gsioi_image_file_decode(data, size, "in.bmp", arena, &im, &err);
	if (!decoded) {
		fuzz_check_failure(&err);
		if (im.rgba) abort();
		// An accepted file fails only for memory; a refused one with its code.
		if (st == GSIOI_BMP_OK && err.code != GSIO_ERR_LIMIT && err.code != GSIO_ERR_NOMEM) abort();
		if (st == GSIOI_BMP_BAD && err.code != perr.code) abort();
	} else {
		if (st == GSIOI_BMP_BAD || !im.rgba || !im.width || !im.height) abort();
		if (st == GSIOI_BMP_OK && (im.width != info.width || im.height != info.height)) abort();
		unsigned sum = 0;
		size_t n = (size_t)im.width * im.height * 4;
		for (size_t i = 0; i < n; i++) sum += im.rgba[i];
		if (st == GSIOI_BMP_OK && info.bpp != 32)
			for (size_t i = 3; i < n; i += 4)
				if (im.rgba[i] != 255) abort();
		volatile unsigned sink = sum;
		(void)sink;
		if (st == GSIOI_BMP_OK && n <= (size_t)4 * 256 * 256) check_png(data, size, &im);
	}
	gsioi_arena_destroy(arena);
	// The undecoded load refuses what the decoder refuses for its header.
	if (st == GSIOI_BMP_BAD) {
		gsio_arena *a2 = gsioi_arena_create(NULL, (size_t)64 << 20);
		if (!a2) return 0;
		gsio_opts o;
		memset(&o, 0, sizeof(o));
		o.flags = GSIO_OPT_NO_PIXELS;
		gsio_image im2 = {0};
		gsio_error_clear(&err);
		if (gsioi_image_file_load(data, size, "in.bmp", &o, a2, &im2, NULL, &err) || err.code != perr.code) abort();
		gsioi_arena_destroy(a2);
	}
	return 0;
}

#include "fuzz_replay.h"
