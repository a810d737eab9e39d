/* Fuzz target: TGA files through gsio's image decoder (common/tga.c for
 * uncompressed 24- and 32-bit files, stb_image for the rest), the input
 * being the .tga file. Its promises: a file gsioi_tga_plain() takes
 * decodes, to an image of its header's size whose every byte was written
 * (each is read back here, so a hole shows under the sanitizers), alpha
 * 255 at 24 bits; a failure carries a code and a message and leaves no
 * image; for a small plain file, the PNG made from its rows
 * (gsioi_png_begin_tga, the glTF writer's way) is byte for byte the PNG of
 * its decoded pixels. libFuzzer target with GSIO_LIBFUZZER, else a replay
 * program (fuzz_replay.h). */
#include "gsioi_image_file.h"
#include "gsioi_png.h"
#include "gsioi_tga.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t w = 0, h = 0;
	const bool plain = gsioi_tga_plain(data, size, &w, &h);
	// 64 MiB: larger images fail with the arena's limit.
	gsio_arena *arena = gsioi_arena_create(NULL, (size_t)64 << 20);
	if (!arena) return 0;
	gsio_image im = {0};
	gsio_error err;
	gsio_error_clear(&err);
	bool decoded = gsioi_image_file_decode(data, size, "in.tga", arena, &im, &err);
	if (!decoded) {
		fuzz_check_failure(&err);
		if (im.rgba) abort();
		// A whole plain file fails only for memory.
		if (plain && err.code != GSIO_ERR_LIMIT && err.code != GSIO_ERR_NOMEM) abort();
	} else {
		if (!im.rgba || !im.width || !im.height) abort();
		if (plain && (im.width != w || im.height != h)) abort();
		unsigned sum = 0;
		size_t n = (size_t)im.width * im.height * 4;
		for (size_t i = 0; i < n; i++) sum += im.rgba[i];
		if (plain && data[16] == 24)
			for (size_t i = 3; i < n; i += 4)
				if (im.rgba[i] != 255) abort();
		volatile unsigned sink = sum;
		(void)sink;
		if (plain && n <= (size_t)4 * 256 * 256) {
			uint8_t *want = NULL, *got = NULL;
			size_t want_size = 0, got_size = 0;
			gsio_error perr;
			gsio_error_clear(&perr);
			if (gsioi_png_encode(im.rgba, im.width, im.height, &want, &want_size, &perr)) abort();
			gsioi_png_work *work;
			if (gsioi_png_begin_tga(data, size, &work, &perr) ||
			    gsioi_png_finish(work, &got, &got_size, &perr))
				abort();
			if (got_size != want_size || memcmp(got, want, want_size)) abort();
			free(want);
			free(got);
		}
	}
	gsioi_arena_destroy(arena);
	return 0;
}

#include "fuzz_replay.h"
