/* gsio_bench: a standard PNG encoder writing a model's skins, the
 * reference of the goal "mdl2gltf no slower than a standard PNG encoder
 * writing only the same skins" on the external-skin models: each skin file
 * read, decoded by stb_image (bench_stb.c) and written as PNG by libpng at
 * zlib level 1 with libpng's default row filters, into a sink that only
 * counts the bytes (as /dev/null would). What a script with Pillow does
 * to turn the skins into PNGs, in process, without an interpreter. */
#define _GNU_SOURCE
#include "bench.h"
#include "bench_stb.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GSIO_HAVE_LIBPNG
#include <png.h>

/* The sink: counts the bytes libpng writes. */
static void sink_write(png_structp png, png_bytep data, size_t n)
{
	(void)data;
	size_t *count = png_get_io_ptr(png);
	*count += n;
}

static void sink_flush(png_structp png)
{
	(void)png;
}

/* Writes width x height pixels of `channels` (3 or 4) samples as PNG;
 * the bytes written, 0 on failure. */
static size_t write_png(const uint8_t *px, int width, int height, int channels)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	png_bytep *rows = malloc(sizeof(png_bytep) * (size_t)height);
	// volatile: read after a longjmp back into this frame.
	size_t volatile written = 0;
	size_t count = 0;
	if (!png || !info || !rows) goto done;
	if (setjmp(png_jmpbuf(png))) goto done;
	png_set_write_fn(png, &count, sink_write, sink_flush);
	png_set_compression_level(png, 1);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
	             channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
	             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	for (int y = 0; y < height; y++) rows[y] = (png_bytep)px + (size_t)y * (size_t)width * (size_t)channels;
	png_write_info(png, info);
	png_write_image(png, rows);
	png_write_end(png, NULL);
	written = count;
done:
	png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
	free(rows);
	return written;
}

/* Reads, decodes and writes one skin file; false when a step fails. */
static bool skin_to_png(const char *path, size_t *png_bytes)
{
	size_t size;
	uint8_t *d = read_whole(path, &size);
	int w, h, ch;
	uint8_t *px = d ? bench_stb_decode(d, size, &w, &h, &ch) : NULL;
	free(d);
	size_t n = px && (ch == 3 || ch == 4) ? write_png(px, w, h, ch) : 0;
	bench_stb_free(px);
	*png_bytes += n;
	return n > 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

double png_reference_ms(const char *model, int reps, int *skins)
{
	*skins = 0;
	// The skins: the TGA and BMP files in the model's folder (each
	// external-skin model has a folder of its own, bench_synth.c).
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", model);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	DIR *dp = opendir(dir);
	if (!dp) return NAN;
	char *paths[16];
	int n = 0;
	for (struct dirent *e; (e = readdir(dp)) && n < 16;)
		if (ends_with(e->d_name, ".tga") || ends_with(e->d_name, ".bmp")) {
			paths[n] = xmalloc(strlen(dir) + strlen(e->d_name) + 2);
			sprintf(paths[n++], "%s/%s", dir, e->d_name);
		}
	closedir(dp);
	qsort(paths, (size_t)n, sizeof(*paths), cmp_str);
	double best = n ? INFINITY : NAN;
	for (int rep = 0; n && rep < reps; rep++) {
		size_t bytes = 0;
		bool ok = true;
		double t0 = now_ms();
		for (int i = 0; i < n; i++) ok &= skin_to_png(paths[i], &bytes);
		double t = now_ms() - t0;
		if (!ok) {
			best = NAN;
			break;
		}
		if (t < best) best = t;
	}
	for (int i = 0; i < n; i++) free(paths[i]);
	*skins = n;
	return best;
}

#else

double png_reference_ms(const char *model, int reps, int *skins)
{
	(void)model;
	(void)reps;
	*skins = 0;
	return NAN;
}

#endif
