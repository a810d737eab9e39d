/* glTF 2.0 / GLB writer for gsio scenes.
 *
 * The document is built with cJSON, the binary data in one gsioi_writer (the
 * GLB BIN chunk or the .bin file), images are encoded with libspng. Mapping
 * decisions are explained in blender_bridge/README.md; the short form is in
 * gsio_gltf.h. Nothing here trusts the scene blindly: indices, parents, joint
 * references and float values are checked, because scenes can come from
 * code other than gsio's importers. */
#include "gsio_gltf.h"

#include "gsio_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spng.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

// The buffers are written with memcpy of host floats and integers: glTF is
// little-endian, and so is every host this builds on. Say so loudly otherwise.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gsio_gltf writes host-order buffers and needs a little-endian host"
#endif

// -- glTF constants

#define GLTF_UNSIGNED_BYTE 5121
#define GLTF_UNSIGNED_SHORT 5123
#define GLTF_UNSIGNED_INT 5125
#define GLTF_FLOAT 5126
#define GLTF_ARRAY_BUFFER 34962
#define GLTF_ELEMENT_ARRAY_BUFFER 34963
#define GLTF_LINEAR 9729
#define GLTF_LINEAR_MIPMAP_LINEAR 9987
#define GLTF_REPEAT 10497

#define GLB_MAGIC 0x46546C67u      // "glTF"
#define GLB_CHUNK_JSON 0x4E4F534Au // "JSON"
#define GLB_CHUNK_BIN 0x004E4942u  // "BIN\0"

// glTF cameras need an aspect ratio; the scene stores a horizontal field of
// view only. 4:3 is the display Doom 3 (the source of .md5camera) was made for.
#define CAMERA_ASPECT (4.0 / 3.0)
#define CAMERA_ZNEAR 1.0 // scene units (about an inch), before --scale

// -- Context

typedef struct gltf_ctx {
	const gsio_scene *s;
	gsio_error *err;
	gsio_gltf_output *out;
	float scale;
	bool convert_axes;
	bool animate;
	bool separate;
	const char *name;
	const char *generator;
	bool json_failed;   // a cJSON allocation failed (reported once at the end)
	gsioi_writer bin;
	cJSON *root;
	cJSON *accessors, *views, *nodes, *meshes, *materials, *textures, *images, *samplers,
	    *skins, *animations, *cameras, *scene_nodes, *extensions_used;
	int *mesh_node;     // node index per scene mesh, -1 when the mesh was skipped
	int *mesh_targets;  // morph targets written per scene mesh
	int joint_node0;    // node index of joint 0, -1 without a skeleton
	int skin;           // the skin index, -1 without one
	int variants_count; // KHR_materials_variants variants, 0 when unused
} gltf_ctx;

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
	GSIO_FAIL(c->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory writing glTF (%s)", what);
	return false;
}

static void *xmalloc_array(gltf_ctx *c, size_t count, size_t size)
{
	size_t n;
	if (!gsioi_mul_size(count, size, &n)) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "glTF buffer size overflows");
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

// -- JSON helpers: every helper records an allocation failure instead of
// returning it, and the writer checks json_failed once before printing.

static void jset(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item)
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

static void jnum(gltf_ctx *c, cJSON *obj, const char *key, double v)
{
	jset(c, obj, key, cJSON_CreateNumber(v));
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

/** Appends item to arr and returns its index, -1 on failure. */
static int jpush(gltf_ctx *c, cJSON *arr, cJSON *item)
{
	if (!item || !arr) {
		cJSON_Delete(item);
		c->json_failed = true;
		return -1;
	}
	int idx = cJSON_GetArraySize(arr);
	if (!cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		c->json_failed = true;
		return -1;
	}
	return idx;
}

static void jpush_num(gltf_ctx *c, cJSON *arr, double v)
{
	jpush(c, arr, cJSON_CreateNumber(v));
}

/** A float as JSON text that reads back as exactly that float's value.
 *  cJSON's own printer settles for 15 digits when they read back "close
 *  enough", which breaks the rule that accessor min/max equal the data;
 *  17 significant digits name every double (so every float) exactly.
 *  Whatever the C locale's decimal point is, the JSON gets a '.'. */
static cJSON *jfloat(float f)
{
	char buf[48], out[48];
	if (!isfinite(f)) f = 0; // callers check; JSON has no NaN
	snprintf(buf, sizeof(buf), "%.17g", (double)f);
	size_t n = 0;
	bool in_point = false;
	for (const char *p = buf; *p && n + 1 < sizeof(out); p++) {
		bool plain = (*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e' || *p == 'E';
		if (plain) {
			out[n++] = *p;
			in_point = false;
		} else if (!in_point) {
			out[n++] = '.';
			in_point = true;
		}
	}
	out[n] = 0;
	return cJSON_CreateRaw(out);
}

static cJSON *jfloats(gltf_ctx *c, const float *v, int n)
{
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

// -- Binary buffer, buffer views, accessors

static bool buffer_align(gltf_ctx *c)
{
	size_t pad = (4 - c->bin.size % 4) % 4;
	if (pad && !gsioi_write_zeros(&c->bin, pad)) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "glTF buffer exceeds the memory limit");
		return false;
	}
	return true;
}

/** Appends bytes as a new buffer view (4-byte aligned). Returns its index or -1. */
static int add_view(gltf_ctx *c, const void *data, size_t size, int target)
{
	if (!buffer_align(c)) return -1;
	size_t off = c->bin.size;
	if (!gsioi_write_bytes(&c->bin, data, size)) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "glTF buffer exceeds the memory limit");
		return -1;
	}
	cJSON *v = jobj(c);
	jnum(c, v, "buffer", 0);
	if (off) jnum(c, v, "byteOffset", (double)off);
	jnum(c, v, "byteLength", (double)size);
	if (target) jnum(c, v, "target", target);
	return jpush(c, c->views, v);
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

/** A float accessor over its own view. min/max when asked (POSITION,
 *  animation inputs). Returns the accessor index or -1. */
static int float_accessor(gltf_ctx *c, const float *data, size_t count, int ncomp,
                          bool with_min_max, int target)
{
	size_t bytes;
	if (!gsioi_mul3_size(count, (size_t)ncomp, sizeof(float), &bytes)) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "glTF accessor size overflows");
		return -1;
	}
	int view = add_view(c, data, bytes, target);
	if (view < 0) return -1;
	cJSON *a = jobj(c);
	jnum(c, a, "bufferView", view);
	jnum(c, a, "componentType", GLTF_FLOAT);
	jnum(c, a, "count", (double)count);
	jstr(c, a, "type", type_name(ncomp));
	if (with_min_max) {
		float mn[16], mx[16];
		min_max(data, count, ncomp, mn, mx);
		jset(c, a, "min", jfloats(c, mn, ncomp));
		jset(c, a, "max", jfloats(c, mx, ncomp));
	}
	return jpush(c, c->accessors, a);
}

/** A VEC3 float accessor holding `count` elements of which only those listed
 *  in idx (strictly increasing) are non-zero: no view at all when k == 0 (the
 *  spec fills such an accessor with zeros), sparse when that is smaller than
 *  dense storage, dense otherwise. `dense` holds all count*3 values. */
static int delta_accessor(gltf_ctx *c, const float *dense, size_t count, const uint32_t *idx,
                          size_t k, float *scratch)
{
	float mn[3], mx[3];
	min_max(dense, count, 3, mn, mx);
	size_t index_size = count <= 65535 ? 2 : 4;
	if (k > 0 && k * (12 + index_size) >= count * 12)
		return float_accessor(c, dense, count, 3, true, GLTF_ARRAY_BUFFER);
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

// -- Axes and math

/** Scene axes (Z up, X forward) -> glTF (Y up, front +Z): (x,y,z)_gltf =
 *  (y, z, x)_scene, a cyclic permutation: a proper rotation, no mirror. */
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

static bool finite3(const float *v)
{
	return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
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

static bool normalize4(float *q)
{
	double l = 0;
	for (int k = 0; k < 4; k++) l += (double)q[k] * q[k];
	l = sqrt(l);
	if (!(l > 1e-12) || !isfinite(l)) {
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return false;
	}
	for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / l);
	return true;
}

/** A rotation quaternion (x,y,z,w) conjugated by the axis change: for a
 *  proper rotation R, R q R^-1 rotates about R*axis by the same angle, so the
 *  vector part moves like a direction. Normalised. */
static void xf_quat(const gltf_ctx *c, const float in[4], float out[4])
{
	xf_dir(c, in, out);
	out[3] = in[3];
	normalize4(out);
}

/** Hamilton product a*b of x,y,z,w quaternions. */
static void quat_mul(const double a[4], const double b[4], double out[4])
{
	out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
	out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
	out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
	out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/** Rotation matrix (m[row][col], double) of a unit quaternion. */
static void quat_to_mat3(const double q[4], double m[3][3])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	m[0][0] = 1 - 2 * (y * y + z * z);
	m[0][1] = 2 * (x * y - z * w);
	m[0][2] = 2 * (x * z + y * w);
	m[1][0] = 2 * (x * y + z * w);
	m[1][1] = 1 - 2 * (x * x + z * z);
	m[1][2] = 2 * (y * z - x * w);
	m[2][0] = 2 * (x * z - y * w);
	m[2][1] = 2 * (y * z + x * w);
	m[2][2] = 1 - 2 * (x * x + y * y);
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

/** The fixed rotation from a glTF camera's local frame (looks along -Z, up
 *  +Y, right +X) to the scene camera's local frame (looks along +X, up +Z,
 *  right -Y), expressed in output axes. */
static void camera_fix(const gltf_ctx *c, double q[4])
{
	const float right[3] = {0, -1, 0}, up[3] = {0, 0, 1}, back[3] = {-1, 0, 0};
	float r[3], u[3], b[3];
	xf_dir(c, right, r);
	xf_dir(c, up, u);
	xf_dir(c, back, b);
	double m[3][3];
	for (int i = 0; i < 3; i++) {
		m[i][0] = r[i];
		m[i][1] = u[i];
		m[i][2] = b[i];
	}
	mat3_to_quat(m, q);
}

/** Camera rotation for glTF: the scene camera's rotation (axis-converted)
 *  followed by the fixed local change of frame. */
static void camera_rotation(const gltf_ctx *c, const double fix[4], const float in[4],
                            float out[4])
{
	float r[4];
	xf_quat(c, in, r);
	double a[4] = {r[0], r[1], r[2], r[3]}, q[4];
	quat_mul(a, fix, q);
	for (int k = 0; k < 4; k++) out[k] = (float)q[k];
	normalize4(out);
}

// -- Images

int gsio_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, uint8_t **png,
                    size_t *png_size, gsio_error *err)
{
	*png = NULL;
	*png_size = 0;
	size_t texels;
	if (!rgba || !width || !height || !gsioi_mul_size(width, height, &texels) ||
	    texels > SIZE_MAX / 4) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode a %ux%u image as PNG",
		          (unsigned)width, (unsigned)height);
		return -1;
	}
	bool opaque = true;
	for (size_t i = 0; i < texels && opaque; i++) opaque = rgba[4 * i + 3] == 255;
	// Opaque skins (565, 888: most of them) are written as RGB: a quarter smaller.
	uint8_t *rgb = NULL;
	const uint8_t *pixels = rgba;
	size_t len = texels * 4;
	if (opaque) {
		rgb = malloc(texels * 3);
		if (!rgb) {
			GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding PNG");
			return -1;
		}
		for (size_t i = 0; i < texels; i++) memcpy(rgb + 3 * i, rgba + 4 * i, 3);
		pixels = rgb;
		len = texels * 3;
	}
	spng_ctx *ctx = spng_ctx_new(SPNG_CTX_ENCODER);
	int ret = ctx ? 0 : SPNG_EMEM;
	if (!ret) ret = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1);
	// zlib level 3 instead of the default 6: measured on shadow-5, gate-101 and
	// minigun_mdl5 together, 2.6x faster (0.27 s against 0.72 s) for 1.8% more
	// bytes; skins are photographic and gain little from harder compression.
	if (!ret) ret = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, 3);
	if (!ret) {
		struct spng_ihdr ihdr = {0};
		ihdr.width = width;
		ihdr.height = height;
		ihdr.bit_depth = 8;
		ihdr.color_type =
		    (uint8_t)(opaque ? SPNG_COLOR_TYPE_TRUECOLOR : SPNG_COLOR_TYPE_TRUECOLOR_ALPHA);
		ret = spng_set_ihdr(ctx, &ihdr);
	}
	if (!ret) ret = spng_encode_image(ctx, pixels, len, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE);
	void *buf = NULL;
	size_t size = 0;
	if (!ret) buf = spng_get_png_buffer(ctx, &size, &ret);
	spng_ctx_free(ctx);
	free(rgb);
	if (ret || !buf) {
		free(buf);
		GSIO_FAIL(err, ret == SPNG_EMEM ? GSIO_ERR_NOMEM : GSIO_ERR_ARGUMENT, NULL, -1,
		          "PNG encoding failed: %s", spng_strerror(ret));
		return -1;
	}
	*png = buf;
	*png_size = size;
	return 0;
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

static bool write_images(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (!s->images_count) return true;
	cJSON *sampler = jobj(c);
	jnum(c, sampler, "magFilter", GLTF_LINEAR);
	jnum(c, sampler, "minFilter", GLTF_LINEAR_MIPMAP_LINEAR);
	jnum(c, sampler, "wrapS", GLTF_REPEAT);
	jnum(c, sampler, "wrapT", GLTF_REPEAT);
	jpush(c, c->samplers, sampler);
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		uint8_t *png;
		size_t png_size;
		if (gsio_png_encode(im->rgba, im->width, im->height, &png, &png_size, c->err)) {
			c->err->offset = -1;
			snprintf(c->err->message, sizeof(c->err->message), "image %zu (%s, %ux%u): cannot encode as PNG",
			         i, im->name ? im->name : "", (unsigned)im->width, (unsigned)im->height);
			return false;
		}
		char base[128];
		safe_name(im->name && im->name[0] ? im->name : "image", base, sizeof(base));
		cJSON *j = jobj(c);
		jstr(c, j, "name", im->name && im->name[0] ? im->name : base);
		if (c->separate) {
			// Unique file names even when two images share a file stem
			// ("a.png" and "a.tga", or "a b" and "a_b").
			char stem[128], other[128];
			image_file_stem(im, stem, sizeof(stem));
			bool dup = false;
			for (size_t k = 0; k < s->images_count && !dup; k++) {
				if (k == i) continue;
				image_file_stem(&s->images[k], other, sizeof(other));
				dup = !strcmp(stem, other);
			}
			char file[512], uri[1600];
			if (dup)
				snprintf(file, sizeof(file), "%s_%s_%zu.png", c->name, stem, i);
			else
				snprintf(file, sizeof(file), "%s_%s.png", c->name, stem);
			uri_encode(file, uri, sizeof(uri));
			jstr(c, j, "uri", uri);
			if (!add_file(c->out, file, png, png_size)) {
				free(png);
				cJSON_Delete(j);
				return fail_nomem(c, "an image file");
			}
		} else {
			int view = add_view(c, png, png_size, 0);
			free(png);
			if (view < 0) {
				cJSON_Delete(j);
				return false;
			}
			jnum(c, j, "bufferView", view);
			jstr(c, j, "mimeType", "image/png");
		}
		jpush(c, c->images, j);
		cJSON *t = jobj(c);
		jnum(c, t, "sampler", 0);
		jnum(c, t, "source", (double)i);
		if (im->name) jstr(c, t, "name", im->name);
		jpush(c, c->textures, t);
	}
	return true;
}

// -- Materials

static bool write_materials(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	for (size_t i = 0; i < s->materials_count; i++) {
		const gsio_material *m = &s->materials[i];
		cJSON *j = jobj(c), *pbr = jobj(c);
		if (m->name) jstr(c, j, "name", m->name);
		float f[4];
		bool white = true;
		for (int k = 0; k < 4; k++) {
			float v = m->base_color[k];
			f[k] = isfinite(v) ? (v < 0 ? 0 : v > 1 ? 1 : v) : 1;
			white = white && f[k] == 1.0f;
		}
		// An all-zero factor is a zeroed struct from a scene builder: white.
		if (!(f[0] == 0 && f[1] == 0 && f[2] == 0 && f[3] == 0) && !white)
			jset(c, pbr, "baseColorFactor", jfloats(c, f, 4));
		if (m->base_color_image >= 0) {
			if ((size_t)m->base_color_image >= s->images_count) {
				cJSON_Delete(j);
				cJSON_Delete(pbr);
				GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
				          "material %zu refers to image %d of %zu", i, (int)m->base_color_image,
				          s->images_count);
				return false;
			}
			cJSON *t = jobj(c);
			jnum(c, t, "index", m->base_color_image);
			jset(c, pbr, "baseColorTexture", t);
		}
		jnum(c, pbr, "metallicFactor", 0);
		jnum(c, pbr, "roughnessFactor", 1);
		jset(c, j, "pbrMetallicRoughness", pbr);
		cJSON *extras = NULL;
		if (m->detail_image >= 0 && (size_t)m->detail_image < s->images_count) {
			// glTF has no detail map: keep it in extras (texture index and how
			// often it repeats over the terrain).
			extras = jobj(c);
			cJSON *d = jobj(c);
			jnum(c, d, "index", m->detail_image);
			jnum(c, d, "tiling", isfinite(m->detail_tiling) ? m->detail_tiling : 1.0);
			jset(c, extras, "detailTexture", d);
		} else if (m->detail_image >= 0) {
			warn(c, "material %zu: detail image %d does not exist; dropped", i,
			     (int)m->detail_image);
		}
		if (m->shader) {
			if (!extras) extras = jobj(c);
			jstr(c, extras, "shader", m->shader);
		}
		if (extras) jset(c, j, "extras", extras);
		jpush(c, c->materials, j);
	}
	return true;
}

/** KHR_materials_variants when every mesh uses the same material and some
 *  materials are used by none: the extra MDL skins. Each material becomes a
 *  variant of that name. Returns the variant count (0: not used). */
static int plan_variants(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (s->materials_count < 2 || !s->meshes_count) return 0;
	int32_t shared = s->meshes[0].material;
	for (size_t i = 0; i < s->meshes_count; i++)
		if (s->meshes[i].material != shared) return 0;
	if (shared < 0 || (size_t)shared >= s->materials_count) return 0;
	if (s->materials_count > 4096) return 0;
	cJSON *ext = jobj(c), *list = jarr(c);
	for (size_t i = 0; i < s->materials_count; i++) {
		cJSON *v = jobj(c);
		char name[64];
		snprintf(name, sizeof(name), "variant%zu", i);
		jstr(c, v, "name", s->materials[i].name ? s->materials[i].name : name);
		jpush(c, list, v);
	}
	jset(c, ext, "variants", list);
	cJSON *exts = cJSON_GetObjectItemCaseSensitive(c->root, "extensions");
	if (!exts) {
		exts = jobj(c);
		jset(c, c->root, "extensions", exts);
	}
	jset(c, exts, "KHR_materials_variants", ext);
	jpush(c, c->extensions_used, cJSON_CreateString("KHR_materials_variants"));
	return (int)s->materials_count;
}

// -- Meshes

/** JOINTS_n / WEIGHTS_n for a skinned mesh: every vertex's influences with
 *  weight > 0, duplicates merged, sorted by weight (largest first), split in
 *  sets of 4, normalised to sum 1 in float. */
static bool write_skin_attributes(gltf_ctx *c, size_t mi, cJSON *attrs)
{
	const gsio_mesh *m = &c->s->meshes[mi];
	const gsio_weights *w = &m->weights;
	size_t nv = m->vertex_count, nj = c->s->joints_count;
	if (!w->offsets || !w->joints || !w->values) {
		GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: weights without arrays", mi);
		return false;
	}
	if (w->offsets[0] != 0 || w->offsets[nv] != w->count) {
		GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: weight offsets do not span the weights", mi);
		return false;
	}
	for (size_t i = 0; i < w->count; i++)
		if (w->joints[i] >= nj) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: weight %zu names joint %u of %zu",
			          mi, i, (unsigned)w->joints[i], nj);
			return false;
		}
	// Sets needed: the most distinct joints with a positive weight on one vertex.
	size_t most = 0;
	for (size_t v = 0; v < nv; v++) {
		if (w->offsets[v + 1] < w->offsets[v]) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: weight offsets decrease at vertex %zu", mi, v);
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
	if (!gsioi_mul_size(nv, slots, &nslots)) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "mesh %zu: weight table overflows", mi);
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
		// Per set: a strided copy of 4 slots.
		uint8_t *js = xmalloc_array(c, nv, 4 * jsize);
		float *ws = xmalloc_array(c, nv, 4 * sizeof(float));
		ok = js && ws;
		for (size_t set = 0; ok && set < sets; set++) {
			for (size_t v = 0; v < nv; v++) {
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
			jnum(c, attrs, key, ja);
			snprintf(key, sizeof(key), "WEIGHTS_%zu", set);
			jnum(c, attrs, key, wa);
		}
		free(js);
		free(ws);
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

static bool write_mesh(gltf_ctx *c, size_t mi)
{
	const gsio_scene *s = c->s;
	const gsio_mesh *m = &s->meshes[mi];
	size_t nv = m->vertex_count, ni = m->index_count;
	c->mesh_node[mi] = -1;
	if (!nv || !ni || !m->positions || !m->indices) {
		warn(c, "mesh %zu (%s) has no vertices or triangles: not written", mi, m->name ? m->name : "");
		return true;
	}
	if (ni % 3) {
		GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: %zu indices is not a multiple of 3", mi, ni);
		return false;
	}
	if (nv > UINT32_MAX - 1) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "mesh %zu: %zu vertices", mi, nv);
		return false;
	}
	for (size_t i = 0; i < ni; i++)
		if (m->indices[i] >= nv) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: index %zu is %u of %zu vertices",
			          mi, i, (unsigned)m->indices[i], nv);
			return false;
		}

	cJSON *prim = jobj(c), *attrs = jobj(c);
	jset(c, prim, "attributes", attrs);
	bool ok = true;

	// Indices: 16-bit when they fit (65535 is the primitive-restart value).
	if (nv <= 65535) {
		uint16_t *i16 = xmalloc_array(c, ni, 2);
		ok = i16 != NULL;
		if (ok) {
			for (size_t i = 0; i < ni; i++) i16[i] = (uint16_t)m->indices[i];
			int view = add_view(c, i16, ni * 2, GLTF_ELEMENT_ARRAY_BUFFER);
			free(i16);
			ok = view >= 0;
			cJSON *a = jobj(c);
			jnum(c, a, "bufferView", view);
			jnum(c, a, "componentType", GLTF_UNSIGNED_SHORT);
			jnum(c, a, "count", (double)ni);
			jstr(c, a, "type", "SCALAR");
			jnum(c, prim, "indices", jpush(c, c->accessors, a));
		}
	} else {
		int view = add_view(c, m->indices, ni * 4, GLTF_ELEMENT_ARRAY_BUFFER);
		ok = view >= 0;
		cJSON *a = jobj(c);
		jnum(c, a, "bufferView", view);
		jnum(c, a, "componentType", GLTF_UNSIGNED_INT);
		jnum(c, a, "count", (double)ni);
		jstr(c, a, "type", "SCALAR");
		jnum(c, prim, "indices", jpush(c, c->accessors, a));
	}

	// Base pose, in output axes.
	float *pos = ok ? xmalloc_array(c, nv, 3 * sizeof(float)) : NULL;
	float *nrm = ok ? xmalloc_array(c, nv, 3 * sizeof(float)) : NULL;
	ok = ok && pos && nrm;
	static const float up[3] = {0, 0, 1};
	float up_out[3];
	xf_dir(c, up, up_out);
	size_t bad_normals = 0;
	for (size_t v = 0; ok && v < nv; v++) {
		if (!finite3(m->positions + 3 * v)) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu: vertex %zu has a non-finite position", mi, v);
			ok = false;
			break;
		}
		xf_pos(c, m->positions + 3 * v, pos + 3 * v);
		if (m->normals) {
			xf_dir(c, m->normals + 3 * v, nrm + 3 * v);
			if (!normalize3(nrm + 3 * v, up_out)) bad_normals++;
		}
	}
	if (ok) {
		jnum(c, attrs, "POSITION", float_accessor(c, pos, nv, 3, true, GLTF_ARRAY_BUFFER));
		if (m->normals) jnum(c, attrs, "NORMAL", float_accessor(c, nrm, nv, 3, false, GLTF_ARRAY_BUFFER));
	}
	if (ok && m->uvs) {
		float *uv = xmalloc_array(c, nv, 2 * sizeof(float));
		ok = uv != NULL;
		size_t bad = 0;
		for (size_t i = 0; ok && i < 2 * nv; i++) {
			uv[i] = isfinite(m->uvs[i]) ? m->uvs[i] : (bad++, 0.0f);
		}
		if (ok) jnum(c, attrs, "TEXCOORD_0", float_accessor(c, uv, nv, 2, false, GLTF_ARRAY_BUFFER));
		free(uv);
		if (bad) warn(c, "mesh %zu: %zu non-finite UV components written as 0", mi, bad);
	}
	if (ok && m->weights.count && s->joints_count) ok = write_skin_attributes(c, mi, attrs);
	else if (ok && m->weights.count)
		warn(c, "mesh %zu has weights but the scene has no joints: weights dropped", mi);

	// Morph targets: one per frame, deltas from the base pose.
	cJSON *extras = NULL;
	size_t ntargets = c->animate && m->frames ? m->frames_count : 0;
	if (ok && ntargets) {
		cJSON *targets = jarr(c), *names = jarr(c);
		float *dp = xmalloc_array(c, nv, 3 * sizeof(float));
		float *dn = xmalloc_array(c, nv, 3 * sizeof(float));
		float *scratch = xmalloc_array(c, nv, 4 * sizeof(float));
		uint32_t *ip = xmalloc_array(c, nv, sizeof(uint32_t));
		uint32_t *in = xmalloc_array(c, nv, sizeof(uint32_t));
		ok = dp && dn && scratch && ip && in;
		for (size_t f = 0; ok && f < ntargets; f++) {
			const gsio_morph_frame *fr = &m->frames[f];
			if (!fr->positions) {
				GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "mesh %zu frame %zu has no positions", mi, f);
				ok = false;
				break;
			}
			size_t kp = 0, kn = 0;
			for (size_t v = 0; v < nv; v++) {
				float p[3], n[3];
				if (!finite3(fr->positions + 3 * v)) {
					GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
					          "mesh %zu frame %zu vertex %zu has a non-finite position", mi, f, v);
					ok = false;
					break;
				}
				xf_pos(c, fr->positions + 3 * v, p);
				bool moved = false;
				for (int k = 0; k < 3; k++) {
					dp[3 * v + k] = p[k] - pos[3 * v + k];
					moved = moved || dp[3 * v + k] != 0;
				}
				if (moved) ip[kp++] = (uint32_t)v;
				if (m->normals && fr->normals) {
					xf_dir(c, fr->normals + 3 * v, n);
					if (!normalize3(n, up_out)) bad_normals++;
					bool turned = false;
					for (int k = 0; k < 3; k++) {
						dn[3 * v + k] = n[k] - nrm[3 * v + k];
						turned = turned || dn[3 * v + k] != 0;
					}
					if (turned) in[kn++] = (uint32_t)v;
				}
			}
			if (!ok) break;
			cJSON *t = jobj(c);
			jnum(c, t, "POSITION", delta_accessor(c, dp, nv, ip, kp, scratch));
			if (m->normals && fr->normals) jnum(c, t, "NORMAL", delta_accessor(c, dn, nv, in, kn, scratch));
			jpush(c, targets, t);
			char fallback[32];
			snprintf(fallback, sizeof(fallback), "frame%zu", f);
			jpush(c, names, cJSON_CreateString(fr->name && fr->name[0] ? fr->name : fallback));
		}
		free(dp);
		free(dn);
		free(scratch);
		free(ip);
		free(in);
		jset(c, prim, "targets", targets);
		extras = jobj(c);
		jset(c, extras, "targetNames", names);
	}
	free(pos);
	free(nrm);
	if (!ok) {
		cJSON_Delete(prim);
		cJSON_Delete(extras);
		return false;
	}
	if (bad_normals) warn(c, "mesh %zu: %zu zero or non-finite normals replaced by up", mi, bad_normals);
	if (m->material >= 0 && (size_t)m->material < s->materials_count) {
		jnum(c, prim, "material", m->material);
		if (c->variants_count) {
			cJSON *ext = jobj(c), *var = jobj(c), *maps = jarr(c);
			for (int k = 0; k < c->variants_count; k++) {
				cJSON *mp = jobj(c), *vs = jarr(c);
				jnum(c, mp, "material", k);
				jpush_num(c, vs, k);
				jset(c, mp, "variants", vs);
				jpush(c, maps, mp);
			}
			jset(c, var, "mappings", maps);
			jset(c, ext, "KHR_materials_variants", var);
			jset(c, prim, "extensions", ext);
		}
	} else if (m->material >= 0) {
		warn(c, "mesh %zu: material %d does not exist; written without one", mi, (int)m->material);
	}
	jnum(c, prim, "mode", 4);
	cJSON *mesh = jobj(c), *prims = jarr(c);
	if (m->name) jstr(c, mesh, "name", m->name);
	jpush(c, prims, prim);
	jset(c, mesh, "primitives", prims);
	if (extras) jset(c, mesh, "extras", extras);
	int mesh_index = jpush(c, c->meshes, mesh);
	cJSON *node = jobj(c);
	if (m->name) jstr(c, node, "name", m->name);
	jnum(c, node, "mesh", mesh_index);
	if (m->weights.count && s->joints_count && c->skin >= 0) jnum(c, node, "skin", c->skin);
	c->mesh_node[mi] = jpush(c, c->nodes, node);
	c->mesh_targets[mi] = (int)ntargets;
	jpush_num(c, c->scene_nodes, c->mesh_node[mi]);
	return true;
}

// -- Skeleton and skin

static bool write_skeleton(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	size_t nj = s->joints_count;
	c->joint_node0 = -1;
	c->skin = -1;
	if (!nj) return true;
	if (nj > 65536) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "%zu joints (glTF JOINTS_n holds 65536)", nj);
		return false;
	}
	size_t roots = 0;
	for (size_t j = 0; j < nj; j++) {
		int32_t p = s->joints[j].parent;
		if (p < -1 || (p >= 0 && (size_t)p >= j)) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
			          "joint %zu has parent %d (must be -1 or a lower index)", j, (int)p);
			return false;
		}
		if (p < 0) roots++;
	}
	c->joint_node0 = cJSON_GetArraySize(c->nodes);
	size_t bad_rot = 0;
	for (size_t j = 0; j < nj; j++) {
		const gsio_joint *jt = &s->joints[j];
		cJSON *n = jobj(c);
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "joint%zu", j);
		jstr(c, n, "name", jt->name && jt->name[0] ? jt->name : fallback);
		float t[3], r[4];
		if (!finite3(jt->translation)) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "joint %zu has a non-finite translation", j);
			cJSON_Delete(n);
			return false;
		}
		xf_pos(c, jt->translation, t);
		float q[4] = {jt->rotation[0], jt->rotation[1], jt->rotation[2], jt->rotation[3]};
		if (!normalize4(q)) bad_rot++;
		xf_quat(c, q, r);
		jset(c, n, "translation", jfloats(c, t, 3));
		jset(c, n, "rotation", jfloats(c, r, 4));
		cJSON *children = NULL;
		for (size_t k = j + 1; k < nj; k++)
			if (s->joints[k].parent == (int32_t)j) {
				if (!children) children = jarr(c);
				jpush_num(c, children, (double)((size_t)c->joint_node0 + k));
			}
		if (children) jset(c, n, "children", children);
		jpush(c, c->nodes, n);
	}
	int skeleton_root;
	if (roots == 1) {
		skeleton_root = c->joint_node0;
	} else {
		// glTF wants one common root: a plain (non-joint) node above the roots.
		cJSON *n = jobj(c), *children = jarr(c);
		jstr(c, n, "name", "skeleton");
		for (size_t j = 0; j < nj; j++)
			if (s->joints[j].parent < 0) jpush_num(c, children, (double)((size_t)c->joint_node0 + j));
		jset(c, n, "children", children);
		skeleton_root = jpush(c, c->nodes, n);
	}
	jpush_num(c, c->scene_nodes, skeleton_root);
	if (bad_rot) warn(c, "%zu joint rotations were not unit quaternions (replaced by identity)", bad_rot);

	bool skinned = false;
	for (size_t i = 0; i < s->meshes_count; i++) skinned = skinned || s->meshes[i].weights.count;
	if (!skinned) return true;

	// Inverse bind matrices from the world bind pose: [R|t]^-1 = [R^T | -R^T t],
	// column-major, last row exactly 0 0 0 1.
	float *ibm = xmalloc_array(c, nj, 16 * sizeof(float));
	if (!ibm) return false;
	for (size_t j = 0; j < nj; j++) {
		const gsio_joint *jt = &s->joints[j];
		float t[3], r[4];
		if (!finite3(jt->world_translation)) {
			free(ibm);
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "joint %zu has a non-finite world translation", j);
			return false;
		}
		xf_pos(c, jt->world_translation, t);
		float q[4] = {jt->world_rotation[0], jt->world_rotation[1], jt->world_rotation[2],
		              jt->world_rotation[3]};
		normalize4(q);
		xf_quat(c, q, r);
		double qd[4] = {r[0], r[1], r[2], r[3]}, m[3][3];
		quat_to_mat3(qd, m);
		float *o = ibm + 16 * j;
		for (int row = 0; row < 3; row++) {
			for (int col = 0; col < 3; col++) o[col * 4 + row] = (float)m[col][row]; // R^T
			o[3 * 4 + row] =
			    (float)-(m[0][row] * t[0] + m[1][row] * t[1] + m[2][row] * t[2]);
			o[row * 4 + 3] = 0;
		}
		o[15] = 1;
	}
	int acc = float_accessor(c, ibm, nj, 16, false, 0);
	free(ibm);
	if (acc < 0) return false;
	cJSON *skin = jobj(c), *joints = jarr(c);
	for (size_t j = 0; j < nj; j++) jpush_num(c, joints, (double)((size_t)c->joint_node0 + j));
	jset(c, skin, "joints", joints);
	jnum(c, skin, "inverseBindMatrices", acc);
	jnum(c, skin, "skeleton", skeleton_root);
	jstr(c, skin, "name", "skeleton");
	c->skin = jpush(c, c->skins, skin);
	return true;
}

// -- Animations

static float checked_fps(gltf_ctx *c, float fps, const char *what, const char *name)
{
	if (isfinite(fps) && fps > 0) return fps;
	warn(c, "%s %s has frame rate %g: using %g", what, name ? name : "", (double)fps,
	     (double)GSIO_DEFAULT_FPS);
	return GSIO_DEFAULT_FPS;
}

/** An animation-input accessor: key k at time k / fps seconds. */
static int time_accessor(gltf_ctx *c, size_t keys, float fps)
{
	float *t = xmalloc_array(c, keys, sizeof(float));
	if (!t) return -1;
	for (size_t k = 0; k < keys; k++) t[k] = (float)((double)k / fps);
	int a = float_accessor(c, t, keys, 1, true, 0);
	free(t);
	return a;
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
	jpush(c, channels, ch);
}

static void push_animation(gltf_ctx *c, const char *name, cJSON *samplers, cJSON *channels)
{
	cJSON *a = jobj(c);
	jstr(c, a, "name", name);
	jset(c, a, "channels", channels);
	jset(c, a, "samplers", samplers);
	jpush(c, c->animations, a);
}

/** One animation per clip: at key k the weight of target first+k is 1 and
 *  all others 0, LINEAR between keys (a blend of two consecutive frames,
 *  which is how the engine interpolates frames). */
static bool write_clips(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (!c->animate || !s->meshes_count) return true;
	size_t nt = (size_t)c->mesh_targets[0];
	for (size_t ci = 0; ci < s->clips_count; ci++) {
		const gsio_clip *clip = &s->clips[ci];
		if (!clip->frame_count || clip->first_frame >= nt || clip->frame_count > nt - clip->first_frame) {
			warn(c, "clip %zu (%s) frames %zu+%zu lie outside the %zu frames: not written", ci,
			     clip->name ? clip->name : "", clip->first_frame, clip->frame_count, nt);
			continue;
		}
		size_t keys = clip->frame_count;
		float fps = checked_fps(c, clip->fps, "clip", clip->name);
		int input = time_accessor(c, keys, fps);
		size_t nvals;
		if (input < 0 || !gsioi_mul_size(keys, nt, &nvals)) {
			if (input >= 0) GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "clip %zu is too large", ci);
			return false;
		}
		float *w = xmalloc_array(c, nvals, sizeof(float));
		if (!w) return false;
		memset(w, 0, nvals * sizeof(float));
		for (size_t k = 0; k < keys; k++) w[k * nt + clip->first_frame + k] = 1.0f;
		int output = float_accessor(c, w, nvals, 1, false, 0);
		free(w);
		if (output < 0) return false;
		cJSON *samplers = jarr(c), *channels = jarr(c);
		for (size_t mi = 0; mi < s->meshes_count; mi++)
			if (c->mesh_node[mi] >= 0 && (size_t)c->mesh_targets[mi] == nt)
				add_channel(c, samplers, channels, input, output, c->mesh_node[mi], "weights");
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "clip%zu", ci);
		push_animation(c, clip->name && clip->name[0] ? clip->name : fallback, samplers, channels);
	}
	return true;
}

static bool write_skel_anims(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	if (!c->animate) return true;
	size_t nj = s->joints_count;
	for (size_t ai = 0; ai < s->animations_count; ai++) {
		const gsio_skel_anim *an = &s->animations[ai];
		if (!nj || c->joint_node0 < 0 || an->joints_count != nj) {
			GSIO_FAIL(c->err, GSIO_ERR_MISMATCH, NULL, -1,
			          "animation %zu (%s) has %zu joints, the skeleton %zu", ai,
			          an->name ? an->name : "", an->joints_count, nj);
			return false;
		}
		if (!an->frames_count) {
			warn(c, "animation %zu (%s) has no frames: not written", ai, an->name ? an->name : "");
			continue;
		}
		if (!an->translations || !an->rotations) {
			GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "animation %zu has no pose arrays", ai);
			return false;
		}
		size_t nf = an->frames_count;
		float fps = checked_fps(c, an->fps, "animation", an->name);
		int input = time_accessor(c, nf, fps);
		float *t = xmalloc_array(c, nf, 3 * sizeof(float));
		float *r = xmalloc_array(c, nf, 4 * sizeof(float));
		bool ok = input >= 0 && t && r;
		cJSON *samplers = jarr(c), *channels = jarr(c);
		for (size_t j = 0; ok && j < nj; j++) {
			for (size_t f = 0; f < nf; f++) {
				const float *src_t = an->translations + 3 * (f * nj + j);
				const float *src_r = an->rotations + 4 * (f * nj + j);
				if (!finite3(src_t)) {
					GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1,
					          "animation %zu frame %zu joint %zu: non-finite translation", ai, f, j);
					ok = false;
					break;
				}
				xf_pos(c, src_t, t + 3 * f);
				float q[4] = {src_r[0], src_r[1], src_r[2], src_r[3]};
				normalize4(q);
				xf_quat(c, q, r + 4 * f);
				// Keep consecutive keys in one hemisphere: the short way round.
				if (f > 0) {
					float *p = r + 4 * (f - 1), *cur = r + 4 * f;
					if (p[0] * cur[0] + p[1] * cur[1] + p[2] * cur[2] + p[3] * cur[3] < 0)
						for (int k = 0; k < 4; k++) cur[k] = -cur[k];
				}
			}
			if (!ok) break;
			int node = c->joint_node0 + (int)j;
			int ta = float_accessor(c, t, nf, 3, false, 0);
			int ra = float_accessor(c, r, nf, 4, false, 0);
			ok = ta >= 0 && ra >= 0;
			if (ok) {
				add_channel(c, samplers, channels, input, ta, node, "translation");
				add_channel(c, samplers, channels, input, ra, node, "rotation");
			}
		}
		free(t);
		free(r);
		if (!ok) {
			cJSON_Delete(samplers);
			cJSON_Delete(channels);
			return false;
		}
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "animation%zu", ai);
		push_animation(c, an->name && an->name[0] ? an->name : fallback, samplers, channels);
	}
	return true;
}

// -- Cameras

static double yfov_of(double hfov_deg)
{
	double h = hfov_deg * M_PI / 180.0;
	return 2.0 * atan(tan(h / 2.0) / CAMERA_ASPECT);
}

static bool write_cameras(gltf_ctx *c)
{
	const gsio_scene *s = c->s;
	double fix[4];
	camera_fix(c, fix);
	for (size_t ci = 0; ci < s->cameras_count; ci++) {
		const gsio_camera *cam = &s->cameras[ci];
		char fallback[32];
		snprintf(fallback, sizeof(fallback), "camera%zu", ci);
		const char *name = cam->name && cam->name[0] ? cam->name : fallback;
		size_t nf = cam->positions && cam->rotations ? cam->frames_count : 0;
		double hfov = cam->fov && nf ? cam->fov[0] : 90.0;
		if (!(hfov > 0 && hfov < 180)) {
			warn(c, "camera %s: field of view %g is out of range: using 90", name, hfov);
			hfov = 90.0;
		}
		cJSON *cj = jobj(c), *persp = jobj(c);
		jstr(c, cj, "name", name);
		jstr(c, cj, "type", "perspective");
		jnum(c, persp, "aspectRatio", CAMERA_ASPECT);
		jnum(c, persp, "yfov", yfov_of(hfov));
		jnum(c, persp, "znear", CAMERA_ZNEAR * c->scale);
		jset(c, cj, "perspective", persp);
		// glTF cannot animate the field of view (without KHR_animation_pointer,
		// which Blender 3.4 ignores): keep the per-frame values and the cuts.
		cJSON *extras = jobj(c);
		jnum(c, extras, "aspectRatioChosen", CAMERA_ASPECT);
		if (cam->fov && nf) {
			cJSON *fovs = jarr(c);
			for (size_t f = 0; f < nf; f++) jpush_num(c, fovs, cam->fov[f]);
			jset(c, extras, "horizontalFovDegrees", fovs);
		}
		if (cam->cuts && cam->cuts_count) {
			cJSON *cuts = jarr(c);
			for (size_t k = 0; k < cam->cuts_count; k++) jpush_num(c, cuts, cam->cuts[k]);
			jset(c, extras, "cuts", cuts);
		}
		jset(c, cj, "extras", extras);
		int cam_index = jpush(c, c->cameras, cj);

		cJSON *node = jobj(c);
		jstr(c, node, "name", name);
		jnum(c, node, "camera", cam_index);
		float t[3] = {0, 0, 0}, r[4];
		const float ident[4] = {0, 0, 0, 1};
		if (nf) {
			if (!finite3(cam->positions)) {
				cJSON_Delete(node);
				GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "camera %zu has a non-finite position", ci);
				return false;
			}
			xf_pos(c, cam->positions, t);
		}
		camera_rotation(c, fix, nf ? cam->rotations : ident, r);
		jset(c, node, "translation", jfloats(c, t, 3));
		jset(c, node, "rotation", jfloats(c, r, 4));
		int node_index = jpush(c, c->nodes, node);
		jpush_num(c, c->scene_nodes, node_index);
		if (!nf) warn(c, "camera %s has no frames", name);
		if (!c->animate || nf < 2) continue;

		float fps = checked_fps(c, cam->fps, "camera", name);
		// A cut is a jump, not a move: just before a cut frame's time an extra
		// key holds the previous shot's last pose, so LINEAR interpolation
		// changes shots within 1% of a frame instead of sweeping across.
		size_t ncut = 0;
		for (size_t k = 0; k < cam->cuts_count; k++)
			if (cam->cuts[k] >= 1 && cam->cuts[k] < nf) ncut++;
		size_t nkeys = nf + ncut;
		float *times = xmalloc_array(c, nkeys, sizeof(float));
		float *tv = xmalloc_array(c, nkeys, 3 * sizeof(float));
		float *rv = xmalloc_array(c, nkeys, 4 * sizeof(float));
		bool ok = times && tv && rv;
		size_t key = 0;
		for (size_t f = 0; ok && f < nf; f++) {
			if (!finite3(cam->positions + 3 * f)) {
				GSIO_FAIL(c->err, GSIO_ERR_ARGUMENT, NULL, -1, "camera %zu frame %zu: non-finite position", ci, f);
				ok = false;
				break;
			}
			bool cut = false;
			for (size_t k = 0; k < cam->cuts_count && f > 0; k++)
				if (cam->cuts[k] == f) cut = true;
			if (cut) { // repeat the previous key just before this frame's time
				times[key] = (float)(((double)f - 0.01) / fps);
				memcpy(tv + 3 * key, tv + 3 * (key - 1), 3 * sizeof(float));
				memcpy(rv + 4 * key, rv + 4 * (key - 1), 4 * sizeof(float));
				key++;
			}
			times[key] = (float)((double)f / fps);
			xf_pos(c, cam->positions + 3 * f, tv + 3 * key);
			camera_rotation(c, fix, cam->rotations + 4 * f, rv + 4 * key);
			if (key > 0) {
				float *p = rv + 4 * (key - 1), *cur = rv + 4 * key;
				if (p[0] * cur[0] + p[1] * cur[1] + p[2] * cur[2] + p[3] * cur[3] < 0)
					for (int k = 0; k < 4; k++) cur[k] = -cur[k];
			}
			key++;
		}
		int input = ok ? float_accessor(c, times, key, 1, true, 0) : -1;
		ok = ok && input >= 0;
		free(times);
		int ta = ok ? float_accessor(c, tv, key, 3, false, 0) : -1;
		int ra = ok ? float_accessor(c, rv, key, 4, false, 0) : -1;
		free(tv);
		free(rv);
		if (ta < 0 || ra < 0) return false;
		cJSON *samplers = jarr(c), *channels = jarr(c);
		add_channel(c, samplers, channels, input, ta, node_index, "translation");
		add_channel(c, samplers, channels, input, ra, node_index, "rotation");
		push_animation(c, name, samplers, channels);
	}
	return true;
}

// -- Document assembly

/** Attaches arr under key when it has items (glTF forbids empty arrays). */
static void attach(gltf_ctx *c, const char *key, cJSON **arr)
{
	if (*arr && cJSON_GetArraySize(*arr) > 0)
		jset(c, c->root, key, *arr);
	else
		cJSON_Delete(*arr);
	*arr = NULL;
}

static bool make_glb(gltf_ctx *c, const char *json, gsio_gltf_output *out)
{
	size_t jl = strlen(json), jpad = (4 - jl % 4) % 4;
	size_t bl = c->bin.size, bpad = (4 - bl % 4) % 4;
	size_t total = 12 + 8 + jl + jpad + (bl ? 8 + bl + bpad : 0);
	if (total > UINT32_MAX || total < jl) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, NULL, -1, "GLB of %zu bytes exceeds 4 GiB", total);
		return false;
	}
	uint8_t *g = malloc(total);
	if (!g) return fail_nomem(c, "the GLB");
	uint32_t hdr[5] = {GLB_MAGIC, 2, (uint32_t)total, (uint32_t)(jl + jpad), GLB_CHUNK_JSON};
	memcpy(g, hdr, 20);
	memcpy(g + 20, json, jl);
	memset(g + 20 + jl, ' ', jpad);
	if (bl) {
		uint8_t *b = g + 20 + jl + jpad;
		uint32_t ch[2] = {(uint32_t)(bl + bpad), GLB_CHUNK_BIN};
		memcpy(b, ch, 8);
		memcpy(b + 8, c->bin.data, bl);
		memset(b + 8 + bl, 0, bpad);
	}
	char name[512];
	snprintf(name, sizeof(name), "%s.glb", c->name);
	if (!add_file(out, name, g, total)) {
		free(g);
		return fail_nomem(c, "the output list");
	}
	return true;
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
		for (size_t i = 0; i < s->warnings_count; i++) jpush(c, w, cJSON_CreateString(s->warnings[i]));
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

	size_t n = s->meshes_count ? s->meshes_count : 1;
	c->mesh_node = xmalloc_array(c, n, sizeof(int));
	c->mesh_targets = xmalloc_array(c, n, sizeof(int));
	if (!c->mesh_node || !c->mesh_targets) return false;
	for (size_t i = 0; i < n; i++) c->mesh_node[i] = c->mesh_targets[i] = 0;

	GSIO_CHECK(write_images(c));
	GSIO_CHECK(write_materials(c));
	c->variants_count = plan_variants(c);
	GSIO_CHECK(write_skeleton(c));
	for (size_t i = 0; i < s->meshes_count; i++) GSIO_CHECK(write_mesh(c, i));
	GSIO_CHECK(write_clips(c));
	GSIO_CHECK(write_skel_anims(c));
	GSIO_CHECK(write_cameras(c));
	GSIO_CHECK(buffer_align(c));

	if (c->bin.size) {
		cJSON *buffers = jarr(c), *b = jobj(c);
		jnum(c, b, "byteLength", (double)c->bin.size);
		if (c->separate) {
			char file[512], uri[1600];
			snprintf(file, sizeof(file), "%s.bin", c->name);
			uri_encode(file, uri, sizeof(uri));
			jstr(c, b, "uri", uri);
		}
		jpush(c, buffers, b);
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
	if (cJSON_GetArraySize(c->scene_nodes) > 0)
		jset(c, scene, "nodes", c->scene_nodes);
	else
		cJSON_Delete(c->scene_nodes);
	c->scene_nodes = NULL;
	jpush(c, scenes, scene);
	jnum(c, c->root, "scene", 0);
	jset(c, c->root, "scenes", scenes);
	return true;
}

int gsio_gltf_write(const gsio_scene *scene, const gsio_gltf_opts *o, gsio_gltf_output *out,
                    gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!out) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_gltf_write: no output");
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (!scene) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_gltf_write: no scene");
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	gltf_ctx ctx = {0};
	gltf_ctx *c = &ctx;
	c->s = scene;
	c->err = err;
	c->out = out;
	c->scale = opts.scale == 0 ? 1.0f : opts.scale;
	if (!isfinite(c->scale) || c->scale <= 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "scale %g must be a positive number", (double)opts.scale);
		return -1;
	}
	c->convert_axes = !(opts.flags & GSIO_GLTF_KEEP_AXES);
	c->animate = !(opts.flags & GSIO_GLTF_NO_ANIMATION);
	c->separate = (opts.flags & GSIO_GLTF_SEPARATE) != 0;
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
	bool ok = c->root && build_document(c);
	if (ok && c->json_failed) ok = fail_nomem(c, "the JSON document");
	char *json = NULL;
	if (ok) {
		json = c->separate ? cJSON_Print(c->root) : cJSON_PrintUnformatted(c->root);
		if (!json) ok = fail_nomem(c, "printing JSON");
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
			if (ok && c->bin.size) {
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
			if (!ok) fail_nomem(c, "the output list");
		} else {
			// Images were appended to the buffer already; no files yet.
			ok = make_glb(c, json, out);
		}
	}
	free(json);
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
	cJSON_Delete(c->scene_nodes);
	cJSON_Delete(c->extensions_used);
	free(c->mesh_node);
	free(c->mesh_targets);
	gsioi_writer_free(&c->bin);
	if (!ok) {
		gsio_gltf_output_free(out);
		if (err->code == GSIO_OK) GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "glTF writing failed");
		return -1;
	}
	return 0;
}

// -- Files

static atomic_ulong tmp_counter;

/** Writes data to a fresh temporary file in dir (O_EXCL), returns its path. */
static bool write_temp(const char *dir, const char *name, const uint8_t *data, size_t size,
                       char *tmp, size_t tmp_size, gsio_error *err)
{
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned long n = atomic_fetch_add(&tmp_counter, 1);
		snprintf(tmp, tmp_size, "%s.%s.%ld.%lu.tmp", dir, name, (long)getpid(), n);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno == EEXIST) continue;
		if (fd < 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, tmp, -1, "cannot create: %s", strerror(errno));
			return false;
		}
		size_t done = 0;
		while (done < size) {
			ssize_t w = write(fd, data + done, size - done);
			if (w < 0 && errno == EINTR) continue;
			if (w <= 0) {
				int e = errno;
				close(fd);
				unlink(tmp);
				GSIO_FAIL(err, GSIO_ERR_IO, tmp, (int64_t)done, "write failed: %s", strerror(e));
				return false;
			}
			done += (size_t)w;
		}
		if (close(fd)) {
			int e = errno;
			unlink(tmp);
			GSIO_FAIL(err, GSIO_ERR_IO, tmp, -1, "write failed: %s", strerror(e));
			return false;
		}
		return true;
	}
	GSIO_FAIL(err, GSIO_ERR_IO, dir, -1, "cannot find a free temporary name");
	return false;
}

/** Moves tmp to final: rename() when replacing is allowed; link() (which
 *  refuses an existing target atomically) when it is not. */
static bool place(const char *tmp, const char *final, bool no_replace, gsio_error *err)
{
	if (!no_replace) {
		if (rename(tmp, final)) {
			int e = errno;
			unlink(tmp);
			GSIO_FAIL(err, GSIO_ERR_IO, final, -1, "cannot rename the temporary file: %s", strerror(e));
			return false;
		}
		return true;
	}
	if (link(tmp, final) == 0) {
		unlink(tmp);
		return true;
	}
	int e = errno;
	if (e == EEXIST) {
		unlink(tmp);
		GSIO_FAIL(err, GSIO_ERR_IO, final, -1, "exists (not replaced)");
		return false;
	}
	// File systems without hard links: check, then rename (not atomic).
	struct stat st;
	if (lstat(final, &st) == 0) {
		unlink(tmp);
		GSIO_FAIL(err, GSIO_ERR_IO, final, -1, "exists (not replaced)");
		return false;
	}
	return place(tmp, final, false, err);
}

int gsio_gltf_write_file(const gsio_scene *scene, const char *path, const gsio_gltf_opts *o,
                         gsio_gltf_output *warnings, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (warnings) memset(warnings, 0, sizeof(*warnings));
	if (!path || !path[0]) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_gltf_write_file: no path");
		return -1;
	}
	gsio_gltf_opts opts = {0};
	if (o) opts = *o;
	char ext[16];
	gsioi_path_ext(path, ext, sizeof(ext));
	if (!strcmp(ext, "gltf")) opts.flags |= GSIO_GLTF_SEPARATE;
	if (!strcmp(ext, "glb")) opts.flags &= ~(uint32_t)GSIO_GLTF_SEPARATE;
	const char *base = gsioi_path_base(path);
	size_t dir_len = (size_t)(base - path);
	char stem[256];
	snprintf(stem, sizeof(stem), "%s", base);
	char *dot = strrchr(stem, '.');
	if (dot && dot != stem) *dot = 0;
	opts.name = stem;
	bool no_replace = (opts.flags & GSIO_GLTF_NO_REPLACE) != 0;

	gsio_gltf_output out;
	if (gsio_gltf_write(scene, &opts, &out, err)) return -1;

	char dir[4096];
	if (dir_len >= sizeof(dir)) {
		gsio_gltf_output_free(&out);
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "path too long");
		return -1;
	}
	memcpy(dir, path, dir_len);
	dir[dir_len] = 0;
	char (*finals)[4096] = calloc(out.files_count ? out.files_count : 1, sizeof(*finals));
	bool ok = finals != NULL;
	if (!ok) GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory");
	for (size_t i = 0; ok && i < out.files_count; i++) {
		int n = i == 0 ? snprintf(finals[i], sizeof(finals[i]), "%s", path)
		               : snprintf(finals[i], sizeof(finals[i]), "%s%s", dir, out.files[i].name);
		if (n < 0 || (size_t)n >= sizeof(finals[i])) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "path too long");
			ok = false;
		}
	}
	// Refuse before writing anything, so a refused output is left as it was.
	for (size_t i = 0; ok && no_replace && i < out.files_count; i++) {
		struct stat st;
		if (lstat(finals[i], &st) == 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, finals[i], -1, "exists (not replaced; use --force)");
			ok = false;
		}
	}
	// Resources first, the main file last.
	for (size_t k = 0; ok && k < out.files_count; k++) {
		size_t i = (k + 1) % out.files_count;
		char tmp[4600];
		ok = write_temp(dir, out.files[i].name, out.files[i].data, out.files[i].size, tmp,
		                sizeof(tmp), err) &&
		     place(tmp, finals[i], no_replace, err);
	}
	free(finals);
	if (warnings) {
		warnings->warnings = out.warnings;
		warnings->warnings_count = out.warnings_count;
		out.warnings = NULL;
		out.warnings_count = 0;
	}
	gsio_gltf_output_free(&out);
	return ok ? 0 : -1;
}
