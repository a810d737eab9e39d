/* WMB levels as scenes, against the WMP levels they were compiled from (the
 * corpus's block, empty, prefab, bestiary, menue, assettest): the same
 * entities (name, file, world position, rotation, scale), geometry bounds
 * that agree, and the analysis blocks moved by what their names say. */
#include "test_util.h"
#include "wmp_test_util.h"
#include "gsio_wmb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ent {
	const char *name, *file;
	float pos[3], rot[9], scale[3];
	bool used;
} ent;

static const char *extra_str(const gsio_scene *s, size_t n, const char *key)
{
	const gsio_extra *x = node_extra(s, n, key);
	return x && x->type == GSIO_EXTRA_STRING ? x->s : "";
}

/* The placed entities (models and sprites) with their world transforms. */
static size_t entities(const gsio_scene *s, ent *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const char *el = extra_str(s, i, "wmp:element");
		if (strcmp(el, "model") && strcmp(el, "sprite")) continue;
		assert_true(n < cap);
		ent *e = &out[n++];
		memset(e, 0, sizeof(*e));
		e->name = extra_str(s, i, "wmp:name");
		e->file = extra_str(s, i, "wmp:file");
		float m[16];
		gsio_node_world_matrix(s, (int32_t)i, m);
		for (int k = 0; k < 3; k++) {
			e->pos[k] = m[12 + k];
			double len = sqrt((double)m[4 * k] * m[4 * k] + (double)m[4 * k + 1] * m[4 * k + 1] +
			                  (double)m[4 * k + 2] * m[4 * k + 2]);
			e->scale[k] = (float)len;
			for (int j = 0; j < 3; j++) e->rot[3 * k + j] = len > 0 ? (float)(m[4 * k + j] / len) : 0;
		}
	}
	return n;
}

/* Union of the world bounds of the level geometry (block meshes). */
static bool geometry_bounds(const gsio_scene *s, float lo[3], float hi[3])
{
	bool any = false;
	for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
	for (size_t i = 0; i < s->nodes_count; i++) {
		if (s->nodes[i].mesh < 0 || strcmp(extra_str(s, i, "wmp:element"), "block")) continue;
		const gsio_mesh *m = &s->meshes[s->nodes[i].mesh];
		float w[16];
		gsio_node_world_matrix(s, (int32_t)i, w);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const float *p = m->positions + 3 * v;
			for (int k = 0; k < 3; k++) {
				float q = w[k] * p[0] + w[4 + k] * p[1] + w[8 + k] * p[2] + w[12 + k];
				lo[k] = q < lo[k] ? q : lo[k];
				hi[k] = q > hi[k] ? q : hi[k];
			}
		}
		any = true;
	}
	return any;
}

typedef struct pair {
	const char *wmb, *wmp;
	bool assets;
	float bounds_tolerance; /* quants the compiled geometry's bounds may differ by */
} pair;

/* The pairs of the corpus. menue's walls keep only their visible face
 * (the compiler drops hidden ones): its bounds shrink by the walls'
 * thickness, 15.5-16.2 quants a side (measured, printed). block's
 * tetrahedron lies within 0.4 quant of the WMP's corners. */
static const pair pairs[] = {
    {"wmp/block.wmb", "wmp/block.wmp", false, 0.5f},
    {"wmp/empty.wmb", "wmp/empty.wmp", false, 0},
    {"wmp/prefab.wmb", "wmp/prefab.wmp", false, 0.01f},
    {"lottershock/Game/Level/bestiary.wmb", "lottershock/Game/Level/bestiary.wmp", true, 0},
    {"lottershock/Game/Level/menue.wmb", "lottershock/Game/Level/menue.wmp", true, 16.2f},
    {"lottershock/Game/Level/assettest.wmb", "lottershock/Game/Level/assettest.wmp", true, 0},
};

static void compare_pair(const pair *p)
{
	char a[1024], b[1024];
	snprintf(a, sizeof(a), "%s", t_corpus_path(p->wmb));
	snprintf(b, sizeof(b), "%s", t_corpus_path(p->wmp));
	gsio_scene *sb = load_level(a, p->assets);
	gsio_scene *sp = load_level(b, p->assets);
	assert_string_equal(sb->format, "WMB");
	enum { CAP = 4096 };
	ent *eb = calloc(CAP, sizeof(ent)), *ep = calloc(CAP, sizeof(ent));
	size_t nb = entities(sb, eb, CAP), np = entities(sp, ep, CAP);
	assert_int_equal(nb, np);
	double worst_pos = 0, worst_rot = 0, worst_scale = 0;
	for (size_t i = 0; i < np; i++) {
		ent *w = &ep[i], *best = NULL;
		double best_d = INFINITY;
		for (size_t j = 0; j < nb; j++) {
			if (eb[j].used || strcmp(eb[j].name, w->name) || strcmp(eb[j].file, w->file)) continue;
			double d = 0;
			for (int k = 0; k < 3; k++) d = fmax(d, fabs((double)eb[j].pos[k] - w->pos[k]));
			if (d < best_d) best_d = d, best = &eb[j];
		}
		if (!best) fail_msg("%s: entity %s (%s) of the WMP is not in the WMB", p->wmb, w->name, w->file);
		best->used = true;
		worst_pos = fmax(worst_pos, best_d);
		for (int k = 0; k < 9; k++) worst_rot = fmax(worst_rot, fabs((double)best->rot[k] - w->rot[k]));
		for (int k = 0; k < 3; k++)
			worst_scale = fmax(worst_scale, fabs((double)best->scale[k] - w->scale[k]) / fmax(1e-6, fabs(w->scale[k])));
	}
	// 0.01 degree turns a unit vector by 1.75e-4.
	print_message("%s: %zu entities, worst position %.5f quant, rotation element %.2e, scale %.2e\n",
	              p->wmb, np, worst_pos, worst_rot, worst_scale);
	assert_true(worst_pos <= 0.01);
	assert_true(worst_rot <= 1.75e-4);
	assert_true(worst_scale <= 1e-5);
	float lb[3], hb[3], lp[3], hp[3];
	bool gb = geometry_bounds(sb, lb, hb), gp = geometry_bounds(sp, lp, hp);
	assert_int_equal(gb, gp);
	if (gb) {
		double worst = 0;
		for (int k = 0; k < 3; k++) worst = fmax(worst, fmax(fabs(lb[k] - lp[k]), fabs(hb[k] - hp[k])));
		print_message("%s: bounds (%g %g %g)-(%g %g %g), WMP (%g %g %g)-(%g %g %g): %.3f apart\n", p->wmb,
		              lb[0], lb[1], lb[2], hb[0], hb[1], hb[2], lp[0], lp[1], lp[2], hp[0], hp[1], hp[2],
		              worst);
		assert_true(worst <= p->bounds_tolerance);
	}
	free(eb);
	free(ep);
	gsio_scene_free(sb);
	gsio_scene_free(sp);
}

static void test_entities_and_bounds_match_the_wmp(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) compare_pair(&pairs[i]);
}

/* The analysis cubes: a 64-quant cube centred on the origin, moved by 128
 * quants along x, y or z, and doubled (a second one 128 along x). */
static void test_moved_blocks_move_along_their_axis(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	static const char *const names[] = {"wmb/block-centered.wmb", "wmb/block-moved-x.wmb",
	                                    "wmb/block-moved-y.wmb", "wmb/block-moved-z.wmb",
	                                    "wmb/block-doubled.wmb"};
	float lo[5][3], hi[5][3];
	for (int i = 0; i < 5; i++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s", t_corpus_path(names[i]));
		gsio_scene *s = load_level(path, false);
		assert_true(geometry_bounds(s, lo[i], hi[i]));
		print_message("%s: (%g %g %g)-(%g %g %g)\n", names[i], lo[i][0], lo[i][1], lo[i][2], hi[i][0],
		              hi[i][1], hi[i][2]);
		gsio_scene_free(s);
	}
	// Centred: the origin at the cube's centre.
	for (int k = 0; k < 3; k++) assert_true(lo[0][k] == -32.0f && hi[0][k] == 32.0f);
	for (int axis = 0; axis < 3; axis++) {
		const float *l = lo[1 + axis], *h = hi[1 + axis];
		for (int k = 0; k < 3; k++) {
			float d0 = l[k] - lo[0][k], d1 = h[k] - hi[0][k];
			assert_true(fabsf(d0 - d1) < 1e-3f); // moved, not resized
			if (k == axis)
				assert_true(d0 == 128.0f); // along its own axis, exactly
			else
				assert_true(fabsf(d0) < 1e-3f); // and no other
		}
	}
	// Doubled: two cubes, the bounds of two cube sizes along one axis.
	int longer = 0;
	for (int k = 0; k < 3; k++) {
		float size0 = hi[0][k] - lo[0][k], size = hi[4][k] - lo[4][k];
		if (fabsf(size - size0) > 1e-3f) longer++;
		assert_true(size >= size0 - 1e-3f);
	}
	assert_int_equal(longer, 1);
	assert_true(hi[4][0] == 160.0f && lo[4][0] == -32.0f);
}

/* menue.wmb decoded (*f, its bytes *d) and its scene, validated. */
static gsio_scene *menue_scene(const gsio_opts *o, gsio_wmb_file **f, uint8_t **d)
{
	size_t size;
	*d = t_read_corpus("lottershock/Game/Level/menue.wmb", &size);
	gsio_error err;
	*f = gsio_wmb_decode(*d, size, "menue.wmb", NULL, &err);
	assert_non_null(*f);
	gsio_scene *s = gsio_wmb_to_scene(*f, NULL, o, &err);
	assert_non_null(s);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	return s;
}

/* menue.wmb's lightmaps: each block's lightmap coordinates as stored, its
 * material's lightmap the page its skin names, the page's texels B,G,R. */
static void test_lightmaps_as_stored(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	uint8_t *d;
	gsio_wmb_file *f;
	gsio_scene *s = menue_scene(NULL, &f, &d);
	size_t blocks = 0;
	for (size_t i = 0; i < s->meshes_count; i++) {
		const gsio_mesh *m = &s->meshes[i];
		unsigned b;
		if (sscanf(m->name, "block_%u", &b) != 1) continue;
		blocks++;
		const gsio_wmb_block *k = &f->blocks[b];
		assert_int_equal(m->vertex_count, 3 * k->triangles_count);
		assert_non_null(m->lightmap_uvs);
		// Triangle 0's first corner (the corners are read backwards: 0, 2, 1).
		const gsio_wmb_vertex *v0 = &k->vertices[k->triangles[0].v[0]];
		assert_true(m->lightmap_uvs[0] == v0->lm[0] && m->lightmap_uvs[1] == v0->lm[1]);
		assert_true(m->uvs[0] == v0->uv[0] && m->uvs[1] == v0->uv[1]);
		const gsio_material *mt = &s->materials[m->parts[0].material];
		uint32_t page = k->skins[0].lightmap;
		assert_true(page > 0);
		assert_true(mt->lightmap_texture.image >= 0);
		const gsio_image *im = &s->images[mt->lightmap_texture.image];
		char want[32];
		snprintf(want, sizeof(want), "lightmap_%u", page);
		assert_string_equal(im->name, want);
		assert_int_equal(im->width, f->lightmap_side);
		const uint8_t *px = f->lightmaps + (size_t)page * 3 * f->lightmap_side * f->lightmap_side;
		for (size_t t = 0; t < (size_t)f->lightmap_side * f->lightmap_side; t += 997)
			for (int c = 0; c < 3; c++) assert_int_equal(im->rgba[4 * t + c], px[3 * t + 2 - c]);
	}
	assert_int_equal(blocks, 6);
	gsio_scene_free(s);
	gsio_wmb_file_free(f);
	free(d);
}

/* GSIO_OPT_BAKE_LIGHTMAPS on menue.wmb: the blocks' uvs are the stored
 * lightmap uvs, one texture a material (no lightmap), the baked images 4
 * times the page's side, and every texel painted is no brighter than the
 * page's texel under it (texture x lightmap, the texture at most 1). */
static void test_lightmaps_baked(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	uint8_t *d;
	gsio_wmb_file *f;
	gsio_opts o = {.flags = GSIO_OPT_BAKE_LIGHTMAPS};
	gsio_scene *s = menue_scene(&o, &f, &d);
	size_t painted = 0, blocks = 0;
	uint32_t ls = f->lightmap_side;
	for (size_t i = 0; i < s->meshes_count; i++) {
		const gsio_mesh *m = &s->meshes[i];
		unsigned b;
		if (sscanf(m->name, "block_%u", &b) != 1) continue;
		blocks++;
		const gsio_wmb_block *k = &f->blocks[b];
		assert_null(m->lightmap_uvs);
		const gsio_wmb_vertex *v0 = &k->vertices[k->triangles[0].v[0]];
		assert_true(m->uvs[0] == v0->lm[0] && m->uvs[1] == v0->lm[1]);
		const gsio_material *mt = &s->materials[m->parts[0].material];
		assert_int_equal(mt->lightmap_texture.image, -1);
		assert_non_null(gsio_extras_get(&mt->extras, "wmb:baked_lightmap"));
		const gsio_image *im = &s->images[mt->base_color_texture.image];
		assert_int_equal(im->width, 4 * ls);
		const uint8_t *page = f->lightmaps + (size_t)k->skins[0].lightmap * 3 * ls * ls;
		for (uint32_t y = 0; y < im->height; y++)
			for (uint32_t x = 0; x < im->width; x++) {
				const uint8_t *px = im->rgba + 4 * ((size_t)y * im->width + x);
				if (!px[3]) continue;
				painted++;
				const uint8_t *lm = page + 3 * ((size_t)(y / 4) * ls + x / 4);
				for (int ch = 0; ch < 3; ch++) assert_true(px[ch] <= lm[2 - ch] + 8);
			}
	}
	print_message("menue.wmb baked: %zu texels painted over %zu blocks\n", painted, blocks);
	assert_int_equal(blocks, 6);
	assert_true(painted > 1000);
	gsio_scene_free(s);
	gsio_wmb_file_free(f);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_entities_and_bounds_match_the_wmp),
	    cmocka_unit_test(test_moved_blocks_move_along_their_axis),
	    cmocka_unit_test(test_lightmaps_as_stored),
	    cmocka_unit_test(test_lightmaps_baked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
