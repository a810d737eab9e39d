/* gsio glTF 2.0 writer (part of libgsio): turns a neutral gsio_scene (scene v2)
 * into a GLB file, or a .gltf JSON document with a .bin buffer and one .png
 * per image. Link libgsio (CMake gsio::gsio, pkg-config gsio; the names
 * gsio::gsio_gltf and gsio_gltf give the same library).
 *
 * What goes where (see blender_bridge/README.md for the reasons):
 * - the scene is checked with gsio_scene_validate() first; an invalid scene
 *   is refused with the validator's message (GSIO_ERR_ARGUMENT);
 * - every scene node -> one glTF node (same index, TRS, children), the roots
 *   form the one glTF scene; a mesh placed by several nodes is written once;
 * - every mesh -> one glTF mesh with one primitive per part (shared
 *   attribute accessors: POSITION, NORMAL, TEXCOORD_0, JOINTS_n/WEIGHTS_n);
 *   a mesh with 2 or more morph frames gets one morph target per frame
 *   (dense POSITION and NORMAL deltas; names in mesh.extras.targetNames), a
 *   mesh with 0 or 1 frames is plain;
 * - every skin -> a glTF skin (joints are nodes, inverse bind matrices from
 *   the scene); a skinned mesh's nodes get "skin";
 * - every image -> one PNG (RGBA8, or RGB8 when fully opaque), or the PNG or
 *   JPEG file it came from as it is (gsio_image.file_data: also the only
 *   form of an image loaded with GSIO_OPT_NO_PIXELS); an image that is only
 *   a reference keeps its uri beside a .gltf and is embedded in a GLB when
 *   it is a readable PNG or JPEG (else left out with a warning);
 * - every material -> pbrMetallicRoughness (metallic 0, roughness 1), with
 *   sampler wrap modes, alpha mode, doubleSided, emissive and
 *   KHR_materials_unlit; material, image and texture names are prefixed
 *   with the output stem ("<model>_skin0"). Materials that no mesh uses
 *   (extra MDL skins) become KHR_materials_variants variants;
 * - cameras -> perspective cameras, lights -> KHR_lights_punctual, both with
 *   the change of frame from the scene's +X-forward to glTF's -Z;
 * - every animation -> one glTF animation (translation, rotation, scale,
 *   morph weights; field of view per frame in the camera's extras; cuts as
 *   jumps);
 * - extras of the scene, nodes, meshes, materials, images, lights and
 *   animations -> glTF extras.
 *
 * The writer never reads the scene's arena allocator; its own memory is
 * malloc'd. It is re-entrant: several threads may write different (or the
 * same, read-only) scenes at once. It prints nothing. */
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
	GSIO_GLTF_NO_REPLACE = 1u << 3,
	/** Store morph-target deltas as sparse accessors (and an accessor
	 *  without a buffer view for a target that moves nothing): smaller, but
	 *  Godot 3.2.3 reads such accessors as garbage or hangs. Default: dense. */
	GSIO_GLTF_SPARSE_MORPH = 1u << 4,
	/** Compact output with KHR_mesh_quantization (in extensionsUsed and
	 *  extensionsRequired): normals as normalized BYTE, UVs in 0..1 as
	 *  normalized UNSIGNED_SHORT; on an unskinned mesh placed only by leaf
	 *  nodes without TRS animation, positions as normalized SHORT and
	 *  morph-target POSITION deltas as normalized BYTE, dequantised by the
	 *  placing nodes' translation and (uniform) scale, and no morph-target
	 *  NORMAL deltas (Blender ignores them). Blender 3.4+ reads it; the
	 *  default output stays float. */
	GSIO_GLTF_COMPACT = 1u << 5,
	/** Write every image of the scene, also those no material names (a
	 *  terrain's skins past its colour and detail maps), unencoded
	 *  otherwise. Default: only the images a material uses (a material no
	 *  mesh uses is still written, as a KHR_materials_variants variant). */
	GSIO_GLTF_ALL_IMAGES = 1u << 6
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
	/** gsio_gltf_write_file() only: bytes of binary data held in memory
	 *  before they go to disk. A GLB's binary chunk comes after its JSON,
	 *  which is known last, so what is beyond this goes through an unnamed
	 *  temporary file and is copied into the GLB in the kernel; a .bin
	 *  (SEPARATE) is written as it is made. 0: 32 MiB for a GLB, 256 KiB
	 *  for a .bin. */
	size_t buffer_memory;
	/** Threads the write may use: 0 or 1, the caller's only; 2 or more,
	 *  images are encoded on one more thread (started for the call, on
	 *  another CPU than the caller's, ended before it returns) while the
	 *  meshes and animations are written, when there are enough pixels to
	 *  be worth it. The output is the same bytes either way. */
	unsigned threads;
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
GSIO_API GSIO_NODISCARD int gsio_gltf_write(const gsio_scene *scene, const gsio_gltf_opts *o,
                                   gsio_gltf_output *out, gsio_error *err);

/** Frees what gsio_gltf_write() put in out and zeroes it. NULL is fine. */
GSIO_API void gsio_gltf_output_free(gsio_gltf_output *out);

/** Writes the scene to `path` and, in SEPARATE mode, its .bin and .png files
 *  beside it, the binary data as it is produced (at most 256 KiB of it in
 *  memory; a GLB's binary chunk goes through an unnamed temporary file in
 *  the same directory). The bytes are those gsio_gltf_write() makes. A path ending in ".gltf" selects SEPARATE mode, ".glb" the
 *  binary container; any other ending follows o->flags. Each file is written
 *  to a temporary name in the same directory, and only when every one is
 *  written are they renamed into place (the .gltf last, so it never refers
 *  to missing files; one that cannot be placed takes back the others,
 *  old files included: gsioi_place_commit_all()). With
 *  GSIO_GLTF_NO_REPLACE an existing file is left untouched and the call
 *  fails (the error names that file and says it exists). Errors name the
 *  final paths, never a temporary one. `warnings` (may be NULL) receives the writer's warnings; free them
 *  with gsio_gltf_output_free(). Returns 0 or non-zero with err set. */
GSIO_API GSIO_NODISCARD int gsio_gltf_write_file(const gsio_scene *scene, const char *path,
                                        const gsio_gltf_opts *o, gsio_gltf_output *warnings,
                                        gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
