/* Helpers shared by the MDL3/4/5 tests (mdl_test_util.h). */
#include "mdl_test_util.h"

#include "gsioi_internal.h"
#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Corpus helpers

static int is_mdl345(const uint8_t *d, size_t n)
{
	return n >= 4 && (!memcmp(d, "MDL3", 4) || !memcmp(d, "MDL4", 4) || !memcmp(d, "MDL5", 4));
}

size_t corpus_files(int supported, cfile **out)
{
	T_REQUIRE_CORPUS();
	char **list;
	size_t n = t_list_files(t_corpus_path("mdl"), ".mdl", &list), k = 0;
	cfile *files = calloc(n ? n : 1, sizeof(*files));
	assert_non_null(files);
	for (size_t i = 0; i < n; i++) {
		size_t size;
		uint8_t *data = t_read_file(list[i], &size);
		if (is_mdl345(data, size) != supported) {
			free(data);
			free(list[i]);
			continue;
		}
		files[k].path = list[i];
		files[k].base = gsioi_path_base(list[i]);
		files[k].data = data;
		files[k].size = size;
		k++;
	}
	free(list);
	*out = files;
	return k;
}

void free_files(cfile *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].path);
		free(files[i].data);
	}
	free(files);
}

gsio_mdl_file *decode_ok(const cfile *c)
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(c->data, c->size, c->base, NULL, &err);
	if (!f) {
		char buf[600];
		gsio_error_format(&err, buf, sizeof(buf));
		fail_msg("%s does not decode: %s", c->base, buf);
	}
	return f;
}

void validate_ok(const gsio_scene *s, const char *name)
{
	gsio_error err;
	if (gsio_scene_validate(s, &err)) fail_msg("%s: scene fails validation: %s", name, err.message);
}

gsio_scene *scene_ok(const gsio_mdl_file *f, const char *name)
{
	gsio_error err;
	gsio_scene *s = gsio_mdl_to_scene(f, name, NULL, &err);
	if (!s) fail_msg("%s: no scene: %s", name, err.message);
	validate_ok(s, name);
	return s;
}

/* The face normal of triangle t (counter-clockwise) in one frame, unnormalised. */
static void face_normal(const gsio_mesh *m, const float *pos, size_t t, double out[3])
{
	const uint32_t *ix = &m->indices[3 * t];
	double e1[3], e2[3];
	for (int k = 0; k < 3; k++) {
		e1[k] = (double)pos[3 * ix[1] + (size_t)k] - pos[3 * ix[0] + (size_t)k];
		e2[k] = (double)pos[3 * ix[2] + (size_t)k] - pos[3 * ix[0] + (size_t)k];
	}
	out[0] = e1[1] * e2[2] - e1[2] * e2[1];
	out[1] = e1[2] * e2[0] - e1[0] * e2[2];
	out[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

size_t corners_against_face(const gsio_mesh *m, const gsio_morph_frame *fr)
{
	size_t bad = 0;
	for (size_t t = 0; t < m->index_count / 3; t++) {
		double fn[3];
		face_normal(m, fr->positions, t, fn);
		for (int k = 0; k < 3; k++) {
			const float *n = fr->normals + 3 * (size_t)m->indices[3 * t + (size_t)k];
			if (fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2] <= 0) bad++;
		}
	}
	return bad;
}

int64_t split_pairs(const gsio_mesh *m)
{
	const gsio_extra *x = gsio_extras_get(&m->extras, "gsio:double_sided_pairs");
	if (!x) return 0;
	assert_int_equal(x->type, GSIO_EXTRA_INT);
	return x->i;
}

/* The base name without its extension: the root node's name. */
static void stem_of(const char *base, char *out, size_t n)
{
	snprintf(out, n, "%s", base);
	char *dot = strrchr(out, '.');
	if (dot && dot != out) *dot = 0;
}

size_t frame_size(const gsio_mdl_file *f, size_t i)
{
	size_t vs = f->frames[i].type == GSIO_MDL_FRAME_BYTE ? 4 : 8;
	return 4 + 16 + ((size_t)f->header.numverts + 2) * vs;
}

layout layout_of(const gsio_mdl_file *f)
{
	layout l;
	size_t at = GSIO_MDL_HEADER_SIZE;
	for (size_t i = 0; i < f->skins_count; i++)
		at += (f->version == 5 ? 12 : 4) + f->skins[i].pixels_size;
	l.uvs = at;
	l.tris = at + 4 * f->uvs_count;
	l.frames = l.tris + 12 * f->triangles_count;
	l.end = l.frames;
	for (size_t i = 0; i < f->frames_count; i++) l.end += frame_size(f, i);
	return l;
}

// -- Facts from the corpus's SOURCES.md and docs/FORMATS.md §3.7 (-1 / NULL: not stated there)

static const fact facts[] = {
    {"minigun_mdl5.mdl", 5, 314, 576, 117, 8, "shot%d", 0, 1, 2, 1272, 1114, "shot"},
    {"minigun_mdl3.mdl", 3, 314, 576, 117, 8, "shot%d", 0, 1, 2, 1272, 1114, "shot"},
    {"gate-101.mdl", 5, 802, 927, -1, 30, "frame%02d", 1, 1, 2, 512, 512, "frame"},
    {"mdl5-earth.mdl", 5, 2307, 4512, -1, -1, NULL, 0, 2, 4, 512, 256, NULL},
    {"mdl4-golem.mdl", 4, -1, -1, -1, 231, "Frame%d", 0, 1, 2, 512, 512, "Frame"},
    {"mdl4-human.mdl", 4, -1, -1, -1, 249, NULL, 0, 1, 2, 512, 512, NULL},
    {"mdl3-crystal.mdl", 3, -1, -1, -1, 1, NULL, 0, 1, 2, 256, 256, NULL},
    {"trashcan.mdl", 5, -1, -1, -1, 1, NULL, 0, 1, 2, 64, 128, NULL},
    {"PhosphoricAcid_MDl5.mdl", 5, 496, -1, 1, 1, NULL, 0, 0, -1, -1, -1, NULL},
};
const size_t facts_count = sizeof(facts) / sizeof(facts[0]);

const fact *fact_for(const char *base)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (!strcmp(facts[i].file, base)) return &facts[i];
	return NULL;
}

cfile *find_file(cfile *files, size_t n, const char *base)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(files[i].base, base)) return &files[i];
	fail_msg("corpus file %s is missing", base);
	return NULL;
}

// -- Conformance: the scene

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Distinct (position, uv) pairs of the triangles, counted without gsio. */
static size_t distinct_pairs(const gsio_mdl_file *f)
{
	size_t n = f->triangles_count * 3;
	uint32_t *keys = malloc((n ? n : 1) * sizeof(*keys));
	assert_non_null(keys);
	for (size_t t = 0; t < f->triangles_count; t++)
		for (int k = 0; k < 3; k++)
			keys[3 * t + (size_t)k] = ((uint32_t)(uint16_t)f->triangles[t].xyz[k] << 16) |
			                          (uint16_t)f->triangles[t].uv[k];
	qsort(keys, n, sizeof(*keys), cmp_u32);
	size_t d = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || keys[i] != keys[i - 1]) d++;
	free(keys);
	return d;
}

static void sub3(const float *a, const float *b, double *o)
{
	for (int k = 0; k < 3; k++) o[k] = (double)a[k] - (double)b[k];
}

static void cross3(const double *a, const double *b, double *o)
{
	o[0] = a[1] * b[2] - a[2] * b[1];
	o[1] = a[2] * b[0] - a[0] * b[2];
	o[2] = a[0] * b[1] - a[1] * b[0];
}

size_t ccw_agreeing(const gsio_mesh *m, const float *pos, const float *nrm,
                           size_t *degenerate)
{
	size_t agree = 0;
	*degenerate = 0;
	for (size_t t = 0; t < m->index_count / 3; t++) {
		const uint32_t *ix = &m->indices[3 * t];
		double e1[3], e2[3], c[3];
		sub3(pos + 3 * ix[1], pos + 3 * ix[0], e1);
		sub3(pos + 3 * ix[2], pos + 3 * ix[0], e2);
		cross3(e1, e2, c);
		double ns = 0;
		for (int k = 0; k < 3; k++)
			ns += c[k] * ((double)nrm[3 * ix[0] + (size_t)k] + nrm[3 * ix[1] + (size_t)k] +
			              nrm[3 * ix[2] + (size_t)k]);
		if (c[0] == 0 && c[1] == 0 && c[2] == 0) (*degenerate)++;
		else if (ns > 0) agree++;
	}
	return agree;
}

size_t outward_count(const gsio_mesh *m, const gsio_morph_frame *fr)
{
	float c[3];
	for (int k = 0; k < 3; k++) c[k] = 0.5f * (fr->bbox_min[k] + fr->bbox_max[k]);
	size_t out = 0;
	for (size_t v = 0; v < m->vertex_count; v++) {
		double d[3];
		sub3(fr->positions + 3 * v, c, d);
		double dot = 0;
		for (int k = 0; k < 3; k++) dot += d[k] * fr->normals[3 * v + (size_t)k];
		if (dot > 0) out++;
	}
	return out;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Directed edges (a -> b) that two triangles both use: in a consistently
 * wound mesh, a shared edge runs once each way. */
static size_t same_direction_edges(const gsio_mdl_file *f)
{
	size_t n = 3 * f->triangles_count, dup = 0;
	uint64_t *e = malloc((n ? n : 1) * sizeof(*e));
	assert_non_null(e);
	for (size_t t = 0; t < f->triangles_count; t++)
		for (int k = 0; k < 3; k++)
			e[3 * t + (size_t)k] = (uint64_t)(uint16_t)f->triangles[t].xyz[k] << 16 |
			                       (uint16_t)f->triangles[t].xyz[(k + 1) % 3];
	qsort(e, n, sizeof(*e), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (e[i] == e[i - 1]) dup += (i == 1 || e[i - 1] != e[i - 2]) ? 2 : 1;
	free(e);
	return dup;
}

void check_scene(const gsio_mdl_file *f, const gsio_scene *s, const char *base)
{
	const gsio_mdl_header *h = &f->header;
	assert_int_equal(s->format_version, f->version);
	assert_int_equal(s->source.vertices, h->numverts);
	assert_int_equal(s->source.triangles, f->triangles_count);
	assert_int_equal(s->source.uvs, f->uvs_count);
	// One image and one material per (non-DDS) skin, pixels decoded as stored.
	assert_int_equal(s->images_count, f->skins_count);
	// (+ the double-sided copy of the first when only some faces are pairs)
	size_t ds_copy = s->meshes_count && s->meshes[0].parts_count == 2 ? 1 : 0;
	assert_int_equal(s->materials_count, f->skins_count + ds_copy);
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		const gsio_mdl_skin *sk = &f->skins[i];
		const gsio_material *mat = &s->materials[i];
		assert_int_equal(mat->base_color_texture.image, (int32_t)i);
		assert_int_equal(mat->base_color_texture.wrap_u, GSIO_WRAP_REPEAT);
		assert_int_equal(mat->base_color_texture.wrap_v, GSIO_WRAP_REPEAT);
		assert_int_equal(mat->detail_texture.image, -1);
		const gsio_extra *st = gsio_extras_get(&mat->extras, "gsio:skin_type");
		assert_non_null(st);
		assert_int_equal(st->i, sk->type);
		assert_int_equal(im->width, sk->width);
		assert_int_equal(im->height, sk->height);
		assert_int_equal(im->source_type, sk->type);
		// First and last texel, decoded here without gsio.
		size_t last = (size_t)sk->width * (size_t)sk->height - 1;
		const size_t which[2] = {0, last};
		for (int w = 0; w < 2; w++) {
			size_t t = which[w];
			uint8_t want[4] = {0, 0, 0, 255};
			if ((sk->type & 7) == 2) {
				unsigned v = sk->pixels[2 * t] | (unsigned)sk->pixels[2 * t + 1] << 8;
				unsigned r = v >> 11, g = (v >> 5) & 63, b = v & 31;
				want[0] = (uint8_t)(r << 3 | r >> 2);
				want[1] = (uint8_t)(g << 2 | g >> 4);
				want[2] = (uint8_t)(b << 3 | b >> 2);
			} else if ((sk->type & 7) == 4) {
				want[0] = sk->pixels[3 * t + 2];
				want[1] = sk->pixels[3 * t + 1];
				want[2] = sk->pixels[3 * t];
			} else {
				continue;
			}
			assert_memory_equal(im->rgba + 4 * t, want, 4);
		}
	}
	if (!f->frames_count || !h->numverts) {
		assert_int_equal(s->meshes_count, 0);
		assert_int_equal(s->nodes_count, 0);
		return;
	}
	assert_int_equal(s->meshes_count, 1);
	const gsio_mesh *m = &s->meshes[0];
	assert_int_equal(m->skin, -1);
	int64_t folded = split_pairs(m);
	assert_int_equal(m->parts[0].first_index, 0);
	assert_int_equal(m->parts[0].material, s->materials_count ? 0 : -1);
	if (!folded || 2 * (size_t)folded == f->triangles_count) {
		// No pairs, or every face a pair: one part (double-sided when folded).
		assert_int_equal(m->parts_count, 1);
		assert_int_equal(m->parts[0].index_count, m->index_count);
		if (folded && s->materials_count) assert_true(s->materials[0].double_sided);
	} else {
		// Single faces first, then one face of each pair with a double-sided copy.
		assert_int_equal(m->parts_count, 2);
		assert_int_equal(m->parts[1].index_count, 3 * (size_t)folded);
		assert_true(m->parts[1].material >= 0);
		assert_true(s->materials[m->parts[1].material].double_sided);
		assert_false(s->materials[0].double_sided);
	}
	// One root node, named after the file, places the mesh.
	char stem[64];
	stem_of(base, stem, sizeof(stem));
	assert_int_equal(s->nodes_count, 1);
	assert_string_equal(s->nodes[0].name, stem);
	assert_int_equal(s->nodes[0].parent, -1);
	assert_int_equal(s->nodes[0].mesh, 0);
	// Welding: one scene vertex per distinct (position, uv) pair.
	size_t pairs = distinct_pairs(f);
	assert_int_equal(m->vertex_count, pairs);
	// Each scene triangle is a file triangle with its winding reversed; a face
	// stored twice (once each way round) appears once (folded).
	static const int map[3] = {0, 2, 1};
	size_t ntri_file = f->triangles_count, ntri_scene = m->index_count / 3;
	assert_int_equal(ntri_scene, ntri_file - (size_t)folded);
	uint8_t *used = calloc(ntri_file ? ntri_file : 1, 1);
	assert_non_null(used);
	for (size_t t = 0; t < ntri_scene; t++) {
		const uint32_t *ix = &m->indices[3 * t];
		size_t u = 0;
		for (; u < ntri_file; u++) {
			if (used[u]) continue;
			int k = 0;
			for (; k < 3; k++)
				if (m->source_vertex[ix[k]] != (uint32_t)f->triangles[u].xyz[map[k]] ||
				    m->source_uv[ix[k]] != (uint32_t)f->triangles[u].uv[map[k]])
					break;
			if (k == 3) break;
		}
		if (u == ntri_file) fail_msg("%s: scene triangle %zu is no file triangle", base, t);
		used[u] = 1;
	}
	// What is left over: the other face of each folded pair (same positions,
	// the other way round).
	size_t left = 0;
	for (size_t u = 0; u < ntri_file; u++) {
		if (used[u]) continue;
		left++;
		const int16_t *x = f->triangles[u].xyz;
		bool partner = false;
		for (size_t t = 0; t < ntri_scene && !partner; t++) {
			const uint32_t *ix = &m->indices[3 * t];
			for (int r = 0; r < 3 && !partner; r++)
				partner = m->source_vertex[ix[r]] == (uint32_t)x[0] &&
				          m->source_vertex[ix[(r + 1) % 3]] == (uint32_t)x[1] &&
				          m->source_vertex[ix[(r + 2) % 3]] == (uint32_t)x[2];
		}
		if (!partner) fail_msg("%s: file triangle %zu was dropped without its pair", base, u);
	}
	free(used);
	assert_int_equal(left, (size_t)folded);
	// Positions, normals and UVs per frame, as the file says.
	assert_int_equal(m->frames_count, f->frames_count);
	assert_ptr_equal(m->positions, m->frames[0].positions);
	int uw = f->skins_count ? f->skins[0].width : 0, uh = f->skins_count ? f->skins[0].height : 0;
	if (uw > 0) {
		assert_non_null(m->uvs);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const gsio_mdl_uv *uv = &f->uvs[m->source_uv[v]];
			assert_true(fabsf(m->uvs[2 * v] - ((float)uv->u + 0.5f) / (float)uw) < 1e-6f);
			assert_true(fabsf(m->uvs[2 * v + 1] - ((float)uv->v + 0.5f) / (float)uh) < 1e-6f);
		}
	}
	size_t nf = f->frames_count;
	float *fpos = malloc(m->vertex_count * 3 * sizeof(float));
	float *fnrm = malloc(m->vertex_count * 3 * sizeof(float));
	assert_non_null(fpos);
	assert_non_null(fnrm);
	for (size_t fr = 0; fr < nf; fr++) {
		const gsio_morph_frame *mf = &m->frames[fr];
		assert_string_equal(mf->name, f->frames[fr].name);
		assert_int_equal(gsio_mesh_frame_get(m, fr, fpos, fnrm), 1);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const gsio_mdl_vertex *pv = &f->frames[fr].verts[m->source_vertex[v]];
			double len = 0;
			for (int k = 0; k < 3; k++) {
				float want = h->scale[k] * (float)pv->pos[k] + h->offset[k];
				assert_true(fpos[3 * v + (size_t)k] == want);
				float nk = fnrm[3 * v + (size_t)k];
				len += (double)nk * nk;
				if (pv->normal < GSIO_NORMAL_COUNT) assert_true(nk == -gsio_anorms[pv->normal][k]);
			}
			assert_true(fabs(sqrt(len) - 1.0) < 1e-5);
		}
	}
	free(fpos);
	free(fnrm);
	// Orientation, frame 0: report, and require "most" to agree.
	size_t degenerate = 0;
	size_t agree = ccw_agreeing(m, m->frames[0].positions, m->frames[0].normals, &degenerate);
	size_t ntri = ntri_scene;
	size_t outward = outward_count(m, &m->frames[0]);
	print_message("%-24s %5zu welded (pairs %5zu); CCW agrees with normals: %zu of %zu "
	              "(%zu degenerate); normals away from bbox centre: %zu of %zu\n",
	              base, m->vertex_count, pairs, agree, ntri, degenerate, outward, m->vertex_count);
	// A file whose own winding is inconsistent (an edge run twice in the same
	// direction: trashcan.mdl has 52 of 176) cannot agree with anything.
	size_t bad_edges = same_direction_edges(f);
	print_message("%-24s %zu of %zu directed edges are shared in the same direction\n", base,
	              bad_edges, 3 * ntri);
	if (bad_edges * 20 <= 3 * ntri && ntri - degenerate > 0 &&
	    (double)agree < 0.95 * (double)(ntri - degenerate))
		fail_msg("%s: only %zu of %zu triangles are counter-clockwise around their normals", base,
		         agree, ntri - degenerate);
	// The face kept of each pair is the one whose winding agrees with its
	// vertices' normals (decided on frame 0).
	if (folded) {
		size_t first = m->parts_count == 2 ? m->parts[1].first_index / 3 : 0;
		for (size_t t = first; t < ntri_scene; t++) {
			const uint32_t *ix = &m->indices[3 * t];
			double fn[3], sum = 0;
			face_normal(m, m->frames[0].positions, t, fn);
			for (int k = 0; k < 3; k++)
				for (int a = 0; a < 3; a++)
					sum += fn[a] * m->frames[0].normals[3 * (size_t)ix[k] + (size_t)a];
			assert_true(sum >= 0); // 0: normals in the face's plane, no side to tell
		}
		print_message("%-24s %lld double-sided pairs folded; corners against their face: %zu of "
		              "%zu\n",
		              base, (long long)folded, corners_against_face(m, &m->frames[0]),
		              3 * ntri_scene);
	}
	// Clips: one morph animation each, consecutive, covering every frame once,
	// in order; none for a single frame.
	size_t next = 0;
	for (size_t c = 0; c < s->animations_count; c++) {
		const gsio_animation *a = &s->animations[c];
		assert_true(a->frames_count > 0);
		assert_true(a->fps == GSIO_DEFAULT_FPS);
		assert_int_equal(a->channels_count, 1);
		assert_int_equal(a->channels[0].node, 0);
		assert_int_equal(a->channels[0].path, GSIO_PATH_MORPH);
		for (size_t k = 0; k < a->frames_count; k++)
			assert_int_equal(a->channels[0].frames[k], next + k);
		next += a->frames_count;
	}
	assert_int_equal(next, nf >= 2 ? nf : 0);
}
