/* WAD texture archives as levels use them (docs/FORMATS.md §8):
 * GameStudio's "WAD7" (a Quake WAD2 directory whose texture lumps carry a
 * 40-byte header with a GameStudio texture type code: 8-bit, RGB565,
 * ARGB4444, RGB888, ARGB8888, +8 for three mip levels), and by magic Quake
 * "WAD2" (miptex lumps 0x44, 8-bit through a palette) and Half-Life "WAD3"
 * (miptex 0x43 with its own palette after the mips).
 *
 * WAD7 lumps of type 6 (DDS; 14 with the mip bit): no sample exists
 * (docs/FORMATS.md §8.3). Chosen by analogy with MDL7 type-6 skins (a
 * whole DDS file after the record header): the DDS file starts after the
 * lump's 40-byte header, or at the lump's start when the "DDS " magic is
 * there instead; the DDS header gives the texture's size (the lump header's
 * width and height may be a byte count and 1, as in MDL7, and are kept in
 * stored_width/stored_height); the top level is decoded with
 * gsioi_dds_decode (DXT1/3/5). A DDS that does not parse leaves the stored
 * size and fails to decode with the DDS error (the level then uses a
 * placeholder, with a warning). */
#include "gsioi_dds.h"
#include "wmp_internal.h"

#include <stdio.h>
#include <stdlib.h>

/** Largest texture side accepted. */
#define WAD_MAX_SIDE 16384u

/* Whether lump l is a DDS texture (WAD7 type 6, see the top of the file),
 * and where its DDS file lies. */
static bool lump_dds(const gsio_wad_lump *l, const uint8_t **dds, size_t *size)
{
	if (l->type == 0x40) return false;
	uint32_t t = l->size >= 40 ? l->pixel_type : l->type;
	if ((t & 7) != 6 && (l->type & 7) != 6) return false;
	if (l->size >= 44 && !memcmp(l->data + 40, "DDS ", 4)) {
		*dds = l->data + 40;
		*size = l->size - 40;
	} else {
		*dds = l->data;
		*size = l->size;
	}
	return true;
}

gsio_wad_file *gsio_wad_decode(const uint8_t *data, size_t size, const char *name,
                               const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *a;
	const uint8_t *d;
	bool borrow = opts && (opts->flags & GSIO_OPT_BORROW);
	gsio_wad_file *w =
	    gsioi_codec_begin(data, size, name, opts, borrow, sizeof(gsio_wad_file), &a, &d, err);
	if (!w) return NULL;
	w->arena = a;
	if (size < 12 || memcmp(d, "WAD", 3) || (d[3] != '7' && d[3] != '2' && d[3] != '3')) {
		GSIO_FAIL(err, size < 4 ? GSIO_ERR_TRUNCATED : GSIO_ERR_BAD_MAGIC, name, 0,
		          "not a WAD7, WAD2 or WAD3 file");
		goto fail;
	}
	memcpy(w->magic, d, 4);
	uint32_t n = gsioi_le32(d + 4), dir = gsioi_le32(d + 8);
	if (dir > size || n > (size - dir) / 32) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, 8,
		          "directory of %u entries at %u does not fit the %zu-byte file", n, dir, size);
		goto fail;
	}
	w->lumps = GSIO_NEW_ARRAY(a, gsio_wad_lump, n, err);
	if (!w->lumps) goto fail;
	w->lumps_count = n;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = d + dir + 32 * (size_t)i;
		gsio_wad_lump *l = &w->lumps[i];
		uint32_t pos = gsioi_le32(e), disk = gsioi_le32(e + 4);
		l->type = e[12];
		l->compression = e[13];
		memcpy(l->name, e + 16, 16);
		l->name[16] = 0;
		if (pos > size || disk > size - pos) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, name, (int64_t)(dir + 32 * (size_t)i),
			          "lump %u (%.16s) at %u, %u bytes, runs past the end", i, l->name, pos, disk);
			goto fail;
		}
		l->data = d + pos;
		l->size = disk;
		if (l->type == 0x40 && disk >= 768 && !w->palette) w->palette = l->data;
		bool tex = w->magic[3] == '7' ? l->type != 0x40 : (l->type == 0x43 || l->type == 0x44);
		if (tex && disk >= 40) {
			l->width = l->stored_width = gsioi_le32(l->data + 16);
			l->height = l->stored_height = gsioi_le32(l->data + 20);
			l->pixel_type = w->magic[3] == '7' ? gsioi_le32(l->data + 24) : 0;
		}
		const uint8_t *dds;
		size_t dds_size;
		if (w->magic[3] == '7' && lump_dds(l, &dds, &dds_size)) {
			gsioi_dds_info info;
			gsio_error ignored;
			gsio_error_clear(&ignored);
			if (gsioi_dds_parse(dds, dds_size, name, (int64_t)(dds - d), &info, &ignored))
				l->width = info.width, l->height = info.height;
		}
	}
	return w;
fail:
	if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
	gsioi_arena_destroy(a);
	return NULL;
}

void gsio_wad_file_free(gsio_wad_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}

/* Where lump i's pixels are: a DDS file inside it, or count pixels of fmt
 * at src (8-bit ones through pal). Checks sizes; decodes nothing. */
typedef struct lump_pixels {
	const uint8_t *dds; // non-NULL: a DDS file of dds_size bytes
	size_t dds_size;
	gsio_pixel_format fmt;
	const uint8_t *src;
	const uint8_t *pal; // 768 bytes RGB, NULL for the built-in palette
	size_t count;
} lump_pixels;

static bool lump_locate(const gsio_wad_file *wad, size_t i, const uint8_t *palette, lump_pixels *px,
                        gsio_error *err)
{
	memset(px, 0, sizeof(*px));
	if (!wad || i >= wad->lumps_count) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, "", -1, "no such WAD lump");
		return false;
	}
	const gsio_wad_lump *l = &wad->lumps[i];
	if (!l->width || !l->height || l->width > WAD_MAX_SIDE || l->height > WAD_MAX_SIDE) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, l->name, 0, "texture size %ux%u is not usable", l->width,
		          l->height);
		return false;
	}
	size_t count = (size_t)l->width * l->height;
	px->count = count;
	gsio_pixel_format fmt = GSIO_PIXEL_PAL8;
	size_t at = 40;
	const uint8_t *pal = palette ? palette : wad->palette;
	if (wad->magic[3] == '7' && lump_dds(l, &px->dds, &px->dds_size)) return true;
	if (wad->magic[3] == '7') {
		uint32_t t = l->pixel_type & 7;
		if (t != 0 && t != 2 && t != 3 && t != 4 && t != 5) {
			GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, l->name, 0,
			          "WAD7 texture type %u (external file) is not decoded", l->pixel_type);
			return false;
		}
		fmt = (gsio_pixel_format)t;
	} else {
		at = gsioi_le32(l->data + 24); // miptex offsets[0]
		if (wad->magic[3] == '3') {
			// Half-Life: u16 colour count and the palette after the 4th mip.
			uint32_t off3 = gsioi_le32(l->data + 36);
			size_t after = (size_t)off3 + count / 64;
			if (off3 >= 40 && after <= l->size && l->size - after >= 2 + 768)
				pal = l->data + after + 2;
		}
	}
	size_t need = 0;
	if (!gsioi_mul_size(count, gsio_pixel_size(fmt), &need) || at > l->size ||
	    need > l->size - at) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, l->name, 0,
		          "texture %ux%u needs %zu bytes of pixels, the lump holds %zu", l->width,
		          l->height, need, l->size > at ? l->size - at : 0);
		return false;
	}
	px->fmt = fmt;
	px->src = l->data + at;
	px->pal = pal;
	return true;
}

bool gsioi_wad_lump_rgba(const gsio_wad_file *wad, size_t i, const uint8_t *palette,
                         uint8_t *dst, gsio_error *err)
{
	lump_pixels px;
	GSIO_CHECK(lump_locate(wad, i, palette, &px, err));
	const gsio_wad_lump *l = &wad->lumps[i];
	if (px.dds) {
		gsioi_dds_info info;
		int64_t base = (int64_t)(px.dds - l->data);
		if (!dst) return gsioi_dds_parse(px.dds, px.dds_size, l->name, base, &info, err);
		// Decoded in the WAD's arena (freed with it), then copied.
		gsio_image im;
		memset(&im, 0, sizeof(im));
		GSIO_CHECK(gsioi_dds_decode(px.dds, px.dds_size, l->name, base, wad->arena, &im, &info, err));
		if (im.width != l->width || im.height != l->height) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, l->name, 0, "DDS of %ux%u where %ux%u was read",
			          im.width, im.height, l->width, l->height);
			return false;
		}
		memcpy(dst, im.rgba, px.count * 4);
		return true;
	}
	if (dst && gsio_decode_pixels(px.fmt, px.src, px.count, px.pal, dst)) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, l->name, 0, "pixel format %d", (int)px.fmt);
		return false;
	}
	return true;
}

bool gsioi_wad_lump_stored(const gsio_wad_file *wad, size_t i, const uint8_t *palette,
                           gsio_pixel_format *fmt, const uint8_t **src, const uint8_t **rgb_palette,
                           gsio_error *err)
{
	*src = *rgb_palette = NULL;
	*fmt = GSIO_PIXEL_RGBA8888;
	lump_pixels px;
	GSIO_CHECK(lump_locate(wad, i, palette, &px, err));
	if (px.dds) return true;
	*fmt = px.fmt;
	*src = px.src;
	if (px.fmt == GSIO_PIXEL_PAL8) *rgb_palette = px.pal;
	return true;
}

int gsio_wad_decode_lump(const gsio_wad_file *wad, size_t i, const uint8_t *palette,
                         uint8_t **rgba, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	*rgba = NULL;
	if (!gsioi_wad_lump_rgba(wad, i, palette, NULL, err)) return -1;
	const gsio_wad_lump *l = &wad->lumps[i];
	uint8_t *out = malloc((size_t)l->width * l->height * 4);
	if (!out) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, l->name, 0, "out of memory for a %ux%u texture", l->width,
		          l->height);
		return -1;
	}
	if (!gsioi_wad_lump_rgba(wad, i, palette, out, err)) {
		free(out);
		return -1;
	}
	*rgba = out;
	return 0;
}
