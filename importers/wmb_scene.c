/* WMB level -> scene (docs/FORMATS.md §12.10): the same level scene as a
 * WMP's, through the WMP level code (wmp_scene.c and the files it uses).
 *
 * - The objects become a WMP element model: the INFO the level element
 *   (sun, ambient, fog), positions starts, lights, entities old and new,
 *   sounds, paths, regions, each on an object of its own under the root,
 *   at its origin with its scale; the WMP code places models (the one file
 *   search rule, instancing), sprites, lights and extras as for a WMP. The
 *   rotation is the stored degrees', R = Rz(pan) Ry(-tilt) Rx(roll),
 *   set on the node afterwards (a WMP's radians compose otherwise).
 * - The embedded textures are a WAD of the level's own, looked up by name
 *   before any other (wmp_textures.c decodes every stored type through the
 *   level's palette).
 * - Geometry: a WMB7 block is a mesh of its triangles (winding reversed,
 *   flat normals, texture UVs as stored, one part per texture); WMB6's
 *   polygons are one mesh, each polygon fanned, its UVs from its texture
 *   projection. */
#include "gsioi_dds.h"
#include "gsioi_math.h"
#include "wmb_internal.h"
#include "wmp_internal.h"

#include <stdarg.h>
#include <stdio.h>

typedef struct wmb_conv {
	const gsio_wmb_file *f;
	gsio_wmp_file w;          /**< the objects as WMP elements */
	uint32_t *wmp_object_of;  /**< WMB object -> WMP object (0: none) */
	gsio_wad_file wad;        /**< the embedded textures as WAD7 lumps */
	size_t *slot_of_texture;  /**< texture index -> WMP texture slot */
	bool *slot_known;
	bool named_once;
	int32_t *page_image;      /**< lightmap page -> image, -1 until made */
	struct lit { int32_t base, page, material; } *lit; /**< lightmapped materials */
	size_t lit_count, lit_cap;
	struct baked {            /**< GSIO_OPT_BAKE_LIGHTMAPS: texture x page images */
		uint32_t texture, page;
		int32_t material;
		uint8_t *rgba;        /**< side * BAKE_SCALE texels a side */
	} *baked;
	size_t baked_count, baked_cap;
	uint8_t **tex_rgba;       /**< texture index -> its pixels (for baking), NULL until needed */
} wmb_conv;

/** Texels of a baked image per lightmap texel, each way. */
#define BAKE_SCALE 4u

// -- Objects -> WMP elements

static gsio_wmp_string str_of(gsio_arena *a, const char *s, gsio_error *err)
{
	gsio_wmp_string r = {gsioi_arena_strdup(a, s, err), NULL, 0};
	return r;
}

static void rgb_of(uint32_t c, double out[3])
{
	out[0] = (c >> 16) & 0xFF, out[1] = (c >> 8) & 0xFF, out[2] = c & 0xFF;
}

/* One WMP object (and element) for WMB object i; false when out of memory. */
static bool add_element(wmb_conv *v, gsio_arena *a, const gsio_wmb_object *o, gsio_wmp_ref *ref,
                        gsio_error *err)
{
	gsio_wmp_file *w = &v->w;
	switch (o->type) {
	case GSIO_WMB_POSITION: {
		gsio_wmp_start *e = &w->starts[w->starts_count];
		e->head[0] = 1;
		e->name = str_of(a, o->name, err);
		GSIO_CHECK(e->name.s);
		*ref = (gsio_wmp_ref){GSIO_WMP_START, (uint32_t)w->starts_count++};
		return true;
	}
	case GSIO_WMB_LIGHT: {
		gsio_wmp_light *e = &w->lights[w->lights_count];
		e->head = 2;
		e->flags = o->flags;
		for (int k = 0; k < 3; k++) e->color[k] = o->color[k] * 255.0 / 100.0; // percent -> 0..255
		e->range = o->range;
		*ref = (gsio_wmp_ref){GSIO_WMP_LIGHT, (uint32_t)w->lights_count++};
		return true;
	}
	case GSIO_WMB_OLD_ENTITY:
	case GSIO_WMB_ENTITY: {
		gsio_wmp_entity *e = &w->entities[w->entities_count];
		e->head = 3;
		e->flags = o->flags;
		char ext[16];
		gsioi_path_ext(gsioi_path_base(o->file), ext, sizeof(ext));
		bool sprite = !strcmp(ext, "tga") || !strcmp(ext, "bmp") || !strcmp(ext, "pcx") ||
		              !strcmp(ext, "png") || !strcmp(ext, "jpg") || !strcmp(ext, "dds");
		e->type = sprite ? 0x100 : 0x200;
		e->ambient = o->ambient;
		e->albedo = o->albedo;
		e->name = str_of(a, o->name, err);
		e->file = str_of(a, o->file, err);
		e->action = str_of(a, o->action, err);
		char mat[34] = {0};
		if (o->type == GSIO_WMB_ENTITY) memcpy(mat, o->material, 33);
		e->material = str_of(a, mat, err);
		e->skills = GSIO_NEW_ARRAY(a, double, o->skills_count, err);
		GSIO_CHECK(e->name.s && e->file.s && e->action.s && e->material.s && e->skills);
		for (uint32_t k = 0; k < o->skills_count; k++) e->skills[k] = o->skills[k];
		e->skills_count = o->skills_count;
		e->has_skills = true;
		*ref = (gsio_wmp_ref){GSIO_WMP_ENTITY, (uint32_t)w->entities_count++};
		return true;
	}
	case GSIO_WMB_SOUND: {
		gsio_wmp_sound *e = &w->sounds[w->sounds_count];
		float vol = o->volume;
		uint32_t h[6] = {4, 0, vol >= 0 && vol < 4e9f ? (uint32_t)vol : 0, 0, 1, o->sound_range};
		memcpy(e->head, h, sizeof(h));
		e->file = str_of(a, o->file, err);
		GSIO_CHECK(e->file.s);
		*ref = (gsio_wmp_ref){GSIO_WMP_SOUND, (uint32_t)w->sounds_count++};
		return true;
	}
	case GSIO_WMB_PATH: {
		gsio_wmp_path *e = &w->paths[w->paths_count];
		e->name = str_of(a, o->name, err);
		uint32_t n = o->path_nodes_n;
		e->nodes = GSIO_NEW_ARRAY(a, double, 3 * (size_t)n, err);
		e->skills = GSIO_NEW_ARRAY(a, double, 6 * (size_t)n, err);
		e->edges = GSIO_NEW_ARRAY(a, gsio_wmp_edge, o->path_edges_count, err);
		GSIO_CHECK(e->name.s && e->nodes && e->skills && e->edges);
		for (size_t k = 0; k < 3 * (size_t)n; k++) e->nodes[k] = o->path_nodes[k];
		for (size_t k = 0; k < 6 * (size_t)n; k++) e->skills[k] = o->path_skills[k];
		e->nodes_count = n;
		e->skills_per_node = 6;
		e->has_skills = e->has_edges = true;
		for (uint32_t k = 0; k < o->path_edges_count; k++) {
			const gsio_wmb_path_edge *pe = &o->path_edges[k];
			// 1-based node numbers as floats; one outside the path reads as 0.
			float n1 = pe->node1 - 1, n2 = pe->node2 - 1;
			e->edges[k].from = n1 >= 0 && n1 < (float)n ? (uint32_t)n1 : 0;
			e->edges[k].to = n2 >= 0 && n2 < (float)n ? (uint32_t)n2 : 0;
			double vals[4] = {pe->length, pe->bezier, pe->weight, pe->skill};
			memcpy(e->edges[k].values, vals, sizeof(vals));
		}
		e->edges_count = o->path_edges_count;
		*ref = (gsio_wmp_ref){GSIO_WMP_PATH, (uint32_t)w->paths_count++};
		return true;
	}
	case GSIO_WMB_REGION: {
		gsio_wmp_region *e = &w->regions[w->regions_count];
		for (int k = 0; k < 6; k++) e->bounds[k] = o->bounds[k];
		e->name = str_of(a, o->name, err);
		GSIO_CHECK(e->name.s);
		*ref = (gsio_wmp_ref){GSIO_WMP_REGION, (uint32_t)w->regions_count++};
		return true;
	}
	default: ref->kind = GSIO_WMP_OBJECT; return true; // INFO and unknown types: no element
	}
}

static bool make_elements(wmb_conv *v, gsio_arena *a, gsio_error *err)
{
	const gsio_wmb_file *f = v->f;
	gsio_wmp_file *w = &v->w;
	size_t n = f->objects_count;
	w->arena = a;
	w->dialect = GSIO_WMP_BINARY; // colours 0..255
	w->version = 710;
	w->levels = GSIO_NEW_ARRAY(a, gsio_wmp_level, 1, err);
	w->starts = GSIO_NEW_ARRAY(a, gsio_wmp_start, n, err);
	w->lights = GSIO_NEW_ARRAY(a, gsio_wmp_light, n, err);
	w->entities = GSIO_NEW_ARRAY(a, gsio_wmp_entity, n, err);
	w->sounds = GSIO_NEW_ARRAY(a, gsio_wmp_sound, n, err);
	w->paths = GSIO_NEW_ARRAY(a, gsio_wmp_path, n, err);
	w->regions = GSIO_NEW_ARRAY(a, gsio_wmp_region, n, err);
	w->objects = GSIO_NEW_ARRAY(a, gsio_wmp_object, n + 1, err);
	v->wmp_object_of = GSIO_NEW_ARRAY(a, uint32_t, n, err);
	gsio_wmp_ref *root_refs = GSIO_NEW_ARRAY(a, gsio_wmp_ref, n + 1, err);
	gsio_wmp_ref *refs = GSIO_NEW_ARRAY(a, gsio_wmp_ref, n, err);
	GSIO_CHECK(w->levels && w->starts && w->lights && w->entities && w->sounds && w->paths &&
	           w->regions && w->objects && v->wmp_object_of && root_refs && refs);
	if (f->has_palette) {
		memcpy(w->palette, f->palette, 768);
		w->has_palette = true;
	}
	gsio_wmp_object *root = &w->objects[0];
	for (int k = 0; k < 3; k++) root->scale[k] = 1;
	root->refs = root_refs;
	w->objects_count = 1;
	if (f->info) {
		gsio_wmp_level *lv = &w->levels[0];
		const gsio_wmb_info *in = f->info;
		lv->azimuth = in->azimuth;
		lv->elevation = in->elevation;
		if (in->colors_count >= 6) { // WMB7: sun, ambient, fog 1-4
			rgb_of(in->colors[0], lv->sun);
			rgb_of(in->colors[1], lv->ambient);
			for (int k = 0; k < 4; k++) rgb_of(in->colors[2 + k], lv->fog[k]);
		}
		w->levels_count = 1;
		root_refs[root->refs_count++] = (gsio_wmp_ref){GSIO_WMP_LEVEL, 0};
	}
	for (size_t i = 0; i < n; i++) {
		const gsio_wmb_object *o = &f->objects[i];
		gsio_wmp_ref ref;
		GSIO_CHECK(add_element(v, a, o, &ref, err));
		if (ref.kind == GSIO_WMP_OBJECT) continue;
		uint32_t j = (uint32_t)w->objects_count++;
		gsio_wmp_object *wo = &w->objects[j];
		const float *pos = o->type == GSIO_WMB_LIGHT || o->type == GSIO_WMB_SOUND ||
		                           o->type == GSIO_WMB_POSITION || o->type == GSIO_WMB_OLD_ENTITY ||
		                           o->type == GSIO_WMB_ENTITY
		                       ? o->origin
		                       : NULL;
		for (int k = 0; k < 3; k++) {
			wo->position[k] = pos ? pos[k] : 0;
			wo->scale[k] = o->scale[k];
		}
		if (o->name[0] && o->type != GSIO_WMB_LIGHT) {
			wo->name = str_of(a, o->name, err);
			GSIO_CHECK(wo->name.s);
		}
		refs[i] = ref;
		wo->refs = &refs[i];
		wo->refs_count = 1;
		v->wmp_object_of[i] = j;
		root_refs[root->refs_count++] = (gsio_wmp_ref){GSIO_WMP_OBJECT, j};
	}
	return true;
}

// -- Textures

/* The embedded textures as WAD7 lumps (the record is a WAD7 lump). */
static bool make_wad(wmb_conv *v, gsio_arena *a, const char *name, gsio_error *err)
{
	const gsio_wmb_file *f = v->f;
	gsio_wad_file *w = &v->wad;
	memcpy(w->magic, "WAD7", 5);
	w->arena = a;
	w->lumps = GSIO_NEW_ARRAY(a, gsio_wad_lump, f->textures_count, err);
	GSIO_CHECK(w->lumps);
	w->lumps_count = f->textures_count;
	if (f->has_palette) w->palette = f->palette;
	for (uint32_t i = 0; i < f->textures_count; i++) {
		const gsio_wmb_texture *t = &f->textures[i];
		gsio_wad_lump *l = &w->lumps[i];
		memcpy(l->name, t->name, 17);
		l->type = 0;
		l->width = l->stored_width = t->width;
		l->height = l->stored_height = t->height;
		l->pixel_type = t->format | (t->type & 8);
		l->data = t->record;
		l->size = t->record_size;
		if (t->format == 6 && t->record_size >= 44) {
			gsioi_dds_info info;
			gsio_error ignored;
			gsio_error_clear(&ignored);
			if (gsioi_dds_parse(t->record + 40, t->record_size - 40, name, 0, &info, &ignored))
				l->width = info.width, l->height = info.height;
		}
	}
	return true;
}

/* The WMP texture slot (material, size) of texture index t; false when out
 * of memory; *ok false when the index names no texture (a warning). */
static bool slot_of(wmp_sctx *c, wmb_conv *v, uint32_t t, size_t *slot, bool *ok)
{
	*ok = t < v->f->textures_count;
	if (!*ok) {
		if (v->named_once) return true;
		v->named_once = true;
		return gsioi_wmp_warn(c, "a surface names texture %u of %u: drawn without one", t,
		                      v->f->textures_count);
	}
	if (!v->slot_known[t]) {
		const char *n = v->f->textures[t].name;
		GSIO_CHECK(gsioi_wmp_texture_material(c, *n ? n : "unnamed", &v->slot_of_texture[t]));
		v->slot_known[t] = true;
	}
	*slot = v->slot_of_texture[t];
	return true;
}

// -- Lightmaps

/* Page p's image (made on first use): side x side texels stored B,G,R. */
static bool page_image(wmp_sctx *c, wmb_conv *v, uint32_t p, int32_t *img)
{
	if (v->page_image[p] >= 0) return *img = v->page_image[p], true;
	const gsio_wmb_file *f = v->f;
	char name[32];
	snprintf(name, sizeof(name), "lightmap_%u", p);
	gsio_image im = {.name = name, .width = f->lightmap_side, .height = f->lightmap_side,
	                 .source_type = -1, .source_format = GSIO_PIXEL_BGR888};
	const uint8_t *src = f->lightmaps + (size_t)p * 3 * f->lightmap_side * f->lightmap_side;
	bool no_pixels = c->opts && (c->opts->flags & GSIO_OPT_NO_PIXELS);
	GSIO_CHECK(gsioi_skin_pixels(c->s->arena, &im, src, NULL, no_pixels, NULL, 0, c->err) == 0);
	*img = v->page_image[p] = gsioi_scene_push_image(c->s, &im, c->err);
	return *img >= 0;
}

/* The material of base material `base` lit by page p: a copy with the
 * page as its lightmap, made on first use. */
static bool lit_material(wmp_sctx *c, wmb_conv *v, int32_t base, uint32_t p, int32_t *mat)
{
	for (size_t i = 0; i < v->lit_count; i++)
		if (v->lit[i].base == base && v->lit[i].page == (int32_t)p) return *mat = v->lit[i].material, true;
	int32_t img;
	GSIO_CHECK(page_image(c, v, p, &img));
	gsio_scene *s = c->s;
	char name[300];
	snprintf(name, sizeof(name), "%s+lightmap_%u", base >= 0 ? s->materials[base].name : "untextured", p);
	int32_t m = gsio_scene_add_material(s, name, c->err);
	GSIO_CHECK(m >= 0);
	if (base >= 0) {
		const char *kept = s->materials[m].name;
		s->materials[m] = s->materials[base];
		s->materials[m].name = kept;
		memset(&s->materials[m].extras, 0, sizeof(gsio_extras));
	}
	s->materials[m].lightmap_texture.image = img;
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, v->lit, v->lit_count, v->lit_cap, c->err));
	v->lit[v->lit_count++] = (struct lit){base, (int32_t)p, m};
	*mat = m;
	return true;
}

// -- Baking: texture x lightmap into one image in the page's coordinates

/* Texture t's RGBA (decoded once), or NULL when it has none usable. */
static bool texture_rgba(wmp_sctx *c, wmb_conv *v, uint32_t t, const uint8_t **out)
{
	*out = NULL;
	if (t >= v->f->textures_count) return true;
	if (!v->tex_rgba[t]) {
		const gsio_wad_lump *l = &v->wad.lumps[t];
		gsio_error sub;
		gsio_error_clear(&sub);
		if (!gsioi_wad_lump_rgba(&v->wad, t, c->palette, NULL, &sub)) return true; // a warning elsewhere
		v->tex_rgba[t] = GSIO_NEW_ARRAY_UNINIT(c->tmp, uint8_t, (size_t)l->width * l->height * 4, c->err);
		GSIO_CHECK(v->tex_rgba[t] && gsioi_wad_lump_rgba(&v->wad, t, c->palette, v->tex_rgba[t], c->err));
	}
	*out = v->tex_rgba[t];
	return true;
}

/* The baked material of texture t (textures_count: none) lit by page p. */
static bool baked_material(wmp_sctx *c, wmb_conv *v, uint32_t t, uint32_t p, struct baked **out)
{
	for (size_t i = 0; i < v->baked_count; i++)
		if (v->baked[i].texture == t && v->baked[i].page == p) return *out = &v->baked[i], true;
	gsio_scene *s = c->s;
	uint32_t side = v->f->lightmap_side * BAKE_SCALE;
	char name[96], clean[64];
	gsioi_text_utf8(clean, sizeof(clean), t < v->f->textures_count ? v->f->textures[t].name : "untextured", 16);
	snprintf(name, sizeof(name), "%s*lightmap_%u", clean, p);
	int32_t img = gsio_scene_add_image(s, name, side, side, NULL, c->err);
	GSIO_CHECK(img >= 0);
	int32_t m = gsio_scene_add_material(s, name, c->err);
	GSIO_CHECK(m >= 0);
	s->materials[m].base_color_texture.image = img;
	s->materials[m].base_color_texture.wrap_u = s->materials[m].base_color_texture.wrap_v = GSIO_WRAP_CLAMP;
	GSIO_CHECK(!gsio_extras_set_int(s, &s->materials[m].extras, "wmb:baked_lightmap", p, c->err));
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, v->baked, v->baked_count, v->baked_cap, c->err));
	struct baked *b = &v->baked[v->baked_count++];
	*b = (struct baked){t, p, m, s->images[img].rgba};
	return *out = b, true;
}

/* Paints triangle (corners c0..c2 of block k) into its baked image: each
 * texel inside it (or within a texel of it, against seams) gets the
 * texture's colour at the interpolated texture UV times the page's at the
 * interpolated lightmap UV. */
static bool bake_triangle(wmp_sctx *c, wmb_conv *v, const gsio_wmb_block *k, const uint16_t cn[3],
                          struct baked *b)
{
	const gsio_wmb_file *f = v->f;
	uint32_t side = f->lightmap_side * BAKE_SCALE, ls = f->lightmap_side;
	const uint8_t *tex;
	GSIO_CHECK(texture_rgba(c, v, b->texture, &tex));
	uint32_t tw = tex ? v->wad.lumps[b->texture].width : 1, th = tex ? v->wad.lumps[b->texture].height : 1;
	const uint8_t *page = f->lightmaps + (size_t)b->page * 3 * ls * ls;
	double px[3], py[3];
	for (int q = 0; q < 3; q++) {
		const float *lm = k->vertices[cn[q]].lm;
		px[q] = isfinite(lm[0]) ? (double)lm[0] * side : 0;
		py[q] = isfinite(lm[1]) ? (double)lm[1] * side : 0;
	}
	double area = (px[1] - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (py[1] - py[0]);
	if (!(fabs(area) > 1e-9)) return true;
	double x0 = fmin(px[0], fmin(px[1], px[2])) - 1, x1 = fmax(px[0], fmax(px[1], px[2])) + 1;
	double y0 = fmin(py[0], fmin(py[1], py[2])) - 1, y1 = fmax(py[0], fmax(py[1], py[2])) + 1;
	int32_t xa = x0 < 0 ? 0 : (int32_t)x0, ya = y0 < 0 ? 0 : (int32_t)y0;
	int32_t xb = x1 > side - 1 ? (int32_t)side - 1 : (int32_t)x1, yb = y1 > side - 1 ? (int32_t)side - 1 : (int32_t)y1;
	double grow = 1.5 * sqrt(fabs(area)) / fabs(area); // about a texel in barycentric units
	for (int32_t y = ya; y <= yb; y++)
		for (int32_t x = xa; x <= xb; x++) {
			double cx = x + 0.5, cy = y + 0.5, l[3];
			l[1] = ((cx - px[0]) * (py[2] - py[0]) - (px[2] - px[0]) * (cy - py[0])) / area;
			l[2] = ((px[1] - px[0]) * (cy - py[0]) - (cx - px[0]) * (py[1] - py[0])) / area;
			l[0] = 1 - l[1] - l[2];
			if (l[0] < -grow || l[1] < -grow || l[2] < -grow) continue;
			double u = 0, w = 0, lu = 0, lv = 0;
			for (int q = 0; q < 3; q++) {
				const gsio_wmb_vertex *vx = &k->vertices[cn[q]];
				u += l[q] * vx->uv[0], w += l[q] * vx->uv[1];
				lu += l[q] * vx->lm[0], lv += l[q] * vx->lm[1];
			}
			uint8_t *o = b->rgba + 4 * ((size_t)y * side + (size_t)x);
			if (o[3] && (l[0] < 0 || l[1] < 0 || l[2] < 0)) continue; // a neighbour's own texel
			double tu = isfinite(u) ? u - floor(u) : 0, tv = isfinite(w) ? w - floor(w) : 0;
			const uint8_t *t = tex ? tex + 4 * ((size_t)(tv * th) % th * tw + (size_t)(tu * tw) % tw) : NULL;
			double mx = isfinite(lu) ? fmin(fmax(lu * ls, 0), ls - 1) : 0, my = isfinite(lv) ? fmin(fmax(lv * ls, 0), ls - 1) : 0;
			const uint8_t *m = page + 3 * ((size_t)my * ls + (size_t)mx);
			for (int ch = 0; ch < 3; ch++) {
				unsigned a = t ? t[ch] : 255, lmv = m[2 - ch]; // the page is B,G,R
				o[ch] = (uint8_t)(a * lmv / 255);
			}
			o[3] = t ? t[3] : 255;
		}
	return true;
}

// -- Geometry

/* Flat outward normal of a counter-clockwise triangle, into n[0..8]. */
static void flat_normal(const float *p0, const float *p1, const float *p2, float *n)
{
	double a[3], b[3], m[3];
	for (int k = 0; k < 3; k++) a[k] = (double)p1[k] - p0[k], b[k] = (double)p2[k] - p0[k];
	m[0] = a[1] * b[2] - a[2] * b[1];
	m[1] = a[2] * b[0] - a[0] * b[2];
	m[2] = a[0] * b[1] - a[1] * b[0];
	double len = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
	bool ok = len > 0 && isfinite(len);
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < 3; k++) n[3 * c + k] = ok ? (float)(m[k] / len) : k == 2 ? 1.0f : 0.0f;
}

/* Parts of a mesh whose triangles carry material slots tri_part[t] (-1 none):
 * the triangles ordered by part in order of first use; order[] gets the
 * triangle order, and the mesh its parts. */
static bool order_parts(wmp_sctx *c, gsio_mesh *m, const int32_t *mat_of_tri, size_t nt,
                        size_t *order)
{
	size_t parts_count = 0;
	int32_t *mats = GSIO_NEW_ARRAY(c->tmp, int32_t, nt + 1, c->err);
	size_t *counts = GSIO_NEW_ARRAY(c->tmp, size_t, nt + 1, c->err);
	size_t *part_of = GSIO_NEW_ARRAY(c->tmp, size_t, nt + 1, c->err);
	GSIO_CHECK(mats && counts && part_of);
	for (size_t t = 0; t < nt; t++) {
		size_t p = 0;
		while (p < parts_count && mats[p] != mat_of_tri[t]) p++; // few parts a mesh
		if (p == parts_count) mats[parts_count++] = mat_of_tri[t];
		counts[p]++;
		part_of[t] = p;
	}
	gsio_mesh_part *parts = gsio_scene_alloc(c->s, parts_count ? parts_count : 1, sizeof(*parts), c->err);
	GSIO_CHECK(parts);
	size_t at = 0;
	for (size_t p = 0; p < parts_count; p++) {
		parts[p] = (gsio_mesh_part){3 * at, 3 * counts[p], mats[p]};
		size_t n = counts[p];
		counts[p] = at;
		at += n;
	}
	for (size_t t = 0; t < nt; t++) order[counts[part_of[t]]++] = t;
	m->parts = parts;
	m->parts_count = parts_count;
	return true;
}

/* A built mesh's bounds, source counts and node under parent. */
static bool place_mesh(wmp_sctx *c, int32_t mi, const char *name, int32_t parent, size_t vertices,
                       size_t triangles, int32_t *node)
{
	gsio_scene *s = c->s;
	gsio_mesh *m = &s->meshes[mi];
	gsioi_bbox3(m->positions, m->vertex_count, m->bbox_min, m->bbox_max);
	s->source.vertices += vertices;
	s->source.triangles += triangles;
	*node = gsio_scene_add_node(s, name, parent, c->err);
	GSIO_CHECK(*node >= 0);
	s->nodes[*node].mesh = mi;
	return gsio_extras_set_string(s, &s->nodes[*node].extras, "wmp:element", "block", c->err) == 0;
}

static bool build_block(wmp_sctx *c, wmb_conv *v, uint32_t b, int32_t parent)
{
	const gsio_wmb_block *k = &v->f->blocks[b];
	gsio_scene *s = c->s;
	char name[48];
	snprintf(name, sizeof(name), "block_%u", b);
	if (!k->triangles_count) return gsioi_wmp_warn(c, "block %u has no triangles: no mesh", b);
	size_t nt = k->triangles_count;
	int32_t *mat = GSIO_NEW_ARRAY(c->tmp, int32_t, nt, c->err);
	size_t *order = GSIO_NEW_ARRAY(c->tmp, size_t, nt, c->err);
	float *tw = GSIO_NEW_ARRAY(c->tmp, float, nt, c->err);
	GSIO_CHECK(mat && order && tw);
	bool lit = false, bake = c->opts && (c->opts->flags & GSIO_OPT_BAKE_LIGHTMAPS);
	struct baked **bk = GSIO_NEW_ARRAY(c->tmp, struct baked *, nt, c->err);
	GSIO_CHECK(bk);
	for (size_t t = 0; t < nt; t++) {
		const gsio_wmb_skin *sk = &k->skins[k->triangles[t].skin];
		size_t slot = 0;
		bool ok;
		GSIO_CHECK(slot_of(c, v, sk->texture, &slot, &ok));
		mat[t] = ok ? c->tex_material[slot] : -1;
		// Page 0 is the unlit surfaces' dummy.
		if (sk->lightmap > 0 && sk->lightmap < v->f->lightmaps_count && bake) {
			GSIO_CHECK(baked_material(c, v, ok ? sk->texture : v->f->textures_count, sk->lightmap, &bk[t]));
			mat[t] = bk[t]->material;
		} else if (sk->lightmap > 0 && sk->lightmap < v->f->lightmaps_count) {
			GSIO_CHECK(lit_material(c, v, mat[t], sk->lightmap, &mat[t]));
			lit = true;
		}
	}
	int32_t mi = gsio_scene_add_mesh(s, name, 3 * nt, 3 * nt, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, c->err);
	GSIO_CHECK(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	if (lit) {
		m->lightmap_uvs = gsio_scene_alloc(s, 3 * nt, 2 * sizeof(float), c->err);
		GSIO_CHECK(m->lightmap_uvs);
	}
	GSIO_CHECK(order_parts(c, m, mat, nt, order));
	for (size_t i = 0; i < nt; i++) {
		const gsio_wmb_triangle *t = &k->triangles[order[i]];
		// Clockwise in the file: read backwards.
		const uint16_t corner[3] = {t->v[0], t->v[2], t->v[1]};
		struct baked *into = bk[order[i]];
		if (into) GSIO_CHECK(bake_triangle(c, v, k, corner, into));
		for (int q = 0; q < 3; q++) {
			const gsio_wmb_vertex *wv = &k->vertices[corner[q]];
			size_t o = 3 * i + (size_t)q;
			for (int j = 0; j < 3; j++) m->positions[3 * o + j] = gsioi_wmp_clampf(wv->pos[j]);
			const float *uv = into ? wv->lm : wv->uv; // a baked image lies in the page's coordinates
			m->uvs[2 * o] = gsioi_wmp_clampf(uv[0]);
			m->uvs[2 * o + 1] = gsioi_wmp_clampf(uv[1]);
			if (lit) {
				m->lightmap_uvs[2 * o] = gsioi_wmp_clampf(wv->lm[0]);
				m->lightmap_uvs[2 * o + 1] = gsioi_wmp_clampf(wv->lm[1]);
			}
			m->indices[o] = (uint32_t)o;
		}
		flat_normal(m->positions + 9 * i, m->positions + 9 * i + 3, m->positions + 9 * i + 6,
		            m->normals + 9 * i);
	}
	int32_t node;
	GSIO_CHECK(place_mesh(c, mi, name, parent, k->vertices_count, nt, &node));
	return gsio_extras_set_int(s, &s->nodes[node].extras, "wmb:content", k->content, c->err) == 0;
}

/* WMB6: the polygon's k-th corner. */
static uint32_t corner_of(const gsio_wmb_file *f, const gsio_wmb_face *fa, uint32_t k)
{
	int32_t e = f->surfedges[fa->first_surfedge + k];
	return e >= 0 ? f->edges[2 * (size_t)e] : f->edges[2 * ((size_t)0 - (size_t)(int64_t)e) + 1];
}

static bool build_polygons(wmp_sctx *c, wmb_conv *v, int32_t parent)
{
	const gsio_wmb_file *f = v->f;
	gsio_scene *s = c->s;
	size_t nt = 0;
	for (uint32_t i = 0; i < f->faces_count; i++)
		if (f->faces[i].edges_count >= 3) nt += f->faces[i].edges_count - 2u;
	if (!nt) return true;
	// Each face's triangles, then per triangle its face.
	uint32_t *face_of = GSIO_NEW_ARRAY(c->tmp, uint32_t, nt, c->err);
	uint32_t *fan_of = GSIO_NEW_ARRAY(c->tmp, uint32_t, nt, c->err);
	int32_t *mat = GSIO_NEW_ARRAY(c->tmp, int32_t, nt, c->err);
	size_t *order = GSIO_NEW_ARRAY(c->tmp, size_t, nt, c->err);
	GSIO_CHECK(face_of && fan_of && mat && order);
	bool texinfo_warned = false;
	for (uint32_t i = 0, t = 0; i < f->faces_count; i++) {
		const gsio_wmb_face *fa = &f->faces[i];
		int32_t mt = -1;
		if (fa->texinfo < f->texinfos_count) {
			size_t slot = 0;
			bool ok;
			GSIO_CHECK(slot_of(c, v, f->texinfos[fa->texinfo].texture, &slot, &ok));
			if (ok) mt = c->tex_material[slot];
		} else if (!texinfo_warned) {
			texinfo_warned = true;
			GSIO_CHECK(gsioi_wmp_warn(c, "face %u names projection %u of %u: no texture", i,
			                          fa->texinfo, f->texinfos_count));
		}
		for (uint32_t k = 0; fa->edges_count >= 3 && k < fa->edges_count - 2u; k++, t++)
			face_of[t] = i, fan_of[t] = k, mat[t] = mt;
	}
	int32_t mi = gsio_scene_add_mesh(s, "faces", 3 * nt, 3 * nt, GSIO_MESH_NORMALS | GSIO_MESH_UVS, -1, c->err);
	GSIO_CHECK(mi >= 0);
	gsio_mesh *m = &s->meshes[mi];
	GSIO_CHECK(order_parts(c, m, mat, nt, order));
	for (size_t i = 0; i < nt; i++) {
		const gsio_wmb_face *fa = &f->faces[face_of[order[i]]];
		uint32_t k = fan_of[order[i]];
		// Clockwise in the file: the fan (0, k+1, k+2) read backwards.
		const uint32_t corner[3] = {corner_of(f, fa, 0), corner_of(f, fa, k + 2), corner_of(f, fa, k + 1)};
		const gsio_wmb_texinfo *ti = fa->texinfo < f->texinfos_count ? &f->texinfos[fa->texinfo] : NULL;
		double w = 64, h = 64;
		if (ti && ti->texture < f->textures_count) {
			size_t slot = 0;
			bool ok;
			GSIO_CHECK(slot_of(c, v, ti->texture, &slot, &ok));
			w = c->tex_w[slot], h = c->tex_h[slot];
		}
		for (int q = 0; q < 3; q++) {
			const float *p = f->vertices + 3 * (size_t)corner[q];
			size_t o = 3 * i + (size_t)q;
			for (int j = 0; j < 3; j++) m->positions[3 * o + j] = gsioi_wmp_clampf(p[j]);
			double su = 0, sv = 0;
			if (ti) {
				su = (double)p[0] * ti->s[0] + (double)p[1] * ti->s[1] + (double)p[2] * ti->s[2] + ti->s[3];
				sv = (double)p[0] * ti->t[0] + (double)p[1] * ti->t[1] + (double)p[2] * ti->t[2] + ti->t[3];
			}
			m->uvs[2 * o] = gsioi_wmp_clampf(su / w);
			m->uvs[2 * o + 1] = gsioi_wmp_clampf(sv / h);
			m->indices[o] = (uint32_t)o;
		}
		flat_normal(m->positions + 9 * i, m->positions + 9 * i + 3, m->positions + 9 * i + 6,
		            m->normals + 9 * i);
	}
	int32_t node;
	return place_mesh(c, mi, "faces", parent, f->vertices_count, nt, &node);
}

// -- After the object tree

/* Rotation Rz(pan) Ry(-tilt) Rx(roll) from degrees, as a quaternion. */
static void quat_pan_tilt_roll(const float deg[3], float q[4])
{
	double r[3];
	for (int k = 0; k < 3; k++) r[k] = isfinite(deg[k]) ? fmod((double)deg[k], 360.0) * M_PI / 180 : 0;
	float qz[4] = {0, 0, (float)sin(r[0] / 2), (float)cos(r[0] / 2)};
	float qy[4] = {0, (float)sin(-r[1] / 2), 0, (float)cos(-r[1] / 2)};
	float qx[4] = {(float)sin(r[2] / 2), 0, 0, (float)cos(r[2] / 2)};
	float t[4];
	gsioi_quat_mul(qz, qy, t);
	gsioi_quat_mul(t, qx, q);
	gsioi_quat_normalize(q);
}

/* Appends printf-style text to buf (size n), cut when full. */
static void cat(char *buf, size_t n, const char *fmt, ...) GSIO_PRINTF(3, 4);
static void cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t at = strlen(buf);
	if (at + 1 >= n) return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + at, n - at, fmt, ap);
	va_end(ap);
}

static const char *format_name(uint32_t fmt)
{
	static const char *const k[] = {"8-bit", "?1", "565", "4444", "888", "8888", "DDS", "?7"};
	return k[fmt & 7];
}

/* What `gsio info` says of the compiled level: version, every list's
 * count, the textures. */
static bool level_extras(wmp_sctx *c, const gsio_wmb_file *f)
{
	gsio_scene *s = c->s;
	gsio_extras *x = &s->extras;
	GSIO_CHECK(!gsio_extras_set_int(s, x, "wmb:version", f->version, c->err));
	char t[1024] = "";
	cat(t, sizeof(t), "%s, %u lists", f->magic, f->lists_count);
	if (f->info)
		cat(t, sizeof(t), ", compiler %.4g, %s map, lightmaps %ux%u", (double)f->info->version,
		    f->info->flags & 4 ? "simple" : "BSP", f->lightmap_side, f->lightmap_side);
	GSIO_CHECK(!gsio_extras_set_string(s, x, "wmb:compiled", t, c->err));
	t[0] = 0;
	uint32_t by_type[9] = {0};
	for (uint32_t i = 0; i < f->objects_count; i++) by_type[f->objects[i].type < 9 ? f->objects[i].type : 0]++;
	cat(t, sizeof(t), "palette %s, textures %u, projections %u", f->has_palette ? "yes" : "no",
	    f->textures_count, f->texinfos_count);
	if (f->version == 7) {
		size_t nv = 0, nt = 0, ns = 0;
		for (uint32_t b = 0; b < f->blocks_count; b++)
			nv += f->blocks[b].vertices_count, nt += f->blocks[b].triangles_count,
			    ns += f->blocks[b].skins_count;
		cat(t, sizeof(t), ", blocks %u (%zu vertices, %zu triangles, %zu skins)", f->blocks_count, nv,
		    nt, ns);
	} else {
		cat(t, sizeof(t), ", faces %u, vertices %u, edges %u, surface edges %u", f->faces_count,
		    f->vertices_count, f->edges_count, f->surfedges_count);
	}
	cat(t, sizeof(t), ", lightmap pages %u, terrain lightmaps %u, objects %u (", f->lightmaps_count,
	    f->terrain_lightmaps_count, f->objects_count);
	for (uint32_t k = 0, first = 1; k < 9; k++)
		if (by_type[k]) cat(t, sizeof(t), "%s%s %u", first ? "" : ", ", gsioi_wmb_object_kind(k), by_type[k]), first = 0;
	static const struct { int list; const char *name; uint32_t size; } bsp[] = {
	    {GSIO_WMB_PLANES, "planes", 20}, {GSIO_WMB_NODES, "nodes", 40}, {GSIO_WMB_LEAFS, "leafs", 36},
	    {GSIO_WMB_LEAF_LISTS, "leaf entries", 4}, {GSIO_WMB_HULLS, "clip nodes", 16},
	    {GSIO_WMB_PVS, "visibility bytes", 1}};
	cat(t, sizeof(t), "), BSP lists kept as bytes:");
	for (size_t k = 0; k < sizeof(bsp) / sizeof(bsp[0]); k++)
		cat(t, sizeof(t), "%s %s %u", k ? "," : "", bsp[k].name, f->lists[bsp[k].list].length / bsp[k].size);
	GSIO_CHECK(!gsio_extras_set_string(s, x, "wmb:lists", t, c->err));
	t[0] = 0;
	for (uint32_t i = 0; i < f->textures_count && i < 16; i++) {
		const gsio_wmb_texture *tx = &f->textures[i];
		char nm[64];
		gsioi_text_utf8(nm, sizeof(nm), tx->name, 16);
		cat(t, sizeof(t), "%s%s %ux%u %s%s", i ? ", " : "", nm, tx->width, tx->height,
		    format_name(tx->format), tx->type & 8 ? "+mips" : "");
	}
	if (f->textures_count > 16) cat(t, sizeof(t), ", ... %u more", f->textures_count - 16);
	if (f->textures_count) GSIO_CHECK(!gsio_extras_set_string(s, x, "wmb:textures", t, c->err));
	if (!f->info) return true;
	GSIO_CHECK(!gsio_extras_set_float(s, x, "wmb:compiler", gsioi_wmp_clampf(f->info->version), c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, x, "wmb:info_flags", f->info->flags, c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, x, "wmb:lightmap_side", f->lightmap_side, c->err));
	return gsio_extras_set_int(s, x, "wmb:lightmaps", f->lightmaps_count, c->err) == 0;
}

static bool after_tree(wmp_sctx *c, void *user)
{
	wmb_conv *v = user;
	const gsio_wmb_file *f = v->f;
	gsio_scene *s = c->s;
	for (uint32_t i = 0; i < f->objects_count; i++) {
		uint32_t j = v->wmp_object_of[i];
		if (!j || c->node_of[j] < 0) continue;
		const gsio_wmb_object *o = &f->objects[i];
		int32_t node = c->node_of[j];
		gsio_extras *x = &s->nodes[node].extras;
		GSIO_CHECK(!gsio_extras_set_int(s, x, "wmb:object_type", o->type, c->err));
		if (o->type == GSIO_WMB_POSITION || o->type == GSIO_WMB_OLD_ENTITY || o->type == GSIO_WMB_ENTITY) {
			quat_pan_tilt_roll(o->angles, s->nodes[node].rotation);
			float a[3];
			for (int k = 0; k < 3; k++) a[k] = gsioi_wmp_clampf(o->angles[k]);
			GSIO_CHECK(!gsio_extras_set_floats(s, x, "wmb:angles", a, 3, c->err));
		}
		if (o->type == GSIO_WMB_ENTITY) {
			char t1[34] = {0}, t2[34] = {0}, u1[80], u2[80];
			memcpy(t1, o->string1, 33);
			memcpy(t2, o->string2, 33);
			gsioi_text_utf8(u1, sizeof(u1), t1, 33);
			gsioi_text_utf8(u2, sizeof(u2), t2, 33);
			GSIO_CHECK(!gsio_extras_set_string(s, x, "wmb:string1", u1, c->err));
			GSIO_CHECK(!gsio_extras_set_string(s, x, "wmb:string2", u2, c->err));
		}
	}
	GSIO_CHECK(level_extras(c, f));
	int32_t root = c->node_of[0];
	for (uint32_t b = 0; b < f->blocks_count; b++) GSIO_CHECK(build_block(c, v, b, root));
	if (f->version == 6) GSIO_CHECK(build_polygons(c, v, root));
	if (f->terrain_lightmaps_bogus)
		GSIO_CHECK(gsioi_wmp_warn(c, "the terrain lightmaps list does not hold its count: not read"));
	return true;
}

gsio_scene *gsio_wmb_to_scene(const gsio_wmb_file *f, const char *path, const gsio_opts *opts,
                              gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!f) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "gsio_wmb_to_scene needs a level");
		return NULL;
	}
	gsio_arena *a = gsioi_arena_for(opts, "WMB level", err);
	if (!a) return NULL;
	wmb_conv v;
	memset(&v, 0, sizeof(v));
	v.f = f;
	v.slot_of_texture = GSIO_NEW_ARRAY(a, size_t, f->textures_count, err);
	v.slot_known = GSIO_NEW_ARRAY(a, bool, f->textures_count, err);
	v.page_image = GSIO_NEW_ARRAY(a, int32_t, f->lightmaps_count, err);
	v.tex_rgba = GSIO_NEW_ARRAY(a, uint8_t *, f->textures_count, err);
	for (uint32_t i = 0; v.page_image && i < f->lightmaps_count; i++) v.page_image[i] = -1;
	gsio_scene *s = NULL;
	if (v.slot_of_texture && v.slot_known && v.page_image && v.tex_rgba && make_elements(&v, a, err) && make_wad(&v, a, path, err)) {
		gsioi_wmp_hooks h = {"WMB", (int32_t)f->version, &v.wad, after_tree, &v};
		s = gsioi_wmp_scene_run(&v.w, path, opts, &h, err);
	}
	gsioi_arena_destroy(a);
	return s;
}

// -- Importer

static int wmb_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (n >= 4 && !memcmp(head, "WMB", 3) && head[3] >= '4' && head[3] <= '7') return 2;
	return ext && !strcmp(ext, "wmb") ? 1 : 0;
}

static gsio_scene *wmb_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	gsio_opts o = {0};
	if (opts) o = *opts;
	o.flags |= GSIO_OPT_BORROW; // the file is freed before the caller's bytes
	gsio_wmb_file *f = gsio_wmb_decode(data, size, path, &o, err);
	if (!f) return NULL;
	gsio_scene *s = gsio_wmb_to_scene(f, path, opts, err);
	gsio_wmb_file_free(f);
	return s;
}

const gsio_importer gsio_wmb_importer = {
    "GameStudio WMB compiled level", "wmb", 6, 7, wmb_can_read, wmb_read,
};
