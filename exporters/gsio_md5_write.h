/* gsio MD5 writer: id Tech 4 .md5mesh, .md5anim and .md5camera (version 10)
 * from any scene. It builds the codec's file structs (gsio_md5.h) from the
 * scene and lets the codec print them, so what it writes is exactly what the
 * decoder reads back.
 *
 * What goes where:
 * - joints: every joint node of the skins that the meshes use, plus every
 *   node placing an unskinned mesh (it becomes a joint carrying its mesh
 *   rigidly), ordered by node index (parents first); a joint's parent is its
 *   nearest ancestor node that is a joint. A mesh that no node places gets
 *   an added root joint "origin". Bind pose in model space: the joint
 *   node's world matrix at rest (rigid part), nodes above the skeleton
 *   included (an importer's axis-change root), the same space the md5anim
 *   frames are in;
 * - md5mesh: one `mesh { }` per mesh part (per placement for an unskinned
 *   mesh placed by several nodes): vertices the part uses, triangles back
 *   to clockwise, UVs as (s, t), shader = the material's shader string, else
 *   its texture (the image's external file, or a PNG the writer adds beside
 *   the mesh, "<stem>_<image>.png"), else the material's name; weights from
 *   the skin, every one (any count per vertex), positions in joint space:
 *   the vertex placed by that joint at rest (its world matrix times its
 *   inverse bind, glTF's skinning), so the md5mesh shows the scene's
 *   skinned rest pose;
 *   biases that do not sum to 1 (within 1e-4) are normalised (a warning);
 * - md5anim: one per animation that moves a joint or an ancestor of one,
 *   sampled at its frames: a joint's pose per frame is its node's world
 *   pose made relative to its parent joint (scale dropped, a warning), the
 *   baseframe is frame 0, a component is flagged (animated) only when some
 *   frame differs from frame 0 by more than 1e-6; bounds per frame from the
 *   skinned vertices; frameRate = the animation's fps;
 * - md5camera: one per animation that moves a camera node (or its fov):
 *   the node's world position and orientation per frame (the camera looks
 *   along +X in both), the fov channel (else the camera's fov), the cuts;
 *   a scene with cameras but no mesh gets a one-frame file for each camera
 *   that no animation moves;
 * - refused (GSIO_ERR_UNSUPPORTED): morph (vertex) animation, unless
 *   GSIO_MD5_WRITE_NO_ANIMATION writes the base pose only; a scene with
 *   neither a mesh nor a camera.
 *
 * File names, from the stem (the output path without .md5mesh): the mesh
 * "<stem>.md5mesh"; an animation "<stem>_<anim>.md5anim" ("<stem>.md5anim"
 * when the animation is called like the stem, as a single .md5mesh +
 * .md5anim pair loads); a camera "<stem>_<anim>.md5camera", or
 * "<stem>.md5camera" when it is the only file. Names are made safe for a
 * file system ('/' and the like become '_') and unique.
 *
 * Shape shared with the other writers (gsio_write.h): the scene is checked
 * with gsio_scene_validate() first; the structs are built in an arena through
 * opts->allocator, bounded by opts->memory_limit (the text itself is printed
 * by the codec into malloc'd memory); files are placed atomically together
 * (gsioi_place_files(): nothing is left on failure); warnings go to
 * opts->warn; nothing is printed. */
#ifndef GSIO_MD5_WRITE_H
#define GSIO_MD5_WRITE_H

#include "gsio.h"
#include "gsio_md5.h"
#include "gsio_write.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Writer flags (gsio_md5_write_opts.flags). */
enum {
	/** The bind pose only: no .md5anim or .md5camera; morph animation is
	 *  then not an error (frame 0 is written). */
	GSIO_MD5_WRITE_NO_ANIMATION = 1u << 0,
	/** _write_file: fail (GSIO_ERR_IO) if any output file exists. */
	GSIO_MD5_WRITE_NO_REPLACE = 1u << 1,
	/** Do not add PNG files for embedded images: such a shader is then the
	 *  image's name. */
	GSIO_MD5_WRITE_NO_TEXTURES = 1u << 2,
	/** Only the .md5camera files (gsio_md5_write_file() sets it for a path
	 *  ending in .md5camera). */
	GSIO_MD5_WRITE_CAMERAS_ONLY = 1u << 3
};

/** MD5 writer options. A zeroed struct (or NULL) gives the defaults. */
typedef struct gsio_md5_write_opts {
	const gsio_allocator *allocator; /**< NULL: malloc/free */
	size_t memory_limit;      /**< bytes the structs may take; 0: 2 GiB */
	uint32_t flags;           /**< GSIO_MD5_WRITE_* */
	const char *commandline;  /**< the files' commandline string; NULL: "gsio <version>" */
	gsio_warn_fn warn;        /**< NULL: warnings are dropped */
	void *warn_user;
} gsio_md5_write_opts;

/** One file of the output, in memory. */
typedef struct gsio_md5_out_file {
	char *name;               /**< file name without directory, e.g. "bob_walk.md5anim" (malloc'd) */
	uint8_t *data;            /**< malloc'd bytes */
	size_t size;
	gsio_md5_kind kind;       /**< GSIO_MD5_UNKNOWN for an added texture (PNG) */
} gsio_md5_out_file;

/** What gsio_md5_write() produced: the .md5mesh first (when there is one),
 *  then the .md5anim, .md5camera and .png files. */
typedef struct gsio_md5_output {
	gsio_md5_out_file *files;
	size_t files_count;
} gsio_md5_output;

/** Writes the scene's files into memory, named after `stem` (NULL:
 *  "model"). Returns 0, or non-zero with err set and out empty. */
GSIO_API GSIO_NODISCARD int gsio_md5_write(const gsio_scene *scene, const char *stem,
                                           const gsio_md5_write_opts *opts, gsio_md5_output *out,
                                           gsio_error *err);
/** Frees what gsio_md5_write() put in out and zeroes it. NULL is fine. */
GSIO_API void gsio_md5_output_free(gsio_md5_output *out);

/** Writes the scene beside `path` (its folder, and its name without the
 *  .md5mesh/.md5anim/.md5camera extension as the stem), all files placed
 *  in one gsioi_place_files() call. A path ending in .md5camera writes only
 *  the cameras. Returns 0 or non-zero with err set (nothing is left). */
GSIO_API GSIO_NODISCARD int gsio_md5_write_file(const gsio_scene *scene, const char *path,
                                                const gsio_md5_write_opts *opts, gsio_error *err);

// -- The file structs, for programs that want them (tests, other writers)

/** The .md5mesh struct of a scene (NULL with err set); free with
 *  gsio_md5_mesh_free(). Texture files are not made here: a shader of an
 *  embedded image is its name. */
GSIO_API gsio_md5_mesh *gsio_md5_mesh_from_scene(const gsio_scene *scene,
                                                 const gsio_md5_write_opts *opts, gsio_error *err);

#ifdef __cplusplus
}
#endif
#endif
