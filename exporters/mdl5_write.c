/* scene -> MDL5. The model is built as the codec's gsio_mdl_file (in a work
 * arena) and encoded by gsio_mdl_encode's engine, so the decoder reads back
 * exactly what was built.
 *
 * Steps: every node that places a mesh is one placement (MDL5 holds one
 * mesh: all are merged, in model space, with a warning); the frames come
 * from the morph animations (one frame per key, named after the clip, or the
 * stored names when the clips cover the frames in order, as an MDL import
 * makes them), else from skeletal/node animation baked at a rate, else one
 * rest-pose frame; file vertices are scene vertices that share a source
 * position (and sit on it in every frame), UVs are texels of the first skin;
 * positions are quantised over all frames at once. */
#include "write_internal.h"
#include "gsioi_scene_util.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* One mesh placed by one node. */
typedef struct placement {
	int32_t node;          /**< -1: a mesh no node places (written as is) */
	const gsio_mesh *mesh;
	size_t first;          /**< its first vertex among the merged ones */
} placement;

/* Where the frames come from. */
typedef enum frame_mode { FRAMES_STATIC, FRAMES_MORPH, FRAMES_BAKED } frame_mode;

/* One output frame: for morph frames an animation key (anim -1: mesh frame
 * `key` of every mesh), for baked ones an animation and a time. */
typedef struct frame_spec {
	char name[17];
	int32_t anim;
	size_t key;
	double time;
} frame_spec;

typedef struct wctx {
	const gsio_scene *s;
	const gsio_mdl5_write_opts *o;
	gsioi_warner warner;
	gsio_arena *a;
	gsio_error *err;
	placement *pl;
	size_t pl_count;
	size_t nv;             /**< merged scene vertices */
	frame_mode mode;
	frame_spec *frames;
	size_t frames_count;
	float *pos;            /**< frames_count * nv * 3 */
	float *nrm;            /**< frames_count * nv * 3 */
	float *local;          /**< scratch: 10 floats per node (t, r, s) */
	float *world;          /**< scratch: 16 floats per node */
	float *blend;          /**< scratch: two mesh frames (positions, normals) to blend */
	size_t blend_floats;
} wctx;

// -- Placements

static bool collect_placements(wctx *c)
{
	const gsio_scene *s = c->s;
	size_t n = 0;
	for (size_t i = 0; i < s->nodes_count; i++)
		if (s->nodes[i].mesh >= 0) n++;
	bool orphans = n == 0; // meshes no node places: each written once, as is
	if (orphans) n = s->meshes_count;
	c->pl = GSIO_NEW_ARRAY(c->a, placement, n ? n : 1, c->err);
	GSIO_CHECK(c->pl);
	size_t k = 0;
	for (size_t i = 0; i < (orphans ? s->meshes_count : s->nodes_count); i++) {
		int32_t m = orphans ? (int32_t)i : s->nodes[i].mesh;
		if (m < 0) continue;
		const gsio_mesh *mesh = &s->meshes[m];
		if (!mesh->vertex_count) continue;
		c->pl[k].node = orphans ? -1 : (int32_t)i;
		c->pl[k].mesh = mesh;
		c->pl[k].first = c->nv;
		GSIO_CHECK(gsioi_add_size(c->nv, mesh->vertex_count, &c->nv) ||
		           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "vertex count overflows"));
		k++;
	}
	c->pl_count = k;
	if (!k) return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "the scene has no mesh to write");
	if (k > 1)
		gsioi_wwarn(&c->warner, "%zu mesh placements merged into one mesh (MDL5 holds one)", k);
	return true;
}

// -- Frame plan

static const gsio_channel *morph_channel(const gsio_animation *an, int32_t node)
{
	for (size_t i = 0; i < an->channels_count; i++)
		if (an->channels[i].path == GSIO_PATH_MORPH && an->channels[i].node == node)
			return &an->channels[i];
	return NULL;
}

static bool has_morph_channel(const wctx *c, const gsio_animation *an)
{
	for (size_t p = 0; p < c->pl_count; p++)
		if (c->pl[p].node >= 0 && morph_channel(an, c->pl[p].node)) return true;
	return false;
}

static bool has_node_channel(const gsio_animation *an)
{
	for (size_t i = 0; i < an->channels_count; i++)
		if (an->channels[i].path <= GSIO_PATH_SCALE) return true;
	return false;
}

/* "<stem><index>" within 16 bytes, in CP1252 as the engine reads names
 * (gsioi_text_cp1252): the stem is cut so the index fits. */
static void clip_frame_name(char out[17], const char *stem, size_t index)
{
	char num[24];
	snprintf(num, sizeof(num), "%zu", index);
	size_t ln = strlen(num);
	if (ln > 16) ln = 16;
	gsioi_text_cp1252(out, 17 - ln, stem ? stem : "");
	size_t ls = strlen(out);
	memcpy(out + ls, num, ln);
	out[ls + ln] = 0;
}

static void stored_frame_name(char out[17], const gsio_mesh *m, size_t f)
{
	const char *n = f < m->frames_count ? m->frames[f].name : NULL;
	if (!n || !*n) {
		clip_frame_name(out, "frame", f);
		return;
	}
	gsioi_text_cp1252(out, 17, n);
}

static bool plan_frames(wctx *c)
{
	const gsio_scene *s = c->s;
	const placement *morph_pl = NULL;
	for (size_t p = 0; p < c->pl_count && !morph_pl; p++)
		if (c->pl[p].mesh->frames_count >= 2) morph_pl = &c->pl[p];
	size_t n = 0;
	if (morph_pl) {
		c->mode = FRAMES_MORPH;
		for (size_t i = 0; i < s->animations_count; i++)
			if (has_morph_channel(c, &s->animations[i])) n += s->animations[i].frames_count;
		// Do the clips of the first morph mesh play its frames once each, in
		// order (as an MDL import lays them out)? Then the stored names stay.
		bool in_order = n == morph_pl->mesh->frames_count && morph_pl->node >= 0;
		size_t next = 0;
		for (size_t i = 0; i < s->animations_count && in_order; i++) {
			const gsio_channel *ch = morph_channel(&s->animations[i], morph_pl->node);
			if (!ch) continue;
			for (size_t k = 0; k < s->animations[i].frames_count && in_order; k++)
				in_order = ch->frames && ch->frames[k] == next++;
		}
		if (n == 0 || in_order) {
			// No clip, or clips that are the stored frames: the mesh's frames.
			n = morph_pl->mesh->frames_count;
			c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, n, c->err);
			GSIO_CHECK(c->frames);
			for (size_t f = 0; f < n; f++) {
				c->frames[f].anim = -1;
				c->frames[f].key = f;
				stored_frame_name(c->frames[f].name, morph_pl->mesh, f);
			}
		} else {
			c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, n, c->err);
			GSIO_CHECK(c->frames);
			size_t f = 0;
			for (size_t i = 0; i < s->animations_count; i++) {
				const gsio_animation *an = &s->animations[i];
				if (!has_morph_channel(c, an)) continue;
				for (size_t k = 0; k < an->frames_count; k++, f++) {
					c->frames[f].anim = (int32_t)i;
					c->frames[f].key = k;
					clip_frame_name(c->frames[f].name, an->name, k);
				}
			}
		}
		for (size_t i = 0; i < s->animations_count; i++)
			if (has_node_channel(&s->animations[i])) {
				gsioi_wwarn(&c->warner, "node animation is left out: the model's frames come "
				                        "from its morph animation");
				break;
			}
	} else {
		for (size_t i = 0; i < s->animations_count; i++) {
			const gsio_animation *an = &s->animations[i];
			if (!has_node_channel(an)) continue;
			double fps = c->o->bake_fps > 0 ? (double)c->o->bake_fps : (double)an->fps;
			double dur = (double)(an->frames_count - 1) / (double)an->fps;
			size_t k = (size_t)floor(dur * fps + 1e-6) + 1;
			GSIO_CHECK((gsioi_add_size(n, k, &n) && n <= 1000000) ||
			           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
			                     "baking gives more than a million frames"));
		}
		if (n) {
			c->mode = FRAMES_BAKED;
			c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, n, c->err);
			GSIO_CHECK(c->frames);
			size_t f = 0;
			for (size_t i = 0; i < s->animations_count; i++) {
				const gsio_animation *an = &s->animations[i];
				if (!has_node_channel(an)) continue;
				double fps = c->o->bake_fps > 0 ? (double)c->o->bake_fps : (double)an->fps;
				double dur = (double)(an->frames_count - 1) / (double)an->fps;
				size_t count = (size_t)floor(dur * fps + 1e-6) + 1;
				for (size_t k = 0; k < count; k++, f++) {
					c->frames[f].anim = (int32_t)i;
					c->frames[f].key = k;
					c->frames[f].time = (double)k / fps;
					if (c->frames[f].time > dur) c->frames[f].time = dur;
					clip_frame_name(c->frames[f].name, an->name, k);
				}
				gsioi_wwarn(&c->warner, "animation '%s' baked to %zu frames at %g fps", an->name,
				            count, fps);
			}
		} else {
			c->mode = FRAMES_STATIC;
			n = 1;
			c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, 1, c->err);
			GSIO_CHECK(c->frames);
			c->frames[0].anim = -1;
			stored_frame_name(c->frames[0].name, c->pl[0].mesh, 0);
		}
	}
	c->frames_count = n;
	return true;
}

// -- Posing nodes

static void sample(const gsio_animation *an, const gsio_channel *ch, size_t width, double t,
                   float *out)
{
	double x = t * (double)an->fps;
	size_t last = an->frames_count - 1;
	size_t i0 = x <= 0 ? 0 : (size_t)x;
	if (i0 > last) i0 = last;
	size_t i1 = i0 < last ? i0 + 1 : last;
	float u = (float)(x - (double)i0);
	if (u < 0) u = 0;
	if (u > 1) u = 1;
	for (size_t k = 0; k < an->cuts_count; k++)
		if (an->cuts[k] == i1) u = 0; // a cut jumps: hold the frame before
	const float *a = ch->values + i0 * width, *b = ch->values + i1 * width;
	float sign = 1;
	if (width == 4 && a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0) sign = -1;
	for (size_t k = 0; k < width; k++) out[k] = a[k] + (sign * b[k] - a[k]) * u;
	if (width == 4) gsioi_quat_normalize(out);
}

/* World matrices of every node: the rest pose, with animation `anim` (if
 * >= 0) sampled at time t. */
static void pose_nodes(wctx *c, int32_t anim, double t)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->nodes_count; i++) {
		float *l = c->local + 10 * i;
		memcpy(l, s->nodes[i].translation, 3 * sizeof(float));
		memcpy(l + 3, s->nodes[i].rotation, 4 * sizeof(float));
		memcpy(l + 7, s->nodes[i].scale, 3 * sizeof(float));
	}
	if (anim >= 0) {
		const gsio_animation *an = &s->animations[anim];
		for (size_t i = 0; i < an->channels_count; i++) {
			const gsio_channel *ch = &an->channels[i];
			if (ch->node < 0 || !ch->values) continue;
			float *l = c->local + 10 * (size_t)ch->node;
			if (ch->path == GSIO_PATH_TRANSLATION) sample(an, ch, 3, t, l);
			else if (ch->path == GSIO_PATH_ROTATION) sample(an, ch, 4, t, l + 3);
			else if (ch->path == GSIO_PATH_SCALE) sample(an, ch, 3, t, l + 7);
		}
	}
	for (size_t i = 0; i < s->nodes_count; i++) {
		float m[16];
		const float *l = c->local + 10 * i;
		gsioi_mat4_from_trs(l, l + 3, l + 7, m);
		int32_t p = s->nodes[i].parent;
		if (p >= 0) gsioi_mat4_mul(c->world + 16 * (size_t)p, m, c->world + 16 * i);
		else memcpy(c->world + 16 * i, m, sizeof(m));
	}
}

static void xform_point(const float m[16], const float p[3], float out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

/* Normals go through the inverse transpose (exact for non-uniform scale). */
static void normal_matrix(const float m[16], float out[9])
{
	float inv[16];
	if (gsioi_mat4_invert(m, inv)) {
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++) out[3 * r + k] = m[4 * k + r];
		return;
	}
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++) out[3 * r + k] = inv[4 * r + k]; // (inv^T)[r][k]
}

static void xform_normal(const float nm[9], const float n[3], float out[3])
{
	for (int r = 0; r < 3; r++) out[r] = nm[3 * r] * n[0] + nm[3 * r + 1] * n[1] + nm[3 * r + 2] * n[2];
	float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
	if (len > 0) out[0] /= len, out[1] /= len, out[2] /= len;
}

static bool part_double_sided(const gsio_scene *s, const gsio_mesh_part *pt)
{
	return pt->material >= 0 && (size_t)pt->material < s->materials_count &&
	       s->materials[pt->material].double_sided;
}

// -- Frames

/* Normals from the faces when the mesh has none (area-weighted; the scene's
 * counter-clockwise front faces make them point outward). */
static void face_normals(const gsio_mesh *m, const float *pos, float *nrm)
{
	memset(nrm, 0, m->vertex_count * 3 * sizeof(float));
	for (size_t t = 0; t + 2 < m->index_count; t += 3) {
		const float *a = pos + 3 * m->indices[t], *b = pos + 3 * m->indices[t + 1],
		            *d = pos + 3 * m->indices[t + 2];
		float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
		float e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
		float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
		               e1[0] * e2[1] - e1[1] * e2[0]};
		for (int k = 0; k < 3; k++) {
			nrm[3 * m->indices[t] + (size_t)k] += cr[k];
			nrm[3 * m->indices[t + 1] + (size_t)k] += cr[k];
			nrm[3 * m->indices[t + 2] + (size_t)k] += cr[k];
		}
	}
	for (size_t v = 0; v < m->vertex_count; v++) {
		float *n = nrm + 3 * v;
		float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
		if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
		else n[2] = 1;
	}
}

/* The mesh's own positions/normals for one output frame (model space of its
 * node, before the node's transform). `tp`, `tn`: scratch of its size. */
static bool mesh_frame(wctx *c, const placement *p, const frame_spec *fs, float *tp, float *tn)
{
	const gsio_mesh *m = p->mesh;
	size_t nv = m->vertex_count;
	const float *src_p = m->positions, *src_n = m->normals;
	if (c->mode == FRAMES_MORPH && m->frames_count) {
		size_t f = 0;
		const gsio_channel *ch = NULL;
		if (fs->anim < 0) f = fs->key < m->frames_count ? fs->key : 0;
		else if (p->node >= 0) ch = morph_channel(&c->s->animations[fs->anim], p->node);
		if (ch && ch->frames) f = ch->frames[fs->key];
		if (ch && !ch->frames && ch->values) {
			// Blend weights, as glTF morph weights: frame 0 plus each
			// frame's difference to it, weighted (w[0] adds nothing). Weights
			// that sum to 1 give the same as their weighted sum of frames;
			// others (a shape key at 0.7 from Blender) stay right.
			const float *w = ch->values + fs->key * m->frames_count;
			size_t n3 = nv * 3;
			if (c->blend_floats < 4 * n3) { // frame 0 and frame j, grown once per larger mesh
				GSIO_CHECK((c->blend = GSIO_NEW_ARRAY(c->a, float, 4 * n3, c->err)));
				c->blend_floats = 4 * n3;
			}
			float *f0p = c->blend, *f0n = f0p + n3, *fjp = f0n + n3, *fjn = fjp + n3;
			bool nrm = gsio_mesh_frame_get(m, 0, f0p, f0n) == 1;
			memcpy(tp, f0p, n3 * sizeof(float));
			if (nrm) memcpy(tn, f0n, n3 * sizeof(float));
			for (size_t j = 1; j < m->frames_count; j++) {
				if (w[j] == 0) continue;
				bool jn = gsio_mesh_frame_get(m, j, fjp, fjn) == 1;
				for (size_t i = 0; i < n3; i++) tp[i] += w[j] * (fjp[i] - f0p[i]);
				if (nrm && jn)
					for (size_t i = 0; i < n3; i++) tn[i] += w[j] * (fjn[i] - f0n[i]);
				else nrm = false;
			}
			if (!nrm) {
				face_normals(m, tp, tn);
			} else {
				for (size_t v = 0; v < nv; v++) {
					float *n = tn + 3 * v;
					float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
					if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
					else n[2] = 1;
				}
			}
			return true;
		}
		// Through the accessor: packed frames are expanded one at a time.
		int got = gsio_mesh_frame_get(m, f, tp, tn);
		if (got < 0) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh frame %zu cannot be read", f);
			return false;
		}
		if (got == 0) face_normals(m, tp, tn);
		return true;
	}
	memcpy(tp, src_p, nv * 3 * sizeof(float));
	if (src_n) memcpy(tn, src_n, nv * 3 * sizeof(float));
	else face_normals(m, tp, tn);
	return true;
}

/* Skinning: v' = sum w * (joint world * inverse bind) * v, in model space
 * (the mesh node's own transform is not applied, as in glTF). */
static bool skin_frame(wctx *c, const placement *p, const float *tp, const float *tn, float *op,
                       float *on)
{
	const gsio_mesh *m = p->mesh;
	const gsio_skin *sk = &c->s->skins[m->skin];
	float *jm = GSIO_NEW_ARRAY(c->a, float, sk->joints_count * 16, c->err);
	float *jn = GSIO_NEW_ARRAY(c->a, float, sk->joints_count * 9, c->err);
	GSIO_CHECK(jm && jn);
	for (size_t j = 0; j < sk->joints_count; j++) {
		gsioi_mat4_mul(c->world + 16 * (size_t)sk->joints[j], sk->inverse_bind + 16 * j, jm + 16 * j);
		normal_matrix(jm + 16 * j, jn + 9 * j);
	}
	const gsio_weights *w = &m->weights;
	for (size_t v = 0; v < m->vertex_count; v++) {
		float acc[3] = {0, 0, 0}, nacc[3] = {0, 0, 0}, total = 0;
		for (uint32_t k = w->offsets[v]; k < w->offsets[v + 1]; k++) {
			float x[3], y[3];
			uint32_t j = w->joints[k];
			xform_point(jm + 16 * j, tp + 3 * v, x);
			xform_normal(jn + 9 * j, tn + 3 * v, y);
			for (int i = 0; i < 3; i++) acc[i] += w->values[k] * x[i], nacc[i] += w->values[k] * y[i];
			total += w->values[k];
		}
		if (total > 0) {
			for (int i = 0; i < 3; i++) op[3 * v + (size_t)i] = acc[i] / total;
			float len = sqrtf(nacc[0] * nacc[0] + nacc[1] * nacc[1] + nacc[2] * nacc[2]);
			for (int i = 0; i < 3; i++) on[3 * v + (size_t)i] = len > 0 ? nacc[i] / len : tn[3 * v + (size_t)i];
		} else {
			memcpy(op + 3 * v, tp + 3 * v, 3 * sizeof(float));
			memcpy(on + 3 * v, tn + 3 * v, 3 * sizeof(float));
		}
	}
	return true;
}

static bool build_frames(wctx *c)
{
	const gsio_scene *s = c->s;
	size_t per = 0;
	GSIO_CHECK(gsioi_mul_size(c->nv, 3, &per) ||
	           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "vertex count overflows"));
	c->pos = GSIO_NEW_ARRAY(c->a, float, per * c->frames_count, c->err);
	c->nrm = GSIO_NEW_ARRAY(c->a, float, per * c->frames_count, c->err);
	c->local = GSIO_NEW_ARRAY(c->a, float, s->nodes_count * 10 + 1, c->err);
	c->world = GSIO_NEW_ARRAY(c->a, float, s->nodes_count * 16 + 1, c->err);
	GSIO_CHECK(c->pos && c->nrm && c->local && c->world);
	size_t maxv = 0;
	for (size_t p = 0; p < c->pl_count; p++)
		if (c->pl[p].mesh->vertex_count > maxv) maxv = c->pl[p].mesh->vertex_count;
	float *tp = GSIO_NEW_ARRAY(c->a, float, maxv * 3, c->err);
	float *tn = GSIO_NEW_ARRAY(c->a, float, maxv * 3, c->err);
	GSIO_CHECK(tp && tn);
	bool posed = false;
	for (size_t f = 0; f < c->frames_count; f++) {
		const frame_spec *fs = &c->frames[f];
		if (c->mode == FRAMES_BAKED) pose_nodes(c, fs->anim, fs->time);
		else if (!posed) pose_nodes(c, -1, 0);
		posed = true;
		for (size_t p = 0; p < c->pl_count; p++) {
			const placement *pl = &c->pl[p];
			const gsio_mesh *m = pl->mesh;
			float *op = c->pos + f * per + 3 * pl->first, *on = c->nrm + f * per + 3 * pl->first;
			GSIO_CHECK(mesh_frame(c, pl, fs, tp, tn));
			if (m->skin >= 0 && m->weights.count) {
				GSIO_CHECK(skin_frame(c, pl, tp, tn, op, on));
				continue;
			}
			float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
			const float *wm = pl->node >= 0 ? c->world + 16 * (size_t)pl->node : ident;
			float nm[9];
			normal_matrix(wm, nm);
			for (size_t v = 0; v < m->vertex_count; v++) {
				xform_point(wm, tp + 3 * v, op + 3 * v);
				xform_normal(nm, tn + 3 * v, on + 3 * v);
			}
		}
		for (size_t i = 0; i < per; i++)
			if (!isfinite(c->pos[f * per + i]))
				return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
				                 "frame '%s': a position is not finite after its transforms",
				                 fs->name);
	}
	return true;
}

// -- File vertices and UVs

#define MDL_MAX_INDEX 32768u /* int16 indices: 0..32767 */

/* Scene vertices that share a source position (and the same place in every
 * frame) become one file vertex: the MDL stores positions once and pairs
 * them with UVs per triangle corner. */
static bool weld_positions(wctx *c, uint32_t *file_of, size_t *count)
{
	size_t n = 0, per = c->nv * 3;
	for (size_t p = 0; p < c->pl_count; p++) {
		const gsio_mesh *m = c->pl[p].mesh;
		size_t keys = m->vertex_count;
		if (m->source_vertex)
			for (size_t v = 0; v < m->vertex_count; v++)
				if (m->source_vertex[v] >= keys) keys = (size_t)m->source_vertex[v] + 1;
		uint32_t *rep = GSIO_NEW_ARRAY(c->a, uint32_t, keys, c->err);
		GSIO_CHECK(rep);
		for (size_t k = 0; k < keys; k++) rep[k] = UINT32_MAX;
		for (size_t v = 0; v < m->vertex_count; v++) {
			size_t g = c->pl[p].first + v;
			size_t key = m->source_vertex ? m->source_vertex[v] : v;
			uint32_t r = rep[key];
			bool same = r != UINT32_MAX;
			for (size_t f = 0; same && f < c->frames_count; f++)
				same = !memcmp(c->pos + f * per + 3 * r, c->pos + f * per + 3 * g, 3 * sizeof(float));
			if (same) {
				file_of[g] = file_of[r];
				continue;
			}
			if (r == UINT32_MAX) rep[key] = (uint32_t)g;
			file_of[g] = (uint32_t)n++;
		}
	}
	if (n > MDL_MAX_INDEX)
		return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
		                 "%zu vertices: MDL5 triangles index at most %u (16-bit signed indices)", n,
		                 MDL_MAX_INDEX);
	*count = n;
	return true;
}

/* The file's UV list: for a mesh that came from an MDL (source_uv), one
 * entry per source UV (equal texels stored twice stay two, so the welded
 * vertices come back the same); otherwise distinct texel pairs (an
 * open-addressing table). */
static bool weld_uvs(wctx *c, int32_t tw, int32_t th, uint32_t *uv_of, gsio_mdl_uv **uvs,
                     size_t *count)
{
	size_t cap = 16;
	while (cap < 2 * c->nv) cap *= 2;
	uint32_t *table = GSIO_NEW_ARRAY(c->a, uint32_t, cap, c->err);
	gsio_mdl_uv *list = GSIO_NEW_ARRAY(c->a, gsio_mdl_uv, c->nv + 1, c->err);
	GSIO_CHECK(table && list);
	for (size_t i = 0; i < cap; i++) table[i] = UINT32_MAX;
	size_t n = 0;
	for (size_t p = 0; p < c->pl_count; p++) {
		const gsio_mesh *m = c->pl[p].mesh;
		uint32_t *rep = NULL; // per source UV: its file UV
		if (m->source_uv && m->uvs) {
			size_t keys = 0;
			for (size_t v = 0; v < m->vertex_count; v++)
				if (m->source_uv[v] >= keys) keys = (size_t)m->source_uv[v] + 1;
			GSIO_CHECK((rep = GSIO_NEW_ARRAY(c->a, uint32_t, keys, c->err)));
			for (size_t k = 0; k < keys; k++) rep[k] = UINT32_MAX;
		}
		for (size_t v = 0; v < m->vertex_count; v++) {
			gsio_mdl_uv uv = {0, 0};
			if (m->uvs) {
				// The inverse of the reader's (u + 0.5) / width: texel centres.
				double u = (double)m->uvs[2 * v] * tw - 0.5, w = (double)m->uvs[2 * v + 1] * th - 0.5;
				u = u < -32768 ? -32768 : u > 32767 ? 32767 : u;
				w = w < -32768 ? -32768 : w > 32767 ? 32767 : w;
				uv.u = (int16_t)lround(u);
				uv.v = (int16_t)lround(w);
			}
			if (rep) {
				uint32_t *r = &rep[m->source_uv[v]];
				if (*r == UINT32_MAX || list[*r].u != uv.u || list[*r].v != uv.v) {
					*r = (uint32_t)n;
					list[n++] = uv;
				}
				uv_of[c->pl[p].first + v] = *r;
				continue;
			}
			uint32_t h = ((uint32_t)(uint16_t)uv.u * 2654435761u) ^ ((uint32_t)(uint16_t)uv.v * 40503u);
			size_t i = h & (cap - 1);
			while (table[i] != UINT32_MAX &&
			       (list[table[i]].u != uv.u || list[table[i]].v != uv.v))
				i = (i + 1) & (cap - 1);
			if (table[i] == UINT32_MAX) {
				table[i] = (uint32_t)n;
				list[n++] = uv;
			}
			uv_of[c->pl[p].first + v] = table[i];
		}
	}
	if (n > MDL_MAX_INDEX)
		return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
		                 "%zu distinct UVs: MDL5 triangles index at most %u", n, MDL_MAX_INDEX);
	*uvs = list;
	*count = n;
	return true;
}

// -- Skins

/* One skin per material the mesh parts use (first use first; materials
 * sharing an image share the skin), then one per unused material. */
static bool build_skins(wctx *c, gsio_mdl_file *f)
{
	const gsio_scene *s = c->s;
	int32_t *skin_of_image = GSIO_NEW_ARRAY(c->a, int32_t, s->images_count + 1, c->err);
	int32_t *images = GSIO_NEW_ARRAY(c->a, int32_t, s->materials_count + 1, c->err);
	bool *seen = GSIO_NEW_ARRAY(c->a, bool, s->materials_count + 1, c->err);
	GSIO_CHECK(skin_of_image && images && seen);
	for (size_t i = 0; i < s->images_count; i++) skin_of_image[i] = -1;
	size_t n = 0, used_materials = 0;
	for (size_t p = 0; p < c->pl_count; p++) {
		const gsio_mesh *m = c->pl[p].mesh;
		for (size_t k = 0; k < m->parts_count; k++) {
			int32_t mat = m->parts[k].material;
			if (mat < 0 || seen[mat]) continue;
			seen[mat] = true;
			used_materials++;
			int32_t im = s->materials[mat].base_color_texture.image;
			if (im < 0) continue;
			if (!s->images[im].rgba) {
				gsioi_wwarn(&c->warner, "image '%s' of material '%s' is %s, not pixels: no skin",
				            s->images[im].name ? s->images[im].name : "",
				            s->materials[mat].name ? s->materials[mat].name : "",
				            s->images[im].file_data ? "an undecoded file (GSIO_OPT_NO_PIXELS)"
				                                    : "a file reference");
				continue;
			}
			if (skin_of_image[im] >= 0) continue;
			skin_of_image[im] = (int32_t)n;
			images[n++] = im;
		}
	}
	// Then the materials no part uses (an MDL's alternative skins, which the
	// engine can switch to): kept as further skins.
	for (size_t mat = 0; mat < s->materials_count; mat++) {
		int32_t im = s->materials[mat].base_color_texture.image;
		if (seen[mat] || im < 0 || !s->images[im].rgba || skin_of_image[im] >= 0) continue;
		skin_of_image[im] = (int32_t)n;
		images[n++] = im;
	}
	if (used_materials > 1)
		gsioi_wwarn(&c->warner, "%zu materials: one skin per material (%zu skins); MDL5 draws the "
		                        "whole model with one skin at a time", used_materials, n);
	f->skins = GSIO_NEW_ARRAY(c->a, gsio_mdl_skin, n + 1, c->err);
	GSIO_CHECK(f->skins);
	gsioi_skin_opts so = {c->o->skin_encoding, c->o->palette, c->o->dither, c->o->mipmaps,
	                      c->o->max_skin_size};
	for (size_t i = 0; i < n; i++)
		GSIO_CHECK(gsioi_skin_encode(c->a, &s->images[images[i]], &so, &c->warner, &f->skins[i], c->err));
	f->skins_count = n;
	return true;
}

// -- The file

static bool build_file(wctx *c, gsio_mdl_file *f)
{
	gsio_mdl_header *h = &f->header;
	memcpy(h->version, "MDL5", 4);
	f->version = 5;
	GSIO_CHECK(build_skins(c, f));

	uint32_t *file_of = GSIO_NEW_ARRAY(c->a, uint32_t, c->nv, c->err);
	uint32_t *uv_of = GSIO_NEW_ARRAY(c->a, uint32_t, c->nv, c->err);
	GSIO_CHECK(file_of && uv_of);
	size_t nverts = 0;
	GSIO_CHECK(weld_positions(c, file_of, &nverts));
	// UVs count in texels of the first skin; without one, of a nominal 256 x 256
	// stored in the header (where MDL3/4 keep the skin size, and readers look).
	int32_t tw = f->skins_count ? f->skins[0].width : 256, th = f->skins_count ? f->skins[0].height : 256;
	if (!f->skins_count) h->skinwidth = tw, h->skinheight = th;
	GSIO_CHECK(weld_uvs(c, tw, th, uv_of, &f->uvs, &f->uvs_count));

	// A part drawn with a double-sided material (a face the importer folded
	// from a pair stored once each way round) is written both ways round
	// again: MDL has no double-sided flag.
	size_t ntris = 0;
	for (size_t p = 0; p < c->pl_count; p++) {
		const gsio_mesh *m = c->pl[p].mesh;
		for (size_t k = 0; k < m->parts_count; k++)
			ntris += (m->parts[k].index_count / 3) * (part_double_sided(c->s, &m->parts[k]) ? 2 : 1);
	}
	if (ntris > INT32_MAX)
		return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "%zu triangles", ntris);
	f->triangles = GSIO_NEW_ARRAY(c->a, gsio_mdl_triangle, ntris + 1, c->err);
	GSIO_CHECK(f->triangles);
	size_t t = 0;
	for (size_t p = 0; p < c->pl_count; p++) {
		const gsio_mesh *m = c->pl[p].mesh;
		for (size_t k = 0; k < m->parts_count; k++) {
			const gsio_mesh_part *pt = &m->parts[k];
			int sides = part_double_sided(c->s, pt) ? 2 : 1;
			for (size_t i = pt->first_index; i + 2 < pt->first_index + pt->index_count; i += 3)
				for (int side = 0; side < sides; side++, t++) {
					// Counter-clockwise in the scene, clockwise in the file: swap
					// 1 and 2 (the back side keeps the scene's order).
					static const int order[2][3] = {{0, 2, 1}, {0, 1, 2}};
					for (int j = 0; j < 3; j++) {
						size_t g = c->pl[p].first + m->indices[i + (size_t)order[side][j]];
						f->triangles[t].xyz[j] = (int16_t)file_of[g];
						f->triangles[t].uv[j] = (int16_t)uv_of[g];
					}
				}
		}
	}
	f->triangles_count = ntris;

	// Positions: one scale and offset per axis over every frame (the range
	// spread over all raw values minimises the largest error).
	bool bytes = c->o->byte_frames;
	unsigned qmax = bytes ? 255u : 65535u;
	size_t per = c->nv * 3, total = per * c->frames_count;
	double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < total; i++) {
		double x = c->pos[i];
		if (x < lo[i % 3]) lo[i % 3] = x;
		if (x > hi[i % 3]) hi[i % 3] = x;
	}
	double r2 = 0;
	for (size_t i = 0; i < c->nv; i++) {
		const float *q = c->pos + 3 * i;
		double d = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2];
		if (d > r2) r2 = d;
	}
	for (int k = 0; k < 3; k++) gsioi_quant_fit(lo[k], hi[k], qmax, &h->scale[k], &h->offset[k]);
	h->radius = (float)sqrt(r2);
	f->frames = GSIO_NEW_ARRAY(c->a, gsio_mdl_frame, c->frames_count, c->err);
	GSIO_CHECK(f->frames);
	for (size_t fi = 0; fi < c->frames_count; fi++) {
		gsio_mdl_frame *fr = &f->frames[fi];
		fr->type = bytes ? GSIO_MDL_FRAME_BYTE : GSIO_MDL_FRAME_WORD;
		memcpy(fr->name, c->frames[fi].name, strlen(c->frames[fi].name)); // rest zero
		fr->verts = GSIO_NEW_ARRAY(c->a, gsio_mdl_vertex, nverts, c->err);
		GSIO_CHECK(fr->verts);
		const float *pos = c->pos + fi * per, *nrm = c->nrm + fi * per;
		for (size_t g = 0; g < c->nv; g++) {
			gsio_mdl_vertex *v = &fr->verts[file_of[g]];
			for (int k = 0; k < 3; k++)
				v->pos[k] = (uint16_t)gsioi_quant(pos[3 * g + (size_t)k], h->scale[k], h->offset[k], qmax);
			v->normal = gsioi_normal_index(nrm + 3 * g);
		}
		for (int k = 0; k < 3; k++) {
			fr->bbox_min.pos[k] = (uint16_t)qmax;
			fr->bbox_max.pos[k] = 0;
		}
		for (size_t v = 0; v < nverts; v++)
			for (int k = 0; k < 3; k++) {
				if (fr->verts[v].pos[k] < fr->bbox_min.pos[k]) fr->bbox_min.pos[k] = fr->verts[v].pos[k];
				if (fr->verts[v].pos[k] > fr->bbox_max.pos[k]) fr->bbox_max.pos[k] = fr->verts[v].pos[k];
			}
	}
	f->frames_count = c->frames_count;
	h->numskins = (int32_t)f->skins_count;
	h->numverts = (int32_t)nverts;
	h->numtris = (int32_t)f->triangles_count;
	h->numframes = (int32_t)f->frames_count;
	h->numskinverts = (int32_t)f->uvs_count;
	return true;
}

// -- Entry points

int gsio_mdl5_write(const gsio_scene *scene, const gsio_mdl5_write_opts *opts, uint8_t **out,
                    size_t *out_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (gsioi_write_start(scene, out, out_size, err)) return -1;
	static const gsio_mdl5_write_opts defaults;
	if (!opts) opts = &defaults;
	wctx c = {0};
	c.s = scene;
	c.o = opts;
	c.warner.fn = opts->warn;
	c.warner.user = opts->warn_user;
	c.err = err;
	if (!(c.a = gsioi_write_arena(opts->allocator, opts->memory_limit, err))) return -1;
	gsio_mdl_file *f = GSIO_NEW_ARRAY(c.a, gsio_mdl_file, 1, err);
	gsio_scene expanded; // terrains kept as grids, expanded for the writer
	int rc = -1;
	if (f && gsioi_scene_expand_grids(scene, c.a, &expanded, &c.s, err) && collect_placements(&c) && plan_frames(&c) && build_frames(&c) && build_file(&c, f))
		rc = gsioi_mdl_encode_with(f, opts->allocator, opts->memory_limit, out, out_size, err);
	gsioi_arena_destroy(c.a);
	return rc;
}

int gsio_mdl5_write_file(const gsio_scene *scene, const char *path,
                         const gsio_mdl5_write_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	uint8_t *data = NULL;
	size_t size = 0;
	int rc = gsio_mdl5_write(scene, opts, &data, &size, err);
	return gsioi_write_finish(rc, path, data, size, opts && opts->no_replace,
	                          opts ? opts->allocator : NULL, err);
}
