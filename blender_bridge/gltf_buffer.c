/* The glTF writer's binary buffer (the GLB's BIN chunk or the .bin file):
 * bytes appended in memory, in a reserved mapping with huge pages where
 * they pay, or spilled to a file past bin.limit when writing to one; the
 * buffer views recorded and printed (an image's once its size is known);
 * float accessors over views of their own. Relies on gltf_json.c for the
 * views' and accessors' JSON and on gsioi_place_* (public gsio API) for the
 * spill file. */
#define _GNU_SOURCE // mmap's MAP_ANONYMOUS and MAP_NORESERVE, madvise's MADV_HUGEPAGE, cpu_set_t
#include "gltf_internal.h"
#include "gsioi_huge_pages.h" // header-only: no symbol of libgsio's internals

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Buffer views and accessors as JSON

/** A buffer view of `size` bytes at `off` of buffer 0 past the images (job
 *  -1), or image job `job`'s; its index or -1. Printed by gsioi_gltf_emit_views() when
 *  the images' sizes are known. */
int gsioi_gltf_view_record(gltf_ctx *c, size_t off, size_t size, int stride, int target, int job)
{
	if (c->vrec_n == c->vrec_cap) {
		size_t cap = c->vrec_cap ? 2 * c->vrec_cap : 64;
		view_rec *v = cap < INT32_MAX ? realloc(c->vrec, cap * sizeof(*v)) : NULL;
		if (!v) {
			gsioi_gltf_fail_nomem(c, "the buffer views");
			return -1;
		}
		c->vrec = v;
		c->vrec_cap = cap;
	}
	c->vrec[c->vrec_n] = (view_rec){off, size, stride, target, job};
	return (int)c->vrec_n++;
}

int gsioi_gltf_view_json(gltf_ctx *c, size_t off, size_t size, int stride, int target)
{
	return gsioi_gltf_view_record(c, off, size, stride, target, -1);
}

/** Prints every buffer view, in the order they were made: an image's past
 *  the rest of the buffer (a GLB's; a .gltf's images are files), at its
 *  offset and size, or, with `bounds`, at those the images' bounds give
 *  (gsioi_gltf_plan_bounds). A GLB's views go straight into their text, which
 *  gsioi_gltf_glb_images() makes again with the images' sizes; a .gltf's into the
 *  array. */
void gsioi_gltf_emit_views(gltf_ctx *c, bool bounds)
{
	jtext *t = c->separate ? NULL : &c->jt[JT_VIEWS];
	if (t) t->len = t->n = 0;
	for (size_t i = 0; i < c->vrec_n; i++) {
		const view_rec *v = &c->vrec[i];
		const image_job *j = v->job >= 0 ? &c->jobs[v->job] : NULL;
		size_t off = j ? c->bin.size + (bounds ? j->boff : j->off) : v->off;
		size_t size = j ? (bounds ? j->bound : j->size) : v->size;
		jbuild b;
		gsioi_gltf_jb_start(c, &b);
		gsioi_gltf_jb_int(&b, "buffer", 0);
		if (off) gsioi_gltf_jb_int(&b, "byteOffset", off);
		gsioi_gltf_jb_int(&b, "byteLength", size);
		if (v->stride) gsioi_gltf_jb_int(&b, "byteStride", (size_t)v->stride);
		if (v->target) gsioi_gltf_jb_int(&b, "target", (size_t)v->target);
		if (!t) {
			gsioi_gltf_jb_push(&b, c->views);
			continue;
		}
		if (!gsioi_gltf_jtext_append(t, gsioi_gltf_jb_end(&b))) c->json_failed = true;
	}
}

/** A float accessor over a whole view, with min/max (ncomp <= 16 floats
 *  each) unless they are NULL; its index or -1. */
int gsioi_gltf_float_accessor_json(gltf_ctx *c, int view, size_t count, int ncomp, const float *mn,
                             const float *mx)
{
	jbuild b;
	gsioi_gltf_jb_start(c, &b);
	if (!b.obj && ncomp > 16) b.obj = gsioi_gltf_jobj(c); // past the text's room (no glTF type is)
	gsioi_gltf_jb_int(&b, "bufferView", (size_t)view);
	gsioi_gltf_jb_int(&b, "componentType", GLTF_FLOAT);
	gsioi_gltf_jb_int(&b, "count", count);
	gsioi_gltf_jb_str(&b, "type", gsioi_gltf_type_name(ncomp));
	if (mn && mx) {
		gsioi_gltf_jb_floats(&b, "min", mn, ncomp);
		gsioi_gltf_jb_floats(&b, "max", mx, ncomp);
	}
	return gsioi_gltf_jb_push(&b, c->accessors);
}

// -- The binary buffer

static bool broken(byte_buf *b)
{
	b->failed = true;
	return false;
}

/* A GLB's binary buffer when writing to a file: the address space for
 * b->limit bytes reserved once (MAP_NORESERVE: pages are made as they are
 * first written, so a small file costs what it uses), aligned to a huge
 * page, so it never moves or copies as it grows. False when the mapping
 * fails: the caller grows a malloc'd buffer instead. The GLB made in
 * memory (gsio_gltf_write) and a .bin handed to the caller stay malloc'd:
 * they are the caller's to free(). */
static bool map_buffer(byte_buf *b)
{
	uint8_t *at = gsioi_map_reserved(b->limit, &b->map, &b->map_size);
	if (!at) return false;
	b->data = at;
	b->cap = b->limit;
	b->advised = 0;
	return true;
}

/* A lower bound of the bytes the BIN gets before the images (the part made
 * in memory; the images are placed after it at the end): what a mesh
 * surely writes (a vertex: 12 bytes of position, 12 of normal, 8 of uv;
 * compact: 8 of position; a morph target's 12 + 12 a vertex, 4 compact,
 * none sparse) and an animation's translation, rotation and scale keys with
 * their times. Meshes that share another's positions are not counted
 * (they may share its accessors). */
size_t gsioi_gltf_bin_before_images(const gltf_ctx *c)
{
	double bytes = 0;
	for (size_t i = 0; i < c->s->meshes_count; i++) {
		const gsio_mesh *m = &c->s->meshes[i];
		if (c->same_first[i] != SIZE_MAX && c->same_first[i] != i) continue;
		double nv = (double)m->vertex_count, nrm = m->normals ? 12 : 0;
		bytes += ((c->compact ? 8 : 12 + nrm + (m->uvs ? 8 : 0)) + (m->lightmap_uvs ? 8 : 0)) * nv;
		if (c->animate && m->frames_count >= 2 && !c->sparse)
			bytes += (c->compact ? 4 : 12 + nrm) * nv * (double)m->frames_count;
	}
	for (size_t i = 0; c->animate && i < c->s->animations_count; i++) {
		const gsio_animation *an = &c->s->animations[i];
		double keys = (double)an->frames_count, vals = 0;
		for (size_t k = 0; k < an->channels_count; k++) {
			gsio_channel_path p = an->channels[k].path;
			if (p == GSIO_PATH_TRANSLATION || p == GSIO_PATH_SCALE) vals += 3;
			if (p == GSIO_PATH_ROTATION) vals += 4;
		}
		if (vals > 0) bytes += 4 * keys * (vals + 1);
	}
	return bytes < (double)SIZE_MAX / 2 ? (size_t)bytes : SIZE_MAX / 2;
}

/* How much of a 2 MiB block after the first the BIN must surely fill for
 * the block to be a huge page: a huge page costs one fault and 2 MiB of
 * memory, 4 KiB pages a fault each (about 2 us on this machine, allocation
 * and zeroing included: human's last 1.2 MB in 4 KiB pages made its
 * conversion 6% slower end to end). Below a quarter, at most 128 faults;
 * above, at most 1.5 MiB unused. */
#define HUGE_BLOCK_FILL (GSIO_HUGE_PAGE / 4)

/* And what a later block's huge page leaves unused must be at most a third
 * of the BIN (the memory goal's measure is the output's size): a 2.85 MiB
 * BIN (cbabe_male 2.mdl) fills 0.85 MiB of its second block, 1.15 MiB
 * unused, more than a third: 4 KiB pages there (its data peak 1.8 times
 * input + output where a huge page makes it 2.11, for about 220 more
 * faults); golem's 4.74 MiB leaves
 * 1.26 MiB of its third, under a third (at a quarter it would not be:
 * golem is the file furthest over the end-to-end line). */
#define HUGE_WASTE_DIV 3

/* Transparent huge pages (2 MiB; Linux THP in "madvise" mode, as on Debian
 * 12) for the mapped buffer's 2 MiB blocks: the first when the BIN surely
 * fills it (a small output must not cost a 2 MiB page), a later one when
 * the BIN surely fills a quarter of it and leaves at most a third of the
 * BIN's size of it unused (HUGE_WASTE_DIV). Each block is decided when a
 * reservation first reaches into it, before its first byte is written
 * (advice after that is too late). Advice by the expected size alone
 * (every block when more than 2 MiB is expected, else every block past
 * the first) would make a last block only begun a nearly empty huge page
 * (up to 2 MB of peak RSS). The BIN surely reaches the bytes so far and
 * those reserved, and at least gsioi_gltf_bin_before_images(). */
static void advise_ahead(gltf_ctx *c, size_t more)
{
	byte_buf *b = &c->bin;
	size_t held_end = b->size - b->spilled + more;
	size_t surely = b->size + more;
	if (c->bin_surely > surely) surely = c->bin_surely;
	while (b->advised < held_end && b->advised < b->cap) {
		size_t block_end = b->advised + GSIO_HUGE_PAGE; // in memory; + spilled in the BIN
		size_t start = b->advised + b->spilled; // the block's first byte in the BIN
		bool huge = block_end <= b->cap && start + (start ? HUGE_BLOCK_FILL : GSIO_HUGE_PAGE) <= surely;
		if (huge && start) {
			size_t fill = surely - start < GSIO_HUGE_PAGE ? surely - start : GSIO_HUGE_PAGE;
			huge = (GSIO_HUGE_PAGE - fill) <= surely / HUGE_WASTE_DIV;
		}
		if (huge) gsioi_advise_huge(b->data + b->advised, GSIO_HUGE_PAGE);
		b->advised = block_end;
	}
}

void gsioi_gltf_buf_free(byte_buf *b)
{
	if (b->map)
		gsioi_unmap_reserved(b->map, b->map_size);
	else
		free(b->data);
	b->map = NULL;
	b->data = NULL;
	b->size = b->cap = 0;
}

static bool buf_reserve(gltf_ctx *c, size_t more)
{
	byte_buf *b = &c->bin;
	size_t held = b->size - b->spilled;
	if (b->map && held + more > b->advised) advise_ahead(c, more);
	if (held + more <= b->cap) return true;
	if (!b->cap && c->sink && !c->separate && more <= b->limit && map_buffer(b)) {
		advise_ahead(c, more);
		return true;
	}
	if (b->map) { // the spill rules keep a mapped buffer within its limit
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer: %zu bytes past its %zu", held + more, b->cap);
		return broken(b);
	}
	size_t cap = b->cap ? b->cap : 65536;
	while (cap < held + more) cap = cap > BUFFER_LIMIT / 2 ? BUFFER_LIMIT : cap * 2;
	uint8_t *d = realloc(b->data, cap);
	if (!d) {
		gsioi_gltf_fail_nomem(c, "the binary buffer");
		return broken(b);
	}
	b->data = d;
	b->cap = cap;
	return true;
}

/** Writes the bytes held in memory to the spill file, opening it first: an
 *  unnamed temporary beside the GLB, or the .bin itself (SEPARATE). Unless
 *  `all`, the bytes past the buffer's last 4-byte boundary stay in memory,
 *  at data[0]: `spilled` stays a multiple of 4, so a view that starts on a
 *  4-byte offset of the buffer starts on one in memory too (gsioi_gltf_view_room()
 *  hands out floats there, which a spill after an odd-sized write would
 *  otherwise leave misaligned). */
bool gsioi_gltf_buf_spill(gltf_ctx *c, bool all)
{
	byte_buf *b = &c->bin;
	if (!b->spill) {
		if (c->separate) {
			char path[4200];
			int n = snprintf(path, sizeof(path), "%.*s%s.bin", (int)c->sink->dir_len, c->sink->path, c->name);
			if (n < 0 || (size_t)n >= sizeof(path)) {
				FAIL(c, GSIO_ERR_ARGUMENT, "path too long: %s", c->sink->path);
				return false;
			}
			b->spill = gsioi_place_open(path, c->err);
		} else {
			b->spill = gsioi_place_scratch(c->sink->path, c->err);
		}
		if (!b->spill) return false;
	}
	size_t held = b->size - b->spilled, keep = all ? 0 : b->size % 4;
	if (held > keep && gsioi_place_write(b->spill, b->data, held - keep, c->err)) return false;
	if (keep) memmove(b->data, b->data + held - keep, keep);
	b->spilled = b->size - keep;
	return true;
}

/** Appends size bytes to the buffer, zeros when data is NULL. A failure is
 *  sticky: some callers only pass a -1 view on, and the write must still
 *  fail with the first error (a full disk, say). */
bool gsioi_gltf_buf_append(gltf_ctx *c, const void *data, size_t size)
{
	byte_buf *b = &c->bin;
	if (b->failed) return false;
	if (size > BUFFER_LIMIT - b->size) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF buffer exceeds 4 GiB");
		return broken(b);
	}
	if (c->sink && b->size - b->spilled + size > b->limit) {
		if (!gsioi_gltf_buf_spill(c, false)) return broken(b);
		if (data && size >= b->limit) {
			// Straight to the file after the bytes kept in memory, but for
			// its own bytes past the last 4-byte boundary, which are kept.
			size_t kept = b->size - b->spilled, end = b->size + size, tail = end % 4;
			if (tail && !buf_reserve(c, tail)) return false;
			if ((kept && gsioi_place_write(b->spill, b->data, kept, c->err)) ||
			    gsioi_place_write(b->spill, data, size - tail, c->err))
				return broken(b);
			if (tail) memcpy(b->data, (const uint8_t *)data + size - tail, tail);
			b->size = end;
			b->spilled = end - tail;
			return true;
		}
	}
	if (!size) return true;
	if (!buf_reserve(c, size)) return false;
	uint8_t *at = b->data + (b->size - b->spilled);
	if (data)
		memcpy(at, data, size);
	else
		memset(at, 0, size);
	b->size += size;
	return true;
}

bool gsioi_gltf_buffer_align(gltf_ctx *c)
{
	return gsioi_gltf_buf_append(c, NULL, (4 - c->bin.size % 4) % 4);
}

/** Appends bytes as a new buffer view (4-byte aligned) with a byteStride
 *  when `stride` is not 0. Returns its index or -1. */
int gsioi_gltf_add_view_strided(gltf_ctx *c, const void *data, size_t size, int target, int stride)
{
	if (!gsioi_gltf_buffer_align(c)) return -1;
	size_t off = c->bin.size;
	if (!gsioi_gltf_buf_append(c, data, size)) return -1;
	return gsioi_gltf_view_json(c, off, size, stride, target);
}

int gsioi_gltf_add_view(gltf_ctx *c, const void *data, size_t size, int target)
{
	return gsioi_gltf_add_view_strided(c, data, size, target, 0);
}

void gsioi_gltf_min_max(const float *v, size_t count, int ncomp, float *mn, float *mx)
{
	for (int k = 0; k < ncomp; k++) mn[k] = mx[k] = 0;
	for (size_t i = 0; i < count; i++)
		for (int k = 0; k < ncomp; k++) {
			float x = v[i * (size_t)ncomp + (size_t)k];
			if (i == 0 || x < mn[k]) mn[k] = x;
			if (i == 0 || x > mx[k]) mx[k] = x;
		}
}

/** A float accessor over its own view, with the given min/max (of `ncomp`
 *  floats each) unless they are NULL. Returns the accessor index or -1. */
int gsioi_gltf_float_accessor_mm(gltf_ctx *c, const float *data, size_t count, int ncomp,
                           const float *mn, const float *mx, int target)
{
	size_t bytes;
	if (!gsioi_gltf_mul_size(count, (size_t)ncomp * sizeof(float), &bytes)) {
		FAIL(c, GSIO_ERR_LIMIT, "glTF accessor size overflows");
		return -1;
	}
	int view = gsioi_gltf_add_view(c, data, bytes, target);
	if (view < 0) return -1;
	return gsioi_gltf_float_accessor_json(c, view, count, ncomp, mn, mx);
}

/** A float accessor over its own view. min/max when asked (POSITION,
 *  animation inputs). Returns the accessor index or -1. */
int gsioi_gltf_float_accessor(gltf_ctx *c, const float *data, size_t count, int ncomp,
                        bool with_min_max, int target)
{
	float mn[16], mx[16];
	if (with_min_max) gsioi_gltf_min_max(data, count, ncomp, mn, mx);
	return gsioi_gltf_float_accessor_mm(c, data, count, ncomp, with_min_max ? mn : NULL,
	                              with_min_max ? mx : NULL, target);
}

// -- Views filled in place

/** Room at the end of the binary buffer for a new view of `bytes` bytes,
 *  4-byte aligned, in memory: filled by the caller, then claimed with
 *  gsioi_gltf_add_claimed_view(). NULL when such a view would be written past memory
 *  (bin.limit or more: gsioi_gltf_add_view() from the caller's array instead) or on
 *  failure (then c->bin.failed or err is set). The bytes are the ones
 *  gsioi_gltf_add_view() would write. */
float *gsioi_gltf_view_room(gltf_ctx *c, size_t bytes)
{
	if (c->sink && bytes >= c->bin.limit) return NULL;
	if (!gsioi_gltf_buffer_align(c)) return NULL;
	byte_buf *b = &c->bin;
	if (c->sink && b->size - b->spilled + bytes > b->limit && !gsioi_gltf_buf_spill(c, false)) {
		broken(b);
		return NULL;
	}
	if (bytes > BUFFER_LIMIT - b->size) return NULL; // gsioi_gltf_buf_append reports it
	if (!buf_reserve(c, bytes ? bytes : 1)) return NULL;
	return (float *)(void *)(b->data + (b->size - b->spilled));
}

/** The `bytes` filled at gsioi_gltf_view_room() as a buffer view; its index or -1. */
int gsioi_gltf_add_claimed_view(gltf_ctx *c, size_t bytes, int target)
{
	size_t off = c->bin.size;
	c->bin.size += bytes;
	return gsioi_gltf_view_json(c, off, bytes, 0, target);
}
