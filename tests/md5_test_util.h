/* Helpers shared by the MD5 tests (test_md5_*.c): the corpus files, loads
 * that must succeed and validate, the scene's joints and animation
 * channels, a temporary folder of files, the text of a small file. */
#ifndef GSIO_MD5_TEST_UTIL_H
#define GSIO_MD5_TEST_UTIL_H

#include "test_util.h"

#define BOB_MESH "md5/bob/Bob.md5mesh"
#define BOB_ANIM "md5/bob/Bob.md5anim"
#define CUBE "md5/SimpleCube.md5mesh"

/** The first lines of every MD5 text file. */
#define HDR "MD5Version 10\ncommandline \"\"\n"

/** Prints `what` and the formatted error. */
void print_err(const char *what, const gsio_error *err);
// Every scene a test looks at must pass the validator first.
void assert_valid(const gsio_scene *s);
/** gsio_load_file() that must succeed, validated (assert_valid). */
gsio_scene *load_ok(const char *path, const gsio_opts *opts);

// -- Scene v2 accessors: an MD5 scene's joints are its first nodes (node j
// is joint j), skin 0 lists them in order, and an animation has a
// translation (2j) and a rotation (2j+1) channel per joint.

/** The number of joints (the nodes before the first with a mesh or camera). */
size_t n_joints(const gsio_scene *s);
/** Joint j's translation (3 floats) in frame f of a. */
const float *anim_t(const gsio_animation *a, size_t j, size_t f);
/** Joint j's rotation (4 floats) in frame f of a. */
const float *anim_r(const gsio_animation *a, size_t j, size_t f);

/** A monotonic clock, ms. */
double now_ms(void);
/** Whether a warning of s contains needle. */
bool has_warning(const gsio_scene *s, const char *needle);

// A temporary folder with files written by the tests; removed at the end.
typedef struct tmpdir {
	char path[256];
	char files[16][512];
	size_t count;
} tmpdir;

/** Makes a new folder under /tmp. */
void tmp_make(tmpdir *d);
/** Writes size bytes to d/rel (its folders made); returns its path. */
const char *tmp_write(tmpdir *d, const char *rel, const void *data, size_t size);
/** tmp_write() of a text. */
const char *tmp_text(tmpdir *d, const char *rel, const char *text);
/** Removes every file written, their folders and the folder. */
void tmp_remove(tmpdir *d);

#endif
