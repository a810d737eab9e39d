/* WMB objects list (list 15, docs/FORMATS.md §12.7-12.8): a count, a
 * table of offsets from the list's start, and the records they point to,
 * each starting with its type. Records are reached through the table only
 * (a zero word sometimes follows it) and sized by the next offset; the
 * table must ascend. The fields of each type are decoded at the offsets
 * the samples show, alignment padding included; what a record holds past
 * its fields stays a gap for the encode. */
#include "wmb_internal.h"

#include <math.h>
#include <stdio.h>

const char *gsioi_wmb_object_kind(uint32_t type)
{
	static const char *const k[] = {"unknown", "position", "light", "old_entity", "sound",
	                                "info",    "path",     "entity", "region"};
	return type < 9 ? k[type] : "unknown";
}

/* The smallest record of each type (INFO: WMB7's). */
static uint32_t min_size(uint32_t type, uint32_t version)
{
	switch (type) {
	case GSIO_WMB_POSITION: return 56;
	case GSIO_WMB_LIGHT: return 36;
	case GSIO_WMB_OLD_ENTITY: return 136;
	case GSIO_WMB_SOUND: return 72;
	case GSIO_WMB_INFO: return version == 6 ? 68 : 60;
	case GSIO_WMB_PATH: return 44;
	case GSIO_WMB_ENTITY: return 372;
	case GSIO_WMB_REGION: return 56;
	default: return 4;
	}
}

/* A string field of n bytes (n <= 33): raw kept, text up to its NUL. */
static void get_str(const uint8_t *p, size_t n, uint8_t *raw, char *text)
{
	memcpy(raw, p, n);
	size_t k = 0;
	while (k < n && p[k]) k++;
	memcpy(text, p, k);
	text[k] = 0;
}

/* An old entity's file name: 13 bytes, continued into the action field
 * when they hold no NUL (the compiler copies it unbounded); the action is
 * then unknown. */
static void old_entity_names(gsio_wmb_object *o)
{
	if (memchr(o->raw_file, 0, 13)) return;
	size_t k = 0;
	while (k < 20 && o->raw_action[k]) k++;
	memcpy(o->file, o->raw_file, 13);
	memcpy(o->file + 13, o->raw_action, k);
	o->file[13 + k] = 0;
	o->action[0] = 0;
}

static bool decode_path(gsio_wmb_file *f, gsio_wmb_object *o, const uint8_t *r, const char *name,
                        uint32_t at, gsio_error *err)
{
	get_str(r + 4, 20, o->raw_name, o->name);
	o->path_nodes_count = gsioi_lef32(r + 24);
	for (int k = 0; k < 3; k++) o->unused[k] = gsioi_le32(r + 28 + 4 * k);
	o->path_field = gsioi_le32(r + 40);
	float nf = o->path_nodes_count;
	uint32_t room = (o->size - 44) / 36;
	if (!(nf >= 0 && nf <= (float)room && nf == floorf(nf))) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)at,
		          "path object: %g nodes is not a whole number of nodes that fits its %u bytes",
		          (double)nf, o->size);
		return false;
	}
	uint32_t n = (uint32_t)nf;
	uint32_t left = (o->size - 44 - 36 * n) / 24;
	// The stored word is 3 * nodes + 2 * edges; the room left decides when
	// it does not give a whole count that fits.
	uint64_t edges = left;
	if (o->path_field >= 3 * (uint64_t)n && (o->path_field - 3 * (uint64_t)n) % 2 == 0 &&
	    (o->path_field - 3 * (uint64_t)n) / 2 <= left)
		edges = (o->path_field - 3 * (uint64_t)n) / 2;
	o->path_nodes_n = n;
	o->path_edges_count = (uint32_t)edges;
	o->path_nodes = GSIO_NEW_ARRAY(f->arena, float, 3 * (size_t)n, err);
	o->path_skills = GSIO_NEW_ARRAY(f->arena, float, 6 * (size_t)n, err);
	o->path_edges = GSIO_NEW_ARRAY(f->arena, gsio_wmb_path_edge, o->path_edges_count, err);
	GSIO_CHECK(o->path_nodes && o->path_skills && o->path_edges);
	wmb_getfs(r + 44, o->path_nodes, 3 * (size_t)n);
	wmb_getfs(r + 44 + 12 * (size_t)n, o->path_skills, 6 * (size_t)n);
	for (uint32_t i = 0; i < o->path_edges_count; i++) {
		float v[6];
		wmb_getfs(r + 44 + 36 * (size_t)n + 24 * (size_t)i, v, 6);
		o->path_edges[i] = (gsio_wmb_path_edge){v[0], v[1], v[2], v[3], v[4], v[5]};
	}
	return true;
}

static void get_placement(gsio_wmb_object *o, const uint8_t *r)
{
	wmb_getfs(r + 4, o->origin, 3);
	wmb_getfs(r + 16, o->angles, 3);
	wmb_getfs(r + 28, o->scale, 3);
}

static bool decode_object(gsio_wmb_file *f, gsio_wmb_object *o, const uint8_t *r, const char *name,
                          uint32_t at, gsio_error *err)
{
	o->type = gsioi_le32(r);
	uint32_t need = min_size(o->type, f->version);
	if (o->size < need) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, (int64_t)at,
		          "%s object (type %u) needs %u bytes, the next record comes after %u",
		          gsioi_wmb_object_kind(o->type), o->type, need, o->size);
		return false;
	}
	for (int k = 0; k < 3; k++) o->scale[k] = 1;
	switch (o->type) {
	case GSIO_WMB_POSITION:
		wmb_getfs(r + 4, o->origin, 3);
		wmb_getfs(r + 16, o->angles, 3);
		o->unused[0] = gsioi_le32(r + 28), o->unused[1] = gsioi_le32(r + 32);
		get_str(r + 36, 20, o->raw_name, o->name);
		break;
	case GSIO_WMB_LIGHT:
		wmb_getfs(r + 4, o->origin, 3);
		wmb_getfs(r + 16, o->color, 3);
		o->range = gsioi_lef32(r + 28);
		o->flags = gsioi_le32(r + 32);
		break;
	case GSIO_WMB_OLD_ENTITY:
		get_placement(o, r);
		get_str(r + 40, 20, o->raw_name, o->name);
		get_str(r + 60, 13, o->raw_file, o->file);
		get_str(r + 73, 20, o->raw_action, o->action);
		memcpy(o->pad, r + 93, 3);
		wmb_getfs(r + 96, o->skills, 8);
		o->skills_count = 8;
		o->flags = gsioi_le32(r + 128);
		o->ambient = gsioi_lef32(r + 132);
		o->albedo = 50;
		old_entity_names(o);
		break;
	case GSIO_WMB_SOUND:
		wmb_getfs(r + 4, o->origin, 3);
		o->volume = gsioi_lef32(r + 16);
		wmb_getfs(r + 20, o->sound_unused, 2);
		o->sound_range = gsioi_le32(r + 28);
		o->flags = gsioi_le32(r + 32);
		get_str(r + 36, 33, o->raw_file, o->file);
		memcpy(o->pad, r + 69, 3);
		break;
	case GSIO_WMB_INFO: {
		gsio_wmb_info *in = &o->info;
		wmb_getfs(r + 4, in->origin, 3);
		in->azimuth = gsioi_lef32(r + 16);
		in->elevation = gsioi_lef32(r + 20);
		in->flags = gsioi_le32(r + 24);
		in->version = gsioi_lef32(r + 28);
		in->gamma = r[32], in->lmap_size = r[33], in->unused[0] = r[34], in->unused[1] = r[35];
		in->colors_count = f->version == 6 ? 8 : 6;
		for (uint32_t k = 0; k < in->colors_count; k++) in->colors[k] = gsioi_le32(r + 36 + 4 * k);
		break;
	}
	case GSIO_WMB_PATH: return decode_path(f, o, r, name, at, err);
	case GSIO_WMB_ENTITY:
		get_placement(o, r);
		get_str(r + 40, 33, o->raw_name, o->name);
		get_str(r + 73, 33, o->raw_file, o->file);
		get_str(r + 106, 33, o->raw_action, o->action);
		o->pad[0] = r[139];
		wmb_getfs(r + 140, o->skills, 20);
		o->skills_count = 20;
		o->flags = gsioi_le32(r + 220);
		o->ambient = gsioi_lef32(r + 224);
		o->albedo = gsioi_lef32(r + 228);
		o->path = gsioi_le32(r + 232);
		o->entity2 = gsioi_le32(r + 236);
		memcpy(o->material, r + 240, 33);
		memcpy(o->string1, r + 273, 33);
		memcpy(o->string2, r + 306, 33);
		memcpy(o->unused_string, r + 339, 33);
		break;
	case GSIO_WMB_REGION:
		wmb_getfs(r + 4, o->bounds, 6);
		o->unused[0] = gsioi_le32(r + 28), o->unused[1] = gsioi_le32(r + 32);
		get_str(r + 36, 20, o->raw_name, o->name);
		break;
	default: break; // kept as a gap
	}
	return true;
}

bool gsioi_wmb_decode_objects(gsio_wmb_file *f, const uint8_t *d, const char *name, gsio_error *err)
{
	(void)d;
	const uint8_t *p = f->list_bytes[GSIO_WMB_OBJECTS];
	uint32_t len = f->lists[GSIO_WMB_OBJECTS].length, at = f->lists[GSIO_WMB_OBJECTS].offset;
	if (!p) return true;
	if (len < 4) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, (int64_t)at, "list 15: no object count");
		return false;
	}
	uint32_t n = gsioi_le32(p);
	if (n > (len - 4) / 8 || n > GSIO_WMB_MAX_OBJECTS) {
		GSIO_FAIL(err, n > GSIO_WMB_MAX_OBJECTS ? GSIO_ERR_LIMIT : GSIO_ERR_CORRUPT, name,
		          (int64_t)at, "list 15: %u objects do not fit its %u bytes (or pass %u)", n, len,
		          GSIO_WMB_MAX_OBJECTS);
		return false;
	}
	f->objects = GSIO_NEW_ARRAY(f->arena, gsio_wmb_object, n, err);
	GSIO_CHECK(f->objects);
	f->objects_count = n;
	uint32_t table_end = 4 + 4 * n;
	for (uint32_t i = 0; i < n; i++) {
		gsio_wmb_object *o = &f->objects[i];
		o->offset = gsioi_le32(p + 4 + 4 * i);
		uint32_t end = i + 1 < n ? gsioi_le32(p + 8 + 4 * i) : len;
		if (o->offset < table_end || end > len || end < o->offset || end - o->offset < 4) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)(at + 4 + 4 * i),
			          "list 15: object %u at %u (next at %u) is not a record after the offset "
			          "table of a %u-byte list (offsets ascend)",
			          i, o->offset, end, len);
			return false;
		}
		o->size = end - o->offset;
		GSIO_CHECK(decode_object(f, o, p + o->offset, name, at + o->offset, err));
		if (o->type == GSIO_WMB_INFO && !f->info) f->info = &o->info;
	}
	return true;
}

static void encode_path(const gsio_wmb_object *o, wmb_out *out, size_t r)
{
	wmb_put(out, r + 4, o->raw_name, 20);
	wmb_putf(out, r + 24, o->path_nodes_count);
	for (int k = 0; k < 3; k++) wmb_put32(out, r + 28 + 4 * (size_t)k, o->unused[k]);
	wmb_put32(out, r + 40, o->path_field);
	size_t n = o->path_nodes_n;
	wmb_putfs(out, r + 44, o->path_nodes, 3 * n);
	wmb_putfs(out, r + 44 + 12 * n, o->path_skills, 6 * n);
	for (uint32_t i = 0; i < o->path_edges_count; i++) {
		const gsio_wmb_path_edge *e = &o->path_edges[i];
		float v[6] = {e->node1, e->node2, e->length, e->bezier, e->weight, e->skill};
		wmb_putfs(out, r + 44 + 36 * n + 24 * (size_t)i, v, 6);
	}
}

/* Origin, angles and scale at 4, 16, 28 (entities old and new). */
static void put_placement(const gsio_wmb_object *o, wmb_out *out, size_t r)
{
	wmb_putfs(out, r + 4, o->origin, 3);
	wmb_putfs(out, r + 16, o->angles, 3);
	wmb_putfs(out, r + 28, o->scale, 3);
}

void gsioi_wmb_encode_objects(const gsio_wmb_file *f, wmb_out *out)
{
	size_t at = f->lists[GSIO_WMB_OBJECTS].offset;
	wmb_put32(out, at, f->objects_count);
	for (uint32_t i = 0; i < f->objects_count; i++) {
		const gsio_wmb_object *o = &f->objects[i];
		size_t r = at + o->offset;
		wmb_put32(out, at + 4 + 4 * (size_t)i, o->offset);
		wmb_put32(out, r, o->type);
		switch (o->type) {
		case GSIO_WMB_POSITION:
			wmb_putfs(out, r + 4, o->origin, 3);
			wmb_putfs(out, r + 16, o->angles, 3);
			wmb_put32(out, r + 28, o->unused[0]);
			wmb_put32(out, r + 32, o->unused[1]);
			wmb_put(out, r + 36, o->raw_name, 20);
			break;
		case GSIO_WMB_LIGHT:
			wmb_putfs(out, r + 4, o->origin, 3);
			wmb_putfs(out, r + 16, o->color, 3);
			wmb_putf(out, r + 28, o->range);
			wmb_put32(out, r + 32, o->flags);
			break;
		case GSIO_WMB_OLD_ENTITY:
			put_placement(o, out, r);
			wmb_put(out, r + 40, o->raw_name, 20);
			wmb_put(out, r + 60, o->raw_file, 13);
			wmb_put(out, r + 73, o->raw_action, 20);
			wmb_put(out, r + 93, o->pad, 3);
			wmb_putfs(out, r + 96, o->skills, 8);
			wmb_put32(out, r + 128, o->flags);
			wmb_putf(out, r + 132, o->ambient);
			break;
		case GSIO_WMB_SOUND:
			wmb_putfs(out, r + 4, o->origin, 3);
			wmb_putf(out, r + 16, o->volume);
			wmb_putfs(out, r + 20, o->sound_unused, 2);
			wmb_put32(out, r + 28, o->sound_range);
			wmb_put32(out, r + 32, o->flags);
			wmb_put(out, r + 36, o->raw_file, 33);
			wmb_put(out, r + 69, o->pad, 3);
			break;
		case GSIO_WMB_INFO: {
			const gsio_wmb_info *in = &o->info;
			wmb_putfs(out, r + 4, in->origin, 3);
			wmb_putf(out, r + 16, in->azimuth);
			wmb_putf(out, r + 20, in->elevation);
			wmb_put32(out, r + 24, in->flags);
			wmb_putf(out, r + 28, in->version);
			uint8_t b[4] = {in->gamma, in->lmap_size, in->unused[0], in->unused[1]};
			wmb_put(out, r + 32, b, 4);
			for (uint32_t k = 0; k < in->colors_count; k++)
				wmb_put32(out, r + 36 + 4 * (size_t)k, in->colors[k]);
			break;
		}
		case GSIO_WMB_PATH: encode_path(o, out, r); break;
		case GSIO_WMB_ENTITY:
			put_placement(o, out, r);
			wmb_put(out, r + 40, o->raw_name, 33);
			wmb_put(out, r + 73, o->raw_file, 33);
			wmb_put(out, r + 106, o->raw_action, 33);
			wmb_put(out, r + 139, o->pad, 1);
			wmb_putfs(out, r + 140, o->skills, 20);
			wmb_put32(out, r + 220, o->flags);
			wmb_putf(out, r + 224, o->ambient);
			wmb_putf(out, r + 228, o->albedo);
			wmb_put32(out, r + 232, o->path);
			wmb_put32(out, r + 236, o->entity2);
			wmb_put(out, r + 240, o->material, 33);
			wmb_put(out, r + 273, o->string1, 33);
			wmb_put(out, r + 306, o->string2, 33);
			wmb_put(out, r + 339, o->unused_string, 33);
			break;
		case GSIO_WMB_REGION:
			wmb_putfs(out, r + 4, o->bounds, 6);
			wmb_put32(out, r + 28, o->unused[0]);
			wmb_put32(out, r + 32, o->unused[1]);
			wmb_put(out, r + 36, o->raw_name, 20);
			break;
		default: break;
		}
	}
}
