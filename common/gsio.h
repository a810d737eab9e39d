/* gsio: read and write 3D GameStudio (MDL3/4/5, HMP4/5/7) and id MD5 files.
 *
 * This is the core public header: errors, options, the arena, the neutral
 * scene that every importer produces and every writer consumes, pixel
 * formats, palettes, the normal table and the importer registry.
 *
 * Trust contract: every function that takes file bytes is safe for untrusted
 * input. It either returns a complete result or fails with a gsio_error that
 * names the file, the byte offset (binary) or line and column (text), and
 * what was wrong. It never reads out of bounds, never overflows a size, and
 * never allocates more than the memory limit in the options.
 *
 * Conventions used everywhere:
 * - Arrays are `T *xs; size_t xs_count;`.
 * - Entry points take `(input, const gsio_opts *opts, gsio_error *err)`;
 *   both pointers may be NULL, and a zeroed gsio_opts means "defaults".
 * - A scene owns all of its memory in one arena; gsio_scene_free() releases
 *   it with one call.
 */
#ifndef GSIO_H
#define GSIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSIO_VERSION_MAJOR 0
#define GSIO_VERSION_MINOR 1
#define GSIO_VERSION_PATCH 0
#define GSIO_VERSION_STRING "0.1.0"

#if defined(_WIN32)
// libgsio.dll exports what is marked GSIO_API and nothing else; a program
// calls those functions through the import library (no dllimport needed).
#if defined(GSIO_BUILDING_DLL)
#define GSIO_API __declspec(dllexport)
#else
#define GSIO_API
#endif
#if defined(__GNUC__) || defined(__clang__)
#define GSIO_NODISCARD __attribute__((warn_unused_result))
// libgsio's own formatting is C99's (mingw-w64's, with %zu), not msvcrt's.
#define GSIO_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define GSIO_NODISCARD
#define GSIO_PRINTF(f, a)
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define GSIO_NODISCARD __attribute__((warn_unused_result))
#define GSIO_API __attribute__((visibility("default")))
#define GSIO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GSIO_NODISCARD
#define GSIO_API
#define GSIO_PRINTF(f, a)
#endif

// -- Errors

/** What kind of failure a gsio_error describes. */
typedef enum gsio_error_code {
	GSIO_OK = 0,
	GSIO_ERR_IO,          /**< the file could not be opened, read or written */
	GSIO_ERR_TRUNCATED,   /**< the data ends before a structure it announces */
	GSIO_ERR_BAD_MAGIC,   /**< not a file of any format gsio knows */
	GSIO_ERR_UNSUPPORTED, /**< a known format (or variant) gsio does not read yet */
	GSIO_ERR_CORRUPT,     /**< a count, offset, index or code is out of range */
	GSIO_ERR_LIMIT,       /**< a size exceeds a limit (memory limit, overflow) */
	GSIO_ERR_NOMEM,       /**< an allocation failed */
	GSIO_ERR_ARGUMENT,    /**< the caller passed an invalid argument */
	GSIO_ERR_SYNTAX,      /**< a text file does not follow its grammar */
	GSIO_ERR_MISMATCH     /**< two files that must agree do not (anim vs mesh) */
} gsio_error_code;

/** A failure, filled in by the function that failed. Never global. */
typedef struct gsio_error {
	gsio_error_code code;  /**< GSIO_OK when nothing failed */
	char message[256];     /**< what was wrong, in words; no file or offset */
	char file[256];        /**< the input's name, "" when unknown */
	int64_t offset;        /**< byte offset in the file, -1 when none */
	int32_t line;          /**< 1-based line for text formats, 0 when none */
	int32_t column;        /**< 1-based column for text formats, 0 when none */
	const char *src_file;  /**< gsio source file that raised it (for bug reports) */
	int src_line;          /**< and its line */
} gsio_error;

/** Name of an error code ("truncated", "corrupt", ...). Never NULL. */
GSIO_API const char *gsio_error_code_name(gsio_error_code code);

/** Formats `file:offset 0x1a2b: message` or `file:12:5: message` into buf.
 *  Returns the length it wanted to write (snprintf semantics). */
GSIO_API size_t gsio_error_format(const gsio_error *err, char *buf, size_t buf_size);

/** Clears an error to GSIO_OK. */
GSIO_API void gsio_error_clear(gsio_error *err);

// -- Memory

/** Allocator hooks. Both functions may be NULL (malloc/free then). */
typedef struct gsio_allocator {
	void *(*alloc)(void *user, size_t size);
	void (*free)(void *user, void *ptr);
	void *user;
} gsio_allocator;

/** An arena: many allocations, freed together. Opaque. */
typedef struct gsio_arena gsio_arena;

// -- I/O

/** File access for loaders that open sibling files (palettes, textures,
 *  animations). The default reads through stdio. */
typedef struct gsio_io {
	/** Reads the whole file at `path` into memory allocated with the io's own
	 *  allocator. Returns 0 on success, non-zero (and fills err) on failure. */
	int (*read_file)(void *user, const char *path, uint8_t **data, size_t *size,
	                 gsio_error *err);
	/** Frees what read_file returned. */
	void (*free_data)(void *user, uint8_t *data);
	/** Lists the names (no directory part) of the regular files in `dir`
	 *  ("" or "." for the current one) into a NULL-terminated array; freed
	 *  with free_list. NULL: the io cannot list (sibling discovery is then
	 *  skipped). Returns 0, or non-zero with err filled. */
	int (*list_dir)(void *user, const char *dir, char ***names, gsio_error *err);
	void (*free_list)(void *user, char **names);
	void *user;
} gsio_io;

/** The default io: reads only regular files (a FIFO, a device or a
 *  directory is refused with GSIO_ERR_IO instead of blocking) and lists
 *  directories with opendir. */
GSIO_API const gsio_io *gsio_default_io(void);

/** Reads a whole file into malloc'd memory (the default io). */
GSIO_API GSIO_NODISCARD int gsio_read_whole_file(const char *path, uint8_t **data, size_t *size,
                                        size_t max_size, gsio_error *err);

// -- Options

/** Option flags. */
enum {
	GSIO_OPT_NO_ANIMATION = 1u << 0, /**< keep only the base pose / first frame */
	/** gsio_load_memory() only: the scene may point into the caller's bytes
	 *  instead of copying them (today: MDL2-5 packed frames, and with
	 *  GSIO_OPT_NO_PIXELS the stored skins of MDL2-5 and HMP). The caller keeps
	 *  the bytes alive and unchanged until gsio_scene_free(). */
	GSIO_OPT_BORROW = 1u << 1,
	/** Images read from PNG, JPEG, uncompressed 24- and 32-bit TGA or
	 *  uncompressed BMP files (MD5 textures, MDL7/HMP7 external skins,
	 *  level sprites, and so the skins of a level's models) are not
	 *  decoded: they keep
	 *  file_data/file_size and width/height (from the file's header, under
	 *  the limits the decoder enforces), with rgba and indices NULL. For callers that only write the scene out (mdl2gltf:
	 *  the glTF writer embeds such files as they are). Skins stored in the
	 *  model (MDL2-5, HMP, MDL7) are not decoded either: raw pixels (types
	 *  2-5) stay in `stored`, 8-bit skins in indices + palette, embedded DDS
	 *  files (type 6) in file_data, each with rgba NULL (the glTF writer
	 *  encodes PNGs from these forms, a row or 4-row band at a time). PCX,
	 *  other TGA and BMP, and WAD textures are decoded as without the flag.
	 *  A file
	 *  whose header reads but whose data is damaged is then not noticed: it
	 *  is passed on as it is. */
	GSIO_OPT_NO_PIXELS = 1u << 2,
	/** A height-field terrain (HMP) with one height frame, or loaded with
	 *  GSIO_OPT_NO_ANIMATION, is kept as its grid instead of a triangle mesh
	 *  (about 14 times the file in floats and indices): its mesh has
	 *  vertex_count, index_count, parts, bbox and one frame (name, bbox) as
	 *  without the flag, but positions, normals, uvs, indices and
	 *  frames[0].positions/normals NULL, and mesh.grid pointing to the
	 *  terrain that gives them. Read them with gsio_mesh_grid_get() and
	 *  gsio_mesh_grid_indices() (or gsio_mesh_frame_get()), which give
	 *  exactly the floats and indices the load without the flag stores.
	 *  Terrains with several height frames stay expanded. Every gsio writer
	 *  and the Assimp conversion read grid meshes; code of your own that
	 *  reads mesh arrays directly should not set it. */
	GSIO_OPT_GRID = 1u << 3,
	/** A compiled level (WMB): each lit surface's texture and lightmap are
	 *  baked into one image per (texture, lightmap page), 4 x 4 texels a
	 *  lightmap texel, in the page's coordinates (the mesh's uvs are then
	 *  the lightmap's): for consumers that take one texture a material.
	 *  Without it the lightmap is a second texture (lightmap_texture). */
	GSIO_OPT_BAKE_LIGHTMAPS = 1u << 4
};

/** Load options. A zeroed struct gives the defaults documented per field. */
typedef struct gsio_opts {
	const gsio_allocator *allocator; /**< NULL: malloc/free */
	size_t memory_limit;  /**< bytes one load may allocate; 0: 2 GiB */
	const gsio_io *io;    /**< NULL: stdio */
	uint32_t flags;       /**< GSIO_OPT_* */
	float fps;            /**< frame rate for vertex animation clips; 0: 10 */
	const uint8_t *palette; /**< 768 bytes RGB for 8-bit skins; NULL: see palette_path */
	const char *palette_path; /**< .pcx/.raw/.lmp palette; NULL: built-in palette */
	const char *const *anim_paths; /**< MD5: animations to load instead of the siblings */
	size_t anim_paths_count;
	/** Folders searched, after the folder of the file that names them, for
	 *  the files a model or level names (external textures; a level's WADs,
	 *  models, sprites): by base name, in any case, a name stored in CP1252
	 *  matching a file named in UTF-8; nothing outside these folders is
	 *  read (docs/DESIGN.md, "Files a file names"). */
	const char *const *search_paths;
	size_t search_paths_count;
} gsio_opts;

/** Default vertex-animation frame rate (frames per second). GameStudio stores
 *  none: the engine advances frames by percent. */
#define GSIO_DEFAULT_FPS 10.0f
#define GSIO_DEFAULT_MEMORY_LIMIT ((size_t)2 << 30)

// -- Pixel formats, palettes, normals

/** Pixel layouts of GameStudio skins (the MDL/HMP type code & 7). */
typedef enum gsio_pixel_format {
	GSIO_PIXEL_PAL8 = 0,     /**< 1 byte: index into a 256-colour palette */
	GSIO_PIXEL_RGB565 = 2,   /**< uint16 LE, red in bits 15..11 */
	GSIO_PIXEL_ARGB4444 = 3, /**< uint16 LE, alpha in bits 15..12, red 11..8 */
	GSIO_PIXEL_BGR888 = 4,   /**< 3 bytes B,G,R */
	GSIO_PIXEL_BGRA8888 = 5, /**< 4 bytes B,G,R,A */
	GSIO_PIXEL_RGBA8888 = 16 /**< 4 bytes R,G,B,A (decoded images) */
} gsio_pixel_format;

/** Bytes per pixel of a format, 0 for an unknown one. */
GSIO_API size_t gsio_pixel_size(gsio_pixel_format fmt);

/** Decodes `count` pixels of `fmt` from src into RGBA8 (dst: count*4 bytes).
 *  PAL8 needs a 768-byte palette (NULL: the built-in one); index 0 is kept
 *  opaque (transparency is a render mode in GameStudio, not a skin fact).
 *  Returns 0, or -1 for an unknown format. */
GSIO_API GSIO_NODISCARD int gsio_decode_pixels(gsio_pixel_format fmt, const uint8_t *src, size_t count,
                                      const uint8_t *palette, uint8_t *dst); /* src, dst must not overlap */

/** Encodes RGBA8 pixels into `fmt` (the inverse, rounding to nearest for
 *  16-bit formats, nearest colour for PAL8). Returns 0 or -1. */
GSIO_API GSIO_NODISCARD int gsio_encode_pixels(gsio_pixel_format fmt, const uint8_t *rgba, size_t count,
                                      const uint8_t *palette, uint8_t *dst);

/** The built-in 256-colour palette (768 bytes RGB): index 0 black, a
 *  6x6x6 colour cube at 16..231, grey ramps elsewhere. A stand-in only:
 *  the real palette is the level's, pass it with gsio_opts.palette. */
GSIO_API const uint8_t *gsio_default_palette(void);

/** Loads a palette from a .pcx file (the 768 bytes after the 0x0C marker at
 *  its end) or a 768-byte .raw/.lmp file into out[768]. */
GSIO_API GSIO_NODISCARD int gsio_palette_from_memory(const uint8_t *data, size_t size, uint8_t out[768],
                                            gsio_error *err);
GSIO_API GSIO_NODISCARD int gsio_palette_load(const char *path, uint8_t out[768], gsio_error *err);

/** The 162 Quake/GameStudio vertex normals, as stored (they point into the
 *  model: gsio negates them to get outward normals). */
#define GSIO_NORMAL_COUNT 162
GSIO_API extern const float gsio_anorms[GSIO_NORMAL_COUNT][3];

// -- Scene (version 2)
//
// The neutral scene every importer produces and every writer consumes. It is
// a glTF/Assimp-shaped graph:
// - nodes form a tree (parents before children) and place meshes, cameras
//   and lights; one mesh may be placed by many nodes (instances);
// - joints are nodes; a skin lists the joint nodes of one skeleton and their
//   inverse bind matrices; a skinned mesh names its skin, so several
//   skeletons coexist in one scene;
// - animations are named sets of channels, each sampled once per frame at
//   the animation's rate; a channel moves a node (translation, rotation,
//   scale), sets a mesh's morph frame, or animates a camera's field of view;
// - extras carry facts of a format that glTF has no field for.
// Everything lives in the scene's arena. Indices are int32_t, -1 for none.
// gsio_scene_validate() states every rule; every writer calls it first.

/** Axis conventions. The scene keeps the source's: right-handed, Z up,
 *  X forward (GameStudio and Doom 3 alike). Writers convert. */
typedef enum gsio_axes {
	GSIO_AXES_Z_UP_X_FORWARD = 0
} gsio_axes;

// -- Scene: extras

/** Type of an extra value. */
typedef enum gsio_extra_type {
	GSIO_EXTRA_INT = 0,   /**< int64 in `i` */
	GSIO_EXTRA_FLOAT,     /**< double in `f` */
	GSIO_EXTRA_STRING,    /**< NUL-terminated text in `s` (printable ASCII or UTF-8) */
	GSIO_EXTRA_FLOATS     /**< `floats_count` floats in `floats` (a colour, a vector, skills) */
} gsio_extra_type;

/** One key/value fact. Keys are unique within one list. */
typedef struct gsio_extra {
	const char *key;
	gsio_extra_type type;
	int64_t i;
	double f;
	const char *s;
	const float *floats;
	size_t floats_count;
} gsio_extra;

/** A small key/value list (written to glTF `extras`, in order). */
typedef struct gsio_extras {
	gsio_extra *items;
	size_t count;
} gsio_extras;

// -- Scene: images, materials

/** An image: decoded RGBA8 pixels, a reference to an external file that
 *  was not (or could not be) decoded, or (GSIO_OPT_NO_PIXELS) the image as
 *  its source stores it: a PNG, JPEG, uncompressed TGA or BMP, or DDS file in
 *  file_data, raw pixels in `stored`, or palette indices. */
typedef struct gsio_image {
	const char *name;       /**< "skin0", or the texture's file name; unique in the scene */
	uint32_t width, height; /**< pixels; 0 x 0 for an undecoded reference (uri);
	                             set for every other form, rgba or not */
	uint8_t *rgba;          /**< width*height*4 bytes, top row first, straight
	                             alpha; NULL when the image is only a reference
	                             (uri) or an undecoded file (file_data, loaded
	                             with GSIO_OPT_NO_PIXELS) */
	const char *uri;        /**< external file (relative to the scene's file, '/'
	                             separators) when rgba and file_data are NULL;
	                             else NULL */
	int32_t source_type;    /**< the format's own type code (MDL skin type), -1 if none */
	gsio_pixel_format source_format; /**< pixel layout it was stored in */
	uint32_t source_mip_count; /**< mip levels stored after the full image (kept in the codec layer) */
	const char *source_path;   /**< external file it was decoded from, NULL when embedded */
	/** The indexed form, kept when the source stored the image through a
	 *  palette (MDL/HMP/MDL7 skin type 0, WAD and PCX 8-bit textures; a
	 *  level's placeholder for a missing texture when it has rgba, whose
	 *  indices every placeholder of the level shares), else NULL
	 *  and 0. rgba is filled all the same (except with GSIO_OPT_NO_PIXELS:
	 *  NULL, and the indices are the picture) and stays the truth for every
	 *  consumer: indices[i] names palette entry palette[4*indices[i] ..
	 *  +3], which equals rgba[4*i .. +3] (gsio_scene_validate checks it).
	 *  Writers may use it to write the image as it was stored (the glTF
	 *  writer makes a palette PNG of it). Both live in the scene's arena. */
	uint8_t *indices;          /**< width*height bytes, top row first, each < palette_count */
	uint8_t *palette;          /**< palette_count RGBA8 entries, straight alpha */
	uint32_t palette_count;    /**< 1..256 with indices, 0 without */
	/** The PNG or JPEG file the pixels were decoded from, byte for byte, when
	 *  the importer read one (MD5 textures, external skins, level textures
	 *  and sprites), or a level's placeholder for a missing texture (one
	 *  98-byte PNG of gsio's own, not in the arena, which every placeholder
	 *  points to); else NULL and 0. rgba is filled all the same and is the
	 *  picture, except with GSIO_OPT_NO_PIXELS, where rgba is NULL and these
	 *  bytes are the picture (width and height still set); with the flag
	 *  an embedded DDS skin (type 6) and an uncompressed 24- or 32-bit TGA
	 *  file are kept so too. A writer may store these bytes instead of
	 *  encoding rgba again (the glTF writer embeds a PNG or JPEG as it is,
	 *  less a PNG's colour-space chunks, once for images that share the
	 *  same bytes, and turns a DDS or TGA into a PNG). In the scene's arena
	 *  (a block it frees with itself), except a placeholder's. */
	const uint8_t *file_data;
	size_t file_size;
	/** With GSIO_OPT_NO_PIXELS, a skin the model stores as raw pixels (MDL,
	 *  HMP and MDL7 skin types 2-5) keeps them here, undecoded:
	 *  width*height*gsio_pixel_size(source_format) bytes, top row first, in
	 *  the scene's arena (or, with GSIO_OPT_BORROW, the caller's bytes);
	 *  rgba is NULL then. gsio_decode_pixels() reads them,
	 *  gsioi_png_encode_stored() writes them as PNG. Else NULL. */
	const uint8_t *stored;
	gsio_extras extras;
} gsio_image;

/** Texture addressing outside 0..1. */
typedef enum gsio_wrap {
	GSIO_WRAP_REPEAT = 0,
	GSIO_WRAP_CLAMP,
	GSIO_WRAP_MIRROR
} gsio_wrap;

/** A texture as a material uses it: an image and its sampler. */
typedef struct gsio_texture {
	int32_t image;          /**< index into gsio_scene.images, -1 for none */
	gsio_wrap wrap_u, wrap_v;
	float tiling;           /**< repeats over the UV range 0..1; 0 or 1: once */
} gsio_texture;

/** How a material's alpha is used. */
typedef enum gsio_alpha_mode {
	GSIO_ALPHA_OPAQUE = 0,
	GSIO_ALPHA_MASK,        /**< cut out below alpha_cutoff */
	GSIO_ALPHA_BLEND
} gsio_alpha_mode;

/** A material (metallic 0, roughness 1 unless extras say more). */
typedef struct gsio_material {
	// Each gsio_texture field is also listed in GSIOI_MATERIAL_TEXTURES
	// (common/gsioi_scene_util.h), which the library walks for every slot.
	const char *name;         /**< unique in the scene */
	float base_color[4];      /**< linear RGBA factor, default 1,1,1,1 */
	gsio_texture base_color_texture; /**< colour skin or texture */
	gsio_texture detail_texture;     /**< terrain detail map (tiling = repeats over the terrain) */
	float emissive[3];        /**< linear RGB, default 0 */
	gsio_alpha_mode alpha_mode;
	float alpha_cutoff;       /**< MASK only; default 0.5 */
	bool double_sided;
	bool unlit;
	const char *shader;       /**< MD5 shader string as written, NULL otherwise */
	gsio_extras extras;       /**< e.g. "gsio:skin_type", MDL7 ambient/specular/power */
	/** A lightmap (a compiled level's): its colour multiplies the base
	 *  colour, sampled with the mesh's lightmap_uvs; image -1 for none
	 *  (the default). The glTF writer stores it as the occlusion texture
	 *  on TEXCOORD_1 (docs/DESIGN.md, "Lightmaps"). A material with one is
	 *  only used by meshes with lightmap_uvs. */
	gsio_texture lightmap_texture;
} gsio_material;

// -- Scene: meshes

/** How a mesh's packed frames store a vertex: once per SOURCE vertex (the
 *  file's vertex order) instead of once per scene vertex, and for MDL2-5 as
 *  the file stores them (4 or 8 bytes a vertex instead of 24 bytes of
 *  floats). A packed frame holds `source_count` records of `vertex_stride`
 *  bytes; record x starts with xyz as unsigned integers of `coord_size`
 *  bytes each (1, or 2 little endian) or, with coord_size 4, as floats
 *  (IEEE single, host order: MDL7's frames, a file vertex shared by the
 *  scene vertices split from it along UV seams). Scene vertex v shows
 *  source vertex mesh.source_vertex[v] (v when that is NULL):
 *
 *      position[k] = scale[k] * (float)xyz[k] + offset[k]   (float arithmetic;
 *                    coord_size 4: xyz[k] itself, scale 1 and offset 0)
 *      normal      = normal_table[index], the index a byte at normal_offset;
 *                    an index >= normal_count reads as 0
 *                    (normal_floats: the 3 floats at normal_offset)
 *
 *  Read frames with gsio_mesh_frame_get() (table normals also as indices
 *  into the table: gsio_mesh_frame_normal_indices()), not through these
 *  fields. */
typedef struct gsio_packed_format {
	uint32_t coord_size;     /**< bytes per coordinate: 1, 2, or 4 (floats) */
	uint32_t vertex_stride;  /**< bytes per record, 3 * coord_size..256 (MDL: 4 or 8; MDL7: 24) */
	uint32_t normal_offset;  /**< byte of the normal (its index, or its 3 floats) in a record */
	size_t source_count;     /**< records per frame (the file's vertex count) */
	float scale[3];          /**< finite; 1 with coord_size 4 */
	float offset[3];         /**< finite; 0 with coord_size 4 */
	const float (*normal_table)[3]; /**< unit outward normals; NULL: no table */
	size_t normal_count;     /**< entries of normal_table (> 0 when it is set) */
	/** The normal is 3 floats at normal_offset (unit, outward, scene axes)
	 *  instead of an index; normal_table is then NULL. A frame has normals
	 *  when normal_table is set or normal_floats is. */
	bool normal_floats;
} gsio_packed_format;

/** One vertex-animation frame: absolute positions and normals for every
 *  vertex of its mesh (mesh.vertex_count of each), as floats or packed
 *  (mesh.packed says how). Read either with gsio_mesh_frame_get(). */
typedef struct gsio_morph_frame {
	const char *name;     /**< the stored frame name, e.g. "walk3" */
	float *positions;     /**< xyz per vertex, scene axes; NULL when packed */
	float *normals;       /**< unit outward normal per vertex, NULL if none or packed */
	float bbox_min[3], bbox_max[3]; /**< of the positions (filled for packed frames too) */
	/** The frame as stored, mesh.packed->source_count records; NULL for a
	 *  float frame. When positions is set too (frame 0 of a loaded MDL) the
	 *  two hold the same values and the floats are read. The bytes belong to
	 *  the scene (or, with GSIO_OPT_BORROW, to the caller). */
	const uint8_t *packed;
	size_t packed_size;   /**< bytes at `packed`, >= source_count * vertex_stride */
} gsio_morph_frame;

/** Per-vertex skin weights, any number per vertex, in CSR form:
 *  vertex v has weights [offsets[v], offsets[v+1]). Joint indices index the
 *  mesh's skin's joints. */
typedef struct gsio_weights {
	uint32_t *offsets;    /**< vertex_count + 1 entries */
	uint32_t *joints;     /**< index into skins[mesh.skin].joints, per weight */
	float *values;        /**< weight, >= 0, as stored (gsio does not normalise) */
	size_t count;         /**< total weights */
} gsio_weights;

/** A run of triangles drawn with one material. */
typedef struct gsio_mesh_part {
	size_t first_index;   /**< into mesh.indices, a multiple of 3 */
	size_t index_count;   /**< a multiple of 3 */
	int32_t material;     /**< index into scene materials, -1 for none */
} gsio_mesh_part;

/** A triangle mesh with welded vertices. Front faces are counter-clockwise
 *  seen from outside (the file's winding is reversed where it is clockwise).
 *  Its parts cover indices in order, without gaps or overlap. */
typedef struct gsio_mesh {
	const char *name;
	size_t vertex_count;
	float *positions;     /**< xyz per vertex (frame 0 / bind pose), scene axes */
	float *normals;       /**< unit outward xyz per vertex, NULL if none */
	float *uvs;           /**< uv per vertex, 0,0 = top-left of the image, NULL if none */
	uint32_t *indices;    /**< 3 per triangle */
	size_t index_count;
	gsio_mesh_part *parts;
	size_t parts_count;
	uint32_t *source_vertex; /**< per vertex: the file's position index (NULL if 1:1) */
	uint32_t *source_uv;  /**< per vertex: the file's UV index (NULL if none) */
	gsio_morph_frame *frames; /**< vertex animation; frames[0] = the positions above; 0 when static */
	size_t frames_count;
	const gsio_packed_format *packed; /**< layout of the frames' `packed` bytes; NULL
	                                       when every frame is floats */
	int32_t skin;         /**< index into scene skins when skinned, else -1 */
	gsio_weights weights; /**< skinning; count 0 when unskinned */
	float bbox_min[3], bbox_max[3]; /**< of positions */
	gsio_extras extras;
	/** Non-NULL for a terrain kept as its grid (GSIO_OPT_GRID): the vertices
	 *  (row-major, vertex r * columns + c) and the triangles (two per cell)
	 *  come from this terrain, and positions, normals, uvs, indices and the
	 *  frame arrays are NULL. Read with gsio_mesh_grid_get(). */
	const struct gsio_terrain *grid;
	/** A second uv per vertex, a lightmap page's (0..1, 0,0 top-left),
	 *  for materials' lightmap_texture; NULL if none. glTF: TEXCOORD_1. */
	float *lightmap_uvs;
} gsio_mesh;

// -- Scene: nodes, skins, cameras, lights

/** A node: a local transform relative to its parent and what it carries.
 *  Rotations are unit quaternions x,y,z,w. Cameras and lights look along
 *  their node's +X axis (the scene's forward) with +Z up. */
typedef struct gsio_node {
	const char *name;
	int32_t parent;          /**< index of the parent node, -1 for a root;
	                              always less than the node's own index */
	float translation[3];
	float rotation[4];
	float scale[3];
	int32_t mesh;            /**< index into meshes, -1 for none */
	int32_t camera;          /**< index into cameras, -1 for none */
	int32_t light;           /**< index into lights, -1 for none */
	gsio_extras extras;      /**< e.g. an entity's action, flags, skills */
} gsio_node;

/** A skeleton as a skinned mesh uses it: joint nodes and their inverse bind
 *  matrices (model space of the mesh's node to joint space). */
typedef struct gsio_skin {
	const char *name;
	int32_t *joints;         /**< node indices, no repeats */
	size_t joints_count;
	float *inverse_bind;     /**< 16 floats per joint, column-major */
	int32_t skeleton;        /**< the common root node of the joints, -1 if none */
} gsio_skin;

/** A perspective camera. */
typedef struct gsio_camera {
	const char *name;
	float fov;               /**< horizontal field of view in degrees (frame 0) */
	float aspect;            /**< width / height; 0: 4:3 */
	float znear, zfar;       /**< 0: writer defaults (zfar 0: infinite) */
} gsio_camera;

typedef enum gsio_light_type {
	GSIO_LIGHT_POINT = 0,
	GSIO_LIGHT_SPOT,
	GSIO_LIGHT_DIRECTIONAL
} gsio_light_type;

/** A light. Spot and directional lights shine along their node's +X. */
typedef struct gsio_light {
	const char *name;
	gsio_light_type type;
	float color[3];          /**< linear RGB, 0..1 */
	float intensity;         /**< candela (point, spot) or lux (directional) */
	float range;             /**< distance where it ends; 0: infinite */
	float inner_cone, outer_cone; /**< spot: radians, 0 <= inner < outer <= pi/2 */
	gsio_extras extras;
} gsio_light;

// -- Scene: animation

/** What a channel animates. */
typedef enum gsio_channel_path {
	GSIO_PATH_TRANSLATION = 0, /**< node translation: 3 floats per key */
	GSIO_PATH_ROTATION,        /**< node rotation: 4 floats per key (unit x,y,z,w) */
	GSIO_PATH_SCALE,           /**< node scale: 3 floats per key */
	GSIO_PATH_MORPH,           /**< the morph frame shown by the node's mesh: one
	                                frame index per key in `frames`, or, to blend,
	                                mesh.frames_count weights per key in `values` */
	GSIO_PATH_FOV              /**< the node's camera's fov (degrees): 1 float per key */
} gsio_channel_path;

/** One animated property, sampled at every frame of its animation. */
typedef struct gsio_channel {
	int32_t node;            /**< the node it moves (for MORPH: the node placing the mesh) */
	gsio_channel_path path;
	float *values;           /**< frames_count * width floats (see the path), or
	                              NULL for a MORPH channel given by `frames` */
	uint32_t *frames;        /**< MORPH: frames_count indices into mesh.frames; else NULL */
} gsio_channel;

/** A named animation: channels sampled at `fps`, frame k at time k / fps,
 *  with linear interpolation between frames (spherical for rotations). */
typedef struct gsio_animation {
	const char *name;        /**< unique in the scene */
	float fps;               /**< > 0 */
	size_t frames_count;     /**< >= 1; every channel has this many keys */
	gsio_channel *channels;
	size_t channels_count;
	uint32_t *cuts;          /**< frames where the animation jumps instead of
	                              interpolating from the frame before (camera
	                              shots); ascending, each in 1..frames_count-1 */
	size_t cuts_count;
	float *bounds;           /**< frames_count * 6 (min xyz, max xyz) in model space, NULL if none (MD5) */
	gsio_extras extras;
} gsio_animation;

// -- Scene: terrain, the scene itself

/** A height-field terrain, kept so it can be written back (HMP), and with
 *  GSIO_OPT_GRID the source of its mesh's vertices (mesh.grid). */
typedef struct gsio_terrain {
	uint32_t columns, rows;   /**< vertices in x and in y */
	float cell_x, cell_y;     /**< distance between vertices */
	float origin[2];          /**< x, y of column 0 and of the last row */
	float height_scale, height_offset; /**< height = scale * raw + offset */
	uint16_t *raw_heights;    /**< rows*columns, row-major, row 0 = +y edge */
	uint8_t *normal_indices;  /**< rows*columns indices into gsio_anorms, NULL if none */
	int32_t mesh;             /**< index of the mesh built from it */
	/** HMP7: per vertex the stored int8 x, y of the normal (2 * rows*columns,
	 *  127 times the inward unit normal's x and y; z from unit length),
	 *  NULL otherwise (then normal_indices, if any, gives the normals). */
	int8_t *normal_xy;
} gsio_terrain;

/** The neutral scene. Everything it points to lives in its arena. */
typedef struct gsio_scene {
	gsio_arena *arena;
	const char *format;       /**< "MDL5", "HMP5", "MD5", ... ; NULL for a built scene */
	int32_t format_version;   /**< 3, 4, 5 for MDL; 10 for MD5 */
	gsio_axes axes;
	gsio_node *nodes;          size_t nodes_count;  /**< parents before children */
	gsio_mesh *meshes;         size_t meshes_count;
	gsio_material *materials;  size_t materials_count;
	gsio_image *images;        size_t images_count;
	gsio_skin *skins;          size_t skins_count;
	gsio_animation *animations; size_t animations_count;
	gsio_camera *cameras;      size_t cameras_count;
	gsio_light *lights;        size_t lights_count;
	gsio_terrain *terrain;     /**< NULL unless a terrain */
	gsio_extras extras;        /**< scene-wide facts (a level's fog colours, ...) */
	const char **warnings;     size_t warnings_count;
	/** Counts as stored in the source file, before welding (0 for a built scene). */
	struct {
		size_t vertices;   /**< 3D vertices (MDL numverts, HMP numverts, MD5 verts) */
		size_t triangles;
		size_t uvs;        /**< MDL skin vertices */
		/** Frames, vertex or skeletal: MDL2-5 numframes, MDL7 the most of a
		 *  group, HMP height frames, an .md5anim's or .md5camera's, an
		 *  .md5mesh the frames of the animations read with it; counted
		 *  whether or not the load keeps them (GSIO_OPT_NO_ANIMATION); 0 for
		 *  a level. */
		size_t frames;
	} source;
} gsio_scene;

/** Frees a scene and everything it owns. NULL is fine. */
GSIO_API void gsio_scene_free(gsio_scene *scene);

// -- Scene: building one
//
// A scene built outside gsio (an adapter, a test, a converter) lives in its
// own arena like a loaded one. The add functions append one element with its
// defaults (identity transform, -1 indices, white material, ...) and return
// its index, or -1 (with err set: nomem or limit) on failure. Element
// pointers stay valid until the next add of the same kind: keep indices.
// Arrays inside an element (a mesh's frames, a node's extras, ...) are
// allocated with gsio_scene_alloc() and filled by the caller.

/** A new empty scene with its own arena (allocator and memory limit from
 *  opts). NULL on failure. */
GSIO_API gsio_scene *gsio_scene_new(const gsio_opts *opts, gsio_error *err);
/** count*size zeroed bytes in the scene's arena, 16-byte aligned; NULL on
 *  overflow or failure (err set). Freed with the scene. */
GSIO_API void *gsio_scene_alloc(gsio_scene *s, size_t count, size_t size, gsio_error *err);
/** A copy of str in the scene's arena (NULL for NULL or on failure). */
GSIO_API char *gsio_scene_strdup(gsio_scene *s, const char *str, gsio_error *err);

GSIO_API int32_t gsio_scene_add_node(gsio_scene *s, const char *name, int32_t parent,
                                     gsio_error *err);
/** A mesh with vertex_count vertices (positions, and normals and uvs when
 *  asked by GSIO_MESH_NORMALS / GSIO_MESH_UVS), index_count zeroed indices
 *  and one part covering them all with `material`. */
enum { GSIO_MESH_NORMALS = 1u << 0, GSIO_MESH_UVS = 1u << 1 };
GSIO_API int32_t gsio_scene_add_mesh(gsio_scene *s, const char *name, size_t vertex_count,
                                     size_t index_count, uint32_t flags, int32_t material,
                                     gsio_error *err);
GSIO_API int32_t gsio_scene_add_material(gsio_scene *s, const char *name, gsio_error *err);
/** An RGBA8 image of width x height pixels (zeroed), or, with width or
 *  height 0, a reference to the external file `uri`. */
GSIO_API int32_t gsio_scene_add_image(gsio_scene *s, const char *name, uint32_t width,
                                      uint32_t height, const char *uri, gsio_error *err);
/** A skin with joints_count joint slots (-1) and identity inverse binds. */
GSIO_API int32_t gsio_scene_add_skin(gsio_scene *s, const char *name, size_t joints_count,
                                     gsio_error *err);
GSIO_API int32_t gsio_scene_add_camera(gsio_scene *s, const char *name, gsio_error *err);
GSIO_API int32_t gsio_scene_add_light(gsio_scene *s, const char *name, gsio_light_type type,
                                      gsio_error *err);
/** An animation of frames_count frames at fps with channels_count channels
 *  (node -1, values NULL: the caller sets them, e.g. with
 *  gsio_scene_alloc(s, frames_count * 4, sizeof(float), err)). */
GSIO_API int32_t gsio_scene_add_animation(gsio_scene *s, const char *name, float fps,
                                          size_t frames_count, size_t channels_count,
                                          gsio_error *err);
/** Sets key in extras (replacing a value of that key): an int, a double, a
 *  string (copied) or n floats (copied). Returns 0, or -1 with err set. */
GSIO_API int gsio_extras_set_int(gsio_scene *s, gsio_extras *x, const char *key, int64_t v,
                                 gsio_error *err);
GSIO_API int gsio_extras_set_float(gsio_scene *s, gsio_extras *x, const char *key, double v,
                                   gsio_error *err);
GSIO_API int gsio_extras_set_string(gsio_scene *s, gsio_extras *x, const char *key,
                                    const char *v, gsio_error *err);
GSIO_API int gsio_extras_set_floats(gsio_scene *s, gsio_extras *x, const char *key,
                                    const float *v, size_t n, gsio_error *err);
/** The extra called key, or NULL. */
GSIO_API const gsio_extra *gsio_extras_get(const gsio_extras *x, const char *key);
/** Appends a warning (printf-style) to the scene. A text the scene holds
 *  already is not appended again: that warning becomes "TEXT (N times)" in
 *  its place. Returns 0, or -1 on failure. */
GSIO_API int gsio_scene_add_warning(gsio_scene *s, gsio_error *err, const char *fmt, ...)
	GSIO_PRINTF(3, 4);

// -- Scene: checking one

/** Checks every rule of the scene model: counts and pointers consistent,
 *  every index in range (parents < own index, so the node tree is acyclic),
 *  parts covering the indices, every float finite, quaternions unit (within
 *  1e-3), scales non-zero, weights non-negative with joints inside the
 *  mesh's skin, frames and morph keys the size of their mesh, packed frames
 *  consistent with their format (coordinate size, stride, data size, every
 *  source_vertex < source_count, finite scale and offset, float records
 *  finite), grid meshes
 *  consistent with their terrain (counts, no arrays, one frame, finite
 *  positions, normal indices in the table), channel values
 *  the size of their animation, names where they must be unique unique.
 *  Returns 0, or -1 with err (GSIO_ERR_ARGUMENT) naming the element and the
 *  rule, e.g. "nodes[3].parent 7 is not less than 3". */
GSIO_API GSIO_NODISCARD int gsio_scene_validate(const gsio_scene *scene, gsio_error *err);

/** Frame `frame` of mesh m as floats, whether it is stored as floats,
 *  packed (gsio_packed_format) or, for a grid mesh (mesh.grid, one frame),
 *  as its terrain (gsio_mesh_grid_get): positions (vertex_count * 3 floats, scene
 *  axes) and unit outward normals (as many) into the caller's arrays; either
 *  may be NULL to skip it. Every consumer of morph frames calls this instead
 *  of reading frames[f].positions/normals. Returns 1 when normals were
 *  written, 0 when the frame has none (normals is then left as it was), -1
 *  when frame >= frames_count or the frame has neither floats nor packed
 *  bytes (nothing written). The mesh must have passed gsio_scene_validate. */
GSIO_API int gsio_mesh_frame_get(const gsio_mesh *m, size_t frame, float *positions,
                                 float *normals);

/** The normals of frame `frame` of mesh m as indices into a table, for a
 *  consumer that converts each distinct normal once instead of once per
 *  vertex: when the frame is packed with normals (it has no float arrays and
 *  the mesh's packed format has a normal table), writes vertex_count indices
 *  into `indices` (an index the table does not hold reads as 0, as in
 *  gsio_mesh_frame_get) and, unless `positions` is NULL, the positions as
 *  gsio_mesh_frame_get() gives them, in the same pass over the records;
 *  sets *table to the table (*table_count entries of 3 floats: unit outward
 *  normals, scene axes) and returns 1: the frame's normals are
 *  table[3 * indices[v] + k], exactly the floats gsio_mesh_frame_get()
 *  gives. Returns 0 when the frame is floats or has no normals (read it
 *  with gsio_mesh_frame_get; nothing written), -1 when frame >=
 *  frames_count. The mesh must have passed gsio_scene_validate. */
GSIO_API int gsio_mesh_frame_normal_indices(const gsio_mesh *m, size_t frame, float *positions,
                                            uint8_t *indices, const float **table,
                                            size_t *table_count);

/** Vertices first_vertex .. first_vertex + count - 1 of a grid mesh
 *  (mesh.grid set, GSIO_OPT_GRID) into the caller's arrays: positions (3
 *  floats a vertex, scene axes), unit outward normals (3) and uvs (2),
 *  each may be NULL to skip it. Bit for bit the floats the load without
 *  GSIO_OPT_GRID stores for those vertices (the HMP importer expands its
 *  meshes with the same code). Vertex v is row v / columns, column v %
 *  columns of the grid. A frame reader too: gsio_mesh_frame_get(m, 0, ...)
 *  gives the same for all vertices. Returns 1 when normals were written, 0
 *  when the terrain has none (normals left as they were), -1 when m is not
 *  a grid mesh or the range passes vertex_count (nothing written). The
 *  mesh must have passed gsio_scene_validate. */
GSIO_API int gsio_mesh_grid_get(const gsio_mesh *m, size_t first_vertex, size_t count,
                                float *positions, float *normals, float *uvs);

/** Triangles first_triangle .. first_triangle + count - 1 of a grid mesh as
 *  3 vertex indices each into `indices`: the indices the load without
 *  GSIO_OPT_GRID stores (index_count / 3 triangles, two per grid cell, cells
 *  row by row, counter-clockwise seen from +z). Returns 0, or -1 when m is
 *  not a grid mesh or the range passes index_count / 3 (nothing written). */
GSIO_API int gsio_mesh_grid_indices(const gsio_mesh *m, size_t first_triangle, size_t count,
                                    uint32_t *indices);

/** World (model-space) transform of node i as a column-major 4x4 matrix:
 *  the product of its ancestors' local transforms and its own. */
GSIO_API void gsio_node_world_matrix(const gsio_scene *scene, int32_t node, float out[16]);

// -- Importers

/** Importer descriptor, the C twin of Assimp's BaseImporter. */
typedef struct gsio_importer {
	const char *name;        /**< "GameStudio MDL" */
	const char *extensions;  /**< space-separated, lower case, no dot: "mdl" */
	int min_version, max_version;
	/** 2: the magic matches; 1: only the extension does; 0: not ours. */
	int (*can_read)(const uint8_t *head, size_t head_size, const char *ext);
	/** Reads a whole file already in memory. `path` names it (for errors and
	 *  for opening siblings through opts->io); may be NULL. */
	gsio_scene *(*read)(const uint8_t *data, size_t size, const char *path,
	                    const gsio_opts *opts, gsio_error *err);
} gsio_importer;

/** All importers, NULL-terminated. */
GSIO_API const gsio_importer *const *gsio_importers(void);

/** The importer for these bytes: by magic first, then by extension. NULL if none. */
GSIO_API const gsio_importer *gsio_find_importer(const uint8_t *head, size_t head_size, const char *path);

/** Loads a scene from memory / from a file. NULL on failure, with err set.
 *  gsio_load_file with the default io reads a regular file only, and its
 *  first 4 KB before the rest: what they rule out (no format's magic, a
 *  version gsio does not read) fails there, with the error the whole file
 *  gives. */
GSIO_API gsio_scene *gsio_load_memory(const uint8_t *data, size_t size, const char *path,
                             const gsio_opts *opts, gsio_error *err);
GSIO_API gsio_scene *gsio_load_file(const char *path, const gsio_opts *opts, gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
