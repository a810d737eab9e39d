/* MDL2 / MDL3 / MDL4 / MDL5: GameStudio A3-A5 models.
 *
 * Layout (little-endian): 84-byte header; numskins skins (MDL3/4: int32 type
 * + pixels of the header's size; MDL5: int32 type, width, height + pixels);
 * numskinverts int16 u,v; numtris triangles of int16 xyz[3], uv[3]; numframes
 * frames of int32 type, bbox min/max, char name[16], numverts packed
 * vertices (type 0: u8 x,y,z,normal; type 2: u16 x,y,z, u8 normal, u8 bone);
 * then bones (never seen), which are kept as raw trailing bytes.
 * MDL2 (A3) keeps the 84-byte header, the MDL3 skins and the frames but stores
 * Quake 1's records between them: numverts skin vertices of int32 onseam, s,
 * t and numtris triangles of int32 facesfront, xyz[3] (measured on
 * mdl2-tree.mdl: 84 + 4 + 128*128*2 + 73*12 + 132*16 + 320 is its size).
 * The layout and how each fact was found: docs/FORMATS.md §3 (MDL3/4/5)
 * and §4 (MDL2). */
#include "gsio_mdl.h"
#include "gsio_mdl7.h"

#include "gsioi_dds.h"
#include "gsioi_head.h"
#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Limits

// Skins larger than this in either direction are taken as corruption.
#define MDL_MAX_SKIN_DIM 16384
/* MDL2 vertices: the scene gives each one a second skin vertex (Quake's seam
 * copy) and both must stay in the int16 range of the shared welding code.
 * Quake itself allowed 1024 (MAXALIASVERTS); mdl2-tree.mdl has 73. */
#define MDL2_MAX_VERTS 16384
// Frames whose types are fetched ahead while the frames not kept are walked.
#define MDL_WALK_AHEAD 8

// -- Skins

static size_t bytes_per_texel(int32_t type)
{
	switch (type & 7) {
	case 0: return 1;
	case 2:
	case 3: return 2;
	case 4: return 3;
	case 5: return 4;
	default: return 0;
	}
}

size_t gsio_mdl_skin_size(int32_t type, int32_t width, int32_t height, gsio_error *err)
{
	if (type == GSIO_MDL_SKIN_DDS) {
		if (width <= 0) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1, "DDS skin with byte size %d",
			          (int)width);
			return 0;
		}
		return (size_t)width;
	}
	size_t bpp = (type & ~GSIO_MDL_SKIN_MIPS) > 5 || type < 0 ? 0 : bytes_per_texel(type);
	if (!bpp) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, NULL, -1, "unknown skin type %d", (int)type);
		return 0;
	}
	if (width <= 0 || height <= 0 || width > MDL_MAX_SKIN_DIM || height > MDL_MAX_SKIN_DIM) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1, "skin size %d x %d is out of range",
		          (int)width, (int)height);
		return 0;
	}
	size_t texels = (size_t)width * (size_t)height; // < 2^28: no overflow
	if (type & GSIO_MDL_SKIN_MIPS) texels += (texels >> 2) + (texels >> 4) + (texels >> 6);
	return texels * bpp;
}

// -- Decode

static bool read_vertex(gsioi_reader *r, int32_t type, gsio_mdl_vertex *v)
{
	const uint8_t *p;
	if (type == GSIO_MDL_FRAME_BYTE) {
		GSIO_CHECK((p = gsioi_read_bytes(r, 4, "a byte-packed vertex")));
		v->pos[0] = p[0];
		v->pos[1] = p[1];
		v->pos[2] = p[2];
		v->normal = p[3];
		v->bone = 0;
	} else {
		GSIO_CHECK((p = gsioi_read_bytes(r, 8, "a word-packed vertex")));
		v->pos[0] = gsioi_le16(p);
		v->pos[1] = gsioi_le16(p + 2);
		v->pos[2] = gsioi_le16(p + 4);
		v->normal = p[6];
		v->bone = p[7];
	}
	return true;
}

static gsio_error_code unsupported_magic(const uint8_t *m, const char **what)
{
	if (!memcmp(m, "MDL7", 4)) *what = "MDL7 (A6/A7 model; gsio_mdl7_decode reads it)";
	else if (!memcmp(m, "IDPO", 4)) *what = "IDPO (Quake 1 model)";
	else if (!memcmp(m, "MDL", 3)) *what = "this MDL variant";
	else return GSIO_ERR_BAD_MAGIC;
	return GSIO_ERR_UNSUPPORTED;
}

/* Whether m (4 bytes) is a magic this decoder reads, MDL2..MDL5; else the
 * error its header gives, for the whole file and for its first bytes
 * alike (gsioi_mdl_head_ok). */
static bool magic_ok(const uint8_t *m, const char *file, gsio_error *err)
{
	if (!memcmp(m, "MDL2", 4) || !memcmp(m, "MDL3", 4) || !memcmp(m, "MDL4", 4) ||
	    !memcmp(m, "MDL5", 4))
		return true;
	const char *what = NULL;
	gsio_error_code code = unsupported_magic(m, &what);
	if (code == GSIO_ERR_UNSUPPORTED)
		GSIO_FAIL(err, code, file, 0, "format %s is not supported yet", what);
	else
		GSIO_FAIL(err, code, file, 0,
		          "not a GameStudio model: magic %02x %02x %02x %02x is not MDL2..MDL5", m[0],
		          m[1], m[2], m[3]);
	return false;
}

bool gsioi_mdl_head_ok(const uint8_t *head, size_t n, const char *path, gsio_error *err)
{
	if (n < 4 || !memcmp(head, "MDL7", 4)) return true; // too short: the decoder says so
	return magic_ok(head, path ? path : "", err);
}

static bool check_count(gsioi_reader *r, int32_t count, const char *what, size_t offset)
{
	if (count < 0) {
		r->failed = true;
		GSIO_FAIL(r->err, GSIO_ERR_CORRUPT, r->file, (int64_t)offset, "negative %s (%d)", what,
		          (int)count);
		return false;
	}
	return true;
}

static bool decode_header(gsioi_reader *r, gsio_mdl_header *h, int *version)
{
	const uint8_t *magic = gsioi_read_bytes(r, 4, "the MDL header");
	GSIO_CHECK(magic);
	memcpy(h->version, magic, 4);
	GSIO_CHECK(magic_ok(magic, r->file, r->err));
	*version = magic[3] - '0';
	GSIO_CHECK(gsioi_reader_need(r, GSIO_MDL_HEADER_SIZE - 4, "the MDL header"));
	bool ok = gsioi_read_i32(r, &h->final, "final");
	for (int i = 0; i < 3; i++) ok = ok && gsioi_read_f32(r, &h->scale[i], "scale");
	for (int i = 0; i < 3; i++) ok = ok && gsioi_read_f32(r, &h->offset[i], "offset");
	ok = ok && gsioi_read_f32(r, &h->radius, "radius");
	for (int i = 0; i < 3; i++) ok = ok && gsioi_read_f32(r, &h->eye[i], "eye");
	int32_t *counts[] = {&h->numskins, &h->skinwidth, &h->skinheight, &h->numverts,
	                     &h->numtris,  &h->numframes, &h->numskinverts, &h->flags,
	                     &h->numbones};
	static const char *names[] = {"numskins", "skinwidth",    "skinheight", "numverts", "numtris",
	                              "numframes", "numskinverts", "flags",      "numbones"};
	for (size_t i = 0; i < 9; i++) {
		size_t at = r->pos;
		ok = ok && gsioi_read_i32(r, counts[i], names[i]);
		if (ok && i != 7) ok = check_count(r, *counts[i], names[i], at);
	}
	GSIO_CHECK(ok);
	if (*version != 2 && (h->numverts > 32768 || h->numskinverts > 32768)) {
		// Triangles address vertices with int16: more could never be used.
		GSIO_FAIL(r->err, GSIO_ERR_CORRUPT, r->file, 60,
		          "%d vertices / %d skin vertices exceed the int16 index range",
		          (int)h->numverts, (int)h->numskinverts);
		return false;
	}
	if (*version == 2 && h->numverts > MDL2_MAX_VERTS) {
		GSIO_FAIL(r->err, GSIO_ERR_CORRUPT, r->file, 60, "%d vertices: MDL2 allows at most %d",
		          (int)h->numverts, MDL2_MAX_VERTS);
		return false;
	}
	return true;
}

/* MDL2's Quake records: one skin vertex per 3D vertex, triangles with a
 * front/back flag. Both blocks are checked whole before anything is allocated. */
static bool decode_mdl2_records(gsioi_reader *r, gsio_mdl_file *f, gsio_error *err)
{
	const gsio_mdl_header *h = &f->header;
	size_t nv = (size_t)h->numverts, nt = (size_t)h->numtris, tri_bytes;
	GSIO_CHECK(gsioi_reader_need(r, nv * 12, "the MDL2 skin vertices"));
	f->mdl2_uvs_count = nv;
	GSIO_CHECK((f->mdl2_uvs = GSIO_NEW_ARRAY(f->arena, gsio_mdl2_uv, nv, err)));
	for (size_t i = 0; i < nv; i++) {
		gsio_mdl2_uv *u = &f->mdl2_uvs[i];
		GSIO_CHECK(gsioi_read_i32(r, &u->onseam, "onseam") && gsioi_read_i32(r, &u->s, "s") &&
		           gsioi_read_i32(r, &u->t, "t"));
	}
	if (!gsioi_mul_size(nt, 16, &tri_bytes)) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, 64, "numtris %zu overflows", nt);
		return false;
	}
	GSIO_CHECK(gsioi_reader_need(r, tri_bytes, "the MDL2 triangles"));
	f->mdl2_triangles_count = nt;
	GSIO_CHECK((f->mdl2_triangles = GSIO_NEW_ARRAY(f->arena, gsio_mdl2_triangle, nt, err)));
	for (size_t i = 0; i < nt; i++) {
		gsio_mdl2_triangle *t = &f->mdl2_triangles[i];
		GSIO_CHECK(gsioi_read_i32(r, &t->facesfront, "facesfront"));
		for (int k = 0; k < 3; k++) {
			size_t at = r->pos;
			GSIO_CHECK(gsioi_read_i32(r, &t->xyz[k], "a vertex index"));
			if (t->xyz[k] < 0 || t->xyz[k] >= h->numverts) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, (int64_t)at,
				          "triangle %zu: vertex index %d is outside 0..%d", i, (int)t->xyz[k],
				          (int)h->numverts - 1);
				return false;
			}
		}
	}
	return true;
}

static bool decode_skins(gsioi_reader *r, gsio_mdl_file *f, gsio_error *err)
{
	const gsio_mdl_header *h = &f->header;
	// Each skin takes at least 4 bytes: a count larger than the file is corrupt.
	if ((size_t)h->numskins > gsioi_reader_remaining(r) / 4) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, 48,
		          "numskins %d cannot fit in the %zu bytes that follow the header",
		          (int)h->numskins, gsioi_reader_remaining(r));
		return false;
	}
	f->skins_count = (size_t)h->numskins;
	f->skins = GSIO_NEW_ARRAY(f->arena, gsio_mdl_skin, f->skins_count, err);
	GSIO_CHECK(f->skins);
	for (size_t i = 0; i < f->skins_count; i++) {
		gsio_mdl_skin *s = &f->skins[i];
		size_t at = r->pos;
		GSIO_CHECK(gsioi_read_i32(r, &s->type, "a skin type"));
		if (f->version == 5) {
			GSIO_CHECK(gsioi_read_i32(r, &s->width, "a skin width"));
			GSIO_CHECK(gsioi_read_i32(r, &s->height, "a skin height"));
		} else {
			s->width = h->skinwidth;
			s->height = h->skinheight;
			if (s->type == GSIO_MDL_SKIN_DDS || (s->type & GSIO_MDL_SKIN_MIPS)) {
				// Neither exists before MDL5 (per-skin sizes came with it).
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, (int64_t)at,
				          "skin %zu: type %d is not valid in MDL%d", i, (int)s->type,
				          f->version);
				return false;
			}
		}
		gsio_error sub;
		gsio_error_clear(&sub);
		s->pixels_size = gsio_mdl_skin_size(s->type, s->width, s->height, &sub);
		if (!s->pixels_size) {
			GSIO_FAIL(err, sub.code, r->file, (int64_t)at, "skin %zu: %s", i, sub.message);
			return false;
		}
		char what[64];
		snprintf(what, sizeof(what), "the pixels of skin %zu", i);
		GSIO_CHECK((s->pixels = gsioi_read_bytes(r, s->pixels_size, what)));
	}
	return true;
}

/* borrow: point into `data` instead of copying it (the caller keeps data
 * alive for as long as the decoded file lives). keep_frames: frames decoded
 * and kept (SIZE_MAX: all); the others are still checked, so a truncated or
 * corrupt file fails the same way whatever is kept. raw: when not NULL, gets
 * (in the file's arena) each kept frame's stored vertex records, and only
 * frame 0 is expanded into verts (the scene keeps the others packed). */
static gsio_mdl_file *mdl_decode(const uint8_t *data, size_t size, const char *name,
                                 const gsio_opts *opts, gsio_error *err, bool borrow,
                                 size_t keep_frames, const uint8_t ***raw)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *arena;
	const uint8_t *copy;
	gsio_mdl_file *f = gsioi_codec_begin(data, size, name, opts, borrow, sizeof(*f), &arena, &copy, err);
	if (!f) return NULL;
	f->arena = arena;
	gsioi_reader r = gsioi_reader_make(copy, size, name, err);
	gsio_mdl_header *h = &f->header;
	if (!decode_header(&r, h, &f->version)) goto fail;
	if (!decode_skins(&r, f, err)) goto fail;

	if (f->version == 2) {
		if (!decode_mdl2_records(&r, f, err)) goto fail;
	} else {
		// Skin vertices and triangles: check the whole block before allocating.
		size_t uv_bytes = (size_t)h->numskinverts * 4;
		if (!gsioi_reader_need(&r, uv_bytes, "the skin vertices")) goto fail;
		f->uvs_count = (size_t)h->numskinverts;
		f->uvs = GSIO_NEW_ARRAY(arena, gsio_mdl_uv, f->uvs_count, err);
		if (!f->uvs) goto fail;
		for (size_t i = 0; i < f->uvs_count; i++) {
			const uint8_t *p = gsioi_read_bytes(&r, 4, "a skin vertex");
			f->uvs[i].u = (int16_t)gsioi_le16(p);
			f->uvs[i].v = (int16_t)gsioi_le16(p + 2);
		}
		size_t tri_bytes;
		if (!gsioi_mul_size((size_t)h->numtris, 12, &tri_bytes) ||
		    !gsioi_reader_need(&r, tri_bytes, "the triangles"))
			goto fail;
		f->triangles_count = (size_t)h->numtris;
		f->triangles = GSIO_NEW_ARRAY(arena, gsio_mdl_triangle, f->triangles_count, err);
		if (!f->triangles) goto fail;
		for (size_t i = 0; i < f->triangles_count; i++) {
			size_t at = r.pos;
			const uint8_t *p = gsioi_read_bytes(&r, 12, "a triangle");
			gsio_mdl_triangle *t = &f->triangles[i];
			for (int k = 0; k < 3; k++) {
				t->xyz[k] = (int16_t)gsioi_le16(p + 2 * k);
				t->uv[k] = (int16_t)gsioi_le16(p + 6 + 2 * k);
				if (t->xyz[k] < 0 || t->xyz[k] >= h->numverts) {
					GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)(at + 2 * (size_t)k),
					          "triangle %zu: vertex index %d is outside 0..%d", i, (int)t->xyz[k],
					          (int)h->numverts - 1);
					goto fail;
				}
				if (t->uv[k] < 0 || t->uv[k] >= h->numskinverts) {
					GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)(at + 6 + 2 * (size_t)k),
					          "triangle %zu: skin vertex index %d is outside 0..%d", i,
					          (int)t->uv[k], (int)h->numskinverts - 1);
					goto fail;
				}
			}
		}
	}

	// Frames: each is at least 20 + 2*4 + numverts*4 bytes; bound the count first.
	size_t min_frame = 28 + (size_t)h->numverts * 4;
	if ((size_t)h->numframes > gsioi_reader_remaining(&r) / min_frame) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, 68,
		          "numframes %d cannot fit in the %zu bytes left at offset %zu",
		          (int)h->numframes, gsioi_reader_remaining(&r), r.pos);
		goto fail;
	}
	// Every frame is checked (its type, its room in the file); only the
	// first keep_frames are read into frames.
	const size_t all_frames = (size_t)h->numframes;
	f->frames_count = all_frames < keep_frames ? all_frames : keep_frames;
	f->frames = GSIO_NEW_ARRAY(arena, gsio_mdl_frame, f->frames_count, err);
	if (!f->frames) goto fail;
	if (raw && !(*raw = GSIO_NEW_ARRAY(arena, const uint8_t *, f->frames_count, err))) goto fail;
	const size_t nv = (size_t)h->numverts;
	for (size_t i = 0; i < all_frames; i++) {
		size_t at = r.pos;
		int32_t type;
		if (!gsioi_read_i32(&r, &type, "a frame type")) goto fail;
		if (f->version == 2 && type != GSIO_MDL_FRAME_BYTE) {
			// Quake's type 1 is a frame group, a different layout no MDL2 file shows.
			GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, name, (int64_t)at,
			          "frame %zu: MDL2 frame type %d (only single byte-packed frames, type 0, "
			          "are read)", i, (int)type);
			goto fail;
		}
		if (type != GSIO_MDL_FRAME_BYTE && type != GSIO_MDL_FRAME_WORD) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)at,
			          "frame %zu: type %d is neither 0 (byte-packed) nor 2 (word-packed)", i,
			          (int)type);
			goto fail;
		}
		const size_t vsize = type == GSIO_MDL_FRAME_BYTE ? 4 : 8;
		const size_t body = 16 + (2 + nv) * vsize; // bbox, name, vertices
		if (gsioi_reader_remaining(&r) < body) {
			char what[48];
			snprintf(what, sizeof(what), "frame %zu", i);
			gsioi_reader_need(&r, body, what); // fails, naming the frame
			goto fail;
		}
		if (i >= keep_frames) {
			// Checked, not kept (first frame only): only the type is read.
			// Each type is a cache and TLB miss a frame (80 KB on a 20 000-
			// vertex model) from the last, one after another, since where
			// the next frame starts depends on this one's type; so the types
			// of the frames ahead are fetched at once, where they are if
			// they are of this type (a hint only; the walk reads what is
			// there). The synthetic 500-frame MDL5 loaded first frame only
			// after a full load of it: its decoding 0.74 -> 0.47 ms (median
			// of 40), 0.70 without the fetching ahead.
			for (size_t k = i == keep_frames ? 1 : MDL_WALK_AHEAD; k <= MDL_WALK_AHEAD; k++) {
				size_t ahead = r.pos + body + (k - 1) * (4 + body);
				if (ahead < r.size) __builtin_prefetch(r.data + ahead);
			}
			r.pos += body;
			continue;
		}
		gsio_mdl_frame *fr = &f->frames[i];
		fr->type = type;
		if (!read_vertex(&r, fr->type, &fr->bbox_min) ||
		    !read_vertex(&r, fr->type, &fr->bbox_max))
			goto fail;
		memcpy(fr->name, gsioi_read_bytes(&r, 16, "a frame name"), 16);
		// The whole frame was checked above: one read, then a tight loop
		// (a bounded read per vertex was most of the decoding time).
		const uint8_t *p = gsioi_read_bytes(&r, nv * vsize, "a frame's vertices");
		if (!p) goto fail;
		if (raw) {
			(*raw)[i] = p;
			if (i > 0) continue; // kept as stored (see mdl_to_scene)
		}
		gsio_mdl_vertex *vs = gsioi_arena_array_uninit(arena, nv, sizeof(gsio_mdl_vertex), err);
		if (!(fr->verts = vs)) goto fail;
		if (fr->type == GSIO_MDL_FRAME_BYTE) {
			for (size_t v = 0; v < nv; v++, p += 4) {
				vs[v].pos[0] = p[0];
				vs[v].pos[1] = p[1];
				vs[v].pos[2] = p[2];
				vs[v].normal = p[3];
				vs[v].bone = 0;
			}
		} else {
			for (size_t v = 0; v < nv; v++, p += 8) {
				vs[v].pos[0] = gsioi_le16(p);
				vs[v].pos[1] = gsioi_le16(p + 2);
				vs[v].pos[2] = gsioi_le16(p + 4);
				vs[v].normal = p[6];
				vs[v].bone = p[7];
			}
		}
	}
	f->trailing = copy + r.pos;
	f->trailing_size = r.size - r.pos;
	return f;
fail:
	gsioi_arena_destroy(arena);
	return NULL;
}

gsio_mdl_file *gsio_mdl_decode(const uint8_t *data, size_t size, const char *name,
                               const gsio_opts *opts, gsio_error *err)
{
	return mdl_decode(data, size, name, opts, err, false, SIZE_MAX, NULL);
}

void gsio_mdl_file_free(gsio_mdl_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}

// -- Encode

static bool write_vertex(gsioi_writer *w, int32_t type, const gsio_mdl_vertex *v)
{
	if (type == GSIO_MDL_FRAME_BYTE) {
		uint8_t b[4] = {(uint8_t)v->pos[0], (uint8_t)v->pos[1], (uint8_t)v->pos[2], v->normal};
		return gsioi_write_bytes(w, b, 4);
	}
	return gsioi_write_u16(w, v->pos[0]) && gsioi_write_u16(w, v->pos[1]) &&
	       gsioi_write_u16(w, v->pos[2]) && gsioi_write_u8(w, v->normal) &&
	       gsioi_write_u8(w, v->bone);
}

int gsio_mdl_encode(const gsio_mdl_file *f, uint8_t **out, size_t *out_size, gsio_error *err)
{
	return gsioi_mdl_encode_with(f, NULL, 0, out, out_size, err);
}

int gsioi_mdl_encode_with(const gsio_mdl_file *f, const gsio_allocator *allocator, size_t limit,
                          uint8_t **out, size_t *out_size, gsio_error *err)
{
	*out = NULL;
	*out_size = 0;
	const gsio_mdl_header *h = &f->header;
	int version = f->version;
	if (version < 2 || version > 5 || memcmp(h->version, "MDL", 3) ||
	    h->version[3] != (char)('0' + version)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode MDL version %d", version);
		return -1;
	}
	bool counts_ok = h->numskins >= 0 && (size_t)h->numskins == f->skins_count &&
	                 h->numskinverts >= 0 && h->numtris >= 0 && h->numframes >= 0 &&
	                 (size_t)h->numframes == f->frames_count && h->numverts >= 0;
	if (version == 2)
		counts_ok = counts_ok && (size_t)h->numverts == f->mdl2_uvs_count &&
		            (size_t)h->numtris == f->mdl2_triangles_count;
	else
		counts_ok = counts_ok && (size_t)h->numskinverts == f->uvs_count &&
		            (size_t)h->numtris == f->triangles_count;
	if (!counts_ok) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "header counts do not match the arrays");
		return -1;
	}
	gsioi_writer w = {0};
	w.allocator = allocator;
	w.limit = limit;
	gsioi_write_bytes(&w, h->version, 4);
	gsioi_write_i32(&w, h->final);
	for (int i = 0; i < 3; i++) gsioi_write_f32(&w, h->scale[i]);
	for (int i = 0; i < 3; i++) gsioi_write_f32(&w, h->offset[i]);
	gsioi_write_f32(&w, h->radius);
	for (int i = 0; i < 3; i++) gsioi_write_f32(&w, h->eye[i]);
	const int32_t counts[] = {h->numskins,  h->skinwidth,    h->skinheight,
	                          h->numverts,  h->numtris,      h->numframes,
	                          h->numskinverts, h->flags,     h->numbones};
	for (size_t i = 0; i < 9; i++) gsioi_write_i32(&w, counts[i]);
	for (size_t i = 0; i < f->skins_count; i++) {
		const gsio_mdl_skin *s = &f->skins[i];
		size_t want = gsio_mdl_skin_size(s->type, s->width, s->height, err);
		if (!want || want != s->pixels_size) {
			gsioi_writer_free(&w);
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
			          "skin %zu: %zu bytes of pixels, type %d %dx%d needs %zu", i,
			          s->pixels_size, (int)s->type, (int)s->width, (int)s->height, want);
			return -1;
		}
		gsioi_write_i32(&w, s->type);
		if (version == 5) {
			gsioi_write_i32(&w, s->width);
			gsioi_write_i32(&w, s->height);
		}
		gsioi_write_bytes(&w, s->pixels, s->pixels_size);
	}
	for (size_t i = 0; version == 2 && i < f->mdl2_uvs_count; i++) {
		gsioi_write_i32(&w, f->mdl2_uvs[i].onseam);
		gsioi_write_i32(&w, f->mdl2_uvs[i].s);
		gsioi_write_i32(&w, f->mdl2_uvs[i].t);
	}
	for (size_t i = 0; version == 2 && i < f->mdl2_triangles_count; i++) {
		gsioi_write_i32(&w, f->mdl2_triangles[i].facesfront);
		for (int k = 0; k < 3; k++) gsioi_write_i32(&w, f->mdl2_triangles[i].xyz[k]);
	}
	for (size_t i = 0; version != 2 && i < f->uvs_count; i++) {
		gsioi_write_i16(&w, f->uvs[i].u);
		gsioi_write_i16(&w, f->uvs[i].v);
	}
	for (size_t i = 0; version != 2 && i < f->triangles_count; i++) {
		for (int k = 0; k < 3; k++) gsioi_write_i16(&w, f->triangles[i].xyz[k]);
		for (int k = 0; k < 3; k++) gsioi_write_i16(&w, f->triangles[i].uv[k]);
	}
	for (size_t i = 0; i < f->frames_count; i++) {
		const gsio_mdl_frame *fr = &f->frames[i];
		gsioi_write_i32(&w, fr->type);
		write_vertex(&w, fr->type, &fr->bbox_min);
		write_vertex(&w, fr->type, &fr->bbox_max);
		gsioi_write_bytes(&w, fr->name, 16);
		for (size_t v = 0; v < (size_t)h->numverts; v++) write_vertex(&w, fr->type, &fr->verts[v]);
	}
	gsioi_write_bytes(&w, f->trailing, f->trailing_size);
	if (w.failed) {
		gsioi_writer_free(&w);
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding the MDL file");
		return -1;
	}
	*out = w.data;
	*out_size = w.size;
	return 0;
}

// -- Scene

/* Welding: a scene vertex is one (position index, uv index) pair, numbered
 * in order of first use, made by gsioi_weld (gsioi_scene_util.h; MDL7 shares
 * it). It is linear in the corners whatever the file: the chain of uvs per
 * position it replaced went quadratic when one position carried thousands
 * of uvs (18 s for a 1.3 MB file, found while fuzzing). */

static bool frame_name(const gsio_mdl_frame *fr, gsio_arena *a, gsio_error *err,
                       const char **out)
{
	*out = gsioi_text_utf8_dup(a, fr->name, 16, err); // as UTF-8 (gsioi_text_utf8)
	return *out != NULL;
}

static bool skins_to_images(gsio_scene *s, const gsio_mdl_file *f, const uint8_t *palette,
                            bool no_pixels, const uint8_t *lend, size_t lend_size,
                            gsio_error *err)
{
	s->images = GSIO_NEW_ARRAY(s->arena, gsio_image, f->skins_count, err);
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, f->skins_count, err);
	GSIO_CHECK(s->images && s->materials);
	size_t ni = 0;
	for (size_t i = 0; i < f->skins_count; i++) {
		const gsio_mdl_skin *sk = &f->skins[i];
		gsio_image *im = &s->images[ni];
		if (sk->type == GSIO_MDL_SKIN_DDS) {
			bool decoded;
			GSIO_CHECK(gsioi_dds_skin_image(s, sk->pixels, sk->pixels_size, i, im, no_pixels,
			                                &decoded, err));
			if (!decoded) continue;
		} else {
			char name[32];
			snprintf(name, sizeof(name), "skin%zu", i);
			GSIO_CHECK((im->name = gsioi_arena_strdup(s->arena, name, err)));
			im->width = (uint32_t)sk->width;
			im->height = (uint32_t)sk->height;
			im->source_type = sk->type;
			im->source_format = (gsio_pixel_format)(sk->type & 7);
			im->source_mip_count = (sk->type & GSIO_MDL_SKIN_MIPS) ? 3 : 0;
			int rc = gsioi_skin_pixels(s->arena, im, sk->pixels, palette, no_pixels, lend, lend_size,
			                           err);
			if (rc > 0) {
				GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, NULL, -1, "skin %zu: type %d", i, (int)sk->type);
				return false;
			}
			GSIO_CHECK(rc == 0);
		}
		// One material per skin: the mesh uses the first, the others are the
		// alternative skins the engine can switch to (glTF variants).
		gsio_material *mat = &s->materials[ni];
		gsioi_material_defaults(mat);
		mat->name = im->name;
		mat->base_color_texture.image = (int32_t)ni;
		GSIO_CHECK(!gsio_extras_set_int(s, &mat->extras, "gsio:skin_type", sk->type, err));
		ni++;
	}
	s->images_count = ni;
	s->materials_count = ni;
	return true;
}

/* Positions and outward normals of the first `count` scene vertices in one
 * frame; *bad_normals counts indices past the normal table (used as 0). */
static void decode_frame(const gsio_mdl_file *f, const gsio_mdl_frame *fr,
                         const uint32_t *source_vertex, size_t count, float *pos, float *nrm,
                         size_t *bad_normals)
{
	const gsio_mdl_header *h = &f->header;
	for (size_t v = 0; v < count; v++) {
		const gsio_mdl_vertex *pv = &fr->verts[source_vertex[v]];
		for (int k = 0; k < 3; k++)
			pos[3 * v + (size_t)k] = h->scale[k] * (float)pv->pos[k] + h->offset[k];
		unsigned ni = pv->normal;
		if (ni >= GSIO_NORMAL_COUNT) {
			++*bad_normals;
			ni = 0;
		}
		// The table normals point into the model (docs/FORMATS.md §2.2): negate.
		for (int k = 0; k < 3; k++) nrm[3 * v + (size_t)k] = -gsio_anorms[ni][k];
	}
}

// -- Scene: packed frames

/* Frame fr's records in layout `type` (nv of them) into out: from its stored
 * bytes `raw` (in its own type) or from its decoded verts. For frames whose
 * layout differs from the mesh's (a file mixing byte- and word-packed
 * frames) or that only exist decoded (gsio_mdl_to_scene callers). */
static void pack_frame(const gsio_mdl_frame *fr, const uint8_t *raw, size_t nv, int32_t type,
                       uint8_t *out)
{
	size_t in_rec = fr->type == GSIO_MDL_FRAME_BYTE ? 4 : 8;
	for (size_t v = 0; v < nv; v++) {
		gsio_mdl_vertex x;
		if (raw) {
			const uint8_t *p = raw + v * in_rec;
			bool b = fr->type == GSIO_MDL_FRAME_BYTE;
			for (int k = 0; k < 3; k++) x.pos[k] = b ? p[k] : gsioi_le16(p + 2 * k);
			x.normal = b ? p[3] : p[6];
			x.bone = b ? 0 : p[7];
		} else {
			x = fr->verts[v];
		}
		if (type == GSIO_MDL_FRAME_BYTE) {
			uint8_t *o = out + 4 * v;
			for (int k = 0; k < 3; k++) o[k] = (uint8_t)x.pos[k];
			o[3] = x.normal;
		} else {
			uint8_t *o = out + 8 * v;
			for (int k = 0; k < 3; k++) {
				o[2 * k] = (uint8_t)(x.pos[k] & 0xFF);
				o[2 * k + 1] = (uint8_t)(x.pos[k] >> 8);
			}
			o[6] = x.normal;
			o[7] = x.bone;
		}
	}
}

/* The mesh's frames, kept as the file stores them (gsio_packed_format): the
 * records of every frame in one block of the scene's arena (one memcpy a
 * frame), or, with GSIO_OPT_BORROW, the caller's bytes themselves. Frame 0
 * also points at the mesh's floats. Bounds come from the extreme raw values
 * of the source vertices the mesh shows. */
static bool frames_packed(gsio_scene *s, gsio_mesh *m, const gsio_mdl_file *f,
                          const uint8_t *const *raw, size_t nframes, const gsio_opts *opts,
                          gsio_arena *tmp, size_t *bad_normals, gsio_error *err)
{
	gsio_arena *a = s->arena;
	const gsio_mdl_header *h = &f->header;
	size_t nv = (size_t)h->numverts;
	int32_t type = GSIO_MDL_FRAME_BYTE;
	for (size_t i = 0; i < nframes; i++)
		if (f->frames[i].type == GSIO_MDL_FRAME_WORD) type = GSIO_MDL_FRAME_WORD;
	gsio_packed_format *pf = GSIO_NEW_ARRAY(a, gsio_packed_format, 1, err);
	GSIO_CHECK(pf);
	bool byte = type == GSIO_MDL_FRAME_BYTE;
	size_t rec = byte ? 4 : 8, frame_bytes = nv * rec; // fits: checked against the file on decode
	pf->coord_size = byte ? 1 : 2;
	pf->vertex_stride = (uint32_t)rec;
	pf->normal_offset = byte ? 3 : 6;
	pf->source_count = nv;
	memcpy(pf->scale, h->scale, sizeof(pf->scale));
	memcpy(pf->offset, h->offset, sizeof(pf->offset));
	pf->normal_table = gsioi_anorms_outward;
	pf->normal_count = GSIO_NORMAL_COUNT;
	m->packed = pf;

	// The source vertices the mesh shows, ascending (NULL: all of them).
	uint8_t *seen = GSIO_NEW_ARRAY(tmp, uint8_t, nv, err);
	GSIO_CHECK(seen);
	size_t nused = 0;
	for (size_t v = 0; v < m->vertex_count; v++)
		if (!seen[m->source_vertex[v]]) seen[m->source_vertex[v]] = 1, nused++;
	uint32_t *used = NULL;
	if (nused < nv) {
		GSIO_CHECK((used = GSIO_NEW_ARRAY(tmp, uint32_t, nused, err)));
		for (size_t x = 0, k = 0; x < nv; x++)
			if (seen[x]) used[k++] = (uint32_t)x;
	}

	bool borrow = opts && (opts->flags & GSIO_OPT_BORROW) && raw;
	size_t ncopy = 0;
	for (size_t i = 0; i < nframes; i++)
		ncopy += !(borrow && f->frames[i].type == type);
	uint8_t *block = NULL;
	if (ncopy) GSIO_CHECK((block = gsioi_arena_array_uninit(a, ncopy, frame_bytes, err)));
	GSIO_CHECK((m->frames = GSIO_NEW_ARRAY(a, gsio_morph_frame, nframes, err)));
	m->frames_count = nframes;
	for (size_t i = 0; i < nframes; i++) {
		const gsio_mdl_frame *fr = &f->frames[i];
		gsio_morph_frame *mf = &m->frames[i];
		GSIO_CHECK(frame_name(fr, a, err, &mf->name));
		const uint8_t *src = raw ? raw[i] : NULL;
		uint8_t *copy_to = NULL; // the file's records, copied while their bounds are taken
		if (borrow && fr->type == type) {
			mf->packed = src;
		} else {
			if (src && fr->type == type) copy_to = block;
			else pack_frame(fr, src, nv, type, block);
			mf->packed = block;
			block += frame_bytes;
		}
		mf->packed_size = frame_bytes;
		gsioi_packed_bounds(pf, copy_to ? src : mf->packed, used, nused, copy_to, mf->bbox_min,
		                    mf->bbox_max, bad_normals);
		if (!gsioi_floats_finite(mf->bbox_min, 3) || !gsioi_floats_finite(mf->bbox_max, 3)) {
			// Monotonic in the raw value: the box's corners are the extremes.
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, 8,
			          "frame %zu: positions are not finite (scale %g %g %g, offset %g %g %g)", i,
			          (double)h->scale[0], (double)h->scale[1], (double)h->scale[2],
			          (double)h->offset[0], (double)h->offset[1], (double)h->offset[2]);
			return false;
		}
	}
	m->frames[0].positions = m->positions;
	m->frames[0].normals = m->normals;
	gsioi_bbox3(m->positions, m->vertex_count, m->frames[0].bbox_min, m->frames[0].bbox_max);
	return true;
}

/* The mesh: welded vertices, double-sided faces split, every frame. The
 * first-frame preview the split decides on lives in `tmp` (the welding
 * frees its own tables). */
static bool build_mesh(gsio_scene *s, const gsio_mdl_file *f, const uint8_t *const *raw,
                       const gsio_opts *opts, gsio_arena *tmp, gsio_error *err)
{
	gsio_arena *a = s->arena;
	const gsio_mdl_header *h = &f->header;

	// Weld (position, uv) pairs in triangle order (see "Welding" above):
	// the indices in the scene.
	size_t nv = (size_t)h->numverts, nuv = f->uvs_count, ncorner = f->triangles_count * 3;
	const gsio_mdl_triangle *tris = f->triangles;
	uint32_t *ix = GSIO_NEW_ARRAY_UNINIT(a, uint32_t, ncorner, err);
	GSIO_CHECK(ix);
	const gsioi_corner_keys xyz_keys = {tris ? tris->xyz : NULL, sizeof(*tris), 2};
	const gsioi_corner_keys uv_keys = {tris ? tris->uv : NULL, sizeof(*tris), 2};
	size_t nout;
	GSIO_CHECK(gsioi_weld(xyz_keys, uv_keys, ncorner, nv, nuv, ix, &nout, tmp, err));

	gsio_mesh *m = s->meshes = GSIO_NEW_ARRAY(a, gsio_mesh, 1, err);
	GSIO_CHECK(m);
	s->meshes_count = 1;
	m->name = "mesh";
	m->skin = -1;
	m->vertex_count = nout;
	m->index_count = ncorner;
	m->indices = ix;
	// Per-vertex arrays in the scene at their final size (the fold of
	// double-sided faces keeps the vertex count). Written in full below:
	// every output vertex from its first corner. Then the winding reversed:
	// stored clockwise, made counter-clockwise.
	m->source_vertex = GSIO_NEW_ARRAY_UNINIT(a, uint32_t, nout, err);
	m->source_uv = GSIO_NEW_ARRAY_UNINIT(a, uint32_t, nout, err);
	GSIO_CHECK(m->source_vertex && m->source_uv);
	GSIO_CHECK(gsioi_mesh_one_part(s, m, s->materials_count ? 0 : -1, err));
	size_t made = 0;
	for (size_t t = 0; t < f->triangles_count; t++) {
		uint32_t *tri = &ix[3 * t];
		for (int k = 0; k < 3; k++)
			if (tri[k] == made) {
				m->source_vertex[made] = (uint32_t)tris[t].xyz[k];
				m->source_uv[made] = (uint32_t)tris[t].uv[k];
				made++;
			}
		uint32_t swap = tri[1];
		tri[1] = tri[2];
		tri[2] = swap;
	}

	// UVs relative to the first skin, sampled at texel centres.
	int32_t uw = f->skins_count ? f->skins[0].width : h->skinwidth;
	int32_t uh = f->skins_count ? f->skins[0].height : h->skinheight;
	if (f->skins_count && f->skins[0].type == GSIO_MDL_SKIN_DDS) {
		// UVs are in texels of the DDS's own size (its header's, when it parses).
		gsioi_dds_info di;
		gsio_error derr;
		gsio_error_clear(&derr);
		bool ok = gsioi_dds_parse(f->skins[0].pixels, f->skins[0].pixels_size, NULL, 0, &di, &derr);
		uw = ok ? (int32_t)di.width : 0;
		uh = ok ? (int32_t)di.height : 0;
	}
	if (uw > 0 && uh > 0) {
		GSIO_CHECK((m->uvs = GSIO_NEW_ARRAY_UNINIT(a, float, 2 * nout, err)));
		for (size_t v = 0; v < nout; v++) {
			const gsio_mdl_uv *uv = &f->uvs[m->source_uv[v]];
			m->uvs[2 * v] = ((float)uv->u + 0.5f) / (float)uw;
			m->uvs[2 * v + 1] = ((float)uv->v + 0.5f) / (float)uh;
		}
	}

	// Frame 0 as floats (every consumer reads mesh.positions/normals); the
	// double-sided faces are decided on it (see gsioi_scene_util.h).
	size_t unused = 0;
	m->positions = gsioi_arena_array_uninit(a, 3 * nout, sizeof(float), err);
	m->normals = gsioi_arena_array_uninit(a, 3 * nout, sizeof(float), err);
	GSIO_CHECK(m->positions && m->normals);
	decode_frame(f, &f->frames[0], m->source_vertex, nout, m->positions, m->normals, &unused);
	size_t pairs;
	GSIO_CHECK(gsioi_mesh_fold_double_sided(s, m, tmp, false, &pairs, err));

	size_t nframes = (opts && (opts->flags & GSIO_OPT_NO_ANIMATION)) ? 1 : f->frames_count;
	size_t bad_normals = 0;
	GSIO_CHECK(frames_packed(s, m, f, raw, nframes, opts, tmp, &bad_normals, err));
	if (bad_normals)
		GSIO_CHECK(gsioi_scene_warn(s, err, "%zu vertex normal indices are >= 162; used normal 0",
		                           bad_normals));
	memcpy(m->bbox_min, m->frames[0].bbox_min, sizeof(m->bbox_min));
	memcpy(m->bbox_max, m->frames[0].bbox_max, sizeof(m->bbox_max));
	return true;
}

/* MDL2 seen as an MDL3: Quake's one skin vertex per 3D vertex becomes two
 * skin vertices, i and numverts + i, the second shifted right by half the
 * skin for back-facing triangles (facesfront 0) that use a seam vertex
 * (onseam != 0): Quake's own rule, which lets one skin vertex serve both
 * halves of a front/back skin. The welding and the rest of the scene are
 * then the MDL3 code's. */
static bool mdl2_as_mdl3(const gsio_mdl_file *f, gsio_arena *tmp, gsio_mdl_file *view,
                         gsio_error *err)
{
	*view = *f;
	size_t nv = f->mdl2_uvs_count, nt = f->mdl2_triangles_count;
	int32_t half = f->header.skinwidth / 2;
	view->uvs_count = 2 * nv; // <= 32768 (MDL2_MAX_VERTS): int16 indices
	view->triangles_count = nt;
	view->uvs = GSIO_NEW_ARRAY(tmp, gsio_mdl_uv, 2 * nv, err);
	view->triangles = GSIO_NEW_ARRAY(tmp, gsio_mdl_triangle, nt, err);
	GSIO_CHECK(view->uvs && view->triangles);
	for (size_t i = 0; i < nv; i++) {
		const gsio_mdl2_uv *u = &f->mdl2_uvs[i];
		int64_t s = u->s, shifted = (int64_t)u->s + half;
		if (s < INT16_MIN || shifted > INT16_MAX || u->t < INT16_MIN || u->t > INT16_MAX) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, -1,
			          "MDL2 skin vertex %zu: s %d, t %d are out of range", i, (int)u->s,
			          (int)u->t);
			return false;
		}
		view->uvs[i].u = (int16_t)s;
		view->uvs[nv + i].u = (int16_t)shifted;
		view->uvs[i].v = view->uvs[nv + i].v = (int16_t)u->t;
	}
	for (size_t t = 0; t < nt; t++) {
		const gsio_mdl2_triangle *q = &f->mdl2_triangles[t];
		for (int k = 0; k < 3; k++) {
			int32_t x = q->xyz[k]; // checked < numverts <= MDL2_MAX_VERTS on decode
			bool seam = !q->facesfront && f->mdl2_uvs[x].onseam;
			view->triangles[t].xyz[k] = (int16_t)x;
			view->triangles[t].uv[k] = (int16_t)(seam ? (int32_t)nv + x : x);
		}
	}
	return true;
}

/* raw: each frame's stored records (mdl_decode), NULL when the frames are
 * only in verts (a file from gsio_mdl_decode or built by a program). */
static gsio_scene *mdl_to_scene(const gsio_mdl_file *f, const uint8_t *const *raw,
                                const uint8_t *lend, size_t lend_size, const char *name,
                                const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	gsio_arena *tmp = NULL;
	const gsio_mdl_header *h = &f->header;
	uint8_t palette_buf[768];
	const uint8_t *palette = opts ? opts->palette : NULL;
	if (!palette && opts && opts->palette_path) {
		if (gsio_palette_load(opts->palette_path, palette_buf, err)) goto fail;
		palette = palette_buf;
	}

	static const char *const formats[] = {"MDL2", "MDL3", "MDL4", "MDL5"};
	s->format = formats[f->version >= 2 && f->version <= 5 ? f->version - 2 : 1];
	s->format_version = f->version;
	s->source.vertices = (size_t)h->numverts;
	s->source.triangles = f->version == 2 ? f->mdl2_triangles_count : f->triangles_count;
	s->source.uvs = f->version == 2 ? f->mdl2_uvs_count : f->uvs_count;
	s->source.frames = (size_t)h->numframes;
	// With GSIO_OPT_BORROW, stored skins may point into the caller's bytes
	// (lend: mdl_read's data), as packed frames do.
	bool lending = lend && opts && (opts->flags & GSIO_OPT_BORROW);
	if (!skins_to_images(s, f, palette, opts && (opts->flags & GSIO_OPT_NO_PIXELS),
	                     lending ? lend : NULL, lend_size, err))
		goto fail;

	if (f->frames_count == 0 || h->numverts == 0) {
		// A model without frames has no positions: an empty scene, said out loud.
		if (!gsioi_scene_warn(s, err, "the model has %zu frames and %d vertices: no mesh",
		                     f->frames_count, (int)h->numverts))
			goto fail;
		return s;
	}
	// Temporaries of this load (welding tables, the split's preview) go into
	// their own arena, freed below: the scene keeps only what it returns.
	if (!(tmp = gsioi_arena_for(opts, "MDL scratch", err))) goto fail;
	gsio_mdl_file view;
	if (f->version == 2) {
		if (!mdl2_as_mdl3(f, tmp, &view, err)) goto fail;
		f = &view;
	}
	if (!build_mesh(s, f, raw, opts, tmp, err)) goto fail;
	gsioi_arena_destroy(tmp);
	tmp = NULL;
	int32_t node = gsioi_scene_add_model_node(s, name, 0, err);
	if (node < 0) goto fail;
	float fps = opts && opts->fps > 0 ? opts->fps : GSIO_DEFAULT_FPS;
	if (!gsioi_scene_build_clips(s, &s->meshes[0], node, fps, err)) goto fail;
	return s;
fail:
	if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
	gsioi_arena_destroy(tmp);
	gsio_scene_free(s);
	return NULL;
}

gsio_scene *gsio_mdl_to_scene(const gsio_mdl_file *f, const char *name, const gsio_opts *opts,
                              gsio_error *err)
{
	return mdl_to_scene(f, NULL, NULL, 0, name, opts, err);
}

// -- Importer

static int mdl_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (n >= 4 && (!memcmp(head, "MDL", 3) || !memcmp(head, "IDPO", 4))) return 2;
	return ext && !strcmp(ext, "mdl") ? 1 : 0;
}

static gsio_scene *mdl_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	if (size >= 4 && !memcmp(data, "MDL7", 4)) return gsio_mdl7_read(data, size, path, opts, err);
	// The scene copies what it keeps, so the file may borrow the caller's
	// bytes; without animation it keeps the first frame only.
	bool first_only = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	const uint8_t **raw = NULL;
	gsio_mdl_file *f = mdl_decode(data, size, path, opts, err, true, first_only ? 1 : SIZE_MAX, &raw);
	if (!f) return NULL;
	gsio_scene *s = mdl_to_scene(f, raw, data, size, path, opts, err);
	gsio_mdl_file_free(f);
	return s;
}

const gsio_importer gsio_mdl_importer = {
    "GameStudio MDL", "mdl", 2, 7, mdl_can_read, mdl_read,
};
