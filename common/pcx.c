/* PCX decoding: see gsioi_pcx.h for why gsio reads PCX itself and what it
 * accepts. Layout (ZSoft's PCX technical reference): a 128-byte header of
 * little-endian fields; each row stores its planes one after another,
 * bytes_per_line bytes each; with encoding 1 a byte whose top two bits are
 * set repeats the next byte (its low six bits) times, any other byte is
 * itself. Runs may cross plane and row ends (some writers do that), so the
 * data is decoded as one stream. */
#include "gsioi_pcx.h"

#include <string.h>

// -- Header

enum {
	PCX_OFF_MANUFACTURER = 0,
	PCX_OFF_VERSION = 1,
	PCX_OFF_ENCODING = 2,
	PCX_OFF_BITS = 3,
	PCX_OFF_XMIN = 4,
	PCX_OFF_YMIN = 6,
	PCX_OFF_XMAX = 8,
	PCX_OFF_YMAX = 10,
	PCX_OFF_COLORMAP = 16, // 16 RGB triples: the palette of 1- and 4-bit images
	PCX_OFF_PLANES = 65,
	PCX_OFF_BYTES_PER_LINE = 66
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

bool gsioi_pcx_is(const uint8_t *data, size_t size)
{
	if (!data || size < GSIOI_PCX_HEADER_SIZE || data[PCX_OFF_MANUFACTURER] != 0x0A) return false;
	uint8_t v = data[PCX_OFF_VERSION], e = data[PCX_OFF_ENCODING];
	return (v == 0 || v == 2 || v == 3 || v == 4 || v == 5) && e <= 1;
}

bool gsioi_pcx_parse(const uint8_t *data, size_t size, const char *file, gsioi_pcx_info *info,
                     gsio_error *err)
{
	memset(info, 0, sizeof(*info));
	if (!data || size < GSIOI_PCX_HEADER_SIZE) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)size,
		          "PCX file of %zu bytes is shorter than its %d-byte header", size,
		          GSIOI_PCX_HEADER_SIZE);
		return false;
	}
	if (!gsioi_pcx_is(data, size)) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, 0,
		          "not a PCX file (manufacturer %u, version %u, encoding %u)",
		          data[PCX_OFF_MANUFACTURER], data[PCX_OFF_VERSION], data[PCX_OFF_ENCODING]);
		return false;
	}
	uint16_t x0 = le16(data + PCX_OFF_XMIN), y0 = le16(data + PCX_OFF_YMIN);
	uint16_t x1 = le16(data + PCX_OFF_XMAX), y1 = le16(data + PCX_OFF_YMAX);
	if (x1 < x0 || y1 < y0) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, PCX_OFF_XMIN,
		          "PCX window %u..%u x %u..%u is empty", x0, x1, y0, y1);
		return false;
	}
	info->width = (uint32_t)(x1 - x0) + 1;
	info->height = (uint32_t)(y1 - y0) + 1;
	if (info->width > GSIOI_PCX_MAX_DIM || info->height > GSIOI_PCX_MAX_DIM) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, file, PCX_OFF_XMIN,
		          "PCX image of %u x %u pixels is refused (limit %d)", info->width,
		          info->height, GSIOI_PCX_MAX_DIM);
		return false;
	}
	info->bits = data[PCX_OFF_BITS];
	info->planes = data[PCX_OFF_PLANES];
	info->bytes_per_line = le16(data + PCX_OFF_BYTES_PER_LINE);
	info->rle = data[PCX_OFF_ENCODING] == 1;
	bool known = (info->bits == 8 && (info->planes == 1 || info->planes == 3 || info->planes == 4)) ||
	             (info->bits == 1 && (info->planes == 1 || info->planes == 4)) ||
	             (info->bits == 4 && info->planes == 1);
	if (!known) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, PCX_OFF_BITS,
		          "PCX with %u bits per pixel in %u planes is not read (8-bit with 1, 3 or 4 "
		          "planes and 16-colour images are)",
		          info->bits, info->planes);
		return false;
	}
	uint64_t need = ((uint64_t)info->width * info->bits + 7) / 8;
	if (info->bytes_per_line < need) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, PCX_OFF_BYTES_PER_LINE,
		          "PCX rows of %u bytes cannot hold %u pixels of %u bits", info->bytes_per_line,
		          info->width, info->bits);
		return false;
	}
	size_t end = size;
	if (info->bits == 8 && info->planes == 1) {
		if (size < GSIOI_PCX_HEADER_SIZE + GSIOI_PCX_PALETTE_SIZE ||
		    data[size - GSIOI_PCX_PALETTE_SIZE] != 0x0C) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, (int64_t)size,
			          "8-bit PCX without its 256-colour palette (no 0x0C marker %d bytes "
			          "before the end)",
			          GSIOI_PCX_PALETTE_SIZE);
			return false;
		}
		info->vga_palette = true;
		end = size - GSIOI_PCX_PALETTE_SIZE;
	}
	// Every two encoded bytes give at most 63: a file too short for that
	// is cut short, found before anything is allocated.
	uint64_t total = (uint64_t)info->height * info->planes * info->bytes_per_line;
	uint64_t avail = end - GSIOI_PCX_HEADER_SIZE;
	uint64_t most = info->rle ? avail / 2 * 63 + avail % 2 : avail;
	if (most < total) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)end,
		          "PCX pixel data of %llu bytes cannot hold %u rows of %u x %u bytes",
		          (unsigned long long)avail, info->height, info->planes, info->bytes_per_line);
		return false;
	}
	return true;
}

// -- Pixels

/* One decoded row (planes * bytes_per_line bytes) to RGBA. */
static void row_to_rgba(const gsioi_pcx_info *in, const uint8_t *row, const uint8_t *palette,
                        const uint8_t *colormap, uint8_t *out)
{
	size_t bpl = in->bytes_per_line;
	for (uint32_t x = 0; x < in->width; x++, out += 4) {
		const uint8_t *rgb;
		if (in->bits == 8) {
			if (in->planes == 1) {
				rgb = palette + 3 * (size_t)row[x];
			} else {
				out[0] = row[x];
				out[1] = row[bpl + x];
				out[2] = row[2 * bpl + x];
				out[3] = in->planes == 4 ? row[3 * bpl + x] : 255;
				continue;
			}
		} else if (in->bits == 4) {
			uint8_t b = row[x / 2];
			rgb = colormap + 3 * (size_t)(x % 2 ? b & 15 : b >> 4);
		} else if (in->planes == 4) { // 1-bit EGA: plane k is bit k of the index
			unsigned idx = 0, bit = 7 - x % 8;
			for (unsigned k = 0; k < 4; k++) idx |= (unsigned)(row[k * bpl + x / 8] >> bit & 1) << k;
			rgb = colormap + 3 * (size_t)idx;
		} else { // 1-bit monochrome: 0 black, 1 white
			uint8_t v = (row[x / 8] >> (7 - x % 8) & 1) ? 255 : 0;
			out[0] = out[1] = out[2] = v;
			out[3] = 255;
			continue;
		}
		out[0] = rgb[0];
		out[1] = rgb[1];
		out[2] = rgb[2];
		out[3] = 255;
	}
}

bool gsioi_pcx_decode(const uint8_t *data, size_t size, const char *file, gsio_arena *arena,
                      gsio_image *out, gsio_error *err)
{
	gsioi_pcx_info in;
	if (!gsioi_pcx_parse(data, size, file, &in, err)) return false;
	size_t row_size = (size_t)in.planes * in.bytes_per_line;
	uint8_t *rgba = gsioi_arena_alloc_uninit(arena, (size_t)in.width * in.height * 4, err);
	uint8_t *row = rgba ? gsioi_arena_alloc_uninit(arena, row_size, err) : NULL;
	if (!row) return false;
	const uint8_t *palette = in.vga_palette ? data + size - GSIOI_PCX_PALETTE_SIZE + 1 : NULL;
	// An 8-bit palettised file keeps its indices too (gsio_image.indices).
	uint8_t *indices = NULL;
	if (palette && !(indices = gsioi_arena_alloc_uninit(arena, (size_t)in.width * in.height, err)))
		return false;
	size_t end = in.vga_palette ? size - GSIOI_PCX_PALETTE_SIZE : size;
	size_t pos = GSIOI_PCX_HEADER_SIZE;
	uint8_t run_value = 0;
	size_t run = 0; // bytes of a run left over from the row before
	for (uint32_t y = 0; y < in.height; y++) {
		size_t k = 0;
		while (k < row_size) {
			if (run) {
				size_t n = run < row_size - k ? run : row_size - k;
				memset(row + k, run_value, n);
				k += n;
				run -= n;
				continue;
			}
			if (pos >= end) {
				GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)pos,
				          "PCX pixel data ends in row %u of %u", y, in.height);
				return false;
			}
			uint8_t b = data[pos++];
			if (in.rle && (b & 0xC0) == 0xC0) {
				if (pos >= end) {
					GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)pos,
					          "PCX pixel data ends inside a run in row %u", y);
					return false;
				}
				run = b & 0x3F;
				run_value = data[pos++];
			} else {
				row[k++] = b;
			}
		}
		row_to_rgba(&in, row, palette, data + PCX_OFF_COLORMAP, rgba + (size_t)y * in.width * 4);
		if (indices) memcpy(indices + (size_t)y * in.width, row, in.width);
	}
	out->width = in.width;
	out->height = in.height;
	out->rgba = rgba;
	return !indices || gsioi_image_set_palette(arena, out, indices, palette, err);
}
