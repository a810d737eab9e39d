/* gsio_bench's parts (bench.c says what it measures): the files it runs
 * on, the in-process contenders, the end-to-end runs in child processes,
 * and the small utilities they share. */
#ifndef GSIO_BENCH_H
#define GSIO_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// -- Small utilities (bench_util.c)

/** A monotonic clock, ms. */
double now_ms(void);
/** Median of n values (NAN when n is 0); v is reordered. */
double median(double *v, int n);
/** malloc() that exits the program when it fails. */
void *xmalloc(size_t n);
/** Whether s ends with suffix (any case). */
bool ends_with(const char *s, const char *suffix);
/** The file name after the last '/'. */
const char *base_name(const char *p);
/** The file's size, -1 when it cannot be stat()ed. */
long file_size(const char *p);
/** The whole file at path, malloc'd, *size bytes; NULL when it cannot be
 *  read. */
uint8_t *read_whole(const char *path, size_t *size);
/** Writes size bytes to path; false when it cannot. */
bool write_file(const char *path, const void *data, size_t size);
/** Removes dir and everything below it. */
void cleanup_dir(const char *dir);

// -- File list (bench_util.c)

typedef struct bench_file {
	char *path;
	bool synthetic;
	uint8_t *data;
	size_t size;
} bench_file;

/** The files to run, corpus (or named) files first, then synthetic ones. */
extern bench_file *files;
extern size_t files_count;
/** --match: only files whose name contains this (NULL: every file). */
extern const char *match;

/** Whether path's file name contains match. */
bool matches(const char *path);
/** Adds path to files when it matches. */
void add_file(const char *path, bool synthetic);
/** Adds the model files below dir, sorted, skipping folders named "invalid". */
void walk(const char *dir);

// -- Synthetic files (bench_synth.c)

/** Writes the synthetic MDL5, HMP5, MD5 and MDL7 (external skins) files
 *  into dir and adds them. */
void make_synthetic(const char *dir);

// -- In-process contenders (bench_load.c)

enum { C_MEMCPY, C_DECODE, C_LOAD, C_FIRST, C_BORROW, C_GRID, C_ASSIMP, C_WRITE, C_COUNT };

typedef struct file_result {
	bool read;              // gsio loads it
	double med[C_COUNT];    // median ms per contender (NAN: n/a)
	double load_vs_assimp;  // median of paired ratios, time / Assimp's time
	double first_vs_assimp;
	double borrow_vs_assimp;
	double load_vs_memcpy;
	double first_cold_ms;   // first-frame load with the caches cold (synthetic MDL5 only)
	size_t gltf_bytes;
	// end to end
	bool e2e;
	double e2e_gsio_ms, e2e_assimp_ms, e2e_ratio, e2e_cpu_ratio;
	long gsio_rss_kb, assimp_rss_kb;
	long gsio_data_kb; // data_peak_kb, the median of three more runs
	long input;                      // input_bytes: every file the conversion reads
	long gsio_out, assimp_out;
	bool assimp_empty; // assimp export wrote a GLB without a mesh
	bool assimp_crashed; // assimp export was ended by a signal
	int e2e_runs;      // paired end-to-end runs taken (more when close: E2E_CLOSE_RUNS)
	// external-skin models: a standard PNG encoder on the skins (png_reference_ms)
	double png_ref_ms;
	int png_ref_skins;
} file_result;

/** Runs every contender on f's bytes `reps` times (rotated) into res. */
void bench_in_process(bench_file *f, int reps, file_result *res);

// -- End to end (bench_e2e.c)

/* argv[0] ONE_CPU: the program in argv[1...] runs on one CPU only (the
 * one its process starts on), as on a one-core machine. */
#define ONE_CPU "@one-cpu"
/* A file's paired end-to-end runs go up to E2E_CLOSE_RUNS while their
 * median ratio lies within a factor E2E_CLOSE of 1 (bench_e2e.c says why). */
#define E2E_CLOSE 1.25
/* What the --compact goal against one compression allows for the run's
 * noise: files on which --compact does next to nothing more than the
 * default (no image, a mesh of a few KB: empty.wmp, block.wmp, milk.mdl,
 * SimpleCube.md5mesh) give compact / default 0.99 to 1.04 as least of the
 * alternated runs on an idle machine. */
#define COMPACT_ONE_NOISE 1.05
#define E2E_CLOSE_RUNS 15

/** mdl2gltf to run (--mdl2gltf) and the folder of the outputs and
 *  synthetic files. */
extern const char *mdl2gltf;
extern char tmpdir[256];
// The process's fixed data (libc's, the stack's, the allocator's first
// pages): the least data peak (data_peak_kb) of mdl2gltf over every file
// converted, a tiny file's, taken off each data peak before comparing it
// with input + output.
extern long baseline_data_kb;
extern const char *baseline_file; // whose data peak it is

/** Forks the helper that starts the children (first thing in main). */
void start_helper(void);
/** Runs argv with stdout/stderr to /dev/null; returns wall ms (NAN on
 *  failure) and the child's peak RSS in KB. */
double run_child(char *const argv[], long *rss_kb);
/** Counts to iters (the computing of spin_processes). */
uint64_t spin(uint64_t iters);
/** Wall ms of `n` (1 or 2) forked processes spinning `iters` each at once. */
double spin_processes(int n, uint64_t iters);
/** mdl2gltf's data peak less the fixed data, over input + output; NAN when
 *  either was not measured. */
double data_ratio(const file_result *r);
/** mdl2gltf and assimp export on f, alternated, each in a child process. */
void bench_e2e(bench_file *f, int reps, file_result *res);
/** Bytes of every file a load of path reads. */
long input_bytes(const char *path);
/** Whether `tool --help` runs. */
bool tool_works(const char *tool);
/** CPU time (user + system) of the last run_child, ms. */
double last_child_cpu_ms(void);
/** The signal that ended the last run_child's child, 0 when it exited. */
int last_child_signal(void);

// -- The whole corpus folder as one batch (bench_batch.c)

typedef struct folder_result {
	bool done;
	size_t files, assimp_files; // gsio's inputs; those assimp converts with a mesh
	size_t assimp_crash, assimp_fail, assimp_empty; // crashed (signal), failed, wrote no mesh
	double j1_ms, j2_ms, assimp_ms;  // medians
	double assimp_over_j1, j1_over_j2; // medians of per-run ratios
} folder_result;

/** Every corpus file gsio reads (res[i].read, files[0..corpus_count)), as
 *  one mdl2gltf batch (--files-from, outputs mirroring the corpus below
 *  `base`) with -j 1 and -j 2, against a loop of assimp export over the
 *  files it converts with a mesh; `reps` runs (at least 5), rotated.
 *  Prints its line. */
void bench_folder(const char *base, size_t corpus_count, const file_result *res, int reps,
                  folder_result *out);

typedef struct compact_result {
	size_t files, met; // files timed; those whose --compact run is at most 1.5 times the default's
	double worst;      // the largest ratio
	char worst_file[128];
	// --compact against the default plus one compression of its images and
	// what its meshes cost over the default's (COMPACT_ONE_NOISE allowed
	// for noise)
	size_t one_files, one_met; // files with that figure; those within it
	double one_worst;          // the largest compact / (default + one compression + meshes)
	char one_worst_file[128];
	size_t mesh_files;         // of the files, those that encode no image
} compact_result;

/** mdl2gltf --compact against the default on every corpus file gsio reads
 *  (`reps` runs each, at least 3, alternated; the least wall time counts),
 *  and against the default plus one compression of the compact output's
 *  images (one_compression_ms). Prints a line per file. */
void bench_compact(size_t corpus_count, const file_result *res, int reps, compact_result *out);

// -- One compression of a compact output's images (bench_compress.c)

typedef struct one_compression {
	size_t images;        // PNGs in the GLB
	size_t igzip;         // of those, compressed by igzip ...
	int igzip_level;      // ... at this level
	size_t libdeflate[13]; // by libdeflate, per level
	size_t raw_bytes;     // their filtered rows
} one_compression;

/** Least wall ms (of `reps`) of one compression of the filtered rows of
 *  every image the library encoded in the compact GLB at `glb`, each by
 *  the coder and level the library's compact plan chose for it, on this
 *  thread; 0 when it has none, NAN when the GLB cannot be read. */
double one_compression_ms(const char *glb, int reps, one_compression *what);

/** What --compact's meshes cost over the default's: the model at `path`
 *  loaded (GSIO_OPT_NO_PIXELS), its images taken out, and written into
 *  memory by the glTF writer with and without GSIO_GLTF_COMPACT, least of
 *  `reps` each, alternated; the difference in ms (0 when compact is not
 *  slower, and for a level, whose models need the search folders), NAN
 *  when the file cannot be loaded or written. */
double compact_mesh_ms(const char *path, int reps);

// -- A standard PNG encoder on a model's skins (bench_pngref.c)

/** Least wall ms (of `reps`) of libpng (zlib level 1, its default
 *  filters) writing the skins of the model at `model` (the TGA and BMP
 *  files in its folder), each read from its file and decoded by
 *  stb_image, into a sink that keeps nothing; *skins gets their count.
 *  NAN without libpng or when a skin cannot be read. */
double png_reference_ms(const char *model, int reps, int *skins);

// -- Linear in frames (bench_frames.c)

#define FRAMES_CASES 3
typedef struct frames_result {
	bool done;
	int source_frames;
	int frames[FRAMES_CASES];
	double cpu_ms[FRAMES_CASES];     // least CPU time of the runs
	long in[FRAMES_CASES], out[FRAMES_CASES];
	double cpu_per_frame[FRAMES_CASES - 1];   // ms per added frame, between cases k and k + 1
	double bytes_per_frame[FRAMES_CASES - 1]; // output bytes per added frame
	// Instructions of one run each, counted by callgrind (when valgrind is
	// installed; 0 otherwise): the code's own work, whatever the machine
	double instr[FRAMES_CASES];
	double instr_per_frame[FRAMES_CASES - 1];
} frames_result;

/** The corpus's minigun_mdl5.mdl cycled to 120, 1 920 and 7 680 frames,
 *  converted by mdl2gltf `reps` times each (at least 3); prints its table.
 *  False when the file is absent or a run fails. */
bool bench_frames(const char *corpus, int reps, frames_result *fr);

#endif
