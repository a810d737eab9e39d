/* Unit tests of the core's input handling: the bounded reader at and past
 * the end of its bytes, the overflow-checked size arithmetic, path helpers
 * and reading a whole file. */
#include "test_util.h"

#include "gsioi_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Bounded reader

static void test_reader_exact_end(void **state)
{
	(void)state;
	const uint8_t data[11] = {1, 0, 0, 0, 0x00, 0x00, 0x80, 0x3f, 0xfe, 0xff, 0x7f};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), "x.bin", &err);
	int32_t i = 0;
	float f = 0;
	int16_t s = 0;
	uint8_t b = 0;
	assert_true(gsioi_read_i32(&r, &i, "an int"));
	assert_int_equal(i, 1);
	assert_true(gsioi_read_f32(&r, &f, "a float"));
	assert_true(f == 1.0f);
	assert_true(gsioi_read_i16(&r, &s, "a short"));
	assert_int_equal(s, -2);
	assert_int_equal(gsioi_reader_remaining(&r), 1);
	assert_true(gsioi_read_u8(&r, &b, "the last byte"));
	assert_int_equal(b, 0x7f);
	// Exactly at the end: zero more bytes are still available.
	assert_int_equal(gsioi_reader_remaining(&r), 0);
	assert_non_null(gsioi_read_bytes(&r, 0, "nothing"));
	assert_int_equal(err.code, GSIO_OK);
	assert_false(r.failed);
}

static void test_reader_one_past_end(void **state)
{
	(void)state;
	const uint8_t data[6] = {1, 2, 3, 4, 5, 6};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), "y.bin", &err);
	uint32_t u = 0;
	uint16_t w = 0;
	assert_true(gsioi_read_u32(&r, &u, "a word"));
	assert_int_equal(u, 0x04030201u);
	// 2 bytes remain; a 4-byte read fails at offset 4 and consumes nothing.
	assert_false(gsioi_read_u32(&r, &u, "a second word"));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	assert_int_equal(err.offset, 4);
	assert_string_equal(err.file, "y.bin");
	assert_non_null(strstr(err.message, "a second word"));
	assert_int_equal(r.pos, 4);
	// Later reads keep failing, even ones that would fit, and the first error stays.
	assert_false(gsioi_read_u16(&r, &w, "a short that would fit"));
	assert_null(gsioi_read_bytes(&r, 0, "nothing"));
	assert_false(gsioi_reader_need(&r, 0, "nothing"));
	assert_int_equal(err.offset, 4);
	assert_non_null(strstr(err.message, "a second word"));
}

static void test_reader_huge_need(void **state)
{
	(void)state;
	const uint8_t data[3] = {0};
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_reader r = gsioi_reader_make(data, sizeof(data), NULL, &err);
	uint8_t b;
	assert_true(gsioi_read_u8(&r, &b, "a byte"));
	// SIZE_MAX must not wrap around pos + n.
	assert_null(gsioi_read_bytes(&r, SIZE_MAX, "everything"));
	assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
	assert_int_equal(err.offset, 1);
	assert_string_equal(err.file, "");
}

static void test_reader_each_width_at_end(void **state)
{
	(void)state;
	// For every read width, a buffer one byte short fails at offset 0.
	const uint8_t data[4] = {0xaa, 0xbb, 0xcc, 0xdd};
	for (size_t n = 1; n <= 4; n++) {
		gsio_error err;
		gsio_error_clear(&err);
		gsioi_reader r = gsioi_reader_make(data, n - 1, "z", &err);
		bool ok;
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		if (n == 1) ok = gsioi_read_u8(&r, &u8, "u8");
		else if (n == 2) ok = gsioi_read_u16(&r, &u16, "u16");
		else if (n == 3) ok = gsioi_read_bytes(&r, 3, "3 bytes") != NULL;
		else ok = gsioi_read_u32(&r, &u32, "u32");
		assert_false(ok);
		assert_int_equal(err.code, GSIO_ERR_TRUNCATED);
		assert_int_equal(err.offset, 0);
	}
}

// -- Size math

static void test_overflow_helpers(void **state)
{
	(void)state;
	size_t out = 0;
	assert_true(gsioi_mul_size(SIZE_MAX, 1, &out));
	assert_true(out == SIZE_MAX);
	assert_true(gsioi_mul_size(0, SIZE_MAX, &out));
	assert_true(out == 0);
	assert_true(gsioi_mul_size(SIZE_MAX, 0, &out));
	assert_true(out == 0);
	assert_false(gsioi_mul_size(SIZE_MAX, 2, &out));
	assert_false(gsioi_mul_size(SIZE_MAX / 2 + 1, 2, &out));
	assert_true(gsioi_mul_size(SIZE_MAX / 2, 2, &out));
	assert_true(out == SIZE_MAX - 1);
	size_t root = (size_t)1 << (sizeof(size_t) * 4);
	assert_false(gsioi_mul_size(root, root, &out));
	assert_true(gsioi_mul_size(root - 1, root + 1, &out));
	assert_true(out == SIZE_MAX);

	assert_true(gsioi_add_size(SIZE_MAX, 0, &out));
	assert_true(out == SIZE_MAX);
	assert_true(gsioi_add_size(SIZE_MAX - 1, 1, &out));
	assert_true(out == SIZE_MAX);
	assert_false(gsioi_add_size(SIZE_MAX, 1, &out));
	assert_false(gsioi_add_size(1, SIZE_MAX, &out));
	assert_false(gsioi_add_size(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 1, &out));

	assert_true(gsioi_mul3_size(1000, 1000, 1000, &out));
	assert_true(out == 1000000000u);
	assert_false(gsioi_mul3_size(SIZE_MAX / 3 + 1, 1, 3, &out));
	assert_false(gsioi_mul3_size(root, 1, root, &out));
	assert_true(gsioi_mul3_size(root, 0, root, &out));
	assert_true(out == 0);
}

// -- Paths

static void test_paths(void **state)
{
	(void)state;
	char ext[8];
	gsioi_path_ext("dir.x/Model.MDL", ext, sizeof(ext));
	assert_string_equal(ext, "mdl");
	gsioi_path_ext("dir.x/noext", ext, sizeof(ext));
	assert_string_equal(ext, "");
	gsioi_path_ext("a.verylongextension", ext, sizeof(ext));
	assert_string_equal(ext, "verylon");
	assert_string_equal(gsioi_path_base("a/b\\c.md5mesh"), "c.md5mesh");
	assert_string_equal(gsioi_path_base("plain"), "plain");
}

static void test_read_whole_file(void **state)
{
	(void)state;
	gsio_error err;
	uint8_t *data = (uint8_t *)"x";
	size_t size = 1;
	// A directory opens with fopen() on Linux; it must still be a clear error.
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_read_whole_file(GSIO_BINARY_DIR, &data, &size, 0, &err), 0);
	assert_null(data);
	assert_int_equal(size, 0);
	assert_int_equal(err.code, GSIO_ERR_IO);
	assert_non_null(strstr(err.message, "directory"));
	assert_string_equal(err.file, GSIO_BINARY_DIR);
	// A file over the limit is a LIMIT error; at the limit it is read whole.
	char path[4096];
	snprintf(path, sizeof(path), "%s/test_core_whole.bin", GSIO_BINARY_DIR);
	const uint8_t bytes[5] = {1, 2, 3, 4, 5};
	t_write_file(path, bytes, sizeof(bytes));
	gsio_error_clear(&err);
	assert_int_not_equal(gsio_read_whole_file(path, &data, &size, 4, &err), 0);
	assert_int_equal(err.code, GSIO_ERR_LIMIT);
	gsio_error_clear(&err);
	assert_int_equal(gsio_read_whole_file(path, &data, &size, 5, &err), 0);
	assert_int_equal(size, 5);
	assert_memory_equal(data, bytes, 5);
	free(data);
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader_exact_end),
	    cmocka_unit_test(test_reader_one_past_end),
	    cmocka_unit_test(test_reader_huge_need),
	    cmocka_unit_test(test_reader_each_width_at_end),
	    cmocka_unit_test(test_overflow_helpers),
	    cmocka_unit_test(test_paths),
	    cmocka_unit_test(test_read_whole_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
