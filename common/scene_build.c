/* The public scene builder: an empty scene with its arena, elements appended
 * with their defaults, extras, warnings, and node world transforms.
 *
 * The scene struct is public, but the builder needs to know how much room
 * each element array has. A scene made here is the first member of a private
 * struct that remembers, per array, the pointer it allocated and its
 * capacity. If the caller replaced an array (importers allocate exact
 * arrays), the pointers differ and the capacity is taken to be the count:
 * the next add copies. Growth doubles, so n adds cost O(n) copies and at
 * most twice the final size in the arena (which frees nothing before the
 * scene); an importer that knows its counts makes the arrays once
 * (gsioi_scene_reserve). */
#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>

// -- The private part of a scene

enum { ARR_NODES, ARR_MESHES, ARR_MATERIALS, ARR_IMAGES, ARR_SKINS, ARR_ANIMATIONS,
       ARR_CAMERAS, ARR_LIGHTS, ARR_WARNINGS, ARR_COUNT };

typedef struct scene_impl {
	gsio_scene pub; // first: a gsio_scene * is a scene_impl *
	struct {
		void *ptr;
		size_t cap;
	} arr[ARR_COUNT];
	// Each distinct warning is kept once, with how many times it was
	// raised (see gsio_scene_add_warning): its first text -> its index.
	struct {
		gsioi_names index;
		const char **keys;   /**< the first text of warnings[i] */
		uint32_t *counts;    /**< how many times warnings[i] was raised */
		size_t cap;          /**< room of keys and counts */
		const char **array;  /**< the warnings array the index covers */
		size_t covered;      /**< how many of its warnings */
	} warn;
} scene_impl;

gsio_scene *gsio_scene_new(const gsio_opts *opts, gsio_error *err)
{
	gsio_error_clear(err);
	gsio_arena *a = gsioi_arena_for(opts, NULL, err);
	if (!a) return NULL;
	scene_impl *impl = gsioi_arena_alloc(a, sizeof(*impl), err);
	if (!impl) {
		gsioi_arena_destroy(a);
		return NULL;
	}
	impl->pub.arena = a;
	impl->pub.axes = GSIO_AXES_Z_UP_X_FORWARD;
	return &impl->pub;
}

void *gsio_scene_alloc(gsio_scene *s, size_t count, size_t size, gsio_error *err)
{
	if (!s) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_scene_alloc: no scene");
		return NULL;
	}
	return gsioi_arena_array(s->arena, count, size, err);
}

char *gsio_scene_strdup(gsio_scene *s, const char *str, gsio_error *err)
{
	if (!s || !str) return NULL;
	return gsioi_arena_strdup(s->arena, str, err);
}

/* Room for at least n elements in array `which` (*xs with *count), so
 * that adds up to n copy nothing: the doubling's earlier arrays stay in
 * the arena until the scene is freed (prefab.wmp, 34 blocks: mesh arrays
 * for 8, 16, 32 and 64, 24 KB, where one for 34 is 6.8 KB). False when out
 * of memory (or over the arena's limit). */
static bool reserve(gsio_scene *s, int which, void **xs, size_t count, size_t elem, size_t n, gsio_error *err)
{
	scene_impl *impl = (scene_impl *)s;
	size_t cap = impl->arr[which].ptr == *xs && *xs ? impl->arr[which].cap : count;
	if (n <= cap) return true;
	void *a = gsioi_arena_regrow(s->arena, *xs, count, n, elem, err); // grow() zeroes each new element
	if (!a) return false;
	*xs = a;
	impl->arr[which].ptr = a;
	impl->arr[which].cap = n;
	return true;
}

/* Room for one more element in array `which` (*xs with *count elements of
 * elem bytes). Returns a pointer to the new, zeroed element, or NULL. */
static void *grow(gsio_scene *s, int which, void **xs, size_t *count, size_t elem,
                  gsio_error *err)
{
	scene_impl *impl = (scene_impl *)s;
	size_t cap = impl->arr[which].ptr == *xs && *xs ? impl->arr[which].cap : *count;
	if (*count == SIZE_MAX || *count >= (size_t)INT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "too many elements for an int32_t index");
		return NULL;
	}
	if (*count + 1 > cap && !reserve(s, which, xs, *count, elem, cap < 4 ? 8 : cap * 2, err)) return NULL;
	uint8_t *e = (uint8_t *)*xs + *count * elem;
	memset(e, 0, elem);
	(*count)++;
	return e;
}

bool gsioi_scene_reserve(gsio_scene *s, size_t nodes, size_t meshes, gsio_error *err)
{
	return reserve(s, ARR_NODES, (void **)&s->nodes, s->nodes_count, sizeof(*s->nodes), nodes, err) &&
	       reserve(s, ARR_MESHES, (void **)&s->meshes, s->meshes_count, sizeof(*s->meshes), meshes, err);
}

#define GROW(s, which, field, err) \
	grow((s), (which), (void **)&(s)->field, &(s)->field##_count, sizeof(*(s)->field), (err))

/* Every public builder call starts here: a fresh error, and a scene. */
static bool check_scene(const gsio_scene *s, gsio_error *err)
{
	gsio_error_clear(err);
	if (s) return true;
	GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no scene");
	return false;
}

// -- Adding elements

int32_t gsio_scene_add_node(gsio_scene *s, const char *name, int32_t parent, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	if (parent < -1 || (parent >= 0 && (size_t)parent >= s->nodes_count)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_scene_add_node: parent %d is not an existing node (0..%zu)", (int)parent,
		          s->nodes_count ? s->nodes_count - 1 : 0);
		return -1;
	}
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	if (name && !nm) return -1;
	gsio_node *n = GROW(s, ARR_NODES, nodes, err);
	if (!n) return -1;
	n->name = nm;
	n->parent = parent;
	n->rotation[3] = 1;
	n->scale[0] = n->scale[1] = n->scale[2] = 1;
	n->mesh = n->camera = n->light = -1;
	return (int32_t)(s->nodes_count - 1);
}

int32_t gsio_scene_add_mesh(gsio_scene *s, const char *name, size_t vertex_count,
                            size_t index_count, uint32_t flags, int32_t material, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	if (index_count % 3) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_scene_add_mesh: index_count %zu is not a multiple of 3", index_count);
		return -1;
	}
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	float *pos = gsioi_arena_array(s->arena, vertex_count, 3 * sizeof(float), err);
	float *nrm = flags & GSIO_MESH_NORMALS
	                 ? gsioi_arena_array(s->arena, vertex_count, 3 * sizeof(float), err)
	                 : NULL;
	float *uv = flags & GSIO_MESH_UVS
	                ? gsioi_arena_array(s->arena, vertex_count, 2 * sizeof(float), err)
	                : NULL;
	uint32_t *idx = gsioi_arena_array(s->arena, index_count, sizeof(uint32_t), err);
	gsio_mesh_part *part = gsioi_arena_array(s->arena, 1, sizeof(*part), err);
	if ((name && !nm) || !pos || ((flags & GSIO_MESH_NORMALS) && !nrm) ||
	    ((flags & GSIO_MESH_UVS) && !uv) || !idx || !part)
		return -1;
	gsio_mesh *m = GROW(s, ARR_MESHES, meshes, err);
	if (!m) return -1;
	m->name = nm;
	m->vertex_count = vertex_count;
	m->positions = pos;
	m->normals = nrm;
	m->uvs = uv;
	m->indices = idx;
	m->index_count = index_count;
	part->index_count = index_count;
	part->material = material;
	m->parts = part;
	m->parts_count = 1;
	m->skin = -1;
	return (int32_t)(s->meshes_count - 1);
}

int32_t gsio_scene_add_material(gsio_scene *s, const char *name, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	if (name && !nm) return -1;
	gsio_material *m = GROW(s, ARR_MATERIALS, materials, err);
	if (!m) return -1;
	gsioi_material_defaults(m);
	m->name = nm;
	return (int32_t)(s->materials_count - 1);
}

int32_t gsio_scene_add_image(gsio_scene *s, const char *name, uint32_t width, uint32_t height,
                             const char *uri, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	bool ref = width == 0 || height == 0;
	if (ref && (!uri || !*uri)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_scene_add_image: an image of %ux%u pixels needs a uri", (unsigned)width,
		          (unsigned)height);
		return -1;
	}
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	char *u = ref ? gsio_scene_strdup(s, uri, err) : NULL;
	uint8_t *px = ref ? NULL : gsioi_arena_array(s->arena, (size_t)width * height, 4, err);
	if ((name && !nm) || (ref && !u) || (!ref && !px)) return -1;
	gsio_image *im = GROW(s, ARR_IMAGES, images, err);
	if (!im) return -1;
	im->name = nm;
	im->width = ref ? 0 : width;
	im->height = ref ? 0 : height;
	im->rgba = px;
	im->uri = u;
	im->source_type = -1;
	im->source_format = GSIO_PIXEL_RGBA8888;
	return (int32_t)(s->images_count - 1);
}

int32_t gsioi_scene_push_image(gsio_scene *s, const gsio_image *image, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	char *nm = image->name ? gsio_scene_strdup(s, image->name, err) : NULL;
	if (image->name && !nm) return -1;
	gsio_image *im = GROW(s, ARR_IMAGES, images, err);
	if (!im) return -1;
	*im = *image;
	im->name = nm;
	return (int32_t)(s->images_count - 1);
}

int32_t gsio_scene_add_skin(gsio_scene *s, const char *name, size_t joints_count,
                            gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	int32_t *joints = gsioi_arena_array(s->arena, joints_count, sizeof(int32_t), err);
	float *ibm = gsioi_arena_array(s->arena, joints_count, 16 * sizeof(float), err);
	if ((name && !nm) || !joints || !ibm) return -1;
	for (size_t i = 0; i < joints_count; i++) {
		joints[i] = -1;
		for (int k = 0; k < 4; k++) ibm[16 * i + (size_t)(5 * k)] = 1;
	}
	gsio_skin *sk = GROW(s, ARR_SKINS, skins, err);
	if (!sk) return -1;
	sk->name = nm;
	sk->joints = joints;
	sk->joints_count = joints_count;
	sk->inverse_bind = ibm;
	sk->skeleton = -1;
	return (int32_t)(s->skins_count - 1);
}

int32_t gsio_scene_add_camera(gsio_scene *s, const char *name, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	if (name && !nm) return -1;
	gsio_camera *c = GROW(s, ARR_CAMERAS, cameras, err);
	if (!c) return -1;
	c->name = nm;
	c->fov = 90;
	return (int32_t)(s->cameras_count - 1);
}

int32_t gsio_scene_add_light(gsio_scene *s, const char *name, gsio_light_type type,
                             gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	if (type != GSIO_LIGHT_POINT && type != GSIO_LIGHT_SPOT && type != GSIO_LIGHT_DIRECTIONAL) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_scene_add_light: unknown type %d",
		          (int)type);
		return -1;
	}
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	if (name && !nm) return -1;
	gsio_light *l = GROW(s, ARR_LIGHTS, lights, err);
	if (!l) return -1;
	l->name = nm;
	l->type = type;
	l->color[0] = l->color[1] = l->color[2] = 1;
	l->intensity = 1;
	l->outer_cone = 0.78539816f; // pi/4, glTF's default
	return (int32_t)(s->lights_count - 1);
}

int32_t gsio_scene_add_animation(gsio_scene *s, const char *name, float fps, size_t frames_count,
                                 size_t channels_count, gsio_error *err)
{
	if (!check_scene(s, err)) return -1;
	if (!(fps > 0) || !isfinite(fps) || frames_count == 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_scene_add_animation: needs fps > 0 and at least one frame (fps %g, %zu frames)",
		          (double)fps, frames_count);
		return -1;
	}
	char *nm = name ? gsio_scene_strdup(s, name, err) : NULL;
	gsio_channel *ch = gsioi_arena_array(s->arena, channels_count, sizeof(*ch), err);
	if ((name && !nm) || !ch) return -1;
	for (size_t i = 0; i < channels_count; i++) ch[i].node = -1;
	gsio_animation *a = GROW(s, ARR_ANIMATIONS, animations, err);
	if (!a) return -1;
	a->name = nm;
	a->fps = fps;
	a->frames_count = frames_count;
	a->channels = ch;
	a->channels_count = channels_count;
	return (int32_t)(s->animations_count - 1);
}

// -- Extras

/* The slot for key: the existing one (cleared) or a new one at the end. */
static gsio_extra *extra_slot(gsio_scene *s, gsio_extras *x, const char *key, gsio_error *err)
{
	gsio_error_clear(err);
	if (!s || !x || !key || !*key) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_extras_set: needs a scene, a list and a key");
		return NULL;
	}
	for (size_t i = 0; i < x->count; i++)
		if (strcmp(x->items[i].key, key) == 0) {
			const char *k = x->items[i].key;
			memset(&x->items[i], 0, sizeof(x->items[i]));
			x->items[i].key = k;
			return &x->items[i];
		}
	// A list set one key after another (a level's scene-wide facts) grows
	// in place, with room doubled when it is full; a copy each time held
	// n^2 / 2 elements for n (block.wmp's 11 scene extras: 3.7 KB of arrays
	// for the 616 bytes kept).
	char *k = gsioi_arena_strdup(s->arena, key, err);
	gsio_extra *items = k ? gsioi_arena_append(s->arena, x->items, x->count, sizeof(*items), err) : NULL;
	if (!items) return NULL;
	x->items = items;
	gsio_extra *e = &items[x->count++];
	memset(e, 0, sizeof(*e));
	e->key = k;
	return e;
}

int gsio_extras_set_int(gsio_scene *s, gsio_extras *x, const char *key, int64_t v,
                        gsio_error *err)
{
	gsio_extra *e = extra_slot(s, x, key, err);
	if (!e) return -1;
	e->type = GSIO_EXTRA_INT;
	e->i = v;
	return 0;
}

int gsio_extras_set_float(gsio_scene *s, gsio_extras *x, const char *key, double v,
                          gsio_error *err)
{
	gsio_extra *e = extra_slot(s, x, key, err);
	if (!e) return -1;
	e->type = GSIO_EXTRA_FLOAT;
	e->f = v;
	return 0;
}

int gsio_extras_set_string(gsio_scene *s, gsio_extras *x, const char *key, const char *v,
                           gsio_error *err)
{
	gsio_error_clear(err);
	if (!s || !x) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_extras_set: needs a scene and a list");
		return -1;
	}
	char *copy = gsio_scene_strdup(s, v ? v : "", err);
	if (!copy) return -1;
	gsio_extra *e = extra_slot(s, x, key, err);
	if (!e) return -1;
	e->type = GSIO_EXTRA_STRING;
	e->s = copy;
	return 0;
}

int gsio_extras_set_floats(gsio_scene *s, gsio_extras *x, const char *key, const float *v,
                           size_t n, gsio_error *err)
{
	gsio_error_clear(err);
	if (!s || !x) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_extras_set: needs a scene and a list");
		return -1;
	}
	if (n && !v) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_extras_set_floats: %zu floats from NULL", n);
		return -1;
	}
	float *copy = s ? gsioi_arena_array(s->arena, n, sizeof(float), err) : NULL;
	if (!copy) return -1;
	if (n) memcpy(copy, v, n * sizeof(float));
	gsio_extra *e = extra_slot(s, x, key, err);
	if (!e) return -1;
	e->type = GSIO_EXTRA_FLOATS;
	e->floats = copy;
	e->floats_count = n;
	return 0;
}

const gsio_extra *gsio_extras_get(const gsio_extras *x, const char *key)
{
	if (!x || !key) return NULL;
	for (size_t i = 0; i < x->count; i++)
		if (x->items[i].key && strcmp(x->items[i].key, key) == 0) return &x->items[i];
	return NULL;
}

/* Records warnings[covered] (already in the array) as first raised. */
static bool warning_indexed(scene_impl *impl, const char *text, gsio_error *err)
{
	size_t i = impl->warn.covered;
	if (i >= impl->warn.cap) {
		size_t cap = impl->warn.cap < 8 ? 16 : 2 * impl->warn.cap;
		const char **keys = gsioi_arena_regrow(impl->pub.arena, impl->warn.keys, impl->warn.cap,
		                                       cap, sizeof(*keys), err);
		uint32_t *counts = keys ? gsioi_arena_regrow(impl->pub.arena, impl->warn.counts,
		                                             impl->warn.cap, cap, sizeof(*counts), err)
		                        : NULL;
		if (!counts) return false;
		impl->warn.keys = keys, impl->warn.counts = counts, impl->warn.cap = cap;
	}
	impl->warn.keys[i] = text;
	impl->warn.counts[i] = 1;
	impl->warn.covered = i + 1;
	return gsioi_names_add(&impl->warn.index, text, (uint32_t)i, err);
}

/* Index i of the warning whose first text is `text`, or -1; the index is
 * rebuilt (each warning counted once) when the warnings are not the ones it
 * covers (a caller changed the array or its count). */
static int64_t warning_find(scene_impl *impl, const char *text, gsio_error *err, bool *ok)
{
	gsio_scene *s = &impl->pub;
	*ok = true;
	if (!impl->warn.index.arena || impl->warn.array != s->warnings ||
	    impl->warn.covered != s->warnings_count) {
		gsioi_names_init(&impl->warn.index, s->arena, false);
		impl->warn.array = s->warnings;
		impl->warn.covered = 0;
		impl->warn.cap = 0;
		for (size_t i = 0; i < s->warnings_count; i++)
			if (!(*ok = warning_indexed(impl, s->warnings[i], err))) return -1;
	}
	return gsioi_names_find(&impl->warn.index, text);
}

/* Warning i raised once more: its text becomes "TEXT (N times)", written
 * into a copy with room for any count made at the second time (the first
 * text stays the key). */
static bool warning_again(scene_impl *impl, size_t i, gsio_error *err)
{
	enum { ROOM = sizeof(" (4294967295 times)") };
	gsio_scene *s = &impl->pub;
	const char *key = impl->warn.keys[i];
	if (impl->warn.counts[i] == UINT32_MAX) return true;
	uint32_t n = ++impl->warn.counts[i];
	char *text = (char *)s->warnings[i];
	if (n == 2) {
		size_t len = strlen(key);
		if (!(text = gsioi_arena_alloc(s->arena, len + ROOM, err))) return false;
		s->warnings[i] = text;
	}
	snprintf(text, strlen(key) + ROOM, "%s (%u times)", key, (unsigned)n);
	return true;
}

int gsio_scene_add_warning(gsio_scene *s, gsio_error *err, const char *fmt, ...)
{
	if (!check_scene(s, err)) return -1;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsioi_text_sanitize(buf, sizeof(buf)); // warnings quote file bytes: keep them printable
	// A warning raised again (a missing sprite placed 24 times) is one
	// line with its count, so every command and record says it once.
	scene_impl *impl = (scene_impl *)s;
	bool ok;
	int64_t seen = warning_find(impl, buf, err, &ok);
	if (!ok) return -1;
	if (seen >= 0) return warning_again(impl, (size_t)seen, err) ? 0 : -1;
	// Grown as the other arrays (doubling): a level of 8 000 missing
	// textures has a warning each, and a copy per warning took 250 MB.
	char *text = gsioi_arena_strdup(s->arena, buf, err);
	const char **w = text ? GROW(s, ARR_WARNINGS, warnings, err) : NULL;
	if (!w) return -1;
	*w = text;
	impl->warn.array = s->warnings; // the array may have moved as it grew
	return warning_indexed(impl, text, err) ? 0 : -1;
}

// -- Transforms

/* Local copies of the two matrix steps (common/gmath.c has the public ones;
 * these keep the builder free of that file's order of arrival). */
static void trs_matrix(const float t[3], const float r[4], const float sc[3], float m[16])
{
	float x = r[0], y = r[1], z = r[2], w = r[3];
	float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
	float wx = w * x, wy = w * y, wz = w * z;
	m[0] = (1 - 2 * (yy + zz)) * sc[0];
	m[1] = 2 * (xy + wz) * sc[0];
	m[2] = 2 * (xz - wy) * sc[0];
	m[3] = 0;
	m[4] = 2 * (xy - wz) * sc[1];
	m[5] = (1 - 2 * (xx + zz)) * sc[1];
	m[6] = 2 * (yz + wx) * sc[1];
	m[7] = 0;
	m[8] = 2 * (xz + wy) * sc[2];
	m[9] = 2 * (yz - wx) * sc[2];
	m[10] = (1 - 2 * (xx + yy)) * sc[2];
	m[11] = 0;
	m[12] = t[0];
	m[13] = t[1];
	m[14] = t[2];
	m[15] = 1;
}

static void mat_mul(const float a[16], const float b[16], float out[16])
{
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			float v = 0;
			for (int k = 0; k < 4; k++) v += a[4 * k + r] * b[4 * c + k];
			out[4 * c + r] = v;
		}
}

void gsio_node_world_matrix(const gsio_scene *scene, int32_t node, float out[16])
{
	float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	memcpy(out, m, sizeof(m));
	if (!scene || node < 0 || (size_t)node >= scene->nodes_count) return;
	// Walk up; parents have smaller indices, so this ends (bounded anyway).
	for (size_t guard = 0; node >= 0 && guard <= scene->nodes_count; guard++) {
		const gsio_node *n = &scene->nodes[node];
		float local[16], prod[16];
		trs_matrix(n->translation, n->rotation, n->scale, local);
		mat_mul(local, out, prod);
		memcpy(out, prod, sizeof(prod));
		if (n->parent >= node) break; // invalid tree: stop instead of looping
		node = n->parent;
	}
}
