/* What `gsio convert` and mdl2gltf share (gsio_cli_common.h). */
#include "gsio_cli_common.h"

#include "gsio_inputs.h"
#include "gsio_record.h"
#include "gsio_update.h"
#include "gsioi_place.h"
#include "gsioi_os.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double gsio_cli_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int out_of_memory(const gsio_cli *c)
{
	fprintf(stderr, "%s: out of memory\n", c->name);
	return GSIO_CLI_EXIT_FAILED;
}

void gsio_cli_set_error(gsio_error *err, gsio_error_code code, const char *file, const char *msg)
{
	gsio_error_clear(err);
	err->code = code;
	snprintf(err->file, sizeof(err->file), "%s", file);
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

// -- Options

GSIO_PRINTF(3, 0) static int usage_message(const gsio_cli *c, bool hint,
                                                                 const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	if (hint) fprintf(stderr, "Try '%s --help'.\n", c->name);
	return GSIO_CLI_EXIT_USAGE;
}

int gsio_cli_usage_error(const gsio_cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = usage_message(c, c->try_help_always, fmt, ap);
	va_end(ap);
	return rc;
}

// An unknown option or one without its value: both commands point to --help.
GSIO_PRINTF(2, 3) static int syntax_error(const gsio_cli *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = usage_message(c, true, fmt, ap);
	va_end(ap);
	return rc;
}

bool gsio_cli_parse_float(const gsio_cli *c, const char *s, float *out, bool positive)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	bool in_range = c->takes_1e30 ? d >= -1e30 && d <= 1e30 : d > -1e30 && d < 1e30;
	if (errno || end == s || *end || !in_range || (positive && !(d > 0))) return false;
	*out = (float)d;
	return true;
}

// Adds arg to a repeatable option's list. Pointers into argv, which outlives
// the conversion; at most argc of them, so one allocation holds them all.
static int add_to_list(const gsio_cli *c, const char ***list, size_t *count, int argc,
                       const char *arg)
{
	if (!*list && !(*list = calloc((size_t)argc, sizeof(**list)))) return out_of_memory(c);
	(*list)[(*count)++] = arg;
	return GSIO_CLI_GO_ON;
}

static int shared_option(const gsio_cli *c, gsio_cli_opts *o, int argc, int ch, const char *arg)
{
	switch (ch) {
	case 'o': o->out = arg; break;
	case 'q': o->quiet = true; break;
	case 'v': o->verbose = true; break;
	case GSIO_CLI_OPT_FORCE: o->force = true; break;
	case GSIO_CLI_OPT_NOANIM: o->no_animation = true; break;
	case GSIO_CLI_OPT_BAKE: o->bake_lightmaps = true; break;
	case GSIO_CLI_OPT_PALETTE: o->palette = arg; break;
	case GSIO_CLI_OPT_REPORT: o->report = arg; break;
	case GSIO_CLI_OPT_UPDATE: o->update = true; break;
	case GSIO_CLI_OPT_FILES_FROM: o->files_from = arg; break;
	case '0': o->null_list = true; break;
	case GSIO_CLI_OPT_BASE: o->base = arg; break;
	case GSIO_CLI_OPT_ANIM: return add_to_list(c, &o->anims, &o->anims_count, argc, arg);
	case GSIO_CLI_OPT_PATH: return add_to_list(c, &o->paths, &o->paths_count, argc, arg);
	case GSIO_CLI_OPT_FPS:
		if (!gsio_cli_parse_float(c, arg, &o->fps, true))
			return gsio_cli_usage_error(c, "--fps needs a positive number, not '%s'", arg);
		break;
	case GSIO_CLI_OPT_SCALE:
		o->scale_or_axes = true;
		if (!gsio_cli_parse_float(c, arg, &o->scale, true))
			return gsio_cli_usage_error(c, "--scale needs a positive number, not '%s'", arg);
		break;
	case GSIO_CLI_OPT_AXES:
		o->scale_or_axes = true;
		if (!strcmp(arg, "source"))
			o->keep_axes = true;
		else if (!strcmp(arg, "gltf")) // of several, the last counts
			o->keep_axes = false;
		else
			return gsio_cli_usage_error(c, "--axes takes 'source' or 'gltf', not '%s'", arg);
		break;
	case GSIO_CLI_OPT_HELP: c->usage(stdout); return 0;
	case GSIO_CLI_OPT_VERSION: printf("%s %s\n", c->version, GSIO_VERSION_STRING); return 0;
	default: return GSIO_CLI_UNKNOWN;
	}
	return GSIO_CLI_GO_ON;
}

int gsio_cli_parse(const gsio_cli *c, gsio_cli_opts *o, int argc, char **argv, const char *shorts,
                   const struct option *longs, gsio_cli_option_fn own, void *user)
{
	opterr = 0;
	optind = 1;
	int ch;
	while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		int rc;
		if (ch == ':')
			rc = syntax_error(c, "option %s needs a value", argv[optind - 1]);
		else if (ch == '?')
			rc = GSIO_CLI_UNKNOWN;
		else if ((rc = shared_option(c, o, argc, ch, optarg)) == GSIO_CLI_UNKNOWN)
			rc = own(user, ch, optarg);
		if (rc == GSIO_CLI_UNKNOWN) rc = syntax_error(c, "unknown option '%s'", argv[optind - 1]);
		if (rc != GSIO_CLI_GO_ON) return rc;
	}
	return GSIO_CLI_GO_ON;
}

int gsio_cli_check_quiet_verbose(const gsio_cli *c, const gsio_cli_opts *o)
{
	if (o->quiet && o->verbose)
		return gsio_cli_usage_error(c, "%s", "--quiet and --verbose contradict each other");
	return GSIO_CLI_GO_ON;
}

int gsio_cli_check_anim(const gsio_cli *c, const gsio_cli_opts *o)
{
	if (o->anims_count && o->no_animation)
		return gsio_cli_usage_error(c, "%s", "--anim and --no-animation contradict each other");
	return GSIO_CLI_GO_ON;
}

// --files-from - and an input '-' would both read standard input.
static int check_stdin_list(const gsio_cli *c, const gsio_cli_opts *o, char *const *inputs,
                            size_t n)
{
	if (!c->reads_stdin || !o->files_from || strcmp(o->files_from, "-")) return GSIO_CLI_GO_ON;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(inputs[i], "-"))
			return gsio_cli_usage_error(c, "%s", "--files-from - reads the list from standard "
			                                     "input: '-' cannot be an input too");
	return GSIO_CLI_GO_ON;
}

int gsio_cli_check_batch(const gsio_cli *c, const gsio_cli_opts *o, bool folder, bool to_stdout,
                         char *const *inputs, size_t n)
{
	if (o->update && o->force)
		return gsio_cli_usage_error(c, "%s", "--update and --force contradict each other "
		                                     "(--force converts every input again)");
	if (o->update && to_stdout)
		return gsio_cli_usage_error(c, "%s", "--update compares output files: not standard output");
	if (o->null_list && !o->files_from)
		return gsio_cli_usage_error(c, "%s", "-0 (--null) applies to --files-from");
	if (o->base && !folder)
		return gsio_cli_usage_error(c, "--base applies to an output folder (-o DIR), and %s",
		                            o->out ? "-o names a file" : "there is no -o");
	return check_stdin_list(c, o, inputs, n);
}

int gsio_cli_load_palette(const gsio_cli *c, gsio_cli_opts *o)
{
	if (!o->palette) return GSIO_CLI_GO_ON;
	gsio_error err;
	gsio_error_clear(&err);
	if (!gsio_palette_load(o->palette, o->palette_rgb, &err)) return GSIO_CLI_GO_ON;
	char buf[600];
	gsio_error_format(&err, buf, sizeof(buf));
	fprintf(stderr, "%s: --palette: %s\n", c->name, buf);
	return GSIO_CLI_EXIT_USAGE;
}

void gsio_cli_load_opts(const gsio_cli_opts *o, gsio_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->fps = o->fps;
	if (o->palette) lo->palette = o->palette_rgb;
	if (o->no_animation) lo->flags |= GSIO_OPT_NO_ANIMATION;
	if (o->bake_lightmaps) lo->flags |= GSIO_OPT_BAKE_LIGHTMAPS;
	// Terrains stay grids: every writer makes their vertices and triangles
	// (glTF's a strip at a time) instead of the load expanding them whole.
	lo->flags |= GSIO_OPT_GRID;
	lo->anim_paths = o->anims;
	lo->anim_paths_count = o->anims_count;
	lo->search_paths = o->paths;
	lo->search_paths_count = o->paths_count;
}

bool gsio_cli_search_paths(gsio_opts *lo, const char *input, size_t root_len, void **owned)
{
	*owned = NULL;
	if (!root_len) return true;
	// One block: the list, then the folder's path.
	size_t n = lo->search_paths_count;
	const char **list = malloc((n + 1) * sizeof(*list) + root_len + 1);
	if (!list) return false;
	char *root = (char *)(list + n + 1);
	memcpy(root, input, root_len);
	root[root_len] = 0;
	for (size_t i = 0; i < n; i++) list[i] = lo->search_paths[i];
	list[n] = root;
	lo->search_paths = list;
	lo->search_paths_count = n + 1;
	*owned = list;
	return true;
}

void gsio_cli_gltf_opts(const gsio_cli_opts *o, gsio_gltf_opts *go)
{
	memset(go, 0, sizeof(*go));
	if (o->keep_axes) go->flags |= GSIO_GLTF_KEEP_AXES;
	if (o->no_animation) go->flags |= GSIO_GLTF_NO_ANIMATION;
	if (!gsio_cli_replaces(o)) go->flags |= GSIO_GLTF_NO_REPLACE;
	go->scale = o->scale;
}

void gsio_cli_path_help(FILE *f, int column)
{
	// What gsio_cli_search_paths and the loaders do with the folders
	// (docs/DESIGN.md, "Files a file names").
	static const char *const lines[] = {
	    "(repeatable) a folder searched, after the input's own, for",
	    "the files a model or level names (textures; a level's",
	    "WADs, models, sprites): by base name, in any case, stored",
	    "in CP1252 or UTF-8; nothing outside these folders is",
	    "opened. An input found in a folder INPUT searches that",
	    "folder too",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "%-*s%s\n", column, i ? "" : "  --path DIR", lines[i]);
}

void gsio_cli_opts_free(gsio_cli_opts *o)
{
	free(o->anims);
	free(o->paths);
	o->anims = o->paths = NULL;
	o->anims_count = o->paths_count = 0;
}

// -- Inputs and outputs

bool gsio_cli_names_folder(const char *out)
{
	size_t len = strlen(out);
	return (len && gsioi_is_sep(out[len - 1])) || gsio_is_dir(out);
}

bool gsio_cli_has_extension(const char *path)
{
	const char *base = gsioi_path_last_sep(path);
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return dot && dot != base && dot[1];
}

static bool is_folder_input(const gsio_cli *c, const char *arg)
{
	return (!c->reads_stdin || strcmp(arg, "-")) && gsio_is_dir(arg);
}

bool gsio_cli_any_folder(const gsio_cli *c, char *const *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_folder_input(c, args[i])) return true;
	return false;
}

const char *gsio_cli_several(const gsio_cli *c, const gsio_cli_opts *o, char *const *args, size_t n)
{
	if (n > 1) return "several";
	if (o->files_from) return "listed";
	return gsio_cli_any_folder(c, args, n) ? "a folder of" : NULL;
}

int gsio_cli_args_get(const gsio_cli *c, const gsio_cli_opts *o, char **argv, size_t n,
                      gsio_cli_args *a)
{
	memset(a, 0, sizeof(*a));
	if (o->files_from && gsio_list_read(o->files_from, o->null_list, &a->list)) {
		fprintf(stderr, "%s: cannot read the list %s: %s\n", c->name,
		        strcmp(o->files_from, "-") ? o->files_from : "on standard input", strerror(errno));
		return GSIO_CLI_EXIT_USAGE;
	}
	if (!(a->items = malloc((n + a->list.count + 1) * sizeof(*a->items)))) {
		gsio_list_free(&a->list);
		return out_of_memory(c);
	}
	// memcpy's pointers must not be NULL even for no bytes (no list read).
	if (n) memcpy(a->items, argv, n * sizeof(*argv));
	if (a->list.count) memcpy(a->items + n, a->list.items, a->list.count * sizeof(*a->items));
	a->count = n + a->list.count;
	a->given = n;
	return GSIO_CLI_GO_ON;
}

void gsio_cli_args_free(gsio_cli_args *a)
{
	free(a->items);
	gsio_list_free(&a->list);
	memset(a, 0, sizeof(*a));
}

static void free_jobs(gsio_cli_jobs *jobs)
{
	for (size_t i = 0; i < jobs->count; i++) {
		gsio_cli_job *j = &jobs->items[i];
		free(j->input);
		free(j->output);
		cJSON_Delete(j->scene);
		for (size_t k = 0; k < j->warnings_count; k++) free(j->warnings[k]);
		free(j->warnings);
	}
	free(jobs->items);
	memset(jobs, 0, sizeof(*jobs));
}

// The output of input `path` (`rel` below the folder it was found in, NULL
// for a file named as it is); NULL when out of memory.
static char *output_of(const gsio_cli_outputs *to, const char *path, const char *rel)
{
	if (!to->out) return gsio_replace_ext(path, to->ext);
	if (!to->folder) return strdup(to->out);
	if (!rel) {
		rel = gsioi_path_last_sep(path);
		rel = rel ? rel + 1 : path;
	}
	char *joined = gsio_join(to->out, rel);
	char *out = joined ? gsio_replace_ext(joined, to->ext) : NULL;
	free(joined);
	return out;
}

// Two inputs must not write the same output (a.mdl and a.hmp in one folder):
// the later one is refused.
static void refuse_taken_output(const gsio_cli *c, gsio_cli_jobs *jobs, size_t i)
{
	gsio_cli_job *j = &jobs->items[i];
	int chars = c->quoted_path_chars ? c->quoted_path_chars : INT_MAX;
	for (size_t k = 0; k < i && j->err.code == GSIO_OK; k++) {
		const gsio_cli_job *other = &jobs->items[k];
		if (!other->output || strcmp(other->output, j->output)) continue;
		char msg[sizeof(j->err.message)];
		snprintf(msg, sizeof(msg), "its output %.*s is also the output of %.*s", chars, j->output,
		         chars, other->input);
		gsio_cli_set_error(&j->err, GSIO_ERR_ARGUMENT, j->input, msg);
	}
}

// Puts arg's own path below the base folder in front of the paths of the
// inputs found for it (in->items[from ..]), which the output folder then
// mirrors; outside the base they are refused. False when out of memory.
static bool rebase(gsio_inputs *in, size_t from, const char *base, const char *arg)
{
	bool outside;
	char *prefix = gsio_path_below(base, arg, &outside);
	if (!prefix && !outside) return false;
	for (size_t k = from; k < in->count; k++) {
		gsio_input *item = &in->items[k];
		item->outside_base = outside;
		if (outside || !*prefix) continue;
		char *rel = item->rel ? gsio_join(prefix, item->rel) : strdup(prefix);
		if (!rel) {
			free(prefix);
			return false;
		}
		free(item->rel);
		item->rel = rel;
	}
	free(prefix);
	return true;
}

static bool list_inputs(const gsio_cli *c, const gsio_cli_args *a, const gsio_cli_outputs *to,
                        gsio_inputs *in)
{
	for (size_t i = 0; i < a->count; i++) {
		const char *arg = a->items[i];
		size_t from = in->count;
		bool ok = is_folder_input(c, arg) ? gsio_inputs_add_dir(in, arg, to->assimp)
		                                  : gsio_inputs_add(in, arg, to->assimp);
		bool mirrored = to->folder && (to->base || i >= a->given);
		if (ok && mirrored) ok = rebase(in, from, to->base ? to->base : ".", arg);
		if (!ok) return false;
	}
	return true;
}

// Why an input is refused before it is read: its folder cannot be listed,
// or it is outside the base folder.
static void refuse_input(const gsio_cli *c, const gsio_cli_outputs *to, const gsio_input *item,
                         gsio_cli_job *j)
{
	char msg[sizeof(j->err.message)];
	if (item->unreadable) {
		snprintf(msg, sizeof(msg), "cannot read this %s", c->folder);
		gsio_cli_set_error(&j->err, GSIO_ERR_IO, j->input, msg);
	} else if (item->outside_base) {
		snprintf(msg, sizeof(msg), "is not below %.150s%s, which the output %s mirrors (--base)",
		         to->base ? to->base : "the current folder", to->base ? "" : " (.)", c->folder);
		gsio_cli_set_error(&j->err, GSIO_ERR_ARGUMENT, j->input, msg);
	}
}

int gsio_cli_plan(const gsio_cli *c, const gsio_cli_args *a, const gsio_cli_outputs *to,
                  gsio_cli_jobs *jobs)
{
	gsio_inputs in = {0};
	int rc = GSIO_CLI_GO_ON;
	memset(jobs, 0, sizeof(*jobs));
	// An empty list (--files-from) is a part of a split list with nothing
	// in it: nothing to do, not an error.
	if (!a->count) return GSIO_CLI_GO_ON;
	if (!list_inputs(c, a, to, &in)) {
		rc = out_of_memory(c);
	} else if (!in.count) {
		fprintf(stderr, "%s: nothing to convert (no file with a known extension found)\n", c->name);
		rc = GSIO_CLI_EXIT_FAILED;
	} else if (!(jobs->items = calloc(in.count, sizeof(*jobs->items)))) {
		rc = out_of_memory(c);
	}
	for (size_t i = 0; rc == GSIO_CLI_GO_ON && i < in.count; i++) {
		gsio_cli_job *j = &jobs->items[jobs->count++];
		gsio_input *item = &in.items[i];
		gsio_error_clear(&j->err);
		j->input = item->path;
		item->path = NULL;
		if (item->rel) j->root_len = strlen(j->input) - strlen(item->rel);
		bool none = item->unreadable && !c->unreadable_keeps_output;
		if (!none && !(j->output = output_of(to, j->input, item->rel))) {
			rc = out_of_memory(c);
			break;
		}
		refuse_input(c, to, item, j);
		refuse_taken_output(c, jobs, i);
	}
	gsio_inputs_free(&in);
	if (rc != GSIO_CLI_GO_ON) free_jobs(jobs);
	return rc;
}

// -- One input

static bool add_warning(gsio_cli_job *j, const char *message)
{
	char **n = realloc(j->warnings, (j->warnings_count + 1) * sizeof(*n));
	if (!n) return false;
	j->warnings = n;
	if (!(n[j->warnings_count] = strdup(message))) return false;
	j->warnings_count++;
	return true;
}

// The writer's warnings, as the scene's (gsio_scene_add_warning): one raised
// again is kept once, as "TEXT (N times)".
void gsio_cli_job_warn(void *user, const char *message)
{
	gsio_cli_job *j = user;
	size_t len = strlen(message);
	for (size_t i = j->scene_warnings; i < j->warnings_count; i++) {
		char *w = j->warnings[i];
		unsigned n = 1;
		if (strncmp(w, message, len) || (w[len] && sscanf(w + len, " (%u times)", &n) != 1))
			continue;
		size_t size = len + sizeof(" (4294967295 times)");
		char *again = malloc(size);
		if (!again) return; // the warning is kept as it was
		snprintf(again, size, "%s (%u times)", message, n + 1);
		free(w);
		j->warnings[i] = again;
		return;
	}
	(void)add_warning(j, message);
}

bool gsio_cli_replaces(const gsio_cli_opts *o)
{
	return o->force || o->update;
}

// Whether --update leaves job j as it is: its output is current.
static bool job_current(const gsio_cli_opts *o, const gsio_cli_job *j)
{
	gsio_update_deps d = {o->palette, o->made_from, o->anims, o->anims_count, o->paths,
	                      o->paths_count};
	return gsio_output_current(j->input, j->output, &d);
}

bool gsio_cli_job_ready(const gsio_cli_opts *o, gsio_cli_job *j, bool to_stdout)
{
	if (j->err.code != GSIO_OK) return false;
	// Standard input has no time to compare: it is always read.
	if (o->update && strcmp(j->input, "-") && job_current(o, j)) {
		j->ok = j->up_to_date = true;
		return false;
	}
	return gsio_cli_replaces(o) || to_stdout || !gsio_output_taken(j->output, &j->err);
}

bool gsio_cli_job_loaded(const gsio_cli_opts *o, gsio_cli_job *j, const gsio_scene *s)
{
	if (o->report) j->scene = gsio_record_scene(s);
	for (size_t i = 0; i < s->warnings_count; i++)
		if (!add_warning(j, s->warnings[i])) return false;
	j->scene_warnings = j->warnings_count;
	return true;
}

void gsio_cli_job_write(const gsio_cli *c, const gsio_cli_opts *o, gsio_cli_job *j,
                        const gsio_scene *s, bool to_stdout, gsio_cli_write_fn write,
                        const void *user)
{
	if (!to_stdout && gsio_make_parent_dirs(j->output)) {
		char msg[sizeof(j->err.message)];
		snprintf(msg, sizeof(msg), "cannot create its %s: %s", c->folder, strerror(errno));
		gsio_cli_set_error(&j->err, GSIO_ERR_IO, j->output, msg);
	} else if (write(user, s, j) == 0) {
		j->ok = true;
	} else if (!gsio_cli_replaces(o) && j->err.code == GSIO_ERR_IO &&
	           strstr(j->err.message, "exists")) {
		// The library says what happened; the command says what to do.
		size_t len = strlen(j->err.message);
		snprintf(j->err.message + len, sizeof(j->err.message) - len, "; use --force to replace it");
	}
}

bool gsio_cli_job_print(const gsio_cli *c, const gsio_cli_opts *o, const gsio_cli_job *j)
{
	if (j->up_to_date) {
		if (o->verbose) printf("%s -> %s up to date\n", j->input, j->output);
		return false;
	}
	if (!j->ok) {
		char buf[1024];
		gsio_error_format(&j->err, buf, sizeof(buf));
		// Name the input too when the error is about another file (the output).
		if (strcmp(j->err.file, j->input))
			fprintf(stderr, "%s: %s: %s\n", c->name, j->input, buf);
		else
			fprintf(stderr, "%s: %s\n", c->name, buf);
		return false;
	}
	if (!o->quiet)
		for (size_t i = 0; i < j->warnings_count; i++)
			fprintf(stderr, "%s: warning: %s: %s\n", c->name,
			        i < j->scene_warnings ? j->input : j->output, j->warnings[i]);
	return true;
}

// -- The end

// How the jobs went.
typedef struct tally {
	size_t failed, current;
} tally;

// Job j's record, the same as `gsio info --json`'s (tools/gsio_record.h; the
// README's "Records"); takes its scene.
static cJSON *job_record(gsio_cli_job *j)
{
	cJSON *r = gsio_record_new(j->input, j->output, j->ok ? NULL : &j->err, j->scene, NULL,
	                           j->warnings, j->warnings_count, j->seconds);
	j->scene = NULL;
	if (j->up_to_date) cJSON_ReplaceItemInObject(r, "status", cJSON_CreateString("up to date"));
	return r;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), k = strlen(end);
	return n >= k && !strcmp(s + n - k, end);
}

// The records one a line (a .jsonl report): the reports of several runs
// joined by cat are the records of all. Placed atomically, like the other.
static int write_record_lines(const char *path, gsio_cli_jobs *jobs)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	bool ok = true;
	for (size_t i = 0; ok && i < jobs->count; i++) {
		cJSON *r = job_record(&jobs->items[i]);
		char *line = cJSON_PrintUnformatted(r);
		size_t n = line ? strlen(line) : 0;
		if (line && len + n + 1 > cap) {
			size_t ncap = (len + n + 1) * 2;
			char *t = realloc(text, ncap);
			if (t) {
				text = t;
				cap = ncap;
			}
		}
		ok = line && len + n + 1 <= cap;
		if (ok) {
			memcpy(text + len, line, n);
			len += n;
			text[len++] = '\n';
		}
		free(line);
		cJSON_Delete(r);
	}
	gsio_error err;
	gsioi_file_data out = {path, (const uint8_t *)text, len};
	int rc = ok && !gsioi_place_files(&out, 1, false, &err) ? 0 : -1;
	free(text);
	return rc;
}

// The report: the records in an object with the tool and the counts.
static int write_report(const gsio_cli *c, const gsio_cli_opts *o, gsio_cli_jobs *jobs, tally t)
{
	if (ends_with(o->report, ".jsonl")) return write_record_lines(o->report, jobs);
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "tool", c->name);
	cJSON_AddStringToObject(root, "version", GSIO_VERSION_STRING);
	cJSON *arr = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; i < jobs->count; i++) cJSON_AddItemToArray(arr, job_record(&jobs->items[i]));
	cJSON_AddNumberToObject(root, "converted", (double)(jobs->count - t.failed - t.current));
	cJSON_AddNumberToObject(root, "failed", (double)t.failed);
	if (o->update) cJSON_AddNumberToObject(root, "up_to_date", (double)t.current);
	int rc = gsio_record_write_file(o->report, root);
	cJSON_Delete(root);
	return rc;
}

// The summary line: "converted 3 of 5 files (1 failed, 1 up to date) in 0.20 s".
static void print_summary(const gsio_cli *c, const gsio_cli_opts *o, size_t count, tally t,
                          double seconds)
{
	char current[64] = "", took[64] = "";
	if (o->update) snprintf(current, sizeof(current), ", %zu up to date", t.current);
	if (c->batch_summary) snprintf(took, sizeof(took), " in %.2f s", seconds);
	fprintf(stderr, "%s: converted %zu of %zu files (%zu failed%s)%s\n", c->name,
	        count - t.failed - t.current, count, t.failed, current, took);
}

int gsio_cli_finish(const gsio_cli *c, const gsio_cli_opts *o, gsio_cli_jobs *jobs, double seconds)
{
	tally t = {0, 0};
	for (size_t i = 0; i < jobs->count; i++) {
		t.failed += !jobs->items[i].ok;
		t.current += jobs->items[i].up_to_date;
	}
	int rc = t.failed ? GSIO_CLI_EXIT_FAILED : 0;
	if (o->report && write_report(c, o, jobs, t)) {
		if (c->report_error_says_why)
			fprintf(stderr, "%s: cannot write the report %s: %s\n", c->name, o->report,
			        strerror(errno));
		else
			fprintf(stderr, "%s: cannot write the report %s\n", c->name, o->report);
		rc = GSIO_CLI_EXIT_FAILED;
	}
	if (!o->quiet && (c->batch_summary || jobs->count > 1))
		print_summary(c, o, jobs->count, t, seconds);
	free_jobs(jobs);
	return rc;
}
