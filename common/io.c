/* Default stdio file access and path helpers. */
#define _POSIX_C_SOURCE 200809L
#include "gsio_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int gsio_read_whole_file(const char *path, uint8_t **data, size_t *size, size_t max_size,
                         gsio_error *err)
{
	*data = NULL;
	*size = 0;
	if (!max_size) max_size = GSIO_DEFAULT_MEMORY_LIMIT;
	FILE *f = fopen(path, "rb");
	if (!f) {
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
		return -1;
	}
	size_t cap = 0, len = 0;
	uint8_t *buf = NULL;
	struct stat st;
	bool known = fstat(fileno(f), &st) == 0;
	if (known && S_ISDIR(st.st_mode)) { // fopen succeeds on one; fread fails with EISDIR
		fclose(f);
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "cannot read: it is a directory");
		return -1;
	}
	if (known && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size <= max_size) {
		// A regular file: one buffer of the right size (+1 to see EOF without growing).
		cap = (size_t)st.st_size + 1;
		buf = malloc(cap);
		if (!buf) cap = 0;
	}
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			if (ncap > max_size + 1) ncap = max_size + 1;
			if (ncap <= cap) {
				free(buf);
				fclose(f);
				GSIO_FAIL(err, GSIO_ERR_LIMIT, path, -1, "file is larger than %zu bytes",
				          max_size);
				return -1;
			}
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				free(buf);
				fclose(f);
				GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory reading the file");
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) break;
	}
	int bad = ferror(f), bad_errno = errno;
	fclose(f);
	if (bad) {
		free(buf);
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "read error: %s", strerror(bad_errno));
		return -1;
	}
	if (len > max_size) {
		free(buf);
		GSIO_FAIL(err, GSIO_ERR_LIMIT, path, -1, "file is larger than %zu bytes", max_size);
		return -1;
	}
	*data = buf;
	*size = len;
	return 0;
}

const char *gsioi_path_base(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\') b = p + 1;
	return b;
}

void gsioi_path_ext(const char *path, char *buf, size_t buf_size)
{
	if (!buf_size) return;
	buf[0] = 0;
	if (!path) return;
	const char *base = gsioi_path_base(path);
	const char *dot = strrchr(base, '.');
	if (!dot) return;
	size_t i = 0;
	for (dot++; *dot && i + 1 < buf_size; dot++) buf[i++] = (char)tolower((unsigned char)*dot);
	buf[i] = 0;
}
