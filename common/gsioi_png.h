/* PNG encoding for gsio's writers (png.c): RGBA8, palette, stored skin
 * pixels and DXT-compressed DDS skins to PNG, whole or in bands that
 * threads deflate at once, or compressed harder for the compact output.
 * Internal: not installed, not exported from the shared library. */
#ifndef GSIOI_PNG_H
#define GSIOI_PNG_H

#include "gsio.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A PNG file (png[0..n)) as glTF takes it: without its colour-space
 *  chunks (iCCP, cHRM, gAMA, sRGB) and without a pHYs of non-square
 *  pixels, every other byte as it is (png_chunks.c says why). 1 with *out a
 *  malloc'd copy (free()) of *out_size bytes; 0 with *out NULL when nothing
 *  is to be dropped or the chunks cannot be walked (the file is used as it
 *  is); -1 when out of memory. */
GSIO_NODISCARD int gsioi_png_drop_chunks(const uint8_t *png, size_t n, uint8_t **out,
                                         size_t *out_size);

/** Encodes RGBA8 pixels (top row first) as PNG into malloc'd memory (free()):
 *  a palette PNG when the image has at most 256 distinct colours (found by
 *  a scan that stops at the 257th, so photographic images pay little for
 *  it), else RGB8 when every alpha is 255, else RGBA8. Decoded, every
 *  form gives back the same RGBA8 pixels. Returns 0, or non-zero with err
 *  set. */
GSIO_NODISCARD int gsioi_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height,
                                            uint8_t **png, size_t *png_size, gsio_error *err);

/** Encodes a palettised image as a palette PNG (colour type 3, 8 bits) into
 *  malloc'd memory (free()): indices are width*height bytes, top row first,
 *  each < palette_count; palette is palette_count (1..256) RGBA8 entries.
 *  Only the entries up to the highest index used are written; a tRNS chunk
 *  only when one of them is not opaque. Returns 0, or non-zero with err
 *  set (an index out of the palette included). */
GSIO_NODISCARD int gsioi_png_encode_indexed(const uint8_t *indices, uint32_t width,
                                                    uint32_t height, const uint8_t *palette,
                                                    uint32_t palette_count, uint8_t **png,
                                                    size_t *png_size, gsio_error *err);

/** Encodes the top level of a DDS file (DXT1, DXT3 or DXT5; data[0..size)
 *  from the "DDS " magic on) as PNG into malloc'd memory (free()): the PNG
 *  gsioi_png_encode would write from the decoded pixels, byte for byte, but
 *  decoded a band of 4 rows at a time, so without the whole RGBA image in
 *  memory (except when a probe finds at most 256 colours: the image may
 *  then be a palette PNG, and is decoded whole to decide). Returns 0, or
 *  non-zero with err set (the DDS header's errors: GSIO_ERR_TRUNCATED,
 *  CORRUPT, UNSUPPORTED, LIMIT). */
GSIO_NODISCARD int gsioi_png_encode_dds(const uint8_t *dds, size_t size, uint8_t **png,
                                                size_t *png_size, gsio_error *err);

/** Encodes width*height pixels stored as `fmt` (src: width*height*
 *  gsio_pixel_size(fmt) bytes, top row first; palette as for
 *  gsio_decode_pixels) as PNG into malloc'd memory (free()): the PNG
 *  gsioi_png_encode writes from the decoded pixels, byte for byte, decoded a
 *  row at a time instead of into a whole RGBA image (except when a probe
 *  finds at most 256 colours, as gsioi_png_encode_dds). Returns 0, or
 *  non-zero with err set. */
GSIO_NODISCARD int gsioi_png_encode_stored(gsio_pixel_format fmt, const uint8_t *src,
                                                   uint32_t width, uint32_t height,
                                                   const uint8_t *palette, uint8_t **png,
                                                   size_t *png_size, gsio_error *err);

/** A PNG made in parts, so that one image can be encoded on several
 *  threads: gsioi_png_begin*() decides what the PNG is (the probes and scans
 *  the gsioi_png_encode*() functions make) and splits its rows into
 *  gsioi_png_parts() bands; gsioi_png_part() deflates one band (the bands may
 *  be made in any order, each once, at the same time on different threads);
 *  gsioi_png_finish() makes the bands not made yet, joins them into the file
 *  (malloc'd, free()) and frees the work, whether it succeeds or not. An
 *  image of fewer than 128 K pixels has one band; a larger one up to four,
 *  their deflate streams joined at sync flushes: the count depends on the
 *  image's size only, so the bytes are the same however the bands are made,
 *  and they are the bytes of gsioi_png_encode*(), which are these calls in a
 *  row. The source (pixels, indices, palette, DDS file) is read until
 *  gsioi_png_finish() returns: keep it. Each begin returns 0 (*work set) or
 *  non-zero with err set, as the encoder of the same name. */
typedef struct gsioi_png_work gsioi_png_work;
GSIO_NODISCARD int gsioi_png_begin(const uint8_t *rgba, uint32_t width, uint32_t height,
                                           gsioi_png_work **work, gsio_error *err);
GSIO_NODISCARD int gsioi_png_begin_indexed(const uint8_t *indices, uint32_t width, uint32_t height,
                                                   const uint8_t *palette, uint32_t palette_count,
                                                   gsioi_png_work **work, gsio_error *err);
GSIO_NODISCARD int gsioi_png_begin_dds(const uint8_t *dds, size_t size, gsioi_png_work **work,
                                               gsio_error *err);
/** An uncompressed true-colour TGA file (gsioi_tga_plain), its rows
 *  decoded as the bands are made: the PNG of its decoded pixels. */
GSIO_NODISCARD int gsioi_png_begin_tga(const uint8_t *tga, size_t size, gsioi_png_work **work,
                                       gsio_error *err);
/** An uncompressed BMP file (gsioi_bmp_parse), as gsioi_png_begin_tga. */
GSIO_NODISCARD int gsioi_png_begin_bmp(const uint8_t *bmp, size_t size, gsioi_png_work **work,
                                       gsio_error *err);
GSIO_NODISCARD int gsioi_png_begin_stored(gsio_pixel_format fmt, const uint8_t *src, uint32_t width,
                                                  uint32_t height, const uint8_t *palette,
                                                  gsioi_png_work **work, gsio_error *err);
/** The work's bands (1..4). */
size_t gsioi_png_parts(const gsioi_png_work *work);
/** Deflates band i (< gsioi_png_parts()). Returns 0, or non-zero with err
 *  set: a band that fails makes gsioi_png_finish() fail with its error too;
 *  a band asked for again is refused, the one made first kept. */
GSIO_NODISCARD int gsioi_png_part(gsioi_png_work *work, size_t i, gsio_error *err);
GSIO_NODISCARD int gsioi_png_finish(gsioi_png_work *work, uint8_t **png, size_t *png_size,
                                            gsio_error *err);
/** Plans a begun work (no band made yet) for the compact output: the same
 *  PNG but for its image data, compressed harder, by igzip's level 3 in
 *  bands for photographic rows and by libdeflate in one stream (one band)
 *  for the others (png.c says why). After it, gsioi_png_parts() and the
 *  rest as for any work, and the bytes are as deterministic. */
void gsioi_png_plan_compact(gsioi_png_work *work);
/** The coder a begun work compresses its rows with, for gsio_bench (which
 *  times one such compression by itself): GSIOI_PNG_IGZIP (in bands) or
 *  GSIOI_PNG_LIBDEFLATE (one stream), with *level its level. */
enum { GSIOI_PNG_IGZIP = 1, GSIOI_PNG_LIBDEFLATE = 2 };
int gsioi_png_coder(const gsioi_png_work *work, int *level);
/** Frees a work without finishing it (NULL: nothing). */
void gsioi_png_work_free(gsioi_png_work *work);

/** The size of the block each deflated band of a PNG takes for igzip's
 *  state (malloc'd, not cleared: see deflate_band), for the test that
 *  encodes in such a block left dirty. */
size_t gsioi_png_state_size(void);

/** The files an image keeps undecoded (gsio_image.file_data). */
typedef enum gsioi_kept_kind {
	GSIOI_KEPT_OTHER = 0,
	GSIOI_KEPT_PNG,
	GSIOI_KEPT_JPEG,
	GSIOI_KEPT_DDS,
	GSIOI_KEPT_TGA, /**< uncompressed true colour (gsioi_tga_plain) */
	GSIOI_KEPT_BMP  /**< uncompressed, of a layout gsio reads (gsioi_bmp_parse) */
} gsioi_kept_kind;

/** What a kept file is, by its signature and header, for the writers that
 *  store or convert it (the glTF writer, the Assimp adapter); for a TGA or
 *  a BMP, *w and *h its size (else 0; either may be NULL). */
gsioi_kept_kind gsioi_kept_file_kind(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h);

#ifdef __cplusplus
}
#endif
#endif
