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
#define _DEFAULT_SOURCE // madvise, MADV_HUGEPAGE (gsioi_huge_pages.h)
#include "gsio.h"
#include "gsioi_bmp.h"
#include "gsioi_dds.h"
#include "gsioi_huge_pages.h"
#include "gsioi_internal.h"
#include "gsioi_png.h"
#include "gsioi_tga.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <limits.h>
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef GSIOI_HAVE_SSSE3
#include <tmmintrin.h>
#endif
#include <stddef.h>
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
 * row_bytes filtered bytes at dst; rows are asked for in order, from row 0
 * or, for a band after the first (gsioi_png_part), from the fourth row
 * before the band's first (made and dropped: they set the row kept above
 * and a DDS source's band of 4). dst has 4 bytes of room after the row.
 * Truecolour rows come from RGBA rows that rgba_row(r, y) gives (in order
 * too; a DDS source decodes them a band of 4 at a time, so a row may be
 * gone once the next is asked for). */
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
	// An uncompressed TGA file (pixels: the file) decoded a row at a time
	// into row_rgba; its height (rows run bottom up in the file).
	uint32_t tga_height;
	// An uncompressed BMP file (pixels: the file), its header as read,
	// decoded a row at a time into row_rgba.
	gsioi_bmp bmp;
	// A stored pixel format (gsio_decode_pixels) decoded a row at a time.
	gsio_pixel_format format;
	const uint8_t *palette;
	uint8_t *row_rgba;
	// A palette PNG of a source's RGBA rows: their colours, each row's
	// indices looked up as it is made (row_palette).
	const struct colour_set *colours;
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

static const uint8_t *rgba_row_tga(png_rows *r, uint32_t y)
{
	gsioi_tga_plain_row(r->pixels, r->width, r->tga_height, y, r->row_rgba);
	return r->row_rgba;
}

static const uint8_t *rgba_row_bmp(png_rows *r, uint32_t y)
{
	gsioi_bmp_row(r->pixels, &r->bmp, y, r->row_rgba);
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

static void pixel_tga(png_rows *r, size_t i, uint8_t out[4])
{
	gsioi_tga_plain_pixel(r->pixels, r->width, r->tga_height, i, out);
}

static void pixel_bmp(png_rows *r, size_t i, uint8_t out[4])
{
	gsioi_bmp_pixel(r->pixels, &r->bmp, i, out);
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
/* The compact output (gsioi_png_plan_compact): the same PNG (form, UP
 * filter, chunks), its rows compressed once, by one of two coders chosen
 * by how the image compresses; the per-file bound is zlib's best level
 * (compress2 level 9) on the same rows plus 5%, the time 1.5 times the
 * default conversion's (mdl2gltf -j 1). Measured on the corpus's PNGs
 * (filtered rows), sizes as a fraction of zlib 9's, times in ms on one
 * CPU (shared machine, least of 3):
 *                         zlib9  igzip3      ld1       ld5       ld6
 *   shadow-5  1024^2 rgb  1.000  1.010/11  1.002/31  0.987/61  0.987/66
 *   gate-101   512^2      1.000  1.041/3   1.028/5   1.001/16  0.998/23
 *   flamemother 1024^2    1.000  1.367/7   1.125/11  1.029/11  1.022/13
 *   trident   1024^2      1.000  1.371/15  1.170/14  1.055/24  1.042/41
 *   whiskas    870^2      1.000  1.298/5   1.110/9   1.026/11  1.017/12
 * - Photographic rows (order-0 entropy of the filtered bytes at least
 *   PNG_FAST_ENTROPY bits a byte, on 8 runs of 8 rows spread over the
 *   image: gate-101 4.0, shadow-5 4.9; the flat skins 1.2-3.4): every
 *   deflate is within 1-4% of zlib's best, the slower levels only search
 *   longer. igzip's level 3 (deterministic, unlike its levels 1-2; its
 *   buffer is cleared all the same) in the bands the default output uses,
 *   so that both threads compress it: shadow-5's conversion 1.1-1.2 times
 *   the default's wall time, 1.9 with libdeflate's level 1 on one thread
 *   (mdl2gltf -j 1, least of 5-9 runs, a shared machine).
 * - Other rows: libdeflate (deterministic; one call, on the filtered image
 *   whole), level PNG_WHOLE_LEVEL, PNG_WHOLE_LEVEL_LARGE for PNG_LARGE_RAW
 *   bytes of rows and more (5 is up to 40% faster than 6 there, for
 *   0.5-1.8% more bytes; mdl3-crystal's small skin needs 6 for the 5%).
 *   On a few KB of rows level 6 can come out up to 1.1% larger than the
 *   default's igzip stream with codes fitted to the image (mdl7-tree2's 9
 *   KB: 6602 bytes, 6531 by default; lgs-small's second skin, 16 KB: 6742
 *   and 6715); levels 10-12 are smaller (6420, 6615) but cost 0.3-2.6 ms
 *   there, more than the whole default conversion of mdl2-tree or
 *   trashcan (1.6 ms), so level 6 stays.
 *   One zlib stream from both threads would need a coder that continues a
 *   stream (a sync flush), and of those at hand igzip is 1.2-1.4 times
 *   zlib 9 on these rows and zlib itself 2-6 times slower than libdeflate
 *   for the same size; libdeflate ends every stream with a final block.
 * Per file against the zlib 9 bound, all corpus conversions: at most
 * 1.045 (trident_of_lightning). libdeflate's level 4 for the other rows
 * would reach 1.089 (ammobox), 5 for all of them 1.053 (mdl3-crystal),
 * and level 1 for every image 1.139 (trident_of_lightning). */
#define PNG_FAST_ENTROPY 3.6
#define PNG_LARGE_RAW ((size_t)512 << 10)
#define PNG_WHOLE_LEVEL 6
#define PNG_WHOLE_LEVEL_LARGE 5
// Rows are filtered into a strip of about this many bytes and compressed.
#define PNG_STRIP_BYTES ((size_t)64 << 10)

/* The deflate state (level 0 needs no level buffer) and the Huffman codes
 * made for the image. The symbol counts they are made from (igzip's
 * histogram: its counts, 2.5 KB, then a 16 KB hash table) are made inside
 * the state, its hash table on the state's own (`head`, which the first
 * deflate call clears) and its counts in the last bytes of the window
 * before it (`buffer`, unused until the first deflate call, and the
 * stateless call for a one-strip image never uses it): the counts are
 * made, the codes fitted, and only then is the state set up. Each of the
 * histogram's pages is one the deflate touches anyway. At the window's
 * start, the histogram would make a one-strip image touch 18.6 KB besides
 * the 16 KB hash; in a block of its own, an image of more than one strip
 * would touch it besides the window (mdl2gltf's data peak, median of 9:
 * mdl3-crystal.mdl's 256 x 256 RGB skin 596 KB that way against 576 KB;
 * the same bytes). */
typedef struct png_deflater {
	struct isal_zstream z;
	struct isal_hufftables codes;
} png_deflater;

#define PNG_HIST_AT \
	(offsetof(struct isal_zstream, internal_state.head) - offsetof(struct isal_huff_histogram, hash_table))
_Static_assert(sizeof(((struct isal_huff_histogram *)0)->hash_table) == sizeof(((struct isal_zstate *)0)->head),
               "the histogram's hash table must be igzip's hash table's size");
_Static_assert(PNG_HIST_AT >= offsetof(struct isal_zstream, internal_state.buffer),
               "the histogram's counts must fit in igzip's window");
_Static_assert(PNG_HIST_AT % _Alignof(struct isal_huff_histogram) == 0, "the histogram must be aligned");

static struct isal_huff_histogram *deflater_hist(png_deflater *d)
{
	return (struct isal_huff_histogram *)(void *)((uint8_t *)&d->z + PNG_HIST_AT);
}

size_t gsioi_png_state_size(void)
{
	return sizeof(png_deflater);
}

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

/* How a band of rows is deflated: the whole image as one zlib stream (one
 * part: the header and the Adler-32 trailer by igzip), or as raw deflate
 * that a later band continues (ended by a sync flush: an empty stored
 * block, byte-aligned), or the last band (the final block). */
typedef enum band_mode { BAND_WHOLE, BAND_FIRST_OR_MIDDLE, BAND_LAST } band_mode;

/* Compresses rows [y0, y1) into *buf from byte `at` on (growing it as
 * needed), adding their filtered bytes to *adler (raw bands; a whole
 * stream keeps its own); returns the bytes written, 0 on failure. The row
 * source is at row y0 (see png_rows). */
static size_t deflate_band(png_rows *r, uint32_t y0, uint32_t y1, band_mode mode, int level, uint8_t **buf,
                           size_t *cap, size_t at, uint32_t *adler, gsio_error *err)
{
	const size_t line = r->row_bytes + 1;
	const uint32_t height = y1 - y0;
	const size_t strip_rows = line >= PNG_STRIP_BYTES ? 1 : PNG_STRIP_BYTES / line;
	// Not zeroed whole: igzip writes each part of its 103 KB before it reads
	// it (isal_deflate_init sets the stream's state and its first call
	// clears the hash table; isal_update_histogram clears its own;
	// isal_create_hufftables writes the codes), and only the histogram's
	// counts must start at zero. So a block fresh from the system costs
	// only the pages igzip touches, where calloc cleared all 103 KB: a
	// conversion with one small skin holds about 50 KB less at its peak
	// (trashcan.mdl's data 5.9 -> 3.7 times input + output), the same bytes.
	// test_png_dirty_state encodes in memory left dirty with four
	// patterns of 16-bit words and compares.
	png_deflater *d = malloc(sizeof(*d));
	uint8_t *strip = malloc(line * (strip_rows < height ? strip_rows : height) + 4);
	// Level 3's own buffer (its hash and tokens), cleared: only level 0
	// was checked for bytes that do not depend on memory left dirty.
	uint8_t *lvl = level ? calloc(1, ISAL_DEF_LVL3_DEFAULT) : NULL;
	size_t used = at;
	if (!d || !strip || (level && !lvl)) goto nomem;
	// A whole image in one strip (filtered, at most 64 KB) is deflated in
	// one stateless call, which reads the strip where it is; the streaming
	// calls copy their input into the state's 64 KB window first, touching
	// as many of its pages. The same bytes (312 corpus conversions); the
	// data peak of mdl2gltf (median of 9): mdl3-crystal 588 -> 556 KB,
	// mdl7-tree2 380 -> 368, assimp-terrain 280 -> 272; none higher (where
	// later blocks reuse those pages, as trashcan's, nothing changes).
	const bool one_call = mode == BAND_WHOLE && height <= strip_rows && !level;
	for (uint32_t y = 0; y < height;) {
		uint32_t n = height - y < strip_rows ? height - y : (uint32_t)strip_rows;
		for (uint32_t k = 0; k < n; k++) r->row(r, y0 + y + k, strip + (size_t)k * line);
		y += n;
		if (y == n && level) {
			// Level 3 makes its blocks' codes itself.
			isal_deflate_init(&d->z);
			d->z.level = (uint32_t)level;
			d->z.level_buf = lvl;
			d->z.level_buf_size = ISAL_DEF_LVL3_DEFAULT;
			d->z.gzip_flag = mode == BAND_WHOLE ? IGZIP_ZLIB : IGZIP_DEFLATE;
			d->z.flush = NO_FLUSH;
		} else if (y == n) {
			// Huffman codes fitted to the first strip's symbols instead of
			// igzip's built-in ones (made for text): filtered pixels are
			// mostly small differences. Deterministic (a function of the
			// bytes), every symbol keeps a code, and it costs 2% more
			// instructions: shadow-5's skin 2912 -> 2134 KB, all corpus
			// conversions together 35.0 -> 33.9 MB. The counts are in the
			// state (png_deflater), so the state is set up after them.
			struct isal_huff_histogram *hist = deflater_hist(d);
			memset(hist->lit_len_histogram, 0, sizeof(hist->lit_len_histogram));
			memset(hist->dist_histogram, 0, sizeof(hist->dist_histogram));
			isal_update_histogram(strip, (int)(n * line), hist);
			bool fitted = isal_create_hufftables(&d->codes, hist) == 0;
			if (one_call) {
				// The stateless calls read fields of the state its init
				// leaves alone (stateful init sets them): all zero up to
				// the window.
				memset(&d->z, 0, offsetof(struct isal_zstream, internal_state.buffer));
				isal_deflate_stateless_init(&d->z);
			} else
				isal_deflate_init(&d->z);
			d->z.level = PNG_DEFLATE_LEVEL;
			d->z.gzip_flag = mode == BAND_WHOLE ? IGZIP_ZLIB : IGZIP_DEFLATE;
			d->z.flush = NO_FLUSH;
			if (fitted) d->z.hufftables = &d->codes;
		}
		if (mode != BAND_WHOLE) *adler = isal_adler32(*adler, strip, n * line);
		d->z.next_in = strip;
		d->z.avail_in = (uint32_t)(n * line);
		if (!one_call) {
			d->z.end_of_stream = y == height && mode != BAND_FIRST_OR_MIDDLE;
			if (y == height && mode == BAND_FIRST_OR_MIDDLE) d->z.flush = SYNC_FLUSH;
		}
		do {
			// Room for the strip as stored blocks, the zlib header and trailer.
			if (!out_reserve(buf, cap, used, n * line + 1024)) goto nomem;
			size_t room = *cap - used < UINT32_MAX ? *cap - used : UINT32_MAX;
			d->z.next_out = *buf + used;
			d->z.avail_out = (uint32_t)room;
			int rc = one_call ? isal_deflate_stateless(&d->z) : isal_deflate(&d->z);
			if (rc != COMP_OK) goto failed;
			used += room - d->z.avail_out;
		} while (!one_call && (d->z.avail_in ||
		         (d->z.end_of_stream && d->z.internal_state.state != ZSTATE_END) ||
		         (d->z.flush == SYNC_FLUSH && d->z.internal_state.state != ZSTATE_NEW_HDR)));
	}
	free(d);
	free(strip);
	free(lvl);
	return used - at;
failed:
	free(d);
	free(strip);
	free(lvl);
	GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "PNG encoding failed in deflate");
	return 0;
nomem:
	free(d);
	free(strip);
	free(lvl);
	GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
	return 0;
}

// -- The file, made in parts

/* A PNG image of more than PNG_PART_PIXELS pixels is deflated in bands of
 * rows (parts), each a deflate stream of its own joined to the next at a
 * sync flush, so that the bands can be compressed at the same time on
 * different threads (gsioi_png_part); the Adler-32 of the whole is made
 * from the bands' own (zlib's adler32_combine). How many bands depends on
 * the image's size only, never on the threads, so the bytes are the same
 * however they are made. A band restarts deflate's history and fits its
 * own Huffman codes: a 512 x 512 skin in two bands is 0.1-0.3% larger. */
#define PNG_PART_PIXELS ((size_t)128 * 1024)
#define PNG_PARTS_MAX 4

/** What the IHDR, PLTE and tRNS chunks say. */
typedef struct png_layout {
	uint32_t width, height;
	uint8_t colour_type;          // 2 truecolour, 3 palette, 6 truecolour + alpha
	uint8_t plte[768];            // colour type 3: 3 bytes an entry
	uint32_t plte_len;
	uint8_t trns[256];            // alpha per palette entry; trns_len 0 when all opaque
	uint32_t trns_len;
} png_layout;

typedef struct png_part {
	uint8_t *buf;       // part 0: the file's head first (work->head bytes), then its deflate bytes
	size_t cap, len;    // len: the deflate bytes
	uint32_t adler;     // of the band's filtered bytes (more than one part)
	int rc;             // 1: not made yet, 0: made, -1: failed (err)
	gsio_error err;
} png_part;

struct gsioi_png_work {
	png_layout l;
	png_rows rows;       // the source; each part works on a copy
	gsioi_dds_info dds;  // a DDS source's header (rows.dds points here)
	struct colour_set *colours; // a palette PNG's colours found here (owned; rows.colours), else NULL
	size_t head;         // bytes before the deflate data: signature, IHDR, PLTE, tRNS, IDAT's length and type
	uint32_t parts, band; // band: rows a part (a multiple of 4), the last has the rest
	int level;           // igzip's level for the bands: 0, or 3 (compact output)
	bool whole;          // compact output: one libdeflate stream (gsioi_png_plan_compact)
	png_part part[PNG_PARTS_MAX];
};

/* The bands of an image of `height` rows: parts and rows in each. */
static void plan_parts(gsioi_png_work *w)
{
	const uint32_t height = w->l.height;
	const size_t pixels = (size_t)w->l.width * height;
	uint32_t parts = (uint32_t)(pixels / PNG_PART_PIXELS);
	if (parts > PNG_PARTS_MAX) parts = PNG_PARTS_MAX;
	if (parts < 1) parts = 1;
	uint32_t band = (height + parts - 1) / parts;
	band = (band + 3) & ~(uint32_t)3; // the row sources start on a DDS band of 4
	if (band < 4) band = 4;
	w->parts = (height + band - 1) / band;
	w->band = band;
	if (w->parts <= 1) w->parts = 1, w->band = height;
	for (uint32_t i = 0; i < PNG_PARTS_MAX; i++) w->part[i].rc = 1;
}

/* Bytes before the deflate data: signature 8, IHDR 25, PLTE 12 + its
 * entries, tRNS 12 + its, and the IDAT's length and type (8), plus the
 * zlib header (2) that a stream made in parts gets here. */
static size_t head_size(const gsioi_png_work *w)
{
	return 8 + 25 + (w->l.colour_type == 3 ? 12 + w->l.plte_len : 0) + (w->l.trns_len ? 12 + w->l.trns_len : 0) +
	       8 + (w->parts > 1 ? 2 : 0);
}

/* The first row a part's source must be set to before its band: the row
 * source and the UP filter keep the row before (and a DDS band), so a band
 * after the first starts with its four rows before made and dropped. */
static void part_rows(const gsioi_png_work *w, uint32_t i, uint32_t *y0, uint32_t *y1)
{
	*y0 = i * w->band;
	*y1 = i + 1 == w->parts ? w->l.height : *y0 + w->band;
}

/* A part's own buffers: its source's row or band, the truecolour rows, a
 * line to drop the rows before its band into. */
typedef struct part_bufs {
	uint8_t *row_rgba, *band, *scratch, *line;
} part_bufs;

static void part_bufs_free(part_bufs *b)
{
	free(b->row_rgba), free(b->band), free(b->scratch), free(b->line);
}

/* Sets r (a copy of w's source) to make rows from y0 on with buffers of its
 * own (b, part_bufs_free); false when out of memory. */
static bool part_source(const gsioi_png_work *w, uint32_t y0, png_rows *r, part_bufs *b)
{
	*r = w->rows;
	*b = (part_bufs){0};
	const bool truecolour = w->l.colour_type != 3;
	bool ok = true;
	// Zeroed: the rows dropped before a band read the row before theirs,
	// and nothing may depend on what the memory held before.
	const bool from_rgba = truecolour || r->colours;
	if (from_rgba && (r->rgba_row == rgba_row_stored || r->rgba_row == rgba_row_tga || r->rgba_row == rgba_row_bmp))
		ok = (b->row_rgba = calloc(r->width, 4));
	if (ok && from_rgba && r->rgba_row == rgba_row_dds) ok = (b->band = calloc(r->width, 4 * 4));
	if (ok && truecolour && (r->row == row_up_rgb || r->transient)) ok = (b->scratch = calloc(2, r->row_bytes + 4));
	if (ok && truecolour && y0) ok = (b->line = malloc(r->row_bytes + 1 + 4));
	if (!ok) {
		part_bufs_free(b);
		return false;
	}
	if (b->row_rgba) r->row_rgba = b->row_rgba;
	if (b->band) r->band = b->band;
	if (b->scratch) r->prev = b->scratch, r->cur = b->scratch + r->row_bytes + 4;
	r->dds = w->rows.dds ? &w->dds : NULL;
	if (truecolour)
		for (uint32_t y = y0 >= 4 ? y0 - 4 : 0; y < y0; y++) r->row(r, y, b->line);
	return true;
}

int gsioi_png_part(gsioi_png_work *w, size_t i, gsio_error *err)
{
	if (!w || i >= w->parts) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_part: no part %zu", i);
		return -1;
	}
	png_part *p = &w->part[i];
	if (p->rc <= 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_part: part %zu made already", i);
		return -1;
	}
	gsio_error_clear(&p->err);
	uint32_t y0, y1;
	part_rows(w, (uint32_t)i, &y0, &y1);
	png_rows r;
	part_bufs b;
	bool ok = part_source(w, y0, &r, &b);
	size_t at = i == 0 ? w->head : 0;
	uint8_t *buf = NULL;
	size_t cap = at + (r.row_bytes + 1) * (y1 - y0) + 4096;
	if (ok && !(buf = malloc(cap))) part_bufs_free(&b), ok = false;
	// A large band's output is fresh memory (malloc maps it), written
	// once: 2 MiB pages where they fit, a fault each instead of 512.
	if (ok) gsioi_advise_huge(buf, cap);
	if (!ok) {
		GSIO_FAIL(&p->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		if (err) *err = p->err;
		return p->rc = -1;
	}
	band_mode mode = w->parts == 1 ? BAND_WHOLE : i + 1 == w->parts ? BAND_LAST : BAND_FIRST_OR_MIDDLE;
	p->adler = 1; // Adler-32's start; the parts' are combined in gsioi_png_finish
	size_t n = deflate_band(&r, y0, y1, mode, w->level, &buf, &cap, at, &p->adler, &p->err);
	part_bufs_free(&b);
	if (!n) {
		free(buf);
		if (err) *err = p->err;
		return p->rc = -1;
	}
	p->buf = buf;
	p->cap = cap;
	p->len = n;
	return p->rc = 0;
}

size_t gsioi_png_parts(const gsioi_png_work *w)
{
	return w ? w->parts : 0;
}

void gsioi_png_work_free(gsioi_png_work *w)
{
	if (!w) return;
	for (uint32_t i = 0; i < PNG_PARTS_MAX; i++) free(w->part[i].buf);
	free(w->colours);
	free(w);
}

/* The file's chunks around zlen bytes of zlib data that are at out + the
 * head's length without the zlib header (body_at in gsioi_png_finish);
 * out has room for the IDAT's CRC and IEND after the data. Returns the
 * file's size. */
static size_t write_chunks(const png_layout *l, uint8_t *out, size_t zlen)
{
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
	if (l->colour_type == 3) p += put_chunk(p, "PLTE", l->plte, l->plte_len);
	if (l->trns_len) p += put_chunk(p, "tRNS", l->trns, l->trns_len);
	p += put_chunk(p, "IDAT", p + 8, (uint32_t)zlen);
	p += put_chunk(p, "IEND", NULL, 0);
	return (size_t)(p - out);
}

static int finish_whole(gsioi_png_work *w, uint8_t **png, size_t *png_size, gsio_error *err);

/* Part 0's buffer replaced by one of its bytes (head and deflate data) and
 * room for `more` after them, its pages made in one go (gsioi_prefault,
 * 2 MiB pages where they fit): the other parts are copied into it. Grown
 * by realloc, the new pages came a fault each, half of a 2048 x 2048
 * skin's faults (a fault costs 5-20 us on a virtual machine). False when
 * out of memory (the part keeps its buffer). */
static bool join_buffer(png_part *p0, size_t head, size_t more)
{
	size_t used = head + p0->len, cap = used + more;
	if (cap <= p0->cap) return true;
	uint8_t *b = malloc(cap);
	if (!b) return false;
	if (cap >= ((size_t)64 << 10)) {
		gsioi_advise_huge(b, cap);
		gsioi_prefault(b, cap);
	}
	memcpy(b, p0->buf, used);
	free(p0->buf);
	p0->buf = b;
	p0->cap = cap;
	return true;
}

int gsioi_png_finish(gsioi_png_work *w, uint8_t **png, size_t *png_size, gsio_error *err)
{
	if (!w || !png || !png_size) {
		gsioi_png_work_free(w);
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_finish: no %s", w ? "output" : "work");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	if (w->whole) return finish_whole(w, png, png_size, err);
	for (uint32_t i = 0; i < w->parts; i++) {
		if (w->part[i].rc > 0 && gsioi_png_part(w, i, err)) break; // not made yet: made here
		if (w->part[i].rc < 0) {
			if (err) *err = w->part[i].err;
			gsioi_png_work_free(w);
			return -1;
		}
	}
	for (uint32_t i = 0; i < w->parts; i++)
		if (w->part[i].rc) {
			if (err) *err = w->part[i].err;
			gsioi_png_work_free(w);
			return -1;
		}
	// The deflate data: the first part's, then the others' and the
	// Adler-32 of all (more than one part), in part 0's buffer after the
	// head; IDAT, then IEND.
	png_part *p0 = &w->part[0];
	size_t zlen = p0->len + (w->parts > 1 ? 2 + 4 : 0);
	for (uint32_t i = 1; i < w->parts; i++) zlen += w->part[i].len;
	size_t body_at = w->head - (w->parts > 1 ? 2 : 0); // the IDAT's data
	if (zlen <= INT32_MAX && w->parts > 1 && !join_buffer(p0, w->head, zlen - p0->len + 24)) zlen = SIZE_MAX;
	if (zlen > INT32_MAX || !out_reserve(&p0->buf, &p0->cap, w->head + p0->len, zlen - p0->len + 24)) {
		if (zlen > INT32_MAX && zlen != SIZE_MAX) {
			GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %ux%u PNG exceeds 2 GiB of data", (unsigned)w->l.width,
			          (unsigned)w->l.height);
		} else {
			GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		}
		gsioi_png_work_free(w);
		return -1;
	}
	uint8_t *out = p0->buf;
	size_t end = w->head + p0->len;
	if (w->parts > 1) {
		uint32_t adler = p0->adler;
		for (uint32_t i = 1; i < w->parts; i++) {
			memcpy(out + end, w->part[i].buf, w->part[i].len);
			end += w->part[i].len;
			uint32_t y0, y1;
			part_rows(w, i, &y0, &y1);
			adler = (uint32_t)adler32_combine(adler, w->part[i].adler, (z_off_t)((w->rows.row_bytes + 1) * (y1 - y0)));
		}
		out[body_at] = 0x78; // deflate, 32 KiB window; FLEVEL 0, as igzip writes it
		out[body_at + 1] = 0x01;
		put_be32(out + end, adler);
		end += 4;
	}
	size_t size = write_chunks(&w->l, out, zlen);
	p0->buf = NULL;
	gsioi_png_work_free(w);
	uint8_t *shrunk = realloc(out, size);
	*png = shrunk ? shrunk : out;
	*png_size = size;
	return 0;
}

/* Bits a byte (order 0) of the filtered bytes of up to PNG_SAMPLE_RUNS
 * runs of 8 rows spread over the image (each from a multiple of 4, where
 * a part may start); 0 when out of memory. */
#define PNG_SAMPLE_RUNS 8
static double sample_entropy(const gsioi_png_work *w)
{
	const uint32_t height = w->l.height, runs = height < 2 * PNG_SAMPLE_RUNS * 8 ? 1 : PNG_SAMPLE_RUNS;
	const size_t line = w->rows.row_bytes + 1;
	uint8_t *row = malloc(line + 4);
	size_t hist[256] = {0}, total = 0;
	for (uint32_t k = 0; row && k < runs; k++) {
		uint32_t y0 = runs == 1 ? 0 : (uint32_t)((2 * (uint64_t)k + 1) * height / (2 * runs)) & ~(uint32_t)3;
		uint32_t y1 = runs == 1 ? height : y0 + 8;
		png_rows r;
		part_bufs b;
		if (!part_source(w, y0, &r, &b)) break;
		for (uint32_t y = y0; y < y1; y++) {
			r.row(&r, y, row);
			for (size_t i = 1; i < line; i++) hist[row[i]]++;
			total += line - 1;
		}
		part_bufs_free(&b);
	}
	free(row);
	double bits = 0;
	for (int i = 0; i < 256; i++)
		if (hist[i]) bits -= (double)hist[i] * log2((double)hist[i] / (double)total);
	return total ? bits / (double)total : 0;
}

void gsioi_png_plan_compact(gsioi_png_work *w)
{
	if (!w) return;
	const double e = w->l.colour_type == 3 ? 0 : sample_entropy(w);
	if (e >= PNG_FAST_ENTROPY) {
		w->level = 3;
		return;
	}
	w->whole = true;
	w->parts = 1;
	w->band = w->l.height;
	w->head = head_size(w);
}

/* libdeflate's level for a work planned whole, of raw_size bytes of rows. */
static int whole_level(size_t raw_size)
{
	return raw_size >= PNG_LARGE_RAW ? PNG_WHOLE_LEVEL_LARGE : PNG_WHOLE_LEVEL;
}

int gsioi_png_coder(const gsioi_png_work *w, int *level)
{
	if (!w->whole) {
		*level = w->level ? w->level : PNG_DEFLATE_LEVEL;
		return GSIOI_PNG_IGZIP;
	}
	*level = whole_level((w->rows.row_bytes + 1) * w->l.height);
	return GSIOI_PNG_LIBDEFLATE;
}

/* gsioi_png_finish of a work planned whole (gsioi_png_plan_compact). */
static int finish_whole(gsioi_png_work *w, uint8_t **png, size_t *png_size, gsio_error *err)
{
	// The filtered image whole (libdeflate takes one buffer), then the file:
	// its head, the zlib stream, the IDAT's CRC and IEND.
	const size_t line = w->rows.row_bytes + 1, head = w->head; // one part: no zlib header of ours
	const uint32_t height = w->l.height;
	png_rows r;
	part_bufs b;
	uint8_t *raw = NULL, *out = NULL;
	struct libdeflate_compressor *enc = NULL;
	size_t raw_size = line * height, zlen = 0; // checked by size_ok when begun
	if (!part_source(w, 0, &r, &b)) goto nomem;
	raw = malloc(raw_size + 4); // a row may write 4 bytes past its end
	if (raw) {
		// Its pages made in one call (huge ones where they fit) instead of a
		// fault each: flamemother's 3 MB of rows, the image's thread time
		// 26.5 -> 21.6 ms (least of 9, shared machine).
		gsioi_advise_huge(raw, raw_size);
		gsioi_prefault(raw, raw_size);
		for (uint32_t y = 0; y < height; y++) r.row(&r, y, raw + (size_t)y * line);
	}
	part_bufs_free(&b);
	const int level = whole_level(raw_size);
	enc = raw ? libdeflate_alloc_compressor(level) : NULL;
	size_t bound = enc ? libdeflate_zlib_compress_bound(enc, raw_size) : 0;
	if (!enc || bound > SIZE_MAX - head - 24 || !(out = malloc(head + bound + 24))) goto nomem;
	zlen = libdeflate_zlib_compress(enc, raw, raw_size, out + head, bound);
	libdeflate_free_compressor(enc);
	free(raw);
	if (!zlen || zlen > INT32_MAX) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %ux%u PNG exceeds 2 GiB of data", (unsigned)w->l.width,
		          (unsigned)height);
		free(out);
		gsioi_png_work_free(w);
		return -1;
	}
	size_t size = write_chunks(&w->l, out, zlen);
	gsioi_png_work_free(w);
	uint8_t *shrunk = realloc(out, size);
	*png = shrunk ? shrunk : out;
	*png_size = size;
	return 0;
nomem:
	libdeflate_free_compressor(enc);
	free(raw);
	free(out);
	gsioi_png_work_free(w);
	GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
	return -1;
}

/* A new work for the layout in w (its parts planned, its head sized); NULL
 * when out of memory. */
static gsioi_png_work *new_work(gsio_error *err)
{
	gsioi_png_work *w = calloc(1, sizeof(*w));
	if (!w) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
	return w;
}

static void work_ready(gsioi_png_work *w)
{
	plan_parts(w);
	w->head = head_size(w);
}

/* The palette layout from RGBA entries, up to `used` of them: PLTE up to
 * the highest index used, tRNS up to the last entry of those that is not
 * opaque (the entries after it are opaque by the rule). */
static void palette_layout(png_layout *l, const uint8_t *palette, uint32_t used)
{
	l->colour_type = 3;
	l->trns_len = 0;
	for (uint32_t k = 0; k < used; k++) {
		memcpy(l->plte + 3 * k, palette + 4 * k, 3);
		l->trns[k] = palette[4 * k + 3];
		if (l->trns[k] != 255) l->trns_len = k + 1;
	}
	l->plte_len = 3 * used;
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

/* The colour's slot: where it is, or the empty slot where it would go. */
static inline uint32_t colour_slot(const colour_set *cs, uint32_t key)
{
	uint32_t h = (key * 2654435761u) >> 22; // 10 bits
	while (cs->index[h] >= 0 && cs->keys[h] != key) h = (h + 1) & (COLOUR_SLOTS - 1);
	return h;
}

/* The colour's palette index, added when new; -1 for a 257th colour. */
static inline int colour_index(colour_set *cs, uint32_t key)
{
	uint32_t h = colour_slot(cs, key);
	if (cs->index[h] >= 0) return cs->index[h];
	if (cs->count == 256) return -1;
	cs->keys[h] = key;
	cs->index[h] = (int16_t)cs->count;
	return (int)cs->count++;
}

/* The palette scan: the distinct colours of the rows r->rgba_row gives
 * (y = 0 first) into cs, and palette, in order of first appearance;
 * false when there are more than 256. A pixel equal to the one before
 * needs no lookup (flat-shaded skins are long runs). */
static bool scan_colours(png_rows *r, uint32_t height, colour_set *cs, uint8_t palette[256 * 4])
{
	const uint32_t width = r->width;
	colour_set_init(cs);
	uint32_t prev_key = 0;
	bool have_prev = false;
	for (uint32_t y = 0; y < height; y++) {
		const uint8_t *src = r->rgba_row(r, y);
		for (uint32_t x = 0; x < width; x++) {
			uint32_t key;
			memcpy(&key, src + 4 * (size_t)x, 4);
			if (have_prev && key == prev_key) continue;
			int k = colour_index(cs, key);
			if (k < 0) return false;
			memcpy(palette + 4 * (size_t)k, src + 4 * (size_t)x, 4); // its colour (again)
			prev_key = key;
			have_prev = true;
		}
	}
	return true;
}

/* The index of a colour the set holds (found by scan_colours). */
static inline uint8_t colour_find(const colour_set *cs, uint32_t key)
{
	uint32_t h = colour_slot(cs, key);
	return cs->index[h] >= 0 ? (uint8_t)cs->index[h] : 0; // 0: not reached, every colour was scanned
}

/* Filter 0 rows of palette indices looked up from the source's RGBA rows:
 * no copy of the image as indices is kept (minigun's 1272 x 1114 skin:
 * 1.4 MB). Read-only on the colours, so parts may run at once. */
static void row_palette(png_rows *r, uint32_t y, uint8_t *dst)
{
	const uint8_t *src = r->rgba_row(r, y);
	const colour_set *cs = r->colours;
	uint32_t prev_key;
	memcpy(&prev_key, src, 4);
	uint8_t prev_index = colour_find(cs, prev_key);
	dst[0] = 0; // filter: none
	for (uint32_t x = 0; x < r->width; x++) {
		uint32_t key;
		memcpy(&key, src + 4 * (size_t)x, 4);
		if (key != prev_key) prev_key = key, prev_index = colour_find(cs, key);
		dst[1 + x] = prev_index;
	}
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

/* For a source whose probe found at most 256 colours: a palette PNG's work
 * when the whole image has at most 256 colours, its rows scanned in order
 * (no RGBA copy of a source decoded row by row) and looked up again as
 * each row is made (no copy as indices either). 1 when it has more
 * (nothing made), 0 made (*work), -1 failed. */
static int palette_work_from_rows(png_rows *r, uint32_t height, gsioi_png_work **work, gsio_error *err)
{
	colour_set *cs = malloc(sizeof(*cs));
	if (!cs) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	uint8_t palette[256 * 4];
	if (!scan_colours(r, height, cs, palette)) {
		free(cs);
		return 1;
	}
	gsioi_png_work *w = new_work(err);
	if (!w) {
		free(cs);
		return -1;
	}
	w->l.width = r->width;
	w->l.height = height;
	palette_layout(&w->l, palette, cs->count);
	w->colours = cs;
	w->rows = *r;
	w->rows.row = row_palette;
	w->rows.row_bytes = r->width;
	w->rows.colours = cs;
	w->rows.band = w->rows.row_rgba = w->rows.prev = w->rows.cur = NULL;
	if (r->dds) w->dds = *r->dds;
	work_ready(w);
	*work = w;
	return 0;
}

/* The work of any source (an RGBA image, stored pixels, a DDS file), the
 * same bytes for the same pixels: a palette PNG when it has at most 256
 * colours, else RGB (every alpha 255: opaque skins, a quarter smaller) or
 * RGBA rows with the UP filter. r's row buffers (band, row_rgba) are for
 * the probe and the palette scan here; each part makes its own. */
static int begin_source(png_rows *r, uint32_t height, gsioi_png_work **work, gsio_error *err)
{
	if (probe_few_colours(r, (size_t)r->width * height)) {
		int rc = palette_work_from_rows(r, height, work, err);
		if (rc <= 0) return rc;
	}
	const bool opaque = r->is_opaque(r, height);
	gsioi_png_work *w = new_work(err);
	if (!w) return -1;
	w->l.width = r->width;
	w->l.height = height;
	w->l.colour_type = opaque ? 2 : 6;
	w->rows = *r;
	w->rows.row = opaque ? row_up_rgb : row_up_rgba;
	w->rows.row_bytes = (size_t)r->width * (opaque ? 3 : 4);
	w->rows.band = w->rows.row_rgba = w->rows.prev = w->rows.cur = NULL;
	if (r->dds) w->dds = *r->dds;
	work_ready(w);
	*work = w;
	return 0;
}

/* Every part made here, in order, then the file. */
static int encode_work(gsioi_png_work *w, uint8_t **png, size_t *png_size, gsio_error *err)
{
	for (size_t i = 0; i < w->parts; i++)
		if (gsioi_png_part(w, i, err)) {
			gsioi_png_work_free(w);
			return -1;
		}
	return gsioi_png_finish(w, png, png_size, err);
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

// -- PNG

static bool no_work(gsioi_png_work **work, const char *fn, gsio_error *err)
{
	if (!work) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "%s: no output", fn);
		return true;
	}
	*work = NULL;
	return false;
}

int gsioi_png_begin(const uint8_t *rgba, uint32_t width, uint32_t height, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin", err)) return -1;
	size_t raw_size;
	if (!rgba) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode: no pixels");
		return -1;
	}
	if (!size_ok(width, height, 4, &raw_size, err)) return -1;
	png_rows r = {.rgba_row = rgba_row_image, .pixel = pixel_image, .is_opaque = image_opaque,
	              .pixels = rgba, .width = width};
	return begin_source(&r, height, work, err);
}

int gsioi_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **png,
                    size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	gsioi_png_work *w;
	return gsioi_png_begin(rgba, width, height, &w, err) ? -1 : encode_work(w, png, png_size, err);
}

int gsioi_png_begin_indexed(const uint8_t *indices, uint32_t width, uint32_t height, const uint8_t *palette,
                           uint32_t palette_count, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin_indexed", err)) return -1;
	size_t raw_size;
	if (!indices || !palette || !palette_count || palette_count > 256) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsioi_png_encode_indexed: a palette of %u entries (1..256 needed)",
		          (unsigned)palette_count);
		return -1;
	}
	if (!size_ok(width, height, 1, &raw_size, err)) return -1;
	uint8_t highest = 0;
	const size_t texels = (size_t)width * height;
	for (size_t i = 0; i < texels; i++) highest = indices[i] > highest ? indices[i] : highest;
	if (highest >= palette_count) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsioi_png_encode_indexed: index %u with a palette of %u entries",
		          (unsigned)highest, (unsigned)palette_count);
		return -1;
	}
	gsioi_png_work *w = new_work(err);
	if (!w) return -1;
	w->l.width = width;
	w->l.height = height;
	palette_layout(&w->l, palette, (uint32_t)highest + 1);
	w->rows = (png_rows){.row = row_indices, .pixels = indices, .width = width, .row_bytes = width};
	work_ready(w);
	*work = w;
	return 0;
}

int gsioi_png_encode_indexed(const uint8_t *indices, uint32_t width, uint32_t height,
                            const uint8_t *palette, uint32_t palette_count, uint8_t **png,
                            size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode_indexed: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	gsioi_png_work *w;
	return gsioi_png_begin_indexed(indices, width, height, palette, palette_count, &w, err)
	           ? -1
	           : encode_work(w, png, png_size, err);
}

// -- PNG from DDS

static bool dds_opaque(const png_rows *r, uint32_t height)
{
	(void)height;
	return gsioi_dds_opaque(r->dds, r->dds_data);
}

int gsioi_png_begin_dds(const uint8_t *dds, size_t size, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin_dds", err)) return -1;
	if (!dds) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode_dds: no data");
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
	int rc = begin_source(&r, info.height, work, err);
	free(band);
	return rc;
}

int gsioi_png_encode_dds(const uint8_t *dds, size_t size, uint8_t **png, size_t *png_size,
                        gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode_dds: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	gsioi_png_work *w;
	return gsioi_png_begin_dds(dds, size, &w, err) ? -1 : encode_work(w, png, png_size, err);
}

// -- Kept files

gsioi_kept_kind gsioi_kept_file_kind(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h)
{
	static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
	uint32_t tw = 0, th = 0;
	gsioi_kept_kind kind = GSIOI_KEPT_OTHER;
	gsioi_bmp bmp;
	if (size >= 8 && !memcmp(data, png_sig, 8))
		kind = GSIOI_KEPT_PNG;
	else if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
		kind = GSIOI_KEPT_JPEG;
	else if (size >= 4 && !memcmp(data, "DDS ", 4))
		kind = GSIOI_KEPT_DDS;
	else if (gsioi_tga_plain(data, size, &tw, &th))
		kind = GSIOI_KEPT_TGA;
	else if (gsioi_bmp_parse(data, size, NULL, &bmp, NULL) == GSIOI_BMP_OK)
		kind = GSIOI_KEPT_BMP, tw = bmp.width, th = bmp.height;
	if (w) *w = tw;
	if (h) *h = th;
	return kind;
}

// -- PNG from an uncompressed TGA file

static bool tga_opaque(const png_rows *r, uint32_t height)
{
	return gsioi_tga_plain_opaque(r->pixels, r->width, height);
}

int gsioi_png_begin_tga(const uint8_t *tga, size_t size, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin_tga", err)) return -1;
	uint32_t w, h;
	if (!gsioi_tga_plain(tga, size, &w, &h)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsioi_png_begin_tga: not an uncompressed 24- or 32-bit TGA file, or cut short");
		return -1;
	}
	size_t raw_size;
	if (!size_ok(w, h, 4, &raw_size, err)) return -1;
	uint8_t *row = malloc((size_t)w * 4);
	if (!row) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	png_rows r = {.rgba_row = rgba_row_tga, .pixel = pixel_tga, .is_opaque = tga_opaque, .pixels = tga,
	              .width = w, .transient = true, .tga_height = h, .row_rgba = row};
	int rc = begin_source(&r, h, work, err);
	free(row);
	return rc;
}

// -- PNG from an uncompressed BMP file

static bool bmp_opaque(const png_rows *r, uint32_t height)
{
	(void)height; // the file's, the same
	return gsioi_bmp_opaque(r->pixels, &r->bmp);
}

int gsioi_png_begin_bmp(const uint8_t *bmp, size_t size, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin_bmp", err)) return -1;
	png_rows r = {.rgba_row = rgba_row_bmp, .pixel = pixel_bmp, .is_opaque = bmp_opaque, .pixels = bmp,
	              .transient = true};
	if (gsioi_bmp_parse(bmp, size, NULL, &r.bmp, NULL) != GSIOI_BMP_OK) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		          "gsioi_png_begin_bmp: not an uncompressed BMP gsio reads, or damaged");
		return -1;
	}
	gsioi_bmp_scan_alpha(bmp, &r.bmp);
	r.width = r.bmp.width;
	size_t raw_size;
	if (!size_ok(r.bmp.width, r.bmp.height, 4, &raw_size, err)) return -1;
	if (!(r.row_rgba = malloc((size_t)r.width * 4))) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
		return -1;
	}
	int rc = begin_source(&r, r.bmp.height, work, err);
	free(r.row_rgba);
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


int gsioi_png_begin_stored(gsio_pixel_format fmt, const uint8_t *src, uint32_t width, uint32_t height,
                          const uint8_t *palette, gsioi_png_work **work, gsio_error *err)
{
	if (no_work(work, "gsioi_png_begin_stored", err)) return -1;
	size_t raw_size;
	if (!src || !gsio_pixel_size(fmt)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode_stored: %s",
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
	int rc = begin_source(&r, height, work, err);
	free(row);
	return rc;
}

int gsioi_png_encode_stored(gsio_pixel_format fmt, const uint8_t *src, uint32_t width,
                           uint32_t height, const uint8_t *palette, uint8_t **png,
                           size_t *png_size, gsio_error *err)
{
	if (!png || !png_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_png_encode_stored: no output");
		return -1;
	}
	*png = NULL;
	*png_size = 0;
	gsioi_png_work *w;
	return gsioi_png_begin_stored(fmt, src, width, height, palette, &w, err) ? -1
	                                                                        : encode_work(w, png, png_size, err);
}
