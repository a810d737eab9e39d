/* gsio image files (internal): decoding PNG, JPEG, TGA and BMP texture
 * files that sit beside a model, through stb_image (compiled with static
 * linkage in stb_image_impl.c, so a host that also links stb_image sees no
 * clash) except for the usual uncompressed TGAs and BMPs (gsioi_tga.h,
 * gsioi_bmp.h), and PCX through gsio's own decoder (gsioi_pcx.h). */
#ifndef GSIOI_IMAGE_FILE_H
#define GSIOI_IMAGE_FILE_H

#include "gsioi_internal.h"

/** Images wider or taller than this are refused (bounds stb_image's work). */
#define GSIO_IMAGE_FILE_MAX_DIM 16384

/** Decodes an image file in memory into RGBA8, top row first, allocated in
 *  arena (so the arena's memory limit applies). Fills out->width, height and
 *  rgba, and for a PNG or JPEG file_data/file_size (a copy of the file in
 *  arena); leaves the other fields alone. `file` names it in errors. False with
 *  err set (GSIO_ERR_UNSUPPORTED for a format or variant stb_image cannot
 *  read, GSIO_ERR_CORRUPT for a damaged file, GSIO_ERR_LIMIT when too big). */
GSIO_NODISCARD bool gsioi_image_file_decode(const uint8_t *data, size_t size, const char *file,
                                           gsio_arena *arena, gsio_image *out, gsio_error *err);

/** gsioi_image_file_decode(), except that with GSIO_OPT_NO_PIXELS in opts
 *  (may be NULL) a PNG, JPEG, uncompressed true-colour TGA file
 *  (gsioi_tga_plain) or uncompressed BMP (gsioi_bmp_parse) is not
 *  decoded: only its header is read (same checks, limits and errors as
 *  the decoder's first step), out gets width, height
 *  and file_data/file_size, and rgba and indices stay NULL. file_data is a
 *  copy in arena, or, when `taken` is not NULL (data then being a block
 *  from malloc), data itself, which the arena frees (gsioi_arena_keep):
 *  *taken says whether it was kept so. The importers' entry for texture
 *  files; callers that need the pixels whatever the options call
 *  gsioi_image_file_decode(). */
GSIO_NODISCARD bool gsioi_image_file_load(const uint8_t *data, size_t size, const char *file,
                                         const gsio_opts *opts, gsio_arena *arena,
                                         gsio_image *out, bool *taken, gsio_error *err);

/** Whether an image file that gsioi_image_file_load() refused with `sub`
 *  into `arena` ends the whole load: out of memory, or the load's memory
 *  limit reached (gsioi_arena_refused). A file refused for what it is
 *  (damaged, unsupported, wider or taller than the readers take) is the
 *  caller's warning: the model or level is still loaded, without it. */
bool gsioi_image_file_fatal(const gsio_arena *arena, const gsio_error *sub);

/** Decodes an image file into one 16-bit grey channel per pixel (8-bit
 *  images widened: 255 -> 65535; colour images reduced to luminance), for
 *  heightmaps. Same limits and errors as gsioi_image_file_decode. */
GSIO_NODISCARD bool gsioi_image_file_decode_gray16(const uint8_t *data, size_t size, const char *file,
                                                  gsio_arena *arena, uint16_t **out,
                                                  uint32_t *width, uint32_t *height,
                                                  gsio_error *err);

/** An external texture (MDL7 and HMP7 skin type 7: a stored file name) as
 *  scene image `im`, found by the rule of gsioi_files.h: its base name
 *  beside the model file `path`, then in opts->search_paths, whatever the
 *  case and whether the name is stored in CP1252 or UTF-8; a stored folder
 *  (absolute, "..", the author's own disk) is never followed, and a file
 *  that leads out of its folder or is not a regular file is refused before
 *  it is read. Read through opts->io, decoded by stb_image (or kept
 *  undecoded: gsioi_image_file_load, the default io's buffer itself); sets name (the file's base name as
 *  UTF-8), source_path, source_format RGBA8888 and the pixels (or the
 *  file), not source_type. With `same` not NULL, a file an image of the
 *  scene was loaded from already is not loaded again: *same is that
 *  image's index (else -1). Anything that fails is a scene warning (one,
 *  naming the folders looked in) and *loaded stays false; false is
 *  returned only for out-of-memory or the memory limit. */
GSIO_NODISCARD bool gsioi_external_image_load(gsio_scene *s, const char *stored, const char *path,
                                             const gsio_opts *opts, gsio_image *im, bool *loaded,
                                             int32_t *same, gsio_error *err);

#endif
