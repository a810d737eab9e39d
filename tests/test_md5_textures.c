/* The textures of an MD5 mesh: shaders resolved to files beside it, paths
 * that would leave its folder refused, and material names unique across
 * many meshes of one shader. */
#include "test_util.h"
#include "md5_test_util.h"

#include "gsio_md5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A 2 x 2 uncompressed 32-bit TGA (stb_image reads it).
static size_t make_tga(uint8_t out[34], uint8_t r, uint8_t g, uint8_t b)
{
	memset(out, 0, 18);
	out[2] = 2;              // uncompressed true colour
	out[12] = 2, out[14] = 2; // 2 x 2
	out[16] = 32;            // bits per pixel
	out[17] = 8 | 0x20;      // 8 alpha bits, top-left origin
	for (int i = 0; i < 4; i++) {
		out[18 + 4 * i] = b;
		out[19 + 4 * i] = g;
		out[20 + 4 * i] = r;
		out[21 + 4 * i] = 255;
	}
	return 34;
}

static void test_textures(void **state)
{
	(void)state;
	tmpdir d;
	tmp_make(&d);
	uint8_t tga[34];
	size_t n = make_tga(tga, 200, 10, 10);
	tmp_write(&d, "secret.tga", tga, n); // outside the model's folder
	tmp_write(&d, "a/b/skin.tga", tga, n);
	tmp_write(&d, "a/b/tex/sub.tga", tga, n);
	const char *fmt = HDR "numJoints 1\nnumMeshes 6\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n";
	char text[4096];
	snprintf(text, sizeof(text), "%s", fmt);
	const char *shaders[] = {"../../secret.tga",      // escapes: refused
	                         "tex/../skin.tga",       // stays inside: fine
	                         "skin",                  // no extension: .tga added
	                         "/abs/elsewhere/skin.tga", // absolute: refused, base name beside
	                         "nothere.png",           // missing: warning
	                         "models/x/tex/sub"};     // not found: only sub.tga beside would be
	for (int i = 0; i < 6; i++) {
		char mesh[256];
		snprintf(mesh, sizeof(mesh),
		         "mesh {\nshader \"%s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
		         "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
		         "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n",
		         shaders[i]);
		strncat(text, mesh, sizeof(text) - strlen(text) - 1);
	}
	const char *path = tmp_text(&d, "a/b/m.md5mesh", text);
	gsio_scene *s = load_ok(path, NULL);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("  warning: %s\n", s->warnings[i]);
	assert_int_equal(s->materials_count, 6);
	assert_int_equal(s->materials[0].base_color_texture.image, -1); // the secret stays secret
	assert_true(has_warning(s, "\"../../secret.tga\" is an absolute path or leaves"));
	assert_true(s->materials[1].base_color_texture.image >= 0);
	assert_true(s->materials[2].base_color_texture.image >= 0);
	assert_int_equal(s->materials[1].base_color_texture.image, s->materials[2].base_color_texture.image);
	assert_true(s->materials[3].base_color_texture.image >= 0); // skin.tga beside, by base name
	assert_true(has_warning(s, "\"/abs/elsewhere/skin.tga\" is an absolute path"));
	assert_int_equal(s->materials[4].base_color_texture.image, -1);
	assert_true(has_warning(s, "shader \"nothere.png\": no texture found"));
	assert_int_equal(s->materials[5].base_color_texture.image, -1);
	for (size_t i = 0; i < s->images_count; i++) {
		assert_null(strstr(s->images[i].source_path, "secret"));
		assert_int_equal(s->images[i].width, 2);
		assert_int_equal(s->images[i].rgba[0], 200);
	}
	assert_int_equal(s->images_count, 1);
	assert_string_equal(s->materials[0].shader, "../../secret.tga");
	gsio_scene_free(s);
	tmp_remove(&d);
}

/* A shader names its texture as a GameStudio or Windows tool stores it:
 * CP1252 bytes, any case, no extension. It is found by the one rule for
 * named files: in the model's folder, then in the --path folders, the
 * CP1252 name matching the file copied to Linux under its UTF-8 name. */
static void test_textures_search_folders(void **state)
{
	(void)state;
	tmpdir d;
	tmp_make(&d);
	uint8_t tga[34];
	size_t n = make_tga(tga, 10, 200, 10);
	tmp_write(&d, "textures/R\xc3\xbcstung.TGA", tga, n); // "Rüstung.TGA" as UTF-8
	char text[1024];
	snprintf(text, sizeof(text),
	         HDR "numJoints 1\nnumMeshes 1\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
	             "mesh {\nshader \"r\xfcstung\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
	             "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
	             "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n");
	const char *path = tmp_text(&d, "models/m.md5mesh", text);

	// Not beside the model: one warning that says where it looked and how to add a folder.
	gsio_scene *s = load_ok(path, NULL);
	assert_int_equal(s->materials[0].base_color_texture.image, -1);
	assert_string_equal(s->materials[0].shader, "r\xc3\xbcstung"); // UTF-8
	assert_true(has_warning(s, "shader \"r\xc3\xbcstung\": no texture found"));
	assert_true(has_warning(s, "--path DIR adds a folder to look in"));
	gsio_scene_free(s);

	// With the textures folder as a search folder (--path).
	char dir[1100];
	snprintf(dir, sizeof(dir), "%s/textures", d.path);
	const char *paths[] = {dir};
	gsio_opts opts = {0};
	opts.search_paths = paths;
	opts.search_paths_count = 1;
	s = load_ok(path, &opts);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("  warning: %s\n", s->warnings[i]);
	assert_int_equal(s->warnings_count, 0);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->materials[0].base_color_texture.image, 0);
	assert_int_equal(s->images[0].rgba[1], 200);
	assert_non_null(strstr(s->images[0].source_path, "textures/R\xc3\xbcstung.TGA"));
	assert_string_equal(s->images[0].name, "R\xc3\xbcstung.TGA");
	gsio_scene_free(s);
	tmp_remove(&d);
}

/* 2 000 meshes, nearly all with the shader "s": material names unique as
 * they always were (s, s.2, ..., the first free suffix; "s.3" given to the
 * mesh whose shader it is, an empty shader named by its mesh), under a 16 MB
 * limit: the texture look-up took 12 KB of the load's arena a mesh (24 MB
 * here). The old naming scanned every material per suffix tried: minutes
 * for 8 000 such meshes (the benchmark-free part of this test is the names). */
static void test_many_meshes_one_shader(void **state)
{
	(void)state;
	enum { N = 2000 };
	size_t cap = 256 + (size_t)N * 240;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = (size_t)snprintf(text, cap,
	                            HDR "numJoints 1\nnumMeshes %d\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                            N);
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "mesh {\nshader \"%s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
		                      "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
		                      "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n",
		                      i == 2 ? "s.3" : i == 5 ? "" : "s");
	assert_true(n < cap);
	gsio_opts opts = {0};
	opts.memory_limit = (size_t)16 << 20;
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode((const uint8_t *)text, n, "many.md5mesh", &opts, &err);
	if (!m) fail_msg("%s", err.message);
	gsio_scene *s = gsio_md5_mesh_to_scene(m, "/tmp/nonexistent-gsio-dir/many.md5mesh", &opts, &err);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->materials_count, N);
	for (int i = 0; i < N; i++) {
		char want[32];
		t_suffixed_name((size_t)i, "material5", want, sizeof(want));
		assert_string_equal(s->materials[i].name, want);
		assert_int_equal(s->materials[i].base_color_texture.image, -1);
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	gsio_md5_mesh_free(m);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_textures),
	    cmocka_unit_test(test_textures_search_folders),
	    cmocka_unit_test(test_many_meshes_one_shader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
