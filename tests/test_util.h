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
/* T_SANITIZED: built with AddressSanitizer, which owns malloc (and fills
 * the first 4 KiB of every block it hands out). */
#if defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif

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
/** Skips the current test as T_REQUIRE_CORPUS() does when the corpus is
 *  absent; else reads "<corpus>/<rel>" whole (malloc'd), as t_read_file(). */
uint8_t *t_read_corpus(const char *rel, size_t *size);
/** Reads a whole file (malloc'd); fails the test when it cannot. */
uint8_t *t_read_file(const char *path, size_t *size);
/** Whether the kernel's transparent huge pages are on ("madvise" or
 *  "always"); the mode line read into mode (n bytes), "" when unknown. */
bool t_thp_on(char *mode, size_t n);
/** Lists the files in dir ending in ext (case-insensitive), sorted; returns
 *  count, paths malloc'd (free with t_free_list). */
size_t t_list_files(const char *dir, const char *ext, char ***out);
void t_free_list(char **list, size_t n);
/** The corpus folders of the models gsio reads on their own, with their
 *  files' ending: mdl/ *.mdl, hmp/ *.hmp, md5/ *.md5mesh. */
extern const char *const t_model_dirs[3][2];
/** The files of the corpus folders dirs[i][0] ending in dirs[i][1], each
 *  folder's sorted, the folders in order (t_list_files); returns the count,
 *  *out malloc'd (t_free_list). Skips the test without the corpus. */
size_t t_corpus_files(const char *const dirs[][2], size_t count, char ***out);
/** Files in dir (names starting with '.' only when they hold ".tmp"): all
 *  of them, or those whose name contains `part`; the first one's path into
 *  `first` when it is not NULL (empty: none). Fails the test when dir
 *  cannot be read. */
size_t t_scan_dir(const char *dir, const char *part, char *first, size_t size);
/** Removes every file (and empty folder) in dir. */
void t_empty_dir(const char *dir);
/** Fails the test unless the RGBA pixel at px is (r, g, b, a). */
void t_assert_px(const uint8_t *px, unsigned r, unsigned g, unsigned b, unsigned a);
/** Fails the test unless the n RGBA pixels at px are want's (4 n bytes),
 *  naming the first that is not. */
void t_assert_pixels(const uint8_t *px, const uint8_t *want, size_t n);
/** Fails the test unless got (got_size bytes, freed here) is exactly want:
 *  `what` and the first byte that differs named. */
void t_assert_same_bytes(uint8_t *got, size_t got_size, const uint8_t *want, size_t want_size,
                         const char *what);
/** A codec's promise: `encode` (a gsio_<codec>_encode) writes `file` as
 *  exactly the `want_size` bytes at want (`what` names them). */
#define T_ASSERT_ENCODES_TO(encode, file, want, want_size, what)                            \
	do {                                                                                    \
		uint8_t *t_out_;                                                                    \
		size_t t_out_size_;                                                                 \
		gsio_error t_err_;                                                                  \
		if (encode((file), &t_out_, &t_out_size_, &t_err_))                                 \
			fail_msg("%s: encode: %s", (what), t_err_.message);                             \
		t_assert_same_bytes(t_out_, t_out_size_, (want), (want_size), (what));              \
	} while (0)
/** The first n bytes of data in a heap block of exactly n bytes (1 when n
 *  is 0): a decoder that reads past a cut reads past the block, which
 *  AddressSanitizer reports. */
uint8_t *t_prefix_copy(const uint8_t *data, size_t n);
/** What a test's io (t_blob_io) serves: a copy of the size bytes at data
 *  for the path `path`; with path NULL, for the paths whose base name is one
 *  of `names` (case-insensitive); with neither, for every path. Other paths
 *  are read from disk when others_from_disk, else fail (GSIO_ERR_IO, "no such
 *  file"). reads counts the reads asked for, served those it served. */
typedef struct t_blob {
	const uint8_t *data;
	size_t size;
	const char *path;
	const char *const *names;
	size_t names_count;
	bool others_from_disk;
	size_t reads, served;
} t_blob;
/** An io (read_file and free_data only) serving b. */
gsio_io t_blob_io(t_blob *b);
/** free_data of an io whose blocks come from malloc. */
void t_io_free(void *user, uint8_t *data);
/** Writes bytes to a file; fails the test when it cannot. */
void t_write_file(const char *path, const uint8_t *data, size_t size);
/** The unique name gsio gives element i of a run of elements named "s",
 *  element 2 named "s.3" and element 5 unnamed (`unnamed`: the name it gets):
 *  s, s.2, s.3, s.4, s.5, unnamed, s.6, s.7, ... (the first free suffix). */
void t_suffixed_name(size_t i, const char *unnamed, char *out, size_t size);

/** gsio_load_file() that must succeed: fails the test naming the path and
 *  the error when it does not. */
gsio_scene *t_load_ok(const char *path, const gsio_opts *opts);
/** t_load_ok() of "<corpus>/<rel>"; skips the test without the corpus. */
gsio_scene *t_load_corpus(const char *rel, const gsio_opts *opts);

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

/** One try of an operation under test with `al` (one of whose allocations
 *  fails): 0 when it succeeded (what it made freed again), else non-zero
 *  with err set. */
typedef int (*t_alloc_try)(void *ctx, gsio_allocator *al, gsio_error *err);
/** The error codes a failing allocation may give (t_each_alloc_fails). */
#define T_ERR_BIT(code) (1u << (code))
#define T_NOMEM T_ERR_BIT(GSIO_ERR_NOMEM)
#define T_NOMEM_OR_LIMIT (T_ERR_BIT(GSIO_ERR_NOMEM) | T_ERR_BIT(GSIO_ERR_LIMIT))
#define T_ANY_ERROR 0u
typedef struct t_alloc_run {
	size_t failures; /**< tries that failed, one per failure point */
	size_t calls;    /**< allocations the successful try made */
} t_alloc_run;
/** Fails allocation 1, 1 + step, 1 + 2 step, ... of `try` in turn (step 0
 *  is 1) until it succeeds: each failure must give an error in `codes`
 *  (T_ANY_ERROR: any but GSIO_OK) and leave no block live; the success must
 *  not have reached the failing allocation and must leave no block live.
 *  `what` names the operation in the failure messages. */
t_alloc_run t_each_alloc_fails(const char *what, t_alloc_try try, void *ctx, unsigned codes, size_t step);

/** A load for t_try_load: `size` bytes at `data` named `name`, or the file
 *  at path `name` when data is NULL, with `opts` (NULL: the defaults; the
 *  allocator is t_try_load's); `check`, when set, sees every scene loaded
 *  (and fails the test when it is wrong). */
typedef struct t_load_input {
	const uint8_t *data;
	size_t size;
	const char *name;
	const gsio_opts *opts;
	gsio_scene *(*check)(gsio_scene *s);
} t_load_input;
/** A t_alloc_try: loads the t_load_input at ctx and frees the scene. */
int t_try_load(void *ctx, gsio_allocator *al, gsio_error *err);

/** A t_alloc_try like t_try_load, through the MDL codec's own calls:
 *  gsio_mdl_decode() and gsio_mdl_to_scene() (data in memory only). */
int t_try_mdl_decode(void *ctx, gsio_allocator *al, gsio_error *err);

/** Runs a cmocka program of one test that prints "SKIPPED: <why>" and
 *  skips: main's return for a program with nothing to run in this build. */
int t_skip_program(const char *why);
/** main() of a program whose tests all compare with Assimp (the arguments:
 *  its cmocka_unit_test() entries): they run, or, built without Assimp's C
 *  API, one test says so and skips. */
#ifdef GSIO_HAVE_ASSIMP
#define T_ASSIMP_MAIN(...)                                                                  \
	int main(void)                                                                          \
	{                                                                                       \
		const struct CMUnitTest tests[] = {__VA_ARGS__};                                    \
		return cmocka_run_group_tests(tests, NULL, NULL);                                   \
	}
#else
#define T_ASSIMP_MAIN(...)                                                                  \
	int main(void)                                                                          \
	{                                                                                       \
		return t_skip_program("built without Assimp (GSIO_WITH_ASSIMP off or "              \
		                      "libassimp-dev absent)");                                     \
	}
#endif

/** The largest distance from a point of a (na xyz triples) to its nearest
 *  point of b: with the other way round, how far two point sets lie apart. */
double t_one_way_distance(const float *a, size_t na, const float *b, size_t nb);

#endif
