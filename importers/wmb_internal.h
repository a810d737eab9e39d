/* WMB internals shared by the codec files (wmb_codec.c: directory, lists,
 * encode; wmb_objects.c: the objects list) and the scene (wmb_scene.c).
 * Not installed. */
#ifndef GSIO_WMB_INTERNAL_H
#define GSIO_WMB_INTERNAL_H

#include "gsioi_internal.h"
#include "gsio_wmb.h"

/** Bytes written back at absolute offsets of a file of `size` bytes; mask,
 *  when set, marks every byte written (the decode finds the gaps so). */
typedef struct wmb_out {
	uint8_t *data;
	uint8_t *mask;
	size_t size;
} wmb_out;

static inline void wmb_put(wmb_out *o, size_t at, const void *src, size_t n)
{
	if (at > o->size || n > o->size - at) return; // the decode checked every place
	memcpy(o->data + at, src, n);
	if (o->mask) memset(o->mask + at, 1, n);
}

static inline void wmb_put32(wmb_out *o, size_t at, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	wmb_put(o, at, b, 4);
}

static inline void wmb_put16(wmb_out *o, size_t at, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	wmb_put(o, at, b, 2);
}

static inline void wmb_putf(wmb_out *o, size_t at, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	wmb_put32(o, at, u);
}

static inline void wmb_putfs(wmb_out *o, size_t at, const float *f, size_t n)
{
	for (size_t i = 0; i < n; i++) wmb_putf(o, at + 4 * i, f[i]);
}

static inline void wmb_getfs(const uint8_t *p, float *f, size_t n)
{
	for (size_t i = 0; i < n; i++) f[i] = gsioi_lef32(p + 4 * i);
}

/** Decodes the objects list (wmb_objects.c): f->lists and the bytes set. */
GSIO_NODISCARD bool gsioi_wmb_decode_objects(gsio_wmb_file *f, const uint8_t *d, const char *name,
                                             gsio_error *err);
/** Writes the objects list back. */
void gsioi_wmb_encode_objects(const gsio_wmb_file *f, wmb_out *o);

/** An object's kind for messages and extras: "info", "entity", ... */
const char *gsioi_wmb_object_kind(uint32_t type);

#endif
