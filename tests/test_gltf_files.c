/* The glTF writer's outputs as files: GLB and .gltf + .bin + images written to
 * disk, images referenced by uri, image files embedded as they are and
 * stored once when shared, huge pages under a large GLB, the same bytes on
 * every run, and the GLB's JSON against the .gltf's. */
#include "test_util.h"
#include "gltf_test_util.h"

#include "gsio_gltf.h"
#include "gsioi_png.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/** An image that is only a reference: a uri beside a .gltf; embedded in a
 *  GLB when the file is a PNG; left out with a warning when it is missing. */
static void test_uri_image(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	char png_path[4200];
	snprintf(png_path, sizeof(png_path), "%s/test_gltf_ref.png", GSIO_BINARY_DIR);
	uint8_t *png;
	size_t png_size;
	assert_int_equal(gsioi_png_encode(s->images[0].rgba, 2, 1, &png, &png_size, &err), 0);
	t_write_file(png_path, png, png_size);
	free(png);
	int32_t ref = gsio_scene_add_image(s, "wall.png", 0, 0, "textures/wall.png", &err);
	assert_true(ref >= 0);
	s->materials[0].base_color_texture.image = ref;
	// .gltf: the uri as given. Image 0 is no material's now: every image
	// is asked for, so that the indices stay put.
	gsio_gltf_output out;
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_SEPARATE | GSIO_GLTF_ALL_IMAGES;
	int rc = gsio_gltf_write(s, &o, &out, &err);
	if (rc) fail_msg("gsio_gltf_write: %s", err.message);
	cJSON *doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_string_equal(str(item(doc, "images", 1), "uri"), "textures/wall.png");
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	// GLB, file missing: left out with a warning, the material has no texture.
	glb g;
	glb_write(&g, s, GSIO_GLTF_ALL_IMAGES, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 1);
	assert_true(g.out.warnings_count >= 1);
	const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", 0), "pbrMetallicRoughness");
	assert_null(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"));
	glb_free(&g);
	// GLB, file present (source_path): embedded as image/png.
	s->images[ref].source_path = png_path;
	glb_write(&g, s, GSIO_GLTF_ALL_IMAGES, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	assert_string_equal(str(item(g.doc, "images", 1), "mimeType"), "image/png");
	uint32_t w, h;
	uint8_t *px = decode_image(&g, 1, &w, &h);
	assert_int_equal(w, 2);
	assert_memory_equal(px, s->images[0].rgba, 8);
	free(px);
	glb_free(&g);
	remove(png_path);
	gsio_scene_free(s);
}

static size_t count_tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp")) n++;
	closedir(d);
	return n;
}

/* Images decoded from a PNG or JPEG file keep the file (gsio_image.file_data)
 * and the writer embeds it as it is: on the corpus's Bob (five PNG textures
 * beside the .md5mesh) every embedded image equals its file byte for byte,
 * less the chunks glTF does not take (test_png_chunks);
 * a built scene's file bytes are embedded unless they are no PNG/JPEG (then
 * the pixels are encoded); the validator refuses file data without pixels
 * or a size without data. */
static void test_image_files_passed_through(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	uint8_t *png;
	size_t png_size;
	const uint8_t other[8] = {0, 0, 255, 255, 255, 0, 0, 255}; // not the scene's pixels
	assert_int_equal(gsioi_png_encode(other, 2, 1, &png, &png_size, &err), 0);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	glb g = {0};
	glb_write(&g, s, 0, 1);
	size_t n;
	const uint8_t *v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_int_equal(n, png_size);
	assert_memory_equal(v, png, png_size);
	assert_string_equal(str(item(g.doc, "images", 0), "mimeType"), "image/png");
	glb_free(&g);
	// Bytes that are no PNG or JPEG: the pixels are encoded instead.
	const uint8_t bmp[4] = {'B', 'M', 0, 0};
	s->images[0].file_data = bmp;
	s->images[0].file_size = sizeof(bmp);
	glb_write(&g, s, 0, 1);
	v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_true(n > 8 && memcmp(v, bmp, 2));
	glb_free(&g);
	// The validator: a size without data; data without pixels is an
	// undecoded file (GSIO_OPT_NO_PIXELS), valid only with its size, and
	// written as it is.
	s->images[0].file_data = NULL;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	uint8_t *rgba = s->images[0].rgba;
	s->images[0].rgba = NULL;
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	glb_write(&g, s, 0, 1);
	v = view_bytes(&g, num(item(g.doc, "images", 0), "bufferView", -1), &n);
	assert_int_equal(n, png_size);
	assert_memory_equal(v, png, png_size);
	glb_free(&g);
	s->images[0].width = 0;
	assert_int_not_equal(gsio_scene_validate(s, &err), 0);
	s->images[0].width = 2;
	// Undecoded bytes that are no PNG or JPEG: left out with a warning.
	s->images[0].file_data = bmp;
	s->images[0].file_size = sizeof(bmp);
	gsio_gltf_output out = {0};
	assert_int_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	bool warned = false;
	for (size_t i = 0; i < out.warnings_count; i++)
		warned = warned || strstr(out.warnings[i], "not a PNG, JPEG, DDS, plain TGA or BMP and was not decoded");
	assert_true(warned);
	gsio_gltf_output_free(&out);
	s->images[0].file_data = png;
	s->images[0].file_size = png_size;
	s->images[0].rgba = rgba;
	s->images[0].file_data = NULL;
	s->images[0].file_size = 0;
	free(png);
	gsio_scene_free(s);

	T_REQUIRE_CORPUS();
	const char *bob = t_corpus_path("md5/bob/Bob.md5mesh");
	gsio_scene *b = t_load_ok(bob, NULL);
	glb_write(&g, b, 0, 1);
	size_t passed = 0;
	for (size_t i = 0; i < b->images_count; i++) {
		const gsio_image *im = &b->images[i];
		assert_non_null(im->source_path);
		size_t fn;
		uint8_t *file = t_read_file(im->source_path, &fn);
		assert_non_null(im->file_data);
		assert_int_equal(im->file_size, fn);
		assert_memory_equal(im->file_data, file, fn);
		// As it is, less the chunks glTF does not take (Bob's have sRGB).
		uint8_t *clean;
		size_t cn;
		int rc = gsioi_png_drop_chunks(file, fn, &clean, &cn);
		assert_true(rc >= 0);
		const uint8_t *want = rc ? clean : file;
		size_t wn = rc ? cn : fn;
		const uint8_t *e = view_bytes(&g, num(item(g.doc, "images", (int)i), "bufferView", -1), &n);
		assert_int_equal(n, wn);
		assert_memory_equal(e, want, wn);
		free(clean);
		free(file);
		passed++;
	}
	print_message("Bob: %zu texture files embedded byte for byte\n", passed);
	assert_true(passed >= 4);
	glb_free(&g);
	gsio_scene_free(b);
}

/* Images no material names (a terrain's third skin) are not encoded: left
 * out, each named in a warning; GSIO_GLTF_ALL_IMAGES writes them. A
 * material's colour and detail maps are written either way. */
static void test_unused_images_left_out(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	for (int k = 1; k <= 2; k++) {
		char name[16];
		snprintf(name, sizeof(name), "skin%d", k);
		int32_t im = gsio_scene_add_image(s, name, 2, 1, NULL, &err);
		assert_true(im >= 0);
		memset(s->images[im].rgba, 40 * k, 8);
	}
	s->materials[0].detail_texture.image = 1; // image 2: no material's
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	assert_string_equal(str(item(g.doc, "images", 1), "name"), "model_skin1");
	bool named = false;
	for (size_t w = 0; w < g.out.warnings_count; w++)
		named = named || (strstr(g.out.warnings[w], "image 2 (skin2)") && strstr(g.out.warnings[w], "no material"));
	assert_true(named);
	glb_free(&g);
	glb_write(&g, s, GSIO_GLTF_ALL_IMAGES, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 3);
	assert_string_equal(str(item(g.doc, "images", 2), "name"), "model_skin2");
	glb_free(&g);
	gsio_scene_free(s);
}

/* Images that point to the very same file bytes (a level's placeholders)
 * are stored once: in a GLB each keeps its own image, name and extras, and
 * all name one buffer view; beside a .gltf all name one PNG file. Equal
 * bytes at another address are stored again (only the same file is known
 * to be one). On the corpus's block.wmp (four placeholders) the four
 * images name one view of 98 bytes. */
static void test_shared_image_files(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	const uint8_t px[8] = {10, 20, 30, 255, 40, 50, 60, 255};
	uint8_t *png, *copy;
	size_t png_size;
	assert_int_equal(gsioi_png_encode(px, 2, 1, &png, &png_size, &err), 0);
	copy = malloc(png_size);
	assert_non_null(copy);
	memcpy(copy, png, png_size);
	for (int k = 1; k <= 3; k++) {
		char name[16];
		snprintf(name, sizeof(name), "other%d", k);
		int32_t im = gsio_scene_add_image(s, name, 2, 1, NULL, &err);
		assert_true(im >= 0);
		memcpy(s->images[im].rgba, px, 8);
	}
	for (size_t i = 0; i < 4; i++) {
		s->images[i].file_data = i == 2 ? copy : png;
		s->images[i].file_size = png_size;
	}
	glb g = {0};
	glb_write(&g, s, GSIO_GLTF_ALL_IMAGES, 1); // three are no material's
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 4);
	int v0 = num(item(g.doc, "images", 0), "bufferView", -1);
	assert_true(v0 >= 0);
	assert_int_equal(num(item(g.doc, "images", 1), "bufferView", -1), v0);
	assert_int_equal(num(item(g.doc, "images", 3), "bufferView", -1), v0);
	int v2 = num(item(g.doc, "images", 2), "bufferView", -1);
	assert_true(v2 >= 0 && v2 != v0);
	size_t n;
	assert_memory_equal(view_bytes(&g, v0, &n), png, png_size);
	assert_int_equal(n, png_size);
	assert_memory_equal(view_bytes(&g, v2, &n), png, png_size);
	assert_non_null(strstr(str(item(g.doc, "images", 1), "name"), "_other1"));
	glb_free(&g);

	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_SEPARATE | GSIO_GLTF_ALL_IMAGES;
	gsio_gltf_output out = {0};
	assert_int_equal(gsio_gltf_write(s, &o, &out, &err), 0);
	cJSON *doc = cJSON_ParseWithLength((const char *)out.files[0].data, out.files[0].size);
	assert_non_null(doc);
	const char *u0 = str(item(doc, "images", 0), "uri");
	assert_string_equal(str(item(doc, "images", 1), "uri"), u0);
	assert_string_equal(str(item(doc, "images", 3), "uri"), u0);
	assert_string_not_equal(str(item(doc, "images", 2), "uri"), u0);
	size_t pngs = 0;
	for (size_t f = 1; f < out.files_count; f++) {
		if (!strstr(out.files[f].name, ".png")) continue;
		pngs++;
		assert_int_equal(out.files[f].size, png_size);
		assert_memory_equal(out.files[f].data, png, png_size);
	}
	assert_int_equal(pngs, 2);
	cJSON_Delete(doc);
	gsio_gltf_output_free(&out);
	for (size_t i = 0; i < 4; i++) s->images[i].file_data = NULL, s->images[i].file_size = 0;
	free(png);
	free(copy);
	gsio_scene_free(s);

	T_REQUIRE_CORPUS();
	gsio_opts lo = {0};
	lo.flags = GSIO_OPT_NO_PIXELS;
	gsio_scene *b = t_load_corpus("wmp/block.wmp", &lo);
	glb_write(&g, b, 0, 1);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 4);
	int v = num(item(g.doc, "images", 0), "bufferView", -1);
	for (int i = 1; i < 4; i++) assert_int_equal(num(item(g.doc, "images", i), "bufferView", -1), v);
	view_bytes(&g, v, &n);
	assert_int_equal(n, 98);
	print_message("block.wmp: 4 placeholders in one view of %zu bytes\n", n);
	glb_free(&g);
	gsio_scene_free(b);
}

/* GLBs of 1 024 vertices and 60, 87, 116 and 128 morph frames (a BIN of
 * about 1.5, 2.1, 2.9 and 3.1 MB) written to a file in a child process,
 * where THP is in "madvise" mode (Debian 12's default): the BIN's first 2
 * MiB block is a huge page when the BIN fills it (a handful of page
 * faults, not 512) and not when it does not (the writer grows by about the
 * BIN, not a 2 MiB page); a later block is one when the BIN fills a
 * quarter of it and leaves at most a third of the BIN's size unused (3.1
 * MB: few faults), and not below a quarter (2.1 MB: its last 100 KiB in 4
 * KiB pages, no second huge page) nor past a third (2.9 MB: 0.75 MiB in 4
 * KiB pages, where a huge page would leave 1.25 MiB unused). Fails with
 * every block advised, with none, with the first advised before it is
 * full, and without the rule of a third. */
static size_t glb_written_in_child(gsio_scene *s, const char *path, long got[3])
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		long r[3] = {-1, -1, -1};
		long size_pages = 0, pages = 0;
		FILE *sf = fopen("/proc/self/statm", "r");
		if (sf && fscanf(sf, "%ld %ld", &size_pages, &pages) == 2) {
			struct rusage r0, r1;
			getrusage(RUSAGE_SELF, &r0);
			gsio_gltf_opts o = {0};
			gsio_error e;
			if (gsio_gltf_write_file(s, path, &o, NULL, &e) == 0) {
				getrusage(RUSAGE_SELF, &r1);
				r[0] = r1.ru_maxrss - pages * (sysconf(_SC_PAGESIZE) / 1024); // KB grown
				r[1] = r1.ru_minflt - r0.ru_minflt;
			}
		}
		if (sf) fclose(sf);
		struct stat st;
		r[2] = stat(path, &st) == 0 ? (long)st.st_size : -1;
		if (write(fds[1], r, sizeof(r)) != (ssize_t)sizeof(r)) _exit(2);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], got, 3 * sizeof(long)), (ssize_t)(3 * sizeof(long)));
	close(fds[0]);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return (size_t)got[2];
}

static void test_glb_huge_page_tail(void **state)
{
	(void)state;
	char mode[128];
	// In "madvise" mode only the advice makes huge pages ("always" makes
	// them whatever the writer decides; "never" makes none).
	bool thp = t_thp_on(mode, sizeof(mode)) && strstr(mode, "[madvise]");
	static const size_t frame_counts[4] = {60, 87, 116, 128};
	for (int t = 0; t < 4; t++) {
		gsio_error err;
		gsio_scene *s = new_scene();
		enum { NV = 1024 };
		const size_t nf = frame_counts[t];
		int32_t mi = gsio_scene_add_mesh(s, "grid", NV, 3, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, &err);
		assert_true(mi >= 0);
		gsio_mesh *m = &s->meshes[mi];
		for (size_t v = 0; v < NV; v++) {
			float p[3] = {(float)(v % 32), (float)(v / 32), 0}, n[3] = {0, 0, 1}, uv[2] = {0, 0};
			memcpy(m->positions + 3 * v, p, sizeof(p));
			memcpy(m->normals + 3 * v, n, sizeof(n));
			memcpy(m->uvs + 2 * v, uv, sizeof(uv));
		}
		for (uint32_t i = 0; i < 3; i++) m->indices[i] = i;
		m->frames = gsio_scene_alloc(s, nf, sizeof(gsio_morph_frame), &err);
		assert_non_null(m->frames);
		m->frames_count = nf;
		for (size_t f = 0; f < nf; f++) {
			gsio_morph_frame *fr = &m->frames[f];
			fr->positions = gsio_scene_alloc(s, 3 * NV, sizeof(float), &err);
			fr->normals = m->normals;
			assert_non_null(fr->positions);
			memcpy(fr->positions, m->positions, 3 * NV * sizeof(float));
			for (size_t v = 0; v < NV; v++) fr->positions[3 * v + 2] = (float)f * 0.01f + (float)v * 1e-4f;
		}
		int32_t n = gsio_scene_add_node(s, "grid", -1, &err);
		s->nodes[n].mesh = mi;
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		char path[4200];
		snprintf(path, sizeof(path), "%s/test_gltf_files", GSIO_BINARY_DIR);
		mkdir(path, 0777);
		snprintf(path, sizeof(path), "%s/test_gltf_files/tail.glb", GSIO_BINARY_DIR);
		remove(path);
		long got[3] = {-1, -1, -1};
		size_t bytes = glb_written_in_child(s, path, got);
		print_message("GLB of %zu bytes: the writer grew by %ld KB with %ld page faults (THP %s)\n", bytes,
		              got[0], got[1], thp ? "madvise: checked" : "not madvise: not checked");
		assert_true(got[0] >= 0 && got[1] >= 0);
		const long kb = (long)(bytes / 1024);
		(void)kb;
		switch (t) {
		case 0: assert_true(bytes > 1400000 && bytes < 2000000); break;
		case 1: assert_true(bytes > (2 << 20) + 65536 && bytes < (2 << 20) + 300000); break;
		case 2: assert_true(bytes > (2 << 20) + 600000 && bytes < (3 << 20) - 100000); break;
		default: assert_true(bytes > (3 << 20) - 100000 && bytes < (4 << 20) - 600000); break;
		}
#ifndef T_SANITIZED
		// Page faults tell 4 KiB pages (one each) from a huge page (one for
		// 2 MiB); the writer's own allocations add 100-450 KB and some 60
		// faults, depending on the heap the test process has made before.
		if (thp && t == 0) assert_true(got[1] > 300); // 1.5 MB in 4 KiB pages: no huge page for a block not filled
		if (thp && t == 1) assert_true(got[0] < kb + 1400 && got[1] < 300); // one huge page, not two (+2 MB)
		if (thp && t == 2) assert_true(got[1] > 180); // the second block in 4 KiB pages: 1.25 MiB unused is past a third
		if (thp && t == 3) assert_true(got[1] < 180); // two: the second filled past a quarter, 1 MiB unused
#endif
		remove(path);
		gsio_scene_free(s);
	}
}

static void test_write_file(void **state)
{
	(void)state;
	char dir[4096], path[4200], bin[4200], png[4200];
	snprintf(dir, sizeof(dir), "%s/test_gltf_files", GSIO_BINARY_DIR);
	mkdir(dir, 0777);
	snprintf(path, sizeof(path), "%s/m.gltf", dir);
	snprintf(bin, sizeof(bin), "%s/m.bin", dir);
	snprintf(png, sizeof(png), "%s/m_skin0.png", dir);
	remove(path);
	remove(bin);
	remove(png);
	gsio_scene *s = morph_scene(3);
	gsio_error err;
	gsio_gltf_opts o = {0};
	o.flags = GSIO_GLTF_NO_REPLACE;
	gsio_gltf_output w;
	int rc = gsio_gltf_write_file(s, path, &o, &w, &err); // .gltf: separate
	if (rc) print_error("write_file %s: %s (%s)\n", path, err.message, err.file);
	assert_int_equal(rc, 0);
	gsio_gltf_output_free(&w);
	struct stat st;
	assert_int_equal(stat(bin, &st), 0);
	assert_int_equal(stat(png, &st), 0);
	// A second write without replacing fails, names the file, says nothing
	// about command-line options, and leaves the bytes as they were.
	t_write_file(bin, (const uint8_t *)"old", 3);
	assert_int_not_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "exists"));
	assert_null(strstr(err.message, "--force"));
	assert_non_null(strstr(err.file, "test_gltf_files/m."));
	size_t size;
	uint8_t *data = t_read_file(bin, &size);
	assert_int_equal(size, 3);
	assert_memory_equal(data, "old", 3);
	free(data);
	o.flags = 0;
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(bin, &size);
	assert_true(size > 3);
	free(data);
	assert_int_equal(count_tmp_files(dir), 0);
	snprintf(path, sizeof(path), "%s/m.glb", dir);
	assert_int_equal(gsio_gltf_write_file(s, path, &o, NULL, &err), 0);
	data = t_read_file(path, &size);
	assert_memory_equal(data, "glTF", 4);
	free(data);
	// A path whose parent is a file: an I/O error naming the final path.
	char bad[4300];
	snprintf(bad, sizeof(bad), "%s/m.bin/x.glb", dir);
	assert_int_not_equal(gsio_gltf_write_file(s, bad, &o, NULL, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_string_equal(err.file, bad);
	assert_null(strstr(err.message, ".tmp"));
	assert_int_equal(count_tmp_files(dir), 0);
	gsio_scene_free(s);
}

static void test_deterministic(void **state)
{
	(void)state;
	gsio_scene *s = morph_scene(3);
	glb a, b;
	glb_write(&a, s, 0, 0);
	glb_write(&b, s, 0, 0);
	assert_int_equal(a.out.files[0].size, b.out.files[0].size);
	assert_memory_equal(a.out.files[0].data, b.out.files[0].data, a.out.files[0].size);
	glb_free(&a);
	glb_free(&b);
	gsio_scene_free(s);
}

/* A GLB's big arrays are kept as text and its JSON printed into a buffer of
 * about its size (the texts and 64 KiB); a .gltf's JSON is a cJSON tree
 * printed formatted. Both must say the same: a scene of meshes, nodes (one a
 * child) and a material, with scene extras short (the buffer is enough) and
 * of 100 000 characters (past it: cJSON's own print). */
static void test_glb_json_as_gltf(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		gsio_scene *s = new_scene();
		gsio_error err;
		int32_t mat = gsio_scene_add_material(s, "paint", &err);
		assert_true(mat >= 0);
		int32_t parent = -1;
		for (int i = 0; i < 5; i++) {
			char name[16];
			snprintf(name, sizeof(name), "tri%d", i);
			int32_t mi = add_triangle(s, name, i % 2 ? mat : -1);
			int32_t n = gsio_scene_add_node(s, name, i == 3 ? parent : -1, &err);
			assert_true(n >= 0);
			s->nodes[n].mesh = mi;
			s->nodes[n].translation[0] = (float)i;
			if (i == 2) parent = n;
		}
		size_t len = big ? 100000 : 10;
		char *text = malloc(len + 1);
		assert_non_null(text);
		for (size_t i = 0; i < len; i++) text[i] = (char)('a' + i % 26);
		text[len] = 0;
		assert_int_equal(gsio_extras_set_string(s, &s->extras, "note", text, &err), 0);
		glb g;
		glb_write(&g, s, 0, 1);
		gsio_gltf_opts o = {0};
		o.flags = GSIO_GLTF_SEPARATE;
		gsio_gltf_output sep;
		assert_int_equal(gsio_gltf_write(s, &o, &sep, &err), 0);
		cJSON *doc = cJSON_ParseWithLength((const char *)sep.files[0].data, sep.files[0].size);
		assert_non_null(doc);
		// Where the two differ by design: the buffer's uri.
		cJSON_DeleteItemFromObject(doc, "buffers");
		cJSON_DeleteItemFromObject(g.doc, "buffers");
		assert_true(cJSON_Compare(g.doc, doc, true));
		assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 5);
		assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), 5);
		const cJSON *sc = cJSON_GetArrayItem(arr(g.doc, "scenes"), 0);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sc, "nodes")), 4);
		const cJSON *note = cJSON_GetObjectItem(cJSON_GetObjectItem(sc, "extras"), "note");
		assert_true(cJSON_IsString(note) && !strcmp(note->valuestring, text));
		cJSON_Delete(doc);
		gsio_gltf_output_free(&sep);
		glb_free(&g);
		free(text);
		gsio_scene_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uri_image),
	    cmocka_unit_test(test_image_files_passed_through),
	    cmocka_unit_test(test_shared_image_files),
	    cmocka_unit_test(test_unused_images_left_out),
	    cmocka_unit_test(test_write_file),
	    cmocka_unit_test(test_glb_huge_page_tail),
	    cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_glb_json_as_gltf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
