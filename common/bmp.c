/* Uncompressed BMP files: gsioi_bmp.h says which and why. The layout
 * (docs/FORMATS.md §10.3): a 14-byte file header ("BM" at 0, the pixel
 * data's offset at 10), then the info header (its size at 14, width at 18,
 * height at 22 as signed 32-bit little-endian numbers, planes at 26, bits
 * a pixel at 28, compression at 30), then for 1-, 4- and 8-bit files the
 * palette (B, G, R, reserved a colour), then the rows, each padded to a
 * multiple of 4 bytes, the bottom row first unless the height is negative. */
#include "gsioi_bmp.h"
#include "gsioi_image_file.h"
#include "gsioi_tga.h"

#include <string.h>

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

gsioi_bmp_status gsioi_bmp_parse(const uint8_t *data, size_t size, const char *file, gsioi_bmp *info,
                                 gsio_error *err)
{
	const size_t fh = GSIOI_BMP_FILE_HEADER_SIZE;
	if (!data || size < fh + 4 || data[0] != 'B' || data[1] != 'M') return GSIOI_BMP_OTHER;
	const uint32_t hsz = le32(data + fh);
	if (hsz != 40 && hsz != 108 && hsz != 124) return GSIOI_BMP_OTHER; // OS/2, V3: stb_image's
	if (size < fh + hsz) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)size,
		          "BMP file of %zu bytes cut short inside its %u-byte info header", size, (unsigned)hsz);
		return GSIOI_BMP_BAD;
	}
	const uint32_t bpp = le16(data + 28);
	if (le16(data + 26) != 1 || le32(data + 30) != 0) return GSIOI_BMP_OTHER; // planes, compression
	if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32) return GSIOI_BMP_OTHER;
	const size_t head = fh + hsz;
	const uint32_t offset = le32(data + 10);
	// stb_image wants a true-colour file's pixels right after its headers
	// and refuses the file otherwise: its refusal, its message.
	if (bpp > 8 && offset != head) return GSIOI_BMP_OTHER;
	const int64_t w = (int32_t)le32(data + 18), h = (int32_t)le32(data + 22);
	const int64_t ah = h < 0 ? -h : h;
	if (w < 1 || h == 0) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, 18, "BMP of %lld x %lld pixels: no picture", (long long)w,
		          (long long)h);
		return GSIOI_BMP_BAD;
	}
	if (w > GSIO_IMAGE_FILE_MAX_DIM || ah > GSIO_IMAGE_FILE_MAX_DIM) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, file, 18, "image of %lld x %lld pixels is refused (limit %d)",
		          (long long)w, (long long)ah, GSIO_IMAGE_FILE_MAX_DIM);
		return GSIOI_BMP_BAD;
	}
	uint32_t colours = 0;
	if (bpp <= 8) {
		// As stb_image counts them: the entries between the headers and the
		// pixels (biClrUsed is not asked).
		const int64_t gap = (int64_t)offset - (int64_t)head;
		if (gap < 4 || gap / 4 > 256) {
			GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, 10,
			          "%u-bit BMP whose pixels start at byte %u: its palette (from byte %zu) would "
			          "hold %lld colours, not 1 to 256",
			          (unsigned)bpp, (unsigned)offset, head, (long long)(gap / 4));
			return GSIOI_BMP_BAD;
		}
		colours = (uint32_t)(gap / 4);
	}
	// w and h are at most 2^14: the sizes fit in 64 bits with room.
	const uint64_t row_bytes = ((uint64_t)w * bpp + 7) / 8, stride = (row_bytes + 3) & ~(uint64_t)3;
	const uint64_t end = (uint64_t)offset + stride * (uint64_t)(ah - 1) + row_bytes;
	if (end > size) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, (int64_t)size,
		          "BMP file cut short: its %lld x %lld pixels of %u bits from byte %u end at byte "
		          "%llu, the file has %zu bytes",
		          (long long)w, (long long)ah, (unsigned)bpp, (unsigned)offset, (unsigned long long)end,
		          size);
		return GSIOI_BMP_BAD;
	}
	info->width = (uint32_t)w;
	info->height = (uint32_t)ah;
	info->bpp = bpp;
	info->top_down = h < 0;
	info->alpha_zero = false;
	info->offset = offset;
	info->stride = (size_t)stride;
	info->colours = colours;
	for (uint32_t i = 0; i < 256; i++) {
		uint8_t *p = info->palette[i];
		if (i < colours) {
			const uint8_t *s = data + head + 4 * (size_t)i; // inside: head + 4 * colours <= offset
			p[0] = s[2], p[1] = s[1], p[2] = s[0];
		} else {
			p[0] = p[1] = p[2] = 0;
		}
		p[3] = 255;
	}
	return GSIOI_BMP_OK;
}

/* The file's bytes of row y (0: the top). */
static const uint8_t *row_at(const uint8_t *data, const gsioi_bmp *info, uint32_t y)
{
	return data + info->offset + (size_t)(info->top_down ? y : info->height - 1 - y) * info->stride;
}

/* The palette index of pixel x of a 1- or 4-bit row (the high bits first). */
static uint32_t index_at(const uint8_t *s, uint32_t bpp, uint32_t x)
{
	if (bpp == 4) return (uint32_t)(x & 1u ? s[x >> 1] & 15u : s[x >> 1] >> 4);
	return (uint32_t)(s[x >> 3] >> (7u - (x & 7u))) & 1u;
}

void gsioi_bmp_scan_alpha(const uint8_t *data, gsioi_bmp *info)
{
	info->alpha_zero = false;
	if (info->bpp != 32) return;
	for (uint32_t y = 0; y < info->height; y++) {
		const uint8_t *s = data + info->offset + (size_t)y * info->stride;
		uint8_t any = 0;
		for (uint32_t x = 0; x < info->width; x++) any |= s[4 * (size_t)x + 3];
		if (any) return;
	}
	info->alpha_zero = true;
}

void gsioi_bmp_row(const uint8_t *data, const gsioi_bmp *info, uint32_t y, uint8_t *rgba)
{
	const uint8_t *s = row_at(data, info, y);
	const uint32_t w = info->width;
	switch (info->bpp) {
	case 32:
		gsioi_bgr_to_rgba(s, rgba, w, true);
		if (info->alpha_zero)
			for (uint32_t x = 0; x < w; x++) rgba[4 * (size_t)x + 3] = 255;
		break;
	case 24: gsioi_bgr_to_rgba(s, rgba, w, false); break;
	case 8:
		for (uint32_t x = 0; x < w; x++) memcpy(rgba + 4 * (size_t)x, info->palette[s[x]], 4);
		break;
	default:
		for (uint32_t x = 0; x < w; x++) memcpy(rgba + 4 * (size_t)x, info->palette[index_at(s, info->bpp, x)], 4);
		break;
	}
}

void gsioi_bmp_pixel(const uint8_t *data, const gsioi_bmp *info, size_t i, uint8_t out[4])
{
	const uint32_t x = (uint32_t)(i % info->width);
	const uint8_t *s = row_at(data, info, (uint32_t)(i / info->width));
	if (info->bpp >= 24) {
		const uint8_t *p = s + (size_t)x * (info->bpp / 8);
		out[0] = p[2], out[1] = p[1], out[2] = p[0];
		out[3] = info->bpp == 32 && !info->alpha_zero ? p[3] : 255;
		return;
	}
	memcpy(out, info->palette[info->bpp == 8 ? s[x] : index_at(s, info->bpp, x)], 4);
}

void gsioi_bmp_decode(const uint8_t *data, gsioi_bmp *info, uint8_t *rgba)
{
	gsioi_bmp_scan_alpha(data, info);
	for (uint32_t y = 0; y < info->height; y++)
		gsioi_bmp_row(data, info, y, rgba + (size_t)y * info->width * 4);
}

bool gsioi_bmp_opaque(const uint8_t *data, const gsioi_bmp *info)
{
	if (info->bpp != 32 || info->alpha_zero) return true;
	for (uint32_t y = 0; y < info->height; y++) {
		const uint8_t *s = data + info->offset + (size_t)y * info->stride;
		uint8_t all = 255;
		for (uint32_t x = 0; x < info->width; x++) all &= s[4 * (size_t)x + 3];
		if (all != 255) return false;
	}
	return true;
}
