/* gsio internals shared by the codecs: error raising, overflow-checked size
 * math, the arena, the bounded little-endian reader and the growable writer.
 * Not installed; not part of the public API. */
#ifndef GSIOI_INTERNAL_H
#define GSIOI_INTERNAL_H

#include "gsio.h"

#include "gsioi_math.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

// -- Errors

/** Fills err (if non-NULL) unless it already holds an error. Returns 0 so
 *  callers can `return gsio_fail(...)` from functions returning int/pointers. */
int gsioi_fail_at(gsio_error *err, gsio_error_code code, const char *file, int64_t offset,
                 int32_t line, int32_t column, const char *src_file, int src_line,
                 const char *fmt, ...) GSIO_PRINTF(9, 10);

// -- Text from files (text.c)

/** Text from a file as UTF-8 (docs/DESIGN.md, Scene conventions): valid
 *  UTF-8 sequences are kept, every other byte is read as CP1252 (0xFC "ü",
 *  0x80 "€"), control characters become '?'. Reads up to n bytes or the
 *  first NUL; writes whole characters, at most size - 1 bytes, and a NUL
 *  (dst NULL: only counts). Returns the length of the text written. */
size_t gsioi_text_utf8(char *dst, size_t size, const char *src, size_t n);
/** gsioi_text_utf8() of up to n bytes of src into arena, at its length;
 *  NULL (err set) when out of memory. Names enter the scene through it. */
char *gsioi_text_utf8_dup(gsio_arena *arena, const char *src, size_t n, gsio_error *err);
/** A UTF-8 name as GameStudio stores names (Windows' CP1252), for the
 *  writers: into dst (size bytes with the NUL), one byte a character, cut
 *  where it does not fit. A name with a character CP1252 has not is copied
 *  as UTF-8 instead, cut before a character that would not fit whole, and
 *  false returned. Bytes that are not UTF-8 are copied as they are. */
bool gsioi_text_cp1252(char *dst, size_t size, const char *src);
/** gsioi_text_utf8() in place, for messages and warnings (they quote bytes
 *  from files): s holds a NUL-terminated text of at most 1023 bytes in a
 *  buffer of `size` bytes; the result is cut at a character to fit. */
void gsioi_text_sanitize(char *s, size_t size);
/** Folds UTF-8 text (from gsioi_text_utf8) for comparing file names, in
 *  place: ASCII and the Latin-1 and CP1252 capitals (À-Þ, Š, Œ, Ž, Ÿ) to
 *  lower case, the same length. */
void gsioi_text_fold(char *s);

#define GSIO_FAIL(err, code, file, offset, ...) \
	gsioi_fail_at((err), (code), (file), (offset), 0, 0, __FILE__, __LINE__, __VA_ARGS__)
#define GSIO_FAIL_LINE(err, code, file, line, col, ...) \
	gsioi_fail_at((err), (code), (file), -1, (line), (col), __FILE__, __LINE__, __VA_ARGS__)

/** `CHECK(cond)` inside functions that return bool: on false, return false.
 *  The failing step has already filled the error. */
#define GSIO_CHECK(cond) \
	do { \
		if (!(cond)) return false; \
	} while (0)

// -- Processor features

/* SSSE3's byte shuffle (every x86-64 processor since 2006) where the build's
 * baseline is SSE2: functions marked GSIOI_TARGET_SSSE3 are compiled for it
 * and called only when gsioi_has_ssse3() says so at run time (glibc's
 * reading, or CPUID, asked once, then a load: common/pixels.c). Pixel packing and
 * DXT decoding use it. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GSIOI_HAVE_SSSE3 1
#define GSIOI_TARGET_SSSE3 __attribute__((target("ssse3")))
bool gsioi_has_ssse3(void);
#endif

// -- Size math

static inline GSIO_NODISCARD bool gsioi_mul_size(size_t a, size_t b, size_t *out)
{
	if (a != 0 && b > SIZE_MAX / a) return false;
	*out = a * b;
	return true;
}

static inline GSIO_NODISCARD bool gsioi_add_size(size_t a, size_t b, size_t *out)
{
	if (b > SIZE_MAX - a) return false;
	*out = a + b;
	return true;
}

/** a*b*c, false on overflow. */
static inline GSIO_NODISCARD bool gsioi_mul3_size(size_t a, size_t b, size_t c, size_t *out)
{
	size_t ab;
	return gsioi_mul_size(a, b, &ab) && gsioi_mul_size(ab, c, out);
}

// -- Arena

/** Creates an arena. allocator may be NULL; limit 0 means the default. */
gsio_arena *gsioi_arena_create(const gsio_allocator *allocator, size_t limit);
void gsioi_arena_destroy(gsio_arena *arena);
/** An arena per the options (allocator, memory limit), or NULL with a
 *  GSIO_ERR_NOMEM error naming `name`. */
gsio_arena *gsioi_arena_for(const gsio_opts *opts, const char *name, gsio_error *err);
/** A new, empty arena with a's allocator and memory limit (scratch a
 *  function frees before it returns), or NULL with a GSIO_ERR_NOMEM error
 *  naming `name`. */
gsio_arena *gsioi_arena_like(const gsio_arena *a, const char *name, gsio_error *err);
/** The start every binary codec decode shares: clears err, checks the
 *  arguments, creates an arena, allocates the zeroed file struct
 *  (struct_size bytes) in it and, unless `borrow`, a copy of the input.
 *  Returns the struct, with *bytes the input to read (the copy, or data
 *  itself when borrowing), or NULL with err set. The struct's arena is
 *  *arena; destroy it on failure. */
void *gsioi_codec_begin(const uint8_t *data, size_t size, const char *name, const gsio_opts *opts,
                       bool borrow, size_t struct_size, gsio_arena **arena, const uint8_t **bytes,
                       gsio_error *err);
/** Zeroed memory, 16-byte aligned, or NULL (and err filled) when the limit or
 *  the allocator says no. size 0 returns a valid non-NULL pointer. */
void *gsioi_arena_alloc(gsio_arena *arena, size_t size, gsio_error *err);
/** count*size bytes, overflow-checked. */
void *gsioi_arena_array(gsio_arena *arena, size_t count, size_t size, gsio_error *err);
/** The same without zeroing, for buffers the caller fills completely. */
void *gsioi_arena_alloc_uninit(gsio_arena *arena, size_t size, gsio_error *err);
void *gsioi_arena_array_uninit(gsio_arena *arena, size_t count, size_t size, gsio_error *err);
/** A growable array's new room (count <= n): an array of n elements of
 *  `size` bytes (not zeroed) with the `count` elements at old copied to its
 *  start, or NULL (and err filled). The old array stays in the arena, as
 *  everything does until the arena goes: callers that know their final
 *  count ask for it once. */
void *gsioi_arena_regrow(gsio_arena *arena, const void *old, size_t count, size_t n, size_t size,
                         gsio_error *err);
/** An array that grows one element at a time (a list of extras) with
 *  room for `count` + 1 elements of `size` bytes, the first `count` those at
 *  items: items itself when it is the array this function returned last,
 *  with `count` elements as it left it, and has room; else a new array
 *  with twice the room (at least 4), the elements copied. Only that one
 *  array and count are ever grown in place, so an array made elsewhere, or
 *  a copy of a list that shares its array, is copied, never written past.
 *  The new element is not zeroed. NULL (and err filled) on failure. */
void *gsioi_arena_append(gsio_arena *arena, void *items, size_t count, size_t size, gsio_error *err);
char *gsioi_arena_strdup(gsio_arena *arena, const char *s, gsio_error *err);
char *gsioi_arena_strndup(gsio_arena *arena, const char *s, size_t n, gsio_error *err);
/** Bytes handed out so far. */
size_t gsioi_arena_used(const gsio_arena *arena);
/** True once the arena's memory limit has refused a request: what tells a
 *  load that has run out of its budget from a file refused for its own
 *  size (both GSIO_ERR_LIMIT). */
bool gsioi_arena_refused(const gsio_arena *arena);
/** Makes the arena free() `block` (from malloc, `size` bytes) when it is
 *  destroyed; its size counts toward the memory limit as an allocation of
 *  the arena would. False (err set: nomem, or GSIO_ERR_LIMIT; block not
 *  taken) on failure. */
GSIO_NODISCARD bool gsioi_arena_keep(gsio_arena *arena, void *block, size_t size, gsio_error *err);

#define GSIO_NEW_ARRAY(arena, type, count, err) \
	((type *)gsioi_arena_array((arena), (count), sizeof(type), (err)))
/** The same, not zeroed: for an array whose every element is written
 *  before it is read. */
#define GSIO_NEW_ARRAY_UNINIT(arena, type, count, err) \
	((type *)gsioi_arena_array_uninit((arena), (count), sizeof(type), (err)))

/** The pixels of a skin stored in a model (im->width, height and
 *  source_format set; src holds width*height pixels of that format):
 *  decoded to rgba (and for PAL8 the indexed form kept too), or with
 *  no_pixels (GSIO_OPT_NO_PIXELS) kept as stored: PAL8 as indices +
 *  palette, other formats in im->stored, rgba NULL: src itself when it
 *  lies inside lend[0..lend_size) (the caller's bytes, lent with
 *  GSIO_OPT_BORROW; NULL: nothing lent), else a copy. 0 on success,
 *  1 for a pixel format gsio does not know (nothing set), -1 when memory
 *  ran out (err set). */
GSIO_NODISCARD int gsioi_skin_pixels(gsio_arena *arena, gsio_image *im, const uint8_t *src,
                                     const uint8_t *palette, bool no_pixels, const uint8_t *lend,
                                     size_t lend_size, gsio_error *err);

/** Copies into the scene's arena every image's stored pixels (im->stored,
 *  as gsioi_skin_pixels() keeps them) that lie inside lend[0..lend_size),
 *  so that the scene no longer points into those bytes. False when memory
 *  ran out (err set). */
GSIO_NODISCARD bool gsioi_images_unlend(gsio_scene *s, const uint8_t *lend, size_t lend_size,
                                        gsio_error *err);

/** gsio_mdl7_to_scene() with the file's bytes lent, lend[0..lend_size)
 *  (gsio_mdl7_read: those the decode points into): stored skins point
 *  into them instead of being copied, until gsioi_images_unlend(). */
struct gsio_mdl7_file;
gsio_scene *gsioi_mdl7_to_scene_lent(const struct gsio_mdl7_file *f, const char *name,
                                     const gsio_opts *opts, const uint8_t *lend, size_t lend_size,
                                     gsio_error *err);

/** Keeps a PAL8 image's indexed form beside its rgba (gsio_image.indices):
 *  copies width*height indices from src into the arena and makes the RGBA
 *  palette from the 768-byte RGB one (NULL: the built-in palette) the way
 *  gsio_decode_pixels does (every entry opaque). */
GSIO_NODISCARD bool gsioi_image_keep_indices(gsio_arena *arena, gsio_image *im, const uint8_t *src,
                                             const uint8_t *palette, gsio_error *err);
/** The same for indices already in the arena (width*height bytes, taken as
 *  they are): only the RGBA palette is made. */
GSIO_NODISCARD bool gsioi_image_set_palette(gsio_arena *arena, gsio_image *im, uint8_t *indices,
                                            const uint8_t *palette, gsio_error *err);

/** A new empty scene with its own arena (per opts). NULL on failure. */
gsio_scene *gsioi_scene_create(const gsio_opts *opts, gsio_error *err);
/** Room in a scene made by gsio_scene_new() for at least `nodes` nodes and
 *  `meshes` meshes, for an importer that knows how many it will add: the
 *  adds up to those counts then copy no array. False only when out of
 *  memory. */
GSIO_NODISCARD bool gsioi_scene_reserve(gsio_scene *s, size_t nodes, size_t meshes, gsio_error *err);
/** Appends a copy of *image as it is (its name copied into the arena; its
 *  other pointers must already live in the scene's arena), for an image the
 *  public builder cannot make: one decoded in place, or a PNG/JPEG file kept
 *  undecoded (GSIO_OPT_NO_PIXELS). Returns its index, or -1 with err set. */
GSIO_NODISCARD int32_t gsioi_scene_push_image(gsio_scene *s, const gsio_image *image,
                                              gsio_error *err);
/** Appends a warning (formatted) to the scene. Returns false only when out of memory. */
bool gsioi_scene_warn(gsio_scene *scene, gsio_error *err, const char *fmt, ...) GSIO_PRINTF(3, 4);

/** Bounding box of n xyz points (zeros when n == 0): the first point, then
 *  every smaller / larger coordinate (v < lo ? v : lo: NaN and -0 alike). */
void gsioi_bbox3(const float *p, size_t n, float mn[3], float mx[3]);
/** The same over rows of `stride` floats (3 or more), point i being row
 *  rows[i] (row i when rows is NULL): a box in the order of the vertices
 *  that show the rows. */
void gsioi_bbox3_rows(const float *p, size_t stride, const uint32_t *rows, size_t n, float mn[3],
                      float mx[3]);
/* Clips, nodes, double-sided faces: gsioi_scene_util.h. */

/** gsio_anorms negated: the outward normals packed frames point to. */
extern const float gsioi_anorms_outward[GSIO_NORMAL_COUNT][3];
/** Bounding box of a packed frame's positions over the source vertices
 *  `used` (used_count of them; NULL: all pf->source_count), from its extreme
 *  raw values; adds the normal indices >= pf->normal_count among them to
 *  *bad_normals. With copy_to (not NULL), the whole frame (every source
 *  vertex) is also copied there, in the same pass where it can be. */
void gsioi_packed_bounds(const gsio_packed_format *pf, const uint8_t *data, const uint32_t *used,
                         size_t used_count, uint8_t *copy_to, float mn[3], float mx[3],
                         size_t *bad_normals);

// -- Names to numbers (names.c)

/** A hash table from the caller's strings (kept by pointer: they must
 *  outlive it) to numbers, in an arena: a lookup per name in constant time
 *  where a scan made n names cost n * n. Zeroed by gsioi_names_init(). */
typedef struct gsioi_names {
	gsio_arena *arena;
	const char **keys; /**< cap slots, NULL when empty */
	uint32_t *values;
	size_t cap, count;
	bool fold_case; /**< ASCII letters compare alike in either case */
} gsioi_names;

void gsioi_names_init(gsioi_names *n, gsio_arena *arena, bool fold_case);
/** The number added with `key`, or -1. */
int64_t gsioi_names_find(const gsioi_names *n, const char *key);
/** Adds key -> value unless the key is there (the first one added stays).
 *  False (err set) when out of memory. */
GSIO_NODISCARD bool gsioi_names_add(gsioi_names *n, const char *key, uint32_t value,
                                    gsio_error *err);
/** Adds key -> value, or gives a key already there this value. */
GSIO_NODISCARD bool gsioi_names_set(gsioi_names *n, const char *key, uint32_t value,
                                    gsio_error *err);

/** Names made unique by a suffix: name, or name.2, name.3, ... (name cut to
 *  `keep` bytes, at most 300, before the suffix), the first not given yet.
 *  Both tables in `tmp`; the names returned are copies in `out`. */
typedef struct gsioi_unique {
	gsioi_names given; /**< every name returned */
	gsioi_names next;  /**< name asked for -> the next suffix to try */
} gsioi_unique;

void gsioi_unique_init(gsioi_unique *u, gsio_arena *tmp);
/** The unique form of name, recorded as given; NULL (err set) when out of memory. */
const char *gsioi_unique_name(gsioi_unique *u, gsio_arena *out, const char *name, int keep,
                              gsio_error *err);

// -- Terrain grids (grid.c)

/** An HMP7 normal from its stored int8 x, y (127 times the inward unit
 *  normal's; z from unit length, a pair longer than 127 clamped to
 *  horizontal): the unit outward normal. */
void gsioi_hmp7_normal(int8_t nx, int8_t ny, float n[3]);
/** Vertices first..first+count-1 of terrain t (row-major, row 0 = +y edge)
 *  as the scene's floats: positions, outward normals (from normal_xy, else
 *  normal_indices; none when both are NULL) and uvs, each skipped when
 *  NULL. Returns 1 when normals were written, else 0. The one place the
 *  HMP importer and gsio_mesh_grid_get() make these floats. */
int gsioi_grid_vertices(const gsio_terrain *t, size_t first, size_t count, float *pos, float *nrm,
                        float *uv);
/** Triangles first..first+count-1 of a grid `cols` vertices wide (two per
 *  cell, cells row by row): 3 indices each into ix. */
void gsioi_grid_triangles(size_t cols, size_t first, size_t count, uint32_t *ix);
/** The bounding box of t's positions whose raw heights span zlo..zhi;
 *  false when an extreme is not finite. */
bool gsioi_grid_bounds(const gsio_terrain *t, uint16_t zlo, uint16_t zhi, float mn[3], float mx[3]);
/** *out = *m, and for a grid mesh (m->grid) its arrays expanded into arena a
 *  (positions, normals, uvs, indices, frames[0] pointing to them; grid
 *  NULL), for a consumer that needs arrays. False (err set) when out of
 *  memory. m must have passed gsio_scene_validate. */
GSIO_NODISCARD bool gsioi_mesh_expand_grid(const gsio_mesh *m, gsio_arena *a, gsio_mesh *out,
                                           gsio_error *err);
/** *out = s when no mesh of s is a grid mesh; else *copy made a shallow copy
 *  of s whose meshes are expanded into arena a (gsioi_mesh_expand_grid) and
 *  *out = copy. For writers that read mesh arrays. */
GSIO_NODISCARD bool gsioi_scene_expand_grids(const gsio_scene *s, gsio_arena *a, gsio_scene *copy,
                                             const gsio_scene **out, gsio_error *err);

// -- Bounded reader

/** A cursor over untrusted bytes. Every read checks the remaining size; the
 *  first failure sets err and makes every later read fail too. */
typedef struct gsioi_reader {
	const uint8_t *data;
	size_t size;
	size_t pos;
	const char *file; /**< for errors */
	gsio_error *err;
	bool failed;
} gsioi_reader;

static inline gsioi_reader gsioi_reader_make(const uint8_t *data, size_t size, const char *file,
                                           gsio_error *err)
{
	gsioi_reader r = {data, size, 0, file ? file : "", err, false};
	return r;
}

static inline size_t gsioi_reader_remaining(const gsioi_reader *r)
{
	return r->pos > r->size ? 0 : r->size - r->pos;
}

/** Fails with GSIO_ERR_TRUNCATED unless n bytes remain. `what` names them. */
bool gsioi_reader_need(gsioi_reader *r, size_t n, const char *what);
/** Returns a pointer to the next n bytes and advances, or NULL. */
const uint8_t *gsioi_read_bytes(gsioi_reader *r, size_t n, const char *what);
bool gsioi_read_u8(gsioi_reader *r, uint8_t *v, const char *what);
bool gsioi_read_u16(gsioi_reader *r, uint16_t *v, const char *what);
bool gsioi_read_i16(gsioi_reader *r, int16_t *v, const char *what);
bool gsioi_read_u32(gsioi_reader *r, uint32_t *v, const char *what);
bool gsioi_read_i32(gsioi_reader *r, int32_t *v, const char *what);
bool gsioi_read_f32(gsioi_reader *r, float *v, const char *what);

static inline uint16_t gsioi_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t gsioi_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}
static inline float gsioi_lef32(const uint8_t *p)
{
	uint32_t u = gsioi_le32(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

// -- Growable writer

/** A byte buffer that grows by doubling; the first failure sticks. The
 *  memory is malloc'd (the caller frees `data` with free()), or comes from
 *  `allocator` when it is set (the writers of exporters/: fault injection
 *  reaches their output; free with gsioi_writer_free or that allocator). */
typedef struct gsioi_writer {
	uint8_t *data;
	size_t size;
	size_t capacity;
	size_t limit;   /**< 0: GSIO_DEFAULT_MEMORY_LIMIT */
	bool failed;
	const gsio_allocator *allocator; /**< NULL: malloc/realloc/free */
} gsioi_writer;

bool gsioi_write_bytes(gsioi_writer *w, const void *src, size_t n);
bool gsioi_write_zeros(gsioi_writer *w, size_t n);
bool gsioi_write_u8(gsioi_writer *w, uint8_t v);
bool gsioi_write_u16(gsioi_writer *w, uint16_t v);
bool gsioi_write_i16(gsioi_writer *w, int16_t v);
bool gsioi_write_u32(gsioi_writer *w, uint32_t v);
bool gsioi_write_i32(gsioi_writer *w, int32_t v);
bool gsioi_write_f32(gsioi_writer *w, float v);
void gsioi_writer_free(gsioi_writer *w);

/** The codecs' encoders with the output in `allocator`'s memory (NULL:
 *  malloc) and at most `limit` bytes (0: the default): what
 *  gsio_mdl_encode / gsio_hmp_encode do with NULL, 0. */
struct gsio_mdl_file;
struct gsio_hmp_file;
GSIO_NODISCARD int gsioi_mdl_encode_with(const struct gsio_mdl_file *f, const gsio_allocator *allocator,
                                         size_t limit, uint8_t **out, size_t *out_size,
                                         gsio_error *err);
struct gsio_mdl7_file;
GSIO_NODISCARD int gsioi_mdl7_encode_with(const struct gsio_mdl7_file *f, const gsio_allocator *allocator,
                                          size_t limit, uint8_t **out, size_t *out_size,
                                          gsio_error *err);
GSIO_NODISCARD int gsioi_hmp_encode_with(const struct gsio_hmp_file *f, const gsio_allocator *allocator,
                                         size_t limit, uint8_t **out, size_t *out_size,
                                         gsio_error *err);

// -- Small helpers

/** The lower-case extension of path without the dot ("" if none) into buf. */
void gsioi_path_ext(const char *path, char *buf, size_t buf_size);
/** The part of path after the last '/' or '\\'. */
const char *gsioi_path_base(const char *path);
/** Whether path, once symbolic links and ".." are resolved, lies inside the
 *  folder dir ("" for the current one): 1 inside, 0 outside, -1 when either
 *  does not resolve (a missing file). */
int gsioi_path_inside(const char *dir, const char *path);
/** Whether real_path lies inside real_dir, both resolved already
 *  (gsioi_realpath); false when either is NULL. */
bool gsioi_resolved_inside(const char *real_dir, const char *real_path);

// -- File access through the options (opts->io, or gsio_default_io())

/** The io a load uses: opts->io when it can read, else the default. */
const gsio_io *gsioi_io_of(const gsio_opts *opts);
/** Whether that is the default io (real files: path checks apply). */
bool gsioi_io_is_default(const gsio_opts *opts);
/** Reads a whole file through the load's io, bounded by its memory limit.
 *  0, or -1 with err set (always a code, even when a custom io forgot). */
GSIO_NODISCARD int gsioi_io_read(const gsio_opts *opts, const char *path, uint8_t **data,
                                 size_t *size, gsio_error *err);
/** Frees what gsioi_io_read returned (NULL is fine). */
void gsioi_io_free(const gsio_opts *opts, uint8_t *data);
/** How many first bytes of a file gsioi_read_file_checked judges before it
 *  reads the rest. */
#define GSIOI_HEAD_SIZE 4096
/** Judges a file's first n bytes (all of them when n == size): false, with
 *  err set, refuses the file before the rest is read. */
typedef bool (*gsioi_head_check)(void *user, const uint8_t *head, size_t n, uint64_t size,
                                 gsio_error *err);
/** gsio_read_whole_file, with the first GSIOI_HEAD_SIZE bytes (or the whole
 *  file when shorter) given to check before the size limit and the rest;
 *  check NULL reads on. 0, or -1 with err set. */
GSIO_NODISCARD int gsioi_read_file_checked(const char *path, size_t max_size,
                                           gsioi_head_check check, void *user, uint8_t **data,
                                           size_t *size, gsio_error *err);
/** A palette file read through the load's io (see gsio_palette_load). */
GSIO_NODISCARD int gsioi_palette_load_io(const gsio_opts *opts, const char *path,
                                         uint8_t out[768], gsio_error *err);

#endif
