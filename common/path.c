/* Path checks for sibling files (textures, animations, palettes found
 * beside a model): a file the model names is followed only when it really
 * lies in the model's folder, after symbolic links (Windows: junctions and
 * symbolic links) and ".." are resolved. */
#include "gsioi_internal.h"
#include "gsioi_os.h"

#include <stdlib.h>
#include <string.h>

bool gsioi_resolved_inside(const char *real_dir, const char *real_path)
{
	if (!real_dir || !real_path) return false;
	size_t n = strlen(real_dir);
	// A root ("/", "C:/") ends with its separator; any other folder does not.
	if (n && real_dir[n - 1] == '/') return !strncmp(real_path, real_dir, n) && real_path[n];
	return !strncmp(real_path, real_dir, n) && real_path[n] == '/' && real_path[n + 1];
}

int gsioi_path_inside(const char *dir, const char *path)
{
	if (!path) return -1;
	// Resolved into malloc'd strings, not two PATH_MAX arrays on the stack:
	// those 8 KB lay under every sibling file's lookup (a level's textures
	// and models), and realpath's own frame below them, so a level's
	// conversion touched 12 KB more stack than a model's. Out of memory
	// counts as "does not resolve": the file is then not followed.
	char *rdir = gsioi_realpath(dir && *dir ? dir : ".");
	char *rpath = rdir ? gsioi_realpath(path) : NULL; // NULL: missing (or a loop)
	int inside = rdir && rpath ? gsioi_resolved_inside(rdir, rpath) : -1;
	free(rdir);
	free(rpath);
	return inside;
}
