/* Atomic file placement for writers: temporary file in the target's own
 * directory, then a rename (or link + unlink when nothing may be replaced;
 * files that belong together are all written before the first is placed,
 * and a failure to place one takes back those placed before it),
 * and removal of the temporaries still in progress when SIGINT or SIGTERM
 * arrives (a batch converter interrupted with Ctrl-C leaves no litter). */
#define _GNU_SOURCE // O_TMPFILE, copy_file_range, fallocate, renameat2
#include "gsioi_internal.h"
#include "gsioi_os.h"
#include "gsioi_place.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <unistd.h> // copy_file_range
#endif

// -- Registry of temporaries in progress
//
// Fixed tables, because the signal handler may only read memory and call
// async-signal-safe functions (unlink, signal, raise). A slot is claimed
// (FREE -> CLAIMED) with a compare-and-swap, its path written, then published
// (ACTIVE); the handler unlinks only ACTIVE slots. Files placed together
// (gsioi_place_commit_all) all have their temporaries at once: a .gltf with
// hundreds of images, so thousands of slots for paths of usual length (a
// page holds 16 of them; untouched pages cost nothing) and 128 for long
// ones. With every slot taken a write still works, just without the
// cleanup guarantee.

#define TEMP_SHORT_SLOTS 4096
#define TEMP_SHORT_MAX 256 // bytes of a short slot's path, its NUL included
#define TEMP_LONG_SLOTS 128
#define TEMP_SLOTS (TEMP_SHORT_SLOTS + TEMP_LONG_SLOTS)
#define TEMP_PATH_MAX 4096

enum { SLOT_FREE = 0, SLOT_CLAIMED, SLOT_ACTIVE };

static atomic_int temp_state[TEMP_SLOTS];
static char temp_short[TEMP_SHORT_SLOTS][TEMP_SHORT_MAX];
static char temp_long[TEMP_LONG_SLOTS][TEMP_PATH_MAX];

static char *slot_path(int i)
{
	return i < TEMP_SHORT_SLOTS ? temp_short[i] : temp_long[i - TEMP_SHORT_SLOTS];
}

static atomic_ulong temp_counter;
/* Set by the handler: no new temporary may be registered (the other
 * threads of a batch go on running while the handler cleans up). */
static atomic_int temp_dying;

static int temp_register(const char *path)
{
	size_t n = strlen(path);
	if (atomic_load(&temp_dying)) return -2;
	if (n >= TEMP_PATH_MAX) return -1;
	for (int i = n < TEMP_SHORT_MAX ? 0 : TEMP_SHORT_SLOTS; i < TEMP_SLOTS; i++) {
		int expected = SLOT_FREE;
		if (atomic_compare_exchange_strong(&temp_state[i], &expected, SLOT_CLAIMED)) {
			memcpy(slot_path(i), path, n + 1);
			atomic_store(&temp_state[i], SLOT_ACTIVE);
			return i;
		}
	}
	return -1;
}

static void temp_release(int slot)
{
	if (slot >= 0) atomic_store(&temp_state[slot], SLOT_FREE);
}

static void cleanup_temporaries(void)
{
	// Other threads keep running: one may have registered a temporary just
	// before `dying` was set and create it after a first sweep. Sweep a few
	// times over ~20 ms (a registration is published before its open, so a
	// file created meanwhile is found by a later sweep); nothing new is
	// registered once `dying` is set.
	atomic_store(&temp_dying, 1);
	for (int pass = 0; pass < 20; pass++) {
		for (int i = 0; i < TEMP_SLOTS; i++)
			if (atomic_load(&temp_state[i]) == SLOT_ACTIVE) gsioi_unlink(slot_path(i));
		gsioi_sleep_ms(1);
	}
}

void gsioi_install_cleanup_handlers(void)
{
	gsioi_on_interrupt(cleanup_temporaries);
}

// -- Placing one file

/* How a placed file is taken back when a later file of the same commit
 * cannot be placed (see gsioi_place_commit_all). */
typedef enum place_undo {
	UNDO_NONE,     // not placed, or placed over an old file that is gone
	UNDO_UNLINK,   // nothing was at the path: remove the new file
	UNDO_EXCHANGE, // swapped with the old file, now under tmp: swap back
} place_undo;

struct gsioi_placing {
	int fd;
	int slot;        // registry slot of tmp, -1 when none
	bool scratch;    // unnamed: never placed
	bool named;      // tmp exists under its name
	bool closed;     // written and closed (gsioi_place_close): only placing is left
	place_undo undo; // once placed
	uint64_t size;   // the end of the furthest byte written
	uint64_t pos;    // where gsioi_place_write() and gsioi_place_append() write next
	char *path;      // final path (error messages, placement)
	char tmp[TEMP_PATH_MAX];
};

static gsioi_placing *placing_new(const char *path, gsio_error *err)
{
	gsioi_placing *p = calloc(1, sizeof(*p));
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

static void placing_free(gsioi_placing *p)
{
	if (p->fd >= 0) gsioi_close(p->fd);
	if (p->named) gsioi_unlink(p->tmp);
	temp_release(p->slot);
	free(p->path);
	free(p);
}

/** Creates p->tmp, a fresh name beside p->path, registered for the signal
 *  cleanup before it exists (a signal between open and register would leave
 *  it behind). */
static bool open_named(gsioi_placing *p, int flags, gsio_error *err)
{
	const char *base = gsioi_path_base(p->path);
	size_t dir_len = (size_t)(base - p->path);
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned long n = atomic_fetch_add(&temp_counter, 1);
		int len = snprintf(p->tmp, sizeof(p->tmp), "%.*s.%s.%ld.%lu.tmp", (int)dir_len, p->path,
		                   base, gsioi_pid(), n);
		if (len < 0 || (size_t)len >= sizeof(p->tmp)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p->path, -1, "path too long");
			return false;
		}
		p->slot = temp_register(p->tmp);
		if (p->slot == -2) {
			GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "not written: the program is being interrupted");
			return false;
		}
		p->fd = gsioi_open(p->tmp, O_RDWR | O_CREAT | O_EXCL | flags, 0666);
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
static gsioi_placing *placing_start(const char *path, const char *who, gsio_error *err)
{
	gsio_error_clear(err);
	if (!path || !path[0]) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "%s: no path", who);
		return NULL;
	}
	return placing_new(path, err);
}

gsioi_placing *gsioi_place_open(const char *path, gsio_error *err)
{
	gsioi_placing *p = placing_start(path, "gsioi_place_open", err);
	if (p && !open_named(p, 0, err)) {
		placing_free(p);
		return NULL;
	}
	return p;
}

gsioi_placing *gsioi_place_scratch(const char *path, gsio_error *err)
{
	gsioi_placing *p = placing_start(path, "gsioi_place_scratch", err);
	if (!p) return NULL;
	p->scratch = true;
	if (atomic_load(&temp_dying)) {
		GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "not written: the program is being interrupted");
		placing_free(p);
		return NULL;
	}
#if defined(__linux__) && defined(O_TMPFILE)
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
	// A file system without O_TMPFILE: a registered name, unlinked at once
	// (on Windows, where an open file keeps its name, removed when closed).
	if (!open_named(p, GSIOI_O_TEMPORARY, err)) {
		placing_free(p);
		return NULL;
	}
	gsioi_unlink(p->tmp);
	p->named = false;
	temp_release(p->slot);
	p->slot = -1;
	return p;
}

static bool fail_write(gsioi_placing *p, uint64_t at, int e, gsio_error *err)
{
	// A scratch file's offset means nothing to the reader of the message.
	GSIO_FAIL(err, GSIO_ERR_IO, p->path, p->scratch ? -1 : (int64_t)at, "write failed: %s", strerror(e));
	return false;
}

/** Every write goes through here, at its offset (pwrite): gsioi_place_write()
 *  at p->pos, gsioi_place_write_at() where it is told. *at ends past the
 *  bytes written, or where a failed write was meant to go on. */
static bool write_at(gsioi_placing *p, uint64_t *at, const uint8_t *d, size_t size, gsio_error *err)
{
	while (size) {
		long long w = gsioi_pwrite(p->fd, d, size, *at);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return fail_write(p, *at, w < 0 ? errno : EIO, err);
		d += w;
		size -= (size_t)w;
		*at += (uint64_t)w;
		if (*at > p->size) p->size = *at;
	}
	return true;
}

static bool write_all(gsioi_placing *p, const uint8_t *d, size_t size, gsio_error *err)
{
	return write_at(p, &p->pos, d, size, err);
}

int gsioi_place_write(gsioi_placing *p, const void *data, size_t size, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->fd < 0 || (size && !data)) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1, "gsioi_place_write: nothing to write to");
		return -1;
	}
	return write_all(p, data, size, err) ? 0 : -1;
}

int gsioi_place_write_at(gsioi_placing *p, uint64_t offset, const void *data, size_t size, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->fd < 0 || (size && !data) || offset > (uint64_t)INT64_MAX - size) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1, "gsioi_place_write_at: nothing to write to");
		return -1;
	}
	return write_at(p, &offset, data, size, err) ? 0 : -1;
}

#define PLACE_RESERVE_MIN ((uint64_t)1 << 20)

int gsioi_place_reserve(gsioi_placing *p, uint64_t total, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1, "gsioi_place_reserve: no file");
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

uint64_t gsioi_place_size(const gsioi_placing *p)
{
	return p ? p->size : 0;
}

int gsioi_place_append(gsioi_placing *dst, gsioi_placing *src, gsio_error *err)
{
	gsio_error_clear(err);
	if (!dst || !src || dst->fd < 0 || src->fd < 0 || dst == src) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_place_append: no files");
		return -1;
	}
	uint64_t in = 0, left = src->size;
#if defined(__linux__)
	// In the kernel (a reflink or a page-cache copy on the same file system);
	// read/write below when it cannot.
	while (left) {
		size_t n = left > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)left;
		loff_t out = (loff_t)dst->pos, from = (loff_t)in;
		ssize_t w = copy_file_range(src->fd, &from, dst->fd, &out, n, 0);
		if (w < 0 && errno == EINTR) continue;
		if (w < 0 && (errno == ENOSPC || errno == EDQUOT || errno == EIO || errno == EFBIG)) {
			fail_write(dst, dst->pos, errno, err);
			return -1;
		}
		if (w <= 0) break; // EXDEV, ENOSYS, EINVAL...: copy by hand
		in = (uint64_t)from;
		left -= (uint64_t)w;
		dst->pos = (uint64_t)out;
		if (dst->pos > dst->size) dst->size = dst->pos;
	}
#endif
	uint8_t buf[65536];
	while (left) {
		size_t n = left > sizeof(buf) ? sizeof(buf) : (size_t)left;
		long long r = gsioi_pread(src->fd, buf, n, in);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) {
			GSIO_FAIL(err, GSIO_ERR_IO, dst->path, (int64_t)dst->pos, "reading the temporary failed: %s",
			          r < 0 ? strerror(errno) : "file shrank");
			return -1;
		}
		if (!write_all(dst, buf, (size_t)r, err)) return -1;
		in += (uint64_t)r;
		left -= (uint64_t)r;
	}
	return 0;
}

void gsioi_place_discard(gsioi_placing *p)
{
	if (p) placing_free(p);
}

int gsioi_place_close(gsioi_placing *p, gsio_error *err)
{
	gsio_error_clear(err);
	if (!p || p->scratch || p->fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p ? p->path : NULL, -1,
		          "gsioi_place_close: no file being written (scratch, closed or none)");
		return -1;
	}
	int fd = p->fd;
	p->fd = -1;
#ifdef _WIN32
	// On the disk before it is moved into place (MoveFileExW writes the
	// move through): a crash then leaves the old file or the whole new one.
	if (gsioi_fsync(fd)) {
		int e = errno;
		gsioi_close(fd);
		return fail_write(p, p->pos, e, err) ? 0 : -1;
	}
#endif
	// close() reports delayed write errors (NFS, quota).
	if (gsioi_close(fd)) return fail_write(p, p->pos, errno, err) ? 0 : -1;
	p->closed = true;
	return 0;
}

gsioi_placing *gsioi_place_bytes(const char *path, const void *data, size_t size, gsio_error *err)
{
	gsioi_placing *p = gsioi_place_open(path, err);
	if (p && (gsioi_place_reserve(p, size, err) || gsioi_place_write(p, data, size, err) || gsioi_place_close(p, err))) {
		gsioi_place_discard(p);
		p = NULL;
	}
	return p;
}

static bool cannot_place(gsioi_placing *p, int e, gsio_error *err)
{
	GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "cannot write: %s", strerror(e));
	return false;
}

/** Moves the closed temporary to its path, noting in p->undo how to take
 *  it back. Over an old file, Linux's rename exchange swaps the two (the
 *  old one then lives under the temporary's name until the commit is
 *  done); where the file system cannot exchange, a plain rename replaces
 *  the old file for good. */
static bool place_one(gsioi_placing *p, bool no_replace, gsio_error *err)
{
	gsioi_file_info st;
	if (no_replace) {
		if (gsioi_link(p->tmp, p->path) == 0) { // the temporary goes in placing_free
			p->undo = UNDO_UNLINK;
			return true;
		}
		int e = errno;
		if (e == EEXIST || gsioi_stat(p->path, false, &st)) {
			GSIO_FAIL(err, GSIO_ERR_IO, p->path, -1, "exists (not replaced)");
			return false;
		}
		// A file system without hard links: checked above, then renamed
		// (not atomic against a racing writer, the best it allows).
		if (gsioi_rename(p->tmp, p->path)) return cannot_place(p, errno, err);
		p->named = false;
		p->undo = UNDO_UNLINK;
		return true;
	}
	bool existed = gsioi_stat(p->path, false, &st);
	// rename() refuses to put a file over a folder; an exchange would not.
	if (existed && st.kind == GSIOI_KIND_DIR) return cannot_place(p, EISDIR, err);
#if defined(__linux__) && defined(RENAME_EXCHANGE)
	if (existed) {
		if (renameat2(AT_FDCWD, p->tmp, AT_FDCWD, p->path, RENAME_EXCHANGE) == 0) {
			p->undo = UNDO_EXCHANGE; // tmp now names the old file
			return true;
		}
		int e = errno;
		if (e == ENOENT)
			existed = false; // gone meanwhile: renamed below
		else if (e != EINVAL && e != ENOSYS && e != EOPNOTSUPP)
			return cannot_place(p, e, err);
	}
#endif
	if (gsioi_rename(p->tmp, p->path)) return cannot_place(p, errno, err);
	p->named = false;
	p->undo = existed ? UNDO_NONE : UNDO_UNLINK;
	return true;
}

/** Takes back a placed file (p->undo): the path as it was before, as far
 *  as the file system allowed. */
static void unplace_one(gsioi_placing *p)
{
	if (p->undo == UNDO_UNLINK) {
		gsioi_unlink(p->path);
	} else if (p->undo == UNDO_EXCHANGE) {
		// Swapped back, tmp names the new file again and goes in
		// placing_free. Should that fail, the old file keeps its
		// temporary name rather than be removed with it.
#if defined(__linux__) && defined(RENAME_EXCHANGE)
		if (renameat2(AT_FDCWD, p->tmp, AT_FDCWD, p->path, RENAME_EXCHANGE)) p->named = false;
#endif
	}
	p->undo = UNDO_NONE;
}

int gsioi_place_commit_all(gsioi_placing *const *ps, size_t count, bool no_replace, gsio_error *err)
{
	gsio_error_clear(err);
	if (count && !ps) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_place_commit_all: nothing to place");
		return -1;
	}
	bool ok = true;
	for (size_t i = 0; i < count && ok; i++) {
		gsioi_placing *p = ps[i];
		if (!p) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_place_commit_all: placing %zu is NULL", i);
			ok = false;
		} else if (p->scratch) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, p->path, -1, "gsioi_place_commit: a scratch file is never placed");
			ok = false;
		} else if (!p->closed) {
			ok = gsioi_place_close(p, err) == 0;
		}
	}
	// Every file is whole on disk before the first is placed; then they are
	// placed in order, and a failure takes back the ones placed before it.
	size_t placed = 0;
	for (; ok && placed < count; placed++)
		if (!place_one(ps[placed], no_replace, err)) ok = false;
	if (!ok)
		while (placed-- > 0) unplace_one(ps[placed]);
	for (size_t i = 0; i < count; i++)
		if (ps && ps[i]) placing_free(ps[i]);
	return ok ? 0 : -1;
}

int gsioi_place_commit(gsioi_placing *p, bool no_replace, gsio_error *err)
{
	return gsioi_place_commit_all(&p, 1, no_replace, err);
}

// -- Placing whole files

int gsioi_place_files(const gsioi_file_data *files, size_t count, bool no_replace, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	gsio_error_clear(err);
	if (count && !files) {
		GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_place_files: no files");
		return -1;
	}
	for (size_t i = 0; i < count; i++)
		if (!files[i].path || !files[i].path[0] || (files[i].size && !files[i].data)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, NULL, -1, "gsioi_place_files: file %zu has no path or data", i);
			return -1;
		}
	// Refuse before writing anything, so a refused output is left as it was.
	for (size_t i = 0; no_replace && i < count; i++) {
		gsioi_file_info st;
		if (gsioi_stat(files[i].path, false, &st)) {
			GSIO_FAIL(err, GSIO_ERR_IO, files[i].path, -1, "exists (not replaced)");
			return -1;
		}
	}
	// Written and closed one after the other (a level's hundreds of
	// textures never hold as many descriptors), then placed together.
	gsioi_placing **ps = count ? calloc(count, sizeof(*ps)) : NULL;
	if (count && !ps) {
		GSIO_FAIL(err, GSIO_ERR_NOMEM, files[0].path, -1, "out of memory");
		return -1;
	}
	size_t made = 0;
	while (made < count && (ps[made] = gsioi_place_bytes(files[made].path, files[made].data, files[made].size, err)))
		made++;
	bool ok = made == count && gsioi_place_commit_all(ps, count, no_replace, err) == 0;
	if (made < count)
		for (size_t i = 0; i < made; i++) gsioi_place_discard(ps[i]);
	free(ps);
	return ok ? 0 : -1;
}
