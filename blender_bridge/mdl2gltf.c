/* mdl2gltf: converts GameStudio MDL/HMP and id MD5 files (whatever the gsio
 * registry reads) into glTF 2.0, one output per input, in parallel.
 *
 * Each input is converted on its own (load -> scene -> glTF in memory ->
 * temporary file -> rename), so the bytes written never depend on the number
 * of jobs or on the order they finish in. */
#include "gsio.h"
#include "gsio_gltf.h"
#include "gsioi_helper_thread.h"
#include "gsio_inputs.h"
#include "gsio_record.h"
#include "gsioi_place.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_USAGE 2

// -- Options

typedef struct cli {
	const char *out;       // -o
	bool gltf;             // --gltf
	long jobs;             // -j, 0: all cores
	unsigned writer_threads; // gsio_gltf_opts.threads: 2 when a core is left over
	float fps;             // 0: library default
	const char *palette;   // --palette
	uint8_t palette_rgb[768];
	float scale;           // 0: 1
	bool keep_axes;        // --axes source
	bool no_animation;
	bool compact;
	const char **anims;    // --anim, repeatable: MD5 animations instead of the siblings
	size_t anims_count;
	const char **paths;    // --path, repeatable: folders searched for files a level names
	size_t paths_count;
	bool force;
	const char *report;
	bool quiet, verbose;
} cli;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: mdl2gltf [options] INPUT... [-o OUT]\n"
	        "\n"
	        "Converts the 3D files the gsio library reads to glTF 2.0: every skin (PNG),\n"
	        "every frame (one morph target each), every animation clip (one glTF animation\n"
	        "each), skeletons, skeletal animations and cameras where the format has them.\n"
	        "\n"
	        "formats read (from the library's importer registry):\n");
	const gsio_importer *const *imps = gsio_importers();
	for (size_t i = 0; imps[i]; i++)
		fprintf(f, "  %-28s versions %d..%d, extensions: %s\n", imps[i]->name, imps[i]->min_version,
		        imps[i]->max_version, imps[i]->extensions);
	fprintf(f,
	        "\n"
	        "INPUT is a file or a directory. Directories are searched recursively for files\n"
	        "whose extension a gsio importer claims (.mdl, .hmp, .md5mesh, ...), except\n"
	        ".md5anim files beside an .md5mesh: those are loaded with the mesh, as its\n"
	        "animations. Files named on the command line are converted whatever their\n"
	        "extension. A file that fails to load is an error; the other inputs are still\n"
	        "converted.\n"
	        "\n"
	        "Output: without -o, beside each input with the extension replaced by .glb (or\n"
	        ".gltf). With one input file, -o OUT names the output file (ending in .glb or\n"
	        ".gltf, or with no extension), unless OUT is an existing directory or ends in\n"
	        "'/'. With several inputs or a directory input, OUT must be a directory: an\n"
	        "existing one, one ending in '/', or a name without an extension (created\n"
	        "when missing); it mirrors the input tree. Every file is written under a\n"
	        "temporary name in its directory and renamed into place; a .gltf and its\n"
	        ".bin and images only when all are written (a failed write leaves the old\n"
	        "ones as they were). Other formats: gsio convert.\n"
	        "\n"
	        "options:\n"
	        "  -o OUT          output file or directory (see above)\n"
	        "  --gltf          write NAME.gltf + NAME.bin + NAME_<skin>.png instead of NAME.glb\n"
	        "                  (when -o names a file, its extension .gltf or .glb decides)\n"
	        "  -j N            convert N files at once (default: all cores), the largest\n"
	        "                  first; the output is the same whatever N. With fewer jobs\n"
	        "                  than cores, each conversion encodes its large skins on a\n"
	        "                  second thread while it writes the meshes\n"
	        "  --fps F         frame rate of vertex-animation clips (default 10: GameStudio\n"
	        "                  stores none)\n"
	        "  --palette FILE  256-colour palette for 8-bit skins (.pcx, or 768-byte .raw/.lmp);\n"
	        "                  default: gsio's built-in stand-in palette\n"
	        "  --scale S       multiply positions and translations by S (default 1; 1 quant\n"
	        "                  is about an inch, so 0.0254 gives metres)\n"
	        "  --axes gltf     convert Z up / X forward to glTF's Y up / front +Z (default)\n"
	        "  --axes source   keep the file's axes\n"
	        "  --no-animation  write the first frame / bind pose only\n"
	        "  --compact       smaller output with KHR_mesh_quantization (16-bit positions,\n"
	        "                  8-bit normals and morph deltas, 16-bit UVs) and skins\n"
	        "                  compressed harder (zlib -9, slower); Blender 3.4+ reads it,\n"
	        "                  older or simpler readers may not (default: floats)\n"
	        "  --anim FILE     (repeatable) for .md5mesh inputs: these .md5anim files become\n"
	        "                  the animations, instead of every .md5anim beside the mesh; one\n"
	        "                  whose skeleton does not match the mesh's fails that input\n"
	        "  --path DIR      (repeatable) for .wmp levels: a folder searched, after the\n"
	        "                  level's own, for the WADs and models it names (by base name,\n"
	        "                  case-insensitively; nothing outside these folders is opened)\n"
	        "  --force         replace existing outputs (without it they are errors, found\n"
	        "                  before the input is read, and are left untouched)\n"
	        "  --report FILE   write a JSON record per input (input, output, status, error,\n"
	        "                  counts, warnings, seconds) to FILE\n"
	        "  --quiet         print errors only\n"
	        "  --verbose       print a line per converted file\n"
	        "  --version       print the version and exit\n"
	        "  --help          print this text and exit\n"
	        "\n"
	        "PNG and JPEG texture files are embedded as they are, without decoding them\n"
	        "(only their header is read): one whose image data is damaged is embedded\n"
	        "as it is. Other texture files and skins stored in the model are decoded.\n"
	        "\n"
	        "A progress bar is drawn on stderr when it is a terminal (not with --quiet).\n"
	        "Exit status: 0 when every input was converted, 1 when any failed (or there was\n"
	        "nothing to convert), 2 on a usage error (bad option, no input, unreadable\n"
	        "palette, an -o file for several inputs, an -o extension other than .glb/.gltf).\n");
}

static bool parse_float(const char *s, float *out)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end); // the program never calls setlocale: "C" numbers
	if (errno || end == s || *end || !(d > 0) || d > 1e30) return false;
	*out = (float)d;
	return true;
}

// -- Inputs and outputs

typedef struct job {
	char *input;
	char *output;
	bool from_dir;         // found by walking a directory
	// results
	bool ok;
	gsio_error err;
	gsio_gltf_output warnings; // writer warnings
	char **scene_warnings;
	size_t scene_warnings_count;
	struct {
		size_t vertices, welded, triangles, frames, skins, clips, meshes, joints, animations,
		    cameras;
	} counts;
	double seconds;
	cJSON *scene_record;   // what the input holds (gsio_record_scene), NULL on failure
} job;

typedef struct job_list {
	job *items;
	size_t count, cap;
} job_list;

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p) {
		fprintf(stderr, "mdl2gltf: out of memory\n");
		exit(EXIT_FAILED);
	}
	return p;
}

static void out_of_memory(void)
{
	fprintf(stderr, "mdl2gltf: out of memory\n");
	exit(EXIT_FAILED);
}

// gsio_inputs.c's path helpers, which return NULL when out of memory.
static char *join(const char *a, const char *b)
{
	char *p = gsio_join(a, b);
	if (!p) out_of_memory();
	return p;
}

static void push_job(job_list *l, char *input, char *output, bool from_dir)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		job *n = realloc(l->items, cap * sizeof(*n));
		if (!n) {
			fprintf(stderr, "mdl2gltf: out of memory\n");
			exit(EXIT_FAILED);
		}
		l->items = n;
		l->cap = cap;
	}
	job *j = &l->items[l->count++];
	memset(j, 0, sizeof(*j));
	j->input = input;
	j->output = output;
	j->from_dir = from_dir;
	gsio_error_clear(&j->err);
}

/** path with its extension replaced by ext (".glb"). */
static char *replace_ext(const char *path, const char *ext)
{
	char *p = gsio_replace_ext(path, ext);
	if (!p) out_of_memory();
	return p;
}

/** Adds every file with a known extension below the folder root (the search
 *  the gsio command does: gsio_inputs.c), each with its output: beside it, or
 *  at the same place below out_root. */
static void add_dir(job_list *l, const char *root, const char *out_root, const char *ext)
{
	gsio_inputs found = {0};
	if (!gsio_inputs_add_dir(&found, root, false)) out_of_memory();
	for (size_t i = 0; i < found.count; i++) {
		gsio_input *in = &found.items[i];
		char *out = NULL;
		// A folder that cannot be listed is reported as a failed input: the
		// user named something we cannot read.
		if (!in->unreadable) {
			if (out_root) {
				char *o = join(out_root, in->rel);
				out = replace_ext(o, ext);
				free(o);
			} else {
				out = replace_ext(in->path, ext);
			}
		}
		push_job(l, in->path, out, true);
		in->path = NULL;
	}
	gsio_inputs_free(&found);
}

// -- Conversion

/* The order jobs start in: with one thread, as listed; with several, the
 * largest input first (ties as listed), so that a big file left for last
 * does not keep one thread busy while the others have nothing to do (the
 * longest-first rule; the conversion time of a file grows with its size).
 * NULL when out of memory. */
static size_t *start_order(const job_list *l, size_t nthreads)
{
	size_t *order = malloc((l->count ? l->count : 1) * sizeof(*order));
	off_t *size = nthreads > 1 ? calloc(l->count ? l->count : 1, sizeof(*size)) : NULL;
	if (!order || (nthreads > 1 && !size)) {
		free(order);
		free(size);
		return NULL;
	}
	for (size_t i = 0; i < l->count; i++) {
		struct stat st;
		order[i] = i;
		if (size && !stat(l->items[i].input, &st)) size[i] = st.st_size;
	}
	// Insertion sort, stable: batches are hundreds of files at most.
	for (size_t i = 1; size && i < l->count; i++) {
		size_t v = order[i], k = i;
		for (; k > 0 && size[order[k - 1]] < size[v]; k--) order[k] = order[k - 1];
		order[k] = v;
	}
	free(size);
	return order;
}

typedef struct pool {
	cli *opt;
	job_list *jobs;
	size_t *order;         // the jobs in the order they are started
	size_t next, done, failed;
	pthread_mutex_t lock;
	bool progress;
} pool;

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void draw_progress(pool *p, const char *name)
{
	size_t total = p->jobs->count;
	int width = 30;
	int fill = total ? (int)((size_t)width * p->done / total) : width;
	const char *base = name ? strrchr(name, '/') : NULL;
	base = base ? base + 1 : name ? name : "";
	fprintf(stderr, "\r\033[K[%.*s%*s] %zu/%zu %.40s", fill,
	        "##############################", width - fill, "", p->done, total, base);
	fflush(stderr);
}

static void clear_progress(pool *p)
{
	if (p->progress) fprintf(stderr, "\r\033[K");
}

/* Gives the pages of freed memory back to the system. Between a load and
 * its writing, the load's temporaries (the file's decoded arrays, welding
 * tables, scratch arenas, a folder's listing) are freed but glibc keeps
 * their pages, and the writer's own memory (its mapped buffer, the PNG
 * encoder) comes on top of them, fresh. Given back first, the peak is the
 * larger of the load's and the writing's instead of their sum: mdl2gltf's
 * data peak (median of 7) of corridor_02_short_door.mdl 448 -> 376 KB,
 * prefab.wmp 548 -> 468, cEselslerche.mdl 10.4 -> 9.0 MB, at 0-4% of the
 * conversion's time. Only before the last job started writes: a job after
 * it would fault those pages in again, and in a batch of 18 corpus files
 * giving them back after every load took 16-26% more time (page faults
 * and the other CPU's TLB flushes, perf) for a peak that is the largest
 * file's anyway. Elsewhere than glibc, nothing. */
static void give_back_free_pages(void)
{
#if defined(__GLIBC__)
	(void)malloc_trim(0);
#endif
}

static void convert(pool *p, job *j, bool last)
{
	cli *o = p->opt;
	double t0 = now();
	if (!j->output) {
		gsio_error_clear(&j->err);
		j->err.code = GSIO_ERR_IO;
		snprintf(j->err.file, sizeof(j->err.file), "%s", j->input);
		snprintf(j->err.message, sizeof(j->err.message), "cannot read this directory");
		return;
	}
	if (j->err.code != GSIO_OK) return; // refused before starting (duplicate output)
	gsio_opts lo = {0};
	lo.fps = o->fps;
	if (o->palette) lo.palette = o->palette_rgb;
	if (o->no_animation) lo.flags |= GSIO_OPT_NO_ANIMATION;
	// No output of this command needs decoded pixels: the writer embeds (or,
	// with --gltf, writes beside) a PNG or JPEG texture as it is, and makes
	// the PNG of a skin from the form the model stores it in. Reading the
	// headers only saves decoding (Bob.md5mesh: five PNGs, most of the time
	// left) and the whole RGBA copy of every skin.
	lo.flags |= GSIO_OPT_NO_PIXELS;
	// Terrains stay grids: the writer makes their vertices and triangles a
	// strip at a time instead of the load expanding them whole.
	lo.flags |= GSIO_OPT_GRID;
	lo.anim_paths = o->anims;
	lo.anim_paths_count = o->anims_count;
	lo.search_paths = o->paths;
	lo.search_paths_count = o->paths_count;
	gsio_scene *s = NULL;
	if (o->force || !gsio_output_taken(j->output, &j->err)) s = gsio_load_file(j->input, &lo, &j->err);
	if (s) {
		if (last) give_back_free_pages();
		j->counts.vertices = s->source.vertices;
		j->counts.triangles = s->source.triangles;
		for (size_t i = 0; i < s->meshes_count; i++) j->counts.welded += s->meshes[i].vertex_count;
		j->counts.frames = s->meshes_count ? s->meshes[0].frames_count : 0;
		j->counts.skins = s->images_count;
		// Clips are the animations that play morph frames; the others move
		// nodes (skeletal, cameras).
		size_t clips = 0, joints = 0;
		for (size_t a = 0; a < s->animations_count; a++) {
			bool morph = false;
			for (size_t k = 0; k < s->animations[a].channels_count; k++)
				morph = morph || s->animations[a].channels[k].path == GSIO_PATH_MORPH;
			if (morph) clips++;
		}
		for (size_t k = 0; k < s->skins_count; k++) joints += s->skins[k].joints_count;
		j->counts.clips = clips;
		j->counts.meshes = s->meshes_count;
		j->counts.joints = joints;
		j->counts.animations = s->animations_count - clips;
		j->counts.cameras = s->cameras_count;
		if (o->report) j->scene_record = gsio_record_scene(s);
		if (s->warnings_count) {
			j->scene_warnings = calloc(s->warnings_count, sizeof(char *));
			for (size_t i = 0; j->scene_warnings && i < s->warnings_count; i++)
				j->scene_warnings[i] = xstrdup(s->warnings[i]);
			if (j->scene_warnings) j->scene_warnings_count = s->warnings_count;
		}
		gsio_gltf_opts go = {0};
		if (o->gltf) go.flags |= GSIO_GLTF_SEPARATE;
		if (o->keep_axes) go.flags |= GSIO_GLTF_KEEP_AXES;
		if (o->no_animation) go.flags |= GSIO_GLTF_NO_ANIMATION;
		if (o->compact) go.flags |= GSIO_GLTF_COMPACT;
		if (!o->force) go.flags |= GSIO_GLTF_NO_REPLACE;
		go.scale = o->scale;
		go.threads = o->writer_threads;
		go.generator = "gsio mdl2gltf " GSIO_VERSION_STRING;
		if (gsio_make_parent_dirs(j->output)) {
			j->err.code = GSIO_ERR_IO;
			snprintf(j->err.file, sizeof(j->err.file), "%s", j->output);
			snprintf(j->err.message, sizeof(j->err.message), "cannot create its directory: %s",
			         strerror(errno));
		} else if (gsio_gltf_write_file(s, j->output, &go, &j->warnings, &j->err) == 0) {
			j->ok = true;
		} else if (!o->force && j->err.code == GSIO_ERR_IO && strstr(j->err.message, "exists")) {
			// The library says what happened; the command says what to do.
			size_t len = strlen(j->err.message);
			snprintf(j->err.message + len, sizeof(j->err.message) - len, "; use --force to replace it");
		}
		gsio_scene_free(s);
	}
	j->seconds = now() - t0;
}

static void report_job(pool *p, job *j)
{
	cli *o = p->opt;
	if (!j->ok) {
		char buf[1024];
		gsio_error_format(&j->err, buf, sizeof(buf));
		// Name the input too when the error is about another file (the output).
		if (strcmp(j->err.file, j->input))
			fprintf(stderr, "mdl2gltf: %s: %s\n", j->input, buf);
		else
			fprintf(stderr, "mdl2gltf: %s\n", buf);
		return;
	}
	if (!o->quiet) {
		for (size_t i = 0; i < j->scene_warnings_count; i++)
			fprintf(stderr, "mdl2gltf: warning: %s: %s\n", j->input, j->scene_warnings[i]);
		for (size_t i = 0; i < j->warnings.warnings_count; i++)
			fprintf(stderr, "mdl2gltf: warning: %s: %s\n", j->output, j->warnings.warnings[i]);
	}
	if (o->verbose)
		printf("%s -> %s (%zu vertices, %zu triangles, %zu frames, %zu clips, %zu skins) %.3f s\n",
		       j->input, j->output, j->counts.welded, j->counts.triangles, j->counts.frames,
		       j->counts.clips, j->counts.skins, j->seconds);
}

static void *worker(void *arg)
{
	pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next < p->jobs->count ? p->order[p->next++] : SIZE_MAX;
		bool last = p->next == p->jobs->count; // no job is started after this one
		pthread_mutex_unlock(&p->lock);
		if (i == SIZE_MAX) break;
		job *j = &p->jobs->items[i];
		convert(p, j, last);
		pthread_mutex_lock(&p->lock);
		p->done++;
		if (!j->ok) p->failed++;
		clear_progress(p);
		report_job(p, j);
		fflush(stdout);
		if (p->progress) draw_progress(p, j->input);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

// -- Report

static int write_report(const char *path, job_list *l)
{
	// One record per input, the same as `gsio info --json` and `gsio convert
	// --report` (tools/gsio_record.h; the README's "Records").
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "tool", "mdl2gltf");
	cJSON_AddStringToObject(root, "version", GSIO_VERSION_STRING);
	cJSON *arr = cJSON_AddArrayToObject(root, "inputs");
	size_t failed = 0;
	for (size_t i = 0; i < l->count; i++) {
		job *j = &l->items[i];
		failed += !j->ok;
		size_t nw = j->scene_warnings_count + j->warnings.warnings_count;
		char **w = nw ? calloc(nw, sizeof(char *)) : NULL;
		size_t k = 0;
		for (size_t x = 0; w && x < j->scene_warnings_count; x++) w[k++] = j->scene_warnings[x];
		for (size_t x = 0; w && x < j->warnings.warnings_count; x++) w[k++] = j->warnings.warnings[x];
		cJSON_AddItemToArray(arr, gsio_record_new(j->input, j->output, j->ok ? NULL : &j->err,
		                                          j->scene_record, NULL, w, k, j->seconds));
		j->scene_record = NULL; // taken by the record
		free(w);
	}
	cJSON_AddNumberToObject(root, "converted", (double)(l->count - failed));
	cJSON_AddNumberToObject(root, "failed", (double)failed);
	int rc = gsio_record_write_file(path, root);
	cJSON_Delete(root);
	return rc;
}

// -- Main

int main(int argc, char **argv)
{
	static cli o; // static: what it points to stays reachable on an early return
	enum { OPT_GLTF = 256, OPT_FPS, OPT_PALETTE, OPT_SCALE, OPT_AXES, OPT_NOANIM, OPT_COMPACT, OPT_ANIM,
	       OPT_FORCE, OPT_PATH, OPT_REPORT, OPT_QUIET, OPT_VERBOSE, OPT_VERSION, OPT_HELP };
	static const struct option longs[] = {
	    {"gltf", no_argument, NULL, OPT_GLTF},
	    {"fps", required_argument, NULL, OPT_FPS},
	    {"palette", required_argument, NULL, OPT_PALETTE},
	    {"scale", required_argument, NULL, OPT_SCALE},
	    {"axes", required_argument, NULL, OPT_AXES},
	    {"no-animation", no_argument, NULL, OPT_NOANIM},
	    {"compact", no_argument, NULL, OPT_COMPACT},
	    {"anim", required_argument, NULL, OPT_ANIM},
	    {"force", no_argument, NULL, OPT_FORCE},
	    {"path", required_argument, NULL, OPT_PATH},
	    {"report", required_argument, NULL, OPT_REPORT},
	    {"quiet", no_argument, NULL, OPT_QUIET},
	    {"verbose", no_argument, NULL, OPT_VERBOSE},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {"help", no_argument, NULL, OPT_HELP},
	    {"output", required_argument, NULL, 'o'},
	    {"jobs", required_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":o:j:", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': o.out = optarg; break;
		case 'j': {
			char *end;
			errno = 0;
			o.jobs = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o.jobs < 1 || o.jobs > 1024) {
				fprintf(stderr, "mdl2gltf: -j needs a number of jobs from 1 to 1024, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case OPT_GLTF: o.gltf = true; break;
		case OPT_FPS:
			if (!parse_float(optarg, &o.fps)) {
				fprintf(stderr, "mdl2gltf: --fps needs a positive number, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_PALETTE: o.palette = optarg; break;
		case OPT_SCALE:
			if (!parse_float(optarg, &o.scale)) {
				fprintf(stderr, "mdl2gltf: --scale needs a positive number, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_AXES:
			if (!strcmp(optarg, "source"))
				o.keep_axes = true;
			else if (!strcmp(optarg, "gltf"))
				o.keep_axes = false;
			else {
				fprintf(stderr, "mdl2gltf: --axes takes 'source' or 'gltf', not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_NOANIM: o.no_animation = true; break;
		case OPT_COMPACT: o.compact = true; break;
		case OPT_ANIM:
			// Pointers into argv, which outlives the conversion; at most
			// argc of them, so one allocation holds them all.
			if (!o.anims && !(o.anims = calloc((size_t)argc, sizeof(*o.anims)))) {
				fprintf(stderr, "mdl2gltf: out of memory\n");
				return EXIT_FAILED;
			}
			o.anims[o.anims_count++] = optarg;
			break;
		case OPT_PATH:
			if (!o.paths && !(o.paths = calloc((size_t)argc, sizeof(*o.paths)))) {
				fprintf(stderr, "mdl2gltf: out of memory\n");
				return EXIT_FAILED;
			}
			o.paths[o.paths_count++] = optarg;
			break;
		case OPT_FORCE: o.force = true; break;
		case OPT_REPORT: o.report = optarg; break;
		case OPT_QUIET: o.quiet = true; break;
		case OPT_VERBOSE: o.verbose = true; break;
		case OPT_VERSION: printf("mdl2gltf (gsio) %s\n", GSIO_VERSION_STRING); return 0;
		case OPT_HELP: usage(stdout); return 0;
		case ':':
			fprintf(stderr, "mdl2gltf: option %s needs a value\n", argv[optind - 1]);
			fprintf(stderr, "Try 'mdl2gltf --help'.\n");
			return EXIT_USAGE;
		default:
			fprintf(stderr, "mdl2gltf: unknown option '%s'\n", argv[optind - 1]);
			fprintf(stderr, "Try 'mdl2gltf --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (o.anims_count && o.no_animation) {
		fprintf(stderr, "mdl2gltf: --anim and --no-animation contradict each other\n");
		return EXIT_USAGE;
	}
	if (o.quiet && o.verbose) {
		fprintf(stderr, "mdl2gltf: --quiet and --verbose contradict each other\n");
		return EXIT_USAGE;
	}
	// Ctrl-C or a kill during a batch leaves no temporary file behind.
	gsioi_install_cleanup_handlers();
	int ninputs = argc - optind;
	if (ninputs < 1) {
		fprintf(stderr, "mdl2gltf: no input files\n");
		fprintf(stderr, "usage: mdl2gltf [options] INPUT... [-o OUT]   (see --help)\n");
		return EXIT_USAGE;
	}
	if (o.palette) {
		gsio_error err;
		gsio_error_clear(&err);
		if (gsio_palette_load(o.palette, o.palette_rgb, &err)) {
			char buf[600];
			gsio_error_format(&err, buf, sizeof(buf));
			fprintf(stderr, "mdl2gltf: --palette: %s\n", buf);
			return EXIT_USAGE;
		}
	}

	// Decide what OUT is, then list the jobs.
	const char *ext = o.gltf ? ".gltf" : ".glb";
	bool out_dir = false;
	if (o.out) {
		struct stat st;
		size_t l = strlen(o.out);
		bool any_dir = false;
		for (int i = optind; i < argc; i++)
			if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) any_dir = true;
		bool named_dir = (l && o.out[l - 1] == '/') || (stat(o.out, &st) == 0 && S_ISDIR(st.st_mode));
		const char *base = strrchr(o.out, '/');
		base = base ? base + 1 : o.out;
		const char *dot = strrchr(base, '.');
		bool has_ext = dot && dot != base && dot[1];
		out_dir = ninputs > 1 || any_dir || named_dir;
		// A file name for several inputs would become a folder called
		// "two.glb"; a file name with another extension would hold a GLB.
		if ((ninputs > 1 || any_dir) && !named_dir && has_ext) {
			fprintf(stderr,
			        "mdl2gltf: %s inputs need a folder as -o, and %s names a file (give an "
			        "existing folder or end it in '/')\n",
			        ninputs > 1 ? "several" : "a folder of", o.out);
			return EXIT_USAGE;
		}
		if (!out_dir && has_ext && strcasecmp(dot, ".glb") && strcasecmp(dot, ".gltf")) {
			fprintf(stderr,
			        "mdl2gltf: mdl2gltf writes .glb or .gltf, not '%s' (-o %s); gsio convert writes "
			        "the other formats\n",
			        dot, o.out);
			return EXIT_USAGE;
		}
	}
	job_list jobs = {0};
	for (int i = optind; i < argc; i++) {
		const char *in = argv[i];
		struct stat st;
		if (stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
			add_dir(&jobs, in, out_dir ? o.out : NULL, ext);
			continue;
		}
		char *out;
		if (!o.out) {
			out = replace_ext(in, ext);
		} else if (out_dir) {
			const char *base = strrchr(in, '/');
			char *b = replace_ext(base ? base + 1 : in, ext);
			out = join(o.out, b);
			free(b);
		} else {
			out = xstrdup(o.out);
		}
		push_job(&jobs, xstrdup(in), out, false);
	}
	if (!jobs.count) {
		fprintf(stderr, "mdl2gltf: nothing to convert (no file with a known extension found)\n");
		return EXIT_FAILED;
	}
	// Two inputs must not write the same output (a.mdl and a.hmp in one folder).
	for (size_t i = 0; i < jobs.count; i++)
		for (size_t k = 0; k < i && jobs.items[i].output; k++)
			if (jobs.items[k].output && !strcmp(jobs.items[i].output, jobs.items[k].output)) {
				gsio_error *e = &jobs.items[i].err;
				e->code = GSIO_ERR_ARGUMENT;
				snprintf(e->file, sizeof(e->file), "%s", jobs.items[i].input);
				snprintf(e->message, sizeof(e->message), "its output %s is also the output of %s",
				         jobs.items[i].output, jobs.items[k].input);
				break;
			}

	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = (size_t)(o.jobs > 0 ? o.jobs : ncpu > 0 ? ncpu : 1);
	if (nthreads > jobs.count) nthreads = jobs.count;
	// A core no job has: each conversion may encode its images on it.
	o.writer_threads = nthreads < (size_t)gsioi_helper_cpus() ? 2 : 1;
	pool p = {0};
	p.opt = &o;
	p.jobs = &jobs;
	if (!(p.order = start_order(&jobs, nthreads))) out_of_memory();
	p.progress = !o.quiet && isatty(2);
	pthread_mutex_init(&p.lock, NULL);
	double t0 = now();
	if (p.progress) draw_progress(&p, NULL);
	// Each started on another CPU than this thread's (gsioi_helper_start:
	// a plain start here began up to 3 ms late, behind the busy main thread).
	gsio_helper *threads = calloc(nthreads, sizeof(*threads));
	size_t started = 0;
	if (threads)
		for (; started + 1 < nthreads; started++)
			if (!gsioi_helper_start(&threads[started], worker, &p)) break;
	worker(&p); // the main thread works too
	for (size_t i = 0; i < started; i++) gsioi_helper_join(&threads[i]);
	free(threads);
	clear_progress(&p);
	double elapsed = now() - t0;

	int rc = p.failed ? EXIT_FAILED : 0;
	if (o.report && write_report(o.report, &jobs)) {
		fprintf(stderr, "mdl2gltf: cannot write the report %s: %s\n", o.report, strerror(errno));
		rc = EXIT_FAILED;
	}
	if (!o.quiet)
		fprintf(stderr, "mdl2gltf: converted %zu of %zu files (%zu failed) in %.2f s\n",
		        jobs.count - p.failed, jobs.count, p.failed, elapsed);
	for (size_t i = 0; i < jobs.count; i++) {
		job *j = &jobs.items[i];
		free(j->input);
		free(j->output);
		gsio_gltf_output_free(&j->warnings);
		cJSON_Delete(j->scene_record);
		for (size_t k = 0; k < j->scene_warnings_count; k++) free(j->scene_warnings[k]);
		free(j->scene_warnings);
	}
	free(jobs.items);
	free(p.order);
	free(o.anims);
	pthread_mutex_destroy(&p.lock);
	return rc;
}
