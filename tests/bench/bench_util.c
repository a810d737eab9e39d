/* gsio_bench: small utilities, and the list of files to run (bench.h). */
#define _GNU_SOURCE
#include "bench.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// -- Small utilities

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
	if (n <= 0) return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "gsio_bench: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = xmalloc(strlen(s) + 1);
	strcpy(p, s);
	return p;
}

bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcasecmp(s + n - m, suffix);
}

const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

long file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : (long)st.st_size;
}

bool write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f) return false;
	bool ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok;
}

uint8_t *read_whole(const char *path, size_t *size)
{
	long n = file_size(path);
	FILE *f = n >= 0 ? fopen(path, "rb") : NULL;
	if (!f) return NULL;
	uint8_t *d = xmalloc((size_t)n);
	bool ok = fread(d, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	if (!ok) {
		free(d);
		return NULL;
	}
	*size = (size_t)n;
	return d;
}

// -- File list

bench_file *files;

size_t files_count;
static size_t files_cap;

const char *match;

bool matches(const char *path)
{
	const char *slash = strrchr(path, '/');
	return !match || strstr(slash ? slash + 1 : path, match);
}

void add_file(const char *path, bool synthetic)
{
	if (!matches(path)) return;
	if (files_count == files_cap) {
		files_cap = files_cap ? files_cap * 2 : 64;
		files = realloc(files, files_cap * sizeof(*files));
		if (!files) exit(1);
	}
	files[files_count++] = (bench_file){xstrdup(path), synthetic, NULL, 0};
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool wanted(const char *path)
{
	static const char *exts[] = {".mdl", ".hmp", ".md5mesh", ".md5anim", ".wmp"};
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (ends_with(path, exts[i])) return true;
	return false;
}

void walk(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.') continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = realloc(names, cap * sizeof(*names));
			if (!names) exit(1);
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		struct stat st;
		if (!stat(path, &st)) {
			if (S_ISDIR(st.st_mode)) {
				if (strcmp(names[i], "invalid")) walk(path);
			} else if (wanted(path)) {
				add_file(path, false);
			}
		}
		free(names[i]);
	}
	free(names);
}

void cleanup_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d) return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		struct stat st;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			cleanup_dir(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

