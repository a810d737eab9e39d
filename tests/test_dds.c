/* DDS decoding (common/dds.c): hand-built blocks with known colours for each
 * variant and mode, partial edge blocks, every truncation, huge size claims,
 * header errors, the corpus's type-6 skins against figures from an
 * independent decoder (tests/dds_ref.py), and random blocks against libsquish
 * when its shared library is on the machine (loaded with dlopen, so it is no
 * build dependency; the test says when it skips). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "gsioi_dds.h"
#include "gsioi_png.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Building DDS files

static void put32(uint8_t *d, size_t at, uint32_t v)
{
	for (int k = 0; k < 4; k++) d[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}

static size_t block_bytes(const char *cc)
{
	return strcmp(cc, "DXT1") ? 16 : 8;
}

// A DDS file as MED writes it (flags 0x81007, no mips): header + `blocks`
// (the caller fills them after the header). malloc'd; *size set.
static uint8_t *make_dds(uint32_t w, uint32_t h, const char *cc, size_t *size)
{
	size_t blocks = ((size_t)w + 3) / 4 * (((size_t)h + 3) / 4) * block_bytes(cc);
	*size = 128 + blocks;
	uint8_t *d = calloc(1, *size);
	assert_non_null(d);
	memcpy(d, "DDS ", 4);
	put32(d, 4, 124);
	put32(d, 8, 0x81007);
	put32(d, 12, h);
	put32(d, 16, w);
	put32(d, 20, (uint32_t)blocks);
	put32(d, 76, 32);
	put32(d, 80, 4); // DDPF_FOURCC
	memcpy(d + 84, cc, 4);
	put32(d, 108, 0x1000);
	return d;
}

// A DXT1/colour block: end points c0, c1 and pixel i's index idx[i].
static void colour_block(uint8_t *b, uint16_t c0, uint16_t c1, const uint8_t idx[16])
{
	b[0] = (uint8_t)c0;
	b[1] = (uint8_t)(c0 >> 8);
	b[2] = (uint8_t)c1;
	b[3] = (uint8_t)(c1 >> 8);
	uint32_t bits = 0;
	for (int i = 0; i < 16; i++) bits |= (uint32_t)(idx[i] & 3) << (2 * i);
	put32(b, 4, bits);
}

static const char *const dxt_codes[3] = {"DXT1", "DXT3", "DXT5"};

static const uint8_t idx0123[16] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};

// -- Blocks

static void test_dxt1_four_colours(void **state)
{
	(void)state;
	uint8_t b[8], px[64];
	// Red > blue: 4 colours, thirds rounded down; all opaque.
	colour_block(b, 0xF800, 0x001F, idx0123);
	gsioi_dds_decode_block(GSIOI_DDS_DXT1, b, px);
	t_assert_pixels(px, (const uint8_t[]){255, 0, 0, 255, 0, 0, 255, 255, 170, 0, 85, 255,
	                                      85, 0, 170, 255}, 4);
	t_assert_px(px + 60, 85, 0, 170, 255);
	// Bit replication: 0xFFE0 is yellow 255 (not 248/252), 0x0841 is (8, 8, 8).
	colour_block(b, 0xFFE0, 0x0841, idx0123);
	gsioi_dds_decode_block(GSIOI_DDS_DXT1, b, px);
	t_assert_pixels(px, (const uint8_t[]){255, 255, 0, 255, 8, 8, 8, 255, 172, 172, 2, 255,
	                                      90, 90, 5, 255}, 4);
}

static void test_dxt1_three_colours_and_transparent(void **state)
{
	(void)state;
	uint8_t b[8], px[64];
	// Blue <= red: 3 colours (midpoint) and transparent black at index 3.
	colour_block(b, 0x001F, 0xF800, idx0123);
	gsioi_dds_decode_block(GSIOI_DDS_DXT1, b, px);
	t_assert_pixels(px, (const uint8_t[]){0, 0, 255, 255, 255, 0, 0, 255, 127, 0, 127, 255, 0, 0, 0, 0}, 4);
	// Equal end points also take the 3-colour mode.
	colour_block(b, 0xFFFF, 0xFFFF, idx0123);
	gsioi_dds_decode_block(GSIOI_DDS_DXT1, b, px);
	t_assert_px(px + 8, 255, 255, 255, 255);
	t_assert_px(px + 12, 0, 0, 0, 0);
}

static void test_dxt3_explicit_alpha(void **state)
{
	(void)state;
	uint8_t b[16], px[64];
	// Alphas 0..15 in pixel order (low nibble first), widened by 17.
	for (int i = 0; i < 8; i++) b[i] = (uint8_t)((2 * i) | (2 * i + 1) << 4);
	// c0 <= c1 does not select the 3-colour mode outside DXT1: index 3 is
	// a colour (2/3 of the way to c1), not transparent black.
	colour_block(b + 8, 0x001F, 0xF800, idx0123);
	gsioi_dds_decode_block(GSIOI_DDS_DXT3, b, px);
	for (int i = 0; i < 16; i++) assert_int_equal(px[4 * i + 3], 17 * i);
	t_assert_px(px + 0, 0, 0, 255, 0);
	t_assert_px(px + 8, 85, 0, 170, 34);
	t_assert_px(px + 12, 170, 0, 85, 51);
}

static void dxt5_alpha_block(uint8_t *b, uint8_t a0, uint8_t a1, const uint8_t idx[16])
{
	b[0] = a0;
	b[1] = a1;
	uint64_t bits = 0;
	for (int i = 0; i < 16; i++) bits |= (uint64_t)(idx[i] & 7) << (3 * i);
	for (int i = 0; i < 6; i++) b[2 + i] = (uint8_t)(bits >> (8 * i));
}

static void test_dxt5_interpolated_alpha(void **state)
{
	(void)state;
	uint8_t b[16], px[64];
	const uint8_t idx[16] = {0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0};
	colour_block(b + 8, 0xFFFF, 0x0000, idx0123);
	// a0 > a1: 8 levels, sevenths rounded down.
	dxt5_alpha_block(b, 255, 0, idx);
	gsioi_dds_decode_block(GSIOI_DDS_DXT5, b, px);
	const int eight[8] = {255, 0, 218, 182, 145, 109, 72, 36};
	for (int i = 0; i < 16; i++) assert_int_equal(px[4 * i + 3], eight[idx[i]]);
	t_assert_px(px + 0, 255, 255, 255, 255);
	t_assert_px(px + 12, 85, 85, 85, 182);
	// a0 <= a1: 6 levels, fifths, then the constants 0 and 255.
	dxt5_alpha_block(b, 0, 255, idx);
	gsioi_dds_decode_block(GSIOI_DDS_DXT5, b, px);
	const int six[8] = {0, 255, 51, 102, 153, 204, 0, 255};
	for (int i = 0; i < 16; i++) assert_int_equal(px[4 * i + 3], six[idx[i]]);
	// Equal end points: still the 6-level mode.
	dxt5_alpha_block(b, 100, 100, idx);
	gsioi_dds_decode_block(GSIOI_DDS_DXT5, b, px);
	assert_int_equal(px[4 * 2 + 3], 100);
	assert_int_equal(px[4 * 6 + 3], 0);
	assert_int_equal(px[4 * 7 + 3], 255);
}

// -- Images

static gsio_arena *arena_of(size_t limit)
{
	gsio_arena *a = gsioi_arena_create(NULL, limit);
	assert_non_null(a);
	return a;
}

/* One gsioi_dds_decode() into a fresh arena (`limit`, 0: none): the image,
 * the info (when `with_info`; the decoder takes NULL too), the error and
 * whether it decoded; the caller destroys the arena. */
typedef struct dds_run {
	gsio_arena *arena;
	gsio_image im;
	gsioi_dds_info info;
	gsio_error err;
	bool ok;
} dds_run;

static dds_run dds_decode(const uint8_t *d, size_t size, const char *name, int64_t at, size_t limit,
                          bool with_info)
{
	dds_run r;
	memset(&r, 0, sizeof(r));
	r.arena = arena_of(limit);
	gsio_error_clear(&r.err);
	r.ok = gsioi_dds_decode(d, size, name, at, r.arena, &r.im, with_info ? &r.info : NULL, &r.err);
	return r;
}

static void test_partial_blocks(void **state)
{
	(void)state;
	// 5 x 6 DXT1: 2 x 2 blocks, each a solid colour of its own, so every
	// pixel shows which block (and which texel of it) it came from.
	size_t size;
	uint8_t *d = make_dds(5, 6, "DXT1", &size);
	assert_int_equal(size, 128 + 4 * 8);
	const uint16_t colour[4] = {0xF800, 0x07E0, 0x001F, 0xFFFF};
	for (int k = 0; k < 4; k++) {
		uint8_t idx[16];
		// Pixel (x, y) of a block: index 0 except index 1 (black) at (3, 3).
		for (int i = 0; i < 16; i++) idx[i] = i == 15 ? 1 : 0;
		colour_block(d + 128 + 8 * k, colour[k], 0x0000, idx);
	}
	dds_run r = dds_decode(d, size, "t.dds", 0, 0, true);
	assert_true(r.ok);
	assert_int_equal(r.im.width, 5);
	assert_int_equal(r.im.height, 6);
	assert_int_equal(r.info.format, GSIOI_DDS_DXT1);
	assert_int_equal(r.info.mip_count, 1);
	assert_int_equal(r.info.top_size, 32);
	const uint8_t rgb[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 255}};
	for (uint32_t y = 0; y < 6; y++)
		for (uint32_t x = 0; x < 5; x++) {
			const uint8_t *p = r.im.rgba + (y * 5 + x) * 4;
			int k = (y >= 4) * 2 + (x >= 4);
			if (x == 3 && y == 3) // the only visible (3, 3) of a block
				t_assert_px(p, 0, 0, 0, 255);
			else
				t_assert_px(p, rgb[k][0], rgb[k][1], rgb[k][2], 255);
		}
	gsioi_arena_destroy(r.arena);
	free(d);
}

static void test_one_pixel_each_format(void **state)
{
	(void)state;
	for (int f = 0; f < 3; f++) {
		size_t size;
		uint8_t *d = make_dds(1, 1, dxt_codes[f], &size);
		size_t at = 128 + (f ? 8 : 0);
		colour_block(d + at, 0x07E0, 0, idx0123); // pixel 0: index 0, green
		if (f == 1) d[128] = 0x07;                 // DXT3 alpha 7 * 17
		if (f == 2) d[128] = 99;                   // DXT5 a0, index 0
		dds_run r = dds_decode(d, size, "t.dds", 0, 0, false);
		assert_true(r.ok);
		assert_int_equal(r.im.width, 1);
		assert_int_equal(r.im.height, 1);
		t_assert_px(r.im.rgba, 0, 255, 0, f == 0 ? 255 : f == 1 ? 119 : 99);
		gsioi_arena_destroy(r.arena);
		free(d);
	}
}

static void test_truncated_at_every_byte(void **state)
{
	(void)state;
	for (int f = 0; f < 3; f++) {
		size_t size;
		uint8_t *d = make_dds(6, 7, dxt_codes[f], &size);
		for (size_t n = 0; n < size; n++) {
			uint8_t *cut = t_prefix_copy(d, n);
			dds_run r = dds_decode(cut, n, "m.mdl", 1000, 0, false);
			assert_false(r.ok);
			assert_int_equal(r.err.code, GSIO_ERR_TRUNCATED);
			// Offsets point into the containing file: the DDS's start for
			// its header, the blocks' start for the blocks.
			assert_int_equal(r.err.offset, n < 128 ? 1000 : 1128);
			assert_null(r.im.rgba);
			assert_int_equal(gsioi_arena_used(r.arena), 0);
			gsioi_arena_destroy(r.arena);
			free(cut);
		}
		// Whole: decodes; extra bytes (mips, padding) after the top level are fine.
		dds_run r = dds_decode(d, size, "m.mdl", 1000, 0, false);
		assert_true(r.ok);
		gsioi_arena_destroy(r.arena);
		free(d);
	}
}

static void expect_fail(const uint8_t *d, size_t size, gsio_error_code code, const char *text)
{
	dds_run r = dds_decode(d, size, "t.dds", 0, (size_t)1 << 20, false);
	assert_false(r.ok);
	if (r.err.code != code) fail_msg("code %d, expected %d: %s", r.err.code, code, r.err.message);
	if (text && !strstr(r.err.message, text))
		fail_msg("message '%s' does not say '%s'", r.err.message, text);
	assert_null(r.im.rgba);
	gsioi_arena_destroy(r.arena);
}

static void test_huge_claims(void **state)
{
	(void)state;
	size_t size;
	uint8_t *d = make_dds(4, 4, "DXT5", &size);
	// Height and width claimed in the header of 16 bytes of blocks.
	static const struct {
		uint32_t h, w;
		gsio_error_code code;
		const char *text;
	} claims[] = {
	    // 16384 x 16384 DXT5 would need 256 MiB of blocks: refused as
	    // truncated before anything is allocated (expect_fail's arena allows
	    // 1 MiB, and test_truncated_at_every_byte shows nothing is allocated
	    // on that path).
	    {16384, 16384, GSIO_ERR_TRUNCATED, "needs 268435456 bytes"},
	    // Beyond the dimension limit, and the largest u32.
	    {16384, 16385, GSIO_ERR_LIMIT, "16385"},
	    {0xFFFFFFFF, 0xFFFFFFFF, GSIO_ERR_LIMIT, "limit"},
	    {0, 4, GSIO_ERR_CORRUPT, "4 x 0"},
	};
	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		put32(d, 12, claims[i].h);
		put32(d, 16, claims[i].w);
		expect_fail(d, size, claims[i].code, claims[i].text);
	}
	free(d);
	// All blocks present, but the RGBA image (4 MiB) exceeds the arena's
	// 1 MiB limit: the arena's limit error.
	d = make_dds(1024, 1024, "DXT1", &size);
	expect_fail(d, size, GSIO_ERR_LIMIT, "memory limit");
	free(d);
}

static void test_header_errors(void **state)
{
	(void)state;
	size_t size;
	uint8_t *d = make_dds(4, 4, "DX10", &size);
	expect_fail(d, size, GSIO_ERR_UNSUPPORTED, "'DX10'");
	memcpy(d + 84, "DXT2", 4); // premultiplied alpha: not decoded as DXT3
	expect_fail(d, size, GSIO_ERR_UNSUPPORTED, "'DXT2'");
	memcpy(d + 84, "\x01\xff\0\0", 4);
	expect_fail(d, size, GSIO_ERR_UNSUPPORTED, "'?\?\?\?' (0x0000ff01)");
	memcpy(d + 84, "DXT1", 4);
	put32(d, 80, 0x41); // DDPF_RGB | DDPF_ALPHAPIXELS
	put32(d, 88, 32);
	expect_fail(d, size, GSIO_ERR_UNSUPPORTED, "uncompressed");
	put32(d, 80, 4);
	put32(d, 112, 0xFE00); // cube map, all faces
	expect_fail(d, size, GSIO_ERR_UNSUPPORTED, "cube map");
	put32(d, 112, 0);
	put32(d, 4, 0);
	expect_fail(d, size, GSIO_ERR_CORRUPT, "header size 0");
	put32(d, 4, 124);
	put32(d, 76, 24);
	expect_fail(d, size, GSIO_ERR_CORRUPT, "pixel format size 24");
	put32(d, 76, 32);
	memcpy(d, "\x89PNG", 4);
	expect_fail(d, size, GSIO_ERR_CORRUPT, "'?PNG'");
	memcpy(d, "DDS ", 4);
	// The header with a mip count: counted, only the top level decoded.
	put32(d, 8, 0x81007 | 0x20000);
	put32(d, 28, 3);
	dds_run r = dds_decode(d, size, "t.dds", 0, 0, true);
	assert_true(r.ok);
	assert_int_equal(r.info.mip_count, 3);
	gsioi_arena_destroy(r.arena);
	free(d);
}

// -- Corpus

// FNV-1a 64 of the RGBA image, as tests/dds_ref.py prints it.
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3u;
	}
	return h;
}

// The corpus's type-6 skins (gsioi_dds.h), with what tests/dds_ref.py (a
// separate Python decoder) says of them. None uses DXT1's transparent
// black, so every pixel is opaque.
typedef struct corpus_skin {
	const char *path;
	size_t record;      // offset of the 28-byte MDL7 skin record
	uint32_t w, h;
	size_t colours_min; // distinct colours (a lower bound: the image is not flat)
	uint64_t fnv;
	uint32_t x, y;      // one pixel and its value
	uint8_t px[4];
} corpus_skin;

static const corpus_skin corpus_skins[] = {
	{"lottershock/Game/Assets/KisteA.mdl", 92, 511, 511, 3637, 0x2069ba57b543bfebu, 255, 255,
	 {27, 35, 55, 255}},
	{"lottershock/Game/Assets/whiskas.mdl", 272, 870, 870, 7615, 0xd324fa28d731dd06u, 869, 869,
	 {16, 20, 20, 255}},
	{"lottershock/Game/Assets/flamemother.mdl", 92, 1024, 1024, 7635, 0xaed95d614aca26e3u, 512,
	 512, {24, 20, 24, 255}},
	{"lottershock/ArtSource/weapons/MotherFlame/flamemother.mdl", 92, 1024, 1024, 7635,
	 0xaed95d614aca26e3u, 512, 512, {24, 20, 24, 255}},
	{"lottershock/Game/Assets/trident_of_lightning.mdl", 596, 1024, 1024, 3738,
	 0xd6490e6c4a566180u, 512, 512, {24, 227, 189, 255}},
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static size_t distinct_colours(const uint8_t *rgba, size_t n)
{
	uint32_t *v = malloc(n * 4);
	assert_non_null(v);
	memcpy(v, rgba, n * 4);
	qsort(v, n, 4, cmp_u32);
	size_t d = n ? 1 : 0;
	for (size_t i = 1; i < n; i++) d += v[i] != v[i - 1];
	free(v);
	return d;
}

/* The DDS file of corpus skin c (file: the whole model, to free): the MDL7
 * skin record is type 6, width = the DDS's byte count, height 1, then the
 * DDS file itself. */
static const uint8_t *corpus_dds(const corpus_skin *c, uint8_t **file, uint32_t *bytes)
{
	size_t size;
	*file = t_read_file(t_corpus_path(c->path), &size);
	assert_true(size > c->record + 28);
	const uint8_t *rec = *file + c->record;
	assert_int_equal(rec[0], 6);
	*bytes = (uint32_t)rec[4] | (uint32_t)rec[5] << 8 | (uint32_t)rec[6] << 16 | (uint32_t)rec[7] << 24;
	assert_int_equal(rec[8], 1);
	assert_true(*bytes <= size - c->record - 28);
	return rec + 28;
}

static void test_corpus_skins(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (size_t k = 0; k < sizeof(corpus_skins) / sizeof(corpus_skins[0]); k++) {
		const corpus_skin *c = &corpus_skins[k];
		uint8_t *file;
		uint32_t bytes;
		const uint8_t *dds = corpus_dds(c, &file, &bytes);
		dds_run r = dds_decode(dds, bytes, c->path, (int64_t)c->record + 28, 0, true);
		if (!r.ok) fail_msg("%s: %s", c->path, r.err.message);
		assert_int_equal(r.im.width, c->w);
		assert_int_equal(r.im.height, c->h);
		assert_int_equal(r.info.format, GSIOI_DDS_DXT1);
		assert_int_equal(r.info.mip_count, 1);
		assert_int_equal(128 + r.info.top_size, bytes); // nothing after the top level
		size_t n = (size_t)r.im.width * r.im.height;
		for (size_t i = 0; i < n; i++)
			if (r.im.rgba[4 * i + 3] != 255) fail_msg("%s: pixel %zu not opaque", c->path, i);
		assert_true(distinct_colours(r.im.rgba, n) >= c->colours_min);
		const uint8_t *p = r.im.rgba + ((size_t)c->y * r.im.width + c->x) * 4;
		t_assert_px(p, c->px[0], c->px[1], c->px[2], c->px[3]);
		uint64_t h = fnv1a(r.im.rgba, n * 4);
		if (h != c->fnv)
			fail_msg("%s: image hash 0x%llx, tests/dds_ref.py says 0x%llx", c->path,
			         (unsigned long long)h, (unsigned long long)c->fnv);
		print_message("%s: DXT1 %u x %u, %zu colours\n", c->path, r.im.width, r.im.height,
		              distinct_colours(r.im.rgba, n));
		gsioi_arena_destroy(r.arena);
		free(file);
	}
}

// -- PNG straight from DDS

/* gsioi_png_encode_dds must write the PNG gsioi_png_encode writes from the
 * decoded pixels, byte for byte. */
static void expect_same_png(const uint8_t *dds, size_t size, int colour_type)
{
	dds_run r = dds_decode(dds, size, NULL, 0, 0, false);
	if (!r.ok) fail_msg("%s", r.err.message);
	uint8_t *want, *got;
	size_t want_size, got_size;
	if (gsioi_png_encode(r.im.rgba, r.im.width, r.im.height, &want, &want_size, &r.err))
		fail_msg("%s", r.err.message);
	if (gsioi_png_encode_dds(dds, size, &got, &got_size, &r.err)) fail_msg("%s", r.err.message);
	assert_int_equal(got_size, want_size);
	assert_memory_equal(got, want, want_size);
	assert_int_equal(got[25], colour_type);
	free(want);
	free(got);
	gsioi_arena_destroy(r.arena);
}

static void test_png_from_dds(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	static const struct { uint32_t w, h; const char *cc; int type; } cases[] = {
	    {511, 511, "DXT1", 6}, // random DXT1 blocks: some three-colour ones with index 3
	    {700, 601, "DXT1", 6}, // three bands (gsioi_png_part): each starts a band of 4 rows on
	    {870, 3, "DXT3", 6}, {1024, 8, "DXT5", 6},
	    {5, 5, "DXT1", 3}, {64, 1, "DXT5", 3}, // at most 256 pixels: a palette
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		size_t size;
		uint8_t *d = make_dds(cases[k].w, cases[k].h, cases[k].cc, &size);
		for (size_t i = 128; i < size; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			d[i] = (uint8_t)(seed >> 33);
		}
		expect_same_png(d, size, cases[k].type);
		free(d);
	}
	// Opaque DXT1 (c0 > c1 everywhere): RGB rows; many colours.
	size_t size;
	uint8_t *d = make_dds(257, 130, "DXT1", &size);
	for (size_t i = 128; i + 8 <= size; i += 8) {
		uint16_t c0 = (uint16_t)(0x8000 | ((i * 2654435761u) & 0x7fff)), c1 = (uint16_t)(c0 - 1 - (i % 500));
		colour_block(d + i, c0, c1, idx0123);
	}
	expect_same_png(d, size, 2);
	// Index 3 of a three-colour block only in pixels the edge cuts off (x >=
	// 257 % 4 = 1 of the last column of blocks): still opaque.
	static const uint8_t edge_idx[16] = {0, 3, 3, 3, 1, 3, 3, 3, 2, 3, 3, 3, 0, 3, 3, 3};
	size_t across = (257 + 3) / 4;
	for (size_t by = 0; by < (130 + 3) / 4; by++) colour_block(d + 128 + (by * across + across - 1) * 8, 0x1000, 0x2000, edge_idx);
	expect_same_png(d, size, 2);
	// ... and once inside: RGBA.
	colour_block(d + 128, 0x1000, 0x2000, edge_idx);
	expect_same_png(d, size, 6);
	free(d);
	// Few colours: a palette PNG, as from the pixels.
	d = make_dds(300, 200, "DXT1", &size);
	for (size_t i = 128; i + 8 <= size; i += 8) colour_block(d + i, 0xF800, 0x001F, idx0123);
	expect_same_png(d, size, 3);
	free(d);
	// ... over three bands, each looking its rows' indices up from its own
	// band of 4 decoded rows: 8 colour pairs, 32 colours.
	d = make_dds(700, 601, "DXT1", &size);
	for (size_t i = 128; i + 8 <= size; i += 8) {
		uint16_t c0 = (uint16_t)(0x8000 | (((i / 8) % 8) << 11)), c1 = (uint16_t)(0x001F + (((i / 8) % 8) << 5));
		colour_block(d + i, c0, c1, idx0123);
	}
	expect_same_png(d, size, 3);
	// Header errors as the decoder's; no output.
	uint8_t *png = (uint8_t *)1;
	size_t png_size = 1;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_png_encode_dds(d, size - 1, &png, &png_size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	assert_null(png);
	assert_int_equal(png_size, 0);
	d[0] = 'X';
	gsio_error_clear(&err);
	assert_int_not_equal(gsioi_png_encode_dds(d, size, &png, &png_size, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	free(d);
}

/* The corpus's type-6 skins: the same PNG both ways. */
static void test_png_from_corpus_dds(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (size_t k = 0; k < sizeof(corpus_skins) / sizeof(corpus_skins[0]); k++) {
		uint8_t *file;
		uint32_t bytes;
		const uint8_t *dds = corpus_dds(&corpus_skins[k], &file, &bytes);
		expect_same_png(dds, bytes, 2);
		free(file);
	}
}

// -- libsquish cross-check

// squish::Decompress(u8 *rgba, void const *block, int flags), a plain
// function of the C++ library; flags kDxt1 = 1, kDxt3 = 2, kDxt5 = 4.
typedef void (*squish_decompress_fn)(uint8_t *rgba, const void *block, int flags);

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Block n of a random series: 16 random bytes (DXT1 reads the first 8),
 * where a quarter of the blocks get equal or ordered end points, which
 * random bytes rarely give (the mode switches and their edges). */
static void random_block(uint64_t *seed, gsioi_dds_format fmt, int n, uint8_t block[16])
{
	uint64_t r0 = xorshift(seed), r1 = xorshift(seed);
	memcpy(block, &r0, 8);
	memcpy(block + 8, &r1, 8);
	uint8_t *cb = fmt == GSIOI_DDS_DXT1 ? block : block + 8;
	if (n % 4 == 1) memcpy(cb + 2, cb, 2);
	if (n % 4 == 2 && fmt == GSIOI_DDS_DXT5) block[1] = block[0];
}

static void test_random_blocks_vs_libsquish(void **state)
{
	(void)state;
	void *lib = dlopen("libsquish.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		print_message("SKIPPED: libsquish not installed (%s): no cross-check\n", dlerror());
		skip();
	}
	void *sym = dlsym(lib, "_ZN6squish10DecompressEPhPKvi");
	if (!sym) {
		dlclose(lib);
		print_message("SKIPPED: libsquish has no squish::Decompress\n");
		skip();
	}
	squish_decompress_fn squish;
	memcpy(&squish, &sym, sizeof(squish));
	const gsioi_dds_format fmts[3] = {GSIOI_DDS_DXT1, GSIOI_DDS_DXT3, GSIOI_DDS_DXT5};
	const int flags[3] = {1, 2, 4};
	uint64_t seed = 0x9E3779B97F4A7C15u;
	size_t checked = 0;
	for (int f = 0; f < 3; f++) {
		for (int n = 0; n < 200000; n++) {
			uint8_t block[16], mine[64], theirs[64];
			random_block(&seed, fmts[f], n, block);
			gsioi_dds_decode_block(fmts[f], block, mine);
			squish(theirs, block, flags[f]);
			if (memcmp(mine, theirs, 64)) {
				for (int i = 0; i < 64; i++)
					if (mine[i] != theirs[i])
						fail_msg("format %d block %d byte %d: %d, libsquish %d", (int)fmts[f], n,
						         i, mine[i], theirs[i]);
			}
			checked++;
		}
	}
	print_message("%zu random blocks agree with libsquish\n", checked);
	// Not dlclose()d: the library keeps a small block from its start-up that
	// LeakSanitizer reports as leaked once the library is unloaded.
}

/* The end-point blends, worked out per channel, for every pair of 6-bit
 * values in each channel (red and blue take their low 5 bits): the decoder
 * blends the three channels at once in lanes of one 64-bit word. */
static void test_blends_every_end_point_pair(void **state)
{
	(void)state;
	size_t checked = 0;
	for (unsigned x0 = 0; x0 < 64; x0++)
		for (unsigned x1 = 0; x1 < 64; x1++) {
			unsigned r0 = x0 & 31, g0 = x0, b0 = (x0 * 7) & 31;
			unsigned r1 = x1 & 31, g1 = x1, b1 = (x1 * 11) & 31;
			uint16_t c0 = (uint16_t)(r0 << 11 | g0 << 5 | b0), c1 = (uint16_t)(r1 << 11 | g1 << 5 | b1);
			unsigned e0[3] = {r0 << 3 | r0 >> 2, g0 << 2 | g0 >> 4, b0 << 3 | b0 >> 2};
			unsigned e1[3] = {r1 << 3 | r1 >> 2, g1 << 2 | g1 >> 4, b1 << 3 | b1 >> 2};
			// Indices 0, 1, 2, 3 in the first row: the four palette entries.
			uint8_t colour[8] = {(uint8_t)c0, (uint8_t)(c0 >> 8), (uint8_t)c1, (uint8_t)(c1 >> 8),
			                     0xE4, 0, 0, 0};
			uint8_t dxt3[16] = {0}, px[64];
			memcpy(dxt3 + 8, colour, 8);
			gsioi_dds_decode_block(GSIOI_DDS_DXT3, dxt3, px); // always four colours
			for (int k = 0; k < 3; k++) {
				assert_int_equal(px[0 + k], e0[k]);
				assert_int_equal(px[4 + k], e1[k]);
				assert_int_equal(px[8 + k], (2 * e0[k] + e1[k]) / 3);
				assert_int_equal(px[12 + k], (e0[k] + 2 * e1[k]) / 3);
			}
			gsioi_dds_decode_block(GSIOI_DDS_DXT1, colour, px);
			bool three = c0 <= c1;
			for (int k = 0; k < 3; k++) {
				assert_int_equal(px[8 + k], three ? (e0[k] + e1[k]) / 2 : (2 * e0[k] + e1[k]) / 3);
				assert_int_equal(px[12 + k], three ? 0 : (e0[k] + 2 * e1[k]) / 3);
			}
			assert_int_equal(px[11], 255);
			assert_int_equal(px[15], three ? 0 : 255);
			checked++;
		}
	print_message("%zu end-point pairs blend as per channel\n", checked);
}

/* Where the processor has SSSE3 the pixels are placed by byte shuffles;
 * the portable loop must give the same bytes for every block. */
static void test_simd_matches_portable(void **state)
{
	(void)state;
	const gsioi_dds_format fmts[3] = {GSIOI_DDS_DXT1, GSIOI_DDS_DXT3, GSIOI_DDS_DXT5};
	uint64_t seed = 0x2545F4914F6CDD1Du;
	for (int f = 0; f < 3; f++)
		for (int n = 0; n < 100000; n++) {
			uint8_t block[16], fast[64], portable[64];
			random_block(&seed, fmts[f], n, block);
			gsioi_dds_decode_block(fmts[f], block, fast);
			gsioi_dds_decode_block_portable(fmts[f], block, portable);
			assert_memory_equal(fast, portable, 64);
		}
}

/* The library asks once (gsioi_has_ssse3: glibc's reading, else CPUID): it must say what
 * libgcc's reading says (this test program links that reading; the library's
 * programs do not, see the no_cpu_constructor test). */
static void test_ssse3_detection(void **state)
{
	(void)state;
#ifdef GSIOI_HAVE_SSSE3
	__builtin_cpu_init();
	bool want = __builtin_cpu_supports("ssse3") != 0;
	assert_int_equal(gsioi_has_ssse3(), want); // asked
	assert_int_equal(gsioi_has_ssse3(), want); // kept
	print_message("SSSE3: %s\n", want ? "yes" : "no");
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ssse3_detection),
		cmocka_unit_test(test_dxt1_four_colours),
		cmocka_unit_test(test_dxt1_three_colours_and_transparent),
		cmocka_unit_test(test_dxt3_explicit_alpha),
		cmocka_unit_test(test_dxt5_interpolated_alpha),
		cmocka_unit_test(test_partial_blocks),
		cmocka_unit_test(test_one_pixel_each_format),
		cmocka_unit_test(test_truncated_at_every_byte),
		cmocka_unit_test(test_huge_claims),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_corpus_skins),
		cmocka_unit_test(test_random_blocks_vs_libsquish),
		cmocka_unit_test(test_blends_every_end_point_pair),
		cmocka_unit_test(test_simd_matches_portable),
		cmocka_unit_test(test_png_from_dds),
		cmocka_unit_test(test_png_from_corpus_dds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
