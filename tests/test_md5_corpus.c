/* MD5 (.md5mesh, .md5anim) on the corpus: SimpleCube and Bob against counts
 * read independently from the text (sscanf, no gsio code), round trips
 * through the encoders and what they refuse, poses recomputed
 * independently from the .md5anim text, a lone .md5anim, and the same load
 * under a decimal-comma locale. */
#define _POSIX_C_SOURCE 200809L // setenv
#include "test_util.h"
#include "md5_test_util.h"

#include "gsio_md5.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The world bind position of joint j, from its inverse bind matrix:
// inverse = [R^T | -R^T t], so t = -R (its translation column).
static void bind_world_t(const gsio_scene *s, size_t j, double out[3])
{
	assert_true(s->skins_count == 1 && j < s->skins[0].joints_count);
	assert_int_equal(s->skins[0].joints[j], (int32_t)j);
	const float *m = &s->skins[0].inverse_bind[16 * j];
	for (int r = 0; r < 3; r++) {
		double v = 0;
		for (int k = 0; k < 3; k++) v -= (double)m[r * 4 + k] * m[12 + k]; // R[r][k] = m[col r][row k]
		out[r] = v;
	}
}

// -- Independent reading of the text (sscanf, no gsio code)

typedef struct t_mesh_counts {
	size_t meshes, verts[16], tris[16], weights[16];
	char shader[16][128];
} t_mesh_counts;

static void t_count_mesh(const char *text, t_mesh_counts *c)
{
	memset(c, 0, sizeof(*c));
	const char *line = text;
	long mi = -1;
	while (*line) {
		const char *p = line;
		while (*p == ' ' || *p == '\t') p++;
		if (!strncmp(p, "mesh {", 6)) mi = (long)c->meshes++;
		if (mi >= 0 && mi < 16) {
			if (!strncmp(p, "vert ", 5)) c->verts[mi]++;
			if (!strncmp(p, "tri ", 4)) c->tris[mi]++;
			if (!strncmp(p, "weight ", 7)) c->weights[mi]++;
			if (!strncmp(p, "shader \"", 8)) sscanf(p + 8, "%127[^\"]", c->shader[mi]);
		}
		const char *nl = strchr(line, '\n');
		line = nl ? nl + 1 : line + strlen(line);
	}
}

// MD5 values are floats (Doom 3 reads them as floats): the independent side
// rounds the text's numbers to float too, then works in double. Without
// that, near-180-degree rotations (w close to 0) amplify the float rounding
// of x, y, z through w = -sqrt(1 - x^2 - y^2 - z^2).
static double t_f(double v)
{
	return (double)(float)v;
}

typedef struct t_joint {
	char name[64];
	int parent, flags, start;
	double base[6];
} t_joint;

typedef struct t_anim {
	int frames, joints, comps;
	double fps;
	t_joint *j;
	double *data; // frames * comps
} t_anim;

static const char *t_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	if (!p) fail_msg("'%s' not found", key);
	return p + strlen(key);
}

static void t_parse_anim(const char *text, t_anim *a)
{
	assert_int_equal(sscanf(t_after(text, "numFrames"), "%d", &a->frames), 1);
	assert_int_equal(sscanf(t_after(text, "numJoints"), "%d", &a->joints), 1);
	assert_int_equal(sscanf(t_after(text, "frameRate"), "%lf", &a->fps), 1);
	assert_int_equal(sscanf(t_after(text, "numAnimatedComponents"), "%d", &a->comps), 1);
	a->j = calloc((size_t)a->joints, sizeof(*a->j));
	a->data = calloc((size_t)a->frames * (size_t)a->comps + 1, sizeof(double));
	const char *p = t_after(text, "hierarchy {");
	for (int i = 0; i < a->joints; i++) {
		int n = 0;
		t_joint *j = &a->j[i];
		assert_int_equal(sscanf(p, " \"%63[^\"]\" %d %d %d%n", j->name, &j->parent, &j->flags,
		                        &j->start, &n),
		                 4);
		p += n;
		p = strchr(p, '\n');
	}
	p = t_after(text, "baseframe {");
	for (int i = 0; i < a->joints; i++) {
		int n = 0;
		double *b = a->j[i].base;
		assert_int_equal(sscanf(p, " ( %lf %lf %lf ) ( %lf %lf %lf )%n", &b[0], &b[1], &b[2],
		                        &b[3], &b[4], &b[5], &n),
		                 6);
		for (int k = 0; k < 6; k++) b[k] = t_f(b[k]);
		p += n;
	}
	for (int f = 0; f < a->frames; f++) {
		char key[32];
		snprintf(key, sizeof(key), "frame %d {", f);
		p = t_after(p, key);
		for (int c = 0; c < a->comps; c++) {
			char *end;
			a->data[(size_t)f * (size_t)a->comps + (size_t)c] = t_f(strtod(p, &end));
			assert_true(end != p);
			p = end;
		}
	}
}

// Rotation matrix of a unit quaternion x, y, z, w (standard q v q^-1).
static void t_quat_matrix(const double q[4], double m[9])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - w * z), m[2] = 2 * (x * z + w * y);
	m[3] = 2 * (x * y + w * z), m[4] = 1 - 2 * (x * x + z * z), m[5] = 2 * (y * z - w * x);
	m[6] = 2 * (x * z - w * y), m[7] = 2 * (y * z + w * x), m[8] = 1 - 2 * (x * x + y * y);
}

static void t_mat_mul(const double a[9], const double b[9], double out[9])
{
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

static void t_mat_vec(const double m[9], const double v[3], double out[3])
{
	for (int r = 0; r < 3; r++) out[r] = m[3 * r] * v[0] + m[3 * r + 1] * v[1] + m[3 * r + 2] * v[2];
}

// World transforms from local ones (parents first).
static void t_compose(size_t n, const int *parent, const double *lt, const double *lr,
                      double *wt, double *wr)
{
	for (size_t j = 0; j < n; j++) {
		double m[9];
		t_quat_matrix(&lr[4 * j], m);
		if (parent[j] < 0) {
			memcpy(&wr[9 * j], m, sizeof(m));
			memcpy(&wt[3 * j], &lt[3 * j], 3 * sizeof(double));
		} else {
			size_t p = (size_t)parent[j];
			t_mat_mul(&wr[9 * p], m, &wr[9 * j]);
			double r[3];
			t_mat_vec(&wr[9 * p], &lt[3 * j], r);
			for (int k = 0; k < 3; k++) wt[3 * j + (size_t)k] = wt[3 * p + (size_t)k] + r[k];
		}
	}
}

// w = -sqrt(1 - x^2 - y^2 - z^2); when x, y, z are a little too long (Bob
// has 140 such rotations, |xyz|^2 up to 1 + 7e-7) w is 0 and x, y, z are
// scaled back to a unit quaternion, or the matrix would not be a rotation.
static void t_quat_w(double q[4])
{
	double t = 1.0 - q[0] * q[0] - q[1] * q[1] - q[2] * q[2];
	q[3] = t > 0 ? -sqrt(t) : 0.0;
	if (t <= 0) {
		double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
		for (int k = 0; k < 3; k++) q[k] /= len;
	}
}

// -- Conformance: SimpleCube

static void test_simplecube(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *s = load_ok(t_corpus_path(CUBE), NULL);
	assert_string_equal(s->format, "MD5");
	assert_int_equal(s->format_version, 10);
	assert_int_equal(n_joints(s), 3); // origin, root, joint1 (numJoints 3 in the file)
	assert_int_equal(s->nodes_count, 4); // the joints, then the mesh's node
	assert_int_equal(s->nodes[3].mesh, 0);
	assert_int_equal(s->nodes[3].parent, -1);
	assert_int_equal(s->skins_count, 1);
	assert_int_equal(s->skins[0].skeleton, 0);
	assert_int_equal(s->meshes_count, 1);
	assert_int_equal(s->materials_count, 1);
	assert_int_equal(s->images_count, 0); // shader ""
	assert_int_equal(s->animations_count, 0);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->vertex_count, 24);
	assert_int_equal(m->index_count, 36);
	assert_int_equal(m->weights.count, 48);
	assert_int_equal(m->parts_count, 1);
	assert_int_equal(m->parts[0].material, 0);
	assert_int_equal(m->parts[0].index_count, 36);
	assert_int_equal(m->skin, 0);
	assert_int_equal(s->materials[0].base_color_texture.image, -1);
	assert_int_equal(s->source.vertices, 24);
	assert_int_equal(s->source.triangles, 12);
	// Joint parents are earlier joints; the world pose is the file's.
	for (size_t j = 0; j < n_joints(s); j++) assert_true(s->nodes[j].parent < (int32_t)j);
	double wt2[3];
	bind_world_t(s, 2, wt2);
	assert_true(fabs(wt2[2] - 31.9803333282) < 1e-5);
	// Every triangle faces away from the cube's centre (file winding reversed).
	double c[3] = {0, 0, 0};
	for (size_t v = 0; v < m->vertex_count; v++)
		for (int k = 0; k < 3; k++) c[k] += m->positions[3 * v + (size_t)k] / (double)m->vertex_count;
	size_t outward = 0;
	for (size_t t = 0; t < m->index_count; t += 3) {
		const float *a = &m->positions[3 * m->indices[t]], *b = &m->positions[3 * m->indices[t + 1]],
		            *d = &m->positions[3 * m->indices[t + 2]];
		double e1[3], e2[3], mid[3];
		for (int k = 0; k < 3; k++) {
			e1[k] = b[k] - a[k];
			e2[k] = d[k] - a[k];
			mid[k] = (a[k] + b[k] + d[k]) / 3.0 - c[k];
		}
		double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
		               e1[0] * e2[1] - e1[1] * e2[0]};
		if (n[0] * mid[0] + n[1] * mid[1] + n[2] * mid[2] > 0) outward++;
	}
	assert_int_equal(outward, 12);
	// Normals are unit and point outward too.
	for (size_t v = 0; v < m->vertex_count; v++) {
		const float *n = &m->normals[3 * v];
		double len = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
		assert_true(fabs(len - 1.0) < 1e-5);
		double d = 0;
		for (int k = 0; k < 3; k++) d += n[k] * (m->positions[3 * v + (size_t)k] - c[k]);
		assert_true(d > 0);
	}
	gsio_scene_free(s);
}

// -- Conformance: Bob

static void test_bob(void **state)
{
	(void)state;
	size_t size;
	uint8_t *text = t_read_corpus(BOB_MESH, &size);
	char *z = malloc(size + 1);
	memcpy(z, text, size);
	z[size] = 0;
	t_mesh_counts c;
	t_count_mesh(z, &c);
	double t0 = now_ms();
	gsio_scene *s = load_ok(t_corpus_path(BOB_MESH), NULL);
	double t1 = now_ms();
	print_message("  Bob.md5mesh + 5 PNGs + Bob.md5anim loaded in %.1f ms\n", t1 - t0);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("  warning: %s\n", s->warnings[i]);
	assert_int_equal(s->warnings_count, 0);
	assert_int_equal(s->meshes_count, 6);
	assert_int_equal(c.meshes, 6);
	assert_int_equal(n_joints(s), 33);
	assert_int_equal(s->nodes_count, 33 + 6);
	assert_int_equal(s->materials_count, 6);
	assert_int_equal(s->images_count, 5); // guard1_body.png is shared by meshes 0 and 5
	size_t verts = 0, tris = 0;
	for (size_t i = 0; i < 6; i++) {
		const gsio_mesh *m = &s->meshes[i];
		assert_int_equal(m->vertex_count, c.verts[i]);
		assert_int_equal(m->index_count, 3 * c.tris[i]);
		// Bob uses every weight exactly once, so the CSR count is the file's.
		assert_int_equal(m->weights.count, c.weights[i]);
		assert_int_equal(m->weights.offsets[m->vertex_count], m->weights.count);
		verts += m->vertex_count;
		tris += c.tris[i];
		assert_int_equal(m->parts_count, 1);
		assert_int_equal(m->parts[0].material, (int32_t)i);
		assert_int_equal(s->nodes[33 + i].mesh, (int32_t)i);
		const gsio_material *mat = &s->materials[i];
		assert_string_equal(mat->shader, c.shader[i]);
		assert_true(mat->base_color_texture.image >= 0);
		const gsio_image *im = &s->images[mat->base_color_texture.image];
		assert_string_equal(im->name, c.shader[i]);
		assert_non_null(im->source_path);
		assert_true(im->width > 0 && im->height > 0 && im->rgba);
		for (size_t w = 0; w < m->weights.count; w++) assert_true(m->weights.joints[w] < 33);
	}
	print_message("  Bob: %zu meshes, %zu joints, %zu vertices, %zu triangles, %zu images\n",
	              s->meshes_count, n_joints(s), verts, tris, s->images_count);
	assert_int_equal(s->source.vertices, verts);
	assert_int_equal(s->source.triangles, tris);
	// The images are the PNGs' real sizes.
	const char *names[] = {"guard1_body.png", "guard1_face.png", "guard1_helmet.png",
	                       "iron_grill.png", "round_grill.png"};
	const uint32_t w[] = {400, 400, 256, 256, 200}, h[] = {400, 200, 256, 256, 200};
	for (size_t i = 0; i < 5; i++) {
		bool found = false;
		for (size_t k = 0; k < s->images_count; k++)
			if (!strcmp(s->images[k].name, names[i])) {
				assert_int_equal(s->images[k].width, w[i]);
				assert_int_equal(s->images[k].height, h[i]);
				found = true;
			}
		assert_true(found);
	}
	// The sibling animation.
	assert_int_equal(s->animations_count, 1);
	const gsio_animation *a = &s->animations[0];
	assert_string_equal(a->name, "Bob");
	assert_int_equal(a->frames_count, 140);
	assert_true(a->fps == 24.0f);
	assert_int_equal(a->channels_count, 2 * 33);
	assert_non_null(a->bounds);
	print_message("  Bob.md5anim: %zu frames at %g fps\n", a->frames_count, (double)a->fps);
	// Most triangles face away from the centroid after the winding is reversed
	// (docs/FORMATS.md §9.6: 748 of 1027 point toward it in the file's winding).
	double cen[3] = {0, 0, 0};
	size_t nv = 0;
	for (size_t i = 0; i < 6; i++)
		for (size_t v = 0; v < s->meshes[i].vertex_count; v++, nv++)
			for (int k = 0; k < 3; k++) cen[k] += s->meshes[i].positions[3 * v + (size_t)k];
	for (int k = 0; k < 3; k++) cen[k] /= (double)nv;
	size_t outward = 0;
	for (size_t i = 0; i < 6; i++) {
		const gsio_mesh *m = &s->meshes[i];
		for (size_t t = 0; t < m->index_count; t += 3) {
			const float *p0 = &m->positions[3 * m->indices[t]];
			const float *p1 = &m->positions[3 * m->indices[t + 1]];
			const float *p2 = &m->positions[3 * m->indices[t + 2]];
			double e1[3], e2[3], mid[3];
			for (int k = 0; k < 3; k++) {
				e1[k] = p1[k] - p0[k];
				e2[k] = p2[k] - p0[k];
				mid[k] = (p0[k] + p1[k] + p2[k]) / 3.0 - cen[k];
			}
			double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
			               e1[0] * e2[1] - e1[1] * e2[0]};
			if (n[0] * mid[0] + n[1] * mid[1] + n[2] * mid[2] > 0) outward++;
		}
	}
	print_message("  %zu of %zu triangles face away from the centroid\n", outward, tris);
	assert_int_equal(outward, 748);
	gsio_scene_free(s);
	free(z);
	free(text);
}

// -- Round trips through the encoders

static void check_mesh_equal(const gsio_md5_mesh *a, const gsio_md5_mesh *b)
{
	assert_int_equal(a->version, b->version);
	assert_string_equal(a->commandline, b->commandline);
	assert_int_equal(a->joints_count, b->joints_count);
	for (size_t i = 0; i < a->joints_count; i++) {
		assert_string_equal(a->joints[i].name, b->joints[i].name);
		assert_int_equal(a->joints[i].parent, b->joints[i].parent);
		assert_memory_equal(a->joints[i].pos, b->joints[i].pos, sizeof(a->joints[i].pos));
		assert_memory_equal(a->joints[i].orient, b->joints[i].orient, sizeof(a->joints[i].orient));
	}
	assert_int_equal(a->meshes_count, b->meshes_count);
	for (size_t i = 0; i < a->meshes_count; i++) {
		const gsio_md5_submesh *x = &a->meshes[i], *y = &b->meshes[i];
		assert_string_equal(x->shader, y->shader);
		assert_int_equal(x->verts_count, y->verts_count);
		assert_int_equal(x->tris_count, y->tris_count);
		assert_int_equal(x->weights_count, y->weights_count);
		for (size_t v = 0; v < x->verts_count; v++) {
			assert_memory_equal(x->verts[v].st, y->verts[v].st, sizeof(x->verts[v].st));
			assert_int_equal(x->verts[v].start, y->verts[v].start);
			assert_int_equal(x->verts[v].count, y->verts[v].count);
		}
		assert_memory_equal(x->tris, y->tris, x->tris_count * sizeof(*x->tris));
		for (size_t w = 0; w < x->weights_count; w++) {
			assert_int_equal(x->weights[w].joint, y->weights[w].joint);
			assert_memory_equal(&x->weights[w].bias, &y->weights[w].bias, sizeof(float));
			assert_memory_equal(x->weights[w].pos, y->weights[w].pos, sizeof(x->weights[w].pos));
		}
	}
}

static void roundtrip_mesh(const char *rel)
{
	size_t size;
	uint8_t *data = t_read_corpus(rel, &size);
	gsio_error err;
	gsio_md5_mesh *a = gsio_md5_mesh_decode(data, size, rel, NULL, &err);
	assert_non_null(a);
	uint8_t *text;
	size_t text_size;
	assert_int_equal(gsio_md5_mesh_encode(a, &text, &text_size, &err), 0);
	gsio_md5_mesh *b = gsio_md5_mesh_decode(text, text_size, "encoded", NULL, &err);
	if (!b) print_err("re-decode", &err);
	assert_non_null(b);
	check_mesh_equal(a, b);
	// A second encode gives the very same text.
	uint8_t *text2;
	size_t text2_size;
	assert_int_equal(gsio_md5_mesh_encode(b, &text2, &text2_size, &err), 0);
	assert_int_equal(text_size, text2_size);
	assert_memory_equal(text, text2, text_size);
	print_message("  %s: %zu bytes -> %zu bytes of text, re-decoded equal\n", rel, size, text_size);
	free(text);
	free(text2);
	gsio_md5_mesh_free(a);
	gsio_md5_mesh_free(b);
	free(data);
}

static void check_anim_equal(const gsio_md5_anim *a, const gsio_md5_anim *b)
{
	assert_string_equal(a->commandline, b->commandline);
	assert_int_equal(a->frames_count, b->frames_count);
	assert_int_equal(a->joints_count, b->joints_count);
	assert_int_equal(a->components_count, b->components_count);
	assert_memory_equal(&a->frame_rate, &b->frame_rate, sizeof(float));
	for (size_t i = 0; i < a->joints_count; i++) {
		assert_string_equal(a->hierarchy[i].name, b->hierarchy[i].name);
		assert_int_equal(a->hierarchy[i].parent, b->hierarchy[i].parent);
		assert_int_equal(a->hierarchy[i].flags, b->hierarchy[i].flags);
		assert_int_equal(a->hierarchy[i].start_index, b->hierarchy[i].start_index);
	}
	assert_memory_equal(a->bounds, b->bounds, a->frames_count * sizeof(*a->bounds));
	assert_memory_equal(a->baseframe, b->baseframe, a->joints_count * sizeof(*a->baseframe));
	assert_memory_equal(a->frames, b->frames,
	                    a->frames_count * a->components_count * sizeof(float));
}

static void test_roundtrip(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	roundtrip_mesh(CUBE);
	roundtrip_mesh(BOB_MESH);
	size_t size;
	uint8_t *data = t_read_corpus(BOB_ANIM, &size);
	gsio_error err;
	gsio_md5_anim *a = gsio_md5_anim_decode(data, size, BOB_ANIM, NULL, &err);
	assert_non_null(a);
	uint8_t *text;
	size_t text_size;
	assert_int_equal(gsio_md5_anim_encode(a, &text, &text_size, &err), 0);
	gsio_md5_anim *b = gsio_md5_anim_decode(text, text_size, "encoded", NULL, &err);
	if (!b) print_err("re-decode", &err);
	assert_non_null(b);
	check_anim_equal(a, b);
	print_message("  %s: %zu bytes -> %zu bytes of text, re-decoded equal\n", BOB_ANIM, size,
	              text_size);
	free(text);
	gsio_md5_anim_free(a);
	gsio_md5_anim_free(b);
	free(data);
}

// The encoders refuse what the text cannot hold.
static void test_encode_refuses(void **state)
{
	(void)state;
	gsio_md5_joint j = {"a\"b", -1, {0, 0, 0}, {0, 0, 0}};
	gsio_md5_mesh m = {0};
	m.commandline = "";
	m.joints = &j;
	m.joints_count = 1;
	uint8_t *out;
	size_t n;
	gsio_error err;
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_md5_mesh_encode(&m, &out, &n, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	assert_null(out);
	j.name = "ok";
	j.pos[1] = NAN;
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_md5_mesh_encode(&m, &out, &n, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
	j.pos[1] = 0;
	j.parent = 0; // its own parent
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_md5_mesh_encode(&m, &out, &n, &err), 0);
	// And to_scene refuses a hand-built mesh with a bad index.
	j.parent = -1;
	gsio_md5_tri tri = {{0, 1, 5}};
	gsio_md5_submesh sm = {"", NULL, 0, &tri, 1, NULL, 0};
	m.meshes = &sm;
	m.meshes_count = 1;
	gsio_error_clear(&err);
	assert_null(gsio_md5_mesh_to_scene(&m, NULL, NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
}

// -- Poses: the scene's animation against the .md5anim text

static void test_pose(void **state)
{
	(void)state;
	size_t size;
	uint8_t *raw = t_read_corpus(BOB_ANIM, &size);
	char *text = malloc(size + 1);
	memcpy(text, raw, size);
	text[size] = 0;
	t_anim ta;
	t_parse_anim(text, &ta);
	gsio_scene *s = load_ok(t_corpus_path(BOB_MESH), NULL);
	assert_int_equal(s->animations_count, 1);
	const gsio_animation *a = &s->animations[0];
	assert_int_equal(a->frames_count, (size_t)ta.frames);
	assert_int_equal(a->channels_count, 2 * (size_t)ta.joints);
	assert_int_equal(n_joints(s), (size_t)ta.joints);
	assert_true(a->fps == (float)ta.fps);
	size_t nj = (size_t)ta.joints;
	int *tparent = malloc(nj * sizeof(int)), *sparent = malloc(nj * sizeof(int));
	double *lt = malloc(nj * 3 * sizeof(double)), *lr = malloc(nj * 4 * sizeof(double));
	double *wt = malloc(nj * 3 * sizeof(double)), *wr = malloc(nj * 9 * sizeof(double));
	double *st = malloc(nj * 3 * sizeof(double)), *sr = malloc(nj * 4 * sizeof(double));
	double *swt = malloc(nj * 3 * sizeof(double)), *swr = malloc(nj * 9 * sizeof(double));
	for (size_t j = 0; j < nj; j++) {
		tparent[j] = ta.j[j].parent;
		sparent[j] = s->nodes[j].parent;
		assert_string_equal(s->nodes[j].name, ta.j[j].name);
	}
	const int frames[] = {0, 1, 37, 70, 100, 139};
	double max_t = 0, max_r = 0;
	for (size_t fi = 0; fi < sizeof(frames) / sizeof(frames[0]); fi++) {
		int f = frames[fi];
		for (size_t j = 0; j < nj; j++) {
			double v[6];
			memcpy(v, ta.j[j].base, sizeof(v));
			int k = ta.j[j].start;
			for (int b = 0; b < 6; b++)
				if (ta.j[j].flags & (1 << b)) v[b] = ta.data[(size_t)f * (size_t)ta.comps + (size_t)k++];
			memcpy(&lt[3 * j], v, 3 * sizeof(double));
			double q[4] = {v[3], v[4], v[5], 0};
			t_quat_w(q);
			memcpy(&lr[4 * j], q, sizeof(q));
			for (int c = 0; c < 3; c++) st[3 * j + (size_t)c] = anim_t(a, j, (size_t)f)[c];
			for (int c = 0; c < 4; c++) sr[4 * j + (size_t)c] = anim_r(a, j, (size_t)f)[c];
		}
		t_compose(nj, tparent, lt, lr, wt, wr);
		t_compose(nj, sparent, st, sr, swt, swr);
		for (size_t i = 0; i < 3 * nj; i++) max_t = fmax(max_t, fabs(wt[i] - swt[i]));
		for (size_t i = 0; i < 9 * nj; i++) max_r = fmax(max_r, fabs(wr[i] - swr[i]));
	}
	print_message("  6 frames x %zu joints: max world position error %.3g, rotation matrix "
	              "error %.3g\n",
	              nj, max_t, max_r);
	assert_true(max_t < 1e-4);
	assert_true(max_r < 1e-4);

	// The bind pose: parent-relative joints composed give the file's object space.
	size_t msize;
	uint8_t *mraw = t_read_corpus(BOB_MESH, &msize);
	char *mtext = malloc(msize + 1);
	memcpy(mtext, mraw, msize);
	mtext[msize] = 0;
	const char *p = t_after(mtext, "joints {");
	double bind_err = 0, world_err = 0;
	for (size_t j = 0; j < nj; j++) {
		st[3 * j] = s->nodes[j].translation[0];
		st[3 * j + 1] = s->nodes[j].translation[1];
		st[3 * j + 2] = s->nodes[j].translation[2];
		for (int c = 0; c < 4; c++) sr[4 * j + (size_t)c] = s->nodes[j].rotation[c];
	}
	t_compose(nj, sparent, st, sr, swt, swr);
	for (size_t j = 0; j < nj; j++) {
		char name[64];
		int parent, n = 0;
		double pos[3], q[4];
		assert_int_equal(sscanf(p, " \"%63[^\"]\" %d ( %lf %lf %lf ) ( %lf %lf %lf )%n", name,
		                        &parent, &pos[0], &pos[1], &pos[2], &q[0], &q[1], &q[2], &n),
		                 8);
		p = strchr(p + n, '\n');
		for (int k = 0; k < 3; k++) {
			pos[k] = t_f(pos[k]);
			q[k] = t_f(q[k]);
		}
		t_quat_w(q);
		double m[9], bw[3];
		t_quat_matrix(q, m);
		bind_world_t(s, j, bw);
		for (int c = 0; c < 3; c++) {
			bind_err = fmax(bind_err, fabs(swt[3 * j + (size_t)c] - pos[c]));
			world_err = fmax(world_err, fabs(bw[c] - pos[c]));
		}
		for (int c = 0; c < 9; c++) bind_err = fmax(bind_err, fabs(swr[9 * j + (size_t)c] - m[c]));
	}
	print_message("  bind pose: composed local joints differ from the file by %.3g, inverse "
	              "bind matrices by %.3g\n",
	              bind_err, world_err);
	assert_true(bind_err < 1e-4);
	assert_true(world_err < 1e-5);
	free(mtext);
	free(mraw);
	free(tparent), free(sparent), free(lt), free(lr), free(wt), free(wr);
	free(st), free(sr), free(swt), free(swr);
	free(ta.j);
	free(ta.data);
	gsio_scene_free(s);
	free(text);
	free(raw);
}

// A lone .md5anim: joints from the baseframe and the animation, no mesh.
static void test_lone_anim(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_scene *s = load_ok(t_corpus_path(BOB_ANIM), NULL);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(n_joints(s), 33);
	assert_int_equal(s->nodes_count, 33);
	assert_int_equal(s->animations_count, 1);
	assert_int_equal(s->animations[0].frames_count, 140);
	assert_int_equal(s->animations[0].channels_count, 66);
	// The bind pose is the baseframe.
	size_t size;
	uint8_t *data = t_read_corpus(BOB_ANIM, &size);
	gsio_error err;
	gsio_md5_anim *a = gsio_md5_anim_decode(data, size, NULL, NULL, &err);
	assert_non_null(a);
	for (size_t j = 0; j < 33; j++)
		assert_memory_equal(s->nodes[j].translation, a->baseframe[j].pos, 3 * sizeof(float));
	gsio_md5_anim_free(a);
	free(data);
	gsio_scene_free(s);
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = load_ok(t_corpus_path(BOB_ANIM), &opts);
	assert_int_equal(s->animations_count, 0);
	assert_int_equal(n_joints(s), 33);
	gsio_scene_free(s);
}

// -- Locale

static void test_locale_independent(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	gsio_scene *a = load_ok(t_corpus_path(CUBE), &opts);
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s/locale", GSIO_BINARY_DIR);
	setenv("LOCPATH", dir, 0); // test_tokenizer may have compiled de_DE there
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		gsio_scene_free(a);
		print_message("SKIPPED: locale de_DE.UTF-8 not available (test_tokenizer builds it)\n");
		skip();
	}
	gsio_scene *b = load_ok(t_corpus_path(CUBE), &opts);
	setlocale(LC_NUMERIC, "C");
	assert_int_equal(a->meshes[0].vertex_count, b->meshes[0].vertex_count);
	assert_memory_equal(a->meshes[0].positions, b->meshes[0].positions,
	                    a->meshes[0].vertex_count * 3 * sizeof(float));
	assert_memory_equal(a->meshes[0].uvs, b->meshes[0].uvs, a->meshes[0].vertex_count * 2 * sizeof(float));
	print_message("  SimpleCube loads identically under LC_NUMERIC=de_DE.UTF-8\n");
	gsio_scene_free(a);
	gsio_scene_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_simplecube),
	    cmocka_unit_test(test_bob),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_encode_refuses),
	    cmocka_unit_test(test_pose),
	    cmocka_unit_test(test_lone_anim),
	    cmocka_unit_test(test_locale_independent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
