/* Atomic file placement for writers: temporary file in the target's own
 * directory, then a rename (or link + unlink when nothing may be replaced),
 * and removal of the temporaries still in progress when SIGINT or SIGTERM
 * arrives (a batch converter interrupted with Ctrl-C leaves no litter). */
#define _POSIX_C_SOURCE 200809L
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

// -- Placement

/** Writes one file to a fresh temporary name beside `final` and moves it
 *  into place. Errors name `final`, never the temporary. */
static bool place_one(const gsio_file_data *f, bool no_replace, gsio_error *err)
{
	const char *base = gsioi_path_base(f->path);
	size_t dir_len = (size_t)(base - f->path);
	char tmp[TEMP_PATH_MAX];
	int fd = -1, slot = -1;
	for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
		unsigned long n = atomic_fetch_add(&temp_counter, 1);
		int len = snprintf(tmp, sizeof(tmp), "%.*s.%s.%ld.%lu.tmp", (int)dir_len, f->path, base,
		                   (long)getpid(), n);
		if (len < 0 || (size_t)len >= sizeof(tmp)) {
			GSIO_FAIL(err, GSIO_ERR_ARGUMENT, f->path, -1, "path too long");
			return false;
		}
		// Registered before it exists: a signal between open and register
		// would leave it behind.
		slot = temp_register(tmp);
		if (slot == -2) {
			GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "not written: the program is being interrupted");
			return false;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) break;
		int e = errno;
		temp_release(slot);
		slot = -1;
		if (e == EEXIST) continue;
		GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "cannot write: %s", strerror(e));
		return false;
	}
	if (fd < 0) {
		GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "cannot write: no free temporary name");
		return false;
	}
	size_t done = 0;
	int e = 0;
	while (done < f->size) {
		ssize_t w = write(fd, f->data + done, f->size - done);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			break;
		}
		done += (size_t)w;
	}
	if (close(fd) && !e) e = errno;
	if (e) {
		unlink(tmp);
		temp_release(slot);
		GSIO_FAIL(err, GSIO_ERR_IO, f->path, (int64_t)done, "write failed: %s", strerror(e));
		return false;
	}
	bool ok = true;
	if (!no_replace) {
		if (rename(tmp, f->path)) {
			e = errno;
			unlink(tmp);
			GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "cannot write: %s", strerror(e));
			ok = false;
		}
	} else if (link(tmp, f->path) == 0) {
		unlink(tmp);
	} else {
		e = errno;
		struct stat st;
		if (e == EEXIST || lstat(f->path, &st) == 0) {
			unlink(tmp);
			GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "exists (not replaced)");
			ok = false;
		} else if (rename(tmp, f->path)) {
			// A file system without hard links: checked above, then renamed
			// (not atomic against a racing writer, the best it allows).
			e = errno;
			unlink(tmp);
			GSIO_FAIL(err, GSIO_ERR_IO, f->path, -1, "cannot write: %s", strerror(e));
			ok = false;
		}
	}
	temp_release(slot);
	return ok;
}

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
	for (size_t i = 0; i < count; i++)
		if (!place_one(&files[i], no_replace, err)) return -1;
	return 0;
}
