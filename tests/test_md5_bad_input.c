/* MD5 bad input: every invalid corpus file and invalid texts, random
 * truncations and byte edits, allocation failures, the memory limit, a
 * negative weight bias. Every failure is a clean error; nothing crashes or
 * leaks. */
#include "test_util.h"
#include "md5_test_util.h"

#include "gsioi_internal.h"
#include "gsio_md5.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Helpers

static char *corpus_file(const char *rel)
{
	const char *p = t_corpus_path(rel);
	char *copy = malloc(strlen(p) + 1);
	strcpy(copy, p);
	return copy;
}

// -- Invalid files

typedef struct invalid_case {
	const char *file;
	gsio_error_code code;
	int line;
	const char *needle;
} invalid_case;

static void test_invalid_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const invalid_case cases[] = {
	    {"InvalidBoneIndex.md5mesh", GSIO_ERR_CORRUPT, 23, "joint index 999"},
	    {"InvalidCameraCut.md5camera", GSIO_ERR_CORRUPT, 9, "camera cut 8"},
	    {"OverflowingTriangleIndex.md5mesh", GSIO_ERR_CORRUPT, 18, "tri 4294967295"},
	    {"OverflowingVertexIndex.md5mesh", GSIO_ERR_CORRUPT, 15, "vert 4294967295"},
	    {"OverflowingWeightIndex.md5mesh", GSIO_ERR_CORRUPT, 21, "weight 4294967295"},
	    {"empty.md5mesh", GSIO_ERR_TRUNCATED, 1, "MD5Version"},
	};
	const char *exts[] = {".md5mesh", ".md5anim", ".md5camera"};
	size_t seen = 0;
	for (size_t e = 0; e < 3; e++) {
		char **files;
		size_t n = t_list_files(t_corpus_path("invalid"), exts[e], &files);
		for (size_t i = 0; i < n; i++) {
			gsio_error err;
			gsio_scene *s = gsio_load_file(files[i], NULL, &err);
			print_err(gsioi_path_base(files[i]), &err);
			assert_null(s);
			assert_int_not_equal(err.code, GSIO_OK);
			assert_true(err.line > 0);
			assert_true(err.message[0] != 0);
			assert_string_equal(err.file, files[i]);
			for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
				if (!strcmp(cases[c].file, gsioi_path_base(files[i]))) {
					assert_int_equal(err.code, cases[c].code);
					assert_int_equal(err.line, cases[c].line);
					assert_non_null(strstr(err.message, cases[c].needle));
				}
			seen++;
		}
		t_free_list(files, n);
	}
	assert_int_equal(seen, 6);
}

static void expect_text_error(const char *name, const char *text, gsio_error_code code,
                              int line, const char *needle)
{
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)text, strlen(text), name, NULL, &err);
	print_err(name, &err);
	assert_null(s);
	assert_int_equal(err.code, code);
	assert_int_equal(err.line, line);
	if (!strstr(err.message, needle)) fail_msg("'%s' not in '%s'", needle, err.message);
}

#define ONE_JOINT "numJoints 1\nnumMeshes 1\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"

static void test_invalid_text(void **state)
{
	(void)state;
	expect_text_error("v6.md5mesh", "MD5Version 6\ncommandline \"\"\n", GSIO_ERR_UNSUPPORTED, 1,
	                  "MD5Version 6");
	expect_text_error("twice.md5mesh",
	                  HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 2\nvert 0 ( 0 0 ) 0 1\n"
	                                "vert 0 ( 0 0 ) 0 1\n",
	                  GSIO_ERR_CORRUPT, 12, "vert 0 is defined twice");
	expect_text_error("range.md5mesh",
	                  HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 1\nvert 0 ( 0 0 ) 0 2\n"
	                                "numtris 0\nnumweights 1\nweight 0 0 1 ( 0 0 0 )\n}\n",
	                  GSIO_ERR_CORRUPT, 11, "vert 0 uses weights 0..1");
	expect_text_error("parent.md5mesh",
	                  HDR "numJoints 2\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
	                      "\"b\" 1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_CORRUPT, 7, "joint 1's parent 1 is outside -1..0");
	expect_text_error("huge.md5mesh", HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 2000000000\n",
	                  GSIO_ERR_TRUNCATED, 10, "cannot fit");
	expect_text_error("count.md5mesh", HDR "numJoints 2\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 7, "found '}'");
	expect_text_error("trail.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh\n",
	                  GSIO_ERR_SYNTAX, 8, "expected the end of the file");
	expect_text_error("nan.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 1.#QNAN 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 6, "'1.#QNAN'");
	expect_text_error("quote.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 6, "unterminated string");
	const char *anim_hdr = HDR "numFrames 2\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 3\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%shierarchy {\n\"a\" -1 63 0\n}\n", anim_hdr);
	expect_text_error("flags.md5anim", buf, GSIO_ERR_CORRUPT, 8, "components 0..5");
	snprintf(buf, sizeof(buf),
	         "%shierarchy {\n\"a\" -1 7 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
	         "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n1 2 3\n}\nframe 2 {\n1 2 3\n}\n",
	         anim_hdr);
	expect_text_error("order.md5anim", buf, GSIO_ERR_CORRUPT, 20, "frame number 2 where frame 1 was expected");
	snprintf(buf, sizeof(buf),
	         "%shierarchy {\n\"a\" -1 7 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
	         "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n1 2 3\n}\nframe 1 {\n1 2\n}\n",
	         anim_hdr);
	expect_text_error("short.md5anim", buf, GSIO_ERR_SYNTAX, 22, "a frame component");
	expect_text_error("rate.md5camera", HDR "numFrames 1\nframeRate 0\nnumCuts 0\n",
	                  GSIO_ERR_CORRUPT, 4, "frameRate");
	expect_text_error("cut0.md5camera",
	                  HDR "numFrames 3\nframeRate 24\nnumCuts 1\ncuts {\n0\n}\n",
	                  GSIO_ERR_CORRUPT, 7, "camera cut 0");
}

// -- Robustness: truncations, byte edits, allocation failures

static void check_failure(const gsio_error *err)
{
	assert_int_not_equal(err->code, GSIO_OK);
	assert_true(err->message[0] != 0);
	// A text error always has a position (memory limits have none).
	if (err->code == GSIO_ERR_SYNTAX || err->code == GSIO_ERR_TRUNCATED) assert_true(err->line > 0);
}

static size_t mutate_run(const uint8_t *data, size_t size, bool anim, size_t runs, bool truncate)
{
	uint8_t *buf = malloc(size + 1);
	size_t ok = 0;
	srand(truncate ? 1234 : 5678);
	const char interesting[] = "0123456789-.e(){}\"/*\n \x01";
	for (size_t r = 0; r < runs; r++) {
		memcpy(buf, data, size);
		size_t n = size;
		if (truncate) {
			n = (size_t)rand() % size;
		} else {
			int edits = 1 + rand() % 4;
			for (int e = 0; e < edits; e++) {
				size_t at = (size_t)rand() % size;
				buf[at] = rand() % 2 ? (uint8_t)rand()
				                      : (uint8_t)interesting[(size_t)rand() % (sizeof(interesting) - 1)];
			}
		}
		gsio_error err;
		if (anim) {
			gsio_md5_anim *a = gsio_md5_anim_decode(buf, n, "fuzz.md5anim", NULL, &err);
			if (a) {
				gsio_scene *s = gsio_md5_anim_to_scene(a, NULL, NULL, &err);
				assert_non_null(s);
				assert_valid(s);
				gsio_scene_free(s);
				ok++;
			} else {
				check_failure(&err);
			}
			gsio_md5_anim_free(a);
		} else {
			gsio_md5_mesh *m = gsio_md5_mesh_decode(buf, n, "fuzz.md5mesh", NULL, &err);
			if (m) {
				gsio_scene *s = gsio_md5_mesh_to_scene(m, NULL, NULL, &err);
				if (!s) check_failure(&err); // e.g. weights beyond float range
				else assert_valid(s);
				gsio_scene_free(s);
				ok++;
			} else {
				check_failure(&err);
			}
			gsio_md5_mesh_free(m);
		}
	}
	free(buf);
	return ok;
}

static void test_mutations(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *files[] = {BOB_MESH, BOB_ANIM};
	for (int f = 0; f < 2; f++) {
		size_t size;
		uint8_t *data = t_read_corpus(files[f], &size);
		double t0 = now_ms();
		size_t ok_t = mutate_run(data, size, f == 1, 500, true);
		size_t ok_e = mutate_run(data, size, f == 1, 500, false);
		print_message("  %s: 500 truncations (%zu still load), 500 edited copies (%zu still "
		              "load), %.0f ms\n",
		              files[f], ok_t, ok_e, now_ms() - t0);
		free(data);
	}
	// A few edited meshes through the whole importer (textures, sibling anim).
	size_t size;
	uint8_t *data = t_read_corpus(BOB_MESH, &size);
	char *path = corpus_file(BOB_MESH);
	srand(99);
	for (int r = 0; r < 20; r++) {
		uint8_t *buf = malloc(size);
		memcpy(buf, data, size);
		buf[(size_t)rand() % size] = (uint8_t)rand();
		gsio_error err;
		gsio_scene *s = gsio_load_memory(buf, size, path, NULL, &err);
		if (!s) check_failure(&err);
		else assert_valid(s);
		gsio_scene_free(s);
		free(buf);
	}
	free(path);
	free(data);
}

static void alloc_loop(const char *rel, const char *path)
{
	size_t size;
	uint8_t *data = t_read_corpus(rel, &size);
	t_load_input in = {data, size, path, NULL, NULL};
	size_t failures = t_each_alloc_fails(rel, t_try_load, &in, T_NOMEM, 1).failures;
	print_message("  %s: a load fails cleanly at each of its first %zu allocations\n", rel,
	              failures);
	assert_true(failures > 2);
	free(data);
}

static void test_alloc_failures(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char *cube = corpus_file(CUBE);
	alloc_loop(CUBE, cube);
	free(cube);
	char *bob = corpus_file(BOB_MESH);
	alloc_loop(BOB_MESH, bob); // textures and the sibling animation too
	free(bob);
}

// The memory limit applies to the decoded frames too.
static void test_memory_limit(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = t_read_corpus(BOB_ANIM, &size);
	gsio_opts opts = {0};
	opts.memory_limit = 64 * 1024;
	gsio_error err;
	assert_null(gsio_md5_anim_decode(data, size, "Bob.md5anim", &opts, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	free(data);
}

/* A negative bias (a mutated file; real ones are in 0..1): the bind pose
 * takes it as stored, the skin gets 0 there (glTF weights are >= 0) and a
 * warning says so; the scene is valid. It was copied into the skin, and the
 * validator refused the scene (fuzz_md5). */
static void test_negative_bias(void **state)
{
	(void)state;
	const char *text = HDR "numJoints 1\nnumMeshes 1\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
	                       "mesh {\nshader \"\"\nnumverts 3\nvert 0 ( 0 0 ) 0 2\nvert 1 ( 1 0 ) 2 1\n"
	                       "vert 2 ( 0 1 ) 3 1\nnumtris 1\ntri 0 0 2 1\nnumweights 4\n"
	                       "weight 0 0 1.5 ( 1 0 0 )\nweight 1 0 -0.5 ( 0 2 0 )\n"
	                       "weight 2 0 1 ( 1 0 0 )\nweight 3 0 1 ( 0 1 0 )\n}\n";
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode((const uint8_t *)text, strlen(text), "neg", NULL, &err);
	if (!m) fail_msg("%s", err.message);
	gsio_scene *s = gsio_md5_mesh_to_scene(m, NULL, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	const gsio_mesh *me = &s->meshes[0];
	assert_int_equal(me->weights.count, 4);
	assert_true(me->weights.values[0] == 1.5f && me->weights.values[1] == 0.0f);
	assert_true(has_warning(s, "1 weights with a negative bias"));
	// Vertex 0: 1.5 x (1, 0, 0) - 0.5 x (0, 2, 0), in whatever axes vertex 1's
	// (1, 0, 0) lands on.
	float dot = 0, len2 = 0;
	for (int k = 0; k < 3; k++) {
		dot += me->positions[k] * me->positions[3 + k];
		len2 += me->positions[3 + k] * me->positions[3 + k];
	}
	assert_true(fabsf(dot / len2 - 1.5f) < 1e-6f);
	gsio_scene_free(s);
	gsio_md5_mesh_free(m);
}

static size_t warnings_with(const gsio_scene *s, const char *needle)
{
	size_t n = 0;
	for (size_t i = 0; i < s->warnings_count; i++) n += strstr(s->warnings[i], needle) != NULL;
	return n;
}

/* Meshes without vertices, triangles or weights (an exporter writes them
 * for empty groups; tests/data/empty_meshes.md5mesh has two before a
 * triangle) are left out with a warning each: the scene keeps the triangle
 * (named after its place in the file, with its own material) and is valid,
 * and the codec keeps all three. A file of empty meshes only gives a
 * scene of its joints. */
static void test_empty_meshes(void **state)
{
	(void)state;
	const char *path = GSIO_SOURCE_DIR "/tests/data/empty_meshes.md5mesh";
	gsio_scene *s = t_load_ok(path, NULL);
	assert_int_equal(s->meshes_count, 1);
	assert_string_equal(s->meshes[0].name, "mesh2");
	assert_int_equal(s->meshes[0].vertex_count, 3);
	assert_int_equal(s->materials_count, 1);
	assert_string_equal(s->materials[0].name, "triangle");
	assert_int_equal(s->meshes[0].parts[0].material, 0);
	assert_int_equal(warnings_with(s, "has no vertices: left out"), 2);
	assert_int_equal(warnings_with(s, "mesh 1 (shader \"empty_b\")"), 1);
	gsio_scene_free(s);

	size_t n;
	uint8_t *text = t_read_file(path, &n);
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode(text, n, path, NULL, &err);
	assert_non_null(m);
	assert_int_equal(m->meshes_count, 3);
	gsio_md5_mesh_free(m);
	// Only the empty meshes: cut before the third.
	const char *third = strstr((const char *)text, "mesh {\n\t// meshes: triangle");
	assert_non_null(third);
	char *two = malloc(n);
	assert_non_null(two);
	size_t cut = (size_t)(third - (const char *)text);
	memcpy(two, text, cut);
	char *count = strstr(two, "numMeshes 3");
	assert_true(count && count < two + cut);
	count[10] = '2';
	s = gsio_load_memory((const uint8_t *)two, cut, "two.md5mesh", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(s->skins_count, 1);
	assert_int_equal(s->skins[0].joints_count, 2);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
	free(two);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty_meshes),
	    cmocka_unit_test(test_invalid_corpus),
	    cmocka_unit_test(test_invalid_text),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_memory_limit),
	    cmocka_unit_test(test_negative_bias),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
