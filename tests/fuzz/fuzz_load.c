/* Fuzz target: any bytes through the importer registry, as every format.
 * Built with -fsanitize=fuzzer it is a libFuzzer target; built without, it
 * is a replay program (`fuzz_load_replay [-v] [--prefix N] FILE...`): each
 * file runs through the same entry point, so crashers found by fuzzing
 * become regression inputs.
 *
 * Input layout:
 *   byte 0, bits 0..2  the name the input claims (names[] below), so
 *                      detection by extension is fuzzed too
 *   byte 0, bit 3      0: no sibling files exist; 1: bytes 1..4 are a
 *                      little-endian length L and the last L bytes are the
 *                      content of EVERY sibling the loader opens (an
 *                      .md5anim beside a mesh, an MD5 texture, an HMP7
 *                      external texture through stb_image)
 *   the rest           the file itself
 * The io is always the fake one below, so a load never touches the disk. */
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "gsio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// -- A fake file system: one blob for every path, or nothing

typedef struct fuzz_io_state {
	const uint8_t *sibling; // NULL: no file exists
	size_t sibling_size;
	size_t opened;
} fuzz_io_state;

static int fuzz_read_file(void *user, const char *path, uint8_t **data, size_t *size,
                          gsio_error *err)
{
	fuzz_io_state *st = user;
	*data = NULL;
	*size = 0;
	if (!path) abort(); // a loader must name what it opens
	if (!st->sibling) {
		err->code = GSIO_ERR_IO;
		snprintf(err->message, sizeof(err->message), "no such file (fuzz io)");
		return -1;
	}
	// A copy of exactly the blob's size, so reading past it is an ASan report.
	uint8_t *copy = malloc(st->sibling_size ? st->sibling_size : 1);
	if (!copy) abort();
	if (st->sibling_size) memcpy(copy, st->sibling, st->sibling_size);
	st->opened++;
	*data = copy;
	*size = st->sibling_size;
	return 0;
}

static void fuzz_free_data(void *user, uint8_t *data)
{
	(void)user;
	free(data);
}

// -- Scene checks: every array the header promises is read to its end, every
// index is checked, so a short allocation or a bad index is a crash here
// rather than in a writer.

static volatile float fuzz_sink;
static volatile size_t fuzz_sink_len;

static void touch_floats(const float *p, size_t n)
{
	if (!n) return;
	if (!p) abort();
	float sum = 0;
	for (size_t i = 0; i < n; i++) sum += p[i];
	fuzz_sink = sum;
}

static void touch_str(const char *s)
{
	if (s) fuzz_sink_len = strlen(s);
}

static void check_mesh(const gsio_scene *s, const gsio_mesh *me)
{
	touch_str(me->name);
	size_t vc = me->vertex_count;
	if (vc > SIZE_MAX / 12) abort();
	touch_floats(me->positions, vc * 3);
	if (me->normals) touch_floats(me->normals, vc * 3);
	if (me->uvs) touch_floats(me->uvs, vc * 2);
	if (me->index_count % 3) abort();
	if (me->index_count && !me->indices) abort();
	for (size_t i = 0; i < me->index_count; i++)
		if (me->indices[i] >= vc) abort();
	if (me->material < -1 || (me->material >= 0 && (size_t)me->material >= s->materials_count))
		abort();
	if (me->source_vertex)
		for (size_t i = 0; i < vc; i++)
			if (me->source_vertex[i] >= s->source.vertices && s->source.vertices) abort();
	if (me->source_uv)
		for (size_t i = 0; i < vc; i++) fuzz_sink_len = me->source_uv[i];
	if (me->frames_count && !me->frames) abort();
	for (size_t f = 0; f < me->frames_count; f++) {
		touch_str(me->frames[f].name);
		touch_floats(me->frames[f].positions, vc * 3);
		if (me->frames[f].normals) touch_floats(me->frames[f].normals, vc * 3);
	}
	const gsio_weights *w = &me->weights;
	if (w->count) {
		if (!w->offsets || !w->joints || !w->values) abort();
		if (w->offsets[0] != 0 || w->offsets[vc] != w->count) abort();
		for (size_t v = 0; v < vc; v++)
			if (w->offsets[v] > w->offsets[v + 1]) abort();
		for (size_t i = 0; i < w->count; i++)
			if (w->joints[i] >= s->joints_count) abort();
		touch_floats(w->values, w->count);
	}
}

static void check_scene(const gsio_scene *s)
{
	touch_str(s->format);
	if (s->meshes_count && !s->meshes) abort();
	for (size_t m = 0; m < s->meshes_count; m++) check_mesh(s, &s->meshes[m]);
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_material *ma = &s->materials[i];
		touch_str(ma->name);
		touch_str(ma->shader);
		if (ma->base_color_image < -1 ||
		    (ma->base_color_image >= 0 && (size_t)ma->base_color_image >= s->images_count))
			abort();
		if (ma->detail_image < -1 ||
		    (ma->detail_image >= 0 && (size_t)ma->detail_image >= s->images_count))
			abort();
	}
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		touch_str(im->name);
		touch_str(im->source_path);
		size_t px = (size_t)im->width * im->height;
		if (px && !im->rgba) abort();
		// First and last byte: the allocation covers the whole image.
		if (px) fuzz_sink_len = (size_t)im->rgba[0] + im->rgba[px * 4 - 1];
	}
	for (size_t i = 0; i < s->clips_count; i++) {
		const gsio_clip *c = &s->clips[i];
		touch_str(c->name);
		if (!s->meshes_count || c->first_frame > s->meshes[0].frames_count ||
		    c->frame_count > s->meshes[0].frames_count - c->first_frame)
			abort();
	}
	for (size_t i = 0; i < s->joints_count; i++) {
		const gsio_joint *j = &s->joints[i];
		touch_str(j->name);
		if (j->parent < -1 || (j->parent >= 0 && (size_t)j->parent >= i)) abort();
		touch_floats(j->world_rotation, 4);
	}
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_skel_anim *a = &s->animations[i];
		touch_str(a->name);
		if (a->joints_count != s->joints_count) abort();
		size_t fj = a->frames_count * a->joints_count;
		if (a->joints_count && fj / a->joints_count != a->frames_count) abort();
		touch_floats(a->translations, fj * 3);
		touch_floats(a->rotations, fj * 4);
		if (a->bounds) touch_floats(a->bounds, a->frames_count * 6);
	}
	for (size_t i = 0; i < s->cameras_count; i++) {
		const gsio_camera *c = &s->cameras[i];
		touch_str(c->name);
		touch_floats(c->positions, c->frames_count * 3);
		touch_floats(c->rotations, c->frames_count * 4);
		touch_floats(c->fov, c->frames_count);
		for (size_t k = 0; k < c->cuts_count; k++)
			if (c->cuts[k] >= c->frames_count) abort();
	}
	if (s->terrain) {
		const gsio_terrain *t = s->terrain;
		size_t n = (size_t)t->columns * t->rows;
		if (n && !t->raw_heights) abort();
		for (size_t i = 0; i < n; i++) fuzz_sink_len = t->raw_heights[i];
		if (t->normal_indices)
			for (size_t i = 0; i < n; i++)
				if (t->normal_indices[i] >= GSIO_NORMAL_COUNT) abort();
		if (t->mesh < 0 || (size_t)t->mesh >= s->meshes_count) abort();
	}
	for (size_t i = 0; i < s->warnings_count; i++) touch_str(s->warnings[i]);
}

// -- The target

// For the replay program's -v: the last error, or what the last scene held.
static gsio_error fuzz_last_err;
static char fuzz_last_summary[1024];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"in.mdl", "in.hmp", "in.md5mesh", "in.md5anim",
	                                    "in.md5camera", "in.wmp", "in", "in.bin"};
	gsio_error_clear(&fuzz_last_err);
	fuzz_last_summary[0] = 0;
	if (size < 1) return 0;
	const char *name = names[data[0] & 7];
	fuzz_io_state st = {0};
	const uint8_t *file = data + 1;
	size_t file_size = size - 1;
	if (data[0] & 8) {
		if (file_size < 4) return 0;
		size_t len = (size_t)file[0] | (size_t)file[1] << 8 | (size_t)file[2] << 16 |
		             (size_t)file[3] << 24;
		file += 4;
		file_size -= 4;
		if (len > file_size) len = file_size;
		file_size -= len;
		st.sibling = file + file_size;
		st.sibling_size = len;
	}
	// The file itself in a buffer of exactly its size, so reading one byte
	// past the end is an ASan report even when the sibling follows it.
	uint8_t *copy = malloc(file_size ? file_size : 1);
	if (!copy) abort();
	if (file_size) memcpy(copy, file, file_size);
	gsio_io io = {fuzz_read_file, fuzz_free_data, &st};
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.memory_limit = (size_t)256 << 20;
	opts.io = &io;
	gsio_error err;
	gsio_scene *s = gsio_load_memory(copy, file_size, name, &opts, &err);
	fuzz_last_err = err;
	if (s) {
		check_scene(s);
		snprintf(fuzz_last_summary, sizeof(fuzz_last_summary),
		         "loaded %s: %zu meshes, %zu images, %zu animations, %zu cameras, %zu warnings, "
		         "%zu siblings read",
		         s->format ? s->format : "?", s->meshes_count, s->images_count,
		         s->animations_count, s->cameras_count, s->warnings_count, st.opened);
		for (size_t i = 0; i < s->warnings_count && i < 3; i++) {
			size_t n = strlen(fuzz_last_summary);
			snprintf(fuzz_last_summary + n, sizeof(fuzz_last_summary) - n, "\n    warning: %s",
			         s->warnings[i]);
		}
		gsio_scene_free(s);
	} else if (err.code == GSIO_OK || !err.message[0]) {
		abort(); // a failure must always say why
	}
	free(copy);
	return 0;
}

#ifndef GSIO_LIBFUZZER
// Replay: every FILE through the target. `--prefix N` (0..255) puts byte N
// in front of the files after it, so plain files (samples/*.mdl) replay as
// the format N names. `--max-time S` aborts when one input takes more than
// S seconds plus S per MB (a load must stay fast relative to its size). -v
// prints what each file gave and its time; the slowest is printed last.
int main(int argc, char **argv)
{
	int failed = 0, verbose = 0, prefix = -1;
	double max_time = 0;
	size_t files = 0, loaded = 0;
	double worst = 0, worst_mb = 0;
	const char *worst_name = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
			continue;
		}
		if (!strcmp(argv[i], "--prefix") && i + 1 < argc) {
			prefix = atoi(argv[++i]) & 255;
			continue;
		}
		if (!strcmp(argv[i], "--max-time") && i + 1 < argc) {
			max_time = atof(argv[++i]);
			continue;
		}
		uint8_t *data;
		size_t size;
		gsio_error err;
		if (gsio_read_whole_file(argv[i], &data, &size, 0, &err)) {
			fprintf(stderr, "fuzz_load: %s: %s\n", argv[i], err.message);
			failed = 1;
			continue;
		}
		if (prefix >= 0) {
			uint8_t *p = malloc(size + 1);
			if (!p) abort();
			p[0] = (uint8_t)prefix;
			memcpy(p + 1, data, size);
			free(data);
			data = p;
			size++;
		}
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		LLVMFuzzerTestOneInput(data, size);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		double per_mb = sec / ((double)(size ? size : 1) / 1048576.0);
		files++;
		if (fuzz_last_err.code == GSIO_OK) loaded++;
		if (verbose) {
			char msg[1100];
			snprintf(msg, sizeof(msg), "%s", fuzz_last_summary);
			if (fuzz_last_err.code != GSIO_OK) gsio_error_format(&fuzz_last_err, msg, sizeof(msg));
			printf("%s: %zu bytes, %.4f s (%.3f s/MB): %s\n", argv[i], size, sec, per_mb, msg);
		}
		if (max_time > 0 && sec > max_time * (1.0 + (double)size / 1048576.0)) {
			fprintf(stderr, "fuzz_load: %s: %.3f s for %zu bytes is over --max-time %g\n",
			        argv[i], sec, size, max_time);
			abort();
		}
		if (sec > worst) {
			worst = sec;
			worst_mb = per_mb;
			worst_name = argv[i];
		}
		free(data);
	}
	printf("fuzz_load: %zu files replayed, %zu loaded, %zu refused with an error code\n", files,
	       loaded, files - loaded);
	if (worst_name) printf("fuzz_load: slowest %s: %.4f s (%.3f s/MB)\n", worst_name, worst, worst_mb);
	return failed;
}
#endif
