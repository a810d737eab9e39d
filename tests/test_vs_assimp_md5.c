/* Cross-check with Assimp's own MD5 loader (C API): the bind-pose vertex
 * positions gsio computes from the weights must equal Assimp's, compared as
 * sets per mesh within 1e-3.
 *
 * What Assimp 5.2.5 does with MD5, as measured here (the test prints it):
 * the mesh vertices stay in the file's object space (Z up), and the root
 * node carries the axis change, a rotation of -90 degrees about X, so
 * (x, y, z) -> (x, z, -y): Y up. Each triangle corner becomes its own vertex
 * (3 per triangle), and the texture coordinate is (s, 1 - t): Assimp's
 * origin is the bottom-left, gsio keeps MD5's top-left like glTF. */
#include "test_util.h"

#include "gsio_md5.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

static void compare_file(const char *rel)
{
	const char *path = t_corpus_path(rel);
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	gsio_scene *s = t_load_ok(path, &opts);
	gsio_error verr;
	gsio_error_clear(&verr);
	assert_int_equal(gsio_scene_validate(s, &verr), 0);
	const struct aiScene *ai = aiImportFile(path, 0);
	if (!ai) fail_msg("Assimp cannot read %s: %s", path, aiGetErrorString());
	const struct aiMatrix4x4 *r = &ai->mRootNode->mTransformation;
	print_message("  %s: Assimp root node rows (%g %g %g) (%g %g %g) (%g %g %g)\n", rel,
	              (double)r->a1, (double)r->a2, (double)r->a3, (double)r->b1, (double)r->b2,
	              (double)r->b3, (double)r->c1, (double)r->c2, (double)r->c3);
	// The measured axis change: x stays, Assimp's y is the file's z, its z is -y.
	assert_true(fabsf(r->a1 - 1) < 1e-6f && fabsf(r->b3 - 1) < 1e-6f && fabsf(r->c2 + 1) < 1e-6f);
	assert_int_equal(ai->mNumMeshes, s->meshes_count);
	double worst = 0;
	size_t flipped_v = 0, same_v = 0, ai_verts = 0;
	for (size_t m = 0; m < s->meshes_count; m++) {
		const struct aiMesh *am = ai->mMeshes[m];
		const gsio_mesh *gm = &s->meshes[m];
		assert_int_equal(am->mNumFaces * 3, gm->index_count);
		ai_verts += am->mNumVertices;
		float *ap = malloc((size_t)am->mNumVertices * 3 * sizeof(float));
		for (unsigned v = 0; v < am->mNumVertices; v++) {
			ap[3 * v] = am->mVertices[v].x;
			ap[3 * v + 1] = am->mVertices[v].y;
			ap[3 * v + 2] = am->mVertices[v].z;
		}
		double d1 = t_one_way_distance(gm->positions, gm->vertex_count, ap, am->mNumVertices);
		double d2 = t_one_way_distance(ap, am->mNumVertices, gm->positions, gm->vertex_count);
		if (d1 > worst) worst = d1;
		if (d2 > worst) worst = d2;
		// UV convention, on Assimp's corner vertices: corner k of face f is
		// gsio's triangle f (whose winding gsio reversed) at some corner.
		if (am->mTextureCoords[0])
			for (unsigned f = 0; f < am->mNumFaces; f++)
				for (unsigned k = 0; k < am->mFaces[f].mNumIndices; k++) {
					unsigned av = am->mFaces[f].mIndices[k];
					for (int c = 0; c < 3; c++) {
						uint32_t gv = gm->indices[3 * f + (size_t)c];
						const float *gp = &gm->positions[3 * gv];
						if (fabsf(gp[0] - ap[3 * av]) > 1e-3f || fabsf(gp[1] - ap[3 * av + 1]) > 1e-3f ||
						    fabsf(gp[2] - ap[3 * av + 2]) > 1e-3f)
							continue;
						float s0 = gm->uvs[2 * gv], t0 = gm->uvs[2 * gv + 1];
						const struct aiVector3D *uv = &am->mTextureCoords[0][av];
						if (fabsf(uv->x - s0) < 1e-6f && fabsf(uv->y - (1 - t0)) < 1e-6f) flipped_v++;
						if (fabsf(uv->x - s0) < 1e-6f && fabsf(uv->y - t0) < 1e-6f) same_v++;
						break;
					}
				}
		free(ap);
	}
	print_message("  %s: %zu gsio vertices, %zu Assimp vertices, set distance %.3g; UVs: %zu "
	              "corners are (s, 1-t), %zu are (s, t)\n",
	              rel, s->source.vertices, ai_verts, worst, flipped_v, same_v);
	assert_true(worst < 1e-3);
	assert_true(flipped_v > same_v);
	aiReleaseImport(ai);
	gsio_scene_free(s);
}

static void test_bind_pose_vs_assimp(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	compare_file("md5/SimpleCube.md5mesh");
	compare_file("md5/bob/Bob.md5mesh");
}
#endif

T_ASSIMP_MAIN(cmocka_unit_test(test_bind_pose_vs_assimp))
