/* The text tokenizer: tokens, positions, comments, strings, errors, and the
 * locale-free number parser and printer (checked against the C library's
 * strtof/strtod in the "C" locale, and under a locale with a decimal comma). */
#define _POSIX_C_SOURCE 200809L // setenv
#include "test_util.h"

#include "gsioi_tokenizer.h"

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

// -- The expectation functions' fast paths against the general one
//
// gsioi_tok_int/float/expect_word/expect_punct read numbers and keywords
// straight from the text and fall back to gsioi_tok_next when anything is
// unusual. Random texts of numbers, words, comments, strings and
// punctuation, with and without separators, are read twice: once with
// gsioi_tok_next (the reference: its tokens say which function to call),
// once with the function each token calls for. Every call must agree with
// the reference: the same success, value and token (kind, text, line,
// column); where the reference fails (a lexical error), the call fails too.

static const char *const pieces[] = {
    "1", "-0", "+3", "1.5", ".5", "5.", "1e5", "-2.5E-3", "1e", "1e+", "0.016430", "31.222026",
    "12345678901234567890", "123456789012345678", "-9223372036854775808", "1e39", "3.4e38",
    "0.00000000000000000000000000001", "vert", "weight", "1.5x", "x1", "1.5/2", "a/b", "1/", "1.#QNAN",
    "// c\n", "/* c */", "/*\n*/", "(", ")", "{", "}", "\"s\"", "\"\"", "/", "\x01", "\"open",
};
static const char *const seps[] = {" ", "\t", "\n", "\r\n", "\r", "", "  ", " /**/ "};

static void random_text(char *buf, size_t size)
{
	size_t n = 0;
	int count = 1 + (int)(rnd() % 12);
	buf[0] = 0;
	for (int i = 0; i < count; i++) {
		const char *p = pieces[rnd() % (sizeof(pieces) / sizeof(pieces[0]))];
		const char *sp = seps[rnd() % (sizeof(seps) / sizeof(seps[0]))];
		n += (size_t)snprintf(buf + n, size - n, "%s%s", p, sp);
	}
}

static void same_token(const gsioi_tokenizer *t, const gsioi_token *ref, const char *text)
{
	const gsioi_token *got = &t->last;
	if (got->kind != ref->kind || got->text != ref->text || got->len != ref->len ||
	    got->line != ref->line || got->column != ref->column)
		fail_msg("in '%s': token '%.*s' at %d:%d read as '%.*s' at %d:%d", text, (int)ref->len,
		         ref->text, ref->line, ref->column, (int)got->len, got->text, got->line,
		         got->column);
}

static void test_fast_paths(void **state)
{
	(void)state;
	char text[512];
	size_t calls = 0;
	for (int round = 0; round < 20000; round++) {
		random_text(text, sizeof(text));
		gsio_error rerr, aerr;
		gsioi_tokenizer r, a;
		gsio_error_clear(&rerr);
		gsio_error_clear(&aerr);
		gsioi_tokenizer_init(&r, text, strlen(text), "t.txt", NULL, &rerr);
		gsioi_tokenizer_init(&a, text, strlen(text), "t.txt", NULL, &aerr);
		for (;;) {
			gsioi_token ref;
			calls++;
			if (!gsioi_tok_next(&r, &ref)) {
				float f;
				if (gsioi_tok_float(&a, "x", &f)) fail_msg("in '%s': read past a lexical error", text);
				assert_int_equal(aerr.code, rerr.code);
				assert_string_equal(aerr.message, rerr.message);
				break;
			}
			if (ref.kind == GSIO_TOKEN_EOF) {
				assert_true(gsioi_tok_next(&a, &ref));
				assert_int_equal(ref.kind, GSIO_TOKEN_EOF);
				break;
			}
			int64_t iv, iref;
			float fv, fref;
			bool ok;
			if (ref.kind == GSIO_TOKEN_PUNCT) {
				ok = gsioi_tok_expect_punct(&a, ref.text[0]);
			} else if (ref.kind == GSIO_TOKEN_STRING) {
				gsioi_token st;
				ok = gsioi_tok_string(&a, "x", &st);
			} else if (gsioi_parse_int64(ref.text, ref.len, &iref)) {
				// Alternately a range that holds every value and one that may not.
				bool narrow = rnd() % 2;
				gsioi_token at;
				ok = gsioi_tok_int(&a, "x", narrow ? 0 : INT64_MIN, narrow ? 10 : INT64_MAX, &iv,
				                   &at);
				if (narrow && (iref < 0 || iref > 10)) {
					if (ok) fail_msg("in '%s': %lld passed as in 0..10", text, (long long)iref);
					assert_int_equal(aerr.code, GSIO_ERR_CORRUPT);
					break;
				}
				if (ok && iv != iref) fail_msg("in '%s': %lld read as %lld", text, (long long)iref, (long long)iv);
				if (ok) same_token(&a, &at, text);
			} else if (gsioi_parse_float(ref.text, ref.len, &fref)) {
				ok = gsioi_tok_float(&a, "x", &fv);
				if (ok && bits(fv) != bits(fref))
					fail_msg("in '%s': '%.*s' read as %.9g, not %.9g", text, (int)ref.len, ref.text,
					         (double)fv, (double)fref);
			} else {
				// A word that is no number: as a keyword it passes, as a number it fails.
				if (rnd() % 2) {
					char word[sizeof(text) + 1];
					snprintf(word, sizeof(word), "%.*s", (int)ref.len, ref.text);
					ok = gsioi_tok_expect_word(&a, word);
				} else {
					if (gsioi_tok_float(&a, "x", &fv))
						fail_msg("in '%s': the word '%.*s' read as a number", text, (int)ref.len,
						         ref.text);
					assert_int_equal(aerr.code, GSIO_ERR_SYNTAX);
					break;
				}
			}
			if (!ok) fail_msg("in '%s': '%.*s' at %d:%d refused: %s", text, (int)ref.len, ref.text,
			                  ref.line, ref.column, aerr.message);
			same_token(&a, &ref, text);
		}
	}
	print_message("  %zu tokens read both ways, the same\n", calls);
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

// -- Numbers against the C library
//
// Random decimal strings of many shapes, compared bit for bit with the C
// library (this program runs in the "C" locale unless a test changes it).
// A string libc reads as infinite must be rejected; every other one must
// give libc's float and libc's double exactly.

typedef struct libc_check {
	size_t checked, rejected, float_mismatch, double_mismatch;
} libc_check;

static void check_libc(libc_check *c, const char *buf)
{
	size_t len = strlen(buf);
	char *end;
	float ref = strtof(buf, &end);
	if (*end) fail_msg("test generator made '%s', which libc does not read whole", buf);
	float v = -12345.0f;
	bool ok = gsioi_parse_float(buf, len, &v);
	if (!isfinite(ref)) {
		if (ok) fail_msg("'%s' is infinite as a float but parsed as %.9g", buf, (double)v);
		c->rejected++;
	} else if (!ok) {
		fail_msg("'%s' rejected (libc: %.9g)", buf, (double)ref);
	} else if (bits(v) != bits(ref)) {
		if (c->float_mismatch < 5)
			print_message("  float mismatch: %.80s -> %.9g, libc %.9g\n", buf, (double)v, (double)ref);
		c->float_mismatch++;
	}
	double dref = strtod(buf, NULL), dv = -12345.0;
	ok = gsioi_parse_double(buf, len, &dv);
	if (!isfinite(dref)) {
		if (ok) fail_msg("'%s' is infinite as a double but parsed as %.17g", buf, dv);
	} else if (!ok) {
		fail_msg("'%s' rejected as a double (libc: %.17g)", buf, dref);
	} else if (memcmp(&dv, &dref, sizeof(dv))) {
		if (c->double_mismatch < 5)
			print_message("  double mismatch: %.80s -> %.17g, libc %.17g\n", buf, dv, dref);
		c->double_mismatch++;
	}
	c->checked++;
}

// nd random digits (the first one non-zero when lead is set).
static void random_digits(char *out, int nd, bool lead)
{
	for (int i = 0; i < nd; i++) out[i] = (char)('0' + rnd() % 10);
	if (lead && nd > 0 && out[0] == '0') out[0] = (char)('1' + rnd() % 9);
	out[nd] = 0;
}

// Any shape: 1 to 30 digits, the point anywhere or nowhere, exponents far
// beyond both ranges.
static void random_decimal(char *buf, size_t size)
{
	char digits[40];
	int nd = 1 + (int)(rnd() % 30);
	random_digits(digits, nd, false);
	int point = (int)(rnd() % (unsigned)(nd + 1));
	int e = (int)(rnd() % 800) - 400;
	if (rnd() % 2) e = (int)(rnd() % 90) - 50;
	const char *sign = rnd() % 2 ? "-" : (rnd() % 8 ? "" : "+");
	const char *ech = rnd() % 2 ? "e" : "E";
	switch (rnd() % 3) {
	case 0: snprintf(buf, size, "%s%.*s.%s%s%d", sign, point, digits, digits + point, ech, e); break;
	case 1: snprintf(buf, size, "%s%.*s.%s", sign, point, digits, digits + point); break;
	default: snprintf(buf, size, "%s%s", sign, digits); break;
	}
	if (buf[strlen(buf) - 1] == '.' && rnd() % 2) strcat(buf, "0");
	if (!strcmp(buf, ".") || !strcmp(buf, "-.") || !strcmp(buf, "+.")) snprintf(buf, size, "0");
}

// What MD5 exporters write: "%f"-like, 0 to 5 integer digits and 0 to 10
// decimals ("-0.000000", "31.222026", "0.0033333334").
static void random_md5_number(char *buf, size_t size)
{
	char ip[8], fp[16];
	int ni = (int)(rnd() % 6), nf = (int)(rnd() % 11);
	random_digits(ip, ni, true);
	random_digits(fp, nf, false);
	if (!ni) snprintf(ip, sizeof(ip), "0");
	const char *sign = rnd() % 2 ? "-" : "";
	if (nf)
		snprintf(buf, size, "%s%s.%s", sign, ip, fp);
	else
		snprintf(buf, size, "%s%s", sign, ip);
}

static void test_float_vs_libc(void **state)
{
	(void)state;
	libc_check c = {0};
	char buf[2048];
	for (size_t i = 0; i < 2000000; i++) {
		random_md5_number(buf, sizeof(buf));
		check_libc(&c, buf);
	}
	for (size_t i = 0; i < 1000000; i++) {
		random_decimal(buf, sizeof(buf));
		check_libc(&c, buf);
	}
	// Near halfway points between two floats, where a parser that rounds
	// twice goes wrong: the exact halfway point (ties to even), and the same
	// value printed with 9 to 19 significant digits (a decimal whose nearest
	// double is the halfway point but which lies just off it), and with its
	// last digit moved one up or down.
	for (size_t i = 0; i < 300000; i++) {
		uint32_t u = (uint32_t)rnd() & 0x7fffffffu;
		float f;
		memcpy(&f, &u, 4);
		if (!isfinite(f)) continue;
		// Above FLT_MAX the halfway point is where rounding goes to infinity.
		double next = f == FLT_MAX ? ldexp(1.0, 128) : (double)nextafterf(f, INFINITY);
		double mid = ((double)f + next) / 2;
		if (rnd() % 2) mid = -mid;
		switch (i % 4) {
		case 0: snprintf(buf, sizeof(buf), "%.*e", 120, mid); break;
		case 1: snprintf(buf, sizeof(buf), "%.*e", 8 + (int)(rnd() % 11), mid); break;
		default: {
			int n = snprintf(buf, sizeof(buf), "%.*e", 10 + (int)(rnd() % 10), mid);
			char *e = strchr(buf, 'e');
			char *last = e - 1;
			if (i % 4 == 2 && *last < '9') (*last)++;
			if (i % 4 == 3 && *last > '0') (*last)--;
			(void)n;
		}
		}
		check_libc(&c, buf);
	}
	// Edge cases: signed zeros, the ends of both ranges, and numbers with
	// hundreds of digits (beyond the 800 the slow path keeps).
	const char *edges[] = {
	    "0", "-0", "+0", "-0.0", "0e999999999", "-0.000e-5", "00000000000000000000000000",
	    "0.000000000000000000000000000000001", "1e-45", "7.006492321624085e-46",
	    "7.0064923216240854e-46", "7.006492321624086e-46", "1.1754942e-38", "1.17549435e-38",
	    "3.4028234e38", "3.4028235e38", "3.40282356779733661637539395458142568447e38",
	    "340282356779733661637539395458142568448", "340282356779733661637539395458142568449",
	    "1.7976931348623157e308", "1.7976931348623158e308", "1.797693134862315807e308",
	    "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
	    "9007199254740993", "9007199254740992.5", "1e22", "1e23", "8.5e-23", "123456789012345678",
	    "1234567890123456789", "12345678901234567890", "0.1", "0.2", "0.3", "16777217",
	    "16777216.5", "33554435", "1.00000005960464477539062500000000000000000001",
	    "1.000000059604644775390625", "1.00000005960464477539062499999999999999999999",
	};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) check_libc(&c, edges[i]);
	for (size_t i = 0; i < 2000; i++) {
		// 700 to 1100 digits, the point somewhere, maybe an exponent: the
		// tail beyond the slow path's 800 digits must still count.
		size_t nd = 700 + rnd() % 400, n = 0;
		if (rnd() % 2) buf[n++] = '-';
		size_t point = rnd() % (nd + 1);
		for (size_t k = 0; k < nd; k++) {
			if (k == point) buf[n++] = '.';
			buf[n++] = (char)('0' + rnd() % 10);
		}
		if (i % 3 == 0) {
			// The exact halfway point of two floats, then a far digit.
			float f = (float)((double)(rnd() % 1000000) / 7.0);
			double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
			n = (size_t)snprintf(buf, sizeof(buf), "%.*e", 60, mid);
			char *e = strchr(buf, 'e');
			char exp_part[16];
			snprintf(exp_part, sizeof(exp_part), "%s", e);
			n = (size_t)(e - buf);
			size_t zeros = 800 + rnd() % 200;
			for (size_t k = 0; k < zeros; k++) buf[n++] = '0';
			buf[n++] = rnd() % 2 ? '1' : '0';
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", exp_part);
		} else if (rnd() % 2) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "e%d", (int)(rnd() % 1400) - 700);
		}
		buf[n] = 0;
		check_libc(&c, buf);
	}
	print_message("  %zu decimal strings (%zu infinite as floats, rejected): %zu float and %zu "
	              "double results differ from libc\n",
	              c.checked, c.rejected, c.float_mismatch, c.double_mismatch);
	assert_int_equal(c.float_mismatch, 0);
	assert_int_equal(c.double_mismatch, 0);
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
	// The slow path (more than 19 digits, or beyond 1e22) goes through libc
	// without a decimal point: the locale does not change it.
	assert_true(bits(pf("3.14159265358979323846264338327950288")) == bits(3.14159265f));
	assert_true(bits(pf("-1.5e-40")) == bits(-1.5e-40f));
	double d;
	assert_true(gsioi_parse_double("1.25e300", 8, &d) && d == 1.25e300);
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
	    cmocka_unit_test(test_fast_paths),
	    cmocka_unit_test(test_float_values),    cmocka_unit_test(test_float_vs_libc),
	    cmocka_unit_test(test_format_roundtrip), cmocka_unit_test(test_locale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
