/* stb_image, compiled once for libgsio with static linkage, and the small
 * wrapper that turns a texture file into an RGBA8 gsio_image. stb_image is
 * third-party code written to other warning standards: its warnings are
 * silenced for this file only. */
#include "gsioi_bmp.h"
#include "gsioi_image_file.h"
#include "gsioi_pcx.h"
#include "gsioi_png.h"
#include "gsioi_tga.h"

#include <limits.h>
#include <stdlib.h>

// stb_image allocates on its own, outside the arena: the compressed data of a
// PNG as its chunks announce it, and zlib output that doubles for as long as
// the data inflates. Every block it asks for is capped (per thread, set around
// each call) at a size derived from the input and the image the arena already
// accepted, so a PNG chunk that claims 2 GiB or a deflate bomb (200 KiB
// inflating to 200 MiB, found while fuzzing) is refused, not reserved.
static _Thread_local size_t stb_cap;
static _Thread_local bool stb_refused;

static void *stb_malloc(size_t n)
{
	if (n > stb_cap) {
		stb_refused = true;
		return NULL;
	}
	return malloc(n);
}

static void *stb_realloc(void *p, size_t n)
{
	if (n > stb_cap) {
		stb_refused = true;
		return NULL;
	}
	return realloc(p, n);
}

// a + b * c, saturating.
static size_t cap_term(size_t a, size_t b, size_t c)
{
	size_t t;
	if (!gsioi_mul_size(b, c, &t) || !gsioi_add_size(a, t, &t)) return SIZE_MAX;
	return t;
}
#define STBI_MALLOC(n) stb_malloc(n)
#define STBI_REALLOC(p, n) stb_realloc(p, n)
#define STBI_FREE(p) free(p)

#if defined(__GNUC__) || defined(__clang__)
// Reported at the end of the file, so not inside push/pop: stb_image declares
// a few functions it never defines with STB_IMAGE_STATIC.
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wcast-qual"
#endif
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_NO_HDR
#define STBI_NO_LINEAR
// Textures of GameStudio and Doom 3 are PNG, JPEG, TGA and BMP (PCX and DDS
// have readers of their own): stb_image's PNM, PIC, PSD and GIF readers are
// left out, less of it to feed damaged files (a PNM header's size overflowed
// an int in stbi__pnm_getinteger: fuzz_load under UBSan).
#define STBI_NO_PNM
#define STBI_NO_PIC
#define STBI_NO_PSD
#define STBI_NO_GIF
#define STBI_MAX_DIMENSIONS GSIO_IMAGE_FILE_MAX_DIM
#include <stb/stb_image.h>
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic pop
#endif

// By signature: the two formats glTF embeds, which writers may store as they are.
static bool is_png_or_jpeg(const uint8_t *data, size_t size)
{
	const gsioi_kept_kind k = gsioi_kept_file_kind(data, size < 8 ? size : 8, NULL, NULL);
	return k == GSIOI_KEPT_PNG || k == GSIOI_KEPT_JPEG;
}

/* stb_image 2.27 (Debian 12) builds a JPEG Huffman table from the 16 code
 * counts of a DHT segment without checking that they add up to at most 256,
 * the symbols a table holds: a damaged file writes past the table (found by
 * fuzz_load under UBSan, stb_image.h's stbi__build_huffman). So before stb
 * sees a JPEG, every DHT segment is read here the way stb reads it (a class
 * and id byte, 16 counts, the symbols; again while the segment lasts), the
 * markers walked by their lengths (0xFF fill bytes skipped, as stb does:
 * "FF FF D8" starts a JPEG too) and entropy-coded data skipped up to the
 * next marker. False when some table lists more than 256 codes. */
static bool jpeg_tables_ok(const uint8_t *d, size_t n)
{
	// Any file stb_image might take for a JPEG: it skips 0xFF fill bytes
	// before every marker, the first (SOI) included.
	if (n < 2 || d[0] != 0xFF) return true;
	size_t p = 0;
	while (p + 1 < n) {
		if (d[p] != 0xFF) { // entropy-coded data (or garbage): on to the next marker
			const uint8_t *ff = memchr(d + p + 1, 0xFF, n - p - 1);
			if (!ff) break;
			p = (size_t)(ff - d);
			continue;
		}
		uint8_t m = d[p + 1];
		if (m == 0xFF) { // a fill byte
			p++;
			continue;
		}
		if (m == 0x00 || m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7)) { // no length
			p += 2;
			continue;
		}
		if (m == 0xD9 || p + 4 > n) break;
		size_t len = (size_t)d[p + 2] << 8 | d[p + 3];
		if (len < 2) break; // stb refuses it
		if (m == 0xC4) {
			// As stb does: tables while the segment's count lasts, reading on
			// past it if the counts say so (bytes past the file read as 0).
			long left = (long)len - 2;
			size_t q = p + 4;
			while (left > 0) {
				q++; // table class and id
				unsigned codes = 0;
				for (int i = 0; i < 16; i++, q++) codes += q < n ? d[q] : 0;
				if (codes > 256) return false;
				q += codes;
				left -= 17 + (long)codes;
			}
		}
		p += 2 + len;
	}
	return true;
}

/* The header only (size, format, dimensions), before anything is allocated:
 * the pixels are then allocated under the arena's limit before stb_image
 * allocates its own copy. */
static bool probe(const uint8_t *data, size_t size, const char *file, int *w, int *h, int *comp,
                  gsio_error *err)
{
	if (!data || size == 0 || size > (size_t)INT_MAX) {
		GSIO_FAIL(err, size ? GSIO_ERR_LIMIT : GSIO_ERR_TRUNCATED, file, -1,
		          "image file of %zu bytes: empty or too large to decode", size);
		return false;
	}
	if (!jpeg_tables_ok(data, size)) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1,
		          "damaged JPEG: a Huffman table (DHT) lists more than 256 codes");
		return false;
	}
	// Reading the header needs no more than the file and a little.
	stb_cap = cap_term((size_t)1 << 20, 2, size);
	stb_refused = false;
	if (!stbi_info_from_memory(data, (int)size, w, h, comp)) {
		// stb_image tries every format and reports the last refusal ("unknown
		// image type"): a file that starts as a PNG or JPEG is named as one.
		if (is_png_or_jpeg(data, size))
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1,
			          "not an image file stb_image reads: a %s start, then a damaged or "
			          "unsupported header (size 0 or over %d, or a wrong first block)",
			          data[0] == 0xFF ? "JPEG" : "PNG", GSIO_IMAGE_FILE_MAX_DIM);
		else
			GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, -1, "not an image file stb_image reads (%s)",
			          stbi_failure_reason());
		return false;
	}
	if (*w <= 0 || *h <= 0 || *w > GSIO_IMAGE_FILE_MAX_DIM || *h > GSIO_IMAGE_FILE_MAX_DIM) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, file, -1, "image of %d x %d pixels is refused (limit %d)",
		          *w, *h, GSIO_IMAGE_FILE_MAX_DIM);
		return false;
	}
	return true;
}

// A copy of the file in arena as out->file_data.
static bool keep_file(const uint8_t *data, size_t size, gsio_arena *arena, gsio_image *out,
                      gsio_error *err)
{
	uint8_t *copy = gsioi_arena_alloc_uninit(arena, size, err);
	if (!copy) return false;
	memcpy(copy, data, size);
	out->file_data = copy;
	out->file_size = size;
	return true;
}

bool gsioi_image_file_decode(const uint8_t *data, size_t size, const char *file,
                            gsio_arena *arena, gsio_image *out, gsio_error *err)
{
	// PCX (which stb_image does not read) has its own decoder.
	if (gsioi_pcx_is(data, size)) return gsioi_pcx_decode(data, size, file, arena, out, err);
	// Uncompressed BMPs, in one pass (gsioi_bmp.h); the rest is stb_image's.
	gsioi_bmp bmp;
	const gsioi_bmp_status bs = gsioi_bmp_parse(data, size, file, &bmp, err);
	if (bs == GSIOI_BMP_BAD) return false;
	if (bs == GSIOI_BMP_OK) {
		uint8_t *px = gsioi_arena_alloc_uninit(arena, (size_t)bmp.width * bmp.height * 4, err);
		if (!px) return false;
		gsioi_bmp_decode(data, &bmp, px);
		out->width = bmp.width;
		out->height = bmp.height;
		out->rgba = px;
		return true;
	}
	int w, h, comp;
	if (!probe(data, size, file, &w, &h, &comp, err)) return false;
	size_t bytes = (size_t)w * (size_t)h * 4;
	// Not zeroed: the memcpy below fills it, and a header that claims 16384 x
	// 16384 pixels in a few bytes must not cost a 1 GiB memset before the
	// decoder finds the data missing.
	uint8_t *rgba = gsioi_arena_alloc_uninit(arena, bytes, err);
	if (!rgba) return false;
	uint32_t tw = 0, th = 0;
	const bool plain = gsioi_tga_plain(data, size, &tw, &th), rle = !plain && gsioi_tga_rle(data, size, &tw, &th);
	if ((plain || rle) && tw == (uint32_t)w && th == (uint32_t)h) {
		// The common external skins, in one pass (gsioi_tga.h).
		if (plain)
			gsioi_tga_plain_decode(data, tw, th, rgba);
		else
			gsioi_tga_rle_decode(data, tw, th, rgba);
		out->width = (uint32_t)w;
		out->height = (uint32_t)h;
		out->rgba = rgba;
		return true;
	}
	int w2, h2;
	// Decoding: the compressed data (at most the file, doubled as it grows)
	// and image-sized buffers (16-bit RGBA, PNG filter bytes, each twice over).
	stb_cap = cap_term(cap_term((size_t)1 << 20, 2, size), 16 * (size_t)w + 2, (size_t)h);
	stb_refused = false;
	stbi_uc *pixels = stbi_load_from_memory(data, (int)size, &w2, &h2, &comp, 4);
	if (!pixels) {
		if (stb_refused)
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1,
			          "cannot decode the image: it asks for far more memory than a %d x %d "
			          "image in %zu bytes needs (a chunk larger than the file, or a "
			          "decompression bomb)",
			          w, h, size);
		else
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1, "cannot decode the image: %s",
			          stbi_failure_reason());
		return false;
	}
	if (w2 != w || h2 != h) {
		stbi_image_free(pixels);
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1, "image size changed while decoding");
		return false;
	}
	memcpy(rgba, pixels, bytes);
	stbi_image_free(pixels);
	// A PNG or JPEG is kept as it is too (gsio_image.file_data): writers can
	// store it unchanged instead of encoding the pixels again.
	if (is_png_or_jpeg(data, size) && !keep_file(data, size, arena, out, err)) return false;
	out->width = (uint32_t)w;
	out->height = (uint32_t)h;
	out->rgba = rgba;
	return true;
}

bool gsioi_image_file_fatal(const gsio_arena *arena, const gsio_error *sub)
{
	return sub->code == GSIO_ERR_NOMEM || (sub->code == GSIO_ERR_LIMIT && gsioi_arena_refused(arena));
}

bool gsioi_image_file_load(const uint8_t *data, size_t size, const char *file,
                          const gsio_opts *opts, gsio_arena *arena, gsio_image *out, bool *taken,
                          gsio_error *err)
{
	if (taken) *taken = false;
	uint32_t tw = 0, th = 0;
	const bool no_pixels = opts && (opts->flags & GSIO_OPT_NO_PIXELS);
	const bool tga = no_pixels && gsioi_tga_plain(data, size, &tw, &th);
	gsioi_bmp bmp;
	const gsioi_bmp_status bs = no_pixels ? gsioi_bmp_parse(data, size, file, &bmp, err) : GSIOI_BMP_OTHER;
	if (bs == GSIOI_BMP_BAD) return false; // the decoder's refusal, before its pixels
	if (!no_pixels || !(tga || bs == GSIOI_BMP_OK || is_png_or_jpeg(data, size)))
		return gsioi_image_file_decode(data, size, file, arena, out, err);
	// The header only, with the decoder's checks and messages: a file the
	// decoder would refuse before reading its pixels is refused alike. A
	// BMP's header was read above, by its decoder's own reader.
	int w, h, comp;
	if (bs == GSIOI_BMP_OK)
		w = (int)bmp.width, h = (int)bmp.height;
	else if (!probe(data, size, file, &w, &h, &comp, err))
		return false;
	if (tga && (tw != (uint32_t)w || th != (uint32_t)h)) // not reached: one header
		return gsioi_image_file_decode(data, size, file, arena, out, err);
	if (taken) {
		// The caller's malloc'd block, kept by the arena: no copy.
		if (!gsioi_arena_keep(arena, (void *)(uintptr_t)data, size, err)) return false;
		out->file_data = data;
		out->file_size = size;
		*taken = true;
	} else if (!keep_file(data, size, arena, out, err)) {
		return false;
	}
	out->width = (uint32_t)w;
	out->height = (uint32_t)h;
	out->rgba = NULL;
	out->indices = NULL;
	return true;
}

bool gsioi_image_file_decode_gray16(const uint8_t *data, size_t size, const char *file,
                                   gsio_arena *arena, uint16_t **out, uint32_t *width,
                                   uint32_t *height, gsio_error *err)
{
	*out = NULL;
	int w, h, comp;
	if (!probe(data, size, file, &w, &h, &comp, err)) return false;
	uint16_t *gray = gsioi_arena_array_uninit(arena, (size_t)w * (size_t)h, 2, err);
	if (!gray) return false;
	int w2, h2;
	stb_cap = cap_term(cap_term((size_t)1 << 20, 2, size), 16 * (size_t)w + 2, (size_t)h);
	stb_refused = false;
	stbi_us *pixels = stbi_load_16_from_memory(data, (int)size, &w2, &h2, &comp, 1);
	if (!pixels || w2 != w || h2 != h) {
		if (pixels) stbi_image_free(pixels);
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, -1, "cannot decode the image: %s",
		          stb_refused ? "it asks for far more memory than its size needs"
		                      : stbi_failure_reason());
		return false;
	}
	memcpy(gray, pixels, (size_t)w * (size_t)h * 2);
	stbi_image_free(pixels);
	*out = gray;
	*width = (uint32_t)w;
	*height = (uint32_t)h;
	return true;
}
