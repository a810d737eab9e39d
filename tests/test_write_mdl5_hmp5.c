/* The MDL5 and HMP5 writers (exporters/): round trips of every corpus
 * MDL3/4/5 and of shadow-5.hmp, heightmap PNGs (8- and 16-bit grey) to
 * HMP5, the reference reader (stock Assimp) on everything written, bad
 * scenes refused with no file left, and an allocation failure at every
 * index of one write. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include "gsio_hmp.h"
#include "gsioi_internal.h"
#include "gsio_mdl.h"
#include "gsio_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#endif

// -- Helpers

static int is_mdl345(const uint8_t *d, size_t n)
{
	return n >= 4 && (!memcmp(d, "MDL3", 4) || !memcmp(d, "MDL4", 4) || !memcmp(d, "MDL5", 4));
}

static void count_warning(void *user, const char *msg)
{
	(void)msg;
	++*(int *)user;
}

#ifdef GSIO_HAVE_ASSIMP
/* Stock Assimp reads the bytes gsio wrote (`ext`: the format hint) as one
 * mesh. */
static const struct aiScene *assimp_read(const uint8_t *data, size_t size, const char *ext, const char *what)
{
	const struct aiScene *as = aiImportFileFromMemory((const char *)data, (unsigned)size, 0, ext);
	if (!as) fail_msg("%s: Assimp cannot read gsio's %s: %s", what, ext, aiGetErrorString());
	assert_int_equal(as->mNumMeshes, 1);
	return as;
}

/* Stock Assimp reads the MDL5 bytes; every vertex of its first frame is one
 * of gsio's first-frame positions (decoded from the same bytes) within one
 * quantisation step. Assimp keeps the file's axes in the mesh (see
 * test_vs_assimp_mdl.c) and emits three vertices per triangle. */
static void assimp_check_mdl(const uint8_t *data, size_t size, const char *what)
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, what, NULL, &err);
	if (!f) fail_msg("%s: %s", what, err.message);
	const struct aiScene *as = assimp_read(data, size, "mdl", what);
	const struct aiMesh *am = as->mMeshes[0];
	assert_int_equal(am->mNumFaces, f->triangles_count);
	const gsio_mdl_header *h = &f->header;
	double worst = 0;
	for (unsigned v = 0; v < am->mNumVertices; v++) {
		float q[3] = {am->mVertices[v].x, am->mVertices[v].y, am->mVertices[v].z};
		double best = INFINITY;
		for (int32_t i = 0; i < h->numverts; i++) {
			double d = 0;
			for (int k = 0; k < 3; k++) {
				float p = h->scale[k] * (float)f->frames[0].verts[i].pos[k] + h->offset[k];
				double e = fabs((double)p - q[k]) / (h->scale[k] > 0 ? h->scale[k] : 1);
				if (e > d) d = e;
			}
			if (d < best) best = d;
			if (best == 0) break;
		}
		if (best > worst) worst = best;
	}
	if (worst > 1.001) fail_msg("%s: an Assimp vertex is %.3f steps from every gsio position", what, worst);
	print_message("  Assimp: %u vertices, %u faces, worst %.3f steps\n", am->mNumVertices,
	              am->mNumFaces, worst);
	aiReleaseImport(as);
	gsio_mdl_file_free(f);
}

/* Stock Assimp reads the HMP5 bytes: one quad per cell, and each vertex's
 * height is Assimp's formula of the raw height gsio stored at that grid
 * point ((raw / 65535 - 0.5) * ftrisize_x * 8, x and y from 0, y growing with
 * the row; test_vs_assimp_hmp.c). */
static void assimp_check_hmp(const uint8_t *data, size_t size, const char *what)
{
	gsio_error err;
	gsio_hmp_file *f = gsio_hmp_decode(data, size, what, NULL, &err);
	if (!f) fail_msg("%s: %s", what, err.message);
	const struct aiScene *as = assimp_read(data, size, "hmp", what);
	const struct aiMesh *am = as->mMeshes[0];
	assert_int_equal(am->mNumFaces, (f->columns - 1) * (f->rows - 1));
	const gsio_hmp_header *h = &f->header;
	double worst = 0;
	for (unsigned v = 0; v < am->mNumVertices; v++) {
		long c = lround(am->mVertices[v].x / h->ftrisize_x), r = lround(am->mVertices[v].y / h->ftrisize_y);
		assert_true(c >= 0 && r >= 0 && c < (long)f->columns && r < (long)f->rows);
		uint16_t raw = f->frames[0].heights[(size_t)r * f->columns + (size_t)c].z;
		double want = ((double)raw / 65535.0 - 0.5) * h->ftrisize_x * 8;
		double e = fabs(want - am->mVertices[v].z);
		if (e > worst) worst = e;
	}
	if (worst > 1e-3 * h->ftrisize_x) fail_msg("%s: Assimp heights differ by %g", what, worst);
	print_message("  Assimp: %u vertices, %u cells, worst height difference %g\n",
	              am->mNumVertices, am->mNumFaces, worst);
	aiReleaseImport(as);
	gsio_hmp_file_free(f);
}
#endif

// -- MDL round trips

/* Every corpus MDL3/4/5 -> scene -> MDL5 -> scene: counts, frame names,
 * skins pixel-exact (AUTO keeps the pixel type), positions within one step
 * of the new scale; and Assimp reads each output. */
static void test_mdl_round_trip(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char dir[1024];
	snprintf(dir, sizeof(dir), "%s", t_corpus_path("mdl"));
	char **files;
	size_t n = t_list_files(dir, ".mdl", &files), done = 0;
	for (size_t i = 0; i < n; i++) {
		size_t size;
		uint8_t *data = t_read_file(files[i], &size);
		if (!is_mdl345(data, size)) {
			free(data);
			continue;
		}
		const char *base = strrchr(files[i], '/') + 1;
		gsio_error err;
		gsio_scene *a = gsio_load_memory(data, size, base, NULL, &err);
		if (!a) fail_msg("%s: %s", base, err.message);
		int warnings = 0;
		gsio_mdl5_write_opts wo = {0};
		wo.warn = count_warning;
		wo.warn_user = &warnings;
		uint8_t *out;
		size_t out_size;
		if (gsio_mdl5_write(a, &wo, &out, &out_size, &err)) fail_msg("%s: write: %s", base, err.message);
		gsio_mdl_file *f = gsio_mdl_decode(out, out_size, "out.mdl", NULL, &err);
		if (!f) fail_msg("%s: the MDL5 written does not decode: %s", base, err.message);
		assert_int_equal(f->version, 5);
		// Folded double-sided pairs are written both ways round again: the
		// file has as many triangles as the one read.
		assert_int_equal(f->triangles_count, a->source.triangles);
		gsio_scene *b = gsio_mdl_to_scene(f, base, NULL, &err);
		if (!b) fail_msg("%s: %s", base, err.message);
		assert_int_equal(a->meshes_count, b->meshes_count);
		const gsio_mesh *ma = &a->meshes[0], *mb = &b->meshes[0];
		if (ma->vertex_count != mb->vertex_count || ma->index_count != mb->index_count ||
		    ma->frames_count != mb->frames_count)
			fail_msg("%s: vertices %zu -> %zu, indices %zu -> %zu, frames %zu -> %zu", base,
			         ma->vertex_count, mb->vertex_count, ma->index_count, mb->index_count,
			         ma->frames_count, mb->frames_count);
		// Corner by corner (a face of a double-sided pair may get the split
		// copies instead of its twin after requantisation: same positions,
		// other vertex numbers), every frame.
		double worst = 0;
		size_t renumbered = 0;
		for (size_t c = 0; c < ma->index_count; c++) renumbered += ma->indices[c] != mb->indices[c];
		float *pa = malloc(ma->vertex_count * 3 * sizeof(float));
		float *pb = malloc(mb->vertex_count * 3 * sizeof(float));
		assert_true(pa && pb);
		for (size_t fr = 0; fr < ma->frames_count; fr++) {
			assert_string_equal(ma->frames[fr].name, mb->frames[fr].name);
			assert_true(gsio_mesh_frame_get(ma, fr, pa, NULL) >= 0);
			assert_true(gsio_mesh_frame_get(mb, fr, pb, NULL) >= 0);
			for (size_t c = 0; c < ma->index_count; c++)
				for (int k = 0; k < 3; k++) {
					double d = fabs((double)pa[3 * ma->indices[c] + (size_t)k] -
					                pb[3 * mb->indices[c] + (size_t)k]) /
					           f->header.scale[k];
					if (d > worst) worst = d;
				}
		}
		free(pa);
		free(pb);
		if (worst > 1.0) fail_msg("%s: a position moved %.3f quantisation steps", base, worst);
		assert_int_equal(a->images_count, b->images_count);
		for (size_t im = 0; im < a->images_count; im++) {
			const gsio_image *ia = &a->images[im], *ib = &b->images[im];
			assert_int_equal(ia->width, ib->width);
			assert_int_equal(ia->height, ib->height);
			if (ia->source_type != GSIO_MDL_SKIN_DDS)
				assert_int_equal(ia->source_type & 7, ib->source_type & 7);
			assert_memory_equal(ia->rgba, ib->rgba, (size_t)ia->width * ia->height * 4);
		}
		assert_int_equal(a->animations_count, b->animations_count);
		for (size_t an = 0; an < a->animations_count; an++)
			assert_string_equal(a->animations[an].name, b->animations[an].name);
		print_message("%-36s %5zu vertices %5zu triangles %4zu frames %zu skins: worst %.3f steps, "
		              "%zu corners renumbered, %d warnings\n",
		              base, ma->vertex_count, ma->index_count / 3, ma->frames_count, a->images_count,
		              worst, renumbered, warnings);
#ifdef GSIO_HAVE_ASSIMP
		assimp_check_mdl(out, out_size, base);
#endif
		gsio_mdl_file_free(f);
		gsio_scene_free(b);
		gsio_write_free(NULL, out);
		gsio_scene_free(a);
		free(data);
		done++;
	}
	t_free_list(files, n);
	assert_true(done >= 5);
}

/* Every pixel type, mips, byte frames: the file decodes, and an exact type
 * (888, 8888) keeps the pixels. */
static void test_mdl_pixel_types(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *a = t_load_corpus("mdl/mdl5-earth.mdl", NULL);
	static const gsio_skin_encoding encs[] = {GSIO_SKIN_PAL8, GSIO_SKIN_RGB565, GSIO_SKIN_ARGB4444,
	                                          GSIO_SKIN_BGR888, GSIO_SKIN_BGRA8888};
	static const int types[] = {0, 2, 3, 4, 5};
	for (int mip = 0; mip < 2; mip++)
		for (int dither = 0; dither < 2; dither++)
			for (size_t e = 0; e < 5; e++) {
				gsio_mdl5_write_opts wo = {0};
				wo.skin_encoding = encs[e];
				wo.mipmaps = mip;
				wo.dither = dither;
				wo.byte_frames = e == 0;
				uint8_t *out;
				size_t size;
				if (gsio_mdl5_write(a, &wo, &out, &size, &err)) fail_msg("%s", err.message);
				gsio_mdl_file *f = gsio_mdl_decode(out, size, "out.mdl", NULL, &err);
				if (!f) fail_msg("type %d: %s", types[e], err.message);
				assert_int_equal(f->skins[0].type, types[e] | (mip ? 8 : 0));
				assert_int_equal(f->frames[0].type, e == 0 ? 0 : 2);
				gsio_scene *b = gsio_mdl_to_scene(f, "out.mdl", NULL, &err);
				assert_non_null(b);
				if (types[e] >= 4)
					assert_memory_equal(a->images[0].rgba, b->images[0].rgba,
					                    (size_t)a->images[0].width * a->images[0].height * 4);
#ifdef GSIO_HAVE_ASSIMP
				// Not 4444: Assimp 5.2.5 checks 4 bytes per 4444 texel (its
				// VALIDATE_FILE_SIZE in ParseTextureColorData; the texels are 2
				// bytes) and refuses a file whose rest after the skin is shorter.
				if (!mip && !dither && encs[e] != GSIO_SKIN_ARGB4444) assimp_check_mdl(out, size, "earth");
#endif
				gsio_scene_free(b);
				gsio_mdl_file_free(f);
				gsio_write_free(NULL, out);
			}
	gsio_scene_free(a);
}

// -- Built scenes: merging, materials, skeletal baking, bad scenes

/* A quad (2 triangles) at height z with uvs; material mat. */
static int32_t add_quad(gsio_scene *s, const char *name, float z, int32_t mat)
{
	gsio_error err;
	int32_t m = gsio_scene_add_mesh(s, name, 4, 6, GSIO_MESH_UVS, mat, &err);
	assert_true(m >= 0);
	gsio_mesh *me = &s->meshes[m];
	static const float xy[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
	static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
	for (int v = 0; v < 4; v++) {
		me->positions[3 * v] = xy[v][0];
		me->positions[3 * v + 1] = xy[v][1];
		me->positions[3 * v + 2] = z;
		me->uvs[2 * v] = xy[v][0];
		me->uvs[2 * v + 1] = xy[v][1];
	}
	memcpy(me->indices, idx, sizeof(idx));
	return m;
}

static int32_t add_image(gsio_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t grey)
{
	gsio_error err;
	int32_t i = gsio_scene_add_image(s, name, w, h, NULL, &err);
	assert_true(i >= 0);
	memset(s->images[i].rgba, grey, (size_t)w * h * 4);
	return i;
}

static void test_mdl_merge_materials(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	int32_t m0 = gsio_scene_add_material(s, "a", &err), m1 = gsio_scene_add_material(s, "b", &err);
	s->materials[m0].base_color_texture.image = add_image(s, "ia", 16, 8, 200);
	s->materials[m1].base_color_texture.image = add_image(s, "ib", 16, 8, 100);
	int32_t q0 = add_quad(s, "q0", 0, m0), q1 = add_quad(s, "q1", 0, m1);
	int32_t n0 = gsio_scene_add_node(s, "n0", -1, &err), n1 = gsio_scene_add_node(s, "n1", -1, &err);
	s->nodes[n0].mesh = q0;
	s->nodes[n1].mesh = q1;
	s->nodes[n1].translation[2] = 5; // the node transform is applied
	int warnings = 0;
	gsio_mdl5_write_opts wo = {0};
	wo.warn = count_warning;
	wo.warn_user = &warnings;
	uint8_t *out;
	size_t size;
	if (gsio_mdl5_write(s, &wo, &out, &size, &err)) fail_msg("%s", err.message);
	assert_int_equal(warnings, 2); // merged, two materials
	gsio_scene *b = gsio_load_memory(out, size, "m.mdl", NULL, &err);
	if (!b) fail_msg("%s", err.message);
	assert_int_equal(b->images_count, 2);
	assert_int_equal(b->meshes[0].index_count, 12);
	assert_int_equal(b->meshes[0].vertex_count, 8);
	assert_true(fabsf(b->meshes[0].bbox_max[2] - 5) < 1e-3f);
	assert_true(fabsf(b->meshes[0].bbox_min[2]) < 1e-3f);
	gsio_scene_free(b);
	gsio_write_free(NULL, out);
	gsio_scene_free(s);
}

/* One bone rotating a skinned quad by 90 degrees about z over 3 frames at 2
 * fps, baked at 4 fps: 5 frames "turn0".."turn4", the last turned. */
static void test_mdl_bake_skeleton(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	int32_t q = add_quad(s, "q", 0, -1);
	int32_t root = gsio_scene_add_node(s, "model", -1, &err);
	int32_t bone = gsio_scene_add_node(s, "bone", root, &err);
	s->nodes[root].mesh = q;
	int32_t sk = gsio_scene_add_skin(s, "skel", 1, &err);
	s->skins[sk].joints[0] = bone;
	gsio_mesh *m = &s->meshes[q];
	m->skin = sk;
	m->weights.offsets = gsio_scene_alloc(s, 5, sizeof(uint32_t), &err);
	m->weights.joints = gsio_scene_alloc(s, 4, sizeof(uint32_t), &err);
	m->weights.values = gsio_scene_alloc(s, 4, sizeof(float), &err);
	m->weights.count = 4;
	for (uint32_t v = 0; v < 4; v++) m->weights.offsets[v + 1] = v + 1, m->weights.values[v] = 1;
	// Named "türn" (UTF-8): stored in CP1252 as the engine reads names.
	int32_t an = gsio_scene_add_animation(s, "t\xc3\xbcrn", 2, 3, 1, &err);
	gsio_channel *ch = &s->animations[an].channels[0];
	ch->node = bone;
	ch->path = GSIO_PATH_ROTATION;
	ch->values = gsio_scene_alloc(s, 12, sizeof(float), &err);
	float h = sqrtf(0.5f), q45[4] = {0, 0, sinf(3.14159265f / 8), cosf(3.14159265f / 8)};
	float keys[12] = {0, 0, 0, 1, q45[0], q45[1], q45[2], q45[3], 0, 0, h, h};
	memcpy(ch->values, keys, sizeof(keys));
	gsio_mdl5_write_opts wo = {0};
	wo.bake_fps = 4;
	uint8_t *out;
	size_t size;
	if (gsio_mdl5_write(s, &wo, &out, &size, &err)) fail_msg("%s", err.message);
	gsio_scene *b = gsio_load_memory(out, size, "b.mdl", NULL, &err);
	if (!b) fail_msg("%s", err.message);
	const gsio_mesh *mb = &b->meshes[0];
	assert_int_equal(mb->frames_count, 5);
	bool cp1252 = false;
	for (size_t i = 0; i + 6 <= size && !cp1252; i++) cp1252 = !memcmp(out + i, "t\xfcrn4\0", 6);
	assert_true(cp1252);
	assert_string_equal(mb->frames[0].name, "t\xc3\xbcrn0");
	assert_string_equal(mb->frames[4].name, "t\xc3\xbcrn4");
	// Vertex (1, 0) turns to (0, 1).
	bool found = false;
	float *p4 = malloc(mb->vertex_count * 3 * sizeof(float));
	assert_non_null(p4);
	assert_true(gsio_mesh_frame_get(mb, 4, p4, NULL) >= 0);
	for (size_t v = 0; v < mb->vertex_count; v++) {
		const float *p = p4 + 3 * v;
		if (fabsf(p[0]) < 1e-3f && fabsf(p[1] - 1) < 1e-3f) found = true;
		assert_true(p[0] < 1e-3f); // every x <= 0 after the quarter turn
	}
	free(p4);
	assert_true(found);
	gsio_scene_free(b);
	gsio_write_free(NULL, out);
	gsio_scene_free(s);
}

/* Refused with a clear error, and nothing left on disk. */
static void expect_refused(const gsio_scene *s, const char *needle, gsio_error_code code)
{
	char dir[] = "/tmp/gsio_write_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof(path), "%s/bad.mdl", dir);
	gsio_error err;
	if (!gsio_mdl5_write_file(s, path, NULL, &err)) fail_msg("a bad scene was written");
	print_message("  refused: %s\n", err.message);
	assert_int_equal(err.code, code);
	if (!strstr(err.message, needle)) fail_msg("'%s' does not say '%s'", err.message, needle);
	assert_int_equal(t_scan_dir(dir, NULL, NULL, 0), 0);
	rmdir(dir);
}

static void test_mdl_bad_scenes(void **state)
{
	(void)state;
	gsio_error err;
	// 40000 distinct vertices.
	gsio_scene *s = gsio_scene_new(NULL, &err);
	int32_t m = gsio_scene_add_mesh(s, "big", 40002, 40002 * 3, 0, -1, &err);
	gsio_mesh *me = &s->meshes[m];
	for (size_t v = 0; v < me->vertex_count; v++) me->positions[3 * v] = (float)v;
	for (size_t t = 0; t < me->index_count; t++) me->indices[t] = (uint32_t)(t / 3);
	expect_refused(s, "16-bit", GSIO_ERR_LIMIT);
	gsio_scene_free(s);
	// A skin 70000 pixels wide.
	s = gsio_scene_new(NULL, &err);
	int32_t mat = gsio_scene_add_material(s, "wide", &err);
	s->materials[mat].base_color_texture.image = add_image(s, "wide", 70000, 1, 7);
	add_quad(s, "q", 0, mat);
	expect_refused(s, "70000", GSIO_ERR_LIMIT);
	// A NaN position: the validator's message.
	s->meshes[0].positions[4] = NAN;
	expect_refused(s, "meshes[0]", GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);
	// No mesh.
	s = gsio_scene_new(NULL, &err);
	expect_refused(s, "no mesh", GSIO_ERR_ARGUMENT);
	gsio_scene_free(s);
}

static int try_mdl5_write(void *ctx, gsio_allocator *al, gsio_error *err)
{
	gsio_mdl5_write_opts wo = {0};
	wo.allocator = al;
	wo.mipmaps = true;
	wo.dither = true;
	wo.skin_encoding = GSIO_SKIN_RGB565;
	uint8_t *out;
	size_t size;
	int rc = gsio_mdl5_write(ctx, &wo, &out, &size, err);
	if (rc) assert_null(out);
	else gsio_write_free(al, out);
	return rc;
}

static int try_hmp5_write(void *ctx, gsio_allocator *al, gsio_error *err)
{
	gsio_hmp5_write_opts wo = {0};
	wo.allocator = al;
	uint8_t *out;
	size_t size;
	int rc = gsio_hmp5_write(ctx, &wo, &out, &size, err);
	if (!rc) gsio_write_free(al, out);
	return rc;
}

/* An allocation failure at every index of one write (two-skin sample with
 * mips and dithering): NOMEM or LIMIT, never a leak, then success. */
static void test_mdl_alloc_failures(void **state)
{
	(void)state;
	gsio_scene *s = t_load_ok(GSIO_SOURCE_DIR "/samples/two_skins.mdl", NULL);
	size_t k = t_each_alloc_fails("MDL5 write", try_mdl5_write, s, T_NOMEM_OR_LIMIT, 1).calls;
	print_message("MDL5 write: %zu allocations, each failure handled\n", k);
	assert_true(k > 1);
	// HMP5 too.
	gsio_scene_free(s);
	if (!t_corpus_dir()) return;
	s = t_load_corpus("hmp/shadow-5.hmp", NULL);
	k = t_each_alloc_fails("HMP5 write", try_hmp5_write, s, T_NOMEM_OR_LIMIT, 1).calls;
	print_message("HMP5 write: %zu allocations, each failure handled\n", k);
	gsio_scene_free(s);
}

// -- HMP5

static void test_hmp_round_trip(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *a = t_load_corpus("hmp/shadow-5.hmp", NULL);
	uint8_t *out;
	size_t size;
	if (gsio_hmp5_write(a, NULL, &out, &size, &err)) fail_msg("%s", err.message);
	gsio_hmp_file *f = gsio_hmp_decode(out, size, "out.hmp", NULL, &err);
	if (!f) fail_msg("%s", err.message);
	gsio_scene *b = gsio_hmp_to_scene(f, "out.hmp", NULL, &err);
	assert_non_null(b);
	const gsio_mesh *ma = &a->meshes[0], *mb = &b->meshes[0];
	assert_int_equal(ma->vertex_count, mb->vertex_count);
	assert_int_equal(b->terrain->columns, a->terrain->columns);
	assert_int_equal(b->terrain->rows, a->terrain->rows);
	double worst = 0, worst_xy = 0;
	for (size_t v = 0; v < ma->vertex_count; v++) {
		double d = fabs((double)ma->positions[3 * v + 2] - mb->positions[3 * v + 2]) / f->header.scale[2];
		if (d > worst) worst = d;
		for (int k = 0; k < 2; k++) {
			double e = fabs((double)ma->positions[3 * v + (size_t)k] - mb->positions[3 * v + (size_t)k]);
			if (e > worst_xy) worst_xy = e;
		}
	}
	size_t same_normal = 0;
	for (size_t v = 0; v < ma->vertex_count; v++) {
		const float *na = ma->normals + 3 * v, *nb = mb->normals + 3 * v;
		if (na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2] > 0.95f) same_normal++;
	}
	print_message("shadow-5.hmp: %zu heights within %.3f quanta, x/y within %g, %zu of %zu "
	              "normals within 18 degrees, skin %ux%u\n",
	              ma->vertex_count, worst, worst_xy, same_normal, ma->vertex_count,
	              b->images_count ? b->images[0].width : 0, b->images_count ? b->images[0].height : 0);
	assert_true(worst <= 1.0);
	assert_true(worst_xy < 1e-2);
	assert_true(same_normal * 10 >= ma->vertex_count * 9);
	assert_int_equal(a->images_count, b->images_count);
	assert_memory_equal(a->images[0].rgba, b->images[0].rgba, (size_t)a->images[0].width * a->images[0].height * 4);
#ifdef GSIO_HAVE_ASSIMP
	assimp_check_hmp(out, size, "shadow-5 rewritten");
#endif
	gsio_scene_free(b);
	gsio_hmp_file_free(f);
	gsio_write_free(NULL, out);
	gsio_scene_free(a);
}

/* A minimal PNG writer (stored deflate blocks) for 8- and 16-bit grey
 * heightmaps: spng would do, but the test should not share the library's
 * encoder. */
static uint32_t crc_update(uint32_t c, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
	}
	return c;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static size_t chunk(uint8_t *out, const char *type, const uint8_t *data, uint32_t n)
{
	be32(out, n);
	memcpy(out + 4, type, 4);
	if (n) memcpy(out + 8, data, n);
	be32(out + 8 + n, ~crc_update(0xFFFFFFFFu, out + 4, n + 4));
	return 12 + n;
}

static uint8_t *grey_png(uint32_t w, uint32_t h, int bits, const uint16_t *px, size_t *size)
{
	size_t row = 1 + w * (size_t)(bits / 8), raw_n = row * h;
	uint8_t *raw = malloc(raw_n);
	for (uint32_t y = 0; y < h; y++) {
		raw[y * row] = 0;
		for (uint32_t x = 0; x < w; x++) {
			uint16_t v = px[y * w + x];
			if (bits == 8) raw[y * row + 1 + x] = (uint8_t)v;
			else raw[y * row + 1 + 2 * x] = (uint8_t)(v >> 8), raw[y * row + 2 + 2 * x] = (uint8_t)v;
		}
	}
	size_t blocks = raw_n / 65535 + 1, z_n = 2 + raw_n + 5 * blocks + 4;
	uint8_t *z = malloc(z_n), *p = z;
	*p++ = 0x78, *p++ = 0x01;
	uint32_t s1 = 1, s2 = 0;
	for (size_t i = 0; i < raw_n; i++) s1 = (s1 + raw[i]) % 65521, s2 = (s2 + s1) % 65521;
	for (size_t b = 0, at = 0; b < blocks; b++) {
		size_t len = raw_n - at < 65535 ? raw_n - at : 65535;
		*p++ = b + 1 == blocks;
		*p++ = (uint8_t)len, *p++ = (uint8_t)(len >> 8), *p++ = (uint8_t)~len, *p++ = (uint8_t)(~len >> 8);
		memcpy(p, raw + at, len);
		p += len, at += len;
	}
	be32(p, (s2 << 16) | s1);
	p += 4;
	uint8_t *png = malloc(8 + 25 + 12 + (size_t)(p - z) + 12), *q = png;
	memcpy(q, "\x89PNG\r\n\x1a\n", 8);
	q += 8;
	uint8_t ihdr[13] = {0};
	be32(ihdr, w), be32(ihdr + 4, h);
	ihdr[8] = (uint8_t)bits; // colour type 0: grey
	q += chunk(q, "IHDR", ihdr, 13);
	q += chunk(q, "IDAT", z, (uint32_t)(p - z));
	q += chunk(q, "IEND", NULL, 0);
	*size = (size_t)(q - png);
	free(raw);
	free(z);
	return png;
}

static void test_heightmap(void **state)
{
	(void)state;
	const uint32_t w = 33, h = 17;
	uint16_t *px = malloc(w * h * sizeof(uint16_t));
	for (int bits = 8; bits <= 16; bits += 8) {
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++) {
				double v = (sin(x * 0.3) * cos(y * 0.4) + 1) / 2;
				px[y * w + x] = (uint16_t)lround(v * (bits == 8 ? 255 : 65535));
			}
		size_t png_size;
		uint8_t *png = grey_png(w, h, bits, px, &png_size);
		gsio_hmp5_write_opts wo = {0};
		wo.cell_size = 8;
		wo.height_min = -100, wo.height_max = 300;
		gsio_error err;
		gsio_scene *s = gsio_hmp5_scene_from_heightmap(png, png_size, NULL, 0, &wo, &err);
		if (!s) fail_msg("%d-bit: %s", bits, err.message);
		assert_non_null(s->terrain);
		assert_int_equal(s->terrain->columns, w);
		assert_int_equal(s->terrain->rows, h);
		uint8_t *out;
		size_t size;
		gsio_hmp5_write_opts plain = {0};
		if (gsio_hmp5_write(s, &plain, &out, &size, &err)) fail_msg("%s", err.message);
		gsio_hmp_file *f = gsio_hmp_decode(out, size, "hm.hmp", NULL, &err);
		if (!f) fail_msg("%s", err.message);
		assert_true(fabsf(f->header.ftrisize_x - 8) < 1e-6f);
		// The pixel maps linearly onto -100..300; row 0 of the image is row 0.
		uint16_t lo = 65535, hi = 0;
		for (size_t i = 0; i < (size_t)w * h; i++) lo = px[i] < lo ? px[i] : lo, hi = px[i] > hi ? px[i] : hi;
		double worst = 0;
		for (size_t i = 0; i < (size_t)w * h; i++) {
			double want = -100 + 400.0 * (px[i] - lo) / (hi - lo);
			double got = f->header.scale[2] * f->frames[0].heights[i].z + f->header.offset[2];
			double e = fabs(want - got) / f->header.scale[2];
			if (e > worst) worst = e;
		}
		print_message("%d-bit heightmap %ux%u: heights within %.3f quanta (quantum %g)\n", bits, w, h,
		              worst, (double)f->header.scale[2]);
		assert_true(worst <= 1.0);
#ifdef GSIO_HAVE_ASSIMP
		assimp_check_hmp(out, size, "heightmap");
#endif
		gsio_hmp_file_free(f);
		gsio_write_free(NULL, out);
		gsio_scene_free(s);
		free(png);
	}
	free(px);
}

/* A regular-grid mesh (no terrain) becomes an HMP5 of the same grid; a
 * mesh that is not a grid is refused. */
static void test_hmp_from_mesh(void **state)
{
	(void)state;
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	const uint32_t c = 5, r = 4;
	int32_t m = gsio_scene_add_mesh(s, "grid", c * r, 6 * (c - 1) * (r - 1), 0, -1, &err);
	gsio_mesh *me = &s->meshes[m];
	for (uint32_t y = 0; y < r; y++)
		for (uint32_t x = 0; x < c; x++) {
			float *p = me->positions + 3 * (y * c + x);
			p[0] = 10 + 2.0f * x, p[1] = 20 + 2.0f * y, p[2] = (float)(x * y);
		}
	int32_t n = gsio_scene_add_node(s, "n", -1, &err);
	s->nodes[n].mesh = m;
	uint8_t *out;
	size_t size;
	if (gsio_hmp5_write(s, NULL, &out, &size, &err)) fail_msg("%s", err.message);
	gsio_hmp_file *f = gsio_hmp_decode(out, size, "g.hmp", NULL, &err);
	assert_non_null(f);
	assert_int_equal(f->columns, c);
	assert_int_equal(f->rows, r);
	// Row 0 is the +y edge: its heights are x * (r - 1).
	for (uint32_t x = 0; x < c; x++) {
		float z = f->header.scale[2] * f->frames[0].heights[x].z + f->header.offset[2];
		assert_true(fabsf(z - (float)(x * (r - 1))) < 1e-3f);
	}
	gsio_hmp_file_free(f);
	gsio_write_free(NULL, out);
	me->positions[3] = 10.7f; // vertex 1 off the grid
	assert_int_not_equal(gsio_hmp5_write(s, NULL, &out, &size, &err), 0);
	print_message("  refused: %s\n", err.message);
	assert_non_null(strstr(err.message, "not a regular height grid"));
	gsio_scene_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mdl_round_trip),     cmocka_unit_test(test_mdl_pixel_types),
	    cmocka_unit_test(test_mdl_merge_materials), cmocka_unit_test(test_mdl_bake_skeleton),
	    cmocka_unit_test(test_mdl_bad_scenes),     cmocka_unit_test(test_mdl_alloc_failures),
	    cmocka_unit_test(test_hmp_round_trip),     cmocka_unit_test(test_heightmap),
	    cmocka_unit_test(test_hmp_from_mesh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
