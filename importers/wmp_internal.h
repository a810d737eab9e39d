/* WMP internals shared by the codec files (wmp.c, wmp_codec_text.c,
 * wmp_codec_bin.c, wmp_brush.c) and the level -> scene files (wmp_scene.c,
 * wmp_files.c, wmp_textures.c, wmp_blocks.c, wmp_graft.c, wmp_elements.c).
 * Not installed. */
#ifndef GSIO_WMP_INTERNAL_H
#define GSIO_WMP_INTERNAL_H

#include "gsioi_files.h"
#include "gsioi_internal.h"
#include "gsio_wmp.h"

#include <math.h>

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

// -- Level -> scene
//
// gsio_wmp_to_scene (wmp_scene.c) makes one context for a conversion and
// hands it to the files that do each job: finding files (wmp_files.c),
// WAD textures (wmp_textures.c), blocks (wmp_blocks.c), placed models
// (wmp_graft.c), the other elements (wmp_elements.c).

/** The punctuation of text levels (A and B) for the tokenizer. */
#define WMP_TEXT_PUNCT "{}():,<"
#define WMP_CHECKER_SIZE 64 /**< a placeholder texture's width and height */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct wmp_model {
	char *key;           /**< lower-case base name */
	gsio_scene *ms;      /**< the loaded model (NULL: missing or unreadable) */
	int32_t mesh_base, material_base, image_base;
	int32_t **instances; /**< per placed entity: model node -> level node */
	size_t instances_count, instances_cap;
} wmp_model;

/** One level -> scene conversion: made and freed by gsio_wmp_to_scene, its
 *  fields grouped by the file that uses them. */
typedef struct wmp_sctx {
	const gsio_wmp_file *f;
	gsio_scene *s;
	const gsio_opts *opts;
	gsio_opts sub_opts;
	const char *path;
	gsio_error *err;
	gsio_arena *tmp;
	gsioi_finder finder; /**< the level's folder, then opts->search_paths */
	gsio_wad_file **wads;
	uint8_t **wad_bytes;          /**< per WAD: the bytes its lumps point into */
	size_t wads_count;
	const uint8_t *palette;
	uint8_t palette_buf[768];
	// Texture name -> slot -> material. Looked up by hash, as are the WAD
	// lumps and the names the scene holds: scans made a level of n
	// textures cost n * n (8 000 textures: 3 s).
	const char **tex_names;
	int32_t *tex_material;
	uint32_t *tex_w, *tex_h;
	size_t tex_count, tex_cap;
	gsioi_names tex_index;        /**< texture name (any case) -> slot */
	gsioi_names lump_index;       /**< lump name (any case) -> lump_refs entry */
	uint32_t (*lump_refs)[2];     /**< wad, lump: the first WAD's lump of a name */
	gsioi_names taken;            /**< image and material names in the scene */
	size_t taken_images, taken_materials; /**< how many of each are in `taken` */
	int32_t *part_of_slot;        /**< a block's part of each slot, -1 (tex_cap) */
	size_t part_of_slot_cap;
	gsioi_names sprite_index;     /**< a sprite's file (full path) -> sprites entry */
	struct wmp_sprite {
		int32_t image, material;
		uint32_t width, height;
	} *sprites;
	size_t sprites_count, sprites_cap;
	wmp_model *models;
	size_t models_count, models_cap;
	uint8_t *checker_indices; /**< the placeholders' indexed form (checker_shared), */
	uint8_t *checker_palette; /**< indices into two greys (scene arena) */
	int32_t *node_of; /**< object -> node, -1 until placed */
	bool binary;      /**< colours 0..255 (else percent) */
	gsio_wad_file *embedded; /**< the level's own textures (wads[0]), the caller's */
} wmp_sctx;

/** What another door into the level scene (a compiled level, wmb_scene.c)
 *  adds to the WMP conversion. */
typedef struct gsioi_wmp_hooks {
	const char *format;       /**< the scene's format name ("WMB") */
	int32_t version;
	gsio_wad_file *embedded;  /**< textures the level holds, looked up before
	                               any WAD's; NULL none; not freed */
	/** Runs after the object tree is built, before the models' animations:
	 *  adds what the elements do not carry (geometry). False (c->err set)
	 *  stops the conversion. */
	bool (*after)(wmp_sctx *c, void *user);
	void *user;
} gsioi_wmp_hooks;

/** gsio_wmp_to_scene with hooks (NULL: none). */
gsio_scene *gsioi_wmp_scene_run(const gsio_wmp_file *f, const char *path, const gsio_opts *opts,
                                const gsioi_wmp_hooks *hooks, gsio_error *err);

/** Adds a warning to the scene (wmp_scene.c). False (err set) when out of
 *  memory. */
GSIO_NODISCARD bool gsioi_wmp_warn(wmp_sctx *c, const char *fmt, ...) GSIO_PRINTF(2, 3);

/** Whether sub, the error of reading a file the level names, stops the
 *  conversion (out of memory, a limit): then it becomes the conversion's
 *  error (c->err). Any other error is the caller's to warn of. */
GSIO_NODISCARD bool gsioi_wmp_fatal(wmp_sctx *c, const gsio_error *sub);

/** A double as a finite float: NaN and infinities 0, magnitudes past 1e30
 *  clamped to 1e30. */
static inline float gsioi_wmp_clampf(double v)
{
	if (!isfinite(v)) return 0;
	return v > 1e30 ? 1e30f : v < -1e30 ? -1e30f : (float)v;
}

// Finding files (wmp_files.c)

/** The stored name's base name, or NULL when it has none. */
const char *gsioi_wmp_base_of(const char *stored);
/** Finds a file by the rule of gsioi_files.h (beside the level, then in the
 *  search folders) into r, and records it in the scene's extras as
 *  "wmp:file:KIND:NAME". False (err set) only when out of memory. */
GSIO_NODISCARD bool gsioi_wmp_find_file(wmp_sctx *c, const char *kind, const char *stored,
                                        gsioi_found *r);
/** The one warning for a file not found: `what` "stored" not found in the
 *  folders (gsioi_finder_missing), then `consequence`. */
GSIO_NODISCARD bool gsioi_wmp_warn_missing(wmp_sctx *c, const char *what, const char *stored,
                                           const gsioi_found *r, const char *consequence);

// WAD textures (wmp_textures.c)

/** Reads the WADs the level names; one not found or not readable is a
 *  warning. */
GSIO_NODISCARD bool gsioi_wmp_load_wads(wmp_sctx *c);
/** Indexes the WADs' lumps by name (the first WAD's with pixels). */
GSIO_NODISCARD bool gsioi_wmp_index_lumps(wmp_sctx *c);
/** The slot (material, texture size) of a texture name, made on first use. */
GSIO_NODISCARD bool gsioi_wmp_texture_material(wmp_sctx *c, const char *name, size_t *slot);

// Blocks (wmp_blocks.c)

/** Block b as mesh `name` on node `node`. */
GSIO_NODISCARD bool gsioi_wmp_build_block(wmp_sctx *c, const gsio_wmp_block *b, int32_t node,
                                          const char *name);

// Placed models (wmp_graft.c)

/** The model entry for a file name, loading and grafting it on first use
 *  (*out's ms NULL when it cannot be placed: a warning). */
GSIO_NODISCARD bool gsioi_wmp_model_for(wmp_sctx *c, const char *stored, wmp_model **out);
/** Places the model under `node`: a copy of its node tree. */
GSIO_NODISCARD bool gsioi_wmp_place_model(wmp_sctx *c, wmp_model *me, int32_t node);
/** One animation per model clip, moving every placed instance. */
GSIO_NODISCARD bool gsioi_wmp_model_animations(wmp_sctx *c);

// Elements (wmp_elements.c)

/** Element r of an object, built on node `node`. */
GSIO_NODISCARD bool gsioi_wmp_build_element(wmp_sctx *c, gsio_wmp_ref r, int32_t node);

#endif
