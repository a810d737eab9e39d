/* Cross-check with the reference reader: Assimp's MDL loader (3D GameStudio
 * MDL3/4/5 path, InternReadFile_3DGS_MDL345) against gsio's decoder, on the
 * first frame of every corpus MDL3/4/5 file.
 *
 * What Assimp does with the axes (measured here, Assimp 5.2.x): the mesh
 * vertices stay in the file's own frame (x, y, z = scale * raw + offset,
 * Z up), and the Z-up -> Y-up change goes into the root node's transform,
 * the rotation (x, y, z) -> (x, z, -y). So with aiImportFile(path, 0) (no
 * post-processing, vertices not joined) mesh vertex == gsio position, and
 * world = root * gsio position. The test finds the best of all 48 signed
 * axis permutations for the raw vertices and requires it to be the identity,
 * and checks the root transform is that rotation. Assimp emits three fresh
 * vertices per triangle, so positions are matched as sets. */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>

// -- Position sets

typedef struct pt {
	float p[3];
	float n[3];
} pt;

static int cmp_x(const void *a, const void *b)
{
	float x = ((const pt *)a)->p[0], y = ((const pt *)b)->p[0];
	return x < y ? -1 : x > y;
}

/* Index of a point of `set` (sorted by x) within tol[k] of q on every axis, or -1. */
static long find_near(const pt *set, size_t n, const float q[3], const float tol[3])
{
	size_t lo = 0, hi = n;
	while (lo < hi) { // first with x >= q.x - tol.x
		size_t mid = (lo + hi) / 2;
		if (set[mid].p[0] < q[0] - tol[0]) lo = mid + 1;
		else hi = mid;
	}
	long best = -1;
	float best_d = 0;
	for (size_t i = lo; i < n && set[i].p[0] <= q[0] + tol[0]; i++) {
		float d = 0;
		int ok = 1;
		for (int k = 0; k < 3; k++) {
			float e = fabsf(set[i].p[k] - q[k]);
			if (e > tol[k]) ok = 0;
			d += e;
		}
		if (ok && (best < 0 || d < best_d)) {
			best = (long)i;
			best_d = d;
		}
	}
	return best;
}

/* The 48 signed axis permutations: out[k] = sign[k] * in[perm[k]]. */
static void axis_map(int m, const float in[3], float out[3])
{
	static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
	const int *p = perms[m / 8];
	for (int k = 0; k < 3; k++) out[k] = ((m >> k) & 1 ? -1.0f : 1.0f) * in[p[k]];
}

// -- The cross-check

/* Compares one file; returns NULL, or Assimp's error when it cannot read it. */
static const char *compare_with_assimp(const char *path, const char *base, uint8_t *data,
                                       size_t size)
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, base, NULL, &err);
	if (!f) fail_msg("%s: %s", base, err.message);
	const struct aiScene *as = aiImportFile(path, 0);
	if (!as) {
		gsio_mdl_file_free(f);
		return aiGetErrorString();
	}
	assert_int_equal(as->mNumMeshes, 1);
	const struct aiMesh *am = as->mMeshes[0];
	assert_int_equal(am->mNumFaces, f->triangles_count);
	assert_int_equal(am->mNumVertices, 3 * f->triangles_count);

	// gsio's first frame: every position a triangle uses, with its outward normal.
	const gsio_mdl_header *h = &f->header;
	size_t nv = (size_t)h->numverts;
	pt *g = calloc(nv ? nv : 1, sizeof(*g));
	unsigned char *used = calloc(nv ? nv : 1, 1);
	assert_non_null(g);
	assert_non_null(used);
	for (size_t t = 0; t < f->triangles_count; t++)
		for (int k = 0; k < 3; k++) used[f->triangles[t].xyz[k]] = 1;
	size_t ng = 0;
	for (size_t v = 0; v < nv; v++) {
		if (!used[v]) continue;
		const gsio_mdl_vertex *pv = &f->frames[0].verts[v];
		for (int k = 0; k < 3; k++) {
			g[ng].p[k] = h->scale[k] * (float)pv->pos[k] + h->offset[k];
			g[ng].n[k] = pv->normal < GSIO_NORMAL_COUNT ? -gsio_anorms[pv->normal][k] : 0;
		}
		ng++;
	}
	qsort(g, ng, sizeof(*g), cmp_x);
	// One quantisation step per axis (plus float noise) is the tolerance.
	float tol[3];
	for (int k = 0; k < 3; k++) tol[k] = fabsf(h->scale[k]) * 1.001f + 1e-5f;

	// Which axis map makes Assimp's raw vertices gsio's? Sample 200 vertices.
	int best_map = -1;
	size_t best_hits = 0;
	size_t step = am->mNumVertices / 200 + 1, sampled = 0;
	for (int m = 0; m < 48; m++) {
		size_t hits = 0;
		sampled = 0;
		for (size_t v = 0; v < am->mNumVertices; v += step, sampled++) {
			float in[3] = {am->mVertices[v].x, am->mVertices[v].y, am->mVertices[v].z}, q[3];
			axis_map(m, in, q);
			if (find_near(g, ng, q, tol) >= 0) hits++;
		}
		if (hits > best_hits) {
			best_hits = hits;
			best_map = m;
		}
	}
	if (best_map != 0)
		fail_msg("%s: Assimp's vertices match gsio best under axis map %d (%zu of %zu), "
		         "not the identity",
		         base, best_map, best_hits, sampled);

	// Every Assimp vertex is a gsio vertex, within one step.
	size_t inward = 0, matched = 0;
	double worst = 0;
	unsigned char *hit = calloc(ng ? ng : 1, 1);
	assert_non_null(hit);
	for (size_t v = 0; v < am->mNumVertices; v++) {
		float q[3] = {am->mVertices[v].x, am->mVertices[v].y, am->mVertices[v].z};
		long j = find_near(g, ng, q, tol);
		if (j < 0)
			fail_msg("%s: Assimp vertex %zu (%g, %g, %g) has no gsio vertex within one step",
			         base, v, q[0], q[1], q[2]);
		hit[j] = 1;
		matched++;
		for (int k = 0; k < 3; k++) {
			double d = fabs((double)q[k] - g[j].p[k]) / fabsf(h->scale[k]);
			if (d > worst) worst = d;
		}
		if (am->mNormals) {
			double dot = 0;
			for (int k = 0; k < 3; k++)
				dot += (double)g[j].n[k] * (k == 0 ? am->mNormals[v].x
				                              : k == 1 ? am->mNormals[v].y
				                                       : am->mNormals[v].z);
			if (dot < 0) inward++;
		}
	}
	// And every position a triangle uses appears in Assimp's mesh.
	size_t missed = 0;
	for (size_t j = 0; j < ng; j++) missed += !hit[j];
	// Positions can coincide, so a gsio vertex may be "missed" only when a twin was hit.
	for (size_t j = 0; j < ng && missed; j++) {
		if (hit[j]) continue;
		for (size_t k2 = 0; k2 < ng; k2++)
			if (hit[k2] && !memcmp(g[k2].p, g[j].p, sizeof(g[j].p))) {
				missed--;
				break;
			}
	}
	assert_int_equal(missed, 0);

	// The root node: Z up -> Y up, (x, y, z) -> (x, z, -y).
	const struct aiMatrix4x4 *r = &as->mRootNode->mTransformation;
	const float want[3][3] = {{1, 0, 0}, {0, 0, 1}, {0, -1, 0}};
	const float got[3][3] = {{r->a1, r->a2, r->a3}, {r->b1, r->b2, r->b3}, {r->c1, r->c2, r->c3}};
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) assert_true(fabsf(got[a][b] - want[a][b]) < 1e-6f);

	print_message("%-24s %5u Assimp vertices = %4zu gsio positions (worst %.3f steps); "
	              "Assimp normals opposite to gsio's outward ones: %zu of %zu\n",
	              base, am->mNumVertices, ng, worst, inward, matched);
	free(hit);
	free(g);
	free(used);
	aiReleaseImport(as);
	gsio_mdl_file_free(f);
	return NULL;
}

static int is_mdl345(const uint8_t *d, size_t n)
{
	return n >= 4 && (!memcmp(d, "MDL3", 4) || !memcmp(d, "MDL4", 4) || !memcmp(d, "MDL5", 4));
}

static void test_assimp_first_frame(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char **list;
	size_t n = t_list_files(t_corpus_path("mdl"), ".mdl", &list), compared = 0;
	for (size_t i = 0; i < n; i++) {
		size_t size;
		uint8_t *data = t_read_file(list[i], &size);
		if (is_mdl345(data, size)) {
			const char *why = compare_with_assimp(list[i], gsioi_path_base(list[i]), data, size);
			if (why) fail_msg("Assimp cannot read %s: %s", list[i], why);
			compared++;
		}
		free(data);
	}
	t_free_list(list, n);
	assert_true(compared >= 9);
}

/* The project's own samples, read by Assimp: an independent check of the
 * writer. argb4444.mdl is left out: Assimp 5.2.5 rejects every ARGB4444 skin
 * ("Invalid MDL file. The file is too small", MDLMaterialLoader.cpp: its
 * 4444 branch checks for width*height*4 bytes where the format has 2 per
 * texel) and leaks the 24 KB texture it had allocated, which fails the ASan
 * run. */
static void test_assimp_samples(void **state)
{
	(void)state;
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/samples", GSIO_SOURCE_DIR);
	char **list;
	size_t n = t_list_files(dir, ".mdl", &list), compared = 0;
	assert_true(n >= 6);
	for (size_t i = 0; i < n; i++) {
		const char *base = gsioi_path_base(list[i]);
		if (!strcmp(base, "argb4444.mdl")) {
			print_message("%-24s not given to Assimp (it rejects ARGB4444 skins)\n", base);
			continue;
		}
		size_t size;
		uint8_t *data = t_read_file(list[i], &size);
		const char *why = compare_with_assimp(list[i], base, data, size);
		if (why) fail_msg("Assimp cannot read %s: %s", list[i], why);
		compared++;
		free(data);
	}
	t_free_list(list, n);
	assert_true(compared >= 5);
}

#endif

T_ASSIMP_MAIN(cmocka_unit_test(test_assimp_first_frame), cmocka_unit_test(test_assimp_samples))
