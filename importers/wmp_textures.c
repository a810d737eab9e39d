/* WAD textures -> images and materials, for the level's blocks
 * (wmp_blocks.c) and the level -> scene conversion (wmp_scene.c).
 *
 * - Textures from the WADs the level names (WAD7, WAD2, WAD3), 8-bit ones
 *   through the level palette, DDS ones (WAD7 type 6) decoded from DXT1/3/5
 *   (wad.c); a texture no WAD holds is a warning and a grey checker of 64x64.
 * - A texture name is looked up case-insensitively, as the engine does, in
 *   the first WAD that holds it; one image and one material per name, made
 *   on first use. */
#include "wmp_internal.h"

#include <stdio.h>

// -- Textures

bool gsioi_wmp_load_wads(wmp_sctx *c)
{
	const gsio_wmp_file *f = c->f;
	c->wads = GSIO_NEW_ARRAY(c->tmp, gsio_wad_file *, f->wads_count + 1, c->err);
	c->wad_bytes = GSIO_NEW_ARRAY(c->tmp, uint8_t *, f->wads_count + 1, c->err);
	GSIO_CHECK(c->wads && c->wad_bytes);
	// The level's own textures (a compiled level's) come before any WAD's.
	if (c->embedded) c->wads[c->wads_count++] = c->embedded;
	// The lumps point into the bytes read (kept until the WADs are freed):
	// a copy held the WAD twice at the peak (menue.wmp: 436 KB more).
	gsio_opts wo = c->opts ? *c->opts : (gsio_opts){0};
	wo.flags |= GSIO_OPT_BORROW;
	for (size_t i = 0; i < f->wads_count; i++) {
		const char *stored = gsioi_wmp_str(&f->wads[i].path);
		gsioi_found r;
		GSIO_CHECK(gsioi_wmp_find_file(c, "wad", stored, &r));
		if (!r.found) {
			GSIO_CHECK(
			    gsioi_wmp_warn_missing(c, "WAD", stored, &r, "its textures are placeholders"));
			continue;
		}
		const char *full = r.path;
		uint8_t *data;
		size_t size;
		gsio_error sub;
		gsio_error_clear(&sub);
		if (gsioi_io_read(c->opts, full, &data, &size, &sub)) {
			GSIO_CHECK(gsioi_wmp_warn(c, "WAD %.300s: %.200s", full, sub.message));
			continue;
		}
		gsio_wad_file *w = gsio_wad_decode(data, size, full, &wo, &sub);
		if (!w) {
			gsioi_io_free(c->opts, data);
			if (gsioi_wmp_fatal(c, &sub)) return false;
			GSIO_CHECK(gsioi_wmp_warn(c, "WAD %.300s: %.200s: not used", full, sub.message));
			continue;
		}
		c->wad_bytes[c->wads_count] = data;
		c->wads[c->wads_count++] = w;
	}
	return true;
}

/* The placeholder, a grey checker of 8x8 squares, as a PNG file made once
 * for all (tools/placeholder_png.py prints this array; test_wmp_scene
 * decodes it and compares it with the checker): every placeholder of every
 * level points to these 98 bytes as its file_data, and the glTF writer
 * embeds them as they are, once for all the placeholders that share them.
 * With GSIO_OPT_NO_PIXELS that file is the picture: nothing is made, and no
 * PNG is encoded (a level whose textures were all placeholders, as block.wmp
 * and prefab.wmp, ran the deflate encoder for each: 240 bytes a placeholder,
 * and the encoder's state was those conversions' data peak, 64-68 KB over a
 * model without images). */
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
static bool checker_shared(wmp_sctx *c)
{
	if (c->checker_indices) return true;
	uint8_t *ix = gsioi_arena_alloc_uninit(c->s->arena, (size_t)WMP_CHECKER_SIZE * WMP_CHECKER_SIZE,
	                                       c->err);
	uint8_t *pal = gsioi_arena_alloc_uninit(c->s->arena, 8, c->err);
	GSIO_CHECK(ix && pal);
	for (uint32_t y = 0; y < WMP_CHECKER_SIZE; y++)
		for (uint32_t x = 0; x < WMP_CHECKER_SIZE; x++)
			ix[y * WMP_CHECKER_SIZE + x] = ((x / 8) ^ (y / 8)) & 1;
	static const uint8_t greys[8] = {90, 90, 90, 255, 200, 200, 200, 255};
	memcpy(pal, greys, sizeof(greys));
	c->checker_indices = ix;
	c->checker_palette = pal;
	return true;
}

/* The lumps by name, the first WAD's (with pixels) for a name, as the
 * engine looks them up (case-insensitive). */
bool gsioi_wmp_index_lumps(wmp_sctx *c)
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
static bool name_taken(wmp_sctx *c, const char *n, bool *taken)
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
bool gsioi_wmp_texture_material(wmp_sctx *c, const char *name, size_t *slot)
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
	gsioi_text_utf8(clean, sizeof(clean), name, 63);
	// Names that differ only in control characters (made '?'), or past
	// their 63 bytes of UTF-8, are told apart by the texture's number
	// (image and material names are unique in a scene; fuzz_wmp_a found two
	// "stone?all").
	bool taken;
	GSIO_CHECK(name_taken(c, clean, &taken));
	for (size_t k = i; taken; k += c->tex_cap) {
		char base[41];
		size_t bl = strlen(clean) < 40 ? strlen(clean) : 40;
		while (bl && ((unsigned char)clean[bl] & 0xC0) == 0x80) bl--; // a whole character
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
	uint32_t w = usable ? wad->lumps[lump].width : WMP_CHECKER_SIZE;
	uint32_t h = usable ? wad->lumps[lump].height : WMP_CHECKER_SIZE;
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
			for (size_t k = 0; k < (size_t)WMP_CHECKER_SIZE * WMP_CHECKER_SIZE; k++)
				memcpy(im->rgba + 4 * k, im->palette + 4 * (size_t)im->indices[k], 4);
		}
		im->source_type = -1;
		if (wad)
			GSIO_CHECK(gsioi_wmp_warn(c, "texture \"%s\": %.200s: a placeholder is used", clean,
			                          sub.message));
		else
			GSIO_CHECK(gsioi_wmp_warn(c, "texture \"%s\" is in none of the level's WADs found: a "
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
