/* Helpers shared by the glTF writer's tests (test_gltf_*.c): a GLB written
 * in memory and read back (JSON with cJSON, buffers and accessors by hand,
 * images with libspng), and the small synthetic scenes they write. */
#ifndef GSIO_GLTF_TEST_UTIL_H
#define GSIO_GLTF_TEST_UTIL_H

#include "test_util.h"

#include "gsio_gltf.h"

#include <cjson/cJSON.h>

// -- Reading a GLB back

/** A GLB written by gsio_gltf_write (out), its JSON parsed (doc) and its BIN
 *  chunk (bin, bin_size; NULL and 0 without one). */
typedef struct glb {
	gsio_gltf_output out;
	cJSON *doc;
	const uint8_t *bin;
	size_t bin_size;
} glb;

/** The little-endian 32-bit word at p. */
uint32_t rd32(const uint8_t *p);
/** Parses a GLB held in data: header, JSON chunk, optional BIN chunk. */
void glb_parse(glb *g, const uint8_t *d, size_t n);
/** Writes s as one GLB in memory with these flags and scale, and parses it. */
void glb_write(glb *g, const gsio_scene *s, uint32_t flags, float scale);
void glb_free(glb *g);
/** Member `key` of doc (an array, or NULL). */
cJSON *arr(const cJSON *doc, const char *key);
/** Member `key` of o as an int, dflt when it is no number. */
int num(const cJSON *o, const char *key, int dflt);
/** Element i of the array doc[key] (fails the test when there is none). */
const cJSON *item(const cJSON *doc, const char *key, int i);
/** Member `key` of o as a string, NULL when it is none. */
const char *str(const cJSON *o, const char *key);
/** The bytes of buffer view `view` in the BIN chunk and their count; the
 *  view must be tightly packed (no byteStride). */
const uint8_t *view_bytes(const glb *g, int view, size_t *size);
/** Reads any accessor (dense, sparse or all-zero) as doubles; returns count
 *  and fills *ncomp. Caller frees. */
double *read_accessor(const glb *g, int index, size_t *count, int *ncomp);
/** Checks the accessor's min/max equal the data's exactly (the validator's
 *  rule) and returns them. */
void check_min_max(const glb *g, int index, double *mn, double *mx);
/** The first primitive of glTF mesh `mesh`. */
const cJSON *primitive(const glb *g, int mesh);
/** The accessor index of attribute `name` of prim, -1 when absent. */
int attribute(const cJSON *prim, const char *name);
/** A PNG decoded by libspng (an independent reader) to RGBA8, malloc'd. */
uint8_t *decode_png(const uint8_t *p, size_t size, uint32_t *w, uint32_t *h);
/** Decodes a PNG held in an image (bufferView) to RGBA8. */
uint8_t *decode_image(const glb *g, int image, uint32_t *w, uint32_t *h);
/** With GSIO_GLTF_DUMP_DIR set, writes g's GLB there as `name`. */
void dump(const glb *g, const char *name);

// -- Synthetic scenes (public builder)

/** An empty scene (gsio_scene_new), failing the test when it cannot. */
gsio_scene *new_scene(void);
/** A triangle mesh (a known point (1,2,3), up normals, uvs) with one
 *  material and a 2x1 image; no node. Returns the mesh index. */
int32_t add_triangle(gsio_scene *s, const char *name, int32_t material);
/** A valid scene of one triangle mesh (add_triangle) placed by one node,
 *  its material showing a 2x1 image (red, half-transparent blue). */
gsio_scene *triangle_scene(void);
/** A triangle with `frames` morph frames (vertex 0 moves up by f in frame f)
 *  and, with frames >= 1, an animation whose MORPH channel plays them. */
gsio_scene *morph_scene(size_t frames);

#endif
