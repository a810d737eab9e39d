/* The scene an MDL3/4/5 file loads into, on every corpus file: meshes,
 * normals and winding, frames kept packed read back as the floats they
 * stand for (with normal indices past the table), and the load through the
 * importer registry. */
#include "test_util.h"
#include "mdl_test_util.h"

#include "gsio_mdl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_corpus_scene),
	    cmocka_unit_test(test_corpus_frames_packed),
	    cmocka_unit_test(test_packed_bad_normals),
	    cmocka_unit_test(test_load_file_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
