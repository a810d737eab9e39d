/* The glTF writer on every corpus model the importers read (MDL, HMP, MD5):
 * each written to GLB in memory and read back (JSON with cJSON, buffers by
 * hand): positions through the axis change, their min/max, one dense morph
 * target per frame, material names. */
#include "test_util.h"
#include "gltf_test_util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void check_corpus_scene(const char *path, const gsio_scene *s)
{
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")) >= (int)s->nodes_count, 1);
	size_t written = 0;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		const gsio_mesh *m = &s->meshes[mi];
		if (!m->vertex_count || !m->index_count) continue;
		const cJSON *prim = primitive(&g, (int)written++);
		// Positions: the axis-changed scene positions (glTF x,y,z = scene y,z,x).
		int pa = attribute(prim, "POSITION");
		size_t count;
		int nc;
		double *pos = read_accessor(&g, pa, &count, &nc);
		assert_int_equal(count, m->vertex_count);
		for (size_t v = 0; v < count; v++) {
			assert_true(pos[3 * v + 0] == m->positions[3 * v + 1]);
			assert_true(pos[3 * v + 1] == m->positions[3 * v + 2]);
			assert_true(pos[3 * v + 2] == m->positions[3 * v + 0]);
		}
		free(pos);
		check_min_max(&g, pa, NULL, NULL);
		// Targets: none for a static mesh, else one dense target per frame.
		const cJSON *targets = cJSON_GetObjectItemCaseSensitive(prim, "targets");
		if (m->frames_count < 2) {
			assert_null(targets);
		} else {
			assert_int_equal(cJSON_GetArraySize(targets), (int)m->frames_count);
			const cJSON *t;
			cJSON_ArrayForEach(t, targets)
			{
				const cJSON *a = item(g.doc, "accessors", num(t, "POSITION", -1));
				assert_true(num(a, "bufferView", -1) >= 0);
				assert_null(cJSON_GetObjectItemCaseSensitive(a, "sparse"));
			}
		}
	}
	// Material and image names carry the stem ("model" here).
	const cJSON *mat;
	cJSON_ArrayForEach(mat, arr(g.doc, "materials")) assert_true(!strncmp(str(mat, "name"), "model_", 6));
	const cJSON *anims = arr(g.doc, "animations");
	print_message("%s: %zu nodes, %zu meshes, %d animations -> %zu bytes\n", path, s->nodes_count,
	              s->meshes_count, anims ? cJSON_GetArraySize(anims) : 0, g.out.files[0].size);
	glb_free(&g);
}

static void test_corpus(void **state)
{
	(void)state;
	char **list;
	size_t n = t_corpus_files(t_model_dirs, 3, &list), done = 0, refused = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_error err;
		gsio_scene *s = gsio_load_file(list[i], NULL, &err);
		if (!s) {
			refused++;
		} else {
			check_corpus_scene(list[i], s);
			gsio_scene_free(s);
			done++;
		}
	}
	t_free_list(list, n);
	print_message("%zu corpus files written and read back, %zu not loaded\n", done, refused);
	assert_true(done >= 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
