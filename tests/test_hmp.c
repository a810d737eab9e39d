/* HMP4/HMP5/HMP7 terrain: codec and scene against the corpus and hand-built
 * files.
 *
 * shadow-5.hmp is the one real HMP5 found, assimp-terrain.hmp and
 * lgs-small.hmp the HMP7 ones. Small files built byte by byte here (not by
 * the encoder under test) cover what the corpus lacks: several frames,
 * trailing bytes, a detail map of the same size, external texture names, HMP4
 * (whose layout is unverified, see hmp.c). */
#define _POSIX_C_SOURCE 200809L // mkdtemp
#include "test_util.h"

#include "gsio_hmp.h"
#include "gsioi_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every scene the importer returns passes the scene model's check and has
 * the v2 shape of a terrain: one root node placing the one mesh, one part,
 * no skin, morph animations only for 2+ frames. NULL passes through. */
static gsio_scene *checked(gsio_scene *s)
{
	if (!s) return NULL;
	gsio_error err;
	if (gsio_scene_validate(s, &err)) fail_msg("scene fails validation: %s", err.message);
	assert_int_equal(s->nodes_count, s->meshes_count ? 1 : 0);
	if (!s->meshes_count) return s;
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(s->meshes_count, 1);
	assert_int_equal(s->nodes[0].mesh, 0);
	assert_int_equal(s->nodes[0].parent, -1);
	assert_int_equal(m->skin, -1);
	assert_int_equal(m->parts_count, 1);
	assert_int_equal(m->parts[0].index_count, m->index_count);
	assert_int_equal(m->parts[0].material, s->materials_count ? 0 : -1);
	if (m->frames_count < 2) assert_int_equal(s->animations_count, 0);
	for (size_t i = 0; i < s->animations_count; i++) {
		assert_int_equal(s->animations[i].channels_count, 1);
		assert_int_equal(s->animations[i].channels[0].path, GSIO_PATH_MORPH);
	}
	return s;
}

/* A decode that must succeed (the name is the file's in messages). */
static gsio_hmp_file *decode_ok(const uint8_t *data, size_t size, const char *name)
{
	gsio_error err;
	gsio_hmp_file *f = gsio_hmp_decode(data, size, name, NULL, &err);
	if (!f) fail_msg("%s: decode: %s", name, err.message);
	return f;
}

/* A scene that must load or build (checked()); `what` names it. */
static gsio_scene *scene_ok(gsio_scene *s, const char *what, const gsio_error *err)
{
	if (!s) fail_msg("%s: %s", what, err->message);
	return checked(s);
}

// -- A tiny byte builder, independent of the library's writer

typedef struct buf {
	uint8_t *d;
	size_t n, cap;
} buf;

static void b_put(buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->d = realloc(b->d, b->cap);
		assert_non_null(b->d);
	}
	memcpy(b->d + b->n, p, n);
	b->n += n;
}
static void b_i32(buf *b, int32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	b_put(b, x, 4);
}
static void b_f32(buf *b, float f)
{
	int32_t v;
	memcpy(&v, &f, 4);
	b_i32(b, v);
}
static void b_u16(buf *b, uint16_t v)
{
	uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	b_put(b, x, 2);
}
static void b_u8(buf *b, uint8_t v)
{
	b_put(b, &v, 1);
}
static void set_i32(uint8_t *d, size_t at, int32_t v)
{
	for (int k = 0; k < 4; k++) d[at + (size_t)k] = (uint8_t)((uint32_t)v >> (8 * k));
}
static void set_f32(uint8_t *d, size_t at, float f)
{
	int32_t v;
	memcpy(&v, &f, 4);
	set_i32(d, at, v);
}

/* The synthetic terrain: 3 columns x 2 rows, scale 0.5, offset (-10, 20, 5),
 * cells 4 x 6. Heights z = 10 * frame + index, normal index = index + 1. */
#define SYN_COLS 3
#define SYN_ROWS 2

static void b_header(buf *b, const char *magic, int32_t numskins, int32_t nu8, int32_t nu9,
                     int32_t numframes)
{
	b_put(b, magic, 4);
	b_i32(b, 7);                      // nu1
	b_f32(b, 1.0f);                   // scale
	b_f32(b, 1.0f);
	b_f32(b, 0.5f);
	b_f32(b, -10.0f);                 // offset
	b_f32(b, 20.0f);
	b_f32(b, 5.0f);
	b_i32(b, 0x12345678);             // nu6
	b_f32(b, 4.0f);                   // ftrisize_x
	b_f32(b, 6.0f);                   // ftrisize_y
	b_f32(b, (float)SYN_COLS);        // fnumverts_x
	b_i32(b, numskins);
	b_i32(b, nu8);
	b_i32(b, nu9);
	b_i32(b, SYN_COLS * SYN_ROWS);    // numverts
	b_i32(b, 11);                     // nu10
	b_i32(b, numframes);
	b_i32(b, 12);                     // nu11
	b_i32(b, 0);                      // flags
	b_i32(b, 13);                     // nu12
}

/* An HMP7 skin of type 7: no pixels, the name of an external texture
 * file (width 0, height 1, the name and its NUL). */
static void b_external_skin(buf *b, const char *name)
{
	b_i32(b, 7);
	b_i32(b, 0);
	b_i32(b, 1);
	b_put(b, name, strlen(name) + 1);
}

static void b_frame(buf *b, int frame, const char *name)
{
	b_i32(b, 2);
	for (int k = 0; k < 8; k++) b_u8(b, (uint8_t)(k + frame)); // bbox min, kept raw
	for (int k = 0; k < 8; k++) b_u8(b, (uint8_t)(100 + k));   // bbox max
	char nm[16] = {0};
	snprintf(nm, sizeof(nm), "%s", name);
	nm[15] = 'X'; // junk after the NUL must survive a round trip
	b_put(b, nm, 16);
	for (int v = 0; v < SYN_COLS * SYN_ROWS; v++) {
		b_u16(b, (uint16_t)(10 * frame + v));
		b_u8(b, (uint8_t)(v + 1));
		b_u8(b, (uint8_t)(0xA0 + v)); // pad, kept
	}
}

/* HMP5 with a 4x2 BGR888 colour map, a 2x2 RGB565 detail map, a third 4x2
 * skin (kept, warned about), two frames and 3 trailing bytes. */
static uint8_t *make_hmp5(size_t *size)
{
	buf b = {0};
	b_header(&b, "HMP5", 3, 0, 0, 2);
	b_i32(&b, 4);
	b_i32(&b, 4);
	b_i32(&b, 2);
	for (int i = 0; i < 8; i++) {
		uint8_t bgr[3] = {(uint8_t)(i * 30), 0, (uint8_t)(255 - i * 30)}; // B, G, R
		b_put(&b, bgr, 3);
	}
	b_i32(&b, 2);
	b_i32(&b, 2);
	b_i32(&b, 2);
	for (int i = 0; i < 4; i++) b_u16(&b, 0xF800); // pure red
	b_i32(&b, 4);
	b_i32(&b, 4);
	b_i32(&b, 2);
	for (int i = 0; i < 24; i++) b_u8(&b, 0x55);
	b_frame(&b, 0, "wave0");
	b_frame(&b, 1, "wave1");
	b_u8(&b, 0xDE);
	b_u8(&b, 0xAD);
	b_u8(&b, 0x01);
	*size = b.n;
	return b.d;
}

/* HMP4 per the decision in hmp.c: skins are int32 type + nu8 x nu9 pixels. */
static uint8_t *make_hmp4(size_t *size, int32_t skin_type)
{
	buf b = {0};
	b_header(&b, "HMP4", 1, 2, 2, 1);
	b_i32(&b, skin_type);
	for (int i = 0; i < 4; i++) b_u16(&b, 0x07E0); // pure green
	b_frame(&b, 0, "base");
	*size = b.n;
	return b.d;
}

/** An 8-bit colour map (skin type 0) keeps its indices beside the rgba, and
 *  the validator (checked) finds the two the same picture. */
static void test_hmp4_pal8(void **state)
{
	(void)state;
	buf b = {0};
	b_header(&b, "HMP4", 1, 2, 2, 1);
	b_i32(&b, 0);
	const uint8_t px[4] = {0, 17, 200, 255};
	for (int i = 0; i < 4; i++) b_u8(&b, px[i]);
	b_frame(&b, 0, "base");
	gsio_error err;
	gsio_scene *s = scene_ok(gsio_load_memory(b.d, b.n, "pal8.hmp", NULL, &err), "load", &err);
	assert_int_equal(s->images_count, 1);
	assert_non_null(s->images[0].indices);
	assert_memory_equal(s->images[0].indices, px, 4);
	assert_int_equal(s->images[0].palette_count, 256);
	assert_memory_equal(s->images[0].palette + 4 * 200, s->images[0].rgba + 8, 4);
	gsio_scene_free(s);
	free(b.d);
}

static void expect_error(const uint8_t *data, size_t size, const char *what)
{
	gsio_error err;
	gsio_scene *s = checked(gsio_load_memory(data, size, "t.hmp", NULL, &err));
	if (s) {
		gsio_scene_free(s);
		fail_msg("%s: loaded instead of failing", what);
	}
	assert_int_not_equal(err.code, GSIO_OK);
	assert_true(err.message[0] != 0);
	assert_string_equal(err.file, "t.hmp");
}

// -- shadow-5.hmp

static uint8_t *read_shadow(size_t *size)
{
	return t_read_corpus("hmp/shadow-5.hmp", size);
}

static void test_shadow5_grid(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_error err;
	gsio_scene *s = scene_ok(gsio_load_file(t_corpus_path("hmp/shadow-5.hmp"), NULL, &err), "load", &err);
	assert_string_equal(s->format, "HMP5");
	assert_int_equal(s->meshes_count, 1);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->vertex_count, 3835);
	assert_int_equal(s->source.vertices, 3835);
	assert_int_equal(m->index_count, 64 * 58 * 6);
	assert_non_null(s->terrain);
	assert_int_equal(s->terrain->columns, 65);
	assert_int_equal(s->terrain->rows, 59);
	float mn[3] = {1e30f, 1e30f, 1e30f}, mx[3] = {-1e30f, -1e30f, -1e30f};
	for (size_t v = 0; v < m->vertex_count; v++)
		for (int k = 0; k < 3; k++) {
			float p = m->positions[3 * v + (size_t)k];
			mn[k] = fminf(mn[k], p);
			mx[k] = fmaxf(mx[k], p);
		}
	print_message("shadow-5: x %.3f..%.3f y %.3f..%.3f z %.3f..%.3f\n", (double)mn[0],
	              (double)mx[0], (double)mn[1], (double)mx[1], (double)mn[2], (double)mx[2]);
	assert_float_equal(mn[2], -229.08f, 0.01f);
	assert_float_equal(mx[2], 601.25f, 0.01f);
	assert_float_equal(mn[0], -1427.2f, 0.01f);
	assert_float_equal(mx[0], 1427.2f, 0.01f);
	assert_float_equal(mn[1], -1293.4f, 0.01f);
	assert_float_equal(mx[1], 1293.4f, 0.01f);
	// Vertex 0 is row 0, column 0: the -x, +y corner, the top-left of the map.
	assert_float_equal(m->positions[0], -1427.2f, 0.01f);
	assert_float_equal(m->positions[1], 1293.4f, 0.01f);
	assert_float_equal(m->uvs[0], 0.0f, 1e-6f);
	assert_float_equal(m->uvs[1], 0.0f, 1e-6f);
	assert_float_equal(m->uvs[2 * 3834], 1.0f, 1e-6f);
	assert_float_equal(m->uvs[2 * 3834 + 1], 1.0f, 1e-6f);

	// Every normal points up (outward) or sideways: 3 vertices on the -y edge use
	// table entry 32, (0, 1, 0), negated to (0, -1, 0): horizontal, not inward.
	size_t up = 0;
	for (size_t v = 0; v < m->vertex_count; v++) {
		const float *n = m->normals + 3 * v;
		assert_true(n[2] >= 0.0f);
		if (n[2] > 0.0f) up++;
		else assert_true(n[1] < 0.0f && v >= 58 * 65); // last row, facing out of the grid
		assert_float_equal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-3f);
	}
	print_message("shadow-5: %zu of %zu normals have z > 0, the rest are horizontal\n", up,
	              m->vertex_count);
	assert_true(up + 3 >= m->vertex_count);
	for (size_t t = 0; t < m->index_count; t += 3) {
		const uint32_t *ix = m->indices + t;
		for (int k = 0; k < 3; k++) assert_true(ix[k] < m->vertex_count);
		const float *a = m->positions + 3 * ix[0], *b = m->positions + 3 * ix[1],
		            *c = m->positions + 3 * ix[2];
		float cz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
		assert_true(cz > 0.0f);
	}
	// Row direction: the stored normals must lean against the height gradient
	// of the grid we built (downhill), in x and in y.
	double corr_x = 0, corr_y = 0;
	uint32_t cols = s->terrain->columns, rows = s->terrain->rows;
	for (uint32_t r = 1; r + 1 < rows; r++)
		for (uint32_t c = 1; c + 1 < cols; c++) {
			size_t v = (size_t)r * cols + c;
			const float *p = m->positions;
			double dzdx = (p[3 * (v + 1) + 2] - p[3 * (v - 1) + 2]) /
			              (p[3 * (v + 1)] - p[3 * (v - 1)]);
			double dzdy = (p[3 * (v + cols) + 2] - p[3 * (v - cols) + 2]) /
			              (p[3 * (v + cols) + 1] - p[3 * (v - cols) + 1]);
			corr_x += -dzdx * m->normals[3 * v];
			corr_y += -dzdy * m->normals[3 * v + 1];
		}
	print_message("shadow-5: normal vs -gradient correlation x %.1f y %.1f\n", corr_x, corr_y);
	assert_true(corr_x > 0);
	assert_true(corr_y > 0);

	// The terrain grid as stored, for writing back.
	const gsio_terrain *t = s->terrain;
	assert_float_equal(t->cell_x, 44.6f, 1e-4f);
	assert_float_equal(t->cell_y, 44.6f, 1e-4f);
	assert_float_equal(t->origin[0], -1427.2f, 0.01f);
	assert_float_equal(t->origin[1], -1293.4f, 0.01f);
	assert_int_equal(t->mesh, 0);
	for (size_t v = 0; v < m->vertex_count; v++)
		assert_float_equal(t->height_scale * (float)t->raw_heights[v] + t->height_offset,
		                   m->positions[3 * v + 2], 1e-3f);
	// The colour map and its material.
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].width, 1024);
	assert_int_equal(s->images[0].height, 1024);
	assert_int_equal(s->images[0].source_type, 12);
	assert_int_equal(s->images[0].source_mip_count, 3);
	assert_int_equal(s->materials_count, 1);
	assert_int_equal(s->materials[0].base_color_texture.image, 0);
	assert_int_equal(s->materials[0].base_color_texture.wrap_u, GSIO_WRAP_REPEAT);
	assert_int_equal(s->materials[0].detail_texture.image, -1);
	assert_int_equal(gsio_extras_get(&s->materials[0].extras, "gsio:skin_type")->i, 12);
	assert_int_equal(m->parts[0].material, 0);
	assert_int_equal(m->frames_count, 1);
	assert_string_equal(m->frames[0].name, "Frame 1");
	assert_int_equal(s->animations_count, 0);
	assert_string_equal(s->nodes[0].name, "shadow-5");
	assert_int_equal(s->warnings_count, 0);
	gsio_scene_free(s);
}

/* How the colour map lies on the grid, checked on the data: in shadow-5.hmp
 * the colourful texels (grass, a brown path) cover the low basin and the
 * valley leading into it, grey rock the heights. So height and saturation
 * (max - min channel, averaged over about a cell of texels) sampled through
 * our UVs must anti-correlate, and more strongly than through any mirrored,
 * rotated or transposed UVs. The margins are small (the basin is nearly
 * symmetric; the texture's fine detail is painted noise that follows no
 * height), so the render in tests/e2e/hmp.cmake is the second check. */
static double saturation_height_corr(const gsio_scene *s, int variant)
{
	const gsio_mesh *m = &s->meshes[0];
	const gsio_image *im = &s->images[0];
	const long k = 8; // half window, texels
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t n = m->vertex_count;
	for (size_t v = 0; v < n; v++) {
		double u = m->uvs[2 * v], w = m->uvs[2 * v + 1], t;
		if (variant & 1) u = 1 - u;
		if (variant & 2) w = 1 - w;
		if (variant & 4) t = u, u = w, w = t;
		long cx = lround(u * (im->width - 1)), cy = lround(w * (im->height - 1));
		double g = 0;
		long cnt = 0;
		for (long y = cy - k; y <= cy + k; y++)
			for (long x = cx - k; x <= cx + k; x++) {
				if (x < 0 || y < 0 || x >= (long)im->width || y >= (long)im->height) continue;
				const uint8_t *c = im->rgba + 4 * ((size_t)y * im->width + (size_t)x);
				uint8_t hi = c[0] > c[1] ? c[0] : c[1], lo = c[0] < c[1] ? c[0] : c[1];
				if (c[2] > hi) hi = c[2];
				if (c[2] < lo) lo = c[2];
				g += hi - lo;
				cnt++;
			}
		g /= (double)cnt;
		double h = m->positions[3 * v + 2];
		sx += g, sy += h, sxx += g * g, syy += h * h, sxy += g * h;
	}
	double nn = (double)n;
	double cov = sxy / nn - sx * sy / (nn * nn);
	double vx = sxx / nn - sx * sx / (nn * nn), vy = syy / nn - sy * sy / (nn * nn);
	return cov / sqrt(vx * vy);
}

static void test_shadow5_colour_map_orientation(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_error err;
	gsio_scene *s = scene_ok(gsio_load_file(t_corpus_path("hmp/shadow-5.hmp"), NULL, &err), "load", &err);
	static const char *names[] = {"as built", "u mirrored", "v mirrored", "rotated 180",
	                              "transposed", "rotated 90", "rotated 270", "anti-transposed"};
	double best = 0;
	int best_variant = -1;
	for (int variant = 0; variant < 8; variant++) {
		double c = saturation_height_corr(s, variant);
		print_message("shadow-5: saturation vs height, UVs %-15s r = %+.3f\n", names[variant], c);
		if (c < best) best = c, best_variant = variant;
	}
	assert_int_equal(best_variant, 0);
	assert_true(best < -0.4);
	gsio_scene_free(s);
}

static void test_shadow5_roundtrip(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_shadow(&size);
	gsio_hmp_file *f = decode_ok(data, size, "shadow-5.hmp");
	assert_int_equal(f->version, 5);
	assert_int_equal(f->columns, 65);
	assert_int_equal(f->rows, 59);
	assert_int_equal(f->skins_count, 1);
	assert_int_equal(f->frames_count, 1);
	assert_int_equal(f->trailing_size, 0);
	T_ASSERT_ENCODES_TO(gsio_hmp_encode, f, data, size, "HMP");
	gsio_hmp_file_free(f);
	free(data);
}

/* Every prefix of the file must fail cleanly: it has no trailing bytes, so any
 * cut lands inside a structure. Each prefix is an exact-size heap block so a
 * sanitizer build catches a read past its end. */
static void test_shadow5_truncated(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_shadow(&size);
	size_t tried = 0;
	for (size_t i = 0; i < 1300; i++) {
		size_t n = i < 300 ? i : 300 + (size - 301) * (i - 300) / 999;
		if (n >= size) continue;
		uint8_t *cut = t_prefix_copy(data, n);
		gsio_error err;
		gsio_scene *s = checked(gsio_load_memory(cut, n, "t.hmp", NULL, &err));
		if (s) fail_msg("prefix of %zu bytes loaded", n);
		if (n >= 4 && err.code != GSIO_ERR_TRUNCATED && err.code != GSIO_ERR_CORRUPT)
			fail_msg("prefix of %zu bytes: code %s (%s)", n, gsio_error_code_name(err.code),
			         err.message);
		if (n >= 4) assert_true(err.offset >= 0 && (size_t)err.offset <= n);
		free(cut);
		tried++;
	}
	print_message("shadow-5: %zu truncated prefixes, all refused\n", tried);
	free(data);
}

static void test_shadow5_corrupt_fields(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = read_shadow(&size);
	uint8_t *d = malloc(size);
	const size_t frame_at = 84 + 12 + 4177920;
	struct {
		size_t at;
		int is_float;
		int32_t i;
		float f;
		gsio_error_code want;
	} cases[] = {
	    {48, 0, 0x7fffffff, 0, GSIO_ERR_CORRUPT},   // numskins
	    {48, 0, -1, 0, GSIO_ERR_CORRUPT},
	    {48, 0, 2, 0, GSIO_ERR_CORRUPT},            // a 2nd skin: the frame read as a 0x0 skin
	    {60, 0, -1, 0, GSIO_ERR_CORRUPT},           // numverts
	    {60, 0, 3836, 0, GSIO_ERR_CORRUPT},         // not a multiple of 65
	    {60, 0, 65 * 1000, 0, GSIO_ERR_CORRUPT},    // too many to fit
	    {60, 0, 65, 0, GSIO_ERR_CORRUPT},           // one row
	    {68, 0, 1000, 0, GSIO_ERR_CORRUPT},         // numframes
	    {68, 0, -3, 0, GSIO_ERR_CORRUPT},
	    {68, 0, 0x7fffffff, 0, GSIO_ERR_CORRUPT},
	    {44, 1, 0, NAN, GSIO_ERR_CORRUPT},          // fnumverts_x
	    {44, 1, 0, 0.0f, GSIO_ERR_CORRUPT},
	    {44, 1, 0, 1.0f, GSIO_ERR_CORRUPT},
	    {44, 1, 0, 1e30f, GSIO_ERR_CORRUPT},
	    {44, 1, 0, -65.0f, GSIO_ERR_CORRUPT},
	    {44, 1, 0, 64.0f, GSIO_ERR_CORRUPT},
	    {16, 1, 0, INFINITY, GSIO_ERR_CORRUPT},     // scale[2]
	    {36, 1, 0, NAN, GSIO_ERR_CORRUPT},          // ftrisize_x
	    {36, 1, 0, 1e37f, GSIO_ERR_CORRUPT},        // the last column's x overflows
	    {16, 1, 0, 1e34f, GSIO_ERR_CORRUPT},        // the highest height's z overflows
	    {16, 1, 0, -1e34f, GSIO_ERR_CORRUPT},
	    {84, 0, 99, 0, GSIO_ERR_UNSUPPORTED},       // skin type
	    {84, 0, -1, 0, GSIO_ERR_UNSUPPORTED},
	    {88, 0, 0, 0, GSIO_ERR_CORRUPT},            // skin width
	    {88, 0, -5, 0, GSIO_ERR_CORRUPT},
	    {88, 0, 100000, 0, GSIO_ERR_CORRUPT},
	    {92, 0, 2048, 0, GSIO_ERR_TRUNCATED},       // skin height: more pixels than bytes
	    {frame_at, 0, 0, 0, GSIO_ERR_CORRUPT},      // frame type
	    {frame_at, 0, 7, 0, GSIO_ERR_CORRUPT},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(d, data, size);
		if (cases[i].is_float)
			set_f32(d, cases[i].at, cases[i].f);
		else
			set_i32(d, cases[i].at, cases[i].i);
		gsio_error err;
		gsio_scene *s = checked(gsio_load_memory(d, size, "t.hmp", NULL, &err));
		if (s) fail_msg("case %zu (offset %zu) loaded", i, cases[i].at);
		if (err.code != cases[i].want)
			fail_msg("case %zu (offset %zu): %s (%s), wanted %s", i, cases[i].at,
			         gsio_error_code_name(err.code), err.message,
			         gsio_error_code_name(cases[i].want));
		assert_true(err.offset >= 0);
		assert_string_equal(err.file, "t.hmp");
	}
	// A bad normal index is not fatal: a warning and normal 0.
	memcpy(d, data, size);
	d[frame_at + 36 + 2] = 200;
	gsio_error err;
	gsio_scene *s = checked(gsio_load_memory(d, size, "t.hmp", NULL, &err));
	assert_non_null(s);
	assert_int_equal(s->warnings_count, 1);
	gsio_scene_free(s);
	free(d);
	free(data);
}

/* Fail the 1st, 2nd, ... allocation of a whole load until it succeeds: each
 * failure is a NOMEM error with every block freed; each scene is checked. */
static size_t alloc_failure_loop(const uint8_t *data, size_t size)
{
	t_load_input in = {data, size, "t.hmp", NULL, checked};
	return t_each_alloc_fails("t.hmp", t_try_load, &in, T_NOMEM, 1).failures;
}

static void test_alloc_failures(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *files[] = {"hmp/shadow-5.hmp", "hmp/lgs-small.hmp", "hmp/assimp-terrain.hmp"};
	for (size_t i = 0; i < 3; i++) {
		size_t size;
		uint8_t *data = t_read_corpus(files[i], &size);
		size_t n = alloc_failure_loop(data, size);
		print_message("%s: loads with %zu allocations; each failure refused, no leaks\n",
		              files[i], n);
		free(data);
	}
	size_t size;
	uint8_t *data = make_hmp5(&size);
	print_message("synthetic HMP5: %zu allocations\n", alloc_failure_loop(data, size));
	free(data);
	// A memory limit below what the terrain needs is a clean LIMIT error.
	data = read_shadow(&size);
	gsio_opts opts = {0};
	opts.memory_limit = 1 << 20;
	gsio_error err;
	assert_null(gsio_load_memory(data, size, "t.hmp", &opts, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	free(data);
}

// -- HMP7 and the invalid corpus file

/* Normals against the height gradient of the grid we built: an outward
 * normal leans downhill, so n.x follows -dz/dx and n.y follows -dz/dy. */
static void gradient_agreement(const gsio_scene *s, double *corr_x, double *corr_y)
{
	const gsio_mesh *m = &s->meshes[0];
	uint32_t cols = s->terrain->columns, rows = s->terrain->rows;
	const float *p = m->positions;
	*corr_x = *corr_y = 0;
	for (uint32_t r = 1; r + 1 < rows; r++)
		for (uint32_t c = 1; c + 1 < cols; c++) {
			size_t v = (size_t)r * cols + c;
			double dzdx = (p[3 * (v + 1) + 2] - p[3 * (v - 1) + 2]) / (p[3 * (v + 1)] - p[3 * (v - 1)]);
			double dzdy = (p[3 * (v + cols) + 2] - p[3 * (v - cols) + 2]) /
			              (p[3 * (v + cols) + 1] - p[3 * (v - cols) + 1]);
			*corr_x += -dzdx * m->normals[3 * v];
			*corr_y += -dzdy * m->normals[3 * v + 1];
		}
}

/* docs/FORMATS.md §6.5: two readings of HMP7 fit its data: (a) rows run
 * from +y to -y (image order), columns from -x to +x,
 * normals stored inward; or (b) the same grid mirrored in x with normals
 * stored outward. Both fit HMP7's two-component normals alone. HMP5 decides
 * it: its table normals are whole 3D vectors, so their z sign says inward or
 * outward, and in the shared grid layout (HMP7 has HMP5's header and height
 * frames byte for byte) the x and y signs then fix the grid's handedness.
 * Measured here on the raw file values (no gsio scene), for each file in
 * grid (a): the Pearson correlation of the stored normal's x with +dz/dx and
 * of its y with +dz/dy (positive = inward). shadow-5.hmp (HMP5): stored z < 0
 * (inward) and both correlations positive, so the grid is (a); lgs-small.hmp
 * (HMP7): both positive as well, i.e. inward in grid (a), the HMP5
 * convention. Reading (b) would need HMP7 mirrored against HMP5 and its
 * normal sign flipped, two changes nothing in the file shows. The top-down
 * render against the colour map (tests/e2e/hmp_blender.py, hmp_glb_blender_lgs-small)
 * agrees: the map shows unmirrored from above (r +0.98; mirrored +0.28).
 * The colour map itself cannot decide: a mirror moves map and grid
 * together, and lgs-small's map does not follow its heights anyway
 * (saturation vs height |r| < 0.22 under all 8 placements, unlike shadow-5). */
static double pearson(const double *a, const double *b, size_t n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
	for (size_t i = 0; i < n; i++) {
		ma += a[i];
		mb += b[i];
	}
	ma /= (double)n;
	mb /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	return sab / sqrt(saa * sbb);
}

static void test_hmp_grid_orientation(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *names[] = {"hmp/shadow-5.hmp", "hmp/lgs-small.hmp"};
	for (size_t i = 0; i < 2; i++) {
		size_t size;
		uint8_t *data = t_read_corpus(names[i], &size);
		gsio_hmp_file *f = decode_ok(data, size, names[i]);
		const gsio_hmp_header *h = &f->header;
		uint32_t cols = f->columns, rows = f->rows;
		size_t n = (size_t)(cols - 2) * (rows - 2), k = 0, inward_z = 0;
		double *gx = malloc(n * sizeof(double)), *gy = malloc(n * sizeof(double));
		double *nx = malloc(n * sizeof(double)), *ny = malloc(n * sizeof(double));
		assert_true(gx && gy && nx && ny);
		const gsio_hmp_height *ht = f->frames[0].heights;
#define Z(r, c) (h->scale[2] * (double)ht[(size_t)(r) * cols + (c)].z + h->offset[2])
		for (uint32_t r = 1; r + 1 < rows; r++)
			for (uint32_t c = 1; c + 1 < cols; c++, k++) {
				const gsio_hmp_height *v = &ht[(size_t)r * cols + c];
				// Grid (a): x grows with the column, y falls with the row.
				gx[k] = (Z(r, c + 1) - Z(r, c - 1)) / (2.0 * h->ftrisize_x);
				gy[k] = (Z(r - 1, c) - Z(r + 1, c)) / (2.0 * h->ftrisize_y);
				if (f->version == 7) {
					nx[k] = (int8_t)v->normal;
					ny[k] = (int8_t)v->pad;
				} else {
					unsigned ni = v->normal < GSIO_NORMAL_COUNT ? v->normal : 0;
					nx[k] = gsio_anorms[ni][0];
					ny[k] = gsio_anorms[ni][1];
					inward_z += gsio_anorms[ni][2] < 0;
				}
			}
#undef Z
		double rx = pearson(nx, gx, n), ry = pearson(ny, gy, n);
		print_message("%-18s HMP%d grid (a): stored normal x vs +dz/dx r %+.3f, y vs +dz/dy r "
		              "%+.3f%s",
		              names[i], f->version, rx, ry, f->version == 7 ? "\n" : "");
		if (f->version == 5) {
			print_message(", stored z < 0 at %zu of %zu vertices\n", inward_z, n);
			assert_true(inward_z * 10 >= n * 9); // inward
		}
		assert_true(rx > 0.8 && ry > 0.8);
		free(gx);
		free(gy);
		free(nx);
		free(ny);
		gsio_hmp_file_free(f);
		free(data);
	}
}

static void test_hmp7_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const struct {
		const char *file;
		uint32_t cols, rows;
		size_t images;
		int32_t detail;
	} files[] = {{"hmp/assimp-terrain.hmp", 33, 33, 0, -1}, {"hmp/lgs-small.hmp", 66, 66, 2, 1}};
	for (size_t i = 0; i < 2; i++) {
		size_t size;
		uint8_t *data = t_read_corpus(files[i].file, &size);
		gsio_error err;
		gsio_hmp_file *f = decode_ok(data, size, files[i].file);
		assert_int_equal(f->version, 7);
		assert_int_equal(f->trailing_size, 0);
		T_ASSERT_ENCODES_TO(gsio_hmp_encode, f, data, size, "HMP");
		gsio_scene *s = checked(gsio_hmp_to_scene(f, files[i].file, NULL, &err));
		if (!s) fail_msg("%s: %s", files[i].file, err.message);
		assert_string_equal(s->format, "HMP7");
		const gsio_mesh *m = &s->meshes[0];
		assert_int_equal(s->terrain->columns, files[i].cols);
		assert_int_equal(s->terrain->rows, files[i].rows);
		assert_int_equal(m->vertex_count, (size_t)files[i].cols * files[i].rows);
		assert_null(s->terrain->normal_indices);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const float *n = m->normals + 3 * v;
			assert_true(n[2] > 0.0f);
			assert_float_equal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-4f);
		}
		double cx, cy;
		gradient_agreement(s, &cx, &cy);
		print_message("%s: %u x %u, z %.3f..%.3f, normal vs -gradient x %.1f y %.1f\n",
		              files[i].file, files[i].cols, files[i].rows, (double)m->bbox_min[2],
		              (double)m->bbox_max[2], cx, cy);
		assert_true(cx > 0 && cy > 0);
		assert_int_equal(s->images_count, files[i].images);
		if (files[i].images) assert_int_equal(s->materials[0].detail_texture.image, files[i].detail);
		gsio_scene_free(s);
		gsio_hmp_file_free(f);

		// Every prefix fails (no trailing bytes), checked at up to 1300 cut points.
		size_t cuts = size < 1300 ? size : 1300;
		for (size_t k = 0; k < cuts; k++) {
			size_t n = size < 1300 ? k : (k < 300 ? k : 300 + (size - 301) * (k - 300) / 999);
			uint8_t *cut = t_prefix_copy(data, n);
			f = gsio_hmp_decode(cut, n, "t.hmp", NULL, &err);
			if (f) fail_msg("%s: prefix of %zu bytes decoded", files[i].file, n);
			free(cut);
		}
		free(data);
	}
}

/* The crafted file: two type-7 skins (external texture names), the second
 * one not terminated before the end of the file. */
static void test_invalid_external_texture_name(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *path = t_corpus_path("invalid/invalid_external_texture_name.hmp");
	gsio_error err;
	gsio_scene *s = checked(gsio_load_file(path, NULL, &err));
	assert_null(s);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, 112); // after skin 0 ("abc") and skin 1's 12-byte header
	assert_non_null(strstr(err.message, "not NUL-terminated"));
	assert_non_null(strstr(err.file, "invalid_external_texture_name.hmp"));
	char line[600];
	gsio_error_format(&err, line, sizeof(line));
	print_message("%s\n", line);
}

// -- Hand-built files

static void test_synthetic_hmp5(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_hmp5(&size);
	gsio_error err;
	gsio_hmp_file *f = decode_ok(data, size, "syn.hmp");
	assert_int_equal(f->header.nu1, 7);
	assert_int_equal(f->header.nu6, 0x12345678);
	assert_int_equal(f->header.nu12, 13);
	assert_int_equal(f->skins_count, 3);
	assert_int_equal(f->frames_count, 2);
	assert_int_equal(f->trailing_size, 3);
	assert_int_equal(f->frames[1].heights[5].z, 15);
	assert_int_equal(f->frames[1].heights[5].pad, 0xA5);
	T_ASSERT_ENCODES_TO(gsio_hmp_encode, f, data, size, "HMP");

	gsio_scene *s = scene_ok(gsio_hmp_to_scene(f, "syn.hmp", NULL, &err), "scene", &err);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->vertex_count, 6);
	assert_int_equal(m->index_count, 12);
	// Vertex 4 = row 1 (the -y edge, y = 20), column 1 (x = -10 + 4).
	assert_float_equal(m->positions[12], -6.0f, 1e-6f);
	assert_float_equal(m->positions[13], 20.0f, 1e-6f);
	assert_float_equal(m->positions[14], 0.5f * 4 + 5.0f, 1e-6f);
	// Vertex 2 = row 0 (y = 20 + 6), column 2 (x = -2).
	assert_float_equal(m->positions[6], -2.0f, 1e-6f);
	assert_float_equal(m->positions[7], 26.0f, 1e-6f);
	assert_float_equal(m->uvs[8], 0.5f, 1e-6f);
	assert_float_equal(m->uvs[9], 1.0f, 1e-6f);
	// Normal of vertex 0: the negated table entry 1.
	for (int k = 0; k < 3; k++) assert_float_equal(m->normals[k], -gsio_anorms[1][k], 1e-6f);
	assert_int_equal(m->frames_count, 2);
	assert_string_equal(m->frames[1].name, "wave1");
	assert_float_equal(m->frames[1].positions[14], 0.5f * 14 + 5.0f, 1e-6f);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "wave");
	assert_int_equal(s->animations[0].frames_count, 2);
	assert_int_equal(s->animations[0].channels[0].node, 0);
	assert_int_equal(s->animations[0].channels[0].frames[1], 1);
	assert_string_equal(s->nodes[0].name, "syn");
	// Colour map, detail map (different size), third skin kept and warned about.
	assert_int_equal(s->images_count, 3);
	assert_int_equal(s->materials_count, 1);
	const gsio_material *mat = &s->materials[0];
	assert_int_equal(mat->base_color_texture.image, 0);
	assert_int_equal(mat->detail_texture.image, 1);
	assert_int_equal(mat->detail_texture.wrap_u, GSIO_WRAP_REPEAT);
	assert_float_equal(mat->detail_texture.tiling, 2.0f, 1e-6f);
	assert_int_equal(s->images[0].rgba[0], 255); // first texel: R 255, B 0
	assert_int_equal(s->images[0].rgba[2], 0);
	assert_int_equal(s->images[1].rgba[0], 255);
	assert_int_equal(s->images[1].rgba[1], 0);
	assert_int_equal(s->warnings_count, 1);
	assert_non_null(strstr(s->warnings[0], "skin 2"));
	assert_int_equal(s->terrain->raw_heights[5], 5);
	assert_int_equal(s->terrain->normal_indices[5], 6);
	gsio_scene_free(s);

	// Only the first frame with GSIO_OPT_NO_ANIMATION.
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = checked(gsio_hmp_to_scene(f, "syn.hmp", &opts, &err));
	assert_non_null(s);
	assert_int_equal(s->meshes[0].frames_count, 1);
	assert_int_equal(s->animations_count, 0);
	gsio_scene_free(s);
	gsio_hmp_file_free(f);

	// Every prefix fails (the 3 trailing bytes are optional: prefixes that cut
	// only them load, with fewer trailing bytes).
	for (size_t n = 0; n < size; n++) {
		uint8_t *cut = t_prefix_copy(data, n);
		f = gsio_hmp_decode(cut, n, "t.hmp", NULL, &err);
		if (n < size - 3)
			assert_null(f);
		else {
			assert_non_null(f);
			assert_int_equal(f->trailing_size, n - (size - 3));
		}
		gsio_hmp_file_free(f);
		free(cut);
	}
	free(data);
}

/* Random byte mutations of the small file: never a crash, a leak or a scene
 * with out-of-range indices. */
static uint8_t *make_hmp7(size_t *size, int32_t second_type);

static void mutate(const uint8_t *data, size_t size, const char *what)
{
	uint8_t *d = malloc(size);
	uint32_t seed = 12345;
	size_t loaded = 0, refused = 0;
	for (int iter = 0; iter < 20000; iter++) {
		memcpy(d, data, size);
		int flips = 1 + iter % 4;
		for (int k = 0; k < flips; k++) {
			seed = seed * 1664525u + 1013904223u;
			size_t at = (seed >> 8) % size;
			seed = seed * 1664525u + 1013904223u;
			d[at] = (uint8_t)(seed >> 24);
		}
		t_fail_alloc st = {0, 0, 0};
		gsio_allocator al = t_fail_allocator(&st);
		gsio_opts opts = {0};
		opts.allocator = &al;
		gsio_error err;
		gsio_scene *s = checked(gsio_load_memory(d, size, "t.hmp", &opts, &err));
		if (s) {
			loaded++;
			for (size_t i = 0; i < s->meshes_count; i++)
				for (size_t j = 0; j < s->meshes[i].index_count; j++)
					assert_true(s->meshes[i].indices[j] < s->meshes[i].vertex_count);
			gsio_scene_free(s);
		} else {
			refused++;
			assert_int_not_equal(err.code, GSIO_OK);
		}
		assert_int_equal(st.live, 0);
	}
	print_message("%s mutations: %zu loaded, %zu refused\n", what, loaded, refused);
	assert_true(loaded > 0 && refused > 0);
	free(d);
}

static void test_synthetic_mutations(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_hmp5(&size);
	mutate(data, size, "HMP5");
	free(data);
	data = make_hmp7(&size, 2);
	mutate(data, size, "HMP7");
	free(data);
}

static void test_synthetic_hmp4(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_hmp4(&size, 2);
	gsio_error err;
	gsio_hmp_file *f = decode_ok(data, size, "syn4.hmp");
	assert_int_equal(f->version, 4);
	assert_int_equal(f->skins[0].width, 2);
	assert_int_equal(f->skins[0].height, 2);
	assert_int_equal(f->trailing_size, 0);
	T_ASSERT_ENCODES_TO(gsio_hmp_encode, f, data, size, "HMP");
	gsio_scene *s = checked(gsio_hmp_to_scene(f, "syn4.hmp", NULL, &err));
	assert_non_null(s);
	assert_string_equal(s->format, "HMP4");
	assert_int_equal(s->format_version, 4);
	assert_int_equal(s->images_count, 1);
	assert_int_equal(s->images[0].rgba[1], 255); // green
	assert_int_equal(s->meshes[0].vertex_count, 6);
	gsio_scene_free(s);
	gsio_hmp_file_free(f);
	free(data);

	// Mips and DDS need a per-skin size, which HMP4 lacks.
	data = make_hmp4(&size, 2 | 8);
	expect_error(data, size, "HMP4 with a mipmapped skin");
	free(data);
	data = make_hmp4(&size, 6);
	expect_error(data, size, "HMP4 with a DDS skin");
	free(data);
	// A zero skin size in the header is corrupt.
	data = make_hmp4(&size, 2);
	set_i32(data, 52, 0);
	expect_error(data, size, "HMP4 with skin width 0");
	free(data);
}

/* HMP7 by hand: an external texture name skin, a 565 skin, normals as int8
 * pairs, and the MDL7 material flag refused. */
static uint8_t *make_hmp7(size_t *size, int32_t second_type)
{
	buf b = {0};
	b_header(&b, "HMP7", 2, 0, 0, 1);
	b_external_skin(&b, "grass.pcx");
	b_i32(&b, second_type);
	b_i32(&b, 2);
	b_i32(&b, 2);
	for (int i = 0; i < 4; i++) b_u16(&b, 0x001F); // pure blue
	b_frame(&b, 0, "");
	*size = b.n;
	return b.d;
}

static void test_synthetic_hmp7(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_hmp7(&size, 2);
	// Vertex 1: nx = 0, ny = 0 (flat); vertex 2: nx = 127, ny = 0 (a wall facing -x).
	size_t rec = size - 6 * 4;
	data[rec + 4 + 2] = 0, data[rec + 4 + 3] = 0;
	data[rec + 8 + 2] = 127, data[rec + 8 + 3] = 0;
	// Vertex 3: nx = -60, ny = 50: outward (60, -50, sqrt(127^2 - 60^2 - 50^2)) / 127.
	data[rec + 12 + 2] = (uint8_t)(int8_t)-60, data[rec + 12 + 3] = 50;
	gsio_error err;
	gsio_hmp_file *f = decode_ok(data, size, "syn7.hmp");
	assert_int_equal(f->version, 7);
	assert_int_equal(f->skins[0].type, 7);
	assert_int_equal(f->skins[0].pixels_size, 10);
	assert_string_equal((const char *)f->skins[0].pixels, "grass.pcx");
	T_ASSERT_ENCODES_TO(gsio_hmp_encode, f, data, size, "HMP");
	gsio_scene *s = scene_ok(gsio_hmp_to_scene(f, "syn7.hmp", NULL, &err), "scene", &err);
	assert_string_equal(s->format, "HMP7");
	assert_int_equal(s->images_count, 1); // the external one is named, not loaded
	assert_int_equal(s->images[0].rgba[2], 255);
	assert_int_equal(s->materials[0].base_color_texture.image, -1);
	assert_int_equal(s->materials[0].detail_texture.image, 0); // stored sizes 0x1 and 2x2 differ
	assert_int_equal(s->warnings_count, 1);
	assert_non_null(strstr(s->warnings[0], "grass.pcx"));
	const float *n = s->meshes[0].normals;
	assert_float_equal(n[3], 0.0f, 1e-6f);
	assert_float_equal(n[5], 1.0f, 1e-6f);
	assert_float_equal(n[6], -1.0f, 1e-6f);
	assert_float_equal(n[8], 0.0f, 1e-6f);
	float z = sqrtf(127.0f * 127.0f - 3600.0f - 2500.0f);
	assert_float_equal(n[9], 60.0f / 127.0f, 1e-5f);
	assert_float_equal(n[10], -50.0f / 127.0f, 1e-5f);
	assert_float_equal(n[11], z / 127.0f, 1e-5f);
	assert_null(s->terrain->normal_indices);
	gsio_scene_free(s);
	gsio_hmp_file_free(f);
	free(data);

	// MDL7 material data (type | 0x10): refused, not guessed.
	data = make_hmp7(&size, 2 | 0x10);
	assert_null(gsio_hmp_decode(data, size, "t.hmp", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	assert_int_equal(err.offset, 84 + 12 + 10);
	free(data);
	// A file name that runs to the end of the file.
	data = make_hmp7(&size, 2);
	memset(data + 84 + 12, 'A', size - 84 - 12);
	assert_null(gsio_hmp_decode(data, size, "t.hmp", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	free(data);
}

/* An external texture beside the terrain: found by its base name only (the
 * stored folder is ignored), decoded, and used as the colour map. */
static void test_hmp7_external_texture(void **state)
{
	(void)state;
	char dir[] = "/tmp/gsio_hmp_XXXXXX";
	assert_non_null(mkdtemp(dir));
	// A 2x2 uncompressed TGA, top-left origin, B G R: red, green / blue, white.
	uint8_t tga[18 + 12] = {0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 24, 0x20,
	                        0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255};
	char path[512];
	snprintf(path, sizeof(path), "%s/ground.tga", dir);
	t_write_file(path, tga, sizeof(tga));
	buf b = {0};
	b_header(&b, "HMP7", 2, 0, 0, 1);
	const char *name = "C:\\acknex\\textures\\ground.tga";
	b_i32(&b, 7);
	b_i32(&b, 0);
	b_i32(&b, 1);
	b_put(&b, name, strlen(name) + 1);
	const char *evil = "../../../etc/passwd";
	b_i32(&b, 7);
	b_i32(&b, 0);
	b_i32(&b, 1);
	b_put(&b, evil, strlen(evil) + 1);
	b_frame(&b, 0, "");
	char hmp[512];
	snprintf(hmp, sizeof(hmp), "%s/t.hmp", dir);
	t_write_file(hmp, b.d, b.n);
	gsio_error err;
	gsio_scene *s = scene_ok(gsio_load_file(hmp, NULL, &err), "load", &err);
	assert_int_equal(s->images_count, 1);
	const gsio_image *im = &s->images[0];
	assert_int_equal(im->width, 2);
	assert_int_equal(im->height, 2);
	assert_string_equal(im->source_path, path);
	assert_int_equal(im->source_type, 7);
	assert_int_equal(im->rgba[0], 255); // top-left red
	assert_int_equal(im->rgba[1], 0);
	assert_int_equal(im->rgba[4 * 2 + 2], 255); // bottom-left blue
	assert_int_equal(s->materials[0].base_color_texture.image, 0);
	// The second name is looked for as "passwd" beside the terrain only: absent.
	assert_int_equal(s->warnings_count, 1);
	assert_non_null(strstr(s->warnings[0], "passwd"));
	assert_non_null(strstr(s->warnings[0], dir));
	gsio_scene_free(s);
	remove(hmp);
	remove(path);
	rmdir(dir);
	free(b.d);
}

// -- A PNG whose pixels inflate far beyond its size (a deflate bomb)

typedef struct bits {
	buf *b;
	uint32_t acc;
	int n;
} bits;

static void bits_put(bits *w, uint32_t v, int count) // LSB first
{
	for (int i = 0; i < count; i++) {
		w->acc |= ((v >> i) & 1u) << w->n;
		if (++w->n == 8) {
			b_u8(w->b, (uint8_t)w->acc);
			w->acc = 0;
			w->n = 0;
		}
	}
}

static void bits_code(bits *w, uint32_t code, int len) // Huffman codes: MSB first
{
	for (int i = len - 1; i >= 0; i--) bits_put(w, (code >> i) & 1u, 1);
}

static void b_be32(buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	b_put(b, x, 4);
}

/* A 1x1 RGBA PNG whose zlib data is one fixed-Huffman block: the filter
 * byte, then `repeats` copies of (length 258, distance 1), all zeros: 1 +
 * 258 * repeats bytes from about 13 bits each. stb_image checks neither the
 * CRCs nor the Adler-32, so they are left 0. */
static uint8_t *make_png_bomb(size_t repeats, size_t *size)
{
	buf z = {0};
	b_u8(&z, 0x78);
	b_u8(&z, 0x01);
	bits w = {&z, 0, 0};
	bits_put(&w, 1, 1);          // BFINAL
	bits_put(&w, 1, 2);          // BTYPE 01: fixed Huffman codes
	bits_code(&w, 0x30 + 0, 8);  // literal 0 (the filter byte)
	for (int i = 0; i < 4; i++) bits_code(&w, 0x30, 8); // the pixel: 0, 0, 0, 0
	for (size_t i = 0; i < repeats; i++) {
		bits_code(&w, 0xC0 + (285 - 280), 8); // length 258
		bits_code(&w, 0, 5);                  // distance code 0: distance 1
	}
	bits_code(&w, 0, 7); // end of block
	if (w.n) bits_put(&w, 0, 8 - w.n);
	b_be32(&z, 0); // Adler-32, unchecked
	buf png = {0};
	b_put(&png, "\x89PNG\r\n\x1a\n", 8);
	b_be32(&png, 13);
	b_put(&png, "IHDR", 4);
	b_be32(&png, 1);
	b_be32(&png, 1);
	const uint8_t ihdr[5] = {8, 6, 0, 0, 0}; // 8-bit RGBA
	b_put(&png, ihdr, 5);
	b_be32(&png, 0);
	b_be32(&png, (uint32_t)z.n);
	b_put(&png, "IDAT", 4);
	b_put(&png, z.d, z.n);
	b_be32(&png, 0);
	b_be32(&png, 0);
	b_put(&png, "IEND", 4);
	b_be32(&png, 0);
	free(z.d);
	*size = png.n;
	return png.d;
}

/* An external texture that inflates to 16 MiB for one pixel is refused with
 * a warning, not decoded outside the memory limit (stb_image allocates on its
 * own; found by fuzzing: 200 KiB became 200 MiB). The same PNG without the
 * repeats loads, so the PNG built here is a valid one. */
static void test_hmp7_external_png_bomb(void **state)
{
	(void)state;
	buf b = {0};
	b_header(&b, "HMP7", 1, 0, 0, 1);
	b_external_skin(&b, "bomb.png");
	b_frame(&b, 0, "");
	for (int bomb = 0; bomb < 2; bomb++) {
		size_t png_size;
		uint8_t *png = make_png_bomb(bomb ? ((size_t)16 << 20) / 258 : 0, &png_size);
		t_blob file = {.data = png, .size = png_size}; // for every path
		gsio_io io = t_blob_io(&file);
		gsio_opts opts;
		memset(&opts, 0, sizeof(opts));
		opts.io = &io;
		gsio_error err;
		gsio_scene *s = scene_ok(gsio_load_memory(b.d, b.n, "bomb.hmp", &opts, &err), "load", &err);
		if (!bomb) {
			assert_int_equal(s->images_count, 1);
			assert_int_equal(s->images[0].width, 1);
			assert_int_equal(s->warnings_count, 0);
		} else {
			assert_true(png_size < 120000);
			assert_int_equal(s->images_count, 0);
			assert_int_equal(s->warnings_count, 1);
			assert_non_null(strstr(s->warnings[0], "decompression bomb"));
		}
		gsio_scene_free(s);
		free(png);
	}
	free(b.d);
}

static void test_magic_and_registry(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_hmp5(&size);
	assert_ptr_equal(gsio_find_importer(data, size, "x.bin"), &gsio_hmp_importer);
	gsio_error err;
	memcpy(data, "HMP6", 4);
	assert_null(gsio_hmp_decode(data, size, "t.hmp", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
	memcpy(data, "XYZW", 4);
	assert_null(gsio_hmp_decode(data, size, "t.hmp", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_BAD_MAGIC);
	assert_null(gsio_hmp_decode(data, 0, "t.hmp", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	free(data);

	// No frames: a scene with the skins, no mesh, and a warning.
	data = make_hmp5(&size);
	set_i32(data, 68, 0);
	gsio_hmp_file *f = gsio_hmp_decode(data, size, "t.hmp", NULL, &err);
	assert_non_null(f);
	gsio_scene *s = checked(gsio_hmp_to_scene(f, "t.hmp", NULL, &err));
	assert_non_null(s);
	assert_int_equal(s->meshes_count, 0);
	assert_null(s->terrain);
	assert_int_equal(s->images_count, 3);
	assert_true(s->warnings_count >= 1);
	gsio_scene_free(s);
	gsio_hmp_file_free(f);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shadow5_grid),
	    cmocka_unit_test(test_shadow5_colour_map_orientation),
	    cmocka_unit_test(test_shadow5_roundtrip),
	    cmocka_unit_test(test_shadow5_truncated),
	    cmocka_unit_test(test_shadow5_corrupt_fields),
	    cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_hmp7_corpus),
	    cmocka_unit_test(test_hmp_grid_orientation),
	    cmocka_unit_test(test_invalid_external_texture_name),
	    cmocka_unit_test(test_synthetic_hmp5),
	    cmocka_unit_test(test_synthetic_mutations),
	    cmocka_unit_test(test_hmp4_pal8),
	    cmocka_unit_test(test_synthetic_hmp4),
	    cmocka_unit_test(test_synthetic_hmp7),
	    cmocka_unit_test(test_hmp7_external_texture),
	    cmocka_unit_test(test_hmp7_external_png_bomb),
	    cmocka_unit_test(test_magic_and_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
