/* MD5 writer: scene -> .md5mesh + .md5anim + .md5camera structs -> the
 * codec's text (gsio_md5_write.h says what goes where). The structs are
 * built in one work arena per write; the codec prints them. */
#include "gsio_md5_write.h"

#include "md5_internal.h"
#include "gsioi_png.h"
#include "gsioi_place.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

// -- Context

// A rigid pose in model space or relative to a parent joint.
typedef struct md5w_pose {
	double t[3];
	md5_quat q;
} md5w_pose;

// One joint of the file: a node (or the added origin) and its bind pose.
typedef struct md5w_joint {
	int32_t node;       // -1: the added "origin"
	int32_t parent;     // joint index or -1
	md5w_pose bind;     // model space
	const char *name;
} md5w_joint;

// Where a submesh's vertices came from, for the per-frame bounds.
typedef struct md5w_sub {
	gsio_md5_submesh *sm;
} md5w_sub;

typedef struct md5w {
	const gsio_scene *s;
	gsio_scene expanded;    // s when grids had to be expanded (begin)
	const gsio_md5_write_opts *o;
	uint32_t flags;
	gsio_arena *a;          // work arena (and the anim/camera structs)
	gsio_error *err;
	const char *commandline;
	md5w_joint *joints;
	size_t nj;
	int32_t *node_joint;    // per node: its joint or -1
	bool *node_moves;       // per node: a joint or an ancestor of one
	bool scale_warned;
} md5w;

static void warn(md5w *w, const char *fmt, ...) GSIO_PRINTF(2, 3);
static void warn(md5w *w, const char *fmt, ...)
{
	if (!w->o || !w->o->warn) return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsioi_text_sanitize(buf, sizeof(buf));
	w->o->warn(w->o->warn_user, buf);
}

// -- Math (double precision; the scene's floats in, the file's floats out)

static void mat_from_trs(const float t[3], const float r[4], const float s[3], double m[16])
{
	double x = r[0], y = r[1], z = r[2], ww = r[3];
	double n = sqrt(x * x + y * y + z * z + ww * ww);
	if (n > 0) {
		x /= n;
		y /= n;
		z /= n;
		ww /= n;
	}
	double rot[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * ww),     2 * (x * z - y * ww),
	                 2 * (x * y - z * ww),     1 - 2 * (x * x + z * z), 2 * (y * z + x * ww),
	                 2 * (x * z + y * ww),     2 * (y * z - x * ww),     1 - 2 * (x * x + y * y)};
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 3; k++) m[c * 4 + k] = rot[c * 3 + k] * s[c];
		m[c * 4 + 3] = 0;
	}
	m[12] = t[0];
	m[13] = t[1];
	m[14] = t[2];
	m[15] = 1;
}

// out = a * b (column-major; out may not alias).
static void mat_mul(const double a[16], const double b[16], double out[16])
{
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++) {
			double v = 0;
			for (int k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
			out[c * 4 + r] = v;
		}
}

static void mat_point(const double m[16], const float p[3], double out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
}

// The rigid part of an affine matrix: translation, and the rotation of its
// normalised columns. *scaled tells whether a column was not of length 1
// (or the basis was mirrored: the third axis is then flipped).
static md5w_pose pose_of(const double m[16], bool *scaled)
{
	md5w_pose p;
	double col[3][3];
	for (int c = 0; c < 3; c++) {
		double len = sqrt(m[c * 4] * m[c * 4] + m[c * 4 + 1] * m[c * 4 + 1] + m[c * 4 + 2] * m[c * 4 + 2]);
		if (fabs(len - 1.0) > 1e-3) *scaled = true;
		for (int k = 0; k < 3; k++) col[c][k] = len > 0 ? m[c * 4 + k] / len : (c == k);
	}
	double det = col[0][0] * (col[1][1] * col[2][2] - col[2][1] * col[1][2]) -
	             col[1][0] * (col[0][1] * col[2][2] - col[2][1] * col[0][2]) +
	             col[2][0] * (col[0][1] * col[1][2] - col[1][1] * col[0][2]);
	if (det < 0) {
		*scaled = true;
		for (int k = 0; k < 3; k++) col[2][k] = -col[2][k];
	}
	// r(row, column) = col[column][row]
	double r00 = col[0][0], r10 = col[0][1], r20 = col[0][2];
	double r01 = col[1][0], r11 = col[1][1], r21 = col[1][2];
	double r02 = col[2][0], r12 = col[2][1], r22 = col[2][2];
	double tr = r00 + r11 + r22, x, y, z, w;
	if (tr > 0) {
		double s = sqrt(tr + 1.0) * 2;
		w = 0.25 * s, x = (r21 - r12) / s, y = (r02 - r20) / s, z = (r10 - r01) / s;
	} else if (r00 > r11 && r00 > r22) {
		double s = sqrt(1.0 + r00 - r11 - r22) * 2;
		w = (r21 - r12) / s, x = 0.25 * s, y = (r01 + r10) / s, z = (r02 + r20) / s;
	} else if (r11 > r22) {
		double s = sqrt(1.0 + r11 - r00 - r22) * 2;
		w = (r02 - r20) / s, x = (r01 + r10) / s, y = 0.25 * s, z = (r12 + r21) / s;
	} else {
		double s = sqrt(1.0 + r22 - r00 - r11) * 2;
		w = (r10 - r01) / s, x = (r02 + r20) / s, y = (r12 + r21) / s, z = 0.25 * s;
	}
	double n = sqrt(x * x + y * y + z * z + w * w);
	p.q.x = x / n;
	p.q.y = y / n;
	p.q.z = z / n;
	p.q.w = w / n;
	for (int k = 0; k < 3; k++) p.t[k] = m[12 + k];
	return p;
}

static const md5w_pose identity_pose = {{0, 0, 0}, {0, 0, 0, 1}};

// a^-1 * b: b relative to a.
static md5w_pose pose_relative(const md5w_pose *a, const md5w_pose *b)
{
	md5w_pose r;
	md5_quat ic = quat_conj(a->q);
	double d[3] = {b->t[0] - a->t[0], b->t[1] - a->t[1], b->t[2] - a->t[2]};
	quat_rotate(ic, d, r.t);
	r.q = quat_mul(ic, b->q);
	return r;
}

// A model-space point in the joint's space: R^T (p - t).
static void to_joint_space(const md5w_pose *j, const double p[3], float out[3])
{
	double d[3] = {p[0] - j->t[0], p[1] - j->t[1], p[2] - j->t[2]}, r[3];
	quat_rotate(quat_conj(j->q), d, r);
	for (int k = 0; k < 3; k++) out[k] = (float)r[k];
}

// The w a reader recomputes from stored x, y, z (quat_from_xyz's rule).
static double implied_w(const float v[3])
{
	double t = 1.0 - (double)v[0] * v[0] - (double)v[1] * v[1] - (double)v[2] * v[2];
	return t > 0 ? sqrt(t) : 0.0;
}

// The stored x, y, z of id's convention (w <= 0, implied). Near w = 0 the
// implied w is ill-conditioned (a rounding of x, y, z by 1e-7 gives w ~
// 3e-4): the largest component is moved by a few float steps to the value
// whose implied w is nearest the true one.
static void store_orient(md5_quat q, float out[3])
{
	double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	double sgn = q.w > 0 ? -1.0 : 1.0;
	if (!(n > 0)) n = 1;
	out[0] = (float)(sgn * q.x / n);
	out[1] = (float)(sgn * q.y / n);
	out[2] = (float)(sgn * q.z / n);
	double target = fabs(q.w) / n;
	if (target > 0.05) return;
	int big = 0;
	for (int k = 1; k < 3; k++)
		if (fabsf(out[k]) > fabsf(out[big])) big = k;
	float best = out[big];
	double best_err = fabs(implied_w(out) - target);
	for (int dir = -1; dir <= 1; dir += 2) {
		float v[3] = {out[0], out[1], out[2]};
		for (int step = 0; step < 8; step++) {
			v[big] = nextafterf(v[big], dir > 0 ? INFINITY : -INFINITY);
			double e = fabs(implied_w(v) - target);
			if (e < best_err) {
				best_err = e;
				best = v[big];
			}
		}
	}
	out[big] = best;
}

static bool finite3(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i])) return false;
	return true;
}

// -- Names

// A copy of s the MD5 text can hold (no quote or line break: '_').
static const char *text_name(md5w *w, const char *s, const char *fallback, bool *changed)
{
	if (!s || !*s) s = fallback;
	char *c = gsioi_arena_strdup(w->a, s, w->err);
	if (!c) return NULL;
	for (char *p = c; *p; p++)
		if (*p == '"' || *p == '\n' || *p == '\r') {
			*p = '_';
			*changed = true;
		}
	return c;
}

// A file-name-safe copy of s: letters, digits, '-', '_', '.' kept, others
// '_', no leading '.'.
static void file_safe(const char *s, char *out, size_t out_size)
{
	size_t n = 0;
	for (; s && *s && n + 1 < out_size; s++) {
		unsigned char ch = (unsigned char)*s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		          ch == '-' || ch == '_' || (ch == '.' && n > 0);
		out[n++] = ok ? (char)ch : '_';
	}
	out[n] = 0;
	if (!n) snprintf(out, out_size, "_");
}

// -- Animation sampling

// Per node: the animation's channel indices for translation, rotation,
// scale and fov (-1 for none).
typedef struct md5w_chans {
	int32_t t, r, s, fov;
} md5w_chans;

static md5w_chans *channels_of(md5w *w, const gsio_animation *an)
{
	md5w_chans *c = GSIO_NEW_ARRAY(w->a, md5w_chans, w->s->nodes_count, w->err);
	if (!c) return NULL;
	for (size_t i = 0; i < w->s->nodes_count; i++) c[i].t = c[i].r = c[i].s = c[i].fov = -1;
	for (size_t k = 0; an && k < an->channels_count; k++) {
		const gsio_channel *ch = &an->channels[k];
		md5w_chans *n = &c[ch->node];
		int32_t idx = (int32_t)k;
		if (ch->path == GSIO_PATH_TRANSLATION) n->t = idx;
		else if (ch->path == GSIO_PATH_ROTATION) n->r = idx;
		else if (ch->path == GSIO_PATH_SCALE) n->s = idx;
		else if (ch->path == GSIO_PATH_FOV) n->fov = idx;
	}
	return c;
}

// World matrices of every node at frame f of an (NULL: the rest pose).
static void world_at(md5w *w, const gsio_animation *an, const md5w_chans *c, size_t f,
                     double *world)
{
	const gsio_scene *s = w->s;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_node *n = &s->nodes[i];
		const float *t = n->translation, *r = n->rotation, *sc = n->scale;
		if (an && c) {
			if (c[i].t >= 0) t = &an->channels[c[i].t].values[3 * f];
			if (c[i].r >= 0) r = &an->channels[c[i].r].values[4 * f];
			if (c[i].s >= 0) sc = &an->channels[c[i].s].values[3 * f];
		}
		double local[16];
		mat_from_trs(t, r, sc, local);
		if (n->parent >= 0)
			mat_mul(&world[16 * (size_t)n->parent], local, &world[16 * i]);
		else
			memcpy(&world[16 * i], local, sizeof(local));
	}
}

// Model-space pose of every joint from the nodes' world matrices.
static void joint_poses(md5w *w, const double *world, md5w_pose *out)
{
	for (size_t j = 0; j < w->nj; j++) {
		bool scaled = false;
		out[j] = w->joints[j].node < 0 ? identity_pose
		                               : pose_of(&world[16 * (size_t)w->joints[j].node], &scaled);
		if (scaled && !w->scale_warned) {
			w->scale_warned = true;
			warn(w, "joint %s is scaled or mirrored in an animation: MD5 joints are rigid, the "
			        "scale is dropped", w->joints[j].name);
		}
	}
}

// -- Skeleton

// Which nodes are joints and their bind poses; the joint order (origin,
// then by node index) and parents.
static bool build_skeleton(md5w *w)
{
	const gsio_scene *s = w->s;
	size_t nn = s->nodes_count;
	w->node_joint = GSIO_NEW_ARRAY(w->a, int32_t, nn, w->err);
	w->node_moves = GSIO_NEW_ARRAY(w->a, bool, nn, w->err);
	md5w_joint *tmp = GSIO_NEW_ARRAY(w->a, md5w_joint, nn + 1, w->err);
	md5w_pose *node_bind = GSIO_NEW_ARRAY(w->a, md5w_pose, nn, w->err);
	bool *in_skin = GSIO_NEW_ARRAY(w->a, bool, nn, w->err);
	double *world = gsioi_arena_array(w->a, nn, 16 * sizeof(double), w->err);
	GSIO_CHECK(w->node_joint && w->node_moves && tmp && node_bind && in_skin && world);
	for (size_t i = 0; i < nn; i++) w->node_joint[i] = -1;
	world_at(w, NULL, NULL, 0, world);
	bool origin = false, scaled = false;
	// Skin joints of the skins the meshes use: bind = the joint's world
	// matrix at rest, ancestors above the skeleton included (an importer's
	// axis-change root, a placed armature), so that the md5mesh joints, the
	// weights (build_submesh) and the md5anim frames (world_at) are in one
	// model space. The inverse bind matrices only place the vertices.
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		int32_t sk = s->meshes[mi].skin;
		if (sk < 0) continue;
		const gsio_skin *skin = &s->skins[sk];
		for (size_t k = 0; k < skin->joints_count; k++) {
			int32_t node = skin->joints[k];
			if (in_skin[node]) continue;
			in_skin[node] = true;
			node_bind[node] = pose_of(&world[16 * (size_t)node], &scaled);
		}
	}
	// Nodes placing an unskinned mesh carry it rigidly: bind = world.
	bool *placed = GSIO_NEW_ARRAY(w->a, bool, s->meshes_count, w->err);
	GSIO_CHECK(placed);
	for (size_t i = 0; i < nn; i++) {
		int32_t m = s->nodes[i].mesh;
		if (m < 0) continue;
		placed[m] = true;
		if (s->meshes[m].skin >= 0 || in_skin[i]) continue;
		in_skin[i] = true;
		node_bind[i] = pose_of(&world[16 * i], &scaled);
	}
	for (size_t m = 0; m < s->meshes_count; m++)
		if (!placed[m] && s->meshes[m].skin < 0) origin = true;
	if (scaled)
		warn(w, "a joint's rest pose is scaled or mirrored: MD5 joints are rigid, so the vertices "
		        "are stored in joint space without it (the bind pose keeps its shape)");
	// Order: origin first, then by node index (parents before children).
	size_t nj = 0;
	if (origin) {
		tmp[0].node = -1;
		tmp[0].parent = -1;
		tmp[0].bind = identity_pose;
		nj = 1;
	}
	for (size_t i = 0; i < nn; i++) {
		if (!in_skin[i]) continue;
		w->node_joint[i] = (int32_t)nj;
		tmp[nj].node = (int32_t)i;
		tmp[nj].bind = node_bind[i];
		tmp[nj].parent = -1;
		for (int32_t p = s->nodes[i].parent; p >= 0; p = s->nodes[p].parent)
			if (in_skin[p]) {
				tmp[nj].parent = w->node_joint[p];
				break;
			}
		nj++;
	}
	w->joints = tmp;
	w->nj = nj;
	// Names: the node's, made text-safe; the origin's unique among them.
	bool changed = false;
	for (size_t j = 0; j < nj; j++) {
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "joint%zu", j);
		if (tmp[j].node < 0) continue;
		GSIO_CHECK((tmp[j].name = text_name(w, s->nodes[tmp[j].node].name, fallback, &changed)));
	}
	if (origin) {
		char name[32] = "origin";
		for (unsigned n = 2;; n++) {
			bool taken = false;
			for (size_t j = 1; j < nj && !taken; j++) taken = !strcmp(tmp[j].name, name);
			if (!taken) break;
			snprintf(name, sizeof(name), "origin.%u", n);
		}
		GSIO_CHECK((tmp[0].name = gsioi_arena_strdup(w->a, name, w->err)));
	}
	if (changed) warn(w, "joint names with a quote or a line break: those became '_'");
	// Nodes whose motion moves a joint: the joints and their ancestors.
	for (size_t j = 0; j < nj; j++)
		for (int32_t p = tmp[j].node; p >= 0; p = s->nodes[p].parent) w->node_moves[p] = true;
	return true;
}

// -- Mesh

// The shader of material mi: its shader string, else its texture's file
// (the image's uri or source file, or an added PNG: *png_image set), else
// its name.
static const char *shader_of(md5w *w, int32_t mi, const char *stem, int32_t *png_image,
                             bool *changed)
{
	*png_image = -1;
	if (mi < 0) return "";
	const gsio_material *m = &w->s->materials[mi];
	if (m->shader && *m->shader) return text_name(w, m->shader, "", changed);
	int32_t im = m->base_color_texture.image;
	if (im >= 0) {
		const gsio_image *img = &w->s->images[im];
		if (img->uri && *img->uri) return text_name(w, img->uri, "", changed);
		if (img->source_path && *img->source_path)
			return text_name(w, gsioi_path_base(img->source_path), "", changed);
		if (img->rgba && stem && !(w->flags & GSIO_MD5_WRITE_NO_TEXTURES)) {
			char a[128], b[128], buf[300];
			file_safe(stem, a, sizeof(a));
			file_safe(img->name, b, sizeof(b));
			// An image named after its file ("body.png", as glTF keeps
			// them) does not get a second extension.
			size_t bl = strlen(b);
			if (bl > 4 && !strcasecmp(b + bl - 4, ".png")) b[bl - 4] = '\0';
			snprintf(buf, sizeof(buf), "%s_%s.png", a, b);
			*png_image = im;
			return gsioi_arena_strdup(w->a, buf, w->err);
		}
		if (img->name && *img->name) return text_name(w, img->name, "", changed);
	}
	return text_name(w, m->name, "", changed);
}

// One submesh: the triangles of part pi of mesh mi, placed by node `node`
// (-1: a skinned mesh, or an unplaced one on the origin joint). skin_m: per
// joint of a skinned mesh's skin, its rest world matrix times its inverse
// bind (glTF's joint matrix: where the joint puts a vertex at rest).
static bool build_submesh(md5w *w, gsio_arena *out_arena, gsio_md5_submesh *sm, size_t mi,
                          size_t pi, int32_t node, const double *world, const double *skin_m,
                          uint32_t *remap, size_t *unweighted, size_t *renormalised)
{
	const gsio_mesh *m = &w->s->meshes[mi];
	const gsio_mesh_part *part = &m->parts[pi];
	bool skinned = m->skin >= 0;
	const gsio_skin *skin = skinned ? &w->s->skins[m->skin] : NULL;
	for (size_t v = 0; v < m->vertex_count; v++) remap[v] = UINT32_MAX;
	size_t nv = 0;
	for (size_t k = 0; k < part->index_count; k++) {
		uint32_t v = m->indices[part->first_index + k];
		if (remap[v] == UINT32_MAX) remap[v] = (uint32_t)nv++;
	}
	// Weights: every non-zero one of the skin (one to the owning joint for a
	// rigid mesh, or for a skinned vertex with none).
	size_t nw = 0;
	for (size_t v = 0; v < m->vertex_count; v++) {
		if (remap[v] == UINT32_MAX) continue;
		size_t c = 0;
		if (skinned)
			for (uint32_t k = m->weights.offsets[v]; k < m->weights.offsets[v + 1]; k++)
				c += m->weights.values[k] > 0;
		nw += c ? c : 1;
	}
	if (nw > UINT32_MAX || nv > UINT32_MAX) {
		GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1, "mesh %zu: too many vertices for MD5", mi);
		return false;
	}
	sm->verts = GSIO_NEW_ARRAY(out_arena, gsio_md5_vert, nv, w->err);
	sm->tris = GSIO_NEW_ARRAY(out_arena, gsio_md5_tri, part->index_count / 3, w->err);
	sm->weights = GSIO_NEW_ARRAY(out_arena, gsio_md5_weight, nw, w->err);
	GSIO_CHECK(sm->verts && sm->tris && sm->weights);
	sm->verts_count = nv;
	sm->tris_count = part->index_count / 3;
	sm->weights_count = nw;
	// The rigid joint (and the world matrix placing the mesh).
	int32_t rigid = node >= 0 ? w->node_joint[node] : 0;
	double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	const double *place = node >= 0 ? &world[16 * (size_t)node] : ident;
	uint32_t wi = 0;
	for (size_t v = 0; v < m->vertex_count; v++) {
		if (remap[v] == UINT32_MAX) continue;
		gsio_md5_vert *mv = &sm->verts[remap[v]];
		if (m->uvs) {
			mv->st[0] = m->uvs[2 * v];
			mv->st[1] = m->uvs[2 * v + 1];
		}
		mv->start = wi;
		const float *pos = &m->positions[3 * v];
		double p[3];
		mat_point(skinned ? ident : place, pos, p);
		double sum = 0;
		uint32_t first = 0, last = 0;
		if (skinned) {
			first = m->weights.offsets[v];
			last = m->weights.offsets[v + 1];
			for (uint32_t k = first; k < last; k++)
				if (m->weights.values[k] > 0) sum += m->weights.values[k];
		}
		if (sum > 0) {
			// Biases that do not add up to 1 would scale the vertex towards
			// the origin in MD5's weighted sum: normalised.
			bool norm = fabs(sum - 1.0) > 1e-4;
			*renormalised += norm;
			for (uint32_t k = first; k < last; k++) {
				float val = m->weights.values[k];
				if (!(val > 0)) continue;
				gsio_md5_weight *mw = &sm->weights[wi++];
				uint32_t sj = m->weights.joints[k];
				int32_t j = w->node_joint[skin->joints[sj]];
				mw->joint = (uint32_t)j;
				mw->bias = norm ? (float)(val / sum) : val;
				// Each weight's point is where its own joint puts the
				// vertex at rest: the blend at the md5mesh's joints is the
				// scene's skinned rest pose even where it is not the bind.
				mat_point(&skin_m[16 * (size_t)sj], pos, p);
				to_joint_space(&w->joints[j].bind, p, mw->pos);
			}
		} else {
			if (skinned) {
				(*unweighted)++;
				rigid = skin->joints_count ? w->node_joint[skin->joints[0]] : 0;
				if (skin->joints_count) mat_point(skin_m, pos, p);
			}
			gsio_md5_weight *mw = &sm->weights[wi++];
			mw->joint = (uint32_t)rigid;
			mw->bias = 1.0f;
			to_joint_space(&w->joints[rigid].bind, p, mw->pos);
		}
		mv->count = wi - mv->start;
		if (!finite3(sm->weights[mv->start].pos, 3)) {
			GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1,
			          "mesh %zu, vertex %zu: its position in joint space is beyond float range", mi, v);
			return false;
		}
	}
	// Back to clockwise (Doom 3's front faces).
	for (size_t t = 0; t < sm->tris_count; t++) {
		const uint32_t *ix = &m->indices[part->first_index + 3 * t];
		sm->tris[t].v[0] = remap[ix[0]];
		sm->tris[t].v[1] = remap[ix[2]];
		sm->tris[t].v[2] = remap[ix[1]];
	}
	return true;
}

// A PNG to add beside the mesh (an embedded image a shader names).
typedef struct md5w_png {
	const char *name;
	int32_t image;
} md5w_png;

static bool build_mesh(md5w *w, gsio_md5_mesh *out, const char *stem, md5w_png **pngs,
                       size_t *pngs_count)
{
	const gsio_scene *s = w->s;
	gsio_arena *oa = out->arena;
	out->version = GSIO_MD5_VERSION;
	GSIO_CHECK((out->commandline = gsioi_arena_strdup(oa, w->commandline, w->err)));
	out->joints = GSIO_NEW_ARRAY(oa, gsio_md5_joint, w->nj, w->err);
	GSIO_CHECK(out->joints);
	out->joints_count = w->nj;
	for (size_t j = 0; j < w->nj; j++) {
		gsio_md5_joint *mj = &out->joints[j];
		GSIO_CHECK((mj->name = gsioi_arena_strdup(oa, w->joints[j].name, w->err)));
		mj->parent = w->joints[j].parent;
		for (int k = 0; k < 3; k++) mj->pos[k] = (float)w->joints[j].bind.t[k];
		store_orient(w->joints[j].bind.q, mj->orient);
		if (!finite3(mj->pos, 3)) {
			GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1, "joint %s: bind position beyond float range",
			          mj->name);
			return false;
		}
	}
	// Submeshes: per part of each mesh, per placement of an unskinned one.
	size_t count = 0, max_verts = 0;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		size_t places = 0;
		if (s->meshes[mi].skin < 0)
			for (size_t n = 0; n < s->nodes_count; n++) places += s->nodes[n].mesh == (int32_t)mi;
		count += (places ? places : 1) * s->meshes[mi].parts_count;
		if (s->meshes[mi].vertex_count > max_verts) max_verts = s->meshes[mi].vertex_count;
	}
	double *world = gsioi_arena_array(w->a, s->nodes_count, 16 * sizeof(double), w->err);
	uint32_t *remap = GSIO_NEW_ARRAY(w->a, uint32_t, max_verts, w->err);
	out->meshes = GSIO_NEW_ARRAY(oa, gsio_md5_submesh, count, w->err);
	*pngs = GSIO_NEW_ARRAY(w->a, md5w_png, count, w->err);
	GSIO_CHECK(world && remap && out->meshes && *pngs);
	world_at(w, NULL, NULL, 0, world);
	size_t unweighted = 0, renormalised = 0, morphs = 0;
	bool changed = false;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		const gsio_mesh *m = &s->meshes[mi];
		morphs += m->frames_count > 1;
		// The skin's joint matrices at rest, once per mesh.
		double *skin_m = NULL;
		if (m->skin >= 0) {
			const gsio_skin *sk = &s->skins[m->skin];
			skin_m = gsioi_arena_array(w->a, sk->joints_count ? sk->joints_count : 1,
			                           16 * sizeof(double), w->err);
			GSIO_CHECK(skin_m);
			for (size_t k = 0; k < sk->joints_count; k++) {
				double ib[16];
				for (int e = 0; e < 16; e++) ib[e] = sk->inverse_bind[16 * k + (size_t)e];
				mat_mul(&world[16 * (size_t)sk->joints[k]], ib, &skin_m[16 * k]);
			}
		}
		for (int32_t n = -1; n < (int32_t)s->nodes_count; n++) {
			// n = -1: the skinned mesh once, or an unplaced one on the origin.
			if (n >= 0 && (m->skin >= 0 || s->nodes[n].mesh != (int32_t)mi)) continue;
			if (n < 0 && m->skin < 0) {
				bool placed = false;
				for (size_t k = 0; k < s->nodes_count && !placed; k++)
					placed = s->nodes[k].mesh == (int32_t)mi;
				if (placed) continue;
			}
			for (size_t pi = 0; pi < m->parts_count; pi++) {
				gsio_md5_submesh *sm = &out->meshes[out->meshes_count];
				int32_t png;
				const char *sh = shader_of(w, m->parts[pi].material, stem, &png, &changed);
				GSIO_CHECK(sh && (sm->shader = gsioi_arena_strdup(oa, sh, w->err)));
				if (png >= 0) {
					bool dup = false;
					for (size_t k = 0; k < *pngs_count && !dup; k++) dup = (*pngs)[k].image == png;
					if (!dup) (*pngs)[(*pngs_count)++] = (md5w_png){sh, png};
				}
				GSIO_CHECK(build_submesh(w, oa, sm, mi, pi, n, world, skin_m, remap,
				                         &unweighted, &renormalised));
				out->meshes_count++;
			}
		}
	}
	if (changed) warn(w, "shader names with a quote or a line break: those became '_'");
	if (unweighted)
		warn(w, "%zu skinned vertices have no weight: bound to the skin's first joint", unweighted);
	if (renormalised)
		warn(w, "%zu vertices have weights that do not add up to 1: normalised", renormalised);
	if (morphs && (w->flags & GSIO_MD5_WRITE_NO_ANIMATION))
		warn(w, "%zu meshes have vertex-animation frames: MD5 keeps the first only", morphs);
	return true;
}

// -- Animations

static bool is_skeletal(md5w *w, const gsio_animation *an)
{
	for (size_t k = 0; k < an->channels_count; k++) {
		const gsio_channel *ch = &an->channels[k];
		if (ch->path <= GSIO_PATH_SCALE && w->node_moves[ch->node]) return true;
	}
	return false;
}

// Skinned positions of every vertex of out's submeshes at the joints'
// model-space poses, folded into a box.
static void frame_bounds(const gsio_md5_mesh *m, const md5w_pose *pose, size_t nj, float mn[3],
                         float mx[3])
{
	bool any = false;
	double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
	for (size_t si = 0; si < m->meshes_count; si++) {
		const gsio_md5_submesh *sm = &m->meshes[si];
		for (size_t v = 0; v < sm->verts_count; v++) {
			double p[3] = {0, 0, 0};
			for (uint32_t k = 0; k < sm->verts[v].count; k++) {
				const gsio_md5_weight *wt = &sm->weights[sm->verts[v].start + k];
				double wp[3] = {wt->pos[0], wt->pos[1], wt->pos[2]}, r[3];
				const md5w_pose *j = &pose[wt->joint];
				quat_rotate(j->q, wp, r);
				for (int c = 0; c < 3; c++) p[c] += (double)wt->bias * (j->t[c] + r[c]);
			}
			for (int c = 0; c < 3; c++) {
				if (!any || p[c] < lo[c]) lo[c] = p[c];
				if (!any || p[c] > hi[c]) hi[c] = p[c];
			}
			any = true;
		}
	}
	for (size_t j = 0; !any && j < nj; j++) // no vertex: the joints
		for (int c = 0; c < 3; c++) {
			if (j == 0 || pose[j].t[c] < lo[c]) lo[c] = pose[j].t[c];
			if (j == 0 || pose[j].t[c] > hi[c]) hi[c] = pose[j].t[c];
		}
	for (int c = 0; c < 3; c++) {
		mn[c] = (float)lo[c];
		mx[c] = (float)hi[c];
	}
}

static bool build_anim(md5w *w, const gsio_md5_mesh *mesh, const gsio_animation *an,
                       gsio_md5_anim *out)
{
	size_t nf = an->frames_count, nj = w->nj;
	md5w_chans *c = channels_of(w, an);
	double *world = gsioi_arena_array(w->a, w->s->nodes_count, 16 * sizeof(double), w->err);
	md5w_pose *pose = GSIO_NEW_ARRAY(w->a, md5w_pose, nj, w->err);
	size_t vals;
	if (!gsioi_mul3_size(nf, nj, 6, &vals)) {
		GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1, "animation %s: too many frames", an->name);
		return false;
	}
	float *v = gsioi_arena_array_uninit(w->a, vals, sizeof(float), w->err);
	out->hierarchy = GSIO_NEW_ARRAY(w->a, gsio_md5_hierarchy, nj, w->err);
	out->baseframe = GSIO_NEW_ARRAY(w->a, gsio_md5_baseframe, nj, w->err);
	out->bounds = GSIO_NEW_ARRAY(w->a, gsio_md5_bounds, nf, w->err);
	GSIO_CHECK(c && world && pose && v && out->hierarchy && out->baseframe && out->bounds);
	for (size_t f = 0; f < nf; f++) {
		world_at(w, an, c, f, world);
		joint_poses(w, world, pose);
		for (size_t j = 0; j < nj; j++) {
			int32_t p = w->joints[j].parent;
			md5w_pose l = p >= 0 ? pose_relative(&pose[p], &pose[j]) : pose[j];
			float *o = &v[(f * nj + j) * 6];
			for (int k = 0; k < 3; k++) o[k] = (float)l.t[k];
			store_orient(l.q, o + 3);
			if (!finite3(o, 6)) {
				GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1,
				          "animation %s, frame %zu: joint %s is beyond float range", an->name, f,
				          w->joints[j].name);
				return false;
			}
		}
		frame_bounds(mesh, pose, nj, out->bounds[f].min, out->bounds[f].max);
	}
	// Flags: the components that change; the baseframe is frame 0.
	size_t comps = 0;
	for (size_t j = 0; j < nj; j++) {
		gsio_md5_hierarchy *h = &out->hierarchy[j];
		h->name = w->joints[j].name;
		h->parent = w->joints[j].parent;
		const float *b = &v[j * 6];
		memcpy(out->baseframe[j].pos, b, 3 * sizeof(float));
		memcpy(out->baseframe[j].orient, b + 3, 3 * sizeof(float));
		for (int k = 0; k < 6; k++)
			for (size_t f = 1; f < nf; f++) {
				float x = v[(f * nj + j) * 6 + (size_t)k];
				if (fabsf(x - b[k]) > 1e-6f * fmaxf(1.0f, fabsf(b[k]))) {
					h->flags |= 1u << k;
					break;
				}
			}
		h->start_index = (uint32_t)comps;
		comps += gsioi_md5_popcount6(h->flags);
	}
	size_t total;
	if (!gsioi_mul_size(nf, comps, &total) || comps > INT32_MAX) {
		GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1, "animation %s: too many components", an->name);
		return false;
	}
	out->frames = gsioi_arena_array_uninit(w->a, total ? total : 1, sizeof(float), w->err);
	GSIO_CHECK(out->frames);
	for (size_t f = 0; f < nf; f++) {
		float *dst = &out->frames[f * comps];
		for (size_t j = 0; j < nj; j++)
			for (int k = 0; k < 6; k++)
				if (out->hierarchy[j].flags & (1u << k)) *dst++ = v[(f * nj + j) * 6 + (size_t)k];
	}
	out->version = GSIO_MD5_VERSION;
	out->commandline = w->commandline;
	out->frames_count = nf;
	out->joints_count = nj;
	out->frame_rate = an->fps;
	out->components_count = comps;
	return true;
}

// -- Cameras

// A camera's frames: node `node`'s world pose at each frame of an (NULL:
// one frame of the rest pose).
static bool build_camera(md5w *w, const gsio_animation *an, int32_t node, gsio_md5_camera *out)
{
	size_t nf = an ? an->frames_count : 1;
	md5w_chans *c = channels_of(w, an);
	double *world = gsioi_arena_array(w->a, w->s->nodes_count, 16 * sizeof(double), w->err);
	out->frames = GSIO_NEW_ARRAY(w->a, gsio_md5_camera_frame, nf, w->err);
	out->cuts = GSIO_NEW_ARRAY(w->a, uint32_t, an ? an->cuts_count : 0, w->err);
	GSIO_CHECK(c && world && out->frames && out->cuts);
	const gsio_camera *cam = &w->s->cameras[w->s->nodes[node].camera];
	bool scaled = false;
	for (size_t f = 0; f < nf; f++) {
		world_at(w, an, c, f, world);
		md5w_pose p = pose_of(&world[16 * (size_t)node], &scaled);
		gsio_md5_camera_frame *fr = &out->frames[f];
		for (int k = 0; k < 3; k++) fr->pos[k] = (float)p.t[k];
		store_orient(p.q, fr->orient);
		fr->fov = an && c[node].fov >= 0 ? an->channels[c[node].fov].values[f] : cam->fov;
		if (!finite3(fr->pos, 3)) {
			GSIO_FAIL(w->err, GSIO_ERR_LIMIT, NULL, -1, "camera %s, frame %zu: beyond float range",
			          cam->name ? cam->name : "", f);
			return false;
		}
	}
	if (scaled) warn(w, "camera %s is scaled or mirrored: the scale is dropped", cam->name ? cam->name : "");
	if (an && an->cuts_count) memcpy(out->cuts, an->cuts, an->cuts_count * sizeof(uint32_t));
	out->cuts_count = an ? an->cuts_count : 0;
	out->version = GSIO_MD5_VERSION;
	out->commandline = w->commandline;
	out->frame_rate = an ? an->fps : 24.0f;
	out->frames_count = nf;
	return true;
}

// Whether animation an moves camera node `node` (it, an ancestor, or its fov).
static bool moves_camera(const gsio_scene *s, const gsio_animation *an, int32_t node)
{
	for (size_t k = 0; k < an->channels_count; k++) {
		const gsio_channel *ch = &an->channels[k];
		if (ch->path == GSIO_PATH_FOV && ch->node == node) return true;
		if (ch->path > GSIO_PATH_SCALE) continue;
		for (int32_t p = node; p >= 0; p = s->nodes[p].parent)
			if (ch->node == p) return true;
	}
	return false;
}

// -- Output files

typedef struct md5w_files {
	gsio_md5_out_file *items;
	size_t count, cap;
} md5w_files;

// Takes data (malloc'd) into the list under `name` + ext, made unique.
static bool add_file(md5w *w, md5w_files *l, const char *name, const char *ext, uint8_t *data,
                     size_t size, gsio_md5_kind kind)
{
	char base[200], buf[260];
	file_safe(name, base, sizeof(base));
	snprintf(buf, sizeof(buf), "%s%s", base, ext);
	for (unsigned n = 2;; n++) {
		bool taken = false;
		for (size_t i = 0; i < l->count && !taken; i++) taken = !strcasecmp(l->items[i].name, buf);
		if (!taken) break;
		snprintf(buf, sizeof(buf), "%s_%u%s", base, n, ext);
	}
	if (l->count == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		gsio_md5_out_file *n = realloc(l->items, cap * sizeof(*n));
		if (!n) goto nomem;
		l->items = n;
		l->cap = cap;
	}
	char *nm = malloc(strlen(buf) + 1);
	if (!nm) goto nomem;
	strcpy(nm, buf);
	l->items[l->count++] = (gsio_md5_out_file){nm, data, size, kind};
	return true;
nomem:
	free(data);
	GSIO_FAIL(w->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
	return false;
}

// stem + "_" + name, or stem alone when name is the stem.
static void file_stem(const char *stem, const char *name, char *out, size_t out_size)
{
	int n = !name || !*name || !strcmp(name, stem) ? snprintf(out, out_size, "%s", stem)
	                                                : snprintf(out, out_size, "%s_%s", stem, name);
	if (n < 0 || (size_t)n >= out_size) out[out_size - 1] = 0; // a cut name is still a name
}

// -- Entry points

static bool write_all(md5w *w, const char *stem, md5w_files *files)
{
	const gsio_scene *s = w->s;
	bool no_anim = (w->flags & GSIO_MD5_WRITE_NO_ANIMATION) != 0;
	bool cams_only = (w->flags & GSIO_MD5_WRITE_CAMERAS_ONLY) != 0;
	if (!no_anim)
		for (size_t i = 0; i < s->animations_count; i++)
			for (size_t k = 0; k < s->animations[i].channels_count; k++)
				if (s->animations[i].channels[k].path == GSIO_PATH_MORPH) {
					GSIO_FAIL(w->err, GSIO_ERR_UNSUPPORTED, NULL, -1,
					          "MD5 has no vertex (morph) animation, and animation '%s' plays "
					          "mesh frames: write the base pose only (no animation), or bake it "
					          "to a skeleton first",
					          s->animations[i].name);
					return false;
				}
	bool has_mesh = s->meshes_count > 0 && !cams_only;
	size_t ncams = 0;
	for (size_t i = 0; i < s->nodes_count; i++) ncams += s->nodes[i].camera >= 0;
	if (!has_mesh && !ncams) {
		GSIO_FAIL(w->err, GSIO_ERR_UNSUPPORTED, NULL, -1,
		          cams_only ? "the scene has no camera to write as .md5camera"
		                    : "the scene has neither a mesh nor a camera: nothing to write as MD5");
		return false;
	}
	GSIO_CHECK(build_skeleton(w));
	gsio_md5_mesh mesh;
	memset(&mesh, 0, sizeof(mesh));
	mesh.arena = w->a;
	md5w_png *pngs = NULL;
	size_t pngs_count = 0;
	if (has_mesh) {
		GSIO_CHECK(build_mesh(w, &mesh, stem, &pngs, &pngs_count));
		uint8_t *data;
		size_t size;
		if (gsio_md5_mesh_encode(&mesh, &data, &size, w->err)) return false;
		GSIO_CHECK(add_file(w, files, stem, ".md5mesh", data, size, GSIO_MD5_MESH));
	}
	char name[300];
	for (size_t i = 0; has_mesh && !no_anim && i < s->animations_count; i++) {
		const gsio_animation *an = &s->animations[i];
		if (!is_skeletal(w, an)) continue;
		gsio_md5_anim anim;
		memset(&anim, 0, sizeof(anim));
		anim.arena = w->a;
		GSIO_CHECK(build_anim(w, &mesh, an, &anim));
		uint8_t *data;
		size_t size;
		if (gsio_md5_anim_encode(&anim, &data, &size, w->err)) return false;
		file_stem(stem, an->name, name, sizeof(name));
		GSIO_CHECK(add_file(w, files, name, ".md5anim", data, size, GSIO_MD5_ANIM));
	}
	// Cameras: per animation that moves one; a still one only when there is
	// nothing else to write.
	size_t before = files->count;
	bool *moved = GSIO_NEW_ARRAY(w->a, bool, s->nodes_count, w->err);
	GSIO_CHECK(moved);
	for (size_t i = 0; !no_anim && i < s->animations_count; i++)
		for (size_t n = 0; n < s->nodes_count; n++) {
			const gsio_animation *an = &s->animations[i];
			if (s->nodes[n].camera < 0 || !moves_camera(s, an, (int32_t)n)) continue;
			moved[n] = true;
			gsio_md5_camera cam;
			memset(&cam, 0, sizeof(cam));
			cam.arena = w->a;
			GSIO_CHECK(build_camera(w, an, (int32_t)n, &cam));
			uint8_t *data;
			size_t size;
			if (gsio_md5_camera_encode(&cam, &data, &size, w->err)) return false;
			char both[300];
			// Named by the animation; by the node too when it moves several.
			size_t cams_moved = 0;
			for (size_t k = 0; k < s->nodes_count; k++)
				cams_moved += s->nodes[k].camera >= 0 && moves_camera(s, an, (int32_t)k);
			if (cams_moved > 1)
				snprintf(both, sizeof(both), "%.140s_%.140s", an->name, s->nodes[n].name ? s->nodes[n].name : "");
			else
				snprintf(both, sizeof(both), "%s", an->name);
			file_stem(stem, both, name, sizeof(name));
			GSIO_CHECK(add_file(w, files, name, ".md5camera", data, size, GSIO_MD5_CAMERA));
		}
	for (size_t n = 0; !has_mesh && n < s->nodes_count; n++) {
		if (s->nodes[n].camera < 0 || moved[n]) continue;
		gsio_md5_camera cam;
		memset(&cam, 0, sizeof(cam));
		cam.arena = w->a;
		GSIO_CHECK(build_camera(w, NULL, (int32_t)n, &cam));
		uint8_t *data;
		size_t size;
		if (gsio_md5_camera_encode(&cam, &data, &size, w->err)) return false;
		file_stem(stem, s->nodes[n].name, name, sizeof(name));
		GSIO_CHECK(add_file(w, files, name, ".md5camera", data, size, GSIO_MD5_CAMERA));
	}
	// One camera file and nothing else: called like the stem.
	if (!has_mesh && files->count == 1 && before == 0) {
		char *nm = malloc(strlen(stem) + sizeof(".md5camera"));
		if (!nm) {
			GSIO_FAIL(w->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
			return false;
		}
		char safe[200];
		file_safe(stem, safe, sizeof(safe));
		sprintf(nm, "%s.md5camera", safe);
		free(files->items[0].name);
		files->items[0].name = nm;
	}
	if (!files->count) {
		GSIO_FAIL(w->err, GSIO_ERR_UNSUPPORTED, NULL, -1, "no animated camera to write");
		return false;
	}
	for (size_t i = 0; i < pngs_count; i++) {
		const gsio_image *im = &s->images[pngs[i].image];
		uint8_t *png;
		size_t size;
		if (gsioi_png_encode(im->rgba, im->width, im->height, &png, &size, w->err)) return false;
		GSIO_CHECK(add_file(w, files, pngs[i].name, "", png, size, GSIO_MD5_UNKNOWN));
		// The shader names the file as given; uniqueness must not rename it.
		if (strcmp(files->items[files->count - 1].name, pngs[i].name)) {
			GSIO_FAIL(w->err, GSIO_ERR_ARGUMENT, NULL, -1, "texture file name %s is taken",
			          pngs[i].name);
			return false;
		}
	}
	return true;
}

static bool begin(md5w *w, const gsio_scene *scene, const gsio_md5_write_opts *opts,
                  gsio_error *err)
{
	memset(w, 0, sizeof(*w));
	w->s = scene;
	w->o = opts;
	w->flags = opts ? opts->flags : 0;
	w->err = err;
	w->commandline = opts && opts->commandline ? opts->commandline : "gsio " GSIO_VERSION_STRING;
	if (!scene) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no scene");
		return false;
	}
	if (gsio_scene_validate(scene, err)) return false;
	w->a = gsioi_arena_create(opts ? opts->allocator : NULL, opts ? opts->memory_limit : 0);
	if (!w->a) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
	// Terrains kept as grids, expanded for the writer.
	return w->a && gsioi_scene_expand_grids(scene, w->a, &w->expanded, &w->s, err);
}

void gsio_md5_output_free(gsio_md5_output *out)
{
	if (!out) return;
	for (size_t i = 0; i < out->files_count; i++) {
		free(out->files[i].name);
		free(out->files[i].data);
	}
	free(out->files);
	out->files = NULL;
	out->files_count = 0;
}

int gsio_md5_write(const gsio_scene *scene, const char *stem, const gsio_md5_write_opts *opts,
                   gsio_md5_output *out, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!out) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	md5w w;
	md5w_files files = {0};
	bool ok = begin(&w, scene, opts, err) && write_all(&w, stem && *stem ? stem : "model", &files);
	gsioi_arena_destroy(w.a);
	out->files = files.items;
	out->files_count = files.count;
	if (!ok) {
		if (err->code == GSIO_OK) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
		gsio_md5_output_free(out);
		return -1;
	}
	return 0;
}

gsio_md5_mesh *gsio_md5_mesh_from_scene(const gsio_scene *scene, const gsio_md5_write_opts *opts,
                                        gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	md5w w;
	gsio_md5_mesh *m = NULL;
	gsio_arena *oa = NULL;
	bool ok = begin(&w, scene, opts, err);
	if (ok) {
		w.flags |= GSIO_MD5_WRITE_NO_TEXTURES;
		oa = gsioi_arena_create(opts ? opts->allocator : NULL, opts ? opts->memory_limit : 0);
		m = oa ? gsioi_arena_alloc(oa, sizeof(*m), err) : NULL;
		if (!oa) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory");
		md5w_png *pngs;
		size_t np = 0;
		if (m) m->arena = oa;
		ok = m && build_skeleton(&w) && build_mesh(&w, m, NULL, &pngs, &np);
	}
	gsioi_arena_destroy(w.a);
	if (!ok) {
		gsioi_arena_destroy(oa);
		return NULL;
	}
	return m;
}

// -- Files

int gsio_md5_write_file(const gsio_scene *scene, const char *path, const gsio_md5_write_opts *opts,
                        gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!path || !*path) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no output path");
		return -1;
	}
	// The folder (with its '/') and the stem: the name without an MD5 extension.
	const char *base = gsioi_path_base(path);
	size_t dir_len = (size_t)(base - path);
	char ext[16];
	gsioi_path_ext(path, ext, sizeof(ext));
	size_t stem_len = strlen(base);
	if (!strcmp(ext, "md5mesh") || !strcmp(ext, "md5anim") || !strcmp(ext, "md5camera"))
		stem_len -= strlen(ext) + 1;
	char *stem = malloc(stem_len + 1);
	if (!stem) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory");
		return -1;
	}
	memcpy(stem, base, stem_len);
	stem[stem_len] = 0;
	gsio_md5_write_opts o;
	if (opts)
		o = *opts;
	else
		memset(&o, 0, sizeof(o));
	if (!strcmp(ext, "md5camera")) o.flags |= GSIO_MD5_WRITE_CAMERAS_ONLY;
	gsio_md5_output out;
	int rc = gsio_md5_write(scene, stem, &o, &out, err);
	free(stem);
	if (rc) {
		if (!err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
		return rc;
	}
	gsioi_file_data *fd = calloc(out.files_count, sizeof(*fd));
	char **paths = calloc(out.files_count, sizeof(*paths));
	rc = fd && paths ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < out.files_count; i++) {
		size_t n = dir_len + strlen(out.files[i].name) + 1;
		if (!(paths[i] = malloc(n))) {
			rc = -1;
			break;
		}
		memcpy(paths[i], path, dir_len);
		strcpy(paths[i] + dir_len, out.files[i].name);
		fd[i] = (gsioi_file_data){paths[i], out.files[i].data, out.files[i].size};
	}
	if (rc)
		GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory");
	else
		rc = gsioi_place_files(fd, out.files_count, (o.flags & GSIO_MD5_WRITE_NO_REPLACE) != 0, err);
	for (size_t i = 0; paths && i < out.files_count; i++) free(paths[i]);
	free(paths);
	free(fd);
	gsio_md5_output_free(&out);
	return rc ? -1 : 0;
}
