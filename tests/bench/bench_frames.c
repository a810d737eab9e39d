/* gsio_bench: end to end linear in frames. A real model's frames (the
 * corpus's minigun_mdl5.mdl, 8 frames) cycled to 120, 1 920 and 7 680
 * frames, written as MDL5 files by gsio's own codec, each converted by
 * mdl2gltf in child processes: the CPU time and the output bytes that each
 * added frame costs, from 120 to 1 920 and from 1 920 to 7 680, and the
 * instructions (callgrind) that the CPU time rests on. */
#define _GNU_SOURCE
#include "bench.h"
#include "gsio.h"
#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int FRAMES[FRAMES_CASES] = {120, 1920, 7680};

/* The instructions one mdl2gltf run of `in` executes, counted by callgrind
 * (valgrind's own summary line, "I refs"); 0 without valgrind or when the
 * line is not found. The CPU time of a run that writes 82 MB also holds the
 * kernel's page faults and writes and the memory's speed, which grow with
 * the output faster than the code's own work on a small machine; the count
 * is the same on any machine and whatever else it runs. */
static double count_instructions(const char *conv, const char *in, const char *out)
{
	char cmd[2048];
	remove(out);
	int n = snprintf(cmd, sizeof(cmd),
	                 "valgrind --tool=callgrind --callgrind-out-file=/dev/null '%s' -j 1 --quiet --force '%s' -o '%s' "
	                 "2>&1 >/dev/null",
	                 conv, in, out);
	if (n < 0 || (size_t)n >= sizeof(cmd) || strchr(in, '\'') || strchr(out, '\'') || strchr(conv, '\''))
		return 0;
	FILE *p = popen(cmd, "r");
	if (!p) return 0;
	char line[512];
	double count = 0;
	while (fgets(line, sizeof(line), p)) {
		const char *at = strstr(line, "I   refs:");
		if (!at) continue;
		count = 0;
		for (at += 9; *at; at++)
			if (*at >= '0' && *at <= '9') count = count * 10 + (*at - '0');
	}
	if (pclose(p) != 0) return 0;
	return count;
}

/** Writes src's frames cycled to n frames as an MDL5 file at path. */
static bool write_cycled(const gsio_mdl_file *src, int n, const char *path)
{
	gsio_mdl_file f = *src;
	f.frames_count = (size_t)n;
	f.header.numframes = n;
	f.frames = xmalloc((size_t)n * sizeof(*f.frames));
	for (int i = 0; i < n; i++) f.frames[i] = src->frames[(size_t)i % src->frames_count];
	uint8_t *out = NULL;
	size_t size = 0;
	gsio_error err;
	bool ok = !gsio_mdl_encode(&f, &out, &size, &err) && write_file(path, out, size);
	if (!ok) fprintf(stderr, "gsio_bench: cannot write %s\n", path);
	free(out);
	free(f.frames);
	return ok;
}

bool bench_frames(const char *corpus, int reps, frames_result *fr)
{
	memset(fr, 0, sizeof(*fr));
	char src_path[1024];
	snprintf(src_path, sizeof(src_path), "%s/mdl/minigun_mdl5.mdl", corpus);
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error err;
	if (gsio_read_whole_file(src_path, &data, &size, SIZE_MAX, &err)) return false;
	gsio_mdl_file *src = gsio_mdl_decode(data, size, "minigun_mdl5.mdl", NULL, &err);
	if (!src || !src->frames_count) {
		gsio_mdl_file_free(src);
		free(data);
		return false;
	}
	fr->source_frames = (int)src->frames_count;
	bool ok = true;
	char path[FRAMES_CASES][512], out[512];
	for (int k = 0; ok && k < FRAMES_CASES; k++) {
		fr->frames[k] = FRAMES[k];
		snprintf(path[k], sizeof(path[k]), "%s/cycle-minigun-%df.mdl", tmpdir, FRAMES[k]);
		ok = write_cycled(src, FRAMES[k], path[k]);
	}
	gsio_mdl_file_free(src);
	free(data);
	snprintf(out, sizeof(out), "%s/cycle-minigun.glb", tmpdir);
	// The least CPU time of `reps` runs each (at least 3), in rotation: the
	// least is the run the other jobs of a shared machine disturbed least.
	int n = reps < 3 ? 3 : reps;
	for (int k = 0; k < FRAMES_CASES; k++) fr->cpu_ms[k] = INFINITY;
	for (int rep = 0; ok && rep < n; rep++)
		for (int k = 0; ok && k < FRAMES_CASES; k++) {
			char *argv[] = {(char *)mdl2gltf, "-j", "1", "--quiet", "--force", path[k], "-o", out, NULL};
			long rss;
			// The previous output removed first, untimed: replacing it
			// would charge this run the freeing of the last run's pages
			// (the 7,680-frame GLB is 82 MB; the 120-frame run that
			// followed it took 14.7 ms of CPU instead of 9.8).
			remove(out);
			double wall = run_child(argv, &rss);
			ok = isfinite(wall);
			double cpu = last_child_cpu_ms();
			if (cpu < fr->cpu_ms[k]) fr->cpu_ms[k] = cpu;
			fr->out[k] = file_size(out);
			fr->in[k] = file_size(path[k]);
		}
	bool counted = ok;
	for (int k = 0; counted && k < FRAMES_CASES; k++) {
		fr->instr[k] = count_instructions(mdl2gltf, path[k], out);
		counted = fr->instr[k] > 0;
	}
	if (!counted)
		for (int k = 0; k < FRAMES_CASES; k++) fr->instr[k] = 0;
	for (int k = 0; k < FRAMES_CASES; k++) remove(path[k]);
	remove(out);
	if (!ok) return false;
	for (int k = 0; k + 1 < FRAMES_CASES; k++) {
		double df = FRAMES[k + 1] - FRAMES[k];
		fr->cpu_per_frame[k] = (fr->cpu_ms[k + 1] - fr->cpu_ms[k]) / df;
		fr->bytes_per_frame[k] = (double)(fr->out[k + 1] - fr->out[k]) / df;
		fr->instr_per_frame[k] = (fr->instr[k + 1] - fr->instr[k]) / df;
	}
	fr->done = true;
	printf("\nlinear in frames: minigun_mdl5.mdl's %d frames cycled, mdl2gltf -j 1, least CPU "
	       "time (user + system) of %d runs\n",
	       fr->source_frames, n);
	printf("%8s %10s %10s %10s %14s\n", "frames", "in KB", "cpu ms", "glTF KB", "instructions");
	for (int k = 0; k < FRAMES_CASES; k++)
		printf("%8d %10ld %10.1f %10ld %14.0f\n", FRAMES[k], fr->in[k] / 1024, fr->cpu_ms[k], fr->out[k] / 1024,
		       fr->instr[k]);
	printf("per added frame: %.4f ms and %.0f bytes from %d to %d; %.4f ms and %.0f bytes from %d to %d\n",
	       fr->cpu_per_frame[0], fr->bytes_per_frame[0], FRAMES[0], FRAMES[1], fr->cpu_per_frame[1],
	       fr->bytes_per_frame[1], FRAMES[1], FRAMES[2]);
	if (fr->instr[0] > 0)
		printf("instructions per added frame (callgrind, one run each): %.0f from %d to %d, %.0f from %d to %d\n",
		       fr->instr_per_frame[0], FRAMES[0], FRAMES[1], fr->instr_per_frame[1], FRAMES[1], FRAMES[2]);
	else
		printf("instructions: not counted (valgrind is not installed)\n");
	return true;
}
