/* Inputs of the gsio command (gsio_inputs.h). */
#include "gsio_inputs.h"

#include "gsio.h"
#include "gsioi_os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	const char *base = gsioi_path_last_sep(path);
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
	const char *base = gsioi_path_last_sep(path);
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
	bool slash = la && !gsioi_is_sep(a[la - 1]);
	char *p = malloc(la + lb + 2);
	if (!p) return NULL;
	memcpy(p, a, la);
	if (slash) p[la++] = '/';
	memcpy(p + la, b, lb + 1);
	return p;
}

bool gsio_is_dir(const char *path)
{
	gsioi_file_info st;
	return gsioi_stat(path, true, &st) && st.kind == GSIOI_KIND_DIR;
}

int gsio_make_parent_dirs(const char *path)
{
	char *p = strdup(path);
	if (!p) return -1;
	char *slash = NULL;
	for (char *q = p; *q; q++)
		if (gsioi_is_sep(*q)) slash = q;
	if (!slash) {
		free(p);
		return 0;
	}
	*slash = 0;
	size_t root = gsioi_path_root(p);
	for (char *q = p + (root ? root : 1); *q; q++) {
		if (!gsioi_is_sep(*q)) continue;
		char sep = *q;
		*q = 0;
		if (gsioi_mkdir(p) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = sep;
	}
	int r = p[0] && gsioi_mkdir(p) && errno != EEXIST ? -1 : 0;
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

// Whether names[0..n) hold `name` (a .wmb) with .wmp for its extension:
// its source level, whose output would be the same file.
static bool has_source_level(char *const *names, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (!has_suffix(name, ".wmb")) return false;
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == k && !strncasecmp(names[i], name, k - 4) && has_suffix(names[i], ".wmp"))
			return true;
	return false;
}

// Adds the files below root/rel (sorted).
static bool walk(gsio_inputs *l, const char *root, const char *rel, bool assimp)
{
	char *dir = rel[0] ? gsio_join(root, rel) : strdup(root);
	if (!dir) return false;
	gsioi_dir *d = gsioi_dir_open(dir);
	if (!d) return push(l, dir, rel[0] ? strdup(rel) : NULL, true);
	char **names = NULL;
	size_t n = 0, cap = 0;
	bool ok = true;
	const char *e;
	while (ok && (e = gsioi_dir_next(d, NULL))) {
		if (e[0] == '.') continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				ok = false;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(e))) ok = false;
		else n++;
	}
	gsioi_dir_close(d);
	if (n) qsort(names, n, sizeof(*names), cmp_str);
	// An .md5anim beside an .md5mesh is loaded with the mesh; a compiled
	// level (.wmb) beside the .wmp it was compiled from is left to it (the
	// two would write the same output; the source names its WADs).
	bool has_mesh = false;
	for (size_t i = 0; i < n; i++) has_mesh = has_mesh || has_suffix(names[i], ".md5mesh");
	for (size_t i = 0; i < n; i++) {
		if (ok && !(has_mesh && has_suffix(names[i], ".md5anim")) && !has_source_level(names, n, names[i])) {
			char *path = gsio_join(dir, names[i]);
			char *sub = rel[0] ? gsio_join(rel, names[i]) : strdup(names[i]);
			gsioi_file_info st;
			if (!path || !sub) {
				ok = false;
				free(path);
				free(sub);
			} else if (gsioi_stat(path, false, &st) && st.kind == GSIOI_KIND_DIR) {
				ok = walk(l, root, sub, assimp);
				free(path);
				free(sub);
			} else if (gsioi_stat(path, true, &st) && st.kind == GSIOI_KIND_FILE &&
			           gsio_known_extension(path, assimp)) {
				ok = push(l, path, sub, false);
			} else {
				free(path);
				free(sub);
			}
		}
	}
	for (size_t i = 0; i < n; i++) free(names[i]); // has_source_level reads them all
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

// -- Lists (--files-from)

// The whole of f, NUL-terminated, into *text; its length into *len.
static int read_all(FILE *f, char **text, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *t = malloc(cap);
	while (t) {
		n += fread(t + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f)) break;
		char *more = realloc(t, cap * 2);
		if (!more) free(t);
		t = more;
		cap *= 2;
	}
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	if (ferror(f)) {
		free(t);
		errno = EIO;
		return -1;
	}
	t[n] = 0;
	*text = t;
	*len = n;
	return 0;
}

// Cuts text into its entries (see gsio_list_read).
static int split_list(gsio_list *l, size_t len, bool nul)
{
	char sep = nul ? '\0' : '\n';
	size_t most = 1;
	for (size_t i = 0; i < len; i++) most += l->text[i] == sep;
	if (!(l->items = malloc(most * sizeof(*l->items)))) return -1;
	for (size_t start = 0, i = 0; i <= len; i++) {
		if (i < len && l->text[i] != sep) continue;
		size_t end = i;
		// A list written on Windows: "name\r\n".
		if (!nul && end > start && l->text[end - 1] == '\r') end--;
		l->text[end] = 0;
		if (end > start) l->items[l->count++] = l->text + start;
		start = i + 1;
	}
	return 0;
}

int gsio_list_read(const char *path, bool nul, gsio_list *l)
{
	memset(l, 0, sizeof(*l));
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : gsioi_fopen(path, "rb");
	if (!f) return -1;
	size_t len = 0;
	int rc = read_all(f, &l->text, &len);
	if (!is_stdin) fclose(f);
	if (!rc && (rc = split_list(l, len, nul))) errno = ENOMEM;
	if (rc) gsio_list_free(l);
	return rc;
}

void gsio_list_free(gsio_list *l)
{
	free(l->items);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

// -- Paths below a folder

// path made absolute (the current folder before a relative one), "." and
// empty components dropped and ".." taking away the one before it: "/" or
// "/a/b". malloc'd; NULL when out of memory or the current folder is gone.
static char *absolute_by_name(const char *path)
{
	char *cwd = gsioi_path_root(path) ? NULL : gsioi_getcwd();
	char *full = gsioi_path_root(path) ? strdup(path) : cwd ? gsio_join(cwd, path) : NULL;
	free(cwd);
	char *out = full ? malloc(strlen(full) + 2) : NULL;
	// The root without its last separator ("" for "/", "C:" for "C:\\",
	// "//server/share"), then the parts, each after a '/'.
	size_t prefix = full ? gsioi_path_root(full) : 0, n = 0;
	if (prefix && gsioi_is_sep(full[prefix - 1])) prefix--;
	for (; out && n < prefix; n++) out[n] = gsioi_is_sep(full[n]) ? '/' : full[n];
	for (char *c = full ? full + prefix : NULL, *next; out && c; c = next) {
		next = c;
		while (*next && !gsioi_is_sep(*next)) next++;
		size_t len = (size_t)(next - c);
		next = *next ? next + 1 : NULL;
		if (!len || (len == 1 && c[0] == '.')) continue;
		if (len == 2 && c[0] == '.' && c[1] == '.') {
			while (n > prefix && out[--n] != '/') {}
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, c, len);
		n += len;
	}
	if (out) {
		if (n == prefix) out[n++] = '/';
		out[n] = 0;
	}
	free(full);
	return out;
}

char *gsio_path_below(const char *base, const char *path, bool *outside)
{
	*outside = false;
	char *b = absolute_by_name(base), *p = absolute_by_name(path), *rel = NULL;
	if (b && p) {
		size_t n = strcmp(b, "/") ? strlen(b) : 0;
		if (!strncmp(p, b, n) && (p[n] == '/' || !p[n]))
			rel = strdup(p[n] ? p + n + 1 : "");
		else
			*outside = true;
	}
	free(b);
	free(p);
	return rel;
}

bool gsio_output_taken(const char *path, gsio_error *err)
{
	gsioi_file_info st;
	if (!gsioi_stat(path, false, &st)) return false;
	gsio_error_clear(err);
	err->code = GSIO_ERR_IO;
	snprintf(err->file, sizeof(err->file), "%s", path);
	snprintf(err->message, sizeof(err->message), "exists (not replaced); use --force to replace it");
	return true;
}
