/* Finding the files a level names (WADs, models, other entity files,
 * sprites, sounds, the script, the palette), for the level -> scene
 * conversion (wmp_scene.c).
 *
 * - Files: the rule of common/gsioi_files.h (base names, beside the level
 *   and then in opts->search_paths, case-insensitively, CP1252 or UTF-8;
 *   nothing outside those folders is opened), one finder for the level, so
 *   each folder is listed once.
 * - Every file looked for is recorded in the scene's extras, found or not
 *   (gsio info lists them). */
#include "wmp_internal.h"

#include <stdio.h>

const char *gsioi_wmp_base_of(const char *stored)
{
	const char *b = gsioi_path_base(stored);
	if (!*b || !strcmp(b, ".") || !strcmp(b, "..")) return NULL;
	return b;
}

/* Finds a file (gsioi_find_file) and records the reference in the scene's
 * extras for `gsio info`: "wmp:file:KIND:NAME" = the path found, or ""
 * when not found (KIND: wad, model, sprite, sound, script, palette; NAME:
 * the base name as stored, as UTF-8). */
bool gsioi_wmp_find_file(wmp_sctx *c, const char *kind, const char *stored, gsioi_found *r)
{
	GSIO_CHECK(gsioi_find_file(&c->finder, stored, r, c->err));
	const char *base = gsioi_wmp_base_of(stored);
	if (!base) return true;
	char name[256], key[300], val[GSIOI_FOUND_PATH_MAX];
	gsioi_text_utf8(name, sizeof(name), base, strlen(base));
	snprintf(key, sizeof(key), "wmp:file:%s:%s", kind, name);
	snprintf(val, sizeof(val), "%s", r->found ? r->path : "");
	gsioi_text_sanitize(val, sizeof(val));
	return gsio_extras_set_string(c->s, &c->s->extras, key, val, c->err) == 0;
}

bool gsioi_wmp_warn_missing(wmp_sctx *c, const char *what, const char *stored,
                            const gsioi_found *r, const char *consequence)
{
	char tail[700];
	gsioi_finder_missing(&c->finder, r, consequence, tail, sizeof(tail));
	return gsioi_wmp_warn(c, "%s \"%.200s\" %s", what, stored, tail);
}
