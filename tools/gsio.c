/* gsio: the command that fronts the library.
 *   gsio info [--json] [--] INPUT...     what each file holds
 *   gsio convert INPUT... -o OUT [opts]  any format gsio reads to any it writes
 * (gsio_convert.c). */
#include "gsio.h"
#include "gsio_cli.h"
#include "gsio_cli_common.h"
#include "gsio_inputs.h"
#include "gsio_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: gsio info [--json] [--path DIR]... [--] INPUT...\n"
	        "       gsio convert INPUT... -o OUT [options]   (gsio convert --help)\n"
	        "       gsio --version | --help\n"
	        "\n"
	        "info     print what each file holds: format and version, vertices, triangles,\n"
	        "         skin vertices, welded vertices, skins (type code, size), frames and\n"
	        "         their names, clips, meshes, nodes, joints, animations, cameras,\n"
	        "         lights, warnings; for levels, the elements per kind and the files\n"
	        "         the level names, found or not.\n"
	        "convert  write what gsio reads as glTF (.glb/.gltf), MDL5 (.mdl), HMP5 (.hmp)\n"
	        "         or MD5 (.md5mesh + .md5anim + .md5camera).\n"
	        "\n"
	        "Exit status: 0 when every input was handled, 1 when any failed, 2 on a usage\n"
	        "error.\n");
}

static void info_usage(FILE *out)
{
	fprintf(out,
	        "usage: gsio info [--json] [--path DIR]... [--] INPUT...\n"
	        "\n"
	        "Prints what each input holds: format and version, vertices, triangles, skin\n"
	        "vertices, welded vertices, skins (type code, size), frames and their names,\n"
	        "clips, meshes, nodes, joints, animations, cameras, lights, warnings. For a\n"
	        "level (.wmp): how many elements of each kind it holds (blocks, models,\n"
	        "sprites, lights, starts, sounds, paths, regions) and every file it names\n"
	        "(WADs, models, sprites, sounds, script, palette) with where it was found or\n"
	        "\"not found\".\n"
	        "\n"
	        "INPUT is a file (any format gsio reads, whatever its extension), a folder\n"
	        "(searched recursively for files with an extension gsio reads; an .md5anim\n"
	        "beside an .md5mesh is read with the mesh), or '-' for standard input.\n"
	        "'--' ends the options: later arguments are inputs even when they start\n"
	        "with '-'.\n"
	        "\n"
	        "options:\n"
	        "  --json     one JSON record per input, one per line (the README's \"Records\"\n"
	        "             section lists the keys; mdl2gltf --report writes the same records)\n"
	        "  --path DIR (repeatable) a folder searched, after the input's own, for the\n"
	        "             files a model or level names (textures; a level's WADs,\n"
	        "             models, sprites): by base name, in any case, stored in CP1252\n"
	        "             or UTF-8; nothing outside these folders is opened. An input\n"
	        "             found in a folder INPUT searches that folder too\n"
	        "  --version  print the version and exit\n"
	        "  --help     print this text and exit\n"
	        "\n"
	        "Exit status: 0 when every input was read, 1 when any failed, 2 on a usage\n"
	        "error.\n");
}

// -- info: text output

static void print_text(const char *path, const gsio_scene *s)
{
	printf("%s: %s (version %d)\n", path, s->format ? s->format : "scene", (int)s->format_version);
	size_t welded = 0;
	for (size_t i = 0; i < s->meshes_count; i++) welded += s->meshes[i].vertex_count;
	printf("  vertices %zu, triangles %zu, skin vertices %zu, welded vertices %zu\n",
	       s->source.vertices, s->source.triangles, s->source.uvs, welded);
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		if (im->source_path)
			printf("  image %zu: %u x %u, from %s\n", i, im->width, im->height, im->source_path);
		else
			printf("  skin %zu: type %d, %u x %u%s\n", i, (int)im->source_type, im->width,
			       im->height, im->source_mip_count ? ", with mips" : "");
	}
	size_t nframes = s->meshes_count ? s->meshes[0].frames_count : 0;
	if (nframes) {
		// Long lists are cut in the middle; --json has every name.
		printf("  frames %zu:", nframes);
		for (size_t i = 0; i < nframes; i++) {
			if (nframes > 12 && i == 6) {
				printf(" ...");
				i = nframes - 4;
			}
			printf(" %s", s->meshes[0].frames[i].name[0] ? s->meshes[0].frames[i].name : "\"\"");
		}
		printf("\n");
	}
	size_t joints = 0;
	for (size_t i = 0; i < s->skins_count; i++) joints += s->skins[i].joints_count;
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *a = &s->animations[i];
		const gsio_channel *ch = NULL;
		bool skeletal = false, camera = false;
		for (size_t c = 0; c < a->channels_count; c++) {
			const gsio_channel *k = &a->channels[c];
			if (k->path == GSIO_PATH_MORPH) {
				if (!ch && k->frames) ch = k;
			} else if (s->nodes[k->node].camera >= 0) {
				camera = true;
			} else {
				skeletal = true;
			}
		}
		if (ch && a->frames_count)
			printf("  clip %s: frames %u..%u (%zu) at %g fps\n", a->name, ch->frames[0],
			       ch->frames[a->frames_count - 1], a->frames_count, (double)a->fps);
		else if (skeletal && !ch)
			printf("  animation %s: %zu frames at %g fps\n", a->name, a->frames_count,
			       (double)a->fps);
		(void)camera;
	}
	if (s->meshes_count > 1 || joints)
		for (size_t i = 0; i < s->meshes_count; i++)
			printf("  mesh %zu %s: %zu vertices, %zu triangles, %zu weights\n", i,
			       s->meshes[i].name, s->meshes[i].vertex_count, s->meshes[i].index_count / 3,
			       s->meshes[i].weights.count);
	if (s->nodes_count > 1) printf("  nodes %zu\n", s->nodes_count);
	if (joints) printf("  joints %zu in %zu skins\n", joints, s->skins_count);
	for (size_t i = 0; i < s->cameras_count; i++) {
		const gsio_animation *a = NULL;
		for (size_t k = 0; k < s->animations_count && !a; k++)
			for (size_t c = 0; c < s->animations[k].channels_count; c++)
				if (s->nodes[s->animations[k].channels[c].node].camera == (int32_t)i)
					a = &s->animations[k];
		printf("  camera %s: %zu frames at %g fps, %zu cuts\n", s->cameras[i].name,
		       a ? a->frames_count : 0, a ? (double)a->fps : 0.0, a ? a->cuts_count : 0);
	}
	if (s->lights_count) printf("  lights %zu\n", s->lights_count);
	if (s->terrain)
		printf("  terrain %u x %u vertices, cell %g x %g\n", s->terrain->columns, s->terrain->rows,
		       (double)s->terrain->cell_x, (double)s->terrain->cell_y);
	// Levels: elements per kind, the files the level names.
	size_t counts[GSIO_RECORD_ELEMENT_KINDS];
	if (gsio_record_element_counts(s, counts)) {
		printf("  elements:");
		for (size_t k = 0, any = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++)
			if (counts[k]) printf("%s %s %zu", any++ ? "," : "", gsio_record_element_kinds[k], counts[k]);
		printf("\n");
	}
	for (size_t i = 0; i < s->extras.count; i++) {
		const gsio_extra *e = &s->extras.items[i];
		char kind[32];
		const char *name;
		if (!gsio_record_file_ref(e, kind, sizeof(kind), &name)) continue;
		printf("  file %s %s: %s\n", kind, name, e->s[0] ? e->s : "not found");
	}
	for (size_t i = 0; i < s->warnings_count; i++) printf("  warning: %s\n", s->warnings[i]);
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
	bool json = false;
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
			if (!gsio_inputs_add(&in, a, gsio_cli_have_assimp())) {
				fprintf(stderr, "gsio info: out of memory\n");
				gsio_inputs_free(&in);
				free(paths);
				return 1;
			}
		}
	}
	lo.search_paths_count = paths_count;
	if (!ninputs) {
		fprintf(stderr, "gsio info: no INPUT given\n");
		fprintf(stderr, "usage: gsio info [--json] [--path DIR]... [--] INPUT...   (see gsio info --help)\n");
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
			print_text(path, s);
		}
		gsio_scene_free(s);
	}
	gsio_inputs_free(&in);
	free(paths);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
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
