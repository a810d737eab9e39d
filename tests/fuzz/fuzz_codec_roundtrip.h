/* The round-trip fuzz target of one binary codec (fuzz_mdl.c, fuzz_hmp.c,
 * fuzz_mdl7.c): whatever gsio_<codec>_decode() accepts must encode back to
 * exactly the same bytes (the codec's promise) and must build a scene (or
 * fail with a code). The including file includes the codec's header and
 * defines:
 *   FUZZ_CODEC           the codec's name in its functions (mdl, hmp, mdl7)
 *   FUZZ_FILE_NAME       the name the input is reported under ("in.mdl")
 *   FUZZ_VALIDATE_SCENE  (optional, 1) every scene built must also validate
 * libFuzzer target with GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "fuzz_util.h"

#ifndef FUZZ_VALIDATE_SCENE
#define FUZZ_VALIDATE_SCENE 0
#endif

#define FUZZ_PASTE2(a, b, c) a##b##c
#define FUZZ_PASTE(a, b, c) FUZZ_PASTE2(a, b, c)
#define FUZZ_FN(suffix) FUZZ_PASTE(gsio_, FUZZ_CODEC, suffix)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	FUZZ_FN(_file) *f = FUZZ_FN(_decode)(data, size, FUZZ_FILE_NAME, &opts, &err);
	if (!f) {
		fuzz_check_failure(&err);
		return 0;
	}
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (FUZZ_FN(_encode)(f, &out, &out_size, &err)) abort(); // a decoded file must encode
	if (out_size != size || memcmp(out, data, size)) abort(); // ... to the same bytes
	free(out);
	gsio_scene *s = FUZZ_FN(_to_scene)(f, FUZZ_FILE_NAME, &opts, &err);
	if (!s) fuzz_check_failure(&err);
#if FUZZ_VALIDATE_SCENE
	if (s && gsio_scene_validate(s, &err)) abort(); // a built scene is always valid
#endif
	gsio_scene_free(s);
	FUZZ_FN(_file_free)(f);
	return 0;
}

#include "fuzz_replay.h"
