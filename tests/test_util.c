#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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

uint8_t *t_read_file(const char *path, size_t *size)
{
	uint8_t *data = NULL;
	gsio_error err;
	if (gsio_read_whole_file(path, &data, size, 0, &err)) fail_msg("cannot read %s: %s", path, err.message);
	return data;
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
	return b + 1;
}

static void t_free(void *user, void *p)
{
	t_fail_alloc *s = user;
	if (!p) return;
	s->live--;
	free((t_block *)p - 1);
}

gsio_allocator t_fail_allocator(t_fail_alloc *state)
{
	gsio_allocator a = {t_alloc, t_free, state};
	return a;
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
