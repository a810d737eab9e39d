/* DDS (DXT1/DXT3/DXT5) decoding for GameStudio type-6 skins: gsioi_dds.h says
 * what the corpus holds and which rules the decoder follows. A small decoder
 * of our own rather than a dependency: the format is a few bit fields, and
 * this one is fuzzed (tests/fuzz/fuzz_dds.c) and cross-checked against
 * libsquish where that is installed (tests/test_dds.c). */
#include "gsioi_dds.h"

#include <stdio.h>

// -- Header

// Offsets in the file: "DDS " at 0, then DDS_HEADER (all u32 LE).
enum {
	DDS_OFF_SIZE = 4,
	DDS_OFF_FLAGS = 8,
	DDS_OFF_HEIGHT = 12,
	DDS_OFF_WIDTH = 16,
	DDS_OFF_DEPTH = 24,
	DDS_OFF_MIPS = 28,
	DDS_OFF_PF_SIZE = 76,
	DDS_OFF_PF_FLAGS = 80,
	DDS_OFF_PF_FOURCC = 84,
	DDS_OFF_PF_BITS = 88,
	DDS_OFF_CAPS2 = 112
};

#define DDSD_DEPTH 0x800000u
#define DDPF_FOURCC 0x4u
#define DDSCAPS2_CUBEMAP 0x200u
#define DDSCAPS2_VOLUME 0x200000u

static uint32_t fourcc(const char *s)
{
	return (uint32_t)(uint8_t)s[0] | (uint32_t)(uint8_t)s[1] << 8 |
	       (uint32_t)(uint8_t)s[2] << 16 | (uint32_t)(uint8_t)s[3] << 24;
}

// A FourCC as printable text for messages ("DX10", "\x00..." -> "?...").
static void fourcc_text(uint32_t v, char out[5])
{
	for (int i = 0; i < 4; i++) {
		uint8_t c = (uint8_t)(v >> (8 * i));
		out[i] = c >= 0x20 && c < 0x7F ? (char)c : '?';
	}
	out[4] = '\0';
}

static const char *format_name(gsioi_dds_format f)
{
	return f == GSIOI_DDS_DXT1 ? "DXT1" : f == GSIOI_DDS_DXT3 ? "DXT3" : "DXT5";
}

bool gsioi_dds_parse(const uint8_t *data, size_t size, const char *file, int64_t base,
                     gsioi_dds_info *info, gsio_error *err)
{
	if (base < 0) base = 0;
	if (!data) size = 0;
	if (size >= 4 && memcmp(data, "DDS ", 4) != 0) {
		char magic[5];
		fourcc_text(gsioi_le32(data), magic);
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, base,
		          "embedded texture is not a DDS file (starts with '%s', not 'DDS ')", magic);
		return false;
	}
	if (size < GSIOI_DDS_HEADER_SIZE) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, base,
		          "data ends inside the DDS header (needs %d bytes, %zu left)",
		          GSIOI_DDS_HEADER_SIZE, size);
		return false;
	}
	uint32_t hsize = gsioi_le32(data + DDS_OFF_SIZE);
	uint32_t pfsize = gsioi_le32(data + DDS_OFF_PF_SIZE);
	if (hsize != 124 || pfsize != 32) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, base + (hsize != 124 ? DDS_OFF_SIZE : DDS_OFF_PF_SIZE),
		          "DDS header size %u, pixel format size %u (must be 124 and 32)",
		          (unsigned)hsize, (unsigned)pfsize);
		return false;
	}
	uint32_t flags = gsioi_le32(data + DDS_OFF_FLAGS);
	uint32_t height = gsioi_le32(data + DDS_OFF_HEIGHT);
	uint32_t width = gsioi_le32(data + DDS_OFF_WIDTH);
	uint32_t depth = gsioi_le32(data + DDS_OFF_DEPTH);
	uint32_t mips = gsioi_le32(data + DDS_OFF_MIPS);
	uint32_t pfflags = gsioi_le32(data + DDS_OFF_PF_FLAGS);
	uint32_t cc = gsioi_le32(data + DDS_OFF_PF_FOURCC);
	uint32_t caps2 = gsioi_le32(data + DDS_OFF_CAPS2);

	if (!(pfflags & DDPF_FOURCC)) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, base + DDS_OFF_PF_FLAGS,
		          "uncompressed DDS texture (pixel format flags 0x%x, %u bits per pixel): "
		          "only DXT1, DXT3 and DXT5 are supported",
		          (unsigned)pfflags, (unsigned)gsioi_le32(data + DDS_OFF_PF_BITS));
		return false;
	}
	gsioi_dds_format fmt;
	if (cc == fourcc("DXT1")) {
		fmt = GSIOI_DDS_DXT1;
	} else if (cc == fourcc("DXT3")) {
		fmt = GSIOI_DDS_DXT3;
	} else if (cc == fourcc("DXT5")) {
		fmt = GSIOI_DDS_DXT5;
	} else {
		char name[5];
		fourcc_text(cc, name);
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, base + DDS_OFF_PF_FOURCC,
		          "DDS texture compression '%s' (0x%08x): only DXT1, DXT3 and DXT5 are "
		          "supported",
		          name, (unsigned)cc);
		return false;
	}
	if ((caps2 & (DDSCAPS2_CUBEMAP | DDSCAPS2_VOLUME)) || ((flags & DDSD_DEPTH) && depth > 1)) {
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, file, base + DDS_OFF_CAPS2,
		          "DDS cube map or volume texture (caps2 0x%x, depth %u): only 2D textures "
		          "are supported",
		          (unsigned)caps2, (unsigned)depth);
		return false;
	}
	if (width == 0 || height == 0) {
		GSIO_FAIL(err, GSIO_ERR_CORRUPT, file, base + DDS_OFF_HEIGHT,
		          "DDS texture of %u x %u pixels", (unsigned)width, (unsigned)height);
		return false;
	}
	if (width > GSIOI_DDS_MAX_DIM || height > GSIOI_DDS_MAX_DIM) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, file, base + DDS_OFF_HEIGHT,
		          "DDS texture of %u x %u pixels is refused (limit %d)", (unsigned)width,
		          (unsigned)height, GSIOI_DDS_MAX_DIM);
		return false;
	}
	// At most 4096 x 4096 blocks of 16 bytes: no overflow even in 32 bits,
	// checked anyway so the bound does not rest on the limit above.
	size_t blocks_x = ((size_t)width + 3) / 4, blocks_y = ((size_t)height + 3) / 4;
	size_t top;
	if (!gsioi_mul3_size(blocks_x, blocks_y, fmt == GSIOI_DDS_DXT1 ? 8 : 16, &top)) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, file, base + DDS_OFF_HEIGHT,
		          "DDS texture of %u x %u pixels is too large", (unsigned)width,
		          (unsigned)height);
		return false;
	}
	if (top > size - GSIOI_DDS_HEADER_SIZE) {
		GSIO_FAIL(err, GSIO_ERR_TRUNCATED, file, base + GSIOI_DDS_HEADER_SIZE,
		          "data ends inside the DDS blocks (%s %u x %u needs %zu bytes, %zu left)",
		          format_name(fmt), (unsigned)width, (unsigned)height, top,
		          size - GSIOI_DDS_HEADER_SIZE);
		return false;
	}
	if (info) {
		info->width = width;
		info->height = height;
		info->format = fmt;
		info->mip_count = mips ? mips : 1;
		info->top_size = top;
	}
	return true;
}

// -- Blocks

// RGB565 to 8 bits per channel by bit replication (0x1F -> 0xFF, not 0xF8),
// red, green and blue in the 21-bit lanes decode_colour() blends in.
static uint64_t spread565(uint16_t c)
{
	uint64_t r = (c >> 11) & 31u, g = (c >> 5) & 63u, b = c & 31u;
	return (r << 3 | r >> 2) | (g << 2 | g >> 4) << 21 | (b << 3 | b >> 2) << 42;
}

// The lanes back to one pixel: a word whose bytes in memory are R, G, B and
// alpha's (bits 24-31 of `alpha`).
static uint32_t gather565(uint64_t lanes, uint32_t alpha)
{
	uint32_t v = (uint32_t)(lanes & 0xFFu) | (uint32_t)(lanes >> 13 & 0xFF00u) |
	             (uint32_t)(lanes >> 26 & 0xFF0000u) | alpha;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

#ifdef GSIOI_HAVE_SSSE3
#include <tmmintrin.h>

/* For one row of a block (4 two-bit indices, one byte of the index word):
 * the byte shuffle that picks each pixel's 4 bytes out of the 4-colour
 * palette held as 16 bytes. 256 rows of 16, made by the preprocessor. */
#define DXT_PICK(b, j) \
	(char)(4 * (((b) >> (2 * (j))) & 3)), (char)(4 * (((b) >> (2 * (j))) & 3) + 1), \
	    (char)(4 * (((b) >> (2 * (j))) & 3) + 2), (char)(4 * (((b) >> (2 * (j))) & 3) + 3)
#define DXT_ROW(b) {DXT_PICK(b, 0), DXT_PICK(b, 1), DXT_PICK(b, 2), DXT_PICK(b, 3)}
#define DXT_ROWS4(b) DXT_ROW(b), DXT_ROW((b) + 1), DXT_ROW((b) + 2), DXT_ROW((b) + 3)
#define DXT_ROWS16(b) DXT_ROWS4(b), DXT_ROWS4((b) + 4), DXT_ROWS4((b) + 8), DXT_ROWS4((b) + 12)
#define DXT_ROWS64(b) DXT_ROWS16(b), DXT_ROWS16((b) + 16), DXT_ROWS16((b) + 32), DXT_ROWS16((b) + 48)
static const char dxt_pick[256][16] __attribute__((aligned(16))) = {
    DXT_ROWS64(0), DXT_ROWS64(64), DXT_ROWS64(128), DXT_ROWS64(192)};

/* The 16 pixels, a row of 4 at a time: one shuffle of the palette each
 * (with the table lookup, about 20 instructions a block where the loop of
 * 16 copies took about 100). */
GSIOI_TARGET_SSSE3 static void pick_ssse3(const uint32_t words[4], uint32_t idx, uint8_t rgba[64])
{
	const __m128i pal = _mm_loadu_si128((const __m128i *)(const void *)words);
	for (int k = 0; k < 4; k++, idx >>= 8)
		_mm_storeu_si128((__m128i *)(void *)(rgba + 16 * k),
		                 _mm_shuffle_epi8(pal, _mm_load_si128((const __m128i *)(const void *)
		                                                          dxt_pick[idx & 0xFF])));
}
#endif

// The colour half of a block (8 bytes): two 565 end points and 2-bit
// indices. `dxt1` allows the 3-colour + transparent black mode; `simd`
// lets SSSE3 place the pixels where the processor has it (false: the
// portable loop, which tests compare it with).
static void decode_colour(const uint8_t *b, bool dxt1, bool simd, uint8_t rgba[64])
{
	uint16_t c0 = gsioi_le16(b), c1 = gsioi_le16(b + 2);
	// The channels of both end points in three 21-bit lanes of a word each
	// (red at bit 0, green at 21, blue at 42): the blends below work on all
	// three at once, and no lane's products (at most 765 * 683) reach the
	// next. x / 3 is (x * 683) >> 11 for x <= 765, exactly. This was 100 of
	// a block's 170 instructions as a loop over channels.
	const uint64_t lanes = 0xFFu | (uint64_t)0xFF << 21 | (uint64_t)0xFF << 42;
	uint64_t p0 = spread565(c0), p1 = spread565(c1), p2, p3;
	uint32_t alpha3 = 0xFF000000u;
	if (!dxt1 || c0 > c1) {
		p2 = ((2 * p0 + p1) * 683 >> 11) & lanes;
		p3 = ((p0 + 2 * p1) * 683 >> 11) & lanes;
	} else {
		p2 = ((p0 + p1) >> 1) & lanes;
		p3 = 0; // transparent black
		alpha3 = 0;
	}
	const uint32_t opaque = 0xFF000000u;
	uint32_t idx = gsioi_le32(b + 4);
	const uint32_t words[4] = {gather565(p0, opaque), gather565(p1, opaque), gather565(p2, opaque),
	                           gather565(p3, alpha3)};
#ifdef GSIOI_HAVE_SSSE3
	if (simd) {
		pick_ssse3(words, idx, rgba);
		return;
	}
#else
	(void)simd;
#endif
	for (int i = 0; i < 16; i++, idx >>= 2) memcpy(rgba + 4 * i, &words[idx & 3], 4);
}

// DXT3: 16 explicit 4-bit alphas, two per byte, low nibble first.
static void decode_alpha_dxt3(const uint8_t *b, uint8_t rgba[64])
{
	for (int i = 0; i < 16; i++) {
		unsigned a = (b[i / 2] >> (4 * (i & 1))) & 15u;
		rgba[4 * i + 3] = (uint8_t)(a * 17);
	}
}

// DXT5: two 8-bit end points and 16 3-bit indices (48 bits, little-endian).
static void decode_alpha_dxt5(const uint8_t *b, uint8_t rgba[64])
{
	unsigned a0 = b[0], a1 = b[1];
	uint8_t pal[8];
	pal[0] = (uint8_t)a0;
	pal[1] = (uint8_t)a1;
	if (a0 > a1) {
		for (unsigned i = 1; i < 7; i++) pal[1 + i] = (uint8_t)(((7 - i) * a0 + i * a1) / 7);
	} else {
		for (unsigned i = 1; i < 5; i++) pal[1 + i] = (uint8_t)(((5 - i) * a0 + i * a1) / 5);
		pal[6] = 0;
		pal[7] = 255;
	}
	uint64_t idx = 0;
	for (int i = 0; i < 6; i++) idx |= (uint64_t)b[2 + i] << (8 * i);
	for (int i = 0; i < 16; i++) rgba[4 * i + 3] = pal[(idx >> (3 * i)) & 7];
}

static void decode_block(gsioi_dds_format format, const uint8_t *block, bool simd, uint8_t rgba[64])
{
	switch (format) {
	case GSIOI_DDS_DXT1:
		decode_colour(block, true, simd, rgba);
		break;
	case GSIOI_DDS_DXT3:
		decode_colour(block + 8, false, simd, rgba);
		decode_alpha_dxt3(block, rgba);
		break;
	case GSIOI_DDS_DXT5:
		decode_colour(block + 8, false, simd, rgba);
		decode_alpha_dxt5(block, rgba);
		break;
	default:
		memset(rgba, 0, 64);
		break;
	}
}

static bool use_simd(void)
{
#ifdef GSIOI_HAVE_SSSE3
	return gsioi_has_ssse3();
#else
	return false;
#endif
}

void gsioi_dds_decode_block(gsioi_dds_format format, const uint8_t *block, uint8_t rgba[64])
{
	decode_block(format, block, use_simd(), rgba);
}

void gsioi_dds_decode_block_portable(gsioi_dds_format format, const uint8_t *block, uint8_t rgba[64])
{
	decode_block(format, block, false, rgba);
}

// -- Image

void gsioi_dds_decode_band(const gsioi_dds_info *info, const uint8_t *data, uint32_t by,
                           uint8_t *rgba)
{
	const size_t w = info->width, h = info->height;
	const size_t block_size = info->format == GSIOI_DDS_DXT1 ? 8 : 16;
	const uint8_t *blocks = data + GSIOI_DDS_HEADER_SIZE + (size_t)(by / 4) * ((w + 3) / 4) * block_size;
	const size_t rows = h - by < 4 ? h - by : 4;
	uint8_t px[64];
	const bool simd = use_simd();
	// Blocks run left to right, then down; rows are stored top row first,
	// which is gsio_image's order. Edge blocks of a size that is not a
	// multiple of 4 are cut to the pixels inside the image.
	for (size_t bx = 0; bx < w; bx += 4) {
		size_t cols = w - bx < 4 ? w - bx : 4;
		decode_block(info->format, blocks, simd, px);
		blocks += block_size;
		uint8_t *dst = rgba + bx * 4;
		if (rows == 4 && cols == 4) // a whole block: fixed-size copies, no calls
			for (size_t y = 0; y < 4; y++) memcpy(dst + y * w * 4, px + y * 16, 16);
		else
			for (size_t y = 0; y < rows; y++) memcpy(dst + y * w * 4, px + y * 16, cols * 4);
	}
}

bool gsioi_dds_opaque(const gsioi_dds_info *info, const uint8_t *data)
{
	const size_t w = info->width, h = info->height;
	const size_t block_size = info->format == GSIOI_DDS_DXT1 ? 8 : 16;
	const uint8_t *b = data + GSIOI_DDS_HEADER_SIZE;
	uint8_t px[64];
	for (size_t by = 0; by < h; by += 4)
		for (size_t bx = 0; bx < w; bx += 4, b += block_size) {
			// Pixels of the block inside the image (edge blocks are cut).
			uint32_t inside = 0xFFFF;
			if (by + 4 > h || bx + 4 > w)
				for (size_t y = 0; y < 4; y++)
					for (size_t x = 0; x < 4; x++)
						if (by + y >= h || bx + x >= w) inside &= ~(1u << (4 * y + x));
			if (info->format == GSIOI_DDS_DXT1) {
				if (gsioi_le16(b) > gsioi_le16(b + 2)) continue; // four colours: opaque
				// Three colours: index 3 (both bits set) is transparent black.
				uint32_t idx = gsioi_le32(b + 4), threes = idx & (idx >> 1) & 0x55555555u;
				for (int i = 0; threes && i < 16; i++)
					if ((threes >> (2 * i) & 1) && (inside >> i & 1)) return false;
				continue;
			}
			gsioi_dds_decode_block(info->format, b, px);
			for (int i = 0; i < 16; i++)
				if ((inside >> i & 1) && px[4 * i + 3] != 255) return false;
		}
	return true;
}

bool gsioi_dds_decode(const uint8_t *data, size_t size, const char *file, int64_t base,
                      gsio_arena *arena, gsio_image *out, gsioi_dds_info *info, gsio_error *err)
{
	gsioi_dds_info hdr;
	GSIO_CHECK(gsioi_dds_parse(data, size, file, base, &hdr, err));
	size_t w = hdr.width, h = hdr.height;
	// Not zeroed: every pixel is written below. <= 16384^2 * 4 bytes, and the
	// arena's limit decides whether that much may be had.
	uint8_t *rgba = gsioi_arena_array_uninit(arena, w * h, 4, err);
	if (!rgba) return false;
	for (uint32_t by = 0; by < h; by += 4) gsioi_dds_decode_band(&hdr, data, by, rgba + (size_t)by * w * 4);
	out->width = hdr.width;
	out->height = hdr.height;
	out->rgba = rgba;
	if (info) *info = hdr;
	return true;
}

// -- Type-6 skins as scene images

bool gsioi_dds_skin_image(gsio_scene *s, const uint8_t *px, size_t n, size_t index,
                          gsio_image *im, bool no_pixels, bool *decoded, gsio_error *err)
{
	*decoded = false;
	gsio_error derr;
	gsio_error_clear(&derr);
	gsioi_dds_info info;
	char name[32];
	snprintf(name, sizeof(name), "skin%zu", index);
	bool ok;
	if (no_pixels) { // the file as it is: the glTF writer makes a PNG of it band by band
		ok = gsioi_dds_parse(px, n, NULL, 0, &info, &derr);
		uint8_t *copy = ok ? gsioi_arena_alloc_uninit(s->arena, n, err) : NULL;
		if (ok && !copy) return false;
		if (ok) {
			memcpy(copy, px, n);
			im->file_data = copy;
			im->file_size = n;
			im->width = info.width;
			im->height = info.height;
		}
	} else {
		ok = gsioi_dds_decode(px, n, NULL, 0, s->arena, im, &info, &derr);
	}
	if (!ok) {
		if (derr.code == GSIO_ERR_NOMEM) {
			*err = derr;
			return false;
		}
		return gsioi_scene_warn(s, err, "skin %zu: embedded DDS file (%zu bytes) not decoded: %s",
		                        index, n, derr.message);
	}
	if (!(im->name = gsioi_arena_strdup(s->arena, name, err))) return false;
	im->source_type = 6;
	im->source_format = GSIO_PIXEL_RGBA8888;
	im->source_mip_count = info.mip_count ? info.mip_count - 1 : 0;
	im->uri = NULL;
	im->source_path = NULL;
	*decoded = true;
	return true;
}
