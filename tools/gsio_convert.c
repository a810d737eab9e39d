/* `gsio convert IN... -o OUT [options]`: every input gsio reads (and, with
 * the Assimp adapter, what Assimp reads) to glTF, MDL5, HMP5 or MD5. One
 * input at a time: load -> scene -> writer in memory -> files placed
 * atomically. mdl2gltf stays the parallel glTF batch front. */
#include "gsio.h"
#include "gsio_cli.h"
#include "gsio_gltf.h"
#include "gsio_inputs.h"
#include "gsio_md5_write.h"
#include "gsio_record.h"
#include "gsio_write.h"
#include "gsioi_place.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define EXIT_FAILED 1
#define EXIT_USAGE 2

// -- Formats

typedef enum out_format { FMT_NONE = 0, FMT_GLB, FMT_GLTF, FMT_MDL5, FMT_HMP5, FMT_MD5 } out_format;

static const struct {
	const char *name, *ext;
	out_format fmt;
} formats[] = {
    {"glb", ".glb", FMT_GLB},   {"gltf", ".gltf", FMT_GLTF},    {"mdl5", ".mdl", FMT_MDL5},
    {"hmp5", ".hmp", FMT_HMP5}, {"md5", ".md5mesh", FMT_MD5},
};

static out_format format_named(const char *s)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcasecmp(s, formats[i].name)) return formats[i].fmt;
	if (!strcasecmp(s, "mdl")) return FMT_MDL5;
	if (!strcasecmp(s, "hmp")) return FMT_HMP5;
	return FMT_NONE;
}

static const char *format_ext(out_format f)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == f) return formats[i].ext;
	return "";
}

static const char *format_name(out_format f)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].fmt == f) return formats[i].name;
	return "?";
}

// The format a path's extension asks for; FMT_NONE when no writer has it.
static out_format format_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) return FMT_NONE;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcasecmp(dot, formats[i].ext)) return formats[i].fmt;
	if (!strcasecmp(dot, ".md5camera")) return FMT_MD5;
	return FMT_NONE;
}

static bool has_extension(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	return dot && dot != base && dot[1];
}

// -- Options

typedef struct conv_opts {
	const char *out;
	out_format fmt;
	bool force, quiet, verbose, no_animation, keep_axes, mipmaps, dither;
	float fps, scale, bake_fps, cell_size, height_min, height_max;
	bool height_range;
	uint32_t columns, rows;
	const char *palette;
	uint8_t palette_rgb[768];
	const char **anims;
	size_t anims_count;
	const char **paths; // --path: folders searched for the files a level names
	size_t paths_count;
	const char *report;
	const char *color_map;
	gsio_skin_encoding skin;
	bool skin_set, gltf_only_used, mdl_only_used, hmp_only_used;
} conv_opts;

static void convert_usage(FILE *f)
{
	fprintf(f,
	        "usage: gsio convert INPUT... -o OUT [options]\n"
	        "\n"
	        "Writes what gsio reads (MDL, HMP, MD5 and the formats of its importer registry;\n"
	        "with the Assimp adapter built, also glTF, OBJ, FBX, ... through Assimp) as glTF\n"
	        "2.0, MDL5, HMP5 or MD5.\n"
	        "\n"
	        "The output format is OUT's extension: .glb, .gltf, .mdl (MDL5), .hmp (HMP5),\n"
	        ".md5mesh (MD5: the .md5mesh, one .md5anim per skeletal animation, one\n"
	        ".md5camera per animated camera, beside each other), or -f.\n"
	        "\n"
	        "INPUT is a file (read whatever its extension) or a folder (searched\n"
	        "recursively for files with an extension gsio reads, as mdl2gltf does). OUT is\n"
	        "  a file      when it has an extension and is not a folder: one input only;\n"
	        "  a folder    when it is one, ends in '/', or has no extension: it is created\n"
	        "              and mirrors the input tree; -f says the format;\n"
	        "  -           standard output: one input, written as GLB (default), MDL5 or\n"
	        "              HMP5 (not a terminal).\n"
	        "An existing output is an error unless --force (found before the input is\n"
	        "read). Files are written under a temporary name and renamed into place,\n"
	        "an .md5mesh and its .md5anim only when both are written: nothing is left\n"
	        "and no old file is replaced when a write fails.\n"
	        "\n"
	        "options:\n"
	        "  -o, --output OUT   the output file, folder or '-'\n"
	        "  -f, --format FMT   glb, gltf, mdl5, hmp5 or md5 (required for a folder OUT)\n"
	        "  --force            replace existing outputs\n"
	        "  --no-animation     the first frame / bind pose only (needed to write a\n"
	        "                     vertex-animated model as MD5, which has no morph animation)\n"
	        "  --fps F            frame rate given to vertex-animation clips when reading\n"
	        "                     (default 10: GameStudio stores none)\n"
	        "  --palette FILE     256-colour palette (.pcx, 768-byte .raw/.lmp) for reading\n"
	        "                     8-bit skins and for writing --skin-format pal8\n"
	        "  --anim FILE        (repeatable) .md5anim files to load with an .md5mesh input\n"
	        "                     instead of the ones beside it\n"
	        "  --path DIR         (repeatable) for .wmp levels: a folder searched, after the\n"
	        "                     level's own, for the WADs, models and sprites it names (by\n"
	        "                     base name, case-insensitively; nothing outside these\n"
	        "                     folders is opened)\n"
	        "  --report FILE      a JSON record per input (the README's \"Records\"), as\n"
	        "                     mdl2gltf --report writes them\n"
	        "  -q, --quiet        print errors only\n"
	        "  -v, --verbose      print a line per converted input\n"
	        "  --help             print this text and exit\n"
	        "glTF output:\n"
	        "  --scale S          multiply positions by S (0.0254: inches to metres)\n"
	        "  --axes gltf|source convert to glTF's Y up (default) or keep Z up\n"
	        "MDL5 and HMP5 output:\n"
	        "  --skin-format F    auto (default), pal8, 565, 4444, 888 or 8888\n"
	        "  --mipmaps          store three smaller mip levels\n"
	        "  --dither           dither when reducing colours (default off)\n"
	        "MDL5 output:\n"
	        "  --bake-fps F       rate at which skeletal animation is baked to frames\n"
	        "HMP5 output:\n"
	        "  --grid CxR         columns x rows of the terrain (resampled)\n"
	        "  --cell-size D      distance between vertices\n"
	        "  --height-range MIN:MAX  heights rescaled into this range\n"
	        "  --color-map FILE   colour map for a heightmap image input (.png)\n"
	        "\n"
	        "Exit status: 0 when every input was converted, 1 when any failed, 2 on a usage\n"
	        "error (bad option, no input, several inputs into one file, an OUT extension\n"
	        "no writer has, a format to standard output that is several files).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "gsio convert: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'gsio convert --help'.\n");
	return EXIT_USAGE;
}

static bool parse_float(const char *s, float *out, bool positive)
{
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || end == s || *end || !(d > -1e30 && d < 1e30) || (positive && !(d > 0)))
		return false;
	*out = (float)d;
	return true;
}

// -- Warnings collected per input

typedef struct warn_list {
	char **items;
	size_t count;
} warn_list;

static void warn_collect(void *user, const char *message)
{
	warn_list *l = user;
	char **n = realloc(l->items, (l->count + 1) * sizeof(*n));
	if (!n) return;
	l->items = n;
	if ((n[l->count] = strdup(message))) l->count++;
}

static void warn_free(warn_list *l)
{
	for (size_t i = 0; i < l->count; i++) free(l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

// -- One input

static void fail_msg(gsio_error *err, gsio_error_code code, const char *file, const char *msg)
{
	gsio_error_clear(err);
	err->code = code;
	snprintf(err->file, sizeof(err->file), "%s", file);
	snprintf(err->message, sizeof(err->message), "%s", msg);
}

static bool is_image_input(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && (!strcasecmp(dot, ".png") || !strcasecmp(dot, ".pgm") ||
	               !strcasecmp(dot, ".tga") || !strcasecmp(dot, ".bmp"));
}

// The grid of an HMP5 output (--grid, --cell, --range), the same for a
// heightmap image read as for a scene written.
static void hmp5_grid_opts(const conv_opts *o, gsio_hmp5_write_opts *ho)
{
	ho->columns = o->columns;
	ho->rows = o->rows;
	ho->cell_size = o->cell_size;
	if (o->height_range) {
		ho->height_min = o->height_min;
		ho->height_max = o->height_max;
	}
}

// Loads input (a heightmap image for HMP5 output).
static gsio_scene *load_input(const conv_opts *o, const char *path, gsio_error *err)
{
	gsio_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.fps = o->fps;
	if (o->palette) lo.palette = o->palette_rgb;
	if (o->no_animation) lo.flags |= GSIO_OPT_NO_ANIMATION;
	// glTF embeds PNG/JPEG textures as they are: no need to decode them. The
	// MDL5 and HMP5 writers need pixels (and the MD5 writer may write them).
	if (o->fmt == FMT_GLB || o->fmt == FMT_GLTF) lo.flags |= GSIO_OPT_NO_PIXELS;
	// Every writer reads terrains kept as grids (glTF a strip at a time).
	lo.flags |= GSIO_OPT_GRID;
	lo.anim_paths = o->anims;
	lo.anim_paths_count = o->anims_count;
	lo.search_paths = o->paths;
	lo.search_paths_count = o->paths_count;
	if (!strcmp(path, "-")) return gsio_cli_load_stdin(&lo, err);
	if (o->fmt == FMT_HMP5 && is_image_input(path)) {
		uint8_t *h = NULL, *c = NULL;
		size_t hs = 0, cs = 0;
		if (gsio_read_whole_file(path, &h, &hs, 0, err)) return NULL;
		if (o->color_map && gsio_read_whole_file(o->color_map, &c, &cs, 0, err)) {
			free(h);
			return NULL;
		}
		gsio_hmp5_write_opts ho;
		memset(&ho, 0, sizeof(ho));
		hmp5_grid_opts(o, &ho);
		gsio_scene *s = gsio_hmp5_scene_from_heightmap(h, hs, c, cs, &ho, err);
		free(h);
		free(c);
		if (!s && !err->file[0]) snprintf(err->file, sizeof(err->file), "%s", path);
		return s;
	}
	return gsio_cli_load(path, &lo, err);
}

static int write_stdout(const uint8_t *data, size_t size, gsio_error *err)
{
	if (fwrite(data, 1, size, stdout) != size || fflush(stdout)) {
		fail_msg(err, GSIO_ERR_IO, "-", "cannot write to standard output");
		return -1;
	}
	return 0;
}

// The end of an in-memory write for "-": the writer's rc, then its bytes on
// standard output; frees them.
static int bytes_to_stdout(int rc, uint8_t *data, size_t size, gsio_error *err)
{
	if (!rc) rc = write_stdout(data, size, err);
	gsio_write_free(NULL, data);
	return rc;
}

// Writes scene s as o->fmt to `out` ("-": standard output).
static int write_output(const conv_opts *o, const gsio_scene *s, const char *out, warn_list *w,
                        gsio_error *err)
{
	bool to_stdout = !strcmp(out, "-");
	switch (o->fmt) {
	case FMT_GLB:
	case FMT_GLTF: {
		gsio_gltf_opts go;
		memset(&go, 0, sizeof(go));
		if (o->fmt == FMT_GLTF) go.flags |= GSIO_GLTF_SEPARATE;
		if (o->keep_axes) go.flags |= GSIO_GLTF_KEEP_AXES;
		if (o->no_animation) go.flags |= GSIO_GLTF_NO_ANIMATION;
		if (!o->force) go.flags |= GSIO_GLTF_NO_REPLACE;
		go.scale = o->scale;
		go.generator = "gsio convert " GSIO_VERSION_STRING;
		gsio_gltf_output gout;
		memset(&gout, 0, sizeof(gout));
		int rc;
		if (to_stdout) {
			rc = gsio_gltf_write(s, &go, &gout, err);
			if (!rc) rc = write_stdout(gout.files[0].data, gout.files[0].size, err);
		} else {
			rc = gsio_gltf_write_file(s, out, &go, &gout, err);
		}
		for (size_t i = 0; i < gout.warnings_count; i++) warn_collect(w, gout.warnings[i]);
		gsio_gltf_output_free(&gout);
		return rc;
	}
	case FMT_MDL5: {
		gsio_mdl5_write_opts mo;
		memset(&mo, 0, sizeof(mo));
		mo.skin_encoding = o->skin;
		mo.palette = o->palette ? o->palette_rgb : NULL;
		mo.dither = o->dither;
		mo.mipmaps = o->mipmaps;
		mo.bake_fps = o->bake_fps;
		mo.no_replace = !o->force;
		mo.warn = warn_collect;
		mo.warn_user = w;
		if (!to_stdout) return gsio_mdl5_write_file(s, out, &mo, err);
		uint8_t *data = NULL;
		size_t size = 0;
		int rc = gsio_mdl5_write(s, &mo, &data, &size, err);
		return bytes_to_stdout(rc, data, size, err);
	}
	case FMT_HMP5: {
		gsio_hmp5_write_opts ho;
		memset(&ho, 0, sizeof(ho));
		ho.skin_encoding = o->skin;
		ho.palette = o->palette ? o->palette_rgb : NULL;
		ho.dither = o->dither;
		ho.mipmaps = o->mipmaps;
		hmp5_grid_opts(o, &ho);
		ho.no_replace = !o->force;
		ho.warn = warn_collect;
		ho.warn_user = w;
		if (!to_stdout) return gsio_hmp5_write_file(s, out, &ho, err);
		uint8_t *data = NULL;
		size_t size = 0;
		int rc = gsio_hmp5_write(s, &ho, &data, &size, err);
		return bytes_to_stdout(rc, data, size, err);
	}
	case FMT_MD5: {
		gsio_md5_write_opts mo;
		memset(&mo, 0, sizeof(mo));
		if (o->no_animation) mo.flags |= GSIO_MD5_WRITE_NO_ANIMATION;
		if (!o->force) mo.flags |= GSIO_MD5_WRITE_NO_REPLACE;
		mo.commandline = "gsio convert " GSIO_VERSION_STRING;
		mo.warn = warn_collect;
		mo.warn_user = w;
		int rc = gsio_md5_write_file(s, out, &mo, err);
		// The library says what MD5 cannot hold; the command says how to get past it.
		if (rc && err->code == GSIO_ERR_UNSUPPORTED && strstr(err->message, "morph")) {
			size_t len = strlen(err->message);
			snprintf(err->message + len, sizeof(err->message) - len, " (--no-animation)");
		}
		return rc;
	}
	default: break;
	}
	fail_msg(err, GSIO_ERR_ARGUMENT, out, "no output format");
	return -1;
}

// -- The command

typedef struct job {
	char *input, *output;
	gsio_error err;
	bool ok;
	cJSON *record;
} job;

int gsio_cmd_convert(int argc, char **argv)
{
	static conv_opts o; // static: what it points to stays reachable on an early return
	memset(&o, 0, sizeof(o));
	enum { OPT_FORCE = 256, OPT_NOANIM, OPT_FPS, OPT_PALETTE, OPT_ANIM, OPT_REPORT, OPT_SCALE,
	       OPT_AXES, OPT_SKIN, OPT_MIPS, OPT_DITHER, OPT_BAKE, OPT_GRID, OPT_CELL, OPT_RANGE,
	       OPT_COLOR, OPT_HELP, OPT_VERSION, OPT_PATH };
	static const struct option longs[] = {
	    {"output", required_argument, NULL, 'o'},   {"format", required_argument, NULL, 'f'},
	    {"force", no_argument, NULL, OPT_FORCE},    {"no-animation", no_argument, NULL, OPT_NOANIM},
	    {"fps", required_argument, NULL, OPT_FPS},  {"palette", required_argument, NULL, OPT_PALETTE},
	    {"anim", required_argument, NULL, OPT_ANIM}, {"report", required_argument, NULL, OPT_REPORT},
	    {"path", required_argument, NULL, OPT_PATH},
	    {"scale", required_argument, NULL, OPT_SCALE}, {"axes", required_argument, NULL, OPT_AXES},
	    {"skin-format", required_argument, NULL, OPT_SKIN}, {"mipmaps", no_argument, NULL, OPT_MIPS},
	    {"dither", no_argument, NULL, OPT_DITHER},  {"bake-fps", required_argument, NULL, OPT_BAKE},
	    {"grid", required_argument, NULL, OPT_GRID}, {"cell-size", required_argument, NULL, OPT_CELL},
	    {"height-range", required_argument, NULL, OPT_RANGE},
	    {"color-map", required_argument, NULL, OPT_COLOR},
	    {"quiet", no_argument, NULL, 'q'},          {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, OPT_HELP},      {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	static char *args[4096];
	// getopt wants argv[0]; the verb's arguments follow.
	if ((size_t)argc + 1 >= sizeof(args) / sizeof(args[0]))
		return usage_error("%s", "too many arguments");
	args[0] = "gsio convert";
	for (int i = 0; i < argc; i++) args[i + 1] = argv[i];
	int ac = argc + 1;
	opterr = 0;
	optind = 1;
	int ch;
	bool want_glb = false;
	while ((ch = getopt_long(ac, args, ":o:f:qv", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': o.out = optarg; break;
		case 'f':
			if (!(o.fmt = format_named(optarg)))
				return usage_error("-f takes glb, gltf, mdl5, hmp5 or md5, not '%s'", optarg);
			break;
		case 'q': o.quiet = true; break;
		case 'v': o.verbose = true; break;
		case OPT_FORCE: o.force = true; break;
		case OPT_NOANIM: o.no_animation = true; break;
		case OPT_FPS:
			if (!parse_float(optarg, &o.fps, true))
				return usage_error("--fps needs a positive number, not '%s'", optarg);
			break;
		case OPT_PALETTE: o.palette = optarg; break;
		case OPT_ANIM:
			if (!o.anims && !(o.anims = calloc((size_t)argc + 1, sizeof(*o.anims)))) {
				fprintf(stderr, "gsio convert: out of memory\n");
				return EXIT_FAILED;
			}
			o.anims[o.anims_count++] = optarg;
			break;
		case OPT_PATH:
			if (!o.paths && !(o.paths = calloc((size_t)argc + 1, sizeof(*o.paths)))) {
				fprintf(stderr, "gsio convert: out of memory\n");
				return EXIT_FAILED;
			}
			o.paths[o.paths_count++] = optarg;
			break;
		case OPT_REPORT: o.report = optarg; break;
		case OPT_SCALE:
			o.gltf_only_used = true;
			if (!parse_float(optarg, &o.scale, true))
				return usage_error("--scale needs a positive number, not '%s'", optarg);
			break;
		case OPT_AXES:
			o.gltf_only_used = true;
			if (!strcmp(optarg, "source")) o.keep_axes = true;
			else if (strcmp(optarg, "gltf"))
				return usage_error("--axes takes 'source' or 'gltf', not '%s'", optarg);
			break;
		case OPT_SKIN: {
			static const struct { const char *n; gsio_skin_encoding e; } sk[] = {
			    {"auto", GSIO_SKIN_AUTO},       {"pal8", GSIO_SKIN_PAL8},
			    {"565", GSIO_SKIN_RGB565},      {"4444", GSIO_SKIN_ARGB4444},
			    {"888", GSIO_SKIN_BGR888},      {"8888", GSIO_SKIN_BGRA8888}};
			o.skin_set = false;
			for (size_t i = 0; i < sizeof(sk) / sizeof(sk[0]); i++)
				if (!strcmp(optarg, sk[i].n)) {
					o.skin = sk[i].e;
					o.skin_set = true;
				}
			if (!o.skin_set)
				return usage_error("--skin-format takes auto, pal8, 565, 4444, 888 or 8888, not '%s'",
				                   optarg);
			break;
		}
		case OPT_MIPS: o.mipmaps = true; o.skin_set = true; break;
		case OPT_DITHER: o.dither = true; o.skin_set = true; break;
		case OPT_BAKE:
			o.mdl_only_used = true;
			if (!parse_float(optarg, &o.bake_fps, true))
				return usage_error("--bake-fps needs a positive number, not '%s'", optarg);
			break;
		case OPT_GRID: {
			o.hmp_only_used = true;
			unsigned c, r;
			char tail;
			if (sscanf(optarg, "%ux%u%c", &c, &r, &tail) != 2 || c < 2 || r < 2 || c > 65535 ||
			    r > 65535)
				return usage_error("--grid takes COLUMNSxROWS (each 2..65535), not '%s'", optarg);
			o.columns = c;
			o.rows = r;
			break;
		}
		case OPT_CELL:
			o.hmp_only_used = true;
			if (!parse_float(optarg, &o.cell_size, true))
				return usage_error("--cell-size needs a positive number, not '%s'", optarg);
			break;
		case OPT_RANGE: {
			o.hmp_only_used = true;
			char *colon = strchr(optarg, ':');
			char lo[64];
			if (!colon || (size_t)(colon - optarg) >= sizeof(lo))
				return usage_error("--height-range takes MIN:MAX, not '%s'", optarg);
			memcpy(lo, optarg, (size_t)(colon - optarg));
			lo[colon - optarg] = 0;
			if (!parse_float(lo, &o.height_min, false) ||
			    !parse_float(colon + 1, &o.height_max, false) || !(o.height_min < o.height_max))
				return usage_error("--height-range takes MIN:MAX with MIN < MAX, not '%s'", optarg);
			o.height_range = true;
			break;
		}
		case OPT_COLOR: o.hmp_only_used = true; o.color_map = optarg; break;
		case OPT_HELP: convert_usage(stdout); return 0;
		case OPT_VERSION: printf("gsio %s\n", GSIO_VERSION_STRING); return 0;
		case ':': return usage_error("option %s needs a value", args[optind - 1]);
		default: return usage_error("unknown option '%s'", args[optind - 1]);
		}
	}
	int ninputs = ac - optind;
	if (ninputs < 1) return usage_error("%s", "no INPUT given");
	if (!o.out) return usage_error("%s", "no output: give -o OUT (a file, a folder, or - for standard output)");
	if (o.quiet && o.verbose) return usage_error("%s", "--quiet and --verbose contradict each other");
	if (o.anims_count && o.no_animation)
		return usage_error("%s", "--anim and --no-animation contradict each other");

	// What OUT is, and the format.
	bool to_stdout = !strcmp(o.out, "-");
	size_t outlen = strlen(o.out);
	bool out_dir = !to_stdout && (gsio_is_dir(o.out) || o.out[outlen - 1] == '/' || !has_extension(o.out));
	bool several = ninputs > 1;
	for (int i = optind; i < ac; i++)
		if (strcmp(args[i], "-") && gsio_is_dir(args[i])) several = true;
	if (!o.fmt) {
		if (to_stdout) {
			o.fmt = FMT_GLB;
			want_glb = true;
		} else if (out_dir) {
			return usage_error("the output %s is a folder: give -f glb|gltf|mdl5|hmp5|md5", o.out);
		} else if (!(o.fmt = format_of_path(o.out))) {
			const char *dot = strrchr(o.out, '.');
			fprintf(stderr,
			        "gsio convert: no writer for '%s' (the output %s); gsio writes .glb, .gltf, "
			        ".mdl, .hmp and .md5mesh (or give -f)\n",
			        dot ? dot : "", o.out);
			fprintf(stderr, "Try 'gsio convert --help'.\n");
			return EXIT_USAGE;
		}
	}
	(void)want_glb;
	if (several && !out_dir) {
		fprintf(stderr,
		        "gsio convert: %s inputs need a folder as the output, and %s is %s\n",
		        ninputs > 1 ? "several" : "a folder of", o.out,
		        to_stdout ? "standard output" : "a file (give an existing folder or end it in '/')");
		fprintf(stderr, "Try 'gsio convert --help'.\n");
		return EXIT_USAGE;
	}
	if (to_stdout && (o.fmt == FMT_GLTF || o.fmt == FMT_MD5))
		return usage_error("%s is several files: it cannot go to standard output (use glb, mdl5 or hmp5)",
		                   format_name(o.fmt));
	if (to_stdout && isatty(1))
		return usage_error("%s", "standard output is a terminal: redirect it or give -o FILE");
	if (o.gltf_only_used && o.fmt != FMT_GLB && o.fmt != FMT_GLTF)
		return usage_error("--scale and --axes apply to glTF output, not %s", format_name(o.fmt));
	if (o.mdl_only_used && o.fmt != FMT_MDL5)
		return usage_error("--bake-fps applies to MDL5 output, not %s", format_name(o.fmt));
	if (o.hmp_only_used && o.fmt != FMT_HMP5)
		return usage_error("--grid, --cell-size, --height-range and --color-map apply to HMP5 "
		                   "output, not %s", format_name(o.fmt));
	if (o.skin_set && o.fmt != FMT_MDL5 && o.fmt != FMT_HMP5)
		return usage_error("--skin-format, --mipmaps and --dither apply to MDL5 and HMP5 output, "
		                   "not %s", format_name(o.fmt));
	int stdin_inputs = 0;
	for (int i = optind; i < ac; i++) stdin_inputs += !strcmp(args[i], "-");
	if (stdin_inputs && (several || stdin_inputs > 1))
		return usage_error("%s", "'-' (standard input) must be the only input");
	if (o.palette) {
		gsio_error err;
		gsio_error_clear(&err);
		if (gsio_palette_load(o.palette, o.palette_rgb, &err)) {
			char buf[600];
			gsio_error_format(&err, buf, sizeof(buf));
			fprintf(stderr, "gsio convert: --palette: %s\n", buf);
			return EXIT_USAGE;
		}
	}
	gsioi_install_cleanup_handlers();

	// The jobs.
	gsio_inputs in = {0};
	for (int i = optind; i < ac; i++)
		if (!gsio_inputs_add(&in, args[i], gsio_cli_have_assimp())) {
			fprintf(stderr, "gsio convert: out of memory\n");
			return EXIT_FAILED;
		}
	if (!in.count) {
		fprintf(stderr, "gsio convert: nothing to convert (no file with a known extension found)\n");
		gsio_inputs_free(&in);
		return EXIT_FAILED;
	}
	job *jobs = calloc(in.count, sizeof(*jobs));
	if (!jobs) {
		fprintf(stderr, "gsio convert: out of memory\n");
		gsio_inputs_free(&in);
		return EXIT_FAILED;
	}
	const char *ext = format_ext(o.fmt);
	for (size_t i = 0; i < in.count; i++) {
		job *j = &jobs[i];
		gsio_error_clear(&j->err);
		j->input = in.items[i].path;
		if (!out_dir) {
			j->output = strdup(o.out);
		} else {
			const char *rel = in.items[i].rel;
			if (!rel) {
				rel = strrchr(j->input, '/');
				rel = rel ? rel + 1 : j->input;
			}
			char *joined = gsio_join(o.out, rel);
			j->output = joined ? gsio_replace_ext(joined, ext) : NULL;
			free(joined);
		}
		if (!j->output) {
			fprintf(stderr, "gsio convert: out of memory\n");
			return EXIT_FAILED;
		}
		if (in.items[i].unreadable) fail_msg(&j->err, GSIO_ERR_IO, j->input, "cannot read this folder");
		// Two inputs must not write the same output (a.mdl and a.hmp in one folder).
		for (size_t k = 0; k < i && j->err.code == GSIO_OK; k++)
			if (!strcmp(jobs[k].output, j->output)) {
				char msg[256];
				snprintf(msg, sizeof(msg), "its output %.100s is also the output of %.100s",
				         j->output, jobs[k].input);
				fail_msg(&j->err, GSIO_ERR_ARGUMENT, j->input, msg);
			}
	}

	size_t failed = 0;
	for (size_t i = 0; i < in.count; i++) {
		job *j = &jobs[i];
		double t0 = gsio_cli_now();
		warn_list w = {0};
		gsio_scene *s = NULL;
		if (j->err.code == GSIO_OK && !o.force && !to_stdout) (void)gsio_output_taken(j->output, &j->err);
		if (j->err.code == GSIO_OK) s = load_input(&o, j->input, &j->err);
		if (s) {
			if (!to_stdout && gsio_make_parent_dirs(j->output)) {
				char msg[256];
				snprintf(msg, sizeof(msg), "cannot create its folder: %s", strerror(errno));
				fail_msg(&j->err, GSIO_ERR_IO, j->output, msg);
			} else if (write_output(&o, s, j->output, &w, &j->err) == 0) {
				j->ok = true;
			} else if (!o.force && j->err.code == GSIO_ERR_IO && strstr(j->err.message, "exists")) {
				size_t len = strlen(j->err.message);
				snprintf(j->err.message + len, sizeof(j->err.message) - len, "; use --force to replace it");
			}
		}
		double secs = gsio_cli_now() - t0;
		if (!j->ok) {
			failed++;
			char buf[1024];
			gsio_error_format(&j->err, buf, sizeof(buf));
			if (strcmp(j->err.file, j->input))
				fprintf(stderr, "gsio convert: %s: %s\n", j->input, buf);
			else
				fprintf(stderr, "gsio convert: %s\n", buf);
		} else {
			if (!o.quiet) {
				for (size_t k = 0; s && k < s->warnings_count; k++)
					fprintf(stderr, "gsio convert: warning: %s: %s\n", j->input, s->warnings[k]);
				for (size_t k = 0; k < w.count; k++)
					fprintf(stderr, "gsio convert: warning: %s: %s\n", j->output, w.items[k]);
			}
			if (o.verbose)
				fprintf(to_stdout ? stderr : stdout, "%s -> %s (%s) %.3f s\n", j->input, j->output,
				        format_name(o.fmt), secs);
		}
		if (o.report)
			j->record = gsio_record_new(j->input, to_stdout ? "-" : j->output,
			                            j->ok ? NULL : &j->err, s ? gsio_record_scene(s) : NULL, s,
			                            w.items, w.count, secs);
		warn_free(&w);
		gsio_scene_free(s);
	}
	int rc = failed ? EXIT_FAILED : 0;
	if (o.report) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddStringToObject(root, "tool", "gsio convert");
		cJSON_AddStringToObject(root, "version", GSIO_VERSION_STRING);
		cJSON *arr = cJSON_AddArrayToObject(root, "inputs");
		for (size_t i = 0; i < in.count; i++)
			if (jobs[i].record) cJSON_AddItemToArray(arr, jobs[i].record);
		cJSON_AddNumberToObject(root, "converted", (double)(in.count - failed));
		cJSON_AddNumberToObject(root, "failed", (double)failed);
		if (gsio_record_write_file(o.report, root)) {
			fprintf(stderr, "gsio convert: cannot write the report %s\n", o.report);
			rc = EXIT_FAILED;
		}
		cJSON_Delete(root);
	}
	if (!o.quiet && in.count > 1)
		fprintf(stderr, "gsio convert: converted %zu of %zu files (%zu failed)\n", in.count - failed,
		        in.count, failed);
	for (size_t i = 0; i < in.count; i++) free(jobs[i].output);
	free(jobs);
	gsio_inputs_free(&in);
	free(o.anims);
	free(o.paths);
	return rc;
}
