/* Fuzz target: the PCX decoder (common/pcx.c) on its own, the input being
 * the .pcx file. Its promises: parse and decode agree; a failure carries a
 * code and a message and leaves no image; a success gives a width x height
 * RGBA8 image whose every byte was written (each is read back here, so a
 * hole shows under the sanitizers); nothing is allocated for a file that
 * fails its header check. libFuzzer target with GSIO_LIBFUZZER, else a
 * replay program (fuzz_replay.h). */
#include "gsioi_pcx.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_pcx_info info;
	bool parsed = gsioi_pcx_parse(data, size, "in.pcx", &info, &err);
	if (!parsed) fuzz_check_failure(&err);
	gsio_error_code parse_code = err.code;

	// 64 MiB: larger images fail with the arena's limit.
	gsio_arena *arena = gsioi_arena_create(NULL, (size_t)64 << 20);
	if (!arena) return 0;
	gsio_image im = {0};
	gsio_error_clear(&err);
	bool decoded = gsioi_pcx_decode(data, size, "in.pcx", arena, &im, &err);
	if (!decoded) {
		fuzz_check_failure(&err);
		if (im.rgba) abort();
		if (!parsed && (err.code != parse_code || gsioi_arena_used(arena) != 0)) abort();
		if (parsed && err.code != GSIO_ERR_TRUNCATED && err.code != GSIO_ERR_LIMIT &&
		    err.code != GSIO_ERR_NOMEM)
			abort();
	} else {
		if (!parsed || im.width != info.width || im.height != info.height || !im.rgba) abort();
		unsigned sum = 0;
		size_t n = (size_t)im.width * im.height * 4;
		for (size_t i = 0; i < n; i++) sum += im.rgba[i];
		if (info.planes != 4 || info.bits != 8)
			for (size_t i = 3; i < n; i += 4)
				if (im.rgba[i] != 255) abort();
		volatile unsigned sink = sum;
		(void)sink;
	}
	gsioi_arena_destroy(arena);
	return 0;
}

#include "fuzz_replay.h"
