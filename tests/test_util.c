#include "test_util.h"

#include "gsio_mdl.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

const char *t_corpus_dir(void)
{
	static int state; // 0 unknown, 1 present, 2 absent
	if (!state) {
		struct stat st;
		state = stat(GSIO_CORPUS_DIR, &st) == 0 && S_ISDIR(st.st_mode) ? 1 : 2;
	}
	return state == 1 ? GSIO_CORPUS_DIR : NULL;
}

const char *t_corpus_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof(buf), "%s/%s", GSIO_CORPUS_DIR, rel);
	return buf;
}

uint8_t *t_read_corpus(const char *rel, size_t *size)
{
	T_REQUIRE_CORPUS();
	return t_read_file(t_corpus_path(rel), size);
}

uint8_t *t_read_file(const char *path, size_t *size)
{
	uint8_t *data = NULL;
	gsio_error err;
	if (gsio_read_whole_file(path, &data, size, 0, &err)) fail_msg("cannot read %s: %s", path, err.message);
	return data;
}

void t_assert_px(const uint8_t *px, unsigned r, unsigned g, unsigned b, unsigned a)
{
	if (px[0] != r || px[1] != g || px[2] != b || px[3] != a)
		fail_msg("pixel %u,%u,%u,%u, expected %u,%u,%u,%u", px[0], px[1], px[2], px[3], r, g, b, a);
}

void t_assert_pixels(const uint8_t *px, const uint8_t *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(px + 4 * i, want + 4 * i, 4))
			fail_msg("pixel %zu is %u,%u,%u,%u, expected %u,%u,%u,%u", i, px[4 * i], px[4 * i + 1],
			         px[4 * i + 2], px[4 * i + 3], want[4 * i], want[4 * i + 1], want[4 * i + 2],
			         want[4 * i + 3]);
}

void t_assert_same_bytes(uint8_t *got, size_t got_size, const uint8_t *want, size_t want_size,
                         const char *what)
{
	if (got_size != want_size || memcmp(got, want, want_size)) {
		size_t i = 0;
		while (i < got_size && i < want_size && got[i] == want[i]) i++;
		fail_msg("%s: the bytes differ first at offset %zu (%zu bytes, %zu expected)", what, i,
		         got_size, want_size);
	}
	free(got);
}

uint8_t *t_prefix_copy(const uint8_t *data, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	assert_non_null(p);
	if (n) memcpy(p, data, n);
	return p;
}

static bool blob_serves(const t_blob *b, const char *path)
{
	if (b->path) return !strcmp(path, b->path);
	if (!b->names) return true;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < b->names_count; i++)
		if (!strcasecmp(base, b->names[i])) return true;
	return false;
}

static int blob_read(void *user, const char *path, uint8_t **data, size_t *size, gsio_error *err)
{
	t_blob *b = user;
	b->reads++;
	if (blob_serves(b, path)) {
		b->served++;
		*data = malloc(b->size ? b->size : 1);
		assert_non_null(*data);
		if (b->size) memcpy(*data, b->data, b->size);
		*size = b->size;
		return 0;
	}
	if (b->others_from_disk) return gsio_default_io()->read_file(gsio_default_io()->user, path, data, size, err);
	snprintf(err->message, sizeof(err->message), "no such file");
	err->code = GSIO_ERR_IO;
	return -1;
}

void t_io_free(void *user, uint8_t *data)
{
	(void)user;
	free(data);
}

gsio_io t_blob_io(t_blob *b)
{
	gsio_io io;
	memset(&io, 0, sizeof(io));
	io.read_file = blob_read;
	io.free_data = t_io_free;
	io.user = b;
	return io;
}

void t_write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) fail_msg("cannot write %s", path);
	if (size && fwrite(data, 1, size, f) != size) fail_msg("short write to %s", path);
	fclose(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t t_scan_dir(const char *dir, const char *part, char *first, size_t size)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t n = 0;
	struct dirent *e;
	if (first) first[0] = 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' || strstr(e->d_name, ".tmp"))
			if (!part || strstr(e->d_name, part)) {
				if (first && !n) snprintf(first, size, "%s/%s", dir, e->d_name);
				n++;
			}
	closedir(d);
	return n;
}

void t_empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	char path[4400];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path)) rmdir(path); // an empty folder a test made
	}
	closedir(d);
}

size_t t_list_files(const char *dir, const char *ext, char ***out)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d) return 0;
	size_t n = 0, cap = 0;
	char **list = NULL;
	struct dirent *e;
	size_t el = strlen(ext);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < el || strcasecmp(e->d_name + l - el, ext)) continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			list = realloc(list, cap * sizeof(*list));
		}
		size_t pl = strlen(dir) + l + 2;
		list[n] = malloc(pl);
		snprintf(list[n], pl, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n) qsort(list, n, sizeof(*list), cmp_str);
	*out = list;
	return n;
}

void t_free_list(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++) free(list[i]);
	free(list);
}

const char *const t_model_dirs[3][2] = {{"mdl", ".mdl"}, {"hmp", ".hmp"}, {"md5", ".md5mesh"}};

size_t t_corpus_files(const char *const dirs[][2], size_t count, char ***out)
{
	T_REQUIRE_CORPUS();
	char **all = NULL;
	size_t total = 0;
	for (size_t d = 0; d < count; d++) {
		char **list;
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", t_corpus_path(dirs[d][0]));
		size_t n = t_list_files(dir, dirs[d][1], &list);
		if (!n) continue;
		all = realloc(all, (total + n) * sizeof(*all));
		assert_non_null(all);
		memcpy(all + total, list, n * sizeof(*list));
		total += n;
		free(list);
	}
	*out = all;
	return total;
}

typedef struct {
	size_t size;
	size_t pad_;
} t_block;

static void *t_alloc(void *user, size_t size)
{
	t_fail_alloc *s = user;
	s->calls++;
	if (s->fail_at && s->calls == s->fail_at) return NULL;
	t_block *b = malloc(sizeof(t_block) + size);
	if (!b) return NULL;
	b->size = size;
	s->live++;
	s->bytes += size;
	if (s->bytes > s->peak_bytes) s->peak_bytes = s->bytes;
	return b + 1;
}

static void t_free(void *user, void *p)
{
	t_fail_alloc *s = user;
	if (!p) return;
	s->live--;
	s->bytes -= ((t_block *)p - 1)->size;
	free((t_block *)p - 1);
}

gsio_allocator t_fail_allocator(t_fail_alloc *state)
{
	gsio_allocator a = {t_alloc, t_free, state};
	return a;
}

t_alloc_run t_each_alloc_fails(const char *what, t_alloc_try try, void *ctx, unsigned codes, size_t step)
{
	t_alloc_run run = {0, 0};
	for (size_t k = 1; k < 100000; k += step ? step : 1) {
		t_fail_alloc st = {.fail_at = k};
		gsio_allocator al = t_fail_allocator(&st);
		gsio_error err;
		gsio_error_clear(&err);
		if (try(ctx, &al, &err) == 0) {
			if (st.calls >= k) fail_msg("%s: allocation %zu failed, yet it succeeded", what, k);
			if (st.live != 0) fail_msg("%s: %ld blocks leak after a success", what, st.live);
			run.calls = st.calls;
			return run;
		}
		if (err.code == GSIO_OK || (codes && !(codes & T_ERR_BIT(err.code))))
			fail_msg("%s: allocation %zu failed, but the error is %s (%s)", what, k,
			         gsio_error_code_name(err.code), err.message);
		if (st.live != 0) fail_msg("%s: allocation %zu failed: %ld blocks leak", what, k, st.live);
		run.failures++;
	}
	fail_msg("%s: still failing after 100000 allocations", what);
	return run;
}

int t_try_load(void *ctx, gsio_allocator *al, gsio_error *err)
{
	const t_load_input *in = ctx;
	gsio_opts opts = {0};
	if (in->opts) opts = *in->opts;
	opts.allocator = al;
	gsio_scene *s = in->data ? gsio_load_memory(in->data, in->size, in->name, &opts, err)
	                         : gsio_load_file(in->name, &opts, err);
	if (s && in->check) in->check(s);
	gsio_scene_free(s);
	return s ? 0 : -1;
}

int t_try_mdl_decode(void *ctx, gsio_allocator *al, gsio_error *err)
{
	const t_load_input *in = ctx;
	gsio_opts opts = {0};
	if (in->opts) opts = *in->opts;
	opts.allocator = al;
	gsio_scene *s = NULL;
	gsio_mdl_file *f = gsio_mdl_decode(in->data, in->size, in->name, &opts, err);
	if (f) {
		s = gsio_mdl_to_scene(f, in->name, &opts, err);
		gsio_mdl_file_free(f);
	}
	if (s && in->check) in->check(s);
	gsio_scene_free(s);
	return s ? 0 : -1;
}

static const char *skip_reason;

static void skipped_in_this_build(void **state)
{
	(void)state;
	print_message("SKIPPED: %s\n", skip_reason);
	skip();
}

int t_skip_program(const char *why)
{
	skip_reason = why;
	const struct CMUnitTest tests[] = {cmocka_unit_test(skipped_in_this_build)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

double t_one_way_distance(const float *a, size_t na, const float *b, size_t nb)
{
	double worst = 0;
	for (size_t i = 0; i < na; i++) {
		double best = INFINITY;
		for (size_t j = 0; j < nb && best > 0; j++) {
			double d = 0;
			for (int k = 0; k < 3; k++) {
				double e = (double)a[3 * i + (size_t)k] - b[3 * j + (size_t)k];
				d += e * e;
			}
			if (d < best) best = d;
		}
		if (sqrt(best) > worst) worst = sqrt(best);
	}
	return worst;
}

const float t_morph_normals[6][3] = {{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}, {0, 0, 0}, {0.6f, 0.8f, 0}, {1, 2, 2}};

gsio_scene *t_morph_scene(uint32_t nv, uint32_t frames, bool packed, bool normals)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	uint32_t ni = nv >= 3 ? (nv - 2) * 3 : 3;
	int32_t mi = gsio_scene_add_mesh(s, "morph", nv, ni, normals ? GSIO_MESH_NORMALS : 0, -1, &err);
	if (mi < 0) fail_msg("add_mesh: %s", err.message);
	gsio_mesh *m = &s->meshes[mi];
	for (uint32_t i = 0; i < ni; i++) m->indices[i] = nv >= 3 ? i / 3 + i % 3 : 0;
	size_t src = nv - nv / 4;
	m->source_vertex = gsio_scene_alloc(s, nv, sizeof(uint32_t), &err);
	assert_non_null(m->source_vertex);
	for (uint32_t v = 0; v < nv; v++) m->source_vertex[v] = (uint32_t)((7 * (size_t)v) % src);
	gsio_packed_format *pf = gsio_scene_alloc(s, 1, sizeof(*pf), &err);
	assert_non_null(pf);
	pf->coord_size = 1;
	pf->vertex_stride = 4;
	pf->normal_offset = 3;
	pf->source_count = src;
	const float scale[3] = {0.25f, -0.5f, 0.125f}, offset[3] = {-10, 3.5f, 0.1f};
	memcpy(pf->scale, scale, sizeof(scale));
	memcpy(pf->offset, offset, sizeof(offset));
	pf->normal_table = normals ? t_morph_normals : NULL;
	pf->normal_count = normals ? 6 : 0;
	m->frames = gsio_scene_alloc(s, frames, sizeof(gsio_morph_frame), &err);
	assert_non_null(m->frames);
	m->frames_count = frames;
	uint32_t x = 2463534242u;
	const uint8_t *rec0 = NULL; // frame 0's records
	for (uint32_t f = 0; f < frames; f++) {
		gsio_morph_frame *fr = &m->frames[f];
		char name[32];
		snprintf(name, sizeof(name), "move%u", f);
		fr->name = gsio_scene_strdup(s, name, &err);
		uint8_t *rec = gsio_scene_alloc(s, src, 4, &err);
		assert_non_null(rec);
		for (size_t i = 0; i < src; i++) {
			// Some vertices keep frame 0's place (a delta of 0) in every frame.
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			bool still = i % 5 == 4 && f > 0;
			for (int k = 0; k < 4; k++)
				rec[4 * i + (size_t)k] = still ? rec0[4 * i + (size_t)k]
				                               : (uint8_t)(k == 3 ? (x >> 8) % 8 : x >> (8 * k));
		}
		fr->packed = rec;
		fr->packed_size = src * 4;
		if (f == 0) rec0 = rec;
		if (packed && f > 0) continue;
		fr->positions = gsio_scene_alloc(s, nv, 3 * sizeof(float), &err);
		fr->normals = normals ? gsio_scene_alloc(s, nv, 3 * sizeof(float), &err) : NULL;
		for (uint32_t v = 0; v < nv; v++) {
			const uint8_t *r = rec + 4 * (size_t)m->source_vertex[v];
			for (int k = 0; k < 3; k++) fr->positions[3 * v + k] = scale[k] * (float)r[k] + offset[k];
			if (normals) memcpy(fr->normals + 3 * v, t_morph_normals[r[3] < 6 ? r[3] : 0], 3 * sizeof(float));
		}
		if (!packed) fr->packed = NULL, fr->packed_size = 0;
	}
	m->packed = packed ? pf : NULL;
	if (frames) {
		memcpy(m->positions, m->frames[0].positions, (size_t)nv * 3 * sizeof(float));
		if (normals) memcpy(m->normals, m->frames[0].normals, (size_t)nv * 3 * sizeof(float));
	}
	for (uint32_t f = 0; f < frames; f++) {
		gsio_morph_frame *fr = &m->frames[f];
		float mn[3] = {0, 0, 0}, mx[3] = {0, 0, 0};
		float *p = malloc((size_t)nv * 3 * sizeof(float));
		assert_non_null(p);
		assert_true(gsio_mesh_frame_get(m, f, p, NULL) >= 0);
		for (uint32_t v = 0; v < nv; v++)
			for (int k = 0; k < 3; k++) {
				float c = p[3 * v + k];
				if (v == 0 || c < mn[k]) mn[k] = c;
				if (v == 0 || c > mx[k]) mx[k] = c;
			}
		free(p);
		memcpy(fr->bbox_min, mn, sizeof(mn));
		memcpy(fr->bbox_max, mx, sizeof(mx));
		if (f == 0) memcpy(m->bbox_min, mn, sizeof(mn)), memcpy(m->bbox_max, mx, sizeof(mx));
	}
	int32_t n = gsio_scene_add_node(s, "morph", -1, &err);
	assert_true(n >= 0);
	s->nodes[n].mesh = mi;
	if (gsio_scene_validate(s, &err)) fail_msg("invalid scene: %s", err.message);
	return s;
}

gsio_scene *t_load_ok(const char *path, const gsio_opts *opts)
{
	gsio_error err;
	gsio_scene *s = gsio_load_file(path, opts, &err);
	if (!s) fail_msg("%s: %s", path, err.message);
	return s;
}

gsio_scene *t_load_corpus(const char *rel, const gsio_opts *opts)
{
	T_REQUIRE_CORPUS();
	return t_load_ok(t_corpus_path(rel), opts);
}

uint64_t t_load_outcome(const uint8_t *data, size_t size, const char *name, unsigned flags, gsio_error *err)
{
	gsio_opts opts = {0};
	opts.flags = flags;
	gsio_error_clear(err);
	gsio_scene *s = gsio_load_memory(data, size, name, &opts, err);
	if (!s) return 0;
	uint64_t h = 1469598103934665603ull; // FNV-1a
	for (size_t m = 0; m < s->meshes_count; m++) {
		const uint8_t *p = (const uint8_t *)s->meshes[m].positions;
		for (size_t i = 0; p && i < s->meshes[m].vertex_count * 3 * sizeof(float); i++)
			h = (h ^ p[i]) * 1099511628211ull;
	}
	gsio_scene_free(s);
	return h | 1;
}

gsio_scene *t_large_scene(uint32_t nv, uint32_t w)
{
	gsio_error err;
	gsio_scene *s = gsio_scene_new(NULL, &err);
	assert_non_null(s);
	int32_t im = -1;
	if (w) {
		im = gsio_scene_add_image(s, "skin0", w, w, NULL, &err);
		assert_true(im >= 0);
		uint32_t x = 12345;
		for (size_t i = 0; i < (size_t)w * w * 4; i++) {
			x = x * 1103515245u + 12345u;
			s->images[im].rgba[i] = (i % 4 == 3) ? 255 : (uint8_t)(x >> 24);
		}
	}
	int32_t mat = gsio_scene_add_material(s, "skin0", &err);
	assert_true(mat >= 0);
	s->materials[mat].base_color_texture.image = im;
	int32_t mi = gsio_scene_add_mesh(s, "big", nv, nv, GSIO_MESH_NORMALS | GSIO_MESH_UVS, mat, &err);
	if (mi < 0) fail_msg("add_mesh: %s", err.message);
	gsio_mesh *m = &s->meshes[mi];
	for (uint32_t v = 0; v < nv; v++) {
		m->positions[3 * v] = (float)(v % 1000);
		m->positions[3 * v + 1] = (float)(v / 1000);
		m->positions[3 * v + 2] = (float)(v % 7) * 0.25f;
		m->normals[3 * v] = 0;
		m->normals[3 * v + 1] = 0;
		m->normals[3 * v + 2] = 1;
		m->uvs[2 * v] = (float)(v % 1000) / 1000.0f;
		m->uvs[2 * v + 1] = (float)(v / 1000 % 1000) / 1000.0f;
		m->indices[v] = v;
	}
	int32_t n = gsio_scene_add_node(s, "big", -1, &err);
	assert_true(n >= 0);
	s->nodes[n].mesh = mi;
	if (gsio_scene_validate(s, &err)) fail_msg("invalid scene: %s", err.message);
	return s;
}

void t_suffixed_name(size_t i, const char *unnamed, char *out, size_t size)
{
	if (i == 0) snprintf(out, size, "s");
	else if (i == 5) snprintf(out, size, "%s", unnamed);
	else if (i == 3 || i == 4) snprintf(out, size, "s.%zu", i + 1); // s.3 is element 2's own
	else snprintf(out, size, "s.%zu", i == 1 ? 2 : i == 2 ? 3 : i);
}

bool t_thp_on(char *mode, size_t n)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (n) mode[0] = 0;
	if (f) {
		if (!fgets(mode, (int)n, f) && n) mode[0] = 0;
		fclose(f);
	}
	return strstr(mode, "[madvise]") || strstr(mode, "[always]");
}
