/* Helpers shared by the MD5 tests (md5_test_util.h). */
#define _POSIX_C_SOURCE 200809L // mkdtemp, clock_gettime
#include "md5_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void print_err(const char *what, const gsio_error *err)
{
	char buf[600];
	gsio_error_format(err, buf, sizeof(buf));
	print_message("  %s: %s\n", what, buf);
}

void assert_valid(const gsio_scene *s)
{
	gsio_error err;
	gsio_error_clear(&err);
	if (gsio_scene_validate(s, &err)) {
		print_err("invalid scene", &err);
		fail_msg("gsio_scene_validate refused the scene");
	}
}

gsio_scene *load_ok(const char *path, const gsio_opts *opts)
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

size_t n_joints(const gsio_scene *s)
{
	size_t n = 0;
	while (n < s->nodes_count && s->nodes[n].mesh < 0 && s->nodes[n].camera < 0) n++;
	if (s->skins_count) assert_int_equal(s->skins[0].joints_count, n);
	return n;
}

const float *anim_t(const gsio_animation *a, size_t j, size_t f)
{
	assert_true(a->channels[2 * j].path == GSIO_PATH_TRANSLATION);
	assert_int_equal(a->channels[2 * j].node, (int32_t)j);
	return &a->channels[2 * j].values[3 * f];
}

const float *anim_r(const gsio_animation *a, size_t j, size_t f)
{
	assert_true(a->channels[2 * j + 1].path == GSIO_PATH_ROTATION);
	assert_int_equal(a->channels[2 * j + 1].node, (int32_t)j);
	return &a->channels[2 * j + 1].values[4 * f];
}

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tmp_make(tmpdir *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->path, sizeof(d->path), "/tmp/gsio_md5_XXXXXX");
	assert_non_null(mkdtemp(d->path));
}

const char *tmp_write(tmpdir *d, const char *rel, const void *data, size_t size)
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

const char *tmp_text(tmpdir *d, const char *rel, const char *text)
{
	return tmp_write(d, rel, text, strlen(text));
}

void tmp_remove(tmpdir *d)
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

bool has_warning(const gsio_scene *s, const char *needle)
{
	for (size_t i = 0; i < s->warnings_count; i++)
		if (strstr(s->warnings[i], needle)) return true;
	return false;
}
