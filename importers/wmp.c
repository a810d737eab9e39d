/* WMP: the codec's entry points (dialect detection, decode, encode, free),
 * the shared growable array, and the importer descriptor. The dialects
 * live in wmp_codec_text.c (A, B) and wmp_codec_bin.c (C), planes to faces
 * in wmp_brush.c, WAD textures in wad.c; the scene in wmp_scene.c and the
 * files it is split into (wmp_internal.h lists them). */
#include "wmp_internal.h"

#include "gsioi_head.h"
#include "gsioi_tokenizer.h"

#include <stdio.h>
#include <stdlib.h>

bool gsioi_wmp_reserve(gsio_arena *a, void **arr, size_t count, size_t *cap, size_t elem_size, size_t n,
                       gsio_error *err)
{
	if (n <= *cap) return true;
	void *m = gsioi_arena_regrow(a, *arr, count, n, elem_size, err);
	if (!m) return false;
	*arr = m;
	*cap = n;
	return true;
}

bool gsioi_wmp_grow(gsio_arena *a, void **arr, size_t count, size_t *cap, size_t elem_size,
                    gsio_error *err)
{
	if (count < *cap) return true;
	size_t ncap = *cap ? *cap : 8;
	while (ncap <= count)
		if (!gsioi_mul_size(ncap, 2, &ncap)) ncap = SIZE_MAX;
	return gsioi_wmp_reserve(a, arr, count, cap, elem_size, ncap, err);
}

/* Text A or B: the first non-blank bytes are a `//` comment or a keyword of
 * the grammar, and the file has no NUL byte in its first 512. */
static int sniff(const uint8_t *d, size_t n)
{
	if (n >= 4 && !memcmp(d, "WMPB", 4)) return 2;
	size_t i = 0;
	while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n')) i++;
	if (n - i >= 7 && !memcmp(d + i, "// WMP2", 7)) return 2;
	return 0;
}

bool gsioi_wmp_not_read(const uint8_t *head, size_t n, const char *path, gsio_error *err)
{
	if (n < 4 || head[3] < '0' || head[3] > '9') return false;
	if (!memcmp(head, "WMB", 3))
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, path, 0,
		          head[3] >= '4' && head[3] <= '7'
		              ? "a compiled GameStudio level (WMB%c), not a WMP: it is read as a .wmb "
		                "(gsio_wmb_decode)"
		              : "a compiled GameStudio level of version %c: gsio reads WMB4 to WMB7",
		          head[3]);
	else if (!memcmp(head, "WAD", 3))
		GSIO_FAIL(err, GSIO_ERR_UNSUPPORTED, path, 0,
		          "a WAD texture archive (WAD%c): gsio reads its textures only for a level; "
		          "convert the .wmp level that uses it, with --path naming this file's folder",
		          head[3]);
	else
		return false;
	return true;
}

bool gsioi_wmp_head_ok(const uint8_t *head, size_t n, bool whole, const char *path,
                       gsio_error *err)
{
	static const char *const words[] = {"blocks", "version", NULL};
	if (sniff(head, n)) return true;
	if (gsioi_wmp_not_read(head, n, path, err)) return false;
	return gsioi_tok_head_word((const char *)head, n, whole, path, WMP_TEXT_PUNCT, words, err);
}

/* borrow: the decoded file points into `data` (binary chunks, text elements
 * kept verbatim) instead of a copy of it, and the caller keeps data alive
 * for as long as the file lives. */
static gsio_wmp_file *wmp_decode(const uint8_t *data, size_t size, const char *name,
                                 const gsio_opts *opts, bool borrow, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_arena *a;
	const uint8_t *bytes;
	gsio_wmp_file *f =
	    gsioi_codec_begin(data, size, name, opts, borrow, sizeof(gsio_wmp_file), &a, &bytes, err);
	if (!f) return NULL;
	f->arena = a;
	bool ok;
	if (size >= 4 && !memcmp(bytes, "WMPB", 4)) {
		ok = gsioi_wmp_decode_binary(f, bytes, size, name, err);
	} else if (gsioi_wmp_not_read(bytes, size, name, err)) {
		ok = false;
	} else {
		ok = gsioi_wmp_decode_text(f, bytes, size, name, err);
	}
	if (!ok) {
		if (name && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", name);
		gsioi_arena_destroy(a);
		return NULL;
	}
	return f;
}

gsio_wmp_file *gsio_wmp_decode(const uint8_t *data, size_t size, const char *name,
                               const gsio_opts *opts, gsio_error *err)
{
	return wmp_decode(data, size, name, opts, false, err);
}

void gsio_wmp_file_free(gsio_wmp_file *file)
{
	if (file) gsioi_arena_destroy(file->arena);
}

int gsio_wmp_encode(const gsio_wmp_file *file, gsio_wmp_dialect dialect, uint8_t **out,
                    size_t *out_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (!file || !out || !out_size || (dialect != GSIO_WMP_TEXT_B && dialect != GSIO_WMP_BINARY)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, "", -1,
		          "gsio_wmp_encode needs a file, an output and dialect B or C");
		return -1;
	}
	gsioi_writer w = {0};
	bool ok = dialect == GSIO_WMP_BINARY ? gsioi_wmp_encode_binary(file, &w, err)
	                                     : gsioi_wmp_encode_text(file, &w, err);
	if (!ok || w.failed) {
		if (ok) GSIO_FAIL(err, GSIO_ERR_NOMEM, "", -1, "out of memory writing the level");
		gsioi_writer_free(&w);
		return -1;
	}
	*out = w.data;
	*out_size = w.size;
	return 0;
}

// -- Importer

static int wmp_can_read(const uint8_t *head, size_t n, const char *ext)
{
	if (sniff(head, n)) return 2;
	return ext && !strcmp(ext, "wmp") ? 1 : 0;
}

static gsio_scene *wmp_read(const uint8_t *data, size_t size, const char *path,
                            const gsio_opts *opts, gsio_error *err)
{
	// The scene copies what it keeps and the file is freed before the
	// caller's bytes are: the file borrows them. A second copy of the level
	// was the largest block of a level's load (prefab.wmp: 36 KB of the
	// data peak).
	gsio_wmp_file *f = wmp_decode(data, size, path, opts, true, err);
	if (!f) return NULL;
	gsio_scene *s = gsio_wmp_to_scene(f, path, opts, err);
	gsio_wmp_file_free(f);
	return s;
}

const gsio_importer gsio_wmp_importer = {
    "GameStudio WMP level", "wmp", 2, 710, wmp_can_read, wmp_read,
};
