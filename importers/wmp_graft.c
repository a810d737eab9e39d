/* Placed models grafted into the level scene (wmp_scene.c): the entities
 * whose file is a model.
 *
 * - Entities: model files (any format gsio reads) loaded once each and
 *   grafted in: their meshes, materials and images once, a node subtree per
 *   entity, their clips as one animation per clip moving every instance.
 *   A model that cannot be found or read is a warning and an empty node.
 * - Models are loaded with the level's options (sub_opts), whose palette is
 *   the level's unless the caller gave one (gsio_wmp_to_scene). */
#include "wmp_internal.h"

#include "gsioi_scene_util.h"

#include <stdio.h>

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

/* A new mesh of s named nm, a copy of mesh i of `from` (which may be s)
 * sharing its arrays; its index, or -1 (err set). `from`'s mesh is read
 * after the new one is added: adding may move s's meshes. */
static int32_t mesh_record(gsio_scene *s, const char *nm, const gsio_scene *from, size_t i,
                           gsio_error *err)
{
	int32_t k = gsio_scene_add_mesh(s, nm, 0, 0, 0, -1, err);
	if (k < 0) return -1;
	gsio_mesh *d = &s->meshes[k];
	const char *keep = d->name;
	*d = from->meshes[i];
	d->name = keep;
	return k;
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
 * gsioi_wmp_place_model. */
static bool graft_model(wmp_sctx *c, wmp_model *me, const char *file)
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
#define MOVED(f) \
	if (d->f.image >= 0) d->f.image += me->image_base;
		GSIOI_MATERIAL_TEXTURES(MOVED)
#undef MOVED
		if (mt->shader) GSIO_CHECK((d->shader = gsio_scene_strdup(s, mt->shader, c->err)));
		GSIO_CHECK(copy_extras(s, &d->extras, &mt->extras, c->err));
	}
	for (size_t i = 0; i < ms->meshes_count; i++) {
		const gsio_mesh *sm = &ms->meshes[i];
		snprintf(nm, sizeof(nm), "%s/%s", file, sm->name ? sm->name : "mesh");
		int32_t k = mesh_record(s, nm, ms, i, c->err);
		GSIO_CHECK(k >= 0);
		gsio_mesh *d = &s->meshes[k];
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
			// instance's own (gsioi_wmp_place_model sets it).
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
bool gsioi_wmp_model_for(wmp_sctx *c, const char *stored, wmp_model **out)
{
	const char *base = gsioi_wmp_base_of(stored);
	char key[256]; // names compared as files are (gsioi_files.h)
	gsioi_text_utf8(key, sizeof(key), base ? base : "", 255);
	gsioi_text_fold(key);
	for (size_t i = 0; i < c->models_count; i++)
		if (!strcmp(c->models[i].key, key)) return *out = &c->models[i], true;
	GSIO_CHECK(GSIOI_WMP_PUSH(c->tmp, c->models, c->models_count, c->models_cap, c->err));
	wmp_model *me = &c->models[c->models_count++];
	memset(me, 0, sizeof(*me));
	GSIO_CHECK((me->key = gsioi_arena_strdup(c->tmp, key, c->err)));
	*out = me;
	char clean[256];
	gsioi_text_utf8(clean, sizeof(clean), stored, 255);
	char ext[16];
	gsioi_path_ext(key, ext, sizeof(ext));
	bool is_model = !strcmp(ext, "mdl") || !strcmp(ext, "hmp");
	gsioi_found r;
	GSIO_CHECK(gsioi_wmp_find_file(c, is_model ? "model" : "entity", stored, &r));
	if (!is_model)
		return gsioi_wmp_warn(c, "entity file \"%s\": only models (.mdl, .hmp) are placed: an "
		                         "empty node",
		                      clean);
	if (!r.found) return gsioi_wmp_warn_missing(c, "model", stored, &r, "an empty node");
	gsio_error sub;
	gsio_error_clear(&sub);
	me->ms = gsio_load_file(r.path, &c->sub_opts, &sub);
	if (!me->ms) {
		if (gsioi_wmp_fatal(c, &sub)) return false;
		return gsioi_wmp_warn(c, "model %s: %.200s: an empty node", clean, sub.message);
	}
	for (size_t i = 0; i < me->ms->warnings_count; i++)
		GSIO_CHECK(gsioi_wmp_warn(c, "model %s: %.300s", clean, me->ms->warnings[i]));
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
bool gsioi_wmp_place_model(wmp_sctx *c, wmp_model *me, int32_t node)
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
			int32_t k = mesh_record(s, nm, s, (size_t)mesh, c->err);
			GSIO_CHECK(k >= 0);
			gsio_mesh *d = &s->meshes[k];
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
bool gsioi_wmp_model_animations(wmp_sctx *c)
{
	gsio_scene *s = c->s;
	for (size_t m = 0; m < c->models_count; m++) {
		wmp_model *me = &c->models[m];
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
