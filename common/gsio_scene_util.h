/* Scene helpers shared by the vertex-animation importers (MDL, HMP, MDL7):
 * the model's root node, one-part meshes, clips as morph animations, and
 * splitting double-sided faces. Internal; not installed. */
#ifndef GSIO_SCENE_UTIL_H
#define GSIO_SCENE_UTIL_H

#include "gsio_internal.h"

// -- Nodes, parts, materials

/** Appends a root node (identity transform) placing `mesh`, named after the
 *  file: its base name without the extension, or "model" when there is none.
 *  Returns its index, or -1 with err set. The scene's node array is grown by
 *  copying (importers add one or a few). */
GSIO_NODISCARD int32_t gsioi_scene_add_model_node(gsio_scene *s, const char *path, int32_t mesh,
                                                  gsio_error *err);

/** Gives m one part covering all its indices with `material`. */
GSIO_NODISCARD bool gsioi_mesh_one_part(gsio_scene *s, gsio_mesh *m, int32_t material,
                                       gsio_error *err);

/** A material's defaults: white, opaque, no textures (image -1, REPEAT). */
void gsioi_material_defaults(gsio_material *mat);

/** True when all n floats are finite (header scales and offsets from a file
 *  can make positions overflow or NaN; the scene model allows neither). */
bool gsioi_floats_finite(const float *f, size_t n);

// -- Clips

/** Morph animations from the mesh's frame names, one per clip: runs of
 *  frames whose names agree once trailing digits and the separators before
 *  them are cut ("walk0".."walk3" -> "walk"); a stem that returns after other
 *  clips gets ".2", ".3"; a name of digits only gives "anim". Each animation
 *  has one MORPH channel on `node` whose keys are the clip's frame indices.
 *  Nothing is added for a mesh of fewer than 2 frames (no animation there). */
GSIO_NODISCARD bool gsioi_scene_build_clips(gsio_scene *s, const gsio_mesh *m, int32_t node,
                                           float fps, gsio_error *err);

// -- Double-sided faces
//
// Some models store a face twice, once each way round, on the same vertices
// with one normal per vertex: one of the two faces is then lit from behind,
// and importers that merge such pairs (Blender) drop one. Splitting gives the
// face whose normal disagrees with its vertices' normals its own copies of
// the vertices, with the normals negated in every frame.

/** Which vertices a split copies: copy k is vertex copy_of[k], appended as
 *  vertex (original count + k). */
typedef struct gsioi_split_plan {
	size_t pairs;          /**< face pairs split */
	uint32_t *copy_of;     /**< in the temporary arena */
	size_t copies_count;
} gsioi_split_plan;

/** Finds the pairs (two triangles on the same three position indices,
 *  source_vertex when present, in opposite winding) and decides the side of
 *  each from m->positions / m->normals (the first frame), then rewrites the
 *  indices of the faces that get copies (in place) to the copies' numbers.
 *  Temporaries and the plan live in `tmp`. A mesh without normals is left
 *  alone (plan empty). */
GSIO_NODISCARD bool gsioi_split_plan_make(gsio_mesh *m, gsio_arena *tmp, gsioi_split_plan *plan,
                                         gsio_error *err);

/** Moves every per-vertex array of m that is not NULL (uvs, source_vertex,
 *  source_uv, positions and normals, each frame's positions and normals)
 *  into the scene's arena at the new size, with the copies filled (normals
 *  negated), and sets vertex_count. Copies even when the plan is empty, so
 *  an importer can build these arrays in a temporary arena. */
GSIO_NODISCARD bool gsioi_split_plan_apply(gsio_scene *s, gsio_mesh *m,
                                          const gsioi_split_plan *plan, gsio_error *err);

/** Fills the copies of one frame whose first `count` vertices are set. */
void gsioi_split_plan_fill(const gsioi_split_plan *plan, size_t count, float *positions,
                           float *normals);

/** Plan + apply for a mesh already in the scene (frames included). *pairs
 *  gets the number of pairs split. The grown arrays are new allocations in
 *  the scene arena (the old ones stay there until the scene is freed). */
GSIO_NODISCARD bool gsioi_mesh_split_double_sided(gsio_scene *s, gsio_mesh *m, gsio_arena *tmp,
                                                 size_t *pairs, gsio_error *err);

#endif
