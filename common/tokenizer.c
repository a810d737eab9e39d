/* The whole-file text tokenizer and the locale-free number parser/printer.
 * See gsio_tokenizer.h for the token grammar. */
#include "gsio_tokenizer.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

// -- Character classes (ASCII only: isspace() and friends follow the locale)
//
// One table lookup per byte: the word loop is the hot path of MD5 parsing
// (a strchr per byte for the punctuation set cost 23% of an MD5 load).

enum {
	C_SPACE = 1,   // whitespace other than a newline
	C_NEWLINE = 2, // \n or \r
	C_CONTROL = 4, // a control byte that is not whitespace (binary data)
	C_PUNCT = 8,   // one of the tokenizer's punctuation characters
	C_STOP = 16,   // ends a word: any of the above, '"' or '/' (a comment may start)
};

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void build_classes(gsioi_tokenizer *t)
{
	memset(t->cls, 0, sizeof(t->cls));
	for (unsigned c = 0; c < 256; c++) {
		uint8_t k = 0;
		if (c == '\n' || c == '\r')
			k = C_NEWLINE;
		else if (is_space((unsigned char)c))
			k = C_SPACE;
		// Control bytes other than whitespace never occur in a text file: they
		// mean binary data, and stopping there gives a clearer error than a
		// strange word.
		else if (c < 0x20 || c == 0x7f)
			k = C_CONTROL;
		if (c && strchr(t->punct, (int)c)) k |= C_PUNCT;
		if (k || c == '"' || c == '/') k |= C_STOP;
		t->cls[c] = k;
	}
}

// -- Positions and errors

static int32_t clamp_i32(size_t v)
{
	return v > (size_t)INT32_MAX ? INT32_MAX : (int32_t)v;
}

static int32_t column_at(const gsioi_tokenizer *t, size_t pos)
{
	return clamp_i32(pos - t->line_start + 1);
}

void gsioi_tokenizer_init(gsioi_tokenizer *t, const char *data, size_t size, const char *file,
                         const char *punct, gsio_error *err)
{
	memset(t, 0, sizeof(*t));
	t->data = data ? data : "";
	t->size = data ? size : 0;
	t->line = 1;
	t->file = file ? file : "";
	t->punct = punct ? punct : "{}()";
	build_classes(t);
	if (err) {
		t->err = err;
	} else {
		gsio_error_clear(&t->local_err_);
		t->err = &t->local_err_;
	}
}

size_t gsioi_tok_remaining(const gsioi_tokenizer *t)
{
	return t->size - t->pos;
}

bool gsioi_token_is(const gsioi_token *tok, const char *word)
{
	size_t n = strlen(word);
	return tok->kind == GSIO_TOKEN_WORD && tok->len == n && !memcmp(tok->text, word, n);
}

// Describes a token for "found ..." in an error: short, printable.
static void describe(const gsioi_token *tok, char *buf, size_t size)
{
	if (tok->kind == GSIO_TOKEN_EOF) {
		snprintf(buf, size, "the end of the file");
		return;
	}
	char text[48];
	size_t n = tok->len < 40 ? tok->len : 40;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)tok->text[i];
		text[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	text[n] = 0;
	const char *more = tok->len > n ? "..." : "";
	if (tok->kind == GSIO_TOKEN_STRING)
		snprintf(buf, size, "the string \"%s%s\"", text, more);
	else
		snprintf(buf, size, "'%s%s'", text, more);
}

bool gsioi_tok_fail(gsioi_tokenizer *t, const gsioi_token *at, gsio_error_code code,
                   bool found_suffix, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char found[80] = "";
	if (found_suffix) describe(at, found, sizeof(found));
	gsioi_fail_at(t->err, code, t->file, -1, at->line, at->column, __FILE__, __LINE__, "%s%s%s",
	             msg, found_suffix ? ", found " : "", found);
	t->failed = true;
	return false;
}

// Fails at a byte position (lexical errors have no token yet).
static bool fail_at_pos(gsioi_tokenizer *t, size_t pos, int32_t line, size_t line_start,
                        const char *what)
{
	gsioi_token at = {GSIO_TOKEN_EOF, t->data + pos, 0, line, clamp_i32(pos - line_start + 1)};
	return gsioi_tok_fail(t, &at, GSIO_ERR_SYNTAX, false, "%s", what);
}

// -- Scanning

// Advances over one newline sequence at pos (\n, \r\n or a lone \r).
static void newline(gsioi_tokenizer *t)
{
	if (t->data[t->pos] == '\r' && t->pos + 1 < t->size && t->data[t->pos + 1] == '\n') t->pos++;
	t->pos++;
	if (t->line < INT32_MAX) t->line++;
	t->line_start = t->pos;
}

// Skips whitespace and comments. False on an unterminated block comment.
static bool skip_blank(gsioi_tokenizer *t)
{
	while (t->pos < t->size) {
		char c = t->data[t->pos];
		uint8_t k = t->cls[(unsigned char)c];
		if (k & C_NEWLINE) {
			newline(t);
		} else if (k & C_SPACE) {
			t->pos++;
		} else if (c == '/' && t->pos + 1 < t->size && t->data[t->pos + 1] == '/') {
			while (t->pos < t->size && t->data[t->pos] != '\n' && t->data[t->pos] != '\r')
				t->pos++;
		} else if (c == '/' && t->pos + 1 < t->size && t->data[t->pos + 1] == '*') {
			size_t start = t->pos, start_line_start = t->line_start;
			int32_t start_line = t->line;
			t->pos += 2;
			for (;;) {
				if (t->pos + 1 >= t->size) {
					return fail_at_pos(t, start, start_line, start_line_start,
					                   "unterminated /* comment");
				}
				char d = t->data[t->pos];
				if (d == '*' && t->data[t->pos + 1] == '/') {
					t->pos += 2;
					break;
				}
				if (d == '\n' || d == '\r')
					newline(t);
				else
					t->pos++;
			}
		} else {
			break;
		}
	}
	return true;
}

static bool scan(gsioi_tokenizer *t, gsioi_token *tok)
{
	if (t->failed) return false;
	if (!skip_blank(t)) return false;
	tok->line = t->line;
	tok->column = column_at(t, t->pos);
	tok->text = t->data + t->pos;
	tok->len = 0;
	if (t->pos >= t->size) {
		tok->kind = GSIO_TOKEN_EOF;
		return true;
	}
	unsigned char c = (unsigned char)t->data[t->pos];
	if (t->cls[c] & C_CONTROL) {
		char what[64];
		snprintf(what, sizeof(what), "unexpected control byte 0x%02x (not a text file?)", c);
		return fail_at_pos(t, t->pos, t->line, t->line_start, what);
	}
	if (c == '"') {
		size_t start = t->pos++;
		while (t->pos < t->size) {
			char d = t->data[t->pos];
			if (d == '"' || d == '\n' || d == '\r' || d == 0) break;
			t->pos++;
		}
		if (t->pos >= t->size || t->data[t->pos] != '"')
			return fail_at_pos(t, start, t->line, t->line_start,
			                   "unterminated string (a string ends on its own line)");
		tok->kind = GSIO_TOKEN_STRING;
		tok->text = t->data + start + 1;
		tok->len = t->pos - start - 1;
		t->pos++;
		return true;
	}
	if (t->cls[c] & C_PUNCT) {
		tok->kind = GSIO_TOKEN_PUNCT;
		tok->len = 1;
		t->pos++;
		return true;
	}
	size_t start = t->pos;
	const unsigned char *d = (const unsigned char *)t->data;
	size_t pos = t->pos, size = t->size;
	while (pos < size) {
		if (t->cls[d[pos]] & C_STOP) {
			if (d[pos] != '/') break;
			if (pos + 1 < size && (d[pos + 1] == '/' || d[pos + 1] == '*')) break;
		}
		pos++;
	}
	t->pos = pos;
	tok->kind = GSIO_TOKEN_WORD;
	tok->len = t->pos - start;
	return true;
}

bool gsioi_tok_next(gsioi_tokenizer *t, gsioi_token *tok)
{
	if (t->failed) return false;
	if (t->has_peek) {
		*tok = t->peek_tok;
		t->has_peek = false;
	} else if (!scan(t, tok)) {
		return false;
	}
	t->last = *tok;
	return true;
}

bool gsioi_tok_peek(gsioi_tokenizer *t, gsioi_token *tok)
{
	if (t->failed) return false;
	if (!t->has_peek) {
		if (!scan(t, &t->peek_tok)) return false;
		t->has_peek = true;
	}
	*tok = t->peek_tok;
	return true;
}

// -- Expectations

static gsio_error_code code_for(const gsioi_token *tok)
{
	return tok->kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX;
}

bool gsioi_tok_expect_word(gsioi_tokenizer *t, const char *word)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (gsioi_token_is(&tok, word)) return true;
	return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected '%s'", word);
}

bool gsioi_tok_expect_punct(gsioi_tokenizer *t, char c)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (tok.kind == GSIO_TOKEN_PUNCT && tok.text[0] == c) return true;
	return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected '%c'", c);
}

bool gsioi_tok_string(gsioi_tokenizer *t, const char *what, gsioi_token *out)
{
	GSIO_CHECK(gsioi_tok_next(t, out));
	if (out->kind == GSIO_TOKEN_STRING) return true;
	return gsioi_tok_fail(t, out, code_for(out), true, "expected %s (a quoted string)", what);
}

bool gsioi_tok_int(gsioi_tokenizer *t, const char *what, int64_t min, int64_t max, int64_t *out,
                  gsioi_token *at)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (at) *at = tok;
	if (tok.kind != GSIO_TOKEN_WORD || !gsioi_parse_int64(tok.text, tok.len, out))
		return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected %s (an integer)", what);
	if (*out < min || *out > max) {
		if (max < min)
			return gsioi_tok_fail(t, &tok, GSIO_ERR_CORRUPT, false,
			                     "%s %lld is out of range: there is nothing it can refer to",
			                     what, (long long)*out);
		return gsioi_tok_fail(t, &tok, GSIO_ERR_CORRUPT, false, "%s %lld is outside %lld..%lld",
		                     what, (long long)*out, (long long)min, (long long)max);
	}
	return true;
}

bool gsioi_tok_float(gsioi_tokenizer *t, const char *what, float *out)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (tok.kind == GSIO_TOKEN_WORD && gsioi_parse_float(tok.text, tok.len, out)) return true;
	return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected %s (a finite number)", what);
}

// -- Numbers

bool gsioi_parse_int64(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
	if (i == len) return false;
	uint64_t v = 0;
	const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < len; i++) {
		if (!is_digit(s[i])) return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (limit - d) / 10) return false;
		v = v * 10 + d;
	}
	if (neg)
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	else
		*out = (int64_t)v;
	return true;
}

// 10^n for n >= 0 by binary powering. Each table entry is the compiler's
// correctly rounded constant; up to 1e27 they are exact in x87 long double.
static long double pow10_ld(int64_t n)
{
	static const long double steps[] = {1e1L, 1e2L, 1e4L, 1e8L, 1e16L, 1e32L, 1e64L, 1e128L,
	                                    1e256L};
	long double p = 1.0L;
	for (size_t b = 0; n && b < sizeof(steps) / sizeof(steps[0]); b++, n >>= 1)
		if (n & 1) p *= steps[b];
	return p;
}

// The value of a decimal number in long double; false when malformed.
static bool parse_decimal(const char *s, size_t len, long double *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
	uint64_t m = 0;       // the first 19 significant digits
	int kept = 0;         // how many of them
	bool sticky = false;  // a dropped digit was non-zero
	bool any = false;     // saw at least one digit
	int64_t exp10 = 0;    // value = m * 10^exp10
	for (; i < len && is_digit(s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');
		any = true;
		if (m == 0 && d == 0) continue; // leading zero
		if (kept < 19) {
			m = m * 10 + d;
			kept++;
		} else {
			exp10++;
			sticky |= d != 0;
		}
	}
	if (i < len && s[i] == '.') {
		for (i++; i < len && is_digit(s[i]); i++) {
			unsigned d = (unsigned)(s[i] - '0');
			any = true;
			if (m == 0 && d == 0) {
				exp10--;
			} else if (kept < 19) {
				m = m * 10 + d;
				kept++;
				exp10--;
			} else {
				sticky |= d != 0;
			}
		}
	}
	if (!any) return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		bool eneg = false;
		if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
		if (i == len || !is_digit(s[i])) return false;
		int64_t e = 0;
		for (; i < len && is_digit(s[i]); i++)
			if (e < 1000000) e = e * 10 + (s[i] - '0'); // beyond any range: saturate
		exp10 += eneg ? -e : e;
	}
	if (i != len) return false;
	long double v;
	if (m == 0 || exp10 < -5000) {
		v = 0.0L;
	} else if (exp10 > 5000) {
		v = HUGE_VALL;
	} else {
		// A dropped non-zero digit nudges the last bit so halfway cases round up.
		if (sticky) m |= 1;
		v = (long double)m;
		v = exp10 >= 0 ? v * pow10_ld(exp10) : v / pow10_ld(-exp10);
	}
	*out = neg ? -v : v;
	return true;
}

// A value rounds to a finite result when it is below the midpoint between
// the largest finite value and the next power of two.
#if LDBL_MANT_DIG > DBL_MANT_DIG
#define MD5_DBL_LIMIT 0x1.fffffffffffff8p1023L
#else
#define MD5_DBL_LIMIT ((long double)DBL_MAX * (1.0L + DBL_EPSILON / 2)) // no wider type
#endif
#define MD5_FLT_LIMIT 0x1.ffffffp127L

bool gsioi_parse_double(const char *s, size_t len, double *out)
{
	long double v;
	if (!parse_decimal(s, len, &v) || !(fabsl(v) < MD5_DBL_LIMIT)) return false;
	*out = (double)v;
	return true;
}

bool gsioi_parse_float(const char *s, size_t len, float *out)
{
	long double v;
	if (!parse_decimal(s, len, &v) || !(fabsl(v) < MD5_FLT_LIMIT)) return false;
	*out = (float)v;
	return true;
}

size_t gsioi_format_float(float v, char buf[GSIO_FLOAT_TEXT_MAX])
{
	buf[0] = 0;
	if (!isfinite(v)) return 0;
	size_t n = 0;
	for (int digits = 6; digits <= 9; digits++) {
		char tmp[GSIO_FLOAT_TEXT_MAX * 2];
		snprintf(tmp, sizeof(tmp), "%.*g", digits, (double)v);
		// printf's decimal point follows LC_NUMERIC and may be several bytes:
		// whatever is not a digit, sign or exponent is the decimal point.
		n = 0;
		for (const char *p = tmp; *p && n + 1 < GSIO_FLOAT_TEXT_MAX; p++) {
			char c = *p;
			if (is_digit(c) || c == '-' || c == '+' || c == 'e' || c == 'E')
				buf[n++] = c;
			else if (n == 0 || buf[n - 1] != '.')
				buf[n++] = '.';
		}
		buf[n] = 0;
		float back;
		if (gsioi_parse_float(buf, n, &back) && !memcmp(&back, &v, sizeof(v))) break;
	}
	return n;
}
