/* Fuzz target: the MDL7 writer by round trip. A (mutated) MDL7 file is
 * decoded into a scene, written as MDL7, and the output must decode again
 * and re-encode to the same bytes, with one group per mesh, the triangles
 * of each (double-sided parts twice), the scene's bones (none, or the
 * skin's joints less an import's "unskinned" one) and every group's frames
 * alike; its scene must build. A write may fail only with a code and a
 * message (a limit, a scene that a bad file made). libFuzzer target with
 * GSIO_LIBFUZZER, else a replay program (fuzz_replay.h). */
#include "gsio_mdl7.h"
#include "gsio_write.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

static size_t mesh_triangles(const gsio_scene *s, const gsio_mesh *m)
{
	size_t tris = 0;
	for (size_t p = 0; p < m->parts_count; p++) {
		const gsio_mesh_part *pt = &m->parts[p];
		bool both = pt->material >= 0 && (size_t)pt->material < s->materials_count &&
		            s->materials[pt->material].double_sided;
		tris += pt->index_count / 3 * (both ? 2 : 1);
	}
	return tris;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gsio_opts opts = fuzz_opts();
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(data, size, "in.mdl", &opts, &err);
	if (!f) return 0;
	gsio_scene *s = gsio_mdl7_to_scene(f, "in.mdl", &opts, &err);
	gsio_mdl7_file_free(f);
	if (!s) return 0;
	gsio_mdl7_write_opts wo = {.memory_limit = FUZZ_MEMORY_LIMIT};
	wo.skin_external = size & 1; // both ways, picked by the input
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (gsio_mdl7_write(s, &wo, &out, &out_size, &err)) {
		fuzz_check_failure(&err);
		gsio_scene_free(s);
		return 0;
	}
	gsio_mdl7_file *g = gsio_mdl7_decode(out, out_size, "out.mdl", &opts, &err);
	if (!g) abort(); // what the writer writes, the reader reads
	uint8_t *again = NULL;
	size_t again_size = 0;
	if (gsio_mdl7_encode(g, &again, &again_size, &err) || again_size != out_size ||
	    memcmp(again, out, out_size))
		abort();
	free(again);
	size_t groups = 0;
	for (size_t i = 0; i < s->meshes_count; i++) {
		const gsio_mesh *m = &s->meshes[i];
		if (!m->vertex_count || !m->index_count) continue;
		if (groups >= g->groups_count || g->groups[groups].triangles_count != mesh_triangles(s, m)) abort();
		groups++;
	}
	if (g->groups_count != groups) abort();
	size_t joints = s->skins_count ? s->skins[0].joints_count : 0;
	if (g->bones_count > joints || (joints && g->bones_count + 1 < joints)) abort();
	for (size_t i = 1; i < g->groups_count; i++)
		if (g->groups[i].frames_count != g->groups[0].frames_count) abort();
	gsio_scene *s2 = gsio_mdl7_to_scene(g, "out.mdl", &opts, &err);
	if (!s2) fuzz_check_failure(&err);
	gsio_scene_free(s2);
	gsio_mdl7_file_free(g);
	gsio_write_free(NULL, out);
	gsio_scene_free(s);
	return 0;
}

#include "fuzz_replay.h"
