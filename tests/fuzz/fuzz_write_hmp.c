/* Fuzz target: the HMP5 writer by round trip. A (mutated) HMP4/5/7 file is
 * decoded into a scene, written as HMP5, and the output must decode again
 * with the same grid and frame count; a write may fail only with a code and
 * a message. libFuzzer target with GSIO_LIBFUZZER, else a replay program. */
#include "gsio_hmp.h"
#include "gsio_write.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_hmp_file *f = gsio_hmp_decode(data, size, "in.hmp", &opts, &err);
	if (!f) return 0;
	gsio_scene *s = gsio_hmp_to_scene(f, "in.hmp", &opts, &err);
	gsio_hmp_file_free(f);
	if (!s) return 0;
	gsio_hmp5_write_opts wo = {.memory_limit = FUZZ_MEMORY_LIMIT};
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (gsio_hmp5_write(s, &wo, &out, &out_size, &err)) {
		fuzz_check_failure(&err);
		gsio_scene_free(s);
		return 0;
	}
	gsio_hmp_file *g = gsio_hmp_decode(out, out_size, "out.hmp", &opts, &err);
	if (!g) abort();
	if (!s->terrain || g->columns != s->terrain->columns || g->rows != s->terrain->rows ||
	    g->frames_count != s->meshes[s->terrain->mesh].frames_count || g->version != 5)
		abort();
	gsio_scene *s2 = gsio_hmp_to_scene(g, "out.hmp", &opts, &err);
	if (!s2) abort();
	gsio_scene_free(s2);
	gsio_hmp_file_free(g);
	free(out);
	gsio_scene_free(s);
	return 0;
}

#include "fuzz_replay.h"
