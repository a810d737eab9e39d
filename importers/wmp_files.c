/* Finding the files a level names (WADs, models, other entity files,
 * sprites, sounds, the script, the palette), for the level -> scene
 * conversion (wmp_scene.c).
 *
 * - Files: only base names of stored paths are used, looked up
 *   case-insensitively beside the level and then in opts->search_paths;
 *   nothing outside those folders is opened.
 * - Every file looked for is recorded in the scene's extras, found or not
 *   (gsio info lists them). */
#include "wmp_internal.h"

#include <stdio.h>
#include <strings.h>

// -- Finding files

bool gsioi_wmp_add_folder(wmp_sctx *c, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/') n--;
	char *d = gsioi_arena_strndup(c->tmp, dir, n, c->err);
	GSIO_CHECK(d);
	wmp_folder *nf = GSIO_NEW_ARRAY(c->tmp, wmp_folder, c->folders_count + 1, c->err);
	GSIO_CHECK(nf);
	if (c->folders_count) memcpy(nf, c->folders, c->folders_count * sizeof(wmp_folder));
	nf[c->folders_count].dir = d;
	c->folders = nf;
	c->folders_count++;
	return true;
}

void gsioi_wmp_free_folders(wmp_sctx *c)
{
	const gsio_io *io = gsioi_io_of(c->opts);
	for (size_t i = 0; i < c->folders_count; i++)
		if (c->folders[i].names && io->free_list) io->free_list(io->user, c->folders[i].names);
}

/* The stored name's base name (either separator), or NULL when it has none
 * or is "." / "..". */
const char *gsioi_wmp_base_of(const char *stored)
{
	const char *b = gsioi_path_base(stored);
	if (!*b || !strcmp(b, ".") || !strcmp(b, "..")) return NULL;
	return b;
}

static bool find_file_in(wmp_sctx *c, const char *stored, char *out, size_t out_size, bool *found);

/* Finds a file by base name (see find_file_in) and records the reference
 * in the scene's extras for `gsio info`: "wmp:file:KIND:NAME" = the path
 * found, or "" when not found (KIND: wad, model, sprite, sound, script,
 * palette; NAME: the base name as stored). */
bool gsioi_wmp_find_file(wmp_sctx *c, const char *kind, const char *stored, char *out,
                         size_t out_size, bool *found)
{
	GSIO_CHECK(find_file_in(c, stored, out, out_size, found));
	const char *base = gsioi_wmp_base_of(stored);
	if (!base) return true;
	char key[300], val[1024];
	snprintf(key, sizeof(key), "wmp:file:%s:%s", kind, base);
	gsioi_text_sanitize(key);
	snprintf(val, sizeof(val), "%s", *found ? out : "");
	gsioi_text_sanitize(val);
	return gsio_extras_set_string(c->s, &c->s->extras, key, val, c->err) == 0;
}

/* Finds a file by base name, case-insensitively, beside the level and in
 * the search folders; writes the path into out. False (no error) when not
 * found; an error only for out-of-memory. */
static bool find_file_in(wmp_sctx *c, const char *stored, char *out, size_t out_size, bool *found)
{
	*found = false;
	const char *base = gsioi_wmp_base_of(stored);
	if (!base) return true;
	const gsio_io *io = gsioi_io_of(c->opts);
	for (size_t i = 0; i < c->folders_count && !*found; i++) {
		wmp_folder *fo = &c->folders[i];
		if (!fo->listed && io->list_dir) {
			gsio_error sub;
			gsio_error_clear(&sub);
			if (io->list_dir(io->user, fo->dir[0] ? fo->dir : ".", &fo->names, &sub))
				fo->names = NULL;
			fo->listed = true;
		}
		const char *name = NULL;
		if (fo->names) {
			for (char **p = fo->names; *p && !name; p++)
				if (!strcasecmp(*p, base)) name = *p;
			if (!name) continue;
		} else {
			name = base; // the io cannot list: the exact name only
		}
		int n = snprintf(out, out_size, "%s%s%s", fo->dir, fo->dir[0] ? "/" : "", name);
		if (n < 0 || (size_t)n >= out_size) continue;
		// Real files: the file must really lie inside the folder (a link to
		// elsewhere is not followed).
		if (gsioi_io_is_default(c->opts) && gsioi_path_inside(fo->dir, out) != 1) continue;
		*found = true;
	}
	return true;
}
