/* gsio_assimp: gsio's importers inside Assimp, and the conversions between
 * a gsio_scene and an aiScene (libgsio_assimp, CMake target gsio::assimp).
 *
 * Works with a stock libassimp (Debian 12's 5.2.5, Debian 13's 5.4.3) and is linked into the
 * patched Assimp of assimp_patch/build-assimp.sh. The C core (libgsio)
 * stays C; this library is the only C++ part of gsio.
 *
 * An Assimp program registers gsio's loaders in two lines:
 *
 *     Assimp::Importer importer;
 *     gsio_assimp_register(importer);   // then importer.ReadFile(...) as usual
 *
 * C programs call gsio_ai_import_file() / gsio_ai_release_import() instead of
 * aiImportFile() / aiReleaseImport().
 *
 * gsio's writers are Assimp export formats too ("gsio_mdl5", "gsio_mdl7", "gsio_hmp5",
 * "gsio_md5"), registered in one line:
 *
 *     Assimp::Exporter exporter;
 *     gsio_assimp_register_exporters(exporter);
 *     exporter.Export(scene, "gsio_mdl5", "out.mdl");
 *
 * (C: gsio_ai_export_scene()). Each converts the aiScene with
 * gsio_scene_from_aiscene() (below), runs gsio's writer into memory and
 * writes the file(s) through the Exporter's IOSystem; gsio's warnings go to
 * Assimp's DefaultLogger. gsio_md5 writes the .md5mesh at the path and the
 * .md5anim files (and PNGs of embedded textures) beside it, named after its
 * stem. A scene a writer refuses makes Export() fail: with the stock
 * libassimp, whose DeadlyExportError cannot be constructed from outside,
 * GetErrorString() may not carry gsio's message; gsio_ai_get_error_string()
 * does, and Assimp's logger gets it as an error.
 *
 * What gsio's aiScene holds (gsio scene -> aiScene):
 * - axes: mesh vertices keep the file's axes (Z up, X forward); the root
 *   node "gsio:root" turns them to Assimp's Y up with the rotation
 *   (x, y, z) -> (x, z, -y), the same as Assimp's own MDL, HMP and MD5
 *   loaders, so a program sees models the way it saw them before;
 * - one aiNode per gsio node (names made unique with "#N" when they are
 *   not), its TRS as mTransformation; a node placing a mesh lists the
 *   aiMeshes of that mesh;
 * - one aiMesh per mesh part (its material; the part's vertices, compacted
 *   when the mesh has several parts), all named like the gsio mesh; UV v is
 *   flipped to Assimp's bottom-left origin;
 * - a mesh with 2 or more morph frames: every frame as an aiAnimMesh
 *   (absolute positions and normals, mName = frame name, method
 *   MORPH_RELATIVE as Assimp's glTF importer does) and each MORPH channel as
 *   an aiMeshMorphAnim named like the node that places the mesh (as
 *   Assimp's glTF importer names it; Qt 3D's Assimp plugin needs that),
 *   one key per frame (the frame index with weight 1, or the blend weights
 *   that are not zero);
 * - images as embedded PNG aiTextures (mHeight 0, achFormatHint "png",
 *   mFilename = image name) referenced as "*N"; an image that is only a
 *   reference keeps its uri as the texture path;
 * - skins: every joint of a skinned mesh's skin is an aiBone of each of its
 *   aiMeshes (offset matrix = inverse bind matrix; zero weights are left
 *   out; a bone without weights has an empty, non-null weight array);
 * - a scene without meshes (.md5anim) has AI_SCENE_FLAGS_INCOMPLETE set;
 * - animations: one aiAnimation each (mTicksPerSecond = fps, one key per
 *   frame at tick k), node channels merged per node into aiNodeAnim (a path
 *   without a channel gets one key of the node's rest value), MORPH channels
 *   as aiMeshMorphAnim; FOV channels are not representable and are left out;
 * - cameras and lights: one per node placing one, named like the node,
 *   looking along +X with +Z up (mHorizontalFOV is Assimp's half angle;
 *   spot cones are Assimp's full angles);
 * - extras: scene, node, mesh and material extras as aiMetadata (ints as
 *   int32 when they fit else double, 3 floats as aiVector3D, other float
 *   lists as a nested aiMetadata "0", "1", ...); the scene metadata also has
 *   "SourceAsset_Format" and "gsio:warnings".
 *
 * Errors: a file gsio cannot read makes Importer::ReadFile fail with
 * GetErrorString() = gsio's formatted message (gsio_error_format).
 */
#ifndef GSIO_ASSIMP_H
#define GSIO_ASSIMP_H

#include "gsio.h"

/* -- Import properties (Importer::SetPropertyInteger/Float/String), read by
 *    gsio's loaders in SetupProperties. */

/** float: frame rate of vertex-animation clips (gsio_opts.fps); default 10. */
#define GSIO_AI_PROP_FPS "GSIO_FPS"
/** string: a .pcx/.raw/.lmp palette for 8-bit skins, opened through the
 *  program's IOSystem (gsio_opts.palette); default: gsio's built-in palette. */
#define GSIO_AI_PROP_PALETTE "GSIO_PALETTE"
/** string: MD5: ';'-separated .md5anim paths to load instead of the sibling
 *  animations (gsio_opts.anim_paths; relative paths are relative to the
 *  current directory of the IOSystem, as Assimp opens them). */
#define GSIO_AI_PROP_ANIMS "GSIO_ANIMS"
/** int: non-zero keeps only the base pose (GSIO_OPT_NO_ANIMATION). */
#define GSIO_AI_PROP_NO_ANIMATION "GSIO_NO_ANIMATION"
/** int: memory limit of one load in MiB (gsio_opts.memory_limit); 0: 2 GiB. */
#define GSIO_AI_PROP_MEMORY_LIMIT_MB "GSIO_MEMORY_LIMIT_MB"

/* -- Export formats and their properties (Assimp::ExportProperties). */

#define GSIO_AI_EXPORT_MDL5 "gsio_mdl5" /**< MDL5 (.mdl) */
#define GSIO_AI_EXPORT_MDL7 "gsio_mdl7" /**< MDL7 (.mdl) with bones, for A7/A8 */
#define GSIO_AI_EXPORT_HMP5 "gsio_hmp5" /**< HMP5 (.hmp) */
#define GSIO_AI_EXPORT_MD5 "gsio_md5"   /**< .md5mesh + .md5anim */
/** int: MDL7: non-zero stores skins as texture file names. */
#define GSIO_AI_EXPORT_SKIN_EXTERNAL "GSIO_SKIN_EXTERNAL"
/** string: MDL5/MDL7/HMP5 skin encoding: auto (default), pal8, 565, 4444, 888, 8888. */
#define GSIO_AI_EXPORT_SKIN_FORMAT "GSIO_SKIN_FORMAT"
/** int: non-zero stores three smaller mip levels (MDL5, HMP5). */
#define GSIO_AI_EXPORT_MIPMAPS "GSIO_MIPMAPS"
/** int: non-zero dithers when reducing colours (MDL5, HMP5). */
#define GSIO_AI_EXPORT_DITHER "GSIO_DITHER"
/** float: MDL5: rate at which skeletal animation is baked to frames; MDL7:
 *  rate animations are resampled at; 0: their own. */
#define GSIO_AI_EXPORT_BAKE_FPS "GSIO_BAKE_FPS"
/** float: HMP5: distance between vertices; 0: the source's. */
#define GSIO_AI_EXPORT_CELL_SIZE "GSIO_CELL_SIZE"
/** int: MD5: non-zero writes the bind pose only (no .md5anim; a morph-
 *  animated scene is then accepted). */
#define GSIO_AI_EXPORT_NO_ANIMATION "GSIO_NO_ANIMATION"
/** float: rate at which Assimp node animations are resampled (gsio_ai_opts.fps). */
#define GSIO_AI_EXPORT_FPS "GSIO_FPS"

struct aiScene;

#ifdef __cplusplus
#include <assimp/Exporter.hpp>

#include <vector>
namespace Assimp {
class Importer;
class BaseImporter;
} // namespace Assimp

/** Puts gsio's MDL, HMP and MD5 loaders ahead of Assimp's own: unregisters
 *  Assimp's MDL, HMP and MD5 loaders, registers gsio's, then registers
 *  Assimp's again, so they still serve what gsio's refuse. gsio's loaders
 *  claim a file by its magic only, never by its extension: Half-Life
 *  (IDST, IDSQ) and Quake (IDPO) MDL files and anything else named .mdl,
 *  .hmp or .md5mesh go to Assimp's loaders. The importer owns the loaders
 *  afterwards. */
GSIO_API void gsio_assimp_register(Assimp::Importer &importer);

/** Appends new instances of gsio's loaders (MDL, HMP, MD5), for Assimp's
 *  GetImporterInstanceList() in the patched build (Assimp deletes them). */
GSIO_API void gsio_assimp_append_importers(std::vector<Assimp::BaseImporter *> &out);

/** Registers gsio's export formats (gsio_mdl5, gsio_mdl7, gsio_hmp5, gsio_md5) with an
 *  Exporter. Registering twice is harmless (Assimp refuses a known id). */
GSIO_API void gsio_assimp_register_exporters(Assimp::Exporter &exporter);

/** Appends gsio's export format entries, for Assimp's setupExporterArray()
 *  in the patched build (one line there: gsio_assimp_append_exporters(exporters);). */
GSIO_API void gsio_assimp_append_exporters(std::vector<Assimp::Exporter::ExportFormatEntry> &out);

extern "C" {
#endif

/** Fills `out` (a freshly constructed, empty aiScene) from a gsio scene as
 *  described above. Returns 0, or -1 with err set; `out` then holds a
 *  partial scene that its destructor frees. */
GSIO_API GSIO_NODISCARD int gsio_scene_to_aiscene(const gsio_scene *scene, struct aiScene *out,
                                                  gsio_error *err);

/** Options of gsio_scene_from_aiscene(). A zeroed struct gives the defaults. */
typedef struct gsio_ai_opts {
	gsio_opts base;   /**< allocator and memory limit of the new scene */
	/** Rate at which node animations are resampled (one key per frame);
	 *  0: from the animation's keys (ticks per second over the smallest
	 *  step between two keys, rounded, 1..240), 30 when it has none. */
	float fps;
	/** The aiScene comes from glTF: undo gsio's glTF axes ((x,y,z)_gltf =
	 *  (y,z,x), front +Z to +X forward) instead of the (x,z,-y) above, so
	 *  that a GLB gsio wrote (or Blender exported) comes back facing +X. */
	bool gltf_axes;
} gsio_ai_opts;

/** A new gsio scene from an aiScene, built with the public builder, so any
 *  writer takes what Assimp reads: nodes (pre-order; Assimp's Y up is
 *  turned back to gsio's Z up on the root's transform: when the root holds
 *  exactly the rotation above (gsio's loaders, Assimp's MDL/HMP/MD5) by its
 *  inverse, so the file's axes come back (and a "gsio:root" node is
 *  dropped); any other scene is taken in glTF's convention, front +Z, which
 *  becomes gsio's front +X: gsio (x, y, z) = Assimp (z, x, y), the inverse
 *  of gsio's glTF writer, so a model made in Blender facing the front faces
 *  forward in the engine), the meshes of one node merged
 *  into one gsio mesh with one part each (when their morph targets and
 *  skinning agree, else one child node per mesh), triangles only (polygons
 *  fanned, points and lines dropped with a warning), materials, embedded
 *  textures decoded to RGBA (PNG, JPEG, ... and raw BGRA texels), external
 *  textures as uri images, bones as a skin with joint nodes, node animations
 *  resampled at a rate from the animation's first key (frame 0 = the first
 *  key, not tick 0: Blender's glTF exporter starts at 1/fps seconds), morph
 *  animations as MORPH channels, cameras, lights,
 *  metadata as extras. The result passes gsio_scene_validate(). NULL on
 *  failure with err set. */
GSIO_API gsio_scene *gsio_scene_from_aiscene(const struct aiScene *ai, const gsio_ai_opts *opts,
                                             gsio_error *err);

/** aiImportFile() with gsio's loaders registered: a scene to release with
 *  gsio_ai_release_import(), or NULL (gsio_ai_get_error_string() says why). */
GSIO_API const struct aiScene *gsio_ai_import_file(const char *path, unsigned int flags);
GSIO_API void gsio_ai_release_import(const struct aiScene *scene);
/** Exports an aiScene with one of gsio's format ids (or any of Assimp's),
 *  aiExportScene() with gsio's exporters registered; preprocessing: aiProcess_*
 *  steps Assimp runs on its copy first (0 is fine). 0, or -1 with
 *  gsio_ai_get_error_string() saying why. */
GSIO_API int gsio_ai_export_scene(const struct aiScene *scene, const char *format_id, const char *path,
                                  unsigned int preprocessing);
/** The last failure of gsio_ai_import_file() or gsio_ai_export_scene() in
 *  this thread ("" if none). */
GSIO_API const char *gsio_ai_get_error_string(void);

#ifdef __cplusplus
}
#endif
#endif
