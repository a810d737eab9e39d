/* Inputs of the gsio command (gsio_inputs.h). */
#include "gsio_inputs.h"

#include "gsio.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *const gsio_assimp_extensions =
    "gltf glb obj fbx dae 3ds blend ply stl x ms3d lwo lws ac ase md2 md3 smd";

// -- Names

static bool ext_in_list(const char *list, const char *ext)
{
	size_t el = strlen(ext);
	for (const char *e = list; e && *e;) {
		while (*e == ' ') e++;
		size_t n = strcspn(e, " ");
		if (n && n == el && !strncasecmp(e, ext, n)) return true;
		e += n;
	}
	return false;
}

bool gsio_known_extension(const char *path, bool assimp)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) return false;
	const gsio_importer *const *imps = gsio_importers();
	for (size_t i = 0; imps[i]; i++)
		if (ext_in_list(imps[i]->extensions, dot + 1)) return true;
	return assimp && ext_in_list(gsio_assimp_extensions, dot + 1);
}

char *gsio_replace_ext(const char *path, const char *ext)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
	char *p = malloc(keep + strlen(ext) + 1);
	if (!p) return NULL;
	memcpy(p, path, keep);
	strcpy(p + keep, ext);
	return p;
}

char *gsio_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	bool slash = la && a[la - 1] != '/';
	char *p = malloc(la + lb + 2);
	if (!p) return NULL;
	memcpy(p, a, la);
	if (slash) p[la++] = '/';
	memcpy(p + la, b, lb + 1);
	return p;
}

bool gsio_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int gsio_make_parent_dirs(const char *path)
{
	char *p = strdup(path);
	if (!p) return -1;
	char *slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return 0;
	}
	*slash = 0;
	for (char *q = p + 1; *q; q++) {
		if (*q != '/') continue;
		*q = 0;
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = '/';
	}
	int r = p[0] && mkdir(p, 0777) && errno != EEXIST ? -1 : 0;
	free(p);
	return r;
}

// -- The list

static bool push(gsio_inputs *l, char *path, char *rel, bool unreadable)
{
	if (!path) return false;
	if (l->count == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		gsio_input *n = realloc(l->items, cap * sizeof(*n));
		if (!n) {
			free(path);
			free(rel);
			return false;
		}
		l->items = n;
		l->cap = cap;
	}
	l->items[l->count++] = (gsio_input){path, rel, unreadable};
	return true;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcasecmp(s + n - k, suffix);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

// Adds the files below root/rel (sorted).
static bool walk(gsio_inputs *l, const char *root, const char *rel, bool assimp)
{
	char *dir = rel[0] ? gsio_join(root, rel) : strdup(root);
	if (!dir) return false;
	DIR *d = opendir(dir);
	if (!d) return push(l, dir, rel[0] ? strdup(rel) : NULL, true);
	char **names = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	struct dirent *e;
	while (ok && (e = readdir(d))) {
		if (e->d_name[0] == '.') continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				ok = false;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name))) ok = false;
		else n++;
	}
	closedir(d);
	if (n) qsort(names, n, sizeof(*names), cmp_str);
	// An .md5anim beside an .md5mesh is loaded with the mesh.
	bool has_mesh = false;
	for (size_t i = 0; i < n; i++) has_mesh = has_mesh || has_suffix(names[i], ".md5mesh");
	for (size_t i = 0; i < n; i++) {
		if (ok && !(has_mesh && has_suffix(names[i], ".md5anim"))) {
			char *path = gsio_join(dir, names[i]);
			char *sub = rel[0] ? gsio_join(rel, names[i]) : strdup(names[i]);
			struct stat st;
			if (!path || !sub) {
				ok = false;
				free(path);
				free(sub);
			} else if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
				ok = walk(l, root, sub, assimp);
				free(path);
				free(sub);
			} else if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			           gsio_known_extension(path, assimp)) {
				ok = push(l, path, sub, false);
			} else {
				free(path);
				free(sub);
			}
		}
		free(names[i]);
	}
	free(names);
	free(dir);
	return ok;
}

bool gsio_inputs_add_dir(gsio_inputs *l, const char *dir, bool assimp)
{
	return walk(l, dir, "", assimp);
}

bool gsio_inputs_add(gsio_inputs *l, const char *arg, bool assimp)
{
	if (strcmp(arg, "-") && gsio_is_dir(arg)) return walk(l, arg, "", assimp);
	char *p = strdup(arg);
	return p && push(l, p, NULL, false);
}

void gsio_inputs_free(gsio_inputs *l)
{
	for (size_t i = 0; i < l->count; i++) {
		free(l->items[i].path);
		free(l->items[i].rel);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

bool gsio_output_taken(const char *path, gsio_error *err)
{
	struct stat st;
	if (lstat(path, &st) != 0) return false;
	gsio_error_clear(err);
	err->code = GSIO_ERR_IO;
	snprintf(err->file, sizeof(err->file), "%s", path);
	snprintf(err->message, sizeof(err->message), "exists (not replaced); use --force to replace it");
	return true;
}
