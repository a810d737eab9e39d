/* Shared by the MDL5 and HMP5 writers (internal): warnings, skins from
 * images, normal table lookup, quantisation, placing the output. */
#ifndef GSIO_WRITE_INTERNAL_H
#define GSIO_WRITE_INTERNAL_H

#include "gsioi_internal.h"
#include "gsio_mdl.h"
#include "gsio_write.h"

/** Warnings of one write go to the caller's callback (or nowhere). */
typedef struct gsioi_warner {
	gsio_warn_fn fn;
	void *user;
} gsioi_warner;

void gsioi_wwarn(const gsioi_warner *w, const char *fmt, ...) GSIO_PRINTF(2, 3);

/** How a skin is stored. */
typedef struct gsioi_skin_opts {
	gsio_skin_encoding encoding;
	const uint8_t *palette; /**< NULL: built-in */
	bool dither;
	bool mipmaps;
	uint32_t max_size;      /**< 0: GSIOI_MAX_SKIN_SIZE */
} gsioi_skin_opts;

#define GSIOI_MAX_SKIN_SIZE 4096u

/** The MDL skin type code an image is stored with under these options. */
int32_t gsioi_skin_type(const gsio_image *im, const gsioi_skin_opts *o);

/** Encodes an RGBA image as an MDL/HMP skin record (pixels in arena a).
 *  `what` names it in errors. False with err set: too large (LIMIT), no
 *  pixels (ARGUMENT), out of memory. */
GSIO_NODISCARD bool gsioi_skin_encode(gsio_arena *a, const gsio_image *im, const gsioi_skin_opts *o,
                                     const gsioi_warner *w, gsio_mdl_skin *out, gsio_error *err);

/** The table index whose negated entry (the outward normal) is nearest to
 *  the outward unit normal n (0 for a zero or non-finite n). */
uint8_t gsioi_normal_index(const float n[3]);

/** Scale and offset that spread [lo, hi] over raw 0..qmax (the choice that
 *  minimises the largest rounding error over every value), and the raw value
 *  of x under them. */
void gsioi_quant_fit(double lo, double hi, unsigned qmax, float *scale, float *offset);
unsigned gsioi_quant(float x, float scale, float offset, unsigned qmax);

/** The work arena of one write (the caller's allocator and limit). */
gsio_arena *gsioi_write_arena(const gsio_allocator *allocator, size_t limit, gsio_error *err);

/** The argument checks every writer starts with: clears err, zeroes *out,
 *  and fails when there is no output pointer, no scene or the scene does
 *  not validate. 0 or -1. */
GSIO_NODISCARD int gsioi_write_start(const gsio_scene *scene, uint8_t **out, size_t *out_size,
                                     gsio_error *err);

/** The end of a *_write_file: write_rc and data/size are what the in-memory
 *  writer returned. On its failure, names path in err; else places the bytes
 *  at path atomically (gsioi_place_files) and frees them (gsio_write_free
 *  with allocator). 0 or -1. */
GSIO_NODISCARD int gsioi_write_finish(int write_rc, const char *path, uint8_t *data, size_t size,
                                      bool no_replace, const gsio_allocator *allocator,
                                      gsio_error *err);

// -- Posing (the MDL5 and MDL7 writers)

/** The animation's channel setting the morph frame of `node`'s mesh, or NULL. */
const gsio_channel *gsioi_morph_channel(const gsio_animation *an, int32_t node);
/** True when the animation moves some node (translation, rotation, scale). */
bool gsioi_has_node_channel(const gsio_animation *an);
/** A name into a stored name field of size bytes (at most 256), in CP1252
 *  as the engine reads names (gsioi_text_cp1252), zero-padded; a name of
 *  size bytes or more fills it without a NUL. */
void gsioi_name_field(char *field, size_t size, const char *name);
/** "<stem><index>" within 16 bytes, in CP1252 (the stem cut so the index fits). */
void gsioi_clip_frame_name(char out[17], const char *stem, size_t index);

/** Mesh frame f's stored name within 16 bytes, "<stem><f>" when it has none. */
void gsioi_stored_frame_name(char out[17], const gsio_mesh *m, size_t f, const char *stem);
/** True when the part's material is double-sided (MDL writes such faces
 *  both ways round: it has no double-sided flag). */
bool gsioi_part_double_sided(const gsio_scene *s, const gsio_mesh_part *pt);

/** World matrices (column-major, 16 floats a node) of every node: the rest
 *  pose, or with animation `anim` >= 0 sampled at `key` (in frames of the
 *  animation: an integer gives that key's values exactly; between keys
 *  linear, rotations normalised, a cut holds the frame before). `local`:
 *  scratch of 10 floats a node. */
void gsioi_pose_nodes(const gsio_scene *s, int32_t anim, double key, float *local, float *world);
void gsioi_xform_point(const float m[16], const float p[3], float out[3]);
/** The inverse transpose of m's 3x3 (row-major 9 floats; normals go through it). */
void gsioi_normal_matrix(const float m[16], float out[9]);
/** nm times n, normalised. */
void gsioi_xform_normal(const float nm[9], const float n[3], float out[3]);
/** Area-weighted face normals of m at positions pos into nrm (outward for
 *  the scene's counter-clockwise faces; +z for a vertex on no face). */
void gsioi_face_normals(const gsio_mesh *m, const float *pos, float *nrm);
/** Mesh m blended by morph weights w (frames_count of them, as glTF: frame
 *  0 plus each frame's difference to it, weighted) into tp, tn (positions,
 *  unit normals; face normals when a frame has none). scratch: 12 floats a
 *  vertex. */
void gsioi_morph_blend(const gsio_mesh *m, const float *w, float *scratch, float *tp, float *tn);

#endif
