/* The glTF writer's animations: each scene animation's channels as LINEAR
 * samplers over one time accessor, in output axes, with a key just before
 * each cut so that it jumps; morph channels as target weights. Relies on
 * the meshes' morph targets and the nodes' frame fix (gltf_mesh.c,
 * gltf_node.c) and on gltf_buffer.c for the accessors. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Morph targets up to which a weights channel stays dense: keys x targets
 *  floats, at most 4 MB here (a key a frame). Past it a channel's weights
 *  are sparse (sparse_weights): keys x (index + value) bytes, so that the
 *  output grows with the frames, not with their square. The corpus's
 *  models have up to 231 frames. */
#ifndef GLTF_DENSE_WEIGHTS_MAX
#define GLTF_DENSE_WEIGHTS_MAX 1024
#endif

/** The largest view of zeros written under the sparse weights (see
 *  gsioi_gltf_plan_sparse_base): the same 4 MB as the largest dense weights.
 *  Godot 3.2.3 reads a sparse accessor without a buffer view from view 0
 *  (garbage weights; one import of the corpus's models hung), so the
 *  sparse weights name a view of zeros when the largest fits in this; a
 *  base that grew with the weights would grow with the square of the
 *  frames again. Past it the accessors have no view (the spec's zeros),
 *  which Blender and the validator read and Godot 3.2.3 does not. */
#ifndef GLTF_SPARSE_BASE_MAX
#define GLTF_SPARSE_BASE_MAX ((size_t)4 << 20)
#endif

static float checked_fps(gltf_ctx *c, float fps, const char *name)
{
	if (isfinite(fps) && fps > 0) return fps;
	gsioi_gltf_warn(c, "animation %s has frame rate %g: using %g", name, (double)fps, (double)GSIO_DEFAULT_FPS);
	return GSIO_DEFAULT_FPS;
}

static void add_channel(gltf_ctx *c, cJSON *samplers, cJSON *channels, int input, int output,
                        int node, const char *path)
{
	cJSON *sm = gsioi_gltf_jobj(c), *ch = gsioi_gltf_jobj(c), *tg = gsioi_gltf_jobj(c);
	gsioi_gltf_jnum(c, sm, "input", input);
	gsioi_gltf_jnum(c, sm, "output", output);
	gsioi_gltf_jstr(c, sm, "interpolation", "LINEAR");
	int si = gsioi_gltf_jpush(c, samplers, sm);
	gsioi_gltf_jnum(c, ch, "sampler", si);
	gsioi_gltf_jnum(c, tg, "node", node);
	gsioi_gltf_jstr(c, tg, "path", path);
	gsioi_gltf_jset(c, ch, "target", tg);
	gsioi_gltf_jadd(c, channels, ch);
}

/** Key layout of an animation: frame f is key key_of[f]; a cut at frame f
 *  also has a key just before it (1% of a frame earlier) that holds frame
 *  f-1's value, so LINEAR interpolation jumps instead of sweeping. */
typedef struct key_plan {
	size_t keys;
	size_t *key_of;    // per frame
	bool *cut_before;  // per frame
} key_plan;

/** Fills kp for animation an (freed by the caller, also on failure). */
static bool plan_keys(gltf_ctx *c, const gsio_animation *an, key_plan *kp)
{
	size_t nf = an->frames_count;
	kp->keys = 0;
	kp->key_of = gsioi_gltf_xmalloc_array(c, nf, sizeof(size_t));
	kp->cut_before = gsioi_gltf_xmalloc_array(c, nf, sizeof(bool));
	if (!kp->key_of || !kp->cut_before) return false;
	memset(kp->cut_before, 0, nf * sizeof(bool));
	for (size_t k = 0; k < an->cuts_count; k++)
		if (an->cuts[k] >= 1 && an->cuts[k] < nf) kp->cut_before[an->cuts[k]] = true;
	for (size_t f = 0; f < nf; f++) {
		if (kp->cut_before[f]) kp->keys++;
		kp->key_of[f] = kp->keys++;
	}
	return true;
}

/** Writes `width` floats per frame from vals (already converted) as keys. */
static int keyed_accessor(gltf_ctx *c, const key_plan *kp, const float *vals, size_t frames,
                          int width)
{
	float *out = gsioi_gltf_xmalloc_array(c, kp->keys, (size_t)width * sizeof(float));
	if (!out) return -1;
	for (size_t f = 0; f < frames; f++) {
		size_t k = kp->key_of[f];
		memcpy(out + k * (size_t)width, vals + f * (size_t)width, (size_t)width * sizeof(float));
		if (kp->cut_before[f])
			memcpy(out + (k - 1) * (size_t)width, vals + (f - 1) * (size_t)width,
			       (size_t)width * sizeof(float));
	}
	int a = gsioi_gltf_float_accessor(c, out, kp->keys, width, false, 0);
	free(out);
	return a;
}

/** A morph channel's weights, `nt` a key (see channel_output), into w:
 *  one-hot from `frames` (at key k the weight of target frames[k] is 1,
 *  LINEAR between keys: a blend of two frames, which is how the engine
 *  interpolates), or as given in `values`. */
static void morph_weights(const gsio_animation *an, const gsio_channel *ch, const key_plan *kp, size_t nt,
                          float *w)
{
	memset(w, 0, kp->keys * nt * sizeof(float));
	for (size_t f = 0; f < an->frames_count; f++) {
		size_t k = kp->key_of[f];
		for (int back = 0; back <= (kp->cut_before[f] ? 1 : 0); back++) {
			size_t src = f - (size_t)back, key = k - (size_t)back;
			if (ch->frames)
				w[key * nt + ch->frames[src]] = 1.0f;
			else
				memcpy(w + key * nt, ch->values + src * nt, nt * sizeof(float));
		}
	}
}

/** The non-zero weights of a morph channel (see morph_weights), key by key
 *  in order: `each(user, i, w)` for element i (key * nt + target) of
 *  weight w. Returns how many there are; with each NULL only counts. */
static size_t morph_nonzero(const gsio_animation *an, const gsio_channel *ch, const key_plan *kp, size_t nt,
                            void (*each)(void *user, size_t i, float w), void *user)
{
	size_t n = 0;
	for (size_t f = 0; f < an->frames_count; f++) {
		size_t k = kp->key_of[f];
		for (int back = kp->cut_before[f] ? 1 : 0; back >= 0; back--) {
			size_t src = f - (size_t)back, key = k - (size_t)back;
			if (ch->frames) {
				if (each) each(user, key * nt + ch->frames[src], 1.0f);
				n++;
				continue;
			}
			for (size_t t = 0; t < nt; t++) {
				float w = ch->values[src * nt + t];
				if (w == 0) continue;
				if (each) each(user, key * nt + t, w);
				n++;
			}
		}
	}
	return n;
}

/* The sparse weights being listed: indices (u16 or u32) and values (float,
 * or normalized u8 in the compact output). */
typedef struct sparse_list {
	void *idx;
	void *val;
	bool wide, bytes;
	size_t n;
} sparse_list;

static void sparse_put(void *user, size_t i, float w)
{
	sparse_list *l = user;
	if (l->wide)
		((uint32_t *)l->idx)[l->n] = (uint32_t)i;
	else
		((uint16_t *)l->idx)[l->n] = (uint16_t)i;
	if (l->bytes)
		((uint8_t *)l->val)[l->n] = (uint8_t)floor((double)w * 255 + 0.5);
	else
		((float *)l->val)[l->n] = w;
	l->n++;
}

/** A morph channel's weights as a sparse accessor over zeros (the view of
 *  gsioi_gltf_plan_sparse_base, or none, which the spec fills with zeros; a
 *  key names one frame, or two around a cut): keys x targets weights in keys x (4 + 4) bytes instead of keys x
 *  targets x 4, so that the output grows with the frames, not with their
 *  square. nnz: morph_nonzero()'s count (at least 1). Returns the accessor
 *  or -1. */
static int sparse_weights(gltf_ctx *c, const gsio_animation *an, const gsio_channel *ch, const key_plan *kp,
                          size_t nt, size_t nvals, size_t nnz, bool bytes)
{
	if (nvals - 1 > UINT32_MAX) {
		// Sparse indices are at most 32 bits (so is every other count here).
		FAIL(c, GSIO_ERR_LIMIT, "animation %s is too large", an->name);
		return -1;
	}
	sparse_list l = {.wide = nvals - 1 > 65535, .bytes = bytes};
	l.idx = gsioi_gltf_xmalloc_array(c, nnz, l.wide ? 4 : 2);
	l.val = gsioi_gltf_xmalloc_array(c, nnz, bytes ? 1 : 4);
	int iv = -1, vv = -1;
	if (l.idx && l.val) {
		morph_nonzero(an, ch, kp, nt, sparse_put, &l);
		iv = gsioi_gltf_add_view(c, l.idx, nnz * (l.wide ? 4 : 2), 0);
		vv = iv < 0 ? -1 : gsioi_gltf_add_view(c, l.val, nnz * (bytes ? 1 : 4), 0);
	}
	free(l.idx);
	free(l.val);
	if (vv < 0) return -1;
	cJSON *a = gsioi_gltf_jobj(c), *sp = gsioi_gltf_jobj(c), *si = gsioi_gltf_jobj(c), *sv = gsioi_gltf_jobj(c);
	if (c->sparse_base_view >= 0) gsioi_gltf_jnum(c, a, "bufferView", c->sparse_base_view);
	gsioi_gltf_jnum(c, a, "componentType", bytes ? GLTF_UNSIGNED_BYTE : GLTF_FLOAT);
	if (bytes) cJSON_AddBoolToObject(a, "normalized", 1);
	gsioi_gltf_jnum(c, a, "count", (double)nvals);
	gsioi_gltf_jstr(c, a, "type", "SCALAR");
	gsioi_gltf_jnum(c, sp, "count", (double)nnz);
	gsioi_gltf_jnum(c, si, "bufferView", iv);
	gsioi_gltf_jnum(c, si, "componentType", l.wide ? GLTF_UNSIGNED_INT : GLTF_UNSIGNED_SHORT);
	gsioi_gltf_jnum(c, sv, "bufferView", vv);
	gsioi_gltf_jset(c, sp, "indices", si);
	gsioi_gltf_jset(c, sp, "values", sv);
	gsioi_gltf_jset(c, a, "sparse", sp);
	return gsioi_gltf_jpush(c, c->accessors, a);
}

/** Whether a morph channel of `nt` targets (nvals weights) is written
 *  sparse: when the targets are many (GLTF_DENSE_WEIGHTS_MAX) and that is
 *  smaller, since dense weights grow with the square of the frames. Sets
 *  its non-zero count and whether the values are normalized bytes (the
 *  compact output, weights within [0, 1]). */
static bool weights_sparse(const gltf_ctx *c, const gsio_animation *an, const gsio_channel *ch,
                           const key_plan *kp, size_t nt, size_t nvals, size_t *nnz, bool *u8)
{
	*nnz = 0;
	*u8 = false;
	if (nt <= GLTF_DENSE_WEIGHTS_MAX) return false;
	*nnz = morph_nonzero(an, ch, kp, nt, NULL, NULL);
	bool unit = true;
	for (size_t t = 0; unit && !ch->frames && t < an->frames_count * nt; t++)
		unit = ch->values[t] >= 0 && ch->values[t] <= 1;
	*u8 = c->compact && unit;
	size_t dense = nvals * (*u8 ? 1 : 4), sparse = *nnz * ((nvals - 1 > 65535 ? 4 : 2) + (*u8 ? 1 : 4));
	return *nnz && sparse < dense;
}

/** The output of one channel, in output axes. Returns the accessor, -1 on
 *  failure, -2 when the channel has no glTF counterpart (skipped). */
static int channel_output(gltf_ctx *c, const gsio_animation *an, const gsio_channel *ch,
                          const key_plan *kp, const char **path)
{
	const gsio_scene *s = c->s;
	size_t nf = an->frames_count;
	const gsio_node *node = &s->nodes[ch->node];
	if (ch->path == GSIO_PATH_FOV) return -2; // camera extras
	if (ch->path == GSIO_PATH_MORPH) {
		if (node->mesh < 0 || !c->mesh_targets[node->mesh]) return -2; // static mesh
		size_t nt = (size_t)c->mesh_targets[node->mesh], nvals;
		if (!gsioi_gltf_mul_size(kp->keys, nt, &nvals)) {
			FAIL(c, GSIO_ERR_LIMIT, "animation %s is too large", an->name);
			return -1;
		}
		*path = "weights";
		size_t bytes;
		if (!gsioi_gltf_mul_size(nvals, sizeof(float), &bytes)) {
			FAIL(c, GSIO_ERR_LIMIT, "animation %s is too large", an->name);
			return -1;
		}
		size_t nnz;
		bool u8;
		if (weights_sparse(c, an, ch, kp, nt, nvals, &nnz, &u8))
			return sparse_weights(c, an, ch, kp, nt, nvals, nnz, u8);
		// As floats, straight into the binary buffer when it holds them in
		// memory (golem: 213 KB not allocated, cleared and copied again).
		float *room = c->compact ? NULL : gsioi_gltf_view_room(c, bytes);
		if (room) {
			morph_weights(an, ch, kp, nt, room);
			int view = gsioi_gltf_add_claimed_view(c, bytes, 0);
			return view < 0 ? -1 : gsioi_gltf_float_accessor_json(c, view, nvals, 1, NULL, NULL);
		}
		if (c->bin.failed) return -1;
		float *w = gsioi_gltf_xmalloc_array(c, nvals, sizeof(float));
		if (!w) return -1;
		morph_weights(an, ch, kp, nt, w);
		bool unit = c->compact;
		for (size_t i = 0; unit && i < nvals; i++) unit = w[i] >= 0 && w[i] <= 1;
		int a;
		if (unit) {
			// Compact: normalized UNSIGNED_BYTE weights (core glTF allows
			// them for the weights path); a quarter of the floats' size.
			uint8_t *b = (uint8_t *)w; // in place: byte i is written after float i is read
			for (size_t i = 0; i < nvals; i++) b[i] = (uint8_t)floor((double)w[i] * 255 + 0.5);
			int view = gsioi_gltf_add_view(c, b, nvals, 0);
			a = -1;
			if (view >= 0) {
				cJSON *j = gsioi_gltf_jobj(c);
				gsioi_gltf_jnum(c, j, "bufferView", view);
				gsioi_gltf_jnum(c, j, "componentType", GLTF_UNSIGNED_BYTE);
				cJSON_AddBoolToObject(j, "normalized", 1);
				gsioi_gltf_jnum(c, j, "count", (double)nvals);
				gsioi_gltf_jstr(c, j, "type", "SCALAR");
				a = gsioi_gltf_jpush(c, c->accessors, j);
			}
		} else {
			a = gsioi_gltf_float_accessor(c, w, nvals, 1, false, 0);
		}
		free(w);
		return a;
	}
	int width = ch->path == GSIO_PATH_ROTATION ? 4 : 3;
	float *v = gsioi_gltf_xmalloc_array(c, nf, (size_t)width * sizeof(float));
	if (!v) return -1;
	for (size_t f = 0; f < nf; f++) {
		const float *in = ch->values + f * (size_t)width;
		float *o = v + f * (size_t)width;
		switch (ch->path) {
		case GSIO_PATH_TRANSLATION: xf_pos(c, in, o); break;
		case GSIO_PATH_SCALE: xf_dir(c, in, o); break;
		default:
			gsioi_gltf_node_rotation(c, ch->node, in, o);
			// Keep consecutive keys in one hemisphere: the short way round.
			if (f > 0 && o[0] * o[-4] + o[1] * o[-3] + o[2] * o[-2] + o[3] * o[-1] < 0)
				for (int k = 0; k < 4; k++) o[k] = -o[k];
			break;
		}
	}
	*path = ch->path == GSIO_PATH_TRANSLATION ? "translation"
	        : ch->path == GSIO_PATH_SCALE     ? "scale" : "rotation";
	int a = keyed_accessor(c, kp, v, nf, width);
	free(v);
	return a;
}

bool gsioi_gltf_plan_sparse_base(gltf_ctx *c)
{
	c->sparse_base_view = -1;
	size_t most = 0;
	bool ok = true;
	for (size_t ai = 0; ok && c->animate && ai < c->s->animations_count; ai++) {
		const gsio_animation *an = &c->s->animations[ai];
		key_plan kp = {0};
		ok = plan_keys(c, an, &kp);
		for (size_t k = 0; ok && k < an->channels_count; k++) {
			const gsio_channel *ch = &an->channels[k];
			int mesh = ch->path == GSIO_PATH_MORPH ? c->s->nodes[ch->node].mesh : -1;
			if (mesh < 0 || c->mesh_targets[mesh] <= 0) continue;
			size_t nt = (size_t)c->mesh_targets[mesh], nvals, nnz;
			bool u8;
			if (!gsioi_gltf_mul_size(kp.keys, nt, &nvals) || nvals > SIZE_MAX / 4) continue; // fails later
			if (weights_sparse(c, an, ch, &kp, nt, nvals, &nnz, &u8) && nvals * (u8 ? 1 : 4) > most)
				most = nvals * (u8 ? 1 : 4);
		}
		free(kp.key_of);
		free(kp.cut_before);
	}
	if (!ok || !most || most > GLTF_SPARSE_BASE_MAX) return ok;
	c->sparse_base_view = gsioi_gltf_add_view(c, NULL, most, 0);
	return c->sparse_base_view >= 0;
}

bool gsioi_gltf_write_animation(gltf_ctx *c, size_t ai)
{
	const gsio_animation *an = &c->s->animations[ai];
	char fallback[32];
	snprintf(fallback, sizeof(fallback), "animation%zu", ai);
	const char *name = gsioi_gltf_or_default(an->name, fallback);
	size_t nf = an->frames_count;
	float fps = checked_fps(c, an->fps, name);
	key_plan kp = {0};
	float *times = NULL;
	bool ok = plan_keys(c, an, &kp);
	if (ok) {
		times = gsioi_gltf_xmalloc_array(c, kp.keys, sizeof(float));
		ok = times != NULL;
	}
	if (ok) {
		for (size_t f = 0; f < nf; f++) {
			times[kp.key_of[f]] = (float)((double)f / fps);
			if (kp.cut_before[f]) times[kp.key_of[f] - 1] = (float)(((double)f - 0.01) / fps);
		}
	}
	cJSON *samplers = gsioi_gltf_jarr(c), *channels = gsioi_gltf_jarr(c);
	int input = -1;
	for (size_t k = 0; ok && k < an->channels_count; k++) {
		const char *path = NULL;
		int out = channel_output(c, an, &an->channels[k], &kp, &path);
		if (out == -2) continue;
		if (out < 0) {
			ok = false;
			break;
		}
		if (input < 0) input = gsioi_gltf_float_accessor(c, times, kp.keys, 1, true, 0);
		ok = input >= 0;
		if (ok) add_channel(c, samplers, channels, input, out, an->channels[k].node, path);
	}
	free(kp.key_of);
	free(kp.cut_before);
	free(times);
	if (!ok || !cJSON_GetArraySize(channels)) {
		cJSON_Delete(samplers);
		cJSON_Delete(channels);
		return ok;
	}
	cJSON *a = gsioi_gltf_jobj(c);
	gsioi_gltf_jstr(c, a, "name", name);
	gsioi_gltf_jset(c, a, "channels", channels);
	gsioi_gltf_jset(c, a, "samplers", samplers);
	cJSON *extras = gsioi_gltf_extras_json(c, NULL, &an->extras);
	if (extras) gsioi_gltf_jset(c, a, "extras", extras);
	gsioi_gltf_jadd(c, c->animations, a);
	return true;
}
