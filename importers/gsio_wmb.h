/* gsio WMB codec: GameStudio compiled levels (the map compiler's output),
 * WMB6 (A6) and WMB7 (A7/A8), exactly as stored (docs/FORMATS.md §12).
 *
 * A WMB is a directory of lists (offset, length) followed by the lists in
 * any order. gsio_wmb_decode() reads every list into structures that mirror
 * it: the palette, the embedded textures (a WAD7 lump each), the texture
 * projections ("materials"), WMB7's blocks (vertices, triangles, skins),
 * WMB6's polygon geometry (vertices, edges, surface edges, faces), the
 * lightmap pages, the objects (info, positions, lights, entities old and
 * new, sounds, paths, regions) and the terrain lightmaps; the BSP lists
 * (planes, nodes, leafs, leaf lists, visibility, clip hulls, the world
 * record) and the palette's tail are kept as bytes. Every count and offset
 * is checked against its list.
 *
 * gsio_wmb_encode() writes the file back: every decoded field from its
 * structure, at the offsets the file had, and the bytes no list accounts
 * for (padding between lists, stale records after the last list, unused
 * bytes inside a record) from the gaps the decode kept. A decoded file
 * encodes to the bytes it came from.
 *
 * gsio_wmb_to_scene() builds the same level scene as a WMP (wmb_scene.c
 * through the WMP level code). */
#ifndef GSIO_WMB_H
#define GSIO_WMB_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The lists of the directory, by index (docs/FORMATS.md §12.2). */
enum {
	GSIO_WMB_PALETTES = 0,
	GSIO_WMB_PLANES = 1,
	GSIO_WMB_TEXTURES = 2,
	GSIO_WMB_VERTICES = 3,   /**< WMB6 */
	GSIO_WMB_PVS = 4,
	GSIO_WMB_NODES = 5,
	GSIO_WMB_TEXINFO = 6,    /**< the manual's "materials" */
	GSIO_WMB_FACES = 7,      /**< WMB6 */
	GSIO_WMB_LEGACY4 = 8,
	GSIO_WMB_HULLS = 9,
	GSIO_WMB_LEAFS = 10,
	GSIO_WMB_LEAF_LISTS = 11,
	GSIO_WMB_EDGES = 12,     /**< WMB6 */
	GSIO_WMB_SURFEDGES = 13, /**< WMB6 */
	GSIO_WMB_WORLD = 14,
	GSIO_WMB_OBJECTS = 15,
	GSIO_WMB_LIGHTMAPS = 16,
	GSIO_WMB_BLOCKS = 17,    /**< WMB7 */
	GSIO_WMB_LEGACY8 = 18,
	GSIO_WMB_TERRAIN_LIGHTMAPS = 19,
	GSIO_WMB_LISTS = 20
};

typedef struct gsio_wmb_list {
	uint32_t offset, length; /**< bytes from the file's start; 0, 0 when absent */
} gsio_wmb_list;

/** An embedded texture: a WAD7 lump, 40-byte header and pixels. */
typedef struct gsio_wmb_texture {
	uint8_t name_raw[16];    /**< as stored */
	char name[17];           /**< up to the first NUL */
	uint32_t width, height;  /**< texels (a DDS texture: width = the DDS data's bytes) */
	uint32_t type;           /**< type code: bits 0-2 format, bit 3 three mips follow */
	uint32_t mip_offsets[3]; /**< mip levels 1-3, from the record's start; 0 when none */
	uint32_t format;         /**< the format the pixels have: type & 7, except the
	                              old WMB6 codes (type above 0x0F), whose bytes per
	                              texel decide (2: 565) */
	const uint8_t *record;   /**< the whole record (header included) */
	size_t record_size;
} gsio_wmb_texture;

/** A texture projection (list 6, 64 bytes). */
typedef struct gsio_wmb_texinfo {
	float s[4], t[4];        /**< u = (p . s.xyz + s.w) / width; v likewise with t */
	uint32_t texture;        /**< index into the textures */
	uint16_t flags;          /**< surface flags (0x49 water, ...) */
	uint8_t user_flags[4];   /**< bytes 38-41 (unaligned u32) */
	uint8_t ambient, albedo;
	uint8_t material[20];    /**< as stored ("\0def" in every sample) */
} gsio_wmb_texinfo;

typedef struct gsio_wmb_vertex {
	float pos[3];            /**< world quants, Z up */
	float uv[2];             /**< texture coordinates in texture sizes */
	float lm[2];             /**< lightmap page coordinates, 0..1 */
} gsio_wmb_vertex;

typedef struct gsio_wmb_triangle {
	uint16_t v[3];           /**< clockwise seen from the visible side */
	uint16_t skin;           /**< into the block's skins */
	uint32_t face;           /**< the level-wide polygon number */
} gsio_wmb_triangle;

typedef struct gsio_wmb_skin {
	uint16_t texture;        /**< index into the textures */
	uint16_t lightmap;       /**< lightmap page; 0 the unlit dummy */
	uint32_t material;
	float ambient, albedo;
	uint32_t flags;
} gsio_wmb_skin;

/** A WMB7 block: a render mesh built by the compiler. */
typedef struct gsio_wmb_block {
	float bbox[6];           /**< min xyz, max xyz */
	int32_t content;         /**< -128 solid, -126 water */
	gsio_wmb_vertex *vertices; uint32_t vertices_count;
	gsio_wmb_triangle *triangles; uint32_t triangles_count;
	gsio_wmb_skin *skins; uint32_t skins_count;
} gsio_wmb_block;

/** A WMB6 polygon (list 7, 24 bytes). */
typedef struct gsio_wmb_face {
	uint16_t unused;
	uint16_t side;           /**< 1: the plane's normal points away from the front */
	uint32_t first_surfedge;
	uint16_t edges_count;    /**< = vertices of the polygon */
	uint16_t texinfo;
	uint8_t styles[4];
	int32_t lightmap;        /**< -1 none */
	uint32_t plane;
} gsio_wmb_face;

/** Object types (list 15). */
typedef enum gsio_wmb_object_type {
	GSIO_WMB_POSITION = 1,
	GSIO_WMB_LIGHT = 2,
	GSIO_WMB_OLD_ENTITY = 3,
	GSIO_WMB_SOUND = 4,
	GSIO_WMB_INFO = 5,
	GSIO_WMB_PATH = 6,
	GSIO_WMB_ENTITY = 7,
	GSIO_WMB_REGION = 8
} gsio_wmb_object_type;

typedef struct gsio_wmb_info {
	float origin[3];
	float azimuth, elevation; /**< the sun's, degrees */
	uint32_t flags;          /**< bit 2: built as a simple (non-BSP) map */
	float version;           /**< the compiler's, 6.355, 7.35, ... */
	uint8_t gamma, lmap_size, unused[2]; /**< lightmap pages (256 << lmap_size)^2 */
	uint32_t colors[8];      /**< WMB7: sun, ambient, fog 1-4 as 0x00RRGGBB (6
	                              words); WMB6: 8 words, meaning open */
	uint32_t colors_count;   /**< 6 (WMB7) or 8 (WMB6) */
} gsio_wmb_info;

typedef struct gsio_wmb_path_edge {
	float node1, node2;      /**< 1-based node numbers, as floats */
	float length, bezier, weight, skill;
} gsio_wmb_path_edge;

/** An object record; `type` says which fields hold it. Strings are kept as
 *  stored (raw) and as C strings up to the first NUL. */
typedef struct gsio_wmb_object {
	uint32_t type;
	uint32_t offset;         /**< from the objects list's start */
	uint32_t size;           /**< bytes to the next record (or the list's end) */
	float origin[3];
	float angles[3];         /**< pan, tilt, roll, degrees: R = Rz(pan) Ry(-tilt) Rx(roll) */
	float scale[3];
	char name[34], file[34], action[34]; /**< decoded (old entities: file
	                                          overflow joined, docs/FORMATS.md §12.8) */
	uint8_t raw_name[33], raw_file[33], raw_action[33]; /**< as stored */
	float skills[20]; uint32_t skills_count; /**< 8 (old entity), 20 (entity) */
	uint32_t flags;
	float ambient, albedo;
	uint32_t path, entity2;  /**< entity: 1-based, 0 none */
	uint8_t material[33], string1[33], string2[33], unused_string[33];
	uint32_t unused[3];      /**< position, region: 2 words; path: 3 */
	uint8_t pad[3];          /**< old entity: after the action; entity: 1; sound: 3 */
	gsio_wmb_info info;      /**< INFO */
	float color[3];          /**< LIGHT: percent */
	float range;             /**< LIGHT, SOUND (u32 as stored) */
	uint32_t sound_range;
	float volume, sound_unused[2];
	float bounds[6];         /**< REGION: min, max */
	float path_nodes_count;  /**< PATH: a float as stored */
	uint32_t path_field;     /**< PATH: 3 * nodes + 2 * edges as stored */
	float *path_nodes;       /**< PATH: xyz per node, world */
	float *path_skills;      /**< PATH: 6 per node */
	uint32_t path_nodes_n;
	gsio_wmb_path_edge *path_edges; uint32_t path_edges_count;
} gsio_wmb_object;

/** A terrain's lightmap (list 19). */
typedef struct gsio_wmb_terrain_lightmap {
	uint32_t object, width, height;
	const uint8_t *texels;   /**< 3 * width * height bytes, B,G,R */
} gsio_wmb_terrain_lightmap;

/** Bytes of the file no decoded field accounts for, kept for the encode. */
typedef struct gsio_wmb_gap {
	uint32_t offset, size;
	const uint8_t *bytes;
} gsio_wmb_gap;

typedef struct gsio_wmb_file {
	gsio_arena *arena;
	uint32_t version;        /**< 6 or 7 (4, 5 read as 6) */
	char magic[5];
	size_t size;             /**< the file's bytes */
	uint32_t lists_count;    /**< directory entries: 20, 19 or 17 */
	gsio_wmb_list lists[GSIO_WMB_LISTS]; /**< entries past lists_count are 0 */
	/** List i's bytes (NULL when absent), for those kept as bytes. */
	const uint8_t *list_bytes[GSIO_WMB_LISTS];
	// list 0
	uint32_t palette_head[4];
	uint8_t palette[768];    /**< R,G,B */
	bool has_palette;
	const uint8_t *palette_tail; size_t palette_tail_size; /**< WMB6 tables */
	// list 2
	gsio_wmb_texture *textures; uint32_t textures_count;
	uint32_t *texture_offsets; /**< as stored, from the list's start */
	// list 6
	gsio_wmb_texinfo *texinfos; uint32_t texinfos_count;
	// list 17 (WMB7)
	gsio_wmb_block *blocks; uint32_t blocks_count;
	// lists 3, 7, 12, 13 (WMB6)
	float *vertices; uint32_t vertices_count;      /**< xyz each */
	gsio_wmb_face *faces; uint32_t faces_count;
	uint32_t *edges; uint32_t edges_count;         /**< v0, v1 each; entry 0 unused */
	int32_t *surfedges; uint32_t surfedges_count;
	// list 16
	uint32_t lightmap_side;  /**< 256 << info.lmap_size */
	uint32_t lightmaps_count;
	const uint8_t *lightmaps; /**< pages of side^2 texels, B,G,R */
	// list 15
	gsio_wmb_object *objects; uint32_t objects_count;
	const gsio_wmb_info *info; /**< the first INFO object, NULL when none */
	// list 19
	gsio_wmb_terrain_lightmap *terrain_lightmaps; uint32_t terrain_lightmaps_count;
	bool terrain_lightmaps_bogus; /**< the list did not hold its count: kept as bytes */
	gsio_wmb_gap *gaps; size_t gaps_count;
} gsio_wmb_file;

/** Most objects one level may hold. */
#define GSIO_WMB_MAX_OBJECTS 1000000u

/** Decodes a WMB6 or WMB7 (and WMB4/5 as WMB6). The result owns a copy of
 *  the bytes (or with GSIO_OPT_BORROW points into `data`, which must then
 *  outlive it). `name` is used in errors; may be NULL. */
GSIO_API gsio_wmb_file *gsio_wmb_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);
GSIO_API void gsio_wmb_file_free(gsio_wmb_file *file);

/** Encodes a decoded file back into malloc'd bytes (free()): the bytes it
 *  was decoded from, with any field changed since written as it is. */
GSIO_API GSIO_NODISCARD int gsio_wmb_encode(const gsio_wmb_file *file, uint8_t **out,
                                            size_t *out_size, gsio_error *err);

/** Builds the level scene (as gsio_wmp_to_scene does for a WMP): the
 *  geometry as meshes with their embedded textures, the entities placed
 *  with the models found beside `path` and in opts->search_paths. */
GSIO_API gsio_scene *gsio_wmb_to_scene(const gsio_wmb_file *file, const char *path,
                                       const gsio_opts *opts, gsio_error *err);

GSIO_API extern const gsio_importer gsio_wmb_importer;

#ifdef __cplusplus
}
#endif
#endif
