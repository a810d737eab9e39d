/* MD5 sibling files: the texture of each shader and the .md5anim files of a
 * mesh, found beside the model and read through the options' io. */
#include "md5_internal.h"

#include "gsio_image_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#ifndef _WIN32
#include <dirent.h>
#endif

// -- Scene: sibling files

// Reads a sibling through opts->io, else stdio. 0 on success. The caller
// frees with free_sibling().
static int read_sibling(const gsio_opts *opts, const char *path, uint8_t **data, size_t *size,
                        gsio_error *err)
{
	if (opts && opts->io && opts->io->read_file)
		return opts->io->read_file(opts->io->user, path, data, size, err);
	return gsio_read_whole_file(path, data, size, opts ? opts->memory_limit : 0, err);
}

static void free_sibling(const gsio_opts *opts, uint8_t *data)
{
	if (!data) return;
	if (opts && opts->io && opts->io->read_file) {
		if (opts->io->free_data) opts->io->free_data(opts->io->user, data);
	} else {
		free(data);
	}
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

typedef struct md5_candidates {
	char paths[12][MD5_PATH_MAX];
	size_t count;
} md5_candidates;

// rel, then rel with each texture extension instead of (or added to) its own.
static void add_candidates(md5_candidates *c, const char *path, size_t dlen, const char *rel)
{
	static const char *const exts[] = {".tga", ".png", ".jpg"};
	if (!*rel) return;
	const char *base = gsioi_path_base(rel);
	const char *dot = strrchr(base, '.');
	size_t stem = dot && dot != base ? (size_t)(dot - rel) : strlen(rel);
	if (c->count < 12 && join_path(c->paths[c->count], path, dlen, rel)) c->count++;
	for (size_t e = 0; e < 3; e++) {
		if (dot && dot != base && !strcasecmp(dot, exts[e])) continue;
		char buf[MD5_PATH_MAX];
		if (stem + 5 > MD5_PATH_MAX) return;
		memcpy(buf, rel, stem);
		memcpy(buf + stem, exts[e], 5);
		if (c->count < 12 && join_path(c->paths[c->count], path, dlen, buf)) c->count++;
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

// Finds, reads and decodes the texture of one shader. A missing or broken
// texture is a warning; false only when the scene itself fails (memory).
bool gsioi_md5_resolve_texture(gsio_scene *s, gsio_material *mat, const char *shader,
                            const char *path, const gsio_opts *opts, gsio_error *err)
{
	if (!*shader) return true; // no shader: an untextured mesh
	if (!path)
		return gsioi_scene_warn(s, err, "shader \"%.200s\": no file name to look beside", shader);
	size_t dlen = dir_len(path);
	md5_candidates *c = gsioi_arena_alloc(s->arena, sizeof(*c), err);
	GSIO_CHECK(c);
	char rel[MD5_PATH_MAX];
	int ok = normalise_relative(shader, rel);
	if (ok == 1) {
		add_candidates(c, path, dlen, rel);
		if (strchr(rel, '/')) add_candidates(c, path, dlen, gsioi_path_base(rel));
	} else {
		GSIO_CHECK(gsioi_scene_warn(
		    s, err,
		    ok == 0 ? "shader \"%.200s\" is an absolute path or leaves the model's folder: "
		              "refused; only its base name is looked for beside the model"
		            : "shader \"%.200s\" is too long: refused",
		    shader));
		if (ok == 0) {
			char tmp[MD5_PATH_MAX];
			snprintf(tmp, sizeof(tmp), "%s", gsioi_path_base(shader));
			const char *b = tmp;
			if (strcmp(b, "..") && strcmp(b, ".")) add_candidates(c, path, dlen, b);
		}
	}
	for (size_t i = 0; i < c->count; i++) {
		int32_t known = find_image(s, c->paths[i]);
		if (known >= 0) {
			mat->base_color_image = known;
			return true;
		}
		uint8_t *data = NULL;
		size_t size = 0;
		gsio_error sub;
		gsio_error_clear(&sub);
		if (read_sibling(opts, c->paths[i], &data, &size, &sub)) continue;
		gsio_image im = {0};
		gsio_error_clear(&sub);
		bool decoded = gsioi_image_file_decode(data, size, c->paths[i], s->arena, &im, &sub);
		free_sibling(opts, data);
		if (!decoded) {
			if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
				GSIO_FAIL(err, sub.code, c->paths[i], -1, "%s", sub.message);
				return false;
			}
			return gsioi_scene_warn(s, err, "texture %.300s: %.150s: no image", c->paths[i],
			                       sub.message);
		}
		gsio_image *imgs = GSIO_NEW_ARRAY(s->arena, gsio_image, s->images_count + 1, err);
		GSIO_CHECK(imgs);
		if (s->images_count) memcpy(imgs, s->images, s->images_count * sizeof(*imgs));
		im.source_type = -1;
		im.source_format = GSIO_PIXEL_RGBA8888;
		GSIO_CHECK((im.source_path = gsioi_arena_strdup(s->arena, c->paths[i], err)));
		GSIO_CHECK((im.name = gsioi_arena_strdup(s->arena, gsioi_path_base(c->paths[i]), err)));
		imgs[s->images_count] = im;
		mat->base_color_image = (int32_t)s->images_count;
		s->images = imgs;
		s->images_count++;
		return true;
	}
	if (ok != 1 && c->count == 0) return true; // refused, nothing left to try (warned)
	return gsioi_scene_warn(s, err, "shader \"%.200s\": no texture found (tried %zu names from %.200s)",
	                       shader, c->count, c->count ? c->paths[0] : "nothing");
}

// The file name without folder and extension, in the scene's arena.
char *gsioi_md5_stem(gsio_scene *s, const char *path, const char *fallback, gsio_error *err)
{
	if (!path) return gsioi_arena_strdup(s->arena, fallback, err);
	const char *b = gsioi_path_base(path);
	const char *dot = strrchr(b, '.');
	return gsioi_arena_strndup(s->arena, b, dot && dot != b ? (size_t)(dot - b) : strlen(b), err);
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
	gsio_md5_anim_free(a);
	return added;
}

// Reads and adds one animation file; a file that cannot be read is an error
// when required, else a warning (silent_missing: not even that).
static bool load_anim_file(gsio_scene *s, const gsio_md5_mesh *m, const char *file,
                           bool required, bool silent_missing, const gsio_opts *opts,
                           gsio_error *err)
{
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (read_sibling(opts, file, &data, &size, &sub)) {
		if (required) {
			*err = sub;
			return false;
		}
		if (silent_missing) return true;
		return gsioi_scene_warn(s, err, "animation %.300s: %.150s", file, sub.message);
	}
	bool ok = load_anim_data(s, m, file, data, size, required, opts, err);
	free_sibling(opts, data);
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

// Every *.md5anim in the mesh's folder, sorted (stdio only: gsio_io cannot
// list a folder, so with a custom io only the mesh's own name is tried).
static bool load_sibling_anims(gsio_scene *s, const gsio_md5_mesh *m, const char *path,
                               const gsio_opts *opts, gsio_error *err)
{
	size_t dlen = dir_len(path);
	char file[MD5_PATH_MAX];
	bool custom_io = opts && opts->io && opts->io->read_file;
#ifndef _WIN32
	if (!custom_io) {
		char dir[MD5_PATH_MAX];
		if (dlen + 2 > MD5_PATH_MAX) return true;
		if (dlen) {
			memcpy(dir, path, dlen);
			dir[dlen] = 0;
		} else {
			memcpy(dir, ".", 2);
		}
		DIR *d = opendir(dir);
		if (!d) return gsioi_scene_warn(s, err, "cannot list %.300s for animations", dir);
		char **names = NULL;
		size_t n = 0, cap = 0;
		bool ok = true;
		struct dirent *e;
		while (ok && (e = readdir(d))) {
			if (!has_anim_ext(e->d_name)) continue;
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 8;
				char **nn = realloc(names, ncap * sizeof(*nn));
				if (!nn) {
					ok = false;
					break;
				}
				names = nn;
				cap = ncap;
			}
			if (!(names[n] = malloc(strlen(e->d_name) + 1))) {
				ok = false;
				break;
			}
			strcpy(names[n++], e->d_name);
		}
		closedir(d);
		if (!ok) GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory listing animations");
		if (ok && n > 1) qsort(names, n, sizeof(*names), cmp_cstr);
		for (size_t i = 0; ok && i < n; i++)
			if (join_path(file, path, dlen, names[i]))
				ok = load_anim_file(s, m, file, false, false, opts, err);
		for (size_t i = 0; i < n; i++) free(names[i]);
		free(names);
		return ok;
	}
#endif
	// Only "<mesh base name>.md5anim"; absent is not worth a warning.
	const char *b = gsioi_path_base(path);
	const char *dot = strrchr(b, '.');
	size_t stem = dot && dot != b ? (size_t)(dot - path) : strlen(path);
	if (stem + 9 > MD5_PATH_MAX) return true;
	memcpy(file, path, stem);
	memcpy(file + stem, ".md5anim", 9);
	return load_anim_file(s, m, file, false, true, opts, err);
}


bool gsioi_md5_load_anims(gsio_scene *s, const gsio_md5_mesh *m, const char *path,
                          const gsio_opts *opts, gsio_error *err)
{
	if (opts && opts->anim_paths_count) {
		for (size_t i = 0; i < opts->anim_paths_count; i++)
			GSIO_CHECK(load_anim_file(s, m, opts->anim_paths[i], true, false, opts, err));
		return true;
	}
	return !path || load_sibling_anims(s, m, path, opts, err);
}
