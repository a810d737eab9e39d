/* The MDL3/4/5 codec and scene: conformance over every corpus file, bad
 * input (truncation, corrupted fields, allocation failures, limits) and the
 * project's own samples/. */
#include "test_util.h"

#include "gsioi_internal.h"
#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The sample generator's code: the test regenerates samples/ in memory and
// knows the pixels each skin was meant to have.
#define GSIO_GEN_SAMPLES_NO_MAIN
#include "../tools/gen_samples.c"

// -- Corpus helpers

typedef struct cfile {
	char *path;
	const char *base;
	uint8_t *data;
	size_t size;
} cfile;

static int is_mdl345(const uint8_t *d, size_t n)
{
	return n >= 4 && (!memcmp(d, "MDL3", 4) || !memcmp(d, "MDL4", 4) || !memcmp(d, "MDL5", 4));
}

/* Every *.mdl of the corpus; `supported` picks MDL3/4/5 (1) or the others
 * (0). Skips the test when the corpus is absent. */
static size_t corpus_files(int supported, cfile **out)
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

static void free_files(cfile *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(files[i].path);
		free(files[i].data);
	}
	free(files);
}

static gsio_mdl_file *decode_ok(const cfile *c)
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

/* Every scene an importer returns must pass the scene model's own check. */
static void validate_ok(const gsio_scene *s, const char *name)
{
	gsio_error err;
	if (gsio_scene_validate(s, &err)) fail_msg("%s: scene fails validation: %s", name, err.message);
}

static gsio_scene *scene_ok(const gsio_mdl_file *f, const char *name)
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

/* Corners (triangle, vertex) whose vertex normal points away from the face. */
static size_t corners_against_face(const gsio_mesh *m, const gsio_morph_frame *fr)
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

/* The pairs count the importer recorded (0 when none were split). */
static int64_t split_pairs(const gsio_mesh *m)
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

static size_t frame_size(const gsio_mdl_file *f, size_t i)
{
	size_t vs = f->frames[i].type == GSIO_MDL_FRAME_BYTE ? 4 : 8;
	return 4 + 16 + ((size_t)f->header.numverts + 2) * vs;
}

/* Byte offsets of the parts of a decoded file (recomputed from its arrays). */
typedef struct layout {
	size_t uvs, tris, frames, end;
} layout;

static layout layout_of(const gsio_mdl_file *f)
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

typedef struct fact {
	const char *file;
	int version;
	int verts, tris, skinverts, frames;
	const char *name_fmt; /**< printf format of frame i's name, with first_index */
	int first_index;
	int skins, skin_type, skin_w, skin_h;
	const char *clip;     /**< the one clip all frames form */
} fact;

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

static const fact *fact_for(const char *base)
{
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
		if (!strcmp(facts[i].file, base)) return &facts[i];
	return NULL;
}

// -- Conformance: decode, counts, names, skins

static void test_corpus_decode(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files), checked_facts = 0;
	assert_true(n >= 9); // the corpus lists nine MDL3/4/5 files
	for (size_t i = 0; i < n; i++) {
		gsio_mdl_file *f = decode_ok(&files[i]);
		const gsio_mdl_header *h = &f->header;
		assert_int_equal(f->version, files[i].data[3] - '0');
		assert_int_equal(f->skins_count, h->numskins);
		assert_int_equal(f->uvs_count, h->numskinverts);
		assert_int_equal(f->triangles_count, h->numtris);
		assert_int_equal(f->frames_count, h->numframes);
		// The parts add up to the file: nothing skipped, nothing read twice.
		layout l = layout_of(f);
		assert_int_equal(l.end + f->trailing_size, files[i].size);
		for (size_t k = 0; k < f->frames_count; k++) {
			// MDL3 frames are byte-packed; MDL4/5 files in the corpus use words.
			assert_int_equal(f->frames[k].type, f->version == 3 ? 0 : 2);
			assert_true(memchr(f->frames[k].name, 0, 16) != NULL);
			assert_true(f->frames[k].name[0] != 0);
		}
		if (f->version == 5) {
			// Real MDL5 files leave the header's skin size at 0.
			assert_int_equal(h->skinwidth, 0);
			assert_int_equal(h->skinheight, 0);
		} else {
			for (size_t k = 0; k < f->skins_count; k++) {
				assert_int_equal(f->skins[k].width, h->skinwidth);
				assert_int_equal(f->skins[k].height, h->skinheight);
			}
		}
		const fact *ft = fact_for(files[i].base);
		if (ft) {
			checked_facts++;
			assert_int_equal(f->version, ft->version);
			if (ft->verts >= 0) assert_int_equal(h->numverts, ft->verts);
			if (ft->tris >= 0) assert_int_equal(h->numtris, ft->tris);
			if (ft->skinverts >= 0) assert_int_equal(h->numskinverts, ft->skinverts);
			if (ft->frames >= 0) assert_int_equal(f->frames_count, ft->frames);
			assert_int_equal(f->skins_count, ft->skins);
			for (size_t k = 0; k < f->skins_count; k++) {
				assert_int_equal(f->skins[k].type, ft->skin_type);
				assert_int_equal(f->skins[k].width, ft->skin_w);
				assert_int_equal(f->skins[k].height, ft->skin_h);
			}
			if (ft->name_fmt)
				for (size_t k = 0; k < f->frames_count; k++) {
					char want[32];
					snprintf(want, sizeof(want), ft->name_fmt, (int)k + ft->first_index);
					if (strcmp(f->frames[k].name, want))
						fail_msg("%s frame %zu is '%.16s', expected '%s'", files[i].base, k,
						         f->frames[k].name, want);
				}
		}
		print_message("%-24s MDL%d %5d verts %5d tris %5d skin verts %3zu frames %zu skins, "
		              "%zu trailing bytes\n",
		              files[i].base, f->version, (int)h->numverts, (int)h->numtris,
		              (int)h->numskinverts, f->frames_count, f->skins_count, f->trailing_size);
		gsio_mdl_file_free(f);
	}
	assert_int_equal(checked_facts, sizeof(facts) / sizeof(facts[0]));
	free_files(files, n);
}

static cfile *find_file(cfile *files, size_t n, const char *base)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(files[i].base, base)) return &files[i];
	fail_msg("corpus file %s is missing", base);
	return NULL;
}

static void test_minigun_mdl3_vs_mdl5(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	gsio_mdl_file *f3 = decode_ok(find_file(files, n, "minigun_mdl3.mdl"));
	gsio_mdl_file *f5 = decode_ok(find_file(files, n, "minigun_mdl5.mdl"));
	for (int k = 0; k < 3; k++) {
		double ratio = (double)f3->header.scale[k] / (double)f5->header.scale[k];
		if (fabs(ratio - 257.0) > 257.0 * 1e-5)
			fail_msg("axis %d: MDL3 scale / MDL5 scale = %.6f, expected 257", k, ratio);
		assert_true(f3->header.offset[k] == f5->header.offset[k]);
	}
	// Same model: the 8-bit positions agree with the 16-bit ones within one
	// 8-bit step, frame by frame.
	double worst = 0;
	for (size_t fr = 0; fr < f5->frames_count; fr++)
		for (size_t v = 0; v < (size_t)f5->header.numverts; v++)
			for (int k = 0; k < 3; k++) {
				double p3 = f3->header.scale[k] * f3->frames[fr].verts[v].pos[k] + f3->header.offset[k];
				double p5 = f5->header.scale[k] * f5->frames[fr].verts[v].pos[k] + f5->header.offset[k];
				double d = fabs(p3 - p5) / f3->header.scale[k];
				if (d > worst) worst = d;
			}
	print_message("minigun MDL3 vs MDL5: worst position difference %.3f MDL3 steps\n", worst);
	assert_true(worst <= 1.0);
	gsio_mdl_file_free(f3);
	gsio_mdl_file_free(f5);
	free_files(files, n);
}

// -- Conformance: bounding boxes

/* Files whose stored frame bbox does not contain their vertices (measured):
 * PhosphoricAcid_MDl5 stores a box that misses vertices by up to 29378 steps,
 * mdl3-crystal a max of (7, 254, 42) for vertices reaching (220, 254, 254).
 * So the scene's bboxes come from the decoded positions, never from these.
 * Listed so the test fails if that changes or another file does it too. */
static const char *const bad_bbox_files[] = {"PhosphoricAcid_MDl5.mdl", "mdl3-crystal.mdl"};

static void test_corpus_bboxes(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	size_t total_frames = 0, total_exact = 0, total_full = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_mdl_file *f = decode_ok(&files[i]);
		const gsio_mdl_header *h = &f->header;
		size_t exact = 0, full = 0;
		double worst_out = 0; // how far a vertex lies outside, in quantisation steps
		unsigned top = f->version == 3 ? 255 : 65535;
		for (size_t fr = 0; fr < f->frames_count; fr++) {
			const gsio_mdl_frame *F = &f->frames[fr];
			int is_exact = 1, is_full = 1;
			for (int k = 0; k < 3; k++) {
				unsigned mn = 65535, mx = 0;
				for (size_t v = 0; v < (size_t)h->numverts; v++) {
					unsigned p = F->verts[v].pos[k];
					if (p < mn) mn = p;
					if (p > mx) mx = p;
				}
				if (h->numverts && (mn != F->bbox_min.pos[k] || mx != F->bbox_max.pos[k]))
					is_exact = 0;
				if (F->bbox_min.pos[k] != 0 || F->bbox_max.pos[k] != top) is_full = 0;
				float step = fabsf(h->scale[k]);
				float bmin = h->scale[k] * F->bbox_min.pos[k] + h->offset[k];
				float bmax = h->scale[k] * F->bbox_max.pos[k] + h->offset[k];
				for (size_t v = 0; v < (size_t)h->numverts; v++) {
					float p = h->scale[k] * F->verts[v].pos[k] + h->offset[k];
					double out = 0;
					if (p < bmin) out = (bmin - p) / step;
					if (p > bmax) out = (p - bmax) / step;
					if (out > worst_out) worst_out = out;
				}
			}
			exact += (size_t)is_exact;
			full += (size_t)(is_full && !is_exact);
		}
		print_message("%-24s stored bbox: exact vertex min/max in %zu of %zu frames, the whole "
		              "0..%u range in %zu; worst vertex outside it: %.2f steps\n",
		              files[i].base, exact, f->frames_count, top, full, worst_out);
		int known_bad = 0;
		for (size_t k = 0; k < sizeof(bad_bbox_files) / sizeof(bad_bbox_files[0]); k++)
			if (!strcmp(files[i].base, bad_bbox_files[k])) known_bad = 1;
		if (known_bad && worst_out <= 1.0)
			fail_msg("%s: listed as having a bad stored bbox, but it is fine now", files[i].base);
		if (!known_bad && worst_out > 1.0)
			fail_msg("%s: a vertex lies %.2f steps outside its frame's stored bbox",
			         files[i].base, worst_out);
		total_frames += f->frames_count;
		total_exact += exact;
		total_full += full;
		gsio_mdl_file_free(f);
	}
	print_message("stored bboxes: exact in %zu of %zu frames, whole range in %zu\n", total_exact,
	              total_frames, total_full);
	free_files(files, n);
}

// -- Conformance: decode -> encode

static void test_corpus_roundtrip(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	for (size_t i = 0; i < n; i++) {
		gsio_mdl_file *f = decode_ok(&files[i]);
		T_ASSERT_ENCODES_TO(gsio_mdl_encode, f, files[i].data, files[i].size, files[i].base);
		gsio_mdl_file_free(f);
	}
	print_message("%zu MDL3/4/5 files re-encode byte-identical\n", n);
	free_files(files, n);
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

/* Triangles whose geometric normal agrees with the summed vertex normals;
 * degenerate ones (zero area) are counted in *degenerate. */
static size_t ccw_agreeing(const gsio_mesh *m, const float *pos, const float *nrm,
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

/* Vertices whose normal points away from the centre of the frame's bbox. */
static size_t outward_count(const gsio_mesh *m, const gsio_morph_frame *fr)
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

static void check_scene(const gsio_mdl_file *f, const gsio_scene *s, const char *base)
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

static const gsio_mesh *m_of(const gsio_scene *s)
{
	assert_int_equal(s->meshes_count, 1);
	return &s->meshes[0];
}

static void test_corpus_scene(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	for (size_t i = 0; i < n; i++) {
		gsio_mdl_file *f = decode_ok(&files[i]);
		gsio_scene *s = scene_ok(f, files[i].base);
		check_scene(f, s, files[i].base);
		const fact *ft = fact_for(files[i].base);
		if (ft && ft->clip) {
			assert_int_equal(s->animations_count, 1);
			assert_string_equal(s->animations[0].name, ft->clip);
			assert_int_equal(s->animations[0].channels[0].frames[0], 0);
			assert_int_equal(s->animations[0].frames_count, ft->frames);
		}
		if (!strcmp(files[i].base, "trashcan.mdl")) {
			// Every face of the trash can is stored twice, once each way round.
			assert_int_equal(split_pairs(m_of(s)), 38);
			assert_int_equal(f->triangles_count, 76);
		}
		const gsio_mesh *m = s->meshes_count ? &s->meshes[0] : NULL;
		if (!strcmp(files[i].base, "minigun_mdl5.mdl") || !strcmp(files[i].base, "mdl5-earth.mdl")) {
			// docs/FORMATS.md §2.2: every stored triangle agrees with the table normals there.
			size_t deg;
			assert_int_equal(ccw_agreeing(m, m->positions, m->normals, &deg),
			                 f->triangles_count);
		}
		if (!strcmp(files[i].base, "mdl5-earth.mdl")) {
			// A globe centred on the origin: every outward normal points away from it.
			assert_int_equal(outward_count(m, &m->frames[0]), m->vertex_count);
			for (size_t v = 0; v < m->vertex_count; v++) {
				double dot = 0;
				for (int k = 0; k < 3; k++)
					dot += (double)m->positions[3 * v + (size_t)k] * m->normals[3 * v + (size_t)k];
				assert_true(dot > 0);
			}
			assert_int_equal(s->images_count, 2);
		}
		if (!strcmp(files[i].base, "minigun_mdl5.mdl")) {
			assert_int_equal(m->vertex_count, 433); // welded from 314 positions, 117 uvs
			assert_int_equal(s->animations_count, 1);
			assert_string_equal(s->animations[0].name, "shot");
			assert_int_equal(s->animations[0].frames_count, 8);
		}
		// With GSIO_OPT_NO_ANIMATION only the first frame is kept.
		gsio_opts opts = {0};
		opts.flags = GSIO_OPT_NO_ANIMATION;
		opts.fps = 25;
		gsio_scene *s1 = gsio_mdl_to_scene(f, files[i].base, &opts, NULL);
		assert_non_null(s1);
		validate_ok(s1, files[i].base);
		if (s1->meshes_count) {
			assert_int_equal(s1->meshes[0].frames_count, 1);
			assert_int_equal(s1->animations_count, 0); // one frame: no animation
		}
		gsio_scene_free(s1);
		gsio_scene_free(s);
		gsio_mdl_file_free(f);
	}
	free_files(files, n);
}

/* Frames as floats: scale * raw + offset in float, the
 * negated table normal (index 0 for one past the table), per scene vertex;
 * the box of those floats. Computed here from the codec's decoded vertices,
 * independently of the importer. */
static void float_frame(const gsio_mdl_file *f, const gsio_mesh *m, size_t fr, float *pos,
                      float *nrm, float mn[3], float mx[3])
{
	const gsio_mdl_header *h = &f->header;
	for (size_t v = 0; v < m->vertex_count; v++) {
		const gsio_mdl_vertex *pv = &f->frames[fr].verts[m->source_vertex[v]];
		unsigned ni = pv->normal < GSIO_NORMAL_COUNT ? pv->normal : 0;
		for (int k = 0; k < 3; k++) {
			pos[3 * v + (size_t)k] = h->scale[k] * (float)pv->pos[k] + h->offset[k];
			nrm[3 * v + (size_t)k] = -gsio_anorms[ni][k];
		}
	}
	for (int k = 0; k < 3; k++) {
		mn[k] = mx[k] = m->vertex_count ? pos[k] : 0;
		for (size_t v = 1; v < m->vertex_count; v++) {
			float x = pos[3 * v + (size_t)k];
			if (x < mn[k]) mn[k] = x;
			if (x > mx[k]) mx[k] = x;
		}
	}
}

/* Every frame of every corpus MDL2-5, read through gsio_mesh_frame_get()
 * from the packed scene (loaded copying, loaded borrowing the caller's
 * bytes, and built from a decoded file), is bit for bit the float frame
 * computed here from the decoded file (float_frame); so are the boxes. */
static void test_corpus_frames_packed(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	size_t frames_checked = 0, borrowed = 0;
	for (size_t i = 0; i < n; i++) {
		gsio_mdl_file *f = decode_ok(&files[i]);
		for (int way = 0; way < 3; way++) {
			gsio_opts opts = {0};
			gsio_error err;
			gsio_scene *s;
			if (way == 2) {
				s = gsio_mdl_to_scene(f, files[i].base, NULL, &err);
			} else {
				opts.flags = way == 1 ? GSIO_OPT_BORROW : 0;
				s = gsio_load_memory(files[i].data, files[i].size, files[i].base, &opts, &err);
			}
			if (!s) fail_msg("%s (way %d): %s", files[i].base, way, err.message);
			validate_ok(s, files[i].base);
			if (!s->meshes_count) {
				gsio_scene_free(s);
				continue;
			}
			const gsio_mesh *m = &s->meshes[0];
			assert_non_null(m->packed);
			assert_int_equal(m->frames_count, f->frames_count);
			size_t n3 = m->vertex_count * 3;
			float *pos = malloc(n3 * sizeof(float)), *nrm = malloc(n3 * sizeof(float));
			float *wp = malloc(n3 * sizeof(float)), *wn = malloc(n3 * sizeof(float));
			assert_true(pos && nrm && wp && wn);
			for (size_t fr = 0; fr < m->frames_count; fr++) {
				float mn[3], mx[3];
				float_frame(f, m, fr, wp, wn, mn, mx);
				assert_int_equal(gsio_mesh_frame_get(m, fr, pos, nrm), 1);
				if (memcmp(pos, wp, n3 * sizeof(float)) || memcmp(nrm, wn, n3 * sizeof(float)))
					fail_msg("%s (way %d): frame %zu differs from the float frame", files[i].base,
					         way, fr);
				for (int k = 0; k < 3; k++) {
					assert_true(m->frames[fr].bbox_min[k] == mn[k]);
					assert_true(m->frames[fr].bbox_max[k] == mx[k]);
				}
				assert_non_null(m->frames[fr].packed);
				if (fr > 0) assert_null(m->frames[fr].positions);
				bool inside = m->frames[fr].packed >= files[i].data &&
				              m->frames[fr].packed < files[i].data + files[i].size;
				bool same = (f->frames[fr].type == GSIO_MDL_FRAME_WORD) == (m->packed->coord_size == 2);
				if (way == 1 && same) assert_true(inside);
				if (way != 1) assert_false(inside);
				borrowed += way == 1 && inside;
				frames_checked++;
			}
			assert_int_equal(gsio_mesh_frame_get(m, m->frames_count, pos, nrm), -1);
			free(pos), free(nrm), free(wp), free(wn);
			gsio_scene_free(s);
		}
		gsio_mdl_file_free(f);
	}
	print_message("%zu frames read through gsio_mesh_frame_get, bit-identical to the float "
	              "frames (%zu of them borrowed from the caller's bytes)\n",
	              frames_checked, borrowed);
	assert_true(frames_checked > 0);
	free_files(files, n);
}

/* A normal index past the 162-entry table, in every frame of golem (word
 * frames, many) and trashcan (one frame): the load warns with the count of
 * such records among the vertices the mesh shows and reads them as normal 0,
 * borrowed or copied; the boxes stay those of the positions. */
static void test_packed_bad_normals(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	const char *names[] = {"mdl4-golem.mdl", "trashcan.mdl", "mdl3-crystal.mdl"};
	for (size_t i = 0; i < 3; i++) {
		cfile *c = find_file(files, n, names[i]);
		gsio_mdl_file *f = decode_ok(c);
		layout l = layout_of(f);
		uint8_t *copy = malloc(c->size);
		assert_non_null(copy);
		memcpy(copy, c->data, c->size);
		// Source vertex 0 of every frame gets normal index 200.
		size_t at = l.frames;
		for (size_t fr = 0; fr < f->frames_count; fr++) {
			bool word = f->frames[fr].type == GSIO_MDL_FRAME_WORD;
			size_t vs = word ? 8 : 4;
			copy[at + 4 + 2 * vs + 16 + (word ? 6 : 3)] = 200;
			at += frame_size(f, fr);
		}
		for (int way = 0; way < 2; way++) {
			gsio_opts opts = {0};
			opts.flags = way ? GSIO_OPT_BORROW : 0;
			gsio_error err;
			gsio_scene *s = gsio_load_memory(copy, c->size, c->base, &opts, &err);
			if (!s) fail_msg("%s: %s", c->base, err.message);
			validate_ok(s, c->base);
			const gsio_mesh *m = &s->meshes[0];
			size_t shows0 = 0; // scene vertices showing source vertex 0
			for (size_t v = 0; v < m->vertex_count; v++) shows0 += m->source_vertex[v] == 0;
			assert_true(shows0 > 0);
			char want[96];
			snprintf(want, sizeof(want), "%zu vertex normal indices are >= 162; used normal 0",
			         f->frames_count);
			bool warned = false;
			for (size_t w = 0; w < s->warnings_count; w++) warned = warned || !strcmp(s->warnings[w], want);
			if (!warned) fail_msg("%s: no warning '%s'", c->base, want);
			float *pos = malloc(m->vertex_count * 3 * sizeof(float));
			float *nrm = malloc(m->vertex_count * 3 * sizeof(float));
			assert_true(pos && nrm);
			for (size_t fr = 0; fr < m->frames_count; fr++) {
				assert_int_equal(gsio_mesh_frame_get(m, fr, pos, nrm), 1);
				float mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
				for (size_t v = 0; v < m->vertex_count; v++) {
					for (int k = 0; k < 3; k++) {
						float x = pos[3 * v + (size_t)k];
						mn[k] = x < mn[k] ? x : mn[k];
						mx[k] = x > mx[k] ? x : mx[k];
						if (m->source_vertex[v] == 0)
							assert_true(nrm[3 * v + (size_t)k] == -gsio_anorms[0][k]);
					}
				}
				for (int k = 0; k < 3; k++) {
					assert_true(m->frames[fr].bbox_min[k] == mn[k]);
					assert_true(m->frames[fr].bbox_max[k] == mx[k]);
				}
			}
			free(pos);
			free(nrm);
			gsio_scene_free(s);
		}
		free(copy);
		gsio_mdl_file_free(f);
	}
	free_files(files, n);
}

static void test_load_file_registry(void **state)
{
	(void)state;
	gsio_scene *s = t_load_corpus("mdl/trashcan.mdl", NULL);
	validate_ok(s, "trashcan.mdl");
	assert_string_equal(s->nodes[0].name, "trashcan");
	assert_string_equal(s->format, "MDL5");
	assert_int_equal(s->meshes_count, 1);
	assert_int_equal(s->source.vertices, 62);
	gsio_scene_free(s);
}

// -- Unsupported variants and foreign bytes

static void test_unsupported_variants(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(0, &files);
	assert_true(n >= 4); // mdl2-tree and three MDL7 files (test_mdl7.c reads those)
	for (size_t i = 0; i < n; i++) {
		if (!memcmp(files[i].data, "MDL2", 4)) continue; // read since: test_mdl2.c
		gsio_error err;
		gsio_mdl_file *f = gsio_mdl_decode(files[i].data, files[i].size, files[i].base, NULL, &err);
		assert_null(f);
		assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.message, "not supported yet"));
		char magic[5] = {0};
		memcpy(magic, files[i].data, 4);
		assert_non_null(strstr(err.message, magic));
		assert_int_equal(err.offset, 0);
		assert_string_equal(err.file, files[i].base);
		// The same through the registry, which hands MDL7 to gsio_mdl7_read.
		gsio_scene *s = gsio_load_file(files[i].path, NULL, &err);
		if (!strcmp(magic, "MDL7")) {
			assert_non_null(s);
			gsio_scene_free(s);
			continue;
		}
		assert_null(s);
		assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
		print_message("%-36s %s\n", files[i].base, err.message);
	}
	free_files(files, n);
	// Quake's IDPO and unknown MDL digits are known-but-unsupported too.
	uint8_t buf[200] = {0};
	const char *magics[] = {"IDPO", "MDL6", "MDL8"};
	for (size_t i = 0; i < 3; i++) {
		memcpy(buf, magics[i], 4);
		gsio_error err;
		assert_null(gsio_mdl_decode(buf, sizeof(buf), "x.mdl", NULL, &err));
		assert_int_equal(err.code, GSIO_ERR_UNSUPPORTED);
		assert_non_null(strstr(err.message, "not supported yet"));
	}
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static void test_random_bytes(void **state)
{
	(void)state;
	uint32_t seed = 12345;
	size_t bad_magic = 0, truncated = 0;
	for (int i = 0; i < 300; i++) {
		size_t size = lcg(&seed) % 2000;
		if (i < 4) size = (size_t)i;
		uint8_t *buf = malloc(size ? size : 1);
		assert_non_null(buf);
		for (size_t k = 0; k < size; k++) buf[k] = (uint8_t)lcg(&seed);
		if (size >= 3 && !memcmp(buf, "MDL", 3)) buf[0] = 'X';
		if (size >= 4 && !memcmp(buf, "IDPO", 4)) buf[0] = 'X';
		gsio_error err;
		assert_null(gsio_mdl_decode(buf, size, "random", NULL, &err));
		if (size < 4) {
			assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
			truncated++;
		} else {
			assert_int_equal(err.code, GSIO_ERR_BAD_MAGIC);
			assert_int_equal(err.offset, 0);
			bad_magic++;
		}
		free(buf);
	}
	print_message("random buffers: %zu bad magic, %zu shorter than a magic\n", bad_magic,
	              truncated);
	// NULL data with a size is an argument error, not a crash.
	gsio_error err;
	assert_null(gsio_mdl_decode(NULL, 10, "null", NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_ARGUMENT);
}

// -- Bad input: truncation

static void expect_clean_failure(const uint8_t *data, size_t size, const char *what,
                                 size_t counts[GSIO_ERR_MISMATCH + 1])
{
	gsio_error err;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, "cut.mdl", NULL, &err);
	if (f) fail_msg("%s: decoding %zu bytes succeeded", what, size);
	if (err.code == GSIO_OK) fail_msg("%s (%zu bytes): NULL with code OK", what, size);
	if (err.offset < 0 || (size_t)err.offset > size)
		fail_msg("%s (%zu bytes): error offset %lld is outside the data (%s)", what, size,
		         (long long)err.offset, err.message);
	if (counts) counts[err.code]++;
}

static void test_truncation(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files), total = 0;
	size_t codes[GSIO_ERR_MISMATCH + 1] = {0};
	for (size_t i = 0; i < n; i++) {
		const cfile *c = &files[i];
		size_t cuts = 0;
		char what[300];
		snprintf(what, sizeof(what), "%s truncated", c->base);
		if (c->size < 65536) {
			for (size_t cut = 0; cut < c->size; cut++, cuts++)
				expect_clean_failure(c->data, cut, what, codes);
		} else {
			for (size_t cut = 0; cut < 200; cut++, cuts++)
				expect_clean_failure(c->data, cut, what, codes);
			for (size_t k = 0; k < 1000; k++, cuts++) {
				size_t cut = 200 + (c->size - 201) * k / 999; // 200 .. size-1
				expect_clean_failure(c->data, cut, what, codes);
			}
		}
		// The whole file still decodes.
		gsio_mdl_file *f = decode_ok(c);
		gsio_mdl_file_free(f);
		print_message("%-24s %6zu truncation points\n", c->base, cuts);
		total += cuts;
	}
	print_message("%zu truncation points: %zu truncated, %zu corrupt, %zu other\n", total,
	              codes[GSIO_ERR_TRUNCATED], codes[GSIO_ERR_CORRUPT],
	              total - codes[GSIO_ERR_TRUNCATED] - codes[GSIO_ERR_CORRUPT]);
	free_files(files, n);
}

// -- Bad input: corrupted fields

static void put_i32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
	p[2] = (uint8_t)(u >> 16);
	p[3] = (uint8_t)(u >> 24);
}

static void put_i16(uint8_t *p, int16_t v)
{
	uint16_t u = (uint16_t)v;
	p[0] = (uint8_t)u;
	p[1] = (uint8_t)(u >> 8);
}

typedef struct mutation_stats {
	size_t tried, failed, accepted;
} mutation_stats;

/* Decodes mutated bytes: a clean error, or a file that re-encodes to exactly
 * these bytes and turns into a scene (or fails cleanly) without a crash. */
static void try_mutation(const uint8_t *data, size_t size, const char *what, mutation_stats *st)
{
	gsio_error err;
	st->tried++;
	gsio_mdl_file *f = gsio_mdl_decode(data, size, "mutated.mdl", NULL, &err);
	if (!f) {
		if (err.code == GSIO_OK) fail_msg("%s: NULL with code OK", what);
		if (err.offset < 0 || (size_t)err.offset > size)
			fail_msg("%s: error offset %lld outside the file (%s)", what, (long long)err.offset,
			         err.message);
		st->failed++;
		return;
	}
	st->accepted++;
	uint8_t *out;
	size_t out_size;
	assert_int_equal(gsio_mdl_encode(f, &out, &out_size, &err), 0);
	if (out_size != size || memcmp(out, data, size))
		fail_msg("%s: accepted, but does not re-encode to the same bytes", what);
	free(out);
	gsio_scene *s = gsio_mdl_to_scene(f, "mutated.mdl", NULL, &err);
	if (!s) assert_int_not_equal(err.code, GSIO_OK);
	gsio_scene_free(s);
	gsio_mdl_file_free(f);
}

static void test_corrupt_header_counts(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	mutation_stats st = {0};
	static const char *names[9] = {"numskins", "skinwidth",    "skinheight", "numverts", "numtris",
	                               "numframes", "numskinverts", "flags",      "numbones"};
	for (size_t i = 0; i < n; i++) {
		cfile *c = &files[i];
		uint8_t *copy = malloc(c->size);
		assert_non_null(copy);
		for (int field = 0; field < 9; field++) {
			size_t at = 48 + 4 * (size_t)field;
			int32_t valid = (int32_t)gsioi_le32(c->data + at);
			const int32_t values[] = {-1, 0x7fffffff, INT32_MIN, valid + 1, valid + 2,
			                          valid - 1, 0x8000, 0x10000, 0};
			for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
				if (values[k] == valid) continue;
				memcpy(copy, c->data, c->size);
				put_i32(copy + at, values[k]);
				char what[200];
				snprintf(what, sizeof(what), "%s %s = %d", c->base, names[field], (int)values[k]);
				try_mutation(copy, c->size, what, &st);
			}
		}
		// -1 / 0x7fffffff in a count must be an error, whatever the count.
		for (int field = 0; field < 9; field++) {
			if (field == 7 || field == 8) continue; // flags, numbones: not counts gsio uses
			if ((field == 1 || field == 2) && c->data[3] == '5') continue; // unused in MDL5
			for (int v = 0; v < 2; v++) {
				memcpy(copy, c->data, c->size);
				put_i32(copy + 48 + 4 * (size_t)field, v ? 0x7fffffff : -1);
				gsio_error err;
				gsio_mdl_file *f = gsio_mdl_decode(copy, c->size, c->base, NULL, &err);
				if (f) fail_msg("%s: %s = %d accepted", c->base, names[field], v ? 0x7fffffff : -1);
				assert_int_not_equal(err.code, GSIO_OK);
			}
		}
		free(copy);
	}
	print_message("header count mutations: %zu tried, %zu errors, %zu accepted (re-encoded "
	              "identically)\n",
	              st.tried, st.failed, st.accepted);
	free_files(files, n);
}

static void test_corrupt_skins(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	mutation_stats st = {0};
	for (size_t i = 0; i < n; i++) {
		cfile *c = &files[i];
		if (gsioi_le32(c->data + 48) == 0) continue; // no skin
		uint8_t *copy = malloc(c->size);
		assert_non_null(copy);
		const int32_t types[] = {1, 6, 7, 9, 12, 13, 14, 15, 16, 0x7fffffff, -1, INT32_MIN};
		for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
			memcpy(copy, c->data, c->size);
			put_i32(copy + 84, types[k]);
			char what[200];
			snprintf(what, sizeof(what), "%s skin type %d", c->base, (int)types[k]);
			try_mutation(copy, c->size, what, &st);
			if (types[k] == 1 || types[k] == 7 || types[k] >= 14 || types[k] < 0) {
				// Unknown types are refused at the skin, naming it.
				gsio_error err;
				assert_null(gsio_mdl_decode(copy, c->size, c->base, NULL, &err));
				assert_int_equal(err.offset, 84);
				assert_non_null(strstr(err.message, "type"));
			}
		}
		if (c->data[3] == '5') {
			for (int field = 0; field < 2; field++) {
				size_t at = 88 + 4 * (size_t)field;
				int32_t valid = (int32_t)gsioi_le32(c->data + at);
				const int32_t dims[] = {0, -1, 0x7fffffff, INT32_MIN, valid + 1, valid - 1,
				                        16385, 0x10000, valid * 2};
				for (size_t k = 0; k < sizeof(dims) / sizeof(dims[0]); k++) {
					memcpy(copy, c->data, c->size);
					put_i32(copy + at, dims[k]);
					char what[200];
					snprintf(what, sizeof(what), "%s skin %s %d", c->base,
					         field ? "height" : "width", (int)dims[k]);
					try_mutation(copy, c->size, what, &st);
				}
			}
		}
		free(copy);
	}
	print_message("skin mutations: %zu tried, %zu errors, %zu accepted\n", st.tried, st.failed,
	              st.accepted);
	free_files(files, n);
}

/* A copy of c's bytes with one field changed decodes to nothing: a CORRUPT
 * error at the field's offset `at`. Counted in *checks. */
static void assert_corrupt_at(const uint8_t *copy, const cfile *c, size_t at, size_t *checks)
{
	gsio_error err;
	assert_null(gsio_mdl_decode(copy, c->size, c->base, NULL, &err));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.offset, (int64_t)at);
	(*checks)++;
}

static void test_corrupt_triangles_and_frames(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files), checks = 0;
	for (size_t i = 0; i < n; i++) {
		cfile *c = &files[i];
		gsio_mdl_file *f = decode_ok(c);
		layout l = layout_of(f);
		int32_t nv = f->header.numverts, nuv = (int32_t)f->uvs_count;
		size_t ntri = f->triangles_count;
		uint8_t *copy = malloc(c->size);
		assert_non_null(copy);
		for (size_t which = 0; which < 2 && ntri; which++) {
			size_t t = which ? ntri - 1 : 0;
			for (int k = 0; k < 3; k++) {
				const int16_t bad_xyz[] = {(int16_t)nv, -1, 32767, INT16_MIN};
				for (size_t b = 0; b < 4; b++) {
					size_t at = l.tris + 12 * t + 2 * (size_t)k;
					memcpy(copy, c->data, c->size);
					put_i16(copy + at, bad_xyz[b]);
					assert_corrupt_at(copy, c, at, &checks);
				}
				const int16_t bad_uv[] = {(int16_t)nuv, -1, 32767};
				for (size_t b = 0; b < 3; b++) {
					size_t at = l.tris + 12 * t + 6 + 2 * (size_t)k;
					memcpy(copy, c->data, c->size);
					put_i16(copy + at, bad_uv[b]);
					assert_corrupt_at(copy, c, at, &checks);
				}
			}
		}
		// Frame types other than 0 and 2, in the first and (if any) the second frame.
		size_t frame_at = l.frames;
		for (size_t fr = 0; fr < 2 && fr < f->frames_count; fr++) {
			const int32_t types[] = {7, 1, 3, -1, 0x7fffffff};
			for (size_t k = 0; k < 5; k++) {
				memcpy(copy, c->data, c->size);
				put_i32(copy + frame_at, types[k]);
				assert_corrupt_at(copy, c, frame_at, &checks);
			}
			// The other valid type: a different frame size, so a clean failure.
			memcpy(copy, c->data, c->size);
			put_i32(copy + frame_at, f->frames[fr].type == 0 ? 2 : 0);
			mutation_stats st = {0};
			try_mutation(copy, c->size, "swapped frame type", &st);
			checks++;
			frame_at += frame_size(f, fr);
		}
		// A normal index past the table decodes, and the scene says so.
		if (f->frames_count && nv) {
			memcpy(copy, c->data, c->size);
			size_t at = l.frames + 4 + 16 + (f->frames[0].type == 0 ? 8 : 16) +
			            (f->frames[0].type == 0 ? 3 : 6);
			copy[at] = 200;
			gsio_mdl_file *g = gsio_mdl_decode(copy, c->size, c->base, NULL, NULL);
			assert_non_null(g);
			assert_int_equal(g->frames[0].verts[0].normal, 200);
			gsio_scene *s = scene_ok(g, c->base);
			int warned = 0;
			for (size_t w = 0; w < s->warnings_count; w++)
				if (strstr(s->warnings[w], "162")) warned = 1;
			// Only when vertex 0 is used by a triangle does the bad index reach the scene.
			int used = 0;
			for (size_t t = 0; t < ntri; t++)
				for (int k = 0; k < 3; k++)
					if (f->triangles[t].xyz[k] == 0) used = 1;
			assert_int_equal(warned, used);
			gsio_scene_free(s);
			gsio_mdl_file_free(g);
			checks++;
		}
		free(copy);
		gsio_mdl_file_free(f);
	}
	print_message("%zu triangle-index / frame-type corruptions checked\n", checks);
	free_files(files, n);
}

/* A first-frame load (GSIO_OPT_NO_ANIMATION) reads one frame but checks
 * every frame as a full load does: the same failure (code, offset,
 * message) for a file truncated inside any frame or with a bad frame type
 * anywhere, the same first frame when the file is sound. */
static void test_first_frame_checks_every_frame(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files), checks = 0, many = 0;
	for (size_t i = 0; i < n; i++) {
		cfile *c = &files[i];
		gsio_mdl_file *f = decode_ok(c);
		layout l = layout_of(f);
		many += f->frames_count > 8;
		uint8_t *copy = malloc(c->size);
		assert_non_null(copy);
		// Changes: 0 the file as it is, 1-3 a bad type in the second, middle
		// and last frame, 4 the other valid type in the last frame (another
		// frame size), then cuts spread over the frames.
		const size_t cuts = 64;
		for (size_t k = 0; k < 5 + cuts; k++) {
			size_t size = c->size;
			memcpy(copy, c->data, c->size);
			if (k >= 1 && k <= 4) {
				size_t fr = k == 1 ? 1 : k == 2 ? f->frames_count / 2 : f->frames_count - 1;
				if (fr >= f->frames_count) continue;
				size_t at = l.frames;
				for (size_t j = 0; j < fr; j++) at += frame_size(f, j);
				put_i32(copy + at, k < 4 ? 7 : f->frames[fr].type == 0 ? 2 : 0);
			} else if (k >= 5) {
				size = l.frames + 1 + (l.end - l.frames - 1) * (k - 5) / (cuts - 1) - 1;
			}
			gsio_error full_err, first_err;
			uint64_t full = t_load_outcome(copy, size, "cut.mdl", 0, &full_err);
			uint64_t first = t_load_outcome(copy, size, "cut.mdl", GSIO_OPT_NO_ANIMATION, &first_err);
			if (k == 0) assert_true(full && first);
			if (k >= 1 && k <= 3) assert_true(!full && full_err.code == GSIO_ERR_CORRUPT);
			if (k >= 5 && size < l.end) assert_true(!full);
			if (!full != !first || full_err.code != first_err.code || full_err.offset != first_err.offset ||
			    strcmp(full_err.message, first_err.message))
				fail_msg("%s, change %zu (%zu bytes): a full load gave %s (%d at %lld: %s), a "
				         "first-frame load %s (%d at %lld: %s)",
				         c->base, k, size, full ? "a scene" : "NULL", full_err.code,
				         (long long)full_err.offset, full_err.message, first ? "a scene" : "NULL",
				         first_err.code, (long long)first_err.offset, first_err.message);
			assert_true(full == first); // the same first frame
			checks++;
		}
		free(copy);
		gsio_mdl_file_free(f);
	}
	assert_true(many > 0); // golem, human: the frames ahead are fetched
	print_message("%zu changed files loaded both ways, %zu models of more than 8 frames\n", checks, many);
	free_files(files, n);
}

// -- Allocation failures and limits

static size_t alloc_failure_loop(const cfile *c, int via_registry)
{
	t_load_input in = {c->data, c->size, c->base, NULL, NULL};
	return t_each_alloc_fails(c->base, via_registry ? t_try_load : t_try_mdl_decode, &in, T_NOMEM_OR_LIMIT, 1)
	           .calls;
}

static void test_allocation_failures(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	const char *names[] = {"minigun_mdl5.mdl", "trashcan.mdl"};
	for (size_t i = 0; i < 2; i++) {
		cfile *c = find_file(files, n, names[i]);
		size_t k = alloc_failure_loop(c, 0);
		size_t k2 = alloc_failure_loop(c, 1);
		print_message("%-20s decode+to_scene: allocations 1..%zu each failed cleanly; "
		              "gsio_load_memory: 1..%zu\n",
		              names[i], k, k2);
		assert_true(k > 1);
	}
	free_files(files, n);
}

static void test_memory_limit(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	cfile *c = find_file(files, n, "minigun_mdl5.mdl");
	gsio_opts opts = {0};
	gsio_error err;
	const size_t limits[] = {1, 1000, 65536, c->size, c->size + 4096};
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		opts.memory_limit = limits[i];
		assert_null(gsio_mdl_decode(c->data, c->size, c->base, &opts, &err));
		assert_int_equal(err.code, GSIO_ERR_LIMIT);
		assert_null(gsio_load_memory(c->data, c->size, c->base, &opts, &err));
		assert_int_equal(err.code, GSIO_ERR_LIMIT);
	}
	// The codec fits in a generous limit; the scene (8 frames of 433 vertices,
	// a 1272 x 1114 RGBA image) does not fit in 1 MB.
	opts.memory_limit = c->size * 2;
	gsio_mdl_file *f = gsio_mdl_decode(c->data, c->size, c->base, &opts, &err);
	assert_non_null(f);
	opts.memory_limit = (size_t)1 << 20;
	assert_null(gsio_mdl_to_scene(f, c->base, &opts, &err));
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	opts.memory_limit = (size_t)64 << 20;
	gsio_scene *s = gsio_mdl_to_scene(f, c->base, &opts, &err);
	assert_non_null(s);
	gsio_scene_free(s);
	gsio_mdl_file_free(f);
	free_files(files, n);
}

// -- Encoder argument checks

static void test_encode_arguments(void **state)
{
	(void)state;
	cfile *files;
	size_t n = corpus_files(1, &files);
	gsio_mdl_file *f = decode_ok(find_file(files, n, "trashcan.mdl"));
	uint8_t *out = (uint8_t *)1;
	size_t size = 1;
	gsio_error err;
	// Counts that disagree with the arrays, a version it cannot write, a skin
	// whose pixel bytes do not match its type and size: refused, nothing returned.
	for (int c = 0; c < 6; c++) {
		gsio_mdl_file g = *f;
		gsio_mdl_skin skin = f->skins[0];
		g.skins = &skin;
		if (c == 0) g.header.numtris++;
		if (c == 1) g.header.numframes = -1;
		if (c == 2) g.header.numskinverts--;
		if (c == 3) g.version = 7, memcpy(g.header.version, "MDL7", 4);
		if (c == 4) g.header.version[3] = '4'; // version 5, magic MDL4
		if (c == 5) skin.pixels_size--;
		gsio_error_clear(&err);
		assert_int_equal(gsio_mdl_encode(&g, &out, &size, &err), -1);
		assert_int_not_equal(err.code, GSIO_OK);
		assert_null(out);
		assert_int_equal(size, 0);
	}
	// Unchanged, it writes the file's bytes.
	cfile *c = find_file(files, n, "trashcan.mdl");
	T_ASSERT_ENCODES_TO(gsio_mdl_encode, f, c->data, c->size, c->base);
	gsio_mdl_file_free(f);
	free_files(files, n);
}

// -- The project's samples

static uint8_t *read_sample(const char *file, size_t *size)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/samples/%s", GSIO_SOURCE_DIR, file);
	return t_read_file(path, size);
}

static void test_samples_are_fresh(void **state)
{
	(void)state;
	size_t total = 0;
	assert_int_equal(gen_sample_count(), 7);
	for (size_t i = 0; i < gen_sample_count(); i++) {
		uint8_t *fresh, *again;
		size_t fresh_size, again_size, size;
		gsio_error err;
		assert_int_equal(gen_sample_encode(i, &fresh, &fresh_size, &err), 0);
		// Deterministic: the same bytes twice.
		assert_int_equal(gen_sample_encode(i, &again, &again_size, &err), 0);
		assert_int_equal(again_size, fresh_size);
		assert_memory_equal(again, fresh, fresh_size);
		uint8_t *committed = read_sample(gen_sample_get(i)->file, &size);
		if (size != fresh_size || memcmp(committed, fresh, size))
			fail_msg("samples/%s differs from freshly generated bytes: run `cmake --build . "
			         "--target samples`",
			         gen_sample_get(i)->file);
		total += size;
		free(committed);
		free(fresh);
		free(again);
	}
	print_message("samples/: %zu files, %zu bytes, all equal to fresh output\n",
	              gen_sample_count(), total);
	assert_true(total < 300 * 1024);
}

/* Expected per sample, written out here rather than read from the generator. */
typedef struct sample_expect {
	const char *file;
	int skins;
	int32_t types[2];
	int32_t frame_type;
	const char *clips; /**< "name:count,..." */
} sample_expect;

static const sample_expect sample_expects[] = {
    {"pal8.mdl", 1, {0, -1}, 0, "idle:1"},
    {"argb4444.mdl", 1, {3, -1}, 2, "idle:1"},
    {"bgra8888.mdl", 1, {5, -1}, 2, "idle:1"},
    {"mipmapped.mdl", 1, {10, -1}, 2, "idle:1"},
    {"two_skins.mdl", 2, {4, 2}, 2, "idle:1"},
    {"clips.mdl", 1, {2, -1}, 2, "stand:4,walk:8,die:6"},
    {"double_sided.mdl", 1, {2, -1}, 2, "idle:1"},
};

static void check_clips(const gsio_scene *s, const char *spec, const char *file)
{
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", spec);
	size_t c = 0, first = 0;
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), c++) {
		char *colon = strchr(tok, ':');
		*colon = 0;
		size_t count = (size_t)atoi(colon + 1);
		// A single frame is no animation: its name is checked all the same.
		if (s->meshes[0].frames_count >= 2) {
			if (c >= s->animations_count) fail_msg("%s: clip %s missing", file, tok);
			const gsio_animation *a = &s->animations[c];
			assert_string_equal(a->name, tok);
			assert_int_equal(a->channels[0].frames[0], first);
			assert_int_equal(a->frames_count, count);
		}
		for (size_t k = 0; k < count; k++) {
			char want[32];
			snprintf(want, sizeof(want), "%s%zu", tok, k);
			assert_string_equal(s->meshes[0].frames[first + k].name, want);
		}
		first += count;
	}
	assert_int_equal(s->animations_count, s->meshes[0].frames_count >= 2 ? c : 0);
}

static void expect_pixel(const gsio_image *im, unsigned x, unsigned y, unsigned r, unsigned g,
                         unsigned b, unsigned a)
{
	const uint8_t *p = im->rgba + 4 * ((size_t)y * im->width + x);
	if (p[0] != r || p[1] != g || p[2] != b || p[3] != a)
		fail_msg("%s pixel (%u,%u) is %u,%u,%u,%u, expected %u,%u,%u,%u", im->name, x, y, p[0],
		         p[1], p[2], p[3], r, g, b, a);
}

static void test_samples_read_back(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sample_expects) / sizeof(sample_expects[0]); i++) {
		const sample_expect *ex = &sample_expects[i];
		const gen_sample *gs = gen_sample_get(i);
		assert_string_equal(gs->file, ex->file);
		cfile c = {0};
		c.base = ex->file;
		c.data = read_sample(ex->file, &c.size);
		gsio_mdl_file *f = decode_ok(&c);
		// Re-encoding gives the same bytes.
		uint8_t *out;
		size_t out_size;
		assert_int_equal(gsio_mdl_encode(f, &out, &out_size, NULL), 0);
		assert_int_equal(out_size, c.size);
		assert_memory_equal(out, c.data, c.size);
		free(out);
		// An MDL5 like the real ones: header skin size 0, per-skin sizes.
		assert_int_equal(f->version, 5);
		assert_int_equal(f->header.skinwidth, 0);
		assert_int_equal(f->header.skinheight, 0);
		assert_int_equal(f->skins_count, ex->skins);
		for (size_t k = 0; k < f->skins_count; k++) assert_int_equal(f->skins[k].type, ex->types[k]);
		for (size_t k = 0; k < f->frames_count; k++)
			assert_int_equal(f->frames[k].type, ex->frame_type);
		gsio_scene *s = scene_ok(f, ex->file);
		check_scene(f, s, ex->file);
		check_clips(s, ex->clips, ex->file);
		const gsio_mesh *m = &s->meshes[0];
		// Every frame of the box: all normals outward, all triangles CCW; the
		// double-sided box's faces are folded to one each, drawn double-sided.
		int twice = gs->double_sided;
		assert_int_equal(m->index_count / 3, 12);
		assert_int_equal(split_pairs(m), twice ? 12 : 0);
		assert_int_equal(m->vertex_count, 24);
		assert_int_equal(s->materials[0].double_sided, twice ? 1 : 0);
		float fp[24 * 3], fn[24 * 3];
		for (size_t fr = 0; fr < m->frames_count; fr++) {
			size_t deg;
			gsio_morph_frame mf = m->frames[fr]; // as floats, through the accessor
			assert_int_equal(gsio_mesh_frame_get(m, fr, fp, fn), 1);
			mf.positions = fp;
			mf.normals = fn;
			assert_int_equal(outward_count(m, &mf), 24);
			assert_int_equal(ccw_agreeing(m, fp, fn, &deg), m->index_count / 3);
			// Every vertex normal agrees with every face using it.
			assert_int_equal(corners_against_face(m, &mf), 0);
		}
		// Frame 0 is the box x, y in [-16, 16], z in [0, 32].
		const float want_min[3] = {-16, -16, 0}, want_max[3] = {16, 16, 32};
		for (int k = 0; k < 3; k++) {
			assert_true(m->bbox_min[k] == want_min[k]);
			assert_true(m->bbox_max[k] == want_max[k]);
		}
		// Orientation: the front face (+X) shows the top-left cell upright: its
		// top-left corner seen from the front (y = -16, z = 32) is at the
		// image's top-left texel, its bottom-right (y = 16, z = 0) at the
		// cell's bottom-right.
		int found_tl = 0, found_br = 0;
		float cw = (float)(f->skins[0].width / 3), ch = (float)(f->skins[0].height / 2);
		for (size_t v = 0; v < m->vertex_count; v++) {
			const float *p = m->positions + 3 * v, *uv = m->uvs + 2 * v;
			if (p[0] != 16 || uv[0] > 1.0f / 3 || uv[1] > 0.5f) continue;
			if (p[1] == -16 && p[2] == 32) {
				assert_true(fabsf(uv[0] * (float)f->skins[0].width - 0.5f) < 1e-4f);
				assert_true(fabsf(uv[1] * (float)f->skins[0].height - 0.5f) < 1e-4f);
				found_tl = 1;
			}
			if (p[1] == 16 && p[2] == 0) {
				assert_true(fabsf(uv[0] * (float)f->skins[0].width - (cw - 0.5f)) < 1e-4f);
				assert_true(fabsf(uv[1] * (float)f->skins[0].height - (ch - 0.5f)) < 1e-4f);
				found_br = 1;
			}
		}
		assert_true(found_tl && found_br);
		// Pixels: exactly what the generator drew, where the format holds it.
		for (size_t k = 0; k < s->images_count; k++) {
			const gsio_image *im = &s->images[k];
			const gen_skin *sk = &gs->skins[k];
			size_t texels = (size_t)im->width * im->height;
			uint8_t *want = malloc(texels * 4);
			assert_non_null(want);
			gen_skin_rgba(sk, want);
			int exact = (sk->type & 7) != 2; // 565 cannot hold multiples of 51 exactly
			size_t bad = 0;
			for (size_t t = 0; t < 4 * texels; t++) {
				int d = abs((int)im->rgba[t] - (int)want[t]);
				if (exact ? d != 0 : d > 4) bad++;
			}
			if (bad) fail_msg("%s skin %zu: %zu channel values differ from the drawing", ex->file, k, bad);
			free(want);
		}
		// A few known pixels, independent of the generator's code.
		const gsio_image *im = &s->images[0];
		if (!strcmp(ex->file, "pal8.mdl") || !strcmp(ex->file, "argb4444.mdl") ||
		    !strcmp(ex->file, "bgra8888.mdl") || !strcmp(ex->file, "two_skins.mdl")) {
			expect_pixel(im, 0, 0, 0, 0, 0, 255);        // border
			expect_pixel(im, 8, 8, 255, 255, 255, 255);  // the white F of the front cell
			expect_pixel(im, 16, 20, 204, 0, 0, 255);    // front cell background, red
			expect_pixel(im, 40, 8, 204, 204, 204, 255); // the grey F of the back cell
			unsigned a = strcmp(ex->file, "argb4444.mdl") && strcmp(ex->file, "bgra8888.mdl") ? 255 : 85;
			expect_pixel(im, 80, 52, 153, 0, 153, a);    // bottom cell, the most transparent
		}
		if (!strcmp(ex->file, "two_skins.mdl")) {
			// The second skin is half size with complementary colours (565-rounded).
			const gsio_image *im1 = &s->images[1];
			assert_int_equal(im1->width, 48);
			assert_int_equal(im1->height, 32);
			expect_pixel(im1, 0, 0, 255, 255, 255, 255);
			expect_pixel(im1, 4, 4, 0, 0, 0, 255);
		}
		if (!strcmp(ex->file, "mipmapped.mdl")) {
			// Three real mips: each texel the 2x2 mean of the level above,
			// within the 565 rounding of both levels.
			const gsio_mdl_skin *sk = &f->skins[0];
			assert_int_equal(sk->pixels_size, (96 * 64 + 48 * 32 + 24 * 16 + 12 * 8) * 2);
			unsigned w = 96, hgt = 64;
			size_t at = 0;
			uint8_t *prev = malloc(96 * 64 * 4), *cur = malloc(96 * 64 * 4);
			assert_non_null(prev);
			assert_non_null(cur);
			assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, sk->pixels, w * hgt, NULL, prev), 0);
			for (int level = 1; level <= 3; level++) {
				at += (size_t)w * hgt * 2;
				w /= 2;
				hgt /= 2;
				assert_int_equal(gsio_decode_pixels(GSIO_PIXEL_RGB565, sk->pixels + at, w * hgt, NULL, cur), 0);
				int worst = 0, distinct = 0;
				for (unsigned y = 0; y < hgt; y++)
					for (unsigned x = 0; x < w; x++)
						for (int ch2 = 0; ch2 < 3; ch2++) {
							size_t pw = 2 * w, i0 = 4 * ((2 * y) * pw + 2 * x) + (size_t)ch2;
							int mean = (prev[i0] + prev[i0 + 4] + prev[i0 + 4 * pw] +
							            prev[i0 + 4 * pw + 4] + 2) / 4;
							int d = abs(mean - cur[4 * (y * w + x) + (size_t)ch2]);
							if (d > worst) worst = d;
							if (cur[4 * (y * w + x) + (size_t)ch2] != cur[(size_t)ch2]) distinct = 1;
						}
				print_message("mipmapped.mdl level %d (%ux%u): worst difference to the box filter "
				              "of the level above: %d\n",
				              level, w, hgt, worst);
				assert_true(worst <= 12);
				assert_true(distinct); // not a flat fill
				uint8_t *t = prev;
				prev = cur;
				cur = t;
			}
			free(prev);
			free(cur);
		}
		if (!strcmp(ex->file, "clips.mdl")) {
			// Real motion: consecutive frames of each clip differ, and "die"
			// ends with the box on its front (x up to 48, z up to 16 + 16).
			size_t n3 = 3 * m->vertex_count;
			float *pa = malloc(n3 * sizeof(float)), *pb = malloc(n3 * sizeof(float));
			assert_true(pa && pb);
			for (size_t fr = 1; fr < m->frames_count; fr++) {
				assert_true(gsio_mesh_frame_get(m, fr - 1, pa, NULL) >= 0);
				assert_true(gsio_mesh_frame_get(m, fr, pb, NULL) >= 0);
				assert_true(memcmp(pa, pb, n3 * sizeof(float)) != 0);
			}
			free(pa);
			free(pb);
			const gsio_morph_frame *last = &m->frames[m->frames_count - 1];
			assert_true(fabsf(last->bbox_max[0] - 48) < 0.01f);
			assert_true(fabsf(last->bbox_max[2] - 32) < 0.01f);
			assert_true(fabsf(last->bbox_min[0] - 16) < 0.01f);
		}
		gsio_scene_free(s);
		gsio_mdl_file_free(f);
		free(c.data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_decode),
	    cmocka_unit_test(test_minigun_mdl3_vs_mdl5),
	    cmocka_unit_test(test_corpus_bboxes),
	    cmocka_unit_test(test_corpus_roundtrip),
	    cmocka_unit_test(test_corpus_scene),
	    cmocka_unit_test(test_corpus_frames_packed),
	    cmocka_unit_test(test_packed_bad_normals),
	    cmocka_unit_test(test_load_file_registry),
	    cmocka_unit_test(test_unsupported_variants),
	    cmocka_unit_test(test_random_bytes),
	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_corrupt_header_counts),
	    cmocka_unit_test(test_corrupt_skins),
	    cmocka_unit_test(test_corrupt_triangles_and_frames),
	    cmocka_unit_test(test_first_frame_checks_every_frame),
	    cmocka_unit_test(test_allocation_failures),
	    cmocka_unit_test(test_memory_limit),
	    cmocka_unit_test(test_encode_arguments),
	    cmocka_unit_test(test_samples_are_fresh),
	    cmocka_unit_test(test_samples_read_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
