/* Scene creation, warnings and release. */
#include "gsio_internal.h"

#include <stdio.h>

gsio_scene *gsioi_scene_create(const gsio_opts *opts, gsio_error *err)
{
	return gsio_scene_new(opts, err); // common/scene_build.c
}

void gsio_scene_free(gsio_scene *scene)
{
	if (scene) gsioi_arena_destroy(scene->arena); // the scene itself lives in its arena
}

bool gsioi_scene_warn(gsio_scene *s, gsio_error *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return gsio_scene_add_warning(s, err, "%s", buf) == 0; // sanitized there
}

// -- Helpers shared by the vertex-animation importers (MDL, HMP)

void gsioi_bbox3(const float *p, size_t n, float mn[3], float mx[3])
{
	for (int k = 0; k < 3; k++) mn[k] = mx[k] = 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++) {
			float v = p[3 * i + (size_t)k];
			if (i == 0 || v < mn[k]) mn[k] = v;
			if (i == 0 || v > mx[k]) mx[k] = v;
		}
}
