/* --update of `gsio convert` and mdl2gltf: whether an output is current,
 * by modification times as make compares them. Program code, not the
 * library. */
#ifndef GSIO_UPDATE_H
#define GSIO_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

/** What an output depends on besides its input. */
typedef struct gsio_update_deps {
	const char *palette;        /**< --palette, or NULL */
	const char *extra;          /**< another file every output is made from (--color-map), or NULL */
	const char *const *anims;   /**< --anim: an .md5mesh's animations instead of those beside it */
	size_t anims_count;
	const char *const *folders; /**< --path: where a level's files are looked for */
	size_t folders_count;
} gsio_update_deps;

/** Whether `output` exists and is not older than `input` nor than any file
 *  it is known to be made from: the deps' files; for an .md5mesh without
 *  --anim, every .md5anim beside it; for a .wmp level, the WADs and the
 *  entity files (models, sprites) it names, found by base name the way the
 *  level's load finds them. Files a model itself names (MD5 textures,
 *  MDL7/HMP7 external skins) and the options an output was made with are
 *  not known. Equal times count as current. */
bool gsio_output_current(const char *input, const char *output, const gsio_update_deps *d);

#endif
