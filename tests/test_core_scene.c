/* Unit tests of the core's scene helpers for the importers: error
 * formatting, text quoted from files made printable, clips from frame names,
 * the model's root node. */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <stdio.h>
#include <string.h>

/* An empty scene from the importers' own constructor (gsioi_scene_create). */
static gsio_scene *empty_scene(void)
{
	gsio_error err;
	gsio_scene *s = gsioi_scene_create(NULL, &err);
	assert_non_null(s);
	return s;
}

/* Messages and warnings quote bytes from files: they must come out as
 * UTF-8 without control characters (valid in a terminal and in gsio info
 * --json), bytes that are no UTF-8 read as CP1252. */
static void test_text_sanitized(void **state)
{
	(void)state;
	gsio_error err;
	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_CORRUPT, "f.hmp", 3, "texture '%s'", "a\xff\x01\nb");
	assert_string_equal(err.message, "texture 'a\xc3\xbf??b'");
	gsio_scene *s = empty_scene();
	assert_true(gsioi_scene_warn(s, &err, "name %s", "\xc3\xa9\t"));
	assert_int_equal(s->warnings_count, 1);
	assert_string_equal(s->warnings[0], "name \xc3\xa9?");
	gsio_scene_free(s);
}

/* Clips from frame names: stems without trailing digits and separators; a
 * stem that returns later gets a suffix, a longer name is not a repeat. Each
 * clip is a morph animation on the given node keyed by its frames. */
static void test_build_clips(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = empty_scene();
	static const char *names[] = {"walk0", "walk1", "walking0", "walk_2", "frame 7", "7", "walk3"};
	gsio_morph_frame frames[7];
	memset(frames, 0, sizeof(frames));
	for (int i = 0; i < 7; i++) frames[i].name = names[i];
	gsio_mesh m;
	memset(&m, 0, sizeof(m));
	m.frames = frames;
	m.frames_count = 7;
	assert_true(gsioi_scene_build_clips(s, &m, 3, 12.5f, &err));
	assert_int_equal(s->animations_count, 6);
	static const char *want[] = {"walk", "walking", "walk.2", "frame", "anim", "walk.3"};
	static const size_t first[] = {0, 2, 3, 4, 5, 6}, count[] = {2, 1, 1, 1, 1, 1};
	for (size_t i = 0; i < 6; i++) {
		const gsio_animation *a = &s->animations[i];
		assert_string_equal(a->name, want[i]);
		assert_int_equal(a->frames_count, count[i]);
		assert_true(a->fps == 12.5f);
		assert_int_equal(a->channels_count, 1);
		assert_int_equal(a->channels[0].node, 3);
		assert_int_equal(a->channels[0].path, GSIO_PATH_MORPH);
		assert_null(a->channels[0].values);
		for (size_t k = 0; k < count[i]; k++) assert_int_equal(a->channels[0].frames[k], first[i] + k);
	}
	// One frame is a pose: no animation.
	m.frames_count = 1;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	assert_int_equal(s->animations_count, 6);
	gsio_scene_free(s);
	// A stem that is already the suffixed name of a later one (fuzz_load
	// found a model with clips "Dead.2" and "Dead": both were "Dead.2").
	s = empty_scene();
	static const char *dead[] = {"Dead.2 2", "Dead 0", "Dead 1", "Dead.3 0", "x", "Dead 5"};
	for (int i = 0; i < 6; i++) frames[i].name = dead[i];
	m.frames_count = 6;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	static const char *dead_want[] = {"Dead.2", "Dead.3", "Dead.3.2", "x", "Dead.4"};
	assert_int_equal(s->animations_count, 5);
	for (size_t i = 0; i < 5; i++) assert_string_equal(s->animations[i].name, dead_want[i]);
	gsio_scene_free(s);
	// A stem of the longest kept length (47 characters) that comes back
	// twice: its suffixed names are longer than the stem, and are counted
	// whole like any other (S, S.2, S.3).
	s = empty_scene();
	char longest[48], frame_long[3][52], want_long[3][56];
	memset(longest, 'L', 47);
	longest[47] = 0;
	for (int i = 0; i < 3; i++) snprintf(frame_long[i], sizeof(frame_long[i]), "%s %d", longest, i);
	const char *long_names[5] = {frame_long[0], "x", frame_long[1], "y", frame_long[2]};
	for (int i = 0; i < 5; i++) frames[i].name = long_names[i];
	m.frames_count = 5;
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	snprintf(want_long[0], sizeof(want_long[0]), "%s", longest);
	snprintf(want_long[1], sizeof(want_long[1]), "%s.2", longest);
	snprintf(want_long[2], sizeof(want_long[2]), "%s.3", longest);
	assert_int_equal(s->animations_count, 5);
	assert_string_equal(s->animations[0].name, want_long[0]);
	assert_string_equal(s->animations[2].name, want_long[1]);
	assert_string_equal(s->animations[4].name, want_long[2]);
	gsio_scene_free(s);
}

/* The clip names of many frames against the plain rule they follow, a
 * scan of the earlier clips per clip (names equal to the stem, or starting
 * with it and a '.'): stems of letters, dots, separators and digits from a
 * fixed generator, so stems like "a.b" meet "a" and "a.2". */
static void test_build_clips_many(void **state)
{
	(void)state;
	enum { N = 3000 };
	static char names[N][16];
	static gsio_morph_frame frames[N];
	static char want[N][48];
	uint32_t x = 12345;
	for (int i = 0; i < N; i++) {
		const char alphabet[] = "ab.._ 12";
		int len = 1 + (int)((x >> 16) % 5);
		for (int k = 0; k < len; k++) {
			x = x * 1103515245u + 12345u;
			names[i][k] = alphabet[(x >> 16) % (sizeof(alphabet) - 1)];
		}
		names[i][len] = 0;
		x = x * 1103515245u + 12345u;
		frames[i].name = names[i];
	}
	gsio_mesh m;
	memset(&m, 0, sizeof(m));
	m.frames = frames;
	m.frames_count = N;
	gsio_error err;
	gsio_scene *s = empty_scene();
	assert_true(gsioi_scene_build_clips(s, &m, 0, 10.0f, &err));
	// The reference: clips as runs of one stem, each named by the scan.
	size_t c = 0;
	for (size_t i = 0; i < N;) {
		size_t stem = strlen(names[i]);
		while (stem && names[i][stem - 1] >= '0' && names[i][stem - 1] <= '9') stem--;
		while (stem && strchr(" _-", names[i][stem - 1])) stem--;
		size_t run = 1;
		for (; i + run < N; run++) {
			const char *nx = names[i + run];
			size_t ls = strlen(nx);
			while (ls && nx[ls - 1] >= '0' && nx[ls - 1] <= '9') ls--;
			while (ls && strchr(" _-", nx[ls - 1])) ls--;
			if (ls != stem || memcmp(nx, names[i], stem)) break;
		}
		char cname[48];
		if (stem) snprintf(cname, sizeof(cname), "%.*s", (int)stem, names[i]);
		else snprintf(cname, sizeof(cname), "anim");
		unsigned dup = 1;
		size_t cl = strlen(cname);
		for (size_t k = 0; k < c; k++)
			if (!strcmp(want[k], cname) || (!strncmp(want[k], cname, cl) && want[k][cl] == '.')) dup++;
		if (dup > 1) {
			// The next suffix no earlier name is or starts with and a '.'.
			for (bool taken = true; taken; dup += taken) {
				snprintf(cname + cl, sizeof(cname) - cl, ".%u", dup);
				size_t nl = strlen(cname);
				taken = false;
				for (size_t k = 0; k < c && !taken; k++)
					taken = !strcmp(want[k], cname) || (!strncmp(want[k], cname, nl) && want[k][nl] == '.');
			}
		}
		snprintf(want[c++], sizeof(want[0]), "%s", cname);
		i += run;
	}
	assert_int_equal(s->animations_count, c);
	assert_true(c > 500);
	for (size_t i = 0; i < c; i++) // unique (the scene has no nodes to validate it whole)
		for (size_t k = i + 1; k < c; k++)
			if (!strcmp(s->animations[i].name, s->animations[k].name))
				fail_msg("clips %zu and %zu are both named \"%s\"", i, k, s->animations[i].name);
	size_t dotted = 0, suffixed = 0;
	for (size_t i = 0; i < c; i++) {
		assert_string_equal(s->animations[i].name, want[i]);
		const char *dot = strrchr(want[i], '.');
		suffixed += dot && dot[1] >= '2' && dot[1] <= '9';
		dotted += strchr(want[i], '.') && !(dot && dot[1] >= '0' && dot[1] <= '9');
	}
	assert_true(suffixed > 100 && dotted > 100); // both kinds of '.' met
	gsio_scene_free(s);
}

/* The model's root node is named after the file without its extension. */
static void test_model_node(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = empty_scene();
	static const char *paths[] = {"dir/walker.mdl", "a\\b\\Terrain.v2.hmp", ".mdl", NULL, "noext"};
	static const char *want[] = {"walker", "Terrain.v2", ".mdl", "model", "noext"};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(gsioi_scene_add_model_node(s, paths[i], -1, &err), i);
		assert_string_equal(s->nodes[i].name, want[i]);
	}
	assert_int_equal(s->nodes_count, 5);
	const gsio_node *n = &s->nodes[0];
	assert_int_equal(n->parent, -1);
	assert_true(n->rotation[3] == 1.0f && n->scale[0] == 1.0f && n->scale[2] == 1.0f);
	assert_int_equal(n->camera, -1);
	assert_int_equal(n->light, -1);
	gsio_scene_free(s);
}

static void test_error_format(void **state)
{
	(void)state;
	gsio_error err;
	char buf[512];
	gsio_error_clear(&err);
	assert_int_equal(err.code, GSIO_OK);
	assert_int_equal(err.offset, -1);
	GSIO_FAIL(&err, GSIO_ERR_CORRUPT, "models/a.mdl", 0x1a2b, "frame %d: bad type", 3);
	size_t n = gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "models/a.mdl: offset 6699 (0x1a2b): frame 3: bad type");
	assert_int_equal(n, strlen(buf));
	assert_non_null(err.src_file);
	assert_true(err.src_line > 0);
	// The first error is the cause: a second one does not overwrite it.
	GSIO_FAIL(&err, GSIO_ERR_NOMEM, "other", 1, "later");
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_string_equal(err.message, "frame 3: bad type");

	gsio_error_clear(&err);
	GSIO_FAIL_LINE(&err, GSIO_ERR_SYNTAX, "bob.md5mesh", 12, 5, "expected '%s'", "{");
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "bob.md5mesh:12:5: expected '{'");
	assert_int_equal(err.offset, -1);

	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_IO, NULL, -1, "cannot open");
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "<input>: cannot open");

	// snprintf semantics: the wanted length comes back, the text is cut and terminated.
	gsio_error_clear(&err);
	GSIO_FAIL(&err, GSIO_ERR_TRUNCATED, "f", 0, "0123456789");
	char small[8];
	n = gsio_error_format(&err, small, sizeof(small));
	assert_int_equal(n, strlen("f: offset 0 (0x0): 0123456789"));
	assert_string_equal(small, "f: offs");

	gsio_error_clear(&err);
	gsio_error_format(&err, buf, sizeof(buf));
	assert_string_equal(buf, "<input>: ok");
	gsio_error_format(NULL, buf, sizeof(buf));
	assert_string_equal(buf, "(no error)");
	// NULL err: nothing happens, nothing crashes.
	assert_int_equal(GSIO_FAIL(NULL, GSIO_ERR_IO, "x", 0, "y"), 0);
	assert_string_equal(gsio_error_code_name(GSIO_ERR_TRUNCATED), "truncated");
	assert_string_equal(gsio_error_code_name((gsio_error_code)999), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_error_format),
	    cmocka_unit_test(test_text_sanitized),
	    cmocka_unit_test(test_build_clips),
	    cmocka_unit_test(test_build_clips_many),
	    cmocka_unit_test(test_model_node),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
