/* The MD5 writer (exporters/gsio_md5_write.h): scene -> .md5mesh/.md5anim/
 * .md5camera -> scene keeps the skeleton, the weights and the pose at every
 * frame; cameras round-trip; what MD5 cannot hold is refused with nothing
 * left on disk; allocation failures fail cleanly; and stock Assimp reads
 * what gsio writes with the same bind-pose positions. */
#include "test_util.h"

#include "gsio_md5_write.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#endif

// -- Helpers

// A fresh empty folder in the build tree.
static const char *fresh_dir(const char *name)
{
	static char path[1024];
	snprintf(path, sizeof(path), "%s/tests/md5_write/%s", GSIO_BINARY_DIR, name);
	char cmd[2200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", path, path);
	assert_int_equal(system(cmd), 0);
	return path;
}

static gsio_scene *load(const char *path, uint32_t flags)
{
	gsio_opts o = {0};
	o.flags = flags;
	gsio_error err;
	gsio_scene *s = gsio_load_file(path, &o, &err);
	if (!s) {
		char buf[600];
		gsio_error_format(&err, buf, sizeof(buf));
		fail_msg("load %s: %s", path, buf);
	}
	gsio_error v;
	assert_int_equal(gsio_scene_validate(s, &v), 0);
	return s;
}

static void write_or_fail(const gsio_scene *s, const char *path, uint32_t flags)
{
	gsio_md5_write_opts o = {0};
	o.flags = flags;
	gsio_error err;
	if (gsio_md5_write_file(s, path, &o, &err)) {
		char buf[600];
		gsio_error_format(&err, buf, sizeof(buf));
		fail_msg("write %s: %s", path, buf);
	}
}

static int32_t node_named(const gsio_scene *s, const char *name)
{
	for (size_t i = 0; i < s->nodes_count; i++)
		if (s->nodes[i].name && !strcmp(s->nodes[i].name, name)) return (int32_t)i;
	return -1;
}

static const gsio_channel *channel(const gsio_animation *a, int32_t node, gsio_channel_path p)
{
	for (size_t i = 0; i < a->channels_count; i++)
		if (a->channels[i].node == node && a->channels[i].path == p) return &a->channels[i];
	return NULL;
}

// |q1 - q2| up to the sign of the quaternion.
static double quat_dist(const float *a, const float *b)
{
	double d1 = 0, d2 = 0;
	for (int k = 0; k < 4; k++) {
		d1 = fmax(d1, fabs((double)a[k] - b[k]));
		d2 = fmax(d2, fabs((double)a[k] + b[k]));
	}
	return fmin(d1, d2);
}

// -- Bob: scene -> MD5 -> scene

static void test_bob_round_trip(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *a = load(t_corpus_path("md5/bob/Bob.md5mesh"), 0);
	assert_true(a->animations_count >= 1);
	const char *dir = fresh_dir("bob");
	char out[1200];
	snprintf(out, sizeof(out), "%s/Bob.md5mesh", dir);
	write_or_fail(a, out, 0);
	// The mesh and its one animation, named like the stem.
	snprintf(out, sizeof(out), "%s/Bob.md5anim", dir);
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	snprintf(out, sizeof(out), "%s/Bob.md5mesh", dir);
	gsio_scene *b = load(out, 0);

	// Joints: the same names, parents (by name) and bind matrices.
	assert_int_equal(a->skins_count, 1);
	assert_int_equal(b->skins_count, 1);
	const gsio_skin *ka = &a->skins[0], *kb = &b->skins[0];
	assert_int_equal(ka->joints_count, kb->joints_count);
	double worst_ib = 0;
	for (size_t j = 0; j < ka->joints_count; j++) {
		const gsio_node *na = &a->nodes[ka->joints[j]], *nb = &b->nodes[kb->joints[j]];
		assert_string_equal(na->name, nb->name);
		if (na->parent < 0)
			assert_true(nb->parent < 0);
		else
			assert_string_equal(a->nodes[na->parent].name, b->nodes[nb->parent].name);
		for (int e = 0; e < 16; e++)
			worst_ib = fmax(worst_ib, fabs((double)ka->inverse_bind[16 * j + (size_t)e] -
			                               kb->inverse_bind[16 * j + (size_t)e]));
	}
	// Meshes: vertices, triangles, UVs, weights (joints by name, values).
	assert_int_equal(a->meshes_count, b->meshes_count);
	double worst_w = 0, worst_p = 0;
	size_t weights = 0;
	for (size_t m = 0; m < a->meshes_count; m++) {
		const gsio_mesh *ma = &a->meshes[m], *mb = &b->meshes[m];
		assert_int_equal(ma->vertex_count, mb->vertex_count);
		assert_int_equal(ma->index_count, mb->index_count);
		assert_memory_equal(ma->indices, mb->indices, ma->index_count * sizeof(uint32_t));
		assert_int_equal(ma->weights.count, mb->weights.count);
		assert_string_equal(a->materials[ma->parts[0].material].shader,
		                    b->materials[mb->parts[0].material].shader);
		for (size_t v = 0; v < ma->vertex_count; v++) {
			assert_int_equal(ma->weights.offsets[v], mb->weights.offsets[v]);
			for (int k = 0; k < 3; k++)
				worst_p = fmax(worst_p, fabs((double)ma->positions[3 * v + (size_t)k] -
				                             mb->positions[3 * v + (size_t)k]));
			for (int k = 0; k < 2; k++)
				assert_true(ma->uvs[2 * v + (size_t)k] == mb->uvs[2 * v + (size_t)k]);
		}
		for (size_t w = 0; w < ma->weights.count; w++) {
			assert_string_equal(a->nodes[ka->joints[ma->weights.joints[w]]].name,
			                    b->nodes[kb->joints[mb->weights.joints[w]]].name);
			worst_w = fmax(worst_w, fabs((double)ma->weights.values[w] - mb->weights.values[w]));
		}
		weights += ma->weights.count;
	}
	// The pose at every frame: each joint's parent-relative translation and
	// rotation.
	double worst_t = 0, worst_r = 0;
	size_t frames = 0;
	for (size_t i = 0; i < a->animations_count; i++) {
		const gsio_animation *aa = &a->animations[i], *ab = NULL;
		for (size_t k = 0; k < b->animations_count; k++)
			if (!strcmp(b->animations[k].name, aa->name)) ab = &b->animations[k];
		if (!ab) fail_msg("animation %s is missing after the round trip", aa->name);
		assert_int_equal(aa->frames_count, ab->frames_count);
		assert_true(aa->fps == ab->fps);
		for (size_t j = 0; j < ka->joints_count; j++) {
			int32_t na = ka->joints[j], nb = node_named(b, a->nodes[na].name);
			const gsio_channel *ta = channel(aa, na, GSIO_PATH_TRANSLATION);
			const gsio_channel *ra = channel(aa, na, GSIO_PATH_ROTATION);
			const gsio_channel *tb = channel(ab, nb, GSIO_PATH_TRANSLATION);
			const gsio_channel *rb = channel(ab, nb, GSIO_PATH_ROTATION);
			assert_true(ta && ra && tb && rb);
			for (size_t f = 0; f < aa->frames_count; f++) {
				for (int k = 0; k < 3; k++)
					worst_t = fmax(worst_t, fabs((double)ta->values[3 * f + (size_t)k] -
					                             tb->values[3 * f + (size_t)k]));
				worst_r = fmax(worst_r, quat_dist(&ra->values[4 * f], &rb->values[4 * f]));
			}
		}
		// Bounds per frame hold the skinned mesh (they are recomputed).
		assert_non_null(ab->bounds);
		frames += aa->frames_count;
	}
	print_message("  Bob: %zu joints, %zu weights, %zu frames; worst differences: inverse bind "
	              "%.2g, weight %.2g, bind position %.2g, translation %.2g, rotation %.2g\n",
	              ka->joints_count, weights, frames, worst_ib, worst_w, worst_p, worst_t, worst_r);
	assert_true(worst_ib < 1e-4 && worst_w < 1e-6 && worst_p < 1e-4 && worst_t < 1e-4 &&
	            worst_r < 1e-4);
	gsio_scene_free(a);
	gsio_scene_free(b);
}

// Flags are set only for the components that change.
static void test_anim_flags(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *a = load(t_corpus_path("md5/bob/Bob.md5mesh"), 0);
	gsio_md5_output out;
	gsio_error err;
	assert_int_equal(gsio_md5_write(a, "Bob", NULL, &out, &err), 0);
	size_t anims = 0;
	for (size_t i = 0; i < out.files_count; i++) {
		if (out.files[i].kind != GSIO_MD5_ANIM) continue;
		anims++;
		gsio_md5_anim *an = gsio_md5_anim_decode(out.files[i].data, out.files[i].size,
		                                         out.files[i].name, NULL, &err);
		assert_non_null(an);
		size_t flagged = 0;
		for (size_t j = 0; j < an->joints_count; j++) {
			const gsio_md5_hierarchy *h = &an->hierarchy[j];
			for (int k = 0; k < 6; k++) {
				if (!(h->flags & (1u << k))) continue;
				flagged++;
				// A flagged component takes at least two values over the frames.
				size_t idx = h->start_index;
				for (int b = 0; b < k; b++) idx += (h->flags >> b) & 1u;
				float first = an->frames[idx];
				bool changes = false;
				for (size_t f = 1; f < an->frames_count && !changes; f++)
					changes = an->frames[f * an->components_count + idx] != first;
				assert_true(changes);
			}
		}
		print_message("  %s: %zu joints, %zu of %zu components animated\n", out.files[i].name,
		              an->joints_count, flagged, 6 * an->joints_count);
		assert_true(flagged < 6 * an->joints_count);
		gsio_md5_anim_free(an);
	}
	assert_int_equal(anims, 1);
	gsio_md5_output_free(&out);
	gsio_scene_free(a);
}

// -- Cameras

static gsio_scene *camera_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	int32_t n = gsio_scene_add_node(s, "shot", -1, &err);
	int32_t c = gsio_scene_add_camera(s, "shot", &err);
	assert_true(n >= 0 && c >= 0);
	s->nodes[n].camera = c;
	s->cameras[c].fov = 75;
	size_t nf = 12;
	int32_t ai = gsio_scene_add_animation(s, "shot", 30.0f, nf, 3, &err);
	assert_true(ai >= 0);
	gsio_animation *a = &s->animations[ai];
	float *t = gsio_scene_alloc(s, nf * 3, sizeof(float), &err);
	float *r = gsio_scene_alloc(s, nf * 4, sizeof(float), &err);
	float *fov = gsio_scene_alloc(s, nf, sizeof(float), &err);
	for (size_t f = 0; f < nf; f++) {
		t[3 * f] = 10.0f * (float)f;
		t[3 * f + 1] = -3.5f;
		t[3 * f + 2] = 64.0f + (float)f;
		double ang = 0.2 * (double)f; // about Z, then a little about Y
		float qz[4] = {0, 0, (float)sin(ang / 2), (float)cos(ang / 2)};
		float qy[4] = {0, (float)sin(0.1), 0, (float)cos(0.1)};
		gsioi_quat_mul(qz, qy, &r[4 * f]);
		fov[f] = 60.0f + (float)f;
	}
	a->channels[0] = (gsio_channel){n, GSIO_PATH_TRANSLATION, t, NULL};
	a->channels[1] = (gsio_channel){n, GSIO_PATH_ROTATION, r, NULL};
	a->channels[2] = (gsio_channel){n, GSIO_PATH_FOV, fov, NULL};
	a->cuts = gsio_scene_alloc(s, 2, sizeof(uint32_t), &err);
	a->cuts[0] = 4;
	a->cuts[1] = 9;
	a->cuts_count = 2;
	return s;
}

static void test_camera_round_trip(void **state)
{
	(void)state;
	gsio_scene *a = camera_scene();
	const char *dir = fresh_dir("camera");
	char out[1200];
	snprintf(out, sizeof(out), "%s/shot.md5camera", dir);
	write_or_fail(a, out, 0);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 1);
	gsio_scene *b = load(out, 0);
	assert_int_equal(b->cameras_count, 1);
	assert_int_equal(b->animations_count, 1);
	const gsio_animation *aa = &a->animations[0], *ab = &b->animations[0];
	assert_int_equal(ab->frames_count, aa->frames_count);
	assert_true(ab->fps == aa->fps);
	assert_int_equal(ab->cuts_count, 2);
	assert_int_equal(ab->cuts[0], 4);
	assert_int_equal(ab->cuts[1], 9);
	double wt = 0, wr = 0, wf = 0;
	for (size_t f = 0; f < aa->frames_count; f++) {
		const gsio_channel *tb = channel(ab, 0, GSIO_PATH_TRANSLATION);
		const gsio_channel *rb = channel(ab, 0, GSIO_PATH_ROTATION);
		const gsio_channel *fb = channel(ab, 0, GSIO_PATH_FOV);
		assert_true(tb && rb && fb);
		for (int k = 0; k < 3; k++)
			wt = fmax(wt, fabs((double)aa->channels[0].values[3 * f + (size_t)k] -
			                   tb->values[3 * f + (size_t)k]));
		wr = fmax(wr, quat_dist(&aa->channels[1].values[4 * f], &rb->values[4 * f]));
		wf = fmax(wf, fabs((double)aa->channels[2].values[f] - fb->values[f]));
	}
	print_message("  camera: %zu frames, 2 cuts; worst position %.2g, rotation %.2g, fov %.2g\n",
	              aa->frames_count, wt, wr, wf);
	assert_true(wt < 1e-4 && wr < 1e-5 && wf < 1e-5);
	gsio_scene_free(a);
	gsio_scene_free(b);
}

// The camera of Bob's scene is not there; a camera beside a mesh is written
// beside it, named after its animation.
static void test_camera_beside_mesh(void **state)
{
	(void)state;
	gsio_scene *s = camera_scene();
	gsio_error err;
	int32_t m = gsio_scene_add_mesh(s, "tri", 3, 3, 0, -1, &err);
	assert_true(m >= 0);
	float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
	memcpy(s->meshes[m].positions, p, sizeof(p));
	uint32_t ix[3] = {0, 1, 2};
	memcpy(s->meshes[m].indices, ix, sizeof(ix));
	s->meshes[m].bbox_max[0] = s->meshes[m].bbox_max[1] = 1;
	gsio_md5_output out;
	if (gsio_md5_write(s, "tri", NULL, &out, &err)) fail_msg("%s", err.message);
	assert_int_equal(out.files_count, 2);
	assert_string_equal(out.files[0].name, "tri.md5mesh");
	assert_string_equal(out.files[1].name, "tri_shot.md5camera");
	// The unplaced mesh hangs from an added "origin" joint.
	gsio_md5_mesh *mm = gsio_md5_mesh_decode(out.files[0].data, out.files[0].size, "tri", NULL, &err);
	assert_non_null(mm);
	assert_int_equal(mm->joints_count, 1);
	assert_string_equal(mm->joints[0].name, "origin");
	assert_int_equal(mm->meshes[0].tris[0].v[1], 2); // clockwise again
	gsio_md5_mesh_free(mm);
	gsio_md5_output_free(&out);
	gsio_scene_free(s);
}

// -- Refused scenes: clear errors, nothing left

static void test_morph_refused(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char **files;
	size_t n = t_list_files(t_corpus_path("mdl"), ".mdl", &files);
	gsio_scene *s = NULL;
	for (size_t i = 0; i < n && !s; i++) {
		gsio_error err;
		gsio_scene *c = gsio_load_file(files[i], NULL, &err);
		bool morph = false;
		for (size_t a = 0; c && a < c->animations_count; a++)
			for (size_t k = 0; k < c->animations[a].channels_count; k++)
				morph = morph || c->animations[a].channels[k].path == GSIO_PATH_MORPH;
		if (morph)
			s = c;
		else
			gsio_scene_free(c);
	}
	t_free_list(files, n);
	assert_non_null(s);
	const char *dir = fresh_dir("morph");
	char out[1200];
	snprintf(out, sizeof(out), "%s/m.md5mesh", dir);
	gsio_error err;
	assert_int_not_equal(gsio_md5_write_file(s, out, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.message, "morph"));
	print_message("  morph into MD5: %s\n", err.message);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 0);
	// The base pose alone is written, and reads back with its triangles.
	write_or_fail(s, out, GSIO_MD5_WRITE_NO_ANIMATION);
	gsio_scene *b = load(out, 0);
	size_t ta = 0, tb = 0;
	for (size_t m = 0; m < s->meshes_count; m++) ta += s->meshes[m].index_count;
	for (size_t m = 0; m < b->meshes_count; m++) tb += b->meshes[m].index_count;
	assert_int_equal(ta, tb);
	assert_true(b->images_count >= 1); // the skin went out as a PNG beside it
	gsio_scene_free(b);
	gsio_scene_free(s);
}

static void test_bad_scenes(void **state)
{
	(void)state;
	gsio_error err;
	const char *dir = fresh_dir("bad");
	char out[1200];
	snprintf(out, sizeof(out), "%s/x.md5mesh", dir);
	// Empty: nothing to write.
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_int_not_equal(gsio_md5_write_file(s, out, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	// NaN position: the validator says so.
	int32_t m = gsio_scene_add_mesh(s, "tri", 3, 3, 0, -1, &err);
	s->meshes[m].positions[4] = NAN;
	assert_int_not_equal(gsio_md5_write_file(s, out, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	print_message("  NaN position: %s\n", err.message);
	// Cameras only, but none.
	s->meshes[m].positions[4] = 0;
	snprintf(out, sizeof(out), "%s/x.md5camera", dir);
	assert_int_not_equal(gsio_md5_write_file(s, out, NULL, &err), 0);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 0);
	gsio_scene_free(s);
}

// -- Allocation failures

static int try_md5_write(void *ctx, gsio_allocator *al, gsio_error *err)
{
	gsio_md5_write_opts o = {0};
	o.allocator = al;
	gsio_md5_output out;
	int rc = gsio_md5_write(ctx, "cube", &o, &out, err);
	assert_int_equal(((t_fail_alloc *)al->user)->live, 0); // the output is not the allocator's
	if (rc == 0) gsio_md5_output_free(&out);
	else assert_int_equal(out.files_count, 0);
	return rc;
}

static void test_alloc_failures(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *s = load(t_corpus_path("md5/SimpleCube.md5mesh"), 0);
	size_t failures = t_each_alloc_fails("SimpleCube -> MD5", try_md5_write, s, T_NOMEM, 1).failures;
	print_message("  SimpleCube -> MD5 fails cleanly at each of its first %zu allocations\n", failures);
	assert_true(failures > 0);
	gsio_scene_free(s);
}

// -- Rigid nodes become joints; their animation an md5anim

static void test_rigid_animation(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	int32_t root = gsio_scene_add_node(s, "root", -1, &err);
	int32_t arm = gsio_scene_add_node(s, "arm", root, &err);
	int32_t m = gsio_scene_add_mesh(s, "box", 3, 3, 0, -1, &err);
	float p[9] = {0, 0, 0, 2, 0, 0, 0, 2, 0};
	memcpy(s->meshes[m].positions, p, sizeof(p));
	uint32_t ix[3] = {0, 1, 2};
	memcpy(s->meshes[m].indices, ix, sizeof(ix));
	s->meshes[m].bbox_max[0] = s->meshes[m].bbox_max[1] = 2;
	s->nodes[arm].mesh = m;
	s->nodes[arm].translation[0] = 5;
	size_t nf = 8;
	int32_t ai = gsio_scene_add_animation(s, "swing", 10.0f, nf, 1, &err);
	float *r = gsio_scene_alloc(s, 4 * nf, sizeof(float), &err);
	for (size_t f = 0; f < nf; f++) {
		r[4 * f + 2] = (float)sin(0.1 * (double)f);
		r[4 * f + 3] = (float)cos(0.1 * (double)f);
	}
	s->animations[ai].channels[0] = (gsio_channel){root, GSIO_PATH_ROTATION, r, NULL};
	const char *dir = fresh_dir("rigid");
	char out[1200];
	snprintf(out, sizeof(out), "%s/arm.md5mesh", dir);
	write_or_fail(s, out, 0);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 2); // arm.md5mesh, arm_swing.md5anim
	gsio_scene *b = load(out, 0);
	assert_int_equal(b->animations_count, 1);
	assert_string_equal(b->animations[0].name, "arm_swing");
	// The mesh's joint is "arm"; at every frame its world position is the
	// scene's.
	int32_t jb = node_named(b, "arm");
	assert_true(jb >= 0);
	const gsio_animation *ab = &b->animations[0];
	double worst = 0;
	for (size_t f = 0; f < nf; f++) {
		// Scene a: root rotated by r[f], arm at (5,0,0) in it.
		float pa[3], pb[3], v[3] = {5, 0, 0};
		gsioi_quat_rotate(&r[4 * f], v, pa);
		// Scene b: root joint only moves arm through its parent, "root" is
		// not a joint (no mesh there): arm's pose is world.
		const gsio_channel *t = channel(ab, jb, GSIO_PATH_TRANSLATION);
		assert_non_null(t);
		memcpy(pb, &t->values[3 * f], sizeof(pb));
		for (int k = 0; k < 3; k++) worst = fmax(worst, fabs((double)pa[k] - pb[k]));
	}
	print_message("  rigid node animation: worst joint position %.2g\n", worst);
	assert_true(worst < 1e-4);
	gsio_scene_free(b);
	gsio_scene_free(s);
}

// -- A skeleton below a rotated node: one model space in mesh, weights, anim

// q's w from an MD5 orientation (id's rule: w <= 0).
static void md5_quat4(const float xyz[3], float q[4])
{
	double t = 1.0 - (double)xyz[0] * xyz[0] - (double)xyz[1] * xyz[1] - (double)xyz[2] * xyz[2];
	q[0] = xyz[0];
	q[1] = xyz[1];
	q[2] = xyz[2];
	q[3] = (float)(t > 0 ? -sqrt(t) : 0.0);
}

// The Assimp adapter's shape for a Blender glTF: an axis-change root (+90
// degrees about X, Y-up to Z-up) above the armature and the mesh node. The
// md5mesh joints must be the joints' world poses (the root included), the
// skinned bind-pose vertices the mesh's world positions, and the md5anim's
// frame 0 (the rest pose) the md5mesh's joints.
static void test_skeleton_below_rotated_root(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	const float h = (float)sqrt(0.5);
	int32_t axis = gsio_scene_add_node(s, "axis", -1, &err);
	int32_t arm = gsio_scene_add_node(s, "Armature", axis, &err);
	int32_t jr = gsio_scene_add_node(s, "root", arm, &err);
	int32_t jb = gsio_scene_add_node(s, "bone", jr, &err);
	int32_t jt = gsio_scene_add_node(s, "tip", jb, &err);
	int32_t body = gsio_scene_add_node(s, "body", axis, &err);
	assert_true(axis >= 0 && arm >= 0 && jr >= 0 && jb >= 0 && jt >= 0 && body >= 0);
	s->nodes[axis].rotation[0] = h; // (sin 45, 0, 0, cos 45)
	s->nodes[axis].rotation[3] = h;
	s->nodes[arm].translation[0] = 0.5f;
	s->nodes[arm].translation[2] = 0.25f;
	s->nodes[jr].translation[1] = 1.0f;
	s->nodes[jb].translation[1] = 2.0f;
	s->nodes[jb].rotation[2] = (float)sin(3.14159265358979323846 / 12); // 30 degrees about Z
	s->nodes[jb].rotation[3] = (float)cos(3.14159265358979323846 / 12);
	s->nodes[jt].translation[1] = 1.0f;
	s->nodes[body].translation[2] = 0.1f;
	// The mesh: two triangles along the bones, in the body node's space.
	int32_t m = gsio_scene_add_mesh(s, "body", 4, 6, 0, -1, &err);
	int32_t sk = gsio_scene_add_skin(s, "rig", 3, &err);
	assert_true(m >= 0 && sk >= 0);
	s->nodes[body].mesh = m;
	gsio_mesh *me = &s->meshes[m];
	me->skin = sk;
	const float pos[12] = {0.5f, 1, 0, 0.6f, 2.5f, 0.2f, 0.4f, 3.5f, -0.1f, 0.9f, 1.8f, 0.3f};
	const uint32_t ix[6] = {0, 1, 2, 0, 2, 3};
	memcpy(me->positions, pos, sizeof(pos));
	memcpy(me->indices, ix, sizeof(ix));
	for (int k = 0; k < 3; k++) {
		me->bbox_min[k] = -1;
		me->bbox_max[k] = 4;
	}
	const uint32_t wj[6] = {0, 0, 1, 1, 2, 2};
	const float wv[6] = {1, 0.5f, 0.5f, 0.25f, 0.75f, 1};
	const uint32_t wo[5] = {0, 1, 3, 5, 6};
	me->weights.offsets = gsio_scene_alloc(s, 5, sizeof(uint32_t), &err);
	me->weights.joints = gsio_scene_alloc(s, 6, sizeof(uint32_t), &err);
	me->weights.values = gsio_scene_alloc(s, 6, sizeof(float), &err);
	assert_true(me->weights.offsets && me->weights.joints && me->weights.values);
	memcpy(me->weights.offsets, wo, sizeof(wo));
	memcpy(me->weights.joints, wj, sizeof(wj));
	memcpy(me->weights.values, wv, sizeof(wv));
	me->weights.count = 6;
	// Inverse binds as glTF and the adapter have them: the joint's world
	// inverse times the mesh node's world (bind pose = rest pose).
	gsio_skin *skin = &s->skins[sk];
	const int32_t joints[3] = {jr, jb, jt};
	float wbody[16];
	gsio_node_world_matrix(s, body, wbody);
	for (size_t k = 0; k < 3; k++) {
		float wj4[16], inv[16];
		skin->joints[k] = joints[k];
		gsio_node_world_matrix(s, joints[k], wj4);
		assert_int_equal(gsioi_mat4_invert(wj4, inv), 0);
		gsioi_mat4_mul(inv, wbody, &skin->inverse_bind[16 * k]);
	}
	// An animation bending the bone; frame 0 is the rest pose.
	size_t nf = 4;
	int32_t ai = gsio_scene_add_animation(s, "bend", 24.0f, nf, 1, &err);
	assert_true(ai >= 0);
	float *r = gsio_scene_alloc(s, 4 * nf, sizeof(float), &err);
	assert_non_null(r);
	for (size_t f = 0; f < nf; f++) {
		double ang = 3.14159265358979323846 / 6 + 0.3 * (double)f;
		r[4 * f + 2] = (float)sin(ang / 2);
		r[4 * f + 3] = (float)cos(ang / 2);
	}
	s->animations[ai].channels[0] = (gsio_channel){jb, GSIO_PATH_ROTATION, r, NULL};
	gsio_error v;
	assert_int_equal(gsio_scene_validate(s, &v), 0);

	gsio_md5_output out;
	assert_int_equal(gsio_md5_write(s, "rig", NULL, &out, &err), 0);
	gsio_md5_mesh *mm = NULL;
	gsio_md5_anim *an = NULL;
	for (size_t i = 0; i < out.files_count; i++) {
		if (out.files[i].kind == GSIO_MD5_MESH)
			mm = gsio_md5_mesh_decode(out.files[i].data, out.files[i].size, out.files[i].name,
			                          NULL, &err);
		else if (out.files[i].kind == GSIO_MD5_ANIM)
			an = gsio_md5_anim_decode(out.files[i].data, out.files[i].size, out.files[i].name,
			                          NULL, &err);
	}
	assert_non_null(mm);
	assert_non_null(an);
	assert_int_equal(mm->joints_count, 3);
	assert_int_equal(an->joints_count, 3);
	// Joints: model-space positions = the scene's world positions.
	double worst_j = 0, worst_a = 0, worst_v = 0;
	float apos[3][3], aq[3][4];
	for (size_t j = 0; j < 3; j++) {
		const gsio_md5_joint *mj = &mm->joints[j];
		int32_t n = node_named(s, mj->name);
		assert_true(n == jr || n == jb || n == jt);
		float wm[16];
		gsio_node_world_matrix(s, n, wm);
		for (int k = 0; k < 3; k++)
			worst_j = fmax(worst_j, fabs((double)mj->pos[k] - wm[12 + k]));
		// md5anim frame 0 (the baseframe with the frame's components),
		// composed to model space: the md5mesh joint again.
		const gsio_md5_hierarchy *hj = &an->hierarchy[j];
		float comp[6];
		memcpy(comp, an->baseframe[j].pos, 3 * sizeof(float));
		memcpy(comp + 3, an->baseframe[j].orient, 3 * sizeof(float));
		size_t idx = hj->start_index;
		for (int k = 0; k < 6; k++)
			if (hj->flags & (1u << k)) comp[k] = an->frames[idx++];
		float lq[4];
		md5_quat4(comp + 3, lq);
		if (hj->parent < 0) {
			memcpy(apos[j], comp, sizeof(apos[j]));
			memcpy(aq[j], lq, sizeof(aq[j]));
		} else {
			float d[3];
			gsioi_quat_rotate(aq[hj->parent], comp, d);
			for (int k = 0; k < 3; k++) apos[j][k] = apos[hj->parent][k] + d[k];
			gsioi_quat_mul(aq[hj->parent], lq, aq[j]);
		}
		for (int k = 0; k < 3; k++)
			worst_a = fmax(worst_a, fabs((double)apos[j][k] - mj->pos[k]));
	}
	// The bind-pose vertices: the mesh's positions placed by its node.
	assert_int_equal(mm->meshes_count, 1);
	const gsio_md5_submesh *sm = &mm->meshes[0];
	assert_int_equal(sm->verts_count, 4);
	for (size_t i = 0; i < 4; i++) {
		double p[3] = {0, 0, 0};
		for (uint32_t k = 0; k < sm->verts[i].count; k++) {
			const gsio_md5_weight *wt = &sm->weights[sm->verts[i].start + k];
			const gsio_md5_joint *mj = &mm->joints[wt->joint];
			float q[4], rp[3];
			md5_quat4(mj->orient, q);
			gsioi_quat_rotate(q, wt->pos, rp);
			for (int c = 0; c < 3; c++) p[c] += (double)wt->bias * (mj->pos[c] + rp[c]);
		}
		// Which scene vertex: the submesh keeps first-use order (0..3 here).
		const float *sv = &pos[3 * i];
		for (int c = 0; c < 3; c++) {
			double e = wbody[c] * sv[0] + wbody[4 + c] * sv[1] + wbody[8 + c] * sv[2] + wbody[12 + c];
			worst_v = fmax(worst_v, fabs(p[c] - e));
		}
	}
	print_message("  skeleton below a rotated root: joints off their world positions by %.2g, "
	              "md5anim frame 0 off the md5mesh joints by %.2g, bind vertices off by %.2g\n",
	              worst_j, worst_a, worst_v);
	assert_true(worst_j < 1e-5);
	assert_true(worst_a < 1e-5);
	assert_true(worst_v < 1e-5);
	gsio_md5_anim_free(an);
	gsio_md5_mesh_free(mm);
	gsio_md5_output_free(&out);
	gsio_scene_free(s);
}

// -- Assimp 5.2.5 reads what gsio writes

#ifdef GSIO_HAVE_ASSIMP
static void assimp_check(const char *rel, const char *stem, uint32_t flags)
{
	gsio_scene *src = load(t_corpus_path(rel), flags);
	char sub[64];
	snprintf(sub, sizeof(sub), "assimp_%s", stem);
	const char *dir = fresh_dir(sub);
	char out[1200];
	snprintf(out, sizeof(out), "%s/%s.md5mesh", dir, stem);
	write_or_fail(src, out, flags);
	gsio_scene *s = load(out, GSIO_OPT_NO_ANIMATION);
	const struct aiScene *ai = aiImportFile(out, 0);
	if (!ai) fail_msg("Assimp cannot read %s: %s", out, aiGetErrorString());
	assert_int_equal(ai->mNumMeshes, s->meshes_count);
	double worst = 0;
	size_t verts = 0;
	for (size_t m = 0; m < s->meshes_count; m++) {
		const struct aiMesh *am = ai->mMeshes[m];
		const gsio_mesh *gm = &s->meshes[m];
		assert_int_equal(am->mNumFaces * 3, gm->index_count);
		float *ap = malloc((size_t)am->mNumVertices * 3 * sizeof(float) + 1);
		for (unsigned v = 0; v < am->mNumVertices; v++) {
			ap[3 * v] = am->mVertices[v].x;
			ap[3 * v + 1] = am->mVertices[v].y;
			ap[3 * v + 2] = am->mVertices[v].z;
		}
		worst = fmax(worst, t_one_way_distance(gm->positions, gm->vertex_count, ap, am->mNumVertices));
		worst = fmax(worst, t_one_way_distance(ap, am->mNumVertices, gm->positions, gm->vertex_count));
		verts += am->mNumVertices;
		free(ap);
	}
	// And gsio's positions are the source's (the same vertices, bind pose).
	double src_worst = 0;
	for (size_t m = 0; m < s->meshes_count && s->meshes_count == src->meshes_count; m++)
		src_worst = fmax(src_worst, t_one_way_distance(src->meshes[m].positions, src->meshes[m].vertex_count,
		                                    s->meshes[m].positions, s->meshes[m].vertex_count));
	print_message("  %s -> %s.md5mesh: Assimp reads %u meshes, %zu vertices; set distance to "
	              "gsio's %.3g, gsio's to the source's %.3g\n",
	              rel, stem, ai->mNumMeshes, verts, worst, src_worst);
	assert_true(worst < 1e-3);
	assert_true(src_worst < 1e-3);
	aiReleaseImport(ai);
	gsio_scene_free(s);
	gsio_scene_free(src);
}

static void test_assimp_reads_ours(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	assimp_check("md5/bob/Bob.md5mesh", "bob", 0);
	assimp_check("md5/SimpleCube.md5mesh", "cube", 0);
	assimp_check("hmp/shadow-5.hmp", "terrain", 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bob_round_trip),
	    cmocka_unit_test(test_anim_flags),
	    cmocka_unit_test(test_camera_round_trip),
	    cmocka_unit_test(test_camera_beside_mesh),
	    cmocka_unit_test(test_morph_refused),
	    cmocka_unit_test(test_bad_scenes),
	    cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_rigid_animation),
	    cmocka_unit_test(test_skeleton_below_rotated_root),
#ifdef GSIO_HAVE_ASSIMP
	    cmocka_unit_test(test_assimp_reads_ours),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
