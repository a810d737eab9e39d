/* scene -> HMP5. The terrain is first reduced to a height grid (from
 * scene->terrain, from a mesh whose vertices lie on a regular grid, or from
 * a heightmap image through gsio_hmp5_scene_from_heightmap), resized and
 * rescaled as the options say, then built as the codec's gsio_hmp_file and
 * encoded by it.
 *
 * Layout facts (docs/FORMATS.md §6.4, shadow-5.hmp): row 0 is the +y edge; x of
 * column 0 and y of the last row are offset[0], offset[1]; heights are
 * scale[2] * z + offset[2]; scale[0], scale[1] hold the grid's extent / 65535
 * (as shadow-5.hmp does; unused by readers); each frame's bbox is
 * (0, 0, zmin) .. (65535, 65535, zmax) in raw units; normals are the table
 * index of the inward normal. */
#include "write_internal.h"
#include "gsio_hmp.h"
#include "gsioi_image_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A height grid: frames_count layers of rows * columns heights, row 0 = +y. */
typedef struct grid {
	uint32_t cols, rows;
	float cell_x, cell_y;
	float origin[2];
	size_t frames_count;
	float *z;
	const char **names;      /**< per frame, NULL entries: "Frame <n>" */
	const gsio_image *color; /**< colour map, NULL if none */
	const gsio_image *detail;
} grid;

#define HMP_MAX_SIDE 65536u

// -- Grids from a scene

static const gsio_image *part_image(const gsio_scene *s, const gsio_mesh *m, bool detail)
{
	for (size_t k = 0; k < m->parts_count; k++) {
		int32_t mat = m->parts[k].material;
		if (mat < 0) continue;
		const gsio_texture *t = detail ? &s->materials[mat].detail_texture
		                               : &s->materials[mat].base_color_texture;
		if (t->image >= 0 && s->images[t->image].rgba) return &s->images[t->image];
	}
	return NULL;
}

static bool grid_from_terrain(const gsio_scene *s, gsio_arena *a, grid *g, gsio_error *err)
{
	const gsio_terrain *t = s->terrain;
	const gsio_mesh *m = &s->meshes[t->mesh];
	size_t nv = (size_t)t->columns * t->rows;
	g->cols = t->columns, g->rows = t->rows;
	g->cell_x = t->cell_x, g->cell_y = t->cell_y;
	g->origin[0] = t->origin[0], g->origin[1] = t->origin[1];
	// The mesh an HMP import makes is the grid itself (vertex = record): its
	// frames carry every height layer. Otherwise the raw first layer.
	bool frames = m->vertex_count == nv && m->frames_count > 0;
	g->frames_count = frames ? m->frames_count : 1;
	g->z = GSIO_NEW_ARRAY(a, float, nv * g->frames_count, err);
	g->names = GSIO_NEW_ARRAY(a, const char *, g->frames_count, err);
	GSIO_CHECK(g->z && g->names);
	float *fp = frames ? GSIO_NEW_ARRAY(a, float, nv * 3, err) : NULL; // one frame at a time
	GSIO_CHECK(!frames || fp);
	for (size_t f = 0; f < g->frames_count; f++) {
		if (frames) {
			g->names[f] = m->frames[f].name;
			GSIO_CHECK(gsio_mesh_frame_get(m, f, fp, NULL) >= 0);
			for (size_t v = 0; v < nv; v++) g->z[f * nv + v] = fp[3 * v + 2];
		} else {
			for (size_t v = 0; v < nv; v++)
				g->z[v] = t->height_scale * (float)t->raw_heights[v] + t->height_offset;
		}
	}
	g->color = part_image(s, m, false);
	g->detail = part_image(s, m, true);
	return true;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

/* Distinct values of xs (sorted, within tol), into out; returns the count. */
static size_t distinct(float *xs, size_t n, float tol)
{
	qsort(xs, n, sizeof(float), cmp_float);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || xs[i] - xs[k - 1] > tol) xs[k++] = xs[i];
	return k;
}

/* A mesh whose vertices (frame 0, model space of its node) sit on a regular
 * grid in x and y, every grid point covered. */
static bool grid_from_mesh(const gsio_scene *s, gsio_arena *a, grid *g, gsio_error *err)
{
	const gsio_mesh *m = NULL;
	int32_t node = -1;
	for (size_t i = 0; i < s->nodes_count && !m; i++)
		if (s->nodes[i].mesh >= 0) m = &s->meshes[s->nodes[i].mesh], node = (int32_t)i;
	if (!m && s->meshes_count) m = &s->meshes[0];
	if (!m || m->vertex_count < 4)
		return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		                 "the scene has no terrain and no mesh to make one from");
	size_t nv = m->vertex_count;
	float wm[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
	if (node >= 0) gsio_node_world_matrix(s, node, wm);
	float *p = GSIO_NEW_ARRAY(a, float, 3 * nv, err);
	float *xs = GSIO_NEW_ARRAY(a, float, nv, err), *ys = GSIO_NEW_ARRAY(a, float, nv, err);
	GSIO_CHECK(p && xs && ys);
	for (size_t v = 0; v < nv; v++) {
		const float *q = m->positions + 3 * v;
		for (int r = 0; r < 3; r++)
			p[3 * v + (size_t)r] = wm[r] * q[0] + wm[4 + r] * q[1] + wm[8 + r] * q[2] + wm[12 + r];
		xs[v] = p[3 * v], ys[v] = p[3 * v + 1];
	}
	float ext = fmaxf(m->bbox_max[0] - m->bbox_min[0], m->bbox_max[1] - m->bbox_min[1]);
	float tol = fmaxf(ext, 1.0f) * 1e-5f;
	size_t nc = distinct(xs, nv, tol), nr = distinct(ys, nv, tol);
	const char *why = NULL;
	if (nc < 2 || nr < 2) why = "fewer than 2 distinct x or y values";
	else if (nc > HMP_MAX_SIDE || nr > HMP_MAX_SIDE || nc * nr > (size_t)INT32_MAX) why = "too many grid points";
	float cx = nc >= 2 ? (xs[nc - 1] - xs[0]) / (float)(nc - 1) : 0;
	float cy = nr >= 2 ? (ys[nr - 1] - ys[0]) / (float)(nr - 1) : 0;
	for (size_t i = 1; !why && i < nc; i++)
		if (fabsf(xs[i] - xs[i - 1] - cx) > 1e-3f * cx) why = "x values are not evenly spaced";
	for (size_t i = 1; !why && i < nr; i++)
		if (fabsf(ys[i] - ys[i - 1] - cy) > 1e-3f * cy) why = "y values are not evenly spaced";
	if (why)
		return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
		                 "mesh '%s' is not a regular height grid (%s): no HMP5 terrain",
		                 m->name ? m->name : "", why);
	g->cols = (uint32_t)nc, g->rows = (uint32_t)nr;
	g->cell_x = cx, g->cell_y = cy;
	g->origin[0] = xs[0], g->origin[1] = ys[0];
	g->frames_count = 1;
	size_t cells = nc * nr;
	g->z = GSIO_NEW_ARRAY(a, float, cells, err);
	bool *set = GSIO_NEW_ARRAY(a, bool, cells, err);
	g->names = GSIO_NEW_ARRAY(a, const char *, 1, err);
	GSIO_CHECK(g->z && set && g->names);
	for (size_t v = 0; v < nv; v++) {
		long c = lroundf((p[3 * v] - g->origin[0]) / cx);
		long r = (long)nr - 1 - lroundf((p[3 * v + 1] - g->origin[1]) / cy);
		if (c < 0 || r < 0 || c >= (long)nc || r >= (long)nr) continue;
		size_t i = (size_t)r * nc + (size_t)c;
		if (!set[i]) g->z[i] = p[3 * v + 2], set[i] = true;
	}
	for (size_t i = 0; i < cells; i++)
		if (!set[i])
			return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1,
			                 "mesh '%s' is not a regular height grid (no vertex at column %zu, "
			                 "row %zu): no HMP5 terrain",
			                 m->name ? m->name : "", i % nc, i / nc);
	g->color = part_image(s, m, false);
	g->detail = part_image(s, m, true);
	return true;
}

// -- Options: size, cell, height range

/* Bilinear resampling of every layer to cols x rows; the extent stays. */
static bool resize(grid *g, gsio_arena *a, uint32_t cols, uint32_t rows, gsio_error *err)
{
	if (cols == g->cols && rows == g->rows) return true;
	size_t nv = (size_t)cols * rows, old = (size_t)g->cols * g->rows;
	float *z = GSIO_NEW_ARRAY(a, float, nv * g->frames_count, err);
	GSIO_CHECK(z);
	for (size_t f = 0; f < g->frames_count; f++)
		for (uint32_t r = 0; r < rows; r++)
			for (uint32_t c = 0; c < cols; c++) {
				double x = (double)c * (g->cols - 1) / (cols - 1), y = (double)r * (g->rows - 1) / (rows - 1);
				uint32_t c0 = (uint32_t)x, r0 = (uint32_t)y;
				uint32_t c1 = c0 + 1 < g->cols ? c0 + 1 : c0, r1 = r0 + 1 < g->rows ? r0 + 1 : r0;
				double u = x - c0, w = y - r0;
				const float *src = g->z + f * old;
				double top = src[(size_t)r0 * g->cols + c0] * (1 - u) + src[(size_t)r0 * g->cols + c1] * u;
				double bot = src[(size_t)r1 * g->cols + c0] * (1 - u) + src[(size_t)r1 * g->cols + c1] * u;
				z[f * nv + (size_t)r * cols + c] = (float)(top * (1 - w) + bot * w);
			}
	g->cell_x *= (float)(g->cols - 1) / (float)(cols - 1);
	g->cell_y *= (float)(g->rows - 1) / (float)(rows - 1);
	g->cols = cols, g->rows = rows;
	g->z = z;
	return true;
}

static bool apply_options(grid *g, gsio_arena *a, const gsio_hmp5_write_opts *o, gsio_error *err)
{
	uint32_t cols = o->columns ? o->columns : g->cols, rows = o->rows ? o->rows : g->rows;
	if (cols < 2 || rows < 2 || cols > HMP_MAX_SIDE || rows > HMP_MAX_SIDE ||
	    (uint64_t)cols * rows > INT32_MAX)
		return GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1,
		                 "a %u x %u grid: HMP5 needs 2 to %u vertices per side", cols, rows,
		                 HMP_MAX_SIDE);
	GSIO_CHECK(resize(g, a, cols, rows, err));
	if (o->cell_size > 0) {
		// Keep the centre where it was.
		float cx = g->origin[0] + g->cell_x * (float)(cols - 1) / 2;
		float cy = g->origin[1] + g->cell_y * (float)(rows - 1) / 2;
		g->cell_x = g->cell_y = o->cell_size;
		g->origin[0] = cx - o->cell_size * (float)(cols - 1) / 2;
		g->origin[1] = cy - o->cell_size * (float)(rows - 1) / 2;
	}
	size_t n = (size_t)cols * rows * g->frames_count;
	if (o->height_min < o->height_max) {
		float lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < n; i++) lo = fminf(lo, g->z[i]), hi = fmaxf(hi, g->z[i]);
		double k = hi > lo ? ((double)o->height_max - o->height_min) / ((double)hi - lo) : 0;
		for (size_t i = 0; i < n; i++) g->z[i] = (float)(o->height_min + (g->z[i] - lo) * k);
	}
	for (size_t i = 0; i < n; i++)
		if (!isfinite(g->z[i]))
			return GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "a height is not finite");
	return true;
}

// -- The file

static uint8_t grid_normal(const grid *g, const float *z, uint32_t r, uint32_t c)
{
	uint32_t c0 = c ? c - 1 : c, c1 = c + 1 < g->cols ? c + 1 : c;
	uint32_t r0 = r ? r - 1 : r, r1 = r + 1 < g->rows ? r + 1 : r;
	float dzdx = (z[(size_t)r * g->cols + c1] - z[(size_t)r * g->cols + c0]) / ((float)(c1 - c0) * g->cell_x);
	// y falls as the row grows (row 0 = +y).
	float dzdy = (z[(size_t)r0 * g->cols + c] - z[(size_t)r1 * g->cols + c]) / ((float)(r1 - r0) * g->cell_y);
	float n[3] = {-dzdx, -dzdy, 1};
	float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	for (int k = 0; k < 3; k++) n[k] /= len;
	return gsioi_normal_index(n);
}

static bool build_file(const grid *g, gsio_arena *a, const gsio_hmp5_write_opts *o,
                       const gsioi_warner *w, gsio_hmp_file *f, gsio_error *err)
{
	gsio_hmp_header *h = &f->header;
	memcpy(h->version, "HMP5", 4);
	f->version = 5;
	f->columns = g->cols, f->rows = g->rows;
	size_t nv = (size_t)g->cols * g->rows;
	gsioi_skin_opts so = {o->skin_encoding, o->palette, o->dither, o->mipmaps, 0};
	f->skins = GSIO_NEW_ARRAY(a, gsio_mdl_skin, 2, err);
	GSIO_CHECK(f->skins);
	if (g->color) GSIO_CHECK(gsioi_skin_encode(a, g->color, &so, w, &f->skins[f->skins_count++], err));
	if (g->detail && g->color) {
		// Readers take a second skin as the detail map only when its size differs.
		if (g->detail->width == g->color->width && g->detail->height == g->color->height)
			gsioi_wwarn(w, "the detail map has the colour map's size: left out (HMP readers "
			               "take a second skin of the same size as a colour skin)");
		else
			GSIO_CHECK(gsioi_skin_encode(a, g->detail, &so, w, &f->skins[f->skins_count++], err));
	}

	size_t total = nv * g->frames_count;
	float lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < total; i++) lo = fminf(lo, g->z[i]), hi = fmaxf(hi, g->z[i]);
	gsioi_quant_fit(lo, hi, 65535u, &h->scale[2], &h->offset[2]);
	h->scale[0] = (float)(g->cols - 1) * g->cell_x / 65535.0f;
	h->scale[1] = (float)(g->rows - 1) * g->cell_y / 65535.0f;
	h->offset[0] = g->origin[0], h->offset[1] = g->origin[1];
	h->nu1 = 2; // as shadow-5.hmp
	h->ftrisize_x = g->cell_x, h->ftrisize_y = g->cell_y;
	h->fnumverts_x = (float)g->cols;
	h->numskins = (int32_t)f->skins_count;
	h->numverts = (int32_t)nv;
	h->numframes = (int32_t)g->frames_count;
	f->frames = GSIO_NEW_ARRAY(a, gsio_hmp_frame, g->frames_count, err);
	GSIO_CHECK(f->frames);
	f->frames_count = g->frames_count;
	for (size_t fi = 0; fi < g->frames_count; fi++) {
		gsio_hmp_frame *fr = &f->frames[fi];
		fr->type = GSIO_HMP_FRAME_WORD;
		const char *name = g->names && g->names[fi] && *g->names[fi] ? g->names[fi] : NULL;
		char buf[40];
		if (name) gsioi_text_cp1252(buf, 17, name); // as the engine reads names
		else snprintf(buf, sizeof(buf), "Frame %zu", fi + 1);
		size_t len = strlen(buf);
		memcpy(fr->name, buf, len < 16 ? len : 16);
		fr->heights = GSIO_NEW_ARRAY(a, gsio_hmp_height, nv, err);
		GSIO_CHECK(fr->heights);
		const float *z = g->z + fi * nv;
		uint16_t zmin = 65535, zmax = 0;
		for (uint32_t r = 0; r < g->rows; r++)
			for (uint32_t c = 0; c < g->cols; c++) {
				size_t i = (size_t)r * g->cols + c;
				uint16_t q = (uint16_t)gsioi_quant(z[i], h->scale[2], h->offset[2], 65535u);
				fr->heights[i].z = q;
				fr->heights[i].normal = grid_normal(g, z, r, c);
				if (q < zmin) zmin = q;
				if (q > zmax) zmax = q;
			}
		fr->bbox_min.pos[2] = zmin;
		fr->bbox_max.pos[0] = fr->bbox_max.pos[1] = 65535;
		fr->bbox_max.pos[2] = zmax;
	}
	return true;
}

// -- Entry points

int gsio_hmp5_write(const gsio_scene *scene, const gsio_hmp5_write_opts *opts, uint8_t **out,
                    size_t *out_size, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	if (gsioi_write_start(scene, out, out_size, err)) return -1;
	static const gsio_hmp5_write_opts defaults;
	if (!opts) opts = &defaults;
	gsioi_warner w = {opts->warn, opts->warn_user};
	gsio_arena *a = gsioi_write_arena(opts->allocator, opts->memory_limit, err);
	if (!a) return -1;
	grid g = {0};
	gsio_hmp_file *f = GSIO_NEW_ARRAY(a, gsio_hmp_file, 1, err);
	gsio_scene expanded; // terrains kept as grids, expanded for the writer
	int rc = -1;
	if (f && gsioi_scene_expand_grids(scene, a, &expanded, &scene, err) && (scene->terrain ? grid_from_terrain(scene, a, &g, err) : grid_from_mesh(scene, a, &g, err)) &&
	    apply_options(&g, a, opts, err) && build_file(&g, a, opts, &w, f, err))
		rc = gsioi_hmp_encode_with(f, opts->allocator, opts->memory_limit, out, out_size, err);
	gsioi_arena_destroy(a);
	return rc;
}

int gsio_hmp5_write_file(const gsio_scene *scene, const char *path,
                         const gsio_hmp5_write_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	uint8_t *data = NULL;
	size_t size = 0;
	int rc = gsio_hmp5_write(scene, opts, &data, &size, err);
	return gsioi_write_finish(rc, path, data, size, opts && opts->no_replace,
	                          opts ? opts->allocator : NULL, err);
}

// -- Heightmap images

/* 16-bit grayscale PNGs keep their 16 bits (the RGBA8 decoder would cut
 * them to 8). */
gsio_scene *gsio_hmp5_scene_from_heightmap(const uint8_t *height_image, size_t height_size,
                                           const uint8_t *color_image, size_t color_size,
                                           const gsio_hmp5_write_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	static const gsio_hmp5_write_opts defaults;
	if (!opts) opts = &defaults;
	gsio_arena *a = gsioi_write_arena(opts->allocator, opts->memory_limit, err);
	if (!a) return NULL;
	gsio_scene *s = NULL;
	gsio_hmp_file *f = GSIO_NEW_ARRAY(a, gsio_hmp_file, 1, err);
	gsio_image color = {0};
	gsioi_warner w = {opts->warn, opts->warn_user};
	uint32_t iw = 0, ih = 0;
	uint16_t *px = NULL;
	if (!f) goto done;
	if (!height_image || !height_size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no heightmap image");
		goto done;
	}
	if (!gsioi_image_file_decode_gray16(height_image, height_size, "heightmap", a, &px, &iw, &ih, err))
		goto done;
	if (iw < 2 || ih < 2) {
		GSIO_FAIL(err, GSIO_ERR_LIMIT, NULL, -1, "a %u x %u heightmap: at least 2 pixels per side", iw, ih);
		goto done;
	}
	grid g = {0};
	g.cols = iw, g.rows = ih;
	g.cell_x = g.cell_y = 1;
	g.frames_count = 1;
	size_t nv = (size_t)iw * ih;
	g.z = GSIO_NEW_ARRAY(a, float, nv, err);
	if (!g.z) goto done;
	// A pixel is 0..65535 (8-bit images are widened by stb_image, 255 -> 65535):
	// heights 0..255 in 1/257 steps unless a range is asked for.
	for (size_t i = 0; i < nv; i++) g.z[i] = (float)px[i] / 257.0f;
	g.origin[0] = -(float)(iw - 1) / 2, g.origin[1] = -(float)(ih - 1) / 2; // centred
	if (color_image && color_size) {
		if (!gsioi_image_file_decode(color_image, color_size, "colour map", a, &color, err)) goto done;
		color.name = "colormap";
		color.source_type = -1;
		g.color = &color;
	}
	if (!apply_options(&g, a, opts, err) || !build_file(&g, a, opts, &w, f, err)) goto done;
	gsio_opts lo = {0};
	lo.allocator = opts->allocator;
	lo.memory_limit = opts->memory_limit;
	// Skins as the file will store them: the scene sees what a reader will.
	s = gsio_hmp_to_scene(f, "heightmap", &lo, err);
done:
	gsioi_arena_destroy(a);
	return s;
}
