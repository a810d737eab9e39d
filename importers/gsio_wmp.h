/* gsio WMP codec: GameStudio level sources (WED maps), exactly as stored, in
 * the three dialects (docs/FORMATS.md §7.1-7.7):
 *
 *  A  old text "WMP2 / ACKWED 4.xx" (A4 manual): blocks are sets of planes,
 *     each given by three points; turned into vertex + face lists on decode
 *     (the Quake brush algorithm), the planes kept as stored.
 *  B  text "ACKWED 6.7xx", `version 710`: vertex lists and polygon faces.
 *  C  binary "WMPB" (WED 8, "wmpio 1.30"): chunks with the content of B in
 *     f64.
 *
 * One element model serves all three: flat lists of blocks and entities
 * (level, lights, starts, models/sprites, sounds, paths, regions) and an
 * object tree whose nodes carry (position, angles, scale) and refer to
 * elements and to child objects. gsio_wmp_encode() writes dialect B or C:
 * encoding a decoded corpus level gives back the same bytes (text numbers
 * are re-printed the way WED prints them; binary strings keep their raw
 * bytes, unknown chunks are kept and written back at the end of their
 * parent). gsio_wmp_to_scene() builds the level scene (wmp_scene.c).
 *
 * WAD files (WAD7 of GameStudio, also Quake WAD2 / Half-Life WAD3 by magic)
 * have their own small codec here too: gsio_wad_decode(). */
#ifndef GSIO_WMP_H
#define GSIO_WMP_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

// -- Strings and raw chunks

/** A string as stored: `s` up to the first NUL; binary files keep the whole
 *  chunk payload in raw (NUL and whatever follows) when it is not exactly
 *  s + NUL, so encoding gives back the same bytes. */
typedef struct gsio_wmp_string {
	const char *s;        /**< NULL when absent */
	const uint8_t *raw;   /**< NULL: s followed by one NUL */
	size_t raw_size;
} gsio_wmp_string;

/** A binary chunk gsio does not interpret, kept to be written back. */
typedef struct gsio_wmp_chunk {
	uint8_t id, type;
	const uint8_t *data;  /**< payload (after the 8-byte chunk header) */
	size_t size;
} gsio_wmp_chunk;

// -- Elements

typedef enum gsio_wmp_dialect {
	GSIO_WMP_TEXT_A = 1, /**< A4 text, planes */
	GSIO_WMP_TEXT_B = 2, /**< WED 6/7 text, version 710 */
	GSIO_WMP_BINARY = 3  /**< WED 8 "WMPB" */
} gsio_wmp_dialect;

/** What an object refers to. */
typedef enum gsio_wmp_kind {
	GSIO_WMP_OBJECT = 0, /**< a child object (group) */
	GSIO_WMP_LEVEL,
	GSIO_WMP_BLOCK,
	GSIO_WMP_START,
	GSIO_WMP_LIGHT,
	GSIO_WMP_ENTITY,     /**< model, sprite, terrain, map entity */
	GSIO_WMP_SOUND,
	GSIO_WMP_PATH,
	GSIO_WMP_REGION,
	GSIO_WMP_KIND_COUNT
} gsio_wmp_kind;

/** The block flag of texture lock: faces project in block-local space. */
#define GSIO_WMP_BLOCK_LOCKED 0x00010000u

/** A face's texture record ("surface"): in text files one per face, in
 *  binary files zero or more per block, each naming its face. */
typedef struct gsio_wmp_surface {
	uint32_t face;         /**< index into the block's faces */
	uint32_t flags;        /**< surface flags (bit 0 non-shaded, 1 flat, 2 sky, 3 water, ...) */
	uint8_t flag_digits;   /**< text: digits the flags were printed with */
	double ambient, albedo;
	gsio_wmp_string texture;
	double u[4], v[4];     /**< WED texture vectors (the unrotated Quake base axes) */
	double offset[2];      /**< texels */
	double angle;          /**< degrees */
	double scale[2];       /**< quants per texel (0.5: 2 texels per quant) */
	gsio_wmp_string material; /**< text: "ndef" when none; binary: not stored */
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_surface;

/** One polygon: vertex indices, clockwise seen from outside. */
typedef struct gsio_wmp_face {
	uint32_t *indices;
	size_t indices_count;
} gsio_wmp_face;

/** A dialect-A plane as stored: three points, texture parameters. */
typedef struct gsio_wmp_plane {
	double p[3][3];
	int32_t face;          /**< the face it produced, -1 when it clipped away */
} gsio_wmp_plane;

typedef struct gsio_wmp_block {
	uint32_t index;        /**< text: trailer index; binary: block_index */
	uint32_t flags;        /**< GSIO_WMP_BLOCK_LOCKED, ... */
	uint8_t flag_digits;   /**< text: digits of the flags */
	gsio_wmp_string function; /**< text: block function ("ndef") */
	gsio_wmp_string material; /**< binary: optional material string (id 8) */
	double *vertices;      /**< xyz per vertex, block-local */
	size_t vertices_count;
	gsio_wmp_face *faces; size_t faces_count;
	gsio_wmp_surface *surfaces; size_t surfaces_count;
	gsio_wmp_plane *planes; size_t planes_count; /**< dialect A only */
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_block;

/** Level properties. Colours: text percent, binary 0..255 (index byte kept). */
typedef struct gsio_wmp_level {
	gsio_wmp_string wmb_temp;  /**< text: interim WAD/WMB name */
	gsio_wmp_string palette;   /**< palette file */
	gsio_wmp_string script;
	double nexus, azimuth, elevation; /**< degrees; azimuth counter-clockwise from east */
	double fog[4][3], sun[3], ambient[3];
	uint8_t fog_index[4], sun_index, ambient_index; /**< binary: first byte of each colour */
	size_t colors_count;       /**< text: RGB triplets stored (6; 2 in the A4 example) */
	uint32_t head[2];          /**< binary: the payload's first two u32 (0) */
	uint32_t unknown4;         /**< binary: the id4,type3 value */
	bool has_unknown4;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_level;

typedef struct gsio_wmp_light {
	uint32_t head;             /**< binary constant 2 */
	uint32_t flags;
	double color[3];           /**< text percent, binary 0..255 */
	double range;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_light;

typedef struct gsio_wmp_start {
	uint32_t head[2];          /**< binary: 1, 0 */
	gsio_wmp_string name;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_start;

/** A model, sprite (or terrain/map) entity. */
typedef struct gsio_wmp_entity {
	uint32_t head;             /**< binary constant 3 */
	uint32_t flags;            /**< entity flags (bit 8 invisible, 9 passable, ...) */
	uint32_t type;             /**< 0x200 model, 0x100 sprite */
	double ambient, albedo;
	gsio_wmp_string name, file, action, material, string15;
	double *skills; size_t skills_count; /**< 8 or 20 */
	bool has_skills;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_entity;

typedef struct gsio_wmp_sound {
	uint32_t head[6];          /**< binary: 4, 0, volume, 0, 1, range */
	gsio_wmp_string file;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_sound;

typedef struct gsio_wmp_edge {
	uint32_t from, to;         /**< 0-based node indices */
	double values[4];          /**< first 1.0; the rest unknown (kept) */
} gsio_wmp_edge;

typedef struct gsio_wmp_path {
	uint32_t head[2];
	gsio_wmp_string name;
	double *nodes; size_t nodes_count;  /**< xyz each, relative to the path's object */
	uint32_t skills_per_node;           /**< 6 */
	double *skills;                     /**< nodes_count * skills_per_node */
	bool has_skills;
	gsio_wmp_edge *edges; size_t edges_count;
	bool has_edges;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_path;

typedef struct gsio_wmp_region {
	uint32_t head[2];
	double bounds[6];          /**< min xyz, max xyz in world coordinates */
	gsio_wmp_string name;
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_region;

/** A reference from an object to an element or a child object. */
typedef struct gsio_wmp_ref {
	gsio_wmp_kind kind;
	uint32_t index;            /**< into the list of that kind (objects for OBJECT) */
} gsio_wmp_ref;

/** An object-tree node. */
typedef struct gsio_wmp_object {
	uint8_t node_kind, node_subkind; /**< binary: node kind (0x35 ...) and subkind */
	uint32_t node_reserved;          /**< binary: the node's u32 after the child count */
	gsio_wmp_string class_name;      /**< binary: "level", "object", "block", "model", ... */
	gsio_wmp_string name;            /**< binary name; text: the `// comment` after `{` */
	double position[3];
	double angles[3];                /**< radians, R = Rz(a) Rx(b) Ry(c) */
	double scale[3];
	gsio_wmp_ref *refs; size_t refs_count; /**< elements first in binary, as listed in text */
	bool has_position, has_angles, has_scale; /**< binary: chunk present */
	gsio_wmp_chunk *unknown; size_t unknown_count;
} gsio_wmp_object;

typedef struct gsio_wmp_wad {
	gsio_wmp_string path;      /**< as stored (often an absolute Windows path) */
	int32_t flag;              /**< text: the number after the path (1) */
} gsio_wmp_wad;

/** A whole WMP file. */
typedef struct gsio_wmp_file {
	gsio_arena *arena;
	gsio_wmp_dialect dialect;
	const char *comments;      /**< text: the header comment lines, verbatim */
	uint32_t version;          /**< 710 (B, C); 0 for A */
	uint32_t head_unknown[2];  /**< binary header: the u32 after version (2) and the last (0) */
	uint32_t counts[3];        /**< objects, blocks, entities as stored (entities count the level) */
	gsio_wmp_string created;   /**< binary: "file created: ..., wmpio (1.30)\n" */
	uint8_t palette[768];
	bool has_palette;
	int32_t wad_head[5];       /**< text: the numbers before the WAD paths */
	bool has_wad_section;
	gsio_wmp_wad *wads; size_t wads_count;
	gsio_wmp_chunk *wed_extra; size_t wed_extra_count; /**< binary: other wed strings ("MeshTex") */
	const char *wed_text;      /**< text A: the wed section verbatim (bookmarks, views) */
	gsio_wmp_level *levels; size_t levels_count;
	gsio_wmp_block *blocks; size_t blocks_count;
	gsio_wmp_start *starts; size_t starts_count;
	gsio_wmp_light *lights; size_t lights_count;
	gsio_wmp_entity *entities; size_t entities_count;
	gsio_wmp_sound *sounds; size_t sounds_count;
	gsio_wmp_path *paths; size_t paths_count;
	gsio_wmp_region *regions; size_t regions_count;
	gsio_wmp_object *objects; size_t objects_count; /**< [0] is the root */
	gsio_wmp_chunk *unknown; size_t unknown_count; /**< binary top-level chunks not understood */
} gsio_wmp_file;

/** Most objects one level may hold (each costs a node in the scene). */
#define GSIO_WMP_MAX_OBJECTS 1000000u
/** Deepest object nesting accepted. */
#define GSIO_WMP_MAX_DEPTH 256u

/** Decodes a WMP of any dialect (detected by content). The result owns a
 *  copy of everything it needs. `name` is used in errors; may be NULL. */
GSIO_API gsio_wmp_file *gsio_wmp_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);
GSIO_API void gsio_wmp_file_free(gsio_wmp_file *file);

/** Encodes as dialect B (text) or C (binary) into malloc'd bytes (free()).
 *  Dialect A files are written as B (planes become vertex lists). */
GSIO_API GSIO_NODISCARD int gsio_wmp_encode(const gsio_wmp_file *file, gsio_wmp_dialect dialect,
                                            uint8_t **out, size_t *out_size, gsio_error *err);

/** Builds the level scene. `path` names the level: referenced WADs,
 *  models and sprites are searched beside it and in opts->search_paths
 *  (docs/DESIGN.md, "Files a file names"). */
GSIO_API gsio_scene *gsio_wmp_to_scene(const gsio_wmp_file *file, const char *path,
                                       const gsio_opts *opts, gsio_error *err);

GSIO_API extern const gsio_importer gsio_wmp_importer;

// -- WAD

/** One texture (or palette) lump. */
typedef struct gsio_wad_lump {
	char name[17];             /**< NUL-terminated (16 stored bytes) */
	uint8_t type;              /**< WAD7: GameStudio type code (0x40 palette); WAD2/3: lump type */
	uint8_t compression;
	uint32_t width, height;    /**< 0 for a palette or an unknown lump; a DDS
	                                lump's (WAD7 type 6): its DDS header's */
	uint32_t pixel_type;       /**< WAD7: type code from the lump header */
	const uint8_t *data;       /**< the lump's bytes */
	size_t size;
	uint32_t stored_width, stored_height; /**< as the lump header stores them */
} gsio_wad_lump;

typedef struct gsio_wad_file {
	gsio_arena *arena;
	char magic[5];             /**< "WAD7", "WAD2", "WAD3" */
	gsio_wad_lump *lumps; size_t lumps_count;
	const uint8_t *palette;    /**< 768 bytes from a palette lump, NULL if none */
} gsio_wad_file;

/** Decodes a WAD's directory. The lumps point into a copy of the bytes in
 *  the file's arena, or with GSIO_OPT_BORROW into `data` itself, which must
 *  then outlive the file. */
GSIO_API gsio_wad_file *gsio_wad_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);
GSIO_API void gsio_wad_file_free(gsio_wad_file *file);
/** Decodes lump i to RGBA8 (malloc'd, width*height*4; free()). 8-bit lumps go
 *  through `palette` (NULL: the WAD's, else the built-in one). */
GSIO_API GSIO_NODISCARD int gsio_wad_decode_lump(const gsio_wad_file *wad, size_t i,
                                                 const uint8_t *palette, uint8_t **rgba,
                                                 gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
