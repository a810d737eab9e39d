/* gsio_error: filling, naming and formatting errors. */
#include "gsioi_internal.h"

#include <inttypes.h>
#include <stdio.h>

const char *gsio_error_code_name(gsio_error_code code)
{
	switch (code) {
	case GSIO_OK: return "ok";
	case GSIO_ERR_IO: return "io";
	case GSIO_ERR_TRUNCATED: return "truncated";
	case GSIO_ERR_BAD_MAGIC: return "bad-magic";
	case GSIO_ERR_UNSUPPORTED: return "unsupported";
	case GSIO_ERR_CORRUPT: return "corrupt";
	case GSIO_ERR_LIMIT: return "limit";
	case GSIO_ERR_NOMEM: return "nomem";
	case GSIO_ERR_ARGUMENT: return "argument";
	case GSIO_ERR_SYNTAX: return "syntax";
	case GSIO_ERR_MISMATCH: return "mismatch";
	}
	return "unknown";
}

void gsio_error_clear(gsio_error *err)
{
	if (!err) return;
	memset(err, 0, sizeof(*err));
	err->offset = -1;
}

int gsioi_fail_at(gsio_error *err, gsio_error_code code, const char *file, int64_t offset,
                 int32_t line, int32_t column, const char *src_file, int src_line,
                 const char *fmt, ...)
{
	if (!err || err->code != GSIO_OK) return 0; // the first error is the cause
	err->code = code;
	err->offset = offset;
	err->line = line;
	err->column = column;
	err->src_file = src_file;
	err->src_line = src_line;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	gsioi_text_sanitize(err->message, sizeof(err->message));
	return 0;
}

size_t gsio_error_format(const gsio_error *err, char *buf, size_t buf_size)
{
	if (!err) return (size_t)snprintf(buf, buf_size, "(no error)");
	const char *file = err->file[0] ? err->file : "<input>";
	int n;
	if (err->code == GSIO_OK)
		n = snprintf(buf, buf_size, "%s: ok", file);
	else if (err->line > 0)
		n = snprintf(buf, buf_size, "%s:%d:%d: %s", file, (int)err->line, (int)err->column,
		             err->message);
	else if (err->offset >= 0)
		n = snprintf(buf, buf_size, "%s: offset %" PRId64 " (0x%" PRIx64 "): %s", file,
		             err->offset, (uint64_t)err->offset, err->message);
	else
		n = snprintf(buf, buf_size, "%s: %s", file, err->message);
	return n < 0 ? 0 : (size_t)n;
}
