/* mdl2gltf: converts GameStudio MDL/HMP and id MD5 files (whatever the gsio
 * registry reads) into glTF 2.0, one output per input, in parallel.
 *
 * Each input is converted on its own (load -> scene -> glTF in memory ->
 * temporary file -> rename), so the bytes written never depend on the number
 * of jobs or on the order they finish in. */
#include "gsio.h"
#include "gsio_cli_common.h"
#include "gsio_gltf.h"
#include "gsioi_helper_thread.h"
#include "gsioi_os.h"
#include "gsioi_place.h"

#include <errno.h>
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// -- Options

typedef struct cli {
	gsio_cli_opts cli;       // the options gsio convert takes too (gsio_cli_common.h)
	bool gltf;               // --gltf
	bool compact;            // --compact
	bool all_images;         // --all-images
	long jobs;               // -j, 0: all cores
	unsigned writer_threads; // gsio_gltf_opts.threads: 2 when a core is left over
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
	        "animations, and .wmb levels beside the .wmp of the same name (the source is\n"
	        "converted: both would write one output). Files named on the command line are converted whatever their\n"
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
	        "  --bake-lightmaps  a compiled level (.wmb): texture x lightmap in one image per\n"
	        "                  surface kind (default: the lightmap on TEXCOORD_1)\n"
	        "  --compact       smaller output with KHR_mesh_quantization (16-bit positions,\n"
	        "                  8-bit normals and morph deltas, 16-bit UVs) and skins\n"
	        "                  compressed harder (libdeflate 5-6, or igzip 3 for photos;\n"
	        "                  slower); Blender 3.4+ reads it, older or simpler readers may\n"
	        "                  not (default: floats)\n"
	        "  --all-images    also write the images no material uses (a terrain's skins\n"
	        "                  past its colour and detail maps; default: left out, named\n"
	        "                  in a warning)\n"
	        "  --anim FILE     (repeatable) for .md5mesh inputs: these .md5anim files become\n"
	        "                  the animations, instead of every .md5anim beside the mesh; one\n"
	        "                  whose skeleton does not match the mesh's fails that input\n");
	gsio_cli_path_help(f, 18);
	fprintf(f,
	        "  --force         replace existing outputs (without it they are errors, found\n"
	        "                  before the input is read, and are left untouched)\n"
	        "  --update        convert only the inputs whose output is missing or older than\n"
	        "                  the input or a file it is made from (--palette, --anim, the\n"
	        "                  .md5anim files beside an .md5mesh, a level's WADs, models and\n"
	        "                  sprites), replacing the older outputs; the others are up to\n"
	        "                  date (not an error). Textures a model names and the options\n"
	        "                  an output was made with are not compared: use --force after\n"
	        "                  changing those. Not with --force\n"
	        "  --files-from FILE  also convert the inputs FILE lists, one a line ('-':\n"
	        "                  standard input). OUT is then a folder, and a listed input's\n"
	        "                  output mirrors its path below the current folder (or --base):\n"
	        "                  a list split into parts, each run on its own, writes the same\n"
	        "                  files as the whole list in one run\n"
	        "  -0, --null      the list is NUL-separated (find -print0)\n"
	        "  --base DIR      outputs in the folder OUT mirror the inputs' paths below DIR,\n"
	        "                  those on the command line too; an input outside DIR fails\n"
	        "  --report FILE   write a JSON record per input (input, output, status, error,\n"
	        "                  counts, warnings, seconds) to FILE; a name ending in .jsonl\n"
	        "                  gets one record a line, so that the reports of several runs\n"
	        "                  joined with cat are the records of all\n"
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
	        "Exit status: 0 when every input was converted (or up to date, or the list was\n"
	        "empty), 1 when any failed (or there was nothing to convert), 2 on a usage error\n"
	        "(bad option, no input, unreadable palette or list, an -o file for several\n"
	        "inputs, an -o extension other than .glb/.gltf).\n");
}

static const gsio_cli CLI = {
    .name = "mdl2gltf",
    .version = "mdl2gltf (gsio)",
    .usage = usage,
    .folder = "directory",
    .takes_1e30 = true,
    .report_error_says_why = true,
    .batch_summary = true,
};

enum { OPT_GLTF = GSIO_CLI_OPT_OWN, OPT_COMPACT, OPT_ALL_IMAGES };

// The options only mdl2gltf has (a gsio_cli_option_fn).
static int mdl2gltf_option(void *user, int ch, const char *arg)
{
	cli *o = user;
	switch (ch) {
	case 'j': {
		char *end;
		errno = 0;
		o->jobs = strtol(arg, &end, 10);
		if (errno || *end || end == arg || o->jobs < 1 || o->jobs > 1024)
			return gsio_cli_usage_error(&CLI, "-j needs a number of jobs from 1 to 1024, not '%s'",
			                            arg);
		break;
	}
	case OPT_GLTF: o->gltf = true; break;
	case OPT_COMPACT: o->compact = true; break;
	case OPT_ALL_IMAGES: o->all_images = true; break;
	default: return GSIO_CLI_UNKNOWN;
	}
	return GSIO_CLI_GO_ON;
}

// Reads the options; the inputs are then argv[optind ..].
static int parse_options(cli *o, int argc, char **argv)
{
	static const struct option longs[] = {
	    GSIO_CLI_LONG_OPTIONS,
	    {"gltf", no_argument, NULL, OPT_GLTF},
	    {"compact", no_argument, NULL, OPT_COMPACT},
	    {"all-images", no_argument, NULL, OPT_ALL_IMAGES},
	    {"jobs", required_argument, NULL, 'j'},
	    {NULL, 0, NULL, 0},
	};
	int rc = gsio_cli_parse(&CLI, &o->cli, argc, argv, ":o:j:0", longs, mdl2gltf_option, o);
	if (rc != GSIO_CLI_GO_ON) return rc;
	if ((rc = gsio_cli_check_anim(&CLI, &o->cli)) != GSIO_CLI_GO_ON) return rc;
	return gsio_cli_check_quiet_verbose(&CLI, &o->cli);
}

// -- Inputs and outputs

/* Where the outputs go: without -o beside each input; with -o, a file for
 * one input file, else a folder that mirrors the input tree. */
static int decide_output(const cli *o, char *const *inputs, size_t count, gsio_cli_outputs *to)
{
	const char *out = o->cli.out;
	*to = (gsio_cli_outputs){out, false, o->gltf ? ".gltf" : ".glb", false};
	if (!out) return gsio_cli_check_batch(&CLI, &o->cli, false, false, inputs, count);
	const char *several = gsio_cli_several(&CLI, &o->cli, inputs, count);
	bool named_dir = gsio_cli_names_folder(out);
	bool has_ext = gsio_cli_has_extension(out);
	to->folder = several || named_dir;
	// A file name for several inputs would become a folder called
	// "two.glb"; a file name with another extension would hold a GLB.
	if (several && !named_dir && has_ext)
		return gsio_cli_usage_error(&CLI,
		                            "%s inputs need a folder as -o, and %s names a file (give an "
		                            "existing folder or end it in '/')",
		                            several, out);
	const char *base = gsioi_path_last_sep(out);
	const char *dot = strrchr(base ? base + 1 : out, '.');
	if (!to->folder && has_ext && strcasecmp(dot, ".glb") && strcasecmp(dot, ".gltf"))
		return gsio_cli_usage_error(&CLI,
		                            "mdl2gltf writes .glb or .gltf, not '%s' (-o %s); gsio convert "
		                            "writes the other formats",
		                            dot, out);
	to->base = o->cli.base;
	return gsio_cli_check_batch(&CLI, &o->cli, to->folder, false, inputs, count);
}

// -- Conversion

/* The order jobs start in: with one thread, as listed; with several, the
 * largest input first (ties as listed), so that a big file left for last
 * does not keep one thread busy while the others have nothing to do (the
 * longest-first rule; the conversion time of a file grows with its size).
 * NULL when out of memory. */
static size_t *start_order(const gsio_cli_jobs *l, size_t nthreads)
{
	size_t *order = malloc((l->count ? l->count : 1) * sizeof(*order));
	uint64_t *size = nthreads > 1 ? calloc(l->count ? l->count : 1, sizeof(*size)) : NULL;
	if (!order || (nthreads > 1 && !size)) {
		free(order);
		free(size);
		return NULL;
	}
	for (size_t i = 0; i < l->count; i++) {
		gsioi_file_info st;
		order[i] = i;
		if (size && gsioi_stat(l->items[i].input, true, &st)) size[i] = st.size;
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


// What the --verbose line says of an input.
typedef struct scene_counts {
	size_t welded, triangles, frames, clips, skins;
} scene_counts;

typedef struct pool {
	cli *opt;
	gsio_cli_jobs *jobs;
	scene_counts *counts;  // one per job
	size_t *order;         // the jobs in the order they are started
	size_t next, done;
	pthread_mutex_t lock;
	bool progress;
} pool;

static void draw_progress(pool *p, const char *name)
{
	size_t total = p->jobs->count;
	int width = 30;
	int fill = total ? (int)((size_t)width * p->done / total) : width;
	const char *base = name ? gsioi_path_last_sep(name) : NULL;
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


static void out_of_memory(void)
{
	fprintf(stderr, "mdl2gltf: out of memory\n");
	exit(GSIO_CLI_EXIT_FAILED);
}

static void count_scene(const gsio_scene *s, scene_counts *c)
{
	c->triangles = s->source.triangles;
	for (size_t i = 0; i < s->meshes_count; i++) c->welded += s->meshes[i].vertex_count;
	c->frames = s->meshes_count ? s->meshes[0].frames_count : 0;
	c->skins = s->images_count;
	// Clips are the animations that play morph frames; the others move
	// nodes (skeletal, cameras).
	for (size_t a = 0; a < s->animations_count; a++) {
		bool morph = false;
		for (size_t k = 0; k < s->animations[a].channels_count; k++)
			morph = morph || s->animations[a].channels[k].path == GSIO_PATH_MORPH;
		if (morph) c->clips++;
	}
}

// Writes job j's glTF (a gsio_cli_write_fn).
static int write_gltf(const void *user, const gsio_scene *s, gsio_cli_job *j)
{
	const cli *o = user;
	gsio_gltf_opts go;
	gsio_cli_gltf_opts(&o->cli, &go);
	if (o->gltf) go.flags |= GSIO_GLTF_SEPARATE;
	if (o->compact) go.flags |= GSIO_GLTF_COMPACT;
	if (o->all_images) go.flags |= GSIO_GLTF_ALL_IMAGES;
	go.threads = o->writer_threads;
	go.generator = "gsio mdl2gltf " GSIO_VERSION_STRING;
	gsio_gltf_output out = {0};
	int rc = gsio_gltf_write_file(s, j->output, &go, &out, &j->err);
	for (size_t i = 0; i < out.warnings_count; i++) gsio_cli_job_warn(j, out.warnings[i]);
	gsio_gltf_output_free(&out);
	return rc;
}

static void convert(pool *p, size_t i, bool last)
{
	const cli *o = p->opt;
	gsio_cli_job *j = &p->jobs->items[i];
	if (j->err.code != GSIO_OK) return; // refused before starting (unreadable, duplicate output)
	double t0 = gsio_cli_now();
	gsio_opts lo;
	gsio_cli_load_opts(&o->cli, &lo);
	// No output of this command needs decoded pixels: the writer embeds (or,
	// with --gltf, writes beside) a PNG or JPEG texture as it is, and makes
	// the PNG of a skin from the form the model stores it in. Reading the
	// headers only saves decoding (Bob.md5mesh: five PNGs, most of the time
	// left) and the whole RGBA copy of every skin.
	lo.flags |= GSIO_OPT_NO_PIXELS;
	void *owned;
	if (!gsio_cli_search_paths(&lo, j->input, j->root_len, &owned)) out_of_memory();
	gsio_scene *s = NULL;
	if (gsio_cli_job_ready(&o->cli, j, false)) s = gsio_load_file(j->input, &lo, &j->err);
	free(owned);
	if (s) {
		if (last) give_back_free_pages();
		count_scene(s, &p->counts[i]);
		if (!gsio_cli_job_loaded(&o->cli, j, s)) out_of_memory();
		gsio_cli_job_write(&CLI, &o->cli, j, s, false, write_gltf, o);
		gsio_scene_free(s);
	}
	j->seconds = gsio_cli_now() - t0;
}

static void report_job(const pool *p, size_t i)
{
	const gsio_cli_job *j = &p->jobs->items[i];
	const scene_counts *c = &p->counts[i];
	if (gsio_cli_job_print(&CLI, &p->opt->cli, j) && p->opt->cli.verbose)
		printf("%s -> %s (%zu vertices, %zu triangles, %zu frames, %zu clips, %zu skins) %.3f s\n",
		       j->input, j->output, c->welded, c->triangles, c->frames, c->clips, c->skins, j->seconds);
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
		convert(p, i, last);
		pthread_mutex_lock(&p->lock);
		p->done++;
		clear_progress(p);
		report_job(p, i);
		fflush(stdout);
		if (p->progress) draw_progress(p, p->jobs->items[i].input);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

// Converts every job, -j at once; returns the seconds it took.
static double run_jobs(cli *o, gsio_cli_jobs *jobs)
{
	size_t nthreads = (size_t)(o->jobs > 0 ? o->jobs : gsioi_cpu_count());
	if (nthreads > jobs->count) nthreads = jobs->count;
	// A core no job has: each conversion may encode its images on it.
	o->writer_threads = nthreads < (size_t)gsioi_helper_cpus() ? 2 : 1;
	pool p = {0};
	p.opt = o;
	p.jobs = jobs;
	p.counts = calloc(jobs->count, sizeof(*p.counts));
	if (!p.counts || !(p.order = start_order(jobs, nthreads))) out_of_memory();
	p.progress = !o->cli.quiet && gsioi_isatty(2);
	pthread_mutex_init(&p.lock, NULL);
	double t0 = gsio_cli_now();
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
	double elapsed = gsio_cli_now() - t0;
	free(p.order);
	free(p.counts);
	pthread_mutex_destroy(&p.lock);
	return elapsed;
}

// -- Main

int main(int argc, char **argv)
{
	static cli o; // static: what it points to stays reachable on an early return
	gsioi_program_start(&argc, &argv);
	int rc = parse_options(&o, argc, argv);
	if (rc != GSIO_CLI_GO_ON) return rc;
	// Ctrl-C or a kill during a batch leaves no temporary file behind.
	gsioi_install_cleanup_handlers();
	size_t count = (size_t)(argc - optind);
	if (!count && !o.cli.files_from) {
		fprintf(stderr, "mdl2gltf: no input files\n");
		fprintf(stderr, "usage: mdl2gltf [options] INPUT... [-o OUT]   (see --help)\n");
		return GSIO_CLI_EXIT_USAGE;
	}
	static gsio_cli_args args; // static: as o
	gsio_cli_outputs to;
	gsio_cli_jobs jobs;
	if ((rc = gsio_cli_load_palette(&CLI, &o.cli)) != GSIO_CLI_GO_ON ||
	    (rc = gsio_cli_args_get(&CLI, &o.cli, argv + optind, count, &args)) != GSIO_CLI_GO_ON ||
	    (rc = decide_output(&o, args.items, args.count, &to)) != GSIO_CLI_GO_ON ||
	    (rc = gsio_cli_plan(&CLI, &args, &to, &jobs)) != GSIO_CLI_GO_ON)
		return rc;
	double seconds = jobs.count ? run_jobs(&o, &jobs) : 0;
	rc = gsio_cli_finish(&CLI, &o.cli, &jobs, seconds);
	gsio_cli_args_free(&args);
	gsio_cli_opts_free(&o.cli);
	return rc;
}
