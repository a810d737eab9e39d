/* Scene creation, warnings and release. */
#include "gsioi_internal.h"

#ifdef __SSE2__
#include <xmmintrin.h>
#endif

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

void gsioi_bbox3_rows(const float *p, size_t stride, const uint32_t *rows, size_t n, float mn[3],
                      float mx[3])
{
	for (int k = 0; k < 3; k++) mn[k] = mx[k] = 0;
	size_t i = 0;
#ifdef __SSE2__
	// A vertex a vector (its 4th lane the next float, not used), so with
	// rows of 3 the last row goes to the loop below (with a row list, any
	// row may be the last: rows of 4 or more only). _mm_min_ps(v, lo) is
	// v < lo ? v : lo, the comparison below (NaN and -0 alike): the same
	// floats. Every frame of an MDL7 or MD5 load passes through here.
	if (n >= 2 && (!rows || stride >= 4)) {
		const size_t last = stride >= 4 ? n : n - 1;
		__m128 lo = _mm_loadu_ps(p + stride * (rows ? rows[0] : 0)), hi = lo;
		for (i = 1; i < last; i++) {
			__m128 v = _mm_loadu_ps(p + stride * (rows ? rows[i] : i));
			lo = _mm_min_ps(v, lo);
			hi = _mm_max_ps(v, hi);
		}
		float l[4], h[4];
		_mm_storeu_ps(l, lo);
		_mm_storeu_ps(h, hi);
		for (int k = 0; k < 3; k++) mn[k] = l[k], mx[k] = h[k];
	}
#endif
	for (; i < n; i++)
		for (int k = 0; k < 3; k++) {
			float v = p[stride * (rows ? rows[i] : i) + (size_t)k];
			if (i == 0 || v < mn[k]) mn[k] = v;
			if (i == 0 || v > mx[k]) mx[k] = v;
		}
}

void gsioi_bbox3(const float *p, size_t n, float mn[3], float mx[3])
{
	gsioi_bbox3_rows(p, 3, NULL, n, mn, mx);
}
