/* WAD textures of a WMP level: 8-bit lumps kept as indices, textures kept
 * as stored with GSIO_OPT_NO_PIXELS, WAD bytes borrowed rather than copied,
 * and lumps stored as DDS. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "wmp_internal.h"
#include "gsioi_png.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put32le(uint8_t *d, size_t at, uint32_t v)
{
	for (int k = 0; k < 4; k++) d[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}

/* A WAD7 with one DDS lump (type `type`): an 8x4 DXT1 file of two blocks,
 * the left one pure red, the right one pure blue (c0 > c1, every index 0).
 * at40: the DDS after the 40-byte lump header (stored width = byte count,
 * height 1, as MDL7 type-6 skins); else the lump is the DDS alone. */
static uint8_t *make_dds_wad(uint32_t type, bool at40, size_t *size)
{
	size_t dds = 128 + 16, lump = dds + (at40 ? 40 : 0);
	*size = 12 + lump + 32;
	uint8_t *d = calloc(1, *size);
	assert_non_null(d);
	memcpy(d, "WAD7", 4);
	put32le(d, 4, 1);
	put32le(d, 8, (uint32_t)(12 + lump));
	uint8_t *l = d + 12, *x = l + (at40 ? 40 : 0);
	if (at40) {
		memcpy(l, "ddstex", 6);
		put32le(l, 16, (uint32_t)dds);
		put32le(l, 20, 1);
		put32le(l, 24, type);
	}
	memcpy(x, "DDS ", 4);
	put32le(x, 4, 124);
	put32le(x, 8, 0x81007);
	put32le(x, 12, 4);  // height
	put32le(x, 16, 8);  // width
	put32le(x, 20, 16); // linear size
	put32le(x, 76, 32);
	put32le(x, 80, 4);
	memcpy(x + 84, "DXT1", 4);
	put32le(x, 108, 0x1000);
	uint8_t *b = x + 128;
	b[0] = 0x00, b[1] = 0xF8, b[2] = 0x00, b[3] = 0x00; // red, black: c0 > c1
	b[8] = 0x1F, b[9] = 0x00, b[10] = 0x00, b[11] = 0x00; // blue, black
	uint8_t *e = d + 12 + lump;
	put32le(e, 0, 12);
	put32le(e, 4, (uint32_t)lump);
	put32le(e, 8, (uint32_t)lump);
	e[12] = (uint8_t)type;
	memcpy(e + 16, "ddstex", 6);
	return d;
}

/* A level of one block textured `tex` from a WAD: the WAD's bytes written
 * as dir/wad_name, a .wmp naming it `wad_ref` beside it, and the level
 * loaded (its files removed again). */
static gsio_scene *load_level_with_wad_opts(const char *dir_template, const char *wad_name,
                                            const char *wad_ref, const char *tex, const uint8_t *d,
                                            size_t size, const gsio_opts *opts)
{
	char dir[64], wad[128], lvl[128], text[640];
	snprintf(dir, sizeof(dir), "%s", dir_template);
	assert_non_null(mkdtemp(dir));
	snprintf(wad, sizeof(wad), "%s/%s", dir, wad_name);
	snprintf(lvl, sizeof(lvl), "%s/l.wmp", dir);
	t_write_file(wad, d, size);
	snprintf(text, sizeof(text),
	         "// WMP2\nversion 710\nblocks 1 entities 0 objects 1\n"
	         "wed { wad { 0 0 0 0 0 <%s> 1 } }\n"
	         "block 0 { vertices 3 faces 1 0 0 0 64 0 0 0 64 0 3 0 1 2 : %s ( 1 0 0 0 ) "
	         "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n"
	         "object 0 { (0 0 0) (0 0 0) (1 1 1) block 0 }\n",
	         wad_ref, tex);
	t_write_file(lvl, (const uint8_t *)text, strlen(text));
	gsio_scene *s = t_load_ok(lvl, opts);
	remove(wad);
	remove(lvl);
	rmdir(dir);
	return s;
}

static gsio_scene *load_level_with_wad(const char *dir_template, const char *wad_name,
                                       const char *wad_ref, const char *tex, const uint8_t *d,
                                       size_t size)
{
	return load_level_with_wad_opts(dir_template, wad_name, wad_ref, tex, d, size, NULL);
}

/* A WAD7 of one texture lump `name` of w x h pixels of WAD7 type `type`,
 * `bpp` bytes a pixel (i * 37 + 5 + (i / 64) * 11 for byte i), the lump's
 * type byte 0 (8-bit) or `type`. *pixels points at them in the WAD. */
static uint8_t *one_lump_wad(const char *name, uint32_t type, uint32_t w, uint32_t h, size_t bpp,
                             size_t *size, uint8_t **pixels)
{
	size_t lump = 40 + (size_t)w * h * bpp;
	*size = 12 + lump + 32;
	uint8_t *d = calloc(1, *size);
	assert_non_null(d);
	memcpy(d, "WAD7", 4);
	put32le(d, 4, 1);
	put32le(d, 8, (uint32_t)(12 + lump));
	uint8_t *l = d + 12;
	memcpy(l, name, strlen(name));
	put32le(l, 16, w);
	put32le(l, 20, h);
	put32le(l, 24, type);
	for (size_t i = 0; i < (size_t)w * h * bpp; i++) l[40 + i] = (uint8_t)(i * 37 + 5 + (i / 64) * 11);
	uint8_t *e = d + 12 + lump;
	put32le(e, 0, 12);
	put32le(e, 4, (uint32_t)lump);
	put32le(e, 8, (uint32_t)lump);
	e[12] = (uint8_t)type;
	memcpy(e + 16, name, strlen(name));
	*pixels = l + 40;
	return d;
}

/** A level textured from an 8-bit WAD7 lump keeps the lump's indices beside
 *  the rgba (gsio_image.indices), and the two agree (the validator). */
static void test_wad_pal8_level(void **state)
{
	(void)state;
	enum { W = 8, H = 4 };
	size_t size;
	uint8_t *px;
	uint8_t *d = one_lump_wad("paltex", 0, W, H, 1, &size, &px);
	gsio_scene *s = load_level_with_wad("/tmp/gsio-wad-pal8-XXXXXX", "pal.wad", "pal.wad", "paltex", d, size);
	gsio_error err;
	assert_int_equal(s->images_count, 1);
	const gsio_image *im = &s->images[0];
	assert_int_equal(im->width, W);
	assert_non_null(im->indices);
	assert_int_equal(im->palette_count, 256);
	assert_memory_equal(im->indices, px, W * H);
	uint8_t expect[W * H * 4];
	assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_PAL8, px, W * H, NULL, expect), 0);
	assert_memory_equal(im->rgba, expect, sizeof(expect));
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
	free(d);
}

/** With GSIO_OPT_NO_PIXELS a level keeps its WAD textures as stored, as
 *  MDL skins are kept: an 8-bit one as indices + palette, a 16-bit one as
 *  its raw pixels, no RGBA either way; each makes the PNG its decoded
 *  pixels make (the one the glTF writer would write without the flag). */
static void test_wad_level_no_pixels(void **state)
{
	(void)state;
	enum { W = 16, H = 8 };
	for (uint32_t type = 0; type <= 2; type += 2) { // 8-bit, RGB565
		size_t size;
		uint8_t *px;
		uint8_t *d = one_lump_wad("tex", type, W, H, type ? 2 : 1, &size, &px);
		gsio_opts o = {0};
		o.flags = GSIO_OPT_NO_PIXELS;
		gsio_scene *full = load_level_with_wad("/tmp/gsio-wad-np-XXXXXX", "t.wad", "t.wad", "tex", d, size);
		gsio_scene *kept = load_level_with_wad_opts("/tmp/gsio-wad-np-XXXXXX", "t.wad", "t.wad", "tex", d, size, &o);
		gsio_error err;
		assert_int_equal(gsio_scene_validate(kept, &err), 0);
		assert_int_equal(kept->images_count, 1);
		const gsio_image *a = &full->images[0], *b = &kept->images[0];
		assert_non_null(a->rgba);
		assert_null(b->rgba);
		assert_int_equal(b->width, W);
		assert_int_equal(b->height, H);
		assert_int_equal(b->source_format, (gsio_pixel_format)type);
		uint8_t *pa, *pb;
		size_t na, nb;
		if (type == 0) {
			assert_non_null(b->indices);
			assert_memory_equal(b->indices, px, W * H);
			assert_int_equal(gsioi_png_encode_indexed(a->indices, W, H, a->palette, a->palette_count, &pa, &na, &err), 0);
			assert_int_equal(gsioi_png_encode_indexed(b->indices, W, H, b->palette, b->palette_count, &pb, &nb, &err), 0);
		} else {
			assert_non_null(b->stored);
			assert_memory_equal(b->stored, px, W * H * 2);
			assert_int_equal(gsioi_png_encode(a->rgba, W, H, &pa, &na, &err), 0);
			assert_int_equal(gsioi_png_encode_stored(b->source_format, b->stored, W, H, NULL, &pb, &nb, &err), 0);
		}
		assert_int_equal(na, nb);
		assert_memory_equal(pa, pb, na);
		free(pa);
		free(pb);
		gsio_scene_free(full);
		gsio_scene_free(kept);
		free(d);
	}
}

/* An allocator that counts the bytes it holds (a size word before each
 * block) and the most it held. */
typedef struct byte_count {
	size_t live, peak;
} byte_count;

static void *count_alloc(void *user, size_t size)
{
	byte_count *b = user;
	size_t *p = malloc(size + 16);
	if (!p) return NULL;
	p[0] = size;
	b->live += size;
	if (b->live > b->peak) b->peak = b->live;
	return (uint8_t *)p + 16;
}

static void count_free(void *user, void *ptr)
{
	if (!ptr) return;
	byte_count *b = user;
	size_t *p = (size_t *)(void *)((uint8_t *)ptr - 16);
	b->live -= p[0];
	free(p);
}

/** gsio_wad_decode() copies the bytes into the file's arena, or with
 *  GSIO_OPT_BORROW points its lumps into the caller's; a level borrows the
 *  bytes of its WADs, so a WAD of 2 MB (one 2 MB lump the level does not
 *  use) costs the level's arena none of it. */
static void test_wad_borrowed(void **state)
{
	(void)state;
	size_t size;
	uint8_t *d = make_dds_wad(6, true, &size);
	gsio_error err;
	gsio_opts o = {0};
	for (int borrow = 0; borrow < 2; borrow++) {
		o.flags = borrow ? GSIO_OPT_BORROW : 0;
		gsio_wad_file *w = gsio_wad_decode(d, size, "x.wad", &o, &err);
		assert_non_null(w);
		bool inside = w->lumps[0].data >= d && w->lumps[0].data < d + size;
		assert_true(inside == (bool)borrow);
		gsio_wad_file_free(w);
	}
	free(d);

	// The DDS WAD with a second lump of 2 MB added after the first.
	uint8_t *small = make_dds_wad(6, true, &size);
	size_t filler = (size_t)2 << 20, lump = size - 12 - 32, big = size + filler + 32;
	uint8_t *b = calloc(1, big);
	assert_non_null(b);
	memcpy(b, small, 12 + lump);
	put32le(b, 4, 2);
	put32le(b, 8, (uint32_t)(12 + lump + filler));
	uint8_t *e = b + 12 + lump + filler;
	memcpy(e, small + 12 + lump, 32);
	put32le(e, 32, (uint32_t)(12 + lump));
	put32le(e, 36, (uint32_t)filler);
	put32le(e, 40, (uint32_t)filler);
	e[44] = 0x40 + 5;
	memcpy(e + 48, "filler", 6);
	byte_count bc = {0, 0};
	gsio_allocator al = {count_alloc, count_free, &bc};
	o.flags = 0;
	o.allocator = &al;
	gsio_scene *s = load_level_with_wad_opts("/tmp/gsio-wad-borrow-XXXXXX", "big.wad", "big.wad", "ddstex", b,
	                                         big, &o);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 8);
	gsio_scene_free(s);
	assert_int_equal(bc.live, 0);
	print_message("level with a %zu-byte WAD: its allocations peaked at %zu bytes\n", big, bc.peak);
	assert_true(bc.peak < filler);
	free(b);
	free(small);
}

static void test_wad_dds(void **state)
{
	(void)state;
	gsio_error err;
	for (int variant = 0; variant < 2; variant++) {
		size_t size;
		uint8_t *d = make_dds_wad(variant ? 14 : 6, variant == 0, &size);
		gsio_wad_file *w = gsio_wad_decode(d, size, "dds.wad", NULL, &err);
		assert_non_null(w);
		assert_int_equal(w->lumps_count, 1);
		assert_int_equal(w->lumps[0].width, 8);
		assert_int_equal(w->lumps[0].height, 4);
		uint8_t *rgba;
		if (gsio_wad_decode_lump(w, 0, NULL, &rgba, &err)) fail_msg("%s", err.message);
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 8; x++) {
				const uint8_t *p = rgba + 4 * (8 * y + x);
				assert_int_equal(p[0], x < 4 ? 255 : 0);
				assert_int_equal(p[1], 0);
				assert_int_equal(p[2], x < 4 ? 0 : 255);
				assert_int_equal(p[3], 255);
			}
		free(rgba);
		gsio_wad_file_free(w);
		// Cut short: a clean error, no texture.
		w = gsio_wad_decode(d, size, "dds.wad", NULL, &err);
		assert_non_null(w);
		w->lumps[0].size -= 8;
		assert_int_not_equal(gsio_wad_decode_lump(w, 0, NULL, &rgba, &err), 0);
		assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
		gsio_wad_file_free(w);
		free(d);
	}
	// In a level: a block textured from the DDS lump, no placeholder.
	size_t size;
	uint8_t *d = make_dds_wad(6, true, &size);
	// DDS.WAD found case-insensitively from a Windows path
	gsio_scene *s = load_level_with_wad("/tmp/gsio-wad-dds-XXXXXX", "DDS.WAD", "C:\\games\\dds.wad",
	                                    "ddstex", d, size);
	free(d);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("warning: %s\n", s->warnings[i]);
	assert_int_equal(s->warnings_count, 0);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 8);
	assert_int_equal(s->images[0].height, 4);
	assert_null(gsio_extras_get(&s->images[0].extras, "gsio:placeholder"));
	assert_int_equal(s->images[0].rgba[0], 255);
	assert_int_equal(s->images[0].rgba[4 * 7 + 2], 255);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wad_dds),
	    cmocka_unit_test(test_wad_borrowed),
	    cmocka_unit_test(test_wad_level_no_pixels),
	    cmocka_unit_test(test_wad_pal8_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
