/* The files a model or level names (common/gsioi_files.h) and the names
 * read from files (common/text.c): CP1252 decoded to UTF-8, file names
 * matched whatever their case and whether stored or named on disk in CP1252
 * or UTF-8, the folders beside the file and in opts.search_paths, and no
 * file read that leads out of its folder or is not a regular file. */
#define _DEFAULT_SOURCE /* mkdtemp, symlink, mkfifo */
#include "test_util.h"

#include "gsio_wmp.h"
#include "gsioi_files.h"
#include "gsioi_image_file.h"
#ifdef GSIO_HAVE_GLTF
#include "gsio_gltf.h"
#endif

#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// -- The decoder

static const char *utf8_of(const char *s)
{
	static char buf[256];
	gsioi_text_utf8(buf, sizeof(buf), s, strlen(s));
	return buf;
}

/* Every byte >= 0x80 alone decodes as glibc's iconv reads CP1252 (an
 * independent table), the five bytes CP1252 leaves unassigned to '?'. */
static void test_cp1252_bytes(void **state)
{
	(void)state;
	iconv_t cd = iconv_open("UTF-8", "CP1252");
	if (cd == (iconv_t)-1) skip();
	for (unsigned b = 0x80; b <= 0xFF; b++) {
		char in[2] = {(char)b, 0}, want[8] = {0}, *ip = in, *op = want;
		size_t il = 1, ol = sizeof(want) - 1;
		if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1) {
			iconv(cd, NULL, NULL, NULL, NULL);
			strcpy(want, "?");
		} else if ((unsigned char)want[0] == 0xC2 && (unsigned char)want[1] < 0xA0) {
			strcpy(want, "?"); // a C1 control (glibc maps 0x81 to U+0081)
		}
		if (strcmp(utf8_of(in), want))
			fail_msg("byte 0x%02X: got %s, want %s", b, utf8_of(in), want);
	}
	iconv_close(cd);
	assert_string_equal(utf8_of("R\xfcstung"), "R\xc3\xbcstung");
	// Euro, S caron, Y diaeresis.
	assert_string_equal(utf8_of("\x80\x8a\x9f"), "\xe2\x82\xac\xc5\xa0\xc5\xb8");
}

/* Valid UTF-8 stays as it is; anything else is a CP1252 byte; control
 * characters become '?'; text is cut at a character. */
static void test_utf8_kept_controls_replaced(void **state)
{
	(void)state;
	static const char utf8[] = "R\xc3\xbcstung \xf0\x9f\x99\x82";
	assert_string_equal(utf8_of(utf8), utf8);
	// C1 controls, overlong forms and surrogates are no UTF-8 here: bytes.
	assert_string_equal(utf8_of("\xc2\x85"), "\xc3\x82\xe2\x80\xa6");
	assert_string_equal(utf8_of("\xc0\xaf"), "\xc3\x80\xc2\xaf");
	assert_string_equal(utf8_of("\xed\xa0\x80"), "\xc3\xad\xc2\xa0\xe2\x82\xac");
	assert_string_equal(utf8_of("a\x01\tb\x7f\n"), "a??b??");
	char buf[4];
	assert_int_equal(gsioi_text_utf8(buf, sizeof(buf), "a\xfc\xfc", 3), 3);
	assert_string_equal(buf, "a\xc3\xbc"); // the second u-umlaut does not fit whole
	assert_int_equal(gsioi_text_utf8(NULL, 0, "a\xfc\x80", 3), 6);
	char msg[16] = "x\xfc\xfc\xfc\xfc\xfc\xfc\xfc";
	gsioi_text_sanitize(msg, sizeof(msg));
	assert_string_equal(msg, "x\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc\xc3\xbc");
	char fold[] = "R\xc3\x9cSTUNG \xc5\xb8\xc5\xa0\xc3\x97.MDL";
	gsioi_text_fold(fold);
	assert_string_equal(fold, "r\xc3\xbcstung \xc3\xbf\xc5\xa1\xc3\x97.mdl");

	// Back to CP1252 for the writers, and read back as the same UTF-8.
	char cp[17];
	assert_true(gsioi_text_cp1252(cp, sizeof(cp), "R\xc3\xbcstung \xe2\x82\xac\xc5\xb8"));
	assert_string_equal(cp, "R\xfcstung \x80\x9f");
	assert_string_equal(utf8_of(cp), "R\xc3\xbcstung \xe2\x82\xac\xc5\xb8");
	assert_true(gsioi_text_cp1252(cp, 6, "\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4\xc3\xa4"));
	assert_string_equal(cp, "\xe4\xe4\xe4\xe4\xe4"); // a byte a character, cut at 5
	// A character CP1252 has not: the UTF-8 kept, cut at a whole character.
	assert_false(gsioi_text_cp1252(cp, sizeof(cp), "walk\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9"));
	assert_string_equal(cp, "walk\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9"); // 16 bytes: fits
	assert_false(gsioi_text_cp1252(cp, 15, "walk\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9"));
	assert_string_equal(cp, "walk\xe6\xad\xa9\xe6\xad\xa9\xe6\xad\xa9"); // 13 bytes of 14
	assert_string_equal(utf8_of(cp), cp);
}

// -- Temporary folders

static void make_dir(const char *root, const char *rel, char *out, size_t n)
{
	snprintf(out, n, "%s/%s", root, rel);
	assert_int_equal(mkdir(out, 0755), 0);
}

static void touch(const char *dir, const char *name, const char *text)
{
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	t_write_file(p, (const uint8_t *)text, strlen(text));
}

static void remove_tree(const char *dir)
{
	char cmd[1100];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* path found for `stored` by finder f (asserting it was), or NULL when not. */
static const char *find(gsioi_finder *f, const char *stored)
{
	static gsioi_found r;
	gsio_error err;
	gsio_error_clear(&err);
	assert_true(gsioi_find_file(f, stored, &r, &err));
	return r.found ? r.path : NULL;
}

/* A name stored in CP1252 finds the file copied to Linux (UTF-8 name) and
 * the file named with the raw byte; in any case; beside the file first,
 * then in the search folders; only by base name. */
static void test_find_by_name(void **state)
{
	(void)state;
	char root[] = "/tmp/gsio_files_XXXXXX", a[256], b[256], named_by[300], want[600];
	assert_non_null(mkdtemp(root));
	make_dir(root, "a", a, sizeof(a));
	make_dir(root, "b", b, sizeof(b));
	touch(a, "R\xc3\xbcstung.mdl", "utf-8 name");
	touch(b, "B\xe4r.pcx", "raw cp1252 name");
	touch(b, "other.pcx", "x");
	touch(b, "R\xc3\xbcstung.mdl", "a later folder");
	snprintf(named_by, sizeof(named_by), "%s/level.wmp", a);
	gsio_arena *arena = gsioi_arena_create(NULL, 0);
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	const char *paths[] = {b};
	o.search_paths = paths, o.search_paths_count = 1;
	gsioi_finder f;
	gsioi_finder_init(&f, arena, &o);
	gsio_error err;
	assert_true(gsioi_finder_add_defaults(&f, named_by, "the level's folder", &err));
	snprintf(want, sizeof(want), "%s/R\xc3\xbcstung.mdl", a);
	static const char *const ruestung[] = {"R\xfcstung.mdl", "r\xdcSTUNG.MDL", "R\xc3\xbcstung.mdl",
	                                       "c:\\game\\models\\R\xfcstung.mdl",
	                                       "R\xc3\x9cSTUNG.mdl"};
	for (size_t i = 0; i < 5; i++) {
		const char *got = find(&f, ruestung[i]);
		if (!got || strcmp(got, want))
			fail_msg("%s: found %s", utf8_of(ruestung[i]), got ? got : "nothing");
	}
	snprintf(want, sizeof(want), "%s/B\xe4r.pcx", b);
	static const char *const baer[] = {"B\xe4r.pcx", "b\xc4R.PCX", "B\xc3\xa4r.pcx"};
	for (size_t i = 0; i < 3; i++) {
		const char *got = find(&f, baer[i]);
		if (!got || strcmp(got, want))
			fail_msg("%s: found %s", utf8_of(baer[i]), got ? got : "nothing");
	}
	snprintf(want, sizeof(want), "%s/other.pcx", b);
	assert_string_equal(find(&f, "..\\..\\OTHER.PCX"), want);
	assert_null(find(&f, "Rustung.mdl"));
	assert_null(find(&f, "/etc/passwd"));
	assert_null(find(&f, "a/.."));
	// The one warning: every folder looked in, and how to add one.
	gsioi_found r;
	assert_true(gsioi_find_file(&f, "missing.pcx", &r, &err));
	char msg[700], folders[600];
	gsioi_finder_missing(&f, &r, "not loaded", msg, sizeof(msg));
	snprintf(folders, sizeof(folders), "not found in %s (the level's folder) or %s: not loaded", a,
	         b);
	assert_non_null(strstr(msg, folders));
	assert_non_null(strstr(msg, "--path DIR"));
	gsioi_finder_free(&f);
	gsioi_arena_destroy(arena);
	remove_tree(root);
}

// -- Nothing read before the checks

/* An io that reads real files through the default io and records every
 * path it is asked to read. */
typedef struct reads {
	char paths[8][1024];
	size_t count;
} reads;

static int rec_read(void *user, const char *path, uint8_t **data, size_t *size, gsio_error *err)
{
	reads *r = user;
	if (r->count < 8) snprintf(r->paths[r->count], sizeof(r->paths[0]), "%s", path);
	r->count++;
	return gsio_default_io()->read_file(NULL, path, data, size, err);
}

static void rec_free(void *user, uint8_t *data)
{
	(void)user;
	gsio_default_io()->free_data(NULL, data);
}

static int rec_list(void *user, const char *dir, char ***names, gsio_error *err)
{
	(void)user;
	return gsio_default_io()->list_dir(NULL, dir, names, err);
}

static void rec_free_list(void *user, char **names)
{
	(void)user;
	gsio_default_io()->free_list(NULL, names);
}

/* An uncompressed 2 x 2 TGA. */
static void write_tga(const char *path)
{
	uint8_t d[18 + 16] = {0};
	d[2] = 2, d[12] = 2, d[14] = 2, d[16] = 32, d[17] = 8 | 0x20;
	for (size_t i = 18; i < sizeof(d); i++) d[i] = (uint8_t)(i * 13);
	t_write_file(path, d, sizeof(d));
}

/* Loads external texture `stored` of a model in dir through the recording
 * io; the scene's warnings in `warning` ("" none). */
static bool external(const char *dir, const char *stored, const char *search, reads *rec,
                     char *warning, size_t n)
{
	gsio_io io = {rec_read, rec_free, rec_list, rec_free_list, rec};
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.io = &io;
	const char *paths[] = {search};
	if (search) o.search_paths = paths, o.search_paths_count = 1;
	char model[600];
	snprintf(model, sizeof(model), "%s/model.mdl", dir);
	gsio_error err;
	gsio_error_clear(&err);
	gsio_scene *s = gsio_scene_new(&o, &err);
	assert_non_null(s);
	gsio_image im;
	memset(&im, 0, sizeof(im));
	bool loaded;
	assert_true(gsioi_external_image_load(s, stored, model, &o, &im, &loaded, NULL, &err));
	snprintf(warning, n, "%s", s->warnings_count ? s->warnings[0] : "");
	assert_true(s->warnings_count <= 1);
	gsio_scene_free(s);
	return loaded;
}

/* A texture that is a symbolic link out of the model's folder, or no
 * regular file (a FIFO, a folder), is refused before it is opened: the io
 * is never asked for it (a link to a 2 GiB file elsewhere would be read
 * whole, a FIFO would block). A file of that name in a search folder is
 * taken instead. */
static void test_refused_unread(void **state)
{
	(void)state;
	char root[] = "/tmp/gsio_files_XXXXXX", m[256], out[256], more[256], p[700], q[700];
	assert_non_null(mkdtemp(root));
	make_dir(root, "model", m, sizeof(m));
	make_dir(root, "outside", out, sizeof(out));
	make_dir(root, "more", more, sizeof(more));
	snprintf(p, sizeof(p), "%s/secret.tga", out);
	write_tga(p);
	snprintf(q, sizeof(q), "%s/tex.tga", m);
	assert_int_equal(symlink(p, q), 0);
	snprintf(q, sizeof(q), "%s/fifo.tga", m);
	assert_int_equal(mkfifo(q, 0600), 0);
	snprintf(q, sizeof(q), "%s/folder.tga", m);
	assert_int_equal(mkdir(q, 0755), 0);
	snprintf(q, sizeof(q), "%s/ok.tga", m);
	write_tga(q);
	reads rec = {0};
	char w[600];
	assert_false(external(m, "tex.tga", NULL, &rec, w, sizeof(w)));
	assert_int_equal(rec.count, 0);
	assert_non_null(strstr(w, "tex.tga leads outside"));
	assert_false(external(m, "fifo.tga", NULL, &rec, w, sizeof(w)));
	assert_non_null(strstr(w, "fifo.tga is not a regular file"));
	assert_false(external(m, "folder.tga", NULL, &rec, w, sizeof(w)));
	assert_non_null(strstr(w, "folder.tga is not a regular file"));
	assert_int_equal(rec.count, 0);
	// A link inside the folder to a file inside it is followed.
	snprintf(p, sizeof(p), "%s/inner.tga", m);
	assert_int_equal(symlink("ok.tga", p), 0);
	assert_true(external(m, "inner.tga", NULL, &rec, w, sizeof(w)));
	assert_int_equal(rec.count, 1);
	assert_string_equal(rec.paths[0], p);
	// The refused link's name in a search folder: that file.
	snprintf(p, sizeof(p), "%s/TEX.tga", more);
	write_tga(p);
	assert_true(external(m, "tex.tga", more, &rec, w, sizeof(w)));
	assert_int_equal(rec.count, 2);
	assert_string_equal(rec.paths[1], p);
	assert_string_equal(w, "");
	remove_tree(root);
}

// -- A model's texture in a search folder (the corpus)

/* plank.mdl names room_atlas_01.pcx, which lies in the game's Level folder,
 * not beside the model: with that folder in search_paths the model is
 * textured with the PCX's size; without it, one warning that names the
 * folder looked in and --path. */
static void test_texture_in_search_folder(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t n;
	uint8_t *pcx = t_read_corpus("lottershock/Game/Level/room_atlas_01.pcx", &n);
	assert_true(n > 128);
	uint32_t w = (uint32_t)(pcx[8] | pcx[9] << 8) - (uint32_t)(pcx[4] | pcx[5] << 8) + 1;
	uint32_t h = (uint32_t)(pcx[10] | pcx[11] << 8) - (uint32_t)(pcx[6] | pcx[7] << 8) + 1;
	free(pcx);
	char model[1024], level[1024];
	snprintf(model, sizeof(model), "%s", t_corpus_path("lottershock/Game/Assets/plank.mdl"));
	snprintf(level, sizeof(level), "%s", t_corpus_path("lottershock/Game/Level"));
	const char *paths[] = {level};
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.search_paths = paths, o.search_paths_count = 1;
	gsio_scene *s = t_load_ok(model, &o);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, w);
	assert_int_equal(s->images[0].height, h);
	assert_int_equal(s->warnings_count, 0);
	assert_string_equal(s->images[0].name, "room_atlas_01.pcx");
	gsio_scene_free(s);
	s = t_load_ok(model, NULL);
	assert_int_equal(s->images_count, 0);
	assert_int_equal(s->warnings_count, 1);
	assert_non_null(strstr(s->warnings[0], "room_atlas_01.pcx"));
	assert_non_null(strstr(s->warnings[0], "Game/Assets (the model's folder)"));
	assert_non_null(strstr(s->warnings[0], "--path DIR"));
	gsio_scene_free(s);
}

// -- A level naming a model in CP1252

/* dir/l.wmp (binary, gsio's encoder): one object named `object` placing
 * the model file `file`, both as stored bytes. */
static void write_level(const char *dir, const char *object, const char *file)
{
	gsio_wmp_file f;
	memset(&f, 0, sizeof(f));
	f.dialect = GSIO_WMP_TEXT_B; // node kinds from the elements
	gsio_wmp_object objects[2];
	gsio_wmp_entity entity;
	gsio_wmp_ref refs[2] = {{GSIO_WMP_OBJECT, 1}, {GSIO_WMP_ENTITY, 0}};
	memset(objects, 0, sizeof(objects));
	memset(&entity, 0, sizeof(entity));
	entity.head = 3, entity.type = 0x200, entity.albedo = 50;
	entity.name.s = object, entity.file.s = file;
	for (int i = 0; i < 2; i++) objects[i].scale[0] = objects[i].scale[1] = objects[i].scale[2] = 1;
	objects[0].class_name.s = "level", objects[0].name.s = "Root";
	objects[0].refs = &refs[0], objects[0].refs_count = 1;
	objects[1].class_name.s = "model", objects[1].name.s = object;
	objects[1].refs = &refs[1], objects[1].refs_count = 1;
	f.objects = objects, f.objects_count = 2;
	f.entities = &entity, f.entities_count = 1;
	uint8_t *bytes;
	size_t size;
	gsio_error err;
	if (gsio_wmp_encode(&f, GSIO_WMP_BINARY, &bytes, &size, &err)) fail_msg("%s", err.message);
	char p[600];
	snprintf(p, sizeof(p), "%s/l.wmp", dir);
	t_write_file(p, bytes, size);
	free(bytes);
}

/* The level names "R\xfcstung.mdl" (CP1252) and its object "R\xfcstung";
 * the model beside it is named in UTF-8, as any file copied to Linux is:
 * it is found and placed, and every name gsio gives is UTF-8 (the node,
 * the file record, the glTF). The model named with the raw byte is found
 * as well. */
static void test_level_cp1252_names(void **state)
{
	(void)state;
	char root[] = "/tmp/gsio_files_XXXXXX", model[600], level[600];
	assert_non_null(mkdtemp(root));
	write_level(root, "R\xfcstung", "R\xfcstung.mdl");
	size_t n;
	uint8_t *mdl = t_read_file(GSIO_SOURCE_DIR "/samples/clips.mdl", &n);
	snprintf(level, sizeof(level), "%s/l.wmp", root);
	static const char *const names[] = {"R\xc3\xbcstung.mdl", "R\xfcstung.mdl"};
	for (int k = 0; k < 2; k++) {
		snprintf(model, sizeof(model), "%s/%s", root, names[k]);
		t_write_file(model, mdl, n);
		gsio_scene *s = t_load_ok(level, NULL);
		for (size_t i = 0; i < s->warnings_count; i++)
			print_message("warning: %s\n", s->warnings[i]);
		assert_int_equal(s->warnings_count, 0);
		int32_t node = -1;
		for (size_t i = 0; i < s->nodes_count && node < 0; i++)
			if (s->nodes[i].name && !strcmp(s->nodes[i].name, "R\xc3\xbcstung")) node = (int32_t)i;
		assert_true(node >= 0);
		size_t under = 0; // the model's mesh nodes, children or grandchildren of the object's
		for (size_t i = 0; i < s->nodes_count; i++) {
			int32_t p = s->nodes[i].parent;
			if (s->nodes[i].mesh >= 0 && p >= 0 && (p == node || s->nodes[p].parent == node)) under++;
		}
		assert_true(under > 0);
		const gsio_extra *e = gsio_extras_get(&s->extras, "wmp:file:model:R\xc3\xbcstung.mdl");
		assert_non_null(e);
		if (k == 0) assert_string_equal(e->s, model);
#ifdef GSIO_HAVE_GLTF
		gsio_gltf_output out = {0};
		gsio_error err;
		if (gsio_gltf_write(s, NULL, &out, &err)) fail_msg("%s", err.message);
		const uint8_t *glb = out.files[0].data;
		uint32_t jl = (uint32_t)(glb[12] | glb[13] << 8 | glb[14] << 16 | (uint32_t)glb[15] << 24);
		char *json = strndup((const char *)glb + 20, jl);
		assert_non_null(strstr(json, "\"name\":\"R\xc3\xbcstung\""));
		free(json);
		gsio_gltf_output_free(&out);
#endif
		gsio_scene_free(s);
		unlink(model);
	}
	free(mdl);
	remove_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cp1252_bytes),
	    cmocka_unit_test(test_utf8_kept_controls_replaced),
	    cmocka_unit_test(test_find_by_name),
	    cmocka_unit_test(test_refused_unread),
	    cmocka_unit_test(test_texture_in_search_folder),
	    cmocka_unit_test(test_level_cp1252_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
