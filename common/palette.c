/* The built-in palette and .pcx / .raw / .lmp palette loaders. */
#include "gsioi_internal.h"

#include <stdio.h>

// The built-in palette is a constant table, built by the preprocessor: no
// first-use initialisation, so threads converting at once (mdl2gltf -j) never
// race on it.
#define GSIO_GREY(v) (v), (v), (v)
#define GSIO_RAMP16(i) GSIO_GREY((i) * 17)      /* 0..15: grey ramp from black */
#define GSIO_FINE(i) GSIO_GREY(8 + (i) * 10)    /* 232..255: fine grey ramp */
#define GSIO_CUBE_B(r, g) /* 16..231: 6x6x6 colour cube, red slowest */ \
	(r) * 51, (g) * 51, 0, (r) * 51, (g) * 51, 51, (r) * 51, (g) * 51, 102, \
	(r) * 51, (g) * 51, 153, (r) * 51, (g) * 51, 204, (r) * 51, (g) * 51, 255
#define GSIO_CUBE_G(r) \
	GSIO_CUBE_B(r, 0), GSIO_CUBE_B(r, 1), GSIO_CUBE_B(r, 2), GSIO_CUBE_B(r, 3), \
	GSIO_CUBE_B(r, 4), GSIO_CUBE_B(r, 5)
#define GSIO_FOUR(m, i) m(i), m((i) + 1), m((i) + 2), m((i) + 3)

static const uint8_t default_palette[768] = {
    GSIO_FOUR(GSIO_RAMP16, 0), GSIO_FOUR(GSIO_RAMP16, 4), GSIO_FOUR(GSIO_RAMP16, 8),
    GSIO_FOUR(GSIO_RAMP16, 12),
    GSIO_CUBE_G(0), GSIO_CUBE_G(1), GSIO_CUBE_G(2), GSIO_CUBE_G(3), GSIO_CUBE_G(4),
    GSIO_CUBE_G(5),
    GSIO_FOUR(GSIO_FINE, 0), GSIO_FOUR(GSIO_FINE, 4), GSIO_FOUR(GSIO_FINE, 8),
    GSIO_FOUR(GSIO_FINE, 12), GSIO_FOUR(GSIO_FINE, 16), GSIO_FOUR(GSIO_FINE, 20),
};

const uint8_t *gsio_default_palette(void)
{
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

int gsioi_palette_load_io(const gsio_opts *opts, const char *path, uint8_t out[768],
                          gsio_error *err)
{
	// A palette is 768 bytes, or a PCX image with one: 64 MiB is plenty.
	gsio_opts o = {0};
	if (opts) o = *opts;
	if (!o.memory_limit || o.memory_limit > ((size_t)64 << 20)) o.memory_limit = (size_t)64 << 20;
	uint8_t *data;
	size_t size;
	if (gsioi_io_read(&o, path, &data, &size, err)) return -1;
	int rc = gsio_palette_from_memory(data, size, out, err);
	gsioi_io_free(&o, data);
	if (rc && err && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
	return rc;
}

int gsio_palette_load(const char *path, uint8_t out[768], gsio_error *err)
{
	return gsioi_palette_load_io(NULL, path, out, err);
}
