/* HMP4 / HMP5: GameStudio A5 terrain.
 *
 * Layout (little-endian): 84-byte header (the MDL header with the model-only
 * fields unused); numskins textures; numframes frames of int32 type (2),
 * two 8-byte word-packed bbox vertices, char name[16], then numverts height
 * records of u16 z, u8 normal, u8 pad; then anything else, kept verbatim.
 * The grid is columns = (int)fnumverts_x by rows = numverts / columns,
 * row-major, row 0 at the +y edge (docs/FORMATS.md §6.4, measured on shadow-5.hmp).
 *
 * HMP4 (engines before A5 5.230) is named by the seed but not described, and
 * no HMP4 file has been found. Decision: it relates to HMP5 as MDL4 to MDL5.
 * The HMP header is the MDL header field for field, and its unused nu8/nu9
 * sit exactly where MDL has skinwidth/skinheight; MDL5 moved the skin size
 * into each skin and left those header fields 0, and so does every HMP5
 * seen (shadow-5.hmp has nu8 = nu9 = 0). So an HMP4 skin is `int32 type` +
 * pixels of nu8 x nu9, without mips or DDS (both came with the per-skin
 * size), and its frames are as in HMP5. *Unverified*: tested only against
 * files this project writes by hand.
 *
 * HMP7 (A6/A7) is not in the seed either; what is read here was measured on
 * the two HMP7 files in the corpus (assimp-terrain.hmp, lgs-small.hmp):
 * - header, frames and grid exactly as HMP5 (both files decode to their
 *   whole size with no byte left over);
 * - skins as MDL7 writes them: int32 type, width, height + data. Types 0..5
 *   (| 8 for mips) and 6 (DDS) as in HMP5 (lgs-small.hmp: a 565 512x512 colour
 *   map and a type-12 128x128 detail map); type 7 is a NUL-terminated external
 *   file name (the corpus's invalid_external_texture_name.hmp has one that is
 *   not terminated: refused). The MDL7 material flags 0x10 / 0x20 occur in no
 *   file found and are refused as unsupported rather than guessed;
 * - height records `u16 z, s8 nx, s8 ny`: nx, ny are the x and y of the unit
 *   normal times 127, pointing *into* the ground like the HMP5 table
 *   normals. Measured: nx follows +dz/dx (Pearson r 0.87 and 0.97), ny
 *   follows +dz/dy with row 0 at the +y edge (0.86, 0.96), and |(nx, ny)| /
 *   127 matches the sine of the slope (median ratio 0.97 on lgs-small.hmp)
 *   where Assimp's reading, normalize(nx/128, ny/128, 1), would need the
 *   slope itself (0.77). So the outward normal is (-nx, -ny, +sqrt(127^2 -
 *   nx^2 - ny^2)), normalised.
 *
 * The layout and how each fact was found: docs/FORMATS.md §6. */
#include "gsio_hmp.h"

#include "gsioi_image_file.h"
#include "gsioi_dds.h"
#include "gsioi_head.h"
#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

// -- Header

static bool fail_corrupt(gsioi_reader *r, size_t offset, const char *msg)
{
	r->failed = true;
	GSIO_FAIL(r->err, GSIO_ERR_CORRUPT, r->file, (int64_t)offset, "%s", msg);
	return false;
}

static bool check_magic(gsioi_reader *r, gsio_hmp_header *h, int *version)
{
	const uint8_t *m = gsioi_read_bytes(r, 4, "the HMP header");
	GSIO_CHECK(m);
	memcpy(h->version, m, 4);
	if (!memcmp(m, "HMP4", 4) || !memcmp(m, "HMP5", 4) || !memcmp(m, "HMP7", 4)) {
		*version = m[3] - '0';
		return true;
	}
	r->failed = true;
	if (!memcmp(m, "HMP", 3))
		GSIO_FAIL(r->err, GSIO_ERR_UNSUPPORTED, r->file, 0,
		          "format HMP%c is not supported yet (gsio reads HMP4, HMP5 and HMP7)",
		          m[3] >= 0x20 && m[3] < 0x7f ? (char)m[3] : '?');
	else
		GSIO_FAIL(r->err, GSIO_ERR_BAD_MAGIC, r->file, 0,
		          "not a GameStudio terrain: magic %02x %02x %02x %02x is not HMP4/5/7", m[0],
		          m[1], m[2], m[3]);
	return false;
}

bool gsioi_hmp_head_ok(const uint8_t *head, size_t n, const char *path, gsio_error *err)
{
	if (n < 4) return true; // too short: the decoder says so
	gsioi_reader r = gsioi_reader_make(head, n, path, err);
	gsio_hmp_header h;
	int version;
	return check_magic(&r, &h, &version);
}

static bool decode_header(gsioi_reader *r, gsio_hmp_file *f)
{
	gsio_hmp_header *h = &f->header;
	GSIO_CHECK(check_magic(r, h, &f->version));
	GSIO_CHECK(gsioi_reader_need(r, GSIO_HMP_HEADER_SIZE - 4, "the HMP header"));
	bool ok = gsioi_read_i32(r, &h->nu1, "nu1");
	for (int i = 0; i < 3; i++) ok = ok && gsioi_read_f32(r, &h->scale[i], "scale");
	for (int i = 0; i < 3; i++) ok = ok && gsioi_read_f32(r, &h->offset[i], "offset");
	ok = ok && gsioi_read_i32(r, &h->nu6, "nu6") &&
	     gsioi_read_f32(r, &h->ftrisize_x, "ftrisize_x") &&
	     gsioi_read_f32(r, &h->ftrisize_y, "ftrisize_y") &&
	     gsioi_read_f32(r, &h->fnumverts_x, "fnumverts_x");
	int32_t *ints[] = {&h->numskins, &h->nu8,  &h->nu9,   &h->numverts, &h->nu10,
	                   &h->numframes, &h->nu11, &h->flags, &h->nu12};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		ok = ok && gsioi_read_i32(r, ints[i], "a header field");
	GSIO_CHECK(ok);

	char msg[160];
	if (h->numskins < 0) {
		snprintf(msg, sizeof(msg), "negative numskins (%d)", (int)h->numskins);
		return fail_corrupt(r, 48, msg);
	}
	if (h->numverts < 0) {
		snprintf(msg, sizeof(msg), "negative numverts (%d)", (int)h->numverts);
		return fail_corrupt(r, 60, msg);
	}
	if (h->numframes < 0) {
		snprintf(msg, sizeof(msg), "negative numframes (%d)", (int)h->numframes);
		return fail_corrupt(r, 68, msg);
	}
	// Only these floats are used; a NaN or infinity in them would reach every position.
	static const struct {
		size_t offset;
		const char *name;
	} used[] = {{16, "scale[2]"},   {20, "offset[0]"},  {24, "offset[1]"},
	            {28, "offset[2]"},  {36, "ftrisize_x"}, {40, "ftrisize_y"}};
	const float values[] = {h->scale[2],    h->offset[0],   h->offset[1],
	                        h->offset[2],   h->ftrisize_x,  h->ftrisize_y};
	for (size_t i = 0; i < 6; i++)
		if (!isfinite(values[i])) {
			snprintf(msg, sizeof(msg), "%s is not a finite number", used[i].name);
			return fail_corrupt(r, used[i].offset, msg);
		}
	// The seed: numverts_x = (int)fnumverts_x, numverts_y = numverts / numverts_x.
	// The range test comes before the cast (a cast out of range is undefined).
	if (!(h->fnumverts_x >= 2.0f && h->fnumverts_x < 2147483648.0f)) {
		snprintf(msg, sizeof(msg), "fnumverts_x %g is not a vertex count of at least 2",
		         (double)h->fnumverts_x);
		return fail_corrupt(r, 44, msg);
	}
	f->columns = (uint32_t)(int32_t)h->fnumverts_x;
	uint32_t nv = (uint32_t)h->numverts;
	if (nv % f->columns || nv / f->columns < 2) {
		snprintf(msg, sizeof(msg),
		         "numverts %d is not %u columns times at least 2 rows (fnumverts_x %g)",
		         (int)h->numverts, f->columns, (double)h->fnumverts_x);
		return fail_corrupt(r, 60, msg);
	}
	f->rows = nv / f->columns;
	return true;
}

// -- Skins

/* HMP7 skin types beyond HMP5's: 7 reads its NUL-terminated file name here;
 * the MDL7 material flags are refused (no file shows their layout). */
static bool check_hmp7_skin(gsioi_reader *r, gsio_mdl_skin *s, size_t i, size_t at)
{
	if (s->type & ~0xF) {
		r->failed = true;
		GSIO_FAIL(r->err, GSIO_ERR_UNSUPPORTED, r->file, (int64_t)at,
		          "skin %zu: type 0x%x (MDL7 material data) is not supported yet", i,
		          (unsigned)s->type);
		return false;
	}
	if (s->type != GSIO_HMP_SKIN_EXTERNAL) return true;
	const uint8_t *p = r->data + r->pos;
	const uint8_t *nul = memchr(p, 0, gsioi_reader_remaining(r));
	if (!nul) {
		r->failed = true;
		GSIO_FAIL(r->err, GSIO_ERR_CORRUPT, r->file, (int64_t)r->pos,
		          "skin %zu: the external texture name is not NUL-terminated before the end "
		          "of the file",
		          i);
		return false;
	}
	s->pixels_size = (size_t)(nul - p) + 1;
	s->pixels = gsioi_read_bytes(r, s->pixels_size, "an external texture name");
	return s->pixels != NULL;
}

static bool decode_skins(gsioi_reader *r, gsio_hmp_file *f, gsio_error *err)
{
	const gsio_hmp_header *h = &f->header;
	// An HMP5/7 skin takes at least 12 bytes, an HMP4 one 4: bound the count first.
	size_t min_skin = f->version == 4 ? 4 : 12;
	if ((size_t)h->numskins > gsioi_reader_remaining(r) / min_skin) {
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
		if (f->version != 4) {
			GSIO_CHECK(gsioi_read_i32(r, &s->width, "a skin width"));
			GSIO_CHECK(gsioi_read_i32(r, &s->height, "a skin height"));
		} else {
			s->width = h->nu8;
			s->height = h->nu9;
			if (s->type == GSIO_MDL_SKIN_DDS || (s->type & GSIO_MDL_SKIN_MIPS)) {
				GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, (int64_t)at,
				          "skin %zu: type %d is not valid in HMP4 (no per-skin size)", i,
				          (int)s->type);
				return false;
			}
		}
		if (f->version == 7) {
			GSIO_CHECK(check_hmp7_skin(r, s, i, at));
			if (s->type == GSIO_HMP_SKIN_EXTERNAL) continue;
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

// -- Frames

static void read_bbox_vertex(const uint8_t *p, gsio_mdl_vertex *v)
{
	v->pos[0] = gsioi_le16(p);
	v->pos[1] = gsioi_le16(p + 2);
	v->pos[2] = gsioi_le16(p + 4);
	v->normal = p[6];
	v->bone = p[7];
}

/* keep_frames: frames decoded and kept; the others are checked only. Kept
 * frames point to their records; copy_heights: copied into heights too. */
static bool decode_frames(gsioi_reader *r, gsio_hmp_file *f, gsio_error *err, size_t keep_frames,
                          bool copy_heights)
{
	const gsio_hmp_header *h = &f->header;
	size_t nv = (size_t)h->numverts, frame_size;
	if (!gsioi_mul_size(nv, 4, &frame_size) ||
	    !gsioi_add_size(frame_size, GSIO_HMP_FRAME_HEADER_SIZE, &frame_size) ||
	    (size_t)h->numframes > gsioi_reader_remaining(r) / frame_size) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, 68,
		          "numframes %d of %d heights each cannot fit in the %zu bytes left at "
		          "offset %zu",
		          (int)h->numframes, (int)h->numverts, gsioi_reader_remaining(r), r->pos);
		return false;
	}
	f->frames_count = (size_t)h->numframes;
	f->frames = GSIO_NEW_ARRAY(f->arena, gsio_hmp_frame, f->frames_count, err);
	GSIO_CHECK(f->frames);
	for (size_t i = 0; i < f->frames_count; i++) {
		gsio_hmp_frame *fr = &f->frames[i];
		size_t at = r->pos;
		// The count check above guarantees the whole frame is there.
		const uint8_t *p = gsioi_read_bytes(r, frame_size, "a frame");
		GSIO_CHECK(p);
		fr->type = (int32_t)gsioi_le32(p);
		if (fr->type != GSIO_HMP_FRAME_WORD) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, r->file, (int64_t)at,
			          "frame %zu: type %d is not 2 (HMP frames are word-packed)", i,
			          (int)fr->type);
			return false;
		}
		read_bbox_vertex(p + 4, &fr->bbox_min);
		read_bbox_vertex(p + 12, &fr->bbox_max);
		memcpy(fr->name, p + 20, 16);
		if (i >= keep_frames) continue;
		fr->records = p + GSIO_HMP_FRAME_HEADER_SIZE;
		if (!copy_heights) continue;
		fr->heights = gsioi_arena_array_uninit(f->arena, nv, sizeof(gsio_hmp_height), err);
		GSIO_CHECK(fr->heights);
		const uint8_t *q = fr->records;
		for (size_t v = 0; v < nv; v++, q += 4) {
			fr->heights[v].z = gsioi_le16(q);
			fr->heights[v].normal = q[2];
			fr->heights[v].pad = q[3];
		}
	}
	if (f->frames_count > keep_frames) f->frames_count = keep_frames;
	return true;
}

// -- Decode

/* borrow: point into `data` instead of copying it (the caller keeps data
 * alive while the decoded file lives). keep_frames, copy_heights: see
 * decode_frames. */
static gsio_hmp_file *hmp_decode(const uint8_t *data, size_t size, const char *name,
                                 const gsio_opts *opts, gsio_error *err, bool borrow,
                                 size_t keep_frames, bool copy_heights)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *arena;
	const uint8_t *copy;
	gsio_hmp_file *f = gsioi_codec_begin(data, size, name, opts, borrow, sizeof(*f), &arena, &copy, err);
	if (!f) return NULL;
	f->arena = arena;
	gsioi_reader r = gsioi_reader_make(copy, size, name, err);
	if (!decode_header(&r, f) || !decode_skins(&r, f, err) ||
	    !decode_frames(&r, f, err, keep_frames, copy_heights))
		goto fail;
	f->trailing = copy + r.pos;
	f->trailing_size = r.size - r.pos;
	return f;
fail:
	// Errors raised without a file name (arena, skin size) get it here.
	if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
	gsioi_arena_destroy(arena);
	return NULL;
}

gsio_hmp_file *gsio_hmp_decode(const uint8_t *data, size_t size, const char *name,
                               const gsio_opts *opts, gsio_error *err)
{
	return hmp_decode(data, size, name, opts, err, false, SIZE_MAX, true);
}

void gsio_hmp_file_free(gsio_hmp_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}

// -- Encode

static void write_bbox_vertex(gsioi_writer *w, const gsio_mdl_vertex *v)
{
	gsioi_write_u16(w, v->pos[0]);
	gsioi_write_u16(w, v->pos[1]);
	gsioi_write_u16(w, v->pos[2]);
	gsioi_write_u8(w, v->normal);
	gsioi_write_u8(w, v->bone);
}

int gsio_hmp_encode(const gsio_hmp_file *f, uint8_t **out, size_t *out_size, gsio_error *err)
{
	return gsioi_hmp_encode_with(f, NULL, 0, out, out_size, err);
}

int gsioi_hmp_encode_with(const gsio_hmp_file *f, const gsio_allocator *allocator, size_t limit,
                          uint8_t **out, size_t *out_size, gsio_error *err)
{
	*out = NULL;
	*out_size = 0;
	const gsio_hmp_header *h = &f->header;
	int version = f->version;
	if ((version != 4 && version != 5 && version != 7) || memcmp(h->version, "HMP", 3) ||
	    h->version[3] != (char)('0' + version)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode HMP version %d", version);
		return -1;
	}
	if (h->numskins < 0 || (size_t)h->numskins != f->skins_count || h->numframes < 0 ||
	    (size_t)h->numframes != f->frames_count || h->numverts < 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "header counts do not match the arrays");
		return -1;
	}
	for (size_t i = 0; i < f->skins_count; i++) {
		const gsio_mdl_skin *s = &f->skins[i];
		size_t want;
		if (version == 7 && s->type == GSIO_HMP_SKIN_EXTERNAL) {
			// A file name: its bytes up to and including the first NUL.
			const uint8_t *nul = s->pixels ? memchr(s->pixels, 0, s->pixels_size) : NULL;
			want = nul ? (size_t)(nul - s->pixels) + 1 : 0;
		} else {
			want = gsio_mdl_skin_size(s->type, s->width, s->height, err);
		}
		if (!want || want != s->pixels_size || !s->pixels) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
			          "skin %zu: %zu bytes of pixels, type %d %dx%d needs %zu", i,
			          s->pixels_size, (int)s->type, (int)s->width, (int)s->height, want);
			return -1;
		}
		if (version == 4 && (s->width != h->nu8 || s->height != h->nu9)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
			          "skin %zu: HMP4 skins take their size %dx%d from the header, not %dx%d",
			          i, (int)h->nu8, (int)h->nu9, (int)s->width, (int)s->height);
			return -1;
		}
	}
	for (size_t i = 0; i < f->frames_count; i++)
		if (h->numverts && !f->frames[i].heights) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "frame %zu has no heights", i);
			return -1;
		}

	gsioi_writer w = {0};
	w.allocator = allocator;
	w.limit = limit;
	gsioi_write_bytes(&w, h->version, 4);
	gsioi_write_i32(&w, h->nu1);
	for (int i = 0; i < 3; i++) gsioi_write_f32(&w, h->scale[i]);
	for (int i = 0; i < 3; i++) gsioi_write_f32(&w, h->offset[i]);
	gsioi_write_i32(&w, h->nu6);
	gsioi_write_f32(&w, h->ftrisize_x);
	gsioi_write_f32(&w, h->ftrisize_y);
	gsioi_write_f32(&w, h->fnumverts_x);
	const int32_t ints[] = {h->numskins,  h->nu8,  h->nu9,   h->numverts, h->nu10,
	                        h->numframes, h->nu11, h->flags, h->nu12};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) gsioi_write_i32(&w, ints[i]);
	for (size_t i = 0; i < f->skins_count; i++) {
		const gsio_mdl_skin *s = &f->skins[i];
		gsioi_write_i32(&w, s->type);
		if (version != 4) {
			gsioi_write_i32(&w, s->width);
			gsioi_write_i32(&w, s->height);
		}
		gsioi_write_bytes(&w, s->pixels, s->pixels_size);
	}
	for (size_t i = 0; i < f->frames_count; i++) {
		const gsio_hmp_frame *fr = &f->frames[i];
		gsioi_write_i32(&w, fr->type);
		write_bbox_vertex(&w, &fr->bbox_min);
		write_bbox_vertex(&w, &fr->bbox_max);
		gsioi_write_bytes(&w, fr->name, 16);
		for (size_t v = 0; v < (size_t)h->numverts; v++) {
			const gsio_hmp_height *ht = &fr->heights[v];
			uint8_t b[4] = {(uint8_t)ht->z, (uint8_t)(ht->z >> 8), ht->normal, ht->pad};
			gsioi_write_bytes(&w, b, 4);
		}
	}
	gsioi_write_bytes(&w, f->trailing, f->trailing_size);
	if (w.failed) {
		gsioi_writer_free(&w);
		GSIO_FAIL(err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding the HMP file");
		return -1;
	}
	*out = w.data;
	*out_size = w.size;
	return 0;
}

// -- Scene

/* Every skin becomes an image (embedded DDS files stay undecoded, with a
 * warning; HMP7 external textures are loaded from beside the file when they
 * can be); image_of[i] is skin i's image index or -1. */
static bool skins_to_images(gsio_scene *s, const gsio_hmp_file *f, const uint8_t *palette,
                            const char *path, const gsio_opts *opts, const uint8_t *lend,
                            size_t lend_size, int32_t *image_of,
                            gsio_error *err)
{
	s->images = GSIO_NEW_ARRAY(s->arena, gsio_image, f->skins_count, err);
	GSIO_CHECK(s->images);
	size_t ni = 0;
	for (size_t i = 0; i < f->skins_count; i++) {
		const gsio_mdl_skin *sk = &f->skins[i];
		image_of[i] = -1;
		if (sk->type == GSIO_MDL_SKIN_DDS) {
			bool decoded;
			GSIO_CHECK(gsioi_dds_skin_image(s, sk->pixels, sk->pixels_size, i, &s->images[ni],
			                                opts && (opts->flags & GSIO_OPT_NO_PIXELS), &decoded,
			                                err));
			if (decoded) image_of[i] = (int32_t)ni++;
			continue;
		}
		if (f->version == 7 && sk->type == GSIO_HMP_SKIN_EXTERNAL) {
			bool loaded;
			GSIO_CHECK(gsioi_external_image_load(s, (const char *)sk->pixels, path, opts,
			                                     &s->images[ni], &loaded, NULL, err));
			if (loaded) s->images[ni].source_type = GSIO_HMP_SKIN_EXTERNAL;
			if (loaded) image_of[i] = (int32_t)ni++;
			continue;
		}
		gsio_image *im = &s->images[ni];
		char iname[32];
		snprintf(iname, sizeof(iname), "skin%zu", i);
		GSIO_CHECK((im->name = gsioi_arena_strdup(s->arena, iname, err)));
		im->width = (uint32_t)sk->width;
		im->height = (uint32_t)sk->height;
		im->source_type = sk->type;
		im->source_format = (gsio_pixel_format)(sk->type & 7);
		im->source_mip_count = (sk->type & GSIO_MDL_SKIN_MIPS) ? 3 : 0;
		// < 2^28 texels, checked at decode
		int rc = gsioi_skin_pixels(s->arena, im, sk->pixels, palette,
		                           opts && (opts->flags & GSIO_OPT_NO_PIXELS), lend, lend_size, err);
		if (rc > 0) {
			GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, NULL, -1, "skin %zu: type %d", i, (int)sk->type);
			return false;
		}
		GSIO_CHECK(rc == 0);
		image_of[i] = (int32_t)ni++;
	}
	s->images_count = ni;
	return true;
}

/* One material: the first skin is the colour map, the second the detail map
 * when its size differs (the seed's rule); any other skin is kept as an image
 * and named in a warning. */
static bool build_material(gsio_scene *s, const gsio_hmp_file *f, const int32_t *image_of,
                           gsio_error *err)
{
	if (!s->images_count) return true;
	s->materials = GSIO_NEW_ARRAY(s->arena, gsio_material, 1, err);
	GSIO_CHECK(s->materials);
	s->materials_count = 1;
	gsio_material *m = &s->materials[0];
	gsioi_material_defaults(m);
	m->name = "terrain";
	m->base_color_texture.image = f->skins_count ? image_of[0] : -1;
	m->detail_texture.tiling = (float)(f->columns - 1) * GSIO_HMP_DETAIL_REPEATS_PER_CELL;
	if (f->skins_count && image_of[0] >= 0)
		GSIO_CHECK(!gsio_extras_set_int(s, &m->extras, "gsio:skin_type", f->skins[0].type, err));
	// Sizes of the decoded images (an external texture's stored size is not its
	// own); the stored ones, as the seed says, when the first skin has no image.
	for (size_t i = 1; i < f->skins_count; i++) {
		if (image_of[i] < 0) continue;
		const gsio_image *b = &s->images[image_of[i]];
		bool differs;
		if (image_of[0] >= 0) {
			const gsio_image *a = &s->images[image_of[0]];
			differs = a->width != b->width || a->height != b->height;
		} else {
			differs = f->skins[0].width != f->skins[i].width ||
			          f->skins[0].height != f->skins[i].height;
		}
		if (i == 1 && differs) {
			m->detail_texture.image = image_of[i];
			GSIO_CHECK(!gsio_extras_set_int(s, &m->extras, "gsio:detail_skin_type",
			                                f->skins[i].type, err));
			continue;
		}
		GSIO_CHECK(gsioi_scene_warn(s, err,
		                           "skin %zu (%ux%u) is image %d of the scene but used by no "
		                           "material (the engine uses the first skin and a differently "
		                           "sized second one); glTF output leaves it out unless --all-images",
		                           i, b->width, b->height, (int)image_of[i]));
	}
	return true;
}

/* Frame fr's heights split as the terrain keeps them, in one pass over its
 * records (in place when the decoder left them there): raw heights into z,
 * and per vertex the normal index into ni (HMP4/5; an index past the table
 * becomes 0, counted in *bad) or the HMP7 int8 x, y pair into nxy; *zlo,
 * *zhi get the extreme raw heights. */
static void split_heights(const gsio_hmp_file *f, const gsio_hmp_frame *fr, size_t nv, uint16_t *z,
                          uint8_t *ni, int8_t *nxy, uint16_t *zlo, uint16_t *zhi, size_t *bad)
{
	uint16_t lo = UINT16_MAX, hi = 0;
	size_t nbad = 0, v = 0;
	const uint8_t *q = fr->records;
#if defined(__SSE2__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	// 16 records (4 vectors of 4) at a time: this split is nearly all of a
	// GSIO_OPT_GRID load. A record is a 32-bit lane: z in the low half, the
	// normal byte (HMP7: the x, y pair) in the high half. Halves are
	// sign-extended before packs_epi32 so it packs their bits unchanged;
	// heights are biased by 0x8000 for SSE2's signed 16-bit min/max.
	if (q) {
		const __m128i bias = _mm_set1_epi16(INT16_MIN), lowb = _mm_set1_epi16(0xFF);
		const __m128i table_end = _mm_set1_epi8((char)GSIO_NORMAL_COUNT);
		__m128i vlo = _mm_set1_epi16(INT16_MAX), vhi = _mm_set1_epi16(INT16_MIN);
		for (; v + 16 <= nv; v += 16) {
			__m128i r[4], zz[2], pairs[2];
			for (int k = 0; k < 4; k++)
				r[k] = _mm_loadu_si128((const __m128i *)(const void *)(q + 4 * v + 16 * (size_t)k));
			for (int k = 0; k < 2; k++) {
				zz[k] = _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(r[2 * k], 16), 16),
				                        _mm_srai_epi32(_mm_slli_epi32(r[2 * k + 1], 16), 16));
				pairs[k] = _mm_packs_epi32(_mm_srai_epi32(r[2 * k], 16), _mm_srai_epi32(r[2 * k + 1], 16));
				_mm_storeu_si128((__m128i *)(void *)(z + v + 8 * (size_t)k), zz[k]);
				__m128i b = _mm_xor_si128(zz[k], bias);
				vlo = _mm_min_epi16(vlo, b);
				vhi = _mm_max_epi16(vhi, b);
			}
			if (f->version == 7) {
				_mm_storeu_si128((__m128i *)(void *)(nxy + 2 * v), pairs[0]);
				_mm_storeu_si128((__m128i *)(void *)(nxy + 2 * v + 16), pairs[1]);
				continue;
			}
			// The normal bytes (the low byte of each pair), 16 of them.
			__m128i n = _mm_packus_epi16(_mm_and_si128(pairs[0], lowb), _mm_and_si128(pairs[1], lowb));
			__m128i past = _mm_cmpeq_epi8(_mm_max_epu8(n, table_end), n); // n >= 162
			nbad += (size_t)__builtin_popcount((unsigned)_mm_movemask_epi8(past));
			_mm_storeu_si128((__m128i *)(void *)(ni + v), _mm_andnot_si128(past, n));
		}
		int16_t l[8], h[8];
		_mm_storeu_si128((__m128i *)(void *)l, vlo);
		_mm_storeu_si128((__m128i *)(void *)h, vhi);
		for (int k = 0; k < 8; k++) {
			uint16_t a = (uint16_t)(l[k] ^ INT16_MIN), b = (uint16_t)(h[k] ^ INT16_MIN);
			lo = a < lo ? a : lo;
			hi = b > hi ? b : hi;
		}
	}
#endif
	for (; v < nv; v++) {
		uint16_t h;
		uint8_t a, b;
		if (q) {
			h = gsioi_le16(q + 4 * v), a = q[4 * v + 2], b = q[4 * v + 3];
		} else {
			h = fr->heights[v].z, a = fr->heights[v].normal, b = fr->heights[v].pad;
		}
		z[v] = h;
		lo = h < lo ? h : lo;
		hi = h > hi ? h : hi;
		if (f->version == 7) {
			nxy[2 * v] = (int8_t)a, nxy[2 * v + 1] = (int8_t)b;
		} else {
			nbad += a >= GSIO_NORMAL_COUNT;
			ni[v] = a < GSIO_NORMAL_COUNT ? a : 0;
		}
	}
	*zlo = lo, *zhi = hi, *bad += nbad;
}

/* Room for one frame's split heights (split_heights) in t, from arena a. */
static bool terrain_arrays(gsio_arena *a, const gsio_hmp_file *f, gsio_terrain *t, gsio_error *err)
{
	size_t nv = (size_t)f->columns * f->rows;
	t->raw_heights = gsioi_arena_array_uninit(a, nv, sizeof(uint16_t), err);
	GSIO_CHECK(t->raw_heights);
	// HMP7 stores normals as vectors, not table indices.
	if (f->version == 7)
		return (t->normal_xy = gsioi_arena_array_uninit(a, nv, 2, err)) != NULL;
	return (t->normal_indices = gsioi_arena_alloc_uninit(a, nv, err)) != NULL;
}

/* The grid as stored (first frame), so an HMP5 can be written back; the
 * terrain mesh's vertices are made from it. *zlo, *zhi, *bad: split_heights. */
static bool build_terrain(gsio_scene *s, const gsio_hmp_file *f, uint16_t *zlo, uint16_t *zhi,
                          size_t *bad, gsio_error *err)
{
	const gsio_hmp_header *h = &f->header;
	gsio_terrain *t = s->terrain = GSIO_NEW_ARRAY(s->arena, gsio_terrain, 1, err);
	GSIO_CHECK(t);
	t->columns = f->columns;
	t->rows = f->rows;
	t->cell_x = h->ftrisize_x;
	t->cell_y = h->ftrisize_y;
	t->origin[0] = h->offset[0];
	t->origin[1] = h->offset[1];
	t->height_scale = h->scale[2];
	t->height_offset = h->offset[2];
	GSIO_CHECK(terrain_arrays(s->arena, f, t, err));
	split_heights(f, &f->frames[0], (size_t)f->columns * f->rows, t->raw_heights, t->normal_indices,
	              t->normal_xy, zlo, zhi, bad);
	t->mesh = 0;
	return true;
}

/* The terrain mesh: vertex row * columns + column is the file's record of
 * the same index (source_vertex stays NULL: 1:1), made from the terrain
 * (gsioi_grid_vertices), other frames from their own split heights (in
 * tmp). With `grid` only the counts, parts and bounds: mesh.grid is the
 * terrain. zlo, zhi, bad: of frame 0 (build_terrain). */
static bool build_mesh(gsio_scene *s, const gsio_hmp_file *f, const gsio_opts *opts, bool grid,
                       gsio_arena *tmp, uint16_t zlo, uint16_t zhi, size_t bad_normals,
                       gsio_error *err)
{
	gsio_arena *a = s->arena;
	const gsio_hmp_header *h = &f->header;
	const gsio_terrain *t = s->terrain;
	size_t cols = f->columns, rows = f->rows, nv = cols * rows; // == numverts
	gsio_mesh *m = s->meshes = GSIO_NEW_ARRAY(a, gsio_mesh, 1, err);
	GSIO_CHECK(m);
	s->meshes_count = 1;
	m->name = "terrain";
	m->vertex_count = nv;
	m->skin = -1;
	size_t cells = (cols - 1) * (rows - 1);
	GSIO_CHECK(gsioi_mul_size(cells, 6, &m->index_count) ||
	           GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "%zu grid cells overflow", cells));
	GSIO_CHECK(gsioi_mesh_one_part(s, m, s->materials_count ? 0 : -1, err));
	if (grid) {
		m->grid = t;
	} else {
		// Written whole below: no zeroing (it was a fifth of a large terrain's load).
		m->indices = gsioi_arena_array_uninit(a, m->index_count, sizeof(uint32_t), err);
		m->uvs = gsioi_arena_array_uninit(a, 2 * nv, sizeof(float), err);
		GSIO_CHECK(m->indices && m->uvs);
		gsioi_grid_triangles(cols, 0, 2 * cells, m->indices);
	}

	size_t nframes = (opts && (opts->flags & GSIO_OPT_NO_ANIMATION)) ? 1 : f->frames_count;
	m->frames = GSIO_NEW_ARRAY(a, gsio_morph_frame, nframes, err);
	GSIO_CHECK(m->frames);
	m->frames_count = nframes;
	gsio_terrain layer = *t; // frames after the first: their heights in tmp
	if (nframes > 1) {
		layer.normal_indices = NULL, layer.normal_xy = NULL;
		GSIO_CHECK(terrain_arrays(tmp, f, &layer, err));
	}
	for (size_t i = 0; i < nframes; i++) {
		const gsio_hmp_frame *fr = &f->frames[i];
		gsio_morph_frame *mf = &m->frames[i];
		GSIO_CHECK((mf->name = gsioi_text_utf8_dup(a, fr->name, 16, err)));
		if (i > 0)
			split_heights(f, fr, nv, layer.raw_heights, layer.normal_indices, layer.normal_xy, &zlo,
			              &zhi, &bad_normals);
		if (!gsioi_grid_bounds(i ? &layer : t, zlo, zhi, mf->bbox_min, mf->bbox_max)) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, 8,
			          "frame %zu: heights are not finite (scale %g, offset %g %g %g, cell %g x %g)",
			          i, (double)h->scale[2], (double)h->offset[0], (double)h->offset[1],
			          (double)h->offset[2], (double)h->ftrisize_x, (double)h->ftrisize_y);
			return false;
		}
		if (grid) continue;
		// Written whole: no zeroing.
		mf->positions = gsioi_arena_array_uninit(a, 3 * nv, sizeof(float), err);
		mf->normals = gsioi_arena_array_uninit(a, 3 * nv, sizeof(float), err);
		GSIO_CHECK(mf->positions && mf->normals);
		gsioi_grid_vertices(i ? &layer : t, 0, nv, mf->positions, mf->normals, i ? NULL : m->uvs);
	}
	if (bad_normals)
		GSIO_CHECK(gsioi_scene_warn(s, err, "%zu height normal indices are >= 162; used normal 0",
		                           bad_normals));
	m->positions = m->frames[0].positions;
	m->normals = m->frames[0].normals;
	memcpy(m->bbox_min, m->frames[0].bbox_min, sizeof(m->bbox_min));
	memcpy(m->bbox_max, m->frames[0].bbox_max, sizeof(m->bbox_max));
	return true;
}

/* lend: the caller's bytes f was decoded from (hmp_read; NULL: none): with
 * GSIO_OPT_BORROW stored skins may point into them. */
static gsio_scene *hmp_to_scene(const gsio_hmp_file *f, const char *name, const gsio_opts *opts,
                                const uint8_t *lend, size_t lend_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_scene *s = gsioi_scene_create(opts, err);
	if (!s) return NULL;
	uint8_t palette_buf[768];
	const uint8_t *palette = opts ? opts->palette : NULL;
	if (!palette && opts && opts->palette_path) {
		if (gsio_palette_load(opts->palette_path, palette_buf, err)) goto fail;
		palette = palette_buf;
	}
	s->format = f->version == 4 ? "HMP4" : f->version == 5 ? "HMP5" : "HMP7";
	s->format_version = f->version;
	s->source.vertices = (size_t)f->header.numverts;
	s->source.triangles = 2 * (size_t)(f->columns - 1) * (f->rows - 1);
	s->source.uvs = 0;
	s->source.frames = f->frames_count;

	// Temporaries of this load live in their own arena, freed here: the
	// scene keeps only what it returns.
	gsio_arena *tmp = gsioi_arena_for(opts, "HMP scratch", err);
	if (!tmp) goto fail;
	int32_t *image_of = GSIO_NEW_ARRAY(tmp, int32_t, f->skins_count, err);
	bool lending = lend && opts && (opts->flags & GSIO_OPT_BORROW);
	bool ok = image_of && skins_to_images(s, f, palette, name, opts, lending ? lend : NULL,
	                                      lend_size, image_of, err) &&
	          build_material(s, f, image_of, err);
	if (ok && f->frames_count == 0) {
		// Without a frame there are no heights: an empty scene, said out loud.
		gsioi_arena_destroy(tmp);
		if (!gsioi_scene_warn(s, err, "the terrain has no height frames: no mesh")) goto fail;
		return s;
	}
	// GSIO_OPT_GRID keeps a terrain of one height layer as its grid.
	bool first_only = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	bool grid = opts && (opts->flags & GSIO_OPT_GRID) && (first_only || f->frames_count == 1);
	uint16_t zlo = 0, zhi = 0;
	size_t bad_normals = 0;
	ok = ok && build_terrain(s, f, &zlo, &zhi, &bad_normals, err) &&
	     build_mesh(s, f, opts, grid, tmp, zlo, zhi, bad_normals, err);
	gsioi_arena_destroy(tmp);
	if (!ok) goto fail;
	int32_t node = gsioi_scene_add_model_node(s, name, 0, err);
	float fps = opts && opts->fps > 0 ? opts->fps : GSIO_DEFAULT_FPS;
	// A single height frame is the terrain itself, not an animation: clips
	// only for animated terrain (the helper adds none for one frame).
	if (node < 0 || !gsioi_scene_build_clips(s, &s->meshes[0], node, fps, err)) goto fail;
	return s;
fail:
	if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
	gsio_scene_free(s);
	return NULL;
}

// -- Importer

static int hmp_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (n >= 4 && !memcmp(head, "HMP", 3)) return 2;
	return ext && !strcmp(ext, "hmp") ? 1 : 0;
}

gsio_scene *gsio_hmp_to_scene(const gsio_hmp_file *f, const char *name, const gsio_opts *opts,
                              gsio_error *err)
{
	return hmp_to_scene(f, name, opts, NULL, 0, err);
}

static gsio_scene *hmp_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	// The scene copies what it keeps, so the file may borrow the caller's
	// bytes and the scene read the height records in place; without
	// animation it keeps the first frame only.
	bool first_only = opts && (opts->flags & GSIO_OPT_NO_ANIMATION);
	gsio_hmp_file *f = hmp_decode(data, size, path, opts, err, true, first_only ? 1 : SIZE_MAX, false);
	if (!f) return NULL;
	gsio_scene *s = hmp_to_scene(f, path, opts, data, size, err);
	gsio_hmp_file_free(f);
	return s;
}

const gsio_importer gsio_hmp_importer = {
    "GameStudio HMP terrain", "hmp", 4, 7, hmp_can_read, hmp_read,
};
