/* The whole-file text tokenizer and the locale-free number parser/printer.
 * See gsioi_tokenizer.h for the token grammar. */
#include "gsioi_tokenizer.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

// A tokenizer is made for every MD5 file and for every detection probe, so
// the table is filled by setting the few classes that are not 0 (a loop
// over all 256 bytes with a strchr each was 30% of loading a 2 KB file).
static void build_classes(gsioi_tokenizer *t)
{
	uint8_t *cls = t->cls;
	memset(cls, 0, sizeof(t->cls));
	// Control bytes other than whitespace never occur in a text file: they
	// mean binary data, and stopping there gives a clearer error than a
	// strange word.
	for (unsigned c = 0; c < 0x20; c++) cls[c] = C_CONTROL | C_STOP;
	cls[0x7f] = C_CONTROL | C_STOP;
	cls[' '] = cls['\t'] = cls['\v'] = cls['\f'] = C_SPACE | C_STOP;
	cls['\n'] = cls['\r'] = C_NEWLINE | C_STOP;
	cls['"'] = cls['/'] = C_STOP;
	for (const char *p = t->punct; *p; p++) cls[(unsigned char)*p] |= C_PUNCT | C_STOP;
}

// -- Numbers

// The number readers are small and sit on the hot path of every token
// (gsioi_tok_float): inlined there, the decimal's fields stay in registers.
#if defined(__GNUC__)
#define HOT_INLINE inline __attribute__((always_inline))
#define COLD_NOINLINE __attribute__((noinline, cold))
#else
#define HOT_INLINE inline
#define COLD_NOINLINE
#endif

bool gsioi_parse_int64(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
	if (i == len) return false;
	uint64_t v = 0;
	// Up to 18 digits cannot overflow (10^18 < 2^63): no check per digit.
	size_t quick = len - i < 18 ? len : i + 18;
	for (; i < quick; i++) {
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9) return false;
		v = v * 10 + d;
	}
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

// A decimal number split up: value = (neg ? -1 : 1) * m * 10^exp10 when
// `many` is false; with more than 19 significant digits m is unusable and
// only the slow path (which reads the text again) can convert it.
typedef struct decimal {
	uint64_t m;
	int64_t exp10;
	bool neg;
	bool many;
} decimal;

// The exponent saturates far beyond any float range, so that adding the
// digit count to it cannot overflow.
#define EXP_SATURATE 100000000

// Reads [+-]? (digits [. digits] | . digits) ([eE] [+-]? digits)? from the
// start of s; returns how many bytes it took, 0 when s does not start with a
// number (or the exponent has no digits). The digit loops take every digit
// into a uint64 without asking whether it is a leading zero or one too many:
// when there are more than 19 digits, the significant ones are counted
// afterwards.
static HOT_INLINE size_t scan_decimal_prefix(const char *s, size_t len, decimal *out)
{
	const char *p = s, *end = s + len;
	out->neg = false;
	if (p < end && (*p == '+' || *p == '-')) out->neg = *p++ == '-';
	uint64_t m = 0;
	const char *int_start = p;
	for (unsigned d; p < end && (d = (unsigned)(unsigned char)*p - '0') < 10; p++) m = m * 10 + d;
	size_t int_digits = (size_t)(p - int_start), frac_digits = 0;
	if (p < end && *p == '.') {
		const char *frac_start = ++p;
		for (unsigned d; p < end && (d = (unsigned)(unsigned char)*p - '0') < 10; p++)
			m = m * 10 + d;
		frac_digits = (size_t)(p - frac_start);
	}
	if (int_digits + frac_digits == 0) return 0;
	int64_t e = 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
		if (p == end || !is_digit(*p)) return 0;
		for (; p < end && is_digit(*p); p++)
			if (e < EXP_SATURATE) e = e * 10 + (*p - '0');
		if (eneg) e = -e;
	}
	out->many = false;
	if (int_digits + frac_digits > 19) {
		// Leading zeros do not count; the point may sit among them.
		size_t sig = int_digits + frac_digits;
		for (const char *q = int_start; q < p && (*q == '0' || *q == '.'); q++)
			if (*q == '0') sig--;
		out->many = sig > 19;
	}
	if (frac_digits > EXP_SATURATE) frac_digits = EXP_SATURATE; // the value is 0 or slow anyway
	out->m = m;
	out->exp10 = e - (int64_t)frac_digits;
	return (size_t)(p - s);
}

// The whole of s is one number.
static bool scan_decimal(const char *s, size_t len, decimal *out)
{
	return len && scan_decimal_prefix(s, len, out) == len;
}

// The slow path: the digits again, rewritten as "[-]DIGITSe[-]N" (no decimal
// point, so the C library's locale plays no part) for strtod/strtof, which
// round correctly. Digits beyond the 800th only matter as "more than zero":
// a halfway point between two doubles has at most 767 significant digits,
// so replacing the tail by a single 1 leaves the value on the same side of
// every one of them.
#define SLOW_DIGITS 800

typedef struct slow_text {
	char buf[SLOW_DIGITS + 32];
} slow_text;

static const char *slow_text_of(const char *s, size_t len, slow_text *out)
{
	char *b = out->buf;
	size_t n = 0, kept = 0, i = 0;
	int64_t exp10 = 0;
	bool sticky = false, started = false;
	if (i < len && (s[i] == '+' || s[i] == '-')) {
		if (s[i] == '-') b[n++] = '-';
		i++;
	}
	bool frac = false;
	for (; i < len && s[i] != 'e' && s[i] != 'E'; i++) {
		if (s[i] == '.') {
			frac = true;
			continue;
		}
		char c = s[i];
		started |= c != '0';
		if (!started) {
			if (frac && exp10 > -EXP_SATURATE) exp10--; // a leading zero after the point
		} else if (kept < SLOW_DIGITS) {
			b[n++] = c;
			kept++;
			if (frac) exp10--;
		} else {
			sticky |= c != '0';
			if (!frac && exp10 < EXP_SATURATE) exp10++;
		}
	}
	if (!kept) b[n++] = '0';
	if (sticky) {
		b[n++] = '1';
		exp10--;
	}
	if (i < len) { // the exponent, already checked by scan_decimal
		i++;
		bool eneg = false;
		if (s[i] == '+' || s[i] == '-') eneg = s[i++] == '-';
		int64_t e = 0;
		for (; i < len; i++)
			if (e < EXP_SATURATE) e = e * 10 + (s[i] - '0');
		exp10 += eneg ? -e : e;
	}
	snprintf(b + n, sizeof(out->buf) - n, "e%lld", (long long)exp10);
	return b;
}

// Correct rounding by the C library; the value may round to infinity (the
// caller rejects that). errno is left as it was (ERANGE is expected here).
static double slow_double(const char *s, size_t len)
{
	slow_text t;
	int saved = errno;
	double v = strtod(slow_text_of(s, len, &t), NULL);
	errno = saved;
	return v;
}

static float slow_float(const char *s, size_t len)
{
	slow_text t;
	int saved = errno;
	float v = strtof(slow_text_of(s, len, &t), NULL);
	errno = saved;
	return v;
}

// Clinger's fast path: m < 2^53 and 10^|e| <= 10^22 are exact doubles, so
// one multiplication or division rounds the exact value once, correctly.
// Not where the compiler evaluates doubles in a wider format (x87).
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define FAST_PATH 1
#else
#define FAST_PATH 0
#endif

static HOT_INLINE bool fast_double(const decimal *d, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
	                               1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	                               1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
	if (!FAST_PATH || d->many || d->m > (1ull << 53) || d->exp10 < -22 || d->exp10 > 22)
		return false;
	double v = (double)d->m;
	v = d->exp10 < 0 ? v / pow10[-d->exp10] : v * pow10[d->exp10];
	*out = d->neg ? -v : v;
	return true;
}

// The value of a scanned number (s, len: its text, for the slow path);
// false when it is beyond the type's finite range.
static bool to_double(const decimal *d, const char *s, size_t len, double *out)
{
	double v;
	if (d->m == 0 && !d->many)
		v = d->neg ? -0.0 : 0.0;
	else if (!fast_double(d, &v))
		v = slow_double(s, len);
	if (!isfinite(v)) return false;
	*out = v;
	return true;
}

bool gsioi_parse_double(const char *s, size_t len, double *out)
{
	decimal d;
	return scan_decimal(s, len, &d) && to_double(&d, s, len, out);
}

// The double of the fast path rounded once more to float is the correctly
// rounded float unless it landed exactly on a halfway point between two
// floats (then the exact value may lie on either side of it): that, and the
// float subnormal range (fewer bits) and anything beyond FLT_MAX (which
// may round to infinity), take the slow path. Halfway points of normal
// floats have a 1 in the bit below the 24th and zeros after it.
static bool float_of_double_is_exact(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	if ((u & 0x1fffffffull) == 0x10000000ull) return false;
	double a = fabs(v);
	return a >= (double)FLT_MIN && a <= (double)FLT_MAX;
}

static HOT_INLINE bool to_float(const decimal *d, const char *s, size_t len, float *out)
{
	float f;
	double v;
	if (d->m == 0 && !d->many)
		f = d->neg ? -0.0f : 0.0f;
	else if (fast_double(d, &v) && float_of_double_is_exact(v))
		f = (float)v;
	else
		f = slow_float(s, len);
	if (!isfinite(f)) return false;
	*out = f;
	return true;
}

bool gsioi_parse_float(const char *s, size_t len, float *out)
{
	decimal d;
	return scan_decimal(s, len, &d) && to_float(&d, s, len, out);
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

/* Peeks the first token of a head into *tok (false on a lexical failure,
 * in t's error); *decided: it, or the failure, ends before the head's last
 * byte (else it is a word, string or comment the rest may go on with). */
static bool head_peek(gsioi_tokenizer *t, gsioi_token *tok, bool *decided)
{
	bool ok = gsioi_tok_peek(t, tok);
	*decided = t->pos + 1 < t->size;
	return ok;
}

bool gsioi_tok_head_decides(const char *data, size_t n, const char *punct)
{
	gsio_error local;
	gsioi_tokenizer t;
	gsioi_tokenizer_init(&t, data, n, NULL, punct, &local);
	gsioi_token tok;
	bool decided;
	(void)head_peek(&t, &tok, &decided);
	return decided;
}

bool gsioi_tok_head_word(const char *data, size_t n, bool whole, const char *file,
                         const char *punct, const char *const *words, gsio_error *err)
{
	gsio_error local;
	gsio_error_clear(&local);
	gsioi_tokenizer t;
	gsioi_tokenizer_init(&t, data, n, file, punct, &local);
	gsioi_token tok;
	bool decided, ok = head_peek(&t, &tok, &decided);
	if (!whole && !decided) return true;
	for (size_t i = 0; ok && words[i]; i++)
		if (gsioi_token_is(&tok, words[i])) return true;
	if (!gsioi_tok_expect_word(&t, words[0]) && err) *err = local;
	return false;
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
static bool skip_blank_slow(gsioi_tokenizer *t)
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

// The same, with spaces and newlines (nearly every call) in a tight loop and
// the rest ('/' may start a comment) left to skip_blank_slow.
static inline bool skip_blank(gsioi_tokenizer *t)
{
	const unsigned char *d = (const unsigned char *)t->data;
	size_t pos = t->pos, size = t->size;
	while (pos < size) {
		uint8_t k = t->cls[d[pos]];
		if (k & C_SPACE) {
			pos++;
		} else if (k & C_NEWLINE) {
			t->pos = pos;
			newline(t);
			pos = t->pos;
		} else if (d[pos] == '/') {
			t->pos = pos;
			return skip_blank_slow(t);
		} else {
			break;
		}
	}
	t->pos = pos;
	return true;
}

// True when a word that reached pos ends there: the end of the input, or a
// byte that stops words ('/' only when a comment starts with it).
static bool word_ends_at(const gsioi_tokenizer *t, size_t pos)
{
	if (pos >= t->size) return true;
	unsigned char c = (unsigned char)t->data[pos];
	if (!(t->cls[c] & C_STOP)) return false;
	if (c != '/') return true;
	return pos + 1 < t->size && (t->data[pos + 1] == '/' || t->data[pos + 1] == '*');
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
//
// The parsers ask for what they expect next, and most tokens are numbers.
// Each function first tries to read what it expects straight from the text
// (after skip_blank): a number's digits are taken while its end is found,
// instead of finding the word's end and then reading the word again. That
// fast path only ever succeeds; anything unusual (a peeked token, a word
// that goes on after the number, a value out of range, the end of the
// input) leaves the position where skip_blank put it and takes the general
// path, gsioi_tok_next and the parse_* functions, which also makes every
// error message.

static gsio_error_code code_for(const gsioi_token *tok)
{
	return tok->kind == GSIO_TOKEN_EOF ? GSIO_ERR_TRUNCATED : GSIO_ERR_SYNTAX;
}

// Ready for a fast path: no peeked token, no failure, blanks skipped.
static bool fast_ready(gsioi_tokenizer *t)
{
	return !t->failed && !t->has_peek && skip_blank(t);
}

// Consumes len bytes at pos as a token of kind (the fast paths' success).
static void fast_take(gsioi_tokenizer *t, gsioi_token_kind kind, size_t len)
{
	gsioi_token *tok = &t->last;
	tok->kind = kind;
	tok->text = t->data + t->pos;
	tok->len = len;
	tok->line = t->line;
	tok->column = column_at(t, t->pos);
	t->pos += len;
}

bool gsioi_tok_expect_word(gsioi_tokenizer *t, const char *word)
{
	if (fast_ready(t)) {
		// Keywords are short: a byte loop beats strlen + memcmp calls.
		const char *d = t->data + t->pos, *end = t->data + t->size;
		size_t n = 0;
		while (word[n] && d + n < end && d[n] == word[n]) n++;
		if (n && !word[n] && word_ends_at(t, t->pos + n)) {
			fast_take(t, GSIO_TOKEN_WORD, n);
			return true;
		}
	}
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (gsioi_token_is(&tok, word)) return true;
	return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected '%s'", word);
}

bool gsioi_tok_expect_punct(gsioi_tokenizer *t, char c)
{
	if (fast_ready(t) && t->pos < t->size && t->data[t->pos] == c &&
	    (t->cls[(unsigned char)c] & C_PUNCT)) {
		fast_take(t, GSIO_TOKEN_PUNCT, 1);
		return true;
	}
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

// [+-]? and 1 to 18 digits at the start of s (no overflow possible); the
// bytes taken, 0 when s does not start so (longer numbers: the general path).
static size_t scan_int_prefix(const char *s, size_t len, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
	size_t start = i, stop = len - i > 18 ? i + 18 : len;
	int64_t v = 0;
	for (unsigned d; i < stop && (d = (unsigned)(unsigned char)s[i] - '0') < 10; i++)
		v = v * 10 + (int64_t)d;
	if (i == start || (i < len && is_digit(s[i]))) return 0; // none, or a 19th digit
	*out = neg ? -v : v;
	return i;
}

// The general paths are kept out of line: inlined, their register needs
// made every fast call save and restore more registers.
static COLD_NOINLINE bool tok_int_general(gsioi_tokenizer *t, const char *what, int64_t min,
                                          int64_t max, int64_t *out, gsioi_token *at)
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

bool gsioi_tok_int(gsioi_tokenizer *t, const char *what, int64_t min, int64_t max, int64_t *out,
                  gsioi_token *at)
{
	if (fast_ready(t)) {
		int64_t v;
		size_t n = scan_int_prefix(t->data + t->pos, t->size - t->pos, &v);
		if (n && word_ends_at(t, t->pos + n) && v >= min && v <= max) {
			fast_take(t, GSIO_TOKEN_WORD, n);
			if (at) *at = t->last;
			*out = v;
			return true;
		}
	}
	return tok_int_general(t, what, min, max, out, at);
}

static COLD_NOINLINE bool tok_float_general(gsioi_tokenizer *t, const char *what, float *out)
{
	gsioi_token tok;
	GSIO_CHECK(gsioi_tok_next(t, &tok));
	if (tok.kind == GSIO_TOKEN_WORD && gsioi_parse_float(tok.text, tok.len, out)) return true;
	return gsioi_tok_fail(t, &tok, code_for(&tok), true, "expected %s (a finite number)", what);
}

bool gsioi_tok_float(gsioi_tokenizer *t, const char *what, float *out)
{
	if (fast_ready(t)) {
		decimal d;
		const char *s = t->data + t->pos;
		size_t n = scan_decimal_prefix(s, t->size - t->pos, &d);
		if (n && word_ends_at(t, t->pos + n) && to_float(&d, s, n, out)) {
			fast_take(t, GSIO_TOKEN_WORD, n);
			return true;
		}
	}
	return tok_float_general(t, what, out);
}

// -- Printing numbers

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
