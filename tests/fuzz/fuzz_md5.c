/* Fuzz target: the MD5 text codecs on their own. Byte 0 picks the codec
 * (% 3: .md5mesh, .md5anim, .md5camera), the rest is the text. Whatever a
 * decoder accepts must encode, the text it encodes to must decode again, and
 * encoding that gives the same text (encode(decode(f)) decodes to equal
 * values, gsio_md5.h). Whatever decodes also builds a scene (no path: no
 * sibling file is opened) that gsio_scene_validate() accepts, or fails with
 * an error code. libFuzzer target with GSIO_LIBFUZZER, else a replay program
 * (fuzz_replay.h). */
#include "gsio_md5.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

// A scene built from what was decoded must pass the validator; a build that
// fails must say why.
static void check_scene(gsio_scene *s, const gsio_error *build_err)
{
	if (!s) {
		if (build_err->code == GSIO_OK) abort();
		return;
	}
	gsio_error err;
	gsio_error_clear(&err);
	if (gsio_scene_validate(s, &err)) abort();
	gsio_scene_free(s);
}

// Decodes and re-encodes as codec `kind`; 0 when decoded and encoded, 1 when
// refused with an error code; aborts on a failure without one and on an
// encoder failure (what was decoded must be writable).
static int round_trip(int kind, const uint8_t *in, size_t in_size, const gsio_opts *opts,
                      uint8_t **out, size_t *out_size)
{
	gsio_error err;
	int rc = 0;
	*out = NULL;
	if (kind == 0) {
		gsio_md5_mesh *m = gsio_md5_mesh_decode(in, in_size, "in.md5mesh", opts, &err);
		if (!m) goto refused;
		check_scene(gsio_md5_mesh_to_scene(m, NULL, opts, &err), &err);
		rc = gsio_md5_mesh_encode(m, out, out_size, &err);
		gsio_md5_mesh_free(m);
	} else if (kind == 1) {
		gsio_md5_anim *a = gsio_md5_anim_decode(in, in_size, "in.md5anim", opts, &err);
		if (!a) goto refused;
		check_scene(gsio_md5_anim_to_scene(a, NULL, opts, &err), &err);
		rc = gsio_md5_anim_encode(a, out, out_size, &err);
		gsio_md5_anim_free(a);
	} else {
		gsio_md5_camera *c = gsio_md5_camera_decode(in, in_size, "in.md5camera", opts, &err);
		if (!c) goto refused;
		check_scene(gsio_md5_camera_to_scene(c, NULL, opts, &err), &err);
		rc = gsio_md5_camera_encode(c, out, out_size, &err);
		gsio_md5_camera_free(c);
	}
	if (rc) abort();
	return 0;
refused:
	fuzz_check_failure(&err);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1) return 0;
	int kind = data[0] % 3;
	gsio_opts opts = fuzz_opts();
	uint8_t *y, *z;
	size_t y_size, z_size;
	if (round_trip(kind, data + 1, size - 1, &opts, &y, &y_size)) return 0;
	if (round_trip(kind, y, y_size, &opts, &z, &z_size)) abort(); // encoded text must decode
	if (y_size != z_size || memcmp(y, z, y_size)) abort();       // ... to the same values
	free(y);
	free(z);
	return 0;
}

#include "fuzz_replay.h"
