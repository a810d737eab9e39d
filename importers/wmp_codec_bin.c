/* WMP dialect C: the binary "WMPB" of WED 8 ("wmpio 1.30"), decoded into the
 * element model of gsio_wmp.h and encoded back byte for byte.
 *
 * Framing (docs/FORMATS.md §7.5): "WMPB", then chunks of
 * `u8 id, u8 type, u8 type+1, u8 0, u32 size` (size counts the 8-byte
 * header). Type 4 and 5 chunks are containers with a fixed prefix followed
 * by child chunks; an id means something only inside its parent's kind.
 * Chunks gsio does not interpret are kept (gsio_wmp_chunk) and written back
 * at the end of their parent. */
#include "wmp_internal.h"

#include <stdlib.h>

// -- Decoding: chunks

typedef struct bctx {
	gsio_wmp_file *f;
	const uint8_t *data;
	size_t size;
	const char *name;
	gsio_error *err;
	size_t cap_objects, cap_levels, cap_blocks, cap_starts, cap_lights, cap_entities,
	    cap_sounds, cap_paths, cap_regions, cap_unknown;
} bctx;

typedef struct chunk {
	uint8_t id, type;
	size_t at;   /**< offset of the chunk header */
	size_t off;  /**< payload offset */
	size_t size; /**< payload bytes */
} chunk;

/* The chunk at *pos (which must end by `end`), advancing *pos past it. */
static bool next_chunk(bctx *c, size_t *pos, size_t end, chunk *ch)
{
	if (end - *pos < 8)
		return GSIO_FAIL(c->err, GSIO_ERR_TRUNCATED, c->name, (int64_t)*pos,
		                 "file ends inside a chunk header (%zu bytes left)", end - *pos),
		       false;
	const uint8_t *p = c->data + *pos;
	if (p[2] != (uint8_t)(p[1] + 1) || p[3] != 0)
		return GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)*pos,
		                 "chunk header %02x %02x %02x %02x: the third byte must be the type + 1 "
		                 "and the fourth 0",
		                 p[0], p[1], p[2], p[3]),
		       false;
	uint32_t size = gsioi_le32(p + 4);
	if (size < 8)
		return GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)*pos,
		                 "chunk size %u is smaller than its 8-byte header", size),
		       false;
	if (size > end - *pos)
		return GSIO_FAIL(c->err, GSIO_ERR_TRUNCATED, c->name, (int64_t)*pos,
		                 "chunk size %u points past the end of its parent (%zu bytes left)",
		                 size, end - *pos),
		       false;
	ch->id = p[0];
	ch->type = p[1];
	ch->at = *pos;
	ch->off = *pos + 8;
	ch->size = size - 8;
	*pos += size;
	return true;
}

static bool fail_at(bctx *c, const chunk *ch, gsio_error_code code, const char *what)
{
	GSIO_FAIL(c->err, code, c->name, (int64_t)ch->at, "%s", what);
	return false;
}

static bool keep_unknown(bctx *c, const chunk *ch, gsio_wmp_chunk **arr, size_t *count,
                         size_t *cap)
{
	GSIO_CHECK(gsioi_wmp_grow(c->f->arena, (void **)arr, *count, cap, sizeof(**arr), c->err));
	gsio_wmp_chunk *u = &(*arr)[(*count)++];
	u->id = ch->id;
	u->type = ch->type;
	u->data = c->data + ch->off;
	u->size = ch->size;
	return true;
}

/* A type-1 string chunk: the text up to the first NUL; the raw payload is
 * kept when it is not exactly text + NUL. */
static bool read_string(bctx *c, const chunk *ch, gsio_wmp_string *out)
{
	if (ch->type != 1) return fail_at(c, ch, GSIO_ERR_CORRUPT, "a string chunk must have type 1");
	const char *p = (const char *)c->data + ch->off;
	size_t n = 0;
	while (n < ch->size && p[n]) n++;
	GSIO_CHECK((out->s = gsioi_arena_strndup(c->f->arena, p, n, c->err)));
	if (!(n + 1 == ch->size)) {
		out->raw = c->data + ch->off;
		out->raw_size = ch->size;
	}
	return true;
}

static bool read_doubles(bctx *c, const chunk *ch, double *out, size_t n, const char *what)
{
	if (ch->size != n * 8) {
		GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)ch->at,
		          "%s chunk holds %zu bytes, not %zu", what, ch->size, n * 8);
		return false;
	}
	for (size_t i = 0; i < n; i++) out[i] = gsioi_lef64(c->data + ch->off + 8 * i);
	return true;
}

static bool need_prefix(bctx *c, const chunk *ch, size_t n, const char *what)
{
	if (ch->size >= n) return true;
	GSIO_FAIL(c->err, GSIO_ERR_TRUNCATED, c->name, (int64_t)ch->at,
	          "%s chunk holds %zu bytes, fewer than its %zu-byte prefix", what, ch->size, n);
	return false;
}

/* `u32 n` then n records of rec bytes, exactly filling the chunk (a count
 * claiming more than the chunk holds is refused before anything is
 * allocated). */
static bool counted(bctx *c, const chunk *ch, size_t rec, size_t extra, uint32_t *n,
                    const char *what)
{
	GSIO_CHECK(need_prefix(c, ch, 4 + extra, what));
	*n = gsioi_le32(c->data + ch->off);
	size_t body = ch->size - 4 - extra;
	if (rec && (*n > body / rec || (size_t)*n * rec != body)) {
		GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)ch->at,
		          "%s: count %u does not fit the chunk's %zu bytes", what, *n, body);
		return false;
	}
	return true;
}

// -- Decoding: elements

static bool decode_level(bctx *c, const chunk *ch, gsio_wmp_level *lv)
{
	GSIO_CHECK(need_prefix(c, ch, 20, "level"));
	const uint8_t *p = c->data + ch->off;
	lv->head[0] = gsioi_le32(p);
	lv->head[1] = gsioi_le32(p + 4);
	lv->nexus = gsioi_le32(p + 8);
	lv->azimuth = gsioi_lef32(p + 12);
	lv->elevation = gsioi_lef32(p + 16);
	size_t pos = ch->off + 20, end = ch->off + ch->size, cap = 0;
	// Colours are taken in their order (fog 0..3, sun, ambient) up to the
	// first one out of it; that one and every colour after it are kept as
	// unknown chunks. Were a later one taken, writing the level back would
	// put it before the unknown one, and the next read would take that one
	// too: the file would change each time (fuzz_wmp_c: a sun before the
	// fourth fog).
	bool in_order = true;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		const uint8_t *q = c->data + k.off;
		size_t ci = lv->colors_count;
		bool colour = k.type == 3 && k.size == 4;
		bool next_colour = in_order && colour &&
		                   ((k.id == 1 && ci < 4) || (k.id == 2 && ci == 4) || (k.id == 3 && ci == 5));
		if (colour && k.id >= 1 && k.id <= 3 && !next_colour) in_order = false;
		if (k.id == 4 && colour && !lv->has_unknown4) {
			lv->unknown4 = gsioi_le32(q);
			lv->has_unknown4 = true;
		} else if (k.id == 5 && k.type == 1 && !lv->script.s) {
			GSIO_CHECK(read_string(c, &k, &lv->script));
		} else if (k.id == 6 && k.type == 1 && !lv->palette.s) {
			GSIO_CHECK(read_string(c, &k, &lv->palette));
		} else if (next_colour) {
			// Colours come in the order fog 0..3, sun, ambient: [index, R, G, B].
			double *rgb = ci < 4 ? lv->fog[ci] : ci == 4 ? lv->sun : lv->ambient;
			uint8_t *idx = ci < 4 ? &lv->fog_index[ci] : ci == 4 ? &lv->sun_index
			                                                     : &lv->ambient_index;
			*idx = q[0];
			for (int j = 0; j < 3; j++) rgb[j] = q[1 + j];
			lv->colors_count++;
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &lv->unknown, &lv->unknown_count, &cap));
		}
	}
	return true;
}

static bool decode_surface(bctx *c, const chunk *ch, gsio_wmp_surface *s)
{
	GSIO_CHECK(need_prefix(c, ch, 16, "face record"));
	const uint8_t *p = c->data + ch->off;
	s->face = gsioi_le32(p);
	s->flags = gsioi_le32(p + 4);
	s->ambient = gsioi_lef32(p + 8);
	s->albedo = gsioi_lef32(p + 12);
	s->scale[0] = s->scale[1] = 1;
	size_t pos = ch->off + 16, end = ch->off + ch->size, cap = 0;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		if (k.id == 3 && k.type == 1 && !s->texture.s) {
			GSIO_CHECK(read_string(c, &k, &s->texture));
		} else if (k.id == 5 && k.type == 2 && k.size == 64) {
			double v[8];
			GSIO_CHECK(read_doubles(c, &k, v, 8, "texture vectors"));
			memcpy(s->u, v, sizeof(s->u));
			memcpy(s->v, v + 4, sizeof(s->v));
		} else if (k.id == 9 && k.type == 2 && k.size == 40) {
			double v[5];
			GSIO_CHECK(read_doubles(c, &k, v, 5, "texture offsets"));
			s->offset[0] = v[0];
			s->offset[1] = v[1];
			s->angle = v[2];
			s->scale[0] = v[3];
			s->scale[1] = v[4];
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &s->unknown, &s->unknown_count, &cap));
		}
	}
	return true;
}

static bool decode_faces(bctx *c, const chunk *ch, gsio_wmp_block *b)
{
	uint32_t n;
	GSIO_CHECK(counted(c, ch, 0, 0, &n, "faces"));
	// Each face takes at least its 2-byte count: bound n before allocating.
	if (n > (ch->size - 4) / 2) return fail_at(c, ch, GSIO_ERR_CORRUPT, "face count exceeds the chunk");
	b->faces = GSIO_NEW_ARRAY(c->f->arena, gsio_wmp_face, n, c->err);
	GSIO_CHECK(b->faces);
	b->faces_count = n;
	gsioi_reader r = gsioi_reader_make(c->data + ch->off + 4, ch->size - 4, c->name, c->err);
	for (uint32_t i = 0; i < n; i++) {
		uint16_t k;
		GSIO_CHECK(gsioi_read_u16(&r, &k, "a face's vertex count"));
		const uint8_t *idx = gsioi_read_bytes(&r, (size_t)k * 2, "a face's vertex indices");
		GSIO_CHECK(idx);
		uint32_t *out = GSIO_NEW_ARRAY(c->f->arena, uint32_t, k, c->err);
		GSIO_CHECK(out);
		for (uint16_t j = 0; j < k; j++) out[j] = gsioi_le16(idx + 2 * j);
		b->faces[i].indices = out;
		b->faces[i].indices_count = k;
	}
	if (gsioi_reader_remaining(&r))
		return fail_at(c, ch, GSIO_ERR_CORRUPT, "bytes left over after the last face");
	return true;
}

static bool decode_block(bctx *c, const chunk *ch, gsio_wmp_block *b)
{
	GSIO_CHECK(need_prefix(c, ch, 8, "block"));
	const uint8_t *p = c->data + ch->off;
	b->index = gsioi_le32(p);
	b->flags = gsioi_le32(p + 4);
	size_t pos = ch->off + 8, end = ch->off + ch->size, cap = 0, cap_s = 0;
	bool have_v = false, have_f = false;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		if (k.id == 8 && k.type == 1 && !b->material.s && !have_v) {
			GSIO_CHECK(read_string(c, &k, &b->material));
		} else if (k.id == 1 && k.type == 2 && !have_v) {
			uint32_t n;
			GSIO_CHECK(counted(c, &k, 24, 0, &n, "vertices"));
			b->vertices = GSIO_NEW_ARRAY(c->f->arena, double, (size_t)n * 3, c->err);
			GSIO_CHECK(b->vertices);
			for (size_t i = 0; i < (size_t)n * 3; i++)
				b->vertices[i] = gsioi_lef64(c->data + k.off + 4 + 8 * i);
			b->vertices_count = n;
			have_v = true;
		} else if (k.id == 0x11 && k.type == 2 && !have_f) {
			GSIO_CHECK(decode_faces(c, &k, b));
			have_f = true;
		} else if (k.id == 0x12 && k.type == 2) {
			GSIO_CHECK(GSIOI_WMP_PUSH(c->f->arena, b->surfaces, b->surfaces_count, cap_s, c->err));
			gsio_wmp_surface *s = &b->surfaces[b->surfaces_count++];
			memset(s, 0, sizeof(*s));
			GSIO_CHECK(decode_surface(c, &k, s));
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &b->unknown, &b->unknown_count, &cap));
		}
	}
	for (size_t i = 0; i < b->faces_count; i++)
		for (size_t j = 0; j < b->faces[i].indices_count; j++)
			if (b->faces[i].indices[j] >= b->vertices_count) {
				GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)ch->at,
				          "block %u face %zu: vertex index %u is not below the vertex count %zu",
				          b->index, i, b->faces[i].indices[j], b->vertices_count);
				return false;
			}
	for (size_t i = 0; i < b->surfaces_count; i++)
		if (b->surfaces[i].face >= b->faces_count) {
			GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)ch->at,
			          "block %u: a face record names face %u of %zu", b->index,
			          b->surfaces[i].face, b->faces_count);
			return false;
		}
	return true;
}

static bool decode_entity(bctx *c, const chunk *ch, gsio_wmp_entity *e)
{
	GSIO_CHECK(need_prefix(c, ch, 20, "entity"));
	const uint8_t *p = c->data + ch->off;
	e->head = gsioi_le32(p);
	e->flags = gsioi_le32(p + 4);
	e->type = gsioi_le32(p + 8);
	e->ambient = gsioi_lef32(p + 12);
	e->albedo = gsioi_lef32(p + 16);
	size_t pos = ch->off + 20, end = ch->off + ch->size, cap = 0;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		if (k.id == 3 && k.type == 1 && !e->name.s) {
			GSIO_CHECK(read_string(c, &k, &e->name));
		} else if (k.id == 0x0B && k.type == 1 && !e->file.s) {
			GSIO_CHECK(read_string(c, &k, &e->file));
		} else if (k.id == 0x0C && k.type == 1 && !e->action.s) {
			GSIO_CHECK(read_string(c, &k, &e->action));
		} else if (k.id == 0x0B && k.type == 2 && !e->has_skills) {
			uint32_t n;
			GSIO_CHECK(counted(c, &k, 8, 0, &n, "skills"));
			e->skills = GSIO_NEW_ARRAY(c->f->arena, double, n, c->err);
			GSIO_CHECK(e->skills);
			for (uint32_t i = 0; i < n; i++) e->skills[i] = gsioi_lef64(c->data + k.off + 4 + 8 * i);
			e->skills_count = n;
			e->has_skills = true;
		} else if (k.id == 8 && k.type == 1 && !e->material.s) {
			GSIO_CHECK(read_string(c, &k, &e->material));
		} else if (k.id == 0x0F && k.type == 1 && !e->string15.s) {
			GSIO_CHECK(read_string(c, &k, &e->string15));
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &e->unknown, &e->unknown_count, &cap));
		}
	}
	return true;
}

static bool decode_path(bctx *c, const chunk *ch, gsio_wmp_path *pa)
{
	GSIO_CHECK(need_prefix(c, ch, 8, "path"));
	pa->head[0] = gsioi_le32(c->data + ch->off);
	pa->head[1] = gsioi_le32(c->data + ch->off + 4);
	size_t pos = ch->off + 8, end = ch->off + ch->size, cap = 0;
	size_t skill_nodes = 0;
	bool have_nodes = false;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		if (k.id == 3 && k.type == 1 && !pa->name.s) {
			GSIO_CHECK(read_string(c, &k, &pa->name));
		} else if (k.id == 1 && k.type == 2 && !have_nodes) {
			uint32_t n;
			GSIO_CHECK(counted(c, &k, 24, 0, &n, "path nodes"));
			pa->nodes = GSIO_NEW_ARRAY(c->f->arena, double, (size_t)n * 3, c->err);
			GSIO_CHECK(pa->nodes);
			for (size_t i = 0; i < (size_t)n * 3; i++)
				pa->nodes[i] = gsioi_lef64(c->data + k.off + 4 + 8 * i);
			pa->nodes_count = n;
			have_nodes = true;
		} else if (k.id == 0x0D && k.type == 2 && !pa->has_skills && k.size >= 8) {
			uint32_t n = gsioi_le32(c->data + k.off), per = gsioi_le32(c->data + k.off + 4);
			size_t body = k.size - 8, total;
			if (!gsioi_mul3_size(n, per, 8, &total) || total != body)
				return fail_at(c, &k, GSIO_ERR_CORRUPT, "path node skills do not fit their chunk");
			pa->skills = GSIO_NEW_ARRAY(c->f->arena, double, (size_t)n * per, c->err);
			GSIO_CHECK(pa->skills);
			for (size_t i = 0; i < (size_t)n * per; i++)
				pa->skills[i] = gsioi_lef64(c->data + k.off + 8 + 8 * i);
			pa->skills_per_node = per;
			skill_nodes = n;
			pa->has_skills = true;
		} else if (k.id == 0x0F && k.type == 2 && !pa->has_edges) {
			uint32_t n;
			GSIO_CHECK(counted(c, &k, 40, 0, &n, "path edges"));
			pa->edges = GSIO_NEW_ARRAY(c->f->arena, gsio_wmp_edge, n, c->err);
			GSIO_CHECK(pa->edges);
			for (uint32_t i = 0; i < n; i++) {
				const uint8_t *q = c->data + k.off + 4 + 40 * (size_t)i;
				pa->edges[i].from = gsioi_le32(q);
				pa->edges[i].to = gsioi_le32(q + 4);
				for (int j = 0; j < 4; j++) pa->edges[i].values[j] = gsioi_lef64(q + 8 + 8 * j);
			}
			pa->edges_count = n;
			pa->has_edges = true;
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &pa->unknown, &pa->unknown_count, &cap));
		}
	}
	if (pa->has_skills && skill_nodes != pa->nodes_count)
		return fail_at(c, ch, GSIO_ERR_CORRUPT, "path: node skills for a different node count");
	for (size_t i = 0; i < pa->edges_count; i++)
		if (pa->edges[i].from >= pa->nodes_count || pa->edges[i].to >= pa->nodes_count)
			return fail_at(c, ch, GSIO_ERR_CORRUPT, "path: an edge names a node out of range");
	return true;
}

/* Starts, lights, sounds, regions: a fixed prefix of u32s and a few chunks. */
static bool decode_small(bctx *c, const chunk *ch, gsio_wmp_kind kind, void *el)
{
	size_t prefix = kind == GSIO_WMP_LIGHT || kind == GSIO_WMP_SOUND ? 24 : 8;
	GSIO_CHECK(need_prefix(c, ch, prefix, "element"));
	const uint8_t *p = c->data + ch->off;
	gsio_wmp_chunk **unk;
	size_t *unk_count, cap = 0;
	gsio_wmp_string *name = NULL;
	if (kind == GSIO_WMP_LIGHT) {
		gsio_wmp_light *l = el;
		l->head = gsioi_le32(p);
		l->flags = gsioi_le32(p + 4);
		for (int i = 0; i < 3; i++) l->color[i] = gsioi_le32(p + 8 + 4 * i);
		l->range = gsioi_lef32(p + 20);
		unk = &l->unknown, unk_count = &l->unknown_count;
	} else if (kind == GSIO_WMP_SOUND) {
		gsio_wmp_sound *s = el;
		for (int i = 0; i < 6; i++) s->head[i] = gsioi_le32(p + 4 * i);
		unk = &s->unknown, unk_count = &s->unknown_count;
		name = &s->file;
	} else if (kind == GSIO_WMP_START) {
		gsio_wmp_start *s = el;
		s->head[0] = gsioi_le32(p), s->head[1] = gsioi_le32(p + 4);
		unk = &s->unknown, unk_count = &s->unknown_count;
		name = &s->name;
	} else {
		gsio_wmp_region *r = el;
		r->head[0] = gsioi_le32(p), r->head[1] = gsioi_le32(p + 4);
		unk = &r->unknown, unk_count = &r->unknown_count;
		name = &r->name;
	}
	size_t pos = ch->off + prefix, end = ch->off + ch->size;
	bool have_bounds = false;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		uint8_t name_id = kind == GSIO_WMP_SOUND ? 0x0B : 3;
		if (name && k.id == name_id && k.type == 1 && !name->s) {
			GSIO_CHECK(read_string(c, &k, name));
		} else if (kind == GSIO_WMP_REGION && k.id == 9 && k.type == 0 && k.size == 48 &&
		           !have_bounds) {
			GSIO_CHECK(read_doubles(c, &k, ((gsio_wmp_region *)el)->bounds, 6, "region bounds"));
			have_bounds = true;
		} else {
			GSIO_CHECK(keep_unknown(c, &k, unk, unk_count, &cap));
		}
	}
	return true;
}

// -- Decoding: the object tree

/* Appends a zeroed element of `kind` and returns its index, or -1. */
static int64_t new_element(bctx *c, gsio_wmp_kind kind)
{
	gsio_wmp_file *f = c->f;
	gsio_arena *a = f->arena;
#define NEW_EL(arr, count, cap) \
	do { \
		if (!GSIOI_WMP_PUSH(a, f->arr, f->count, c->cap, c->err)) return -1; \
		memset(&f->arr[f->count], 0, sizeof(f->arr[0])); \
		return (int64_t)f->count++; \
	} while (0)
	switch (kind) {
	case GSIO_WMP_LEVEL: NEW_EL(levels, levels_count, cap_levels);
	case GSIO_WMP_BLOCK: NEW_EL(blocks, blocks_count, cap_blocks);
	case GSIO_WMP_START: NEW_EL(starts, starts_count, cap_starts);
	case GSIO_WMP_LIGHT: NEW_EL(lights, lights_count, cap_lights);
	case GSIO_WMP_ENTITY: NEW_EL(entities, entities_count, cap_entities);
	case GSIO_WMP_SOUND: NEW_EL(sounds, sounds_count, cap_sounds);
	case GSIO_WMP_PATH: NEW_EL(paths, paths_count, cap_paths);
	case GSIO_WMP_REGION: NEW_EL(regions, regions_count, cap_regions);
	default: NEW_EL(objects, objects_count, cap_objects);
	}
#undef NEW_EL
}

static gsio_wmp_kind payload_kind(uint8_t id)
{
	switch (id) {
	case 0x04: return GSIO_WMP_LEVEL;
	case 0x02: return GSIO_WMP_BLOCK;
	case 0x06: return GSIO_WMP_START;
	case 0x07: return GSIO_WMP_LIGHT;
	case 0x09: return GSIO_WMP_ENTITY;
	case 0x08: return GSIO_WMP_SOUND;
	case 0x0A: return GSIO_WMP_PATH;
	case 0x0B: return GSIO_WMP_REGION;
	default: return GSIO_WMP_OBJECT;
	}
}

static bool decode_node(bctx *c, const chunk *ch, unsigned depth)
{
	gsio_wmp_file *f = c->f;
	if (depth > GSIO_WMP_MAX_DEPTH)
		return fail_at(c, ch, GSIO_ERR_LIMIT, "objects nest deeper than gsio accepts");
	if (f->objects_count >= GSIO_WMP_MAX_OBJECTS)
		return fail_at(c, ch, GSIO_ERR_LIMIT, "more objects than gsio accepts");
	GSIO_CHECK(need_prefix(c, ch, 8, "object node"));
	int64_t self = new_element(c, GSIO_WMP_OBJECT);
	GSIO_CHECK(self >= 0);
	const uint8_t *p = c->data + ch->off;
	uint16_t nchild = gsioi_le16(p + 2);
	{
		gsio_wmp_object *o = &f->objects[self];
		o->node_kind = p[0];
		o->node_subkind = p[1];
		o->node_reserved = gsioi_le32(p + 4);
		o->scale[0] = o->scale[1] = o->scale[2] = 1;
	}
	gsio_wmp_ref *refs = NULL;
	size_t refs_count = 0, refs_cap = 0, children = 0, cap = 0;
	gsio_wmp_chunk *unk = NULL;
	size_t unk_count = 0;
	size_t pos = ch->off + 8, end = ch->off + ch->size;
	while (pos < end) {
		chunk k;
		GSIO_CHECK(next_chunk(c, &pos, end, &k));
		gsio_wmp_object *o = &f->objects[self]; // the array moves as children are added
		if (k.type == 1 && k.id == 2 && !o->class_name.s) {
			GSIO_CHECK(read_string(c, &k, &o->class_name));
		} else if (k.type == 1 && k.id == 3 && !o->name.s) {
			GSIO_CHECK(read_string(c, &k, &o->name));
		} else if (k.type == 0 && k.id == 1 && k.size == 24 && !o->has_position) {
			GSIO_CHECK(read_doubles(c, &k, o->position, 3, "position"));
			o->has_position = true;
		} else if (k.type == 0 && k.id == 3 && k.size == 24 && !o->has_angles) {
			GSIO_CHECK(read_doubles(c, &k, o->angles, 3, "angles"));
			o->has_angles = true;
		} else if (k.type == 0 && k.id == 5 && k.size == 24 && !o->has_scale) {
			GSIO_CHECK(read_doubles(c, &k, o->scale, 3, "scale"));
			o->has_scale = true;
		} else if (k.type == 5 && k.id == 1) {
			GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, refs, refs_count, refs_cap, c->err));
			refs[refs_count].kind = GSIO_WMP_OBJECT;
			refs[refs_count++].index = (uint32_t)f->objects_count;
			GSIO_CHECK(decode_node(c, &k, depth + 1));
			children++;
		} else if (k.type == 5 && payload_kind(k.id) != GSIO_WMP_OBJECT) {
			gsio_wmp_kind kind = payload_kind(k.id);
			int64_t idx = new_element(c, kind);
			GSIO_CHECK(idx >= 0);
			GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, refs, refs_count, refs_cap, c->err));
			refs[refs_count].kind = kind;
			refs[refs_count++].index = (uint32_t)idx;
			bool ok;
			switch (kind) {
			case GSIO_WMP_LEVEL: ok = decode_level(c, &k, &f->levels[idx]); break;
			case GSIO_WMP_BLOCK: ok = decode_block(c, &k, &f->blocks[idx]); break;
			case GSIO_WMP_ENTITY: ok = decode_entity(c, &k, &f->entities[idx]); break;
			case GSIO_WMP_PATH: ok = decode_path(c, &k, &f->paths[idx]); break;
			case GSIO_WMP_LIGHT: ok = decode_small(c, &k, kind, &f->lights[idx]); break;
			case GSIO_WMP_SOUND: ok = decode_small(c, &k, kind, &f->sounds[idx]); break;
			case GSIO_WMP_START: ok = decode_small(c, &k, kind, &f->starts[idx]); break;
			default: ok = decode_small(c, &k, kind, &f->regions[idx]); break;
			}
			GSIO_CHECK(ok);
		} else {
			GSIO_CHECK(keep_unknown(c, &k, &unk, &unk_count, &cap));
		}
	}
	if (children != nchild) {
		GSIO_FAIL(c->err, GSIO_ERR_CORRUPT, c->name, (int64_t)ch->at,
		          "object node announces %u children and holds %zu", nchild, children);
		return false;
	}
	gsio_wmp_object *o = &f->objects[self];
	o->refs = refs;
	o->refs_count = refs_count;
	o->unknown = unk;
	o->unknown_count = unk_count;
	return true;
}

// -- Decoding: the file

bool gsioi_wmp_decode_binary(gsio_wmp_file *f, const uint8_t *data, size_t size, const char *name,
                             gsio_error *err)
{
	bctx c = {.f = f, .data = data, .size = size, .name = name, .err = err};
	f->dialect = GSIO_WMP_BINARY;
	size_t pos = 4, cap_wed = 0, cap_wads = 0;
	bool have_header = false, have_root = false;
	while (pos < size) {
		chunk k;
		GSIO_CHECK(next_chunk(&c, &pos, size, &k));
		if (k.id == 1 && k.type == 4 && !have_header) {
			GSIO_CHECK(need_prefix(&c, &k, 24, "header"));
			const uint8_t *p = data + k.off;
			f->version = gsioi_le32(p);
			f->head_unknown[0] = gsioi_le32(p + 4);
			for (int i = 0; i < 3; i++) f->counts[i] = gsioi_le32(p + 8 + 4 * i);
			f->head_unknown[1] = gsioi_le32(p + 20);
			size_t q = k.off + 24, end = k.off + k.size;
			while (q < end) {
				chunk s;
				GSIO_CHECK(next_chunk(&c, &q, end, &s));
				if (s.id == 1 && s.type == 1 && !f->created.s)
					GSIO_CHECK(read_string(&c, &s, &f->created));
				else
					return fail_at(&c, &s, GSIO_ERR_CORRUPT, "unexpected chunk in the header");
			}
			have_header = true;
		} else if (k.id == 2 && k.type == 4) {
			size_t q = k.off, end = k.off + k.size;
			while (q < end) {
				chunk s;
				GSIO_CHECK(next_chunk(&c, &q, end, &s));
				if (s.id == 0x0A && s.type == 1 && s.size == 768 && !f->has_palette) {
					memcpy(f->palette, data + s.off, 768);
					f->has_palette = true;
				} else if (s.id == 4 && s.type == 1) {
					GSIO_CHECK(GSIOI_WMP_PUSH(f->arena, f->wads, f->wads_count, cap_wads, err));
					gsio_wmp_wad *w = &f->wads[f->wads_count++];
					memset(w, 0, sizeof(*w));
					GSIO_CHECK(read_string(&c, &s, &w->path));
				} else {
					GSIO_CHECK(keep_unknown(&c, &s, &f->wed_extra, &f->wed_extra_count, &cap_wed));
				}
			}
			f->has_wad_section = true;
		} else if (k.id == 1 && k.type == 5 && !have_root) {
			GSIO_CHECK(decode_node(&c, &k, 0));
			have_root = true;
		} else {
			GSIO_CHECK(keep_unknown(&c, &k, &f->unknown, &f->unknown_count, &c.cap_unknown));
		}
	}
	if (!have_header || !have_root) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, (int64_t)size, "the level has no %s",
		          !have_header ? "header chunk" : "object tree");
		return false;
	}
	return true;
}

// -- Encoding

static size_t chunk_begin(gsioi_writer *w, uint8_t id, uint8_t type)
{
	size_t at = w->size;
	uint8_t h[8] = {id, type, (uint8_t)(type + 1), 0, 0, 0, 0, 0};
	gsioi_write_bytes(w, h, 8);
	return at;
}

static void chunk_end(gsioi_writer *w, size_t at)
{
	if (w->failed) return;
	size_t n = w->size - at;
	uint32_t v = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	for (int i = 0; i < 4; i++) w->data[at + 4 + i] = (uint8_t)(v >> (8 * i));
}

static void put_f64(gsioi_writer *w, double d)
{
	uint8_t b[8];
	gsioi_put_f64(b, d);
	gsioi_write_bytes(w, b, 8);
}

static void put_string(gsioi_writer *w, uint8_t id, const gsio_wmp_string *s)
{
	if (!s->s && !s->raw) return;
	size_t at = chunk_begin(w, id, 1);
	if (s->raw)
		gsioi_write_bytes(w, s->raw, s->raw_size);
	else
		gsioi_write_bytes(w, s->s, strlen(s->s) + 1);
	chunk_end(w, at);
}

static void put_doubles(gsioi_writer *w, uint8_t id, uint8_t type, const double *v, size_t n)
{
	size_t at = chunk_begin(w, id, type);
	for (size_t i = 0; i < n; i++) put_f64(w, v[i]);
	chunk_end(w, at);
}

static void put_colour(gsioi_writer *w, uint8_t id, uint8_t index, const double *rgb)
{
	size_t at = chunk_begin(w, id, 3);
	gsioi_write_u8(w, index);
	for (int i = 0; i < 3; i++) {
		double v = rgb[i] < 0 ? 0 : rgb[i] > 255 ? 255 : rgb[i];
		gsioi_write_u8(w, (uint8_t)(v + 0.5));
	}
	chunk_end(w, at);
}

static void put_unknown(gsioi_writer *w, const gsio_wmp_chunk *u, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t at = chunk_begin(w, u[i].id, u[i].type);
		gsioi_write_bytes(w, u[i].data, u[i].size);
		chunk_end(w, at);
	}
}

static uint32_t u32_of(double d)
{
	return d <= 0 ? 0 : d >= 4294967295.0 ? UINT32_MAX : (uint32_t)(d + 0.5);
}

static void put_level(gsioi_writer *w, const gsio_wmp_level *lv)
{
	size_t at = chunk_begin(w, 4, 5);
	gsioi_write_u32(w, lv->head[0]);
	gsioi_write_u32(w, lv->head[1]);
	gsioi_write_u32(w, u32_of(lv->nexus));
	gsioi_write_f32(w, (float)lv->azimuth);
	gsioi_write_f32(w, (float)lv->elevation);
	if (lv->has_unknown4) {
		size_t k = chunk_begin(w, 4, 3);
		gsioi_write_u32(w, lv->unknown4);
		chunk_end(w, k);
	}
	put_string(w, 5, &lv->script);
	put_string(w, 6, &lv->palette);
	for (size_t i = 0; i < lv->colors_count && i < 6; i++)
		put_colour(w, i < 4 ? 1 : (uint8_t)(i - 2),
		           i < 4 ? lv->fog_index[i] : i == 4 ? lv->sun_index : lv->ambient_index,
		           i < 4 ? lv->fog[i] : i == 4 ? lv->sun : lv->ambient);
	put_unknown(w, lv->unknown, lv->unknown_count);
	chunk_end(w, at);
}

static void put_block(gsioi_writer *w, const gsio_wmp_block *b)
{
	size_t at = chunk_begin(w, 2, 5);
	gsioi_write_u32(w, b->index);
	gsioi_write_u32(w, b->flags);
	put_string(w, 8, &b->material);
	size_t k = chunk_begin(w, 1, 2);
	gsioi_write_u32(w, (uint32_t)b->vertices_count);
	for (size_t i = 0; i < b->vertices_count * 3; i++) put_f64(w, b->vertices[i]);
	chunk_end(w, k);
	k = chunk_begin(w, 0x11, 2);
	gsioi_write_u32(w, (uint32_t)b->faces_count);
	for (size_t i = 0; i < b->faces_count; i++) {
		gsioi_write_u16(w, (uint16_t)b->faces[i].indices_count);
		for (size_t j = 0; j < b->faces[i].indices_count; j++)
			gsioi_write_u16(w, (uint16_t)b->faces[i].indices[j]);
	}
	chunk_end(w, k);
	for (size_t i = 0; i < b->surfaces_count; i++) {
		const gsio_wmp_surface *s = &b->surfaces[i];
		k = chunk_begin(w, 0x12, 2);
		gsioi_write_u32(w, s->face);
		gsioi_write_u32(w, s->flags);
		gsioi_write_f32(w, (float)s->ambient);
		gsioi_write_f32(w, (float)s->albedo);
		put_string(w, 3, &s->texture);
		double v[8];
		memcpy(v, s->u, sizeof(s->u));
		memcpy(v + 4, s->v, sizeof(s->v));
		put_doubles(w, 5, 2, v, 8);
		double o[5] = {s->offset[0], s->offset[1], s->angle, s->scale[0], s->scale[1]};
		put_doubles(w, 9, 2, o, 5);
		put_unknown(w, s->unknown, s->unknown_count);
		chunk_end(w, k);
	}
	put_unknown(w, b->unknown, b->unknown_count);
	chunk_end(w, at);
}

static void put_entity(gsioi_writer *w, const gsio_wmp_entity *e)
{
	size_t at = chunk_begin(w, 9, 5);
	gsioi_write_u32(w, e->head);
	gsioi_write_u32(w, e->flags);
	gsioi_write_u32(w, e->type);
	gsioi_write_f32(w, (float)e->ambient);
	gsioi_write_f32(w, (float)e->albedo);
	put_string(w, 3, &e->name);
	put_string(w, 0x0B, &e->file);
	put_string(w, 0x0C, &e->action);
	if (e->has_skills) {
		size_t k = chunk_begin(w, 0x0B, 2);
		gsioi_write_u32(w, (uint32_t)e->skills_count);
		for (size_t i = 0; i < e->skills_count; i++) put_f64(w, e->skills[i]);
		chunk_end(w, k);
	}
	put_string(w, 8, &e->material);
	put_string(w, 0x0F, &e->string15);
	put_unknown(w, e->unknown, e->unknown_count);
	chunk_end(w, at);
}

static void put_path(gsioi_writer *w, const gsio_wmp_path *p)
{
	size_t at = chunk_begin(w, 0x0A, 5);
	gsioi_write_u32(w, p->head[0]);
	gsioi_write_u32(w, p->head[1]);
	put_string(w, 3, &p->name);
	size_t k = chunk_begin(w, 1, 2);
	gsioi_write_u32(w, (uint32_t)p->nodes_count);
	for (size_t i = 0; i < p->nodes_count * 3; i++) put_f64(w, p->nodes[i]);
	chunk_end(w, k);
	if (p->has_skills) {
		k = chunk_begin(w, 0x0D, 2);
		gsioi_write_u32(w, (uint32_t)p->nodes_count);
		gsioi_write_u32(w, p->skills_per_node);
		for (size_t i = 0; i < p->nodes_count * p->skills_per_node; i++) put_f64(w, p->skills[i]);
		chunk_end(w, k);
	}
	if (p->has_edges) {
		k = chunk_begin(w, 0x0F, 2);
		gsioi_write_u32(w, (uint32_t)p->edges_count);
		for (size_t i = 0; i < p->edges_count; i++) {
			gsioi_write_u32(w, p->edges[i].from);
			gsioi_write_u32(w, p->edges[i].to);
			for (int j = 0; j < 4; j++) put_f64(w, p->edges[i].values[j]);
		}
		chunk_end(w, k);
	}
	put_unknown(w, p->unknown, p->unknown_count);
	chunk_end(w, at);
}

static void put_element(gsioi_writer *w, const gsio_wmp_file *f, gsio_wmp_ref r)
{
	size_t at;
	switch (r.kind) {
	case GSIO_WMP_LEVEL: put_level(w, &f->levels[r.index]); break;
	case GSIO_WMP_BLOCK: put_block(w, &f->blocks[r.index]); break;
	case GSIO_WMP_ENTITY: put_entity(w, &f->entities[r.index]); break;
	case GSIO_WMP_PATH: put_path(w, &f->paths[r.index]); break;
	case GSIO_WMP_START: {
		const gsio_wmp_start *s = &f->starts[r.index];
		at = chunk_begin(w, 6, 5);
		gsioi_write_u32(w, s->head[0]);
		gsioi_write_u32(w, s->head[1]);
		put_string(w, 3, &s->name);
		put_unknown(w, s->unknown, s->unknown_count);
		chunk_end(w, at);
		break;
	}
	case GSIO_WMP_LIGHT: {
		const gsio_wmp_light *l = &f->lights[r.index];
		at = chunk_begin(w, 7, 5);
		gsioi_write_u32(w, l->head);
		gsioi_write_u32(w, l->flags);
		for (int i = 0; i < 3; i++) gsioi_write_u32(w, u32_of(l->color[i]));
		gsioi_write_f32(w, (float)l->range);
		put_unknown(w, l->unknown, l->unknown_count);
		chunk_end(w, at);
		break;
	}
	case GSIO_WMP_SOUND: {
		const gsio_wmp_sound *s = &f->sounds[r.index];
		at = chunk_begin(w, 8, 5);
		for (int i = 0; i < 6; i++) gsioi_write_u32(w, s->head[i]);
		put_string(w, 0x0B, &s->file);
		put_unknown(w, s->unknown, s->unknown_count);
		chunk_end(w, at);
		break;
	}
	case GSIO_WMP_REGION: {
		const gsio_wmp_region *g = &f->regions[r.index];
		at = chunk_begin(w, 0x0B, 5);
		gsioi_write_u32(w, g->head[0]);
		gsioi_write_u32(w, g->head[1]);
		put_doubles(w, 9, 0, g->bounds, 6);
		put_string(w, 3, &g->name);
		put_unknown(w, g->unknown, g->unknown_count);
		chunk_end(w, at);
		break;
	}
	default: break;
	}
}

/* Binary node kinds for objects that came from a text file. */
static uint8_t node_kind_of(const gsio_wmp_file *f, const gsio_wmp_object *o, uint8_t *sub)
{
	*sub = 0;
	for (size_t i = 0; i < o->refs_count; i++) {
		switch (o->refs[i].kind) {
		case GSIO_WMP_LEVEL: return 0x01;
		case GSIO_WMP_BLOCK: *sub = 1; return 0x04;
		case GSIO_WMP_START: return 0x15;
		case GSIO_WMP_LIGHT: return 0x25;
		case GSIO_WMP_ENTITY: {
			const gsio_wmp_entity *e = &f->entities[o->refs[i].index];
			*sub = (uint8_t)(e->type >> 8);
			return e->skills_count > 8 ? 0x45 : 0x35;
		}
		case GSIO_WMP_SOUND: return 0x55;
		case GSIO_WMP_PATH: return 0x65;
		case GSIO_WMP_REGION: return 0x75;
		default: break;
		}
	}
	return 0x03;
}

static bool put_node(gsioi_writer *w, const gsio_wmp_file *f, size_t idx, unsigned depth,
                     gsio_error *err)
{
	if (depth > GSIO_WMP_MAX_DEPTH) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, "", -1, "objects nest deeper than %u (or form a cycle)",
		          GSIO_WMP_MAX_DEPTH);
		return false;
	}
	const gsio_wmp_object *o = &f->objects[idx];
	size_t children = 0;
	for (size_t i = 0; i < o->refs_count; i++) children += o->refs[i].kind == GSIO_WMP_OBJECT;
	uint8_t kind = o->node_kind, sub = o->node_subkind;
	if (f->dialect != GSIO_WMP_BINARY) kind = node_kind_of(f, o, &sub);
	size_t at = chunk_begin(w, 1, 5);
	gsioi_write_u8(w, kind);
	gsioi_write_u8(w, sub);
	gsioi_write_u16(w, (uint16_t)children);
	gsioi_write_u32(w, o->node_reserved);
	put_string(w, 2, &o->class_name);
	put_string(w, 3, &o->name);
	put_doubles(w, 1, 0, o->position, 3);
	put_doubles(w, 3, 0, o->angles, 3);
	put_doubles(w, 5, 0, o->scale, 3);
	for (size_t i = 0; i < o->refs_count; i++)
		if (o->refs[i].kind != GSIO_WMP_OBJECT) put_element(w, f, o->refs[i]);
	for (size_t i = 0; i < o->refs_count; i++)
		if (o->refs[i].kind == GSIO_WMP_OBJECT)
			GSIO_CHECK(put_node(w, f, o->refs[i].index, depth + 1, err));
	put_unknown(w, o->unknown, o->unknown_count);
	chunk_end(w, at);
	return true;
}

bool gsioi_wmp_encode_binary(const gsio_wmp_file *f, gsioi_writer *w, gsio_error *err)
{
	gsioi_write_bytes(w, "WMPB", 4);
	size_t at = chunk_begin(w, 1, 4);
	gsioi_write_u32(w, f->version ? f->version : 710);
	gsioi_write_u32(w, f->head_unknown[0]);
	gsioi_write_u32(w, (uint32_t)f->objects_count);
	gsioi_write_u32(w, (uint32_t)f->blocks_count);
	size_t entities = f->levels_count + f->starts_count + f->lights_count + f->entities_count +
	                  f->sounds_count + f->paths_count + f->regions_count;
	gsioi_write_u32(w, (uint32_t)entities);
	gsioi_write_u32(w, f->head_unknown[1]);
	put_string(w, 1, &f->created);
	chunk_end(w, at);
	at = chunk_begin(w, 2, 4);
	if (f->has_palette) {
		size_t k = chunk_begin(w, 0x0A, 1);
		gsioi_write_bytes(w, f->palette, 768);
		chunk_end(w, k);
	}
	for (size_t i = 0; i < f->wads_count; i++) put_string(w, 4, &f->wads[i].path);
	put_unknown(w, f->wed_extra, f->wed_extra_count);
	chunk_end(w, at);
	if (f->objects_count) GSIO_CHECK(put_node(w, f, 0, 0, err));
	put_unknown(w, f->unknown, f->unknown_count);
	return true;
}
