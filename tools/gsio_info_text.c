/* `gsio info`'s text: what a file holds, counted as its record counts it
 * (gsio_record.h). By default a summary whose length does not grow with the
 * file: long lists stop with a line saying how many more there are, and a
 * level says what it places by file, with how many times each, instead of
 * every image, clip and mesh of its placed models. `verbose` lists all. */
#include "gsio_cli.h"
#include "gsio_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
	LIST_MAX = 16, // entries of a list (skins, clips, meshes, files) without --verbose
	WARN_MAX = 10, // warnings printed without --verbose
	WRAP_COLUMNS = 100,
};

static const char more_hint[] = "(--verbose lists them)";

// -- Lists

/* Items printed as lines of at most WRAP_COLUMNS columns, each line
 * indented by 4; without verbose, LIST_MAX items at most. */
typedef struct wrapped {
	bool verbose;
	size_t col, shown, total;
} wrapped;

/** Prints one item; false when the list is full (the item is not printed). */
static bool wrap_item(wrapped *w, const char *text)
{
	size_t len = strlen(text);
	if (!w->verbose && w->shown == LIST_MAX && w->total > LIST_MAX + 1) return false;
	if (w->col && w->col + 2 + len > WRAP_COLUMNS) {
		printf(",\n");
		w->col = 0;
	}
	if (!w->col) {
		printf("    %s", text);
		w->col = 4 + len;
	} else {
		printf(", %s", text);
		w->col += 2 + len;
	}
	w->shown++;
	return true;
}

/** Ends the list: what was left out is counted. */
static void wrap_end(wrapped *w)
{
	if (w->shown < w->total) printf("%s... %zu more %s", w->shown ? ", " : "    ", w->total - w->shown, more_hint);
	if (w->shown || w->total) printf("\n");
}

/** Whether item i of a list of n is printed; prints the "more" line at the
 *  first one left out. */
static bool list_shows(bool verbose, size_t i, size_t n, const char *what)
{
	if (verbose || i < LIST_MAX || n <= LIST_MAX + 1) return true;
	if (i == LIST_MAX) printf("  ... %zu more %s %s\n", n - LIST_MAX, what, more_hint);
	return false;
}

// -- Counts

/** How many elements of kind `name` a level holds. */
static size_t kind_count(const size_t *kinds, const char *name)
{
	for (size_t k = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++)
		if (!strcmp(gsio_record_element_kinds[k], name)) return kinds[k];
	return 0;
}

static void print_counts(const gsio_scene *s, const gsio_record_counts *n, const size_t *kinds)
{
	size_t blocks = kind_count(kinds, "block");
	if (n->level)
		printf("  level geometry: %zu block%s, %zu vertices, %zu triangles\n", blocks,
		       blocks == 1 ? "" : "s", s->source.vertices, s->source.triangles);
	else
		printf("  vertices %zu, triangles %zu, skin vertices %zu, welded vertices %zu\n",
		       s->source.vertices, s->source.triangles, s->source.uvs, n->welded_vertices);
	char note[256];
	if (gsio_record_triangles_note(s, n, note, sizeof(note)))
		printf("  triangles written %zu: %s\n", n->triangles_written, note);
}

static void print_images(const gsio_scene *s, bool verbose)
{
	for (size_t i = 0; i < s->images_count; i++) {
		if (!list_shows(verbose, i, s->images_count, "images")) break;
		const gsio_image *im = &s->images[i];
		if (im->source_path)
			printf("  image %zu: %u x %u, from %s\n", i, im->width, im->height, im->source_path);
		else
			printf("  skin %zu: type %d, %u x %u%s\n", i, (int)im->source_type, im->width,
			       im->height, im->source_mip_count ? ", with mips" : "");
	}
}

/* The file's frames: a vertex-animated file's names (a long list cut in
 * the middle; --json has every name), else how many and of which kind. */
static void print_frames(const gsio_scene *s, const gsio_record_counts *n)
{
	const gsio_mesh *m = n->names_mesh >= 0 ? &s->meshes[n->names_mesh] : NULL;
	if (m && !n->skeletal_frames) {
		size_t nf = m->frames_count;
		printf("  frames %zu:", n->frames ? n->frames : nf);
		for (size_t i = 0; i < nf; i++) {
			if (nf > 12 && i == 6) {
				printf(" ...");
				i = nf - 4;
			}
			printf(" %s", m->frames[i].name && m->frames[i].name[0] ? m->frames[i].name : "\"\"");
		}
		printf("\n");
	} else if (n->frames || n->skeletal_frames) {
		size_t f = n->frames ? n->frames : n->skeletal_frames;
		printf("  frames %zu%s\n", f,
		       n->skeletal_frames && n->vertex_frames ? " (skeletal and vertex)"
		       : n->skeletal_frames                   ? " (skeletal)"
		                                              : "");
	}
}

/** Vertex-animation clips and skeletal animations, one line each. */
static void print_animations(const gsio_scene *s, bool verbose)
{
	for (size_t i = 0; i < s->animations_count; i++) {
		if (!list_shows(verbose, i, s->animations_count, "clips and animations")) break;
		const gsio_animation *a = &s->animations[i];
		const gsio_channel *ch = NULL;
		bool skeletal = false;
		for (size_t c = 0; c < a->channels_count; c++) {
			const gsio_channel *k = &a->channels[c];
			if (k->path == GSIO_PATH_MORPH) {
				if (!ch && k->frames) ch = k;
			} else if (s->nodes[k->node].camera < 0) {
				skeletal = true;
			}
		}
		if (ch && a->frames_count)
			printf("  clip %s: frames %u..%u (%zu) at %g fps\n", a->name, ch->frames[0],
			       ch->frames[a->frames_count - 1], a->frames_count, (double)a->fps);
		else if (skeletal && !ch)
			printf("  animation %s: %zu frames at %g fps\n", a->name, a->frames_count,
			       (double)a->fps);
	}
}

static size_t joints_of(const gsio_scene *s)
{
	size_t joints = 0;
	for (size_t i = 0; i < s->skins_count; i++) joints += s->skins[i].joints_count;
	return joints;
}

static void print_meshes(const gsio_scene *s, bool verbose)
{
	if (s->meshes_count <= 1 && !joints_of(s)) return;
	for (size_t i = 0; i < s->meshes_count; i++) {
		if (!list_shows(verbose, i, s->meshes_count, "meshes")) break;
		printf("  mesh %zu %s: %zu vertices, %zu triangles, %zu weights\n", i, s->meshes[i].name,
		       s->meshes[i].vertex_count, s->meshes[i].index_count / 3, s->meshes[i].weights.count);
	}
}

static void print_cameras(const gsio_scene *s)
{
	for (size_t i = 0; i < s->cameras_count; i++) {
		const gsio_animation *a = NULL;
		for (size_t k = 0; k < s->animations_count && !a; k++)
			for (size_t c = 0; c < s->animations[k].channels_count; c++)
				if (s->nodes[s->animations[k].channels[c].node].camera == (int32_t)i)
					a = &s->animations[k];
		printf("  camera %s: %zu frames at %g fps, %zu cuts\n", s->cameras[i].name,
		       a ? a->frames_count : 0, a ? (double)a->fps : 0.0, a ? a->cuts_count : 0);
	}
}

/** Nodes, joints, cameras, lights, the terrain grid. */
static void print_structure(const gsio_scene *s)
{
	size_t joints = joints_of(s);
	if (s->nodes_count > 1) printf("  nodes %zu\n", s->nodes_count);
	if (joints) printf("  joints %zu in %zu skins\n", joints, s->skins_count);
	print_cameras(s);
	if (s->lights_count) printf("  lights %zu\n", s->lights_count);
	if (s->terrain)
		printf("  terrain %u x %u vertices, cell %g x %g\n", s->terrain->columns, s->terrain->rows,
		       (double)s->terrain->cell_x, (double)s->terrain->cell_y);
}

// -- Levels

/* The names of the files a level names and that were not found, sorted
 * (case-insensitively) for bsearch: a placed file is marked by a look-up. */
typedef struct missing {
	const char **names;
	size_t count;
} missing;

static int cmp_name(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

static void missing_make(const gsio_scene *s, missing *m)
{
	m->count = 0;
	m->names = malloc((s->extras.count + 1) * sizeof(*m->names));
	for (size_t i = 0; m->names && i < s->extras.count; i++) {
		char kind[32];
		const char *name;
		const gsio_extra *e = &s->extras.items[i];
		if (gsio_record_file_ref(e, kind, sizeof(kind), &name) && !e->s[0] &&
		    (!strcmp(kind, "model") || !strcmp(kind, "entity") || !strcmp(kind, "sprite")))
			m->names[m->count++] = name;
	}
	if (m->count) qsort(m->names, m->count, sizeof(*m->names), cmp_name);
}

static bool missing_has(const missing *m, const char *name)
{
	return m->count && bsearch(&name, m->names, m->count, sizeof(*m->names), cmp_name);
}

static void print_elements(const size_t *kinds)
{
	printf("  elements:");
	for (size_t k = 0, any = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++)
		if (kinds[k]) printf("%s %s %zu", any++ ? "," : "", gsio_record_element_kinds[k], kinds[k]);
	printf("\n");
}

/* "models placed 43 times, from 14 files:" and the files by how many times
 * each is placed (most first; ties in order of first placement). */
static int cmp_most(const void *pa, const void *pb)
{
	const gsio_record_placed *a = pa, *b = pb;
	if (a->count != b->count) return a->count < b->count ? 1 : -1;
	return (a->first > b->first) - (a->first < b->first);
}

static void print_placed_kind(gsio_record_placed *pl, size_t np, const char *kind, const missing *m,
                              bool verbose)
{
	size_t files = 0, times = 0;
	for (size_t i = 0; i < np; i++)
		if (!strcmp(pl[i].kind, kind)) files++, times += pl[i].count;
	if (!files) return;
	printf("  %ss placed %zu time%s, from %zu file%s:\n", kind, times, times == 1 ? "" : "s", files,
	       files == 1 ? "" : "s");
	wrapped w = {verbose, 0, 0, files};
	for (size_t i = 0; i < np; i++) {
		if (strcmp(pl[i].kind, kind)) continue;
		char item[400];
		snprintf(item, sizeof(item), "%s x%zu%s", pl[i].name[0] ? pl[i].name : "\"\"", pl[i].count,
		         missing_has(m, pl[i].name) ? " (not found)" : "");
		if (!wrap_item(&w, item)) break;
	}
	wrap_end(&w);
}

static void print_placed(const gsio_scene *s, const missing *m, bool verbose)
{
	size_t np;
	gsio_record_placed *pl = gsio_record_placed_list(s, &np);
	if (!pl) {
		if (np) printf("  (placed files not listed: out of memory)\n");
		return;
	}
	qsort(pl, np, sizeof(*pl), cmp_most);
	print_placed_kind(pl, np, "model", m, verbose);
	print_placed_kind(pl, np, "sprite", m, verbose);
	free(pl);
}

/** "files named 17: 15 found, 2 not found:" and the ones not found. */
static void print_files_summary(const gsio_scene *s, bool verbose)
{
	size_t named = 0, lost = 0;
	for (size_t i = 0; i < s->extras.count; i++) {
		char kind[32];
		const char *name;
		if (!gsio_record_file_ref(&s->extras.items[i], kind, sizeof(kind), &name)) continue;
		named++;
		lost += !s->extras.items[i].s[0];
	}
	if (!named) return;
	printf("  files named %zu: %zu found, %zu not found%s\n", named, named - lost, lost, lost ? ":" : "");
	wrapped w = {verbose, 0, 0, lost};
	for (size_t i = 0; i < s->extras.count && lost; i++) {
		char kind[32], item[400];
		const char *name;
		const gsio_extra *e = &s->extras.items[i];
		if (!gsio_record_file_ref(e, kind, sizeof(kind), &name) || e->s[0]) continue;
		snprintf(item, sizeof(item), "%s %s", kind, name);
		if (!wrap_item(&w, item)) break;
	}
	wrap_end(&w);
}

static void print_file_lines(const gsio_scene *s)
{
	for (size_t i = 0; i < s->extras.count; i++) {
		const gsio_extra *e = &s->extras.items[i];
		char kind[32];
		const char *name;
		if (!gsio_record_file_ref(e, kind, sizeof(kind), &name)) continue;
		printf("  file %s %s: %s\n", kind, name, e->s[0] ? e->s : "not found");
	}
}

/* A level: its own geometry, its elements, what it places and the files it
 * names; with verbose also everything its placed models bring (images,
 * clips, meshes, joints) and a line per file. */
static void print_level(const gsio_scene *s, const size_t *kinds, bool verbose)
{
	// A compiled level's own lists (the WMB importer's scene extras).
	static const char *const compiled[][2] = {
	    {"wmb:compiled", "compiled"}, {"wmb:lists", "lists"}, {"wmb:textures", "textures"}};
	for (size_t i = 0; i < sizeof(compiled) / sizeof(compiled[0]); i++) {
		const gsio_extra *e = gsio_extras_get(&s->extras, compiled[i][0]);
		if (e && e->type == GSIO_EXTRA_STRING) printf("  %s: %s\n", compiled[i][1], e->s);
	}
	print_elements(kinds);
	missing m;
	missing_make(s, &m);
	print_placed(s, &m, verbose);
	free(m.names);
	print_files_summary(s, verbose);
	if (!verbose) return;
	print_images(s, true);
	print_animations(s, true);
	print_meshes(s, true);
	print_structure(s);
	print_file_lines(s);
}

// -- Warnings

static void print_warnings(const gsio_scene *s, bool verbose)
{
	for (size_t i = 0; i < s->warnings_count; i++) {
		if (!verbose && i == WARN_MAX && s->warnings_count > WARN_MAX + 1) {
			printf("  ... %zu more warnings (--verbose lists every one)\n", s->warnings_count - WARN_MAX);
			break;
		}
		printf("  warning: %s\n", s->warnings[i]);
	}
}

void gsio_info_print(const char *path, const gsio_scene *s, bool verbose)
{
	printf("%s: %s (version %d)\n", path, s->format ? s->format : "scene", (int)s->format_version);
	gsio_record_counts n;
	gsio_record_count(s, &n);
	size_t kinds[GSIO_RECORD_ELEMENT_KINDS];
	gsio_record_element_counts(s, kinds);
	print_counts(s, &n, kinds);
	if (n.level) {
		print_level(s, kinds, verbose);
	} else {
		print_images(s, verbose);
		print_frames(s, &n);
		print_animations(s, verbose);
		print_meshes(s, verbose);
		print_structure(s);
	}
	print_warnings(s, verbose);
}
