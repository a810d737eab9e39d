/* gsio_bench end to end: mdl2gltf against assimp export, each in a child
 * process started by a helper process, with wall and CPU time, peak RSS,
 * the peak of mdl2gltf's own data, and the bytes a conversion reads. */
#define _GNU_SOURCE
#include "bench.h"
#include "gsio.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GSIO_MDL2GLTF
#define GSIO_MDL2GLTF "mdl2gltf"
#endif

/* Whether a GLB's JSON chunk has a "meshes" array. assimp export writes a
 * GLB for some files it reads no mesh from (flamemother.mdl, an MDL7: 300
 * bytes, a node and nothing else; `assimp info` fails on the same file with
 * "aiScene::mNumMeshes is 0"): that is not a conversion to compare with. */
static bool glb_has_mesh(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) return false;
	uint32_t h[5];
	bool found = false;
	if (fread(h, 4, 5, f) == 5 && h[0] == 0x46546C67u && h[4] == 0x4E4F534Au && h[3] < (64u << 20)) {
		char *json = malloc((size_t)h[3] + 1);
		if (json && fread(json, 1, h[3], f) == h[3]) {
			json[h[3]] = 0;
			found = strstr(json, "\"meshes\"") != NULL;
		}
		free(json);
	}
	fclose(f);
	return found;
}

// -- End to end (child processes)

/** CPU time (user + system) of the last run_child, ms: steadier than wall
 *  time on a machine other jobs share. */
static double last_cpu_ms;
static int last_signal; // the signal that ended the last run_child, 0: none

/* Children are started by a small helper process forked first thing in
 * main(): a child forked from this process would count this process's
 * resident memory (the files it holds) in its own peak RSS, since Linux keeps
 * the high-water mark of the address space a child replaces at exec. */
typedef struct spawn_result {
	double wall_ms, cpu_ms;
	long rss_kb;
	int ok;
	int signal; // the signal that ended the child, 0 when it exited
} spawn_result;

static int helper_in = -1, helper_out = -1;

static bool read_full(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static bool write_full(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

/** In a child before exec: stdout and stderr to /dev/null. */
static void quiet_output(void)
{
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
}

static spawn_result spawn_now(char *const argv[])
{
	spawn_result r = {NAN, NAN, 0, 0, 0};
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0) return r;
	if (pid == 0) {
		quiet_output();
		if (!strcmp(argv[0], ONE_CPU)) {
			cpu_set_t one;
			CPU_ZERO(&one);
			int cpu = sched_getcpu();
			CPU_SET(cpu >= 0 ? cpu : 0, &one);
			if (sched_setaffinity(0, sizeof(one), &one)) _exit(126);
			argv++;
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid) return r;
	r.wall_ms = now_ms() - t0;
	r.rss_kb = ru.ru_maxrss;
	r.cpu_ms = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3 +
	           (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
	r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return r;
}

/** The helper: reads requests (a length, then NUL-separated arguments), runs
 *  each, answers with a spawn_result. Ends when the pipe closes. */
static void helper_loop(int in, int out)
{
	for (;;) {
		uint32_t len;
		if (!read_full(in, &len, sizeof(len))) _exit(0);
		char *blob = malloc(len + 1);
		if (!blob || !read_full(in, blob, len)) _exit(1);
		blob[len] = 0;
		char *argv[256];
		int argc = 0;
		for (char *p = blob; p < blob + len && argc < 255; p += strlen(p) + 1) argv[argc++] = p;
		argv[argc] = NULL;
		spawn_result r = spawn_now(argv);
		free(blob);
		if (!write_full(out, &r, sizeof(r))) _exit(1);
	}
}

void start_helper(void)
{
	int req[2], ans[2];
	if (pipe(req) || pipe(ans)) return;
	pid_t pid = fork();
	if (pid < 0) return;
	if (pid == 0) {
		close(req[1]);
		close(ans[0]);
		helper_loop(req[0], ans[1]);
	}
	close(req[0]);
	close(ans[1]);
	helper_in = req[1];
	helper_out = ans[0];
}

double run_child(char *const argv[], long *rss_kb)
{
	// Every run starts with no dirty pages left by the one before (written
	// back here, untimed): on 2 cores the kernel's writeback of the last
	// output otherwise competes with whichever run comes next, more with a
	// -j 2 run that wants both cores than with a -j 1 run.
	sync();
	spawn_result r;
	if (helper_in < 0) {
		r = spawn_now(argv);
	} else {
		size_t len = 0;
		for (int i = 0; argv[i]; i++) len += strlen(argv[i]) + 1;
		char *blob = xmalloc(len);
		char *p = blob;
		for (int i = 0; argv[i]; i++) p = stpcpy(p, argv[i]) + 1;
		uint32_t l32 = (uint32_t)len;
		bool ok = write_full(helper_in, &l32, sizeof(l32)) && write_full(helper_in, blob, len) &&
		          read_full(helper_out, &r, sizeof(r));
		free(blob);
		if (!ok) r = spawn_now(argv);
	}
	*rss_kb = r.rss_kb;
	last_cpu_ms = r.cpu_ms;
	last_signal = r.signal;
	return r.ok ? r.wall_ms : NAN;
}

double last_child_cpu_ms(void)
{
	return last_cpu_ms;
}

int last_child_signal(void)
{
	return last_signal;
}

uint64_t spin(uint64_t iters)
{
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < iters; i++) x += i;
	return x;
}

double spin_processes(int n, uint64_t iters)
{
	double t0 = now_ms();
	pid_t pids[2] = {-1, -1};
	for (int k = 0; k < n && k < 2; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			(void)spin(iters);
			_exit(0);
		}
	}
	for (int k = 0; k < 2; k++)
		if (pids[k] > 0) waitpid(pids[k], NULL, 0);
	return now_ms() - t0;
}

/** Reads the numbers of /proc/PID/status named in keys (e.g. "RssAnon:")
 *  into vals (left as they were when absent); false when it cannot be read. */
static bool proc_status(pid_t pid, const char *const *keys, long *vals, int n)
{
	char path[64], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0) return false;
	ssize_t len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0) return false;
	buf[len] = 0;
	for (int i = 0; i < n; i++) {
		const char *at = strstr(buf, keys[i]);
		if (at) vals[i] = strtol(at + strlen(keys[i]), NULL, 10);
	}
	return true;
}

/** The peak of one run's own data, in KB: its anonymous memory (heap,
 *  mappings, stack: RssAnon), not its file-backed pages (the program's and
 *  its libraries' code and read-only data: shared with every process that
 *  runs them, the same for a 4 KB model as for a 4 MB one, but more of them
 *  on a path that runs more code; gsio maps no input or output file, so
 *  none of its data is file-backed). Linux keeps no peak of RssAnon, so two
 *  readings, each at most the true peak, and the larger is taken: RssAnon
 *  read every 50 us while the program runs (the bench's process waits on
 *  the other core), and at ptrace's exit stop (PTRACE_O_TRACEEXIT: finished,
 *  its memory still there) the peak RSS (VmHWM) less the file-backed pages
 *  then resident (low by the code first run after the peak: the writer's,
 *  when a load was the peak). Untimed, in runs of its own. -1 when it could
 *  not be measured. */
static long data_peak_kb(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0) return -1;
	if (pid == 0) {
		quiet_output();
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) _exit(126);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		_exit(127);
	}
	long hwm = -1, file = -1, anon_max = 0;
	bool ok = false;
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) goto reap;
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	static const char *const anon_key[] = {"RssAnon:"};
	bool execed = false; // before exec the child is a copy of this process
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == 0) {
			long anon = 0;
			if (execed && proc_status(pid, anon_key, &anon, 1) && anon > anon_max) anon_max = anon;
			struct timespec pause = {0, 50000};
			nanosleep(&pause, NULL);
			continue;
		}
		if (w != pid || !WIFSTOPPED(st)) goto reap;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) break;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) execed = true;
		int sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st); // exec's stop is not passed on
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	static const char *const exit_keys[] = {"VmHWM:", "RssFile:"};
	long v[2] = {-1, -1};
	proc_status(pid, exit_keys, v, 2);
	hwm = v[0];
	file = v[1];
	unsigned long status_word = 0;
	ptrace(PTRACE_GETEVENTMSG, pid, NULL, &status_word);
	ok = WIFEXITED((int)status_word) && WEXITSTATUS((int)status_word) == 0; // not a failed run
	ptrace(PTRACE_CONT, pid, NULL, NULL);
reap:
	while (waitpid(pid, &st, 0) == pid && !WIFEXITED(st) && !WIFSIGNALED(st))
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	if (!ok || hwm < 0 || file < 0) return -1;
	return hwm - file > anon_max ? hwm - file : anon_max;
}

const char *mdl2gltf = GSIO_MDL2GLTF;

char tmpdir[256];

long baseline_data_kb;

const char *baseline_file = ""; // whose data peak it is

double data_ratio(const file_result *r)
{
	if (!r->e2e || r->gsio_data_kb < 0 || r->gsio_out <= 0) return NAN;
	return (double)(r->gsio_data_kb - baseline_data_kb) * 1024 / (double)(r->input + r->gsio_out);
}

/* End to end, a file whose median paired ratio after the runs asked for
 * lies within a factor E2E_CLOSE of 1 (0.8 to 1.25: the same distance
 * either way for a ratio) gets paired runs up to E2E_CLOSE_RUNS in all: one
 * run's ratio moves by 10-20% on a shared machine, so a median of 3 from a
 * file at 0.9 lands over 1 now and then, and one at 1.1 under it. More
 * runs where the verdict is in doubt, the same rule both ways; the report
 * says which files got them.
 *
 * A corpus file (the goal's files) gets at least E2E_CLOSE_RUNS whatever
 * its first runs say: a shared machine slows a process down now and then
 * for tens of milliseconds at a time, in bursts, and such a burst can take
 * two of three runs (ratios far outside the window above, so never run
 * again) where 15 paired runs agree within 10%. A whole bench run stays
 * near 1.5 minutes with every corpus file at 15. The synthetic files, which
 * take up to 6 s a run, keep the rule above. */
void bench_e2e(bench_file *f, int reps, file_result *res)
{
	char g[4200], a[4200];
	snprintf(g, sizeof(g), "%s/out-gsio.glb", tmpdir);
	snprintf(a, sizeof(a), "%s/out-assimp.glb", tmpdir);
	char *gargv[] = {(char *)mdl2gltf, "--force", "--quiet", "-j", "1", f->path, "-o", g, NULL};
	char *aargv[] = {"assimp", "export", f->path, a, "-fglb2", NULL};
	if (!f->synthetic && reps < E2E_CLOSE_RUNS) reps = E2E_CLOSE_RUNS;
	const int most = reps > E2E_CLOSE_RUNS ? reps : E2E_CLOSE_RUNS;
	double *tg = xmalloc(sizeof(double) * (size_t)most), *ta = xmalloc(sizeof(double) * (size_t)most),
	       *r = xmalloc(sizeof(double) * (size_t)most), *rc = xmalloc(sizeof(double) * (size_t)most);
	int n = 0, ng = 0, na = 0;
	long rss_g = 0, rss_a = 0;
	for (int i = 0; i < most; i++) {
		if (i == reps) {
			double m = n ? median(r, n) : NAN; // sorts r: only its median is used
			if (!(m >= 1 / E2E_CLOSE && m <= E2E_CLOSE)) break;
		}
		long rg = 0, ra = 0;
		double x, y, cx, cy;
		int last_signal_a;
		// Each run writes a new file, as converting an archive does:
		// replacing a file costs more on some file systems (ext4 flushes
		// the new file's blocks before a rename over an old one), and the
		// two would replace outputs of very different sizes.
		unlink(g);
		unlink(a);
		if (i % 2) {
			y = run_child(aargv, &ra);
			cy = last_cpu_ms;
			last_signal_a = last_signal;
			x = run_child(gargv, &rg);
			cx = last_cpu_ms;
		} else {
			x = run_child(gargv, &rg);
			cx = last_cpu_ms;
			y = run_child(aargv, &ra);
			cy = last_cpu_ms;
			last_signal_a = last_signal;
		}
		if (isfinite(x)) tg[ng++] = x;
		if (isfinite(y)) ta[na++] = y;
		if (last_signal_a) res->assimp_crashed = true;
		if (isfinite(x) && isfinite(y)) {
			rc[n] = cy > 0 ? cx / cy : NAN;
			r[n++] = x / y;
		}
		if (rg > rss_g) rss_g = rg;
		if (ra > rss_a) rss_a = ra;
	}
	res->e2e = ng > 0;
	res->e2e_runs = n;
	res->e2e_gsio_ms = median(tg, ng);
	res->e2e_assimp_ms = median(ta, na);
	res->e2e_ratio = median(r, n);
	res->e2e_cpu_ratio = median(rc, n);
	res->gsio_rss_kb = rss_g;
	res->assimp_rss_kb = rss_a;
	// The data peak: the median of three runs (each reading moves by up to
	// 100-300 KB between runs of one binary on one file).
	res->gsio_data_kb = -1;
	if (ng) {
		long d[3];
		for (int i = 0; i < 3; i++) d[i] = data_peak_kb(gargv);
		int m = (d[0] <= d[1]) == (d[1] <= d[2]) ? 1 : (d[1] <= d[0]) == (d[0] <= d[2]) ? 0 : 2;
		if (d[0] >= 0 && d[1] >= 0 && d[2] >= 0) res->gsio_data_kb = d[m];
	}
	res->gsio_out = ng ? file_size(g) : -1;
	res->assimp_out = na ? file_size(a) : -1;
	res->assimp_empty = na && !glb_has_mesh(a);
	unlink(g);
	unlink(a);
	free(tg);
	free(ta);
	free(r);
	free(rc);
}

/* Bytes of every file a load of `path` reads (the file, its textures,
 * sibling animations, a level's WADs and models), counted through a
 * gsio_io that passes each read on to the default io: the input of a
 * conversion, as mdl2gltf loads the same way. The file's own size when the
 * load fails. */
typedef struct counting_io {
	const gsio_io *inner;
	long bytes;
} counting_io;

static int counting_read(void *user, const char *path, uint8_t **data, size_t *size,
                         gsio_error *err)
{
	counting_io *c = user;
	int rc = c->inner->read_file(c->inner->user, path, data, size, err);
	if (!rc) c->bytes += (long)*size;
	return rc;
}

static void counting_free(void *user, uint8_t *data)
{
	counting_io *c = user;
	c->inner->free_data(c->inner->user, data);
}

static int counting_list(void *user, const char *dir, char ***names, gsio_error *err)
{
	counting_io *c = user;
	return c->inner->list_dir(c->inner->user, dir, names, err);
}

static void counting_free_list(void *user, char **names)
{
	counting_io *c = user;
	c->inner->free_list(c->inner->user, names);
}

long input_bytes(const char *path)
{
	counting_io c = {gsio_default_io(), 0};
	gsio_io io = {counting_read, counting_free, counting_list, counting_free_list, &c};
	gsio_opts opts;
	memset(&opts, 0, sizeof(opts));
	opts.io = &io;
	gsio_error err;
	gsio_scene *s = gsio_load_file(path, &opts, &err);
	if (!s) return file_size(path);
	gsio_scene_free(s);
	return c.bytes;
}

bool tool_works(const char *tool)
{
	char *argv[] = {(char *)tool, "--help", NULL};
	long rss;
	double t = run_child(argv, &rss);
	return isfinite(t);
}
