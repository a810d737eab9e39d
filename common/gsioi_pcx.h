/* PCX images (internal): the ZSoft format GameStudio level models name as
 * external textures (lottershock's corridor and room models use
 * room_atlas_01.pcx) and that palettes come in. stb_image does not read PCX,
 * and the libraries that do bring SDL or the unmaintained FreeImage; the
 * format is a 128-byte header and a byte-run encoding, so gsio reads it
 * itself (fuzzed by tests/fuzz/fuzz_pcx.c, tested in tests/test_pcx.c). */
#ifndef GSIOI_PCX_H
#define GSIOI_PCX_H

#include "gsioi_internal.h"

/** Size of the fixed header; a 256-colour palette is the file's last 769
 *  bytes: the marker 0x0C, then 256 RGB triples. */
#define GSIOI_PCX_HEADER_SIZE 128
#define GSIOI_PCX_PALETTE_SIZE 769
/** Images wider or taller than this are refused (GSIO_ERR_LIMIT). */
#define GSIOI_PCX_MAX_DIM 16384

typedef struct gsioi_pcx_info {
	uint32_t width, height;
	uint8_t bits;             /**< bits per pixel per plane: 1, 4 or 8 */
	uint8_t planes;           /**< 1, 3 (RGB) or 4 (RGBA, or 1-bit EGA) */
	uint16_t bytes_per_line;  /**< per plane, >= what width needs */
	bool rle;                 /**< encoding 1; 0 = stored bytes */
	bool vga_palette;         /**< 8-bit, 1 plane: the palette at the end */
} gsioi_pcx_info;

/** True when data looks like a PCX file (manufacturer byte 0x0A, a known
 *  version and encoding, a whole header): a cheap test to pick a decoder. */
bool gsioi_pcx_is(const uint8_t *data, size_t size);

/** Reads and checks the header: dimensions (xmax >= xmin, at most
 *  GSIOI_PCX_MAX_DIM: GSIO_ERR_LIMIT), a supported layout (8-bit with 1, 3
 *  or 4 planes; 1- and 4-bit 16-colour images; others GSIO_ERR_UNSUPPORTED),
 *  bytes per line enough for the width, an 8-bit palettised image's
 *  palette present (GSIO_ERR_CORRUPT otherwise), and a file long enough to
 *  hold the pixels even at the encoding's best ratio (GSIO_ERR_TRUNCATED):
 *  a 200-byte file cannot claim a gigabyte of pixels. */
GSIO_NODISCARD bool gsioi_pcx_parse(const uint8_t *data, size_t size, const char *file,
                                   gsioi_pcx_info *info, gsio_error *err);

/** Decodes a PCX file into RGBA8, top row first (alpha 255 unless the file
 *  has a fourth plane), allocated in arena (its memory limit applies).
 *  Fills out->width, height and rgba, for an 8-bit palettised file also
 *  indices, palette and palette_count (the indexed form, gsio_image), and
 *  leaves the other fields alone.
 *  Errors as gsioi_pcx_parse, and GSIO_ERR_TRUNCATED when the encoded data
 *  ends before the last row; nothing is allocated before the header passed. */
GSIO_NODISCARD bool gsioi_pcx_decode(const uint8_t *data, size_t size, const char *file,
                                    gsio_arena *arena, gsio_image *out, gsio_error *err);

#endif
