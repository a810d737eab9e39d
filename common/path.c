/* Path checks for sibling files (textures, animations, palettes found
 * beside a model): a file the model names is followed only when it really
 * lies in the model's folder, after symbolic links and ".." are resolved. */
#define _DEFAULT_SOURCE /* realpath */
#include "gsioi_internal.h"

#include <stdlib.h>
#include <string.h>

int gsioi_path_inside(const char *dir, const char *path)
{
	if (!path) return -1;
#ifdef _WIN32
	(void)dir;
	return 1; // no realpath: the textual checks of the importers stand alone
#else
	// Resolved into malloc'd strings, not two PATH_MAX arrays on the stack:
	// those 8 KB lay under every sibling file's lookup (a level's textures
	// and models), and realpath's own frame below them, so a level's
	// conversion touched 12 KB more stack than a model's. Out of memory
	// counts as "does not resolve": the file is then not followed.
	char *rdir = realpath(dir && *dir ? dir : ".", NULL);
	char *rpath = rdir ? realpath(path, NULL) : NULL; // NULL: missing (or a loop)
	int inside = -1;
	if (rdir && rpath) {
		size_t n = strlen(rdir);
		if (n == 1 && rdir[0] == '/')
			inside = rpath[0] == '/' && rpath[1] ? 1 : 0;
		else
			inside = !strncmp(rpath, rdir, n) && rpath[n] == '/' && rpath[n + 1] ? 1 : 0;
	}
	free(rdir);
	free(rpath);
	return inside;
#endif
}
