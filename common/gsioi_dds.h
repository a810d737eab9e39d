/* gsio DDS decoding (internal): GameStudio skin type 6 is a whole DDS file
 * embedded in the model or terrain; this turns its top mip level into RGBA8.
 *
 * How GameStudio stores it (docs/FORMATS.md §10.1, §5.4; checked on
 * every type-6 skin of the corpus):
 * - MDL7 skin record: u8 type = 6, u8[3] 0, i32 width = the DDS file's byte
 *   size, i32 height = 1, char name[16], then `width` bytes that are a
 *   complete DDS file: "DDS " magic, the 124-byte DDS_HEADER, the blocks.
 *   HMP7 uses the same payload after its 12-byte skin header (u32 type,
 *   width = byte size, height = 1); no HMP7 in the corpus has one (libgamestudio's
 *   terrain.hmp with a 699 168-byte DDS skin is not in it).
 * - The corpus has five type-6 skins, all in lottershock MDL7 files, all
 *   DXT1 without mip levels (flags 0x81007 = CAPS|HEIGHT|WIDTH|PIXELFORMAT|
 *   LINEARSIZE, mip count 0, caps 0x1000 = TEXTURE), linear size = the
 *   blocks' size, skin width = 128 + that size exactly:
 *     ArtSource/weapons/MotherFlame/flamemother.mdl  1024 x 1024 (524 416 bytes)
 *     Game/Assets/flamemother.mdl                    1024 x 1024 (the same skin)
 *     Game/Assets/trident_of_lightning.mdl           1024 x 1024 (followed by a
 *                                                    type-7 skin)
 *     Game/Assets/KisteA.mdl                          511 x  511 (131 200 bytes)
 *     Game/Assets/whiskas.mdl                         870 x  870 (380 320 bytes)
 *   The last two are not multiples of 4: their edge blocks are partial.
 *   DXT3, DXT5, mip levels and uncompressed DDS are not in the corpus; DXT3
 *   and DXT5 are decoded too (MED offers them), uncompressed DDS is refused
 *   as unsupported.
 *
 * Decoding follows the S3TC rules: RGB565 end points widened by bit
 * replication; DXT1 with c0 > c1 gives 4 colours, c0 <= c1 gives 3 colours
 * and transparent black; DXT3 and DXT5 always use 4 colours; DXT3 alpha is
 * 4 bits widened by *17; DXT5 alpha is 8 interpolated levels when a0 > a1,
 * else 6 and the constants 0 and 255. Intermediate values are rounded down
 * ((2a + b) / 3), as libsquish does. */
#ifndef GSIOI_DDS_H
#define GSIOI_DDS_H

#include "gsioi_image_file.h"

/** Bytes before the first block: "DDS " and the 124-byte header. */
#define GSIOI_DDS_HEADER_SIZE 128
/** Width or height above this is refused (GSIO_ERR_LIMIT), as for image files. */
#define GSIOI_DDS_MAX_DIM GSIO_IMAGE_FILE_MAX_DIM

/** Block-compressed variants (bytes per 4x4 block: 8, 16, 16). */
typedef enum gsioi_dds_format {
	GSIOI_DDS_DXT1 = 1,
	GSIOI_DDS_DXT3 = 3,
	GSIOI_DDS_DXT5 = 5
} gsioi_dds_format;

/** What the header says, once checked against the data. */
typedef struct gsioi_dds_info {
	uint32_t width, height;  /**< pixels of the top level, 1..GSIOI_DDS_MAX_DIM */
	gsioi_dds_format format;
	uint32_t mip_count;      /**< levels the header announces, the top one included
	                              (1 when it announces none); not checked against
	                              the data, only the top level is decoded */
	size_t top_size;         /**< bytes of the top level's blocks, present after
	                              the header */
} gsioi_dds_info;

/** Parses and checks the header of the DDS file data[0..size): magic, sizes,
 *  pixel format, dimensions, and that the top level's blocks are all there.
 *  `file` names the containing file in errors, `base` is the offset of
 *  data[0] in it (0 for a stand-alone .dds), so error offsets point into the
 *  model. False with err set: GSIO_ERR_TRUNCATED (header or blocks cut
 *  short; offset = where the data ends), GSIO_ERR_CORRUPT (no "DDS " magic,
 *  a header size that is not 124/32, zero width or height),
 *  GSIO_ERR_UNSUPPORTED (a FourCC other than DXT1/3/5, named; uncompressed,
 *  cube map or volume textures), GSIO_ERR_LIMIT (width or height above
 *  GSIOI_DDS_MAX_DIM). */
GSIO_NODISCARD bool gsioi_dds_parse(const uint8_t *data, size_t size, const char *file,
                                   int64_t base, gsioi_dds_info *info, gsio_error *err);

/** Decodes the top level of a DDS file into RGBA8, top row first, straight
 *  alpha, allocated in arena (its memory limit applies: GSIO_ERR_LIMIT or
 *  NOMEM). Fills out->width, height and rgba and leaves the other fields
 *  alone; info (may be NULL) receives the header. Errors as gsioi_dds_parse;
 *  nothing is allocated before the blocks are known to be present. */
GSIO_NODISCARD bool gsioi_dds_decode(const uint8_t *data, size_t size, const char *file,
                                    int64_t base, gsio_arena *arena, gsio_image *out,
                                    gsioi_dds_info *info, gsio_error *err);

/** Decodes one 4x4 block (8 bytes for DXT1, 16 for DXT3/5) into 16 RGBA8
 *  pixels, row by row. */
void gsioi_dds_decode_block(gsioi_dds_format format, const uint8_t *block, uint8_t rgba[64]);
/** The same without SSSE3 (the loop every processor runs): for tests, which
 *  check that both give the same pixels. */
void gsioi_dds_decode_block_portable(gsioi_dds_format format, const uint8_t *block,
                                     uint8_t rgba[64]);

/** Decodes the band of rows by..by+3 (fewer at the bottom edge; by a
 *  multiple of 4) of a DDS file checked by gsioi_dds_parse into rgba: its
 *  rows, width * 4 bytes each. */
void gsioi_dds_decode_band(const gsioi_dds_info *info, const uint8_t *data, uint32_t by,
                           uint8_t *rgba);

/** True when every pixel of the top level (inside the image: edge blocks
 *  are cut) decodes with alpha 255; DXT1 blocks in four-colour mode are
 *  passed over without decoding. */
bool gsioi_dds_opaque(const gsioi_dds_info *info, const uint8_t *data);


/** A type-6 skin (an embedded DDS file, its bytes px[0..n)) as scene image
 *  `im` named "skin<index>": decoded to RGBA8 in the scene's arena, with
 *  source_type 6 and source_mip_count from the header; with no_pixels
 *  (GSIO_OPT_NO_PIXELS) only its header is checked, and the file is kept
 *  in file_data (a copy in the arena) with rgba NULL. A DDS that does not
 *  decode (cut short, unknown FourCC, ...) is a scene warning naming the
 *  skin and *decoded stays false: the rest of the model still loads. Only
 *  running out of memory (or the memory limit) returns false. */
GSIO_NODISCARD bool gsioi_dds_skin_image(gsio_scene *s, const uint8_t *px, size_t n,
                                        size_t index, gsio_image *im, bool no_pixels,
                                        bool *decoded, gsio_error *err);

#endif
