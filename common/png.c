/* PNG encoding for writers (glTF images, extracted skins): the PNG chunks
 * and row filtering written here, the zlib stream by ISA-L's igzip, the
 * CRCs by ISA-L's crc32.
 *
 * Why not a PNG library's encoder: on the corpus skins, libspng's adaptive
 * per-row filter choice took half of the encoding time, and zlib the rest;
 * PNG encoding was 57-84% of converting a textured model. One fixed filter
 * (UP: each byte minus the byte above) is what an adaptive choice mostly
 * picks on photographic or flat-shaded skins anyway.
 *
 * Why igzip (Debian libisal-dev) and not libdeflate: on the filtered corpus
 * skins igzip level 0 compresses 2-5 times faster than libdeflate's fastest
 * level (shadow-5 24.3 -> 9.0 ms, flamemother 9.9 -> 1.9 ms, gate-101 4.8 ->
 * 2.5 ms), for 20-47% more bytes per image (6% more on all the corpus's
 * outputs together; see PNG_DEFLATE_LEVEL for why not level 1); and it
 * compresses a stream piece by piece, so the filtered image is made a strip
 * of rows at a time (64 KiB) instead of a whole second copy of the image.
 *
 * Palette PNGs (colour type 3): an image kept palettised by its importer
 * (gsio_image.indices) or one with at most 256 distinct colours is written
 * as one byte a pixel instead of three or four, which deflate gets through
 * in a third to a quarter of the time (minigun's 71-colour 1272x1114 skin).
 * Rows use filter 0 (none), as the PNG specification recommends for
 * palette images: differences of indices mean nothing. */
#include "gsio.h"
#include "gsio_dds.h"
#include "gsio_internal.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <limits.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef GSIOI_HAVE_SSSE3
#include <tmmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// -- Chunks

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
	put_be32(p + 8 + len, crc32_gzip_refl(0, p + 4, (uint64_t)len + 4));
	return (size_t)len + 12;
}

// -- Rows

/* The image as PNG rows: row(r, y, dst) writes row y's filter byte and its
 * row_bytes filtered bytes at dst; rows are asked for in order, y = 0 first.
 * dst has 4 bytes of room after the row. Truecolour rows come from RGBA
 * rows that rgba_row(r, y) gives (in order too; a DDS source decodes them a
 * band of 4 at a time, so a row may be gone once the next is asked for). */
typedef struct png_rows {
	void (*row)(struct png_rows *r, uint32_t y, uint8_t *dst);
	const uint8_t *(*rgba_row)(struct png_rows *r, uint32_t y);
	// The source's pixel i (row-major) as RGBA, for the palette probe; and
	// whether every alpha is 255 (asked only for truecolour output).
	void (*pixel)(struct png_rows *r, size_t i, uint8_t out[4]);
	bool (*is_opaque)(const struct png_rows *r, uint32_t height);
	const uint8_t *pixels; // RGBA, or one byte a pixel
	uint32_t width;
	size_t row_bytes;      // without the filter byte
	uint8_t *prev, *cur;   // truecolour: the row before (as written), the row at hand
	bool transient;        // rgba_row's rows do not outlive the next call
	// A DDS source: the checked header, the file and one band of RGBA rows.
	const gsioi_dds_info *dds;
	const uint8_t *dds_data;
	uint8_t *band;
	size_t probe_block;    // the block decoded into probe_px for pixel(), SIZE_MAX: none
	uint8_t probe_px[64];
	// A stored pixel format (gsio_decode_pixels) decoded a row at a time.
	gsio_pixel_format format;
	const uint8_t *palette;
	uint8_t *row_rgba;
} png_rows;

/* dst = a - b, bytewise (mod 256), n bytes. */
static void sub_bytes(uint8_t *restrict dst, const uint8_t *restrict a, const uint8_t *restrict b,
                      size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	// GCC 12 at -O2 does not vectorise this loop (its cheap cost model);
	// SSE2 is the x86-64 baseline.
	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		_mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_sub_epi8(x, y));
	}
#endif
	for (; i < n; i++) dst[i] = (uint8_t)(a[i] - b[i]);
}

/* Filter 0 rows of one byte a pixel (palette indices). */
static void row_indices(png_rows *r, uint32_t y, uint8_t *dst)
{
	dst[0] = 0; // filter: none
	memcpy(dst + 1, r->pixels + (size_t)y * r->width, r->width);
}

static const uint8_t *rgba_row_image(png_rows *r, uint32_t y)
{
	return r->pixels + (size_t)y * r->width * 4;
}

static const uint8_t *rgba_row_stored(png_rows *r, uint32_t y)
{
	const size_t ps = gsio_pixel_size(r->format);
	if (gsio_decode_pixels(r->format, r->pixels + (size_t)y * r->width * ps, r->width, r->palette,
	                       r->row_rgba))
		memset(r->row_rgba, 0, (size_t)r->width * 4); // not reached: the format was checked
	return r->row_rgba;
}

static const uint8_t *rgba_row_dds(png_rows *r, uint32_t y)
{
	if (y % 4 == 0) gsioi_dds_decode_band(r->dds, r->dds_data, y, r->band);
	return r->band + (size_t)(y % 4) * r->width * 4;
}

static void pixel_image(png_rows *r, size_t i, uint8_t out[4])
{
	memcpy(out, r->pixels + 4 * i, 4);
}

static void pixel_stored(png_rows *r, size_t i, uint8_t out[4])
{
	const size_t ps = gsio_pixel_size(r->format);
	if (gsio_decode_pixels(r->format, r->pixels + i * ps, 1, r->palette, out))
		memset(out, 0, 4); // not reached: the format was checked
}

/* A DDS pixel, decoding only its block (the last one decoded is kept). */
static void pixel_dds(png_rows *r, size_t i, uint8_t out[4])
{
	const size_t w = r->width, x = i % w, y = i / w;
	const size_t block = (y / 4) * ((w + 3) / 4) + x / 4;
	if (block != r->probe_block) {
		const size_t block_size = r->dds->format == GSIOI_DDS_DXT1 ? 8 : 16;
		gsioi_dds_decode_block(r->dds->format, r->dds_data + GSIOI_DDS_HEADER_SIZE + block * block_size,
		                       r->probe_px);
		r->probe_block = block;
	}
	memcpy(out, r->probe_px + 4 * ((y % 4) * 4 + x % 4), 4);
}

/* RGBA to RGB, n pixels; d has 4 bytes of room after the 3n. As 4-byte
 * copies 3 bytes apart this was 8.5 instructions a pixel, half of the time
 * flamemother's opaque DXT1 skin spent making rows. With SSSE3 (every
 * x86-64 processor since 2006; asked at run time, SSE2 being the build's
 * baseline) one byte shuffle packs four pixels: 1.8 instructions a pixel
 * with the SUB that follows; the copies finish the row, and do all of it
 * elsewhere. */
#ifdef GSIOI_HAVE_SSSE3
GSIOI_TARGET_SSSE3 static size_t pack_rgb_ssse3(uint8_t *restrict d, const uint8_t *restrict s,
                                                size_t n)
{
	const __m128i pick = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
	size_t x = 0;
	for (; x + 4 <= n; x += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + 4 * x));
		// 16 bytes stored, 12 of them the pixels: the rest is the room.
		_mm_storeu_si128((__m128i *)(void *)(d + 3 * x), _mm_shuffle_epi8(v, pick));
	}
	return x;
}
#endif

static void pack_rgb(uint8_t *restrict d, const uint8_t *restrict s, size_t n)
{
	size_t x = 0;
#ifdef GSIOI_HAVE_SSSE3
	if (gsioi_has_ssse3()) x = pack_rgb_ssse3(d, s, n);
#endif
	for (; x < n; x++) memcpy(d + 3 * x, s + 4 * x, 4);
}

/* UP rows (each byte minus the one above; above the first row: zeros) of
 * RGB from RGBA whose alpha is 255 throughout. The row is first packed to
 * RGB, then the packed row before it is subtracted. */
static void row_up_rgb(png_rows *r, uint32_t y, uint8_t *dst)
{
	const uint8_t *src = r->rgba_row(r, y);
	uint8_t *rgb = r->cur;
	pack_rgb(rgb, src, r->width);
	dst[0] = 2; // UP
	if (y)
		sub_bytes(dst + 1, rgb, r->prev, r->row_bytes);
	else
		memcpy(dst + 1, rgb, r->row_bytes);
	r->cur = r->prev;
	r->prev = rgb;
}

/* UP rows of RGBA; the row before is kept when the source may lose it. */
static void row_up_rgba(png_rows *r, uint32_t y, uint8_t *dst)
{
	const uint8_t *src = r->rgba_row(r, y);
	dst[0] = 2; // UP
	if (y)
		sub_bytes(dst + 1, src, r->transient ? r->prev : src - r->row_bytes, r->row_bytes);
	else
		memcpy(dst + 1, src, r->row_bytes);
	if (r->transient) memcpy(r->prev, src, r->row_bytes);
}

// -- Compression

// igzip level 0, its fastest. Levels 1 and 2 (ISA-L 2.30, Debian 12) make
// 10-30% smaller files but are not deterministic: the same pixels came out
// as other (valid) bytes when igzip's memory lay at other addresses, e.g. in
// another run (test_png_deterministic). Level 3 is deterministic and as
// small, but as slow as libdeflate on flat images (DDS skins: 7.9-11.4 ms
// against 2 ms). Measured on the corpus skins, same pixels back:
//   level 0: shadow-5 9.0 ms / 2678 KB, gate-101 2.5 / 499, flamemother 1.9 / 307
//   level 1: 10.0 / 1875, 3.0 / 406, 2.1 / 256
//   libdeflate level 1 (before): 24.3 / 1817, 4.8 / 396, 9.9 / 236
// All corpus conversions together: 28.5 MB at level 1, 30.3 MB at level 0.
// (Level 0's sizes above are with igzip's built-in Huffman codes; with
// codes fitted to the image (deflate_rows) shadow-5's PNG is 27% smaller.)
#define PNG_DEFLATE_LEVEL 0
// Rows are filtered into a strip of about this many bytes and compressed.
#define PNG_STRIP_BYTES ((size_t)64 << 10)

/* The deflate state (level 0 needs no level buffer) and the Huffman codes
 * made for the image. */
typedef struct png_deflater {
	struct isal_zstream z;
	struct isal_huff_histogram hist;
	struct isal_hufftables codes;
} png_deflater;

/* Room for at least `more` output bytes after `used` at *buf (capacity *cap). */
static bool out_reserve(uint8_t **buf, size_t *cap, size_t used, size_t more)
{
	if (*cap - used >= more) return true;
	size_t want = *cap;
	while (want - used < more) {
		if (want > SIZE_MAX / 2) return false;
		want *= 2;
	}
	uint8_t *b = realloc(*buf, want);
	if (!b) return false;
	*buf = b;
	*cap = want;
	return true;
}

/* Compresses the rows as one zlib stream into *buf from byte `at` on
 * (growing it as needed); returns the stream's length, 0 on failure. */
static size_t deflate_rows(png_rows *r, uint32_t height, uint8_t **buf, size_t *cap, size_t at,
                           gsio_error *err)
{
	const size_t line = r->row_bytes + 1;
	const size_t strip_rows = line >= PNG_STRIP_BYTES ? 1 : PNG_STRIP_BYTES / line;
	// Zeroed, so that nothing igzip reads of its state can depend on what
	// the block held before.
	png_deflater *d = calloc(1, sizeof(*d));
	uint8_t *strip = malloc(line * (strip_rows < height ? strip_rows : height) + 4);
	size_t used = at;
	if (!d || !strip) goto nomem;
	isal_deflate_init(&d->z);
	d->z.level = PNG_DEFLATE_LEVEL;
	d->z.gzip_flag = IGZIP_ZLIB;
	d->z.flush = NO_FLUSH;
	for (uint32_t y = 0; y < height;) {
		uint32_t n = height - y < strip_rows ? height - y : (uint32_t)strip_rows;
		for (uint32_t k = 0; k < n; k++) r->row(r, y + k, strip + (size_t)k * line);
		y += n;
		if (y == n) {
			// Huffman codes fitted to the first strip's symbols instead of
			// igzip's built-in ones (made for text): filtered pixels are
			// mostly small differences. Deterministic (a function of the
			// bytes), every symbol keeps a code, and it costs 2% more
			// instructions: shadow-5's skin 2912 -> 2134 KB, all corpus
			// conversions together 35.0 -> 33.9 MB.
			isal_update_histogram(strip, (int)(n * line), &d->hist);
			if (isal_create_hufftables(&d->codes, &d->hist) == 0) d->z.hufftables = &d->codes;
		}
		d->z.next_in = strip;
		d->z.avail_in = (uint32_t)(n * line);
		d->z.end_of_stream = y == height;
		do {
			// Room for the strip as stored blocks and the zlib trailer.
			if (!out_reserve(buf, cap, used, n * line + 1024)) goto nomem;
			size_t room = *cap - used < UINT32_MAX ? *cap - used : UINT32_MAX;
			d->z.next_out = *buf + used;
			d->z.avail_out = (uint32_t)room;
			if (isal_deflate(&d->z) != COMP_OK) {
				free(d);
				free(strip);
				GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "PNG encoding failed in deflate");
				return 0;
			}
			used += room - d->z.avail_out;
		} while (d->z.avail_in || (d->z.end_of_stream && d->z.internal_state.state != ZSTATE_END));
	}
	free(d);
	free(strip);
	return used - at;
nomem:
	free(d);
	free(strip);
	GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
	return 0;
}

// -- Writing the file

/** What the IHDR, PLTE and tRNS chunks say. */
typedef struct png_layout {
	uint32_t width, height;
	uint8_t colour_type;          // 2 truecolour, 3 palette, 6 truecolour + alpha
	const uint8_t *plte;          // colour type 3: 3 bytes an entry
	uint32_t plte_len;
	const uint8_t *trns;          // alpha per palette entry, NULL when all opaque
	uint32_t trns_len;
} png_layout;

/* Writes the whole file into malloc'd memory. The output buffer starts at
 * the size of the filtered image: pages never written are never touched. */
static int write_png(const png_layout *l, png_rows *rows, uint8_t **png, size_t *png_size,
                     gsio_error *err)
{
	// signature 8, IHDR 25, PLTE 12 + 768, tRNS 12 + 256, IDAT 12 + data, IEND 12
	const size_t head_bound = 8 + 25 + 780 + 268 + 8;
	size_t cap = (rows->row_bytes + 1) * l->height + head_bound + 4096;
	uint8_t *out = malloc(cap);
	if (!out) {
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
	size_t idat = (size_t)(p - out);
	size_t zlen = deflate_rows(rows, l->height, &out, &cap, idat + 8, err);
	if (!zlen) {
		free(out);
		return -1;
	}
	if (zlen > INT32_MAX || !out_reserve(&out, &cap, idat + 8 + zlen, 24)) {
		free(out);
		if (zlen > INT32_MAX) {
			GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %ux%u PNG exceeds 2 GiB of data",
			          (unsigned)l->width, (unsigned)l->height);
			return -1;
		}
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	p = out + idat;
	p += put_chunk(p, "IDAT", p + 8, (uint32_t)zlen);
	p += put_chunk(p, "IEND", NULL, 0);
	size_t size = (size_t)(p - out);
	uint8_t *shrunk = realloc(out, size);
	*png = shrunk ? shrunk : out;
	*png_size = size;
	return 0;
}

/* Writes a palette PNG from indices (one byte a pixel), all below count:
 * PLTE up to the highest index used, tRNS up to the last entry of those
 * that is not opaque (the entries after it are opaque by the rule). */
static int write_palette_png(uint32_t width, uint32_t height, const uint8_t *indices,
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
	png_rows rows = {.row = row_indices, .pixels = indices, .width = width, .row_bytes = width};
	return write_png(&l, &rows, png, png_size, err);
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

/* The palette scan: indices (one byte a pixel) of the rows r->rgba_row
 * gives (y = 0 first), collecting their distinct colours in order of first
 * appearance; false when there are more than 256. A pixel equal to the one
 * before needs no lookup (flat-shaded skins are long runs). */
static bool palettise_rows(png_rows *r, uint32_t height, uint8_t *indices, uint8_t palette[256 * 4],
                           uint32_t *count)
{
	const uint32_t width = r->width;
	colour_set cs;
	colour_set_init(&cs);
	uint32_t prev_key = 0;
	uint8_t prev_index = 0;
	bool have_prev = false;
	for (uint32_t y = 0; y < height; y++) {
		uint8_t *dst = indices + (size_t)y * width;
		const uint8_t *src = r->rgba_row(r, y);
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

/* False when a probe of about 4096 pixels spread over the image finds more
 * than 256 colours: then the image is truecolour for certain, and most
 * photographic skins are found out at once (a skin whose first rows are one
 * flat colour would otherwise be scanned far before the 257th). */
static bool probe_few_colours(png_rows *r, size_t texels)
{
	colour_set cs;
	colour_set_init(&cs);
	const size_t step = texels / 4096 + 1;
	for (size_t i = 0; i < texels; i += step) {
		uint8_t px[4];
		uint32_t key;
		r->pixel(r, i, px);
		memcpy(&key, px, 4);
		if (colour_index(&cs, key) < 0) return false;
	}
	return true;
}

/* For a source whose probe found at most 256 colours: the palette PNG when
 * the whole image has at most 256 colours, its rows scanned in order (no
 * RGBA copy of a source decoded row by row). 1 when it has more (nothing
 * written), 0 written, -1 failed. */
static int palette_png_from_rows(png_rows *r, uint32_t height, uint8_t **png, size_t *png_size,
                                 gsio_error *err)
{
	uint8_t *indices = malloc((size_t)r->width * height);
	if (!indices) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	uint8_t palette[256 * 4];
	uint32_t colours;
	int rc = 1;
	if (palettise_rows(r, height, indices, palette, &colours))
		rc = write_palette_png(r->width, height, indices, palette, colours, png, png_size, err) ? -1 : 0;
	free(indices);
	return rc;
}

// -- Truecolour

/* RGB8 (every alpha 255) or RGBA8 rows with the UP filter, filtered a strip
 * at a time while they are compressed. */
/* The truecolour rows' buffers (the packed row and the one before it),
 * when the rows need them: RGB rows, and RGBA rows of a transient source. */
static bool truecolour_scratch(png_rows *rows, bool opaque, uint8_t **scratch, gsio_error *err)
{
	*scratch = NULL;
	if (!opaque && !rows->transient) return true; // RGBA rows of an image: the row above is there
	*scratch = malloc(2 * (rows->row_bytes + 4));
	if (!*scratch) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return false;
	}
	rows->prev = *scratch;
	rows->cur = *scratch + rows->row_bytes + 4;
	return true;
}

/* Every alpha of an RGBA image 255: alpha bytes ANDed 8 pixels at a time. */
static bool image_opaque(const png_rows *r, uint32_t height)
{
	const size_t texels = (size_t)r->width * height;
	const uint8_t *rgba = r->pixels;
	static const uint8_t colour_bytes[8] = {255, 255, 255, 0, 255, 255, 255, 0};
	uint64_t colour_mask;
	memcpy(&colour_mask, colour_bytes, 8); // the same bytes in either byte order
	size_t i = 0;
	for (; i + 8 <= texels; i += 8) {
		uint64_t w[4], all = ~(uint64_t)0;
		memcpy(w, rgba + 4 * i, 32);
		for (int k = 0; k < 4; k++) all &= w[k];
		if ((all | colour_mask) != ~(uint64_t)0) return false;
	}
	for (; i < texels; i++)
		if (rgba[4 * i + 3] != 255) return false;
	return true;
}

/* The PNG of any source (an RGBA image, stored pixels, a DDS file), the
 * same bytes for the same pixels: a palette PNG when it has at most 256
 * colours, else RGB (every alpha 255: opaque skins, a quarter smaller) or
 * RGBA rows with the UP filter. */
static int encode_source(png_rows *r, uint32_t height, uint8_t **png, size_t *png_size,
                         gsio_error *err)
{
	if (probe_few_colours(r, (size_t)r->width * height)) {
		int rc = palette_png_from_rows(r, height, png, png_size, err);
		if (rc <= 0) return rc;
	}
	const bool opaque = r->is_opaque(r, height);
	r->row = opaque ? row_up_rgb : row_up_rgba;
	r->row_bytes = (size_t)r->width * (opaque ? 3 : 4);
	uint8_t *scratch;
	if (!truecolour_scratch(r, opaque, &scratch, err)) return -1;
	png_layout l = {r->width, height, (uint8_t)(opaque ? 2 : 6), NULL, 0, NULL, 0};
	int rc = write_png(&l, r, png, png_size, err);
	free(scratch);
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
	png_rows r = {.rgba_row = rgba_row_image, .pixel = pixel_image, .is_opaque = image_opaque,
	              .pixels = rgba, .width = width};
	return encode_source(&r, height, png, png_size, err);
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
	uint8_t highest = 0;
	const size_t texels = (size_t)width * height;
	for (size_t i = 0; i < texels; i++) highest = indices[i] > highest ? indices[i] : highest;
	if (highest >= palette_count) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsio_png_encode_indexed: index %u with a palette of %u entries",
		          (unsigned)highest, (unsigned)palette_count);
		return -1;
	}
	return write_palette_png(width, height, indices, palette, (uint32_t)highest + 1, png, png_size,
	                         err);
}

// -- PNG from DDS

static bool dds_opaque(const png_rows *r, uint32_t height)
{
	(void)height;
	return gsioi_dds_opaque(r->dds, r->dds_data);
}

int gsio_png_encode_dds(const uint8_t *dds, size_t size, uint8_t **png, size_t *png_size,
                        gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode_dds: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	if (!dds) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode_dds: no data");
		return -1;
	}
	gsioi_dds_info info;
	if (!gsioi_dds_parse(dds, size, NULL, 0, &info, err)) return -1;
	size_t raw_size;
	if (!size_ok(info.width, info.height, 4, &raw_size, err)) return -1;
	uint8_t *band = malloc((size_t)info.width * 4 * 4);
	if (!band) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	png_rows r = {.rgba_row = rgba_row_dds, .pixel = pixel_dds, .is_opaque = dds_opaque,
	              .width = info.width, .transient = true, .dds = &info, .dds_data = dds,
	              .band = band, .probe_block = SIZE_MAX};
	int rc = encode_source(&r, info.height, png, png_size, err);
	free(band);
	return rc;
}

// -- PNG from stored pixels

/* Alpha 255 on every stored pixel: formats without alpha always; ARGB4444
 * when each high nibble of the high byte is 15; 8888 when byte 3 is 255. */
static bool stored_opaque(const png_rows *r, uint32_t height)
{
	const size_t texels = (size_t)r->width * height;
	const uint8_t *src = r->pixels;
	switch (r->format) {
	case GSIO_PIXEL_ARGB4444:
		for (size_t i = 0; i < texels; i++)
			if ((src[2 * i + 1] >> 4) != 15) return false;
		return true;
	case GSIO_PIXEL_BGRA8888:
	case GSIO_PIXEL_RGBA8888:
		for (size_t i = 0; i < texels; i++)
			if (src[4 * i + 3] != 255) return false;
		return true;
	default:
		return true;
	}
}

int gsio_png_encode_stored(gsio_pixel_format fmt, const uint8_t *src, uint32_t width,
                           uint32_t height, const uint8_t *palette, uint8_t **png,
                           size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode_stored: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	size_t raw_size;
	if (!src || !gsio_pixel_size(fmt)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_encode_stored: %s",
		          src ? "unknown pixel format" : "no pixels");
		return -1;
	}
	if (!size_ok(width, height, 4, &raw_size, err)) return -1;
	uint8_t *row = malloc((size_t)width * 4);
	if (!row) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	png_rows r = {.rgba_row = rgba_row_stored, .pixel = pixel_stored, .is_opaque = stored_opaque,
	              .pixels = src, .width = width, .transient = true, .format = fmt,
	              .palette = palette, .row_rgba = row};
	int rc = encode_source(&r, height, png, png_size, err);
	free(row);
	return rc;
}

// -- Smaller PNGs

/* Bytes of one row without its filter byte: 8-bit samples only. */
static bool png_row_bytes(const uint8_t *ihdr, size_t *row)
{
	uint32_t w = (uint32_t)ihdr[0] << 24 | (uint32_t)ihdr[1] << 16 | (uint32_t)ihdr[2] << 8 | ihdr[3];
	static const uint8_t channels[7] = {1, 0, 3, 1, 2, 0, 4}; // by colour type
	if (ihdr[8] != 8 || ihdr[9] > 6 || !channels[ihdr[9]] || ihdr[10] || ihdr[11] || ihdr[12])
		return false;
	return gsioi_mul_size(w, channels[ihdr[9]], row);
}

int gsio_png_shrink(const uint8_t *png, size_t size, uint8_t **out, size_t *out_size,
                    gsio_error *err)
{
	if (!out || !out_size || !png) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_png_shrink: no %s", png ? "output" : "input");
		return -1;
	}
	*out = NULL;
	*out_size = 0;
	static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	// Chunks: the first IDAT's offset, the end of the last, their data's total.
	size_t first_idat = 0, after_idat = 0, idat_total = 0, raw_size = 0, at = 8;
	const uint8_t *ihdr = NULL;
	bool ok = size >= 8 && !memcmp(png, signature, 8);
	while (ok && at < size) {
		if (size - at < 12) {
			ok = false;
			break;
		}
		size_t len = (size_t)png[at] << 24 | (size_t)png[at + 1] << 16 | (size_t)png[at + 2] << 8 | png[at + 3];
		if (len > size - at - 12) {
			ok = false;
			break;
		}
		const uint8_t *type = png + at + 4;
		if (!memcmp(type, "IHDR", 4) && len == 13 && at == 8) ihdr = png + at + 8;
		if (!memcmp(type, "IDAT", 4)) {
			if (!first_idat) first_idat = at;
			else if (after_idat != at) ok = false; // IDATs must follow each other
			idat_total += len;
			after_idat = at + 12 + len;
		}
		at += 12 + len;
		if (!memcmp(type, "IEND", 4)) break;
	}
	size_t row = 0;
	uint32_t height = ihdr ? (uint32_t)ihdr[4] << 24 | (uint32_t)ihdr[5] << 16 | (uint32_t)ihdr[6] << 8 | ihdr[7] : 0;
	ok = ok && ihdr && first_idat && png_row_bytes(ihdr, &row) && row < SIZE_MAX &&
	     gsioi_mul_size(row + 1, height, &raw_size) && raw_size <= ULONG_MAX && idat_total <= ULONG_MAX;
	if (!ok) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, NULL, -1,
		          "gsio_png_shrink: not a PNG of 8-bit samples without interlacing");
		return -1;
	}
	// The IDATs' data in one piece, then the filtered image.
	uint8_t *z = malloc(idat_total ? idat_total : 1), *raw = malloc(raw_size ? raw_size : 1);
	uLong zbound = compressBound((uLong)raw_size);
	uint8_t *res = malloc(first_idat + 12 + zbound + (size - after_idat));
	if (!z || !raw || !res) {
		free(z), free(raw), free(res);
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory shrinking a PNG");
		return -1;
	}
	size_t zn = 0;
	for (at = first_idat; at < after_idat;) {
		size_t len = (size_t)png[at] << 24 | (size_t)png[at + 1] << 16 | (size_t)png[at + 2] << 8 | png[at + 3];
		memcpy(z + zn, png + at + 8, len);
		zn += len;
		at += 12 + len;
	}
	uLongf got = (uLongf)raw_size;
	int zr = uncompress(raw, &got, z, (uLong)zn);
	free(z);
	if (zr != Z_OK || got != raw_size) {
		free(raw), free(res);
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1, "gsio_png_shrink: the image data does not inflate to %zu bytes",
		          raw_size);
		return -1;
	}
	// zlib's best level: deterministic, 10-15% smaller than igzip level 0
	// on the corpus skins, and some 10 times slower.
	uLongf zlen = zbound;
	zr = compress2(res + first_idat + 8, &zlen, raw, (uLong)raw_size, Z_BEST_COMPRESSION);
	free(raw);
	if (zr != Z_OK || zlen >= idat_total || zlen > INT32_MAX) { // not smaller: the PNG as it was
		free(res);
		if (zr == Z_MEM_ERROR) {
			GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory shrinking a PNG");
			return -1;
		}
		if (!(*out = malloc(size))) {
			GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory shrinking a PNG");
			return -1;
		}
		memcpy(*out, png, size);
		*out_size = size;
		return 0;
	}
	memcpy(res, png, first_idat);
	uint8_t *p = res + first_idat;
	p += put_chunk(p, "IDAT", p + 8, (uint32_t)zlen);
	memcpy(p, png + after_idat, size - after_idat);
	p += size - after_idat;
	*out_size = (size_t)(p - res);
	uint8_t *shrunk = realloc(res, *out_size);
	*out = shrunk ? shrunk : res;
	return 0;
}
