/* glTF 2.0 / GLB writer for gsio scenes (scene v2): the entry points
 * (gsio_gltf_write, gsio_gltf_write_file, gsio_gltf_output_free) and the
 * run they share: the options read into the writer's context, the document
 * assembled part by part in its order, the output handed back as files in
 * memory or placed on disk, the errors and warnings recorded on the way.
 *
 * The document is built with cJSON (gltf_json.c), the binary data in one
 * growable buffer (gltf_buffer.c: the GLB BIN chunk or the .bin file);
 * images are encoded with gsioi_png_encode() (gltf_image.c) and files
 * placed with gsioi_place_files(); when writing to a file, the binary data
 * beyond bin.limit goes to the output side of the disk as it is made
 * (gsioi_placing: see gltf_buffer.c). The writer is part of libgsio; its
 * parts share gltf_internal.h. Mapping decisions are
 * explained in blender_bridge/README.md; the short form is in gsio_gltf.h.
 * The scene is checked with gsio_scene_validate() first, so indices,
 * counts and floats are trusted in every part; only what the validator
 * allows but glTF does not (an empty mesh, a weight of 0 everywhere, ...)
 * is handled there. */
#define _GNU_SOURCE // strdup, strcasecmp; cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"
#include "gsioi_os.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Writing a GLB file, the binary buffer keeps at most this much in memory
 * (beyond it, the bytes go through an unnamed temporary and are copied into
 * the GLB behind the JSON, which comes first but is known last); a view at
 * least this large is written straight from the caller's array. 32 MiB:
 * the temporary and the kernel's copy of it cost golem (5 MB of morph
 * targets) a fifth of its time, more than holding its BIN in memory (see
 * map_buffer in gltf_buffer.c). Writing .gltf + .bin, the .bin itself is
 * the temporary. */
#define SPILL_BYTES ((size_t)32 << 20)
#define SPILL_BYTES_SEPARATE ((size_t)256 << 10)

// -- Errors and warnings (public gsio_error fields only)

void gsioi_gltf_fail_at(gsio_error *err, gsio_error_code code, const char *file, int line,
                  const char *fmt, ...)
{
	if (!err) return;
	gsio_error_clear(err);
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->offset = -1;
	err->src_file = file;
	err->src_line = line;
}

void gsioi_gltf_warn(gltf_ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsio_gltf_output *o = c->out;
	char **w = realloc(o->warnings, (o->warnings_count + 1) * sizeof(*w));
	if (!w) {
		c->json_failed = true;
		return;
	}
	o->warnings = w;
	if (!(w[o->warnings_count] = strdup(buf))) {
		c->json_failed = true;
		return;
	}
	o->warnings_count++;
}

bool gsioi_gltf_fail_nomem(gltf_ctx *c, const char *what)
{
	FAIL(c, GSIO_ERR_NOMEM, "out of memory writing glTF (%s)", what);
	return false;
}

bool gsioi_gltf_mul_size(size_t a, size_t b, size_t *out)
{
	if (b && a > SIZE_MAX / b) return false;
	*out = a * b;
	return true;
}

void *gsioi_gltf_xmalloc_array(gltf_ctx *c, size_t count, size_t size)
{
	size_t n;
	if (!gsioi_gltf_mul_size(count, size, &n)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer size overflows");
		return NULL;
	}
	void *p = malloc(n ? n : 1);
	if (!p) gsioi_gltf_fail_nomem(c, "a temporary array");
	return p;
}

bool gsioi_gltf_add_file(gsio_gltf_output *o, const char *name, uint8_t *data, size_t size)
{
	gsio_gltf_file *f = realloc(o->files, (o->files_count + 1) * sizeof(*f));
	if (!f) return false;
	o->files = f;
	char *n = strdup(name);
	if (!n) return false;
	f[o->files_count].name = n;
	f[o->files_count].data = data;
	f[o->files_count].size = size;
	o->files_count++;
	return true;
}

const char *gsioi_gltf_or_default(const char *s, const char *fallback)
{
	return s && s[0] ? s : fallback;
}

// -- Document assembly

/** Attaches arr under key when it has items (glTF forbids empty arrays). */
static void attach(gltf_ctx *c, const char *key, cJSON **arr)
{
	cJSON *a = gsioi_gltf_jtext_take(c, arr);
	if (a) gsioi_gltf_jset(c, c->root, key, a);
}

void gsio_gltf_output_free(gsio_gltf_output *out)
{
	if (!out) return;
	for (size_t i = 0; i < out->files_count; i++) {
		free(out->files[i].name);
		free(out->files[i].data);
	}
	for (size_t i = 0; i < out->warnings_count; i++) free(out->warnings[i]);
	free(out->files);
	free(out->warnings);
	memset(out, 0, sizeof(*out));
}

static bool build_document(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	cJSON *asset = gsioi_gltf_jobj(c);
	gsioi_gltf_jset(c, c->root, "asset", asset);
	gsioi_gltf_jstr(c, asset, "version", "2.0");
	gsioi_gltf_jstr(c, asset, "generator", c->generator);
	cJSON *aextra = gsioi_gltf_jobj(c);
	if (s->format) gsioi_gltf_jstr(c, aextra, "sourceFormat", s->format);
	gsioi_gltf_jnum(c, aextra, "sourceVersion", s->format_version);
	gsioi_gltf_jstr(c, aextra, "sourceAxes",
	          c->convert_axes ? "converted from Z up, X forward" : "Z up, X forward (kept)");
	if (s->warnings_count) {
		cJSON *w = gsioi_gltf_jarr(c);
		for (size_t i = 0; i < s->warnings_count; i++) gsioi_gltf_jadd(c, w, cJSON_CreateString(s->warnings[i]));
		gsioi_gltf_jset(c, aextra, "sourceWarnings", w);
	}
	gsioi_gltf_jset(c, asset, "extras", aextra);

	c->accessors = gsioi_gltf_jarr(c);
	c->views = gsioi_gltf_jarr(c);
	c->nodes = gsioi_gltf_jarr(c);
	c->meshes = gsioi_gltf_jarr(c);
	c->materials = gsioi_gltf_jarr(c);
	c->textures = gsioi_gltf_jarr(c);
	c->images = gsioi_gltf_jarr(c);
	c->samplers = gsioi_gltf_jarr(c);
	c->skins = gsioi_gltf_jarr(c);
	c->animations = gsioi_gltf_jarr(c);
	c->cameras = gsioi_gltf_jarr(c);
	c->scene_nodes = gsioi_gltf_jarr(c);
	c->extensions_used = gsioi_gltf_jarr(c);
	if (c->json_failed) return gsioi_gltf_fail_nomem(c, "the JSON document");

	c->lights = gsioi_gltf_jarr(c);
	size_t n = s->meshes_count ? s->meshes_count : 1;
	c->mesh_index = gsioi_gltf_xmalloc_array(c, n, sizeof(int));
	c->same_first = gsioi_gltf_xmalloc_array(c, n, sizeof(size_t));
	c->same_next = gsioi_gltf_xmalloc_array(c, n, sizeof(size_t));
	c->mesh_targets = gsioi_gltf_xmalloc_array(c, n, sizeof(int));
	c->mesh_skin = gsioi_gltf_xmalloc_array(c, n, sizeof(int));
	c->image_index = gsioi_gltf_xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(int));
	c->tex_of = gsioi_gltf_xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(*c->tex_of));
	c->folded = gsioi_gltf_xmalloc_array(c, s->nodes_count ? s->nodes_count : 1, sizeof(bool));
	c->q_off = gsioi_gltf_xmalloc_array(c, n, 3 * sizeof(float));
	c->q_scale = gsioi_gltf_xmalloc_array(c, n, sizeof(float));
	c->q_ok = gsioi_gltf_xmalloc_array(c, n, sizeof(bool));
	if (!c->q_off || !c->q_scale || !c->q_ok) return false;
	for (size_t i = 0; i < n; i++) c->q_scale[i] = 0, c->q_ok[i] = false;
	gsioi_gltf_plan_quant(c);
	if (!c->mesh_index || !c->mesh_targets || !c->mesh_skin || !c->image_index || !c->folded ||
	    !c->tex_of || !c->same_first || !c->same_next || !gsioi_gltf_plan_shared_meshes(c))
		return false;
	for (size_t i = 0; i < s->images_count; i++)
		for (int k = 0; k < 9; k++) c->tex_of[i][k] = -1;
	for (size_t i = 0; i < n; i++) c->mesh_index[i] = c->mesh_targets[i] = c->mesh_skin[i] = -1;
	for (size_t i = 0; i < 9; i++) c->sampler_of[i / 3][i % 3] = -1;

	// The images never go into the BIN in memory (a GLB's go after it in
	// the file, gsioi_gltf_glb_images()), so what it surely reaches is known now.
	c->bin_surely = gsioi_gltf_bin_before_images(c);
	if (!gsioi_gltf_write_images(c)) return false;
	if (!gsioi_gltf_write_materials(c)) return false;
	c->variants_count = gsioi_gltf_plan_variants(c);
	for (size_t i = 0; i < s->meshes_count; i++)
		if (!gsioi_gltf_write_mesh(c, i)) return false;
	if (c->used_quant) {
		// Quantised attributes are invalid glTF without the extension.
		gsioi_gltf_jadd(c, c->extensions_used, cJSON_CreateString("KHR_mesh_quantization"));
		cJSON *req = gsioi_gltf_jarr(c);
		gsioi_gltf_jadd(c, req, cJSON_CreateString("KHR_mesh_quantization"));
		gsioi_gltf_jset(c, c->root, "extensionsRequired", req);
	}
	gsioi_gltf_plan_folds(c);
	if (!gsioi_gltf_write_nodes(c) || !gsioi_gltf_write_skins(c) || !gsioi_gltf_write_cameras(c) || !gsioi_gltf_write_lights(c))
		return false;
	if (!gsioi_gltf_plan_sparse_base(c)) return false;
	for (size_t i = 0; c->animate && i < s->animations_count; i++)
		if (!gsioi_gltf_write_animation(c, i)) return false;
	if (!gsioi_gltf_buffer_align(c)) return false;
	if (c->separate) {
		if (!gsioi_gltf_images_place(c)) return false;
		gsioi_gltf_emit_views(c, false);
	} else {
		// The images are placed later (gsioi_gltf_glb_images); their views and the
		// buffer's length are printed with their bounds first.
		gsioi_gltf_plan_bounds(c);
		gsioi_gltf_emit_views(c, true);
	}

	size_t bytes = c->bin.size + (c->separate ? 0 : c->img_bound); // a .gltf's images are files
	if (bytes) {
		cJSON *buffers = gsioi_gltf_jarr(c), *b = gsioi_gltf_jobj(c);
		gsioi_gltf_jnum(c, b, "byteLength", (double)bytes);
		c->buffer = b;
		if (c->separate) {
			char file[512], uri[1600];
			snprintf(file, sizeof(file), "%s.bin", c->name);
			gsioi_gltf_uri_encode(file, uri, sizeof(uri));
			gsioi_gltf_jstr(c, b, "uri", uri);
		}
		gsioi_gltf_jadd(c, buffers, b);
		gsioi_gltf_jset(c, c->root, "buffers", buffers);
	}
	attach(c, "extensionsUsed", &c->extensions_used);
	attach(c, "bufferViews", &c->views);
	attach(c, "accessors", &c->accessors);
	attach(c, "images", &c->images);
	attach(c, "samplers", &c->samplers);
	attach(c, "textures", &c->textures);
	attach(c, "materials", &c->materials);
	attach(c, "meshes", &c->meshes);
	attach(c, "skins", &c->skins);
	attach(c, "cameras", &c->cameras);
	attach(c, "nodes", &c->nodes);
	attach(c, "animations", &c->animations);
	cJSON *scenes = gsioi_gltf_jarr(c), *scene = gsioi_gltf_jobj(c);
	gsioi_gltf_jstr(c, scene, "name", c->name);
	cJSON *sextras = gsioi_gltf_extras_json(c, NULL, &s->extras);
	if (sextras) gsioi_gltf_jset(c, scene, "extras", sextras);
	cJSON *roots = gsioi_gltf_jtext_take(c, &c->scene_nodes);
	if (roots) gsioi_gltf_jset(c, scene, "nodes", roots);
	gsioi_gltf_jadd(c, scenes, scene);
	gsioi_gltf_jnum(c, c->root, "scene", 0);
	gsioi_gltf_jset(c, c->root, "scenes", scenes);
	return true;
}

/** gsio_gltf_write(), or with a sink: the GLB (or the spilled .bin, left in
 *  sink->bin) goes to files, the rest into out as in memory. */
static int write_impl(const gsio_scene *scene, const gsio_gltf_opts *o, gsio_gltf_output *out,
                      gltf_sink *sink, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!out) {
		gsioi_gltf_fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write: no output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (!scene) {
		gsioi_gltf_fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write: no scene");
		return -1;
	}
	// Every rule of the scene model, checked once: the writer below trusts
	// indices, counts and floats.
	if (gsio_scene_validate(scene, err)) {
		if (err->code == GSIO_OK) err->code = GSIO_ERR_ARGUMENT;
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	gltf_ctx ctx = {0};
	gltf_ctx *c = &ctx;
	c->s = scene;
	c->err = err;
	c->out = out;
	c->sink = sink;
	c->scale = opts.scale == 0 ? 1.0f : opts.scale;
	if (!isfinite(c->scale) || c->scale <= 0) {
		gsioi_gltf_fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "scale %g must be a positive number",
		             (double)opts.scale);
		return -1;
	}
	c->convert_axes = !(opts.flags & GSIO_GLTF_KEEP_AXES);
	c->animate = !(opts.flags & GSIO_GLTF_NO_ANIMATION);
	c->separate = (opts.flags & GSIO_GLTF_SEPARATE) != 0;
	c->bin.limit = opts.buffer_memory ? opts.buffer_memory : c->separate ? SPILL_BYTES_SEPARATE : SPILL_BYTES;
	c->sparse = (opts.flags & GSIO_GLTF_SPARSE_MORPH) != 0;
	c->compact = (opts.flags & GSIO_GLTF_COMPACT) != 0;
	c->all_images = (opts.flags & GSIO_GLTF_ALL_IMAGES) != 0;
	c->threads = opts.threads;
	char stem[256];
	gsioi_gltf_safe_name(opts.name && opts.name[0] ? opts.name : "model", stem, sizeof(stem));
	// Keep the caller's stem for file names when it is printable; only
	// path separators are never allowed in it.
	if (opts.name && opts.name[0] && !strchr(opts.name, '/') && !strchr(opts.name, '\\') &&
	    strlen(opts.name) < sizeof(stem))
		snprintf(stem, sizeof(stem), "%s", opts.name);
	c->name = stem;
	c->root = gsioi_gltf_jobj(c);
	char gen[128];
	if (opts.generator)
		snprintf(gen, sizeof(gen), "%s", opts.generator);
	else
		snprintf(gen, sizeof(gen), "gsio %s", GSIO_VERSION_STRING);
	c->generator = gen;
	bool ok = c->root && build_document(c) && !c->bin.failed;
	if (ok && c->json_failed) ok = gsioi_gltf_fail_nomem(c, "the JSON document");
	if (ok && !c->separate) ok = gsioi_gltf_glb_images(c);
	char *json = NULL;
	if (ok) {
		// A GLB's document holds marks for its array texts (gsioi_gltf_jtext_take):
		// small; the texts go into the JSON chunk as it is written.
		json = c->separate ? cJSON_Print(c->root) : cJSON_PrintUnformatted(c->root);
		if (!json) ok = gsioi_gltf_fail_nomem(c, "printing JSON");
		// The tree is not needed past this point: freed before the JSON
		// chunk is written.
		cJSON_Delete(c->root);
		c->root = NULL;
	}
	if (ok) {
		if (c->separate) {
			// Main file first: move the image files added so far behind it.
			size_t nimg = out->files_count;
			char name[512];
			snprintf(name, sizeof(name), "%s.gltf", c->name);
			size_t jl = strlen(json);
			ok = gsioi_gltf_add_file(out, name, (uint8_t *)json, jl);
			if (ok) {
				json = NULL;
				gsio_gltf_file main = out->files[nimg];
				memmove(out->files + 1, out->files, nimg * sizeof(*out->files));
				out->files[0] = main;
			}
			if (ok && c->bin.spill) {
				// The .bin is on disk already: placed by the caller.
				ok = gsioi_gltf_buf_spill(c, true);
				if (ok) {
					c->sink->bin = c->bin.spill;
					c->bin.spill = NULL;
				}
			} else if (ok && c->bin.size) {
				snprintf(name, sizeof(name), "%s.bin", c->name);
				ok = gsioi_gltf_add_file(out, name, c->bin.data, c->bin.size);
				if (ok) c->bin.data = NULL;
				if (ok) {
					// .bin right after the .gltf
					gsio_gltf_file bin = out->files[out->files_count - 1];
					memmove(out->files + 2, out->files + 1, (out->files_count - 2) * sizeof(*out->files));
					out->files[1] = bin;
				}
			}
			if (!ok && err->code == GSIO_OK) gsioi_gltf_fail_nomem(c, "the output list");
		} else if (c->sink) {
			ok = gsioi_gltf_place_glb(c, json);
		} else {
			// In memory: the images go into the GLB from their own buffers
			// (gsioi_gltf_make_glb); no files yet.
			ok = gsioi_gltf_make_glb(c, json, out);
		}
	}
	free(json);
	gsioi_gltf_images_free(c); // first: a failure may have left the helper running
	free(c->vrec);
	cJSON_Delete(c->root);
	cJSON_Delete(c->accessors);
	cJSON_Delete(c->views);
	cJSON_Delete(c->nodes);
	cJSON_Delete(c->meshes);
	cJSON_Delete(c->materials);
	cJSON_Delete(c->textures);
	cJSON_Delete(c->images);
	cJSON_Delete(c->samplers);
	cJSON_Delete(c->skins);
	cJSON_Delete(c->animations);
	cJSON_Delete(c->cameras);
	cJSON_Delete(c->lights);
	cJSON_Delete(c->scene_nodes);
	cJSON_Delete(c->extensions_used);
	for (int k = 0; k < JT_COUNT; k++) free(c->jt[k].p);
	free(c->mesh_index);
	free(c->same_first);
	free(c->same_next);
	free(c->mesh_targets);
	free(c->mesh_skin);
	free(c->image_index);
	free(c->folded);
	free(c->q_off);
	free(c->q_scale);
	free(c->q_ok);
	free(c->tex_of);
	gsioi_gltf_buf_free(&c->bin);
	gsioi_place_discard(c->bin.spill);
	gsioi_place_discard(c->early); // a write that failed after early_bin()
	if (!ok) {
		gsio_gltf_output_free(out);
		if (err->code == GSIO_OK) gsioi_gltf_fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "glTF writing failed");
		return -1;
	}
	return 0;
}

int gsio_gltf_write(const gsio_scene *scene, const gsio_gltf_opts *o, gsio_gltf_output *out,
                    gsio_error *err)
{
	return write_impl(scene, o, out, NULL, err);
}

// -- Files

/** The part of path after the last '/'. */
static const char *path_base(const char *path)
{
	const char *slash = gsioi_path_last_sep(path);
	return slash ? slash + 1 : path;
}

/** The final path of output file `name` (the main file's is `path` itself),
 *  malloc'd; NULL with err set when out of memory. */
static char *resource_path(const char *path, size_t dir_len, const char *name, bool main_file, gsio_error *err)
{
	size_t len = main_file ? strlen(path) : dir_len + strlen(name);
	char *p = malloc(len + 1);
	if (!p) {
		gsioi_gltf_fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
		return NULL;
	}
	if (main_file)
		memcpy(p, path, len + 1);
	else
		snprintf(p, len + 1, "%.*s%s", (int)dir_len, path, name);
	return p;
}

int gsio_gltf_write_file(const gsio_scene *scene, const char *path, const gsio_gltf_opts *o,
                         gsio_gltf_output *warnings, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	if (!path || !path[0]) {
		gsioi_gltf_fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write_file: no path");
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	const char *base = path_base(path);
	const char *dot = strrchr(base, '.');
	if (dot && !strcasecmp(dot, ".gltf")) opts.flags |= GSIO_GLTF_SEPARATE;
	if (dot && !strcasecmp(dot, ".glb")) opts.flags &= ~(uint32_t)GSIO_GLTF_SEPARATE;
	size_t dir_len = (size_t)(base - path);
	char stem[256];
	snprintf(stem, sizeof(stem), "%s", base);
	char *sdot = strrchr(stem, '.');
	if (sdot && sdot != stem) *sdot = 0;
	opts.name = stem;
	bool no_replace = (opts.flags & GSIO_GLTF_NO_REPLACE) != 0;
	gsioi_file_info st;
	if (no_replace && gsioi_stat(path, false, &st)) {
		// Fail before the work; placement checks again (link, never replace).
		gsioi_gltf_fail_at(err, GSIO_ERR_IO, __FILE__, __LINE__, "exists (not replaced)");
		snprintf(err->file, sizeof(err->file), "%s", path);
	}

	gltf_sink sink = {path, dir_len, no_replace, NULL};
	gsio_gltf_output out;
	if (err->code != GSIO_OK || write_impl(scene, &opts, &out, &sink, err)) {
		gsioi_place_discard(sink.bin);
		return -1;
	}

	// A GLB is placed already (out has no file then); .gltf, .png and a .bin
	// still in memory are written here, each to a temporary beside its path,
	// and placed together with a spilled .bin (sink.bin): none is placed
	// unless all are written, and one that cannot be placed takes back the
	// others (gsioi_place_commit_all). Nothing is allocated for a GLB: it is
	// placed, and an allocation that failed now would report a failure with
	// the file in place.
	size_t n = out.files_count, m = n + (sink.bin != NULL);
	gsioi_placing **ps = m ? calloc(m, sizeof(*ps)) : NULL;
	bool ok = !m || ps;
	if (!ok) gsioi_gltf_fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
	// With no_replace nothing is written when any output exists.
	for (size_t i = 0; ok && no_replace && i < n; i++) {
		char *final = resource_path(path, dir_len, out.files[i].name, i == 0, err);
		ok = final != NULL;
		if (ok && gsioi_stat(final, false, &st)) {
			gsioi_gltf_fail_at(err, GSIO_ERR_IO, __FILE__, __LINE__, "exists (not replaced)");
			snprintf(err->file, sizeof(err->file), "%s", final);
			ok = false;
		}
		free(final);
	}
	// The spilled .bin first, then the resources, the main file (files[0])
	// last: it never refers to missing files.
	size_t k = 0;
	if (ok && sink.bin) ps[k++] = sink.bin, sink.bin = NULL;
	for (size_t j = 1; ok && j <= n; j++) {
		size_t i = j % n;
		char *final = resource_path(path, dir_len, out.files[i].name, i == 0, err);
		ok = final && (ps[k] = gsioi_place_bytes(final, out.files[i].data, out.files[i].size, err)) != NULL;
		free(final);
		if (ok) k++;
	}
	if (ok) {
		ok = gsioi_place_commit_all(ps, k, no_replace, err) == 0;
	} else {
		for (size_t i = 0; i < k; i++) gsioi_place_discard(ps[i]);
	}
	gsioi_place_discard(sink.bin);
	free(ps);
	if (warnings) {
		warnings->warnings = out.warnings;
		warnings->warnings_count = out.warnings_count;
		out.warnings = NULL;
		out.warnings_count = 0;
	}
	gsio_gltf_output_free(&out);
	return ok ? 0 : -1;
}
