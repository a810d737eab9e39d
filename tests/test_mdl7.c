/* The MDL7 codec and scene: conformance over every corpus MDL7 (counts from
 * an independent walk of the files, byte-exact re-encoding, valid scenes),
 * materials, partial frames, the bone-matrix reading, and bad input
 * (truncation, corrupted counts and structure sizes, allocation failures). */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsio_mdl7.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- The corpus

/* Expected counts, from a separate Python walk of the files (not gsio):
 * groups, skins, skins by type & 7, triangles, vertices, frames, bones,
 * deformers (all groups summed). */
typedef struct expect {
	const char *rel;
	size_t groups, skins, by_type[8], tris, verts, frames, bones, deformers;
} expect;

static const expect corpus[] = {
	{"lottershock/ArtSource/collectabables/ammobox.mdl", 1, 1, {0, 0, 0, 0, 0, 1, 0, 0}, 204, 104, 1, 1, 0},
	{"lottershock/ArtSource/decor/cables/cables_hanging.mdl", 3, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 1044, 756, 3, 0, 0},
	{"lottershock/ArtSource/decor/tech/terminalscreen.mdl", 1, 1, {1, 0, 0, 0, 0, 0, 0, 0}, 128, 81, 0, 0, 0},
	{"lottershock/ArtSource/weapons/MotherFlame/flamemother.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 1, 0}, 2979, 1530, 1, 0, 0},
	{"lottershock/Game/Assets/KisteA.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 1, 0}, 164, 87, 1, 0, 0},
	{"lottershock/Game/Assets/cEselslerche.mdl", 1, 2, {0, 0, 0, 0, 0, 0, 0, 2}, 1504, 782, 139, 14, 0},
	{"lottershock/Game/Assets/cbabe_male 2.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 4452, 2249, 35, 20, 0},
	{"lottershock/Game/Assets/enemy_eye.mdl", 1, 1, {0, 0, 0, 0, 1, 0, 0, 0}, 910, 459, 4, 3, 0},
	{"lottershock/Game/Assets/flamemother.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 1, 0}, 2979, 1530, 1, 0, 0},
	{"lottershock/Game/Assets/griechin.mdl", 1, 2, {0, 0, 0, 0, 0, 0, 0, 2}, 1350, 677, 175, 18, 1},
	{"lottershock/Game/Assets/item3.mdl", 1, 1, {0, 0, 0, 0, 1, 0, 0, 0}, 108, 60, 1, 0, 0},
	{"lottershock/Game/Assets/skelett.mdl", 1, 1, {0, 0, 1, 0, 0, 0, 0, 0}, 2519, 1284, 1, 0, 0},
	{"lottershock/Game/Assets/sputnik.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 1564, 832, 25, 19, 0},
	{"lottershock/Game/Assets/tile-floor-turret.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 654, 692, 17, 4, 0},
	{"lottershock/Game/Assets/trident_of_lightning.mdl", 1, 2, {0, 0, 0, 0, 0, 0, 1, 1}, 1262, 773, 102, 14, 1},
	{"lottershock/Game/Assets/triple_shotgun.mdl", 1, 1, {0, 0, 0, 0, 1, 0, 0, 0}, 1172, 600, 1, 0, 0},
	{"lottershock/Game/Assets/whiskas.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 1, 0}, 506, 271, 5, 5, 0},
	{"lottershock/Game/Level/Glockenkessel.mdl", 2, 3, {1, 0, 0, 0, 2, 0, 0, 0}, 2105, 1120, 2, 0, 0},
	{"lottershock/Game/Level/Teleport.mdl", 1, 1, {0, 0, 0, 0, 1, 0, 0, 0}, 122, 63, 1, 0, 0},
	{"lottershock/Game/Level/concept_02.mdl", 223, 0, {0, 0, 0, 0, 0, 0, 0, 0}, 2047, 2371, 223, 0, 0},
	{"lottershock/Game/Level/corridor_01_end.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 102, 120, 1, 0, 0},
	{"lottershock/Game/Level/corridor_02_short_door.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 572, 476, 1, 1, 0},
	{"lottershock/Game/Level/milk.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 62, 80, 0, 0, 0},
	{"lottershock/Game/Level/room_quarters_01.mdl", 1, 1, {0, 0, 0, 0, 0, 0, 0, 1}, 432, 390, 1, 1, 0},
	{"mdl/PhosphoricAcid_MDl7.mdl", 8, 3, {3, 0, 0, 0, 0, 0, 0, 0}, 960, 496, 0, 0, 0},
	{"mdl/Sphere_DiffPinkBlueSpec_Alpha90.mdl", 1, 1, {1, 0, 0, 0, 0, 0, 0, 0}, 120, 62, 0, 0, 0},
	{"mdl/mdl7-tree2.mdl", 1, 1, {0, 0, 1, 0, 0, 0, 0, 0}, 395, 245, 1, 0, 0},
};
#define CORPUS_COUNT (sizeof(corpus) / sizeof(corpus[0]))

typedef struct cfile {
	char path[1024];
	const char *base;
	uint8_t *data;
	size_t size;
} cfile;

/* Reads a corpus file; skips the test when the corpus is absent. */
static void load(const char *rel, cfile *c)
{
	T_REQUIRE_CORPUS();
	snprintf(c->path, sizeof(c->path), "%s", t_corpus_path(rel));
	c->base = gsioi_path_base(c->path);
	c->data = t_read_file(c->path, &c->size);
}

static gsio_scene *scene_of(const cfile *c, const gsio_opts *opts)
{
	gsio_error err;
	gsio_scene *s = gsio_load_memory(c->data, c->size, c->path, opts, &err);
	if (!s) fail_msg("%s: %s", c->base, err.message);
	if (gsio_scene_validate(s, &err)) fail_msg("%s: invalid scene: %s", c->base, err.message);
	return s;
}

/** c's scene loaded with `flags` through *al, an allocator counting into
 *  *st (the caller's: the scene frees through it). */
static gsio_scene *counted_scene(const cfile *c, t_fail_alloc *st, gsio_allocator *al, uint32_t flags)
{
	*st = (t_fail_alloc){0};
	*al = t_fail_allocator(st);
	gsio_opts opts = {0};
	opts.allocator = al;
	opts.flags = flags;
	return scene_of(c, &opts);
}

/** The corpus file rel read into c and decoded. */
static gsio_mdl7_file *decoded(const char *rel, cfile *c)
{
	load(rel, c);
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(c->data, c->size, c->base, NULL, &err);
	if (!f) fail_msg("%s: %s", c->base, err.message);
	return f;
}

// -- Conformance

static void test_corpus_conformance(void **state)
{
	(void)state;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		const expect *e = &corpus[i];
		cfile c;
		load(e->rel, &c);
		gsio_error err;
		gsio_mdl7_file *f = gsio_mdl7_decode(c.data, c.size, c.base, NULL, &err);
		if (!f) fail_msg("%s: %s", c.base, err.message);
		size_t skins = 0, by_type[8] = {0}, tris = 0, verts = 0, frames = 0, defs = 0, most = 0;
		for (size_t g = 0; g < f->groups_count; g++) {
			const gsio_mdl7_group *G = &f->groups[g];
			skins += G->skins_count;
			for (size_t k = 0; k < G->skins_count; k++) by_type[G->skins[k].type & 7]++;
			tris += G->triangles_count;
			verts += G->verts_count;
			frames += G->frames_count;
			most = G->frames_count > most ? G->frames_count : most;
			defs += G->deformers_count;
		}
		assert_int_equal(f->groups_count, e->groups);
		assert_int_equal(skins, e->skins);
		for (int t = 0; t < 8; t++) assert_int_equal(by_type[t], e->by_type[t]);
		assert_int_equal(tris, e->tris);
		assert_int_equal(verts, e->verts);
		assert_int_equal(frames, e->frames);
		assert_int_equal(f->bones_count, e->bones);
		assert_int_equal(defs, e->deformers);
		// The file is the header's data plus the lumps, nothing after.
		assert_int_equal(f->header.data_size + f->entlump_size + f->medlump_size, c.size);
		assert_int_equal(f->trailing_size, 0);
		// Decode -> encode gives the same bytes.
		T_ASSERT_ENCODES_TO(gsio_mdl7_encode, f, c.data, c.size, c.base);
		// The scene is valid and counts what the file holds.
		gsio_scene *s = scene_of(&c, NULL);
		assert_string_equal(s->format, "MDL7");
		assert_int_equal(s->source.triangles, e->tris);
		assert_int_equal(s->source.vertices, e->verts);
		// The file's frames: each group stores them all (griechin: 175 of
		// bone matrices, cEselslerche: 139 of vertices).
		assert_int_equal(s->source.frames, most);
		// Every corpus MDL7 stores float normals: no warning may speak of
		// the normal table.
		assert_int_equal(f->header.mainvertex_stc_size, 26);
		for (size_t w = 0; w < s->warnings_count; w++)
			if (strstr(s->warnings[w], "table") || strstr(s->warnings[w], ">= 162"))
				fail_msg("%s: \"%s\"", c.base, s->warnings[w]);
		// One material per skin, plus the double-sided copies of folded pairs.
		assert_true(s->materials_count >= e->skins);
		size_t tri_out = 0, pairs = 0;
		for (size_t m = 0; m < s->meshes_count; m++) {
			tri_out += s->meshes[m].index_count / 3;
			const gsio_extra *x = gsio_extras_get(&s->meshes[m].extras, "gsio:double_sided_pairs");
			if (x) pairs += (size_t)x->i;
		}
		assert_int_equal(tri_out + pairs, e->tris); // groups without triangles have no mesh
		if (e->bones) {
			assert_int_equal(s->skins_count, 1);
			assert_true(s->skins[0].joints_count >= e->bones);
		}
		print_message("%-28s groups %3zu skins %zu tris %4zu verts %4zu frames %3zu bones %2zu "
		              "-> meshes %zu images %zu anims %zu, %zu bytes re-encoded\n",
		              c.base, e->groups, e->skins, e->tris, e->verts, e->frames, e->bones,
		              s->meshes_count, s->images_count, s->animations_count, c.size);
		gsio_scene_free(s);
		gsio_mdl7_file_free(f);
		free(c.data);
	}
}

static void test_materials(void **state)
{
	(void)state;
	cfile c;
	load("mdl/Sphere_DiffPinkBlueSpec_Alpha90.mdl", &c);
	gsio_scene *s = scene_of(&c, NULL);
	assert_int_equal(s->materials_count, 1);
	const gsio_material *m = &s->materials[0];
	assert_string_equal(m->name, "Skin1");
	assert_float_equal(m->base_color[0], 0.925f, 1e-3);
	assert_float_equal(m->base_color[1], 0.0f, 1e-6);
	assert_float_equal(m->base_color[2], 1.0f, 1e-6);
	assert_float_equal(m->base_color[3], 0.9f, 1e-6); // the opacity, from ambient alpha
	assert_int_equal(m->alpha_mode, GSIO_ALPHA_BLEND);
	assert_int_equal(m->base_color_texture.image, -1); // a material-only skin
	const gsio_extra *x = gsio_extras_get(&m->extras, "gsio:specular");
	assert_non_null(x);
	assert_float_equal(x->floats[2], 1.0f, 1e-6);
	assert_non_null((x = gsio_extras_get(&m->extras, "gsio:power")));
	assert_float_equal(x->f, 10.0, 1e-6);
	gsio_scene_free(s);
	free(c.data);

	// PhosphoricAcid: 8 groups, the 3 materials of group 0 shared by all.
	load("mdl/PhosphoricAcid_MDl7.mdl", &c);
	s = scene_of(&c, NULL);
	assert_int_equal(s->meshes_count, 8);
	assert_int_equal(s->materials_count, 3);
	const char *names[] = {"Ph", "H", "O"};
	for (int k = 0; k < 3; k++) assert_string_equal(s->materials[k].name, names[k]);
	assert_float_equal(s->materials[0].base_color[1], 0.549f, 1e-3);
	assert_int_equal(s->materials[0].alpha_mode, GSIO_ALPHA_OPAQUE);
	bool used[3] = {false, false, false};
	for (size_t i = 0; i < s->meshes_count; i++) {
		assert_int_equal(s->meshes[i].parts_count, 1);
		int32_t mat = s->meshes[i].parts[0].material;
		assert_true(mat >= 0 && mat < 3);
		used[mat] = true;
	}
	assert_true(used[0] && used[1] && used[2]);
	gsio_scene_free(s);
	free(c.data);
}

/* Frame fr's positions as the file gives them: the group's main vertices
 * with the frame's own replacing them (a frame vertex names its main
 * vertex in `bone`), into want (3 floats a main vertex). */
static void file_frame_positions(const gsio_mdl7_group *g, const gsio_mdl7_frame *fr, float *want)
{
	for (size_t v = 0; v < g->verts_count; v++) memcpy(&want[3 * v], g->verts[v].pos, 12);
	for (size_t k = 0; k < fr->verts_count; k++) memcpy(&want[3 * (size_t)fr->verts[k].bone], fr->verts[k].pos, 12);
}

/* tile-floor-turret: frames list 300 of the 692 vertices; each scene frame
 * holds the listed ones where they are and the others at the main vertex. */
static void test_partial_frames(void **state)
{
	(void)state;
	cfile c;
	gsio_mdl7_file *f = decoded("lottershock/Game/Assets/tile-floor-turret.mdl", &c);
	const gsio_mdl7_group *g = &f->groups[0];
	assert_int_equal(g->verts_count, 692);
	size_t partial = 0;
	for (size_t i = 0; i < g->frames_count; i++) partial += g->frames[i].verts_count == 300;
	assert_true(partial > 0);
	gsio_scene *s = scene_of(&c, NULL);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->frames_count, g->frames_count);
	float *want = malloc(3 * g->verts_count * sizeof(float));
	float *pos = malloc(3 * m->vertex_count * sizeof(float));
	assert_non_null(want);
	assert_non_null(pos);
	size_t checked = 0, moved = 0;
	for (size_t i = 0; i < g->frames_count; i++) {
		const gsio_mdl7_frame *fr = &g->frames[i];
		assert_int_equal(gsio_mesh_frame_get(m, i, pos, NULL), 1);
		file_frame_positions(g, fr, want);
		for (size_t k = 0; k < fr->verts_count; k++) {
			size_t v = fr->verts[k].bone;
			// Replaced vertices lie near their own main vertex, not the k-th.
			float d = 0;
			for (int a = 0; a < 3; a++) d += fabsf(fr->verts[k].pos[a] - g->verts[v].pos[a]);
			moved += d > 1e-3f;
		}
		for (size_t v = 0; v < m->vertex_count; v++) {
			const float *got = &pos[3 * v];
			const float *w = &want[3 * m->source_vertex[v]];
			for (int a = 0; a < 3; a++) assert_float_equal(got[a], w[a], 1e-5);
			checked++;
		}
	}
	print_message("tile-floor-turret: %zu frames with 300 of 692 vertices, %zu listed vertices "
	              "moved, %zu scene positions checked\n", partial, moved, checked);
	free(want);
	free(pos);
	gsio_scene_free(s);
	gsio_mdl7_file_free(f);
	free(c.data);
}

/* The stored normal as the scene takes it (mdl7_scene.c): the table row or
 * the floats, unit, negated; row 0 for an index past the table (counted in
 * bad[0]), +z for floats zero or not finite (counted in bad[1]). */
static void stored_normal(const gsio_mdl7_vertex *v, size_t vsize, float out[3], size_t bad[2])
{
	float n[3];
	if (vsize == 16) {
		unsigned ni = v->normal_index;
		if (ni >= GSIO_NORMAL_COUNT) bad[0]++, ni = 0;
		for (int k = 0; k < 3; k++) n[k] = gsio_anorms[ni][k];
	} else {
		for (int k = 0; k < 3; k++) n[k] = v->normal[k];
	}
	double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	if (!isfinite(len) || len < 1e-12) {
		out[0] = out[1] = 0, out[2] = 1;
		bad[1]++;
		return;
	}
	for (int k = 0; k < 3; k++) out[k] = (float)(-n[k] / len);
}

/** Every frame's normals are the main vertices' with the frame's own
 *  replacing them, and a bad stored normal counts once in every frame it
 *  shows in: the main vertices' are worked out once per group, so a main
 *  vertex made bad here must still turn up as +z in each frame that does
 *  not replace it, and in the count of each. */
static void test_frame_normals(void **state)
{
	(void)state;
	cfile c;
	gsio_mdl7_file *f = decoded("lottershock/Game/Assets/tile-floor-turret.mdl", &c);
	gsio_mdl7_group *g = &f->groups[0];
	size_t msize = f->header.mainvertex_stc_size, fsize = f->header.framevertex_stc_size;
	// A main vertex no frame replaces, made bad.
	size_t bad_v = SIZE_MAX;
	for (size_t v = 0; v < g->verts_count && bad_v == SIZE_MAX; v++) {
		bool replaced = false;
		for (size_t i = 0; i < g->frames_count && !replaced; i++)
			for (size_t k = 0; k < g->frames[i].verts_count && !replaced; k++)
				replaced = g->frames[i].verts[k].bone == v;
		if (!replaced) bad_v = v;
	}
	assert_true(bad_v != SIZE_MAX);
	g->verts[bad_v].normal_index = 255;
	memset(g->verts[bad_v].normal, 0, sizeof(g->verts[bad_v].normal));
	gsio_error err;
	gsio_scene *s = gsio_mdl7_to_scene(f, c.base, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->frames_count, g->frames_count);
	float *want = malloc(3 * g->verts_count * sizeof(float));
	float *nrm = malloc(3 * m->vertex_count * sizeof(float));
	assert_non_null(want);
	assert_non_null(nrm);
	size_t bad[2] = {0, 0}, checked = 0, at_bad = 0;
	for (size_t i = 0; i <= g->frames_count; i++) {
		// i == frames_count: the base pose, frame 0 again (its own call).
		const gsio_mdl7_frame *fr = &g->frames[i < g->frames_count ? i : 0];
		for (size_t v = 0; v < g->verts_count; v++) stored_normal(&g->verts[v], msize, &want[3 * v], bad);
		for (size_t k = 0; k < fr->verts_count; k++)
			stored_normal(&fr->verts[k], fsize, &want[3 * (size_t)fr->verts[k].bone], bad);
		if (i == g->frames_count) break;
		assert_int_equal(gsio_mesh_frame_get(m, i, NULL, nrm), 1);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const float *got = &nrm[3 * v];
			const float *w = &want[3 * m->source_vertex[v]];
			for (int a = 0; a < 3; a++)
				if (got[a] != w[a])
					fail_msg("frame %zu vertex %zu [%d]: %g, want %g", i, v, a, (double)got[a], (double)w[a]);
			at_bad += m->source_vertex[v] == bad_v;
			checked++;
		}
	}
	assert_true(at_bad >= g->frames_count);
	// Its vertices are 26 bytes: float normals, no table index to be outside of.
	assert_int_equal(bad[0], 0);
	char text[128];
	snprintf(text, sizeof(text), "%zu vertex normals are zero or not finite: used +z", bad[1]);
	bool found = false;
	for (size_t w = 0; w < s->warnings_count; w++) {
		found = found || !strcmp(s->warnings[w], text);
		if (strstr(s->warnings[w], "table") || strstr(s->warnings[w], ">= 162"))
			fail_msg("a warning about a normal table: \"%s\"", s->warnings[w]);
	}
	if (!found) fail_msg("no warning \"%s\"", text);
	print_message("tile-floor-turret: %zu normals checked, %zu bad stored normals counted\n", checked, bad[1]);
	free(want);
	free(nrm);
	gsio_scene_free(s);
	gsio_mdl7_file_free(f);
	free(c.data);
}

/* 16-byte vertices store a normal table index: one past the table is
 * normal 0 (as in MDL2-5) and said so in MDL2-5's words; nothing speaks of
 * zero normals or +z. KisteA's vertices read as 16-byte ones. */
static void test_table_normals(void **state)
{
	(void)state;
	cfile c;
	gsio_mdl7_file *f = decoded("lottershock/Game/Assets/KisteA.mdl", &c);
	f->header.mainvertex_stc_size = f->header.framevertex_stc_size = 16;
	gsio_mdl7_group *g = &f->groups[0];
	for (size_t v = 0; v < g->verts_count; v++) g->verts[v].normal_index = (uint8_t)(v % 162);
	for (size_t i = 0; i < g->frames_count; i++)
		for (size_t k = 0; k < g->frames[i].verts_count; k++) g->frames[i].verts[k].normal_index = 7;
	g->verts[1].normal_index = g->verts[5].normal_index = 200;
	gsio_error err;
	gsio_scene *s = gsio_mdl7_to_scene(f, c.base, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	size_t said = 0;
	for (size_t w = 0; w < s->warnings_count; w++) {
		unsigned long n;
		char rest[64];
		if (sscanf(s->warnings[w], "%lu vertex normal indices are >= 162; used normal %63[^\n]", &n, rest) == 2) {
			assert_string_equal(rest, "0");
			assert_true(n >= 2 && n % 2 == 0);
			said++;
		}
		if (strstr(s->warnings[w], "+z")) fail_msg("\"%s\"", s->warnings[w]);
	}
	assert_int_equal(said, 1);
	const gsio_mesh *m = &s->meshes[0];
	size_t shown = 0;
	for (size_t v = 0; v < m->vertex_count; v++)
		if (m->source_vertex[v] == 5) {
			for (int k = 0; k < 3; k++) assert_float_equal(m->normals[3 * v + k], -gsio_anorms[0][k], 1e-6);
			shown++;
		}
	assert_true(shown > 0);
	gsio_scene_free(s);
	gsio_mdl7_file_free(f);
	free(c.data);
}

// -- Bones

/* Skinned positions of mesh m at key k of animation a (glTF rules: joint
 * world = parents' locals composed, skin matrix = world * inverse bind). */
static void skinned(const gsio_scene *s, const gsio_animation *a, size_t k, const gsio_mesh *m,
                    float *out)
{
	gsio_scene *c = (gsio_scene *)s; // poses are set in place, then restored
	size_t nn = s->nodes_count;
	gsio_node *saved = malloc(nn * sizeof(*saved));
	assert_non_null(saved);
	memcpy(saved, s->nodes, nn * sizeof(*saved));
	for (size_t ci = 0; ci < a->channels_count; ci++) {
		const gsio_channel *ch = &a->channels[ci];
		if (ch->path == GSIO_PATH_TRANSLATION) memcpy(c->nodes[ch->node].translation, &ch->values[3 * k], 12);
		if (ch->path == GSIO_PATH_ROTATION) memcpy(c->nodes[ch->node].rotation, &ch->values[4 * k], 16);
	}
	const gsio_skin *sk = &s->skins[m->skin];
	float *skm = malloc(sk->joints_count * 16 * sizeof(float));
	assert_non_null(skm);
	for (size_t j = 0; j < sk->joints_count; j++) {
		float w[16];
		gsio_node_world_matrix(s, sk->joints[j], w);
		gsioi_mat4_mul(w, &sk->inverse_bind[16 * j], &skm[16 * j]);
	}
	for (size_t v = 0; v < m->vertex_count; v++) {
		const float *p = &m->positions[3 * v];
		float acc[3] = {0, 0, 0}, tw = 0;
		for (uint32_t i = m->weights.offsets[v]; i < m->weights.offsets[v + 1]; i++) {
			const float *M = &skm[16 * m->weights.joints[i]];
			float wv = m->weights.values[i];
			tw += wv;
			for (int r = 0; r < 3; r++)
				acc[r] += wv * (M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r]);
		}
		for (int r = 0; r < 3; r++) out[3 * v + (size_t)r] = tw > 0 ? acc[r] / tw : p[r];
	}
	free(skm);
	memcpy(c->nodes, saved, nn * sizeof(*saved));
	free(saved);
}

/* Morph frames past the first are kept once per file vertex (float
 * records, gsio_packed_format coord_size 4): every frame reads back (gsio_mesh_frame_get) as the group's main vertices with
 * the frame's replacements, and its box is the box of those positions in
 * the vertices' order, bit for bit. Over every corpus model. */
static void test_frame_records(void **state)
{
	(void)state;
	size_t with_records = 0, frames_checked = 0, saved = 0;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		cfile c;
		gsio_mdl7_file *f = decoded(corpus[i].rel, &c);
		gsio_scene *s = scene_of(&c, NULL);
		// A mesh per group with triangles and vertices, in order.
		for (size_t gi = 0, mi = 0; gi < f->groups_count; gi++) {
			const gsio_mdl7_group *g = &f->groups[gi];
			if (!g->triangles_count || !g->verts_count) continue;
			const gsio_mesh *m = &s->meshes[mi++];
			if (m->frames_count < 2) continue;
			assert_int_equal(g->frames_count, m->frames_count);
			size_t nv = g->verts_count, n = m->vertex_count;
			assert_non_null(m->packed);
			assert_int_equal(m->packed->coord_size, 4);
			assert_int_equal(m->packed->source_count, nv);
			assert_true(m->packed->normal_floats);
			assert_non_null(m->frames[0].positions); // the mesh's own arrays
			for (size_t fi = 1; fi < m->frames_count; fi++) assert_null(m->frames[fi].positions);
			with_records++;
			saved += (m->frames_count - 1) * 24 * n - (m->frames_count - 1) * 24 * nv;
			float *want = malloc(3 * nv * sizeof(float)), *pos = malloc(3 * n * sizeof(float));
			float *nrm = malloc(3 * n * sizeof(float));
			assert_true(want && pos && nrm);
			for (size_t fi = 0; fi < m->frames_count; fi++) {
				file_frame_positions(g, &g->frames[fi], want);
				assert_int_equal(gsio_mesh_frame_get(m, fi, pos, nrm), 1);
				for (size_t v = 0; v < n; v++) {
					if (memcmp(&pos[3 * v], &want[3 * (size_t)m->source_vertex[v]], 12))
						fail_msg("%s frame %zu vertex %zu: not the file's position", c.base, fi, v);
					float len = sqrtf(nrm[3 * v] * nrm[3 * v] + nrm[3 * v + 1] * nrm[3 * v + 1] +
					                  nrm[3 * v + 2] * nrm[3 * v + 2]);
					if (fabsf(len - 1) > 1e-4f) fail_msg("%s frame %zu vertex %zu: normal %g long", c.base, fi, v, (double)len);
				}
				float mn[3], mx[3];
				gsioi_bbox3(pos, n, mn, mx);
				if (memcmp(mn, m->frames[fi].bbox_min, sizeof(mn)) || memcmp(mx, m->frames[fi].bbox_max, sizeof(mx)))
					fail_msg("%s frame %zu: box is not the box of its positions", c.base, fi);
				frames_checked++;
			}
			free(want);
			free(pos);
			free(nrm);
		}
		gsio_scene_free(s);
		gsio_mdl7_file_free(f);
		free(c.data);
	}
	print_message("%zu morph meshes kept as float records; %zu frames checked; %zu KB fewer "
	              "than floats per vertex\n", with_records, frames_checked, saved / 1024);
	assert_true(with_records > 0);
}

/* The bone matrices compose down the tree (mdl7_scene.c says why): every
 * key of every animation of the boned corpus models keeps the skinned mesh
 * within a sane size of its rest pose (an exploded reading does not). */
static void test_bone_animation(void **state)
{
	(void)state;
	const char *files[] = {"lottershock/Game/Assets/griechin.mdl",
	                       "lottershock/Game/Assets/cEselslerche.mdl",
	                       "lottershock/Game/Assets/sputnik.mdl",
	                       "lottershock/Game/Assets/cbabe_male 2.mdl",
	                       "lottershock/Game/Assets/trident_of_lightning.mdl"};
	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		cfile c;
		load(files[fi], &c);
		gsio_scene *s = scene_of(&c, NULL);
		const gsio_mesh *m = &s->meshes[0];
		assert_int_equal(m->skin, 0);
		float *p = malloc(3 * m->vertex_count * sizeof(float));
		assert_non_null(p);
		float rmin[3], rmax[3];
		gsioi_bbox3(m->positions, m->vertex_count, rmin, rmax);
		double rest = 0, worst = 1;
		for (int a = 0; a < 3; a++) rest += (double)(rmax[a] - rmin[a]) * (rmax[a] - rmin[a]);
		rest = sqrt(rest);
		size_t keys = 0;
		for (size_t ai = 0; ai < s->animations_count; ai++) {
			const gsio_animation *an = &s->animations[ai];
			for (size_t k = 0; k < an->frames_count; k++, keys++) {
				skinned(s, an, k, m, p);
				float mn[3], mx[3];
				gsioi_bbox3(p, m->vertex_count, mn, mx);
				double d = 0;
				for (int a = 0; a < 3; a++) d += (double)(mx[a] - mn[a]) * (mx[a] - mn[a]);
				double ratio = sqrt(d) / rest;
				if (fabs(log(ratio)) > fabs(log(worst))) worst = ratio;
			}
		}
		print_message("%-24s %zu keys: skinned bbox diagonal within %.2fx of rest (%.1f)\n",
		              gsioi_path_base(files[fi]), keys, worst, rest);
		assert_true(keys > 0);
		assert_true(worst > 0.5 && worst < 2.0); // poses stretch (cEselslerche: 1.62x), readings that explode do not stay this close
		free(p);
		gsio_scene_free(s);
		free(c.data);
	}
}

// -- Bad input

static void expect_clean_failure(const uint8_t *d, size_t n, const char *what, size_t at)
{
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(d, n, "cut.mdl", NULL, &err);
	if (f) {
		// Only a cut inside the lumps may decode (their sizes are then wrong: no).
		fail_msg("%s cut at %zu decoded", what, at);
	}
	if (err.code != GSIO_ERR_TRUNCATED && err.code != GSIO_ERR_CORRUPT)
		fail_msg("%s cut at %zu: %s (%s)", what, at, gsio_error_code_name(err.code), err.message);
}

static void test_truncation(void **state)
{
	(void)state;
	size_t small = 0, large = 0;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		cfile c;
		load(corpus[i].rel, &c);
		if (c.size <= 40000) {
			for (size_t n = 0; n < c.size; n++) expect_clean_failure(c.data, n, c.base, n);
			small++;
		} else {
			for (size_t k = 0; k < 1000; k++)
				expect_clean_failure(c.data, (size_t)((double)k * (double)c.size / 1000.0), c.base, k);
			large++;
		}
		free(c.data);
	}
	print_message("truncated %zu small files at every byte and %zu large ones at 1000 offsets\n",
	              small, large);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void test_corrupt_header(void **state)
{
	(void)state;
	const char *files[] = {"mdl/Sphere_DiffPinkBlueSpec_Alpha90.mdl", "mdl/mdl7-tree2.mdl",
	                       "lottershock/Game/Assets/griechin.mdl"};
	for (size_t fi = 0; fi < 3; fi++) {
		cfile c;
		load(files[fi], &c);
		uint8_t *d = malloc(c.size);
		assert_non_null(d);
		// Counts: bones, groups, data size, lumps; huge, off by one, negative.
		const uint32_t vals[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x10000u, 1, 2, 0x80000000u};
		for (size_t off = 8; off < 28; off += 4)
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				memcpy(d, c.data, c.size);
				uint32_t old = gsioi_le32(d + off);
				if (vals[v] == old) continue;
				put32(d + off, vals[v]);
				gsio_error err;
				gsio_mdl7_file *f = gsio_mdl7_decode(d, c.size, c.base, NULL, &err);
				if (f) { // e.g. one bone fewer can still parse: then it must re-encode
					T_ASSERT_ENCODES_TO(gsio_mdl7_encode, f, d, c.size, c.base);
					gsio_scene *s = gsio_mdl7_to_scene(f, c.base, NULL, &err);
					if (s) {
						assert_int_equal(gsio_scene_validate(s, &err), 0);
						gsio_scene_free(s);
					}
					gsio_mdl7_file_free(f);
					continue;
				}
				assert_true(err.code == GSIO_ERR_CORRUPT || err.code == GSIO_ERR_TRUNCATED);
			}
		// Structure sizes: every other value is refused as unsupported.
		for (size_t off = 28; off < 48; off += 2) {
			const uint16_t vals16[] = {0, 1, 8, 20, 27, 29, 100, 0xFFFF};
			for (size_t v = 0; v < sizeof(vals16) / sizeof(vals16[0]); v++) {
				memcpy(d, c.data, c.size);
				if (gsioi_le16(d + off) == vals16[v]) continue;
				d[off] = (uint8_t)vals16[v];
				d[off + 1] = (uint8_t)(vals16[v] >> 8);
				gsio_error err;
				gsio_mdl7_file *f = gsio_mdl7_decode(d, c.size, c.base, NULL, &err);
				if (f) fail_msg("%s: structure size at %zu = %u decoded", c.base, off, vals16[v]);
				assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
				assert_int_equal(err.offset, (int64_t)off);
			}
		}
		// A legal but different size (26-byte triangles read as 16) misparses: caught.
		memcpy(d, c.data, c.size);
		uint16_t ts = gsioi_le16(d + 38);
		d[38] = ts == 26 ? 16 : 26;
		gsio_error err;
		assert_null(gsio_mdl7_decode(d, c.size, c.base, NULL, &err));
		assert_true(err.code == GSIO_ERR_CORRUPT || err.code == GSIO_ERR_TRUNCATED);
		// Group counts (numskins .. numframes of group 0).
		size_t g0 = 48 + (size_t)gsioi_le32(c.data + 8) * gsioi_le16(c.data + 28);
		for (size_t off = g0 + 24; off < g0 + 44; off += 4)
			for (size_t v = 0; v < 3; v++) {
				memcpy(d, c.data, c.size);
				put32(d + off, v == 0 ? 0xFFFFFFFFu : v == 1 ? 0x10000000u : gsioi_le32(d + off) + 1);
				gsio_mdl7_file *f = gsio_mdl7_decode(d, c.size, c.base, NULL, &err);
				if (f) fail_msg("%s: group count at %zu decoded", c.base, off);
				assert_true(err.code == GSIO_ERR_CORRUPT || err.code == GSIO_ERR_TRUNCATED ||
				            err.code == GSIO_ERR_UNSUPPORTED);
			}
		free(d);
		free(c.data);
	}
}

/* Bones that run past mdl7data_size (the header says the data ends at the
 * header; two bones follow it), then a group whose one skin claims 2 GB of
 * texture name and a material record: refused at the data size (offset 16)
 * before any group is read. fuzz_mdl7 found the shape: the reader was
 * narrowed to data_size behind its position, its room left wrapped around
 * and the skin's reads went 7 MB past a 4.5 KB file. */
static void test_bones_past_data_size(void **state)
{
	(void)state;
	uint8_t d[48 + 32 + 44 + 28 + 68];
	memset(d, 0, sizeof(d));
	memcpy(d, "MDL7", 4);
	put32(d + 8, 2);  // bones
	put32(d + 12, 1); // groups
	put32(d + 16, 48); // mdl7data_size: the header alone
	static const uint16_t sizes[10] = {16, 28, 16, 68, 8, 12, 16, 16, 68, 24};
	for (int i = 0; i < 10; i++) d[28 + 2 * i] = (uint8_t)sizes[i], d[29 + 2 * i] = (uint8_t)(sizes[i] >> 8);
	uint8_t *g = d + 48 + 32;
	put32(g + 24, 1); // numskins
	uint8_t *sk = g + 44;
	sk[0] = GSIO_MDL7_SKIN_EXTERNAL | GSIO_MDL7_SKIN_MATERIAL;
	put32(sk + 4, 0x7FFF0000u); // bytes of the texture name
	gsio_error err;
	assert_null(gsio_mdl7_decode(d, sizeof(d), "bones.mdl", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, 16);
	assert_non_null(strstr(err.message, "bones end at 80, past mdl7data_size 48"));
	assert_null(gsio_load_memory(d, sizeof(d), "bones.mdl", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	// Bones that end at the data size are fine; then the group does not fit.
	put32(d + 16, 80);
	assert_null(gsio_mdl7_decode(d, sizeof(d), "bones.mdl", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, 12);
}

/* 1 500 skins, nearly all named "s": material names unique as they always
 * must be (s, s.2, ...: the first free suffix; "s.3" given to the skin named
 * so, an unnamed skin named by its number). Unique names were a scan of all
 * names per suffix tried would take seconds here and minutes at 8 000. */
static void test_skins_one_name(void **state)
{
	(void)state;
	enum { N = 1500 };
	size_t size = 48 + 44 + (size_t)N * 28;
	uint8_t *d = calloc(1, size);
	assert_non_null(d);
	memcpy(d, "MDL7", 4);
	put32(d + 12, 1); // groups
	put32(d + 16, (uint32_t)size);
	static const uint16_t sizes[10] = {16, 28, 16, 68, 8, 12, 16, 16, 68, 24};
	for (int i = 0; i < 10; i++) d[28 + 2 * i] = (uint8_t)sizes[i], d[29 + 2 * i] = (uint8_t)(sizes[i] >> 8);
	put32(d + 48 + 24, N); // numskins
	for (size_t i = 0; i < N; i++) {
		uint8_t *sk = d + 48 + 44 + 28 * i;
		sk[0] = 1; // a reference to another skin: no pixels
		const char *name = i == 2 ? "s.3" : i == 5 ? "" : "s";
		memcpy(sk + 12, name, strlen(name));
	}
	gsio_error err;
	gsio_scene *s = gsio_load_memory(d, size, "skins.mdl", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->materials_count, N);
	for (size_t i = 0; i < N; i++) {
		char want[32];
		t_suffixed_name(i, "skin5", want, sizeof(want));
		assert_string_equal(s->materials[i].name, want);
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	free(d);
}

static size_t alloc_failure_loop(const cfile *c, uint32_t flags)
{
	gsio_opts opts = {0};
	opts.flags = flags;
	t_load_input in = {c->data, c->size, c->path, &opts, NULL};
	return t_each_alloc_fails(c->base, t_try_load, &in, T_NOMEM_OR_LIMIT, 1).calls;
}

static void test_allocation_failures(void **state)
{
	(void)state;
	const char *files[] = {"mdl/Sphere_DiffPinkBlueSpec_Alpha90.mdl", "mdl/PhosphoricAcid_MDl7.mdl",
	                       "mdl/mdl7-tree2.mdl", "lottershock/Game/Assets/tile-floor-turret.mdl",
	                       "lottershock/Game/Assets/whiskas.mdl",
	                       "lottershock/Game/Assets/griechin.mdl",
	                       "lottershock/Game/Assets/skelett.mdl"}; // a skin kept as stored, lent
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		cfile c;
		load(files[i], &c);
		// Skins decoded, and kept as stored (copied out of the file's bytes
		// after the decode: gsioi_images_unlend).
		for (int stored = 0; stored < 2; stored++) {
			size_t k = alloc_failure_loop(&c, stored ? GSIO_OPT_NO_PIXELS : 0);
			print_message("%-28s %s: every one of %zu allocations failed in turn: clean\n", c.base,
			              stored ? "stored skins" : "decoded skins", k);
		}
		free(c.data);
	}
}

/* A load's scratch is freed as soon as it is done with, so what a load holds
 * at its peak stays near what it keeps (the decoded file and the scene).
 * Counted through the allocator, which every arena of a load uses; the
 * bounds leave room for AddressSanitizer's 16-byte gap behind each arena
 * block. concept_02 (223 groups of 4 to 22 vertices): each group's scratch
 * is freed when the group is done (group_mesh); kept to the end it would be
 * 466 KB beside a scene of 237 KB, over kept + 5.7 x the file. skelett (one
 * group of 2 519 triangles): the welding tables (260 KB) are freed before
 * the pose is made (weld_group), or the peak would pass kept + 2.1 x the
 * file. Static meshes of one group (corridor_02_short_door,
 * room_quarters_01, cables_hanging): the welding needs no corner-sized
 * tables beyond two, and the group's vertices are made in the scene, not
 * copied there. */
static void test_load_scratch(void **state)
{
	(void)state;
	static const struct {
		const char *rel;
		size_t min_meshes;
		double files; // the bound: the scene and this many times the file
	} cases[] = {
	    {"lottershock/Game/Level/concept_02.mdl", 200, 3.0},
	    {"lottershock/Game/Assets/skelett.mdl", 1, 1.4},
	    // Static groups: their main vertices in an arena of their own, freed
	    // before the fold (the peak is about 20 KB lower than with them kept).
	    {"lottershock/Game/Level/corridor_02_short_door.mdl", 1, 3.0},
	    {"lottershock/Game/Level/room_quarters_01.mdl", 1, 3.3},
	    {"lottershock/ArtSource/decor/cables/cables_hanging.mdl", 1, 2.6},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfile c;
		load(cases[i].rel, &c);
		t_fail_alloc st;
		gsio_allocator al;
		gsio_scene *s = counted_scene(&c, &st, &al, 0);
		assert_true(s->meshes_count >= cases[i].min_meshes);
		size_t kept = st.bytes; // the scene's arena
		size_t bound = kept + (size_t)(cases[i].files * (double)c.size);
		print_message("%s: %zu meshes; the load's peak %zu bytes, the scene %zu, the file %zu "
		              "(bound %zu)\n",
		              c.base, s->meshes_count, st.peak_bytes, kept, c.size, bound);
		assert_true(st.peak_bytes <= bound);
		gsio_scene_free(s);
		assert_int_equal(st.live, 0);
		free(c.data);
	}
}

/** Skins kept as stored (GSIO_OPT_NO_PIXELS) point into the file's bytes
 *  only while the scene is built (gsio_mdl7_read lends them) and are the
 *  scene's own afterwards: no image's pixels lie inside the buffer the
 *  scene was read from, and they are the same after that buffer is
 *  scribbled over and freed (ASan: no read of freed memory). skelett's
 *  load with stored skins peaks without its 125 KB skin on top of the
 *  welding and frames: under the scene plus 0.95 times the file (1.21
 *  when the skin was copied as it was met). */
static void test_stored_skins_own_bytes(void **state)
{
	(void)state;
	size_t stored = 0;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		cfile c;
		load(corpus[i].rel, &c);
		t_fail_alloc st;
		gsio_allocator al;
		gsio_scene *s = counted_scene(&c, &st, &al, GSIO_OPT_NO_PIXELS);
		uint64_t sum[64] = {0};
		size_t n = s->images_count < 64 ? s->images_count : 64;
		for (size_t k = 0; k < n; k++) {
			const gsio_image *im = &s->images[k];
			if (!im->stored) continue;
			stored++;
			assert_false(im->stored >= c.data && im->stored < c.data + c.size);
			size_t bytes = (size_t)im->width * im->height * gsio_pixel_size(im->source_format);
			for (size_t b = 0; b < bytes; b++) sum[k] = sum[k] * 31 + im->stored[b];
		}
		if (strstr(c.base, "skelett")) {
			double files = (double)(st.peak_bytes - st.bytes) / (double)c.size;
			print_message("%s, stored skins: the load's peak %zu bytes, the scene %zu, the file %zu "
			              "(peak = scene + %.2f files)\n",
			              c.base, st.peak_bytes, st.bytes, c.size, files);
			assert_true(files < 0.95);
		}
		memset(c.data, 0x5a, c.size);
		free(c.data);
		for (size_t k = 0; k < n; k++) {
			const gsio_image *im = &s->images[k];
			if (!im->stored) continue;
			uint64_t h = 0;
			size_t bytes = (size_t)im->width * im->height * gsio_pixel_size(im->source_format);
			for (size_t b = 0; b < bytes; b++) h = h * 31 + im->stored[b];
			assert_true(h == sum[k]);
		}
		gsio_scene_free(s);
		assert_int_equal(st.live, 0);
	}
	print_message("%zu stored skins, none in the file's bytes\n", stored);
	assert_true(stored >= 5);
}

static void test_no_animation(void **state)
{
	(void)state;
	cfile c;
	load("lottershock/Game/Assets/cEselslerche.mdl", &c);
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	gsio_scene *s = scene_of(&c, &opts);
	assert_int_equal(s->animations_count, 0);
	assert_int_equal(s->meshes[0].frames_count, 0);
	gsio_scene_free(s);
	s = scene_of(&c, NULL);
	assert_true(s->animations_count > 5);
	assert_int_equal(s->meshes[0].frames_count, 139);
	bool walk = false;
	for (size_t i = 0; i < s->animations_count; i++) walk = walk || !strcmp(s->animations[i].name, "walk");
	assert_true(walk); // "walk 0".."walk 5" -> "walk"
	gsio_scene_free(s);
	free(c.data);
}

/* The file changed, loaded both ways: the same failure (code, offset,
 * message), or scenes with the same positions. A full load may also fail
 * where a first-frame load does not on what only a full load builds: a
 * frame's positions that are not finite, which the scene refuses with no
 * offset (the file's structure is sound). Returns 1 when both failed on a
 * frame. */
static int same_both_ways(const uint8_t *data, size_t size, const char *base, const char *what)
{
	gsio_error full_err, first_err;
	uint64_t full = t_load_outcome(data, size, "cut.mdl", 0, &full_err);
	uint64_t first = t_load_outcome(data, size, "cut.mdl", GSIO_OPT_NO_ANIMATION, &first_err);
	if (!full && first && full_err.offset < 0) return 0; // a frame the first-frame load does not build
	if (!full != !first || full_err.code != first_err.code || full_err.offset != first_err.offset ||
	    strcmp(full_err.message, first_err.message) || full != first)
		fail_msg("%s, %s: a full load gave %s (%d at %lld: %s), a first-frame load %s (%d at %lld: %s)", base,
		         what, full ? "a scene" : "NULL", full_err.code, (long long)full_err.offset,
		         full_err.message, first ? "a scene" : "NULL", first_err.code,
		         (long long)first_err.offset, first_err.message);
	return !full && strstr(full_err.message, "frame ") != NULL;
}

/* c with n bytes at `at` replaced, loaded both ways: both must fail, as
 * corrupt at `at`. */
static void aimed_change(const cfile *c, size_t at, const uint8_t *bytes, size_t n, const char *what)
{
	uint8_t *copy = malloc(c->size);
	assert_non_null(copy);
	memcpy(copy, c->data, c->size);
	memcpy(copy + at, bytes, n);
	same_both_ways(copy, c->size, c->base, what);
	gsio_error e;
	assert_null(gsio_load_memory(copy, c->size, "cut.mdl", NULL, &e));
	if (e.code != GSIO_ERR_CORRUPT || e.offset != (int64_t)at)
		fail_msg("%s, %s: %s at %lld, not corrupt at %zu", c->base, what, e.message, (long long)e.offset, at);
	free(copy);
}

/* A first-frame load (GSIO_OPT_NO_ANIMATION) keeps each group's first
 * frame and only checks the others: it must fail as a full load does, at
 * the same offset with the same message, and build the same pose. Every
 * corpus MDL7: cuts spread over the file, 16-bit fields set to 0xffff
 * spread over it, a late frame's first "replaces vertex" index and first
 * bone set past their range, the last frame's counts past the file. */
static void test_first_frame_checks_every_frame(void **state)
{
	(void)state;
	size_t checks = 0, frame_failures = 0;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		cfile c;
		load(corpus[i].rel, &c);
		uint8_t *copy = malloc(c.size);
		assert_non_null(copy);
		frame_failures += (size_t)same_both_ways(c.data, c.size, c.base, "as it is");
		for (size_t k = 0; k < 48; k++, checks++) {
			char what[64];
			size_t cut = 1 + (c.size - 2) * k / 47;
			snprintf(what, sizeof(what), "cut to %zu bytes", cut);
			frame_failures += (size_t)same_both_ways(c.data, cut, c.base, what);
		}
		for (size_t k = 0; k < 96; k++, checks++) {
			char what[64];
			size_t at = 128 + (c.size - 130) * k / 95;
			memcpy(copy, c.data, c.size);
			copy[at] = copy[at + 1] = 0xff;
			snprintf(what, sizeof(what), "0xffff at %zu", at);
			frame_failures += (size_t)same_both_ways(copy, c.size, c.base, what);
		}
		free(copy);
		free(c.data);
	}
	// Targeted: in every one-group model of two frames or more, the first
	// "replaces vertex" index of the last frame (past the first) that
	// replaces vertices, and the first bone of the last frame that has bone
	// matrices, each set past its range. The group's frames are the last of
	// it, ending at mdl7data_size, so a frame's offset is worked back from
	// there with the decoded frames' sizes (in a group without deformers,
	// whose data follows the frames).
	size_t targeted = 0;
	for (size_t i = 0; i < CORPUS_COUNT; i++) {
		cfile c;
		gsio_mdl7_file *f = decoded(corpus[i].rel, &c);
		const gsio_mdl7_header *h = &f->header;
		const gsio_mdl7_group *g = &f->groups[0];
		if (f->groups_count != 1 || g->frames_count < 2 || g->deformers_num) { // deformers follow the frames
			gsio_mdl7_file_free(f);
			free(c.data);
			continue;
		}
		size_t vs = h->framevertex_stc_size, ms = h->bonetrans_stc_size;
		size_t *start = malloc(g->frames_count * sizeof(size_t));
		assert_non_null(start);
		size_t end = h->data_size;
		for (size_t k = g->frames_count; k-- > 0;) {
			end -= h->frame_stc_size + g->frames[k].verts_count * vs + g->frames[k].matrices_count * ms;
			start[k] = end;
		}
		for (int kind = 0; kind < 2; kind++) {
			size_t k = g->frames_count;
			while (k > 1 && !(kind ? g->frames[k - 1].matrices_count : g->frames[k - 1].verts_count)) k--;
			if (k <= 1) continue;
			const gsio_mdl7_frame *fr = &g->frames[k - 1];
			static const uint8_t past[2] = {0xff, 0xff};
			char what[80];
			snprintf(what, sizeof(what), "frame %zu's first %s", k - 1, kind ? "bone" : "replaced vertex");
			aimed_change(&c, start[k - 1] + h->frame_stc_size + (kind ? fr->verts_count * vs + 64 : 12), past, 2,
			             what);
			targeted++;
		}
		// The last frame's vertex and matrix counts past what the file holds.
		for (int field = 16; field <= 20; field += 4) {
			static const uint8_t huge[4] = {0xff, 0xff, 0xff, 0x7f};
			aimed_change(&c, start[g->frames_count - 1] + (size_t)field, huge, 4,
			             field == 16 ? "the last frame's vertex count" : "the last frame's matrix count");
			targeted++;
		}
		free(start);
		gsio_mdl7_file_free(f);
		free(c.data);
	}
	assert_true(targeted >= 4); // cEselslerche's and cbabe_male 2's vertices and bones at least
	assert_true(frame_failures > 0);
	print_message("%zu changed files loaded both ways, %zu failing on a frame, %zu targeted\n", checks,
	              frame_failures, targeted);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_conformance), cmocka_unit_test(test_materials),
	    cmocka_unit_test(test_load_scratch),
	    cmocka_unit_test(test_partial_frames),     cmocka_unit_test(test_frame_normals),
	    cmocka_unit_test(test_table_normals),
	    cmocka_unit_test(test_frame_records),
	    cmocka_unit_test(test_bone_animation),
	    cmocka_unit_test(test_no_animation),
	    cmocka_unit_test(test_stored_skins_own_bytes),       cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_first_frame_checks_every_frame),
	    cmocka_unit_test(test_corrupt_header),     cmocka_unit_test(test_allocation_failures),
	    cmocka_unit_test(test_bones_past_data_size),
	    cmocka_unit_test(test_skins_one_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
