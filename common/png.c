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
 * picks anyway, and harder compression gains a few percent at best. */
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
	size_t texels, raw_size;
	// PNG sizes are 31-bit; a row is 1 filter byte + 4 bytes a texel at most.
	if (!rgba || !width || !height || width > INT32_MAX || height > INT32_MAX ||
	    !gsioi_mul_size(width, height, &texels) || texels > SIZE_MAX / 4 ||
	    !gsioi_mul_size((size_t)width * 4 + 1, height, &raw_size)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode a %ux%u image as PNG",
		          (unsigned)width, (unsigned)height);
		return -1;
	}
	bool opaque = true;
	for (size_t i = 0; i < texels && opaque; i++) opaque = rgba[4 * i + 3] == 255;
	// Opaque skins (565, 888: most of them) are written as RGB: a quarter smaller.
	const size_t channels = opaque ? 3 : 4;
	const size_t row = (size_t)width * channels;
	raw_size = (row + 1) * height;

	// The filtered image: each row is filter byte 2 (UP) and the difference
	// to the row above (the row above the first is zeros, so row 0 is raw).
	uint8_t *raw = malloc(raw_size);
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(PNG_DEFLATE_LEVEL);
	size_t bound = z ? libdeflate_zlib_compress_bound(z, raw_size) : 0;
	// signature 8, IHDR 25, IDAT 12 + data, IEND 12
	size_t total_bound = bound + 8 + 25 + 12 + 12;
	uint8_t *out = (raw && z && bound < SIZE_MAX - 64 && bound <= UINT32_MAX)
	                   ? malloc(total_bound)
	                   : NULL;
	if (!raw || !z || !out) {
		free(raw);
		free(out);
		if (z) libdeflate_free_compressor(z);
		if (bound > UINT32_MAX) {
			GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %ux%u PNG exceeds 4 GiB",
			          (unsigned)width, (unsigned)height);
			return -1;
		}
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

	// The IDAT data goes straight to its place in the file.
	uint8_t *p = out;
	static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	memcpy(p, signature, 8);
	p += 8;
	uint8_t ihdr[13];
	put_be32(ihdr, width);
	put_be32(ihdr + 4, height);
	ihdr[8] = 8;                     // bit depth
	ihdr[9] = opaque ? 2 : 6;        // truecolour, truecolour with alpha
	ihdr[10] = ihdr[11] = ihdr[12] = 0; // deflate, adaptive filtering, no interlace
	p += put_chunk(p, "IHDR", ihdr, 13);
	size_t zlen = libdeflate_zlib_compress(z, raw, raw_size, p + 8, bound);
	libdeflate_free_compressor(z);
	free(raw);
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
