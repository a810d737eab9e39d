/* Helpers shared by the cmocka tests: the corpus, files, byte buffers. */
#ifndef GSIO_TEST_UTIL_H
#define GSIO_TEST_UTIL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// cmocka needs the four includes above first.
#include <cmocka.h>

#include "gsio.h"

/** The corpus directory, or NULL (after printing why) when it is absent. */
const char *t_corpus_dir(void);
/** Skips the current cmocka test with a message when the corpus is absent. */
/* T_SANITIZED: built with AddressSanitizer, which owns malloc (and fills
 * the first 4 KiB of every block it hands out). */
#if defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif

#define T_REQUIRE_CORPUS()                                                              \
	do {                                                                                \
		if (!t_corpus_dir()) {                                                          \
			print_message("SKIPPED: corpus not found at %s (../shared/corpus)\n",       \
			              GSIO_CORPUS_DIR);                                             \
			skip();                                                                     \
		}                                                                               \
	} while (0)

/** "<corpus>/<rel>" in a static buffer (one at a time). */
const char *t_corpus_path(const char *rel);
/** Reads a whole file (malloc'd); fails the test when it cannot. */
uint8_t *t_read_file(const char *path, size_t *size);
/** Whether the kernel's transparent huge pages are on ("madvise" or
 *  "always"); the mode line read into mode (n bytes), "" when unknown. */
bool t_thp_on(char *mode, size_t n);
/** Lists the files in dir ending in ext (case-insensitive), sorted; returns
 *  count, paths malloc'd (free with t_free_list). */
size_t t_list_files(const char *dir, const char *ext, char ***out);
void t_free_list(char **list, size_t n);
/** Files in dir (names starting with '.' only when they hold ".tmp"): all
 *  of them, or those whose name contains `part`; the first one's path into
 *  `first` when it is not NULL (empty: none). Fails the test when dir
 *  cannot be read. */
size_t t_scan_dir(const char *dir, const char *part, char *first, size_t size);
/** Removes every file (and empty folder) in dir. */
void t_empty_dir(const char *dir);
/** Writes bytes to a file; fails the test when it cannot. */
void t_write_file(const char *path, const uint8_t *data, size_t size);
/** The unique name gsio gives element i of a run of elements named "s",
 *  element 2 named "s.3" and element 5 unnamed (`unnamed`: the name it gets):
 *  s, s.2, s.3, s.4, s.5, unnamed, s.6, s.7, ... (the first free suffix). */
void t_suffixed_name(size_t i, const char *unnamed, char *out, size_t size);

/** Loads data (named `name`) with `flags`: 0 and err set when it fails,
 *  else a non-zero hash of every mesh's positions (the scene is freed).
 *  Two loads that must agree compare their results and errors. */
uint64_t t_load_outcome(const uint8_t *data, size_t size, const char *name, unsigned flags, gsio_error *err);

/** A valid scene with one mesh of nv vertices (positions, normals, uvs,
 *  32-bit indices, one node) and, when w > 0, a w x w noisy opaque skin (a
 *  PNG of about w*w*3 bytes): large outputs for the writer tests. */
gsio_scene *t_large_scene(uint32_t nv, uint32_t w);

/** A valid scene with one mesh of nv vertices (triangles over them, one
 *  node) and `frames` morph frames whose positions and normals come from
 *  MDL-style records (x, y, z bytes and a normal index; scale and offset per
 *  axis) over nv - nv / 4 source vertices, scene vertex v showing source
 *  vertex (7 * v) % source count. The records are pseudo-random; normal
 *  indices run over 0..7 of a 6-entry table holding a zero vector (a bad
 *  normal) and a vector that is not unit, so indices 6 and 7 are out of the
 *  table (read as 0). With `packed` the frames are kept packed
 *  (gsio_packed_format, frame 0 also as floats, as the MDL loader keeps
 *  them), else as floats with the same values (scale * raw + offset in
 *  float, table[index]). `normals`: false gives a mesh and frames without
 *  normals (no normal table). The same arguments give the same values. */
gsio_scene *t_morph_scene(uint32_t nv, uint32_t frames, bool packed, bool normals);
/** The 6-entry normal table t_morph_scene() uses. */
extern const float t_morph_normals[6][3];

/** An allocator that fails the N-th allocation (counting from 1; 0 = never)
 *  and counts live blocks, for allocation-failure and leak tests; and the
 *  bytes asked for that are live, and their peak, for memory tests. */
typedef struct t_fail_alloc {
	size_t fail_at;
	size_t calls;
	long live;
	size_t bytes, peak_bytes;
} t_fail_alloc;
gsio_allocator t_fail_allocator(t_fail_alloc *state);

#endif
