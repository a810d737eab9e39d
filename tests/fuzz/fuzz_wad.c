/* Fuzz target: the WAD codec (importers/wad.c): WAD7 with its texture types
 * (DDS lumps included), WAD2, WAD3. The input follows "WAD7" (or, when its
 * first byte is '2' or '3', "WAD2"/"WAD3" with that byte dropped). Whatever
 * decodes: every lump either decodes to RGBA of its width x height or fails
 * with a code and a message; the check-only call agrees with the decode.
 * libFuzzer target with GSIO_LIBFUZZER, else a replay program. */
#include "gsio_wmp.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char magic[5] = "WAD7";
	if (size && (data[0] == '2' || data[0] == '3')) magic[3] = (char)data[0], data++, size--;
	uint8_t *in = malloc(4 + size);
	if (!in) return 0;
	memcpy(in, magic, 4);
	if (size) memcpy(in + 4, data, size);
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_wad_file *w = gsio_wad_decode(in, 4 + size, "in.wad", &opts, &err);
	if (!w) {
		fuzz_check_failure(&err);
		free(in);
		return 0;
	}
	for (size_t i = 0; i < w->lumps_count && i < 64; i++) {
		const gsio_wad_lump *l = &w->lumps[i];
		// Keep one texture below 16 MiB of RGBA: bigger claims only cost time.
		if ((uint64_t)l->width * l->height > ((uint64_t)4 << 20)) continue;
		uint8_t *rgba = NULL;
		gsio_error_clear(&err);
		if (gsio_wad_decode_lump(w, i, NULL, &rgba, &err)) {
			fuzz_check_failure(&err);
			if (rgba) abort();
			continue;
		}
		if (!rgba || !l->width || !l->height) abort();
		unsigned sum = 0;
		for (size_t k = 0; k < (size_t)l->width * l->height * 4; k++) sum += rgba[k];
		volatile unsigned sink = sum;
		(void)sink;
		free(rgba);
	}
	gsio_wad_file_free(w);
	free(in);
	return 0;
}

#include "fuzz_replay.h"
