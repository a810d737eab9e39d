/* The glTF writer's node tree and what hangs on it: the nodes (with the
 * axis change, the dequantisation of a compact mesh, the helper nodes that
 * turn a camera or light to glTF's frame, the skeleton wrappers), the
 * skins, the cameras and the lights (KHR_lights_punctual). Relies on the
 * meshes, skins and quantisation already written (gltf_mesh.c,
 * gltf_quant.c) for the indices it names. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"
#include "gsioi_math.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// glTF cameras need an aspect ratio; a scene camera may leave it 0. 4:3 is
// the display Doom 3 (the source of .md5camera) was made for.
#define CAMERA_ASPECT (4.0 / 3.0)
#define CAMERA_ZNEAR 1.0 // scene units (about an inch), before --scale

// -- Axes and maths

/** A rotation quaternion (x,y,z,w) conjugated by the axis change: for a
 *  proper rotation R, R q R^-1 rotates about R*axis by the same angle, so the
 *  vector part moves like a direction. Normalised. */
static void xf_quat(const gltf_ctx *c, const float in[4], float out[4])
{
	xf_dir(c, in, out);
	out[3] = in[3];
	gsioi_quat_normalize(out);
}

/** Quaternion of a rotation matrix m[row][col] (Shepperd's method). */
static void mat3_to_quat(const double m[3][3], double q[4])
{
	double t = m[0][0] + m[1][1] + m[2][2];
	if (t > 0) {
		double s = sqrt(t + 1.0) * 2;
		q[3] = 0.25 * s;
		q[0] = (m[2][1] - m[1][2]) / s;
		q[1] = (m[0][2] - m[2][0]) / s;
		q[2] = (m[1][0] - m[0][1]) / s;
	} else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
		double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2;
		q[3] = (m[2][1] - m[1][2]) / s;
		q[0] = 0.25 * s;
		q[1] = (m[0][1] + m[1][0]) / s;
		q[2] = (m[0][2] + m[2][0]) / s;
	} else if (m[1][1] > m[2][2]) {
		double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2;
		q[3] = (m[0][2] - m[2][0]) / s;
		q[0] = (m[0][1] + m[1][0]) / s;
		q[1] = 0.25 * s;
		q[2] = (m[1][2] + m[2][1]) / s;
	} else {
		double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2;
		q[3] = (m[1][0] - m[0][1]) / s;
		q[0] = (m[0][2] + m[2][0]) / s;
		q[1] = (m[1][2] + m[2][1]) / s;
		q[2] = 0.25 * s;
	}
}

/** The fixed rotation from a glTF camera's or light's local frame (looks
 *  along -Z, up +Y, right +X) to the scene's (looks along +X, up +Z, right
 *  -Y), expressed in output axes. */
static void frame_fix(const gltf_ctx *c, float q[4])
{
	const float right[3] = {0, -1, 0}, up[3] = {0, 0, 1}, back[3] = {-1, 0, 0};
	float r[3], u[3], b[3];
	xf_dir(c, right, r);
	xf_dir(c, up, u);
	xf_dir(c, back, b);
	double m[3][3], qd[4];
	for (int i = 0; i < 3; i++) {
		m[i][0] = r[i];
		m[i][1] = u[i];
		m[i][2] = b[i];
	}
	mat3_to_quat(m, qd);
	for (int k = 0; k < 4; k++) q[k] = (float)qd[k];
	gsioi_quat_normalize(q);
}

/** A node rotation for glTF: axis-converted, then followed by the frame fix
 *  when the node's camera or light sits on the node itself. */
void gsioi_gltf_node_rotation(const gltf_ctx *c, int32_t node, const float in[4], float out[4])
{
	xf_quat(c, in, out);
	if (c->folded[node]) {
		float fix[4];
		frame_fix(c, fix);
		gsioi_quat_mul(out, fix, out);
		gsioi_quat_normalize(out);
	}
}

// -- Nodes

static bool is_identity_quat(const float q[4])
{
	return q[0] == 0 && q[1] == 0 && q[2] == 0 && (q[3] == 1 || q[3] == -1);
}

/** Cameras and lights look along the scene node's +X; glTF's along local
 *  -Z. The fixed change of frame goes into the node's own rotation when
 *  nothing else hangs on the node (no mesh, no children, uniform scale);
 *  otherwise into a child node that carries the camera or light. */
void gsioi_gltf_plan_folds(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_node *n = &s->nodes[i];
		bool has = n->camera >= 0 || n->light >= 0;
		bool alone = n->mesh < 0 && n->scale[0] == n->scale[1] && n->scale[1] == n->scale[2];
		for (size_t j = i + 1; alone && j < s->nodes_count; j++)
			if (s->nodes[j].parent == (int32_t)i) alone = false;
		c->folded[i] = has && alone;
	}
}

static void node_attachments(gltf_ctx *c, cJSON *j, int32_t camera, int32_t light)
{
	if (camera >= 0) gsioi_gltf_jnum(c, j, "camera", camera);
	if (light >= 0) {
		cJSON *ext = gsioi_gltf_jobj(c), *l = gsioi_gltf_jobj(c);
		gsioi_gltf_jnum(c, l, "light", light);
		gsioi_gltf_jset(c, ext, "KHR_lights_punctual", l);
		gsioi_gltf_jset(c, j, "extensions", ext);
	}
}

/** Skeleton wrappers. With several skins, Blender's importer makes one
 *  armature per non-joint parent of a skeleton's root; skeletons whose roots
 *  are scene roots would all land in one armature. So, with 2 or more skins,
 *  every scene-root joint gets a plain parent node (one per skeleton: roots
 *  of one skin share it). wrap[i] is the wrapper number of root node i, -1
 *  when none; returns the wrapper count, -1 on failure. */
static int plan_wrappers(gltf_ctx *c, int *wrap, int *first_skin)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->nodes_count; i++) wrap[i] = -1;
	if (s->skins_count < 2) return 0;
	int count = 0;
	for (size_t k = 0; k < s->skins_count; k++) {
		const gsio_skin *sk = &s->skins[k];
		int w = -1;
		for (int pass = 0; pass < 2; pass++) // first find a wrapper in use, then assign
			for (size_t j = 0; j < sk->joints_count; j++) {
				int32_t r = sk->joints[j];
				while (s->nodes[r].parent >= 0) r = s->nodes[r].parent;
				bool is_joint = false;
				for (size_t q = 0; q < sk->joints_count && !is_joint; q++) is_joint = sk->joints[q] == r;
				if (!is_joint) continue; // the skeleton has a plain root already
				if (pass == 0 && w < 0) w = wrap[r];
				if (pass == 1 && wrap[r] < 0) {
					if (w < 0) {
						first_skin[count] = (int)k;
						w = count++;
					}
					wrap[r] = w;
				}
			}
	}
	return count;
}

/** Elements grouped: list[first[g] .. first[g + 1]) are the elements of
 *  group g, in order. */
typedef struct members {
	size_t *first, *list;
} members;

/** Groups the n elements by group_of[i] (outside 0 .. groups - 1: none), by
 *  counting: one pass where a scan of the elements per group is n * groups. */
static bool group_members(gltf_ctx *c, const int32_t *group_of, size_t n, size_t groups,
                          members *m)
{
	m->first = gsioi_gltf_xmalloc_array(c, groups + 1, sizeof(size_t));
	m->list = gsioi_gltf_xmalloc_array(c, n ? n : 1, sizeof(size_t));
	if (!m->first || !m->list) return false;
	memset(m->first, 0, (groups + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		if (group_of[i] >= 0 && (size_t)group_of[i] < groups) m->first[group_of[i] + 1]++;
	for (size_t g = 0; g < groups; g++) m->first[g + 1] += m->first[g];
	// Filling moves first[g] to the group's end, which is where g + 1 starts.
	for (size_t i = 0; i < n; i++)
		if (group_of[i] >= 0 && (size_t)group_of[i] < groups) m->list[m->first[group_of[i]]++] = i;
	for (size_t g = groups; g > 0; g--) m->first[g] = m->first[g - 1];
	m->first[0] = 0;
	return true;
}

bool gsioi_gltf_write_nodes(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	size_t nn = s->nodes_count;
	int helper = (int)nn; // next helper node index
	int helpers = 0;
	for (size_t i = 0; i < nn; i++)
		if ((s->nodes[i].camera >= 0 || s->nodes[i].light >= 0) && !c->folded[i]) helpers++;
	int *wrap = gsioi_gltf_xmalloc_array(c, nn ? nn : 1, sizeof(int));
	int *first_skin = gsioi_gltf_xmalloc_array(c, s->skins_count ? s->skins_count : 1, sizeof(int));
	int wrappers = wrap && first_skin ? plan_wrappers(c, wrap, first_skin) : -1;
	if (wrappers < 0) {
		free(wrap);
		free(first_skin);
		return false;
	}
	// Each node's children in order, and each wrapper's nodes: a scan of
	// the nodes per node (and per wrapper) would make a level of 20 000
	// objects quadratic.
	members kids = {0}, wrapped = {0};
	int32_t *parent = gsioi_gltf_xmalloc_array(c, nn ? nn : 1, sizeof(int32_t));
	if (parent)
		for (size_t i = 0; i < nn; i++) parent[i] = s->nodes[i].parent;
	if (!parent || !group_members(c, parent, nn, nn, &kids) ||
	    !group_members(c, wrap, nn, (size_t)wrappers, &wrapped)) {
		free(parent);
		free(kids.first), free(kids.list), free(wrapped.first), free(wrapped.list);
		free(wrap);
		free(first_skin);
		return false;
	}
	free(parent);
	for (size_t i = 0; i < nn; i++) {
		const gsio_node *n = &s->nodes[i];
		cJSON *j = gsioi_gltf_jobj(c);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "node%zu", i);
		const char *name = gsioi_gltf_or_default(n->name, fallback);
		gsioi_gltf_jstr(c, j, "name", name);
		cJSON *children = NULL;
		for (size_t at = kids.first[i]; at < kids.first[i + 1]; at++) {
			if (!children) children = gsioi_gltf_jarr(c);
			gsioi_gltf_jpush_num(c, children, (double)kids.list[at]);
		}
		bool needs_helper = (n->camera >= 0 || n->light >= 0) && !c->folded[i];
		if (needs_helper) {
			if (!children) children = gsioi_gltf_jarr(c);
			gsioi_gltf_jpush_num(c, children, helper++);
		}
		if (children) gsioi_gltf_jset(c, j, "children", children);
		float t[3], r[4], sc[3];
		xf_pos(c, n->translation, t);
		gsioi_gltf_node_rotation(c, (int32_t)i, n->rotation, r);
		xf_dir(c, n->scale, sc);
		if (n->mesh >= 0 && c->q_scale[n->mesh] > 0) {
			// Dequantisation of the mesh's positions (gsioi_gltf_plan_quant: a leaf
			// without TRS animation): node * translate(off) * scale(q).
			const float *off = c->q_off + 3 * (size_t)n->mesh;
			float so[3], ro[3];
			for (int k = 0; k < 3; k++) so[k] = sc[k] * off[k];
			gsioi_quat_rotate(r, so, ro);
			for (int k = 0; k < 3; k++) {
				t[k] += ro[k];
				sc[k] *= c->q_scale[n->mesh];
			}
		}
		if (t[0] != 0 || t[1] != 0 || t[2] != 0) gsioi_gltf_jset(c, j, "translation", gsioi_gltf_jfloats(c, t, 3));
		if (!is_identity_quat(r)) gsioi_gltf_jset(c, j, "rotation", gsioi_gltf_jfloats(c, r, 4));
		if (sc[0] != 1 || sc[1] != 1 || sc[2] != 1) gsioi_gltf_jset(c, j, "scale", gsioi_gltf_jfloats(c, sc, 3));
		if (n->mesh >= 0 && c->mesh_index[n->mesh] >= 0) {
			gsioi_gltf_jnum(c, j, "mesh", c->mesh_index[n->mesh]);
			if (c->mesh_skin[n->mesh] >= 0) gsioi_gltf_jnum(c, j, "skin", c->mesh_skin[n->mesh]);
		}
		if (c->folded[i]) node_attachments(c, j, n->camera, n->light);
		cJSON *extras = gsioi_gltf_extras_json(c, NULL, &n->extras);
		if (extras) gsioi_gltf_jset(c, j, "extras", extras);
		gsioi_gltf_jadd(c, c->nodes, j);
		if (n->parent < 0 && wrap[i] < 0) gsioi_gltf_jpush_num(c, c->scene_nodes, (double)i);
	}
	// The helper nodes, in the order their parents were written.
	float fix[4];
	frame_fix(c, fix);
	for (size_t i = 0; i < nn; i++) {
		const gsio_node *n = &s->nodes[i];
		if (!((n->camera >= 0 || n->light >= 0) && !c->folded[i])) continue;
		cJSON *j = gsioi_gltf_jobj(c);
		char name[300];
		snprintf(name, sizeof(name), "%s_%s", gsioi_gltf_or_default(n->name, "node"), n->camera >= 0 ? "camera" : "light");
		gsioi_gltf_jstr(c, j, "name", name);
		if (!is_identity_quat(fix)) gsioi_gltf_jset(c, j, "rotation", gsioi_gltf_jfloats(c, fix, 4));
		node_attachments(c, j, n->camera, n->light);
		gsioi_gltf_jadd(c, c->nodes, j);
	}
	// The skeleton wrappers, after the helpers.
	for (int w = 0; w < wrappers; w++) {
		cJSON *j = gsioi_gltf_jobj(c), *children = gsioi_gltf_jarr(c);
		const gsio_skin *sk = &s->skins[first_skin[w]];
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "skeleton%d", w);
		gsioi_gltf_jstr(c, j, "name", gsioi_gltf_or_default(sk->name, fallback));
		for (size_t at = wrapped.first[w]; at < wrapped.first[w + 1]; at++)
			gsioi_gltf_jpush_num(c, children, (double)wrapped.list[at]);
		gsioi_gltf_jset(c, j, "children", children);
		gsioi_gltf_jpush_num(c, c->scene_nodes, (double)((int)nn + helpers + w));
		gsioi_gltf_jadd(c, c->nodes, j);
	}
	free(kids.first), free(kids.list), free(wrapped.first), free(wrapped.list);
	free(wrap);
	free(first_skin);
	return true;
}

// -- Skins

bool gsioi_gltf_write_skins(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	// The axis change R is a permutation: (R M R^-1)[i][j] = M[p[i]][p[j]],
	// and the translation column is scaled and permuted like a position.
	static const int perm_conv[3] = {1, 2, 0}, perm_keep[3] = {0, 1, 2};
	const int *p = c->convert_axes ? perm_conv : perm_keep;
	for (size_t k = 0; k < s->skins_count; k++) {
		const gsio_skin *sk = &s->skins[k];
		size_t nj = sk->joints_count;
		cJSON *skin = gsioi_gltf_jobj(c), *joints = gsioi_gltf_jarr(c);
		for (size_t j = 0; j < nj; j++) gsioi_gltf_jpush_num(c, joints, sk->joints[j]);
		gsioi_gltf_jset(c, skin, "joints", joints);
		if (nj && sk->inverse_bind) {
			float *ibm = gsioi_gltf_xmalloc_array(c, nj, 16 * sizeof(float));
			if (!ibm) {
				cJSON_Delete(skin);
				return false;
			}
			for (size_t j = 0; j < nj; j++) {
				const float *in = sk->inverse_bind + 16 * j;
				float *o = ibm + 16 * j;
				for (int col = 0; col < 3; col++) {
					for (int row = 0; row < 3; row++) o[col * 4 + row] = in[p[col] * 4 + p[row]];
					o[col * 4 + 3] = 0;
				}
				for (int row = 0; row < 3; row++) o[12 + row] = in[12 + p[row]] * c->scale;
				o[15] = 1; // exactly affine, as glTF requires
			}
			int acc = gsioi_gltf_float_accessor(c, ibm, nj, 16, false, 0);
			free(ibm);
			if (acc < 0) {
				cJSON_Delete(skin);
				return false;
			}
			gsioi_gltf_jnum(c, skin, "inverseBindMatrices", acc);
		}
		if (sk->skeleton >= 0) gsioi_gltf_jnum(c, skin, "skeleton", sk->skeleton);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "skin%zu", k);
		gsioi_gltf_jstr(c, skin, "name", gsioi_gltf_or_default(sk->name, fallback));
		gsioi_gltf_jadd(c, c->skins, skin);
	}
	return true;
}

// -- Cameras and lights

static double yfov_of(double hfov_deg, double aspect)
{
	double h = hfov_deg * M_PI / 180.0;
	return 2.0 * atan(tan(h / 2.0) / aspect);
}

/** The first animation with a channel on a node that carries camera ci, and
 *  its FOV channel (NULL if none). */
static const gsio_animation *camera_animation(const gltf_ctx *c, size_t ci, const gsio_channel **fov)
{
	const gsio_scene *s = c->s;
	*fov = NULL;
	for (size_t a = 0; a < s->animations_count; a++) {
		const gsio_animation *an = &s->animations[a];
		const gsio_animation *hit = NULL;
		for (size_t k = 0; k < an->channels_count; k++) {
			const gsio_channel *ch = &an->channels[k];
			if (ch->node < 0 || s->nodes[ch->node].camera != (int32_t)ci) continue;
			hit = an;
			if (ch->path == GSIO_PATH_FOV && ch->values) {
				*fov = ch;
				return an;
			}
		}
		if (hit) return hit;
	}
	return NULL;
}

bool gsioi_gltf_write_cameras(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t ci = 0; ci < s->cameras_count; ci++) {
		const gsio_camera *cam = &s->cameras[ci];
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "camera%zu", ci);
		const char *name = gsioi_gltf_or_default(cam->name, fallback);
		double hfov = cam->fov;
		if (!(hfov > 0 && hfov < 180)) {
			gsioi_gltf_warn(c, "camera %s: field of view %g is out of range: using 90", name, hfov);
			hfov = 90.0;
		}
		double aspect = cam->aspect > 0 ? cam->aspect : CAMERA_ASPECT;
		double znear = (cam->znear > 0 ? cam->znear : CAMERA_ZNEAR) * c->scale;
		cJSON *cj = gsioi_gltf_jobj(c), *persp = gsioi_gltf_jobj(c);
		gsioi_gltf_jstr(c, cj, "name", name);
		gsioi_gltf_jstr(c, cj, "type", "perspective");
		gsioi_gltf_jnum(c, persp, "aspectRatio", aspect);
		gsioi_gltf_jnum(c, persp, "yfov", yfov_of(hfov, aspect));
		gsioi_gltf_jnum(c, persp, "znear", znear);
		if (cam->zfar > 0 && cam->zfar * c->scale > znear) gsioi_gltf_jnum(c, persp, "zfar", cam->zfar * c->scale);
		gsioi_gltf_jset(c, cj, "perspective", persp);
		// glTF cannot animate the field of view (without KHR_animation_pointer,
		// which Blender 3.4 ignores): keep the per-frame values and the cuts.
		cJSON *extras = gsioi_gltf_jobj(c);
		if (!(cam->aspect > 0)) gsioi_gltf_jnum(c, extras, "aspectRatioChosen", aspect);
		const gsio_channel *fov;
		const gsio_animation *an = camera_animation(c, ci, &fov);
		if (fov) {
			cJSON *fovs = gsioi_gltf_jarr(c);
			for (size_t f = 0; f < an->frames_count; f++) gsioi_gltf_jpush_num(c, fovs, fov->values[f]);
			gsioi_gltf_jset(c, extras, "horizontalFovDegrees", fovs);
		}
		if (an && an->cuts_count) {
			cJSON *cuts = gsioi_gltf_jarr(c);
			for (size_t k = 0; k < an->cuts_count; k++) gsioi_gltf_jpush_num(c, cuts, an->cuts[k]);
			gsioi_gltf_jset(c, extras, "cuts", cuts);
		}
		if (cJSON_GetArraySize(extras))
			gsioi_gltf_jset(c, cj, "extras", extras);
		else
			cJSON_Delete(extras);
		gsioi_gltf_jadd(c, c->cameras, cj);
	}
	return true;
}

bool gsioi_gltf_write_lights(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (!s->lights_count) return true;
	for (size_t li = 0; li < s->lights_count; li++) {
		const gsio_light *l = &s->lights[li];
		cJSON *j = gsioi_gltf_jobj(c);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "light%zu", li);
		gsioi_gltf_jstr(c, j, "name", gsioi_gltf_or_default(l->name, fallback));
		const char *type = l->type == GSIO_LIGHT_SPOT ? "spot"
		                   : l->type == GSIO_LIGHT_DIRECTIONAL ? "directional" : "point";
		gsioi_gltf_jstr(c, j, "type", type);
		float col[3];
		for (int k = 0; k < 3; k++) col[k] = l->color[k] < 0 ? 0 : l->color[k] > 1 ? 1 : l->color[k];
		if (col[0] != 1 || col[1] != 1 || col[2] != 1) gsioi_gltf_jset(c, j, "color", gsioi_gltf_jfloats(c, col, 3));
		gsioi_gltf_jnum(c, j, "intensity", l->intensity >= 0 ? l->intensity : 0);
		if (l->type != GSIO_LIGHT_DIRECTIONAL && l->range > 0) gsioi_gltf_jnum(c, j, "range", l->range * c->scale);
		if (l->type == GSIO_LIGHT_SPOT) {
			cJSON *spot = gsioi_gltf_jobj(c);
			gsioi_gltf_jnum(c, spot, "innerConeAngle", l->inner_cone);
			gsioi_gltf_jnum(c, spot, "outerConeAngle", l->outer_cone);
			gsioi_gltf_jset(c, j, "spot", spot);
		}
		cJSON *extras = gsioi_gltf_extras_json(c, NULL, &l->extras);
		if (extras) gsioi_gltf_jset(c, j, "extras", extras);
		gsioi_gltf_jadd(c, c->lights, j);
	}
	cJSON *exts = cJSON_GetObjectItemCaseSensitive(c->root, "extensions");
	if (!exts) {
		exts = gsioi_gltf_jobj(c);
		gsioi_gltf_jset(c, c->root, "extensions", exts);
	}
	cJSON *ext = gsioi_gltf_jobj(c);
	gsioi_gltf_jset(c, ext, "lights", c->lights);
	c->lights = NULL;
	gsioi_gltf_jset(c, exts, "KHR_lights_punctual", ext);
	gsioi_gltf_use_extension(c, "KHR_lights_punctual", &c->used_lights);
	return true;
}
