/* Path checks for sibling files (textures, animations, palettes found
 * beside a model): a file the model names is followed only when it really
 * lies in the model's folder, after symbolic links and ".." are resolved. */
#define _DEFAULT_SOURCE /* realpath */
#include "gsio_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

int gsioi_path_inside(const char *dir, const char *path)
{
	if (!path) return -1;
#ifdef _WIN32
	(void)dir;
	return 1; // no realpath: the textual checks of the importers stand alone
#else
	char rdir[PATH_MAX], rpath[PATH_MAX];
	if (!realpath(dir && *dir ? dir : ".", rdir)) return -1;
	if (!realpath(path, rpath)) return -1; // missing (or a loop): nothing to follow
	size_t n = strlen(rdir);
	if (n == 1 && rdir[0] == '/') return rpath[0] == '/' && rpath[1] ? 1 : 0;
	return !strncmp(rpath, rdir, n) && rpath[n] == '/' && rpath[n + 1] ? 1 : 0;
#endif
}
