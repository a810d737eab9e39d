/* MD5 scene building: the neutral scene of a decoded .md5mesh, .md5anim or
 * .md5camera (skeleton, meshes with weights and normals, animations), and
 * the importer entry point. Sibling files (textures, animations) are found
 * and read by md5_siblings.c. */
#include "md5_internal.h"

#include "gsio_tokenizer.h"

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

// Joints from an object-space bind pose (md5mesh): the parent-relative pose
// is conj(parent) * joint and conj(parent) applied to the offset.
static bool joints_from_mesh(gsio_scene *s, const gsio_md5_mesh *m, gsio_error *err)
{
	s->joints = GSIO_NEW_ARRAY(s->arena, gsio_joint, m->joints_count, err);
	GSIO_CHECK(s->joints);
	s->joints_count = m->joints_count;
	for (size_t i = 0; i < m->joints_count; i++) {
		const gsio_md5_joint *mj = &m->joints[i];
		gsio_joint *j = &s->joints[i];
		GSIO_CHECK((j->name = gsioi_arena_strdup(s->arena, mj->name, err)));
		j->parent = mj->parent;
		md5_quat q = quat_from_xyz(mj->orient);
		memcpy(j->world_translation, mj->pos, sizeof(j->world_translation));
		quat_store(q, j->world_rotation);
		if (mj->parent < 0) {
			memcpy(j->translation, mj->pos, sizeof(j->translation));
			quat_store(q, j->rotation);
			continue;
		}
		const gsio_md5_joint *pj = &m->joints[mj->parent];
		md5_quat pinv = quat_conj(quat_from_xyz(pj->orient));
		double d[3] = {(double)mj->pos[0] - pj->pos[0], (double)mj->pos[1] - pj->pos[1],
		               (double)mj->pos[2] - pj->pos[2]};
		double t[3];
		quat_rotate(pinv, d, t);
		for (int k = 0; k < 3; k++) j->translation[k] = (float)t[k];
		quat_store(canonical(quat_mul(pinv, q)), j->rotation);
	}
	return true;
}

// Joints from a parent-relative pose (md5anim baseframe): the world pose is
// composed down the hierarchy (parents come first).
static bool joints_from_anim(gsio_scene *s, const gsio_md5_anim *a, gsio_error *err)
{
	s->joints = GSIO_NEW_ARRAY(s->arena, gsio_joint, a->joints_count, err);
	md5_quat *wq = GSIO_NEW_ARRAY(s->arena, md5_quat, a->joints_count, err);
	double *wt = GSIO_NEW_ARRAY(s->arena, double, 3 * a->joints_count, err);
	GSIO_CHECK(s->joints && wq && wt);
	s->joints_count = a->joints_count;
	for (size_t i = 0; i < a->joints_count; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		const gsio_md5_baseframe *b = &a->baseframe[i];
		gsio_joint *j = &s->joints[i];
		GSIO_CHECK((j->name = gsioi_arena_strdup(s->arena, h->name, err)));
		j->parent = h->parent;
		md5_quat q = quat_from_xyz(b->orient);
		memcpy(j->translation, b->pos, sizeof(j->translation));
		quat_store(q, j->rotation);
		double p[3] = {b->pos[0], b->pos[1], b->pos[2]};
		if (h->parent < 0) {
			wq[i] = q;
			memcpy(&wt[3 * i], p, sizeof(p));
		} else {
			size_t pi = (size_t)h->parent;
			double r[3];
			quat_rotate(wq[pi], p, r);
			for (int k = 0; k < 3; k++) wt[3 * i + (size_t)k] = wt[3 * pi + (size_t)k] + r[k];
			wq[i] = canonical(quat_mul(wq[pi], q));
		}
		for (int k = 0; k < 3; k++) j->world_translation[k] = (float)wt[3 * i + (size_t)k];
		quat_store(wq[i], j->world_rotation);
	}
	return true;
}

// -- Scene: meshes

typedef struct md5_sortkey {
	float p[3];
	uint32_t v;
} md5_sortkey;

static int cmp_sortkey(const void *pa, const void *pb)
{
	const md5_sortkey *a = pa, *b = pb;
	for (int k = 0; k < 3; k++) {
		if (a->p[k] < b->p[k]) return -1;
		if (a->p[k] > b->p[k]) return 1;
	}
	return a->v < b->v ? -1 : a->v > b->v;
}

// Smooth normals from the (already counter-clockwise) triangles: each face
// adds its cross product (twice its area, so big faces count more) to its
// corners; vertices at the same position pool their sums so a UV seam does
// not show as a crease. Returns the number of vertices left without a
// normal (no triangle with area uses them), which get +Z.
static bool mesh_normals(gsio_scene *s, gsio_mesh *mesh, size_t *degenerate, gsio_error *err)
{
	size_t nv = mesh->vertex_count;
	double *acc = GSIO_NEW_ARRAY(s->arena, double, 3 * nv, err);
	md5_sortkey *keys = GSIO_NEW_ARRAY(s->arena, md5_sortkey, nv, err);
	mesh->normals = GSIO_NEW_ARRAY(s->arena, float, 3 * nv, err);
	GSIO_CHECK(acc && keys && mesh->normals);
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
	for (size_t v = 0; v < nv; v++) {
		memcpy(keys[v].p, &p[3 * v], sizeof(keys[v].p));
		keys[v].v = (uint32_t)v;
	}
	if (nv > 1) qsort(keys, nv, sizeof(*keys), cmp_sortkey);
	for (size_t g = 0; g < nv;) {
		size_t e = g + 1;
		while (e < nv && !memcmp(keys[e].p, keys[g].p, sizeof(keys[g].p))) e++;
		double sum[3] = {0, 0, 0};
		for (size_t i = g; i < e; i++)
			for (int k = 0; k < 3; k++) sum[k] += acc[3 * keys[i].v + (uint32_t)k];
		double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
		for (size_t i = g; i < e; i++) {
			float *n = &mesh->normals[3 * keys[i].v];
			if (len > 0.0 && isfinite(len)) {
				for (int k = 0; k < 3; k++) n[k] = (float)(sum[k] / len);
			} else {
				n[0] = n[1] = 0.0f;
				n[2] = 1.0f;
				(*degenerate)++;
			}
		}
		g = e;
	}
	return true;
}

static bool build_mesh(gsio_scene *s, const gsio_md5_mesh *m, size_t mi, const md5_quat *jq,
                       size_t *degenerate, gsio_error *err)
{
	const gsio_md5_submesh *sm = &m->meshes[mi];
	gsio_mesh *mesh = &s->meshes[mi];
	gsio_arena *a = s->arena;
	char name[32];
	snprintf(name, sizeof(name), "mesh%zu", mi);
	GSIO_CHECK((mesh->name = gsioi_arena_strdup(a, name, err)));
	mesh->material = (int32_t)mi;
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
	GSIO_CHECK(mesh->positions && mesh->uvs && mesh->weights.offsets && mesh->weights.joints &&
	           mesh->weights.values && mesh->indices);
	mesh->weights.count = total;
	size_t w_out = 0;
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
			mesh->weights.values[w_out] = w->bias;
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
	// Stored clockwise (Doom 3's front faces, FORMATS.md): reverse.
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
	return mesh_normals(s, mesh, degenerate, err);
}

// -- Scene: animations

// Adds the frames of anim to s (joints already match).
bool gsioi_md5_add_anim(gsio_scene *s, const gsio_md5_anim *a, const char *name, gsio_error *err)
{
	gsio_arena *ar = s->arena;
	gsio_skel_anim *list =
	    GSIO_NEW_ARRAY(ar, gsio_skel_anim, s->animations_count + 1, err);
	GSIO_CHECK(list);
	if (s->animations_count) memcpy(list, s->animations, s->animations_count * sizeof(*list));
	gsio_skel_anim *out = &list[s->animations_count];
	size_t nf = a->frames_count, nj = a->joints_count;
	GSIO_CHECK((out->name = gsioi_arena_strdup(ar, name, err)));
	out->fps = a->frame_rate;
	out->frames_count = nf;
	out->joints_count = nj;
	size_t fj;
	if (!gsioi_mul_size(nf, nj, &fj)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, name, -1, "%zu frames x %zu joints overflow", nf, nj);
		return false;
	}
	out->translations = gsioi_arena_array(ar, fj, 3 * sizeof(float), err);
	out->rotations = gsioi_arena_array(ar, fj, 4 * sizeof(float), err);
	out->bounds = GSIO_NEW_ARRAY(ar, float, 6 * nf, err);
	GSIO_CHECK(out->translations && out->rotations && out->bounds);
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
			float *t = &out->translations[3 * (f * nj + j)];
			memcpy(t, v, 3 * sizeof(float));
			quat_store(quat_from_xyz(v + 3), &out->rotations[4 * (f * nj + j)]);
		}
		memcpy(&out->bounds[6 * f], a->bounds[f].min, 3 * sizeof(float));
		memcpy(&out->bounds[6 * f + 3], a->bounds[f].max, 3 * sizeof(float));
	}
	s->animations = list;
	s->animations_count++;
	return true;
}

int gsio_md5_scene_add_anim(gsio_scene *scene, const gsio_md5_mesh *mesh,
                            const gsio_md5_anim *anim, const char *name, gsio_error *err)
{
	if (!gsioi_md5_anim_valid(anim, err) || gsio_md5_anim_check(mesh, anim, name, err)) return -1;
	return gsioi_md5_add_anim(scene, anim, name ? name : "anim", err) ? 0 : -1;
}

// -- Scene: entry points

gsio_scene *gsio_md5_mesh_to_scene(const gsio_md5_mesh *m, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = m->version;
	if (!mesh_valid(m, err) || !joints_from_mesh(s, m, err)) goto fail;
	md5_quat *jq = GSIO_NEW_ARRAY(s->arena, md5_quat, m->joints_count, err);
	s->meshes = GSIO_NEW_ARRAY(s->arena, gsio_mesh, m->meshes_count, err);
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, m->meshes_count, err);
	if (!jq || !s->meshes || !s->materials) goto fail;
	for (size_t j = 0; j < m->joints_count; j++) jq[j] = quat_from_xyz(m->joints[j].orient);
	s->meshes_count = m->meshes_count;
	s->materials_count = m->meshes_count;
	size_t degenerate = 0;
	for (size_t i = 0; i < m->meshes_count; i++) {
		const gsio_md5_submesh *sm = &m->meshes[i];
		s->source.vertices += sm->verts_count;
		s->source.triangles += sm->tris_count;
		if (!build_mesh(s, m, i, jq, &degenerate, err)) goto fail;
		gsio_material *mat = &s->materials[i];
		char name[32];
		snprintf(name, sizeof(name), "material%zu", i);
		mat->name = gsioi_arena_strdup(s->arena, *sm->shader ? sm->shader : name, err);
		mat->shader = gsioi_arena_strdup(s->arena, sm->shader, err);
		if (!mat->name || !mat->shader) goto fail;
		mat->base_color_image = -1;
		mat->detail_image = -1;
		mat->detail_tiling = 1.0f;
		for (int k = 0; k < 4; k++) mat->base_color[k] = 1.0f;
		if (!gsioi_md5_resolve_texture(s, mat, sm->shader, path, opts, err)) goto fail;
	}
	if (degenerate && !gsioi_scene_warn(s, err,
	                                   "%zu vertices touch no triangle with area: their normal "
	                                   "is +Z",
	                                   degenerate))
		goto fail;
	if (!(opts && (opts->flags & GSIO_OPT_NO_ANIMATION))) {
		if (!gsioi_md5_load_anims(s, m, path, opts, err)) goto fail;
	}
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
}

gsio_scene *gsio_md5_anim_to_scene(const gsio_md5_anim *a, const char *path,
                                   const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = a->version;
	if (!gsioi_md5_anim_valid(a, err) || !joints_from_anim(s, a, err)) goto fail;
	if (!(opts && (opts->flags & GSIO_OPT_NO_ANIMATION))) {
		char *name = gsioi_md5_stem(s, path, "anim", err);
		if (!name || !gsioi_md5_add_anim(s, a, name, err)) goto fail;
	}
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
}

gsio_scene *gsio_md5_camera_to_scene(const gsio_md5_camera *c, const char *path,
                                     const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	s->format = "MD5";
	s->format_version = c->version;
	gsio_arena *a = s->arena;
	if (!camera_valid(c, err)) goto fail;
	bool one = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	size_t nf = one ? 1 : c->frames_count;
	gsio_camera *cam = s->cameras = GSIO_NEW_ARRAY(a, gsio_camera, 1, err);
	if (!cam) goto fail;
	s->cameras_count = 1;
	if (!(cam->name = gsioi_md5_stem(s, path, "camera", err))) goto fail;
	cam->fps = c->frame_rate;
	cam->frames_count = nf;
	cam->positions = GSIO_NEW_ARRAY(a, float, 3 * nf, err);
	cam->rotations = GSIO_NEW_ARRAY(a, float, 4 * nf, err);
	cam->fov = GSIO_NEW_ARRAY(a, float, nf, err);
	cam->cuts = GSIO_NEW_ARRAY(a, uint32_t, c->cuts_count, err);
	if (!cam->positions || !cam->rotations || !cam->fov || !cam->cuts) goto fail;
	for (size_t i = 0; i < nf; i++) {
		memcpy(&cam->positions[3 * i], c->frames[i].pos, 3 * sizeof(float));
		quat_store(quat_from_xyz(c->frames[i].orient), &cam->rotations[4 * i]);
		cam->fov[i] = c->frames[i].fov;
	}
	for (size_t i = 0; i < c->cuts_count; i++)
		if (c->cuts[i] < nf) cam->cuts[cam->cuts_count++] = c->cuts[i];
	return s;
fail:
	gsio_scene_free(s);
	return NULL;
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
