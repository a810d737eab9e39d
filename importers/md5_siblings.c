/* MD5 sibling files: the texture of each shader and the .md5anim files of a
 * mesh, found beside the model and read through the options' io. */
#include "md5_internal.h"

#include "gsioi_image_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

// -- Reading siblings

// The folder part of path, with its trailing separator ("" for none).
static size_t dir_len(const char *path);

// What the path rule says of a sibling file.
typedef enum md5_follow { MD5_FOLLOW = 0, MD5_MISSING, MD5_REFUSED } md5_follow;

// With the default io (real files), a sibling is followed only when it
// resolves inside the model's folder: a symbolic link in the folder that
// leads out of it (or a texture path that does) is refused with a warning.
// A custom io decides for itself what a path means: everything is followed.
static md5_follow check_sibling(gsio_scene *s, const gsio_opts *opts, const char *model,
                                const char *file, const char *what, bool *ok, gsio_error *err)
{
	*ok = true;
	if (!gsioi_io_is_default(opts)) return MD5_FOLLOW;
	char dir[1024];
	size_t dlen = dir_len(model);
	if (dlen >= sizeof(dir)) return MD5_MISSING;
	memcpy(dir, model, dlen);
	dir[dlen] = 0;
	int in = gsioi_path_inside(dir, file);
	if (in < 0) return MD5_MISSING;
	if (in == 0) {
		*ok = gsioi_scene_warn(s, err,
		                       "%s %.300s resolves outside the model's folder: not followed", what,
		                       file);
		return MD5_REFUSED;
	}
	return MD5_FOLLOW;
}

// The folder part of path, with its trailing separator ("" for none).
static size_t dir_len(const char *path)
{
	return path ? (size_t)(gsioi_path_base(path) - path) : 0;
}

#define MD5_PATH_MAX 1024

// "dir" + rel into buf; false when it does not fit.
static bool join_path(char *buf, const char *path, size_t dlen, const char *rel)
{
	size_t rl = strlen(rel);
	if (dlen + rl + 1 > MD5_PATH_MAX) return false;
	memcpy(buf, path, dlen);
	memcpy(buf + dlen, rel, rl + 1);
	return true;
}

// Normalises a shader path to a relative path inside the model's folder:
// '\' becomes '/', "." and empty parts go, ".." removes the part before it.
// 1: ok; 0: absolute or leaves the folder; -1: too long.
static int normalise_relative(const char *in, char out[MD5_PATH_MAX])
{
	size_t n = strlen(in);
	if (n >= MD5_PATH_MAX) return -1;
	char tmp[MD5_PATH_MAX];
	for (size_t i = 0; i <= n; i++) tmp[i] = in[i] == '\\' ? '/' : in[i];
	if (tmp[0] == '/' || (n >= 2 && tmp[1] == ':')) return 0; // /x, //server, C:
	size_t o = 0;
	char *save = tmp;
	while (*save) {
		char *part = save;
		char *slash = strchr(part, '/');
		if (slash) {
			*slash = 0;
			save = slash + 1;
		} else {
			save = part + strlen(part);
		}
		if (!*part || !strcmp(part, ".")) continue;
		if (!strcmp(part, "..")) {
			if (o == 0) return 0;
			while (o > 0 && out[o - 1] != '/') o--;
			if (o > 0) o--; // the separator too
			continue;
		}
		size_t pl = strlen(part);
		if (o) out[o++] = '/';
		memcpy(out + o, part, pl);
		o += pl;
	}
	out[o] = 0;
	return 1;
}

struct md5_candidates {
	char paths[12][MD5_PATH_MAX]; // a shader's subfolder names, inside the model's folder
	size_t count;
	gsioi_finder finder; // the model's folder and --path, listed once per load
	bool finder_ready;
	gsioi_found found;
};

md5_candidates *gsioi_md5_candidates_new(gsio_arena *tmp, const gsio_opts *opts, gsio_error *err)
{
	md5_candidates *c = gsioi_arena_alloc(tmp, sizeof(md5_candidates), err);
	if (c) gsioi_finder_init(&c->finder, tmp, opts);
	return c;
}

void gsioi_md5_candidates_free(md5_candidates *c)
{
	if (c) gsioi_finder_free(&c->finder);
}

// The name rel has with ext instead of (or added to) its own extension, into
// buf; false when ext is its extension already or it does not fit.
static bool with_ext(const char *rel, const char *ext, char buf[MD5_PATH_MAX])
{
	const char *base = gsioi_path_base(rel);
	const char *dot = strrchr(base, '.');
	if (dot && dot != base && !strcasecmp(dot, ext)) return false;
	size_t stem = dot && dot != base ? (size_t)(dot - rel) : strlen(rel);
	if (stem + strlen(ext) + 1 > MD5_PATH_MAX) return false;
	memcpy(buf, rel, stem);
	memcpy(buf + stem, ext, strlen(ext) + 1);
	return true;
}

static const char *const texture_exts[] = {".tga", ".png", ".jpg"};

// rel, then rel with each texture extension instead of (or added to) its own.
static void add_candidates(md5_candidates *c, const char *path, size_t dlen, const char *rel)
{
	if (!*rel) return;
	if (c->count < 12 && join_path(c->paths[c->count], path, dlen, rel)) c->count++;
	for (size_t e = 0; e < 3; e++) {
		char buf[MD5_PATH_MAX];
		if (with_ext(rel, texture_exts[e], buf) && c->count < 12 &&
		    join_path(c->paths[c->count], path, dlen, buf))
			c->count++;
	}
}

// The index of the image loaded from file, -1 when none yet.
static int32_t find_image(const gsio_scene *s, const char *file)
{
	for (size_t i = 0; i < s->images_count; i++)
		if (s->images[i].source_path && !strcmp(s->images[i].source_path, file))
			return (int32_t)i;
	return -1;
}

// What became of one file tried as a shader's texture.
typedef enum md5_tried { MD5_TRIED_NONE = 0, MD5_TRIED_LOADED, MD5_TRIED_REFUSED } md5_tried;

// Reads and decodes file as mat's texture (an image loaded from it before
// is used again). *tried says whether it was loaded, refused or unreadable
// (warned), or not there; false only when the scene fails.
static bool load_texture(gsio_scene *s, gsio_material *mat, const char *file,
                         const gsio_opts *opts, md5_tried *tried, gsio_error *err)
{
	*tried = MD5_TRIED_NONE;
	int32_t known = find_image(s, file);
	if (known >= 0) {
		mat->base_color_texture.image = known;
		*tried = MD5_TRIED_LOADED;
		return true;
	}
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (gsioi_io_read(opts, file, &data, &size, &sub)) {
		if (sub.code == GSIO_ERR_NOMEM) {
			*err = sub;
			return false;
		}
		// A custom io says "missing" this way; a real file that exists
		// but cannot be read (a FIFO, a folder, too big) is worth saying.
		if (!gsioi_io_is_default(opts)) return true;
		*tried = MD5_TRIED_REFUSED;
		return gsioi_scene_warn(s, err, "texture %.300s: %.150s: not read", file, sub.message);
	}
	gsio_image im = {0};
	gsio_error_clear(&sub);
	bool taken = false; // kept undecoded, the default io's buffer is the scene's
	bool decoded = gsioi_image_file_load(data, size, file, opts, s->arena, &im,
	                                     gsioi_io_is_default(opts) ? &taken : NULL, &sub);
	if (!taken) gsioi_io_free(opts, data);
	*tried = MD5_TRIED_REFUSED;
	if (!decoded) {
		if (gsioi_image_file_fatal(s->arena, &sub)) {
			GSIO_FAIL(err, sub.code, file, -1, "%s", sub.message);
			return false;
		}
		return gsioi_scene_warn(s, err, "texture %.300s: %.150s: no image", file, sub.message);
	}
	im.source_type = -1;
	im.source_format = GSIO_PIXEL_RGBA8888;
	GSIO_CHECK((im.source_path = gsioi_arena_strdup(s->arena, file, err)));
	char name[256];
	gsioi_text_utf8(name, sizeof(name), gsioi_path_base(file), 255);
	GSIO_CHECK((im.name = gsioi_md5_unique_image_name(s, name, err)));
	int32_t added = gsioi_scene_push_image(s, &im, err); // grows by doubling
	GSIO_CHECK(added >= 0);
	mat->base_color_texture.image = added;
	*tried = MD5_TRIED_LOADED;
	return true;
}

// A shader path's subfolder names inside the model's folder
// ("tex/skin" -> <folder>/tex/skin.tga, ...), each tried as stored.
static bool try_subfolder(gsio_scene *s, md5_candidates *c, gsio_material *mat, const char *rel,
                          const char *path, const gsio_opts *opts, md5_tried *tried,
                          gsio_error *err)
{
	*tried = MD5_TRIED_NONE;
	c->count = 0;
	add_candidates(c, path, dir_len(path), rel);
	for (size_t i = 0; i < c->count && *tried != MD5_TRIED_LOADED; i++) {
		bool ok_warn;
		md5_follow fol = check_sibling(s, opts, path, c->paths[i], "texture", &ok_warn, err);
		GSIO_CHECK(ok_warn);
		if (fol == MD5_REFUSED) *tried = MD5_TRIED_REFUSED;
		if (fol != MD5_FOLLOW) continue;
		md5_tried t;
		GSIO_CHECK(load_texture(s, mat, c->paths[i], opts, &t, err));
		if (t != MD5_TRIED_NONE) *tried = t;
	}
	return true;
}

// The shader's base name, then the same with each texture extension, by
// the one rule for named files (gsioi_files.h): the model's folder, then
// --path, any case, CP1252 names matched as UTF-8.
static bool try_base_name(gsio_scene *s, md5_candidates *c, gsio_material *mat, const char *base,
                          const char *path, const gsio_opts *opts, md5_tried *tried,
                          gsio_error *err)
{
	if (!c->finder_ready) {
		GSIO_CHECK(gsioi_finder_add_defaults(&c->finder, path, "the model's folder", err));
		c->finder_ready = true;
	}
	char names[4][MD5_PATH_MAX];
	size_t n = 0;
	if (strlen(base) < MD5_PATH_MAX) memcpy(names[n++], base, strlen(base) + 1);
	for (size_t e = 0; e < 3; e++)
		if (with_ext(base, texture_exts[e], names[n])) n++;
	gsioi_found *r = &c->found;
	char first_refused[sizeof(r->refused)] = "";
	for (size_t i = 0; i < n; i++) {
		GSIO_CHECK(gsioi_find_file(&c->finder, names[i], r, err));
		if (!*first_refused && *r->refused) memcpy(first_refused, r->refused, sizeof(first_refused));
		if (!r->found) continue;
		GSIO_CHECK(load_texture(s, mat, r->path, opts, tried, err));
		if (*tried != MD5_TRIED_NONE) return true;
	}
	if (*tried == MD5_TRIED_NONE) {
		memcpy(r->refused, first_refused, sizeof(first_refused));
		char tail[700];
		gsioi_finder_missing(&c->finder, r, "untextured", tail, sizeof(tail));
		return gsioi_scene_warn(s, err, "shader \"%.200s\": no texture found: \"%.150s\" (or .tga, .png, .jpg) %s",
		                        mat->shader, base, tail);
	}
	return true;
}

// Finds, reads and decodes the texture of one shader. A missing or broken
// texture is a warning; false only when the scene itself fails (memory).
bool gsioi_md5_resolve_texture(gsio_scene *s, md5_candidates *c, gsio_material *mat,
                               const char *shader, const char *path, const gsio_opts *opts,
                               gsio_error *err)
{
	if (!*shader) return true; // no shader: an untextured mesh
	if (!path)
		return gsioi_scene_warn(s, err, "shader \"%.200s\": no file name to look beside", shader);
	char rel[MD5_PATH_MAX];
	int ok = normalise_relative(shader, rel);
	md5_tried tried = MD5_TRIED_NONE;
	if (ok == 1 && strchr(rel, '/'))
		GSIO_CHECK(try_subfolder(s, c, mat, rel, path, opts, &tried, err));
	else if (ok != 1)
		GSIO_CHECK(gsioi_scene_warn(
		    s, err,
		    ok == 0 ? "shader \"%.200s\" is an absolute path or leaves the model's folder: "
		              "refused; only its base name is looked for"
		            : "shader \"%.200s\" is too long: refused",
		    shader));
	if (tried != MD5_TRIED_NONE || ok < 0) return true; // loaded, or refused and said
	const char *base = gsioi_path_base(ok == 1 ? rel : shader);
	if (!*base || !strcmp(base, "..") || !strcmp(base, ".")) return true;
	return try_base_name(s, c, mat, base, path, opts, &tried, err);
}

// The file name without folder and extension, as UTF-8, in the scene's arena.
char *gsioi_md5_stem(gsio_scene *s, const char *path, const char *fallback, gsio_error *err)
{
	if (!path) return gsioi_arena_strdup(s->arena, fallback, err);
	const char *b = gsioi_path_base(path);
	const char *dot = strrchr(b, '.');
	return gsioi_text_utf8_dup(s->arena, b, dot && dot != b ? (size_t)(dot - b) : strlen(b), err);
}

// Adds one animation file's bytes. required: failures are errors
// (anim_paths); otherwise they are warnings and the file is skipped.
static bool load_anim_data(gsio_scene *s, const gsio_md5_mesh *m, const char *file,
                           const uint8_t *data, size_t size, bool required,
                           const gsio_opts *opts, gsio_error *err)
{
	gsio_error sub;
	gsio_error_clear(&sub);
	gsio_md5_anim *a = gsio_md5_anim_decode(data, size, file, opts, &sub);
	bool ok = a != NULL;
	if (ok && gsio_md5_anim_check(m, a, file, &sub)) ok = false;
	if (!ok) {
		gsio_md5_anim_free(a);
		if (required || sub.code == GSIO_ERR_NOMEM) {
			*err = sub;
			return false;
		}
		char text[400];
		gsio_error_format(&sub, text, sizeof(text));
		return gsioi_scene_warn(s, err, "animation skipped: %s", text);
	}
	char *name = gsioi_md5_stem(s, file, "anim", err);
	bool added = name && gsioi_md5_add_anim(s, a, name, err);
	if (added) s->source.frames += a->frames_count; // the mesh's frames are its animations'
	gsio_md5_anim_free(a);
	return added;
}

// Reads and adds one animation file; a file that cannot be read is an error
// when required, else a warning.
static bool load_anim_file(gsio_scene *s, const gsio_md5_mesh *m, const char *file,
                           bool required, const gsio_opts *opts, gsio_error *err)
{
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (gsioi_io_read(opts, file, &data, &size, &sub)) {
		if (required || sub.code == GSIO_ERR_NOMEM) {
			*err = sub;
			return false;
		}
		return gsioi_scene_warn(s, err, "animation %.300s: %.150s", file, sub.message);
	}
	bool ok = load_anim_data(s, m, file, data, size, required, opts, err);
	gsioi_io_free(opts, data);
	return ok;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_anim_ext(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && !strcasecmp(name + n - 8, ".md5anim");
}

// Every *.md5anim in the mesh's folder, sorted by name, listed by the io
// (none when it cannot list). The names are copied into tmp.
static bool load_sibling_anims(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m,
                               const char *path, const gsio_opts *opts, gsio_error *err)
{
	const gsio_io *io = gsioi_io_of(opts);
	if (!io->list_dir) return true;
	size_t dlen = dir_len(path);
	char dir[MD5_PATH_MAX], file[MD5_PATH_MAX];
	if (dlen + 2 > MD5_PATH_MAX) return true;
	memcpy(dir, path, dlen);
	// Without its trailing separator (but "/" stays "/"); "" is the current folder.
	dir[dlen > 1 ? dlen - 1 : dlen] = 0;
	char **list = NULL;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (io->list_dir(io->user, dir, &list, &sub) || !list) {
		if (sub.code == GSIO_ERR_NOMEM) {
			*err = sub;
			return false;
		}
		return gsioi_scene_warn(s, err, "cannot list %.300s for animations: %.150s",
		                        *dir ? dir : ".", sub.message);
	}
	size_t n = 0, total = 0;
	while (list[total]) total++;
	char **names = GSIO_NEW_ARRAY(tmp, char *, total, err);
	bool ok = names != NULL;
	for (size_t i = 0; ok && i < total; i++)
		if (has_anim_ext(list[i])) ok = (names[n++] = gsioi_arena_strdup(tmp, list[i], err));
	if (io->free_list) io->free_list(io->user, list);
	GSIO_CHECK(ok);
	if (n > 1) qsort(names, n, sizeof(*names), cmp_cstr);
	for (size_t i = 0; i < n; i++) {
		if (!join_path(file, path, dlen, names[i])) continue;
		md5_follow fol = check_sibling(s, opts, path, file, "animation", &ok, err);
		GSIO_CHECK(ok);
		if (fol == MD5_FOLLOW) GSIO_CHECK(load_anim_file(s, m, file, false, opts, err));
	}
	return true;
}

bool gsioi_md5_load_anims(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m,
                          const char *path, const gsio_opts *opts, gsio_error *err)
{
	if (opts && opts->anim_paths_count) {
		// Named by the caller: read as given (through the io), failures are errors.
		for (size_t i = 0; i < opts->anim_paths_count; i++)
			GSIO_CHECK(load_anim_file(s, m, opts->anim_paths[i], true, opts, err));
		return true;
	}
	return !path || load_sibling_anims(s, tmp, m, path, opts, err);
}
