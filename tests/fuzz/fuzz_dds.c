/* Fuzz target: the DDS decoder (common/dds.c) on its own, the input being
 * the DDS file itself (what a type-6 skin record holds). Its promises:
 * parse and decode agree; a failure carries a code and a message; a success
 * gives a width x height RGBA8 image whose blocks all lay inside the input
 * (ASan checks the reads; every output byte is read back here, so MSan-like
 * holes show as UBSan/ASan reports or a wrong alpha); gsioi_png_encode_dds
 * writes the same PNG as gsioi_png_encode of the decoded pixels. libFuzzer target with
 * GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsio.h"
#include "gsioi_dds.h"
#include "gsioi_png.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_dds_info info;
	bool parsed = gsioi_dds_parse(data, size, "in.dds", 7, &info, &err);
	if (!parsed) fuzz_check_failure(&err);
	gsio_error_code parse_code = err.code;

	// 64 MiB: a 4096 x 4096 image; larger ones fail with the arena's limit.
	gsio_arena *arena = gsioi_arena_create(NULL, (size_t)64 << 20);
	if (!arena) return 0;
	gsio_image im = {0};
	gsioi_dds_info info2;
	gsio_error_clear(&err);
	bool decoded = gsioi_dds_decode(data, size, "in.dds", 7, arena, &im, &info2, &err);
	if (!decoded) {
		fuzz_check_failure(&err);
		if (im.rgba) abort();
		// Only the arena may refuse what the header check accepted.
		if (parsed ? err.code != GSIO_ERR_LIMIT && err.code != GSIO_ERR_NOMEM
		           : err.code != parse_code)
			abort();
		if (!parsed && gsioi_arena_used(arena) != 0) abort(); // nothing allocated
	} else {
		if (!parsed || memcmp(&info, &info2, sizeof(info))) abort();
		if (im.width != info.width || im.height != info.height || !im.rgba) abort();
		if (!im.width || !im.height || im.width > GSIOI_DDS_MAX_DIM ||
		    im.height > GSIOI_DDS_MAX_DIM)
			abort();
		if (info.top_size > size - GSIOI_DDS_HEADER_SIZE) abort();
		// Alpha is 255 or 0 in DXT1; every byte of the image is read.
		unsigned sum = 0;
		size_t n = (size_t)im.width * im.height * 4;
		for (size_t i = 0; i < n; i++) sum += im.rgba[i];
		if (info.format == GSIOI_DDS_DXT1)
			for (size_t i = 3; i < n; i += 4)
				if (im.rgba[i] != 0 && im.rgba[i] != 255) abort();
		volatile unsigned sink = sum;
		(void)sink;
		// The PNG straight from the DDS is the PNG of the decoded pixels,
		// byte for byte (small images only: the encoder is slow next to the
		// decoder, and size does not change its paths).
		if (n <= (size_t)256 * 256 * 4) {
			uint8_t *a = NULL, *b = NULL;
			size_t an = 0, bn = 0;
			gsio_error_clear(&err);
			int ra = gsioi_png_encode(im.rgba, im.width, im.height, &a, &an, &err);
			gsio_error_clear(&err);
			int rb = gsioi_png_encode_dds(data, size, &b, &bn, &err);
			if (ra || rb || an != bn || memcmp(a, b, an)) abort();
			free(a);
			free(b);
		}
	}
	gsioi_arena_destroy(arena);
	return 0;
}

#include "fuzz_replay.h"
