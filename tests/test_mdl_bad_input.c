/* MDL3/4/5 bad input: random bytes, truncation at every length, corrupted
 * header counts, skins, triangles and frames, a first-frame load that checks
 * every frame, allocation failures and the memory limit. Every failure is a
 * clean error; nothing crashes or leaks. */
#include "test_util.h"
#include "mdl_test_util.h"

#include "gsioi_internal.h"
#include "gsio_mdl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Bad input: foreign bytes

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_bytes),
	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_corrupt_header_counts),
	    cmocka_unit_test(test_corrupt_skins),
	    cmocka_unit_test(test_corrupt_triangles_and_frames),
	    cmocka_unit_test(test_first_frame_checks_every_frame),
	    cmocka_unit_test(test_allocation_failures),
	    cmocka_unit_test(test_memory_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
