/* MD5 scene building: the neutral scene of a decoded .md5mesh, .md5anim or
 * .md5camera (skeleton, meshes with weights and normals, animations), and
 * the importer entry point. Sibling files (textures, animations) are found
 * and read by md5_siblings.c. */
#include "md5_internal.h"

#include "gsioi_head.h"
#include "gsioi_scene_util.h"
#include "gsioi_tokenizer.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Scene: structures built by hand

// decode() has checked all of this already; a caller that fills the
// structures itself gets an error instead of an out-of-bounds read.
static bool mesh_valid(const gsio_md5_mesh *m, gsio_error *err)
{
	const char *bad = NULL;
	if (!m->joints_count || !m->joints) bad = "no joints";
	for (size_t i = 0; !bad && i < m->joints_count; i++)
		if (!m->joints[i].name || m->joints[i].parent < -1 ||
		    (int64_t)m->joints[i].parent >= (int64_t)i)
			bad = "a joint without a name or with a parent that is not an earlier joint";
	for (size_t mi = 0; !bad && mi < m->meshes_count; mi++) {
		const gsio_md5_submesh *sm = &m->meshes[mi];
		if (!sm->shader) bad = "a mesh without a shader string";
		for (size_t i = 0; !bad && i < sm->verts_count; i++)
			if ((uint64_t)sm->verts[i].start + sm->verts[i].count > sm->weights_count)
				bad = "a vertex's weights lie outside its mesh's weights";
		for (size_t i = 0; !bad && i < sm->tris_count; i++)
			for (int k = 0; k < 3; k++)
				if (sm->tris[i].v[k] >= sm->verts_count) bad = "a triangle's vertex is out of range";
		for (size_t i = 0; !bad && i < sm->weights_count; i++)
			if (sm->weights[i].joint >= m->joints_count) bad = "a weight's joint is out of range";
	}
	if (bad) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 mesh: %s", bad);
	return !bad;
}

bool gsioi_md5_anim_valid(const gsio_md5_anim *a, gsio_error *err)
{
	const char *bad = NULL;
	if (!a->frames_count || !a->joints_count || !a->hierarchy || !a->baseframe ||
	    !a->bounds || (a->components_count && !a->frames))
		bad = "no frames or joints";
	for (size_t i = 0; !bad && i < a->joints_count; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		unsigned used = gsioi_md5_popcount6(h->flags);
		if (!h->name || h->parent < -1 || (int64_t)h->parent >= (int64_t)i || h->flags > 63 ||
		    (used && (uint64_t)h->start_index + used > a->components_count))
			bad = "a hierarchy entry's name, parent, flags or start index";
	}
	if (bad) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 animation: %s", bad);
	return !bad;
}

static bool camera_valid(const gsio_md5_camera *c, gsio_error *err)
{
	bool ok = c->frames_count && c->frames && (c->cuts || !c->cuts_count);
	for (size_t i = 0; ok && i < c->cuts_count; i++)
		ok = c->cuts[i] >= 1 && c->cuts[i] < c->frames_count;
	if (!ok) GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "invalid MD5 camera: no frames or a bad cut");
	return ok;
}

// -- Scene: skeleton

// Keeps one sign convention (w <= 0, id's) for every stored rotation.
static md5_quat canonical(md5_quat q)
{
	if (q.w > 0.0) {
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	return q;
}

// -- Scene: meshes

// A hash of a (finite) position; -0 and +0 hash alike, as they compare equal.
static uint32_t position_hash(const float *p)
{
	float q[3] = {p[0] + 0.0f, p[1] + 0.0f, p[2] + 0.0f}; // -0 + 0 is +0
	uint32_t u[3];
	memcpy(u, q, sizeof(u));
	uint64_t h = (uint64_t)u[0] * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)u[1] * 0xC2B2AE3D27D4EB4Full;
	h ^= (uint64_t)u[2] * 0x165667B19E3779F9ull;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

// Smooth normals from the (already counter-clockwise) triangles: each face
// adds its cross product (twice its area, so big faces count more) to its
// corners; vertices at the same position pool their sums so a UV seam does
// not show as a crease. Returns the number of vertices left without a
// normal (no triangle with area uses them), which get +Z.
//
// Vertices are grouped by position with an open-addressing hash table (a
// sort by position cost 10% of an MD5 load); each group sums its vertices'
// contributions in vertex order.
static bool mesh_normals(gsio_scene *s, gsio_arena *tmp, gsio_mesh *mesh, size_t *degenerate,
                         gsio_error *err)
{
	size_t nv = mesh->vertex_count;
	size_t slots = 16;
	while (slots < 2 * nv) slots *= 2; // nv <= UINT32_MAX, so no overflow
	double *acc = GSIO_NEW_ARRAY(tmp, double, 3 * nv, err);
	uint32_t *group = GSIO_NEW_ARRAY(tmp, uint32_t, nv, err);  // vertex -> group
	uint32_t *table = GSIO_NEW_ARRAY(tmp, uint32_t, slots, err); // first vertex + 1, 0: empty
	mesh->normals = GSIO_NEW_ARRAY(s->arena, float, 3 * nv, err);
	GSIO_CHECK(acc && group && table && mesh->normals);
	// (arena memory comes zeroed)
	const float *p = mesh->positions;
	for (size_t t = 0; t + 2 < mesh->index_count; t += 3) {
		uint32_t a = mesh->indices[t], b = mesh->indices[t + 1], c = mesh->indices[t + 2];
		double e1[3], e2[3];
		for (int k = 0; k < 3; k++) {
			e1[k] = (double)p[3 * b + (uint32_t)k] - p[3 * a + (uint32_t)k];
			e2[k] = (double)p[3 * c + (uint32_t)k] - p[3 * a + (uint32_t)k];
		}
		double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
		               e1[0] * e2[1] - e1[1] * e2[0]};
		for (int k = 0; k < 3; k++) {
			acc[3 * a + (uint32_t)k] += n[k];
			acc[3 * b + (uint32_t)k] += n[k];
			acc[3 * c + (uint32_t)k] += n[k];
		}
	}
	// Group sums go into the group's first vertex's acc entry: a vertex that
	// is not first in its group has its own sum added there, in vertex order.
	size_t mask = slots - 1;
	for (size_t v = 0; v < nv; v++) {
		size_t h = position_hash(&p[3 * v]) & mask;
		for (;;) {
			uint32_t first = table[h];
			if (!first) {
				table[h] = (uint32_t)v + 1;
				group[v] = (uint32_t)v;
				break;
			}
			const float *q = &p[3 * (size_t)(first - 1)], *r = &p[3 * v];
			if (q[0] == r[0] && q[1] == r[1] && q[2] == r[2]) {
				group[v] = first - 1;
				for (int k = 0; k < 3; k++)
					acc[3 * (size_t)(first - 1) + (size_t)k] += acc[3 * v + (size_t)k];
				break;
			}
			h = (h + 1) & mask;
		}
	}
	for (size_t v = 0; v < nv; v++) {
		const double *sum = &acc[3 * (size_t)group[v]];
		double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
		float *n = &mesh->normals[3 * v];
		if (len > 0.0 && isfinite(len)) {
			for (int k = 0; k < 3; k++) n[k] = (float)(sum[k] / len);
		} else {
			n[0] = n[1] = 0.0f;
			n[2] = 1.0f;
			(*degenerate)++;
		}
	}
	return true;
}

/* The file's mesh mi as the scene's mesh si, with material si (the meshes
 * left out leave no gap); named after mi. */
static bool build_mesh(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m, size_t mi,
                       size_t si, const md5_quat *jq, size_t *degenerate, gsio_error *err)
{
	const gsio_md5_submesh *sm = &m->meshes[mi];
	gsio_mesh *mesh = &s->meshes[si];
	gsio_arena *a = s->arena;
	char name[32];
	snprintf(name, sizeof(name), "mesh%zu", mi);
	GSIO_CHECK((mesh->name = gsioi_arena_strdup(a, name, err)));
	mesh->skin = 0; // the one skin lists joint j as its joint j
	GSIO_CHECK((mesh->parts = GSIO_NEW_ARRAY(a, gsio_mesh_part, 1, err)));
	mesh->parts_count = 1;
	mesh->parts[0].material = (int32_t)si;
	size_t nv = sm->verts_count;
	mesh->vertex_count = nv;
	size_t total = 0;
	for (size_t v = 0; v < nv; v++) total += sm->verts[v].count; // each <= weights_count
	if (total > UINT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1,
		          "mesh %zu: %zu vertex weights in all are more than gsio can index", mi, total);
		return false;
	}
	mesh->positions = GSIO_NEW_ARRAY(a, float, 3 * nv, err);
	mesh->uvs = GSIO_NEW_ARRAY(a, float, 2 * nv, err);
	mesh->weights.offsets = GSIO_NEW_ARRAY(a, uint32_t, nv + 1, err);
	mesh->weights.joints = GSIO_NEW_ARRAY(a, uint32_t, total, err);
	mesh->weights.values = GSIO_NEW_ARRAY(a, float, total, err);
	mesh->index_count = 3 * sm->tris_count;
	mesh->indices = GSIO_NEW_ARRAY(a, uint32_t, mesh->index_count, err);
	mesh->parts[0].index_count = mesh->index_count;
	GSIO_CHECK(mesh->positions && mesh->uvs && mesh->weights.offsets && mesh->weights.joints &&
	           mesh->weights.values && mesh->indices);
	mesh->weights.count = total;
	size_t w_out = 0, negative = 0;
	for (size_t v = 0; v < nv; v++) {
		const gsio_md5_vert *mv = &sm->verts[v];
		double pos[3] = {0, 0, 0};
		mesh->weights.offsets[v] = (uint32_t)w_out;
		for (uint32_t k = 0; k < mv->count; k++) {
			const gsio_md5_weight *w = &sm->weights[mv->start + k];
			const gsio_md5_joint *j = &m->joints[w->joint];
			double wp[3] = {w->pos[0], w->pos[1], w->pos[2]}, r[3];
			quat_rotate(jq[w->joint], wp, r);
			for (int c = 0; c < 3; c++) pos[c] += (double)w->bias * ((double)j->pos[c] + r[c]);
			mesh->weights.joints[w_out] = w->joint;
			// The position takes the bias as stored; the skin cannot hold a
			// negative weight (a glTF joint weight is >= 0): 0 there.
			negative += w->bias < 0;
			mesh->weights.values[w_out] = w->bias < 0 ? 0.0f : w->bias;
			w_out++;
		}
		for (int c = 0; c < 3; c++) {
			if (!(fabs(pos[c]) <= FLT_MAX)) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1,
				          "mesh %zu, vert %zu: the weights put the vertex beyond float range",
				          mi, v);
				return false;
			}
			mesh->positions[3 * v + (size_t)c] = (float)pos[c];
		}
		mesh->uvs[2 * v] = mv->st[0];
		mesh->uvs[2 * v + 1] = mv->st[1];
	}
	mesh->weights.offsets[nv] = (uint32_t)w_out;
	if (negative)
		GSIO_CHECK(gsioi_scene_warn(s, err, "mesh %zu: %zu weights with a negative bias: 0 in the skin "
		                                    "(the bind pose uses them as stored)",
		                            mi, negative));
	// Stored clockwise (Doom 3's front faces, docs/FORMATS.md §9.6): reverse.
	for (size_t t = 0; t < sm->tris_count; t++) {
		mesh->indices[3 * t + 0] = sm->tris[t].v[0];
		mesh->indices[3 * t + 1] = sm->tris[t].v[2];
		mesh->indices[3 * t + 2] = sm->tris[t].v[1];
	}
	for (int c = 0; c < 3; c++) mesh->bbox_min[c] = mesh->bbox_max[c] = 0.0f;
	for (size_t v = 0; v < nv; v++)
		for (int c = 0; c < 3; c++) {
			float x = mesh->positions[3 * v + (size_t)c];
			if (v == 0 || x < mesh->bbox_min[c]) mesh->bbox_min[c] = x;
			if (v == 0 || x > mesh->bbox_max[c]) mesh->bbox_max[c] = x;
		}
	return mesh_normals(s, tmp, mesh, degenerate, err);
}


// -- Scene: nodes and the skin

// A joint's pose: translation and rotation, relative to its parent (local)
// or to the model (world).
typedef struct md5_pose {
	double t[3];
	md5_quat q;
} md5_pose;

static void node_defaults(gsio_node *n)
{
	n->parent = -1;
	n->rotation[3] = 1.0f;
	n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
	n->mesh = n->camera = n->light = -1;
}

// s->nodes with room for `count` nodes, none used yet.
static bool alloc_nodes(gsio_scene *s, size_t count, gsio_error *err)
{
	GSIO_CHECK((s->nodes = GSIO_NEW_ARRAY(s->arena, gsio_node, count, err)));
	for (size_t i = 0; i < count; i++) node_defaults(&s->nodes[i]);
	s->nodes_count = 0;
	return true;
}

static void store_local(gsio_node *n, const double t[3], md5_quat q)
{
	for (int k = 0; k < 3; k++) n->translation[k] = (float)t[k];
	quat_store(q, n->rotation);
}

// Joint positions near the float limit can give offsets or inverse binds
// beyond it: an error, not an infinite value in the scene.
static bool all_finite(const float *v, size_t n, size_t joint, const char *what, gsio_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i])) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1,
			          "joint %zu: its %s is beyond float range", joint, what);
			return false;
		}
	return true;
}

// Joint nodes from an object-space bind pose (md5mesh): the parent-relative
// pose is conj(parent) * joint and conj(parent) applied to the offset.
// world[] gets the file's object-space pose.
static bool joints_from_mesh(gsio_scene *s, const gsio_md5_mesh *m, md5_pose *world,
                             gsio_error *err)
{
	for (size_t i = 0; i < m->joints_count; i++) {
		const gsio_md5_joint *mj = &m->joints[i];
		gsio_node *n = &s->nodes[s->nodes_count++];
		GSIO_CHECK((n->name = gsioi_text_utf8_dup(s->arena, mj->name, strlen(mj->name), err)));
		n->parent = mj->parent;
		md5_quat q = quat_from_xyz(mj->orient);
		for (int k = 0; k < 3; k++) world[i].t[k] = mj->pos[k];
		world[i].q = q;
		if (mj->parent < 0) {
			store_local(n, world[i].t, q);
			continue;
		}
		const gsio_md5_joint *pj = &m->joints[mj->parent];
		md5_quat pinv = quat_conj(quat_from_xyz(pj->orient));
		double d[3] = {(double)mj->pos[0] - pj->pos[0], (double)mj->pos[1] - pj->pos[1],
		               (double)mj->pos[2] - pj->pos[2]};
		double t[3];
		quat_rotate(pinv, d, t);
		store_local(n, t, canonical(quat_mul(pinv, q)));
		GSIO_CHECK(all_finite(n->translation, 3, i, "offset from its parent", err));
	}
	return true;
}

// Joint nodes from a parent-relative pose (md5anim baseframe); the world
// pose is composed down the hierarchy (parents come first).
static bool joints_from_anim(gsio_scene *s, const gsio_md5_anim *a, md5_pose *world,
                             gsio_error *err)
{
	for (size_t i = 0; i < a->joints_count; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		const gsio_md5_baseframe *b = &a->baseframe[i];
		gsio_node *n = &s->nodes[s->nodes_count++];
		GSIO_CHECK((n->name = gsioi_text_utf8_dup(s->arena, h->name, strlen(h->name), err)));
		n->parent = h->parent;
		md5_quat q = quat_from_xyz(b->orient);
		double p[3] = {b->pos[0], b->pos[1], b->pos[2]};
		store_local(n, p, q);
		if (h->parent < 0) {
			world[i].q = q;
			memcpy(world[i].t, p, sizeof(p));
		} else {
			const md5_pose *pw = &world[h->parent];
			double r[3];
			quat_rotate(pw->q, p, r);
			for (int k = 0; k < 3; k++) world[i].t[k] = pw->t[k] + r[k];
			world[i].q = canonical(quat_mul(pw->q, q));
		}
	}
	return true;
}

// The inverse of the world bind matrix [R | t]: [R^T | -R^T t], column-major.
static void inverse_bind(const md5_pose *w, float out[16])
{
	md5_quat q = w->q;
	double r[3][3] = {
	    {1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y - q.z * q.w), 2 * (q.x * q.z + q.y * q.w)},
	    {2 * (q.x * q.y + q.z * q.w), 1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z - q.x * q.w)},
	    {2 * (q.x * q.z - q.y * q.w), 2 * (q.y * q.z + q.x * q.w), 1 - 2 * (q.x * q.x + q.y * q.y)}};
	memset(out, 0, 16 * sizeof(float));
	for (int row = 0; row < 3; row++) {
		double tr = 0.0;
		for (int col = 0; col < 3; col++) {
			out[col * 4 + row] = (float)r[col][row]; // transpose
			tr -= r[col][row] * w->t[col];
		}
		out[12 + row] = (float)tr;
	}
	out[15] = 1.0f;
}

// One skin over joint nodes 0..nj-1; its skeleton is the root joint when
// there is only one root.
static bool add_skin(gsio_scene *s, const md5_pose *world, size_t nj, gsio_error *err)
{
	GSIO_CHECK((s->skins = GSIO_NEW_ARRAY(s->arena, gsio_skin, 1, err)));
	gsio_skin *k = &s->skins[0];
	GSIO_CHECK((k->name = gsioi_arena_strdup(s->arena, "skeleton", err)));
	k->joints = GSIO_NEW_ARRAY(s->arena, int32_t, nj, err);
	k->inverse_bind = gsioi_arena_array(s->arena, nj, 16 * sizeof(float), err);
	GSIO_CHECK(k->joints && k->inverse_bind);
	size_t roots = 0;
	for (size_t j = 0; j < nj; j++) {
		k->joints[j] = (int32_t)j;
		inverse_bind(&world[j], &k->inverse_bind[16 * j]);
		GSIO_CHECK(all_finite(&k->inverse_bind[16 * j], 16, j, "inverse bind matrix", err));
		roots += s->nodes[j].parent < 0;
	}
	k->joints_count = nj;
	k->skeleton = roots == 1 ? 0 : -1; // joint 0 is always a root
	s->skins_count = 1;
	return true;
}

// -- Scene: names that must be unique

typedef bool (*md5_taken_fn)(const gsio_scene *s, const char *name);

static bool anim_taken(const gsio_scene *s, const char *name)
{
	for (size_t i = 0; i < s->animations_count; i++)
		if (!strcmp(s->animations[i].name, name)) return true;
	return false;
}

bool gsioi_md5_image_taken(const gsio_scene *s, const char *name)
{
	for (size_t i = 0; i < s->images_count; i++)
		if (!strcmp(s->images[i].name, name)) return true;
	return false;
}

// name, or name.2, name.3, ... when taken; in the scene's arena.
static const char *unique_name(gsio_scene *s, const char *name, md5_taken_fn taken,
                               gsio_error *err)
{
	if (!taken(s, name)) return gsioi_arena_strdup(s->arena, name, err);
	char buf[320];
	for (unsigned n = 2;; n++) {
		snprintf(buf, sizeof(buf), "%.300s.%u", name, n);
		if (!taken(s, buf)) return gsioi_arena_strdup(s->arena, buf, err);
	}
}

const char *gsioi_md5_unique_image_name(gsio_scene *s, const char *name, gsio_error *err)
{
	return unique_name(s, name, gsioi_md5_image_taken, err);
}

// -- Scene: animations

// A new animation at the end of s->animations (the array grows by copying:
// animations are few). Its name is made unique.
static gsio_animation *new_animation(gsio_scene *s, const char *name, float fps, size_t frames,
                                     size_t channels, gsio_error *err)
{
	const char *uname = unique_name(s, name, anim_taken, err);
	gsio_animation *list = GSIO_NEW_ARRAY(s->arena, gsio_animation, s->animations_count + 1, err);
	gsio_channel *ch = GSIO_NEW_ARRAY(s->arena, gsio_channel, channels, err);
	if (!uname || !list || !ch) return NULL;
	if (s->animations_count) memcpy(list, s->animations, s->animations_count * sizeof(*list));
	gsio_animation *out = &list[s->animations_count];
	out->name = uname;
	out->fps = fps;
	out->frames_count = frames;
	out->channels = ch;
	out->channels_count = channels;
	s->animations = list;
	s->animations_count++;
	return out;
}

// Adds the frames of anim to s, whose nodes 0..joints-1 are its joints: one
// translation and one rotation channel per joint, parent-relative.
bool gsioi_md5_add_anim(gsio_scene *s, const gsio_md5_anim *a, const char *name, gsio_error *err)
{
	gsio_arena *ar = s->arena;
	size_t nf = a->frames_count, nj = a->joints_count;
	if (s->nodes_count < nj) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, name, -1,
		          "the scene has %zu nodes, the animation %zu joints", s->nodes_count, nj);
		return false;
	}
	size_t nch;
	if (!gsioi_mul_size(nj, 2, &nch)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, name, -1, "%zu joints overflow", nj);
		return false;
	}
	float *bounds = GSIO_NEW_ARRAY(ar, float, 6 * nf, err); // nf <= INT32_MAX
	GSIO_CHECK(bounds);
	gsio_animation *out = new_animation(s, name, a->frame_rate, nf, nch, err);
	GSIO_CHECK(out);
	out->bounds = bounds;
	for (size_t j = 0; j < nj; j++) {
		gsio_channel *ct = &out->channels[2 * j], *cr = &out->channels[2 * j + 1];
		ct->node = cr->node = (int32_t)j;
		ct->path = GSIO_PATH_TRANSLATION;
		cr->path = GSIO_PATH_ROTATION;
		ct->values = gsioi_arena_array_uninit(ar, nf, 3 * sizeof(float), err);
		cr->values = gsioi_arena_array_uninit(ar, nf, 4 * sizeof(float), err);
		if (!ct->values || !cr->values) {
			s->animations_count--; // drop the unfinished animation
			return false;
		}
	}
	for (size_t f = 0; f < nf; f++) {
		const float *comp = a->frames + f * a->components_count;
		for (size_t j = 0; j < nj; j++) {
			const gsio_md5_hierarchy *h = &a->hierarchy[j];
			float v[6];
			memcpy(v, a->baseframe[j].pos, 3 * sizeof(float));
			memcpy(v + 3, a->baseframe[j].orient, 3 * sizeof(float));
			// Flag bits 1..32 replace Tx, Ty, Tz, Qx, Qy, Qz in that order.
			size_t k = h->start_index;
			for (int b = 0; b < 6; b++)
				if (h->flags & (1u << b)) v[b] = comp[k++];
			memcpy(&out->channels[2 * j].values[3 * f], v, 3 * sizeof(float));
			quat_store(quat_from_xyz(v + 3), &out->channels[2 * j + 1].values[4 * f]);
		}
		memcpy(&bounds[6 * f], a->bounds[f].min, 3 * sizeof(float));
		memcpy(&bounds[6 * f + 3], a->bounds[f].max, 3 * sizeof(float));
	}
	return true;
}

int gsio_md5_scene_add_anim(gsio_scene *scene, const gsio_md5_mesh *mesh,
                            const gsio_md5_anim *anim, const char *name, gsio_error *err)
{
	if (!gsioi_md5_anim_valid(anim, err) || gsio_md5_anim_check(mesh, anim, name, err)) return -1;
	return gsioi_md5_add_anim(scene, anim, name ? name : "anim", err) ? 0 : -1;
}

// -- Scene: entry points

// The start every entry point shares: a scene, and a temporary arena for
// what the load needs only while it runs (destroyed by the caller).
static gsio_scene *scene_begin(int32_t version, const gsio_opts *opts, const char *path,
                               gsio_arena **tmp, gsio_error *err)
{
	*tmp = NULL;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = version;
	if (!(*tmp = gsioi_arena_for(opts, path, err))) {
		gsio_scene_free(s);
		return NULL;
	}
	return s;
}

static gsio_scene *scene_end(gsio_scene *s, gsio_arena *tmp, bool ok)
{
	gsioi_arena_destroy(tmp);
	if (ok) return s;
	gsio_scene_free(s);
	return NULL;
}

// The texture of every kept mesh's shader (materials in mesh order), the
// folders listed once for all of them.
static bool resolve_textures(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m,
                             const char *path, const gsio_opts *opts, gsio_error *err)
{
	md5_candidates *c = gsioi_md5_candidates_new(tmp, opts, err);
	GSIO_CHECK(c);
	bool ok = true;
	for (size_t i = 0, si = 0; ok && i < m->meshes_count; i++)
		if (m->meshes[i].verts_count)
			ok = gsioi_md5_resolve_texture(s, c, &s->materials[si++], m->meshes[i].shader, path,
			                               opts, err);
	gsioi_md5_candidates_free(c);
	return ok;
}

static bool mesh_scene(gsio_scene *s, gsio_arena *tmp, const gsio_md5_mesh *m, const char *path,
                       const gsio_opts *opts, gsio_error *err)
{
	size_t nj = m->joints_count, nm = m->meshes_count, nodes;
	if (!gsioi_add_size(nj, nm, &nodes) || nodes > INT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, path, -1, "%zu joints and %zu meshes are too many nodes",
		          nj, nm);
		return false;
	}
	md5_pose *world = GSIO_NEW_ARRAY(tmp, md5_pose, nj, err);
	md5_quat *jq = GSIO_NEW_ARRAY(tmp, md5_quat, nj, err);
	GSIO_CHECK(world && jq);
	GSIO_CHECK(mesh_valid(m, err) && alloc_nodes(s, nodes, err));
	GSIO_CHECK(joints_from_mesh(s, m, world, err) && add_skin(s, world, nj, err));
	for (size_t j = 0; j < nj; j++) jq[j] = world[j].q;
	s->meshes = GSIO_NEW_ARRAY(s->arena, gsio_mesh, nm, err);
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, nm, err);
	GSIO_CHECK(s->meshes && s->materials);
	gsioi_unique names; // material names: a scan per suffix tried was cubic in one shader's meshes
	gsioi_unique_init(&names, tmp);
	size_t degenerate = 0;
	for (size_t i = 0; i < nm; i++) {
		const gsio_md5_submesh *sm = &m->meshes[i];
		s->source.vertices += sm->verts_count;
		s->source.triangles += sm->tris_count;
		// A mesh without vertices has nothing to draw, and a glTF, MDL or
		// Assimp mesh needs at least one vertex: left out (exporters write
		// such meshes for empty groups). Its triangles, if any, were
		// refused by mesh_valid.
		if (!sm->verts_count) {
			GSIO_CHECK(gsioi_scene_warn(s, err, "mesh %zu (shader \"%.200s\") has no vertices: left out",
			                            i, sm->shader));
			continue;
		}
		size_t si = s->meshes_count++;
		GSIO_CHECK(build_mesh(s, tmp, m, i, si, jq, &degenerate, err));
		// The node placing it: a root at the model's origin.
		gsio_node *n = &s->nodes[s->nodes_count++];
		n->name = s->meshes[si].name;
		n->mesh = (int32_t)si;
		// Its material: the shader kept, its texture resolved below.
		gsio_material *mat = &s->materials[si];
		gsioi_material_defaults(mat);
		char name[32];
		snprintf(name, sizeof(name), "material%zu", i);
		// Named after its shader, as UTF-8 (gsioi_text_utf8); the texture is
		// looked for by the shader as stored.
		mat->shader = gsioi_text_utf8_dup(s->arena, sm->shader, strlen(sm->shader), err);
		GSIO_CHECK(mat->shader);
		const char *base = *mat->shader ? mat->shader : name;
		mat->name = gsioi_unique_name(&names, s->arena, base, 300, err);
		s->materials_count = si + 1;
		GSIO_CHECK(mat->name);
	}
	GSIO_CHECK(resolve_textures(s, tmp, m, path, opts, err));
	if (degenerate)
		GSIO_CHECK(gsioi_scene_warn(s, err,
		                            "%zu vertices touch no triangle with area: their normal is +Z",
		                            degenerate));
	if (opts && (opts->flags & GSIO_OPT_NO_ANIMATION)) return true;
	return gsioi_md5_load_anims(s, tmp, m, path, opts, err);
}

gsio_scene *gsio_md5_mesh_to_scene(const gsio_md5_mesh *m, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (!m) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "no MD5 mesh");
		return NULL;
	}
	gsio_arena *tmp;
	gsio_scene *s = scene_begin(m->version, opts, path, &tmp, err);
	if (!s) return NULL;
	return scene_end(s, tmp, mesh_scene(s, tmp, m, path, opts, err));
}

static bool anim_scene(gsio_scene *s, gsio_arena *tmp, const gsio_md5_anim *a, const char *path,
                       const gsio_opts *opts, gsio_error *err)
{
	GSIO_CHECK(gsioi_md5_anim_valid(a, err));
	md5_pose *world = GSIO_NEW_ARRAY(tmp, md5_pose, a->joints_count, err);
	GSIO_CHECK(world && alloc_nodes(s, a->joints_count, err));
	GSIO_CHECK(joints_from_anim(s, a, world, err));
	s->source.frames = a->frames_count;
	if (opts && (opts->flags & GSIO_OPT_NO_ANIMATION)) return true;
	char *name = gsioi_md5_stem(s, path, "anim", err);
	return name && gsioi_md5_add_anim(s, a, name, err);
}

gsio_scene *gsio_md5_anim_to_scene(const gsio_md5_anim *a, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (!a) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "no MD5 animation");
		return NULL;
	}
	gsio_arena *tmp;
	gsio_scene *s = scene_begin(a->version, opts, path, &tmp, err);
	if (!s) return NULL;
	return scene_end(s, tmp, anim_scene(s, tmp, a, path, opts, err));
}

// One node carrying the camera, placed at frame 0; unless GSIO_OPT_NO_ANIMATION,
// an animation moving it (translation, rotation) and its field of view, with
// the file's cuts. The camera looks along its node's +X, as MD5's does.
static bool camera_scene(gsio_scene *s, const gsio_md5_camera *c, const char *path,
                         const gsio_opts *opts, gsio_error *err)
{
	gsio_arena *a = s->arena;
	GSIO_CHECK(camera_valid(c, err) && alloc_nodes(s, 1, err));
	// A perspective camera's field of view lies strictly between 0 and 180
	// degrees (the scene's rule); the text can hold any float.
	size_t checked = opts && (opts->flags & GSIO_OPT_NO_ANIMATION) ? 1 : c->frames_count;
	for (size_t i = 0; i < checked; i++)
		if (!(c->frames[i].fov > 0.0f && c->frames[i].fov < 180.0f)) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, path, -1,
			          "camera frame %zu: field of view %g is not between 0 and 180 degrees", i,
			          (double)c->frames[i].fov);
			return false;
		}
	char *name = gsioi_md5_stem(s, path, "camera", err);
	s->source.frames = c->frames_count;
	s->cameras = GSIO_NEW_ARRAY(a, gsio_camera, 1, err);
	GSIO_CHECK(name && s->cameras);
	s->cameras_count = 1;
	s->cameras[0].name = name;
	s->cameras[0].fov = c->frames[0].fov;
	gsio_node *n = &s->nodes[s->nodes_count++];
	n->name = name;
	n->camera = 0;
	memcpy(n->translation, c->frames[0].pos, sizeof(n->translation));
	quat_store(quat_from_xyz(c->frames[0].orient), n->rotation);
	if (opts && (opts->flags & GSIO_OPT_NO_ANIMATION)) return true;
	size_t nf = c->frames_count;
	gsio_animation *an = new_animation(s, name, c->frame_rate, nf, 3, err);
	GSIO_CHECK(an);
	float *t = GSIO_NEW_ARRAY(a, float, 3 * nf, err); // nf <= INT32_MAX
	float *r = GSIO_NEW_ARRAY(a, float, 4 * nf, err);
	float *fov = GSIO_NEW_ARRAY(a, float, nf, err);
	an->cuts = GSIO_NEW_ARRAY(a, uint32_t, c->cuts_count, err);
	GSIO_CHECK(t && r && fov && an->cuts);
	for (size_t i = 0; i < nf; i++) {
		memcpy(&t[3 * i], c->frames[i].pos, 3 * sizeof(float));
		quat_store(quat_from_xyz(c->frames[i].orient), &r[4 * i]);
		fov[i] = c->frames[i].fov;
	}
	const gsio_channel_path paths[3] = {GSIO_PATH_TRANSLATION, GSIO_PATH_ROTATION, GSIO_PATH_FOV};
	float *values[3] = {t, r, fov};
	for (int k = 0; k < 3; k++) {
		an->channels[k].node = 0;
		an->channels[k].path = paths[k];
		an->channels[k].values = values[k];
	}
	// Ascending and unique, as the scene wants (the file may repeat or
	// disorder them; each is already in 1..frames-1).
	for (size_t i = 0; i < c->cuts_count; i++) {
		uint32_t cut = c->cuts[i];
		size_t at = an->cuts_count;
		while (at > 0 && an->cuts[at - 1] > cut) at--;
		if (at > 0 && an->cuts[at - 1] == cut) continue;
		memmove(&an->cuts[at + 1], &an->cuts[at], (an->cuts_count - at) * sizeof(uint32_t));
		an->cuts[at] = cut;
		an->cuts_count++;
	}
	return true;
}

gsio_scene *gsio_md5_camera_to_scene(const gsio_md5_camera *c, const char *path,
                                     const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (!c) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "no MD5 camera");
		return NULL;
	}
	gsio_arena *tmp;
	gsio_scene *s = scene_begin(c->version, opts, path, &tmp, err);
	if (!s) return NULL;
	return scene_end(s, tmp, camera_scene(s, c, path, opts, err));
}

// -- Importer

static int md5_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (head && n) {
		size_t skip = gsioi_md5_bom_size(head, n);
		gsioi_tokenizer t;
		gsioi_tokenizer_init(&t, (const char *)head + skip, n - skip, NULL, "{}()", NULL);
		gsioi_token tok;
		if (gsioi_tok_next(&t, &tok) && gsioi_token_is(&tok, "MD5Version")) return 2;
	}
	if (ext && (!strcmp(ext, "md5mesh") || !strcmp(ext, "md5anim") || !strcmp(ext, "md5camera")))
		return 1;
	return 0;
}

bool gsioi_md5_head_ok(const uint8_t *head, size_t n, bool whole, const char *path,
                       gsio_error *err)
{
	static const char *const words[] = {"MD5Version", NULL};
	size_t skip = gsioi_md5_bom_size(head, n);
	return gsioi_tok_head_word((const char *)head + skip, n - skip, whole, path, "{}()", words,
	                           err);
}

bool gsioi_md5_head_undecided(const uint8_t *head, size_t n)
{
	size_t skip = gsioi_md5_bom_size(head, n);
	return !gsioi_tok_head_decides((const char *)head + skip, n - skip, "{}()");
}

static gsio_scene *md5_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	gsio_md5_kind kind = gsio_md5_detect(data, size);
	if (kind == GSIO_MD5_UNKNOWN) {
		// The header does not say: the extension decides, and the parser
		// then reports what is wrong with the text.
		char ext[16];
		gsioi_path_ext(path, ext, sizeof(ext));
		kind = !strcmp(ext, "md5anim")     ? GSIO_MD5_ANIM
		       : !strcmp(ext, "md5camera") ? GSIO_MD5_CAMERA
		                                   : GSIO_MD5_MESH;
	}
	gsio_scene *s = NULL;
	if (kind == GSIO_MD5_ANIM) {
		gsio_md5_anim *a = gsio_md5_anim_decode(data, size, path, opts, err);
		if (a) s = gsio_md5_anim_to_scene(a, path, opts, err);
		gsio_md5_anim_free(a);
	} else if (kind == GSIO_MD5_CAMERA) {
		gsio_md5_camera *c = gsio_md5_camera_decode(data, size, path, opts, err);
		if (c) s = gsio_md5_camera_to_scene(c, path, opts, err);
		gsio_md5_camera_free(c);
	} else {
		gsio_md5_mesh *m = gsio_md5_mesh_decode(data, size, path, opts, err);
		if (m) s = gsio_md5_mesh_to_scene(m, path, opts, err);
		gsio_md5_mesh_free(m);
	}
	return s;
}

const gsio_importer gsio_md5_importer = {
    "id Software MD5", "md5mesh md5anim md5camera", GSIO_MD5_VERSION, GSIO_MD5_VERSION,
    md5_can_read, md5_read,
};
