/* gsio: the command that fronts the library. `gsio info [--json] FILE...` */
#include "gsio.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: gsio info [--json] [--path DIR]... FILE...\n"
	        "       gsio --version | --help\n"
	        "\n"
	        "info    print what each file holds: format and version, vertices, triangles,\n"
	        "        skin vertices, welded vertices, skins (type code, size), frames and\n"
	        "        their names, clips, meshes, nodes, joints, animations, cameras,\n"
	        "        lights, warnings.\n"
	        "        --json prints one JSON object per file, one per line.\n"
	        "        --path DIR (repeatable): for .wmp levels, a folder searched after the\n"
	        "        level's own for the WADs and models it names; levels also list their\n"
	        "        elements per kind, and warnings name every file not found.\n"
	        "\n"
	        "Exit status: 0 when every file was read, 1 when any failed, 2 on a usage error.\n");
}

// -- What a scene holds, in the terms `info` reports

/** The first channel of animation a with this path, or NULL. */
static const gsio_channel *find_channel(const gsio_animation *a, gsio_channel_path path)
{
	for (size_t c = 0; c < a->channels_count; c++)
		if (a->channels[c].path == path) return &a->channels[c];
	return NULL;
}

/** A clip: a vertex animation (one with a MORPH channel keyed by frames). */
static const gsio_channel *clip_channel(const gsio_animation *a)
{
	const gsio_channel *ch = find_channel(a, GSIO_PATH_MORPH);
	return ch && ch->frames ? ch : NULL;
}

static bool is_camera_node(const gsio_scene *s, int32_t node)
{
	return node >= 0 && (size_t)node < s->nodes_count && s->nodes[node].camera >= 0;
}

/** A skeletal animation: no MORPH channel, and not only moving cameras. */
static bool is_skeletal(const gsio_scene *s, const gsio_animation *a)
{
	if (find_channel(a, GSIO_PATH_MORPH)) return false;
	for (size_t c = 0; c < a->channels_count; c++)
		if (!is_camera_node(s, a->channels[c].node)) return true;
	return false;
}

/** The animation that moves camera i's node (or its fov), NULL if none. */
static const gsio_animation *camera_animation(const gsio_scene *s, size_t cam)
{
	for (size_t a = 0; a < s->animations_count; a++)
		for (size_t c = 0; c < s->animations[a].channels_count; c++) {
			int32_t n = s->animations[a].channels[c].node;
			if (n >= 0 && (size_t)n < s->nodes_count && s->nodes[n].camera == (int32_t)cam)
				return &s->animations[a];
		}
	return NULL;
}

static size_t joints_total(const gsio_scene *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->skins_count; i++) n += s->skins[i].joints_count;
	return n;
}

static int32_t mesh_material(const gsio_mesh *m)
{
	return m->parts_count ? m->parts[0].material : -1;
}

// -- Output

static cJSON *scene_json(const char *path, const gsio_scene *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", path);
	cJSON_AddStringToObject(o, "status", "ok");
	cJSON_AddStringToObject(o, "format", s->format ? s->format : "");
	cJSON_AddNumberToObject(o, "version", s->format_version);
	cJSON_AddNumberToObject(o, "vertices", (double)s->source.vertices);
	cJSON_AddNumberToObject(o, "triangles", (double)s->source.triangles);
	cJSON_AddNumberToObject(o, "skin_vertices", (double)s->source.uvs);
	size_t welded = 0;
	for (size_t i = 0; i < s->meshes_count; i++) welded += s->meshes[i].vertex_count;
	cJSON_AddNumberToObject(o, "welded_vertices", (double)welded);
	cJSON *skins = cJSON_AddArrayToObject(o, "skins");
	for (size_t i = 0; i < s->images_count; i++) {
		const gsio_image *im = &s->images[i];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddStringToObject(k, "name", im->name ? im->name : "");
		cJSON_AddNumberToObject(k, "type", im->source_type);
		cJSON_AddNumberToObject(k, "width", im->width);
		cJSON_AddNumberToObject(k, "height", im->height);
		cJSON_AddNumberToObject(k, "mips", im->source_mip_count);
		if (im->source_path) cJSON_AddStringToObject(k, "path", im->source_path);
		cJSON_AddItemToArray(skins, k);
	}
	size_t nframes = s->meshes_count ? s->meshes[0].frames_count : 0;
	cJSON_AddNumberToObject(o, "frames", (double)nframes);
	cJSON *names = cJSON_AddArrayToObject(o, "frame_names");
	for (size_t i = 0; i < nframes; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(s->meshes[0].frames[i].name));
	cJSON *clips = cJSON_AddArrayToObject(o, "clips");
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *a = &s->animations[i];
		const gsio_channel *ch = clip_channel(a);
		if (!ch) continue;
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "name", a->name ? a->name : "");
		cJSON_AddNumberToObject(c, "first_frame", a->frames_count ? (double)ch->frames[0] : 0);
		cJSON_AddNumberToObject(c, "frames", (double)a->frames_count);
		cJSON_AddNumberToObject(c, "fps", a->fps);
		cJSON_AddItemToArray(clips, c);
	}
	cJSON *meshes = cJSON_AddArrayToObject(o, "meshes");
	for (size_t i = 0; i < s->meshes_count; i++) {
		const gsio_mesh *m = &s->meshes[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", m->name ? m->name : "");
		cJSON_AddNumberToObject(j, "vertices", (double)m->vertex_count);
		cJSON_AddNumberToObject(j, "triangles", (double)(m->index_count / 3));
		cJSON_AddNumberToObject(j, "material", mesh_material(m));
		cJSON_AddNumberToObject(j, "weights", (double)m->weights.count);
		cJSON *bmin = cJSON_CreateFloatArray(m->bbox_min, 3);
		cJSON *bmax = cJSON_CreateFloatArray(m->bbox_max, 3);
		cJSON_AddItemToObject(j, "bbox_min", bmin);
		cJSON_AddItemToObject(j, "bbox_max", bmax);
		cJSON_AddItemToArray(meshes, j);
	}
	cJSON_AddNumberToObject(o, "nodes", (double)s->nodes_count);
	cJSON_AddNumberToObject(o, "joints", (double)joints_total(s));
	cJSON *anims = cJSON_AddArrayToObject(o, "animations");
	for (size_t i = 0; i < s->animations_count; i++) {
		if (!is_skeletal(s, &s->animations[i])) continue;
		cJSON *a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "name", s->animations[i].name ? s->animations[i].name : "");
		cJSON_AddNumberToObject(a, "frames", (double)s->animations[i].frames_count);
		cJSON_AddNumberToObject(a, "fps", s->animations[i].fps);
		cJSON_AddItemToArray(anims, a);
	}
	cJSON *cams = cJSON_AddArrayToObject(o, "cameras");
	for (size_t i = 0; i < s->cameras_count; i++) {
		cJSON *c = cJSON_CreateObject();
		const gsio_animation *a = camera_animation(s, i);
		cJSON_AddStringToObject(c, "name", s->cameras[i].name ? s->cameras[i].name : "");
		cJSON_AddNumberToObject(c, "frames", a ? (double)a->frames_count : 0);
		cJSON_AddNumberToObject(c, "fps", a ? a->fps : 0);
		cJSON_AddNumberToObject(c, "cuts", a ? (double)a->cuts_count : 0);
		cJSON_AddItemToArray(cams, c);
	}
	cJSON_AddNumberToObject(o, "lights", (double)s->lights_count);
	if (s->terrain) {
		cJSON *t = cJSON_AddObjectToObject(o, "terrain");
		cJSON_AddNumberToObject(t, "columns", s->terrain->columns);
		cJSON_AddNumberToObject(t, "rows", s->terrain->rows);
		cJSON_AddNumberToObject(t, "cell_x", s->terrain->cell_x);
		cJSON_AddNumberToObject(t, "cell_y", s->terrain->cell_y);
	}
	cJSON *warn = cJSON_AddArrayToObject(o, "warnings");
	for (size_t i = 0; i < s->warnings_count; i++)
		cJSON_AddItemToArray(warn, cJSON_CreateString(s->warnings[i]));
	return o;
}

static void print_text(const char *path, const gsio_scene *s)
{
	printf("%s: %s (version %d)\n", path, s->format, (int)s->format_version);
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
	for (size_t i = 0; i < s->animations_count; i++) {
		const gsio_animation *a = &s->animations[i];
		const gsio_channel *ch = clip_channel(a);
		if (!ch || !a->frames_count) continue;
		printf("  clip %s: frames %u..%u (%zu) at %g fps\n", a->name, ch->frames[0],
		       ch->frames[a->frames_count - 1], a->frames_count, (double)a->fps);
	}
	size_t joints = joints_total(s);
	if (s->meshes_count > 1 || joints)
		for (size_t i = 0; i < s->meshes_count; i++)
			printf("  mesh %zu %s: %zu vertices, %zu triangles, %zu weights\n", i,
			       s->meshes[i].name, s->meshes[i].vertex_count, s->meshes[i].index_count / 3,
			       s->meshes[i].weights.count);
	if (s->nodes_count > 1) printf("  nodes %zu\n", s->nodes_count);
	if (joints) printf("  joints %zu in %zu skins\n", joints, s->skins_count);
	for (size_t i = 0; i < s->animations_count; i++)
		if (is_skeletal(s, &s->animations[i]))
			printf("  animation %s: %zu frames at %g fps\n", s->animations[i].name,
			       s->animations[i].frames_count, (double)s->animations[i].fps);
	for (size_t i = 0; i < s->cameras_count; i++) {
		const gsio_animation *a = camera_animation(s, i);
		printf("  camera %s: %zu frames at %g fps, %zu cuts\n", s->cameras[i].name,
		       a ? a->frames_count : 0, a ? (double)a->fps : 0.0, a ? a->cuts_count : 0);
	}
	if (s->lights_count) printf("  lights %zu\n", s->lights_count);
	if (s->terrain)
		printf("  terrain %u x %u vertices, cell %g x %g\n", s->terrain->columns, s->terrain->rows,
		       (double)s->terrain->cell_x, (double)s->terrain->cell_y);
	// Levels: how many of each element kind (the nodes' "wmp:element").
	static const char *const kinds[] = {"level", "block", "model", "sprite", "light",
	                                    "start", "sound", "path", "region"};
	int any = 0;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t n = 0;
		for (size_t i = 0; i < s->nodes_count; i++) {
			const gsio_extra *e = gsio_extras_get(&s->nodes[i].extras, "wmp:element");
			n += e && e->type == GSIO_EXTRA_STRING && !strcmp(e->s, kinds[k]);
		}
		if (n) printf("%s%s %zu", any++ ? ", " : "  elements: ", kinds[k], n);
	}
	if (any) printf("\n");
	for (size_t i = 0; i < s->warnings_count; i++) printf("  warning: %s\n", s->warnings[i]);
}

static int cmd_info(int argc, char **argv)
{
	int json = 0, files = 0, failed = 0;
	// --path DIR (repeatable): folders a level's WADs and models are looked
	// for in, after the level's own. Pointers into argv; at most argc.
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	size_t paths_count = 0;
	if (!paths) return 1;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) json = 1;
		else if (!strcmp(argv[i], "--path") && i + 1 < argc) paths[paths_count++] = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			free(paths);
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "gsio info: unknown option %s\n", argv[i]);
			free(paths);
			return 2;
		}
	}
	gsio_opts lo;
	memset(&lo, 0, sizeof(lo));
	lo.search_paths = paths;
	lo.search_paths_count = paths_count;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) continue;
		if (!strcmp(argv[i], "--path")) {
			i++;
			continue;
		}
		files++;
		gsio_error err;
		gsio_scene *s = gsio_load_file(argv[i], &lo, &err);
		if (!s) {
			failed++;
			char msg[1024];
			gsio_error_format(&err, msg, sizeof(msg));
			if (json) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "file", argv[i]);
				cJSON_AddStringToObject(o, "status", "error");
				cJSON *e = cJSON_AddObjectToObject(o, "error");
				cJSON_AddStringToObject(e, "code", gsio_error_code_name(err.code));
				cJSON_AddStringToObject(e, "message", err.message);
				if (err.offset >= 0) cJSON_AddNumberToObject(e, "offset", (double)err.offset);
				if (err.line > 0) cJSON_AddNumberToObject(e, "line", err.line);
				if (err.column > 0) cJSON_AddNumberToObject(e, "column", err.column);
				cJSON_AddStringToObject(e, "text", msg);
				char *t = cJSON_PrintUnformatted(o);
				puts(t);
				free(t);
				cJSON_Delete(o);
			}
			fprintf(stderr, "gsio: %s\n", msg);
			continue;
		}
		if (json) {
			cJSON *o = scene_json(argv[i], s);
			char *t = cJSON_PrintUnformatted(o);
			puts(t);
			free(t);
			cJSON_Delete(o);
		} else {
			print_text(argv[i], s);
		}
		gsio_scene_free(s);
	}
	if (!files) {
		fprintf(stderr, "gsio info: no FILE given\n");
		usage(stderr);
		free(paths);
		return 2;
	}
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
	fprintf(stderr, "gsio: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
