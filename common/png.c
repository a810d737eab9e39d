/* PNG encoding for writers (glTF images, extracted skins): the PNG chunks
 * written here, the zlib stream and CRCs by libdeflate.
 *
 * Why not a PNG library's encoder: on the corpus skins, libspng's adaptive
 * per-row filter choice took half of the encoding time, and zlib the rest;
 * PNG encoding was 57-84% of converting a textured model. One fixed filter
 * (UP: each byte minus the byte above) and libdeflate level 1 encode the
 * same skins 3-6 times faster (gate-101 30.7 -> 5.1 ms, shadow-5 110 -> 27
 * ms) at about the same size (476 -> 406 KB, 1787 -> 1861 KB): skins are
 * photographic or flat-shaded, where UP is what an adaptive choice mostly
 * picks anyway, and harder compression gains a few percent at best.
 *
 * Palette PNGs (colour type 3): an image kept palettised by its importer
 * (gsio_image.indices) or one with at most 256 distinct colours is written
 * as one byte a pixel instead of three or four, which deflate gets through
 * in a third to a quarter of the time (minigun's 71-colour 1272x1114 skin).
 * Rows use filter 0 (none), as the PNG specification recommends for
 * palette images: differences of indices mean nothing. */
#include "gsio.h"
#include "gsio_internal.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

// -- Chunks

// libdeflate level 1: its fastest (greedy hashing); measured above.
#define PNG_DEFLATE_LEVEL 1

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/** Writes one chunk (length, type, data, CRC of type + data) at p; returns
 *  the bytes written (12 + len). The data may already be at p + 8. */
static size_t put_chunk(uint8_t *p, const char type[4], const uint8_t *data, uint32_t len)
{
	put_be32(p, len);
	memcpy(p + 4, type, 4);
	if (len && data != p + 8) memmove(p + 8, data, len);
	put_be32(p + 8 + len, (uint32_t)libdeflate_crc32(0, p + 4, (size_t)len + 4));
	return (size_t)len + 12;
}

// -- Writing the file

/** What the IHDR, PLTE and tRNS chunks say; raw is the filtered image. */
typedef struct png_layout {
	uint32_t width, height;
	uint8_t colour_type;          // 2 truecolour, 3 palette, 6 truecolour + alpha
	const uint8_t *plte;          // colour type 3: 3 bytes an entry
	uint32_t plte_len;
	const uint8_t *trns;          // alpha per palette entry, NULL when all opaque
	uint32_t trns_len;
} png_layout;

/* Compresses raw (filter bytes included) and writes the whole file into
 * malloc'd memory. */
static int write_png(const png_layout *l, const uint8_t *raw, size_t raw_size, uint8_t **png,
                     size_t *png_size, gsio_error *err)
{
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(PNG_DEFLATE_LEVEL);
	size_t bound = z ? libdeflate_zlib_compress_bound(z, raw_size) : 0;
	// signature 8, IHDR 25, PLTE 12 + 768, tRNS 12 + 256, IDAT 12 + data, IEND 12
	size_t total_bound = bound + 8 + 25 + 780 + 268 + 12 + 12;
	uint8_t *out = (z && bound < SIZE_MAX - 2048 && bound <= UINT32_MAX) ? malloc(total_bound) : NULL;
	if (!z || !out) {
		if (z) libdeflate_free_compressor(z);
		if (bound > UINT32_MAX) {
			GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %ux%u PNG exceeds 4 GiB",
			          (unsigned)l->width, (unsigned)l->height);
			return -1;
		}
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	uint8_t *p = out;
	static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	memcpy(p, signature, 8);
	p += 8;
	uint8_t ihdr[13];
	put_be32(ihdr, l->width);
	put_be32(ihdr + 4, l->height);
	ihdr[8] = 8; // bit depth
	ihdr[9] = l->colour_type;
	ihdr[10] = ihdr[11] = ihdr[12] = 0; // deflate, adaptive filtering, no interlace
	p += put_chunk(p, "IHDR", ihdr, 13);
	if (l->plte) p += put_chunk(p, "PLTE", l->plte, l->plte_len);
	if (l->trns) p += put_chunk(p, "tRNS", l->trns, l->trns_len);
	// The IDAT data goes straight to its place in the file.
	size_t zlen = libdeflate_zlib_compress(z, raw, raw_size, p + 8, bound);
	libdeflate_free_compressor(z);
	if (!zlen) { // cannot happen with the bound; checked all the same
		free(out);
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "PNG encoding failed: deflate overflow");
		return -1;
	}
	p += put_chunk(p, "IDAT", p + 8, (uint32_t)zlen);
	p += put_chunk(p, "IEND", NULL, 0);
	size_t size = (size_t)(p - out);
	uint8_t *shrunk = realloc(out, size);
	*png = shrunk ? shrunk : out;
	*png_size = size;
	return 0;
}

/* Writes a palette PNG from raw rows of filter byte 0 and indices, all below
 * count: PLTE up to the highest index used, tRNS up to the last entry of
 * those that is not opaque (the entries after it are opaque by the rule). */
static int write_palette_png(uint32_t width, uint32_t height, const uint8_t *raw, size_t raw_size,
                             const uint8_t *palette, uint32_t used, uint8_t **png,
                             size_t *png_size, gsio_error *err)
{
	uint8_t plte[768], trns[256];
	uint32_t trns_len = 0;
	for (uint32_t k = 0; k < used; k++) {
		memcpy(plte + 3 * k, palette + 4 * k, 3);
		trns[k] = palette[4 * k + 3];
		if (trns[k] != 255) trns_len = k + 1;
	}
	png_layout l = {width, height, 3, plte, 3 * used, trns_len ? trns : NULL, trns_len};
	return write_png(&l, raw, raw_size, png, png_size, err);
}

// -- Sizes

/* PNG sizes are 31-bit; a row is 1 filter byte + up to 4 bytes a pixel. */
static bool size_ok(uint32_t width, uint32_t height, size_t bytes_per_pixel, size_t *raw_size,
                    gsio_error *err)
{
	size_t texels;
	if (!width || !height || width > INT32_MAX || height > INT32_MAX ||
	    !gsioi_mul_size(width, height, &texels) || texels > SIZE_MAX / 4 ||
	    !gsioi_mul_size((size_t)width * bytes_per_pixel + 1, height, raw_size)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode a %ux%u image as PNG",
		          (unsigned)width, (unsigned)height);
		return false;
	}
	return true;
}

// -- Few colours

/* Distinct RGBA colours, at most 256, in a 1024-slot open-addressing table
 * (at most a quarter full). */
enum { COLOUR_SLOTS = 1024 };
typedef struct colour_set {
	uint32_t keys[COLOUR_SLOTS];
	int16_t index[COLOUR_SLOTS]; // -1: empty
	uint32_t count;
} colour_set;

static void colour_set_init(colour_set *cs)
{
	for (size_t k = 0; k < COLOUR_SLOTS; k++) cs->index[k] = -1;
	cs->count = 0;
}

/* The colour's palette index, added when new; -1 for a 257th colour. */
static inline int colour_index(colour_set *cs, uint32_t key)
{
	uint32_t h = (key * 2654435761u) >> 22; // 10 bits
	while (cs->index[h] >= 0 && cs->keys[h] != key) h = (h + 1) & (COLOUR_SLOTS - 1);
	if (cs->index[h] >= 0) return cs->index[h];
	if (cs->count == 256) return -1;
	cs->keys[h] = key;
	cs->index[h] = (int16_t)cs->count;
	return (int)cs->count++;
}

/* Builds the palette PNG's raw rows (filter byte 0, one index a pixel) from
 * RGBA pixels while collecting their distinct colours in order of first
 * appearance; false when there are more than 256. A probe of about 4096
 * pixels spread over the image finds most photographic skins out at once
 * (a skin whose first rows are one flat colour would otherwise be scanned
 * far); then a pixel equal to the one before needs no lookup (flat-shaded
 * skins are long runs). */
static bool palettise(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t *raw,
                      uint8_t palette[256 * 4], uint32_t *count)
{
	const size_t texels = (size_t)width * height;
	colour_set cs;
	colour_set_init(&cs);
	const size_t step = texels / 4096 + 1;
	for (size_t i = 0; i < texels; i += step) {
		uint32_t key;
		memcpy(&key, rgba + 4 * i, 4);
		if (colour_index(&cs, key) < 0) return false;
	}
	colour_set_init(&cs);
	uint32_t prev_key = 0;
	uint8_t prev_index = 0;
	bool have_prev = false;
	for (uint32_t y = 0; y < height; y++) {
		uint8_t *dst = raw + (size_t)y * ((size_t)width + 1);
		const uint8_t *src = rgba + (size_t)y * width * 4;
		*dst++ = 0; // filter: none
		for (uint32_t x = 0; x < width; x++) {
			uint32_t key;
			memcpy(&key, src + 4 * (size_t)x, 4);
			if (!have_prev || key != prev_key) {
				int k = colour_index(&cs, key);
				if (k < 0) return false;
				memcpy(palette + 4 * (size_t)k, src + 4 * (size_t)x, 4); // its colour (again)
				prev_key = key;
				prev_index = (uint8_t)k;
				have_prev = true;
			}
			dst[x] = prev_index;
		}
	}
	*count = cs.count;
	return true;
}

// -- Truecolour

/* RGB8 (every alpha 255) or RGBA8 rows with the UP filter. Not inlined:
 * inlined into gsio_png_encode beside the palette scan, GCC 12 made its
 * loops slower (callgrind on shadow-5: +2.1 M instructions, 1%). */
__attribute__((noinline)) static int truecolour_png(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **png,
                          size_t *png_size, gsio_error *err)
{
	const size_t texels = (size_t)width * height;
	bool opaque = true;
	for (size_t i = 0; i < texels && opaque; i++) opaque = rgba[4 * i + 3] == 255;
	// Opaque skins (565, 888: most of them) are written as RGB: a quarter smaller.
	const size_t channels = opaque ? 3 : 4;
	const size_t row = (size_t)width * channels;
	const size_t raw_size = (row + 1) * height;

	// The filtered image: each row is filter byte 2 (UP) and the difference
	// to the row above (the row above the first is zeros, so row 0 is raw).
	uint8_t *raw = malloc(raw_size);
	if (!raw) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	for (uint32_t y = 0; y < height; y++) {
		uint8_t *dst = raw + (size_t)y * (row + 1);
		const uint8_t *src = rgba + (size_t)y * width * 4;
		dst[0] = 2; // UP
		uint8_t *cur = dst + 1; // the row unfiltered first
		if (opaque) {
			for (size_t x = 0; x < width; x++) memcpy(cur + 3 * x, src + 4 * x, 3);
		} else {
			memcpy(cur, src, row);
		}
	}
	// Filter bottom-up in place: each row still has its unfiltered row above.
	for (uint32_t y = height; y-- > 1;) {
		uint8_t *cur = raw + (size_t)y * (row + 1) + 1;
		const uint8_t *above = cur - (row + 1);
		for (size_t i = 0; i < row; i++) cur[i] = (uint8_t)(cur[i] - above[i]);
	}
	png_layout l = {width, height, (uint8_t)(opaque ? 2 : 6), NULL, 0, NULL, 0};
	int rc = write_png(&l, raw, raw_size, png, png_size, err);
	free(raw);
	return rc;
}

// -- PNG

int gsio_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **png,
                    size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	size_t raw_size;
	if (!rgba) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode: no pixels");
		return -1;
	}
	if (!size_ok(width, height, 4, &raw_size, err)) return -1;

	// Few colours: one byte a pixel. The palette rows are filled during the
	// scan; most photographic images are found out by its first probe.
	raw_size = ((size_t)width + 1) * height;
	uint8_t *raw = malloc(raw_size);
	if (!raw) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	uint8_t palette[256 * 4];
	uint32_t colours;
	if (palettise(rgba, width, height, raw, palette, &colours)) {
		int rc = write_palette_png(width, height, raw, raw_size, palette, colours, png, png_size, err);
		free(raw);
		return rc;
	}
	free(raw);
	return truecolour_png(rgba, width, height, png, png_size, err);
}

int gsio_png_encode_indexed(const uint8_t *indices, uint32_t width, uint32_t height,
                            const uint8_t *palette, uint32_t palette_count, uint8_t **png,
                            size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode_indexed: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	size_t raw_size;
	if (!indices || !palette || !palette_count || palette_count > 256) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_png_encode_indexed: a palette of %u entries (1..256 needed)",
		          (unsigned)palette_count);
		return -1;
	}
	if (!size_ok(width, height, 1, &raw_size, err)) return -1;
	uint8_t *raw = malloc(raw_size);
	if (!raw) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	uint8_t highest = 0;
	for (uint32_t y = 0; y < height; y++) {
		uint8_t *dst = raw + (size_t)y * ((size_t)width + 1);
		const uint8_t *src = indices + (size_t)y * width;
		dst[0] = 0; // filter: none
		memcpy(dst + 1, src, width);
		for (uint32_t x = 0; x < width; x++) highest = src[x] > highest ? src[x] : highest;
	}
	if (highest >= palette_count) {
		free(raw);
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_png_encode_indexed: index %u with a palette of %u entries",
		          (unsigned)highest, (unsigned)palette_count);
		return -1;
	}
	int rc = write_palette_png(width, height, raw, raw_size, palette, (uint32_t)highest + 1, png,
	                           png_size, err);
	free(raw);
	return rc;
}
