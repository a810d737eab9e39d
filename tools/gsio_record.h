/* One JSON record per input, shared by `gsio info --json`, `gsio convert
 * --report` and `mdl2gltf --report` (the README's "Records" table documents
 * every key). Needs cJSON; not part of the library. */
#ifndef GSIO_RECORD_H
#define GSIO_RECORD_H

#include "gsio.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/** What a scene holds, as the record's keys from "format" to "terrain"
 *  (a new object; the caller owns it). */
cJSON *gsio_record_scene(const gsio_scene *s);

/** Level element kinds ("wmp:element" of a level's nodes), in record order. */
#define GSIO_RECORD_ELEMENT_KINDS 9
extern const char *const gsio_record_element_kinds[GSIO_RECORD_ELEMENT_KINDS];

/** Counts the nodes of each element kind; false when the scene has none
 *  (not a level). */
bool gsio_record_element_counts(const gsio_scene *s, size_t counts[GSIO_RECORD_ELEMENT_KINDS]);

/** Whether scene extra e is a level's file reference ("wmp:file:KIND:NAME",
 *  value the path found or ""): KIND into kind, NAME as *name. */
bool gsio_record_file_ref(const gsio_extra *e, char *kind, size_t kind_size, const char **name);

/** A record: input, output (NULL: null), status, error (err NULL or
 *  GSIO_OK: null), then the keys of `scene` (taken over; NULL after a
 *  failure), warnings (the scene's, then `more`), seconds. */
cJSON *gsio_record_new(const char *input, const char *output, const gsio_error *err,
                       cJSON *scene, const gsio_scene *s, char *const *more, size_t more_count,
                       double seconds);

/** Writes `root` as indented JSON with a final newline, atomically
 *  (gsioi_place_files). 0, or -1 with errno-style failure. */
int gsio_record_write_file(const char *path, const cJSON *root);

#endif
