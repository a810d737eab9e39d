/* WMB codec (docs/FORMATS.md §12): the directory, every list but the
 * objects (wmb_objects.c), the gaps, the encode and the importer.
 *
 * - Directory: up to 20 (offset, length) pairs after the magic; the files
 *   of the A6 compiler have 17 or 19, the rest of those 20 places being the
 *   first list's bytes: the count is taken from the smallest offset of
 *   entries 0-16 that have a length (§12.1). A list of length 0 is absent,
 *   whatever its offset.
 * - Every count is checked against its list's length and every index that
 *   the geometry follows (triangle corners, skins, surface edges, edges)
 *   against its list; texture indices are the scene's to check (a missing
 *   texture is a warning there, not a broken file).
 * - The gaps: what the encode of the decoded structures does not write,
 *   found by encoding once with a mask at the end of the decode. */
#include "gsioi_head.h"
#include "wmb_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define WMB_MAX_SIDE 16384u /**< largest texture side accepted */

static bool fail_list(gsio_error *err, const char *name, int list, uint32_t at, const char *what,
                      gsio_error_code code)
{
	GSIO_FAIL(err, code, name, (int64_t)at, "list %d: %s", list, what);
	return false;
}

// -- Directory

static bool decode_directory(gsio_wmb_file *f, const uint8_t *d, size_t size, const char *name,
                             gsio_error *err)
{
	if (size < 4) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, 0, "a WMB starts with 4 bytes of magic; the file has %zu",
		          size);
		return false;
	}
	if (!memcmp(d, "WMB", 3) && (d[3] < '4' || d[3] > '7')) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, name, 0,
		          "a compiled GameStudio level of version \"%c\": gsio reads WMB4 to WMB7", d[3]);
		return false;
	}
	if (memcmp(d, "WMB", 3)) {
		GSIO_FAIL(err, GSIO_ERR_BAD_MAGIC, name, 0, "not a WMB4-7 compiled level");
		return false;
	}
	memcpy(f->magic, d, 4);
	f->version = d[3] == '7' ? 7 : 6;
	size_t fit = (size - 4) / 8;
	uint32_t most = fit < GSIO_WMB_LISTS ? (uint32_t)fit : GSIO_WMB_LISTS;
	if (most < 17) { // the fewest entries a file of the A6 compiler has
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, 4,
		          "the list directory is cut off: %u of at least 17 entries", most);
		return false;
	}
	// The count: where the first list (of those every version has) begins.
	uint64_t smallest = UINT64_MAX;
	for (uint32_t i = 0; i < most && i <= 16; i++) {
		uint32_t off = gsioi_le32(d + 4 + 8 * i), len = gsioi_le32(d + 8 + 8 * i);
		if (len && off < smallest) smallest = off;
	}
	uint32_t n = most;
	if (smallest == UINT64_MAX) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, 4,
		          "the list directory is empty: a compiled level has at least its objects");
		return false;
	}
	{
		if (smallest < 12) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, 4, "a list starts at %llu, inside the directory",
			          (unsigned long long)smallest);
			return false;
		}
		uint64_t k = (smallest - 4) / 8;
		if (k < n) n = (uint32_t)k;
	}
	f->lists_count = n;
	for (uint32_t i = 0; i < n; i++) {
		gsio_wmb_list *l = &f->lists[i];
		l->offset = gsioi_le32(d + 4 + 8 * i);
		l->length = gsioi_le32(d + 8 + 8 * i);
		if (!l->length) continue;
		if (l->offset < 4 + 8 * n) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, 4 + 8 * i,
			          "list %u starts at %u, inside the %u-entry directory", i, l->offset, n);
			return false;
		}
		if (l->offset > size || l->length > size - l->offset) {
			GSIO_FAIL(err, GSIO_ERR_TRUNCATED, name, 4 + 8 * i,
			          "list %u at %u, %u bytes, runs past the end of the %zu-byte file", i, l->offset,
			          l->length, size);
			return false;
		}
		f->list_bytes[i] = d + l->offset;
	}
	return true;
}

bool gsioi_wmb_head_ok(const uint8_t *head, size_t n, bool whole, const char *path, gsio_error *err)
{
	if (n < 4 + 8 * 17 && !whole) return true; // too short to judge
	gsio_wmb_file f;
	memset(&f, 0, sizeof(f));
	// A head that is not the whole file rules out what the directory's
	// first bytes do (the magic, an empty directory, a list inside it),
	// with the whole file's error; the lists' ends wait for the file.
	if (whole) return decode_directory(&f, head, n, path, err);
	uint64_t smallest = UINT64_MAX;
	for (uint32_t i = 0; i < 17 && 12 + 8 * (size_t)i <= n; i++)
		if (gsioi_le32(head + 8 + 8 * i) && gsioi_le32(head + 4 + 8 * i) < smallest)
			smallest = gsioi_le32(head + 4 + 8 * i);
	if (memcmp(head, "WMB", 3) || head[3] < '4' || head[3] > '7' || smallest == UINT64_MAX || smallest < 12)
		return decode_directory(&f, head, n, path, err); // the same error as the whole file's
	return true;
}

// -- Palette, textures, texture projections

static void decode_palette(gsio_wmb_file *f)
{
	const uint8_t *p = f->list_bytes[GSIO_WMB_PALETTES];
	uint32_t len = f->lists[GSIO_WMB_PALETTES].length;
	if (!p || len < 784) return; // kept as bytes
	for (int i = 0; i < 4; i++) f->palette_head[i] = gsioi_le32(p + 4 * i);
	memcpy(f->palette, p + 16, 768);
	f->has_palette = true;
	f->palette_tail = p + 784;
	f->palette_tail_size = len - 784;
}

static size_t format_bytes(uint32_t fmt)
{
	return fmt == 0 ? 1 : fmt == 2 || fmt == 3 ? 2 : fmt == 4 ? 3 : fmt == 5 ? 4 : 0;
}

/* The format of an old WMB6 code (bits above 0-3, or any WMB4-6 file): by
 * the bytes per texel the first mip offset (or the record's size) gives. */
static uint32_t old_format(const gsio_wmb_texture *t)
{
	uint64_t px = (uint64_t)t->width * t->height;
	uint64_t bpp = 0;
	if (!px) return t->type & 7;
	if (t->mip_offsets[0] > 40 && (t->mip_offsets[0] - 40) % px == 0)
		bpp = (t->mip_offsets[0] - 40) / px;
	else if (t->record_size > 40 && (t->record_size - 40) % px == 0)
		bpp = (t->record_size - 40) / px;
	else if (t->record_size > 40 && ((uint64_t)(t->record_size - 40) * 64) % (px * 85) == 0)
		bpp = (uint64_t)(t->record_size - 40) * 64 / (px * 85);
	return bpp == 1 ? 0 : bpp == 2 ? 2 : bpp == 3 ? 4 : bpp == 4 ? 5 : t->type & 7;
}

static bool decode_texture(gsio_wmb_file *f, gsio_wmb_texture *t, const uint8_t *r, size_t size,
                           uint32_t at, const char *name, gsio_error *err)
{
	memcpy(t->name_raw, r, 16);
	memcpy(t->name, r, 16);
	t->width = gsioi_le32(r + 16);
	t->height = gsioi_le32(r + 20);
	t->type = gsioi_le32(r + 24);
	for (int k = 0; k < 3; k++) t->mip_offsets[k] = gsioi_le32(r + 28 + 4 * k);
	t->record = r;
	t->record_size = size;
	t->format = f->version <= 6 || (t->type & ~0x0Fu) ? old_format(t) : t->type & 7;
	if (t->format == 6) { // DDS: the width is the data's byte count
		if (t->width > size - 40)
			return fail_list(err, name, GSIO_WMB_TEXTURES, at, "a DDS texture runs past its record",
			                 GSIO_ERR_TRUNCATED);
		return true;
	}
	size_t bpp = format_bytes(t->format);
	if (!bpp) return true; // an unknown format: kept, the scene warns
	if (t->width > WMB_MAX_SIDE || t->height > WMB_MAX_SIDE) {
		char m[96];
		snprintf(m, sizeof(m), "texture %.16s of %ux%u is larger than %u texels a side", t->name,
		         t->width, t->height, WMB_MAX_SIDE);
		return fail_list(err, name, GSIO_WMB_TEXTURES, at, m, GSIO_ERR_LIMIT);
	}
	size_t level = (size_t)t->width * t->height * bpp;
	if (level > size - 40) {
		char m[128];
		snprintf(m, sizeof(m), "texture %.16s of %ux%u needs %zu bytes of pixels, its record holds %zu",
		         t->name, t->width, t->height, level, size - 40);
		return fail_list(err, name, GSIO_WMB_TEXTURES, at, m, GSIO_ERR_TRUNCATED);
	}
	for (int k = 0; k < 3; k++) {
		uint32_t mo = t->mip_offsets[k];
		size_t mip = (size_t)(t->width >> (k + 1)) * (t->height >> (k + 1)) * bpp;
		if (mo && (mo < 40 || mo > size || mip > size - mo)) {
			char m[96];
			snprintf(m, sizeof(m), "texture %.16s: mip %d at %u runs past its record of %zu bytes",
			         t->name, k + 1, mo, size);
			return fail_list(err, name, GSIO_WMB_TEXTURES, at, m, GSIO_ERR_CORRUPT);
		}
	}
	return true;
}

static bool decode_textures(gsio_wmb_file *f, const char *name, gsio_error *err)
{
	const uint8_t *p = f->list_bytes[GSIO_WMB_TEXTURES];
	uint32_t len = f->lists[GSIO_WMB_TEXTURES].length, at = f->lists[GSIO_WMB_TEXTURES].offset;
	if (!p) return true;
	if (len < 4) return fail_list(err, name, 2, at, "no texture count", GSIO_ERR_TRUNCATED);
	uint32_t n = gsioi_le32(p);
	if (n > (len - 4) / 44) {
		char m[96];
		snprintf(m, sizeof(m), "%u textures do not fit its %u bytes", n, len);
		return fail_list(err, name, 2, at, m, GSIO_ERR_CORRUPT);
	}
	f->textures = GSIO_NEW_ARRAY(f->arena, gsio_wmb_texture, n, err);
	f->texture_offsets = GSIO_NEW_ARRAY(f->arena, uint32_t, n, err);
	GSIO_CHECK(f->textures && f->texture_offsets);
	f->textures_count = n;
	uint32_t table_end = 4 + 4 * n;
	for (uint32_t i = 0; i < n; i++) f->texture_offsets[i] = gsioi_le32(p + 4 + 4 * i);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t o = f->texture_offsets[i];
		uint32_t end = i + 1 < n ? f->texture_offsets[i + 1] : len;
		if (o < table_end || o > len || end > len || end < o || end - o < 40) {
			char m[128];
			snprintf(m, sizeof(m), "texture %u at %u (to %u) is not a record of 40 bytes or more "
			                       "after the offset table",
			         i, o, end);
			return fail_list(err, name, 2, at + 4 + 4 * i, m, GSIO_ERR_CORRUPT);
		}
		GSIO_CHECK(decode_texture(f, &f->textures[i], p + o, end - o, at + o, name, err));
	}
	return true;
}

static void decode_texinfo_at(gsio_wmb_texinfo *t, const uint8_t *r)
{
	wmb_getfs(r, t->s, 4);
	wmb_getfs(r + 16, t->t, 4);
	t->texture = gsioi_le32(r + 32);
	t->flags = gsioi_le16(r + 36);
	memcpy(t->user_flags, r + 38, 4);
	t->ambient = r[42];
	t->albedo = r[43];
	memcpy(t->material, r + 44, 20);
}

static bool decode_texinfos(gsio_wmb_file *f, gsio_error *err)
{
	const uint8_t *p = f->list_bytes[GSIO_WMB_TEXINFO];
	if (!p) return true;
	uint32_t n = f->lists[GSIO_WMB_TEXINFO].length / 64; // a rest is a gap
	f->texinfos = GSIO_NEW_ARRAY(f->arena, gsio_wmb_texinfo, n, err);
	GSIO_CHECK(f->texinfos);
	f->texinfos_count = n;
	for (uint32_t i = 0; i < n; i++) decode_texinfo_at(&f->texinfos[i], p + 64 * (size_t)i);
	return true;
}

// -- WMB7 blocks

static bool decode_blocks(gsio_wmb_file *f, const char *name, gsio_error *err)
{
	const uint8_t *p = f->list_bytes[GSIO_WMB_BLOCKS];
	uint32_t len = f->lists[GSIO_WMB_BLOCKS].length, at = f->lists[GSIO_WMB_BLOCKS].offset;
	if (!p) return true;
	if (len < 4) return fail_list(err, name, 17, at, "no block count", GSIO_ERR_TRUNCATED);
	uint32_t n = gsioi_le32(p);
	if (n > (len - 4) / 40) {
		char m[96];
		snprintf(m, sizeof(m), "%u blocks do not fit its %u bytes", n, len);
		return fail_list(err, name, 17, at, m, GSIO_ERR_CORRUPT);
	}
	f->blocks = GSIO_NEW_ARRAY(f->arena, gsio_wmb_block, n, err);
	GSIO_CHECK(f->blocks);
	f->blocks_count = n;
	size_t pos = 4;
	for (uint32_t b = 0; b < n; b++) {
		gsio_wmb_block *k = &f->blocks[b];
		char m[160];
		if (len - pos < 40) {
			snprintf(m, sizeof(m), "block %u's header at %zu runs past the list", b, pos);
			return fail_list(err, name, 17, at + (uint32_t)pos, m, GSIO_ERR_TRUNCATED);
		}
		const uint8_t *h = p + pos;
		wmb_getfs(h, k->bbox, 6);
		k->content = (int32_t)gsioi_le32(h + 24);
		k->vertices_count = gsioi_le32(h + 28);
		k->triangles_count = gsioi_le32(h + 32);
		k->skins_count = gsioi_le32(h + 36);
		pos += 40;
		uint64_t need = (uint64_t)k->vertices_count * 28 + (uint64_t)k->triangles_count * 12 +
		                (uint64_t)k->skins_count * 20;
		if (need > len - pos) {
			snprintf(m, sizeof(m), "block %u: %u vertices, %u triangles and %u skins need %llu bytes, "
			                       "%zu are left",
			         b, k->vertices_count, k->triangles_count, k->skins_count,
			         (unsigned long long)need, len - pos);
			return fail_list(err, name, 17, at + (uint32_t)pos - 40, m, GSIO_ERR_TRUNCATED);
		}
		k->vertices = GSIO_NEW_ARRAY(f->arena, gsio_wmb_vertex, k->vertices_count, err);
		k->triangles = GSIO_NEW_ARRAY(f->arena, gsio_wmb_triangle, k->triangles_count, err);
		k->skins = GSIO_NEW_ARRAY(f->arena, gsio_wmb_skin, k->skins_count, err);
		GSIO_CHECK(k->vertices && k->triangles && k->skins);
		for (uint32_t i = 0; i < k->vertices_count; i++, pos += 28) {
			wmb_getfs(p + pos, k->vertices[i].pos, 3);
			wmb_getfs(p + pos + 12, k->vertices[i].uv, 2);
			wmb_getfs(p + pos + 20, k->vertices[i].lm, 2);
		}
		for (uint32_t i = 0; i < k->triangles_count; i++, pos += 12) {
			gsio_wmb_triangle *t = &k->triangles[i];
			for (int c = 0; c < 3; c++) t->v[c] = gsioi_le16(p + pos + 2 * c);
			t->skin = gsioi_le16(p + pos + 6);
			t->face = gsioi_le32(p + pos + 8);
			if (t->v[0] >= k->vertices_count || t->v[1] >= k->vertices_count ||
			    t->v[2] >= k->vertices_count || t->skin >= k->skins_count) {
				snprintf(m, sizeof(m), "block %u triangle %u: corners (%u %u %u) or skin %u outside "
				                       "its %u vertices and %u skins",
				         b, i, t->v[0], t->v[1], t->v[2], t->skin, k->vertices_count, k->skins_count);
				return fail_list(err, name, 17, at + (uint32_t)pos, m, GSIO_ERR_CORRUPT);
			}
		}
		for (uint32_t i = 0; i < k->skins_count; i++, pos += 20) {
			gsio_wmb_skin *s = &k->skins[i];
			s->texture = gsioi_le16(p + pos);
			s->lightmap = gsioi_le16(p + pos + 2);
			s->material = gsioi_le32(p + pos + 4);
			s->ambient = gsioi_lef32(p + pos + 8);
			s->albedo = gsioi_lef32(p + pos + 12);
			s->flags = gsioi_le32(p + pos + 16);
		}
	}
	return true;
}

// -- WMB6 polygons

static bool decode_polygons(gsio_wmb_file *f, const char *name, gsio_error *err)
{
	const uint8_t *pv = f->list_bytes[GSIO_WMB_VERTICES], *pe = f->list_bytes[GSIO_WMB_EDGES];
	const uint8_t *ps = f->list_bytes[GSIO_WMB_SURFEDGES], *pf = f->list_bytes[GSIO_WMB_FACES];
	if (f->version != 6) return true; // WMB7 has none of these (kept as bytes when present)
	f->vertices_count = pv ? f->lists[GSIO_WMB_VERTICES].length / 12 : 0;
	f->edges_count = pe ? f->lists[GSIO_WMB_EDGES].length / 8 : 0;
	f->surfedges_count = ps ? f->lists[GSIO_WMB_SURFEDGES].length / 4 : 0;
	f->faces_count = pf ? f->lists[GSIO_WMB_FACES].length / 24 : 0;
	f->vertices = GSIO_NEW_ARRAY(f->arena, float, 3 * (size_t)f->vertices_count, err);
	f->edges = GSIO_NEW_ARRAY(f->arena, uint32_t, 2 * (size_t)f->edges_count, err);
	f->surfedges = GSIO_NEW_ARRAY(f->arena, int32_t, f->surfedges_count, err);
	f->faces = GSIO_NEW_ARRAY(f->arena, gsio_wmb_face, f->faces_count, err);
	GSIO_CHECK(f->vertices && f->edges && f->surfedges && f->faces);
	if (pv) wmb_getfs(pv, f->vertices, 3 * (size_t)f->vertices_count);
	for (uint32_t i = 0; i < 2 * f->edges_count; i++) f->edges[i] = gsioi_le32(pe + 4 * (size_t)i);
	for (uint32_t i = 0; i < f->surfedges_count; i++)
		f->surfedges[i] = (int32_t)gsioi_le32(ps + 4 * (size_t)i);
	char m[160];
	// Edge 0 is unused (garbage in the oldest files): not checked.
	for (uint32_t i = 1; i < f->edges_count; i++)
		if (f->edges[2 * i] >= f->vertices_count || f->edges[2 * i + 1] >= f->vertices_count) {
			snprintf(m, sizeof(m), "edge %u (%u, %u) outside the %u vertices", i, f->edges[2 * i],
			         f->edges[2 * i + 1], f->vertices_count);
			return fail_list(err, name, 12, f->lists[12].offset + 8 * i, m, GSIO_ERR_CORRUPT);
		}
	for (uint32_t i = 0; i < f->faces_count; i++) {
		const uint8_t *r = pf + 24 * (size_t)i;
		gsio_wmb_face *fa = &f->faces[i];
		fa->unused = gsioi_le16(r);
		fa->side = gsioi_le16(r + 2);
		fa->first_surfedge = gsioi_le32(r + 4);
		fa->edges_count = gsioi_le16(r + 8);
		fa->texinfo = gsioi_le16(r + 10);
		memcpy(fa->styles, r + 12, 4);
		fa->lightmap = (int32_t)gsioi_le32(r + 16);
		fa->plane = gsioi_le32(r + 20);
		uint32_t at = f->lists[GSIO_WMB_FACES].offset + 24 * i;
		if (fa->first_surfedge > f->surfedges_count ||
		    fa->edges_count > f->surfedges_count - fa->first_surfedge) {
			snprintf(m, sizeof(m), "face %u: surface edges %u + %u outside the %u", i,
			         fa->first_surfedge, fa->edges_count, f->surfedges_count);
			return fail_list(err, name, 7, at, m, GSIO_ERR_CORRUPT);
		}
		for (uint32_t k = 0; k < fa->edges_count; k++) {
			int32_t e = f->surfedges[fa->first_surfedge + k];
			uint32_t ae = e < 0 ? (uint32_t)0 - (uint32_t)e : (uint32_t)e;
			if (ae == 0 || ae >= f->edges_count) {
				snprintf(m, sizeof(m), "face %u: surface edge %u names edge %d of %u", i,
				         fa->first_surfedge + k, (int)e, f->edges_count);
				return fail_list(err, name, 13, at, m, GSIO_ERR_CORRUPT);
			}
		}
	}
	return true;
}

// -- Lightmaps

static bool decode_lightmaps(gsio_wmb_file *f, const char *name, gsio_error *err)
{
	uint32_t lm = f->info ? f->info->lmap_size : 0;
	if (lm > 2) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, f->lists[GSIO_WMB_OBJECTS].offset,
		          "lightmap size code %u (0-2: 256, 512, 1024 texels a side)", lm);
		return false;
	}
	f->lightmap_side = 256u << lm;
	const uint8_t *p = f->list_bytes[GSIO_WMB_LIGHTMAPS];
	if (!p) return true;
	f->lightmaps = p;
	f->lightmaps_count = f->lists[GSIO_WMB_LIGHTMAPS].length / (3 * f->lightmap_side * f->lightmap_side);
	return true;
}

/* The terrain lightmaps, or none when the list does not hold its count
 * (a bogus list overlapping another: kept as bytes). */
static bool decode_terrain_lightmaps(gsio_wmb_file *f, gsio_error *err)
{
	const uint8_t *p = f->list_bytes[GSIO_WMB_TERRAIN_LIGHTMAPS];
	uint32_t len = f->lists[GSIO_WMB_TERRAIN_LIGHTMAPS].length;
	if (!p) return true;
	if (len < 4) return f->terrain_lightmaps_bogus = true, true;
	uint32_t n = gsioi_le32(p);
	size_t pos = 4;
	for (uint32_t i = 0; i < n; i++) {
		if (len - pos < 12) return f->terrain_lightmaps_bogus = true, true;
		uint64_t texels = (uint64_t)gsioi_le32(p + pos + 4) * gsioi_le32(p + pos + 8) * 3;
		if (texels > len - pos - 12) return f->terrain_lightmaps_bogus = true, true;
		pos += 12 + (size_t)texels;
	}
	f->terrain_lightmaps = GSIO_NEW_ARRAY(f->arena, gsio_wmb_terrain_lightmap, n, err);
	GSIO_CHECK(f->terrain_lightmaps);
	f->terrain_lightmaps_count = n;
	pos = 4;
	for (uint32_t i = 0; i < n; i++) {
		gsio_wmb_terrain_lightmap *t = &f->terrain_lightmaps[i];
		t->object = gsioi_le32(p + pos);
		t->width = gsioi_le32(p + pos + 4);
		t->height = gsioi_le32(p + pos + 8);
		t->texels = p + pos + 12;
		pos += 12 + (size_t)t->width * t->height * 3;
	}
	return true;
}

// -- Encode

/* Whether list i is written from the structures (else from its bytes). */
static bool list_decoded(const gsio_wmb_file *f, int i)
{
	switch (i) {
	case GSIO_WMB_PALETTES: return f->has_palette;
	case GSIO_WMB_TEXTURES: case GSIO_WMB_TEXINFO: case GSIO_WMB_BLOCKS: case GSIO_WMB_OBJECTS: return true;
	case GSIO_WMB_VERTICES: case GSIO_WMB_FACES: case GSIO_WMB_EDGES: case GSIO_WMB_SURFEDGES:
		return f->version == 6;
	case GSIO_WMB_TERRAIN_LIGHTMAPS: return !f->terrain_lightmaps_bogus;
	default: return false;
	}
}

static void encode_textures(const gsio_wmb_file *f, wmb_out *o)
{
	size_t at = f->lists[GSIO_WMB_TEXTURES].offset;
	wmb_put32(o, at, f->textures_count);
	for (uint32_t i = 0; i < f->textures_count; i++) {
		const gsio_wmb_texture *t = &f->textures[i];
		size_t r = at + f->texture_offsets[i];
		wmb_put32(o, at + 4 + 4 * (size_t)i, f->texture_offsets[i]);
		wmb_put(o, r, t->name_raw, 16);
		wmb_put32(o, r + 16, t->width);
		wmb_put32(o, r + 20, t->height);
		wmb_put32(o, r + 24, t->type);
		for (int k = 0; k < 3; k++) wmb_put32(o, r + 28 + 4 * (size_t)k, t->mip_offsets[k]);
		wmb_put(o, r + 40, t->record + 40, t->record_size - 40);
	}
}

static void encode_blocks(const gsio_wmb_file *f, wmb_out *o)
{
	size_t at = f->lists[GSIO_WMB_BLOCKS].offset;
	wmb_put32(o, at, f->blocks_count);
	at += 4;
	for (uint32_t b = 0; b < f->blocks_count; b++) {
		const gsio_wmb_block *k = &f->blocks[b];
		wmb_putfs(o, at, k->bbox, 6);
		wmb_put32(o, at + 24, (uint32_t)k->content);
		wmb_put32(o, at + 28, k->vertices_count);
		wmb_put32(o, at + 32, k->triangles_count);
		wmb_put32(o, at + 36, k->skins_count);
		at += 40;
		for (uint32_t i = 0; i < k->vertices_count; i++, at += 28) {
			wmb_putfs(o, at, k->vertices[i].pos, 3);
			wmb_putfs(o, at + 12, k->vertices[i].uv, 2);
			wmb_putfs(o, at + 20, k->vertices[i].lm, 2);
		}
		for (uint32_t i = 0; i < k->triangles_count; i++, at += 12) {
			for (int c = 0; c < 3; c++) wmb_put16(o, at + 2 * (size_t)c, k->triangles[i].v[c]);
			wmb_put16(o, at + 6, k->triangles[i].skin);
			wmb_put32(o, at + 8, k->triangles[i].face);
		}
		for (uint32_t i = 0; i < k->skins_count; i++, at += 20) {
			const gsio_wmb_skin *s = &k->skins[i];
			wmb_put16(o, at, s->texture);
			wmb_put16(o, at + 2, s->lightmap);
			wmb_put32(o, at + 4, s->material);
			wmb_putf(o, at + 8, s->ambient);
			wmb_putf(o, at + 12, s->albedo);
			wmb_put32(o, at + 16, s->flags);
		}
	}
}

static void encode_polygons(const gsio_wmb_file *f, wmb_out *o)
{
	wmb_putfs(o, f->lists[GSIO_WMB_VERTICES].offset, f->vertices, 3 * (size_t)f->vertices_count);
	for (uint32_t i = 0; i < 2 * f->edges_count; i++)
		wmb_put32(o, f->lists[GSIO_WMB_EDGES].offset + 4 * (size_t)i, f->edges[i]);
	for (uint32_t i = 0; i < f->surfedges_count; i++)
		wmb_put32(o, f->lists[GSIO_WMB_SURFEDGES].offset + 4 * (size_t)i, (uint32_t)f->surfedges[i]);
	for (uint32_t i = 0; i < f->faces_count; i++) {
		size_t r = f->lists[GSIO_WMB_FACES].offset + 24 * (size_t)i;
		const gsio_wmb_face *fa = &f->faces[i];
		wmb_put16(o, r, fa->unused);
		wmb_put16(o, r + 2, fa->side);
		wmb_put32(o, r + 4, fa->first_surfedge);
		wmb_put16(o, r + 8, fa->edges_count);
		wmb_put16(o, r + 10, fa->texinfo);
		wmb_put(o, r + 12, fa->styles, 4);
		wmb_put32(o, r + 16, (uint32_t)fa->lightmap);
		wmb_put32(o, r + 20, fa->plane);
	}
}

static void encode_all(const gsio_wmb_file *f, wmb_out *o)
{
	wmb_put(o, 0, f->magic, 4);
	for (uint32_t i = 0; i < f->lists_count; i++) {
		wmb_put32(o, 4 + 8 * (size_t)i, f->lists[i].offset);
		wmb_put32(o, 8 + 8 * (size_t)i, f->lists[i].length);
	}
	for (int i = 0; i < GSIO_WMB_LISTS; i++)
		if (f->list_bytes[i] && !list_decoded(f, i))
			wmb_put(o, f->lists[i].offset, f->list_bytes[i], f->lists[i].length);
	if (f->has_palette) {
		size_t at = f->lists[GSIO_WMB_PALETTES].offset;
		for (int i = 0; i < 4; i++) wmb_put32(o, at + 4 * (size_t)i, f->palette_head[i]);
		wmb_put(o, at + 16, f->palette, 768);
		wmb_put(o, at + 784, f->palette_tail, f->palette_tail_size);
	}
	if (f->list_bytes[GSIO_WMB_TEXTURES]) encode_textures(f, o);
	for (uint32_t i = 0; i < f->texinfos_count; i++) {
		const gsio_wmb_texinfo *t = &f->texinfos[i];
		size_t r = f->lists[GSIO_WMB_TEXINFO].offset + 64 * (size_t)i;
		wmb_putfs(o, r, t->s, 4);
		wmb_putfs(o, r + 16, t->t, 4);
		wmb_put32(o, r + 32, t->texture);
		wmb_put16(o, r + 36, t->flags);
		wmb_put(o, r + 38, t->user_flags, 4);
		wmb_put(o, r + 42, &t->ambient, 1);
		wmb_put(o, r + 43, &t->albedo, 1);
		wmb_put(o, r + 44, t->material, 20);
	}
	if (f->list_bytes[GSIO_WMB_BLOCKS]) encode_blocks(f, o);
	if (f->version == 6) encode_polygons(f, o);
	if (f->list_bytes[GSIO_WMB_OBJECTS]) gsioi_wmb_encode_objects(f, o);
	if (f->list_bytes[GSIO_WMB_TERRAIN_LIGHTMAPS] && !f->terrain_lightmaps_bogus) {
		size_t at = f->lists[GSIO_WMB_TERRAIN_LIGHTMAPS].offset;
		wmb_put32(o, at, f->terrain_lightmaps_count);
		at += 4;
		for (uint32_t i = 0; i < f->terrain_lightmaps_count; i++) {
			const gsio_wmb_terrain_lightmap *t = &f->terrain_lightmaps[i];
			wmb_put32(o, at, t->object);
			wmb_put32(o, at + 4, t->width);
			wmb_put32(o, at + 8, t->height);
			size_t n = (size_t)t->width * t->height * 3;
			wmb_put(o, at + 12, t->texels, n);
			at += 12 + n;
		}
	}
}

/* The gaps: the bytes encode_all leaves unwritten, kept from d. */
static bool find_gaps(gsio_wmb_file *f, const uint8_t *d, const char *name, gsio_error *err)
{
	gsio_arena *tmp = gsioi_arena_like(f->arena, "WMB gaps", err);
	if (!tmp) return false;
	wmb_out o = {gsioi_arena_alloc_uninit(tmp, f->size, err), gsioi_arena_alloc(tmp, f->size, err),
	             f->size};
	bool ok = o.data && o.mask;
	if (ok) encode_all(f, &o);
	size_t n = 0;
	for (size_t i = 0; ok && i < f->size; i++)
		if (!o.mask[i] && (i == 0 || o.mask[i - 1])) n++;
	if (ok) {
		f->gaps = GSIO_NEW_ARRAY(f->arena, gsio_wmb_gap, n, err);
		ok = f->gaps != NULL;
	}
	for (size_t i = 0; ok && i < f->size;) {
		if (o.mask[i]) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < f->size && !o.mask[j]) j++;
		f->gaps[f->gaps_count++] = (gsio_wmb_gap){(uint32_t)i, (uint32_t)(j - i), d + i};
		i = j;
	}
	// What was written must be what was read: a field the decode did not
	// mirror would show here first.
	for (size_t i = 0; ok && i < f->size; i++)
		if (o.mask[i] && o.data[i] != d[i]) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)i,
			          "byte %zu does not encode back (lists that overlap and disagree)", i);
			ok = false;
		}
	gsioi_arena_destroy(tmp);
	return ok;
}

int gsio_wmb_encode(const gsio_wmb_file *f, uint8_t **out, size_t *out_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!f || !out || !out_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, "", -1, "gsio_wmb_encode needs a file and an output");
		return -1;
	}
	wmb_out o = {malloc(f->size ? f->size : 1), NULL, f->size};
	if (!o.data) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, "", -1, "out of memory for %zu bytes", f->size);
		return -1;
	}
	memset(o.data, 0, f->size);
	encode_all(f, &o);
	for (size_t i = 0; i < f->gaps_count; i++) wmb_put(&o, f->gaps[i].offset, f->gaps[i].bytes, f->gaps[i].size);
	*out = o.data;
	*out_size = f->size;
	return 0;
}

// -- Decode

gsio_wmb_file *gsio_wmb_decode(const uint8_t *data, size_t size, const char *name,
                               const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *a;
	const uint8_t *d;
	bool borrow = opts && (opts->flags & GSIO_OPT_BORROW);
	if (size > UINT32_MAX) {
		gsio_error_clear(err);
		GSIO_FAIL(err, GSIO_ERR_LIMIT, name, -1, "a WMB of %zu bytes: offsets are 32-bit", size);
		return NULL;
	}
	gsio_wmb_file *f = gsioi_codec_begin(data, size, name, opts, borrow, sizeof(gsio_wmb_file), &a, &d, err);
	if (!f) return NULL;
	f->arena = a;
	f->size = size;
	bool ok = decode_directory(f, d, size, name, err);
	if (ok) decode_palette(f);
	ok = ok && gsioi_wmb_decode_objects(f, d, name, err) && decode_textures(f, name, err) &&
	     decode_texinfos(f, err) && decode_blocks(f, name, err) && decode_polygons(f, name, err) &&
	     decode_lightmaps(f, name, err) && decode_terrain_lightmaps(f, err) &&
	     find_gaps(f, d, name, err);
	if (!ok) {
		if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
		gsioi_arena_destroy(a);
		return NULL;
	}
	return f;
}

void gsio_wmb_file_free(gsio_wmb_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}
