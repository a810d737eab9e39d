/* gsio writers of GameStudio formats from any scene: MDL5 (models), MDL7
 * (A7/A8 models with bones) and HMP5 (terrain). Each builds the codec's file struct (gsio_mdl.h, gsio_mdl7.h, gsio_hmp.h)
 * from the scene and let the codec encode it, so what they write is exactly
 * what the decoder reads back.
 *
 * Shape shared by both writers:
 * - the scene is checked with gsio_scene_validate() first; an invalid scene
 *   is refused with the validator's message (GSIO_ERR_ARGUMENT);
 * - every byte the writer allocates (its work and the output) goes through
 *   opts->allocator (malloc/free when NULL), bounded by opts->memory_limit;
 * - gsio_*_write() returns the file in *out (free it with
 *   gsio_write_free(opts->allocator, *out)); gsio_*_write_file() places it
 *   atomically with gsioi_place_files() (nothing is left on failure);
 * - what the format cannot hold exactly (several meshes merged, several
 *   materials, skeletal animation baked) is reported through opts->warn;
 * - nothing is printed. */
#ifndef GSIO_WRITE_H
#define GSIO_WRITE_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Called once per warning (message without a trailing newline). */
typedef void (*gsio_warn_fn)(void *user, const char *message);

/** How skins (and an HMP colour map) are stored. */
typedef enum gsio_skin_encoding {
	GSIO_SKIN_AUTO = 0,  /**< the image's source_format when it is one of the
	                          below (a round trip stays pixel-exact), else 8888
	                          when some alpha < 255, else 888 */
	GSIO_SKIN_PAL8,      /**< 8-bit against opts->palette (default palette if NULL) */
	GSIO_SKIN_RGB565,
	GSIO_SKIN_ARGB4444,
	GSIO_SKIN_BGR888,
	GSIO_SKIN_BGRA8888
} gsio_skin_encoding;

// -- MDL5

/** MDL5 writer options. A zeroed struct (or NULL) gives the defaults. */
typedef struct gsio_mdl5_write_opts {
	const gsio_allocator *allocator; /**< NULL: malloc/free */
	size_t memory_limit;      /**< bytes the write may allocate; 0: 2 GiB */
	gsio_skin_encoding skin_encoding;
	const uint8_t *palette;   /**< 768 bytes RGB for GSIO_SKIN_PAL8; NULL: built-in */
	bool dither;              /**< Floyd-Steinberg when reducing colours; default off */
	bool mipmaps;             /**< store three smaller mip levels (type | 8) */
	bool byte_frames;         /**< 8-bit byte-packed frames (type 0) instead of
	                               16-bit word-packed (type 2, the default) */
	float bake_fps;           /**< skeletal animation sampled at this rate; 0: the
	                               animation's own fps */
	uint32_t max_skin_size;   /**< widest/tallest skin accepted; 0: 4096 */
	bool no_replace;          /**< _write_file: fail if the file exists */
	gsio_warn_fn warn;        /**< NULL: warnings are dropped */
	void *warn_user;
} gsio_mdl5_write_opts;

/** Writes the scene as an MDL5 file into *out (allocator's memory).
 *  Returns 0, or non-zero with err set and *out NULL. */
GSIO_API GSIO_NODISCARD int gsio_mdl5_write(const gsio_scene *scene, const gsio_mdl5_write_opts *opts,
                                            uint8_t **out, size_t *out_size, gsio_error *err);
/** The same, placed atomically at path. */
GSIO_API GSIO_NODISCARD int gsio_mdl5_write_file(const gsio_scene *scene, const char *path,
                                                 const gsio_mdl5_write_opts *opts, gsio_error *err);

// -- MDL7

/** MDL7 writer options. A zeroed struct (or NULL) gives the defaults.
 *
 *  What is written (exporters/README.md has the details): the A8 layout
 *  (36-byte bones, 26-byte triangles and vertices with float normals); one
 *  group per mesh placement; the scene's materials as global skins; the
 *  joints of the placed meshes' skins as bones (bind pose: the translation
 *  of each inverse bind's inverse), weights in a deformer (at most
 *  max_weights a vertex); one frame per animation key named "<clip><k>"
 *  with a matrix per bone and the vertices that move without bones
 *  (morph frames, animated unskinned meshes) listed. */
typedef struct gsio_mdl7_write_opts {
	const gsio_allocator *allocator; /**< NULL: malloc/free */
	size_t memory_limit;      /**< bytes the write may allocate; 0: 2 GiB */
	gsio_skin_encoding skin_encoding; /**< AUTO also keeps a DDS image as DDS and
	                                       the source's mip levels */
	const uint8_t *palette;   /**< 768 bytes RGB for GSIO_SKIN_PAL8; NULL: built-in */
	bool dither;
	bool mipmaps;             /**< store three smaller mip levels (type | 8) */
	bool skin_external;       /**< every skin as a texture file name (type 7):
	                               the image's uri or source file's base name,
	                               else "<image name>.png"; the file itself is
	                               not written */
	float bake_fps;           /**< animations resampled at this rate; 0: their own keys */
	uint32_t max_weights;     /**< influences kept a vertex; 0: 4 (the engine's most) */
	uint32_t max_skin_size;   /**< widest/tallest skin accepted; 0: 16384 */
	bool no_replace;          /**< _write_file: fail if the file exists */
	gsio_warn_fn warn;        /**< NULL: warnings are dropped */
	void *warn_user;
} gsio_mdl7_write_opts;

/** The most bones an MDL7 holds (a vertex names its bone in 16 bits, 0xFFFF
 *  being none). */
#define GSIO_MDL7_MAX_BONES 65535u

/** Writes the scene as an MDL7 file into *out (allocator's memory).
 *  Returns 0, or non-zero with err set and *out NULL. */
GSIO_API GSIO_NODISCARD int gsio_mdl7_write(const gsio_scene *scene, const gsio_mdl7_write_opts *opts,
                                            uint8_t **out, size_t *out_size, gsio_error *err);
/** The same, placed atomically at path (nothing is left on failure). */
GSIO_API GSIO_NODISCARD int gsio_mdl7_write_file(const gsio_scene *scene, const char *path,
                                                 const gsio_mdl7_write_opts *opts, gsio_error *err);

// -- HMP5

/** HMP5 writer options. A zeroed struct (or NULL) gives the defaults. */
typedef struct gsio_hmp5_write_opts {
	const gsio_allocator *allocator; /**< NULL: malloc/free */
	size_t memory_limit;      /**< 0: 2 GiB */
	gsio_skin_encoding skin_encoding; /**< of the colour map */
	const uint8_t *palette;   /**< for GSIO_SKIN_PAL8 */
	bool dither;
	bool mipmaps;
	uint32_t columns, rows;   /**< grid size; 0: the source's (resampled bilinearly otherwise) */
	float cell_size;          /**< distance between vertices; 0: the source's (1 for an image) */
	float height_min, height_max; /**< heights rescaled into this range when
	                                   min < max; else the source's heights (an
	                                   image: 0..255 per 8-bit step scaled 1) */
	bool no_replace;
	gsio_warn_fn warn;
	void *warn_user;
} gsio_hmp5_write_opts;

/** Writes the scene's terrain (scene->terrain, or else the first mesh when
 *  it is a regular grid) as an HMP5 file into *out. */
GSIO_API GSIO_NODISCARD int gsio_hmp5_write(const gsio_scene *scene, const gsio_hmp5_write_opts *opts,
                                            uint8_t **out, size_t *out_size, gsio_error *err);
GSIO_API GSIO_NODISCARD int gsio_hmp5_write_file(const gsio_scene *scene, const char *path,
                                                 const gsio_hmp5_write_opts *opts, gsio_error *err);

/** A terrain scene from a heightmap image (PNG 8- or 16-bit grayscale, or
 *  anything stb_image reads; row 0 = the +y edge) and an optional colour map
 *  image (NULL, 0: none), to hand to gsio_hmp5_write(). Size, cell size and
 *  height range come from opts as documented there. NULL with err set. */
GSIO_API gsio_scene *gsio_hmp5_scene_from_heightmap(const uint8_t *height_image, size_t height_size,
                                                    const uint8_t *color_image, size_t color_size,
                                                    const gsio_hmp5_write_opts *opts, gsio_error *err);

/** Frees what a writer returned in *out. NULL is fine. */
GSIO_API void gsio_write_free(const gsio_allocator *allocator, void *data);

#ifdef __cplusplus
}
#endif
#endif
