/* Fuzz target: the MDL7 codec on its own. Whatever gsio_mdl7_decode()
 * accepts must encode back to exactly the same bytes (the codec's promise)
 * and must build a valid scene (or fail with a code); libFuzzer target with
 * GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsio_mdl7.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = (size_t)256 << 20;
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(data, size, "in.mdl", &opts, &err);
	if (!f) {
		if (err.code == GSIO_OK || !err.message[0]) abort();
		return 0;
	}
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (gsio_mdl7_encode(f, &out, &out_size, &err)) abort(); // a decoded file must encode
	if (out_size != size || memcmp(out, data, size)) abort(); // ... to the same bytes
	free(out);
	gsio_scene *s = gsio_mdl7_to_scene(f, "in.mdl", &opts, &err);
	if (!s && (err.code == GSIO_OK || !err.message[0])) abort();
	if (s && gsio_scene_validate(s, &err)) abort(); // a built scene is always valid
	gsio_scene_free(s);
	gsio_mdl7_file_free(f);
	return 0;
}

#include "fuzz_replay.h"
