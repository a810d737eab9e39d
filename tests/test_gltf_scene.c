/* The glTF writer (blender_bridge/gltf*.c) on synthetic scenes made with the
 * public builder, written to GLB in memory and read back (JSON with cJSON,
 * buffers by hand): the axis change, textures, samplers and image names,
 * the node tree, instances, skins, lights, extras and refused scenes.
 *
 * With GSIO_GLTF_DUMP_DIR set, the scenes are also written there as .glb
 * files, for the validator and Blender (tests/e2e/gltf.cmake). */
#include "test_util.h"
#include "gltf_test_util.h"

#include "gsio_gltf.h"
#include "gsioi_png.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double dnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_axes(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	struct {
		uint32_t flags;
		float scale;
		double want[3];
	} cases[] = {
	    {0, 0, {2, 3, 1}},                    // (y, z, x)
	    {GSIO_GLTF_KEEP_AXES, 0, {1, 2, 3}},  // as stored
	    {0, 2.0f, {4, 6, 2}},                 // scaled after the change
	    {GSIO_GLTF_KEEP_AXES, 0.5f, {0.5, 1, 1.5}},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		glb g;
		glb_write(&g, s, cases[c].flags, cases[c].scale);
		const cJSON *prim = primitive(&g, 0);
		size_t count;
		int nc;
		double *p = read_accessor(&g, attribute(prim, "POSITION"), &count, &nc);
		for (int k = 0; k < 3; k++) assert_true(p[k] == cases[c].want[k]);
		free(p);
		double *n = read_accessor(&g, attribute(prim, "NORMAL"), &count, &nc);
		if (cases[c].flags & GSIO_GLTF_KEEP_AXES)
			assert_true(n[2] == 1.0);
		else
			assert_true(n[1] == 1.0);
		free(n);
		glb_free(&g);
	}
	gsio_scene_free(s);
}

static void test_png_and_names(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	glb g;
	gsio_gltf_opts o = {0};
	o.name = "golem";
	gsio_error err;
	assert_int_equal(gsio_gltf_write(s, &o, &g.out, &err), 0);
	glb_parse(&g, g.out.files[0].data, g.out.files[0].size);
	uint32_t w, h;
	uint8_t *px = decode_image(&g, 0, &w, &h);
	assert_int_equal(w, 2);
	assert_int_equal(h, 1);
	assert_memory_equal(px, s->images[0].rgba, 8); // alpha kept: RGBA PNG
	free(px);
	// Names unique per model: two models in one Godot project do not share
	// "skin0".
	assert_string_equal(str(item(g.doc, "materials", 0), "name"), "golem_skin0");
	assert_string_equal(str(item(g.doc, "images", 0), "name"), "golem_skin0");
	// Static: no targets, no animations.
	assert_null(cJSON_GetObjectItemCaseSensitive(primitive(&g, 0), "targets"));
	assert_null(arr(g.doc, "animations"));
	glb_free(&g);
	uint8_t op[16] = {1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255};
	uint8_t *png;
	size_t size;
	assert_int_not_equal(gsioi_png_encode(op, 0, 2, &png, &size, &err), 0);
	gsio_scene_free(s);
}

/** Two nodes placing one mesh: one glTF mesh, both nodes refer to it. */
static void test_instances(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	int32_t n2 = gsio_scene_add_node(s, "tri2", -1, &err);
	s->nodes[n2].mesh = 0;
	s->nodes[n2].translation[0] = 10; // scene +X -> glTF +Z
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "instances.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 1);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), 2);
	assert_int_equal(num(item(g.doc, "nodes", 0), "mesh", -1), 0);
	assert_int_equal(num(item(g.doc, "nodes", 1), "mesh", -1), 0);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", 1), "translation");
	assert_true(cJSON_GetArrayItem(t, 2)->valuedouble == 10);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "nodes")), 2);
	glb_free(&g);
	gsio_scene_free(s);
}

/** Materials sharing images: one glTF texture per image and wrap pair, in
 *  order of first use, a sampler per wrap pair; every material points at
 *  the texture of its own image and wraps. */
static void test_textures_shared(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene(); // image 0, material 0 (repeat, repeat)
	gsio_error err;
	int32_t b = gsio_scene_add_image(s, "other", 1, 1, NULL, &err);
	assert_true(b >= 0);
	static const struct {
		int32_t image;
		gsio_wrap u, v;
	} use[] = {{0, GSIO_WRAP_CLAMP, GSIO_WRAP_REPEAT}, {0, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT},
	           {1, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT}, {0, GSIO_WRAP_CLAMP, GSIO_WRAP_REPEAT},
	           {1, GSIO_WRAP_MIRROR, GSIO_WRAP_CLAMP}, {1, GSIO_WRAP_REPEAT, GSIO_WRAP_REPEAT},
	           {0, GSIO_WRAP_CLAMP, GSIO_WRAP_CLAMP}};
	const int want_texture[] = {0, 1, 0, 2, 1, 3, 2, 4}; // material 0, then use[]
	for (size_t i = 0; i < sizeof(use) / sizeof(use[0]); i++) {
		char name[16];
		snprintf(name, sizeof(name), "m%zu", i + 1);
		int32_t m = gsio_scene_add_material(s, name, &err);
		assert_true(m >= 0);
		s->materials[m].base_color_texture.image = use[i].image;
		s->materials[m].base_color_texture.wrap_u = use[i].u;
		s->materials[m].base_color_texture.wrap_v = use[i].v;
		int32_t n = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[n].mesh = add_triangle(s, name, m);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	const cJSON *mats = arr(g.doc, "materials"), *texs = arr(g.doc, "textures");
	assert_int_equal(cJSON_GetArraySize(mats), 8);
	assert_int_equal(cJSON_GetArraySize(texs), 5);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "samplers")), 4);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "images")), 2);
	for (int i = 0; i < 8; i++) {
		const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", i),
		                                                     "pbrMetallicRoughness");
		int t = num(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"), "index", -1);
		assert_int_equal(t, want_texture[i]);
		const cJSON *tex = item(g.doc, "textures", t), *smp = item(g.doc, "samplers", num(tex, "sampler", -1));
		int32_t image = i ? use[i - 1].image : 0;
		gsio_wrap u = i ? use[i - 1].u : GSIO_WRAP_REPEAT, v = i ? use[i - 1].v : GSIO_WRAP_REPEAT;
		assert_int_equal(num(tex, "source", -1), image);
		const int code[] = {10497, 33071, 33648}; // REPEAT, CLAMP_TO_EDGE, MIRRORED_REPEAT
		assert_int_equal(num(smp, "wrapS", -1), code[u]);
		assert_int_equal(num(smp, "wrapT", -1), code[v]);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** A node tree written as it is: each node's children in order, the roots
 *  in the scene (children found by grouping the parents, not by a scan). */
static void test_node_tree(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	const int32_t parent[] = {-1, 0, 1, 0, 2, -1, 5, 1, 0};
	const size_t nn = sizeof(parent) / sizeof(parent[0]);
	for (size_t i = 0; i < nn; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%zu", i);
		assert_int_equal(gsio_scene_add_node(s, name, parent[i], &err), (int32_t)i);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "nodes")), (int)nn);
	for (size_t i = 0; i < nn; i++) {
		const cJSON *kids = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", (int)i), "children");
		int want[8], nw = 0;
		for (size_t k = 0; k < nn; k++)
			if (parent[k] == (int32_t)i) want[nw++] = (int)k;
		assert_int_equal(cJSON_GetArraySize(kids), nw); // 0 when absent
		for (int k = 0; k < nw; k++) assert_int_equal(cJSON_GetArrayItem(kids, k)->valueint, want[k]);
	}
	const cJSON *roots = cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "nodes");
	assert_int_equal(cJSON_GetArraySize(roots), 2);
	assert_int_equal(cJSON_GetArrayItem(roots, 0)->valueint, 0);
	assert_int_equal(cJSON_GetArrayItem(roots, 1)->valueint, 5);
	glb_free(&g);
	gsio_scene_free(s);
}

/* Weights for a triangle mesh (add_triangle): each vertex wholly on joint
 * v % joints of its skin. */
static void weigh_triangle(gsio_scene *s, gsio_mesh *m, uint32_t joints)
{
	gsio_error err;
	m->weights.offsets = gsio_scene_alloc(s, 4, sizeof(uint32_t), &err);
	m->weights.joints = gsio_scene_alloc(s, 3, sizeof(uint32_t), &err);
	m->weights.values = gsio_scene_alloc(s, 3, sizeof(float), &err);
	assert_true(m->weights.offsets && m->weights.joints && m->weights.values);
	m->weights.count = 3;
	for (uint32_t v = 0; v < 3; v++) {
		m->weights.offsets[v + 1] = v + 1;
		m->weights.joints[v] = v % joints;
		m->weights.values[v] = 1;
	}
}

/** Two skeletons, each with a skinned mesh: two glTF skins. */
static void test_two_skins(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	for (int k = 0; k < 2; k++) {
		char name[32];
		snprintf(name, sizeof(name), "body%d", k);
		int32_t mi = add_triangle(s, name, -1);
		snprintf(name, sizeof(name), "root%d", k);
		int32_t root = gsio_scene_add_node(s, name, -1, &err);
		snprintf(name, sizeof(name), "bone%d", k);
		int32_t bone = gsio_scene_add_node(s, name, root, &err);
		s->nodes[bone].translation[2] = 1;
		snprintf(name, sizeof(name), "mesh%d", k);
		int32_t mn = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[mn].mesh = mi;
		snprintf(name, sizeof(name), "skel%d", k);
		int32_t sk = gsio_scene_add_skin(s, name, 2, &err);
		assert_true(sk >= 0);
		s->skins[sk].joints[0] = root;
		s->skins[sk].joints[1] = bone;
		s->skins[sk].inverse_bind[16 + 14] = -1; // bone at z = 1
		s->skins[sk].skeleton = root;
		gsio_mesh *m = &s->meshes[mi];
		m->skin = sk;
		weigh_triangle(s, m, 2);
	}
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "two_skins.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "skins")), 2);
	for (int k = 0; k < 2; k++) {
		const cJSON *sk = item(g.doc, "skins", k);
		const cJSON *joints = cJSON_GetObjectItemCaseSensitive(sk, "joints");
		assert_int_equal(cJSON_GetArrayItem(joints, 0)->valueint, 3 * k);
		assert_int_equal(cJSON_GetArrayItem(joints, 1)->valueint, 3 * k + 1);
		assert_int_equal(num(item(g.doc, "nodes", 3 * k + 2), "skin", -1), k);
		// IBM of the bone: translation -1 along scene Z = glTF Y.
		size_t count;
		int nc;
		double *ibm = read_accessor(&g, num(sk, "inverseBindMatrices", -1), &count, &nc);
		assert_int_equal(count, 2);
		assert_true(ibm[16 + 13] == -1);
		assert_true(ibm[16 + 15] == 1);
		free(ibm);
		assert_true(attribute(primitive(&g, k), "JOINTS_0") >= 0);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** Two skinned mesh records sharing their arrays (a level's instances of
 *  one skinned model), each with its own skin: one glTF mesh, two skins, each
 *  node its own; a record with its own arrays stays its own mesh. */
static void test_shared_skinned_mesh(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	int32_t first = -1;
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "root%d", k);
		int32_t root = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[root].translation[0] = (float)(10 * k);
		snprintf(name, sizeof(name), "skel%d", k);
		int32_t sk = gsio_scene_add_skin(s, name, 1, &err);
		assert_true(sk >= 0);
		s->skins[sk].joints[0] = root;
		snprintf(name, sizeof(name), "body%d", k);
		int32_t mi = add_triangle(s, name, -1);
		gsio_mesh *m = &s->meshes[mi];
		if (k == 1) { // the instance: the first one's arrays
			const char *keep = m->name;
			*m = s->meshes[first];
			m->name = keep;
		} else {
			weigh_triangle(s, m, 1);
			if (k == 0) first = mi;
		}
		m->skin = sk;
		snprintf(name, sizeof(name), "mesh%d", k);
		int32_t mn = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[mn].mesh = mi;
	}
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "shared_skinned.glb");
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "meshes")), 2);
	assert_int_equal(cJSON_GetArraySize(arr(g.doc, "skins")), 3);
	for (int k = 0; k < 3; k++) {
		const cJSON *n = item(g.doc, "nodes", 2 * k + 1);
		assert_int_equal(num(n, "mesh", -1), k < 2 ? 0 : 1);
		assert_int_equal(num(n, "skin", -1), k);
	}
	glb_free(&g);
	gsio_scene_free(s);
}

/** Rotates v by glTF node rotation r (x,y,z,w). */
static void rot(const cJSON *r, const double v[3], double o[3])
{
	double q[4] = {0, 0, 0, 1};
	for (int k = 0; r && k < 4; k++) q[k] = cJSON_GetArrayItem(r, k)->valuedouble;
	double x = q[0], y = q[1], z = q[2], w = q[3];
	double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
	o[0] = v[0] + w * tx + (y * tz - z * ty);
	o[1] = v[1] + w * ty + (z * tx - x * tz);
	o[2] = v[2] + w * tz + (x * ty - y * tx);
}

/** A point, a spot and a directional light: KHR_lights_punctual, and the
 *  lights shine along glTF +Z (scene +X) from nodes with no rotation. */
static void test_lights(void **state)
{
	(void)state;
	gsio_scene *s = new_scene();
	gsio_error err;
	static const gsio_light_type types[3] = {GSIO_LIGHT_POINT, GSIO_LIGHT_SPOT, GSIO_LIGHT_DIRECTIONAL};
	for (int k = 0; k < 3; k++) {
		char name[16];
		snprintf(name, sizeof(name), "light%d", k);
		int32_t l = gsio_scene_add_light(s, name, types[k], &err);
		assert_true(l >= 0);
		s->lights[l].range = types[k] == GSIO_LIGHT_DIRECTIONAL ? 0 : 50;
		if (types[k] == GSIO_LIGHT_SPOT) {
			s->lights[l].inner_cone = 0.2f;
			s->lights[l].outer_cone = 0.5f;
		}
		int32_t n = gsio_scene_add_node(s, name, -1, &err);
		s->nodes[n].light = l;
		s->nodes[n].translation[2] = (float)k;
	}
	assert_int_equal(gsio_extras_set_float(s, &s->lights[0].extras, "gsio:falloff", 2.5, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "lights.glb");
	const cJSON *lights = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g.doc, "extensions"), "KHR_lights_punctual"),
	    "lights");
	assert_int_equal(cJSON_GetArraySize(lights), 3);
	assert_string_equal(str(cJSON_GetArrayItem(lights, 0), "type"), "point");
	assert_string_equal(str(cJSON_GetArrayItem(lights, 1), "type"), "spot");
	assert_string_equal(str(cJSON_GetArrayItem(lights, 2), "type"), "directional");
	const cJSON *spot = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 1), "spot");
	assert_true(fabs(dnum(spot, "outerConeAngle") - 0.5) < 1e-6);
	assert_true(fabs(dnum(cJSON_GetArrayItem(lights, 0), "range") - 50) < 1e-6);
	assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 2), "range"));
	assert_true(fabs(dnum(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lights, 0), "extras"),
	                      "gsio:falloff") - 2.5) < 1e-9);
	for (int k = 0; k < 3; k++) {
		const cJSON *n = item(g.doc, "nodes", k);
		const cJSON *ext = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(n, "extensions"), "KHR_lights_punctual");
		assert_int_equal(num(ext, "light", -1), k);
		double fwd[3] = {0, 0, -1}, d[3];
		rot(cJSON_GetObjectItemCaseSensitive(n, "rotation"), fwd, d);
		assert_true(fabs(d[0]) < 1e-6 && fabs(d[1]) < 1e-6 && fabs(d[2] - 1) < 1e-6);
	}
	const cJSON *used = arr(g.doc, "extensionsUsed");
	bool found = false;
	const cJSON *u;
	cJSON_ArrayForEach(u, used) found = found || !strcmp(u->valuestring, "KHR_lights_punctual");
	assert_true(found);
	glb_free(&g);
	gsio_scene_free(s);
}

/** Extras of the scene, nodes, meshes, materials: ints, floats, strings,
 *  float arrays. */
static void test_extras(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err;
	const float rgb[3] = {0.25f, 0.5f, 1};
	assert_int_equal(gsio_extras_set_int(s, &s->nodes[0].extras, "gsio:flags", 7, &err), 0);
	assert_int_equal(gsio_extras_set_string(s, &s->nodes[0].extras, "gsio:action", "door", &err), 0);
	assert_int_equal(gsio_extras_set_floats(s, &s->nodes[0].extras, "gsio:skills", rgb, 3, &err), 0);
	assert_int_equal(gsio_extras_set_float(s, &s->meshes[0].extras, "gsio:scale", 0.5, &err), 0);
	assert_int_equal(gsio_extras_set_int(s, &s->materials[0].extras, "gsio:skin_type", 4, &err), 0);
	assert_int_equal(gsio_extras_set_floats(s, &s->extras, "gsio:fog", rgb, 3, &err), 0);
	glb g;
	glb_write(&g, s, 0, 0);
	dump(&g, "extras.glb");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "nodes", 0), "extras");
	assert_int_equal(num(x, "gsio:flags", -1), 7);
	assert_string_equal(str(x, "gsio:action"), "door");
	const cJSON *sk = cJSON_GetObjectItemCaseSensitive(x, "gsio:skills");
	assert_int_equal(cJSON_GetArraySize(sk), 3);
	assert_true(cJSON_GetArrayItem(sk, 0)->valuedouble == 0.25);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "meshes", 0), "extras");
	assert_true(dnum(x, "gsio:scale") == 0.5);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "materials", 0), "extras");
	assert_int_equal(num(x, "gsio:skin_type", -1), 4);
	x = cJSON_GetObjectItemCaseSensitive(item(g.doc, "scenes", 0), "extras");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x, "gsio:fog")), 3);
	glb_free(&g);
	gsio_scene_free(s);
}

/** An invalid scene is refused with the validator's own message. */
static void test_invalid_scene(void **state)
{
	(void)state;
	gsio_scene *s = triangle_scene();
	gsio_error err, verr;
	s->nodes[0].parent = 0; // not less than its own index
	assert_int_not_equal(gsio_scene_validate(s, &verr), 0);
	gsio_gltf_output out;
	assert_int_not_equal(gsio_gltf_write(s, NULL, &out, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_string_equal(err.message, verr.message);
	assert_int_equal(out.files_count, 0);
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_axes),
	    cmocka_unit_test(test_textures_shared),
	    cmocka_unit_test(test_node_tree),
	    cmocka_unit_test(test_png_and_names),
	    cmocka_unit_test(test_instances),
	    cmocka_unit_test(test_two_skins),
	    cmocka_unit_test(test_shared_skinned_mesh),
	    cmocka_unit_test(test_lights),
	    cmocka_unit_test(test_extras),
	    cmocka_unit_test(test_invalid_scene),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
