/* Uncompressed BMP files (common/bmp.c): decoded in one pass, or
 * (GSIO_OPT_NO_PIXELS) kept as the file and turned into a PNG a row at a
 * time. What must hold: the pixels are stb_image's (compiled into this
 * test as the reference) for 1-, 4-, 8-, 24- and 32-bit files with 40-,
 * 108- and 124-byte headers, bottom-up and top-down, at widths whose rows
 * need padding, with full and short palettes and every alpha rule of
 * stb_image's 32-bit files; files gsio leaves to stb_image (OS/2 and V3
 * headers, 16-bit, BI_BITFIELDS, RLE8, pixels away from the headers)
 * decode, or fail, as stb_image decodes them; cut-short files, palettes out
 * of range and sizes out of bounds are refused with their codes; the PNG
 * made from the file is byte for byte the PNG of its decoded pixels; and an
 * MDL7 whose external skin is a BMP converts to the glTF bytes of the same
 * scene with stb_image's pixels. */
#define _GNU_SOURCE // mkdtemp
#include "test_util.h"

#include "gsio_gltf.h"
#include "gsio_mdl7.h"
#include "gsioi_bmp.h"
#include "gsioi_image_file.h"
#include "gsioi_png.h"

// stb_image as the reference decoder.
#define STBI_ONLY_BMP
#include "stb_image_ref.h"
#include "mdl7_one_group.h"
#include "skin_file_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// -- Building BMP files

typedef struct bmp_spec {
	int32_t w, h;         // h < 0: rows stored top down
	uint16_t bpp;         // 1, 4, 8, 16, 24 or 32
	uint32_t hsz;         // info header: 12 (OS/2), 40, 56, 108 or 124 bytes
	uint32_t colours;     // palette entries (bpp <= 8); 0: 2^bpp
	uint32_t compression; // 0 BI_RGB, 1 RLE8, 3 BI_BITFIELDS
	int alpha;            // 32-bit: 0 mixed, 1 every byte 0, 2 every byte 255
	uint32_t gap;         // bytes between the palette (or headers) and the pixels
	size_t cut;           // bytes taken off the end
} bmp_spec;


static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v), put16(p + 2, v >> 16);
}

static size_t row_bytes(const bmp_spec *t)
{
	return ((size_t)t->w * t->bpp + 7) / 8;
}

static size_t stride_of(const bmp_spec *t)
{
	return (row_bytes(t) + 3) & ~(size_t)3;
}

/* A BMP of spec's layout with pseudo-random pixels, palette (its reserved
 * bytes too) and row padding; malloc'd, *size set. Palette indices stay
 * below the palette's length (stb_image reads unset entries past it). */
static uint8_t *make_bmp(const bmp_spec *t, size_t *size)
{
	const bool os2 = t->hsz == 12;
	const uint32_t ah = (uint32_t)(t->h < 0 ? -t->h : t->h);
	const uint32_t colours = t->bpp <= 8 ? (t->colours ? t->colours : 1u << t->bpp) : 0;
	const size_t masks = t->compression == 3 && t->hsz == 40 ? 12 : 0, entry = os2 ? 3 : 4;
	const size_t offset = 14 + t->hsz + masks + colours * entry + t->gap;
	const size_t stride = stride_of(t), n = offset + stride * ah;
	uint8_t *d = calloc(1, n);
	assert_non_null(d);
	d[0] = 'B', d[1] = 'M';
	put32(d + 2, (uint32_t)n);
	put32(d + 10, (uint32_t)offset);
	put32(d + 14, t->hsz);
	if (os2) {
		put16(d + 18, (uint32_t)t->w), put16(d + 20, (uint32_t)t->h), put16(d + 22, 1), put16(d + 24, t->bpp);
	} else {
		put32(d + 18, (uint32_t)t->w), put32(d + 22, (uint32_t)t->h), put16(d + 26, 1), put16(d + 28, t->bpp);
		put32(d + 30, t->compression);
		put32(d + 34, (uint32_t)(stride * ah));
		put32(d + 46, colours);
		if (masks || t->hsz >= 108) { // R, G, B (and in V4/V5, A) masks
			put32(d + 54, 0x00FF0000u), put32(d + 58, 0x0000FF00u), put32(d + 62, 0x000000FFu);
			if (t->hsz >= 108) put32(d + 66, 0xFF000000u), memcpy(d + 70, "BGRs", 4);
		}
	}
	for (size_t i = 14 + t->hsz + masks; i < offset; i++) d[i] = next_byte(); // palette and gap
	for (uint32_t y = 0; y < ah; y++) {
		uint8_t *row = d + offset + (size_t)y * stride;
		for (size_t i = 0; i < stride; i++) row[i] = next_byte(); // padding too
		if (t->bpp <= 8) {
			memset(row, 0, row_bytes(t));
			for (int32_t x = 0; x < t->w; x++) {
				const uint32_t v = next_byte() % colours, bit = (uint32_t)x * t->bpp;
				row[bit / 8] |= (uint8_t)(v << (8 - t->bpp - bit % 8));
			}
		}
		if (t->bpp == 32 && t->alpha)
			for (int32_t x = 0; x < t->w; x++) row[4 * x + 3] = t->alpha == 1 ? 0 : 255;
	}
	*size = n - t->cut;
	return d;
}


/* Decodes t's file with gsio and stb_image: the same pixels, and gsio's
 * own reader took it when `ours`. */
static void assert_same_as_stb(const bmp_spec *t, bool ours, const char *what)
{
	size_t size;
	uint8_t *d = make_bmp(t, &size);
	gsioi_bmp info;
	assert_int_equal(gsioi_bmp_parse(d, size, "t.bmp", &info, NULL), ours ? GSIOI_BMP_OK : GSIOI_BMP_OTHER);
	gsio_image im;
	gsio_error err;
	gsio_arena *a = fresh(&im, &err);
	const bool ok = gsioi_image_file_decode(d, size, "t.bmp", a, &im, &err);
	int sw = 0, sh = 0;
	uint8_t *ref = stb_rgba(d, size, &sw, &sh);
	if (!ref) {
		if (ok) fail_msg("%s: %d-bit %d x %d: stb_image refuses it, gsio decodes it", what, t->bpp, t->w, t->h);
	} else {
		if (!ok) fail_msg("%s: %d-bit %d x %d, header %u: %s", what, t->bpp, t->w, t->h, t->hsz, err.message);
		assert_int_equal(im.width, (uint32_t)sw);
		assert_int_equal(im.height, (uint32_t)sh);
		assert_memory_equal(im.rgba, ref, (size_t)sw * (size_t)sh * 4);
		assert_null(im.file_data);
		if (ours) { // a pixel alone (the PNG encoder's palette probe) is the decoded one
			gsioi_bmp_scan_alpha(d, &info);
			for (size_t i = 0; i < (size_t)sw * (size_t)sh; i++) {
				uint8_t px[4];
				gsioi_bmp_pixel(d, &info, i, px);
				assert_memory_equal(px, im.rgba + 4 * i, 4);
			}
		}
	}
	stbi_image_free(ref);
	gsioi_arena_destroy(a);
	free(d);
}

// -- Decoding

/* Every accepted layout at padding widths, both ways up: stb_image's
 * pixels. */
static void test_bmp_pixels_are_stb_images(void **state)
{
	(void)state;
	static const uint16_t bpps[] = {1, 4, 8, 24, 32};
	static const uint32_t headers[] = {40, 108, 124};
	static const int32_t widths[] = {1, 2, 3, 5, 9, 37};
	size_t n = 0;
	for (size_t b = 0; b < 5; b++)
		for (size_t hd = 0; hd < 3; hd++)
			for (size_t k = 0; k < 6; k++)
				for (int top = 0; top < 2; top++) {
					bmp_spec t = {widths[k], top ? -3 : 4, bpps[b], headers[hd], 0, 0, 0, 0, 0};
					assert_same_as_stb(&t, true, "layout");
					n++;
				}
	assert_int_equal(n, 180);
	// Short palettes (indices below their length) and a gap after one.
	const bmp_spec more[] = {
		{7, 5, 8, 40, 17, 0, 0, 0, 0},  {7, -5, 4, 124, 5, 0, 0, 0, 0}, {11, 3, 1, 40, 1, 0, 0, 0, 0},
		{6, 2, 8, 40, 256, 0, 0, 3, 0}, {6, 2, 4, 108, 16, 0, 0, 9, 0}, {300, 7, 8, 40, 0, 0, 0, 0, 0},
		{2, 300, 24, 40, 0, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++) assert_same_as_stb(&more[i], true, "palette");
}

/* 32-bit alpha as stb_image reads it: the bytes as they are, unless every
 * one is 0 (then 255); a single non-zero byte keeps them all. */
static void test_bmp_alpha_rules(void **state)
{
	(void)state;
	for (int alpha = 0; alpha < 3; alpha++)
		for (uint32_t hsz = 40; hsz <= 124; hsz = hsz == 40 ? 108 : hsz + 16) {
			bmp_spec t = {13, alpha == 1 ? -6 : 6, 32, hsz, 0, 0, alpha, 0, 0};
			assert_same_as_stb(&t, true, "alpha");
		}
	bmp_spec t = {5, 4, 32, 40, 0, 0, 1, 0, 0};
	size_t size;
	uint8_t *d = make_bmp(&t, &size);
	d[54 + 4 * 17 + 3] = 1; // pixel 2 of the file's last row: the picture's top
	gsio_image im;
	gsio_error err;
	gsio_arena *a = fresh(&im, &err);
	assert_true(gsioi_image_file_decode(d, size, "t.bmp", a, &im, &err));
	int sw, sh;
	uint8_t *ref = stb_rgba(d, size, &sw, &sh);
	assert_non_null(ref);
	assert_memory_equal(im.rgba, ref, 5 * 4 * 4);
	assert_int_equal(im.rgba[4 * 2 + 3], 1);
	assert_int_equal(im.rgba[4 * 3 + 3], 0); // the zeros stay zeros
	stbi_image_free(ref);
	gsioi_arena_destroy(a);
	free(d);
}

/* Layouts gsio leaves to stb_image decode as it decodes them, or fail as
 * it fails: OS/2 and V3 headers, 16-bit, BI_BITFIELDS, RLE8 (refused by
 * stb_image 2.27), true-colour pixels away from the headers (refused). */
static void test_bmp_others_are_stb_images(void **state)
{
	(void)state;
	const bmp_spec others[] = {
		{5, 3, 24, 12, 0, 0, 0, 0, 0}, {5, 3, 24, 56, 0, 0, 0, 0, 0}, {5, 3, 16, 40, 0, 0, 0, 0, 0},
		{5, 3, 32, 40, 0, 3, 0, 0, 0}, {5, 3, 8, 40, 0, 1, 0, 0, 0},  {5, 3, 24, 40, 0, 0, 0, 4, 0},
		{5, 3, 32, 108, 0, 3, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) assert_same_as_stb(&others[i], false, "other");
}

/* The error of the file d with gsio's decoder and with the NO_PIXELS load,
 * which must be the same: code, and a message containing `part`. */
static void assert_bytes_refused(const uint8_t *d, size_t size, gsio_error_code code, const char *part)
{
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = GSIO_OPT_NO_PIXELS;
	for (int flag = 0; flag < 2; flag++) {
		gsio_image im;
		gsio_error err;
		gsio_arena *a = fresh(&im, &err);
		const bool ok = flag ? gsioi_image_file_load(d, size, "t.bmp", &o, a, &im, NULL, &err)
		                     : gsioi_image_file_decode(d, size, "t.bmp", a, &im, &err);
		if (ok) fail_msg("a file of %zu bytes decoded (want \"%s\")", size, part);
		assert_int_equal(err.code, code);
		if (!strstr(err.message, part)) fail_msg("\"%s\" lacks \"%s\"", err.message, part);
		assert_null(im.rgba);
		assert_null(im.file_data);
		gsioi_arena_destroy(a);
	}
}

static void assert_refused(const bmp_spec *t, gsio_error_code code, const char *part)
{
	size_t size;
	uint8_t *d = make_bmp(t, &size);
	assert_bytes_refused(d, size, code, part);
	free(d);
}

/* A file cut inside its pixels is refused (stb_image would make up the
 * rest); one missing only its last row's padding decodes as stb_image
 * decodes it; sizes out of bounds and palettes out of range are refused. */
static void test_bmp_damaged(void **state)
{
	(void)state;
	static const uint16_t bpps[] = {1, 4, 8, 24, 32};
	for (size_t b = 0; b < 5; b++)
		for (int32_t w = 1; w <= 5; w++) {
			bmp_spec t = {w, w % 2 ? 3 : -3, bpps[b], 40, 0, 0, 0, 0, 0};
			t.cut = stride_of(&t) - row_bytes(&t); // the last row's padding
			assert_same_as_stb(&t, true, "no last padding");
			t.cut++;
			assert_refused(&t, GSIO_ERR_TRUNCATED, "cut short");
		}
	bmp_spec t = {4, 4, 24, 124, 0, 0, 0, 0, 0};
	t.cut = 4 * 12 + 124 - 30; // 44 bytes left: inside the info header
	assert_refused(&t, GSIO_ERR_TRUNCATED, "inside its 124-byte info header");
	// Sizes out of bounds, in the header of a 1 x 1 file.
	const struct {
		int32_t w, h;
		gsio_error_code code;
		const char *part;
	} sizes[] = {
		{16385, 1, GSIO_ERR_LIMIT, "limit 16384"},     {1, -16385, GSIO_ERR_LIMIT, "limit 16384"},
		{1, INT32_MIN, GSIO_ERR_LIMIT, "limit 16384"}, {-2, 1, GSIO_ERR_CORRUPT, "no picture"},
		{3, 0, GSIO_ERR_CORRUPT, "no picture"},
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t size;
		uint8_t *d = make_bmp(&(bmp_spec){1, 1, 24, 40, 0, 0, 0, 0, 0}, &size);
		put32(d + 18, (uint32_t)sizes[i].w), put32(d + 22, (uint32_t)sizes[i].h);
		assert_bytes_refused(d, size, sizes[i].code, sizes[i].part);
		free(d);
	}
	// Palettes out of range: 257 entries; none, the pixels starting where
	// the headers end or inside them (stb_image reads entries it never
	// set); less than one entry.
	assert_refused(&(bmp_spec){3, 2, 8, 40, 257, 0, 0, 0, 0}, GSIO_ERR_CORRUPT, "hold 257 colours");
	static const uint32_t offsets[] = {14 + 108, 14 + 108 - 8, 14 + 108 + 3};
	for (size_t i = 0; i < 3; i++) {
		size_t size;
		uint8_t *d = make_bmp(&(bmp_spec){3, 2, 4, 108, 0, 0, 0, 0, 0}, &size);
		put32(d + 10, offsets[i]);
		assert_bytes_refused(d, size, GSIO_ERR_CORRUPT, "not 1 to 256");
		free(d);
	}
}

// -- PNG from the file's rows

/* The PNG made from the file's rows (gsioi_png_begin_bmp, in bands) is the
 * PNG of its decoded pixels: opaque and translucent, alpha all 0, one
 * band and several, palette files (a palette PNG) and true colour. */
static void test_bmp_png_is_pixels_png(void **state)
{
	(void)state;
	const bmp_spec specs[] = {
		{600, 500, 24, 40, 0, 0, 0, 0, 0}, {600, -500, 32, 124, 0, 0, 0, 0, 0}, {601, 500, 32, 40, 0, 0, 2, 0, 0},
		{37, 21, 32, 40, 0, 0, 1, 0, 0},   {37, -21, 8, 40, 0, 0, 0, 0, 0},     {600, 500, 8, 108, 200, 0, 0, 0, 0},
		{301, 300, 4, 40, 0, 0, 0, 0, 0},  {603, 499, 1, 40, 0, 0, 0, 0, 0},    {1, 1, 24, 40, 0, 0, 0, 0, 0},
	};
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		size_t size;
		uint8_t *d = make_bmp(&specs[k], &size);
		assert_rows_png_is_pixels_png(d, size, "t.bmp", gsioi_png_begin_bmp);
		free(d);
	}
	// Not a file it takes (RLE8): refused.
	size_t size;
	uint8_t *d = make_bmp(&(bmp_spec){5, 3, 8, 40, 0, 1, 0, 0, 0}, &size);
	gsioi_png_work *w;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_png_begin_bmp(d, size, &w, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	free(d);
}

/* With GSIO_OPT_NO_PIXELS an accepted BMP is kept as its file: a copy, or
 * the caller's block itself when handed over (the arena frees it: ASan
 * would report a leak or a double free); a 16-bit file (stb_image's) is
 * decoded, its block left to the caller. */
static void test_bmp_kept_undecoded(void **state)
{
	(void)state;
	for (int k = 0; k < 3; k++) {
		bmp_spec t = {5, -4, (uint16_t)(k == 2 ? 16 : 8), 40, 0, 0, 0, 0, 0};
		size_t size;
		uint8_t *d = make_bmp(&t, &size);
		if (k == 2) put32(d + 22, 4); // stb_image's header reader takes no negative height
		assert_kept_or_decoded(d, size, "t.bmp", k);
	}
}

// -- End to end: an MDL7 with an external BMP skin

/* An MDL7 of one group: a 2 x 2 vertex quad whose one skin is the external
 * file `skin` (type 7: its name stored), encoded by the codec. */
static uint8_t *make_mdl7(const char *skin, size_t *size)
{
	enum { NV = 4, NT = 2 };
	gsio_mdl7_skin sk;
	mdl7_external_skin(&sk, skin, 0);
	float uvs[NV * 2] = {0, 0, 1, 0, 0, 1, 1, 1};
	gsio_mdl7_vertex verts[NV];
	memset(verts, 0, sizeof(verts));
	for (int i = 0; i < NV; i++) {
		verts[i].pos[0] = (float)(i % 2), verts[i].pos[1] = (float)(i / 2);
		verts[i].bone = 0xFFFF;
		verts[i].normal[2] = -1;
	}
	gsio_mdl7_triangle tris[NT] = {{{0, 2, 1}, {0, 2, 1}, 0, {0xFFFF, 0xFFFF, 0xFFFF}, -1},
	                               {{1, 2, 3}, {1, 2, 3}, 0, {0xFFFF, 0xFFFF, 0xFFFF}, -1}};
	uint8_t *out = NULL;
	gsio_error err;
	if (mdl7_one_group_encode(&sk, 1, uvs, verts, NV, tris, NT, &out, size, &err))
		fail_msg("MDL7 encode: %s", err.message);
	return out;
}

static void write_glb(const gsio_scene *s, gsio_gltf_output *out)
{
	gsio_gltf_opts o;
	memset(&o, 0, sizeof(o));
	o.name = "model";
	o.generator = "test";
	gsio_error err;
	if (gsio_gltf_write(s, &o, out, &err)) fail_msg("glTF write: %s", err.message);
}

/* mdl2gltf's load (GSIO_OPT_NO_PIXELS: the skin kept as its file, its PNG
 * made from the file's rows) and the plain load (gsio's decoder) write the
 * GLB that the plain load writes with stb_image's pixels put in place of
 * gsio's, which is what the conversion wrote when stb_image decoded every
 * BMP. */
static void test_bmp_mdl7_glb_as_stb(void **state)
{
	(void)state;
	const bmp_spec specs[] = {{512, 512, 24, 40, 0, 0, 0, 0, 0}, {300, 200, 32, 40, 0, 0, 0, 0, 0},
	                          {129, 64, 8, 40, 0, 0, 0, 0, 0}};
	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		char dir[] = "/tmp/gsio_bmp_XXXXXX", path[128], mdl_path[128];
		assert_non_null(mkdtemp(dir));
		size_t bmp_size, mdl_size;
		uint8_t *bmp = make_bmp(&specs[k], &bmp_size), *mdl = make_mdl7("Panel.BMP", &mdl_size);
		snprintf(path, sizeof(path), "%s/panel.bmp", dir);
		t_write_file(path, bmp, bmp_size);
		snprintf(mdl_path, sizeof(mdl_path), "%s/quad.mdl", dir);
		t_write_file(mdl_path, mdl, mdl_size);
		gsio_opts o;
		memset(&o, 0, sizeof(o));
		o.flags = GSIO_OPT_NO_PIXELS;
		gsio_scene *kept = t_load_ok(mdl_path, &o), *plain = t_load_ok(mdl_path, NULL);
		assert_int_equal(kept->images_count, 1);
		assert_null(kept->images[0].rgba);
		assert_int_equal(kept->images[0].file_size, bmp_size);
		assert_non_null(plain->images[0].rgba);
		gsio_gltf_output a = {0}, b = {0}, c = {0};
		write_glb(kept, &a);
		write_glb(plain, &b);
		int sw, sh;
		uint8_t *ref = stb_rgba(bmp, bmp_size, &sw, &sh);
		assert_non_null(ref);
		assert_int_equal(plain->images[0].width, (uint32_t)sw);
		assert_int_equal(plain->images[0].height, (uint32_t)sh);
		uint8_t *ours = plain->images[0].rgba;
		plain->images[0].rgba = ref;
		write_glb(plain, &c);
		plain->images[0].rgba = ours;
		assert_int_equal(a.files_count, 1);
		assert_int_equal(a.files[0].size, c.files[0].size); // kept vs stb_image's pixels
		assert_memory_equal(a.files[0].data, c.files[0].data, c.files[0].size);
		assert_int_equal(b.files[0].size, c.files[0].size); // gsio's pixels vs stb_image's
		assert_memory_equal(b.files[0].data, c.files[0].data, c.files[0].size);
		gsio_gltf_output_free(&a);
		gsio_gltf_output_free(&b);
		gsio_gltf_output_free(&c);
		stbi_image_free(ref);
		gsio_scene_free(kept);
		gsio_scene_free(plain);
		free(bmp);
		free(mdl);
		t_empty_dir(dir);
		rmdir(dir);
	}
}

/* An external skin refused for its own size is a warning and the model
 * loads without it; a skin the load's memory limit cannot hold once read
 * ends the load with GSIO_ERR_LIMIT (kept as its file or decoded). */
static void test_bmp_too_big_warns_limit_fails(void **state)
{
	(void)state;
	char dir[] = "/tmp/gsio_bmp_XXXXXX", path[128], mdl_path[128];
	assert_non_null(mkdtemp(dir));
	size_t bmp_size, mdl_size;
	uint8_t *bmp = make_bmp(&(bmp_spec){512, 512, 24, 40, 0, 0, 0, 0, 0}, &bmp_size);
	uint8_t *mdl = make_mdl7("panel.bmp", &mdl_size);
	snprintf(path, sizeof(path), "%s/panel.bmp", dir);
	snprintf(mdl_path, sizeof(mdl_path), "%s/quad.mdl", dir);
	t_write_file(mdl_path, mdl, mdl_size);
	for (int flags = 0; flags < 2; flags++) {
		gsio_opts o;
		memset(&o, 0, sizeof(o));
		o.flags = flags ? GSIO_OPT_NO_PIXELS : 0;
		// Its header says 100000 x 100000: past the readers' 16384.
		uint8_t *huge = malloc(bmp_size);
		assert_non_null(huge);
		memcpy(huge, bmp, bmp_size);
		put32(huge + 18, 100000);
		put32(huge + 22, 100000);
		t_write_file(path, huge, bmp_size);
		free(huge);
		gsio_scene *s = t_load_ok(mdl_path, &o);
		assert_int_equal(s->images_count, 0);
		assert_true(s->warnings_count >= 1);
		assert_non_null(strstr(s->warnings[0], "refused (limit 16384)"));
		gsio_scene_free(s);
		// The whole file, with a limit of its size: it is read (a file over
		// the limit is not even read: a warning, like a missing one), but
		// the quad's scene and the skin, kept or decoded, do not fit.
		t_write_file(path, bmp, bmp_size);
		o.memory_limit = bmp_size;
		gsio_error err;
		s = gsio_load_file(mdl_path, &o, &err);
		assert_null(s);
		assert_int_equal(err.code, GSIO_ERR_LIMIT);
		o.memory_limit = 0;
		s = t_load_ok(mdl_path, &o);
		assert_int_equal(s->images_count, 1);
		gsio_scene_free(s);
	}
	free(bmp);
	free(mdl);
	t_empty_dir(dir);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bmp_pixels_are_stb_images),
		cmocka_unit_test(test_bmp_alpha_rules),
		cmocka_unit_test(test_bmp_others_are_stb_images),
		cmocka_unit_test(test_bmp_damaged),
		cmocka_unit_test(test_bmp_png_is_pixels_png),
		cmocka_unit_test(test_bmp_kept_undecoded),
		cmocka_unit_test(test_bmp_mdl7_glb_as_stb),
		cmocka_unit_test(test_bmp_too_big_warns_limit_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
