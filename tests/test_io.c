/* File access: the default io (regular files only, a FIFO never blocks,
 * directory listing), gsio_load_file through opts->io, the path rule for
 * sibling files (a texture or animation that resolves outside the model's
 * folder is not followed), palettes through an io. Every file is made at
 * run time in a mkdtemp folder; an alarm turns a hang into a failure. */
#define _POSIX_C_SOURCE 200809L // mkdtemp, mkfifo, symlink

#include "test_util.h"

#include "gsioi_internal.h"
#include "gsio_md5.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// -- A scratch folder

typedef struct scratch {
	char root[256];
	char paths[24][512];
	size_t count;
} scratch;

static const char *sc_path(scratch *d, const char *rel)
{
	assert_true(d->count < 24);
	char *p = d->paths[d->count++];
	size_t rl = strlen(d->root), n = strlen(rel);
	assert_true(rl + 1 + n < 512);
	memcpy(p, d->root, rl);
	p[rl] = '/';
	memcpy(p + rl + 1, rel, n + 1);
	return p;
}

static void sc_make(scratch *d)
{
	memset(d, 0, sizeof(*d));
	const char *tmp = getenv("TMPDIR");
	snprintf(d->root, sizeof(d->root), "%s/gsio_io_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(d->root));
}

/* Makes rel in the scratch folder: a folder, a file holding text, a FIFO or
 * a symlink to target; its path. */
enum sc_kind { SC_DIR, SC_TEXT, SC_FIFO, SC_LINK };

static const char *sc_node(scratch *d, const char *rel, enum sc_kind kind, const char *arg)
{
	const char *p = sc_path(d, rel);
	if (kind == SC_TEXT) t_write_file(p, (const uint8_t *)arg, strlen(arg));
	else assert_int_equal(kind == SC_DIR ? mkdir(p, 0700) : kind == SC_FIFO ? mkfifo(p, 0600) : symlink(arg, p), 0);
	return p;
}

static const char *sc_dir(scratch *d, const char *rel) { return sc_node(d, rel, SC_DIR, NULL); }
static const char *sc_text(scratch *d, const char *rel, const char *text) { return sc_node(d, rel, SC_TEXT, text); }
static const char *sc_fifo(scratch *d, const char *rel) { return sc_node(d, rel, SC_FIFO, NULL); }
static const char *sc_link(scratch *d, const char *rel, const char *target) { return sc_node(d, rel, SC_LINK, target); }

// Removes what was made, last first (files and links before their folders).
static void sc_remove(scratch *d)
{
	for (size_t i = d->count; i-- > 0;) remove(d->paths[i]);
	remove(d->root);
}

/* cmocka fixtures: a scratch folder for the test (*state), removed after. */
static int sc_setup(void **state)
{
	scratch *d = malloc(sizeof(*d));
	if (!d) return -1;
	sc_make(d);
	*state = d;
	return 0;
}

static int sc_teardown(void **state)
{
	sc_remove(*state);
	free(*state);
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static bool has_warning(const gsio_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings_count; i++)
		if (strstr(s->warnings[i], needle)) return true;
	return false;
}

static void print_warnings(const gsio_scene *s)
{
	for (size_t i = 0; i < s->warnings_count; i++) print_message("  warning: %s\n", s->warnings[i]);
}

static void assert_valid(const gsio_scene *s)
{
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
}

// A 2x1 uncompressed 24-bit TGA, first pixel red = v.
static size_t make_tga(uint8_t out[24], uint8_t v)
{
	memset(out, 0, 24);
	out[2] = 2;     // uncompressed true colour
	out[12] = 2;    // width
	out[14] = 1;    // height
	out[16] = 24;   // bits per pixel
	out[18 + 2] = v; // BGR: red of pixel 0
	return 18 + 6;
}

// A one-triangle .md5mesh whose shader is `shader`.
static void mesh_text(char *buf, size_t n, const char *shader)
{
	snprintf(buf, n,
	         "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n"
	         "joints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
	         "mesh {\nshader \"%s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
	         "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
	         "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n",
	         shader);
}

static const char *anim_text =
    "MD5Version 10\ncommandline \"\"\nnumFrames 1\nnumJoints 1\nframeRate 24\n"
    "numAnimatedComponents 0\nhierarchy {\n\"j\" -1 0 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n}\n"
    "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n}\n";

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "test_io: a read blocked (alarm)\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) _exit(3);
	_exit(2);
}

static int setup(void **state)
{
	(void)state;
	signal(SIGALRM, on_alarm);
	alarm(60); // a FIFO that blocks would hang the test: fail instead
	return 0;
}

// -- The default io

// A FIFO named like a model: gsio_load_file fails at once with an io error
// (opening it without O_NONBLOCK would wait for a writer forever).
static void test_fifo_model(void **state)
{
	scratch *d = *state;
	const char *names[] = {"x.mdl", "x.md5mesh", "x.hmp"};
	for (size_t i = 0; i < 3; i++) {
		const char *p = sc_fifo(d, names[i]);
		gsio_error err;
		double t0 = now_ms();
		gsio_scene *s = gsio_load_file(p, NULL, &err);
		double ms = now_ms() - t0;
		assert_null(s);
		char buf[600];
		gsio_error_format(&err, buf, sizeof(buf));
		print_message("  %s: %s (%.2f ms)\n", names[i], buf, ms);
		assert_int_equal(err.code, GSIO_ERR_IO);
		assert_non_null(strstr(err.message, "not a regular file"));
		assert_string_equal(err.file, p);
		assert_true(ms < 1000.0);
	}
}

// -- First bytes before the rest

/* Bytes this process has read so far (Linux: /proc/self/io's rchar); -1
 * where that is not known. */
static long long bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	if (!f) return -1;
	char line[128];
	long long n = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "rchar: %lld", &n) == 1) break;
	fclose(f);
	return n;
}

/* Makes rel in the scratch folder: `head` (n bytes) then zeros up to size
 * bytes, without writing the zeros (a sparse file). */
static const char *sc_sized(scratch *d, const char *rel, const void *head, size_t n, off_t size)
{
	const char *p = sc_path(d, rel);
	t_write_file(p, head, n);
	assert_int_equal(truncate(p, size), 0);
	return p;
}

static void assert_same_error(const gsio_error *a, const gsio_error *b)
{
	char ta[600], tb[600];
	gsio_error_format(a, ta, sizeof(ta));
	gsio_error_format(b, tb, sizeof(tb));
	assert_string_equal(ta, tb);
	assert_int_equal(a->code, b->code);
	assert_true(a->offset == b->offset && a->line == b->line && a->column == b->column);
}

/* A 100 MB file whose first bytes no importer reads (or an unsupported
 * version of one it does) is refused after its first few KB, with the error
 * a load of the whole file gives, before the size limit is looked at
 * (measured by the bytes this process read). */
static void test_refused_by_first_bytes(void **state)
{
	scratch *d = *state;
	static const struct {
		const char *name, *head;
		gsio_error_code code;
	} cases[] = {
	    {"zeros.mdl", "", GSIO_ERR_BAD_MAGIC},
	    {"v6.mdl", "MDL6", GSIO_ERR_UNSUPPORTED},
	    {"quake.mdl", "IDPO", GSIO_ERR_UNSUPPORTED},
	    {"zeros.hmp", "", GSIO_ERR_BAD_MAGIC},
	    {"zeros.md5mesh", "", GSIO_ERR_SYNTAX},
	    {"words.md5anim", "hello world\n", GSIO_ERR_SYNTAX},
	    {"zeros.wmp", "", GSIO_ERR_SYNTAX},
	    {"zeros.bin", "", GSIO_ERR_BAD_MAGIC},
	    {"level.wmb", "WMB7", GSIO_ERR_CORRUPT},
	    {"level.wmp", "WMB6", GSIO_ERR_CORRUPT},
	    {"old.wmb", "WMB3", GSIO_ERR_UNSUPPORTED},
	    {"textures.wad", "WAD7", GSIO_ERR_UNSUPPORTED},
	};
	const off_t size = (off_t)100 << 20;
	gsio_opts small = {.memory_limit = (size_t)1 << 20}; // the file is past it
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = sc_sized(d, cases[i].name, cases[i].head, strlen(cases[i].head), size);
		for (int limit = 0; limit < 2; limit++) {
			gsio_error err;
			long long before = bytes_read();
			assert_null(gsio_load_file(p, limit ? &small : NULL, &err));
			long long read = bytes_read() - before;
			char buf[600];
			gsio_error_format(&err, buf, sizeof(buf));
			print_message("  %s: %s (%lld bytes read)\n", cases[i].name, buf, read);
			assert_int_equal(err.code, cases[i].code);
			if (before >= 0) assert_true(read <= 16384);
			// The same error as the whole file's, in memory (its first 64 KB
			// stand for it: the rest is zeros too).
			uint8_t *whole = calloc(1, 65536);
			assert_non_null(whole);
			memcpy(whole, cases[i].head, strlen(cases[i].head));
			gsio_error mem;
			assert_null(gsio_load_memory(whole, 65536, p, NULL, &mem));
			free(whole);
			assert_same_error(&err, &mem);
		}
	}
}

/* What the first bytes cannot rule out is read whole: a text whose first
 * token lies past them (blanks or a comment first), and files that fail
 * later on. Each file, of 64 KB, fails or loads as gsio_load_memory does on
 * its bytes. */
static void test_first_bytes_agree(void **state)
{
	scratch *d = *state;
	char mesh[1024];
	mesh_text(mesh, sizeof(mesh), "");
	static const char *const names[] = {"a.md5mesh", "b.md5mesh", "c.wmp", "d.md5mesh",
	                                    "e.mdl", "f.txt", "g.md5mesh", "h.wmp"};
	const size_t n = 65536;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *text = malloc(n);
		assert_non_null(text);
		memset(text, ' ', n);
		const char *put = i == 0 ? mesh : i == 1 ? "hello" : i == 2 ? "// WMP2\nblocks 0" : i == 3 ? "/* c */ x"
		                  : i == 4 ? "MDL5" : i == 5 ? mesh : i == 6 ? "\"unterminated" : "version 710 blocks";
		size_t at = i == 4 ? 0 : i % 2 ? 4090 : 5000; // past the head, or cut by its end
		memcpy(text + at, put, strlen(put));
		if (i == 0 || i == 5) { // the mesh whole, spaces after it
			memset(text, ' ', n);
			memcpy(text + 4100, mesh, strlen(mesh));
		}
		const char *p = sc_path(d, names[i]);
		t_write_file(p, (const uint8_t *)text, n);
		gsio_error ef, em;
		gsio_scene *sf = gsio_load_file(p, NULL, &ef);
		gsio_scene *sm = gsio_load_memory((const uint8_t *)text, n, p, NULL, &em);
		free(text);
		char buf[600];
		gsio_error_format(&ef, buf, sizeof(buf));
		print_message("  %s: %s\n", names[i], sf ? "loaded" : buf);
		assert_true(!sf == !sm);
		if (!sf) assert_same_error(&ef, &em);
		gsio_scene_free(sf);
		gsio_scene_free(sm);
	}
}

static void test_default_io(void **state)
{
	scratch *d = *state;
	const gsio_io *io = gsio_default_io();
	assert_non_null(io);
	assert_non_null(io->read_file);
	assert_non_null(io->free_data);
	assert_non_null(io->list_dir);
	assert_non_null(io->free_list);
	sc_text(d, "b.txt", "bee");
	sc_text(d, "a.txt", "a");
	sc_dir(d, "sub");
	sc_fifo(d, "pipe");
	sc_link(d, "link.txt", "a.txt");    // a link to a regular file counts
	sc_link(d, "dangling", "nowhere"); // one to nothing does not

	// read_file: a regular file whole; a folder and a FIFO refused.
	uint8_t *data;
	size_t size;
	gsio_error err;
	char p[600];
	snprintf(p, sizeof(p), "%s/b.txt", d->root);
	assert_int_equal(io->read_file(io->user, p, &data, &size, &err), 0);
	assert_int_equal(size, 3);
	assert_memory_equal(data, "bee", 3);
	io->free_data(io->user, data);
	snprintf(p, sizeof(p), "%s/sub", d->root);
	gsio_error_clear(&err);
	assert_int_not_equal(io->read_file(io->user, p, &data, &size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "not a regular file"));
	assert_non_null(strstr(err.message, "directory"));
	snprintf(p, sizeof(p), "%s/pipe", d->root);
	gsio_error_clear(&err);
	assert_int_not_equal(io->read_file(io->user, p, &data, &size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "not a regular file"));
	gsio_error_clear(&err);
	assert_int_not_equal(io->read_file(io->user, "/dev/null", &data, &size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO); // a device

	// list_dir: the regular files only (a.txt, b.txt, link.txt), any order.
	char **names = NULL;
	assert_int_equal(io->list_dir(io->user, d->root, &names, &err), 0);
	assert_non_null(names);
	size_t n = 0;
	bool seen[3] = {false, false, false};
	for (; names[n]; n++) {
		if (!strcmp(names[n], "a.txt")) seen[0] = true;
		else if (!strcmp(names[n], "b.txt")) seen[1] = true;
		else if (!strcmp(names[n], "link.txt")) seen[2] = true;
		else fail_msg("listed %s, which is not a regular file", names[n]);
	}
	assert_int_equal(n, 3);
	assert_true(seen[0] && seen[1] && seen[2]);
	io->free_list(io->user, names);
	snprintf(p, sizeof(p), "%s/sub", d->root);
	assert_int_equal(io->list_dir(io->user, p, &names, &err), 0); // empty folder: empty list
	assert_null(names[0]);
	io->free_list(io->user, names);
	snprintf(p, sizeof(p), "%s/missing", d->root);
	gsio_error_clear(&err);
	assert_int_not_equal(io->list_dir(io->user, p, &names, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
}

static void test_path_inside(void **state)
{
	scratch *d = *state;
	const char *in = sc_dir(d, "in");
	const char *out = sc_dir(d, "out");
	char target[600];
	snprintf(target, sizeof(target), "%s/secret.tga", out);
	sc_text(d, "out/secret.tga", "x");
	sc_text(d, "in/ok.tga", "x");
	sc_link(d, "in/leak.tga", target);
	sc_link(d, "in/up", "..");
	char p[600];
	snprintf(p, sizeof(p), "%s/ok.tga", in);
	assert_int_equal(gsioi_path_inside(in, p), 1);
	snprintf(p, sizeof(p), "%s/leak.tga", in);
	assert_int_equal(gsioi_path_inside(in, p), 0); // a link inside, leading out
	snprintf(p, sizeof(p), "%s/../out/secret.tga", in);
	assert_int_equal(gsioi_path_inside(in, p), 0);
	snprintf(p, sizeof(p), "%s/up/out/secret.tga", in);
	assert_int_equal(gsioi_path_inside(in, p), 0);
	snprintf(p, sizeof(p), "%s/none.tga", in);
	assert_int_equal(gsioi_path_inside(in, p), -1); // missing
	assert_int_equal(gsioi_path_inside(in, in), 0);  // the folder itself is not inside it
	(void)out;
}

// -- MD5 sibling files through the default io

// A FIFO where a shader points: a warning, and the load finishes.
static void test_md5_fifo_texture(void **state)
{
	scratch *d = *state;
	sc_fifo(d, "skin.tga");
	char text[2048];
	mesh_text(text, sizeof(text), "skin.tga");
	const char *model = sc_text(d, "m.md5mesh", text);
	gsio_error err;
	double t0 = now_ms();
	gsio_scene *s = gsio_load_file(model, NULL, &err);
	double ms = now_ms() - t0;
	assert_non_null(s);
	print_warnings(s);
	print_message("  loaded in %.2f ms\n", ms);
	assert_valid(s);
	assert_int_equal(s->materials_count, 1);
	assert_int_equal(s->materials[0].base_color_texture.image, -1);
	assert_int_equal(s->images_count, 0);
	assert_true(has_warning(s, "not a regular file"));
	assert_true(ms < 1000.0);
	gsio_scene_free(s);
}

// A symlink in the model's folder to a texture outside it is not followed
// (a warning); a symlink to one inside is.
static void test_md5_symlink_texture(void **state)
{
	scratch *d = *state;
	sc_dir(d, "outside");
	sc_dir(d, "model");
	uint8_t tga[24];
	size_t n = make_tga(tga, 200);
	const char *secret = sc_path(d, "outside/secret.tga");
	t_write_file(secret, tga, n);
	sc_link(d, "model/skin.tga", secret);
	const char *inside = sc_path(d, "model/real.tga");
	t_write_file(inside, tga, n);
	sc_link(d, "model/alias.tga", "real.tga");
	char text[4096], one[2048];
	mesh_text(text, sizeof(text), "skin.tga");
	mesh_text(one, sizeof(one), "alias.tga");
	// Two meshes: append the second block of `one` (from "mesh {").
	char *second = strstr(one, "mesh {");
	char *count = strstr(text, "numMeshes 1");
	count[10] = '2';
	strncat(text, second, sizeof(text) - strlen(text) - 1);
	const char *model = sc_text(d, "model/m.md5mesh", text);
	// A sibling animation that leads out of the folder is not followed either.
	const char *anim = sc_text(d, "outside/walk.md5anim", anim_text);
	sc_link(d, "model/walk.md5anim", anim);
	gsio_scene *s = gsio_load_file(model, NULL, NULL);
	assert_non_null(s);
	print_warnings(s);
	assert_valid(s);
	assert_int_equal(s->materials_count, 2);
	assert_int_equal(s->materials[0].base_color_texture.image, -1);
	assert_true(has_warning(s, "texture"));
	assert_true(has_warning(s, "model/skin.tga leads outside"));
	assert_true(s->materials[1].base_color_texture.image >= 0); // alias.tga -> real.tga inside
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].rgba[0], 200);
	assert_int_equal(s->animations_count, 0);
	assert_true(has_warning(s, "walk.md5anim resolves outside the model's folder"));
	gsio_scene_free(s);

	// The same animation as a real file in the folder is found.
	char inpath[600];
	snprintf(inpath, sizeof(inpath), "%s/model/walk.md5anim", d->root);
	remove(inpath);
	t_write_file(inpath, (const uint8_t *)anim_text, strlen(anim_text));
	s = gsio_load_file(model, NULL, NULL);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "walk");
	gsio_scene_free(s);
}

// -- Through a custom io

static void test_custom_io(void **state)
{
	(void)state;
	uint8_t pal[768];
	for (size_t i = 0; i < 768; i++) pal[i] = (uint8_t)(i * 7);
	t_blob m = {.data = pal, .size = sizeof(pal), .path = "virtual/pal.lmp"};
	gsio_io io = t_blob_io(&m);
	gsio_opts opts = {0};
	opts.io = &io;
	uint8_t out[768];
	gsio_error err;
	assert_int_equal(gsioi_palette_load_io(&opts, "virtual/pal.lmp", out, &err), 0);
	assert_memory_equal(out, pal, 768);
	assert_int_equal(m.reads, 1);
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_palette_load_io(&opts, "virtual/none.lmp", out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	// The memory limit holds for what a custom io returns too.
	opts.memory_limit = 100;
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_palette_load_io(&opts, "virtual/pal.lmp", out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);

	// gsio_load_file reads the model itself through the io: no disk.
	char text[2048];
	mesh_text(text, sizeof(text), "");
	t_blob mm = {.data = (const uint8_t *)text, .size = strlen(text), .path = "virtual/m.md5mesh"};
	gsio_io mio = t_blob_io(&mm);
	gsio_opts mopts = {0};
	mopts.io = &mio;
	gsio_scene *s = t_load_ok("virtual/m.md5mesh", &mopts);
	assert_valid(s);
	assert_int_equal(mm.reads, 1);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_fifo_model, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_refused_by_first_bytes, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_first_bytes_agree, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_default_io, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_path_inside, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_md5_fifo_texture, sc_setup, sc_teardown),
	    cmocka_unit_test_setup_teardown(test_md5_symlink_texture, sc_setup, sc_teardown),
	    cmocka_unit_test(test_custom_io),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
