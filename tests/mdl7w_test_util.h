/* Shared by the MDL7 writer tests: a scene's posed vertices (morph frame,
 * node animation, skinning by joint world x inverse bind) and comparisons
 * of two scenes' skeletons and poses. */
#ifndef MDL7W_TEST_UTIL_H
#define MDL7W_TEST_UTIL_H

#include "test_util.h"

/** The node placing mesh mi (its first), -1 when none. */
int32_t w7_node_of_mesh(const gsio_scene *s, size_t mi);

/** Mesh mi's positions (3 a vertex, model space, skinned) in animation a
 *  (-1: the rest pose, or mesh frame `key` when the mesh has frames and no
 *  animation plays them) at key `key`. out: 3 * vertex_count floats. */
void w7_posed(const gsio_scene *s, size_t mi, int32_t a, size_t key, float *out);

/** The world position of the joint named `name` in animation a at key (a
 *  -1: rest); false when no node has that name. */
bool w7_joint_position(const gsio_scene *s, const char *name, int32_t a, size_t key, float out[3]);

/** The largest distance between the posed vertices of mesh ma of a and mesh
 *  mb of b at animation aa / ab key k, triangle corner by triangle corner
 *  (same index count asserted: a folded double-sided face's unused vertex
 *  makes vertex numbers differ, not corners). */
double w7_pose_gap(const gsio_scene *a, size_t ma, int32_t aa, const gsio_scene *b, size_t mb,
                   int32_t ab, size_t k);

/** Asserts both scenes have the same joints (names, the parent joint's
 *  name) in their first skin, and the same weights per triangle corner of each mesh
 *  (joint name and value within 1e-6, zero weights ignored). */
void w7_assert_same_skeleton(const gsio_scene *a, const gsio_scene *b, const char *what);

#endif
