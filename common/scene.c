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
	gsioi_text_sanitize(buf);
	// Warnings are few: grow the array by copying.
	const char **w = GSIO_NEW_ARRAY(s->arena, const char *, s->warnings_count + 1, err);
	char *text = gsioi_arena_strdup(s->arena, buf, err);
	if (!w || !text) return false;
	if (s->warnings_count) memcpy(w, s->warnings, s->warnings_count * sizeof(*w));
	w[s->warnings_count++] = text;
	s->warnings = w;
	return true;
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

/* The clip a frame belongs to: its name without trailing digits and the
 * separators before them ("walk3" -> "walk", "frame 0" -> "frame"). */
static size_t clip_stem(const char *name)
{
	size_t len = strlen(name);
	while (len && name[len - 1] >= '0' && name[len - 1] <= '9') len--;
	while (len && (name[len - 1] == ' ' || name[len - 1] == '_' || name[len - 1] == '-')) len--;
	return len;
}

static bool same_stem(const char *a, const char *b)
{
	size_t la = clip_stem(a), lb = clip_stem(b);
	return la == lb && !memcmp(a, b, la);
}

bool gsioi_scene_build_clips(gsio_scene *s, const gsio_mesh *m, float fps, gsio_error *err)
{
	if (!m->frames_count) return true;
	size_t n = 1;
	for (size_t i = 1; i < m->frames_count; i++)
		if (!same_stem(m->frames[i].name, m->frames[i - 1].name)) n++;
	s->clips = GSIO_NEW_ARRAY(s->arena, gsio_clip, n, err);
	GSIO_CHECK(s->clips);
	size_t c = 0;
	for (size_t i = 0; i < m->frames_count; i++) {
		if (i && same_stem(m->frames[i].name, m->frames[i - 1].name)) {
			s->clips[c - 1].frame_count++;
			continue;
		}
		const char *fn = m->frames[i].name;
		size_t len = clip_stem(fn);
		char cname[48];
		if (len)
			snprintf(cname, sizeof(cname), "%.*s", (int)len, fn);
		else // a name of digits only has no stem
			snprintf(cname, sizeof(cname), "anim");
		// A stem that comes back after other clips gets a suffix: names stay unique.
		unsigned dup = 1;
		size_t cl = strlen(cname);
		for (size_t k = 0; k < c; k++)
			if (!strcmp(s->clips[k].name, cname) ||
			    (!strncmp(s->clips[k].name, cname, cl) && s->clips[k].name[cl] == '.'))
				dup++;
		if (dup > 1) snprintf(cname + cl, sizeof(cname) - cl, ".%u", dup);
		gsio_clip *clip = &s->clips[c++];
		GSIO_CHECK((clip->name = gsioi_arena_strdup(s->arena, cname, err)));
		clip->first_frame = i;
		clip->frame_count = 1;
		clip->fps = fps;
	}
	s->clips_count = c;
	return true;
}
