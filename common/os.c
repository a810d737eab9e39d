/* The operating system under gsio (gsioi_os.h): POSIX calls, or their
 * Windows counterparts with UTF-8 paths turned into wide strings. */
#ifndef _WIN32
#define _GNU_SOURCE // fstatat, dirfd, realpath
#endif
#include "gsioi_os.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#ifdef _WIN32
#include <io.h>
#include <process.h>
#include <windows.h>
#include <shellapi.h> // CommandLineToArgvW
#else
#include <dirent.h>
#include <unistd.h>
#endif

#define IO_CHUNK ((size_t)1 << 30)

size_t gsioi_path_root(const char *path)
{
	if (!path) return 0;
#ifdef _WIN32
	if (gsioi_is_sep(path[0]) && gsioi_is_sep(path[1])) { // \\server\share\ or \\?\C:\ .
		size_t n = 2;
		for (int part = 0; part < 2 && path[n]; part++) {
			while (path[n] && !gsioi_is_sep(path[n])) n++;
			if (path[n]) n++;
		}
		return n;
	}
	if (((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':')
		return gsioi_is_sep(path[2]) ? 3 : 2;
#endif
	return gsioi_is_sep(path[0]) ? 1 : 0;
}

#ifdef _WIN32
// -- Windows

/* UTF-8 -> wide, malloc'd; NULL (errno EINVAL or ENOMEM) when it cannot. */
static wchar_t *wide(const char *s)
{
	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	wchar_t *w = malloc((size_t)n * sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

/* wide -> UTF-8, malloc'd. */
static char *narrow_raw(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = n > 0 ? malloc((size_t)n) : NULL;
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

/* A path from Windows as UTF-8, malloc'd, '\' made '/'. */
static char *narrow(const wchar_t *w)
{
	char *s = narrow_raw(w);
	for (char *c = s; c && *c; c++)
		if (*c == '\\') *c = '/';
	return s;
}

static int errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH: return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_WRITE_PROTECT: return EACCES;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS: return EEXIST;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL: return ENOSPC;
	case ERROR_NOT_SAME_DEVICE: return EXDEV;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY: return ENOMEM;
	case ERROR_NOT_SUPPORTED:
	case ERROR_INVALID_FUNCTION: return ENOSYS;
	case ERROR_DIRECTORY: return ENOTDIR;
	default: return EIO;
	}
}

static int fail_last(void)
{
	errno = errno_of(GetLastError());
	return -1;
}

static void fill_info(DWORD attrs, uint64_t size, FILETIME mtime, bool follow, gsioi_file_info *info)
{
	if (!follow && (attrs & FILE_ATTRIBUTE_REPARSE_POINT))
		info->kind = GSIOI_KIND_LINK;
	else if (attrs & FILE_ATTRIBUTE_DIRECTORY)
		info->kind = GSIOI_KIND_DIR;
	else if (attrs & FILE_ATTRIBUTE_DEVICE)
		info->kind = GSIOI_KIND_DEVICE;
	else
		info->kind = GSIOI_KIND_FILE;
	info->size = size;
	// 100 ns since 1601 -> since 1970.
	uint64_t t = ((uint64_t)mtime.dwHighDateTime << 32 | mtime.dwLowDateTime) - 116444736000000000ull;
	info->mtime_sec = (int64_t)(t / 10000000u);
	info->mtime_nsec = (long)(t % 10000000u) * 100;
}

bool gsioi_stat(const char *path, bool follow, gsioi_file_info *info)
{
	memset(info, 0, sizeof(*info));
	wchar_t *w = wide(path);
	if (!w) return false;
	bool ok = false;
	if (!follow) {
		WIN32_FILE_ATTRIBUTE_DATA a;
		if (GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
			fill_info(a.dwFileAttributes, (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow, a.ftLastWriteTime,
			          false, info);
			ok = true;
		}
	} else {
		// Opened, so that a link or junction is followed to what it names.
		HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
		                       FILE_FLAG_BACKUP_SEMANTICS, NULL);
		BY_HANDLE_FILE_INFORMATION bi;
		if (h != INVALID_HANDLE_VALUE && GetFileInformationByHandle(h, &bi)) {
			fill_info(bi.dwFileAttributes, (uint64_t)bi.nFileSizeHigh << 32 | bi.nFileSizeLow, bi.ftLastWriteTime,
			          true, info);
			if (GetFileType(h) == FILE_TYPE_PIPE) info->kind = GSIOI_KIND_FIFO;
			ok = true;
		} else {
			errno = errno_of(GetLastError());
		}
		if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
	}
	if (!ok && !follow) errno = errno_of(GetLastError());
	free(w);
	return ok;
}

bool gsioi_fstat(int fd, gsioi_file_info *info)
{
	memset(info, 0, sizeof(*info));
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	if (h == INVALID_HANDLE_VALUE) {
		errno = EBADF;
		return false;
	}
	DWORD type = GetFileType(h);
	if (type != FILE_TYPE_DISK) {
		info->kind = type == FILE_TYPE_PIPE ? GSIOI_KIND_FIFO : GSIOI_KIND_DEVICE;
		return true;
	}
	BY_HANDLE_FILE_INFORMATION bi;
	if (!GetFileInformationByHandle(h, &bi)) return fail_last() == 0;
	fill_info(bi.dwFileAttributes, (uint64_t)bi.nFileSizeHigh << 32 | bi.nFileSizeLow, bi.ftLastWriteTime, true,
	          info);
	return true;
}

/* Opened with CreateFileW so that others may delete it while it is open
 * (FILE_SHARE_DELETE): the Ctrl+C cleanup removes a temporary still being
 * written (gone when its last handle closes, at the latest when the
 * process ends). mode is POSIX's and means nothing here. */
int gsioi_open(const char *path, int flags, int mode)
{
	(void)mode;
	wchar_t *w = wide(path);
	if (!w) return -1;
	int acc = flags & (O_RDONLY | O_WRONLY | O_RDWR);
	DWORD access = acc == O_RDWR ? GENERIC_READ | GENERIC_WRITE : acc == O_WRONLY ? GENERIC_WRITE : GENERIC_READ;
	DWORD how = (flags & O_CREAT) && (flags & O_EXCL) ? CREATE_NEW
	            : (flags & O_CREAT) && (flags & O_TRUNC) ? CREATE_ALWAYS
	            : (flags & O_CREAT)                      ? OPEN_ALWAYS
	            : (flags & O_TRUNC)                      ? TRUNCATE_EXISTING
	                                                     : OPEN_EXISTING;
	DWORD attrs = FILE_ATTRIBUTE_NORMAL | (flags & GSIOI_O_TEMPORARY ? FILE_FLAG_DELETE_ON_CLOSE : 0);
	HANDLE h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, how, attrs, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) return fail_last();
	int fd = _open_osfhandle((intptr_t)h, (acc == O_RDONLY ? O_RDONLY : 0) | O_BINARY | O_NOINHERIT);
	if (fd < 0) {
		CloseHandle(h);
		errno = EMFILE;
	}
	return fd;
}

long long gsioi_read(int fd, void *buf, size_t n)
{
	return _read(fd, buf, (unsigned)(n > IO_CHUNK ? IO_CHUNK : n));
}

static long long at_offset(int fd, void *buf, size_t n, uint64_t offset, bool write)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);
	OVERLAPPED o;
	memset(&o, 0, sizeof(o));
	o.Offset = (DWORD)offset;
	o.OffsetHigh = (DWORD)(offset >> 32);
	DWORD done = 0, want = (DWORD)(n > IO_CHUNK ? IO_CHUNK : n);
	BOOL ok = write ? WriteFile(h, buf, want, &done, &o) : ReadFile(h, buf, want, &done, &o);
	if (!ok) {
		if (!write && GetLastError() == ERROR_HANDLE_EOF) return 0;
		return fail_last();
	}
	return done;
}

long long gsioi_pread(int fd, void *buf, size_t n, uint64_t offset)
{
	return at_offset(fd, buf, n, offset, false);
}

long long gsioi_pwrite(int fd, const void *buf, size_t n, uint64_t offset)
{
	return at_offset(fd, (void *)buf, n, offset, true);
}

int gsioi_close(int fd)
{
	return _close(fd);
}

int gsioi_fsync(int fd)
{
	return FlushFileBuffers((HANDLE)_get_osfhandle(fd)) ? 0 : fail_last();
}

FILE *gsioi_fopen(const char *path, const char *mode)
{
	wchar_t *w = wide(path), *m = wide(mode);
	FILE *f = w && m ? _wfopen(w, m) : NULL;
	free(w);
	free(m);
	return f;
}

int gsioi_unlink(const char *path)
{
	wchar_t *w = wide(path);
	int rc = !w ? -1 : DeleteFileW(w) ? 0 : fail_last();
	free(w);
	return rc;
}

int gsioi_rename(const char *from, const char *to)
{
	wchar_t *f = wide(from), *t = wide(to);
	int rc = !f || !t ? -1
	         : MoveFileExW(f, t, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0
	                                                                                 : fail_last();
	free(f);
	free(t);
	return rc;
}

int gsioi_link(const char *from, const char *to)
{
	wchar_t *f = wide(from), *t = wide(to);
	int rc = !f || !t ? -1 : CreateHardLinkW(t, f, NULL) ? 0 : fail_last();
	free(f);
	free(t);
	return rc;
}

int gsioi_mkdir(const char *path)
{
	wchar_t *w = wide(path);
	int rc = !w ? -1 : CreateDirectoryW(w, NULL) ? 0 : fail_last();
	free(w);
	return rc;
}

/* The final path of a handle, without its "\\?\" (or "\\?\UNC\") prefix. */
static char *final_path(HANDLE h)
{
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED);
	wchar_t *w = n ? malloc((n + 1) * sizeof(*w)) : NULL;
	if (!w || !GetFinalPathNameByHandleW(h, w, n + 1, FILE_NAME_NORMALIZED)) {
		free(w);
		errno = ENOENT;
		return NULL;
	}
	const wchar_t *p = w;
	if (!wcsncmp(p, L"\\\\?\\UNC\\", 8)) {
		p += 6; // keeps "\\" before the server
		w[6] = L'\\';
	} else if (!wcsncmp(p, L"\\\\?\\", 4)) {
		p += 4;
	}
	char *s = narrow(p);
	free(w);
	return s;
}

char *gsioi_realpath(const char *path)
{
	wchar_t *w = wide(path);
	if (!w) return NULL;
	HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	                       FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		fail_last();
		return NULL;
	}
	char *s = final_path(h);
	CloseHandle(h);
	return s;
}

char *gsioi_getcwd(void)
{
	DWORD n = GetCurrentDirectoryW(0, NULL);
	wchar_t *w = n ? malloc(n * sizeof(*w)) : NULL;
	char *s = w && GetCurrentDirectoryW(n, w) ? narrow(w) : NULL;
	free(w);
	return s;
}

bool gsioi_isatty(int fd)
{
	return _isatty(fd) != 0;
}

long gsioi_pid(void)
{
	return (long)GetCurrentProcessId();
}

int gsioi_cpu_count(void)
{
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return si.dwNumberOfProcessors ? (int)si.dwNumberOfProcessors : 1;
}

void gsioi_sleep_ms(unsigned ms)
{
	Sleep(ms);
}

struct gsioi_dir {
	HANDLE h;
	bool first;
	wchar_t *pattern;
	WIN32_FIND_DATAW fd;
	char *name;
	char *dir;
};

gsioi_dir *gsioi_dir_open(const char *path)
{
	size_t n = strlen(path);
	char *pat = malloc(n + 3);
	gsioi_dir *d = pat ? calloc(1, sizeof(*d)) : NULL;
	if (!d) {
		free(pat);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(pat, path, n);
	if (n && !gsioi_is_sep(path[n - 1])) pat[n++] = '/';
	pat[n++] = '*';
	pat[n] = 0;
	d->pattern = wide(pat);
	d->dir = pat;
	d->h = d->pattern ? FindFirstFileW(d->pattern, &d->fd) : INVALID_HANDLE_VALUE;
	if (d->h == INVALID_HANDLE_VALUE) {
		if (d->pattern) fail_last();
		free(d->pattern);
		free(pat);
		free(d);
		return NULL;
	}
	pat[n - 1] = 0; // the folder with its separator, for the kinds of links
	d->first = true;
	return d;
}

const char *gsioi_dir_next(gsioi_dir *d, gsioi_kind *kind)
{
	for (;;) {
		if (!d->first && !FindNextFileW(d->h, &d->fd)) return NULL;
		d->first = false;
		const wchar_t *n = d->fd.cFileName;
		if (n[0] == L'.' && (!n[1] || (n[1] == L'.' && !n[2]))) continue;
		free(d->name);
		if (!(d->name = narrow(n))) return NULL;
		if (kind) {
			DWORD a = d->fd.dwFileAttributes;
			*kind = a & FILE_ATTRIBUTE_DIRECTORY ? GSIOI_KIND_DIR : GSIOI_KIND_FILE;
			if (a & FILE_ATTRIBUTE_REPARSE_POINT) { // what the link leads to
				size_t dl = strlen(d->dir), nl = strlen(d->name);
				char *full = malloc(dl + nl + 1);
				gsioi_file_info fi = {0};
				if (full) {
					memcpy(full, d->dir, dl);
					memcpy(full + dl, d->name, nl + 1);
					gsioi_stat(full, true, &fi);
				}
				free(full);
				*kind = fi.kind;
			}
		}
		return d->name;
	}
}

void gsioi_dir_close(gsioi_dir *d)
{
	if (!d) return;
	FindClose(d->h);
	free(d->pattern);
	free(d->name);
	free(d->dir);
	free(d);
}

void gsioi_program_start(int *argc, char ***argv)
{
	_setmode(_fileno(stdin), O_BINARY);
	_setmode(_fileno(stdout), O_BINARY);
	_setmode(_fileno(stderr), O_BINARY);
	SetConsoleOutputCP(CP_UTF8);
	int n = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &n);
	char **a = w && n >= 1 ? calloc((size_t)n + 1, sizeof(*a)) : NULL;
	bool ok = a != NULL;
	for (int i = 0; ok && i < n; i++) ok = (a[i] = narrow_raw(w[i])) != NULL;
	if (w) LocalFree(w);
	if (!ok) {
		for (int i = 0; a && i < n; i++) free(a[i]);
		free(a);
		return;
	}
	*argc = n;
	*argv = a; // kept for the program's life
}

static void (*interrupt_fn)(void);

static BOOL WINAPI on_console_event(DWORD event)
{
	(void)event;
	// Runs on a thread of its own while the others go on; returning FALSE
	// lets the default handler end the process (exit code of Ctrl+C).
	if (interrupt_fn) interrupt_fn();
	return FALSE;
}

void gsioi_on_interrupt(void (*fn)(void))
{
	interrupt_fn = fn;
	SetConsoleCtrlHandler(on_console_event, TRUE);
}

#else
// -- POSIX

void gsioi_program_start(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
}

static void fill_info(const struct stat *st, gsioi_file_info *info)
{
	info->kind = S_ISREG(st->st_mode)                            ? GSIOI_KIND_FILE
	             : S_ISDIR(st->st_mode)                          ? GSIOI_KIND_DIR
	             : S_ISLNK(st->st_mode)                          ? GSIOI_KIND_LINK
	             : S_ISFIFO(st->st_mode)                         ? GSIOI_KIND_FIFO
	             : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? GSIOI_KIND_DEVICE
	                                                             : GSIOI_KIND_OTHER;
	info->size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	info->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	info->mtime_nsec = st->st_mtim.tv_nsec;
}

bool gsioi_stat(const char *path, bool follow, gsioi_file_info *info)
{
	struct stat st;
	memset(info, 0, sizeof(*info));
	if (follow ? stat(path, &st) : lstat(path, &st)) return false;
	fill_info(&st, info);
	return true;
}

bool gsioi_fstat(int fd, gsioi_file_info *info)
{
	struct stat st;
	memset(info, 0, sizeof(*info));
	if (fstat(fd, &st)) return false;
	fill_info(&st, info);
	return true;
}

int gsioi_open(const char *path, int flags, int mode)
{
	return open(path, flags | O_CLOEXEC, mode);
}

long long gsioi_read(int fd, void *buf, size_t n)
{
	return read(fd, buf, n > IO_CHUNK ? IO_CHUNK : n);
}

long long gsioi_pread(int fd, void *buf, size_t n, uint64_t offset)
{
	return pread(fd, buf, n > IO_CHUNK ? IO_CHUNK : n, (off_t)offset);
}

long long gsioi_pwrite(int fd, const void *buf, size_t n, uint64_t offset)
{
	return pwrite(fd, buf, n > IO_CHUNK ? IO_CHUNK : n, (off_t)offset);
}

int gsioi_close(int fd)
{
	return close(fd);
}

int gsioi_fsync(int fd)
{
	return fsync(fd);
}

FILE *gsioi_fopen(const char *path, const char *mode)
{
	return fopen(path, mode);
}

int gsioi_unlink(const char *path)
{
	return unlink(path);
}

int gsioi_rename(const char *from, const char *to)
{
	return rename(from, to);
}

int gsioi_link(const char *from, const char *to)
{
	return link(from, to);
}

int gsioi_mkdir(const char *path)
{
	return mkdir(path, 0777);
}

char *gsioi_realpath(const char *path)
{
	return realpath(path, NULL);
}

char *gsioi_getcwd(void)
{
	return getcwd(NULL, 0);
}

bool gsioi_isatty(int fd)
{
	return isatty(fd) != 0;
}

long gsioi_pid(void)
{
	return (long)getpid();
}

int gsioi_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

void gsioi_sleep_ms(unsigned ms)
{
	struct timespec t = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

struct gsioi_dir {
	DIR *d;
};

gsioi_dir *gsioi_dir_open(const char *path)
{
	DIR *dd = opendir(path);
	if (!dd) return NULL;
	gsioi_dir *d = malloc(sizeof(*d));
	if (!d) {
		closedir(dd);
		errno = ENOMEM;
		return NULL;
	}
	d->d = dd;
	return d;
}

const char *gsioi_dir_next(gsioi_dir *d, gsioi_kind *kind)
{
	struct dirent *e;
	while ((e = readdir(d->d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
		if (kind) {
			*kind = GSIOI_KIND_NONE;
#ifdef DT_REG
			if (e->d_type == DT_REG) *kind = GSIOI_KIND_FILE;
			else if (e->d_type == DT_DIR) *kind = GSIOI_KIND_DIR;
			else if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN)
#endif
			{
				struct stat st;
				if (fstatat(dirfd(d->d), e->d_name, &st, 0) == 0) {
					gsioi_file_info fi;
					fill_info(&st, &fi);
					*kind = fi.kind;
				}
			}
		}
		return e->d_name;
	}
	return NULL;
}

void gsioi_dir_close(gsioi_dir *d)
{
	if (!d) return;
	closedir(d->d);
	free(d);
}

static void (*interrupt_fn)(void);

static void on_signal(int sig)
{
	if (interrupt_fn) interrupt_fn();
	signal(sig, SIG_DFL);
	raise(sig);
}

void gsioi_on_interrupt(void (*fn)(void))
{
	interrupt_fn = fn;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	// Both signals blocked while one runs: a second Ctrl-C does not cut the
	// cleanup short.
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	// A write past the file size limit (ulimit -f) then fails with EFBIG,
	// which the writers report and clean up after, instead of the signal
	// killing the process with its temporaries left behind.
	signal(SIGXFSZ, SIG_IGN);
}
#endif
