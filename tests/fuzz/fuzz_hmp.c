/* Fuzz target: the HMP4/5/7 codec on its own. Whatever gsio_hmp_decode()
 * accepts must encode back to exactly the same bytes (the codec's promise)
 * and must build a scene (or fail with a code); libFuzzer target with
 * GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsio_hmp.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = (size_t)256 << 20;
	gsio_error err;
	gsio_hmp_file *f = gsio_hmp_decode(data, size, "in.hmp", &opts, &err);
	if (!f) {
		if (err.code == GSIO_OK || !err.message[0]) abort();
		return 0;
	}
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (gsio_hmp_encode(f, &out, &out_size, &err)) abort(); // a decoded file must encode
	if (out_size != size || memcmp(out, data, size)) abort(); // ... to the same bytes
	free(out);
	gsio_scene *s = gsio_hmp_to_scene(f, "in.hmp", &opts, &err);
	if (!s && (err.code == GSIO_OK || !err.message[0])) abort();
	gsio_scene_free(s);
	gsio_hmp_file_free(f);
	return 0;
}

#include "fuzz_replay.h"
