/* gsio: the command that fronts the library.
 *   gsio info [--json] [-v] [--] INPUT... what each file holds (gsio_info_text.c)
 *   gsio convert INPUT... -o OUT [opts]  any format gsio reads to any it writes
 * (gsio_convert.c). */
#include "gsio.h"
#include "gsio_cli.h"
#include "gsio_cli_common.h"
#include "gsio_inputs.h"
#include "gsio_record.h"
#include "gsioi_os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: gsio info [--json] [-v] [--path DIR]... [--] INPUT...\n"
	        "       gsio convert INPUT... -o OUT [options]   (gsio convert --help)\n"
	        "       gsio --version | --help\n"
	        "\n"
	        "info     print what each file holds: format and version, vertices, triangles,\n"
	        "         skin vertices, welded vertices, skins (type code, size), frames and\n"
	        "         their names, clips, meshes, nodes, joints, animations, cameras,\n"
	        "         lights, warnings; for levels, a summary: the level's own geometry,\n"
	        "         the elements per kind, the models and sprites placed with how many\n"
	        "         times each, and the files the level names, found or not\n"
	        "         (gsio info --help).\n"
	        "convert  write what gsio reads as glTF (.glb/.gltf), MDL5 (.mdl), MDL7 (.mdl\n"
	        "         with -f mdl7: bones), HMP5 (.hmp) or MD5 (.md5mesh + .md5anim +\n"
	        "         .md5camera).\n"
	        "\n"
	        "Exit status: 0 when every input was handled, 1 when any failed, 2 on a usage\n"
	        "error.\n");
}

static void info_usage(FILE *out)
{
	fprintf(out,
	        "usage: gsio info [--json] [-v] [--path DIR]... [--] INPUT...\n"
	        "\n"
	        "Prints what each input holds: format and version, vertices and triangles as\n"
	        "stored (and the triangles written, with the reason, where they differ), skin\n"
	        "vertices, welded vertices, skins (type code, size), frames (vertex or\n"
	        "skeletal) and their names, clips, meshes, nodes, joints, animations,\n"
	        "cameras, lights, warnings (each once, with \"(N times)\" when it was raised\n"
	        "again). Without --verbose, a list stops after 16 entries (warnings after\n"
	        "10) with a line saying how many more there are.\n"
	        "\n"
	        "For a level (.wmp), a summary: its own geometry (blocks, their vertices and\n"
	        "triangles; not its placed models'), how many elements of each kind it holds\n"
	        "(blocks, models, sprites, lights, starts, sounds, paths, regions), the files\n"
	        "its models and sprites place with how many times each, and how many of the\n"
	        "files it names (WADs, models, sprites, sounds, script, palette) were found,\n"
	        "naming those not found. --verbose adds the skins, clips and meshes of its\n"
	        "placed models and a line per file named, with where it was found.\n"
	        "\n"
	        "INPUT is a file (any format gsio reads, whatever its extension), a folder\n"
	        "(searched recursively for files with an extension gsio reads; an .md5anim\n"
	        "beside an .md5mesh is read with the mesh; a folder holding none is an\n"
	        "error), or '-' for standard input. '--' ends the options: later arguments\n"
	        "are inputs even when they start with '-'.\n"
	        "\n"
	        "options:\n"
	        "  --json         one JSON record per input, one per line (the README's\n"
	        "                 \"Records\" section lists the keys; mdl2gltf --report writes\n"
	        "                 the same records)\n"
	        "  -v, --verbose  text output: every list whole\n");
	gsio_cli_path_help(out, 17);
	fprintf(out,
	        "  --version      print the version and exit\n"
	        "  --help         print this text and exit\n"
	        "\n"
	        "Exit status: 0 when every input was read, 1 when any failed (or a folder\n"
	        "held nothing to read), 2 on a usage error.\n");
}

// -- info

gsio_scene *gsio_cli_load_stdin(const gsio_opts *opts, gsio_error *err)
{
	size_t cap = 1 << 16, size = 0;
	size_t limit = opts && opts->memory_limit ? opts->memory_limit : GSIO_DEFAULT_MEMORY_LIMIT;
	uint8_t *data = malloc(cap);
	while (data) {
		if (size == cap) {
			if (cap >= limit) {
				free(data);
				gsio_error_clear(err);
				err->code = GSIO_ERR_LIMIT;
				snprintf(err->file, sizeof(err->file), "-");
				snprintf(err->message, sizeof(err->message), "standard input is larger than the memory limit");
				return NULL;
			}
			uint8_t *n = realloc(data, cap * 2);
			if (!n) break;
			data = n;
			cap *= 2;
		}
		size_t got = fread(data + size, 1, cap - size, stdin);
		size += got;
		if (got == 0) break;
	}
	if (!data || ferror(stdin)) {
		free(data);
		gsio_error_clear(err);
		err->code = data ? GSIO_ERR_IO : GSIO_ERR_NOMEM;
		snprintf(err->file, sizeof(err->file), "-");
		snprintf(err->message, sizeof(err->message), data ? "cannot read standard input" : "out of memory");
		return NULL;
	}
	// No path: nothing beside it is looked for; errors name "-".
	gsio_scene *s = gsio_load_memory(data, size, NULL, opts, err);
	if (!s && !err->file[0]) snprintf(err->file, sizeof(err->file), "-");
	free(data);
	return s;
}

static int cmd_info(int argc, char **argv)
{
	bool json = false, verbose = false;
	gsio_inputs in = {0};
	int ninputs = 0, failed = 0;
	bool opts_done = false, stdin_used = false;
	// --path DIR, repeatable: pointers into argv, at most argc of them.
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	size_t paths_count = 0;
	if (!paths) {
		fprintf(stderr, "gsio info: out of memory\n");
		return 1;
	}
	gsio_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.search_paths = paths;
	lo.flags = GSIO_OPT_GRID; // counts and bounds only: terrains need not be expanded
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
		} else if (!opts_done && !strcmp(a, "--json")) {
			json = true;
		} else if (!opts_done && (!strcmp(a, "--verbose") || !strcmp(a, "-v"))) {
			verbose = true;
		} else if (!opts_done && !strcmp(a, "--path")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "gsio info: option --path needs a value\n");
				fprintf(stderr, "Try 'gsio info --help'.\n");
				free(paths);
				gsio_inputs_free(&in);
				return 2;
			}
			paths[paths_count++] = argv[++i];
		} else if (!opts_done && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			info_usage(stdout);
			gsio_inputs_free(&in);
			free(paths);
			return 0;
		} else if (!opts_done && !strcmp(a, "--version")) {
			printf("gsio %s\n", GSIO_VERSION_STRING);
			gsio_inputs_free(&in);
			free(paths);
			return 0;
		} else if (!opts_done && a[0] == '-' && a[1]) {
			fprintf(stderr, "gsio info: unknown option %s\n", a);
			fprintf(stderr, "Try 'gsio info --help'.\n");
			gsio_inputs_free(&in);
			free(paths);
			return 2;
		} else {
			if (!strcmp(a, "-")) {
				if (stdin_used) {
					fprintf(stderr, "gsio info: '-' (standard input) given twice\n");
					gsio_inputs_free(&in);
					free(paths);
					return 2;
				}
				stdin_used = true;
			}
			ninputs++;
			size_t before = in.count;
			if (!gsio_inputs_add(&in, a, gsio_cli_have_assimp())) {
				fprintf(stderr, "gsio info: out of memory\n");
				gsio_inputs_free(&in);
				free(paths);
				return 1;
			}
			// A file is added whatever it is: nothing added is a folder
			// without a file gsio reads, which the user should hear of.
			if (in.count == before) {
				fprintf(stderr, "gsio: %s: nothing to read (no file with a known extension found)\n", a);
				failed++;
			}
		}
	}
	lo.search_paths_count = paths_count;
	if (!ninputs) {
		fprintf(stderr, "gsio info: no INPUT given\n");
		fprintf(stderr, "usage: gsio info [--json] [-v] [--path DIR]... [--] INPUT...   (see gsio info --help)\n");
		free(paths);
		return 2;
	}
	for (size_t i = 0; i < in.count; i++) {
		const char *path = in.items[i].path;
		gsio_error err;
		gsio_error_clear(&err);
		double t0 = gsio_cli_now();
		gsio_scene *s = NULL;
		if (in.items[i].unreadable) {
			err.code = GSIO_ERR_IO;
			snprintf(err.file, sizeof(err.file), "%s", path);
			snprintf(err.message, sizeof(err.message), "cannot read this folder");
		} else if (!strcmp(path, "-") && !in.items[i].rel) {
			s = gsio_cli_load_stdin(&lo, &err);
		} else {
			// An input found in a folder: that folder is searched too.
			const char *rel = in.items[i].rel;
			void *owned;
			gsio_opts one = lo;
			if (gsio_cli_search_paths(&one, path, rel ? strlen(path) - strlen(rel) : 0, &owned))
				s = gsio_cli_load(path, &one, &err);
			else
				gsio_cli_set_error(&err, GSIO_ERR_NOMEM, path, "out of memory");
			free(owned);
		}
		double secs = gsio_cli_now() - t0;
		if (!s) {
			failed++;
			char msg[1024];
			gsio_error_format(&err, msg, sizeof(msg));
			fprintf(stderr, "gsio: %s\n", msg);
		}
		if (json) {
			cJSON *r = gsio_record_new(path, NULL, s ? NULL : &err, s ? gsio_record_scene(s) : NULL,
			                           s, NULL, 0, secs);
			char *t = cJSON_PrintUnformatted(r);
			if (t) puts(t);
			free(t);
			cJSON_Delete(r);
		} else if (s) {
			gsio_info_print(path, s, verbose);
		}
		gsio_scene_free(s);
	}
	gsio_inputs_free(&in);
	free(paths);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	gsioi_program_start(&argc, &argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gsio %s\n", GSIO_VERSION_STRING);
		return 0;
	}
	if (!strcmp(argv[1], "info")) return cmd_info(argc - 2, argv + 2);
	if (!strcmp(argv[1], "convert")) return gsio_cmd_convert(argc - 2, argv + 2);
	fprintf(stderr, "gsio: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
