/* Fuzz target: the MDL5 writer by round trip. A (mutated) MDL3/4/5 file is
 * decoded into a scene, written as MDL5, and the output must decode again
 * with the same triangle and frame counts (double-sided parts twice); a write may fail only with a
 * code and a message (a limit, a scene that a bad file made). libFuzzer
 * target with GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsio_mdl.h"
#include "gsio_write.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, "in.mdl", &opts, &err);
	if (!f) return 0;
	gsio_scene *s = gsio_mdl_to_scene(f, "in.mdl", &opts, &err);
	gsio_mdl_file_free(f);
	if (!s) return 0;
	gsio_mdl5_write_opts wo = {.memory_limit = FUZZ_MEMORY_LIMIT};
	wo.mipmaps = size & 1; // both ways, picked by the input
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (gsio_mdl5_write(s, &wo, &out, &out_size, &err)) {
		fuzz_check_failure(&err);
		gsio_scene_free(s);
		return 0;
	}
	gsio_mdl_file *g = gsio_mdl_decode(out, out_size, "out.mdl", &opts, &err);
	if (!g) abort(); // what the writer writes, the reader reads
	// A part with a double-sided material is written both ways round (the
	// loader folded such pairs into one face: gsioi_scene_util.h).
	size_t tris = 0, frames = 1;
	for (size_t i = 0; i < s->meshes_count; i++)
		for (size_t p = 0; p < s->meshes[i].parts_count; p++) {
			const gsio_mesh_part *pt = &s->meshes[i].parts[p];
			bool both = pt->material >= 0 && (size_t)pt->material < s->materials_count &&
			            s->materials[pt->material].double_sided;
			tris += pt->index_count / 3 * (both ? 2 : 1);
		}
	if (s->meshes_count && s->meshes[0].frames_count > 1) frames = s->meshes[0].frames_count;
	if (g->triangles_count != tris || g->frames_count != frames || g->version != 5) abort();
	gsio_scene *s2 = gsio_mdl_to_scene(g, "out.mdl", &opts, &err);
	if (!s2) fuzz_check_failure(&err);
	gsio_scene_free(s2);
	gsio_mdl_file_free(g);
	free(out);
	gsio_scene_free(s);
	return 0;
}

#include "fuzz_replay.h"
