/* The glTF writer's parts (gltf.c and gltf_*.c, in libgsio)
 * share this header: the writer's context (gltf_ctx) and the structs it
 * holds, the glTF constants, the axis change, and the functions one part
 * calls in another. Not installed. Each part defines _GNU_SOURCE before
 * including it first (gsioi_helper_thread.h's cpu_set_t).
 *
 * The shared functions are named gsioi_gltf_*, libgsio's internal prefix:
 * hidden from the shared library (C_VISIBILITY_PRESET hidden), and a
 * function only one part calls stays static there. Each is described where
 * it is defined. */
#ifndef GSIO_GLTF_INTERNAL_H
#define GSIO_GLTF_INTERNAL_H

#include "gsio_gltf.h"
#include "gsioi_math.h"
#include "gsioi_helper_thread.h" // header-only: no symbol of libgsio's internals
#include "json_float.h"
#include "gsioi_png.h"
#include "gsioi_place.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// The buffers are written with memcpy of host floats and integers: glTF is
// little-endian, and so is every host this builds on. Say so loudly otherwise.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gsio_gltf writes host-order buffers and needs a little-endian host"
#endif

// -- glTF constants

#define GLTF_BYTE 5120
#define GLTF_UNSIGNED_BYTE 5121
#define GLTF_SHORT 5122
#define GLTF_UNSIGNED_SHORT 5123
#define GLTF_UNSIGNED_INT 5125
#define GLTF_FLOAT 5126
#define GLTF_ARRAY_BUFFER 34962
#define GLTF_ELEMENT_ARRAY_BUFFER 34963
#define GLTF_LINEAR 9729
#define GLTF_LINEAR_MIPMAP_LINEAR 9987
#define GLTF_REPEAT 10497
#define GLTF_CLAMP_TO_EDGE 33071
#define GLTF_MIRRORED_REPEAT 33648

// The GLB container holds at most 4 GiB; the buffer stops growing there.
#define BUFFER_LIMIT ((size_t)UINT32_MAX - 4096)

// -- Context

/* The binary buffer. In memory (gsio_gltf_write) it holds everything; when
 * writing to a file the bytes beyond `limit` are written to `spill` and
 * only the tail not yet written stays in memory. */
typedef struct byte_buf {
	uint8_t *data;        // bytes not yet spilled (all of them in memory)
	size_t size, cap;     // size: bytes of the whole buffer so far (its offsets)
	size_t spilled;       // bytes before data[0], already in spill
	size_t limit;         // with a sink: bytes held in memory before spilling
	void *map;            // data lies in this reserved mapping (NULL: malloc's)
	size_t map_size;
	size_t advised;       // map: bytes of data past which no huge-page advice is decided yet
	gsioi_placing *spill;  // NULL: nothing spilled
	bool failed;          // an append failed (err set): the buffer is unusable
} byte_buf;

/* gsio_gltf_write_file()'s destination. */
typedef struct gltf_sink {
	const char *path;     // the final .glb or .gltf path
	size_t dir_len;       // length of its directory part, with the '/'
	bool no_replace;
	gsioi_placing *bin;    // SEPARATE: the spilled .bin, written, not yet placed
} gltf_sink;

/* A JSON array kept as the text cJSON prints for it, unformatted:
 * "[item,item" until it is attached (gsioi_gltf_jtext_take adds the "]"). */
typedef struct jtext {
	char *p;
	size_t len, cap;
	int n; // items
} jtext;

enum { JT_VIEWS, JT_ACCESSORS, JT_MESHES, JT_NODES, JT_MATERIALS, JT_IMAGES, JT_TEXTURES,
       JT_SKINS, JT_ANIMATIONS, JT_SCENE_NODES, JT_COUNT };

/* One image's bytes for the buffer or a file of its own: a PNG encoded from
 * the scene's pixels, or a PNG or JPEG file as it is. Made by make_image()
 * on whichever thread claims it first (see gsioi_gltf_write_images()). */
typedef enum image_how { IMG_FILE, IMG_INDEXED, IMG_RGBA, IMG_STORED, IMG_DDS, IMG_TGA, IMG_BMP } image_how;
typedef struct image_job {
	size_t image;       // scene image
	image_how how;
	uint8_t *data;      // the bytes: malloc'd, or the scene's file_data when `borrowed`
	size_t size;
	bool borrowed;
	const char *ext;    // the file's extension beside a .gltf
	size_t off;         // GLB: its offset past the rest of the buffer, once the images are placed
	size_t bound;       // GLB: a size it is not expected to pass (gsioi_gltf_plan_bounds)
	size_t boff;        // GLB: its offset past the rest were every image its bound
	int view;           // GLB: its buffer view, which every image made of it names
	int rc;             // make_image(): 0, or failed with err
	gsio_error err;
	// A PNG of more than one band (gsioi_png_parts): its bands are made by
	// every thread that finds them (claimed by next_part), the file by the
	// one that makes the last.
	gsioi_png_work *work;
	size_t parts;
	atomic_int state;   // JOB_BEGUN (or not claimed yet), JOB_OFFERED (work and parts set), JOB_MADE
	atomic_size_t next_part, parts_done;
} image_job;

/* A buffer view as it is printed (gsioi_gltf_emit_views()): an image's (job >= 0) at
 * the image's offset past the rest of the buffer, any other at `off`. */
typedef struct view_rec {
	size_t off, size;
	int stride, target, job;
} view_rec;

typedef struct gltf_ctx {
	const gsio_scene *s;
	gsio_error *err;
	gsio_gltf_output *out;
	gltf_sink *sink;    // NULL: the output stays in memory
	float scale;
	bool convert_axes;
	bool animate;
	bool separate;
	bool sparse;
	bool compact;       // GSIO_GLTF_COMPACT
	bool all_images;    // GSIO_GLTF_ALL_IMAGES
	bool used_quant;    // a quantised accessor was written
	float *q_off;       // per mesh: dequantisation offset (3 floats, output axes)
	float *q_scale;     // per mesh: dequantisation scale, 0 when positions are float
	bool *q_ok;         // per mesh: positions may be quantised (see gsioi_gltf_plan_quant)
	const char *name;
	const char *generator;
	bool json_failed;   // a cJSON allocation failed (reported once at the end)
	byte_buf bin;
	size_t bin_surely;  // bytes the BIN in memory surely reaches (gsioi_gltf_bin_before_images)
	cJSON *root;
	cJSON *accessors, *views, *nodes, *meshes, *materials, *textures, *images, *samplers,
	    *skins, *animations, *cameras, *lights, *scene_nodes, *extensions_used;
	int accessors_n, views_n, images_n, textures_n, meshes_n; // items in those (gsioi_gltf_jpush)
	jtext jt[JT_COUNT]; // a GLB's arrays that grow with the scene, as text (jtext_of)
	int *image_index;   // glTF image per scene image, -1 when skipped
	int *mesh_index;    // glTF mesh per scene mesh, -1 when not written
	size_t *same_first, *same_next; // meshes by positions array (gsioi_gltf_plan_shared_meshes)
	int *mesh_targets;  // morph targets written per scene mesh
	int sparse_base_view; // zeros under sparse weights, -1: none (gsioi_gltf_plan_sparse_base)
	int *mesh_skin;     // glTF skin per scene mesh, -1 when unskinned
	bool *folded;       // per node: the camera/light frame fix is in its own rotation
	int sampler_of[3][3]; // glTF sampler per (wrap_u, wrap_v), -1 until used
	int (*tex_of)[9];   // glTF texture per image and (wrap_u, wrap_v), -1 until made
	int variants_count; // KHR_materials_variants variants, 0 when unused
	bool used_unlit, used_lights;
	view_rec *vrec;     // every buffer view, printed by gsioi_gltf_emit_views()
	size_t vrec_n, vrec_cap;
	image_job *jobs;    // the images to make, in scene order (gsioi_gltf_write_images)
	size_t jobs_count;
	atomic_size_t jobs_next; // the next job to claim
	atomic_bool jobs_stop;   // a failed write: no job is waited for (gsioi_gltf_images_free)
	gsio_helper helper; // makes images beside this thread (opts.threads >= 2)
	size_t img_bytes;   // GLB: the buffer's last bytes, the images, each padded to 4
	size_t img_bound;   // GLB: what they would take were each its bound (gsioi_gltf_plan_bounds)
	bool images_first;  // every image is made before the meshes, whatever the threads (gsioi_gltf_write_images)
	size_t json_room;   // GLB: the JSON chunk's length before padding (gsioi_gltf_glb_images)
	cJSON *buffer;      // GLB: the buffer's object, its byteLength set again (gsioi_gltf_glb_images)
	gsioi_placing *early;   // GLB to a file: the BIN's first part written already (early_bin)
	size_t early_room;     // the json_room it was written after
	unsigned threads;   // opts.threads
} gltf_ctx;

/* The objects a glTF has one of per buffer view and per accessor (four a
 * morph target) built for a GLB as the text cJSON would print for them, one
 * raw item (two allocations) instead of a node, a key and a value per
 * member (about twenty): the tree of golem's 231 morph targets would be a
 * fifth of mdl2gltf's instructions, mostly malloc and free. A .gltf is
 * printed formatted, so there they stay cJSON objects; the same members in
 * the same order either way. Members are integers, plain-ASCII strings and
 * float arrays (gsioi_gltf_jfloats). The functions are in gltf_json.c. */
#define JB_MAX (2 * (16 * (GLTF_JSON_FLOAT_MAX + 1) + 16) + 256)
typedef struct jbuild {
	gltf_ctx *c;
	cJSON *obj;           // .gltf: the object; GLB: NULL, the text below
	char text[JB_MAX];
	size_t len;
} jbuild;

// -- Errors and warnings (public gsio_error fields only)

void gsioi_gltf_fail_at(gsio_error *err, gsio_error_code code, const char *file, int line,
                  const char *fmt, ...) GSIO_PRINTF(5, 6);

#define FAIL(c, code, ...) gsioi_gltf_fail_at((c)->err, (code), __FILE__, __LINE__, __VA_ARGS__)

void gsioi_gltf_warn(gltf_ctx *c, const char *fmt, ...) GSIO_PRINTF(2, 3);

// -- Axes (inline: the meshes and morph targets turn every vertex)

/** Scene axes (Z up, X forward) -> glTF (Y up, front +Z): (x,y,z)_gltf =
 *  (y, z, x)_scene, a cyclic permutation R: a proper rotation, no mirror.
 *  Every node's local transform is conjugated by R (R T R^-1), so the node
 *  tree keeps its shape while the mesh data (in R's frame too) lines up. */
static inline void xf_dir(const gltf_ctx *c, const float in[3], float out[3])
{
	float x = in[0], y = in[1], z = in[2];
	if (c->convert_axes) {
		out[0] = y;
		out[1] = z;
		out[2] = x;
	} else {
		out[0] = x;
		out[1] = y;
		out[2] = z;
	}
}

static inline void xf_pos(const gltf_ctx *c, const float in[3], float out[3])
{
	xf_dir(c, in, out);
	for (int k = 0; k < 3; k++) out[k] *= c->scale;
}

/** Normalises in place; false (and a fallback value) when it cannot. */
static inline bool normalize3(float *v, const float fallback[3])
{
	double l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
	if (!(l > 1e-12) || !isfinite(l)) {
		memcpy(v, fallback, 3 * sizeof(float));
		return false;
	}
	for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / l);
	return true;
}

// -- The functions the parts share, by the part that defines them

// gltf.c: errors, warnings, allocation and the output list
bool gsioi_gltf_fail_nomem(gltf_ctx *c, const char *what);
bool gsioi_gltf_mul_size(size_t a, size_t b, size_t *out);
void *gsioi_gltf_xmalloc_array(gltf_ctx *c, size_t count, size_t size);
bool gsioi_gltf_add_file(gsio_gltf_output *o, const char *name, uint8_t *data, size_t size);
const char *gsioi_gltf_or_default(const char *s, const char *fallback);

// gltf_json.c: JSON items, a GLB's array texts, jbuild, names and uris, extras
void gsioi_gltf_jset(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item);
void gsioi_gltf_jset_copy(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item);
cJSON *gsioi_gltf_jnumber(double v);
void gsioi_gltf_jnum(gltf_ctx *c, cJSON *obj, const char *key, double v);
void gsioi_gltf_jstr(gltf_ctx *c, cJSON *obj, const char *key, const char *v);
cJSON *gsioi_gltf_jobj(gltf_ctx *c);
cJSON *gsioi_gltf_jarr(gltf_ctx *c);
bool gsioi_gltf_jtext_append(jtext *t, const char *text);
void gsioi_gltf_jtext_close(jtext *t);
cJSON *gsioi_gltf_jtext_take(gltf_ctx *c, cJSON **arr);
size_t gsioi_gltf_glb_json_len(const gltf_ctx *c, const char *doc);
bool gsioi_gltf_glb_json_emit(gltf_ctx *c, const char *doc, bool (*emit)(void *user, const void *p, size_t n),
                        void *user);
void gsioi_gltf_jadd(gltf_ctx *c, cJSON *arr, cJSON *item);
int gsioi_gltf_jpush(gltf_ctx *c, cJSON *arr, cJSON *item);
void gsioi_gltf_jpush_num(gltf_ctx *c, cJSON *arr, double v);
cJSON *gsioi_gltf_jfloat(float f);
cJSON *gsioi_gltf_jfloats(gltf_ctx *c, const float *v, int n);
const char *gsioi_gltf_type_name(int ncomp);
void gsioi_gltf_jb_start(gltf_ctx *c, jbuild *b);
void gsioi_gltf_jb_int(jbuild *b, const char *key, size_t v);
void gsioi_gltf_jb_str(jbuild *b, const char *key, const char *s);
void gsioi_gltf_jb_floats(jbuild *b, const char *key, const float *v, int n);
const char *gsioi_gltf_jb_end(jbuild *b);
int gsioi_gltf_jb_push(jbuild *b, cJSON *arr);
void gsioi_gltf_safe_name(const char *s, char *buf, size_t size);
void gsioi_gltf_uri_encode(const char *s, char *buf, size_t size);
cJSON *gsioi_gltf_extras_json(gltf_ctx *c, cJSON *into, const gsio_extras *x);

// gltf_buffer.c: the binary buffer, buffer views, float accessors
int gsioi_gltf_view_record(gltf_ctx *c, size_t off, size_t size, int stride, int target, int job);
int gsioi_gltf_view_json(gltf_ctx *c, size_t off, size_t size, int stride, int target);
void gsioi_gltf_emit_views(gltf_ctx *c, bool bounds);
int gsioi_gltf_float_accessor_json(gltf_ctx *c, int view, size_t count, int ncomp, const float *mn,
                             const float *mx);
size_t gsioi_gltf_bin_before_images(const gltf_ctx *c);
void gsioi_gltf_buf_free(byte_buf *b);
bool gsioi_gltf_buf_spill(gltf_ctx *c, bool all);
bool gsioi_gltf_buf_append(gltf_ctx *c, const void *data, size_t size);
bool gsioi_gltf_buffer_align(gltf_ctx *c);
int gsioi_gltf_add_view_strided(gltf_ctx *c, const void *data, size_t size, int target, int stride);
int gsioi_gltf_add_view(gltf_ctx *c, const void *data, size_t size, int target);
void gsioi_gltf_min_max(const float *v, size_t count, int ncomp, float *mn, float *mx);
int gsioi_gltf_float_accessor_mm(gltf_ctx *c, const float *data, size_t count, int ncomp,
                           const float *mn, const float *mx, int target);
int gsioi_gltf_float_accessor(gltf_ctx *c, const float *data, size_t count, int ncomp,
                        bool with_min_max, int target);
float *gsioi_gltf_view_room(gltf_ctx *c, size_t bytes);
int gsioi_gltf_add_claimed_view(gltf_ctx *c, size_t bytes, int target);

// gltf_quant.c: quantised attributes (GSIO_GLTF_COMPACT)
int gsioi_gltf_normal_accessor_q(gltf_ctx *c, const float *nrm, size_t nv);
int gsioi_gltf_uv_accessor_q(gltf_ctx *c, const float *uv, size_t nv);
void gsioi_gltf_plan_quant(gltf_ctx *c);
int gsioi_gltf_write_positions_q(gltf_ctx *c, size_t mi, const float *pos, cJSON *names, cJSON **targets);

// gltf_image.c: images
bool gsioi_gltf_write_images(gltf_ctx *c);
bool gsioi_gltf_images_place(gltf_ctx *c);
void gsioi_gltf_plan_bounds(gltf_ctx *c);
void gsioi_gltf_images_free(gltf_ctx *c);
bool gsioi_gltf_images_emit(gltf_ctx *c, bool (*emit)(void *user, const void *p, size_t n), void *user);

// gltf_material.c: materials and their textures
void gsioi_gltf_use_extension(gltf_ctx *c, const char *name, bool *flag);
bool gsioi_gltf_write_materials(gltf_ctx *c);
int gsioi_gltf_plan_variants(gltf_ctx *c);

// gltf_mesh.c: meshes
bool gsioi_gltf_plan_shared_meshes(gltf_ctx *c);
bool gsioi_gltf_write_mesh(gltf_ctx *c, size_t mi);

// gltf_morph.c: morph targets
cJSON *gsioi_gltf_write_targets(gltf_ctx *c, size_t mi, const float *pos, const float *nrm,
                          cJSON *names, size_t *bad_normals);

// gltf_node.c: nodes, skins, cameras and lights
void gsioi_gltf_node_rotation(const gltf_ctx *c, int32_t node, const float in[4], float out[4]);
void gsioi_gltf_plan_folds(gltf_ctx *c);
bool gsioi_gltf_write_nodes(gltf_ctx *c);
bool gsioi_gltf_write_skins(gltf_ctx *c);
bool gsioi_gltf_write_cameras(gltf_ctx *c);
bool gsioi_gltf_write_lights(gltf_ctx *c);

// gltf_anim.c: animations
/** The view of zeros that every sparse weights accessor names (for
 *  readers that take an accessor without a view from view 0), made once
 *  before the animations when the largest fits in GLTF_SPARSE_BASE_MAX;
 *  false on failure. */
bool gsioi_gltf_plan_sparse_base(gltf_ctx *c);
bool gsioi_gltf_write_animation(gltf_ctx *c, size_t ai);

// gltf_glb.c: the GLB container
bool gsioi_gltf_make_glb(gltf_ctx *c, const char *json, gsio_gltf_output *out);
bool gsioi_gltf_place_glb(gltf_ctx *c, const char *json);
bool gsioi_gltf_glb_images(gltf_ctx *c);

#endif
