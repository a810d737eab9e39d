/* The operating system under gsio (os.c): the one place that knows
 * whether files, folders, descriptors and consoles are POSIX's or
 * Windows'. Paths are UTF-8 everywhere; on Windows they are turned into
 * wide strings for every call (a user's "C:\Users\Jürgen\..."), and both
 * '\' and '/' separate their parts. On POSIX systems each function is the
 * call it names, so behaviour there is that of the call. Failures set errno
 * (Windows' own error codes mapped to the nearest errno). Internal; not
 * installed. */
#ifndef GSIOI_OS_H
#define GSIOI_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a path names. A Windows reparse point (a symbolic link or a
 *  junction) is GSIOI_KIND_LINK when not followed. */
typedef enum gsioi_kind {
	GSIOI_KIND_NONE = 0, /**< nothing there (or it cannot be told) */
	GSIOI_KIND_FILE,     /**< a regular file */
	GSIOI_KIND_DIR,
	GSIOI_KIND_LINK,
	GSIOI_KIND_FIFO,
	GSIOI_KIND_DEVICE,
	GSIOI_KIND_OTHER,
} gsioi_kind;

typedef struct gsioi_file_info {
	gsioi_kind kind;
	uint64_t size;
	int64_t mtime_sec; /**< last change, seconds since 1970 */
	long mtime_nsec;
} gsioi_file_info;

/** What `path` names, following links (stat) or not (lstat). False (info
 *  kind NONE) when it cannot be told. */
bool gsioi_stat(const char *path, bool follow, gsioi_file_info *info);
/** The same of an open descriptor (fstat). */
bool gsioi_fstat(int fd, gsioi_file_info *info);

/** An open() flag: the file is removed when closed (Windows; 0 elsewhere). */
#ifdef _WIN32
#define GSIOI_O_TEMPORARY 0x0040 // _O_TEMPORARY
#else
#define GSIOI_O_TEMPORARY 0
#endif

/** open(): always binary, never inherited by child processes. */
int gsioi_open(const char *path, int flags, int mode);
/** read()/pread()/pwrite() of at most 1 GiB at a time: the count done, or
 *  -1 (errno). */
long long gsioi_read(int fd, void *buf, size_t n);
long long gsioi_pread(int fd, void *buf, size_t n, uint64_t offset);
long long gsioi_pwrite(int fd, const void *buf, size_t n, uint64_t offset);
int gsioi_close(int fd);
/** Writes the file's data to the disk before returning (fsync). */
int gsioi_fsync(int fd);
FILE *gsioi_fopen(const char *path, const char *mode);
int gsioi_unlink(const char *path);
/** Moves from to `to`, replacing a file there (rename(); on Windows
 *  MoveFileExW with MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH). */
int gsioi_rename(const char *from, const char *to);
/** A second name for a file, failing with EEXIST when `to` exists. */
int gsioi_link(const char *from, const char *to);
/** One folder (0777 less the umask on POSIX systems). */
int gsioi_mkdir(const char *path);
/** The path with every link (and junction) followed and "." and ".."
 *  resolved, '/' separated, malloc'd; NULL when it does not exist. */
char *gsioi_realpath(const char *path);
/** The current folder, malloc'd ('/' separated); NULL on failure. */
char *gsioi_getcwd(void);
bool gsioi_isatty(int fd);
/** The process id, for temporary names. */
long gsioi_pid(void);
/** The CPUs online (at least 1). */
int gsioi_cpu_count(void);
void gsioi_sleep_ms(unsigned ms);

/** A folder being listed ("." and ".." left out). */
typedef struct gsioi_dir gsioi_dir;
gsioi_dir *gsioi_dir_open(const char *path);
/** The next entry's name (valid until the next call), NULL at the end.
 *  With kind: what the entry is, links followed. */
const char *gsioi_dir_next(gsioi_dir *d, gsioi_kind *kind);
void gsioi_dir_close(gsioi_dir *d);

/** Whether c separates the parts of a path ('/', and '\' on Windows). */
static inline bool gsioi_is_sep(char c)
{
#ifdef _WIN32
	return c == '/' || c == '\\';
#else
	return c == '/';
#endif
}
/** The last separator in path (strrchr for '/', and '\\' on Windows),
 *  NULL when there is none. */
static inline const char *gsioi_path_last_sep(const char *path)
{
	const char *last = NULL;
	for (const char *c = path; *c; c++)
		if (gsioi_is_sep(*c)) last = c;
	return last;
}
/** The length of the path's root: 1 for "/x", 3 for "C:/x" or "C:\x", the
 *  "//server/share/" of a UNC path, 0 for a relative path. */
size_t gsioi_path_root(const char *path);

/** For a program's main(), first: on Windows the arguments become UTF-8
 *  (from the wide command line; left as they are when that fails),
 *  standard input and output carry bytes unchanged (no "\r\n"), and the
 *  console shows UTF-8. Nothing elsewhere. */
void gsioi_program_start(int *argc, char ***argv);

/** Runs fn (once) when the user interrupts the program (SIGINT, SIGTERM;
 *  Ctrl+C, Ctrl+Break or closing the console on Windows), then ends it as
 *  the interruption would; ignores SIGXFSZ where there is one. */
void gsioi_on_interrupt(void (*fn)(void));

#ifdef __cplusplus
}
#endif
#endif
