/* Helpers shared by the WMP tests (wmp_test_util.h). */
#include "wmp_test_util.h"

#include <stdio.h>

const char *lottershock(const char *rel)
{
	static char buf[1024];
	snprintf(buf, sizeof(buf), "%s/lottershock/Game/%s", GSIO_CORPUS_DIR, rel);
	return buf;
}

gsio_scene *load_level(const char *path_in, bool with_assets)
{
	char path[1024], assets[1024];
	snprintf(path, sizeof(path), "%s", path_in);
	snprintf(assets, sizeof(assets), "%s", lottershock("Assets"));
	const char *paths[1] = {assets};
	gsio_opts o = {0};
	if (with_assets) o.search_paths = paths, o.search_paths_count = 1;
	gsio_error err;
	gsio_scene *s = t_load_ok(path, &o);
	if (gsio_scene_validate(s, &err)) fail_msg("%s: scene fails validation: %s", path, err.message);
	return s;
}

const gsio_extra *node_extra(const gsio_scene *s, size_t i, const char *key)
{
	return gsio_extras_get(&s->nodes[i].extras, key);
}
