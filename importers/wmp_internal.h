/* WMP internals shared by the codec files (wmp.c, wmp_codec_text.c,
 * wmp_codec_bin.c, wmp_brush.c) and the scene (wmp_scene.c). Not installed. */
#ifndef GSIO_WMP_INTERNAL_H
#define GSIO_WMP_INTERNAL_H

#include "gsioi_internal.h"
#include "gsio_wmp.h"

// -- Growable arrays in an arena
//
// Counts in a level are not known before the parse (binary nodes nest, text
// objects come one by one), so arrays grow by doubling inside the file's
// arena; the old copy stays until the arena goes (at most twice the final
// size in total).

/** Makes room for one more element of elem_size in *arr (count used, *cap
 *  allocated). Returns false (err set) on overflow or allocation failure. */
GSIO_NODISCARD bool gsioi_wmp_grow(gsio_arena *a, void **arr, size_t count, size_t *cap,
                                   size_t elem_size, gsio_error *err);

/** Makes room for at least n elements in *arr (count used, *cap allocated):
 *  one array of n when *cap is smaller. Returns false (err set) on overflow
 *  or allocation failure. */
GSIO_NODISCARD bool gsioi_wmp_reserve(gsio_arena *a, void **arr, size_t count, size_t *cap,
                                      size_t elem_size, size_t n, gsio_error *err);

#define GSIOI_WMP_PUSH(a, arr, count, cap, err) \
	gsioi_wmp_grow((a), (void **)&(arr), (count), &(cap), sizeof(*(arr)), (err))

// -- Little-endian doubles

static inline double gsioi_lef64(const uint8_t *p)
{
	uint64_t u = 0;
	for (int i = 7; i >= 0; i--) u = (u << 8) | p[i];
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static inline void gsioi_put_f64(uint8_t *p, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	for (int i = 0; i < 8; i++) p[i] = (uint8_t)(u >> (8 * i));
}

// -- Dialects

/** Binary dialect C (wmp_codec_bin.c). f is zeroed with its arena set. */
GSIO_NODISCARD bool gsioi_wmp_decode_binary(gsio_wmp_file *f, const uint8_t *data, size_t size,
                                            const char *name, gsio_error *err);
GSIO_NODISCARD bool gsioi_wmp_encode_binary(const gsio_wmp_file *f, gsioi_writer *w,
                                            gsio_error *err);
/** Text dialects A and B (wmp_codec_text.c). */
GSIO_NODISCARD bool gsioi_wmp_decode_text(gsio_wmp_file *f, const uint8_t *data, size_t size,
                                          const char *name, gsio_error *err);
GSIO_NODISCARD bool gsioi_wmp_encode_text(const gsio_wmp_file *f, gsioi_writer *w,
                                          gsio_error *err);

/** Dialect A: turns every block's planes into vertices, faces and surfaces
 *  (wmp_brush.c). Surfaces must already hold one entry per plane (face =
 *  plane index); they are renumbered to the faces that survive. */
GSIO_NODISCARD bool gsioi_wmp_planes_to_faces(gsio_wmp_file *f, gsio_wmp_block *b,
                                              const char *name, gsio_error *err);

/** Checks WAD lump i as a texture and, when dst is not NULL, decodes it
 *  into dst (width*height*4 bytes). 8-bit lumps use palette, else the WAD's
 *  own (WAD3's per-texture one first), else the built-in one. */
GSIO_NODISCARD bool gsioi_wad_lump_rgba(const gsio_wad_file *wad, size_t i,
                                        const uint8_t *palette, uint8_t *dst, gsio_error *err);

/** Lump i's pixels as stored (checked as gsioi_wad_lump_rgba does): their
 *  format and place in the WAD's bytes, and for 8-bit ones the 768-byte
 *  palette gsioi_wad_lump_rgba uses (NULL: the built-in one); *src NULL for
 *  a DDS lump. */
GSIO_NODISCARD bool gsioi_wad_lump_stored(const gsio_wad_file *wad, size_t i, const uint8_t *palette,
                                          gsio_pixel_format *fmt, const uint8_t **src,
                                          const uint8_t **rgb_palette, gsio_error *err);

/** The string's text, or "" when absent. */
static inline const char *gsioi_wmp_str(const gsio_wmp_string *s)
{
	return s && s->s ? s->s : "";
}

#endif
