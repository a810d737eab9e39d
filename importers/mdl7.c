/* MDL7: GameStudio A6-A8 models, the codec (decode and encode).
 *
 * Layout (little-endian, docs/FORMATS.md §5): a
 * 48-byte header that declares the size of every record; bones_num bones;
 * groups_num groups, each a 44-byte header then skins, texture coordinates,
 * triangles, vertices, frames (24-byte header, replacement vertices, bone
 * matrices) and deformers; then the ent and med lumps. groupdata_size is
 * kept but never used to skip (it is wrong in real files). Every count is
 * bounded by the bytes left before anything is allocated.
 *
 * What this file checks that the layout leaves open, and why:
 * - the groups must end exactly at data_size (true of all 233 files walked
 *   for docs/FORMATS.md §5 and of the 24 corpus MDL7s): a mismatch means a
 *   misparse;
 * - structure sizes other than the ones ever seen are refused as
 *   unsupported instead of guessed;
 * - frame vertex indices, bone-matrix bone indices, triangle vertex and UV
 *   indices are range-checked here, so the scene can trust them; material
 *   and deformer indices are checked by the scene (a bad one is a warning). */
#include "gsio_mdl7.h"

#include "gsioi_internal.h"

#include <stdio.h>
#include <stdlib.h>

// -- Limits

// Skins larger than this in either direction are taken as corruption.
#define MDL7_MAX_SKIN_DIM 16384

#define GROUP_HEADER_SIZE 44
#define DEFORMER_HEADER_SIZE 16

// -- Skins

static size_t bytes_per_texel(unsigned format)
{
	switch (format) {
	case 0: return 1;
	case 2:
	case 3: return 2;
	case 4: return 3;
	case 5: return 4;
	default: return 0;
	}
}

/* Bytes of a skin's payload (before its material and effect), or false
 * with err set. Types 6 and 7 carry `width` bytes; 1 (a reference to
 * another skin, never seen) carries none. */
static bool skin_payload_size(const gsio_mdl7_skin *s, size_t *out, const char *file,
                              int64_t at, gsio_error *err)
{
	unsigned fmt = s->type & 7u;
	if (fmt == GSIO_MDL7_SKIN_DDS || fmt == GSIO_MDL7_SKIN_EXTERNAL) {
		if (s->width < 0) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, at, "skin of type %u with byte size %d",
			          (unsigned)s->type, (int)s->width);
			return false;
		}
		*out = (size_t)s->width;
		return true;
	}
	if (fmt == 1) {
		*out = 0;
		return true;
	}
	size_t bpp = bytes_per_texel(fmt);
	if (!bpp) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, at, "unknown skin type 0x%02x",
		          (unsigned)s->type);
		return false;
	}
	if (s->width < 0 || s->height < 0 || s->width > MDL7_MAX_SKIN_DIM ||
	    s->height > MDL7_MAX_SKIN_DIM) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, at, "skin size %d x %d is out of range",
		          (int)s->width, (int)s->height);
		return false;
	}
	size_t texels = (size_t)s->width * (size_t)s->height; // < 2^28: no overflow
	if (s->type & GSIO_MDL7_SKIN_MIPS) texels += (texels >> 2) + (texels >> 4) + (texels >> 6);
	*out = texels * bpp;
	return true;
}

// -- Decode

typedef struct dec {
	gsioi_reader r;
	gsio_mdl7_file *f;
	gsio_arena *a;
	const char *name;
	gsio_error *err;
	size_t keep_frames; // frames of a group decoded and kept; the rest only checked
} dec;

static bool corrupt(dec *d, size_t at, const char *fmt, ...) GSIO_PRINTF(3, 4);
static bool corrupt(dec *d, size_t at, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->r.failed = true;
	GSIO_FAIL(d->err, GSIO_ERR_CORRUPT, d->name, (int64_t)at, "%s", msg);
	return false;
}

/* count records of `each` bytes must fit in what is left (checked before
 * any allocation, so a huge count is an error, not a huge allocation). */
static bool fits(dec *d, uint64_t count, size_t each, size_t at, const char *what)
{
	size_t left = gsioi_reader_remaining(&d->r);
	if (each && count > left / each)
		return corrupt(d, at, "%llu %s of %zu bytes cannot fit in the %zu bytes left",
		               (unsigned long long)count, what, each, left);
	return true;
}

static bool check_sizes(dec *d)
{
	const gsio_mdl7_header *h = &d->f->header;
	struct {
		const char *name;
		unsigned size;
		unsigned ok[3];
		int off;
		const char *known;
	} t[] = {
	    {"bone_stc_size", h->bone_stc_size, {16, 36, 48}, 28, "16, 36 or 48"},
	    {"skin_stc_size", h->skin_stc_size, {28, 0, 0}, 30, "28"},
	    {"colorvalue_stc_size", h->colorvalue_stc_size, {16, 0, 0}, 32, "16"},
	    {"material_stc_size", h->material_stc_size, {68, 0, 0}, 34, "68"},
	    {"skinpoint_stc_size", h->skinpoint_stc_size, {8, 0, 0}, 36, "8"},
	    {"triangle_stc_size", h->triangle_stc_size, {12, 16, 26}, 38, "12, 16 or 26"},
	    {"mainvertex_stc_size", h->mainvertex_stc_size, {16, 26, 0}, 40, "16 or 26"},
	    {"framevertex_stc_size", h->framevertex_stc_size, {16, 26, 0}, 42, "16 or 26"},
	    {"bonetrans_stc_size", h->bonetrans_stc_size, {68, 0, 0}, 44, "68"},
	    {"frame_stc_size", h->frame_stc_size, {24, 0, 0}, 46, "24"},
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool ok = false;
		for (int k = 0; k < 3; k++) ok = ok || (t[i].ok[k] && t[i].size == t[i].ok[k]);
		if (!ok) {
			d->r.failed = true;
			GSIO_FAIL(d->err, GSIO_ERR_UNSUPPORTED, d->name, t[i].off,
			          "%s %u is not a record size gsio knows (%s)", t[i].name, t[i].size,
			          t[i].known);
			return false;
		}
	}
	return true;
}

static bool decode_header(dec *d)
{
	gsioi_reader *r = &d->r;
	gsio_mdl7_header *h = &d->f->header;
	const uint8_t *p = gsioi_read_bytes(r, 4, "the MDL7 header");
	GSIO_CHECK(p);
	if (memcmp(p, "MDL7", 4)) {
		GSIO_FAIL(d->err, GSIO_ERR_BAD_MAGIC, d->name, 0, "not an MDL7 file (magic %02x %02x %02x %02x)",
		          p[0], p[1], p[2], p[3]);
		return false;
	}
	memcpy(h->magic, p, 4);
	GSIO_CHECK((p = gsioi_read_bytes(r, GSIO_MDL7_HEADER_SIZE - 4, "the MDL7 header")));
	memcpy(&h->version, (uint32_t[]){gsioi_le32(p)}, 4);
	h->bones_num = gsioi_le32(p + 4);
	h->groups_num = gsioi_le32(p + 8);
	h->data_size = gsioi_le32(p + 12);
	uint32_t ent = gsioi_le32(p + 16), med = gsioi_le32(p + 20);
	memcpy(&h->entlump_size, &ent, 4);
	memcpy(&h->medlump_size, &med, 4);
	uint16_t *sizes[] = {&h->bone_stc_size,       &h->skin_stc_size,        &h->colorvalue_stc_size,
	                     &h->material_stc_size,   &h->skinpoint_stc_size,   &h->triangle_stc_size,
	                     &h->mainvertex_stc_size, &h->framevertex_stc_size, &h->bonetrans_stc_size,
	                     &h->frame_stc_size};
	for (size_t i = 0; i < 10; i++) *sizes[i] = gsioi_le16(p + 24 + 2 * i);
	if (h->entlump_size < 0 || h->medlump_size < 0)
		return corrupt(d, 20, "negative lump size (ent %d, med %d)", (int)h->entlump_size,
		               (int)h->medlump_size);
	if (h->data_size < GSIO_MDL7_HEADER_SIZE || h->data_size > r->size)
		return corrupt(d, 16, "mdl7data_size %u is outside the file (%zu bytes)",
		               (unsigned)h->data_size, r->size);
	uint64_t lumps = (uint64_t)h->data_size + (uint64_t)h->entlump_size + (uint64_t)h->medlump_size;
	if (lumps > r->size)
		return corrupt(d, 20, "the ent and med lumps (%d + %d bytes) run past the end of the file",
		               (int)h->entlump_size, (int)h->medlump_size);
	return check_sizes(d);
}

static void read_name(const uint8_t *p, char *out, size_t n)
{
	memcpy(out, p, n);
}

static bool decode_bones(dec *d)
{
	gsio_mdl7_file *f = d->f;
	size_t bs = f->header.bone_stc_size;
	GSIO_CHECK(fits(d, f->header.bones_num, bs, 8, "bones"));
	f->bones_count = f->header.bones_num;
	GSIO_CHECK((f->bones = GSIO_NEW_ARRAY(d->a, gsio_mdl7_bone, f->bones_count, d->err)));
	for (size_t i = 0; i < f->bones_count; i++) {
		const uint8_t *p = gsioi_read_bytes(&d->r, bs, "a bone");
		gsio_mdl7_bone *b = &f->bones[i];
		b->parent = gsioi_le16(p);
		memcpy(b->unused, p + 2, 2);
		for (int k = 0; k < 3; k++) b->pos[k] = gsioi_lef32(p + 4 + 4 * k);
		read_name(p + 16, b->name, bs - 16);
	}
	return true;
}

static bool decode_skins(dec *d, gsio_mdl7_group *g, uint32_t count, size_t at)
{
	const gsio_mdl7_header *h = &d->f->header;
	GSIO_CHECK(fits(d, count, h->skin_stc_size, at, "skins"));
	g->skins_count = count;
	GSIO_CHECK((g->skins = GSIO_NEW_ARRAY(d->a, gsio_mdl7_skin, count, d->err)));
	for (size_t i = 0; i < count; i++) {
		gsio_mdl7_skin *s = &g->skins[i];
		size_t sat = d->r.pos;
		const uint8_t *p = gsioi_read_bytes(&d->r, h->skin_stc_size, "a skin header");
		GSIO_CHECK(p);
		s->type = p[0];
		memcpy(s->unused, p + 1, 3);
		memcpy(&s->width, (uint32_t[]){gsioi_le32(p + 4)}, 4);
		memcpy(&s->height, (uint32_t[]){gsioi_le32(p + 8)}, 4);
		read_name(p + 12, s->name, 16);
		size_t n;
		if (!skin_payload_size(s, &n, d->name, (int64_t)sat, d->err)) {
			d->r.failed = true;
			return false;
		}
		GSIO_CHECK((s->data = gsioi_read_bytes(&d->r, n, "the pixels of a skin")));
		s->data_size = n;
		if (s->type & GSIO_MDL7_SKIN_MATERIAL) {
			GSIO_CHECK((p = gsioi_read_bytes(&d->r, h->material_stc_size, "a material record")));
			float *dst[] = {s->material.diffuse, s->material.ambient, s->material.specular,
			                s->material.emissive};
			for (int c = 0; c < 4; c++)
				for (int k = 0; k < 4; k++) dst[c][k] = gsioi_lef32(p + 16 * c + 4 * k);
			s->material.power = gsioi_lef32(p + 64);
		}
		if (s->type & GSIO_MDL7_SKIN_EFFECT) {
			size_t eat = d->r.pos;
			GSIO_CHECK(gsioi_read_i32(&d->r, &s->effect_size, "an effect length"));
			if (s->effect_size < 0) return corrupt(d, eat, "negative effect length %d", (int)s->effect_size);
			GSIO_CHECK((s->effect = gsioi_read_bytes(&d->r, (size_t)s->effect_size, "an effect text")));
		}
	}
	return true;
}

static void read_vertex(const uint8_t *p, size_t size, gsio_mdl7_vertex *v)
{
	for (int k = 0; k < 3; k++) v->pos[k] = gsioi_lef32(p + 4 * k);
	v->bone = gsioi_le16(p + 12);
	if (size == 16) {
		v->normal_index = p[14];
		v->unused = p[15];
	} else {
		for (int k = 0; k < 3; k++) v->normal[k] = gsioi_lef32(p + 14 + 4 * k);
	}
}

static bool decode_triangles(dec *d, gsio_mdl7_group *g, uint32_t count, size_t at)
{
	size_t ts = d->f->header.triangle_stc_size;
	GSIO_CHECK(fits(d, count, ts, at, "triangles"));
	g->triangles_count = count;
	GSIO_CHECK((g->triangles = GSIO_NEW_ARRAY(d->a, gsio_mdl7_triangle, count, d->err)));
	for (size_t i = 0; i < count; i++) {
		size_t tat = d->r.pos;
		const uint8_t *p = gsioi_read_bytes(&d->r, ts, "a triangle");
		gsio_mdl7_triangle *t = &g->triangles[i];
		t->material = t->material2 = -1;
		for (int k = 0; k < 3; k++) {
			t->v[k] = gsioi_le16(p + 2 * k);
			t->uv[k] = gsioi_le16(p + 6 + 2 * k);
			t->uv2[k] = 0xFFFF;
		}
		if (ts >= 16) memcpy(&t->material, (uint32_t[]){gsioi_le32(p + 12)}, 4);
		if (ts == 26) {
			for (int k = 0; k < 3; k++) t->uv2[k] = gsioi_le16(p + 16 + 2 * k);
			memcpy(&t->material2, (uint32_t[]){gsioi_le32(p + 22)}, 4);
		}
		for (int k = 0; k < 3; k++) {
			if (t->v[k] >= g->verts_count)
				return corrupt(d, tat + 2 * (size_t)k,
				               "triangle %zu: vertex index %u is outside 0..%zu", i,
				               (unsigned)t->v[k], g->verts_count - 1);
			if (t->uv[k] != 0xFFFF && t->uv[k] >= g->uvs_count)
				return corrupt(d, tat + 6 + 2 * (size_t)k,
				               "triangle %zu: texture coordinate index %u is outside 0..%zu", i,
				               (unsigned)t->uv[k], g->uvs_count ? g->uvs_count - 1 : 0);
		}
	}
	return true;
}

static bool decode_frames(dec *d, gsio_mdl7_group *g, uint32_t count, size_t at)
{
	const gsio_mdl7_header *h = &d->f->header;
	GSIO_CHECK(fits(d, count, h->frame_stc_size, at, "frames"));
	g->frames_count = count < d->keep_frames ? count : d->keep_frames;
	GSIO_CHECK((g->frames = GSIO_NEW_ARRAY(d->a, gsio_mdl7_frame, g->frames_count, d->err)));
	size_t vs = h->framevertex_stc_size, ms = h->bonetrans_stc_size;
	for (size_t i = 0; i < count; i++) {
		size_t fat = d->r.pos;
		const uint8_t *p = gsioi_read_bytes(&d->r, h->frame_stc_size, "a frame header");
		GSIO_CHECK(p);
		uint32_t nv = gsioi_le32(p + 16), nm = gsioi_le32(p + 20);
		GSIO_CHECK(fits(d, nv, vs, fat + 16, "frame vertices"));
		// Each frame is checked whole, kept or not (a first-frame load keeps
		// one and fails on the others as a full load does); a kept one is
		// then read from the same bytes.
		const bool kept = i < g->frames_count;
		const uint8_t *v0 = gsioi_read_bytes(&d->r, (size_t)nv * vs, "frame vertices");
		GSIO_CHECK(v0);
		for (size_t v = 0; v < nv; v++) {
			uint16_t bone = gsioi_le16(v0 + v * vs + 12);
			if (bone >= g->verts_count)
				return corrupt(d, fat + h->frame_stc_size + v * vs + 12,
				               "frame %zu: vertex %zu replaces vertex %u of %zu", i, v, (unsigned)bone,
				               g->verts_count);
		}
		GSIO_CHECK(fits(d, nm, ms, fat + 20, "bone matrices"));
		const uint8_t *m0 = gsioi_read_bytes(&d->r, (size_t)nm * ms, "bone matrices");
		GSIO_CHECK(m0);
		for (size_t m = 0; m < nm; m++) {
			uint16_t bone = gsioi_le16(m0 + m * ms + 64);
			if (bone >= d->f->bones_count)
				return corrupt(d, fat + h->frame_stc_size + (size_t)nv * vs + m * ms + 64,
				               "frame %zu: a matrix for bone %u of %zu", i, (unsigned)bone, d->f->bones_count);
		}
		if (!kept) continue;
		gsio_mdl7_frame *fr = &g->frames[i];
		read_name(p, fr->name, 16);
		fr->verts_count = nv;
		GSIO_CHECK((fr->verts = GSIO_NEW_ARRAY(d->a, gsio_mdl7_vertex, nv, d->err)));
		for (size_t v = 0; v < nv; v++) read_vertex(v0 + v * vs, vs, &fr->verts[v]);
		fr->matrices_count = nm;
		GSIO_CHECK((fr->matrices = GSIO_NEW_ARRAY(d->a, gsio_mdl7_bone_matrix, nm, d->err)));
		for (size_t m = 0; m < nm; m++) {
			const uint8_t *q = m0 + m * ms;
			gsio_mdl7_bone_matrix *bm = &fr->matrices[m];
			for (int k = 0; k < 16; k++) bm->m[k] = gsioi_lef32(q + 4 * k);
			bm->bone = gsioi_le16(q + 64);
			memcpy(bm->unused, q + 66, 2);
		}
	}
	return true;
}

static bool decode_deformers(dec *d, gsio_mdl7_group *g, size_t at)
{
	int n = g->deformers_num;
	if (n < 0) return corrupt(d, at + 1, "negative deformer count %d", n);
	g->deformers_count = (size_t)n;
	GSIO_CHECK((g->deformers = GSIO_NEW_ARRAY(d->a, gsio_mdl7_deformer, g->deformers_count, d->err)));
	for (size_t i = 0; i < g->deformers_count; i++) {
		gsio_mdl7_deformer *df = &g->deformers[i];
		size_t dat = d->r.pos;
		const uint8_t *p = gsioi_read_bytes(&d->r, DEFORMER_HEADER_SIZE, "a deformer header");
		GSIO_CHECK(p);
		df->version = (int8_t)p[0];
		df->type = (int8_t)p[1];
		memcpy(df->unused, p + 2, 2);
		int32_t elements;
		memcpy(&df->group_index, (uint32_t[]){gsioi_le32(p + 4)}, 4);
		memcpy(&elements, (uint32_t[]){gsioi_le32(p + 8)}, 4);
		memcpy(&df->data_size, (uint32_t[]){gsioi_le32(p + 12)}, 4);
		if (df->data_size < DEFORMER_HEADER_SIZE ||
		    (size_t)df->data_size - DEFORMER_HEADER_SIZE > gsioi_reader_remaining(&d->r))
			return corrupt(d, dat + 12, "deformer %zu: data size %d is outside 16..%zu", i,
			               (int)df->data_size, gsioi_reader_remaining(&d->r) + DEFORMER_HEADER_SIZE);
		if (elements < 0) return corrupt(d, dat + 8, "deformer %zu: negative element count", i);
		// The elements are read inside the deformer's declared bytes only.
		gsioi_reader sub = gsioi_reader_make(d->r.data + d->r.pos,
		                                     (size_t)df->data_size - DEFORMER_HEADER_SIZE, d->name, d->err);
		size_t base = d->r.pos;
		if ((size_t)elements > sub.size / 28)
			return corrupt(d, dat + 8, "deformer %zu: %d elements cannot fit in %d bytes", i,
			               (int)elements, (int)df->data_size);
		df->elements_count = (size_t)elements;
		GSIO_CHECK((df->elements = GSIO_NEW_ARRAY(d->a, gsio_mdl7_deformer_element,
		                                          df->elements_count, d->err)));
		for (size_t e = 0; e < df->elements_count; e++) {
			gsio_mdl7_deformer_element *el = &df->elements[e];
			size_t eat = base + sub.pos;
			const uint8_t *q = gsioi_read_bytes(&sub, 28, "a deformer element");
			if (!q) {
				d->r.failed = true;
				return false;
			}
			memcpy(&el->index, (uint32_t[]){gsioi_le32(q)}, 4);
			read_name(q + 4, el->name, 20);
			int32_t nw;
			memcpy(&nw, (uint32_t[]){gsioi_le32(q + 24)}, 4);
			if (nw < 0 || (size_t)nw > gsioi_reader_remaining(&sub) / 8)
				return corrupt(d, eat + 24, "deformer %zu element %zu: %d weights do not fit", i, e,
				               (int)nw);
			el->weights_count = (size_t)nw;
			GSIO_CHECK((el->weights = GSIO_NEW_ARRAY(d->a, gsio_mdl7_weight, el->weights_count, d->err)));
			for (size_t w = 0; w < el->weights_count; w++) {
				q = gsioi_read_bytes(&sub, 8, "a weight");
				memcpy(&el->weights[w].vertex, (uint32_t[]){gsioi_le32(q)}, 4);
				el->weights[w].weight = gsioi_lef32(q + 4);
			}
		}
		df->rest = sub.data + sub.pos;
		df->rest_size = sub.size - sub.pos;
		d->r.pos += sub.size;
	}
	return true;
}

static bool decode_group(dec *d, gsio_mdl7_group *g)
{
	size_t at = d->r.pos;
	const uint8_t *p = gsioi_read_bytes(&d->r, GROUP_HEADER_SIZE, "a group header");
	GSIO_CHECK(p);
	g->type = p[0];
	g->deformers_num = (int8_t)p[1];
	g->max_weights = (int8_t)p[2];
	g->unused = p[3];
	memcpy(&g->groupdata_size, (uint32_t[]){gsioi_le32(p + 4)}, 4);
	read_name(p + 8, g->name, 16);
	int32_t c[5];
	static const char *names[] = {"numskins", "num_stpts", "numtris", "numverts", "numframes"};
	for (int k = 0; k < 5; k++) {
		memcpy(&c[k], (uint32_t[]){gsioi_le32(p + 24 + 4 * k)}, 4);
		if (c[k] < 0) return corrupt(d, at + 24 + 4 * (size_t)k, "negative %s (%d)", names[k], (int)c[k]);
	}
	const gsio_mdl7_header *h = &d->f->header;
	GSIO_CHECK(decode_skins(d, g, (uint32_t)c[0], at + 24));
	GSIO_CHECK(fits(d, (uint32_t)c[1], h->skinpoint_stc_size, at + 28, "texture coordinates"));
	g->uvs_count = (size_t)c[1];
	GSIO_CHECK((g->uvs = GSIO_NEW_ARRAY(d->a, float, 2 * g->uvs_count, d->err)));
	for (size_t i = 0; i < g->uvs_count; i++) {
		p = gsioi_read_bytes(&d->r, h->skinpoint_stc_size, "a texture coordinate");
		g->uvs[2 * i] = gsioi_lef32(p);
		g->uvs[2 * i + 1] = gsioi_lef32(p + 4);
	}
	// Vertices come after the triangles in the file, but triangles index
	// them: the count is known from the header, so check against it.
	g->verts_count = (size_t)c[3];
	GSIO_CHECK(decode_triangles(d, g, (uint32_t)c[2], at + 32));
	size_t vs = h->mainvertex_stc_size;
	GSIO_CHECK(fits(d, g->verts_count, vs, at + 36, "vertices"));
	GSIO_CHECK((g->verts = GSIO_NEW_ARRAY(d->a, gsio_mdl7_vertex, g->verts_count, d->err)));
	for (size_t i = 0; i < g->verts_count; i++)
		read_vertex(gsioi_read_bytes(&d->r, vs, "a vertex"), vs, &g->verts[i]);
	GSIO_CHECK(decode_frames(d, g, (uint32_t)c[4], at + 40));
	return decode_deformers(d, g, at);
}

/* borrow: point into `data` instead of copying it (the caller keeps it
 * alive). keep_frames: frames of each group decoded and kept (SIZE_MAX:
 * all); the others are still checked, so a file fails the same way
 * whatever is kept. */
static gsio_mdl7_file *mdl7_decode(const uint8_t *data, size_t size, const char *name,
                                   const gsio_opts *opts, gsio_error *err, bool borrow, size_t keep_frames)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *arena;
	const uint8_t *bytes;
	gsio_mdl7_file *f = gsioi_codec_begin(data, size, name, opts, borrow, sizeof(*f), &arena, &bytes, err);
	if (!f) return NULL;
	f->arena = arena;
	dec d = {gsioi_reader_make(bytes, size, name, err), f, arena, name, err, keep_frames};
	if (!decode_header(&d) || !decode_bones(&d)) goto fail;
	const gsio_mdl7_header *h = &f->header;
	// Groups are read inside data_size: a group running into the lumps is cut
	// short. The bones were read against the whole file: they must end
	// inside it too (past it, the reader's room left wrapped around and let
	// every later read through; fuzz_mdl7 found it).
	if (d.r.pos > h->data_size) {
		corrupt(&d, 16, "the bones end at %zu, past mdl7data_size %u", d.r.pos,
		        (unsigned)h->data_size);
		goto fail;
	}
	d.r.size = h->data_size;
	if (!fits(&d, h->groups_num, GROUP_HEADER_SIZE, 12, "groups")) goto fail;
	f->groups_count = h->groups_num;
	if (!(f->groups = GSIO_NEW_ARRAY(arena, gsio_mdl7_group, f->groups_count, err))) goto fail;
	for (size_t i = 0; i < f->groups_count; i++)
		if (!decode_group(&d, &f->groups[i])) goto fail;
	if (d.r.pos != h->data_size) {
		corrupt(&d, d.r.pos, "the groups end at %zu but mdl7data_size says %u", d.r.pos,
		        (unsigned)h->data_size);
		goto fail;
	}
	f->entlump = bytes + h->data_size;
	f->entlump_size = (size_t)h->entlump_size;
	f->medlump = f->entlump + f->entlump_size;
	f->medlump_size = (size_t)h->medlump_size;
	f->trailing = f->medlump + f->medlump_size;
	f->trailing_size = size - (size_t)(f->trailing - bytes);
	return f;
fail:
	if (err->code == GSIO_OK)
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)d.r.pos, "MDL7 decoding failed");
	gsioi_arena_destroy(arena);
	return NULL;
}

gsio_mdl7_file *gsio_mdl7_decode(const uint8_t *data, size_t size, const char *name,
                                 const gsio_opts *opts, gsio_error *err)
{
	return mdl7_decode(data, size, name, opts, err, false, SIZE_MAX);
}

void gsio_mdl7_file_free(gsio_mdl7_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}

// -- Encode

static void write_vertex(gsioi_writer *w, const gsio_mdl7_vertex *v, size_t size)
{
	for (int k = 0; k < 3; k++) gsioi_write_f32(w, v->pos[k]);
	gsioi_write_u16(w, v->bone);
	if (size == 16) {
		gsioi_write_u8(w, v->normal_index);
		gsioi_write_u8(w, v->unused);
	} else {
		for (int k = 0; k < 3; k++) gsioi_write_f32(w, v->normal[k]);
	}
}

static bool arg_fail(gsio_error *err, const char *what)
{
	GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode MDL7: %s", what);
	return false;
}

static bool encode_group(gsioi_writer *w, const gsio_mdl7_header *h, const gsio_mdl7_group *g,
                         gsio_error *err)
{
	if (g->skins_count > INT32_MAX || g->uvs_count > INT32_MAX || g->triangles_count > INT32_MAX ||
	    g->verts_count > INT32_MAX || g->frames_count > INT32_MAX || g->deformers_num < 0 ||
	    (size_t)g->deformers_num != g->deformers_count)
		return arg_fail(err, "group counts out of range or deformers_num != deformers_count");
	gsioi_write_u8(w, g->type);
	gsioi_write_u8(w, (uint8_t)g->deformers_num);
	gsioi_write_u8(w, (uint8_t)g->max_weights);
	gsioi_write_u8(w, g->unused);
	gsioi_write_i32(w, g->groupdata_size);
	gsioi_write_bytes(w, g->name, 16);
	gsioi_write_i32(w, (int32_t)g->skins_count);
	gsioi_write_i32(w, (int32_t)g->uvs_count);
	gsioi_write_i32(w, (int32_t)g->triangles_count);
	gsioi_write_i32(w, (int32_t)g->verts_count);
	gsioi_write_i32(w, (int32_t)g->frames_count);
	for (size_t i = 0; i < g->skins_count; i++) {
		const gsio_mdl7_skin *s = &g->skins[i];
		size_t n;
		gsio_error sub;
		gsio_error_clear(&sub);
		if (!skin_payload_size(s, &n, NULL, -1, &sub) || n != s->data_size)
			return arg_fail(err, "a skin's data size does not match its type and size");
		gsioi_write_u8(w, s->type);
		gsioi_write_bytes(w, s->unused, 3);
		gsioi_write_i32(w, s->width);
		gsioi_write_i32(w, s->height);
		gsioi_write_bytes(w, s->name, 16);
		gsioi_write_bytes(w, s->data, s->data_size);
		if (s->type & GSIO_MDL7_SKIN_MATERIAL) {
			const float *src[] = {s->material.diffuse, s->material.ambient, s->material.specular,
			                      s->material.emissive};
			for (int c = 0; c < 4; c++)
				for (int k = 0; k < 4; k++) gsioi_write_f32(w, src[c][k]);
			gsioi_write_f32(w, s->material.power);
		}
		if (s->type & GSIO_MDL7_SKIN_EFFECT) {
			if (s->effect_size < 0) return arg_fail(err, "negative effect size");
			gsioi_write_i32(w, s->effect_size);
			gsioi_write_bytes(w, s->effect, (size_t)s->effect_size);
		}
	}
	for (size_t i = 0; i < g->uvs_count; i++) {
		gsioi_write_f32(w, g->uvs[2 * i]);
		gsioi_write_f32(w, g->uvs[2 * i + 1]);
	}
	size_t ts = h->triangle_stc_size;
	for (size_t i = 0; i < g->triangles_count; i++) {
		const gsio_mdl7_triangle *t = &g->triangles[i];
		for (int k = 0; k < 3; k++) gsioi_write_u16(w, t->v[k]);
		for (int k = 0; k < 3; k++) gsioi_write_u16(w, t->uv[k]);
		if (ts >= 16) gsioi_write_i32(w, t->material);
		if (ts == 26) {
			for (int k = 0; k < 3; k++) gsioi_write_u16(w, t->uv2[k]);
			gsioi_write_i32(w, t->material2);
		}
	}
	for (size_t i = 0; i < g->verts_count; i++) write_vertex(w, &g->verts[i], h->mainvertex_stc_size);
	for (size_t i = 0; i < g->frames_count; i++) {
		const gsio_mdl7_frame *fr = &g->frames[i];
		if (fr->verts_count > UINT32_MAX || fr->matrices_count > UINT32_MAX)
			return arg_fail(err, "frame counts out of range");
		gsioi_write_bytes(w, fr->name, 16);
		gsioi_write_u32(w, (uint32_t)fr->verts_count);
		gsioi_write_u32(w, (uint32_t)fr->matrices_count);
		for (size_t v = 0; v < fr->verts_count; v++)
			write_vertex(w, &fr->verts[v], h->framevertex_stc_size);
		for (size_t m = 0; m < fr->matrices_count; m++) {
			for (int k = 0; k < 16; k++) gsioi_write_f32(w, fr->matrices[m].m[k]);
			gsioi_write_u16(w, fr->matrices[m].bone);
			gsioi_write_bytes(w, fr->matrices[m].unused, 2);
		}
	}
	for (size_t i = 0; i < g->deformers_count; i++) {
		const gsio_mdl7_deformer *df = &g->deformers[i];
		size_t start = w->size;
		gsioi_write_u8(w, (uint8_t)df->version);
		gsioi_write_u8(w, (uint8_t)df->type);
		gsioi_write_bytes(w, df->unused, 2);
		gsioi_write_i32(w, df->group_index);
		gsioi_write_i32(w, (int32_t)df->elements_count);
		gsioi_write_i32(w, df->data_size);
		for (size_t e = 0; e < df->elements_count; e++) {
			const gsio_mdl7_deformer_element *el = &df->elements[e];
			gsioi_write_i32(w, el->index);
			gsioi_write_bytes(w, el->name, 20);
			gsioi_write_i32(w, (int32_t)el->weights_count);
			for (size_t k = 0; k < el->weights_count; k++) {
				gsioi_write_i32(w, el->weights[k].vertex);
				gsioi_write_f32(w, el->weights[k].weight);
			}
		}
		gsioi_write_bytes(w, df->rest, df->rest_size);
		if (!w->failed && w->size - start != (size_t)df->data_size)
			return arg_fail(err, "a deformer's data_size does not match its elements");
	}
	return true;
}

int gsio_mdl7_encode(const gsio_mdl7_file *f, uint8_t **out, size_t *out_size, gsio_error *err)
{
	return gsioi_mdl7_encode_with(f, NULL, 0, out, out_size, err);
}

int gsioi_mdl7_encode_with(const gsio_mdl7_file *f, const gsio_allocator *allocator, size_t limit,
                           uint8_t **out, size_t *out_size, gsio_error *err)
{
	*out = NULL;
	*out_size = 0;
	const gsio_mdl7_header *h = &f->header;
	if (memcmp(h->magic, "MDL7", 4)) return arg_fail(err, "magic is not MDL7"), -1;
	if (h->bones_num != f->bones_count || h->groups_num != f->groups_count ||
	    h->entlump_size < 0 || h->medlump_size < 0 || (size_t)h->entlump_size != f->entlump_size ||
	    (size_t)h->medlump_size != f->medlump_size || h->bone_stc_size < 16 ||
	    h->bone_stc_size > 48 || h->skin_stc_size != 28 || h->material_stc_size != 68 ||
	    h->skinpoint_stc_size != 8 || h->bonetrans_stc_size != 68 || h->frame_stc_size != 24 ||
	    (h->triangle_stc_size != 12 && h->triangle_stc_size != 16 && h->triangle_stc_size != 26) ||
	    (h->mainvertex_stc_size != 16 && h->mainvertex_stc_size != 26) ||
	    (h->framevertex_stc_size != 16 && h->framevertex_stc_size != 26))
		return arg_fail(err, "header counts or structure sizes do not match the arrays"), -1;
	gsioi_writer w = {0};
	w.allocator = allocator;
	w.limit = limit;
	gsioi_write_bytes(&w, h->magic, 4);
	gsioi_write_i32(&w, h->version);
	gsioi_write_u32(&w, h->bones_num);
	gsioi_write_u32(&w, h->groups_num);
	gsioi_write_u32(&w, h->data_size);
	gsioi_write_i32(&w, h->entlump_size);
	gsioi_write_i32(&w, h->medlump_size);
	const uint16_t sizes[] = {h->bone_stc_size,       h->skin_stc_size,        h->colorvalue_stc_size,
	                          h->material_stc_size,   h->skinpoint_stc_size,   h->triangle_stc_size,
	                          h->mainvertex_stc_size, h->framevertex_stc_size, h->bonetrans_stc_size,
	                          h->frame_stc_size};
	for (size_t i = 0; i < 10; i++) gsioi_write_u16(&w, sizes[i]);
	for (size_t i = 0; i < f->bones_count; i++) {
		const gsio_mdl7_bone *b = &f->bones[i];
		gsioi_write_u16(&w, b->parent);
		gsioi_write_bytes(&w, b->unused, 2);
		for (int k = 0; k < 3; k++) gsioi_write_f32(&w, b->pos[k]);
		gsioi_write_bytes(&w, b->name, (size_t)h->bone_stc_size - 16);
	}
	for (size_t i = 0; i < f->groups_count; i++)
		if (!encode_group(&w, h, &f->groups[i], err)) {
			gsioi_writer_free(&w);
			return -1;
		}
	if (!w.failed && w.size != h->data_size) {
		gsioi_writer_free(&w);
		return arg_fail(err, "the groups do not end at the header's mdl7data_size"), -1;
	}
	gsioi_write_bytes(&w, f->entlump, f->entlump_size);
	gsioi_write_bytes(&w, f->medlump, f->medlump_size);
	gsioi_write_bytes(&w, f->trailing, f->trailing_size);
	if (w.failed) {
		gsioi_writer_free(&w);
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding the MDL7 file");
		return -1;
	}
	*out = w.data;
	*out_size = w.size;
	return 0;
}

// -- Reading (the MDL importer's entry for "MDL7")

gsio_scene *gsio_mdl7_read(const uint8_t *data, size_t size, const char *path,
                           const gsio_opts *opts, gsio_error *err)
{
	// The scene copies what it keeps, so the file may borrow the caller's
	// bytes; without animation it is built from each group's first frame
	// (the pose), so the others are only checked.
	bool first_only = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	gsio_mdl7_file *f = mdl7_decode(data, size, path, opts, err, true, first_only ? 1 : SIZE_MAX);
	if (!f) return NULL;
	// Skins kept as stored (GSIO_OPT_NO_PIXELS) point into the caller's
	// bytes while the decode's arrays are alive, and are copied once those
	// are freed: skelett's load peak no longer holds its 125 KB skin twice
	// over the welding and the frames.
	gsio_scene *s = gsioi_mdl7_to_scene_lent(f, path, opts, data, size, err);
	gsio_mdl7_file_free(f);
	if (s && !gsioi_images_unlend(s, data, size, err)) {
		gsio_scene_free(s);
		return NULL;
	}
	return s;
}
