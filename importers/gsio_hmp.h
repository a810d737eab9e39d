/* gsio HMP codec: GameStudio terrain (HMP4, HMP5 of A5; HMP7 of A6/A7), exactly as stored.
 *
 * gsio_hmp_decode() and gsio_hmp_encode() are exact inverses: encoding a
 * decoded file gives back the same bytes. gsio_hmp_to_scene() builds the
 * neutral scene: one indexed grid mesh (shared vertices, two
 * counter-clockwise triangles per cell seen from +z), outward normals, UVs
 * that lay the colour map over the whole terrain, the detail map on the
 * material, one morph frame per stored frame, and scene->terrain with the raw
 * grid so an HMP5 can be written back.
 *
 * HMP7 is the HMP5 layout with MDL7-style skins and height records that
 * carry the normal as two signed bytes instead of a table index (hmp.c). */
#ifndef GSIO_HMP_H
#define GSIO_HMP_H

#include "gsio.h"
#include "gsio_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The 84-byte header, field by field, unused ones included so that encoding
 *  gives back the same bytes. Names follow the seed's `hmp_header`; the
 *  comments say what the matching MDL header field is, since the HMP header
 *  is the MDL header with the model-only fields unused. */
typedef struct gsio_hmp_header {
	char version[4];      /**< "HMP4", "HMP5" or "HMP7" */
	int32_t nu1;          /**< unused (MDL `final`); 2 in shadow-5.hmp */
	float scale[3];       /**< only scale[2] is used: height = scale[2] * z + offset[2] */
	float offset[3];      /**< x, y of the grid's column 0 / last row, and the height offset */
	int32_t nu6;          /**< unused (MDL `radius`); raw bits, shadow-5.hmp holds float 3861.0 */
	float ftrisize_x;     /**< distance between columns, in quants */
	float ftrisize_y;     /**< distance between rows, in quants */
	float fnumverts_x;    /**< vertices per row, as a float; columns = (int)fnumverts_x */
	int32_t numskins;     /**< textures after the header */
	int32_t nu8;          /**< HMP5/7: unused, 0. HMP4: width of every skin (see hmp.c) */
	int32_t nu9;          /**< HMP5/7: unused, 0. HMP4: height of every skin */
	int32_t numverts;     /**< columns * rows */
	int32_t nu10;         /**< unused (MDL `numtris`) */
	int32_t numframes;    /**< height frames; terrain normally has 1 */
	int32_t nu11;         /**< unused (MDL `numskinverts`) */
	int32_t flags;        /**< always 0 per the seed; kept as stored */
	int32_t nu12;         /**< unused (MDL `numbones`) */
} gsio_hmp_header;

#define GSIO_HMP_HEADER_SIZE 84
/** Bytes of a frame before its height records: type, bbox min/max, name. */
#define GSIO_HMP_FRAME_HEADER_SIZE 36
/** The only frame type: word-packed, like MDL's type 2. */
#define GSIO_HMP_FRAME_WORD 2

/** One height record (4 bytes). */
typedef struct gsio_hmp_height {
	uint16_t z;           /**< packed height: scale[2] * z + offset[2] */
	uint8_t normal;       /**< HMP4/5: index into gsio_anorms (negate for the outward
	                           normal). HMP7: the int8 x of the normal, see nx() in hmp.c */
	uint8_t pad;          /**< HMP4/5: unused, kept as stored. HMP7: the int8 y of the normal */
} gsio_hmp_height;

/** One frame of heights. */
typedef struct gsio_hmp_frame {
	int32_t type;                /**< GSIO_HMP_FRAME_WORD */
	gsio_mdl_vertex bbox_min;    /**< 8-byte word-packed MDL vertices, kept as stored */
	gsio_mdl_vertex bbox_max;
	char name[16];               /**< raw bytes: NUL-terminated name, then whatever followed */
	gsio_hmp_height *heights;    /**< header.numverts records, row-major, row 0 = +y edge */
	/** The same records as the file stores them (4 bytes each: u16 z little
	 *  endian, normal, pad), inside the decoded file's bytes; set by the
	 *  decoder (the importer reads these in place and leaves heights NULL),
	 *  NULL in a file built for encoding. */
	const uint8_t *records;
} gsio_hmp_frame;

/** Skin type 7 (HMP7 only): a reference to an external texture file, whose
 *  NUL-terminated name is the skin's `pixels` (pixels_size counts the NUL). */
#define GSIO_HMP_SKIN_EXTERNAL 7

/** A whole HMP file. Skins use the MDL skin record: type code (MDL type
 *  codes, | 8 for three mips; 6 an embedded DDS; HMP7 also 7, an external
 *  file name), width, height, pixels as stored (mips included). */
typedef struct gsio_hmp_file {
	gsio_arena *arena;          /**< owns everything below */
	int version;                /**< 4, 5 or 7 */
	gsio_hmp_header header;
	uint32_t columns;           /**< (int)fnumverts_x, checked >= 2 */
	uint32_t rows;              /**< numverts / columns, checked >= 2 and exact */
	gsio_mdl_skin *skins;       size_t skins_count; /**< [0] colour map, [1] detail map if sized differently */
	gsio_hmp_frame *frames;     size_t frames_count;
	const uint8_t *trailing;    /**< bytes after the last frame, kept verbatim */
	size_t trailing_size;
} gsio_hmp_file;

/** Default repeats of the detail map over the terrain, per grid cell: the file
 *  stores none (the A5 engine takes it from the entity), so the scene uses one
 *  repeat per cell along x: material.detail_tiling = (columns - 1) * this. */
#define GSIO_HMP_DETAIL_REPEATS_PER_CELL 1.0f

/** Decodes an HMP4/HMP5/HMP7 file. Other HMP variants (and HMP7 skins with
 *  MDL7 material data) fail with GSIO_ERR_UNSUPPORTED, anything else with
 *  GSIO_ERR_BAD_MAGIC. `name` is used in errors; may be NULL. */
GSIO_API gsio_hmp_file *gsio_hmp_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);

/** Frees a decoded file. NULL is fine. */
GSIO_API void gsio_hmp_file_free(gsio_hmp_file *file);

/** Encodes a file into malloc'd bytes (free() them). Counts in the header are
 *  written as they are in `header`; they must match the arrays. */
GSIO_API GSIO_NODISCARD int gsio_hmp_encode(const gsio_hmp_file *file, uint8_t **out, size_t *out_size,
                                            gsio_error *err);

/** Builds the neutral scene from a decoded file. */
GSIO_API gsio_scene *gsio_hmp_to_scene(const gsio_hmp_file *file, const char *name,
                                       const gsio_opts *opts, gsio_error *err);

/** The importer descriptor (registered in gsio_importers()). */
GSIO_API extern const gsio_importer gsio_hmp_importer;

#ifdef __cplusplus
}
#endif
#endif
