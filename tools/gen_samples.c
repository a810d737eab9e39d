/* gsio_gen_samples: writes the project's own sample models into samples/.
 *
 * Every sample is the same small textured box (8 positions, 12 triangles, 24
 * skin vertices; double_sided.mdl stores each of its faces a second time the
 * other way round, 24 triangles), built by hand as a gsio_mdl_file and written with
 * gsio_mdl_encode, so a fresh clone has files to convert that nobody else
 * owns. The skin is a 3 x 2 atlas, one cell per face, each cell with an "F"
 * whose shape shows any flip or rotation; the front face (+X, GameStudio's
 * forward) uses the top-left cell, whose F is white.
 *
 * Output is deterministic: positions are computed in integer fixed point
 * (1/1024 quant) with integer sine tables, so no libm result can change a
 * byte between machines.
 *
 *   gsio_gen_samples DIR          write DIR/<sample>.mdl
 *   gsio_gen_samples --check DIR  exit 1 unless DIR holds exactly these bytes
 *
 * tests/test_mdl_samples.c includes this file (with
 * GSIO_GEN_SAMPLES_NO_MAIN) to regenerate the samples in memory and to know
 * the pixels each skin was meant to have. */
#include "gsio.h"
#include "gsio_mdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Interface (also used by tests/test_mdl_samples.c)

/** A skin as the generator means it. */
typedef struct gen_skin {
	int32_t type;          /**< MDL skin type code (| 8: three box-filtered mips) */
	int32_t width, height; /**< multiples of 24 x 16 so cells and mips stay whole */
	int variant;           /**< 0: primary colours, 1: their complements */
	int alpha;             /**< 1: cell backgrounds get decreasing alpha */
} gen_skin;

/** A clip: consecutive frames named name0..name(count-1). */
typedef struct gen_clip {
	const char *name;
	size_t frames;
} gen_clip;

/** One sample file. */
typedef struct gen_sample {
	const char *file;      /**< file name in samples/ */
	const gen_skin *skins;
	size_t skins_count;
	const gen_clip *clips;
	size_t clips_count;
	int32_t frame_type;    /**< GSIO_MDL_FRAME_BYTE or GSIO_MDL_FRAME_WORD */
	int double_sided;      /**< 1: every face stored twice, once each way round,
	                            on the same vertices (as some real models do) */
} gen_sample;

size_t gen_sample_count(void);
const gen_sample *gen_sample_get(size_t i);
/** The RGBA8 image a skin is meant to show (width*height*4 bytes, top row first). */
void gen_skin_rgba(const gen_skin *skin, uint8_t *rgba);
/** Encodes sample i into malloc'd bytes. Returns 0 or -1 with err set. */
int gen_sample_encode(size_t i, uint8_t **out, size_t *out_size, gsio_error *err);

// -- The samples

#define GEN_W 96
#define GEN_H 64

static const gen_skin skins_pal8[] = {{0, GEN_W, GEN_H, 0, 0}};
static const gen_skin skins_4444[] = {{3, GEN_W, GEN_H, 0, 1}};
static const gen_skin skins_8888[] = {{5, GEN_W, GEN_H, 0, 1}};
static const gen_skin skins_mip[] = {{2 | GSIO_MDL_SKIN_MIPS, GEN_W, GEN_H, 0, 0}};
static const gen_skin skins_two[] = {{4, GEN_W, GEN_H, 0, 0}, {2, GEN_W / 2, GEN_H / 2, 1, 0}};
static const gen_skin skins_clips[] = {{2, GEN_W, GEN_H, 0, 0}};

static const gen_clip clips_idle[] = {{"idle", 1}};
static const gen_clip clips_anim[] = {{"stand", 4}, {"walk", 8}, {"die", 6}};

#define GEN_N(a) (sizeof(a) / sizeof((a)[0]))

// pal8.mdl is byte-packed (type 0 frames are valid in MDL5 too, per the seed);
// every other sample is word-packed like the real MDL4/MDL5 files.
static const gen_sample samples[] = {
    {"pal8.mdl", skins_pal8, 1, clips_idle, 1, GSIO_MDL_FRAME_BYTE},
    {"argb4444.mdl", skins_4444, 1, clips_idle, 1, GSIO_MDL_FRAME_WORD},
    {"bgra8888.mdl", skins_8888, 1, clips_idle, 1, GSIO_MDL_FRAME_WORD},
    {"mipmapped.mdl", skins_mip, 1, clips_idle, 1, GSIO_MDL_FRAME_WORD},
    {"two_skins.mdl", skins_two, 2, clips_idle, 1, GSIO_MDL_FRAME_WORD},
    {"clips.mdl", skins_clips, 1, clips_anim, GEN_N(clips_anim), GSIO_MDL_FRAME_WORD},
    {"double_sided.mdl", skins_clips, 1, clips_idle, 1, GSIO_MDL_FRAME_WORD, 1},
};

size_t gen_sample_count(void)
{
	return GEN_N(samples);
}

const gen_sample *gen_sample_get(size_t i)
{
	return i < GEN_N(samples) ? &samples[i] : NULL;
}

// -- Skin drawing

/* Every colour component is a multiple of 51, so it is exact in the built-in
 * palette's colour cube, in 4-bit channels (51 = 3 * 17) and in 8-bit ones:
 * the decoded skins must equal these pixels exactly (565 rounds them). */
static const uint8_t cell_colours[6][3] = {
    {204, 0, 0},   // 0: +X front, red
    {0, 153, 0},   // 1: -X back, green
    {0, 51, 204},  // 2: +Y left, blue
    {204, 204, 0}, // 3: -Y right, yellow
    {0, 204, 204}, // 4: +Z top, cyan
    {153, 0, 153}, // 5: -Z bottom, purple
};

/* Is (x, y), in a 32 x 32 cell's coordinates, on the letter F? */
static int on_glyph(int x, int y)
{
	if (x >= 6 && x <= 11 && y >= 5 && y <= 26) return 1;  // stem
	if (x >= 6 && x <= 25 && y >= 5 && y <= 10) return 1;  // top bar
	if (x >= 6 && x <= 20 && y >= 14 && y <= 18) return 1; // middle bar
	return 0;
}

void gen_skin_rgba(const gen_skin *skin, uint8_t *rgba)
{
	int cw = skin->width / 3, ch = skin->height / 2;
	for (int y = 0; y < skin->height; y++)
		for (int x = 0; x < skin->width; x++) {
			int cell = (y / ch) * 3 + x / cw;
			// Cell-local coordinates scaled to 32 x 32.
			int lx = (x % cw) * 32 / cw, ly = (y % ch) * 32 / ch;
			uint8_t c[4];
			if (lx == 0 || ly == 0 || lx == 31 || ly == 31) {
				c[0] = c[1] = c[2] = 0; // border
				c[3] = 255;
			} else if (on_glyph(lx, ly)) {
				c[0] = c[1] = c[2] = cell == 0 ? 255 : 204;
				c[3] = 255;
			} else {
				for (int k = 0; k < 3; k++) c[k] = cell_colours[cell][k];
				c[3] = skin->alpha ? (uint8_t)(255 - 34 * cell) : 255;
			}
			if (skin->variant == 1)
				for (int k = 0; k < 3; k++) c[k] = (uint8_t)(255 - c[k]);
			memcpy(rgba + 4 * ((size_t)y * (size_t)skin->width + (size_t)x), c, 4);
		}
}

/* The next mip level: each texel the rounded mean of a 2 x 2 block. */
static void box_filter(const uint8_t *src, int w, int h, uint8_t *dst)
{
	int nw = w / 2, nh = h / 2;
	for (int y = 0; y < nh; y++)
		for (int x = 0; x < nw; x++)
			for (int k = 0; k < 4; k++) {
				const uint8_t *p = src + 4 * ((size_t)(2 * y) * (size_t)w + (size_t)(2 * x)) + k;
				size_t row = 4 * (size_t)w;
				unsigned sum = (unsigned)p[0] + p[4] + p[row] + p[row + 4];
				dst[4 * ((size_t)y * (size_t)nw + (size_t)x) + (size_t)k] = (uint8_t)((sum + 2) / 4);
			}
}

/* Pixels of a skin as stored: the full image, then (type | 8) three mips. */
static uint8_t *encode_skin(const gen_skin *skin, size_t *size, gsio_error *err)
{
	*size = gsio_mdl_skin_size(skin->type, skin->width, skin->height, err);
	if (!*size) return NULL;
	gsio_pixel_format fmt = (gsio_pixel_format)(skin->type & 7);
	size_t bpp = gsio_pixel_size(fmt);
	size_t texels = (size_t)skin->width * (size_t)skin->height;
	uint8_t *out = malloc(*size), *level = malloc(texels * 4), *next = malloc(texels * 4);
	if (!out || !level || !next) {
		free(out);
		free(level);
		free(next);
		return NULL;
	}
	gen_skin_rgba(skin, level);
	int w = skin->width, h = skin->height, levels = (skin->type & GSIO_MDL_SKIN_MIPS) ? 4 : 1;
	size_t at = 0;
	for (int l = 0; l < levels; l++) {
		if (l) {
			box_filter(level, w, h, next);
			w /= 2;
			h /= 2;
			uint8_t *t = level;
			level = next;
			next = t;
		}
		size_t n = (size_t)w * (size_t)h;
		if (gsio_encode_pixels(fmt, level, n, NULL, out + at)) {
			free(out);
			out = NULL;
			break;
		}
		at += n * bpp;
	}
	free(level);
	free(next);
	if (out && at != *size) { // the mip sizes must be the codec's own
		free(out);
		out = NULL;
	}
	return out;
}

// -- Geometry

/* Fixed point: 1024 per quant. The box: x, y in [-16, 16], z in [0, 32]. */
#define FX 1024

/* Sine and cosine of 0, 18, ..., 90 degrees, times 1024 (rounded). */
static const int32_t die_cos[6] = {1024, 974, 828, 602, 316, 0};
static const int32_t die_sin[6] = {0, 316, 602, 828, 974, 1024};
static const int32_t stand_breath[4] = {0, 512, 1024, 512};
static const int32_t walk_bob[8] = {0, 1024, 2048, 1024, 0, 1024, 2048, 1024};
static const int32_t walk_sway[8] = {0, 2048, 3072, 2048, 0, -2048, -3072, -2048};

/* a / b rounded half away from zero (b > 0). */
static int32_t rdiv(int32_t a, int32_t b)
{
	return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

/* Positions (fixed point) and outward directions of the 8 box corners in
 * frame `k` of clip `clip` ("idle", "stand", "walk", "die"). Corner i has
 * x > 0 when bit 0 is set, y > 0 for bit 1, z top for bit 2. */
static void box_frame(const char *clip, size_t k, int32_t pos[8][3], int32_t dir[8][3])
{
	for (int i = 0; i < 8; i++) {
		int sx = (i & 1) ? 1 : -1, sy = (i & 2) ? 1 : -1, sz = (i & 4) ? 1 : -1;
		pos[i][0] = sx * 16 * FX;
		pos[i][1] = sy * 16 * FX;
		pos[i][2] = (i & 4) ? 32 * FX : 0;
		dir[i][0] = sx * FX;
		dir[i][1] = sy * FX;
		dir[i][2] = sz * FX;
		if (!strcmp(clip, "stand")) {
			if (i & 4) pos[i][2] += stand_breath[k % 4];
		} else if (!strcmp(clip, "walk")) {
			pos[i][1] += walk_sway[k % 8];
			pos[i][2] += walk_bob[k % 8];
		} else if (!strcmp(clip, "die")) {
			// Tip forward about the front bottom edge (x = 16, z = 0), around +Y.
			int32_t c = die_cos[k % 6], s = die_sin[k % 6];
			int32_t rx = pos[i][0] - 16 * FX, rz = pos[i][2];
			pos[i][0] = 16 * FX + rdiv(rx * c + rz * s, FX);
			pos[i][2] = rdiv(-rx * s + rz * c, FX);
			int32_t dx = dir[i][0], dz = dir[i][2];
			dir[i][0] = rdiv(dx * c + dz * s, FX);
			dir[i][2] = rdiv(-dx * s + dz * c, FX);
		}
	}
}

/* The table index of a direction's inward normal: the table normals point
 * into the model (docs/FORMATS.md §2.2), so the stored index is the entry nearest to
 * -dir. Products of small integers and table floats in double: exact
 * enough, and the same on every IEEE machine. */
static uint8_t normal_index(const int32_t dir[3])
{
	int best = 0;
	double best_dot = -1e30;
	for (int i = 0; i < GSIO_NORMAL_COUNT; i++) {
		double d = -((double)dir[0] * gsio_anorms[i][0] + (double)dir[1] * gsio_anorms[i][1] +
		             (double)dir[2] * gsio_anorms[i][2]);
		if (d > best_dot) {
			best_dot = d;
			best = i;
		}
	}
	return (uint8_t)best;
}

/* The faces: outward normal, up; right = up x normal, so right x up = normal. */
static const int face_n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
static const int face_up[6][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}};

/* The box corner index at face f, face coordinates s (right), t (up) in {0,1}. */
static int16_t face_corner(int f, int s, int t)
{
	const int *n = face_n[f], *u = face_up[f];
	int r[3] = {u[1] * n[2] - u[2] * n[1], u[2] * n[0] - u[0] * n[2], u[0] * n[1] - u[1] * n[0]};
	int p[3];
	for (int k = 0; k < 3; k++) p[k] = n[k] + r[k] * (2 * s - 1) + u[k] * (2 * t - 1);
	return (int16_t)((p[0] > 0 ? 1 : 0) | (p[1] > 0 ? 2 : 0) | (p[2] > 0 ? 4 : 0));
}

// -- The file

int gen_sample_encode(size_t index, uint8_t **out, size_t *out_size, gsio_error *err)
{
	*out = NULL;
	*out_size = 0;
	const gen_sample *sm = gen_sample_get(index);
	if (!sm) return -1;
	int word = sm->frame_type == GSIO_MDL_FRAME_WORD;
	// Quantisation in fixed point: word-packed 1/512 quant from -64, byte-packed
	// 1/4 quant from (-32, -32, -16); both scales are exact in float.
	int32_t step = word ? 2 : 256;
	int32_t origin[3] = {-64 * FX, -64 * FX, -64 * FX};
	if (!word) {
		origin[0] = origin[1] = -32 * FX;
		origin[2] = -16 * FX;
	}

	gsio_mdl_file f;
	memset(&f, 0, sizeof(f));
	f.version = 5;
	gsio_mdl_header *h = &f.header;
	memcpy(h->version, "MDL5", 4);
	for (int k = 0; k < 3; k++) {
		h->scale[k] = (float)step / FX;
		h->offset[k] = (float)origin[k] / FX;
	}

	gsio_mdl_skin skins[2];
	uint8_t *pixels[2] = {NULL, NULL};
	int rc = -1;
	f.skins = skins;
	f.skins_count = sm->skins_count;
	for (size_t i = 0; i < sm->skins_count; i++) {
		skins[i].type = sm->skins[i].type;
		skins[i].width = sm->skins[i].width;
		skins[i].height = sm->skins[i].height;
		pixels[i] = encode_skin(&sm->skins[i], &skins[i].pixels_size, err);
		if (!pixels[i]) goto done;
		skins[i].pixels = pixels[i];
	}

	// Skin vertices: 4 per face, in texels of the first skin; each face
	// covers its cell's texel centres (gsio samples at u + 0.5).
	gsio_mdl_uv uvs[24];
	gsio_mdl_triangle tris[24];
	int cw = sm->skins[0].width / 3, ch = sm->skins[0].height / 2;
	for (int fc = 0; fc < 6; fc++) {
		int cx = fc % 3, cy = fc / 3;
		static const int corner_s[4] = {0, 1, 1, 0}, corner_t[4] = {0, 0, 1, 1}; // A B C D
		for (int c = 0; c < 4; c++) {
			uvs[4 * fc + c].u = (int16_t)(cx * cw + corner_s[c] * (cw - 1));
			uvs[4 * fc + c].v = (int16_t)(cy * ch + (1 - corner_t[c]) * (ch - 1));
		}
		// A,B,C runs counter-clockwise seen from outside; the file stores
		// front faces clockwise (docs/FORMATS.md §2.2): A,C,B and A,D,C.
		static const int order[2][3] = {{0, 2, 1}, {0, 3, 2}};
		for (int t = 0; t < 2; t++)
			for (int k = 0; k < 3; k++) {
				int c = order[t][k];
				tris[2 * fc + t].xyz[k] = face_corner(fc, corner_s[c], corner_t[c]);
				tris[2 * fc + t].uv[k] = (int16_t)(4 * fc + c);
			}
	}
	f.uvs = uvs;
	f.uvs_count = 24;
	size_t ntris = 12;
	if (sm->double_sided) // the back faces: the same corners and uvs, reversed
		for (size_t t = 0; t < 12; t++, ntris++)
			for (int k = 0; k < 3; k++) {
				tris[ntris].xyz[k] = tris[t].xyz[2 - k];
				tris[ntris].uv[k] = tris[t].uv[2 - k];
			}
	f.triangles = tris;
	f.triangles_count = ntris;

	gsio_mdl_frame frames[32];
	gsio_mdl_vertex verts[32][8];
	size_t nf = 0;
	double radius2 = 0;
	for (size_t c = 0; c < sm->clips_count; c++)
		for (size_t k = 0; k < sm->clips[c].frames && nf < 32; k++, nf++) {
			gsio_mdl_frame *fr = &frames[nf];
			memset(fr, 0, sizeof(*fr));
			fr->type = sm->frame_type;
			snprintf(fr->name, sizeof(fr->name), "%s%zu", sm->clips[c].name, k);
			int32_t pos[8][3], dir[8][3];
			box_frame(sm->clips[c].name, k, pos, dir);
			for (int v = 0; v < 8; v++) {
				double d2 = 0;
				for (int a = 0; a < 3; a++) {
					int32_t raw = rdiv(pos[v][a] - origin[a], step);
					verts[nf][v].pos[a] = (uint16_t)raw;
					uint16_t q = verts[nf][v].pos[a];
					if (v == 0 || q < fr->bbox_min.pos[a]) fr->bbox_min.pos[a] = q;
					if (v == 0 || q > fr->bbox_max.pos[a]) fr->bbox_max.pos[a] = q;
					double x = (double)pos[v][a] / FX;
					d2 += x * x;
				}
				if (d2 > radius2) radius2 = d2;
				verts[nf][v].normal = normal_index(dir[v]);
				verts[nf][v].bone = 0;
			}
			fr->verts = verts[nf];
		}
	f.frames = frames;
	f.frames_count = nf;
	// The bounding radius: the farthest corner of any frame, rounded to a quant.
	int32_t r = 0;
	while ((double)r * r < radius2) r++;
	h->radius = (float)r;
	h->numskins = (int32_t)f.skins_count;
	h->numverts = 8;
	h->numtris = (int32_t)ntris;
	h->numframes = (int32_t)nf;
	h->numskinverts = 24;
	rc = gsio_mdl_encode(&f, out, out_size, err);
done:
	for (size_t i = 0; i < 2; i++) free(pixels[i]);
	return rc;
}

// -- Command

#ifndef GSIO_GEN_SAMPLES_NO_MAIN

static int write_file(const char *dir, const char *name, const uint8_t *data, size_t size)
{
	char path[4096], tmp[4100];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *fp = fopen(tmp, "wb");
	if (!fp) {
		fprintf(stderr, "gsio_gen_samples: cannot write %s\n", tmp);
		return -1;
	}
	int ok = fwrite(data, 1, size, fp) == size;
	ok = (fclose(fp) == 0) && ok;
	// Written under a temporary name, then renamed into place.
	if (!ok || rename(tmp, path)) {
		fprintf(stderr, "gsio_gen_samples: cannot write %s\n", path);
		remove(tmp);
		return -1;
	}
	return 0;
}

static int same_as_file(const char *dir, const char *name, const uint8_t *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	uint8_t *old = NULL;
	size_t old_size = 0;
	gsio_error err;
	if (gsio_read_whole_file(path, &old, &old_size, 0, &err)) {
		fprintf(stderr, "gsio_gen_samples: %s: %s\n", path, err.message);
		return 0;
	}
	int same = old_size == size && !memcmp(old, data, size);
	if (!same)
		fprintf(stderr, "gsio_gen_samples: %s differs from the generated bytes (%zu vs %zu)\n",
		        path, old_size, size);
	free(old);
	return same;
}

int main(int argc, char **argv)
{
	int check = argc == 3 && !strcmp(argv[1], "--check");
	if (argc != 2 && !check) {
		fprintf(stderr, "usage: gsio_gen_samples [--check] DIR\n");
		return 2;
	}
	const char *dir = argv[argc - 1];
	int status = 0;
	for (size_t i = 0; i < gen_sample_count(); i++) {
		uint8_t *data;
		size_t size;
		gsio_error err;
		gsio_error_clear(&err);
		const char *name = gen_sample_get(i)->file;
		if (gen_sample_encode(i, &data, &size, &err)) {
			fprintf(stderr, "gsio_gen_samples: %s: %s\n", name, err.message);
			return 1;
		}
		if (check) {
			if (!same_as_file(dir, name, data, size)) status = 1;
		} else if (write_file(dir, name, data, size)) {
			status = 1;
		} else {
			printf("%s/%s: %zu bytes\n", dir, name, size);
		}
		free(data);
	}
	return status;
}

#endif
