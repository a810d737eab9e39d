/* Scene creation, warnings and release. */
#include "gsio_internal.h"

#include <stdio.h>

gsio_scene *gsio_scene_create(const gsio_opts *opts, gsio_error *err)
{
	gsio_arena *a = gsio_arena_create(opts ? opts->allocator : NULL,
	                                  opts ? opts->memory_limit : 0);
	if (!a) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory creating a scene");
		return NULL;
	}
	gsio_scene *s = gsio_arena_alloc(a, sizeof(*s), err);
	if (!s) {
		gsio_arena_destroy(a);
		return NULL;
	}
	s->arena = a;
	s->axes = GSIO_AXES_Z_UP_X_FORWARD;
	return s;
}

void gsio_scene_free(gsio_scene *scene)
{
	if (scene) gsio_arena_destroy(scene->arena); // the scene itself lives in its arena
}

bool gsio_scene_warn(gsio_scene *s, gsio_error *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsio_text_sanitize(buf);
	// Warnings are few: grow the array by copying.
	const char **w = GSIO_NEW_ARRAY(s->arena, const char *, s->warnings_count + 1, err);
	char *text = gsio_arena_strdup(s->arena, buf, err);
	if (!w || !text) return false;
	if (s->warnings_count) memcpy(w, s->warnings, s->warnings_count * sizeof(*w));
	w[s->warnings_count++] = text;
	s->warnings = w;
	return true;
}
