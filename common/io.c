/* Default file access (gsio_default_io) and path helpers.
 *
 * Every file a load opens (the model, palettes, textures, sibling
 * animations) goes through opts->io, or through the default io here. The
 * default io opens with O_NONBLOCK so that opening a FIFO never waits for a
 * writer, then refuses anything that is not a regular file: a FIFO, a
 * device or a directory is an error, not a hang or an endless read. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "gsioi_huge_pages.h" // gsioi_prefault
#include "gsioi_internal.h"
#include "gsioi_os.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

// -- Reading a whole file

// From this size on the buffer's pages are made before the read (below, the
// system call costs about what it saves).
#define READ_PREFAULT_BYTES ((size_t)64 << 10)

/* Opens path for reading when it is a regular file: its descriptor and size,
 * or -1 with err set. O_NONBLOCK: a FIFO without a writer would block open()
 * forever. */
static int open_regular(const char *path, uint64_t *size, gsio_error *err)
{
	if (!path) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "no file name");
		return -1;
	}
	int fd = gsioi_open(path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
		return -1;
	}
	gsioi_file_info st;
	if (!gsioi_fstat(fd, &st)) {
		int e = errno;
		gsioi_close(fd);
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "cannot stat: %s", strerror(e));
		return -1;
	}
	if (st.kind != GSIOI_KIND_FILE) {
		gsioi_close(fd);
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "not a regular file%s",
		          st.kind == GSIOI_KIND_DIR      ? ": it is a directory"
		          : st.kind == GSIOI_KIND_FIFO   ? ": it is a FIFO"
		          : st.kind == GSIOI_KIND_DEVICE ? ": it is a device"
		                                         : "");
		return -1;
	}
	*size = st.size;
	return fd;
}

/* Reads into buf until it is full or the file ends: 0 with *got, or -1
 * with err set. */
static int read_up_to(int fd, uint8_t *buf, size_t cap, size_t *got, const char *path,
                      gsio_error *err)
{
	size_t len = 0;
	while (len < cap) {
		long long n = gsioi_read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR) continue;
		if (n < 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "read error: %s", strerror(errno));
			return -1;
		}
		if (n == 0) break;
		len += (size_t)n;
	}
	*got = len;
	return 0;
}

static int fail_too_large(const char *path, size_t max_size, gsio_error *err)
{
	GSIO_FAIL(err, GSIO_ERR_LIMIT, path, -1, "file is larger than %zu bytes", max_size);
	return -1;
}

/* The whole file into one malloc'd buffer, its first head_n bytes already
 * read into head: a buffer of the stated size, +1 to see the end without
 * growing; a file that grows while it is read is still bounded by max_size.
 * Does not close fd. */
static int read_rest(int fd, const char *path, uint64_t stated, const uint8_t *head,
                     size_t head_n, size_t max_size, uint8_t **data, size_t *size,
                     gsio_error *err)
{
	size_t cap = (size_t)stated + 1, len = head_n;
	if (cap <= head_n) cap = head_n + 1; // it grew past its stated size
	uint8_t *buf = malloc(cap);
	if (!buf) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory reading the file");
		return -1;
	}
	// A large buffer is fresh memory (malloc maps it): its pages made in
	// one go rather than a fault each as read() fills them.
	if (cap >= READ_PREFAULT_BYTES) {
		gsioi_advise_huge(buf, cap);
		gsioi_prefault(buf, cap);
	}
	if (head_n) memcpy(buf, head, head_n);
	for (;;) {
		if (len == cap) {
			size_t ncap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
			if (ncap > max_size + 1) ncap = max_size + 1;
			uint8_t *nb = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!nb) {
				free(buf);
				if (ncap <= cap) return fail_too_large(path, max_size, err);
				GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory reading the file");
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		size_t got;
		if (read_up_to(fd, buf + len, cap - len, &got, path, err)) {
			free(buf);
			return -1;
		}
		len += got;
		if (len < cap) break; // the end
	}
	if (len > max_size) {
		free(buf);
		return fail_too_large(path, max_size, err);
	}
	*data = buf;
	*size = len;
	return 0;
}

int gsioi_read_file_checked(const char *path, size_t max_size, gsioi_head_check check, void *user,
                            uint8_t **data, size_t *size, gsio_error *err)
{
	*data = NULL;
	*size = 0;
	if (!max_size) max_size = GSIO_DEFAULT_MEMORY_LIMIT;
	uint64_t stated;
	int fd = open_regular(path, &stated, err);
	if (fd < 0) return -1;
	// The first bytes before the size limit and the rest: a file that is
	// not of a format it claims is refused for what it is, after a few KB.
	uint8_t head[GSIOI_HEAD_SIZE];
	size_t head_n = 0;
	int rc = check ? read_up_to(fd, head, sizeof(head), &head_n, path, err) : 0;
	if (!rc && check && !check(user, head, head_n, stated > head_n ? stated : head_n, err)) rc = -1;
	if (!rc && stated > max_size) rc = fail_too_large(path, max_size, err);
	if (!rc) rc = read_rest(fd, path, stated, head, head_n, max_size, data, size, err);
	gsioi_close(fd);
	return rc;
}

int gsio_read_whole_file(const char *path, uint8_t **data, size_t *size, size_t max_size,
                         gsio_error *err)
{
	return gsioi_read_file_checked(path, max_size, NULL, NULL, data, size, err);
}

// -- The default io

static int default_read_file(void *user, const char *path, uint8_t **data, size_t *size,
                             gsio_error *err)
{
	(void)user;
	return gsio_read_whole_file(path, data, size, 0, err);
}

static void default_free_data(void *user, uint8_t *data)
{
	(void)user;
	free(data);
}

static void default_free_list(void *user, char **names)
{
	(void)user;
	if (!names) return;
	for (char **n = names; *n; n++) free(*n);
	free(names);
}

// A folder with more entries than this is not a model's folder.
#define GSIO_LIST_MAX 100000

static int default_list_dir(void *user, const char *dir, char ***out, gsio_error *err)
{
	(void)user;
	*out = NULL;
	if (!dir || !*dir) dir = ".";
	gsioi_dir *d = gsioi_dir_open(dir);
	if (!d) {
		GSIO_FAIL(err, GSIO_ERR_IO, dir, -1, "cannot list: %s", strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	const char *e;
	gsioi_kind kind;
	while ((e = gsioi_dir_next(d, &kind))) {
		// Only regular files (a symlink counts when it leads to one).
		if (kind != GSIOI_KIND_FILE) continue;
		if (n + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nn = ncap <= GSIO_LIST_MAX ? realloc(names, ncap * sizeof(*nn)) : NULL;
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
			cap = ncap;
		}
		size_t len = strlen(e);
		if (!(names[n] = malloc(len + 1))) {
			rc = -1;
			break;
		}
		memcpy(names[n++], e, len + 1);
	}
	gsioi_dir_close(d);
	if (rc || !names) {
		if (!rc) { // an empty folder: an empty list
			names = malloc(sizeof(*names));
			if (names) {
				names[0] = NULL;
				*out = names;
				return 0;
			}
		}
		for (size_t i = 0; i < n; i++) free(names[i]);
		free(names);
		GSIO_FAIL(err, cap >= GSIO_LIST_MAX ? GSIO_ERR_LIMIT : GSIO_ERR_NOMEM, dir, -1,
		          "cannot list the folder: too many files or out of memory");
		return -1;
	}
	names[n] = NULL;
	*out = names;
	return 0;
}

static const gsio_io default_io = {
    default_read_file, default_free_data, default_list_dir, default_free_list, NULL,
};

const gsio_io *gsio_default_io(void)
{
	return &default_io;
}

// -- Reading through the options

const gsio_io *gsioi_io_of(const gsio_opts *opts)
{
	return opts && opts->io && opts->io->read_file ? opts->io : &default_io;
}

bool gsioi_io_is_default(const gsio_opts *opts)
{
	return gsioi_io_of(opts) == &default_io;
}

int gsioi_io_read(const gsio_opts *opts, const char *path, uint8_t **data, size_t *size,
                  gsio_error *err)
{
	*data = NULL;
	*size = 0;
	const gsio_io *io = gsioi_io_of(opts);
	if (io == &default_io) // the default honours the load's memory limit
		return gsio_read_whole_file(path, data, size, opts ? opts->memory_limit : 0, err);
	int rc = io->read_file(io->user, path, data, size, err);
	if (rc && err && err->code == GSIO_OK)
		GSIO_FAIL(err, GSIO_ERR_IO, path, -1, "the io could not read the file");
	if (!rc && opts && opts->memory_limit && *size > opts->memory_limit) {
		gsioi_io_free(opts, *data);
		*data = NULL;
		*size = 0;
		GSIO_FAIL(err, GSIO_ERR_LIMIT, path, -1, "file is larger than %zu bytes",
		          opts->memory_limit);
		return -1;
	}
	return rc;
}

void gsioi_io_free(const gsio_opts *opts, uint8_t *data)
{
	if (!data) return;
	const gsio_io *io = gsioi_io_of(opts);
	if (io->free_data) io->free_data(io->user, data);
}

// -- Paths

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
