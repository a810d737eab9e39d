/* The scene a WMP level loads into: nodes and block meshes for every corpus
 * level and the A4 example, placed models and their skins and clips, many
 * textures and their placeholders, sprites, the node array, allocation
 * failures. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "wmp_test_util.h"

#include "gsioi_image_file.h"
#include "gsioi_internal.h"
#include "wmp_internal.h"
#include "gsioi_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static size_t nodes_with(const gsio_scene *s, const char *element)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_extra *e = node_extra(s, i, "wmp:element");
		n += e && !strcmp(e->s, element);
	}
	return n;
}

/* Every WMP of the corpus and the A4 example load into valid scenes with one
 * mesh per block. */
static void test_scene_all(void **state)
{
	(void)state;
	gsio_scene *s = load_level(SEED_A4, false);
	assert_int_equal(s->meshes_count, 1);
	assert_int_equal(s->meshes[0].index_count, 6 * 2 * 3);
	for (int k = 0; k < 3; k++) {
		assert_true(fabsf(s->meshes[0].bbox_min[k] + 32) < 1e-4f);
		assert_true(fabsf(s->meshes[0].bbox_max[k] - 32) < 1e-4f);
	}
	assert_int_equal(s->lights_count, 2); // the light and the sun
	gsio_scene_free(s);
	T_REQUIRE_CORPUS();
	s = load_level(t_corpus_path("wmp/prefab.wmp"), false);
	assert_int_equal(s->meshes_count, 34);
	size_t tris = 0;
	for (size_t i = 0; i < s->meshes_count; i++) tris += s->meshes[i].index_count / 3;
	assert_int_equal(tris, 568);
	assert_int_equal(s->nodes_count, 38 + 1); // objects + the sun
	gsio_scene_free(s);
	s = load_level(t_corpus_path("wmp/empty.wmp"), false);
	assert_int_equal(s->meshes_count, 0);
	gsio_scene_free(s);
	s = load_level(lottershock("Level/bestiary.wmp"), true);
	assert_int_equal(nodes_with(s, "model"), 43);
	assert_int_equal(nodes_with(s, "sprite"), 1);
	gsio_scene_free(s);
	s = load_level(lottershock("Level/menue.wmp"), true);
	assert_int_equal(nodes_with(s, "block"), 6);
	assert_int_equal(nodes_with(s, "light"), 1);
	assert_int_equal(nodes_with(s, "start"), 1);
	// Block textures come from Texturset.wad, not placeholders.
	for (size_t i = 0; i < s->meshes_count; i++) {
		if (strncmp(s->meshes[i].name, "block_", 6)) continue;
		for (size_t p = 0; p < s->meshes[i].parts_count; p++) {
			int32_t m = s->meshes[i].parts[p].material;
			assert_true(m >= 0);
			int32_t im = s->materials[m].base_color_texture.image;
			assert_true(im >= 0);
			assert_null(gsio_extras_get(&s->images[im].extras, "gsio:placeholder"));
		}
	}
	// The two models missing from the game's snapshot are warnings.
	size_t missing = 0;
	for (size_t i = 0; i < s->warnings_count; i++)
		missing += strstr(s->warnings[i], "not found") != NULL;
	assert_true(missing >= 2);
	// ... and empty nodes: no mesh, no children, their file in extras.
	size_t empty = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_extra *f = node_extra(s, i, "wmp:file");
		if (!f || (strcasecmp(f->s, "swordmenue.mdl") && strcasecmp(f->s, "shotgunshell.mdl"))) continue;
		assert_int_equal(s->nodes[i].mesh, -1);
		for (size_t k = i + 1; k < s->nodes_count; k++) assert_int_not_equal(s->nodes[k].parent, (int32_t)i);
		empty++;
	}
	assert_true(empty >= 2);
	const gsio_extra *ref = gsio_extras_get(&s->extras, "wmp:file:model:swordmenue.mdl");
	assert_non_null(ref);
	assert_string_equal(ref->s, "");
	gsio_scene_free(s);
}

/* The entity node (wmp:element model) above node n, or -1. */
static int32_t entity_of(const gsio_scene *s, int32_t n)
{
	for (; n >= 0; n = s->nodes[n].parent) {
		const gsio_extra *e = node_extra(s, (size_t)n, "wmp:element");
		if (e && !strcmp(e->s, "model")) return n;
	}
	return -1;
}

/* bestiary with its models: one mesh set per model file (skinned instances
 * are mesh records sharing the first's arrays), every skinned instance its
 * own skin over its own joints under its entity node, placed so that each
 * joint's world matrix times its inverse bind matrix is the entity's world
 * matrix (the bind pose lands where the level puts the model); every clip
 * moves every instance of its file and nothing else. */
static void test_bestiary_instances(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *s = load_level(lottershock("Level/bestiary.wmp"), true);
	for (size_t i = 0; i < s->warnings_count; i++)
		if (strstr(s->warnings[i], "skinned") || strstr(s->warnings[i], "not found beside"))
			if (!strstr(s->warnings[i], "WAD")) fail_msg("warning: %s", s->warnings[i]);
	// Distinct mesh data: block meshes none, sprite 1, model groups once per file.
	size_t distinct = 0, shared = 0;
	for (size_t i = 0; i < s->meshes_count; i++) {
		bool again = false;
		for (size_t k = 0; k < i && !again; k++) again = s->meshes[k].positions == s->meshes[i].positions;
		distinct += !again;
		shared += again;
		if (again) assert_true(s->meshes[i].skin >= 0);
	}
	assert_int_equal(shared, 6); // corridor_02_short_door.mdl: 7 skinned instances
	// 14 skins: one per skinned instance (7 corridor doors + 7 single models).
	assert_int_equal(s->skins_count, 14);
	bool *used = calloc(s->skins_count, 1);
	assert_non_null(used);
	size_t skinned_nodes = 0;
	for (size_t n = 0; n < s->nodes_count; n++) {
		int32_t mi = s->nodes[n].mesh;
		if (mi < 0 || s->meshes[mi].skin < 0) continue;
		skinned_nodes++;
		int32_t k = s->meshes[mi].skin;
		assert_false(used[k]); // no two nodes share a skin
		used[k] = true;
		assert_int_equal(s->nodes[n].parent, -1); // glTF: a skinned mesh's node is a root
		const gsio_skin *sk = &s->skins[k];
		int32_t ent = entity_of(s, sk->joints[0]);
		assert_true(ent >= 0);
		const gsio_extra *x = gsio_extras_get(&s->nodes[n].extras, "wmp:entity");
		assert_non_null(x);
		assert_string_equal(x->s, node_extra(s, (size_t)ent, "wmp:name")->s);
		float ew[16];
		gsio_node_world_matrix(s, ent, ew);
		for (size_t j = 0; j < sk->joints_count; j++) {
			assert_int_equal(entity_of(s, sk->joints[j]), ent);
			float jw[16], m[16];
			gsio_node_world_matrix(s, sk->joints[j], jw);
			gsioi_mat4_mul(jw, sk->inverse_bind + 16 * j, m);
			for (int q = 0; q < 16; q++) {
				float tol = q >= 12 ? 0.05f : 1e-3f * (fabsf(ew[q]) + 1);
				if (fabsf(m[q] - ew[q]) > tol)
					fail_msg("skin %d joint %zu: joint x inverse bind [%d] %g, entity %g", k, j, q, m[q], ew[q]);
			}
		}
	}
	assert_int_equal(skinned_nodes, 14);
	free(used);
	// Clips: every animation moves every instance of its file, only them.
	size_t checked = 0;
	for (size_t a = 0; a < s->animations_count; a++) {
		const gsio_animation *an = &s->animations[a];
		char file[256];
		snprintf(file, sizeof(file), "%s", an->name);
		char *slash = strchr(file, '/');
		assert_non_null(slash);
		*slash = 0;
		size_t want = 0, got = 0;
		for (size_t n = 0; n < s->nodes_count; n++) {
			const gsio_extra *f = node_extra(s, n, "wmp:file"), *e = node_extra(s, n, "wmp:element");
			if (!f || !e || strcmp(e->s, "model") || strcasecmp(f->s, file)) continue;
			want++;
			bool moved = false;
			for (size_t c = 0; c < an->channels_count && !moved; c++) {
				int32_t t = an->channels[c].node;
				// A morph channel's node is a mesh node under the entity or,
				// skinned, a root naming it.
				const gsio_extra *we = gsio_extras_get(&s->nodes[t].extras, "wmp:entity");
				moved = entity_of(s, t) == (int32_t)n ||
				        (we && !strcmp(we->s, node_extra(s, n, "wmp:name")->s) && t >= (int32_t)n);
			}
			got += moved;
		}
		for (size_t c = 0; c < an->channels_count; c++) {
			int32_t t = an->channels[c].node, ent = entity_of(s, t);
			if (ent < 0) continue; // a skinned root mesh node (checked above)
			assert_int_equal(strcasecmp(node_extra(s, (size_t)ent, "wmp:file")->s, file), 0);
		}
		if (want != got) fail_msg("animation %s moves %zu of %zu instances", an->name, got, want);
		assert_true(want >= 1);
		checked++;
	}
	print_message("%zu meshes (%zu distinct), %zu skins, %zu clips each moving all its instances\n",
	              s->meshes_count, distinct, s->skins_count, checked);
	assert_int_equal(checked, 48);
	gsio_scene_free(s);
}

/* A level of many textures and many blocks costs memory in proportion to
 * them: 2 000 textures in one block, then 2 000 blocks of one face each,
 * under a 48 MB limit the level needs 37 MB of (the placeholders: 16 KB a
 * texture). A part per texture of the level in every block (8 MB a block
 * here) or a copy of the warnings per warning went past it. Names match
 * as the engine matches them (any case), and each block's parts are its
 * textures in order of first use, faces in file order. */
enum { MANY_T = 2000, MANY_B = 2000 };

/* The text of that level (malloc'd; its length in *len). */
static char *many_textures_text(size_t *len)
{
	enum { T = MANY_T, B = MANY_B };
	size_t cap = 200 + T * 90 + B * 160 + 64;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = (size_t)snprintf(text, cap, "// WMP2\nversion 710\nblocks %d entities 0 objects 1\n",
	                            B + 1);
	n += (size_t)snprintf(text + n, cap - n,
	                      "block 0 { vertices 4 faces %d 0 0 0 64 0 0 0 64 0 0 0 64\n", T);
	// Faces alternate windings; face i has texture t<i>, face 1 also t0's
	// name in capitals (the same texture), so block 0 has T - 1 parts.
	for (int i = 0; i < T; i++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "3 %s : %s%d ( 1 0 0 0 ) ( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef\n",
		                      i % 2 ? "0 2 1" : "0 1 2", i == 1 ? "T" : "t", i == 1 ? 0 : i);
	n += (size_t)snprintf(text + n, cap - n, "{ 0000 ndef 0 } }\n");
	for (int b = 1; b <= B; b++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "block %d { vertices 3 faces 1 0 0 0 64 0 0 0 64 0 3 0 1 2 : T%d ( 1 0 0 0 ) "
		                      "( 0 1 0 0 ) 0 0 0 1 1 : 0000 0 50 ndef { 0000 ndef 0 } }\n",
		                      b, b % 3);
	n += (size_t)snprintf(text + n, cap - n, "object 0 { (0 0 0) (0 0 0) (1 1 1)");
	for (int b = 0; b <= B; b++) n += (size_t)snprintf(text + n, cap - n, " block %d", b);
	n += (size_t)snprintf(text + n, cap - n, " }\n");
	assert_true(n < cap);
	*len = n;
	return text;
}

/* That level decoded (*f, freed by the caller) and made a scene with flags
 * under a memory limit of limit_mb. */
static gsio_scene *many_textures_scene(gsio_wmp_file **f, uint32_t flags, size_t limit_mb)
{
	size_t n;
	char *text = many_textures_text(&n);
	gsio_error err;
	if (!*f && !(*f = gsio_wmp_decode((const uint8_t *)text, n, "many", NULL, &err))) fail_msg("%s", err.message);
	free(text);
	gsio_opts o = {0};
	o.memory_limit = limit_mb << 20;
	o.flags = flags;
	gsio_scene *s = gsio_wmp_to_scene(*f, "/tmp/nonexistent-gsio-dir/many.wmp", &o, &err);
	if (!s) fail_msg("%s", err.message);
	return s;
}

static void test_many_textures(void **state)
{
	(void)state;
	enum { T = MANY_T, B = MANY_B };
	gsio_wmp_file *f = NULL;
	gsio_scene *s = many_textures_scene(&f, 0, 48);
	gsio_error err;
	// t0 (also as T0), t2 ... t<T-1>, and T1 from the small blocks.
	assert_int_equal(s->materials_count, T);
	assert_int_equal(s->images_count, T);
	assert_int_equal(s->meshes_count, B + 1);
	assert_int_equal(s->warnings_count, T); // a placeholder each
	const gsio_mesh *m0 = &s->meshes[0];
	assert_int_equal(m0->parts_count, T - 1);
	// t0 (faces 0 and 1), then t2, t3, ...: one triangle each but the first.
	assert_string_equal(s->materials[m0->parts[0].material].name, "t0");
	assert_int_equal(m0->parts[0].index_count, 6);
	for (size_t p = 1; p < m0->parts_count; p++) {
		char want[32];
		snprintf(want, sizeof(want), "t%zu", p + 1);
		assert_string_equal(s->materials[m0->parts[p].material].name, want);
		assert_int_equal(m0->parts[p].first_index, 3 * (p + 1));
		assert_int_equal(m0->parts[p].index_count, 3);
	}
	// Faces 0 and 1 in file order: reversed windings (0 2 1, then 0 1 2
	// read backwards from file order 0 1 2 and 0 2 1), different normals.
	assert_true(m0->normals[2] * m0->normals[3 * 3 + 2] < 0);
	for (int b = 1; b <= B; b++) {
		const gsio_mesh *m = &s->meshes[b];
		assert_int_equal(m->parts_count, 1);
		// T0 is t0's texture, T2 t2's; T1 is a texture of its own.
		const char *name = s->materials[m->parts[0].material].name;
		if (b % 3 == 0) assert_string_equal(name, "t0");
		else if (b % 3 == 2) assert_string_equal(name, "t2");
		else assert_string_equal(name, "T1");
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
}

/* Every placeholder points to one PNG file of gsio's own (98 bytes, not in
 * the scene's arena): with GSIO_OPT_NO_PIXELS (as mdl2gltf loads) it is the
 * picture, so the level of 2 000 missing textures above loads under a 4 MB
 * limit (its 2 000 RGBA checkers alone are 32 MB); without, the images have
 * the same file beside their RGBA and indices. The file decodes to the
 * checker: 64 x 64, squares of 8 x 8, the top left one dark, greys 90 and
 * 200, opaque, which is also every normal load's RGBA and indices. */
static void test_placeholders_shared(void **state)
{
	(void)state;
	gsio_wmp_file *f = NULL;
	gsio_scene *s = many_textures_scene(&f, GSIO_OPT_NO_PIXELS, 4);
	gsio_scene *full = many_textures_scene(&f, 0, 48);
	gsio_error err;
	assert_int_equal(s->images_count, MANY_T);
	assert_int_equal(full->images_count, MANY_T);
	gsio_arena *a = gsioi_arena_create(NULL, 0);
	assert_non_null(a);
	gsio_image png;
	memset(&png, 0, sizeof(png));
	if (!gsioi_image_file_decode(s->images[0].file_data, s->images[0].file_size, "placeholder", a, &png, &err))
		fail_msg("%s", err.message);
	assert_int_equal(png.width, 64);
	assert_int_equal(png.height, 64);
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 64; x++) {
			const uint8_t g = ((x / 8) ^ (y / 8)) & 1 ? 200 : 90, want[4] = {g, g, g, 255};
			assert_memory_equal(png.rgba + 4 * ((size_t)y * 64 + x), want, 4);
		}
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i], *fi = &full->images[i];
		assert_non_null(gsio_extras_get(&im->extras, "gsio:placeholder"));
		assert_null(im->rgba);
		assert_null(im->indices);
		assert_ptr_equal(im->file_data, s->images[0].file_data);
		assert_int_equal(im->file_size, 98);
		assert_int_equal(im->width, 64);
		assert_int_equal(im->height, 64);
		assert_string_equal(im->name, fi->name);
		assert_ptr_equal(fi->file_data, im->file_data);
		assert_int_equal(fi->file_size, im->file_size);
		assert_ptr_equal(fi->indices, full->images[0].indices);
		assert_int_equal(fi->palette_count, 2);
		assert_memory_equal(fi->rgba, png.rgba, 64 * 64 * 4);
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	if (gsio_scene_validate(full, &err)) fail_msg("%s", err.message);
	gsioi_arena_destroy(a);
	gsio_scene_free(full);
	gsio_scene_free(s);
	gsio_wmp_file_free(f);
}

/* A sprite of `placed` placements of one 64 x 64 TGA in folder dir. */
static gsio_scene *sprites_level(const char *dir, size_t placed)
{
	gsio_wmp_file f;
	memset(&f, 0, sizeof(f));
	f.dialect = GSIO_WMP_BINARY;
	f.version = 710;
	f.objects_count = placed + 1;
	f.entities_count = placed;
	f.objects = calloc(placed + 1, sizeof(*f.objects));
	f.entities = calloc(placed, sizeof(*f.entities));
	gsio_wmp_ref *refs = calloc(2 * placed, sizeof(*refs));
	assert_true(f.objects && f.entities && refs);
	f.objects[0].refs = refs;
	f.objects[0].refs_count = placed;
	for (size_t i = 0; i < placed; i++) {
		f.entities[i].type = 0x100;
		f.entities[i].file.s = "p.tga";
		refs[i].kind = GSIO_WMP_OBJECT;
		refs[i].index = (uint32_t)(i + 1);
		gsio_wmp_object *o = &f.objects[i + 1];
		o->position[0] = 10.0 * (double)i;
		o->scale[0] = o->scale[1] = o->scale[2] = 1;
		o->refs = &refs[placed + i];
		o->refs_count = 1;
		refs[placed + i].kind = GSIO_WMP_ENTITY;
		refs[placed + i].index = (uint32_t)i;
	}
	f.objects[0].scale[0] = f.objects[0].scale[1] = f.objects[0].scale[2] = 1;
	char lvl[128];
	snprintf(lvl, sizeof(lvl), "%s/l.wmp", dir);
	gsio_error err;
	gsio_scene *s = gsio_wmp_to_scene(&f, lvl, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	free(refs);
	free(f.objects);
	free(f.entities);
	return s;
}

/* A level of `objects` empty objects under the root, the root holding a
 * level element when `with_level` (its sun is a node of the scene). */
static gsio_scene *objects_level(size_t objects, bool with_level)
{
	gsio_wmp_file f;
	memset(&f, 0, sizeof(f));
	f.dialect = GSIO_WMP_BINARY;
	f.version = 710;
	f.objects_count = objects + 1;
	f.objects = calloc(objects + 1, sizeof(*f.objects));
	gsio_wmp_ref *refs = calloc(objects + 1, sizeof(*refs));
	gsio_wmp_level level;
	memset(&level, 0, sizeof(level));
	assert_true(f.objects && refs);
	f.objects[0].refs = refs;
	f.objects[0].refs_count = objects + (with_level ? 1 : 0);
	for (size_t i = 0; i < objects; i++) {
		refs[i].kind = GSIO_WMP_OBJECT;
		refs[i].index = (uint32_t)(i + 1);
		f.objects[i + 1].scale[0] = f.objects[i + 1].scale[1] = f.objects[i + 1].scale[2] = 1;
	}
	if (with_level) {
		f.levels = &level;
		f.levels_count = 1;
		refs[objects].kind = GSIO_WMP_LEVEL;
		refs[objects].index = 0;
	}
	f.objects[0].scale[0] = f.objects[0].scale[1] = f.objects[0].scale[2] = 1;
	gsio_error err;
	gsio_scene *s = gsio_wmp_to_scene(&f, "/tmp/nonexistent-gsio-dir/o.wmp", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	free(refs);
	free(f.objects);
	return s;
}

/* The scene's node array is made once at the count the level states: a
 * node an object, one more per element after an object's first, and the
 * sun's under a level element (build_level adds it). A sun left out of the
 * count would double the array of 1 001 nodes into 2 002 (the first array
 * staying in the arena): the level element may cost its sun node and the
 * scene-wide facts only, a few KB. */
static void test_nodes_reserved(void **state)
{
	(void)state;
	enum { N = 1000 };
	gsio_scene *bare = objects_level(N, false), *lit = objects_level(N, true);
	assert_int_equal(bare->nodes_count, N + 1);
	assert_int_equal(lit->nodes_count, N + 2); // and the sun
	size_t suns = 0;
	for (size_t i = 0; i < lit->nodes_count; i++) suns += lit->nodes[i].name && !strcmp(lit->nodes[i].name, "sun");
	assert_int_equal(suns, 1);
	size_t a = gsioi_arena_used(bare->arena), b = gsioi_arena_used(lit->arena);
	print_message("%d objects: %zu bytes of scene, %zu with a level element (a node is %zu)\n", N, a, b,
	              sizeof(gsio_node));
	assert_true(b > a);
	assert_true(b - a < 16 * 1024);
	gsio_scene_free(bare);
	gsio_scene_free(lit);
}

/* One sprite placed 201 times: one image and one material, a quad per
 * placement, and the file read and decoded once: the scene holds about
 * what one placement's does. A decoded copy per placement (16 KB here)
 * would make a level of 1 000 posters 260 MB. */
static void test_sprite_placed_often(void **state)
{
	(void)state;
	char dir[64] = "/tmp/gsio-sprites-XXXXXX", tga[128];
	assert_non_null(mkdtemp(dir));
	snprintf(tga, sizeof(tga), "%s/p.tga", dir);
	size_t size = 18 + 64 * 64 * 4;
	uint8_t *d = calloc(1, size);
	assert_non_null(d);
	d[2] = 2;                         // uncompressed true colour
	d[12] = 64, d[14] = 64, d[16] = 32; // 64 x 64, 32 bits
	d[17] = 8 | 0x20;                 // 8 alpha bits, top-left origin
	for (size_t i = 18; i < size; i++) d[i] = (uint8_t)(i * 7);
	t_write_file(tga, d, size);
	free(d);
	gsio_scene *one = sprites_level(dir, 1), *many = sprites_level(dir, 201);
	remove(tga);
	rmdir(dir);
	assert_int_equal(one->images_count, 1);
	assert_int_equal(many->images_count, 1);
	assert_int_equal(many->materials_count, 1);
	assert_int_equal(many->meshes_count, 201);
	assert_int_equal(many->warnings_count, 0);
	for (size_t i = 0; i < many->meshes_count; i++) {
		const gsio_mesh *m = &many->meshes[i];
		assert_int_equal(m->parts_count, 1);
		assert_int_equal(m->parts[0].material, 0);
		assert_true(m->bbox_max[1] == 32 && m->bbox_max[2] == 32 && m->bbox_min[2] == -32);
	}
	size_t extra = gsioi_arena_used(many->arena) - gsioi_arena_used(one->arena);
	if (extra > 200 * 64 * 64) fail_msg("200 more placements took %zu bytes", extra);
	gsio_error err;
	if (gsio_scene_validate(many, &err)) fail_msg("%s", err.message);
	gsio_scene_free(one);
	gsio_scene_free(many);
}

static void test_alloc_failure(void **state)
{
	(void)state;
	const char *path = SEED_A4;
	if (t_corpus_dir()) path = t_corpus_path("lottershock/Game/Level/menue.wmp");
	char p[1024];
	snprintf(p, sizeof(p), "%s", path);
	t_load_input in = {NULL, 0, p, NULL, NULL};
	print_message("allocation failure: all %zu points handled\n",
	              t_each_alloc_fails(p, t_try_load, &in, T_ANY_ERROR, 1).failures);
	// A level placing skinned models (bestiary with the game's Assets, 582
	// allocations): every 3rd allocation point fails in turn (all of them
	// take too long under ASan); nothing leaks, the error is clean.
	if (!t_corpus_dir()) return;
	snprintf(p, sizeof(p), "%s", lottershock("Level/bestiary.wmp"));
	char assets[1024];
	snprintf(assets, sizeof(assets), "%s", lottershock("Assets"));
	const char *paths[1] = {assets};
	gsio_opts o = {0};
	o.search_paths = paths;
	o.search_paths_count = 1;
	t_load_input level = {NULL, 0, p, &o, NULL};
	t_alloc_run run = t_each_alloc_fails(p, t_try_load, &level, T_ANY_ERROR, 3);
	print_message("bestiary: %zu of %zu allocation points failed in turn, all handled\n", run.failures,
	              run.calls);
}

/* A missing sprite placed 24 times is one warning with its count, not 24
 * lines (each placement looks for the file and warns). */
static void test_missing_sprite_warned_once(void **state)
{
	(void)state;
	char dir[64] = "/tmp/gsio-sprites-XXXXXX";
	assert_non_null(mkdtemp(dir));
	gsio_scene *s = sprites_level(dir, 24);
	rmdir(dir);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(s->warnings_count, 1);
	const char *w = s->warnings[0];
	assert_true(!strncmp(w, "sprite \"p.tga\" not found in ", 27));
	assert_non_null(strstr(w, ": an empty node; --path DIR adds a folder to look in (24 times)"));
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scene_all),
	    cmocka_unit_test(test_bestiary_instances),
	    cmocka_unit_test(test_many_textures),
	    cmocka_unit_test(test_placeholders_shared),
	    cmocka_unit_test(test_nodes_reserved),
	    cmocka_unit_test(test_sprite_placed_often),
	    cmocka_unit_test(test_missing_sprite_warned_once),
	    cmocka_unit_test(test_alloc_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
