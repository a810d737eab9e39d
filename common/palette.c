/* The built-in palette and .pcx / .raw / .lmp palette loaders. */
#include "gsio_internal.h"

#include <stdio.h>
#include <stdlib.h>

static uint8_t default_palette[768];
static bool default_ready;

const uint8_t *gsio_default_palette(void)
{
	// Built on first use; every thread computes the same bytes, so a race
	// writes identical values.
	if (!default_ready) {
		uint8_t p[768];
		for (unsigned i = 0; i < 16; i++) // 0..15: grey ramp from black
			p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = (uint8_t)(i * 17);
		for (unsigned i = 0; i < 216; i++) { // 16..231: 6x6x6 colour cube
			unsigned r = i / 36, g = (i / 6) % 6, b = i % 6;
			p[3 * (16 + i)] = (uint8_t)(r * 51);
			p[3 * (16 + i) + 1] = (uint8_t)(g * 51);
			p[3 * (16 + i) + 2] = (uint8_t)(b * 51);
		}
		for (unsigned i = 0; i < 24; i++) // 232..255: fine grey ramp
			p[3 * (232 + i)] = p[3 * (232 + i) + 1] = p[3 * (232 + i) + 2] =
			    (uint8_t)(8 + i * 10);
		memcpy(default_palette, p, sizeof(p));
		default_ready = true;
	}
	return default_palette;
}

int gsio_palette_from_memory(const uint8_t *data, size_t size, uint8_t out[768], gsio_error *err)
{
	if (size == 768) { // .raw / .lmp: plain RGB triplets
		memcpy(out, data, 768);
		return 0;
	}
	if (size >= 128 + 769 && data[0] == 0x0A) { // PCX: header, image, 0x0C, palette
		if (data[size - 769] != 0x0C)
			return GSIO_FAIL(err, GSIO_ERR_CORRUPT, NULL, (int64_t)(size - 769),
			                 "PCX file has no 256-colour palette (marker 0x0C missing)"),
			       -1;
		memcpy(out, data + size - 768, 768);
		return 0;
	}
	GSIO_FAIL(err, GSIO_ERR_BAD_MAGIC, NULL, -1,
	          "not a palette: expected a 768-byte .raw/.lmp or a 256-colour .pcx (%zu bytes)",
	          size);
	return -1;
}

int gsio_palette_load(const char *path, uint8_t out[768], gsio_error *err)
{
	uint8_t *data;
	size_t size;
	if (gsio_read_whole_file(path, &data, &size, (size_t)64 << 20, err)) return -1;
	int rc = gsio_palette_from_memory(data, size, out, err);
	free(data);
	if (rc && err && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
	return rc;
}
