/* MD5 version 10 (id Tech 4 / Doom 3): .md5mesh, .md5anim, .md5camera.
 *
 * Grammar, in the order Doom 3's own loader expects it (keywords are
 * case-sensitive, whitespace and // or / * * / comments anywhere):
 *   MD5Version 10  commandline "..."
 *   mesh:   numJoints N  numMeshes M  joints { N x ( "name" parent ( pos ) ( quat ) ) }
 *           M x mesh { shader "..."  numverts V  V x ( vert i ( s t ) start count )
 *                      numtris T  T x ( tri i a b c )
 *                      numweights W  W x ( weight i joint bias ( pos ) ) }
 *   anim:   numFrames F  numJoints N  frameRate R  numAnimatedComponents C
 *           hierarchy { N x ( "name" parent flags start ) }
 *           bounds { F x ( ( min ) ( max ) ) }  baseframe { N x ( ( pos ) ( quat ) ) }
 *           F x frame i { C floats }
 *   camera: numFrames F  frameRate R  numCuts K  cuts { K x frame }
 *           camera { F x ( ( pos ) ( quat ) fov ) }
 * Nothing may follow the last block. vert/tri/weight indices may come in any
 * order (each exactly once, as Assimp allows); frame numbers must count up
 * from 0 (as Doom 3 demands). The format's facts: docs/FORMATS.md §9. */
#include "md5_internal.h"

#include "gsioi_tokenizer.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// -- Parsing helpers

typedef struct md5_parser {
	gsioi_tokenizer tok;
	gsio_arena *arena;
	gsio_error *err;
	const char *file;
} md5_parser;

// A UTF-8 byte order mark is not text: skip it.
size_t gsioi_md5_bom_size(const uint8_t *data, size_t size)
{
	return size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
}

static void parser_init(md5_parser *p, const uint8_t *data, size_t size, const char *file,
                        gsio_arena *arena, gsio_error *err)
{
	if (!data) {
		data = (const uint8_t *)"";
		size = 0;
	}
	size_t skip = gsioi_md5_bom_size(data, size);
	gsioi_tokenizer_init(&p->tok, (const char *)data + skip, size - skip, file, "{}()", err);
	p->arena = arena;
	p->err = err;
	p->file = file ? file : "";
}

static bool fail_at(md5_parser *p, const gsioi_token *at, gsio_error_code code, const char *msg)
{
	return gsioi_tok_fail(&p->tok, at, code, false, "%s", msg);
}

static bool parse_string(md5_parser *p, const char *what, const char **out)
{
	gsioi_token t;
	GSIO_CHECK(gsioi_tok_string(&p->tok, what, &t));
	GSIO_CHECK((*out = gsioi_arena_strndup(p->arena, t.text, t.len, p->err)));
	return true;
}

// `( f f f )` with n floats.
static bool parse_vec(md5_parser *p, float *out, size_t n, const char *what)
{
	GSIO_CHECK(gsioi_tok_expect_punct(&p->tok, '('));
	for (size_t i = 0; i < n; i++) GSIO_CHECK(gsioi_tok_float(&p->tok, what, &out[i]));
	return gsioi_tok_expect_punct(&p->tok, ')');
}

// `keyword count`, with the count checked against what the rest of the text
// can hold: every item takes at least `tokens` tokens of at least one byte.
static bool parse_count(md5_parser *p, const char *keyword, int64_t min, size_t tokens,
                        size_t *out)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, keyword));
	int64_t v;
	gsioi_token at;
	GSIO_CHECK(gsioi_tok_int(&p->tok, keyword, min, INT32_MAX, &v, &at));
	size_t left = gsioi_tok_remaining(&p->tok);
	if ((uint64_t)v > left / (tokens ? tokens : 1))
		return gsioi_tok_fail(&p->tok, &at, GSIO_ERR_TRUNCATED, false,
		                     "%s %lld cannot fit in the %zu bytes left in the file", keyword,
		                     (long long)v, left);
	*out = (size_t)v;
	return true;
}

static bool parse_header(md5_parser *p, int32_t *version, const char **commandline)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "MD5Version"));
	int64_t v;
	gsioi_token at;
	GSIO_CHECK(gsioi_tok_int(&p->tok, "MD5Version", INT32_MIN, INT32_MAX, &v, &at));
	if (v != GSIO_MD5_VERSION)
		return gsioi_tok_fail(&p->tok, &at, GSIO_ERR_UNSUPPORTED, false,
		                     "MD5Version %lld is not supported (only %d)", (long long)v,
		                     GSIO_MD5_VERSION);
	*version = (int32_t)v;
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "commandline"));
	return parse_string(p, "the command line", commandline);
}

/* The fields every decoded MD5 object starts with, in the order the three
 * public structs (gsio_md5.h) declare them. */
typedef struct md5_head {
	gsio_arena *arena;
	int32_t version;
	const char *commandline;
} md5_head;
#define MD5_HEAD_OF(T) \
	_Static_assert(offsetof(T, arena) == offsetof(md5_head, arena) && \
	                   offsetof(T, version) == offsetof(md5_head, version) && \
	                   offsetof(T, commandline) == offsetof(md5_head, commandline), \
	               #T " starts as md5_head")
MD5_HEAD_OF(gsio_md5_mesh);
MD5_HEAD_OF(gsio_md5_anim);
MD5_HEAD_OF(gsio_md5_camera);

/* The start every decoder shares: an arena holding a zeroed object of
 * `object_size` bytes (one of the structs above), the parser over the
 * text, and the MD5Version and commandline header read into the object's
 * head. Returns the object, or NULL with err set and nothing allocated. */
static void *decode_begin(md5_parser *p, const uint8_t *data, size_t size, const char *name,
                          const gsio_opts *opts, size_t object_size, gsio_error *err)
{
	gsio_error_clear(err);
	md5_head h = {gsioi_arena_for(opts, name, err), 0, NULL};
	if (!h.arena) return NULL;
	void *obj = gsioi_arena_alloc(h.arena, object_size, err);
	if (obj) {
		parser_init(p, data, size, name, h.arena, err);
		if (parse_header(p, &h.version, &h.commandline)) {
			memcpy(obj, &h, sizeof(h));
			return obj;
		}
	}
	gsioi_arena_destroy(h.arena);
	return NULL;
}

/* `frameRate R`, R > 0. */
static bool parse_frame_rate(md5_parser *p, float *rate)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "frameRate"));
	gsioi_token at;
	if (!gsioi_tok_peek(&p->tok, &at) || !gsioi_tok_float(&p->tok, "the frame rate", rate))
		return false;
	return *rate > 0.0f || fail_at(p, &at, GSIO_ERR_CORRUPT, "frameRate must be positive");
}

static bool expect_eof(md5_parser *p)
{
	gsioi_token t;
	GSIO_CHECK(gsioi_tok_next(&p->tok, &t));
	if (t.kind == GSIO_TOKEN_EOF) return true;
	return gsioi_tok_fail(&p->tok, &t, GSIO_ERR_SYNTAX, true, "expected the end of the file");
}

// A record index `i` in 0..count-1 that must not repeat; `where` remembers
// the line/column of each record's first token (line 0: not seen yet).
typedef struct md5_pos {
	int32_t line, column;
} md5_pos;

static bool parse_index(md5_parser *p, const char *what, size_t count, md5_pos *where,
                        size_t *out)
{
	int64_t v;
	gsioi_token at;
	GSIO_CHECK(gsioi_tok_int(&p->tok, what, 0, (int64_t)count - 1, &v, &at));
	size_t i = (size_t)v;
	if (where[i].line)
		return gsioi_tok_fail(&p->tok, &at, GSIO_ERR_CORRUPT, false,
		                     "%s %zu is defined twice (first at line %d)", what, i,
		                     (int)where[i].line);
	where[i].line = at.line;
	where[i].column = at.column;
	*out = i;
	return true;
}

// -- .md5mesh decode

static bool parse_joints(md5_parser *p, gsio_md5_mesh *m)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "joints"));
	GSIO_CHECK(gsioi_tok_expect_punct(&p->tok, '{'));
	for (size_t i = 0; i < m->joints_count; i++) {
		gsio_md5_joint *j = &m->joints[i];
		GSIO_CHECK(parse_string(p, "a joint name", &j->name));
		int64_t parent;
		char what[64];
		snprintf(what, sizeof(what), "joint %zu's parent", i);
		GSIO_CHECK(gsioi_tok_int(&p->tok, what, -1, (int64_t)i - 1, &parent, NULL));
		j->parent = (int32_t)parent;
		GSIO_CHECK(parse_vec(p, j->pos, 3, "a joint position"));
		GSIO_CHECK(parse_vec(p, j->orient, 3, "a joint orientation"));
	}
	return gsioi_tok_expect_punct(&p->tok, '}');
}

static bool parse_submesh(md5_parser *p, gsio_md5_mesh *m, gsio_md5_submesh *sm)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "mesh"));
	GSIO_CHECK(gsioi_tok_expect_punct(&p->tok, '{'));
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "shader"));
	GSIO_CHECK(parse_string(p, "the shader", &sm->shader));

	// Vertices; where their weight range starts, for the check after the weights.
	GSIO_CHECK(parse_count(p, "numverts", 0, 8, &sm->verts_count));
	sm->verts = GSIO_NEW_ARRAY(p->arena, gsio_md5_vert, sm->verts_count, p->err);
	md5_pos *vpos = GSIO_NEW_ARRAY(p->arena, md5_pos, sm->verts_count, p->err);
	md5_pos *start_pos = GSIO_NEW_ARRAY(p->arena, md5_pos, sm->verts_count, p->err);
	GSIO_CHECK(sm->verts && vpos && start_pos);
	for (size_t n = 0; n < sm->verts_count; n++) {
		size_t i = 0; // GCC -O3 cannot see the loop below set it
		GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "vert"));
		GSIO_CHECK(parse_index(p, "vert", sm->verts_count, vpos, &i));
		gsio_md5_vert *v = &sm->verts[i];
		GSIO_CHECK(parse_vec(p, v->st, 2, "a texture coordinate"));
		int64_t start, count;
		gsioi_token at;
		GSIO_CHECK(gsioi_tok_int(&p->tok, "the first weight", 0, INT32_MAX, &start, &at));
		GSIO_CHECK(gsioi_tok_int(&p->tok, "the weight count", 0, INT32_MAX, &count, NULL));
		start_pos[i].line = at.line;
		start_pos[i].column = at.column;
		v->start = (uint32_t)start;
		v->count = (uint32_t)count;
	}

	GSIO_CHECK(parse_count(p, "numtris", 0, 5, &sm->tris_count));
	sm->tris = GSIO_NEW_ARRAY(p->arena, gsio_md5_tri, sm->tris_count, p->err);
	md5_pos *tpos = GSIO_NEW_ARRAY(p->arena, md5_pos, sm->tris_count, p->err);
	GSIO_CHECK(sm->tris && tpos);
	for (size_t n = 0; n < sm->tris_count; n++) {
		size_t i = 0;
		GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "tri"));
		GSIO_CHECK(parse_index(p, "tri", sm->tris_count, tpos, &i));
		for (int k = 0; k < 3; k++) {
			int64_t v;
			GSIO_CHECK(gsioi_tok_int(&p->tok, "a triangle's vertex index", 0,
			                        (int64_t)sm->verts_count - 1, &v, NULL));
			sm->tris[i].v[k] = (uint32_t)v;
		}
	}

	GSIO_CHECK(parse_count(p, "numweights", 0, 9, &sm->weights_count));
	sm->weights = GSIO_NEW_ARRAY(p->arena, gsio_md5_weight, sm->weights_count, p->err);
	md5_pos *wpos = GSIO_NEW_ARRAY(p->arena, md5_pos, sm->weights_count, p->err);
	GSIO_CHECK(sm->weights && wpos);
	for (size_t n = 0; n < sm->weights_count; n++) {
		size_t i = 0;
		GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "weight"));
		GSIO_CHECK(parse_index(p, "weight", sm->weights_count, wpos, &i));
		gsio_md5_weight *w = &sm->weights[i];
		int64_t joint;
		GSIO_CHECK(gsioi_tok_int(&p->tok, "a weight's joint index", 0,
		                        (int64_t)m->joints_count - 1, &joint, NULL));
		w->joint = (uint32_t)joint;
		GSIO_CHECK(gsioi_tok_float(&p->tok, "a weight bias", &w->bias));
		GSIO_CHECK(parse_vec(p, w->pos, 3, "a weight position"));
	}
	GSIO_CHECK(gsioi_tok_expect_punct(&p->tok, '}'));

	// Every vertex's weight range must lie inside this mesh's weights.
	for (size_t i = 0; i < sm->verts_count; i++) {
		const gsio_md5_vert *v = &sm->verts[i];
		if ((uint64_t)v->start + v->count > sm->weights_count) {
			gsioi_token at = {GSIO_TOKEN_WORD, "", 0, start_pos[i].line, start_pos[i].column};
			return gsioi_tok_fail(&p->tok, &at, GSIO_ERR_CORRUPT, false,
			                     "vert %zu uses weights %u..%llu but the mesh has only %zu "
			                     "weights",
			                     i, (unsigned)v->start,
			                     (unsigned long long)v->start + v->count - 1, sm->weights_count);
		}
	}
	return true;
}

gsio_md5_mesh *gsio_md5_mesh_decode(const uint8_t *data, size_t size, const char *name,
                                    const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	md5_parser p;
	gsio_md5_mesh *m = decode_begin(&p, data, size, name, opts, sizeof(*m), err);
	if (!m) return NULL;
	gsio_arena *arena = m->arena;
	if (!parse_count(&p, "numJoints", 1, 12, &m->joints_count)) goto fail;
	if (!parse_count(&p, "numMeshes", 0, 18, &m->meshes_count)) goto fail;
	m->joints = GSIO_NEW_ARRAY(arena, gsio_md5_joint, m->joints_count, err);
	m->meshes = GSIO_NEW_ARRAY(arena, gsio_md5_submesh, m->meshes_count, err);
	if (!m->joints || !m->meshes || !parse_joints(&p, m)) goto fail;
	for (size_t i = 0; i < m->meshes_count; i++)
		if (!parse_submesh(&p, m, &m->meshes[i])) goto fail;
	if (!expect_eof(&p)) goto fail;
	return m;
fail:
	gsioi_arena_destroy(arena);
	return NULL;
}

void gsio_md5_mesh_free(gsio_md5_mesh *mesh)
{
	if (mesh) gsioi_arena_destroy(mesh->arena);
}

// -- .md5anim decode

unsigned gsioi_md5_popcount6(uint32_t flags)
{
	unsigned n = 0;
	for (int b = 0; b < 6; b++) n += (flags >> b) & 1u;
	return n;
}

static bool parse_hierarchy(md5_parser *p, gsio_md5_anim *a)
{
	GSIO_CHECK(gsioi_tok_expect_word(&p->tok, "hierarchy"));
	GSIO_CHECK(gsioi_tok_expect_punct(&p->tok, '{'));
	for (size_t i = 0; i < a->joints_count; i++) {
		gsio_md5_hierarchy *h = &a->hierarchy[i];
		GSIO_CHECK(parse_string(p, "a joint name", &h->name));
		int64_t parent, flags, start;
		char what[64];
		snprintf(what, sizeof(what), "joint %zu's parent", i);
		GSIO_CHECK(gsioi_tok_int(&p->tok, what, -1, (int64_t)i - 1, &parent, NULL));
		GSIO_CHECK(gsioi_tok_int(&p->tok, "the flags", 0, 63, &flags, NULL));
		gsioi_token at;
		GSIO_CHECK(gsioi_tok_int(&p->tok, "the start index", 0, INT32_MAX, &start, &at));
		unsigned used = gsioi_md5_popcount6((uint32_t)flags);
		if (used && (uint64_t)start + used > a->components_count)
			return gsioi_tok_fail(&p->tok, &at, GSIO_ERR_CORRUPT, false,
			                     "joint %zu reads components %lld..%lld but a frame has only "
			                     "%zu (numAnimatedComponents)",
			                     i, (long long)start, (long long)start + used - 1,
			                     a->components_count);
		h->parent = (int32_t)parent;
		h->flags = (uint32_t)flags;
		h->start_index = (uint32_t)start;
	}
	return gsioi_tok_expect_punct(&p->tok, '}');
}

gsio_md5_anim *gsio_md5_anim_decode(const uint8_t *data, size_t size, const char *name,
                                    const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	md5_parser p;
	gsio_md5_anim *a = decode_begin(&p, data, size, name, opts, sizeof(*a), err);
	if (!a) return NULL;
	gsio_arena *arena = a->arena;
	// Per frame at least a bounds line (10 tokens) and `frame i { }` (4).
	if (!parse_count(&p, "numFrames", 1, 14, &a->frames_count)) goto fail;
	if (!parse_count(&p, "numJoints", 1, 14, &a->joints_count)) goto fail;
	if (!parse_frame_rate(&p, &a->frame_rate)) goto fail;
	if (!parse_count(&p, "numAnimatedComponents", 0, 1, &a->components_count)) goto fail;
	size_t values;
	if (!gsioi_mul_size(a->frames_count, a->components_count, &values) ||
	    values > gsioi_tok_remaining(&p.tok)) {
		GSIO_FAIL_LINE(err, GSIO_ERR_TRUNCATED, name, p.tok.last.line, p.tok.last.column,
		               "%zu frames of %zu components cannot fit in the %zu bytes left",
		               a->frames_count, a->components_count, gsioi_tok_remaining(&p.tok));
		goto fail;
	}
	a->hierarchy = GSIO_NEW_ARRAY(arena, gsio_md5_hierarchy, a->joints_count, err);
	a->bounds = GSIO_NEW_ARRAY(arena, gsio_md5_bounds, a->frames_count, err);
	a->baseframe = GSIO_NEW_ARRAY(arena, gsio_md5_baseframe, a->joints_count, err);
	a->frames = GSIO_NEW_ARRAY(arena, float, values, err);
	if (!a->hierarchy || !a->bounds || !a->baseframe || !a->frames) goto fail;
	if (!parse_hierarchy(&p, a)) goto fail;

	if (!gsioi_tok_expect_word(&p.tok, "bounds") || !gsioi_tok_expect_punct(&p.tok, '{')) goto fail;
	for (size_t i = 0; i < a->frames_count; i++)
		if (!parse_vec(&p, a->bounds[i].min, 3, "a bounds minimum") ||
		    !parse_vec(&p, a->bounds[i].max, 3, "a bounds maximum"))
			goto fail;
	if (!gsioi_tok_expect_punct(&p.tok, '}')) goto fail;

	if (!gsioi_tok_expect_word(&p.tok, "baseframe") || !gsioi_tok_expect_punct(&p.tok, '{'))
		goto fail;
	for (size_t i = 0; i < a->joints_count; i++)
		if (!parse_vec(&p, a->baseframe[i].pos, 3, "a baseframe position") ||
		    !parse_vec(&p, a->baseframe[i].orient, 3, "a baseframe orientation"))
			goto fail;
	if (!gsioi_tok_expect_punct(&p.tok, '}')) goto fail;

	for (size_t f = 0; f < a->frames_count; f++) {
		if (!gsioi_tok_expect_word(&p.tok, "frame")) goto fail;
		int64_t num;
		gsioi_token fat;
		if (!gsioi_tok_int(&p.tok, "a frame number", INT64_MIN, INT64_MAX, &num, &fat)) goto fail;
		if (num != (int64_t)f) {
			gsioi_tok_fail(&p.tok, &fat, GSIO_ERR_CORRUPT, false,
			              "frame number %lld where frame %zu was expected (frames count up "
			              "from 0)",
			              (long long)num, f);
			goto fail;
		}
		if (!gsioi_tok_expect_punct(&p.tok, '{')) goto fail;
		float *dst = a->frames + f * a->components_count;
		for (size_t c = 0; c < a->components_count; c++)
			if (!gsioi_tok_float(&p.tok, "a frame component", &dst[c])) goto fail;
		if (!gsioi_tok_expect_punct(&p.tok, '}')) goto fail;
	}
	if (!expect_eof(&p)) goto fail;
	return a;
fail:
	gsioi_arena_destroy(arena);
	return NULL;
}

void gsio_md5_anim_free(gsio_md5_anim *anim)
{
	if (anim) gsioi_arena_destroy(anim->arena);
}

// -- .md5camera decode

gsio_md5_camera *gsio_md5_camera_decode(const uint8_t *data, size_t size, const char *name,
                                        const gsio_opts *opts, gsio_error *err)
{
	gsio_error local;
	if (!err) err = &local;
	md5_parser p;
	gsio_md5_camera *c = decode_begin(&p, data, size, name, opts, sizeof(*c), err);
	if (!c) return NULL;
	gsio_arena *arena = c->arena;
	if (!parse_count(&p, "numFrames", 1, 11, &c->frames_count)) goto fail;
	if (!parse_frame_rate(&p, &c->frame_rate)) goto fail;
	if (!parse_count(&p, "numCuts", 0, 1, &c->cuts_count)) goto fail;
	if (c->cuts_count > c->frames_count) {
		GSIO_FAIL_LINE(err, GSIO_ERR_CORRUPT, name, p.tok.last.line, p.tok.last.column,
		               "numCuts %zu is more than the %zu frames", c->cuts_count,
		               c->frames_count);
		goto fail;
	}
	c->cuts = GSIO_NEW_ARRAY(arena, uint32_t, c->cuts_count, err);
	c->frames = GSIO_NEW_ARRAY(arena, gsio_md5_camera_frame, c->frames_count, err);
	if (!c->cuts || !c->frames) goto fail;
	if (!gsioi_tok_expect_word(&p.tok, "cuts") || !gsioi_tok_expect_punct(&p.tok, '{')) goto fail;
	for (size_t i = 0; i < c->cuts_count; i++) {
		int64_t cut;
		gsioi_token cat;
		if (!gsioi_tok_int(&p.tok, "a camera cut", INT64_MIN, INT64_MAX, &cut, &cat)) goto fail;
		// id's rule: a cut starts a new shot at a frame after the first.
		if (cut < 1 || cut >= (int64_t)c->frames_count) {
			if (c->frames_count == 1)
				gsioi_tok_fail(&p.tok, &cat, GSIO_ERR_CORRUPT, false,
				              "camera cut %lld: a camera of 1 frame cannot cut",
				              (long long)cut);
			else
				gsioi_tok_fail(&p.tok, &cat, GSIO_ERR_CORRUPT, false,
				              "camera cut %lld is not a frame in 1..%zu (numFrames is %zu)",
				              (long long)cut, c->frames_count - 1, c->frames_count);
			goto fail;
		}
		c->cuts[i] = (uint32_t)cut;
	}
	if (!gsioi_tok_expect_punct(&p.tok, '}')) goto fail;
	if (!gsioi_tok_expect_word(&p.tok, "camera") || !gsioi_tok_expect_punct(&p.tok, '{')) goto fail;
	for (size_t i = 0; i < c->frames_count; i++) {
		gsio_md5_camera_frame *fr = &c->frames[i];
		if (!parse_vec(&p, fr->pos, 3, "a camera position") ||
		    !parse_vec(&p, fr->orient, 3, "a camera orientation") ||
		    !gsioi_tok_float(&p.tok, "a field of view", &fr->fov))
			goto fail;
	}
	if (!gsioi_tok_expect_punct(&p.tok, '}') || !expect_eof(&p)) goto fail;
	return c;
fail:
	gsioi_arena_destroy(arena);
	return NULL;
}

void gsio_md5_camera_free(gsio_md5_camera *camera)
{
	if (camera) gsioi_arena_destroy(camera->arena);
}

// -- Detection

gsio_md5_kind gsio_md5_detect(const uint8_t *data, size_t size)
{
	if (!data) return GSIO_MD5_UNKNOWN;
	size_t skip = gsioi_md5_bom_size(data, size);
	gsioi_tokenizer t;
	gsioi_tokenizer_init(&t, (const char *)data + skip, size - skip, NULL, "{}()", NULL);
	gsioi_token tok;
	if (!gsioi_tok_next(&t, &tok) || !gsioi_token_is(&tok, "MD5Version")) return GSIO_MD5_UNKNOWN;
	if (!gsioi_tok_next(&t, &tok) || !gsioi_tok_next(&t, &tok) ||
	    !gsioi_token_is(&tok, "commandline") || !gsioi_tok_next(&t, &tok) ||
	    !gsioi_tok_next(&t, &tok))
		return GSIO_MD5_UNKNOWN;
	if (gsioi_token_is(&tok, "numJoints")) return GSIO_MD5_MESH;
	if (!gsioi_token_is(&tok, "numFrames")) return GSIO_MD5_UNKNOWN;
	if (!gsioi_tok_next(&t, &tok) || !gsioi_tok_next(&t, &tok)) return GSIO_MD5_UNKNOWN;
	if (gsioi_token_is(&tok, "numJoints")) return GSIO_MD5_ANIM;
	if (gsioi_token_is(&tok, "frameRate")) return GSIO_MD5_CAMERA;
	return GSIO_MD5_UNKNOWN;
}

// -- Encode

typedef struct md5_out {
	gsioi_writer w;
	gsio_error *err;
	bool bad;      // an argument the text cannot hold (err is filled)
} md5_out;

static void put(md5_out *o, const char *s)
{
	(void)gsioi_write_bytes(&o->w, s, strlen(s));
}

static void putf(md5_out *o, const char *fmt, ...) GSIO_PRINTF(2, 3);
static void putf(md5_out *o, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0) (void)gsioi_write_bytes(&o->w, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void bad_arg(md5_out *o, const char *what)
{
	if (!o->bad) GSIO_FAIL(o->err, GSIO_ERR_ARGUMENT, NULL, -1, "cannot encode: %s", what);
	o->bad = true;
}

static void put_float(md5_out *o, float v)
{
	char buf[GSIO_FLOAT_TEXT_MAX];
	if (!gsioi_format_float(v, buf)) {
		bad_arg(o, "a value is infinite or not a number");
		return;
	}
	put(o, buf);
}

static void put_vec(md5_out *o, const float *v, size_t n)
{
	put(o, "( ");
	for (size_t i = 0; i < n; i++) {
		put_float(o, v[i]);
		put(o, " ");
	}
	put(o, ")");
}

static void put_string(md5_out *o, const char *s)
{
	if (!s) s = "";
	for (const char *c = s; *c; c++)
		if (*c == '"' || *c == '\n' || *c == '\r') {
			bad_arg(o, "a name or string holds a quote or a line break");
			return;
		}
	put(o, "\"");
	put(o, s);
	put(o, "\"");
}

static void put_header(md5_out *o, const char *commandline)
{
	putf(o, "MD5Version %d\ncommandline ", GSIO_MD5_VERSION);
	put_string(o, commandline);
	put(o, "\n\n");
}

static int finish(md5_out *o, uint8_t **out, size_t *out_size)
{
	*out = NULL;
	*out_size = 0;
	if (o->bad || o->w.failed) {
		if (!o->bad) GSIO_FAIL(o->err, GSIO_ERR_NOMEM, NULL, -1, "out of memory encoding MD5 text");
		gsioi_writer_free(&o->w);
		return -1;
	}
	*out = o->w.data;
	*out_size = o->w.size;
	return 0;
}

int gsio_md5_mesh_encode(const gsio_md5_mesh *m, uint8_t **out, size_t *out_size,
                         gsio_error *err)
{
	md5_out o = {{0}, err, false};
	if (!m || !m->joints_count) {
		bad_arg(&o, "a mesh needs at least one joint");
		return finish(&o, out, out_size);
	}
	put_header(&o, m->commandline);
	putf(&o, "numJoints %zu\nnumMeshes %zu\n\njoints {\n", m->joints_count, m->meshes_count);
	for (size_t i = 0; i < m->joints_count && !o.bad; i++) {
		const gsio_md5_joint *j = &m->joints[i];
		if (j->parent < -1 || j->parent >= (int32_t)i) bad_arg(&o, "a joint's parent is not an earlier joint");
		put(&o, "\t");
		put_string(&o, j->name);
		putf(&o, "\t%d ", (int)j->parent);
		put_vec(&o, j->pos, 3);
		put(&o, " ");
		put_vec(&o, j->orient, 3);
		put(&o, "\n");
	}
	put(&o, "}\n");
	for (size_t mi = 0; mi < m->meshes_count && !o.bad; mi++) {
		const gsio_md5_submesh *sm = &m->meshes[mi];
		put(&o, "\nmesh {\n\tshader ");
		put_string(&o, sm->shader);
		putf(&o, "\n\n\tnumverts %zu\n", sm->verts_count);
		for (size_t i = 0; i < sm->verts_count && !o.bad; i++) {
			const gsio_md5_vert *v = &sm->verts[i];
			if ((uint64_t)v->start + v->count > sm->weights_count)
				bad_arg(&o, "a vertex's weights lie outside the mesh's weights");
			putf(&o, "\tvert %zu ", i);
			put_vec(&o, v->st, 2);
			putf(&o, " %u %u\n", (unsigned)v->start, (unsigned)v->count);
		}
		putf(&o, "\n\tnumtris %zu\n", sm->tris_count);
		for (size_t i = 0; i < sm->tris_count && !o.bad; i++) {
			const gsio_md5_tri *t = &sm->tris[i];
			for (int k = 0; k < 3; k++)
				if (t->v[k] >= sm->verts_count) bad_arg(&o, "a triangle's vertex index is out of range");
			putf(&o, "\ttri %zu %u %u %u\n", i, (unsigned)t->v[0], (unsigned)t->v[1],
			     (unsigned)t->v[2]);
		}
		putf(&o, "\n\tnumweights %zu\n", sm->weights_count);
		for (size_t i = 0; i < sm->weights_count && !o.bad; i++) {
			const gsio_md5_weight *w = &sm->weights[i];
			if (w->joint >= m->joints_count) bad_arg(&o, "a weight's joint index is out of range");
			putf(&o, "\tweight %zu %u ", i, (unsigned)w->joint);
			put_float(&o, w->bias);
			put(&o, " ");
			put_vec(&o, w->pos, 3);
			put(&o, "\n");
		}
		put(&o, "}\n");
	}
	return finish(&o, out, out_size);
}

int gsio_md5_anim_encode(const gsio_md5_anim *a, uint8_t **out, size_t *out_size,
                         gsio_error *err)
{
	md5_out o = {{0}, err, false};
	if (!a || !a->frames_count || !a->joints_count || !(a->frame_rate > 0.0f)) {
		bad_arg(&o, "an animation needs frames, joints and a positive frame rate");
		return finish(&o, out, out_size);
	}
	put_header(&o, a->commandline);
	putf(&o, "numFrames %zu\nnumJoints %zu\nframeRate ", a->frames_count, a->joints_count);
	put_float(&o, a->frame_rate);
	putf(&o, "\nnumAnimatedComponents %zu\n\nhierarchy {\n", a->components_count);
	for (size_t i = 0; i < a->joints_count && !o.bad; i++) {
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		unsigned used = gsioi_md5_popcount6(h->flags);
		if (h->parent < -1 || h->parent >= (int32_t)i || h->flags > 63 ||
		    h->start_index > INT32_MAX ||
		    (used && (uint64_t)h->start_index + used > a->components_count))
			bad_arg(&o, "a hierarchy entry's parent, flags or start index is out of range");
		put(&o, "\t");
		put_string(&o, h->name);
		putf(&o, "\t%d %u %u\n", (int)h->parent, (unsigned)h->flags, (unsigned)h->start_index);
	}
	put(&o, "}\n\nbounds {\n");
	for (size_t i = 0; i < a->frames_count && !o.bad; i++) {
		put(&o, "\t");
		put_vec(&o, a->bounds[i].min, 3);
		put(&o, " ");
		put_vec(&o, a->bounds[i].max, 3);
		put(&o, "\n");
	}
	put(&o, "}\n\nbaseframe {\n");
	for (size_t i = 0; i < a->joints_count && !o.bad; i++) {
		put(&o, "\t");
		put_vec(&o, a->baseframe[i].pos, 3);
		put(&o, " ");
		put_vec(&o, a->baseframe[i].orient, 3);
		put(&o, "\n");
	}
	put(&o, "}\n");
	for (size_t f = 0; f < a->frames_count && !o.bad; f++) {
		putf(&o, "\nframe %zu {\n", f);
		const float *src = a->frames + f * a->components_count;
		// Six values a line, like the exporters (one joint's worth with all flags).
		for (size_t c = 0; c < a->components_count; c++) {
			put(&o, c % 6 ? " " : "\t");
			put_float(&o, src[c]);
			if (c % 6 == 5 || c + 1 == a->components_count) put(&o, "\n");
		}
		put(&o, "}\n");
	}
	return finish(&o, out, out_size);
}

int gsio_md5_camera_encode(const gsio_md5_camera *c, uint8_t **out, size_t *out_size,
                           gsio_error *err)
{
	md5_out o = {{0}, err, false};
	if (!c || !c->frames_count || !(c->frame_rate > 0.0f) || c->cuts_count > c->frames_count) {
		bad_arg(&o, "a camera needs frames, a positive frame rate and no more cuts than frames");
		return finish(&o, out, out_size);
	}
	put_header(&o, c->commandline);
	putf(&o, "numFrames %zu\nframeRate ", c->frames_count);
	put_float(&o, c->frame_rate);
	putf(&o, "\nnumCuts %zu\n\ncuts {\n", c->cuts_count);
	for (size_t i = 0; i < c->cuts_count; i++) {
		if (c->cuts[i] < 1 || c->cuts[i] >= c->frames_count)
			bad_arg(&o, "a camera cut is not a frame after the first");
		putf(&o, "\t%u\n", (unsigned)c->cuts[i]);
	}
	put(&o, "}\n\ncamera {\n");
	for (size_t i = 0; i < c->frames_count && !o.bad; i++) {
		const gsio_md5_camera_frame *fr = &c->frames[i];
		put(&o, "\t");
		put_vec(&o, fr->pos, 3);
		put(&o, " ");
		put_vec(&o, fr->orient, 3);
		put(&o, " ");
		put_float(&o, fr->fov);
		put(&o, "\n");
	}
	put(&o, "}\n");
	return finish(&o, out, out_size);
}

// -- Skeleton check

int gsio_md5_anim_check(const gsio_md5_mesh *m, const gsio_md5_anim *a, const char *anim_name,
                        gsio_error *err)
{
	if (m->joints_count != a->joints_count) {
		GSIO_FAIL(err, GSIO_ERR_MISMATCH, anim_name, -1,
		          "the animation has %zu joints, the mesh %zu", a->joints_count,
		          m->joints_count);
		return -1;
	}
	for (size_t i = 0; i < m->joints_count; i++) {
		const gsio_md5_joint *j = &m->joints[i];
		const gsio_md5_hierarchy *h = &a->hierarchy[i];
		if (strcmp(j->name, h->name)) {
			GSIO_FAIL(err, GSIO_ERR_MISMATCH, anim_name, -1,
			          "joint %zu is \"%.60s\" in the mesh but \"%.60s\" in the animation", i,
			          j->name, h->name);
			return -1;
		}
		if (j->parent != h->parent) {
			GSIO_FAIL(err, GSIO_ERR_MISMATCH, anim_name, -1,
			          "joint %zu \"%.60s\" has parent %d in the mesh but %d in the animation",
			          i, j->name, (int)j->parent, (int)h->parent);
			return -1;
		}
	}
	return 0;
}

