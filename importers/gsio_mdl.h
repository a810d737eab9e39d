/* gsio MDL codec: GameStudio A3-A5 models (MDL2, MDL3, MDL4, MDL5), exactly as stored.
 *
 * gsio_mdl_decode() and gsio_mdl_encode() are exact inverses: encoding a
 * decoded file gives back the same bytes. gsio_mdl_to_scene() builds the
 * neutral scene (welded vertices, outward normals, counter-clockwise
 * triangles, one image per skin, one morph frame per frame, clips). */
#ifndef GSIO_MDL_H
#define GSIO_MDL_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The 84-byte header, field by field. */
typedef struct gsio_mdl_header {
	char version[4];      /**< "MDL2", "MDL3", "MDL4" or "MDL5" */
	int32_t final;        /**< unused by the engine, kept */
	float scale[3];       /**< position = scale * raw + offset */
	float offset[3];
	float radius;         /**< the seed's `pad`: bounding radius in real files */
	float eye[3];
	int32_t numskins;
	int32_t skinwidth;    /**< MDL3/4: every skin's width; 0 in real MDL5 files */
	int32_t skinheight;
	int32_t numverts;
	int32_t numtris;
	int32_t numframes;
	int32_t numskinverts; /**< MDL2: not a count (0 in mdl2-tree.mdl), kept as stored */
	int32_t flags;        /**< 0 = normal, 1 = terrain model */
	int32_t numbones;     /**< never used; bytes after the frames are kept raw */
} gsio_mdl_header;

#define GSIO_MDL_HEADER_SIZE 84

/** Skin type flag: three smaller mip levels follow the full image. */
#define GSIO_MDL_SKIN_MIPS 8
/** Skin type 6: an embedded DDS file, `width` holds its byte size. */
#define GSIO_MDL_SKIN_DDS 6

/** One skin, pixels as stored. */
typedef struct gsio_mdl_skin {
	int32_t type;          /**< pixel format code, | GSIO_MDL_SKIN_MIPS when mipmapped */
	int32_t width, height; /**< MDL5: stored per skin; MDL3/4: the header's */
	const uint8_t *pixels; /**< full image, then the mips, top row first */
	size_t pixels_size;    /**< bytes, mips included */
} gsio_mdl_skin;

/** A skin vertex, in texels from the top-left of the first skin. */
typedef struct gsio_mdl_uv {
	int16_t u, v;
} gsio_mdl_uv;

/** A triangle: 3D vertex indices and skin vertex indices, stored clockwise. */
typedef struct gsio_mdl_triangle {
	int16_t xyz[3];
	int16_t uv[3];
} gsio_mdl_triangle;

/** A packed vertex (byte-packed frames have bone 0 and 8-bit positions). */
typedef struct gsio_mdl_vertex {
	uint16_t pos[3];
	uint8_t normal;        /**< index into gsio_anorms */
	uint8_t bone;          /**< word-packed only */
} gsio_mdl_vertex;

/** An MDL2 skin vertex: one per 3D vertex, Quake's `stvert_t`. */
typedef struct gsio_mdl2_uv {
	int32_t onseam;        /**< nonzero: back faces use s + skinwidth / 2 */
	int32_t s, t;          /**< texels from the top-left of the skin */
} gsio_mdl2_uv;

/** An MDL2 triangle: Quake's `dtriangle_t`, vertex indices stored clockwise.
 *  The vertex index also picks the skin vertex. */
typedef struct gsio_mdl2_triangle {
	int32_t facesfront;    /**< 0: a back face (its seam vertices shift right) */
	int32_t xyz[3];
} gsio_mdl2_triangle;

/** Frame types. */
#define GSIO_MDL_FRAME_BYTE 0
#define GSIO_MDL_FRAME_WORD 2

/** One animation frame. */
typedef struct gsio_mdl_frame {
	int32_t type;               /**< GSIO_MDL_FRAME_BYTE or GSIO_MDL_FRAME_WORD */
	gsio_mdl_vertex bbox_min, bbox_max;
	char name[16];              /**< raw bytes: NUL-terminated name, then whatever followed */
	gsio_mdl_vertex *verts;     /**< numverts */
} gsio_mdl_frame;

/** A whole MDL file. */
typedef struct gsio_mdl_file {
	gsio_arena *arena;          /**< owns everything below */
	int version;                /**< 2, 3, 4 or 5 */
	gsio_mdl_header header;
	gsio_mdl_skin *skins;       size_t skins_count;
	gsio_mdl_uv *uvs;           size_t uvs_count;       /**< MDL3/4/5 (MDL2: 0) */
	gsio_mdl_triangle *triangles; size_t triangles_count; /**< MDL2: 0, see mdl2_triangles */
	gsio_mdl_frame *frames;     size_t frames_count;
	const uint8_t *trailing;    /**< bytes after the last frame (bones), kept verbatim */
	size_t trailing_size;
	/* MDL2 only (empty otherwise): numverts skin vertices and numtris
	 * triangles in Quake's records. Appended so that MDL3/4/5 code is untouched. */
	gsio_mdl2_uv *mdl2_uvs;     size_t mdl2_uvs_count;
	gsio_mdl2_triangle *mdl2_triangles; size_t mdl2_triangles_count;
} gsio_mdl_file;

/** Size in bytes of a skin's pixels (mips included) for a type and size;
 *  0 with err set for an unknown type or an overflowing size. */
GSIO_API size_t gsio_mdl_skin_size(int32_t type, int32_t width, int32_t height, gsio_error *err);

/** Decodes an MDL2/3/4/5 file. Other MDL variants (MDL7: gsio_mdl7_decode;
 *  IDPO) fail with GSIO_ERR_UNSUPPORTED. `name` is used in errors; may be NULL. */
GSIO_API gsio_mdl_file *gsio_mdl_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);

/** Frees a decoded file. NULL is fine. */
GSIO_API void gsio_mdl_file_free(gsio_mdl_file *file);

/** Encodes a file into malloc'd bytes (free() them). Counts in the header
 *  are written as they are in `header`; they must match the arrays. */
GSIO_API GSIO_NODISCARD int gsio_mdl_encode(const gsio_mdl_file *file, uint8_t **out, size_t *out_size,
                                            gsio_error *err);

/** Builds the neutral scene from a decoded file. */
GSIO_API gsio_scene *gsio_mdl_to_scene(const gsio_mdl_file *file, const char *name,
                                       const gsio_opts *opts, gsio_error *err);

/** The importer descriptor (registered in gsio_importers()). */
GSIO_API extern const gsio_importer gsio_mdl_importer;

#ifdef __cplusplus
}
#endif
#endif
