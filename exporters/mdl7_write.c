/* scene -> MDL7 (A7/A8 models with bones). The model is built as the codec's
 * gsio_mdl7_file (in a work arena) and encoded by the codec
 * (gsioi_mdl7_encode_with), so the decoder reads back exactly what was built.
 *
 * Decisions (docs/DESIGN.md, "Writing MDL7"; layout in docs/FORMATS.md §5):
 * - The A8 layout of the game's files: 36-byte bones, 26-byte triangles
 *   (the second skin set empty), 26-byte vertices with float normals
 *   (stored inward), 26-byte frame vertices, 68-byte bone matrices.
 * - One group per mesh placement (a node placing a mesh; every mesh when no
 *   node places one). Groups are not split by material: an MDL7 triangle
 *   names its own material, and materials are global, so every skin goes
 *   into group 0 (as PhosphoricAcid keeps its three).
 * - Bones: the joints of the placed meshes' skins, in skin order; a bone's
 *   parent is its nearest ancestor node that is a bone; its bind position is
 *   the translation of its inverse bind's inverse. A joint that never moves,
 *   sits at the origin with an identity inverse bind, has no child joint and
 *   carries only whole vertices (an MDL7 import's "unskinned" joint) is no
 *   bone: its vertices get bone 0xFFFF.
 * - Bone matrix of bone b in a frame: A_b = S_parent^-1 S_b, with S the
 *   skinning transform (joint world x inverse bind, glTF's rule), stored
 *   row-vector (the column-major A's 16 floats): the reader's composition
 *   S_b = S_parent A_b gives S back (docs/FORMATS.md §5.10).
 * - Frames: one per key of every animation (or resampled at bake_fps),
 *   named "<clip><k>" (the stored names when the clips play an imported
 *   mesh's frames once each in order); a frame lists the bone matrices
 *   (groups with bound vertices) and the file vertices whose position or
 *   normal differs from the main vertices (morph frames, unskinned meshes
 *   moved by node animation): partial frames, full when every vertex moves. */
#include "write_internal.h"
#include "gsio_mdl7.h"
#include "gsioi_image_file.h"
#include "gsioi_scene_util.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NONE16 0xFFFFu
#define DEFAULT_MAX_WEIGHTS 4u
#define MAX_WEIGHTS_STORED 127u /* the group header's i8 */
#define DEFAULT_MAX_SKIN 16384u /* the reader's limit */
#define BONE_NAME_BYTES 20
#define GROUP_HEADER 44
#define SKIN_HEADER 28
#define TRI_SIZE 26
#define VERT_SIZE 26
#define MATRIX_SIZE 68
#define FRAME_HEADER 24
#define MATERIAL_SIZE 68

typedef struct placement {
	int32_t node;              /**< -1: a mesh no node places */
	const gsio_mesh *mesh;
	bool skinned;              /**< has weights and a skin */
	uint32_t *file_of;         /**< per scene vertex: its file vertex */
	size_t nfile;
	uint32_t *rep_of;          /**< per file vertex: a scene vertex showing it */
	uint8_t *nw;               /**< per scene vertex: weights kept */
	uint32_t *wb;              /**< per scene vertex: max_w bones */
	float *ww;                 /**< and their weights */
} placement;

typedef struct frame_spec {
	char name[17];
	int32_t anim;              /**< -1: mesh frame `key` (or the rest pose, static) */
	size_t key;
	double x;                  /**< position in the animation's keys */
} frame_spec;

typedef struct wctx {
	const gsio_scene *s;
	const gsio_mdl7_write_opts *o;
	gsioi_warner warner;
	gsio_arena *a;
	gsio_error *err;
	placement *pl;
	size_t pl_count;
	uint32_t max_w;
	// bones
	size_t nb;
	int32_t *bone_node;        /**< per bone: node */
	int32_t *bone_parent;      /**< per bone: parent bone or -1 */
	double *ib;                /**< per bone: 16, the inverse bind used */
	int32_t *bone_of_node;     /**< per node: bone or -1 */
	int32_t **joint_bone;      /**< per skin: per joint its bone (-1: none) */
	float *S;                  /**< frames * nb * 16: skinning transforms */
	// frames
	frame_spec *frames;
	size_t frames_count;
	float *local, *world;
	float *blend;
	size_t blend_floats;
	// materials
	int32_t *skin_of_mat;
	size_t skins_count;
	int32_t default_skin;      /**< for parts without a material, -1 if none */
	const gsio_mdl7_file *file; /**< its bones once named */
} wctx;

// -- Double-precision affine matrices (column-major)

static void dmat_from(const float *f, double *d)
{
	for (int i = 0; i < 16; i++) d[i] = f[i];
}

static void dmat_mul(const double *a, const double *b, double *out)
{
	double r[16];
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 4; k++)
			r[4 * c + k] = a[k] * b[4 * c] + a[4 + k] * b[4 * c + 1] + a[8 + k] * b[4 * c + 2] +
			               a[12 + k] * b[4 * c + 3];
	memcpy(out, r, sizeof(r));
}

/* Inverse of an affine matrix; false when singular. */
static bool dmat_invert(const double *m, double *out)
{
	double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
	double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
	double det = a * A + b * B + c * C;
	if (!isfinite(det) || fabs(det) < 1e-300) return false;
	double r[16] = {0};
	r[0] = A / det, r[4] = -(b * i - c * h) / det, r[8] = (b * f - c * e) / det;
	r[1] = B / det, r[5] = (a * i - c * g) / det, r[9] = -(a * f - c * d) / det;
	r[2] = C / det, r[6] = -(a * h - b * g) / det, r[10] = (a * e - b * d) / det;
	for (int k = 0; k < 3; k++) r[12 + k] = -(r[k] * m[12] + r[4 + k] * m[13] + r[8 + k] * m[14]);
	r[15] = 1;
	memcpy(out, r, sizeof(r));
	return true;
}

static bool dmat_near_identity(const double *m, double tol)
{
	for (int i = 0; i < 16; i++)
		if (fabs(m[i] - (i % 5 == 0 ? 1.0 : 0.0)) > tol) return false;
	return true;
}

// -- Placements

static bool collect_placements(wctx *c)
{
	const gsio_scene *s = c->s;
	size_t n = 0;
	for (size_t i = 0; i < s->nodes_count; i++)
		if (s->nodes[i].mesh >= 0 && s->meshes[s->nodes[i].mesh].vertex_count) n++;
	bool orphans = n == 0;
	if (orphans) n = s->meshes_count;
	GSIO_CHECK((c->pl = GSIO_NEW_ARRAY(c->a, placement, n + 1, c->err)));
	size_t k = 0;
	for (size_t i = 0; i < (orphans ? s->meshes_count : s->nodes_count); i++) {
		int32_t m = orphans ? (int32_t)i : s->nodes[i].mesh;
		if (m < 0 || !s->meshes[m].vertex_count || !s->meshes[m].index_count) continue;
		placement *p = &c->pl[k++];
		p->node = orphans ? -1 : (int32_t)i;
		p->mesh = &s->meshes[m];
		p->skinned = p->mesh->skin >= 0 && p->mesh->weights.count;
	}
	c->pl_count = k;
	if (!k) return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "the scene has no mesh to write");
	if (k > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "%zu groups", k);
	return true;
}

// -- Frame plan

static bool anim_relevant(const wctx *c, const gsio_animation *an)
{
	if (gsioi_has_node_channel(an)) return true;
	for (size_t p = 0; p < c->pl_count; p++)
		if (c->pl[p].node >= 0 && gsioi_morph_channel(an, c->pl[p].node)) return true;
	return false;
}

static size_t anim_frames(const wctx *c, const gsio_animation *an)
{
	if (!(c->o->bake_fps > 0)) return an->frames_count;
	double dur = (double)(an->frames_count - 1) / (double)an->fps;
	return (size_t)floor(dur * (double)c->o->bake_fps + 1e-6) + 1;
}

/* "<clip><k>", with a '_' between when the clip name ends in a digit (the
 * reader cuts the trailing digits and the separators before them: "run2_0"
 * gives the clip "run2" back, "run20" would give "run"). */
static void clip_frame_name(char out[17], const char *clip, size_t k)
{
	char stem[64];
	size_t n = clip ? strlen(clip) : 0;
	if (n > 40) n = 40;
	snprintf(stem, sizeof(stem), "%.*s%s", (int)n, clip ? clip : "",
	         n && clip[n - 1] >= '0' && clip[n - 1] <= '9' ? "_" : "");
	gsioi_clip_frame_name(out, stem, k);
}

static bool plan_frames(wctx *c)
{
	const gsio_scene *s = c->s;
	const placement *morph_pl = NULL;
	for (size_t p = 0; p < c->pl_count && !morph_pl; p++)
		if (c->pl[p].mesh->frames_count >= 2) morph_pl = &c->pl[p];
	size_t n = 0;
	for (size_t i = 0; i < s->animations_count; i++)
		if (anim_relevant(c, &s->animations[i]))
			GSIO_CHECK((gsioi_add_size(n, anim_frames(c, &s->animations[i]), &n) && n <= 1000000) ||
			           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "more than a million frames"));
	// Clips that play an imported mesh's frames once each, in order, keep
	// the stored frame names.
	bool in_order = n && morph_pl && morph_pl->node >= 0 && !(c->o->bake_fps > 0) &&
	                n == morph_pl->mesh->frames_count;
	size_t next = 0;
	for (size_t i = 0; i < s->animations_count && in_order; i++) {
		const gsio_animation *an = &s->animations[i];
		if (!anim_relevant(c, an)) continue;
		const gsio_channel *ch = gsioi_morph_channel(an, morph_pl->node);
		for (size_t k = 0; k < an->frames_count && in_order; k++)
			in_order = ch && ch->frames && ch->frames[k] == next++;
	}
	if (!n) { // no animation: the mesh's frames, or the rest pose
		n = morph_pl ? morph_pl->mesh->frames_count : 1;
		GSIO_CHECK((c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, n, c->err)));
		for (size_t f = 0; f < n; f++) {
			c->frames[f].anim = -1;
			c->frames[f].key = f;
			gsioi_stored_frame_name(c->frames[f].name, morph_pl ? morph_pl->mesh : c->pl[0].mesh, f, "Frame");
		}
		c->frames_count = n;
		return true;
	}
	GSIO_CHECK((c->frames = GSIO_NEW_ARRAY(c->a, frame_spec, n, c->err)));
	size_t f = 0;
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *an = &s->animations[i];
		if (!anim_relevant(c, an)) continue;
		size_t count = anim_frames(c, an);
		for (size_t k = 0; k < count; k++, f++) {
			frame_spec *fs = &c->frames[f];
			fs->anim = (int32_t)i;
			fs->key = k;
			fs->x = (double)k;
			if (c->o->bake_fps > 0) {
				fs->x = (double)k * (double)an->fps / (double)c->o->bake_fps;
				if (fs->x > (double)(an->frames_count - 1)) fs->x = (double)(an->frames_count - 1);
			}
			if (in_order) gsioi_stored_frame_name(fs->name, morph_pl->mesh, f, "Frame");
			else clip_frame_name(fs->name, an->name, k);
		}
	}
	c->frames_count = n;
	return true;
}

// -- Bones

static void pose_frame(wctx *c, const struct frame_spec *fs);

/* Skinning transforms of every candidate bone at every frame (and whether
 * each ever moves). */
static bool skin_transforms(wctx *c, bool *moves)
{
	size_t nb = c->nb, per = 0;
	GSIO_CHECK(gsioi_mul_size(nb, 16, &per) ||
	           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "too many bones"));
	size_t total = 0;
	GSIO_CHECK(gsioi_mul_size(per, c->frames_count, &total) ||
	           GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "too many bone matrices"));
	GSIO_CHECK((c->S = GSIO_NEW_ARRAY_UNINIT(c->a, float, total + 1, c->err)));
	for (size_t f = 0; f < c->frames_count; f++) {
		const frame_spec *fs = &c->frames[f];
		gsioi_pose_nodes(c->s, fs->anim, fs->x, c->local, c->world);
		for (size_t b = 0; b < nb; b++) {
			double w[16], S[16];
			dmat_from(c->world + 16 * (size_t)c->bone_node[b], w);
			dmat_mul(w, c->ib + 16 * b, S);
			float *o = c->S + f * per + 16 * b;
			for (int k = 0; k < 16; k++) o[k] = (float)S[k];
			if (!gsioi_floats_finite(o, 16))
				return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
				                 "frame '%s': bone %zu's transform is not finite", fs->name, b);
			if (!dmat_near_identity(S, 1e-6)) moves[b] = true;
		}
	}
	return true;
}

/* The weights of a scene vertex as bones, strongest first (ties in stored
 * order), at most max_w; when some are cut the kept ones are scaled to the
 * total of all. sb, sw: scratch of the vertex's weight count. True when
 * some were cut. */
static bool vertex_weights(wctx *c, const placement *p, size_t v, uint32_t *sb, float *sw,
                           uint32_t *wb, float *ww, uint8_t *nw)
{
	const gsio_weights *w = &p->mesh->weights;
	const int32_t *jb = c->joint_bone[p->mesh->skin];
	size_t n = 0;
	double all = 0, kept = 0;
	for (uint32_t k = w->offsets[v]; k < w->offsets[v + 1]; k++) {
		int32_t b = jb[w->joints[k]];
		float x = w->values[k];
		if (b < 0 || !(x > 0)) continue;
		all += x;
		size_t at = n++;
		for (; at > 0 && sw[at - 1] < x; at--) {
			sw[at] = sw[at - 1];
			sb[at] = sb[at - 1];
		}
		sw[at] = x;
		sb[at] = (uint32_t)b;
	}
	size_t keep = n < c->max_w ? n : c->max_w;
	for (size_t k = 0; k < keep; k++) kept += sw[k];
	for (size_t k = 0; k < keep; k++) {
		wb[k] = sb[k];
		ww[k] = n > keep && kept > 0 ? (float)(sw[k] * all / kept) : sw[k];
	}
	*nw = (uint8_t)keep;
	return n > keep;
}

static bool collect_bones(wctx *c)
{
	const gsio_scene *s = c->s;
	GSIO_CHECK((c->bone_of_node = GSIO_NEW_ARRAY(c->a, int32_t, s->nodes_count + 1, c->err)));
	GSIO_CHECK((c->joint_bone = GSIO_NEW_ARRAY(c->a, int32_t *, s->skins_count + 1, c->err)));
	for (size_t i = 0; i < s->nodes_count; i++) c->bone_of_node[i] = -1;
	size_t cand = 0;
	for (size_t i = 0; i < s->skins_count; i++) cand += s->skins[i].joints_count;
	c->bone_node = GSIO_NEW_ARRAY(c->a, int32_t, cand + 1, c->err);
	c->bone_parent = GSIO_NEW_ARRAY(c->a, int32_t, cand + 1, c->err);
	c->ib = GSIO_NEW_ARRAY(c->a, double, 16 * cand + 1, c->err);
	GSIO_CHECK(c->bone_node && c->bone_parent && c->ib);
	size_t mismatched = 0;
	for (size_t p = 0; p < c->pl_count; p++) {
		if (!c->pl[p].skinned) continue;
		int32_t si = c->pl[p].mesh->skin;
		const gsio_skin *sk = &s->skins[si];
		if (c->joint_bone[si]) continue;
		GSIO_CHECK((c->joint_bone[si] = GSIO_NEW_ARRAY(c->a, int32_t, sk->joints_count + 1, c->err)));
		for (size_t j = 0; j < sk->joints_count; j++) {
			int32_t node = sk->joints[j];
			int32_t b = c->bone_of_node[node];
			if (b < 0) {
				b = (int32_t)c->nb++;
				c->bone_of_node[node] = b;
				c->bone_node[b] = node;
				dmat_from(sk->inverse_bind + 16 * j, c->ib + 16 * (size_t)b);
			} else {
				double o[16];
				dmat_from(sk->inverse_bind + 16 * j, o);
				for (int k = 0; k < 16; k++)
					if (fabs(o[k] - c->ib[16 * (size_t)b + (size_t)k]) > 1e-5) {
						mismatched++;
						break;
					}
			}
			c->joint_bone[si][j] = b;
		}
	}
	if (mismatched)
		gsioi_wwarn(&c->warner, "%zu joints are bound with different inverse binds by different skins: "
		                        "the first skin's is used", mismatched);
	return true;
}

static void bone_parents(wctx *c, const bool *keep)
{
	for (size_t b = 0; b < c->nb; b++) {
		c->bone_parent[b] = -1;
		for (int32_t p = c->s->nodes[c->bone_node[b]].parent; p >= 0; p = c->s->nodes[p].parent) {
			int32_t pb = c->bone_of_node[p];
			if (pb >= 0 && (!keep || keep[pb])) {
				c->bone_parent[b] = pb;
				break;
			}
		}
	}
}

/* Drops the joints that are no bones (see the top), renumbering the rest,
 * and checks the count. */
static bool prune_bones(wctx *c)
{
	size_t nb = c->nb;
	if (!nb) return true;
	bool *moves = GSIO_NEW_ARRAY(c->a, bool, nb, c->err);
	bool *keep = GSIO_NEW_ARRAY(c->a, bool, nb, c->err);
	bool *parent = GSIO_NEW_ARRAY(c->a, bool, nb, c->err);
	bool *shared = GSIO_NEW_ARRAY(c->a, bool, nb, c->err);
	int32_t *renum = GSIO_NEW_ARRAY(c->a, int32_t, nb, c->err);
	GSIO_CHECK(moves && keep && parent && shared && renum);
	GSIO_CHECK(skin_transforms(c, moves));
	bone_parents(c, NULL);
	for (size_t b = 0; b < nb; b++)
		if (c->bone_parent[b] >= 0) parent[c->bone_parent[b]] = true;
	for (size_t p = 0; p < c->pl_count; p++) {
		const placement *pl = &c->pl[p];
		if (!pl->skinned) continue;
		const gsio_weights *w = &pl->mesh->weights;
		const int32_t *jb = c->joint_bone[pl->mesh->skin];
		for (size_t v = 0; v < pl->mesh->vertex_count; v++) {
			bool whole = w->offsets[v + 1] - w->offsets[v] == 1;
			for (uint32_t k = w->offsets[v]; k < w->offsets[v + 1]; k++)
				if (!whole || w->values[k] != 1.0f) shared[jb[w->joints[k]]] = true;
		}
	}
	size_t kept = 0;
	for (size_t b = 0; b < nb; b++) {
		const gsio_extra *x = gsio_extras_get(&c->s->nodes[c->bone_node[b]].extras, "gsio:unskinned");
		bool unskinned = x && x->type == GSIO_EXTRA_INT && x->i;
		keep[b] = moves[b] || parent[b] || shared[b] || !unskinned;
		renum[b] = keep[b] ? (int32_t)kept++ : -1;
	}
	if (kept > GSIO_MDL7_MAX_BONES)
		return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
		                 "%zu bones: an MDL7 holds at most %u (16-bit bone numbers)", kept,
		                 GSIO_MDL7_MAX_BONES);
	if (kept == nb) {
		bone_parents(c, NULL);
		return true;
	}
	// Compact the arrays (the frames' transforms too).
	bone_parents(c, keep);
	for (size_t b = 0; b < nb; b++) {
		if (!keep[b]) {
			c->bone_of_node[c->bone_node[b]] = -1;
			continue;
		}
		size_t to = (size_t)renum[b];
		c->bone_node[to] = c->bone_node[b];
		c->bone_parent[to] = c->bone_parent[b] >= 0 ? renum[c->bone_parent[b]] : -1;
		memmove(c->ib + 16 * to, c->ib + 16 * b, 16 * sizeof(double));
		c->bone_of_node[c->bone_node[to]] = (int32_t)to;
	}
	for (size_t f = 0; f < c->frames_count; f++)
		for (size_t b = 0; b < nb; b++)
			if (keep[b])
				memmove(c->S + (f * kept + (size_t)renum[b]) * 16, c->S + (f * nb + b) * 16,
				        16 * sizeof(float));
	for (size_t i = 0; i < c->s->skins_count; i++)
		if (c->joint_bone[i])
			for (size_t j = 0; j < c->s->skins[i].joints_count; j++)
				if (c->joint_bone[i][j] >= 0) c->joint_bone[i][j] = renum[c->joint_bone[i][j]];
	c->nb = kept;
	return true;
}

/* Bone names cut to 19 bytes and a NUL; a name met before gets "~N" at its
 * end (warned when cutting made it so). */
static void bone_names(wctx *c, gsio_mdl7_file *f)
{
	size_t collided = 0;
	for (size_t b = 0; b < c->nb; b++) {
		const char *nm = c->s->nodes[c->bone_node[b]].name;
		char *out = f->bones[b].name;
		if (nm && *nm) gsioi_name_field(out, BONE_NAME_BYTES - 1, nm);
		else snprintf(out, BONE_NAME_BYTES, "bone%u", (unsigned)b);
		for (unsigned n = 2;; n++) {
			bool clash = false;
			for (size_t o = 0; o < b && !clash; o++) clash = !strcmp(f->bones[o].name, out);
			if (!clash) break;
			if (n == 2 && nm && strlen(nm) >= BONE_NAME_BYTES) collided++;
			char suffix[16];
			int ls = snprintf(suffix, sizeof(suffix), "~%u", n);
			size_t at = strlen(out);
			if (at > (size_t)(BONE_NAME_BYTES - 1 - ls)) at = (size_t)(BONE_NAME_BYTES - 1 - ls);
			memcpy(out + at, suffix, (size_t)ls + 1);
		}
	}
	if (collided)
		gsioi_wwarn(&c->warner, "%zu bone names are longer than MDL7's %d bytes and collide once cut: "
		                        "made unique with ~N", collided, BONE_NAME_BYTES - 1);
}

// -- Poses of a group

/* Scene-vertex positions and outward normals of placement p in frame fs
 * (NULL: the rest pose), in model space; skinned meshes before skinning.
 * c->world must hold the pose of fs. */
static bool group_pose(wctx *c, const placement *p, const frame_spec *fs, float *tp, float *tn)
{
	const gsio_mesh *m = p->mesh;
	size_t nv = m->vertex_count;
	bool got = false;
	if (fs && m->frames_count) {
		const gsio_channel *ch = NULL;
		size_t f = 0;
		if (fs->anim < 0) f = fs->key < m->frames_count ? fs->key : 0;
		else if (p->node >= 0) ch = gsioi_morph_channel(&c->s->animations[fs->anim], p->node);
		size_t key = (size_t)lround(fs->x);
		if (ch && ch->frames) f = ch->frames[key];
		if (ch && !ch->frames && ch->values) {
			size_t need = 12 * nv;
			if (c->blend_floats < need) {
				GSIO_CHECK((c->blend = GSIO_NEW_ARRAY_UNINIT(c->a, float, need, c->err)));
				c->blend_floats = need;
			}
			gsioi_morph_blend(m, ch->values + key * m->frames_count, c->blend, tp, tn);
			got = true;
		} else {
			int r = gsio_mesh_frame_get(m, f < m->frames_count ? f : 0, tp, tn);
			if (r < 0) return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh frame %zu cannot be read", f);
			if (r == 0) gsioi_face_normals(m, tp, tn);
			got = true;
		}
	}
	if (!got) {
		int r = m->frames_count ? gsio_mesh_frame_get(m, 0, tp, tn) : -1;
		if (r < 0) {
			memcpy(tp, m->positions, 3 * nv * sizeof(float));
			r = m->normals ? 1 : 0;
			if (r) memcpy(tn, m->normals, 3 * nv * sizeof(float));
		}
		if (r == 0) gsioi_face_normals(m, tp, tn);
	}
	if (!p->skinned && p->node >= 0) {
		const float *wm = c->world + 16 * (size_t)p->node;
		float nm[9];
		gsioi_normal_matrix(wm, nm);
		for (size_t v = 0; v < nv; v++) {
			float q[3], n[3];
			gsioi_xform_point(wm, tp + 3 * v, q);
			gsioi_xform_normal(nm, tn + 3 * v, n);
			memcpy(tp + 3 * v, q, sizeof(q));
			memcpy(tn + 3 * v, n, sizeof(n));
		}
	}
	if (!gsioi_floats_finite(tp, 3 * nv) || !gsioi_floats_finite(tn, 3 * nv))
		return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
		                 "mesh '%s' frame '%s': a position or normal is not finite after its transforms",
		                 m->name ? m->name : "", fs ? fs->name : "rest");
	return true;
}

static void pose_frame(wctx *c, const frame_spec *fs)
{
	if (fs) gsioi_pose_nodes(c->s, fs->anim, fs->x, c->local, c->world);
	else gsioi_pose_nodes(c->s, -1, 0, c->local, c->world);
}

// -- Welding file vertices

static bool same_weights(const placement *p, size_t mw, size_t a, size_t b)
{
	if (!p->nw) return true;
	if (p->nw[a] != p->nw[b]) return false;
	return !memcmp(p->wb + mw * a, p->wb + mw * b, p->nw[a] * sizeof(uint32_t)) &&
	       !memcmp(p->ww + mw * a, p->ww + mw * b, p->nw[a] * sizeof(float));
}

/* Scene vertices with one source vertex that agree in every frame (position,
 * normal, weights) share a file vertex. tp, tn: scratch of the largest mesh. */
static bool weld(wctx *c, float *tp, float *tn, size_t *reduced)
{
	size_t mw = c->max_w;
	for (size_t p = 0; p < c->pl_count; p++) {
		placement *pl = &c->pl[p];
		const gsio_mesh *m = pl->mesh;
		size_t nv = m->vertex_count;
		if (pl->skinned) {
			const gsio_weights *w = &m->weights;
			size_t most = 0;
			for (size_t v = 0; v < nv; v++)
				if (w->offsets[v + 1] - w->offsets[v] > most) most = w->offsets[v + 1] - w->offsets[v];
			pl->nw = GSIO_NEW_ARRAY(c->a, uint8_t, nv, c->err);
			pl->wb = GSIO_NEW_ARRAY(c->a, uint32_t, nv * mw, c->err);
			pl->ww = GSIO_NEW_ARRAY(c->a, float, nv * mw, c->err);
			uint32_t *sb = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, most + 1, c->err);
			float *sw = GSIO_NEW_ARRAY_UNINIT(c->a, float, most + 1, c->err);
			GSIO_CHECK(pl->nw && pl->wb && pl->ww && sb && sw);
			for (size_t v = 0; v < nv; v++)
				*reduced += vertex_weights(c, pl, v, sb, sw, pl->wb + mw * v, pl->ww + mw * v, &pl->nw[v]);
		}
		size_t keys = nv;
		if (m->source_vertex)
			for (size_t v = 0; v < nv; v++)
				if (m->source_vertex[v] >= keys) keys = (size_t)m->source_vertex[v] + 1;
		uint32_t *rep = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, keys, c->err);
		uint32_t *cand = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, nv, c->err);
		GSIO_CHECK(rep && cand);
		for (size_t k = 0; k < keys; k++) rep[k] = UINT32_MAX;
		for (size_t v = 0; v < nv; v++) {
			size_t key = m->source_vertex ? m->source_vertex[v] : v;
			if (rep[key] == UINT32_MAX) rep[key] = (uint32_t)v;
			cand[v] = same_weights(pl, mw, rep[key], v) ? rep[key] : (uint32_t)v;
		}
		// Every pose: the rest, then each frame.
		for (size_t f = 0; f <= c->frames_count; f++) {
			const frame_spec *fs = f ? &c->frames[f - 1] : NULL;
			pose_frame(c, fs);
			GSIO_CHECK(group_pose(c, pl, fs, tp, tn));
			for (size_t v = 0; v < nv; v++) {
				uint32_t r = cand[v];
				if (r != v && (memcmp(tp + 3 * r, tp + 3 * v, 3 * sizeof(float)) ||
				               memcmp(tn + 3 * r, tn + 3 * v, 3 * sizeof(float))))
					cand[v] = (uint32_t)v;
			}
		}
		pl->file_of = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, nv, c->err);
		pl->rep_of = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, nv, c->err);
		GSIO_CHECK(pl->file_of && pl->rep_of);
		size_t n = 0;
		for (size_t v = 0; v < nv; v++) {
			if (cand[v] != v) {
				pl->file_of[v] = pl->file_of[cand[v]];
				continue;
			}
			pl->rep_of[n] = (uint32_t)v;
			pl->file_of[v] = (uint32_t)n++;
		}
		if (n > NONE16)
			return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
			                 "mesh '%s' has %zu vertices: an MDL7 group indexes at most %u",
			                 m->name ? m->name : "", n, NONE16);
		pl->nfile = n;
	}
	return true;
}

// -- Skins and materials

static bool is_dds(const gsio_image *im)
{
	return im->file_data && im->file_size >= 4 && !memcmp(im->file_data, "DDS ", 4);
}

static bool set_external(wctx *c, gsio_mdl7_skin *sk, const char *name)
{
	size_t n = strlen(name) + 1; // in CP1252 at most as long
	if (n > 65536) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "texture name of %zu bytes", n);
	char *d = gsioi_arena_alloc_uninit(c->a, n, c->err);
	GSIO_CHECK(d);
	gsioi_text_cp1252(d, n, name); // the file name the engine opens on Windows
	n = strlen(d) + 1;
	sk->type = GSIO_MDL7_SKIN_EXTERNAL;
	sk->width = (int32_t)n;
	sk->height = 1;
	sk->data = (const uint8_t *)d;
	sk->data_size = n;
	return true;
}

static const char *external_name(wctx *c, const gsio_image *im, char *buf, size_t size)
{
	if (im->uri) return gsioi_path_base(im->uri);
	if (im->source_path) return gsioi_path_base(im->source_path);
	(void)c;
	snprintf(buf, size, "%s.png", im->name && *im->name ? im->name : "skin");
	return buf;
}

/* The image as RGBA (its own, or decoded from its stored form), or NULL
 * when it has no pixels gsio can reach (a reference, an undecodable file). */
static bool image_rgba(wctx *c, const gsio_image *im, gsio_image *out, bool *have)
{
	*out = *im;
	*have = false;
	if (im->rgba) return *have = true;
	size_t n = (size_t)im->width * im->height;
	if (!n) return true;
	if (im->file_data && !is_dds(im)) {
		gsio_image tmp = {0};
		gsio_error sub;
		gsio_error_clear(&sub);
		if (!gsioi_image_file_decode(im->file_data, im->file_size, im->name, c->a, &tmp, &sub)) {
			if (sub.code == GSIO_ERR_NOMEM) return GSIO_FAIL(c->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
			return true;
		}
		out->rgba = tmp.rgba;
		out->width = tmp.width, out->height = tmp.height;
		return *have = out->rgba != NULL;
	}
	uint8_t *rgba = NULL;
	if (im->stored || (im->indices && im->palette)) {
		GSIO_CHECK((rgba = gsioi_arena_array_uninit(c->a, n, 4, c->err)));
		if (im->stored) {
			if (gsio_decode_pixels(im->source_format, im->stored, n, c->o->palette, rgba)) return true;
		} else {
			for (size_t i = 0; i < n; i++) memcpy(rgba + 4 * i, im->palette + 4 * (size_t)im->indices[i], 4);
		}
		out->rgba = rgba;
		return *have = true;
	}
	return true;
}

static bool skin_pixels(wctx *c, const gsio_material *mat, gsio_mdl7_skin *sk, bool *pixels)
{
	const gsio_scene *s = c->s;
	*pixels = false;
	int32_t ii = mat->base_color_texture.image;
	uint32_t max = c->o->max_skin_size ? c->o->max_skin_size : DEFAULT_MAX_SKIN;
	char buf[300];
	if (ii < 0) {
		const gsio_extra *x = gsio_extras_get(&mat->extras, "gsio:external_texture");
		if (x && x->type == GSIO_EXTRA_STRING && x->s) return set_external(c, sk, x->s);
		// An MDL7 import's empty skin of a pixel type (Glockenkessel's 0 x 0
		// type 0) stays one.
		const gsio_extra *t = gsio_extras_get(&mat->extras, "gsio:skin_type");
		if (t && t->type == GSIO_EXTRA_INT && (t->i & 7) != 1 && (t->i & 7) < GSIO_MDL7_SKIN_DDS) {
			sk->type = (uint8_t)(t->i & 0x0F);
			*pixels = true;
		}
		return true;
	}
	const gsio_image *im = &s->images[ii];
	if (im->width > max || im->height > max)
		return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
		                 "image '%s' is %u x %u pixels: an MDL7 skin is at most %u x %u",
		                 im->name ? im->name : "", im->width, im->height, max, max);
	bool was_external = im->source_type >= 0 && (im->source_type & 7) == GSIO_MDL7_SKIN_EXTERNAL;
	if (c->o->skin_external || (was_external && c->o->skin_encoding == GSIO_SKIN_AUTO))
		return set_external(c, sk, external_name(c, im, buf, sizeof(buf)));
	if (is_dds(im) && c->o->skin_encoding == GSIO_SKIN_AUTO) {
		if (im->file_size > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "DDS of %zu bytes", im->file_size);
		sk->type = GSIO_MDL7_SKIN_DDS;
		sk->width = (int32_t)im->file_size;
		sk->height = 1;
		sk->data = im->file_data;
		sk->data_size = im->file_size;
		*pixels = true;
		return true;
	}
	gsio_image px;
	bool have;
	GSIO_CHECK(image_rgba(c, im, &px, &have));
	if (!have) {
		gsioi_wwarn(&c->warner, "image '%s' has no pixels here: its skin names the file instead",
		            im->name ? im->name : "");
		return set_external(c, sk, external_name(c, im, buf, sizeof(buf)));
	}
	uint8_t pal[768];
	gsioi_skin_opts so = {c->o->skin_encoding, c->o->palette, c->o->dither,
	                      c->o->mipmaps || (c->o->skin_encoding == GSIO_SKIN_AUTO && im->source_mip_count),
	                      max};
	bool own_indices = c->o->skin_encoding == GSIO_SKIN_AUTO && im->indices && im->palette &&
	                   im->source_format == GSIO_PIXEL_PAL8 && im->source_type >= 0;
	if (own_indices) {
		memset(pal, 0, sizeof(pal));
		for (uint32_t i = 0; i < im->palette_count && i < 256; i++) memcpy(pal + 3 * i, im->palette + 4 * i, 3);
		so.palette = pal;
	}
	if (!px.rgba || (im->source_type >= 0 && (im->source_type & 7) == GSIO_MDL7_SKIN_DDS))
		px.source_type = -1; // a decoded DDS: 8888 or 888
	gsio_mdl_skin ms;
	GSIO_CHECK(gsioi_skin_encode(c->a, &px, &so, &c->warner, &ms, c->err));
	if (own_indices && (ms.type & 7) == GSIO_PIXEL_PAL8)
		memcpy((uint8_t *)ms.pixels, im->indices, (size_t)im->width * im->height);
	sk->type = (uint8_t)ms.type;
	sk->width = ms.width;
	sk->height = ms.height;
	sk->data = ms.pixels;
	sk->data_size = ms.pixels_size;
	*pixels = true;
	return true;
}

static float extra_or(const gsio_material *m, const char *key, int k, float dflt)
{
	const gsio_extra *x = gsio_extras_get(&m->extras, key);
	if (x && x->type == GSIO_EXTRA_FLOATS && (size_t)k < x->floats_count && isfinite(x->floats[k])) return x->floats[k];
	if (x && x->type == GSIO_EXTRA_FLOAT && k == 0 && isfinite(x->f)) return (float)x->f;
	return dflt;
}

static float clamp01(float x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* The 68-byte record: an MDL7 import's own record where the material still
 * says the same (its extras), else from the material (MED's defaults for
 * the rest: ambient white, no specular, power 0). */
static void material_record(const gsio_material *m, gsio_mdl7_material *r)
{
	for (int k = 0; k < 3; k++) {
		float d = extra_or(m, "gsio:diffuse", k, m->base_color[k]);
		r->diffuse[k] = clamp01(d) == m->base_color[k] ? d : m->base_color[k];
		r->ambient[k] = extra_or(m, "gsio:ambient", k, 1);
		r->specular[k] = extra_or(m, "gsio:specular", k, 0);
		float e = extra_or(m, "gsio:emissive", k, m->emissive[k]);
		r->emissive[k] = (e > 0 ? clamp01(e) : 0) == m->emissive[k] ? e : m->emissive[k];
	}
	r->diffuse[3] = extra_or(m, "gsio:diffuse", 3, 0);
	float a = extra_or(m, "gsio:ambient", 3, m->base_color[3]);
	r->ambient[3] = clamp01(a) == m->base_color[3] ? a : m->base_color[3];
	r->specular[3] = extra_or(m, "gsio:specular", 3, 0);
	r->emissive[3] = extra_or(m, "gsio:emissive", 3, 0);
	r->power = extra_or(m, "gsio:power", 0, 0);
}

static bool needs_record(const gsio_material *m, bool pixels)
{
	const gsio_extra *t = gsio_extras_get(&m->extras, "gsio:skin_type");
	if (t && t->type == GSIO_EXTRA_INT) return (t->i & GSIO_MDL7_SKIN_MATERIAL) || !pixels;
	if (!pixels) return true;
	return m->base_color[0] != 1 || m->base_color[1] != 1 || m->base_color[2] != 1 ||
	       m->base_color[3] != 1 || m->emissive[0] != 0 || m->emissive[1] != 0 || m->emissive[2] != 0;
}

static int32_t double_sided_of(const gsio_scene *s, size_t mi)
{
	const gsio_extra *x = gsio_extras_get(&s->materials[mi].extras, "gsio:double_sided_of");
	if (!x || x->type != GSIO_EXTRA_INT || x->i < 0 || (uint64_t)x->i >= s->materials_count ||
	    (size_t)x->i == mi)
		return -1;
	return (int32_t)x->i;
}

/* One skin per material (a double-sided copy an import made shares its
 * original's), all in group 0; a white one for parts without a material
 * when there are others. */
static bool build_skins(wctx *c, gsio_mdl7_group *g0)
{
	const gsio_scene *s = c->s;
	size_t nm = s->materials_count;
	GSIO_CHECK((c->skin_of_mat = GSIO_NEW_ARRAY(c->a, int32_t, nm + 1, c->err)));
	size_t n = 0;
	for (size_t i = 0; i < nm; i++) c->skin_of_mat[i] = double_sided_of(s, i) >= 0 ? -1 : (int32_t)n++;
	for (size_t i = 0; i < nm; i++)
		if (c->skin_of_mat[i] < 0) c->skin_of_mat[i] = c->skin_of_mat[double_sided_of(s, i)];
	bool unmaterialed = false;
	for (size_t p = 0; p < c->pl_count; p++)
		for (size_t k = 0; k < c->pl[p].mesh->parts_count; k++)
			if (c->pl[p].mesh->parts[k].material < 0) unmaterialed = true;
	c->default_skin = unmaterialed && n ? (int32_t)n++ : -1;
	if (n > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "%zu materials", n);
	GSIO_CHECK((g0->skins = GSIO_NEW_ARRAY(c->a, gsio_mdl7_skin, n + 1, c->err)));
	size_t dropped = 0;
	for (size_t i = 0; i < nm; i++) {
		const gsio_material *m = &s->materials[i];
		if (double_sided_of(s, i) >= 0) continue;
		gsio_mdl7_skin *sk = &g0->skins[c->skin_of_mat[i]];
		bool pixels;
		GSIO_CHECK(skin_pixels(c, m, sk, &pixels));
		bool external = (sk->type & 7) == GSIO_MDL7_SKIN_EXTERNAL;
		if (needs_record(m, pixels || external)) {
			sk->type |= GSIO_MDL7_SKIN_MATERIAL;
			material_record(m, &sk->material);
		}
		gsioi_name_field(sk->name, sizeof(sk->name), m->name);
		if (m->alpha_mode == GSIO_ALPHA_MASK || m->unlit || m->detail_texture.image >= 0 ||
		    m->base_color_texture.tiling > 1 || m->base_color_texture.wrap_u != GSIO_WRAP_REPEAT ||
		    m->base_color_texture.wrap_v != GSIO_WRAP_REPEAT)
			dropped++;
	}
	if (c->default_skin >= 0) {
		gsio_mdl7_skin *sk = &g0->skins[c->default_skin];
		sk->type = GSIO_MDL7_SKIN_MATERIAL;
		gsio_material white;
		gsioi_material_defaults(&white);
		material_record(&white, &sk->material);
		memcpy(sk->name, "default", 7);
	}
	if (dropped)
		gsioi_wwarn(&c->warner, "%zu materials use what MDL7 has no field for (alpha cut-off, unlit, "
		                        "a detail map, texture tiling or clamping): left out", dropped);
	g0->skins_count = n;
	c->skins_count = n;
	return true;
}

// -- Groups

/* The file's UV list of a placement: one entry per source UV when the mesh
 * came from an MDL (source_uv), else distinct float pairs. */
static bool group_uvs(wctx *c, const placement *p, gsio_mdl7_group *g, uint16_t *uv_of)
{
	const gsio_mesh *m = p->mesh;
	size_t nv = m->vertex_count;
	if (!m->uvs) {
		for (size_t v = 0; v < nv; v++) uv_of[v] = NONE16;
		return true;
	}
	GSIO_CHECK((g->uvs = GSIO_NEW_ARRAY_UNINIT(c->a, float, 2 * nv + 2, c->err)));
	size_t n = 0, cap = 16;
	while (cap < 2 * nv) cap *= 2;
	uint32_t *table = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, cap, c->err);
	GSIO_CHECK(table);
	for (size_t i = 0; i < cap; i++) table[i] = UINT32_MAX;
	uint32_t *rep = NULL;
	size_t keys = 0;
	if (m->source_uv) {
		for (size_t v = 0; v < nv; v++)
			if (m->source_uv[v] >= keys) keys = (size_t)m->source_uv[v] + 1;
		GSIO_CHECK((rep = GSIO_NEW_ARRAY_UNINIT(c->a, uint32_t, keys, c->err)));
		for (size_t k = 0; k < keys; k++) rep[k] = UINT32_MAX;
	}
	for (size_t v = 0; v < nv; v++) {
		const float *uv = m->uvs + 2 * v;
		uint32_t idx;
		if (rep) {
			uint32_t *r = &rep[m->source_uv[v]];
			if (*r == UINT32_MAX || memcmp(&g->uvs[2 * *r], uv, 2 * sizeof(float))) {
				*r = (uint32_t)n;
				memcpy(&g->uvs[2 * n++], uv, 2 * sizeof(float));
			}
			idx = *r;
		} else {
			uint32_t bits[2];
			memcpy(bits, uv, sizeof(bits));
			size_t i = ((bits[0] * 2654435761u) ^ (bits[1] * 40503u)) & (cap - 1);
			while (table[i] != UINT32_MAX && memcmp(&g->uvs[2 * table[i]], uv, 2 * sizeof(float)))
				i = (i + 1) & (cap - 1);
			if (table[i] == UINT32_MAX) {
				table[i] = (uint32_t)n;
				memcpy(&g->uvs[2 * n++], uv, 2 * sizeof(float));
			}
			idx = table[i];
		}
		if (idx >= NONE16)
			return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1,
			                 "mesh '%s' has more than %u distinct texture coordinates: an MDL7 group "
			                 "indexes at most that many", m->name ? m->name : "", NONE16 - 1);
		uv_of[v] = (uint16_t)idx;
	}
	g->uvs_count = n;
	return true;
}

static bool group_triangles(wctx *c, const placement *p, gsio_mdl7_group *g, const uint16_t *uv_of)
{
	const gsio_mesh *m = p->mesh;
	size_t nt = 0;
	for (size_t k = 0; k < m->parts_count; k++)
		nt += (m->parts[k].index_count / 3) * (gsioi_part_double_sided(c->s, &m->parts[k]) ? 2 : 1);
	if (nt > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "%zu triangles", nt);
	GSIO_CHECK((g->triangles = GSIO_NEW_ARRAY_UNINIT(c->a, gsio_mdl7_triangle, nt + 1, c->err)));
	size_t t = 0;
	for (size_t k = 0; k < m->parts_count; k++) {
		const gsio_mesh_part *pt = &m->parts[k];
		int sides = gsioi_part_double_sided(c->s, pt) ? 2 : 1;
		int32_t mat = pt->material >= 0 ? c->skin_of_mat[pt->material] : c->default_skin;
		for (size_t i = pt->first_index; i + 2 < pt->first_index + pt->index_count; i += 3)
			for (int side = 0; side < sides; side++, t++) {
				// Counter-clockwise in the scene, clockwise in the file.
				static const int order[2][3] = {{0, 2, 1}, {0, 1, 2}};
				gsio_mdl7_triangle *tr = &g->triangles[t];
				for (int j = 0; j < 3; j++) {
					uint32_t v = m->indices[i + (size_t)order[side][j]];
					tr->v[j] = (uint16_t)p->file_of[v];
					tr->uv[j] = uv_of[v];
					tr->uv2[j] = NONE16;
				}
				tr->material = mat;
				tr->material2 = -1;
			}
	}
	g->triangles_count = nt;
	return true;
}

static void put_vertex(gsio_mdl7_vertex *out, const float *pos, const float *nrm, uint16_t bone)
{
	memcpy(out->pos, pos, 3 * sizeof(float));
	for (int k = 0; k < 3; k++) out->normal[k] = -nrm[k]; // stored inward
	out->bone = bone;
}

/* The deformer of a group whose weights are not one whole bone a vertex. */
static bool group_deformer(wctx *c, const placement *p, size_t gi, gsio_mdl7_group *g)
{
	size_t mw = c->max_w, nf = p->nfile, most = 0;
	bool needed = false;
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = p->rep_of[f];
		if (p->nw[v] > most) most = p->nw[v];
		if (p->nw[v] > 1 || (p->nw[v] == 1 && p->ww[mw * v] != 1.0f)) needed = true;
	}
	g->max_weights = (int8_t)most;
	if (!needed) {
		g->max_weights = 0;
		return true;
	}
	uint32_t *count = GSIO_NEW_ARRAY(c->a, uint32_t, c->nb + 1, c->err);
	GSIO_CHECK(count);
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = p->rep_of[f];
		for (size_t k = 0; k < p->nw[v]; k++) count[p->wb[mw * v + k]]++;
	}
	size_t ne = 0;
	for (size_t b = 0; b < c->nb; b++) ne += count[b] > 0;
	gsio_mdl7_deformer *d = GSIO_NEW_ARRAY(c->a, gsio_mdl7_deformer, 1, c->err);
	GSIO_CHECK(d && (d->elements = GSIO_NEW_ARRAY(c->a, gsio_mdl7_deformer_element, ne + 1, c->err)));
	size_t *slot = GSIO_NEW_ARRAY(c->a, size_t, c->nb + 1, c->err);
	GSIO_CHECK(slot);
	uint64_t size = 16;
	size_t e = 0;
	for (size_t b = 0; b < c->nb; b++) {
		if (!count[b]) continue;
		gsio_mdl7_deformer_element *el = &d->elements[e];
		slot[b] = e++;
		el->index = (int32_t)b;
		memcpy(el->name, c->file->bones[b].name, sizeof(el->name));
		GSIO_CHECK((el->weights = GSIO_NEW_ARRAY_UNINIT(c->a, gsio_mdl7_weight, count[b], c->err)));
		size += 28 + 8 * (uint64_t)count[b];
	}
	if (size > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "a deformer of %llu bytes", (unsigned long long)size);
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = p->rep_of[f];
		for (size_t k = 0; k < p->nw[v]; k++) {
			gsio_mdl7_deformer_element *el = &d->elements[slot[p->wb[mw * v + k]]];
			el->weights[el->weights_count].vertex = (int32_t)f;
			el->weights[el->weights_count++].weight = p->ww[mw * v + k];
		}
	}
	d->elements_count = ne;
	d->group_index = (int32_t)gi;
	d->data_size = (int32_t)size;
	g->deformers = d;
	g->deformers_count = 1;
	g->deformers_num = 1;
	return true;
}

/* Matrix records of frame f (every bone): A_b = S_parent^-1 S_b. */
static bool frame_matrices(wctx *c, size_t f, gsio_mdl7_frame *fr)
{
	size_t nb = c->nb;
	GSIO_CHECK((fr->matrices = GSIO_NEW_ARRAY(c->a, gsio_mdl7_bone_matrix, nb, c->err)));
	const float *S = c->S + f * nb * 16;
	for (size_t b = 0; b < nb; b++) {
		double sb[16], A[16];
		dmat_from(S + 16 * b, sb);
		if (c->bone_parent[b] >= 0) {
			double sp[16], inv[16];
			dmat_from(S + 16 * (size_t)c->bone_parent[b], sp);
			if (!dmat_invert(sp, inv))
				return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
				                 "frame '%s': bone %d's transform is singular", c->frames[f].name,
				                 (int)c->bone_parent[b]);
			dmat_mul(inv, sb, A);
		} else {
			memcpy(A, sb, sizeof(A));
		}
		gsio_mdl7_bone_matrix *bm = &fr->matrices[b];
		for (int k = 0; k < 16; k++) bm->m[k] = (float)A[k];
		bm->m[3] = bm->m[7] = bm->m[11] = 0;
		bm->m[15] = 1;
		bm->bone = (uint16_t)b;
		if (!gsioi_floats_finite(bm->m, 16))
			return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "frame '%s': a bone matrix is not finite",
			                 c->frames[f].name);
	}
	fr->matrices_count = nb;
	return true;
}

static bool build_group(wctx *c, size_t gi, gsio_mdl7_group *g, float *tp, float *tn)
{
	placement *p = &c->pl[gi];
	const gsio_mesh *m = p->mesh;
	size_t nv = m->vertex_count, nf = p->nfile, mw = c->max_w;
	g->type = 1;
	gsioi_name_field(g->name, sizeof(g->name), m->name);
	uint16_t *uv_of = GSIO_NEW_ARRAY_UNINIT(c->a, uint16_t, nv + 1, c->err);
	GSIO_CHECK(uv_of && group_uvs(c, p, g, uv_of) && group_triangles(c, p, g, uv_of));
	// Main vertices: the rest pose.
	GSIO_CHECK((g->verts = GSIO_NEW_ARRAY(c->a, gsio_mdl7_vertex, nf + 1, c->err)));
	pose_frame(c, NULL);
	GSIO_CHECK(group_pose(c, p, NULL, tp, tn));
	bool bound = false;
	for (size_t f = 0; f < nf; f++) {
		uint32_t v = p->rep_of[f];
		uint16_t bone = p->nw && p->nw[v] ? (uint16_t)p->wb[mw * v] : (uint16_t)NONE16;
		bound = bound || bone != NONE16;
		put_vertex(&g->verts[f], tp + 3 * v, tn + 3 * v, bone);
	}
	g->verts_count = nf;
	if (p->skinned) GSIO_CHECK(group_deformer(c, p, gi, g));
	// Frames: the vertices that differ from the main ones, and the bones.
	GSIO_CHECK((g->frames = GSIO_NEW_ARRAY(c->a, gsio_mdl7_frame, c->frames_count, c->err)));
	g->frames_count = c->frames_count;
	for (size_t f = 0; f < c->frames_count; f++) {
		gsio_mdl7_frame *fr = &g->frames[f];
		memcpy(fr->name, c->frames[f].name, strlen(c->frames[f].name));
		if (bound) GSIO_CHECK(frame_matrices(c, f, fr));
		pose_frame(c, &c->frames[f]);
		GSIO_CHECK(group_pose(c, p, &c->frames[f], tp, tn));
		size_t moved = 0;
		for (size_t k = 0; k < nf; k++) {
			uint32_t v = p->rep_of[k];
			gsio_mdl7_vertex probe;
			put_vertex(&probe, tp + 3 * v, tn + 3 * v, 0);
			if (memcmp(probe.pos, g->verts[k].pos, sizeof(probe.pos)) ||
			    memcmp(probe.normal, g->verts[k].normal, sizeof(probe.normal)))
				moved++;
		}
		if (!moved) continue;
		GSIO_CHECK((fr->verts = GSIO_NEW_ARRAY(c->a, gsio_mdl7_vertex, moved, c->err)));
		for (size_t k = 0; k < nf; k++) {
			uint32_t v = p->rep_of[k];
			gsio_mdl7_vertex probe;
			put_vertex(&probe, tp + 3 * v, tn + 3 * v, (uint16_t)k);
			if (memcmp(probe.pos, g->verts[k].pos, sizeof(probe.pos)) ||
			    memcmp(probe.normal, g->verts[k].normal, sizeof(probe.normal)))
				fr->verts[fr->verts_count++] = probe;
		}
	}
	return true;
}

/* groupdata_size as MED writes it: the group from its header through its
 * frames (the deformers not counted). */
static bool sizes(wctx *c, gsio_mdl7_file *f)
{
	uint64_t total = GSIO_MDL7_HEADER_SIZE + 36 * (uint64_t)f->bones_count;
	for (size_t gi = 0; gi < f->groups_count; gi++) {
		gsio_mdl7_group *g = &f->groups[gi];
		uint64_t n = GROUP_HEADER;
		for (size_t i = 0; i < g->skins_count; i++) {
			const gsio_mdl7_skin *sk = &g->skins[i];
			n += SKIN_HEADER + sk->data_size + ((sk->type & GSIO_MDL7_SKIN_MATERIAL) ? MATERIAL_SIZE : 0);
		}
		n += 8 * (uint64_t)g->uvs_count + TRI_SIZE * (uint64_t)g->triangles_count +
		     VERT_SIZE * (uint64_t)g->verts_count;
		for (size_t i = 0; i < g->frames_count; i++)
			n += FRAME_HEADER + VERT_SIZE * (uint64_t)g->frames[i].verts_count +
			     MATRIX_SIZE * (uint64_t)g->frames[i].matrices_count;
		if (n > INT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "group %zu has %llu bytes", gi, (unsigned long long)n);
		g->groupdata_size = (int32_t)n;
		total += n;
		for (size_t i = 0; i < g->deformers_count; i++) total += (uint64_t)g->deformers[i].data_size;
	}
	if (total > UINT32_MAX) return GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "an MDL7 of %llu bytes", (unsigned long long)total);
	f->header.data_size = (uint32_t)total;
	return true;
}

static bool build_file(wctx *c, gsio_mdl7_file *f)
{
	const gsio_scene *s = c->s;
	gsio_mdl7_header *h = &f->header;
	memcpy(h->magic, "MDL7", 4);
	static const uint16_t stc[10] = {36, 28, 16, 68, 8, 26, 26, 26, 68, 24};
	h->bone_stc_size = stc[0], h->skin_stc_size = stc[1], h->colorvalue_stc_size = stc[2];
	h->material_stc_size = stc[3], h->skinpoint_stc_size = stc[4], h->triangle_stc_size = stc[5];
	h->mainvertex_stc_size = stc[6], h->framevertex_stc_size = stc[7], h->bonetrans_stc_size = stc[8];
	h->frame_stc_size = stc[9];
	c->local = GSIO_NEW_ARRAY(c->a, float, s->nodes_count * 10 + 1, c->err);
	c->world = GSIO_NEW_ARRAY(c->a, float, s->nodes_count * 16 + 1, c->err);
	GSIO_CHECK(c->local && c->world);
	GSIO_CHECK(collect_bones(c) && prune_bones(c));
	size_t maxv = 0;
	for (size_t p = 0; p < c->pl_count; p++)
		if (c->pl[p].mesh->vertex_count > maxv) maxv = c->pl[p].mesh->vertex_count;
	float *tp = GSIO_NEW_ARRAY_UNINIT(c->a, float, 3 * maxv, c->err);
	float *tn = GSIO_NEW_ARRAY_UNINIT(c->a, float, 3 * maxv, c->err);
	GSIO_CHECK(tp && tn);
	size_t reduced = 0;
	GSIO_CHECK(weld(c, tp, tn, &reduced));
	if (reduced)
		gsioi_wwarn(&c->warner, "%zu vertices have more than %u bone weights: the strongest %u kept, "
		                        "renormalised", reduced, c->max_w, c->max_w);
	GSIO_CHECK((f->bones = GSIO_NEW_ARRAY(c->a, gsio_mdl7_bone, c->nb + 1, c->err)));
	f->bones_count = c->nb;
	h->bones_num = (uint32_t)c->nb;
	for (size_t b = 0; b < c->nb; b++) {
		double bind[16], pbind[16];
		GSIO_CHECK(dmat_invert(c->ib + 16 * b, bind) ||
		           GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "joint '%s': its inverse bind is singular",
		                     s->nodes[c->bone_node[b]].name ? s->nodes[c->bone_node[b]].name : ""));
		int32_t pb = c->bone_parent[b];
		f->bones[b].parent = pb >= 0 ? (uint16_t)pb : (uint16_t)NONE16;
		double pp[3] = {0, 0, 0};
		if (pb >= 0 && dmat_invert(c->ib + 16 * (size_t)pb, pbind)) memcpy(pp, pbind + 12, sizeof(pp));
		for (int k = 0; k < 3; k++) f->bones[b].pos[k] = (float)(bind[12 + k] - pp[k]);
		if (!gsioi_floats_finite(f->bones[b].pos, 3))
			return GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "bone %zu: position is not finite", b);
	}
	bone_names(c, f);
	c->file = f;
	GSIO_CHECK((f->groups = GSIO_NEW_ARRAY(c->a, gsio_mdl7_group, c->pl_count, c->err)));
	f->groups_count = c->pl_count;
	h->groups_num = (uint32_t)c->pl_count;
	GSIO_CHECK(build_skins(c, &f->groups[0]));
	for (size_t gi = 0; gi < c->pl_count; gi++) GSIO_CHECK(build_group(c, gi, &f->groups[gi], tp, tn));
	return sizes(c, f);
}

// -- Entry points

int gsio_mdl7_write(const gsio_scene *scene, const gsio_mdl7_write_opts *opts, uint8_t **out,
                    size_t *out_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (gsioi_write_start(scene, out, out_size, err)) return -1;
	static const gsio_mdl7_write_opts defaults;
	if (!opts) opts = &defaults;
	wctx c = {0};
	c.s = scene;
	c.o = opts;
	c.warner.fn = opts->warn;
	c.warner.user = opts->warn_user;
	c.err = err;
	c.max_w = opts->max_weights ? opts->max_weights : DEFAULT_MAX_WEIGHTS;
	if (c.max_w > MAX_WEIGHTS_STORED) c.max_w = MAX_WEIGHTS_STORED;
	c.default_skin = -1;
	if (!(c.a = gsioi_write_arena(opts->allocator, opts->memory_limit, err))) return -1;
	gsio_mdl7_file *f = GSIO_NEW_ARRAY(c.a, gsio_mdl7_file, 1, err);
	gsio_scene expanded; // terrains kept as grids, expanded for the writer
	int rc = -1;
	if (f && gsioi_scene_expand_grids(scene, c.a, &expanded, &c.s, err) && collect_placements(&c) &&
	    plan_frames(&c) && build_file(&c, f))
		rc = gsioi_mdl7_encode_with(f, opts->allocator, opts->memory_limit, out, out_size, err);
	gsioi_arena_destroy(c.a);
	return rc;
}

int gsio_mdl7_write_file(const gsio_scene *scene, const char *path,
                         const gsio_mdl7_write_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	uint8_t *data = NULL;
	size_t size = 0;
	int rc = gsio_mdl7_write(scene, opts, &data, &size, err);
	return gsioi_write_finish(rc, path, data, size, opts && opts->no_replace,
	                          opts ? opts->allocator : NULL, err);
}
