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

/** What the record's counts count (the README's "Records" table). A level's
 *  own counts are its blocks': its placed models and sprites are listed by
 *  gsio_record_placed_list(), not summed in. */
typedef struct gsio_record_counts {
	bool level;               /**< a level (.wmp): its nodes carry element kinds */
	size_t welded_vertices;   /**< over the meshes counted (a level: its blocks') */
	size_t triangles_written; /**< the triangles those meshes hold: what a writer writes */
	size_t double_sided_pairs; /**< faces stored both ways round, held once ("gsio:double_sided_pairs") */
	size_t frames;            /**< the file's, vertex or skeletal (source.frames) */
	size_t vertex_frames;     /**< morph frames of the mesh with the most, when it moves (2 or more) */
	size_t skeletal_frames;   /**< the skeletal animations' frames, summed */
	int64_t names_mesh;       /**< the mesh whose frame names are the file's, -1 none */
} gsio_record_counts;

void gsio_record_count(const gsio_scene *s, gsio_record_counts *c);

/** Why triangles_written differs from the stored count, into buf; false
 *  (buf "") when they agree. */
bool gsio_record_triangles_note(const gsio_scene *s, const gsio_record_counts *c, char *buf,
                                size_t size);

/** A file a level places (models, entity files, sprites), with how many
 *  times it is placed. */
typedef struct gsio_record_placed {
	const char *kind;  /**< the element kind: "model" (any entity file but a sprite) or "sprite" */
	const char *name;  /**< its base name as its first placement stores it */
	size_t count;      /**< placements */
	size_t first;      /**< node of the first placement (the list's order) */
} gsio_record_placed;

/** The files the level's elements place, one entry per kind and base name
 *  (case-insensitively), in order of first placement. malloc'd (free());
 *  NULL with *count 0 when there is none; NULL with *count SIZE_MAX when out
 *  of memory. */
gsio_record_placed *gsio_record_placed_list(const gsio_scene *s, size_t *count);

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
