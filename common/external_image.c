/* External textures of GameStudio models and terrains (skin type 7): a file
 * name stored in the model, looked for beside it. See gsioi_image_file.h. */
#include "gsioi_image_file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

static bool same_name_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
	return !*a && !*b;
}

/* The name in dir that equals `base` but for case, copied into out; false
 * when the io cannot list or nothing matches. */
static bool find_nocase(const gsio_opts *opts, const char *dir, const char *base, char *out,
                        size_t out_size)
{
	const gsio_io *io = gsioi_io_of(opts);
	if (!io->list_dir) return false;
	char **names = NULL;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (io->list_dir(io->user, *dir ? dir : ".", &names, &sub) || !names) return false;
	bool found = false;
	for (size_t i = 0; names[i] && !found; i++)
		if (same_name_nocase(names[i], base)) {
			found = (size_t)snprintf(out, out_size, "%s", names[i]) < out_size;
		}
	if (io->free_list) io->free_list(io->user, names);
	return found;
}

bool gsioi_external_image_load(gsio_scene *s, const char *stored, const char *path,
                               const gsio_opts *opts, gsio_image *im, bool *loaded,
                               gsio_error *err)
{
	*loaded = false;
	const char *base = gsioi_path_base(stored);
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return gsioi_scene_warn(s, err, "external texture \"%.200s\" has no file name: not loaded",
		                       stored);
	size_t dir_len = path ? (size_t)(gsioi_path_base(path) - path) : 0;
	char dir[1024], full[1024], found[256];
	if (dir_len >= sizeof(dir) ||
	    (size_t)snprintf(full, sizeof(full), "%.*s%s", (int)dir_len, path ? path : "", base) >=
	        sizeof(full))
		return gsioi_scene_warn(s, err, "external texture \"%.200s\": path too long", stored);
	snprintf(dir, sizeof(dir), "%.*s", (int)dir_len, path ? path : "");
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	int rc = gsioi_io_read(opts, full, &data, &size, &sub);
	if (rc && sub.code != GSIO_ERR_LIMIT && find_nocase(opts, dir, base, found, sizeof(found)) &&
	    (size_t)snprintf(full, sizeof(full), "%s%s", dir, found) < sizeof(full)) {
		gsio_error_clear(&sub);
		rc = gsioi_io_read(opts, full, &data, &size, &sub);
	}
	if (rc)
		return gsioi_scene_warn(s, err, "external texture \"%.150s\": %.200s: %.120s: not loaded",
		                       stored, full, sub.message);
	// Real files only when they lie in the model's folder (no link out of it).
	if (gsioi_io_is_default(opts) && gsioi_path_inside(dir, full) != 1) {
		gsioi_io_free(opts, data);
		return gsioi_scene_warn(s, err,
		                       "external texture %.300s lies outside the model's folder: not loaded",
		                       full);
	}
	gsio_error_clear(&sub);
	bool ok = gsioi_image_file_load(data, size, full, opts, s->arena, im, &sub);
	gsioi_io_free(opts, data);
	if (!ok) {
		if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
			GSIO_FAIL(err, sub.code, full, -1, "%s", sub.message);
			return false;
		}
		return gsioi_scene_warn(s, err, "external texture %.300s: %.150s: not loaded", full,
		                       sub.message);
	}
	GSIO_CHECK((im->source_path = gsioi_arena_strdup(s->arena, full, err)));
	GSIO_CHECK((im->name = gsioi_arena_strdup(s->arena, gsioi_path_base(full), err)));
	im->source_format = GSIO_PIXEL_RGBA8888;
	*loaded = true;
	return true;
}
