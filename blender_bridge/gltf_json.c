/* The glTF writer's JSON output: cJSON items made and attached, recording
 * an allocation failure in the context (json_failed, which the writer
 * checks once before printing) instead of returning it; floats as text
 * that reads back exactly (gsioi_gltf_json_float); a GLB's arrays that grow with
 * the scene kept as their printed text; the per-view and per-accessor
 * objects built as text (jbuild); file names and uris; extras. Relies on
 * cJSON and the context's array handles (gltf_internal.h). */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdlib.h>
#include <string.h>

// -- JSON items

/** obj[key] = item. The key is not copied (a copy would make a document of
 *  many morph targets copy "bufferView", "count", ... for every accessor):
 *  it must outlive the document, a string literal or one of the scene's
 *  strings; gsioi_gltf_jset_copy() for any other. */
void gsioi_gltf_jset(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item)
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

/** gsioi_gltf_jset() with a key of any lifetime (copied). */
void gsioi_gltf_jset_copy(gltf_ctx *c, cJSON *obj, const char *key, cJSON *item)
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
cJSON *gsioi_gltf_jnumber(double v)
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

void gsioi_gltf_jnum(gltf_ctx *c, cJSON *obj, const char *key, double v)
{
	gsioi_gltf_jset(c, obj, key, gsioi_gltf_jnumber(v));
}

void gsioi_gltf_jstr(gltf_ctx *c, cJSON *obj, const char *key, const char *v)
{
	gsioi_gltf_jset(c, obj, key, cJSON_CreateString(v ? v : ""));
}

cJSON *gsioi_gltf_jobj(gltf_ctx *c)
{
	cJSON *o = cJSON_CreateObject();
	if (!o) c->json_failed = true;
	return o;
}

cJSON *gsioi_gltf_jarr(gltf_ctx *c)
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
 * printed document has their marks (gsioi_gltf_jtext_take, gsioi_gltf_glb_json_emit):
 * the same bytes as the whole tree printed. A .gltf is printed formatted:
 * no text there.
 * The arrays stay cJSON arrays, empty, as the handles gsioi_gltf_jadd() and
 * gsioi_gltf_jpush() are given. */
#define JT_MARK '\x01' // where a jtext goes in the printed document (gsioi_gltf_jtext_take)

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
bool gsioi_gltf_jtext_append(jtext *t, const char *text)
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

/** Ends the text t with the "]" that closes its array (gsioi_gltf_jtext_append kept
 *  room for it and the terminator). */
void gsioi_gltf_jtext_close(jtext *t)
{
	t->p[t->len++] = ']';
	t->p[t->len] = 0;
}

/** Appends item to the text t; the item is freed. */
static bool jtext_add(gltf_ctx *c, jtext *t, cJSON *item)
{
	char *printed = NULL;
	const char *text = cJSON_IsRaw(item) ? item->valuestring : (printed = cJSON_PrintUnformatted(item));
	bool ok = text && gsioi_gltf_jtext_append(t, text);
	cJSON_free(printed);
	cJSON_Delete(item);
	if (!ok) c->json_failed = true;
	return ok;
}

/** The array to put in the document for *arr: its text as one raw item for a
 *  GLB, else the array itself; NULL when it is empty (or on failure). *arr is
 *  taken (NULL afterwards). */
cJSON *gsioi_gltf_jtext_take(gltf_ctx *c, cJSON **arr)
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
	gsioi_gltf_jtext_close(t);
	// In the document a mark stands for the text: byte 0x01 and the array's
	// letter, printed as they are (a raw item; cJSON escapes control bytes
	// in strings, so a 0x01 in the printed document is a mark). The GLB's
	// JSON chunk is written from the document and the texts (gsioi_gltf_glb_json_emit),
	// never whole in one buffer.
	char mark[3] = {JT_MARK, (char)('A' + (t - c->jt)), 0};
	cJSON *raw = cJSON_CreateRaw(mark);
	if (!raw) c->json_failed = true;
	return raw;
}

/** The JSON chunk's length: the printed document less its marks, plus the
 *  texts they stand for. */
size_t gsioi_gltf_glb_json_len(const gltf_ctx *c, const char *doc)
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
bool gsioi_gltf_glb_json_emit(gltf_ctx *c, const char *doc, bool (*emit)(void *user, const void *p, size_t n),
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
void gsioi_gltf_jadd(gltf_ctx *c, cJSON *arr, cJSON *item)
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
int gsioi_gltf_jpush(gltf_ctx *c, cJSON *arr, cJSON *item)
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
	// go through gsioi_gltf_jadd(). Only gsioi_gltf_jpush() appends to these five. A GLB's text
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

void gsioi_gltf_jpush_num(gltf_ctx *c, cJSON *arr, double v)
{
	gsioi_gltf_jadd(c, arr, gsioi_gltf_jnumber(v));
}

/** A float as JSON text that reads back as exactly that float's value.
 *  cJSON's own printer settles for 15 digits when they read back "close
 *  enough", which breaks the rule that accessor min/max equal the data;
 *  17 significant digits name every double (so every float) exactly
 *  (gsioi_gltf_json_float: printf's "%.17g", with a '.' in any locale). */
cJSON *gsioi_gltf_jfloat(float f)
{
	char out[GLTF_JSON_FLOAT_MAX];
	gsioi_gltf_json_float(f, out);
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
		len += gsioi_gltf_json_float(v[i], out + len);
	}
	out[len++] = ']';
	return len;
}

cJSON *gsioi_gltf_jfloats(gltf_ctx *c, const float *v, int n)
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
		cJSON *x = gsioi_gltf_jfloat(v[i]);
		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			cJSON_Delete(a);
			a = NULL;
		}
	}
	if (!a) c->json_failed = true;
	return a;
}

const char *gsioi_gltf_type_name(int ncomp)
{
	switch (ncomp) {
	case 1: return "SCALAR";
	case 2: return "VEC2";
	case 3: return "VEC3";
	case 4: return "VEC4";
	default: return "MAT4";
	}
}

void gsioi_gltf_jb_start(gltf_ctx *c, jbuild *b)
{
	b->c = c;
	b->obj = c->separate ? gsioi_gltf_jobj(c) : NULL;
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

void gsioi_gltf_jb_int(jbuild *b, const char *key, size_t v)
{
	if (b->obj) {
		gsioi_gltf_jnum(b->c, b->obj, key, (double)v);
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
void gsioi_gltf_jb_str(jbuild *b, const char *key, const char *s)
{
	if (b->obj) {
		gsioi_gltf_jstr(b->c, b->obj, key, s);
		return;
	}
	jb_key(b, key);
	size_t n = strlen(s);
	b->text[b->len++] = '"';
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len++] = '"';
}

/** n <= 16 floats, as gsioi_gltf_jfloats() prints them. */
void gsioi_gltf_jb_floats(jbuild *b, const char *key, const float *v, int n)
{
	if (b->obj) {
		gsioi_gltf_jset(b->c, b->obj, key, gsioi_gltf_jfloats(b->c, v, n));
		return;
	}
	jb_key(b, key);
	b->len += floats_text(v, n, b->text + b->len);
}

/** A GLB's object ended: its text, "{...}". */
const char *gsioi_gltf_jb_end(jbuild *b)
{
	b->text[b->len++] = '}';
	b->text[b->len] = 0;
	return b->text;
}

/** Appends the object to arr; its index or -1. */
int gsioi_gltf_jb_push(jbuild *b, cJSON *arr)
{
	if (b->obj) return gsioi_gltf_jpush(b->c, arr, b->obj);
	return gsioi_gltf_jpush(b->c, arr, cJSON_CreateRaw(gsioi_gltf_jb_end(b)));
}

/** File-name-safe copy of s (letters, digits, '-', '_', '.'; others '_'). */
void gsioi_gltf_safe_name(const char *s, char *buf, size_t size)
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

/** RFC 3986 percent-encoding of a relative file name for a glTF uri. */
void gsioi_gltf_uri_encode(const char *s, char *buf, size_t size)
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

/** An object holding the extras of a list (ints, floats, strings, float
 *  arrays) added to `into` (created when NULL). Returns into, or NULL when
 *  the list is empty and into was NULL. Non-finite floats become null. */
cJSON *gsioi_gltf_extras_json(gltf_ctx *c, cJSON *into, const gsio_extras *x)
{
	if (!x || !x->count) return into;
	if (!into) into = gsioi_gltf_jobj(c);
	for (size_t i = 0; i < x->count; i++) {
		const gsio_extra *e = &x->items[i];
		if (!e->key) continue;
		cJSON *v = NULL;
		switch (e->type) {
		case GSIO_EXTRA_INT: v = cJSON_CreateNumber((double)e->i); break;
		case GSIO_EXTRA_FLOAT: v = isfinite(e->f) ? cJSON_CreateNumber(e->f) : cJSON_CreateNull(); break;
		case GSIO_EXTRA_STRING: v = cJSON_CreateString(e->s ? e->s : ""); break;
		case GSIO_EXTRA_FLOATS: v = gsioi_gltf_jfloats(c, e->floats, (int)e->floats_count); break;
		default: continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(into, e->key);
		gsioi_gltf_jset_copy(c, into, e->key, v);
	}
	return into;
}
