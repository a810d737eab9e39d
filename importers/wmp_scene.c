/* WMP level -> scene (FORMATS-LEVELS-MDL7.md sections 5-11).
 *
 * - Nodes: one per object of the tree (object 0, the root, is named after
 *   the level file), with the object's position, rotation R = Rz(a) Rx(b)
 *   Ry(c) from its radians (verified against compiled entities) and scale;
 *   T R S order (inferred, FORMATS 16.4). An object carrying more than one
 *   element gets a child node per extra element.
 * - Blocks: one mesh each, block-local positions, faces fanned with the
 *   winding reversed (clockwise -> counter-clockwise), flat outward normals,
 *   one part per texture, UVs by the verified projection: Quake base axes
 *   rotated by the angle, divided by the scale, plus the offset, divided by
 *   the texture size; world positions for unlocked blocks, block-local ones
 *   for texture-locked blocks (flag 0x00010000).
 * - Textures from the WADs the level names (WAD7, WAD2, WAD3), 8-bit ones
 *   through the level palette, DDS ones (WAD7 type 6) decoded from DXT1/3/5
 *   (wad.c); a texture no WAD holds is a warning and a grey checker of 64x64.
 * - Entities: model files (any format gsio reads) loaded once each and
 *   grafted in: their meshes, materials and images once, a node subtree per
 *   entity, their clips as one animation per clip moving every instance.
 *   A model that cannot be found or read is a warning and an empty node.
 *   Sprites are a double-sided quad of the image's size in the node's YZ
 *   plane (facing +X, the entity's forward). Lights are point lights,
 *   the level's sun a directional light; starts, sounds, paths and regions
 *   empty nodes whose data is in extras, like every entity's action,
 *   skills, flags. Raw values of open questions stay in extras.
 * - Files: only base names of stored paths are used, looked up
 *   case-insensitively beside the level and then in opts->search_paths;
 *   nothing outside those folders is opened. */
#include "gsioi_image_file.h"
#include "gsioi_scene_util.h"
#include "wmp_internal.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#define CHECKER_SIZE 64
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

// -- Context

typedef struct folder {
	char *dir;       /**< "" for the current directory, else without trailing '/' */
	char **names;    /**< listing, NULL when the io cannot list */
	bool listed;
} folder;

typedef struct model_entry {
	char *key;           /**< lower-case base name */
	gsio_scene *ms;      /**< the loaded model (NULL: missing or unreadable) */
	int32_t mesh_base, material_base, image_base;
	int32_t **instances; /**< per placed entity: model node -> level node */
	size_t instances_count, instances_cap;
} model_entry;

typedef struct sctx {
	const gsio_wmp_file *f;
	gsio_scene *s;
	const gsio_opts *opts;
	gsio_opts sub_opts;
	const char *path;
	gsio_error *err;
	gsio_arena *tmp;
	folder *folders;
	size_t folders_count;
	gsio_wad_file **wads;
	uint8_t **wad_bytes;          /**< per WAD: the bytes its lumps point into */
	size_t wads_count;
	const uint8_t *palette;
	uint8_t palette_buf[768];
	// Texture name -> slot -> material. Looked up by hash, as are the WAD
	// lumps and the names the scene holds: scans made a level of n
	// textures cost n * n (8 000 textures: 3 s).
	const char **tex_names;
	int32_t *tex_material;
	uint32_t *tex_w, *tex_h;
	size_t tex_count, tex_cap;
	gsioi_names tex_index;        /**< texture name (any case) -> slot */
	gsioi_names lump_index;       /**< lump name (any case) -> lump_refs entry */
	uint32_t (*lump_refs)[2];     /**< wad, lump: the first WAD's lump of a name */
	gsioi_names taken;            /**< image and material names in the scene */
	size_t taken_images, taken_materials; /**< how many of each are in `taken` */
	int32_t *part_of_slot;        /**< a block's part of each slot, -1 (tex_cap) */
	size_t part_of_slot_cap;
	gsioi_names sprite_index;     /**< a sprite's file (full path) -> sprites entry */
	struct sprite_entry {
		int32_t image, material;
		uint32_t width, height;
	} *sprites;
	size_t sprites_count, sprites_cap;
	model_entry *models;
	size_t models_count, models_cap;
	uint8_t *checker_indices; /**< the placeholders' indexed form (checker_shared), */
	uint8_t *checker_palette; /**< indices into two greys (scene arena) */
	int32_t *node_of; /**< object -> node, -1 until placed */
	bool binary;      /**< colours 0..255 (else percent) */
} sctx;

static bool warn(sctx *c, const char *fmt, ...) GSIO_PRINTF(2, 3);
static bool warn(sctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gsio_scene_add_warning(c->s, c->err, "%s", msg) == 0;
}

// -- Finding files

static bool add_folder(sctx *c, const char *dir)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/') n--;
	char *d = gsioi_arena_strndup(c->tmp, dir, n, c->err);
	GSIO_CHECK(d);
	folder *nf = GSIO_NEW_ARRAY(c->tmp, folder, c->folders_count + 1, c->err);
	GSIO_CHECK(nf);
	if (c->folders_count) memcpy(nf, c->folders, c->folders_count * sizeof(folder));
	nf[c->folders_count].dir = d;
	c->folders = nf;
	c->folders_count++;
	return true;
}

static void free_folders(sctx *c)
{
	const gsio_io *io = gsioi_io_of(c->opts);
	for (size_t i = 0; i < c->folders_count; i++)
		if (c->folders[i].names && io->free_list) io->free_list(io->user, c->folders[i].names);
}

/* The stored name's base name (either separator), or NULL when it has none
 * or is "." / "..". */
static const char *base_of(const char *stored)
{
	const char *b = gsioi_path_base(stored);
	if (!*b || !strcmp(b, ".") || !strcmp(b, "..")) return NULL;
	return b;
}

static bool find_file_in(sctx *c, const char *stored, char *out, size_t out_size, bool *found);

/* Finds a file by base name (see find_file_in) and records the reference
 * in the scene's extras for `gsio info`: "wmp:file:KIND:NAME" = the path
 * found, or "" when not found (KIND: wad, model, sprite, sound, script,
 * palette; NAME: the base name as stored). */
static bool find_file(sctx *c, const char *kind, const char *stored, char *out, size_t out_size,
                      bool *found)
{
	GSIO_CHECK(find_file_in(c, stored, out, out_size, found));
	const char *base = base_of(stored);
	if (!base) return true;
	char key[300], val[1024];
	snprintf(key, sizeof(key), "wmp:file:%s:%s", kind, base);
	gsioi_text_sanitize(key);
	snprintf(val, sizeof(val), "%s", *found ? out : "");
	gsioi_text_sanitize(val);
	return gsio_extras_set_string(c->s, &c->s->extras, key, val, c->err) == 0;
}

/* Finds a file by base name, case-insensitively, beside the level and in
 * the search folders; writes the path into out. False (no error) when not
 * found; an error only for out-of-memory. */
static bool find_file_in(sctx *c, const char *stored, char *out, size_t out_size, bool *found)
{
	*found = false;
	const char *base = base_of(stored);
	if (!base) return true;
	const gsio_io *io = gsioi_io_of(c->opts);
	for (size_t i = 0; i < c->folders_count && !*found; i++) {
		folder *fo = &c->folders[i];
		if (!fo->listed && io->list_dir) {
			gsio_error sub;
			gsio_error_clear(&sub);
			if (io->list_dir(io->user, fo->dir[0] ? fo->dir : ".", &fo->names, &sub))
				fo->names = NULL;
			fo->listed = true;
		}
		const char *name = NULL;
		if (fo->names) {
			for (char **p = fo->names; *p && !name; p++)
				if (!strcasecmp(*p, base)) name = *p;
			if (!name) continue;
		} else {
			name = base; // the io cannot list: the exact name only
		}
		int n = snprintf(out, out_size, "%s%s%s", fo->dir, fo->dir[0] ? "/" : "", name);
		if (n < 0 || (size_t)n >= out_size) continue;
		// Real files: the file must really lie inside the folder (a link to
		// elsewhere is not followed).
		if (gsioi_io_is_default(c->opts) && gsioi_path_inside(fo->dir, out) != 1) continue;
		*found = true;
	}
	return true;
}

// -- Textures

static bool load_wads(sctx *c)
{
	const gsio_wmp_file *f = c->f;
	c->wads = GSIO_NEW_ARRAY(c->tmp, gsio_wad_file *, f->wads_count, c->err);
	c->wad_bytes = GSIO_NEW_ARRAY(c->tmp, uint8_t *, f->wads_count, c->err);
	GSIO_CHECK(c->wads && c->wad_bytes);
	// The lumps point into the bytes read (kept until the WADs are freed):
	// a copy held the WAD twice at the peak (menue.wmp: 436 KB more).
	gsio_opts wo = c->opts ? *c->opts : (gsio_opts){0};
	wo.flags |= GSIO_OPT_BORROW;
	for (size_t i = 0; i < f->wads_count; i++) {
		const char *stored = gsioi_wmp_str(&f->wads[i].path);
		char full[1024];
		bool found;
		GSIO_CHECK(find_file(c, "wad", stored, full, sizeof(full), &found));
		if (!found) {
			GSIO_CHECK(warn(c, "WAD \"%.300s\" not found beside the level or in the search "
			                   "folders: its textures are placeholders",
			                stored));
			continue;
		}
		uint8_t *data;
		size_t size;
		gsio_error sub;
		gsio_error_clear(&sub);
		if (gsioi_io_read(c->opts, full, &data, &size, &sub)) {
			GSIO_CHECK(warn(c, "WAD %.300s: %.200s", full, sub.message));
			continue;
		}
		gsio_wad_file *w = gsio_wad_decode(data, size, full, &wo, &sub);
		if (!w) {
			gsioi_io_free(c->opts, data);
			if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
				*c->err = sub;
				return false;
			}
			GSIO_CHECK(warn(c, "WAD %.300s: %.200s: not used", full, sub.message));
			continue;
		}
		c->wad_bytes[c->wads_count] = data;
		c->wads[c->wads_count++] = w;
	}
	return true;
}

/* The placeholder, a grey checker of 8x8 squares, as a PNG file made once
 * for all (tools/placeholder_png.py prints this array; test_wmp decodes it
 * and compares it with the checker): every placeholder of every level
 * points to these 98 bytes as its file_data, and the glTF writer embeds
 * them as they are, once for all the placeholders that share them. With
 * GSIO_OPT_NO_PIXELS that file is the picture: nothing is made, and no PNG
 * is encoded (a level whose textures were all placeholders, as block.wmp
 * and prefab.wmp, ran the deflate encoder for each: 240 bytes a
 * placeholder, and the encoder's state was those conversions' data peak,
 * 64-68 KB over a model without images). */
static const uint8_t placeholder_png[98] = {
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d,
	0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x40,
	0x01, 0x03, 0x00, 0x00, 0x00, 0x90, 0xa7, 0xe3, 0x9d, 0x00, 0x00, 0x00,
	0x06, 0x50, 0x4c, 0x54, 0x45, 0x5a, 0x5a, 0x5a, 0xc8, 0xc8, 0xc8, 0xd7,
	0x41, 0x7a, 0xce, 0x00, 0x00, 0x00, 0x17, 0x49, 0x44, 0x41, 0x54, 0x78,
	0xda, 0x63, 0x60, 0xf8, 0x0f, 0x85, 0x14, 0x32, 0xa8, 0x64, 0x0c, 0xc3,
	0xa8, 0x7b, 0x86, 0x94, 0x7b, 0x00, 0xf3, 0x02, 0xff, 0x01, 0x81, 0x74,
	0xf7, 0x70, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42,
	0x60, 0x82,
};

/* Without GSIO_OPT_NO_PIXELS each placeholder has its RGBA, and the
 * indexed form as a palettised WAD texture has: the checker as indices
 * into two greys, made once in the scene's arena and pointed to by every
 * placeholder of the level (the same picture as placeholder_png). */
static bool checker_shared(sctx *c)
{
	if (c->checker_indices) return true;
	uint8_t *ix = gsioi_arena_alloc_uninit(c->s->arena, (size_t)CHECKER_SIZE * CHECKER_SIZE, c->err);
	uint8_t *pal = gsioi_arena_alloc_uninit(c->s->arena, 8, c->err);
	GSIO_CHECK(ix && pal);
	for (uint32_t y = 0; y < CHECKER_SIZE; y++)
		for (uint32_t x = 0; x < CHECKER_SIZE; x++) ix[y * CHECKER_SIZE + x] = ((x / 8) ^ (y / 8)) & 1;
	static const uint8_t greys[8] = {90, 90, 90, 255, 200, 200, 200, 255};
	memcpy(pal, greys, sizeof(greys));
	c->checker_indices = ix;
	c->checker_palette = pal;
	return true;
}

/* The lumps by name, the first WAD's (with pixels) for a name, as the
 * engine looks them up (case-insensitive). */
static bool index_lumps(sctx *c)
{
	size_t total = 0;
	for (size_t w = 0; w < c->wads_count; w++) total += c->wads[w]->lumps_count;
	gsioi_names_init(&c->lump_index, c->tmp, true);
	if (!total) return true;
	c->lump_refs = gsioi_arena_array(c->tmp, total, sizeof(*c->lump_refs), c->err);
	GSIO_CHECK(c->lump_refs);
	size_t k = 0;
	for (size_t w = 0; w < c->wads_count; w++)
		for (size_t l = 0; l < c->wads[w]->lumps_count; l++) {
			const char *name = c->wads[w]->lumps[l].name;
			if (!c->wads[w]->lumps[l].width || gsioi_names_find(&c->lump_index, name) >= 0) continue;
			c->lump_refs[k][0] = (uint32_t)w, c->lump_refs[k][1] = (uint32_t)l;
			GSIO_CHECK(gsioi_names_add(&c->lump_index, name, (uint32_t)k, c->err));
			k++;
		}
	return true;
}

/* Whether the scene has an image or a material named n: the names it
 * gained since the last call are indexed first. */
static bool name_taken(sctx *c, const char *n, bool *taken)
{
	const gsio_scene *s = c->s;
	for (; c->taken_images < s->images_count; c->taken_images++)
		if (s->images[c->taken_images].name)
			GSIO_CHECK(gsioi_names_add(&c->taken, s->images[c->taken_images].name, 0, c->err));
	for (; c->taken_materials < s->materials_count; c->taken_materials++)
		if (s->materials[c->taken_materials].name)
			GSIO_CHECK(gsioi_names_add(&c->taken, s->materials[c->taken_materials].name, 0, c->err));
	*taken = gsioi_names_find(&c->taken, n) >= 0;
	return true;
}

/* The material for a texture name, created on first use. */
static bool texture_material(sctx *c, const char *name, size_t *slot)
{
	int64_t known = gsioi_names_find(&c->tex_index, name);
	if (known >= 0) return *slot = (size_t)known, true;
	gsio_scene *s = c->s;
	if (c->tex_count == c->tex_cap) {
		size_t cap = c->tex_cap ? 2 * c->tex_cap : 16;
		const char **n = GSIO_NEW_ARRAY(c->tmp, const char *, cap, c->err);
		int32_t *m = GSIO_NEW_ARRAY(c->tmp, int32_t, cap, c->err);
		uint32_t *w = GSIO_NEW_ARRAY(c->tmp, uint32_t, cap, c->err);
		uint32_t *h = GSIO_NEW_ARRAY(c->tmp, uint32_t, cap, c->err);
		GSIO_CHECK(n && m && w && h);
		if (c->tex_count) {
			memcpy(n, c->tex_names, c->tex_count * sizeof(*n));
			memcpy(m, c->tex_material, c->tex_count * sizeof(*m));
			memcpy(w, c->tex_w, c->tex_count * sizeof(*w));
			memcpy(h, c->tex_h, c->tex_count * sizeof(*h));
		}
		c->tex_names = n, c->tex_material = m, c->tex_w = w, c->tex_h = h, c->tex_cap = cap;
	}
	size_t i = c->tex_count;
	char clean[64];
	snprintf(clean, sizeof(clean), "%s", name);
	gsioi_text_sanitize(clean);
	// Names that differ only in bytes the sanitizing replaced, or past its
	// 63 characters, are told apart by the texture's number (image and
	// material names are unique in a scene; fuzz_wmp_a found two
	// "stone?all").
	bool taken;
	GSIO_CHECK(name_taken(c, clean, &taken));
	for (size_t k = i; taken; k += c->tex_cap) {
		char base[41];
		size_t bl = strlen(clean) < 40 ? strlen(clean) : 40;
		memcpy(base, clean, bl);
		base[bl] = 0;
		snprintf(clean, sizeof(clean), "%s~%zu", base, k);
		GSIO_CHECK(name_taken(c, clean, &taken));
	}
	GSIO_CHECK((c->tex_names[i] = gsioi_arena_strdup(c->tmp, name, c->err)));
	GSIO_CHECK(gsioi_names_add(&c->tex_index, c->tex_names[i], (uint32_t)i, c->err));
	// The first WAD holding the name (case-insensitive, as the engine).
	const gsio_wad_file *wad = NULL;
	size_t lump = 0;
	int64_t ref = gsioi_names_find(&c->lump_index, name);
	if (ref >= 0) wad = c->wads[c->lump_refs[ref][0]], lump = c->lump_refs[ref][1];
	gsio_error sub;
	gsio_error_clear(&sub);
	bool usable = wad && gsioi_wad_lump_rgba(wad, lump, c->palette, NULL, &sub);
	uint32_t w = usable ? wad->lumps[lump].width : CHECKER_SIZE;
	uint32_t h = usable ? wad->lumps[lump].height : CHECKER_SIZE;
	const uint8_t *src = NULL, *rgb = NULL;
	gsio_pixel_format fmt = GSIO_PIXEL_RGBA8888;
	if (usable) GSIO_CHECK(gsioi_wad_lump_stored(wad, lump, c->palette, &fmt, &src, &rgb, c->err));
	const uint8_t *indices = fmt == GSIO_PIXEL_PAL8 ? src : NULL;
	int32_t img;
	if (src && gsio_pixel_size(fmt) && c->opts && (c->opts->flags & GSIO_OPT_NO_PIXELS)) {
		// The texture as stored, as MDL skins are kept: 8-bit ones as
		// indices + palette, the others as their raw pixels (2-4 bytes a
		// pixel, copied: the WAD is freed with the level's build), without
		// the RGBA. The glTF writer makes the same PNG of either.
		gsio_image kept = {.name = clean, .width = w, .height = h, .source_type = -1, .source_format = fmt};
		GSIO_CHECK(gsioi_skin_pixels(s->arena, &kept, src, rgb, true, NULL, 0, c->err) == 0);
		img = gsioi_scene_push_image(s, &kept, c->err);
	} else if (!usable && c->opts && (c->opts->flags & GSIO_OPT_NO_PIXELS)) {
		gsio_image ph = {.name = clean, .width = w, .height = h, .source_type = -1,
		                 .source_format = GSIO_PIXEL_RGBA8888};
		img = gsioi_scene_push_image(s, &ph, c->err);
	} else {
		img = gsio_scene_add_image(s, clean, w, h, NULL, c->err);
	}
	GSIO_CHECK(img >= 0);
	gsio_image *im = &s->images[img];
	if (usable) {
		if (im->rgba) {
			GSIO_CHECK(gsioi_wad_lump_rgba(wad, lump, c->palette, im->rgba, c->err));
			if (indices) GSIO_CHECK(gsioi_image_keep_indices(s->arena, im, indices, rgb, c->err));
		}
		uint32_t pt = wad->lumps[lump].pixel_type;
		bool dds = wad->magic[3] == '7' && ((pt & 7) == 6 || (wad->lumps[lump].type & 7) == 6);
		im->source_type = (int32_t)pt;
		// A DDS lump (decoded from DXT) has no gsio pixel format: RGBA8888.
		im->source_format = dds ? GSIO_PIXEL_RGBA8888 : (gsio_pixel_format)(pt & 7);
		im->source_mip_count = !dds && (pt & 8) ? 3 : 0;
	} else {
		im->file_data = placeholder_png;
		im->file_size = sizeof(placeholder_png);
		if (im->rgba) { // without GSIO_OPT_NO_PIXELS: the RGBA and the indices as well
			GSIO_CHECK(checker_shared(c));
			im->indices = c->checker_indices;
			im->palette = c->checker_palette;
			im->palette_count = 2;
			for (size_t k = 0; k < (size_t)CHECKER_SIZE * CHECKER_SIZE; k++)
				memcpy(im->rgba + 4 * k, im->palette + 4 * (size_t)im->indices[k], 4);
		}
		im->source_type = -1;
		if (wad)
			GSIO_CHECK(warn(c, "texture \"%s\": %.200s: a placeholder is used", clean, sub.message));
		else
			GSIO_CHECK(warn(c, "texture \"%s\" is in none of the level's WADs found: a "
			                   "placeholder is used",
			                clean));
		GSIO_CHECK(!gsio_extras_set_int(s, &s->images[img].extras, "gsio:placeholder", 1, c->err));
	}
	int32_t mat = gsio_scene_add_material(s, clean, c->err);
	GSIO_CHECK(mat >= 0);
	s->materials[mat].base_color_texture.image = img;
	c->tex_material[i] = mat;
	c->tex_w[i] = w;
	c->tex_h[i] = h;
	c->tex_count++;
	*slot = i;
	return true;
}

// -- Transforms

/* Rotation Rz(a) Rx(b) Ry(c) as a unit quaternion (x, y, z, w). */
static void quat_zxy(const double ang[3], float q[4])
{
	float qz[4] = {0, 0, (float)sin(ang[0] / 2), (float)cos(ang[0] / 2)};
	float qx[4] = {(float)sin(ang[1] / 2), 0, 0, (float)cos(ang[1] / 2)};
	float qy[4] = {0, (float)sin(ang[2] / 2), 0, (float)cos(ang[2] / 2)};
	float t[4];
	gsioi_quat_mul(qz, qx, t);
	gsioi_quat_mul(t, qy, q);
	gsioi_quat_normalize(q);
}

static float clampf(double v)
{
	if (!isfinite(v)) return 0;
	return v > 1e30 ? 1e30f : v < -1e30 ? -1e30f : (float)v;
}

static void set_trs(gsio_node *n, const gsio_wmp_object *o)
{
	for (int k = 0; k < 3; k++) {
		n->translation[k] = clampf(o->position[k]);
		float s = clampf(o->scale[k]);
		n->scale[k] = s == 0 ? 1e-6f : s; // the scene model forbids zero scales
	}
	double a[3];
	for (int k = 0; k < 3; k++) a[k] = isfinite(o->angles[k]) ? fmod(o->angles[k], 2 * M_PI) : 0;
	quat_zxy(a, n->rotation);
}

// -- Blocks

/* In doubles: positions reach +-1e30 (clamped), whose products overflow
 * floats (a fuzzed level made NaN normals). */
static void fan_normal(const float *p0, const float *p1, const float *p2, double n[3])
{
	double a[3], b[3];
	for (int k = 0; k < 3; k++) a[k] = (double)p1[k] - p0[k], b[k] = (double)p2[k] - p0[k];
	n[0] = a[1] * b[2] - a[2] * b[1];
	n[1] = a[2] * b[0] - a[0] * b[2];
	n[2] = a[0] * b[1] - a[1] * b[0];
}

static bool build_block(sctx *c, const gsio_wmp_block *b, int32_t node, const char *name)
{
	gsio_scene *s = c->s;
	size_t nv = 0, ni = 0;
	for (size_t i = 0; i < b->faces_count; i++) {
		size_t k = b->faces[i].indices_count;
		if (k < 3) continue;
		nv += k;
		ni += 3 * (k - 2);
	}
	if (!ni) return warn(c, "block %u has no face of 3 or more vertices: no mesh", b->index);
	// Face -> surface, and each surface's material slot.
	int32_t *surf = GSIO_NEW_ARRAY(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(surf);
	for (size_t i = 0; i < b->faces_count; i++) surf[i] = -1;
	for (size_t i = 0; i < b->surfaces_count; i++)
		if (b->surfaces[i].face < b->faces_count && surf[b->surfaces[i].face] < 0)
			surf[b->surfaces[i].face] = (int32_t)i;
	int32_t *slot = GSIO_NEW_ARRAY(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(slot);
	for (size_t i = 0; i < b->faces_count; i++) {
		slot[i] = -1;
		if (surf[i] < 0 || !b->surfaces[surf[i]].texture.s || !b->surfaces[surf[i]].texture.s[0])
			continue;
		size_t t;
		GSIO_CHECK(texture_material(c, b->surfaces[surf[i]].texture.s, &t));
		slot[i] = (int32_t)t;
	}
	int32_t mi = gsio_scene_add_mesh(s, name, nv, ni, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, c->err);
	GSIO_CHECK(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	// World matrix of the block's node, for unlocked projection.
	float world[16];
	gsio_node_world_matrix(s, node, world);
	bool locked = (b->flags & GSIO_WMP_BLOCK_LOCKED) != 0;
	// Parts: faces grouped by material slot, in order of first use, each
	// slot's faces in file order. Counted, then placed (a counting sort):
	// a face is visited twice, where a pass over the faces per part made a
	// block of n textures cost n * n, and a part per texture of the level
	// in every block (the level's textures x its blocks) is one per slot
	// the block uses.
	if (c->part_of_slot_cap < c->tex_count) {
		c->part_of_slot = GSIO_NEW_ARRAY_UNINIT(c->tmp, int32_t, c->tex_cap, c->err);
		GSIO_CHECK(c->part_of_slot);
		for (size_t i = 0; i < c->tex_cap; i++) c->part_of_slot[i] = -1;
		c->part_of_slot_cap = c->tex_cap;
	}
	size_t *face_part = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	size_t *part_end = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	int32_t *part_slot = GSIO_NEW_ARRAY_UNINIT(c->tmp, int32_t, b->faces_count, c->err);
	GSIO_CHECK(face_part && part_end && part_slot);
	int32_t untextured = -1; // the part of the faces without a texture
	size_t parts_count = 0;
	for (size_t i = 0; i < b->faces_count; i++) {
		if (b->faces[i].indices_count < 3) continue;
		int32_t *part = slot[i] < 0 ? &untextured : &c->part_of_slot[slot[i]];
		if (*part < 0) {
			*part = (int32_t)parts_count;
			part_slot[parts_count] = slot[i];
			part_end[parts_count++] = 0;
		}
		face_part[i] = (size_t)*part;
		part_end[*part]++;
	}
	for (size_t p = 0, at = 0; p < parts_count; p++) {
		if (part_slot[p] >= 0) c->part_of_slot[part_slot[p]] = -1; // clean for the next block
		size_t n = part_end[p];
		part_end[p] = at; // the part's start, until its faces are placed
		at += n;
	}
	size_t *order = GSIO_NEW_ARRAY_UNINIT(c->tmp, size_t, b->faces_count, c->err);
	GSIO_CHECK(order);
	for (size_t i = 0; i < b->faces_count; i++)
		if (b->faces[i].indices_count >= 3) order[part_end[face_part[i]]++] = i;
	gsio_mesh_part *parts = gsio_scene_alloc(s, parts_count, sizeof(*parts), c->err);
	GSIO_CHECK(parts);
	size_t v = 0, ix = 0;
	for (size_t pi = 0, at = 0; pi < parts_count; pi++) {
		int32_t want = part_slot[pi];
		gsio_mesh_part *part = &parts[pi];
		part->first_index = ix;
		part->material = want < 0 ? -1 : c->tex_material[want];
		for (; at < part_end[pi]; at++) {
			size_t i = order[at];
			const gsio_wmp_face *fa = &b->faces[i];
			size_t k = fa->indices_count, first = v;
			const gsio_wmp_surface *su = surf[i] >= 0 ? &b->surfaces[surf[i]] : NULL;
			double cs = su ? cos(su->angle * M_PI / 180) : 1, sn = su ? sin(su->angle * M_PI / 180) : 0;
			double S[3] = {0, 0, 0}, T[3] = {0, 0, 0};
			double sx = su && su->scale[0] != 0 ? su->scale[0] : 1;
			double sy = su && su->scale[1] != 0 ? su->scale[1] : 1;
			for (int q = 0; q < 3 && su; q++) {
				S[q] = (cs * su->u[q] - sn * su->v[q]) / sx;
				T[q] = (sn * su->u[q] + cs * su->v[q]) / sy;
			}
			double tw = want >= 0 ? c->tex_w[want] : CHECKER_SIZE;
			double th = want >= 0 ? c->tex_h[want] : CHECKER_SIZE;
			// Reversed: the file's clockwise order read backwards.
			for (size_t j = 0; j < k; j++) {
				const double *p = b->vertices + 3 * fa->indices[k - 1 - j];
				float *o = m->positions + 3 * (v + j);
				for (int q = 0; q < 3; q++) o[q] = clampf(p[q]);
				double pp[3] = {p[0], p[1], p[2]};
				if (!locked)
					for (int q = 0; q < 3; q++)
						pp[q] = world[q] * p[0] + world[4 + q] * p[1] + world[8 + q] * p[2] +
						        world[12 + q];
				double sv = su ? S[0] * pp[0] + S[1] * pp[1] + S[2] * pp[2] + su->offset[0] : 0;
				double tv = su ? T[0] * pp[0] + T[1] * pp[1] + T[2] * pp[2] + su->offset[1] : 0;
				m->uvs[2 * (v + j)] = clampf(sv / tw);
				m->uvs[2 * (v + j) + 1] = clampf(tv / th);
			}
			double n[3] = {0, 0, 0};
			for (size_t j = 1; j + 1 < k; j++) {
				double t[3];
				fan_normal(m->positions + 3 * first, m->positions + 3 * (first + j),
				           m->positions + 3 * (first + j + 1), t);
				for (int q = 0; q < 3; q++) n[q] += t[q];
			}
			double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
			bool ok_n = len > 0 && isfinite(len);
			for (size_t j = 0; j < k; j++)
				for (int q = 0; q < 3; q++)
					m->normals[3 * (v + j) + q] = ok_n ? (float)(n[q] / len) : (q == 2 ? 1.0f : 0.0f);
			for (size_t j = 1; j + 1 < k; j++) {
				m->indices[ix++] = (uint32_t)first;
				m->indices[ix++] = (uint32_t)(first + j);
				m->indices[ix++] = (uint32_t)(first + j + 1);
			}
			v += k;
		}
		part->index_count = ix - part->first_index;
	}
	m->parts = parts;
	m->parts_count = parts_count;
	gsioi_bbox3(m->positions, m->vertex_count, m->bbox_min, m->bbox_max);
	s->source.vertices += b->vertices_count;
	s->source.triangles += ni / 3;
	s->nodes[node].mesh = mi;
	gsio_extras *x = &s->nodes[node].extras;
	GSIO_CHECK(!gsio_extras_set_string(s, x, "wmp:element", "block", c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, x, "wmp:block_flags", b->flags, c->err));
	return true;
}

// -- Models

static bool copy_extras(gsio_scene *s, gsio_extras *dst, const gsio_extras *src, gsio_error *err)
{
	dst->items = NULL;
	dst->count = 0;
	for (size_t i = 0; i < src->count; i++) {
		const gsio_extra *e = &src->items[i];
		int rc = e->type == GSIO_EXTRA_INT     ? gsio_extras_set_int(s, dst, e->key, e->i, err)
		         : e->type == GSIO_EXTRA_FLOAT ? gsio_extras_set_float(s, dst, e->key, e->f, err)
		         : e->type == GSIO_EXTRA_STRING
		             ? gsio_extras_set_string(s, dst, e->key, e->s ? e->s : "", err)
		             : gsio_extras_set_floats(s, dst, e->key, e->floats, e->floats_count, err);
		GSIO_CHECK(!rc);
	}
	return true;
}

static void *dup(gsio_scene *s, const void *p, size_t count, size_t size, gsio_error *err, bool *ok)
{
	if (!p || !count) return NULL;
	void *d = gsio_scene_alloc(s, count, size, err);
	if (!d) {
		*ok = false;
		return NULL;
	}
	memcpy(d, p, count * size);
	return d;
}

/* A terrain kept as its grid (GSIO_OPT_GRID) carried into the level: its
 * heights and normals copied, for level mesh `mesh`. NULL when out of memory. */
static const gsio_terrain *copy_grid(gsio_scene *s, const gsio_terrain *g, int32_t mesh,
                                     gsio_error *err)
{
	size_t n = (size_t)g->columns * g->rows; // as the HMP importer made it
	gsio_terrain *t = gsio_scene_alloc(s, 1, sizeof(*t), err);
	if (!t) return NULL;
	bool ok = true;
	*t = *g;
	t->mesh = mesh;
	t->raw_heights = dup(s, g->raw_heights, n, sizeof(uint16_t), err, &ok);
	t->normal_indices = dup(s, g->normal_indices, n, 1, err, &ok);
	t->normal_xy = dup(s, g->normal_xy, n, 2, err, &ok);
	return ok ? t : NULL;
}

/* Copies the model's images, materials and meshes into the level (once per
 * model file); names get the model's file name in front, which keeps them
 * unique. A skinned mesh keeps its weights; its skin is set per instance by
 * place_model. */
static bool graft_model(sctx *c, model_entry *me, const char *file)
{
	gsio_scene *s = c->s, *ms = me->ms;
	me->image_base = (int32_t)s->images_count;
	me->material_base = (int32_t)s->materials_count;
	me->mesh_base = (int32_t)s->meshes_count;
	char nm[400];
	bool ok = true;
	for (size_t i = 0; i < ms->images_count; i++) {
		const gsio_image *im = &ms->images[i];
		snprintf(nm, sizeof(nm), "%s/%s", file, im->name ? im->name : "image");
		int32_t k;
		if (!im->rgba && (im->file_data || im->stored || im->indices)) {
			// Undecoded (GSIO_OPT_NO_PIXELS): a PNG/JPEG/DDS file, stored
			// skin pixels or palette indices, copied below.
			gsio_image ref;
			memset(&ref, 0, sizeof(ref));
			ref.name = nm;
			ref.width = im->width;
			ref.height = im->height;
			k = gsioi_scene_push_image(s, &ref, c->err);
		} else {
			k = gsio_scene_add_image(s, nm, im->rgba ? im->width : 0, im->rgba ? im->height : 0,
			                         im->rgba ? NULL : (im->uri ? im->uri : "missing"), c->err);
		}
		GSIO_CHECK(k >= 0);
		gsio_image *d = &s->images[k];
		if (im->rgba) memcpy(d->rgba, im->rgba, (size_t)im->width * im->height * 4);
		if (im->stored) { // skin pixels as the model stores them
			size_t bytes = (size_t)im->width * im->height * gsio_pixel_size(im->source_format);
			uint8_t *st = gsioi_arena_alloc_uninit(s->arena, bytes, c->err);
			GSIO_CHECK(st);
			memcpy(st, im->stored, bytes);
			d->stored = st;
		}
		if (im->indices) { // the indexed form (an 8-bit skin; the only form undecoded)
			size_t texels = (size_t)im->width * im->height;
			GSIO_CHECK((d->indices = gsioi_arena_alloc_uninit(s->arena, texels, c->err)));
			GSIO_CHECK((d->palette = gsioi_arena_array_uninit(s->arena, im->palette_count, 4, c->err)));
			memcpy(d->indices, im->indices, texels);
			memcpy(d->palette, im->palette, (size_t)im->palette_count * 4);
			d->palette_count = im->palette_count;
		}
		if (im->file_data) { // the PNG/JPEG/DDS file it came from
			uint8_t *fd = gsioi_arena_alloc_uninit(s->arena, im->file_size, c->err);
			GSIO_CHECK(fd);
			memcpy(fd, im->file_data, im->file_size);
			d->file_data = fd;
			d->file_size = im->file_size;
		}
		d->source_type = im->source_type;
		d->source_format = im->source_format;
		d->source_mip_count = im->source_mip_count;
		GSIO_CHECK(copy_extras(s, &d->extras, &im->extras, c->err));
	}
	for (size_t i = 0; i < ms->materials_count; i++) {
		const gsio_material *mt = &ms->materials[i];
		snprintf(nm, sizeof(nm), "%s/%s", file, mt->name ? mt->name : "material");
		int32_t k = gsio_scene_add_material(s, nm, c->err);
		GSIO_CHECK(k >= 0);
		gsio_material *d = &s->materials[k];
		const char *keep = d->name;
		*d = *mt;
		d->name = keep;
		if (d->base_color_texture.image >= 0) d->base_color_texture.image += me->image_base;
		if (d->detail_texture.image >= 0) d->detail_texture.image += me->image_base;
		if (mt->shader) GSIO_CHECK((d->shader = gsio_scene_strdup(s, mt->shader, c->err)));
		GSIO_CHECK(copy_extras(s, &d->extras, &mt->extras, c->err));
	}
	for (size_t i = 0; i < ms->meshes_count; i++) {
		const gsio_mesh *sm = &ms->meshes[i];
		snprintf(nm, sizeof(nm), "%s/%s", file, sm->name ? sm->name : "mesh");
		int32_t k = gsio_scene_add_mesh(s, nm, 0, 0, 0, -1, c->err);
		GSIO_CHECK(k >= 0);
		gsio_mesh *d = &s->meshes[k];
		const char *keep = d->name;
		*d = *sm;
		d->name = keep;
		size_t n = sm->vertex_count;
		d->positions = dup(s, sm->positions, n, 3 * sizeof(float), c->err, &ok);
		d->normals = dup(s, sm->normals, n, 3 * sizeof(float), c->err, &ok);
		d->uvs = dup(s, sm->uvs, n, 2 * sizeof(float), c->err, &ok);
		d->indices = dup(s, sm->indices, sm->index_count, sizeof(uint32_t), c->err, &ok);
		d->source_vertex = dup(s, sm->source_vertex, n, sizeof(uint32_t), c->err, &ok);
		d->source_uv = dup(s, sm->source_uv, n, sizeof(uint32_t), c->err, &ok);
		d->parts = dup(s, sm->parts, sm->parts_count, sizeof(gsio_mesh_part), c->err, &ok);
		GSIO_CHECK(ok);
		for (size_t p = 0; p < d->parts_count; p++)
			if (d->parts[p].material >= 0) d->parts[p].material += me->material_base;
		d->frames = dup(s, sm->frames, sm->frames_count, sizeof(gsio_morph_frame), c->err, &ok);
		GSIO_CHECK(ok);
		// Packed frames (an MDL's) point into the model's scene: copied too.
		d->packed = dup(s, sm->packed, sm->packed ? 1 : 0, sizeof(gsio_packed_format), c->err, &ok);
		GSIO_CHECK(ok);
		for (size_t fr = 0; fr < d->frames_count; fr++) {
			gsio_morph_frame *mf = &d->frames[fr];
			bool base = mf->positions == sm->positions; // frame 0 shares the mesh's floats
			mf->positions = base ? d->positions : dup(s, mf->positions, n, 3 * sizeof(float), c->err, &ok);
			mf->normals = base && mf->normals == sm->normals
			                  ? d->normals
			                  : dup(s, mf->normals, n, 3 * sizeof(float), c->err, &ok);
			mf->packed = dup(s, mf->packed, mf->packed ? mf->packed_size : 0, 1, c->err, &ok);
			if (mf->name) GSIO_CHECK((mf->name = gsio_scene_strdup(s, mf->name, c->err)));
			GSIO_CHECK(ok);
		}
		if (sm->skin >= 0 && (size_t)sm->skin < ms->skins_count) {
			// The weights are shared by every instance; the skin is the
			// instance's own (place_model sets it).
			d->weights.offsets = dup(s, sm->weights.offsets, n + 1, sizeof(uint32_t), c->err, &ok);
			d->weights.joints = dup(s, sm->weights.joints, sm->weights.count, sizeof(uint32_t), c->err, &ok);
			d->weights.values = dup(s, sm->weights.values, sm->weights.count, sizeof(float), c->err, &ok);
			GSIO_CHECK(ok);
			d->skin = -1;
		} else {
			d->skin = -1;
			memset(&d->weights, 0, sizeof(d->weights));
		}
		GSIO_CHECK(copy_extras(s, &d->extras, &sm->extras, c->err));
		if (sm->grid) GSIO_CHECK((d->grid = copy_grid(s, sm->grid, k, c->err)));
	}
	return true;
}

/* The model entry for a file name, loading it on first use. */
static bool model_for(sctx *c, const char *stored, model_entry **out)
{
	const char *base = base_of(stored);
	char key[256];
	snprintf(key, sizeof(key), "%s", base ? base : "");
	for (char *p = key; *p; p++)
		if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
	for (size_t i = 0; i < c->models_count; i++)
		if (!strcmp(c->models[i].key, key)) return *out = &c->models[i], true;
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, c->models, c->models_count, c->models_cap, c->err));
	model_entry *me = &c->models[c->models_count++];
	memset(me, 0, sizeof(*me));
	GSIO_CHECK((me->key = gsioi_arena_strdup(c->tmp, key, c->err)));
	*out = me;
	char clean[256];
	snprintf(clean, sizeof(clean), "%s", stored);
	gsioi_text_sanitize(clean);
	char ext[16];
	gsioi_path_ext(key, ext, sizeof(ext));
	bool is_model = !strcmp(ext, "mdl") || !strcmp(ext, "hmp");
	char full[1024];
	bool found;
	GSIO_CHECK(find_file(c, is_model ? "model" : "entity", stored, full, sizeof(full), &found));
	if (!is_model)
		return warn(c, "entity file \"%s\": only models (.mdl, .hmp) are placed: an empty node",
		            clean);
	if (!found)
		return warn(c, "model \"%s\" not found beside the level or in the search folders: an "
		               "empty node",
		            clean);
	gsio_error sub;
	gsio_error_clear(&sub);
	me->ms = gsio_load_file(full, &c->sub_opts, &sub);
	if (!me->ms) {
		if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
			*c->err = sub;
			return false;
		}
		return warn(c, "model %s: %.200s: an empty node", clean, sub.message);
	}
	for (size_t i = 0; i < me->ms->warnings_count; i++)
		GSIO_CHECK(warn(c, "model %s: %.300s", clean, me->ms->warnings[i]));
	return graft_model(c, me, clean);
}

/* Places the model under `node`: a copy of its node tree.
 *
 * Skinned models: each instance gets its own joint nodes (the copy of the
 * model's skeleton under the entity node, so the entity's transform and the
 * clips move them) and its own skin over them. The scene model names the
 * skin on the mesh, so the second and later instances of a skinned mesh are
 * mesh records sharing the first one's arrays (the glTF writer writes such
 * meshes once and gives each node its skin). glTF ignores the transform of
 * a skinned mesh's node and warns when it is not a root: the skinned mesh
 * node is a scene root with the identity transform, named after the entity
 * node, the entity's name in its extras ("wmp:entity"); the joints place it. */
static bool place_model(sctx *c, model_entry *me, int32_t node)
{
	gsio_scene *s = c->s, *ms = me->ms;
	int32_t *map = GSIO_NEW_ARRAY(c->tmp, int32_t, ms->nodes_count, c->err);
	GSIO_CHECK(map);
	const char *entity = s->nodes[node].name ? s->nodes[node].name : "entity";
	// The entity's own name (object names are cut shorter and repeat).
	const gsio_extra *en = gsio_extras_get(&s->nodes[node].extras, "wmp:name");
	const char *entity_name = en && en->type == GSIO_EXTRA_STRING && en->s ? en->s : entity;
	for (size_t i = 0; i < ms->nodes_count; i++) {
		const gsio_node *sn = &ms->nodes[i];
		bool skinned = sn->mesh >= 0 && (size_t)sn->mesh < ms->meshes_count &&
		               ms->meshes[sn->mesh].skin >= 0 && ms->meshes[sn->mesh].weights.count;
		for (size_t j = i + 1; j < ms->nodes_count && skinned; j++)
			if (ms->nodes[j].parent == (int32_t)i) skinned = false; // children need its place
		char nm[400];
		if (skinned) snprintf(nm, sizeof(nm), "%s/%s", entity, sn->name ? sn->name : "mesh");
		int32_t parent = skinned ? -1 : sn->parent >= 0 ? map[sn->parent] : node;
		int32_t k = gsio_scene_add_node(s, skinned ? nm : sn->name, parent, c->err);
		GSIO_CHECK(k >= 0);
		gsio_node *d = &s->nodes[k];
		if (!skinned) {
			memcpy(d->translation, sn->translation, sizeof(d->translation));
			memcpy(d->rotation, sn->rotation, sizeof(d->rotation));
			memcpy(d->scale, sn->scale, sizeof(d->scale));
		} else {
			GSIO_CHECK(!gsio_extras_set_string(s, &d->extras, "wmp:entity", entity_name, c->err));
		}
		d->mesh = sn->mesh >= 0 ? sn->mesh + me->mesh_base : -1;
		map[i] = k;
	}
	// The instance's skins: the model's, over this instance's joint nodes.
	int32_t skin_base = (int32_t)s->skins_count;
	for (size_t k = 0; k < ms->skins_count; k++) {
		const gsio_skin *sk = &ms->skins[k];
		char nm[400];
		snprintf(nm, sizeof(nm), "%s/%s", entity, sk->name ? sk->name : "skeleton");
		int32_t d = gsio_scene_add_skin(s, nm, sk->joints_count, c->err);
		GSIO_CHECK(d >= 0);
		gsio_skin *ds = &s->skins[d];
		for (size_t j = 0; j < sk->joints_count; j++)
			ds->joints[j] = sk->joints[j] >= 0 && (size_t)sk->joints[j] < ms->nodes_count ? map[sk->joints[j]] : -1;
		if (sk->joints_count) memcpy(ds->inverse_bind, sk->inverse_bind, sk->joints_count * 16 * sizeof(float));
		ds->skeleton = sk->skeleton >= 0 && (size_t)sk->skeleton < ms->nodes_count ? map[sk->skeleton] : -1;
	}
	for (size_t i = 0; i < ms->nodes_count; i++) {
		int32_t mm = ms->nodes[i].mesh;
		if (mm < 0 || (size_t)mm >= ms->meshes_count || ms->meshes[mm].skin < 0 ||
		    !ms->meshes[mm].weights.count)
			continue;
		int32_t mesh = mm + me->mesh_base, skin = skin_base + ms->meshes[mm].skin;
		if (s->meshes[mesh].skin >= 0) { // a later instance: a record sharing the arrays
			char nm[400];
			snprintf(nm, sizeof(nm), "%s@%s", s->meshes[mesh].name, entity);
			int32_t k = gsio_scene_add_mesh(s, nm, 0, 0, 0, -1, c->err);
			GSIO_CHECK(k >= 0);
			gsio_mesh *d = &s->meshes[k];
			const char *keep = d->name;
			*d = s->meshes[mesh];
			d->name = keep;
			GSIO_CHECK(copy_extras(s, &d->extras, &s->meshes[mesh].extras, c->err));
			mesh = k;
		}
		s->meshes[mesh].skin = skin;
		s->nodes[map[i]].mesh = mesh;
	}
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, me->instances, me->instances_count, me->instances_cap, c->err));
	me->instances[me->instances_count++] = map;
	return true;
}

/* One animation per model clip, with the clip's channels on every placed
 * instance. */
static bool model_animations(sctx *c)
{
	gsio_scene *s = c->s;
	for (size_t m = 0; m < c->models_count; m++) {
		model_entry *me = &c->models[m];
		if (!me->ms || !me->instances_count) continue;
		for (size_t a = 0; a < me->ms->animations_count; a++) {
			const gsio_animation *sa = &me->ms->animations[a];
			size_t n;
			if (!gsioi_mul_size(sa->channels_count, me->instances_count, &n)) n = SIZE_MAX;
			char nm[400];
			snprintf(nm, sizeof(nm), "%s/%s", me->key, sa->name ? sa->name : "anim");
			int32_t k = gsio_scene_add_animation(s, nm, sa->fps, sa->frames_count, n, c->err);
			GSIO_CHECK(k >= 0);
			gsio_animation *d = &s->animations[k];
			size_t ci = 0;
			for (size_t in = 0; in < me->instances_count; in++)
				for (size_t ch = 0; ch < sa->channels_count; ch++) {
					const gsio_channel *sc = &sa->channels[ch];
					gsio_channel *dc = &d->channels[ci++];
					dc->node = sc->node >= 0 && (size_t)sc->node < me->ms->nodes_count
					               ? me->instances[in][sc->node]
					               : -1;
					dc->path = sc->path;
					size_t width = sc->path == GSIO_PATH_ROTATION ? 4
					               : sc->path == GSIO_PATH_FOV ? 1
					               : sc->path == GSIO_PATH_MORPH
					                   ? me->ms->meshes[me->ms->nodes[sc->node].mesh].frames_count
					                   : 3;
					bool ok = true;
					if (sc->values)
						dc->values = dup(s, sc->values, sa->frames_count * width, sizeof(float),
						                 c->err, &ok);
					if (sc->frames)
						dc->frames = dup(s, sc->frames, sa->frames_count, sizeof(uint32_t), c->err,
						                 &ok);
					GSIO_CHECK(ok);
				}
		}
	}
	return true;
}

// -- Sprites

static bool sprite_quad(sctx *c, int32_t node, const char *nm, int32_t mat, uint32_t width,
                        uint32_t height);

static bool build_sprite(sctx *c, const char *stored, int32_t node)
{
	gsio_scene *s = c->s;
	char clean[256];
	snprintf(clean, sizeof(clean), "%s", stored);
	gsioi_text_sanitize(clean);
	char full[1024];
	bool found;
	GSIO_CHECK(find_file(c, "sprite", stored, full, sizeof(full), &found));
	if (!found) return warn(c, "sprite \"%s\" not found: an empty node", clean);
	char nm[300];
	snprintf(nm, sizeof(nm), "sprite/%s", clean);
	// A file placed again is read and decoded once: a level of 1 000
	// placements of one poster took 260 MB, a decoded copy each.
	int64_t known = gsioi_names_find(&c->sprite_index, full);
	if (known >= 0) {
		const struct sprite_entry *e = &c->sprites[known];
		return sprite_quad(c, node, nm, e->material, e->width, e->height);
	}
	uint8_t *data;
	size_t size;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (gsioi_io_read(c->opts, full, &data, &size, &sub))
		return warn(c, "sprite %s: %.200s: an empty node", clean, sub.message);
	gsio_image im;
	memset(&im, 0, sizeof(im));
	bool ok = gsioi_image_file_load(data, size, full, c->opts, s->arena, &im, &sub);
	gsioi_io_free(c->opts, data);
	if (!ok) {
		if (sub.code == GSIO_ERR_NOMEM || sub.code == GSIO_ERR_LIMIT) {
			*c->err = sub;
			return false;
		}
		return warn(c, "sprite %s: %.200s: an empty node", clean, sub.message);
	}
	int32_t img = -1;
	for (size_t i = 0; i < s->images_count; i++)
		if (!strcmp(s->images[i].name, nm)) img = (int32_t)i;
	int32_t mat = -1;
	if (img < 0) {
		// Decoded into the scene's arena already: taken as it is, with the
		// PNG/JPEG file it came from (or only that, GSIO_OPT_NO_PIXELS).
		im.name = nm;
		im.source_type = -1;
		im.source_format = GSIO_PIXEL_RGBA8888;
		img = gsioi_scene_push_image(s, &im, c->err);
		GSIO_CHECK(img >= 0);
		mat = gsio_scene_add_material(s, nm, c->err);
		GSIO_CHECK(mat >= 0);
		gsio_material *mt = &s->materials[mat];
		mt->base_color_texture.image = img;
		mt->double_sided = true;
		mt->alpha_mode = GSIO_ALPHA_MASK;
	} else {
		for (size_t i = 0; i < s->materials_count; i++)
			if (!strcmp(s->materials[i].name, nm)) mat = (int32_t)i;
	}
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, c->sprites, c->sprites_count, c->sprites_cap, c->err));
	struct sprite_entry *e = &c->sprites[c->sprites_count];
	e->image = img, e->material = mat, e->width = im.width, e->height = im.height;
	const char *key = gsioi_arena_strdup(c->tmp, full, c->err);
	GSIO_CHECK(key && gsioi_names_add(&c->sprite_index, key, (uint32_t)c->sprites_count, c->err));
	c->sprites_count++;
	return sprite_quad(c, node, nm, mat, im.width, im.height);
}

/* The textured quad of a sprite of width x height pixels, at the node. */
static bool sprite_quad(sctx *c, int32_t node, const char *nm, int32_t mat, uint32_t width,
                        uint32_t height)
{
	gsio_scene *s = c->s;
	int32_t mi = gsio_scene_add_mesh(s, nm, 4, 6, GSIO_MESH_NORMALS | GSIO_MESH_UVS, mat, c->err);
	GSIO_CHECK(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	float hw = (float)width / 2, hh = (float)height / 2;
	// YZ plane facing +X: y left-right (+y is the viewer's left), z up.
	const float pos[12] = {0, hw, hh, 0, -hw, hh, 0, -hw, -hh, 0, hw, -hh};
	const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
	const uint32_t idx[6] = {0, 2, 1, 0, 3, 2};
	memcpy(m->positions, pos, sizeof(pos));
	memcpy(m->uvs, uv, sizeof(uv));
	memcpy(m->indices, idx, sizeof(idx));
	for (int v = 0; v < 4; v++) m->normals[3 * v] = 1;
	gsioi_bbox3(m->positions, 4, m->bbox_min, m->bbox_max);
	s->nodes[node].mesh = mi;
	return true;
}

// -- Elements

static bool set_str(sctx *c, gsio_extras *x, const char *key, const gsio_wmp_string *v)
{
	if (!v->s) return true;
	char *t = gsioi_arena_strdup(c->tmp, v->s, c->err);
	GSIO_CHECK(t);
	gsioi_text_sanitize(t);
	return gsio_extras_set_string(c->s, x, key, t, c->err) == 0;
}

static bool set_floats(sctx *c, gsio_extras *x, const char *key, const double *v, size_t n)
{
	float *f = GSIO_NEW_ARRAY(c->tmp, float, n ? n : 1, c->err);
	GSIO_CHECK(f);
	for (size_t i = 0; i < n; i++) f[i] = clampf(v[i]);
	return gsio_extras_set_floats(c->s, x, key, f, n, c->err) == 0;
}

#define X (&c->s->nodes[node].extras)

static bool build_level(sctx *c, const gsio_wmp_level *lv, int32_t node)
{
	gsio_scene *s = c->s;
	gsio_extras *sx = &s->extras;
	double k = c->binary ? 255.0 : 100.0; // binary colours 0..255, text percent
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:sun_azimuth", clampf(lv->azimuth), c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:sun_elevation", clampf(lv->elevation), c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:nexus", clampf(lv->nexus), c->err));
	double rgb[18];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++) rgb[3 * i + j] = lv->fog[i][j] / k;
	GSIO_CHECK(set_floats(c, sx, "wmp:fog_colors", rgb, 12));
	for (int j = 0; j < 3; j++) rgb[j] = lv->sun[j] / k, rgb[3 + j] = lv->ambient[j] / k;
	GSIO_CHECK(set_floats(c, sx, "wmp:sun_color", rgb, 3));
	GSIO_CHECK(set_floats(c, sx, "wmp:ambient_color", rgb + 3, 3));
	GSIO_CHECK(set_str(c, sx, "wmp:script", &lv->script));
	GSIO_CHECK(set_str(c, sx, "wmp:palette", &lv->palette));
	// Looked for (gsio info lists them), not read: the palette that counts
	// is the one stored in the level.
	const gsio_wmp_string *named[2] = {&lv->script, &lv->palette};
	for (int i = 0; i < 2; i++)
		if (named[i]->s && named[i]->s[0]) {
			char full[1024];
			bool found;
			GSIO_CHECK(find_file(c, i ? "palette" : "script", named[i]->s, full, sizeof(full), &found));
		}
	// The sun: a directional light shining from azimuth (counter-clockwise
	// from east = +X) and elevation (above the horizon) toward the level.
	int32_t sun = gsio_scene_add_node(s, "sun", node, c->err);
	GSIO_CHECK(sun >= 0);
	double az = lv->azimuth * M_PI / 180, el = lv->elevation * M_PI / 180;
	double ang_z = isfinite(az) ? fmod(az + M_PI, 2 * M_PI) : 0, ang_y = isfinite(el) ? fmod(el, 2 * M_PI) : 0;
	float qz[4] = {0, 0, (float)sin(ang_z / 2), (float)cos(ang_z / 2)};
	float qy[4] = {0, (float)sin(ang_y / 2), 0, (float)cos(ang_y / 2)};
	gsioi_quat_mul(qz, qy, s->nodes[sun].rotation);
	gsioi_quat_normalize(s->nodes[sun].rotation);
	int32_t li = gsio_scene_add_light(s, "sun", GSIO_LIGHT_DIRECTIONAL, c->err);
	GSIO_CHECK(li >= 0);
	for (int j = 0; j < 3; j++) {
		float v = clampf(lv->sun[j] / k);
		s->lights[li].color[j] = v < 0 ? 0 : v > 1 ? 1 : v;
	}
	s->lights[li].intensity = 1;
	s->nodes[sun].light = li;
	return gsio_extras_set_string(s, &s->nodes[node].extras, "wmp:element", "level", c->err) == 0;
}

static bool build_entity(sctx *c, const gsio_wmp_entity *e, int32_t node)
{
	gsio_scene *s = c->s;
	GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", e->type == 0x100 ? "sprite" : "model", c->err));
	GSIO_CHECK(set_str(c, X, "wmp:name", &e->name));
	GSIO_CHECK(set_str(c, X, "wmp:file", &e->file));
	GSIO_CHECK(set_str(c, X, "wmp:action", &e->action));
	GSIO_CHECK(set_str(c, X, "wmp:material", &e->material));
	GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:flags", e->flags, c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:type", e->type, c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, X, "wmp:ambient", clampf(e->ambient), c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, X, "wmp:albedo", clampf(e->albedo), c->err));
	if (e->skills_count) GSIO_CHECK(set_floats(c, X, "wmp:skills", e->skills, e->skills_count));
	const char *file = gsioi_wmp_str(&e->file);
	char ext[16];
	gsioi_path_ext(gsioi_path_base(file), ext, sizeof(ext));
	if (!strcmp(ext, "tga") || !strcmp(ext, "bmp") || !strcmp(ext, "pcx") || !strcmp(ext, "png") ||
	    !strcmp(ext, "jpg") || !strcmp(ext, "dds"))
		return build_sprite(c, file, node);
	model_entry *me;
	GSIO_CHECK(model_for(c, file, &me));
	return me->ms ? place_model(c, me, node) : true;
}

static bool build_element(sctx *c, gsio_wmp_ref r, int32_t node)
{
	const gsio_wmp_file *f = c->f;
	gsio_scene *s = c->s;
	char name[64];
	switch (r.kind) {
	case GSIO_WMP_BLOCK:
		snprintf(name, sizeof(name), "block_%u", r.index);
		return build_block(c, &f->blocks[r.index], node, name);
	case GSIO_WMP_LEVEL: return build_level(c, &f->levels[r.index], node);
	case GSIO_WMP_ENTITY: return build_entity(c, &f->entities[r.index], node);
	case GSIO_WMP_LIGHT: {
		const gsio_wmp_light *l = &f->lights[r.index];
		snprintf(name, sizeof(name), "light_%u", r.index);
		int32_t li = gsio_scene_add_light(s, name, GSIO_LIGHT_POINT, c->err);
		GSIO_CHECK(li >= 0);
		double k = c->binary ? 255.0 : 100.0;
		for (int j = 0; j < 3; j++) {
			float v = clampf(l->color[j] / k);
			s->lights[li].color[j] = v < 0 ? 0 : v > 1 ? 1 : v;
		}
		float range = clampf(l->range);
		s->lights[li].range = range > 0 ? range : 0;
		// GameStudio has no physical unit: the light gives 1 lux at half
		// its range (in quants) - a choice, kept with the raw values.
		s->lights[li].intensity = range > 0 ? range * range / 4 : 1;
		s->nodes[node].light = li;
		GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", "light", c->err));
		GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:light_flags", l->flags, c->err));
		return set_floats(c, X, "wmp:light_color", l->color, 3);
	}
	case GSIO_WMP_START: {
		const gsio_wmp_start *st = &f->starts[r.index];
		GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", "start", c->err));
		return set_str(c, X, "wmp:name", &st->name);
	}
	case GSIO_WMP_SOUND: {
		const gsio_wmp_sound *so = &f->sounds[r.index];
		GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", "sound", c->err));
		GSIO_CHECK(set_str(c, X, "wmp:file", &so->file));
		if (so->file.s && so->file.s[0]) { // looked for (gsio info lists it), not read
			char full[1024];
			bool found;
			GSIO_CHECK(find_file(c, "sound", so->file.s, full, sizeof(full), &found));
		}
		GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:volume", so->head[2], c->err));
		GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:range", so->head[5], c->err));
		double raw[6];
		for (int i = 0; i < 6; i++) raw[i] = so->head[i];
		return set_floats(c, X, "wmp:raw", raw, 6);
	}
	case GSIO_WMP_PATH: {
		const gsio_wmp_path *p = &f->paths[r.index];
		GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", "path", c->err));
		GSIO_CHECK(set_str(c, X, "wmp:name", &p->name));
		GSIO_CHECK(set_floats(c, X, "wmp:nodes", p->nodes, 3 * p->nodes_count));
		if (p->has_skills)
			GSIO_CHECK(set_floats(c, X, "wmp:node_skills", p->skills,
			                      p->nodes_count * p->skills_per_node));
		double *e = GSIO_NEW_ARRAY(c->tmp, double, 6 * p->edges_count + 1, c->err);
		GSIO_CHECK(e);
		for (size_t i = 0; i < p->edges_count; i++) {
			e[6 * i] = p->edges[i].from;
			e[6 * i + 1] = p->edges[i].to;
			for (int j = 0; j < 4; j++) e[6 * i + 2 + j] = p->edges[i].values[j];
		}
		return set_floats(c, X, "wmp:edges", e, 6 * p->edges_count);
	}
	case GSIO_WMP_REGION: {
		const gsio_wmp_region *g = &f->regions[r.index];
		GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", "region", c->err));
		GSIO_CHECK(set_str(c, X, "wmp:name", &g->name));
		return set_floats(c, X, "wmp:bounds", g->bounds, 6);
	}
	default: return true;
	}
}
#undef X

// -- The object tree

static bool build_object(sctx *c, size_t idx, int32_t parent, unsigned depth)
{
	const gsio_wmp_file *f = c->f;
	gsio_scene *s = c->s;
	if (c->node_of[idx] >= 0)
		return warn(c, "object %zu is placed twice (the object tree has a cycle or a shared "
		               "child): placed once",
		            idx);
	if (depth > GSIO_WMP_MAX_DEPTH) {
		GSIO_FAIL(c->err, GSIO_ERR_LIMIT, c->path, -1, "objects nest deeper than %u",
		          GSIO_WMP_MAX_DEPTH);
		return false;
	}
	const gsio_wmp_object *o = &f->objects[idx];
	char name[256];
	if (idx == 0) {
		const char *b = c->path ? gsioi_path_base(c->path) : "";
		snprintf(name, sizeof(name), "%s", *b ? b : "level");
	} else if (o->name.s && o->name.s[0]) {
		snprintf(name, sizeof(name), "%s", o->name.s);
	} else {
		const char *kind = "object";
		for (size_t i = 0; i < o->refs_count; i++)
			if (o->refs[i].kind != GSIO_WMP_OBJECT) {
				static const char *const k[] = {"object", "level", "block", "start", "light",
				                                "entity", "sound", "path", "region"};
				kind = k[o->refs[i].kind];
				break;
			}
		snprintf(name, sizeof(name), "%s_%zu", kind, idx);
	}
	gsioi_text_sanitize(name);
	int32_t node = gsio_scene_add_node(s, name, parent, c->err);
	GSIO_CHECK(node >= 0);
	c->node_of[idx] = node;
	set_trs(&s->nodes[node], o);
	bool first = true;
	for (size_t i = 0; i < o->refs_count; i++) {
		gsio_wmp_ref r = o->refs[i];
		if (r.kind == GSIO_WMP_OBJECT) continue;
		int32_t at = node;
		if (!first) { // a second element on one object: its own child node
			at = gsio_scene_add_node(s, name, node, c->err);
			GSIO_CHECK(at >= 0);
		}
		first = false;
		GSIO_CHECK(build_element(c, r, at));
	}
	for (size_t i = 0; i < o->refs_count; i++)
		if (o->refs[i].kind == GSIO_WMP_OBJECT)
			GSIO_CHECK(build_object(c, o->refs[i].index, node, depth + 1));
	return true;
}

gsio_scene *gsio_wmp_to_scene(const gsio_wmp_file *f, const char *path, const gsio_opts *opts,
                              gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!f || !f->objects_count) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "gsio_wmp_to_scene needs a level with objects");
		return NULL;
	}
	sctx c;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.opts = opts;
	c.path = path;
	c.err = err;
	c.binary = f->dialect == GSIO_WMP_BINARY;
	if (opts) c.sub_opts = *opts;
	c.s = gsio_scene_new(opts, err);
	if (!c.s) return NULL;
	c.s->format = f->dialect == GSIO_WMP_BINARY ? "WMPB" : "WMP";
	c.s->format_version = f->dialect == GSIO_WMP_TEXT_A ? 4 : (int32_t)f->version;
	c.tmp = gsioi_arena_for(opts, "WMP scratch", err);
	bool ok = c.tmp != NULL;
	if (ok) {
		// Folders: the level's, then the search folders in order.
		size_t dir = path ? (size_t)(gsioi_path_base(path) - path) : 0;
		char *d = gsioi_arena_strndup(c.tmp, path ? path : "", dir, err);
		ok = d && add_folder(&c, d);
		for (size_t i = 0; ok && opts && i < opts->search_paths_count; i++)
			if (opts->search_paths[i]) ok = add_folder(&c, opts->search_paths[i]);
	}
	// Models get the level's options; their own palette comes from the level.
	if (ok && f->has_palette) {
		memcpy(c.palette_buf, f->palette, 768);
		c.palette = c.palette_buf;
		if (!(opts && (opts->palette || opts->palette_path))) c.sub_opts.palette = c.palette_buf;
	}
	if (ok && opts && opts->palette) c.palette = opts->palette;
	ok = ok && load_wads(&c) && index_lumps(&c);
	gsioi_names_init(&c.tex_index, c.tmp, true);
	gsioi_names_init(&c.taken, c.tmp, false);
	gsioi_names_init(&c.sprite_index, c.tmp, false);
	// A node an object and one more for each element after its first
	// (build_object), and the sun's under each level element (build_level);
	// a mesh a block: known before the first is added, so the scene's
	// arrays are made at that size once instead of doubled into it (the
	// doubling's earlier arrays stay in the arena). Only a placed model's
	// own nodes are added past it.
	size_t nodes = 0;
	for (size_t i = 0; i < f->objects_count; i++) {
		size_t elements = 0, suns = 0;
		for (size_t k = 0; k < f->objects[i].refs_count; k++) {
			elements += f->objects[i].refs[k].kind != GSIO_WMP_OBJECT;
			suns += f->objects[i].refs[k].kind == GSIO_WMP_LEVEL;
		}
		nodes += (elements > 1 ? elements : 1) + suns;
	}
	ok = ok && gsioi_scene_reserve(c.s, nodes, f->blocks_count, err);
	if (ok) {
		c.node_of = GSIO_NEW_ARRAY(c.tmp, int32_t, f->objects_count, err);
		ok = c.node_of != NULL;
		for (size_t i = 0; ok && i < f->objects_count; i++) c.node_of[i] = -1;
	}
	ok = ok && build_object(&c, 0, -1, 0) && model_animations(&c);
	for (size_t i = 0; ok && i < f->objects_count; i++)
		if (c.node_of[i] < 0) ok = warn(&c, "object %zu is not in the object tree: left out", i);
	// A skinned model mesh no model node placed has no skin: plain mesh.
	for (size_t i = 0; ok && i < c.s->meshes_count; i++)
		if (c.s->meshes[i].skin < 0) memset(&c.s->meshes[i].weights, 0, sizeof(gsio_weights));
	for (size_t i = 0; i < c.models_count; i++) gsio_scene_free(c.models[i].ms);
	for (size_t i = 0; i < c.wads_count; i++) {
		gsio_wad_file_free(c.wads[i]);
		gsioi_io_free(c.opts, c.wad_bytes[i]);
	}
	if (c.tmp) free_folders(&c);
	gsioi_arena_destroy(c.tmp);
	if (!ok) {
		if (path && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
		gsio_scene_free(c.s);
		return NULL;
	}
	return c.s;
}
