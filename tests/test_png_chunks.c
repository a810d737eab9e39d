/* PNG files embedded in glTF without the chunks glTF does not take
 * (gsioi_png_drop_chunks, common/png_chunks.c): iCCP, cHRM, gAMA and sRGB
 * dropped, a pHYs dropped unless it states square pixels, every other byte
 * (IHDR, PLTE, tRNS, IDAT, text, what follows IEND) kept in order, so the
 * pixels are the same (libspng decodes both); a file whose chunks cannot be
 * walked is left whole; every prefix and every one-byte change of a file is
 * handled. The glTF writer embeds the filtered bytes, in a GLB and as a
 * .gltf's image file, and still stores one file shared by two images
 * once. */
#include "test_util.h"

#include "gsioi_png.h"
#include "gsio_gltf.h"

#include <spng.h>
#include <stdlib.h>
#include <string.h>

// -- Building PNG files

static uint32_t crc_of(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xFFFFFFFFu;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

typedef struct buf {
	uint8_t d[4096];
	size_t n;
} buf;

static void add(buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

// A chunk of `type` with `len` bytes of body.
static void chunk(buf *b, const char *type, const void *body, uint32_t len)
{
	uint8_t h[8];
	put32(h, len);
	memcpy(h + 4, type, 4);
	size_t at = b->n;
	add(b, h, 8);
	add(b, body, len);
	uint8_t c[4];
	put32(c, crc_of(b->d + at + 4, 4 + len));
	add(b, c, 4);
}

static void phys(buf *b, uint32_t x, uint32_t y)
{
	uint8_t p[9] = {0};
	put32(p, x);
	put32(p + 4, y);
	p[8] = 1;
	chunk(b, "pHYs", p, 9);
}

/* A palette PNG of 3x2 pixels with a tRNS (gsio's encoder), its chunks
 * split out: the signature and IHDR, the rest up to IEND, and IEND. */
typedef struct base_png {
	buf head, body, end;
} base_png;

static void make_base(base_png *out)
{
	const uint8_t rgba[24] = {255, 0,   0,   255, 0,   255, 0,   128, 0,   0,   255, 255,
	                          255, 0,   0,   255, 0,   0,   255, 255, 0,   255, 0,   128};
	uint8_t *png;
	size_t n;
	gsio_error err;
	assert_int_equal(gsioi_png_encode(rgba, 3, 2, &png, &n, &err), 0);
	memset(out, 0, sizeof(*out));
	add(&out->head, png, 8 + 25); // signature, IHDR
	add(&out->body, png + 33, n - 33 - 12);
	add(&out->end, png + n - 12, 12);
	assert_memory_equal(out->end.d + 4, "IEND", 4);
	free(png);
}

// RGBA8 pixels of a PNG, by libspng (malloc'd).
static uint8_t *decode(const uint8_t *png, size_t n, size_t *len)
{
	spng_ctx *ctx = spng_ctx_new(0);
	assert_non_null(ctx);
	assert_int_equal(spng_set_png_buffer(ctx, png, n), 0);
	assert_int_equal(spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, len), 0);
	uint8_t *px = malloc(*len);
	assert_non_null(px);
	assert_int_equal(spng_decode_image(ctx, px, *len, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS), 0);
	spng_ctx_free(ctx);
	return px;
}

// -- The filter

static void test_chunks_dropped(void **state)
{
	(void)state;
	base_png b;
	make_base(&b);
	static const uint8_t icc[] = {'s', 'R', 'G', 'B', 0, 0, 0x78, 0x9c, 3, 0, 0, 0, 0, 1};
	uint8_t gama[4], chrm[32];
	put32(gama, 50000); // neither sRGB's 45455 nor linear
	for (int i = 0; i < 8; i++) put32(chrm + 4 * i, 10000u * (uint32_t)(i + 1));
	const uint8_t srgb = 0, text[] = "Comment\0kept as it is";
	const uint8_t after[] = "bytes after IEND";
	buf in = b.head, want = b.head;
	chunk(&in, "iCCP", icc, sizeof(icc));
	chunk(&in, "cHRM", chrm, sizeof(chrm));
	chunk(&in, "gAMA", gama, sizeof(gama));
	chunk(&in, "sRGB", &srgb, 1);
	phys(&in, 2835, 5670); // non-square: dropped
	chunk(&in, "tEXt", text, sizeof(text) - 1);
	chunk(&want, "tEXt", text, sizeof(text) - 1);
	phys(&in, 2835, 2835); // square: kept
	phys(&want, 2835, 2835);
	chunk(&in, "pHYs", "\1\2\3", 3); // not 9 bytes: dropped
	add(&in, b.body.d, b.body.n);    // PLTE, tRNS, IDAT
	add(&want, b.body.d, b.body.n);
	add(&in, b.end.d, b.end.n);
	add(&want, b.end.d, b.end.n);
	add(&in, after, sizeof(after));
	add(&want, after, sizeof(after));

	uint8_t *out;
	size_t out_n;
	assert_int_equal(gsioi_png_drop_chunks(in.d, in.n, &out, &out_n), 1);
	t_assert_same_bytes(out, out_n, want.d, want.n, "the filtered PNG");
	size_t la, lb;
	uint8_t *pa = decode(in.d, in.n, &la), *pb = decode(want.d, want.n, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(pa, pb, la);
	free(pa);
	free(pb);

	// Nothing to drop: the file as it is (no copy).
	out = (uint8_t *)&state;
	assert_int_equal(gsioi_png_drop_chunks(want.d, want.n, &out, &out_n), 0);
	assert_null(out);
	assert_int_equal(out_n, 0);
}

/* Chunks that cannot be walked: the file is used as it is (0, no copy). */
static void test_broken_files_whole(void **state)
{
	(void)state;
	base_png b;
	make_base(&b);
	uint8_t gama[4];
	put32(gama, 50000);
	buf ok = b.head;
	chunk(&ok, "gAMA", gama, 4);
	add(&ok, b.body.d, b.body.n);
	size_t before_end = ok.n;
	add(&ok, b.end.d, b.end.n);

	uint8_t *out;
	size_t n;
	buf x = ok; // no IEND
	x.n = before_end;
	assert_int_equal(gsioi_png_drop_chunks(x.d, x.n, &out, &n), 0);
	x = ok; // a length past the end
	put32(x.d + 33, 0x7FFFFFF0u);
	assert_int_equal(gsioi_png_drop_chunks(x.d, x.n, &out, &n), 0);
	x = ok; // a length past PNG's limit
	put32(x.d + 33, 0x80000004u);
	assert_int_equal(gsioi_png_drop_chunks(x.d, x.n, &out, &n), 0);
	x = ok; // a type that is not four letters
	x.d[33 + 4] = '1';
	assert_int_equal(gsioi_png_drop_chunks(x.d, x.n, &out, &n), 0);
	x = ok; // not a PNG
	x.d[1] = 'Q';
	assert_int_equal(gsioi_png_drop_chunks(x.d, x.n, &out, &n), 0);
	assert_int_equal(gsioi_png_drop_chunks(NULL, 0, &out, &n), 0);
	assert_null(out);

	// Every prefix and every byte changed to each of a few values: never a
	// read past the file (ASan), and a copy only of a file that walks
	// (then no larger than it and starting with its signature).
	for (size_t len = 0; len <= ok.n; len++) {
		int rc = gsioi_png_drop_chunks(ok.d, len, &out, &n);
		assert_int_equal(rc, len == ok.n ? 1 : 0);
		if (rc == 1) assert_true(n == ok.n - 16 && !memcmp(out, ok.d, 8));
		free(out);
	}
	static const uint8_t values[] = {0x00, 0x01, 0x7F, 0x80, 0xFF, 'A'};
	for (size_t i = 0; i < ok.n; i++)
		for (size_t v = 0; v < sizeof(values); v++) {
			uint8_t *copy = t_prefix_copy(ok.d, ok.n); // exactly ok.n bytes
			copy[i] = values[v];
			int rc = gsioi_png_drop_chunks(copy, ok.n, &out, &n);
			assert_true(rc == 0 || rc == 1);
			if (rc == 1) assert_true(n < ok.n);
			free(out);
			free(copy);
		}
}

// -- In the glTF writer

static const uint8_t *find(const uint8_t *h, size_t hn, const uint8_t *needle, size_t nn)
{
	for (size_t i = 0; nn <= hn && i <= hn - nn; i++)
		if (!memcmp(h + i, needle, nn)) return h + i;
	return NULL;
}

/* A one-triangle scene with two materials whose textures are two images
 * of one PNG file (the same bytes), undecoded. */
static gsio_scene *scene_with_file(const uint8_t *png, size_t n)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	int32_t mats[2];
	for (int k = 0; k < 2; k++) {
		int32_t im = gsio_scene_add_image(s, k ? "b" : "a", 3, 2, NULL, &err);
		assert_true(im >= 0);
		s->images[im].rgba = NULL; // the file only, as GSIO_OPT_NO_PIXELS loads it
		s->images[im].file_data = png;
		s->images[im].file_size = n;
		mats[k] = gsio_scene_add_material(s, k ? "mb" : "ma", &err);
		assert_true(mats[k] >= 0);
		s->materials[mats[k]].base_color_texture.image = im;
	}
	for (int k = 0; k < 2; k++) {
		int32_t m = gsio_scene_add_mesh(s, k ? "tb" : "ta", 3, 3, GSIO_MESH_UVS, mats[k], &err);
		assert_true(m >= 0);
		gsio_mesh *mesh = &s->meshes[m];
		const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, t[6] = {0, 0, 1, 0, 0, 1};
		memcpy(mesh->positions, p, sizeof(p));
		memcpy(mesh->uvs, t, sizeof(t));
		for (uint32_t i = 0; i < 3; i++) mesh->indices[i] = i;
		for (int c = 0; c < 3; c++) mesh->bbox_min[c] = 0, mesh->bbox_max[c] = c < 2 ? 1.0f : 0.0f;
		int32_t node = gsio_scene_add_node(s, k ? "tb" : "ta", -1, &err);
		assert_true(node >= 0);
		s->nodes[node].mesh = m;
	}
	if (gsio_scene_validate(s, &err)) fail_msg("scene: %s", err.message);
	return s;
}

static void test_gltf_embeds_filtered(void **state)
{
	(void)state;
	base_png b;
	make_base(&b);
	uint8_t gama[4];
	put32(gama, 50000);
	buf in = b.head, want = b.head;
	chunk(&in, "iCCP", "p\0\0x", 4);
	chunk(&in, "gAMA", gama, 4);
	add(&in, b.body.d, b.body.n);
	add(&want, b.body.d, b.body.n);
	add(&in, b.end.d, b.end.n);
	add(&want, b.end.d, b.end.n);
	gsio_scene *s = scene_with_file(in.d, in.n);
	gsio_error err;
	for (int separate = 0; separate < 2; separate++) {
		gsio_gltf_opts o = {0};
		o.flags = separate ? GSIO_GLTF_SEPARATE : 0;
		gsio_gltf_output out = {0};
		if (gsio_gltf_write(s, &o, &out, &err)) fail_msg("gsio_gltf_write: %s", err.message);
		size_t found = 0;
		for (size_t f = 0; f < out.files_count; f++) {
			const gsio_gltf_file *file = &out.files[f];
			assert_null(find(file->data, file->size, (const uint8_t *)"iCCP", 4));
			assert_null(find(file->data, file->size, (const uint8_t *)"gAMA", 4));
			const uint8_t *at = find(file->data, file->size, want.d, want.n);
			if (at) found++;
			// One image file for the two images: once in the GLB, and a
			// .gltf's one PNG file is exactly the filtered file.
			if (at) assert_null(find(at + 1, file->size - (size_t)(at + 1 - file->data), want.d, 8));
			if (separate && at) assert_int_equal(file->size, want.n);
		}
		assert_int_equal(found, 1);
		gsio_gltf_output_free(&out);
	}
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_chunks_dropped),
	    cmocka_unit_test(test_broken_files_whole),
	    cmocka_unit_test(test_gltf_embeds_filtered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
