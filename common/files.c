/* Finding the files a model or a level names: the one rule of
 * gsioi_files.h, for external textures and a level's files alike. */
#include "gsioi_files.h"
#include "gsioi_os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gsioi_folder {
	char *dir;     /**< as given, without a trailing '/' ("/" stays; "" the current one) */
	char *real;    /**< the folder resolved (malloc'd), NULL when it does not resolve */
	bool resolved; /**< real was asked for */
	char **names;  /**< the io's listing, NULL when it cannot list */
	bool listed;
	gsioi_names index; /**< folded name -> its index in names */
};

void gsioi_finder_init(gsioi_finder *f, gsio_arena *arena, const gsio_opts *opts)
{
	memset(f, 0, sizeof(*f));
	f->arena = arena;
	f->opts = opts;
}

bool gsioi_finder_add(gsioi_finder *f, const char *dir, gsio_error *err)
{
	size_t n = strlen(dir);
	while (n > 1 && gsioi_is_sep(dir[n - 1])) n--;
	for (size_t i = 0; i < f->count; i++) // a folder named twice is looked in once
		if (!strncmp(f->folders[i].dir, dir, n) && !f->folders[i].dir[n]) return true;
	gsioi_folder *nf = gsioi_arena_regrow(f->arena, f->folders, f->count, f->count + 1,
	                                      sizeof(gsioi_folder), err);
	GSIO_CHECK(nf);
	gsioi_folder *fo = &nf[f->count];
	memset(fo, 0, sizeof(*fo));
	GSIO_CHECK((fo->dir = gsioi_arena_strndup(f->arena, dir, n, err)));
	f->folders = nf;
	f->count++;
	return true;
}

bool gsioi_finder_add_defaults(gsioi_finder *f, const char *named_by, const char *first_is,
                               gsio_error *err)
{
	size_t dir = named_by ? (size_t)(gsioi_path_base(named_by) - named_by) : 0;
	char *d = gsioi_arena_strndup(f->arena, named_by ? named_by : "", dir, err);
	GSIO_CHECK(d && gsioi_finder_add(f, d, err));
	f->first_is = first_is;
	const gsio_opts *o = f->opts;
	for (size_t i = 0; o && i < o->search_paths_count; i++)
		if (o->search_paths[i]) GSIO_CHECK(gsioi_finder_add(f, o->search_paths[i], err));
	return true;
}

const char *gsioi_finder_dir(const gsioi_finder *f, size_t i)
{
	return f->folders[i].dir;
}

void gsioi_finder_free(gsioi_finder *f)
{
	const gsio_io *io = gsioi_io_of(f->opts);
	for (size_t i = 0; i < f->count; i++) {
		gsioi_folder *fo = &f->folders[i];
		if (fo->names && io->free_list) io->free_list(io->user, fo->names);
		free(fo->real);
		fo->names = NULL;
		fo->real = NULL;
	}
	f->count = 0;
}

// -- One folder

// dir + '/' + name into out; false when it does not fit.
static bool join(const char *dir, const char *name, char *out, size_t size)
{
	size_t dl = strlen(dir);
	const char *sep = dl && !gsioi_is_sep(dir[dl - 1]) ? "/" : "";
	int n = snprintf(out, size, "%s%s%s", dir, sep, name);
	return n >= 0 && (size_t)n < size;
}

static void refuse(gsioi_found *r, const char *path, const char *why)
{
	if (!r->refused[0]) snprintf(r->refused, sizeof(r->refused), "%.200s %.160s", path, why);
}

typedef enum verdict { V_OK, V_MISSING, V_REFUSED } verdict;

// Whether the file at path may be read, asked of the file system before
// anything is opened: it must resolve (symbolic links, "..") inside the
// folder and be a regular file. A path the file system does not know is
// missing, or, with `unknown_ok` (a name a custom io listed or is given),
// left to the io, which decides for itself what its paths mean.
static verdict check(gsioi_folder *fo, const char *path, bool unknown_ok, gsioi_found *r)
{
	gsioi_file_info st;
	if (!gsioi_stat(path, false, &st)) return unknown_ok ? V_OK : V_MISSING;
	// Resolved into malloc'd strings rather than PATH_MAX arrays on the
	// stack under every look-up. A link that leads nowhere is missing.
	char *rp = gsioi_realpath(path);
	if (!rp) return V_MISSING;
	if (!fo->resolved) {
		fo->real = gsioi_realpath(*fo->dir ? fo->dir : ".");
		fo->resolved = true;
	}
	bool inside = gsioi_resolved_inside(fo->real, rp);
	bool regular = inside && gsioi_stat(rp, true, &st) && st.kind == GSIOI_KIND_FILE;
	free(rp);
	if (!inside) {
		char why[160];
		snprintf(why, sizeof(why), "leads outside %.140s", *fo->dir ? fo->dir : ".");
		refuse(r, path, why);
		return V_REFUSED;
	}
	if (!regular) {
		refuse(r, path, "is not a regular file");
		return V_REFUSED;
	}
	return V_OK;
}

// Lists the folder once and indexes its names as compared (UTF-8, folded);
// of two names that compare alike the smaller (strcmp) is the one found.
// A folder that cannot be listed has no names.
static bool index_folder(gsioi_finder *f, gsioi_folder *fo, gsio_error *err)
{
	fo->listed = true;
	const gsio_io *io = gsioi_io_of(f->opts);
	if (!io->list_dir) return true;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (io->list_dir(io->user, *fo->dir ? fo->dir : ".", &fo->names, &sub) || !fo->names) {
		fo->names = NULL;
		return true;
	}
	gsioi_names_init(&fo->index, f->arena, false);
	for (size_t i = 0; fo->names[i] && i < UINT32_MAX; i++) {
		char *key = gsioi_text_utf8_dup(f->arena, fo->names[i], strlen(fo->names[i]), err);
		GSIO_CHECK(key);
		gsioi_text_fold(key);
		int64_t at = gsioi_names_find(&fo->index, key);
		if (at < 0)
			GSIO_CHECK(gsioi_names_add(&fo->index, key, (uint32_t)i, err));
		else if (strcmp(fo->names[i], fo->names[at]) < 0)
			GSIO_CHECK(gsioi_names_set(&fo->index, key, (uint32_t)i, err));
	}
	return true;
}

// Looks the name up in one folder: its exact spellings (raw, UTF-8) by a
// look at the file system each, then the folder's listing (a model naming
// one texture lists nothing). A custom io that cannot list gets the exact
// name, which it reads or not.
static bool find_in(gsioi_finder *f, gsioi_folder *fo, const char *base, const char *utf8,
                    const char *folded, gsioi_found *r, gsio_error *err)
{
	bool real_files = gsioi_io_is_default(f->opts);
	const char *spelling[2] = {base, strcmp(utf8, base) ? utf8 : NULL};
	for (int k = 0; k < 2; k++)
		if (spelling[k] && join(fo->dir, spelling[k], r->path, sizeof(r->path)) &&
		    check(fo, r->path, false, r) == V_OK)
			return r->found = true;
	if (!fo->listed) GSIO_CHECK(index_folder(f, fo, err));
	const char *name = NULL;
	if (fo->names) {
		int64_t at = gsioi_names_find(&fo->index, folded);
		if (at >= 0) name = fo->names[at];
	} else if (!real_files) {
		name = base;
	}
	if (name && join(fo->dir, name, r->path, sizeof(r->path)) &&
	    check(fo, r->path, !real_files, r) == V_OK)
		r->found = true;
	return true;
}

bool gsioi_find_file(gsioi_finder *f, const char *stored, gsioi_found *r, gsio_error *err)
{
	r->found = false;
	r->path[0] = r->refused[0] = 0;
	const char *base = gsioi_path_base(stored);
	if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) return true;
	size_t n = strlen(base);
	char *utf8 = gsioi_text_utf8_dup(f->arena, base, n, err);
	char *folded = utf8 ? gsioi_arena_strdup(f->arena, utf8, err) : NULL;
	GSIO_CHECK(folded);
	gsioi_text_fold(folded);
	for (size_t i = 0; i < f->count && !r->found; i++)
		GSIO_CHECK(find_in(f, &f->folders[i], base, utf8, folded, r, err));
	if (!r->found) r->path[0] = 0;
	return true;
}

// -- Messages

void gsioi_finder_missing(const gsioi_finder *f, const gsioi_found *r, const char *consequence,
                          char *buf, size_t size)
{
	// The folders as given, the list cut after about 300 bytes.
	char where[400] = "";
	size_t o = 0, shown = 0;
	for (; shown < f->count && o < 300; shown++) {
		const char *d = *f->folders[shown].dir ? f->folders[shown].dir : ".";
		const char *sep = !shown ? "" : shown + 1 == f->count ? " or " : ", ";
		bool label = !shown && f->first_is;
		int k = snprintf(where + o, sizeof(where) - o, "%s%.200s%s%s%s", sep, d, label ? " (" : "",
		                 label ? f->first_is : "", label ? ")" : "");
		if (k < 0 || (size_t)k >= sizeof(where) - o) break;
		o += (size_t)k;
	}
	if (shown < f->count)
		snprintf(where + o, sizeof(where) - o, " and %zu more folders", f->count - shown);
	snprintf(buf, size, "not found in %s%s%s: %s; --path DIR adds a folder to look in", where,
	         r->refused[0] ? "; " : "", r->refused, consequence);
}
