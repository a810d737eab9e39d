/* A program that knows gsio only through its installed headers: it builds a
 * scene from nothing (two placed instances of one mesh, a skinned mesh, a
 * second skeleton with its own mesh, a morph-animated mesh, a point light, a
 * camera, extras), validates it and writes it as GLB.
 * usage: scene_consumer OUT.glb */
#include <gsio/gsio.h>
#include <gsio/gsio_gltf.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

static gsio_error err;

static int die(const char *what)
{
	char msg[600];
	gsio_error_format(&err, msg, sizeof msg);
	fprintf(stderr, "scene_consumer: %s: %s\n", what, msg);
	return 1;
}

/* The inverse of a column-major matrix that only translates (the joints
 * here are moved, not turned or scaled). -1 for any other matrix. */
static int invert_translation(const float m[16], float out[16])
{
	for (int i = 0; i < 12; i++)
		if (m[i] != ((i % 5) == 0 ? 1.0f : 0.0f)) return -1;
	if (m[15] != 1.0f) return -1;
	memcpy(out, m, 16 * sizeof *out);
	out[12] = -m[12], out[13] = -m[13], out[14] = -m[14];
	return 0;
}

#define TRY(x) \
	do { \
		if ((x) < 0) return die(#x); \
	} while (0)

/* A unit cube (8 shared corners, 12 CCW triangles seen from outside). */
static void cube(gsio_mesh *m, float size)
{
	static const uint32_t idx[36] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
	                                 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
	for (int v = 0; v < 8; v++) {
		float p[3] = {(v == 1 || v == 2 || v == 5 || v == 6) ? size : -size,
		              (v == 2 || v == 3 || v == 6 || v == 7) ? size : -size, v >= 4 ? size : -size};
		float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
		for (int k = 0; k < 3; k++) {
			m->positions[3 * v + k] = p[k];
			if (m->normals) m->normals[3 * v + k] = p[k] / len;
		}
		if (m->uvs) {
			m->uvs[2 * v] = (v & 1) ? 1.0f : 0.0f;
			m->uvs[2 * v + 1] = (v & 2) ? 1.0f : 0.0f;
		}
	}
	memcpy(m->indices, idx, sizeof idx);
}

/* Binds every vertex of mesh to joint (v < 4 ? 0 : last) of skin. */
static int bind(gsio_scene *s, int32_t mesh, int32_t skin)
{
	gsio_mesh *m = &s->meshes[mesh];
	size_t n = m->vertex_count, last = s->skins[skin].joints_count - 1;
	m->skin = skin;
	m->weights.offsets = gsio_scene_alloc(s, n + 1, sizeof(uint32_t), &err);
	m->weights.joints = gsio_scene_alloc(s, n, sizeof(uint32_t), &err);
	m->weights.values = gsio_scene_alloc(s, n, sizeof(float), &err);
	if (!m->weights.offsets || !m->weights.joints || !m->weights.values) return -1;
	for (size_t v = 0; v < n; v++) {
		m->weights.offsets[v + 1] = (uint32_t)(v + 1);
		m->weights.joints[v] = v < 4 ? 0 : (uint32_t)last;
		m->weights.values[v] = 1;
	}
	m->weights.count = n;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: scene_consumer OUT.glb\n");
		return 2;
	}
	gsio_scene *s = gsio_scene_new(NULL, &err);
	if (!s) return die("gsio_scene_new");
	uint32_t F = GSIO_MESH_NORMALS | GSIO_MESH_UVS;

	int32_t img, mat, crate, legs, arm, blob;
	TRY(img = gsio_scene_add_image(s, "checker", 8, 8, NULL, &err));
	for (int i = 0; i < 64; i++) {
		uint8_t c = ((i % 8) + (i / 8)) % 2 ? 230 : 40;
		uint8_t *px = s->images[img].rgba + 4 * i;
		px[0] = c, px[1] = (uint8_t)(c / 2), px[2] = 20, px[3] = 255;
	}
	TRY(mat = gsio_scene_add_material(s, "crate_wood", &err));
	s->materials[mat].base_color_texture.image = img;
	TRY(gsio_extras_set_int(s, &s->materials[mat].extras, "skin_type", 4, &err));

	// Two instances of one mesh.
	int32_t level, a, b;
	TRY(crate = gsio_scene_add_mesh(s, "crate", 8, 36, F, mat, &err));
	cube(&s->meshes[crate], 0.5f);
	TRY(level = gsio_scene_add_node(s, "level", -1, &err));
	TRY(a = gsio_scene_add_node(s, "crate_a", level, &err));
	TRY(b = gsio_scene_add_node(s, "crate_b", level, &err));
	s->nodes[a].mesh = s->nodes[b].mesh = crate;
	s->nodes[a].translation[1] = -2;
	s->nodes[b].translation[1] = 2;
	s->nodes[b].rotation[2] = sinf(0.4f), s->nodes[b].rotation[3] = cosf(0.4f);
	TRY(gsio_extras_set_string(s, &s->nodes[b].extras, "action", "crate_spin", &err));
	float skills[4] = {1, 0, 2.5f, 100};
	TRY(gsio_extras_set_floats(s, &s->nodes[b].extras, "skills", skills, 4, &err));

	// Skeleton 1 (hip -> knee) with a skinned mesh; skeleton 2 (shoulder).
	int32_t hip, knee, shoulder, skin1, skin2, legs_node, arm_node;
	TRY(hip = gsio_scene_add_node(s, "hip", -1, &err));
	s->nodes[hip].translation[0] = 3;
	TRY(knee = gsio_scene_add_node(s, "knee", hip, &err));
	s->nodes[knee].translation[2] = 0.5f;
	TRY(shoulder = gsio_scene_add_node(s, "shoulder", -1, &err));
	s->nodes[shoulder].translation[0] = -3;
	TRY(skin1 = gsio_scene_add_skin(s, "legs_skeleton", 2, &err));
	s->skins[skin1].joints[0] = hip, s->skins[skin1].joints[1] = knee;
	s->skins[skin1].skeleton = hip;
	TRY(skin2 = gsio_scene_add_skin(s, "arm_skeleton", 1, &err));
	s->skins[skin2].joints[0] = shoulder;
	s->skins[skin2].skeleton = shoulder;
	// Inverse bind matrices from the joints' world bind pose.
	int32_t js[3] = {hip, knee, shoulder};
	float *ibm[3] = {s->skins[skin1].inverse_bind, s->skins[skin1].inverse_bind + 16,
	                 s->skins[skin2].inverse_bind};
	for (int j = 0; j < 3; j++) {
		float w[16];
		gsio_node_world_matrix(s, js[j], w);
		if (invert_translation(w, ibm[j]) != 0) return die("a joint that is not only moved");
	}
	TRY(legs = gsio_scene_add_mesh(s, "legs", 8, 36, F, mat, &err));
	cube(&s->meshes[legs], 0.3f);
	for (int v = 0; v < 8; v++) s->meshes[legs].positions[3 * v] += 3;
	TRY(bind(s, legs, skin1));
	TRY(arm = gsio_scene_add_mesh(s, "arm", 8, 36, F, mat, &err));
	cube(&s->meshes[arm], 0.3f);
	for (int v = 0; v < 8; v++) s->meshes[arm].positions[3 * v] -= 3;
	TRY(bind(s, arm, skin2));
	TRY(legs_node = gsio_scene_add_node(s, "legs_mesh", -1, &err));
	s->nodes[legs_node].mesh = legs;
	TRY(arm_node = gsio_scene_add_node(s, "arm_mesh", -1, &err));
	s->nodes[arm_node].mesh = arm;

	// A morph-animated mesh: 4 frames, the top rising; one clip over them.
	int32_t blob_node, anim;
	TRY(blob = gsio_scene_add_mesh(s, "blob", 8, 36, F, mat, &err));
	gsio_mesh *m = &s->meshes[blob];
	cube(m, 0.4f);
	m->frames = gsio_scene_alloc(s, 4, sizeof(gsio_morph_frame), &err);
	if (!m->frames) return die("frames");
	m->frames_count = 4;
	for (size_t f = 0; f < 4; f++) {
		gsio_morph_frame *fr = &m->frames[f];
		char name[16];
		snprintf(name, sizeof name, "rise%zu", f);
		fr->name = gsio_scene_strdup(s, name, &err);
		fr->positions = gsio_scene_alloc(s, 24, sizeof(float), &err);
		fr->normals = gsio_scene_alloc(s, 24, sizeof(float), &err);
		if (!fr->name || !fr->positions || !fr->normals) return die("frame");
		memcpy(fr->positions, m->positions, 24 * sizeof(float));
		memcpy(fr->normals, m->normals, 24 * sizeof(float));
		for (int v = 4; v < 8; v++) fr->positions[3 * v + 2] += 0.3f * (float)f;
	}
	TRY(blob_node = gsio_scene_add_node(s, "blob", -1, &err));
	s->nodes[blob_node].mesh = blob;
	s->nodes[blob_node].translation[0] = -6;
	TRY(anim = gsio_scene_add_animation(s, "rise", 10, 4, 1, &err));
	gsio_channel *ch = &s->animations[anim].channels[0];
	ch->node = blob_node;
	ch->path = GSIO_PATH_MORPH;
	ch->frames = gsio_scene_alloc(s, 4, sizeof(uint32_t), &err);
	if (!ch->frames) return die("keys");
	for (uint32_t k = 0; k < 4; k++) ch->frames[k] = k;

	// A point light and a camera.
	int32_t light, light_node, cam, cam_node;
	TRY(light = gsio_scene_add_light(s, "lamp", GSIO_LIGHT_POINT, &err));
	s->lights[light].color[1] = 0.8f;
	s->lights[light].intensity = 500;
	s->lights[light].range = 40;
	TRY(light_node = gsio_scene_add_node(s, "lamp", level, &err));
	s->nodes[light_node].light = light;
	s->nodes[light_node].translation[2] = 6;
	TRY(cam = gsio_scene_add_camera(s, "view", &err));
	s->cameras[cam].fov = 70;
	TRY(cam_node = gsio_scene_add_node(s, "view", -1, &err));
	s->nodes[cam_node].camera = cam;
	s->nodes[cam_node].translation[0] = -15;
	s->nodes[cam_node].translation[2] = 2;
	float fog[3] = {0.5f, 0.55f, 0.6f};
	TRY(gsio_extras_set_floats(s, &s->extras, "fog_color", fog, 3, &err));

	if (gsio_scene_validate(s, &err) != 0) return die("gsio_scene_validate");
	gsio_gltf_opts o = {0};
	if (gsio_gltf_write_file(s, argv[1], &o, NULL, &err) != 0) return die("gsio_gltf_write_file");
	printf("scene_consumer: %zu nodes, %zu meshes, %zu skins, %zu lights, %zu cameras -> %s\n",
	       s->nodes_count, s->meshes_count, s->skins_count, s->lights_count, s->cameras_count,
	       argv[1]);
	gsio_scene_free(s);
	return 0;
}
