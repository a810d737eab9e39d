/* gsio_bench: one compression of the images of a compact output, the
 * allowance of the goal "--compact costs at most the default plus one
 * compression of each image's rows at the level it chose".
 *
 * Each PNG in the GLB's binary chunk is decoded (libspng) and encoded
 * again by the library with the compact plan (gsioi_png_begin,
 * gsioi_png_plan_compact): when that gives the embedded bytes back, the
 * library made the image with that plan, and the coder and level it chose
 * (gsioi_png_coder) are timed on the image's filtered rows, the inflated
 * IDAT stream, alone on one thread. An image the library did not encode
 * (a PNG or JPEG skin file embedded as it is) is not compressed by
 * --compact and is left out. */
#define _GNU_SOURCE
#include "bench.h"
#include "gsio.h"
#include "gsio_gltf.h"
#include "gsioi_png.h"
#include "gsioi_scene_util.h"

#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <malloc.h>
#include <math.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The length of the PNG file at p (at most n bytes: its signature, then
 * chunks up to IEND), 0 when it is not one. */
static size_t png_length(const uint8_t *p, size_t n)
{
	static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	if (n < 8 + 25 || memcmp(p, sig, 8) || memcmp(p + 12, "IHDR", 4)) return 0;
	for (size_t at = 8; at + 12 <= n;) {
		size_t len = be32(p + at);
		if (len > n - at - 12) return 0;
		if (!memcmp(p + at + 4, "IEND", 4)) return at + 12 + len;
		at += 12 + len;
	}
	return 0;
}

/* The filtered rows of a PNG of 8-bit samples (its IDAT chunks joined and
 * inflated), malloc'd, *size bytes; NULL when it cannot be made. */
static uint8_t *png_rows(const uint8_t *png, size_t n, size_t *size)
{
	const uint32_t width = be32(png + 16), height = be32(png + 20);
	const uint8_t depth = png[24], type = png[25];
	const size_t channels = type == 2 ? 3 : type == 6 ? 4 : type == 3 ? 1 : type == 0 ? 1 : type == 4 ? 2 : 0;
	if (depth != 8 || !channels) return NULL;
	size_t zlen = 0;
	uint8_t *z = xmalloc(n);
	for (size_t at = 8; at + 12 <= n; at += 12 + be32(png + at))
		if (!memcmp(png + at + 4, "IDAT", 4)) {
			memcpy(z + zlen, png + at + 8, be32(png + at));
			zlen += be32(png + at);
		}
	uLongf rows = (uLongf)((width * channels + 1) * (size_t)height);
	uint8_t *out = xmalloc(rows);
	if (uncompress(out, &rows, z, (uLong)zlen) != Z_OK) {
		free(out);
		out = NULL;
	}
	free(z);
	*size = rows;
	return out;
}

/* The coder and level the library chooses for the image of the PNG at
 * png[0..n) in the compact output (gsioi_png_coder); 0 when the library's
 * compact PNG of its pixels is not these bytes (the image was not
 * encoded by it). */
static int compact_coder(const uint8_t *png, size_t n, int *level)
{
	spng_ctx *ctx = spng_ctx_new(0);
	size_t rgba_size;
	struct spng_ihdr ihdr;
	uint8_t *rgba = NULL, *again = NULL;
	int coder = 0;
	if (!ctx || spng_set_png_buffer(ctx, png, n) || spng_get_ihdr(ctx, &ihdr) ||
	    spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &rgba_size))
		goto done;
	gsioi_png_work *w;
	gsio_error err;
	if (ihdr.color_type == SPNG_COLOR_TYPE_INDEXED) {
		// Its indices and palette as they are: the RGBA pixels would give
		// a palette in another order.
		struct spng_plte plte;
		struct spng_trns trns;
		uint8_t pal[4 * 256];
		if (ihdr.bit_depth != 8 || spng_get_plte(ctx, &plte) || plte.n_entries < 1 || plte.n_entries > 256 ||
		    spng_decoded_image_size(ctx, SPNG_FMT_PNG, &rgba_size))
			goto done;
		if (spng_get_trns(ctx, &trns)) trns.n_type3_entries = 0;
		for (uint32_t k = 0; k < plte.n_entries; k++) {
			pal[4 * k] = plte.entries[k].red;
			pal[4 * k + 1] = plte.entries[k].green;
			pal[4 * k + 2] = plte.entries[k].blue;
			pal[4 * k + 3] = k < trns.n_type3_entries ? trns.type3_alpha[k] : 255;
		}
		rgba = xmalloc(rgba_size);
		if (spng_decode_image(ctx, rgba, rgba_size, SPNG_FMT_PNG, 0) ||
		    gsioi_png_begin_indexed(rgba, ihdr.width, ihdr.height, pal, plte.n_entries, &w, &err))
			goto done;
	} else {
		rgba = xmalloc(rgba_size);
		if (spng_decode_image(ctx, rgba, rgba_size, SPNG_FMT_RGBA8, 0) ||
		    gsioi_png_begin(rgba, ihdr.width, ihdr.height, &w, &err))
			goto done;
	}
	gsioi_png_plan_compact(w);
	int c = gsioi_png_coder(w, level);
	size_t again_size;
	if (gsioi_png_finish(w, &again, &again_size, &err)) goto done;
	if (again_size == n && !memcmp(again, png, n)) coder = c;
done:
	free(again);
	free(rgba);
	spng_ctx_free(ctx);
	return coder;
}

/* One compression of rows[0..size) by igzip at `level` as one zlib stream
 * (the library makes up to four bands, each its own stream: the same
 * work, less a restarted history), fed as the library feeds it, in strips
 * of about 64 KB; false when igzip fails. */
static bool igzip_once(const uint8_t *rows, size_t size, int level, uint8_t *out, size_t cap)
{
	struct isal_zstream *z = malloc(sizeof(*z));
	uint8_t *lvl = level ? calloc(1, ISAL_DEF_LVL3_DEFAULT) : NULL;
	bool ok = z && (!level || lvl);
	if (ok) {
		isal_deflate_init(z);
		z->level = (uint32_t)level;
		z->level_buf = lvl;
		z->level_buf_size = level ? ISAL_DEF_LVL3_DEFAULT : 0;
		z->gzip_flag = IGZIP_ZLIB;
		z->flush = NO_FLUSH;
		z->next_out = out;
		z->avail_out = (uint32_t)cap;
	}
	for (size_t at = 0; ok && at < size;) {
		size_t n = size - at < ((size_t)64 << 10) ? size - at : (size_t)64 << 10;
		z->next_in = (uint8_t *)rows + at;
		z->avail_in = (uint32_t)n;
		at += n;
		z->end_of_stream = at == size;
		do
			ok = isal_deflate(z) == COMP_OK && z->avail_out;
		while (ok && (z->avail_in || (z->end_of_stream && z->internal_state.state != ZSTATE_END)));
	}
	free(lvl);
	free(z);
	return ok;
}

/* One compression of rows[0..size) by libdeflate at `level` (a compressor
 * made for it, as the library makes one an image); false when it fails. */
static bool libdeflate_once(const uint8_t *rows, size_t size, int level, uint8_t *out, size_t cap)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	bool ok = c && libdeflate_zlib_compress(c, rows, size, out, cap) > 0;
	libdeflate_free_compressor(c);
	return ok;
}

typedef struct compact_image {
	uint8_t *rows;
	size_t size;
	int coder, level;
} compact_image;

double one_compression_ms(const char *glb, int reps, one_compression *what)
{
	memset(what, 0, sizeof(*what));
	size_t fsize;
	uint8_t *d = read_whole(glb, &fsize);
	if (!d || fsize < 20 || le32(d) != 0x46546C67u) {
		free(d);
		return NAN;
	}
	// GLB: a 12-byte header, the JSON chunk, then the BIN chunk (if any).
	size_t json_len = le32(d + 12), bin_at = 20 + json_len;
	if (bin_at + 8 > fsize || json_len > fsize) {
		free(d);
		return 0; // no binary chunk: no image
	}
	const uint8_t *bin = d + bin_at + 8;
	size_t bin_len = le32(d + bin_at);
	if (bin_len > fsize - bin_at - 8) bin_len = fsize - bin_at - 8;
	compact_image *im = NULL;
	size_t count = 0;
	// The images' buffer views are whole PNG files: each found by its
	// signature and IHDR, walked up to its IEND.
	for (const uint8_t *p = bin; (p = memmem(p, bin_len - (size_t)(p - bin), "\x89PNG\r\n\x1a\n", 8));) {
		size_t n = png_length(p, bin_len - (size_t)(p - bin));
		if (!n) {
			p++;
			continue;
		}
		what->images++;
		int level;
		int coder = compact_coder(p, n, &level);
		size_t rows_size;
		uint8_t *rows = coder ? png_rows(p, n, &rows_size) : NULL;
		if (rows) {
			im = realloc(im, (count + 1) * sizeof(*im));
			if (!im) exit(1);
			im[count++] = (compact_image){rows, rows_size, coder, level};
			what->raw_bytes += rows_size;
			if (coder == GSIOI_PNG_IGZIP)
				what->igzip++, what->igzip_level = level;
			else if (level >= 0 && level < 13)
				what->libdeflate[level]++;
		}
		p += n;
	}
	free(d);
	// Each compression writes into memory of its own, as in a conversion,
	// where the output is fresh pages of a process that starts: blocks of
	// 64 KiB and more come from the kernel and go back to it at free (a
	// fixed threshold: glibc's own would rise after the first free and
	// hand the next repetition warm pages).
	mallopt(M_MMAP_THRESHOLD, 64 << 10);
	double best = count ? INFINITY : 0;
	for (int rep = 0; count && rep < reps; rep++) {
		double t0 = now_ms();
		bool ok = true;
		for (size_t i = 0; i < count; i++) {
			size_t cap = im[i].size + im[i].size / 8 + 4096; // more than deflate's stored blocks
			uint8_t *out = xmalloc(cap);
			ok &= im[i].coder == GSIOI_PNG_IGZIP ? igzip_once(im[i].rows, im[i].size, im[i].level, out, cap)
			                                     : libdeflate_once(im[i].rows, im[i].size, im[i].level, out, cap);
			free(out);
		}
		double t = now_ms() - t0;
		if (!ok) {
			best = NAN;
			break;
		}
		if (t < best) best = t;
	}
	for (size_t i = 0; i < count; i++) free(im[i].rows);
	free(im);
	return best;
}

double compact_mesh_ms(const char *path, int reps)
{
	// A level's models are found through the search folders the command
	// line gives it: not measured here (0).
	if (ends_with(path, ".wmp")) return 0;
	gsio_opts o;
	memset(&o, 0, sizeof(o));
	o.flags = GSIO_OPT_NO_PIXELS;
	gsio_error err;
	gsio_scene *s = gsio_load_file(path, &o, &err);
	if (!s) return NAN;
	// The scene without its images: every material's texture slots cleared.
	for (size_t m = 0; m < s->materials_count; m++) {
#define CLEAR_SLOT(slot) s->materials[m].slot.image = -1;
		GSIOI_MATERIAL_TEXTURES(CLEAR_SLOT)
#undef CLEAR_SLOT
	}
	s->images_count = 0;
	double best[2] = {INFINITY, INFINITY};
	for (int rep = 0; rep < reps; rep++)
		for (int k = 0; k < 2; k++) {
			gsio_gltf_opts go;
			memset(&go, 0, sizeof(go));
			go.name = "bench";
			go.flags = k ? GSIO_GLTF_COMPACT : 0;
			gsio_gltf_output out;
			double t0 = now_ms();
			int rc = gsio_gltf_write(s, &go, &out, &err);
			double t = now_ms() - t0;
			gsio_gltf_output_free(&out);
			if (rc) {
				gsio_scene_free(s);
				return NAN;
			}
			if (t < best[k]) best[k] = t;
		}
	gsio_scene_free(s);
	return best[1] > best[0] ? best[1] - best[0] : 0;
}
