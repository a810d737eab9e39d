/* The glTF writer's images: what each scene image becomes (a PNG encoded
 * here, a PNG or JPEG file as it is, a reference, or nothing, with a
 * warning), its JSON, its bytes made beside the rest of the document (on a
 * helper thread when that pays), then placed: after the rest of a GLB's
 * buffer, or as files beside a .gltf. Relies on gsioi_png_* (public gsio
 * API) for the encoding and on gltf_buffer.c for the views. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"
#include "gsioi_scene_util.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// image_job.state: begun or not claimed yet, its bands offered, made by one
// thread (one band: nothing offered), its bytes made.
enum { JOB_BEGUN, JOB_OFFERED, JOB_ALONE, JOB_MADE };

/** The file-name stem of an image's PNG beside a .gltf: its safe name without
 *  an image extension it came with (Bob's "guard1_body.png" gives
 *  "guard1_body", not "guard1_body.png.png"). */
static void image_file_stem(const gsio_image *im, char *buf, size_t size)
{
	gsioi_gltf_safe_name(im->name && im->name[0] ? im->name : "image", buf, size);
	static const char *const exts[] = {".png", ".tga", ".jpg", ".jpeg", ".bmp", ".pcx", ".dds"};
	size_t n = strlen(buf);
	for (size_t k = 0; k < sizeof(exts) / sizeof(exts[0]); k++) {
		size_t e = strlen(exts[k]);
		if (n > e && !strcasecmp(buf + n - e, exts[k])) {
			buf[n - e] = 0;
			break;
		}
	}
}

/** Percent-encoding of a relative path for a glTF uri: as gsioi_gltf_uri_encode, but
 *  '/' separators are kept. */
static void uri_encode_path(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	while (*s && n + 1 < size) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		char part[512];
		if (len >= sizeof(part)) len = sizeof(part) - 1;
		memcpy(part, s, len);
		part[len] = 0;
		gsioi_gltf_uri_encode(part, buf + n, size - n);
		n += strlen(buf + n);
		if (!slash) break;
		if (n + 1 < size) buf[n++] = '/';
		buf[n] = 0;
		s = slash + 1;
	}
}

static bool image_is_embeddable(const uint8_t *d, size_t n, const char **mime, const char **ext)
{
	switch (gsioi_kept_file_kind(d, n < 8 ? n : 8, NULL, NULL)) {
	case GSIOI_KEPT_PNG: *mime = "image/png", *ext = "png"; return true;
	case GSIOI_KEPT_JPEG: *mime = "image/jpeg", *ext = "jpg"; return true;
	default: return false;
	}
}

/** A PNG file as embedded (ext "png"): *data and *size become a malloc'd
 *  copy without the chunks glTF does not take (gsioi_png_drop_chunks) when
 *  it has any, and *owned true; any other file stays. False when out of
 *  memory. */
static bool embedded_png(gltf_ctx *c, const char *ext, uint8_t **data, size_t *size, bool *owned)
{
	if (strcmp(ext, "png")) return true;
	uint8_t *clean;
	size_t clean_size;
	int rc = gsioi_png_drop_chunks(*data, *size, &clean, &clean_size);
	if (rc < 0) return gsioi_gltf_fail_nomem(c, "an image file");
	if (rc) {
		if (*owned) free(*data);
		*data = clean;
		*size = clean_size;
		*owned = true;
	}
	return true;
}

/** The PNG file name of image i beside a .gltf: "<model>_<stem>.png", with
 *  the index added when two images share a stem ("a.png" and "a.tga"). */
static void image_file_name(gltf_ctx *c, size_t i, const char *ext, char *file, size_t size)
{
	const gsio_scene *s = c->s;
	char stem[128], other[128];
	image_file_stem(&s->images[i], stem, sizeof(stem));
	bool dup = false;
	for (size_t k = 0; k < s->images_count && !dup; k++) {
		if (k == i) continue;
		image_file_stem(&s->images[k], other, sizeof(other));
		dup = !strcmp(stem, other);
	}
	if (dup)
		snprintf(file, size, "%s_%s_%zu.%s", c->name, stem, i, ext);
	else
		snprintf(file, size, "%s_%s.%s", c->name, stem, ext);
}

/* Images are made beside the rest of the document. gsioi_gltf_write_images() decides
 * what each image becomes (a PNG encoded here, a file embedded as it is, a
 * reference, or nothing, with a warning) and writes its JSON, its buffer
 * view reserved (printed by gsioi_gltf_emit_views()); make_image() makes the bytes,
 * on a helper thread when the caller allows one (opts.threads) and the
 * pixels are many, else here and now. gsioi_gltf_images_place() finishes what the
 * helper has not begun, waits for it, and places the images at the
 * buffer's start (GLB) or hands them out as files (.gltf): the same bytes
 * as when each was encoded and appended in turn. golem (a 512 x 512 skin,
 * 231 frames): the skin's 1.2 ms of deflate beside the morph targets. */

/** How many pixels (times 8 for the compact output's slower deflate)
 *  are worth a thread: one starts in about 0.1-0.2 ms, the encoder does a
 *  256 x 256 skin in about 0.3. */
#define IMAGE_HELPER_PIXELS 65536.0

/** The PNG of job j begun (gsioi_png_begin*); 0, or non-zero with j->err. */
static int begin_image(const gltf_ctx *c, image_job *j, gsioi_png_work **work)
{
	const gsio_image *im = &c->s->images[j->image];
	gsio_error *err = &j->err;
	switch (j->how) {
	case IMG_INDEXED: // kept palettised by the importer: one byte a pixel, as stored
		return gsioi_png_begin_indexed(im->indices, im->width, im->height, im->palette, im->palette_count, work,
		                              err);
	case IMG_RGBA: return gsioi_png_begin(im->rgba, im->width, im->height, work, err);
	case IMG_STORED:
		// Skin pixels as the model stores them (GSIO_OPT_NO_PIXELS): the
		// same PNG, decoded a row at a time.
		return gsioi_png_begin_stored(im->source_format, im->stored, im->width, im->height, NULL, work, err);
	case IMG_DDS:
		// An embedded DDS skin kept as it is: the same PNG as from its
		// decoded pixels, decoded a band of 4 rows at a time.
		return gsioi_png_begin_dds(im->file_data, im->file_size, work, err);
	case IMG_TGA:
		// An uncompressed TGA file kept as it is (GSIO_OPT_NO_PIXELS): the
		// same PNG as from its decoded pixels, decoded a row at a time.
		return gsioi_png_begin_tga(im->file_data, im->file_size, work, err);
	case IMG_BMP: // the same for an uncompressed BMP file
		return gsioi_png_begin_bmp(im->file_data, im->file_size, work, err);
	case IMG_FILE: break;
	}
	return -1; // not reached: a file's job has its bytes
}

/** The PNG file of job j from its work (its bands made); sets j's bytes
 *  or j->rc. */
static void finish_image(image_job *j, gsioi_png_work *work)
{
	uint8_t *png = NULL;
	size_t png_size = 0;
	j->rc = gsioi_png_finish(work, &png, &png_size, &j->err);
	j->data = png;
	j->size = png_size;
}

/** Makes the bands of job j not claimed yet; the thread that makes the
 *  last makes the file. */
static void make_parts(image_job *j)
{
	for (;;) {
		size_t k = atomic_fetch_add_explicit(&j->next_part, 1, memory_order_relaxed);
		if (k >= j->parts) return;
		gsio_error err;
		if (gsioi_png_part(j->work, k, &err)) {
			// The work keeps the failure: gsioi_png_finish() reports it.
		}
		if (atomic_fetch_add_explicit(&j->parts_done, 1, memory_order_acq_rel) + 1 == j->parts) {
			gsioi_png_work *w = j->work;
			j->work = NULL;
			finish_image(j, w);
			atomic_store_explicit(&j->state, JOB_MADE, memory_order_release);
		}
	}
}

/** Makes job j's bytes; thread-safe (reads the scene, writes j only). An
 *  image of more than one band is offered to the other thread band by
 *  band (make_parts). */
static void make_image(const gltf_ctx *c, image_job *j)
{
	gsio_error_clear(&j->err);
	gsioi_png_work *work = NULL;
	if (j->how != IMG_FILE && !(j->rc = begin_image(c, j, &work)) && c->compact) gsioi_png_plan_compact(work);
	if (work && (j->parts = gsioi_png_parts(work)) > 1) {
		j->work = work;
		atomic_store_explicit(&j->state, JOB_OFFERED, memory_order_release);
		make_parts(j);
		return;
	}
	if (work) {
		// Nothing to offer: the other thread need not wait for it.
		atomic_store_explicit(&j->state, JOB_ALONE, memory_order_release);
		finish_image(j, work);
	}
	atomic_store_explicit(&j->state, JOB_MADE, memory_order_release);
}

/** Makes the jobs not claimed yet, one at a time, then the bands of any
 *  image the other thread offers, also of one the other is still beginning,
 *  waiting for its offer (a begin is a probe of its pixels: short). Both
 *  threads run it, and both wait: were only the thread that joins the
 *  other to wait, a helper that found the caller beginning the one image
 *  (the caller reaches gsioi_gltf_images_place() at once when the meshes are
 *  small) would go away, and the caller make every band alone:
 *  electrical1_5's 512 x 512 skin 4.9 ms instead of 2.4 in about a third
 *  of the runs (clock marks). Waiting cannot deadlock: every job is
 *  claimed before either thread waits (a failed write that leaves some
 *  unclaimed sets jobs_stop first), and a begin waits for nothing and
 *  ends with the job offered, made, or being made alone (one band: nothing
 *  to wait for there; the caller then waits in the join, not spinning
 *  beside the thread that makes it). */
static void make_images(gltf_ctx *c)
{
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&c->jobs_next, 1, memory_order_relaxed);
		if (i >= c->jobs_count) break;
		make_image(c, &c->jobs[i]);
	}
	for (size_t i = 0; i < c->jobs_count; i++) {
		image_job *j = &c->jobs[i];
		int state;
		while ((state = atomic_load_explicit(&j->state, memory_order_acquire)) == JOB_BEGUN &&
		       !atomic_load_explicit(&c->jobs_stop, memory_order_acquire))
			sched_yield();
		if (state == JOB_OFFERED) make_parts(j);
	}
}

static void *run_images(void *arg)
{
	make_images(arg);
	return NULL;
}

/** A new job for image i (data: the bytes when they are there already,
 *  malloc'd unless borrowed); its index, -1 on failure (memory). */
static int add_job(gltf_ctx *c, size_t i, image_how how, uint8_t *data, size_t size, bool borrowed,
                   const char *ext)
{
	image_job *j = &c->jobs[c->jobs_count];
	*j = (image_job){.image = i, .how = how, .data = data, .size = size, .borrowed = borrowed, .ext = ext};
	atomic_init(&j->state, JOB_BEGUN);
	atomic_init(&j->next_part, 0);
	atomic_init(&j->parts_done, 0);
	return (int)c->jobs_count++;
}

/** An image that is only a reference (no pixels). Beside a .gltf it stays a
 *  reference (its uri, relative to the source file: the textures are meant
 *  to be copied along). In a GLB it is embedded when the file (source_path,
 *  else uri) can be read and is a PNG or JPEG; otherwise it is left out with
 *  a warning, and materials lose that texture. Returns false only on a hard
 *  failure (memory); *index is -1 when the image was left out. */
static bool write_uri_image(gltf_ctx *c, size_t i, int *index)
{
	const gsio_image *im = &c->s->images[i];
	*index = -1;
	char name[300];
	snprintf(name, sizeof(name), "%s_%s", c->name, gsioi_gltf_or_default(im->name, "image"));
	if (c->separate) {
		char uri[1600];
		uri_encode_path(im->uri, uri, sizeof(uri));
		cJSON *j = gsioi_gltf_jobj(c);
		gsioi_gltf_jstr(c, j, "name", name);
		gsioi_gltf_jstr(c, j, "uri", uri);
		if (im->extras.count) gsioi_gltf_jset(c, j, "extras", gsioi_gltf_extras_json(c, NULL, &im->extras));
		*index = gsioi_gltf_jpush(c, c->images, j);
		return true;
	}
	const char *path = im->source_path ? im->source_path : im->uri;
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error rerr;
	const char *mime = NULL, *ext = NULL;
	if (gsio_read_whole_file(path, &data, &size, 0, &rerr) ||
	    !image_is_embeddable(data, size, &mime, &ext)) {
		gsioi_gltf_warn(c, "image %zu (%s): %s cannot be embedded (%s): left out", i, gsioi_gltf_or_default(im->name, ""),
		          path, data ? "not a PNG or JPEG file" : rerr.message);
		free(data);
		return true;
	}
	bool owned = true;
	if (!embedded_png(c, ext, &data, &size, &owned)) {
		free(data);
		return false;
	}
	int job = add_job(c, i, IMG_FILE, data, size, false, ext);
	int view = gsioi_gltf_view_record(c, 0, 0, 0, 0, job);
	if (view < 0) return false;
	cJSON *j = gsioi_gltf_jobj(c);
	gsioi_gltf_jstr(c, j, "name", name);
	gsioi_gltf_jnum(c, j, "bufferView", view);
	gsioi_gltf_jstr(c, j, "mimeType", mime);
	if (im->extras.count) gsioi_gltf_jset(c, j, "extras", gsioi_gltf_extras_json(c, NULL, &im->extras));
	*index = gsioi_gltf_jpush(c, c->images, j);
	return true;
}

bool gsioi_gltf_write_images(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	c->jobs = gsioi_gltf_xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(*c->jobs));
	if (!c->jobs) return false;
	double pixels = 0;
	for (size_t i = 0; i < s->images_count; i++) c->image_index[i] = -1;
	// Only the images a material names (every material is written: those
	// no mesh uses are variants), unless all are asked for.
	for (size_t m = 0; !c->all_images && m < s->materials_count; m++) {
		const gsio_material *mat = &s->materials[m];
#define USED(f) \
	if (mat->f.image >= 0 && (size_t)mat->f.image < s->images_count) c->image_index[mat->f.image] = 0;
		GSIOI_MATERIAL_TEXTURES(USED)
#undef USED
	}
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		bool wanted = c->all_images || c->image_index[i] == 0;
		c->image_index[i] = -1;
		if (!wanted) {
			gsioi_gltf_warn(c, "image %zu (%s) is used by no material: left out (all images: --all-images)", i,
			                gsioi_gltf_or_default(im->name, ""));
			continue;
		}
		if (!im->rgba && !im->file_data && !im->stored && !im->indices) {
			if (!im->uri || !im->uri[0]) {
				gsioi_gltf_warn(c, "image %zu (%s) has neither pixels nor a file: left out", i,
				          gsioi_gltf_or_default(im->name, ""));
				continue;
			}
			if (!write_uri_image(c, i, &c->image_index[i])) return false;
			continue;
		}
		const char *mime = "image/png", *ext = "png";
		image_how how;
		uint32_t kept_w, kept_h;
		bool passed = false;
		if (im->file_data && image_is_embeddable(im->file_data, im->file_size, &mime, &ext))
			// The PNG or JPEG file it was decoded from, as it is: no second
			// encoding, and nothing lost.
			how = IMG_FILE, passed = true;
		else if (im->indices)
			how = IMG_INDEXED;
		else if (im->rgba)
			how = IMG_RGBA;
		else if (im->stored)
			how = IMG_STORED;
		else {
			// The other files kept undecoded: converted to PNG when the file
			// is what the image says (its size too).
			const gsioi_kept_kind kind = gsioi_kept_file_kind(im->file_data, im->file_size, &kept_w, &kept_h);
			const bool sized = kept_w == im->width && kept_h == im->height;
			if (kind == GSIOI_KEPT_DDS)
				how = IMG_DDS;
			else if (kind == GSIOI_KEPT_TGA && sized)
				how = IMG_TGA;
			else if (kind == GSIOI_KEPT_BMP && sized)
				how = IMG_BMP;
			else {
				// Undecoded (GSIO_OPT_NO_PIXELS), and not a file glTF can hold.
				gsioi_gltf_warn(c,
				                "image %zu (%s): its file is not a PNG, JPEG, DDS, plain TGA or BMP and was not "
				                "decoded: left out",
				                i, gsioi_gltf_or_default(im->name, ""));
				continue;
			}
		}
		// Images that point to the very same file (a level's placeholders)
		// are one job, stored once: each its own image, with its name and
		// extras, naming the first one's view (or, beside a .gltf, file).
		int job = -1;
		for (size_t k = 0; passed && job < 0 && k < c->jobs_count; k++) {
			const gsio_image *first = &s->images[c->jobs[k].image];
			if (c->jobs[k].how == IMG_FILE && first->file_data == im->file_data &&
			    first->file_size == im->file_size)
				job = (int)k;
		}
		const bool shared = job >= 0;
		if (!shared) {
			uint8_t *bytes = passed ? (uint8_t *)(uintptr_t)im->file_data : NULL;
			size_t size = passed ? im->file_size : 0;
			bool owned = false;
			if (passed && !embedded_png(c, ext, &bytes, &size, &owned)) return false;
			job = add_job(c, i, how, bytes, size, passed && !owned, ext);
		}
		if (!passed) pixels += (double)im->width * (double)im->height * (c->compact ? 8 : 1);
		// Names carry the model's stem: two converted models in one Godot
		// project would otherwise share "skin0".
		char name[300];
		snprintf(name, sizeof(name), "%s_%s", c->name, gsioi_gltf_or_default(im->name, "image"));
		cJSON *j = gsioi_gltf_jobj(c);
		gsioi_gltf_jstr(c, j, "name", name);
		if (c->separate) {
			char file[512], uri[1600];
			image_file_name(c, c->jobs[job].image, ext, file, sizeof(file));
			gsioi_gltf_uri_encode(file, uri, sizeof(uri));
			gsioi_gltf_jstr(c, j, "uri", uri);
		} else {
			int view = shared ? c->jobs[job].view : gsioi_gltf_view_record(c, 0, 0, 0, 0, job);
			if (view < 0) {
				cJSON_Delete(j);
				return false;
			}
			c->jobs[job].view = view;
			gsioi_gltf_jnum(c, j, "bufferView", view);
			gsioi_gltf_jstr(c, j, "mimeType", mime);
		}
		if (im->extras.count) gsioi_gltf_jset(c, j, "extras", gsioi_gltf_extras_json(c, NULL, &im->extras));
		c->image_index[i] = gsioi_gltf_jpush(c, c->images, j);
	}
	// Beside the rest on a helper thread when that is worth it; else now,
	// before the meshes, so that the encoder's state is gone by then.
	c->images_first = pixels < IMAGE_HELPER_PIXELS;
	if (c->threads < 2 || c->images_first || !gsioi_helper_start(&c->helper, run_images, c))
		make_images(c);
	return true;
}

/** Finishes the images (the ones the helper has not begun, then waits for
 *  it) and places them: GLB, after the rest of the buffer, each padded to 4
 *  bytes (c->img_bytes); .gltf, as files of the output. False when one could not
 *  be made (err: which) or on a failed allocation. */
bool gsioi_gltf_images_place(gltf_ctx *c)
{
	make_images(c);
	gsioi_helper_join(&c->helper);
	for (size_t k = 0; k < c->jobs_count; k++) {
		image_job *j = &c->jobs[k];
		const gsio_image *im = &c->s->images[j->image];
		if (j->rc) {
			*c->err = j->err;
			c->err->offset = -1;
			snprintf(c->err->message, sizeof(c->err->message), "image %zu (%s, %ux%u): cannot encode as PNG",
			         j->image, gsioi_gltf_or_default(im->name, ""), (unsigned)im->width, (unsigned)im->height);
			return false;
		}
		if (!c->separate) {
			j->off = c->img_bytes;
			size_t end = j->off + j->size;
			if (end < j->off || end > BUFFER_LIMIT - 3) {
				FAIL(c, GSIO_ERR_LIMIT, "glTF buffer exceeds 4 GiB");
				return false;
			}
			c->img_bytes = (end + 3) & ~(size_t)3;
			continue;
		}
		uint8_t *data = j->data;
		if (j->borrowed && !(data = malloc(j->size ? j->size : 1))) return gsioi_gltf_fail_nomem(c, "an image file");
		if (j->borrowed) memcpy(data, j->data, j->size);
		char file[512];
		image_file_name(c, j->image, j->ext, file, sizeof(file));
		if (!gsioi_gltf_add_file(c->out, file, data, j->size)) {
			if (j->borrowed) free(data);
			return gsioi_gltf_fail_nomem(c, "an image file");
		}
		j->data = NULL; // the output's now
		j->borrowed = false;
	}
	return true;
}

/* Tests only (not exported from the shared library): every bound cut to
 * this, so that the JSON outgrows its room (test_gltf_stream). */
extern size_t gsio_gltf_test_bound_cap;
size_t gsio_gltf_test_bound_cap = SIZE_MAX;

/* A GLB's images go after the rest of the buffer, so that the rest can be
 * written to the file while the helper still makes images (early_bin):
 * its offset there follows the JSON chunk, whose length depends on the
 * images' sizes only through the digits of their views' offsets and
 * lengths and of the buffer's length. Each image gets a bound, a function
 * of what it is made from only (never of the threads or the time): its
 * size when that is known before the meshes in every mode (a file's; every
 * image's when together they are too small for the helper thread,
 * images_first), else twice the bytes of its rows as RGBA with a filter
 * byte, plus 4 KiB for the chunks (the PNGs made here are smaller; a
 * larger one is still written right: gsioi_gltf_place_glb() then writes the BIN again
 * after the JSON's own length). The JSON chunk is given the room the
 * JSON takes with the bounds' numbers (json_room), or its own length when
 * that is more: the chunk is the JSON and then spaces up to that room
 * (whitespace is allowed after JSON; the glTF spec asks for trailing
 * spaces as the chunk's padding), a few bytes an image: golem's 1 (its
 * 187 KB skin bounded by 2.1 MB). Every GLB, in memory or in a file, gets the
 * same rule, so the bytes do not depend on how they were made. */
void gsioi_gltf_plan_bounds(gltf_ctx *c)
{
	size_t at = 0;
	for (size_t k = 0; k < c->jobs_count; k++) {
		image_job *j = &c->jobs[k];
		const gsio_image *im = &c->s->images[j->image];
		double rows = ((double)im->width * 4 + 1) * (double)im->height;
		double b = j->how == IMG_FILE || c->images_first ? (double)j->size : 2 * rows + 4096;
		j->bound = b < (double)(BUFFER_LIMIT / 4) ? (size_t)b : BUFFER_LIMIT / 4;
		if (j->bound > gsio_gltf_test_bound_cap) j->bound = gsio_gltf_test_bound_cap;
		j->boff = at;
		at += (j->bound + 3) & ~(size_t)3;
		if (at > BUFFER_LIMIT) at = BUFFER_LIMIT; // over 4 GiB: glb_plan() refuses it
	}
	c->img_bound = at;
}

/** Waits for the helper (a failure left it running) and frees the jobs. */
void gsioi_gltf_images_free(gltf_ctx *c)
{
	if (c->helper.started) {
		// Nothing more to claim, and no wait for a job nobody claimed.
		atomic_store(&c->jobs_stop, true);
		atomic_store(&c->jobs_next, c->jobs_count);
		gsioi_helper_join(&c->helper);
	}
	for (size_t k = 0; c->jobs && k < c->jobs_count; k++) {
		if (!c->jobs[k].borrowed) free(c->jobs[k].data);
		gsioi_png_work_free(c->jobs[k].work); // begun, its bands not all made
	}
	free(c->jobs);
	c->jobs = NULL;
}

/** Writes the images' bytes, each padded to 4, in buffer order. */
bool gsioi_gltf_images_emit(gltf_ctx *c, bool (*emit)(void *user, const void *p, size_t n), void *user)
{
	static const uint8_t zeros[3] = {0};
	for (size_t k = 0; k < c->jobs_count; k++) {
		const image_job *j = &c->jobs[k];
		size_t pad = (4 - j->size % 4) % 4;
		if ((j->size && !emit(user, j->data, j->size)) || (pad && !emit(user, zeros, pad))) return false;
	}
	return true;
}
