/* Helpers shared by the cmocka tests: the corpus, files, byte buffers. */
#ifndef GSIO_TEST_UTIL_H
#define GSIO_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
// cmocka needs the four includes above first.
#include <cmocka.h>

#include "gsio.h"

/** The corpus directory, or NULL (after printing why) when it is absent. */
const char *t_corpus_dir(void);
/** Skips the current cmocka test with a message when the corpus is absent. */
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
/** Lists the files in dir ending in ext (case-insensitive), sorted; returns
 *  count, paths malloc'd (free with t_free_list). */
size_t t_list_files(const char *dir, const char *ext, char ***out);
void t_free_list(char **list, size_t n);
/** Writes bytes to a file; fails the test when it cannot. */
void t_write_file(const char *path, const uint8_t *data, size_t size);

/** A valid scene with one mesh of nv vertices (positions, normals, uvs,
 *  32-bit indices, one node) and, when w > 0, a w x w noisy opaque skin (a
 *  PNG of about w*w*3 bytes): large outputs for the writer tests. */
gsio_scene *t_large_scene(uint32_t nv, uint32_t w);

/** An allocator that fails the N-th allocation (counting from 1; 0 = never)
 *  and counts live blocks, for allocation-failure and leak tests. */
typedef struct t_fail_alloc {
	size_t fail_at;
	size_t calls;
	long live;
} t_fail_alloc;
gsio_allocator t_fail_allocator(t_fail_alloc *state);

#endif
