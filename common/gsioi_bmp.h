/* Uncompressed BMP files (internal): the other form of a GameStudio
 * model's external skin (docs/FORMATS.md §10.3), read here a row at a time
 * for the same reason as a TGA (gsioi_tga.h): stb_image reads every BMP
 * too, but through three image-sized copies. Taken here: a Windows BMP
 * with a BITMAPINFOHEADER or its V4/V5 successors (40, 108 or 124 bytes),
 * no compression (BI_RGB), 24 or 32 bits a pixel, or 1, 4 or 8 through a
 * palette, bottom up or top down. Everything else (OS/2 and V3 headers,
 * RLE4/RLE8, BI_BITFIELDS, 16 bits a pixel) is stb_image's, as is a
 * 24- or 32-bit file whose pixels do not follow its headers directly
 * (stb_image refuses it). The pixels are the ones stb_image 2.27 gives
 * (tests/test_bmp.c compares the two), including its rule that a 32-bit
 * file whose alpha bytes are all 0 is opaque; an index past a short
 * palette, which stb_image reads from an entry it never set, is opaque
 * black here. With GSIO_OPT_NO_PIXELS such a file is kept undecoded and
 * the glTF writer's PNG encoder reads its rows (gsioi_png_begin_bmp). */
#ifndef GSIOI_BMP_H
#define GSIOI_BMP_H

#include "gsioi_internal.h"

/** BITMAPFILEHEADER: "BM", file size, two reserved words, pixel offset. */
#define GSIOI_BMP_FILE_HEADER_SIZE 14

/** A BMP file these functions take, as gsioi_bmp_parse() reads it. */
typedef struct gsioi_bmp {
	uint32_t width, height;   /**< pixels, 1 to GSIO_IMAGE_FILE_MAX_DIM */
	uint32_t bpp;             /**< 1, 4, 8 (palette), 24 or 32 */
	bool top_down;            /**< the stored height was negative */
	bool alpha_zero;          /**< 32-bit: every alpha byte 0 (then read as 255);
	                               set by gsioi_bmp_scan_alpha(), false before */
	size_t offset;            /**< the first stored row's byte */
	size_t stride;            /**< bytes a stored row, padded to 4 */
	uint32_t colours;         /**< palette entries in the file (bpp <= 8) */
	uint8_t palette[256][4];  /**< RGBA; entries past `colours` opaque black */
} gsioi_bmp;

typedef enum gsioi_bmp_status {
	GSIOI_BMP_OTHER, /**< not a layout read here: stb_image's */
	GSIOI_BMP_OK,    /**< *info filled, every pixel inside the file */
	GSIOI_BMP_BAD,   /**< a layout read here but damaged: err set */
} gsioi_bmp_status;

/** Reads data's headers into *info. A file of a layout read here is
 *  refused (GSIOI_BMP_BAD, err set, `file` naming it) when its width or
 *  height is 0 (GSIO_ERR_CORRUPT) or over GSIO_IMAGE_FILE_MAX_DIM
 *  (GSIO_ERR_LIMIT), its palette is not 1 to 256 entries
 *  (GSIO_ERR_CORRUPT), or its pixels run past the file's end
 *  (GSIO_ERR_TRUNCATED; the last row's padding may be missing). err may
 *  be NULL. */
gsioi_bmp_status gsioi_bmp_parse(const uint8_t *data, size_t size, const char *file, gsioi_bmp *info,
                                 gsio_error *err);

/** Sets info->alpha_zero (32-bit files: whether every alpha byte is 0;
 *  stops at the first that is not). */
void gsioi_bmp_scan_alpha(const uint8_t *data, gsioi_bmp *info);

/** Row y (0: the top) as info->width RGBA8 pixels into rgba; info has been
 *  through gsioi_bmp_scan_alpha() when it is 32-bit. */
void gsioi_bmp_row(const uint8_t *data, const gsioi_bmp *info, uint32_t y, uint8_t *rgba);

/** Pixel i (row-major from the top) as RGBA8; as gsioi_bmp_row(). */
void gsioi_bmp_pixel(const uint8_t *data, const gsioi_bmp *info, size_t i, uint8_t out[4]);

/** The whole image into rgba (width * height * 4 bytes, top row first),
 *  the alpha scan included. */
void gsioi_bmp_decode(const uint8_t *data, gsioi_bmp *info, uint8_t *rgba);

/** Whether every pixel's alpha is 255 (always, below 32 bits a pixel, and
 *  when every alpha byte is 0); info scanned as for gsioi_bmp_row(). */
bool gsioi_bmp_opaque(const uint8_t *data, const gsioi_bmp *info);

#endif
