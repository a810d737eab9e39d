/* Unit tests of the core's mesh helpers: packed frame bounds, welding
 * corners, folding double-sided faces, the normal table, bounding boxes and
 * the finite check of float arrays. */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsioi_scene_util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gsioi_packed_bounds against a record-by-record reference, for byte and
 * word records, every tail length the vector loops leave, all vertices and a
 * subset, with and without the copy made in the same pass: the box, the count
 * of bad normal indices and every copied byte. */
static void test_packed_bounds_copy(void **state)
{
	(void)state;
	uint32_t seed = 12345;
	for (uint32_t cs = 1; cs <= 2; cs++) {
		gsio_packed_format pf;
		memset(&pf, 0, sizeof(pf));
		pf.coord_size = cs;
		pf.vertex_stride = 4 * cs;
		pf.normal_offset = 3 * cs;
		pf.normal_table = gsio_anorms;
		pf.normal_count = GSIO_NORMAL_COUNT;
		for (int k = 0; k < 3; k++) {
			pf.scale[k] = 0.25f * (float)(k + 1) * (k == 1 ? -1.0f : 1.0f);
			pf.offset[k] = (float)k - 7.5f;
		}
		for (size_t step = 0; step <= 40; step++) {
			size_t n = step < 40 ? step + 1 : 1001;
			pf.source_count = n;
			size_t bytes = n * pf.vertex_stride;
			uint8_t *data = malloc(bytes), *copy = malloc(bytes + 1);
			uint32_t *used = malloc(n * sizeof(*used));
			assert_true(data && copy && used);
			for (size_t i = 0; i < bytes; i++) {
				seed = seed * 1664525u + 1013904223u;
				data[i] = (uint8_t)(seed >> 24);
			}
			for (size_t v = 0; v < n; v++) // mostly valid normals, a few not
				data[v * pf.vertex_stride + pf.normal_offset] %= (v % 7 == 3) ? 255 : GSIO_NORMAL_COUNT;
			size_t nused = 0;
			for (size_t v = 0; v < n; v += 1 + v % 3) used[nused++] = (uint32_t)v;
			for (int subset = 0; subset < 2; subset++) {
				size_t m = subset ? nused : n;
				unsigned lo[3] = {65535, 65535, 65535}, hi[3] = {0, 0, 0};
				size_t want_bad = 0;
				for (size_t i = 0; i < m; i++) {
					const uint8_t *r = data + (subset ? used[i] : i) * pf.vertex_stride;
					for (int k = 0; k < 3; k++) {
						unsigned c = cs == 1 ? r[k] : (unsigned)(r[2 * k] | r[2 * k + 1] << 8);
						lo[k] = c < lo[k] ? c : lo[k];
						hi[k] = c > hi[k] ? c : hi[k];
					}
					want_bad += r[pf.normal_offset] >= GSIO_NORMAL_COUNT;
				}
				for (int with_copy = 0; with_copy < 2; with_copy++) {
					float mn[3], mx[3];
					size_t bad = 0;
					memset(copy, 0xEE, bytes + 1);
					gsioi_packed_bounds(&pf, data, subset ? used : NULL, m, with_copy ? copy : NULL,
					                    mn, mx, &bad);
					assert_int_equal(bad, want_bad);
					for (int k = 0; k < 3; k++) {
						float a = pf.scale[k] * (float)lo[k] + pf.offset[k];
						float b = pf.scale[k] * (float)hi[k] + pf.offset[k];
						assert_true(mn[k] == (a < b ? a : b));
						assert_true(mx[k] == (a < b ? b : a));
					}
					if (with_copy) assert_memory_equal(copy, data, bytes);
					assert_int_equal(copy[bytes], 0xEE); // not one byte past the frame
				}
			}
			free(data);
			free(copy);
			free(used);
		}
	}
}

/* gsioi_weld on two layouts of the same corners (16-bit keys in a record
 * of vertex and uv keys, as MDL2-5 stores them; 32-bit keys in arrays of
 * their own, as MDL7's corners): one output vertex per distinct (vertex,
 * uv) pair, numbered in corner order, against a brute-force welding,
 * leaving nothing in the caller's arena; a key out of range is an error. */
static void test_weld(void **state)
{
	(void)state;
	enum { NT = 300, NC = 3 * NT, NV = 40, NUV = 25 };
	typedef struct rec16 {
		uint16_t v[3], uv[3];
	} rec16;
	rec16 *r = malloc(NT * sizeof(*r));
	uint32_t *cv = malloc(NC * sizeof(*cv)), *cuv = malloc(NC * sizeof(*cuv));
	uint32_t *a = malloc(NC * sizeof(*a)), *b = malloc(NC * sizeof(*b)), *want = malloc(NC * sizeof(*want));
	uint32_t *pv = malloc(NC * sizeof(*pv)), *puv = malloc(NC * sizeof(*puv));
	assert_true(r && cv && cuv && a && b && want && pv && puv);
	uint32_t seed = 7;
	for (size_t c = 0; c < NC; c++) {
		seed = seed * 1103515245u + 12345u;
		cv[c] = (seed >> 8) % NV;
		cuv[c] = (seed >> 20) % (c < NC / 2 ? 3 : NUV); // many repeats, then fewer
		r[c / 3].v[c % 3] = (uint16_t)cv[c];
		r[c / 3].uv[c % 3] = (uint16_t)cuv[c];
	}
	// Brute force: pairs in order of first corner.
	size_t nwant = 0;
	for (size_t c = 0; c < NC; c++) {
		size_t o = 0;
		while (o < nwant && !(pv[o] == cv[c] && puv[o] == cuv[c])) o++;
		if (o == nwant) pv[nwant] = cv[c], puv[nwant] = cuv[c], nwant++;
		want[c] = (uint32_t)o;
	}
	gsio_error err;
	gsio_arena *tmp = gsioi_arena_create(NULL, 0);
	assert_non_null(tmp);
	size_t na = 0, nb = 0;
	gsioi_corner_keys v16 = {r->v, sizeof(*r), 2}, uv16 = {r->uv, sizeof(*r), 2};
	gsioi_corner_keys v32 = {cv, 3 * sizeof(*cv), 4}, uv32 = {cuv, 3 * sizeof(*cuv), 4};
	assert_true(gsioi_weld(v16, uv16, NC, NV, NUV, a, &na, tmp, &err));
	assert_true(gsioi_weld(v32, uv32, NC, NV, NUV, b, &nb, tmp, &err));
	assert_true(nwant > NUV && nwant < NC); // both welded and split corners
	assert_int_equal(na, nwant);
	assert_int_equal(nb, nwant);
	assert_memory_equal(a, want, NC * sizeof(*a));
	assert_memory_equal(b, want, NC * sizeof(*b));
	// Its tables are its own, freed before it returns: nothing is left in
	// the caller's arena.
	assert_int_equal(gsioi_arena_used(tmp), 0);
	// A key out of range (the last corner's uv, then a vertex). The error
	// is cleared first: a failure keeps the first error it is given.
	cuv[NC - 1] = NUV;
	gsio_error_clear(&err);
	assert_false(gsioi_weld(v32, uv32, NC, NV, NUV, b, &nb, tmp, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	r[5].v[1] = NV;
	gsio_error_clear(&err);
	assert_false(gsioi_weld(v16, uv16, NC, NV, NUV, a, &na, tmp, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	// No corners: no vertices.
	assert_true(gsioi_weld(v16, uv16, 0, 0, 0, a, &na, tmp, &err));
	assert_int_equal(na, 0);
	gsioi_arena_destroy(tmp);
	free(r);
	free(cv);
	free(cuv);
	free(a);
	free(b);
	free(want);
	free(pv);
	free(puv);
}

/* A folded mesh's indices and parts are exactly these. */
static void assert_folded(const gsio_mesh *m, const uint32_t *want, size_t n, const gsio_mesh_part *parts,
                          size_t parts_count)
{
	assert_int_equal(m->index_count, n);
	assert_memory_equal(m->indices, want, n * sizeof(uint32_t));
	assert_int_equal(m->parts_count, parts_count);
	for (size_t p = 0; p < parts_count; p++) {
		assert_int_equal(m->parts[p].first_index, parts[p].first_index);
		assert_int_equal(m->parts[p].index_count, parts[p].index_count);
		assert_int_equal(m->parts[p].material, parts[p].material);
	}
}

/* A fresh scene for a fold test and its scratch arena (*tmp). */
static gsio_scene *fold_scene(gsio_arena **tmp)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	*tmp = gsioi_arena_create(NULL, 0);
	assert_true(s && *tmp);
	return s;
}

/* Mesh m of nv vertices as a fold sees it: the positions, their source
 * vertices, the first nidx indices, every normal +z. */
static void fill_fold_mesh(gsio_mesh *m, const float *pos, const uint32_t *src, size_t nv, const uint32_t *idx,
                           size_t nidx)
{
	memcpy(m->positions, pos, nv * 3 * sizeof(float));
	memcpy(m->source_vertex, src, nv * sizeof(uint32_t));
	memcpy(m->indices, idx, nidx * sizeof(uint32_t));
	for (size_t v = 0; v < nv; v++) m->normals[3 * v + 2] = 1.0f;
}

/* Double-sided faces: a quad stored once each way round on the same four
 * positions (two uv sets for one side) with normals along +z, plus a lone
 * triangle. Each pair folds to the face whose winding agrees with the
 * normals (the up faces), drawn with a double-sided copy of the material in
 * a part of its own after the single faces; a mesh of pairs only keeps one
 * part and its material turns double-sided. */
static void test_fold_double_sided(void **state)
{
	(void)state;
	for (int lone = 1; lone >= 0; lone--) {
		gsio_error err;
		gsio_arena *tmp;
		gsio_scene *s = fold_scene(&tmp);
		int32_t mat = gsio_scene_add_material(s, "skin0", &err);
		assert_int_equal(mat, 0);
		assert_int_equal(gsio_extras_set_int(s, &s->materials[0].extras, "gsio:skin_type", 2, &err), 0);
		static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
		                            5, 5, 0, 6, 5, 0, 5, 6, 0};
		static const uint32_t src[] = {0, 1, 2, 3, 0, 2, 6, 7, 8};
		static const uint32_t idx[] = {
		    4, 3, 5, 2, 1, 0,  // down (clockwise from +z), one on the other uvs
		    0, 1, 2, 0, 2, 3,  // the same two faces up
		    6, 7, 8,           // lone
		};
		size_t ntri = lone ? 5 : 4;
		int32_t mi = gsio_scene_add_mesh(s, "m", 9, 3 * ntri, GSIO_MESH_NORMALS | GSIO_MESH_UVS, mat, &err);
		assert_int_equal(mi, 0);
		gsio_mesh *m = &s->meshes[0];
		m->source_vertex = gsioi_arena_array(s->arena, 9, sizeof(uint32_t), &err);
		assert_non_null(m->source_vertex);
		fill_fold_mesh(m, pos, src, 9, idx, 3 * ntri);
		size_t pairs = 0;
		assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, false, &pairs, &err));
		assert_int_equal(pairs, 2);
		assert_int_equal(m->vertex_count, 9);
		assert_int_equal(gsio_extras_get(&m->extras, "gsio:double_sided_pairs")->i, 2);
		if (lone) {
			// The lone face first, then the two up faces, double-sided.
			static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3};
			static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 1}};
			assert_folded(m, want, 9, wp, 2);
			const gsio_material *dm = &s->materials[m->parts[1].material];
			assert_string_equal(dm->name, "skin0_double_sided");
			assert_true(dm->double_sided);
			assert_false(s->materials[0].double_sided);
			assert_int_equal(gsio_extras_get(&dm->extras, "gsio:skin_type")->i, 2);
			assert_ptr_not_equal(dm->extras.items, s->materials[0].extras.items);
		} else {
			static const uint32_t want[] = {0, 1, 2, 0, 2, 3};
			static const gsio_mesh_part wp[] = {{0, 6, 0}};
			assert_folded(m, want, 6, wp, 1);
			assert_true(s->materials[0].double_sided);
			assert_int_equal(s->materials_count, 1);
		}
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsioi_arena_destroy(tmp);
		gsio_scene_free(s);
	}
}

/* The three ways a part's triangles are searched for a repeat: a fan around
 * one vertex of 8 triangles (its bucket compared pair by pair) and of 40
 * (the bucket sorted), and the 40-fan with its source vertices spread 1000
 * apart (wider than 4 x the keys + 64: the hash table). Each with and
 * without a reversed copy of one fan triangle, which is found as the one
 * pair, the copy (its winding against the normals) dropped. */
static void test_fold_double_sided_paths(void **state)
{
	(void)state;
	static const struct {
		uint32_t ring, spread;
	} cases[] = {{8, 1}, {40, 1}, {40, 1000}};
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		for (int twin = 0; twin < 2; twin++) {
			uint32_t ring = cases[ci].ring, nv = ring + 1;
			size_t ntri = ring - 1 + (size_t)twin;
			gsio_error err;
			gsio_arena *tmp;
			gsio_scene *s = fold_scene(&tmp);
			assert_int_equal(gsio_scene_add_material(s, "skin0", &err), 0);
			int32_t mi = gsio_scene_add_mesh(s, "fan", nv, 3 * ntri, GSIO_MESH_NORMALS, 0, &err);
			assert_int_equal(mi, 0);
			gsio_mesh *m = &s->meshes[0];
			m->source_vertex = gsioi_arena_array(s->arena, nv, sizeof(uint32_t), &err);
			assert_non_null(m->source_vertex);
			for (uint32_t v = 0; v < nv; v++) {
				m->source_vertex[v] = v * cases[ci].spread;
				double t = v ? 6.0 * (v - 1) / ring : 0; // counter-clockwise, under a full turn
				m->positions[3 * v] = v ? (float)cos(t) : 0;
				m->positions[3 * v + 1] = v ? (float)sin(t) : 0;
				m->normals[3 * v + 2] = 1.0f; // +z: the counter-clockwise faces agree
			}
			for (uint32_t i = 1; i < ring; i++) {
				m->indices[3 * (i - 1)] = 0;
				m->indices[3 * (i - 1) + 1] = i;
				m->indices[3 * (i - 1) + 2] = i + 1;
			}
			uint32_t k = ring / 2; // the twin: triangle (0, k, k + 1) the other way round
			if (twin) {
				m->indices[3 * (ntri - 1)] = k + 1;
				m->indices[3 * (ntri - 1) + 1] = k;
				m->indices[3 * (ntri - 1) + 2] = 0;
			}
			size_t pairs = 99;
			assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, false, &pairs, &err));
			assert_int_equal(pairs, (size_t)twin);
			assert_int_equal(m->index_count, 3 * (ntri - (size_t)twin));
			for (size_t x = 0; x < m->index_count; x += 3) // every face left is counter-clockwise
				assert_true(m->indices[x] == 0 && m->indices[x + 2] == m->indices[x + 1] + 1);
			gsioi_arena_destroy(tmp);
			gsio_scene_free(s);
		}
	}
}

/* Two parts (materials skin0, skin1): part 0 is the quad pair and the lone
 * face above, part 1 a pair of its own plus the lone face turned round,
 * which pairs with nothing (its twin has another material). Pairs fold
 * inside their part: each part is its single faces, then its folded pairs.
 * With shared materials (MDL7) the pairs get a double-sided copy, one per
 * material for the whole scene (a second mesh reuses it); with the mesh's
 * own materials a part of pairs only turns its material double-sided. */
static void test_fold_double_sided_parts(void **state)
{
	(void)state;
	static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0,
	                            5, 5, 0, 6, 5, 0, 5, 6, 0, 10, 0, 0, 11, 0, 0, 10, 1, 0};
	static const uint32_t src[] = {0, 1, 2, 3, 0, 2, 6, 7, 8, 9, 10, 11};
	static const uint32_t idx[] = {
	    4, 3, 5, 2, 1, 0, 0, 1, 2, 0, 2, 3, 6, 7, 8, // part 0: quad down, up, lone
	    9, 10, 11, 9, 11, 10, 6, 8, 7,               // part 1: pair, lone turned round
	};
	for (int shared = 1; shared >= 0; shared--) {
		gsio_error err;
		gsio_arena *tmp;
		gsio_scene *s = fold_scene(&tmp);
		assert_int_equal(gsio_scene_add_material(s, "skin0", &err), 0);
		assert_int_equal(gsio_scene_add_material(s, "skin1", &err), 1);
		// Without shared materials part 1 loses its lone face: all pairs.
		size_t ntri = shared ? 8 : 7;
		for (int mesh = 0; mesh < (shared ? 2 : 1); mesh++) {
			int32_t mi = gsio_scene_add_mesh(s, "m", 12, 3 * ntri, GSIO_MESH_NORMALS, 0, &err);
			assert_int_equal(mi, mesh);
			gsio_mesh *m = &s->meshes[mi];
			m->source_vertex = gsioi_arena_array(s->arena, 12, sizeof(uint32_t), &err);
			m->parts = gsioi_arena_array(s->arena, 2, sizeof(gsio_mesh_part), &err);
			assert_true(m->source_vertex && m->parts);
			m->parts_count = 2;
			m->parts[0] = (gsio_mesh_part){0, 15, 0};
			m->parts[1] = (gsio_mesh_part){15, 3 * ntri - 15, 1};
			fill_fold_mesh(m, pos, src, 12, idx, 3 * ntri);
			size_t pairs = 0;
			assert_true(gsioi_mesh_fold_double_sided(s, m, tmp, shared, &pairs, &err));
			assert_int_equal(pairs, 3);
			assert_int_equal(gsio_extras_get(&m->extras, "gsio:double_sided_pairs")->i, 3);
			if (shared) {
				static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3, 6, 8, 7, 9, 10, 11};
				static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 2}, {9, 3, 1}, {12, 3, 3}};
				assert_folded(m, want, 15, wp, 4);
				// The second mesh found the copies the first one made.
				assert_int_equal(s->materials_count, 4);
				assert_string_equal(s->materials[2].name, "skin0_double_sided");
				assert_string_equal(s->materials[3].name, "skin1_double_sided");
				assert_true(s->materials[2].double_sided && s->materials[3].double_sided);
				assert_int_equal(gsio_extras_get(&s->materials[3].extras, "gsio:double_sided_of")->i, 1);
				assert_false(s->materials[0].double_sided || s->materials[1].double_sided);
			} else {
				static const uint32_t want[] = {6, 7, 8, 0, 1, 2, 0, 2, 3, 9, 10, 11};
				static const gsio_mesh_part wp[] = {{0, 3, 0}, {3, 6, 2}, {9, 3, 1}};
				assert_folded(m, want, 12, wp, 3);
				assert_int_equal(s->materials_count, 3);
				assert_true(s->materials[1].double_sided);
				assert_false(s->materials[0].double_sided);
			}
		}
		assert_int_equal(gsio_scene_validate(s, &err), 0);
		gsioi_arena_destroy(tmp);
		gsio_scene_free(s);
	}
}

// -- Normal table

static void test_anorms_match_file(void **state)
{
	(void)state;
	FILE *f = fopen(GSIO_ANORMS_FILE, "r");
	if (!f) {
		print_message("SKIPPED: %s not found\n", GSIO_ANORMS_FILE);
		skip();
	}
	char line[256];
	size_t n = 0;
	double worst = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n') continue;
		double x, y, z;
		// The file is written with '.' decimals; sscanf in the "C" locale reads them.
		if (sscanf(line, "%lf %lf %lf", &x, &y, &z) != 3) fail_msg("bad line: %s", line);
		assert_true(n < GSIO_NORMAL_COUNT);
		const double v[3] = {x, y, z};
		for (int k = 0; k < 3; k++) {
			double d = fabs(v[k] - (double)gsio_anorms[n][k]);
			if (d > worst) worst = d;
		}
		n++;
	}
	fclose(f);
	assert_int_equal(n, GSIO_NORMAL_COUNT);
	if (worst > 1e-6) fail_msg("normal table differs from anorms.txt by %g", worst);
	for (size_t i = 0; i < GSIO_NORMAL_COUNT; i++) {
		const float *a = gsio_anorms[i];
		double len = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]);
		assert_true(fabs(len - 1.0) < 1e-5);
	}
}

// -- Bounding boxes and finite floats

/** gsioi_bbox3() gives the floats of the plain comparison loop (the first
 *  vertex, then v < lo and v > hi), NaN and -0 included, for every count
 *  from 0 to 40 and for 5 000 vertices: bit for bit. */
static void test_bbox3(void **state)
{
	(void)state;
	enum { N = 5000 };
	float *p = malloc(3 * N * sizeof(float));
	assert_non_null(p);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < 3 * N; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (float)((int32_t)x % 2001) / 7.0f;
		if (x % 97 == 0) p[i] = -0.0f;
		if (x % 89 == 0) p[i] = 0.0f;
		if (x % 211 == 0) p[i] = NAN;
	}
	p[0] = 0.0f, p[3] = -0.0f; // -0 after +0: the comparison keeps +0
	size_t checked = 0;
	for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : N) {
		for (size_t off = 0; off < 3 && off * 3 + n <= N; off++) {
			const float *q = p + 3 * off;
			float mn[3], mx[3], wmn[3] = {0, 0, 0}, wmx[3] = {0, 0, 0};
			for (size_t i = 0; i < n; i++)
				for (int k = 0; k < 3; k++) {
					float v = q[3 * i + (size_t)k];
					if (i == 0 || v < wmn[k]) wmn[k] = v;
					if (i == 0 || v > wmx[k]) wmx[k] = v;
				}
			gsioi_bbox3(q, n, mn, mx);
			assert_memory_equal(mn, wmn, sizeof(mn));
			assert_memory_equal(mx, wmx, sizeof(mx));
			checked++;
		}
		if (n == N) break;
	}
	print_message("%zu boxes as the comparison loop makes them\n", checked);

	// gsioi_bbox3_rows(): rows of 6 floats (MDL7's float records) read
	// through a row list in the list's order, which decides the -0 / 0 ties:
	// the box of the rows gathered in that order, for counts 0-40 and 800.
	enum { R = 833 };
	float *g = malloc(3 * R * sizeof(float));
	uint32_t *rows = malloc(R * sizeof(uint32_t));
	assert_true(g && rows);
	size_t row_boxes = 0;
	p[12] = 0.0f, p[18] = -0.0f; // rows 2 and 3 start with +0 and -0
	for (size_t n = 0; n <= 800; n = n < 40 ? n + 1 : 800) {
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			rows[i] = x % R; // repeats and rows no vertex shows
			memcpy(g + 3 * i, p + 6 * (size_t)rows[i], 3 * sizeof(float));
		}
		if (n >= 2) rows[0] = 3, rows[1] = 2; // -0 before +0: the box keeps -0
		if (n >= 2) memcpy(g, p + 18, 12), memcpy(g + 3, p + 12, 12);
		float mn[3], mx[3], wmn[3], wmx[3];
		gsioi_bbox3(g, n, wmn, wmx);
		gsioi_bbox3_rows(p, 6, rows, n, mn, mx);
		assert_memory_equal(mn, wmn, sizeof(mn));
		assert_memory_equal(mx, wmx, sizeof(mx));
		row_boxes++;
		if (n == 800) break;
	}
	print_message("%zu boxes of rows through a list as of the rows gathered\n", row_boxes);
	free(g);
	free(rows);
	free(p);
}

/** gsioi_floats_finite() agrees with isfinite() on every float: for each
 *  length 0-40 and 5 000, all finite (0, -0, subnormals, the largest) and
 *  one infinity or NaN at each place in turn (at every place for short
 *  arrays, the SSE2 blocks' ends for the long one). */
static void test_floats_finite(void **state)
{
	(void)state;
	enum { N = 5000 };
	float *f = malloc(N * sizeof(float));
	assert_non_null(f);
	static const float finite[] = {0.0f, -0.0f, 1e-45f, -1e-40f, FLT_MAX, -FLT_MAX, 1.5f};
	const float odd[] = {INFINITY, -INFINITY, NAN, -NAN};
	size_t checked = 0;
	for (size_t n = 0; n <= N; n = n < 40 ? n + 1 : N) {
		for (size_t i = 0; i < n; i++) f[i] = finite[i % 7];
		assert_true(gsioi_floats_finite(f, n));
		for (size_t at = 0; at < n; at = n < 40 ? at + 1 : at * 2 + 3) {
			for (size_t o = 0; o < 4; o++) {
				f[at] = odd[o];
				assert_false(gsioi_floats_finite(f, n));
				checked++;
			}
			f[at] = finite[at % 7];
		}
		if (n == N) {
			f[N - 1] = NAN; // the scalar tail
			assert_false(gsioi_floats_finite(f, N));
			assert_true(gsioi_floats_finite(f, N - 1));
			f[4095] = INFINITY; // the last of the first 4 096-float block
			assert_false(gsioi_floats_finite(f, 4096));
			break;
		}
	}
	print_message("%zu arrays with one float that is not finite, each found\n", checked);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_packed_bounds_copy),
	    cmocka_unit_test(test_weld),
	    cmocka_unit_test(test_fold_double_sided),
	    cmocka_unit_test(test_fold_double_sided_parts),
	    cmocka_unit_test(test_fold_double_sided_paths),
	    cmocka_unit_test(test_anorms_match_file),
	    cmocka_unit_test(test_bbox3),
	    cmocka_unit_test(test_floats_finite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
