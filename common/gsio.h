/* gsio: read and write 3D GameStudio (MDL3/4/5, HMP4/5, WMP) and id MD5 files.
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

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSIO_VERSION_MAJOR 0
#define GSIO_VERSION_MINOR 1
#define GSIO_VERSION_PATCH 0
#define GSIO_VERSION_STRING "0.1.0"

#if defined(__GNUC__) || defined(__clang__)
#define GSIO_NODISCARD __attribute__((warn_unused_result))
#define GSIO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GSIO_NODISCARD
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
const char *gsio_error_code_name(gsio_error_code code);

/** Formats `file:offset 0x1a2b: message` or `file:12:5: message` into buf.
 *  Returns the length it wanted to write (snprintf semantics). */
size_t gsio_error_format(const gsio_error *err, char *buf, size_t buf_size);

/** Clears an error to GSIO_OK. */
void gsio_error_clear(gsio_error *err);

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
	void *user;
} gsio_io;

/** Reads a whole file into malloc'd memory (the default io). */
GSIO_NODISCARD int gsio_read_whole_file(const char *path, uint8_t **data, size_t *size,
                                        size_t max_size, gsio_error *err);

// -- Options

/** Option flags. */
enum {
	GSIO_OPT_NO_ANIMATION = 1u << 0 /**< keep only the base pose / first frame */
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
size_t gsio_pixel_size(gsio_pixel_format fmt);

/** Decodes `count` pixels of `fmt` from src into RGBA8 (dst: count*4 bytes).
 *  PAL8 needs a 768-byte palette (NULL: the built-in one); index 0 is kept
 *  opaque (transparency is a render mode in GameStudio, not a skin fact).
 *  Returns 0, or -1 for an unknown format. */
GSIO_NODISCARD int gsio_decode_pixels(gsio_pixel_format fmt, const uint8_t *src, size_t count,
                                      const uint8_t *palette, uint8_t *dst); /* src, dst must not overlap */

/** Encodes RGBA8 pixels into `fmt` (the inverse, rounding to nearest for
 *  16-bit formats, nearest colour for PAL8). Returns 0 or -1. */
GSIO_NODISCARD int gsio_encode_pixels(gsio_pixel_format fmt, const uint8_t *rgba, size_t count,
                                      const uint8_t *palette, uint8_t *dst);

/** The built-in 256-colour palette (768 bytes RGB): index 0 black, a
 *  6x6x6 colour cube at 16..231, grey ramps elsewhere. A stand-in only:
 *  the real palette is the level's, pass it with gsio_opts.palette. */
const uint8_t *gsio_default_palette(void);

/** Loads a palette from a .pcx file (the 768 bytes after the 0x0C marker at
 *  its end) or a 768-byte .raw/.lmp file into out[768]. */
GSIO_NODISCARD int gsio_palette_from_memory(const uint8_t *data, size_t size, uint8_t out[768],
                                            gsio_error *err);
GSIO_NODISCARD int gsio_palette_load(const char *path, uint8_t out[768], gsio_error *err);

/** The 162 Quake/GameStudio vertex normals, as stored (they point into the
 *  model: gsio negates them to get outward normals). */
#define GSIO_NORMAL_COUNT 162
extern const float gsio_anorms[GSIO_NORMAL_COUNT][3];

// -- Scene

/** Axis conventions. The scene keeps the source's: right-handed, Z up,
 *  X forward (GameStudio and Doom 3 alike). Writers convert. */
typedef enum gsio_axes {
	GSIO_AXES_Z_UP_X_FORWARD = 0
} gsio_axes;

/** A decoded image: RGBA8, top row first, straight alpha. */
typedef struct gsio_image {
	const char *name;       /**< "skin0", or the texture's file name */
	uint32_t width, height; /**< pixels */
	uint8_t *rgba;          /**< width*height*4 bytes */
	int32_t source_type;    /**< the format's own type code (MDL skin type), -1 if none */
	gsio_pixel_format source_format; /**< pixel layout it was stored in */
	uint32_t source_mip_count; /**< mip levels stored after the full image (kept in the codec layer) */
	const char *source_path;   /**< external file it came from, NULL when embedded */
} gsio_image;

/** A material. Indices are into gsio_scene.images, -1 for none. */
typedef struct gsio_material {
	const char *name;
	int32_t base_color_image; /**< colour skin or texture */
	int32_t detail_image;     /**< terrain detail map, -1 if none */
	float detail_tiling;      /**< repeats of the detail map over the terrain */
	float base_color[4];      /**< linear RGBA factor, default 1,1,1,1 */
	const char *shader;       /**< MD5 shader string as written, NULL otherwise */
} gsio_material;

/** One vertex-animation frame: absolute positions and normals for every
 *  vertex of its mesh (mesh.vertex_count of each). */
typedef struct gsio_morph_frame {
	const char *name;     /**< the stored frame name, e.g. "walk3" */
	float *positions;     /**< xyz per vertex, scene axes */
	float *normals;       /**< unit outward normal per vertex */
	float bbox_min[3], bbox_max[3]; /**< of the decoded positions */
} gsio_morph_frame;

/** A named range of consecutive morph frames (frames walk0..walk3 -> "walk"). */
typedef struct gsio_clip {
	const char *name;
	size_t first_frame;   /**< index into the mesh's frames */
	size_t frame_count;
	float fps;            /**< playback rate, from gsio_opts.fps */
} gsio_clip;

/** Per-vertex skin weights, any number per vertex, in CSR form:
 *  vertex v has weights [offsets[v], offsets[v+1]). */
typedef struct gsio_weights {
	uint32_t *offsets;    /**< vertex_count + 1 entries */
	uint32_t *joints;     /**< joint index per weight */
	float *values;        /**< weight per weight, as stored (gsio does not normalise) */
	size_t count;         /**< total weights */
} gsio_weights;

/** A triangle mesh with welded vertices. Front faces are counter-clockwise
 *  seen from outside (the file's winding is reversed where it is clockwise). */
typedef struct gsio_mesh {
	const char *name;
	size_t vertex_count;
	float *positions;     /**< xyz per vertex (frame 0 / bind pose), scene axes */
	float *normals;       /**< unit outward xyz per vertex, NULL if none */
	float *uvs;           /**< uv per vertex, 0,0 = top-left of the image, NULL if none */
	uint32_t *indices;    /**< 3 per triangle */
	size_t index_count;
	int32_t material;     /**< index into scene materials, -1 for none */
	uint32_t *source_vertex; /**< per vertex: the file's position index (NULL if 1:1) */
	uint32_t *source_uv;  /**< per vertex: the file's UV index (NULL if none) */
	gsio_morph_frame *frames; /**< vertex animation; frames[0] = the positions above */
	size_t frames_count;
	gsio_weights weights; /**< skinning; count 0 when unskinned */
	float bbox_min[3], bbox_max[3]; /**< of positions */
} gsio_mesh;

/** A joint of a skeleton. Rotations are unit quaternions x,y,z,w. */
typedef struct gsio_joint {
	const char *name;
	int32_t parent;          /**< index of the parent joint, -1 for a root;
	                              always less than the joint's own index */
	float translation[3];    /**< bind pose, relative to the parent */
	float rotation[4];       /**< bind pose, relative to the parent */
	float world_translation[3]; /**< bind pose in model space */
	float world_rotation[4];
} gsio_joint;

/** A skeletal animation sampled per frame: a local (parent-relative) pose for
 *  every joint at every frame. */
typedef struct gsio_skel_anim {
	const char *name;       /**< e.g. the .md5anim's base name */
	float fps;
	size_t frames_count;
	size_t joints_count;    /**< equals scene joints_count */
	float *translations;    /**< frames*joints*3 */
	float *rotations;       /**< frames*joints*4, x,y,z,w */
	float *bounds;          /**< frames*6 (min xyz, max xyz), NULL if none */
} gsio_skel_anim;

/** An animated camera (MD5 .md5camera). */
typedef struct gsio_camera {
	const char *name;
	float fps;
	size_t frames_count;
	float *positions;       /**< frames*3, scene axes */
	float *rotations;       /**< frames*4, x,y,z,w; the camera looks along its +X */
	float *fov;             /**< frames, horizontal field of view in degrees */
	uint32_t *cuts;         /**< frame indices where a new shot starts */
	size_t cuts_count;
} gsio_camera;

/** A height-field terrain, kept so it can be written back (HMP). */
typedef struct gsio_terrain {
	uint32_t columns, rows;   /**< vertices in x and in y */
	float cell_x, cell_y;     /**< distance between vertices */
	float origin[2];          /**< x, y of column 0 and of the last row */
	float height_scale, height_offset; /**< height = scale * raw + offset */
	uint16_t *raw_heights;    /**< rows*columns, row-major, row 0 = +y edge */
	uint8_t *normal_indices;  /**< rows*columns indices into gsio_anorms, NULL if none */
	int32_t mesh;             /**< index of the mesh built from it */
} gsio_terrain;

/** The neutral scene. Everything it points to lives in its arena. */
typedef struct gsio_scene {
	gsio_arena *arena;
	const char *format;       /**< "MDL5", "HMP5", "MD5", ... */
	int32_t format_version;   /**< 3, 4, 5 for MDL; 10 for MD5 */
	gsio_axes axes;
	gsio_mesh *meshes;         size_t meshes_count;
	gsio_material *materials;  size_t materials_count;
	gsio_image *images;        size_t images_count;
	gsio_clip *clips;          size_t clips_count; /**< clips of meshes[0]'s frames */
	gsio_joint *joints;        size_t joints_count;
	gsio_skel_anim *animations; size_t animations_count;
	gsio_camera *cameras;      size_t cameras_count;
	gsio_terrain *terrain;     /**< NULL unless a terrain */
	const char **warnings;     size_t warnings_count;
	/** Counts as stored in the source file, before welding. */
	struct {
		size_t vertices;   /**< 3D vertices (MDL numverts, HMP numverts, MD5 verts) */
		size_t triangles;
		size_t uvs;        /**< MDL skin vertices */
	} source;
} gsio_scene;

/** Frees a scene and everything it owns. NULL is fine. */
void gsio_scene_free(gsio_scene *scene);

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
const gsio_importer *const *gsio_importers(void);

/** The importer for these bytes: by magic first, then by extension. NULL if none. */
const gsio_importer *gsio_find_importer(const uint8_t *head, size_t head_size, const char *path);

/** Loads a scene from memory / from a file. NULL on failure, with err set. */
gsio_scene *gsio_load_memory(const uint8_t *data, size_t size, const char *path,
                             const gsio_opts *opts, gsio_error *err);
gsio_scene *gsio_load_file(const char *path, const gsio_opts *opts, gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
