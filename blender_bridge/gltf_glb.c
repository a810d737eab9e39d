/* The glTF writer's GLB container: header, JSON chunk (the document with
 * its array texts, padded to the room planned for it) and BIN chunk (the
 * buffer, then the images), assembled in memory or written to the placed
 * file, the buffer's bytes there early while the images are still made.
 * Relies on gltf_json.c for the JSON chunk, gltf_buffer.c for the buffer
 * and its spill file, gltf_image.c for the images, and gsioi_place_*
 * (public gsio API) for the file. */
#define _GNU_SOURCE // cpu_set_t (gltf_internal.h)
#include "gltf_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u      // "glTF"
#define GLB_CHUNK_JSON 0x4E4F534Au // "JSON"
#define GLB_CHUNK_BIN 0x004E4942u  // "BIN\0"

/* The GLB is assembled in the binary buffer itself: grown to the total
 * size (realloc moves a large block by remapping its pages, not copying),
 * the binary chunk moved up behind the header and the JSON. A separate GLB
 * buffer would hold the output twice at the peak; this holds it once. */
typedef struct glb_layout {
	size_t json; // the JSON's own length
	size_t jl, jpad, bl, bpad, total; // jl: its room (gsioi_gltf_plan_bounds), at least json
} glb_layout;

static bool glb_plan(gltf_ctx *c, const char *json, glb_layout *g)
{
	g->json = gsioi_gltf_glb_json_len(c, json);
	g->jl = g->json > c->json_room ? g->json : c->json_room;
	g->jpad = (4 - g->jl % 4) % 4;
	g->bl = c->img_bytes + c->bin.size;
	if (g->bl < c->bin.size) g->bl = SIZE_MAX;
	g->bpad = (4 - g->bl % 4) % 4;
	g->total = 12 + 8 + g->jl + g->jpad + (g->bl ? 8 + g->bl + g->bpad : 0);
	if (g->bl > UINT32_MAX || g->total > UINT32_MAX || g->total < g->jl) {
		FAIL(c, GSIO_ERR_LIMIT, "GLB of %zu bytes exceeds 4 GiB", g->total);
		return false;
	}
	return true;
}

/** gsioi_gltf_glb_json_emit() into memory. */
static bool emit_to_memory(void *user, const void *p, size_t n)
{
	uint8_t **at = user;
	memcpy(*at, p, n);
	*at += n;
	return true;
}

/** gsioi_gltf_glb_json_emit() into the placed file: after what was written before,
 *  or (`at_mode`) at `at`. */
typedef struct emit_place {
	gsioi_placing *g;
	gsio_error *err;
	bool at_mode;
	uint64_t at;
} emit_place;

static bool emit_to_place(void *user, const void *p, size_t n)
{
	emit_place *e = user;
	if (!e->at_mode) return !gsioi_place_write(e->g, p, n, e->err);
	if (gsioi_place_write_at(e->g, e->at, p, n, e->err)) return false;
	e->at += n;
	return true;
}

/** n spaces through emit (the JSON chunk's room past the JSON). */
static bool emit_spaces(bool (*emit)(void *user, const void *p, size_t n), void *user, size_t n)
{
	static const char spaces[] = "                                                                ";
	for (size_t k; n; n -= k)
		if (!emit(user, spaces, (k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1))) return false;
	return true;
}

bool gsioi_gltf_make_glb(gltf_ctx *c, const char *json, gsio_gltf_output *out)
{
	glb_layout lay;
	if (!glb_plan(c, json, &lay)) return false;
	size_t jl = lay.jl, jpad = lay.jpad, bl = lay.bl, bpad = lay.bpad, total = lay.total;
	uint8_t *g = realloc(c->bin.data, total);
	if (!g) return gsioi_gltf_fail_nomem(c, "the GLB");
	c->bin.data = g;
	c->bin.cap = total;
	size_t head = 20 + jl + jpad;
	if (bl) {
		// The rest of the buffer first, then the images from their own
		// buffers.
		memmove(g + head + 8, g, c->bin.size);
		uint32_t ch[2] = {(uint32_t)(bl + bpad), GLB_CHUNK_BIN};
		memcpy(g + head, ch, 8);
		uint8_t *img = g + head + 8 + c->bin.size;
		gsioi_gltf_images_emit(c, emit_to_memory, &img);
		memset(g + head + 8 + bl, 0, bpad);
	}
	uint32_t hdr[5] = {GLB_MAGIC, 2, (uint32_t)total, (uint32_t)(jl + jpad), GLB_CHUNK_JSON};
	memcpy(g, hdr, 20);
	uint8_t *at = g + 20;
	gsioi_gltf_glb_json_emit(c, json, emit_to_memory, &at);
	memset(g + 20 + lay.json, ' ', jl - lay.json + jpad);
	char name[512];
	snprintf(name, sizeof(name), "%s.glb", c->name);
	if (!gsioi_gltf_add_file(out, name, g, total)) return gsioi_gltf_fail_nomem(c, "the output list");
	c->bin.data = NULL; // the output owns it now
	c->bin.size = c->bin.cap = 0;
	return true;
}

/* Writing to a file: header, JSON and BIN chunk go straight into the placed
 * file, the BIN from memory or copied from the spill file in the kernel,
 * unless early_bin() put it there already. The bytes are the ones
 * gsioi_gltf_make_glb() assembles. */
bool gsioi_gltf_place_glb(gltf_ctx *c, const char *json)
{
	glb_layout lay;
	if (!glb_plan(c, json, &lay)) return false;
	if (c->bin.spill && !gsioi_gltf_buf_spill(c, true)) return false;
	gsioi_placing *g = c->early;
	c->early = NULL;
	// Where early_bin() wrote it, unless the JSON took more room than the
	// bounds gave it (then it is written again further on).
	bool placed = g && lay.jl == c->early_room;
	if (!g && !(g = gsioi_place_open(c->sink->path, c->err))) return false;
	if (gsioi_place_reserve(g, lay.total, c->err)) {
		gsioi_place_discard(g);
		return false;
	}
	static const uint8_t zeros[3] = {0};
	uint32_t hdr[5] = {GLB_MAGIC, 2, (uint32_t)lay.total, (uint32_t)(lay.jl + lay.jpad), GLB_CHUNK_JSON};
	emit_place e = {g, c->err, false, 0};
	bool ok = !gsioi_place_write(g, hdr, sizeof(hdr), c->err) && gsioi_gltf_glb_json_emit(c, json, emit_to_place, &e) &&
	          emit_spaces(emit_to_place, &e, lay.jl - lay.json + lay.jpad);
	if (ok && lay.bl) {
		uint32_t ch[2] = {(uint32_t)(lay.bl + lay.bpad), GLB_CHUNK_BIN};
		ok = !gsioi_place_write(g, ch, sizeof(ch), c->err);
		if (placed) // the images after it, at their offset
			e = (emit_place){g, c->err, true, 20 + (uint64_t)lay.jl + lay.jpad + 8 + c->bin.size};
		else if (ok && c->bin.spill)
			ok = !gsioi_place_append(g, c->bin.spill, c->err);
		else if (ok)
			ok = !gsioi_place_write(g, c->bin.data, c->bin.size, c->err);
		ok = ok && gsioi_gltf_images_emit(c, emit_to_place, &e) && emit_to_place(&e, zeros, lay.bpad);
	}
	if (!ok) {
		gsioi_place_discard(g);
		return false;
	}
	return gsioi_place_commit(g, c->sink->no_replace, c->err) == 0;
}

/** Writing a GLB to a file: the buffer's bytes but the images go to their
 *  place in it now, past the room the JSON chunk gets (json_room), while
 *  the helper may still be making images: golem's and human's 4.8 MB
 *  written while their 512 x 512 skin is finished (0.93 and 0.915 of the
 *  conversion's time, 41 paired runs). gsioi_gltf_place_glb() writes the rest. */
static bool early_bin(gltf_ctx *c)
{
	uint64_t at = 20 + (uint64_t)((c->json_room + 3) & ~(size_t)3) + 8;
	gsioi_placing *g = gsioi_place_open(c->sink->path, c->err);
	if (!g) return false;
	if (gsioi_place_reserve(g, at + c->bin.size, c->err) ||
	    gsioi_place_write_at(g, at, c->bin.data, c->bin.size, c->err)) {
		gsioi_place_discard(g);
		return false;
	}
	c->early = g;
	c->early_room = c->json_room;
	return true;
}

/** A GLB's images made and placed, and what depends on their sizes set:
 *  first the room the JSON chunk gets (gsioi_gltf_plan_bounds) from the document
 *  printed with the bounds; then, writing to a file, the rest of the
 *  buffer written (early_bin); then the images waited for, their views
 *  printed again and the buffer's length set. */
bool gsioi_gltf_glb_images(gltf_ctx *c)
{
	char *doc = cJSON_PrintUnformatted(c->root);
	if (!doc) return gsioi_gltf_fail_nomem(c, "printing JSON");
	c->json_room = gsioi_gltf_glb_json_len(c, doc);
	free(doc);
	if (c->sink && !c->bin.spill && c->bin.size && c->jobs_count && !early_bin(c)) return false;
	if (!gsioi_gltf_images_place(c)) return false;
	jtext *t = &c->jt[JT_VIEWS];
	gsioi_gltf_emit_views(c, false);
	if (t->n) gsioi_gltf_jtext_close(t); // as gsioi_gltf_jtext_take() closed it
	cJSON *n = c->buffer ? gsioi_gltf_jnumber((double)(c->bin.size + c->img_bytes)) : NULL;
	if (c->buffer && (!n || !cJSON_ReplaceItemInObjectCaseSensitive(c->buffer, "byteLength", n))) {
		cJSON_Delete(n);
		return gsioi_gltf_fail_nomem(c, "the JSON document");
	}
	return !c->json_failed || gsioi_gltf_fail_nomem(c, "the JSON document");
}
