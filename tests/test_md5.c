/* MD5 (.md5mesh, .md5anim, .md5camera): conformance on the corpus, counts
 * read independently from the text, round trips through the encoders, poses
 * recomputed independently from the .md5anim text, every invalid file,
 * random truncations and byte edits, allocation failures, texture path
 * safety, animation selection, cameras. */
#define _POSIX_C_SOURCE 200809L // mkdtemp, setenv

#include "test_util.h"

#include "gsioi_internal.h"
#include "gsio_md5.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BOB_MESH "md5/bob/Bob.md5mesh"
#define BOB_ANIM "md5/bob/Bob.md5anim"
#define CUBE "md5/SimpleCube.md5mesh"

// -- Helpers

static char *corpus_file(const char *rel)
{
	const char *p = t_corpus_path(rel);
	char *copy = malloc(strlen(p) + 1);
	strcpy(copy, p);
	return copy;
}

static void print_err(const char *what, const gsio_error *err)
{
	char buf[600];
	gsio_error_format(err, buf, sizeof(buf));
	print_message("  %s: %s\n", what, buf);
}

// Every scene a test looks at must pass the validator first.
static void assert_valid(const gsio_scene *s)
{
	gsio_error err;
	gsio_error_clear(&err);
	if (gsio_scene_validate(s, &err)) {
		print_err("invalid scene", &err);
		fail_msg("gsio_scene_validate refused the scene");
	}
}

static gsio_scene *load_ok(const char *path, const gsio_opts *opts)
{
	gsio_error err;
	gsio_scene *s = gsio_load_file(path, opts, &err);
	if (!s) {
		print_err("load failed", &err);
		fail_msg("cannot load %s", path);
	}
	assert_valid(s);
	return s;
}

// -- Scene v2 accessors: an MD5 scene's joints are its first nodes (node j
// is joint j), skin 0 lists them in order, and an animation has a
// translation (2j) and a rotation (2j+1) channel per joint.

static size_t n_joints(const gsio_scene *s)
{
	size_t n = 0;
	while (n < s->nodes_count && s->nodes[n].mesh < 0 && s->nodes[n].camera < 0) n++;
	if (s->skins_count) assert_int_equal(s->skins[0].joints_count, n);
	return n;
}

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

static const float *anim_t(const gsio_animation *a, size_t j, size_t f)
{
	assert_true(a->channels[2 * j].path == GSIO_PATH_TRANSLATION);
	assert_int_equal(a->channels[2 * j].node, (int32_t)j);
	return &a->channels[2 * j].values[3 * f];
}

static const float *anim_r(const gsio_animation *a, size_t j, size_t f)
{
	assert_true(a->channels[2 * j + 1].path == GSIO_PATH_ROTATION);
	assert_int_equal(a->channels[2 * j + 1].node, (int32_t)j);
	return &a->channels[2 * j + 1].values[4 * f];
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

// A temporary folder with files written by the tests; removed at the end.
typedef struct tmpdir {
	char path[256];
	char files[16][512];
	size_t count;
} tmpdir;

static void tmp_make(tmpdir *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "/tmp/gsio_md5_XXXXXX");
	assert_non_null(mkdtemp(d->path));
}

static const char *tmp_write(tmpdir *d, const char *rel, const void *data, size_t size)
{
	assert_true(d->count < 16);
	char *p = d->files[d->count++];
	char dir[256];
	memcpy(dir, d->path, sizeof(dir));
	snprintf(p, 512, "%s/%s", dir, rel);
	// Intermediate folders, one level at a time.
	for (char *s = p + strlen(d->path) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0700);
		*s = '/';
	}
	t_write_file(p, data, size);
	return p;
}

static const char *tmp_text(tmpdir *d, const char *rel, const char *text)
{
	return tmp_write(d, rel, text, strlen(text));
}

static void tmp_remove(tmpdir *d)
{
	for (size_t i = d->count; i-- > 0;) {
		remove(d->files[i]);
		// Remove the folders the file was in, deepest first (rmdir fails if not empty).
		char *p = d->files[i];
		for (char *s = p + strlen(p); s > p + strlen(d->path); s--)
			if (*s == '/') {
				*s = 0;
				rmdir(p);
			}
	}
	rmdir(d->path);
}

// A 2 x 2 uncompressed 32-bit TGA (stb_image reads it).
static size_t make_tga(uint8_t out[34], uint8_t r, uint8_t g, uint8_t b)
{
	memset(out, 0, 18);
	out[2] = 2;              // uncompressed true colour
	out[12] = 2, out[14] = 2; // 2 x 2
	out[16] = 32;            // bits per pixel
	out[17] = 8 | 0x20;      // 8 alpha bits, top-left origin
	for (int i = 0; i < 4; i++) {
		out[18 + 4 * i] = b;
		out[19 + 4 * i] = g;
		out[20 + 4 * i] = r;
		out[21 + 4 * i] = 255;
	}
	return 34;
}

static bool has_warning(const gsio_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings_count; i++)
		if (strstr(s->warnings[i], needle)) return true;
	return false;
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

// -- Invalid files

typedef struct invalid_case {
	const char *file;
	gsio_error_code code;
	int line;
	const char *needle;
} invalid_case;

static void test_invalid_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const invalid_case cases[] = {
	    {"InvalidBoneIndex.md5mesh", GSIO_ERR_CORRUPT, 23, "joint index 999"},
	    {"InvalidCameraCut.md5camera", GSIO_ERR_CORRUPT, 9, "camera cut 8"},
	    {"OverflowingTriangleIndex.md5mesh", GSIO_ERR_CORRUPT, 18, "tri 4294967295"},
	    {"OverflowingVertexIndex.md5mesh", GSIO_ERR_CORRUPT, 15, "vert 4294967295"},
	    {"OverflowingWeightIndex.md5mesh", GSIO_ERR_CORRUPT, 21, "weight 4294967295"},
	    {"empty.md5mesh", GSIO_ERR_TRUNCATED, 1, "MD5Version"},
	};
	const char *exts[] = {".md5mesh", ".md5anim", ".md5camera"};
	size_t seen = 0;
	for (size_t e = 0; e < 3; e++) {
		char **files;
		size_t n = t_list_files(t_corpus_path("invalid"), exts[e], &files);
		for (size_t i = 0; i < n; i++) {
			gsio_error err;
			gsio_scene *s = gsio_load_file(files[i], NULL, &err);
			print_err(gsioi_path_base(files[i]), &err);
			assert_null(s);
			assert_int_not_equal(err.code, GSIO_OK);
			assert_true(err.line > 0);
			assert_true(err.message[0] != 0);
			assert_string_equal(err.file, files[i]);
			for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
				if (!strcmp(cases[c].file, gsioi_path_base(files[i]))) {
					assert_int_equal(err.code, cases[c].code);
					assert_int_equal(err.line, cases[c].line);
					assert_non_null(strstr(err.message, cases[c].needle));
				}
			seen++;
		}
		t_free_list(files, n);
	}
	assert_int_equal(seen, 6);
}

static void expect_text_error(const char *name, const char *text, gsio_error_code code,
                              int line, const char *needle)
{
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)text, strlen(text), name, NULL, &err);
	print_err(name, &err);
	assert_null(s);
	assert_int_equal(err.code, code);
	assert_int_equal(err.line, line);
	if (!strstr(err.message, needle)) fail_msg("'%s' not in '%s'", needle, err.message);
}

#define HDR "MD5Version 10\ncommandline \"\"\n"
#define ONE_JOINT "numJoints 1\nnumMeshes 1\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"

static void test_invalid_text(void **state)
{
	(void)state;
	expect_text_error("v6.md5mesh", "MD5Version 6\ncommandline \"\"\n", GSIO_ERR_UNSUPPORTED, 1,
	                  "MD5Version 6");
	expect_text_error("twice.md5mesh",
	                  HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 2\nvert 0 ( 0 0 ) 0 1\n"
	                                "vert 0 ( 0 0 ) 0 1\n",
	                  GSIO_ERR_CORRUPT, 12, "vert 0 is defined twice");
	expect_text_error("range.md5mesh",
	                  HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 1\nvert 0 ( 0 0 ) 0 2\n"
	                                "numtris 0\nnumweights 1\nweight 0 0 1 ( 0 0 0 )\n}\n",
	                  GSIO_ERR_CORRUPT, 11, "vert 0 uses weights 0..1");
	expect_text_error("parent.md5mesh",
	                  HDR "numJoints 2\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
	                      "\"b\" 1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_CORRUPT, 7, "joint 1's parent 1 is outside -1..0");
	expect_text_error("huge.md5mesh", HDR ONE_JOINT "mesh {\nshader \"\"\nnumverts 2000000000\n",
	                  GSIO_ERR_TRUNCATED, 10, "cannot fit");
	expect_text_error("count.md5mesh", HDR "numJoints 2\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 7, "found '}'");
	expect_text_error("trail.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\nmesh\n",
	                  GSIO_ERR_SYNTAX, 8, "expected the end of the file");
	expect_text_error("nan.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a\" -1 ( 0 1.#QNAN 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 6, "'1.#QNAN'");
	expect_text_error("quote.md5mesh", HDR "numJoints 1\nnumMeshes 0\njoints {\n\"a -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                  GSIO_ERR_SYNTAX, 6, "unterminated string");
	const char *anim_hdr = HDR "numFrames 2\nnumJoints 1\nframeRate 24\nnumAnimatedComponents 3\n";
	char buf[1024];
	snprintf(buf, sizeof(buf), "%shierarchy {\n\"a\" -1 63 0\n}\n", anim_hdr);
	expect_text_error("flags.md5anim", buf, GSIO_ERR_CORRUPT, 8, "components 0..5");
	snprintf(buf, sizeof(buf),
	         "%shierarchy {\n\"a\" -1 7 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
	         "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n1 2 3\n}\nframe 2 {\n1 2 3\n}\n",
	         anim_hdr);
	expect_text_error("order.md5anim", buf, GSIO_ERR_CORRUPT, 20, "frame number 2 where frame 1 was expected");
	snprintf(buf, sizeof(buf),
	         "%shierarchy {\n\"a\" -1 7 0\n}\nbounds {\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}\n"
	         "baseframe {\n( 0 0 0 ) ( 0 0 0 )\n}\nframe 0 {\n1 2 3\n}\nframe 1 {\n1 2\n}\n",
	         anim_hdr);
	expect_text_error("short.md5anim", buf, GSIO_ERR_SYNTAX, 22, "a frame component");
	expect_text_error("rate.md5camera", HDR "numFrames 1\nframeRate 0\nnumCuts 0\n",
	                  GSIO_ERR_CORRUPT, 4, "frameRate");
	expect_text_error("cut0.md5camera",
	                  HDR "numFrames 3\nframeRate 24\nnumCuts 1\ncuts {\n0\n}\n",
	                  GSIO_ERR_CORRUPT, 7, "camera cut 0");
}

// -- Robustness: truncations, byte edits, allocation failures

static void check_failure(const gsio_error *err)
{
	assert_int_not_equal(err->code, GSIO_OK);
	assert_true(err->message[0] != 0);
	// A text error always has a position (memory limits have none).
	if (err->code == GSIO_ERR_SYNTAX || err->code == GSIO_ERR_TRUNCATED) assert_true(err->line > 0);
}

static size_t mutate_run(const uint8_t *data, size_t size, bool anim, size_t runs, bool truncate)
{
	uint8_t *buf = malloc(size + 1);
	size_t ok = 0;
	srand(truncate ? 1234 : 5678);
	const char interesting[] = "0123456789-.e(){}\"/*\n \x01";
	for (size_t r = 0; r < runs; r++) {
		memcpy(buf, data, size);
		size_t n = size;
		if (truncate) {
			n = (size_t)rand() % size;
		} else {
			int edits = 1 + rand() % 4;
			for (int e = 0; e < edits; e++) {
				size_t at = (size_t)rand() % size;
				buf[at] = rand() % 2 ? (uint8_t)rand()
				                      : (uint8_t)interesting[(size_t)rand() % (sizeof(interesting) - 1)];
			}
		}
		gsio_error err;
		if (anim) {
			gsio_md5_anim *a = gsio_md5_anim_decode(buf, n, "fuzz.md5anim", NULL, &err);
			if (a) {
				gsio_scene *s = gsio_md5_anim_to_scene(a, NULL, NULL, &err);
				assert_non_null(s);
				assert_valid(s);
				gsio_scene_free(s);
				ok++;
			} else {
				check_failure(&err);
			}
			gsio_md5_anim_free(a);
		} else {
			gsio_md5_mesh *m = gsio_md5_mesh_decode(buf, n, "fuzz.md5mesh", NULL, &err);
			if (m) {
				gsio_scene *s = gsio_md5_mesh_to_scene(m, NULL, NULL, &err);
				if (!s) check_failure(&err); // e.g. weights beyond float range
				else assert_valid(s);
				gsio_scene_free(s);
				ok++;
			} else {
				check_failure(&err);
			}
			gsio_md5_mesh_free(m);
		}
	}
	free(buf);
	return ok;
}

static void test_mutations(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	const char *files[] = {BOB_MESH, BOB_ANIM};
	for (int f = 0; f < 2; f++) {
		size_t size;
		uint8_t *data = t_read_corpus(files[f], &size);
		double t0 = now_ms();
		size_t ok_t = mutate_run(data, size, f == 1, 500, true);
		size_t ok_e = mutate_run(data, size, f == 1, 500, false);
		print_message("  %s: 500 truncations (%zu still load), 500 edited copies (%zu still "
		              "load), %.0f ms\n",
		              files[f], ok_t, ok_e, now_ms() - t0);
		free(data);
	}
	// A few edited meshes through the whole importer (textures, sibling anim).
	size_t size;
	uint8_t *data = t_read_corpus(BOB_MESH, &size);
	char *path = corpus_file(BOB_MESH);
	srand(99);
	for (int r = 0; r < 20; r++) {
		uint8_t *buf = malloc(size);
		memcpy(buf, data, size);
		buf[(size_t)rand() % size] = (uint8_t)rand();
		gsio_error err;
		gsio_scene *s = gsio_load_memory(buf, size, path, NULL, &err);
		if (!s) check_failure(&err);
		else assert_valid(s);
		gsio_scene_free(s);
		free(buf);
	}
	free(path);
	free(data);
}

static void alloc_loop(const char *rel, const char *path)
{
	size_t size;
	uint8_t *data = t_read_corpus(rel, &size);
	t_load_input in = {data, size, path, NULL, NULL};
	size_t failures = t_each_alloc_fails(rel, t_try_load, &in, T_NOMEM, 1).failures;
	print_message("  %s: a load fails cleanly at each of its first %zu allocations\n", rel,
	              failures);
	assert_true(failures > 2);
	free(data);
}

static void test_alloc_failures(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char *cube = corpus_file(CUBE);
	alloc_loop(CUBE, cube);
	free(cube);
	char *bob = corpus_file(BOB_MESH);
	alloc_loop(BOB_MESH, bob); // textures and the sibling animation too
	free(bob);
}

// The memory limit applies to the decoded frames too.
static void test_memory_limit(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = t_read_corpus(BOB_ANIM, &size);
	gsio_opts opts = {0};
	opts.memory_limit = 64 * 1024;
	gsio_error err;
	assert_null(gsio_md5_anim_decode(data, size, "Bob.md5anim", &opts, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	free(data);
}

// -- Textures: resolution and path safety

static void test_textures(void **state)
{
	(void)state;
	tmpdir d;
	tmp_make(&d);
	uint8_t tga[34];
	size_t n = make_tga(tga, 200, 10, 10);
	tmp_write(&d, "secret.tga", tga, n); // outside the model's folder
	tmp_write(&d, "a/b/skin.tga", tga, n);
	tmp_write(&d, "a/b/tex/sub.tga", tga, n);
	const char *fmt = HDR "numJoints 1\nnumMeshes 6\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n";
	char text[4096];
	snprintf(text, sizeof(text), "%s", fmt);
	const char *shaders[] = {"../../secret.tga",      // escapes: refused
	                         "tex/../skin.tga",       // stays inside: fine
	                         "skin",                  // no extension: .tga added
	                         "/abs/elsewhere/skin.tga", // absolute: refused, base name beside
	                         "nothere.png",           // missing: warning
	                         "models/x/tex/sub"};     // not found: only sub.tga beside would be
	for (int i = 0; i < 6; i++) {
		char mesh[256];
		snprintf(mesh, sizeof(mesh),
		         "mesh {\nshader \"%s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
		         "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
		         "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n",
		         shaders[i]);
		strncat(text, mesh, sizeof(text) - strlen(text) - 1);
	}
	const char *path = tmp_text(&d, "a/b/m.md5mesh", text);
	gsio_scene *s = load_ok(path, NULL);
	for (size_t i = 0; i < s->warnings_count; i++) print_message("  warning: %s\n", s->warnings[i]);
	assert_int_equal(s->materials_count, 6);
	assert_int_equal(s->materials[0].base_color_texture.image, -1); // the secret stays secret
	assert_true(has_warning(s, "\"../../secret.tga\" is an absolute path or leaves"));
	assert_true(s->materials[1].base_color_texture.image >= 0);
	assert_true(s->materials[2].base_color_texture.image >= 0);
	assert_int_equal(s->materials[1].base_color_texture.image, s->materials[2].base_color_texture.image);
	assert_true(s->materials[3].base_color_texture.image >= 0); // skin.tga beside, by base name
	assert_true(has_warning(s, "\"/abs/elsewhere/skin.tga\" is an absolute path"));
	assert_int_equal(s->materials[4].base_color_texture.image, -1);
	assert_true(has_warning(s, "shader \"nothere.png\": no texture found"));
	assert_int_equal(s->materials[5].base_color_texture.image, -1);
	for (size_t i = 0; i < s->images_count; i++) {
		assert_null(strstr(s->images[i].source_path, "secret"));
		assert_int_equal(s->images[i].width, 2);
		assert_int_equal(s->images[i].rgba[0], 200);
	}
	assert_int_equal(s->images_count, 1);
	assert_string_equal(s->materials[0].shader, "../../secret.tga");
	gsio_scene_free(s);
	tmp_remove(&d);
}

/* 2 000 meshes, nearly all with the shader "s": material names unique as
 * they always were (s, s.2, ..., the first free suffix; "s.3" given to the
 * mesh whose shader it is, an empty shader named by its mesh), under a 16 MB
 * limit: the texture look-up took 12 KB of the load's arena a mesh (24 MB
 * here). The old naming scanned every material per suffix tried: minutes
 * for 8 000 such meshes (the benchmark-free part of this test is the names). */
static void test_many_meshes_one_shader(void **state)
{
	(void)state;
	enum { N = 2000 };
	size_t cap = 256 + (size_t)N * 240;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = (size_t)snprintf(text, cap,
	                            HDR "numJoints 1\nnumMeshes %d\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n",
	                            N);
	for (int i = 0; i < N; i++)
		n += (size_t)snprintf(text + n, cap - n,
		                      "mesh {\nshader \"%s\"\nnumverts 3\nvert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\n"
		                      "vert 2 ( 0 1 ) 2 1\nnumtris 1\ntri 0 0 2 1\nnumweights 3\n"
		                      "weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 1 0 0 )\nweight 2 0 1 ( 0 1 0 )\n}\n",
		                      i == 2 ? "s.3" : i == 5 ? "" : "s");
	assert_true(n < cap);
	gsio_opts opts = {0};
	opts.memory_limit = (size_t)16 << 20;
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode((const uint8_t *)text, n, "many.md5mesh", &opts, &err);
	if (!m) fail_msg("%s", err.message);
	gsio_scene *s = gsio_md5_mesh_to_scene(m, "/tmp/nonexistent-gsio-dir/many.md5mesh", &opts, &err);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->materials_count, N);
	for (int i = 0; i < N; i++) {
		char want[32];
		t_suffixed_name((size_t)i, "material5", want, sizeof(want));
		assert_string_equal(s->materials[i].name, want);
		assert_int_equal(s->materials[i].base_color_texture.image, -1);
	}
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	gsio_scene_free(s);
	gsio_md5_mesh_free(m);
	free(text);
}

/* A negative bias (a mutated file; real ones are in 0..1): the bind pose
 * takes it as stored, the skin gets 0 there (glTF weights are >= 0) and a
 * warning says so; the scene is valid. It was copied into the skin, and the
 * validator refused the scene (fuzz_md5). */
static void test_negative_bias(void **state)
{
	(void)state;
	const char *text = HDR "numJoints 1\nnumMeshes 1\njoints {\n\"j\" -1 ( 0 0 0 ) ( 0 0 0 )\n}\n"
	                       "mesh {\nshader \"\"\nnumverts 3\nvert 0 ( 0 0 ) 0 2\nvert 1 ( 1 0 ) 2 1\n"
	                       "vert 2 ( 0 1 ) 3 1\nnumtris 1\ntri 0 0 2 1\nnumweights 4\n"
	                       "weight 0 0 1.5 ( 1 0 0 )\nweight 1 0 -0.5 ( 0 2 0 )\n"
	                       "weight 2 0 1 ( 1 0 0 )\nweight 3 0 1 ( 0 1 0 )\n}\n";
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode((const uint8_t *)text, strlen(text), "neg", NULL, &err);
	if (!m) fail_msg("%s", err.message);
	gsio_scene *s = gsio_md5_mesh_to_scene(m, NULL, NULL, &err);
	if (!s) fail_msg("%s", err.message);
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	const gsio_mesh *me = &s->meshes[0];
	assert_int_equal(me->weights.count, 4);
	assert_true(me->weights.values[0] == 1.5f && me->weights.values[1] == 0.0f);
	assert_true(has_warning(s, "1 weights with a negative bias"));
	// Vertex 0: 1.5 x (1, 0, 0) - 0.5 x (0, 2, 0), in whatever axes vertex 1's
	// (1, 0, 0) lands on.
	float dot = 0, len2 = 0;
	for (int k = 0; k < 3; k++) {
		dot += me->positions[k] * me->positions[3 + k];
		len2 += me->positions[3 + k] * me->positions[3 + k];
	}
	assert_true(fabsf(dot / len2 - 1.5f) < 1e-6f);
	gsio_scene_free(s);
	gsio_md5_mesh_free(m);
}

// -- Animations: siblings, explicit paths, mismatches, custom io

static const char *two_joint_anim(const char *second_name, int frames)
{
	static char buf[2048];
	int n = snprintf(buf, sizeof(buf),
	                 HDR "numFrames %d\nnumJoints 2\nframeRate 30\nnumAnimatedComponents 1\n"
	                     "hierarchy {\n\"root\" -1 0 0\n\"%s\" 0 4 0\n}\nbounds {\n",
	                 frames, second_name);
	for (int f = 0; f < frames; f++) n += snprintf(buf + n, sizeof(buf) - (size_t)n, "( 0 0 0 ) ( 1 1 1 )\n");
	n += snprintf(buf + n, sizeof(buf) - (size_t)n,
	              "}\nbaseframe {\n( 0 0 0 ) ( 0 0 0 )\n( 0 0 1 ) ( 0 0 0.5 )\n}\n");
	for (int f = 0; f < frames; f++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "frame %d {\n%d\n}\n", f, f + 2);
	return buf;
}

static const char *skel_mesh =
    HDR "numJoints 2\nnumMeshes 0\njoints {\n\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
        "\"tip\" 0 ( 0 0 1 ) ( 0 0 0.5 )\n}\n";

typedef struct io_log {
	char paths[8][512];
	size_t count;
	char listed[512]; // the folder list_dir was asked for
} io_log;

// Lists only "m.md5anim" and "notes.txt", whatever the folder holds.
static int listing_dir(void *user, const char *dir, char ***names, gsio_error *err)
{
	(void)err;
	io_log *log = user;
	snprintf(log->listed, sizeof(log->listed), "%s", dir);
	char **n = calloc(3, sizeof(*n));
	n[0] = strdup("notes.txt");
	n[1] = strdup("m.md5anim");
	*names = n;
	return 0;
}

static void listing_free(void *user, char **names)
{
	(void)user;
	for (size_t i = 0; names[i]; i++) free(names[i]);
	free(names);
}

static int logging_read(void *user, const char *path, uint8_t **data, size_t *size,
                        gsio_error *err)
{
	io_log *log = user;
	if (log->count < 8) snprintf(log->paths[log->count++], 512, "%s", path);
	return gsio_read_whole_file(path, data, size, 0, err);
}

static void test_anim_selection(void **state)
{
	(void)state;
	tmpdir d;
	tmp_make(&d);
	const char *mesh = tmp_text(&d, "m.md5mesh", skel_mesh);
	char *walk = strdup(tmp_text(&d, "walk.md5anim", two_joint_anim("tip", 3)));
	tmp_text(&d, "idle.md5anim", two_joint_anim("tip", 2));
	char *other = strdup(tmp_text(&d, "other.md5anim", two_joint_anim("finger", 2)));
	tmp_text(&d, "m.md5anim", two_joint_anim("tip", 4));

	// Siblings: the matching ones, sorted by name; the other one a warning.
	gsio_scene *s = load_ok(mesh, NULL);
	assert_int_equal(n_joints(s), 2);
	assert_int_equal(s->animations_count, 3);
	assert_string_equal(s->animations[0].name, "idle");
	assert_string_equal(s->animations[1].name, "m");
	assert_string_equal(s->animations[2].name, "walk");
	assert_int_equal(s->animations[2].frames_count, 3);
	assert_true(s->animations[2].fps == 30.0f);
	assert_true(has_warning(s, "other.md5anim"));
	assert_true(has_warning(s, "\"tip\" in the mesh but \"finger\""));
	// Tz of joint 1 is animated (flags 4): frame f has z = f + 2; w recomputed.
	const gsio_animation *a = &s->animations[2];
	assert_int_equal(a->channels_count, 4);
	for (size_t f = 0; f < 3; f++) {
		assert_true(anim_t(a, 1, f)[2] == (float)(f + 2));
		const float *q = anim_r(a, 1, f);
		assert_true(q[2] == 0.5f);
		assert_true(fabsf(q[3] + sqrtf(0.75f)) < 1e-6f);
	}
	// The bind pose: joint 1's local translation is (0,0,1) relative to the root.
	assert_true(fabsf(s->nodes[1].translation[2] - 1.0f) < 1e-6f);
	gsio_scene_free(s);

	// Explicit paths pick the animations; a mismatch there is an error.
	gsio_opts opts = {0};
	const char *pick[] = {walk};
	opts.anim_paths = pick;
	opts.anim_paths_count = 1;
	s = load_ok(mesh, &opts);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "walk");
	gsio_scene_free(s);
	const char *bad[] = {walk, other};
	opts.anim_paths = bad;
	opts.anim_paths_count = 2;
	gsio_error err;
	assert_null(gsio_load_file(mesh, &opts, &err));
	print_err("anim_paths mismatch", &err);
	assert_int_equal(err.code, GSIO_ERR_MISMATCH);
	assert_non_null(strstr(err.message, "finger"));
	assert_string_equal(err.file, other);

	// No animation at all when asked.
	opts.anim_paths_count = 0;
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = load_ok(mesh, &opts);
	assert_int_equal(s->animations_count, 0);
	gsio_scene_free(s);

	// A custom io that cannot list folders: no sibling animation is looked for.
	io_log log = {0};
	gsio_io io = {logging_read, t_io_free, NULL, NULL, &log};
	gsio_opts iopts = {0};
	iopts.io = &io;
	s = load_ok(mesh, &iopts);
	assert_int_equal(s->animations_count, 0);
	assert_int_equal(log.count, 1); // the mesh itself: gsio_load_file reads through the io too
	assert_string_equal(log.paths[0], mesh);
	gsio_scene_free(s);
	log.count = 0;
	// One that lists: its list is used, and every file is read through it.
	io.list_dir = listing_dir;
	io.free_list = listing_free;
	s = load_ok(mesh, &iopts);
	assert_int_equal(s->animations_count, 1);
	assert_string_equal(s->animations[0].name, "m");
	assert_int_equal(s->animations[0].frames_count, 4);
	assert_int_equal(log.count, 2);
	assert_non_null(strstr(log.paths[1], "m.md5anim"));
	assert_string_equal(log.listed, d.path);
	gsio_scene_free(s);
	free(walk);
	free(other);
	tmp_remove(&d);
}

// -- Cameras

static const char *camera_text =
    "MD5Version 10\ncommandline \"camera test\"\n\nnumFrames 3\nframeRate 30\nnumCuts 1\n\n"
    "cuts {\n\t2\n}\n\ncamera {\n"
    "\t( 0 0 64 ) ( 0 0 0 ) 90\n"
    "\t( 10 -5 64.5 ) ( 0 0 0.2588190451 ) 75.5\n"
    "\t( 20 -10 65 ) ( 0.1 0.2 0.3 ) 60\n}\n";

static void test_camera(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)camera_text, strlen(camera_text),
	                                 "dir/intro.md5camera", NULL, &err);
	if (!s) print_err("camera", &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(s->cameras_count, 1);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(s->nodes_count, 1);
	const gsio_node *node = &s->nodes[0];
	assert_int_equal(node->camera, 0);
	assert_string_equal(node->name, "intro");
	assert_true(node->translation[2] == 64.0f); // frame 0
	const gsio_camera *c = &s->cameras[0];
	assert_string_equal(c->name, "intro");
	assert_true(c->fov == 90.0f); // frame 0
	assert_int_equal(s->animations_count, 1);
	const gsio_animation *an = &s->animations[0];
	assert_string_equal(an->name, "intro");
	assert_true(an->fps == 30.0f);
	assert_int_equal(an->frames_count, 3);
	assert_int_equal(an->cuts_count, 1);
	assert_int_equal(an->cuts[0], 2);
	assert_null(an->bounds);
	assert_int_equal(an->channels_count, 3);
	const gsio_channel_path paths[3] = {GSIO_PATH_TRANSLATION, GSIO_PATH_ROTATION, GSIO_PATH_FOV};
	for (int k = 0; k < 3; k++) {
		assert_int_equal(an->channels[k].node, 0);
		assert_int_equal(an->channels[k].path, paths[k]);
	}
	const float *pos = an->channels[0].values, *rot = an->channels[1].values,
	            *fov = an->channels[2].values;
	assert_true(pos[3] == 10.0f && pos[5] == 64.5f);
	assert_true(fov[1] == 75.5f);
	assert_memory_equal(rot, node->rotation, 4 * sizeof(float));
	for (size_t f = 0; f < 3; f++) {
		const float *q = &rot[4 * f];
		double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
		                  (double)q[3] * q[3]);
		assert_true(fabs(len - 1.0) < 1e-6);
		assert_true(q[3] <= 0.0f); // id's sign
	}
	assert_true(fabsf(rot[4 + 3] + 0.9659258f) < 1e-6f); // cos(15 deg)
	gsio_scene_free(s);

	// Round trip.
	gsio_md5_camera *a = gsio_md5_camera_decode((const uint8_t *)camera_text, strlen(camera_text),
	                                            NULL, NULL, &err);
	assert_non_null(a);
	uint8_t *out;
	size_t n;
	assert_int_equal(gsio_md5_camera_encode(a, &out, &n, &err), 0);
	gsio_md5_camera *b = gsio_md5_camera_decode(out, n, NULL, NULL, &err);
	assert_non_null(b);
	assert_string_equal(b->commandline, "camera test");
	assert_int_equal(b->frames_count, 3);
	assert_int_equal(b->cuts_count, 1);
	assert_int_equal(b->cuts[0], 2);
	assert_memory_equal(a->frames, b->frames, 3 * sizeof(*a->frames));
	assert_memory_equal(&a->frame_rate, &b->frame_rate, sizeof(float));
	free(out);
	gsio_md5_camera_free(a);
	gsio_md5_camera_free(b);

	// Only the first frame with GSIO_OPT_NO_ANIMATION.
	gsio_opts opts = {0};
	opts.flags = GSIO_OPT_NO_ANIMATION;
	s = gsio_load_memory((const uint8_t *)camera_text, strlen(camera_text), "x.md5camera", &opts,
	                     &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(s->cameras_count, 1);
	assert_int_equal(s->nodes[0].camera, 0);
	assert_true(s->cameras[0].fov == 90.0f);
	assert_int_equal(s->animations_count, 0);
	gsio_scene_free(s);

	// A field of view outside 0..180 degrees decodes (the codec keeps what is
	// stored) but makes no scene (fuzz: 810 in frame 1).
	char bad[1024];
	snprintf(bad, sizeof(bad), "%s", camera_text);
	char *f = strstr(bad, "75.5");
	assert_non_null(f);
	memcpy(f, "810 ", 4);
	gsio_error_clear(&err);
	assert_null(gsio_load_memory((const uint8_t *)bad, strlen(bad), "bad.md5camera", NULL, &err));
	print_err("fov 810", &err);
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_non_null(strstr(err.message, "field of view"));
}

// -- Detection and locale

static void test_detect(void **state)
{
	(void)state;
	const gsio_importer *imp = gsio_find_importer((const uint8_t *)"// c\n  MD5Version 10", 20, NULL);
	assert_non_null(imp);
	assert_string_equal(imp->name, "id Software MD5");
	assert_int_equal(gsio_md5_detect((const uint8_t *)camera_text, strlen(camera_text)),
	                 GSIO_MD5_CAMERA);
	assert_int_equal(gsio_md5_detect((const uint8_t *)skel_mesh, strlen(skel_mesh)), GSIO_MD5_MESH);
	const char *anim = two_joint_anim("tip", 1);
	assert_int_equal(gsio_md5_detect((const uint8_t *)anim, strlen(anim)), GSIO_MD5_ANIM);
	// A UTF-8 byte order mark is skipped.
	char bom[512];
	snprintf(bom, sizeof(bom), "\xEF\xBB\xBF%s", skel_mesh);
	gsio_error err;
	gsio_scene *s = gsio_load_memory((const uint8_t *)bom, strlen(bom), NULL, NULL, &err);
	assert_non_null(s);
	assert_valid(s);
	assert_int_equal(n_joints(s), 2);
	gsio_scene_free(s);
}

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

static size_t warnings_with(const gsio_scene *s, const char *needle)
{
	size_t n = 0;
	for (size_t i = 0; i < s->warnings_count; i++) n += strstr(s->warnings[i], needle) != NULL;
	return n;
}

/* Meshes without vertices, triangles or weights (an exporter writes them
 * for empty groups; tests/data/empty_meshes.md5mesh has two before a
 * triangle) are left out with a warning each: the scene keeps the triangle
 * (named after its place in the file, with its own material) and is valid,
 * and the codec keeps all three. A file of empty meshes only gives a
 * scene of its joints. */
static void test_empty_meshes(void **state)
{
	(void)state;
	const char *path = GSIO_SOURCE_DIR "/tests/data/empty_meshes.md5mesh";
	gsio_scene *s = t_load_ok(path, NULL);
	assert_int_equal(s->meshes_count, 1);
	assert_string_equal(s->meshes[0].name, "mesh2");
	assert_int_equal(s->meshes[0].vertex_count, 3);
	assert_int_equal(s->materials_count, 1);
	assert_string_equal(s->materials[0].name, "triangle");
	assert_int_equal(s->meshes[0].parts[0].material, 0);
	assert_int_equal(warnings_with(s, "has no vertices: left out"), 2);
	assert_int_equal(warnings_with(s, "mesh 1 (shader \"empty_b\")"), 1);
	gsio_scene_free(s);

	size_t n;
	uint8_t *text = t_read_file(path, &n);
	gsio_error err;
	gsio_md5_mesh *m = gsio_md5_mesh_decode(text, n, path, NULL, &err);
	assert_non_null(m);
	assert_int_equal(m->meshes_count, 3);
	gsio_md5_mesh_free(m);
	// Only the empty meshes: cut before the third.
	const char *third = strstr((const char *)text, "mesh {\n\t// meshes: triangle");
	assert_non_null(third);
	char *two = malloc(n);
	assert_non_null(two);
	size_t cut = (size_t)(third - (const char *)text);
	memcpy(two, text, cut);
	char *count = strstr(two, "numMeshes 3");
	assert_true(count && count < two + cut);
	count[10] = '2';
	s = gsio_load_memory((const uint8_t *)two, cut, "two.md5mesh", NULL, &err);
	if (!s) fail_msg("%s", err.message);
	assert_int_equal(s->meshes_count, 0);
	assert_int_equal(s->skins_count, 1);
	assert_int_equal(s->skins[0].joints_count, 2);
	assert_int_equal(gsio_scene_validate(s, &err), 0);
	gsio_scene_free(s);
	free(two);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_empty_meshes),
	    cmocka_unit_test(test_simplecube),     cmocka_unit_test(test_bob),
	    cmocka_unit_test(test_roundtrip),      cmocka_unit_test(test_encode_refuses),
	    cmocka_unit_test(test_pose),           cmocka_unit_test(test_lone_anim),
	    cmocka_unit_test(test_invalid_corpus), cmocka_unit_test(test_invalid_text),
	    cmocka_unit_test(test_mutations),      cmocka_unit_test(test_alloc_failures),
	    cmocka_unit_test(test_memory_limit),   cmocka_unit_test(test_textures),
	    cmocka_unit_test(test_anim_selection), cmocka_unit_test(test_camera),
	    cmocka_unit_test(test_detect),         cmocka_unit_test(test_locale_independent),
	    cmocka_unit_test(test_many_meshes_one_shader), cmocka_unit_test(test_negative_bias),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
