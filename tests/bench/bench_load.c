/* Benchmark: load time and memory of gsio against Assimp on the same files.
 * `gsio_bench [--iterations N] FILE...` prints one row per file: the median
 * load time of gsio (decode + scene) and of Assimp's own loader (aiImportFile
 * with no post-processing), and the bytes each keeps for the loaded scene
 * (gsio: arena bytes; Assimp: aiGetMemoryRequirements total). gsio loads every
 * frame; Assimp only the first, so a second gsio column loads with
 * GSIO_OPT_NO_ANIMATION (first frame only, like Assimp). Figures, not a
 * pass/fail test: timings depend on the machine. */
#define _POSIX_C_SOURCE 200809L
#include "gsio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#endif

size_t gsioi_arena_used(const gsio_arena *arena); // from gsio_internal.h

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	int iters = 20, first = 1;
	if (argc > 2 && !strcmp(argv[1], "--iterations")) {
		iters = atoi(argv[2]);
		first = 3;
	}
	if (iters < 1 || iters > 10000 || first >= argc) {
		fprintf(stderr, "usage: gsio_bench [--iterations N] FILE...\n");
		return 2;
	}
	double *t = malloc(sizeof(double) * (size_t)iters);
	printf("%-32s %9s %11s %9s %10s %9s %12s %8s\n", "file", "gsio ms", "gsio bytes", "1st-fr ms",
	       "1st bytes", "assimp ms", "assimp bytes", "speedup");
	double sum_g = 0, sum_a = 0;
	for (int f = first; f < argc; f++) {
		const char *path = argv[f];
		size_t bytes = 0, bytes1 = 0;
		int ok = 1;
		double g1 = 0;
		for (int pass = 1; pass >= 0 && ok; pass--) {
			gsio_opts opts;
			memset(&opts, 0, sizeof(opts));
			if (pass) opts.flags = GSIO_OPT_NO_ANIMATION;
			for (int i = 0; i < iters && ok; i++) {
				gsio_error err;
				double t0 = now_ms();
				gsio_scene *s = gsio_load_file(path, &opts, &err);
				t[i] = now_ms() - t0;
				if (!s) {
					ok = 0;
					break;
				}
				*(pass ? &bytes1 : &bytes) = gsioi_arena_used(s->arena);
				gsio_scene_free(s);
			}
			if (pass && ok) g1 = median(t, iters);
		}
		const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		if (!ok) {
			printf("%-32s %9s\n", base, "error");
			continue;
		}
		double g = median(t, iters);
		double a = -1;
		size_t abytes = 0;
#ifdef GSIO_HAVE_ASSIMP
		int aok = 1;
		for (int i = 0; i < iters && aok; i++) {
			double t0 = now_ms();
			const struct aiScene *sc = aiImportFile(path, 0);
			t[i] = now_ms() - t0;
			if (!sc) {
				aok = 0;
				break;
			}
			struct aiMemoryInfo mi;
			aiGetMemoryRequirements(sc, &mi);
			abytes = mi.total;
			aiReleaseImport(sc);
		}
		if (aok) a = median(t, iters);
#endif
		sum_g += g1;
		if (a >= 0) {
			sum_a += a;
			printf("%-32s %9.3f %11zu %9.3f %10zu %9.3f %12zu %7.1fx\n", base, g, bytes, g1,
			       bytes1, a, abytes, a / g1);
		} else {
			printf("%-32s %9.3f %11zu %9.3f %10zu %9s\n", base, g, bytes, g1, bytes1, "n/a");
		}
	}
	printf("total of medians: gsio first frame %.3f ms, assimp %.3f ms\n", sum_g, sum_a);
	free(t);
	return 0;
}
