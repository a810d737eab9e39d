/* Finding the files a model or a level names (internal): external textures
 * of models and terrains (external_image.c), a level's WADs, models,
 * sprites, sounds, script and palette (importers/wmp_files.c).
 *
 * One rule for all of them (docs/DESIGN.md, "Files a file names"):
 * - only the stored name's base name counts (either separator): a stored
 *   folder (absolute, "..", the author's own disk) is never followed;
 * - folders in order: the one of the file that names it, then
 *   opts->search_paths (`--path`); the first that holds the file wins;
 * - in a folder: the exact name, then the name as UTF-8, then any file
 *   whose name is the same but for case (ASCII and Latin-1 letters), names
 *   compared as gsioi_text_utf8() reads them: a name stored in CP1252
 *   ("R\xfcstung.mdl") finds the file copied to Linux as UTF-8
 *   ("Rüstung.mdl") and the file named with the raw byte alike;
 * - before anything is read: a path the file system knows must resolve
 *   (symbolic links, "..") inside its folder and be a regular file, or it
 *   is refused (with any io: a path the file system does not know is left
 *   to a custom io). */
#ifndef GSIOI_FILES_H
#define GSIOI_FILES_H

#include "gsioi_internal.h"

/** Paths the finder makes are at most this long (with the NUL). */
#define GSIOI_FOUND_PATH_MAX 1024

typedef struct gsioi_folder gsioi_folder;

/** The folders to look in and what is known of them (listings, resolved
 *  paths), kept for the finder's life: a level looks up hundreds of names
 *  and lists each folder once. */
typedef struct gsioi_finder {
	const gsio_opts *opts;
	gsio_arena *arena; /**< the folders, their indexes (scratch) */
	gsioi_folder *folders;
	size_t count;
	const char *first_is; /**< what the first folder is, for messages ("the model's folder") */
} gsioi_finder;

/** What a look-up found. */
typedef struct gsioi_found {
	bool found;
	char path[GSIOI_FOUND_PATH_MAX]; /**< folder + '/' + the name in it, when found */
	/** The first file that matched but was refused, and why ("" none), for
	 *  the warning when nothing else is found. */
	char refused[384];
} gsioi_found;

/** An empty finder whose folders live in arena. */
void gsioi_finder_init(gsioi_finder *f, gsio_arena *arena, const gsio_opts *opts);
/** Adds the folder of the file at `named_by` ("" when it has none), then
 *  opts->search_paths; `first_is` says what the first one is in messages. */
GSIO_NODISCARD bool gsioi_finder_add_defaults(gsioi_finder *f, const char *named_by,
                                              const char *first_is, gsio_error *err);
/** Adds one folder to look in after those added before (a folder added
 *  already, by the same text, is not added again). */
GSIO_NODISCARD bool gsioi_finder_add(gsioi_finder *f, const char *dir, gsio_error *err);
/** The folders' paths, in order ("" stands for the current folder). */
const char *gsioi_finder_dir(const gsioi_finder *f, size_t i);
/** Frees the listings the io made. */
void gsioi_finder_free(gsioi_finder *f);

/** Looks `stored` up (the rule above). out->found false when the name has
 *  no base name or no folder holds it; false (err set) only when out of
 *  memory. */
GSIO_NODISCARD bool gsioi_find_file(gsioi_finder *f, const char *stored, gsioi_found *out,
                                    gsio_error *err);

/** The end of a warning for a file not found: "not found in A (the
 *  model's folder), B or C[; A/x was refused: ...]: <consequence>; --path
 *  DIR adds a folder to look in", into buf. */
void gsioi_finder_missing(const gsioi_finder *f, const gsioi_found *r, const char *consequence,
                          char *buf, size_t size);

#endif
