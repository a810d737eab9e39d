/* WMP scenes against what the level compiler made of the same levels
 * (lottershock's .wmb files in the corpus): block geometry, texture
 * coordinates, and entity positions, angles and scales. */
#include "test_util.h"
#include "wmp_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A WMB7 list: offset and length of list i. */
static void wmb_list(const uint8_t *d, size_t size, int i, uint32_t *off, uint32_t *len)
{
	assert_true(size >= 4 + 8 * 20);
	*off = (uint32_t)(d[4 + 8 * i] | d[5 + 8 * i] << 8 | d[6 + 8 * i] << 16 | (uint32_t)d[7 + 8 * i] << 24);
	const uint8_t *q = d + 8 + 8 * i;
	*len = (uint32_t)(q[0] | q[1] << 8 | q[2] << 16 | (uint32_t)q[3] << 24);
	assert_true(*off <= size && *len <= size - *off);
}

/* A lottershock .wmb (rel under Game/) read whole, and where its list i
 * lies (wmb_list). */
static uint8_t *read_wmb(const char *rel, int i, uint32_t *off, uint32_t *len)
{
	size_t size;
	uint8_t *d = t_read_file(lottershock(rel), &size);
	wmb_list(d, size, i, off, len);
	return d;
}

/* The mesh node n places when it is a block's (named block_*), else NULL. */
static const gsio_mesh *block_mesh(const gsio_scene *s, size_t n)
{
	if (s->nodes[n].mesh < 0) return NULL;
	const gsio_mesh *m = &s->meshes[s->nodes[n].mesh];
	return strncmp(m->name, "block_", 6) ? NULL : m;
}

/* The corners of triangle t (its first index) of m in world space (w: the
 * placing node's world matrix). */
static void world_triangle(const float w[16], const gsio_mesh *m, size_t t, float q[3][3])
{
	for (int c = 0; c < 3; c++) {
		const float *l = m->positions + 3 * m->indices[t + (size_t)c];
		for (int k = 0; k < 3; k++) q[c][k] = w[k] * l[0] + w[4 + k] * l[1] + w[8 + k] * l[2] + w[12 + k];
	}
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
}

static float lef(const uint8_t *p)
{
	uint32_t u = le32(p);
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* The UV a scene triangle's linear map gives at point x of its plane
 * (barycentric coordinates, extrapolated), and x's distance to the plane. */
static float plane_uv(const float *p0, const float *p1, const float *p2, const float *uv0,
                      const float *uv1, const float *uv2, const float *x, float uv[2])
{
	double e1[3], e2[3], d[3], n[3];
	for (int k = 0; k < 3; k++) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k], d[k] = x[k] - p0[k];
	n[0] = e1[1] * e2[2] - e1[2] * e2[1];
	n[1] = e1[2] * e2[0] - e1[0] * e2[2];
	n[2] = e1[0] * e2[1] - e1[1] * e2[0];
	double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
	if (nn < 1e-12) return 1e30f;
	double dist = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / sqrt(nn);
	double d11 = 0, d12 = 0, d22 = 0, dd1 = 0, dd2 = 0;
	for (int k = 0; k < 3; k++) {
		d11 += e1[k] * e1[k], d12 += e1[k] * e2[k], d22 += e2[k] * e2[k];
		dd1 += d[k] * e1[k], dd2 += d[k] * e2[k];
	}
	double den = d11 * d22 - d12 * d12;
	double b1 = (d22 * dd1 - d12 * dd2) / den, b2 = (d11 * dd2 - d12 * dd1) / den;
	for (int k = 0; k < 2; k++)
		uv[k] = (float)(uv0[k] + b1 * (uv1[k] - uv0[k]) + b2 * (uv2[k] - uv0[k]));
	return (float)fabs(dist);
}

/* Distance from x to triangle abc (closest point, Ericson's regions). */
static double point_triangle(const float *a, const float *b, const float *c, const float *x)
{
	double ab[3], ac[3], ap[3], p[3];
	for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = x[k] - a[k];
#define DOT(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
	double d1 = DOT(ab, ap), d2 = DOT(ac, ap);
	double bp[3], cp[3];
	for (int k = 0; k < 3; k++) bp[k] = x[k] - b[k], cp[k] = x[k] - c[k];
	double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
#undef DOT
	double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
	if (d1 <= 0 && d2 <= 0) {
		for (int k = 0; k < 3; k++) p[k] = a[k];
	} else if (d3 >= 0 && d4 <= d3) {
		for (int k = 0; k < 3; k++) p[k] = b[k];
	} else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		double v = d1 / (d1 - d3);
		for (int k = 0; k < 3; k++) p[k] = a[k] + v * ab[k];
	} else if (d6 >= 0 && d5 <= d6) {
		for (int k = 0; k < 3; k++) p[k] = c[k];
	} else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		double w = d2 / (d2 - d6);
		for (int k = 0; k < 3; k++) p[k] = a[k] + w * ac[k];
	} else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		for (int k = 0; k < 3; k++) p[k] = b[k] + w * (c[k] - b[k]);
	} else {
		double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
		for (int k = 0; k < 3; k++) p[k] = a[k] + ab[k] * v + ac[k] * w;
	}
	double d = 0;
	for (int k = 0; k < 3; k++) d += (x[k] - p[k]) * (x[k] - p[k]);
	return sqrt(d);
}

/* A lottershock level (Game/Level/<name>.wmp) loaded with the game's
 * assets, beside its compiled <name>.wmb and where the .wmb's list `list`
 * lies (count: its first word). Skips the test without the corpus. */
typedef struct compiled_level {
	gsio_scene *s;
	uint8_t *d;
	uint32_t off, len, count;
} compiled_level;

static compiled_level open_compiled(const char *name, int list)
{
	T_REQUIRE_CORPUS();
	char rel[64];
	compiled_level lvl;
	snprintf(rel, sizeof(rel), "Level/%s.wmp", name);
	lvl.s = load_level(lottershock(rel), true);
	snprintf(rel, sizeof(rel), "Level/%s.wmb", name);
	lvl.d = read_wmb(rel, list, &lvl.off, &lvl.len);
	lvl.count = le32(lvl.d + lvl.off);
	return lvl;
}

static void close_compiled(compiled_level *c)
{
	free(c->d);
	gsio_scene_free(c->s);
}

/* menue.wmb's compiled geometry against the scene's blocks. The compiler
 * drops faces that touch other blocks and clips where walls meet, so the
 * compiled surface is a part of the level's: every compiled triangle (its
 * corners and centroid) lies on one scene block triangle within 1 quant,
 * facing the same way (the file's clockwise order reversed, as the scene's
 * counter-clockwise), and every compiled block's box lies within its scene
 * block's world box, 1 quant out. */
static void test_geometry_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("menue", 17);
	// The scene's block triangles in world space, with their block.
	size_t cap = 0;
	for (size_t n = 0; n < lvl.s->nodes_count; n++)
		if (block_mesh(lvl.s, n)) cap += block_mesh(lvl.s, n)->index_count / 3;
	float(*tri)[3][3] = calloc(cap, sizeof(*tri));
	int *tri_block = calloc(cap, sizeof(int));
	assert_true(tri && tri_block);
	size_t nt_scene = 0;
	float box[16][6];
	int blocks = 0;
	for (size_t n = 0; n < lvl.s->nodes_count; n++) {
		const gsio_mesh *m = block_mesh(lvl.s, n);
		if (!m) continue;
		assert_true(blocks < 16);
		float w[16];
		gsio_node_world_matrix(lvl.s, (int32_t)n, w);
		for (int k = 0; k < 3; k++) box[blocks][k] = 1e30f, box[blocks][3 + k] = -1e30f;
		for (size_t t = 0; t < m->index_count; t += 3, nt_scene++) {
			world_triangle(w, m, t, tri[nt_scene]);
			for (int c = 0; c < 3; c++)
				for (int k = 0; k < 3; k++) {
					float v = tri[nt_scene][c][k];
					if (v < box[blocks][k]) box[blocks][k] = v;
					if (v > box[blocks][3 + k]) box[blocks][3 + k] = v;
				}
			tri_block[nt_scene] = blocks;
		}
		blocks++;
	}
	size_t p = lvl.off + 4, checked = 0;
	double worst = 0;
	for (uint32_t b = 0; b < lvl.count; b++) {
		assert_true(p + 40 <= lvl.off + lvl.len);
		float mins[3] = {lef(lvl.d + p), lef(lvl.d + p + 4), lef(lvl.d + p + 8)};
		float maxs[3] = {lef(lvl.d + p + 12), lef(lvl.d + p + 16), lef(lvl.d + p + 20)};
		uint32_t nv = le32(lvl.d + p + 28), nt = le32(lvl.d + p + 32), ns = le32(lvl.d + p + 36);
		const uint8_t *verts = lvl.d + p + 40, *tris = verts + 28 * (size_t)nv;
		assert_true((size_t)(tris + 12 * (size_t)nt + 20 * (size_t)ns - lvl.d) <= lvl.off + lvl.len);
		int home = -1;
		for (uint32_t t = 0; t < nt; t++) {
			const uint8_t *tr = tris + 12 * (size_t)t;
			float q[4][3];
			for (int c = 0; c < 3; c++) {
				uint32_t vi = (uint32_t)(tr[2 * c] | tr[2 * c + 1] << 8);
				assert_true(vi < nv);
				for (int k = 0; k < 3; k++) q[c][k] = lef(verts + 28 * (size_t)vi + 4 * (size_t)k);
			}
			for (int k = 0; k < 3; k++) q[3][k] = (q[0][k] + q[1][k] + q[2][k]) / 3;
			// The compiled normal, clockwise from outside: reversed.
			double e1[3], e2[3], cn[3];
			for (int k = 0; k < 3; k++) e1[k] = q[1][k] - q[0][k], e2[k] = q[2][k] - q[0][k];
			cn[0] = -(e1[1] * e2[2] - e1[2] * e2[1]);
			cn[1] = -(e1[2] * e2[0] - e1[0] * e2[2]);
			cn[2] = -(e1[0] * e2[1] - e1[1] * e2[0]);
			double best = 1e30;
			int best_block = -1;
			for (size_t k = 0; k < nt_scene; k++) {
				double sn[3], f1[3], f2[3];
				for (int j = 0; j < 3; j++) f1[j] = tri[k][1][j] - tri[k][0][j], f2[j] = tri[k][2][j] - tri[k][0][j];
				sn[0] = f1[1] * f2[2] - f1[2] * f2[1];
				sn[1] = f1[2] * f2[0] - f1[0] * f2[2];
				sn[2] = f1[0] * f2[1] - f1[1] * f2[0];
				double dot = cn[0] * sn[0] + cn[1] * sn[1] + cn[2] * sn[2];
				double ln = sqrt((cn[0] * cn[0] + cn[1] * cn[1] + cn[2] * cn[2]) *
				                 (sn[0] * sn[0] + sn[1] * sn[1] + sn[2] * sn[2]));
				if (!(ln > 0) || dot / ln < 0.999) continue; // not facing the same way
				double far = 0;
				for (int c = 0; c < 4; c++) {
					double e = point_triangle(tri[k][0], tri[k][1], tri[k][2], q[c]);
					if (e > far) far = e;
				}
				// A corner may sit on a neighbouring triangle of the same
				// face: allow the fan's other triangles (same plane).
				if (far > 1) {
					far = 0;
					for (int c = 0; c < 4 && far <= 1; c++) {
						double e = 1e30;
						for (size_t k2 = 0; k2 < nt_scene; k2++) {
							if (tri_block[k2] != tri_block[k]) continue;
							double pn = point_triangle(tri[k2][0], tri[k2][1], tri[k2][2], q[c]);
							if (pn < e) e = pn;
						}
						if (e > far) far = e;
					}
				}
				if (far < best) best = far, best_block = tri_block[k];
			}
			if (!(best <= 1)) fail_msg("block %u triangle %u: no scene face within 1 quant (%g)", b, t, best);
			if (home < 0) home = best_block;
			if (best_block != home) fail_msg("block %u spans scene blocks %d and %d", b, home, best_block);
			if (best > worst) worst = best;
			checked++;
		}
		for (int k = 0; k < 3 && home >= 0; k++)
			if (mins[k] < box[home][k] - 1 || maxs[k] > box[home][3 + k] + 1)
				fail_msg("block %u box [%g %g] on axis %d outside scene block %d's [%g %g]", b, mins[k],
				         maxs[k], k, home, box[home][k], box[home][3 + k]);
		p += 40 + 28 * (size_t)nv + 12 * (size_t)nt + 20 * (size_t)ns;
	}
	print_message("%zu compiled triangles of %u blocks on the scene's %zu block triangles, worst %g quant\n",
	              checked, lvl.count, nt_scene, worst);
	assert_int_equal(lvl.count, 6);
	assert_true(checked >= 12);
	free(tri);
	free(tri_block);
	close_compiled(&lvl);
}

/* menue.wmb's compiled blocks (world positions, tu/tv per vertex) against
 * the scene's block meshes. The compiler clips walls where they meet, so
 * corners move: each compiled vertex is compared with the UV the scene's
 * texture mapping gives at that point of a face plane within 1 quant. */
static void test_uvs_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("menue", 17);
	size_t p = lvl.off + 4, checked = 0;
	float worst = 0;
	for (uint32_t b = 0; b < lvl.count; b++) {
		assert_true(p + 40 <= lvl.off + lvl.len);
		uint32_t nv = le32(lvl.d + p + 28), nt = le32(lvl.d + p + 32), ns = le32(lvl.d + p + 36);
		p += 40;
		for (uint32_t v = 0; v < nv; v++, p += 28) {
			float x[3] = {lef(lvl.d + p), lef(lvl.d + p + 4), lef(lvl.d + p + 8)};
			float tu = lef(lvl.d + p + 12), tv = lef(lvl.d + p + 16);
			float best = 1e30f;
			for (size_t n = 0; n < lvl.s->nodes_count; n++) {
				const gsio_mesh *m = block_mesh(lvl.s, n);
				if (!m) continue;
				float w[16];
				gsio_node_world_matrix(lvl.s, (int32_t)n, w);
				for (size_t t = 0; t < m->index_count; t += 3) {
					float q[3][3];
					world_triangle(w, m, t, q);
					float uv[2];
					float dist = plane_uv(q[0], q[1], q[2], m->uvs + 2 * m->indices[t],
					                      m->uvs + 2 * m->indices[t + 1], m->uvs + 2 * m->indices[t + 2],
					                      x, uv);
					if (dist > 1) continue;
					float e = fabsf(uv[0] - tu) + fabsf(uv[1] - tv);
					if (e < best) best = e;
				}
			}
			if (!(best < 1e-3f)) fail_msg("block %u vertex %u (%g %g %g): UV off by %g", b, v, x[0], x[1], x[2], best);
			if (best > worst) worst = best;
			checked++;
		}
		p += 12 * (size_t)nt + 20 * (size_t)ns;
	}
	print_message("checked %zu compiled UVs of %u blocks, worst |du|+|dv| %g\n", checked, lvl.count, worst);
	assert_true(checked >= 24);
	close_compiled(&lvl);
}

/* bestiary.wmb's compiled entities (name, position, pan/tilt/roll degrees,
 * scale) against the scene's entity nodes: R = Rz(pan) Ry(-tilt) Rx(roll). */
static void test_entities_against_wmb(void **state)
{
	(void)state;
	compiled_level lvl = open_compiled("bestiary", 15);
	size_t matched = 0;
	for (uint32_t i = 0; i < lvl.count; i++) {
		const uint8_t *e = lvl.d + lvl.off + le32(lvl.d + lvl.off + 4 + 4 * i);
		uint32_t type = le32(e);
		if (type != 7 && type != 3) continue;
		float v[9];
		for (int k = 0; k < 9; k++) v[k] = lef(e + 4 + 4 * k);
		char name[34];
		size_t nl = type == 7 ? 33 : 20;
		memcpy(name, e + 40, nl);
		name[nl] = 0;
		// Nodes with this entity name; the nearest one (names repeat).
		float best = 1e30f, w[16] = {0};
		for (size_t k = 0; k < lvl.s->nodes_count; k++) {
			const gsio_extra *x = node_extra(lvl.s, k, "wmp:name");
			if (!x || strcmp(x->s, name)) continue;
			float m[16];
			gsio_node_world_matrix(lvl.s, (int32_t)k, m);
			float dd = fabsf(m[12] - v[0]) + fabsf(m[13] - v[1]) + fabsf(m[14] - v[2]);
			if (dd < best) best = dd, memcpy(w, m, sizeof(w));
		}
		if (!(best <= 0.03f)) fail_msg("entity %s: no node within 0.01 quant (%g)", name, best);
		double pan = v[3] * M_PI / 180, tilt = -v[4] * M_PI / 180, roll = v[5] * M_PI / 180;
		double cz = cos(pan), sz = sin(pan), cy = cos(tilt), sy = sin(tilt), cx = cos(roll), sx = sin(roll);
		// Rz * Ry * Rx, row-major r[row][col].
		double r[3][3] = {{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
		                  {sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
		                  {-sy, cy * sx, cy * cx}};
		for (int col = 0; col < 3; col++)
			for (int row = 0; row < 3; row++) {
				double want = r[row][col] * v[6 + col], got = w[4 * col + row];
				// 0.01 degree on a unit axis is 1.75e-4; scaled by the entity scale.
				if (fabs(want - got) > 2e-4 * fabs(v[6 + col]) + 1e-5)
					fail_msg("entity %s: matrix[%d][%d] %g, compiled %g", name, row, col, got, want);
			}
		matched++;
	}
	print_message("matched %zu compiled entities\n", matched);
	assert_int_equal(matched, 44);
	close_compiled(&lvl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uvs_against_wmb),
	    cmocka_unit_test(test_geometry_against_wmb),
	    cmocka_unit_test(test_entities_against_wmb),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
