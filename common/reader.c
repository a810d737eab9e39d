/* The bounded little-endian reader and the growable writer. */
#include "gsioi_internal.h"

#include <stdlib.h>

// -- Reader

bool gsioi_reader_need(gsioi_reader *r, size_t n, const char *what)
{
	if (r->failed) return false;
	// pos past size (a caller that shrank size) counts as no room at all.
	size_t left = gsioi_reader_remaining(r);
	if (n > left) {
		r->failed = true;
		GSIO_FAIL(r->err, GSIO_ERR_TRUNCATED, r->file, (int64_t)r->pos,
		          "file ends inside %s (needs %zu bytes, %zu left)", what, n, left);
		return false;
	}
	return true;
}

const uint8_t *gsioi_read_bytes(gsioi_reader *r, size_t n, const char *what)
{
	if (!gsioi_reader_need(r, n, what)) return NULL;
	const uint8_t *p = r->data + r->pos;
	r->pos += n;
	return p;
}

bool gsioi_read_u8(gsioi_reader *r, uint8_t *v, const char *what)
{
	const uint8_t *p = gsioi_read_bytes(r, 1, what);
	if (!p) return false;
	*v = p[0];
	return true;
}

bool gsioi_read_u16(gsioi_reader *r, uint16_t *v, const char *what)
{
	const uint8_t *p = gsioi_read_bytes(r, 2, what);
	if (!p) return false;
	*v = gsioi_le16(p);
	return true;
}

bool gsioi_read_i16(gsioi_reader *r, int16_t *v, const char *what)
{
	uint16_t u;
	if (!gsioi_read_u16(r, &u, what)) return false;
	memcpy(v, &u, 2);
	return true;
}

bool gsioi_read_u32(gsioi_reader *r, uint32_t *v, const char *what)
{
	const uint8_t *p = gsioi_read_bytes(r, 4, what);
	if (!p) return false;
	*v = gsioi_le32(p);
	return true;
}

bool gsioi_read_i32(gsioi_reader *r, int32_t *v, const char *what)
{
	uint32_t u;
	if (!gsioi_read_u32(r, &u, what)) return false;
	memcpy(v, &u, 4);
	return true;
}

bool gsioi_read_f32(gsioi_reader *r, float *v, const char *what)
{
	const uint8_t *p = gsioi_read_bytes(r, 4, what);
	if (!p) return false;
	*v = gsioi_lef32(p);
	return true;
}

// -- Writer

static bool writer_reserve(gsioi_writer *w, size_t n)
{
	if (w->failed) return false;
	size_t limit = w->limit ? w->limit : GSIO_DEFAULT_MEMORY_LIMIT;
	size_t need;
	if (!gsioi_add_size(w->size, n, &need) || need > limit) {
		w->failed = true;
		return false;
	}
	if (need <= w->capacity) return true;
	size_t cap = w->capacity ? w->capacity : 4096;
	while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	uint8_t *d;
	if (w->allocator && w->allocator->alloc) {
		// Hooks have no realloc: a new block, the bytes so far, the old one freed.
		d = w->allocator->alloc(w->allocator->user, cap);
		if (d) {
			if (w->size) memcpy(d, w->data, w->size);
			if (w->data) {
				if (w->allocator->free) w->allocator->free(w->allocator->user, w->data);
			}
		}
	} else {
		d = realloc(w->data, cap);
	}
	if (!d) {
		w->failed = true;
		return false;
	}
	w->data = d;
	w->capacity = cap;
	return true;
}

bool gsioi_write_bytes(gsioi_writer *w, const void *src, size_t n)
{
	if (!writer_reserve(w, n)) return false;
	if (n) memcpy(w->data + w->size, src, n);
	w->size += n;
	return true;
}

bool gsioi_write_zeros(gsioi_writer *w, size_t n)
{
	if (!writer_reserve(w, n)) return false;
	memset(w->data + w->size, 0, n);
	w->size += n;
	return true;
}

bool gsioi_write_u8(gsioi_writer *w, uint8_t v)
{
	return gsioi_write_bytes(w, &v, 1);
}

bool gsioi_write_u16(gsioi_writer *w, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	return gsioi_write_bytes(w, b, 2);
}

bool gsioi_write_i16(gsioi_writer *w, int16_t v)
{
	uint16_t u;
	memcpy(&u, &v, 2);
	return gsioi_write_u16(w, u);
}

bool gsioi_write_u32(gsioi_writer *w, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	return gsioi_write_bytes(w, b, 4);
}

bool gsioi_write_i32(gsioi_writer *w, int32_t v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	return gsioi_write_u32(w, u);
}

bool gsioi_write_f32(gsioi_writer *w, float v)
{
	uint32_t u;
	memcpy(&u, &v, 4);
	return gsioi_write_u32(w, u);
}

void gsioi_writer_free(gsioi_writer *w)
{
	if (w->allocator && w->allocator->alloc) {
		if (w->data && w->allocator->free) w->allocator->free(w->allocator->user, w->data);
	} else {
		free(w->data);
	}
	memset(w, 0, sizeof(*w));
}
