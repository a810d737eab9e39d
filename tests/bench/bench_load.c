/* gsio_bench in process: every contender on the same bytes in memory, in an
 * order rotated per repetition (bench.c lists them). */
#define _GNU_SOURCE
#include "bench.h"
#include "gsio.h"
#include "gsio_gltf.h"
#include "gsio_hmp.h"
#include "gsio_md5.h"
#include "gsio_mdl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#endif

// -- In-process contenders

typedef enum { K_OTHER, K_MDL, K_HMP, K_MD5MESH, K_MD5ANIM } file_kind;

static file_kind kind_of(const bench_file *f)
{
	if (ends_with(f->path, ".md5mesh")) return K_MD5MESH;
	if (ends_with(f->path, ".md5anim")) return K_MD5ANIM;
	if (f->size >= 4 && !memcmp(f->data, "MDL", 3) && f->data[3] >= '3' && f->data[3] <= '5')
		return K_MDL;
	if (f->size >= 4 && !memcmp(f->data, "HMP", 3)) return K_HMP;
	return K_OTHER;
}

#ifdef GSIO_HAVE_ASSIMP
/** The file's extension, Assimp's format hint. */
static const char *kind_ext(const bench_file *f)
{
	const char *dot = strrchr(base_name(f->path), '.');
	return dot ? dot + 1 : "";
}
#endif

/** The path the importers see: MD5 meshes get none, so no sibling .md5anim is
 *  read from disk (the in-process figures are on the bytes in memory only). */
static const char *load_path(const bench_file *f, file_kind k)
{
	return k == K_MD5MESH ? NULL : f->path;
}

/* Within run_contender: decodes f with `decode` into a `type` (freed with
 * free_fn) and returns the time it took, NAN when it failed. */
#define TIMED_DECODE(type, decode, free_fn)                                                   \
	do {                                                                                  \
		type *m = decode(f->data, f->size, f->path, NULL, &err);                          \
		t = now_ms() - t0;                                                                \
		bool ok_ = m != NULL;                                                             \
		free_fn(m);                                                                       \
		return ok_ ? t : NAN;                                                             \
	} while (0)

/** Runs one contender once; returns its time in ms, or NAN when it failed or
 *  does not apply. *out_bytes gets the glTF size for C_WRITE. */
static double run_contender(int c, const bench_file *f, file_kind k, uint8_t *scratch,
                            const gsio_scene *scene, size_t *out_bytes)
{
	gsio_error err;
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	double t0 = now_ms(), t;
	switch (c) {
	case C_MEMCPY:
		memcpy(scratch, f->data, f->size);
		t = now_ms() - t0;
		__asm__ volatile("" ::"r"(scratch) : "memory");
		return t;
	case C_DECODE:
		if (k == K_MDL) TIMED_DECODE(gsio_mdl_file, gsio_mdl_decode, gsio_mdl_file_free);
		if (k == K_HMP) TIMED_DECODE(gsio_hmp_file, gsio_hmp_decode, gsio_hmp_file_free);
		if (k == K_MD5MESH) TIMED_DECODE(gsio_md5_mesh, gsio_md5_mesh_decode, gsio_md5_mesh_free);
		if (k == K_MD5ANIM) TIMED_DECODE(gsio_md5_anim, gsio_md5_anim_decode, gsio_md5_anim_free);
		return NAN;
	case C_LOAD:
	case C_FIRST:
	case C_BORROW:
	case C_GRID: {
		if (k == K_MD5ANIM) return NAN;
		if (c == C_FIRST) opts.flags = GSIO_OPT_NO_ANIMATION;
		if (c == C_BORROW) opts.flags = GSIO_OPT_BORROW; // the scene may point into f->data
		if (c == C_GRID) opts.flags = GSIO_OPT_GRID; // terrains kept as grids
		gsio_scene *s = gsio_load_memory(f->data, f->size, load_path(f, k), &opts, &err);
		t = now_ms() - t0;
		gsio_scene_free(s);
		return s ? t : NAN;
	}
	case C_ASSIMP: {
#ifdef GSIO_HAVE_ASSIMP
		if (k == K_MD5ANIM) return NAN;
		// Stock Assimp 5.2.5 segfaults on boned MDL7 files (assimp#5059): no
		// contender there (the table shows n/a).
		if (f->size >= 4 && !memcmp(f->data, "MDL7", 4)) return NAN;
		const struct aiScene *s =
		    aiImportFileFromMemory((const char *)f->data, (unsigned)f->size, 0, kind_ext(f));
		t = now_ms() - t0;
		aiReleaseImport(s);
		return s ? t : NAN;
#else
		return NAN;
#endif
	}
	case C_WRITE: {
		if (!scene) return NAN;
		gsio_gltf_output out;
		gsio_gltf_opts go;
		memset(&go, 0, sizeof(go));
		go.name = "bench";
		t0 = now_ms();
		int rc = gsio_gltf_write(scene, &go, &out, &err);
		t = now_ms() - t0;
		if (!rc && out.files_count) *out_bytes = out.files[0].size;
		gsio_gltf_output_free(&out);
		return rc ? NAN : t;
	}
	}
	return NAN;
}

static double paired_ratio(double *const *t, int reps, int a, int b)
{
	double *r = xmalloc(sizeof(double) * (size_t)reps);
	int n = 0;
	for (int i = 0; i < reps; i++)
		if (isfinite(t[i][a]) && isfinite(t[i][b]) && t[i][b] > 0) r[n++] = t[i][a] / t[i][b];
	double m = median(r, n);
	free(r);
	return m;
}

/* The first-frame load (GSIO_OPT_NO_ANIMATION) with the caches as cold for
 * one file as for another: each run after twice the last-level cache (at
 * least 64 MiB, at most 1 GiB) written elsewhere. In the rotated table a
 * file of a few MB stays in the caches from one contender to the next and
 * one of 80 MB cannot, which there costs the 500-frame MDL5's first frame
 * about 1 ms more than the 31-frame one's (the same skin, the same first
 * frame) for the caches alone; the goal compares these. Median ms. */
static double first_frame_cold(const bench_file *f, int reps)
{
	static uint8_t *evict;
	static size_t evict_size;
	if (!evict) {
		long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
		evict_size = l3 > 0 ? 2 * (size_t)l3 : 0;
		if (evict_size < ((size_t)64 << 20)) evict_size = (size_t)64 << 20;
		if (evict_size > ((size_t)1 << 30)) evict_size = (size_t)1 << 30;
		evict = xmalloc(evict_size);
	}
	double *t = xmalloc(sizeof(double) * (size_t)reps);
	int n = 0;
	for (int i = 0; i < reps; i++) {
		memset(evict, i + 1, evict_size);
		__asm__ volatile("" ::"r"(evict) : "memory");
		gsio_opts opts;
		memset(&opts, 0, sizeof(opts));
		opts.flags = GSIO_OPT_NO_ANIMATION;
		gsio_error err;
		double t0 = now_ms();
		gsio_scene *s = gsio_load_memory(f->data, f->size, f->path, &opts, &err);
		double ms = now_ms() - t0;
		gsio_scene_free(s);
		if (s) t[n++] = ms;
	}
	double m = n == reps ? median(t, n) : NAN;
	free(t);
	return m;
}

void bench_in_process(bench_file *f, int reps, file_result *res)
{
	file_kind k = kind_of(f);
	gsio_error err;
	gsio_scene *scene = NULL;
	if (k != K_MD5ANIM) {
		scene = gsio_load_memory(f->data, f->size, load_path(f, k), NULL, &err);
		res->read = scene != NULL;
	} else {
		gsio_md5_anim *a = gsio_md5_anim_decode(f->data, f->size, f->path, NULL, &err);
		res->read = a != NULL;
		gsio_md5_anim_free(a);
	}
	if (!res->read) return;
	uint8_t *scratch = xmalloc(f->size);
	memset(scratch, 1, f->size);
	double **t = xmalloc(sizeof(double *) * (size_t)reps);
	for (int i = 0; i < reps; i++) {
		t[i] = xmalloc(sizeof(double) * C_COUNT);
		for (int j = 0; j < C_COUNT; j++) {
			int c = (i + j) % C_COUNT; // rotated: each contender leads in turn
			t[i][c] = run_contender(c, f, k, scratch, scene, &res->gltf_bytes);
		}
	}
	double *col = xmalloc(sizeof(double) * (size_t)reps);
	for (int c = 0; c < C_COUNT; c++) {
		int n = 0;
		for (int i = 0; i < reps; i++)
			if (isfinite(t[i][c])) col[n++] = t[i][c];
		res->med[c] = n == reps ? median(col, n) : NAN;
	}
	res->first_cold_ms = !strncmp(base_name(f->path), "synth-mdl5", 10) ? first_frame_cold(f, reps) : NAN;
	res->load_vs_assimp = paired_ratio(t, reps, C_LOAD, C_ASSIMP);
	res->first_vs_assimp = paired_ratio(t, reps, C_FIRST, C_ASSIMP);
	res->borrow_vs_assimp = paired_ratio(t, reps, C_BORROW, C_ASSIMP);
	res->load_vs_memcpy = paired_ratio(t, reps, isnan(res->med[C_LOAD]) ? C_DECODE : C_LOAD,
	                                   C_MEMCPY);
	free(col);
	for (int i = 0; i < reps; i++) free(t[i]);
	free(t);
	free(scratch);
	gsio_scene_free(scene);
}
