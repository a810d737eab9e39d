/* MD5 animations and cameras: which .md5anim files a mesh takes (siblings,
 * explicit paths, mismatched skeletons, a custom io), .md5camera files, and
 * the three kinds told apart by content. */
#define _POSIX_C_SOURCE 200809L // strdup
#include "test_util.h"
#include "md5_test_util.h"

#include "gsio_md5.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Animations: siblings, explicit paths, mismatches, custom io

static const char *two_joint_anim(const char *second_name, int frames)
{
	static char buf[2048];
	int n = snprintf(buf, sizeof(buf),
	                 HDR "numFrames %d\nnumJoints 2\nframeRate 30\nnumAnimatedComponents 1\n"
	                     "hierarchy {\n\"root\" -1 0 0\n\"%s\" 0 4 0\n}\nbounds {\n",
	                 frames, second_name);
	for (int f = 0; f < frames; f++) n += snprintf(buf + n, sizeof(buf) - (size_t)n, "( 0 0 0 ) ( 1 1 1 )\n");
	n += snprintf(buf + n, sizeof(buf) - (size_t)n,
	              "}\nbaseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 0 1 ) ( 0 0 0.5 )\n}\n");
	for (int f = 0; f < frames; f++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "frame %d {\n%d\n}\n", f, f + 2);
	return buf;
}

static const char *skel_mesh =
    HDR "numJoints 2\nnumMeshes 0\njoints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
        "\"tip\" 0 ( 0 0 1 ) ( 0 0 0.5 )\n}\n";

typedef struct io_log {
	char paths[8][512];
	size_t count;
	char listed[512]; // the folder list_dir was asked for
} io_log;

// Lists only "m.md5anim" and "notes.txt", whatever the folder holds.
static int listing_dir(void *user, const char *dir, char ***names, gsio_error *err)
{
	(void)err;
	io_log *log = user;
	snprintf(log->listed, sizeof(log->listed), "%s", dir);
	char **n = calloc(3, sizeof(*n));
	n[0] = strdup("notes.txt");
	n[1] = strdup("m.md5anim");
	*names = n;
	return 0;
}

static void listing_free(void *user, char **names)
{
	(void)user;
	for (size_t i = 0; names[i]; i++) free(names[i]);
	free(names);
}

static int logging_read(void *user, const char *path, uint8_t **data, size_t *size,
                        gsio_error *err)
{
	io_log *log = user;
	if (log->count < 8) snprintf(log->paths[log->count++], 512, "%s", path);
	return gsio_read_whole_file(path, data, size, 0, err);
}

static void test_anim_selection(void **state)
{
	(void)state;
	tmpdir d;
	tmp_make(&d);
	const char *mesh = tmp_text(&d, "m.md5mesh", skel_mesh);
	char *walk = strdup(tmp_text(&d, "walk.md5anim", two_joint_anim("tip", 3)));
	tmp_text(&d, "idle.md5anim", two_joint_anim("tip", 2));
	char *other = strdup(tmp_text(&d, "other.md5anim", two_joint_anim("finger", 2)));
	tmp_text(&d, "m.md5anim", two_joint_anim("tip", 4));

	// Siblings: the matching ones, sorted by name; the other one a warning.
	gsio_scene *s = load_ok(mesh, NULL);
	assert_int_equal(n_joints(s), 2);
	assert_int_equal(s->animations_count, 3);
	assert_string_equal(s->animations[0].name, "idle");
	assert_string_equal(s->animations[1].name, "m");
	assert_string_equal(s->animations[2].name, "walk");
	assert_int_equal(s->animations[2].frames_count, 3);
	assert_true(s->animations[2].fps == 30.0f);
	assert_true(has_warning(s, "other.md5anim"));
	assert_true(has_warning(s, "\"tip\" in the mesh but \"finger\""));
	// Tz of joint 1 is animated (flags 4): frame f has z = f + 2; w recomputed.
	const gsio_animation *a = &s->animations[2];
	assert_int_equal(a->channels_count, 4);
	for (size_t f = 0; f < 3; f++) {
		assert_true(anim_t(a, 1, f)[2] == (float)(f + 2));
		const float *q = anim_r(a, 1, f);
		assert_true(q[2] == 0.5f);
		assert_true(fabsf(q[3] + sqrtf(0.75f)) < 1e-6f);
	}
	// The bind pose: joint 1's local translation is (0,0,1) relative to the root.
	assert_true(fabsf(s->nodes[1].translation[2] - 1.0f) < 1e-6f);
	gsio_scene_free(s);

	// Explicit paths pick the animations; a mismatch there is an error.
	gsio_opts opts = {0};
	const char *pick[] = {walk};
	opts.anim_paths = pick;
	opts.anim_paths_count = 1;
	s = load_ok(mesh, &opts);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "walk");
	gsio_scene_free(s);
	const char *bad[] = {walk, other};
	opts.anim_paths = bad;
	opts.anim_paths_count = 2;
	gsio_error err;
	assert_null(gsio_load_file(mesh, &opts, &err));
	print_err("anim_paths mismatch", &err);
	assert_int_equal(err.code, GSIO_ERR_MISMATCH);
	assert_non_null(strstr(err.message, "finger"));
	assert_string_equal(err.file, other);

	// No animation at all when asked.
	opts.anim_paths_count = 0;
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = load_ok(mesh, &opts);
	assert_int_equal(s->animations_count, 0);
	gsio_scene_free(s);

	// A custom io that cannot list folders: no sibling animation is looked for.
	io_log log = {0};
	gsio_io io = {logging_read, t_io_free, NULL, NULL, &log};
	gsio_opts iopts = {0};
	iopts.io = &io;
	s = load_ok(mesh, &iopts);
	assert_int_equal(s->animations_count, 0);
	assert_int_equal(log.count, 1); // the mesh itself: gsio_load_file reads through the io too
	assert_string_equal(log.paths[0], mesh);
	gsio_scene_free(s);
	log.count = 0;
	// One that lists: its list is used, and every file is read through it.
	io.list_dir = listing_dir;
	io.free_list = listing_free;
	s = load_ok(mesh, &iopts);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "m");
	assert_int_equal(s->animations[0].frames_count, 4);
	assert_int_equal(log.count, 2);
	assert_non_null(strstr(log.paths[1], "m.md5anim"));
	assert_string_equal(log.listed, d.path);
	gsio_scene_free(s);
	free(walk);
	free(other);
	tmp_remove(&d);
}

// -- Cameras

static const char *camera_text =
    "MD5Version 10\ncommandline \"camera test\"\n\nnumFrames 3\nframeRate 30\nnumCuts 1\n\n"
    "cuts {\n\t2\n}\n\ncamera {\n"
    "\t( 0 0 64 ) ( 0 0 0 ) 90\n"
    "\t( 10 -5 64.5 ) ( 0 0 0.2588190451 ) 75.5\n"
    "\t( 20 -10 65 ) ( 0.1 0.2 0.3 ) 60\n}\n";

static void test_camera(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)camera_text, strlen(camera_text),
	                                 "dir/intro.md5camera", NULL, &err);
	if (!s) print_err("camera", &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(s->cameras_count, 1);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(s->nodes_count, 1);
	const gsio_node *node = &s->nodes[0];
	assert_int_equal(node->camera, 0);
	assert_string_equal(node->name, "intro");
	assert_true(node->translation[2] == 64.0f); // frame 0
	const gsio_camera *c = &s->cameras[0];
	assert_string_equal(c->name, "intro");
	assert_true(c->fov == 90.0f); // frame 0
	assert_int_equal(s->animations_count, 1);
	const gsio_animation *an = &s->animations[0];
	assert_string_equal(an->name, "intro");
	assert_true(an->fps == 30.0f);
	assert_int_equal(an->frames_count, 3);
	assert_int_equal(an->cuts_count, 1);
	assert_int_equal(an->cuts[0], 2);
	assert_null(an->bounds);
	assert_int_equal(an->channels_count, 3);
	const gsio_channel_path paths[3] = {GSIO_PATH_TRANSLATION, GSIO_PATH_ROTATION, GSIO_PATH_FOV};
	for (int k = 0; k < 3; k++) {
		assert_int_equal(an->channels[k].node, 0);
		assert_int_equal(an->channels[k].path, paths[k]);
	}
	const float *pos = an->channels[0].values, *rot = an->channels[1].values,
	            *fov = an->channels[2].values;
	assert_true(pos[3] == 10.0f && pos[5] == 64.5f);
	assert_true(fov[1] == 75.5f);
	assert_memory_equal(rot, node->rotation, 4 * sizeof(float));
	for (size_t f = 0; f < 3; f++) {
		const float *q = &rot[4 * f];
		double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
		                  (double)q[3] * q[3]);
		assert_true(fabs(len - 1.0) < 1e-6);
		assert_true(q[3] <= 0.0f); // id's sign
	}
	assert_true(fabsf(rot[4 + 3] + 0.9659258f) < 1e-6f); // cos(15 deg)
	gsio_scene_free(s);

	// Round trip.
	gsio_md5_camera *a = gsio_md5_camera_decode((const uint8_t *)camera_text, strlen(camera_text),
	                                            NULL, NULL, &err);
	assert_non_null(a);
	uint8_t *out;
	size_t n;
	assert_int_equal(gsio_md5_camera_encode(a, &out, &n, &err), 0);
	gsio_md5_camera *b = gsio_md5_camera_decode(out, n, NULL, NULL, &err);
	assert_non_null(b);
	assert_string_equal(b->commandline, "camera test");
	assert_int_equal(b->frames_count, 3);
	assert_int_equal(b->cuts_count, 1);
	assert_int_equal(b->cuts[0], 2);
	assert_memory_equal(a->frames, b->frames, 3 * sizeof(*a->frames));
	assert_memory_equal(&a->frame_rate, &b->frame_rate, sizeof(float));
	free(out);
	gsio_md5_camera_free(a);
	gsio_md5_camera_free(b);

	// Only the first frame with GSIO_OPT_NO_ANIMATION.
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = gsio_load_memory((const uint8_t *)camera_text, strlen(camera_text), "x.md5camera", &opts,
	                     &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(s->cameras_count, 1);
	assert_int_equal(s->nodes[0].camera, 0);
	assert_true(s->cameras[0].fov == 90.0f);
	assert_int_equal(s->animations_count, 0);
	gsio_scene_free(s);

	// A field of view outside 0..180 degrees decodes (the codec keeps what is
	// stored) but makes no scene (fuzz: 810 in frame 1).
	char bad[1024];
	snprintf(bad, sizeof(bad), "%s", camera_text);
	char *f = strstr(bad, "75.5");
	assert_non_null(f);
	memcpy(f, "810 ", 4);
	gsio_error_clear(&err);
	assert_null(gsio_load_memory((const uint8_t *)bad, strlen(bad), "bad.md5camera", NULL, &err));
	print_err("fov 810", &err);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_non_null(strstr(err.message, "field of view"));
}

// -- Detection

static void test_detect(void **state)
{
	(void)state;
	const gsio_importer *imp = gsio_find_importer((const uint8_t *)"// c\n  MD5Version 10", 20, NULL);
	assert_non_null(imp);
	assert_string_equal(imp->name, "id Software MD5");
	assert_int_equal(gsio_md5_detect((const uint8_t *)camera_text, strlen(camera_text)),
	                 GSIO_MD5_CAMERA);
	assert_int_equal(gsio_md5_detect((const uint8_t *)skel_mesh, strlen(skel_mesh)), GSIO_MD5_MESH);
	const char *anim = two_joint_anim("tip", 1);
	assert_int_equal(gsio_md5_detect((const uint8_t *)anim, strlen(anim)), GSIO_MD5_ANIM);
	// A UTF-8 byte order mark is skipped.
	char bom[512];
	snprintf(bom, sizeof(bom), "\xEF\xBB\xBF%s", skel_mesh);
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)bom, strlen(bom), NULL, NULL, &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(n_joints(s), 2);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_anim_selection),
	    cmocka_unit_test(test_camera),
	    cmocka_unit_test(test_detect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
