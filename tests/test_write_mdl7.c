/* The MDL7 writer (exporters/mdl7_write.c) on the corpus: every corpus MDL7
 * read, written and read back (groups, vertices, triangles, materials,
 * skins pixel for pixel, bones, weights, frames, clips, and the positions
 * of every mesh at every key of every animation after skinning); the
 * written bytes decode and re-encode byte for byte and use the record sizes
 * of the game's A8 files; stock Assimp 5.2.5's MDL7 loader reads every
 * written static model whose original it reads, with gsio's first-frame
 * positions. */
#define _XOPEN_SOURCE 700
#include "mdl7w_test_util.h"

#include "gsio_mdl7.h"
#include "gsio_write.h"
#include "gsioi_internal.h"

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef GSIO_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

// -- The corpus's MDL7 files

static char **files;
static size_t files_count;

static int add_mdl7(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	size_t n = strlen(path);
	if (type != FTW_F || n < 4 || strcasecmp(path + n - 4, ".mdl")) return 0;
	size_t size;
	uint8_t *d = t_read_file(path, &size);
	bool mdl7 = size >= 4 && !memcmp(d, "MDL7", 4);
	free(d);
	if (!mdl7) return 0;
	files = realloc(files, (files_count + 1) * sizeof(*files));
	assert_non_null(files);
	files[files_count++] = strdup(path);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_files(void)
{
	T_REQUIRE_CORPUS();
	if (files_count) return;
	assert_int_equal(nftw(t_corpus_path("mdl"), add_mdl7, 16, FTW_PHYS), 0);
	assert_int_equal(nftw(t_corpus_path("lottershock"), add_mdl7, 16, FTW_PHYS), 0);
	qsort(files, files_count, sizeof(*files), by_name);
}

// -- Comparing scenes

/* The quantisation step of an MDL7 position: float32's spacing at the
 * model's largest coordinate (its bounding box), times 64 for the sums of
 * a skinning and the matrix products on both sides. */
static double step_of(const gsio_scene *s)
{
	double big = 1;
	for (size_t m = 0; m < s->meshes_count; m++)
		for (int k = 0; k < 3; k++) {
			double x = fmax(fabs((double)s->meshes[m].bbox_min[k]), fabs((double)s->meshes[m].bbox_max[k]));
			if (x > big) big = x;
		}
	return 64 * big * 1.1920929e-7;
}

/* Same materials and skins. Decoded (no_pixels false): the same RGBA, and
 * the same stored type except a DDS, which is written as pixels. Loaded with
 * GSIO_OPT_NO_PIXELS: the same type and the same bytes as stored (raw
 * pixels, palette indices, the DDS or PNG file). */
static void assert_same_materials(const gsio_scene *a, const gsio_scene *b, bool no_pixels, const char *what)
{
	assert_int_equal(a->materials_count, b->materials_count);
	for (size_t i = 0; i < a->materials_count; i++) {
		const gsio_material *ma = &a->materials[i], *mb = &b->materials[i];
		if (strcmp(ma->name, mb->name)) fail_msg("%s: material %zu '%s' read back '%s'", what, i, ma->name, mb->name);
		for (int k = 0; k < 4; k++) assert_true(ma->base_color[k] == mb->base_color[k]);
		for (int k = 0; k < 3; k++) assert_true(ma->emissive[k] == mb->emissive[k]);
		assert_int_equal(ma->alpha_mode, mb->alpha_mode);
		assert_int_equal(ma->double_sided, mb->double_sided);
		const gsio_extra *ta = gsio_extras_get(&ma->extras, "gsio:skin_type");
		const gsio_extra *tb = gsio_extras_get(&mb->extras, "gsio:skin_type");
		bool dds = ta && (ta->i & 7) == GSIO_MDL7_SKIN_DDS && !no_pixels;
		if (dds && tb && (tb->i & ~0x18) != 4 && (tb->i & ~0x18) != 5)
			fail_msg("%s: material '%s': a decoded DDS read back as type 0x%02x", what, ma->name, (unsigned)tb->i);
		if (ta && tb && ta->i != tb->i && !dds)
			fail_msg("%s: material '%s' skin type 0x%02x read back 0x%02x", what, ma->name, (unsigned)ta->i,
			         (unsigned)tb->i);
		int32_t ia = ma->base_color_texture.image, ib = mb->base_color_texture.image;
		assert_int_equal(ia < 0, ib < 0);
		if (ia < 0) continue;
		const gsio_image *xa = &a->images[ia], *xb = &b->images[ib];
		assert_int_equal(xa->width, xb->width);
		assert_int_equal(xa->height, xb->height);
		size_t n = (size_t)xa->width * xa->height;
		if (xa->rgba && xb->rgba) t_assert_pixels(xb->rgba, xa->rgba, n);
		else assert_true((xa->rgba == NULL) == (xb->rgba == NULL));
		assert_true((xa->stored == NULL) == (xb->stored == NULL));
		if (xa->stored) assert_memory_equal(xa->stored, xb->stored, n * gsio_pixel_size(xa->source_format));
		assert_true((xa->indices == NULL) == (xb->indices == NULL));
		if (xa->indices) assert_memory_equal(xa->indices, xb->indices, n);
		assert_int_equal(xa->file_size, xb->file_size);
		if (xa->file_size) assert_memory_equal(xa->file_data, xb->file_data, xa->file_size);
	}
}

/* Vertices some triangle uses (a folded double-sided face leaves its own
 * vertices unused). */
static size_t used_vertices(const gsio_mesh *m)
{
	bool *used = calloc(m->vertex_count + 1, 1);
	assert_non_null(used);
	size_t n = 0;
	for (size_t c = 0; c < m->index_count; c++)
		if (!used[m->indices[c]]) used[m->indices[c]] = true, n++;
	free(used);
	return n;
}

static void assert_same_meshes(const gsio_scene *a, const gsio_scene *b, const char *what)
{
	assert_int_equal(a->meshes_count, b->meshes_count);
	for (size_t i = 0; i < a->meshes_count; i++) {
		const gsio_mesh *ma = &a->meshes[i], *mb = &b->meshes[i];
		size_t ua = used_vertices(ma), ub = used_vertices(mb);
		if (ua != ub || ma->index_count != mb->index_count)
			fail_msg("%s: mesh %zu has %zu vertices, %zu triangles; read back %zu, %zu", what, i, ua,
			         ma->index_count / 3, ub, mb->index_count / 3);
		assert_int_equal(ma->parts_count, mb->parts_count);
		for (size_t p = 0; p < ma->parts_count; p++) {
			assert_int_equal(ma->parts[p].index_count, mb->parts[p].index_count);
			assert_int_equal(ma->parts[p].material, mb->parts[p].material);
		}
		assert_int_equal(ma->frames_count, mb->frames_count);
		for (size_t f = 0; f < ma->frames_count; f++) assert_string_equal(ma->frames[f].name, mb->frames[f].name);
		assert_int_equal(ma->uvs == NULL, mb->uvs == NULL);
		for (size_t c = 0; ma->uvs && c < ma->index_count; c++)
			assert_memory_equal(ma->uvs + 2 * ma->indices[c], mb->uvs + 2 * mb->indices[c], 2 * sizeof(float));
	}
}

/* Every mesh at every key of every animation (or every mesh frame of a
 * static model) within one step; returns the largest gap seen. */
static double assert_same_poses(const gsio_scene *a, const gsio_scene *b, const char *what)
{
	assert_int_equal(a->animations_count, b->animations_count);
	double step = step_of(a), worst = 0;
	for (size_t m = 0; m < a->meshes_count; m++) {
		for (size_t an = 0; an < a->animations_count; an++) {
			assert_string_equal(a->animations[an].name, b->animations[an].name);
			assert_int_equal(a->animations[an].frames_count, b->animations[an].frames_count);
			for (size_t k = 0; k < a->animations[an].frames_count; k++) {
				double g = w7_pose_gap(a, m, (int32_t)an, b, m, (int32_t)an, k);
				if (g > step)
					fail_msg("%s: mesh %zu, '%s' key %zu: %g apart (step %g)", what, m, a->animations[an].name, k, g, step);
				if (g > worst) worst = g;
			}
		}
		size_t nf = a->meshes[m].frames_count ? a->meshes[m].frames_count : 1;
		for (size_t f = 0; f < nf; f++) {
			double g = w7_pose_gap(a, m, -1, b, m, -1, f);
			if (g > step) fail_msg("%s: mesh %zu frame %zu: %g apart (step %g)", what, m, f, g, step);
			if (g > worst) worst = g;
		}
	}
	return worst;
}

// -- The written file

/* The written bytes decode and encode again to the same bytes; their header
 * sizes are those of the game's A8 file `a8`. */
static void assert_codec_exact(const uint8_t *data, size_t size, const gsio_mdl7_header *a8, const char *what)
{
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(data, size, what, NULL, &err);
	if (!f) fail_msg("%s: the written file does not decode: %s", what, err.message);
	T_ASSERT_ENCODES_TO(gsio_mdl7_encode, f, data, size, what);
	const gsio_mdl7_header *h = &f->header;
	assert_int_equal(h->version, a8->version);
	assert_int_equal(h->bone_stc_size, a8->bone_stc_size);
	assert_int_equal(h->skin_stc_size, a8->skin_stc_size);
	assert_int_equal(h->colorvalue_stc_size, a8->colorvalue_stc_size);
	assert_int_equal(h->material_stc_size, a8->material_stc_size);
	assert_int_equal(h->skinpoint_stc_size, a8->skinpoint_stc_size);
	assert_int_equal(h->triangle_stc_size, a8->triangle_stc_size);
	assert_int_equal(h->mainvertex_stc_size, a8->mainvertex_stc_size);
	assert_int_equal(h->framevertex_stc_size, a8->framevertex_stc_size);
	assert_int_equal(h->bonetrans_stc_size, a8->bonetrans_stc_size);
	assert_int_equal(h->frame_stc_size, a8->frame_stc_size);
	// groupdata_size as the game's files have it: header through frames.
	for (size_t g = 0; g < f->groups_count; g++) assert_true(f->groups[g].groupdata_size > 44);
	gsio_mdl7_file_free(f);
}

static gsio_mdl7_header game_header(void)
{
	size_t size;
	uint8_t *d = t_read_corpus("lottershock/Game/Assets/griechin.mdl", &size);
	gsio_error err;
	gsio_mdl7_file *f = gsio_mdl7_decode(d, size, "griechin.mdl", NULL, &err);
	assert_non_null(f);
	gsio_mdl7_header h = f->header;
	gsio_mdl7_file_free(f);
	free(d);
	return h;
}

static void count_warning(void *user, const char *msg)
{
	(void)msg;
	++*(int *)user;
}

// -- Assimp in a child process

#ifdef GSIO_HAVE_ASSIMP
/* Stock Assimp's MDL7 loader on the written bytes, in a child (it crashes on
 * boned files): each of its vertices must be one of gsio's first-frame
 * positions of the same bytes. 1 when it read them and they matched, 0 when
 * it refused or crashed. */
static int assimp_first_frame(const uint8_t *data, size_t size, const gsio_scene *s, const char *what)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		signal(SIGSEGV, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) dup2(devnull, 2);
		const struct aiScene *as = aiImportFileFromMemory((const char *)data, (unsigned)size, 0, "mdl");
		size_t bad = 0, total = 0;
		for (unsigned m = 0; as && m < as->mNumMeshes; m++)
			for (unsigned v = 0; v < as->mMeshes[m]->mNumVertices; v++, total++) {
				const struct aiVector3D *p = &as->mMeshes[m]->mVertices[v];
				bool found = false;
				for (size_t mi = 0; mi < s->meshes_count && !found; mi++)
					for (size_t k = 0; k < s->meshes[mi].vertex_count && !found; k++) {
						const float *q = s->meshes[mi].positions + 3 * k;
						found = q[0] == p->x && q[1] == p->y && q[2] == p->z;
					}
				bad += !found;
			}
		size_t msg[2] = {as ? total : 0, as ? bad : 1};
		if (write(fds[1], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) _exit(3);
		_exit(0);
	}
	close(fds[1]);
	size_t msg[2] = {0, 1};
	ssize_t got = read(fds[0], msg, sizeof(msg));
	close(fds[0]);
	int ws;
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	if (got != (ssize_t)sizeof(msg) || !WIFEXITED(ws)) return 0;
	if (msg[1]) fail_msg("%s: %zu of Assimp's %zu vertices are not gsio's", what, msg[1], msg[0]);
	return msg[0] > 0;
}
#endif

// -- Tests

/* Every corpus MDL7 loaded with `flags`, written and read back. */
static void corpus_round_trip(unsigned flags)
{
	find_files();
	gsio_mdl7_header a8 = game_header();
	size_t boned = 0, animated = 0, assimp_ok = 0, assimp_static = 0;
	double worst = 0;
	for (size_t i = 0; i < files_count; i++) {
		const char *what = files[i] + strlen(t_corpus_dir()) + 1;
		gsio_opts lo = {0};
		lo.flags = flags;
		gsio_scene *a = t_load_ok(files[i], &lo);
		int warnings = 0;
		gsio_mdl7_write_opts wo = {0};
		wo.warn = count_warning;
		wo.warn_user = &warnings;
		uint8_t *out;
		size_t size;
		gsio_error err;
		if (gsio_mdl7_write(a, &wo, &out, &size, &err)) fail_msg("%s: %s", what, err.message);
		assert_codec_exact(out, size, &a8, what);
		// Read back beside the original (its external textures are found there).
		gsio_scene *b = gsio_load_memory(out, size, files[i], &lo, &err);
		if (!b) fail_msg("%s: read back: %s", what, err.message);
		assert_same_meshes(a, b, what);
		assert_same_materials(a, b, flags & GSIO_OPT_NO_PIXELS, what);
		w7_assert_same_skeleton(a, b, what);
		double g = assert_same_poses(a, b, what);
		if (g > worst) worst = g;
		boned += a->skins_count > 0;
		animated += a->animations_count > 0;
#ifdef GSIO_HAVE_ASSIMP
		if (!a->skins_count) {
			// Where Assimp reads the original, it must read the written file.
			size_t osize;
			uint8_t *orig = t_read_file(files[i], &osize);
			int was = assimp_first_frame(orig, osize, a, what), is = assimp_first_frame(out, size, b, what);
			free(orig);
			if (was && !is) fail_msg("%s: Assimp reads the original but not the written file", what);
			if (!is) print_message("  %s: Assimp reads neither the original nor the written file\n", what);
			assimp_static++;
			assimp_ok += (size_t)is;
		}
#endif
		print_message("  %s: %zu -> %zu bytes, %zu bones, %zu animations, %d warnings, largest gap %g\n",
		              what, (size_t)0 + a->source.vertices, size, a->skins_count ? a->skins[0].joints_count : 0,
		              a->animations_count, warnings, g);
		gsio_write_free(NULL, out);
		gsio_scene_free(b);
		gsio_scene_free(a);
	}
	print_message("%zu MDL7 files written and read back (%zu boned, %zu animated), largest gap %g; "
	              "Assimp read %zu of the %zu static ones with gsio's positions\n",
	              files_count, boned, animated, worst, assimp_ok, assimp_static);
	assert_true(files_count >= 20);
	assert_true(boned >= 5);
}

static void test_corpus_round_trip(void **state)
{
	(void)state;
	corpus_round_trip(0);
}

/* The skins as stored: DDS stays DDS, 8-bit keeps its indices. */
static void test_corpus_round_trip_stored_skins(void **state)
{
	(void)state;
	corpus_round_trip(GSIO_OPT_NO_PIXELS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_round_trip),
	    cmocka_unit_test(test_corpus_round_trip_stored_skins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
