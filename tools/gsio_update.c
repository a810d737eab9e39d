/* Whether an output is current (gsio_update.h). */
#include "gsio_update.h"

#include "gsio.h"
#include "gsio_wmp.h"
#include "gsioi_os.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

// -- Times

static bool mtime_of(const char *path, struct timespec *t)
{
	gsioi_file_info st;
	if (!gsioi_stat(path, true, &st)) return false;
	t->tv_sec = (time_t)st.mtime_sec;
	t->tv_nsec = st.mtime_nsec;
	return true;
}

static bool later(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

// Whether the file at path exists and was changed after `than`.
static bool changed_after(const char *path, struct timespec than)
{
	struct timespec t;
	return mtime_of(path, &t) && later(t, than);
}

// -- Folders

static bool has_ext(const char *name, const char *ext)
{
	size_t n = strlen(name), k = strlen(ext);
	return n > k && !strcasecmp(name + n - k, ext);
}

// The folder part of path ("." for none), malloc'd.
static char *folder_of(const char *path)
{
	const char *slash = NULL;
	for (const char *c = path; *c; c++)
		if (gsioi_is_sep(*c)) slash = c;
	if (!slash) return strdup(".");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, path, n);
		d[n] = 0;
	}
	return d;
}

// Whether an entry of folder dir that `match` accepts was changed after
// `than`. *matched says whether any entry matched (NULL: not asked). A
// folder that cannot be listed has none.
static bool entry_changed(const char *dir, bool (*match)(const char *, const void *),
                          const void *arg, struct timespec than, bool *matched)
{
	gsioi_dir *d = gsioi_dir_open(dir);
	if (!d) return false;
	bool changed = false;
	const char *e;
	char path[4096];
	while (!changed && (e = gsioi_dir_next(d, NULL))) {
		if (!match(e, arg)) continue;
		if (matched) *matched = true;
		int n = snprintf(path, sizeof(path), "%s/%s", dir, e);
		changed = n > 0 && (size_t)n < sizeof(path) && changed_after(path, than);
	}
	gsioi_dir_close(d);
	return changed;
}

static bool is_md5anim(const char *name, const void *arg)
{
	(void)arg;
	return has_ext(name, ".md5anim");
}

// -- Levels

static bool same_name(const char *name, const void *base)
{
	return !strcasecmp(name, base);
}

// The base name of a name stored in a level (either separator); NULL when
// it has none, as the load takes it.
static const char *stored_base(const char *stored)
{
	if (!stored) return NULL;
	const char *b = stored;
	for (const char *p = stored; *p; p++)
		if (*p == '/' || *p == '\\') b = p + 1;
	return *b && strcmp(b, ".") && strcmp(b, "..") ? b : NULL;
}

// Whether the file a level names as `stored` was changed after `than`: the
// level's load takes it from the first folder that has the name (any case).
// Several names differing in case only are all compared.
static bool named_changed(const char *level_dir, const gsio_update_deps *d, const char *stored,
                          struct timespec than)
{
	const char *base = stored_base(stored);
	if (!base) return false;
	for (size_t i = 0; i <= d->folders_count; i++) {
		const char *dir = i ? d->folders[i - 1] : level_dir;
		bool matched = false;
		if (entry_changed(dir, same_name, base, than, &matched)) return true;
		if (matched) return false;
	}
	return false;
}

// Whether a WAD or an entity file (model, sprite) the level at path names
// was changed after `than`. A level that cannot be read or decoded is not
// current: its conversion says what is wrong with it.
static bool level_files_changed(const char *path, const gsio_update_deps *d, struct timespec than)
{
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error err;
	if (gsio_read_whole_file(path, &data, &size, 0, &err)) return true;
	gsio_wmp_file *f = gsio_wmp_decode(data, size, path, NULL, &err);
	free(data);
	char *dir = folder_of(path);
	bool changed = !f || !dir;
	for (size_t i = 0; !changed && i < f->wads_count; i++)
		changed = named_changed(dir, d, f->wads[i].path.s, than);
	for (size_t i = 0; !changed && i < f->entities_count; i++)
		changed = named_changed(dir, d, f->entities[i].file.s, than);
	free(dir);
	gsio_wmp_file_free(f);
	return changed;
}

// -- The rule

bool gsio_output_current(const char *input, const char *output, const gsio_update_deps *d)
{
	struct timespec out, in;
	// An input that is gone is not current: its conversion says so.
	if (!mtime_of(output, &out) || !mtime_of(input, &in) || later(in, out)) return false;
	if ((d->palette && changed_after(d->palette, out)) || (d->extra && changed_after(d->extra, out)))
		return false;
	for (size_t i = 0; i < d->anims_count; i++)
		if (changed_after(d->anims[i], out)) return false;
	if (has_ext(input, ".wmp")) return !level_files_changed(input, d, out);
	if (!d->anims_count && has_ext(input, ".md5mesh")) {
		char *dir = folder_of(input);
		bool changed = !dir || entry_changed(dir, is_md5anim, NULL, out, NULL);
		free(dir);
		return !changed;
	}
	return true;
}
