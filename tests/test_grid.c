/* GSIO_OPT_GRID: a terrain kept as its grid gives, through its accessors,
 * bit for bit the floats and indices the load without the flag stores; every
 * writer makes the same bytes from either load; the validator refuses grid
 * meshes that do not match their terrain.
 *
 * Terrains: every HMP of the corpus (../shared/corpus, every folder) and
 * synthetic HMP4/5/7 files of odd sizes made here with the codec's encoder
 * (random heights over the whole u16 range, HMP5 normal indices past the
 * table, HMP7 normal pairs longer than 127), so strips of the glTF writer and
 * 16- and 32-bit indices are crossed. */
#define _GNU_SOURCE // memmem, mkdtemp
#include "test_util.h"

#include "gsio_hmp.h"
#include "gsioi_internal.h"
#include "gsio_md5_write.h"
#include "gsio_write.h"
#include "gsio_gltf.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

// -- Synthetic terrains

static uint32_t rnd_state;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* An HMP file of cols x rows heights and `frames` height frames, encoded by
 * the codec (its decoder is tested against hand-built bytes in test_hmp). */
static uint8_t *make_terrain(int version, uint32_t cols, uint32_t rows, size_t frames, uint32_t seed,
                             size_t *size)
{
	rnd_state = seed;
	gsio_hmp_file f;
	memset(&f, 0, sizeof(f));
	f.version = version;
	gsio_hmp_header *h = &f.header;
	memcpy(h->version, version == 4 ? "HMP4" : version == 5 ? "HMP5" : "HMP7", 4);
	h->scale[2] = 0.0625f + (float)(seed % 7) * 0.01f;
	h->offset[0] = -1000.5f;
	h->offset[1] = -333.25f;
	h->offset[2] = 3.1f;
	h->ftrisize_x = 16.0f;
	h->ftrisize_y = 12.7f;
	h->fnumverts_x = (float)cols;
	h->numskins = 1;
	h->numverts = (int32_t)(cols * rows);
	h->numframes = (int32_t)frames;
	h->nu8 = h->nu9 = version == 4 ? 8 : 0;
	f.columns = cols;
	f.rows = rows;
	uint8_t px[8 * 8 * 2];
	for (size_t i = 0; i < sizeof(px); i++) px[i] = (uint8_t)rnd();
	gsio_mdl_skin skin = {2, 8, 8, px, sizeof(px)};
	f.skins = &skin;
	f.skins_count = 1;
	size_t nv = (size_t)cols * rows;
	f.frames = calloc(frames, sizeof(gsio_hmp_frame));
	assert_non_null(f.frames);
	f.frames_count = frames;
	for (size_t k = 0; k < frames; k++) {
		gsio_hmp_frame *fr = &f.frames[k];
		fr->type = GSIO_HMP_FRAME_WORD;
		snprintf(fr->name, sizeof(fr->name), "layer%u", (unsigned)(k % 1000));
		fr->heights = malloc(nv * sizeof(gsio_hmp_height));
		assert_non_null(fr->heights);
		for (size_t v = 0; v < nv; v++) {
			fr->heights[v].z = (uint16_t)rnd();
			// HMP5: some indices past the 162-entry table; HMP7: any int8 pair.
			fr->heights[v].normal = (uint8_t)(version == 7 ? rnd() : rnd() % 170);
			fr->heights[v].pad = (uint8_t)rnd();
		}
	}
	uint8_t *out;
	gsio_error err;
	if (gsio_hmp_encode(&f, &out, size, &err)) fail_msg("encode: %s", err.message);
	for (size_t k = 0; k < frames; k++) free(f.frames[k].heights);
	free(f.frames);
	return out;
}

// -- Comparing a grid load with the expanded one

/* Writes s with every writer into memory; o gets the outputs (GLB, compact
 * GLB, .gltf with its files, MDL5, HMP5, .md5mesh) for assert_same_outputs. */
typedef struct outputs {
	uint8_t *data[16];
	size_t size[16];
	size_t count;
} outputs;

static void keep(outputs *o, const uint8_t *d, size_t n)
{
	assert_true(o->count < 16);
	o->data[o->count] = malloc(n ? n : 1);
	assert_non_null(o->data[o->count]);
	memcpy(o->data[o->count], d, n);
	o->size[o->count++] = n;
}

static void write_all(const gsio_scene *s, outputs *o)
{
	gsio_error err;
	memset(o, 0, sizeof(*o));
	for (int form = 0; form < 3; form++) { // GLB, compact GLB, .gltf + .bin + PNGs
		gsio_gltf_opts go = {0};
		go.name = "t";
		go.generator = "test";
		if (form == 1) go.flags |= GSIO_GLTF_COMPACT;
		if (form == 2) go.flags |= GSIO_GLTF_SEPARATE;
		gsio_gltf_output g;
		if (gsio_gltf_write(s, &go, &g, &err)) fail_msg("glTF write: %s", err.message);
		for (size_t i = 0; i < g.files_count; i++) keep(o, g.files[i].data, g.files[i].size);
		gsio_gltf_output_free(&g);
	}
	uint8_t *out;
	size_t n;
	// MDL5 holds at most 32768 vertices: then the refusal is compared.
	if (gsio_mdl5_write(s, NULL, &out, &n, &err)) {
		keep(o, (const uint8_t *)err.message, strlen(err.message));
	} else {
		keep(o, out, n);
		gsio_write_free(NULL, out);
	}
	if (gsio_hmp5_write(s, NULL, &out, &n, &err)) fail_msg("HMP5 write: %s", err.message);
	keep(o, out, n);
	gsio_write_free(NULL, out);
	gsio_md5_output m5;
	if (gsio_md5_write(s, "t", NULL, &m5, &err)) fail_msg("MD5 write: %s", err.message);
	if (m5.files_count) keep(o, m5.files[0].data, m5.files[0].size); // the .md5mesh
	gsio_md5_output_free(&m5);
}

static void assert_same_outputs(const gsio_scene *a, const gsio_scene *b, const char *what)
{
	outputs x, y;
	write_all(a, &x);
	write_all(b, &y);
	assert_int_equal(x.count, y.count);
	for (size_t i = 0; i < x.count; i++) {
		if (x.size[i] != y.size[i] || memcmp(x.data[i], y.data[i], x.size[i]))
			fail_msg("%s: output %zu differs (%zu and %zu bytes)", what, i, x.size[i], y.size[i]);
		free(x.data[i]);
		free(y.data[i]);
	}
}

/* e: the load without GSIO_OPT_GRID; g: with it. Every vertex, normal, uv,
 * index and bound equal bit for bit, read whole and in pieces; both valid. */
static void compare_grid(const gsio_scene *e, const gsio_scene *g, bool expect_grid, const char *what)
{
	gsio_error err;
	if (gsio_scene_validate(g, &err)) fail_msg("%s: grid load fails validation: %s", what, err.message);
	assert_int_equal(e->meshes_count, g->meshes_count);
	assert_int_equal(e->warnings_count, g->warnings_count);
	for (size_t i = 0; i < e->warnings_count; i++) assert_string_equal(e->warnings[i], g->warnings[i]);
	if (!e->meshes_count) return;
	const gsio_mesh *em = &e->meshes[0], *gm = &g->meshes[0];
	if (!expect_grid) { // several height layers: expanded all the same
		assert_null(gm->grid);
		assert_non_null(gm->positions);
		assert_memory_equal(gm->positions, em->positions, em->vertex_count * 3 * sizeof(float));
		return;
	}
	assert_non_null(gm->grid);
	assert_ptr_equal(gm->grid, g->terrain);
	assert_null(gm->positions);
	assert_null(gm->normals);
	assert_null(gm->uvs);
	assert_null(gm->indices);
	assert_null(gm->frames[0].positions);
	assert_null(gm->frames[0].normals);
	assert_null(em->grid);
	size_t nv = em->vertex_count, nt = em->index_count / 3;
	assert_int_equal(gm->vertex_count, nv);
	assert_int_equal(gm->index_count, em->index_count);
	assert_int_equal(gm->parts_count, em->parts_count);
	assert_memory_equal(gm->parts, em->parts, em->parts_count * sizeof(gsio_mesh_part));
	assert_int_equal(gm->frames_count, em->frames_count);
	assert_string_equal(gm->frames[0].name, em->frames[0].name);
	assert_memory_equal(gm->frames[0].bbox_min, em->frames[0].bbox_min, sizeof(em->bbox_min));
	assert_memory_equal(gm->frames[0].bbox_max, em->frames[0].bbox_max, sizeof(em->bbox_max));
	assert_memory_equal(gm->bbox_min, em->bbox_min, sizeof(em->bbox_min));
	assert_memory_equal(gm->bbox_max, em->bbox_max, sizeof(em->bbox_max));
	// The terrain is the same in both.
	const gsio_terrain *et = e->terrain, *gt = g->terrain;
	assert_memory_equal(gt->raw_heights, et->raw_heights, nv * sizeof(uint16_t));
	assert_int_equal(gt->normal_indices != NULL, et->normal_indices != NULL);
	if (et->normal_indices) assert_memory_equal(gt->normal_indices, et->normal_indices, nv);
	if (et->normal_xy) assert_memory_equal(gt->normal_xy, et->normal_xy, 2 * nv);

	// Whole.
	float *p = malloc(nv * 8 * sizeof(float)), *n = p + 3 * nv, *uv = p + 6 * nv;
	uint32_t *ix = malloc((em->index_count + 3) * sizeof(uint32_t)); // + 3: the guard below
	assert_true(p && ix);
	assert_int_equal(gsio_mesh_grid_get(gm, 0, nv, p, n, uv), 1);
	assert_memory_equal(p, em->positions, nv * 3 * sizeof(float));
	assert_memory_equal(n, em->normals, nv * 3 * sizeof(float));
	assert_memory_equal(uv, em->uvs, nv * 2 * sizeof(float));
	assert_int_equal(gsio_mesh_grid_indices(gm, 0, nt, ix), 0);
	assert_memory_equal(ix, em->indices, em->index_count * sizeof(uint32_t));
	memset(p, 0, nv * 6 * sizeof(float));
	assert_int_equal(gsio_mesh_frame_get(gm, 0, p, n), 1);
	assert_memory_equal(p, em->positions, nv * 3 * sizeof(float));
	assert_memory_equal(n, em->normals, nv * 3 * sizeof(float));
	// In pieces: random ranges, odd first triangles, rows cut anywhere.
	for (int k = 0; k < 40; k++) {
		size_t first = rnd() % nv, count = rnd() % (nv - first + 1);
		memset(p, 0xAB, nv * 8 * sizeof(float));
		assert_int_equal(gsio_mesh_grid_get(gm, first, count, k % 3 ? p : NULL, n, k % 2 ? uv : NULL), 1);
		if (k % 3) assert_memory_equal(p, em->positions + 3 * first, count * 3 * sizeof(float));
		assert_memory_equal(n, em->normals + 3 * first, count * 3 * sizeof(float));
		if (k % 2) assert_memory_equal(uv, em->uvs + 2 * first, count * 2 * sizeof(float));
		size_t t0 = rnd() % nt, tc = rnd() % (nt - t0 + 1);
		memset(ix, 0xAB, (em->index_count + 3) * sizeof(uint32_t));
		assert_int_equal(gsio_mesh_grid_indices(gm, t0, tc, ix), 0);
		assert_memory_equal(ix, em->indices + 3 * t0, tc * 3 * sizeof(uint32_t));
		assert_int_equal(ix[3 * tc], 0xABABABABu); // nothing written past the range
	}
	// Past the end, or not a grid mesh: refused.
	assert_int_equal(gsio_mesh_grid_get(gm, nv, 1, p, n, uv), -1);
	assert_int_equal(gsio_mesh_grid_get(gm, 1, nv, p, n, uv), -1);
	assert_int_equal(gsio_mesh_grid_indices(gm, nt, 1, ix), -1);
	assert_int_equal(gsio_mesh_grid_get(em, 0, 1, p, n, uv), -1);
	assert_int_equal(gsio_mesh_grid_indices(em, 0, 1, ix), -1);
	free(p);
	free(ix);
	assert_same_outputs(e, g, what);
}

/* The terrain the load keeps (its first height layer, split from the records
 * in place, 16 at a time where SSE2 is there) against the codec's copy of
 * the records: heights, normal indices (an index past the table kept as 0)
 * or HMP7 pairs. */
static void check_split(const uint8_t *data, size_t size, const gsio_scene *s)
{
	if (!s->terrain) return;
	gsio_error err;
	gsio_hmp_file *f = gsio_hmp_decode(data, size, "t.hmp", NULL, &err);
	assert_non_null(f);
	const gsio_terrain *t = s->terrain;
	const gsio_hmp_height *h = f->frames[0].heights;
	size_t n = (size_t)t->columns * t->rows, bad = 0;
	uint16_t lo = UINT16_MAX, hi = 0;
	for (size_t v = 0; v < n; v++) {
		assert_int_equal(t->raw_heights[v], h[v].z);
		lo = h[v].z < lo ? h[v].z : lo;
		hi = h[v].z > hi ? h[v].z : hi;
		bad += f->version != 7 && h[v].normal >= GSIO_NORMAL_COUNT;
		if (f->version == 7) {
			assert_null(t->normal_indices);
			assert_int_equal((uint8_t)t->normal_xy[2 * v], h[v].normal);
			assert_int_equal((uint8_t)t->normal_xy[2 * v + 1], h[v].pad);
		} else {
			assert_null(t->normal_xy);
			assert_int_equal(t->normal_indices[v], h[v].normal < GSIO_NORMAL_COUNT ? h[v].normal : 0);
		}
	}
	// The bounds of the first layer's heights, the out-of-table indices counted.
	const gsio_mesh *m = &s->meshes[0];
	assert_true(m->frames[0].bbox_min[2] == t->height_scale * (float)lo + t->height_offset);
	assert_true(m->frames[0].bbox_max[2] == t->height_scale * (float)hi + t->height_offset);
	char want[96] = "";
	if (bad) snprintf(want, sizeof(want), "%zu height normal indices are >= 162", bad);
	bool found = false;
	for (size_t i = 0; i < s->warnings_count; i++) found |= strstr(s->warnings[i], "height normal indices") != NULL && !strncmp(s->warnings[i], want, strlen(want));
	if (m->frames_count == 1 && found != (bad > 0)) fail_msg("expected the warning \"%s\"", want);
	gsio_hmp_file_free(f);
}

/* Loads data both ways (and both ways without animation) and compares. */
static void compare_loads(const uint8_t *data, size_t size, const char *name, const char *what)
{
	for (int first = 0; first < 2; first++) {
		gsio_opts o = {0};
		o.flags = first ? GSIO_OPT_NO_ANIMATION : 0;
		gsio_error ee, ge;
		gsio_scene *e = gsio_load_memory(data, size, name, &o, &ee);
		o.flags |= GSIO_OPT_GRID;
		gsio_scene *g = gsio_load_memory(data, size, name, &o, &ge);
		if (!e) { // refused the same way
			assert_null(g);
			assert_int_equal(ge.code, ee.code);
			assert_string_equal(ge.message, ee.message);
			continue;
		}
		if (!g) fail_msg("%s: the grid load fails: %s", what, ge.message);
		check_split(data, size, g);
		bool layers = e->meshes_count && e->meshes[0].frames_count > 1;
		compare_grid(e, g, !layers, what);
		gsio_scene_free(e);
		gsio_scene_free(g);
	}
}

// -- Tests

static size_t find_hmps(const char *dir, char ***list, size_t n)
{
	DIR *d = opendir(dir);
	if (!d) return n;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.') continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st)) continue;
		if (S_ISDIR(st.st_mode)) {
			n = find_hmps(path, list, n);
			continue;
		}
		size_t len = strlen(de->d_name);
		if (len < 4 || strcasecmp(de->d_name + len - 4, ".hmp")) continue;
		*list = realloc(*list, (n + 1) * sizeof(char *));
		assert_non_null(*list);
		(*list)[n++] = strdup(path);
	}
	closedir(d);
	return n;
}

static void test_grid_corpus(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	char **files = NULL;
	size_t n = find_hmps(t_corpus_dir(), &files, 0), loaded = 0;
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		size_t size;
		uint8_t *data = t_read_file(files[i], &size);
		gsio_error err;
		gsio_scene *s = gsio_load_memory(data, size, files[i], NULL, &err);
		loaded += s != NULL;
		gsio_scene_free(s);
		compare_loads(data, size, files[i], files[i]);
		print_message("grid = expanded: %s\n", files[i]);
		free(data);
		free(files[i]);
	}
	free(files);
	assert_true(loaded >= 3); // shadow-5 (HMP5), assimp-terrain and lgs-small (HMP7)
}

static void test_grid_synthetic(void **state)
{
	(void)state;
	static const struct {
		int version;
		uint32_t cols, rows;
		size_t frames;
	} cases[] = {
	    {5, 2, 2, 1},     {5, 37, 23, 1},  {5, 300, 70, 1}, // strips of 16384 crossed
	    {5, 260, 260, 1},                                  // > 65535 vertices: 32-bit indices
	    {7, 3, 5, 1},     {7, 129, 131, 1}, {4, 17, 9, 1},
	    {5, 11, 7, 3},    {7, 6, 9, 2},     // several layers: grid only without animation
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t size;
		uint8_t *data = make_terrain(cases[i].version, cases[i].cols, cases[i].rows, cases[i].frames,
		                             (uint32_t)(i + 1) * 7919u, &size);
		char what[64];
		snprintf(what, sizeof(what), "HMP%d %ux%u x %zu", cases[i].version, cases[i].cols,
		         cases[i].rows, cases[i].frames);
		compare_loads(data, size, "t.hmp", what);
		free(data);
	}
}

static gsio_scene *grid_kept(gsio_scene *s)
{
	assert_non_null(s->meshes[0].grid);
	return s;
}

/* One write of the scene at ctx with al: MDL5 (what 1) or HMP5 (what 2). */
typedef struct grid_write {
	const gsio_scene *s;
	int what;
} grid_write;

static int try_grid_write(void *ctx, gsio_allocator *al, gsio_error *err)
{
	const grid_write *w = ctx;
	uint8_t *out = NULL;
	size_t out_size;
	int rc;
	if (w->what == 1) {
		gsio_mdl5_write_opts o = {0};
		o.allocator = al;
		rc = gsio_mdl5_write(w->s, &o, &out, &out_size, err);
	} else {
		gsio_hmp5_write_opts o = {0};
		o.allocator = al;
		rc = gsio_hmp5_write(w->s, &o, &out, &out_size, err);
	}
	gsio_write_free(al, out);
	return rc;
}

/* Every allocation of a grid load (and of the MDL5 and HMP5 writers, which
 * expand the grid in their work arena) failed in turn: each failure is a
 * NOMEM refusal without a leak. */
static void test_grid_alloc_failures(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_terrain(5, 37, 23, 1, 5, &size);
	gsio_opts grid = {0};
	grid.flags = GSIO_OPT_GRID;
	gsio_error err;
	gsio_scene *ok = gsio_load_memory(data, size, "t.hmp", &grid, &err);
	assert_non_null(ok);
	t_load_input in = {data, size, "t.hmp", &grid, grid_kept};
	size_t loads = t_each_alloc_fails("grid load", t_try_load, &in, T_NOMEM, 1).failures;
	grid_write mdl5 = {ok, 1}, hmp5 = {ok, 2};
	size_t writes[2] = {t_each_alloc_fails("MDL5 write", try_grid_write, &mdl5, T_NOMEM, 1).failures,
	                    t_each_alloc_fails("HMP5 write", try_grid_write, &hmp5, T_NOMEM, 1).failures};
	print_message("grid load: %zu allocations, MDL5 write %zu, HMP5 write %zu; each failure "
	              "refused, no leaks\n", loads, writes[0], writes[1]);
	assert_true(loads > 3 && writes[0] > 3 && writes[1] > 3);
	gsio_scene_free(ok);
	free(data);
}

/* The same GLB files on disk, where the binary buffer beyond 256 KiB (the
 * share asked for here) goes through the spill file (the strips then land
 * on both sides of it). */
static void test_grid_glb_file(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = make_terrain(5, 300, 301, 1, 4242, &size);
	uint8_t *bytes[2];
	size_t sizes[2];
	for (int grid = 0; grid < 2; grid++) {
		char dir[] = "/tmp/gsio_grid_XXXXXX"; // the same file name in two folders
		assert_non_null(mkdtemp(dir));
		gsio_opts o = {0};
		o.flags = grid ? GSIO_OPT_GRID : 0;
		gsio_error err;
		gsio_scene *s = gsio_load_memory(data, size, "t.hmp", &o, &err);
		assert_non_null(s);
		assert_int_equal(s->meshes[0].grid != NULL, grid);
		char path[256];
		snprintf(path, sizeof(path), "%s/t.glb", dir);
		gsio_gltf_opts go = {0};
		go.buffer_memory = (size_t)256 << 10;
		if (gsio_gltf_write_file(s, path, &go, NULL, &err)) fail_msg("write: %s", err.message);
		bytes[grid] = t_read_file(path, &sizes[grid]);
		unlink(path);
		rmdir(dir);
		gsio_scene_free(s);
	}
	assert_true(sizes[0] > 1000000);
	assert_int_equal(sizes[0], sizes[1]);
	assert_memory_equal(bytes[0], bytes[1], sizes[0]);
	free(bytes[0]);
	free(bytes[1]);
	free(data);
}

/* A level placing a terrain: menue.wmp of the corpus with its entity file
 * "milk.mdl" renamed "milk.hmp" (same length), a synthetic terrain of that
 * name beside the copy, the level's other files found in the corpus
 * folders. With GSIO_OPT_GRID the level carries the terrain's grid (copied
 * into the level's scene: the terrain's own scene is freed); the level's
 * outputs are the same bytes. */
static void test_grid_level(void **state)
{
	(void)state;
	T_REQUIRE_CORPUS();
	size_t size, tsize;
	char level[4096], assets[4096];
	snprintf(level, sizeof(level), "%s", t_corpus_path("lottershock/Game/Level"));
	snprintf(assets, sizeof(assets), "%s", t_corpus_path("lottershock/Game/Assets"));
	char wmp_path[4200];
	snprintf(wmp_path, sizeof(wmp_path), "%s/menue.wmp", level);
	uint8_t *wmp = t_read_file(wmp_path, &size);
	uint8_t *at = memmem(wmp, size, "milk.mdl", 8);
	assert_non_null(at);
	memcpy(at + 5, "hmp", 3);
	char dir[] = "/tmp/gsio_grid_level_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], tpath[256];
	snprintf(path, sizeof(path), "%s/menue.wmp", dir);
	snprintf(tpath, sizeof(tpath), "%s/milk.hmp", dir);
	t_write_file(path, wmp, size);
	uint8_t *terrain = make_terrain(5, 45, 31, 1, 99, &tsize);
	t_write_file(tpath, terrain, tsize);
	const char *paths[2] = {level, assets};
	gsio_scene *sc[2];
	for (int grid = 0; grid < 2; grid++) {
		gsio_opts o = {0};
		o.search_paths = paths;
		o.search_paths_count = 2;
		o.flags = grid ? GSIO_OPT_GRID : 0;
		gsio_error err;
		sc[grid] = t_load_ok(path, &o);
		if (gsio_scene_validate(sc[grid], &err)) fail_msg("level fails validation: %s", err.message);
	}
	size_t grids = 0;
	assert_int_equal(sc[0]->meshes_count, sc[1]->meshes_count);
	for (size_t i = 0; i < sc[1]->meshes_count; i++) {
		const gsio_mesh *e = &sc[0]->meshes[i], *g = &sc[1]->meshes[i];
		assert_null(e->grid);
		if (!g->grid) continue;
		grids++;
		assert_string_equal(g->name, e->name);
		float *p = malloc(g->vertex_count * 3 * sizeof(float));
		uint32_t *ix = malloc(g->index_count * sizeof(uint32_t));
		assert_true(p && ix);
		assert_int_equal(gsio_mesh_grid_get(g, 0, g->vertex_count, p, NULL, NULL), 0);
		assert_memory_equal(p, e->positions, g->vertex_count * 3 * sizeof(float));
		assert_int_equal(gsio_mesh_grid_indices(g, 0, g->index_count / 3, ix), 0);
		assert_memory_equal(ix, e->indices, g->index_count * sizeof(uint32_t));
		free(p);
		free(ix);
	}
	assert_int_equal(grids, 1);
	gsio_gltf_output out[2];
	for (int grid = 0; grid < 2; grid++) {
		gsio_gltf_opts go = {0};
		go.name = "level";
		gsio_error err;
		if (gsio_gltf_write(sc[grid], &go, &out[grid], &err)) fail_msg("glTF: %s", err.message);
	}
	assert_int_equal(out[0].files[0].size, out[1].files[0].size);
	assert_memory_equal(out[0].files[0].data, out[1].files[0].data, out[0].files[0].size);
	gsio_gltf_output_free(&out[0]);
	gsio_gltf_output_free(&out[1]);
	gsio_scene_free(sc[0]);
	gsio_scene_free(sc[1]);
	unlink(path);
	unlink(tpath);
	rmdir(dir);
	free(wmp);
	free(terrain);
}

/* A grid scene built by hand: a 3x2 terrain (raw heights 0..5, normal
 * indices 0..5) and its mesh. */
static gsio_scene *hand_grid(void)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	gsio_terrain *t = gsio_scene_alloc(s, 1, sizeof(*t), &err);
	assert_non_null(t);
	t->columns = 3, t->rows = 2;
	t->cell_x = 2, t->cell_y = 4;
	t->origin[0] = 10, t->origin[1] = 20;
	t->height_scale = 0.5f, t->height_offset = -1;
	t->raw_heights = gsio_scene_alloc(s, 6, sizeof(uint16_t), &err);
	t->normal_indices = gsio_scene_alloc(s, 6, 1, &err);
	assert_true(t->raw_heights && t->normal_indices);
	for (int v = 0; v < 6; v++) t->raw_heights[v] = (uint16_t)(10 * v), t->normal_indices[v] = (uint8_t)v;
	t->mesh = 0;
	s->terrain = t;
	assert_int_equal(gsio_scene_add_mesh(s, "terrain", 0, 0, 0, -1, &err), 0);
	gsio_mesh *m = &s->meshes[0];
	m->positions = m->normals = m->uvs = NULL;
	m->indices = NULL;
	m->vertex_count = 6;
	m->index_count = 12;
	m->parts = gsio_scene_alloc(s, 1, sizeof(gsio_mesh_part), &err);
	m->frames = gsio_scene_alloc(s, 1, sizeof(gsio_morph_frame), &err);
	assert_true(m->parts && m->frames);
	m->parts[0].index_count = 12;
	m->parts[0].material = -1;
	m->parts_count = 1;
	m->frames_count = 1;
	m->grid = t;
	assert_int_equal(gsio_scene_add_node(s, "terrain", -1, &err), 0);
	s->nodes[0].mesh = 0;
	return s;
}

static void test_grid_accessor_values(void **state)
{
	(void)state;
	gsio_scene *s = hand_grid();
	gsio_error err;
	if (gsio_scene_validate(s, &err)) fail_msg("%s", err.message);
	const gsio_mesh *m = &s->meshes[0];
	float p[18], n[18], uv[12];
	assert_int_equal(gsio_mesh_grid_get(m, 0, 6, p, n, uv), 1);
	// Vertex 4: row 1 (the -y edge, y = origin), column 1; raw height 40.
	assert_true(p[12] == 12.0f && p[13] == 20.0f && p[14] == 19.0f);
	// Vertex 2: row 0 (y = 20 + 1 * 4), column 2 (x = 14), raw 20.
	assert_true(p[6] == 14.0f && p[7] == 24.0f && p[8] == 9.0f);
	assert_true(uv[4] == 1.0f && uv[5] == 0.0f && uv[8] == 0.5f && uv[9] == 1.0f);
	for (int v = 0; v < 6; v++)
		for (int k = 0; k < 3; k++) assert_true(n[3 * v + k] == -gsio_anorms[v][k]);
	uint32_t ix[12];
	assert_int_equal(gsio_mesh_grid_indices(m, 0, 4, ix), 0);
	static const uint32_t want[12] = {3, 4, 1, 3, 1, 0, 4, 5, 2, 4, 2, 1};
	assert_memory_equal(ix, want, sizeof(want));
	assert_int_equal(gsio_mesh_grid_indices(m, 1, 2, ix), 0);
	assert_memory_equal(ix, want + 3, 6 * sizeof(uint32_t));
	gsio_scene_free(s);
}

static void test_grid_validator(void **state)
{
	(void)state;
	static const struct {
		int what;
		const char *says;
	} cases[] = {
	    {0, "6 and 12"},          {1, "6 and 12"},           {2, "arrays of its own"},
	    {3, "arrays of its own"}, {4, "one frame without"},  {5, "one frame without"},
	    {6, "no heights"},        {7, "cell/origin/height"}, {8, "not finite"},
	    {9, "outside the 162"},   {10, "at least 2x2"},      {11, "another terrain"},
	    {12, "parts"},            {13, "arrays of its own"}, {14, "with weights"},
	};
	float dummy[18] = {0};
	uint32_t idx[12] = {0};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gsio_scene *s = hand_grid();
		gsio_mesh *m = &s->meshes[0];
		gsio_terrain *t = s->terrain;
		gsio_error err;
		switch (cases[i].what) {
		case 0: m->vertex_count = 5; break;
		case 1: m->index_count = 6, m->parts[0].index_count = 6; break;
		case 2: m->positions = dummy; break;
		case 3: m->indices = idx; break;
		case 4: m->frames[0].positions = dummy; break;
		case 5: m->frames_count = 2; break;
		case 6: t->raw_heights = NULL; break;
		case 7: t->cell_x = NAN; break;
		case 8: t->height_scale = 3e38f; break; // raw 50 * 3e38 overflows
		case 9: t->normal_indices[4] = 170; break;
		case 10: t->columns = 1; break;
		case 11: {
			gsio_terrain *other = gsio_scene_alloc(s, 1, sizeof(*other), &err);
			*other = *t;
			s->terrain = other;
			break;
		}
		case 12: m->parts[0].index_count = 9; break;
		case 13: m->uvs = dummy; break;
		case 14: m->skin = 0; break;
		}
		assert_int_not_equal(gsio_scene_validate(s, &err), 0);
		if (!strstr(err.message, cases[i].says))
			fail_msg("case %d: \"%s\" does not say \"%s\"", cases[i].what, err.message, cases[i].says);
		gsio_scene_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grid_accessor_values),
	    cmocka_unit_test(test_grid_validator),
	    cmocka_unit_test(test_grid_synthetic),
	    cmocka_unit_test(test_grid_alloc_failures),
	    cmocka_unit_test(test_grid_glb_file),
	    cmocka_unit_test(test_grid_corpus),
	    cmocka_unit_test(test_grid_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
