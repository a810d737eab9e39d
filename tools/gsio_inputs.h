/* Inputs of the gsio and mdl2gltf commands: files named on the command line and folders
 * searched recursively, the way mdl2gltf searches them (sorted, hidden
 * entries and symbolic links to folders skipped, an .md5anim beside an
 * .md5mesh left to the mesh). Not part of the library. */
#ifndef GSIO_INPUTS_H
#define GSIO_INPUTS_H

#include "gsio.h"

#include <stdbool.h>
#include <stddef.h>

/** One input: its path and, when found in a folder, its path below that
 *  folder (NULL for a file named on the command line). */
typedef struct gsio_input {
	char *path;
	char *rel;
	bool unreadable;      /**< a folder that could not be listed */
	bool outside_base;    /**< --base given or --files-from: not below the base folder */
} gsio_input;

typedef struct gsio_inputs {
	gsio_input *items;
	size_t count, cap;
} gsio_inputs;

/** Extensions Assimp reads that gsio does not (used only when the Assimp
 *  adapter is built), space-separated. */
extern const char *const gsio_assimp_extensions;

/** Whether a gsio importer (or, with `assimp`, the Assimp adapter) claims
 *  the extension of path. */
bool gsio_known_extension(const char *path, bool assimp);

/** Adds `arg`: a folder is searched (files with a known extension), a file
 *  is added whatever its extension. Returns false when out of memory. */
bool gsio_inputs_add(gsio_inputs *l, const char *arg, bool assimp);
/** Adds the files with a known extension below the folder dir (a folder
 *  that cannot be listed is added as `unreadable`). Returns false when out
 *  of memory. */
bool gsio_inputs_add_dir(gsio_inputs *l, const char *dir, bool assimp);
void gsio_inputs_free(gsio_inputs *l);

/** A list of inputs (--files-from): entries point into `text`. */
typedef struct gsio_list {
	char **items;
	size_t count;
	char *text;
} gsio_list;

/** Reads the list in file `path` ("-": standard input): one path a line
 *  (a line's final '\r' dropped), or NUL-separated with `nul`; empty
 *  entries are skipped. 0, or -1 with errno set. */
int gsio_list_read(const char *path, bool nul, gsio_list *l);
void gsio_list_free(gsio_list *l);

/** path below the folder base, both taken as written (relative ones from
 *  the current folder; "." and ".." resolved by name, links not followed):
 *  malloc'd, "" for base itself. NULL with *outside set when path is not
 *  below base, or not set when out of memory. */
char *gsio_path_below(const char *base, const char *path, bool *outside);

/** Whether an output path is taken already (anything there, a dangling link
 *  too): then err says so the way both commands say it ("exists (not
 *  replaced); use --force to replace it", the path as its file). Checked
 *  before an input is loaded, so a batch run again skips what it wrote;
 *  the writers check again when they place the file. */
bool gsio_output_taken(const char *path, gsio_error *err);

/** Whether path names an existing folder. */
bool gsio_is_dir(const char *path);

/** path with its extension (after the last '.' of the base name) replaced
 *  by ext (".glb"); malloc'd, NULL when out of memory. */
char *gsio_replace_ext(const char *path, const char *ext);
/** a + '/' + b, malloc'd. */
char *gsio_join(const char *a, const char *b);
/** mkdir -p of the folder part of path; 0 or -1 (errno). */
int gsio_make_parent_dirs(const char *path);

#endif
