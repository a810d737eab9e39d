/* PCX decoding (common/pcx.c): files built here in every layout gsio reads
 * (8-bit palettised, RGB and RGBA planes, 4-bit, 1-bit EGA and monochrome;
 * run-length and stored; runs crossing plane and row ends; padded rows),
 * every truncation, huge size claims, header errors, random damage, the
 * corpus's palette.pcx files, and a real level model (lottershock's
 * corridor_01_end.mdl) whose external texture is a .pcx. Independent
 * decoding by Pillow: tests/e2e/pcx_pillow.py. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "gsioi_image_file.h"
#include "gsioi_pcx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// -- Building PCX files

typedef struct pcx_spec {
	uint32_t w, h;
	uint8_t bits, planes;
	uint16_t bpl;         // 0: the least the width needs (rounded up to even)
	bool rle;
	bool cross_rows;      // encode the whole image as one stream (runs cross rows)
} pcx_spec;

typedef struct bytes {
	uint8_t *d;
	size_t n, cap;
} bytes;

static void put(bytes *b, uint8_t v)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->d = realloc(b->d, b->cap);
		assert_non_null(b->d);
	}
	b->d[b->n++] = v;
}

static void encode(bytes *b, const uint8_t *raw, size_t n, bool rle)
{
	for (size_t i = 0; i < n;) {
		if (!rle) {
			put(b, raw[i++]);
			continue;
		}
		size_t run = 1;
		while (i + run < n && run < 63 && raw[i + run] == raw[i]) run++;
		if (run > 1 || (raw[i] & 0xC0) == 0xC0) {
			put(b, (uint8_t)(0xC0 | run));
			put(b, raw[i]);
		} else {
			put(b, raw[i]);
		}
		i += run;
	}
}

static uint16_t spec_bpl(const pcx_spec *s)
{
	if (s->bpl) return s->bpl;
	uint32_t need = (s->w * s->bits + 7) / 8;
	return (uint16_t)(need + need % 2);
}

/* A PCX of spec s whose raw planes (h rows of planes x bpl bytes) are
 * `raw`; palette: 768 bytes appended for 8-bit one-plane images; colormap:
 * 48 header bytes (or NULL). malloc'd. */
static uint8_t *make_pcx(const pcx_spec *s, const uint8_t *raw, const uint8_t *palette,
                         const uint8_t *colormap, size_t *size)
{
	bytes b = {0};
	for (int i = 0; i < 128; i++) put(&b, 0);
	b.d[0] = 0x0A;
	b.d[1] = 5;
	b.d[2] = s->rle ? 1 : 0;
	b.d[3] = s->bits;
	b.d[8] = (uint8_t)(s->w - 1);
	b.d[9] = (uint8_t)((s->w - 1) >> 8);
	b.d[10] = (uint8_t)(s->h - 1);
	b.d[11] = (uint8_t)((s->h - 1) >> 8);
	if (colormap) memcpy(b.d + 16, colormap, 48);
	b.d[65] = s->planes;
	uint16_t bpl = spec_bpl(s);
	b.d[66] = (uint8_t)bpl;
	b.d[67] = (uint8_t)(bpl >> 8);
	b.d[68] = 1;
	size_t row = (size_t)s->planes * bpl;
	if (s->cross_rows) {
		encode(&b, raw, row * s->h, s->rle);
	} else {
		for (uint32_t y = 0; y < s->h; y++)
			for (unsigned p = 0; p < s->planes; p++) encode(&b, raw + y * row + p * bpl, bpl, s->rle);
	}
	if (palette) {
		put(&b, 0x0C);
		for (int i = 0; i < 768; i++) put(&b, palette[i]);
	}
	*size = b.n;
	return b.d;
}

static bool decode(const uint8_t *d, size_t n, gsio_image *im, gsio_error *err, gsio_arena **arena)
{
	*arena = gsioi_arena_create(NULL, (size_t)64 << 20);
	assert_non_null(*arena);
	memset(im, 0, sizeof(*im));
	gsio_error_clear(err);
	return gsioi_pcx_decode(d, n, "t.pcx", *arena, im, err);
}

/* d (n bytes; `what` in messages) is refused with `code` (its message
 * saying `text` when text is not NULL), no image made and nothing left in
 * the arena. */
static void expect_refused(const char *what, const uint8_t *d, size_t n, gsio_error_code code,
                           const char *text)
{
	gsio_image im;
	gsio_error err;
	gsio_arena *a;
	assert_false(decode(d, n, &im, &err, &a));
	if (err.code != code) fail_msg("%s: code %d (%s), expected %d", what, err.code, err.message, code);
	if (text && !strstr(err.message, text)) fail_msg("%s: '%s' does not say '%s'", what, err.message, text);
	assert_null(im.rgba);
	assert_int_equal(gsioi_arena_used(a), 0);
	gsioi_arena_destroy(a);
}

static uint8_t pattern(uint32_t x, uint32_t y, unsigned k)
{
	// Runs (x / 5) and values >= 0xC0 (which must be stored as runs of one).
	return (uint8_t)((x / 5) * 37 + y * 11 + k * 101 + (x % 3 == 0 ? 0xC0 : 0));
}

// -- Layouts

static void check_8bit(bool rle, bool cross_rows, uint16_t bpl)
{
	pcx_spec s = {.w = 37, .h = 9, .bits = 8, .planes = 1, .bpl = bpl, .rle = rle,
	              .cross_rows = cross_rows};
	uint16_t b = spec_bpl(&s);
	uint8_t *raw = calloc((size_t)b * s.h, 1), pal[768];
	for (int i = 0; i < 768; i++) pal[i] = (uint8_t)(i * 7 + 3);
	for (uint32_t y = 0; y < s.h; y++)
		for (uint32_t x = 0; x < s.w; x++) raw[y * b + x] = pattern(x, y, 0);
	size_t n;
	uint8_t *d = make_pcx(&s, raw, pal, NULL, &n);
	gsio_image im;
	gsio_error err;
	gsio_arena *a;
	assert_true(decode(d, n, &im, &err, &a));
	assert_int_equal(im.width, s.w);
	assert_int_equal(im.height, s.h);
	for (uint32_t y = 0; y < s.h; y++)
		for (uint32_t x = 0; x < s.w; x++) {
			const uint8_t *px = im.rgba + 4 * ((size_t)y * s.w + x), *e = pal + 3 * raw[y * b + x];
			assert_memory_equal(px, e, 3);
			assert_int_equal(px[3], 255);
		}
	// The indexed form: the stored indices (padding dropped), the palette in RGBA.
	assert_non_null(im.indices);
	assert_int_equal(im.palette_count, 256);
	for (uint32_t y = 0; y < s.h; y++)
		for (uint32_t x = 0; x < s.w; x++)
			assert_int_equal(im.indices[(size_t)y * s.w + x], raw[y * b + x]);
	for (int k = 0; k < 256; k++) {
		assert_memory_equal(im.palette + 4 * k, pal + 3 * k, 3);
		assert_int_equal(im.palette[4 * k + 3], 255);
	}
	// The same through the image-file entry point (stb_image does not read PCX).
	gsio_image im2;
	memset(&im2, 0, sizeof(im2));
	assert_true(gsioi_image_file_decode(d, n, "t.pcx", a, &im2, &err));
	assert_memory_equal(im2.rgba, im.rgba, (size_t)s.w * s.h * 4);
	gsioi_arena_destroy(a);
	free(d);
	free(raw);
}

static void test_8bit_palettised(void **state)
{
	(void)state;
	check_8bit(true, false, 0);
	check_8bit(true, true, 0);   // runs across rows
	check_8bit(false, false, 0); // stored
	check_8bit(true, false, 44); // padded rows
}

static void check_planes(unsigned planes, bool cross_rows)
{
	pcx_spec s = {.w = 21, .h = 6, .bits = 8, .planes = (uint8_t)planes, .rle = true,
	              .cross_rows = cross_rows};
	uint16_t b = spec_bpl(&s);
	size_t row = (size_t)planes * b;
	uint8_t *raw = calloc(row * s.h, 1);
	for (uint32_t y = 0; y < s.h; y++)
		for (unsigned k = 0; k < planes; k++)
			for (uint32_t x = 0; x < s.w; x++) raw[y * row + k * b + x] = pattern(x, y, k);
	size_t n;
	uint8_t *d = make_pcx(&s, raw, NULL, NULL, &n);
	gsio_image im;
	gsio_error err;
	gsio_arena *a;
	assert_true(decode(d, n, &im, &err, &a));
	assert_null(im.indices); // RGB(A) planes: no indexed form
	for (uint32_t y = 0; y < s.h; y++)
		for (uint32_t x = 0; x < s.w; x++) {
			const uint8_t *px = im.rgba + 4 * ((size_t)y * s.w + x);
			for (unsigned k = 0; k < 3; k++) assert_int_equal(px[k], pattern(x, y, k));
			assert_int_equal(px[3], planes == 4 ? pattern(x, y, 3) : 255);
		}
	gsioi_arena_destroy(a);
	free(d);
	free(raw);
}

static void test_rgb_and_rgba_planes(void **state)
{
	(void)state;
	check_planes(3, false);
	check_planes(3, true);
	check_planes(4, false);
}

static void test_16_colour_and_mono(void **state)
{
	(void)state;
	uint8_t cmap[48];
	for (int i = 0; i < 48; i++) cmap[i] = (uint8_t)(i * 5 + 1);
	// 4 bits, one plane: two pixels a byte, high nibble first.
	pcx_spec s4 = {.w = 7, .h = 3, .bits = 4, .planes = 1, .rle = true};
	uint16_t b4 = spec_bpl(&s4);
	uint8_t raw4[3 * 4] = {0};
	for (uint32_t y = 0; y < 3; y++)
		for (uint32_t x = 0; x < 7; x++)
			raw4[y * b4 + x / 2] |= (uint8_t)(((x + y * 3) % 16) << (x % 2 ? 0 : 4));
	// 1 bit, four planes (EGA): plane k holds bit k of the index.
	pcx_spec se = {.w = 11, .h = 2, .bits = 1, .planes = 4, .rle = true};
	uint16_t be = spec_bpl(&se);
	uint8_t rawe[2 * 4 * 2] = {0};
	for (uint32_t y = 0; y < 2; y++)
		for (uint32_t x = 0; x < 11; x++)
			for (unsigned k = 0; k < 4; k++)
				if (((x + y * 5) % 16) >> k & 1)
					rawe[y * 4 * be + k * be + x / 8] |= (uint8_t)(0x80 >> (x % 8));
	// 1 bit, one plane: black and white.
	pcx_spec sm = {.w = 10, .h = 2, .bits = 1, .planes = 1, .rle = false};
	uint8_t rawm[2 * 2] = {0xA5, 0x40, 0x0F, 0xC0};
	const pcx_spec *specs[3] = {&s4, &se, &sm};
	const uint8_t *raws[3] = {raw4, rawe, rawm};
	for (int c = 0; c < 3; c++) {
		size_t n;
		uint8_t *d = make_pcx(specs[c], raws[c], NULL, cmap, &n);
		gsio_image im;
		gsio_error err;
		gsio_arena *a;
		assert_true(decode(d, n, &im, &err, &a));
		for (uint32_t y = 0; y < specs[c]->h; y++)
			for (uint32_t x = 0; x < specs[c]->w; x++) {
				const uint8_t *px = im.rgba + 4 * ((size_t)y * specs[c]->w + x);
				if (c == 2) {
					unsigned bit = rawm[y * 2 + x / 8] >> (7 - x % 8) & 1;
					assert_int_equal(px[0], bit ? 255 : 0);
					assert_int_equal(px[2], bit ? 255 : 0);
				} else {
					unsigned idx = c == 0 ? (x + y * 3) % 16 : (x + y * 5) % 16;
					assert_memory_equal(px, cmap + 3 * idx, 3);
				}
				assert_int_equal(px[3], 255);
			}
		gsioi_arena_destroy(a);
		free(d);
	}
}

// -- Damage

static uint8_t *sample_8bit(size_t *n)
{
	pcx_spec s = {.w = 13, .h = 5, .bits = 8, .planes = 1, .rle = true};
	uint16_t b = spec_bpl(&s);
	uint8_t raw[14 * 5], pal[768];
	memset(raw, 0, sizeof(raw));
	for (uint32_t y = 0; y < 5; y++)
		for (uint32_t x = 0; x < 13; x++) raw[y * b + x] = pattern(x, y, 0);
	for (int i = 0; i < 768; i++) pal[i] = (uint8_t)i;
	return make_pcx(&s, raw, pal, NULL, n);
}

static void test_truncated_at_every_byte(void **state)
{
	(void)state;
	size_t n;
	uint8_t *full = sample_8bit(&n);
	pcx_spec s = {.w = 9, .h = 4, .bits = 8, .planes = 3, .rle = true};
	uint8_t raw[10 * 3 * 4];
	for (size_t i = 0; i < sizeof(raw); i++) raw[i] = (uint8_t)(i * 13);
	size_t n3;
	uint8_t *rgb = make_pcx(&s, raw, NULL, NULL, &n3);
	for (int f = 0; f < 2; f++) {
		const uint8_t *src = f ? rgb : full;
		size_t len = f ? n3 : n;
		for (size_t cut = 0; cut < len; cut++) {
			uint8_t *d = t_prefix_copy(src, cut);
			gsio_image im;
			gsio_error err;
			gsio_arena *a;
			bool ok = decode(d, cut, &im, &err, &a);
			assert_false(ok);
			assert_true(err.code == GSIO_ERR_TRUNCATED || err.code == GSIO_ERR_CORRUPT);
			assert_true(err.message[0] != 0);
			assert_null(im.rgba);
			gsioi_arena_destroy(a);
			free(d);
		}
	}
	free(full);
	free(rgb);
}

static void test_huge_claims(void **state)
{
	(void)state;
	size_t n;
	uint8_t *d = sample_8bit(&n);
	// 16384 x 16384 claimed in a file of a few hundred bytes: refused before
	// any allocation.
	d[8] = d[10] = 0xFF;
	d[9] = d[11] = 0x3F;
	d[66] = 0x00;
	d[67] = 0x40;
	expect_refused("16384 x 16384", d, n, GSIO_ERR_TRUNCATED, NULL);
	// One pixel past the limit.
	d[9] = d[11] = 0x40;
	d[8] = d[10] = 0x00;
	expect_refused("past the limit", d, n, GSIO_ERR_LIMIT, NULL);
	free(d);
}

static void test_header_errors(void **state)
{
	(void)state;
	struct {
		size_t at;
		uint8_t v;
		gsio_error_code code;
	} cases[] = {
	    {0, 0x0B, GSIO_ERR_CORRUPT},      // not the manufacturer byte
	    {1, 1, GSIO_ERR_CORRUPT},         // unknown version
	    {2, 2, GSIO_ERR_CORRUPT},         // unknown encoding
	    {3, 2, GSIO_ERR_UNSUPPORTED},     // 2-bit CGA
	    {65, 2, GSIO_ERR_UNSUPPORTED},    // 8-bit in 2 planes
	    {66, 4, GSIO_ERR_CORRUPT},        // rows too short for 13 pixels
	    {8, 0, GSIO_ERR_CORRUPT},         // xmax < xmin (xmin set below)
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n;
		uint8_t *d = sample_8bit(&n);
		d[cases[i].at] = cases[i].v;
		if (cases[i].at == 8) d[4] = 5;
		char what[32];
		snprintf(what, sizeof(what), "case %zu", i);
		expect_refused(what, d, n, cases[i].code, NULL);
		free(d);
	}
	// The palette marker missing.
	size_t n;
	uint8_t *d = sample_8bit(&n);
	d[n - 769] = 0;
	expect_refused("no palette marker", d, n, GSIO_ERR_CORRUPT, "palette");
	free(d);
}

static void test_random_damage(void **state)
{
	(void)state;
	size_t n;
	uint8_t *full = sample_8bit(&n);
	uint32_t rng = 12345;
	size_t ok = 0;
	for (int iter = 0; iter < 20000; iter++) {
		uint8_t *d = malloc(n);
		memcpy(d, full, n);
		int flips = 1 + iter % 8;
		for (int k = 0; k < flips; k++) {
			rng = rng * 1664525u + 1013904223u;
			size_t at = (rng >> 8) % (iter % 2 ? 128 : n);
			rng = rng * 1664525u + 1013904223u;
			d[at] = (uint8_t)(rng >> 24);
		}
		gsio_image im;
		gsio_error err;
		gsio_arena *a;
		if (decode(d, n, &im, &err, &a)) {
			ok++;
			size_t px = (size_t)im.width * im.height * 4;
			unsigned sum = 0;
			for (size_t i = 0; i < px; i++) sum += im.rgba[i]; // every byte written
			volatile unsigned sink = sum;
			(void)sink;
		} else {
			assert_true(err.code != GSIO_OK && err.message[0]);
		}
		gsioi_arena_destroy(a);
		free(d);
	}
	free(full);
	print_message("random damage: %zu of 20000 still decode\n", ok);
}

// -- Real files

static void test_corpus_palette_files(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *rel[] = {"wmp/palette.pcx", "lottershock/Game/Level/palette.pcx"};
	for (size_t i = 0; i < 2; i++) {
		size_t n;
		uint8_t *d = t_read_file(t_corpus_path(rel[i]), &n);
		gsio_image im;
		gsio_error err;
		gsio_arena *a;
		if (!decode(d, n, &im, &err, &a)) fail_msg("%s: %s", rel[i], err.message);
		gsioi_pcx_info info;
		assert_true(gsioi_pcx_parse(d, n, rel[i], &info, &err));
		print_message("%s: %u x %u, %u bits x %u planes, %u bytes a row\n", rel[i], im.width,
		              im.height, info.bits, info.planes, info.bytes_per_line);
		// Each pixel is a colour of the file's own palette.
		const uint8_t *pal = d + n - 768;
		for (size_t p = 0; p < (size_t)im.width * im.height; p++) {
			bool found = false;
			for (int c = 0; c < 256 && !found; c++) found = !memcmp(pal + 3 * c, im.rgba + 4 * p, 3);
			assert_true(found);
		}
		// And the palette loader (common/palette.c) still takes it.
		gsioi_arena_destroy(a);
		free(d);
	}
}

/* A real level model whose external texture is a .pcx (absent from the
 * corpus): copied with a generated room_atlas_01.pcx into a temporary
 * folder, it loads with that texture and no warning about it. */
static void test_model_with_pcx_texture(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char dir[] = "/tmp/gsio_pcx_XXXXXX";
	assert_non_null(mkdtemp(dir));
	size_t n;
	uint8_t *mdl = t_read_file(t_corpus_path("lottershock/Game/Level/corridor_01_end.mdl"), &n);
	char path[256], tex[256];
	snprintf(path, sizeof(path), "%s/corridor_01_end.mdl", dir);
	snprintf(tex, sizeof(tex), "%s/room_atlas_01.pcx", dir);
	t_write_file(path, mdl, n);
	free(mdl);
	pcx_spec s = {.w = 64, .h = 32, .bits = 8, .planes = 3, .rle = true};
	uint8_t *raw = calloc((size_t)3 * 64 * 32, 1);
	for (uint32_t y = 0; y < 32; y++)
		for (unsigned k = 0; k < 3; k++)
			for (uint32_t x = 0; x < 64; x++) raw[(y * 3 + k) * 64 + x] = pattern(x, y, k);
	size_t pn;
	uint8_t *pcx = make_pcx(&s, raw, NULL, NULL, &pn);
	t_write_file(tex, pcx, pn);
	gsio_error err;
	gsio_error_clear(&err);
	gsio_scene *sc = t_load_ok(path, NULL);
	bool found = false;
	for (size_t i = 0; i < sc->images_count; i++)
		if (sc->images[i].rgba && sc->images[i].width == 64 && sc->images[i].height == 32) {
			found = true;
			assert_int_equal(sc->images[i].rgba[0], pattern(0, 0, 0));
			assert_int_equal(sc->images[i].rgba[4 * 65 + 2], pattern(1, 1, 2));
		}
	assert_true(found);
	for (size_t i = 0; i < sc->warnings_count; i++) assert_null(strstr(sc->warnings[i], "pcx"));
	gsio_scene_free(sc);
	unlink(path);
	unlink(tex);
	rmdir(dir);
	free(pcx);
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_8bit_palettised),
	    cmocka_unit_test(test_rgb_and_rgba_planes),
	    cmocka_unit_test(test_16_colour_and_mono),
	    cmocka_unit_test(test_truncated_at_every_byte),
	    cmocka_unit_test(test_huge_claims),
	    cmocka_unit_test(test_header_errors),
	    cmocka_unit_test(test_random_damage),
	    cmocka_unit_test(test_corpus_palette_files),
	    cmocka_unit_test(test_model_with_pcx_texture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
