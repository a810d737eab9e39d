/* The JSON record of one input (gsio_record.h). */
#include "gsio_record.h"
#include "gsioi_place.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// -- What a scene holds, in the record's terms

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

/** The element kind a level's node carries ("wmp:element"), or NULL. */
static const char *element_of(const gsio_node *n)
{
	const gsio_extra *e = gsio_extras_get(&n->extras, "wmp:element");
	return e && e->type == GSIO_EXTRA_STRING ? e->s : NULL;
}

/** Adds mesh mi to the counts of the file's own meshes. */
static void count_mesh(const gsio_scene *s, size_t mi, gsio_record_counts *c)
{
	const gsio_mesh *m = &s->meshes[mi];
	c->welded_vertices += m->vertex_count;
	c->triangles_written += m->index_count / 3;
	const gsio_extra *x = gsio_extras_get(&m->extras, "gsio:double_sided_pairs");
	if (x && x->type == GSIO_EXTRA_INT && x->i > 0) c->double_sided_pairs += (size_t)x->i;
	if (m->frames_count && (c->names_mesh < 0 || m->frames_count > s->meshes[c->names_mesh].frames_count))
		c->names_mesh = (int64_t)mi;
}

void gsio_record_count(const gsio_scene *s, gsio_record_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->names_mesh = -1;
	c->frames = s->source.frames;
	size_t kinds[GSIO_RECORD_ELEMENT_KINDS];
	c->level = gsio_record_element_counts(s, kinds);
	if (c->level) {
		// A block's node places its mesh; every other mesh is a placed
		// model's or a sprite's.
		for (size_t i = 0; i < s->nodes_count; i++) {
			const char *k = element_of(&s->nodes[i]);
			int32_t mi = s->nodes[i].mesh;
			if (k && !strcmp(k, "block") && mi >= 0 && (size_t)mi < s->meshes_count)
				count_mesh(s, (size_t)mi, c);
		}
		return; // the animations are the placed models'
	}
	for (size_t i = 0; i < s->meshes_count; i++) count_mesh(s, i, c);
	if (c->names_mesh >= 0 && s->meshes[c->names_mesh].frames_count >= 2)
		c->vertex_frames = s->meshes[c->names_mesh].frames_count;
	for (size_t i = 0; i < s->animations_count; i++)
		if (is_skeletal(s, &s->animations[i])) c->skeletal_frames += s->animations[i].frames_count;
}

bool gsio_record_triangles_note(const gsio_scene *s, const gsio_record_counts *c, char *buf,
                                size_t size)
{
	size_t stored = s->source.triangles, written = c->triangles_written, pairs = c->double_sided_pairs;
	buf[0] = 0;
	if (stored == written) return false;
	size_t len = 0;
	if (!s->format) {
		snprintf(buf, size, "the source's own counts are not known");
		return true;
	}
	if (pairs && stored >= written + pairs)
		len = (size_t)snprintf(buf, size, "%zu %s stored twice, once each way round, %s written "
		                                  "once, double-sided", pairs, pairs == 1 ? "face" : "faces",
		                       pairs == 1 ? "is" : "are");
	size_t rest = stored >= written + pairs ? stored - written - pairs : 0;
	if (len < size && rest)
		snprintf(buf + len, size - len, "%s%zu %s not written (see the warnings)", len ? "; " : "",
		         rest, rest == 1 ? "is" : "are");
	else if (!len)
		snprintf(buf, size, "%zu more written than stored", written > stored ? written - stored : 0);
	return true;
}

cJSON *gsio_record_scene(const gsio_scene *s)
{
	gsio_record_counts n;
	gsio_record_count(s, &n);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "format", s->format ? s->format : "");
	cJSON_AddNumberToObject(o, "version", s->format_version);
	cJSON_AddNumberToObject(o, "vertices", (double)s->source.vertices);
	cJSON_AddNumberToObject(o, "triangles", (double)s->source.triangles);
	cJSON_AddNumberToObject(o, "triangles_written", (double)n.triangles_written);
	char note[256];
	if (gsio_record_triangles_note(s, &n, note, sizeof(note)))
		cJSON_AddStringToObject(o, "triangles_note", note);
	else
		cJSON_AddNullToObject(o, "triangles_note");
	cJSON_AddNumberToObject(o, "skin_vertices", (double)s->source.uvs);
	cJSON_AddNumberToObject(o, "welded_vertices", (double)n.welded_vertices);
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
	cJSON_AddNumberToObject(o, "frames", (double)n.frames);
	cJSON_AddNumberToObject(o, "vertex_frames", (double)n.vertex_frames);
	cJSON_AddNumberToObject(o, "skeletal_frames", (double)n.skeletal_frames);
	cJSON *names = cJSON_AddArrayToObject(o, "frame_names");
	const gsio_mesh *fm = n.names_mesh >= 0 ? &s->meshes[n.names_mesh] : NULL;
	for (size_t i = 0; fm && i < fm->frames_count; i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(fm->frames[i].name ? fm->frames[i].name : ""));
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
		cJSON_AddNumberToObject(j, "material", m->parts_count ? m->parts[0].material : -1);
		cJSON_AddNumberToObject(j, "weights", (double)m->weights.count);
		cJSON_AddItemToObject(j, "bbox_min", cJSON_CreateFloatArray(m->bbox_min, 3));
		cJSON_AddItemToObject(j, "bbox_max", cJSON_CreateFloatArray(m->bbox_max, 3));
		cJSON_AddItemToArray(meshes, j);
	}
	cJSON_AddNumberToObject(o, "nodes", (double)s->nodes_count);
	size_t joints = 0;
	for (size_t i = 0; i < s->skins_count; i++) joints += s->skins[i].joints_count;
	cJSON_AddNumberToObject(o, "joints", (double)joints);
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
	size_t counts[GSIO_RECORD_ELEMENT_KINDS];
	if (gsio_record_element_counts(s, counts)) {
		cJSON *el = cJSON_AddObjectToObject(o, "elements");
		for (size_t k = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++)
			cJSON_AddNumberToObject(el, gsio_record_element_kinds[k], (double)counts[k]);
		cJSON *placed = cJSON_AddArrayToObject(o, "placed");
		size_t np;
		gsio_record_placed *pl = gsio_record_placed_list(s, &np);
		for (size_t i = 0; pl && i < np; i++) {
			cJSON *p = cJSON_CreateObject();
			cJSON_AddStringToObject(p, "kind", pl[i].kind);
			cJSON_AddStringToObject(p, "name", pl[i].name);
			cJSON_AddNumberToObject(p, "count", (double)pl[i].count);
			cJSON_AddItemToArray(placed, p);
		}
		free(pl);
		cJSON *files = cJSON_AddArrayToObject(o, "files");
		for (size_t i = 0; i < s->extras.count; i++) {
			const gsio_extra *e = &s->extras.items[i];
			char kind[32];
			const char *name;
			if (!gsio_record_file_ref(e, kind, sizeof(kind), &name)) continue;
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "kind", kind);
			cJSON_AddStringToObject(f, "name", name);
			cJSON_AddBoolToObject(f, "found", e->s[0] != 0);
			if (e->s[0]) cJSON_AddStringToObject(f, "path", e->s);
			else cJSON_AddNullToObject(f, "path");
			cJSON_AddItemToArray(files, f);
		}
	}
	return o;
}

// -- Levels

const char *const gsio_record_element_kinds[GSIO_RECORD_ELEMENT_KINDS] = {
    "level", "block", "model", "sprite", "light", "start", "sound", "path", "region"};

bool gsio_record_element_counts(const gsio_scene *s, size_t counts[GSIO_RECORD_ELEMENT_KINDS])
{
	bool any = false;
	for (size_t k = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++) counts[k] = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const gsio_extra *e = gsio_extras_get(&s->nodes[i].extras, "wmp:element");
		if (!e || e->type != GSIO_EXTRA_STRING || !e->s) continue;
		for (size_t k = 0; k < GSIO_RECORD_ELEMENT_KINDS; k++)
			if (!strcmp(e->s, gsio_record_element_kinds[k])) counts[k]++, any = true;
	}
	return any;
}

/** A stored file name's base name (after the last '/' or '\\'). */
static const char *base_name(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\') b = p + 1;
	return b;
}

static int cmp_placed(const void *pa, const void *pb)
{
	const gsio_record_placed *a = pa, *b = pb;
	int k = strcmp(a->kind, b->kind);
	if (!k) k = strcasecmp(a->name, b->name);
	return k ? k : (a->first > b->first) - (a->first < b->first);
}

static int cmp_first(const void *pa, const void *pb)
{
	const gsio_record_placed *a = pa, *b = pb;
	return (a->first > b->first) - (a->first < b->first);
}

/* Grouped by sorting (a level may place thousands of things): each
 * placement an entry, sorted by kind, name and node, equal ones merged
 * into the first, the groups put back in order of first placement. */
gsio_record_placed *gsio_record_placed_list(const gsio_scene *s, size_t *count)
{
	size_t n = 0;
	*count = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const char *k = element_of(&s->nodes[i]);
		n += k && (!strcmp(k, "model") || !strcmp(k, "sprite"));
	}
	if (!n) return NULL;
	gsio_record_placed *p = malloc(n * sizeof(*p));
	if (!p) {
		*count = SIZE_MAX;
		return NULL;
	}
	n = 0;
	for (size_t i = 0; i < s->nodes_count; i++) {
		const char *k = element_of(&s->nodes[i]);
		if (!k || (strcmp(k, "model") && strcmp(k, "sprite"))) continue;
		const gsio_extra *f = gsio_extras_get(&s->nodes[i].extras, "wmp:file");
		const char *file = f && f->type == GSIO_EXTRA_STRING && f->s ? f->s : "";
		p[n++] = (gsio_record_placed){k, base_name(file), 1, i};
	}
	qsort(p, n, sizeof(*p), cmp_placed);
	size_t groups = 0;
	for (size_t i = 0; i < n; i++) {
		if (groups && !strcmp(p[groups - 1].kind, p[i].kind) && !strcasecmp(p[groups - 1].name, p[i].name))
			p[groups - 1].count++;
		else
			p[groups++] = p[i];
	}
	qsort(p, groups, sizeof(*p), cmp_first);
	*count = groups;
	return p;
}

bool gsio_record_file_ref(const gsio_extra *e, char *kind, size_t kind_size, const char **name)
{
	static const char prefix[] = "wmp:file:";
	if (e->type != GSIO_EXTRA_STRING || !e->s || strncmp(e->key, prefix, sizeof(prefix) - 1))
		return false;
	const char *k = e->key + sizeof(prefix) - 1, *colon = strchr(k, ':');
	if (!colon || (size_t)(colon - k) >= kind_size) return false;
	memcpy(kind, k, (size_t)(colon - k));
	kind[colon - k] = 0;
	*name = colon + 1;
	return true;
}

// -- The record

cJSON *gsio_record_new(const char *input, const char *output, const gsio_error *err,
                       cJSON *scene, const gsio_scene *s, char *const *more, size_t more_count,
                       double seconds)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "input", input);
	if (output)
		cJSON_AddStringToObject(r, "output", output);
	else
		cJSON_AddNullToObject(r, "output");
	bool failed = err && err->code != GSIO_OK;
	cJSON_AddStringToObject(r, "status", failed ? "error" : "ok");
	if (!failed) {
		cJSON_AddNullToObject(r, "error");
	} else {
		char text[1024];
		gsio_error_format(err, text, sizeof(text));
		cJSON *e = cJSON_AddObjectToObject(r, "error");
		cJSON_AddStringToObject(e, "code", gsio_error_code_name(err->code));
		cJSON_AddStringToObject(e, "message", err->message);
		cJSON_AddStringToObject(e, "file", err->file);
		if (err->offset >= 0)
			cJSON_AddNumberToObject(e, "offset", (double)err->offset);
		else
			cJSON_AddNullToObject(e, "offset");
		if (err->line > 0) {
			cJSON_AddNumberToObject(e, "line", err->line);
			cJSON_AddNumberToObject(e, "column", err->column);
		} else {
			cJSON_AddNullToObject(e, "line");
			cJSON_AddNullToObject(e, "column");
		}
		cJSON_AddStringToObject(e, "text", text);
	}
	if (scene) {
		// Move the scene's keys into the record, in order.
		cJSON *it = scene->child;
		while (it) {
			cJSON *next = it->next;
			cJSON_DetachItemViaPointer(scene, it);
			cJSON_AddItemToObject(r, it->string, it);
			it = next;
		}
		cJSON_Delete(scene);
	}
	cJSON *w = cJSON_AddArrayToObject(r, "warnings");
	for (size_t i = 0; s && i < s->warnings_count; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(s->warnings[i]));
	for (size_t i = 0; i < more_count; i++) cJSON_AddItemToArray(w, cJSON_CreateString(more[i]));
	cJSON_AddNumberToObject(r, "seconds", seconds);
	return r;
}

int gsio_record_write_file(const char *path, const cJSON *root)
{
	char *text = cJSON_Print(root);
	if (!text) return -1;
	size_t len = strlen(text);
	char *line = malloc(len + 2);
	int rc = -1;
	if (line) {
		memcpy(line, text, len);
		line[len] = '\n';
		// Temporary name beside it, then rename: a reader never sees half a report.
		gsioi_file_data f = {path, (const uint8_t *)line, len + 1};
		gsio_error err;
		rc = gsioi_place_files(&f, 1, false, &err) ? -1 : 0;
		free(line);
	}
	free(text);
	return rc;
}
