/* glTF 2.0 / GLB writer for gsio scenes (scene v2).
 *
 * The document is built with cJSON, the binary data in one growable buffer
 * (the GLB BIN chunk or the .bin file); images are encoded with
 * gsioi_png_encode() and files placed with gsioi_place_files(); when writing
 * to a file, the binary data beyond bin.limit goes to the output side of
 * the disk as it is made (gsioi_placing: see "Binary buffer"). This file uses
 * the public gsio API only (it is the libgsio_gltf library): no internal
 * header, no gsioi_ symbol. Mapping decisions are explained in
 * blender_bridge/README.md; the short form is in gsio_gltf.h. The scene is
 * checked with gsio_scene_validate() first, so indices, counts and floats
 * are trusted below; only what the validator allows but glTF does not (an
 * empty mesh, a weight of 0 everywhere, ...) is handled here. */
#define _GNU_SOURCE // mmap's MAP_ANONYMOUS and MAP_NORESERVE, madvise's MADV_HUGEPAGE, cpu_set_t
#include "gsio_gltf.h"
#include "gsioi_helper_thread.h" // header-only, as the two below
#include "gsioi_huge_pages.h" // header-only: no symbol of libgsio's internals
#include "gsioi_packed_record.h" // header-only too
#include "json_float.h"
#include "gsioi_png.h"
#include "gsioi_place.h"
#include "gsioi_math.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// The buffers are written with memcpy of host floats and integers: glTF is
// little-endian, and so is every host this builds on. Say so loudly otherwise.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gsio_gltf writes host-order buffers and needs a little-endian host"
#endif

// A hot loop kept out of its caller, whose many live values made the
// compiler reload the loop's from the stack every vertex.
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
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

#define GLB_MAGIC 0x46546C67u      // "glTF"
#define GLB_CHUNK_JSON 0x4E4F534Au // "JSON"
#define GLB_CHUNK_BIN 0x004E4942u  // "BIN\0"

// glTF cameras need an aspect ratio; a scene camera may leave it 0. 4:3 is
// the display Doom 3 (the source of .md5camera) was made for.
#define CAMERA_ASPECT (4.0 / 3.0)
#define CAMERA_ZNEAR 1.0 // scene units (about an inch), before --scale

// The GLB container holds at most 4 GiB; the buffer stops growing there.
#define BUFFER_LIMIT ((size_t)UINT32_MAX - 4096)
/* Writing a GLB file, the binary buffer keeps at most this much in memory
 * (beyond it, the bytes go through an unnamed temporary and are copied into
 * the GLB behind the JSON, which comes first but is known last); a view at
 * least this large is written straight from the caller's array. 32 MiB:
 * the temporary and the kernel's copy of it cost golem (5 MB of morph
 * targets) a fifth of its time, more than holding its BIN in memory (see
 * map_buffer). Writing .gltf + .bin, the .bin itself is the temporary. */
#define SPILL_BYTES ((size_t)32 << 20)
#define SPILL_BYTES_SEPARATE ((size_t)256 << 10)

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
 * "[item,item" until it is attached (jtext_take adds the "]"). */
typedef struct jtext {
	char *p;
	size_t len, cap;
	int n; // items
} jtext;

enum { JT_VIEWS, JT_ACCESSORS, JT_MESHES, JT_NODES, JT_MATERIALS, JT_IMAGES, JT_TEXTURES,
       JT_SKINS, JT_ANIMATIONS, JT_SCENE_NODES, JT_COUNT };
#define JT_MARK '\x01' // where a jtext goes in the printed document (jtext_take)

enum { JOB_BEGUN, JOB_OFFERED, JOB_MADE };

/* One image's bytes for the buffer or a file of its own: a PNG encoded from
 * the scene's pixels, or a PNG or JPEG file as it is. Made by make_image()
 * on whichever thread claims it first (see write_images()). */
typedef enum image_how { IMG_FILE, IMG_INDEXED, IMG_RGBA, IMG_STORED, IMG_DDS } image_how;
typedef struct image_job {
	size_t image;       // scene image
	image_how how;
	uint8_t *data;      // the bytes: malloc'd, or the scene's file_data when `borrowed`
	size_t size;
	bool borrowed;
	const char *ext;    // the file's extension beside a .gltf
	size_t off;         // GLB: its offset past the rest of the buffer, once the images are placed
	size_t bound;       // GLB: a size it is not expected to pass (plan_bounds)
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

/* A buffer view as it is printed (emit_views()): an image's (job >= 0) at
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
	bool used_quant;    // a quantised accessor was written
	float *q_off;       // per mesh: dequantisation offset (3 floats, output axes)
	float *q_scale;     // per mesh: dequantisation scale, 0 when positions are float
	bool *q_ok;         // per mesh: positions may be quantised (see plan_quant)
	const char *name;
	const char *generator;
	bool json_failed;   // a cJSON allocation failed (reported once at the end)
	byte_buf bin;
	size_t bin_surely;  // bytes the BIN in memory surely reaches (bin_before_images)
	cJSON *root;
	cJSON *accessors, *views, *nodes, *meshes, *materials, *textures, *images, *samplers,
	    *skins, *animations, *cameras, *lights, *scene_nodes, *extensions_used;
	int accessors_n, views_n, images_n, textures_n, meshes_n; // items in those (jpush)
	jtext jt[JT_COUNT]; // a GLB's arrays that grow with the scene, as text (jtext_of)
	int *image_index;   // glTF image per scene image, -1 when skipped
	int *mesh_index;    // glTF mesh per scene mesh, -1 when not written
	size_t *same_first, *same_next; // meshes by positions array (plan_shared_meshes)
	int *mesh_targets;  // morph targets written per scene mesh
	int *mesh_skin;     // glTF skin per scene mesh, -1 when unskinned
	bool *folded;       // per node: the camera/light frame fix is in its own rotation
	int sampler_of[3][3]; // glTF sampler per (wrap_u, wrap_v), -1 until used
	int (*tex_of)[9];   // glTF texture per image and (wrap_u, wrap_v), -1 until made
	int variants_count; // KHR_materials_variants variants, 0 when unused
	bool used_unlit, used_lights;
	view_rec *vrec;     // every buffer view, printed by emit_views()
	size_t vrec_n, vrec_cap;
	image_job *jobs;    // the images to make, in scene order (write_images)
	size_t jobs_count;
	atomic_size_t jobs_next; // the next job to claim
	atomic_bool jobs_stop;   // a failed write: no job is waited for (images_free)
	gsio_helper helper; // makes images beside this thread (opts.threads >= 2)
	size_t img_bytes;   // GLB: the buffer's last bytes, the images, each padded to 4
	size_t img_bound;   // GLB: what they would take were each its bound (plan_bounds)
	bool images_first;  // every image is made before the meshes, whatever the threads (write_images)
	size_t json_room;   // GLB: the JSON chunk's length before padding (glb_images)
	cJSON *buffer;      // GLB: the buffer's object, its byteLength set again (glb_images)
	gsioi_placing *early;   // GLB to a file: the BIN's first part written already (early_bin)
	size_t early_room;     // the json_room it was written after
	unsigned threads;   // opts.threads
} gltf_ctx;

// -- Errors and warnings (public gsio_error fields only)

static void fail_at(gsio_error *err, gsio_error_code code, const char *file, int line,
                    const char *fmt, ...) GSIO_PRINTF(5, 6);

static void fail_at(gsio_error *err, gsio_error_code code, const char *file, int line,
                    const char *fmt, ...)
{
	if (!err) return;
	gsio_error_clear(err);
	err->code = code;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->offset = -1;
	err->src_file = file;
	err->src_line = line;
}

#define FAIL(c, code, ...) fail_at((c)->err, (code), __FILE__, __LINE__, __VA_ARGS__)

static void warn(gltf_ctx *c, const char *fmt, ...) GSIO_PRINTF(2, 3);

static void warn(gltf_ctx *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	gsio_gltf_output *o = c->out;
	char **w = realloc(o->warnings, (o->warnings_count + 1) * sizeof(*w));
	if (!w) {
		c->json_failed = true;
		return;
	}
	o->warnings = w;
	if (!(w[o->warnings_count] = strdup(buf))) {
		c->json_failed = true;
		return;
	}
	o->warnings_count++;
}

static bool fail_nomem(gltf_ctx *c, const char *what)
{
	FAIL(c, GSIO_ERR_NOMEM, "out of memory writing glTF (%s)", what);
	return false;
}

static bool mul_size(size_t a, size_t b, size_t *out)
{
	if (b && a > SIZE_MAX / b) return false;
	*out = a * b;
	return true;
}

static void *xmalloc_array(gltf_ctx *c, size_t count, size_t size)
{
	size_t n;
	if (!mul_size(count, size, &n)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer size overflows");
		return NULL;
	}
	void *p = malloc(n ? n : 1);
	if (!p) fail_nomem(c, "a temporary array");
	return p;
}

static bool add_file(gsio_gltf_output *o, const char *name, uint8_t *data, size_t size)
{
	gsio_gltf_file *f = realloc(o->files, (o->files_count + 1) * sizeof(*f));
	if (!f) return false;
	o->files = f;
	char *n = strdup(name);
	if (!n) return false;
	f[o->files_count].name = n;
	f[o->files_count].data = data;
	f[o->files_count].size = size;
	o->files_count++;
	return true;
}

static const char *or_default(const char *s, const char *fallback)
{
	return s && s[0] ? s : fallback;
}

// -- JSON helpers: every helper records an allocation failure instead of
// returning it, and the writer checks json_failed once before printing.

/** obj[key] = item. The key is not copied (a document of many morph targets
 *  made a copy of "bufferView", "count", ... for every accessor): it must
 *  outlive the document, a string literal or one of the scene's strings;
 *  jset_copy() for any other. */
static void jset(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item)
{
	if (!item || !obj) {
		c->json_failed = true;
		cJSON_Delete(item);
		return;
	}
	if (!cJSON_AddItemToObjectCS(obj, key, item)) {
		cJSON_Delete(item);
		c->json_failed = true;
	}
}

/** jset() with a key of any lifetime (copied). */
static void jset_copy(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item)
{
	if (!item || !obj) {
		c->json_failed = true;
		cJSON_Delete(item);
		return;
	}
	if (!cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		c->json_failed = true;
	}
}

/** A JSON number. cJSON (1.7.15) prints every number with sprintf("%1.15g")
 *  and reads it back with sscanf, a few thousand instructions, and a model
 *  with many morph targets has a dozen integers (views, offsets, counts) per
 *  target. An integer below 1e15 is the text of its digits in "%1.15g"
 *  too, so it goes in as that text (a raw item), written here. */
static cJSON *jnumber(double v)
{
	if (!(v == floor(v) && fabs(v) < 1e15) || (v == 0 && signbit(v))) return cJSON_CreateNumber(v);
	char buf[24], *p = buf + sizeof(buf);
	*--p = 0;
	uint64_t u = (uint64_t)fabs(v);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0) *--p = '-';
	return cJSON_CreateRaw(p);
}

static void jnum(gltf_ctx *c, cJSON *obj, const char *key, double v)
{
	jset(c, obj, key, jnumber(v));
}

static void jstr(gltf_ctx *c, cJSON *obj, const char *key, const char *v)
{
	jset(c, obj, key, cJSON_CreateString(v ? v : ""));
}

static cJSON *jobj(gltf_ctx *c)
{
	cJSON *o = cJSON_CreateObject();
	if (!o) c->json_failed = true;
	return o;
}

static cJSON *jarr(gltf_ctx *c)
{
	cJSON *o = cJSON_CreateArray();
	if (!o) c->json_failed = true;
	return o;
}

// -- A GLB's big arrays as text

/* A GLB's JSON is printed unformatted, so the arrays that grow with the
 * scene (views, accessors, meshes, nodes, materials, images, textures,
 * skins, animations, the scene's nodes) are kept as the text cJSON would
 * print for them: each item is printed (or, when it is already a raw item,
 * copied) as it is appended, and freed. The tree then holds one mesh or
 * node at a time, not all of them with a cJSON item and a key copy per
 * member: a level's model of 223 meshes and 224 nodes held 500 KB of
 * items for 135 KB of text. The texts go into the JSON chunk where the
 * printed document has their marks (jtext_take, glb_json_emit): the same
 * bytes as the whole tree printed. A .gltf is printed formatted: no text
 * there.
 * The arrays stay cJSON arrays, empty, as the handles jadd() and jpush()
 * are given. */
static jtext *jtext_of(gltf_ctx *c, const cJSON *arr)
{
	if (c->separate || !arr) return NULL;
	cJSON *const of[JT_COUNT] = {
	    [JT_VIEWS] = c->views,         [JT_ACCESSORS] = c->accessors, [JT_MESHES] = c->meshes,
	    [JT_NODES] = c->nodes,         [JT_MATERIALS] = c->materials, [JT_IMAGES] = c->images,
	    [JT_TEXTURES] = c->textures,   [JT_SKINS] = c->skins,         [JT_ANIMATIONS] = c->animations,
	    [JT_SCENE_NODES] = c->scene_nodes};
	for (int k = 0; k < JT_COUNT; k++)
		if (arr == of[k]) return &c->jt[k];
	return NULL;
}

/** Appends an item's text (with the ',' or '[' before it), keeping room for
 *  the closing "]" and its terminator. */
static bool jtext_append(jtext *t, const char *text)
{
	size_t n = strlen(text);
	if (n > SIZE_MAX / 2 - t->len - 3) return false;
	if (t->len + n + 3 > t->cap) {
		// realloc: a large block grows by remapping its pages, not by a copy
		// beside the old one.
		size_t cap = t->cap ? t->cap + t->cap / 2 : 256;
		if (cap < t->len + n + 3) cap = t->len + n + 3;
		char *p = realloc(t->p, cap);
		if (!p) return false;
		t->p = p;
		t->cap = cap;
	}
	t->p[t->len++] = t->n ? ',' : '[';
	memcpy(t->p + t->len, text, n);
	t->len += n;
	t->n++;
	return true;
}

/** Ends the text t with the "]" that closes its array (jtext_append kept
 *  room for it and the terminator). */
static void jtext_close(jtext *t)
{
	t->p[t->len++] = ']';
	t->p[t->len] = 0;
}

/** Appends item to the text t; the item is freed. */
static bool jtext_add(gltf_ctx *c, jtext *t, cJSON *item)
{
	char *printed = NULL;
	const char *text = cJSON_IsRaw(item) ? item->valuestring : (printed = cJSON_PrintUnformatted(item));
	bool ok = text && jtext_append(t, text);
	cJSON_free(printed);
	cJSON_Delete(item);
	if (!ok) c->json_failed = true;
	return ok;
}

/** The array to put in the document for *arr: its text as one raw item for a
 *  GLB, else the array itself; NULL when it is empty (or on failure). *arr is
 *  taken (NULL afterwards). */
static cJSON *jtext_take(gltf_ctx *c, cJSON **arr)
{
	cJSON *a = *arr;
	jtext *t = jtext_of(c, a);
	*arr = NULL;
	if (!t) {
		if (a && cJSON_GetArraySize(a) > 0) return a;
		cJSON_Delete(a);
		return NULL;
	}
	cJSON_Delete(a);
	if (!t->n) return NULL;
	jtext_close(t);
	// In the document a mark stands for the text: byte 0x01 and the array's
	// letter, printed as they are (a raw item; cJSON escapes control bytes
	// in strings, so a 0x01 in the printed document is a mark). The GLB's
	// JSON chunk is written from the document and the texts (glb_json_emit),
	// never whole in one buffer.
	char mark[3] = {JT_MARK, (char)('A' + (t - c->jt)), 0};
	cJSON *raw = cJSON_CreateRaw(mark);
	if (!raw) c->json_failed = true;
	return raw;
}

/** The JSON chunk's length: the printed document less its marks, plus the
 *  texts they stand for. */
static size_t glb_json_len(const gltf_ctx *c, const char *doc)
{
	size_t len = 0;
	for (const char *q = doc; *q; q++) {
		if (*q != JT_MARK) {
			len++;
			continue;
		}
		len += c->jt[q[1] - 'A'].len;
		q++;
	}
	return len;
}

/** Hands the JSON chunk to emit in pieces: the document's runs between
 *  marks, and each mark's text, freed once handed on. False when emit
 *  fails. */
static bool glb_json_emit(gltf_ctx *c, const char *doc, bool (*emit)(void *user, const void *p, size_t n),
                          void *user)
{
	const char *run = doc;
	for (const char *q = doc;; q++) {
		if (*q && *q != JT_MARK) continue;
		if (q > run && !emit(user, run, (size_t)(q - run))) return false;
		if (!*q) return true;
		jtext *t = &c->jt[q[1] - 'A'];
		if (t->len && !emit(user, t->p, t->len)) return false;
		free(t->p);
		t->p = NULL;
		t->len = t->cap = 0;
		q++;
		run = q + 1;
	}
}

/** Appends item to arr (deletes it on failure). */
static void jadd(gltf_ctx *c, cJSON *arr, cJSON *item)
{
	jtext *t = item ? jtext_of(c, arr) : NULL;
	if (t) {
		jtext_add(c, t, item);
		return;
	}
	if (!item || !arr || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		c->json_failed = true;
	}
}

/** Appends item to arr and returns its index, -1 on failure. */
static int jpush(gltf_ctx *c, cJSON *arr, cJSON *item)
{
	if (!item || !arr) {
		cJSON_Delete(item);
		c->json_failed = true;
		return -1;
	}
	// cJSON counts an array by walking it: the arrays that grow with the
	// frame count (a view and an accessor per morph target) or with the
	// scene (images, textures, meshes) keep their own count, or a model of
	// 231 frames spends 8% of its time counting, and a level of 8 000
	// textures a quarter; appends whose index nobody reads (targets, names)
	// go through jadd(). Only jpush() appends to these five. A GLB's text
	// arrays count their items.
	jtext *t = jtext_of(c, arr);
	if (t) {
		int at = t->n;
		return jtext_add(c, t, item) ? at : -1;
	}
	int *known = arr == c->accessors  ? &c->accessors_n
	             : arr == c->views    ? &c->views_n
	             : arr == c->images   ? &c->images_n
	             : arr == c->textures ? &c->textures_n
	             : arr == c->meshes   ? &c->meshes_n
	                                  : NULL;
	int idx = known ? *known : cJSON_GetArraySize(arr);
	if (!cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		c->json_failed = true;
		return -1;
	}
	if (known) ++*known;
	return idx;
}

static void jpush_num(gltf_ctx *c, cJSON *arr, double v)
{
	jadd(c, arr, jnumber(v));
}

/** A float as JSON text that reads back as exactly that float's value.
 *  cJSON's own printer settles for 15 digits when they read back "close
 *  enough", which breaks the rule that accessor min/max equal the data;
 *  17 significant digits name every double (so every float) exactly
 *  (gltf_json_float: printf's "%.17g", with a '.' in any locale). */
static cJSON *jfloat(float f)
{
	char out[GLTF_JSON_FLOAT_MAX];
	gltf_json_float(f, out);
	return cJSON_CreateRaw(out);
}

/** n <= 16 floats as the unformatted text cJSON prints for their array,
 *  "[a,b,c]", at out (room for 16 * (GLTF_JSON_FLOAT_MAX + 1) + 2 bytes, no
 *  terminator); returns its length. */
static size_t floats_text(const float *v, int n, char *out)
{
	size_t len = 0;
	out[len++] = '[';
	for (int i = 0; i < n; i++) {
		if (i) out[len++] = ',';
		len += gltf_json_float(v[i], out + len);
	}
	out[len++] = ']';
	return len;
}

static cJSON *jfloats(gltf_ctx *c, const float *v, int n)
{
	if (!c->separate && n >= 0 && n <= 16) {
		// A GLB's JSON is printed unformatted: the array goes in as the text
		// cJSON would print for it, "[a,b,c]", one allocation instead of
		// 2n + 1 (accessor min/max: four arrays a morph target). cJSON_Print
		// (the .gltf) spaces arrays out, so there they stay arrays.
		char text[16 * (GLTF_JSON_FLOAT_MAX + 1) + 2];
		text[floats_text(v, n, text)] = 0;
		cJSON *r = cJSON_CreateRaw(text);
		if (!r) c->json_failed = true;
		return r;
	}
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; a && i < n; i++) {
		cJSON *x = jfloat(v[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			cJSON_Delete(a);
			a = NULL;
		}
	}
	if (!a) c->json_failed = true;
	return a;
}

static const char *type_name(int ncomp)
{
	switch (ncomp) {
	case 1: return "SCALAR";
	case 2: return "VEC2";
	case 3: return "VEC3";
	case 4: return "VEC4";
	default: return "MAT4";
	}
}

/* The objects a glTF has one of per buffer view and per accessor (four a
 * morph target) built for a GLB as the text cJSON would print for them, one
 * raw item (two allocations) instead of a node, a key and a value per
 * member (about twenty): the tree of golem's 231 morph targets was a fifth
 * of mdl2gltf's instructions, mostly malloc and free. A .gltf is printed
 * formatted, so there they stay cJSON objects; the same members in the same
 * order either way. Members are integers, plain-ASCII strings and float
 * arrays (jfloats). */
#define JB_MAX (2 * (16 * (GLTF_JSON_FLOAT_MAX + 1) + 16) + 256)
typedef struct jbuild {
	gltf_ctx *c;
	cJSON *obj;           // .gltf: the object; GLB: NULL, the text below
	char text[JB_MAX];
	size_t len;
} jbuild;

static void jb_start(gltf_ctx *c, jbuild *b)
{
	b->c = c;
	b->obj = c->separate ? jobj(c) : NULL;
	b->len = 0;
	b->text[b->len++] = '{';
}

static void jb_key(jbuild *b, const char *key)
{
	size_t n = strlen(key);
	if (b->len > 1) b->text[b->len++] = ',';
	b->text[b->len++] = '"';
	memcpy(b->text + b->len, key, n);
	b->len += n;
	b->text[b->len++] = '"';
	b->text[b->len++] = ':';
}

static void jb_int(jbuild *b, const char *key, size_t v)
{
	if (b->obj) {
		jnum(b->c, b->obj, key, (double)v);
		return;
	}
	jb_key(b, key);
	char digits[24], *p = digits + sizeof(digits);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	size_t n = (size_t)(digits + sizeof(digits) - p);
	memcpy(b->text + b->len, p, n);
	b->len += n;
}

/** s: ASCII without quotes or backslashes (a type name). */
static void jb_str(jbuild *b, const char *key, const char *s)
{
	if (b->obj) {
		jstr(b->c, b->obj, key, s);
		return;
	}
	jb_key(b, key);
	size_t n = strlen(s);
	b->text[b->len++] = '"';
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len++] = '"';
}

/** n <= 16 floats, as jfloats() prints them. */
static void jb_floats(jbuild *b, const char *key, const float *v, int n)
{
	if (b->obj) {
		jset(b->c, b->obj, key, jfloats(b->c, v, n));
		return;
	}
	jb_key(b, key);
	b->len += floats_text(v, n, b->text + b->len);
}

/** A GLB's object ended: its text, "{...}". */
static const char *jb_end(jbuild *b)
{
	b->text[b->len++] = '}';
	b->text[b->len] = 0;
	return b->text;
}

/** Appends the object to arr; its index or -1. */
static int jb_push(jbuild *b, cJSON *arr)
{
	if (b->obj) return jpush(b->c, arr, b->obj);
	return jpush(b->c, arr, cJSON_CreateRaw(jb_end(b)));
}

/** A buffer view of `size` bytes at `off` of buffer 0 past the images (job
 *  -1), or image job `job`'s; its index or -1. Printed by emit_views() when
 *  the images' sizes are known. */
static int view_record(gltf_ctx *c, size_t off, size_t size, int stride, int target, int job)
{
	if (c->vrec_n == c->vrec_cap) {
		size_t cap = c->vrec_cap ? 2 * c->vrec_cap : 64;
		view_rec *v = cap < INT32_MAX ? realloc(c->vrec, cap * sizeof(*v)) : NULL;
		if (!v) {
			fail_nomem(c, "the buffer views");
			return -1;
		}
		c->vrec = v;
		c->vrec_cap = cap;
	}
	c->vrec[c->vrec_n] = (view_rec){off, size, stride, target, job};
	return (int)c->vrec_n++;
}

static int view_json(gltf_ctx *c, size_t off, size_t size, int stride, int target)
{
	return view_record(c, off, size, stride, target, -1);
}

/** Prints every buffer view, in the order they were made: an image's past
 *  the rest of the buffer (a GLB's; a .gltf's images are files), at its
 *  offset and size, or, with `bounds`, at those the images' bounds give
 *  (plan_bounds). A GLB's views go straight into their text, which
 *  glb_images() makes again with the images' sizes; a .gltf's into the
 *  array. */
static void emit_views(gltf_ctx *c, bool bounds)
{
	jtext *t = c->separate ? NULL : &c->jt[JT_VIEWS];
	if (t) t->len = t->n = 0;
	for (size_t i = 0; i < c->vrec_n; i++) {
		const view_rec *v = &c->vrec[i];
		const image_job *j = v->job >= 0 ? &c->jobs[v->job] : NULL;
		size_t off = j ? c->bin.size + (bounds ? j->boff : j->off) : v->off;
		size_t size = j ? (bounds ? j->bound : j->size) : v->size;
		jbuild b;
		jb_start(c, &b);
		jb_int(&b, "buffer", 0);
		if (off) jb_int(&b, "byteOffset", off);
		jb_int(&b, "byteLength", size);
		if (v->stride) jb_int(&b, "byteStride", (size_t)v->stride);
		if (v->target) jb_int(&b, "target", (size_t)v->target);
		if (!t) {
			jb_push(&b, c->views);
			continue;
		}
		if (!jtext_append(t, jb_end(&b))) c->json_failed = true;
	}
}

/** A float accessor over a whole view, with min/max (ncomp <= 16 floats
 *  each) unless they are NULL; its index or -1. */
static int float_accessor_json(gltf_ctx *c, int view, size_t count, int ncomp, const float *mn,
                               const float *mx)
{
	jbuild b;
	jb_start(c, &b);
	if (!b.obj && ncomp > 16) b.obj = jobj(c); // past the text's room (no glTF type is)
	jb_int(&b, "bufferView", (size_t)view);
	jb_int(&b, "componentType", GLTF_FLOAT);
	jb_int(&b, "count", count);
	jb_str(&b, "type", type_name(ncomp));
	if (mn && mx) {
		jb_floats(&b, "min", mn, ncomp);
		jb_floats(&b, "max", mx, ncomp);
	}
	return jb_push(&b, c->accessors);
}

/** File-name-safe copy of s (letters, digits, '-', '_', '.'; others '_'). */
static void safe_name(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	for (; s && *s && n + 1 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.';
		buf[n++] = ok ? (char)ch : '_';
	}
	buf[n] = 0;
}

/** The file-name stem of an image's PNG beside a .gltf: its safe name without
 *  an image extension it came with (Bob's "guard1_body.png" gives
 *  "guard1_body", not "guard1_body.png.png"). */
static void image_file_stem(const gsio_image *im, char *buf, size_t size)
{
	safe_name(im->name && im->name[0] ? im->name : "image", buf, size);
	static const char *const exts[] = {".png", ".tga", ".jpg", ".jpeg", ".bmp", ".pcx", ".dds"};
	size_t n = strlen(buf);
	for (size_t k = 0; k < sizeof(exts) / sizeof(exts[0]); k++) {
		size_t e = strlen(exts[k]);
		if (n > e && !strcasecmp(buf + n - e, exts[k])) {
			buf[n - e] = 0;
			break;
		}
	}
}

/** RFC 3986 percent-encoding of a relative file name for a glTF uri. */
static void uri_encode(const char *s, char *buf, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;
	for (; *s && n + 4 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		          (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' || ch == '~';
		if (ok) {
			buf[n++] = (char)ch;
		} else {
			buf[n++] = '%';
			buf[n++] = hex[ch >> 4];
			buf[n++] = hex[ch & 15];
		}
	}
	buf[n] = 0;
}

/** Percent-encoding of a relative path for a glTF uri: as uri_encode, but
 *  '/' separators are kept. */
static void uri_encode_path(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	while (*s && n + 1 < size) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		char part[512];
		if (len >= sizeof(part)) len = sizeof(part) - 1;
		memcpy(part, s, len);
		part[len] = 0;
		uri_encode(part, buf + n, size - n);
		n += strlen(buf + n);
		if (!slash) break;
		if (n + 1 < size) buf[n++] = '/';
		buf[n] = 0;
		s = slash + 1;
	}
}

/** An object holding the extras of a list (ints, floats, strings, float
 *  arrays) added to `into` (created when NULL). Returns into, or NULL when
 *  the list is empty and into was NULL. Non-finite floats become null. */
static cJSON *extras_json(gltf_ctx *c, cJSON *into, const gsio_extras *x)
{
	if (!x || !x->count) return into;
	if (!into) into = jobj(c);
	for (size_t i = 0; i < x->count; i++) {
		const gsio_extra *e = &x->items[i];
		if (!e->key) continue;
		cJSON *v = NULL;
		switch (e->type) {
		case GSIO_EXTRA_INT: v = cJSON_CreateNumber((double)e->i); break;
		case GSIO_EXTRA_FLOAT: v = isfinite(e->f) ? cJSON_CreateNumber(e->f) : cJSON_CreateNull(); break;
		case GSIO_EXTRA_STRING: v = cJSON_CreateString(e->s ? e->s : ""); break;
		case GSIO_EXTRA_FLOATS: v = jfloats(c, e->floats, (int)e->floats_count); break;
		default: continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(into, e->key);
		jset_copy(c, into, e->key, v);
	}
	return into;
}

// -- Binary buffer, buffer views, accessors

static bool broken(byte_buf *b)
{
	b->failed = true;
	return false;
}

/* A GLB's binary buffer when writing to a file: the address space for
 * b->limit bytes reserved once (MAP_NORESERVE: pages are made as they are
 * first written, so a small file costs what it uses), aligned to a huge
 * page, so it never moves or copies as it grows. False when the mapping
 * fails: the caller grows a malloc'd buffer instead. The GLB made in
 * memory (gsio_gltf_write) and a .bin handed to the caller stay malloc'd:
 * they are the caller's to free(). */
static bool map_buffer(byte_buf *b)
{
	uint8_t *at = gsioi_map_reserved(b->limit, &b->map, &b->map_size);
	if (!at) return false;
	b->data = at;
	b->cap = b->limit;
	b->advised = 0;
	return true;
}

/* A lower bound of the bytes the BIN gets before the images (the part made
 * in memory; the images are placed after it at the end): what a mesh
 * surely writes (a vertex: 12 bytes of position, 12 of normal, 8 of uv;
 * compact: 8 of position; a morph target's 12 + 12 a vertex, 4 compact,
 * none sparse) and an animation's translation, rotation and scale keys with
 * their times. Meshes that share another's positions are not counted
 * (they may share its accessors). */
static size_t bin_before_images(const gltf_ctx *c)
{
	double bytes = 0;
	for (size_t i = 0; i < c->s->meshes_count; i++) {
		const gsio_mesh *m = &c->s->meshes[i];
		if (c->same_first[i] != SIZE_MAX && c->same_first[i] != i) continue;
		double nv = (double)m->vertex_count, nrm = m->normals ? 12 : 0;
		bytes += (c->compact ? 8 : 12 + nrm + (m->uvs ? 8 : 0)) * nv;
		if (c->animate && m->frames_count >= 2 && !c->sparse)
			bytes += (c->compact ? 4 : 12 + nrm) * nv * (double)m->frames_count;
	}
	for (size_t i = 0; c->animate && i < c->s->animations_count; i++) {
		const gsio_animation *an = &c->s->animations[i];
		double keys = (double)an->frames_count, vals = 0;
		for (size_t k = 0; k < an->channels_count; k++) {
			gsio_channel_path p = an->channels[k].path;
			if (p == GSIO_PATH_TRANSLATION || p == GSIO_PATH_SCALE) vals += 3;
			if (p == GSIO_PATH_ROTATION) vals += 4;
		}
		if (vals > 0) bytes += 4 * keys * (vals + 1);
	}
	return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX / 2;
}

/* How much of a 2 MiB block after the first the BIN must surely fill for
 * the block to be a huge page: a huge page costs one fault and 2 MiB of
 * memory, 4 KiB pages a fault each (about 2 us on this machine, allocation
 * and zeroing included: human's last 1.2 MB in 4 KiB pages made its
 * conversion 6% slower end to end). Below a quarter, at most 128 faults;
 * above, at most 1.5 MiB unused. */
#define HUGE_BLOCK_FILL (GSIO_HUGE_PAGE / 4)

/* And what a later block's huge page leaves unused must be at most a third
 * of the BIN (the memory goal's measure is the output's size): a 2.85 MiB
 * BIN (cbabe_male 2.mdl) fills 0.85 MiB of its second block, 1.15 MiB
 * unused, more than a third: 4 KiB pages there (its data peak 2.11 ->
 * 1.8 times input + output, about 220 more faults); golem's 4.74 MiB leaves
 * 1.26 MiB of its third, under a third (at a quarter it would not be:
 * golem is the file furthest over the end-to-end line). */
#define HUGE_WASTE_DIV 3

/* Transparent huge pages (2 MiB; Linux THP in "madvise" mode, as on Debian
 * 12) for the mapped buffer's 2 MiB blocks: the first when the BIN surely
 * fills it (a small output must not cost a 2 MiB page), a later one when
 * the BIN surely fills a quarter of it and leaves at most a third of the
 * BIN's size of it unused (HUGE_WASTE_DIV). Each block is decided when a
 * reservation first reaches into it, before its first byte is written
 * (advice after that is too late). Until December 2026 every block was
 * advised when the writer expected more than 2 MiB, else every block past
 * the first: a last block only begun was a nearly empty huge page (up to
 * 2 MB of peak RSS). The BIN surely reaches the bytes so far and those
 * reserved, and at least bin_before_images(). */
static void advise_ahead(gltf_ctx *c, size_t more)
{
	byte_buf *b = &c->bin;
	size_t held_end = b->size - b->spilled + more;
	size_t surely = b->size + more;
	if (c->bin_surely > surely) surely = c->bin_surely;
	while (b->advised < held_end && b->advised < b->cap) {
		size_t block_end = b->advised + GSIO_HUGE_PAGE; // in memory; + spilled in the BIN
		size_t start = b->advised + b->spilled; // the block's first byte in the BIN
		bool huge = block_end <= b->cap && start + (start ? HUGE_BLOCK_FILL : GSIO_HUGE_PAGE) <= surely;
		if (huge && start) {
			size_t fill = surely - start < GSIO_HUGE_PAGE ? surely - start : GSIO_HUGE_PAGE;
			huge = (GSIO_HUGE_PAGE - fill) <= surely / HUGE_WASTE_DIV;
		}
		if (huge) gsioi_advise_huge(b->data + b->advised, GSIO_HUGE_PAGE);
		b->advised = block_end;
	}
}

static void buf_free(byte_buf *b)
{
	if (b->map)
		gsioi_unmap_reserved(b->map, b->map_size);
	else
		free(b->data);
	b->map = NULL;
	b->data = NULL;
	b->size = b->cap = 0;
}

static bool buf_reserve(gltf_ctx *c, size_t more)
{
	byte_buf *b = &c->bin;
	size_t held = b->size - b->spilled;
	if (b->map && held + more > b->advised) advise_ahead(c, more);
	if (held + more <= b->cap) return true;
	if (!b->cap && c->sink && !c->separate && more <= b->limit && map_buffer(b)) {
		advise_ahead(c, more);
		return true;
	}
	if (b->map) { // the spill rules keep a mapped buffer within its limit
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer: %zu bytes past its %zu", held + more, b->cap);
		return broken(b);
	}
	size_t cap = b->cap ? b->cap : 65536;
	while (cap < held + more) cap = cap > BUFFER_LIMIT / 2 ? BUFFER_LIMIT : cap * 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d) {
		fail_nomem(c, "the binary buffer");
		return broken(b);
	}
	b->data = d;
	b->cap = cap;
	return true;
}

/** Writes the bytes held in memory to the spill file, opening it first: an
 *  unnamed temporary beside the GLB, or the .bin itself (SEPARATE). Unless
 *  `all`, the bytes past the buffer's last 4-byte boundary stay in memory,
 *  at data[0]: `spilled` stays a multiple of 4, so a view that starts on a
 *  4-byte offset of the buffer starts on one in memory too (view_room()
 *  hands out floats there; a spill after an odd-sized PNG once left them
 *  misaligned). */
static bool buf_spill(gltf_ctx *c, bool all)
{
	byte_buf *b = &c->bin;
	if (!b->spill) {
		if (c->separate) {
			char path[4200];
			int n = snprintf(path, sizeof(path), "%.*s%s.bin", (int)c->sink->dir_len, c->sink->path, c->name);
			if (n < 0 || (size_t)n >= sizeof(path)) {
				FAIL(c, GSIO_ERR_ARGUMENT, "path too long: %s", c->sink->path);
				return false;
			}
			b->spill = gsioi_place_open(path, c->err);
		} else {
			b->spill = gsioi_place_scratch(c->sink->path, c->err);
		}
		if (!b->spill) return false;
	}
	size_t held = b->size - b->spilled, keep = all ? 0 : b->size % 4;
	if (held > keep && gsioi_place_write(b->spill, b->data, held - keep, c->err)) return false;
	if (keep) memmove(b->data, b->data + held - keep, keep);
	b->spilled = b->size - keep;
	return true;
}

/** Appends size bytes to the buffer, zeros when data is NULL. A failure is
 *  sticky: some callers only pass a -1 view on, and the write must still
 *  fail with the first error (a full disk, say). */
static bool buf_append(gltf_ctx *c, const void *data, size_t size)
{
	byte_buf *b = &c->bin;
	if (b->failed) return false;
	if (size > BUFFER_LIMIT - b->size) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer exceeds 4 GiB");
		return broken(b);
	}
	if (c->sink && b->size - b->spilled + size > b->limit) {
		if (!buf_spill(c, false)) return broken(b);
		if (data && size >= b->limit) {
			// Straight to the file after the bytes kept in memory, but for
			// its own bytes past the last 4-byte boundary, which are kept.
			size_t kept = b->size - b->spilled, end = b->size + size, tail = end % 4;
			if (tail && !buf_reserve(c, tail)) return false;
			if ((kept && gsioi_place_write(b->spill, b->data, kept, c->err)) ||
			    gsioi_place_write(b->spill, data, size - tail, c->err))
				return broken(b);
			if (tail) memcpy(b->data, (const uint8_t *)data + size - tail, tail);
			b->size = end;
			b->spilled = end - tail;
			return true;
		}
	}
	if (!size) return true;
	if (!buf_reserve(c, size)) return false;
	uint8_t *at = b->data + (b->size - b->spilled);
	if (data)
		memcpy(at, data, size);
	else
		memset(at, 0, size);
	b->size += size;
	return true;
}

static bool buffer_align(gltf_ctx *c)
{
	return buf_append(c, NULL, (4 - c->bin.size % 4) % 4);
}

/** Appends bytes as a new buffer view (4-byte aligned) with a byteStride
 *  when `stride` is not 0. Returns its index or -1. */
static int add_view_strided(gltf_ctx *c, const void *data, size_t size, int target, int stride)
{
	if (!buffer_align(c)) return -1;
	size_t off = c->bin.size;
	if (!buf_append(c, data, size)) return -1;
	return view_json(c, off, size, stride, target);
}

static int add_view(gltf_ctx *c, const void *data, size_t size, int target)
{
	return add_view_strided(c, data, size, target, 0);
}

static void min_max(const float *v, size_t count, int ncomp, float *mn, float *mx)
{
	for (int k = 0; k < ncomp; k++) mn[k] = mx[k] = 0;
	for (size_t i = 0; i < count; i++)
		for (int k = 0; k < ncomp; k++) {
			float x = v[i * (size_t)ncomp + (size_t)k];
			if (i == 0 || x < mn[k]) mn[k] = x;
			if (i == 0 || x > mx[k]) mx[k] = x;
		}
}

/** A float accessor over its own view, with the given min/max (of `ncomp`
 *  floats each) unless they are NULL. Returns the accessor index or -1. */
static int float_accessor_mm(gltf_ctx *c, const float *data, size_t count, int ncomp,
                             const float *mn, const float *mx, int target)
{
	size_t bytes;
	if (!mul_size(count, (size_t)ncomp * sizeof(float), &bytes)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF accessor size overflows");
		return -1;
	}
	int view = add_view(c, data, bytes, target);
	if (view < 0) return -1;
	return float_accessor_json(c, view, count, ncomp, mn, mx);
}

/** A float accessor over its own view. min/max when asked (POSITION,
 *  animation inputs). Returns the accessor index or -1. */
static int float_accessor(gltf_ctx *c, const float *data, size_t count, int ncomp,
                          bool with_min_max, int target)
{
	float mn[16], mx[16];
	if (with_min_max) min_max(data, count, ncomp, mn, mx);
	return float_accessor_mm(c, data, count, ncomp, with_min_max ? mn : NULL,
	                         with_min_max ? mx : NULL, target);
}

/** A morph-target delta accessor (VEC3, `count` elements, min/max of the
 *  dense values given, as min_max() finds them). Dense
 *  with its own view by default: Godot 3.2.3 reads sparse accessors, and
 *  accessors without a view, as garbage or hangs. With GSIO_GLTF_SPARSE_MORPH
 *  only the k elements listed in idx (strictly increasing) are stored: no
 *  view at all when k == 0 (the spec fills such an accessor with zeros),
 *  sparse when that is smaller than dense storage. */
static int delta_accessor(gltf_ctx *c, const float *dense, size_t count, const float mn[3],
                          const float mx[3], const uint32_t *idx, size_t k, float *scratch)
{
	size_t index_size = count <= 65535 ? 2 : 4;
	if (!c->sparse || (k > 0 && k * (12 + index_size) >= count * 12))
		return float_accessor_mm(c, dense, count, 3, mn, mx, GLTF_ARRAY_BUFFER);
	cJSON *a = jobj(c);
	jnum(c, a, "componentType", GLTF_FLOAT);
	jnum(c, a, "count", (double)count);
	jstr(c, a, "type", "VEC3");
	jset(c, a, "min", jfloats(c, mn, 3));
	jset(c, a, "max", jfloats(c, mx, 3));
	if (k > 0) {
		// Indices (u16 or u32) into scratch, then the packed values.
		uint16_t *i16 = (uint16_t *)scratch;
		uint32_t *i32 = (uint32_t *)scratch;
		for (size_t i = 0; i < k; i++) {
			if (index_size == 2)
				i16[i] = (uint16_t)idx[i];
			else
				i32[i] = idx[i];
		}
		int iv = add_view(c, scratch, k * index_size, 0);
		for (size_t i = 0; i < k; i++) memcpy(scratch + 3 * i, dense + 3 * (size_t)idx[i], 12);
		int vv = add_view(c, scratch, k * 12, 0);
		if (iv < 0 || vv < 0) {
			cJSON_Delete(a);
			return -1;
		}
		cJSON *sp = jobj(c), *si = jobj(c), *sv = jobj(c);
		jnum(c, sp, "count", (double)k);
		jnum(c, si, "bufferView", iv);
		jnum(c, si, "componentType", index_size == 2 ? GLTF_UNSIGNED_SHORT : GLTF_UNSIGNED_INT);
		jnum(c, sv, "bufferView", vv);
		jset(c, sp, "indices", si);
		jset(c, sp, "values", sv);
		jset(c, a, "sparse", sp);
	}
	return jpush(c, c->accessors, a);
}

// -- Quantised attributes (GSIO_GLTF_COMPACT, KHR_mesh_quantization)

/** A quantised vertex attribute over its own view: `count` elements of
 *  `ncomp` components of `csize` bytes (1: BYTE/UNSIGNED_BYTE, 2: SHORT/
 *  UNSIGNED_SHORT), each element padded to `stride` bytes (the extension
 *  wants every element 4-byte aligned). `q` holds the integer values,
 *  count * ncomp; min/max (of the stored integers, which is what the spec
 *  asks even for normalized accessors) when asked. Returns the accessor or -1. */
static int quant_accessor(gltf_ctx *c, const int32_t *q, size_t count, int ncomp, int ctype,
                          bool with_min_max)
{
	int csize = ctype == GLTF_BYTE || ctype == GLTF_UNSIGNED_BYTE ? 1 : 2;
	int stride = (ncomp * csize + 3) / 4 * 4;
	size_t bytes;
	if (!mul_size(count, (size_t)stride, &bytes)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF accessor size overflows");
		return -1;
	}
	uint8_t *b = calloc(bytes ? bytes : 1, 1);
	if (!b) return fail_nomem(c, "a quantised accessor"), -1;
	int32_t mn[4] = {0}, mx[4] = {0};
	for (size_t i = 0; i < count; i++)
		for (int k = 0; k < ncomp; k++) {
			int32_t v = q[i * (size_t)ncomp + (size_t)k];
			if (i == 0 || v < mn[k]) mn[k] = v;
			if (i == 0 || v > mx[k]) mx[k] = v;
			uint8_t *d = b + i * (size_t)stride + (size_t)(k * csize);
			if (csize == 1) {
				d[0] = (uint8_t)(v & 0xff);
			} else {
				uint16_t u = (uint16_t)(v & 0xffff); // little endian, as GLB is
				d[0] = (uint8_t)(u & 0xff);
				d[1] = (uint8_t)(u >> 8);
			}
		}
	int view = add_view_strided(c, b, bytes, GLTF_ARRAY_BUFFER, stride);
	free(b);
	if (view < 0) return -1;
	cJSON *a = jobj(c);
	jnum(c, a, "bufferView", view);
	jnum(c, a, "componentType", ctype);
	cJSON_AddBoolToObject(a, "normalized", 1);
	jnum(c, a, "count", (double)count);
	jstr(c, a, "type", type_name(ncomp));
	if (with_min_max) {
		cJSON *jmn = jarr(c), *jmx = jarr(c);
		for (int k = 0; k < ncomp; k++) {
			jpush_num(c, jmn, mn[k]);
			jpush_num(c, jmx, mx[k]);
		}
		jset(c, a, "min", jmn);
		jset(c, a, "max", jmx);
	}
	c->used_quant = true;
	return jpush(c, c->accessors, a);
}

static int32_t quant(double x, int32_t lim)
{
	double r = floor(x * lim + 0.5);
	return (int32_t)(r < -lim ? -lim : r > lim ? lim : r);
}

/** Normals (unit, output axes) as normalized BYTE VEC3. */
static int normal_accessor_q(gltf_ctx *c, const float *nrm, size_t nv)
{
	int32_t *q = xmalloc_array(c, nv, 3 * sizeof(int32_t));
	if (!q) return -1;
	for (size_t i = 0; i < 3 * nv; i++) q[i] = quant(nrm[i], 127);
	int a = quant_accessor(c, q, nv, 3, GLTF_BYTE, false);
	free(q);
	return a;
}

/** UVs as normalized UNSIGNED_SHORT when all lie in 0..1, else float. */
static int uv_accessor_q(gltf_ctx *c, const float *uv, size_t nv)
{
	for (size_t i = 0; i < 2 * nv; i++)
		if (!(uv[i] >= 0 && uv[i] <= 1)) return float_accessor(c, uv, nv, 2, false, GLTF_ARRAY_BUFFER);
	int32_t *q = xmalloc_array(c, nv, 2 * sizeof(int32_t));
	if (!q) return -1;
	for (size_t i = 0; i < 2 * nv; i++) q[i] = (int32_t)floor((double)uv[i] * 65535 + 0.5);
	int a = quant_accessor(c, q, nv, 2, GLTF_UNSIGNED_SHORT, false);
	free(q);
	return a;
}

/** Which meshes may have quantised positions: the dequantisation goes into
 *  the placing nodes' translation and scale, so every placing node must be
 *  a leaf (children would inherit the scale) without a TRS channel (the
 *  animation would overwrite it), and the mesh must not be skinned (a skin
 *  ignores the node's transform). */
static void plan_quant(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t mi = 0; mi < s->meshes_count; mi++) {
		const gsio_mesh *m = &s->meshes[mi];
		bool ok = c->compact && !(m->weights.count && m->skin >= 0);
		bool placed = false;
		for (size_t i = 0; ok && i < s->nodes_count; i++) {
			if (s->nodes[i].mesh != (int32_t)mi) continue;
			placed = true;
			for (size_t k = 0; ok && k < s->nodes_count; k++) ok = s->nodes[k].parent != (int32_t)i;
			for (size_t a = 0; ok && a < s->animations_count; a++)
				for (size_t ch = 0; ok && ch < s->animations[a].channels_count; ch++) {
					const gsio_channel *h = &s->animations[a].channels[ch];
					ok = !(h->node == (int32_t)i && h->path <= GSIO_PATH_SCALE);
				}
		}
		c->q_ok[mi] = ok && placed;
	}
}

// -- Axes and maths

/** Scene axes (Z up, X forward) -> glTF (Y up, front +Z): (x,y,z)_gltf =
 *  (y, z, x)_scene, a cyclic permutation R: a proper rotation, no mirror.
 *  Every node's local transform is conjugated by R (R T R^-1), so the node
 *  tree keeps its shape while the mesh data (in R's frame too) lines up. */
static void xf_dir(const gltf_ctx *c, const float in[3], float out[3])
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

static void xf_pos(const gltf_ctx *c, const float in[3], float out[3])
{
	xf_dir(c, in, out);
	for (int k = 0; k < 3; k++) out[k] *= c->scale;
}

/** Normalises in place; false (and a fallback value) when it cannot. */
static bool normalize3(float *v, const float fallback[3])
{
	double l = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
	if (!(l > 1e-12) || !isfinite(l)) {
		memcpy(v, fallback, 3 * sizeof(float));
		return false;
	}
	for (int k = 0; k < 3; k++) v[k] = (float)(v[k] / l);
	return true;
}

/** A rotation quaternion (x,y,z,w) conjugated by the axis change: for a
 *  proper rotation R, R q R^-1 rotates about R*axis by the same angle, so the
 *  vector part moves like a direction. Normalised. */
static void xf_quat(const gltf_ctx *c, const float in[4], float out[4])
{
	xf_dir(c, in, out);
	out[3] = in[3];
	gsioi_quat_normalize(out);
}

/** Quaternion of a rotation matrix m[row][col] (Shepperd's method). */
static void mat3_to_quat(const double m[3][3], double q[4])
{
	double t = m[0][0] + m[1][1] + m[2][2];
	if (t > 0) {
		double s = sqrt(t + 1.0) * 2;
		q[3] = 0.25 * s;
		q[0] = (m[2][1] - m[1][2]) / s;
		q[1] = (m[0][2] - m[2][0]) / s;
		q[2] = (m[1][0] - m[0][1]) / s;
	} else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
		double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2;
		q[3] = (m[2][1] - m[1][2]) / s;
		q[0] = 0.25 * s;
		q[1] = (m[0][1] + m[1][0]) / s;
		q[2] = (m[0][2] + m[2][0]) / s;
	} else if (m[1][1] > m[2][2]) {
		double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2;
		q[3] = (m[0][2] - m[2][0]) / s;
		q[0] = (m[0][1] + m[1][0]) / s;
		q[1] = 0.25 * s;
		q[2] = (m[1][2] + m[2][1]) / s;
	} else {
		double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2;
		q[3] = (m[1][0] - m[0][1]) / s;
		q[0] = (m[0][2] + m[2][0]) / s;
		q[1] = (m[1][2] + m[2][1]) / s;
		q[2] = 0.25 * s;
	}
}

/** The fixed rotation from a glTF camera's or light's local frame (looks
 *  along -Z, up +Y, right +X) to the scene's (looks along +X, up +Z, right
 *  -Y), expressed in output axes. */
static void frame_fix(const gltf_ctx *c, float q[4])
{
	const float right[3] = {0, -1, 0}, up[3] = {0, 0, 1}, back[3] = {-1, 0, 0};
	float r[3], u[3], b[3];
	xf_dir(c, right, r);
	xf_dir(c, up, u);
	xf_dir(c, back, b);
	double m[3][3], qd[4];
	for (int i = 0; i < 3; i++) {
		m[i][0] = r[i];
		m[i][1] = u[i];
		m[i][2] = b[i];
	}
	mat3_to_quat(m, qd);
	for (int k = 0; k < 4; k++) q[k] = (float)qd[k];
	gsioi_quat_normalize(q);
}

/** A node rotation for glTF: axis-converted, then followed by the frame fix
 *  when the node's camera or light sits on the node itself. */
static void node_rotation(const gltf_ctx *c, int32_t node, const float in[4], float out[4])
{
	xf_quat(c, in, out);
	if (c->folded[node]) {
		float fix[4];
		frame_fix(c, fix);
		gsioi_quat_mul(out, fix, out);
		gsioi_quat_normalize(out);
	}
}

// -- Images and textures

static bool image_is_embeddable(const uint8_t *d, size_t n, const char **mime, const char **ext)
{
	static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
	if (n >= 8 && !memcmp(d, png_sig, 8)) {
		*mime = "image/png";
		*ext = "png";
		return true;
	}
	if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) {
		*mime = "image/jpeg";
		*ext = "jpg";
		return true;
	}
	return false;
}

/** The PNG file name of image i beside a .gltf: "<model>_<stem>.png", with
 *  the index added when two images share a stem ("a.png" and "a.tga"). */
static void image_file_name(gltf_ctx *c, size_t i, const char *ext, char *file, size_t size)
{
	const gsio_scene *s = c->s;
	char stem[128], other[128];
	image_file_stem(&s->images[i], stem, sizeof(stem));
	bool dup = false;
	for (size_t k = 0; k < s->images_count && !dup; k++) {
		if (k == i) continue;
		image_file_stem(&s->images[k], other, sizeof(other));
		dup = !strcmp(stem, other);
	}
	if (dup)
		snprintf(file, size, "%s_%s_%zu.%s", c->name, stem, i, ext);
	else
		snprintf(file, size, "%s_%s.%s", c->name, stem, ext);
}

/* Images are made beside the rest of the document. write_images() decides
 * what each image becomes (a PNG encoded here, a file embedded as it is, a
 * reference, or nothing, with a warning) and writes its JSON, its buffer
 * view reserved (printed by emit_views()); make_image() makes the bytes,
 * on a helper thread when the caller allows one (opts.threads) and the
 * pixels are many, else here and now. images_place() finishes what the
 * helper has not begun, waits for it, and places the images at the
 * buffer's start (GLB) or hands them out as files (.gltf): the same bytes
 * as when each was encoded and appended in turn. golem (a 512 x 512 skin,
 * 231 frames): the skin's 1.2 ms of deflate beside the morph targets. */

/** How many pixels (times 8 for the compact output's second deflate)
 *  are worth a thread: one starts in about 0.1-0.2 ms, the encoder does a
 *  256 x 256 skin in about 0.3. */
#define IMAGE_HELPER_PIXELS 65536.0

/** The PNG of job j begun (gsioi_png_begin*); 0, or non-zero with j->err. */
static int begin_image(const gltf_ctx *c, image_job *j, gsioi_png_work **work)
{
	const gsio_image *im = &c->s->images[j->image];
	gsio_error *err = &j->err;
	switch (j->how) {
	case IMG_INDEXED: // kept palettised by the importer: one byte a pixel, as stored
		return gsioi_png_begin_indexed(im->indices, im->width, im->height, im->palette, im->palette_count, work,
		                              err);
	case IMG_RGBA: return gsioi_png_begin(im->rgba, im->width, im->height, work, err);
	case IMG_STORED:
		// Skin pixels as the model stores them (GSIO_OPT_NO_PIXELS): the
		// same PNG, decoded a row at a time.
		return gsioi_png_begin_stored(im->source_format, im->stored, im->width, im->height, NULL, work, err);
	case IMG_DDS:
		// An embedded DDS skin kept as it is: the same PNG as from its
		// decoded pixels, decoded a band of 4 rows at a time.
		return gsioi_png_begin_dds(im->file_data, im->file_size, work, err);
	case IMG_FILE: break;
	}
	return -1; // not reached: a file's job has its bytes
}

/** The PNG file of job j from its work (its bands made), compressed again
 *  for the compact output; sets j's bytes or j->rc. */
static void finish_image(const gltf_ctx *c, image_job *j, gsioi_png_work *work)
{
	uint8_t *png = NULL;
	size_t png_size = 0;
	int rc = gsioi_png_finish(work, &png, &png_size, &j->err);
	if (!rc && c->compact) {
		// Compact output: the PNG compressed again at zlib's best level.
		uint8_t *small;
		size_t small_size;
		rc = gsioi_png_shrink(png, png_size, &small, &small_size, &j->err);
		free(png);
		png = rc ? NULL : small;
		png_size = rc ? 0 : small_size;
	}
	j->rc = rc;
	j->data = png;
	j->size = png_size;
}

/** Makes the bands of job j not claimed yet; the thread that makes the
 *  last makes the file. */
static void make_parts(const gltf_ctx *c, image_job *j)
{
	for (;;) {
		size_t k = atomic_fetch_add_explicit(&j->next_part, 1, memory_order_relaxed);
		if (k >= j->parts) return;
		gsio_error err;
		if (gsioi_png_part(j->work, k, &err)) {
			// The work keeps the failure: gsioi_png_finish() reports it.
		}
		if (atomic_fetch_add_explicit(&j->parts_done, 1, memory_order_acq_rel) + 1 == j->parts) {
			gsioi_png_work *w = j->work;
			j->work = NULL;
			finish_image(c, j, w);
			atomic_store_explicit(&j->state, JOB_MADE, memory_order_release);
		}
	}
}

/** Makes job j's bytes; thread-safe (reads the scene, writes j only). An
 *  image of more than one band is offered to the other thread band by
 *  band (make_parts). */
static void make_image(const gltf_ctx *c, image_job *j)
{
	gsio_error_clear(&j->err);
	gsioi_png_work *work = NULL;
	if (j->how != IMG_FILE && !(j->rc = begin_image(c, j, &work)) && (j->parts = gsioi_png_parts(work)) > 1) {
		j->work = work;
		atomic_store_explicit(&j->state, JOB_OFFERED, memory_order_release);
		make_parts(c, j);
		return;
	}
	if (work) finish_image(c, j, work);
	atomic_store_explicit(&j->state, JOB_MADE, memory_order_release);
}

/** Makes the jobs not claimed yet, one at a time, then the bands of any
 *  image the other thread offers, also of one the other is still beginning,
 *  waiting for its offer (a begin is a probe of its pixels: short). Both
 *  threads run it, and both wait: until December 2026 only the thread
 *  that joins the other did, so a helper that found the caller beginning
 *  the one image (the caller reaches images_place() at once when the
 *  meshes are small) went away, and the caller made every band alone:
 *  electrical1_5's 512 x 512 skin 4.9 ms instead of 2.4 in about a third
 *  of the runs (clock marks). Waiting cannot deadlock: every job is
 *  claimed before either thread waits (a failed write that leaves some
 *  unclaimed sets jobs_stop first), and a begin waits for nothing and
 *  ends with the job offered or made. */
static void make_images(gltf_ctx *c)
{
	for (;;) {
		size_t i = atomic_fetch_add_explicit(&c->jobs_next, 1, memory_order_relaxed);
		if (i >= c->jobs_count) break;
		make_image(c, &c->jobs[i]);
	}
	for (size_t i = 0; i < c->jobs_count; i++) {
		image_job *j = &c->jobs[i];
		int state;
		while ((state = atomic_load_explicit(&j->state, memory_order_acquire)) == JOB_BEGUN &&
		       !atomic_load_explicit(&c->jobs_stop, memory_order_acquire))
			sched_yield();
		if (state == JOB_OFFERED) make_parts(c, j);
	}
}

static void *run_images(void *arg)
{
	make_images(arg);
	return NULL;
}

/** A new job for image i (data: the bytes when they are there already,
 *  malloc'd unless borrowed); its index, -1 on failure (memory). */
static int add_job(gltf_ctx *c, size_t i, image_how how, uint8_t *data, size_t size, bool borrowed,
                   const char *ext)
{
	image_job *j = &c->jobs[c->jobs_count];
	*j = (image_job){.image = i, .how = how, .data = data, .size = size, .borrowed = borrowed, .ext = ext};
	atomic_init(&j->state, JOB_BEGUN);
	atomic_init(&j->next_part, 0);
	atomic_init(&j->parts_done, 0);
	return (int)c->jobs_count++;
}

/** An image that is only a reference (no pixels). Beside a .gltf it stays a
 *  reference (its uri, relative to the source file: the textures are meant
 *  to be copied along). In a GLB it is embedded when the file (source_path,
 *  else uri) can be read and is a PNG or JPEG; otherwise it is left out with
 *  a warning, and materials lose that texture. Returns false only on a hard
 *  failure (memory); *index is -1 when the image was left out. */
static bool write_uri_image(gltf_ctx *c, size_t i, int *index)
{
	const gsio_image *im = &c->s->images[i];
	*index = -1;
	char name[300];
	snprintf(name, sizeof(name), "%s_%s", c->name, or_default(im->name, "image"));
	if (c->separate) {
		char uri[1600];
		uri_encode_path(im->uri, uri, sizeof(uri));
		cJSON *j = jobj(c);
		jstr(c, j, "name", name);
		jstr(c, j, "uri", uri);
		if (im->extras.count) jset(c, j, "extras", extras_json(c, NULL, &im->extras));
		*index = jpush(c, c->images, j);
		return true;
	}
	const char *path = im->source_path ? im->source_path : im->uri;
	uint8_t *data = NULL;
	size_t size = 0;
	gsio_error rerr;
	const char *mime = NULL, *ext = NULL;
	if (gsio_read_whole_file(path, &data, &size, 0, &rerr) ||
	    !image_is_embeddable(data, size, &mime, &ext)) {
		warn(c, "image %zu (%s): %s cannot be embedded (%s): left out", i, or_default(im->name, ""),
		     path, data ? "not a PNG or JPEG file" : rerr.message);
		free(data);
		return true;
	}
	int job = add_job(c, i, IMG_FILE, data, size, false, ext);
	int view = view_record(c, 0, 0, 0, 0, job);
	if (view < 0) return false;
	cJSON *j = jobj(c);
	jstr(c, j, "name", name);
	jnum(c, j, "bufferView", view);
	jstr(c, j, "mimeType", mime);
	if (im->extras.count) jset(c, j, "extras", extras_json(c, NULL, &im->extras));
	*index = jpush(c, c->images, j);
	return true;
}

static bool write_images(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	c->jobs = xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(*c->jobs));
	if (!c->jobs) return false;
	double pixels = 0;
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		c->image_index[i] = -1;
		if (!im->rgba && !im->file_data && !im->stored && !im->indices) {
			if (!im->uri || !im->uri[0]) {
				warn(c, "image %zu (%s) has neither pixels nor a file: left out", i,
				     or_default(im->name, ""));
				continue;
			}
			if (!write_uri_image(c, i, &c->image_index[i])) return false;
			continue;
		}
		const char *mime = "image/png", *ext = "png";
		image_how how;
		bool passed = false;
		if (im->file_data && image_is_embeddable(im->file_data, im->file_size, &mime, &ext))
			// The PNG or JPEG file it was decoded from, as it is: no second
			// encoding, and nothing lost.
			how = IMG_FILE, passed = true;
		else if (im->indices)
			how = IMG_INDEXED;
		else if (im->rgba)
			how = IMG_RGBA;
		else if (im->stored)
			how = IMG_STORED;
		else if (im->file_size >= 4 && !memcmp(im->file_data, "DDS ", 4))
			how = IMG_DDS;
		else {
			// Undecoded (GSIO_OPT_NO_PIXELS), and not a file glTF can hold.
			warn(c, "image %zu (%s): its file is not a PNG, JPEG or DDS and was not decoded: left out",
			     i, or_default(im->name, ""));
			continue;
		}
		// Images that point to the very same file (a level's placeholders)
		// are one job, stored once: each its own image, with its name and
		// extras, naming the first one's view (or, beside a .gltf, file).
		int job = -1;
		for (size_t k = 0; passed && job < 0 && k < c->jobs_count; k++)
			if (c->jobs[k].borrowed && c->jobs[k].data == im->file_data && c->jobs[k].size == im->file_size)
				job = (int)k;
		const bool shared = job >= 0;
		if (!shared)
			job = add_job(c, i, how, passed ? (uint8_t *)(uintptr_t)im->file_data : NULL,
			              passed ? im->file_size : 0, passed, ext);
		if (!passed) pixels += (double)im->width * (double)im->height * (c->compact ? 8 : 1);
		// Names carry the model's stem: two converted models in one Godot
		// project would otherwise share "skin0".
		char name[300];
		snprintf(name, sizeof(name), "%s_%s", c->name, or_default(im->name, "image"));
		cJSON *j = jobj(c);
		jstr(c, j, "name", name);
		if (c->separate) {
			char file[512], uri[1600];
			image_file_name(c, c->jobs[job].image, ext, file, sizeof(file));
			uri_encode(file, uri, sizeof(uri));
			jstr(c, j, "uri", uri);
		} else {
			int view = shared ? c->jobs[job].view : view_record(c, 0, 0, 0, 0, job);
			if (view < 0) {
				cJSON_Delete(j);
				return false;
			}
			c->jobs[job].view = view;
			jnum(c, j, "bufferView", view);
			jstr(c, j, "mimeType", mime);
		}
		if (im->extras.count) jset(c, j, "extras", extras_json(c, NULL, &im->extras));
		c->image_index[i] = jpush(c, c->images, j);
	}
	// Beside the rest on a helper thread when that is worth it; else now,
	// before the meshes, so that the encoder's state is gone by then.
	c->images_first = pixels < IMAGE_HELPER_PIXELS;
	if (c->threads < 2 || c->images_first || !gsioi_helper_start(&c->helper, run_images, c))
		make_images(c);
	return true;
}

/** Finishes the images (the ones the helper has not begun, then waits for
 *  it) and places them: GLB, after the rest of the buffer, each padded to 4
 *  bytes (c->img_bytes); .gltf, as files of the output. False when one could not
 *  be made (err: which) or on a failed allocation. */
static bool images_place(gltf_ctx *c)
{
	make_images(c);
	gsioi_helper_join(&c->helper);
	for (size_t k = 0; k < c->jobs_count; k++) {
		image_job *j = &c->jobs[k];
		const gsio_image *im = &c->s->images[j->image];
		if (j->rc) {
			*c->err = j->err;
			c->err->offset = -1;
			snprintf(c->err->message, sizeof(c->err->message), "image %zu (%s, %ux%u): cannot encode as PNG",
			         j->image, or_default(im->name, ""), (unsigned)im->width, (unsigned)im->height);
			return false;
		}
		if (!c->separate) {
			j->off = c->img_bytes;
			size_t end = j->off + j->size;
			if (end < j->off || end > BUFFER_LIMIT - 3) {
				FAIL(c, GSIO_ERR_LIMIT, "glTF buffer exceeds 4 GiB");
				return false;
			}
			c->img_bytes = (end + 3) & ~(size_t)3;
			continue;
		}
		uint8_t *data = j->data;
		if (j->borrowed && !(data = malloc(j->size ? j->size : 1))) return fail_nomem(c, "an image file");
		if (j->borrowed) memcpy(data, j->data, j->size);
		char file[512];
		image_file_name(c, j->image, j->ext, file, sizeof(file));
		if (!add_file(c->out, file, data, j->size)) {
			if (j->borrowed) free(data);
			return fail_nomem(c, "an image file");
		}
		j->data = NULL; // the output's now
		j->borrowed = false;
	}
	return true;
}

/* Tests only (not exported from the shared library): every bound cut to
 * this, so that the JSON outgrows its room (test_gltf_stream). */
extern size_t gsio_gltf_test_bound_cap;
size_t gsio_gltf_test_bound_cap = SIZE_MAX;

/* A GLB's images go after the rest of the buffer, so that the rest can be
 * written to the file while the helper still makes images (early_bin):
 * its offset there follows the JSON chunk, whose length depends on the
 * images' sizes only through the digits of their views' offsets and
 * lengths and of the buffer's length. Each image gets a bound, a function
 * of what it is made from only (never of the threads or the time): its
 * size when that is known before the meshes in every mode (a file's; every
 * image's when together they are too small for the helper thread,
 * images_first), else twice the bytes of its rows as RGBA with a filter
 * byte, plus 4 KiB for the chunks (the PNGs made here are smaller; a
 * larger one is still written right: place_glb() then writes the BIN again
 * after the JSON's own length). The JSON chunk is given the room the
 * JSON takes with the bounds' numbers (json_room), or its own length when
 * that is more: the chunk is the JSON and then spaces up to that room
 * (whitespace is allowed after JSON; the glTF spec asks for trailing
 * spaces as the chunk's padding), a few bytes an image: golem's 1 (its
 * 187 KB skin bounded by 2.1 MB). Every GLB, in memory or in a file, gets the
 * same rule, so the bytes do not depend on how they were made. */
static void plan_bounds(gltf_ctx *c)
{
	size_t at = 0;
	for (size_t k = 0; k < c->jobs_count; k++) {
		image_job *j = &c->jobs[k];
		const gsio_image *im = &c->s->images[j->image];
		double rows = ((double)im->width * 4 + 1) * (double)im->height;
		double b = j->how == IMG_FILE || c->images_first ? (double)j->size : 2 * rows + 4096;
		j->bound = b < (double)(BUFFER_LIMIT / 4) ? (size_t)b : BUFFER_LIMIT / 4;
		if (j->bound > gsio_gltf_test_bound_cap) j->bound = gsio_gltf_test_bound_cap;
		j->boff = at;
		at += (j->bound + 3) & ~(size_t)3;
		if (at > BUFFER_LIMIT) at = BUFFER_LIMIT; // over 4 GiB: glb_plan() refuses it
	}
	c->img_bound = at;
}

/** Waits for the helper (a failure left it running) and frees the jobs. */
static void images_free(gltf_ctx *c)
{
	if (c->helper.started) {
		// Nothing more to claim, and no wait for a job nobody claimed.
		atomic_store(&c->jobs_stop, true);
		atomic_store(&c->jobs_next, c->jobs_count);
		gsioi_helper_join(&c->helper);
	}
	for (size_t k = 0; c->jobs && k < c->jobs_count; k++) {
		if (!c->jobs[k].borrowed) free(c->jobs[k].data);
		gsioi_png_work_free(c->jobs[k].work); // begun, its bands not all made
	}
	free(c->jobs);
	c->jobs = NULL;
}

/** Writes the images' bytes, each padded to 4, in buffer order. */
static bool images_emit(gltf_ctx *c, bool (*emit)(void *user, const void *p, size_t n), void *user)
{
	static const uint8_t zeros[3] = {0};
	for (size_t k = 0; k < c->jobs_count; k++) {
		const image_job *j = &c->jobs[k];
		size_t pad = (4 - j->size % 4) % 4;
		if ((j->size && !emit(user, j->data, j->size)) || (pad && !emit(user, zeros, pad))) return false;
	}
	return true;
}

static int wrap_code(gsio_wrap w)
{
	switch (w) {
	case GSIO_WRAP_CLAMP: return GLTF_CLAMP_TO_EDGE;
	case GSIO_WRAP_MIRROR: return GLTF_MIRRORED_REPEAT;
	default: return GLTF_REPEAT;
	}
}

/** The glTF texture of a scene texture (image + sampler), made on first use.
 *  -1 when there is no image or it was left out. */
static int texture_of(gltf_ctx *c, const gsio_texture *t)
{
	if (t->image < 0 || (size_t)t->image >= c->s->images_count) return -1;
	int image = c->image_index[t->image];
	if (image < 0) return -1;
	int wu = t->wrap_u <= GSIO_WRAP_MIRROR ? (int)t->wrap_u : 0;
	int wv = t->wrap_v <= GSIO_WRAP_MIRROR ? (int)t->wrap_v : 0;
	if (c->sampler_of[wu][wv] < 0) {
		cJSON *sm = jobj(c);
		jnum(c, sm, "magFilter", GLTF_LINEAR);
		jnum(c, sm, "minFilter", GLTF_LINEAR_MIPMAP_LINEAR);
		jnum(c, sm, "wrapS", wrap_code((gsio_wrap)wu));
		jnum(c, sm, "wrapT", wrap_code((gsio_wrap)wv));
		c->sampler_of[wu][wv] = jpush(c, c->samplers, sm);
	}
	int sampler = c->sampler_of[wu][wv];
	int *known = &c->tex_of[t->image][3 * wu + wv]; // a sampler per wrap pair
	if (*known >= 0) return *known;
	cJSON *j = jobj(c);
	jnum(c, j, "sampler", sampler);
	jnum(c, j, "source", image);
	const gsio_image *im = &c->s->images[t->image];
	char name[300];
	snprintf(name, sizeof(name), "%s_%s", c->name, or_default(im->name, "image"));
	jstr(c, j, "name", name);
	return *known = jpush(c, c->textures, j);
}

// -- Materials

static void use_extension(gltf_ctx *c, const char *name, bool *flag)
{
	if (*flag) return;
	*flag = true;
	jadd(c, c->extensions_used, cJSON_CreateString(name));
}

static bool write_materials(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_material *m = &s->materials[i];
		cJSON *j = jobj(c), *pbr = jobj(c);
		char name[300], fallback[32];
		snprintf(fallback, sizeof(fallback), "material%zu", i);
		snprintf(name, sizeof(name), "%s_%s", c->name, or_default(m->name, fallback));
		jstr(c, j, "name", name);
		float f[4];
		bool white = true;
		for (int k = 0; k < 4; k++) {
			float v = m->base_color[k];
			f[k] = v < 0 ? 0 : v > 1 ? 1 : v;
			white = white && f[k] == 1.0f;
		}
		if (!white) jset(c, pbr, "baseColorFactor", jfloats(c, f, 4));
		int tex = texture_of(c, &m->base_color_texture);
		if (tex >= 0) {
			cJSON *t = jobj(c);
			jnum(c, t, "index", tex);
			jset(c, pbr, "baseColorTexture", t);
		} else if (m->base_color_texture.image >= 0) {
			warn(c, "material %zu (%s): its image was left out: no texture", i, name);
		}
		jnum(c, pbr, "metallicFactor", 0);
		jnum(c, pbr, "roughnessFactor", 1);
		jset(c, j, "pbrMetallicRoughness", pbr);
		if (m->emissive[0] > 0 || m->emissive[1] > 0 || m->emissive[2] > 0) {
			float e[3];
			for (int k = 0; k < 3; k++) e[k] = m->emissive[k] < 0 ? 0 : m->emissive[k] > 1 ? 1 : m->emissive[k];
			jset(c, j, "emissiveFactor", jfloats(c, e, 3));
		}
		if (m->alpha_mode == GSIO_ALPHA_MASK) {
			jstr(c, j, "alphaMode", "MASK");
			float cut = m->alpha_cutoff >= 0 ? m->alpha_cutoff : 0.5f;
			if (cut != 0.5f) jset(c, j, "alphaCutoff", jfloat(cut));
		} else if (m->alpha_mode == GSIO_ALPHA_BLEND) {
			jstr(c, j, "alphaMode", "BLEND");
		}
		if (m->double_sided) jset(c, j, "doubleSided", cJSON_CreateTrue());
		if (m->unlit) {
			cJSON *ext = jobj(c);
			jset(c, ext, "KHR_materials_unlit", jobj(c));
			jset(c, j, "extensions", ext);
			use_extension(c, "KHR_materials_unlit", &c->used_unlit);
		}
		cJSON *extras = NULL;
		int detail = texture_of(c, &m->detail_texture);
		if (detail >= 0) {
			// glTF has no detail map: keep it in extras (texture index and how
			// often it repeats over the terrain).
			extras = jobj(c);
			cJSON *d = jobj(c);
			jnum(c, d, "index", detail);
			float tiling = m->detail_texture.tiling > 0 ? m->detail_texture.tiling : 1.0f;
			jnum(c, d, "tiling", tiling);
			jset(c, extras, "detailTexture", d);
		} else if (m->detail_texture.image >= 0) {
			warn(c, "material %zu: detail image %d was left out; dropped", i,
			     (int)m->detail_texture.image);
		}
		if (m->base_color_texture.tiling > 0 && m->base_color_texture.tiling != 1.0f) {
			if (!extras) extras = jobj(c);
			jnum(c, extras, "baseColorTiling", m->base_color_texture.tiling);
		}
		if (m->shader) {
			if (!extras) extras = jobj(c);
			jstr(c, extras, "shader", m->shader);
		}
		extras = extras_json(c, extras, &m->extras);
		if (extras) jset(c, j, "extras", extras);
		jadd(c, c->materials, j);
	}
	return true;
}

/** KHR_materials_variants when every mesh part uses the same material and
 *  some materials are used by none: the extra MDL skins. Each material
 *  becomes a variant of its own name. Returns the variant count (0: not used). */
static int plan_variants(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (s->materials_count < 2 || !s->meshes_count || s->materials_count > 4096) return 0;
	int32_t shared = -2;
	for (size_t i = 0; i < s->meshes_count; i++)
		for (size_t p = 0; p < s->meshes[i].parts_count; p++) {
			int32_t m = s->meshes[i].parts[p].material;
			if (shared == -2) shared = m;
			if (m != shared) return 0;
		}
	if (shared < 0) return 0;
	cJSON *ext = jobj(c), *list = jarr(c);
	for (size_t i = 0; i < s->materials_count; i++) {
		cJSON *v = jobj(c);
		char name[64];
		snprintf(name, sizeof(name), "variant%zu", i);
		jstr(c, v, "name", or_default(s->materials[i].name, name));
		jadd(c, list, v);
	}
	jset(c, ext, "variants", list);
	cJSON *exts = cJSON_GetObjectItemCaseSensitive(c->root, "extensions");
	if (!exts) {
		exts = jobj(c);
		jset(c, c->root, "extensions", exts);
	}
	jset(c, exts, "KHR_materials_variants", ext);
	jadd(c, c->extensions_used, cJSON_CreateString("KHR_materials_variants"));
	return (int)s->materials_count;
}

/** JOINTS_n / WEIGHTS_n for a skinned mesh: every vertex's influences with
 *  weight > 0, duplicates merged, sorted by weight (largest first), split in
 *  sets of 4, normalised to sum 1 in float. */
static bool write_skin_attributes(gltf_ctx *c, size_t mi, cJSON *attrs)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	const gsio_weights *w = &m->weights;
	size_t nv = m->vertex_count, nj = c->s->skins[m->skin].joints_count;
	if (!w->offsets || !w->joints || !w->values) {
		FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weights without arrays", mi);
		return false;
	}
	if (w->offsets[0] != 0 || w->offsets[nv] != w->count) {
		FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight offsets do not span the weights", mi);
		return false;
	}
	for (size_t i = 0; i < w->count; i++)
		if (w->joints[i] >= nj) {
			FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight %zu names joint %u of %zu",
			          mi, i, (unsigned)w->joints[i], nj);
			return false;
		}
	// Sets needed: the most distinct joints with a positive weight on one vertex.
	size_t most = 0;
	for (size_t v = 0; v < nv; v++) {
		if (w->offsets[v + 1] < w->offsets[v]) {
			FAIL(c, GSIO_ERR_ARGUMENT, "mesh %zu: weight offsets decrease at vertex %zu", mi, v);
			return false;
		}
		size_t n = 0;
		for (uint32_t i = w->offsets[v]; i < w->offsets[v + 1]; i++) {
			if (!(w->values[i] > 0) || !isfinite(w->values[i])) continue;
			bool seen = false;
			for (uint32_t k = w->offsets[v]; k < i && !seen; k++)
				seen = w->joints[k] == w->joints[i] && w->values[k] > 0 && isfinite(w->values[k]);
			if (!seen) n++;
		}
		if (n > most) most = n;
	}
	size_t sets = most ? (most + 3) / 4 : 1;
	size_t slots = sets * 4;
	bool wide = nj > 256;
	size_t jsize = wide ? 2 : 1, nslots;
	if (!mul_size(nv, slots, &nslots)) {
		FAIL(c, GSIO_ERR_LIMIT, "mesh %zu: weight table overflows", mi);
		return false;
	}
	uint8_t *joints = xmalloc_array(c, nslots, jsize);
	float *weights = xmalloc_array(c, nslots, sizeof(float));
	uint32_t *tj = xmalloc_array(c, most ? most : 1, sizeof(uint32_t));
	double *tw = xmalloc_array(c, most ? most : 1, sizeof(double));
	bool ok = joints && weights && tj && tw;
	size_t unweighted = 0, dropped = 0;
	for (size_t v = 0; ok && v < nv; v++) {
		size_t n = 0;
		for (uint32_t i = w->offsets[v]; i < w->offsets[v + 1]; i++) {
			float x = w->values[i];
			if (!(x > 0) || !isfinite(x)) {
				if (x != 0) dropped++;
				continue;
			}
			size_t k = 0;
			while (k < n && tj[k] != w->joints[i]) k++;
			if (k == n) {
				tj[n] = w->joints[i];
				tw[n++] = x;
			} else {
				tw[k] += x;
			}
		}
		// Insertion sort: few influences per vertex. Ties keep the lower joint first.
		for (size_t a = 1; a < n; a++)
			for (size_t b = a; b > 0 && (tw[b] > tw[b - 1] || (tw[b] == tw[b - 1] && tj[b] < tj[b - 1])); b--) {
				double t = tw[b];
				tw[b] = tw[b - 1];
				tw[b - 1] = t;
				uint32_t u = tj[b];
				tj[b] = tj[b - 1];
				tj[b - 1] = u;
			}
		double sum = 0;
		for (size_t k = 0; k < n; k++) sum += tw[k];
		float *wv = weights + v * slots;
		uint8_t *jv = joints + v * slots * jsize;
		memset(wv, 0, slots * sizeof(float));
		memset(jv, 0, slots * jsize);
		if (n == 0) {
			// glTF needs every skinned vertex to have weight 1 in total.
			unweighted++;
			wv[0] = 1.0f;
			continue;
		}
		float rest = 0;
		for (size_t k = 1; k < n; k++) {
			wv[k] = (float)(tw[k] / sum);
			rest += wv[k];
		}
		wv[0] = 1.0f - rest; // the largest absorbs the rounding: the float sum is 1
		for (size_t k = 0; k < n; k++) {
			if (wide) {
				uint16_t j16 = (uint16_t)tj[k];
				memcpy(jv + 2 * k, &j16, 2);
			} else {
				jv[k] = (uint8_t)tj[k];
			}
		}
	}
	if (ok) {
		// Per set: a strided copy of 4 slots. One set is the table itself
		// (a copy of it held 20 bytes a vertex more: corridor_02_short_door's
		// 18 KB).
		const bool one = sets == 1;
		uint8_t *js = one ? joints : xmalloc_array(c, nv, 4 * jsize);
		float *ws = one ? weights : xmalloc_array(c, nv, 4 * sizeof(float));
		ok = js && ws;
		for (size_t set = 0; ok && set < sets; set++) {
			for (size_t v = 0; !one && v < nv; v++) {
				memcpy(js + v * 4 * jsize, joints + (v * slots + set * 4) * jsize, 4 * jsize);
				memcpy(ws + v * 4, weights + v * slots + set * 4, 4 * sizeof(float));
			}
			int view = add_view(c, js, nv * 4 * jsize, GLTF_ARRAY_BUFFER);
			ok = view >= 0;
			if (!ok) break;
			cJSON *a = jobj(c);
			jnum(c, a, "bufferView", view);
			jnum(c, a, "componentType", wide ? GLTF_UNSIGNED_SHORT : GLTF_UNSIGNED_BYTE);
			jnum(c, a, "count", (double)nv);
			jstr(c, a, "type", "VEC4");
			int ja = jpush(c, c->accessors, a);
			int wa = float_accessor(c, ws, nv, 4, false, GLTF_ARRAY_BUFFER);
			ok = ja >= 0 && wa >= 0;
			char key[32];
			snprintf(key, sizeof(key), "JOINTS_%zu", set);
			jset_copy(c, attrs, key, jnumber(ja));
			snprintf(key, sizeof(key), "WEIGHTS_%zu", set);
			jset_copy(c, attrs, key, jnumber(wa));
		}
		if (!one) free(js), free(ws);
	}
	free(joints);
	free(weights);
	free(tj);
	free(tw);
	if (ok && unweighted)
		warn(c, "mesh %zu: %zu vertices have no weight; bound to joint 0", mi, unweighted);
	if (ok && dropped) warn(c, "mesh %zu: %zu negative or non-finite weights dropped", mi, dropped);
	return ok;
}

/** An index accessor over part of the mesh's index view. */
static int index_accessor(gltf_ctx *c, int view, size_t first, size_t count, bool wide)
{
	cJSON *a = jobj(c);
	jnum(c, a, "bufferView", view);
	if (first) jnum(c, a, "byteOffset", (double)(first * (wide ? 4 : 2)));
	jnum(c, a, "componentType", wide ? GLTF_UNSIGNED_INT : GLTF_UNSIGNED_SHORT);
	jnum(c, a, "count", (double)count);
	jstr(c, a, "type", "SCALAR");
	return jpush(c, c->accessors, a);
}

/** A packed normal table (scene axes) turned into output axes and
 *  normalised once per entry, as write_mesh() turns each vertex normal
 *  (normalize3, up when that fails: bad[i]), so a frame's normals become a
 *  lookup instead of a square root per vertex. An index is one byte: at
 *  most 256 entries are reachable. */
typedef struct normal_lut {
	const float *source; // the table converted, NULL before the first use
	float n[257][3];     // a row is read as 4 floats: one row more
	bool bad[256];
	bool any_bad;
} normal_lut;

static void normal_lut_fill(const gltf_ctx *c, normal_lut *t, const float *table, size_t count,
                            const float up_out[3])
{
	size_t n = count < 256 ? count : 256;
	memset(t->n, 0, sizeof(t->n));
	t->any_bad = false;
	for (size_t i = 0; i < n; i++) {
		xf_dir(c, table + 3 * i, t->n[i]);
		t->bad[i] = !normalize3(t->n[i], up_out);
		t->any_bad = t->any_bad || t->bad[i];
	}
	t->source = table;
}

/** The deltas of one frame, d[v] = a'[v] - b[v] for nv VEC3s, into out:
 *  a' is row v of `a`, or row idx[v] when idx is not NULL (a lookup table
 *  with one row more than idx reaches), turned as xf_pos turns a position
 *  (its components y, z, x when `conv`, then times scale; scale 1 and no
 *  turn for normals already in output axes). Their min/max as min_max() finds them (the first value,
 *  then every smaller / larger one: the same floats, -0 and 0 included),
 *  and, when `moved` is not NULL, the vertices whose delta is not 0 listed
 *  there (returns how many; 0 without a list). One pass: the deltas are
 *  not read again for their bounds. */
static size_t deltas(const float *a, const uint8_t *idx, bool conv, float scale, const float *b,
                     size_t nv, float *out, float mn[3], float mx[3], uint32_t *moved)
{
	for (int k = 0; k < 3; k++) mn[k] = mx[k] = 0;
	if (!nv) return 0;
	size_t km = 0, v = 0;
	float l[4] = {0, 0, 0, 0}, h[4] = {0, 0, 0, 0};
#ifdef __SSE2__
	// A vertex a vector (the 4th lane is the next vertex's x, ignored), so
	// the last vertex goes to the scalar loop below. minps(d, lo) is
	// d < lo ? d : lo, the comparison min_max() makes.
	if (nv >= 2) {
		const __m128 vs = _mm_set1_ps(scale), zero = _mm_setzero_ps();
		__m128 q = _mm_loadu_ps(idx ? a + 3 * (size_t)idx[0] : a);
		if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
		__m128 d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b));
		__m128 lo = d, hi = d;
		// The common cases without a test per vertex: positions (no rows,
		// turned), packed normals (rows, not turned), no moved list.
		if (!moved && !idx && conv) {
			for (; v + 1 < nv; v++) {
				q = _mm_loadu_ps(a + 3 * v);
				q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
				d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b + 3 * v));
				_mm_storeu_ps(out + 3 * v, d); // lane 3 is rewritten by the next vertex
				lo = _mm_min_ps(d, lo);
				hi = _mm_max_ps(d, hi);
			}
		} else if (!moved && idx && !conv) {
			for (; v + 1 < nv; v++) {
				d = _mm_sub_ps(_mm_mul_ps(_mm_loadu_ps(a + 3 * (size_t)idx[v]), vs), _mm_loadu_ps(b + 3 * v));
				_mm_storeu_ps(out + 3 * v, d);
				lo = _mm_min_ps(d, lo);
				hi = _mm_max_ps(d, hi);
			}
		}
		for (; v + 1 < nv; v++) {
			q = _mm_loadu_ps(idx ? a + 3 * (size_t)idx[v] : a + 3 * v);
			if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
			d = _mm_sub_ps(_mm_mul_ps(q, vs), _mm_loadu_ps(b + 3 * v));
			_mm_storeu_ps(out + 3 * v, d);
			lo = _mm_min_ps(d, lo);
			hi = _mm_max_ps(d, hi);
			if (moved) {
				moved[km] = (uint32_t)v; // kept when it moved
				km += (_mm_movemask_ps(_mm_cmpneq_ps(d, zero)) & 7) != 0;
			}
		}
		_mm_storeu_ps(l, lo);
		_mm_storeu_ps(h, hi);
	}
#endif
	for (; v < nv; v++) {
		const float *q = idx ? a + 3 * (size_t)idx[v] : a + 3 * v;
		float d[3] = {(conv ? q[1] : q[0]) * scale - b[3 * v], (conv ? q[2] : q[1]) * scale - b[3 * v + 1],
		              (conv ? q[0] : q[2]) * scale - b[3 * v + 2]};
		bool nz = false;
		for (int k = 0; k < 3; k++) {
			out[3 * v + k] = d[k];
			if (v == 0) l[k] = h[k] = d[k];
			l[k] = d[k] < l[k] ? d[k] : l[k];
			h[k] = d[k] > h[k] ? d[k] : h[k];
			nz = nz || d[k] != 0;
		}
		if (moved && nz) moved[km++] = (uint32_t)v;
	}
	for (int k = 0; k < 3; k++) mn[k] = l[k], mx[k] = h[k];
	return km;
}

/** Whether deltas_packed() reads frame `f` of mesh m: a packed frame
 *  without floats, with table normals, records holding 4 coordinates. */
static bool packed_fusable(const gsio_mesh *m, size_t f)
{
	const gsio_packed_format *pf = m->packed;
	const gsio_morph_frame *fr = &m->frames[f];
	return pf && fr->packed && !fr->positions && m->normals && pf->normal_table &&
	       (pf->coord_size == 1 || pf->coord_size == 2) && pf->vertex_stride >= 4 * pf->coord_size &&
	       pf->normal_offset < pf->vertex_stride;
}

/* A mesh's vertices that show one file vertex (split along UV seams: golem
 * has 819 for 284) get the same deltas from a packed frame when their base
 * position and normal are the same floats, bit for bit: the deltas are then
 * worked out once per file vertex and copied to each (deltas_packed()). */
typedef struct shared_deltas {
	size_t count;       // file vertices shown, 0: not used for this mesh
	uint32_t *record;   // per one: its record (the file vertex)
	uint32_t *first;    // per one: the first mesh vertex showing it (its base)
	uint32_t *slot;     // per mesh vertex: its file vertex's place in record
	float *d;           // scratch: count x 3 position deltas, 4 floats, count x 3
	                    // normal deltas, 4 floats (room for 16-byte stores)
} shared_deltas;

static void shared_deltas_free(shared_deltas *sd)
{
	free(sd->record);
	free(sd->first);
	free(sd->slot);
	free(sd->d);
	memset(sd, 0, sizeof(*sd));
}

/** Plans shared deltas for mesh m with base pos and nrm (output axes): left
 *  unused (count 0) when every vertex shows its own file vertex, when
 *  fewer than a fifth of the vertices share, or when two vertices of one
 *  file vertex differ in base; false only on a failed allocation. */
static bool shared_deltas_plan(gltf_ctx *c, const gsio_mesh *m, const float *pos, const float *nrm,
                               shared_deltas *sd)
{
	memset(sd, 0, sizeof(*sd));
	const uint32_t *sv = m->source_vertex;
	size_t nv = m->vertex_count, ns = m->packed ? m->packed->source_count : 0;
	if (!sv || !ns || nv < 2) return true;
	uint32_t *at = xmalloc_array(c, ns, sizeof(uint32_t)); // file vertex -> place, UINT32_MAX: none yet
	sd->record = xmalloc_array(c, ns < nv ? ns : nv, sizeof(uint32_t));
	sd->first = xmalloc_array(c, ns < nv ? ns : nv, sizeof(uint32_t));
	sd->slot = xmalloc_array(c, nv, sizeof(uint32_t));
	if (!at || !sd->record || !sd->first || !sd->slot) {
		free(at);
		shared_deltas_free(sd);
		return false;
	}
	for (size_t u = 0; u < ns; u++) at[u] = UINT32_MAX;
	size_t n = 0;
	bool same = true;
	for (size_t v = 0; v < nv && same; v++) {
		uint32_t u = sv[v];
		if (at[u] == UINT32_MAX) {
			at[u] = (uint32_t)n;
			sd->record[n] = u;
			sd->first[n++] = (uint32_t)v;
		}
		size_t b = sd->first[at[u]];
		sd->slot[v] = at[u];
		same = !memcmp(pos + 3 * v, pos + 3 * b, 3 * sizeof(float)) &&
		       (!nrm || !memcmp(nrm + 3 * v, nrm + 3 * b, 3 * sizeof(float)));
	}
	free(at);
	if (!same || 5 * n > 4 * nv) {
		shared_deltas_free(sd);
		return true;
	}
	sd->d = xmalloc_array(c, 6 * n + 8, sizeof(float));
	if (!sd->d) {
		shared_deltas_free(sd);
		return false;
	}
	sd->count = n;
	return true;
}

/** The deltas worked out once per file vertex (sd->d) copied to each vertex
 *  showing it: POSITION into dp, NORMAL into dn. */
static void shared_deltas_copy(const shared_deltas *sd, size_t nv, float *dp, float *dn)
{
	const float *sp = sd->d, *sn = sd->d + 3 * sd->count + 4;
	const uint32_t *slot = sd->slot;
	size_t v = 0;
#ifdef __SSE2__
	// 4 floats a vertex, the 4th rewritten by the next: the last by memcpy.
	for (; v + 1 < nv; v++) {
		const size_t k = 3 * (size_t)slot[v];
		_mm_storeu_ps(dp + 3 * v, _mm_loadu_ps(sp + k));
		_mm_storeu_ps(dn + 3 * v, _mm_loadu_ps(sn + k));
	}
#endif
	for (; v < nv; v++) {
		memcpy(dp + 3 * v, sp + 3 * (size_t)slot[v], 3 * sizeof(float));
		memcpy(dn + 3 * v, sn + 3 * (size_t)slot[v], 3 * sizeof(float));
	}
}

#ifdef __SSE2__
/** A packed record's position delta (d: scaled and offset as libgsio
 *  unpacks it, turned and scaled as deltas() turns it, less the base bp)
 *  and normal delta (e: the table row of its index, row 0 when out of the
 *  table, less the base bn), as vectors of 3 floats and a 4th. */
static inline void record_deltas(const uint8_t *r, bool bytes, bool conv, __m128 vs, __m128 vo, __m128 vsc,
                                 const float (*rows)[3], size_t no, size_t nc, const float *bp,
                                 const float *bn, __m128 *d, __m128 *e)
{
	__m128 q = _mm_add_ps(_mm_mul_ps(gsioi_record_coords(r, bytes), vs), vo);
	if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
	*d = _mm_sub_ps(_mm_mul_ps(q, vsc), _mm_loadu_ps(bp));
	unsigned ni = r[no];
	*e = _mm_sub_ps(_mm_loadu_ps(rows[ni < nc ? ni : 0]), _mm_loadu_ps(bn));
}

/** The min/max of the position (lo[0], hi[0]) and normal (lo[1], hi[1])
 *  deltas with d and e taken in, as deltas() takes them: the first pair
 *  starts them, then a value replaces the one kept only when strictly
 *  beyond it (_mm_min_ps(d, lo) is d < lo ? d : lo). */
static inline void delta_range_add(__m128 lo[2], __m128 hi[2], __m128 d, __m128 e, bool first)
{
	if (first) lo[0] = hi[0] = d, lo[1] = hi[1] = e;
	lo[0] = _mm_min_ps(d, lo[0]);
	hi[0] = _mm_max_ps(d, hi[0]);
	lo[1] = _mm_min_ps(e, lo[1]);
	hi[1] = _mm_max_ps(e, hi[1]);
}

/** The vectors' min/max into the scalar form (l, h) the loops after take. */
static inline void delta_range_store(const __m128 lo[2], const __m128 hi[2], float l[2][4], float h[2][4])
{
	for (int a = 0; a < 2; a++) {
		_mm_storeu_ps(l[a], lo[a]);
		_mm_storeu_ps(h[a], hi[a]);
	}
}
#endif

/** delta_range_add() for one pair of deltas (d[0] position, d[1] normal)
 *  without SSE2: the same comparisons. */
static inline void delta_range_add_scalar(float l[2][4], float h[2][4], const float d[2][3], bool first)
{
	for (int a = 0; a < 2; a++)
		for (int k = 0; k < 3; k++) {
			if (first) l[a][k] = h[a][k] = d[a][k];
			l[a][k] = d[a][k] < l[a][k] ? d[a][k] : l[a][k];
			h[a][k] = d[a][k] > h[a][k] ? d[a][k] : h[a][k];
		}
}

/** The min/max as write_targets() takes them: position min, max, normal min, max. */
static void delta_range_out(float l[2][4], float h[2][4], float mm[4][3])
{
	for (int k = 0; k < 3; k++) {
		mm[0][k] = l[0][k], mm[1][k] = h[0][k];
		mm[2][k] = l[1][k], mm[3][k] = h[1][k];
	}
}

/** Both morph deltas of a packed frame in one pass over its records, where
 *  the long way unpacks the frame to floats and normal indices
 *  (gsio_mesh_frame_normal_indices) and reads them back twice through
 *  deltas(): on golem that pair was a quarter of the conversion. The same
 *  floats as that way, operation for operation: a position is scale *
 *  raw + offset in float (as libgsio unpacks it), then turned and scaled
 *  as deltas() turns it, less the base; a normal is the table row of the
 *  record's index (0 when out of the table) from `lut`, less the base. The
 *  min/max as deltas() finds them. POSITION deltas into dp, NORMAL into
 *  dn; adds the vertices with a bad table normal to *bad. */
NOINLINE static void deltas_packed(const gltf_ctx *c, const gsio_mesh *m, const uint8_t *data,
                          const normal_lut *lut, const float *bp, const float *bn, float *dp,
                          float *dn, float mm[4][3], size_t *bad, const shared_deltas *sd)
{
	const gsio_packed_format *pf = m->packed;
	const uint32_t *sv = m->source_vertex;
	const size_t nv = m->vertex_count, st = pf->vertex_stride, no = pf->normal_offset,
	             nc = pf->normal_count;
	const bool bytes = pf->coord_size == 1, conv = c->convert_axes;
	const float sc = c->scale;
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++) mm[i][k] = 0;
	if (!nv) return;
	float l[2][4] = {{0}}, h[2][4] = {{0}};
	size_t v = 0;
#ifdef __SSE2__
	const __m128 vs = _mm_setr_ps(pf->scale[0], pf->scale[1], pf->scale[2], 0),
	             vo = _mm_setr_ps(pf->offset[0], pf->offset[1], pf->offset[2], 0), vsc = _mm_set1_ps(sc);
	const float(*rows)[3] = lut->n;
	__m128 lo[2] = {_mm_setzero_ps(), _mm_setzero_ps()}, hi[2] = {lo[0], lo[0]}, dv, ev;
	if (sd && sd->count) {
		// Once per file vertex, against the base of the first vertex
		// showing it, into sd->d, with the min/max; then copied to every
		// vertex. The min/max over the file vertices in the order they are
		// first shown is the one over the vertices in their order: a value
		// replaces the one kept only when strictly beyond it, so of equal
		// values (0 and -0) the first shown stays either way, and the
		// copies shown later equal a value seen before.
		const size_t n = sd->count;
		float *sp = sd->d, *sn = sd->d + 3 * n + 4; // a vector's room between
		for (size_t k = 0; k < n; k++) {
			const size_t b = 3 * (size_t)sd->first[k];
			record_deltas(data + (size_t)sd->record[k] * st, bytes, conv, vs, vo, vsc, rows, no, nc, bp + b,
			              bn + b, &dv, &ev);
			_mm_storeu_ps(sp + 3 * k, dv);
			_mm_storeu_ps(sn + 3 * k, ev);
			delta_range_add(lo, hi, dv, ev, k == 0);
		}
		shared_deltas_copy(sd, nv, dp, dn);
		v = nv;
	}
	// A vertex a vector, as in deltas(): 4 floats stored, the 4th rewritten
	// by the next vertex, so the last vertex goes to the loop below.
	for (; nv >= 2 && v + 1 < nv; v++) {
		record_deltas(data + (size_t)(sv ? sv[v] : v) * st, bytes, conv, vs, vo, vsc, rows, no, nc, bp + 3 * v,
		              bn + 3 * v, &dv, &ev);
		_mm_storeu_ps(dp + 3 * v, dv);
		_mm_storeu_ps(dn + 3 * v, ev);
		delta_range_add(lo, hi, dv, ev, v == 0);
	}
	delta_range_store(lo, hi, l, h);
#endif
	for (; v < nv; v++) {
		const uint8_t *r = data + (size_t)(sv ? sv[v] : v) * st;
		float p[3];
		for (int k = 0; k < 3; k++) {
			p[k] = pf->scale[k] * (float)gsioi_record_coord(r, bytes, k) + pf->offset[k];
		}
		unsigned ni = r[no];
		const float *row = lut->n[ni < nc ? ni : 0];
		float d[2][3] = {{(conv ? p[1] : p[0]) * sc - bp[3 * v], (conv ? p[2] : p[1]) * sc - bp[3 * v + 1],
		                  (conv ? p[0] : p[2]) * sc - bp[3 * v + 2]},
		                 {row[0] - bn[3 * v], row[1] - bn[3 * v + 1], row[2] - bn[3 * v + 2]}};
		memcpy(dp + 3 * v, d[0], sizeof(d[0]));
		memcpy(dn + 3 * v, d[1], sizeof(d[1]));
		delta_range_add_scalar(l, h, d, v == 0);
	}
	delta_range_out(l, h, mm);
	for (v = 0; lut->any_bad && v < nv; v++) {
		unsigned ni = data[(size_t)(sv ? sv[v] : v) * st + no];
		*bad += lut->bad[ni < nc ? ni : 0];
	}
}

/** Whether deltas_float_records() reads frame `f` of mesh m: a frame kept
 *  as float records with float normals (MDL7's), the mesh with normals. */
static bool float_records_fusable(const gsio_mesh *m, size_t f)
{
	const gsio_packed_format *pf = m->packed;
	const gsio_morph_frame *fr = &m->frames[f];
	return pf && fr->packed && !fr->positions && m->normals && pf->coord_size == 4 &&
	       pf->normal_floats;
}

/** Both morph deltas of a frame kept as float records, once per file vertex
 *  and copied to every vertex showing it (sd: planned, count > 0), where the
 *  long way (gsio_mesh_frame_get, then deltas() for each) works every
 *  vertex: the same floats, operation for operation: a position turned as
 *  xf_pos turns it (axes, then times the scale) less the base; a normal
 *  turned (xf_dir) and made unit (normalize3, up when it cannot be) less
 *  the base. The min/max as deltas() finds them (see deltas_packed() for
 *  why the file vertices' order gives the vertices'). POSITION deltas into
 *  dp, NORMAL into dn; adds the vertices with a bad normal to *bad. */
NOINLINE static void deltas_float_records(const gltf_ctx *c, const gsio_mesh *m, const uint8_t *data,
                                          const float *bp, const float *bn, float *dp, float *dn,
                                          float mm[4][3], size_t *bad, const shared_deltas *sd,
                                          const float up_out[3], uint8_t *bad_of)
{
	const gsio_packed_format *pf = m->packed;
	const size_t nv = m->vertex_count, n = sd->count, st = pf->vertex_stride, no = pf->normal_offset;
	const bool conv = c->convert_axes;
	const float sc = c->scale;
	float *sp = sd->d, *sn = sd->d + 3 * n + 4;
	float l[2][4] = {{0}}, h[2][4] = {{0}};
	size_t k = 0;
#ifdef __SSE2__
	// A file vertex a vector: the record's first 4 floats (x, y, z and the
	// normal's x) turned and scaled as deltas() does it, less the base (4
	// floats read: write_mesh's base arrays hold one float more). The
	// normal is made unit in double, as normalize3() makes it.
	const __m128 vsc = _mm_set1_ps(sc);
	__m128 lo[2] = {_mm_setzero_ps(), _mm_setzero_ps()}, hi[2] = {lo[0], lo[0]};
	for (; k < n; k++) {
		const uint8_t *r = data + (size_t)sd->record[k] * st;
		const size_t b = 3 * (size_t)sd->first[k];
		__m128 q = _mm_loadu_ps((const float *)(const void *)r);
		if (conv) q = _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 2, 1));
		__m128 d = _mm_sub_ps(_mm_mul_ps(q, vsc), _mm_loadu_ps(bp + b));
		float raw[3], e[4] = {0, 0, 0, 0};
		memcpy(raw, r + no, 12);
		xf_dir(c, raw, e);
		bad_of[k] = !normalize3(e, up_out);
		__m128 g = _mm_sub_ps(_mm_loadu_ps(e), _mm_loadu_ps(bn + b));
		_mm_storeu_ps(sp + 3 * k, d); // the 4th float is rewritten by the next
		_mm_storeu_ps(sn + 3 * k, g);
		delta_range_add(lo, hi, d, g, k == 0);
	}
	delta_range_store(lo, hi, l, h);
#endif
	for (; k < n; k++) {
		const uint8_t *r = data + (size_t)sd->record[k] * st;
		const size_t b = 3 * (size_t)sd->first[k];
		float q[3], p[3], e[3];
		memcpy(q, r, 12);
		xf_dir(c, q, p);
		memcpy(q, r + no, 12);
		xf_dir(c, q, e);
		bad_of[k] = !normalize3(e, up_out);
		float d[2][3];
		for (int a = 0; a < 3; a++) d[0][a] = p[a] * sc - bp[b + (size_t)a], d[1][a] = e[a] - bn[b + (size_t)a];
		memcpy(sp + 3 * k, d[0], sizeof(d[0]));
		memcpy(sn + 3 * k, d[1], sizeof(d[1]));
		delta_range_add_scalar(l, h, d, k == 0);
	}
	shared_deltas_copy(sd, nv, dp, dn);
	size_t nbad = 0;
	for (size_t v = 0; v < nv; v++) nbad += bad_of[sd->slot[v]];
	*bad += nbad;
	delta_range_out(l, h, mm);
}

/** Room at the end of the binary buffer for a new view of `bytes` bytes,
 *  4-byte aligned, in memory: filled by the caller, then claimed with
 *  add_claimed_view(). NULL when such a view would be written past memory
 *  (bin.limit or more: add_view() from the caller's array instead) or on
 *  failure (then c->bin.failed or err is set). The bytes are the ones
 *  add_view() would write. */
static float *view_room(gltf_ctx *c, size_t bytes)
{
	if (c->sink && bytes >= c->bin.limit) return NULL;
	if (!buffer_align(c)) return NULL;
	byte_buf *b = &c->bin;
	if (c->sink && b->size - b->spilled + bytes > b->limit && !buf_spill(c, false)) {
		broken(b);
		return NULL;
	}
	if (bytes > BUFFER_LIMIT - b->size) return NULL; // buf_append reports it
	if (!buf_reserve(c, bytes ? bytes : 1)) return NULL;
	return (float *)(void *)(b->data + (b->size - b->spilled));
}

/** The `bytes` filled at view_room() as a buffer view; its index or -1. */
static int add_claimed_view(gltf_ctx *c, size_t bytes, int target)
{
	size_t off = c->bin.size;
	c->bin.size += bytes;
	return view_json(c, off, bytes, 0, target);
}

/** One morph target's delta accessor for frame data `a` (rows `rows` of
 *  it when not NULL) against base b (see deltas()): dense deltas go straight into the binary buffer when
 *  they fit in memory, else (and for sparse targets, which need the dense
 *  values first) through `dense`. Returns the accessor or -1. */
static int target_accessor(gltf_ctx *c, const float *a, const uint8_t *rows, bool conv, float scale,
                           const float *b, size_t nv, float *dense, uint32_t *idx, float *scratch)
{
	float mn[3], mx[3];
	size_t bytes = nv * 12; // nv * 24 bytes fit: the writer holds pos and nrm
	float *room = c->sparse ? NULL : view_room(c, bytes);
	if (room) {
		deltas(a, rows, conv, scale, b, nv, room, mn, mx, NULL);
		int view = add_claimed_view(c, bytes, GLTF_ARRAY_BUFFER);
		if (view < 0) return -1;
		return float_accessor_json(c, view, nv, 3, mn, mx);
	}
	if (c->bin.failed) return -1;
	size_t k = deltas(a, rows, conv, scale, b, nv, dense, mn, mx, c->sparse ? idx : NULL);
	return delta_accessor(c, dense, nv, mn, mx, idx, k, scratch);
}

/** Morph targets of a mesh: one per frame, deltas from the base pose (pos,
 *  nrm: output axes). NULL on failure. */
static cJSON *write_targets(gltf_ctx *c, size_t mi, const float *pos, const float *nrm,
                            cJSON *names, size_t *bad_normals)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	size_t nv = m->vertex_count;
	static const float up[3] = {0, 0, 1};
	float up_out[3];
	xf_dir(c, up, up_out);
	cJSON *targets = jarr(c);
	float *dp = xmalloc_array(c, nv, 3 * sizeof(float));
	float *dn = xmalloc_array(c, nv, 3 * sizeof(float));
	float *scratch = xmalloc_array(c, nv, 4 * sizeof(float));
	uint32_t *ip = xmalloc_array(c, nv, sizeof(uint32_t));
	uint32_t *in = xmalloc_array(c, nv, sizeof(uint32_t));
	// One frame at a time as floats (packed frames are expanded here only);
	// packed normals as table indices.
	float *fpos = xmalloc_array(c, nv, 3 * sizeof(float));
	float *fnrm = xmalloc_array(c, nv, 3 * sizeof(float));
	uint8_t *nidx = xmalloc_array(c, nv, 1);
	normal_lut *lut = m->normals ? xmalloc_array(c, 1, sizeof(normal_lut)) : NULL;
	bool ok = targets && dp && dn && scratch && ip && in && fpos && fnrm && nidx &&
	          (lut || !m->normals);
	if (lut) lut->source = NULL;
	shared_deltas sd = {0};
	bool sd_planned = false;
	uint8_t *bad_of = NULL; // float records: per shared file vertex, its normal was bad
	for (size_t f = 0; ok && f < m->frames_count; f++) {
		const gsio_morph_frame *fr = &m->frames[f];
		int pa, na = 0;
		float *room = NULL;
		if (!c->sparse && !sd_planned && float_records_fusable(m, f)) {
			// The plan first: float records take their own way only when
			// file vertices are shared (else the long way is as fast).
			if (!shared_deltas_plan(c, m, pos, nrm, &sd) ||
			    (sd.count && !(bad_of = xmalloc_array(c, sd.count, 1)))) {
				ok = false;
				break;
			}
			sd_planned = true;
		}
		if (!c->sparse && sd.count && float_records_fusable(m, f) && (room = view_room(c, 2 * nv * 12))) {
			float mm[4][3];
			deltas_float_records(c, m, fr->packed, pos, nrm, room, room + 3 * nv, mm, bad_normals, &sd, up_out,
			                     bad_of);
			int pv = add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			pa = pv < 0 ? -1 : float_accessor_json(c, pv, nv, 3, mm[0], mm[1]);
			int nview = add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			na = nview < 0 ? -1 : float_accessor_json(c, nview, nv, 3, mm[2], mm[3]);
		} else if (!c->sparse && packed_fusable(m, f) && (room = view_room(c, 2 * nv * 12))) {
			// Both deltas straight from the records (see deltas_packed()),
			// in the two views the long way writes one after the other.
			const float *table = m->packed->normal_table[0];
			if (lut->source != table) normal_lut_fill(c, lut, table, m->packed->normal_count, up_out);
			if (!sd_planned && !shared_deltas_plan(c, m, pos, nrm, &sd)) {
				ok = false;
				break;
			}
			sd_planned = true;
			float mm[4][3];
			deltas_packed(c, m, fr->packed, lut, pos, nrm, room, room + 3 * nv, mm, bad_normals, &sd);
			int pv = add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			pa = pv < 0 ? -1 : float_accessor_json(c, pv, nv, 3, mm[0], mm[1]);
			int nview = add_claimed_view(c, nv * 12, GLTF_ARRAY_BUFFER);
			na = nview < 0 ? -1 : float_accessor_json(c, nview, nv, 3, mm[2], mm[3]);
		} else if (c->bin.failed) {
			ok = false;
			break;
		} else {
			const float *table = NULL;
			size_t table_count = 0;
			int indexed = m->normals ? gsio_mesh_frame_normal_indices(m, f, fpos, nidx, &table, &table_count) : 0;
			int got = indexed == 1 ? 1 : gsio_mesh_frame_get(m, f, fpos, m->normals ? fnrm : NULL);
			ok = got >= 0 && indexed >= 0;
			if (!ok) break;
			pa = target_accessor(c, fpos, NULL, c->convert_axes, c->scale, pos, nv, dp, ip, scratch);
			if (m->normals) {
				// The frame's normals in output axes: table lookups for a
				// packed frame, each vertex's own (converted here) for a float
				// frame, the base's when the frame has none.
				const float *fn = nrm;
				const uint8_t *rows = NULL;
				if (indexed == 1) {
					if (lut->source != table) normal_lut_fill(c, lut, table, table_count, up_out);
					for (size_t v = 0; lut->any_bad && v < nv; v++) *bad_normals += lut->bad[nidx[v]];
					fn = lut->n[0];
					rows = nidx;
				} else if (got == 1) {
					for (size_t v = 0; v < nv; v++) {
						xf_dir(c, fnrm + 3 * v, fnrm + 3 * v);
						if (!normalize3(fnrm + 3 * v, up_out)) (*bad_normals)++;
					}
					fn = fnrm;
				}
				na = target_accessor(c, fn, rows, false, 1, nrm, nv, dn, in, scratch);
			}
		}
		cJSON *t = jobj(c);
		ok = pa >= 0 && na >= 0;
		jnum(c, t, "POSITION", pa);
		if (m->normals) jnum(c, t, "NORMAL", na);
		jadd(c, targets, t);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "frame%zu", f);
		jadd(c, names, cJSON_CreateString(or_default(fr->name, fallback)));
	}
	free(dp);
	free(dn);
	free(scratch);
	free(ip);
	free(in);
	free(fpos);
	free(fnrm);
	free(nidx);
	free(lut);
	free(bad_of);
	shared_deltas_free(&sd);
	if (!ok) {
		cJSON_Delete(targets);
		return NULL;
	}
	return targets;
}

/** Compact positions of mesh mi (pos: base pose, output axes): the base as
 *  normalized SHORT around the centre of its box, the morph targets'
 *  POSITION deltas as normalized BYTE, all in units of one scale s (at
 *  least the base's half extent and the largest delta), so that a frame is
 *  (q0 / 32767 + qd / 127) * s + offset. Deltas are taken from the
 *  quantised base, so a frame's error is one delta step at most. Sets
 *  c->q_off/q_scale; returns the POSITION accessor (-1 on failure) and the
 *  targets in *targets (NULL when the mesh has none). */
static int write_positions_q(gltf_ctx *c, size_t mi, const float *pos, cJSON *names, cJSON **targets)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	size_t nv = m->vertex_count;
	bool morph = c->animate && m->frames_count >= 2;
	*targets = NULL;
	float mn[3], mx[3];
	min_max(pos, nv, 3, mn, mx);
	double off[3], sc = 0;
	for (int k = 0; k < 3; k++) {
		off[k] = ((double)mn[k] + mx[k]) / 2;
		sc = fmax(sc, (double)mx[k] - off[k]);
	}
	float *fp = xmalloc_array(c, nv, 3 * sizeof(float));
	float *raw = xmalloc_array(c, nv, 3 * sizeof(float)); // one frame, scene axes
	int32_t *q0 = xmalloc_array(c, nv, 3 * sizeof(int32_t));
	int32_t *qd = xmalloc_array(c, nv, 3 * sizeof(int32_t));
	if (!fp || !raw || !q0 || !qd) {
		free(fp), free(raw), free(q0), free(qd);
		return -1;
	}
	for (size_t f = 0; morph && f < m->frames_count; f++) {
		if (gsio_mesh_frame_get(m, f, raw, NULL) < 0) continue; // validated: cannot happen
		for (size_t v = 0; v < nv; v++) {
			xf_pos(c, raw + 3 * v, fp + 3 * v);
			for (int k = 0; k < 3; k++) sc = fmax(sc, fabs((double)fp[3 * v + k] - pos[3 * v + k]));
		}
	}
	if (!(sc > 0) || !isfinite(sc)) sc = 1;
	sc *= 1.0001; // rounding of the base must not push a delta past 127
	for (size_t i = 0; i < 3 * nv; i++) q0[i] = quant(((double)pos[i] - off[i % 3]) / sc, 32767);
	int pa = quant_accessor(c, q0, nv, 3, GLTF_SHORT, true);
	bool ok = pa >= 0;
	if (ok && morph) {
		*targets = jarr(c);
		for (size_t f = 0; ok && f < m->frames_count; f++) {
			const gsio_morph_frame *fr = &m->frames[f];
			ok = gsio_mesh_frame_get(m, f, raw, NULL) >= 0;
			for (size_t v = 0; ok && v < nv; v++) {
				xf_pos(c, raw + 3 * v, fp + 3 * v);
				for (int k = 0; k < 3; k++) {
					size_t i = 3 * v + (size_t)k;
					double d = ((double)fp[i] - off[k]) / sc - q0[i] / 32767.0;
					qd[i] = quant(d, 127);
				}
			}
			if (!ok) break;
			cJSON *t = jobj(c);
			int a = quant_accessor(c, qd, nv, 3, GLTF_BYTE, true);
			ok = a >= 0;
			jnum(c, t, "POSITION", a);
			jadd(c, *targets, t);
			char fallback[32];
			snprintf(fallback, sizeof(fallback), "frame%zu", f);
			jadd(c, names, cJSON_CreateString(or_default(fr->name, fallback)));
		}
	}
	free(fp), free(raw), free(q0), free(qd);
	for (int k = 0; k < 3; k++) c->q_off[3 * mi + (size_t)k] = (float)off[k];
	c->q_scale[mi] = (float)sc;
	if (!ok) {
		cJSON_Delete(*targets);
		*targets = NULL;
		return -1;
	}
	return pa;
}

/** Whether meshes a and b are one mesh: the same arrays (not equal values:
 *  the same memory), as a level's instances of a skinned model are, each
 *  with its own skin of as many joints. */
static bool same_mesh(const gsio_scene *s, const gsio_mesh *a, const gsio_mesh *b)
{
	if (a->positions != b->positions || a->normals != b->normals || a->uvs != b->uvs ||
	    a->indices != b->indices || a->parts != b->parts || a->frames != b->frames ||
	    a->vertex_count != b->vertex_count || a->index_count != b->index_count ||
	    a->parts_count != b->parts_count || a->frames_count != b->frames_count ||
	    a->weights.offsets != b->weights.offsets || a->weights.joints != b->weights.joints ||
	    a->weights.values != b->weights.values || a->weights.count != b->weights.count ||
	    (a->skin < 0) != (b->skin < 0) || !a->positions)
		return false;
	return a->skin < 0 || s->skins[a->skin].joints_count == s->skins[b->skin].joints_count;
}

/** The rest of a mesh once its attributes (attrs, taken) and index view are
 *  written: one primitive per part with the morph targets (taken), the
 *  glTF mesh with its target names (names, taken) and extras. */
static bool write_primitives(gltf_ctx *c, size_t mi, const gsio_mesh *m, cJSON *attrs,
                             int index_view, bool wide, cJSON *targets, cJSON *names,
                             size_t bad_normals)
{
	if (bad_normals) warn(c, "mesh %zu: %zu zero or non-finite normals replaced by up", mi, bad_normals);

	cJSON *prims = jarr(c);
	for (size_t p = 0; p < m->parts_count; p++) {
		const gsio_mesh_part *part = &m->parts[p];
		if (!part->index_count) continue;
		cJSON *prim = jobj(c);
		jset(c, prim, "attributes", cJSON_Duplicate(attrs, true));
		jnum(c, prim, "indices", index_accessor(c, index_view, part->first_index, part->index_count, wide));
		if (part->material >= 0) {
			jnum(c, prim, "material", part->material);
			if (c->variants_count) {
				cJSON *ext = jobj(c), *var = jobj(c), *maps = jarr(c);
				for (int k = 0; k < c->variants_count; k++) {
					cJSON *mp = jobj(c), *vs = jarr(c);
					jnum(c, mp, "material", k);
					jpush_num(c, vs, k);
					jset(c, mp, "variants", vs);
					jadd(c, maps, mp);
				}
				jset(c, var, "mappings", maps);
				jset(c, ext, "KHR_materials_variants", var);
				jset(c, prim, "extensions", ext);
			}
		}
		jnum(c, prim, "mode", 4);
		if (targets) jset(c, prim, "targets", cJSON_Duplicate(targets, true));
		jadd(c, prims, prim);
	}
	cJSON_Delete(attrs);
	cJSON_Delete(targets);
	cJSON *mesh = jobj(c);
	if (m->name) jstr(c, mesh, "name", m->name);
	jset(c, mesh, "primitives", prims);
	cJSON *extras = NULL;
	if (names) {
		extras = jobj(c);
		jset(c, extras, "targetNames", names);
	}
	extras = extras_json(c, extras, &m->extras);
	if (extras) jset(c, mesh, "extras", extras);
	c->mesh_index[mi] = jpush(c, c->meshes, mesh);
	if (names) c->mesh_targets[mi] = (int)m->frames_count;
	return true;
}

/** Mesh mi (m: its arrays) as a glTF mesh: indices, base pose, morph
 *  targets, then its primitives (write_primitives). */
static bool write_arrays_mesh(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	size_t nv = m->vertex_count, ni = m->index_count;
	cJSON *attrs = jobj(c);
	bool ok = true;

	// Indices: one view, 16-bit when they fit (65535 is the primitive-restart
	// value); each part is an accessor into it.
	bool wide = nv > 65535;
	int index_view;
	if (!wide) {
		uint16_t *i16 = xmalloc_array(c, ni, 2);
		ok = i16 != NULL;
		if (ok)
			for (size_t i = 0; i < ni; i++) i16[i] = (uint16_t)m->indices[i];
		index_view = ok ? add_view(c, i16, ni * 2, GLTF_ELEMENT_ARRAY_BUFFER) : -1;
		free(i16);
	} else {
		index_view = add_view(c, m->indices, ni * 4, GLTF_ELEMENT_ARRAY_BUFFER);
	}
	ok = ok && index_view >= 0;

	// Base pose, in output axes; one float more, so that a vertex can be read
	// as 4 floats (deltas_packed(), deltas_float_records()).
	float *pos = ok ? xmalloc_array(c, 3 * nv + 1, sizeof(float)) : NULL;
	float *nrm = ok ? xmalloc_array(c, 3 * nv + 1, sizeof(float)) : NULL;
	ok = ok && pos && nrm;
	if (ok) pos[3 * nv] = nrm[3 * nv] = 0;
	static const float up[3] = {0, 0, 1};
	float up_out[3];
	xf_dir(c, up, up_out);
	size_t bad_normals = 0;
	for (size_t v = 0; ok && v < nv; v++) {
		xf_pos(c, m->positions + 3 * v, pos + 3 * v);
		if (m->normals) {
			xf_dir(c, m->normals + 3 * v, nrm + 3 * v);
			if (!normalize3(nrm + 3 * v, up_out)) bad_normals++;
		}
	}
	cJSON *targets = NULL, *names = NULL;
	bool qpos = ok && c->q_ok[mi];
	if (ok && qpos) {
		names = jarr(c);
		int pa = write_positions_q(c, mi, pos, names, &targets);
		ok = pa >= 0;
		jnum(c, attrs, "POSITION", pa);
		if (!targets) {
			cJSON_Delete(names);
			names = NULL;
		}
	} else if (ok) {
		jnum(c, attrs, "POSITION", float_accessor(c, pos, nv, 3, true, GLTF_ARRAY_BUFFER));
	}
	if (ok && c->compact) {
		int na = m->normals ? normal_accessor_q(c, nrm, nv) : 0;
		int ua = m->uvs ? uv_accessor_q(c, m->uvs, nv) : 0;
		ok = na >= 0 && ua >= 0;
		if (m->normals) jnum(c, attrs, "NORMAL", na);
		if (m->uvs) jnum(c, attrs, "TEXCOORD_0", ua);
	} else if (ok) {
		if (m->normals) jnum(c, attrs, "NORMAL", float_accessor(c, nrm, nv, 3, false, GLTF_ARRAY_BUFFER));
		if (m->uvs) jnum(c, attrs, "TEXCOORD_0", float_accessor(c, m->uvs, nv, 2, false, GLTF_ARRAY_BUFFER));
	}
	// The base pose in output axes is needed again only for morph targets:
	// without, it goes before the joint and weight table is made (24 bytes
	// a vertex not held beside its 20; corridor_02_short_door's 22 KB).
	const bool morph = !qpos && c->animate && m->frames_count >= 2;
	if (!morph) {
		free(pos), free(nrm);
		pos = nrm = NULL;
	}
	if (ok && m->weights.count && m->skin >= 0) {
		ok = write_skin_attributes(c, mi, attrs);
		if (ok) c->mesh_skin[mi] = m->skin;
	} else if (ok && m->weights.count) {
		warn(c, "mesh %zu has weights but no skin: weights dropped", mi);
	}

	// Morph targets: a mesh with 0 or 1 frames is a plain mesh.
	if (ok && morph) {
		names = jarr(c);
		targets = write_targets(c, mi, pos, nrm, names, &bad_normals);
		ok = targets != NULL;
	}
	free(pos);
	free(nrm);
	if (!ok) {
		cJSON_Delete(attrs);
		cJSON_Delete(names);
		cJSON_Delete(targets);
		return false;
	}
	return write_primitives(c, mi, m, attrs, index_view, wide, targets, names, bad_normals);
}

// -- Grid meshes

/** Vertices or triangles a strip of a grid mesh holds (a few hundred KB of
 *  floats at a time, not the whole mesh). */
#define GRID_STRIP 16384

/** Mesh mi, a grid mesh (GSIO_OPT_GRID), written from its accessors a strip
 *  at a time straight into the binary buffer: the same views, accessors
 *  and bytes as write_arrays_mesh() writes from the expanded mesh. */
static bool write_grid_mesh(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	size_t nv = m->vertex_count, ntri = m->index_count / 3;
	bool wide = nv > 65535;
	float dummy[3];
	bool has_normals = gsio_mesh_grid_get(m, 0, 0, NULL, dummy, NULL) == 1;
	uint32_t *ix = xmalloc_array(c, GRID_STRIP, 3 * sizeof(uint32_t));
	float *pos = xmalloc_array(c, GRID_STRIP, 3 * sizeof(float));
	float *nrm = xmalloc_array(c, GRID_STRIP, 3 * sizeof(float));
	bool ok = ix && pos && nrm;

	// Indices, 16-bit when they fit, in place of the 32-bit ones.
	int index_view = -1;
	size_t off = c->bin.size;
	ok = ok && buffer_align(c);
	if (ok) off = c->bin.size;
	for (size_t t = 0; ok && t < ntri; t += GRID_STRIP) {
		size_t n = ntri - t < GRID_STRIP ? ntri - t : GRID_STRIP;
		ok = gsio_mesh_grid_indices(m, t, n, ix) == 0;
		if (ok && !wide) {
			uint16_t *i16 = (uint16_t *)(void *)ix;
			for (size_t k = 0; k < 3 * n; k++) i16[k] = (uint16_t)ix[k];
		}
		ok = ok && buf_append(c, ix, 3 * n * (wide ? 4 : 2));
	}
	if (ok) index_view = view_json(c, off, 3 * ntri * (wide ? 4 : 2), 0, GLTF_ELEMENT_ARRAY_BUFFER);
	ok = ok && index_view >= 0;

	// Positions (with min/max as min_max() finds them) and normals in
	// output axes, as write_arrays_mesh() turns them; then the uvs as stored.
	static const float up[3] = {0, 0, 1};
	float up_out[3], mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
	xf_dir(c, up, up_out);
	size_t bad_normals = 0;
	cJSON *attrs = jobj(c);
	for (int pass = 0; ok && pass < (has_normals ? 3 : 2); pass++) {
		int what = pass == 0 ? 0 : has_normals && pass == 1 ? 1 : 2; // position, normal, uv
		int ncomp = what == 2 ? 2 : 3;
		ok = buffer_align(c);
		off = c->bin.size;
		for (size_t v = 0; ok && v < nv; v += GRID_STRIP) {
			size_t n = nv - v < GRID_STRIP ? nv - v : GRID_STRIP;
			ok = gsio_mesh_grid_get(m, v, n, what == 0 ? pos : NULL, what == 1 ? nrm : NULL,
			                        what == 2 ? pos : NULL) >= 0;
			for (size_t k = 0; ok && what == 0 && k < n; k++) {
				float q[3];
				xf_pos(c, pos + 3 * k, q);
				memcpy(pos + 3 * k, q, sizeof(q));
				for (int j = 0; j < 3; j++) {
					if ((v == 0 && k == 0) || q[j] < mn[j]) mn[j] = q[j];
					if ((v == 0 && k == 0) || q[j] > mx[j]) mx[j] = q[j];
				}
			}
			for (size_t k = 0; ok && what == 1 && k < n; k++) {
				xf_dir(c, nrm + 3 * k, pos + 3 * k);
				if (!normalize3(pos + 3 * k, up_out)) bad_normals++;
			}
			ok = ok && buf_append(c, pos, n * (size_t)ncomp * sizeof(float));
		}
		int view = ok ? view_json(c, off, nv * (size_t)ncomp * sizeof(float), 0, GLTF_ARRAY_BUFFER) : -1;
		int acc = view < 0 ? -1 : float_accessor_json(c, view, nv, ncomp, what == 0 ? mn : NULL, what == 0 ? mx : NULL);
		ok = acc >= 0;
		jnum(c, attrs, what == 0 ? "POSITION" : what == 1 ? "NORMAL" : "TEXCOORD_0", acc);
	}
	free(ix), free(pos), free(nrm);
	if (!ok) {
		cJSON_Delete(attrs);
		return false;
	}
	return write_primitives(c, mi, m, attrs, index_view, wide, NULL, NULL, bad_normals);
}

/** Mesh mi, a grid mesh, through an expanded copy (for --compact, whose
 *  quantised accessors take whole arrays). */
static bool write_grid_expanded(gltf_ctx *c, size_t mi, const gsio_mesh *m)
{
	gsio_mesh e = *m;
	float dummy[3];
	bool has_normals = gsio_mesh_grid_get(m, 0, 0, NULL, dummy, NULL) == 1;
	e.positions = xmalloc_array(c, m->vertex_count, 3 * sizeof(float));
	e.normals = has_normals ? xmalloc_array(c, m->vertex_count, 3 * sizeof(float)) : NULL;
	e.uvs = xmalloc_array(c, m->vertex_count, 2 * sizeof(float));
	e.indices = xmalloc_array(c, m->index_count, sizeof(uint32_t));
	bool ok = e.positions && (e.normals || !has_normals) && e.uvs && e.indices &&
	          gsio_mesh_grid_get(m, 0, m->vertex_count, e.positions, e.normals, e.uvs) >= 0 &&
	          gsio_mesh_grid_indices(m, 0, m->index_count / 3, e.indices) == 0;
	e.grid = NULL;
	ok = ok && write_arrays_mesh(c, mi, &e);
	free(e.positions), free(e.normals), free(e.uvs), free(e.indices);
	return ok;
}

typedef struct mesh_key {
	uintptr_t positions;
	size_t index;
} mesh_key;

static int mesh_key_cmp(const void *a, const void *b)
{
	const mesh_key *x = a, *y = b;
	if (x->positions != y->positions) return x->positions < y->positions ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/** Groups the meshes by their positions array, the first thing same_mesh()
 *  compares: same_first[i] is the first mesh of i's positions, same_next[i]
 *  the next one (SIZE_MAX: none, or no positions). */
static bool plan_shared_meshes(gltf_ctx *c)
{
	size_t n = c->s->meshes_count;
	mesh_key *keys = xmalloc_array(c, n ? n : 1, sizeof(*keys));
	if (!keys) return false;
	for (size_t i = 0; i < n; i++) {
		keys[i].positions = (uintptr_t)c->s->meshes[i].positions;
		keys[i].index = i;
		c->same_first[i] = c->same_next[i] = SIZE_MAX;
	}
	qsort(keys, n, sizeof(*keys), mesh_key_cmp);
	for (size_t at = 0, end; at < n; at = end) {
		for (end = at + 1; end < n && keys[end].positions == keys[at].positions; end++) {}
		if (!keys[at].positions) continue;
		for (size_t j = at; j < end; j++) {
			c->same_first[keys[j].index] = keys[at].index;
			c->same_next[keys[j].index] = j + 1 < end ? keys[j + 1].index : SIZE_MAX;
		}
	}
	free(keys);
	return true;
}

static bool write_mesh(gltf_ctx *c, size_t mi)
{
	const gsio_scene *s = c->s;
	const gsio_mesh *m = &s->meshes[mi];
	size_t nv = m->vertex_count, ni = m->index_count;
	c->mesh_index[mi] = -1;
	c->mesh_targets[mi] = 0;
	c->mesh_skin[mi] = -1;
	// A mesh sharing an earlier one's arrays is that glTF mesh; only its
	// skin is its own. Only the meshes of its positions are candidates, in
	// order (plan_shared_meshes()): a scan of all earlier meshes made a
	// level of 20 000 blocks quadratic.
	for (size_t k = c->same_first[mi]; k < mi; k = c->same_next[k])
		if (c->mesh_index[k] >= 0 && same_mesh(s, m, &s->meshes[k]) &&
		    (c->q_scale[k] == 0 || c->q_ok[mi])) { // quantised: this mesh's nodes must take the fold too
			c->mesh_index[mi] = c->mesh_index[k];
			c->q_scale[mi] = c->q_scale[k];
			memcpy(c->q_off + 3 * mi, c->q_off + 3 * k, 3 * sizeof(float));
			c->mesh_targets[mi] = c->mesh_targets[k];
			c->mesh_skin[mi] = c->mesh_skin[k] >= 0 ? m->skin : -1;
			return true;
		}
	if (!nv || !ni || ((!m->positions || !m->indices) && !m->grid) || !m->parts_count) {
		warn(c, "mesh %zu (%s) has no vertices or triangles: not written", mi, or_default(m->name, ""));
		return true;
	}
	if (nv > UINT32_MAX - 1) {
		FAIL(c, GSIO_ERR_LIMIT, "mesh %zu: %zu vertices", mi, nv);
		return false;
	}
	if (m->grid) return c->compact ? write_grid_expanded(c, mi, m) : write_grid_mesh(c, mi, m);
	return write_arrays_mesh(c, mi, m);
}

// -- Nodes

static bool is_identity_quat(const float q[4])
{
	return q[0] == 0 && q[1] == 0 && q[2] == 0 && (q[3] == 1 || q[3] == -1);
}

/** Cameras and lights look along the scene node's +X; glTF's along local
 *  -Z. The fixed change of frame goes into the node's own rotation when
 *  nothing else hangs on the node (no mesh, no children, uniform scale);
 *  otherwise into a child node that carries the camera or light. */
static void plan_folds(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_node *n = &s->nodes[i];
		bool has = n->camera >= 0 || n->light >= 0;
		bool alone = n->mesh < 0 && n->scale[0] == n->scale[1] && n->scale[1] == n->scale[2];
		for (size_t j = i + 1; alone && j < s->nodes_count; j++)
			if (s->nodes[j].parent == (int32_t)i) alone = false;
		c->folded[i] = has && alone;
	}
}

static void node_attachments(gltf_ctx *c, cJSON *j, int32_t camera, int32_t light)
{
	if (camera >= 0) jnum(c, j, "camera", camera);
	if (light >= 0) {
		cJSON *ext = jobj(c), *l = jobj(c);
		jnum(c, l, "light", light);
		jset(c, ext, "KHR_lights_punctual", l);
		jset(c, j, "extensions", ext);
	}
}

/** Skeleton wrappers. With several skins, Blender's importer makes one
 *  armature per non-joint parent of a skeleton's root; skeletons whose roots
 *  are scene roots would all land in one armature. So, with 2 or more skins,
 *  every scene-root joint gets a plain parent node (one per skeleton: roots
 *  of one skin share it). wrap[i] is the wrapper number of root node i, -1
 *  when none; returns the wrapper count, -1 on failure. */
static int plan_wrappers(gltf_ctx *c, int *wrap, int *first_skin)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->nodes_count; i++) wrap[i] = -1;
	if (s->skins_count < 2) return 0;
	int count = 0;
	for (size_t k = 0; k < s->skins_count; k++) {
		const gsio_skin *sk = &s->skins[k];
		int w = -1;
		for (int pass = 0; pass < 2; pass++) // first find a wrapper in use, then assign
			for (size_t j = 0; j < sk->joints_count; j++) {
				int32_t r = sk->joints[j];
				while (s->nodes[r].parent >= 0) r = s->nodes[r].parent;
				bool is_joint = false;
				for (size_t q = 0; q < sk->joints_count && !is_joint; q++) is_joint = sk->joints[q] == r;
				if (!is_joint) continue; // the skeleton has a plain root already
				if (pass == 0 && w < 0) w = wrap[r];
				if (pass == 1 && wrap[r] < 0) {
					if (w < 0) {
						first_skin[count] = (int)k;
						w = count++;
					}
					wrap[r] = w;
				}
			}
	}
	return count;
}

/** Elements grouped: list[first[g] .. first[g + 1]) are the elements of
 *  group g, in order. */
typedef struct members {
	size_t *first, *list;
} members;

/** Groups the n elements by group_of[i] (outside 0 .. groups - 1: none), by
 *  counting: one pass where a scan of the elements per group is n * groups. */
static bool group_members(gltf_ctx *c, const int32_t *group_of, size_t n, size_t groups,
                          members *m)
{
	m->first = xmalloc_array(c, groups + 1, sizeof(size_t));
	m->list = xmalloc_array(c, n ? n : 1, sizeof(size_t));
	if (!m->first || !m->list) return false;
	memset(m->first, 0, (groups + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		if (group_of[i] >= 0 && (size_t)group_of[i] < groups) m->first[group_of[i] + 1]++;
	for (size_t g = 0; g < groups; g++) m->first[g + 1] += m->first[g];
	// Filling moves first[g] to the group's end, which is where g + 1 starts.
	for (size_t i = 0; i < n; i++)
		if (group_of[i] >= 0 && (size_t)group_of[i] < groups) m->list[m->first[group_of[i]]++] = i;
	for (size_t g = groups; g > 0; g--) m->first[g] = m->first[g - 1];
	m->first[0] = 0;
	return true;
}

static bool write_nodes(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	size_t nn = s->nodes_count;
	int helper = (int)nn; // next helper node index
	int helpers = 0;
	for (size_t i = 0; i < nn; i++)
		if ((s->nodes[i].camera >= 0 || s->nodes[i].light >= 0) && !c->folded[i]) helpers++;
	int *wrap = xmalloc_array(c, nn ? nn : 1, sizeof(int));
	int *first_skin = xmalloc_array(c, s->skins_count ? s->skins_count : 1, sizeof(int));
	int wrappers = wrap && first_skin ? plan_wrappers(c, wrap, first_skin) : -1;
	if (wrappers < 0) {
		free(wrap);
		free(first_skin);
		return false;
	}
	// Each node's children in order, and each wrapper's nodes: a scan of
	// the nodes per node (and per wrapper) made a level of 20 000 objects
	// quadratic.
	members kids = {0}, wrapped = {0};
	int32_t *parent = xmalloc_array(c, nn ? nn : 1, sizeof(int32_t));
	if (parent)
		for (size_t i = 0; i < nn; i++) parent[i] = s->nodes[i].parent;
	if (!parent || !group_members(c, parent, nn, nn, &kids) ||
	    !group_members(c, wrap, nn, (size_t)wrappers, &wrapped)) {
		free(parent);
		free(kids.first), free(kids.list), free(wrapped.first), free(wrapped.list);
		free(wrap);
		free(first_skin);
		return false;
	}
	free(parent);
	for (size_t i = 0; i < nn; i++) {
		const gsio_node *n = &s->nodes[i];
		cJSON *j = jobj(c);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "node%zu", i);
		const char *name = or_default(n->name, fallback);
		jstr(c, j, "name", name);
		cJSON *children = NULL;
		for (size_t at = kids.first[i]; at < kids.first[i + 1]; at++) {
			if (!children) children = jarr(c);
			jpush_num(c, children, (double)kids.list[at]);
		}
		bool needs_helper = (n->camera >= 0 || n->light >= 0) && !c->folded[i];
		if (needs_helper) {
			if (!children) children = jarr(c);
			jpush_num(c, children, helper++);
		}
		if (children) jset(c, j, "children", children);
		float t[3], r[4], sc[3];
		xf_pos(c, n->translation, t);
		node_rotation(c, (int32_t)i, n->rotation, r);
		xf_dir(c, n->scale, sc);
		if (n->mesh >= 0 && c->q_scale[n->mesh] > 0) {
			// Dequantisation of the mesh's positions (plan_quant: a leaf
			// without TRS animation): node * translate(off) * scale(q).
			const float *off = c->q_off + 3 * (size_t)n->mesh;
			float so[3], ro[3];
			for (int k = 0; k < 3; k++) so[k] = sc[k] * off[k];
			gsioi_quat_rotate(r, so, ro);
			for (int k = 0; k < 3; k++) {
				t[k] += ro[k];
				sc[k] *= c->q_scale[n->mesh];
			}
		}
		if (t[0] != 0 || t[1] != 0 || t[2] != 0) jset(c, j, "translation", jfloats(c, t, 3));
		if (!is_identity_quat(r)) jset(c, j, "rotation", jfloats(c, r, 4));
		if (sc[0] != 1 || sc[1] != 1 || sc[2] != 1) jset(c, j, "scale", jfloats(c, sc, 3));
		if (n->mesh >= 0 && c->mesh_index[n->mesh] >= 0) {
			jnum(c, j, "mesh", c->mesh_index[n->mesh]);
			if (c->mesh_skin[n->mesh] >= 0) jnum(c, j, "skin", c->mesh_skin[n->mesh]);
		}
		if (c->folded[i]) node_attachments(c, j, n->camera, n->light);
		cJSON *extras = extras_json(c, NULL, &n->extras);
		if (extras) jset(c, j, "extras", extras);
		jadd(c, c->nodes, j);
		if (n->parent < 0 && wrap[i] < 0) jpush_num(c, c->scene_nodes, (double)i);
	}
	// The helper nodes, in the order their parents were written.
	float fix[4];
	frame_fix(c, fix);
	for (size_t i = 0; i < nn; i++) {
		const gsio_node *n = &s->nodes[i];
		if (!((n->camera >= 0 || n->light >= 0) && !c->folded[i])) continue;
		cJSON *j = jobj(c);
		char name[300];
		snprintf(name, sizeof(name), "%s_%s", or_default(n->name, "node"), n->camera >= 0 ? "camera" : "light");
		jstr(c, j, "name", name);
		if (!is_identity_quat(fix)) jset(c, j, "rotation", jfloats(c, fix, 4));
		node_attachments(c, j, n->camera, n->light);
		jadd(c, c->nodes, j);
	}
	// The skeleton wrappers, after the helpers.
	for (int w = 0; w < wrappers; w++) {
		cJSON *j = jobj(c), *children = jarr(c);
		const gsio_skin *sk = &s->skins[first_skin[w]];
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "skeleton%d", w);
		jstr(c, j, "name", or_default(sk->name, fallback));
		for (size_t at = wrapped.first[w]; at < wrapped.first[w + 1]; at++)
			jpush_num(c, children, (double)wrapped.list[at]);
		jset(c, j, "children", children);
		jpush_num(c, c->scene_nodes, (double)((int)nn + helpers + w));
		jadd(c, c->nodes, j);
	}
	free(kids.first), free(kids.list), free(wrapped.first), free(wrapped.list);
	free(wrap);
	free(first_skin);
	return true;
}

// -- Skins

static bool write_skins(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	// The axis change R is a permutation: (R M R^-1)[i][j] = M[p[i]][p[j]],
	// and the translation column is scaled and permuted like a position.
	static const int perm_conv[3] = {1, 2, 0}, perm_keep[3] = {0, 1, 2};
	const int *p = c->convert_axes ? perm_conv : perm_keep;
	for (size_t k = 0; k < s->skins_count; k++) {
		const gsio_skin *sk = &s->skins[k];
		size_t nj = sk->joints_count;
		cJSON *skin = jobj(c), *joints = jarr(c);
		for (size_t j = 0; j < nj; j++) jpush_num(c, joints, sk->joints[j]);
		jset(c, skin, "joints", joints);
		if (nj && sk->inverse_bind) {
			float *ibm = xmalloc_array(c, nj, 16 * sizeof(float));
			if (!ibm) {
				cJSON_Delete(skin);
				return false;
			}
			for (size_t j = 0; j < nj; j++) {
				const float *in = sk->inverse_bind + 16 * j;
				float *o = ibm + 16 * j;
				for (int col = 0; col < 3; col++) {
					for (int row = 0; row < 3; row++) o[col * 4 + row] = in[p[col] * 4 + p[row]];
					o[col * 4 + 3] = 0;
				}
				for (int row = 0; row < 3; row++) o[12 + row] = in[12 + p[row]] * c->scale;
				o[15] = 1; // exactly affine, as glTF requires
			}
			int acc = float_accessor(c, ibm, nj, 16, false, 0);
			free(ibm);
			if (acc < 0) {
				cJSON_Delete(skin);
				return false;
			}
			jnum(c, skin, "inverseBindMatrices", acc);
		}
		if (sk->skeleton >= 0) jnum(c, skin, "skeleton", sk->skeleton);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "skin%zu", k);
		jstr(c, skin, "name", or_default(sk->name, fallback));
		jadd(c, c->skins, skin);
	}
	return true;
}

// -- Cameras and lights

static double yfov_of(double hfov_deg, double aspect)
{
	double h = hfov_deg * M_PI / 180.0;
	return 2.0 * atan(tan(h / 2.0) / aspect);
}

/** The first animation with a channel on a node that carries camera ci, and
 *  its FOV channel (NULL if none). */
static const gsio_animation *camera_animation(const gltf_ctx *c, size_t ci, const gsio_channel **fov)
{
	const gsio_scene *s = c->s;
	*fov = NULL;
	for (size_t a = 0; a < s->animations_count; a++) {
		const gsio_animation *an = &s->animations[a];
		const gsio_animation *hit = NULL;
		for (size_t k = 0; k < an->channels_count; k++) {
			const gsio_channel *ch = &an->channels[k];
			if (ch->node < 0 || s->nodes[ch->node].camera != (int32_t)ci) continue;
			hit = an;
			if (ch->path == GSIO_PATH_FOV && ch->values) {
				*fov = ch;
				return an;
			}
		}
		if (hit) return hit;
	}
	return NULL;
}

static bool write_cameras(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t ci = 0; ci < s->cameras_count; ci++) {
		const gsio_camera *cam = &s->cameras[ci];
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "camera%zu", ci);
		const char *name = or_default(cam->name, fallback);
		double hfov = cam->fov;
		if (!(hfov > 0 && hfov < 180)) {
			warn(c, "camera %s: field of view %g is out of range: using 90", name, hfov);
			hfov = 90.0;
		}
		double aspect = cam->aspect > 0 ? cam->aspect : CAMERA_ASPECT;
		double znear = (cam->znear > 0 ? cam->znear : CAMERA_ZNEAR) * c->scale;
		cJSON *cj = jobj(c), *persp = jobj(c);
		jstr(c, cj, "name", name);
		jstr(c, cj, "type", "perspective");
		jnum(c, persp, "aspectRatio", aspect);
		jnum(c, persp, "yfov", yfov_of(hfov, aspect));
		jnum(c, persp, "znear", znear);
		if (cam->zfar > 0 && cam->zfar * c->scale > znear) jnum(c, persp, "zfar", cam->zfar * c->scale);
		jset(c, cj, "perspective", persp);
		// glTF cannot animate the field of view (without KHR_animation_pointer,
		// which Blender 3.4 ignores): keep the per-frame values and the cuts.
		cJSON *extras = jobj(c);
		if (!(cam->aspect > 0)) jnum(c, extras, "aspectRatioChosen", aspect);
		const gsio_channel *fov;
		const gsio_animation *an = camera_animation(c, ci, &fov);
		if (fov) {
			cJSON *fovs = jarr(c);
			for (size_t f = 0; f < an->frames_count; f++) jpush_num(c, fovs, fov->values[f]);
			jset(c, extras, "horizontalFovDegrees", fovs);
		}
		if (an && an->cuts_count) {
			cJSON *cuts = jarr(c);
			for (size_t k = 0; k < an->cuts_count; k++) jpush_num(c, cuts, an->cuts[k]);
			jset(c, extras, "cuts", cuts);
		}
		if (cJSON_GetArraySize(extras))
			jset(c, cj, "extras", extras);
		else
			cJSON_Delete(extras);
		jadd(c, c->cameras, cj);
	}
	return true;
}

static bool write_lights(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (!s->lights_count) return true;
	for (size_t li = 0; li < s->lights_count; li++) {
		const gsio_light *l = &s->lights[li];
		cJSON *j = jobj(c);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "light%zu", li);
		jstr(c, j, "name", or_default(l->name, fallback));
		const char *type = l->type == GSIO_LIGHT_SPOT ? "spot"
		                   : l->type == GSIO_LIGHT_DIRECTIONAL ? "directional" : "point";
		jstr(c, j, "type", type);
		float col[3];
		for (int k = 0; k < 3; k++) col[k] = l->color[k] < 0 ? 0 : l->color[k] > 1 ? 1 : l->color[k];
		if (col[0] != 1 || col[1] != 1 || col[2] != 1) jset(c, j, "color", jfloats(c, col, 3));
		jnum(c, j, "intensity", l->intensity >= 0 ? l->intensity : 0);
		if (l->type != GSIO_LIGHT_DIRECTIONAL && l->range > 0) jnum(c, j, "range", l->range * c->scale);
		if (l->type == GSIO_LIGHT_SPOT) {
			cJSON *spot = jobj(c);
			jnum(c, spot, "innerConeAngle", l->inner_cone);
			jnum(c, spot, "outerConeAngle", l->outer_cone);
			jset(c, j, "spot", spot);
		}
		cJSON *extras = extras_json(c, NULL, &l->extras);
		if (extras) jset(c, j, "extras", extras);
		jadd(c, c->lights, j);
	}
	cJSON *exts = cJSON_GetObjectItemCaseSensitive(c->root, "extensions");
	if (!exts) {
		exts = jobj(c);
		jset(c, c->root, "extensions", exts);
	}
	cJSON *ext = jobj(c);
	jset(c, ext, "lights", c->lights);
	c->lights = NULL;
	jset(c, exts, "KHR_lights_punctual", ext);
	use_extension(c, "KHR_lights_punctual", &c->used_lights);
	return true;
}

// -- Animations

static float checked_fps(gltf_ctx *c, float fps, const char *name)
{
	if (isfinite(fps) && fps > 0) return fps;
	warn(c, "animation %s has frame rate %g: using %g", name, (double)fps, (double)GSIO_DEFAULT_FPS);
	return GSIO_DEFAULT_FPS;
}

static void add_channel(gltf_ctx *c, cJSON *samplers, cJSON *channels, int input, int output,
                        int node, const char *path)
{
	cJSON *sm = jobj(c), *ch = jobj(c), *tg = jobj(c);
	jnum(c, sm, "input", input);
	jnum(c, sm, "output", output);
	jstr(c, sm, "interpolation", "LINEAR");
	int si = jpush(c, samplers, sm);
	jnum(c, ch, "sampler", si);
	jnum(c, tg, "node", node);
	jstr(c, tg, "path", path);
	jset(c, ch, "target", tg);
	jadd(c, channels, ch);
}

/** Key layout of an animation: frame f is key key_of[f]; a cut at frame f
 *  also has a key just before it (1% of a frame earlier) that holds frame
 *  f-1's value, so LINEAR interpolation jumps instead of sweeping. */
typedef struct key_plan {
	size_t keys;
	size_t *key_of;    // per frame
	bool *cut_before;  // per frame
} key_plan;

/** Writes `width` floats per frame from vals (already converted) as keys. */
static int keyed_accessor(gltf_ctx *c, const key_plan *kp, const float *vals, size_t frames,
                          int width)
{
	float *out = xmalloc_array(c, kp->keys, (size_t)width * sizeof(float));
	if (!out) return -1;
	for (size_t f = 0; f < frames; f++) {
		size_t k = kp->key_of[f];
		memcpy(out + k * (size_t)width, vals + f * (size_t)width, (size_t)width * sizeof(float));
		if (kp->cut_before[f])
			memcpy(out + (k - 1) * (size_t)width, vals + (f - 1) * (size_t)width,
			       (size_t)width * sizeof(float));
	}
	int a = float_accessor(c, out, kp->keys, width, false, 0);
	free(out);
	return a;
}

/** A morph channel's weights, `nt` a key (see channel_output), into w:
 *  one-hot from `frames` (at key k the weight of target frames[k] is 1,
 *  LINEAR between keys: a blend of two frames, which is how the engine
 *  interpolates), or as given in `values`. */
static void morph_weights(const gsio_animation *an, const gsio_channel *ch, const key_plan *kp, size_t nt,
                          float *w)
{
	memset(w, 0, kp->keys * nt * sizeof(float));
	for (size_t f = 0; f < an->frames_count; f++) {
		size_t k = kp->key_of[f];
		for (int back = 0; back <= (kp->cut_before[f] ? 1 : 0); back++) {
			size_t src = f - (size_t)back, key = k - (size_t)back;
			if (ch->frames)
				w[key * nt + ch->frames[src]] = 1.0f;
			else
				memcpy(w + key * nt, ch->values + src * nt, nt * sizeof(float));
		}
	}
}

/** The output of one channel, in output axes. Returns the accessor, -1 on
 *  failure, -2 when the channel has no glTF counterpart (skipped). */
static int channel_output(gltf_ctx *c, const gsio_animation *an, const gsio_channel *ch,
                          const key_plan *kp, const char **path)
{
	const gsio_scene *s = c->s;
	size_t nf = an->frames_count;
	const gsio_node *node = &s->nodes[ch->node];
	if (ch->path == GSIO_PATH_FOV) return -2; // camera extras
	if (ch->path == GSIO_PATH_MORPH) {
		if (node->mesh < 0 || !c->mesh_targets[node->mesh]) return -2; // static mesh
		size_t nt = (size_t)c->mesh_targets[node->mesh], nvals;
		if (!mul_size(kp->keys, nt, &nvals)) {
			FAIL(c, GSIO_ERR_LIMIT, "animation %s is too large", an->name);
			return -1;
		}
		*path = "weights";
		size_t bytes;
		if (!mul_size(nvals, sizeof(float), &bytes)) {
			FAIL(c, GSIO_ERR_LIMIT, "animation %s is too large", an->name);
			return -1;
		}
		// As floats, straight into the binary buffer when it holds them in
		// memory (golem: 213 KB not allocated, cleared and copied again).
		float *room = c->compact ? NULL : view_room(c, bytes);
		if (room) {
			morph_weights(an, ch, kp, nt, room);
			int view = add_claimed_view(c, bytes, 0);
			return view < 0 ? -1 : float_accessor_json(c, view, nvals, 1, NULL, NULL);
		}
		if (c->bin.failed) return -1;
		float *w = xmalloc_array(c, nvals, sizeof(float));
		if (!w) return -1;
		morph_weights(an, ch, kp, nt, w);
		bool unit = c->compact;
		for (size_t i = 0; unit && i < nvals; i++) unit = w[i] >= 0 && w[i] <= 1;
		int a;
		if (unit) {
			// Compact: normalized UNSIGNED_BYTE weights (core glTF allows
			// them for the weights path); a quarter of the floats' size.
			uint8_t *b = (uint8_t *)w; // in place: byte i is written after float i is read
			for (size_t i = 0; i < nvals; i++) b[i] = (uint8_t)floor((double)w[i] * 255 + 0.5);
			int view = add_view(c, b, nvals, 0);
			a = -1;
			if (view >= 0) {
				cJSON *j = jobj(c);
				jnum(c, j, "bufferView", view);
				jnum(c, j, "componentType", GLTF_UNSIGNED_BYTE);
				cJSON_AddBoolToObject(j, "normalized", 1);
				jnum(c, j, "count", (double)nvals);
				jstr(c, j, "type", "SCALAR");
				a = jpush(c, c->accessors, j);
			}
		} else {
			a = float_accessor(c, w, nvals, 1, false, 0);
		}
		free(w);
		return a;
	}
	int width = ch->path == GSIO_PATH_ROTATION ? 4 : 3;
	float *v = xmalloc_array(c, nf, (size_t)width * sizeof(float));
	if (!v) return -1;
	for (size_t f = 0; f < nf; f++) {
		const float *in = ch->values + f * (size_t)width;
		float *o = v + f * (size_t)width;
		switch (ch->path) {
		case GSIO_PATH_TRANSLATION: xf_pos(c, in, o); break;
		case GSIO_PATH_SCALE: xf_dir(c, in, o); break;
		default:
			node_rotation(c, ch->node, in, o);
			// Keep consecutive keys in one hemisphere: the short way round.
			if (f > 0 && o[0] * o[-4] + o[1] * o[-3] + o[2] * o[-2] + o[3] * o[-1] < 0)
				for (int k = 0; k < 4; k++) o[k] = -o[k];
			break;
		}
	}
	*path = ch->path == GSIO_PATH_TRANSLATION ? "translation"
	        : ch->path == GSIO_PATH_SCALE     ? "scale" : "rotation";
	int a = keyed_accessor(c, kp, v, nf, width);
	free(v);
	return a;
}

static bool write_animation(gltf_ctx *c, size_t ai)
{
	const gsio_animation *an = &c->s->animations[ai];
	char fallback[32];
	snprintf(fallback, sizeof(fallback), "animation%zu", ai);
	const char *name = or_default(an->name, fallback);
	size_t nf = an->frames_count;
	float fps = checked_fps(c, an->fps, name);
	key_plan kp = {0};
	kp.key_of = xmalloc_array(c, nf, sizeof(size_t));
	kp.cut_before = xmalloc_array(c, nf, sizeof(bool));
	float *times = NULL;
	bool ok = kp.key_of && kp.cut_before;
	if (ok) {
		memset(kp.cut_before, 0, nf * sizeof(bool));
		for (size_t k = 0; k < an->cuts_count; k++)
			if (an->cuts[k] >= 1 && an->cuts[k] < nf) kp.cut_before[an->cuts[k]] = true;
		for (size_t f = 0; f < nf; f++) {
			if (kp.cut_before[f]) kp.keys++;
			kp.key_of[f] = kp.keys++;
		}
		times = xmalloc_array(c, kp.keys, sizeof(float));
		ok = times != NULL;
	}
	if (ok) {
		for (size_t f = 0; f < nf; f++) {
			times[kp.key_of[f]] = (float)((double)f / fps);
			if (kp.cut_before[f]) times[kp.key_of[f] - 1] = (float)(((double)f - 0.01) / fps);
		}
	}
	cJSON *samplers = jarr(c), *channels = jarr(c);
	int input = -1;
	for (size_t k = 0; ok && k < an->channels_count; k++) {
		const char *path = NULL;
		int out = channel_output(c, an, &an->channels[k], &kp, &path);
		if (out == -2) continue;
		if (out < 0) {
			ok = false;
			break;
		}
		if (input < 0) input = float_accessor(c, times, kp.keys, 1, true, 0);
		ok = input >= 0;
		if (ok) add_channel(c, samplers, channels, input, out, an->channels[k].node, path);
	}
	free(kp.key_of);
	free(kp.cut_before);
	free(times);
	if (!ok || !cJSON_GetArraySize(channels)) {
		cJSON_Delete(samplers);
		cJSON_Delete(channels);
		return ok;
	}
	cJSON *a = jobj(c);
	jstr(c, a, "name", name);
	jset(c, a, "channels", channels);
	jset(c, a, "samplers", samplers);
	cJSON *extras = extras_json(c, NULL, &an->extras);
	if (extras) jset(c, a, "extras", extras);
	jadd(c, c->animations, a);
	return true;
}

// -- Document assembly

/** Attaches arr under key when it has items (glTF forbids empty arrays). */
static void attach(gltf_ctx *c, const char *key, cJSON **arr)
{
	cJSON *a = jtext_take(c, arr);
	if (a) jset(c, c->root, key, a);
}

/* The GLB is assembled in the binary buffer itself: grown to the total
 * size (realloc moves a large block by remapping its pages, not copying),
 * the binary chunk moved up behind the header and the JSON. A separate GLB
 * buffer held the output twice at the peak; this holds it once. */
typedef struct glb_layout {
	size_t json; // the JSON's own length
	size_t jl, jpad, bl, bpad, total; // jl: its room (plan_bounds), at least json
} glb_layout;

static bool glb_plan(gltf_ctx *c, const char *json, glb_layout *g)
{
	g->json = glb_json_len(c, json);
	g->jl = g->json > c->json_room ? g->json : c->json_room;
	g->jpad = (4 - g->jl % 4) % 4;
	g->bl = c->img_bytes + c->bin.size;
	if (g->bl < c->bin.size) g->bl = SIZE_MAX;
	g->bpad = (4 - g->bl % 4) % 4;
	g->total = 12 + 8 + g->jl + g->jpad + (g->bl ? 8 + g->bl + g->bpad : 0);
	if (g->bl > UINT32_MAX || g->total > UINT32_MAX || g->total < g->jl) {
		FAIL(c, GSIO_ERR_LIMIT, "GLB of %zu bytes exceeds 4 GiB", g->total);
		return false;
	}
	return true;
}

/** glb_json_emit() into memory. */
static bool emit_to_memory(void *user, const void *p, size_t n)
{
	uint8_t **at = user;
	memcpy(*at, p, n);
	*at += n;
	return true;
}

/** glb_json_emit() into the placed file: after what was written before,
 *  or (`at_mode`) at `at`. */
typedef struct emit_place {
	gsioi_placing *g;
	gsio_error *err;
	bool at_mode;
	uint64_t at;
} emit_place;

static bool emit_to_place(void *user, const void *p, size_t n)
{
	emit_place *e = user;
	if (!e->at_mode) return !gsioi_place_write(e->g, p, n, e->err);
	if (gsioi_place_write_at(e->g, e->at, p, n, e->err)) return false;
	e->at += n;
	return true;
}

/** n spaces through emit (the JSON chunk's room past the JSON). */
static bool emit_spaces(bool (*emit)(void *user, const void *p, size_t n), void *user, size_t n)
{
	static const char spaces[] = "                                                                ";
	for (size_t k; n; n -= k)
		if (!emit(user, spaces, (k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1))) return false;
	return true;
}

static bool make_glb(gltf_ctx *c, const char *json, gsio_gltf_output *out)
{
	glb_layout lay;
	if (!glb_plan(c, json, &lay)) return false;
	size_t jl = lay.jl, jpad = lay.jpad, bl = lay.bl, bpad = lay.bpad, total = lay.total;
	uint8_t *g = realloc(c->bin.data, total);
	if (!g) return fail_nomem(c, "the GLB");
	c->bin.data = g;
	c->bin.cap = total;
	size_t head = 20 + jl + jpad;
	if (bl) {
		// The rest of the buffer first, then the images from their own
		// buffers.
		memmove(g + head + 8, g, c->bin.size);
		uint32_t ch[2] = {(uint32_t)(bl + bpad), GLB_CHUNK_BIN};
		memcpy(g + head, ch, 8);
		uint8_t *img = g + head + 8 + c->bin.size;
		images_emit(c, emit_to_memory, &img);
		memset(g + head + 8 + bl, 0, bpad);
	}
	uint32_t hdr[5] = {GLB_MAGIC, 2, (uint32_t)total, (uint32_t)(jl + jpad), GLB_CHUNK_JSON};
	memcpy(g, hdr, 20);
	uint8_t *at = g + 20;
	glb_json_emit(c, json, emit_to_memory, &at);
	memset(g + 20 + lay.json, ' ', jl - lay.json + jpad);
	char name[512];
	snprintf(name, sizeof(name), "%s.glb", c->name);
	if (!add_file(out, name, g, total)) return fail_nomem(c, "the output list");
	c->bin.data = NULL; // the output owns it now
	c->bin.size = c->bin.cap = 0;
	return true;
}

/* Writing to a file: header, JSON and BIN chunk go straight into the placed
 * file, the BIN from memory or copied from the spill file in the kernel,
 * unless early_bin() put it there already. The bytes are the ones
 * make_glb() assembles. */
static bool place_glb(gltf_ctx *c, const char *json)
{
	glb_layout lay;
	if (!glb_plan(c, json, &lay)) return false;
	if (c->bin.spill && !buf_spill(c, true)) return false;
	gsioi_placing *g = c->early;
	c->early = NULL;
	// Where early_bin() wrote it, unless the JSON took more room than the
	// bounds gave it (then it is written again further on).
	bool placed = g && lay.jl == c->early_room;
	if (!g && !(g = gsioi_place_open(c->sink->path, c->err))) return false;
	if (gsioi_place_reserve(g, lay.total, c->err)) {
		gsioi_place_discard(g);
		return false;
	}
	static const uint8_t zeros[3] = {0};
	uint32_t hdr[5] = {GLB_MAGIC, 2, (uint32_t)lay.total, (uint32_t)(lay.jl + lay.jpad), GLB_CHUNK_JSON};
	emit_place e = {g, c->err, false, 0};
	bool ok = !gsioi_place_write(g, hdr, sizeof(hdr), c->err) && glb_json_emit(c, json, emit_to_place, &e) &&
	          emit_spaces(emit_to_place, &e, lay.jl - lay.json + lay.jpad);
	if (ok && lay.bl) {
		uint32_t ch[2] = {(uint32_t)(lay.bl + lay.bpad), GLB_CHUNK_BIN};
		ok = !gsioi_place_write(g, ch, sizeof(ch), c->err);
		if (placed) // the images after it, at their offset
			e = (emit_place){g, c->err, true, 20 + (uint64_t)lay.jl + lay.jpad + 8 + c->bin.size};
		else if (ok && c->bin.spill)
			ok = !gsioi_place_append(g, c->bin.spill, c->err);
		else if (ok)
			ok = !gsioi_place_write(g, c->bin.data, c->bin.size, c->err);
		ok = ok && images_emit(c, emit_to_place, &e) && emit_to_place(&e, zeros, lay.bpad);
	}
	if (!ok) {
		gsioi_place_discard(g);
		return false;
	}
	return gsioi_place_commit(g, c->sink->no_replace, c->err) == 0;
}

/** Writing a GLB to a file: the buffer's bytes but the images go to their
 *  place in it now, past the room the JSON chunk gets (json_room), while
 *  the helper may still be making images: golem's and human's 4.8 MB
 *  written while their 512 x 512 skin is finished (0.93 and 0.915 of the
 *  conversion's time, 41 paired runs). place_glb() writes the rest. */
static bool early_bin(gltf_ctx *c)
{
	uint64_t at = 20 + (uint64_t)((c->json_room + 3) & ~(size_t)3) + 8;
	gsioi_placing *g = gsioi_place_open(c->sink->path, c->err);
	if (!g) return false;
	if (gsioi_place_reserve(g, at + c->bin.size, c->err) ||
	    gsioi_place_write_at(g, at, c->bin.data, c->bin.size, c->err)) {
		gsioi_place_discard(g);
		return false;
	}
	c->early = g;
	c->early_room = c->json_room;
	return true;
}

/** A GLB's images made and placed, and what depends on their sizes set:
 *  first the room the JSON chunk gets (plan_bounds) from the document
 *  printed with the bounds; then, writing to a file, the rest of the
 *  buffer written (early_bin); then the images waited for, their views
 *  printed again and the buffer's length set. */
static bool glb_images(gltf_ctx *c)
{
	char *doc = cJSON_PrintUnformatted(c->root);
	if (!doc) return fail_nomem(c, "printing JSON");
	c->json_room = glb_json_len(c, doc);
	free(doc);
	if (c->sink && !c->bin.spill && c->bin.size && c->jobs_count && !early_bin(c)) return false;
	if (!images_place(c)) return false;
	jtext *t = &c->jt[JT_VIEWS];
	emit_views(c, false);
	if (t->n) jtext_close(t); // as jtext_take() closed it
	cJSON *n = c->buffer ? jnumber((double)(c->bin.size + c->img_bytes)) : NULL;
	if (c->buffer && (!n || !cJSON_ReplaceItemInObjectCaseSensitive(c->buffer, "byteLength", n))) {
		cJSON_Delete(n);
		return fail_nomem(c, "the JSON document");
	}
	return !c->json_failed || fail_nomem(c, "the JSON document");
}

void gsio_gltf_output_free(gsio_gltf_output *out)
{
	if (!out) return;
	for (size_t i = 0; i < out->files_count; i++) {
		free(out->files[i].name);
		free(out->files[i].data);
	}
	for (size_t i = 0; i < out->warnings_count; i++) free(out->warnings[i]);
	free(out->files);
	free(out->warnings);
	memset(out, 0, sizeof(*out));
}

static bool build_document(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	cJSON *asset = jobj(c);
	jset(c, c->root, "asset", asset);
	jstr(c, asset, "version", "2.0");
	jstr(c, asset, "generator", c->generator);
	cJSON *aextra = jobj(c);
	if (s->format) jstr(c, aextra, "sourceFormat", s->format);
	jnum(c, aextra, "sourceVersion", s->format_version);
	jstr(c, aextra, "sourceAxes", c->convert_axes ? "converted from Z up, X forward" : "Z up, X forward (kept)");
	if (s->warnings_count) {
		cJSON *w = jarr(c);
		for (size_t i = 0; i < s->warnings_count; i++) jadd(c, w, cJSON_CreateString(s->warnings[i]));
		jset(c, aextra, "sourceWarnings", w);
	}
	jset(c, asset, "extras", aextra);

	c->accessors = jarr(c);
	c->views = jarr(c);
	c->nodes = jarr(c);
	c->meshes = jarr(c);
	c->materials = jarr(c);
	c->textures = jarr(c);
	c->images = jarr(c);
	c->samplers = jarr(c);
	c->skins = jarr(c);
	c->animations = jarr(c);
	c->cameras = jarr(c);
	c->scene_nodes = jarr(c);
	c->extensions_used = jarr(c);
	if (c->json_failed) return fail_nomem(c, "the JSON document");

	c->lights = jarr(c);
	size_t n = s->meshes_count ? s->meshes_count : 1;
	c->mesh_index = xmalloc_array(c, n, sizeof(int));
	c->same_first = xmalloc_array(c, n, sizeof(size_t));
	c->same_next = xmalloc_array(c, n, sizeof(size_t));
	c->mesh_targets = xmalloc_array(c, n, sizeof(int));
	c->mesh_skin = xmalloc_array(c, n, sizeof(int));
	c->image_index = xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(int));
	c->tex_of = xmalloc_array(c, s->images_count ? s->images_count : 1, sizeof(*c->tex_of));
	c->folded = xmalloc_array(c, s->nodes_count ? s->nodes_count : 1, sizeof(bool));
	c->q_off = xmalloc_array(c, n, 3 * sizeof(float));
	c->q_scale = xmalloc_array(c, n, sizeof(float));
	c->q_ok = xmalloc_array(c, n, sizeof(bool));
	if (!c->q_off || !c->q_scale || !c->q_ok) return false;
	for (size_t i = 0; i < n; i++) c->q_scale[i] = 0, c->q_ok[i] = false;
	plan_quant(c);
	if (!c->mesh_index || !c->mesh_targets || !c->mesh_skin || !c->image_index || !c->folded ||
	    !c->tex_of || !c->same_first || !c->same_next || !plan_shared_meshes(c))
		return false;
	for (size_t i = 0; i < s->images_count; i++)
		for (int k = 0; k < 9; k++) c->tex_of[i][k] = -1;
	for (size_t i = 0; i < n; i++) c->mesh_index[i] = c->mesh_targets[i] = c->mesh_skin[i] = -1;
	for (size_t i = 0; i < 9; i++) c->sampler_of[i / 3][i % 3] = -1;

	// The images never go into the BIN in memory (a GLB's go after it in
	// the file, glb_images()), so what it surely reaches is known now.
	c->bin_surely = bin_before_images(c);
	if (!write_images(c)) return false;
	if (!write_materials(c)) return false;
	c->variants_count = plan_variants(c);
	for (size_t i = 0; i < s->meshes_count; i++)
		if (!write_mesh(c, i)) return false;
	if (c->used_quant) {
		// Quantised attributes are invalid glTF without the extension.
		jadd(c, c->extensions_used, cJSON_CreateString("KHR_mesh_quantization"));
		cJSON *req = jarr(c);
		jadd(c, req, cJSON_CreateString("KHR_mesh_quantization"));
		jset(c, c->root, "extensionsRequired", req);
	}
	plan_folds(c);
	if (!write_nodes(c) || !write_skins(c) || !write_cameras(c) || !write_lights(c)) return false;
	for (size_t i = 0; c->animate && i < s->animations_count; i++)
		if (!write_animation(c, i)) return false;
	if (!buffer_align(c)) return false;
	if (c->separate) {
		if (!images_place(c)) return false;
		emit_views(c, false);
	} else {
		// The images are placed later (glb_images); their views and the
		// buffer's length are printed with their bounds first.
		plan_bounds(c);
		emit_views(c, true);
	}

	size_t bytes = c->bin.size + (c->separate ? 0 : c->img_bound); // a .gltf's images are files
	if (bytes) {
		cJSON *buffers = jarr(c), *b = jobj(c);
		jnum(c, b, "byteLength", (double)bytes);
		c->buffer = b;
		if (c->separate) {
			char file[512], uri[1600];
			snprintf(file, sizeof(file), "%s.bin", c->name);
			uri_encode(file, uri, sizeof(uri));
			jstr(c, b, "uri", uri);
		}
		jadd(c, buffers, b);
		jset(c, c->root, "buffers", buffers);
	}
	attach(c, "extensionsUsed", &c->extensions_used);
	attach(c, "bufferViews", &c->views);
	attach(c, "accessors", &c->accessors);
	attach(c, "images", &c->images);
	attach(c, "samplers", &c->samplers);
	attach(c, "textures", &c->textures);
	attach(c, "materials", &c->materials);
	attach(c, "meshes", &c->meshes);
	attach(c, "skins", &c->skins);
	attach(c, "cameras", &c->cameras);
	attach(c, "nodes", &c->nodes);
	attach(c, "animations", &c->animations);
	cJSON *scenes = jarr(c), *scene = jobj(c);
	jstr(c, scene, "name", c->name);
	cJSON *sextras = extras_json(c, NULL, &s->extras);
	if (sextras) jset(c, scene, "extras", sextras);
	cJSON *roots = jtext_take(c, &c->scene_nodes);
	if (roots) jset(c, scene, "nodes", roots);
	jadd(c, scenes, scene);
	jnum(c, c->root, "scene", 0);
	jset(c, c->root, "scenes", scenes);
	return true;
}

/** gsio_gltf_write(), or with a sink: the GLB (or the spilled .bin, left in
 *  sink->bin) goes to files, the rest into out as in memory. */
static int write_impl(const gsio_scene *scene, const gsio_gltf_opts *o, gsio_gltf_output *out,
                      gltf_sink *sink, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!out) {
		fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write: no output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (!scene) {
		fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write: no scene");
		return -1;
	}
	// Every rule of the scene model, checked once: the writer below trusts
	// indices, counts and floats.
	if (gsio_scene_validate(scene, err)) {
		if (err->code == GSIO_OK) err->code = GSIO_ERR_ARGUMENT;
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	gltf_ctx ctx = {0};
	gltf_ctx *c = &ctx;
	c->s = scene;
	c->err = err;
	c->out = out;
	c->sink = sink;
	c->scale = opts.scale == 0 ? 1.0f : opts.scale;
	if (!isfinite(c->scale) || c->scale <= 0) {
		fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "scale %g must be a positive number", (double)opts.scale);
		return -1;
	}
	c->convert_axes = !(opts.flags & GSIO_GLTF_KEEP_AXES);
	c->animate = !(opts.flags & GSIO_GLTF_NO_ANIMATION);
	c->separate = (opts.flags & GSIO_GLTF_SEPARATE) != 0;
	c->bin.limit = opts.buffer_memory ? opts.buffer_memory : c->separate ? SPILL_BYTES_SEPARATE : SPILL_BYTES;
	c->sparse = (opts.flags & GSIO_GLTF_SPARSE_MORPH) != 0;
	c->compact = (opts.flags & GSIO_GLTF_COMPACT) != 0;
	c->threads = opts.threads;
	char stem[256];
	safe_name(opts.name && opts.name[0] ? opts.name : "model", stem, sizeof(stem));
	// Keep the caller's stem for file names when it is printable; only
	// path separators are never allowed in it.
	if (opts.name && opts.name[0] && !strchr(opts.name, '/') && !strchr(opts.name, '\\') &&
	    strlen(opts.name) < sizeof(stem))
		snprintf(stem, sizeof(stem), "%s", opts.name);
	c->name = stem;
	c->root = jobj(c);
	char gen[128];
	if (opts.generator)
		snprintf(gen, sizeof(gen), "%s", opts.generator);
	else
		snprintf(gen, sizeof(gen), "gsio %s", GSIO_VERSION_STRING);
	c->generator = gen;
	bool ok = c->root && build_document(c) && !c->bin.failed;
	if (ok && c->json_failed) ok = fail_nomem(c, "the JSON document");
	if (ok && !c->separate) ok = glb_images(c);
	char *json = NULL;
	if (ok) {
		// A GLB's document holds marks for its array texts (jtext_take):
		// small; the texts go into the JSON chunk as it is written.
		json = c->separate ? cJSON_Print(c->root) : cJSON_PrintUnformatted(c->root);
		if (!json) ok = fail_nomem(c, "printing JSON");
		// The tree is not needed past this point: freed before the JSON
		// chunk is written.
		cJSON_Delete(c->root);
		c->root = NULL;
	}
	if (ok) {
		if (c->separate) {
			// Main file first: move the image files added so far behind it.
			size_t nimg = out->files_count;
			char name[512];
			snprintf(name, sizeof(name), "%s.gltf", c->name);
			size_t jl = strlen(json);
			ok = add_file(out, name, (uint8_t *)json, jl);
			if (ok) {
				json = NULL;
				gsio_gltf_file main = out->files[nimg];
				memmove(out->files + 1, out->files, nimg * sizeof(*out->files));
				out->files[0] = main;
			}
			if (ok && c->bin.spill) {
				// The .bin is on disk already: placed by the caller.
				ok = buf_spill(c, true);
				if (ok) {
					c->sink->bin = c->bin.spill;
					c->bin.spill = NULL;
				}
			} else if (ok && c->bin.size) {
				snprintf(name, sizeof(name), "%s.bin", c->name);
				ok = add_file(out, name, c->bin.data, c->bin.size);
				if (ok) c->bin.data = NULL;
				if (ok) {
					// .bin right after the .gltf
					gsio_gltf_file bin = out->files[out->files_count - 1];
					memmove(out->files + 2, out->files + 1, (out->files_count - 2) * sizeof(*out->files));
					out->files[1] = bin;
				}
			}
			if (!ok && err->code == GSIO_OK) fail_nomem(c, "the output list");
		} else if (c->sink) {
			ok = place_glb(c, json);
		} else {
			// Images were appended to the buffer already; no files yet.
			ok = make_glb(c, json, out);
		}
	}
	free(json);
	images_free(c); // first: a failure may have left the helper running
	free(c->vrec);
	cJSON_Delete(c->root);
	cJSON_Delete(c->accessors);
	cJSON_Delete(c->views);
	cJSON_Delete(c->nodes);
	cJSON_Delete(c->meshes);
	cJSON_Delete(c->materials);
	cJSON_Delete(c->textures);
	cJSON_Delete(c->images);
	cJSON_Delete(c->samplers);
	cJSON_Delete(c->skins);
	cJSON_Delete(c->animations);
	cJSON_Delete(c->cameras);
	cJSON_Delete(c->lights);
	cJSON_Delete(c->scene_nodes);
	cJSON_Delete(c->extensions_used);
	for (int k = 0; k < JT_COUNT; k++) free(c->jt[k].p);
	free(c->mesh_index);
	free(c->same_first);
	free(c->same_next);
	free(c->mesh_targets);
	free(c->mesh_skin);
	free(c->image_index);
	free(c->folded);
	free(c->q_off);
	free(c->q_scale);
	free(c->q_ok);
	free(c->tex_of);
	buf_free(&c->bin);
	gsioi_place_discard(c->bin.spill);
	gsioi_place_discard(c->early); // a write that failed after early_bin()
	if (!ok) {
		gsio_gltf_output_free(out);
		if (err->code == GSIO_OK) fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "glTF writing failed");
		return -1;
	}
	return 0;
}

int gsio_gltf_write(const gsio_scene *scene, const gsio_gltf_opts *o, gsio_gltf_output *out,
                    gsio_error *err)
{
	return write_impl(scene, o, out, NULL, err);
}

// -- Files

/** The part of path after the last '/'. */
static const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/** The final path of output file `name` (the main file's is `path` itself),
 *  malloc'd; NULL with err set when out of memory. */
static char *resource_path(const char *path, size_t dir_len, const char *name, bool main_file, gsio_error *err)
{
	size_t len = main_file ? strlen(path) : dir_len + strlen(name);
	char *p = malloc(len + 1);
	if (!p) {
		fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
		return NULL;
	}
	if (main_file)
		memcpy(p, path, len + 1);
	else
		snprintf(p, len + 1, "%.*s%s", (int)dir_len, path, name);
	return p;
}

int gsio_gltf_write_file(const gsio_scene *scene, const char *path, const gsio_gltf_opts *o,
                         gsio_gltf_output *warnings, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	if (!path || !path[0]) {
		fail_at(err, GSIO_ERR_ARGUMENT, __FILE__, __LINE__, "gsio_gltf_write_file: no path");
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	const char *base = path_base(path);
	const char *dot = strrchr(base, '.');
	if (dot && !strcasecmp(dot, ".gltf")) opts.flags |= GSIO_GLTF_SEPARATE;
	if (dot && !strcasecmp(dot, ".glb")) opts.flags &= ~(uint32_t)GSIO_GLTF_SEPARATE;
	size_t dir_len = (size_t)(base - path);
	char stem[256];
	snprintf(stem, sizeof(stem), "%s", base);
	char *sdot = strrchr(stem, '.');
	if (sdot && sdot != stem) *sdot = 0;
	opts.name = stem;
	bool no_replace = (opts.flags & GSIO_GLTF_NO_REPLACE) != 0;
	struct stat st;
	if (no_replace && lstat(path, &st) == 0) {
		// Fail before the work; placement checks again (link, never replace).
		fail_at(err, GSIO_ERR_IO, __FILE__, __LINE__, "exists (not replaced)");
		snprintf(err->file, sizeof(err->file), "%s", path);
	}

	gltf_sink sink = {path, dir_len, no_replace, NULL};
	gsio_gltf_output out;
	if (err->code != GSIO_OK || write_impl(scene, &opts, &out, &sink, err)) {
		gsioi_place_discard(sink.bin);
		return -1;
	}

	// A GLB is placed already (out has no file then); .gltf, .png and a .bin
	// still in memory are written here, each to a temporary beside its path,
	// and placed together with a spilled .bin (sink.bin): none is placed
	// unless all are written, and one that cannot be placed takes back the
	// others (gsioi_place_commit_all). Nothing is allocated for a GLB: it is
	// placed, and an allocation that failed now would report a failure with
	// the file in place.
	size_t n = out.files_count, m = n + (sink.bin != NULL);
	gsioi_placing **ps = m ? calloc(m, sizeof(*ps)) : NULL;
	bool ok = !m || ps;
	if (!ok) fail_at(err, GSIO_ERR_NOMEM, __FILE__, __LINE__, "out of memory");
	// With no_replace nothing is written when any output exists.
	for (size_t i = 0; ok && no_replace && i < n; i++) {
		char *final = resource_path(path, dir_len, out.files[i].name, i == 0, err);
		ok = final != NULL;
		if (ok && lstat(final, &st) == 0) {
			fail_at(err, GSIO_ERR_IO, __FILE__, __LINE__, "exists (not replaced)");
			snprintf(err->file, sizeof(err->file), "%s", final);
			ok = false;
		}
		free(final);
	}
	// The spilled .bin first, then the resources, the main file (files[0])
	// last: it never refers to missing files.
	size_t k = 0;
	if (ok && sink.bin) ps[k++] = sink.bin, sink.bin = NULL;
	for (size_t j = 1; ok && j <= n; j++) {
		size_t i = j % n;
		char *final = resource_path(path, dir_len, out.files[i].name, i == 0, err);
		ok = final && (ps[k] = gsioi_place_bytes(final, out.files[i].data, out.files[i].size, err)) != NULL;
		free(final);
		if (ok) k++;
	}
	if (ok) {
		ok = gsioi_place_commit_all(ps, k, no_replace, err) == 0;
	} else {
		for (size_t i = 0; i < k; i++) gsioi_place_discard(ps[i]);
	}
	gsioi_place_discard(sink.bin);
	free(ps);
	if (warnings) {
		warnings->warnings = out.warnings;
		warnings->warnings_count = out.warnings_count;
		out.warnings = NULL;
		out.warnings_count = 0;
	}
	gsio_gltf_output_free(&out);
	return ok ? 0 : -1;
}
