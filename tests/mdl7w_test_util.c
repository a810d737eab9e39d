/* Posing and comparing scenes for the MDL7 writer tests (see the header). */
#include "mdl7w_test_util.h"

#include "write_internal.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t w7_node_of_mesh(const gsio_scene *s, size_t mi)
{
	for (size_t i = 0; i < s->nodes_count; i++)
		if (s->nodes[i].mesh == (int32_t)mi) return (int32_t)i;
	return -1;
}

static float *pose_world(const gsio_scene *s, int32_t a, size_t key)
{
	float *local = malloc((s->nodes_count * 10 + 1) * sizeof(float));
	float *world = malloc((s->nodes_count * 16 + 1) * sizeof(float));
	assert_true(local && world);
	gsioi_pose_nodes(s, a, (double)key, local, world);
	free(local);
	return world;
}

void w7_posed(const gsio_scene *s, size_t mi, int32_t a, size_t key, float *out)
{
	const gsio_mesh *m = &s->meshes[mi];
	int32_t node = w7_node_of_mesh(s, mi);
	size_t frame = 0;
	if (a >= 0 && node >= 0) {
		const gsio_channel *ch = gsioi_morph_channel(&s->animations[a], node);
		if (ch && ch->frames) frame = ch->frames[key];
	} else if (a < 0 && key < m->frames_count) {
		frame = key;
	}
	float *base = malloc((3 * m->vertex_count + 1) * sizeof(float));
	assert_non_null(base);
	if (m->frames_count) assert_true(gsio_mesh_frame_get(m, frame, base, NULL) >= 0);
	else memcpy(base, m->positions, 3 * m->vertex_count * sizeof(float));
	float *world = pose_world(s, a, a >= 0 ? key : 0);
	if (m->skin >= 0 && m->weights.count) {
		const gsio_skin *sk = &s->skins[m->skin];
		for (size_t v = 0; v < m->vertex_count; v++) {
			double acc[3] = {0, 0, 0}, total = 0;
			for (uint32_t k = m->weights.offsets[v]; k < m->weights.offsets[v + 1]; k++) {
				uint32_t j = m->weights.joints[k];
				float S[16], q[3];
				gsioi_mat4_mul(world + 16 * (size_t)sk->joints[j], sk->inverse_bind + 16 * j, S);
				gsioi_xform_point(S, base + 3 * v, q);
				for (int c = 0; c < 3; c++) acc[c] += m->weights.values[k] * (double)q[c];
				total += m->weights.values[k];
			}
			for (int c = 0; c < 3; c++)
				out[3 * v + (size_t)c] = total > 0 ? (float)(acc[c] / total) : base[3 * v + (size_t)c];
		}
	} else {
		static const float ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
		const float *wm = node >= 0 ? world + 16 * (size_t)node : ident;
		for (size_t v = 0; v < m->vertex_count; v++) gsioi_xform_point(wm, base + 3 * v, out + 3 * v);
	}
	free(world);
	free(base);
}

bool w7_joint_position(const gsio_scene *s, const char *name, int32_t a, size_t key, float out[3])
{
	for (size_t i = 0; i < s->nodes_count; i++) {
		if (!s->nodes[i].name || strcmp(s->nodes[i].name, name)) continue;
		float *world = pose_world(s, a, key);
		memcpy(out, world + 16 * i + 12, 3 * sizeof(float));
		free(world);
		return true;
	}
	return false;
}

double w7_pose_gap(const gsio_scene *a, size_t ma, int32_t aa, const gsio_scene *b, size_t mb,
                   int32_t ab, size_t k)
{
	const gsio_mesh *xa = &a->meshes[ma], *xb = &b->meshes[mb];
	assert_int_equal(xa->index_count, xb->index_count);
	float *pa = malloc((3 * xa->vertex_count + 1) * sizeof(float));
	float *pb = malloc((3 * xb->vertex_count + 1) * sizeof(float));
	assert_true(pa && pb);
	w7_posed(a, ma, aa, k, pa);
	w7_posed(b, mb, ab, k, pb);
	double worst = 0;
	for (size_t c = 0; c < xa->index_count; c++)
		for (int i = 0; i < 3; i++) {
			double d = fabs((double)pa[3 * xa->indices[c] + (size_t)i] - (double)pb[3 * xb->indices[c] + (size_t)i]);
			if (d > worst) worst = d;
		}
	free(pa);
	free(pb);
	return worst;
}

static const char *parent_joint(const gsio_scene *s, const gsio_skin *sk, size_t j)
{
	for (int32_t p = s->nodes[sk->joints[j]].parent; p >= 0; p = s->nodes[p].parent)
		for (size_t o = 0; o < sk->joints_count; o++)
			if (sk->joints[o] == p) return s->nodes[p].name;
	return "";
}

/* Vertex v's weights as "name=value" sorted, into buf. */
static void weight_text(const gsio_scene *s, const gsio_mesh *m, size_t v, char *buf, size_t size)
{
	const gsio_skin *sk = &s->skins[m->skin];
	char items[64][96];
	size_t n = 0;
	for (uint32_t k = m->weights.offsets[v]; k < m->weights.offsets[v + 1] && n < 64; k++) {
		if (!(m->weights.values[k] > 0)) continue;
		snprintf(items[n++], sizeof(items[0]), "%s=%.6f", s->nodes[sk->joints[m->weights.joints[k]]].name,
		         (double)m->weights.values[k]);
	}
	qsort(items, n, sizeof(items[0]), (int (*)(const void *, const void *))strcmp);
	buf[0] = 0;
	for (size_t i = 0; i < n; i++) {
		strncat(buf, items[i], size - strlen(buf) - 1);
		strncat(buf, " ", size - strlen(buf) - 1);
	}
}

void w7_assert_same_skeleton(const gsio_scene *a, const gsio_scene *b, const char *what)
{
	if ((a->skins_count > 0) != (b->skins_count > 0))
		fail_msg("%s: %zu skins, read back %zu", what, a->skins_count, b->skins_count);
	if (!a->skins_count) return;
	const gsio_skin *ka = &a->skins[0], *kb = &b->skins[0];
	if (ka->joints_count != kb->joints_count)
		fail_msg("%s: %zu joints, read back %zu", what, ka->joints_count, kb->joints_count);
	for (size_t j = 0; j < ka->joints_count; j++) {
		const char *na = a->nodes[ka->joints[j]].name, *nb = b->nodes[kb->joints[j]].name;
		if (strcmp(na, nb)) fail_msg("%s: joint %zu is '%s', read back '%s'", what, j, na, nb);
		if (strcmp(parent_joint(a, ka, j), parent_joint(b, kb, j)))
			fail_msg("%s: joint '%s' has parent '%s', read back '%s'", what, na, parent_joint(a, ka, j),
			         parent_joint(b, kb, j));
	}
	assert_int_equal(a->meshes_count, b->meshes_count);
	for (size_t mi = 0; mi < a->meshes_count; mi++) {
		const gsio_mesh *ma = &a->meshes[mi], *mb = &b->meshes[mi];
		if (ma->skin < 0) continue;
		assert_int_equal(ma->index_count, mb->index_count);
		for (size_t c = 0; c < ma->index_count; c++) {
			char wa[2048], wb[2048];
			weight_text(a, ma, ma->indices[c], wa, sizeof(wa));
			weight_text(b, mb, mb->indices[c], wb, sizeof(wb));
			if (strcmp(wa, wb)) fail_msg("%s: mesh %zu corner %zu weights '%s', read back '%s'", what, mi, c, wa, wb);
		}
	}
}
