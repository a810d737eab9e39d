/* GSIO_OPT_NO_PIXELS: PNG and JPEG texture files kept undecoded (file_data,
 * width and height from the header, rgba NULL) for callers that only write
 * the scene out, and skins stored in models kept as stored (raw pixels,
 * palette indices, embedded DDS files), each decoding to the normal load's
 * pixels. What must hold: the undecoded images carry the files' bytes
 * and the decoded sizes; a glTF written from such a load is byte for byte the
 * one written from a normal load (on every corpus file, on levels whose
 * sprites and model skins are PNGs, on Bob with a JPEG texture); damaged
 * headers give the same warning with and without the flag. */
#define _GNU_SOURCE // nftw, memmem
#include "test_util.h"

#include "gsioi_dds.h"
#include "gsio_gltf.h"
#include "gsioi_image_file.h"
#include "gsioi_png.h"

// stb_image_write (Debian libstb-dev) makes the JPEG of test_jpeg: no JPEG
// file is in the corpus, and gsio writes none. Third-party code, its
// warnings silenced here only.
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// -- Loading and writing

/* Loads path with flags (and, for the lottershock levels, their Assets
 * folder as a search path, as the WMP tests do); io may be NULL. */
static gsio_scene *load(const char *path, uint32_t flags, const gsio_io *io, gsio_error *err)
{
	static char assets[4200];
	const char *paths[1] = {assets};
	snprintf(assets, sizeof(assets), "%s/lottershock/Game/Assets", GSIO_CORPUS_DIR);
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = flags;
	o.io = io;
	o.search_paths = paths;
	o.search_paths_count = 1;
	return gsio_load_file(path, &o, err);
}

/* Writes s as glTF in memory (GLB, or .gltf + files when separate). */
static void write_gltf(const gsio_scene *s, bool separate, gsio_gltf_output *out)
{
	gsio_gltf_opts o;
	memset(&o, 0, sizeof(o));
	o.name = "model";
	o.generator = "test";
	if (separate) o.flags |= GSIO_GLTF_SEPARATE;
	gsio_error err;
	if (gsio_gltf_write(s, &o, out, &err)) fail_msg("glTF write: %s", err.message);
}

/* The two outputs are the same files with the same bytes, and the same
 * writer warnings. */
static void assert_same_output(const gsio_gltf_output *a, const gsio_gltf_output *b, const char *what)
{
	if (a->files_count != b->files_count) fail_msg("%s: %zu files against %zu", what, a->files_count,
	                                               b->files_count);
	for (size_t i = 0; i < a->files_count; i++) {
		assert_string_equal(a->files[i].name, b->files[i].name);
		if (a->files[i].size != b->files[i].size ||
		    memcmp(a->files[i].data, b->files[i].data, a->files[i].size))
			fail_msg("%s: %s differs (%zu and %zu bytes)", what, a->files[i].name, a->files[i].size,
			         b->files[i].size);
	}
	assert_int_equal(a->warnings_count, b->warnings_count);
	for (size_t i = 0; i < a->warnings_count; i++) assert_string_equal(a->warnings[i], b->warnings[i]);
}

/* The GLBs written from the two scenes are the same bytes, warnings too. */
static void assert_same_glb(const gsio_scene *normal, const gsio_scene *flagged, const char *what)
{
	gsio_gltf_output a = {0}, b = {0};
	write_gltf(normal, false, &a);
	write_gltf(flagged, false, &b);
	assert_same_output(&a, &b, what);
	gsio_gltf_output_free(&a);
	gsio_gltf_output_free(&b);
}

static void assert_same_warnings(const gsio_scene *a, const gsio_scene *b)
{
	assert_int_equal(a->warnings_count, b->warnings_count);
	for (size_t i = 0; i < a->warnings_count; i++) assert_string_equal(a->warnings[i], b->warnings[i]);
}

/* Skins left as the model stores them (raw pixels, palette indices, an
 * embedded DDS file), counted over a test. */
static size_t skins_kept;

/* f (flagged) holds n's decoded skin in a stored form: raw pixels, palette
 * indices or a DDS file; each must decode to n's rgba. */
static void compare_kept_skin(const gsio_image *n, const gsio_image *f, const char *what)
{
	const size_t texels = (size_t)n->width * n->height;
	uint8_t *px = malloc(texels * 4);
	assert_non_null(px);
	if (f->stored) {
		assert_int_equal(f->source_format, n->source_format);
		assert_int_equal(gsio_decode_pixels(f->source_format, f->stored, texels, NULL, px), 0);
	} else if (f->indices) {
		assert_non_null(n->indices);
		assert_memory_equal(f->indices, n->indices, texels);
		assert_int_equal(f->palette_count, n->palette_count);
		for (size_t k = 0; k < texels; k++) memcpy(px + 4 * k, f->palette + 4 * (size_t)f->indices[k], 4);
	} else {
		assert_true(f->file_size >= 4 && !memcmp(f->file_data, "DDS ", 4));
		gsio_arena *a = gsioi_arena_create(NULL, 0);
		assert_non_null(a);
		gsio_image im;
		memset(&im, 0, sizeof(im));
		gsio_error err;
		gsio_error_clear(&err);
		if (!gsioi_dds_decode(f->file_data, f->file_size, NULL, 0, a, &im, NULL, &err))
			fail_msg("%s: %s", what, err.message);
		memcpy(px, im.rgba, texels * 4);
		gsioi_arena_destroy(a);
	}
	if (memcmp(px, n->rgba, texels * 4)) fail_msg("%s: kept skin %s decodes to other pixels", what, n->name);
	free(px);
	skins_kept++;
}

/* normal and flagged are loads of one file without and with the flag: the
 * same images, where each one the normal load decoded from a PNG/JPEG file is
 * that file undecoded in the flagged one (same size, same bytes), each skin
 * stored in the model is kept as stored (compare_kept_skin), and every other
 * image is the same. Returns how many PNG/JPEG files were left undecoded. */
static size_t compare_images(const gsio_scene *normal, const gsio_scene *flagged, const char *what)
{
	assert_int_equal(normal->images_count, flagged->images_count);
	size_t undecoded = 0;
	for (size_t i = 0; i < normal->images_count; i++) {
		const gsio_image *n = &normal->images[i], *f = &flagged->images[i];
		assert_string_equal(n->name, f->name);
		if (n->width != f->width || n->height != f->height)
			fail_msg("%s: image %s is %ux%u decoded, %ux%u from its header", what, n->name, n->width,
			         n->height, f->width, f->height);
		if (n->rgba && !f->rgba && !n->file_data) {
			compare_kept_skin(n, f, what);
			continue;
		}
		assert_int_equal(n->file_size, f->file_size);
		if (n->file_size) assert_memory_equal(n->file_data, f->file_data, n->file_size);
		if (n->file_data) {
			assert_non_null(n->rgba);
			assert_null(f->rgba);
			assert_null(f->indices);
			undecoded++;
		} else if (n->rgba) {
			assert_non_null(f->rgba);
			assert_memory_equal(n->rgba, f->rgba, (size_t)n->width * n->height * 4);
		} else {
			assert_null(f->rgba);
		}
	}
	return undecoded;
}

// -- Bob

/* Bob's five PNG textures, loaded with the flag: no pixels, the files' bytes,
 * the decoded sizes; a valid scene; the GLB (and the .gltf with its files)
 * written from it is byte for byte the one written from a normal load. */
static void test_bob(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *bob = t_corpus_path("md5/bob/Bob.md5mesh");
	gsio_error err;
	gsio_scene *normal = load(bob, 0, NULL, &err);
	if (!normal) fail_msg("%s", err.message);
	gsio_scene *flagged = load(bob, GSIO_OPT_NO_PIXELS, NULL, &err);
	if (!flagged) fail_msg("%s", err.message);
	assert_int_equal(gsio_scene_validate(flagged, &err), 0);
	assert_int_equal(flagged->images_count, 5);
	for (size_t i = 0; i < flagged->images_count; i++) {
		const gsio_image *im = &flagged->images[i];
		assert_null(im->rgba);
		assert_null(im->indices);
		assert_null(im->uri);
		assert_non_null(im->source_path);
		size_t n;
		uint8_t *file = t_read_file(im->source_path, &n);
		assert_int_equal(im->file_size, n);
		assert_memory_equal(im->file_data, file, n);
		free(file);
		assert_true(im->width > 0 && im->height > 0);
	}
	assert_int_equal(compare_images(normal, flagged, "Bob"), 5);
	assert_same_warnings(normal, flagged);
	for (int separate = 0; separate < 2; separate++) {
		gsio_gltf_output a = {0}, b = {0};
		write_gltf(normal, separate, &a);
		write_gltf(flagged, separate, &b);
		assert_same_output(&a, &b, separate ? "Bob.gltf" : "Bob.glb");
		if (separate) assert_int_equal(a.files_count, 2 + 5); // .gltf, .bin, the PNGs
		gsio_gltf_output_free(&a);
		gsio_gltf_output_free(&b);
	}
	gsio_scene_free(normal);
	gsio_scene_free(flagged);
}

// -- Every corpus file

static struct {
	size_t files, failed, undecoded;
} walk_count;

static bool is_model(const char *path)
{
	static const char *const exts[] = {".mdl", ".hmp", ".md5mesh", ".md5camera", ".wmp"};
	size_t l = strlen(path);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i]);
		if (l > e && !strcasecmp(path + l - e, exts[i])) return true;
	}
	return false;
}

static int visit(const char *path, const struct stat *st, int kind, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (kind != FTW_F || !is_model(path)) return 0;
	gsio_error e1, e2;
	gsio_scene *normal = load(path, 0, NULL, &e1);
	gsio_scene *flagged = load(path, GSIO_OPT_NO_PIXELS, NULL, &e2);
	walk_count.files++;
	if (!normal || !flagged) {
		// Refused alike, with the same words.
		if (normal || flagged) fail_msg("%s: loads %s without the flag and %s with it", path,
		                                normal ? "ok" : "fails", flagged ? "ok" : "fails");
		assert_int_equal(e1.code, e2.code);
		assert_string_equal(e1.message, e2.message);
		walk_count.failed++;
		return 0;
	}
	if (gsio_scene_validate(flagged, &e2)) fail_msg("%s: %s", path, e2.message);
	walk_count.undecoded += compare_images(normal, flagged, path);
	assert_same_warnings(normal, flagged);
	assert_same_glb(normal, flagged, path);
	gsio_scene_free(normal);
	gsio_scene_free(flagged);
	return 0;
}

/* Every model, terrain, MD5 and level of the corpus: the same GLB with and
 * without the flag (levels with their models' and WADs' textures, MDL7
 * external skins; Bob is the corpus's file with PNG textures). */
static void test_corpus_same_output(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	memset(&walk_count, 0, sizeof(walk_count));
	skins_kept = 0;
	assert_int_equal(nftw(GSIO_CORPUS_DIR, visit, 16, FTW_PHYS), 0);
	print_message("%zu files (%zu refused alike), %zu image files left undecoded, %zu skins kept "
	              "as stored, same GLB each\n",
	              walk_count.files, walk_count.failed, walk_count.undecoded, skins_kept);
	assert_true(walk_count.files >= 40);
	assert_true(walk_count.undecoded >= 5); // Bob's
	assert_true(skins_kept >= 30);          // the MDL/HMP skins, DDS ones among them
}

// -- Levels with PNG sprites and skins

/* A small opaque picture as a PNG (malloc'd). */
static uint8_t *small_png(size_t *size)
{
	uint8_t rgba[8 * 4 * 4];
	for (size_t i = 0; i < sizeof(rgba); i++) rgba[i] = (uint8_t)(i % 4 == 3 ? 255 : i * 37);
	uint8_t *png;
	gsio_error err;
	if (gsioi_png_encode(rgba, 8, 4, &png, size, &err)) fail_msg("%s", err.message);
	return png;
}

/* The lottershock levels with their sprite (poster01.tga) and the level
 * models' external skin (room_atlas_01.pcx) served as PNGs: the sprite and
 * the grafted skins keep the PNG undecoded, and the GLB is the same. */
static void test_levels_with_png(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t png_size;
	uint8_t *png = small_png(&png_size);
	static const char *const names[] = {"poster01.tga", "room_atlas_01.pcx"};
	static const char *const levels[] = {"lottershock/Game/Level/bestiary.wmp",
	                                     "lottershock/Game/Level/menue.wmp",
	                                     "lottershock/Game/Level/assettest.wmp"};
	size_t undecoded = 0;
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		t_blob w = {.data = png, .size = png_size, .names = names, .names_count = 2,
		            .others_from_disk = true};
		gsio_io io = t_blob_io(&w);
		gsio_error err;
		char path[4200];
		snprintf(path, sizeof(path), "%s", t_corpus_path(levels[l]));
		gsio_scene *normal = load(path, 0, &io, &err);
		if (!normal) fail_msg("%s: %s", path, err.message);
		gsio_scene *flagged = load(path, GSIO_OPT_NO_PIXELS, &io, &err);
		if (!flagged) fail_msg("%s: %s", path, err.message);
		assert_int_equal(gsio_scene_validate(flagged, &err), 0);
		size_t u = compare_images(normal, flagged, path);
		for (size_t i = 0; i < flagged->images_count; i++)
			if (flagged->images[i].file_data) {
				assert_int_equal(flagged->images[i].width, 8);
				assert_int_equal(flagged->images[i].height, 4);
			}
		print_message("%s: %zu PNG files served, %zu images undecoded\n", levels[l], w.served, u);
		undecoded += u;
		assert_same_warnings(normal, flagged);
		assert_same_glb(normal, flagged, path);
		gsio_scene_free(normal);
		gsio_scene_free(flagged);
	}
	assert_true(undecoded >= 2); // the sprite, and a grafted model skin
	free(png);
}

// -- JPEG

typedef struct bytes {
	uint8_t *data;
	size_t size;
} bytes;

static void append(void *user, void *data, int n)
{
	bytes *b = user;
	uint8_t *p = realloc(b->data, b->size + (size_t)n);
	if (!p) return;
	memcpy(p + b->size, data, (size_t)n);
	b->data = p;
	b->size += (size_t)n;
}

/* A JPEG whose Huffman table (DHT) lists more than 256 codes is refused
 * before stb_image reads it: stb_image 2.27 would write past its 256-entry
 * table (fuzz_load found it under UBSan). Checked with and without
 * GSIO_OPT_NO_PIXELS, the table first, a second table of the same segment,
 * and behind a fill byte, against a good JPEG that decodes. */
static void test_jpeg_huffman_over_256(void **state)
{
	(void)state;
	uint8_t rgb[16 * 8 * 3];
	for (size_t i = 0; i < sizeof(rgb); i++) rgb[i] = (uint8_t)(i * 13);
	bytes jpg = {NULL, 0};
	assert_int_not_equal(stbi_write_jpg_to_func(append, &jpg, 16, 8, 3, rgb, 90), 0);
	gsio_arena *a = gsioi_arena_create(NULL, (size_t)64 << 20);
	assert_non_null(a);
	gsio_error err;
	gsio_image im;
	memset(&im, 0, sizeof(im));
	assert_true(gsioi_image_file_decode(jpg.data, jpg.size, "good.jpg", a, &im, &err));
	assert_int_equal(im.width, 16);
	// stb_image_write puts all four tables in one DHT segment: table 0's
	// counts, then (after its symbols) table 1's.
	const uint8_t dht[2] = {0xFF, 0xC4};
	uint8_t *seg = memmem(jpg.data, jpg.size, dht, 2);
	assert_non_null(seg);
	size_t first = (size_t)(seg - jpg.data) + 5; // marker, length, class/id byte
	unsigned codes0 = 0;
	for (int i = 0; i < 16; i++) codes0 += jpg.data[first + (size_t)i];
	size_t second = first + 16 + codes0 + 1;
	// Table 0, table 1, and table 0 behind a fill byte before SOI (stb_image
	// skips 0xFF before every marker).
	for (int which = 0; which < 3; which++) {
		size_t fill = which == 2, size = jpg.size + fill;
		uint8_t *bad = malloc(size);
		assert_non_null(bad);
		bad[0] = 0xFF;
		memcpy(bad + fill, jpg.data, jpg.size);
		size_t at = (which == 1 ? second : first) + fill;
		for (int i = 0; i < 16; i++) bad[at + (size_t)i] = 17; // 272 codes
		for (int flags = 0; flags < 2; flags++) {
			gsio_opts o = {0};
			o.flags = flags ? GSIO_OPT_NO_PIXELS : 0;
			memset(&im, 0, sizeof(im));
			gsio_error_clear(&err);
			assert_false(gsioi_image_file_load(bad, size, "bad.jpg", &o, a, &im, NULL, &err));
			assert_int_equal(err.code, GSIO_ERR_CORRUPT);
			if (!strstr(err.message, "Huffman table")) fail_msg("table %d: %s", which, err.message);
		}
		free(bad);
	}
	gsioi_arena_destroy(a);
	free(jpg.data);
}

/* Formats no GameStudio or Doom 3 texture uses are not read: a valid PGM
 * (which stb_image reads when its PNM reader is compiled in) is refused as
 * unsupported, with and without GSIO_OPT_NO_PIXELS. */
static void test_pnm_not_read(void **state)
{
	(void)state;
	static const uint8_t pgm[] = "P5 3 2 255\n\1\2\3\4\5\6";
	gsio_arena *a = gsioi_arena_create(NULL, (size_t)1 << 20);
	assert_non_null(a);
	for (int flags = 0; flags < 2; flags++) {
		gsio_opts o = {0};
		o.flags = flags ? GSIO_OPT_NO_PIXELS : 0;
		gsio_image im;
		memset(&im, 0, sizeof(im));
		gsio_error err;
		gsio_error_clear(&err);
		assert_false(gsioi_image_file_load(pgm, sizeof(pgm) - 1, "t.pgm", &o, a, &im, NULL, &err));
		assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	}
	gsioi_arena_destroy(a);
}

/* Bob with guard1_body.png served as a JPEG of 24 x 16 pixels: the flagged
 * load keeps the JPEG undecoded with its header's size, the normal one decodes
 * it (and keeps the file); both GLBs embed it as image/jpeg, byte for byte the
 * same. */
static void test_jpeg(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	uint8_t rgb[24 * 16 * 3];
	for (size_t i = 0; i < sizeof(rgb); i++) rgb[i] = (uint8_t)(i * 7);
	bytes jpg = {NULL, 0};
	assert_int_not_equal(stbi_write_jpg_to_func(append, &jpg, 24, 16, 3, rgb, 90), 0);
	assert_true(jpg.size > 100 && jpg.data[0] == 0xFF && jpg.data[1] == 0xD8);
	static const char *const names[] = {"guard1_body.png"};
	t_blob w = {.data = jpg.data, .size = jpg.size, .names = names, .names_count = 1,
	            .others_from_disk = true};
	gsio_io io = t_blob_io(&w);
	char bob[4200];
	snprintf(bob, sizeof(bob), "%s", t_corpus_path("md5/bob/Bob.md5mesh"));
	gsio_error err;
	gsio_scene *normal = load(bob, 0, &io, &err);
	if (!normal) fail_msg("%s", err.message);
	gsio_scene *flagged = load(bob, GSIO_OPT_NO_PIXELS, &io, &err);
	if (!flagged) fail_msg("%s", err.message);
	assert_int_equal(compare_images(normal, flagged, "Bob with a JPEG"), 5);
	size_t jpegs = 0;
	for (size_t i = 0; i < flagged->images_count; i++) {
		const gsio_image *im = &flagged->images[i];
		if (im->file_size != jpg.size || memcmp(im->file_data, jpg.data, jpg.size)) continue;
		assert_int_equal(im->width, 24);
		assert_int_equal(im->height, 16);
		jpegs++;
	}
	assert_int_equal(jpegs, 1);
	gsio_gltf_output a = {0}, b = {0};
	write_gltf(normal, false, &a);
	write_gltf(flagged, false, &b);
	assert_same_output(&a, &b, "Bob with a JPEG");
	assert_non_null(memmem(b.files[0].data, b.files[0].size, "image/jpeg", 10));
	gsio_gltf_output_free(&a);
	gsio_gltf_output_free(&b);
	gsio_scene_free(normal);
	gsio_scene_free(flagged);
	free(jpg.data);
}

// -- Damaged files

/* Bob with guard1_body.png damaged in its header (stb_image's header check
 * refuses a width of 0 or over GSIO_IMAGE_FILE_MAX_DIM itself), or starting
 * as a JPEG: without the flag and with it, the same warning, which names a
 * file that starts as a PNG or JPEG as one, and the texture is left out. */
static void test_damaged_header(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char bob[4200];
	snprintf(bob, sizeof(bob), "%s", t_corpus_path("md5/bob/Bob.md5mesh"));
	size_t size;
	uint8_t *good = t_read_file(t_corpus_path("md5/bob/guard1_body.png"), &size);
	static const char *const names[] = {"guard1_body.png"};
	static const struct {
		const char *what;
		size_t at, count; // bytes written at `at`
		const char *bytes;
		const char *expect;
	} cases[] = {
	    {"signature", 1, 1, "Q", "not an image file stb_image reads (unknown image type)"},
	    {"IHDR tag", 12, 1, "X", "a PNG start, then a damaged or unsupported header"},
	    {"width 0", 16, 4, "\0\0\0\0", "a PNG start, then a damaged or unsupported header"},
	    {"width over the limit", 18, 1, "\x7f", "a PNG start, then a damaged or unsupported header"},
	    {"height over the limit", 22, 1, "\x7f", "a PNG start, then a damaged or unsupported header"},
	    {"JPEG start", 0, 4, "\xff\xd8\xff\xe0", "a JPEG start, then a damaged or unsupported header"},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *expect = cases[c].expect;
		uint8_t *bad = malloc(size);
		assert_non_null(bad);
		memcpy(bad, good, size);
		memcpy(bad + cases[c].at, cases[c].bytes, cases[c].count);
		t_blob w = {.data = bad, .size = size, .names = names, .names_count = 1,
		            .others_from_disk = true};
		gsio_io io = t_blob_io(&w);
		gsio_error e1, e2;
		gsio_scene *normal = load(bob, 0, &io, &e1);
		gsio_scene *flagged = load(bob, GSIO_OPT_NO_PIXELS, &io, &e2);
		assert_true(w.served >= 2);
		if (!normal || !flagged) fail_msg("%s: %s / %s", cases[c].what, e1.message, e2.message);
		assert_same_warnings(normal, flagged);
		const char *said = NULL;
		for (size_t i = 0; i < flagged->warnings_count && !said; i++)
			if (strstr(flagged->warnings[i], "guard1_body.png") && strstr(flagged->warnings[i], expect))
				said = flagged->warnings[i];
		if (!said) fail_msg("%s: no warning naming the file and '%s'", cases[c].what, expect);
		assert_true(flagged->images_count < 5); // left out
		assert_int_equal(compare_images(normal, flagged, cases[c].what), flagged->images_count);
		print_message("%s: %s\n", cases[c].what, said);
		gsio_scene_free(normal);
		gsio_scene_free(flagged);
		free(bad);
	}
	free(good);
}

/* Stored skins lent, not copied: with GSIO_OPT_BORROW they point into the
 * caller's bytes (MDL2-5, HMP), without it into the scene; gsio_load_file
 * keeps its read buffer for them (test_corpus_same_output reads them after
 * the load, under ASan too). */
static void test_stored_skins_lent(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const char *const files[] = {"mdl/gate-101.mdl", "hmp/shadow-5.hmp", "mdl/mdl5-earth.mdl"};
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		size_t n;
		uint8_t *data = t_read_file(t_corpus_path(files[k]), &n);
		for (int lend = 0; lend < 2; lend++) {
			gsio_opts o;
			memset(&o, 0, sizeof(o));
			o.flags = GSIO_OPT_NO_PIXELS | (lend ? GSIO_OPT_BORROW : 0u);
			gsio_error err;
			gsio_scene *s = gsio_load_memory(data, n, files[k], &o, &err);
			if (!s) fail_msg("%s: %s", files[k], err.message);
			assert_true(s->images_count >= 1);
			for (size_t i = 0; i < s->images_count; i++) {
				const uint8_t *p = s->images[i].stored;
				assert_non_null(p);
				bool inside = p >= data && p < data + n;
				if (inside != (lend == 1))
					fail_msg("%s image %zu: stored %s the caller's bytes", files[k], i,
					         inside ? "points into" : "does not point into");
			}
			assert_int_equal(gsio_scene_validate(s, &err), 0);
			gsio_scene_free(s);
		}
		free(data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bob),
	    cmocka_unit_test(test_corpus_same_output),
	    cmocka_unit_test(test_levels_with_png),
	    cmocka_unit_test(test_jpeg),
	    cmocka_unit_test(test_jpeg_huffman_over_256),
	    cmocka_unit_test(test_pnm_not_read),
	    cmocka_unit_test(test_damaged_header),
	    cmocka_unit_test(test_stored_skins_lent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
