/* HMP5 and HMP7 against Assimp's loader (the reference reader), through its C API.
 *
 * Where they agree: the grid size (Assimp emits one 4-vertex face per cell,
 * so cells are compared, not vertices) and the raw height of every vertex.
 * Where Assimp is wrong, and this test pins it down so a change shows up:
 * - height: Assimp ignores the header's scale[2]/offset[2] and uses
 *   z = (raw / 65535 - 0.5) * ftrisize_x * 8 (a FIXME in its source); gsio
 *   uses the seed's scale[2] * raw + offset[2];
 * - x and y start at 0 (the header offsets are ignored) and y grows with the
 *   row, so its terrain is mirrored in y against the stored normals (row 0 is
 *   the +y edge, docs/FORMATS.md §6.4);
 * - its normals are the table's as stored, which point down into the ground. */
#include "test_util.h"

#include "gsio_hmp.h"
#include "gsioi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>

static void test_shadow5_vs_assimp(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *path = t_corpus_path("hmp/shadow-5.hmp");
	gsio_error err;
	gsio_scene *s = t_load_ok(path, NULL);
	if (gsio_scene_validate(s, &err)) fail_msg("gsio scene fails validation: %s", err.message);
	const struct aiScene *as = aiImportFile(path, 0);
	if (!as) fail_msg("assimp: %s", aiGetErrorString());
	assert_int_equal(as->mNumMeshes, 1);
	const struct aiMesh *am = as->mMeshes[0];
	const gsio_terrain *t = s->terrain;
	const gsio_mesh *m = &s->meshes[0];
	size_t cells = (size_t)(t->columns - 1) * (t->rows - 1);
	size_t quads = 0, tris = 0;
	for (unsigned i = 0; i < am->mNumFaces; i++) {
		if (am->mFaces[i].mNumIndices == 4) quads++;
		else if (am->mFaces[i].mNumIndices == 3) tris++;
	}
	print_message("assimp: %u vertices, %u faces (%zu quads, %zu triangles); gsio: %zu vertices, "
	              "%zu triangles, %zu cells\n",
	              am->mNumVertices, am->mNumFaces, quads, tris, m->vertex_count,
	              m->index_count / 3, cells);
	// Cells agree; Assimp's vertices are 4 fresh ones per cell, ours shared.
	assert_int_equal(quads + tris / 2, cells);
	assert_int_equal(m->index_count / 6, cells);
	assert_int_equal(am->mNumVertices, 4 * cells);
	assert_int_equal(m->vertex_count, (size_t)t->columns * t->rows);

	size_t differ = 0, normals_down = 0;
	float min_x = 1e30f, min_y = 1e30f;
	for (unsigned i = 0; i < am->mNumVertices; i++) {
		const struct aiVector3D *p = &am->mVertices[i];
		min_x = fminf(min_x, p->x);
		min_y = fminf(min_y, p->y);
		// Assimp's grid: x = column * cell_x, y = row * cell_y, from 0.
		float fc = p->x / t->cell_x, fr = p->y / t->cell_y;
		long c = lroundf(fc), r = lroundf(fr);
		assert_true(fabsf(fc - (float)c) < 1e-3f && fabsf(fr - (float)r) < 1e-3f);
		assert_true(c >= 0 && c < (long)t->columns && r >= 0 && r < (long)t->rows);
		size_t v = (size_t)r * t->columns + (size_t)c;
		float raw = (float)t->raw_heights[v];
		// The same record: Assimp's formula applied to our raw height gives its z.
		float assimp_z = (raw / 65535.0f - 0.5f) * t->cell_x * 8.0f;
		if (fabsf(p->z - assimp_z) > 1e-2f)
			fail_msg("vertex %u (row %ld, column %ld): assimp z %f, its formula on raw %g gives %f",
			         i, r, c, (double)p->z, (double)raw, (double)assimp_z);
		// ... and it is not the seed's height, which gsio uses.
		float ours = m->positions[3 * v + 2];
		assert_float_equal(ours, t->height_scale * raw + t->height_offset, 1e-3f);
		if (fabsf(ours - p->z) > 1.0f) differ++;
		// Our x for that column is Assimp's shifted by the header offset; our y is
		// mirrored (row 0 at +y).
		assert_float_equal(m->positions[3 * v], p->x + t->origin[0], 0.01f);
		assert_float_equal(m->positions[3 * v + 1],
		                   t->origin[1] + (float)(t->rows - 1) * t->cell_y - p->y, 0.01f);
		if (am->mNormals && am->mNormals[i].z < 0) normals_down++;
	}
	print_message("assimp: heights differ from the seed's formula at %zu of %u vertices; "
	              "x starts at %g, y at %g; %zu of its normals point down\n",
	              differ, am->mNumVertices, (double)min_x, (double)min_y, normals_down);
	assert_true(differ * 10 > (size_t)am->mNumVertices * 9);
	assert_float_equal(min_x, 0.0f, 1e-3f);
	assert_float_equal(min_y, 0.0f, 1e-3f);
	assert_non_null(am->mNormals);
	assert_true(normals_down * 10 > (size_t)am->mNumVertices * 9);
	aiReleaseImport(as);
	gsio_scene_free(s);
}

/* HMP7: grid and raw heights agree as for HMP5 (same height FIXME). The
 * normals: Assimp takes normalize(nx / 128, ny / 128, 1), so it keeps the
 * stored direction, which points into the ground in x and y (hmp.c, measured
 * against the height gradient); gsio negates x and y. */
static void test_hmp7_vs_assimp(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *files[] = {"hmp/assimp-terrain.hmp", "hmp/lgs-small.hmp"};
	for (size_t i = 0; i < 2; i++) {
		const char *path = t_corpus_path(files[i]);
		size_t size;
		uint8_t *data = t_read_file(path, &size);
		gsio_error err;
		gsio_hmp_file *f = gsio_hmp_decode(data, size, path, NULL, &err);
		if (!f) fail_msg("gsio: %s", err.message);
		gsio_scene *s = gsio_hmp_to_scene(f, path, NULL, &err);
		if (!s) fail_msg("gsio: %s", err.message);
		if (gsio_scene_validate(s, &err)) fail_msg("gsio scene fails validation: %s", err.message);
		const struct aiScene *as = aiImportFile(path, 0);
		if (!as) fail_msg("assimp: %s", aiGetErrorString());
		const struct aiMesh *am = as->mMeshes[0];
		const gsio_terrain *t = s->terrain;
		const gsio_mesh *m = &s->meshes[0];
		size_t cells = (size_t)(t->columns - 1) * (t->rows - 1);
		assert_int_equal(am->mNumFaces, cells);
		assert_int_equal(am->mNumVertices, 4 * cells);
		assert_non_null(am->mNormals);
		size_t opposite = 0, tilted = 0;
		for (unsigned k = 0; k < am->mNumVertices; k++) {
			const struct aiVector3D *p = &am->mVertices[k];
			long c = lroundf(p->x / t->cell_x), r = lroundf(p->y / t->cell_y);
			assert_true(c >= 0 && c < (long)t->columns && r >= 0 && r < (long)t->rows);
			size_t v = (size_t)r * t->columns + (size_t)c;
			float raw = (float)t->raw_heights[v];
			assert_float_equal(p->z, (raw / 65535.0f - 0.5f) * t->cell_x * 8.0f, 1e-2f);
			const gsio_hmp_height *h = &f->frames[0].heights[v];
			float nx = (float)(int8_t)h->normal / 128.0f, ny = (float)(int8_t)h->pad / 128.0f;
			float len = sqrtf(nx * nx + ny * ny + 1.0f);
			const struct aiVector3D *an = &am->mNormals[k];
			assert_float_equal(an->x, nx / len, 1e-4f);
			assert_float_equal(an->y, ny / len, 1e-4f);
			if (nx != 0 || ny != 0) {
				tilted++;
				if (an->x * m->normals[3 * v] + an->y * m->normals[3 * v + 1] < 0) opposite++;
			}
		}
		print_message("%s: assimp %u vertices / %u faces, gsio %zu / %zu cells; normals tilt the "
		              "other way at %zu of %zu tilted vertices\n",
		              files[i], am->mNumVertices, am->mNumFaces, m->vertex_count, cells, opposite,
		              tilted);
		assert_int_equal(opposite, tilted);
		aiReleaseImport(as);
		gsio_scene_free(s);
		gsio_hmp_file_free(f);
		free(data);
	}
}
#endif

T_ASSIMP_MAIN(cmocka_unit_test(test_shadow5_vs_assimp), cmocka_unit_test(test_hmp7_vs_assimp))
