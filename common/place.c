/* Atomic file placement for writers: temporary file in the target's own
 * directory, then a rename (or link + unlink when nothing may be replaced),
 * and removal of the temporaries still in progress when SIGINT or SIGTERM
 * arrives (a batch converter interrupted with Ctrl-C leaves no litter). */
#define _GNU_SOURCE // O_TMPFILE, copy_file_range, fallocate
#include "gsio_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// -- Registry of temporaries in progress
//
// A fixed table, because the signal handler may only read memory and call
// async-signal-safe functions (unlink, signal, raise). A slot is claimed
// (FREE -> CLAIMED) with a compare-and-swap, its path written, then published
// (ACTIVE); the handler unlinks only ACTIVE slots. With every slot taken a
// write still works, just without the cleanup guarantee.

#define TEMP_SLOTS 128
#define TEMP_PATH_MAX 4096

enum { SLOT_FREE = 0, SLOT_CLAIMED, SLOT_ACTIVE };

static struct temp_slot {
	atomic_int state;
	char path[TEMP_PATH_MAX];
} temp_slots[TEMP_SLOTS];

static atomic_ulong temp_counter;
/* Set by the handler: no new temporary may be registered (the other
 * threads of a batch go on running while the handler cleans up). */
static atomic_int temp_dying;

static int temp_register(const char *path)
{
	size_t n = strlen(path);
	if (atomic_load(&temp_dying)) return -2;
	if (n >= TEMP_PATH_MAX) return -1;
	for (int i = 0; i < TEMP_SLOTS; i++) {
		int expected = SLOT_FREE;
		if (atomic_compare_exchange_strong(&temp_slots[i].state, &expected, SLOT_CLAIMED)) {
			memcpy(temp_slots[i].path, path, n + 1);
			atomic_store(&temp_slots[i].state, SLOT_ACTIVE);
			return i;
		}
	}
	return -1;
}

static void temp_release(int slot)
{
	if (slot >= 0) atomic_store(&temp_slots[slot].state, SLOT_FREE);
}

static void cleanup_handler(int sig)
{
	// Other threads keep running: one may have registered a temporary just
	// before `dying` was set and create it after a first sweep. Sweep a few
	// times over ~20 ms (a registration is published before its open, so a
	// file created meanwhile is found by a later sweep); nothing new is
	// registered once `dying` is set.
	atomic_store(&temp_dying, 1);
	for (int pass = 0; pass < 20; pass++) {
		for (int i = 0; i < TEMP_SLOTS; i++)
			if (atomic_load(&temp_slots[i].state) == SLOT_ACTIVE) unlink(temp_slots[i].path);
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void gsio_install_cleanup_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_handler;
	sigemptyset(&sa.sa_mask);
	// Both signals blocked while one runs: a second Ctrl-C does not cut the
	// cleanup short.
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

// -- Placing one file

struct gsio_placing {
	int fd;
	int slot;        // registry slot of tmp, -1 when none
	bool scratch;    // unnamed: never placed
	bool named;      // tmp exists under its name
	uint64_t size;   // bytes written
	char *path;      // final path (error messages, placement)
	char tmp[TEMP_PATH_MAX];
};

static gsio_placing *placing_new(const char *path, gsio_error *err)
{
	gsio_placing *p = calloc(1, sizeof(*p));
	size_t n = strlen(path);
	char *copy = p ? malloc(n + 1) : NULL;
	if (!copy) {
		free(p);
		GSIO_FAIL(err, GSIO_ERR_NOMEM, path, -1, "out of memory");
		return NULL;
	}
	memcpy(copy, path, n + 1);
	p->path = copy;
	p->fd = -1;
	p->slot = -1;
	return p;
}

static void placing_free(gsio_placing *p)
{
	if (p->fd >= 0) close(p->fd);
	if (p->named) unlink(p->tmp);
	temp_release(p->slot);
	free(p->path);
	free(p);
}

/** Creates p->tmp, a fresh name beside p->path, registered for the signal
 *  cleanup before it exists (a signal between open and register would leave
 *  it behind). */
static bool open_named(gsio_placing *p, gsio_error *err)
{
	const char *base = gsioi_path_base(p->path);
	size_t dir_len = (size_t)(base - p->path);
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned long n = atomic_fetch_add(&temp_counter, 1);
		int len = snprintf(p->tmp, sizeof(p->tmp), "%.*s.%s.%ld.%lu.tmp", (int)dir_len, p->path,
		                   base, (long)getpid(), n);
		if (len < 0 || (size_t)len >= sizeof(p->tmp)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p->path, -1, "path too long");
			return false;
		}
		p->slot = temp_register(p->tmp);
		if (p->slot == -2) {
			GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "not written: the program is being interrupted");
			return false;
		}
		p->fd = open(p->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (p->fd >= 0) {
			p->named = true;
			return true;
		}
		int e = errno;
		temp_release(p->slot);
		p->slot = -1;
		if (e == EEXIST) continue;
		GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "cannot write: %s", strerror(e));
		return false;
	}
	GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "cannot write: no free temporary name");
	return false;
}

/* The placing of path, nothing opened yet; NULL with err set for no path. */
static gsio_placing *placing_start(const char *path, const char *who, gsio_error *err)
{
	gsio_error_clear(err);
	if (!path || !path[0]) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "%s: no path", who);
		return NULL;
	}
	return placing_new(path, err);
}

gsio_placing *gsio_place_open(const char *path, gsio_error *err)
{
	gsio_placing *p = placing_start(path, "gsio_place_open", err);
	if (p && !open_named(p, err)) {
		placing_free(p);
		return NULL;
	}
	return p;
}

gsio_placing *gsio_place_scratch(const char *path, gsio_error *err)
{
	gsio_placing *p = placing_start(path, "gsio_place_scratch", err);
	if (!p) return NULL;
	p->scratch = true;
	if (atomic_load(&temp_dying)) {
		GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "not written: the program is being interrupted");
		placing_free(p);
		return NULL;
	}
#ifdef O_TMPFILE
	// No name at all: nothing to clean up, whatever happens to the process.
	const char *base = gsioi_path_base(path);
	size_t dir_len = (size_t)(base - path);
	char dir[TEMP_PATH_MAX];
	if (dir_len < sizeof(dir)) {
		if (dir_len)
			snprintf(dir, sizeof(dir), "%.*s", (int)dir_len, path);
		else
			snprintf(dir, sizeof(dir), ".");
		p->fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
		if (p->fd >= 0) return p;
	}
#endif
	// A file system without O_TMPFILE: a registered name, unlinked at once.
	if (!open_named(p, err)) {
		placing_free(p);
		return NULL;
	}
	unlink(p->tmp);
	p->named = false;
	temp_release(p->slot);
	p->slot = -1;
	return p;
}

static bool fail_write(gsio_placing *p, int e, gsio_error *err)
{
	// A scratch file's offset means nothing to the reader of the message.
	GSIO_FAIL(err, GSIO_ERR_IO, p->path, p->scratch ? -1 : (int64_t)p->size, "write failed: %s",
	          strerror(e));
	return false;
}

static bool write_all(gsio_placing *p, const uint8_t *d, size_t size, gsio_error *err)
{
	while (size) {
		ssize_t w = write(p->fd, d, size);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return fail_write(p, w < 0 ? errno : EIO, err);
		d += w;
		size -= (size_t)w;
		p->size += (uint64_t)w;
	}
	return true;
}

int gsio_place_write(gsio_placing *p, const void *data, size_t size, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->fd < 0 || (size && !data)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1, "gsio_place_write: nothing to write to");
		return -1;
	}
	return write_all(p, data, size, err) ? 0 : -1;
}

#define PLACE_RESERVE_MIN ((uint64_t)1 << 20)

int gsio_place_reserve(gsio_placing *p, uint64_t total, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1, "gsio_place_reserve: no file");
		return -1;
	}
#if defined(__linux__) && defined(FALLOC_FL_KEEP_SIZE)
	// Below 1 MiB no gain was measured (a 7 KB GLB: within noise), so the
	// system call is left out.
	if (total >= PLACE_RESERVE_MIN && total > p->size && total <= (uint64_t)INT64_MAX) {
		int rc;
		do
			rc = fallocate(p->fd, FALLOC_FL_KEEP_SIZE, (off_t)p->size, (off_t)(total - p->size));
		while (rc && errno == EINTR);
		// No room is an answer; anything else (a file system without
		// fallocate, say) leaves the writes to find their own blocks.
		if (rc && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)) {
			int e = errno;
			GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "no room for %llu bytes: %s",
			          (unsigned long long)total, strerror(e));
			return -1;
		}
	}
#else
	(void)total;
#endif
	return 0;
}

uint64_t gsio_place_size(const gsio_placing *p)
{
	return p ? p->size : 0;
}

int gsio_place_append(gsio_placing *dst, gsio_placing *src, gsio_error *err)
{
	gsio_error_clear(err);
	if (!dst || !src || dst->fd < 0 || src->fd < 0 || dst == src) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_place_append: no files");
		return -1;
	}
	loff_t in = 0;
	uint64_t left = src->size;
	// In the kernel (a reflink or a page-cache copy on the same file system);
	// read/write below when it cannot.
	while (left) {
		size_t n = left > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)left;
		ssize_t w = copy_file_range(src->fd, &in, dst->fd, NULL, n, 0);
		if (w < 0 && errno == EINTR) continue;
		if (w < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EIO || errno == EFBIG)) {
			fail_write(dst, errno, err);
			return -1;
		}
		if (w <= 0) break; // EXDEV, ENOSYS, EINVAL...: copy by hand
		left -= (uint64_t)w;
		dst->size += (uint64_t)w;
	}
	uint8_t buf[65536];
	while (left) {
		size_t n = left > sizeof(buf) ? sizeof(buf) : (size_t)left;
		ssize_t r = pread(src->fd, buf, n, (off_t)in);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, dst->path, (int64_t)dst->size, "reading the temporary failed: %s",
			          r < 0 ? strerror(errno) : "file shrank");
			return -1;
		}
		if (!write_all(dst, buf, (size_t)r, err)) return -1;
		in += r;
		left -= (uint64_t)r;
	}
	return 0;
}

void gsio_place_discard(gsio_placing *p)
{
	if (p) placing_free(p);
}

/** Moves the closed temporary into place; on failure removes it. */
static bool place_tmp(gsio_placing *p, bool no_replace, gsio_error *err)
{
	int e;
	if (!no_replace) {
		if (rename(p->tmp, p->path)) {
			e = errno;
			GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "cannot write: %s", strerror(e));
			return false;
		}
		p->named = false;
		return true;
	}
	if (link(p->tmp, p->path) == 0) return true; // the temporary goes in placing_free
	e = errno;
	struct stat st;
	if (e == EEXIST || lstat(p->path, &st) == 0) {
		GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "exists (not replaced)");
		return false;
	}
	// A file system without hard links: checked above, then renamed (not
	// atomic against a racing writer, the best it allows).
	if (rename(p->tmp, p->path)) {
		e = errno;
		GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "cannot write: %s", strerror(e));
		return false;
	}
	p->named = false;
	return true;
}

int gsio_place_commit(gsio_placing *p, bool no_replace, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_place_commit: nothing to place");
		return -1;
	}
	bool ok = true;
	if (p->scratch || p->fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p->path, -1, "gsio_place_commit: a scratch file is never placed");
		ok = false;
	}
	if (ok) {
		int fd = p->fd;
		p->fd = -1;
		// close() reports delayed write errors (NFS, quota).
		if (close(fd)) ok = fail_write(p, errno, err);
	}
	if (ok) ok = place_tmp(p, no_replace, err);
	placing_free(p);
	return ok ? 0 : -1;
}

// -- Placing whole files

int gsio_place_files(const gsio_file_data *files, size_t count, bool no_replace, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (count && !files) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_place_files: no files");
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (!files[i].path || !files[i].path[0] || (files[i].size && !files[i].data)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsio_place_files: file %zu has no path or data", i);
			return -1;
		}
	// Refuse before writing anything, so a refused output is left as it was.
	for (size_t i = 0; no_replace && i < count; i++) {
		struct stat st;
		if (lstat(files[i].path, &st) == 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, files[i].path, -1, "exists (not replaced)");
			return -1;
		}
	}
	for (size_t i = 0; i < count; i++) {
		gsio_placing *p = gsio_place_open(files[i].path, err);
		if (!p) return -1;
		if (gsio_place_reserve(p, files[i].size, err) ||
		    gsio_place_write(p, files[i].data, files[i].size, err)) {
			gsio_place_discard(p);
			return -1;
		}
		if (gsio_place_commit(p, no_replace, err)) return -1;
	}
	return 0;
}
