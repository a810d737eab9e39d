/* gsio_bench: the whole corpus folder as one batch. Every file gsio reads,
 * converted by one mdl2gltf run (-j 1, then -j 2), against a loop of
 * assimp export over the files Assimp converts with a mesh; the files
 * Assimp crashes on, fails on or writes no mesh for are counted, not left
 * out silently. */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void bench_folder(const char *base, size_t corpus_count, const file_result *res, int reps, folder_result *out)
{
	memset(out, 0, sizeof(*out));
	char list[400], outdir[400], aout[400];
	snprintf(list, sizeof(list), "%s/folder-list.txt", tmpdir);
	snprintf(outdir, sizeof(outdir), "%s/folder", tmpdir);
	snprintf(aout, sizeof(aout), "%s/folder-assimp.glb", tmpdir);
	FILE *lf = fopen(list, "w");
	if (!lf) return;
	const char **afiles = xmalloc(sizeof(char *) * (corpus_count ? corpus_count : 1));
	for (size_t fi = 0; fi < corpus_count; fi++) {
		const file_result *r = &res[fi];
		if (!r->read || ends_with(files[fi].path, ".md5anim")) continue;
		fprintf(lf, "%s\n", files[fi].path);
		out->files++;
		if (!r->e2e) continue;
		if (r->assimp_crashed)
			out->assimp_crash++;
		else if (!isfinite(r->e2e_assimp_ms))
			out->assimp_fail++;
		else if (r->assimp_empty)
			out->assimp_empty++;
		else
			afiles[out->assimp_files++] = files[fi].path;
	}
	fclose(lf);
	int n = reps < 5 ? 5 : reps;
	double *t1 = xmalloc(sizeof(double) * (size_t)n), *t2 = xmalloc(sizeof(double) * (size_t)n),
	       *ta = xmalloc(sizeof(double) * (size_t)n), *ra = xmalloc(sizeof(double) * (size_t)n),
	       *rj = xmalloc(sizeof(double) * (size_t)n);
	int n1 = 0, n2 = 0, na = 0, nra = 0, nrj = 0;
	char *gargv[] = {(char *)mdl2gltf, "--force", "--quiet", "-j", "1", "--files-from", list, "--base",
	                 (char *)base, "-o", outdir, NULL};
	for (int rep = 0; out->files && rep < n; rep++) {
		double t[3] = {NAN, NAN, NAN};
		long rss;
		for (int k = 0; k < 3; k++) {
			int which = (k + rep) % 3;
			if (which < 2) {
				cleanup_dir(outdir);
				mkdir(outdir, 0755);
				gargv[4] = which ? "2" : "1";
				t[which] = run_child(gargv, &rss);
			} else {
				double a = 0;
				for (size_t i = 0; i < out->assimp_files; i++) {
					char *aargv[] = {"assimp", "export", (char *)afiles[i], aout, "-fglb2", NULL};
					a += run_child(aargv, &rss);
				}
				t[2] = a;
			}
		}
		if (isfinite(t[0])) t1[n1++] = t[0];
		if (isfinite(t[1])) t2[n2++] = t[1];
		if (isfinite(t[2])) ta[na++] = t[2];
		if (isfinite(t[0]) && isfinite(t[2])) ra[nra++] = t[2] / t[0];
		if (isfinite(t[0]) && isfinite(t[1])) rj[nrj++] = t[0] / t[1];
	}
	cleanup_dir(outdir);
	remove(aout);
	remove(list);
	out->j1_ms = median(t1, n1);
	out->j2_ms = median(t2, n2);
	out->assimp_ms = median(ta, na);
	out->assimp_over_j1 = median(ra, nra);
	out->j1_over_j2 = median(rj, nrj);
	out->done = n1 > 0 && n2 > 0;
	if (match) printf("\n(--match %s: only the corpus files it keeps)", match);
	printf("\nwhole corpus folder, %d runs: %zu files gsio reads, one mdl2gltf run: -j 1 %.0f ms, -j 2 %.0f ms "
	       "(%.2f times -j 1); the assimp export loop over the %zu it converts with a mesh %.0f ms (%.2f times "
	       "mdl2gltf -j 1 over all %zu); assimp crashes on %zu, fails on %zu and writes no mesh for %zu\n",
	       n, out->files, out->j1_ms, out->j2_ms, out->j1_over_j2, out->assimp_files, out->assimp_ms,
	       out->assimp_over_j1, out->files, out->assimp_crash, out->assimp_fail, out->assimp_empty);
	free(t1);
	free(t2);
	free(ta);
	free(ra);
	free(rj);
	free(afiles);
}

/* The coders of a compact output's images and their rows, e.g.
 * "igzip3 x1, ld6 x2; 3.1 MB of rows". */
static void coders_text(const one_compression *oc, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	if (oc->igzip) len += (size_t)snprintf(buf, cap, "igzip%d x%zu", oc->igzip_level, oc->igzip);
	for (int l = 0; l < 13; l++)
		if (oc->libdeflate[l] && len < cap)
			len += (size_t)snprintf(buf + len, cap - len, "%sld%d x%zu", len ? ", " : "", l, oc->libdeflate[l]);
	size_t encoded = oc->igzip;
	for (int l = 0; l < 13; l++) encoded += oc->libdeflate[l];
	if (!len)
		len = (size_t)snprintf(buf, cap, "no image encoded");
	else if (len < cap)
		len += (size_t)snprintf(buf + len, cap - len, "; %.1f MB of rows", (double)oc->raw_bytes / 1e6);
	if (oc->images > encoded && len < cap)
		snprintf(buf + len, cap - len, "; %zu embedded as they are", oc->images - encoded);
}

void bench_compact(size_t corpus_count, const file_result *res, int reps, compact_result *out)
{
	memset(out, 0, sizeof(*out));
	char g[400];
	snprintf(g, sizeof(g), "%s/compact.glb", tmpdir);
	int n = reps < 3 ? 3 : reps;
	const int most = n > E2E_CLOSE_RUNS ? n : E2E_CLOSE_RUNS;
	printf("\n%-34s %9s %9s %6s %9s %7s %7s %9s %9s  %s\n", "--compact against the default", "def ms", "cmp ms",
	       "c/d", "1x ms", "mesh ms", "c/(d+a)", "def KB", "cmp KB", "coders");
	printf("(least wall time of %d runs each, alternated, mdl2gltf -j 1; 1x: one compression of the compact "
	       "output's images' filtered rows, each by the coder and level the library chose for it, on one thread, "
	       "least of %d; mesh: the glTF writer's compact output of the scene without its images less its default "
	       "output, in process, least of %d each (levels: 0); c/(d+a): cmp over def + 1x + mesh, runs up to %d "
	       "when it lies between %.2f and %.2f)\n",
	       n, n < 9 ? 9 : n, n < 9 ? 9 : n, most, 1 / E2E_CLOSE, E2E_CLOSE);
	for (size_t fi = 0; fi < corpus_count; fi++) {
		const file_result *r = &res[fi];
		if (!r->read || !r->e2e || ends_with(files[fi].path, ".md5anim")) continue;
		double best[2] = {INFINITY, INFINITY};
		long size[2] = {-1, -1};
		char *argv[2][11];
		for (int which = 0; which < 2; which++) {
			char *a[] = {(char *)mdl2gltf, "--force", "--quiet", "-j", "1", files[fi].path, "-o", g,
			             which ? "--compact" : NULL, NULL};
			memcpy(argv[which], a, sizeof(a));
		}
		// The compact output, untimed, for the images' compression.
		long rss;
		unlink(g);
		one_compression oc;
		// At least 9 repetitions of it: in process, a few ms each, and on a
		// shared machine the least of 3 still took a burst of other work
		// now and then (cbabe's 0.2 MB of rows 3.4 ms in one run, 11.6 in
		// the next).
		double one = isfinite(run_child(argv[1], &rss)) ? one_compression_ms(g, n < 9 ? 9 : n, &oc) : NAN;
		// And what the compact meshes cost over the default's, in process.
		double mesh = compact_mesh_ms(files[fi].path, n < 9 ? 9 : n);
		if (!isfinite(mesh)) mesh = 0;
		const double allowed = one + mesh;
		// Both sides are least times, which more runs only lower: when
		// cmp / (def + 1x) lies within a factor E2E_CLOSE of 1 after the
		// runs asked for, more alternated runs, up to E2E_CLOSE_RUNS (the
		// rule bench_e2e gives a ratio in doubt), the same either way.
		for (int rep = 0; rep < most; rep++) {
			if (rep == n) {
				double x = best[1] / (best[0] + allowed);
				if (!(x >= 1 / E2E_CLOSE && x <= E2E_CLOSE)) break;
			}
			for (int k = 0; k < 2; k++) {
				int which = (k + rep) % 2;
				unlink(g);
				double t = run_child(argv[which], &rss);
				if (isfinite(t) && t < best[which]) best[which] = t;
				size[which] = file_size(g);
			}
		}
		if (!isfinite(best[0]) || !isfinite(best[1])) continue;
		double ratio = best[1] / best[0];
		out->files++;
		out->met += ratio <= 1.5;
		if (ratio > out->worst) {
			out->worst = ratio;
			snprintf(out->worst_file, sizeof(out->worst_file), "%s", base_name(files[fi].path));
		}
		double ratio_one = best[1] / (best[0] + allowed);
		char coders[96] = "not measured";
		if (isfinite(one)) {
			out->one_files++;
			out->mesh_files += one == 0;
			out->one_met += ratio_one <= COMPACT_ONE_NOISE;
			if (ratio_one > out->one_worst) {
				out->one_worst = ratio_one;
				snprintf(out->one_worst_file, sizeof(out->one_worst_file), "%s", base_name(files[fi].path));
			}
			coders_text(&oc, coders, sizeof(coders));
		}
		printf("%-34.34s %9.1f %9.1f %6.2f %9.1f %7.1f %7.2f %9ld %9ld  %s\n", base_name(files[fi].path), best[0],
		       best[1], ratio, one, mesh, ratio_one, size[0] / 1024, size[1] / 1024, coders);
	}
	unlink(g);
}
