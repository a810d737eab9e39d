/* External textures of GameStudio models and terrains (skin type 7): a file
 * name stored in the model, found by the rule of gsioi_files.h. See
 * gsioi_image_file.h. */
#include "gsioi_files.h"
#include "gsioi_image_file.h"

#include <stdio.h>

// Reads and decodes the file found at path into im.
static bool load_found(gsio_scene *s, const char *stored, const char *path, const gsio_opts *opts,
                       gsio_image *im, bool *loaded, gsio_error *err)
{
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (gsioi_io_read(opts, path, &data, &size, &sub))
		return gsioi_scene_warn(s, err, "external texture \"%.150s\": %.200s: %.120s: not loaded",
		                        stored, path, sub.message);
	gsio_error_clear(&sub);
	// The default io's buffer is malloc'd: an image kept undecoded
	// (GSIO_OPT_NO_PIXELS) keeps it instead of a copy.
	bool taken = false;
	bool ok = gsioi_image_file_load(data, size, path, opts, s->arena, im,
	                                gsioi_io_is_default(opts) ? &taken : NULL, &sub);
	if (!taken) gsioi_io_free(opts, data);
	if (!ok) {
		if (gsioi_image_file_fatal(s->arena, &sub)) {
			GSIO_FAIL(err, sub.code, path, -1, "%s", sub.message);
			return false;
		}
		return gsioi_scene_warn(s, err, "external texture %.300s: %.150s: not loaded", path,
		                        sub.message);
	}
	GSIO_CHECK((im->source_path = gsioi_arena_strdup(s->arena, path, err)));
	const char *base = gsioi_path_base(path);
	GSIO_CHECK((im->name = gsioi_text_utf8_dup(s->arena, base, strlen(base), err)));
	im->source_format = GSIO_PIXEL_RGBA8888;
	*loaded = true;
	return true;
}

bool gsioi_external_image_load(gsio_scene *s, const char *stored, const char *path,
                               const gsio_opts *opts, gsio_image *im, bool *loaded, int32_t *same,
                               gsio_error *err)
{
	*loaded = false;
	if (same) *same = -1;
	const char *base = gsioi_path_base(stored);
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return gsioi_scene_warn(s, err, "external texture \"%.200s\" has no file name: not loaded",
		                       stored);
	gsio_arena *tmp = gsioi_arena_for(opts, "external texture", err);
	GSIO_CHECK(tmp);
	gsioi_finder f;
	gsioi_finder_init(&f, tmp, opts);
	gsioi_found *r = gsioi_arena_alloc(tmp, sizeof(*r), err);
	bool ok = r && gsioi_finder_add_defaults(&f, path, "the model's folder", err) &&
	          gsioi_find_file(&f, stored, r, err);
	if (ok && !r->found) {
		char tail[700];
		gsioi_finder_missing(&f, r, "not loaded", tail, sizeof(tail));
		ok = gsioi_scene_warn(s, err, "external texture \"%.150s\" %s", stored, tail);
	} else if (ok) {
		for (size_t i = 0; same && i < s->images_count && *same < 0; i++)
			if (s->images[i].source_path && !strcmp(s->images[i].source_path, r->path))
				*same = (int32_t)i;
		if (!same || *same < 0) ok = load_found(s, stored, r->path, opts, im, loaded, err);
	}
	gsioi_finder_free(&f);
	gsioi_arena_destroy(tmp);
	return ok;
}
