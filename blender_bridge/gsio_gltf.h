/* gsio glTF 2.0 writer: turns a neutral gsio_scene into a GLB file, or a
 * .gltf JSON document with a .bin buffer and one .png per image.
 *
 * What goes where (see blender_bridge/README.md for the reasons):
 * - every gsio_mesh -> one glTF mesh with one primitive (indices, POSITION,
 *   NORMAL, TEXCOORD_0, JOINTS_n/WEIGHTS_n) and one node at the scene root;
 * - every morph frame -> one morph target (POSITION and NORMAL deltas from
 *   the base pose), names in mesh.extras.targetNames; every clip -> one
 *   animation of the node's `weights`;
 * - every image -> one PNG (RGBA8, or RGB8 when fully opaque, top row first);
 *   every material -> a pbrMetallicRoughness material (metallic 0,
 *   roughness 1). Materials that no mesh uses (extra MDL skins) become
 *   KHR_materials_variants variants, so nothing is dropped;
 * - joints -> a node tree and one skin with inverse bind matrices from the
 *   world bind pose; every skeletal animation -> one animation;
 * - every camera -> a node with a perspective camera and its animation.
 *
 * The writer never reads the scene's arena allocator; its own memory is
 * malloc'd. It is re-entrant: several threads may write different (or the
 * same, read-only) scenes at once. */
#ifndef GSIO_GLTF_H
#define GSIO_GLTF_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Writer flags (gsio_gltf_opts.flags). */
enum {
	/** Write a .gltf JSON + .bin + .png files instead of one .glb. */
	GSIO_GLTF_SEPARATE = 1u << 0,
	/** Keep the scene's axes (Z up, X forward) instead of converting to glTF's
	 *  Y up with the front facing +Z. */
	GSIO_GLTF_KEEP_AXES = 1u << 1,
	/** Write the base pose only: no morph targets, no animations. */
	GSIO_GLTF_NO_ANIMATION = 1u << 2,
	/** gsio_gltf_write_file(): fail (GSIO_ERR_IO) instead of replacing any
	 *  existing output file; nothing is written then. */
	GSIO_GLTF_NO_REPLACE = 1u << 3
};

/** Writer options. A zeroed struct (or NULL) gives the defaults. */
typedef struct gsio_gltf_opts {
	uint32_t flags;        /**< GSIO_GLTF_* */
	float scale;           /**< multiplies every position and translation; 0: 1 */
	/** Stem of the file names: "<name>.glb", or "<name>.gltf", "<name>.bin",
	 *  "<name>_<image>.png". NULL: "model". gsio_gltf_write_file() sets it
	 *  from the path. */
	const char *name;
	const char *generator; /**< asset.generator; NULL: "gsio <version>" */
} gsio_gltf_opts;

/** One file of the output, in memory. */
typedef struct gsio_gltf_file {
	char *name;            /**< file name without directory, e.g. "model.bin" */
	uint8_t *data;         /**< malloc'd bytes */
	size_t size;
} gsio_gltf_file;

/** What gsio_gltf_write() produced. Free with gsio_gltf_output_free(). */
typedef struct gsio_gltf_output {
	/** files[0] is the .glb or the .gltf; then the .bin and the .png files
	 *  it refers to by relative URI (SEPARATE mode only). */
	gsio_gltf_file *files;
	size_t files_count;
	/** Things the glTF could not hold exactly (malloc'd strings). */
	char **warnings;
	size_t warnings_count;
} gsio_gltf_output;

/** Writes the scene into memory. Returns 0 and fills out, or non-zero with
 *  err set (and out left empty). o and err may be NULL. */
GSIO_NODISCARD int gsio_gltf_write(const gsio_scene *scene, const gsio_gltf_opts *o,
                                   gsio_gltf_output *out, gsio_error *err);

/** Frees what gsio_gltf_write() put in out and zeroes it. NULL is fine. */
void gsio_gltf_output_free(gsio_gltf_output *out);

/** Writes the scene to `path` and, in SEPARATE mode, its .bin and .png files
 *  beside it. A path ending in ".gltf" selects SEPARATE mode, ".glb" the
 *  binary container; any other ending follows o->flags. Each file is written
 *  to a temporary name in the same directory and renamed into place (the
 *  .gltf last, so it never refers to missing files). With
 *  GSIO_GLTF_NO_REPLACE an existing file is left untouched and the call
 *  fails. `warnings` (may be NULL) receives the writer's warnings; free them
 *  with gsio_gltf_output_free(). Returns 0 or non-zero with err set. */
GSIO_NODISCARD int gsio_gltf_write_file(const gsio_scene *scene, const char *path,
                                        const gsio_gltf_opts *o, gsio_gltf_output *warnings,
                                        gsio_error *err);

/** Encodes RGBA8 pixels (top row first) as PNG into malloc'd memory: RGB8
 *  when every alpha is 255, RGBA8 otherwise. Returns 0 or non-zero. */
GSIO_NODISCARD int gsio_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height,
                                   uint8_t **png, size_t *png_size, gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
