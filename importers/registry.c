/* The importer registry: detection by magic first, extension second. */
#include "gsioi_internal.h"
#include "gsio_hmp.h"
#include "gsio_md5.h"
#include "gsio_mdl.h"
#include "gsio_wmp.h"

#include <stdlib.h>

static const gsio_importer *const importers[] = {
    &gsio_mdl_importer,
    &gsio_hmp_importer,
    &gsio_md5_importer,
    &gsio_wmp_importer,
    NULL,
};

const gsio_importer *const *gsio_importers(void)
{
	return importers;
}

const gsio_importer *gsio_find_importer(const uint8_t *head, size_t head_size, const char *path)
{
	char ext[16];
	gsioi_path_ext(path, ext, sizeof(ext));
	const gsio_importer *by_ext = NULL;
	for (size_t i = 0; importers[i]; i++) {
		int score = importers[i]->can_read(head, head_size, ext);
		if (score == 2) return importers[i];
		if (score == 1 && !by_ext) by_ext = importers[i];
	}
	return by_ext;
}

gsio_scene *gsio_load_memory(const uint8_t *data, size_t size, const char *path,
                             const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	const gsio_importer *imp = gsio_find_importer(data, size, path);
	if (!imp) {
		GSIO_FAIL(err, GSIO_ERR_BAD_MAGIC, path, 0,
		          "unknown format: neither the first bytes nor the extension match a format "
		          "gsio reads");
		return NULL;
	}
	return imp->read(data, size, path, opts, err);
}

/* Whether a packed frame of s lies in data[0..size). */
static bool scene_points_into(const gsio_scene *s, const uint8_t *data, size_t size)
{
	uintptr_t lo = (uintptr_t)data, hi = lo + size;
	for (size_t i = 0; i < s->images_count; i++) { // stored skins (GSIO_OPT_NO_PIXELS)
		uintptr_t p = (uintptr_t)s->images[i].stored;
		if (p >= lo && p < hi) return true;
	}
	for (size_t i = 0; i < s->meshes_count; i++)
		for (size_t f = 0; s->meshes[i].packed && f < s->meshes[i].frames_count; f++) {
			uintptr_t p = (uintptr_t)s->meshes[i].frames[f].packed;
			if (p >= lo && p < hi) return true;
		}
	return false;
}

gsio_scene *gsio_load_file(const char *path, const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	uint8_t *data;
	size_t size;
	// Through opts->io (or the default io: regular files only, so a FIFO or a
	// device named like a model fails at once instead of blocking).
	if (gsioi_io_read(opts, path, &data, &size, err)) return NULL;
	if (!gsioi_io_is_default(opts)) {
		gsio_scene *s = gsio_load_memory(data, size, path, opts, err);
		gsioi_io_free(opts, data);
		return s;
	}
	// The default io's buffer is malloc'd: the scene may keep it instead of
	// copying what it points into (MDL packed frames), and frees it with
	// itself. A scene that points into none of it lets it go at once.
	gsio_opts o = {0};
	if (opts) o = *opts;
	o.flags |= GSIO_OPT_BORROW;
	gsio_scene *s = gsio_load_memory(data, size, path, &o, err);
	if (s && scene_points_into(s, data, size)) {
		if (gsioi_arena_keep(s->arena, data, err)) return s;
		gsio_scene_free(s);
		s = NULL;
	}
	gsioi_io_free(opts, data);
	return s;
}
