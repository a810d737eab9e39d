/* The glTF writer writing to files as it goes (gsio_gltf_write_file: the
 * binary data spilled past a threshold, the GLB assembled in the placed
 * file): its files must hold exactly the bytes gsio_gltf_write() makes in
 * memory, for a generated model large enough to spill and for every corpus
 * file, as .glb and as .gltf + .bin + .png, with the images encoded on a
 * helper thread (gsio_gltf_opts.threads 2) or not; and a write that fails
 * half way (file size limit, standing in for a full disk; a folder that
 * cannot be written; an image that cannot be encoded) must say so, name
 * the output and leave no file behind. */
#define _GNU_SOURCE
#include "test_util.h"

#include "gsio_gltf.h"
#include "gsioi_place.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

// -- Helpers

static void work_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "%s/test_gltf_stream_%s", GSIO_BINARY_DIR, name);
	mkdir(dir, 0777);
}

static size_t count_files(const char *dir, const char *part)
{
	return t_scan_dir(dir, part, NULL, 0);
}

/** Writes s in memory and to dir/<stem>.<ext>, and checks that every file
 *  of the in-memory output is on disk with the same bytes, and nothing
 *  else (no temporary); and that with images on a helper thread (threads
 *  2) both are the same bytes again. Returns the bytes written. */
static size_t check_same(const gsio_scene *s, const char *dir, const char *stem, const char *ext,
                         const char *what)
{
	t_empty_dir(dir);
	gsio_gltf_opts o = {0};
	o.name = stem;
	if (!strcmp(ext, "gltf")) o.flags |= GSIO_GLTF_SEPARATE;
	gsio_gltf_output mem;
	gsio_error err;
	if (gsio_gltf_write(s, &o, &mem, &err)) fail_msg("%s: gsio_gltf_write: %s", what, err.message);
	gsio_gltf_output mem2;
	o.threads = 2;
	if (gsio_gltf_write(s, &o, &mem2, &err)) fail_msg("%s: gsio_gltf_write, 2 threads: %s", what, err.message);
	assert_int_equal(mem2.files_count, mem.files_count);
	for (size_t i = 0; i < mem.files_count; i++) {
		assert_string_equal(mem2.files[i].name, mem.files[i].name);
		if (mem2.files[i].size != mem.files[i].size || memcmp(mem2.files[i].data, mem.files[i].data, mem.files[i].size))
			fail_msg("%s: %s differs with 2 threads (%zu / %zu bytes)", what, mem.files[i].name, mem2.files[i].size,
			         mem.files[i].size);
	}
	assert_int_equal(mem2.warnings_count, mem.warnings_count);
	gsio_gltf_output_free(&mem2);
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, stem, ext);
	// The default in-memory share of the binary data (32 MiB for a GLB:
	// nothing here reaches it) and 256 KiB, past which it spills; each
	// with 1 and 2 threads.
	static const size_t held[4] = {0, 256u << 10, 0, 256u << 10};
	size_t total = 0;
	for (int h = 0; h < 4; h++) {
		t_empty_dir(dir);
		gsio_gltf_opts fo = {0};
		fo.buffer_memory = held[h];
		fo.threads = h < 2 ? 1 : 2;
		gsio_gltf_output w;
		if (gsio_gltf_write_file(s, path, &fo, &w, &err))
			fail_msg("%s: gsio_gltf_write_file: %s (%s)", what, err.message, err.file);
		assert_int_equal(w.warnings_count, mem.warnings_count);
		gsio_gltf_output_free(&w);
		total = 0;
		for (size_t i = 0; i < mem.files_count; i++) {
			char fp[4400];
			snprintf(fp, sizeof(fp), "%s/%s", dir, mem.files[i].name);
			size_t n;
			uint8_t *d = t_read_file(fp, &n);
			if (!d) fail_msg("%s: %s not written", what, fp);
			if (n != mem.files[i].size || memcmp(d, mem.files[i].data, n))
				fail_msg("%s: %s differs from the in-memory output (%zu / %zu bytes, %zu held, %u threads)",
				         what, fp, n, mem.files[i].size, held[h], fo.threads);
			free(d);
			total += n;
		}
		if (count_files(dir, NULL) != mem.files_count)
			fail_msg("%s: %zu files in %s, %zu expected", what, count_files(dir, NULL), dir,
			         mem.files_count);
	}
	gsio_gltf_output_free(&mem);
	return total;
}

// -- Tests

static void test_large_identical(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "large");
	gsio_scene *s = t_large_scene(150000, 512);
	size_t glb = check_same(s, dir, "big", "glb", "large .glb");
	size_t gltf = check_same(s, dir, "big", "gltf", "large .gltf");
	print_message("large model: %zu bytes as .glb, %zu as .gltf + .bin + .png, same as in memory\n", glb,
	              gltf);
	assert_true(glb > 4u << 20); // it spilled (threshold 256 KiB)
	t_empty_dir(dir);
	gsio_scene_free(s);
}

static void test_corpus_identical(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char dir[4096];
	work_dir(dir, sizeof(dir), "corpus");
	char **list;
	size_t n = t_corpus_files(t_model_dirs, 3, &list), done = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_error err;
		gsio_scene *s = gsio_load_file(list[i], NULL, &err);
		if (s) {
			check_same(s, dir, "m", "glb", list[i]);
			check_same(s, dir, "m", "gltf", list[i]);
			gsio_scene_free(s);
			done++;
		}
	}
	t_free_list(list, n);
	t_empty_dir(dir);
	print_message("%zu corpus files: files written as .glb and .gltf are the in-memory bytes\n", done);
	assert_true(done >= 9);
}

/* The glTF writer's bounds of the images' sizes (gltf_image.c, tests only). */
extern size_t gsio_gltf_test_bound_cap;

/** A GLB written to a file gets the BIN but the images written while the
 *  images are still being made, after the room the JSON is given from the
 *  images' bounds (early_bin). With the bounds cut to 1 byte the JSON
 *  outgrows that room, and the BIN must be written again further on: the
 *  files must still hold the in-memory bytes (check_same), whose JSON chunk
 *  then is the JSON's own length padded to 4 (the image's length "1" in
 *  the room's JSON, 5 digits in the JSON), and without the cut the JSON and
 *  the BIN are the same in a room at least as large. */
/** Puts the bounds back however the test ended. */
static int bounds_back(void **state)
{
	(void)state;
	gsio_gltf_test_bound_cap = SIZE_MAX;
	return 0;
}

static void test_json_outgrows_room(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "room");
	gsio_scene *s = t_large_scene(3000, 128);
	gsio_gltf_opts o = {0};
	o.name = "r";
	gsio_gltf_output a, b;
	gsio_error err;
	if (gsio_gltf_write(s, &o, &a, &err)) fail_msg("gsio_gltf_write: %s", err.message);
	gsio_gltf_test_bound_cap = 1;
	check_same(s, dir, "r", "glb", "bounds cut to 1 byte");
	if (gsio_gltf_write(s, &o, &b, &err)) fail_msg("gsio_gltf_write, bounds cut: %s", err.message);
	gsio_gltf_test_bound_cap = SIZE_MAX;
	const uint8_t *ga = a.files[0].data, *gb = b.files[0].data;
	uint32_t ja, jb;
	memcpy(&ja, ga + 12, 4);
	memcpy(&jb, gb + 12, 4);
	size_t la = ja, lb = jb;
	while (la && ga[20 + la - 1] == ' ') la--;
	while (lb && gb[20 + lb - 1] == ' ') lb--;
	print_message("JSON %zu bytes: chunk %u with the bounds' room, %u with the JSON's own\n", la, ja, jb);
	assert_int_equal(la, lb);
	assert_memory_equal(ga + 20, gb + 20, la);
	assert_int_equal(jb, (lb + 3) & ~(size_t)3);
	assert_true(ja >= jb);
	assert_int_equal(a.files[0].size - ja, b.files[0].size - jb);
	assert_memory_equal(ga + 20 + ja, gb + 20 + jb, a.files[0].size - 20 - ja);
	gsio_gltf_output_free(&a);
	gsio_gltf_output_free(&b);
	t_empty_dir(dir);
	gsio_scene_free(s);
}

/** A write cut short by the file size limit (EFBIG: what a full disk looks
 *  like to the writer, without needing a small file system) fails with an
 *  I/O error naming the final path and leaves nothing in the folder. */
static void test_write_fails(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "fail");
	t_empty_dir(dir);
	gsio_scene *s = t_large_scene(150000, 512);
	struct rlimit old;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
	static const char *const exts[] = {"glb", "gltf"};
	static const rlim_t limits[] = {100000, 1000000, 3000000};
	for (size_t e = 0; e < 4; e++) {
		for (size_t l = 0; l < 3; l++) {
			// .gltf with a 100 KB limit fails in the middle, while the skin
			// may still be on the helper thread (threads 2, e >= 2).
			char path[4400];
			snprintf(path, sizeof(path), "%s/cut.%s", dir, exts[e % 2]);
			struct rlimit lim = old;
			lim.rlim_cur = limits[l];
			assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
			gsio_error err;
			gsio_gltf_opts o = {0};
			o.threads = e < 2 ? 1 : 2;
			int rc = gsio_gltf_write_file(s, path, &o, NULL, &err);
			assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
			if (rc == 0) fail_msg("limit %lu, .%s: written", (unsigned long)limits[l], exts[e % 2]);
			assert_int_equal(err.code, GSIO_ERR_IO);
			assert_non_null(strstr(err.message, "write failed"));
			assert_non_null(strstr(err.message, strerror(EFBIG)));
			assert_null(strstr(err.file, ".tmp"));
			assert_non_null(strstr(err.file, dir));
			if (e % 2 == 0) assert_string_equal(err.file, path);
			// The .gltf is placed last: never without its .bin.
			snprintf(path, sizeof(path), "%s/cut.gltf", dir);
			struct stat st;
			if (e % 2 == 1) assert_int_not_equal(stat(path, &st), 0);
			assert_int_equal(count_files(dir, ".tmp"), 0);
			assert_int_equal(count_files(dir, ".glb"), 0);
			char msg[600];
			gsio_error_format(&err, msg, sizeof(msg));
			if (l == 0) print_message("limit %lu, .%s, %u threads: %s\n", (unsigned long)limits[l], exts[e % 2],
			                          o.threads, msg);
			t_empty_dir(dir);
		}
	}
	signal(SIGXFSZ, prev);
	// A folder that does not exist, and one that is a file.
	char path[4400];
	gsio_error err;
	snprintf(path, sizeof(path), "%s/no-such-folder/x.glb", dir);
	assert_int_not_equal(gsio_gltf_write_file(s, path, NULL, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_string_equal(err.file, path);
	snprintf(path, sizeof(path), "%s/file", dir);
	t_write_file(path, (const uint8_t *)"x", 1);
	snprintf(path, sizeof(path), "%s/file/x.gltf", dir);
	assert_int_not_equal(gsio_gltf_write_file(s, path, NULL, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_null(strstr(err.file, ".tmp"));
	assert_int_equal(count_files(dir, NULL), 1);
	t_empty_dir(dir);
	gsio_scene_free(s);
}

/** An image that cannot be encoded (a skin kept as a DDS file whose data
 *  is broken) fails the write with the image named, the same error with
 *  images on a helper thread or not, as .glb and .gltf, in memory and to a
 *  file, and leaves no file behind. */
static void test_image_fails(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "image");
	t_empty_dir(dir);
	gsio_scene *s = t_large_scene(150000, 512);
	assert_true(s->images_count >= 1);
	gsio_image *im = &s->images[0];
	static const uint8_t broken_dds[] = {'D', 'D', 'S', ' ', 124, 0, 0, 0, 1, 2, 3};
	im->rgba = NULL;
	im->file_data = broken_dds;
	im->file_size = sizeof(broken_dds);
	char first[sizeof(((gsio_error *)0)->message)] = "";
	for (int k = 0; k < 8; k++) {
		gsio_gltf_opts o = {0};
		o.threads = k % 2 ? 2 : 1;
		if (k & 2) o.flags |= GSIO_GLTF_SEPARATE;
		gsio_error err;
		int rc;
		if (k & 4) {
			char path[4400];
			snprintf(path, sizeof(path), "%s/img.%s", dir, k & 2 ? "gltf" : "glb");
			rc = gsio_gltf_write_file(s, path, &o, NULL, &err);
		} else {
			gsio_gltf_output out;
			rc = gsio_gltf_write(s, &o, &out, &err);
			if (!rc) gsio_gltf_output_free(&out);
		}
		if (!rc) fail_msg("case %d: written with a broken DDS skin", k);
		assert_non_null(strstr(err.message, "image 0 (skin0, 512x512): cannot encode as PNG"));
		if (!first[0]) snprintf(first, sizeof(first), "%s", err.message);
		assert_string_equal(err.message, first);
		assert_int_equal(count_files(dir, NULL), 0);
	}
	print_message("broken DDS skin: %s\n", first);
	im->file_data = NULL;
	im->file_size = 0;
	gsio_scene_free(s);
}

/** Morph targets written to a file: deltas of a view under the threshold
 *  are made in the in-memory buffer between spills, those of a view at or
 *  over it are written from the writer's array; either way the bytes are
 *  those made in memory. */
static void test_morph_spill_identical(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "morph");
	const uint32_t cases[][2] = {{30000, 4}, {3000, 120}}; // 360 KB and 36 KB a view
	for (size_t i = 0; i < 2; i++) {
		gsio_scene *s = t_morph_scene(cases[i][0], cases[i][1], true, true);
		size_t glb = check_same(s, dir, "morph", "glb", "morph .glb");
		size_t gltf = check_same(s, dir, "morph", "gltf", "morph .gltf");
		print_message("%u vertices x %u frames: %zu bytes as .glb, %zu as .gltf + .bin, same as in memory\n",
		              cases[i][0], cases[i][1], glb, gltf);
		assert_true(glb > 1u << 20); // it spilled
		gsio_scene_free(s);
	}
	// A clip over 300 frames: its weights (300 keys x 300 targets, 360 KB)
	// are more than a .gltf's 256 KiB share of memory, so written from an
	// array of their own there, and straight into the buffer in memory and
	// in the .glb: the same bytes.
	gsio_scene *s = t_morph_scene(40, 300, true, true);
	gsio_error err;
	int32_t a = gsio_scene_add_animation(s, "clip", 10, 300, 1, &err);
	assert_true(a >= 0);
	gsio_channel *ch = &s->animations[a].channels[0];
	ch->node = 0;
	ch->path = GSIO_PATH_MORPH;
	ch->frames = gsio_scene_alloc(s, 300, sizeof(uint32_t), &err);
	assert_non_null(ch->frames);
	for (uint32_t f = 0; f < 300; f++) ch->frames[f] = (f * 7) % 300;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	size_t glb = check_same(s, dir, "weights", "glb", "weights .glb");
	size_t gltf = check_same(s, dir, "weights", "gltf", "weights .gltf");
	print_message("40 vertices x 300 frames, a 300-key clip: %zu bytes as .glb, %zu as .gltf + .bin, same as in "
	              "memory\n", glb, gltf);
	assert_true(glb > 300u * 300u * 4u);
	gsio_scene_free(s);
	t_empty_dir(dir);
}

/** NO_REPLACE with a spilled .bin: an existing .bin refuses the write, is
 *  left as it was, and no temporary stays. */
static void test_no_replace_spilled(void **state)
{
	(void)state;
	char dir[4096];
	work_dir(dir, sizeof(dir), "noreplace");
	t_empty_dir(dir);
	gsio_scene *s = t_large_scene(150000, 64);
	char path[4400], bin[4400];
	snprintf(path, sizeof(path), "%s/n.gltf", dir);
	snprintf(bin, sizeof(bin), "%s/n.bin", dir);
	t_write_file(bin, (const uint8_t *)"old", 3);
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_NO_REPLACE;
	gsio_error err;
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "exists"));
	assert_string_equal(err.file, bin);
	size_t n;
	uint8_t *d = t_read_file(bin, &n);
	assert_int_equal(n, 3);
	free(d);
	assert_int_equal(count_files(dir, NULL), 1);
	unlink(bin);
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(count_files(dir, ".tmp"), 0);
	// The .glb: refused before any work when it exists.
	snprintf(path, sizeof(path), "%s/n.glb", dir);
	t_write_file(path, (const uint8_t *)"old", 3);
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_string_equal(err.file, path);
	d = t_read_file(path, &n);
	assert_int_equal(n, 3);
	free(d);
	assert_int_equal(count_files(dir, ".tmp"), 0);
	t_empty_dir(dir);
	gsio_scene_free(s);
}

/** The placement primitives directly: a scratch file on another file
 *  system than the output (tmpfs /dev/shm when there is one: copy_file_range
 *  fails across file systems and the read/write copy takes over), append,
 *  commit, discard, and a scratch file that cannot be committed. */
/** The file at path holds exactly the n bytes of data. */
static void assert_file_holds(const char *path, const uint8_t *data, size_t n)
{
	size_t got;
	uint8_t *back = t_read_file(path, &got);
	if (!back) fail_msg("%s: not there", path);
	assert_int_equal(got, n);
	assert_memory_equal(back, data, n);
	free(back);
}

static void test_placing(void **state)
{
	(void)state;
	char dir[4096], path[4400], near[4400];
	work_dir(dir, sizeof(dir), "placing");
	t_empty_dir(dir);
	snprintf(path, sizeof(path), "%s/out.bin", dir);
	struct stat st;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		snprintf(near, sizeof(near), "/dev/shm/gsio-scratch");
	else
		snprintf(near, sizeof(near), "%s/scratch", dir);
	gsio_error err;
	size_t n = 300000;
	uint8_t *data = malloc(n);
	assert_non_null(data);
	for (size_t i = 0; i < n; i++) data[i] = (uint8_t)(i * 7 + i / 251);
	for (int pass = 0; pass < 2; pass++) {
		gsioi_placing *sc = gsioi_place_scratch(pass ? path : near, &err);
		if (!sc) fail_msg("scratch: %s", err.message);
		assert_int_equal(gsioi_place_write(sc, data + 5, n - 5, &err), 0);
		assert_int_equal(gsioi_place_size(sc), n - 5);
		gsioi_placing *p = gsioi_place_open(path, &err);
		if (!p) fail_msg("open: %s", err.message);
		assert_int_equal(count_files(dir, ".tmp"), 1);
		assert_int_equal(gsioi_place_write(p, data, 5, &err), 0);
		assert_int_equal(gsioi_place_append(p, sc, &err), 0);
		assert_int_equal(gsioi_place_size(p), n);
		// A scratch file is never placed; committing it fails and frees it.
		assert_int_not_equal(gsioi_place_commit(sc, false, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
		assert_int_equal(gsioi_place_commit(p, false, &err), 0);
		assert_file_holds(path, data, n);
		assert_int_equal(count_files(dir, NULL), 1);
	}
	// Written out of order: a middle part first (gsioi_place_write_at), then
	// the part before it (gsioi_place_write: at the start, where no
	// gsioi_place_write has been, not at the middle part's end) and the
	// last part at its offset.
	{
		gsioi_placing *q = gsioi_place_open(path, &err);
		if (!q) fail_msg("open: %s", err.message);
		assert_int_equal(gsioi_place_write_at(q, 1000, data + 1000, n - 2000, &err), 0);
		assert_int_equal(gsioi_place_size(q), n - 1000);
		assert_int_equal(gsioi_place_write(q, data, 1000, &err), 0);
		assert_int_equal(gsioi_place_size(q), n - 1000);
		assert_int_equal(gsioi_place_write_at(q, n - 1000, data + n - 1000, 1000, &err), 0);
		assert_int_equal(gsioi_place_size(q), n);
		assert_int_not_equal(gsioi_place_write_at(NULL, 0, data, 1, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
		assert_int_equal(gsioi_place_commit(q, false, &err), 0);
		assert_file_holds(path, data, n);
	}
	// Discarded: no file, no temporary.
	unlink(path);
	gsioi_placing *p = gsioi_place_open(path, &err);
	assert_non_null(p);
	assert_int_equal(gsioi_place_write(p, data, n, &err), 0);
	gsioi_place_discard(p);
	assert_int_equal(count_files(dir, NULL), 0);
	// no_replace: an existing file stays.
	t_write_file(path, (const uint8_t *)"old", 3);
	p = gsioi_place_open(path, &err);
	assert_non_null(p);
	assert_int_equal(gsioi_place_write(p, data, n, &err), 0);
	assert_int_not_equal(gsioi_place_commit(p, true, &err), 0);
	assert_non_null(strstr(err.message, "exists"));
	size_t got;
	uint8_t *back = t_read_file(path, &got);
	assert_int_equal(got, 3);
	free(back);
	assert_int_equal(count_files(dir, NULL), 1);
	t_empty_dir(dir);

	// A reservation: the blocks are there before the bytes (where the file
	// system has fallocate), the file's size stays what was written, and
	// writing fewer bytes than reserved is fine.
	const uint64_t want = (uint64_t)3 << 20;
	p = gsioi_place_open(path, &err);
	assert_non_null(p);
	assert_int_equal(gsioi_place_reserve(p, want, &err), 0);
	char tmp[4400];
	assert_int_equal(t_scan_dir(dir, ".tmp", tmp, sizeof(tmp)), 1);
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_size, 0);
	int probe = open(tmp, O_WRONLY);
	assert_true(probe >= 0);
	bool has_fallocate = fallocate(probe, FALLOC_FL_KEEP_SIZE, 0, 4096) == 0 || errno != EOPNOTSUPP;
	close(probe);
	if (has_fallocate)
		assert_true((uint64_t)st.st_blocks * 512 >= want);
	else
		print_message("this file system has no fallocate: the reservation is only checked not to harm\n");
	assert_int_equal(gsioi_place_write(p, data, 10, &err), 0);
	assert_int_equal(gsioi_place_commit(p, false, &err), 0);
	back = t_read_file(path, &got);
	assert_int_equal(got, 10);
	assert_memory_equal(back, data, 10);
	free(back);
	// Under 1 MiB nothing is asked of the file system; no file, an error.
	p = gsioi_place_open(near, &err);
	assert_non_null(p);
	assert_int_equal(gsioi_place_reserve(p, 4096, &err), 0);
	gsioi_place_discard(p);
	assert_int_not_equal(gsioi_place_reserve(NULL, want, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	t_empty_dir(dir);
	free(data);
}

// -- Files placed together

/** The regular files of dir with their bytes (a snapshot to compare with
 *  after a failed write). */
typedef struct dir_snap {
	size_t n;
	char **paths;
	uint8_t *data[16];
	size_t size[16];
} dir_snap;

static void snap_take(const char *dir, dir_snap *d)
{
	d->n = t_list_files(dir, "", &d->paths);
	assert_true(d->n <= 16);
	for (size_t i = 0; i < d->n; i++) {
		struct stat st;
		d->data[i] = NULL;
		d->size[i] = 0;
		if (stat(d->paths[i], &st) == 0 && S_ISREG(st.st_mode)) d->data[i] = t_read_file(d->paths[i], &d->size[i]);
	}
}

/** Fails unless dir holds exactly the snapshot's files with their bytes. */
static void snap_same(const char *dir, dir_snap *d, const char *what)
{
	dir_snap now;
	snap_take(dir, &now);
	if (now.n != d->n) fail_msg("%s: %zu files in %s, %zu before", what, now.n, dir, d->n);
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(now.paths[i], d->paths[i])) fail_msg("%s: %s where %s was", what, now.paths[i], d->paths[i]);
		if (!d->data[i] != !now.data[i] || now.size[i] != d->size[i] ||
		    (d->data[i] && memcmp(now.data[i], d->data[i], d->size[i])))
			fail_msg("%s: %s changed (%zu bytes, %zu before)", what, d->paths[i], now.size[i], d->size[i]);
		free(now.data[i]);
	}
	t_free_list(now.paths, now.n);
}

static void snap_free(dir_snap *d)
{
	for (size_t i = 0; i < d->n; i++) free(d->data[i]);
	t_free_list(d->paths, d->n);
}

static gsioi_placing *open_with(const char *dir, const char *name, const char *text)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	gsio_error err;
	gsioi_placing *p = gsioi_place_open(path, &err);
	if (!p) fail_msg("open %s: %s", path, err.message);
	assert_int_equal(gsioi_place_write(p, text, strlen(text), &err), 0);
	return p;
}

/** The work folder `name`, emptied (a failed run's folders too), with the
 *  path of its file `file` in path. */
static void fresh_dir(char *dir, size_t size, const char *name, const char *file, char *path, size_t path_size)
{
	work_dir(dir, size, name);
	snprintf(path, path_size, "%s/%s", dir, file);
	t_empty_dir(dir);
}

static void put_text(const char *dir, const char *name, const char *text)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	t_write_file(path, (const uint8_t *)text, strlen(text));
}

/* gsioi_place_commit_all: every file written before the first is placed,
 * and a file that cannot be placed takes back those placed before it: an
 * old file comes back, a new one goes. */
static void test_place_together(void **state)
{
	(void)state;
	char dir[4096], sub[4400];
	fresh_dir(dir, sizeof(dir), "together", "c.gltf", sub, sizeof(sub));
	gsio_error err;
	// Replacing: a.bin held a file, b.png nothing, c.gltf is a folder.
	put_text(dir, "a.bin", "old a");
	assert_int_equal(mkdir(sub, 0777), 0);
	dir_snap before;
	snap_take(dir, &before);
	gsioi_placing *ps[3] = {open_with(dir, "a.bin", "new a"), open_with(dir, "b.png", "new b"),
	                       open_with(dir, "c.gltf", "new c")};
	assert_int_equal(gsioi_place_close(ps[1], &err), 0); // closed or not, the same
	assert_int_not_equal(gsioi_place_close(ps[1], &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_int_not_equal(gsioi_place_write(ps[1], "x", 1, &err), 0);
	assert_int_not_equal(gsioi_place_commit_all(ps, 3, false, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_string_equal(err.file, sub);
	assert_non_null(strstr(err.message, strerror(EISDIR)));
	snap_same(dir, &before, "replacing, c.gltf a folder");
	assert_int_equal(count_files(dir, ".tmp"), 0);
	snap_free(&before);
	assert_int_equal(rmdir(sub), 0);

	// Without replacing: b.png exists, so a.bin (new) is taken back.
	t_empty_dir(dir);
	put_text(dir, "b.png", "old b");
	snap_take(dir, &before);
	ps[0] = open_with(dir, "a.bin", "new a");
	ps[1] = open_with(dir, "b.png", "new b");
	ps[2] = open_with(dir, "c.gltf", "new c");
	assert_int_not_equal(gsioi_place_commit_all(ps, 3, true, &err), 0);
	assert_non_null(strstr(err.message, "exists"));
	snap_same(dir, &before, "not replacing, b.png there");
	assert_int_equal(count_files(dir, ".tmp"), 0);
	snap_free(&before);

	// All placed: the old b.png replaced, no temporary (the old file's
	// swapped-out name included).
	ps[0] = open_with(dir, "a.bin", "new a");
	ps[1] = open_with(dir, "b.png", "new b");
	ps[2] = open_with(dir, "c.gltf", "new c");
	assert_int_equal(gsioi_place_commit_all(ps, 3, false, &err), 0);
	static const char *const names[] = {"a.bin", "b.png", "c.gltf"};
	for (int i = 0; i < 3; i++) {
		char path[4400], want[16];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(want, sizeof(want), "new %c", names[i][0]);
		size_t got;
		uint8_t *back = t_read_file(path, &got);
		assert_int_equal(got, strlen(want));
		assert_memory_equal(back, want, got);
		free(back);
	}
	assert_int_equal(count_files(dir, NULL), 3);
	// gsioi_place_bytes: a placing written and closed, or NULL and nothing.
	char pb0[4400];
	snprintf(pb0, sizeof(pb0), "%s/no-such-folder/x.bin", dir);
	assert_null(gsioi_place_bytes(pb0, "x", 1, &err));
	assert_string_equal(err.file, pb0);
	snprintf(pb0, sizeof(pb0), "%s/a.bin", dir);
	gsioi_placing *one = gsioi_place_bytes(pb0, "bytes a", 7, &err);
	assert_non_null(one);
	assert_int_not_equal(gsioi_place_write(one, "x", 1, &err), 0); // closed already
	assert_int_equal(gsioi_place_commit(one, false, &err), 0);
	size_t got0;
	uint8_t *back0 = t_read_file(pb0, &got0);
	assert_int_equal(got0, 7);
	assert_memory_equal(back0, "bytes a", 7);
	free(back0);
	assert_int_equal(count_files(dir, NULL), 3);
	// Nothing to place, a NULL placing.
	assert_int_equal(gsioi_place_commit_all(NULL, 0, false, &err), 0);
	gsioi_placing *none[1] = {NULL};
	assert_int_not_equal(gsioi_place_commit_all(none, 1, false, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);

	// gsioi_place_files (the MD5 writer's): the same.
	put_text(dir, "c.gltf", "old c");
	unlink(sub);
	snprintf(sub, sizeof(sub), "%s/d.gltf", dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	snap_take(dir, &before);
	char pa[4400], pb[4400];
	snprintf(pa, sizeof(pa), "%s/a.bin", dir);
	snprintf(pb, sizeof(pb), "%s/b.png", dir);
	gsioi_file_data files[3] = {{pa, (const uint8_t *)"x", 1}, {pb, (const uint8_t *)"y", 1}, {sub, (const uint8_t *)"z", 1}};
	assert_int_not_equal(gsioi_place_files(files, 3, false, &err), 0);
	assert_string_equal(err.file, sub);
	snap_same(dir, &before, "gsioi_place_files, d.gltf a folder");
	snap_free(&before);
	assert_int_equal(rmdir(sub), 0);
	t_empty_dir(dir);
}

/* SIGTERM while a .gltf's many files wait to be placed together (each
 * written to its temporary and closed): the cleanup handler removes every
 * temporary, 300 with short paths and 100 with paths over 256 bytes: more
 * than a registry of fixed size would hold, since a .gltf's files all wait
 * at once. */
static void test_place_signal(void **state)
{
	(void)state;
	char dir[4096], lng[4400];
	work_dir(dir, sizeof(dir), "signal");
	snprintf(lng, sizeof(lng), "%s/%0240d", dir, 0); // a folder whose files' paths are long
	struct stat st0;
	if (stat(lng, &st0) == 0) t_empty_dir(lng); // a failed run's
	t_empty_dir(dir);
	assert_int_equal(mkdir(lng, 0777), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		gsioi_install_cleanup_handlers();
		for (int i = 0; i < 400; i++) {
			char path[4600];
			snprintf(path, sizeof(path), "%s/image%d.png", i < 300 ? dir : lng, i);
			gsioi_placing *p = gsioi_place_open(path, NULL);
			if (!p || gsioi_place_write(p, "x", 1, NULL) || gsioi_place_close(p, NULL)) _exit(3);
			// p stays: the process ends by the signal
		}
		raise(SIGTERM);
		_exit(4);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGTERM) fail_msg("the child did not end by SIGTERM: status %d", st);
	size_t left = count_files(dir, ".tmp") + count_files(lng, ".tmp");
	if (left) fail_msg("%zu of 400 temporaries left after SIGTERM", left);
	t_empty_dir(lng);
	assert_int_equal(rmdir(lng), 0);
	t_empty_dir(dir);
}

/* A .gltf written over an older one: a write that fails (a file size limit
 * standing in for a full disk) or a file that cannot be placed (the .gltf's
 * path a folder) leaves the old .gltf, .bin and .png as they were, never a
 * new .bin beside an old .gltf. */
static void test_gltf_replace_fails(void **state)
{
	(void)state;
	char dir[4096], path[4400];
	fresh_dir(dir, sizeof(dir), "replace", "x.gltf", path, sizeof(path));
	gsio_error err;
	// The old set: a small .bin and a 512 x 512 noise skin (about 770 KB).
	gsio_scene *old = t_large_scene(3000, 512), *s = t_large_scene(1500, 512);
	assert_int_equal(gsio_gltf_write_file(old, path, NULL, NULL, &err), 0);
	dir_snap before;
	snap_take(dir, &before);
	assert_int_equal(before.n, 3);
	struct rlimit lim, prev;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &prev), 0);
	void (*sig)(int) = signal(SIGXFSZ, SIG_IGN);
	for (unsigned threads = 1; threads <= 2; threads++) {
		// 300 KB: the new .bin (48 KB) and .gltf can be written, the skin not.
		lim = prev;
		lim.rlim_cur = 300000;
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
		gsio_gltf_opts o = {0};
		o.threads = threads;
		int rc = gsio_gltf_write_file(s, path, &o, NULL, &err);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &prev), 0);
		assert_int_not_equal(rc, 0);
		assert_non_null(strstr(err.message, strerror(EFBIG)));
		snap_same(dir, &before, "a .gltf set cut at 300 KB");
		assert_int_equal(count_files(dir, ".tmp"), 0);
	}
	signal(SIGXFSZ, sig);
	// The .gltf's path a folder: the .bin and .png placed first come back.
	unlink(path);
	assert_int_equal(mkdir(path, 0777), 0);
	snap_free(&before);
	snap_take(dir, &before);
	assert_int_not_equal(gsio_gltf_write_file(s, path, NULL, NULL, &err), 0);
	assert_string_equal(err.file, path);
	snap_same(dir, &before, "x.gltf a folder");
	assert_int_equal(count_files(dir, ".tmp"), 0);
	assert_int_equal(rmdir(path), 0);
	// And written when it can be: the new set.
	assert_int_equal(gsio_gltf_write_file(s, path, NULL, NULL, &err), 0);
	check_same(s, dir, "x", "gltf", "the new set");
	snap_free(&before);
	gsio_scene_free(old);
	gsio_scene_free(s);
	t_empty_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_placing),
	    cmocka_unit_test(test_large_identical),
	    cmocka_unit_test(test_write_fails),
	    cmocka_unit_test(test_image_fails),
	    cmocka_unit_test(test_no_replace_spilled),
	    cmocka_unit_test(test_place_together),
	    cmocka_unit_test(test_place_signal),
	    cmocka_unit_test(test_gltf_replace_fails),
	    cmocka_unit_test(test_morph_spill_identical),
	    cmocka_unit_test_teardown(test_json_outgrows_room, bounds_back),
	    cmocka_unit_test(test_corpus_identical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
