/* PNG files embedded as they are, less the chunks glTF does not take.
 *
 * glTF fixes an image's colour space (sRGB for colours) and says a
 * consumer ignores what a PNG states about it; the Khronos validator warns
 * (IMAGE_FEATURES_UNSUPPORTED) on a PNG that states another one: an ICC
 * profile (iCCP), primaries other than sRGB's (cHRM), a gamma other than
 * sRGB's or linear (gAMA), or pixels that are not square (pHYs). Dropped:
 * iCCP, cHRM, gAMA and sRGB whatever they say (they are the one kind of
 * statement, and a consumer that reads the image outside glTF should not
 * see a different colour space from one file to the next), and a pHYs
 * unless it is a well-formed square one (a resolution, which glTF does not
 * read). Every other chunk and every byte after IEND stays as it is, so
 * the pixels are the same. A file whose chunks cannot be walked (a length
 * past the end, a type that is not four letters, no IEND) is left whole:
 * its bytes are what the importer accepted, and the consumer's decoder
 * judges them as it would judge the source file. */
#include "gsioi_png.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_letter(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Whether the chunk (type, body of len bytes) is one glTF does not take. */
static bool dropped(const uint8_t *type, const uint8_t *body, uint32_t len)
{
	static const char colour[4][5] = {"iCCP", "cHRM", "gAMA", "sRGB"};
	for (size_t i = 0; i < 4; i++)
		if (!memcmp(type, colour[i], 4)) return true;
	if (memcmp(type, "pHYs", 4)) return false;
	return len != 9 || be32(body) != be32(body + 4); // square pixels stay
}

/* Walks the chunks of png[0..n): the bytes kept (everything but the
 * dropped chunks) in *kept; false when the walk fails. */
static bool walk(const uint8_t *png, size_t n, size_t *kept)
{
	if (n < sizeof(png_signature) || memcmp(png, png_signature, sizeof(png_signature)))
		return false;
	size_t pos = sizeof(png_signature), drop = 0;
	for (;;) {
		if (n - pos < 12) return false; // no IEND
		uint32_t len = be32(png + pos);
		const uint8_t *type = png + pos + 4;
		if (len > 0x7FFFFFFFu || len > n - pos - 12) return false;
		for (int k = 0; k < 4; k++)
			if (!is_letter(type[k])) return false;
		size_t whole = 12 + (size_t)len;
		if (dropped(type, type + 4, len)) drop += whole;
		pos += whole;
		if (!memcmp(type, "IEND", 4)) break;
	}
	*kept = n - drop;
	return true;
}

int gsioi_png_drop_chunks(const uint8_t *png, size_t n, uint8_t **out, size_t *out_size)
{
	*out = NULL;
	*out_size = 0;
	size_t kept;
	if (!png || !walk(png, n, &kept) || kept == n) return 0;
	uint8_t *o = malloc(kept);
	if (!o) return -1;
	size_t pos = sizeof(png_signature), at = pos;
	memcpy(o, png, pos);
	bool end = false;
	while (!end) { // the walk above found every length in range and an IEND
		uint32_t len = be32(png + pos);
		const uint8_t *type = png + pos + 4;
		size_t whole = 12 + (size_t)len;
		end = !memcmp(type, "IEND", 4);
		if (!dropped(type, type + 4, len)) {
			memcpy(o + at, png + pos, whole);
			at += whole;
		}
		pos += whole;
	}
	memcpy(o + at, png + pos, n - pos); // what follows IEND, as it is
	*out = o;
	*out_size = kept;
	return 1;
}
