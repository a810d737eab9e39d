/* gsio MDL7 codec: GameStudio A6-A8 models, exactly as stored.
 *
 * gsio_mdl7_decode() and gsio_mdl7_encode() are exact inverses: encoding a
 * decoded file gives back the same bytes (unused bytes, groupdata_size, the
 * deformers and the ent/med lumps are all kept). gsio_mdl7_to_scene() builds
 * the neutral scene: one mesh per group, global materials, a joint tree with
 * one skin, morph frames and skeletal animation. The layout is in
 * docs/FORMATS.md §5; what the codec checks beyond it is at the top of
 * mdl7.c. */
#ifndef GSIO_MDL7_H
#define GSIO_MDL7_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The 48-byte header, field by field. The structure sizes are honoured:
 *  bone 16/36/48, triangle 12/16/26, vertices 16/26; the others must have
 *  the one size ever seen (skin 28, colour 16, material 68, skin point 8,
 *  bone matrix 68, frame 24), else the file is refused as unsupported. */
typedef struct gsio_mdl7_header {
	char magic[4];              /**< "MDL7" */
	int32_t version;            /**< 0 in every file seen */
	uint32_t bones_num;
	uint32_t groups_num;
	uint32_t data_size;         /**< offset of the ent lump (the groups end there) */
	int32_t entlump_size;
	int32_t medlump_size;
	uint16_t bone_stc_size;
	uint16_t skin_stc_size;
	uint16_t colorvalue_stc_size;
	uint16_t material_stc_size;
	uint16_t skinpoint_stc_size;
	uint16_t triangle_stc_size;
	uint16_t mainvertex_stc_size;
	uint16_t framevertex_stc_size;
	uint16_t bonetrans_stc_size;
	uint16_t frame_stc_size;
} gsio_mdl7_header;

#define GSIO_MDL7_HEADER_SIZE 48

/** A bone: its parent and its position relative to the parent's. */
typedef struct gsio_mdl7_bone {
	uint16_t parent;            /**< 0xFFFF: a root */
	uint8_t unused[2];
	float pos[3];
	char name[32];              /**< bone_stc_size - 16 raw bytes (0, 20 or 32), maybe unterminated */
} gsio_mdl7_bone;

/** Skin type bits beyond the pixel format (type & 7, gsio_pixel_format;
 *  6 = an embedded DDS file, 7 = an external file name). */
#define GSIO_MDL7_SKIN_DDS 6
#define GSIO_MDL7_SKIN_EXTERNAL 7
#define GSIO_MDL7_SKIN_MIPS 0x08     /**< three smaller levels follow the image */
#define GSIO_MDL7_SKIN_MATERIAL 0x10 /**< a 68-byte material record follows */
#define GSIO_MDL7_SKIN_EFFECT 0x20   /**< i32 length + ASCII effect text follow */

/** The 68-byte material record (opacity is ambient[3]). */
typedef struct gsio_mdl7_material {
	float diffuse[4], ambient[4], specular[4], emissive[4];
	float power;
} gsio_mdl7_material;

/** One skin. */
typedef struct gsio_mdl7_skin {
	uint8_t type;
	uint8_t unused[3];
	int32_t width, height;      /**< DDS and external: width = payload bytes, height 1 */
	char name[16];              /**< raw bytes, maybe unterminated */
	const uint8_t *data;        /**< pixels (mips included), the DDS file, or the file name */
	size_t data_size;
	gsio_mdl7_material material; /**< when type & GSIO_MDL7_SKIN_MATERIAL */
	const uint8_t *effect;      /**< when type & GSIO_MDL7_SKIN_EFFECT */
	int32_t effect_size;
} gsio_mdl7_skin;

/** A triangle: position and UV indices (0xFFFF = none) and materials
 *  (-1 = none) of both skin sets; fields a record's size lacks stay 0xFFFF/-1. */
typedef struct gsio_mdl7_triangle {
	uint16_t v[3];
	uint16_t uv[3];
	int32_t material;
	uint16_t uv2[3];
	int32_t material2;
} gsio_mdl7_triangle;

/** A vertex (main or frame). In a frame, `bone` is the index of the main
 *  vertex it replaces. Normal: the table index (16-byte records, plus one
 *  unused byte) or the float normal (26-byte records); both point inward. */
typedef struct gsio_mdl7_vertex {
	float pos[3];
	uint16_t bone;
	uint8_t normal_index, unused;
	float normal[3];
} gsio_mdl7_vertex;

/** A bone matrix of a frame: row-vector form (v' = v M), translation in m[12..14]. */
typedef struct gsio_mdl7_bone_matrix {
	float m[16];
	uint16_t bone;
	uint8_t unused[2];
} gsio_mdl7_bone_matrix;

typedef struct gsio_mdl7_frame {
	char name[16];              /**< raw bytes */
	gsio_mdl7_vertex *verts;    size_t verts_count;
	gsio_mdl7_bone_matrix *matrices; size_t matrices_count;
} gsio_mdl7_frame;

/** A weight of a deformer element. */
typedef struct gsio_mdl7_weight {
	int32_t vertex;
	float weight;
} gsio_mdl7_weight;

typedef struct gsio_mdl7_deformer_element {
	int32_t index;              /**< the bone */
	char name[20];
	gsio_mdl7_weight *weights;  size_t weights_count;
} gsio_mdl7_deformer_element;

/** A deformer (type 0 = bones). Bytes of its declared size that its
 *  elements do not use are kept in `rest`. */
typedef struct gsio_mdl7_deformer {
	int8_t version, type;
	uint8_t unused[2];
	int32_t group_index;
	int32_t data_size;          /**< as stored: the 16-byte header included */
	gsio_mdl7_deformer_element *elements; size_t elements_count;
	const uint8_t *rest;        size_t rest_size;
} gsio_mdl7_deformer;

typedef struct gsio_mdl7_group {
	uint8_t type;               /**< 1 = triangle mesh */
	int8_t deformers_num;
	int8_t max_weights;
	uint8_t unused;
	int32_t groupdata_size;     /**< as stored; unreliable, never used */
	char name[16];
	gsio_mdl7_skin *skins;      size_t skins_count;
	float *uvs;                 size_t uvs_count;    /**< u, v pairs, top-left origin */
	gsio_mdl7_triangle *triangles; size_t triangles_count;
	gsio_mdl7_vertex *verts;    size_t verts_count;
	gsio_mdl7_frame *frames;    size_t frames_count;
	gsio_mdl7_deformer *deformers; size_t deformers_count;
} gsio_mdl7_group;

typedef struct gsio_mdl7_file {
	gsio_arena *arena;          /**< owns everything below */
	gsio_mdl7_header header;
	gsio_mdl7_bone *bones;      size_t bones_count;
	gsio_mdl7_group *groups;    size_t groups_count;
	const uint8_t *entlump;     size_t entlump_size;
	const uint8_t *medlump;     size_t medlump_size;
	const uint8_t *trailing;    size_t trailing_size; /**< after the lumps, kept verbatim */
} gsio_mdl7_file;

/** Decodes an MDL7 file. `name` is used in errors; may be NULL. */
GSIO_API gsio_mdl7_file *gsio_mdl7_decode(const uint8_t *data, size_t size, const char *name,
                                          const gsio_opts *opts, gsio_error *err);

/** Frees a decoded file. NULL is fine. */
GSIO_API void gsio_mdl7_file_free(gsio_mdl7_file *file);

/** Encodes a file into malloc'd bytes (free() them). Counts and sizes are
 *  written from `header` and the arrays; they must agree. */
GSIO_API GSIO_NODISCARD int gsio_mdl7_encode(const gsio_mdl7_file *file, uint8_t **out,
                                             size_t *out_size, gsio_error *err);

/** Builds the neutral scene. `name` is the file's path: external textures
 *  are looked for beside it, then in opts->search_paths (through opts->io;
 *  docs/DESIGN.md, "Files a file names"). */
GSIO_API gsio_scene *gsio_mdl7_to_scene(const gsio_mdl7_file *file, const char *name,
                                        const gsio_opts *opts, gsio_error *err);

/** Decodes and builds the scene of an MDL7 file in memory (the MDL importer
 *  calls it for "MDL7" files). */
GSIO_API gsio_scene *gsio_mdl7_read(const uint8_t *data, size_t size, const char *path,
                                    const gsio_opts *opts, gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
