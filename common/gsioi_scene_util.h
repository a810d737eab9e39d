/* Scene helpers shared by the vertex-animation importers (MDL, HMP, MDL7):
 * the model's root node, one-part meshes, clips as morph animations, and
 * splitting double-sided faces; and a material's defaults and texture
 * slots, which every part that makes or walks materials uses. Internal;
 * not installed. */
#ifndef GSIOI_SCENE_UTIL_H
#define GSIOI_SCENE_UTIL_H

#include "gsioi_internal.h"

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

/** Sets *mat to a material's defaults, the one source of them (every path
 *  that makes a material starts here, gsio_scene_add_material too): no
 *  name, white, opaque with alpha_cutoff 0.5, no emission, every texture
 *  slot empty (image -1, REPEAT both ways, tiling 1). */
void gsioi_material_defaults(gsio_material *mat);

/** Every texture slot of a gsio_material, the one list of them: X(field)
 *  for each gsio_texture field, in the struct's order. Code that visits
 *  all of a material's textures (defaults, validation, the images the glTF
 *  writer keeps, a level's grafted models) walks this list, so a slot
 *  added to gsio_material is added here once:
 *
 *      #define MARK(f) used[mat->f.image] = true;
 *      GSIOI_MATERIAL_TEXTURES(MARK)
 *      #undef MARK
 */
#define GSIOI_MATERIAL_TEXTURES(X) X(base_color_texture) X(detail_texture) X(lightmap_texture)

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

// -- Welding
//
// A stored triangle corner names a position (a 3D vertex of the file) and a
// texture coordinate; glTF has one attribute set per vertex, so each
// distinct (position, uv) pair becomes one output vertex. The importers
// (MDL2-5, MDL7) keep the pairs in their own records: a corner's two keys
// are read in place, as 16-bit or 32-bit unsigned integers at a fixed
// place in a record per triangle.

/** Where the keys of triangle corners are: corner c's key lies at
 *  base + (c / 3) * stride + (c % 3) * size, an unsigned integer of `size`
 *  bytes (2 or 4) in native byte order. */
typedef struct gsioi_corner_keys {
	const void *base;
	size_t stride;
	unsigned size;
} gsioi_corner_keys;

/** Welds `corners` corners (3 a triangle) by their (vertex, uv) key pairs,
 *  vertex keys < `vertices`, uv keys < `uvs`: indices[c] gets the output
 *  vertex of corner c, numbered in corner order (the first corner of output
 *  vertex o is the first c with indices[c] == o, and comes before the first
 *  corner of o + 1); *count gets the number of output vertices. Linear in
 *  corners + vertices + uvs whatever the keys: corners are bucketed by
 *  vertex (a stable counting sort) and a stamp per uv key finds the repeats
 *  in a bucket. Its tables live in an arena of its own with `tmp`'s
 *  allocator and memory limit, freed before it returns. A key out of range
 *  fails with GSIO_ERR_CORRUPT. */
GSIO_NODISCARD bool gsioi_weld(gsioi_corner_keys vertex_keys, gsioi_corner_keys uv_keys,
                              size_t corners, size_t vertices, size_t uvs, uint32_t *indices,
                              size_t *count, gsio_arena *tmp, gsio_error *err);

// -- Double-sided faces
//
// Some models store a face twice, once each way round, on the same vertices
// with one normal per vertex (trashcan.mdl: all 76 faces, 38 pairs). Kept as
// two faces, the pair is lit wrong whatever the normals: shared normals light
// one side from behind, and two coincident faces with their own normals
// shadow each other in a ray tracer (Cycles renders such a box black).
// glTF's own word for such a surface is a double-sided material: so each pair
// becomes ONE face, the one whose winding agrees with its vertices' normals,
// drawn with a double-sided material. Pairs are found inside each mesh part
// (two faces with different materials stay two faces). Each part becomes its
// single faces, then the kept faces of its pairs in a part of their own with
// a double-sided copy of the part's material ("<name>_double_sided", one per
// material in the scene, marked by the extra "gsio:double_sided_of"). When
// the materials are the mesh's own (MDL3/4/5: its skin and the alternative
// skins) a part whose faces are all pairs keeps its material and turns it
// double-sided instead (a one-part mesh: every material). A writer of a
// format without double-sided materials (MDL) writes each face of such a part
// both ways round again.

/** Folds the pairs of m (two triangles of one part on the same three position
 *  indices, source_vertex when present, in opposite winding), deciding the
 *  side of each from m->positions / m->normals (the first frame).
 *  `shared_materials`: other meshes may use m's materials (MDL7's global
 *  materials), so they are never changed, only copied. Indices and parts are
 *  rewritten in place (per part: single faces first, in their order, then
 *  the kept face of each pair); *pairs gets the number of pairs folded (their
 *  count also goes to the mesh extra "gsio:double_sided_pairs"). Vertices
 *  used only by a dropped face stay (unreferenced). A mesh without normals
 *  is left alone. Temporaries live in `tmp`. */
GSIO_NODISCARD bool gsioi_mesh_fold_double_sided(gsio_scene *s, gsio_mesh *m, gsio_arena *tmp,
                                                bool shared_materials, size_t *pairs,
                                                gsio_error *err);

#endif
