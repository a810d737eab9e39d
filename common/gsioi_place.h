/* File placement for gsio's writers and commands (place.c): every output
 * is written under a temporary name beside its final path and renamed into
 * place only when whole, so a failed or interrupted write leaves nothing
 * behind and replaces nothing. Internal: not installed, not exported from
 * the shared library. */
#ifndef GSIOI_PLACE_H
#define GSIOI_PLACE_H

#include "gsio.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One file to place: its final path and its bytes. */
typedef struct gsioi_file_data {
	const char *path;
	const uint8_t *data;
	size_t size;
} gsioi_file_data;

/** Writes the files as one: each is written to a temporary name in its own
 *  directory and closed, and only when all are written are they moved into
 *  place, in order (gsioi_place_commit_all()): a failure to write any (a
 *  full disk) leaves every path as it was, and so, as far as the file
 *  system allows, does a failure to place one. With no_replace an existing
 *  file makes the call fail before anything is written (and placement
 *  itself never replaces: link + unlink). On failure no temporary file is
 *  left and err names the final path. Temporary files are also removed
 *  when the process gets SIGINT or SIGTERM while they exist
 *  (gsioi_install_cleanup_handlers(); up to 4096 at once, 128 of them with
 *  paths of 256 bytes or more). Returns 0 or
 *  non-zero. */
GSIO_NODISCARD int gsioi_place_files(const gsioi_file_data *files, size_t count,
                                             bool no_replace, gsio_error *err);
/** A file being written piece by piece and then placed atomically, like
 *  one file of gsioi_place_files(): the bytes go to a temporary name beside
 *  the final path (removed on SIGINT/SIGTERM as above) until
 *  gsioi_place_commit() moves it into place. A scratch placing
 *  (gsioi_place_scratch()) is an unnamed temporary in the same directory that
 *  is never placed: it only holds bytes to be copied into another placing
 *  (the file system frees it when it is closed, even after a crash). Errors
 *  name the final path, never a temporary one; err may be NULL and is
 *  cleared by every call that takes it. Not thread-safe per object;
 *  different objects may be used from different threads. */
typedef struct gsioi_placing gsioi_placing;

/** Starts writing `path`. Returns NULL with err set (I/O or memory). */
GSIO_NODISCARD gsioi_placing *gsioi_place_open(const char *path, gsio_error *err);
/** Opens an unnamed temporary in the directory of `path` (O_TMPFILE, or a
 *  name unlinked as soon as it is open). `path` is only used for that
 *  directory and in error messages. Returns NULL with err set. */
GSIO_NODISCARD gsioi_placing *gsioi_place_scratch(const char *path, gsio_error *err);
/** Writes bytes after those the previous gsioi_place_write() or
 *  gsioi_place_append() wrote (at the start at first; gsioi_place_write_at()
 *  does not move that position). Returns 0, or non-zero with err set (e.g.
 *  disk full). */
GSIO_NODISCARD int gsioi_place_write(gsioi_placing *p, const void *data, size_t size,
                                             gsio_error *err);
/** Writes bytes at `offset` of the file, which need not be its end: a part
 *  known early can go to its place before the bytes ahead of it are known
 *  (pwrite; where gsioi_place_write() writes next does not move).
 *  gsioi_place_size() is the end of the furthest byte written. Returns
 *  0, or non-zero with err set (e.g. disk full). */
GSIO_NODISCARD int gsioi_place_write_at(gsioi_placing *p, uint64_t offset, const void *data,
                                                size_t size, gsio_error *err);
/** Writes every byte written to `src` so far where gsioi_place_write() would
 *  (copy_file_range, falling back to read/write). Returns 0, or non-zero with err set. */
GSIO_NODISCARD int gsioi_place_append(gsioi_placing *dst, gsioi_placing *src,
                                              gsio_error *err);
/** Says that p will hold `total` bytes in all, so that the file system
 *  can allocate them in one step (Linux fallocate keeping the file's size:
 *  ext4 then maps each page as it is written instead of reserving it; a
 *  5 MB GLB 2-8% faster end to end). A disk or quota without room for them
 *  fails here, before the bytes are made. Advice otherwise: below 1 MiB,
 *  or where the file system cannot, nothing happens; writing fewer or more
 *  bytes is fine.
 *  Returns 0, or non-zero with err set (no room, no file). */
GSIO_NODISCARD int gsioi_place_reserve(gsioi_placing *p, uint64_t total, gsio_error *err);
/** The end of the furthest byte written to p so far. */
uint64_t gsioi_place_size(const gsioi_placing *p);
/** Ends the writing of p: closes its temporary (reporting a delayed write
 *  error), which stays on disk under its temporary name, holding no file
 *  descriptor, until p is committed or discarded. Returns 0, or non-zero
 *  with err set (a scratch placing, one closed already). */
GSIO_NODISCARD int gsioi_place_close(gsioi_placing *p, gsio_error *err);
/** A placing of `path` holding `size` bytes of data, written to its
 *  temporary and closed (gsioi_place_close), ready for gsioi_place_commit()
 *  or gsioi_place_commit_all(); NULL with err set (nothing left) when it
 *  cannot be written. */
GSIO_NODISCARD gsioi_placing *gsioi_place_bytes(const char *path, const void *data, size_t size,
                                                       gsio_error *err);
/** Closes the temporary (unless closed) and moves it to its final path
 *  (never replacing an existing file with no_replace), then frees p, also
 *  on failure (the temporary is removed then). A scratch placing cannot be
 *  committed. Returns 0, or non-zero with err set. */
GSIO_NODISCARD int gsioi_place_commit(gsioi_placing *p, bool no_replace, gsio_error *err);
/** Commits files that belong together (a .gltf and its .bin and images):
 *  closes each, then places them in order (put the file naming the others
 *  last), and when one cannot be placed takes back the ones placed before
 *  it: a path that held nothing holds nothing again, and one that held a
 *  file gets that file back (on Linux, where the file system can exchange
 *  two names; elsewhere the old file is replaced for good). Frees every
 *  placing, also on failure. A signal that ends the process while files
 *  are being placed may leave some placed and some not. Returns 0, or
 *  non-zero with err set. */
GSIO_NODISCARD int gsioi_place_commit_all(gsioi_placing *const *ps, size_t count, bool no_replace,
                                                  gsio_error *err);
/** Closes and removes the temporary, frees p. NULL is fine. */
void gsioi_place_discard(gsioi_placing *p);

/** Installs SIGINT/SIGTERM handlers that remove the temporary files of
 *  gsioi_place_files() in progress, then re-raise the signal, and ignores
 *  SIGXFSZ (a write past the file size limit then fails as a write error,
 *  reported and cleaned up, instead of killing the process). For programs;
 *  a library user calls it only if it wants that behaviour. */
void gsioi_install_cleanup_handlers(void);

#ifdef __cplusplus
}
#endif
#endif
