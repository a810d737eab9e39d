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
 *   byte 0, bit 4      1: load with GSIO_OPT_NO_PIXELS (PNG/JPEG siblings
 *                      read up to their header only)
 *   byte 0, bit 5      1: load with GSIO_OPT_GRID (terrains kept as grids,
 *                      read through their accessors) and write the scene
 *                      as a GLB in memory (when the glTF writer is built)
 *   byte 0, bit 6      1: that GLB written with two threads
 *   byte 0, bit 7      1: load with GSIO_OPT_NO_ANIMATION (the first frame
 *                      only: the MDL walk past the frames not kept, the
 *                      MDL7, HMP and MD5 first-frame paths)
 *   the rest           the file itself
 * The io is always the fake one below, so a load never touches the disk. */
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "gsio.h"
#include "gsio_gltf.h"
#include "gsioi_png.h"
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static void touch_extras(const gsio_extras *x)
{
	if (x->count && !x->items) abort();
	for (size_t i = 0; i < x->count; i++) {
		const gsio_extra *e = &x->items[i];
		touch_str(e->key);
		if (e->type == GSIO_EXTRA_STRING) touch_str(e->s);
		if (e->type == GSIO_EXTRA_FLOATS) touch_floats(e->floats, e->floats_count);
	}
}

static bool bad_index(int32_t i, size_t count)
{
	return i < -1 || (i >= 0 && (size_t)i >= count);
}

/* A grid mesh (GSIO_OPT_GRID): no arrays of its own; every vertex and
 * triangle read through the accessors, every index inside the vertices. */
static void check_grid(const gsio_mesh *me)
{
	size_t vc = me->vertex_count, nt = me->index_count / 3;
	if (me->positions || me->normals || me->uvs || me->indices || me->frames_count != 1) abort();
	if (vc != (size_t)me->grid->columns * me->grid->rows) abort();
	float *p = vc ? malloc(vc * 8 * sizeof(float)) : NULL;
	uint32_t *ix = nt ? malloc(nt * 3 * sizeof(uint32_t)) : NULL;
	if ((vc && !p) || (nt && !ix)) abort();
	if (gsio_mesh_grid_get(me, 0, vc, p, p + 3 * vc, p + 6 * vc) < 0) abort();
	touch_floats(p, vc * 8);
	if (gsio_mesh_grid_indices(me, 0, nt, ix)) abort();
	for (size_t i = 0; i < 3 * nt; i++)
		if (ix[i] >= vc) abort();
	if (gsio_mesh_grid_get(me, vc, 1, p, NULL, NULL) != -1 || gsio_mesh_grid_indices(me, nt, 1, ix) != -1)
		abort(); // past the end: refused
	free(p);
	free(ix);
}

static void check_mesh(const gsio_scene *s, const gsio_mesh *me)
{
	touch_str(me->name);
	size_t vc = me->vertex_count;
	if (vc > SIZE_MAX / 12) abort();
	if (me->grid) check_grid(me);
	else touch_floats(me->positions, vc * 3);
	if (me->normals) touch_floats(me->normals, vc * 3);
	if (me->uvs) touch_floats(me->uvs, vc * 2);
	if (me->index_count % 3) abort();
	if (me->index_count && !me->indices && !me->grid) abort();
	for (size_t i = 0; me->indices && i < me->index_count; i++)
		if (me->indices[i] >= vc) abort();
	size_t next = 0;
	for (size_t p = 0; p < me->parts_count; p++) {
		const gsio_mesh_part *pt = &me->parts[p];
		if (pt->first_index != next || pt->index_count % 3) abort();
		next += pt->index_count;
		if (bad_index(pt->material, s->materials_count)) abort();
	}
	if (next != me->index_count) abort();
	if (me->source_vertex)
		for (size_t i = 0; i < vc; i++)
			if (me->source_vertex[i] >= s->source.vertices && s->source.vertices) abort();
	if (me->source_uv)
		for (size_t i = 0; i < vc; i++) fuzz_sink_len = me->source_uv[i];
	if (me->frames_count && !me->frames) abort();
	// Every frame through the accessor (packed frames are read from their
	// records: every source_vertex must address one).
	float *fp = vc ? malloc(vc * 3 * sizeof(float)) : NULL;
	float *fn = vc ? malloc(vc * 3 * sizeof(float)) : NULL;
	if (vc && (!fp || !fn)) abort();
	for (size_t f = 0; f < me->frames_count; f++) {
		touch_str(me->frames[f].name);
		int got = gsio_mesh_frame_get(me, f, fp, fn);
		if (got < 0) abort();
		touch_floats(fp, vc * 3);
		if (got == 1) touch_floats(fn, vc * 3);
	}
	free(fp);
	free(fn);
	if (bad_index(me->skin, s->skins_count)) abort();
	const gsio_weights *w = &me->weights;
	if (w->count) {
		if (me->skin < 0) abort();
		if (!w->offsets || !w->joints || !w->values) abort();
		if (w->offsets[0] != 0 || w->offsets[vc] != w->count) abort();
		for (size_t v = 0; v < vc; v++)
			if (w->offsets[v] > w->offsets[v + 1]) abort();
		for (size_t i = 0; i < w->count; i++)
			if (w->joints[i] >= s->skins[me->skin].joints_count) abort();
		touch_floats(w->values, w->count);
	}
	touch_extras(&me->extras);
}

/* Keys of one channel: floats per key for its path (0: given by `frames`). */
static size_t channel_width(const gsio_scene *s, const gsio_channel *ch)
{
	switch (ch->path) {
	case GSIO_PATH_TRANSLATION:
	case GSIO_PATH_SCALE: return 3;
	case GSIO_PATH_ROTATION: return 4;
	case GSIO_PATH_FOV: return 1;
	case GSIO_PATH_MORPH: {
		int32_t m = s->nodes[ch->node].mesh;
		if (m < 0) abort();
		return ch->frames ? 0 : s->meshes[m].frames_count;
	}
	}
	abort();
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
		if (bad_index(ma->base_color_texture.image, s->images_count) ||
		    bad_index(ma->detail_texture.image, s->images_count))
			abort();
		touch_extras(&ma->extras);
	}
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		touch_str(im->name);
		touch_str(im->source_path);
		touch_str(im->uri);
		size_t px = (size_t)im->width * im->height;
		// A size with neither pixels, nor (GSIO_OPT_NO_PIXELS) a file, stored
		// pixels or indices, nor a uri.
		if (px && !im->rgba && !im->uri && !im->file_data && !im->stored && !im->indices) abort();
		// First and last byte: the allocation covers the whole image (file).
		if (px && im->rgba) fuzz_sink_len = (size_t)im->rgba[0] + im->rgba[px * 4 - 1];
		if (px && im->indices) fuzz_sink_len = (size_t)im->indices[0] + im->indices[px - 1];
		size_t ps = gsio_pixel_size(im->source_format);
		if (im->stored && (!px || !ps)) abort();
		if (im->stored) fuzz_sink_len = (size_t)im->stored[0] + im->stored[px * ps - 1];
		// The undecoded forms give PNGs, as the glTF writer makes them (small
		// images only: the encoder is slow next to the loader).
		if (!im->rgba && px && px <= 256 * 256 &&
		    (im->stored || (im->file_size >= 4 && !memcmp(im->file_data, "DDS ", 4)))) {
			uint8_t *png = NULL;
			size_t png_size = 0;
			gsio_error perr;
			gsio_error_clear(&perr);
			int rc = im->stored ? gsioi_png_encode_stored(im->source_format, im->stored, im->width,
			                                             im->height, NULL, &png, &png_size, &perr)
			                    : gsioi_png_encode_dds(im->file_data, im->file_size, &png, &png_size, &perr);
			if (rc || !png || png_size < 8) abort();
			free(png);
		}
		if ((im->file_data != NULL) != (im->file_size != 0)) abort();
		if (im->file_data)
			fuzz_sink_len = (size_t)im->file_data[0] + im->file_data[im->file_size - 1];
		touch_extras(&im->extras);
	}
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_node *n = &s->nodes[i];
		touch_str(n->name);
		if (n->parent < -1 || (n->parent >= 0 && (size_t)n->parent >= i)) abort();
		if (bad_index(n->mesh, s->meshes_count) || bad_index(n->camera, s->cameras_count) ||
		    bad_index(n->light, s->lights_count))
			abort();
		touch_floats(n->rotation, 4);
		touch_extras(&n->extras);
	}
	for (size_t i = 0; i < s->skins_count; i++) {
		const gsio_skin *sk = &s->skins[i];
		touch_str(sk->name);
		for (size_t j = 0; j < sk->joints_count; j++)
			if (sk->joints[j] < 0 || (size_t)sk->joints[j] >= s->nodes_count) abort();
		touch_floats(sk->inverse_bind, sk->joints_count * 16);
		if (bad_index(sk->skeleton, s->nodes_count)) abort();
	}
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *a = &s->animations[i];
		touch_str(a->name);
		if (!a->frames_count) abort();
		for (size_t c = 0; c < a->channels_count; c++) {
			const gsio_channel *ch = &a->channels[c];
			if (ch->node < 0 || (size_t)ch->node >= s->nodes_count) abort();
			size_t width = channel_width(s, ch);
			if (a->frames_count > SIZE_MAX / 16 / (width ? width : 1)) abort();
			if (width) touch_floats(ch->values, a->frames_count * width);
			if (ch->path == GSIO_PATH_MORPH && ch->frames) {
				size_t nf = s->meshes[s->nodes[ch->node].mesh].frames_count;
				for (size_t k = 0; k < a->frames_count; k++)
					if (ch->frames[k] >= nf) abort();
			}
		}
		for (size_t k = 0; k < a->cuts_count; k++)
			if (a->cuts[k] < 1 || a->cuts[k] >= a->frames_count) abort();
		if (a->bounds) touch_floats(a->bounds, a->frames_count * 6);
		touch_extras(&a->extras);
	}
	for (size_t i = 0; i < s->cameras_count; i++) touch_str(s->cameras[i].name);
	for (size_t i = 0; i < s->lights_count; i++) {
		touch_str(s->lights[i].name);
		touch_floats(s->lights[i].color, 3);
		touch_extras(&s->lights[i].extras);
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
	touch_extras(&s->extras);
	for (size_t i = 0; i < s->warnings_count; i++) touch_str(s->warnings[i]);
	// The scene model's own rules: a loaded scene that breaks one is a bug.
	gsio_error err;
	if (gsio_scene_validate(s, &err)) {
		fprintf(stderr, "loaded scene fails validation: %s\n", err.message);
		abort();
	}
}

/* The scene as a GLB in memory: a loaded (so valid) scene is refused only
 * for what it holds (an image the writer cannot encode, a limit), never as
 * invalid, and always with a message. Grid meshes go through the writer's
 * strip path here; with `threads` 2 the images go to a helper thread
 * (large ones in bands) while the meshes are written. */
static void write_glb(const gsio_scene *s, unsigned threads)
{
	gsio_gltf_output out;
	gsio_error err;
	gsio_gltf_opts o;
	memset(&o, 0, sizeof(o));
	o.threads = threads;
	if (gsio_gltf_write(s, &o, &out, &err)) {
		if (err.code == GSIO_OK || err.code == GSIO_ERR_ARGUMENT || !err.message[0]) {
			fprintf(stderr, "glTF write of a loaded scene: %s\n", err.message);
			abort();
		}
		return;
	}
	if (out.files_count != 1 || out.files[0].size < 12) abort();
	gsio_gltf_output_free(&out);
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
	gsio_io io = {fuzz_read_file, fuzz_free_data, NULL, NULL, &st};
	gsio_opts opts = fuzz_opts();
	opts.io = &io;
	if (data[0] & 16) opts.flags |= GSIO_OPT_NO_PIXELS;
	if (data[0] & 32) opts.flags |= GSIO_OPT_GRID;
	if (data[0] & 128) opts.flags |= GSIO_OPT_NO_ANIMATION;
	gsio_error err;
	gsio_scene *s = gsio_load_memory(copy, file_size, name, &opts, &err);
	fuzz_last_err = err;
	if (s) {
		check_scene(s);
		if (data[0] & 32) write_glb(s, data[0] & 64 ? 2 : 1);
		snprintf(fuzz_last_summary, sizeof(fuzz_last_summary),
		         "loaded %s: %zu nodes, %zu meshes, %zu images, %zu animations, %zu cameras, "
		         "%zu warnings, %zu siblings read",
		         s->format ? s->format : "?", s->nodes_count, s->meshes_count, s->images_count,
		         s->animations_count, s->cameras_count, s->warnings_count, st.opened);
		for (size_t i = 0; i < s->warnings_count && i < 3; i++) {
			size_t n = strlen(fuzz_last_summary);
			snprintf(fuzz_last_summary + n, sizeof(fuzz_last_summary) - n, "\n    warning: %s",
			         s->warnings[i]);
		}
		gsio_scene_free(s);
	} else {
		fuzz_check_failure(&err); // a failure must always say why
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
