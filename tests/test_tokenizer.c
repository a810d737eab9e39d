/* The text tokenizer: tokens, positions, comments, strings, errors, and the
 * locale-free number parser and printer (checked against the C library's
 * strtof/strtod in the "C" locale, and under a locale with a decimal comma). */
#define _POSIX_C_SOURCE 200809L // setenv
#include "test_util.h"

#include "gsio_tokenizer.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// -- Helpers

static void init(gsioi_tokenizer *t, const char *text, gsio_error *err)
{
	gsio_error_clear(err);
	gsioi_tokenizer_init(t, text, strlen(text), "t.txt", NULL, err);
}

static void expect_tok(gsioi_tokenizer *t, gsioi_token_kind kind, const char *text, int line,
                       int col)
{
	gsioi_token tok;
	assert_true(gsioi_tok_next(t, &tok));
	assert_int_equal(tok.kind, kind);
	if (text) {
		assert_int_equal(tok.len, strlen(text));
		assert_memory_equal(tok.text, text, tok.len);
	}
	assert_int_equal(tok.line, line);
	assert_int_equal(tok.column, col);
}

static float pf(const char *s)
{
	float v = -12345.0f;
	if (!gsioi_parse_float(s, strlen(s), &v)) fail_msg("'%s' does not parse", s);
	return v;
}

static bool pf_ok(const char *s)
{
	float v;
	return gsioi_parse_float(s, strlen(s), &v);
}

static uint32_t bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

// A small deterministic generator (xorshift64*), so failures reproduce.
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

// -- Tokens

static void test_tokens(void **state)
{
	(void)state;
	gsioi_tokenizer t;
	gsio_error err;
	const char *text = "MD5Version 10\r\n"
	                   "commandline \"a b // not a comment\"\n"
	                   "\tjoints { // a comment\n"
	                   "\"root\"\t-1 ( 0.5 -2e3 .25 )/* block\n comment */}\r"
	                   "x//tail";
	init(&t, text, &err);
	expect_tok(&t, GSIO_TOKEN_WORD, "MD5Version", 1, 1);
	expect_tok(&t, GSIO_TOKEN_WORD, "10", 1, 12);
	expect_tok(&t, GSIO_TOKEN_WORD, "commandline", 2, 1);
	expect_tok(&t, GSIO_TOKEN_STRING, "a b // not a comment", 2, 13);
	expect_tok(&t, GSIO_TOKEN_WORD, "joints", 3, 2);
	expect_tok(&t, GSIO_TOKEN_PUNCT, "{", 3, 9);
	expect_tok(&t, GSIO_TOKEN_STRING, "root", 4, 1);
	expect_tok(&t, GSIO_TOKEN_WORD, "-1", 4, 8);
	expect_tok(&t, GSIO_TOKEN_PUNCT, "(", 4, 11);
	expect_tok(&t, GSIO_TOKEN_WORD, "0.5", 4, 13);
	expect_tok(&t, GSIO_TOKEN_WORD, "-2e3", 4, 17);
	expect_tok(&t, GSIO_TOKEN_WORD, ".25", 4, 22);
	expect_tok(&t, GSIO_TOKEN_PUNCT, ")", 4, 26);
	// The block comment spans a line: the brace after it is on line 5.
	expect_tok(&t, GSIO_TOKEN_PUNCT, "}", 5, 12);
	// A lone CR ends a line too; a word stops at "//".
	expect_tok(&t, GSIO_TOKEN_WORD, "x", 6, 1);
	expect_tok(&t, GSIO_TOKEN_EOF, "", 6, 8);
	expect_tok(&t, GSIO_TOKEN_EOF, "", 6, 8); // EOF repeats
	assert_int_equal(err.code, GSIO_OK);
}

static void test_peek_and_expect(void **state)
{
	(void)state;
	gsioi_tokenizer t;
	gsio_error err;
	init(&t, "numverts 24 ( 1.5 ) \"s\"", &err);
	gsioi_token tok;
	assert_true(gsioi_tok_peek(&t, &tok));
	assert_true(gsioi_token_is(&tok, "numverts"));
	assert_true(gsioi_tok_peek(&t, &tok)); // peeking twice gives the same token
	assert_true(gsioi_token_is(&tok, "numverts"));
	assert_true(gsioi_tok_expect_word(&t, "numverts"));
	int64_t n;
	assert_true(gsioi_tok_int(&t, "numverts", 0, 100, &n, NULL));
	assert_int_equal(n, 24);
	assert_true(gsioi_tok_expect_punct(&t, '('));
	float f;
	assert_true(gsioi_tok_float(&t, "x", &f));
	assert_true(f == 1.5f);
	assert_true(gsioi_tok_expect_punct(&t, ')'));
	assert_true(gsioi_tok_string(&t, "a name", &tok));
	assert_int_equal(tok.len, 1);
	assert_int_equal(gsioi_tok_remaining(&t), 0);
}

// -- Errors carry line and column

static void expect_error(const char *text, int steps, gsio_error_code code, int line, int col,
                         const char *needle)
{
	gsioi_tokenizer t;
	gsio_error err;
	init(&t, text, &err);
	gsioi_token tok;
	bool ok = true;
	for (int i = 0; i < steps && ok; i++) ok = gsioi_tok_next(&t, &tok);
	if (ok) ok = gsioi_tok_expect_word(&t, "joints");
	assert_false(ok);
	char msg[512];
	gsio_error_format(&err, msg, sizeof(msg));
	print_message("  %s\n", msg);
	assert_int_equal(err.code, code);
	assert_int_equal(err.line, line);
	assert_int_equal(err.column, col);
	assert_string_equal(err.file, "t.txt");
	assert_non_null(strstr(err.message, needle));
	// After a failure every call fails.
	assert_false(gsioi_tok_next(&t, &tok));
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("a\nb \"open string\nmore", 2, GSIO_ERR_SYNTAX, 2, 3, "unterminated string");
	expect_error("a /* never closed\n\n", 1, GSIO_ERR_SYNTAX, 1, 3, "unterminated /* comment");
	expect_error("a\n  b\x01", 2, GSIO_ERR_SYNTAX, 2, 4, "control byte 0x01");
	expect_error("MD5Version 10\n  mesh {", 2, GSIO_ERR_SYNTAX, 2, 3,
	             "expected 'joints', found 'mesh'");
	expect_error("one two", 2, GSIO_ERR_TRUNCATED, 1, 8, "found the end of the file");
	expect_error("", 0, GSIO_ERR_TRUNCATED, 1, 1, "expected 'joints'");
	// A NUL byte inside the buffer is binary data, not the end.
	gsioi_tokenizer t;
	gsio_error err;
	gsio_error_clear(&err);
	gsioi_tokenizer_init(&t, "ab\0cd", 5, "t.txt", NULL, &err);
	gsioi_token tok;
	assert_true(gsioi_tok_next(&t, &tok));
	assert_false(gsioi_tok_next(&t, &tok));
	assert_int_equal(err.column, 3);

	// Integers: malformed is a syntax error, out of range is corrupt data.
	init(&t, "tri 4294967295 1.0", &err);
	assert_true(gsioi_tok_expect_word(&t, "tri"));
	int64_t v;
	assert_false(gsioi_tok_int(&t, "tri", 0, 11, &v, NULL));
	assert_int_equal(err.code, GSIO_ERR_CORRUPT);
	assert_int_equal(err.column, 5);
	assert_non_null(strstr(err.message, "tri 4294967295 is outside 0..11"));
	init(&t, "1.0", &err);
	assert_false(gsioi_tok_int(&t, "a count", 0, 11, &v, NULL));
	assert_int_equal(err.code, GSIO_ERR_SYNTAX);
	init(&t, "1.#QNAN", &err);
	float f;
	assert_false(gsioi_tok_float(&t, "a bias", &f));
	assert_int_equal(err.code, GSIO_ERR_SYNTAX);
	assert_non_null(strstr(err.message, "'1.#QNAN'"));
}

// -- Integers

static void test_ints(void **state)
{
	(void)state;
	int64_t v;
	assert_true(gsioi_parse_int64("4294967295", 10, &v));
	assert_true(v == 4294967295ll);
	assert_true(gsioi_parse_int64("-1", 2, &v));
	assert_true(v == -1);
	assert_true(gsioi_parse_int64("+7", 2, &v));
	assert_true(v == 7);
	assert_true(gsioi_parse_int64("9223372036854775807", 19, &v));
	assert_true(v == INT64_MAX);
	assert_true(gsioi_parse_int64("-9223372036854775808", 20, &v));
	assert_true(v == INT64_MIN);
	assert_false(gsioi_parse_int64("9223372036854775808", 19, &v));
	assert_false(gsioi_parse_int64("99999999999999999999999", 23, &v));
	assert_false(gsioi_parse_int64("", 0, &v));
	assert_false(gsioi_parse_int64("-", 1, &v));
	assert_false(gsioi_parse_int64("1e3", 3, &v));
	assert_false(gsioi_parse_int64("0x10", 4, &v));
	assert_false(gsioi_parse_int64("12 ", 3, &v));
}

// -- Floats

static void test_float_values(void **state)
{
	(void)state;
	assert_true(bits(pf("1e-5")) == bits(1e-5f));
	assert_true(bits(pf("-0.000001")) == bits(-0.000001f));
	assert_true(bits(pf("123456.789")) == bits(123456.789f));
	assert_true(bits(pf("0.707107")) == bits(0.707107f));
	assert_true(bits(pf("31.9803333282")) == bits(31.9803333282f));
	assert_true(bits(pf("2E+3")) == bits(2000.0f));
	assert_true(bits(pf("1.5e-3")) == bits(1.5e-3f));
	assert_true(bits(pf(".25")) == bits(0.25f));
	assert_true(bits(pf("5.")) == bits(5.0f));
	assert_true(bits(pf("+3")) == bits(3.0f));
	assert_true(bits(pf("-0")) == bits(-0.0f));
	assert_true(bits(pf("-0.000000")) == bits(-0.0f));
	assert_true(bits(pf("000123.4500")) == bits(123.45f));
	assert_true(bits(pf("3.14159265358979323846264338327950288")) == bits(3.14159265f));
	assert_true(bits(pf("340282346638528859811704183484516925440")) == bits(FLT_MAX));
	assert_true(bits(pf("1.4e-45")) == bits(1e-45f)); // the smallest subnormal
	assert_true(bits(pf("1e-60")) == bits(0.0f));
	assert_true(bits(pf("1e-999999999999")) == bits(0.0f));
	const char *bad[] = {"1.#QNAN", "-1.#IND", "1.#INF", "nan", "inf", "-inf", "NaN",
	                     "infinity", "1e39", "-1e39", "1e999999999999", "", "-", "+", ".",
	                     "e5", "1e", "1e+", "1e-", "0x10", "1,5", "1.5f", " 1", "1 ", "--1",
	                     "1..2", "1e5.5", "١"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (pf_ok(bad[i])) fail_msg("'%s' parsed as a float", bad[i]);
	}
	double d;
	assert_true(gsioi_parse_double("1e39", 4, &d) && d == 1e39);
	assert_true(gsioi_parse_double("0.1", 3, &d) && d == 0.1);
	assert_false(gsioi_parse_double("1e309", 5, &d));
}

// Random decimal strings of many shapes, compared bit for bit with the C
// library (this program runs in the "C" locale unless a test changes it).
static void random_decimal(char *buf, size_t size)
{
	char digits[40];
	int nd = 1 + (int)(rnd() % 20);
	for (int i = 0; i < nd; i++) digits[i] = (char)('0' + rnd() % 10);
	digits[nd] = 0;
	int point = (int)(rnd() % (unsigned)(nd + 1));
	int e = (int)(rnd() % 90) - 50;
	const char *sign = rnd() % 2 ? "-" : "";
	switch (rnd() % 3) {
	case 0: snprintf(buf, size, "%s%.*s.%se%d", sign, point, digits, digits + point, e); break;
	case 1: snprintf(buf, size, "%s%.*s.%s", sign, point, digits, digits + point); break;
	default: snprintf(buf, size, "%s%s", sign, digits); break;
	}
	if (buf[strlen(buf) - 1] == '.' && rnd() % 2) strcat(buf, "0");
	if (!strcmp(buf, ".") || !strcmp(buf, "-.")) snprintf(buf, size, "0");
}

static void test_float_vs_libc(void **state)
{
	(void)state;
	size_t n = 200000, float_mismatch = 0, double_mismatch = 0, checked = 0;
	for (size_t i = 0; i < n; i++) {
		char buf[96];
		random_decimal(buf, sizeof(buf));
		char *end;
		float ref = strtof(buf, &end);
		if (*end || !isfinite(ref)) continue; // our parser rejects those: tested above
		checked++;
		float v;
		if (!gsioi_parse_float(buf, strlen(buf), &v)) fail_msg("'%s' rejected", buf);
		if (bits(v) != bits(ref)) {
			if (float_mismatch < 5)
				print_message("  float mismatch: %s -> %.9g, libc %.9g\n", buf, (double)v,
				              (double)ref);
			float_mismatch++;
		}
		double dref = strtod(buf, NULL), dv;
		assert_true(gsioi_parse_double(buf, strlen(buf), &dv));
		if (dv != dref) {
			if (double_mismatch < 3)
				print_message("  double off: %s -> %.17g, libc %.17g\n", buf, dv, dref);
			double_mismatch++;
		}
	}
	print_message("  %zu decimal strings: %zu float and %zu double results differ from libc\n",
	              checked, float_mismatch, double_mismatch);
	assert_true(checked > n / 2);
	assert_int_equal(float_mismatch, 0);
	// Doubles are rounded twice (64-bit long double, then 53 bits): rarely 1 ulp off.
	assert_true(double_mismatch <= checked / 1000);
}

static void test_format_roundtrip(void **state)
{
	(void)state;
	char buf[GSIO_FLOAT_TEXT_MAX];
	struct {
		float v;
		const char *text;
	} known[] = {{0.707107f, "0.707107"}, {0.1f, "0.1"}, {24.0f, "24"}, {-0.0f, "-0"},
	             {1e-5f, "1e-05"}, {123456.789f, "123456.79"}, {31.9803333282f, "31.980333"},
	             {FLT_MAX, "3.4028235e+38"}};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		size_t n = gsioi_format_float(known[i].v, buf);
		assert_int_equal(n, strlen(buf));
		assert_string_equal(buf, known[i].text);
	}
	assert_int_equal(gsioi_format_float(INFINITY, buf), 0);
	assert_int_equal(gsioi_format_float(NAN, buf), 0);
	// Every finite float comes back exactly (random bit patterns).
	size_t tested = 0;
	for (size_t i = 0; i < 200000; i++) {
		uint32_t u = (uint32_t)rnd();
		float v;
		memcpy(&v, &u, 4);
		if (!isfinite(v)) continue;
		size_t n = gsioi_format_float(v, buf);
		float back;
		assert_true(n > 0 && n < GSIO_FLOAT_TEXT_MAX);
		if (!gsioi_parse_float(buf, n, &back) || bits(back) != u)
			fail_msg("%08x printed as '%s' does not read back", (unsigned)u, buf);
		tested++;
	}
	print_message("  %zu random floats print and read back exactly\n", tested);
}

// -- Locale independence

// Switches LC_NUMERIC to a locale with a decimal comma. When the system has
// none installed, one is compiled with localedef into the build folder.
static bool set_comma_locale(void)
{
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (setlocale(LC_NUMERIC, names[i])) return true;
		if (pass == 0) {
			char cmd[1024];
			// localedef may exit non-zero for mere warnings: setlocale decides.
			snprintf(cmd, sizeof(cmd),
			         "mkdir -p '%s/locale' && localedef -i de_DE -f UTF-8 "
			         "'%s/locale/de_DE.UTF-8' >/dev/null 2>&1",
			         GSIO_BINARY_DIR, GSIO_BINARY_DIR);
			if (system(cmd) == -1) return false;
			char dir[1024];
			snprintf(dir, sizeof(dir), "%s/locale", GSIO_BINARY_DIR);
			setenv("LOCPATH", dir, 1);
		}
	}
	return false;
}

static void test_locale(void **state)
{
	(void)state;
	if (!set_comma_locale()) {
		print_message("SKIPPED: no locale with a decimal comma (de_DE) and localedef failed\n");
		skip();
	}
	char probe[32];
	snprintf(probe, sizeof(probe), "%.1f", 1.5);
	print_message("  LC_NUMERIC=%s prints 1.5 as '%s'\n", setlocale(LC_NUMERIC, NULL), probe);
	assert_string_equal(probe, "1,5"); // the locale really is active
	assert_true(strtod("1.5", NULL) != 1.5); // and libc's parser follows it
	assert_true(bits(pf("1.5")) == bits(1.5f));
	assert_true(bits(pf("-0.000001")) == bits(-0.000001f));
	assert_false(pf_ok("1,5"));
	char buf[GSIO_FLOAT_TEXT_MAX];
	gsioi_format_float(123456.789f, buf);
	assert_string_equal(buf, "123456.79");
	gsioi_format_float(-2.5e-7f, buf);
	assert_string_equal(buf, "-2.5e-07");
	setlocale(LC_NUMERIC, "C");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tokens),          cmocka_unit_test(test_peek_and_expect),
	    cmocka_unit_test(test_errors),          cmocka_unit_test(test_ints),
	    cmocka_unit_test(test_float_values),    cmocka_unit_test(test_float_vs_libc),
	    cmocka_unit_test(test_format_roundtrip), cmocka_unit_test(test_locale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
