/* What `gsio convert` and mdl2gltf share: their common options, the output
 * each input goes to, an input's results (error, warnings, record), the
 * --report file, the summary line and the exit status. A command describes
 * itself in a gsio_cli; its fields are where the two commands differ in a
 * message or a rule. Program code, not the library. */
#ifndef GSIO_CLI_COMMON_H
#define GSIO_CLI_COMMON_H

#include "gsio.h"
#include "gsio_gltf.h"
#include "gsio_inputs.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GSIO_CLI_EXIT_FAILED 1
#define GSIO_CLI_EXIT_USAGE 2
/** Returned by the steps below when the command goes on (any other value
 *  is the exit status). */
#define GSIO_CLI_GO_ON (-1)
/** Returned by a command's own option handler for an option it does not have. */
#define GSIO_CLI_UNKNOWN (-2)

/** A command, for the shared steps. */
typedef struct gsio_cli {
	const char *name;       /**< starts every message ("NAME: ..."); the report's "tool" */
	const char *version;    /**< --version prints it, a space and the version */
	void (*usage)(FILE *f); /**< --help prints it on standard output */
	const char *folder;     /**< how messages call a folder ("cannot read this folder") */
	/** Every usage error ends in "Try 'NAME --help'."; otherwise only an
	 *  unknown option and an option without its value do. */
	bool try_help_always;
	/** A number option may be 1e30 itself; otherwise it stays below. */
	bool takes_1e30;
	/** An input '-' is standard input (never searched as a folder). */
	bool reads_stdin;
	/** A folder that cannot be listed keeps the output it would have
	 *  (its record names it); otherwise its output is null. */
	bool unreadable_keeps_output;
	/** How much of each path the "also the output of" error quotes; 0: all
	 *  the message has room for. */
	int quoted_path_chars;
	/** The report's write error says why (strerror). */
	bool report_error_says_why;
	/** The summary line comes for one input too and says the time taken;
	 *  otherwise it comes for several inputs only. */
	bool batch_summary;
} gsio_cli;

/** Seconds on a monotonic clock. */
double gsio_cli_now(void);

/** Clears err and sets its code, file and message. */
void gsio_cli_set_error(gsio_error *err, gsio_error_code code, const char *file, const char *msg);

// -- Options

/** The options both commands take. */
typedef struct gsio_cli_opts {
	const char *out;         /**< -o; NULL when not given */
	float fps;               /**< --fps; 0: the library's default */
	float scale;             /**< --scale; 0: 1 */
	bool keep_axes;          /**< --axes source */
	bool scale_or_axes;      /**< --scale or --axes given (glTF output's options) */
	bool no_animation, force, quiet, verbose;
	bool bake_lightmaps;     /**< --bake-lightmaps: a compiled level's texture x lightmap in one image */
	const char *palette;     /**< --palette, loaded into palette_rgb (gsio_cli_load_palette) */
	uint8_t palette_rgb[768];
	const char **anims;      /**< --anim, repeatable: MD5 animations instead of the siblings */
	size_t anims_count;
	const char **paths;      /**< --path, repeatable: folders searched for the files a model or level names */
	size_t paths_count;
	const char *report;      /**< --report; a name ending in .jsonl: one record a line */
	bool update;             /**< --update: only the inputs whose output is missing or older */
	const char *files_from;  /**< --files-from: a list of inputs ("-": standard input) */
	bool null_list;          /**< -0, --null: the list is NUL-separated */
	const char *base;        /**< --base: outputs mirror the inputs' paths below it */
	const char *made_from;   /**< another file every output is made from (--update compares
	                              it): gsio convert's --color-map */
} gsio_cli_opts;

/** getopt_long values of the shared options; a command's own start at
 *  GSIO_CLI_OPT_OWN. */
enum {
	GSIO_CLI_OPT_FPS = 256,
	GSIO_CLI_OPT_PALETTE,
	GSIO_CLI_OPT_SCALE,
	GSIO_CLI_OPT_AXES,
	GSIO_CLI_OPT_NOANIM,
	GSIO_CLI_OPT_ANIM,
	GSIO_CLI_OPT_PATH,
	GSIO_CLI_OPT_FORCE,
	GSIO_CLI_OPT_REPORT,
	GSIO_CLI_OPT_HELP,
	GSIO_CLI_OPT_VERSION,
	GSIO_CLI_OPT_UPDATE,
	GSIO_CLI_OPT_FILES_FROM,
	GSIO_CLI_OPT_BASE,
	GSIO_CLI_OPT_BAKE,
	GSIO_CLI_OPT_OWN
};

/** The shared entries of a command's getopt_long table; a command names
 *  the short ones it takes (-o, -q, -v, -0) in its own string. */
#define GSIO_CLI_LONG_OPTIONS                                       \
	{"output", required_argument, NULL, 'o'},                   \
	{"fps", required_argument, NULL, GSIO_CLI_OPT_FPS},         \
	{"palette", required_argument, NULL, GSIO_CLI_OPT_PALETTE}, \
	{"scale", required_argument, NULL, GSIO_CLI_OPT_SCALE},     \
	{"axes", required_argument, NULL, GSIO_CLI_OPT_AXES},       \
	{"no-animation", no_argument, NULL, GSIO_CLI_OPT_NOANIM},   \
	{"anim", required_argument, NULL, GSIO_CLI_OPT_ANIM},       \
	{"path", required_argument, NULL, GSIO_CLI_OPT_PATH},       \
	{"force", no_argument, NULL, GSIO_CLI_OPT_FORCE},           \
	{"report", required_argument, NULL, GSIO_CLI_OPT_REPORT},   \
	{"quiet", no_argument, NULL, 'q'},                          \
	{"verbose", no_argument, NULL, 'v'},                        \
	{"help", no_argument, NULL, GSIO_CLI_OPT_HELP},             \
	{"version", no_argument, NULL, GSIO_CLI_OPT_VERSION},       \
	{"update", no_argument, NULL, GSIO_CLI_OPT_UPDATE},         \
	{"files-from", required_argument, NULL, GSIO_CLI_OPT_FILES_FROM}, \
	{"null", no_argument, NULL, '0'},                           \
	{"base", required_argument, NULL, GSIO_CLI_OPT_BASE},       \
	{"bake-lightmaps", no_argument, NULL, GSIO_CLI_OPT_BAKE}

/** A command's own option: GSIO_CLI_GO_ON, an exit status, or GSIO_CLI_UNKNOWN. */
typedef int (*gsio_cli_option_fn)(void *user, int ch, const char *arg);

/** Reads the options of argv (argv[0] the command) with getopt_long: the
 *  shared ones into o, the others through `own`. GSIO_CLI_GO_ON with optind
 *  at the first input, or the exit status (0 after --help and --version). */
int gsio_cli_parse(const gsio_cli *c, gsio_cli_opts *o, int argc, char **argv, const char *shorts,
                   const struct option *longs, gsio_cli_option_fn own, void *user);

/** Prints "NAME: MESSAGE" (and the --help hint when the command gives it
 *  after every usage error); returns GSIO_CLI_EXIT_USAGE. */
int gsio_cli_usage_error(const gsio_cli *c, const char *fmt, ...)
    GSIO_PRINTF(2, 3);

/** s as a number: all of s, finite, within the command's limit, above 0
 *  when `positive`. The programs never call setlocale: "C" numbers. */
bool gsio_cli_parse_float(const gsio_cli *c, const char *s, float *out, bool positive);

/** The usage errors of options that contradict each other:
 *  GSIO_CLI_GO_ON when they do not. */
int gsio_cli_check_quiet_verbose(const gsio_cli *c, const gsio_cli_opts *o);
int gsio_cli_check_anim(const gsio_cli *c, const gsio_cli_opts *o);

/** The usage errors of --update, --files-from, -0 and --base against the
 *  output (`folder`: -o names a folder) and the inputs: GSIO_CLI_GO_ON
 *  when there is none. */
int gsio_cli_check_batch(const gsio_cli *c, const gsio_cli_opts *o, bool folder, bool to_stdout,
                         char *const *inputs, size_t n);

/** Loads --palette, when given: GSIO_CLI_GO_ON or a usage error. */
int gsio_cli_load_palette(const gsio_cli *c, gsio_cli_opts *o);

/** The load options the shared options ask for (terrains kept as grids). */
void gsio_cli_load_opts(const gsio_cli_opts *o, gsio_opts *lo);
/** The glTF options the shared options ask for (axes, animation, scale, no
 *  replacing without --force or --update); the command adds its own. */
void gsio_cli_gltf_opts(const gsio_cli_opts *o, gsio_gltf_opts *go);
/** Prints the help of --path, one text for every command that takes it
 *  (gsio info, gsio convert, mdl2gltf): "  --path DIR", then its lines
 *  starting at `column` (the command's column of option texts, at most 21
 *  for lines of 79 characters). */
void gsio_cli_path_help(FILE *f, int column);

// -- Inputs and outputs

/** The search folders of one input's load: lo's (--path), then, for an
 *  input found below a folder named on the command line (the first
 *  root_len bytes of `input`), that folder. Sets lo->search_paths; *owned
 *  is what to free after the load (NULL when nothing was allocated). False
 *  when out of memory. */
bool gsio_cli_search_paths(gsio_opts *lo, const char *input, size_t root_len, void **owned);
/** Whether OUT names a folder by itself: an existing one, or ending in '/'. */
bool gsio_cli_names_folder(const char *out);
/** Whether path's base name has an extension (".glb"; not a leading dot). */
bool gsio_cli_has_extension(const char *path);
/** Whether any of the n input arguments is a folder. */
bool gsio_cli_any_folder(const gsio_cli *c, char *const *args, size_t n);
/** Why the n inputs need an output folder, as the words before "inputs":
 *  "several", "listed" (--files-from: a list holds any number, so that each
 *  part of a split list goes to the same place), "a folder of"; NULL for
 *  one file. */
const char *gsio_cli_several(const gsio_cli *c, const gsio_cli_opts *o, char *const *args, size_t n);

/** The inputs: the command line's, then those --files-from lists. */
typedef struct gsio_cli_args {
	char **items;
	size_t count;
	size_t given; /**< how many of them are the command line's */
	gsio_list list;
} gsio_cli_args;

/** Gathers the inputs: the n of argv, then the list's. GSIO_CLI_GO_ON, or
 *  the exit status after "cannot read the list". */
int gsio_cli_args_get(const gsio_cli *c, const gsio_cli_opts *o, char **argv, size_t n,
                      gsio_cli_args *a);
void gsio_cli_args_free(gsio_cli_args *a);

/** One input, its output and its results. */
typedef struct gsio_cli_job {
	char *input;
	char *output;          /**< NULL: none (see unreadable_keeps_output) */
	gsio_error err;        /**< set before converting when the job is refused */
	bool ok;
	bool up_to_date;       /**< --update found its output current: not converted (ok) */
	double seconds;
	cJSON *scene;          /**< with --report: what the input holds (gsio_record_scene) */
	char **warnings;       /**< the scene's, then the writer's */
	size_t warnings_count;
	size_t scene_warnings; /**< how many of them are the scene's */
	/** For an input found below a folder named on the command line, the
	 *  length of that folder's part of `input` (0: a file named as it is). */
	size_t root_len;
} gsio_cli_job;

typedef struct gsio_cli_jobs {
	gsio_cli_job *items;
	size_t count;
} gsio_cli_jobs;

/** Where the outputs go. */
typedef struct gsio_cli_outputs {
	const char *out; /**< a file, a folder (folder), or NULL: beside each input */
	bool folder;     /**< out is a folder that mirrors the input tree */
	const char *ext; /**< the outputs' extension in a folder or beside the inputs */
	bool assimp;     /**< folders are searched for Assimp's extensions too */
	/** In a folder: the listed inputs' paths below this folder are
	 *  mirrored (NULL: the current folder's), and with it given the
	 *  command line's too (else a file goes in by its name, a folder's
	 *  files by their path below it). */
	const char *base;
} gsio_cli_outputs;

/** Lists the inputs (files as named, folders searched: gsio_inputs.h) with
 *  their outputs. An input whose folder cannot be listed, whose output an
 *  earlier input has, or that lies outside the base folder, is refused (its
 *  err set). GSIO_CLI_GO_ON (no job for an empty list), or the exit status
 *  after "nothing to convert" or "out of memory". */
int gsio_cli_plan(const gsio_cli *c, const gsio_cli_args *a, const gsio_cli_outputs *to,
                  gsio_cli_jobs *jobs);

/** Whether the writers may replace an existing output (--force, --update). */
bool gsio_cli_replaces(const gsio_cli_opts *o);

/** Whether job j is to be loaded: not refused, not current (--update: then
 *  j->up_to_date), and its output free (or replaced; standard output
 *  always is). Else j->err says why. */
bool gsio_cli_job_ready(const gsio_cli_opts *o, gsio_cli_job *j, bool to_stdout);

/** Keeps what the loaded scene s says for the job: its warnings and, with
 *  --report, its record. False when out of memory. */
bool gsio_cli_job_loaded(const gsio_cli_opts *o, gsio_cli_job *j, const gsio_scene *s);

/** A writer warning for job j (a gsio_warn_fn; j is the user pointer). */
void gsio_cli_job_warn(void *j, const char *message);

/** Writes job j's output: 0, or non-zero with j->err set. */
typedef int (*gsio_cli_write_fn)(const void *user, const gsio_scene *s, gsio_cli_job *j);

/** Creates the output's folder (not for standard output), writes, and sets
 *  j->ok; an output that exists gets the --force hint. */
void gsio_cli_job_write(const gsio_cli *c, const gsio_cli_opts *o, gsio_cli_job *j,
                        const gsio_scene *s, bool to_stdout, gsio_cli_write_fn write,
                        const void *user);

/** Prints job j's error or (unless --quiet) its warnings; for a job left
 *  up to date, its line with --verbose. Returns whether j was converted. */
bool gsio_cli_job_print(const gsio_cli *c, const gsio_cli_opts *o, const gsio_cli_job *j);

/** Writes --report, prints the summary line (unless --quiet; `seconds` the
 *  batch's time) and frees the jobs. Returns the exit status: 0 when every
 *  input was converted (or up to date) and the report written, else 1. */
int gsio_cli_finish(const gsio_cli *c, const gsio_cli_opts *o, gsio_cli_jobs *jobs, double seconds);

/** Frees the option lists. */
void gsio_cli_opts_free(gsio_cli_opts *o);

#endif
