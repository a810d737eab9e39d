/* WMP level -> scene (docs/FORMATS.md §7.8-7.12, §8): the entry,
 * gsio_wmp_to_scene, the object tree and its transforms.
 *
 * - Nodes: one per object of the tree (object 0, the root, is named after
 *   the level file), with the object's position, rotation R = Rz(a) Rx(b)
 *   Ry(c) from its radians (verified against compiled entities) and scale;
 *   T R S order (inferred, docs/FORMATS.md §7.10). An object carrying more than one
 *   element gets a child node per extra element.
 * - Each element is built on its node by wmp_elements.c (blocks by
 *   wmp_blocks.c, models by wmp_graft.c), textures made by wmp_textures.c,
 *   files found by wmp_files.c; they share the context, wmp_sctx
 *   (wmp_internal.h), which this file makes and frees. */
#include "wmp_internal.h"
#include "gsioi_math.h"

#include <stdio.h>

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

static void set_trs(gsio_node *n, const gsio_wmp_object *o)
{
	for (int k = 0; k < 3; k++) {
		n->translation[k] = gsioi_wmp_clampf(o->position[k]);
		float s = gsioi_wmp_clampf(o->scale[k]);
		n->scale[k] = s == 0 ? 1e-6f : s; // the scene model forbids zero scales
	}
	double a[3];
	for (int k = 0; k < 3; k++) a[k] = isfinite(o->angles[k]) ? fmod(o->angles[k], 2 * M_PI) : 0;
	quat_zxy(a, n->rotation);
}

// -- Warnings

bool gsioi_wmp_warn(wmp_sctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return gsio_scene_add_warning(c->s, c->err, "%s", msg) == 0;
}

bool gsioi_wmp_fatal(wmp_sctx *c, const gsio_error *sub)
{
	if (sub->code != GSIO_ERR_NOMEM && sub->code != GSIO_ERR_LIMIT) return false;
	*c->err = *sub;
	return true;
}

// -- The object tree

static bool build_object(wmp_sctx *c, size_t idx, int32_t parent, unsigned depth)
{
	const gsio_wmp_file *f = c->f;
	gsio_scene *s = c->s;
	if (c->node_of[idx] >= 0)
		return gsioi_wmp_warn(c, "object %zu is placed twice (the object tree has a cycle or "
		                         "a shared child): placed once",
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
		gsioi_text_utf8(name, sizeof(name), *b ? b : "level", 255);
	} else if (o->name.s && o->name.s[0]) {
		gsioi_text_utf8(name, sizeof(name), o->name.s, 255);
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
		GSIO_CHECK(gsioi_wmp_build_element(c, r, at));
	}
	for (size_t i = 0; i < o->refs_count; i++)
		if (o->refs[i].kind == GSIO_WMP_OBJECT)
			GSIO_CHECK(build_object(c, o->refs[i].index, node, depth + 1));
	return true;
}

// The placed models' search folders: the level's (c->finder's).
static bool level_folders_for_models(wmp_sctx *c)
{
	const char **dirs = GSIO_NEW_ARRAY(c->tmp, const char *, c->finder.count, c->err);
	GSIO_CHECK(dirs);
	for (size_t i = 0; i < c->finder.count; i++) dirs[i] = gsioi_finder_dir(&c->finder, i);
	c->sub_opts.search_paths = dirs;
	c->sub_opts.search_paths_count = c->finder.count;
	return true;
}

gsio_scene *gsio_wmp_to_scene(const gsio_wmp_file *f, const char *path, const gsio_opts *opts,
                              gsio_error *err)
{
	return gsioi_wmp_scene_run(f, path, opts, NULL, err);
}

gsio_scene *gsioi_wmp_scene_run(const gsio_wmp_file *f, const char *path, const gsio_opts *opts,
                                const gsioi_wmp_hooks *hooks, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!f || !f->objects_count) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, path, -1, "gsio_wmp_to_scene needs a level with objects");
		return NULL;
	}
	wmp_sctx c;
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
	if (hooks) {
		c.s->format = hooks->format;
		c.s->format_version = hooks->version;
		c.embedded = hooks->embedded;
	}
	c.tmp = gsioi_arena_for(opts, "WMP scratch", err);
	bool ok = c.tmp != NULL;
	if (ok) gsioi_finder_init(&c.finder, c.tmp, opts);
	// Folders: the level's, then the search folders in order; a placed
	// model looks for its own files beside itself, then in these.
	ok = ok && gsioi_finder_add_defaults(&c.finder, path, "the level's folder", err) &&
	     level_folders_for_models(&c);
	// Models get the level's options; their own palette comes from the level.
	if (ok && f->has_palette) {
		memcpy(c.palette_buf, f->palette, 768);
		c.palette = c.palette_buf;
		if (!(opts && (opts->palette || opts->palette_path))) c.sub_opts.palette = c.palette_buf;
	}
	if (ok && opts && opts->palette) c.palette = opts->palette;
	ok = ok && gsioi_wmp_load_wads(&c) && gsioi_wmp_index_lumps(&c);
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
	ok = ok && build_object(&c, 0, -1, 0) && (!hooks || !hooks->after || hooks->after(&c, hooks->user)) &&
	     gsioi_wmp_model_animations(&c);
	for (size_t i = 0; ok && i < f->objects_count; i++)
		if (c.node_of[i] < 0)
			ok = gsioi_wmp_warn(&c, "object %zu is not in the object tree: left out", i);
	// A skinned model mesh no model node placed has no skin: plain mesh.
	for (size_t i = 0; ok && i < c.s->meshes_count; i++)
		if (c.s->meshes[i].skin < 0) memset(&c.s->meshes[i].weights, 0, sizeof(gsio_weights));
	for (size_t i = 0; i < c.models_count; i++) gsio_scene_free(c.models[i].ms);
	for (size_t i = 0; i < c.wads_count; i++) {
		if (c.wads[i] == c.embedded) continue; // the caller's
		gsio_wad_file_free(c.wads[i]);
		gsioi_io_free(c.opts, c.wad_bytes[i]);
	}
	if (c.tmp) gsioi_finder_free(&c.finder);
	gsioi_arena_destroy(c.tmp);
	if (!ok) {
		if (path && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
		gsio_scene_free(c.s);
		return NULL;
	}
	return c.s;
}
