/* gsio MD5 codec: id Tech 4 (Doom 3) .md5mesh, .md5anim and .md5camera,
 * version 10, exactly as stored.
 *
 * decode() parses the text into plain structures and checks every count and
 * index (triangle -> vertex, vertex weights -> weights, weight -> joint,
 * parent -> earlier joint, hierarchy components -> frame data, camera cut ->
 * frame); errors name file:line:column. encode() prints the structures back
 * as text; encode(decode(f)) decodes to equal values (floats are printed with
 * the fewest digits, 6 to 9, that read back to the same float). Comments and
 * layout are not kept.
 *
 * to_scene() builds the neutral scene (see the functions below). The
 * quaternions of MD5 store x, y, z only; w is recomputed with id's
 * convention w = -sqrt(max(0, 1 - x^2 - y^2 - z^2)), and a quaternion is
 * then used as a standard rotation q * v * q^-1. */
#ifndef GSIO_MD5_H
#define GSIO_MD5_H

#include "gsio.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The only version gsio reads and writes (Doom 3, Quake 4, most exporters). */
#define GSIO_MD5_VERSION 10

// -- .md5mesh

/** A joint of the bind-pose skeleton, in object space (not parent-relative). */
typedef struct gsio_md5_joint {
	const char *name;   /**< as written, without the quotes */
	int32_t parent;     /**< index of an earlier joint, or -1 */
	float pos[3];       /**< object-space position */
	float orient[3];    /**< object-space orientation quaternion x, y, z (w implied) */
} gsio_md5_joint;

/** A mesh vertex: texture coordinates and a range of the mesh's weights. */
typedef struct gsio_md5_vert {
	float st[2];        /**< s, t; (0,0) = top-left of the image, t grows downwards */
	uint32_t start;     /**< first weight */
	uint32_t count;     /**< number of weights; start + count <= weights_count */
} gsio_md5_vert;

/** A triangle: three vertex indices, stored clockwise (Doom 3's front faces). */
typedef struct gsio_md5_tri {
	uint32_t v[3];
} gsio_md5_tri;

/** A weight: a joint, how much it counts, and a position in joint space. */
typedef struct gsio_md5_weight {
	uint32_t joint;     /**< index into the file's joints */
	float bias;         /**< share of this weight; a vertex's biases normally sum to 1 */
	float pos[3];       /**< position in the joint's space */
} gsio_md5_weight;

/** One `mesh { }` block. */
typedef struct gsio_md5_submesh {
	const char *shader; /**< material name or texture path as written ("" if none) */
	gsio_md5_vert *verts;     size_t verts_count;
	gsio_md5_tri *tris;       size_t tris_count;
	gsio_md5_weight *weights; size_t weights_count;
} gsio_md5_submesh;

/** A whole .md5mesh file. Everything lives in `arena`. */
typedef struct gsio_md5_mesh {
	gsio_arena *arena;
	int32_t version;          /**< always GSIO_MD5_VERSION */
	const char *commandline;  /**< the exporter's command line, as written */
	gsio_md5_joint *joints;   size_t joints_count;
	gsio_md5_submesh *meshes; size_t meshes_count;
} gsio_md5_mesh;

// -- .md5anim

/** Hierarchy flag bits: which baseframe components a frame replaces. */
enum {
	GSIO_MD5_ANIM_TX = 1, GSIO_MD5_ANIM_TY = 2, GSIO_MD5_ANIM_TZ = 4,
	GSIO_MD5_ANIM_QX = 8, GSIO_MD5_ANIM_QY = 16, GSIO_MD5_ANIM_QZ = 32
};

/** A joint of the animated hierarchy. */
typedef struct gsio_md5_hierarchy {
	const char *name;
	int32_t parent;        /**< index of an earlier joint, or -1 */
	uint32_t flags;        /**< GSIO_MD5_ANIM_* bits (0..63) */
	uint32_t start_index;  /**< first of its popcount(flags) components in a frame;
	                            start_index + popcount(flags) <= num_animated_components
	                            (not checked, but kept, when flags is 0) */
} gsio_md5_hierarchy;

/** A joint's base pose, relative to its parent (to the model for a root). */
typedef struct gsio_md5_baseframe {
	float pos[3];
	float orient[3];       /**< quaternion x, y, z (w implied) */
} gsio_md5_baseframe;

/** A per-frame bounding box in object space. */
typedef struct gsio_md5_bounds {
	float min[3], max[3];
} gsio_md5_bounds;

/** A whole .md5anim file. */
typedef struct gsio_md5_anim {
	gsio_arena *arena;
	int32_t version;
	const char *commandline;
	size_t frames_count;           /**< numFrames (>= 1) */
	size_t joints_count;           /**< numJoints (>= 1) */
	float frame_rate;              /**< frameRate, frames per second (> 0) */
	size_t components_count;       /**< numAnimatedComponents */
	gsio_md5_hierarchy *hierarchy; /**< joints_count */
	gsio_md5_bounds *bounds;       /**< frames_count */
	gsio_md5_baseframe *baseframe; /**< joints_count */
	float *frames;                 /**< frames_count * components_count, frame-major */
} gsio_md5_anim;

// -- .md5camera

/** One camera frame. */
typedef struct gsio_md5_camera_frame {
	float pos[3];          /**< object space */
	float orient[3];       /**< quaternion x, y, z (w implied); the camera looks along +X */
	float fov;             /**< horizontal field of view, degrees */
} gsio_md5_camera_frame;

/** A whole .md5camera file. */
typedef struct gsio_md5_camera {
	gsio_arena *arena;
	int32_t version;
	const char *commandline;
	float frame_rate;                /**< frames per second (> 0) */
	uint32_t *cuts;                  /**< frame indices where a new shot starts, each in
	                                      1..frames_count-1 (id's rule) */
	size_t cuts_count;
	gsio_md5_camera_frame *frames;   size_t frames_count; /**< >= 1 */
} gsio_md5_camera;

// -- Codec

/** Which of the three files a text is, from its first keywords. */
typedef enum gsio_md5_kind {
	GSIO_MD5_UNKNOWN = 0, GSIO_MD5_MESH, GSIO_MD5_ANIM, GSIO_MD5_CAMERA
} gsio_md5_kind;

/** Looks at the header keywords (numJoints / numFrames + numJoints /
 *  numFrames + frameRate). GSIO_MD5_UNKNOWN when they say nothing. */
GSIO_API gsio_md5_kind gsio_md5_detect(const uint8_t *data, size_t size);

/** Decoders. `name` is used in errors (may be NULL); opts may be NULL (its
 *  allocator and memory limit are used). NULL on failure with err set. */
GSIO_API gsio_md5_mesh *gsio_md5_mesh_decode(const uint8_t *data, size_t size, const char *name,
                                    const gsio_opts *opts, gsio_error *err);
GSIO_API gsio_md5_anim *gsio_md5_anim_decode(const uint8_t *data, size_t size, const char *name,
                                    const gsio_opts *opts, gsio_error *err);
GSIO_API gsio_md5_camera *gsio_md5_camera_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err);

/** Free a decoded file. NULL is fine. */
GSIO_API void gsio_md5_mesh_free(gsio_md5_mesh *mesh);
GSIO_API void gsio_md5_anim_free(gsio_md5_anim *anim);
GSIO_API void gsio_md5_camera_free(gsio_md5_camera *camera);

/** Encoders: text into malloc'd bytes (free() them). They fail with
 *  GSIO_ERR_ARGUMENT on what the text cannot hold (a name with a quote or a
 *  newline, a non-finite float, an index out of range). */
GSIO_API GSIO_NODISCARD int gsio_md5_mesh_encode(const gsio_md5_mesh *mesh, uint8_t **out,
                                        size_t *out_size, gsio_error *err);
GSIO_API GSIO_NODISCARD int gsio_md5_anim_encode(const gsio_md5_anim *anim, uint8_t **out,
                                        size_t *out_size, gsio_error *err);
GSIO_API GSIO_NODISCARD int gsio_md5_camera_encode(const gsio_md5_camera *camera, uint8_t **out,
                                          size_t *out_size, gsio_error *err);

/** Checks that an animation fits a mesh's skeleton: same joint count, and
 *  per joint the same name and parent. Returns 0, or fails with
 *  GSIO_ERR_MISMATCH naming the first joint that differs. */
GSIO_API GSIO_NODISCARD int gsio_md5_anim_check(const gsio_md5_mesh *mesh, const gsio_md5_anim *anim,
                                       const char *anim_name, gsio_error *err);

// -- Scene
//
// The scenes below are scene v2 (gsio.h). Joints are nodes, placed first in
// file order (parents before children, as the file guarantees), so node j
// is joint j; each has the joint's name, parent and parent-relative bind
// translation and rotation. Everything a load needs only while it runs
// (normal accumulators, candidate texture paths, decoded sibling files) lives
// in a temporary arena destroyed when the load ends, not in the scene's.

/** The scene of a mesh:
 *  - nodes: the joints, then one root node per `mesh { }` block (identity,
 *    named like its mesh, mesh = i);
 *  - one skin ("skeleton") listing the joint nodes in order, inverse bind
 *    matrices (column-major) from the file's object-space bind pose,
 *    skeleton = the root joint (-1 when the file has several roots);
 *  - one gsio_mesh per block (skin 0, one part with material i), vertices
 *    1:1 with the file's verts, positions from the weights, triangles
 *    reversed to counter-clockwise, smooth area-weighted normals (vertices at
 *    the same position in a mesh share their normal, so UV seams do not
 *    show), UVs (s, t) as stored, CSR weights as stored (not normalised;
 *    joint indices = the file's = indices into the skin's joints);
 *  - one material per block: name = the shader (made unique with ".2", ...),
 *    shader kept, base_color_texture = the image loaded for it;
 *  - images: each shader resolved beside the mesh file (`path`'s folder):
 *    the path as written, then with .tga/.png/.jpg instead of (or added
 *    to) its extension, then its base name alone in that folder; decoded
 *    to RGBA8; one image per distinct file. A missing texture, an absolute
 *    path or one whose ".." leaves the folder is a warning (the last two are
 *    refused: only the base name in the folder is tried). With the default
 *    io a candidate that resolves outside the folder (a symbolic link leading
 *    out) is not followed, and one that is not a regular file (a FIFO) is not
 *    read: warnings;
 *  - animations: opts->anim_paths when given (read through opts->io; a file
 *    that fails to load or does not match the skeleton is an error), else
 *    every *.md5anim that the io lists in the mesh's folder (io->list_dir;
 *    none when the io cannot list) whose hierarchy matches (others are
 *    warnings), sorted by name. GSIO_OPT_NO_ANIMATION loads none.
 *  `path` may be NULL: then no texture or animation is looked for. */
GSIO_API gsio_scene *gsio_md5_mesh_to_scene(const gsio_md5_mesh *mesh, const char *path,
                                   const gsio_opts *opts, gsio_error *err);

/** Adds an animation to a scene built from `mesh` (checked with
 *  gsio_md5_anim_check): a gsio_animation called `name` (made unique) at
 *  fps = frameRate with numFrames frames, and per joint node j a
 *  TRANSLATION (channel 2j) and a ROTATION (channel 2j+1) channel. Each
 *  frame starts from the baseframe, replaces the flagged components, and
 *  recomputes w; the poses are parent-relative. The bounds are kept in
 *  animation.bounds. */
GSIO_API GSIO_NODISCARD int gsio_md5_scene_add_anim(gsio_scene *scene, const gsio_md5_mesh *mesh,
                                           const gsio_md5_anim *anim, const char *name,
                                           gsio_error *err);

/** The scene of a lone .md5anim: joint nodes whose pose is the baseframe,
 *  no mesh or skin, and the animation itself named after the file (none with
 *  GSIO_OPT_NO_ANIMATION). */
GSIO_API gsio_scene *gsio_md5_anim_to_scene(const gsio_md5_anim *anim, const char *path,
                                   const gsio_opts *opts, gsio_error *err);

/** The scene of a .md5camera: one node named after the file, placed at the
 *  first frame, carrying a gsio_camera (fov = the first frame's; it looks
 *  along the node's +X, as MD5's camera does), and an animation of the same
 *  name with TRANSLATION, ROTATION and FOV channels on that node and the
 *  file's cuts (ascending, repeats dropped). No animation with
 *  GSIO_OPT_NO_ANIMATION. */
GSIO_API gsio_scene *gsio_md5_camera_to_scene(const gsio_md5_camera *camera, const char *path,
                                     const gsio_opts *opts, gsio_error *err);

/** The importer descriptor (extensions "md5mesh md5anim md5camera"). */
GSIO_API extern const gsio_importer gsio_md5_importer;

#ifdef __cplusplus
}
#endif
#endif
