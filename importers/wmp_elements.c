/* The elements an object carries, each built on its node, for the level ->
 * scene conversion (wmp_scene.c): blocks through wmp_blocks.c, models
 * through wmp_graft.c, the rest here.
 *
 * - Sprites are a double-sided quad of the image's size in the node's YZ
 *   plane (facing +X, the entity's forward); a file placed again is read
 *   once.
 * - Lights are point lights, the level's sun a directional light; starts,
 *   sounds, paths and regions empty nodes whose data is in extras, like
 *   every entity's action, skills, flags. Raw values of open questions stay
 *   in extras.
 * - Colours are 0..255 in binary levels, percent in text ones. */
#include "gsioi_image_file.h"
#include "wmp_internal.h"
#include "gsioi_math.h"

#include <stdio.h>

// -- Sprites

static bool sprite_quad(wmp_sctx *c, int32_t node, const char *nm, int32_t mat, uint32_t width,
                        uint32_t height);

static bool build_sprite(wmp_sctx *c, const char *stored, int32_t node)
{
	gsio_scene *s = c->s;
	char clean[256];
	gsioi_text_utf8(clean, sizeof(clean), stored, 255);
	gsioi_found r;
	GSIO_CHECK(gsioi_wmp_find_file(c, "sprite", stored, &r));
	if (!r.found) return gsioi_wmp_warn_missing(c, "sprite", stored, &r, "an empty node");
	const char *full = r.path;
	char nm[300];
	snprintf(nm, sizeof(nm), "sprite/%s", clean);
	// A file placed again is read and decoded once: a level of 1 000
	// placements of one poster took 260 MB, a decoded copy each.
	int64_t known = gsioi_names_find(&c->sprite_index, full);
	if (known >= 0) {
		const struct wmp_sprite *e = &c->sprites[known];
		return sprite_quad(c, node, nm, e->material, e->width, e->height);
	}
	uint8_t *data;
	size_t size;
	gsio_error sub;
	gsio_error_clear(&sub);
	if (gsioi_io_read(c->opts, full, &data, &size, &sub))
		return gsioi_wmp_warn(c, "sprite %s: %.200s: an empty node", clean, sub.message);
	gsio_image im;
	memset(&im, 0, sizeof(im));
	bool taken = false; // kept undecoded, the default io's buffer is the scene's
	bool ok = gsioi_image_file_load(data, size, full, c->opts, s->arena, &im,
	                                gsioi_io_is_default(c->opts) ? &taken : NULL, &sub);
	if (!taken) gsioi_io_free(c->opts, data);
	if (!ok) {
		if (gsioi_image_file_fatal(s->arena, &sub)) {
			*c->err = sub;
			return false;
		}
		return gsioi_wmp_warn(c, "sprite %s: %.200s: an empty node", clean, sub.message);
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
	struct wmp_sprite *e = &c->sprites[c->sprites_count];
	e->image = img, e->material = mat, e->width = im.width, e->height = im.height;
	const char *key = gsioi_arena_strdup(c->tmp, full, c->err);
	GSIO_CHECK(key && gsioi_names_add(&c->sprite_index, key, (uint32_t)c->sprites_count, c->err));
	c->sprites_count++;
	return sprite_quad(c, node, nm, mat, im.width, im.height);
}

/* The textured quad of a sprite of width x height pixels, at the node. */
static bool sprite_quad(wmp_sctx *c, int32_t node, const char *nm, int32_t mat, uint32_t width,
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

static bool set_str(wmp_sctx *c, gsio_extras *x, const char *key, const gsio_wmp_string *v)
{
	if (!v->s) return true;
	char *t = gsioi_text_utf8_dup(c->tmp, v->s, strlen(v->s), c->err);
	GSIO_CHECK(t);
	return gsio_extras_set_string(c->s, x, key, t, c->err) == 0;
}

static bool set_floats(wmp_sctx *c, gsio_extras *x, const char *key, const double *v, size_t n)
{
	float *f = GSIO_NEW_ARRAY(c->tmp, float, n ? n : 1, c->err);
	GSIO_CHECK(f);
	for (size_t i = 0; i < n; i++) f[i] = gsioi_wmp_clampf(v[i]);
	return gsio_extras_set_floats(c->s, x, key, f, n, c->err) == 0;
}

#define X (&c->s->nodes[node].extras)

static bool build_level(wmp_sctx *c, const gsio_wmp_level *lv, int32_t node)
{
	gsio_scene *s = c->s;
	gsio_extras *sx = &s->extras;
	double k = c->binary ? 255.0 : 100.0; // binary colours 0..255, text percent
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:sun_azimuth", gsioi_wmp_clampf(lv->azimuth),
	                                  c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:sun_elevation", gsioi_wmp_clampf(lv->elevation),
	                                  c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, sx, "wmp:nexus", gsioi_wmp_clampf(lv->nexus), c->err));
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
			gsioi_found found;
			GSIO_CHECK(gsioi_wmp_find_file(c, i ? "palette" : "script", named[i]->s, &found));
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
		float v = gsioi_wmp_clampf(lv->sun[j] / k);
		s->lights[li].color[j] = v < 0 ? 0 : v > 1 ? 1 : v;
	}
	s->lights[li].intensity = 1;
	s->nodes[sun].light = li;
	return gsio_extras_set_string(s, &s->nodes[node].extras, "wmp:element", "level", c->err) == 0;
}

static bool build_entity(wmp_sctx *c, const gsio_wmp_entity *e, int32_t node)
{
	gsio_scene *s = c->s;
	GSIO_CHECK(!gsio_extras_set_string(s, X, "wmp:element", e->type == 0x100 ? "sprite" : "model", c->err));
	GSIO_CHECK(set_str(c, X, "wmp:name", &e->name));
	GSIO_CHECK(set_str(c, X, "wmp:file", &e->file));
	GSIO_CHECK(set_str(c, X, "wmp:action", &e->action));
	GSIO_CHECK(set_str(c, X, "wmp:material", &e->material));
	GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:flags", e->flags, c->err));
	GSIO_CHECK(!gsio_extras_set_int(s, X, "wmp:type", e->type, c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, X, "wmp:ambient", gsioi_wmp_clampf(e->ambient), c->err));
	GSIO_CHECK(!gsio_extras_set_float(s, X, "wmp:albedo", gsioi_wmp_clampf(e->albedo), c->err));
	if (e->skills_count) GSIO_CHECK(set_floats(c, X, "wmp:skills", e->skills, e->skills_count));
	const char *file = gsioi_wmp_str(&e->file);
	char ext[16];
	gsioi_path_ext(gsioi_path_base(file), ext, sizeof(ext));
	if (!strcmp(ext, "tga") || !strcmp(ext, "bmp") || !strcmp(ext, "pcx") || !strcmp(ext, "png") ||
	    !strcmp(ext, "jpg") || !strcmp(ext, "dds"))
		return build_sprite(c, file, node);
	wmp_model *me;
	GSIO_CHECK(gsioi_wmp_model_for(c, file, &me));
	return me->ms ? gsioi_wmp_place_model(c, me, node) : true;
}

bool gsioi_wmp_build_element(wmp_sctx *c, gsio_wmp_ref r, int32_t node)
{
	const gsio_wmp_file *f = c->f;
	gsio_scene *s = c->s;
	char name[64];
	switch (r.kind) {
	case GSIO_WMP_BLOCK:
		snprintf(name, sizeof(name), "block_%u", r.index);
		return gsioi_wmp_build_block(c, &f->blocks[r.index], node, name);
	case GSIO_WMP_LEVEL: return build_level(c, &f->levels[r.index], node);
	case GSIO_WMP_ENTITY: return build_entity(c, &f->entities[r.index], node);
	case GSIO_WMP_LIGHT: {
		const gsio_wmp_light *l = &f->lights[r.index];
		snprintf(name, sizeof(name), "light_%u", r.index);
		int32_t li = gsio_scene_add_light(s, name, GSIO_LIGHT_POINT, c->err);
		GSIO_CHECK(li >= 0);
		double k = c->binary ? 255.0 : 100.0;
		for (int j = 0; j < 3; j++) {
			float v = gsioi_wmp_clampf(l->color[j] / k);
			s->lights[li].color[j] = v < 0 ? 0 : v > 1 ? 1 : v;
		}
		float range = gsioi_wmp_clampf(l->range);
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
			gsioi_found found;
			GSIO_CHECK(gsioi_wmp_find_file(c, "sound", so->file.s, &found));
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
