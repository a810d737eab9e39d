/* Helpers shared by the MDL3/4/5 tests (test_mdl_*.c): the corpus files,
 * decoding and loading that must succeed, the facts the corpus's
 * documentation states, a decoded file's layout, and the scene checks
 * against the decoded file. */
#ifndef GSIO_MDL_TEST_UTIL_H
#define GSIO_MDL_TEST_UTIL_H

#include "test_util.h"

#include "gsio_mdl.h"

// -- Corpus files

/** A corpus file read whole: its path, base name and bytes. */
typedef struct cfile {
	char *path;
	const char *base;
	uint8_t *data;
	size_t size;
} cfile;

/* Every *.mdl of the corpus; `supported` picks MDL3/4/5 (1) or the others
 * (0). Skips the test when the corpus is absent. */
size_t corpus_files(int supported, cfile **out);
void free_files(cfile *files, size_t n);
/** The file named `base` of files (fails the test when it is missing). */
cfile *find_file(cfile *files, size_t n, const char *base);
/** gsio_mdl_decode() of c that must succeed (fails the test with the error). */
gsio_mdl_file *decode_ok(const cfile *c);
/* Every scene an importer returns must pass the scene model's own check. */
void validate_ok(const gsio_scene *s, const char *name);
/** gsio_mdl_to_scene() of f that must succeed, validated (validate_ok). */
gsio_scene *scene_ok(const gsio_mdl_file *f, const char *name);

// -- A decoded file's layout

/** Bytes of frame i in the file (its type, bbox and vertices). */
size_t frame_size(const gsio_mdl_file *f, size_t i);
/* Byte offsets of the parts of a decoded file (recomputed from its arrays). */
typedef struct layout {
	size_t uvs, tris, frames, end;
} layout;
layout layout_of(const gsio_mdl_file *f);

// -- Facts from the corpus's SOURCES.md and docs/FORMATS.md §3.7 (-1 / NULL: not stated there)

typedef struct fact {
	const char *file;
	int version;
	int verts, tris, skinverts, frames;
	const char *name_fmt; /**< printf format of frame i's name, with first_index */
	int first_index;
	int skins, skin_type, skin_w, skin_h;
	const char *clip;     /**< the one clip all frames form */
} fact;

/** How many files have facts (the entries fact_for() looks through). */
extern const size_t facts_count;
/** The facts about the corpus file named `base`, NULL when none are stated. */
const fact *fact_for(const char *base);

// -- The scene against the decoded file

/* Corners (triangle, vertex) whose vertex normal points away from the face. */
size_t corners_against_face(const gsio_mesh *m, const gsio_morph_frame *fr);
/* The pairs count the importer recorded (0 when none were split). */
int64_t split_pairs(const gsio_mesh *m);
/* Triangles whose geometric normal agrees with the summed vertex normals;
 * degenerate ones (zero area) are counted in *degenerate. */
size_t ccw_agreeing(const gsio_mesh *m, const float *pos, const float *nrm, size_t *degenerate);
/* Vertices whose normal points away from the centre of the frame's bbox. */
size_t outward_count(const gsio_mesh *m, const gsio_morph_frame *fr);
/** The scene s made of f (named after `base`) holds what f does: counts,
 *  skins as images and materials, one root node, welded vertices, the
 *  triangles with their winding reversed and double-sided pairs folded,
 *  every frame's positions, normals and UVs, the orientation, the clips. */
void check_scene(const gsio_mdl_file *f, const gsio_scene *s, const char *base);

#endif
