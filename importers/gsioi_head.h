/* The first bytes of a file, judged before the rest is read (internal).
 *
 * gsio_load_file reads a file's first GSIOI_HEAD_SIZE bytes, asks the
 * registry which importer claims them, and lets that importer's check
 * below refuse what those bytes already rule out, with the error its
 * decoder gives for the whole file; only then is the rest read. A check
 * that cannot tell from the head (a text whose first token runs past it)
 * reads on. `whole`: the head is the whole file. */
#ifndef GSIOI_HEAD_H
#define GSIOI_HEAD_H
#include "gsioi_internal.h"

/** MDL2-5 and MDL7 magics (mdl.c). */
bool gsioi_mdl_head_ok(const uint8_t *head, size_t n, const char *path, gsio_error *err);
/** HMP4/5/7 magics (hmp.c). */
bool gsioi_hmp_head_ok(const uint8_t *head, size_t n, const char *path, gsio_error *err);
/** MD5: the first token `MD5Version` (md5_scene.c). */
bool gsioi_md5_head_ok(const uint8_t *head, size_t n, bool whole, const char *path,
                       gsio_error *err);
/** Whether a head (not the whole file) ends before the first token of a
 *  text does: then no format can be ruled out by it, since MD5 and text
 *  WMP are known by that token (or line) (md5_scene.c). */
bool gsioi_md5_head_undecided(const uint8_t *head, size_t n);
/** WMB4-7: the magic and the list directory (wmb_codec.c). */
bool gsioi_wmb_head_ok(const uint8_t *head, size_t n, bool whole, const char *path,
                       gsio_error *err);
/** WMP: WMPB, `// WMP2`, or a text starting `blocks` or `version` (wmp.c). */
bool gsioi_wmp_head_ok(const uint8_t *head, size_t n, bool whole, const char *path,
                       gsio_error *err);
/** Whether the first bytes are a GameStudio file gsio names but does not
 *  read as a main input: a WAD texture archive, or a compiled level of a
 *  version gsio does not read (or handed to the WMP codec).
 *  True with err set (GSIO_ERR_UNSUPPORTED: what the file is and what to
 *  convert instead) (wmp.c). */
bool gsioi_wmp_not_read(const uint8_t *head, size_t n, const char *path, gsio_error *err);

#endif
