/* `gsio convert IN... -o OUT [options]`: every input gsio reads (and, with
 * the Assimp adapter, what Assimp reads) to glTF, MDL5, HMP5 or MD5. One
 * input at a time: load -> scene -> writer in memory -> files placed
 * atomically. mdl2gltf stays the parallel glTF batch front. */
#include "gsio.h"
#include "gsio_cli.h"
#include "gsio_cli_common.h"
#include "gsio_gltf.h"
#include "gsio_md5_write.h"
#include "gsio_write.h"
#include "gsioi_os.h"
#include "gsioi_place.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// -- Formats

typedef enum out_format { FMT_NONE = 0, FMT_GLB, FMT_GLTF, FMT_MDL5, FMT_HMP5, FMT_MD5, FMT_MDL7 } out_format;

static const struct {
	const char *name, *ext;
	out_format fmt;
} formats[] = {
    {"glb", ".glb", FMT_GLB},   {"gltf", ".gltf", FMT_GLTF},    {"mdl5", ".mdl", FMT_MDL5},
    {"hmp5", ".hmp", FMT_HMP5}, {"md5", ".md5mesh", FMT_MD5},
    // After mdl5: a .mdl output stays MDL5 (every engine version reads it).
    {"mdl7", ".mdl", FMT_MDL7},
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
	const char *base = gsioi_path_last_sep(path);
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base) return FMT_NONE;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcasecmp(dot, formats[i].ext)) return formats[i].fmt;
	if (!strcasecmp(dot, ".md5camera")) return FMT_MD5;
	return FMT_NONE;
}

// -- Options

typedef struct conv_opts {
	gsio_cli_opts cli; // the options mdl2gltf takes too (gsio_cli_common.h)
	out_format fmt;
	bool to_stdout, out_dir; // what -o names (decide_output)
	bool mipmaps, dither;
	float bake_fps, cell_size, height_min, height_max;
	bool height_range;
	uint32_t columns, rows;
	const char *color_map;
	gsio_skin_encoding skin;
	bool skin_set, mdl_only_used, hmp_only_used;
	bool skin_external; // MDL7: skins as texture names
} conv_opts;

static void convert_usage(FILE *f)
{
	fprintf(f,
	        "usage: gsio convert INPUT... -o OUT [options]\n"
	        "\n"
	        "Writes what gsio reads (MDL, HMP, MD5 and the formats of its importer registry;\n"
	        "with the Assimp adapter built, also glTF, OBJ, FBX, ... through Assimp) as glTF\n"
	        "2.0, MDL5, MDL7, HMP5 or MD5.\n"
	        "\n"
	        "The output format is OUT's extension: .glb, .gltf, .mdl (MDL5), .hmp (HMP5),\n"
	        ".md5mesh (MD5: the .md5mesh, one .md5anim per skeletal animation, one\n"
	        ".md5camera per animated camera, beside each other), or -f. A .mdl is MDL5,\n"
	        "the model every engine version reads (no bones: skeletal animation baked to\n"
	        "vertex frames); -f mdl7 writes an A7/A8 model with bones, weights and\n"
	        "bone-matrix frames instead.\n"
	        "\n"
	        "INPUT is a file (read whatever its extension) or a folder (searched\n"
	        "recursively for files with an extension gsio reads, as mdl2gltf does). OUT is\n"
	        "  a file      when it has an extension and is not a folder: one input only;\n"
	        "  a folder    when it is one, ends in '/', or has no extension: it is created\n"
	        "              and mirrors the input tree; -f says the format;\n"
	        "  -           standard output: one input, written as GLB (default), MDL5,\n"
	        "              MDL7 or HMP5 (not a terminal).\n"
	        "An existing output is an error unless --force or --update (found before the\n"
	        "input is read). Files are written under a temporary name and renamed into\n"
	        "place, an .md5mesh and its .md5anim only when both are written: nothing is\n"
	        "left and no old file is replaced when a write fails.\n"
	        "\n"
	        "options:\n"
	        "  -o, --output OUT   the output file, folder or '-'\n"
	        "  -f, --format FMT   glb, gltf, mdl5, mdl7, hmp5 or md5 (required for a folder\n"
	        "                     OUT)\n"
	        "  --force            replace existing outputs\n"
	        "  --update           convert only the inputs whose output is missing or older\n"
	        "                     than the input or a file it is made from (--palette,\n"
	        "                     --anim, --color-map, the .md5anim files beside an\n"
	        "                     .md5mesh, a level's WADs, models and sprites), replacing\n"
	        "                     the older outputs; the others are up to date (not an\n"
	        "                     error). Textures a model names and the options an output\n"
	        "                     was made with are not compared: use --force after changing\n"
	        "                     those. Not with --force, nor with -o -\n"
	        "  --files-from FILE  also convert the inputs FILE lists, one a line ('-':\n"
	        "                     standard input). OUT is then a folder, and a listed\n"
	        "                     input's output mirrors its path below the current folder\n"
	        "                     (or --base): a list split into parts, each run on its own,\n"
	        "                     writes the same files as the whole list in one run\n"
	        "  -0, --null         the list is NUL-separated (find -print0)\n"
	        "  --base DIR         outputs in the folder OUT mirror the inputs' paths below\n"
	        "                     DIR, those on the command line too; an input outside DIR\n"
	        "                     fails\n"
	        "  --no-animation     the first frame / bind pose only (needed to write a\n"
	        "                     vertex-animated model as MD5, which has no morph animation)\n"
	        "  --bake-lightmaps   a compiled level (.wmb): each lit surface's texture times\n"
	        "                     its lightmap in one image (4x4 texels a lightmap texel),\n"
	        "                     for engines that take one texture a material (default:\n"
	        "                     the lightmap as a second texture on TEXCOORD_1)\n"
	        "  --fps F            frame rate given to vertex-animation clips when reading\n"
	        "                     (default 10: GameStudio stores none)\n"
	        "  --palette FILE     256-colour palette (.pcx, 768-byte .raw/.lmp) for reading\n"
	        "                     8-bit skins and for writing --skin-format pal8\n"
	        "  --anim FILE        (repeatable) .md5anim files to load with an .md5mesh input\n"
	        "                     instead of the ones beside it\n");
	gsio_cli_path_help(f, 21);
	fprintf(f,
	        "  --report FILE      a JSON record per input (the README's \"Records\"), as\n"
	        "                     mdl2gltf --report writes them; a name ending in .jsonl\n"
	        "                     gets one record a line (reports joined with cat)\n"
	        "  -q, --quiet        print errors only\n"
	        "  -v, --verbose      print a line per converted input\n"
	        "  --help             print this text and exit\n"
	        "glTF output:\n"
	        "  --scale S          multiply positions by S (0.0254: inches to metres)\n"
	        "  --axes gltf|source convert to glTF's Y up (default) or keep Z up\n"
	        "MDL5, MDL7 and HMP5 output:\n"
	        "  --skin-format F    auto (default), pal8, 565, 4444, 888 or 8888\n"
	        "  --mipmaps          store three smaller mip levels\n"
	        "  --dither           dither when reducing colours (default off)\n"
	        "MDL5 and MDL7 output:\n"
	        "  --bake-fps F       MDL5: rate at which skeletal animation is baked to\n"
	        "                     frames; MDL7: rate animations are resampled at (default\n"
	        "                     their own keys, a frame each)\n"
	        "MDL7 output:\n"
	        "  --skin-external    skins as texture file names (the image's own file name,\n"
	        "                     else NAME.png; the texture files are not written)\n"
	        "HMP5 output:\n"
	        "  --grid CxR         columns x rows of the terrain (resampled)\n"
	        "  --cell-size D      distance between vertices\n"
	        "  --height-range MIN:MAX  heights rescaled into this range\n"
	        "  --color-map FILE   colour map for a heightmap image input (.png)\n"
	        "\n"
	        "Exit status: 0 when every input was converted (or up to date, or the list was\n"
	        "empty), 1 when any failed, 2 on a usage error (bad option, no input, an\n"
	        "unreadable list, several inputs into one file, an OUT extension no writer has,\n"
	        "a format to standard output that is several files).\n");
}

static const gsio_cli CLI = {
    .name = "gsio convert",
    .version = "gsio",
    .usage = convert_usage,
    .folder = "folder",
    .try_help_always = true,
    .reads_stdin = true,
    .unreadable_keeps_output = true,
    .quoted_path_chars = 100,
};

// Messages start "gsio convert: " and end with the --help hint.
#define usage_error(...) gsio_cli_usage_error(&CLI, __VA_ARGS__)

enum { OPT_SKIN = GSIO_CLI_OPT_OWN, OPT_MIPS, OPT_DITHER, OPT_BAKE, OPT_GRID, OPT_CELL, OPT_RANGE,
       OPT_COLOR, OPT_SKIN_EXTERNAL };

static int parse_skin_format(conv_opts *o, const char *arg)
{
	static const struct {
		const char *n;
		gsio_skin_encoding e;
	} sk[] = {{"auto", GSIO_SKIN_AUTO},       {"pal8", GSIO_SKIN_PAL8},
	          {"565", GSIO_SKIN_RGB565},      {"4444", GSIO_SKIN_ARGB4444},
	          {"888", GSIO_SKIN_BGR888},      {"8888", GSIO_SKIN_BGRA8888}};
	o->skin_set = false;
	for (size_t i = 0; i < sizeof(sk) / sizeof(sk[0]); i++)
		if (!strcmp(arg, sk[i].n)) {
			o->skin = sk[i].e;
			o->skin_set = true;
		}
	if (!o->skin_set)
		return usage_error("--skin-format takes auto, pal8, 565, 4444, 888 or 8888, not '%s'",
		                   arg);
	return GSIO_CLI_GO_ON;
}

static int parse_grid(conv_opts *o, const char *arg)
{
	unsigned c, r;
	char tail;
	if (sscanf(arg, "%ux%u%c", &c, &r, &tail) != 2 || c < 2 || r < 2 || c > 65535 || r > 65535)
		return usage_error("--grid takes COLUMNSxROWS (each 2..65535), not '%s'", arg);
	o->columns = c;
	o->rows = r;
	return GSIO_CLI_GO_ON;
}

static int parse_height_range(conv_opts *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char lo[64];
	if (!colon || (size_t)(colon - arg) >= sizeof(lo))
		return usage_error("--height-range takes MIN:MAX, not '%s'", arg);
	memcpy(lo, arg, (size_t)(colon - arg));
	lo[colon - arg] = 0;
	if (!gsio_cli_parse_float(&CLI, lo, &o->height_min, false) ||
	    !gsio_cli_parse_float(&CLI, colon + 1, &o->height_max, false) ||
	    !(o->height_min < o->height_max))
		return usage_error("--height-range takes MIN:MAX with MIN < MAX, not '%s'", arg);
	o->height_range = true;
	return GSIO_CLI_GO_ON;
}

// The options only gsio convert has (a gsio_cli_option_fn).
static int convert_option(void *user, int ch, const char *arg)
{
	conv_opts *o = user;
	switch (ch) {
	case 'f':
		if (!(o->fmt = format_named(arg)))
			return usage_error("-f takes glb, gltf, mdl5, mdl7, hmp5 or md5, not '%s'", arg);
		break;
	case OPT_SKIN: return parse_skin_format(o, arg);
	case OPT_MIPS: o->mipmaps = true; o->skin_set = true; break;
	case OPT_SKIN_EXTERNAL: o->skin_external = true; break;
	case OPT_DITHER: o->dither = true; o->skin_set = true; break;
	case OPT_BAKE:
		o->mdl_only_used = true;
		if (!gsio_cli_parse_float(&CLI, arg, &o->bake_fps, true))
			return usage_error("--bake-fps needs a positive number, not '%s'", arg);
		break;
	case OPT_GRID: o->hmp_only_used = true; return parse_grid(o, arg);
	case OPT_CELL:
		o->hmp_only_used = true;
		if (!gsio_cli_parse_float(&CLI, arg, &o->cell_size, true))
			return usage_error("--cell-size needs a positive number, not '%s'", arg);
		break;
	case OPT_RANGE: o->hmp_only_used = true; return parse_height_range(o, arg);
	case OPT_COLOR: o->hmp_only_used = true; o->color_map = o->cli.made_from = arg; break;
	default: return GSIO_CLI_UNKNOWN;
	}
	return GSIO_CLI_GO_ON;
}

// Reads the options; the inputs are then (*inputs)[0 .. *count).
static int parse_options(conv_opts *o, int argc, char **argv, char ***inputs, size_t *count)
{
	static const struct option longs[] = {
	    GSIO_CLI_LONG_OPTIONS,
	    {"format", required_argument, NULL, 'f'},
	    {"skin-format", required_argument, NULL, OPT_SKIN},
	    {"mipmaps", no_argument, NULL, OPT_MIPS},
	    {"dither", no_argument, NULL, OPT_DITHER},
	    {"bake-fps", required_argument, NULL, OPT_BAKE},
	    {"skin-external", no_argument, NULL, OPT_SKIN_EXTERNAL},
	    {"grid", required_argument, NULL, OPT_GRID},
	    {"cell-size", required_argument, NULL, OPT_CELL},
	    {"height-range", required_argument, NULL, OPT_RANGE},
	    {"color-map", required_argument, NULL, OPT_COLOR},
	    {NULL, 0, NULL, 0},
	};
	static char *args[4096];
	// getopt wants argv[0]; the verb's arguments follow.
	if ((size_t)argc + 1 >= sizeof(args) / sizeof(args[0]))
		return usage_error("%s", "too many arguments");
	args[0] = "gsio convert";
	for (int i = 0; i < argc; i++) args[i + 1] = argv[i];
	int ac = argc + 1;
	int rc = gsio_cli_parse(&CLI, &o->cli, ac, args, ":o:f:qv0", longs, convert_option, o);
	if (rc != GSIO_CLI_GO_ON) return rc;
	*inputs = args + optind;
	*count = (size_t)(ac - optind);
	if (!*count && !o->cli.files_from) return usage_error("%s", "no INPUT given");
	if (!o->cli.out)
		return usage_error("%s", "no output: give -o OUT (a file, a folder, or - for standard "
		                         "output)");
	if ((rc = gsio_cli_check_quiet_verbose(&CLI, &o->cli)) != GSIO_CLI_GO_ON) return rc;
	return gsio_cli_check_anim(&CLI, &o->cli);
}

// What OUT is (standard output, a folder or a file) and the format.
static int decide_output(conv_opts *o, char *const *inputs, size_t count)
{
	const char *out = o->cli.out;
	o->to_stdout = !strcmp(out, "-");
	o->out_dir = !o->to_stdout && (gsio_cli_names_folder(out) || !gsio_cli_has_extension(out));
	const char *several = gsio_cli_several(&CLI, &o->cli, inputs, count);
	if (!o->fmt) {
		if (o->to_stdout) {
			o->fmt = FMT_GLB;
		} else if (o->out_dir) {
			return usage_error("the output %s is a folder: give -f glb|gltf|mdl5|mdl7|hmp5|md5", out);
		} else if (!(o->fmt = format_of_path(out))) {
			const char *dot = strrchr(out, '.');
			return usage_error("no writer for '%s' (the output %s); gsio writes .glb, .gltf, "
			                   ".mdl, .hmp and .md5mesh (or give -f)",
			                   dot ? dot : "", out);
		}
	}
	if (several && !o->out_dir)
		return usage_error("%s inputs need a folder as the output, and %s is %s", several, out,
		                   o->to_stdout ? "standard output"
		                                : "a file (give an existing folder or end it in '/')");
	if (o->to_stdout && (o->fmt == FMT_GLTF || o->fmt == FMT_MD5))
		return usage_error("%s is several files: it cannot go to standard output (use glb, "
		                   "mdl5, mdl7 or hmp5)",
		                   format_name(o->fmt));
	if (o->to_stdout && gsioi_isatty(1))
		return usage_error("%s", "standard output is a terminal: redirect it or give -o FILE");
	return gsio_cli_check_batch(&CLI, &o->cli, o->out_dir, o->to_stdout, inputs, count);
}

// The options of one output format given for another; '-' not alone.
static int check_options(const conv_opts *o, char *const *inputs, size_t count)
{
	const char *fmt = format_name(o->fmt);
	if (o->cli.scale_or_axes && o->fmt != FMT_GLB && o->fmt != FMT_GLTF)
		return usage_error("--scale and --axes apply to glTF output, not %s", fmt);
	if (o->mdl_only_used && o->fmt != FMT_MDL5 && o->fmt != FMT_MDL7)
		return usage_error("--bake-fps applies to MDL5 and MDL7 output, not %s", fmt);
	if (o->skin_external && o->fmt != FMT_MDL7)
		return usage_error("--skin-external applies to MDL7 output, not %s", fmt);
	if (o->hmp_only_used && o->fmt != FMT_HMP5)
		return usage_error("--grid, --cell-size, --height-range and --color-map apply to HMP5 "
		                   "output, not %s",
		                   fmt);
	if (o->skin_set && o->fmt != FMT_MDL5 && o->fmt != FMT_MDL7 && o->fmt != FMT_HMP5)
		return usage_error("--skin-format, --mipmaps and --dither apply to MDL5, MDL7 and HMP5 "
		                   "output, not %s",
		                   fmt);
	size_t stdin_inputs = 0;
	for (size_t i = 0; i < count; i++) stdin_inputs += !strcmp(inputs[i], "-");
	if (stdin_inputs && (gsio_cli_several(&CLI, &o->cli, inputs, count) || stdin_inputs > 1))
		return usage_error("%s", "'-' (standard input) must be the only input");
	return GSIO_CLI_GO_ON;
}

// -- One input

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

// A heightmap image (and --color-map) as the scene of an HMP5 terrain.
static gsio_scene *load_heightmap(const conv_opts *o, const char *path, gsio_error *err)
{
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

// Loads job j's input (a heightmap image for HMP5 output).
static gsio_scene *load_input(const conv_opts *o, const gsio_cli_job *j, gsio_error *err)
{
	const char *path = j->input;
	gsio_opts lo;
	gsio_cli_load_opts(&o->cli, &lo);
	// glTF embeds PNG/JPEG textures as they are: no need to decode them. The
	// MDL5 and HMP5 writers need pixels (and the MD5 writer may write them).
	if (o->fmt == FMT_GLB || o->fmt == FMT_GLTF) lo.flags |= GSIO_OPT_NO_PIXELS;
	if (!strcmp(path, "-")) return gsio_cli_load_stdin(&lo, err);
	if (o->fmt == FMT_HMP5 && is_image_input(path)) return load_heightmap(o, path, err);
	void *owned;
	if (!gsio_cli_search_paths(&lo, path, j->root_len, &owned)) {
		gsio_cli_set_error(err, GSIO_ERR_NOMEM, path, "out of memory");
		return NULL;
	}
	gsio_scene *s = gsio_cli_load(path, &lo, err);
	free(owned);
	// A compiled level is a whole level with its lightmapped geometry: only
	// glTF holds it (the other writers take one model).
	if (s && s->format && !strcmp(s->format, "WMB") && o->fmt != FMT_GLB && o->fmt != FMT_GLTF) {
		gsio_cli_set_error(err, GSIO_ERR_UNSUPPORTED, path,
		                   "a compiled level (WMB) is written as glTF only (.glb or .gltf): "
		                   "MDL5, HMP5 and MD5 hold one model, not a level");
		gsio_scene_free(s);
		return NULL;
	}
	return s;
}

static int write_stdout(const uint8_t *data, size_t size, gsio_error *err)
{
	if (fwrite(data, 1, size, stdout) != size || fflush(stdout)) {
		gsio_cli_set_error(err, GSIO_ERR_IO, "-", "cannot write to standard output");
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

static int write_gltf(const conv_opts *o, const gsio_scene *s, gsio_cli_job *j)
{
	gsio_gltf_opts go;
	gsio_cli_gltf_opts(&o->cli, &go);
	if (o->fmt == FMT_GLTF) go.flags |= GSIO_GLTF_SEPARATE;
	go.generator = "gsio convert " GSIO_VERSION_STRING;
	gsio_gltf_output gout;
	memset(&gout, 0, sizeof(gout));
	int rc;
	if (o->to_stdout) {
		rc = gsio_gltf_write(s, &go, &gout, &j->err);
		if (!rc) rc = write_stdout(gout.files[0].data, gout.files[0].size, &j->err);
	} else {
		rc = gsio_gltf_write_file(s, j->output, &go, &gout, &j->err);
	}
	for (size_t i = 0; i < gout.warnings_count; i++) gsio_cli_job_warn(j, gout.warnings[i]);
	gsio_gltf_output_free(&gout);
	return rc;
}

// MDL5, MDL7 and HMP5: the writer's options (three structs whose shared
// fields are set alike), then the writer, into j->output or, for "-", into
// memory and onto standard output.
static int write_gamestudio(const conv_opts *o, const gsio_scene *s, gsio_cli_job *j)
{
	gsio_mdl5_write_opts m5;
	gsio_mdl7_write_opts m7;
	gsio_hmp5_write_opts h5;
	memset(&m5, 0, sizeof(m5));
	memset(&m7, 0, sizeof(m7));
	memset(&h5, 0, sizeof(h5));
#define SHARED(x) \
	do { \
		(x).skin_encoding = o->skin; \
		(x).palette = o->cli.palette ? o->cli.palette_rgb : NULL; \
		(x).dither = o->dither; \
		(x).mipmaps = o->mipmaps; \
		(x).no_replace = !gsio_cli_replaces(&o->cli); \
		(x).warn = gsio_cli_job_warn; \
		(x).warn_user = j; \
	} while (0)
	SHARED(m5);
	SHARED(m7);
	SHARED(h5);
#undef SHARED
	m5.bake_fps = m7.bake_fps = o->bake_fps;
	m7.skin_external = o->skin_external;
	hmp5_grid_opts(o, &h5);
	const char *file = o->to_stdout ? NULL : j->output;
	uint8_t *data = NULL;
	size_t size = 0;
	int rc;
	switch (o->fmt) {
	case FMT_MDL5:
		rc = file ? gsio_mdl5_write_file(s, file, &m5, &j->err)
		          : gsio_mdl5_write(s, &m5, &data, &size, &j->err);
		break;
	case FMT_MDL7:
		rc = file ? gsio_mdl7_write_file(s, file, &m7, &j->err)
		          : gsio_mdl7_write(s, &m7, &data, &size, &j->err);
		break;
	default:
		rc = file ? gsio_hmp5_write_file(s, file, &h5, &j->err)
		          : gsio_hmp5_write(s, &h5, &data, &size, &j->err);
		break;
	}
	return file ? rc : bytes_to_stdout(rc, data, size, &j->err);
}

static int write_md5(const conv_opts *o, const gsio_scene *s, gsio_cli_job *j)
{
	gsio_md5_write_opts mo;
	memset(&mo, 0, sizeof(mo));
	if (o->cli.no_animation) mo.flags |= GSIO_MD5_WRITE_NO_ANIMATION;
	if (!gsio_cli_replaces(&o->cli)) mo.flags |= GSIO_MD5_WRITE_NO_REPLACE;
	mo.commandline = "gsio convert " GSIO_VERSION_STRING;
	mo.warn = gsio_cli_job_warn;
	mo.warn_user = j;
	int rc = gsio_md5_write_file(s, j->output, &mo, &j->err);
	// The library says what MD5 cannot hold; the command says how to get past it.
	if (rc && j->err.code == GSIO_ERR_UNSUPPORTED && strstr(j->err.message, "morph")) {
		size_t len = strlen(j->err.message);
		snprintf(j->err.message + len, sizeof(j->err.message) - len, " (--no-animation)");
	}
	return rc;
}

// Writes scene s as the output format to j->output ("-": standard output);
// a gsio_cli_write_fn.
static int write_output(const void *user, const gsio_scene *s, gsio_cli_job *j)
{
	const conv_opts *o = user;
	switch (o->fmt) {
	case FMT_GLB:
	case FMT_GLTF: return write_gltf(o, s, j);
	case FMT_MDL5:
	case FMT_MDL7:
	case FMT_HMP5: return write_gamestudio(o, s, j);
	case FMT_MD5: return write_md5(o, s, j);
	default: break;
	}
	gsio_cli_set_error(&j->err, GSIO_ERR_ARGUMENT, j->output, "no output format");
	return -1;
}

// Converts one input and says how it went.
static void convert_one(const conv_opts *o, gsio_cli_job *j)
{
	double t0 = gsio_cli_now();
	gsio_scene *s = NULL;
	if (gsio_cli_job_ready(&o->cli, j, o->to_stdout)) s = load_input(o, j, &j->err);
	if (s) {
		(void)gsio_cli_job_loaded(&o->cli, j, s);
		gsio_cli_job_write(&CLI, &o->cli, j, s, o->to_stdout, write_output, o);
	}
	j->seconds = gsio_cli_now() - t0;
	if (gsio_cli_job_print(&CLI, &o->cli, j) && o->cli.verbose)
		fprintf(o->to_stdout ? stderr : stdout, "%s -> %s (%s) %.3f s\n", j->input, j->output,
		        format_name(o->fmt), j->seconds);
	gsio_scene_free(s);
}

// -- The command

int gsio_cmd_convert(int argc, char **argv)
{
	static conv_opts o; // static: what it points to stays reachable on an early return
	memset(&o, 0, sizeof(o));
	static gsio_cli_args args; // static: as o
	char **inputs = NULL;
	size_t count = 0;
	int rc = parse_options(&o, argc, argv, &inputs, &count);
	if (rc == GSIO_CLI_GO_ON) rc = gsio_cli_args_get(&CLI, &o.cli, inputs, count, &args);
	if (rc == GSIO_CLI_GO_ON) rc = decide_output(&o, args.items, args.count);
	if (rc == GSIO_CLI_GO_ON) rc = check_options(&o, args.items, args.count);
	if (rc == GSIO_CLI_GO_ON) rc = gsio_cli_load_palette(&CLI, &o.cli);
	if (rc != GSIO_CLI_GO_ON) return rc;
	gsioi_install_cleanup_handlers();

	gsio_cli_outputs to = {o.cli.out, o.out_dir, format_ext(o.fmt), gsio_cli_have_assimp(),
	                       o.cli.base};
	gsio_cli_jobs jobs;
	if ((rc = gsio_cli_plan(&CLI, &args, &to, &jobs)) != GSIO_CLI_GO_ON) return rc;
	for (size_t i = 0; i < jobs.count; i++) convert_one(&o, &jobs.items[i]);
	rc = gsio_cli_finish(&CLI, &o.cli, &jobs, 0);
	gsio_cli_args_free(&args);
	gsio_cli_opts_free(&o.cli);
	return rc;
}
