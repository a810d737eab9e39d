/* gsio text tokenizer (internal): the lexer under the MD5 (and WMP) parsers.
 *
 * It works on the whole file in memory and never allocates: a token is a view
 * (pointer + length) into the caller's buffer, which must outlive the tokens.
 * Tokens are bare words (keywords and numbers alike: the parser decides),
 * double-quoted strings, and single punctuation characters from a set the
 * caller chooses ("{}()" for MD5). `//` line comments and `/ * * /` block
 * comments are skipped. Every token carries its 1-based line and column
 * (columns count bytes), and every error names file:line:column.
 *
 * Numbers are parsed and printed without the C library's locale: a host
 * program may have set LC_NUMERIC to a locale whose decimal point is ','. */
#ifndef GSIOI_TOKENIZER_H
#define GSIOI_TOKENIZER_H

#include "gsioi_internal.h"

// -- Tokens

/** What a token is. */
typedef enum gsioi_token_kind {
	GSIO_TOKEN_EOF = 0, /**< the end of the input (text is empty) */
	GSIO_TOKEN_WORD,    /**< a run of non-space, non-quote, non-punctuation bytes */
	GSIO_TOKEN_STRING,  /**< "..."; text/len are the content without the quotes */
	GSIO_TOKEN_PUNCT    /**< one byte from the tokenizer's punctuation set */
} gsioi_token_kind;

/** A token: a view into the input buffer. */
typedef struct gsioi_token {
	gsioi_token_kind kind;
	const char *text;  /**< first byte (not NUL-terminated) */
	size_t len;        /**< bytes */
	int32_t line;      /**< 1-based line of the first byte (of the quote for strings) */
	int32_t column;    /**< 1-based byte column of the first byte */
} gsioi_token;

/** Tokenizer state. Fill with gsioi_tokenizer_init(); no cleanup needed. */
typedef struct gsioi_tokenizer {
	const char *data;   /**< the input, size bytes */
	size_t size;
	size_t pos;         /**< next byte to scan */
	int32_t line;       /**< line of data[pos] */
	size_t line_start;  /**< offset of the first byte of that line */
	const char *file;   /**< for errors, "" when unknown */
	const char *punct;  /**< the punctuation characters, NUL-terminated */
	uint8_t cls[256];   /**< byte classes (GSIOI_TOK_C_*), built from punct at init */
	gsio_error *err;    /**< where errors go (never NULL after init) */
	gsio_error local_err_; /**< used when the caller passed no error */
	bool failed;        /**< the first failure sticks: later calls fail too */
	bool has_peek;      /**< peek_tok holds the next token */
	gsioi_token peek_tok;
	gsioi_token last;    /**< the last token returned by gsioi_tok_next */
} gsioi_tokenizer;

/** Prepares to tokenize size bytes of data. punct NULL means "{}()". */
void gsioi_tokenizer_init(gsioi_tokenizer *t, const char *data, size_t size, const char *file,
                         const char *punct, gsio_error *err);

/** The next token (EOF at the end, repeatedly). False on a lexical error
 *  (unterminated string or comment, a control byte), with err filled. */
GSIO_NODISCARD bool gsioi_tok_next(gsioi_tokenizer *t, gsioi_token *tok);
/** The next token without consuming it. */
GSIO_NODISCARD bool gsioi_tok_peek(gsioi_tokenizer *t, gsioi_token *tok);

/** Bytes not yet scanned (an upper bound on what the rest can hold: a parser
 *  checks a count against it before allocating). */
size_t gsioi_tok_remaining(const gsioi_tokenizer *t);

/** True when the token is the word `word` (exact, case-sensitive). */
bool gsioi_token_is(const gsioi_token *tok, const char *word);
/** Whether a file's first n bytes (not all of it) hold its first token
 *  whole, or a lexical failure: not when they are blank or a comment to
 *  their end, or the token runs to their last byte. */
bool gsioi_tok_head_decides(const char *data, size_t n, const char *punct);
/** A text format's first token, judged on the file's first n bytes (whole:
 *  all of it) before the rest is read: true when it is one of `words`
 *  (NULL-terminated) or when the head cannot tell (blank or a comment to
 *  its end, a token cut by it); else false with err set as a parser
 *  expecting words[0] first fails on the whole file. */
bool gsioi_tok_head_word(const char *data, size_t n, bool whole, const char *file,
                         const char *punct, const char *const *words, gsio_error *err);

/** Fails at the token's line and column with a formatted message; the
 *  message is followed by ", found <token>" when found_suffix is true.
 *  Returns false. */
bool gsioi_tok_fail(gsioi_tokenizer *t, const gsioi_token *at, gsio_error_code code,
                   bool found_suffix, const char *fmt, ...) GSIO_PRINTF(5, 6);

/** Consumes the word `word` or fails ("expected 'word', found ..."). An EOF
 *  fails with GSIO_ERR_TRUNCATED, anything else with GSIO_ERR_SYNTAX. */
GSIO_NODISCARD bool gsioi_tok_expect_word(gsioi_tokenizer *t, const char *word);
/** Consumes the punctuation c or fails. */
GSIO_NODISCARD bool gsioi_tok_expect_punct(gsioi_tokenizer *t, char c);
/** Consumes a quoted string; `what` names it in errors. */
GSIO_NODISCARD bool gsioi_tok_string(gsioi_tokenizer *t, const char *what, gsioi_token *out);
/** Consumes an integer in [min, max]. A malformed number is GSIO_ERR_SYNTAX,
 *  one out of range is GSIO_ERR_CORRUPT ("<what> 7 is outside 0..3"). If
 *  at is non-NULL it receives the token (for later errors). */
GSIO_NODISCARD bool gsioi_tok_int(gsioi_tokenizer *t, const char *what, int64_t min, int64_t max,
                                 int64_t *out, gsioi_token *at);
/** Consumes a finite float (see gsioi_parse_float). */
GSIO_NODISCARD bool gsioi_tok_float(gsioi_tokenizer *t, const char *what, float *out);

// -- Locale-free numbers

/** Parses a whole decimal integer: [+-]?[0-9]+, nothing else. False on
 *  anything else or when it does not fit in int64. */
GSIO_NODISCARD bool gsioi_parse_int64(const char *s, size_t len, int64_t *out);

/** Parses a whole decimal float: [+-]? (digits [. digits] | . digits)
 *  ([eE] [+-]? digits)?, nothing else: no inf, nan, hex, "1.#QNAN", no
 *  spaces. Correctly rounded (ties to even), for float and for double:
 *  numbers of at most 19 significant digits and a power of ten within
 *  10^+-22 (every number an MD5 exporter writes) take one exact double
 *  multiply or divide (Clinger's fast path); the rest, and the rare float
 *  that lands on a halfway point, are rewritten without a decimal point and
 *  handed to strtod/strtof (locale-free that way). Checked bit for bit
 *  against strtof/strtod on millions of random strings (test_tokenizer).
 *  False on a malformed number or one beyond the type's finite range. */
GSIO_NODISCARD bool gsioi_parse_double(const char *s, size_t len, double *out);
GSIO_NODISCARD bool gsioi_parse_float(const char *s, size_t len, float *out);

/** Buffer size that gsioi_format_float always fits in. */
#define GSIO_FLOAT_TEXT_MAX 32

/** Prints the shortest decimal (6 to 9 significant digits, "%g" style, '.'
 *  as the decimal point whatever the locale) that parses back to exactly v.
 *  Returns the length, or 0 for inf/nan (buf then holds ""). */
size_t gsioi_format_float(float v, char buf[GSIO_FLOAT_TEXT_MAX]);

#endif
