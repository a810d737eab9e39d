/* The public scene builder and gsio_scene_validate(): a scene with every
 * kind of element is built through the public API only and passes; each of
 * a set of broken scenes is refused with a message naming what is wrong;
 * the builder survives every allocation failing in turn. */
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- A scene with one of everything

typedef struct built {
	gsio_scene *s;
	int32_t root, inst_a, inst_b, joint_root, joint_child, joint2, skinned_node, skinned2_node,
	    morph_node, light_node, camera_node;
	int32_t crate, skinned, skinned2, morph;
	gsio_packed_format *pf; /**< set by make_packed */
} built;

static void set_quad(gsio_mesh *m, float z)
{
	static const float p[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
	static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	for (int v = 0; v < 4; v++) {
		for (int k = 0; k < 3; k++) m->positions[3 * v + k] = p[v][k];
		m->positions[3 * v + 2] = z;
		if (m->normals) m->normals[3 * v + 2] = 1;
		if (m->uvs) {
			m->uvs[2 * v] = p[v][0];
			m->uvs[2 * v + 1] = 1 - p[v][1];
		}
	}
	memcpy(m->indices, idx, sizeof(idx));
}

/* Two joints, every vertex bound to joint 0 or 1 with one weight. */
static void bind(gsio_scene *s, int32_t mesh, int32_t skin, gsio_error *err)
{
	gsio_mesh *m = &s->meshes[mesh];
	m->skin = skin;
	m->weights.offsets = gsio_scene_alloc(s, m->vertex_count + 1, sizeof(uint32_t), err);
	m->weights.joints = gsio_scene_alloc(s, m->vertex_count, sizeof(uint32_t), err);
	m->weights.values = gsio_scene_alloc(s, m->vertex_count, sizeof(float), err);
	assert_non_null(m->weights.values);
	for (size_t v = 0; v < m->vertex_count; v++) {
		m->weights.offsets[v + 1] = (uint32_t)(v + 1);
		m->weights.joints[v] = (uint32_t)(v % s->skins[skin].joints_count);
		m->weights.values[v] = 1;
	}
	m->weights.count = m->vertex_count;
}

/* Builds the scene; returns -1 at the first failing call (for the
 * allocation-failure loop), 0 when done. */
static int build(built *b, const gsio_opts *opts, gsio_error *err)
{
	memset(b, 0, sizeof(*b));
	gsio_scene *s = b->s = gsio_scene_new(opts, err);
	if (!s) return -1;
#define T_TRY(x) \
	do { \
		if ((x) < 0) return -1; \
	} while (0)
	int32_t mat, img;
	T_TRY(img = gsio_scene_add_image(s, "checker", 2, 2, NULL, err));
	for (int i = 0; i < 16; i++) s->images[img].rgba[i] = (uint8_t)((i % 4 == 3) ? 255 : i * 16);
	T_TRY(mat = gsio_scene_add_material(s, "crate", err));
	s->materials[mat].base_color_texture.image = img;
	s->materials[mat].base_color_texture.wrap_u = GSIO_WRAP_CLAMP;
	s->materials[mat].double_sided = true;
	T_TRY(gsio_extras_set_int(s, &s->materials[mat].extras, "gsio:skin_type", 5, err));

	T_TRY(b->crate = gsio_scene_add_mesh(s, "crate", 4, 6, GSIO_MESH_NORMALS | GSIO_MESH_UVS, mat, err));
	set_quad(&s->meshes[b->crate], 0);
	T_TRY(b->root = gsio_scene_add_node(s, "level", -1, err));
	T_TRY(b->inst_a = gsio_scene_add_node(s, "crate_a", b->root, err));
	T_TRY(b->inst_b = gsio_scene_add_node(s, "crate_b", b->root, err));
	s->nodes[b->inst_a].mesh = s->nodes[b->inst_b].mesh = b->crate;
	s->nodes[b->inst_b].translation[0] = 3;
	T_TRY(gsio_extras_set_string(s, &s->nodes[b->inst_b].extras, "action", "rotate", err));
	float skills[3] = {1, 2.5f, -3};
	T_TRY(gsio_extras_set_floats(s, &s->nodes[b->inst_b].extras, "skills", skills, 3, err));

	// Skeleton 1: two joints; skeleton 2: one joint of its own.
	T_TRY(b->joint_root = gsio_scene_add_node(s, "hip", -1, err));
	T_TRY(b->joint_child = gsio_scene_add_node(s, "knee", b->joint_root, err));
	s->nodes[b->joint_child].translation[2] = 1;
	T_TRY(b->joint2 = gsio_scene_add_node(s, "arm", -1, err));
	int32_t skin1, skin2;
	T_TRY(skin1 = gsio_scene_add_skin(s, "legs", 2, err));
	s->skins[skin1].joints[0] = b->joint_root;
	s->skins[skin1].joints[1] = b->joint_child;
	s->skins[skin1].inverse_bind[16 + 14] = -1; // knee at z = 1
	s->skins[skin1].skeleton = b->joint_root;
	T_TRY(skin2 = gsio_scene_add_skin(s, "arm", 1, err));
	s->skins[skin2].joints[0] = b->joint2;
	T_TRY(b->skinned = gsio_scene_add_mesh(s, "legs", 4, 6, GSIO_MESH_NORMALS, mat, err));
	set_quad(&s->meshes[b->skinned], 0);
	bind(s, b->skinned, skin1, err);
	T_TRY(b->skinned2 = gsio_scene_add_mesh(s, "arm", 4, 6, GSIO_MESH_NORMALS, mat, err));
	set_quad(&s->meshes[b->skinned2], 0.5f);
	bind(s, b->skinned2, skin2, err);
	T_TRY(b->skinned_node = gsio_scene_add_node(s, "legs", -1, err));
	s->nodes[b->skinned_node].mesh = b->skinned;
	T_TRY(b->skinned2_node = gsio_scene_add_node(s, "arm_mesh", -1, err));
	s->nodes[b->skinned2_node].mesh = b->skinned2;

	// A morph-animated mesh: 3 frames, clip of 3 keys.
	T_TRY(b->morph = gsio_scene_add_mesh(s, "blob", 4, 6, GSIO_MESH_NORMALS, -1, err));
	gsio_mesh *m = &s->meshes[b->morph];
	set_quad(m, 0);
	m->frames = gsio_scene_alloc(s, 3, sizeof(gsio_morph_frame), err);
	if (!m->frames) return -1;
	m->frames_count = 3;
	for (size_t f = 0; f < 3; f++) {
		m->frames[f].positions = gsio_scene_alloc(s, 12, sizeof(float), err);
		m->frames[f].normals = gsio_scene_alloc(s, 12, sizeof(float), err);
		if (!m->frames[f].normals || !m->frames[f].positions) return -1;
		memcpy(m->frames[f].positions, m->positions, 12 * sizeof(float));
		memcpy(m->frames[f].normals, m->normals, 12 * sizeof(float));
		m->frames[f].positions[3 * 2 + 2] = (float)f; // vertex 2 rises
	}
	T_TRY(b->morph_node = gsio_scene_add_node(s, "blob", -1, err));
	s->nodes[b->morph_node].mesh = b->morph;
	int32_t anim;
	T_TRY(anim = gsio_scene_add_animation(s, "rise", 10, 3, 2, err));
	gsio_animation *a = &s->animations[anim];
	a->channels[0].node = b->morph_node;
	a->channels[0].path = GSIO_PATH_MORPH;
	a->channels[0].frames = gsio_scene_alloc(s, 3, sizeof(uint32_t), err);
	if (!a->channels[0].frames) return -1;
	for (uint32_t k = 0; k < 3; k++) a->channels[0].frames[k] = k;
	a->channels[1].node = b->joint_child;
	a->channels[1].path = GSIO_PATH_ROTATION;
	a->channels[1].values = gsio_scene_alloc(s, 12, sizeof(float), err);
	if (!a->channels[1].values) return -1;
	for (int k = 0; k < 3; k++) {
		float ang = 0.3f * (float)k;
		a->channels[1].values[4 * k + 0] = sinf(ang / 2);
		a->channels[1].values[4 * k + 3] = cosf(ang / 2);
	}

	int32_t light, cam;
	T_TRY(light = gsio_scene_add_light(s, "lamp", GSIO_LIGHT_POINT, err));
	s->lights[light].range = 50;
	T_TRY(b->light_node = gsio_scene_add_node(s, "lamp", b->root, err));
	s->nodes[b->light_node].light = light;
	s->nodes[b->light_node].translation[2] = 5;
	T_TRY(cam = gsio_scene_add_camera(s, "view", err));
	T_TRY(b->camera_node = gsio_scene_add_node(s, "view", -1, err));
	s->nodes[b->camera_node].camera = cam;
	s->nodes[b->camera_node].translation[0] = -10;
	float fog[3] = {0.5f, 0.5f, 0.6f};
	T_TRY(gsio_extras_set_floats(s, &s->extras, "fog_color", fog, 3, err));
	T_TRY(gsio_scene_add_warning(s, err, "built by %s", "test_scene"));
#undef T_TRY
	return 0;
}

static void test_built_scene_valid(void **state)
{
	(void)state;
	built b;
	gsio_error err;
	assert_int_equal(build(&b, NULL, &err), 0);
	gsio_scene *s = b.s;
	int rc = gsio_scene_validate(s, &err);
	if (rc) print_error("%s\n", err.message);
	assert_int_equal(rc, 0);
	assert_int_equal(err.code, GSIO_OK);
	assert_int_equal(s->nodes_count, 11);
	assert_int_equal(s->meshes_count, 4);
	assert_int_equal(s->skins_count, 2);
	// Defaults.
	assert_true(s->nodes[b.root].rotation[3] == 1 && s->nodes[b.root].scale[1] == 1);
	assert_int_equal(s->nodes[b.root].mesh, -1);
	assert_int_equal(s->meshes[b.morph].parts[0].material, -1);
	assert_int_equal(s->meshes[b.crate].parts_count, 1);
	assert_int_equal(s->meshes[b.crate].parts[0].index_count, 6);
	assert_true(s->materials[0].base_color[3] == 1 && s->materials[0].alpha_cutoff == 0.5f);
	// Extras.
	const gsio_extra *e = gsio_extras_get(&s->nodes[b.inst_b].extras, "action");
	assert_non_null(e);
	assert_int_equal(e->type, GSIO_EXTRA_STRING);
	assert_string_equal(e->s, "rotate");
	assert_int_equal(gsio_extras_set_string(s, &s->nodes[b.inst_b].extras, "action", "patrol", &err), 0);
	assert_int_equal(s->nodes[b.inst_b].extras.count, 2); // replaced, not added
	assert_string_equal(gsio_extras_get(&s->nodes[b.inst_b].extras, "action")->s, "patrol");
	assert_null(gsio_extras_get(&s->nodes[b.inst_b].extras, "nothing"));
	assert_string_equal(s->warnings[0], "built by test_scene");
	// World matrix: knee = hip * (0,0,1).
	float w[16];
	gsio_node_world_matrix(s, b.joint_child, w);
	assert_float_equal(w[14], 1, 1e-6);
	s->nodes[b.joint_root].translation[0] = 2;
	gsio_node_world_matrix(s, b.joint_child, w);
	assert_float_equal(w[12], 2, 1e-6);
	gsio_scene_free(s);
}

/* Many adds: indices stay dense and the earlier elements intact. */
static void test_builder_growth(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	for (int i = 0; i < 1000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d", i);
		int32_t n = gsio_scene_add_node(s, name, i ? i - 1 : -1, &err);
		assert_int_equal(n, i);
	}
	for (int i = 0; i < 1000; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d", i);
		assert_string_equal(s->nodes[i].name, name);
		assert_int_equal(s->nodes[i].parent, i - 1);
	}
	// A caller-replaced exact array is copied, not overrun.
	gsio_material *exact = gsio_scene_alloc(s, 1, sizeof(gsio_material), &err);
	exact[0].name = "only";
	for (int k = 0; k < 4; k++) exact[0].base_color[k] = 1;
	exact[0].base_color_texture.image = exact[0].detail_texture.image = -1;
	exact[0].lightmap_texture.image = -1;
	s->materials = exact;
	s->materials_count = 1;
	assert_int_equal(gsio_scene_add_material(s, "second", &err), 1);
	assert_ptr_not_equal(s->materials, exact);
	assert_string_equal(s->materials[0].name, "only");
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	// Bad arguments are refused.
	assert_int_equal(gsio_scene_add_node(s, "x", 5000, &err), -1);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_int_equal(gsio_scene_add_mesh(s, "x", 3, 4, 0, -1, &err), -1);
	assert_int_equal(gsio_scene_add_image(s, "x", 0, 0, NULL, &err), -1);
	assert_int_equal(gsio_scene_add_animation(s, "x", 0, 1, 0, &err), -1);
	assert_int_equal(gsio_scene_add_light(s, "x", (gsio_light_type)7, &err), -1);
	assert_int_equal(gsio_scene_add_image(s, "ref", 0, 0, "textures/wall.png", &err), 0);
	assert_null(s->images[0].rgba);
	assert_string_equal(s->images[0].uri, "textures/wall.png");
	gsio_scene_free(s);
}

/* A warning raised again is one warning with its count: "TEXT (N
 * times)", in the place of its first raising; distinct ones keep their
 * order and text. 100 000 raisings of one text cost its count, not a copy
 * each. An array the caller replaced is indexed again, not overrun. */
static void test_warnings_counted(void **state)
{
	(void)state;
	gsio_error err;
	t_fail_alloc st = {0};
	gsio_allocator al = t_fail_allocator(&st);
	gsio_opts opts = {.allocator = &al};
	gsio_scene *s = gsio_scene_new(&opts, &err);
	assert_non_null(s);
	for (int i = 0; i < 24; i++) {
		assert_int_equal(gsio_scene_add_warning(s, &err, "sprite \"%s\" not found", "beam.tga"), 0);
		if (i < 3) assert_int_equal(gsio_scene_add_warning(s, &err, "other %d", i), 0);
	}
	assert_int_equal(s->warnings_count, 4);
	assert_string_equal(s->warnings[0], "sprite \"beam.tga\" not found (24 times)");
	assert_string_equal(s->warnings[1], "other 0");
	assert_string_equal(s->warnings[3], "other 2");
	size_t bytes = st.bytes;
	for (int i = 0; i < 100000; i++) assert_int_equal(gsio_scene_add_warning(s, &err, "other 1"), 0);
	assert_string_equal(s->warnings[2], "other 1 (100001 times)");
	assert_true(st.bytes - bytes <= 64 * 1024); // a copy each: 2.3 MB
	// Texts already counted are new texts (their count is part of them).
	assert_int_equal(gsio_scene_add_warning(s, &err, "other 1 (100001 times)"), 0);
	assert_int_equal(s->warnings_count, 5);
	// The caller's own array: its texts counted, copied when it grows.
	const char **mine = gsio_scene_alloc(s, 2, sizeof(*mine), &err);
	mine[0] = "kept", mine[1] = "again";
	s->warnings = mine;
	s->warnings_count = 2;
	assert_int_equal(gsio_scene_add_warning(s, &err, "again"), 0);
	assert_int_equal(gsio_scene_add_warning(s, &err, "new"), 0);
	assert_int_equal(s->warnings_count, 3);
	assert_string_equal(s->warnings[0], "kept");
	assert_string_equal(s->warnings[1], "again (2 times)");
	assert_string_equal(s->warnings[2], "new");
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
}

// -- Broken scenes, each refused with a message naming what

typedef void (*breaker)(built *b);

static void br_parent_out_of_range(built *b) { b->s->nodes[b->inst_a].parent = 99; }
static void br_cycle(built *b) { b->s->nodes[b->root].parent = b->inst_b; }
static void br_self_parent(built *b) { b->s->nodes[b->inst_a].parent = b->inst_a; }
static void br_nan_position(built *b) { b->s->meshes[b->crate].positions[4] = NAN; }
static void br_inf_translation(built *b) { b->s->nodes[b->inst_b].translation[1] = INFINITY; }
static void br_quat_not_unit(built *b) { b->s->nodes[b->inst_a].rotation[0] = 0.5f; }
static void br_zero_scale(built *b) { b->s->nodes[b->inst_a].scale[2] = 0; }
static void br_index_out_of_range(built *b) { b->s->meshes[b->crate].indices[5] = 4; }
static void br_mesh_out_of_range(built *b) { b->s->nodes[b->inst_a].mesh = 17; }
static void br_material_out_of_range(built *b) { b->s->meshes[b->crate].parts[0].material = 3; }
static void br_parts_short(built *b) { b->s->meshes[b->crate].parts[0].index_count = 3; }
static void br_image_out_of_range(built *b) { b->s->materials[0].base_color_texture.image = 2; }
static void br_negative_weight(built *b) { b->s->meshes[b->skinned].weights.values[1] = -0.5f; }
static void br_weight_joint(built *b) { b->s->meshes[b->skinned2].weights.joints[0] = 1; }
static void br_skin_joint(built *b) { b->s->skins[0].joints[1] = 40; }
static void br_skin_repeat(built *b) { b->s->skins[0].joints[1] = b->s->skins[0].joints[0]; }
static void br_frame_missing(built *b) { b->s->meshes[b->morph].frames[2].positions = NULL; }
static void br_frame_nan(built *b) { b->s->meshes[b->morph].frames[1].positions[7] = NAN; }
static void br_morph_key(built *b) { b->s->animations[0].channels[0].frames[2] = 3; }
static void br_morph_no_mesh(built *b) { b->s->animations[0].channels[0].node = b->light_node; }
static void br_channel_rotation(built *b) { b->s->animations[0].channels[1].values[5] = 2; }
static void br_channel_twice(built *b)
{
	b->s->animations[0].channels[1].node = b->morph_node;
	b->s->animations[0].channels[1].path = GSIO_PATH_MORPH;
	b->s->animations[0].channels[1].frames = b->s->animations[0].channels[0].frames;
	b->s->animations[0].channels[1].values = NULL;
}
static void br_fps(built *b) { b->s->animations[0].fps = 0; }
static void br_cut(built *b)
{
	static uint32_t cut = 3;
	b->s->animations[0].cuts = &cut;
	b->s->animations[0].cuts_count = 1;
}
static void br_duplicate_material(built *b)
{
	b->s->materials[0].name = "dup";
	int32_t m = gsio_scene_add_material(b->s, "dup", NULL);
	assert_int_equal(m, 1);
}
static void br_light_cone(built *b)
{
	b->s->lights[0].type = GSIO_LIGHT_SPOT;
	b->s->lights[0].inner_cone = 1;
	b->s->lights[0].outer_cone = 0.5f;
}
static void br_camera_fov(built *b) { b->s->cameras[0].fov = 180; }
static void br_extra_nan(built *b)
{
	assert_int_equal(gsio_extras_set_float(b->s, &b->s->nodes[0].extras, "bad", NAN, NULL), 0);
}
static void br_count_without_array(built *b) { b->s->lights = NULL; }

/* The blob's frame 2 packed as an MDL stores it: one byte per coordinate
 * (scale 1, offset 0: the quad's corners, vertex 2 at z 2) and a normal
 * index into a one-entry table (+z). */
static const float up_table[1][3] = {{0, 0, 1}};
static void make_packed(built *b)
{
	gsio_mesh *m = &b->s->meshes[b->morph];
	gsio_morph_frame *fr = &m->frames[2];
	b->pf = gsio_scene_alloc(b->s, 1, sizeof(gsio_packed_format), NULL);
	uint8_t *rec = gsio_scene_alloc(b->s, 4, 4, NULL);
	assert_true(b->pf && rec);
	b->pf->coord_size = 1;
	b->pf->vertex_stride = 4;
	b->pf->normal_offset = 3;
	b->pf->source_count = 4;
	for (int k = 0; k < 3; k++) b->pf->scale[k] = 1;
	b->pf->normal_table = up_table;
	b->pf->normal_count = 1;
	for (size_t v = 0; v < 4; v++) {
		for (size_t k = 0; k < 3; k++) rec[4 * v + k] = (uint8_t)fr->positions[3 * v + k];
		rec[4 * v + 3] = v == 1 ? 200 : 0; // past the table: read as entry 0
	}
	fr->positions = fr->normals = NULL;
	fr->packed = rec;
	fr->packed_size = 16;
	m->packed = b->pf;
}
static void br_packed_index(built *b)
{
	make_packed(b);
	uint32_t *sv = gsio_scene_alloc(b->s, 4, sizeof(uint32_t), NULL);
	assert_non_null(sv);
	for (uint32_t v = 0; v < 4; v++) sv[v] = v == 3 ? 7 : v;
	b->s->meshes[b->morph].source_vertex = sv;
}
static void br_packed_short(built *b)
{
	make_packed(b);
	b->s->meshes[b->morph].frames[2].packed_size = 15;
}
static void br_packed_stride(built *b)
{
	make_packed(b);
	b->pf->vertex_stride = 2;
}
static void br_packed_coord(built *b)
{
	make_packed(b);
	b->pf->coord_size = 3;
}
static void br_packed_normal_offset(built *b)
{
	make_packed(b);
	b->pf->normal_offset = 4;
}
static void br_packed_no_format(built *b)
{
	make_packed(b);
	b->s->meshes[b->morph].packed = NULL;
}
static void br_packed_scale(built *b)
{
	make_packed(b);
	b->pf->scale[1] = INFINITY;
}
static void br_packed_more_vertices(built *b)
{
	make_packed(b);
	b->pf->source_count = 3;
	b->s->meshes[b->morph].frames[2].packed_size = 12;
}
/* The blob's frame 2 as float records (coord_size 4, as MDL7 keeps its
 * frames): 3 floats of position, 3 of normal, stored in reverse vertex
 * order and shown through source_vertex. */
static void make_float_records(built *b)
{
	gsio_mesh *m = &b->s->meshes[b->morph];
	gsio_morph_frame *fr = &m->frames[2];
	b->pf = gsio_scene_alloc(b->s, 1, sizeof(gsio_packed_format), NULL);
	float *rec = gsio_scene_alloc(b->s, 4 * 6, sizeof(float), NULL);
	uint32_t *sv = gsio_scene_alloc(b->s, 4, sizeof(uint32_t), NULL);
	assert_true(b->pf && rec && sv);
	b->pf->coord_size = 4;
	b->pf->vertex_stride = 24;
	b->pf->normal_offset = 12;
	b->pf->normal_floats = true;
	b->pf->source_count = 4;
	for (int k = 0; k < 3; k++) b->pf->scale[k] = 1;
	for (uint32_t v = 0; v < 4; v++) {
		sv[v] = 3 - v;
		memcpy(rec + 6 * (3 - v), fr->positions + 3 * v, 12);
		memcpy(rec + 6 * (3 - v) + 3, fr->normals + 3 * v, 12);
	}
	fr->positions = fr->normals = NULL;
	fr->packed = (const uint8_t *)rec;
	fr->packed_size = 96;
	m->packed = b->pf;
	m->source_vertex = sv;
}
static void br_float_scale(built *b)
{
	make_float_records(b);
	b->pf->scale[2] = 2;
}
static void br_float_table(built *b)
{
	make_float_records(b);
	b->pf->normal_table = up_table;
	b->pf->normal_count = 1;
}
static void br_float_normal_room(built *b)
{
	make_float_records(b);
	b->pf->normal_offset = 16;
}
static void br_float_nan(built *b)
{
	make_float_records(b);
	((float *)(uintptr_t)b->s->meshes[b->morph].frames[2].packed)[6 + 5] = NAN;
}
static void br_float_inf_position(built *b)
{
	make_float_records(b);
	((float *)(uintptr_t)b->s->meshes[b->morph].frames[2].packed)[18] = -INFINITY;
}
static void br_image_empty(built *b) { b->s->images[0].rgba = NULL; }
/* An undecoded PNG/JPEG file (GSIO_OPT_NO_PIXELS) in place of the pixels:
 * valid with its size (test_undecoded_file_accepted); these forms are not. */
static const uint8_t fake_file[4] = {0xFF, 0xD8, 0xFF, 0xE0};
static void undecoded(built *b)
{
	b->s->images[0].rgba = NULL;
	b->s->images[0].file_data = fake_file;
	b->s->images[0].file_size = sizeof(fake_file);
}
static void br_file_without_size(built *b)
{
	undecoded(b);
	b->s->images[0].width = b->s->images[0].height = 0;
}
static void br_file_and_uri(built *b)
{
	undecoded(b);
	b->s->images[0].uri = "skin.png";
}
static void br_file_with_indices(built *b)
{
	undecoded(b);
	static uint8_t idx[1];
	b->s->images[0].indices = idx;
}
/* Stored skin pixels (GSIO_OPT_NO_PIXELS): 565, in place of rgba. */
static uint8_t stored565[64 * 64 * 2];
static void stored(built *b)
{
	gsio_image *im = &b->s->images[0];
	im->rgba = NULL;
	im->stored = stored565;
	im->source_format = GSIO_PIXEL_RGB565;
}
static void br_stored_and_rgba(built *b)
{
	static uint8_t px[4];
	stored(b);
	b->s->images[0].rgba = px;
}
static void br_stored_and_indices(built *b)
{
	static uint8_t idx[1], pal[4];
	stored(b);
	b->s->images[0].indices = idx;
	b->s->images[0].palette = pal;
	b->s->images[0].palette_count = 1;
}
static void br_stored_pal8(built *b)
{
	stored(b);
	b->s->images[0].source_format = GSIO_PIXEL_PAL8;
}
static void br_stored_unknown_format(built *b)
{
	stored(b);
	b->s->images[0].source_format = (gsio_pixel_format)9;
}
static void br_stored_without_size(built *b)
{
	stored(b);
	b->s->images[0].height = 0;
}
static void br_indices_without_palette(built *b)
{
	static uint8_t idx[64 * 64];
	b->s->images[0].rgba = NULL;
	b->s->images[0].indices = idx;
}
static void br_file_size_without_data(built *b) { b->s->images[0].file_size = 5; }
static void br_file_data_without_size(built *b) { b->s->images[0].file_data = fake_file; }
static void br_weights_without_skin(built *b) { b->s->meshes[b->skinned].skin = -1; }

static const struct {
	const char *name;
	breaker fn;
	const char *expect; /* a fragment the message must contain */
} broken[] = {
	{"parent out of range", br_parent_out_of_range, "nodes[1].parent 99"},
	{"cycle", br_cycle, "nodes[0].parent 2 is not less than 0"},
	{"self parent", br_self_parent, "nodes[1].parent 1 is not less than 1"},
	{"NaN position", br_nan_position, "meshes[0].positions[4] is not finite"},
	{"inf translation", br_inf_translation, "nodes[2].translation[1] is not finite"},
	{"quaternion not unit", br_quat_not_unit, "nodes[1].rotation is not a unit quaternion"},
	{"zero scale", br_zero_scale, "nodes[1].scale[2] is 0"},
	{"index out of range", br_index_out_of_range, "meshes[0].indices[5] 4 is outside the 4 vertices"},
	{"mesh out of range", br_mesh_out_of_range, "nodes[1].mesh 17 is outside 0..3"},
	{"material out of range", br_material_out_of_range, "meshes[0].parts[0].material 3 is outside 0..0"},
	{"parts short", br_parts_short, "meshes[0].parts cover 3 of 6 indices"},
	{"image out of range", br_image_out_of_range, "materials[0].base_color_texture.image 2"},
	{"negative weight", br_negative_weight, "meshes[1].weights.values[1] is -0.5"},
	{"weight joint", br_weight_joint, "meshes[2].weights.joints[0] 1 is outside the skin's 1 joints"},
	{"skin joint", br_skin_joint, "skins[0].joints[1] 40 is outside"},
	{"skin repeat", br_skin_repeat, "skins[0] lists node 3 twice"},
	{"frame missing", br_frame_missing, "meshes[3].frames[2] has no positions"},
	{"frame NaN", br_frame_nan, "meshes[3].frames[1].positions[7] is not finite"},
	{"morph key", br_morph_key, "frames[2] 3 is outside the mesh's 3 frames"},
	{"morph without mesh", br_morph_no_mesh, "which has no mesh"},
	{"rotation key", br_channel_rotation, "not a unit quaternion"},
	{"channel twice", br_channel_twice, "animate the same property"},
	{"fps", br_fps, "animations[0].fps is 0"},
	{"cut", br_cut, "animations[0].cuts[0] 3 is not ascending within 1..2"},
	{"duplicate material", br_duplicate_material, "two materials are named \"dup\""},
	{"light cone", br_light_cone, "lights[0] cones are 1 and 0.5"},
	{"camera fov", br_camera_fov, "cameras[0].fov is 180"},
	{"extra NaN", br_extra_nan, "nodes[0].extras \"bad\" is not finite"},
	{"count without array", br_count_without_array, "lights_count is 1 but lights is NULL"},
	{"image without pixels", br_image_empty, "images[0] has neither pixels nor a file nor a uri"},
	{"undecoded file without size", br_file_without_size,
	 "images[0] has an undecoded file of 4 bytes but a size of 0x0"},
	{"undecoded file and uri", br_file_and_uri, "images[0] has an undecoded file and a uri"},
	{"undecoded file with indices", br_file_with_indices, "images[0] has indices and also file data"},
	{"stored and rgba", br_stored_and_rgba, "images[0] has pixels and stored pixels"},
	{"stored and indices", br_stored_and_indices, "images[0] has stored pixels and indices"},
	{"stored PAL8", br_stored_pal8, "images[0] has stored pixels and no pixel format of their own"},
	{"stored format", br_stored_unknown_format, "images[0] has stored pixels and no pixel format"},
	{"stored without size", br_stored_without_size, "images[0] has undecoded pixels but a size of 2x0"},
	{"indices without palette", br_indices_without_palette, "images[0] has indices and a palette of 0 entries"},
	{"file size without data", br_file_size_without_data, "images[0] has file data of 5 bytes"},
	{"file data without size", br_file_data_without_size, "images[0] has file data of 0 bytes"},
	{"weights without skin", br_weights_without_skin, "meshes[1] has 4 weights but no skin"},
	{"packed index", br_packed_index, "meshes[3].source_vertex[3] 7 is outside the 4 packed records"},
	{"packed short", br_packed_short, "meshes[3].frames[2].packed_size 15 is less than 4 records of 4 bytes"},
	{"packed stride", br_packed_stride, "meshes[3].packed->vertex_stride 2 cannot hold"},
	{"packed coord", br_packed_coord, "meshes[3].packed->coord_size 3 is not 1, 2 or 4"},
	{"float records scale", br_float_scale, "meshes[3].packed has float coordinates but scale 2 and offset 0"},
	{"float records table", br_float_table, "meshes[3].packed has both a normal table and float normals"},
	{"float records normal", br_float_normal_room,
	 "meshes[3].packed->normal_offset 16 leaves no room for 3 floats in the 24-byte record"},
	{"float records NaN", br_float_nan, "meshes[3].frames[2] record 1: normal 2 is not finite"},
	{"float records inf", br_float_inf_position, "meshes[3].frames[2] record 3: coordinate 0 is not finite"},
	{"packed normal", br_packed_normal_offset, "meshes[3].packed->normal_offset 4 is outside"},
	{"packed no format", br_packed_no_format, "meshes[3].frames[2] is packed but the mesh has no packed format"},
	{"packed scale", br_packed_scale, "meshes[3].packed->scale[1] is not finite"},
	{"packed count", br_packed_more_vertices, "meshes[3] has 4 vertices but 3 packed records"},
};

/* A packed frame reads back through gsio_mesh_frame_get() as the float frame
 * it replaced; float frames read as stored; out of range is refused. */
static void test_packed_frame_get(void **state)
{
	(void)state;
	built b;
	gsio_error err;
	assert_int_equal(build(&b, NULL, &err), 0);
	gsio_mesh *m = &b.s->meshes[b.morph];
	float want[12], pos[12], nrm[12];
	memcpy(want, m->frames[2].positions, sizeof(want));
	assert_int_equal(gsio_mesh_frame_get(m, 1, pos, nrm), 1);
	assert_memory_equal(pos, m->frames[1].positions, sizeof(pos));
	make_packed(&b);
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	memset(nrm, 0, sizeof(nrm));
	assert_int_equal(gsio_mesh_frame_get(m, 2, pos, nrm), 1);
	assert_memory_equal(pos, want, sizeof(pos));
	for (size_t v = 0; v < 4; v++) assert_memory_equal(nrm + 3 * v, up_table[0], 3 * sizeof(float));
	assert_int_equal(gsio_mesh_frame_get(m, 2, NULL, NULL), 1); // either may be NULL
	b.pf->normal_table = NULL;                                 // a format without normals
	memset(nrm, 0x7f, sizeof(nrm));
	assert_int_equal(gsio_mesh_frame_get(m, 2, pos, nrm), 0);
	assert_true(nrm[0] != 0); // left as it was
	assert_int_equal(gsio_mesh_frame_get(m, 3, pos, nrm), -1);
	assert_int_equal(gsio_mesh_frame_get(NULL, 0, pos, nrm), -1);
	gsio_scene_free(b.s);

	// Float records (coord_size 4) read back as the float frame, through
	// source_vertex; they have no table, so no normal indices.
	assert_int_equal(build(&b, NULL, &err), 0);
	m = &b.s->meshes[b.morph];
	float want_n[12];
	memcpy(want, m->frames[2].positions, sizeof(want));
	memcpy(want_n, m->frames[2].normals, sizeof(want_n));
	make_float_records(&b);
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	memset(pos, 0, sizeof(pos));
	memset(nrm, 0, sizeof(nrm));
	assert_int_equal(gsio_mesh_frame_get(m, 2, pos, nrm), 1);
	assert_memory_equal(pos, want, sizeof(pos));
	assert_memory_equal(nrm, want_n, sizeof(nrm));
	uint8_t idx[4];
	const float *table = NULL;
	size_t table_count = 0;
	assert_int_equal(gsio_mesh_frame_normal_indices(m, 2, pos, idx, &table, &table_count), 0);
	b.pf->normal_floats = false; // positions only
	memset(nrm, 0x7f, sizeof(nrm));
	assert_int_equal(gsio_mesh_frame_get(m, 2, pos, nrm), 0);
	assert_memory_equal(pos, want, sizeof(pos));
	assert_true(nrm[0] != 0);
	gsio_scene_free(b.s);
}

/* An image kept as an undecoded file (GSIO_OPT_NO_PIXELS: file_data, its
 * size from the header, no rgba) is valid; so is one with both. */
static void test_undecoded_file_accepted(void **state)
{
	(void)state;
	built b;
	gsio_error err;
	assert_int_equal(build(&b, NULL, &err), 0);
	b.s->images[0].file_data = fake_file; // pixels and the file they came from
	b.s->images[0].file_size = sizeof(fake_file);
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	undecoded(&b);
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	// Stored skin pixels, and palette indices alone, are whole images too.
	b.s->images[0].file_data = NULL;
	b.s->images[0].file_size = 0;
	stored(&b);
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	static uint8_t idx[64 * 64], pal[4 * 2] = {1, 2, 3, 255, 4, 5, 6, 255};
	idx[7] = 1;
	b.s->images[0].stored = NULL;
	b.s->images[0].indices = idx;
	b.s->images[0].palette = pal;
	b.s->images[0].palette_count = 2;
	assert_int_equal(gsio_scene_validate(b.s, &err), 0);
	gsio_scene_free(b.s);
}

static void test_broken_scenes_refused(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		built b;
		gsio_error err;
		assert_int_equal(build(&b, NULL, &err), 0);
		assert_int_equal(gsio_scene_validate(b.s, &err), 0);
		broken[i].fn(&b);
		int rc = gsio_scene_validate(b.s, &err);
		if (rc == 0 || err.code != GSIO_ERR_ARGUMENT || !strstr(err.message, broken[i].expect)) {
			print_error("case '%s': rc %d code %d message '%s' (expected '%s')\n", broken[i].name, rc,
			            (int)err.code, err.message, broken[i].expect);
			fail();
		}
		char line[600];
		gsio_error_format(&err, line, sizeof(line));
		assert_non_null(strstr(line, "invalid scene"));
		gsio_scene_free(b.s);
	}
	gsio_error err;
	assert_int_equal(gsio_scene_validate(NULL, &err), -1);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
}

/* Every allocation the builder makes fails in turn: a clean -1, no leak. */
static void test_builder_alloc_failure(void **state)
{
	(void)state;
	size_t total = 0;
	{
		t_fail_alloc st = {0, 0, 0};
		gsio_allocator al = t_fail_allocator(&st);
		gsio_opts opts = {.allocator = &al};
		built b;
		gsio_error err;
		assert_int_equal(build(&b, &opts, &err), 0);
		gsio_scene_free(b.s);
		total = st.calls;
		assert_int_equal(st.live, 0);
	}
	assert_true(total > 0);
	for (size_t n = 1; n <= total; n++) {
		t_fail_alloc st = {n, 0, 0};
		gsio_allocator al = t_fail_allocator(&st);
		gsio_opts opts = {.allocator = &al};
		built b;
		gsio_error err;
		int rc = build(&b, &opts, &err);
		if (rc != 0) assert_true(err.code == GSIO_ERR_NOMEM || err.code == GSIO_ERR_LIMIT);
		gsio_scene_free(b.s);
		assert_int_equal(st.live, 0);
	}
	// A memory limit is a limit error, not a crash.
	gsio_opts small = {.memory_limit = 4096};
	built b;
	gsio_error err;
	int rc = build(&b, &small, &err);
	assert_int_equal(rc, -1);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsio_scene_free(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_built_scene_valid),
	    cmocka_unit_test(test_builder_growth),
	    cmocka_unit_test(test_warnings_counted),
	    cmocka_unit_test(test_broken_scenes_refused),
	    cmocka_unit_test(test_undecoded_file_accepted),
	    cmocka_unit_test(test_packed_frame_get),
	    cmocka_unit_test(test_builder_alloc_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
