/* The importer registry: detection by magic first, extension second. */
#include "gsioi_internal.h"
#include "gsio_hmp.h"
#include "gsio_md5.h"
#include "gsio_mdl.h"
#include "gsio_wmb.h"
#include "gsio_wmp.h"
#include "gsioi_head.h"

#include <stdlib.h>

static const gsio_importer *const importers[] = {
    &gsio_mdl_importer,
    &gsio_hmp_importer,
    &gsio_md5_importer,
    &gsio_wmp_importer,
    &gsio_wmb_importer,
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

/* No importer claims these bytes: a GameStudio file gsio names but does
 * not read (a WAD), or an unknown format. */
static void no_importer(const uint8_t *data, size_t size, const char *path, gsio_error *err)
{
	if (gsioi_wmp_not_read(data, size, path, err)) return;
	GSIO_FAIL(err, GSIO_ERR_BAD_MAGIC, path, 0,
	          "unknown format: neither the first bytes nor the extension match a format "
	          "gsio reads");
}

gsio_scene *gsio_load_memory(const uint8_t *data, size_t size, const char *path,
                             const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	const gsio_importer *imp = gsio_find_importer(data, size, path);
	if (!imp) {
		no_importer(data, size, path, err);
		return NULL;
	}
	return imp->read(data, size, path, opts, err);
}

/* gsio_load_file's judgement of a file's first bytes (gsioi_head.h): what
 * they rule out fails as gsio_load_memory fails on the whole file. */
static bool head_ok(void *user, const uint8_t *head, size_t n, uint64_t size, gsio_error *err)
{
	const char *path = user;
	bool whole = n == size;
	char ext[16];
	gsioi_path_ext(path, ext, sizeof(ext));
	const gsio_importer *imp = gsio_find_importer(head, n, path);
	bool magic = imp && imp->can_read(head, n, ext) == 2;
	// MD5 and text WMP are known by their first token (or line): a head
	// that ends before it rules nothing out.
	if (!magic && !whole && gsioi_md5_head_undecided(head, n)) return true;
	if (!imp) {
		no_importer(head, n, path, err);
		return false;
	}
	if (imp == &gsio_mdl_importer) return gsioi_mdl_head_ok(head, n, path, err);
	if (imp == &gsio_hmp_importer) return gsioi_hmp_head_ok(head, n, path, err);
	if (imp == &gsio_wmb_importer) return gsioi_wmb_head_ok(head, n, whole, path, err);
	if (magic) return true;
	if (imp == &gsio_md5_importer) return gsioi_md5_head_ok(head, n, whole, path, err);
	if (imp == &gsio_wmp_importer) return gsioi_wmp_head_ok(head, n, whole, path, err);
	return true;
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
	// Through opts->io, or the default io: a regular file only (a FIFO or a
	// device named like a model fails at once instead of blocking), its
	// first bytes judged before the rest is read (a 2 GiB file of zeros
	// named x.mdl is refused after 4 KB). An io of the caller's reads whole
	// files: it has no way to read a part.
	int rc = gsioi_io_is_default(opts)
	             ? gsioi_read_file_checked(path, opts ? opts->memory_limit : 0, head_ok,
	                                       (void *)(uintptr_t)path, &data, &size, err)
	             : gsioi_io_read(opts, path, &data, &size, err);
	if (rc) return NULL;
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
		if (gsioi_arena_keep(s->arena, data, size, err)) return s;
		gsio_scene_free(s);
		s = NULL;
	}
	gsioi_io_free(opts, data);
	return s;
}
