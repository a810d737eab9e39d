/* Uncompressed true-colour TGA files (internal): the usual form of a
 * GameStudio model's external skin (docs/FORMATS.md §10.3), decoded here
 * a row at a time. stb_image reads every TGA too, but makes three
 * image-sized copies on the way (the rows as stored, the rows turned to
 * RGBA, and the caller's copy into the arena): for a 2048 x 2048 skin they
 * were most of a conversion's time. With GSIO_OPT_NO_PIXELS such a file is
 * not decoded at all: the glTF writer's PNG encoder reads its rows from the
 * file (gsioi_png_begin_tga), band by band on its threads. The pixels are
 * the ones stb_image 2.27 gives (tests/test_tga.c compares the two).
 * Run-length encoded true-colour files (both of the corpus's TGAs) are
 * decoded here too, in one pass into the image, though not row by row: a
 * row's first pixel may sit inside a packet begun on the row before. */
#ifndef GSIOI_TGA_H
#define GSIOI_TGA_H

#include "gsioi_internal.h"

/** Size of the fixed TGA header. */
#define GSIOI_TGA_HEADER_SIZE 18

/** True when data is a TGA these functions take: no colour map, image type
 *  2 (true colour, not run-length encoded), 24 or 32 bits a pixel, a width
 *  and height of at least 1 (set in *w and *h) and every pixel's bytes in
 *  the file after the header and the image ID. Anything else (run-length
 *  encoded, colour-mapped, grey, 16-bit, truncated) is stb_image's. */
bool gsioi_tga_plain(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h);

/** True when data is a run-length encoded true-colour TGA (image type 10,
 *  no colour map, 24 or 32 bits a pixel, width and height at least 1, set
 *  in *w and *h) whose packets cover every pixel inside the file. A
 *  packet is a byte (bit 7: a run; the low 7 bits: pixels - 1) and then one
 *  pixel (a run) or that many; packets may run on across rows. */
bool gsioi_tga_rle(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h);

/** Decodes a file gsioi_tga_rle() takes into rgba (w * h * 4 bytes, top
 *  row first), as gsioi_tga_plain_decode() does a plain one. */
void gsioi_tga_rle_decode(const uint8_t *data, uint32_t w, uint32_t h, uint8_t *rgba);

/** Row y (0: the top) of a file gsioi_tga_plain() takes, as w RGBA8
 *  pixels into rgba: BGR(A) turned to RGB(A), alpha 255 when the file has
 *  24 bits a pixel; the file's rows run bottom up unless the descriptor's
 *  bit 5 (origin at the top) is set. */
void gsioi_tga_plain_row(const uint8_t *data, uint32_t w, uint32_t h, uint32_t y, uint8_t *rgba);

/** w pixels of B, G, R (bgra false: 3 bytes each, alpha 255) or B, G, R,
 *  A (4 bytes) at s as RGBA8 at d: the pixels of a TGA and of a 24- or
 *  32-bit BMP (gsioi_bmp.h). */
void gsioi_bgr_to_rgba(const uint8_t *s, uint8_t *d, uint32_t w, bool bgra);

/** The whole image into rgba (w * h * 4 bytes, top row first). */
void gsioi_tga_plain_decode(const uint8_t *data, uint32_t w, uint32_t h, uint8_t *rgba);

/** Pixel i (row-major from the top) as RGBA8. */
void gsioi_tga_plain_pixel(const uint8_t *data, uint32_t w, uint32_t h, size_t i, uint8_t out[4]);

/** Whether every pixel's alpha is 255 (always, at 24 bits a pixel). */
bool gsioi_tga_plain_opaque(const uint8_t *data, uint32_t w, uint32_t h);

#endif
