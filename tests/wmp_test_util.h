/* Helpers shared by the WMP tests (test_wmp_*.c): the corpus's lottershock
 * game, levels loaded with its assets, node extras, the A4 example. */
#ifndef GSIO_WMP_TEST_UTIL_H
#define GSIO_WMP_TEST_UTIL_H

#include "test_util.h"

/** The A4 manual's example level (tests/data). */
#define SEED_A4 GSIO_SOURCE_DIR "/tests/data/seed_a4.wmp"

/** "<corpus>/lottershock/Game/<rel>" in a static buffer (one at a time). */
const char *lottershock(const char *rel);
/** The level at path_in loaded (t_load_ok) and validated; with_assets: with
 *  lottershock's Assets folder as a search path for its models and
 *  textures. */
gsio_scene *load_level(const char *path_in, bool with_assets);
/** Extra `key` of node i, NULL when it has none. */
const gsio_extra *node_extra(const gsio_scene *s, size_t i, const char *key);

#endif
